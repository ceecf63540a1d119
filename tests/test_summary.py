"""Summary statistics (tracekit._summary): exact counts, stddev, histogram, merge, regroup."""

from __future__ import annotations

import errno
import random
import statistics

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from tracekit._events import SC_COMPAT, SC_NORETURN, SC_RESUMED, SC_UNFINISHED, Lost, Syscall
from tracekit._summary import Summarizer, Summary, SyscallStats, hist_bucket, sort_rows
from tracekit.kernel.syscalls import SyscallTable

TABLE = SyscallTable("x86_64")
I386 = SyscallTable("i386")
GETPPID, OPENAT, EXIT_GROUP, EXECVE = (TABLE.nr(n) for n in
                                       ("getppid", "openat", "exit_group", "execve"))


def ev(nr: int, dur: int = 1000, *, ret: int = 0, tid: int = 10, tgid: int = 10,
       ts: int = 1_000_000, flags: int = 0, comm: str = "w") -> Syscall:
    return Syscall(ts_ns=ts, duration_ns=dur, tid=tid, tgid=tgid, cpu=0, syscall_nr=nr,
                   args=(0,) * 6, ret=ret, comm=comm, flags=flags)


def summarizer() -> Summarizer:
    return Summarizer(TABLE.name, I386.name)


def row(summary: Summary, name: str, tid: int | None = None) -> SyscallStats:
    rows = [s for g in summary.groups for s in g.syscalls
            if s.syscall == name and (tid is None or g.tid == tid)]
    assert len(rows) == 1, rows
    return rows[0]


durations = st.lists(st.integers(min_value=0, max_value=10**13), min_size=1, max_size=200)


@given(durations)
@settings(max_examples=200, deadline=None)
def test_stats_exact_against_statistics(ds: list[int]) -> None:
    agg = summarizer()
    agg.add([ev(GETPPID, d, ts=1000 + i) for i, d in enumerate(ds)])
    s = row(agg.summary("total"), "getppid")
    assert (s.calls, s.timed, s.errors) == (len(ds), len(ds), 0)
    assert (s.total_ns, s.min_ns, s.max_ns) == (sum(ds), min(ds), max(ds))
    assert s.sum_sq_ns2 == sum(d * d for d in ds)     # ints: no overflow at 10**13 ns
    assert s.mean_ns == pytest.approx(statistics.fmean(ds), rel=1e-12)
    # the sample figure (n - 1); statistics.stdev refuses one value, the summary says 0
    ref = statistics.stdev(ds) if len(ds) > 1 else 0.0
    assert s.stddev_ns == pytest.approx(ref, rel=1e-9, abs=1e-9)
    assert sum(s.hist.values()) == len(ds)
    assert s.hist == dict(sorted(
        (k, sum(1 for d in ds if hist_bucket(d) == k)) for k in {hist_bucket(d) for d in ds}))


def test_stddev_no_cancellation_on_large_equal_values() -> None:
    # One-pass float formulas (E[x^2] - E[x]^2) lose everything here; exact ints do not.
    ds = [10**12 + k for k in (0, 1, 2)] * 1000
    agg = summarizer()
    agg.add([ev(GETPPID, d) for d in ds])
    s = row(agg.summary("total"), "getppid")
    assert s.stddev_ns == pytest.approx(statistics.stdev(ds), rel=1e-12)
    assert s.stddev_pct == pytest.approx(100 * statistics.stdev(ds) / statistics.fmean(ds),
                                         rel=1e-9)


def test_stddev_is_the_sample_figure() -> None:
    # 2 and 4 ns: population stddev 1, sample stddev sqrt(2) (strace users' n - 1 figure)
    agg = summarizer()
    agg.add([ev(GETPPID, 2), ev(GETPPID, 4)])
    s = row(agg.summary("total"), "getppid")
    assert s.stddev_ns == pytest.approx(2 ** 0.5, rel=1e-15)
    assert s.stddev_ns == pytest.approx(statistics.stdev([2, 4]), rel=1e-15)
    assert s.stddev_pct == pytest.approx(100 * 2 ** 0.5 / 3, rel=1e-15)
    one = summarizer()
    one.add([ev(GETPPID, 7)])
    assert row(one.summary("total"), "getppid").stddev_ns == 0.0


def test_hist_bucket_boundaries() -> None:
    assert [hist_bucket(d) for d in (0, 1, 2, 3, 4, 7, 8, 1023, 1024)] == \
        [0, 1, 2, 2, 3, 3, 4, 10, 11]


