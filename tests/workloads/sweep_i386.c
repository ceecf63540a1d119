/* The common calls of everyday programs made as 32-bit calls (int $0x80, the i386 ABI:
 * nr in eax, arguments in ebx, ecx, edx, esi, edi, ebp; numbers from
 * arch/x86/entry/syscalls/syscall_32.tbl) by a 64-bit program, with normal, NULL, bad
 * pointer and unknown-flag arguments: strace 6.1 decodes them with the i386 table and the
 * i386 struct layouts (struct stat64, 32-bit timespec/timeval/rlimit/sysinfo, compat
 * iovec, sigaction, msghdr...). Sockets both through socketcall and the direct calls of
 * Linux 4.3 (socket, bind, connect, sendto, recvfrom...).
 *
 * Built -no-pie so that its static data sits below 4 GiB, where a 32-bit pointer can name
 * it: every buffer the calls name is static. Every call is harmless: it works on files it
 * made in the scratch directory (its argument, made the working directory), on fds it
 * made, on its own children and itself, or fails before it changes anything. Signals
 * sent are signal 0 (a check); no clock, id, limit or mount is changed.
 *
 * tests/e2e/test_strace_sweep_i386.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -no-pie -Wall -Werror -o sweep_i386 sweep_i386.c. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BADP 1L                 /* an address nothing is mapped at: EFAULT */

/* i386 numbers */
enum {
    NR_exit = 1, NR_read = 3, NR_write = 4, NR_open = 5, NR_close = 6, NR_creat = 8,
    NR_unlink = 10, NR_time = 13, NR_chmod = 15, NR_lseek = 19, NR_getpid = 20,
    NR_access = 33, NR_kill = 37, NR_rename = 38, NR_mkdir = 39, NR_rmdir = 40,
    NR_dup = 41, NR_pipe = 42, NR_times = 43, NR_brk = 45, NR_ioctl = 54, NR_dup2 = 63,
    NR_getrlimit = 76, NR_gettimeofday = 78, NR_select = 82, NR_readlink = 85,
    NR_mmap = 90, NR_munmap = 91, NR_fchmod = 94, NR_statfs = 99, NR_fstatfs = 100,
    NR_socketcall = 102, NR_stat = 106, NR_fstat = 108, NR_wait4 = 114, NR_sysinfo = 116,
    NR_uname = 122, NR_mprotect = 125, NR__llseek = 140, NR__newselect = 142,
    NR_readv = 145, NR_writev = 146, NR_preadv = 333, NR_pwritev = 334,
    NR_preadv2 = 378, NR_pwritev2 = 379, NR_nanosleep = 162, NR_poll = 168,
    NR_rt_sigaction = 174, NR_rt_sigprocmask = 175, NR_pread64 = 180, NR_pwrite64 = 181,
    NR_getcwd = 183, NR_sigaltstack = 186, NR_ugetrlimit = 191, NR_mmap2 = 192,
    NR_stat64 = 195, NR_lstat64 = 196, NR_fstat64 = 197, NR_getuid32 = 199,
    NR_getgid32 = 200, NR_geteuid32 = 201, NR_getgroups32 = 205, NR_chown32 = 212,
    NR_getdents64 = 220, NR_fcntl64 = 221, NR_gettid = 224, NR_exit_group = 252,
    NR_clock_gettime = 265, NR_clock_nanosleep = 267, NR_statfs64 = 268,
    NR_fstatfs64 = 269, NR_tgkill = 270, NR_waitid = 284, NR_openat = 295,
    NR_fstatat64 = 300, NR_faccessat = 307, NR_dup3 = 330, NR_pipe2 = 331,
    NR_prlimit64 = 340, NR_getrandom = 355, NR_statx = 383, NR_clock_gettime64 = 403,
    NR_clock_nanosleep_time64 = 407,
};

static long sc(long nr, uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e,
              uint32_t f)
{
    long ret;
    register long r8 __asm__("r8") = (long)f;

    /* below the red zone; ebp is the sixth argument. The arguments are 32-bit values, zero
     * extended: strace 6.1 prints the 64-bit registers of an int $0x80 call
     * (docs/strace-differences.md), tracekit their low halves as the kernel reads them */
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\tpush %%rbp\n\tmov %%r8, %%rbp\n\t"
                     "int $0x80\n\tpop %%rbp\n\tlea 128(%%rsp), %%rsp"
                     : "=a"(ret), "+r"(r8)
                     : "a"(nr), "b"((long)a), "c"((long)b), "d"((long)c), "S"((long)d), "D"((long)e)
                     : "memory", "r9", "r10", "r11", "cc");
    return ret;
}

