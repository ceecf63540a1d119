/* File system, xattr and credential calls as strace 6.1 prints them, with normal
 * arguments, NULL and invalid ((void *)1) pointers, unknown flag bits, garbage in the high
 * half of an int's register and -1 fds: truncate/ftruncate, getdents (the old one),
 * fchdir, rename/renameat/renameat2, mkdir/mkdirat/rmdir, creat, link/linkat,
 * symlinkat, unlinkat, readlinkat, chmod/fchmod/fchmodat, chown/fchown/lchown/fchownat,
 * umask, mknod/mknodat, utime, faccessat, openat2, dup/dup2/dup3, fsync/fdatasync/sync/
 * syncfs, readahead, fadvise64, the 12 xattr calls, chroot, quotactl, the uid/gid calls,
 * setgroups, capget/capset, getcwd, statfs, name_to_handle_at/open_by_handle_at and
 * mount_setattr, quotactl_fd.
 *
 * Every call is harmless: it works on files and directories it made in the scratch
 * directory (its argument), on fds it made, or fails before it changes anything (chroot
 * and quotactl of paths that do not exist, bad pointers, bad flags). The id calls set
 * each id to the value it already has (or -1: unchanged), setgroups sets the groups the
 * process has, capset the capabilities capget read; umask is set back. Outcomes are the
 * same every run (the kernel's only choices here are the calls' own results).
 *
 * tests/e2e/test_strace_sweep_fs.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_fs sweep_fs.c; argument: a
 * scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/dqblk_xfs.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/quota.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#define BADP ((void *)1)                /* an address nothing is mapped at: EFAULT */

