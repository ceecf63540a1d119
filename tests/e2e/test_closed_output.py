"""A reader that closes tracekit's stdout early ends the trace with the status of SIGPIPE
(128 + 13, README "Exit status") and no traceback.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, getppid_pipeline
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