def test_every_call_counted_untimed_ones_not_timed() -> None:
    agg = summarizer()
    agg.add([
        ev(1000, 500, ret=-errno.ENOSYS), ev(1000, 700, ret=-errno.ENOSYS),
        ev(EXIT_GROUP, 0, ret=0, flags=SC_NORETURN),
        ev(EXECVE, 0, ret=0, flags=SC_NORETURN),                      # seen from the old image
        ev(EXECVE, 2000, ret=-errno.ENOENT),                          # a failed execve
        ev(OPENAT, 0, ret=0, flags=SC_UNFINISHED),                    # died inside
        ev(OPENAT, 0, ret=-errno.EACCES, ts=0, flags=SC_RESUMED),     # entry not seen
        ev(OPENAT, 300, ret=3),
        ev(I386.nr("getppid"), 40, ret=1, flags=SC_COMPAT),
        Lost(ts_ns=5, count=3),
    ])
    s = agg.summary("total")
    nosys = row(s, "syscall_1000")
    assert (nosys.calls, nosys.errors, nosys.errnos, nosys.timed) == (2, 2, {errno.ENOSYS: 2}, 2)
    eg = row(s, "exit_group")
    assert (eg.calls, eg.timed, eg.noreturn, eg.errors, eg.total_ns) == (1, 0, 1, 0, 0)
    ex = row(s, "execve")
    assert (ex.calls, ex.timed, ex.noreturn, ex.errors, ex.errnos) == \
        (2, 1, 1, 1, {errno.ENOENT: 1})
    assert (ex.total_ns, ex.min_ns, ex.max_ns) == (2000, 2000, 2000)   # untimed not in min
    op = row(s, "openat")
    assert (op.calls, op.timed, op.unfinished, op.resumed, op.errors) == (3, 1, 1, 1, 1)
    assert (op.total_ns, op.min_ns, op.max_ns, op.errnos) == (300, 300, 300, {errno.EACCES: 1})
    compat = [r for g in s.groups for r in g.syscalls if r.compat]
    assert [(r.syscall, r.calls) for r in compat] == [("getppid", 1)]
    assert s.calls == 10 - 1 and s.lost == 3
    assert s.first_ts_ns == 1_000_000 and s.last_ts_ns == 1_000_000 + 2000


def _events(rng: random.Random, n: int) -> list[Syscall]:
    out = []
    ts = 1000
    for _ in range(n):
        tid = rng.choice([10, 11, 20])
        nr = rng.choice([GETPPID, OPENAT, 1000])
        ret = -rng.choice([errno.ENOENT, errno.EACCES]) if rng.random() < 0.3 else 0
        flags = rng.choice([0, 0, 0, SC_NORETURN, SC_RESUMED])
        ts += rng.randrange(1, 10**6)
        out.append(ev(nr, rng.randrange(0, 10**9), ret=ret, tid=tid, tgid=20 if tid == 20 else 10,
                      ts=ts, flags=flags, comm=f"c{tid}"))
    return out


@given(st.integers(0, 2**32), st.integers(0, 300), st.integers(0, 300))
@settings(max_examples=100, deadline=None)
def test_merge_of_parts_equals_whole(seed: int, n: int, cut: int) -> None:
    events = _events(random.Random(seed), n)
    cut = min(cut, n)
    whole, a, b = summarizer(), summarizer(), summarizer()
    whole.add(events)
    a.add(events[:cut])
    b.add(events[cut:])
    assert a.summary("thread").merge(b.summary("thread")) == whole.summary("thread")
    for by in ("process", "total"):   # a process's comm is a label (leader's if seen), not
        got, want = a.summary(by).merge(b.summary(by)), whole.summary(by)   # a statistic
        assert msgspec.structs.replace(got, groups=[]) == msgspec.structs.replace(want, groups=[])
        assert [(g.tgid, g.tid, g.syscalls) for g in got.groups] == \
            [(g.tgid, g.tid, g.syscalls) for g in want.groups]
    # a coarser side wins: thread + total -> total
    assert a.summary("thread").merge(b.summary("total")) == whole.summary("total")


