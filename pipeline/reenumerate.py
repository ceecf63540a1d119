"""Re-enumerate the target from /proc once the programs are attached (kernel rule 4).

Between the first /proc read and the moment the fork tracepoint program is live, a
target may create threads and processes that no traced thread was seen creating. Once
the programs are attached every new task is followed by BPF, so one more /proc read
finds all that slipped through::

    /proc read 1 ── insert ── attach ── /proc read 2 ── insert the missing ── (traced)
                                 └── from here BPF adds every child of a traced thread

What is read (fs/proc/base.c, fs/proc/array.c):

- ``pid`` targets: ``/proc/<tgid>/task`` once per thread group (never once per thread),
  then, when following forks, ``/proc/<tid>/task/<tid>/children`` of each thread, which
  lists the child processes (tgids) that thread created; their groups are read the same
  way, to any depth, breadth first.
- ``tid`` targets: the tid itself and, when following forks, the process trees of its
  children; never its sibling threads (they are not targets).
- Only a tid that is not in the pids map yet costs a ``/proc/<tid>/stat`` read (for its
  start time, the value of the map entry). A task that vanished while we read it
  (ENOENT/ESRCH, or a zombie) is stepped over and counted as gone.

The :func:`reenumerate` function is the one implementation: :class:`tracekit.Session`
calls it before attach and after attach (always: rule 4 is not optional), and the
``reenumerate`` stage calls it again when it starts and emits a :class:`Reenumerated`
record of what it added.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tracekit._errors import TracekitError
from tracekit._events import Reenumerated as Reenumerated
from tracekit.app.config import ReenumerateConfig
from tracekit.kernel.procfs import CLK_TCK
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

if TYPE_CHECKING:
    from tracekit.session.session import Session

__all__ = ["Reenumerate", "Reenumerated", "Reenumeration", "from_config", "reenumerate",
           "target_tasks"]

_NS_PER_TICK = 1_000_000_000 // CLK_TCK


@dataclass
class Reenumeration:
    """The result of one pass.

    Attributes:
      added: ``(tid, tgid)`` inserted into the pids map, in walk order.
      not_added: tids that did not fit (E2BIG: the pids map is full).
      present: tids that were already in the map (nothing read for them but the key).
      gone: tasks that exited while we read them (ENOENT/ESRCH or zombie).
      gone_targets: target pids/tids with no live task during this pass (gone, or a
        zombie nobody has reaped yet).
    """

    added: list[tuple[int, int]] = field(default_factory=list)
    not_added: list[int] = field(default_factory=list)
    present: int = 0
    gone: int = 0
    gone_targets: list[int] = field(default_factory=list)


def target_tasks(session: Session) -> Iterator[tuple[int, int | None]]:
    """The tasks the session's pid/tid target names now, as ``(tid, tgid)``.

    ``tgid`` is None when it is not known without a read (a ``tid`` target). Each thread
    group directory is listed once; processes are walked breadth first. A vanished
    target yields nothing.
    """
    o = session.opts
    procfs = session.procfs
    seen_groups: set[int] = set()
    queue: list[int] = list(o.pids)
    for tid in o.tids:
        yield tid, None
        if o.follow_forks:
            queue.extend(procfs.children(tid))
    while queue:
        group = queue.pop(0)
        if group in seen_groups:
            continue
        seen_groups.add(group)
        tids = procfs.threads(group)
        for tid in tids:
            yield tid, group
        if o.follow_forks:
            for tid in tids:
                queue.extend(c for c in procfs.children(tid) if c not in seen_groups)


def reenumerate(session: Session, *, only_new: bool = True) -> Reenumeration:
    """Insert every task of the session's pid/tid target that is missing from the pids map.

    Args:
      session: a loaded session with a ``pids`` or ``tids`` target.
      only_new: insert with BPF_NOEXIST and skip tids already in the map (after attach,
        where BPF may have added them with its own, exact start time); False before
        attach (the map is empty).

    Returns:
      What was added, did not fit, was already there or was gone.

    Raises:
      MapError: a map update failed other than E2BIG/EEXIST (ENOMEM is fatal, rule 7).
      TracefsError: /proc unreadable for another reason than a vanished task.
    """
    if session.obj is None:
        raise TracekitError("reenumerate: the session is not loaded")
    pids = session.obj.maps["pids"]
    procfs = session.procfs
    res = Reenumeration()
    live: set[int] = set()      # targets (tgids of pid targets, tids) with a live task
    for tid, tgid in target_tasks(session):
        key = tid.to_bytes(4, "little")
        if only_new and pids.lookup_elem(key) is not None:
            res.present += 1
            live.add(tid if tgid is None else tgid)
            continue
        st = procfs.start_state(tid)
        if st is None or st[1] in ("Z", "X"):
            res.gone += 1
            continue
        live.add(tid if tgid is None else tgid)
        if tgid is None:
            tgid = procfs.tgid_of(tid)
            if tgid is None:
                res.gone += 1
                continue
        if session.add_task(tid, tgid, start_time_ns=st[0] * _NS_PER_TICK, only_new=only_new):
            res.added.append((tid, tgid))
        elif tid in session.not_added_tids:
            res.not_added.append(tid)
        else:
            res.present += 1        # EEXIST: BPF added it between lookup and insert
    o = session.opts
    res.gone_targets = [t for t in (o.pids or o.tids) if t not in live]
    return res


class Reenumerate:
    """The ``reenumerate`` stage: one more /proc pass when it starts, then pass-through.

    Emits one :class:`Reenumerated` record (before any batch it forwards) naming the tids
    it added. Stats counters: ``added``, ``not_added``, ``gone``, ``present``.

    Args:
      session: the session to act on; default ``ctx.session``.
    """

    name = "reenumerate"

    def __init__(self, cfg: ReenumerateConfig | None = None, *,
                 session: Session | None = None) -> None:
        self.cfg = cfg or ReenumerateConfig()
        self.session = session
        self.last: Reenumeration | None = None

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        session = self.session or ctx.session
        if session is None:
            raise TracekitError("stage 'reenumerate' needs a tracing session (ctx.session)")
        async with recv, send:
            res = self.last = reenumerate(session, only_new=True)  # type: ignore[arg-type]
            for key, n in (("added", len(res.added)), ("not_added", len(res.not_added)),
                           ("gone", res.gone), ("present", res.present)):
                ctx.stats.count(key, n)
            if res.not_added:
                ctx.log.warning("pids map full: %d tasks found in /proc could not be added",
                                len(res.not_added))
            await send.send([Reenumerated(  # type: ignore[list-item]
                ts_ns=time.monotonic_ns(), added=tuple(t for t, _ in res.added),
                not_added=len(res.not_added), gone=res.gone)])
            async for batch in recv:
                await send.send(batch)


def from_config(cfg: ReenumerateConfig) -> Reenumerate:
    """The stage for ``[[stage]] kind = "reenumerate"``."""
    return Reenumerate(cfg)
