"""The exit lines of a thread group against real strace: every thread of a group that
dumped core says ``(core dumped)``, and the leader's line comes after its threads'."""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env
from tests.e2e.test_strace_ops import build

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

_EXIT = re.compile(r"^(\d+) +(\+\+\+ .* \+\+\+)$")


def _cores() -> None:
    """Core dumps allowed (the child of the tracer, which strace and tracekit start)."""
    hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def _exit_lines(tool: list[str], prog: Path, mode: str, tmp: Path) -> list[str]:
    """``+++`` lines of ``tool -f -o FILE prog mode`` (run in ``tmp``, where the core
    goes): ``L`` for the leader's, ``T`` for a thread's."""
    out = tmp / f"{tool[0].rsplit('/', 1)[-1]}.{mode}"
    subprocess.run([*tool, "-f", "-o", str(out), str(prog), mode], cwd=tmp,
                   capture_output=True, timeout=60, preexec_fn=_cores,
                   env=tracekit_env() if tool[0] != "strace" else None)
    leader = None
    lines = []
    for line in out.read_text().splitlines():
        if leader is None and line[:1].isdigit():
            leader = line.split()[0]
        m = _EXIT.match(line)
        if m:
            lines.append(("L " if m.group(1) == leader else "T ") + m.group(2))
    return lines


@pytest.mark.parametrize("mode", ["exit", "segv"])
def test_group_exit_lines_as_strace(mode: str, tmp_path: Path) -> None:
    prog = build(tmp_path, "group_exit", "-pthread")
    got = {name: _exit_lines(tool, prog, mode, tmp_path)
           for name, tool in (("strace", ["strace"]), ("tracekit", [*TRACEKIT, "strace"]))}
    assert got["tracekit"] == got["strace"]
    assert got["strace"][-1].startswith("L ")
    if mode == "segv" and "(core dumped)" in got["strace"][-1]:
        assert all("(core dumped)" in x for x in got["tracekit"])
