"""In-kernel summary (issue 5, kernel half): the ``summary`` maps of syscalls.bpf.o, read
into the same :class:`~tracekit._summary.Summary` the streaming mode produces.

With ``targ_summary`` set before load (:func:`enable_kernel_summary`), the tracer's
sys_exit updates per-(tid, syscall_nr, compat) statistics in a slot of the ``summary``
array (the slot found by the ``summary_index`` hash; a thread keeps its last slot at hand,
so a repeated call costs no hash lookup) instead of emitting records, and
per-(tid, syscall_nr, compat, errno) counts in ``summary_errno`` (programs/syscalls.h,
``struct tk_sum_stats``; programs/README.md). This module reads them with
``BPF_MAP_LOOKUP_BATCH`` (``Map.items()`` falls back to get_next_key; the array is read
up to its last slot in use) and converts them::

    summary_index[(tid, nr, compat)] -> slot
    summary[slot] -> tk_sum_stats ──────────┐
    summary_errno[(tid, nr, compat, errno)] ┴─> SyscallStats of Group(tgid, tid, comm)

Every statistic is the streaming mode's, from the same durations
(``bpf_ktime_get_ns()`` at exit minus at entry, ns): calls, errors per errno, timed,
total, min, max, the exact sum of squares (a 128-bit integer in the kernel, a Python int
here), the log2 histogram, noreturn, unfinished and resumed calls. For the same events
the two summaries are equal (tests/session/test_kernel_summary.py checks it on one run
that does both).

Interval reports: :meth:`KernelSummary.interval` returns what was counted since the
previous call, as the difference of two reads of the cumulative maps (the kernel never
resets an entry, so nothing counted between two reads is lost, and the intervals of a
run merge, with :meth:`Summary.merge`, to exactly the final :meth:`KernelSummary.read`).
Sums, counts, histograms and errnos of an interval are exact; ``min_ns``/``max_ns``
cannot be split from cumulative values and are the cumulative ones (so they merge to the
final ones). A read while the workload runs may see an entry between two of its fields'
updates (the kernel updates without locks); the next read includes the rest.

Reclaim: a slot holds one (tid, nr, compat) key, so short-lived processes would fill the
array (32768 slots: about 1900 ``cat`` runs) and every later call of a new key would be
counted only as ``summary_full``. :meth:`KernelSummary.reclaim` (called every
:data:`RECLAIM_INTERVAL_S` by a trace that counts in the kernel) frees the slots of
threads that exited: their counts move into totals this process keeps (shared by every
reader of the session, :meth:`KernelSummary.reader`), their index and errno keys are
deleted and the slot goes on the ``summary_free`` queue, from which the kernel takes a
new key's slot first. Reads add the kept totals to the maps', so every read stays the
exact cumulative count and intervals still merge to the final read.
"""

from __future__ import annotations

import errno as _errno
import os
import struct
import time
from collections.abc import Callable
from typing import Any

from tracekit._events import CNT_ERRNO_FULL, CNT_SUMMARY_FULL
from tracekit._summary import Group, Summary, SyscallStats
from tracekit.bpf import sys as _bpf

__all__ = ["KernelSummary", "KernelSummaryCounters", "enable_kernel_summary"]

# keep in sync with programs/syscalls.h (struct tk_sum_key, tk_sum_stats, tk_sum_errno_key)
SUM_KEY = struct.Struct("<IiI")                   # tid, nr, compat
SLOT = struct.Struct("<I")                        # summary_index value, summary key
SUM_STATS = struct.Struct("<II14Q16s64Q")         # 648 bytes
ERRNO_KEY = struct.Struct("<IiII")                # tid, nr, compat, errno
HIST_BUCKETS = 64
assert SUM_STATS.size == 648

# indices into SUM_STATS.unpack(): tgid, _pad, then the 14 u64 fields, comm, hist
_TGID, _CALLS, _ERRORS, _TIMED, _TOTAL, _MIN, _MAX, _SQ_LO, _SQ_HI = 0, 2, 3, 4, 5, 6, 7, 8, 9
_NORET, _UNFIN, _RESUMED, _FIRST, _LAST, _UPDATE, _COMM, _HIST = 10, 11, 12, 13, 14, 15, 16, 17