static void paths(int dfd, long hi, long bad) {
    syscall(SYS_mkdir, "d", 0755);
    syscall(SYS_mkdir, "d", 0755);                              /* EEXIST */
    syscall(SYS_mkdir, NULL, 0755);
    syscall(SYS_mkdir, "d2", hi | 01777);
    syscall(SYS_rmdir, "d2");
    syscall(SYS_mkdirat, dfd, "d3", 0700);
    syscall(SYS_mkdirat, hi | AT_FDCWD, "d4", 0);
    syscall(SYS_mkdirat, -1L, "d5", 0700);
    syscall(SYS_mkdirat, -1L, BADP, 0700);
    syscall(SYS_rmdir, "d4");
    syscall(SYS_rmdir, "nonexistent");
    syscall(SYS_rmdir, BADP);

    int c = syscall(SYS_creat, "c", 0640);
    syscall(SYS_creat, "d/x", 07777 | hi);
    syscall(SYS_creat, NULL, 0600);
    syscall(SYS_truncate, "c", 4096L);
    syscall(SYS_truncate, "c", -1L);
    syscall(SYS_truncate, NULL, 0L);
    syscall(SYS_ftruncate, c, 100L);
    syscall(SYS_ftruncate, hi | c, 0L);
    syscall(SYS_ftruncate, -1L, 0L);

    syscall(SYS_link, "c", "l");
    syscall(SYS_link, "c", NULL);
    syscall(SYS_linkat, dfd, "c", AT_FDCWD, "l2", AT_SYMLINK_FOLLOW);
    syscall(SYS_linkat, AT_FDCWD, "c", AT_FDCWD, "l3", bad);
    syscall(SYS_linkat, AT_FDCWD, "c", AT_FDCWD, "l3", AT_EMPTY_PATH | 0x10000L);
    syscall(SYS_linkat, -1L, "c", hi | 3, "l3", 0L);
    syscall(SYS_symlinkat, "c", dfd, "s");
    syscall(SYS_symlinkat, "target\tnot\nthere", AT_FDCWD, "s2");
    syscall(SYS_symlinkat, NULL, AT_FDCWD, "s3");
    syscall(SYS_symlinkat, "c", -1L, "s3");
    char buf[64];
    syscall(SYS_readlinkat, dfd, "s", buf, sizeof buf);
    syscall(SYS_readlinkat, AT_FDCWD, "s2", buf, 4L);
    syscall(SYS_readlinkat, AT_FDCWD, "c", buf, sizeof buf);    /* EINVAL */
    syscall(SYS_readlinkat, AT_FDCWD, "s", NULL, 0L);
    syscall(SYS_readlinkat, AT_FDCWD, "s", BADP, 10L);
    syscall(SYS_unlinkat, dfd, "s2", 0L);
    syscall(SYS_unlinkat, AT_FDCWD, "d3", AT_REMOVEDIR);
    syscall(SYS_unlinkat, AT_FDCWD, "l3", bad);
    syscall(SYS_unlinkat, AT_FDCWD, "l3", 0x100L);
    syscall(SYS_unlinkat, -1L, "l3", 0L);

    syscall(SYS_rename, "l", "l4");
    syscall(SYS_rename, "nonexistent", "x");
    syscall(SYS_rename, NULL, BADP);
    syscall(SYS_renameat, dfd, "l4", AT_FDCWD, "l5");
    syscall(SYS_renameat, -1L, "l5", hi | AT_FDCWD, "l6");
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l2", RENAME_NOREPLACE);    /* EEXIST */
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l2", RENAME_EXCHANGE);
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l2", RENAME_EXCHANGE | RENAME_NOREPLACE);
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l7", RENAME_WHITEOUT);
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l7", bad);
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l7", 0x8L);
    syscall(SYS_renameat2, AT_FDCWD, "l5", AT_FDCWD, "l7", hi);

    syscall(SYS_chmod, "c", 0644);
    syscall(SYS_chmod, "c", 07777);
    syscall(SYS_chmod, "c", S_IFREG | 0600);
    syscall(SYS_chmod, "c", hi | 0600);
    syscall(SYS_chmod, NULL, 0600);
    syscall(SYS_fchmod, c, 0640);
    syscall(SYS_fchmod, -1L, 0640);
    syscall(SYS_fchmod, hi | c, 0xffff0600L);
    syscall(SYS_fchmodat, dfd, "c", 0600);
    syscall(SYS_fchmodat, AT_FDCWD, "nonexistent", 0600);
    syscall(SYS_fchmodat, -1L, BADP, 0600);
    uid_t u = getuid();
    gid_t g = getgid();
    syscall(SYS_chown, "c", (long)u, (long)g);
    syscall(SYS_chown, "c", -1L, -1L);
    syscall(SYS_chown, "c", 0xffffffffL, 0xffffffffL);
    syscall(SYS_chown, NULL, -1L, -1L);
    syscall(SYS_chown, NULL, 0xffff0000L, 0xfffffffeL);     /* ids past 2^31: unsigned */
    syscall(SYS_fchown, c, (long)u, -1L);
    syscall(SYS_fchown, -1L, -1L, (long)g);
    syscall(SYS_fchown, -1L, 0xffff0000L, 0L);
    syscall(SYS_fchown, hi | c, hi | 0xffffffffL, hi | 0xffffffffL);
    syscall(SYS_lchown, "s", -1L, -1L);
    syscall(SYS_lchown, BADP, -1L, -1L);
    syscall(SYS_fchownat, dfd, "c", -1L, -1L, AT_SYMLINK_NOFOLLOW);
    syscall(SYS_fchownat, AT_FDCWD, "c", (long)u, (long)g, AT_EMPTY_PATH);
    syscall(SYS_fchownat, AT_FDCWD, "c", -1L, -1L, bad);
    syscall(SYS_fchownat, AT_FDCWD, "c", -1L, -1L, 0x1L);
    syscall(SYS_fchownat, -1L, "c", -1L, -1L, 0L);

    long old = syscall(SYS_umask, 027L);
    syscall(SYS_umask, hi | 0777);
    syscall(SYS_umask, 0xffffL);
    syscall(SYS_umask, old);

    syscall(SYS_mknod, "fifo", S_IFIFO | 0600, 0L);
    syscall(SYS_mknod, "null", S_IFCHR | 0600, (long)makedev(1, 3));
    syscall(SYS_mknod, "d/nonexistent/blk", S_IFBLK | 0600, (long)makedev(259, 0x12345));
    syscall(SYS_mknod, "reg", S_IFREG | 0644, 0L);
    syscall(SYS_mknod, "reg2", 0644, 0L);
    syscall(SYS_mknod, "sock", S_IFSOCK | 0644, 0L);
    syscall(SYS_mknod, "bad", 0170000 | 0644, 0L);
    syscall(SYS_mknod, NULL, S_IFIFO | 0600, 0L);
    syscall(SYS_mknodat, dfd, "fifo2", S_IFIFO | 0644, 0L);
    syscall(SYS_mknodat, AT_FDCWD, "null2", S_IFCHR | 0600, (long)makedev(1, 3));
    syscall(SYS_mknodat, -1L, "x", hi | S_IFCHR, bad);
    syscall(SYS_mknodat, AT_FDCWD, "d/nonexistent/x", S_IFCHR | 0600, (long)makedev(4096, 5));

    struct utimbuf ub = {.actime = 1000000000, .modtime = 1700000000};
    syscall(SYS_utime, "c", &ub);
    syscall(SYS_utime, "c", NULL);
    syscall(SYS_utime, "c", BADP);
    syscall(SYS_utime, NULL, &ub);
    struct utimbuf ub2 = {.actime = -1, .modtime = 0};
    syscall(SYS_utime, "c", &ub2);

    syscall(SYS_faccessat, dfd, "c", R_OK | W_OK);
    syscall(SYS_faccessat, AT_FDCWD, "c", X_OK);
    syscall(SYS_faccessat, AT_FDCWD, "c", F_OK);
    syscall(SYS_faccessat, AT_FDCWD, "c", 0x10L);
    syscall(SYS_faccessat, AT_FDCWD, "c", hi | R_OK);
    syscall(SYS_faccessat, -1L, NULL, R_OK);
    close(c);
}

