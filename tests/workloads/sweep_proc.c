/* Process, scheduling, memory-advice, System V IPC, POSIX message queue, signal-fd and
 * per-thread calls that strace 6.1 decodes, swept once each: normal calls, NULL and
 * (void *)1 pointers (EFAULT), unknown constants and flag bits, garbage in the high half
 * of an int's register (0xdeadbeef00000000|v through syscall()), and -1 pids and fds.
 *
 * Every call is harmless: it reads, or acts on this process, its own pages, its own
 * forked child, or objects it made and removes again, or it fails before it changes
 * anything:
 * - setpriority, sched_setparam, sched_setaffinity and sched_setattr only set this
 *   process to the value it already has (PRIO_PGRP only in the child, once it leads a
 *   session of its own); sched_setattr's other structs go to a pid above pid_max;
 * - sethostname/setdomainname run last, in a UTS namespace of the process's own;
 * - mlock/munlock/munlockall, mincore, madvise, process_madvise, pkey_mprotect and
 *   process_vm_readv/writev only touch this process's own anonymous pages (no
 *   madvise MADV_HWPOISON or MADV_SOFT_OFFLINE: they would act on the machine's page;
 *   only process_madvise gets them, which refuses both before it acts);
 * - shm/sem/msg objects and the message queue are made with IPC_PRIVATE or O_EXCL under
 *   a name with the pid, and removed at the end of the function that made them;
 * - alarm(0) follows each alarm(N), so no SIGALRM comes; signals sent to self are 0 or
 *   SIGUSR2, which is blocked and then taken with sigtimedwait (a zero timeout);
 * - adjtimex and clock_adjtime only read (modes = 0); prlimit64 of pid 1 only reads;
 *   personality(0xffffffff) only queries; seccomp only queries or gets a bad op (no
 *   filter is ever installed); set_thread_area, set_robust_list, rseq, futex_waitv,
 *   set_mempolicy_home_node, process_mrelease and ustat get arguments they refuse;
 * - setpgid/setsid, set_tid_address run in a child that then exits.
 *
 * tests/e2e/test_strace_sweep_proc.py runs it under strace -f and tracekit at once: every
 * line of each process must be equal. Build: gcc -O1 -Wall -Werror -o sweep_proc
 * sweep_proc.c; argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HI 0xdeadbeef00000000L
#define BADP ((void *)1)

struct waitv { uint64_t val, uaddr; uint32_t flags, reserved; };   /* struct futex_waitv */

static void scheduling(void) {
    struct sched_param sp;
    long nice_now;
    unsigned long mask[16];

    nice_now = 20 - syscall(SYS_getpriority, PRIO_PROCESS, 0L);    /* the raw call: 20-nice */
    syscall(SYS_getpriority, PRIO_PROCESS, (long)getpid());
    syscall(SYS_getpriority, PRIO_PGRP, 0L);
    syscall(SYS_getpriority, PRIO_USER, 0L);
    syscall(SYS_getpriority, 3L, 0L);
    syscall(SYS_getpriority, HI | PRIO_PROCESS, HI);
    syscall(SYS_getpriority, PRIO_PROCESS, -1L);
    syscall(SYS_setpriority, PRIO_PROCESS, 0L, nice_now);          /* the value it has */
    syscall(SYS_setpriority, HI | PRIO_PROCESS, HI, HI | (unsigned long)nice_now);
    syscall(SYS_setpriority, 7L, 0L, nice_now);                    /* EINVAL */

    syscall(SYS_sched_getparam, 0L, &sp);
    syscall(SYS_sched_setparam, 0L, &sp);                          /* its own: 0 */
    sp.sched_priority = 5;
    syscall(SYS_sched_setparam, 0L, &sp);                          /* EINVAL for OTHER */
    syscall(SYS_sched_setparam, -1L, &sp);
    syscall(SYS_sched_getparam, 0L, NULL);
    syscall(SYS_sched_getparam, 0L, BADP);
    syscall(SYS_sched_getparam, HI, &sp);
    syscall(SYS_sched_setparam, 0L, NULL);
    syscall(SYS_sched_setparam, 0L, BADP);
    syscall(SYS_sched_get_priority_min, -1L);
    for (long pol = 0; pol <= 7; pol++) {
        syscall(SYS_sched_get_priority_max, pol);
        syscall(SYS_sched_get_priority_min, pol);
    }
    syscall(SYS_sched_get_priority_max, 99L);
    syscall(SYS_sched_get_priority_min, HI | SCHED_FIFO);
    syscall(SYS_sched_get_priority_max, HI | SCHED_RESET_ON_FORK | SCHED_RR);
    struct timespec ts;
    syscall(SYS_sched_rr_get_interval, 0L, &ts);
    syscall(SYS_sched_rr_get_interval, 0L, NULL);
    syscall(SYS_sched_rr_get_interval, -1L, &ts);

    memset(mask, 0, sizeof mask);
    long n = syscall(SYS_sched_getaffinity, 0L, sizeof mask, mask);
    if (n > 0)
        syscall(SYS_sched_setaffinity, 0L, (long)n, mask);         /* the mask it has */
    syscall(SYS_sched_getaffinity, 0L, 7L, mask);                  /* EINVAL */
    if (n > 0) {                                                   /* the same CPUs */
        syscall(SYS_sched_setaffinity, 0L, 7L, mask);
        syscall(SYS_sched_setaffinity, 0L, 9L, mask);
        syscall(SYS_sched_setaffinity, 0L, 1L, mask);
    }
    syscall(SYS_sched_getaffinity, 0L, 9L, mask);
    syscall(SYS_sched_getaffinity, 0L, 0L, mask);
    syscall(SYS_sched_getaffinity, 0L, 8L, mask);
    syscall(SYS_sched_getaffinity, 0L, 24L, mask);
    syscall(SYS_sched_getaffinity, 0L, 128L, NULL);
    syscall(SYS_sched_getaffinity, -1L, 128L, mask);
    syscall(SYS_sched_setaffinity, 0L, 8L, NULL);
    syscall(SYS_sched_setaffinity, -1L, 8L, mask);
    syscall(SYS_sched_rr_get_interval, HI, &ts);
    syscall(SYS_sched_setaffinity, HI, HI | 8, mask);
    syscall(SYS_sched_getaffinity, HI, 16L, mask);
    syscall(SYS_sched_setparam, HI, &sp);
    syscall(SYS_sched_yield);
}

