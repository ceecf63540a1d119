/* bench/summary.py workload: N iterations (default 250,000) of open/read/close of
 * /dev/null plus one open of a missing path (ENOENT): per iteration 2 openat (1 failing),
 * 1 read, 1 close. Then one line "loop_ns=<ns> cpu_ns=<ns>" on stdout (getppid_loop.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 250000;
	struct timespec t0, t1;
	struct rusage ru;
	char buf[16];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) != 0 || close(fd) != 0)
			return 1;
		if (open("/nonexistent/tracekit-bench", O_RDONLY) >= 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	printf("loop_ns=%lld cpu_ns=%lld\n", ns(t1) - ns(t0),
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
