/* Threads killed in their calls by a signal whose default action ends the process
 * without a core dump, each case in a forked child (the program itself exits 0):
 *   term     three threads wait (pause, read of a pipe, futex) while the main thread
 *            sends SIGTERM to its own process: strace shows the signal taken by the
 *            main thread (its kill returns 0, "--- SIGTERM"), the others' calls never
 *            return (`<... pause resumed>) = ?`);
 *   kill     the same with SIGKILL: every call `= ?`, no signal line;
 *   single   one thread in pause() that its parent sends SIGTERM: the call returns
 *            -ERESTARTNOHAND, then the signal line and "killed by SIGTERM";
 *   handled  the same with a SIGTERM handler: -ERESTARTNOHAND, the signal line, the
 *            handler's rt_sigreturn, and the child exits 0.
 * Used by tests/e2e/test_strace_group_death.py. */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int ready[2], idle[2];
static int word;

static void *pauser(void *arg)
{
    (void)arg;
    if (write(ready[1], "p", 1) != 1)
        return 0;
    pause();
    return 0;
}

static void *reader(void *arg)
{
    char c;

    (void)arg;
    if (write(ready[1], "r", 1) != 1)
        return 0;
    if (read(idle[0], &c, 1) < 0)
        return 0;
    return 0;
}

static void *waiter(void *arg)
{
    (void)arg;
    if (write(ready[1], "f", 1) != 1)
        return 0;
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return 0;
}

/* the threaded child: its three waiters in their calls, then sig to its own process */
static int threads_die(int sig)
{
    void *(*start[3])(void *) = {pauser, reader, waiter};
    pthread_t t;
    char c;
    int i;

    if (pipe(ready) || pipe(idle))
        return 1;
    for (i = 0; i < 3; i++)
        if (pthread_create(&t, 0, start[i], 0) || read(ready[0], &c, 1) != 1)
            return 1;
    usleep(100000);     /* each waiter is in its call */
    kill(getpid(), sig);
    pause();
    return 0;
}

static void on_term(int sig)
{
    (void)sig;
}

/* a child in pause() that the parent sends SIGTERM (handled: with a handler) */
static void single(int handled)
{
    struct sigaction sa;
    pid_t pid;

    pid = fork();
    if (pid == 0) {
        if (handled) {
            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = on_term;
            sigaction(SIGTERM, &sa, 0);
        }
        pause();
        _exit(0);
    }
    if (pid < 0)
        return;
    usleep(100000);     /* the child is in pause() */
    kill(pid, SIGTERM);
    waitpid(pid, 0, 0);
}

static void threaded(int sig)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(threads_die(sig));
    if (pid > 0)
        waitpid(pid, 0, 0);
}

int main(void)
{
    threaded(SIGTERM);
    threaded(SIGKILL);
    single(0);
    single(1);
    return 0;
}
