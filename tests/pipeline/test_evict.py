"""The eviction walk and the ``evict`` stage against a real HASH map and real tasks.

The map is a standalone ``BPF_MAP_TYPE_HASH`` shaped like the tracer's ``pids`` map
(u32 tid -> struct tk_pid_info); the tasks are processes the test starts.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.session.test_pids import CountingMap
from tracekit._events import PID_INFO
from tracekit.bpf.object import Map
from tracekit.bpf.uapi import MapType
from tracekit.kernel.procfs import CLK_TCK, ProcFS
from tracekit.pipeline import Pipeline, StageContext
from tracekit.pipeline.evict import Evict, EvictConfig, EvictResult, evict_stale, iter_evict
from tracekit.session.pids import PidsMap, PidUpkeep

from .helpers import Collect, sc

pytestmark = pytest.mark.kernel
NS_PER_TICK = 1_000_000_000 // CLK_TCK
PID_MAX = int(Path("/proc/sys/kernel/pid_max").read_text())


def key(tid: int) -> bytes:
    return tid.to_bytes(4, "little")


def tids_of(m: Map) -> set[int]:
    return {int.from_bytes(k, "little") for k in m.keys()}


@pytest.fixture
def pids_map() -> Iterator[Map]:
    with Map.create("test_pids", MapType.HASH, 4, PID_INFO.size, 4096) as m:
        yield m


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs = [subprocess.Popen(["sleep", "60"]) for _ in range(4)]
    yield procs
    for p in procs:
        p.kill()
        p.wait()


def start_ns(procfs: ProcFS, tid: int) -> int:
    st = procfs.start_state(tid)
    assert st is not None
    return st[0] * NS_PER_TICK


def test_walk_deletes_dead_reused_and_zombies_keeps_live(
        pids_map: Map, sleepers: list[subprocess.Popen[bytes]]) -> None:
    procfs = ProcFS()
    live, reused, zombie, pending = sleepers
    zombie.kill()
    os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)   # exited, not reaped: Z
    pids_map[key(live.pid)] = PID_INFO.pack(start_ns(procfs, live.pid), live.pid, 0)
    # the same tid, but the entry's task started 5 ticks earlier: another task (reuse)
    pids_map[key(reused.pid)] = PID_INFO.pack(start_ns(procfs, reused.pid) - 5 * NS_PER_TICK,
                                              reused.pid, 0)
    pids_map[key(zombie.pid)] = PID_INFO.pack(0, zombie.pid, 0)
    pids_map[key(pending.pid)] = PID_INFO.pack(0, pending.pid, 1)   # start unknown: kept
    dead = [PID_MAX + 1 + i for i in range(1000)]                  # never exist
    for t in dead:
        pids_map[key(t)] = PID_INFO.pack(NS_PER_TICK, t, 0)
    m = CountingMap(pids_map)
    res = evict_stale(PidsMap(m), procfs)  # type: ignore[arg-type]
    assert (res.visited, res.kept, res.dead, res.reused, res.restarts) == (1004, 2, 1001, 1, 0)
    assert tids_of(pids_map) == {live.pid, pending.pid}
    assert m.calls == 0                      # read in batches: no get_next_key walk


def test_entries_the_kernel_changes_during_the_pass_are_left_to_it(
        pids_map: Map, sleepers: list[subprocess.Popen[bytes]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the snapshot and the deletes, BPF deletes one stale key (its task's exit)
    and gives another stale tid to a new task (a fork): the first is counted neither
    kept nor deleted, the second is put back with BPF's value."""
    procfs = ProcFS()
    for p in sleepers:
        pids_map[key(p.pid)] = PID_INFO.pack(start_ns(procfs, p.pid), p.pid, 0)
    dead = [PID_MAX + 1 + i for i in range(300)]
    for t in dead:
        pids_map[key(t)] = PID_INFO.pack(NS_PER_TICK, t, 0)
    reborn = PID_INFO.pack(99 * NS_PER_TICK, dead[1], 0)
    pids = PidsMap(pids_map)
    real_sweep = pids.sweep

    def sweep(decide: Any, result: Any, *, chunk: int = 4096) -> Any:
        def decide_then_race(entries: Any) -> Any:
            doomed = decide(entries)
            assert pids_map.delete_elem(key(dead[0]))         # BPF: that task exited
            pids_map[key(dead[1])] = reborn                   # BPF: a new task, same tid
            return doomed
        return real_sweep(decide_then_race, result, chunk=chunk)

    monkeypatch.setattr(pids, "sweep", sweep)
    res = EvictResult()
    for _ in iter_evict(pids, procfs, res, chunk=64):
        pass
    n = len(sleepers) + len(dead)
    assert (res.visited, res.dead, res.deleted) == (n, 300, 298)
    assert res.kept == len(sleepers) + 1                      # the reborn tid's entry
    assert tids_of(pids_map) == {p.pid for p in sleepers} | {dead[1]}
    assert pids_map[key(dead[1])] == reborn


