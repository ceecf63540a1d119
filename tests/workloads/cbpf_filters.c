/* Classic BPF programs (struct sock_fprog) as seccomp, prctl and setsockopt take them.
 *
 * The parent attaches socket filters to a UDP socket (SO_ATTACH_FILTER,
 * SO_ATTACH_REUSEPORT_CBPF): loads at the special offsets (SKF_LL_OFF, SKF_NET_OFF,
 * SKF_AD_OFF with a known and an unknown ancillary field), jumps, returns; a program
 * of odd codes (unknown modes, operations and bits, which the kernel refuses); an empty
 * program, a NULL one, one of 3 instructions of which 2 end the mapping, one whose
 * first instruction is past it, and a struct sock_fprog that is itself unreadable;
 * then a program the kernel takes, read back with getsockopt(SO_GET_FILTER).
 * A forked child (so the parent stays unfiltered) sets PR_SET_NO_NEW_PRIVS and installs
 * a seccomp filter that makes getppid fail with ENOENT (seccomp, then prctl with another
 * filter), passes programs with every seccomp action (and unknown ones, and return data)
 * with a flag the kernel refuses, so they are not installed, and the cut, NULL and empty
 * programs to both calls; then calls getppid and exits.
 *
 * tests/e2e/test_strace_cbpf.py runs it under strace -f and tracekit at once, with and
 * without -v: every line must be equal. Build: gcc -O1 -Wall -Werror -o cbpf_filters
 * cbpf_filters.c; argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char *page_end;  /* the first byte past the readable page */

static void *at_end(const void *src, size_t n)
{
    char *p = page_end - n;

    memcpy(p, src, n);
    return p;
}

static long sc(unsigned op, unsigned flags, const void *arg)
{
    return syscall(SYS_seccomp, op, flags, arg);
}

static const struct sock_filter sock_insns[] = {
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, SKF_LL_OFF + 4),
    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, SKF_NET_OFF + 8),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + 3),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 5),
    BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 100, 0, 3),
    BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
    BPF_STMT(BPF_LD | BPF_B | BPF_IND, 42),
    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
    BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
    BPF_STMT(BPF_RET | BPF_A, 0),
};

/* codes with parts no name covers: the kernel refuses them (EINVAL) */
static const struct sock_filter odd_insns[] = {
    BPF_STMT(BPF_LD | BPF_W | 0xe0, 1),
    BPF_STMT(BPF_ST | 0x100, 2),
    BPF_STMT(BPF_STX, 3),
    BPF_STMT(BPF_MISC | BPF_TXA | 0x200, 4),
    BPF_STMT(BPF_MISC | 0x40, 5),
    BPF_STMT(BPF_ALU | BPF_X | 0xe0, 6),
    BPF_STMT(BPF_ALU | BPF_NEG, 7),
    BPF_JUMP(BPF_JMP | BPF_X | 0xf0, 8, 1, 0),
    BPF_STMT(BPF_JMP | BPF_JA, 9),
    BPF_STMT(BPF_RET | 0x18, 10),
    BPF_STMT(BPF_RET | BPF_X | 0x400, 11),
    BPF_STMT(BPF_MEM | BPF_LDX | 0x18, 12),
};

static const struct sock_filter deny_getppid[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOENT),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static const struct sock_filter actions[] = {
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | 0x7),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 0xffff),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG),
    BPF_STMT(BPF_RET | BPF_K, 0x60000),
    BPF_STMT(BPF_RET | BPF_K, 0x7ff10001),
    BPF_STMT(BPF_RET | BPF_A, 0x50001),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF),
};

static void child(void)
{
    /* after fork the program's static data is not mapped until touched: a program the
     * call refuses before copying it would be unreadable in the kernel (strace reads it
     * through /proc/PID/mem, which faults it in) */
    char touch = *(volatile const char *)actions + *(volatile const char *)deny_getppid;

    struct sock_fprog deny = {N(deny_getppid), (struct sock_filter *)deny_getppid};
    struct sock_fprog all = {N(actions), (struct sock_filter *)actions};
    struct sock_fprog cut = {3, at_end(deny_getppid, 2 * sizeof(struct sock_filter))};
    struct sock_fprog past = {2, (struct sock_filter *)page_end};
    struct sock_fprog none = {0, (struct sock_filter *)actions};
    struct sock_fprog null = {1, NULL};
    struct sock_fprog *end = at_end(&all, 8);   /* the pointer past the page */

    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    /* refused flags: printed, never installed */
    sc(SECCOMP_SET_MODE_FILTER, 0x80000000, &all);
    sc(SECCOMP_SET_MODE_FILTER, 0x80000000, &cut);
    sc(SECCOMP_SET_MODE_FILTER, 0x80000000, &past);
    sc(SECCOMP_SET_MODE_FILTER, 0, &none);
    sc(SECCOMP_SET_MODE_FILTER, 0, &null);
    sc(SECCOMP_SET_MODE_FILTER, 0, end);
    sc(SECCOMP_SET_MODE_FILTER, 0, NULL);
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &cut, 0, 0);
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &none, 0, 0);
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, end, 0, 0);
    /* installed: getppid fails with ENOENT, everything else is allowed */
    sc(SECCOMP_SET_MODE_FILTER, 0, &deny);
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &deny, 0, 0);
    syscall(SYS_getppid);
    _exit(touch & 0);
}

int main(void)
{
    char *map = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (map == MAP_FAILED)
        return 1;
    munmap(map + 4096, 4096);
    page_end = map + 4096;

    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    struct sock_fprog prog = {N(sock_insns), (struct sock_filter *)sock_insns};
    struct sock_fprog odd = {N(odd_insns), (struct sock_filter *)odd_insns};
    struct sock_fprog none = {0, (struct sock_filter *)sock_insns};
    struct sock_fprog null = {1, NULL};
    struct sock_fprog cut = {3, at_end(sock_insns, 2 * sizeof(struct sock_filter))};
    struct sock_fprog past = {1, (struct sock_filter *)page_end};

    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &odd, sizeof(odd));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &none, sizeof(none));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &null, sizeof(null));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &cut, sizeof(cut));
    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &past, sizeof(past));
    /* one the kernel takes, and what SO_GET_FILTER gives back of it (its count in
     * optlen: with optlen 0, the count alone) */
    struct sock_fprog valid = {N(deny_getppid), (struct sock_filter *)deny_getppid};
    struct sock_filter got[16];
    socklen_t len = N(got);

    setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &valid, sizeof(valid));
    getsockopt(udp, SOL_SOCKET, SO_GET_FILTER, got, &len);
    len = 0;
    getsockopt(udp, SOL_SOCKET, SO_GET_FILTER, got, &len);
    close(udp);

    pid_t pid = fork();

    if (pid == 0)
        child();
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return 0;
}
