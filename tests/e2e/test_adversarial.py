"""Adversarial kernel tests: a ring buffer far too small (lost records are counted exactly),
strace on the same workload, a workload killed by SIGKILL, SIGKILL of tracekit itself, and
a reader that closes stdout early. Each starts and traces only its own processes.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import msgspec
import pytest

from tests._run import (
    TRACEKIT,
    prog_ids_of,
    read_events,
    run_tracekit,
    wait_gone,
    write_pipeline,
)
from tracekit._events import Exec, Exit, Lost, Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel

GETPPID = SyscallTable().nr("getppid")




def _getppid_pipeline(tmp_path: Path, buffer_pages: int = 1024) -> Path:
    return write_pipeline(tmp_path, f"""\
        buffer_pages = {buffer_pages}
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "jsonl"
        """)


def test_tiny_ring_buffer_counts_every_lost_record(tmp_path: Path, loop: Path) -> None:
    n = 300_000
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", str(_getppid_pipeline(tmp_path, buffer_pages=2)),
                        "-o", str(out), "--", str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    events = read_events(out)
    lost = sum(e.count for e in events if isinstance(e, Lost))
    calls = [e for e in events if isinstance(e, Syscall)]
    assert all(e.syscall_nr == GETPPID for e in calls)
    lifecycle = [e for e in events if isinstance(e, Exec | Exit)]
    # Every record the kernel tried to write (n getppid + exec + exit) is delivered or lost.
    assert len(calls) + len(lifecycle) + lost == n + 2
    assert lost > 0, "a 2-page ring buffer kept up with a getppid loop: make n larger"
    assert f"LOST {lost} records" in res.stderr


def test_strace_and_tracekit_on_one_process_both_see_every_call(tmp_path: Path,
                                                                 loop: Path) -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    n = 3000
    out, st = tmp_path / "out.jsonl", tmp_path / "strace.txt"
    res = run_tracekit(["run", str(_getppid_pipeline(tmp_path)), "-o", str(out), "--",
                        "strace", "-f", "-qq", "-e", "trace=getppid", "-o", str(st),
                        str(loop), str(n)])
    assert res.returncode == 0, res.stderr
    assert st.read_text().count("getppid()") == n
    by_comm = [e.comm for e in read_events(out) if isinstance(e, Syscall)]
    assert by_comm.count("loop") == n


def test_command_killed_by_sigkill_gives_137(tmp_path: Path) -> None:
    res = run_tracekit(["run", str(_getppid_pipeline(tmp_path)), "-o", str(tmp_path / "o"),
                        "--", "sh", "-c", "kill -9 $$"])
    assert res.returncode == 128 + signal.SIGKILL, res.stderr
    assert res.stderr == ""


def test_sigkill_of_tracekit_leaves_no_prog(tmp_path: Path, loop: Path) -> None:
    out = tmp_path / "out.jsonl"
    p = subprocess.Popen([*TRACEKIT, "run", str(_getppid_pipeline(tmp_path)), "-o", str(out),
                          "--", str(loop), "100000000"], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (out.exists() and out.stat().st_size > 0):
            assert time.monotonic() < deadline, "no event within 30 s"
            time.sleep(0.02)
        ids = prog_ids_of(p.pid)
        workload = [e.tid for e in read_events_prefix(out) if isinstance(e, Exec)]
    finally:
        p.kill()
        p.wait()
    assert len(ids) >= 5
    for prog_id in ids:
        wait_gone("prog", prog_id)
    for tid in workload:  # the untraced workload goes on; end it here
        try:
            os.kill(tid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def read_events_prefix(path: Path) -> list[object]:
    """The whole JSON lines of a file another process is still writing."""
    dec = msgspec.json.Decoder(Syscall | Exec | Exit | Lost)
    return [dec.decode(line) for line in path.read_bytes().split(b"\n")[:-1] if line]


def test_pid_target_ends_when_the_reader_closes_stdout(tmp_path: Path, loop: Path) -> None:
    workload = subprocess.Popen([str(loop), "1000000000"])
    try:
        tk = subprocess.Popen([*TRACEKIT, "run", str(_getppid_pipeline(tmp_path)), "-p",
                               str(workload.pid)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        assert tk.stdout is not None
        first = tk.stdout.readline()
        tk.stdout.close()
        _, err = tk.communicate(timeout=30)
    finally:
        workload.kill()
        workload.wait()
    assert b'"syscall_nr":%d' % GETPPID in first
    assert tk.returncode == 128 + signal.SIGPIPE, err  # the reader went away (README)
    assert b"Traceback" not in err
