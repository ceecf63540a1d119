/* Flag words and named constants that strace 6.1 prints by name, one call (or a few) per
 * kind: known bits, garbage in the high half of an int's register, unknown bits (printed
 * as a hex remainder, or as 0x100 /- LOCK_??? -/ when no bit has a name), and the calls'
 * own layouts (mount's MS_MGC_VAL and its type/data strings, fanotify_init's class,
 * swapon's priority, shmget's huge page size, IOPRIO_PRIO_VALUE, mbind's mode).
 *
 * Every call is harmless: it works on a scratch file and directory of its own, on fds it
 * made, on this process, or fails before it changes anything (mount, umount2 and swapon
 * of a path that does not exist; System V IPC get calls without IPC_CREAT or with a size
 * the kernel refuses; ioprio_set of this process only).
 *
 * tests/e2e/test_arg_flags.py runs it under strace -f and tracekit at once: every line
 * must be equal. Build: gcc -O1 -Wall -Werror -o flag_calls flag_calls.c; argument: a
 * scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/falloc.h>
#include <linux/ioprio.h>
#include <linux/kcmp.h>
#include <linux/landlock.h>
#include <linux/mempolicy.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define PIDFD_NONBLOCK O_NONBLOCK       /* linux/pidfd.h clashes with glibc's fcntl.h */

/* The calls of Linux 4.x-5.x that strace 6.1 decodes and the flag words strace orders
 * its own way: kcmp's fds, timerfd's and inotify_init1's flags, AT_REMOVEDIR among the
 * AT_* bits, decimal flags, NULL iovecs, the mount API of Linux 5.2 (every call on a
 * path that does not exist, an fd of -1 or flags the kernel refuses), userfaultfd,
 * memfd_secret, landlock_create_ruleset (its version query only), pkey_alloc (refused
 * flags), remap_file_pages and mmap (length 0), move_pages (no pages), delete_module
 * (a module nobody has). */
