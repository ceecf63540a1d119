/* Workloads that try to break task following (tests/session/test_follow.py).
 *
 * Build: gcc -O1 -pthread -o follow_tasks follow_tasks.c   (the test does it in tmp_path)
 *
 * Protocol, on stdout, one line per write(2) (atomic on a pipe):
 *   "pid <tgid>"                    first line, at once
 *   "spawned"                       every task of the mode exists and waits for "go"
 *   "task <role> <tid> <k>"         task <tid> made its marker syscall close(1000000 + k)
 *   "done"                          the mode is finished; the process waits for a stdin
 *                                   line (or EOF) before it exits, so the test can read
 *                                   the pids map while it is alive
 * On stdin the test writes "go\n" (after tracekit started), then "end\n".
 * The marker close(1000000 + k) fails with EBADF and names the task in args[0].
 *
 * Modes:
 *   spawn NTHREADS NCHILDREN DEPTH DELAY_US  threads and chains of child processes DEPTH
 *                                   deep, created one every DELAY_US, before "spawned"
 *   threads N                       N threads in all (main included)
 *   exec                            a non-leader thread calls execve (mode "mark K hold")
 *   vfork                           vfork + execve (mode "mark K")
 *   sibling                         threads A (the target) and B; each creates a thread
 *   leader_exit N                   N threads; main pthread_exit()s, then they mark
 *   churn N                         N short-lived children, one after the other
 *   setpid PID                      clone3(set_tid = PID): a child with that pid
 *   exiting MS                      marks every ms for MS ms, then exits
 *   full N                          N threads in all; after "go" main forks a child
 *                                   ("forked <pid>") and one thread marks and exits;
 *                                   after a second "go" the child marks, then the rest
 *   mark K [hold]                   mark, report; with "hold": "done" and wait
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int go_pipe[2];

static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	buf[n++] = '\n';
	if (write(1, buf, n) != n)
		_exit(99);
}

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

static void mark(const char *role, int k)
{
	syscall(SYS_close, 1000000L + k);
	say("task %s %d %d", role, gettid_(), k);
}

/* Read one line from stdin (or EOF). */
static void wait_line(void)
{
	char c;

	while (read(0, &c, 1) == 1 && c != '\n')
		;
}

static void wait_go_byte(void)
{
	char c;

	if (read(go_pipe[0], &c, 1) != 1)
		_exit(98);
}