_Key = tuple[int, int, int]                       # (tid, syscall_nr, compat)
_Stats = tuple[Any, ...]      # SUM_STATS.unpack: the u64 fields (ints) and comm (bytes)


# (thread, syscall) pairs the summary can count: the "summary" array's slots, 648 bytes
# each, allocated at load (21 MB); calls of further pairs are counted as summary_full
SUMMARY_SLOTS = 32768
# how often a trace that counts in the kernel frees the slots of exited threads: 32768
# slots last at least this long at ~60k new (thread, syscall) pairs a second
RECLAIM_INTERVAL_S = 0.25


def enable_kernel_summary(obj: Any, *, records: bool = False) -> None:
    """Set the summary knobs of an opened, not yet loaded syscalls.bpf.o, and size its
    ``summary`` array to :data:`SUMMARY_SLOTS`.

    Args:
      obj: a :class:`~tracekit.bpf.object.BpfObject` of syscalls.bpf.o before ``load()``.
      records: also emit the syscall records (``targ_summary_records``); without it no
        syscall record reaches the ring buffer (fork, exec and exit records still do)
        and captures are turned off (``targ_capture = false``: nothing would carry them).

    Raises:
      TracekitError: the object is already loaded (``.rodata`` is frozen).
    """
    obj.globals["targ_summary"] = 1
    obj.maps["summary"].max_entries = SUMMARY_SLOTS
    obj.maps["summary_free"].max_entries = SUMMARY_SLOTS
    obj.globals["targ_summary_records"] = int(records)
    if not records:
        obj.globals["targ_capture"] = 0


class KernelSummaryCounters:
    """Calls the kernel could not count (``counters`` per-CPU array, summed over CPUs).

    Attributes:
      summary_full: calls not counted at all: the ``summary`` map was full (rule 6: the
        counts are exact only when this is 0).
      errno_full: errors counted in ``errors`` but missing from the per-errno counts:
        the ``summary_errno`` map was full.
    """

    __slots__ = ("summary_full", "errno_full")

    def __init__(self, summary_full: int = 0, errno_full: int = 0) -> None:
        self.summary_full = summary_full
        self.errno_full = errno_full

    def __repr__(self) -> str:
        return (f"KernelSummaryCounters(summary_full={self.summary_full}, "
                f"errno_full={self.errno_full})")


class _Kept:
    """What :meth:`KernelSummary.reclaim` took out of the maps, shared by the readers of
    one session: the counts of reclaimed slots and errno keys, folded per key, and the
    orphans (slots no index key names that a live thread may still write)."""

    __slots__ = ("entries", "errnos", "orphans", "reclaimed")

    def __init__(self) -> None:
        self.entries: dict[_Key, _Stats] = {}
        self.errnos: dict[_Key, dict[int, int]] = {}
        self.orphans: dict[int, _Key] = {}   # slot -> key
        self.reclaimed = 0                   # slots pushed back on summary_free


