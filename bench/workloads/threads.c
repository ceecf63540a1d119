/* bench/growth.py workload: a process of N threads (argv[1], the main one included) that
 * sleep until killed; prints "ready" on stdout once all are running. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (long i = 1; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, sleeper, NULL) != 0)
			return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
