"""The stage protocol: sources, stages and sinks joined by channels of event batches.

A pipeline is a chain of trio tasks::

    Source --batch--> Stage --batch--> Stage ... --batch--> tee --> Sink, Sink ...

Every arrow is a bounded memory channel carrying *batches* (``list[Event]``, never
empty, one per ring-buffer drain), never single events: every ``send``/``receive`` is
a checkpoint and per-event hand-off cannot keep up with a syscall tracer (STYLE B2).

Each task owns both ends it is given and closes them when it is done
(``async with recv, send:``), so end-of-input flows downstream in order and an early
exit flows upstream as ``trio.BrokenResourceError`` on ``send``.

A batch a stage receives may be shared with other sinks (the tee sends the same list to
each): treat it as read-only, build a new list to change it. Events are frozen Structs;
enrich with ``msgspec.structs.replace``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, TypeAlias, overload, runtime_checkable

import msgspec
import trio

from tracekit._events import Batch
from tracekit.pipeline._idle import IdleTracker
from tracekit.session.pids import PidUpkeep

# Stages see the abstract channel interface: the runner hands them thin counting
# wrappers around trio memory channels (see _run.py), which fill StageStats.
EventSender: TypeAlias = trio.abc.SendChannel[Batch]
EventReceiver: TypeAlias = trio.abc.ReceiveChannel[Batch]


@dataclass
class StageStats:
    """Counters of one source, stage or sink; the runner fills the channel counts.

    Attributes:
      batches_in: batches received (0 for a source).
      events_in: events in those batches.
      batches_out: batches sent downstream (0 for a sink).
      events_out: events in those batches.
      dropped: events the stage chose not to forward (the stage counts these itself;
        :func:`map_stage` does it for you).
      counters: free-form per-stage counters, e.g. ``{"unknown_syscall_nr": 3}``.
    """

    batches_in: int = 0
    events_in: int = 0
    batches_out: int = 0
    events_out: int = 0
    dropped: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    def count(self, key: str, n: int = 1) -> None:
        """Add ``n`` to ``counters[key]``."""
        self.counters[key] = self.counters.get(key, 0) + n


class StageContext:
    """What a source, stage or sink gets besides its channels.

    Attributes:
      name: the task's name (stats key, error notes, logger name).
      nursery: the pipeline's nursery for side tasks (a periodic map walk). Tasks in it
        are cancelled once the source, every stage and every sink have finished; an
        exception in one ends the run like a stage error.
      stats: this task's :class:`StageStats`.
      session: the tracing session when there is one; None in a pure pipeline.
      upkeep: the typed pids map view, /proc and target the pid-upkeep stages act
        through (:class:`~tracekit.session.pids.PidUpkeep`); None without a session.
      log: the ``logging.Logger`` named ``tracekit.stage.<name>``.

    Idleness (pipeline/_idle.py): a source calls :meth:`report_idle` when a read found
    nothing pending; a stage awaits :meth:`wait_upstream_idle` to learn that nothing is
    on its way to it.
    """

    __slots__ = ("name", "nursery", "stats", "session", "upkeep", "log", "_on_error", "_idle",
                 "_idle_index")

    def __init__(self, name: str, nursery: trio.Nursery, stats: StageStats,
                 session: object | None = None,
                 on_error: Callable[[str, Exception], None] | None = None, *,
                 upkeep: PidUpkeep | None = None,
                 idle: IdleTracker | None = None, idle_index: int = -1) -> None:
        self.name = name
        self.nursery = nursery
        self.stats = stats
        self.session = session
        self.upkeep = upkeep
        self.log = logging.getLogger(f"tracekit.stage.{name}")
        self._on_error = on_error
        self._idle = idle
        self._idle_index = idle_index   # the channel feeding this stage; -1: a source/sink

    def report_idle(self) -> None:
        """For a source: a read found nothing pending, so nothing is on its way now.

        Call it after every read that leaves nothing pending, also when nothing was
        read; the next batch sent takes it back. A source that never calls it gets no
        idle release downstream (the reorder stage then releases held events with the
        next batch or at the end).
        """
        if self._idle is not None:
            self._idle.report_idle()

    async def wait_upstream_idle(self) -> None:
        """For a stage: return once nothing is on its way to it, at one instant.

        That is: the source reported idle after its last batch, every channel from it
        to this stage is empty and every stage before this one waits in ``receive``
        (this stage's own task too, so call it from a side task while ``run`` waits for
        a batch). Outside a :class:`~tracekit.pipeline.Pipeline`, or from a source or
        sink, it never returns (idleness is not known there); it is cancellable.
        """
        if self._idle is None or self._idle_index < 0:
            await trio.sleep_forever()
        else:
            await self._idle.wait_idle_upto(self._idle_index)

    def start_soon(self, async_fn: Callable[..., Awaitable[object]], *args: object,
                   name: str | None = None) -> None:
        """Start a side task in :attr:`nursery`; if it raises, the error names this stage.

        Args:
          async_fn: the task, called as ``async_fn(*args)``.
          name: the task name for trio; default ``"<stage>:<fn name>"``.
        """
        label = name or f"{self.name}:{getattr(async_fn, '__name__', 'task')}"

        async def side() -> None:
            try:
                await async_fn(*args)
            except Exception as exc:
                if self._on_error is not None:
                    self._on_error(label, exc)
                raise

        self.nursery.start_soon(side, name=label)


@runtime_checkable
class Source(Protocol):
    """Produces batches. ``run`` calls ``task_status.started()`` once it is live (for the
    BPF source: after attach and the /proc rescan) and closes ``send`` when it ends.

    The runner stops a source by cancelling only the source (graceful drain): what it
    sent before the cancellation still flows through every stage and sink.
    """

    name: str

    async def run(self, ctx: StageContext, send: EventSender, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None: ...


@runtime_checkable
class Stage(Protocol):
    """Receives batches, sends batches; ``async with recv, send:`` and return at EOF."""

    name: str

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None: ...


@runtime_checkable
class Sink(Protocol):
    """Consumes batches; ``async with recv:`` and return at EOF (or early, to stop)."""

    name: str

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None: ...


# -- stage config ---------------------------------------------------------------------------

#: a period of stage work: at least 1 ms (a smaller one only spins the CPU), at most a day
IntervalS = Annotated[float, msgspec.Meta(ge=0.001, le=86_400)]


class StageConfigBase(msgspec.Struct, kw_only=True, forbid_unknown_fields=True,
                      tag_field="kind"):
    """Base of a ``[[stage]]`` table's Struct: keyword-only, unknown keys are errors, and
    the subclass's ``tag`` is its TOML ``kind`` (``class EvictConfig(StageConfigBase,
    tag="evict")``). Each built-in stage module defines its own next to the stage;
    ``tracekit.app.config`` joins them into the tagged union of ``[[stage]]``.
    """


StageFn: TypeAlias = Callable[[StageContext, EventReceiver, EventSender], Awaitable[None]]
MapFn: TypeAlias = Callable[[Batch], "Batch | None"]


class FunctionStage:
    """A :class:`Stage` made from ``async def f(ctx, recv, send)`` (see :func:`stage`)."""

    def __init__(self, fn: StageFn, name: str) -> None:
        self.fn = fn
        self.name = name

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        await self.fn(ctx, recv, send)

    def __repr__(self) -> str:
        return f"<stage {self.name!r} {self.fn!r}>"


class MapStage:
    """A :class:`Stage` applying a sync ``Batch -> Batch | None`` per batch (see
    :func:`map_stage`). ``None`` or ``[]`` drops the batch; events removed from a batch
    are counted in ``stats.dropped``.
    """

    def __init__(self, fn: MapFn, name: str) -> None:
        self.fn = fn
        self.name = name

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        fn, stats = self.fn, ctx.stats
        async with recv, send:
            async for batch in recv:
                out = fn(batch)
                n_out = len(out) if out else 0
                if n_out < len(batch):
                    stats.dropped += len(batch) - n_out
                if out:
                    await send.send(out)

    def __repr__(self) -> str:
        return f"<map_stage {self.name!r} {self.fn!r}>"


@overload
def stage(fn: StageFn, *, name: str | None = None) -> FunctionStage: ...
@overload
def stage(fn: None = None, *, name: str | None = None) -> Callable[[StageFn], FunctionStage]: ...


def stage(fn: StageFn | None = None, *, name: str | None = None) -> Any:
    """Make a :class:`Stage` from ``async def f(ctx, recv, send) -> None``.

    Use as ``@stage``, ``@stage(name="x")`` or ``stage(f)``. The stage is named
    ``name`` or ``f.__name__``. ``f`` owns its channels: ``async with recv, send:``.
    """
    def wrap(f: StageFn) -> FunctionStage:
        return FunctionStage(f, name or f.__name__)
    return wrap(fn) if fn is not None else wrap


@overload
def map_stage(fn: MapFn, *, name: str | None = None) -> MapStage: ...
@overload
def map_stage(fn: None = None, *, name: str | None = None) -> Callable[[MapFn], MapStage]: ...


def map_stage(fn: MapFn | None = None, *, name: str | None = None) -> Any:
    """Make a :class:`Stage` from a sync per-batch function ``Batch -> Batch | None``.

    The function returns the batch to forward (it may be the same list), or ``None``/``[]``
    to drop it. Use as ``@map_stage``, ``@map_stage(name="x")`` or ``map_stage(f)``.
    It runs on the trio thread: keep it short (a filter, a ``structs.replace``).
    """
    def wrap(f: MapFn) -> MapStage:
        return MapStage(f, name or f.__name__)
    return wrap(fn) if fn is not None else wrap