class KernelSummary:
    """Reads the in-kernel summary maps of a loaded syscalls.bpf.o.

    Args:
      obj: the loaded :class:`~tracekit.bpf.object.BpfObject` (``Session.obj``), loaded with
        :func:`enable_kernel_summary`.
      syscall_name: native number -> name (default: this machine's table;
        ``syscall_<nr>`` for numbers without a name).
      compat_syscall_name: i386 number -> name for compat calls (default: the i386 table
        on x86_64, else ``syscall_<nr>``).

    Cost: one batched lookup per 256 entries of each map per read.
    """

    def __init__(self, obj: Any, syscall_name: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None,
                 *, _kept: _Kept | None = None) -> None:
        from tracekit.kernel.syscalls import syscall_namers
        self._name, self._compat_name = syscall_namers(syscall_name, compat_syscall_name)
        self._namers = (syscall_name, compat_syscall_name)
        self._obj = obj
        self._kept = _kept if _kept is not None else _Kept()
        self._prev: dict[_Key, _Stats] = {}
        self._prev_errnos: dict[_Key, dict[int, int]] = {}
        self._prev_full = 0
        self._prev_read_ns = time.monotonic_ns()   # CLOCK_MONOTONIC, bpf_ktime_get_ns's

    def reader(self) -> KernelSummary:
        """Another reader of the same maps (its own :meth:`interval` start) that sees
        what :meth:`reclaim` of this one (or of any reader made so) keeps."""
        return KernelSummary(self._obj, *self._namers, _kept=self._kept)

    @property
    def reclaimed(self) -> int:
        """Slots freed by :meth:`reclaim` so far (all readers of the session)."""
        return self._kept.reclaimed

    @property
    def orphaned(self) -> int:
        """Slots :meth:`reclaim` found a new thread may still write (kept, read with the
        index's) and has not freed yet."""
        return len(self._kept.orphans)

    # -- raw reads ------------------------------------------------------------------------

    def _slots(self) -> dict[int, _Key]:
        """slot -> key: the index's, and the orphans'."""
        keys = {SLOT.unpack(v)[0]: SUM_KEY.unpack(k)
                for k, v in self._obj.maps["summary_index"].items()}
        keys.update(self._kept.orphans)
        return keys

    def _live(self, keys: dict[int, _Key]) -> list[tuple[int, _Key, _Stats]]:
        if not keys:
            return []
        values = self._obj.maps["summary"].items(limit=max(keys) + 1)
        return [(slot, key, SUM_STATS.unpack(values[slot][1])) for slot, key in keys.items()]

    def _entries(self) -> dict[_Key, _Stats]:
        out = dict(self._kept.entries)
        for _, key, v in self._live(self._slots()):
            _add_entry(out, key, v)
        return out

    def _errnos(self) -> dict[_Key, dict[int, int]]:
        out = {k: dict(v) for k, v in self._kept.errnos.items()}
        for k, v in self._obj.maps["summary_errno"].items():
            _add_errno(out, k, v)
        return out

    # -- reclaim --------------------------------------------------------------------------

    def reclaim(self) -> int:
        """Free the slots of threads that exited; returns how many went back on the
        ``summary_free`` queue. Reads before and after give the same counts.

        A thread is gone when ``/proc/<tid>`` is (a zombie leader keeps it until reaped,
        and is reclaimed then). Its keys are deleted from ``summary_index``, then /proc is
        looked at again: a tid that came back meanwhile belongs to a new thread that may
        have found a key in the index before the delete and cached its slot (its scratch
        entry is task storage: a new thread never inherits the dead one's cached slot, so
        only that window matters). Such slots become orphans: read with the index's at
        every read and freed once the tid is gone again. A tid still gone has no thread
        that can write its slots or errno keys (a thread leaves /proc after its last
        traced event, sched_process_exit), so their counts are read and kept here, the
        errno keys deleted with BPF_MAP_LOOKUP_AND_DELETE_ELEM and the slots pushed.
        Nothing is lost: the counts are kept before the slot is pushed (the queue holds
        every slot, so a push cannot find it full; a slot whose push failed stays unused),
        and an index key that vanished meanwhile was not ours to free.

        Cost: one batched read of the index, the errno map and the array up to its last
        slot in use, an ``access(/proc/<tid>)`` per distinct tid (twice for dead ones), and
        one command per deleted key and pushed slot.

        Raises:
          MapError: a map command failed other than with ENOENT (e.g. a kernel before 5.14
            has no lookup-and-delete for hashes).
        """
        m_index, m_errno = self._obj.maps["summary_index"], self._obj.maps["summary_errno"]
        kept = self._kept
        index = {SUM_KEY.unpack(k): SLOT.unpack(v)[0] for k, v in m_index.items()}
        tids = {key[0] for key in index} | {key[0] for key in kept.orphans.values()}
        dead = {tid for tid in tids if not _alive(tid)}
        if not dead:
            return 0
        doomed = [key for key in index if key[0] in dead]
        got = m_index.lookup_and_delete([SUM_KEY.pack(*key) for key in doomed])
        came_back = {tid for tid in dead if _alive(tid)}
        gone = dead - came_back
        free: dict[int, _Key] = {}
        for key, raw in zip(doomed, got, strict=True):
            if raw is None:
                continue                        # not in the index any more: not ours
            slot = SLOT.unpack(raw)[0]
            if key[0] in came_back:
                kept.orphans[slot] = key        # a new thread may hold it: keep reading
            else:
                free[slot] = key
        for slot, key in list(kept.orphans.items()):
            if key[0] in gone:
                del kept.orphans[slot]
                free[slot] = key
        for _, key, v in self._live(free):
            _add_entry(kept.entries, key, v)
        ekeys = [k for k, _ in m_errno.items() if ERRNO_KEY.unpack(k)[0] in gone]
        for k, raw in zip(ekeys, m_errno.lookup_and_delete(ekeys), strict=True):
            if raw is not None:
                _add_errno(kept.errnos, k, raw)
        m_free = self._obj.maps["summary_free"]
        pushed = 0
        for slot in free:
            m_free.push(SLOT.pack(slot))
            pushed += 1
        kept.reclaimed += pushed
        return pushed

    def counters(self) -> KernelSummaryCounters:
        """The kernel's full-map counters now (summed over CPUs)."""
        m = self._obj.maps["counters"]
        ncpu = _bpf.possible_cpus()
        totals = []
        for idx in (CNT_SUMMARY_FULL, CNT_ERRNO_FULL):
            raw = m.lookup_elem(struct.pack("<I", idx))
            totals.append(sum(struct.unpack(f"<{ncpu}Q", raw[:8 * ncpu])) if raw else 0)
        return KernelSummaryCounters(*totals)

    # -- summaries ------------------------------------------------------------------------

    def read(self) -> Summary:
        """Everything counted since load, grouped by thread.

        ``Summary.lost`` is the number of calls the kernel could not count (the
        ``summary`` map was full); the counts are exact when it is 0.
        """
        return self._summary(self._entries(), self._errnos(), {}, {},
                             self.counters().summary_full, 0).checked()

    def interval(self) -> Summary:
        """What was counted since the previous :meth:`interval` (or since this reader was
        made), grouped by thread; see the module docstring for min/max."""
        entries, errnos = self._entries(), self._errnos()
        full = self.counters().summary_full
        start_ns, self._prev_read_ns = self._prev_read_ns, time.monotonic_ns()
        s = self._summary(entries, errnos, self._prev, self._prev_errnos,
                          full - self._prev_full, start_ns).checked()
        # the errno counts of a key without an entry yet (its errno was counted between
        # the two map reads) are reported with the entry, by the next interval
        self._prev, self._prev_full = entries, full
        self._prev_errnos = {k: v for k, v in errnos.items() if k in entries}
        return s

    def _summary(self, entries: dict[_Key, _Stats], errnos: dict[_Key, dict[int, int]],
                 prev: dict[_Key, _Stats], prev_errnos: dict[_Key, dict[int, int]],
                 lost: int, start_ns: int) -> Summary:
        rows: dict[int, list[SyscallStats]] = {}
        threads: dict[int, tuple[int, int, str]] = {}   # tid -> (update_ns, tgid, comm)
        first = last = 0
        for key, v in entries.items():
            tid, nr, compat = key
            p = prev.get(key)
            calls = v[_CALLS] - (p[_CALLS] if p else 0)
            # a row with no new call still carries errno counts that the previous read
            # missed (it came between the kernel's errors += 1 and its errno count)
            errs = _sub_counts(errnos.get(key, {}), prev_errnos.get(key, {}))
            if calls == 0 and not errs:
                continue
            t = threads.get(tid)
            if t is None or v[_UPDATE] > t[0]:
                threads[tid] = (v[_UPDATE], v[_TGID], _cstr(v[_COMM]))

            def d(i: int, v: _Stats = v, p: _Stats | None = p) -> int:
                n: int = v[i] - (p[i] if p else 0)
                return n

            timed = d(_TIMED)
            sq = (v[_SQ_HI] << 64 | v[_SQ_LO]) - ((p[_SQ_HI] << 64 | p[_SQ_LO]) if p else 0)
            hist = {k: n - (p[_HIST + k] if p else 0)
                    for k, n in enumerate(v[_HIST:_HIST + HIST_BUCKETS])}
            # the entry's first timed call ever: the interval's when all its timed calls
            # are new, else earlier (the self-check's span is then looser, still true)
            row_first = v[_FIRST] if timed else 0
            rows.setdefault(tid, []).append(SyscallStats(
                syscall_nr=nr, syscall=self._compat_name(nr) if compat else self._name(nr),
                compat=bool(compat), calls=calls, errors=d(_ERRORS), timed=timed,
                total_ns=d(_TOTAL), min_ns=v[_MIN] if timed else 0,
                max_ns=v[_MAX] if timed else 0, sum_sq_ns2=sq, noreturn=d(_NORET),
                unfinished=d(_UNFIN), resumed=d(_RESUMED), errnos=errs,
                hist={k: n for k, n in hist.items() if n}, first_ts_ns=row_first,
                last_ts_ns=v[_LAST] if timed else 0))
            if timed:
                # the interval's first timed call: an entry's first ever, or (when the
                # entry had timed calls before) no earlier than the interval's start
                f = v[_FIRST] if not (p and p[_TIMED]) else max(start_ns, 1)
                first = f if not first else min(first, f)
                last = max(last, v[_LAST])
        groups = []
        for tid in sorted(rows, key=lambda t: (threads[t][1], t)):
            _, tgid, comm = threads[tid]
            groups.append(Group(tgid=tgid, tid=tid, comm=comm,
                                syscalls=sorted(rows[tid], key=lambda s: (s.syscall_nr,
                                                                          s.compat))))
        return Summary(group_by="thread", groups=groups, lost=lost, first_ts_ns=first,
                       last_ts_ns=last)


