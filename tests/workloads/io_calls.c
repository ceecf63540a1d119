/* I/O and socket calls whose structs strace decodes: ioctl (termios, winsize, ints,
 * FICLONE, requests without an argument, unknown requests), poll/ppoll, pselect6,
 * epoll_ctl/epoll_wait/epoll_pwait, readv/writev/pwritev, sendmsg/recvmsg, getrandom,
 * socketpair, sendfile/copy_file_range offsets, and the addresses and lengths of accept4,
 * getsockname, getpeername, recvfrom, sendto, setsockopt and getsockopt. Each call's outcome is the same from run to run (data is
 * ready before each poll), so strace and tracekit see the same calls.
 * Build: gcc -O1 -o io_calls io_calls.c -lutil   (tests/e2e/test_strace_io.py does it) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

static void terminal(void)
{
	int m, s, n = 0, one = 1;
	pid_t pg;
	struct termios t;
	struct winsize w = {24, 80, 0, 0};

	if (openpty(&m, &s, NULL, NULL, NULL))
		return;
	tcgetattr(s, &t);
	tcsetattr(s, TCSANOW, &t);
	tcsetattr(s, TCSADRAIN, &t);
	t.c_lflag &= ~(ECHO | ICANON);
	tcsetattr(s, TCSAFLUSH, &t);
	ioctl(s, TIOCSWINSZ, &w);
	ioctl(s, TIOCGWINSZ, &w);
	ioctl(s, FIONREAD, &n);
	ioctl(s, FIONBIO, &one);
	ioctl(s, TIOCGPGRP, &pg);            /* ENOTTY: an address */
	ioctl(m, TIOCGPGRP, &pg);
	ioctl(s, FIOCLEX);
	ioctl(s, TCFLSH, TCIFLUSH);
	ioctl(s, TCXONC, TCOON);
	ioctl(s, TCSBRK, 1);
	ioctl(0, FICLONE, 1);
	ioctl(s, _IOR('x', 0x77, int), &n);
	ioctl(s, 0x1234, 0);
	ioctl(s, TCGETS, (void *)8);         /* EFAULT */
	close(s);
	close(m);
}

static void polling(void)
{
	int p[2], ep;
	char buf[64];
	struct pollfd pf[2];
	struct timespec ts = {1, 0};
	sigset_t ss;
	fd_set r, w;
	struct timeval tv;
	struct timespec zero = {0, 0};
	struct epoll_event ev = {EPOLLIN | EPOLLET, {.u64 = 0x1234}}, out[4];

	if (pipe(p))
		return;
	write(p[1], "abc", 3);
	pf[0] = (struct pollfd){p[0], POLLIN, 0};
	pf[1] = (struct pollfd){p[1], POLLOUT | POLLIN, 0};
	poll(pf, 2, 100);
	poll(NULL, 0, 1);                    /* Timeout */
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	ppoll(pf, 2, &ts, &ss);
	ppoll(pf, 1, NULL, NULL);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	pselect(p[1] + 1, &r, &w, NULL, &ts, NULL);
	pselect(p[1] + 1, &r, NULL, NULL, &ts, &ss);
	FD_ZERO(&w);
	FD_SET(p[1], &w);
	tv.tv_sec = 1;
	tv.tv_usec = 0;
	syscall(SYS_select, p[1] + 1, NULL, &w, NULL, &tv);
	/* one set for all three: the except set's zeros are written back last, so no set
	 * reads back a ready fd (strace 6.1: "= 1 ()") */
	FD_ZERO(&w);
	FD_SET(p[0], &w);
	FD_SET(p[1], &w);
	syscall(SYS_select, p[1] + 1, &w, &w, &w, NULL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	ev.data.u64 = 0xffffffff00000007ULL;
	ev.events = EPOLLOUT;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev);
	epoll_wait(ep, out, 4, 10);
	epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL);
	epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev);
	epoll_ctl(ep, EPOLL_CTL_DEL, p[1], &ev);	/* strace: the address, not the event */
	read(p[0], buf, sizeof(buf));
	epoll_pwait(ep, out, 4, 0, &ss);     /* nothing ready: [] */
	syscall(SYS_epoll_pwait2, ep, out, 4, &zero, NULL, 8);
	close(ep);
	close(p[0]);
	close(p[1]);
}

/* sendmsg/recvmsg with an fd passed in SCM_RIGHTS, a failed recvmsg and one from a
 * datagram socket that fills msg_name */
