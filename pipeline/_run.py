"""The pipeline runner: one source, stages in order, one or more sinks, one nursery.

Wiring (every arrow a bounded ``trio`` memory channel of batches)::

    source --> stage 1 --> ... --> stage n --+--> sink 1        (one sink: no tee)
                                             +--> sink 2 ...    (tee task: each batch to each)

Nurseries::

    abort scope                      <- cancels everything: abort()'s sink grace expired
      side nursery (ctx.nursery)     <- side tasks; cancelled once the main nursery is done
        main nursery                 <- stages, tee, sinks
          source cancel scope        <- Pipeline.stop() cancels only this (graceful drain)
          a scope per stage and tee  <- Pipeline.abort() cancels these and the source's:
                                        each closes its output, so the sinks see the end
                                        of their input and finish with what reached them

Ending (the drain): once the trace is ending (:meth:`Pipeline.watch_drain`), a drain in
which no batch moves for ``stall_s`` ends with a warning that names the stage, the
sink or the tee that stopped reading (the task furthest downstream that is neither done
nor waiting for input: those upstream of it wait on it), and an abort.

Shutdown: the runner closes the source's channel when the source returns or is
cancelled; each stage's ``async for`` then ends, it closes its own ``send``, and so on
down to the sinks, so every batch the source finished sending reaches every sink.

Errors: an exception in any task cancels the main nursery, and :meth:`Pipeline.run`
raises :class:`PipelineError` naming the task (``stage 'beautify' failed: ValueError:
...``), with the original exception as ``__cause__`` (so a ``TracekitError`` raised in a
stage keeps its type and ``errno`` there). ``trio.BrokenResourceError`` on ``send``
after everything downstream has closed its end is not an error: the downstream finished
early (a sink whose reader went away), so the task stops cleanly.
"""

from __future__ import annotations

import logging
import math
import signal
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from tracekit._errors import ConfigError, PipelineError, leaves
from tracekit._events import Batch
from tracekit.pipeline._idle import IdleTracker
from tracekit.pipeline._stage import (
    EventReceiver,
    Sink,
    Source,
    Stage,
    StageContext,
    StageStats,
)
from tracekit.session.pids import PidUpkeep

__all__ = ["Pipeline", "PipelineResult", "StageExit"]


class StageExit(Exception):
    """A stage (or sink) raised ``SystemExit`` (``sys.exit(3)`` in its code) or a
    ``KeyboardInterrupt`` of its own: a failure of that stage like any other, reported
    as ``stage 'boom' failed: StageExit: it called sys.exit(3)`` with the original as
    ``__cause__``, not the end of the process (an ExceptionGroup traceback) nor a
    silent 130. A KeyboardInterrupt is the stage's own only when SIGINT cannot raise one
    now (:func:`_sigint_raises`); otherwise it is passed on as the signal it may be."""

    @classmethod
    def of(cls, exc: BaseException) -> StageExit | None:
        """The StageExit for ``exc``; None when ``exc`` is none of the above."""
        if isinstance(exc, SystemExit):
            return cls(f"it called sys.exit({exc.code!r})")
        if isinstance(exc, KeyboardInterrupt) and not _sigint_raises():
            return cls("it raised KeyboardInterrupt")
        return None


def _sigint_raises() -> bool:
    """Whether a SIGINT would raise KeyboardInterrupt in this process now: Python's
    handler, or trio's (installed by ``trio.run`` over Python's). Under the command line's
    trace SIGINT is taken on a signal thread (tracekit.app.run), so a KeyboardInterrupt
    there is a stage's own."""
    handler = signal.getsignal(signal.SIGINT)
    return handler is signal.default_int_handler or \
        str(getattr(handler, "__module__", "")).startswith("trio")

log = logging.getLogger("tracekit.pipeline")

#: after abort(), how long the sinks have to finish with what reached them
_SINK_GRACE_S = 0.5


@dataclass
class PipelineResult:
    """How a run ended.

    Attributes:
      stats: ``StageStats`` by name (source, stages, sinks).
      stopped: :meth:`Pipeline.stop` was called (graceful drain).
      aborted: :meth:`Pipeline.abort` was called, or a drain timeout expired; batches in
        flight were dropped.
      downstream_closed: the source stopped because everything downstream had finished
        early (e.g. the reader of stdout went away).
      elapsed_s: trio clock seconds from start to the end of the drain.
      stalled: the task (stage, sink or "tee") that stopped reading during the drain and
        was left behind (:meth:`Pipeline.watch_drain`), else None.
    """

    stats: dict[str, StageStats]
    stopped: bool
    aborted: bool
    downstream_closed: bool
    elapsed_s: float
    stalled: str | None = None


