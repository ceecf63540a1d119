/* A thread blocked in pause() while another thread of its process takes SIGABRT, whose
 * default action dumps core: the dumping thread's coredump_wait (fs/coredump.c) kills the
 * waiting thread in its call, which strace shows as `<... pause resumed>) = ?`, never as a
 * return of -ERESTARTNOHAND. Core dumps are off (RLIMIT_CORE 0): the kernel still stops
 * the other threads first. The process is a child of the program, which exits 0.
 * Used by tests/e2e/test_strace_group_death.py. */
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int ready[2];

static void *waiter(void *arg)
{
    (void)arg;
    if (write(ready[1], "r", 1) != 1)
        return 0;
    pause();
    return 0;
}

static int dies(void)
{
    pthread_t t;
    char c;

    if (pipe(ready) || pthread_create(&t, 0, waiter, 0) || read(ready[0], &c, 1) != 1)
        return 1;
    usleep(50000);      /* the waiter is in pause() */
    kill(getpid(), SIGABRT);
    pause();
    return 0;
}

/* in a child, so that the program itself exits 0 */
int main(void)
{
    struct rlimit no_core = {0, 0};
    pid_t pid;

    setrlimit(RLIMIT_CORE, &no_core);
    pid = fork();
    if (pid == 0)
        _exit(dies());
    if (pid > 0)
        waitpid(pid, 0, 0);
    return 0;
}
