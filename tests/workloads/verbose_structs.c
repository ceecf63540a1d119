/* The structures strace abbreviates by default and prints whole with -v (-e abbrev=),
 * and prints as their addresses for the calls -e verbose= leaves out: the stat family,
 * statx, uname, getrusage, wait4's rusage, a pty's termios (TCGETS, TCSETS, and TCGETS2,
 * TCSETS2 with an input baud rate and TCGETA), statfs,
 * sysinfo, more groups, pollfds, iovecs (writev, sendmsg, recvmsg: 10) and mmsghdrs (4)
 * semop's operations (3), mincore's pages (4), get_mempolicy's node mask (16 longs),
 * futex_waitv's waiters (3) and pipe's fds than -s shows, the mask rt_sigreturn
 * restores, perf_event_open's struct perf_event_attr (sizes from 0 to past
 * PERF_ATTR_SIZE_VER7, ending at an unreadable page, a breakpoint; every call refused:
 * EINVAL or E2BIG), an empty
 * epoll_wait and getdents64 at
 * the end of a directory, sockets' addresses, select's sets; then uname, getrusage and
 * fstat64 as i386 calls (int $0x80, x86_64 only; built -no-pie so that the static
 * buffers sit below 4 GiB). argv[1]: a scratch directory. Every outcome is the same from
 * run to run (the values differ, but tracekit and strace see the same call). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/uio.h>
#include <sys/wait.h>

#ifdef __x86_64__
static char uts32[390];
static char ru32[72];
static char st64[96];

static void on_usr1(int sig)
{
	(void)sig;
}

static long int80(long nr, long a, long b)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b) : "memory");
	return ret;
}
#endif

/* struct perf_event_attr of `size` bytes (its size field: `field`) ending where the
 * readable page `end` ends, every byte set, then the type and bit fields given. */
static void perf_attr(char *end, unsigned int size, unsigned int field, unsigned int type,
		      unsigned long long bits, unsigned long flags)
{
	struct perf_event_attr *pa = (struct perf_event_attr *)(end - size);
	unsigned char *b = (unsigned char *)pa;
	unsigned int i;

	for (i = 0; i < size; i++)
		b[i] = (unsigned char)(0x81 + 7 * i);
	if (size >= 8) {
		pa->type = type;
		pa->size = field;
	}
	if (size >= 48)
		memcpy(b + 40, &bits, 8);
	syscall(SYS_perf_event_open, pa, 0L, -1L, -1L, flags);
}

static void perf_attrs(void)
{
	char *pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end;
	/* watermark, freq, use_clockid (bits 14, 10, 25), precise_ip 2, reserved bit 40 */
	unsigned long long bits = 1ULL << 14 | 1ULL << 10 | 1ULL << 25 | 2ULL << 15 | 1ULL << 40;

	if (pages == MAP_FAILED)
		return;
	if (mprotect(pages + 4096, 4096, PROT_NONE))
		return;
	end = pages + 4096;
	/* EINVAL (flag 0x100) whatever the struct; the sizes strace reads as it says */
	perf_attr(end, 0x6d, 0x6d, PERF_TYPE_HARDWARE, bits, 0x100);
	perf_attr(end, 128, 128, PERF_TYPE_BREAKPOINT, 1ULL << 5, 0x100);
	perf_attr(end, 64, 0, PERF_TYPE_SOFTWARE, 0, 0x100);
	perf_attr(end, 72, 72, PERF_TYPE_TRACEPOINT, 1ULL << 4, 0x100);
	perf_attr(end, 112, 112, 0x77, bits & ~(1ULL << 40), 0x100);
	/* the size asks for more than is readable: strace -v prints the address */
	perf_attr(end, 0x6f, 0x70, PERF_TYPE_RAW, 0, 0x100);
	/* past PERF_ATTR_SIZE_VER7: `...`; E2BIG (bytes past the kernel's struct are not 0),
	 * which writes the kernel's size back */
	perf_attr(end, 0x200, 0x200, PERF_TYPE_HW_CACHE, 0, 0);
}

/* struct termios2 and struct termio (asm-generic/termbits.h, termios.h: glibc's
 * <termios.h> is in use here), TCGETS2/TCSETS2/TCGETA by number (asm-generic/ioctls.h). */
struct termios2_ {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[19];
	unsigned int c_ispeed, c_ospeed;
};
struct termio_ {
	unsigned short c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line, c_cc[8];
};

/* A pty's termios2 (-v: its speeds), set with an input baud rate (CIBAUD, at IBSHIFT 16)
 * and TAB3, then set back; its termio (-v: 8 control characters). */
static void termios2_calls(int s)
{
	struct termios2_ t2, was;
	struct termio_ to;

	if (ioctl(s, 0x802c542aUL /* TCGETS2 */, &was) != 0)
		return;
	t2 = was;
	t2.c_cflag = (t2.c_cflag & ~0x100f0000U) | (unsigned int)B1800 << 16;
	t2.c_oflag |= TAB3;
	ioctl(s, 0x402c542bUL /* TCSETS2 */, &t2);
	ioctl(s, 0x802c542aUL /* TCGETS2 */, &t2);
	ioctl(s, 0x402c542bUL /* TCSETS2 */, &was);
	ioctl(s, 0x5405 /* TCGETA */, &to);
}