static void release(int n)
{
	char c = 'g';

	for (int i = 0; i < n; i++)
		if (write(go_pipe[1], &c, 1) != 1)
			_exit(97);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *thread_mark(void *arg)
{
	wait_go_byte();
	mark("thread", (int)(intptr_t)arg);
	return NULL;
}

/* A chain of processes: level 1 forks level 2 ... each waits for go, marks, reaps. */
static void chain(int level, int depth, int k)
{
	pid_t child = -1;

	if (level < depth) {
		child = fork();
		if (child == 0) {
			chain(level + 1, depth, k + 1);
			_exit(0);
		}
	}
	wait_go_byte();
	mark("child", k);
	if (child > 0)
		waitpid(child, NULL, 0);
}

static int mode_spawn(int nthreads, int nchildren, int depth, long delay_us)
{
	pthread_t th[1024];
	pid_t kids[1024];
	int n = nthreads > nchildren ? nthreads : nchildren;

	for (int i = 0; i < n; i++) {
		if (i < nthreads)
			pthread_create(&th[i], NULL, thread_mark, (void *)(intptr_t)(1 + i));
		if (i < nchildren) {
			kids[i] = fork();
			if (kids[i] == 0) {
				chain(1, depth, 1000 * (i + 1));
				_exit(0);
			}
		}
		if (delay_us)
			sleep_us(delay_us);
	}
	say("spawned");
	wait_line();
	release(nthreads + nchildren * depth);
	mark("main", 0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < nchildren; i++)
		waitpid(kids[i], NULL, 0);
	say("done");
	wait_line();
	return 0;
}

static char *self_exe;

static void *thread_exec(void *arg)
{
	char *argv[] = { self_exe, "mark", "2", "hold", NULL };

	(void)arg;
	wait_go_byte();
	mark("thread", 1);
	execv("/proc/self/exe", argv);
	say("error execv %d", errno);
	_exit(1);
}

static int mode_exec(void)
{
	pthread_t t;

	pthread_create(&t, NULL, thread_exec, NULL);
	say("spawned");
	wait_line();
	release(1);
	pthread_join(t, NULL); /* de_thread() ends this thread */
	return 1;
}

static int mode_vfork(void)
{
	char *argv[] = { self_exe, "mark", "1", NULL };
	pid_t child;

	say("spawned");
	wait_line();
	child = vfork();
	if (child == 0) {
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	waitpid(child, NULL, 0);
	mark("main", 0);
	say("done");
	wait_line();
	return 0;
}

static void *thread_leaf(void *arg)
{
	mark("leaf", (int)(intptr_t)arg);
	return NULL;
}

static void *thread_sibling(void *arg)
{
	int k = (int)(intptr_t)arg;
	pthread_t t;

	wait_go_byte();
	mark("sibling", k);
	pthread_create(&t, NULL, thread_leaf, (void *)(intptr_t)(k + 10));
	pthread_join(t, NULL);
	return NULL;
}

static pid_t sibling_tid[2];

static void *thread_sibling_start(void *arg)
{
	sibling_tid[(intptr_t)arg - 1] = gettid_();
	return thread_sibling(arg);
}

static int mode_sibling(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, thread_sibling_start, (void *)1);
	pthread_create(&b, NULL, thread_sibling_start, (void *)2);
	while (!__atomic_load_n(&sibling_tid[0], __ATOMIC_SEQ_CST) ||
	       !__atomic_load_n(&sibling_tid[1], __ATOMIC_SEQ_CST))
		sleep_us(100);
	say("tids %d %d", sibling_tid[0], sibling_tid[1]);
	say("spawned");
	wait_line();
	release(2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	say("done");
	wait_line();
	return 0;
}

static pid_t leader;

static void *thread_after_leader(void *arg)
{
	char path[64], buf[512], *p;
	int k = (int)(intptr_t)arg;

	wait_go_byte();
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", leader);
	for (int i = 0; i < 5000; i++) { /* until the leader is a zombie (5 s at most) */
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (!f || (p && p[2] == 'Z'))
			break;
		sleep_us(1000);
	}
	mark("thread", k);
	return NULL;
}

static int mode_leader_exit(int n)
{
	pthread_t t;

	leader = getpid();
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, thread_after_leader, (void *)(intptr_t)(1 + i));
	say("spawned");
	wait_line();
	release(n);
	say("leader exits");
	pthread_exit(NULL);
}

static int mode_churn(int n)
{
	say("spawned");
	wait_line();
	for (int i = 0; i < n; i++) {
		pid_t c = fork();

		if (c == 0) {
			syscall(SYS_close, 2000000L + i);
			_exit(0);
		}
		if (c < 0) {
			say("error fork %d", errno);
			return 1;
		}
		waitpid(c, NULL, 0);
	}
	mark("main", 0);
	say("done");
	wait_line();
	return 0;
}

static int mode_setpid(pid_t want)
{
	struct clone_args args;
	pid_t tids[1] = { want };
	long child;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	args.set_tid = (uintptr_t)tids;
	args.set_tid_size = 1;
	child = syscall(SYS_clone3, &args, sizeof(args));
	if (child < 0) {
		say("error clone3 %d", errno);
		return 1;
	}
	if (child == 0) {
		say("child %d", gettid_());
		wait_line();
		mark("child", 1);
		say("done");
		_exit(0);
	}
	waitpid(child, NULL, 0);
	return 0;
}

static int mode_full(int n)
{
	pthread_t th[1024];
	int child_pipe[2];
	pid_t child;

	if (pipe(child_pipe))
		return 2;
	for (int i = 0; i < n - 1; i++)
		pthread_create(&th[i], NULL, thread_mark, (void *)(intptr_t)(1 + i));
	say("spawned");
	wait_line();
	child = fork();
	if (child == 0) {
		char c;

		if (read(child_pipe[0], &c, 1) != 1)
			_exit(98);
		mark("child", 100);
		_exit(0);
	}
	say("forked %d", child);
	release(1);
	wait_line();
	if (write(child_pipe[1], "g", 1) != 1)
		return 2;
	waitpid(child, NULL, 0);
	release(n - 2);
	for (int i = 0; i < n - 1; i++)
		pthread_join(th[i], NULL);
	mark("main", 0);
	say("done");
	wait_line();
	return 0;
}

static int mode_exiting(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		syscall(SYS_close, 1000001L);
		sleep_us(1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	self_exe = argv[0];
	if (pipe(go_pipe))
		return 2;
	if (!strcmp(mode, "mark")) {
		mark("exec", atoi(argv[2]));
		if (argc > 3) {
			say("done");
			wait_line();
		}
		return 0;
	}
	say("pid %d", getpid());
	if (!strcmp(mode, "spawn") && argc == 6)
		return mode_spawn(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atol(argv[5]));
	if (!strcmp(mode, "threads") && argc == 3)
		return mode_spawn(atoi(argv[2]) - 1, 0, 0, 0);
	if (!strcmp(mode, "exec"))
		return mode_exec();
	if (!strcmp(mode, "vfork"))
		return mode_vfork();
	if (!strcmp(mode, "sibling"))
		return mode_sibling();
	if (!strcmp(mode, "leader_exit") && argc == 3)
		return mode_leader_exit(atoi(argv[2]));
	if (!strcmp(mode, "churn") && argc == 3)
		return mode_churn(atoi(argv[2]));
	if (!strcmp(mode, "setpid") && argc == 3)
		return mode_setpid(atoi(argv[2]));
	if (!strcmp(mode, "full") && argc == 3)
		return mode_full(atoi(argv[2]));
	if (!strcmp(mode, "exiting") && argc == 3)
		return mode_exiting(atol(argv[2]));
	fprintf(stderr, "usage: see the comment at the top of follow_tasks.c\n");
	return 2;
}
