"""tracekit beside other tracers of the same syscalls: strace on the same process, and three
tracekits, perf trace and an ftrace instance at once, each seeing exactly its own workload.

Every test traces only processes it started.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._run import (
    TRACEKIT,
    getppid_pipeline,
    read_events,
    run_tracekit,
    tracekit_env,
    write_pipeline,
)
from tracekit._events import Lost, Syscall
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import find_tracefs

pytestmark = pytest.mark.kernel

TABLE = SyscallTable()
GETPPID, READ = TABLE.nr("getppid"), TABLE.nr("read")


def test_strace_and_tracekit_on_one_process_both_see_every_call(tmp_path: Path,
                                                                 loop: Path) -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    n = 3000
    out, st = tmp_path / "out.jsonl", tmp_path / "strace.txt"
    res = run_tracekit(["run", str(getppid_pipeline(tmp_path)), "-o", str(out), "--",
                        "strace", "-f", "-qq", "-e", "trace=getppid", "-o", str(st),
                        str(loop), str(n)])
    assert res.returncode == 0, res.stderr
    assert st.read_text().count("getppid()") == n
    by_comm = [e.comm for e in read_events(out) if isinstance(e, Syscall)]
    assert by_comm.count("loop") == n


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(c) for c in text.split()]


# The loop (tests/conftest.py) makes argv[1] getppid calls; with argv[2], it first waits
# for one byte on stdin (a start gate the test opens once every tracer is attached).
def _wait_gated(pid: int, parent: bool, timeout: float = 60) -> int:
    """The pid of the loop (``pid`` itself, or its child when ``parent``) once it is
    blocked reading its start gate."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in _children(pid) if parent else [pid]:
            try:
                comm = Path(f"/proc/{p}/comm").read_text().strip()
                nr = Path(f"/proc/{p}/syscall").read_text().split()[0]
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if comm == "loop" and nr == str(READ):
                return p
        time.sleep(0.01)
    raise AssertionError(f"no gated loop under pid {pid} within {timeout} s")


@pytest.fixture
def ftrace_instance() -> Iterator[Path]:
    """A tracefs instance of this test's own (never the global buffer); removed after."""
    root = find_tracefs()
    inst = root / "instances" / f"tracekit_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    inst.mkdir()
    try:
        yield inst
    finally:
        enable = inst / "events" / "raw_syscalls" / "sys_enter" / "enable"
        if enable.exists():
            enable.write_text("0")
        inst.rmdir()


def test_three_tracekits_perf_and_ftrace_each_see_only_their_workload(
        tmp_path: Path, loop: Path, ftrace_instance: Path) -> None:
    perf = shutil.which("perf")
    if perf is None:
        pytest.skip("perf is not installed")
    counts = {"tk0": 4001, "tk1": 4003, "tk2": 4007, "perf": 4013, "ftrace": 4019}
    pipeline = write_pipeline(tmp_path, """\
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "jsonl"
        """)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for name in ("tk0", "tk1", "tk2"):
            procs[name] = subprocess.Popen(
                [*TRACEKIT, "run", str(pipeline), "-o", str(tmp_path / f"{name}.jsonl"),
                 "--", str(loop), str(counts[name]), "gate"],
                stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=tracekit_env())
        procs["perf"] = subprocess.Popen(
            [perf, "trace", "-e", "getppid", "-o", str(tmp_path / "perf.txt"), "--",
             str(loop), str(counts["perf"]), "gate"],
            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        procs["ftrace"] = subprocess.Popen([str(loop), str(counts["ftrace"]), "gate"],
                                           stdin=subprocess.PIPE)
        loops = {name: _wait_gated(p.pid, parent=name != "ftrace")
                 for name, p in procs.items()}
        # ftrace: raw_syscalls in our instance, for the gated loop's pid and getppid only
        event = ftrace_instance / "events" / "raw_syscalls" / "sys_enter"
        (ftrace_instance / "buffer_size_kb").write_text("2048")
        (ftrace_instance / "set_event_pid").write_text(str(loops["ftrace"]))
        (event / "filter").write_text(f"id == {GETPPID}")
        (event / "enable").write_text("1")
        for p in procs.values():   # open every gate, then let them all run at once
            assert p.stdin is not None
            p.stdin.write(b"g")
            p.stdin.close()
        errs = {}
        for name, p in procs.items():
            errs[name] = p.stderr.read().decode() if p.stderr else ""
            p.wait(timeout=120)
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
            for f in (p.stdin, p.stderr):
                if f is not None:
                    f.close()
    for name, p in procs.items():
        assert p.returncode == 0, (name, errs[name])
    (event / "enable").write_text("0")
    for name in ("tk0", "tk1", "tk2"):
        events = read_events(tmp_path / f"{name}.jsonl")
        calls = [e for e in events if isinstance(e, Syscall)]
        assert {(e.syscall_nr, e.tid) for e in calls} == {(GETPPID, loops[name])}, name
        assert len(calls) == counts[name], name
        assert not any(isinstance(e, Lost) for e in events), name
    perf_lines = (tmp_path / "perf.txt").read_text().splitlines()
    assert sum(" getppid(" in line for line in perf_lines) == counts["perf"]
    # perf prints a task as comm/tid, or as :pid/tid while it has not resolved the comm
    me = (f"loop/{loops['perf']} ", f":{loops['perf']}/{loops['perf']} ")
    assert all(any(m in line for m in me) for line in perf_lines if "getppid(" in line), [
        line for line in perf_lines if "getppid(" in line and not any(m in line for m in me)
    ][:3]
    trace = (ftrace_instance / "trace").read_text().splitlines()
    mine = [line for line in trace if f": sys_enter: NR {GETPPID} (" in line]
    assert len(mine) == counts["ftrace"]
    assert all(f"-{loops['ftrace']} " in line for line in mine)
