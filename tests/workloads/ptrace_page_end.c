/* ptrace requests whose data ends at the end of a mapped page, the next page unmapped,
 * as strace's own ptrace test places them; on a pid that does not exist, so every call
 * fails with ESRCH after the kernel would have read its data. strace reads each
 * request's struct at its own size: a siginfo (128 bytes), an iovec (16), a seccomp
 * metadata's filter_off (8) are all readable and printed. tracekit's capture of ptrace's
 * data is sized for the largest request (512 bytes) and faults there; what it kept up to
 * the end of the page must print the same.
 *
 * The siginfos cover the members strace prints by signal and code: SIGIO's band and fd,
 * SIGBUS's MCEERR address lsb, SIGSEGV's bounds (BNDERR) and protection key (PKUERR),
 * SIGSYS's syscall by name and arch by name (and an arch and a number without one),
 * si_errno by name and as an unsigned number, codes without a name, signal 0.
 *
 * tests/e2e/test_strace_ptrace_page_end.py runs it under strace -f and tracekit at once:
 * every line must be equal. Build: gcc -O1 -Wall -Werror -o ptrace_page_end
 * ptrace_page_end.c; argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/ptrace.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define NO_PID 0x7ffffff0L

static char *page_end;  /* the first byte past the readable page */

static void *at_end(const void *src, size_t n)
{
    char *p = page_end - n;

    memcpy(p, src, n);
    return p;
}

static void setsiginfo(int signo, int code, int err, const void *tail, size_t n)
{
    siginfo_t si;

    memset(&si, 0, sizeof(si));
    si.si_signo = signo;
    si.si_code = code;
    si.si_errno = err;
    /* the union after signo, errno, code and the padding: 16 bytes in */
    memcpy((char *)&si + 16, tail, n);
    syscall(SYS_ptrace, PTRACE_SETSIGINFO, NO_PID, 0L, at_end(&si, sizeof(si)));
}

int main(void)
{
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED || munmap(m + 4096, 4096))
        return 1;
    page_end = m + 4096;

    struct { int64_t band; int fd; } poll = {-2, 23};
    setsiginfo(SIGIO, POLL_IN, 2, &poll, sizeof(poll));
    setsiginfo(SIGIO, POLL_HUP, 0, &poll, sizeof(poll));
    struct { void *addr; short lsb; char pad[6]; void *lower, *upper; } fault = {
        (void *)0x1000, (short)0xdead, {0}, NULL, (void *)0x2000};
    setsiginfo(SIGBUS, BUS_MCEERR_AR, -2, &fault, sizeof(fault));
    setsiginfo(SIGBUS, BUS_ADRERR, 0, &fault, sizeof(fault));
    setsiginfo(SIGSEGV, 3 /* SEGV_BNDERR */, 0, &fault, sizeof(fault));
    struct { void *addr; char pad[8]; uint32_t pkey; } pku = {NULL, {0}, 3141592653u};
    setsiginfo(SIGSEGV, 4 /* SEGV_PKUERR */, 0, &pku, sizeof(pku));
    setsiginfo(SIGSEGV, 10, 0, &pku, sizeof(pku));
    struct { void *call; int nr; unsigned arch; } sys = {
        (void *)0x401000, __NR_getpid, AUDIT_ARCH_X86_64};
    setsiginfo(SIGSYS, 1 /* SYS_SECCOMP */, 0, &sys, sizeof(sys));
    sys.nr = -1;
    setsiginfo(SIGSYS, 1, 1, &sys, sizeof(sys));
    sys.nr = 0;
    sys.arch = 0xda7a1057;
    setsiginfo(SIGSYS, 1, 0, &sys, sizeof(sys));
    setsiginfo(SIGTRAP, 0x499602d2, 0, &sys, sizeof(sys));
    setsiginfo(0, 0, 0, &sys, 0);

    /* GET/SETREGSET's iovec, its registers elsewhere */
    static uint64_t regs[27];
    struct iovec iov = {regs, 8};
    syscall(SYS_ptrace, PTRACE_GETREGSET, NO_PID, 1L /* NT_PRSTATUS */, at_end(&iov, sizeof(iov)));
    syscall(SYS_ptrace, PTRACE_SETREGSET, NO_PID, 2L /* NT_FPREGSET */, at_end(&iov, sizeof(iov)));

    /* PTRACE_SECCOMP_GET_METADATA: filter_off read when addr holds it */
    uint64_t off = 18072662652281012446u;
    for (long size = 7; size <= 17; size += 1 + 8 * (size == 8))
        syscall(SYS_ptrace, PTRACE_SECCOMP_GET_METADATA, NO_PID, size, at_end(&off, sizeof(off)));
    return 0;
}
