/* A non-leader thread execs while the leader and a third thread are blocked in pause():
 * the exec kills both (fs/exec.c de_thread) and the exec'ing thread takes the leader's
 * tid. The exec waits until both are asleep in pause (state S in /proc), so their calls
 * are in flight when it happens. The strings execve reads are on the stack (touched).
 * With argv[1] = "exit_group" the thread calls exit_group(3) instead, which kills the
 * two the same way (kernel/exit.c do_group_exit). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int leader_tid, waiter_tid, exit_group;

static int asleep(int tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = syscall(SYS_gettid);
	pause();
	return NULL;
}

static void *execer(void *arg)
{
	char path[] = "/bin/true", arg0[] = "true";
	char *argv[] = {arg0, NULL}, *envp[] = {NULL};

	(void)arg;
	while (!leader_tid || !waiter_tid || !asleep(leader_tid) || !asleep(waiter_tid))
		usleep(1000);
	if (exit_group)
		syscall(SYS_exit_group, 3);
	execve(path, argv, envp);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, t;

	exit_group = argc > 1 && strcmp(argv[1], "exit_group") == 0;
	if (pthread_create(&w, NULL, waiter, NULL) || pthread_create(&t, NULL, execer, NULL))
		return 2;
	leader_tid = getpid();
	pause();
	return 3;
}
