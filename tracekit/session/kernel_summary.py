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
"""

from __future__ import annotations

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
                 compat_syscall_name: Callable[[int], str] | None = None) -> None:
        from tracekit.kernel.syscalls import syscall_namers
        self._name, self._compat_name = syscall_namers(syscall_name, compat_syscall_name)
        self._obj = obj
        self._prev: dict[_Key, _Stats] = {}
        self._prev_errnos: dict[_Key, dict[int, int]] = {}
        self._prev_full = 0
        self._prev_read_ns = time.monotonic_ns()   # CLOCK_MONOTONIC, bpf_ktime_get_ns's

    # -- raw reads ------------------------------------------------------------------------

    def _entries(self) -> dict[_Key, _Stats]:
        keys = {SLOT.unpack(v)[0]: SUM_KEY.unpack(k)
                for k, v in self._obj.maps["summary_index"].items()}
        if not keys:
            return {}
        values = self._obj.maps["summary"].items(limit=max(keys) + 1)
        out = {}
        for slot, key in keys.items():
            v = SUM_STATS.unpack(values[slot][1])
            if v[_CALLS]:       # 0: indexed by a call that has not yet written it
                out[key] = v
        return out

    def _errnos(self) -> dict[_Key, dict[int, int]]:
        out: dict[_Key, dict[int, int]] = {}
        for k, v in self._obj.maps["summary_errno"].items():
            tid, nr, compat, err = ERRNO_KEY.unpack(k)
            out.setdefault((tid, nr, compat), {})[err] = struct.unpack("<Q", v)[0]
        return out

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
        self._prev, self._prev_errnos, self._prev_full = entries, errnos, full
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
            if calls == 0:
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
            errs = _sub_counts(errnos.get(key, {}), prev_errnos.get(key, {}))
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


def _sub_counts(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    return {k: a[k] - b.get(k, 0) for k in sorted(a) if a[k] - b.get(k, 0)}


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
