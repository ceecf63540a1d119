"""The time limit ends the whole workload, as timeout(1) does: SIGTERM to the command,
its process group and every process traced because of it; SIGKILL 2 s later to what is
left. Without a terminal the command runs in a process group of its own (timeout's
default); in the terminal's foreground it shares tracekit's group and keeps the terminal
(timeout --foreground), and its children are still ended.

Every test traces only processes it started, and ends what a failure would leave.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests._pty import PtyJob, state_of
from tests._run import TRACEKIT, run_tracekit, tracekit_env, write_pipeline

pytestmark = pytest.mark.kernel


def _pipeline(tmp_path: Path, seconds: float) -> Path:
    return write_pipeline(tmp_path, f"""\
        timeout_s = {seconds}
        [target]
        command = ["true"]
        [filter]
        syscalls = ["execve", "exit_group"]
        [output]
        format = "jsonl"
        path = "{tmp_path / 'out'}"
        """)


def _pids(tmp_path: Path, *names: str, timeout: float = 30) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            texts = [(tmp_path / n).read_text() for n in names]
            if all(t.endswith("\n") for t in texts):
                return [int(t) for t in texts]
        except FileNotFoundError:
            pass
        assert time.monotonic() < deadline, f"{names} never written"
        time.sleep(0.02)


def _gone(pid: int, timeout: float = 10) -> bool:
    """Whether ``pid`` is gone or a zombie (its parent, init, reaps it soon)."""
    deadline = time.monotonic() + timeout
    while state_of(pid) not in (None, "Z", "X"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _end(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# Starts a child in the same group, one in a session of its own (it left the group: only
# tracekit's list of traced processes finds it), writes their pids, then waits.
FAMILY = ("sleep 60 & echo $! > {d}/a; setsid sleep 60 & echo $! > {d}/b; wait")


def test_time_limit_ends_children_and_those_that_left_the_group(tmp_path: Path) -> None:
    """No terminal: the command's group is its own; children used to be left running."""
    pids: list[int] = []
    try:
        r = run_tracekit(["run", str(_pipeline(tmp_path, 1.5)), "--", "sh", "-c",
                          FAMILY.format(d=tmp_path)], timeout=60)
        pids = _pids(tmp_path, "a", "b")
        assert r.returncode == 128 + signal.SIGTERM, r.stderr
        assert [p for p in pids if not _gone(p)] == []
    finally:
        _end(pids)


def test_time_limit_kills_a_workload_that_ignores_sigterm(tmp_path: Path) -> None:
    """SIGTERM is ignored by the command and its child (inherited SIG_IGN): both get
    SIGKILL 2 s later, and the status is 137."""
    pids: list[int] = []
    try:
        t0 = time.monotonic()
        r = run_tracekit(["run", str(_pipeline(tmp_path, 1)), "--", "sh", "-c",
                          f"trap '' TERM; sleep 60 & echo $! > {tmp_path}/a; wait"],
                         timeout=60)
        took = time.monotonic() - t0
        pids = _pids(tmp_path, "a")
        assert r.returncode == 128 + signal.SIGKILL, r.stderr
        assert _gone(pids[0])
        assert took >= 3            # 1 s limit + 2 s grace
    finally:
        _end(pids)


def test_time_limit_in_the_terminal_foreground_keeps_the_terminal(tmp_path: Path) -> None:
    """tracekit in the terminal's foreground: the command shares its group, so it reads
    the terminal (in a group of its own it would be stopped by SIGTTIN, as under
    timeout(1) without --foreground); its children are still ended at the limit."""
    pids: list[int] = []
    script = (f"echo $$ > {tmp_path}/cmd; sleep 60 & echo $! > {tmp_path}/a; "
              f"read line; echo \"$line\" > {tmp_path}/typed; wait")
    try:
        with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path, 3)), "--", "sh", "-c",
                     script], env=tracekit_env()) as job:
            cmd, child = _pids(tmp_path, "cmd", "a")
            pids = [cmd, child]
            assert os.getpgid(cmd) == job.pid       # tracekit's group, the foreground
            job.keys(b"hello\n")
            assert _pids_text(tmp_path / "typed") == "hello\n"
            status = job.wait()
        assert status == 128 + signal.SIGTERM, bytes(job.output)[-2000:]
        assert _gone(child)
    finally:
        _end(pids)


def _pids_text(path: Path, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text()
