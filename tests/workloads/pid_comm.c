/* Pids and their command names, for strace -Y (tests/e2e/test_strace_pidcomm.py).
 *
 * The parent forks a child, names itself ("parent"), checks the child with kill(pid, 0),
 * and reaps it with wait4 once the child said it renamed itself (so that wait4's pid
 * has the new name whoever runs first); the child asks getppid, getpid and gettid, renames itself with
 * prctl(PR_SET_NAME) to the name given as argv[1] (hostile: quotes, a backslash, <, >,
 * a newline, bytes that are not ASCII), asks getpid again, kills its parent with signal 0,
 * and exits 3. A second child is reaped after it stopped: wait4 with WUNTRACED returns a
 * child that is still there (named), then it is killed and reaped (not named).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "child";
	int pipefd[2], done[2];
	char c;

	if (pipe(pipefd) || pipe(done))
		return 1;
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1)    /* the parent has named itself */
			_exit(1);
		pid_t parent = getppid();
		syscall(SYS_getpid);
		syscall(SYS_gettid);
		prctl(PR_SET_NAME, name, 0, 0, 0);
		syscall(SYS_getpid);
		kill(parent, 0);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
		_exit(3);
	}
	close(pipefd[0]);
	prctl(PR_SET_NAME, "parent", 0, 0, 0);
	kill(child, 0);
	if (write(pipefd[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
		return 1;
	int status;
	wait4(child, &status, 0, NULL);

	pid_t stopped = fork();
	if (stopped < 0)
		return 1;
	if (stopped == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	wait4(stopped, &status, WUNTRACED, NULL);   /* stopped: still there */
	kill(stopped, SIGKILL);
	wait4(stopped, &status, 0, NULL);           /* reaped */
	return 0;
}