/* move_pages of its own pages, to the node they are on (node 0, or nodes NULL: where
 * they are), one page never touched (-ENOENT), more than -s of them */
static void pages(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *addrs[40];
    int nodes[40] = {0}, status[40];
    if (m == MAP_FAILED)
        return;
    m[0] = 1;
    for (int i = 0; i < 40; i++)
        addrs[i] = m + (i % 2) * pg;
    syscall(SYS_move_pages, 0L, 2L, addrs, NULL, status, 0L);
    syscall(SYS_move_pages, 0L, 1L, addrs, nodes, status, 2L);      /* MPOL_MF_MOVE */
    syscall(SYS_move_pages, 0L, 40L, addrs, NULL, status, 0L);
    syscall(SYS_move_pages, 0L, 0L, addrs, NULL, status, 0L);
    syscall(SYS_move_pages, 0L, 1L, NULL, NULL, status, 0L);
    syscall(SYS_move_pages, 0L, 2L, BADP, NULL, status, 0L);
    syscall(SYS_move_pages, 0L, 2L, addrs, nodes, BADP, 0L);
    syscall(SYS_move_pages, 0x7ffffff0L, 2L, addrs, nodes, status, 0x10L);
    munmap(m, 2 * pg);
}

/* last: in a UTS namespace of its own, the machine's names are not this process's */
static void names(void) {
    static const char name[] = "tracekit-sweep-host-name-long-enough-to-be-cut-at-32\n\1";
    if (unshare(CLONE_NEWUTS))
        return;
    syscall(SYS_sethostname, name, 52L);
    syscall(SYS_sethostname, name, HI | 2);
    syscall(SYS_sethostname, name, 65L);                          /* EINVAL, not read */
    syscall(SYS_sethostname, name, -1L);
    syscall(SYS_sethostname, NULL, 3L);
    syscall(SYS_sethostname, BADP, 3L);
    syscall(SYS_setdomainname, name + 50, 4L);
    syscall(SYS_setdomainname, name, 0L);
}

/* struct sched_attr (include/uapi/linux/sched/types.h) */
struct attr { uint32_t size, policy; uint64_t flags; int32_t nice; uint32_t prio;
              uint64_t runtime, deadline, period; uint32_t umin, umax; char more[16]; };
#define NOPID 0x7ffffff0L      /* above pid_max: ESRCH once the struct was read */

static void set_attr(uint32_t size, uint32_t policy, uint64_t flags) {
    struct attr a = {size, policy, flags, -20, 7, 1, 2, 3, 5, 1024, {0}};
    syscall(SYS_sched_setattr, NOPID, &a, 0L);
}

static void sched_attr(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct attr a;
    memset(&a, 0, sizeof a);
    syscall(SYS_sched_getattr, 0L, &a, 56L, 0L);
    syscall(SYS_sched_setattr, 0L, &a, 0L);                        /* what it has */
    syscall(SYS_sched_getattr, 0L, &a, 72L, 0L);                   /* larger: 56 written */
    syscall(SYS_sched_getattr, 0L, &a, 48L, 0L);
    syscall(SYS_sched_getattr, 0L, &a, 40L, 0L);                   /* EINVAL */
    syscall(SYS_sched_getattr, 0L, &a, 56L, 1L);                   /* EINVAL */
    syscall(SYS_sched_getattr, 0L, BADP, 56L, 0L);
    syscall(SYS_sched_getattr, HI, &a, HI | 56, HI);
    set_attr(0, SCHED_OTHER, 0);                                   /* 0: the 48 of VER0 */
    set_attr(48, SCHED_BATCH, 0);
    set_attr(56, 99, 0x18);                                        /* KEEP_POLICY|PARAMS */
    set_attr(56, SCHED_BATCH, 0x8);
    set_attr(56, SCHED_BATCH, 0x10);
    set_attr(48, SCHED_BATCH, 0x18);
    set_attr(0, SCHED_DEADLINE, 0x10);
    set_attr(56, 0x80000001, 0x18);                                /* negative: shown */
    set_attr(56, 0x80000001, 0);
    set_attr(56, 7, 0);
    set_attr(56, SCHED_FIFO, 0x1 | 0x80);
    set_attr(56, SCHED_FIFO, 0xffffffff00000000ULL);
    set_attr(56, SCHED_RR, 0x8 | 0x60);
    set_attr(72, SCHED_OTHER, 0);                                  /* larger, zeros */
    set_attr(20, SCHED_OTHER, 0);                                  /* E2BIG: => {size=56} */
    a.size = 72;
    a.more[3] = 1;
    syscall(SYS_sched_setattr, NOPID, &a, 0L);                     /* E2BIG */
    syscall(SYS_sched_setattr, 0L, NULL, 0L);
    syscall(SYS_sched_setattr, 0L, BADP, 0L);
    syscall(SYS_sched_setattr, HI, &a, HI);
    if (m == MAP_FAILED)
        return;
    munmap(m + pg, pg);                          /* structs that end their mapping */
    struct attr *e = (struct attr *)(m + pg - 48);
    memset(e, 0, 48);
    e->size = 48;
    syscall(SYS_sched_setattr, NOPID, e, 0L);
    e = (struct attr *)(m + pg - 4);
    e->size = 56;
    syscall(SYS_sched_setattr, NOPID, e, 0L);
    syscall(SYS_sched_getattr, 0L, m + pg - 48, 56L, 0L);          /* EFAULT */
    munmap(m, pg);
}

