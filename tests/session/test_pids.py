"""The typed pids map view (PidsMap) against a real kernel HASH map shaped like the tracer's
``pids`` map (u32 tid -> struct tk_pid_info), and the target walk over real processes.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracekit.bpf.object import Map
from tracekit.bpf.uapi import MapType
from tracekit.kernel.procfs import ProcFS
from tracekit.session.pids import PidInfo, PidsMap, Target, WalkResult

pytestmark = pytest.mark.kernel
PID_MAX = int(Path("/proc/sys/kernel/pid_max").read_text())
VALUE_SIZE = 16     # sizeof(struct tk_pid_info): __u64 start_time_ns, __u32 tgid, __u32 flags


@pytest.fixture
def raw() -> Iterator[Map]:
    with Map.create("test_pids", MapType.HASH, 4, VALUE_SIZE, 4096) as m:
        yield m


class CountingMap:
    """A real map whose get_next_key calls are counted; at call ``delete_cursor_at`` it
    first deletes the cursor key, as BPF's exit program would for a task that exits."""

    def __init__(self, m: Map, delete_cursor_at: int = 0) -> None:
        self.m = m
        self.calls = 0
        self.delete_cursor_at = delete_cursor_at

    def get_next_key(self, k: bytes | None) -> bytes | None:
        self.calls += 1
        if self.calls == self.delete_cursor_at and k is not None:
            assert self.m.delete_elem(k)
        return self.m.get_next_key(k)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.m, name)


def test_key_and_value_are_the_kernel_layout(raw: Map) -> None:
    pids = PidsMap(raw)
    start = 0x0102_0304_0506_0708
    assert pids.add(PID_MAX + 1, PidInfo(start, 0x1111_2222, 1))
    key = (PID_MAX + 1).to_bytes(4, "little")
    # as BPF reads it: __u32 key; struct tk_pid_info {__u64; __u32 tgid; __u32 flags}
    assert raw.lookup_elem(key) == (start.to_bytes(8, "little")
                                    + (0x1111_2222).to_bytes(4, "little")
                                    + (1).to_bytes(4, "little"))
    # as BPF writes it (a fork): the view decodes every field
    raw.update_elem((PID_MAX + 2).to_bytes(4, "little"),
                    (7).to_bytes(8, "little") + (PID_MAX + 1).to_bytes(4, "little")
                    + bytes(4))
    assert pids.get(PID_MAX + 2) == PidInfo(start_time_ns=7, tgid=PID_MAX + 1, flags=0)
    assert pids.entries() == {PID_MAX + 1: PidInfo(start, 0x1111_2222, 1),
                              PID_MAX + 2: PidInfo(7, PID_MAX + 1, 0)}
    assert sorted(pids.tids()) == [PID_MAX + 1, PID_MAX + 2]


def test_add_get_discard(raw: Map) -> None:
    pids = PidsMap(raw)
    tid = PID_MAX + 5
    assert pids.get(tid) is None and tid not in pids
    assert pids.add(tid, PidInfo(100, tid))
    assert tid in pids and pids.get(tid) == PidInfo(100, tid, 0)
    # only_new never overwrites (BPF's entry has the exact start time)
    assert not pids.add(tid, PidInfo(200, tid), only_new=True)
    assert pids.get(tid) == PidInfo(100, tid, 0)
    assert pids.add(tid, PidInfo(300, tid, 1))          # without only_new: replaced
    assert pids.get(tid) == PidInfo(300, tid, 1)
    assert pids.discard(tid)
    assert not pids.discard(tid)                         # ENOENT: already gone
    assert pids.get(tid) is None and list(pids.tids()) == []
    assert pids.not_added == set()