class _Sender(trio.abc.SendChannel[Batch]):
    """A memory send channel that counts batches/events out and drops empty batches.

    The source's sender also takes back the source's idle report on every batch."""

    __slots__ = ("_ch", "_stats", "_name", "_idle")

    def __init__(self, ch: trio.MemorySendChannel[Batch], stats: StageStats, name: str,
                 idle: IdleTracker | None = None) -> None:
        self._ch, self._stats, self._name = ch, stats, name
        self._idle = idle

    async def send(self, value: Batch) -> None:
        if not isinstance(value, list):
            raise TypeError(f"{self._name!r} sent a {type(value).__name__}: channels carry "
                            "batches (list of events)")
        if not value:                   # empty batches are dropped, but stay a checkpoint
            await trio.lowlevel.checkpoint()
            return
        if self._idle is not None:
            self._idle.source_sent()
        await self._ch.send(value)      # on Cancelled the batch was not sent (trio guarantee)
        stats = self._stats
        stats.batches_out += 1
        stats.events_out += len(value)

    @property
    def downstream_closed(self) -> bool:
        """Every receiving end is closed: the downstream finished."""
        return self._ch.statistics().open_receive_channels == 0

    def close(self) -> None:
        self._ch.close()

    async def aclose(self) -> None:
        await self._ch.aclose()


class _Receiver(trio.abc.ReceiveChannel[Batch]):
    """A memory receive channel that counts batches/events in.

    A stage's receiver wakes idle waiters as it starts to wait (pipeline/_idle.py)."""

    __slots__ = ("_ch", "_stats", "_idle", "ended")

    def __init__(self, ch: trio.MemoryReceiveChannel[Batch], stats: StageStats,
                 idle: IdleTracker | None = None) -> None:
        self._ch, self._stats = ch, stats
        self._idle = idle
        self.ended = False      # upstream's end was seen: the reader read everything

    async def receive(self) -> Batch:
        if self._idle is not None:
            self._idle.wake()
        try:
            batch = await self._ch.receive()
        except trio.EndOfChannel:
            self.ended = True
            raise
        stats = self._stats
        stats.batches_in += 1
        stats.events_in += len(batch)
        return batch

    async def __anext__(self) -> Batch:
        try:
            return await self.receive()
        except trio.EndOfChannel:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._ch.close()

    async def aclose(self) -> None:
        await self._ch.aclose()


class _StartedOnce:
    """Forwards ``started()`` to the real task status and remembers that it was called."""

    def __init__(self, inner: trio.TaskStatus[None]) -> None:
        self._inner = inner
        self.done = False

    def started(self, value: None = None) -> None:
        self.done = True
        self._inner.started(value)