#define S0(n) sc(n, 0, 0, 0, 0, 0, 0)
#define S1(n, a) sc(n, (long)(a), 0, 0, 0, 0, 0)
#define S2(n, a, b) sc(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define S3(n, a, b, c) sc(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define S4(n, a, b, c, d) sc(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define S5(n, a, b, c, d, e) sc(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define S6(n, a, b, c, d, e, f) \
    sc(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

static char buf[4096] __attribute__((aligned(16)));
static char big[512] __attribute__((aligned(16)));
static char text[] = "hello, i386\n";
static char part1[] = "abc", part2[] = "defgh";
static uint32_t iov[4];                 /* compat iovec: {base, len} of 32 bits */
static uint32_t words[64];               /* timespecs, rlimits, sigsets... */
static uint64_t longs[8];
static int fds[2];

static void files(void)
{
    long fd, fd2;

    S2(NR_mkdir, "d", 0755);
    S2(NR_mkdir, "d", 0755);                                    /* EEXIST */
    S2(NR_mkdir, 0, 0755);
    fd = S3(NR_open, "f", 0102 /* O_RDWR|O_CREAT */, 0600);
    S3(NR_open, "nonexistent", 0, 0);
    S3(NR_open, BADP, 0, 0);
    S3(NR_open, "f", 0x40000000 | 2, 0);                        /* unknown bit */
    S3(NR_open, "d", 0200000 /* O_DIRECTORY */ | 04000000 /* O_PATH... */, 0);
    S3(NR_open, "f", 0100000 /* O_LARGEFILE */, 0);
    S4(NR_openat, -100, "f", 02000000 /* O_CLOEXEC */, 0);
    S4(NR_openat, -1, "f", 0, 0);
    S4(NR_openat, -100, 0, 0, 0);
    S2(NR_creat, "c", 0640);
    S2(NR_creat, 0, 0600);
    S2(NR_access, "f", 6);
    S2(NR_access, "nonexistent", 0);
    S2(NR_access, "f", 0x10);
    S4(NR_faccessat, -100, "f", 4, 0);
    S4(NR_faccessat, -1, BADP, 0, 0);

    S3(NR_write, fd, text, strlen(text));
    S3(NR_write, fd, 0, 5);
    S3(NR_write, -1, text, 3);
    S3(NR_lseek, fd, 0, 0 /* SEEK_SET */);
    S3(NR_lseek, fd, -1, 1 /* SEEK_CUR */);
    S3(NR_lseek, fd, 0, 7);
    S5(NR__llseek, fd, 0, 2, longs, 0);
    S5(NR__llseek, fd, 0, 0, BADP, 0);
    S5(NR__llseek, fd, 1, 0, longs, 2 /* SEEK_END */);      /* 4 GiB past the end */
    S5(NR__llseek, fd, 0, 0, longs, 0);
    S3(NR_read, fd, buf, 5);
    S3(NR_read, fd, 0, 5);
    S3(NR_read, fd, BADP, 5);
    iov[0] = (uint32_t)(uintptr_t)part1, iov[1] = 3;
    iov[2] = (uint32_t)(uintptr_t)part2, iov[3] = 5;
    S3(NR_writev, fd, iov, 2);
    S3(NR_writev, fd, 0, 0);
    S3(NR_writev, fd, BADP, 1);
    S3(NR_writev, fd, iov, -1);
    S3(NR_lseek, fd, 0, 0);
    iov[0] = (uint32_t)(uintptr_t)big, iov[1] = 4;
    iov[2] = (uint32_t)(uintptr_t)(big + 8), iov[3] = 100;
    S3(NR_readv, fd, iov, 2);
    S3(NR_readv, fd, BADP, 2);
    S3(NR_readv, fd, iov, 0);
    iov[0] = BADP;                                              /* EFAULT: a base */
    S3(NR_readv, fd, iov, 2);
    S5(NR_pwrite64, fd, "PQ", 2, 3, 0);
    S5(NR_pwrite64, fd, "PQ", 2, 0, 1);                         /* offset 4 GiB */
    S5(NR_pwrite64, fd, "PQ", 2, -1, -1);                        /* EINVAL */
    S5(NR_pread64, fd, buf, 8, 1, 0);
    S5(NR_pread64, fd, buf, 8, 0, 1);                           /* past the end: 0 */
    S5(NR_pread64, fd, BADP, 8, 0, 0);
    S2(NR_fstat64, fd, longs);
    S2(NR_stat64, "f", buf);
    S2(NR_stat64, "nonexistent", buf);
    S2(NR_stat64, "f", 0);
    S2(NR_lstat64, "d", buf);
    S2(NR_fstat64, fd, buf);
    S2(NR_fstat64, -1, buf);
    S2(NR_fstat64, fd, BADP);
    S4(NR_fstatat64, -100, "f", buf, 0);
    S4(NR_fstatat64, -100, "f", buf, 0x100 /* AT_SYMLINK_NOFOLLOW */);
    S4(NR_fstatat64, -100, "", buf, 0x1000 /* AT_EMPTY_PATH */);
    S4(NR_fstatat64, -100, "f", buf, 0x4);                      /* EINVAL */
    S5(NR_statx, -100, "f", 0, 0x7ff /* STATX_BASIC_STATS */, buf);
    S5(NR_statx, -100, "f", 0x100, 0x1, BADP);
    S5(NR_statx, -100, "nonexistent", 0, 0xfff, buf);
    S2(NR_stat, "f", buf);                                      /* struct __old_kernel_stat? */
    S2(NR_fstat, fd, buf);
    S2(NR_statfs, ".", buf);
    S2(NR_fstatfs, fd, buf);
    S3(NR_statfs64, ".", 84, buf);
    S3(NR_statfs64, ".", 88, buf);                              /* EINVAL: the size */
    S3(NR_fstatfs64, fd, 84, buf);
    S3(NR_fstatfs64, fd, 84, BADP);
    S2(NR_statfs, "nonexistent", buf);

    S2(NR_chmod, "f", 0640);
    S2(NR_chmod, "nonexistent", 0640);
    S2(NR_fchmod, fd, 0600);
    S2(NR_fchmod, -1, 0600);
    S3(NR_chown32, "f", -1, -1);
    S3(NR_chown32, 0, -1, -1);
    S2(NR_rename, "c", "c2");
    S2(NR_rename, "nonexistent", "c3");
    S2(NR_rename, BADP, 0);
    S1(NR_unlink, "c2");
    S1(NR_unlink, "nonexistent");
    S2(NR_readlink, "f", buf);                                  /* EINVAL: not a link */
    S3(NR_readlink, "/proc/self/exe", 0, 0);
    S3(NR_readlink, "/proc/self/cwd", buf, 3);
    S3(NR_readlink, "/proc/self/cwd", buf, sizeof buf);
    S2(NR_getcwd, buf, sizeof buf);
    S2(NR_getcwd, buf, 1);                                      /* ERANGE */
    S2(NR_getcwd, 0, 0);
    S2(NR_getcwd, BADP, 100);

    fd2 = S3(NR_open, ".", 0200000, 0);
    S3(NR_getdents64, fd2, buf, sizeof buf);
    S3(NR_getdents64, fd2, buf, sizeof buf);                    /* the end: 0 */
    S3(NR_getdents64, fd2, 0, 0);
    S3(NR_getdents64, -1, buf, sizeof buf);
    S1(NR_close, fd2);
    S1(NR_rmdir, "d");
    S1(NR_rmdir, "nonexistent");

    S1(NR_dup, fd);
    S1(NR_dup, -1);
    S2(NR_dup2, fd, 50);
    S2(NR_dup2, fd, -1);
    S3(NR_dup3, fd, 51, 02000000);
    S3(NR_dup3, fd, 52, 0x4);
    S1(NR_pipe, fds);
    S1(NR_pipe, BADP);
    S2(NR_pipe2, fds, 02004000 /* O_CLOEXEC|O_NONBLOCK */);
    S2(NR_pipe2, fds, 0x1);
    S2(NR_fcntl64, fd, 3 /* F_GETFL */);
    S2(NR_fcntl64, fd, 1 /* F_GETFD */);
    S3(NR_fcntl64, fd, 2 /* F_SETFD */, 1);
    /* struct flock64, i386: short type, short whence, then 64-bit start and len packed
     * at 4-byte alignment, int pid (24 bytes) */
    memset(words, 0, sizeof words);
    words[0] = 1 /* F_WRLCK */ | 0 << 16;
    words[1] = 10, words[2] = 0;
    words[3] = 20, words[4] = 0;
    S3(NR_fcntl64, fd, 13 /* F_SETLK64 */, words);
    S3(NR_fcntl64, fd, 12 /* F_GETLK64 */, words);
    S3(NR_fcntl64, fd, 13, BADP);
    /* struct flock (compat): short type, short whence, 32-bit start, len, pid */
    words[0] = 2 /* F_UNLCK */ | 1 << 16;
    words[1] = 5, words[2] = 6, words[3] = 0;
    S3(NR_fcntl64, fd, 6 /* F_SETLK */, words);
    S3(NR_fcntl64, fd, 5 /* F_GETLK */, words);
    S3(NR_fcntl64, fd, 1024 /* F_SETLEASE */ + 1000, 0);
    S3(NR_ioctl, fd, 0x5401 /* TCGETS */, buf);
    S3(NR_ioctl, fd, 0x541b /* FIONREAD */, words);
    S3(NR_ioctl, -1, 0x5401, buf);
    /* preadv/pwritev: the offset in two registers, low half first; *v2: then flags */
    iov[0] = (uint32_t)(uintptr_t)part1, iov[1] = 3;
    iov[2] = (uint32_t)(uintptr_t)part2, iov[3] = 5;
    S5(NR_pwritev, fd, iov, 2, 20, 0);
    S5(NR_pwritev, fd, iov, 2, 0, 1);                          /* offset 4 GiB: EFBIG */
    iov[0] = (uint32_t)(uintptr_t)big, iov[1] = 4;
    iov[2] = (uint32_t)(uintptr_t)(big + 8), iov[3] = 100;
    S5(NR_preadv, fd, iov, 2, 20, 0);
    S5(NR_preadv, fd, BADP, 2, 0, 0);
    S6(NR_preadv2, fd, iov, 2, 0, 0, 0x2 /* RWF_HIPRI */);
    S6(NR_preadv2, fd, iov, 1, -1, -1, 0);                      /* at the file position */
    iov[0] = (uint32_t)(uintptr_t)part1, iov[1] = 3;
    S6(NR_pwritev2, fd, iov, 1, 30, 0, 0x10 /* RWF_APPEND */);
    S6(NR_pwritev2, fd, iov, 1, 0, 0, 0x1000);                  /* EOPNOTSUPP */
    S1(NR_close, fd);
    S1(NR_close, -1);
}

static void memory(void)
{
    long addr;

    addr = S6(NR_mmap2, 0, 4096, 3, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, -1, 0);
    S3(NR_mprotect, addr, 4096, 1);
    S3(NR_mprotect, addr, 4096, 0x10000);
    S2(NR_munmap, addr, 4096);
    S6(NR_mmap2, 0, 4096, 3, 0x22, -1, 0);
    S6(NR_mmap2, 0, 4096, 3, 0x2, -1, 0);                       /* EBADF */
    S6(NR_mmap2, 0, 0, 3, 0x22, -1, 0);                         /* EINVAL */
    /* old mmap: the arguments in a struct of six 32-bit words */
    memset(words, 0, sizeof words);
    words[1] = 4096, words[2] = 1, words[3] = 0x22, words[4] = (uint32_t)-1;
    S1(NR_mmap, words);
    S1(NR_brk, 0);
}

static void clocks(void)
{
    S1(NR_uname, buf);
    S1(NR_uname, 0);
    S2(NR_gettimeofday, words, 0);
    S2(NR_gettimeofday, 0, 0);
    S2(NR_gettimeofday, BADP, 0);
    S2(NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, words);
    S2(NR_clock_gettime, 0, BADP);
    S2(NR_clock_gettime, 99, words);
    S2(NR_clock_gettime64, 1, longs);
    S2(NR_clock_gettime64, 0, 0);
    words[0] = 0, words[1] = 1000;
    S2(NR_nanosleep, words, words + 2);
    S2(NR_nanosleep, 0, 0);
    words[0] = 0, words[1] = 2000000000;                        /* EINVAL */
    S2(NR_nanosleep, words, 0);
    words[0] = 0, words[1] = 1000;
    S4(NR_clock_nanosleep, 1, 0, words, 0);
    S4(NR_clock_nanosleep, 1, 0x10, words, 0);
    longs[0] = 0, longs[1] = 1000;
    S4(NR_clock_nanosleep_time64, 1, 0, longs, 0);
    S1(NR_time, words);
    S1(NR_time, 0);
    S1(NR_times, words);
    S1(NR_times, 0);
    S2(NR_getrlimit, 7 /* RLIMIT_NOFILE */, words);
    S2(NR_getrlimit, 99, words);
    S2(NR_ugetrlimit, 3 /* RLIMIT_STACK */, words);
    S2(NR_ugetrlimit, 7, BADP);
    S4(NR_prlimit64, 0, 7, 0, longs);
    S4(NR_prlimit64, 0, 3, 0, longs);
    S4(NR_prlimit64, 0, 99, 0, longs);
    S1(NR_sysinfo, buf);
    S1(NR_sysinfo, BADP);
}

static void signals(void)
{
    long pid = S0(NR_getpid);

    /* compat struct sigaction: handler, flags, restorer (32 bits), sa_mask (64 bits) */
    memset(words, 0, sizeof words);
    words[0] = 1 /* SIG_IGN */;
    words[1] = 0x10000000 /* SA_RESTART */ | 0x4000000 /* SA_RESTORER */;
    words[2] = 0x401000;
    words[3] = 1 << 1 /* SIGINT */, words[4] = 1;
    S4(NR_rt_sigaction, 10 /* SIGUSR1 */, words, words + 8, 8);
    S4(NR_rt_sigaction, 10, 0, words + 8, 8);
    S4(NR_rt_sigaction, 12 /* SIGUSR2 */, 0, words + 8, 8);
    S4(NR_rt_sigaction, 10, 0, words + 8, 16);                  /* EINVAL */
    S4(NR_rt_sigaction, 9 /* SIGKILL */, words, 0, 8);
    S4(NR_rt_sigaction, 10, BADP, 0, 8);
    words[16] = 1 << 9 /* SIGUSR1 */, words[17] = 0;
    S4(NR_rt_sigprocmask, 0 /* SIG_BLOCK */, words + 16, words + 18, 8);
    S4(NR_rt_sigprocmask, 1 /* SIG_UNBLOCK */, words + 16, 0, 8);
    S4(NR_rt_sigprocmask, 2, 0, words + 18, 8);
    S4(NR_rt_sigprocmask, 7, words + 16, 0, 8);
    S4(NR_rt_sigprocmask, 0, BADP, 0, 8);
    /* compat stack_t: ss_sp, ss_flags, ss_size */
    S2(NR_sigaltstack, 0, words + 20);
    words[24] = 0, words[25] = 2 /* SS_DISABLE */, words[26] = 0;
    S2(NR_sigaltstack, words + 24, 0);
    S2(NR_sigaltstack, BADP, 0);
    S2(NR_kill, pid, 0);
    S2(NR_kill, pid, 99);
    S3(NR_tgkill, pid, S0(NR_gettid), 0);
    S3(NR_tgkill, pid, -1, 0);
    S0(NR_getuid32);
    S0(NR_getgid32);
    S0(NR_geteuid32);
    S2(NR_getgroups32, 0, 0);
    S2(NR_getgroups32, 64, words + 32);
    S2(NR_getgroups32, 1, BADP);
}

static void children(void)
{
    long pid;

    pid = fork();
    if (pid == 0)
        _exit(3);
    if (pid < 0)
        return;
    S4(NR_wait4, pid, words, 0, buf);
    S4(NR_wait4, -1, words, 1 /* WNOHANG */, 0);                /* ECHILD */
    S4(NR_wait4, -1, words, 0x40000000, 0);
    pid = fork();
    if (pid == 0)
        _exit(4);
    if (pid < 0)
        return;
    S5(NR_waitid, 1 /* P_PID */, pid, buf, 4 /* WEXITED */, 0);
    S5(NR_waitid, 0 /* P_ALL */, 0, buf, 4 | 1 /* WNOHANG */, 0);
    S5(NR_waitid, 1, pid, 0, 4, 0);
}

/* socketcall(call, args): the sub-call's arguments are 32-bit words at args (a, at the
 * end of words: the words the other calls use stay apart) */
#define SOCKETCALL(call, ...) \
    (set_words((uint32_t[]){__VA_ARGS__}, sizeof((uint32_t[]){__VA_ARGS__}) / 4), \
     S2(NR_socketcall, call, sargs))

static uint32_t sargs[6];
static char sock_path[16] = {1, 0, 's', 'o', 'c', 'k'};   /* struct sockaddr_un "sock" */
static char addr_out[128];
static uint32_t lens[8];                        /* socklen_t in/out, option values */

static void set_words(const uint32_t *w, unsigned int n)
{
    memset(sargs, 0, sizeof sargs);
    memcpy(sargs, w, n * 4);
}

#define P(x) ((uint32_t)(uintptr_t)(x))

/* struct compat_msghdr (7 u32: name, namelen, iov, iovlen, control, controllen, flags)
 * and struct compat_cmsghdr (u32 len, int level, int type, then the data, 4-aligned) */
static uint32_t msg[7], msg_iov[4], ctl[8];
static char msg_buf[32];

static void messages(void)
{
    msg_iov[0] = P("ab"), msg_iov[1] = 2;
    msg_iov[2] = P("cde"), msg_iov[3] = 3;
    ctl[0] = 12 + 4, ctl[1] = 1 /* SOL_SOCKET */, ctl[2] = 1 /* SCM_RIGHTS */;
    ctl[3] = fds[0];
    msg[0] = 0, msg[1] = 0, msg[2] = P(msg_iov), msg[3] = 2;
    msg[4] = P(ctl), msg[5] = 16, msg[6] = 0;
    SOCKETCALL(16 /* SYS_SENDMSG */, fds[0], P(msg), 0);
    memset(ctl, 0, sizeof ctl);
    msg_iov[0] = P(msg_buf), msg_iov[1] = 4;
    msg_iov[2] = P(msg_buf + 8), msg_iov[3] = 16;
    msg[0] = P(addr_out), msg[1] = sizeof addr_out, msg[5] = sizeof ctl;
    SOCKETCALL(17 /* SYS_RECVMSG */, fds[1], P(msg), 0);
    S1(NR_close, ctl[3]);                                       /* the fd received */
    msg[0] = 0, msg[1] = 0;
    SOCKETCALL(17, fds[1], P(msg), 0x40 /* MSG_DONTWAIT */);    /* EAGAIN */
    SOCKETCALL(16, fds[0], BADP, 0);                            /* EFAULT */
    /* the direct calls of Linux 4.3: the same structs */
    msg_iov[0] = P("fgh"), msg_iov[1] = 3;
    msg[2] = P(msg_iov), msg[3] = 1, msg[4] = 0, msg[5] = 0;
    S3(370 /* sendmsg */, fds[1], msg, 0x4000 /* MSG_NOSIGNAL */);
    msg_iov[0] = P(msg_buf), msg_iov[1] = 8;
    S3(372 /* recvmsg */, fds[0], msg, 0);
    msg[3] = 1000000;                                           /* EMSGSIZE */
    S3(370, fds[1], msg, 0);
    S3(372, fds[0], BADP, 0);
}

/* struct compat_mmsghdr: a compat_msghdr, then u32 msg_len (32 bytes); datagrams */
static uint32_t mmsg[16], mmsg_iov[8], mmsg_ts[2];
static uint64_t mmsg_ts64[2];
static char mbuf1[16], mbuf2[16];

static void mmsgs(void)
{
    static int dg[2];                   /* static: below 4 GiB */

    SOCKETCALL(8, 1, 2 /* SOCK_DGRAM */, 0, P(dg));
    memset(mmsg, 0, sizeof mmsg);
    mmsg_iov[0] = P("ab"), mmsg_iov[1] = 2, mmsg_iov[2] = P("cde"), mmsg_iov[3] = 3;
    mmsg[2] = P(mmsg_iov), mmsg[3] = 1, mmsg[10] = P(mmsg_iov + 2), mmsg[11] = 1;
    SOCKETCALL(20 /* SYS_SENDMMSG */, dg[0], P(mmsg), 2, 0);
    memset(mmsg, 0, sizeof mmsg);
    mmsg_iov[4] = P(mbuf1), mmsg_iov[5] = 16, mmsg_iov[6] = P(mbuf2), mmsg_iov[7] = 16;
    mmsg[2] = P(mmsg_iov + 4), mmsg[3] = 1, mmsg[10] = P(mmsg_iov + 6), mmsg[11] = 1;
    SOCKETCALL(19 /* SYS_RECVMMSG */, dg[1], P(mmsg), 2, 0, 0);
    SOCKETCALL(19, dg[1], P(mmsg), 2, 0x40 /* MSG_DONTWAIT */, 0);   /* EAGAIN */
    SOCKETCALL(20, dg[0], BADP, 2, 0);                              /* EFAULT */
    /* the direct calls: recvmmsg with an old_timespec32, recvmmsg_time64 a 64-bit one
     * (as many datagrams sent as asked for: recvmmsg's timeout is looked at only after
     * a datagram arrives) */
    mmsg[2] = P(mmsg_iov), mmsg[3] = 2, mmsg[10] = P(mmsg_iov + 2), mmsg[11] = 1;
    S4(345 /* sendmmsg */, dg[0], mmsg, 2, 0);
    mmsg[2] = P(mmsg_iov + 4), mmsg[3] = 2, mmsg[10] = P(mmsg_iov + 6), mmsg[11] = 1;
    mmsg_ts[0] = 1, mmsg_ts[1] = 0;
    S5(337 /* recvmmsg */, dg[1], mmsg, 2, 0, mmsg_ts);
    S5(337, dg[1], mmsg, 2, 0x40, mmsg_ts);                        /* EAGAIN */
    mmsg[2] = P(mmsg_iov), mmsg[3] = 1;
    S4(345, dg[0], mmsg, 1, 0);
    mmsg[2] = P(mmsg_iov + 4);
    mmsg_ts64[0] = 1, mmsg_ts64[1] = 0;
    S5(417 /* recvmmsg_time64 */, dg[1], mmsg, 1, 0, mmsg_ts64);
    S1(NR_close, dg[0]);
    S1(NR_close, dg[1]);
}

static void socketcalls(void)
{
    long s, c, a;

    /* the sub-calls of socketcall, printed as the calls they name */
    s = SOCKETCALL(1 /* SYS_SOCKET */, 1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0);
    SOCKETCALL(2 /* SYS_BIND */, s, P(sock_path), 2 + 5);
    SOCKETCALL(2, s, BADP, 7);                                  /* EFAULT: sockaddr */
    memset(big, 0, sizeof big);
    big[0] = 1;
    strcpy(big + 2, "nonexistent");
    SOCKETCALL(3 /* SYS_CONNECT */, s, P(big), 2 + 12);
    SOCKETCALL(4 /* SYS_LISTEN */, s, 5);
    c = SOCKETCALL(1, 1, 1, 0);
    SOCKETCALL(3, c, P(sock_path), 2 + 5);
    a = SOCKETCALL(5 /* SYS_ACCEPT */, s, 0, 0);
    SOCKETCALL(9 /* SYS_SEND */, c, P("hi"), 2, 0);
    SOCKETCALL(10 /* SYS_RECV */, a, P(buf), 10, 0x40 /* MSG_DONTWAIT */);
    SOCKETCALL(10, a, P(buf), 10, 0x40);                        /* EAGAIN */
    SOCKETCALL(11 /* SYS_SENDTO */, c, P("yo"), 2, 0, 0, 0);
    SOCKETCALL(11, c, BADP, 2, 0, 0, 0);                        /* EFAULT */
    lens[0] = sizeof addr_out;
    SOCKETCALL(12 /* SYS_RECVFROM */, a, P(buf), 10, 0, P(addr_out), P(lens));
    lens[1] = 1;
    SOCKETCALL(14 /* SYS_SETSOCKOPT */, s, 1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */,
               P(lens + 1), 4);
    SOCKETCALL(14, s, 1, 2, BADP, 4);                           /* EFAULT */
    lens[2] = 4;
    SOCKETCALL(15 /* SYS_GETSOCKOPT */, s, 1, 7 /* SO_SNDBUF */, P(lens + 1), P(lens + 2));
    SOCKETCALL(15, s, 1, 7, P(lens + 1), BADP);                 /* EFAULT */
    lens[3] = sizeof addr_out;
    SOCKETCALL(6 /* SYS_GETSOCKNAME */, s, P(addr_out), P(lens + 3));
    lens[3] = sizeof addr_out;
    SOCKETCALL(7 /* SYS_GETPEERNAME */, c, P(addr_out), P(lens + 3));
    SOCKETCALL(7, s, P(addr_out), P(lens + 3));                 /* ENOTCONN */
    SOCKETCALL(8 /* SYS_SOCKETPAIR */, 1, 1, 0, P(fds));
    messages();
    mmsgs();
    S1(NR_close, fds[0]);
    S1(NR_close, fds[1]);
    SOCKETCALL(8, 1, 1, 0, BADP);                               /* EFAULT */
    SOCKETCALL(18 /* SYS_ACCEPT4 */, c, 0, 0, 0x800 /* SOCK_NONBLOCK */);   /* EINVAL */
    SOCKETCALL(13 /* SYS_SHUTDOWN */, c, 2 /* SHUT_RDWR */);
    SOCKETCALL(13, c, 7);                                       /* EINVAL */
    SOCKETCALL(1, 1, 99, 0);                                    /* EINVAL */
    /* the words unreadable, or no sub-call: socketcall itself */
    S2(NR_socketcall, 1, 0);
    S2(NR_socketcall, 1, BADP);
    S2(NR_socketcall, 99, sargs);
    S2(NR_socketcall, 0, sargs);
    S2(NR_socketcall, -1, sargs);
    S1(NR_close, a);
    S1(NR_close, c);
    S1(NR_close, s);
    S1(NR_unlink, "sock");
}

static void sockets(void)
{
    long s;

    socketcalls();

    /* the direct socket calls of Linux 4.3 (i386 numbers 359...) */
    s = S3(359 /* socket */, 1, 2 /* SOCK_DGRAM */, 0);
    big[0] = 1, big[1] = 0;
    strcpy(big + 2, "dgram");
    S3(361 /* bind */, s, big, 2 + 6);
    S3(362 /* connect */, s, big, 2 + 6);
    S6(369 /* sendto */, s, "ping", 4, 0x40 /* MSG_DONTWAIT */, 0, 0);
    words[40] = sizeof buf;
    S6(371 /* recvfrom */, s, buf, sizeof buf, 0x40, big + 128, words + 40);
    words[41] = 64;
    S3(367 /* getsockname */, s, big + 256, words + 41);
    words[42] = 1, words[43] = 4;
    S5(366 /* setsockopt */, s, 1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */, words + 42, 4);
    S5(365 /* getsockopt */, s, 1, 7 /* SO_SNDBUF */, words + 42, words + 43);
    S2(373 /* shutdown */, s, 2 /* SHUT_RDWR */);
    S1(NR_close, s);
    S4(360 /* socketpair */, 1, 1, 0, fds);
    S1(NR_close, fds[0]);
    S1(NR_close, fds[1]);
    S1(NR_unlink, "dgram");
}

static void waits(void)
{
    /* fd_set of 32-bit longs; timeval of 32-bit longs */
    S2(NR_pipe, fds, 0);
    memset(words, 0, sizeof words);
    words[0] = 1u << fds[0] | 1u << fds[1];
    words[1] = 1u << fds[1];
    words[4] = 0, words[5] = 1000;
    S5(NR__newselect, fds[1] + 1, words, words + 1, 0, words + 4);
    S5(NR__newselect, 0, 0, 0, 0, words + 4);
    S5(NR__newselect, -1, 0, 0, 0, 0);
    S5(NR__newselect, 2, BADP, 0, 0, words + 4);
    /* old select: struct of n, inp, outp, exp, tvp */
    words[8] = fds[1] + 1;
    words[9] = (uint32_t)(uintptr_t)words;
    words[10] = 0, words[11] = 0;
    words[12] = (uint32_t)(uintptr_t)(words + 4);
    words[0] = 1u << fds[1];
    words[4] = 0, words[5] = 1000;
    S1(NR_select, words + 8);
    S1(NR_select, 0);
    S1(NR_select, BADP);
    words[9] = BADP;                                            /* EFAULT: a set */
    S1(NR_select, words + 8);
    words[8] = 0, words[9] = 0;                                 /* no fds, a timeout */
    S1(NR_select, words + 8);
    /* struct pollfd: same in both ABIs */
    words[16] = fds[0], words[17] = 1 /* POLLIN */;
    words[18] = fds[1], words[19] = 4 /* POLLOUT */;
    S3(NR_poll, words + 16, 2, 0);
    S3(NR_poll, 0, 0, 1);
    S3(NR_poll, BADP, 1, 0);
    S3(NR_getrandom, buf, 8, 0);
    S3(NR_getrandom, buf, 8, 0x10);
    S3(NR_getrandom, 0, 0, 1 /* GRND_NONBLOCK */);
    S1(NR_close, fds[0]);
    S1(NR_close, fds[1]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || chdir(argv[1]))
        return 2;
    files();
    memory();
    clocks();
    signals();
    children();
    sockets();
    waits();
    S1(NR_exit_group, 0);
    return 1;
}