static void opens(long hi, long bad) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH;
    int fd = syscall(SYS_openat2, AT_FDCWD, "c", &how, sizeof how);
    if (fd >= 0)
        close(fd);
    how.flags = O_WRONLY | O_CREAT | O_EXCL;
    how.mode = 0600;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_CACHED;
    syscall(SYS_openat2, AT_FDCWD, "o", &how, sizeof how);
    how.flags = O_RDONLY;
    how.mode = 0;
    how.resolve = 0x80;
    syscall(SYS_openat2, AT_FDCWD, "c", &how, sizeof how);
    how.resolve = 0;
    how.flags = 0xdeadbeef00000000UL;
    syscall(SYS_openat2, AT_FDCWD, "c", &how, sizeof how);
    how.flags = O_RDONLY;
    syscall(SYS_openat2, AT_FDCWD, "c", &how, 8L);              /* too small: EINVAL */
    syscall(SYS_openat2, AT_FDCWD, "c", &how, 0L);
    syscall(SYS_openat2, AT_FDCWD, "c", NULL, sizeof how);
    syscall(SYS_openat2, AT_FDCWD, "c", BADP, sizeof how);
    syscall(SYS_openat2, -1L, "c", &how, sizeof how);
    struct { struct open_how h; uint64_t more; } big;
    memset(&big, 0, sizeof big);
    syscall(SYS_openat2, AT_FDCWD, "c", &big, sizeof big);      /* zero tail: fine */
    big.more = 1;
    syscall(SYS_openat2, AT_FDCWD, "c", &big, sizeof big);      /* E2BIG */
    (void)hi;
    (void)bad;
}

