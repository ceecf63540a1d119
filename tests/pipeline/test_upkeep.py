"""Which pid-upkeep stages a trace runs by default, and that a pid trace really gets them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import trio

from tracekit.app.trace import LiveTrace
from tracekit.kernel.procfs import ProcFS
from tracekit.pipeline import map_stage
from tracekit.pipeline.evict import Evict, EvictConfig
from tracekit.pipeline.reconcile import Reconcile
from tracekit.pipeline.upkeep import default_upkeep_stages
from tracekit.session.pids import PidInfo, Target, TaskId
from tracekit.session.session import SessionOptions

PID_MAX = int(Path("/proc/sys/kernel/pid_max").read_text())


def names(stages: list[object]) -> list[str]:
    return [type(s).__name__ for s in stages]


@pytest.mark.parametrize("target", [Target(pids=(1,)), Target(tids=(1,)),
                                    Target(pids=(1,), follow_forks=False)],
                         ids=["pid", "tid", "pid-no-follow"])
def test_pid_and_tid_targets_get_eviction(target: Target) -> None:
    assert names(default_upkeep_stages(target)) == ["Evict"]
    # with other stages asked for, eviction still comes (first)
    assert names(default_upkeep_stages(target, [Reconcile()])) == ["Evict"]


@pytest.mark.parametrize("target", [Target(), Target(system_wide=True)],
                         ids=["command", "system-wide"])
def test_command_and_system_wide_targets_get_no_upkeep_stage(target: Target) -> None:
    assert default_upkeep_stages(target) == []


def test_an_evict_stage_asked_for_is_not_added_twice() -> None:
    mine = Evict(EvictConfig(interval_s=0.5))
    assert default_upkeep_stages(Target(pids=(1,)), [mine]) == []
    # a user stage that took the name blocks the default too (names are unique)
    taken = map_stage(lambda b: b, name="evict")
    assert default_upkeep_stages(Target(pids=(1,)), [taken]) == []


def test_session_options_name_the_target() -> None:
    me = os.getpid()
    opts = SessionOptions(tids=[me], follow_forks=False)
    # identified when named: (tid, start time), so pid reuse cannot swap the target
    assert opts.named == (TaskId(me, ProcFS().live_start_ticks(me) or -1),)
    assert opts.target() == Target(tids=(me,), follow_forks=False, named=opts.named)
    assert not SessionOptions(command=["true"]).target().by_id


@pytest.mark.kernel
async def test_a_pid_trace_evicts_stale_keys_without_asking() -> None:
    target = subprocess.Popen(["sleep", "60"])
    trace = LiveTrace(SessionOptions(pids=[target.pid]))
    try:
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                await nursery.start(trace.run)
                assert trace.session is not None and trace.pipeline is not None
                # a key no task owns (beyond pid_max), as a task that died before its
                # insert leaves; the periodic walk (every 1 s) must take it out
                stale = PID_MAX + 1
                counters = trace.pipeline.stats["evict"].counters
                before = counters.get("evicted_dead", 0)
                assert trace.session.pids.add(stale, PidInfo(0, stale))
                # the walk counts when it ends, a checkpoint after it deleted the
                # key: wait for the count, then check the map
                while counters.get("evicted_dead", 0) <= before:
                    await trio.sleep(0.02)
                assert stale not in trace.session.pids
                assert target.pid in trace.session.pids
                trace.stop()
    finally:
        target.kill()
        target.wait()
