"""Run a pipeline file: session + ring-buffer source + stages + sink, with signals.

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

import msgspec
import trio

from tracekit.app.status import StatusLine, session_sampler, status_wanted
from tracekit.formatters._output import close_output, open_output
from tracekit.formatters._spec import SinkContext, format_spec

log = logging.getLogger("tracekit.run")


_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_FORCE_EXIT_S = 1.0   # after a second signal, how long the loop has to end by itself


class _Runner:
    """State shared by the signal watcher and the run: which phase, what to stop."""

    def __init__(self) -> None:
        self.startup_scope = trio.CancelScope()
        self.interrupted_by: int | None = None
        self.signals_seen = 0
        self.forwarded = False
        self.source: Any = None
        self.session: Any = None
        self.pipeline: Any = None

    async def watch_signals(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                            ) -> None:
        """Own SIGINT, SIGTERM and SIGHUP for the run (handlers restored at the end).

        Some facts about Python signal handlers: they run in the main thread between
        bytecodes, even while the trio loop is stuck in a stage that blocks synchronously,
        where a trio signal receiver would never be read. So the first signal is passed to
        trio (``run_sync_soon`` is signal-safe) for a graceful drain, and the second asks
        trio to abort and, should the loop not get to it, ends the process after
        ``_FORCE_EXIT_S`` (every kernel object is fd-owned: nothing is left behind).
        """
        token = trio.lowlevel.current_trio_token()

        def handler(signum: int, frame: object) -> None:
            # counted here: the trio loop, which records the first, may be the one stuck
            self.signals_seen += 1
            if self.signals_seen == 1:
                self._forward(signum)  # here, not from the loop, which a stage may hold
            if self.signals_seen > 1:
                timer = threading.Timer(_FORCE_EXIT_S, os._exit, (128 + signum,))
                timer.daemon = True
                timer.start()
            token.run_sync_soon(self._on_signal, signum)

        saved = {sig: signal.signal(sig, handler) for sig in _SIGNALS}
        try:
            task_status.started()
            await trio.sleep_forever()
        finally:
            for sig, old in saved.items():
                signal.signal(sig, old)

    def _forward(self, sig: int) -> None:
        """Pass the first signal on to the command, once (it may not exist yet)."""
        cmd = self.session.command if self.session is not None else None
        if cmd is not None and not self.forwarded:
            self.forwarded = True
            cmd.send_signal(sig)

    def _on_signal(self, sig: int) -> None:
        if self.interrupted_by is None:
            self.interrupted_by = sig
            self._forward(sig)  # a command started after the handler ran
            if self.source is None:        # still starting: give up cleanly
                self.startup_scope.cancel()
            else:
                self.source.request_stop()
        elif self.pipeline is not None:
            self.pipeline.abort()
        else:
            self.startup_scope.cancel()


async def _watch_command(session: Any, source: Any) -> None:
    await session.command.wait()
    source.request_stop()


async def _stop_after(seconds: float, source: Any, session: Any) -> None:
    """End the session after ``seconds``; a command still running gets SIGTERM (as
    timeout(1) does), so tracekit's exit status is then 128+15."""
    await trio.sleep(seconds)
    await end_command_then_stop(source, session)


async def end_command_then_stop(source: Any, session: Any, *, grace_s: float = 2.0) -> None:
    """Stop the source after the command, if one runs, has ended on SIGTERM.

    The command's last records (the call SIGTERM interrupted, its exit) reach the ring
    buffer before it can be reaped, so the source's final drain must come after that:
    stopping first would race them. A command that outlives ``grace_s`` is left running
    and the trace ends anyway.
    """
    cmd = session.command
    if cmd is not None and cmd.returncode is None:
        cmd.send_signal(signal.SIGTERM)
        with trio.move_on_after(grace_s):
            await cmd.wait()
    source.request_stop()


async def run_pipeline_file(cfg: Any, path: Path) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline).
    """
    from tracekit.app.registry import build_stages
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.pipeline import Pipeline
    from tracekit.pipeline.upkeep import default_upkeep_stages
    from tracekit.session.session import Session, SessionOptions
    from tracekit.session.source import RingBufferSource

    table = SyscallTable()
    _cross_check(table)
    t, f = cfg.target, cfg.filter
    syscalls = resolve_syscalls(f.syscalls, table, where=str(path)) if f.syscalls else None
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, failed_only=f.failed_only,
        min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries)
    stages = build_stages(cfg.stage)
    stages = [*default_upkeep_stages(opts.target(), stages), *stages]
    o = cfg.output
    spec = format_spec(o.format)        # what the output needs: its options and stages
    options = spec.options_of(o)
    if getattr(options, "fd_paths", False):
        options = msgspec.structs.replace(
            options, fd_paths=_fd_paths_possible(syscalls, table))
    kernel_summary = spec.counts_in_kernel(options, has_stages=bool(cfg.stage))
    if kernel_summary:
        # counted in BPF maps: no syscall records, no captures (issue 5)
        opts.summary, opts.capture = True, False
    runner = _Runner()
    session = Session(opts)             # acquires nothing until start()
    ctx = SinkContext.for_machine(
        summary_from=(lambda: session.kernel_summary().read()) if kernel_summary else None)
    stages += spec.stages_before(options, stages, ctx)
    out = open_output(o.path, atomic=spec.written_at_end)
    status = 0
    completed = False
    try:
        sink = spec.make_sink(out, options, ctx)
        async with trio.open_nursery() as nursery:
            await nursery.start(runner.watch_signals)
            with runner.startup_scope:
                runner.session = session
                await session.start()
            if runner.startup_scope.cancelled_caught or runner.interrupted_by is not None:
                # A signal came while starting (its cancel may land after start-up ended):
                # the command, if started, has had it forwarded; stop here.
                nursery.cancel_scope.cancel()
                return 128 + (runner.interrupted_by or signal.SIGINT)
            source = RingBufferSource(session)
            pipeline = Pipeline(source, stages, [sink], session=session)
            runner.source, runner.pipeline = source, pipeline
            status_line = None
            if status_wanted(o.path) and not kernel_summary:
                # events go to a file and stderr is a terminal: a live line on stderr
                status_line = StatusLine(session_sampler(session, source))
                nursery.start_soon(status_line.run)
            if session.command is not None:
                nursery.start_soon(_watch_command, session, source)
            if cfg.duration_s:
                nursery.start_soon(_stop_after, cfg.duration_s, source, session)
            result = await pipeline.run()
            if status_line is not None:
                status_line.stop()  # erased before the command's end and the LOST lines
            counters = session.counters()
            if result.downstream_closed and getattr(sink, "closed_by_reader", False):
                # The reader of our output went away (`| head`): stop here without
                # waiting for the command, which goes on untraced; status as SIGPIPE's.
                status = 128 + signal.SIGPIPE
            elif result.downstream_closed:
                # A stage stopped reading (e.g. one that wanted only the first events):
                # tracing ends; the command goes on untraced.
                log.warning("a stage stopped reading its input: tracing ended early%s",
                            "; the command goes on untraced" if session.command else "")
            elif session.command is not None:
                rc = await session.command.wait()
                status = rc if rc >= 0 else 128 - rc
            nursery.cancel_scope.cancel()
        completed = True
    finally:
        session.close()
        close_output(out, completed=completed)
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
    from tracekit.kernel.tracefs import find_tracefs, syscall_event_names

    missing = table.cross_check(syscall_event_names(find_tracefs()))
    if missing:
        log.warning("the syscall table (system-calls package) lacks %d syscalls this kernel "
                    "has: %s; they print as syscall_<nr> (upgrade system-calls)",
                    len(missing), ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