static void fds(int fd, long hi, long bad) {
    int a = syscall(SYS_dup, fd);
    syscall(SYS_dup, -1L);
    syscall(SYS_dup, hi | fd);
    syscall(SYS_dup2, fd, 100L);
    syscall(SYS_dup2, fd, -1L);
    syscall(SYS_dup2, hi | fd, hi | 101);
    syscall(SYS_dup3, fd, 102L, O_CLOEXEC);
    syscall(SYS_dup3, fd, 103L, 0L);
    syscall(SYS_dup3, fd, 104L, bad);
    syscall(SYS_dup3, fd, 104L, 0x1L);
    syscall(SYS_dup3, fd, fd, O_CLOEXEC);                        /* EINVAL */
    syscall(SYS_dup3, fd, 104L, hi | O_CLOEXEC);
    close(a);
    close(100);
    close(101);
    close(102);
    close(103);
    close(104);
    syscall(SYS_fsync, fd);
    syscall(SYS_fsync, -1L);
    syscall(SYS_fdatasync, hi | fd);
    syscall(SYS_sync);
    syscall(SYS_syncfs, fd);
    syscall(SYS_syncfs, -1L);
    syscall(SYS_readahead, fd, 0L, 4096L);
    syscall(SYS_readahead, fd, -1L, 4096L);
    syscall(SYS_readahead, -1L, 0L, 0L);
    static const int advice[] = {POSIX_FADV_NORMAL, POSIX_FADV_RANDOM, POSIX_FADV_SEQUENTIAL,
                                 POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
    for (unsigned i = 0; i < sizeof advice / sizeof advice[0]; i++)
        syscall(SYS_fadvise64, fd, 0L, 4096L, (long)advice[i]);
    syscall(SYS_fadvise64, fd, 0L, 0L, 6L);
    syscall(SYS_fadvise64, fd, 0L, 0L, hi | POSIX_FADV_RANDOM);
    syscall(SYS_fadvise64, fd, -1L, -1L, bad);
    syscall(SYS_fadvise64, -1L, 0L, 0L, 0L);

    int dd = open(".", O_RDONLY | O_DIRECTORY);
    char ents[4096];
    syscall(SYS_getdents, dd, ents, sizeof ents);
    syscall(SYS_getdents, dd, ents, sizeof ents);                /* at the end: 0 */
    syscall(SYS_getdents, dd, NULL, sizeof ents);
    syscall(SYS_getdents, fd, ents, sizeof ents);                /* not a dir */
    syscall(SYS_getdents, -1L, ents, sizeof ents);
    syscall(SYS_getdents, dd, ents, 1L);
    syscall(SYS_fchdir, dd);                                     /* the same directory */
    syscall(SYS_fchdir, fd);                                     /* ENOTDIR */
    syscall(SYS_fchdir, -1L);
    syscall(SYS_fchdir, hi | dd);
    close(dd);
}

static void xattrs(int fd, long hi, long bad) {
    static const char bin[] = {0, 1, 2, 'a', (char)0xff, '\n', 0};
    char buf[256];
    syscall(SYS_setxattr, "c", "user.text", "hello", 5L, XATTR_CREATE);
    syscall(SYS_setxattr, "c", "user.text", "hello", 5L, XATTR_CREATE);      /* EEXIST */
    syscall(SYS_setxattr, "c", "user.text", "hello world", 11L, XATTR_REPLACE);
    syscall(SYS_setxattr, "c", "user.none", "x", 1L, XATTR_REPLACE);         /* ENODATA */
    syscall(SYS_setxattr, "c", "user.bin", bin, (long)sizeof bin, 0L);
    syscall(SYS_setxattr, "c", "user.x", "x", 1L, bad);
    syscall(SYS_setxattr, "c", "user.x", "x", 1L, 0x4L);
    syscall(SYS_setxattr, "c", "user.x", NULL, 0L, hi);
    syscall(SYS_setxattr, "c", "user.x", BADP, 4L, 0L);
    syscall(SYS_setxattr, NULL, "user.x", "x", 1L, 0L);
    syscall(SYS_lsetxattr, "c", "user.l", "0123456789012345678901234567890123456789", 40L,
            XATTR_CREATE | XATTR_REPLACE);
    syscall(SYS_lsetxattr, "c", "user.l", "v", 1L, 0L);
    syscall(SYS_fsetxattr, fd, "user.f", "fval", 4L, XATTR_CREATE);
    syscall(SYS_fsetxattr, -1L, "user.f", "fval", 4L, 0L);
    syscall(SYS_fsetxattr, hi | fd, "user.f", "fval", 4L, 0L);
    syscall(SYS_fsetxattr, fd, NULL, "fval", 4L, 0L);

    syscall(SYS_getxattr, "c", "user.text", buf, sizeof buf);
    syscall(SYS_getxattr, "c", "user.text", buf, 3L);                        /* ERANGE */
    syscall(SYS_getxattr, "c", "user.text", NULL, 3L);                       /* ERANGE */
    syscall(SYS_getxattr, "c", "user.text", NULL, 0L);
    syscall(SYS_getxattr, "c", "user.bin", buf, sizeof buf);
    syscall(SYS_getxattr, "c", "user.none", buf, sizeof buf);
    syscall(SYS_getxattr, "c", "user.text", BADP, sizeof buf);
    syscall(SYS_lgetxattr, "c", "user.l", buf, sizeof buf);
    syscall(SYS_lgetxattr, "s", "user.l", buf, sizeof buf);
    syscall(SYS_fgetxattr, fd, "user.f", buf, sizeof buf);
    syscall(SYS_fgetxattr, fd, "user.f", buf, 0L);
    syscall(SYS_fgetxattr, -1L, "user.f", buf, sizeof buf);

    syscall(SYS_listxattr, "c", buf, sizeof buf);
    syscall(SYS_listxattr, "c", buf, 4L);                                    /* ERANGE */
    syscall(SYS_listxattr, "c", NULL, 0L);
    syscall(SYS_listxattr, "c", BADP, sizeof buf);
    syscall(SYS_llistxattr, "s", buf, sizeof buf);
    syscall(SYS_llistxattr, "d", buf, sizeof buf);                           /* none: 0 */
    syscall(SYS_flistxattr, fd, buf, sizeof buf);
    syscall(SYS_flistxattr, -1L, buf, sizeof buf);
    syscall(SYS_flistxattr, hi | fd, NULL, 0L);

    syscall(SYS_removexattr, "c", "user.text");
    syscall(SYS_removexattr, "c", "user.text");                              /* ENODATA */
    syscall(SYS_removexattr, "c", NULL);
    syscall(SYS_lremovexattr, "c", "user.l");
    syscall(SYS_lremovexattr, BADP, "user.l");
    syscall(SYS_fremovexattr, fd, "user.f");
    syscall(SYS_fremovexattr, -1L, "user.f");
}

static void creds(long hi, long bad) {
    uid_t u = syscall(SYS_getuid);
    gid_t g = syscall(SYS_getgid);
    uid_t eu = syscall(SYS_geteuid);
    gid_t eg = syscall(SYS_getegid);
    syscall(SYS_setuid, (long)u);
    syscall(SYS_setgid, (long)g);
    syscall(SYS_setuid, hi | u);
    syscall(SYS_setreuid, -1L, -1L);
    syscall(SYS_setreuid, (long)u, (long)eu);
    syscall(SYS_setregid, -1L, (long)eg);
    syscall(SYS_setregid, hi | 0xffffffffL, hi | 0xffffffffL);
    syscall(SYS_setresuid, -1L, -1L, -1L);
    syscall(SYS_setresuid, (long)u, (long)eu, -1L);
    syscall(SYS_setresgid, -1L, -1L, -1L);
    syscall(SYS_setresgid, (long)g, -1L, (long)eg);
    gid_t r, e, s;
    syscall(SYS_getresgid, &r, &e, &s);
    syscall(SYS_getresgid, NULL, &e, &s);
    syscall(SYS_getresgid, BADP, BADP, BADP);
    syscall(SYS_getresuid, (uid_t *)&r, (uid_t *)&e, (uid_t *)&s);
    syscall(SYS_setfsuid, -1L);                 /* an invalid id: only reads the old */
    syscall(SYS_setfsuid, (long)eu);
    syscall(SYS_setfsgid, -1L);
    syscall(SYS_setfsgid, (long)eg);
    syscall(SYS_setfsgid, hi | 0xffffffffL);

    gid_t groups[64];
    int n = syscall(SYS_getgroups, 64L, groups);
    if (n >= 0)
        syscall(SYS_setgroups, (long)n, groups);
    syscall(SYS_setgroups, -1L, groups);                                    /* EINVAL */
    syscall(SYS_setgroups, 1L, NULL);                                       /* EFAULT */

    struct __user_cap_header_struct hdr = {.version = 0, .pid = 0};
    struct __user_cap_data_struct data[2];
    syscall(SYS_capget, &hdr, NULL);            /* version 0: the kernel's is written */
    hdr.version = 0;
    syscall(SYS_capget, &hdr, data);            /* EINVAL, with the kernel's version */
    hdr.version = _LINUX_CAPABILITY_VERSION_3;
    hdr.pid = 0;
    if (syscall(SYS_capget, &hdr, data) == 0)
        syscall(SYS_capset, &hdr, data);        /* the same capabilities */
    hdr.version = _LINUX_CAPABILITY_VERSION_1;
    syscall(SYS_capget, &hdr, data);
    hdr.version = _LINUX_CAPABILITY_VERSION_3;
    syscall(SYS_capget, NULL, data);
    syscall(SYS_capget, &hdr, BADP);
    syscall(SYS_capget, BADP, data);
    hdr.version = 0x12345678;
    syscall(SYS_capset, &hdr, data);            /* EINVAL before anything is set */
    hdr.version = _LINUX_CAPABILITY_VERSION_3;
    hdr.pid = 1;
    syscall(SYS_capset, &hdr, data);            /* another pid: EPERM */
    syscall(SYS_capset, &hdr, NULL);
    (void)bad;
}

static void system_calls(long hi) {
    char buf[4096];
    syscall(SYS_getcwd, buf, sizeof buf);
    syscall(SYS_getcwd, buf, 2L);                                           /* ERANGE */
    syscall(SYS_getcwd, NULL, 0L);
    syscall(SYS_getcwd, BADP, sizeof buf);
    syscall(SYS_chroot, "nonexistent");
    syscall(SYS_chroot, NULL);
    syscall(SYS_chroot, BADP);
    syscall(SYS_chroot, "");
    syscall(SYS_quotactl, QCMD(Q_GETQUOTA, USRQUOTA), "nonexistent", 0L, buf);
    syscall(SYS_quotactl, QCMD(Q_GETINFO, GRPQUOTA), "/nonexistent/dev", 0L, buf);
    syscall(SYS_quotactl, QCMD(Q_QUOTAON, PRJQUOTA), "nonexistent", 2L, "nonexistent");
    syscall(SYS_quotactl, QCMD(Q_GETQUOTA, USRQUOTA), NULL, 0L, buf);
    syscall(SYS_quotactl, 0xdeadL, "nonexistent", 0L, NULL);
    syscall(SYS_quotactl, QCMD(Q_GETFMT, USRQUOTA), BADP, -1L, NULL);
    /* quotactl_fd of the scratch directory: only commands that read (no quota is on) */
    int dfd = open(".", O_RDONLY | O_DIRECTORY);
    syscall(SYS_quotactl_fd, (long)dfd, (long)QCMD(Q_GETFMT, USRQUOTA), 0L, buf);
    syscall(SYS_quotactl_fd, (long)dfd, (long)QCMD(Q_GETQUOTA, GRPQUOTA), 1000L, buf);
    syscall(SYS_quotactl_fd, (long)dfd, (long)QCMD(Q_GETINFO, PRJQUOTA), 0L, buf);
    syscall(SYS_quotactl_fd, (long)dfd, (long)QCMD(Q_SYNC, USRQUOTA), 0L, NULL);
    syscall(SYS_quotactl_fd, (long)dfd, 0xdeadL, 0L, NULL);
    syscall(SYS_quotactl_fd, -1L, (long)QCMD(Q_GETQUOTA, USRQUOTA), hi | 7, BADP);
    close(dfd);
    /* the data each command reads, printed whatever the result: every call here fails
     * (a device that does not exist) before it changes anything */
    struct if_dqblk dq;
    memset(&dq, 0, sizeof dq);
    dq.dqb_bhardlimit = 1, dq.dqb_curinodes = 6, dq.dqb_valid = QIF_ALL;
    struct if_dqinfo di = {.dqi_bgrace = 7, .dqi_igrace = 8,
                           .dqi_flags = DQF_ROOT_SQUASH | 0x100, .dqi_valid = IIF_ALL};
    uint32_t xon = FS_QUOTA_UDQ_ACCT | FS_QUOTA_PDQ_ENFD | 0x1000;
    uint32_t xrm = FS_USER_QUOTA | FS_GROUP_QUOTA | 0x80;
    fs_disk_quota_t xd;
    memset(&xd, 0, sizeof xd);
    xd.d_version = FS_DQUOT_VERSION, xd.d_flags = FS_USER_QUOTA, xd.d_id = 5;
    syscall(SYS_quotactl, QCMD(Q_SETQUOTA, USRQUOTA), "nonexistent", 5L, &dq);
    syscall(SYS_quotactl, QCMD(Q_SETQUOTA, USRQUOTA), "nonexistent", 5L, BADP);
    syscall(SYS_quotactl, QCMD(Q_GETNEXTQUOTA, USRQUOTA), "nonexistent", 5L, &dq);
    syscall(SYS_quotactl, QCMD(Q_SETINFO, USRQUOTA), "nonexistent", 5L, &di);
    syscall(SYS_quotactl, QCMD(Q_XQUOTAON, USRQUOTA), "nonexistent", 5L, &xon);
    syscall(SYS_quotactl, QCMD(Q_XQUOTAOFF, GRPQUOTA), "nonexistent", 5L, &xon);
    syscall(SYS_quotactl, QCMD(Q_XQUOTARM, USRQUOTA), "nonexistent", 5L, &xrm);
    syscall(SYS_quotactl, QCMD(Q_XSETQLIM, PRJQUOTA), "nonexistent", 5L, &xd);
    syscall(SYS_quotactl, QCMD(Q_XGETQUOTA, USRQUOTA), "nonexistent", 5L, &xd);
    {
        /* each struct at a page's end: readable at its own size only */
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);

        if (m != MAP_FAILED) {
            munmap(m + pg, pg);
            memcpy(m + pg - sizeof dq, &dq, sizeof dq);
            syscall(SYS_quotactl, QCMD(Q_SETQUOTA, GRPQUOTA), "nonexistent", 6L,
                    m + pg - sizeof dq);
            memcpy(m + pg - sizeof di, &di, sizeof di);
            syscall(SYS_quotactl, QCMD(Q_SETINFO, GRPQUOTA), "nonexistent", 6L,
                    m + pg - sizeof di);
            memcpy(m + pg - sizeof xon, &xon, sizeof xon);
            syscall(SYS_quotactl, QCMD(Q_XQUOTAON, GRPQUOTA), "nonexistent", 6L,
                    m + pg - sizeof xon);
            munmap(m, pg);
        }
    }
    syscall(SYS_quotactl, QCMD(0x10, USRQUOTA), "nonexistent", 5L, &xd);
    syscall(SYS_quotactl, QCMD(0, 3), "nonexistent", 5L, &xd);
    syscall(SYS_statfs, ".", buf);
    syscall(SYS_statfs, "", buf);
    syscall(SYS_statfs, "/proc", buf);
    syscall(SYS_statfs, "nonexistent", buf);
    syscall(SYS_statfs, NULL, buf);
    syscall(SYS_statfs, ".", NULL);
    syscall(SYS_statfs, ".", BADP);
    syscall(SYS_statfs, "c/x", buf);                                        /* ENOTDIR */
    /* other file systems (each may be missing: ENOENT) and their magic numbers, flags */
    static const char *const fs[] = {"/", "/sys", "/dev", "/dev/pts", "/dev/shm", "/run",
                                     "/sys/fs/cgroup", "/sys/kernel/tracing", "/sys/fs/bpf",
                                     "/proc/sys/fs/binfmt_misc", "/sys/kernel/debug",
                                     "/sys/kernel/security", "/dev/mqueue", "/dev/hugepages"};
    for (unsigned i = 0; i < sizeof fs / sizeof fs[0]; i++)
        syscall(SYS_statfs, fs[i], buf);
    (void)hi;
}