static void messages(int sv[2])
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl, rctl;
	struct cmsghdr *cm;
	char data[8], name[128];
	struct iovec iov = {"fd", 2}, riov = {data, sizeof(data)};
	struct msghdr mh = {0}, rh = {0};
	struct sockaddr_in sa = {AF_INET, 0, {htonl(0x7f000001)}};
	socklen_t len = sizeof(sa);
	int u;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(cm) = 0;
	sendmsg(sv[0], &mh, 0);
	rh.msg_iov = &riov;
	rh.msg_iovlen = 1;
	rh.msg_control = rctl.buf;
	rh.msg_controllen = sizeof(rctl.buf);
	recvmsg(sv[1], &rh, MSG_CMSG_CLOEXEC);
	rh.msg_controllen = 0;
	rh.msg_control = NULL;
	recvmsg(sv[1], &rh, MSG_DONTWAIT);   /* EAGAIN: {msg_namelen=0} */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind(u, (void *)&sa, sizeof(sa));
	getsockname(u, (void *)&sa, &len);
	sendto(u, "dgram", 5, 0, (void *)&sa, sizeof(sa));
	rh.msg_name = name;
	rh.msg_namelen = sizeof(name);
	recvmsg(u, &rh, 0);                  /* msg_namelen=128 => 16 */
	{
		struct iovec a = {"one", 3}, b = {"two!", 4};
		struct mmsghdr mm[2] = {{{(void *)&sa, sizeof(sa), &a, 1, NULL, 0, 0}, 0},
					{{(void *)&sa, sizeof(sa), &b, 1, NULL, 0, 0}, 0}};

		sendmmsg(u, mm, 2, MSG_DONTWAIT);
		sendmmsg(-1, mm, 1, 0);      /* EBADF: the messages without msg_len */
	}
	close(u);
}

static void vectors(void)
{
	int p[2], sv[2], nul;
	char b1[4], b2[64];
	struct iovec iov[2] = {{"hello", 5}, {" world, and more than thirty-two bytes", 39}};
	struct iovec ri[2] = {{b1, 4}, {b2, 64}}, many[40];
	struct msghdr mh = {0}, rh = {0};
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	writev(p[1], iov, 2);
	readv(p[0], ri, 2);
	readv(-1, ri, 2);                    /* EBADF: an address */
	nul = open("/dev/null", O_WRONLY);
	pwritev(nul, iov, 1, 0);
	preadv2(nul, ri, 1, 0, 0);            /* write-only: EBADF, the bases as addresses */
	pwritev2(nul, iov, 1, 0, RWF_DSYNC);
	for (int k = 0; k < 40; k++)
		many[k] = (struct iovec){"x", 1};
	writev(nul, many, 40);               /* more elements than strace shows */
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	sendmsg(sv[0], &mh, MSG_DONTWAIT);
	rh.msg_iov = ri;
	rh.msg_iovlen = 2;
	recvmsg(sv[1], &rh, 0);
	getrandom(b1, 4, GRND_NONBLOCK);
	close(nul);
	messages(sv);
	getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cred, &clen);
	shutdown(sv[0], SHUT_WR);
}

static void offsets(void)
{
	int in = open("/proc/self/exe", O_RDONLY), out = open("/dev/null", O_WRONLY);
	off_t off = 0;
	loff_t lin = 0;

	sendfile(out, in, &off, 10);
	sendfile(out, in, NULL, 10);
	off = 1 << 30;		/* past the end: 0 bytes, the offset left as it was */
	sendfile(out, in, &off, 10);
	copy_file_range(in, &lin, out, NULL, 5, 0);   /* EINVAL: /dev/null */
	close(in);
	close(out);
}

static void sockets(void)
{
	int u, l, c, a, one = 1, v;
	char buf[16];
	struct sockaddr_in sa = {AF_INET, 0, {htonl(0x7f000001)}}, from;
	struct sockaddr_storage big;
	socklen_t len = sizeof(sa), flen = sizeof(from), vl = sizeof(v), blen = sizeof(big);
	struct linger lg = {1, 5};
	struct timeval tv = {1, 0};
	char cc[16];
	socklen_t cl = sizeof(cc);

	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind(u, (void *)&sa, sizeof(sa));
	getsockname(u, (void *)&sa, &len);
	sendto(u, "x", 1, 0, (void *)&sa, sizeof(sa));
	recvfrom(u, buf, sizeof(buf), 0, (void *)&from, &flen);
	sendto(u, "y", 1, 0, (void *)&sa, sizeof(sa));
	recvfrom(u, buf, sizeof(buf), 0, NULL, NULL);
	setsockopt(u, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	getsockopt(u, SOL_SOCKET, SO_TYPE, &v, &vl);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(l, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	getsockopt(l, IPPROTO_TCP, TCP_CONGESTION, cc, &cl);
	sa.sin_port = 0;
	bind(l, (void *)&sa, sizeof(sa));
	listen(l, 1);
	len = sizeof(sa);
	getsockname(l, (void *)&sa, &len);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (void *)&sa, sizeof(sa));
	a = accept4(l, (void *)&big, &blen, SOCK_CLOEXEC);   /* [128 => 16] */
	len = sizeof(sa);
	getpeername(a, (void *)&sa, &len);
	send(c, "z", 1, 0);                  /* sendto with a NULL address */
	blen = sizeof(big);
	recvfrom(a, buf, sizeof(buf), 0, (void *)&big, &blen);  /* a stream: [128 => 0] */
	close(a);
	close(c);
	close(l);
	close(u);
}

int main(void)
{
	terminal();
	polling();
	vectors();
	offsets();
	sockets();
	return 0;
}