static void memory(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char vec[4];
    if (m == MAP_FAILED)
        return;
    m[0] = 1;
    m[2 * pg] = 1;
    syscall(SYS_mlock, m, pg);
    syscall(SYS_munlock, m, pg);
    syscall(SYS_mlock, NULL, 0L);
    syscall(SYS_munlockall);
    syscall(SYS_mincore, m, 4 * pg, vec);
    syscall(SYS_mincore, m, 3 * pg, vec);
    syscall(SYS_mincore, m, pg, NULL);
    syscall(SYS_mincore, m + 1, pg, vec);
    syscall(SYS_mincore, m, pg, BADP);
    syscall(SYS_mincore, m, HI | pg, vec);
    syscall(SYS_mincore, m, 0L, vec);
    syscall(SYS_munlock, m, HI | pg);
    syscall(SYS_madvise, NULL, 0L, MADV_NORMAL);
    syscall(SYS_madvise, m, HI | pg, MADV_NORMAL);
    syscall(SYS_migrate_pages, HI, HI | 1, NULL, NULL);
    static const long advice[] = {
        MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED, 5, 6, 7,
        MADV_FREE, MADV_REMOVE, MADV_DONTFORK, MADV_DOFORK, MADV_MERGEABLE,
        MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP,
        MADV_WIPEONFORK, MADV_KEEPONFORK, 20, 21, 22, 23, 24, 25, 26, 99, 104};
    for (unsigned i = 0; i < sizeof advice / sizeof *advice; i++)
        syscall(SYS_madvise, m + pg, pg, advice[i]);
    syscall(SYS_madvise, m + pg, pg, HI | MADV_RANDOM);
    syscall(SYS_madvise, m + pg, pg, -1L);

    int pfd = syscall(SYS_pidfd_open, getpid(), 0L);
    struct iovec iov[2] = {{m, pg}, {m + 2 * pg, pg}};
    syscall(SYS_process_madvise, pfd, iov, 2L, 20L, 0L);           /* MADV_COLD */
    syscall(SYS_process_madvise, pfd, iov, 1L, 21L, 0L);           /* MADV_PAGEOUT */
    syscall(SYS_process_madvise, pfd, NULL, 1L, 20L, 0L);
    /* advice process_madvise refuses before it acts (EINVAL): their names only */
    syscall(SYS_process_madvise, pfd, iov, 1L, 100L, 0L);         /* MADV_HWPOISON */
    syscall(SYS_process_madvise, pfd, iov, 1L, 101L, 0L);         /* MADV_SOFT_OFFLINE */
    syscall(SYS_process_madvise, pfd, iov, 2L, 99L, 1L);
    syscall(SYS_process_madvise, -1L, iov, 1L, HI | 20L, HI | 2L);
    syscall(SYS_process_mrelease, pfd, 0L);                        /* not dying: EINVAL */
    syscall(SYS_process_mrelease, -1L, 3L);
    int got = syscall(SYS_pidfd_getfd, pfd, 0L, 0L);
    if (got >= 0)
        close(got);
    syscall(SYS_pidfd_getfd, pfd, 1000L, 0L);
    syscall(SYS_pidfd_getfd, -1L, HI, 5L);
    syscall(SYS_pidfd_getfd, HI | pfd, HI | 1000, HI);
    syscall(SYS_process_mrelease, HI | pfd, HI);
    syscall(SYS_process_madvise, pfd, iov, HI | 1, 20L, 0L);

    char src[8] = "abcdefg", dst[8] = "";
    struct iovec liov[2] = {{dst, 3}, {dst + 3, 4}}, riov[1] = {{src, 7}};
    syscall(SYS_process_vm_readv, (long)getpid(), liov, 2L, riov, 1L, 0L);
    syscall(SYS_process_vm_writev, (long)getpid(), riov, 1L, liov, 2L, 0L);
    syscall(SYS_process_vm_readv, (long)getpid(), NULL, 0L, NULL, 0L, 1L);
    syscall(SYS_process_vm_readv, -1L, liov, 2L, riov, 1L, 0L);
    syscall(SYS_process_vm_writev, (long)getpid(), liov, 1L, BADP, 1L, 0L);
    struct iovec many[40];                           /* more than strace shows (32) */
    char bytes40[40];
    for (int k = 0; k < 40; k++)
        many[k] = (struct iovec){bytes40 + k, 1};
    syscall(SYS_process_vm_readv, (long)getpid(), many, 40L, riov, 1L, 0L);
    syscall(SYS_process_madvise, pfd, many, 40L, 99L, 0L);
    char *big = mmap(NULL, 40 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char vec40[40];
    if (big != MAP_FAILED) {
        syscall(SYS_mincore, big, 40 * pg, vec40);
        munmap(big, 40 * pg);
    }

    syscall(SYS_pkey_mprotect, m, pg, PROT_READ | PROT_WRITE, -1L);
    syscall(SYS_pkey_mprotect, m, pg, PROT_READ | 0x100, 5L);
    syscall(SYS_pkey_mprotect, m, pg, HI | PROT_READ | PROT_WRITE, HI | 0xffffffffL);
    syscall(SYS_pkey_free, 15L);
    syscall(SYS_pkey_free, -1L);
    syscall(SYS_pkey_free, HI | 31);
    unsigned long nodes = 0;
    syscall(SYS_migrate_pages, 0L, 0L, NULL, NULL);
    syscall(SYS_migrate_pages, (long)getpid(), 1L, &nodes, &nodes);
    syscall(SYS_migrate_pages, -1L, 1L, &nodes, &nodes);
    unsigned long nodes2[2] = {0, 0};
    syscall(SYS_migrate_pages, (long)getpid(), 64L, nodes2, nodes2);     /* empty masks */
    syscall(SYS_migrate_pages, (long)getpid(), 65L, nodes2, nodes2);
    syscall(SYS_migrate_pages, (long)getpid(), 128L, NULL, nodes2);
    int mode = 0;
    unsigned long got_nodes[2];
    syscall(SYS_get_mempolicy, &mode, got_nodes, 128L, 0L, 0L);         /* reads only */
    syscall(SYS_get_mempolicy, &mode, got_nodes, 1L, 0L, 4L);
    syscall(SYS_get_mempolicy, BADP, NULL, 0L, 0L, 0L);
    syscall(SYS_mbind, NULL, 0L, 2L, nodes2, 130L, 0L);                 /* no range */
    syscall(SYS_mbind, NULL, 0L, 2L, BADP, 64L, 0L);
    syscall(SYS_mlock, BADP, (long)pg);
    syscall(SYS_munlock, NULL, HI);
    syscall(SYS_set_mempolicy_home_node, m, pg, 0L, 1L);           /* flags: EINVAL */
    syscall(SYS_set_mempolicy_home_node, m + 1, pg, 0L, 0L);
    syscall(SYS_set_mempolicy_home_node, NULL, 0L, -2L, -4L);       /* EINVAL */
    /* node masks and a pending set that end their mapping: strace reads the mask's longs
     * (not maxnode bytes), sigsetsize bytes of the set */
    char *e = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (e != MAP_FAILED && munmap(e + pg, pg) == 0) {
        unsigned long *tail = (unsigned long *)(e + pg) - 1;

        *tail = 0;
        syscall(SYS_set_mempolicy, 0L, tail, 63L);                      /* MPOL_DEFAULT */
        syscall(SYS_set_mempolicy, 0L, tail, 0L);                       /* EINVAL: [] */
        syscall(SYS_set_mempolicy, 0L, tail, 130L);                     /* EFAULT: cut */
        syscall(SYS_get_mempolicy, NULL, tail, 64L, NULL, 0L);
        syscall(SYS_rt_sigpending, e + pg - 4, 4L);
        munmap(e, pg);
    }
    if (pfd >= 0)
        close(pfd);
    munmap(m, 4 * pg);
}

static void sysv_ipc(void) {
    int shm = syscall(SYS_shmget, IPC_PRIVATE, 4096L, IPC_CREAT | 0600);
    int sem = syscall(SYS_semget, IPC_PRIVATE, 2L, IPC_CREAT | 0600);
    int msq = syscall(SYS_msgget, IPC_PRIVATE, IPC_CREAT | 0600);
    struct shmid_ds shd;
    struct semid_ds sed;
    struct msqid_ds msd;
    char info[256];
    struct sembuf ops[2] = {{0, 1, SEM_UNDO}, {1, 0, IPC_NOWAIT}};
    struct timespec zero = {0, 0};

    if (shm >= 0) {
        void *at = (void *)syscall(SYS_shmat, shm, NULL, 0L);
        syscall(SYS_shmctl, shm, IPC_STAT, &shd);
        syscall(SYS_shmctl, shm, IPC_STAT | 0x100, &shd);          /* IPC_64 */
        syscall(SYS_shmctl, shm, IPC_STAT, NULL);
        syscall(SYS_shmctl, shm, IPC_STAT, BADP);
        syscall(SYS_shmctl, shm, 99L, &shd);
        syscall(SYS_shmctl, HI | shm, HI | IPC_STAT, &shd);
        if (at != (void *)-1)
            syscall(SYS_shmdt, at);
        syscall(SYS_shmdt, at);                                    /* no longer: EINVAL */
        syscall(SYS_shmdt, NULL);
        syscall(SYS_shmdt, BADP);
        if (syscall(SYS_shmctl, shm, IPC_STAT, &shd) == 0)
            syscall(SYS_shmctl, shm, IPC_SET, &shd);               /* the same values */
        syscall(SYS_shmctl, shm, SHM_LOCK, NULL);
        syscall(SYS_shmctl, shm, SHM_UNLOCK, NULL);
        syscall(SYS_shmctl, 0L, SHM_STAT, &shd);
    }
    syscall(SYS_shmctl, 0L, IPC_INFO, info);
    syscall(SYS_shmctl, 0L, SHM_INFO, info);
    syscall(SYS_shmctl, -1L, IPC_STAT, &shd);
    if (sem >= 0) {
        syscall(SYS_semop, sem, ops, 2L);
        ops[0].sem_op = -1;
        ops[0].sem_flg = IPC_NOWAIT;
        syscall(SYS_semop, sem, ops, 1L);
        syscall(SYS_semop, sem, ops, 1L);                          /* EAGAIN */
        syscall(SYS_semtimedop, sem, ops, 1L, &zero);              /* EAGAIN */
        syscall(SYS_semtimedop, sem, ops, 1L, NULL);               /* EAGAIN */
        syscall(SYS_semtimedop, sem, ops, 1L, BADP);
        syscall(SYS_semop, sem, NULL, 1L);
        syscall(SYS_semop, sem, BADP, 1L);
        syscall(SYS_semop, HI | sem, ops, 0L);
        syscall(SYS_semop, sem, ops, HI | 1);                      /* EAGAIN */
        syscall(SYS_semtimedop, sem, ops, HI | 1, &zero);
        struct sembuf many_ops[40];
        for (int k = 0; k < 40; k++)
            many_ops[k] = (struct sembuf){1, 0, IPC_NOWAIT};
        syscall(SYS_semop, sem, many_ops, 40L);
        syscall(SYS_semctl, sem, 0L, IPC_STAT, &sed);
        syscall(SYS_semctl, sem, 0L, IPC_STAT | 0x100, &sed);
        syscall(SYS_semctl, sem, 1L, GETVAL, NULL);
        syscall(SYS_semctl, sem, 0L, 99L, NULL);
        syscall(SYS_semctl, HI | sem, HI, HI | GETNCNT, NULL);
        unsigned short vals[2] = {3, 4};
        syscall(SYS_semctl, sem, 0L, SETVAL, 5L);
        syscall(SYS_semctl, sem, 0L, SETALL, vals);
        syscall(SYS_semctl, sem, 0L, GETALL, vals);
        syscall(SYS_semctl, sem, 0L, GETPID, NULL);
        syscall(SYS_semctl, sem, 0L, GETZCNT, NULL);
        if (syscall(SYS_semctl, sem, 0L, IPC_STAT, &sed) == 0)
            syscall(SYS_semctl, sem, 0L, IPC_SET, &sed);           /* the same values */
        syscall(SYS_semctl, 0L, 0L, SEM_INFO, info);
        ops[0].sem_flg = SEM_UNDO | 0x2000;
        ops[0].sem_op = 1;
        syscall(SYS_semop, sem, ops, 1L);                          /* unknown flag bit */
        ops[0].sem_flg = 0x2000;
        ops[0].sem_op = -1;
        syscall(SYS_semop, sem, ops, 1L);
    }
    syscall(SYS_semctl, 0L, 0L, IPC_INFO, info);
    syscall(SYS_semctl, -1L, 0L, IPC_STAT, &sed);
    if (msq >= 0) {
        syscall(SYS_msgctl, msq, IPC_STAT, &msd);
        syscall(SYS_msgctl, msq, IPC_STAT | 0x100, &msd);
        syscall(SYS_msgctl, msq, IPC_STAT, NULL);
        syscall(SYS_msgctl, msq, 99L, &msd);
        syscall(SYS_msgctl, HI | msq, HI | IPC_STAT, &msd);
        if (syscall(SYS_msgctl, msq, IPC_STAT, &msd) == 0)
            syscall(SYS_msgctl, msq, IPC_SET, &msd);               /* the same values */
        struct { long mtype; char mtext[8]; } mb = {1, "hi"};
        syscall(SYS_msgsnd, msq, &mb, 2L, IPC_NOWAIT);
        syscall(SYS_msgrcv, msq, &mb, 8L, 0L, IPC_NOWAIT);
        syscall(SYS_msgrcv, msq, &mb, 8L, 0L, IPC_NOWAIT);         /* ENOMSG */
        syscall(SYS_msgctl, 0L, MSG_STAT, &msd);
    }
    syscall(SYS_msgctl, 0L, IPC_INFO, info);
    syscall(SYS_msgctl, 0L, MSG_INFO, info);
    syscall(SYS_msgctl, -1L, IPC_STAT, &msd);
    if (shm >= 0)
        syscall(SYS_shmctl, shm, IPC_RMID, NULL);
    if (sem >= 0)
        syscall(SYS_semctl, sem, 0L, IPC_RMID, NULL);
    if (msq >= 0)
        syscall(SYS_msgctl, msq, IPC_RMID | 0x100, NULL);
    syscall(SYS_msgctl, msq, IPC_RMID, NULL);                      /* gone: EINVAL */
}

static void message_queue(void) {
    char name[64], buf[64];
    struct mq_attr attr = {0, 2, 16, 0}, old;
    struct sigevent sev;
    unsigned prio;
    struct timespec past = {0, 0};

    snprintf(name, sizeof name, "tracekit-sweep-%d", getpid());
    int q = syscall(SYS_mq_open, name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    syscall(SYS_mq_open, name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);   /* EEXIST */
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDONLY, 0L, NULL);
    syscall(SYS_mq_open, NULL, O_RDONLY, 0L, NULL);
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDONLY | O_CLOEXEC | O_DIRECTORY, 0L, NULL);
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDWR | O_CREAT | O_EXCL | 0x10000000,
            07777L, BADP);                                         /* EFAULT: no queue */
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDWR | O_CREAT | O_EXCL, 0600L, &old);
    /* mq_open's mq_flags are not decoded (strace: hex), mq_getsetattr's are */
    struct mq_attr nb = {O_NONBLOCK, 0, 0, 1};
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDWR | O_CREAT | O_EXCL, 0600L, &nb);
    struct mq_attr neg = {-0x3d3e3f4041424345L, 0, 0, 1};  /* a long: hex of its bits */
    syscall(SYS_mq_open, "tracekit-no-such-queue", O_RDWR | O_CREAT | O_EXCL, 0600L, &neg);
    char name2[80];                                  /* default attributes, then gone */
    snprintf(name2, sizeof name2, "tracekit-sweep-%d-2", getpid());
    int q3 = syscall(SYS_mq_open, name2, O_RDWR | O_CREAT | O_EXCL, HI | 0640, NULL);
    if (q3 >= 0) {
        syscall(SYS_mq_getsetattr, q3, NULL, &old);
        close(q3);
    }
    syscall(SYS_mq_unlink, name2);
    syscall(SYS_mq_unlink, "tracekit-no-such-queue");
    int q2 = syscall(SYS_mq_open, name, HI | O_WRONLY | O_NONBLOCK, HI | 0600, BADP);
    if (q2 >= 0)
        close(q2);
    if (q >= 0) {
        syscall(SYS_mq_timedsend, q, NULL, 1L, 0L, NULL);          /* EFAULT */
        syscall(SYS_mq_timedsend, q, "hello", 5L, 3L, NULL);
        syscall(SYS_mq_timedsend, q, "hi", 2L, 1L, &past);
        syscall(SYS_mq_timedsend, q, "full", 4L, 0L, &past);       /* full: ETIMEDOUT */
        syscall(SYS_mq_timedreceive, q, buf, sizeof buf, &prio, NULL);
        syscall(SYS_mq_timedreceive, q, buf, sizeof buf, NULL, &past);
        syscall(SYS_mq_timedreceive, q, buf, sizeof buf, &prio, &past);   /* ETIMEDOUT */
        syscall(SYS_mq_timedreceive, q, buf, 4L, &prio, NULL);     /* EMSGSIZE */
        syscall(SYS_mq_getsetattr, q, NULL, &old);
        attr.mq_flags = O_NONBLOCK;
        syscall(SYS_mq_getsetattr, q, &attr, &old);
        syscall(SYS_mq_timedreceive, q, buf, sizeof buf, &prio, NULL);    /* EAGAIN */
        syscall(SYS_mq_getsetattr, q, NULL, NULL);
        syscall(SYS_mq_getsetattr, q, BADP, NULL);
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_NONE;
        syscall(SYS_mq_notify, q, &sev);
        syscall(SYS_mq_notify, q, NULL);
        sev.sigev_notify = SIGEV_SIGNAL;                           /* empty queue, */
        sev.sigev_signo = SIGUSR2;                                 /* removed before */
        sev.sigev_value.sival_int = 42;                            /* any message */
        syscall(SYS_mq_notify, q, &sev);
        syscall(SYS_mq_notify, q, NULL);
        sev.sigev_notify = 77;
        syscall(SYS_mq_notify, q, &sev);
        syscall(SYS_mq_notify, q, BADP);
        sev.sigev_notify = SIGEV_THREAD;
        sev.sigev_signo = -1;                                      /* no socket: EBADF */
        sev.sigev_value.sival_ptr = buf;
        syscall(SYS_mq_notify, q, &sev);
        sev.sigev_signo = SIGUSR2;
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev._sigev_un._tid = getpid();
        syscall(SYS_mq_notify, q, &sev);                           /* EINVAL */
        syscall(SYS_mq_timedsend, q, "x", 1L, 99999L, NULL);       /* prio: EINVAL */
        syscall(SYS_mq_timedsend, q, "x", 1L, 0L, BADP);
        syscall(SYS_mq_timedreceive, q, NULL, 64L, NULL, NULL);
        syscall(SYS_mq_timedsend, HI | q, "x", HI | 1, HI | 1, &past);
        syscall(SYS_mq_timedreceive, HI | q, buf, HI | 64, &prio, &past);
        attr.mq_flags = O_NONBLOCK | 1;
        syscall(SYS_mq_getsetattr, HI | q, &attr, NULL);
        syscall(SYS_mq_getsetattr, -1L, NULL, &old);
        syscall(SYS_mq_notify, HI | q, NULL);
        close(q);
    }
    syscall(SYS_mq_notify, -1L, NULL);
    syscall(SYS_mq_unlink, name);
    syscall(SYS_mq_unlink, name);                                  /* ENOENT */
    syscall(SYS_mq_unlink, NULL);
}

