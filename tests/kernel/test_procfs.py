"""ProcFS against real tasks the test creates (threads, child processes, grandchildren)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tracekit.kernel.procfs import CLK_TCK, ProcFS

# A process tree: the child starts 2 threads and one grandchild process (which starts 1
# thread), prints "<child tgid> <its tids> / <grandchild tgid>" and waits on stdin.
_TREE = textwrap.dedent("""
    import os, subprocess, sys, threading
    ev = threading.Event()
    ts = [threading.Thread(target=ev.wait) for _ in range(2)]
    for t in ts: t.start()
    gc = subprocess.Popen([sys.executable, "-c",
        "import sys, threading; e = threading.Event(); "
        "t = threading.Thread(target=e.wait, daemon=True); t.start(); "
        "print(t.native_id, flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    gc_thread = int(gc.stdout.readline())
    print(os.getpid(), *sorted([threading.get_native_id()] + [t.native_id for t in ts]),
          "/", gc.pid, gc_thread, flush=True)
    sys.stdin.read()
    gc.stdin.close(); gc.wait(); ev.set()
""")


@pytest.fixture
def tree() -> Iterator[tuple[int, list[int], int, int]]:
    with subprocess.Popen([sys.executable, "-c", _TREE], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stdin is not None
        words = proc.stdout.readline().split()
        slash = words.index("/")
        tgid, tids = int(words[0]), [int(w) for w in words[1:slash]]
        yield tgid, tids, int(words[slash + 1]), int(words[slash + 2])
        proc.stdin.close()
        proc.wait(timeout=30)


def test_threads_of_this_process() -> None:
    ev = threading.Event()
    ts = [threading.Thread(target=ev.wait) for _ in range(3)]
    for t in ts:
        t.start()
    try:
        procfs = ProcFS()
        tids = procfs.threads(os.getpid())
        assert {t.native_id for t in ts} | {threading.get_native_id()} <= set(tids)
        assert tids == sorted(tids)
        assert procfs.stats.dir_reads == 1 and procfs.stats.entries_read == len(tids)
        for t in ts:
            assert procfs.tgid_of(t.native_id) == os.getpid()
    finally:
        ev.set()
        for t in ts:
            t.join()


def test_tree(tree: tuple[int, list[int], int, int]) -> None:
    tgid, tids, gc_tgid, gc_thread = tree
    procfs = ProcFS()
    assert procfs.threads(tgid) == tids
    kids = [c for tid in tids for c in procfs.children(tid)]
    assert kids == [gc_tgid]
    procfs = ProcFS()
    desc = procfs.descendants(tgid)
    assert desc[:len(tids)] == tids
    assert set(desc[len(tids):]) == {gc_tgid, gc_thread}
    assert len(desc) == len(set(desc))
    # each thread group's task dir read once: 2 groups -> 2 listings
    assert procfs.stats.dir_reads == 2
    assert procfs.stats.entries_read == len(desc)
    assert procfs.stats.files_read == len(desc)            # one children file per thread


def test_stat_agrees_with_ps(tree: tuple[int, list[int], int, int]) -> None:
    tgid, tids, gc_tgid, gc_thread = tree
    procfs = ProcFS()
    st = procfs.stat(tids[-1])
    assert st is not None
    assert (st.tid, st.tgid, st.ppid) == (tids[-1], tgid, os.getpid())
    gst = procfs.stat(gc_thread)
    assert gst is not None and (gst.tgid, gst.ppid) == (gc_tgid, tgid)
    # ps reads the same kernel fields; compare start time (ticks) and state
    out = subprocess.run(["ps", "-o", "ppid=,stat=,comm=", "-p", str(tgid)],
                         capture_output=True, text=True, check=True).stdout.split()
    lead = procfs.stat(tgid)
    assert lead is not None
    assert int(out[0]) == lead.ppid == os.getpid()
    assert {out[1][0], lead.state} <= {"R", "S"}     # both saw a live task (racy: R or S)
    assert out[2] == lead.comm
    assert lead.start_time_ns == lead.start_time_ticks * 1_000_000_000 // CLK_TCK
    with open("/proc/uptime") as f:
        uptime_s = float(f.read().split()[0])
    assert 0 <= uptime_s - lead.start_time_ns / 1e9 < 120


def test_stat_comm_with_spaces_and_parens() -> None:
    comm = "a) (b c)"
    with subprocess.Popen([sys.executable, "-c",
                           "import sys; open('/proc/self/comm', 'w').write(sys.argv[1]); "
                           "print(flush=True); sys.stdin.read()", comm],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stdin is not None
        proc.stdout.readline()
        st = ProcFS().stat(proc.pid)
        proc.stdin.close()
    assert st is not None
    assert st.comm == comm
    assert (st.tid, st.tgid, st.ppid) == (proc.pid, proc.pid, os.getpid())
    assert st.state in ("R", "S")          # about to block on stdin, or blocked


def test_gone_tasks_are_not_errors() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)                   # reaped: its pid is free (until reused)
    procfs = ProcFS()
    # pid reuse within this test is possible but unlikely; retry once if it happened
    for _ in range(2):
        if not procfs.exists(proc.pid):
            break
        time.sleep(0.1)
    else:
        pytest.skip(f"pid {proc.pid} was reused")
    assert procfs.threads(proc.pid) == []
    assert procfs.children(proc.pid) == []
    assert procfs.descendants(proc.pid) == []
    assert procfs.stat(proc.pid) is None
    assert procfs.tgid_of(proc.pid) is None


def test_zombie_exists_until_reaped() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    procfs = ProcFS()
    deadline = time.monotonic() + 30
    while (st := procfs.stat(proc.pid)) is not None and st.state != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert st is not None and st.state == "Z"
    assert procfs.exists(proc.pid)
    proc.wait(timeout=30)
    assert not procfs.exists(proc.pid)


def test_root_is_a_path(tmp_path: Path) -> None:
    (tmp_path / "42" / "task" / "42").mkdir(parents=True)
    (tmp_path / "42" / "task" / "43").mkdir()
    (tmp_path / "42" / "task" / "42" / "children").write_text("50 51 ")
    procfs = ProcFS(tmp_path)
    assert procfs.threads(42) == [42, 43]
    assert procfs.children(42) == [50, 51]
    assert procfs.descendants(42) == [42, 43]      # 50, 51 have no task dirs: gone


def test_start_state_through_the_threads_own_file(tree: tuple[int, list[int], int, int]
                                                  ) -> None:
    # /proc/TGID/task/TID/stat gives a thread the start time /proc/TID/stat does, and
    # names nobody under another process
    tgid, tids, gc_tgid, gc_thread = tree
    procfs = ProcFS()
    for tid in tids:
        assert procfs.start_state(tid, tgid) == procfs.start_state(tid)
        assert procfs.live_start_ticks(tid, tgid) == procfs.live_start_ticks(tid)
    assert procfs.start_state(gc_thread, gc_tgid) == procfs.start_state(gc_thread)
    assert procfs.start_state(gc_thread, tgid) is None
    assert procfs.live_start_ticks(tids[-1], gc_tgid) is None
