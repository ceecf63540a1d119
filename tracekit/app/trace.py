"""One trace: session + ring-buffer source + stages + sinks, and the one place that
decides when it ends. ``tracekit run`` (tracekit.app.run), the notebook
(tracekit.notebook) and library users all run a :class:`LiveTrace`::

    Session ── RingBufferSource ── stages... ──┬── collector (Summarizer + last N events)
                                               └── sinks ...

Phases, and what ends each (every end of a trace is decided in this module)::

    start-up ─────────────────> tracing ─────────────────────────> drain ──> command wait ──> closed
    interrupt(): cancel         ends (final drain of the ring      stages and      (its exit
    start-up, close all         buffer, then every stage drains    sinks drain;    status)
    (run() returns None)        in order) when:                    no progress
                                - the command exits;               for stall_s:
                                - every target is gone on two      a warning
                                  polls in a row (RingBufferSource) naming the
                                - timeout_s passed: the workload   stage, abort
                                  gets SIGTERM, SIGKILL grace_s
                                  later (as timeout -k does);
                                - stop();
                                - the first interrupt(): a command
                                  has react_s to react to the
                                  signal (exit), other targets
                                  end at once;
                                a second interrupt() aborts: batches in flight are
                                dropped, the sinks end with what reached them.

The trace owns no signal handler: the front end that has one (``tracekit run``) decides
whether the command could have had the signal already (a terminal sends it to the whole
foreground process group) and passes it to :meth:`LiveTrace.interrupt` with ``forward``
saying whether to send it on.

The workload: the command and every process traced because of it (the pids map's
tasks), and, when the command runs in a process group of its own, that group.
"""

from __future__ import annotations

import collections
import logging
import math
import os
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import msgspec
import trio

from tracekit._errors import MapError, leaves
from tracekit._events import Event, Losses, Lost
from tracekit._summary import GroupBy, Summarizer, Summary
from tracekit.pipeline._run import Pipeline, PipelineResult
from tracekit.pipeline._stage import EventReceiver, StageContext
from tracekit.pipeline.upkeep import default_upkeep_stages
from tracekit.session.session import Counters, Session, SessionOptions
from tracekit.session.source import RingBufferSource
from tracekit.session.spawn import in_terminal_foreground

__all__ = ["Collector", "LiveTrace"]

log = logging.getLogger("tracekit.trace")


class Collector:
    """A sink that aggregates every Syscall (:class:`~tracekit.Summarizer`) and keeps the
    last ``keep_events`` events of any type.

    Attributes:
      summarizer: the running aggregation.
      recent: a deque of the last ``keep_events`` events, oldest first.
      events: every event received (all types).
      lost: records the kernel could not write (sum of ``Lost.count``).
    """

    name = "collector"

    def __init__(self, keep_events: int = 10_000, *,
                 syscall_name: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None) -> None:
        self.summarizer = Summarizer(syscall_name, compat_syscall_name)
        self.recent: collections.deque[Event] = collections.deque(maxlen=keep_events)
        self.events = 0
        self.lost = 0

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        add, recent = self.summarizer.add, self.recent
        async with recv:
            async for batch in recv:
                add(batch)
                recent.extend(batch)
                self.events += len(batch)
                for ev in batch:
                    if type(ev) is Lost:
                        self.lost += ev.count


#: a task run while events flow (e.g. a status line): started once tracing has begun,
#: cancelled once the pipeline has drained
TraceTask = Callable[["LiveTrace"], Awaitable[None]]