static void signals(void) {
    sigset_t usr2, old;
    siginfo_t si;
    struct timespec zero = {0, 0};
    pid_t me = getpid();
    long tid = syscall(SYS_gettid);

    syscall(SYS_alarm, 100L);
    syscall(SYS_alarm, 0L);                                        /* = 100 or 99 */
    syscall(SYS_alarm, HI);

    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, &old);
    syscall(SYS_tkill, tid, 0L);
    syscall(SYS_tkill, tid, (long)SIGUSR2);
    sigtimedwait(&usr2, NULL, &zero);
    syscall(SYS_tkill, -1L, 0L);
    syscall(SYS_tkill, HI | tid, 99L);
    syscall(SYS_tkill, tid, HI);
    syscall(SYS_alarm, HI | 0xffffffffL);
    syscall(SYS_alarm, 0L);
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR2;
    si.si_code = SI_QUEUE;
    si.si_pid = me;
    si.si_uid = getuid();
    si.si_value.sival_int = 7;
    syscall(SYS_rt_tgsigqueueinfo, (long)me, tid, (long)SIGUSR2, &si);
    sigtimedwait(&usr2, NULL, &zero);
    syscall(SYS_rt_tgsigqueueinfo, (long)me, tid, (long)SIGUSR2, NULL);
    syscall(SYS_rt_tgsigqueueinfo, -1L, -1L, 0L, &si);
    syscall(SYS_rt_tgsigqueueinfo, (long)me, tid, (long)SIGUSR2, BADP);
    si.si_code = SI_TKILL;
    syscall(SYS_rt_tgsigqueueinfo, (long)me, tid, (long)SIGUSR2, &si);
    sigtimedwait(&usr2, NULL, &zero);
    static const int codes[] = {SI_USER, SI_KERNEL, SI_MESGQ, SI_ASYNCIO, SI_SIGIO, SI_TIMER,
                                1, -60};
    for (unsigned k = 0; k < sizeof codes / sizeof *codes; k++) {
        si.si_code = codes[k];
        syscall(SYS_rt_tgsigqueueinfo, (long)me, tid, (long)SIGUSR2, &si);
        sigtimedwait(&usr2, NULL, &zero);
    }
    si.si_code = SI_QUEUE;
    int pfd = syscall(SYS_pidfd_open, me, 0L);
    syscall(SYS_pidfd_send_signal, pfd, 0L, NULL, 0L);
    syscall(SYS_pidfd_send_signal, pfd, (long)SIGUSR2, &si, 0L);
    sigtimedwait(&usr2, NULL, &zero);
    syscall(SYS_pidfd_send_signal, pfd, (long)SIGUSR2, NULL, 0L);
    sigtimedwait(&usr2, NULL, &zero);
    syscall(SYS_pidfd_send_signal, pfd, 0L, BADP, 0L);
    syscall(SYS_pidfd_send_signal, pfd, 0L, NULL, 8L);
    syscall(SYS_pidfd_send_signal, -1L, HI | 0L, NULL, HI);
    if (pfd >= 0)
        close(pfd);

    int sfd = syscall(SYS_signalfd4, -1L, &usr2, 8L, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd >= 0) {
        syscall(SYS_signalfd4, (long)sfd, &usr2, 8L, 0L);
        close(sfd);
    }
    syscall(SYS_signalfd4, -1L, &usr2, 8L, 0x10L);
    syscall(SYS_signalfd4, -1L, &usr2, 4L, 0L);
    syscall(SYS_signalfd4, -1L, &usr2, 16L, 0L);
    syscall(SYS_signalfd4, -1L, &usr2, HI | 8, 0L);
    syscall(SYS_signalfd4, -1L, NULL, 8L, 0L);
    sfd = syscall(SYS_signalfd4, HI | 0xffffffffL, &usr2, 8L, HI | SFD_CLOEXEC);
    if (sfd >= 0)
        close(sfd);
    sfd = syscall(SYS_signalfd, -1L, &usr2, 8L);
    if (sfd >= 0)
        close(sfd);
    syscall(SYS_signalfd, -1L, BADP, 8L);
    int efd = syscall(SYS_eventfd2, 3L, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
    if (efd >= 0)
        close(efd);
    syscall(SYS_eventfd2, 0L, 0x10L);
    syscall(SYS_eventfd2, HI | 5, HI | EFD_CLOEXEC | 4);
    efd = syscall(SYS_eventfd, 7L);
    if (efd >= 0)
        close(efd);
    efd = syscall(SYS_eventfd, HI | 1);
    if (efd >= 0)
        close(efd);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

static void thread_and_misc(void) {
    unsigned cpu, node;
    struct timex tx;
    struct rlimit64 { uint64_t cur, max; } rl;
    char buf[128];
    uint32_t futex_word = 0;
    struct waitv w[2];

    syscall(SYS_set_robust_list, NULL, 1L);                        /* bad len: EINVAL */
    syscall(SYS_set_robust_list, BADP, HI | 24);
    syscall(SYS_rseq, NULL, 0L, 0L, 0L);                           /* bad len: EINVAL */
    syscall(SYS_rseq, BADP, 32L, 2L, 0x53053053L);
    syscall(SYS_rseq, NULL, 32L, 1L, 0L);
    syscall(SYS_getcpu, &cpu, &node, NULL);
    syscall(SYS_getcpu, NULL, &node, NULL);
    syscall(SYS_getcpu, &cpu, NULL, NULL);
    syscall(SYS_getcpu, NULL, NULL, NULL);
    syscall(SYS_getcpu, BADP, NULL, NULL);
    syscall(SYS_getcpu, &cpu, &node, BADP);

    memset(w, 0, sizeof w);
    w[0].val = 1;                                    /* the word is 0: EAGAIN at once */
    w[0].uaddr = (uintptr_t)&futex_word;
    w[0].flags = 2 | 128;                            /* FUTEX2_SIZE_U32|FUTEX2_PRIVATE */
    w[1] = w[0];
    w[1].flags = 0x10;
    syscall(SYS_futex_waitv, w, 1L, 0L, NULL, (long)CLOCK_MONOTONIC);
    syscall(SYS_futex_waitv, w, 2L, 0L, NULL, (long)CLOCK_MONOTONIC);  /* EINVAL */
    syscall(SYS_futex_waitv, NULL, 0L, 0L, NULL, 0L);
    /* futex op words: the clock bit only on the waits that take it (others: ENOSYS,
     * named in hex); FUTEX_FD's private flag; a command past the known ones */
    static uint32_t word = 1;
    syscall(SYS_futex, &word, (long)(FUTEX_WAKE | FUTEX_CLOCK_REALTIME), 1L, NULL, NULL, 0L);
    syscall(SYS_futex, &word, (long)(FUTEX_WAKE_PRIVATE | FUTEX_CLOCK_REALTIME), 1L, NULL,
            NULL, 0L);
    syscall(SYS_futex, &word, (long)(FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME), 2L,
            NULL, NULL, -1L);
    syscall(SYS_futex, &word, (long)(FUTEX_FD | FUTEX_PRIVATE_FLAG), 1L, NULL, NULL, 0L);
    syscall(SYS_futex, &word, (long)(FUTEX_REQUEUE | FUTEX_CLOCK_REALTIME), 1L, 2L, &word, 0L);
    syscall(SYS_futex, &word, 0x7eL, 1L, NULL, NULL, 0L);
    syscall(SYS_futex_waitv, BADP, 1L, 1L, BADP, (long)CLOCK_REALTIME);
    struct timespec tmo = {0, 0};
    syscall(SYS_futex_waitv, w, 1L, 0L, &tmo, (long)CLOCK_REALTIME);       /* EAGAIN */
    syscall(SYS_futex_waitv, w, 0L, 0L, NULL, (long)CLOCK_MONOTONIC);
    syscall(SYS_futex_waitv, w, HI | 1, HI, NULL, HI | CLOCK_MONOTONIC);
    syscall(SYS_futex_waitv, w, 1L, 0L, &tmo, (long)CLOCK_BOOTTIME);     /* EINVAL */
    struct waitv w40[40];
    for (int k = 0; k < 40; k++)
        w40[k] = w[0];
    syscall(SYS_futex_waitv, w40, 40L, 0L, NULL, (long)CLOCK_MONOTONIC);   /* EAGAIN */
    syscall(SYS_futex_waitv, NULL, 129L, 0L, NULL, 99L);

    syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0L, &(uint32_t){SECCOMP_RET_LOG});
    syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0L, &(uint32_t){0x12345678});
    syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 1L, NULL);
    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0L, buf);
    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0L, NULL);
    syscall(SYS_seccomp, 99L, 0L, NULL);
    syscall(SYS_seccomp, HI | 99L, HI, BADP);

    syscall(SYS_modify_ldt, 0L, buf, sizeof buf);
    syscall(SYS_modify_ldt, 0L, NULL, 0L);
    syscall(SYS_modify_ldt, 2L, buf, 0L);
    syscall(SYS_modify_ldt, 0x13L, BADP, 16L);                     /* ENOSYS */
    syscall(SYS_modify_ldt, 1L, NULL, 16L);                        /* EFAULT */
    memset(buf, 0, sizeof buf);
    syscall(SYS_modify_ldt, 0L, buf, 16L);           /* a read of user_desc's size */
    syscall(SYS_modify_ldt, 2L, buf, 16L);
    syscall(SYS_modify_ldt, HI, buf, HI | 16);
    syscall(SYS_modify_ldt, -1L, NULL, 0L);
    memset(buf, 0, sizeof buf);
    *(int32_t *)buf = 12;                            /* entry 12 (a GDT TLS slot) */
    syscall(SYS_get_thread_area, buf);
    *(int32_t *)buf = -1;
    syscall(SYS_get_thread_area, buf);               /* EINVAL */
    syscall(SYS_get_thread_area, NULL);
    syscall(SYS_set_thread_area, NULL);              /* EFAULT: nothing set */
    syscall(SYS_set_thread_area, BADP);
    struct { uint32_t entry, base, limit, bits; } ud = {0, 0x1000, 0xfffff, 0x51};
    syscall(SYS_set_thread_area, &ud);               /* entry 0 is no TLS slot: fails */
    ud.entry = 12;
    syscall(SYS_get_thread_area, &ud);

    memset(&tx, 0, sizeof tx);                       /* modes = 0: read only */
    syscall(SYS_adjtimex, &tx);
    syscall(SYS_adjtimex, NULL);
    syscall(SYS_adjtimex, BADP);
    memset(&tx, 0, sizeof tx);
    syscall(SYS_clock_adjtime, (long)CLOCK_REALTIME, &tx);
    memset(&tx, 0, sizeof tx);
    syscall(SYS_clock_adjtime, HI | CLOCK_REALTIME, &tx);
    memset(&tx, 0, sizeof tx);
    syscall(SYS_clock_adjtime, (long)CLOCK_MONOTONIC, &tx);
    syscall(SYS_clock_adjtime, (long)CLOCK_REALTIME, NULL);
    syscall(SYS_clock_adjtime, 99L, BADP);

    syscall(SYS_sysfs, 1L, "proc");
    syscall(SYS_sysfs, 1L, "tracekit-nofs");
    syscall(SYS_sysfs, 2L, 0L, buf);
    syscall(SYS_sysfs, 2L, 9999L, buf);
    syscall(SYS_sysfs, 3L);
    syscall(SYS_sysfs, 4L, 0L, 0L);
    syscall(SYS_ustat, 0xfffffL, buf);
    syscall(SYS_ustat, HI | 1, NULL);

    struct itimerval itv;
    syscall(SYS_getitimer, ITIMER_REAL, &itv);
    syscall(SYS_getitimer, ITIMER_PROF, NULL);
    syscall(SYS_getitimer, 3L, &itv);
    syscall(SYS_getitimer, HI | ITIMER_VIRTUAL, &itv);
    syscall(SYS_getitimer, -1L, BADP);
    syscall(SYS_prlimit64, 1L, (long)RLIMIT_NOFILE, NULL, &rl);
    syscall(SYS_prlimit64, 1L, 99L, NULL, &rl);
    syscall(SYS_prlimit64, 1L, HI | RLIMIT_STACK, NULL, BADP);
    syscall(SYS_prlimit64, HI | 1, (long)RLIMIT_CPU, NULL, &rl);
    syscall(SYS_prlimit64, -1L, (long)RLIMIT_CPU, NULL, &rl);
    syscall(SYS_personality, 0xffffffffL);
    syscall(SYS_personality, 0xffffffffffffffffL);
}