/* Garbage in the high half of the int arguments of calls above (fds, dirfds, modes, ids,
 * sizes that are ints), and the other odd values: each call acts as with the low half,
 * on the scratch files, or fails. */
static void high_halves(int dfd, int fd, long hi) {
    char buf[64];
    syscall(SYS_fchmodat, hi | dfd, "c", hi | 0644);
    syscall(SYS_fchownat, hi | AT_FDCWD, "c", hi | 0xffffffffL, hi | 0xffffffffL, hi);
    syscall(SYS_faccessat, hi | dfd, "c", hi | F_OK);
    syscall(SYS_readlinkat, hi | dfd, "s", buf, hi | 10);
    syscall(SYS_linkat, hi | dfd, "c", hi | dfd, "l8", hi | AT_SYMLINK_FOLLOW);
    syscall(SYS_symlinkat, "c", hi | dfd, "s8");
    syscall(SYS_unlinkat, hi | dfd, "s8", hi);
    syscall(SYS_unlinkat, hi | dfd, "l8", hi | AT_REMOVEDIR);                /* ENOTDIR */
    syscall(SYS_mknodat, hi | dfd, "fifo3", hi | S_IFIFO | 0640, hi);
    syscall(SYS_renameat2, hi | dfd, "fifo3", hi | dfd, "fifo4", hi | RENAME_NOREPLACE);
    syscall(SYS_fsync, hi | fd);
    syscall(SYS_syncfs, hi | fd);
    syscall(SYS_fchown, hi | fd, hi | 0xffffffffL, hi | 0xffffffffL);
    syscall(SYS_readahead, hi | fd, 0L, hi);
    syscall(SYS_getdents, hi | fd, buf, hi | 64);
    syscall(SYS_setgroups, hi, NULL);
    syscall(SYS_setreuid, hi | 0xffffffffL, hi | 0xffffffffL);
    syscall(SYS_setresuid, hi | 0xffffffffL, hi | 0xffffffffL, hi | 0xffffffffL);
    syscall(SYS_setfsuid, hi | 0xffffffffL);
    syscall(SYS_getcwd, NULL, hi);
    syscall(SYS_dup3, hi | fd, hi | 105, hi);
    close(105);
    syscall(SYS_quotactl, hi | QCMD(Q_SYNC, USRQUOTA), "nonexistent", hi, NULL);
    syscall(SYS_quotactl, QCMD(Q_QUOTAOFF, GRPQUOTA), "nonexistent", 0L, NULL);
    syscall(SYS_quotactl, QCMD(Q_QUOTAON, USRQUOTA), "nonexistent", 9L, NULL);
    syscall(SYS_quotactl, QCMD(Q_SETQUOTA, USRQUOTA), "nonexistent", 5L, NULL);
    syscall(SYS_quotactl, QCMD(Q_XGETQSTAT, USRQUOTA), "nonexistent", 5L, NULL);
    struct open_how how = {.flags = O_RDONLY, .mode = 0640, .resolve = 0};
    syscall(SYS_openat2, hi | dfd, "c", &how, sizeof how);                  /* EINVAL */
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    syscall(SYS_capset, NULL, NULL);
    syscall(SYS_capget, &hdr, NULL);
}

