"""Reconcile the pids map with what really happened (kernel rules 3, 5 and 6).

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
                             (inserted by userspace after it died): the key is deleted

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

from typing import TYPE_CHECKING, Any

import trio

from tracekit._errors import TracekitError
from tracekit._events import PID_INFO, Exec, Exit, Fork
from tracekit.app.config import ReconcileConfig
from tracekit.kernel.connector import ConnectorError, ProcConnector, ProcEvent
from tracekit.kernel.procfs import CLK_TCK
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext
from tracekit.pipeline.evict import stale_reason
from tracekit.session.tasks import TaskInfo, TaskTable

if TYPE_CHECKING:
    from tracekit.session.session import Session

__all__ = ["Reconcile", "from_config"]

_NS_PER_TICK = 1_000_000_000 // CLK_TCK


def _key(tid: int) -> bytes:
    return tid.to_bytes(4, "little")


class Reconcile:
    """The ``reconcile`` stage; forwards batches unchanged.

    Args:
      cfg: the stage config (no options yet).
      session: the session to act on; default ``ctx.session``.
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

    def __init__(self, cfg: ReconcileConfig | None = None, *, session: Session | None = None,
                 interval_s: float = 0.1, settle_s: float = 0.05,
                 use_connector: bool = True) -> None:
        self.cfg = cfg or ReconcileConfig()
        self.session = session
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

    def _seed(self, session: Session) -> None:
        for tid, (start_ns, tgid, _) in session.pid_entries().items():
            st = session.procfs.stat(tid)
            self.tasks.add(TaskInfo(tid=tid, tgid=tgid, comm=st.comm if st else "",
                                    start_time_ns=start_ns))

    def _miss(self, ctx: StageContext, session: Session, tid: int, tgid: int) -> None:
        """``tid`` should be traced and is not in the map: remember it with its start time."""
        if tid in self.pending:
            return
        st = session.procfs.start_state(tid)
        if st is None or st[1] in ("Z", "X"):
            ctx.stats.count("missing_gone")
            return
        self.pending[tid] = (tgid, st[0])
        ctx.stats.count("missing")

    def _add_tree(self, session: Session, tid: int, tgid: int) -> None:
        """The threads and descendants of a process added late (created while untraced)."""
        procfs = session.procfs
        for t in procfs.descendants(tgid) if tid == tgid else ():
            if t == tid:
                continue
            st = procfs.start_state(t)
            if st is None or st[1] in ("Z", "X"):
                continue
            owner = procfs.tgid_of(t)
            if owner is not None:
                session.add_task(t, owner, start_time_ns=st[0] * _NS_PER_TICK, only_new=True,
                                 count_full=False)

    def retry(self, ctx: StageContext, session: Session) -> None:
        """Insert the pending children that are still the same tasks, while room lasts."""
        for tid, (tgid, ticks) in list(self.pending.items()):
            st = session.procfs.start_state(tid)
            if st is None or st[1] in ("Z", "X") or st[0] != ticks:
                del self.pending[tid]
                ctx.stats.count("missing_gone")
                continue
            if session.add_task(tid, tgid, start_time_ns=ticks * _NS_PER_TICK, only_new=True,
                                count_full=False):
                del self.pending[tid]
                ctx.stats.count("repaired_pids_full")
                self._add_tree(session, tid, tgid)
                continue
            if session.pids_map.lookup_elem(_key(tid)) is not None:
                del self.pending[tid]          # BPF or someone else added it meanwhile
                continue
            return                              # still full: try again when room frees

    def apply(self, ctx: StageContext, session: Session, batch: list[Any]) -> None:
        """Update the task table from the lifecycle records of a batch; note children BPF
        could not add (their Fork record is there, their key is not)."""
        freed = False
        follow = session.opts.follow_forks
        pids = session.pids_map
        absent: list[Fork] = []
        for ev in batch:
            kind = type(ev)
            if kind is Fork:
                parent = self.tasks.get(ev.parent_tid)
                self.tasks.add(TaskInfo(tid=ev.child_tid, tgid=ev.child_tgid,
                                        comm=parent.comm if parent else "",
                                        parent_tid=ev.parent_tid))
                if follow and pids.lookup_elem(_key(ev.child_tid)) is None:
                    absent.append(ev)
            elif kind is Exec:
                self.tasks.exec(ev.tid, ev.old_tid, ev.comm)
            elif kind is Exit:
                self.tasks.remove(ev.tid)
                self.pending.pop(ev.tid, None)
                freed = True
        if absent:
            # A child that is not in the map either did not fit (BPF counted
            # TK_CNT_PIDS_FULL) or has exited already (BPF deleted it). Unless the counter
            # moved, every absent child is the second kind: nothing to repair, and no
            # /proc read that could mistake a reused tid for the child.
            full = session.counters().pids_full
            if full != self._pids_full_seen:
                self._pids_full_seen = full
                for ev in absent:
                    self._miss(ctx, session, ev.child_tid, ev.child_tgid)
        if self.pending and freed:
            self.retry(ctx, session)

    def on_proc_event(self, ctx: StageContext, session: Session, ev: ProcEvent) -> None:
        """One connector message: exits free room and expose stale keys; process forks of
        traced threads are checked ``settle_s`` later."""
        ctx.stats.count("connector_events")
        if ev.kind == "exit":
            if self.pending.pop(ev.tid, None) is not None:
                ctx.stats.count("missing_gone")
            raw = session.pids_map.lookup_elem(_key(ev.tid))
            if raw is not None:
                start_ns = PID_INFO.unpack(raw)[0]
                if stale_reason(session.procfs, ev.tid, start_ns) is not None and \
                        session.pids_map.delete_elem(_key(ev.tid)):
                    ctx.stats.count("repaired_stale_exit")
            if self.pending:
                self.retry(ctx, session)
        elif ev.kind == "fork" and ev.tid == ev.tgid and session.opts.follow_forks:
            if session.pids_map.lookup_elem(_key(ev.parent_tid)) is not None:
                self._expect.append((trio.current_time() + self.settle_s, ev))
                self._wake.set()

    def check_expected(self, ctx: StageContext, session: Session) -> None:
        """Connector forks whose settle time has passed: the child must be in the map."""
        now = trio.current_time()
        due = [ev for t, ev in self._expect if t <= now]
        self._expect = [(t, ev) for t, ev in self._expect if t > now]
        for ev in due:
            if ev.tid in self.pending or session.pids_map.lookup_elem(_key(ev.tid)):
                continue
            st = session.procfs.start_state(ev.tid)
            if st is None or st[1] in ("Z", "X"):
                continue
            if session.add_task(ev.tid, ev.tgid, start_time_ns=st[0] * _NS_PER_TICK,
                                only_new=True, count_full=False):
                ctx.stats.count("repaired_missing_child")
                self.tasks.add(TaskInfo(tid=ev.tid, tgid=ev.tgid, parent_tid=ev.parent_tid,
                                        start_time_ns=st[0] * _NS_PER_TICK))
                self._add_tree(session, ev.tid, ev.tgid)
            elif session.pids_map.lookup_elem(_key(ev.tid)) is None:
                self.pending[ev.tid] = (ev.tgid, st[0])
                ctx.stats.count("missing")

    # -- tasks ----------------------------------------------------------------------------

    async def _read_connector(self, ctx: StageContext, session: Session,
                              conn: ProcConnector) -> None:
        async with conn:
            while True:
                for ev in await conn.receive():
                    self.on_proc_event(ctx, session, ev)
                if conn.overruns:
                    ctx.stats.count("connector_overruns", conn.overruns)
                    conn.overruns = 0

    async def _tick(self, ctx: StageContext, session: Session) -> None:
        while True:
            with trio.move_on_after(self.interval_s):
                await self._wake.wait()
            self._wake = trio.Event()
            if self._expect:
                await trio.sleep(max(0.0, min(t for t, _ in self._expect)
                                     - trio.current_time()))
                self.check_expected(ctx, session)
            if self.pending:
                self.retry(ctx, session)

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        session: Any = self.session or ctx.session
        if session is None:
            raise TracekitError("stage 'reconcile' needs a tracing session (ctx.session)")
        if session.opts.system_wide:
            ctx.log.info("system-wide trace: no pids map to reconcile")
            async with recv, send:
                async for batch in recv:
                    await send.send(batch)
            return
        self._seed(session)
        conn: ProcConnector | None = None
        if self.use_connector:
            try:
                conn = await ProcConnector.open()
            except ConnectorError as e:
                ctx.log.warning("proc connector unavailable (%s); reconciling from BPF "
                                "records alone", e)
                ctx.stats.count("connector_unavailable")
        self.connector_available = conn is not None
        async with recv, send:
            if conn is not None:
                ctx.start_soon(self._read_connector, ctx, session, conn,
                               name="reconcile:connector")
            ctx.start_soon(self._tick, ctx, session, name="reconcile:tick")
            async for batch in recv:
                self.apply(ctx, session, batch)
                await send.send(batch)


def from_config(cfg: ReconcileConfig) -> Reconcile:
    """The stage for ``[[stage]] kind = "reconcile"``."""
    return Reconcile(cfg, interval_s=cfg.interval_s, settle_s=cfg.settle_s,
                     use_connector=cfg.connector)

