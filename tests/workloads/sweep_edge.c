/* Calls of this kernel that the other sweeps do not make: the ones strace 6.1 knows
 * (acct, ioperm, iopl, pivot_root, swapon/swapoff, vhangup) and the ones newer than it
 * (cachestat, fchmodat2, map_shadow_stack, futex_wake/futex_wait/futex_requeue,
 * statmount, listmount, lsm_get_self_attr/lsm_set_self_attr/lsm_list_modules, mseal,
 * setxattrat/getxattrat/listxattrat/removexattrat, open_tree_attr, file_getattr and
 * file_setattr), which strace 6.1 prints as syscall_0xNNN with its arguments raw. Each
 * is made with normal arguments, NULL and (void *)1 pointers, a -1 fd, unknown flag bits
 * and garbage in the high half of an int's register.
 *
 * Every call is harmless:
 * - acct, pivot_root and vhangup run only in a grandchild that is the first process of
 *   a new pid and mount namespace (acct is per pid namespace: the accounting it turns
 *   on ends with acct(NULL) before the namespace's last process exits; the mounts are
 *   made private first; pivot_root gets a directory that is no mount point, so EINVAL;
 *   vhangup comes after setsid, with no controlling tty to hang up);
 * - swapon/swapoff get a regular file with no swap signature, or a path that does not
 *   exist; ioperm only drops a port's access, iopl only sets level 0 (what it has);
 * - mseal seals one page this process mapped and never unmaps; map_shadow_stack's
 *   stack is this process's own; open_tree_attr makes no detached copy (no
 *   OPEN_TREE_CLONE);
 * - the xattr and file attr calls act on a file in the scratch directory.
 *
 * tests/e2e/test_strace_sweep_edge.py runs it under strace -f and tracekit at once:
 * every line of each process must be equal. Build: gcc -O1 -Wall -Werror -o sweep_edge
 * sweep_edge.c; argument: a scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define HI 0xdeadbeef00000000L
#define BADP ((void *)1)

/* x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl) of calls glibc may not name */
#define NR_cachestat 451
#define NR_fchmodat2 452
#define NR_map_shadow_stack 453
#define NR_futex_wake 454
#define NR_futex_wait 455
#define NR_futex_requeue 456
#define NR_statmount 457
#define NR_listmount 458
#define NR_lsm_get_self_attr 459
#define NR_lsm_set_self_attr 460
#define NR_lsm_list_modules 461
#define NR_mseal 462
#define NR_setxattrat 463
#define NR_getxattrat 464
#define NR_listxattrat 465
#define NR_removexattrat 466
#define NR_open_tree_attr 467
#define NR_file_getattr 468
#define NR_file_setattr 469

struct cachestat_range { uint64_t off, len; };
struct cachestat { uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted; };
struct mnt_id_req { uint32_t size, spare; uint64_t mnt_id, param, mnt_ns_id; };
struct xattr_args { uint64_t value; uint32_t size, flags; };
struct file_attr { uint64_t fa_xflags; uint32_t fa_extsize, fa_nextents, fa_projid, fa_cowextsize; };
struct mount_attr_s { uint64_t attr_set, attr_clr, propagation, userns_fd; };
struct futex_waitv_s { uint64_t val, uaddr; uint32_t flags, reserved; };

static char path[4200], dir[4000];