/* Lengths at the edges of what strace shows: a value past XATTR_SIZE_MAX, a NUL at the
 * end of the 32 bytes shown, a name past the string limit, the bytes past a larger
 * struct open_how, capget of another process (pid 1: a read), ids of another user on a
 * scratch file. */
static void edges(int fd) {
    static char big[70000];
    char val[40], name[300], buf[512];
    memset(val, 'v', sizeof val);
    val[31] = 0;
    memset(name, 'n', sizeof name);
    memcpy(name, "user.", 5);
    name[sizeof name - 1] = 0;
    syscall(SYS_fsetxattr, fd, "user.big", big, (long)sizeof big, 0L);        /* E2BIG */
    syscall(SYS_fsetxattr, fd, "user.nul31", val, (long)sizeof val, 0L);
    syscall(SYS_fgetxattr, fd, "user.nul31", buf, sizeof buf);
    syscall(SYS_fsetxattr, fd, "user.nul31", val, 32L, XATTR_REPLACE);
    syscall(SYS_fgetxattr, fd, "user.nul31", buf, sizeof buf);
    syscall(SYS_fsetxattr, fd, name, "x", 1L, 0L);                          /* ERANGE */
    syscall(SYS_fremovexattr, fd, name);
    syscall(SYS_lsetxattr, "s", "user.l", "v", 1L, 0L);                    /* EPERM */
    memset(big, 'b', 300);
    syscall(SYS_fsetxattr, fd, "user.long", big, 300L, 0L);
    syscall(SYS_fgetxattr, fd, "user.long", buf, sizeof buf);
    syscall(SYS_flistxattr, fd, buf, sizeof buf);
    syscall(SYS_fremovexattr, fd, "user.long");
    syscall(SYS_fremovexattr, fd, "user.nul31");

    struct { struct open_how h; unsigned char more[104]; } how;
    memset(&how, 0, sizeof how);
    syscall(SYS_openat2, AT_FDCWD, "c", &how, sizeof how);                 /* zeros: fine */
    how.more[76] = 1;                                                       /* byte 100 */
    syscall(SYS_openat2, AT_FDCWD, "c", &how, sizeof how);                 /* E2BIG */
    how.more[76] = 0;
    how.more[0] = 2;
    syscall(SYS_openat2, AT_FDCWD, "c", &how, 64L);                        /* E2BIG */
    {
        /* a struct at a page's end, its size past it: EFAULT */
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);

        if (m != MAP_FAILED) {
            struct open_how *end = (struct open_how *)(m + pg - sizeof *end);

            munmap(m + pg, pg);
            memset(end, 0, sizeof *end);
            end->flags = O_CREAT, end->mode = 0600;
            syscall(SYS_openat2, AT_FDCWD, "c", end, sizeof *end + 8);
            close((int)syscall(SYS_openat2, AT_FDCWD, "c", end, sizeof *end));
            munmap(m, pg);
        }
    }

    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 1};
    struct __user_cap_data_struct data[2];
    syscall(SYS_capget, &hdr, data);
    hdr.pid = -1;
    syscall(SYS_capget, &hdr, data);                                        /* EINVAL */
    syscall(SYS_lchown, "s", 65534L, -1L);
    syscall(SYS_fchown, fd, 65534L, 65534L);
    syscall(SYS_fchown, fd, 0L, 0L);
    syscall(SYS_mkdirat, AT_FDCWD, "d9", 040755L);
    long mask = syscall(SYS_umask, 022L);                 /* the inherited one, set back */
    syscall(SYS_umask, 0L);
    syscall(SYS_umask, mask);
    syscall(SYS_getcwd, buf, 3L);
}

