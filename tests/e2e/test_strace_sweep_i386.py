"""32-bit calls (``int $0x80`` from a 64-bit program) as strace 6.1 prints them, against
strace on ONE run.

tests/workloads/sweep_i386.c makes the common calls of everyday programs through the
i386 ABI (open/openat/creat/access, read/write/readv/writev/pread64/pwrite64, lseek/
_llseek, the stat64 family, statx, statfs64, getdents64, readlink, getcwd, dup/pipe,
fcntl64 with struct flock/flock64, ioctl, mmap2/old mmap/brk, uname and the clocks,
rlimits, sysinfo, rt_sigaction/rt_sigprocmask/sigaltstack, kill/tgkill, the 32-bit id
calls, wait4/waitid, socketcall, select/_newselect/poll, getrandom, exit_group) with
normal, NULL, bad-pointer and unknown-flag arguments. tracekit traces ``strace -f -o FILE
sweep_i386``, so both see the same calls: every line of the program must be equal.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import WORKLOADS
from tests.e2e.test_strace_ops import one_run_both
from tracekit.kernel.arch import machine_arch

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed"),
              pytest.mark.skipif(machine_arch() != "x86_64",
                                 reason="int 0x80 from a 64-bit process is x86_64's")]


def _build(tmp: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build tests/workloads/sweep_i386.c")
    out = tmp / "sweep_i386"
    subprocess.run([gcc, "-O1", "-no-pie", "-Wall", "-Werror", "-o", str(out),
                    str(WORKLOADS / "sweep_i386.c")], check=True, capture_output=True)
    return out


def test_i386_calls_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(_build(tmp_path), tmp_path)
    pid = next(iter(s_procs))                       # the program; then its two children
    for p, s_lines in s_procs.items():
        t_lines = t_procs.get(p, [])
        assert t_lines == s_lines, "\n".join(
            difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(s_procs[pid])
    for want in WANT:
        assert want in text, want


WANT = (
    'open("f", O_RDWR|O_CREAT, 0600) = 3',
)