class Pipeline:
    """Runs ``source -> stages... -> sinks`` in one nursery with bounded channels.

    Args:
      source: produces batches (:class:`~tracekit.pipeline.Source`).
      stages: applied in order (:class:`~tracekit.pipeline.Stage`); may be empty.
      sinks: each gets every batch (:class:`~tracekit.pipeline.Sink`); at least one.
      buffer: capacity of each channel in batches; keep it small (0-16) so backpressure
        reaches the ring buffer, which is the big buffer.
      session: handed to every task as ``ctx.session``.
      upkeep: handed to every task as ``ctx.upkeep`` (the pid-upkeep stages act through
        it); default the session's own (``session.upkeep``), None without a session.

    Raises:
      ConfigError: no sink, a negative buffer, or two tasks share a name (names key
        :attr:`stats`; pass ``name=`` to :func:`stage`/:func:`map_stage`).

    Attributes:
      stats: ``StageStats`` by name, live while running.

    A pipeline runs once. :meth:`stop` and :meth:`abort` are synchronous and idempotent;
    call them from any task of the same trio run (a signal-handling task, a notebook
    cell), or from another thread through ``trio.from_thread.run_sync``.
    """

    def __init__(self, source: Source, stages: Sequence[Stage] = (),
                 sinks: Sequence[Sink] = (), *, buffer: int = 8,
                 session: object | None = None, upkeep: PidUpkeep | None = None) -> None:
        if not sinks:
            raise ConfigError("a pipeline needs at least one sink")
        if buffer < 0:
            raise ConfigError(f"buffer must be >= 0 batches, got {buffer}")
        names = [source.name, *(s.name for s in stages), *(s.name for s in sinks)]
        seen: set[str] = set()
        for n in names:
            if n in seen or n == "tee":
                raise ConfigError(f"two pipeline tasks are named {n!r} (or it is reserved: "
                                  "'tee'); give each a unique name")
            seen.add(n)
        self.source = source
        self.stages = tuple(stages)
        self.sinks = tuple(sinks)
        self.buffer = buffer
        self.session = session
        self.upkeep = upkeep if upkeep is not None else _upkeep_of(session)
        self.stats: dict[str, StageStats] = {n: StageStats() for n in names}
        self._source_scope = trio.CancelScope()
        self._abort_scope = trio.CancelScope()
        self._failures: list[tuple[str, str, Exception]] = []
        self._side: trio.Nursery | None = None
        self._ran = False
        self._stopped = False
        self._downstream_closed = False
        self._early_sinks = 0               # sinks that returned before their input ended
        self._drain_deadline = math.inf
        self._idle = IdleTracker()
        self._aborted = False
        self._task_scopes: list[trio.CancelScope] = []    # stages and tee (abort)
        self._inputs: list[tuple[str, trio.MemoryReceiveChannel[Batch]]] = []  # in order
        self._done: set[str] = set()        # tasks that returned
        self._stall_s: float | None = None
        self._stalled: str | None = None

    # --- control -------------------------------------------------------------

    def stop(self, *, drain_timeout_s: float | None = None) -> None:
        """Stop gracefully: cancel only the source; everything it sent drains through.

        Args:
          drain_timeout_s: if the drain has not finished this many seconds later,
            :meth:`abort`. With a timeout, call it from inside the trio run (it reads
            the trio clock).
        """
        self._stopped = True
        self._source_scope.cancel()
        if drain_timeout_s is not None:
            self._drain_deadline = min(self._drain_deadline,
                                       trio.current_time() + drain_timeout_s)
            if self._side is not None:
                self._side.start_soon(self._watchdog, name="drain-timeout")

    def abort(self) -> None:
        """End now: the source and every stage are cancelled, so batches in flight are
        dropped; each sink sees the end of its input and finishes with what reached it
        (a summary is still written), or is cancelled ``_SINK_GRACE_S`` later.
        ``run`` then returns."""
        self._stopped = True
        self._aborted = True
        self._source_scope.cancel()
        for scope in self._task_scopes:
            scope.cancel()
        if self._side is not None:
            self._side.start_soon(self._cancel_all_after, _SINK_GRACE_S, name="abort-grace")
        else:
            self._abort_scope.cancel()      # not running (yet): nothing to let finish

    def undelivered(self) -> int:
        """Events the source sent that a sink never received, the most of any sink, less
        those the stages chose not to pass on (``StageStats.dropped``): what an
        :meth:`abort` left in the channels and the stages. 0 for a run that drained (a
        stage that makes events of its own can only lower the figure)."""
        sent = self.stats[self.source.name].events_out
        dropped = sum(self.stats[st.name].dropped for st in self.stages)
        return max((max(0, sent - dropped - self.stats[sk.name].events_in)
                    for sk in self.sinks), default=0)

    async def _cancel_all_after(self, seconds: float) -> None:
        await trio.sleep(seconds)
        self._abort_scope.cancel()

    async def _watchdog(self) -> None:
        await trio.sleep_until(self._drain_deadline)
        self.abort()

    def watch_drain(self, stall_s: float) -> None:
        """The trace is ending: from now on, a drain in which no batch moves for
        ``stall_s`` seconds (a stage stopped reading and never returns) ends with a
        warning naming that stage, and :meth:`abort`. Idempotent; call it from inside
        the trio run, once the pipeline runs (earlier calls are remembered)."""
        if self._stall_s is not None:
            return
        self._stall_s = stall_s
        if self._side is not None:
            self._side.start_soon(self._stall_watch, stall_s, name="drain-stall")

    def _progress(self) -> int:
        return sum(st.batches_in + st.batches_out for st in self.stats.values())

    async def _stall_watch(self, stall_s: float) -> None:
        last = self._progress()
        since = trio.current_time()
        while True:
            await trio.sleep(min(0.1, stall_s / 4))
            now = self._progress()
            if now != last:
                last, since = now, trio.current_time()
            elif trio.current_time() - since >= stall_s:
                break
        self._stalled = name = self._stalled_task()
        log.warning("stage %r stopped reading its input: the drain moved nothing for %g s; "
                    "ending without it (what it held is dropped)", name, stall_s)
        self.abort()

    def _stalled_task(self) -> str:
        """The task furthest downstream that is neither done nor parked in ``receive``
        on its input (the others wait on it); the source when every one is parked."""
        for name, ch in reversed(self._inputs):
            if name not in self._done and not ch.statistics().tasks_waiting_receive:
                return name
        return self.source.name

    # --- running -------------------------------------------------------------

    async def run(self, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> PipelineResult:
        """Run until the source ends (or :meth:`stop`) and everything has drained.

        Calls ``task_status.started()`` once the source is live, so
        ``await nursery.start(pipeline.run)`` returns when tracing has begun.

        Returns:
          A :class:`PipelineResult`.

        Raises:
          PipelineError: a task raised; its exception is ``__cause__``.
          RuntimeError: the pipeline was already run.
        """
        if self._ran:
            raise RuntimeError("a Pipeline runs once; build a new one")
        self._ran = True
        status = _StartedOnce(task_status)
        t0 = trio.current_time()
        try:
            with self._abort_scope:
                async with trio.open_nursery() as side:
                    self._side = side
                    if self._drain_deadline != math.inf:
                        side.start_soon(self._watchdog, name="drain-timeout")
                    if self._stall_s is not None:
                        side.start_soon(self._stall_watch, self._stall_s, name="drain-stall")
                    if self._aborted:
                        self.abort()
                    async with trio.open_nursery() as main:
                        send = self._wire(main, side)
                        await main.start(self._run_source, side, send, name=self.source.name)
                        status.started()
                    side.cancel_scope.cancel()      # end side tasks (periodic walks)
        except BaseExceptionGroup as group:
            raised = leaves(group)
            failures = [e for e in raised if isinstance(e, Exception)]
            if not failures or any(not isinstance(e, (Exception, trio.Cancelled))
                                   for e in raised):
                raise                       # only Cancelled, or a KeyboardInterrupt: as is
            err = self._error(failures)
            raise err from err.errors[0][1]
        finally:
            self._side = None
        if not status.done:                 # aborted before the source was live
            status.started()
        return PipelineResult(
            stats=self.stats, stopped=self._stopped,
            aborted=self._aborted or self._abort_scope.cancelled_caught,
            downstream_closed=self._downstream_closed,
            elapsed_s=trio.current_time() - t0, stalled=self._stalled)

    def _ctx(self, name: str, side: trio.Nursery, idle_index: int = -1) -> StageContext:
        return StageContext(name, side, self.stats[name], self.session,
                            on_error=lambda label, e: self._fail("side task", label, e),
                            upkeep=self.upkeep, idle=self._idle, idle_index=idle_index)

    def _wire(self, main: trio.Nursery, side: trio.Nursery) -> _Sender:
        """Create the channels, start stages, tee and sinks; return the source's sender."""
        idle = self._idle
        send0, recv = trio.open_memory_channel[Batch](self.buffer)
        for st in self.stages:
            nsend, nrecv = trio.open_memory_channel[Batch](self.buffer)
            self._inputs.append((st.name, recv))
            main.start_soon(self._run_stage, st,
                            self._ctx(st.name, side, idle.add_channel(recv)),
                            _Receiver(recv, self.stats[st.name], idle),
                            _Sender(nsend, self.stats[st.name], st.name), name=st.name)
            recv = nrecv
        if len(self.sinks) == 1:
            sink = self.sinks[0]
            self._inputs.append((sink.name, recv))
            main.start_soon(self._run_sink, sink, self._ctx(sink.name, side),
                            _Receiver(recv, self.stats[sink.name]), name=sink.name)
        else:
            outs = []
            self._inputs.append(("tee", recv))
            for sink in self.sinks:
                ssend, srecv = trio.open_memory_channel[Batch](self.buffer)
                self._inputs.append((sink.name, srecv))
                main.start_soon(self._run_sink, sink, self._ctx(sink.name, side),
                                _Receiver(srecv, self.stats[sink.name]), name=sink.name)
                outs.append(ssend)
            main.start_soon(self._tee, recv, outs, name="tee")
        return _Sender(send0, self.stats[self.source.name], self.source.name, idle)

    def _fail(self, role: str, name: str, exc: Exception) -> None:
        exc.add_note(f"stage={name}")
        self._failures.append((role, name, exc))

    async def _run_source(self, side: trio.Nursery, send: _Sender, *,
                          task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                          ) -> None:
        src = self.source
        status = _StartedOnce(task_status)
        try:
            with self._source_scope:        # stop() cancels this scope only
                try:
                    await src.run(self._ctx(src.name, side), send, task_status=status)
                except trio.BrokenResourceError:
                    if not send.downstream_closed:
                        raise
                    self._downstream_closed = True
        except Exception as exc:
            self._fail("source", src.name, exc)
            raise
        finally:
            send.close()                    # EOF flows downstream
        if not status.done:                 # stopped before live, or never called it
            status.started()

    def _task_scope(self) -> trio.CancelScope:
        """A cancel scope :meth:`abort` cancels (at once when it already ran)."""
        scope = trio.CancelScope()
        if self._aborted:
            scope.cancel()
        self._task_scopes.append(scope)
        return scope

    async def _run_stage(self, st: Stage, ctx: StageContext, recv: _Receiver,
                         send: _Sender) -> None:
        try:
            with self._task_scope() as scope:
                try:
                    await st.run(ctx, recv, send)
                except trio.BrokenResourceError:
                    if not send.downstream_closed:
                        raise               # not our outbox: a real error
            if not recv.ended and not scope.cancelled_caught:
                self._reader_ended_early()  # nothing upstream of it is read any more
        except Exception as exc:
            self._fail("stage", st.name, exc)
            raise
        except (SystemExit, KeyboardInterrupt) as exc:
            own = StageExit.of(exc)
            if own is None:
                raise
            self._fail("stage", st.name, own)
            raise own from exc
        finally:
            self._done.add(st.name)
            recv.close()                    # upstream sees BrokenResourceError: stop
            send.close()

    async def _run_sink(self, sink: Sink, ctx: StageContext, recv: _Receiver) -> None:
        try:
            await sink.run(ctx, recv)
        except Exception as exc:
            self._fail("sink", sink.name, exc)
            raise
        except (SystemExit, KeyboardInterrupt) as exc:
            own = StageExit.of(exc)
            if own is None:
                raise
            self._fail("sink", sink.name, own)
            raise own from exc
        finally:
            self._done.add(sink.name)
            recv.close()
        if not recv.ended:
            self._early_sinks += 1
            if self._early_sinks == len(self.sinks):
                self._reader_ended_early()  # every sink is done: nothing is read any more

    def _reader_ended_early(self) -> None:
        """A stage, or every sink, returned before its input ended: stop the source now.

        Without this the source would learn it only from its next send, which a quiet
        workload may never make (``| head`` then waited for the command to exit). The
        batches still in the channels are dropped; ``run`` reports ``downstream_closed``.
        """
        self._downstream_closed = True
        self._source_scope.cancel()

    async def _tee(self, recv: EventReceiver, outs: list[trio.MemorySendChannel[Batch]]) -> None:
        """Send each batch to every sink still open; end when none is."""
        live = list(outs)
        try:
            with self._task_scope():
                async with recv:
                    async for batch in recv:
                        for out in tuple(live):
                            try:
                                await out.send(batch)
                            except trio.BrokenResourceError:    # that sink finished early
                                live.remove(out)
                        if not live:
                            return
        except Exception as exc:
            self._fail("tee", "tee", exc)
            raise
        finally:
            self._done.add("tee")
            for out in outs:
                out.close()

    def _error(self, failures: list[Exception]) -> PipelineError:
        # ``failures`` are leaves; a task that raised an exception group (a nursery of its
        # own, as a sink's reader watch) failed with each of its leaves: look inside
        owners = [(r, n, leaves(e)) for r, n, e in self._failures]
        named: list[tuple[int, str, str, Exception]] = []
        for x in failures:
            at, role, name = next(((i, r, n) for i, (r, n, raised) in enumerate(owners)
                                   if any(x is y for y in raised)),
                                  (len(owners), "task", "?"))
            named.append((at, role, name, x))
        named.sort(key=lambda f: f[0])          # the first task to fail first
        _, role, name, _ = named[0]
        return PipelineError(role, name, [(n, e) for _, _, n, e in named])


def _upkeep_of(session: object | None) -> PidUpkeep | None:
    """The session's typed pids view, if it has one (a loaded Session does)."""
    upkeep = getattr(session, "upkeep", None)
    return upkeep if isinstance(upkeep, PidUpkeep) else None