static void files(void) {
    struct cachestat_range range = {0, 4096};
    struct cachestat cs;
    struct xattr_args xa;
    struct file_attr fa;
    struct mount_attr_s ma;
    char value[64] = "edge-value", list[256];
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

    write(fd, "cachestat", 9);
    syscall(NR_cachestat, (long)fd, &range, &cs, 0L);
    syscall(NR_cachestat, (long)fd, NULL, &cs, 0L);                /* EFAULT */
    syscall(NR_cachestat, (long)fd, &range, BADP, 0L);
    syscall(NR_cachestat, -1L, &range, &cs, 0L);                   /* EBADF */
    syscall(NR_cachestat, (long)fd, &range, &cs, 1L);              /* EINVAL */
    syscall(NR_cachestat, HI | (unsigned)fd, &range, &cs, HI);

    syscall(NR_fchmodat2, (long)AT_FDCWD, path, 0640L, 0L);
    syscall(NR_fchmodat2, (long)AT_FDCWD, path, 0600L, (long)AT_SYMLINK_NOFOLLOW);
    syscall(NR_fchmodat2, (long)fd, "", 0600L, (long)AT_EMPTY_PATH);
    syscall(NR_fchmodat2, (long)AT_FDCWD, NULL, 0600L, 0L);        /* EFAULT */
    syscall(NR_fchmodat2, (long)AT_FDCWD, BADP, 0600L, 0L);
    syscall(NR_fchmodat2, -1L, "relative", 0600L, 0L);            /* EBADF */
    syscall(NR_fchmodat2, (long)AT_FDCWD, path, 0600L, 0x8000L);  /* EINVAL */
    syscall(NR_fchmodat2, HI | (unsigned)AT_FDCWD, path, HI | 0600, HI);

    syscall(NR_setxattrat, (long)AT_FDCWD, path, 0L, "user.edge", NULL, 0L);   /* EFAULT */
    xa.value = (uintptr_t)value; xa.size = 10; xa.flags = 0;
    syscall(NR_setxattrat, (long)AT_FDCWD, path, 0L, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_setxattrat, (long)AT_FDCWD, path, 0L, "user.edge", &xa, 4L);    /* EINVAL */
    syscall(NR_setxattrat, (long)AT_FDCWD, path, 0x1L, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_setxattrat, -1L, "relative", 0L, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_setxattrat, (long)AT_FDCWD, BADP, 0L, BADP, BADP, (long)sizeof xa);
    xa.value = (uintptr_t)value; xa.size = sizeof value; xa.flags = 0;
    syscall(NR_getxattrat, (long)AT_FDCWD, path, 0L, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_getxattrat, (long)fd, "", (long)AT_EMPTY_PATH, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_getxattrat, (long)AT_FDCWD, path, 0L, "user.none", &xa, (long)sizeof xa);
    syscall(NR_getxattrat, (long)AT_FDCWD, path, 0L, NULL, &xa, (long)sizeof xa);
    syscall(NR_getxattrat, -1L, "relative", 0L, "user.edge", &xa, (long)sizeof xa);
    syscall(NR_getxattrat, HI | (unsigned)AT_FDCWD, path, HI, "user.edge", &xa, HI | sizeof xa);
    syscall(NR_listxattrat, (long)AT_FDCWD, path, 0L, list, (long)sizeof list);
    syscall(NR_listxattrat, (long)AT_FDCWD, path, 0L, NULL, 0L);
    syscall(NR_listxattrat, (long)AT_FDCWD, path, 0L, BADP, 64L);
    syscall(NR_listxattrat, -1L, "relative", 0L, list, (long)sizeof list);
    syscall(NR_listxattrat, (long)AT_FDCWD, path, 0xffffL, list, (long)sizeof list);
    syscall(NR_removexattrat, (long)AT_FDCWD, path, 0L, "user.edge");
    syscall(NR_removexattrat, (long)AT_FDCWD, path, 0L, "user.edge");         /* ENODATA */
    syscall(NR_removexattrat, (long)AT_FDCWD, NULL, 0L, "user.edge");
    syscall(NR_removexattrat, -1L, "relative", 0L, "user.edge");
    syscall(NR_removexattrat, (long)AT_FDCWD, path, 0x10L, BADP);

    memset(&fa, 0, sizeof fa);
    syscall(NR_file_getattr, (long)AT_FDCWD, path, &fa, (long)sizeof fa, 0L);
    syscall(NR_file_getattr, (long)AT_FDCWD, path, NULL, (long)sizeof fa, 0L);
    syscall(NR_file_getattr, (long)AT_FDCWD, path, &fa, 3L, 0L);
    syscall(NR_file_getattr, -1L, "relative", &fa, (long)sizeof fa, 0L);
    syscall(NR_file_getattr, (long)AT_FDCWD, path, &fa, (long)sizeof fa, 0x1L);
    syscall(NR_file_setattr, (long)AT_FDCWD, path, &fa, (long)sizeof fa, 0L);
    syscall(NR_file_setattr, (long)AT_FDCWD, path, BADP, (long)sizeof fa, 0L);
    syscall(NR_file_setattr, HI | (unsigned)AT_FDCWD, path, &fa, HI | sizeof fa, HI);

    memset(&ma, 0, sizeof ma);
    long t = syscall(NR_open_tree_attr, (long)AT_FDCWD, dir, 0L, NULL, 0L);
    if (t >= 0)
        close((int)t);
    syscall(NR_open_tree_attr, (long)AT_FDCWD, dir, 0L, &ma, (long)sizeof ma);   /* EINVAL */
    syscall(NR_open_tree_attr, (long)AT_FDCWD, NULL, 0L, NULL, 0L);
    syscall(NR_open_tree_attr, -1L, "relative", 0L, NULL, 0L);
    syscall(NR_open_tree_attr, (long)AT_FDCWD, dir, 0x4000000L, BADP, 32L);

    /* a regular file with no swap signature: EINVAL; and a path that does not exist */
    syscall(SYS_swapon, path, 0L);
    syscall(SYS_swapoff, path);
    syscall(SYS_swapoff, "/nonexistent-swap-file");
    syscall(SYS_swapoff, NULL);
    syscall(SYS_swapoff, BADP);
    close(fd);
}