def _add_entry(out: dict[_Key, _Stats], key: _Key, v: _Stats) -> None:
    """Count slot stats ``v`` of ``key`` into ``out`` (folded with what it has); a slot
    with no call yet (indexed by a call that has not written it) adds nothing."""
    if v[_CALLS]:
        p = out.get(key)
        out[key] = v if p is None else _fold(p, v)


def _add_errno(out: dict[_Key, dict[int, int]], raw_key: bytes, raw_count: bytes) -> None:
    """Count one ``summary_errno`` entry into ``out`` (key -> errno -> count)."""
    tid, nr, compat, err = ERRNO_KEY.unpack(raw_key)
    e = out.setdefault((tid, nr, compat), {})
    e[err] = e.get(err, 0) + struct.unpack("<Q", raw_count)[0]


def _alive(tid: int) -> bool:
    """Whether /proc shows a task with this tid (a zombie too). Not ProcFS.exists: a
    /proc that refuses to say (EACCES under hidepid) must count as alive here, or a live
    thread's slot would be freed while it still writes it."""
    try:
        os.stat(f"/proc/{tid}")
    except FileNotFoundError:
        return False
    except OSError as e:
        return e.errno != _errno.ESRCH
    return True


def _fold(a: _Stats, b: _Stats) -> _Stats:
    """The statistics of one key over two slots (a reclaimed one and a later one)."""
    out = list(a)
    for i in (_CALLS, _ERRORS, _TIMED, _TOTAL, _NORET, _UNFIN, _RESUMED):
        out[i] = a[i] + b[i]
    sq = (a[_SQ_HI] << 64 | a[_SQ_LO]) + (b[_SQ_HI] << 64 | b[_SQ_LO])
    out[_SQ_LO], out[_SQ_HI] = sq & ((1 << 64) - 1), sq >> 64
    if a[_TIMED] and b[_TIMED]:
        out[_MIN], out[_MAX] = min(a[_MIN], b[_MIN]), max(a[_MAX], b[_MAX])
        out[_FIRST], out[_LAST] = min(a[_FIRST], b[_FIRST]), max(a[_LAST], b[_LAST])
    elif b[_TIMED]:
        out[_MIN], out[_MAX], out[_FIRST], out[_LAST] = b[_MIN], b[_MAX], b[_FIRST], b[_LAST]
    if b[_UPDATE] >= a[_UPDATE]:        # the later one's thread facts
        out[_TGID], out[_UPDATE], out[_COMM] = b[_TGID], b[_UPDATE], b[_COMM]
    for k in range(HIST_BUCKETS):
        out[_HIST + k] = a[_HIST + k] + b[_HIST + k]
    return tuple(out)


def _sub_counts(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    return {k: a[k] - b.get(k, 0) for k in sorted(a) if a[k] - b.get(k, 0)}


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