static void newer_calls(int fd, long hi, long bad) {
    pid_t me = getpid();
    struct { uint32_t efd, tfd, toff; } slot;
    struct itimerspec its;
    char name[] = "tracekit_no_such_module";

    int tfd = syscall(SYS_timerfd_create, CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    syscall(SYS_timerfd_create, CLOCK_REALTIME, bad);
    syscall(SYS_timerfd_create, CLOCK_REALTIME, 0x10L);
    memset(&its, 0, sizeof its);
    syscall(SYS_timerfd_settime, tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
    syscall(SYS_timerfd_settime, tfd, hi | 0x10L, &its, NULL);
    int ep = syscall(SYS_epoll_create1, 0L);
    struct epoll_event ev = {.events = EPOLLIN};
    syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, tfd, &ev);
    slot.efd = ep, slot.tfd = tfd, slot.toff = 0;
    syscall(SYS_kcmp, me, me, KCMP_FILE, fd, fd);
    syscall(SYS_kcmp, me, me, KCMP_FILE, hi | fd, bad);
    syscall(SYS_kcmp, me, me, hi | KCMP_VM, 5L, 7L);
    syscall(SYS_kcmp, me, me, KCMP_EPOLL_TFD, tfd, &slot);
    syscall(SYS_kcmp, me, me, KCMP_EPOLL_TFD, tfd, NULL);
    syscall(SYS_kcmp, me, me, 99L, 5L, hi | 7L);
    close(ep);
    close(tfd);
    int ifd = syscall(SYS_inotify_init1, IN_NONBLOCK | IN_CLOEXEC);
    close(ifd);
    syscall(SYS_inotify_init1, bad);
    syscall(SYS_inotify_init1, hi | 0x10L);

    syscall(SYS_statx, AT_FDCWD, "nonexistent", AT_SYMLINK_NOFOLLOW | AT_REMOVEDIR |
            AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, 0x7ffL, NULL);
    syscall(SYS_statx, AT_FDCWD, "nonexistent", bad, 0x7ffL, NULL);
    syscall(SYS_statx, AT_FDCWD, "nonexistent", 0x6000L, 0L, NULL);
    syscall(SYS_statx, AT_FDCWD, "nonexistent", 0x2L, 0L, NULL);
    syscall(SYS_execveat, AT_FDCWD, "nonexistent", NULL, NULL, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
    syscall(SYS_execveat, AT_FDCWD, "nonexistent", NULL, NULL, bad);
    syscall(SYS_execveat, AT_FDCWD, "nonexistent", NULL, NULL, 0x2L);
    syscall(SYS_newfstatat, AT_FDCWD, "nonexistent", NULL, hi | AT_REMOVEDIR);
    syscall(SYS_faccessat2, AT_FDCWD, "nonexistent", F_OK,
            AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
    syscall(SYS_faccessat2, AT_FDCWD, "nonexistent", F_OK, bad);
    syscall(SYS_faccessat2, AT_FDCWD, "nonexistent", F_OK, 0x400L);
    syscall(SYS_sched_setattr, 0L, NULL, bad);
    syscall(SYS_sched_getattr, 0L, NULL, hi | 48L, hi | 1L);
    syscall(SYS_copy_file_range, fd, NULL, fd, NULL, 0L, bad);
    syscall(SYS_preadv2, fd, NULL, 0L, 0L, 0L, 0L);
    syscall(SYS_pwritev2, fd, NULL, 0L, 0L, 0L, 0L);
    syscall(SYS_readv, fd, NULL, 0L);

    syscall(SYS_open_tree, AT_FDCWD, "nonexistent", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
            AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
    syscall(SYS_open_tree, AT_FDCWD, "nonexistent", bad);
    syscall(SYS_open_tree, AT_FDCWD, "nonexistent", 0x2L);
    syscall(SYS_fsopen, "nonexistentfs", FSOPEN_CLOEXEC);
    syscall(SYS_fsopen, "nonexistentfs", 0x2L);
    syscall(SYS_fspick, AT_FDCWD, "nonexistent", FSPICK_CLOEXEC | FSPICK_SYMLINK_NOFOLLOW |
            FSPICK_NO_AUTOMOUNT | FSPICK_EMPTY_PATH);
    syscall(SYS_fspick, AT_FDCWD, "nonexistent", 0x10L);
    syscall(SYS_move_mount, -1L, "nonexistent", -1L, "nonexistent2", MOVE_MOUNT_F_SYMLINKS |
            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_AUTOMOUNTS | MOVE_MOUNT_SET_GROUP);
    syscall(SYS_move_mount, AT_FDCWD, "nonexistent", AT_FDCWD, "nonexistent2", bad);
    syscall(SYS_move_mount, -1L, "nonexistent", -1L, "nonexistent2", 0x200L);
    syscall(SYS_fsmount, -1L, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
            MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODIRATIME | 0x300000);
    syscall(SYS_fsmount, -1L, FSMOUNT_CLOEXEC, MOUNT_ATTR_STRICTATIME);
    syscall(SYS_fsmount, -1L, bad, bad);
    syscall(SYS_fsmount, -1L, 0x2L, 0x40L);
    syscall(SYS_mount_setattr, AT_FDCWD, "nonexistent", AT_RECURSIVE | AT_SYMLINK_NOFOLLOW |
            AT_EMPTY_PATH | AT_NO_AUTOMOUNT, NULL, 0L);
    syscall(SYS_mount_setattr, AT_FDCWD, "nonexistent", bad, NULL, 0L);
    syscall(SYS_mount_setattr, AT_FDCWD, "nonexistent", 0x200L, NULL, 0L);

    int ufd = syscall(SYS_userfaultfd, hi | UFFD_USER_MODE_ONLY | O_CLOEXEC);
    if (ufd >= 0)
        close(ufd);
    syscall(SYS_userfaultfd, bad);
    syscall(SYS_userfaultfd, 0x100L);
    int sfd = syscall(SYS_memfd_secret, O_CLOEXEC);
    if (sfd >= 0)
        close(sfd);
    syscall(SYS_memfd_secret, hi | O_CLOEXEC | 0x100L);
    syscall(SYS_memfd_secret, 0x100L);
    syscall(SYS_landlock_create_ruleset, NULL, 0L, LANDLOCK_CREATE_RULESET_VERSION);
    syscall(SYS_landlock_create_ruleset, NULL, 0L, bad);
    syscall(SYS_landlock_create_ruleset, NULL, 0L, 0x10L);
    syscall(SYS_pkey_alloc, bad, PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE);   /* EINVAL */
    syscall(SYS_pkey_alloc, hi, hi | 4L);
    syscall(SYS_pkey_alloc, 0x10L, 0x10L);
    syscall(SYS_remap_file_pages, NULL, 0L, PROT_READ | PROT_WRITE, 0L, MAP_NONBLOCK);
    syscall(SYS_remap_file_pages, NULL, 0L, bad, 0L, bad);
    syscall(SYS_remap_file_pages, 0x1000L, 4096L, hi | 0x10L, 5L, hi | 0x4L);
    syscall(SYS_mmap, NULL, 0L, hi | PROT_READ, MAP_ANONYMOUS, -1L, 0L);
    syscall(SYS_mmap, NULL, 0L, PROT_NONE, MAP_PRIVATE | MAP_HUGETLB | (21L << 26), -1L, 0L);
    syscall(SYS_move_pages, 0L, 0L, NULL, NULL, NULL, hi | MPOL_MF_MOVE);
    syscall(SYS_move_pages, 0L, 0L, NULL, NULL, NULL, MPOL_MF_MOVE_ALL | 0x10L);
    syscall(SYS_move_pages, 0L, 0L, NULL, NULL, NULL, MPOL_MF_STRICT);
    syscall(SYS_delete_module, name, O_NONBLOCK | O_TRUNC);
    syscall(SYS_delete_module, name, hi | bad);
    syscall(SYS_delete_module, name, 0x100L);
    syscall(SYS_delete_module, NULL, 0L);
}

int main(int argc, char **argv) {
    const long hi = (long)0xdeadbeef00000000UL;     /* garbage in the high 32 bits */
    const long bad = 0xdeadbeefL;                   /* unknown bits everywhere */
    const long key = 0x7eadbeefL;                   /* an IPC key nobody uses */
    if (argc < 2 || chdir(argv[1]))
        return 2;
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 2;

    syscall(SYS_flock, fd, LOCK_SH | LOCK_NB);
    syscall(SYS_flock, fd, LOCK_UN);
    syscall(SYS_flock, fd, hi | LOCK_EX);
    syscall(SYS_flock, fd, LOCK_UN);
    syscall(SYS_flock, fd, 0x100L);
    syscall(SYS_flock, fd, 0x40L | 0x20L);          /* LOCK_MAND|LOCK_READ */
    syscall(SYS_flock, fd, 0L);

    int ifd = inotify_init1(IN_CLOEXEC);
    int wd = syscall(SYS_inotify_add_watch, ifd, ".", IN_MODIFY | IN_CREATE | IN_ONLYDIR);
    syscall(SYS_inotify_add_watch, ifd, ".", hi | IN_ALL_EVENTS);
    syscall(SYS_inotify_add_watch, ifd, ".", bad);
    syscall(SYS_inotify_add_watch, ifd, ".", 0x1000L);
    syscall(SYS_inotify_rm_watch, ifd, wd);
    close(ifd);

    syscall(SYS_mount, "none", "nonexistent", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV,
            "size=1k,mode=0700,this-option-is-longer-than-32-chars");
    syscall(SYS_mount, NULL, "nonexistent", NULL, MS_REMOUNT | MS_BIND | MS_REC, NULL);
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", MS_MGC_VAL | MS_SILENT, "ro");
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", MS_MGC_VAL, NULL);
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", MS_MGC_VAL | 0x200L, NULL);
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", 0L, NULL);
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", MS_MOVE | MS_PRIVATE, "x");
    syscall(SYS_mount, "/dev/x", "nonexistent", "ext4", hi | MS_NOATIME, NULL);
    syscall(SYS_umount2, "nonexistent", MNT_DETACH);
    syscall(SYS_umount2, "nonexistent", hi | MNT_FORCE | UMOUNT_NOFOLLOW);
    syscall(SYS_umount2, "nonexistent", 0x10L);
    syscall(SYS_umount2, "nonexistent", 0L);

    int fa = syscall(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
                     O_RDONLY | O_CLOEXEC);
    syscall(SYS_fanotify_init, bad, bad);
    syscall(SYS_fanotify_init, FAN_CLASS_CONTENT | 0x2000L, O_RDWR);
    syscall(SYS_fanotify_mark, fa, FAN_MARK_ADD | FAN_MARK_DONT_FOLLOW,
            FAN_OPEN | FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD | FAN_ONDIR, AT_FDCWD, "nonexistent");
    syscall(SYS_fanotify_mark, fa, FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_ACCESS, fd, NULL);
    syscall(SYS_fanotify_mark, fa, bad, 0xdeadbeefdeadbeefL, -1L, "nonexistent");
    syscall(SYS_fanotify_mark, fa, 0x800L, 0x2000L, -1L, NULL);
    if (fa >= 0)
        close(fa);

    syscall(SYS_fallocate, fd, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 0L, 4096L);
    syscall(SYS_fallocate, fd, 0L, 0L, 4096L);
    syscall(SYS_fallocate, fd, hi | 0x100L, 0L, 4096L);
    syscall(SYS_mlock2, NULL, 0L, MLOCK_ONFAULT);
    syscall(SYS_mlock2, NULL, 0L, bad);
    syscall(SYS_mlockall, MCL_ONFAULT);
    syscall(SYS_mlockall, 0x100L);
    syscall(SYS_close_range, 1000L, 1001L, CLOSE_RANGE_CLOEXEC);
    syscall(SYS_close_range, 1000L, 1001L, bad);
    syscall(SYS_close_range, 1000L, 1001L, 0x100L);
    int pfd = syscall(SYS_pidfd_open, getpid(), PIDFD_NONBLOCK);
    syscall(SYS_pidfd_open, getpid(), bad);
    if (pfd >= 0)
        close(pfd);
    syscall(SYS_sync_file_range, fd, 0L, 0L, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE);
    syscall(SYS_sync_file_range, fd, 0L, 0L, bad);

    int prio = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0L);
    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0L,
            IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4));               /* this process only */
    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0L, bad);          /* EINVAL */
    syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0L, (4L << 13) | 7);
    syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0L);
    if (prio >= 0)
        syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0L, (long)prio);
    syscall(SYS_sched_getscheduler, 0L);
    syscall(SYS_sched_getscheduler, -1L);

    syscall(SYS_mbind, NULL, 0L, MPOL_BIND, NULL, 0L, MPOL_MF_STRICT | MPOL_MF_MOVE);
    syscall(SYS_mbind, NULL, 0L, MPOL_PREFERRED | MPOL_F_STATIC_NODES, NULL, 0L, 0L);
    syscall(SYS_mbind, NULL, 0L, bad, NULL, 0L, bad);
    syscall(SYS_mbind, NULL, 0L, 7L, NULL, 0L, 0x8L);
    syscall(SYS_set_mempolicy, MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, NULL, 0L);
    syscall(SYS_set_mempolicy, 6L | MPOL_F_STATIC_NODES, NULL, 0L);
    syscall(SYS_get_mempolicy, NULL, NULL, 0L, NULL, MPOL_F_NODE | MPOL_F_ADDR);
    syscall(SYS_get_mempolicy, NULL, NULL, 0L, NULL, 0x10L);

    syscall(SYS_name_to_handle_at, AT_FDCWD, "f", NULL, NULL, AT_SYMLINK_FOLLOW | AT_EMPTY_PATH);
    syscall(SYS_name_to_handle_at, AT_FDCWD, "f", NULL, NULL, 0x200L);
    syscall(SYS_open_by_handle_at, fd, NULL, O_RDONLY | O_PATH);
    syscall(SYS_swapon, "nonexistent", SWAP_FLAG_PREFER | SWAP_FLAG_DISCARD | 7);
    syscall(SYS_swapon, "nonexistent", 0L);
    syscall(SYS_swapon, "nonexistent", 0x40000L);
    syscall(SYS_swapon, "nonexistent", bad);
    syscall(SYS_swapon, "nonexistent", 0x100000L | 5);

    syscall(SYS_shmget, IPC_PRIVATE, 0L, IPC_CREAT | IPC_EXCL | 0600);   /* size 0: EINVAL */
    syscall(SYS_shmget, key, 0L, SHM_HUGETLB | SHM_NORESERVE | 0640);
    syscall(SYS_shmget, key, 0L, 0x7c040000L);                /* 31<<SHM_HUGE_SHIFT */
    syscall(SYS_shmget, key, 0L, 0L);
    syscall(SYS_semget, IPC_PRIVATE, -1L, IPC_CREAT | 0600);             /* nsems < 0 */
    syscall(SYS_semget, IPC_PRIVATE, -1L, bad);
    syscall(SYS_semget, key, 1L, 0x1000L);
    syscall(SYS_msgget, key, IPC_EXCL | 0600);
    syscall(SYS_msgget, key, 0L);
    syscall(SYS_shmat, -1L, NULL, SHM_RDONLY | SHM_RND);
    syscall(SYS_msgsnd, -1L, NULL, 0L, IPC_NOWAIT);
    syscall(SYS_msgrcv, -1L, NULL, 0L, 0L, MSG_NOERROR | MSG_EXCEPT | IPC_NOWAIT | 0x10000);

    syscall(SYS_msync, NULL, 0L, MS_ASYNC | MS_INVALIDATE);
    syscall(SYS_msync, NULL, 0L, 0x10L);
    syscall(SYS_splice, fd, NULL, fd, NULL, 0L, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    syscall(SYS_tee, -1L, -1L, 0L, 0x1fL);
    syscall(SYS_vmsplice, fd, NULL, 0L, SPLICE_F_GIFT);
    newer_calls(fd, hi, bad);
    close(fd);
    return 0;
}