class LiveTrace:
    """One trace; :meth:`run` it in a trio nursery, read it from any task meanwhile.

    Args:
      opts: what to trace (:class:`~tracekit.SessionOptions`).
      stages: applied in order to the events before the collector and ``sinks``.
      sinks: more sinks (a :class:`~tracekit.formatters.JsonlSink` to keep a file ...).
      keep_events: how many of the latest events :meth:`last_events` can return.
      timeout_s: the time limit: end after this many seconds; the workload still running
        then gets SIGTERM, and SIGKILL ``grace_s`` later (as ``timeout -k`` does). None =
        until the target ends or :meth:`stop`. With a time limit, a command started while
        this process is not in its terminal's foreground runs in a process group of its
        own (as under timeout(1)); in the foreground it shares ours, so that it keeps the
        terminal and its signals (as under ``timeout --foreground``).
      grace_s: seconds between SIGTERM and SIGKILL when the workload is ended.
      react_s: after the first :meth:`interrupt`, how long tracing goes on while the
        command reacts to the signal (its last calls, its exit) before the final drain.
      stall_s: once the trace is ending, a drain that moves no batch for this long ends
        with a warning naming the stage that stopped reading (:meth:`Pipeline.watch_drain
        <tracekit.pipeline.Pipeline.watch_drain>`).
      collect: run the :class:`Collector` sink (:meth:`summary`, :meth:`last_events`);
        False when ``sinks`` do all the work (``tracekit run``).
      while_tracing: tasks called with the trace once tracing has begun, cancelled once
        the pipeline has drained (before the command is waited for).
      recorder: a :class:`~tracekit.session.recording.Recorder` that writes the raw
        records as they come off the ring buffer (a tap on the source), the target's fd
        tables at attach and, at the end, the kernel's counters; its ``facts`` go to the
        stages and sinks (so what they read from the system is written down too).

    Raises:
      TargetError: ``opts`` is invalid (``SessionOptions.validate``).

    Attributes:
      session: the :class:`~tracekit.Session` once started, else None.
      source: the :class:`~tracekit.RingBufferSource` once started.
      pipeline: the :class:`~tracekit.pipeline.Pipeline` once started.
      collector: the :class:`Collector` sink (None with ``collect=False``).
      result: the :class:`~tracekit.pipeline.PipelineResult` once finished.
      counters: the kernel's counters (lost records, full maps) read when the pipeline
        had drained, before the session closed; None until then.
      final_losses: :meth:`losses` when the pipeline had drained; None until then.
      sink_losses: the :meth:`losses` the sinks wrote at their end (the first sink to
        end asked); None until then, or when no sink writes them.
      returncode: the command's exit code (-N when signal N killed it) once it ended;
        None for pid/tid/system-wide targets, and for a command still running when the
        trace ended (it did not end within ``react_s`` of a signal, or a second signal
        came): it goes on untraced.
      interrupted_by: the signal number given to the first :meth:`interrupt`, else None.
      started_at, ended_at: trio clock seconds (``ended_at`` None while running).
    """

    def __init__(self, opts: SessionOptions, stages: Sequence[Any] = (),
                 sinks: Sequence[Any] = (), *, keep_events: int = 10_000,
                 timeout_s: float | None = None, collect: bool = True,
                 while_tracing: Sequence[TraceTask] = (), recorder: Any = None,
                 grace_s: float = 2.0, react_s: float = 2.0, stall_s: float = 10.0) -> None:
        opts.validate()
        self.recorder = recorder
        self.opts = opts
        self.stages = list(stages)
        self.sinks = list(sinks)
        self.timeout_s = timeout_s
        self.grace_s = grace_s
        self.react_s = react_s
        self.stall_s = stall_s
        self.collector = Collector(keep_events) if collect else None
        self.while_tracing = list(while_tracing)
        self.session: Session | None = None
        self.source: RingBufferSource | None = None
        self.pipeline: Pipeline | None = None
        self.result: PipelineResult | None = None
        self.counters: Counters | None = None
        self.final_losses: Losses | None = None
        self.sink_losses: Losses | None = None
        self.returncode: int | None = None
        self.interrupted_by: int | None = None
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self._startup_scope = trio.CancelScope()
        self._stop_requested = False
        self._nursery: trio.Nursery | None = None
        self._terminate = True
        self._ending = False            # the final drain was asked for

    # -- reading ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Started and not yet finished."""
        return self.started_at is not None and self.ended_at is None

    def summary(self, group_by: GroupBy = "thread") -> Summary:
        """The statistics of every syscall that reached the collector so far.

        Raises:
          RuntimeError: the trace was built with ``collect=False``.
        """
        return self._collector().summarizer.summary(group_by)

    def last_events(self, n: int | None = None) -> list[Event]:
        """The last ``n`` events (all kept ones when None), oldest first.

        Raises:
          RuntimeError: the trace was built with ``collect=False``.
        """
        kept = list(self._collector().recent)
        return kept if n is None else kept[max(0, len(kept) - n):]

    def losses(self) -> Losses:
        """Everything lost or skipped so far (:class:`~tracekit.Losses`): ring-buffer
        records by kind, tasks not traced, full maps, undecodable records, events each
        stage dropped. While the session is open (a sink's end, the pipeline's), else
        :attr:`final_losses`.

        Raises:
          RuntimeError: the trace has not started tracing.
        """
        if self.final_losses is not None:
            return self.final_losses
        if self.source is None or self.pipeline is None:
            raise RuntimeError("the trace has not started tracing: nothing to count yet")
        stats = self.pipeline.stats
        repaired = sum(st.counters.get("repaired_pids_full", 0) for st in stats.values())
        losses = self.source.losses({name: st.dropped for name, st in stats.items()},
                                    repaired_pids_full=repaired)
        if self.result is not None and self.result.aborted:
            # what was on its way to the outputs when a second signal ended it at once
            losses = msgspec.structs.replace(losses,
                                             unwritten=self.pipeline.undelivered())
        return losses

    def _losses_for_sinks(self) -> Losses:
        """:meth:`losses` as the first sink to end asked for them: every sink writes the
        same figures, and a recording keeps them for its replay."""
        if self.sink_losses is None:
            self.sink_losses = self.losses()
        return self.sink_losses

    def _collector(self) -> Collector:
        if self.collector is None:
            raise RuntimeError("this trace keeps no events (built with collect=False)")
        return self.collector

    def stats(self) -> dict[str, Any]:
        """Live figures: ``elapsed_s`` (trio clock), ``events`` (decoded by the source),
        ``lost`` (records), ``tasks`` (threads in the pids map now, None when not
        running or system-wide), ``running``."""
        tasks = None
        s = self.session
        if self.running and s is not None and s.obj is not None and not self.opts.system_wide:
            tasks = len(s.traced_tids())
        if self.started_at is None:
            elapsed = 0.0
        else:
            end = self.ended_at if self.ended_at is not None else trio.current_time()
            elapsed = end - self.started_at
        return {"elapsed_s": elapsed,
                "events": self.source.records if self.source else 0,
                "lost": self.source.lost if self.source else 0,
                "tasks": tasks, "running": self.running}

    # -- control ------------------------------------------------------------------------

    def stop(self, *, terminate: bool = True) -> None:
        """End gracefully: the source drains what the kernel wrote and stops (idempotent;
        from a task of the same trio run). Before start-up has finished, the trace ends
        right after it.

        Args:
          terminate: the workload of a command target still running gets SIGTERM, then
            SIGKILL ``grace_s`` later, as at the time limit (the command's returncode is
            then -15 or -9); with False the trace goes on draining until the command exits
            by itself, which :meth:`run` waits for.
        """
        self._stop_requested = True
        self._terminate = terminate
        s, source, nursery = self.session, self.source, self._nursery
        if source is None or nursery is None:
            return  # run() replays the request once the trace is live
        if self.ended_at is not None:
            return
        if terminate and s is not None and s.command is not None and s.command.returncode is None:
            # SIGTERM, then the final drain once the command is reaped: its last records
            # (the interrupted call, its exit) would race a drain started now
            nursery.start_soon(self._end_workload_then_stop)
        else:
            self._end()

    def forward(self, signum: int, *, group: bool = False) -> None:
        """Send ``signum`` to the command, and SIGCONT after it when the command is stopped
        (a stopped process acts on no other signal), as strace does when it ends.

        Safe to call from any thread (a signal handler's): it only sends signals, so it
        works even while a stage holds the trio loop. Nothing happens without a command,
        or once it has ended.

        Args:
          group: send to the command's process group instead, as a terminal would have
            (the command runs in a group of its own, so the terminal's signal missed it).
        """
        s = self.session
        cmd = s.command if s is not None else None
        if cmd is None or cmd.returncode is not None:
            return
        try:
            pgid = os.getpgid(cmd.pid)
            send = (lambda sig: os.killpg(pgid, sig)) if group else cmd.send_signal
            send(signum)
            if signum not in _NO_CONT and _stopped(cmd.pid):
                send(signal.SIGCONT)
        except (ProcessLookupError, OSError):
            pass        # it exited meanwhile (or the session closed its pidfd): nothing to do

    def interrupt(self, signum: int, *, forward: bool = True) -> None:
        """A signal for the trace (from a task of its trio run).

        The first ends the trace gracefully: during start-up it cancels the start-up (and
        :meth:`run` returns None); with a command still running, tracing goes on for up to
        ``react_s`` while the command reacts to the signal (it usually exits), then the
        source makes its final drain; other targets drain at once. Any later call aborts:
        batches in flight are dropped, the sinks end with what reached them.

        Args:
          forward: send ``signum`` on to the command (:meth:`forward`) first. False when
            the command had it already (a terminal's signal to the foreground process
            group) or the caller sent it on itself.
        """
        if forward:
            self.forward(signum)
        if self.ended_at is not None:
            return                          # over: nothing left to end
        if self.interrupted_by is None:
            self.interrupted_by = signum
            if self.pipeline is None:      # still starting: give up cleanly
                self._startup_scope.cancel()
            elif self._nursery is not None:
                self._after_interrupt(self._nursery)
            # else: run() calls _after_interrupt once its nursery is open
        elif self.pipeline is not None:
            self.pipeline.abort()
        else:
            self._startup_scope.cancel()

    def _after_interrupt(self, nursery: trio.Nursery) -> None:
        s = self.session
        cmd = s.command if s is not None else None
        if cmd is not None and cmd.returncode is None:
            nursery.start_soon(self._end_after_reaction, cmd)
        else:
            self._end()

    async def _end_after_reaction(self, cmd: Any) -> None:
        """Trace on while the command reacts to the signal (bounded by ``react_s``): its
        last calls and its exit are part of the trace; one that goes on (it handles the
        signal) is left running, untraced, when the trace ends."""
        with trio.move_on_after(self.react_s):
            await cmd.wait()
        self._end()

    def _end(self) -> None:
        """The final drain: stop the source; from now on a drain that makes no progress
        for ``stall_s`` ends with a warning (a stage stopped reading)."""
        self._ending = True
        if self.source is not None:
            self.source.request_stop()
        if self.pipeline is not None:
            self.pipeline.watch_drain(self.stall_s)

    async def _end_with_command(self, session: Session, source: RingBufferSource) -> None:
        assert session.command is not None
        await session.command.wait()
        # strace -f: on while the processes the command started (and left) live
        while self.opts.wait_for_children and session.targets_alive():
            await trio.sleep(0.05)
        self._end()

    async def _reclaim_summary(self, session: Session) -> None:
        """While the trace runs, free the in-kernel summary's slots of exited threads every
        RECLAIM_INTERVAL_S (tracekit/session/kernel_summary.py): without it short-lived
        processes fill the array and later calls are only counted as summary_full. A
        kernel that cannot (a map command fails) keeps the fixed array: warned once,
        never fatal (the summary_full counter says what was not counted)."""
        from tracekit.session.kernel_summary import RECLAIM_INTERVAL_S

        reader = session.kernel_summary()
        while True:
            await trio.sleep(RECLAIM_INTERVAL_S)
            try:
                reader.reclaim()
            except MapError as e:
                log.warning("in-kernel summary: cannot free the slots of exited threads "
                            "(%s); a summary of many threads may be counted as "
                            "summary_full", e)
                return

    async def _stop_after(self, seconds: float) -> None:
        """The time limit: end the trace after ``seconds``; a workload still running gets
        SIGTERM (as timeout(1) does), so ``tracekit run``'s exit status is then 128+15."""
        await trio.sleep(seconds)
        await self._end_workload_then_stop()

    async def _end_workload_then_stop(self) -> None:
        """End the workload (SIGTERM, then SIGKILL to what is left ``grace_s`` later, as
        ``timeout -k`` does), then the final drain.

        The command's last records (the call SIGTERM interrupted, its exit) reach the ring
        buffer before it can be reaped, so the final drain comes after that: stopping
        first would race them. The trace never waits for ever on a workload that will
        not end.
        """
        assert self.session is not None and self.source is not None
        cmd = self.session.command
        if cmd is not None and cmd.returncode is None:
            self._signal_workload(signal.SIGTERM)
            with trio.move_on_after(self.grace_s):
                await cmd.wait()
                while self._workload_left():
                    await trio.sleep(0.05)
            if cmd.returncode is None or self._workload_left():
                self._signal_workload(signal.SIGKILL)
                await cmd.wait()
        self._end()

    def _workload_pids(self) -> set[int]:
        """The processes of the workload now (tgids), each checked against its start
        time in the pids map, so a reused pid is never signalled (and never ours)."""
        s = self.session
        if s is None or s.obj is None or s.command is None:
            return set()
        return s.traced_processes()

    def _workload_left(self) -> bool:
        s = self.session
        cmd = s.command if s is not None else None
        if cmd is None:
            return False
        if cmd.pgid == cmd.pid and cmd.pgid != os.getpgrp():
            try:
                os.killpg(cmd.pgid, 0)
                return True
            except (ProcessLookupError, PermissionError):
                pass
        return bool(self._workload_pids())

    def _signal_workload(self, sig: int) -> None:
        """``sig`` to the command, its process group when it has one of its own, and every
        process traced because of it (children that left the group too)."""
        s = self.session
        cmd = s.command if s is not None else None
        if cmd is None:
            return
        cmd.signal_group(sig)
        for pid in self._workload_pids() - {cmd.pid}:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if sig != signal.SIGKILL:       # a stopped process acts on nothing but SIGKILL
            cmd.signal_group(signal.SIGCONT)

    # -- running ------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> PipelineResult | None:
        """Start the session, trace until the end, close everything.

        Calls ``task_status.started()`` once the programs are attached (and a command
        released), so ``await nursery.start(trace.run)`` returns when tracing has begun.

        Returns:
          The pipeline's result (per-stage stats, how it ended); None when
          :meth:`interrupt` cancelled the start-up.

        Raises:
          TracekitError: start-up failed (TargetError for a command not found, BpfError ...)
            or a stage/sink failed (the PipelineError of :meth:`Pipeline.run
            <tracekit.pipeline.Pipeline.run>`, not wrapped in an exception group).
        """
        if self.started_at is not None:
            raise RuntimeError("a LiveTrace runs once; build a new one")
        self.started_at = trio.current_time()
        if self.opts.command and self.timeout_s is not None and \
                math.isfinite(self.timeout_s) and self.opts.command_own_group is None:
            # timeout(1): the workload in a group of its own, unless that would take the
            # terminal from it (we are in the foreground: timeout --foreground)
            self.opts.command_own_group = not in_terminal_foreground()
        session = Session(self.opts)
        self.session = session

        def before_release() -> None:
            # the ring buffer is read from here on, before the command runs
            if self.recorder is not None:
                self.recorder.attached(session)
            self.source = RingBufferSource(session, stop_when_targets_gone=True,
                                           tap=self.recorder)
            self.source.start_drainer()

        try:
            with self._startup_scope:
                await session.start(before_release)
            if self._startup_scope.cancelled_caught or self.interrupted_by is not None:
                # A signal came while starting (its cancel may land after start-up ended):
                # the command, if started, has had it forwarded; stop here.
                task_status.started()
                return None
            source = self.source
            assert source is not None
            sinks = [*([self.collector] if self.collector is not None else []), *self.sinks]
            # the pid upkeep a target needs, before the caller's stages (pipeline/upkeep.py)
            stages = [*default_upkeep_stages(self.opts.target(), self.stages), *self.stages]
            pipeline = Pipeline(source, stages, sinks, session=session)
            self.pipeline = pipeline
            for sink in sinks:          # a sink that writes the losses at its end
                if getattr(sink, "losses_from", False) is None:
                    sink.losses_from = self._losses_for_sinks
            try:
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    if self.interrupted_by is not None:
                        self._after_interrupt(nursery)
                    elif self._stop_requested:
                        self.stop(terminate=self._terminate)
                    if session.command is not None:
                        nursery.start_soon(self._end_with_command, session, source)
                    if self.timeout_s is not None and math.isfinite(self.timeout_s):
                        nursery.start_soon(self._stop_after, self.timeout_s)
                    if self.opts.summary:
                        nursery.start_soon(self._reclaim_summary, session)
                    result = self.result = await self._run_pipeline(pipeline, task_status)
                    self.counters = session.counters()
                    self.final_losses = self.losses()
                    nursery.cancel_scope.cancel()
            except BaseExceptionGroup as group:
                _raise_single(group)
            finally:
                self._nursery = None
            cmd = session.command
            if cmd is not None and result.downstream_closed and self._reader_left():
                # tracekit ends of SIGPIPE (141): as strace, whose cleanup on a fatal
                # signal sends it to the command it started, the command gets it too
                # rather than run on untraced (a command that ignores it does)
                self.forward(signal.SIGPIPE)
            if cmd is not None and not result.downstream_closed:
                if self.interrupted_by is None and not result.aborted:
                    self.returncode = await cmd.wait()
                else:
                    # after a signal, a command that did not end is left running: wait
                    # only for one that is ending now (e.g. on the second signal)
                    with trio.move_on_after(0.2):
                        self.returncode = await cmd.wait()
        except BaseException:
            await self._kill_command(session)
            raise
        finally:
            self.ended_at = trio.current_time()
            if self.source is not None:
                self.source.stop_drainer()     # the ring is closed with the session
            if self.recorder is not None:
                self._end_recording(session)
            session.close()
        return result

    def _reader_left(self) -> bool:
        """Whether a sink ended because the reader of its output went away (``| head``)."""
        return any(getattr(sink, "closed_by_reader", False) for sink in self.sinks)

    async def _kill_command(self, session: Session) -> None:
        """Tracing failed (a sink could not write: ENOSPC; a stage raised): the command
        tracekit started, and what it started, get SIGKILL, as strace's fatal-error exit
        kills the command it started, rather than run on untraced after tracekit is gone;
        waited for up to 1 s, shielded (the failure may be a cancellation). A ``-p``
        target is not ours: left running, as strace detaches from it."""
        cmd = session.command
        if cmd is None or cmd.returncode is not None:
            return
        # what the command started outside what was traced (no -f: its children are
        # untraced and share tracekit's process group): found in /proc before the kill,
        # which reparents them
        from tracekit.kernel.procfs import ProcFS

        untraced = ProcFS().descendants(cmd.pid)
        self._signal_workload(signal.SIGKILL)
        for pid in untraced:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        with trio.CancelScope(shield=True), trio.move_on_after(1.0):
            self.returncode = await cmd.wait()

    def _end_recording(self, session: Session) -> None:
        """The recording's last frame: the counters, how the trace ended."""
        import dataclasses
        import time

        from tracekit.session.recording import End

        counters = self.counters
        if counters is None and session.obj is not None:
            try:
                counters = session.counters()
            except MapError:
                # the maps never loaded (no CAP_BPF): the error that ends the run says
                # why, and must not be replaced by this one's EBADF
                counters = None
        stats = self.result.stats.values() if self.result is not None else ()
        self.recorder.close(End(
            ts_ns=time.monotonic_ns(),
            records=self.source.records if self.source is not None else 0,
            lost=self.source.lost if self.source is not None else 0,
            counters=dataclasses.asdict(counters) if counters is not None else {},
            not_added=session.not_added,
            repaired=sum(st.counters.get("repaired_pids_full", 0) for st in stats),
            returncode=self.returncode,
            completed=self.result is not None and not self.result.aborted,
            losses=self.sink_losses or self.final_losses))

    async def _run_pipeline(self, pipeline: Pipeline,
                            task_status: trio.TaskStatus[None]) -> PipelineResult:
        if not self.while_tracing:
            return await pipeline.run(task_status=task_status)
        async with trio.open_nursery() as tasks:
            result = await pipeline.run(task_status=_ThenStart(task_status, tasks, self))
            tasks.cancel_scope.cancel()
        return result