static void memory(void) {
    uint32_t futex[2] = {0, 0};
    struct futex_waitv_s w[2];
    struct timespec ts = {0, 1000};
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    syscall(NR_mseal, page, 4096L, 1L);                             /* EINVAL: flags */
    syscall(NR_mseal, page + 1, 4096L, 0L);                         /* EINVAL: unaligned */
    syscall(NR_mseal, NULL, 0L, 0L);
    syscall(NR_mseal, page, 4096L, 0L);                             /* sealed for good */
    syscall(NR_mseal, HI | 4096, HI, HI);

    syscall(NR_map_shadow_stack, 0L, 4096L, 0L);
    syscall(NR_map_shadow_stack, 0L, 4096L, 0x100L);
    syscall(NR_map_shadow_stack, BADP, 0L, 0L);

    syscall(NR_futex_wake, futex, 0xffffffffL, 1L, 2L);             /* FUTEX2_SIZE_U32 */
    syscall(NR_futex_wake, futex, 0xffffffffL, 1L, 0x82L);          /* | FUTEX2_PRIVATE */
    syscall(NR_futex_wake, NULL, 0xffffffffL, 1L, 2L);
    syscall(NR_futex_wake, futex, 0L, 1L, 2L);                      /* EINVAL: no bits */
    syscall(NR_futex_wake, futex, 0xffffffffL, 1L, 0x1000L);        /* EINVAL */
    syscall(NR_futex_wait, futex, 1L, 0xffffffffL, 2L, NULL, 1L);   /* EAGAIN */
    syscall(NR_futex_wait, futex, 0L, 0xffffffffL, 2L, &ts, 1L);    /* ETIMEDOUT */
    syscall(NR_futex_wait, futex, 0L, 0xffffffffL, 2L, BADP, 1L);
    syscall(NR_futex_wait, futex, 0L, 0xffffffffL, 2L, &ts, 0x7fL); /* EINVAL: clock */
    syscall(NR_futex_wait, BADP, 0L, 0xffffffffL, 2L, NULL, 1L);
    memset(w, 0, sizeof w);
    w[0].uaddr = (uintptr_t)&futex[0]; w[0].flags = 2;
    w[1].uaddr = (uintptr_t)&futex[1]; w[1].flags = 2;
    syscall(NR_futex_requeue, w, 0L, 1L, 0L);
    syscall(NR_futex_requeue, w, 1L, 1L, 0L);                       /* EINVAL */
    syscall(NR_futex_requeue, NULL, 0L, 1L, 0L);
    syscall(NR_futex_requeue, w, HI, HI | 1, HI);

    syscall(SYS_ioperm, 0x80L, 1L, 0L);                             /* drops access: 0 */
    syscall(SYS_ioperm, 0x10000L, 1L, 1L);                          /* EINVAL */
    syscall(SYS_ioperm, HI | 0x80, HI | 1, HI);
    syscall(SYS_iopl, 0L);
    syscall(SYS_iopl, 4L);                                          /* EINVAL */
    syscall(SYS_iopl, HI);
}