/* statfs of a read-only, nosuid, nodev, noexec mount: f_flags in strace's order
 * (ST_VALID first). The mount lives in a mount namespace of this process's own. */
static void private_mount(void) {
    struct statfs sfs;
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return;
    if (mkdir("m", 0700) != 0)
        return;
    if (mount("tk", "m", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k") == 0) {
        syscall(SYS_statfs, "m", &sfs);
        umount("m");
    }
    rmdir("m");
}

/* struct file_handle: made of "f", opened again, too small (EOVERFLOW: the size it needs
 * written back), too large, bad flags, NULL */
static void handles(long hi) {
    struct file_handle *h = calloc(1, sizeof(*h) + 256);
    int mnt, fd;
    if (h == NULL)
        return;
    h->handle_bytes = 128;
    name_to_handle_at(AT_FDCWD, "f", h, &mnt, 0);
    fd = open_by_handle_at(AT_FDCWD, h, O_RDONLY);
    if (fd >= 0)
        close(fd);
    h->handle_bytes = 0;
    name_to_handle_at(AT_FDCWD, "f", h, &mnt, AT_SYMLINK_FOLLOW);
    h->handle_bytes = 200;
    h->handle_type = -5;
    memset(h->f_handle, 0x41, 200);
    name_to_handle_at(AT_FDCWD, "f", h, &mnt, AT_EMPTY_PATH | 0x10000);
    open_by_handle_at(AT_FDCWD, h, O_RDONLY | O_DIRECTORY);
    h->handle_bytes = 40;
    open_by_handle_at(AT_FDCWD, h, 0);
    syscall(SYS_open_by_handle_at, hi | AT_FDCWD, h, hi);
    name_to_handle_at(AT_FDCWD, "f", NULL, &mnt, 0);
    open_by_handle_at(AT_FDCWD, NULL, 0);
    open_by_handle_at(AT_FDCWD, (void *)1, 0);
    free(h);
}

/* struct mount_attr (mount_setattr) of a path that does not exist: the kernel reads and
 * checks the struct first (EINVAL, E2BIG) or fails the lookup (ENOENT), never mounts */
static void mount_attr(long size, uint64_t set, uint64_t clr, uint64_t prop, uint64_t userns,
                       int tail) {
    uint64_t a[8] = {set, clr, prop, userns, 0, 0, 0, 0};
    if (tail)
        ((char *)a)[45] = 7;
    syscall(SYS_mount_setattr, -1L, "missing", 0L, a, size);
}

static void mount_attrs(long hi) {
    mount_attr(32, 0x1 | 0x10, 0x70, 0, 0, 0);                     /* RDONLY|NOATIME */
    mount_attr(32, 0x20, 0x70 | 0x80, 0x100000, ~0ULL, 0);         /* MS_SHARED */
    mount_attr(32, 0x3000ff, 0, 0x180000, 0, 0);                   /* IDMAP|NOSYMFOLLOW */
    mount_attr(24, 0, 0, 0x80000, 0, 0);                           /* too small */
    mount_attr(48, 0, 0, 0x20000, 0, 1);                           /* E2BIG: the tail */
    mount_attr(64, 0, 0, 0x40000, 0, 0);                           /* a zero tail */
    mount_attr(40, 0x400, 0, 0, 0, 0);
    syscall(SYS_mount_setattr, -1L, "missing", (long)AT_RECURSIVE, NULL, 32L);
    syscall(SYS_mount_setattr, hi | AT_FDCWD, "missing", hi | AT_SYMLINK_NOFOLLOW, (void *)1,
            hi | 32);
}

int main(int argc, char **argv) {
    const long hi = (long)0xdeadbeef00000000UL;     /* garbage in the high 32 bits */
    const long bad = 0xdeadbeefL;                   /* unknown bits everywhere */
    if (argc < 2 || chdir(argv[1]))
        return 2;
    private_mount();
    int dfd = open(".", O_RDONLY | O_DIRECTORY);
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (dfd < 0 || fd < 0)
        return 2;
    if (write(fd, "0123456789", 10) != 10)
        return 2;
    paths(dfd, hi, bad);
    opens(hi, bad);
    fds(fd, hi, bad);
    xattrs(fd, hi, bad);
    creds(hi, bad);
    system_calls(hi);
    high_halves(dfd, fd, hi);
    edges(fd);
    handles(hi);
    mount_attrs(hi);
    close(fd);
    close(dfd);
    return 0;
}