/* In a child that then exits: process groups and sessions, set_tid_address,
 * setpriority of its own group, a seccomp filter of NULL (EFAULT). */
static void child(void) {
    syscall(SYS_getpgrp);
    syscall(SYS_getpgid, 0L);
    syscall(SYS_getsid, 0L);
    syscall(SYS_getpgid, -1L);
    syscall(SYS_getsid, HI);
    syscall(SYS_setpgid, 0L, 0L);
    syscall(SYS_setpgid, -1L, 0L);
    syscall(SYS_setpgid, 0L, -1L);
    syscall(SYS_setpgid, HI, HI);
    syscall(SYS_getsid, -1L);
    syscall(SYS_set_tid_address, HI);
    syscall(SYS_setsid);                             /* leads a group already: EPERM */
    syscall(SYS_getpgrp);
    syscall(SYS_set_tid_address, NULL);
    syscall(SYS_set_tid_address, BADP);
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0L, NULL);
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (long)SECCOMP_FILTER_FLAG_LOG, NULL);
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0x100L, NULL);   /* EINVAL */
    syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1L, NULL);       /* flags: EINVAL */
    _exit(0);
}

static void grandchild(void) {
    long now = 20 - syscall(SYS_getpriority, PRIO_PROCESS, 0L);
    syscall(SYS_setsid);                             /* a session of its own */
    syscall(SYS_getsid, 0L);
    syscall(SYS_getpgid, 0L);
    syscall(SYS_setpriority, PRIO_PGRP, 0L, now);    /* only itself in the group */
    syscall(SYS_getpriority, PRIO_PGRP, 0L);
    _exit(0);
}

