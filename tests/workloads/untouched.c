/* Strings in file pages this process never touched: the kernel faults them in when it
 * reads them, a BPF program at the call's entry cannot. With no argument: a failed and a
 * successful execve whose filename and argv sit there; with "open": an openat of a path
 * there; with "vec": writev to a pipe and sendmsg on a socketpair of iovecs whose data
 * sits there (the iovec arrays themselves on the stack). Build: gcc -O1 -Wall -Werror -o untouched untouched.c
 * (tests/e2e/test_strace_ops.py does it). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/untouchedXXXXXX";
	static const char text[] = "/bin/true\0true\0first\0/nonexistent/x\0/etc/hostname\0"
				   "hello\0world\0";
	int fd = mkstemp(tmpl);
	char *m, *m2, *args[3];
	pid_t pid;

	(void)argv;
	if (fd < 0 || write(fd, text, sizeof(text)) != (ssize_t)sizeof(text))
		return 1;
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	/* a second mapping: a fault in the first maps its neighbours (fault-around), not it */
	m2 = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	unlink(tmpl);
	close(fd);
	if (m == MAP_FAILED || m2 == MAP_FAILED)
		return 1;
	args[0] = m + 10;
	args[1] = m + 15;
	args[2] = NULL;
	if (argc > 1 && strcmp(argv[1], "vec") == 0) {
		int p[2], sv[2];
		struct iovec v[2] = {{m + 50, 5}, {m + 56, 5}};
		struct msghdr mh = {.msg_iov = v, .msg_iovlen = 2};
		if (pipe(p) || socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			return 1;
		writev(p[1], v, 2);
		v[0].iov_base = m2 + 50;        /* the second mapping: untouched still */
		v[1].iov_base = m2 + 56;
		sendmsg(sv[0], &mh, 0);
		return 0;
	}
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
