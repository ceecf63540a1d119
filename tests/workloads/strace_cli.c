/* Programs for the tracekit strace differential suite (tests/e2e/test_strace_cli.py and
 * bench/strace_cli.py): each mode makes the same calls on every run, whatever the tracer,
 * so the lines of two traces can be compared.
 *
 * Build: gcc -O2 -pthread -o strace_cli strace_cli.c   (the test does it in tmp_path)
 *
 * Modes:
 *   threads              a thread writes to a pipe and exits after 20 ms; main reads the
 *                        pipe, joins it (a futex wait: the thread is still sleeping), writes
 *   fork                 a child writes and exits 3; a second child kills itself with
 *                        SIGTERM; the parent waits for each with SIGCHLD blocked (so its
 *                        delivery comes at the unblock under any tracer) and writes
 *   signals              SIGUSR1 to itself, caught (the handler writes); SIGUSR2 blocked,
 *                        raised, then unblocked (caught); then SIGTERM with the default
 *                        action: killed by SIGTERM (exit status 143)
 *   tcp PORT1 PORT2      a server on 127.0.0.1:PORT1 and a child client bound to PORT2:
 *                        "ping", "pong", then the client resets the connection (SO_LINGER
 *                        0: no TIME_WAIT, so the ports serve the next run at once);
 *                        SIGCHLD blocked until the child is reaped, as in fork
 *   wait                 reads one line from stdin (a tracer attaches meanwhile), then
 *                        10 times opens, reads and closes its own executable's first
 *                        bytes, and writes
 *   files N PATH         N times: open PATH, read 4 KiB, fstat, close; one missing path
 *   getppid N            N getppid calls
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];

static void put(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(1);
}

static void *worker(void *arg)
{
	struct timespec ts = {0, 20 * 1000 * 1000};

	(void)arg;
	if (write(pipefd[1], "x", 1) != 1)
		_exit(1);
	nanosleep(&ts, NULL);
	return NULL;
}

static int threads(void)
{
	pthread_t t;
	char c;

	if (pipe(pipefd) || pthread_create(&t, NULL, worker, NULL))
		return 1;
	if (read(pipefd[0], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	put("threads done\n");
	return 0;
}

static int forks(void)
{
	sigset_t chld, old;
	int status;
	pid_t pid;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid = fork();
	if (pid == 0) {
		put("child\n");
		_exit(3);
	}
	waitpid(pid, &status, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigprocmask(SIG_BLOCK, &chld, &old);
	pid = fork();
	if (pid == 0) {
		raise(SIGTERM);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	put("parent\n");
	return 0;
}

static void on_signal(int sig)
{
	put(sig == SIGUSR1 ? "usr1\n" : "usr2\n");
}

static int signals(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	kill(getpid(), SIGUSR1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR2);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	put("signals done\n");
	kill(getpid(), SIGTERM);
	return 0;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static int tcp(int port1, int port2)
{
	struct sockaddr_in srv = loopback(port1), cli = loopback(port2), peer;
	socklen_t len = sizeof(peer);
	int one = 1, s, c, status;
	char buf[16];
	pid_t pid;

	sigset_t chld, old;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&srv, sizeof(srv)) || listen(s, 1))
		return 1;
	pid = fork();
	if (pid == 0) {
		struct linger lg = {1, 0};

		close(s);
		c = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(c, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(c, (struct sockaddr *)&cli, sizeof(cli)) ||
		    connect(c, (struct sockaddr *)&srv, sizeof(srv)))
			_exit(1);
		if (write(c, "ping", 4) != 4 || read(c, buf, sizeof(buf)) != 4)
			_exit(1);
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
		_exit(0);
	}
	c = accept(s, (struct sockaddr *)&peer, &len);
	if (c < 0 || read(c, buf, sizeof(buf)) != 4 || write(c, "pong", 4) != 4)
		return 1;
	if (read(c, buf, sizeof(buf)) > 0)      /* the client's reset: -1 ECONNRESET */
		return 1;
	close(c);
	close(s);
	waitpid(pid, &status, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	put("tcp done\n");
	return 0;
}

static int wait_then_work(const char *self)
{
	char buf[64];
	int fd;

	if (read(0, buf, sizeof(buf)) <= 0)
		return 1;
	for (int i = 0; i < 10; i++) {
		fd = open(self, O_RDONLY);
		if (fd < 0 || read(fd, buf, 16) != 16)
			return 1;
		close(fd);
	}
	put("wait done\n");
	return 0;
}

static int files(long n, const char *path)
{
	static char buf[4096];
	struct stat st;

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0 || fstat(fd, &st) || close(fd))
			return 1;
	}
	if (open("/nonexistent/strace-cli", O_RDONLY) >= 0)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "threads"))
		return threads();
	if (!strcmp(mode, "fork"))
		return forks();
	if (!strcmp(mode, "signals"))
		return signals();
	if (!strcmp(mode, "tcp") && argc > 3)
		return tcp(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(mode, "wait"))
		return wait_then_work(argv[0]);
	if (!strcmp(mode, "files") && argc > 3)
		return files(atol(argv[2]), argv[3]);
	if (!strcmp(mode, "getppid") && argc > 2) {
		for (long i = atol(argv[2]); i > 0; i--)
			syscall(SYS_getppid);
		return 0;
	}
	fprintf(stderr, "usage: %s threads|fork|signals|tcp P1 P2|wait|files N PATH|getppid N\n",
		argv[0]);
	return 2;
}
