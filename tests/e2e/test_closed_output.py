"""A reader that closes tracekit's stdout early ends the trace with the status of SIGPIPE
(128 + 13, README "Exit status") and no traceback.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, getppid_pipeline, write_pipeline
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel

GETPPID = SyscallTable().nr("getppid")


def test_pid_target_ends_when_the_reader_closes_stdout(tmp_path: Path, loop: Path) -> None:
    workload = subprocess.Popen([str(loop), "1000000000"])
    try:
        tk = subprocess.Popen([*TRACEKIT, "run", str(getppid_pipeline(tmp_path)), "-p",
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


def test_a_quiet_command_does_not_keep_a_closed_output_waiting(tmp_path: Path) -> None:
    """The reader goes away after every line has already been written into the pipe, and
    the command then sleeps: tracekit has nothing more to write, yet it sees the reader
    gone (poll) and ends with 141 instead of waiting for the command's status (7), and
    the command it started gets SIGPIPE (as strace's cleanup sends it), not left running
    untraced."""
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [output]
        format = "perf"
    """)
    script = "for i in $(seq 20); do echo $i >/dev/null; done; exec sleep 30"
    errfile = tmp_path / "stderr"
    with errfile.open("wb") as errf:  # the command inherits it: no pipe to wait on
        tk = subprocess.Popen([*TRACEKIT, "run", str(cfg), "--", "sh", "-c", script + "; exit 7"],
                              stdout=subprocess.PIPE, stderr=errf, start_new_session=True)
    try:
        assert tk.stdout is not None
        head = [tk.stdout.readline() for _ in range(2)]
        time.sleep(1.0)                        # the rest (< 64 KiB) waits in the pipe
        tk.stdout.close()                      # the reader goes away, as `| head -2` does
        tk.wait(timeout=20)                    # the command sleeps 30 s: 141 comes before
        err = errfile.read_bytes()
    finally:
        tk.kill()
        tk.wait()
        deadline = time.monotonic() + 10
        while True:                            # the command's group (its own session)
            try:
                os.killpg(tk.pid, 0)
            except ProcessLookupError:
                left = False
                break
            if time.monotonic() > deadline:
                left = True
                os.killpg(tk.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
    assert all(b" ms): " in line for line in head), head
    assert tk.returncode == 128 + signal.SIGPIPE, err
    assert b"Traceback" not in err
    assert not left, "the command was left running after tracekit ended"


def _blocked_in_pipe_write(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read().endswith("pipe_write")     # anon_pipe_write since 6.15
    except OSError:
        return False


def test_a_stop_while_stdout_is_full_loses_no_line() -> None:
    """Under PYTHONUNBUFFERED=1 stdout's binary layer is the raw FileIO: a write blocked
    on a full pipe that a stop signal interrupts returns the part written (write(2)), and
    the rest of the batch was dropped without a word (one line cut, thousands missing,
    status 0). Stopped and continued three times with the pipe full: every call is there,
    every line whole."""
    n = 20000
    code = f"import os,time\ntime.sleep(0.5)\nfor _ in range({n}): os.getppid()"
    with subprocess.Popen([*TRACEKIT, "run", "-F", "jsonl", "-e", "getppid", "--",
                           sys.executable, "-c", code],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=dict(os.environ, PYTHONUNBUFFERED="1")) as tk:
        assert tk.stdout is not None and tk.stderr is not None
        chunks = []
        try:
            for _ in range(3):
                deadline = time.monotonic() + 30
                while not _blocked_in_pipe_write(tk.pid):
                    assert time.monotonic() < deadline and tk.poll() is None, \
                        "tracekit never blocked on its full stdout"
                    time.sleep(0.005)
                tk.send_signal(signal.SIGSTOP)
                time.sleep(0.1)
                tk.send_signal(signal.SIGCONT)
                chunks.append(tk.stdout.read(70000))    # room for the next batch to block
            out = tk.stdout.read()      # to the end (not communicate(): it reads the fd,
            err = tk.stderr.read()      # past what this buffered reader holds)
            tk.wait(timeout=60)
        finally:
            if tk.poll() is None:
                tk.kill()
    lines = (b"".join(chunks) + out).splitlines()
    events = [json.loads(line) for line in lines]      # every line whole
    assert sum(e.get("syscall_nr") == GETPPID for e in events) == n, err.decode()
    assert tk.returncode == 0, err.decode()


@pytest.mark.parametrize("front", ["run", "strace"])
def test_a_reader_gone_is_not_reported_as_a_second_signal(front: str) -> None:
    """`| head -1` on a busy trace: 141, and nothing on stderr, where it used to say that
    records were not decoded because "a second signal ended the trace" (none came: the
    reader wanted no more)."""
    loop = "for i in $(seq 300); do /bin/true; done"
    args = (["run", "--", "sh", "-c", loop] if front == "run" else
            ["strace", "-f", "-o", "/dev/stdout", "sh", "-c", loop])
    tk = subprocess.Popen([*TRACEKIT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True)
    try:
        assert tk.stdout is not None
        first = tk.stdout.readline()
        tk.stdout.close()                      # as `| head -1` does
        _, err = tk.communicate(timeout=30)
    finally:
        tk.kill()
        tk.wait()
        try:
            os.killpg(tk.pid, signal.SIGKILL)  # the command, if it goes on untraced
        except ProcessLookupError:
            pass
    assert b"execve" in first
    assert tk.returncode == 128 + signal.SIGPIPE, err
    assert err == b"", err
