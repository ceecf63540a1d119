/* bench/summary.py helper: rusage_run OUT CMD [ARG...] runs CMD as a child and writes the
 * rusage of its whole tree (wait4: the child and its reaped descendants) to OUT as
 * "maxrss_kib=<n> cpu_ns=<user+system ns> self_cpu_ns=<ns> status=<wait status>".
 * self_cpu_ns is CMD's own CPU time, without its children's: fields 14 and 15 (utime,
 * stime, clock ticks) of /proc/<pid>/stat, read while CMD is a zombie (waitid WNOWAIT);
 * the tree figure cannot be split, because a tracer that does not wait for its workload
 * (SIGCHLD ignored) leaves the workload's CPU out of it.
 *
 * Why a C launcher: a process's peak RSS (signal->maxrss) survives exec, so any command
 * forked from the Python bench would report at least the bench interpreter's RSS. Forked
 * from this small static program, the tracer's peak RSS is its own. Exit status: CMD's. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: rusage_run OUT CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	siginfo_t si;
	unsigned long ut = 0, st = 0;
	char path[64];

	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0)
		return 2;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	/* fields after "(comm)": 3 state ... 14 utime 15 stime; comm may hold spaces */
	if (f) {
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		char *p;

		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p)
			sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
		fclose(f);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 2;
	f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "maxrss_kib=%ld cpu_ns=%lld self_cpu_ns=%lld status=%d\n", ru.ru_maxrss,
		(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL,
		(long long)(ut + st) * (1000000000LL / sysconf(_SC_CLK_TCK)), status);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