static void mounts_lsm(void) {
    struct mnt_id_req req;
    uint64_t ids[64];
    char buf[4096];
    uint32_t size;
    long n;

    memset(&req, 0, sizeof req);
    req.size = 24; req.mnt_id = 0xffffffffffffffffULL;              /* LSMT_ROOT */
    n = syscall(NR_listmount, &req, ids, 64L, 0L);
    syscall(NR_listmount, &req, NULL, 64L, 0L);
    syscall(NR_listmount, NULL, ids, 64L, 0L);
    syscall(NR_listmount, &req, ids, 64L, 0x100L);                  /* EINVAL */
    req.size = 4;
    syscall(NR_listmount, &req, ids, 64L, 0L);                      /* EINVAL: size */
    memset(&req, 0, sizeof req);
    req.size = 24; req.mnt_id = n > 0 ? ids[0] : 1; req.param = 0x1;    /* STATMOUNT_SB_BASIC */
    syscall(NR_statmount, &req, buf, (long)sizeof buf, 0L);
    syscall(NR_statmount, &req, BADP, (long)sizeof buf, 0L);
    syscall(NR_statmount, NULL, buf, (long)sizeof buf, 0L);
    syscall(NR_statmount, &req, buf, (long)sizeof buf, 0x1L);
    req.mnt_id = 1;
    syscall(NR_statmount, &req, buf, 8L, 0L);

    size = sizeof buf;
    syscall(NR_lsm_list_modules, buf, &size, 0L);
    syscall(NR_lsm_list_modules, buf, NULL, 0L);
    size = 0;
    syscall(NR_lsm_list_modules, buf, &size, 0L);                   /* E2BIG */
    syscall(NR_lsm_list_modules, buf, &size, 0x1L);
    size = sizeof buf;
    syscall(NR_lsm_get_self_attr, 100L, buf, &size, 0L);            /* LSM_ATTR_CURRENT */
    syscall(NR_lsm_get_self_attr, 100L, NULL, &size, 0L);
    syscall(NR_lsm_get_self_attr, 100L, buf, BADP, 0L);
    syscall(NR_lsm_get_self_attr, 0x7777L, buf, &size, 0x2L);
    syscall(NR_lsm_set_self_attr, 100L, NULL, 0L, 0L);
    syscall(NR_lsm_set_self_attr, 100L, BADP, 64L, 0L);
    syscall(NR_lsm_set_self_attr, HI | 100, buf, HI | 8, HI);
}

/* acct, pivot_root and vhangup as the first process of its own pid and mount namespace */
static void namespaced(void) {
    char acct_file[4200];
    pid_t pid;
    int fd;

    if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0)
        _exit(1);
    pid = fork();
    if (pid < 0)
        _exit(1);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        _exit(0);
    }
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    snprintf(acct_file, sizeof acct_file, "%s/acct", dir);
    fd = open(acct_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    close(fd);
    syscall(SYS_acct, "/nonexistent-acct-file");                    /* ENOENT */
    syscall(SYS_acct, dir);                                         /* EACCES: a directory */
    syscall(SYS_acct, BADP);
    syscall(SYS_acct, acct_file);                                   /* on, in this pid ns */
    syscall(SYS_acct, NULL);                                        /* and off again */
    syscall(SYS_acct, NULL);
    syscall(SYS_pivot_root, dir, dir);                              /* EINVAL: no mount point */
    syscall(SYS_pivot_root, "/nonexistent-root", dir);
    syscall(SYS_pivot_root, NULL, dir);
    syscall(SYS_pivot_root, dir, BADP);
    setsid();
    syscall(SYS_vhangup);                                           /* no controlling tty */
    _exit(0);
}

int main(int argc, char **argv) {
    pid_t pid;

    if (argc < 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(path, sizeof path, "%s/edge-file", dir);
    files();
    memory();
    mounts_lsm();
    pid = fork();
    if (pid == 0)
        namespaced();
    waitpid(pid, NULL, 0);
    return 0;
}