/* clone3 refused before it forks (exit_signal 256: EINVAL), its struct at a page's end
 * (EFAULT), a size past the struct (E2BIG), and once forking with a NULL parent_tid:
 * the child exits at once. */
static void clone3_calls(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct { struct clone_args a; uint64_t more[2]; } big;
    struct clone_args *end;

    if (m == MAP_FAILED)
        return;
    munmap(m + pg, pg);
    memset(&big, 0, sizeof big);
    big.a.exit_signal = 256, big.a.cgroup = 5;              /* cgroup without its flag */
    syscall(SYS_clone3, &big.a, sizeof big.a);
    big.a.flags = 0x400000;                                  /* CLONE_DETACHED: unnamed */
    syscall(SYS_clone3, &big.a, sizeof big.a);
    big.a.flags = CLONE_NEWTIME | CLONE_IO | CLONE_VM | 0x400000;
    syscall(SYS_clone3, &big.a, 64L);
    big.a.flags = 0, big.more[0] = 0xfacefeeddeadbeefULL;
    syscall(SYS_clone3, &big, 96L);                          /* E2BIG */
    big.more[0] = 0;
    syscall(SYS_clone3, &big, sizeof big);                   /* EINVAL */
    end = (struct clone_args *)(m + pg - sizeof *end);
    memset(end, 0, sizeof *end);
    syscall(SYS_clone3, end, sizeof *end + 8);               /* ??? past it: EFAULT */
    end->exit_signal = SIGCHLD, end->flags = CLONE_PARENT_SETTID;
    long pid = syscall(SYS_clone3, end, sizeof *end);        /* parent_tid=NULL */
    if (pid == 0)
        syscall(SYS_exit, 0);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    munmap(m, pg);
}

/* kexec_file_load of fd -1 (EBADF, or EPERM where kexec is locked down): nothing is
 * loaded (no KEXEC_FILE_UNLOAD either); its command line, as long as its length says */
static void kexec_calls(void) {
    static const char cmdline[] = "console=ttyS0 tracekit-sweep-command-line";

    syscall(SYS_kexec_file_load, -1L, -1L, (long)sizeof cmdline, cmdline, 0L);
    syscall(SYS_kexec_file_load, -1L, -1L, 7L, cmdline, 0L);
    syscall(SYS_kexec_file_load, -1L, -1L, 0L, NULL, 0L);
}

int main(void) {
    kexec_calls();
    clone3_calls();
    scheduling();
    sched_attr();
    memory();
    sysv_ipc();
    message_queue();
    signals();
    thread_and_misc();
    pid_t pid = fork();
    if (pid == 0)
        child();
    if (pid > 0)
        waitpid(pid, NULL, 0);
    pid = fork();
    if (pid == 0)
        grandchild();
    if (pid > 0)
        waitpid(pid, NULL, 0);
    pages();
    names();
    return 0;
}
