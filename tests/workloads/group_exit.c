/* A thread group's end, for tests/e2e/test_strace_group_exit.py.
 * "exit": the leader calls exit(5) while three threads wait in pause();
 * "segv": a thread loops on getppid() while the leader writes to NULL (SIGSEGV, a core
 * dump where RLIMIT_CORE allows it).
 * The leader ends only once every thread has made a call of its own (a tracer then knows
 * each), not after a fixed sleep, which a loaded machine can outlast. */
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static int started;

static void *waiter(void *arg)
{
	(void)arg;
	getppid();
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	for (;;) {
		getppid();
		__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void wait_started(int n)
{
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < n)
		usleep(1000);
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc > 1 && !strcmp(argv[1], "segv")) {
		pthread_create(&t, NULL, spinner, NULL);
		wait_started(1);
		*(volatile int *)0 = 1;
	}
	for (i = 0; i < 3; i++)
		pthread_create(&t, NULL, waiter, NULL);
	wait_started(3);
	usleep(10000);          /* the threads in pause() */
	exit(5);
}
