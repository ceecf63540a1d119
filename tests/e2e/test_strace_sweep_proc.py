"""Process, scheduling, memory-advice, System V IPC, message queue, signal-fd and
per-thread calls as strace 6.1 prints them, against strace on ONE run.

tests/workloads/sweep_proc.c sweeps getpriority/setpriority, the sched_* parameter,
priority-range, round-robin and affinity calls, mlock/munlock/munlockall, mincore,
madvise (each advice), process_madvise, process_mrelease, pidfd_getfd,
process_vm_readv/writev, pkey_mprotect/pkey_free, migrate_pages,
set_mempolicy_home_node, shmctl/semctl/msgctl, semop/semtimedop, shmdt, the mq_* calls,
alarm, tkill, rt_tgsigqueueinfo, pidfd_send_signal, signalfd/signalfd4,
eventfd/eventfd2, set_robust_list, rseq, getcpu, futex_waitv, seccomp's queries,
modify_ldt, get/set_thread_area, adjtimex/clock_adjtime (read only), sysfs, ustat,
getitimer, prlimit64 and personality; then, in two children, the process-group and
session calls and set_tid_address. Each call is made normally and with NULL, (void *)1,
unknown constants, garbage in the high half of an int and -1 ids. tracekit traces
``strace -f -o FILE sweep_proc``, so both see the same calls: every line of every
process must be equal.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, one_run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_proc_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_proc"), tmp_path)
    assert len(s_procs) == 3, list(s_procs)          # the program and its two children
    diffs = []
    for pid, s_lines in s_procs.items():
        t_lines = t_procs.get(pid, [])
        if t_lines != s_lines:
            diffs.extend(difflib.unified_diff(s_lines, t_lines, f"strace {pid}",
                                              f"tracekit {pid}", lineterm="", n=0))
    assert not diffs, "\n".join(diffs)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in (
            "getpriority(0x3 /* PRIO_??? */, 0) = -1 EINVAL",
            "sched_getparam(0, [0]) = 0",
            "sched_get_priority_max(0x40000002 /* SCHED_??? */) = -1 EINVAL",
            "sched_get_priority_min(SCHED_DEADLINE) = 0",
            "sched_rr_get_interval(0, {tv_sec=",
            "sched_getaffinity(0, 7, 0x"):
        assert want in text, want
