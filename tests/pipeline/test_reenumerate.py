"""/proc re-enumeration (kernel rule 4) against real process trees, on a loaded session
whose programs are not attached (so only the /proc walk and the pids map are exercised).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.session.test_follow import Workload, build_workload
from tracekit.session.pids import PidUpkeep, reenumerate
from tracekit.session.session import Session, SessionOptions

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/workloads/follow_tasks.c compiled with gcc."""
    return build_workload(tmp_path_factory.mktemp("follow"))


@pytest.fixture
def start() -> Iterator[Any]:
    started: list[Any] = []

    def make(path: Path, *args: object) -> Workload:
        w = Workload(path, *args)
        started.append(w)
        return w

    yield make
    for w in started:
        w.close()


@pytest.fixture
def loaded() -> Iterator[Any]:
    sessions: list[Session] = []

    def make(**kw: Any) -> Session:
        s = Session(SessionOptions(**kw))
        sessions.append(s)
        s._load()              # maps and programs loaded, nothing attached
        return s

    yield make
    for s in sessions:
        s.close()


def upkeep(s: Session) -> PidUpkeep:
    u = s.upkeep
    assert u is not None
    return u


def tree_by_ppid(root: int) -> dict[int, int]:
    """``{tid: tgid}`` of ``root`` and its descendants, from a scan of every task in /proc
    linked by stat's ppid field (another method than the walk under test)."""
    tasks: dict[int, tuple[int, int]] = {}        # tid -> (tgid, ppid)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for tid in os.listdir(f"/proc/{entry}/task"):
                # any task may have any bytes in its comm (another test names its own so)
                stat = Path(f"/proc/{entry}/task/{tid}/stat").read_text(errors="surrogateescape")
                ppid = int(stat.rpartition(")")[2].split()[1])
                tasks[int(tid)] = (int(entry), ppid)
        except FileNotFoundError:
            continue
    groups = {root}
    changed = True
    while changed:
        changed = False
        for tgid, ppid in tasks.values():
            if ppid in groups and tgid not in groups:
                groups.add(tgid)
                changed = True
    return {tid: tgid for tid, (tgid, _) in tasks.items() if tgid in groups}


def test_tree_every_thread_and_descendant_once(exe: Path, start: Any, loaded: Any) -> None:
    w = start(exe, "spawn", 3, 2, 3, 0)       # 4 threads; 2 chains of 3 processes
    w.expect("spawned")
    deadline = time.monotonic() + 10        # the deeper levels fork on their own time
    while len(expected := tree_by_ppid(w.pid)) < 4 + 2 * 3:
        assert time.monotonic() < deadline, expected
        time.sleep(0.01)
    assert len(expected) == 4 + 2 * 3
    s = loaded(pids=[w.pid])
    res = reenumerate(upkeep(s), only_new=False)
    assert dict(res.added) == expected
    assert len(res.added) == len(expected)              # no tid twice
    groups = len(set(expected.values()))
    st = s.procfs.stats
    # one task-dir listing per thread group; per task: its children file and its stat;
    # the target's stat (is it still the process named? pid reuse)
    assert (st.dir_reads, st.entries_read, st.files_read) == (
        groups, len(expected), 2 * len(expected) + 1)
    assert {t: v[1] for t, v in s.pid_entries().items()} == expected
    # Again, after "attach": nothing new; only the children files are read
    before = st.files_read
    res2 = reenumerate(upkeep(s), only_new=True)
    assert (res2.added, res2.present, res2.gone) == ([], len(expected), 0)
    assert st.files_read - before == len(expected) + 1


def test_tid_target_never_adds_siblings(exe: Path, start: Any, loaded: Any) -> None:
    w = start(exe, "sibling")
    a, b = map(int, w.expect("tids ").split()[1:])
    s = loaded(tids=[a])
    res = reenumerate(upkeep(s), only_new=False)
    assert res.added == [(a, w.pid)]
    assert set(s.pid_entries()) == {a}


def test_full_map_inserts_what_fits_and_counts_the_rest_once(exe: Path, start: Any,
                                                             loaded: Any) -> None:
    w = start(exe, "threads", 10)
    w.expect("spawned")
    s = loaded(pids=[w.pid], pids_max_entries=4)
    res = reenumerate(upkeep(s), only_new=False)
    assert (len(res.added), len(res.not_added)) == (4, 6)
    res2 = reenumerate(upkeep(s), only_new=True)
    assert (res2.added, len(res2.not_added), res2.present) == ([], 6, 4)
    assert s.not_added == 6                    # the same 6 tids, not 12
    assert s.not_added_tids == set(res.not_added)


def test_zombie_target_is_gone_not_added(loaded: Any) -> None:
    p = subprocess.Popen(["true"])
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: a zombie
    try:
        s = loaded(pids=[p.pid])
        res = reenumerate(upkeep(s), only_new=False)
        assert (res.added, res.gone, res.gone_targets) == ([], 1, [p.pid])
    finally:
        p.wait()
