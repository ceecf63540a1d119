/* A 32-bit socketcall (int $0x80 from a 64-bit program) blocked when the tracer attaches:
 * socketcall(SYS_RECV, {fd, buf, 10, 0}) on a socketpair whose other end a child writes
 * once a byte arrives on standard input. tests/e2e/test_strace_sweep_i386.py attaches
 * with -p while it blocks: the call, entered before tracing began, is recorded at its
 * exit from the registers and the words they point to (programs/syscalls.h
 * TK_SC_ATTACHED, TK_SC_INDIRECT). Prints "ready" when it is about to block.
 * Build: gcc -O1 -no-pie -Wall -Werror -o i386_blocked i386_blocked.c (-no-pie: its
 * static data is below 4 GiB, where 32-bit pointers reach). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static long int80(long nr, long a, long b)
{
    long ret;

    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b) : "memory", "cc");
    return ret;
}

static char buf[16];
static uint32_t words[4];

int main(void)
{
    int sv[2];
    pid_t child;
    char c;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return 2;
    child = fork();
    if (child < 0)
        return 2;
    if (child == 0) {
        close(sv[0]);
        if (read(0, &c, 1) == 1 && write(sv[1], "x", 1) == 1)
            _exit(0);
        _exit(1);
    }
    close(sv[1]);
    words[0] = sv[0], words[1] = (uint32_t)(uintptr_t)buf, words[2] = 10, words[3] = 0;
    printf("ready\n");
    fflush(stdout);
    int80(102 /* socketcall */, 10 /* SYS_RECV */, (long)(uintptr_t)words);
    waitpid(child, NULL, 0);
    return 0;
}
