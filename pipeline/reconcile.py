"""Reconcile the pids map with what really happened.

Three views of the traced tasks, compared as the trace runs::

    BPF lifecycle records      proc connector (every task)     pids map (the filter)
    Fork/Exec/Exit in batches  fork/exec/exit, ~us after        u32 tid -> tk_pid_info
            \\                         |                           /
             +-------> TaskTable (tid -> tgid, comm, parent, start time) <----+
                                       |
                               repairs, each counted:
      repaired_pids_full     a child BPF could not add (map full, E2BIG) is added
                             once room frees up (an Exit record or connector exit)
      repaired_missing_child the connector saw a traced thread fork a process that is
                             not in the map ``settle_s`` later (its Fork record was lost
                             or never made); it is added
      repaired_stale_exit    the connector saw a task exit whose key is still in the map
                             (inserted by userspace after it died), or a fork by a task
                             whose tid is a key left by another task that exited (its
                             start time differs: pid reuse; counted ``stale_parent``):
                             the key is deleted, and the fork's child is not followed

A child is identified by ``(tid, start time)`` from ``/proc/<tid>/stat`` when it is
first seen missing, so a reused tid is never added in its place. An added child brings
its threads and descendants from /proc (they were created while it was untraced).

When the proc connector cannot be opened (not root in the initial namespaces, no
CONFIG_PROC_EVENTS) the stage says so once (a warning) and goes on with BPF records
alone. Limits: for a new thread (CLONE_THREAD) the connector names the group's parent,
not the creating thread, so connector-based repair covers processes only; a process
made with CLONE_PARENT by an untraced thread whose parent is traced would be added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec
import trio

from tracekit._errors import TracekitError
from tracekit._events import Batch, Exec, Exit, Fork
from tracekit.kernel.procfs import ticks_to_ns
from tracekit.pipeline._stage import (
    EventReceiver,
    EventSender,
    IntervalS,
    StageConfigBase,
    StageContext,
)
from tracekit.pipeline.evict import stale_reason
from tracekit.session.pids import PidInfo, PidUpkeep, same_task
from tracekit.session.tasks import TaskInfo, TaskTable

if TYPE_CHECKING:
    from tracekit.kernel.connector import ProcConnector, ProcEvent

__all__ = ["Reconcile", "ReconcileConfig", "from_config"]


class ReconcileConfig(StageConfigBase, tag="reconcile"):
    """Keep the pids map true from fork/exec/exit records and the proc connector."""

    interval_s: IntervalS = 0.1         # how often the map is compared with the task view
    settle_s: Annotated[float, msgspec.Meta(ge=0, le=60)] = 0.05  # grace before a repair
    connector: bool = True               # subscribe to the kernel's proc connector


class Reconcile:
    """The ``reconcile`` stage; forwards batches unchanged.

    Args:
      cfg: the stage config (no options yet).
      upkeep: the pids map, /proc and target to act on; default ``ctx.upkeep``.
      interval_s: period of the retry/check tick (float seconds).
      settle_s: how long after a connector fork message the child must be in the map
        (the connector speaks before the fork tracepoint runs).
      use_connector: False to reconcile from BPF records alone.

    Attributes:
      tasks: the :class:`~tracekit.session.tasks.TaskTable` of traced tasks.
      pending: children that did not fit: ``{tid: (tgid, start_time_ticks)}``.
      connector_available: None before run, then whether the connector opened.
    """

    name = "reconcile"

    def __init__(self, cfg: ReconcileConfig | None = None, *, upkeep: PidUpkeep | None = None,
                 interval_s: float = 0.1, settle_s: float = 0.05,
                 use_connector: bool = True) -> None:
        self.cfg = cfg or ReconcileConfig()
        self.upkeep = upkeep
        self.interval_s = interval_s
        self.settle_s = settle_s
        self.use_connector = use_connector
        self.tasks = TaskTable()
        self.pending: dict[int, tuple[int, int]] = {}
        self.connector_available: bool | None = None
        self._expect: list[tuple[float, ProcEvent]] = []
        self._pids_full_seen = 0    # TK_CNT_PIDS_FULL when we last looked (since load)
        self._wake = trio.Event()

    # -- the repairs ----------------------------------------------------------------------

    def _seed(self, upkeep: PidUpkeep) -> None:
        for tid, (start_ns, tgid, _) in upkeep.pids.entries().items():
            st = upkeep.procfs.stat(tid)
            self.tasks.add(TaskInfo(tid=tid, tgid=tgid, comm=st.comm if st else "",
                                    start_time_ns=start_ns))

    def _miss(self, ctx: StageContext, upkeep: PidUpkeep, tid: int, tgid: int) -> None:
        """``tid`` should be traced and is not in the map: remember it with its start time."""
        if tid in self.pending:
            return
        ticks = upkeep.procfs.live_start_ticks(tid)
        if ticks is None:
            ctx.stats.count("missing_gone")
            return
        self.pending[tid] = (tgid, ticks)
        ctx.stats.count("missing")

    def _add_tree(self, upkeep: PidUpkeep, tid: int, tgid: int) -> None:
        """The threads and descendants of a process added late (created while untraced)."""
        procfs = upkeep.procfs
        for t in procfs.descendants(tgid) if tid == tgid else ():
            if t == tid:
                continue
            ticks = procfs.live_start_ticks(t)
            if ticks is None:
                continue
            owner = procfs.tgid_of(t)
            if owner is not None:
                upkeep.pids.add(t, PidInfo(ticks_to_ns(ticks), owner), only_new=True,
                                count_full=False)

    def retry(self, ctx: StageContext, upkeep: PidUpkeep) -> None:
        """Insert the pending children that are still the same tasks, while room lasts."""
        pids = upkeep.pids
        for tid, (tgid, ticks) in list(self.pending.items()):
            if upkeep.procfs.live_start_ticks(tid) != ticks:     # gone, or another task
                del self.pending[tid]
                ctx.stats.count("missing_gone")
                continue
            if pids.add(tid, PidInfo(ticks_to_ns(ticks), tgid), only_new=True,
                        count_full=False):
                del self.pending[tid]
                ctx.stats.count("repaired_pids_full")
                self._add_tree(upkeep, tid, tgid)
                continue
            if tid in pids:
                del self.pending[tid]          # BPF or someone else added it meanwhile
                continue
            return                              # still full: try again when room frees

    def apply(self, ctx: StageContext, upkeep: PidUpkeep, batch: Batch) -> None:
        """Update the task table from the lifecycle records of a batch; note children BPF
        could not add (their Fork record is there, their key is not)."""
        freed = False
        follow = upkeep.target.follow_forks
        pids = upkeep.pids
        absent: list[Fork] = []
        for ev in batch:
            if isinstance(ev, Fork):
                parent = self.tasks.get(ev.parent_tid)
                self.tasks.add(TaskInfo(tid=ev.child_tid, tgid=ev.child_tgid,
                                        comm=parent.comm if parent else "",
                                        parent_tid=ev.parent_tid))
                if follow and ev.child_tid not in pids:
                    absent.append(ev)
            elif isinstance(ev, Exec):
                self.tasks.exec(ev.tid, ev.old_tid, ev.comm)
            elif isinstance(ev, Exit):
                self.tasks.remove(ev.tid)
                self.pending.pop(ev.tid, None)
                freed = True
        if absent:
            # A child that is not in the map either did not fit (BPF counted
            # TK_CNT_PIDS_FULL) or has exited already (BPF deleted it). Unless the counter
            # moved, every absent child is the second kind: nothing to repair, and no
            # /proc read that could mistake a reused tid for the child.
            full = upkeep.pids_full()
            if full != self._pids_full_seen:
                self._pids_full_seen = full
                for ev in absent:
                    self._miss(ctx, upkeep, ev.child_tid, ev.child_tgid)
        if self.pending and freed:
            self.retry(ctx, upkeep)

    def on_proc_event(self, ctx: StageContext, upkeep: PidUpkeep, ev: ProcEvent) -> None:
        """One connector message: exits free room and expose stale keys; process forks of
        traced threads are checked ``settle_s`` later."""
        ctx.stats.count("connector_events")
        if ev.kind == "exit":
            if self.pending.pop(ev.tid, None) is not None:
                ctx.stats.count("missing_gone")
            info = upkeep.pids.get(ev.tid)
            if info is not None and \
                    stale_reason(upkeep.procfs, ev.tid, info.start_time_ns) is not None and \
                    upkeep.pids.discard(ev.tid):
                ctx.stats.count("repaired_stale_exit")
            if self.pending:
                self.retry(ctx, upkeep)
        elif ev.kind == "fork" and ev.tid == ev.tgid and upkeep.target.follow_forks:
            parent = upkeep.pids.get(ev.parent_tid)
            if parent is None:
                return
            if not same_task(upkeep.procfs, ev.parent_tid, parent.start_time_ns):
                # the key was left by a task that exited, and its tid now names another
                # task (pid reuse): that task's children are not ours to follow
                ctx.stats.count("stale_parent")
                if upkeep.pids.discard(ev.parent_tid):
                    ctx.stats.count("repaired_stale_exit")
                return
            self._expect.append((trio.current_time() + self.settle_s, ev))
            self._wake.set()

    def check_expected(self, ctx: StageContext, upkeep: PidUpkeep) -> None:
        """Connector forks whose settle time has passed: the child must be in the map."""
        now = trio.current_time()
        due = [ev for t, ev in self._expect if t <= now]
        self._expect = [(t, ev) for t, ev in self._expect if t > now]
        pids = upkeep.pids
        for ev in due:
            if ev.tid in self.pending or ev.tid in pids:
                continue
            ticks = upkeep.procfs.live_start_ticks(ev.tid)
            if ticks is None:
                continue
            start_ns = ticks_to_ns(ticks)
            if pids.add(ev.tid, PidInfo(start_ns, ev.tgid), only_new=True, count_full=False):
                ctx.stats.count("repaired_missing_child")
                self.tasks.add(TaskInfo(tid=ev.tid, tgid=ev.tgid, parent_tid=ev.parent_tid,
                                        start_time_ns=start_ns))
                self._add_tree(upkeep, ev.tid, ev.tgid)
            elif ev.tid not in pids:
                self.pending[ev.tid] = (ev.tgid, ticks)
                ctx.stats.count("missing")

    # -- tasks ----------------------------------------------------------------------------

    async def _read_connector(self, ctx: StageContext, upkeep: PidUpkeep,
                              conn: ProcConnector) -> None:
        async with conn:
            while True:
                for ev in await conn.receive():
                    self.on_proc_event(ctx, upkeep, ev)
                if conn.overruns:
                    ctx.stats.count("connector_overruns", conn.overruns)
                    conn.overruns = 0

    async def _tick(self, ctx: StageContext, upkeep: PidUpkeep) -> None:
        while True:
            with trio.move_on_after(self.interval_s):
                await self._wake.wait()
            self._wake = trio.Event()
            if self._expect:
                await trio.sleep(max(0.0, min(t for t, _ in self._expect)
                                     - trio.current_time()))
                self.check_expected(ctx, upkeep)
            if self.pending:
                self.retry(ctx, upkeep)

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        upkeep = self.upkeep or ctx.upkeep
        if upkeep is None:
            raise TracekitError("stage 'reconcile' needs a tracing session (ctx.upkeep)")
        if upkeep.target.system_wide:
            ctx.log.info("system-wide trace: no pids map to reconcile")
            async with recv, send:
                async for batch in recv:
                    await send.send(batch)
            return
        self._seed(upkeep)
        conn: ProcConnector | None = None
        if self.use_connector:
            # here, not at the top: pyroute2 takes ~0.1 s to import, and a pipeline file
            # is read (this module's config Struct) by runs that never reconcile
            from tracekit.kernel.connector import ConnectorError, ProcConnector

            try:
                conn = await ProcConnector.open()
            except ConnectorError as e:
                ctx.log.warning("proc connector unavailable (%s); reconciling from BPF "
                                "records alone", e)
                ctx.stats.count("connector_unavailable")
        self.connector_available = conn is not None
        async with recv, send:
            if conn is not None:
                ctx.start_soon(self._read_connector, ctx, upkeep, conn,
                               name="reconcile:connector")
            ctx.start_soon(self._tick, ctx, upkeep, name="reconcile:tick")
            async for batch in recv:
                self.apply(ctx, upkeep, batch)
                await send.send(batch)


def from_config(cfg: ReconcileConfig) -> Reconcile:
    """The stage for ``[[stage]] kind = "reconcile"``."""
    return Reconcile(cfg, interval_s=cfg.interval_s, settle_s=cfg.settle_s,
                     use_connector=cfg.connector)

