"""Calls and signals as seccomp filters leave them, against strace on ONE run.

tests/workloads/seccomp_actions.c makes a child per action on getppid: ERRNO (the call
never reaches sys_enter; tracekit prints its exit in its place, as a whole call),
TRAP with and without a SIGSYS handler (the signal line), KILL_PROCESS (no signal line:
the kernel forces the signal and no ptracer stops for it; only ``+++ killed by SIGSYS
+++``), KILL_THREAD in one thread of two (``getppid() = ?``, then that thread's ``+++
killed by SIGSYS +++`` at once: its process goes on). tracekit traces ``strace -f -o
FILE seccomp_actions``: every line of every process must be equal.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

# the program's calls that the filters touch; strace's own calls would fill the ring
TRACE = ["-e", "trace=execve,prctl,getppid,getpid,rt_sigreturn"]


def test_seccomp_actions_equal_strace(tmp_path: Path) -> None:
    procs = same_procs_one_run(build(tmp_path, "seccomp_actions", "-pthread"), tmp_path,
                               TRACE)
    by_child = [lines for lines in procs.values() if any("getppid" in x for x in lines)]
    assert len(by_child) == 5, procs
    errno, trap, trapdfl, kill, thread = by_child
    # the workload reached what it is for (strace's own lines)
    assert "getppid() = -1 ENOENT (No such file or directory)" in errno
    assert any(x.startswith("--- SIGSYS {si_signo=SIGSYS, si_code=SYS_SECCOMP, "
                            "si_errno=E2BIG, ") for x in trap)
    assert any(x.startswith("rt_sigreturn(") for x in trap)
    assert trapdfl[-1] == "+++ killed by SIGSYS +++"
    assert any(x.startswith("--- SIGSYS") for x in trapdfl)
    assert kill[-1] == "+++ killed by SIGSYS +++"
    assert not any(x.startswith("--- SIGSYS") for x in kill)
    # the refused call, then the thread's end (its process goes on: the errno child,
    # the trap child with a handler and this one end with getpid and exit 0)
    assert thread[-2:] == ["getppid() = ?", "+++ killed by SIGSYS +++"], thread
    assert sum(lines[-1] == "+++ exited with 0 +++" and lines[-2].startswith("getpid() = ")
               for lines in procs.values() if len(lines) > 1) == 3, procs


def test_seccomp_notify_ioctls_equal_strace(tmp_path: Path) -> None:
    """The user-notification ioctls, on a listener and on fd 0: the structs they read and
    the one NOTIF_RECV writes, equal to strace's on one run."""
    procs = same_procs_one_run(build(tmp_path, "seccomp_notify"), tmp_path,
                               ["-e", "trace=execve,ioctl,getppid", "-y"])
    lines = [x for p in procs.values() for x in p]
    # the workload reached what it is for (strace's own lines)
    recv = [x for x in lines if "SECCOMP_IOCTL_NOTIF_RECV, {id=" in x]
    assert len(recv) == 3 and all("nr=__NR_getppid" in x for x in recv[1:])
    assert " => 0x" in recv[0]                  # not zeroed at entry: refused
    assert any("flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE}" in x for x in lines)
    assert any("error=-EACCES" in x for x in lines)
    assert any(x.startswith("getppid() = 42") for x in lines)


def test_a_refused_call_has_a_zero_duration_as_documented(tmp_path: Path) -> None:
    # docs/strace-differences.md: the kernel gives no entry time for a call a filter
    # refused (only its sys_exit runs): -T says <0.000000>, whole and = -1 ENOENT
    exe = build(tmp_path, "seccomp_actions", "-pthread")
    got = subprocess.run([sys.executable, "-m", "tracekit", "strace", "-f", "-T", "-e",
                          "trace=getppid", str(exe)], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    assert got.returncode == 0, got.stderr
    refused = [x for x in got.stderr.splitlines() if "= -1 ENOENT" in x]
    assert len(refused) == 1, got.stderr
    assert refused[0].endswith(" getppid()                   = -1 ENOENT (No such file "
                               "or directory) <0.000000>"), refused
    # the others have a duration; the call of the thread seccomp killed alone has none
    # (= ?, as strace)
    timed = [x for x in got.stderr.splitlines() if "getppid()" in x and "ENOENT" not in x
             and not x.endswith(" = ?")]
    assert len(timed) == 3 and all(x.endswith(">") for x in timed), got.stderr
