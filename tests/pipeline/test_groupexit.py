"""The group_exits stage on hand-made exit records (no kernel)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tracekit._events import Exec, Exit, Lost, Syscall
from tracekit.pipeline.groupexit import GroupExits

SEGV, SIGSYS, CORE = 11, 31, 0x80


def _exit(tid: int, code: int, *, dead: bool = False, ts: int = 0, by: int = 0,
          tgid: int = 100, alone: bool = False) -> Exit:
    return Exit(ts_ns=ts or tid, tid=tid, tgid=tgid, exit_code=code, group_dead=dead,
                comm="x", superseded_by=by, alone=alone)


def test_leader_last_and_core_on_every_thread() -> None:
    st = GroupExits()
    assert st.push([_exit(100, SEGV | CORE), _exit(101, SEGV)]) == []
    out = st.push([_exit(102, SEGV, dead=True, ts=500)])
    assert [(e.tid, e.exit_code) for e in out] == [
        (101, SEGV | CORE), (102, SEGV | CORE), (100, SEGV | CORE)]
    assert out[-1].ts_ns == 500 and st.holding == 0


def test_threads_that_exit_normally_pass_and_the_leader_waits() -> None:
    st = GroupExits()
    assert st.push([_exit(100, 5 << 8)]) == []
    assert [e.tid for e in st.push([_exit(101, 5 << 8)])] == [101]
    assert [e.tid for e in st.push([_exit(102, 5 << 8, dead=True)])] == [102, 100]


def test_a_thread_seccomp_killed_alone_passes_while_its_group_lives() -> None:
    """SECCOMP_RET_KILL_THREAD: the thread's "+++ killed by SIGSYS +++" at once, not at
    its group's end; the same signal status of a group's death is held."""
    st = GroupExits()
    assert st.push([_call(100), _exit(101, SIGSYS, alone=True)]) == [
        _call(100), _exit(101, SIGSYS, alone=True)]
    assert st.push([_exit(102, SIGSYS)]) == [] and st.holding == 1


def test_superseded_leader_passes_and_the_end_flushes() -> None:
    st = GroupExits()
    assert [e.tid for e in st.push([_exit(100, 0, by=101)])] == [100]
    assert st.push([_exit(101, SEGV)]) == []
    assert [e.tid for e in st.flush()] == [101] and st.holding == 0


def test_a_leader_that_left_its_threads_running_has_no_line_at_the_end() -> None:
    """The leader called pthread_exit, its threads still ran when tracing ended: no
    '+++ exited with 0 +++' for a process that has not exited (strace prints none)."""
    st = GroupExits()
    assert st.push([_call(101), _exit(100, 0)]) == [_call(101)]
    assert st.flush() == [] and st.holding == 0


def _call(tid: int, tgid: int = 100) -> Syscall:
    return Syscall(ts_ns=tid, duration_ns=1, tid=tid, tgid=tgid, cpu=0, syscall_nr=34,
                   args=(0,) * 6, ret=0, comm="x")


def test_a_later_exit_of_a_known_thread_comes_before_the_leader() -> None:
    # two records say group_dead: every thread had begun its exit when 101's was
    # written, but 102 reached the tracepoint after it (the kernel's order, seen with
    # strace's: 102's line came after the leader's)
    st = GroupExits()
    st.push([_call(101), _call(102)])
    assert st.push([_exit(100, 5 << 8)]) == []
    assert [e.tid for e in st.push([_exit(101, 5 << 8, dead=True)])] == [101]
    out = st.push([_exit(102, 5 << 8, dead=True, ts=900)])
    assert [e.tid for e in out] == [102, 100] and out[-1].ts_ns == 900
    assert st.holding == 0 and st.flush() == []


def test_core_bit_waits_for_the_threads_still_exiting() -> None:
    st = GroupExits()
    st.push([_call(101), _call(102)])
    assert st.push([_exit(100, SEGV), _exit(101, SEGV, dead=True)]) == []
    out = st.push([_exit(102, SEGV | CORE, dead=True)])
    assert [(e.tid, e.exit_code) for e in out] == [
        (101, SEGV | CORE), (102, SEGV | CORE), (100, SEGV | CORE)]


def test_the_leaders_late_record_still_gives_its_core_bit_to_the_threads() -> None:
    # segv: the dumping leader's record came after the thread's, which said group_dead
    st = GroupExits()
    st.push([_call(100), _call(101)])
    assert st.push([_exit(101, SEGV, dead=True)]) == []
    out = st.push([_exit(100, SEGV | CORE, dead=True, ts=700)])
    assert [(e.tid, e.exit_code) for e in out] == [(101, SEGV | CORE), (100, SEGV | CORE)]


def test_lost_exits_release_a_dying_group_and_unknown_threads_are_not_awaited() -> None:
    st = GroupExits()
    st.push([_call(101), _call(102)])
    st.push([_exit(100, 5 << 8), _exit(101, 5 << 8, dead=True)])
    out = st.push([Lost(ts_ns=1000, count=1, lifecycle=1)])
    assert [type(e).__name__ for e in out] == ["Exit", "Lost"] and out[0].tid == 100
    # a thread that made no record of its own is not waited for (303), nor is one whose
    # first record comes once its group is dying (302)
    st.push([_call(301, 300), _exit(300, 5 << 8, tgid=300)])
    st.push([_exit(301, 5 << 8, dead=True, tgid=300), _call(302, 300)])
    assert st.holding == 0 and st.flush() == []


def test_a_threads_execve_makes_it_the_leader() -> None:
    st = GroupExits()
    st.push([_call(101), _call(102)])
    assert [e.tid for e in st.push([_exit(102, 9)])] == []          # de_thread's SIGKILL
    st.push([Exec(ts_ns=500, tid=100, old_tid=101, comm="x", filename="/x")])
    assert [e.tid for e in st.push([_exit(100, 0, dead=True)])] == [102, 100]


def test_a_tid_known_in_a_group_whose_exit_was_lost_is_known_anew_when_reused() -> None:
    st = GroupExits()
    st.push([_call(101)])                       # in 100; its exit never comes
    st.push([_call(101, 200), _call(200, 200)])  # the tid reused in process 200
    assert st.push([_exit(200, 9, dead=True, tgid=200)]) == []
    assert [e.tid for e in st.push([_exit(101, 9, dead=True, tgid=200)])] == [101, 200]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(batches=st.lists(st.lists(st.tuples(st.integers(1, 6), st.sampled_from([100, 200]),
                                           st.booleans()), max_size=12), max_size=6))
def test_batches_of_calls_learn_the_tasks_the_event_loop_learns(
        batches: list[list[tuple[int, int, bool]]]) -> None:
    """Batches of calls only (one process or several, tids reused across processes)
    and batches with exits: the tasks known after each are those learnt from each
    distinct (tid, tgid) of the batch, and the batch passes whole."""
    fast, ref = GroupExits(), GroupExits()
    for picks in batches:
        batch = [_exit(tid, 0, tgid=tgid) if ex else _call(tid, tgid)
                 for tid, tgid, ex in picks]
        if all(not ex for _, _, ex in picks):
            assert fast.push(batch) == batch
            for tid, tgid in {(ev.tid, ev.tgid) for ev in batch}:   # each task once
                if ref._known.get(tid) != tgid:
                    ref._learn(tid, tgid)
        else:
            assert fast.push(batch) == ref.push(batch)
        assert (fast._known, fast._threads, fast._dying) == \
            (ref._known, ref._threads, ref._dying)