@pytest.mark.parametrize("missing", ["map_lookup_batch", "map_lookup_and_delete_elems"])
def test_kernels_without_the_batched_commands_evict_the_same(
        pids_map: Map, sleepers: list[subprocess.Popen[bytes]],
        monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    """Before Linux 5.6 (no lookup batch for hash maps: the get_next_key walk) and 5.14
    (no lookup-and-delete: a lookup, then a delete)."""
    from tracekit._errors import MapError
    from tracekit.bpf import sys as _bpf

    def unsupported(*a: Any, **k: Any) -> Any:
        raise MapError(f"BPF_{missing.upper()}", errno.EINVAL, "not on this kernel")

    monkeypatch.setattr(_bpf, missing, unsupported)
    procfs = ProcFS()
    for p in sleepers:
        pids_map[key(p.pid)] = PID_INFO.pack(start_ns(procfs, p.pid), p.pid, 0)
    for t in range(PID_MAX + 1, PID_MAX + 501):
        pids_map[key(t)] = PID_INFO.pack(NS_PER_TICK, t, 0)
    m = CountingMap(pids_map)
    res = evict_stale(PidsMap(m), procfs)  # type: ignore[arg-type]
    assert (res.visited, res.kept, res.dead, res.deleted) == (504, 4, 500, 500)
    assert tids_of(pids_map) == {p.pid for p in sleepers}
    assert (m.calls > 0) == (missing == "map_lookup_batch")   # the walk, or batches


class Gate:
    """A source: one batch, then waits for ``release``."""

    name = "gate"

    def __init__(self) -> None:
        self.release = trio.Event()

    async def run(self, ctx: StageContext, send: Any, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with send:
            task_status.started()
            await send.send([sc(0)])
            await self.release.wait()


async def wait_for(cond: Any) -> None:
    while not cond():
        await trio.sleep(0.005)


async def test_stage_walks_after_attach_on_request_and_periodically(pids_map: Map) -> None:
    upkeep = PidUpkeep(PidsMap(pids_map), ProcFS())
    pids_map[key(PID_MAX + 1)] = PID_INFO.pack(0, PID_MAX + 1, 0)
    evict = Evict(EvictConfig(interval_s=3600), upkeep=upkeep)
    gate, sink = Gate(), Collect()
    pipeline = Pipeline(gate, [evict], [sink])
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pipeline.run)
            await wait_for(lambda: pipeline.stats["evict"].counters.get("walks") == 1)
            assert tids_of(pids_map) == set()            # the walk right after start
            pids_map[key(PID_MAX + 2)] = PID_INFO.pack(0, PID_MAX + 2, 0)
            evict.request()
            await wait_for(lambda: pipeline.stats["evict"].counters.get("walks") == 2)
            assert tids_of(pids_map) == set()
            # a short period walks on its own
            evict.cfg = EvictConfig(interval_s=0.01)
            pids_map[key(PID_MAX + 3)] = PID_INFO.pack(0, PID_MAX + 3, 0)
            evict.request()
            await wait_for(lambda: pipeline.stats["evict"].counters.get("walks", 0) >= 5)
            gate.release.set()
    counters = pipeline.stats["evict"].counters
    assert counters["evicted_dead"] == 3 and counters["evicted_reused"] == 0
    assert [e.args[0] for e in sink.events] == [0]      # events pass through unchanged


async def test_stage_needs_a_session() -> None:
    gate = Gate()
    gate.release.set()
    with pytest.raises(Exception, match="needs a tracing session") as ei:
        with trio.fail_after(5):
            await Pipeline(gate, [Evict()], [Collect()]).run()
    assert "evict" in str(ei.value)
