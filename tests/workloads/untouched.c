/* Strings in file pages this process never touched: the kernel faults them in when it
 * reads them, a BPF program at the call's entry cannot. With no argument: a failed and a
 * successful execve whose filename and argv sit there; with one: an openat of a path
 * there. Build: gcc -O1 -Wall -Werror -o untouched untouched.c
 * (tests/e2e/test_strace_ops.py does it). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/untouchedXXXXXX";
	static const char text[] = "/bin/true\0true\0first\0/nonexistent/x\0/etc/hostname\0";
	int fd = mkstemp(tmpl);
	char *m, *args[3];
	pid_t pid;

	(void)argv;
	if (fd < 0 || write(fd, text, sizeof(text)) != (ssize_t)sizeof(text))
		return 1;
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	unlink(tmpl);
	close(fd);
	if (m == MAP_FAILED)
		return 1;
	args[0] = m + 10;
	args[1] = m + 15;
	args[2] = NULL;
	if (argc > 1) {
		fd = open(m + 36, O_RDONLY);
		close(fd);
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		execve(m + 21, args, NULL);     /* ENOENT: read again at its exit */
		execve(m, args, NULL);          /* read from the new image */
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
