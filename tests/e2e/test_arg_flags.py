"""Flag words and named constants strace 6.1 prints by name, against strace on ONE run.

tests/workloads/flag_calls.c makes each call with known bits, garbage in the high half
of an int's register and unknown bits (flock, inotify_add_watch, mount, umount2,
fanotify_init/fanotify_mark, fallocate, mlock2/mlockall, close_range, pidfd_open,
sync_file_range, ioprio_get/ioprio_set, sched_getscheduler, mbind/set_mempolicy/
get_mempolicy, name_to_handle_at/open_by_handle_at, swapon, shmget/semget/msgget, shmat,
msgsnd/msgrcv, msync, splice/tee/vmsplice; then kcmp's fds and epoll slot, timerfd and
inotify_init1 flags, AT_REMOVEDIR in statx/execveat/newfstatat, faccessat2's flags,
decimal flags of sched_setattr/sched_getattr/copy_file_range, NULL iovecs, the mount
API of Linux 5.2, userfaultfd, memfd_secret, landlock_create_ruleset, pkey_alloc,
remap_file_pages, mmap's MAP_FILE and huge page shift, move_pages, delete_module's name
and flags). tracekit traces ``strace -f -o FILE
flag_calls``, so both see the same calls: every line of the program must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_flag_words_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "flag_calls"), tmp_path)
    text = "\n".join(s_lines)
    for want in (
            "flock(3, LOCK_SH|LOCK_NB) = 0", "flock(3, LOCK_EX) = 0",
            "flock(3, 0x100 /* LOCK_??? */) = -1 EINVAL", "flock(3, LOCK_MAND|LOCK_READ)",
            "inotify_add_watch(4, \".\", IN_MODIFY|IN_CREATE|IN_ONLYDIR) = 1",
            "|IN_ONESHOT|0x8ad1000) = -1 EINVAL",
            "mount(\"none\", \"nonexistent\", \"tmpfs\", MS_RDONLY|MS_NOSUID|MS_NODEV, "
            "\"size=1k,mode=0700,this-option-is\"...) = -1 ENOENT",
            "mount(NULL, \"nonexistent\", NULL, MS_REMOUNT|MS_BIND|MS_REC, NULL)",
            "\"ext4\", MS_MGC_VAL|MS_SILENT, \"ro\")", "\"ext4\", MS_MGC_VAL, NULL)",
            "MS_MGC_VAL|0x200 /* MS_??? */", "MS_NOATIME|0xdeadbeef00000000, NULL)",
            "umount2(\"nonexistent\", MNT_FORCE|UMOUNT_NOFOLLOW) = -1 ENOENT",
            "umount2(\"nonexistent\", 0x10 /* MNT_??? */) = -1 EINVAL",
            "fanotify_init(FAN_CLASS_NOTIF|FAN_CLOEXEC|FAN_NONBLOCK, O_RDONLY|O_CLOEXEC)",
            "fanotify_init(0xc /* FAN_CLASS_??? */|FAN_CLOEXEC|",
            "FAN_CLASS_CONTENT|0x2000 /* FAN_??? */, O_RDWR)",
            "FAN_MARK_ADD|FAN_MARK_DONT_FOLLOW, FAN_CLOSE_WRITE|FAN_OPEN|FAN_ONDIR|"
            "FAN_EVENT_ON_CHILD, AT_FDCWD, \"nonexistent\")",
            "|FAN_RENAME|0xdeadbeef86a02000, FAN_NOFD, \"nonexistent\")",
            "fallocate(3, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE, 0, 4096) = 0",
            "fallocate(3, 0x100 /* FALLOC_FL_??? */, 0, 4096)",
            "mlock2(NULL, 0, MLOCK_ONFAULT) = 0", "mlockall(0x100 /* MCL_??? */)",
            "close_range(1000, 1001, CLOSE_RANGE_CLOEXEC) = 0",
            "close_range(1000, 1001, CLOSE_RANGE_UNSHARE|CLOSE_RANGE_CLOEXEC|0xdeadbee9)",
            ", PIDFD_NONBLOCK) = ", ", PIDFD_NONBLOCK|0xdeadb6ef) = -1 EINVAL",
            "sync_file_range(3, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE) = 0",
            "ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)) = 0",
            "IOPRIO_PRIO_VALUE(0x6f56d /* IOPRIO_CLASS_??? */, 7919)) = -1 EINVAL",
            "ioprio_get(IOPRIO_WHO_PROCESS, 0) = 16388 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4))",
            "sched_getscheduler(0) = ",
            "mbind(NULL, 0, MPOL_BIND, NULL, 0, MPOL_MF_STRICT|MPOL_MF_MOVE)",
            "mbind(NULL, 0, MPOL_PREFERRED|MPOL_F_STATIC_NODES, NULL, 0, 0)",
            "mbind(NULL, 0, 0x7 /* MPOL_??? */, NULL, 0, 0x8 /* MPOL_??? */)",
            "set_mempolicy(MPOL_INTERLEAVE|MPOL_F_RELATIVE_NODES, NULL, 0)",
            "set_mempolicy(MPOL_F_STATIC_NODES|0x6, NULL, 0)",
            "get_mempolicy(NULL, NULL, 0, NULL, MPOL_F_NODE|MPOL_F_ADDR)",
            "name_to_handle_at(AT_FDCWD, \"f\", NULL, NULL, AT_SYMLINK_FOLLOW|AT_EMPTY_PATH)",
            "open_by_handle_at(3, NULL, O_RDONLY|O_PATH)",
            "swapon(\"nonexistent\", SWAP_FLAG_PREFER|SWAP_FLAG_DISCARD|7)",
            "swapon(\"nonexistent\", 0) = ", "swapon(\"nonexistent\", SWAP_FLAG_DISCARD_PAGES|0)",
            "swapon(\"nonexistent\", 0x100000 /* SWAP_FLAG_??? */|5)",
            "shmget(IPC_PRIVATE, 0, IPC_CREAT|IPC_EXCL|0600) = -1 EINVAL",
            "shmget(0x7eadbeef, 0, 0x40000|31<<SHM_HUGE_SHIFT|000)",
            "shmget(0x7eadbeef, 0, 000)", "semget(0x7eadbeef, 1, 0x1000000)",
            "msgget(0x7eadbeef, IPC_EXCL|0600)",
            "shmat(-1, NULL, SHM_RDONLY|SHM_RND)",
            "msgrcv(-1, NULL, 0, 0, MSG_NOERROR|MSG_EXCEPT|IPC_NOWAIT|0x10000)",
            "msync(NULL, 0, MS_ASYNC|MS_INVALIDATE) = 0", "msync(NULL, 0, 0x10 /* MS_??? */)",
            "splice(3, NULL, 3, NULL, 0, SPLICE_F_MOVE|SPLICE_F_NONBLOCK) = 0",
            "tee(-1, -1, 0, SPLICE_F_MOVE|SPLICE_F_NONBLOCK|SPLICE_F_MORE|SPLICE_F_GIFT|0x10)",
            "vmsplice(3, NULL, 0, SPLICE_F_GIFT) = 0",
            ", KCMP_FILE, 3, 3) = 0", ", KCMP_FILE, 3, -559038737) = -1 EBADF", ", KCMP_VM) = ",
            ", KCMP_EPOLL_TFD, 4, {efd=6, tfd=4, toff=0}) = 0",
            ", 0x63 /* KCMP_??? */, 0x5, 0xdeadbeef00000007)",
            "timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC|TFD_NONBLOCK) = 4",
            "TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET|TFD_CLOEXEC|TFD_NONBLOCK|0xdea5b6ec)",
            "timerfd_settime(4, 0x10 /* TFD_??? */, ",
            "inotify_init1(IN_NONBLOCK|IN_CLOEXEC) = ", "inotify_init1(0x10 /* IN_??? */)",
            "AT_STATX_FORCE_SYNC|AT_SYMLINK_NOFOLLOW|AT_REMOVEDIR|AT_EMPTY_PATH, STATX_BASIC_STATS",
            "\"nonexistent\", AT_STATX_FORCE_SYNC|AT_STATX_DONT_SYNC, 0, NULL)",
            "\"nonexistent\", AT_STATX_SYNC_AS_STAT|0x2, 0, NULL)",
            "NULL, NULL, AT_REMOVEDIR|AT_SYMLINK_FOLLOW|AT_NO_AUTOMOUNT|AT_EMPTY_PATH|",
            "execveat(AT_FDCWD, \"nonexistent\", NULL, NULL, 0x2 /* AT_??? */)",
            "newfstatat(AT_FDCWD, \"nonexistent\", NULL, AT_REMOVEDIR)",
            "F_OK, AT_SYMLINK_NOFOLLOW|AT_EACCESS|AT_EMPTY_PATH)",
            "F_OK, AT_EACCESS|AT_EMPTY_PATH|0xdeadacef)", "F_OK, 0x400 /* AT_??? */)",
            "sched_setattr(0, NULL, 3735928559)", "sched_getattr(0, NULL, 48, 1)",
            "copy_file_range(3, NULL, 3, NULL, 0, 3735928559)",
            "preadv2(3, NULL, 0, 0, 0) = 0", "pwritev2(3, NULL, 0, 0, 0) = 0",
            "readv(3, NULL, 0) = 0",
            "OPEN_TREE_CLONE|OPEN_TREE_CLOEXEC|AT_SYMLINK_NOFOLLOW|AT_RECURSIVE)",
            "0x2 /* OPEN_TREE_??? */)", "fsopen(\"nonexistentfs\", FSOPEN_CLOEXEC)",
            "FSPICK_CLOEXEC|FSPICK_SYMLINK_NOFOLLOW|FSPICK_NO_AUTOMOUNT|FSPICK_EMPTY_PATH)",
            "MOVE_MOUNT_F_SYMLINKS|MOVE_MOUNT_F_EMPTY_PATH|MOVE_MOUNT_T_AUTOMOUNTS|"
            "MOVE_MOUNT_SET_GROUP)", "move_mount(AT_FDCWD, \"nonexistent\", AT_FDCWD, ",
            "0x200 /* MOVE_MOUNT_??? */)",
            "fsmount(-1, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY|MOUNT_ATTR_NOSUID|MOUNT_ATTR_NODEV|"
            "MOUNT_ATTR_NOEXEC|MOUNT_ATTR_NODIRATIME|0x300000)",
            "fsmount(-1, 0x2 /* FSMOUNT_??? */, 0x40 /* MOUNT_ATTR_??? */)",
            "AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT|AT_EMPTY_PATH|AT_RECURSIVE, NULL, 0)",
            "userfaultfd(UFFD_USER_MODE_ONLY|O_CLOEXEC)", "userfaultfd(0x100 /* UFFD_??? */)",
            "memfd_secret(O_CLOEXEC)", "memfd_secret(O_CLOEXEC|0x100)", "memfd_secret(0x100)",
            "landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)",
            "0x10 /* LANDLOCK_CREATE_RULESET_??? */)",
            "pkey_alloc(0xdeadbeef, PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE)",
            "pkey_alloc(0xdeadbeef00000000, PKEY_DISABLE_EXECUTE|0xdeadbeef00000000)",
            "remap_file_pages(NULL, 0, PROT_READ|PROT_WRITE, 0, MAP_FILE|MAP_NONBLOCK)",
            "remap_file_pages(0x1000, 4096, 0xdeadbeef00000010 /* PROT_??? */, 5, "
            "0x4 /* MAP_??? */)",
            "mmap(NULL, 0, PROT_READ|0xdeadbeef00000000, MAP_FILE|MAP_ANONYMOUS, -1, 0)",
            "MAP_PRIVATE|MAP_HUGETLB|21<<MAP_HUGE_SHIFT, -1, 0)",
            "move_pages(0, 0, NULL, NULL, NULL, MPOL_MF_MOVE) = 0",
            "move_pages(0, 0, NULL, NULL, NULL, 0x1 /* MPOL_??? */)",
            "delete_module(\"tracekit_no_such_module\", O_NONBLOCK|O_TRUNC)",
            "delete_module(\"tracekit_no_such_module\", 0x100 /* O_??? */)"):
        assert want in text, want


def test_flag_calls_under_yy(tmp_path: Path) -> None:
    """``-yy``: the fds fanotify_init, userfaultfd and memfd_secret make, decorated where
    they are returned and used."""
    text = "\n".join(same_lines_one_run(build(tmp_path, "flag_calls"), tmp_path, ["-yy"]))
    assert ") = 4<anon_inode:[fanotify]>" in text
    assert "userfaultfd(UFFD_USER_MODE_ONLY|O_CLOEXEC) = 4<anon_inode:[userfaultfd]>" in text \
        or "userfaultfd(UFFD_USER_MODE_ONLY|O_CLOEXEC) = -1" in text
    assert "memfd_secret(O_CLOEXEC) = 4</secretmem>(deleted)" in text \
        or "memfd_secret(O_CLOEXEC) = -1" in text
