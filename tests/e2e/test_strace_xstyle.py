"""``tracekit strace -X raw`` and ``-X verbose`` against strace 6.1's, on one run each.

Programs: tests/workloads/parity_calls.c (a call of each kind strace decodes), and from
tests/e2e/_strace_cli.py's workload a shell pipeline, the TCP loopback program and the
signal program. Each runs once under ``strace -f -X STYLE``, itself traced by ``tracekit
strace -f -X STYLE``: both see the same calls, so what the two print of each line is
compared after the strace-CLI suite's normalising (addresses, pids, times) and nothing
else. At least 98% of the lines must be identical; the lines that differ are listed.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.e2e._strace_cli import Combo, build_workload, measure_one_run
from tests.e2e.test_strace_ops import build, one_run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None or shutil.which("gcc") is None,
                                 reason="strace 6.1 and gcc are needed")]

FLOOR = 0.98
STYLES = ("raw", "verbose")


@pytest.fixture(scope="module")
def parity(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("xstyle_parity"), "parity_calls")


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workload(tmp_path_factory.mktemp("xstyle_cli"))


def _report(diffs: list[str], same: int, total: int) -> str:
    return (f"{same}/{total} lines identical ({same / max(total, 1):.1%}); differing:\n"
            + "\n".join(diffs[:80]))


@pytest.mark.parametrize("style", STYLES)
def test_parity_calls(style: str, parity: Path, tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(parity, tmp_path, ["-X", style])
    assert len(s_procs) == 4, s_procs.keys()        # the program and its three children
    same = total = 0
    diffs: list[str] = []
    for pid, s_lines in s_procs.items():
        matcher = difflib.SequenceMatcher(None, s_lines, t_procs.get(pid, []), autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            total += max(a1 - a0, b1 - b0)
            if op == "equal":
                same += a1 - a0
                continue
            diffs += [f"  strace:   {ln}" for ln in s_lines[a0:a1]]
            diffs += [f"  tracekit: {ln}" for ln in t_procs.get(pid, [])[b0:b1]]
    text = "\n".join(ln for lines in s_procs.values() for ln in lines)
    # the styles are in force on both sides (not the abbrev default)
    want = "-100 /* AT_FDCWD */" if style == "verbose" else "openat(-100, "
    assert want in text
    assert total and same / total >= FLOOR, _report(diffs, same, total)


@pytest.mark.parametrize("program", ["pipe", "tcp", "signals"])
@pytest.mark.parametrize("style", STYLES)
def test_programs(style: str, program: str, workload: Path, tmp_path: Path) -> None:
    combo = Combo(f"-X {style}", ("-f", "-X", style), program)
    got = measure_one_run(combo, program, workload, tmp_path)
    assert got is not None
    res, _, t = got
    assert any("0x" in text for text in t.texts.values())
    shown = [f"  strace:   {a}\n  tracekit: {b}" for a, b in res.diffs]
    assert res.lines and res.share >= FLOOR, _report(shown, res.identical, res.lines)
