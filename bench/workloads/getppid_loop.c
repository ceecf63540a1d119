/* bench/summary.py workload: N getppid() syscalls (default 1,000,000), then one line
 * "loop_ns=<ns> cpu_ns=<ns>" on stdout: the loop's CLOCK_MONOTONIC time and this
 * process's own CPU time (user + system), so the bench can tell the workload's slowdown
 * and CPU from the tracer's. Built statically by the bench (no dynamic loader syscalls). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec t0, t1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid); /* glibc's getppid() is a syscall too; this says so */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	printf("loop_ns=%lld cpu_ns=%lld\n", ns(t1) - ns(t0),
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
