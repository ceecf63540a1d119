"""A live trace for library use: session + ring-buffer source + stages + sinks, with its
state readable while it runs (the notebook front end and scripts use it).

It is ``tracekit run`` without the pipeline file and the signals: the same pieces
(:class:`~tracekit.Session`, :class:`~tracekit.RingBufferSource`,
:class:`~tracekit.pipeline.Pipeline`, the runner's end-of-command watch and
``duration_s`` stop), plus one sink of its own that keeps what a reader asks for::

    Session ── RingBufferSource ── stages... ──┬── collector (Summarizer + last N events)
                                               └── your sinks ...

Ends when the command exits, when every traced process is gone, after ``duration_s``, or
on :meth:`LiveTrace.stop` (graceful: what the kernel wrote is drained through every stage).
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Sequence
from typing import Any

import trio

from tracekit._events import Event, Lost
from tracekit._summary import GroupBy, Summarizer, Summary
from tracekit.app.run import _stop_after, _watch_command, end_command_then_stop
from tracekit.pipeline._run import Pipeline, PipelineResult
from tracekit.pipeline._stage import EventReceiver, StageContext
from tracekit.pipeline.upkeep import default_upkeep_stages
from tracekit.session.session import Session, SessionOptions
from tracekit.session.source import RingBufferSource

__all__ = ["Collector", "LiveTrace"]


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


class LiveTrace:
    """One trace; :meth:`run` it in a trio nursery, read it from any task meanwhile.

    Args:
      opts: what to trace (:class:`~tracekit.SessionOptions`).
      stages: applied in order to the events before the collector and ``sinks``.
      sinks: more sinks (a :class:`~tracekit.formatters.JsonlSink` to keep a file ...).
      keep_events: how many of the latest events :meth:`last_events` can return.
      duration_s: end after this many seconds (a command still running gets SIGTERM, as
        ``tracekit run`` does); None = until the target ends or :meth:`stop`.

    Attributes:
      session: the :class:`~tracekit.Session` once started, else None.
      source: the :class:`~tracekit.RingBufferSource` once started.
      pipeline: the :class:`~tracekit.pipeline.Pipeline` once started.
      collector: the :class:`Collector` sink.
      result: the :class:`~tracekit.pipeline.PipelineResult` once finished.
      returncode: the command's exit code (-N when signal N killed it) once it ended;
        None for pid/tid/system-wide targets.
      started_at, ended_at: trio clock seconds (``ended_at`` None while running).
    """

    def __init__(self, opts: SessionOptions, stages: Sequence[Any] = (),
                 sinks: Sequence[Any] = (), *, keep_events: int = 10_000,
                 duration_s: float | None = None) -> None:
        opts.validate()
        self.opts = opts
        self.stages = list(stages)
        self.sinks = list(sinks)
        self.duration_s = duration_s
        self.collector = Collector(keep_events)
        self.session: Session | None = None
        self.source: RingBufferSource | None = None
        self.pipeline: Pipeline | None = None
        self.result: PipelineResult | None = None
        self.returncode: int | None = None
        self.started_at: float | None = None
        self.ended_at: float | None = None
        self._stop_requested = False
        self._nursery: trio.Nursery | None = None
        self._terminate = True

    # -- reading ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Started and not yet finished."""
        return self.started_at is not None and self.ended_at is None

    def summary(self, group_by: GroupBy = "thread") -> Summary:
        """The statistics of every syscall that reached the collector so far."""
        return self.collector.summarizer.summary(group_by)

    def last_events(self, n: int | None = None) -> list[Event]:
        """The last ``n`` events (all kept ones when None), oldest first."""
        kept = list(self.collector.recent)
        return kept if n is None else kept[max(0, len(kept) - n):]

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
          terminate: a command target still running gets SIGTERM, as at ``duration_s``
            (its returncode is then -15); with False the trace goes on draining until the
            command exits by itself, which :meth:`run` waits for.
        """
        self._stop_requested = True
        self._terminate = terminate
        s, source, nursery = self.session, self.source, self._nursery
        if source is None or nursery is None:
            return  # run() replays the request once the trace is live
        if terminate and s is not None and s.command is not None and s.command.returncode is None:
            # SIGTERM, then the final drain once the command is reaped: its last records
            # (the interrupted call, its exit) would race a drain started now
            nursery.start_soon(end_command_then_stop, source, s)
        else:
            source.request_stop()

    # -- running ------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> PipelineResult:
        """Start the session, trace until the end, close everything.

        Calls ``task_status.started()`` once the programs are attached (and a command
        released), so ``await nursery.start(trace.run)`` returns when tracing has begun.

        Returns:
          The pipeline's result (per-stage stats, how it ended).

        Raises:
          TracekitError: start-up failed (TargetError for a command not found, BpfError ...)
            or a stage/sink failed (PipelineError naming it).
        """
        if self.started_at is not None:
            raise RuntimeError("a LiveTrace runs once; build a new one")
        self.started_at = trio.current_time()
        session = Session(self.opts)
        self.session = session
        try:
            await session.start()
            source = RingBufferSource(session)
            stages = [*default_upkeep_stages(self.opts.target(), self.stages), *self.stages]
            pipeline = Pipeline(source, stages, [self.collector, *self.sinks],
                                session=session)
            self.source, self.pipeline = source, pipeline
            try:
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    if self._stop_requested:
                        self.stop(terminate=self._terminate)
                    if session.command is not None:
                        nursery.start_soon(_watch_command, session, source)
                    if self.duration_s is not None and math.isfinite(self.duration_s):
                        nursery.start_soon(_stop_after, self.duration_s, source, session)
                    self.result = await pipeline.run(task_status=task_status)
                    nursery.cancel_scope.cancel()
            except BaseExceptionGroup as group:
                _raise_single(group)
            if session.command is not None and not self.result.downstream_closed:
                self.returncode = await session.command.wait()
        finally:
            self.ended_at = trio.current_time()
            session.close()
        return self.result


def _raise_single(group: BaseExceptionGroup[BaseException]) -> None:
    """Re-raise the one Exception a nursery wrapped (a PipelineError keeps its type for
    the caller); anything else (several errors, Cancelled, KeyboardInterrupt) as is."""
    leaves = list(_leaves(group))
    errors = [e for e in leaves if not isinstance(e, trio.Cancelled)]
    if len(errors) == 1 and isinstance(errors[0], Exception):
        raise errors[0]
    raise group


def _leaves(group: BaseExceptionGroup[BaseException]) -> Any:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc
