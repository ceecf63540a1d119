"""The group_exits stage on hand-made exit records (no kernel)."""

from __future__ import annotations

from tracekit._events import Exit
from tracekit.pipeline.groupexit import GroupExits

SEGV, CORE = 11, 0x80


def _exit(tid: int, code: int, *, dead: bool = False, ts: int = 0, by: int = 0) -> Exit:
    return Exit(ts_ns=ts or tid, tid=tid, tgid=100, exit_code=code, group_dead=dead,
                comm="x", superseded_by=by)


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


def test_superseded_leader_passes_and_the_end_flushes() -> None:
    st = GroupExits()
    assert [e.tid for e in st.push([_exit(100, 0, by=101)])] == [100]
    assert st.push([_exit(101, SEGV)]) == []
    assert [e.tid for e in st.flush()] == [101] and st.holding == 0
