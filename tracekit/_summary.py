"""Summary statistics of syscalls: the result type of both summary modes, and its exact math.

Both the streaming mode (the ``summarize`` stage and the ``summary`` formatter, which
aggregate :class:`~tracekit._events.Syscall` events in user space) and the in-kernel
mode (per-(tid, syscall_nr) BPF maps read at the end; issue 5, kernel half) produce a
:class:`Summary`. Two summaries merge exactly (:meth:`Summary.merge`), which is what
interval reports and per-CPU / per-tid kernel maps need.

Shape::

    Summary
      group_by: "thread" | "process" | "total"
      groups: [Group(tgid, tid, comm, syscalls: [SyscallStats, ...]), ...]
      lost, lost_lifecycle, first_ts_ns, last_ts_ns, losses, problems

What a :class:`SyscallStats` counts (one row of a table):

- ``calls``: every call seen, whatever its outcome: calls that never return (``exit``,
  ``exit_group``, flagged SC_NORETURN), calls whose task died inside them (SC_UNFINISHED),
  calls whose entry was not seen (SC_RESUMED), and numbers with no name
  (``syscall_1000``).
- ``errors``: calls that returned ``-errno`` (``-4095 <= ret < 0``), per errno in
  ``errnos`` (restart codes such as ERESTARTSYS included, as sys_exit sees them).
  A NORETURN or UNFINISHED call has no return value and is never an error.
- ``timed``: calls with a known duration: entry and exit both seen. Only these enter
  ``total_ns``, ``min_ns``, ``max_ns``, the mean, the standard deviation and the
  histogram. ``calls - timed`` = ``noreturn + unfinished + resumed``: counted, never
  timed (their duration is unknown, not zero).
- durations are wall-clock time from sys_enter to sys_exit (``Syscall.duration_ns``,
  ``bpf_ktime_get_ns``, CLOCK_MONOTONIC), in ns; time off CPU inside the call counts.
- ``hist``: log2 latency histogram: bucket ``k`` counts durations ``d`` with
  ``d.bit_length() == k``, i.e. ``2**(k-1) <= d < 2**k`` ns (bucket 0 is ``d == 0``);
  a dict of the non-empty buckets.

# Some facts about the self-check

A thread is in one syscall at a time, so the durations of its timed calls are disjoint
intervals between the entry of its first timed call and the exit of its last one: their
sum (``total_ns``) cannot exceed that span (``last_ts_ns - first_ts_ns``), the wall time
the thread was seen in calls. A summary of threads checks this for each thread
(:meth:`Summary.checked`); a thread that fails it is named in ``problems`` (two records
of one call, calls of two tasks under one tid, a clock gone wrong), and the summary
output says so. An interval of the in-kernel mode knows only each row's first timed
call ever, which may be before the interval: its check is looser, never wrong.

# Some facts about the exact standard deviation

The sample standard deviation of the ``timed`` durations (``statistics.stdev``: the n - 1
figure, what users mean by the spread of a sample of calls; not the population figure
``pstdev``, not the standard error of the mean) is computed from three
exact integers: ``n = timed``, ``S = total_ns = sum(d)`` and ``Q = sum_sq_ns2 = sum(d*d)``::

    variance = (n*Q - S*S) / (n * (n - 1))   (an exact Fraction: Python ints never overflow)
    stddev   = sqrt(variance)                (one correctly rounded float conversion + sqrt)

With one timed call (or none) the spread is 0 (``statistics.stdev`` refuses n < 2; perf
prints 0.00%).

There is no cancellation error because nothing is rounded before the subtraction; the
result agrees with ``statistics.stdev`` to ~1e-16 relative. The sums merge by addition,
so merging is exact too (Welford's running mean would need a rational mean to merge
exactly). The in-kernel mode must keep ``Q`` without overflow: a 64-bit ``sum(d*d)``
overflows after one 4.3 s call; it keeps ``Q`` as a 128-bit (hi, lo) pair per map
entry, and user space sums the entries as Python ints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, Literal, TypeAlias

import msgspec

from tracekit._events import (
    SC_COMPAT,
    SC_DETACHED,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Losses,
    Lost,
    Syscall,
)

__all__ = [
    "GroupBy",
    "Group",
    "SortKey",
    "Summarizer",
    "Summary",
    "SyscallStats",
    "hist_bucket",
    "sort_rows",
]

GroupBy: TypeAlias = Literal["thread", "process", "total"]
SortKey: TypeAlias = Literal["total", "calls", "errors", "name"]
_LEVEL = {"thread": 0, "process": 1, "total": 2}


def hist_bucket(duration_ns: int) -> int:
    """The log2 histogram bucket of a duration: ``2**(k-1) <= d < 2**k`` -> ``k``; 0 -> 0."""
    return duration_ns.bit_length()


class SyscallStats(msgspec.Struct, kw_only=True, frozen=True):
    """Statistics of one syscall in one group (see the module docstring for the rules).

    Times are ns of CLOCK_MONOTONIC; ``min_ns``/``max_ns`` are 0 when ``timed == 0``.
    """

    syscall_nr: int             # native number (i386 table when compat)
    syscall: str                # name; "syscall_<nr>" when the table has none
    compat: bool = False        # a 32-bit (ia32) call
    calls: int = 0              # every call, timed or not
    errors: int = 0             # calls that returned -errno
    timed: int = 0              # calls with a known duration
    total_ns: int = 0           # sum of known durations
    min_ns: int = 0
    max_ns: int = 0
    sum_sq_ns2: int = 0         # sum of squared known durations (ns^2), exact
    noreturn: int = 0           # SC_NORETURN calls (exit, exit_group): counted, not timed
    unfinished: int = 0         # SC_UNFINISHED: the task died inside the call
    resumed: int = 0            # SC_RESUMED: exit seen, entry not (duration unknown)
    errnos: dict[int, int] = {}  # positive errno -> calls that returned it
    hist: dict[int, int] = {}    # log2 bucket (hist_bucket) -> timed calls in it
    first_ts_ns: int = 0        # entry of the first timed call (an in-kernel interval:
    #                             the first ever, maybe before the interval); 0: none
    last_ts_ns: int = 0         # exit (entry + duration) of the last timed call

    @property
    def mean_ns(self) -> float:
        """Mean duration of the timed calls in ns (0.0 when none)."""
        return self.total_ns / self.timed if self.timed else 0.0

    @property
    def variance_ns2(self) -> Fraction:
        """Exact sample variance (n - 1) of the timed durations, ns^2; 0 below 2 calls."""
        n = self.timed
        if n < 2:
            return Fraction(0)
        return Fraction(n * self.sum_sq_ns2 - self.total_ns * self.total_ns, n * (n - 1))

    @property
    def stddev_ns(self) -> float:
        """Sample standard deviation of the timed durations (``statistics.stdev``, n - 1);
        0.0 below 2 calls."""
        return math.sqrt(self.variance_ns2)

    @property
    def stddev_pct(self) -> float:
        """``stddev_ns`` as a percentage of the mean (perf trace -s's "stddev (%)")."""
        return 100.0 * self.stddev_ns / self.mean_ns if self.total_ns else 0.0

    def merge(self, other: SyscallStats) -> SyscallStats:
        """Exact statistics of the union of both sets of calls (same syscall)."""
        if (self.syscall_nr, self.compat) != (other.syscall_nr, other.compat):
            raise ValueError(f"cannot merge {self.syscall} stats with {other.syscall} stats")
        if not other.timed:
            mn, mx = self.min_ns, self.max_ns
        elif not self.timed:
            mn, mx = other.min_ns, other.max_ns
        else:
            mn, mx = min(self.min_ns, other.min_ns), max(self.max_ns, other.max_ns)
        return SyscallStats(
            syscall_nr=self.syscall_nr, syscall=self.syscall, compat=self.compat,
            calls=self.calls + other.calls, errors=self.errors + other.errors,
            timed=self.timed + other.timed, total_ns=self.total_ns + other.total_ns,
            min_ns=mn, max_ns=mx, sum_sq_ns2=self.sum_sq_ns2 + other.sum_sq_ns2,
            noreturn=self.noreturn + other.noreturn,
            unfinished=self.unfinished + other.unfinished,
            resumed=self.resumed + other.resumed,
            errnos=_add_counts(self.errnos, other.errnos),
            hist=_add_counts(self.hist, other.hist),
            first_ts_ns=_first_of(self, other), last_ts_ns=max(self.last_ts_ns,
                                                                other.last_ts_ns))


def _first_of(a: SyscallStats, b: SyscallStats) -> int:
    """The first entry of both sets' timed calls; 0 when either one's is unknown."""
    if not a.timed:
        return b.first_ts_ns
    if not b.timed:
        return a.first_ts_ns
    return min(a.first_ts_ns, b.first_ts_ns) if a.first_ts_ns and b.first_ts_ns else 0


def _add_counts(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return dict(sorted(out.items()))


class Group(msgspec.Struct, kw_only=True, frozen=True):
    """The syscalls of one thread, one process, or of everything traced.

    ``tid`` is 0 for a process or the total, ``tgid`` 0 for the total; both are ids in
    the init pid namespace. ``comm`` is the thread's last comm (a process: its leader's,
    else its first thread's; the total: "").
    """

    tgid: int = 0
    tid: int = 0
    comm: str = ""
    syscalls: list[SyscallStats] = []    # sorted by (syscall_nr, compat)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.syscalls)

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.syscalls)

    @property
    def total_ns(self) -> int:
        return sum(s.total_ns for s in self.syscalls)

    def span(self) -> tuple[int, int, int] | None:
        """``(first entry, last exit, ns in calls)`` of the group's timed calls, or None
        when it has none; the first entry is 0 when a row's is unknown."""
        timed = [s for s in self.syscalls if s.timed]
        if not timed:
            return None
        first = 0 if not all(s.first_ts_ns for s in timed) else min(
            s.first_ts_ns for s in timed)
        return first, max(s.last_ts_ns for s in timed), sum(s.total_ns for s in timed)


def _merge_rows(rows: Iterable[SyscallStats]) -> list[SyscallStats]:
    by: dict[tuple[int, bool], SyscallStats] = {}
    for s in rows:
        key = (s.syscall_nr, s.compat)
        prev = by.get(key)
        by[key] = s if prev is None else prev.merge(s)
    return [by[k] for k in sorted(by)]


class Summary(msgspec.Struct, kw_only=True, frozen=True):
    """Per-syscall statistics, grouped by thread, process or in total.

    Attributes:
      group_by: what a :class:`Group` is.
      groups: sorted by (tgid, tid).
      lost: syscall records the kernel could not write (their calls are missing: the
        counts are exact only when this is 0); in-kernel mode: calls not counted.
      lost_lifecycle: fork/exec/exit/signal records it could not write (no calls).
      first_ts_ns: earliest entry time of a timed call (0 when none), CLOCK_MONOTONIC.
      last_ts_ns: latest exit time (entry + duration) of a timed call (0 when none).
      losses: everything the trace lost or skipped, when the summary was made at its
        end (:class:`~tracekit._events.Losses`), else None.
      spans: per thread (tid), ``(first entry, last exit, ns in calls)`` of its timed
        calls, what the self-check reads (first entry 0: unknown); kept by
        :meth:`regroup`, combined by :meth:`merge`.
      problems: what the self-check found wrong, one line per thread that fails it
        (module docstring); empty: it passed.
    """

    group_by: GroupBy = "total"
    groups: list[Group] = []
    lost: int = 0
    first_ts_ns: int = 0
    last_ts_ns: int = 0
    lost_lifecycle: int = 0
    losses: Losses | None = None
    spans: dict[int, tuple[int, int, int]] = {}
    problems: list[str] = []

    @property
    def calls(self) -> int:
        return sum(g.calls for g in self.groups)

    @property
    def errors(self) -> int:
        return sum(g.errors for g in self.groups)

    @property
    def total_ns(self) -> int:
        return sum(g.total_ns for g in self.groups)

    def checked(self) -> Summary:
        """This summary of threads with its ``spans`` and the self-check's ``problems``
        (module docstring); a summary of processes or the total as it is (its threads'
        spans are not known)."""
        if self.group_by != "thread":
            return self
        spans = {g.tid: span for g in self.groups if (span := g.span()) is not None}
        return msgspec.structs.replace(self, spans=spans, problems=_problems(spans))

    def group_label(self, g: Group) -> str:
        """``"comm (tid)"`` of a thread group, ``"comm (tgid)"`` of a process, ``"all"``
        for the total (comm as the kernel gave it: escape it for a terminal)."""
        if self.group_by == "thread":
            return f"{g.comm} ({g.tid})"
        if self.group_by == "process":
            return f"{g.comm} ({g.tgid})"
        return "all"

    def regroup(self, group_by: GroupBy) -> Summary:
        """The same calls grouped more coarsely (thread -> process -> total).

        Raises:
          ValueError: a finer grouping than this summary's (the split is not known).
        """
        if _LEVEL[group_by] < _LEVEL[self.group_by]:
            raise ValueError(f"cannot regroup a summary by {self.group_by} into {group_by}")
        if group_by == self.group_by:
            return self
        keyed: dict[int, list[Group]] = {}
        for g in self.groups:
            keyed.setdefault(g.tgid if group_by == "process" else 0, []).append(g)
        groups = []
        for tgid, members in sorted(keyed.items()):
            comm = ""
            if group_by == "process":
                leader = [g for g in members if g.tid in (0, tgid)]
                comm = (leader or members)[0].comm
            groups.append(Group(tgid=tgid, tid=0, comm=comm,
                                syscalls=_merge_rows(s for g in members for s in g.syscalls)))
        return msgspec.structs.replace(self, group_by=group_by, groups=groups)

    def merge(self, other: Summary) -> Summary:
        """Exact statistics of both summaries' calls, grouped by the coarser grouping.

        Groups with the same (tgid, tid) merge; a group's comm is ``other``'s when it has
        one (the later summary of an interval series). comm is a label, not a statistic: a
        thread's is its last comm when ``other`` is the later summary, but a process's
        depends on which threads made calls in each part.
        """
        by = self.group_by if _LEVEL[self.group_by] >= _LEVEL[other.group_by] \
            else other.group_by
        a, b = self.regroup(by), other.regroup(by)
        keyed: dict[tuple[int, int], Group] = {(g.tgid, g.tid): g for g in a.groups}
        for g in b.groups:
            prev = keyed.get((g.tgid, g.tid))
            if prev is None:
                keyed[(g.tgid, g.tid)] = g
            else:
                keyed[(g.tgid, g.tid)] = Group(
                    tgid=g.tgid, tid=g.tid, comm=g.comm or prev.comm,
                    syscalls=_merge_rows([*prev.syscalls, *g.syscalls]))
        firsts = [t for t in (a.first_ts_ns, b.first_ts_ns) if t]
        spans = dict(a.spans)
        for tid, (f2, l2, t2) in b.spans.items():
            had = spans.get(tid)
            spans[tid] = (f2, l2, t2) if had is None else (
                min(had[0], f2) if had[0] and f2 else 0, max(had[1], l2), had[2] + t2)
        spans = dict(sorted(spans.items()))
        return Summary(group_by=by, groups=[keyed[k] for k in sorted(keyed)],
                       lost=a.lost + b.lost, first_ts_ns=min(firsts, default=0),
                       last_ts_ns=max(a.last_ts_ns, b.last_ts_ns),
                       lost_lifecycle=a.lost_lifecycle + b.lost_lifecycle,
                       losses=b.losses if b.losses is not None else a.losses,
                       spans=spans, problems=_problems(spans))


def _problems(spans: dict[int, tuple[int, int, int]]) -> list[str]:
    """The self-check of per-thread spans: one line per thread whose time in calls is
    more than the span of its calls (a thread whose first entry is unknown passes)."""
    out = []
    for tid, (first, last, total) in sorted(spans.items()):
        if first and total > last - first:
            out.append(f"thread {tid}: {total / 1e9:.6f} s in calls is more than the "
                       f"{(last - first) / 1e9:.6f} s from its first call's entry to its "
                       "last call's exit")
    return out


def sort_rows(rows: Iterable[SyscallStats], sort: SortKey = "total") -> list[SyscallStats]:
    """Rows in table order: ``total`` time, ``calls`` or ``errors`` descending, or ``name``
    ascending; ties by name (native before compat), then number."""
    rows = sorted(rows, key=lambda s: (s.syscall, s.compat, s.syscall_nr))
    if sort == "name":
        return rows
    attr = {"total": "total_ns", "calls": "calls", "errors": "errors"}[sort]
    return sorted(rows, key=lambda s: getattr(s, attr), reverse=True)  # stable: ties by name


# --- streaming aggregation --------------------------------------------------------------

# Accumulator slots: a list per (tid, syscall_nr, compat) is the cheapest thing to update
# per event in CPython (a Struct's attribute writes cost more than list item writes).
_CALLS, _ERRORS, _TIMED, _TOTAL, _MIN, _MAX, _SQ, _NORET, _UNFIN, _RESUMED = range(10)
_ERRNOS, _HIST, _FIRST, _LAST = 10, 11, 12, 13


class Summarizer:
    """Aggregates Syscall events, per thread, into a :class:`Summary` on demand.

    Args:
      syscall_name: native number -> name (``SyscallTable().name``); default: this
        machine's table.
      compat_syscall_name: i386 number -> name for SC_COMPAT calls; default: the i386
        table on x86_64, else ``syscall_<nr>``.

    Cost: one dict lookup and a few list updates per Syscall; other events are skipped
    (Lost adds to ``lost`` and ``lost_lifecycle``).
    """

    def __init__(self, syscall_name: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None) -> None:
        from tracekit.kernel.syscalls import syscall_namers
        self._name, self._compat_name = syscall_namers(syscall_name, compat_syscall_name)
        self.reset()

    def reset(self) -> None:
        """Forget everything added so far."""
        # (tid, nr, compat) -> slots: ten int counters, two dicts (_ERRNOS, _HIST), then
        # the first entry and last exit of the timed calls (_FIRST, _LAST)
        self._acc: dict[tuple[int, int, int], list[Any]] = {}
        self._threads: dict[int, tuple[int, str]] = {}     # tid -> (tgid, last comm)
        self.lost = 0
        self.lost_lifecycle = 0

    @property
    def first_ts_ns(self) -> int:
        """Earliest entry of a timed call added so far (0 when none)."""
        return min((a[_FIRST] for a in self._acc.values() if a[_TIMED]), default=0)

    @property
    def last_ts_ns(self) -> int:
        """Latest exit of a timed call added so far (0 when none)."""
        return max((a[_LAST] for a in self._acc.values()), default=0)

    def add(self, events: Iterable[object]) -> None:
        """Add a batch of events (non-Syscall events other than Lost are ignored)."""
        acc, threads = self._acc, self._threads
        for ev in events:
            if type(ev) is not Syscall:
                if type(ev) is Lost:
                    self.lost += ev.count - ev.lifecycle
                    self.lost_lifecycle += ev.lifecycle
                continue
            flags = ev.flags
            if flags & SC_DETACHED:
                continue        # never returned while traced: strace -c counts it nowhere
            key = (ev.tid, ev.syscall_nr, flags & SC_COMPAT)
            a = acc.get(key)
            if a is None:
                a = acc[key] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {}, {}, 0, 0]
            t = threads.get(ev.tid)
            if t is None or t[1] != ev.comm:
                threads[ev.tid] = (ev.tgid, ev.comm)
            a[_CALLS] += 1
            if flags & (SC_NORETURN | SC_UNFINISHED):
                a[_NORET if flags & SC_NORETURN else _UNFIN] += 1
                continue
            ret = ev.ret
            if -4095 <= ret < 0:
                a[_ERRORS] += 1
                e = a[_ERRNOS]
                e[-ret] = e.get(-ret, 0) + 1
            if flags & SC_RESUMED:
                a[_RESUMED] += 1
                continue
            d = ev.duration_ns
            ts = ev.ts_ns
            if a[_TIMED]:
                if d < a[_MIN]:
                    a[_MIN] = d
                elif d > a[_MAX]:
                    a[_MAX] = d
                if ts < a[_FIRST]:
                    a[_FIRST] = ts
            else:
                a[_MIN] = a[_MAX] = d
                a[_FIRST] = ts
            a[_TIMED] += 1
            a[_TOTAL] += d
            a[_SQ] += d * d
            h = a[_HIST]
            k = d.bit_length()
            h[k] = h.get(k, 0) + 1
            if ts + d > a[_LAST]:
                a[_LAST] = ts + d

    def summary(self, group_by: GroupBy = "thread") -> Summary:
        """What was added so far, as a :class:`Summary` grouped by ``group_by``."""
        rows: dict[int, list[SyscallStats]] = {}
        for (tid, nr, compat), a in self._acc.items():
            name = self._compat_name(nr) if compat else self._name(nr)
            rows.setdefault(tid, []).append(SyscallStats(
                syscall_nr=nr, syscall=name, compat=bool(compat), calls=a[_CALLS],
                errors=a[_ERRORS], timed=a[_TIMED], total_ns=a[_TOTAL], min_ns=a[_MIN],
                max_ns=a[_MAX], sum_sq_ns2=a[_SQ], noreturn=a[_NORET], unfinished=a[_UNFIN],
                resumed=a[_RESUMED], errnos=dict(sorted(a[_ERRNOS].items())),
                hist=dict(sorted(a[_HIST].items())), first_ts_ns=a[_FIRST],
                last_ts_ns=a[_LAST]))
        groups = []
        for tid in sorted(rows, key=lambda t: (self._threads[t][0], t)):
            tgid, comm = self._threads[tid]
            groups.append(Group(tgid=tgid, tid=tid, comm=comm,
                                syscalls=sorted(rows[tid], key=lambda s: (s.syscall_nr,
                                                                          s.compat))))
        s = Summary(group_by="thread", groups=groups, lost=self.lost,
                    first_ts_ns=self.first_ts_ns, last_ts_ns=self.last_ts_ns,
                    lost_lifecycle=self.lost_lifecycle)
        return s.checked().regroup(group_by)