def test_full_map_inserts_what_fits_and_counts_the_rest() -> None:
    with Map.create("test_pids", MapType.HASH, 4, VALUE_SIZE, 4) as m:
        pids = PidsMap(m)
        tids = [PID_MAX + 1 + i for i in range(6)]
        added = [pids.add(t, PidInfo(0, t)) for t in tids]     # never raises (rule 6)
        assert added == [True] * 4 + [False] * 2
        assert pids.not_added == set(tids[4:])
        assert pids.add(tids[0], PidInfo(1, tids[0]))           # replacing fits in a full map
        # a retry the kernel already counted is not counted again
        assert not pids.add(PID_MAX + 100, PidInfo(0, 1), count_full=False)
        assert pids.not_added == set(tids[4:])
        # room frees up: the tid is inserted and leaves the count
        assert pids.discard(tids[1])
        assert pids.add(tids[4], PidInfo(0, tids[4]), only_new=True)
        assert pids.not_added == {tids[5]}
        assert sorted(pids.tids()) == [tids[0], tids[2], tids[3], tids[4]]


def test_walk_deletes_in_one_pass_with_cursor_on_kept_keys(raw: Map) -> None:
    pids = PidsMap(raw)
    tids = range(PID_MAX + 1, PID_MAX + 1001)
    for t in tids:
        assert pids.add(t, PidInfo(t * 10, t))
    counting = CountingMap(raw)
    seen: list[tuple[int, PidInfo]] = []

    def stale(tid: int, info: PidInfo) -> bool:
        seen.append((tid, info))
        return tid % 2 == 0

    res = WalkResult()
    steps = sum(1 for _ in PidsMap(counting).walk(stale, res, chunk=64))  # type: ignore[arg-type]
    assert (res.visited, res.kept, res.deleted, res.restarts) == (1000, 500, 500, 0)
    assert steps == 1000 // 64                         # a checkpoint every 64 keys
    assert sorted(seen) == [(t, PidInfo(t * 10, t)) for t in tids]   # each decided once
    assert sorted(pids.tids()) == [t for t in tids if t % 2]
    # one get_next_key per key and one for the end: deleting never restarted the walk
    assert counting.calls == res.visited + 1


def test_walk_cursor_deleted_by_the_kernel_restarts_once(raw: Map) -> None:
    pids = PidsMap(raw)
    for t in range(PID_MAX + 1, PID_MAX + 201):
        assert pids.add(t, PidInfo(0, t))
    order = list(pids.tids())
    # keep every key; the kernel deletes the 50th while it is the cursor
    counting = CountingMap(raw, delete_cursor_at=51)
    calls: list[int] = []
    res = WalkResult()
    for _ in PidsMap(counting).walk(lambda t, _: calls.append(t), res):  # type: ignore[arg-type]
        pass
    assert res.restarts == 1
    assert res.visited == 200 and res.kept == 200 and res.deleted == 0
    assert sorted(calls) == sorted(order)            # nothing decided twice
    assert set(pids.tids()) == set(order) - {order[49]}


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    p = subprocess.Popen(["sleep", "60"])
    yield p
    p.kill()
    p.wait()


def test_target_tasks_follow_children_only_when_asked(child: subprocess.Popen[bytes]) -> None:
    me = os.getpid()
    threads = sorted(int(t) for t in os.listdir(f"/proc/{me}/task"))
    procfs = ProcFS()
    alone = list(Target(pids=(me,), follow_forks=False).tasks(procfs))
    assert sorted(alone) == [(t, me) for t in threads]
    assert procfs.stats.files_read == 0                  # no children file read
    tree = list(Target(pids=(me,)).tasks(ProcFS()))
    assert (child.pid, child.pid) in tree
    assert tree.index((child.pid, child.pid)) > max(tree.index((t, me)) for t in threads)
    # a tid target is the thread itself (tgid unknown) plus its children's trees
    assert list(Target(tids=(me,), follow_forks=False).tasks(ProcFS())) == [(me, None)]
    assert (child.pid, child.pid) in list(Target(tids=(me,)).tasks(ProcFS()))