int main(int argc, char **argv)
{
	struct stat st;
	struct statx sx;
	struct statfs sf;
	struct sysinfo si;
	struct utsname u;
	struct rusage ru;
	struct termios t;
	struct pollfd pf[40];
	struct epoll_event ev;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
	socklen_t alen = sizeof(a);
	gid_t gids[40];
	char path[4096], buf[4096];
	fd_set rd;
	struct timeval tv = {0, 0};
	int i, m, s, fd, ep, status, p[2];
	pid_t child;

	if (argc < 2 || strlen(argv[1]) > 4000)
		return 2;
	snprintf(path, sizeof(path), "%s/file", argv[1]);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6)
		return 3;
	close(fd);
	stat(path, &st);
	lstat(argv[1], &st);
	fstat(0, &st);
	statx(AT_FDCWD, path, 0, STATX_ALL, &sx);
	statx(AT_FDCWD, argv[1], AT_SYMLINK_NOFOLLOW, 0, &sx);
	statx(AT_FDCWD, "/dev/null", 0, STATX_BASIC_STATS, &sx);
	statfs(argv[1], &sf);
	sysinfo(&si);
	uname(&u);
	getrusage(RUSAGE_SELF, &ru);
	child = fork();
	if (child == 0)
		_exit(3);
	wait4(child, &status, 0, &ru);
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
		s = open(ptsname(m), O_RDWR | O_NOCTTY);
		if (s >= 0) {
			tcgetattr(s, &t);
			tcsetattr(s, TCSANOW, &t);
			termios2_calls(s);
			close(s);
		}
		close(m);
	}
	for (i = 0; i < 40; i++) {
		gids[i] = i;
		pf[i].fd = 0;
		pf[i].events = POLLOUT;
	}
	setgroups(40, gids);
	getgroups(40, gids);
	poll(pf, 40, 0);
	if (pipe(p) == 0) {
		pf[0].fd = p[0];
		pf[0].events = POLLIN;
		poll(pf, 1, 0);                 /* nothing to read: 0 (Timeout) */
		FD_ZERO(&rd);
		FD_SET(p[0], &rd);
		write(p[1], "x", 1);
		select(p[0] + 1, &rd, NULL, NULL, &tv);
	}
	{
		/* 10 iovecs and 4 mmsghdrs: -s 2 cuts them, -v and abbrev=none do not */
		static char one[2] = "x", got[10][2];
		static struct iovec out[10], in[10];
		static struct msghdr mh;
		static struct mmsghdr mm[4];
		int sv[2];

		for (i = 0; i < 10; i++) {
			out[i].iov_base = one;
			out[i].iov_len = 1;
			in[i].iov_base = got[i];
			in[i].iov_len = 1;
		}
		for (i = 0; i < 4; i++) {
			mm[i].msg_hdr.msg_iov = &out[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		writev(p[1], out, 10);
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0) {
			mh.msg_iov = out;
			mh.msg_iovlen = 10;
			sendmsg(sv[0], &mh, 0);
			mh.msg_iov = in;
			recvmsg(sv[1], &mh, 0);
			sendmmsg(sv[0], mm, 4, 0);
			recvmmsg(sv[1], mm, 4, MSG_DONTWAIT, NULL);
			close(sv[0]);
			close(sv[1]);
		}
	}
	{
		struct sembuf ops[3] = {{0, 1, 0}, {1, 1, 0}, {2, 1, 0}};
		unsigned char vec[4];
		void *pages = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int sem = semget(IPC_PRIVATE, 3, 0600);

		if (sem >= 0) {
			semop(sem, ops, 3);
			semctl(sem, 0, IPC_RMID);
		}
		if (pages != MAP_FAILED)
			mincore(pages, 4 * 4096, vec);
	}
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);                 /* rt_sigreturn's mask: its address for verbose=none */
	{
		static unsigned long nodes[17];
		static unsigned int words[3];
		static struct futex_waitv waiters[3];
		int mode;

		syscall(SYS_get_mempolicy, &mode, nodes, 1025L, NULL, 0L);
		for (i = 0; i < 3; i++) {
			waiters[i].val = 1;     /* not the word's 0: EAGAIN at once */
			waiters[i].uaddr = (unsigned long)&words[i];
			waiters[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
		}
		syscall(SYS_futex_waitv, waiters, 3, 0, NULL, CLOCK_MONOTONIC);
	}
	perf_attrs();
	ep = epoll_create1(0);
	epoll_wait(ep, &ev, 1, 0);              /* no event: [] even for -e verbose=none */
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	while (syscall(SYS_getdents64, fd, buf, sizeof(buf)) > 0)
		;                               /* the last reply is 0: [] with -v */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_port = htons(9);
	connect(s, (struct sockaddr *)&a, sizeof(a));
	getsockname(s, (struct sockaddr *)&a, &alen);
	getpeername(s, (struct sockaddr *)&a, &alen);
#ifdef __x86_64__
	int80(122, (long)uts32, 0);             /* i386 uname (newuname) */
	int80(77, RUSAGE_SELF, (long)ru32);     /* i386 getrusage */
	int80(197, 0, (long)st64);              /* i386 fstat64 */
#endif
	return 0;
}
