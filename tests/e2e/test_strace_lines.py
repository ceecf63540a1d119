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

from tests.e2e._strace_lines import COALESCED, DECODE, MOVED, agreement, classify

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


SHELL = """\
200 getrandom("\\x01\\x02", 2, GRND_NONBLOCK) = 2
200 clone(child_stack=NULL, flags=SIGCHLD) = 201
200 clone(child_stack=NULL, flags=SIGCHLD) = 202
200 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=201, \
si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
200 rt_sigreturn({mask=[]}) = 202
200 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 201
200 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=202, \
si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
200 rt_sigreturn({mask=[]}) = 201
200 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 202
200 getsockname(3, {sa_family=AF_INET, sin_port=htons(40013), \
sin_addr=inet_addr("127.0.0.1")}, [16]) = 0
200 openat(AT_FDCWD, "/etc/a", O_RDONLY) = 3
200 +++ exited with 0 +++
"""


def test_classify_tells_run_to_run_kinds_from_decoding() -> None:
    """Other random bytes, another port and one SIGCHLD for two children (coalesced) are
    run-to-run kinds; a flag printed otherwise is decoding."""
    lines = SHELL.replace("200 ", "300 ").splitlines()
    other = [ln.replace("\\x01\\x02", "\\xff\\xfe").replace("htons(40013)", "htons(51000)")
             .replace("O_RDONLY", "O_RDONLY|0x1000") for ln in lines]
    # the second SIGCHLD and its rt_sigreturn are not there: both children had exited
    # when the handler ran
    del other[6:8]
    got = agreement(SHELL, "\n".join(other) + "\n")
    kinds, decode = classify(got)
    assert kinds == {"random bytes": 1, "port or inode": 1, COALESCED: 2, DECODE: 1}, kinds
    assert decode == [('openat(AT_FDCWD, "/etc/a", O_RDONLY) = 3',
                       'openat(AT_FDCWD, "/etc/a", O_RDONLY|0x1000) = 3')]
    assert sum(kinds.values()) == got.lines - got.whole


def test_classify_moved_lines_and_missing_ones() -> None:
    """A wait4 before the signal instead of after it is moved (both its slots); a
    signal line alone, without its rt_sigreturn, is not explained: decoding."""
    lines = SHELL.splitlines()
    moved = lines[:3] + [lines[5], lines[3], lines[4]] + lines[6:]
    kinds, decode = classify(agreement(SHELL, "\n".join(moved) + "\n"))
    assert kinds == {MOVED: 2} and decode == [], kinds
    lost = lines[:6] + lines[7:]
    kinds, decode = classify(agreement(SHELL, "\n".join(lost) + "\n"))
    assert kinds == {DECODE: 1} and decode[0][0] is not None and \
        decode[0][0].startswith("--- SIGCHLD"), (kinds, decode)


def test_classify_of_identical_traces_is_empty() -> None:
    assert classify(agreement(SHELL, SHELL)) == ({}, [])


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
    got = agreement(s_text, t_text, reference_pids=[fig["pids"]["strace"]],
                    other_pids=[fig["pids"]["tracekit"]])
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
