"""A fifo as the output: tracekit waits for a reader, as open(2) does, and a signal
during that wait ends it at once with 128+N (nothing had started: no BPF object, no
command); a reader that comes gets the whole trace.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env

pytestmark = pytest.mark.kernel


def _waiting_in_open(proc: subprocess.Popen[str], fifo: Path, timeout: float = 30) -> None:
    """Until ``proc`` has tried the fifo (its wait is the 50 ms poll; the fifo shows in
    no fd of it yet), or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            # the wait runs after the config is read: the thread that takes signals exists
            threads = os.listdir(f"/proc/{proc.pid}/task")
        except FileNotFoundError:
            threads = []
        if len(threads) >= 2:
            time.sleep(0.5)     # well inside the wait (start-up reads no fifo)
            return
        time.sleep(0.05)
    pytest.fail("tracekit did not get to its output")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_wait_for_a_fifo_reader(tmp_path: Path, sig: int) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    marker = tmp_path / "ran"
    proc = subprocess.Popen([*TRACEKIT, "run", "-o", str(fifo), "--", "touch", str(marker)],
                            stderr=subprocess.PIPE, text=True, env=tracekit_env(),
                            preexec_fn=die_with_parent)
    try:
        _waiting_in_open(proc, fifo)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert not marker.exists()          # the command never ran


def test_a_reader_that_comes_gets_the_trace(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([*TRACEKIT, "run", "-e", "getppid", "-o", str(fifo), "--",
                             sys.executable, "-c", "import os; [os.getppid() for _ in range(5)]"],
                            stderr=subprocess.PIPE, text=True, env=tracekit_env(),
                            preexec_fn=die_with_parent)
    try:
        _waiting_in_open(proc, fifo)
        with open(fifo, "rb") as reader:
            text = reader.read().decode()
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    assert text.count(" getppid(") == 5, text
