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

from tracekit.app.status import StatusLine, session_sampler, status_wanted
from tracekit.formatters._output import close_output, open_output
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
    o = cfg.output
    spec = format_spec(o.format)        # what the output needs: its options and stages
    options = spec.options_of(o)
    # fds printed with what they refer to (or followed by -P): keep the fd tables true
    opts.fd_table = _fd_tables_wanted(options, stages)
    kernel_summary = spec.counts_in_kernel(options, has_stages=bool(stages))
    if kernel_summary:
        # counted in BPF maps: no syscall records, no captures (issue 5)
        opts.summary, opts.capture = True, False
    status_line = status_wanted(o.path) and not kernel_summary
    # events go to a file and stderr is a terminal: a live line on stderr

    def summary_from() -> Any:           # called by the sink at the end, session open
        assert trace.session is not None
        return trace.session.kernel_summary().read()

    ctx = SinkContext.for_machine(summary_from=summary_from if kernel_summary else None)
    stages += spec.stages_before(options, stages, ctx)
    trace = LiveTrace(opts, stages, collect=False, duration_s=cfg.duration_s,
                      while_tracing=[_draw_status] if status_line else [])
    out = open_output(o.path, atomic=spec.written_at_end)
    completed = False
    try:
        sink = spec.make_sink(out, options, ctx)
        trace.sinks.append(sink)
        with _Signals(trace):
            result = await trace.run()
        if result is None:              # a signal came while starting
            return 128 + (trace.interrupted_by or signal.SIGINT)
        completed = True
    finally:
        close_output(out, completed=completed)
    session, source, counters = trace.session, trace.source, trace.counters
    assert session is not None and source is not None and counters is not None
    status = 0
    if result.downstream_closed and getattr(sink, "closed_by_reader", False):
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


def _fd_tables_wanted(options: Any, stages: list[Any]) -> bool:
    """Whether something prints fds with what they refer to (the output's ``fd_paths``,
    a beautify stage's) or follows them (a path filter): then the session records the
    calls that change fd tables even when the selection hides them, the fds left after
    each exec, and the targets' tables at start (tracekit.session.fdstate)."""
    from tracekit.pipeline.beautify import Beautify
    from tracekit.pipeline.pathfilter import PathFilter

    return bool(getattr(options, "fd_paths", False)) or any(
        isinstance(st, PathFilter) or (isinstance(st, Beautify) and st.decoder.fd_paths)
        for st in stages)


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
