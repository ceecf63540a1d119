"""The pids map as typed Python: what the pid-upkeep stages act through.

The ``pids`` BPF map is the filter of the tracer (programs/syscalls.bpf.c): a task is
traced while its tid is a key. Key and value layouts (keep in sync with
programs/syscalls.h, mirrored by ``tracekit._events``)::

    key    __u32 tid                       PID_KEY   "<I"
    value  struct tk_pid_info              PID_INFO  "<QII"
             __u64 start_time_ns           task->start_boottime (CLOCK_BOOTTIME ns); 0 unknown
             __u32 tgid
             __u32 flags                   TK_PID_PENDING_EXEC ...

:class:`PidsMap` is the only code that packs or unpacks them. The session owns the map
and hands the upkeep stages (reconcile, reenumerate, evict) a :class:`PidUpkeep` in
their stage context: the map view, /proc, the target, and the kernel's count of tasks
it could not add; never the session itself.

:func:`reenumerate` is the /proc pass of kernel rule 4: the session runs it before and
after attach, the ``reenumerate`` stage once more when it starts.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from tracekit._errors import MapError
from tracekit._events import PID_INFO, PID_KEY
from tracekit.bpf.object import Map
from tracekit.bpf.uapi import NOEXIST
from tracekit.kernel.procfs import ProcFS, ns_to_ticks, ticks_to_ns

#: errnos of a map command the kernel does not have for this map type: EINVAL, ENOTSUPP
#: (524), EOPNOTSUPP
_UNSUPPORTED = frozenset({errno.EINVAL, 524, errno.EOPNOTSUPP})

__all__ = ["PidInfo", "PidUpkeep", "PidsMap", "Reenumeration", "Target", "TaskId",
           "WalkResult", "identify", "reenumerate", "same_task"]


class TaskId(NamedTuple):
    """A task or process named across pid reuse (kernel rule 5): its id and its start.

    ``(id, start_ticks)`` is what a pid or tid given by a user means, fixed when it is
    named (:func:`identify`): once that task has exited, a new task that gets the same
    id is somebody else.
    """

    id: int             # tid, or tgid (user "pid"), init pid namespace
    start_ticks: int    # /proc/<id>/stat field 22, clock ticks after boot; 0: not running

    def alive(self, procfs: ProcFS) -> bool:
        """Whether the task named is still running (not a zombie, not replaced)."""
        return self.start_ticks != 0 and procfs.live_start_ticks(self.id) == self.start_ticks

    def replaced(self, procfs: ProcFS) -> bool:
        """Whether ``id`` names another running task now (the one named exited, or was
        not running when named, and its number was given to a new task)."""
        ticks = procfs.live_start_ticks(self.id)
        return ticks is not None and ticks != self.start_ticks


def identify(procfs: ProcFS, ids: Iterable[int]) -> tuple[TaskId, ...]:
    """The :class:`TaskId` of each id now (``start_ticks`` 0 for one that is not running).

    Raises:
      TracefsError: /proc unreadable for another reason than a task that is gone.
    """
    return tuple(TaskId(i, procfs.live_start_ticks(i) or 0) for i in ids)


def same_task(procfs: ProcFS, tid: int, start_time_ns: int, tgid: int | None = None) -> bool:
    """Whether the pids map entry ``(tid, start_time_ns)`` names the task running as
    ``tid`` now (an entry with no start time, 0, only needs a live ``tid``); with
    ``tgid``, as a thread of that process (:meth:`ProcFS.start_state`)."""
    ticks = procfs.live_start_ticks(tid, tgid)
    return ticks is not None and started_at(start_time_ns, ticks)


def started_at(start_time_ns: int, ticks: int) -> bool:
    """Whether an entry's start time (ns after boot; 0: not known, any task) is that of
    the task /proc says started at ``ticks`` (clock ticks after boot)."""
    return not start_time_ns or ns_to_ticks(start_time_ns) == ticks


class PidInfo(NamedTuple):
    """One pids map value, ``struct tk_pid_info`` (programs/syscalls.h)."""

    start_time_ns: int  # task->start_boottime, ns after boot (CLOCK_BOOTTIME); 0 = unknown
    tgid: int           # process id (user "pid") of the traced thread
    flags: int = 0      # TK_PID_* (PID_PENDING_EXEC: traced from its next execve)


@dataclass
class WalkResult:
    """One pass of :meth:`PidsMap.walk`.

    Attributes:
      visited: keys looked at (each once, restarts excluded).
      kept: keys kept (``stale`` said no).
      deleted: keys deleted (``stale`` said yes).
      restarts: times get_next_key began again from the first key (the cursor key was
        deleted by BPF during the walk).
    """

    visited: int = 0
    kept: int = 0
    deleted: int = 0
    restarts: int = 0


class PidsMap:
    """Typed view of the ``pids`` map: tids in, :class:`PidInfo` out.

    A full map is not fatal (kernel rule 6): :meth:`add` returns False and remembers the
    tid in :attr:`not_added` until a later add of it succeeds.

    Args:
      m: the loaded ``pids`` map (u32 key, ``struct tk_pid_info`` value).

    Attributes:
      map: the underlying ``tracekit.bpf.object.Map``.
      not_added: tids userspace could not insert because the map was full.
    """

    def __init__(self, m: Map) -> None:
        self.map = m
        self.not_added: set[int] = set()

    @property
    def max_entries(self) -> int:
        return self.map.max_entries

    def get(self, tid: int) -> PidInfo | None:
        """The entry of ``tid``, or None when it is not traced."""
        raw = self.map.lookup_elem(PID_KEY.pack(tid))
        return None if raw is None else PidInfo._make(PID_INFO.unpack(raw))

    def __contains__(self, tid: object) -> bool:
        return isinstance(tid, int) and self.get(tid) is not None

    def add(self, tid: int, info: PidInfo, *, only_new: bool = False,
            count_full: bool = True) -> bool:
        """Insert ``tid``.

        Args:
          info: its value; a start time from /proc is ``ticks_to_ns(ticks)`` (eviction
            compares it in clock ticks, kernel rule 5).
          only_new: BPF_NOEXIST: never overwrite an entry BPF made (it has the exact
            start time).
          count_full: when the map is full, remember the tid in :attr:`not_added`; False
            for a retry of a task the kernel already counted (TK_CNT_PIDS_FULL).

        Returns:
          True when inserted; False when the map is full (E2BIG) or, with ``only_new``,
          when the tid was already there (EEXIST).

        Raises:
          MapError: any other failure (ENOMEM is fatal, kernel rule 7).
        """
        try:
            self.map.update_elem(PID_KEY.pack(tid), PID_INFO.pack(*info),
                                 NOEXIST if only_new else 0)
        except MapError as e:
            if e.errno == errno.EEXIST and only_new:
                return False
            if e.errno == errno.E2BIG:
                if count_full:
                    self.not_added.add(tid)
                return False
            raise
        self.not_added.discard(tid)
        return True

    def discard(self, tid: int) -> bool:
        """Stop tracing ``tid``; False when it was not in the map (ENOENT)."""
        return self.map.delete_elem(PID_KEY.pack(tid))

    def tids(self) -> Iterator[int]:
        """The keys, lazily, in bucket order (a concurrent delete may restart the walk)."""
        for key in self.map.keys():
            yield PID_KEY.unpack(key)[0]

    def entries(self) -> dict[int, PidInfo]:
        """The whole map now: ``{tid: PidInfo}`` (one batched read where supported)."""
        return {PID_KEY.unpack(k)[0]: PidInfo._make(PID_INFO.unpack(v))
                for k, v in self.map.items()}

    def sweep(self, decide: Callable[[dict[int, PidInfo]], Iterable[int]],
              result: WalkResult, *, chunk: int = 4096) -> Iterator[None]:
        """Read the whole map, let ``decide`` name the stale tids, delete them; a
        generator that yields after every ``chunk`` keys read or deleted, so a trio caller
        can checkpoint in between. ``result`` is filled as it goes (no restarts: nothing
        walks with a cursor).

        The batched form of :meth:`walk` (a 65,536-entry map in a tenth of the time)::

            BPF_MAP_LOOKUP_BATCH ──> {tid: PidInfo} ── decide() ──> stale tids
               (chunk keys a call)     the snapshot     (reads /proc after the snapshot)
            BPF_MAP_LOOKUP_AND_DELETE_ELEM each stale tid ──> the value it held:
               the snapshot's: deleted ─ another (BPF gave the tid to a new task
               since the snapshot): put back, kept ─ none (BPF deleted it): neither

        ``decide`` gets the snapshot after the last key was read, so whatever it reads
        from /proc is newer than every entry it judges. Falls back to :meth:`walk` where
        the kernel has no batched lookup for hash maps (before 5.6: EINVAL) and to
        lookup-then-delete where it has no lookup-and-delete (before 5.14).

        Raises:
          MapError: a map command failed other than with ENOENT.
        """
        from tracekit.bpf import sys as _bpf

        m = self.map
        snapshot: dict[bytes, bytes] = {}
        cursor: bytes | None = None
        count = chunk
        try:
            while True:
                try:
                    keys, values, cursor = _bpf.map_lookup_batch(
                        m._require_fd(), cursor, m.key_size, m.value_size, count,
                        map_name=m.name)
                except MapError as e:
                    if e.errno == errno.ENOSPC:     # one bucket holds more than count
                        count *= 2
                        continue
                    raise
                snapshot.update(zip(keys, values, strict=True))
                if cursor is None:
                    break
                yield
        except MapError as e:
            if e.errno not in _UNSUPPORTED:
                raise
            table = {PID_KEY.unpack(k)[0]: PidInfo._make(PID_INFO.unpack(v))
                     for k, v in self.map.items()}
            doomed = set(decide(table))
            yield from self.walk(lambda tid, _: tid in doomed, result, chunk=chunk)
            return
        tids = [t for (t,) in PID_KEY.iter_unpack(b"".join(snapshot))]
        infos = dict(zip(tids, map(PidInfo._make,
                                   PID_INFO.iter_unpack(b"".join(snapshot.values()))),
                         strict=True))
        result.visited += len(infos)
        stale = [PID_KEY.pack(t) for t in decide(infos) if t in infos]
        result.kept += len(infos) - len(stale)
        for i in range(0, len(stale), chunk):
            part = stale[i:i + chunk]
            for key, old in zip(part, self._take(part), strict=True):
                if old is None:                 # BPF deleted it (the task exited)
                    continue
                if old == snapshot[key]:
                    result.deleted += 1
                    continue
                result.kept += 1                # a new task has the tid: give it back
                try:
                    m.update_elem(key, old, NOEXIST)
                except MapError as e:
                    if e.errno not in (errno.EEXIST, errno.E2BIG):
                        raise
            yield

    def _take(self, keys: list[bytes]) -> list[bytes | None]:
        """Delete ``keys``; the value each held (None: absent)."""
        from tracekit.bpf import sys as _bpf

        m = self.map
        try:
            return _bpf.map_lookup_and_delete_elems(m._require_fd(), keys, m.value_size,
                                                     map_name=m.name)
        except MapError as e:
            if e.errno not in _UNSUPPORTED:
                raise
        out: list[bytes | None] = []
        for key in keys:                        # before 5.14: look, then delete
            value = m.lookup_elem(key)
            out.append(value if value is not None and m.delete_elem(key) else None)
        return out

    def walk(self, stale: Callable[[int, PidInfo], object], result: WalkResult, *,
             chunk: int = 512) -> Iterator[None]:
        """Visit every entry once and delete those ``stale(tid, info)`` calls stale
        (truthy); a generator that yields after every ``chunk`` keys so a trio caller can
        checkpoint in between. ``result`` is filled as it goes.

        # Some facts about BPF_MAP_GET_NEXT_KEY on a hash map

        It returns the key after the given one in bucket order; given a key that is NOT
        in the map it starts again from the first key (kernel/bpf/hashtab.c,
        htab_map_get_next_key). So the cursor is never a key we deleted: it rests on the
        last key that was KEPT; each step asks for the key after the cursor, decides, and
        either deletes that key (the cursor stays: the next call returns what followed the
        deleted key) or keeps it (the cursor moves onto it)::

            bucket order:   A ─── B ─── C ─── D ─── E
            stale?:         no    yes   yes   no    yes

            cursor=None  next(None)=A  keep   -> cursor=A
            cursor=A     next(A)=B     delete -> cursor=A     map: A ─ C ─ D ─ E
            cursor=A     next(A)=C     delete -> cursor=A     map: A ─ D ─ E
            cursor=A     next(A)=D     keep   -> cursor=D
            cursor=D     next(D)=E     delete -> cursor=D     map: A ─ D
            cursor=D     next(D)=None  end: visited 5, kept 2, deleted 3 (no restart)

        A restart still happens when BPF deletes the cursor key itself (that task exited
        while we walked): ``next(cursor)`` then returns the first key again. Keys already
        decided in this pass are then stepped over without calling ``stale`` again
        (counted in ``restarts``); each restart is caused by one exit, so the walk ends.
        The map may change between steps: the cursor rests on a kept key.

        Raises:
          MapError: a map command failed other than with ENOENT.
        """
        m = self.map
        cursor: bytes | None = None
        decided: set[bytes] = set()
        since = 0
        while True:
            key = m.get_next_key(cursor)
            if key is None:
                return
            if key in decided:              # only kept keys can come back: step over
                if cursor is not None and m.lookup_elem(cursor) is None:
                    result.restarts += 1    # never counted twice: cursor moves on below
                cursor = key
                continue
            decided.add(key)
            result.visited += 1
            value = m.lookup_elem(key)
            if value is None:               # BPF deleted it (the task exited) meanwhile
                continue
            if stale(PID_KEY.unpack(key)[0], PidInfo._make(PID_INFO.unpack(value))):
                m.delete_elem(key)
                result.deleted += 1
            else:
                result.kept += 1
                cursor = key
            since += 1
            if since >= chunk:
                since = 0
                yield


@dataclass(frozen=True)
class Target:
    """What a session traces, as the upkeep stages need it.

    ``pids`` are processes (tgids; user "pid"), ``tids`` single threads, both in the init
    pid namespace; neither for a command or system-wide target. ``named`` fixes which
    tasks they are (:func:`identify`, when they were named): a pid or tid whose task
    exited names nothing any more, even once another task has its number.
    """

    pids: tuple[int, ...] = ()
    tids: tuple[int, ...] = ()
    follow_forks: bool = True       # children of traced threads are traced too
    system_wide: bool = False       # every task but tracekit's own: no pids map filter
    named: tuple[TaskId, ...] = ()  # identities of pids and tids; empty: by number only
    # child processes (tgids) of the targets' threads not traced, nor their descendants:
    # those that existed before the first /proc pass when the descendants that exist at
    # attach are not traced (strace -f -p follows forks from the attach on only)
    old_children: frozenset[int] = frozenset()

    def current(self, procfs: ProcFS, ids: Iterable[int]) -> list[int]:
        """Those of ``ids`` that do not name another task than when they were named (all
        of them, by number only, when nothing was identified). One that exited, or is
        a zombie, is kept: reading it finds it gone."""
        if not self.named:
            return list(ids)
        named = {t.id: t for t in self.named}
        return [i for i in ids if i in named and not named[i].replaced(procfs)]

    @property
    def by_id(self) -> bool:
        """A pid or tid target: userspace fills the pids map from /proc."""
        return bool(self.pids or self.tids)

    def tasks(self, procfs: ProcFS) -> Iterator[tuple[int, int | None]]:
        """The tasks the target names now, as ``(tid, tgid)``.

        ``tgid`` is None when it is not known without a read (a ``tid`` target). Process
        trees are :meth:`ProcFS.walk`: every thread and, with ``follow_forks``, every
        descendant but for ``old_children`` and theirs. A vanished target yields nothing.
        """
        groups = self.current(procfs, self.pids)
        for tid in self.current(procfs, self.tids):
            yield tid, None
            if self.follow_forks:
                groups.extend(c for c in procfs.children(tid) if c not in self.old_children)
        yield from procfs.walk(groups, follow_forks=self.follow_forks,
                               skip=self.old_children)


def _nothing_counted() -> int:
    return 0


@dataclass
class PidUpkeep:
    """What a pid-upkeep stage gets in its context (``ctx.upkeep``).

    Attributes:
      pids: the pids map.
      procfs: /proc of the traced tasks (start times, threads, children).
      target: what the session traces.
      pids_full: the kernel's count of tasks BPF could not add since load (the
        per-CPU ``TK_CNT_PIDS_FULL`` counter, summed).
    """

    pids: PidsMap
    procfs: ProcFS = field(default_factory=ProcFS)
    target: Target = field(default_factory=Target)
    pids_full: Callable[[], int] = _nothing_counted


@dataclass
class Reenumeration:
    """The result of one /proc pass.

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


