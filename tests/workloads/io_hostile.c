/* I/O and socket calls with arguments a careless or hostile program passes: NULL and
 * unmapped pointers, counts far larger than the memory behind them, negative lengths
 * and counts. Each call fails or succeeds the same way from run to run, and none writes
 * into memory the program uses (a poll whose nfds runs past its array would write revents
 * over the stack).
 * The calls glibc declares with access attributes go through syscall(2), so that the
 * compiler lets them be made.
 * Build: gcc -O1 -o io_hostile io_hostile.c   (tests/e2e/test_strace_io.py does it) */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

int main(void)
{
	int p[2], sv[2], ep, bad = -1;
	char buf[8];
	struct iovec iov[2] = {{buf, 4}, {(void *)1, 4}};
	struct msghdr mh = {0};
	struct epoll_event ev[2];
	socklen_t len;
	/* a page, and the address just past it: unmapped */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED || pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	munmap(page + 4096, 4096);
	page[0] = 0;                                 /* present: read at the call's entry */
	write(p[1], "abcd", 4);
	syscall(SYS_readv, p[0], NULL, 5);           /* EFAULT */
	syscall(SYS_readv, p[0], 1, 2);
	writev(p[1], iov, 2);                        /* the second base is unmapped */
	iov[1] = (struct iovec){NULL, 0};
	writev(p[1], iov, 2);                        /* a NULL base */
	syscall(SYS_writev, p[1], page + 4096 - 16, -1);     /* EINVAL, one element readable */
	writev(p[1], (struct iovec *)(page + 4096 - 16), 2);  /* the array runs off the page */
	syscall(SYS_poll, 1, 2, 0);
	syscall(SYS_pselect6, -1, NULL, NULL, NULL, NULL, NULL);   /* EINVAL */
	syscall(SYS_pselect6, 1, (void *)1, NULL, NULL, NULL, NULL);
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], (void *)1);
	syscall(SYS_epoll_wait, ep, NULL, 2, 0);
	syscall(SYS_epoll_wait, ep, ev, -1, 0);
	ioctl(sv[0], TCGETS, (void *)1);
	ioctl(sv[0], FIONBIO, NULL);
	ioctl(sv[0], FIONBIO, page + 4096 - 2);      /* the int runs off the page */
	mh.msg_iov = (struct iovec *)(page + 4096 - 16);
	mh.msg_iovlen = 2;                           /* the second element is unmapped */
	sendmsg(sv[0], &mh, 0);
	mh.msg_iov = iov;
	mh.msg_iovlen = 1;
	mh.msg_name = (void *)1;
	mh.msg_namelen = 16;
	sendmsg(sv[0], &mh, 0);
	sendmsg(sv[0], (void *)1, 0);
	recvmsg(sv[1], NULL, MSG_DONTWAIT);
	getsockname(sv[0], (void *)buf, NULL);
	len = -1;
	getsockname(sv[0], (void *)buf, &len);
	len = 2;
	getpeername(sv[0], (void *)buf, &len);      /* the address cut to 2 bytes */
	accept(sv[0], NULL, NULL);
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, NULL, 4);
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &bad, -1);
	getsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, buf, NULL);
	sendto(sv[0], NULL, 4, 0, NULL, 0);
	return 0;
}
