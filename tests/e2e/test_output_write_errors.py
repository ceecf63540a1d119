"""A write to an output that fails (a full device, the file-size limit) ends the run with
one line naming the output, the sink and the errno name, status 1: never a traceback,
an fd number or an unnamed task.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env

pytestmark = pytest.mark.kernel

MANY_CALLS = ["--", sys.executable, "-c", "import os\nfor _ in range(20000): os.getppid()"]


def test_a_full_device_is_one_line_naming_it() -> None:
    r = subprocess.run([*TRACEKIT, "run", "-e", "getppid", "-o", "/dev/full", *MANY_CALLS],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        "tracekit: error: writing '/dev/full': "
        "No space left on device (ENOSPC)"]


def test_the_file_size_limit_is_one_line_naming_the_file(tmp_path: Path) -> None:
    """RLIMIT_FSIZE of 64 KiB and a trace larger than that: EFBIG (Python ignores
    SIGXFSZ, so the write fails instead of killing tracekit), named by the output's path,
    not its temp name or fd."""
    out = tmp_path / "t.txt"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    r = subprocess.run([*TRACEKIT, "run", "-e", "getppid", "-o", str(out), *MANY_CALLS],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60,
                       preexec_fn=limit)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        f"tracekit: error: writing {str(out)!r}: "
        "File too large (EFBIG)"]
    assert 0 < out.stat().st_size <= 64 * 1024      # what fitted is kept


def test_a_recording_to_a_full_device_names_it() -> None:
    r = subprocess.run([*TRACEKIT, "record", "-o", "/dev/full", "--", "true"],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        "tracekit: error: writing '/dev/full': No space left on device (ENOSPC)"]


@pytest.mark.parametrize("argv", [["strace", "-c", "-o", "/dev/full", "true"],
                                  ["strace", "-C", "-o", "/dev/full", "true"],
                                  ["run", "-F", "summary", "-o", "/dev/full", "--", "true"]])
def test_a_summary_to_a_full_device_names_it_as_the_other_outputs_do(argv: list[str]
                                                                    ) -> None:
    """The summary table's write to /dev/full said ``sink 'summary' failed: OSError:
    [Errno 28] ...``; now the same line as every other output's failed write."""
    r = subprocess.run([*TRACEKIT, *argv], capture_output=True, text=True,
                       env=tracekit_env(), timeout=60)
    assert r.returncode == 1, r.stderr
    prefix = "tracekit strace:" if argv[0] == "strace" else "tracekit: error:"
    assert r.stderr.splitlines()[-1:] == [
        f"{prefix} writing '/dev/full': No space left on device (ENOSPC)"], r.stderr