def reenumerate(upkeep: PidUpkeep, *, only_new: bool = True) -> Reenumeration:
    """Insert every task of the pid/tid target that is missing from the pids map
    (kernel rule 4).

    Each task is inserted with its /proc start time; a task that vanished while we read
    it (ENOENT/ESRCH, or a zombie) is stepped over and counted as gone.

    Args:
      upkeep: the map, /proc and a ``pids`` or ``tids`` target.
      only_new: insert with BPF_NOEXIST and skip tids already in the map (after attach,
        where BPF may have added them with its own, exact start time); False before
        attach (the map is empty).

    Returns:
      What was added, did not fit, was already there or was gone.

    Raises:
      MapError: a map update failed other than E2BIG/EEXIST (ENOMEM is fatal, rule 7).
      TracefsError: /proc unreadable for another reason than a vanished task.
    """
    pids, procfs, target = upkeep.pids, upkeep.procfs, upkeep.target
    res = Reenumeration()
    live: set[int] = set()      # targets (tgids of pid targets, tids) with a live task
    for tid, tgid in target.tasks(procfs):
        if only_new and tid in pids:
            res.present += 1
            live.add(tid if tgid is None else tgid)
            continue
        ticks = procfs.live_start_ticks(tid, tgid)
        if ticks is None:
            res.gone += 1
            continue
        live.add(tid if tgid is None else tgid)
        if tgid is None:
            tgid = procfs.tgid_of(tid)
            if tgid is None:
                res.gone += 1
                continue
        if pids.add(tid, PidInfo(ticks_to_ns(ticks), tgid), only_new=only_new):
            res.added.append((tid, tgid))
        elif tid in pids.not_added:
            res.not_added.append(tid)
        else:
            res.present += 1        # EEXIST: BPF added it between lookup and insert
    res.gone_targets = [t for t in (target.pids or target.tids) if t not in live]
    return res
