"""Run a pipeline file: config -> one :class:`~tracekit.app.trace.LiveTrace` (which owns
the session, source, stages, sink and when the trace ends), signals, exit status.

Phases and what a signal does in each (SIGINT, SIGTERM, SIGHUP)::

    start-up ──────────────> tracing ─────────────────────> drain & close
    1st signal: cancel       1st: stop the source (final      2nd signal anywhere:
    start-up, close all      drain), forward it to the        abort at once
                             command
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import trio

from tracekit.app.outputs import OutputPlan, kernel_summary_sources
from tracekit.app.status import StatusLine, session_sampler, status_wanted
from tracekit.formatters._spec import SinkContext, format_spec

log = logging.getLogger("tracekit.run")


_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_FORCE_EXIT_S = 1.0   # after a second signal, how long the loop has to end by itself


class _Signals:
    """``with _Signals(trace):`` owns SIGINT, SIGTERM and SIGHUP for the trace (the old
    handlers are back on exit) and hands each one to the trace.

    Some facts about Python signal handlers: they run in the main thread between
    bytecodes, even while the trio loop is stuck in a stage that blocks synchronously,
    where a trio signal receiver would never be read. So the first signal is forwarded
    to the command from the handler itself (:meth:`LiveTrace.forward`) and passed to
    trio (``run_sync_soon`` is signal-safe) for a graceful drain
    (:meth:`LiveTrace.interrupt`); the second asks trio to abort and, should the loop not
    get to it, ends the process after ``_FORCE_EXIT_S`` (every kernel object is
    fd-owned: nothing is left behind). A context manager, not a task: no nursery stands
    between the trace's errors and the caller.
    """

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.seen = 0
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        token = trio.lowlevel.current_trio_token()
        trace = self.trace

        def handler(signum: int, frame: object) -> None:
            # counted here: the trio loop, which records the first, may be the one stuck
            self.seen += 1
            if self.seen == 1:
                trace.forward(signum)  # here, not from the loop, which a stage may hold
            else:
                timer = threading.Timer(_FORCE_EXIT_S, os._exit, (128 + signum,))
                timer.daemon = True
                timer.start()
            token.run_sync_soon(trace.interrupt, signum)

        self._saved = {sig: signal.signal(sig, handler) for sig in _SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._saved.items():
            signal.signal(sig, old)


async def run_pipeline_file(cfg: Any, path: Path) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline,
        PipelineError naming the stage that failed).
    """
    from tracekit.app.registry import build_stages
    from tracekit.app.selection import check_format_keys, selection_stages, session_selection
    from tracekit.app.trace import LiveTrace
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.session.session import SessionOptions

    table = SyscallTable()
    _cross_check(table)
    t, f = cfg.target, cfg.filter
    syscalls = resolve_syscalls(f.syscalls, table, where=str(path)) if f.syscalls else None
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, failed_only=f.failed_only,
        min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries,
        **session_selection(f, t, where=str(path)))
    check_format_keys(cfg)
    stages = selection_stages(f) + build_stages(cfg.stage)
    # the outputs: each format's options, its stages (each once), its sink (app/outputs.py)
    wants_fd_paths = any(getattr(format_spec(o.format).options_of(o), "fd_paths", False)
                         for o in cfg.outputs)
    plan = OutputPlan(cfg, has_stages=bool(stages), fd_paths_ok=not wants_fd_paths
                      or _fd_paths_possible(syscalls, table))
    if plan.kernel_summary:
        # counted in BPF maps (issue 5); records too only when another output prints them
        opts.summary, opts.summary_records = True, plan.records
        opts.capture = plan.records
    # events go to files and stderr is a terminal: a live line on stderr
    status_line = plan.status_line_ok and all(status_wanted(p) for p in plan.paths)
    summary_from, interval_from = kernel_summary_sources(lambda: trace.session)
    ctx = SinkContext.for_machine(
        summary_from=summary_from if plan.kernel_summary else None,
        interval_from=interval_from if plan.kernel_summary else None)
    stages = plan.stages(stages, ctx)
    trace = LiveTrace(opts, stages, collect=False, duration_s=cfg.timeout_s,
                      while_tracing=[_draw_status] if status_line else [])
    completed = False
    try:
        trace.sinks.extend(plan.open_sinks(ctx))
        with _Signals(trace):
            result = await trace.run()
        if result is None:              # a signal came while starting
            return 128 + (trace.interrupted_by or signal.SIGINT)
        completed = True
    finally:
        plan.close(completed=completed)
    session, source, counters = trace.session, trace.source, trace.counters
    assert session is not None and source is not None and counters is not None
    status = 0
    if result.downstream_closed and plan.closed_by_reader:
        # The reader of our output went away (`| head`): stop here without
        # waiting for the command, which goes on untraced; status as SIGPIPE's.
        status = 128 + signal.SIGPIPE
    elif result.downstream_closed:
        # A stage stopped reading (e.g. one that wanted only the first events):
        # tracing ends; the command goes on untraced.
        log.warning("a stage stopped reading its input: tracing ended early%s",
                    "; the command goes on untraced" if session.command else "")
    elif trace.returncode is not None:
        rc = trace.returncode
        status = rc if rc >= 0 else 128 - rc
    # What the trace's lost events add up to (the kernel counts on while a pid target
    # runs after the final drain: those calls came after the stop, untraced, not lost).
    if source.lost:
        print(f"tracekit: LOST {source.lost} records: the ring buffer was full; "
              "raise buffer_pages in the pipeline file", file=sys.stderr)
    if counters.summary_full or counters.errno_full:
        print(f"tracekit: the in-kernel summary missed {counters.summary_full} calls and "
              f"{counters.errno_full} errno counts: its maps were full", file=sys.stderr)
    repaired = sum(st.counters.get("repaired_pids_full", 0) for st in result.stats.values())
    untraced = counters.pids_full + session.not_added - repaired
    if untraced > 0:
        print(f"tracekit: {untraced} tasks were not traced: "
              "the pids map was full; raise pids_max_entries", file=sys.stderr)
    return status


