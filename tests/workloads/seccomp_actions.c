/* What each seccomp action leaves in a trace, in forked children (the parent stays
 * unfiltered and waits for each):
 *   errno    SECCOMP_RET_ERRNO refuses getppid: the call never reaches sys_enter
 *            (kernel/entry/common.c: syscall_trace_enter returns before the tracepoint),
 *            only its exit, which a tracer prints in its place, = -1 ENOENT;
 *   trap     SECCOMP_RET_TRAP with a SIGSYS handler: the signal line, the handler's
 *            rt_sigreturn, and the child goes on;
 *   trapdfl  SECCOMP_RET_TRAP without a handler: the signal line, killed by SIGSYS;
 *   kill     SECCOMP_RET_KILL_PROCESS: killed by SIGSYS with no signal line (the kernel
 *            forces the signal: a ptracer never stops for it);
 *   thread   SECCOMP_RET_KILL_THREAD in one thread of two (the filter its own: no
 *            SECCOMP_FILTER_FLAG_TSYNC): kernel/seccomp.c calls do_exit(SIGSYS) at the
 *            call's entry, so the call never returns (`getppid() = ?`) and that thread
 *            alone is killed by SIGSYS; the main thread joins it (the kernel's
 *            CLONE_CHILD_CLEARTID wake), calls getpid and exits 0.
 * Core dumps are off (RLIMIT_CORE 0) so "killed by SIGSYS" never says "core dumped".
 * Used by tests/e2e/test_strace_seccomp.py (strace and tracekit on one run). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "getppid_filter.h"

static void on_sigsys(int sig)
{
    (void)sig;
}

static void filter_getppid(unsigned int action)
{
    struct sock_filter f[4];
    struct sock_fprog prog = getppid_filter(f, action);

    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void child(unsigned int action, int handler)
{
    pid_t pid = fork();

    if (pid == 0) {
        if (handler) {
            struct sigaction sa;

            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = on_sigsys;
            sigaction(SIGSYS, &sa, NULL);
        }
        filter_getppid(action);
        syscall(__NR_getppid);
        syscall(__NR_getpid);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static void *refused(void *arg)
{
    (void)arg;
    filter_getppid(SECCOMP_RET_KILL_THREAD);
    syscall(__NR_getppid);
    return 0;
}

static void thread_child(void)
{
    pthread_t t;
    pid_t pid = fork();

    if (pid == 0) {
        if (pthread_create(&t, 0, refused, 0) || pthread_join(t, 0))
            _exit(1);
        syscall(__NR_getpid);
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

int main(void)
{
    struct rlimit no_core = {0, 0};

    setrlimit(RLIMIT_CORE, &no_core);
    child(SECCOMP_RET_ERRNO | ENOENT, 0);
    child(SECCOMP_RET_TRAP | 7, 1);
    child(SECCOMP_RET_TRAP | 7, 0);
    child(SECCOMP_RET_KILL_PROCESS, 0);
    thread_child();
    return 0;
}
