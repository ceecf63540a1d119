"""Run a pipeline file: config -> one :class:`~tracekit.app.trace.LiveTrace` (which owns
the session, source, stages, sink and when the trace ends), signals, exit status.

Phases and what a signal does in each (SIGINT, SIGTERM, SIGHUP)::

    start-up ──────────────> tracing ─────────────────────> drain & close
    1st signal: cancel       1st: stop the source (final      2nd signal anywhere:
    start-up, close all      drain), forward it to the        abort at once
                             command
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import msgspec
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


def session_options(cfg: Any, path: Path) -> tuple[Any, Any]:
    """The :class:`~tracekit.session.session.SessionOptions` of a pipeline file's
    ``[target]``, ``[filter]`` and sizes, and this machine's syscall table.

    Raises:
      ConfigError: a selection names what does not exist (located at ``path``).
    """
    from tracekit.app.selection import session_selection
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
    return opts, table


class OutputPlan:
    """What a pipeline file's output needs, for a live run and a replay alike: the stages
    (the selection's, the file's, the format's), the format, its options, the context.

    Args:
      facts: the trace's :class:`~tracekit.kernel.facts.Facts` (a recording's, a
        replay's); None: the running system's.
      in_kernel: whether the output counts in BPF maps (None: as the format decides).
      context: :class:`~tracekit.formatters.SinkContext` fields to replace (a replay:
        the recording's syscall tables and tracefs arguments).

    Attributes:
      stages: in pipeline order.
      spec, options: the output's format and its options.
      kernel_summary: the syscalls are counted in BPF maps (no syscall records).
      ctx: the sink's :class:`~tracekit.formatters.SinkContext`.
    """

    def __init__(self, cfg: Any, path: Path, *, syscalls: set[int] | None, table: Any,
                 facts: Any = None, summary_from: Any = None,
                 in_kernel: bool | None = None, context: dict[str, Any] | None = None,
                 counters_from: Any = None) -> None:
        from tracekit.app.registry import build_stages
        from tracekit.app.selection import check_format_keys, selection_stages

        check_format_keys(cfg)
        stages = selection_stages(cfg.filter, facts=facts) + build_stages(cfg.stage,
                                                                          facts=facts)
        o = cfg.output
        spec = format_spec(o.format)        # what the output needs: its options and stages
        options = spec.options_of(o)
        if getattr(options, "fd_paths", False):
            options = msgspec.structs.replace(
                options, fd_paths=_fd_paths_possible(syscalls, table))
        kernel_summary = (spec.counts_in_kernel(options, has_stages=bool(stages))
                          if in_kernel is None else in_kernel)
        ctx = SinkContext.for_machine(summary_from=summary_from if kernel_summary else None,
                                      facts=facts)
        if counters_from is not None:
            ctx = dataclasses.replace(ctx, counters_from=counters_from)
        if context:                     # a replay: the recording's tables
            ctx = dataclasses.replace(ctx, **context)
        stages += spec.stages_before(options, stages, ctx)
        self.stages, self.spec, self.options = stages, spec, options
        self.kernel_summary, self.ctx = kernel_summary, ctx


async def run_pipeline_file(cfg: Any, path: Path, *, record: str | None = None) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Args:
      record: also write a recording of the trace to this path (``tracekit replay``
        prints it again); default the file's ``record`` key.

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline,
        PipelineError naming the stage that failed).
    """
    from tracekit.app.trace import LiveTrace

    opts, table = session_options(cfg, path)
    syscalls = opts.syscalls
    record = record if record is not None else getattr(cfg, "record", None)

    def summary_from() -> Any:           # called by the sink at the end, session open
        assert trace.session is not None
        summary = trace.session.kernel_summary().read()
        if recording is not None:
            recording.recorder.summary(summary)
        return summary

    def counters_from() -> dict[str, int]:     # the kernel's counters now (metrics)
        session = trace.session
        if session is None or session.obj is None:
            return {}
        c = session.counters()
        return {"lost": c.lost, "summary_full": c.summary_full,
                "untraced": c.pids_full + session.not_added}

    # the in-kernel choice first: a recording's header says which it is
    probe = format_spec(cfg.output.format)
    in_kernel = probe.counts_in_kernel(
        probe.options_of(cfg.output), has_stages=bool(cfg.stage or cfg.filter.path))
    if in_kernel:
        # counted in BPF maps: no syscall records, no captures (issue 5)
        opts.summary, opts.capture = True, False
    else:
        # each recorded call's stacks, taken at its entry (issue 18)
        opts.stacks = getattr(cfg.output, "stacks", None)
    recording = open_recording(record, opts) if record else None
    completed = False
    try:
        plan = OutputPlan(cfg, path, syscalls=syscalls, table=table,
                          facts=recording.recorder.facts if recording else None,
                          summary_from=summary_from, in_kernel=in_kernel,
                          counters_from=counters_from)
        o = cfg.output
        status_line = status_wanted(o.path) and not plan.kernel_summary
        # events go to a file and stderr is a terminal: a live line on stderr
        trace = LiveTrace(opts, plan.stages, collect=False, duration_s=cfg.duration_s,
                          while_tracing=[_draw_status] if status_line else [],
                          recorder=recording.recorder if recording else None)
        status = await _run_live(trace, plan, o.path)
        completed = True
        return status
    finally:
        if recording is not None:
            recording.close(completed=completed)


class _OpenRecording:
    """A recording's file and :class:`~tracekit.session.recording.Recorder`."""

    def __init__(self, out: Any, recorder: Any) -> None:
        self.out, self.recorder = out, recorder

    def close(self, *, completed: bool) -> None:
        from tracekit.session.recording import End

        # a trace that never started writes its end here (the trace writes it otherwise)
        self.recorder.close(End(ts_ns=0, records=0, lost=0, completed=False))
        close_output(self.out, completed=True)   # what was recorded stays, also on failure


def open_recording(path: str, opts: Any) -> _OpenRecording:
    """Open ``path`` for a recording (a new 0600 file, as every output) and write its
    header."""
    from tracekit.session.recording import Recorder, make_header

    out = open_output(path)
    try:
        recorder = Recorder(out, make_header(opts))
    except BaseException:
        close_output(out, completed=False)
        raise
    return _OpenRecording(out, recorder)


async def _run_live(trace: Any, plan: OutputPlan, path: str) -> int:
    spec = plan.spec
    out = open_sink_output(spec, path)
    completed = False
    try:
        sink = spec.make_sink(out, plan.options, plan.ctx)
        trace.sinks.append(sink)
        with _Signals(trace):
            result = await trace.run()
        if result is None:              # a signal came while starting
            return 128 + (trace.interrupted_by or signal.SIGINT)
        completed = True
    finally:
        if not isinstance(out, str):
            close_output(out, completed=completed)
    session, source, counters = trace.session, trace.source, trace.counters
    assert session is not None and source is not None and counters is not None
    repaired = sum(st.counters.get("repaired_pids_full", 0) for st in result.stats.values())
    return end_status(result, sink, returncode=trace.returncode, lost=source.lost,
                      summary_full=counters.summary_full, errno_full=counters.errno_full,
                      untraced=counters.pids_full + session.not_added - repaired,
                      command=session.command is not None)


def open_sink_output(spec: Any, path: str) -> Any:
    """What a format's sink writes to: the opened output (tracekit.formatters._output),
    or the path itself for a sink that rewrites it (``spec.rewrites``: a metrics
    textfile), which still opens each version with the same rules."""
    if spec.rewrites and path != "-":
        return path
    return open_output(path, atomic=spec.written_at_end)


def end_status(result: Any, sink: Any, *, returncode: int | None, lost: int,
               summary_full: int, errno_full: int, untraced: int, command: bool) -> int:
    """The exit status of a run (or a replay) that ended with ``result``; prints what the
    kernel could not do (lost records, full maps) on stderr."""
    status = 0
    if result.downstream_closed and getattr(sink, "closed_by_reader", False):
        # The reader of our output went away (`| head`): stop here without
        # waiting for the command, which goes on untraced; status as SIGPIPE's.
        status = 128 + signal.SIGPIPE
    elif result.downstream_closed:
        # A stage stopped reading (e.g. one that wanted only the first events):
        # tracing ends; the command goes on untraced.
        log.warning("a stage stopped reading its input: tracing ended early%s",
                    "; the command goes on untraced" if command else "")
    elif returncode is not None:
        status = returncode if returncode >= 0 else 128 - returncode
    # What the trace's lost events add up to (the kernel counts on while a pid target
    # runs after the final drain: those calls came after the stop, untraced, not lost).
    if lost:
        print(f"tracekit: LOST {lost} records: the ring buffer was full; "
              "raise buffer_pages in the pipeline file", file=sys.stderr)
    if summary_full or errno_full:
        print(f"tracekit: the in-kernel summary missed {summary_full} calls and "
              f"{errno_full} errno counts: its maps were full", file=sys.stderr)
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
