"""``tracekit strace -s4096`` of a program that makes 20,000 write(2) calls of 0 to 4096
bytes, as fast as it can (tests/workloads/long_strings.c): some 44 MB of records in a
fraction of a second. strace sees them all by stopping the program at each call;
tracekit does not stop it, and its ring buffer must hold what the reader has not yet
taken. With -s 4096 the ring is sized for records of 4 KiB
(tracekit.session.capture.ring_bytes_for_data): nothing is lost, and every line is
strace's, compared with a run of strace on the same program (the default 4 MiB ring
lost most of the calls, on this machine 3 in 4)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import run_tracekit
from tests.e2e.test_strace_ops import build

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

CALLS = 20_000


def _lines(path: Path) -> list[str]:
    return path.read_text(errors="surrogateescape").splitlines()


def test_long_buffers_at_full_speed_lose_nothing_and_print_as_strace(tmp_path: Path) -> None:
    exe = build(tmp_path, "long_strings")
    opts = ["-s4096", "-e", "trace=write"]
    t_out, s_out = tmp_path / "t.txt", tmp_path / "s.txt"
    r = run_tracekit(["strace", *opts, "-o", str(t_out), str(exe), str(CALLS)], timeout=120)
    assert r.returncode == 0, r.stderr
    assert "LOST" not in r.stderr, r.stderr
    subprocess.run(["strace", *opts, "-o", str(s_out), str(exe), str(CALLS)],
                   check=True, capture_output=True, timeout=120)
    s_lines, t_lines = _lines(s_out), _lines(t_out)
    assert sum(line.startswith("write(3, ") for line in s_lines) == CALLS
    assert s_lines[-1] == "+++ exited with 0 +++"
    assert t_lines == s_lines, "\n".join(
        line[:300] for line in difflib.unified_diff(s_lines, t_lines, "strace", "tracekit",
                                                    lineterm="", n=0))
