"""Named constants of syscall arguments against strace: a C program passes each through
syscall(2) with garbage in the high half of the register and an out-of-range value;
strace names the constant of the low 32 bits and prints an unknown one as
``0xdeadbeef /* ITIMER_??? */``; tracekit must print the same lines.

The calls are chosen so their lines hold no address (NULL for every pointer, strings
that tracekit reads in the kernel), so the lines are compared as they are.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import compile_c, run_tracekit, write_pipeline
from tests.e2e._strace_lines import parse

pytestmark = pytest.mark.kernel

SOURCE = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    const long hi = (long)0xdeadbeef00000000UL;     /* garbage in the high 32 bits */
    const long bad = 0xdeadbeefL;                   /* no constant has this value */
    int fd = open("/dev/null", O_RDONLY);
    if (fd < 0)
        return 2;
    syscall(SYS_getitimer, hi | ITIMER_PROF, NULL);
    syscall(SYS_getitimer, bad, NULL);
    syscall(SYS_getpriority, hi | PRIO_PGRP, hi);
    syscall(SYS_getpriority, bad, 0L);
    syscall(SYS_setpriority, hi | PRIO_PROCESS, hi, hi);
    syscall(SYS_sched_get_priority_max, hi | SCHED_FIFO);
    syscall(SYS_sched_get_priority_min, bad);
    syscall(SYS_sched_setscheduler, hi, bad, NULL);
    syscall(SYS_lseek, hi | fd, 0L, hi | SEEK_CUR);
    syscall(SYS_lseek, fd, 0L, bad);
    syscall(SYS_madvise, NULL, 0L, bad);
    syscall(SYS_shutdown, fd, bad);
    syscall(SYS_socket, bad, 1L, 0L);
    syscall(SYS_getrusage, bad, NULL);
    syscall(SYS_getrlimit, bad, NULL);
    syscall(SYS_epoll_ctl, fd, bad, fd, NULL);
    syscall(SYS_fadvise64, fd, 0L, 0L, bad);
    syscall(SYS_rt_sigprocmask, bad, NULL, NULL, 8L);
    syscall(SYS_waitid, bad, 0L, NULL, 4L, NULL);
    syscall(SYS_clock_gettime, 0x7eadbeefL, NULL);
    syscall(SYS_clock_gettime, hi | CLOCK_MONOTONIC, NULL);
    syscall(SYS_kill, hi | 999999, 0L);
    syscall(SYS_add_key, "user", "x", NULL, 0L, hi | 0xfffffffdL);  /* KEY_SPEC_SESSION_KEYRING */
    syscall(SYS_add_key, "user", "x", NULL, 0L, bad);
    syscall(SYS_keyctl, bad, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, bad, 0L, 0L, 0L, 0L);
    syscall(SYS_ioprio_get, bad, 0L);
    syscall(SYS_timerfd_create, hi | CLOCK_MONOTONIC, 0L);
    syscall(SYS_timerfd_create, 0x7eadbeefL, 0L);
    syscall(SYS_pidfd_send_signal, -1L, hi | SIGTERM, NULL, 0L);
    syscall(SYS_rt_sigqueueinfo, 999999L, hi | SIGUSR1, NULL);
    syscall(SYS_rt_tgsigqueueinfo, 999999L, 999999L, 0x7eadbeefL, NULL);
    syscall(SYS_ptrace, bad, 0L, 0L, 0L);
    syscall(SYS_ptrace, hi | 7L, 0L, 0L, 0L);      /* a long: all 64 bits are the request */
    syscall(SYS_mlockall, bad);
    syscall(SYS_seccomp, bad, 0L, NULL);
    syscall(SYS_kcmp, 1L, 1L, bad, 0L, 0L);
    syscall(SYS_shmctl, -1L, hi | IPC_RMID, NULL);
    syscall(SYS_shmctl, -1L, bad, NULL);
    syscall(SYS_shmctl, -1L, 0x100L | IPC_STAT, NULL);      /* IPC_64| */
    syscall(SYS_semctl, -1L, 0L, hi | GETVAL, NULL);
    syscall(SYS_semctl, -1L, 0L, 0x7eadbeefL, NULL);
    syscall(SYS_msgctl, -1L, hi | IPC_STAT, NULL);
    syscall(SYS_msgctl, -1L, 0x7eadbeefL, NULL);
    syscall(SYS_bpf, hi | 0L, NULL, 0L);                   /* BPF_MAP_CREATE */
    syscall(SYS_bpf, bad, NULL, 0L);
    syscall(SYS_landlock_add_rule, -1L, bad, NULL, 0L);
    syscall(SYS_landlock_add_rule, -1L, hi | 1L, NULL, 0L);
    syscall(SYS_process_madvise, -1L, NULL, 0L, bad, 0L);
    return 0;
}
"""

CALLS = {"getitimer", "getpriority", "setpriority", "sched_get_priority_max",
         "sched_get_priority_min", "sched_setscheduler", "lseek", "madvise", "shutdown",
         "socket", "getrusage", "getrlimit", "epoll_ctl", "fadvise64", "rt_sigprocmask",
         "waitid", "clock_gettime", "kill", "add_key", "keyctl", "prctl", "ioprio_get",
         "timerfd_create", "pidfd_send_signal", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
         "ptrace", "mlockall", "seccomp", "kcmp", "shmctl", "semctl", "msgctl", "bpf",
         "landlock_add_rule", "process_madvise"}


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_named_constants_and_unknown_values_as_strace(tmp_path: Path) -> None:
    prog = compile_c(SOURCE, tmp_path, "enum_args")
    s_out = tmp_path / "s.txt"
    subprocess.run(["strace", "-f", "-qq", "-o", str(s_out), "--", str(prog)], check=True,
                   capture_output=True, timeout=60)
    t_out = tmp_path / "t.txt"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = [{json.dumps(str(prog))}]
        [output]
        format = "strace"
        fd_paths = false
        path = {json.dumps(str(t_out))}
        """)
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 0, r.stderr

    def lines(path: Path) -> list[str]:
        (calls,) = parse(path.read_text()).values()
        return [c.line for c in calls if c.name in CALLS]

    want, got = lines(s_out), lines(t_out)
    # the workload's calls and nothing else: startup (glibc) makes none of these
    assert len(want) == 49
    assert "getitimer(0xdeadbeef /* ITIMER_??? */, NULL) = -1 EINVAL (Invalid argument)" \
        in want or "getitimer(0xdeadbeef /* ITIMER_??? */, NULL) = -1 EFAULT (Bad address)" \
        in want
    assert any(w.startswith("add_key(\"user\", \"x\", NULL, 0, KEY_SPEC_SESSION_KEYRING)")
               for w in want)
    assert got == want
