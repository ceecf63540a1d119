"""``tracekit strace -v``, ``-e abbrev=SET`` and ``-e verbose=SET`` against strace 6.1.

tests/workloads/verbose_structs.c makes the calls whose structures strace abbreviates by
default (the stat family, statx, uname, rusage, termios, more groups, pollfds, iovecs and
mmsghdrs than -s shows, getdents64, perf_event_open's struct perf_event_attr) and the calls
whose structures ``-e verbose=`` turns into addresses (those and sockets' addresses,
select's sets, an empty epoll_wait), some of them as i386 calls. It runs under ``strace -f
OPTS``, itself under ``tracekit strace -f OPTS``: both print the same calls, and every
line of every process must be equal.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from tests._run import run_tracekit, write_pipeline
from tests.e2e.test_strace_ops import build, one_run_both
from tracekit.kernel.arch import machine_arch

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

X86 = machine_arch() == "x86_64"

# options -> texts strace's lines hold with them (so that a case shows what it is about;
# "re:" a regular expression)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "-v": (["-v"], [
        "c_line=N_TTY, c_cc=[[VINTR]=0x3", ", domainname=", "ru_maxrss=", "stx_mnt_id=",
        "stx_btime={tv_sec=", "st_blksize=", ", 38, 39])", ", [], 4096) = 0",
        'd_type=DT_REG, d_name="file"}',
        "{fd=0, events=POLLOUT}, {fd=0, events=POLLOUT}], 40, 0)",
        "re:wakeup_watermark=\\d+, config1=0x[0-9a-f]+, config2=0x[0-9a-f]+, "
        "sample_regs_user=0x[0-9a-f]+, sample_stack_user=0x[0-9a-f]+, clockid=0x",
        "re:, bp_type=0x[0-9a-f]+ /\\* HW_BREAKPOINT_\\?\\?\\? \\*/, bp_addr=",
        "re:sample_max_stack=\\d+ /\\* bytes 110\\.\\.111: 0x[0-9a-f]+ \\*/, "
        "aux_sample_size=\\d+ /\\* bytes 116\\.\\.119: 0x[0-9a-f]+ \\*/, "
        "sig_data=0x[0-9a-f]+, \\.\\.\\.\\}, 0, -1, -1, 0\\) = -1 E2BIG",
        "re:perf_event_open\\(0x[0-9a-f]+, 0, -1, -1, 0x100",
        "re:TCSETS2, \\{c_iflag=[\\w|]*, c_oflag=NL0\\|CR0\\|XTABS\\|.*, c_cflag=B\\d+\\|"
        "B1800<<IBSHIFT\\|CS\\d.*, c_ispeed=\\d+, c_ospeed=\\d+\\}\\) = 0",
        "re:TCGETA, \\{.*, c_cc=\\[(\\[\\w+\\]=\\w+, ){7}\\[VSWTC\\]=\\w+\\]\\}\\) = 0"]),
    "abbrev=none,-s 8": (["-e", "abbrev=none", "-s", "8"], [
        ", 38, 39])", '{iov_base="x", iov_len=1}], 10) = 10',
        '{iov_base="x", iov_len=1}], msg_iovlen=10,']),
    "-s 1": (["-s", "1"], [
        '{iov_base="x", iov_len=1}, ...], 10) = 10',
        '{iov_base="x", iov_len=1}, ...], msg_iovlen=10,', "msg_len=1}, ...], 4, 0) = 4",
        "sem_flg=0}, ...], 3", "re:mincore\\(0x[0-9a-f]+, 16384, \\[\\d, \\.\\.\\.\\]\\)",
        "re:pipe2?\\(\\[\\d+, \\.\\.\\.\\]", "loads=[", ", ...], totalram=",
        "re:get_mempolicy\\(\\[MPOL_\\w+\\], \\[\\w+, \\.\\.\\.\\], 1025,",
        "FUTEX_PRIVATE_FLAG}, ...], 3, 0, NULL, CLOCK_MONOTONIC)"]),
    "-v -s 1": (["-v", "-s", "1"], [
        '{iov_base="x", iov_len=1}], 10) = 10',
        '{iov_base="x", iov_len=1}], msg_iovlen=10,', "msg_len=1}], 4, 0) = 4",
        "sem_flg=0}], 3", "re:mincore\\(0x[0-9a-f]+, 16384, \\[\\d, \\d, \\d, \\d\\]\\)",
        "re:get_mempolicy\\(\\[MPOL_\\w+\\], \\[(\\w+, ){15}\\w+\\], 1025,",
        "FUTEX_PRIVATE_FLAG}], 3, 0, NULL, CLOCK_MONOTONIC)"]),
    "abbrev=SET": (["-e", "abbrev=uname,statx,?fstat64,wait4"], [
        'nodename="', ", ...})", "ru_maxrss=", "c_cc=[", "st_blksize="]),
    "abbrev=!SET": (["-e", "abbrev=!uname,getrusage"], [
        ", domainname=", "ru_maxrss=", "c_iflag=ICRNL"]),
    "-v then abbrev=": (["-v", "-e", "abbrev=all"], ["st_size=6, ...}"]),
    "verbose=none": (["-e", "verbose=none"], [
        "uname(0x", "getrusage(RUSAGE_SELF, 0x", ", TCGETS, 0x", ", 0, 0x", "poll(0x",
        "epoll_wait(5, [], 1, 0) = 0", "left 0x", "= 0 (Timeout)",
        "re:rt_sigreturn\\(\\{mask=0x[0-9a-f]+\\}\\)",
        "re:getsockname\\(\\d+, 0x[0-9a-f]+, 0x"]),
    "verbose=!SET": (["-e", "verbose=!newfstatat,uname,ioctl,fstat64"], [
        "uname(0x", "statx(", "stx_size=6", "TCGETS, 0x"]),
    "-v verbose=SET": (["-v", "-e", "verbose=statx,getrusage"], [
        "getrusage(RUSAGE_SELF, {", "stx_mnt_id=", "uname(0x"]),
}


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("verbose"), "verbose_structs", "-no-pie")


@pytest.mark.parametrize("case", list(CASES))
def test_structures_as_strace_prints_them(tmp_path: Path, exe: Path, case: str) -> None:
    opts, wanted = CASES[case]
    s_procs, t_procs = one_run_both(exe, tmp_path, opts)
    assert len(s_procs) == 2, s_procs          # the program and the child it reaps
    for pid, s_lines in s_procs.items():
        t_lines = t_procs.get(pid, [])
        assert t_lines == s_lines, "\n".join(difflib.unified_diff(
            s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in wanted:
        if "fstat64" in want or not X86 and "uname(0x" in want:
            continue
        if want.startswith("re:"):
            assert re.search(want[3:], text), want
        else:
            assert want in text, want
    if X86:
        assert "uname(" in text.rsplit("getpeername", 1)[-1]    # the i386 calls ran


def test_unknown_name_in_a_set_is_refused(tmp_path: Path) -> None:
    for qual in ("abbrev", "verbose"):
        r = run_tracekit(["strace", "-e", f"{qual}=unamee", "true"])
        assert r.returncode != 0
        assert "unknown syscall 'unamee'" in r.stderr and "Traceback" not in r.stderr


def test_run_verbose_output_prints_directory_entries(tmp_path: Path) -> None:
    """``tracekit run`` with ``[output] verbose = true``: getdents64's entries, read in
    the kernel as bytes since every output prints them; the default counts them."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "entry").write_text("")
    for verbose, want in (("true", 'd_type=DT_REG, d_name="entry"}'), ("false", " entries */")):
        out = tmp_path / f"{verbose}.txt"
        cfg = write_pipeline(tmp_path, f"""
            [target]
            command = ["ls", "-a", "{tmp_path / 'dir'}"]
            [output]
            format = "strace"
            verbose = {verbose}
            path = "{out}"
            """, name=f"{verbose}.toml")
        r = run_tracekit(["run", str(cfg)])
        assert r.returncode == 0, r.stderr
        dents = [line for line in out.read_text().splitlines() if "getdents64(" in line]
        assert any(want in line for line in dents), dents
