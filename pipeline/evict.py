"""Evict stale pids-map entries: dead tasks and reused tids.

A task that exits before userspace inserts it leaves a key that BPF's exit program will
never delete, and the kernel reuses tids: a later, unrelated task with the same tid
would be traced. A task is named by ``(tid, start time)``: the map value's
``start_time_ns`` (``task->start_boottime`` from BPF, or /proc's tick-granular value
from userspace) against ``/proc/<tid>/stat`` field 22, compared in clock ticks.

The pass is :meth:`tracekit.session.pids.PidsMap.sweep` (the map read with batched
lookups, stale keys deleted one lookup-and-delete each, an entry BPF rewrote meanwhile put
back; :meth:`~tracekit.session.pids.PidsMap.walk`, get_next_key with the cursor resting on
a kept key, where the kernel lacks batches); this module decides which keys are stale.
A command target's entry flagged ``PENDING_EXEC`` with start time 0 is checked only for
being alive (its start time is not known to userspace).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import trio

from tracekit._errors import TracekitError
from tracekit.kernel.procfs import ProcFS
from tracekit.pipeline._stage import (
    EventReceiver,
    EventSender,
    IntervalS,
    StageConfigBase,
    StageContext,
)
from tracekit.session.pids import PidInfo, PidsMap, PidUpkeep, WalkResult, started_at

__all__ = ["Evict", "EvictConfig", "EvictResult", "evict_stale", "from_config", "iter_evict",
           "stale_reason"]


class EvictConfig(StageConfigBase, tag="evict"):
    """Drop pid-map entries of tasks that exited (kernel rule 5)."""

    interval_s: IntervalS = 1.0         # period of the map walk


@dataclass
class EvictResult(WalkResult):
    """One pass of the walk (:class:`~tracekit.session.pids.WalkResult`) and why keys
    went.

    Attributes:
      dead: keys deleted because the task is gone (no /proc entry, or a zombie).
      reused: keys deleted because /proc shows another task under that tid (start time).
    """

    dead: int = 0
    reused: int = 0


def stale_reason(procfs: ProcFS, tid: int, start_time_ns: int) -> str | None:
    """Why the pids entry ``(tid, start_time_ns)`` is stale: ``"dead"``, ``"reused"``, or
    None when it names the live task /proc shows.

    Args:
      start_time_ns: the map value's start time, ns after boot (CLOCK_BOOTTIME); 0 when
        unknown (only liveness is checked then).
    """
    ticks = procfs.live_start_ticks(tid)
    if ticks is None:
        return "dead"
    if not started_at(start_time_ns, ticks):
        return "reused"
    return None


def iter_evict(pids: PidsMap, procfs: ProcFS, result: EvictResult, *,
               chunk: int = 4096) -> Iterator[None]:
    """One pass that deletes stale entries, as a generator: yields after every ``chunk``
    keys so a trio caller can checkpoint in between. ``result`` is filled as it goes.

    The map is read in batches (:meth:`PidsMap.sweep
    <tracekit.session.pids.PidsMap.sweep>`), then judged against /proc: a tid /proc does
    not list is dead without a read of its own (the listing costs one directory read per
    process, taken when the map holds more entries than there are processes); the
    others are checked by :func:`stale_reason` (one ``stat`` read each).

    Raises:
      MapError: a map command failed other than with ENOENT.
      TracefsError: /proc unreadable other than for a vanished task.
    """
    def decide(entries: dict[int, PidInfo]) -> list[int]:
        # /proc is read now, after the whole snapshot: a task in it that still runs
        # is listed (rule 5: never evict a live task)
        listed = procfs.all_tids() if len(entries) > procfs.process_count() else None
        doomed = []
        for tid, info in entries.items():
            reason = ("dead" if listed is not None and tid not in listed
                      else stale_reason(procfs, tid, info.start_time_ns))
            if reason == "dead":
                result.dead += 1
            elif reason == "reused":
                result.reused += 1
            if reason is not None:
                doomed.append(tid)
        return doomed

    return pids.sweep(decide, result, chunk=chunk)


def evict_stale(pids: PidsMap, procfs: ProcFS) -> EvictResult:
    """One synchronous pass of :func:`iter_evict` over the whole map."""
    result = EvictResult()
    for _ in iter_evict(pids, procfs, result):
        pass
    return result


class Evict:
    """The ``evict`` stage: walks the pids map after attach, every ``interval_s`` and on
    :meth:`request`, and forwards batches unchanged.

    Stats counters: ``walks``, ``visited``, ``evicted_dead``, ``evicted_reused``,
    ``restarts``. ``last`` is the latest :class:`EvictResult`.

    Args:
      cfg: ``interval_s`` is the period of the walk (float seconds).
      upkeep: the pids map and /proc to act on; default ``ctx.upkeep``.
    """

    name = "evict"

    def __init__(self, cfg: EvictConfig | None = None, *, upkeep: PidUpkeep | None = None
                 ) -> None:
        self.cfg = cfg or EvictConfig()
        self.upkeep = upkeep
        self.last: EvictResult | None = None
        self._wake = trio.Event()

    def request(self) -> None:
        """Walk again now (on demand; safe from any trio task)."""
        self._wake.set()

    async def walk(self, ctx: StageContext, upkeep: PidUpkeep) -> EvictResult:
        """One pass, checkpointing every 4096 keys; counts into ``ctx.stats``."""
        res = EvictResult()
        for _ in iter_evict(upkeep.pids, upkeep.procfs, res):
            await trio.lowlevel.checkpoint()
        self.last = res
        st = ctx.stats
        st.count("walks")
        st.count("visited", res.visited)
        st.count("evicted_dead", res.dead)
        st.count("evicted_reused", res.reused)
        st.count("restarts", res.restarts)
        if res.deleted:
            ctx.log.info("evicted %d stale pids entries (%d dead, %d reused tids)",
                         res.deleted, res.dead, res.reused)
        return res

    async def _periodic(self, ctx: StageContext, upkeep: PidUpkeep) -> None:
        while True:
            with trio.move_on_after(self.cfg.interval_s):
                await self._wake.wait()
            self._wake = trio.Event()
            await self.walk(ctx, upkeep)

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        upkeep = self.upkeep or ctx.upkeep
        if upkeep is None:
            raise TracekitError("stage 'evict' needs a tracing session (ctx.upkeep)")
        async with recv, send:
            await self.walk(ctx, upkeep)            # right after attach
            ctx.start_soon(self._periodic, ctx, upkeep, name="evict:periodic")
            async for batch in recv:
                await send.send(batch)


def from_config(cfg: EvictConfig) -> Evict:
    """The stage for ``[[stage]] kind = "evict"``."""
    return Evict(cfg)