class _ThenStart:
    """A ``task_status`` that, once tracing has begun, starts the ``while_tracing`` tasks."""

    def __init__(self, inner: trio.TaskStatus[None], nursery: trio.Nursery,
                 trace: LiveTrace) -> None:
        self._inner, self._nursery, self._trace = inner, nursery, trace

    def started(self, value: None = None) -> None:
        for task in self._trace.while_tracing:
            self._nursery.start_soon(task, self._trace)
        self._inner.started(value)


#: signals after which a stopped command is left stopped: stops, and those that need no
#: SIGCONT to act
_NO_CONT = frozenset({signal.SIGCONT, signal.SIGKILL, signal.SIGSTOP, signal.SIGTSTP,
                      signal.SIGTTIN, signal.SIGTTOU})


def _stopped(pid: int) -> bool:
    """Whether ``pid`` is in a stop now (``T``, /proc/<pid>/stat field 3; proc(5))."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2:][:1] == b"T"


def _raise_single(group: BaseExceptionGroup[BaseException]) -> None:
    """Re-raise the one Exception a nursery wrapped (a PipelineError keeps its type for
    the caller); anything else (several errors, Cancelled, KeyboardInterrupt) as is."""
    errors = [e for e in leaves(group) if not isinstance(e, trio.Cancelled)]
    if len(errors) == 1 and isinstance(errors[0], Exception):
        raise errors[0]
    raise group
