"""Process, scheduling, memory-advice, System V IPC, message queue, signal-fd and
per-thread calls as strace 6.1 prints them, against strace on ONE run.

tests/workloads/sweep_proc.c sweeps getpriority/setpriority, the sched_* parameter,
priority-range, round-robin, affinity and sched_attr calls, mlock/munlock/munlockall, mincore,
madvise (each advice), process_madvise, process_mrelease, pidfd_getfd,
process_vm_readv/writev, pkey_mprotect/pkey_free, migrate_pages,
set_mempolicy_home_node, shmctl/semctl/msgctl, semop/semtimedop, shmdt, the mq_* calls,
alarm, tkill, rt_tgsigqueueinfo, pidfd_send_signal, signalfd/signalfd4,
eventfd/eventfd2, set_robust_list, rseq, getcpu, futex_waitv, seccomp's queries,
modify_ldt, get/set_thread_area, adjtimex/clock_adjtime (read only), sysfs, ustat,
getitimer, prlimit64 and personality; then, in two children, the process-group and
session calls and set_tid_address, and last move_pages and sethostname/setdomainname. Each call is
made normally and with NULL, (void *)1, unknown constants, garbage in the high half
of an int and -1 ids. tracekit traces ``strace -f -o FILE sweep_proc``, so both see
the same calls: every line of every process must be equal, also under ``-yy`` (pidfds as
``3<pid:1234>``, pidfd_getfd's fd as the pidfd's process's, message queues as
``3</name>``, signalfd4's own fd).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_proc_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_proc"), tmp_path)
    assert len(s_procs) == 4, list(s_procs)          # the program and its three children
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in (
            "getpriority(0x3 /* PRIO_??? */, 0) = -1 EINVAL",
            # futex op words strace's table does not name: in hex, arguments by command
            "0x101 /* FUTEX_??? */, 1) = -1 ENOSYS", "0x181 /* FUTEX_??? */, 1) = -1 ENOSYS",
            "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 2, NULL, FUTEX_BITSET_MATCH_ANY)",
            "FUTEX_FD|FUTEX_PRIVATE_FLAG, 1) = -1 ENOSYS",
            "0x103 /* FUTEX_??? */, 1, 2, 0x",
            "0x7e /* FUTEX_??? */, 1, NULL, NULL, 0) = -1 ENOSYS",
            # clone3: strace 6.1's flags (no CLONE_DETACHED, CLONE_NEWTIME after CLONE_IO),
            # a cgroup without its flag, the bytes past the struct (``???`` unreadable)
            "clone3({flags=0, exit_signal=256, stack=NULL, stack_size=0, cgroup=5}, 88) = -1",
            "clone3({flags=0x400000 /* CLONE_??? */, exit_signal=256, ",
            "clone3({flags=CLONE_VM|CLONE_IO|CLONE_NEWTIME|0x400000, exit_signal=256, ",
            'cgroup=5, /* bytes 88..95 */ "\\xef\\xbe\\xad\\xde\\xed\\xfe\\xce\\xfa"}, '
            "96) = -1 E2BIG",
            "clone3({flags=0, exit_signal=0, stack=NULL, stack_size=0, ???}, 96) = -1 EFAULT",
            "exit_signal=SIGCHLD, stack=NULL, stack_size=0} => {parent_tid=NULL}, 88) = ",
            # kexec_file_load's command line, its length the argument before it
            'kexec_file_load(-1, -1, 42, "console=ttyS0 tracekit-sweep-com"..., 0) = -1 ',
            'kexec_file_load(-1, -1, 7, "console", 0) = -1 ',
            "kexec_file_load(-1, -1, 0, NULL, 0) = -1 ",
            "set_mempolicy_home_node(NULL, 0, 18446744073709551614, 0xfffffffffffffffc) = -1",
            # a mask and a pending set that end their mapping
            "set_mempolicy(MPOL_DEFAULT, [0000000000000000], 63) = 0",
            "set_mempolicy(MPOL_DEFAULT, [], 0) = -1 EINVAL",
            "set_mempolicy(MPOL_DEFAULT, [0000000000000000, ... /* 0x",
            "get_mempolicy(NULL, [0000000000000", "rt_sigpending([], 4) = 0",
            "sched_getparam(0, [0]) = 0", "], NULL, [0, -ENOENT], 0) = 0",
            "move_pages(0, 0, [], NULL, [], 0) = 0", ", -ENOENT, ...], 0) = 0",
            'sethostname("tracekit-sweep-host-name-long-en"..., 52) = 0',
            'sethostname("tr", 2) = 0', "sethostname(0x", ", 4294967295) = -1 EINVAL",
            'setdomainname("32\\n\\1", 4) = 0', 'setdomainname("", 0) = 0',
            "sched_getattr(0, {size=56, sched_policy=SCHED_OTHER, sched_flags=0, ",
            "sched_setattr(2147483632, {size=56, sched_flags=SCHED_FLAG_KEEP_PARAMS, "
            "sched_util_min=5, sched_util_max=1024}, 0) = -1 ESRCH",
            "sched_setattr(2147483632, {size=20} => {size=56}, 0) = -1 E2BIG",
            "sched_setattr(2147483632, {size=48, sched_policy=SCHED_OTHER, sched_flags=0, "
            "sched_nice=0, sched_priority=0, sched_runtime=0, sched_deadline=0, "
            "sched_period=0}, 0) = -1 ESRCH",
            "sched_get_priority_max(0x40000002 /* SCHED_??? */) = -1 EINVAL",
            "sched_get_priority_min(SCHED_DEADLINE) = 0",
            "sched_rr_get_interval(0, {tv_sec=",
            "sched_getaffinity(0, 7, 0x", "sched_get_priority_max(SCHED_ISO) = -1 EINVAL",
            "sched_setaffinity(0, 32, [", "getcpu([", ", 16384, [1, 0, 1, 0]) = 0",
            "MADV_DONTNEED_LOCKED) = 0", "1, MADV_HWPOISON, 0) = -1 EINVAL",
            "0xffffffff /* MADV_??? */) = -1 EINVAL",
            ", iov_len=4096}], 1, MADV_COLD, 0x2) = -1 EINVAL",
            '[{iov_base="abc", iov_len=3}, {iov_base="defg", iov_len=4}], 2, [{iov_base=0x',
            "IPC_STAT, {shm_perm={uid=0, gid=0, mode=0600, key=0, cuid=0, cgid=0}, "
            "shm_segsz=4096, ", "IPC_SET, {shm_perm={uid=0, gid=0, mode=0600}}) = 0",
            "IPC_SET, {msg_perm={uid=0, gid=0, mode=0600}, msg_qbytes=", "IPC_64|IPC_STAT, 0x",
            "IPC_INFO, {shmmax=", "SHM_INFO, {used_ids=", "IPC_INFO, {semmap=",
            "IPC_INFO, {msgpool=", "0x63 /* SEM_??? */, NULL) = -1 EINVAL",
            "[{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}, {sem_num=1, sem_op=0, "
            "sem_flg=IPC_NOWAIT}], 2) = 0", "sem_flg=SEM_UNDO|0x2000}], 1) = 0",
            "sem_flg=0x2000 /* SEM_??? */}], 1) = 0",
            '{mtype=1, mtext="hi"}, 2, IPC_NOWAIT) = 0',
            '{mtype=1, mtext="hi\\0\\0\\0\\0\\0\\0"}, 8, 0, IPC_NOWAIT) = 2',
            "O_RDWR|O_CREAT|O_EXCL, 0600, {mq_flags=0, mq_maxmsg=2, mq_msgsize=16, "
            "mq_curmsgs=0}) = 3", 'mq_open("tracekit-no-such-queue", O_RDONLY) = -1 ENOENT',
            "0600, {mq_flags=0x800, mq_maxmsg=0, mq_msgsize=0, mq_curmsgs=1}) = -1 EINVAL",
            "0600, {mq_flags=0xc2c1c0bfbebdbcbb, mq_maxmsg=0, mq_msgsize=0, mq_curmsgs=1})",
            'mq_timedreceive(3, "hello", 64, [3], NULL) = 5',
            "{mq_flags=O_NONBLOCK, mq_maxmsg=2, mq_msgsize=16, mq_curmsgs=0}, {mq_flags=0,",
            "{sigev_value={sival_int=42, sival_ptr=0x2a}, sigev_signo=SIGUSR2, "
            "sigev_notify=SIGEV_SIGNAL}) = 0", "sigev_notify=0x4d /* SIGEV_??? */}) = -1 EINVAL",
            "pidfd_send_signal(3, SIGUSR2, {si_signo=SIGUSR2, si_code=SI_QUEUE, ",
            "signalfd4(-1, [USR2], 8, 0x10 /* SFD_??? */) = -1 EINVAL",
            "eventfd2(0, 0x10 /* EFD_??? */) = -1 EINVAL",
            "eventfd2(3, EFD_SEMAPHORE|EFD_CLOEXEC|EFD_NONBLOCK) = ",
            "rseq(0, 0x20, 0x1, 0) = -1 EINVAL", "set_tid_address(0) = ",
            "set_robust_list(0x1, 16045690981097406488) = -1 EINVAL",
            "flags=FUTEX_32|FUTEX_PRIVATE_FLAG}], 1, 0, NULL, CLOCK_MONOTONIC) = -1 EAGAIN",
            "flags=0x10 /* FUTEX_??? */}], 2, 0, NULL, CLOCK_MONOTONIC) = -1 EINVAL",
            "seccomp(SECCOMP_GET_ACTION_AVAIL, 0, [SECCOMP_RET_LOG]) = 0",
            "[0x12345678 /* SECCOMP_RET_??? */]) = -1 EOPNOTSUPP",
            "seccomp(SECCOMP_GET_NOTIF_SIZES, 0, {seccomp_notif=",
            "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, NULL) = -1 EFAULT",
            "0x100 /* SECCOMP_FILTER_FLAG_??? */, NULL) = -1 EINVAL",
            "seccomp(SECCOMP_SET_MODE_STRICT, 0x1, NULL) = -1 EINVAL",
            "modify_ldt(19, 0x1, 16) = 4294967258 ENOSYS (Function not implemented)",
            "modify_ldt(0, {entry_number=0, base_addr=00000000, limit=00000000, seg_32bit=0, ",
            "get_thread_area({entry_number=12, ...}) = -1",
            "{entry_number=0, base_addr=0x001000, limit=0x0fffff, seg_32bit=1, contents=0, "
            "read_exec_only=0, limit_in_pages=1, seg_not_present=0, useable=1, lm=0}",
            "adjtimex({modes=0, offset=", ", tai=0}) = ",
            "clock_adjtime(CLOCK_MONOTONIC, 0x", "sysfs(0x1, 0x", "sysfs(0x3, 0x",
            "ustat(makedev(0xfff, 0xff), 0x", "ustat(makedev(0, 0x1), NULL) = -1 EFAULT",
            "getitimer(0xffffffff /* ITIMER_??? */, 0x1) = -1 EINVAL",
            "prlimit64(1, RLIMIT_NOFILE, NULL, {rlim_cur=", "personality(0xffffffff) = ",
            "setsid() = -1 EPERM", "setpriority(PRIO_PGRP, 0, "):
        assert want in text, want


@pytest.mark.parametrize("opts", [["-yy"], ["-e", "verbose=none"]], ids=["yy", "verbose=none"])
def test_sweep_proc_under_options(tmp_path: Path, opts: list[str]) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_proc"), tmp_path, opts)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    if opts != ["-yy"]:             # the IPC structs as addresses, no clock state
        assert re.search(r"shmctl\(\d+, IPC_STAT, 0x[0-9a-f]+\) = 0", text)
        assert re.search(r"^adjtimex\(0x[0-9a-f]+\) = \d+$", text, re.M)
        assert "move_pages(0, 0, [], NULL, [], 0) = 0" in text
        return
    assert re.search(r"pidfd_open\(\d+, 0\) = 3<pid:\d+>", text)
    assert re.search(r"pidfd_getfd\(3<pid:\d+>, 0</dev/null<char 1:3>>, 0\) = 4</dev/null", text)
    assert re.search(r"mq_open\(\"tracekit-sweep-\d+\", .*\) = 3</tracekit-sweep-\d+>", text)
    assert "signalfd4(3<anon_inode:[signalfd]>, [USR2], 8, 0) = 3<anon_inode:[signalfd]>" in text
