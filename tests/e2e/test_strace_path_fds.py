"""``tracekit strace -P PATH`` against real strace on fds the command did not open: the
ones it inherited (its standard output redirected to PATH) are matched too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def _trace(tool: list[str], path: str, stdout: Path, data: Path) -> str:
    with open(stdout, "wb") as out:
        r = subprocess.run([*tool, "-P", path, "cat", str(data)], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           env=tracekit_env() if tool[0] != "strace" else None)
    assert r.returncode == 0, r.stderr
    return r.stderr


@pytest.mark.parametrize("target", ["/dev/null", "file"])
def test_p_path_matches_the_fds_the_command_inherits(target: str, tmp_path: Path) -> None:
    """``-P /dev/null cat F >/dev/null`` and ``-P OUT cat F >OUT`` show the calls on
    fd 1 (fstat, the write or copy, close), as strace does."""
    data = tmp_path / "data"
    data.write_text("vm\n")
    out = Path("/dev/null") if target == "/dev/null" else tmp_path / "out"
    got = {name: _trace(tool, str(out), out, data)
           for name, tool in (("strace", ["strace"]), ("tracekit", [*TRACEKIT, "strace"]))}
    assert got["tracekit"] == got["strace"]
    assert "close(1)" in got["strace"]