def test_regroup_thread_process_total() -> None:
    agg = summarizer()
    agg.add([ev(GETPPID, 10, tid=10, tgid=10, comm="lead"),
             ev(GETPPID, 20, tid=11, tgid=10, comm="worker"),
             ev(GETPPID, 30, tid=20, tgid=20, comm="other")])
    t = agg.summary("thread")
    assert [(g.tgid, g.tid, g.comm, g.calls) for g in t.groups] == \
        [(10, 10, "lead", 1), (10, 11, "worker", 1), (20, 20, "other", 1)]
    p = agg.summary("process")
    assert [(g.tgid, g.tid, g.comm, g.calls, g.total_ns) for g in p.groups] == \
        [(10, 0, "lead", 2, 30), (20, 0, "other", 1, 30)]
    tot = agg.summary("total")
    assert [(g.tgid, g.tid, g.calls, g.total_ns) for g in tot.groups] == [(0, 0, 3, 60)]
    assert row(tot, "getppid").min_ns == 10 and row(tot, "getppid").max_ns == 30
    with pytest.raises(ValueError, match="cannot regroup a summary by total into thread"):
        tot.regroup("thread")


def test_merge_rejects_different_syscalls() -> None:
    a = SyscallStats(syscall_nr=1, syscall="write")
    with pytest.raises(ValueError, match="cannot merge write stats with read stats"):
        a.merge(SyscallStats(syscall_nr=0, syscall="read"))


def test_sort_rows() -> None:
    rows = [SyscallStats(syscall_nr=i, syscall=name, calls=c, errors=e, total_ns=t)
            for i, (name, c, e, t) in enumerate([("b", 5, 0, 100), ("a", 1, 3, 900),
                                                 ("c", 9, 1, 100)])]
    names = {k: [r.syscall for r in sort_rows(rows, k)]
             for k in ("total", "calls", "errors", "name")}
    assert names == {"total": ["a", "b", "c"], "calls": ["c", "b", "a"],
                     "errors": ["a", "c", "b"], "name": ["a", "b", "c"]}


def test_json_round_trip() -> None:
    agg = summarizer()
    agg.add(_events(random.Random(1), 100))
    s = agg.summary("thread")
    assert msgspec.json.decode(msgspec.json.encode(s), type=Summary) == s


def test_reset_forgets() -> None:
    agg = summarizer()
    agg.add([ev(GETPPID), Lost(ts_ns=1, count=2)])
    agg.reset()
    assert agg.summary("thread") == Summary(group_by="thread")


def test_self_check_names_a_thread_whose_calls_overlap() -> None:
    """One thread's calls cannot overlap: 300 us of calls inside a 200 us span (two
    records of one call, two tasks under one tid) fails the check, and says which."""
    agg = summarizer()
    agg.add([ev(GETPPID, 100_000, ts=1_000_000), ev(GETPPID, 100_000, ts=1_100_000),
             ev(OPENAT, 100_000, ts=1_050_000),                       # overlaps both
             ev(GETPPID, 5_000, tid=11, ts=1_000_000), ev(GETPPID, 5_000, tid=11,
                                                           ts=1_010_000)])
    s = agg.summary("thread")
    assert s.spans == {10: (1_000_000, 1_200_000, 300_000), 11: (1_000_000, 1_015_000, 10_000)}
    assert s.problems == ["thread 10: 0.000300 s in calls is more than the 0.000200 s from "
                          "its first call's entry to its last call's exit"]
    assert agg.summary("process").problems == s.problems      # kept by a coarser grouping
    # split in two, each part passes; merged, the overlap is found again
    a, b = summarizer(), summarizer()
    a.add([ev(GETPPID, 100_000, ts=1_000_000), ev(GETPPID, 100_000, ts=1_100_000)])
    b.add([ev(OPENAT, 100_000, ts=1_050_000)])
    assert a.summary("thread").problems == b.summary("thread").problems == []
    assert a.summary("thread").merge(b.summary("thread")).problems == [s.problems[0]]


def test_self_check_passes_back_to_back_calls_and_skips_untimed() -> None:
    agg = summarizer()
    agg.add([ev(GETPPID, 100, ts=1000), ev(GETPPID, 100, ts=1100),          # touching
             ev(EXIT_GROUP, 0, ts=5000, flags=SC_NORETURN),
             ev(OPENAT, 0, ts=0, flags=SC_RESUMED)])
    s = agg.summary("thread")
    assert s.problems == [] and s.spans == {10: (1000, 1200, 200)}


def test_lost_events_split_by_kind() -> None:
    agg = summarizer()
    agg.add([ev(GETPPID), Lost(ts_ns=1, count=5, lifecycle=2), Lost(ts_ns=2, count=1)])
    s = agg.summary("thread")
    assert (s.lost, s.lost_lifecycle) == (4, 2)      # syscall records: the calls missing
