/* A thread group's end, for tests/e2e/test_strace_group_exit.py.
 * "exit": the leader calls exit(5) while three threads wait in pause();
 * "segv": a thread loops on getppid() while the leader writes to NULL (SIGSEGV, a core
 * dump where RLIMIT_CORE allows it). */
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static void *waiter(void *arg) { (void)arg; for (;;) pause(); return NULL; }
static void *spinner(void *arg) { (void)arg; for (;;) getppid(); return NULL; }

int main(int argc, char **argv)
{
	pthread_t t;
	int i;

	if (argc > 1 && !strcmp(argv[1], "segv")) {
		pthread_create(&t, NULL, spinner, NULL);
		usleep(10000);
		*(volatile int *)0 = 1;
	}
	for (i = 0; i < 3; i++)
		pthread_create(&t, NULL, waiter, NULL);
	usleep(50000);
	exit(5);
}
