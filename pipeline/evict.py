"""Evict stale pids-map entries: dead tasks and reused tids (kernel rule 5).

A task that exits before userspace inserts it leaves a key that BPF's exit program will
never delete, and the kernel reuses tids: a later, unrelated task with the same tid
would be traced. A task is named by ``(tid, start time)``: the map value's
``start_time_ns`` (``task->start_boottime`` from BPF, or /proc's tick-granular value
from userspace) against ``/proc/<tid>/stat`` field 22, compared in clock ticks.

# The walk

``BPF_MAP_GET_NEXT_KEY`` on a hash map returns the key after the given one in bucket
order; given a key that is NOT in the map it starts again from the first key
(kernel/bpf/hashtab.c, htab_map_get_next_key). So the cursor must never be a key we
deleted. It rests on the last key that was KEPT; each step asks for the key after the
cursor, decides, and either deletes that key (the cursor stays: the next call returns
what followed the deleted key) or keeps it (the cursor moves onto it)::

    bucket order:   A ─── B ─── C ─── D ─── E
    decide:        keep  dead  reused keep  dead

    cursor=None  next(None)=A  keep   -> cursor=A
    cursor=A     next(A)=B     delete -> cursor=A     map: A ─ C ─ D ─ E
    cursor=A     next(A)=C     delete -> cursor=A     map: A ─ D ─ E
    cursor=A     next(A)=D     keep   -> cursor=D
    cursor=D     next(D)=E     delete -> cursor=D     map: A ─ D
    cursor=D     next(D)=None  end: visited 5, kept 2, deleted 3 (one pass, no restart)

A restart can still happen when BPF deletes the cursor key itself (that task exited
while we walked): ``next(cursor)`` then returns the first key again. Keys already
decided in this pass are then skipped without reading /proc again (counted in
``restarts``); each restart is caused by one exit, so the walk ends.

A command target's entry flagged ``PENDING_EXEC`` with start time 0 is checked only for
being alive (its start time is not known to userspace).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio

from tracekit._errors import TracekitError
from tracekit._events import PID_INFO
from tracekit.app.config import EvictConfig
from tracekit.kernel.procfs import CLK_TCK, ProcFS
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

if TYPE_CHECKING:
    from tracekit.session.session import Session

__all__ = ["Evict", "EvictResult", "evict_stale", "from_config", "iter_evict"]

_NS_PER_TICK = 1_000_000_000 // CLK_TCK
_TID = struct.Struct("<I")


@dataclass
class EvictResult:
    """One pass of the walk.

    Attributes:
      visited: keys looked at (each once, restarts excluded).
      kept: keys kept (live task, same start time).
      dead: keys deleted because the task is gone (no /proc entry, or a zombie).
      reused: keys deleted because /proc shows another task under that tid (start time).
      restarts: times get_next_key began again from the first key (the cursor key was
        deleted by BPF during the walk).
    """

    visited: int = 0
    kept: int = 0
    dead: int = 0
    reused: int = 0
    restarts: int = 0

    @property
    def deleted(self) -> int:
        return self.dead + self.reused


def stale_reason(procfs: ProcFS, tid: int, start_time_ns: int) -> str | None:
    """Why the pids entry ``(tid, start_time_ns)`` is stale: ``"dead"``, ``"reused"``, or
    None when it names the live task /proc shows.

    Args:
      start_time_ns: the map value's start time, ns after boot (CLOCK_BOOTTIME); 0 when
        unknown (only liveness is checked then).
    """
    st = procfs.start_state(tid)
    if st is None or st[1] in ("Z", "X"):
        return "dead"
    if start_time_ns and start_time_ns // _NS_PER_TICK != st[0]:
        return "reused"
    return None


def iter_evict(pids_map: Any, procfs: ProcFS, result: EvictResult, *,
               chunk: int = 512) -> Iterator[None]:
    """The walk of the module docstring as a generator: yields after every ``chunk`` keys
    so a trio caller can checkpoint in between (the cursor rests on a kept key, so the
    map may change between steps). ``result`` is filled as it goes.

    Args:
      pids_map: a ``tracekit.bpf.object.Map`` with u32 keys and ``struct tk_pid_info``
        values (programs/syscalls.h).

    Raises:
      MapError: a map command failed other than with ENOENT.
      TracefsError: /proc unreadable other than for a vanished task.
    """
    cursor: bytes | None = None
    decided: set[bytes] = set()
    since = 0
    while True:
        key = pids_map.get_next_key(cursor)
        if key is None:
            return
        if key in decided:              # only kept keys can come back: step over
            if cursor is not None and pids_map.lookup_elem(cursor) is None:
                result.restarts += 1    # never counted twice: cursor moves on below
            cursor = key
            continue
        decided.add(key)
        result.visited += 1
        value = pids_map.lookup_elem(key)
        if value is None:               # BPF deleted it (the task exited) meanwhile
            continue
        start_time_ns, _, _ = PID_INFO.unpack(value)
        reason = stale_reason(procfs, _TID.unpack(key)[0], start_time_ns)
        if reason is None:
            result.kept += 1
            cursor = key
        else:
            pids_map.delete_elem(key)
            if reason == "dead":
                result.dead += 1
            else:
                result.reused += 1
        since += 1
        if since >= chunk:
            since = 0
            yield


def evict_stale(pids_map: Any, procfs: ProcFS) -> EvictResult:
    """One synchronous pass of :func:`iter_evict` over the whole map."""
    result = EvictResult()
    for _ in iter_evict(pids_map, procfs, result):
        pass
    return result


class Evict:
    """The ``evict`` stage: walks the pids map after attach, every ``interval_s`` and on
    :meth:`request`, and forwards batches unchanged.

    Stats counters: ``walks``, ``visited``, ``evicted_dead``, ``evicted_reused``,
    ``restarts``. ``last`` is the latest :class:`EvictResult`.

    Args:
      cfg: ``interval_s`` is the period of the walk (float seconds).
      session: the session to act on; default ``ctx.session``.
    """

    name = "evict"

    def __init__(self, cfg: EvictConfig | None = None, *, session: Session | None = None
                 ) -> None:
        self.cfg = cfg or EvictConfig()
        self.session = session
        self.last: EvictResult | None = None
        self._wake = trio.Event()

    def request(self) -> None:
        """Walk again now (on demand; safe from any trio task)."""
        self._wake.set()

    async def walk(self, ctx: StageContext, session: Session) -> EvictResult:
        """One pass, checkpointing every 512 keys; counts into ``ctx.stats``."""
        res = EvictResult()
        for _ in iter_evict(session.pids_map, session.procfs, res):
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

    async def _periodic(self, ctx: StageContext, session: Session) -> None:
        while True:
            with trio.move_on_after(self.cfg.interval_s):
                await self._wake.wait()
            self._wake = trio.Event()
            await self.walk(ctx, session)

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        session: Any = self.session or ctx.session
        if session is None:
            raise TracekitError("stage 'evict' needs a tracing session (ctx.session)")
        async with recv, send:
            await self.walk(ctx, session)            # right after attach
            ctx.start_soon(self._periodic, ctx, session, name="evict:periodic")
            async for batch in recv:
                await send.send(batch)


def from_config(cfg: EvictConfig) -> Evict:
    """The stage for ``[[stage]] kind = "evict"``."""
    return Evict(cfg)
