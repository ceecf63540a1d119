"""The whole-line measure of bench/strace_lines.py (tests/e2e/_strace_lines.py
:func:`agreement`): exact shares on known input, and the harness run on ``cat``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._strace_lines import agreement

HARNESS = Path(__file__).resolve().parents[2] / "bench" / "strace_lines.py"

STRACE = """\
100 execve("/bin/x", ["x"], 0x7ffd88ef1e48 /* 35 vars */) = 0
100 brk(NULL)                         = 0x562213b2f000
100 openat(AT_FDCWD, "/etc/a", O_RDONLY) = 3
100 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 close(3)                          = 0
100 wait4(-1,  <unfinished ...>
101 exit_group(0)                     = ?
101 +++ exited with 0 +++
100 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
100 clock_gettime(CLOCK_REALTIME, {tv_sec=1700000000, tv_nsec=5}) = 0
100 exit_group(0)                     = ?
100 +++ exited with 0 +++
"""


def tracekit_of(text: str, pid_shift: int) -> str:
    """``text`` as tracekit prints it: other pids, -tt times and -T durations, no
    padding before ``=``, other addresses and other times."""
    out = []
    for line in text.splitlines():
        pid, rest = line.split(" ", 1)
        rest = rest.replace("101", str(101 + pid_shift)).replace("0x5622", "0x7777")
        rest = rest.replace("tv_sec=1700000000", "tv_sec=1700000042")
        if " = " in rest and not rest.startswith(("+++", "<...")):
            head, ret = rest.rsplit(" = ", 1)
            rest = f"{head.rstrip()} = {ret}" + ("" if ret == "?" else " <0.000012>")
        out.append(f"{int(pid) + pid_shift} 05:21:31.184888 {rest}")
    return "\n".join(out) + "\n"


def test_identical_is_all() -> None:
    got = agreement(STRACE, STRACE)
    assert (got.lines, got.whole, got.name_ret) == (11, 11, 11)
    assert got.whole_share == got.name_ret_share == 1.0


def test_only_addresses_pids_and_times_are_normalised() -> None:
    got = agreement(STRACE, tracekit_of(STRACE, 1000))
    assert (got.lines, got.whole, got.name_ret) == (11, 11, 11), got.examples


def test_known_differences_give_exact_shares() -> None:
    other = tracekit_of(STRACE, 7).replace('"/etc/a"', "0x7ffd00001000")  # uncaptured
    other = other.replace("= 3 <", "= 4 <")                         # and a wrong return
    other = other.replace("[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]", "0x7ffd00002000")
    other = "\n".join(ln for ln in other.splitlines() if "brk" not in ln) + "\n"
    got = agreement(STRACE, other)
    # 11 slots (brk only in strace counts as one); openat differs in a whole line and in
    # its return, wait4 in the whole line only, brk in both
    assert got.lines == 11
    assert (got.whole, got.name_ret) == (8, 9)
    assert got.whole_share == pytest.approx(8 / 11)
    assert got.name_ret_share == pytest.approx(9 / 11)
    assert got.diffs == {"openat": 1, "wait4": 1, "brk: only in strace": 1}


def test_extra_lines_count_against() -> None:
    got = agreement(STRACE, STRACE + "100 getpid()                          = 100\n")
    assert (got.lines, got.whole) == (12, 11)


@pytest.mark.kernel
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_harness_on_cat(tmp_path: Path) -> None:
    """The harness's printed figures are agreement() of the outputs it kept; strace
    against itself is 100% by the measure, and one changed line costs exactly one slot."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    r = subprocess.run([sys.executable, str(HARNESS), "--only", "cat", "--json",
                        "--keep", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    fig = json.loads(r.stdout)
    s_text = (tmp_path / "cat.strace").read_text()
    t_text = (tmp_path / "cat.tracekit").read_text()
    got = agreement(s_text, t_text)
    assert (fig["lines"], fig["whole"], fig["name_ret"]) == (got.lines, got.whole,
                                                             got.name_ret)
    assert fig["whole_share"] == got.whole / got.lines
    assert got.lines > 50
    assert got.name_ret_share >= 0.95, got.diffs.most_common(5)
    same = agreement(s_text, s_text)
    assert same.whole == same.lines == len([ln for ln in s_text.splitlines() if ln])
    lines = s_text.splitlines()
    i = next(i for i, ln in enumerate(lines) if " openat(" in ln)
    lines[i] = lines[i].replace("O_RDONLY", "O_WRONLY")
    one_off = agreement(s_text, "\n".join(lines) + "\n")
    assert (one_off.lines, one_off.whole, one_off.name_ret) == (same.lines, same.lines - 1,
                                                                same.lines)