async def _draw_status(trace: Any) -> None:
    """The live status line until the trace has drained (cancelled: the line is erased)."""
    await StatusLine(session_sampler(trace.session, trace.source)).run()


def _fd_paths_possible(syscalls: set[int] | None, table: Any) -> bool:
    """Whether fds can be shown with their paths: the fd cache follows the calls that close
    or overwrite fds, so a [filter] that hides any of them would make it show stale paths.
    Such a trace shows plain fds (said once on stderr)."""
    if syscalls is None:
        return True
    from tracekit.decode.args import fd_invalidating_syscalls
    from tracekit.decode.argspec import ARGSPEC

    shown = {table.name(nr) for nr in syscalls}
    if not any("fd" in args or "dirfd" in args or ret == "fd"
               for args, ret in (ARGSPEC.get(n, ((), "")) for n in shown)):
        return True  # no selected call shows an fd: nothing to keep true
    hidden = sorted(n for n in fd_invalidating_syscalls()
                    if (nr := table.nr(n)) is not None and nr not in syscalls)
    if hidden:
        log.warning("fds are shown without paths: the syscall filter hides calls that "
                    "close or overwrite fds (%s%s)", ", ".join(hidden[:4]),
                    ", ..." if len(hidden) > 4 else "")
    return not hidden


def _cross_check(table: Any) -> None:
    """Warn once when tracefs lists syscalls the number table lacks (an old system-calls
    package on a newer kernel): their records would be printed as ``syscall_<nr>``."""
    from tracekit.kernel.tracefs import readable_tracefs, syscall_event_names

    root = readable_tracefs()
    if root is None:        # no tracefs to compare with (not root: it is mode 0700)
        return
    missing = table.cross_check(syscall_event_names(root))
    if missing:
        log.warning("the syscall table (system-calls package) lacks %d syscalls this kernel "
                    "has: %s; they print as syscall_<nr> (upgrade system-calls)",
                    len(missing), ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
