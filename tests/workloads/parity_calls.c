/* One call (or a few) of each kind strace decodes, with concrete arguments: the stat
 * family, limits and system information, getdents64, execve's envp, signals (actions,
 * masks, the pending set, rt_sigsuspend, sigaltstack, kill/tgkill/rt_sigqueueinfo),
 * utimensat/utimes/futimesat times, clocks and sleeps, settimeofday (only calls that
 * change nothing), timerfd, itimers and POSIX timers (timer_create's sigevent and
 * timer id, timer_settime, timer_gettime, timer_getoverrun, timer_delete), wait4/waitid,
 * clone/clone3, prctl, arch_prctl, sched_getaffinity, getresuid/getgroups, getrandom, read/readv/writev/preadv/
 * pwritev, pipes and socket pairs, poll/ppoll, select/pselect6, epoll, ioctl, fcntl,
 * futex, readlink/getcwd, copy_file_range/sendfile, and a loopback TCP connection
 * (accept4, getsockname, getpeername, recvfrom, sendto with a NULL address, sendmsg,
 * recvmsg, setsockopt, getsockopt).
 *
 * tests/e2e/test_strace_parity.py runs it under strace -f and tracekit at once (tracekit
 * tracing strace and its tracee), so both see one execution: every line must be equal.
 * Build: gcc -O1 -Wall -Werror -o parity_calls parity_calls.c; argument: a scratch
 * directory. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

/* The last n bytes before an unmapped page: memory of which only n bytes can be read
 * (a struct there is unreadable as a whole: strace prints its address) */
static void *edge(size_t n)
{
	static char *end;

	if (!end) {
		long page = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			exit(2);
		munmap(m + page, page);
		end = m + page;
	}
	return end - n;
}

static void files(const char *dir)
{
	char path[512], buf[256];
	struct stat st;
	struct statfs sfs;
	struct statx sx;

	snprintf(path, sizeof(path), "%s/f", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0640);
	if (write(fd, "hello parity\n", 13) != 13)
		exit(2);
	syscall(SYS_stat, path, &st);
	syscall(SYS_lstat, path, &st);
	syscall(SYS_fstat, fd, &st);
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	syscall(SYS_newfstatat, AT_FDCWD, "/nonexistent", &st, AT_SYMLINK_NOFOLLOW);
	syscall(SYS_statx, AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx);
	syscall(SYS_statfs, dir, &sfs);
	syscall(SYS_fstatfs, fd, &sfs);
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	syscall(SYS_read, fd, buf, sizeof(buf));
	struct iovec iov[2] = {{buf, 5}, {buf + 5, 8}};
	syscall(SYS_preadv, fd, iov, 2, 0, 0);
	syscall(SYS_pwritev, fd, iov, 2, 20, 0);
	syscall(SYS_fcntl, fd, F_GETFL);
	syscall(SYS_fcntl, fd, F_GETFD);
	syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC);
	int n;
	syscall(SYS_ioctl, fd, FIONREAD, &n);
	syscall(SYS_ioctl, fd, TCGETS, buf);
	snprintf(path, sizeof(path), "%s/g", dir);
	int fd2 = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	syscall(SYS_ioctl, fd2, FICLONE, fd);
	loff_t off_in = 0, off_out = 4;
	syscall(SYS_copy_file_range, fd, &off_in, fd2, &off_out, 5, 0);
	off_t off = 2;
	syscall(SYS_sendfile, fd2, fd, &off, 3);
	snprintf(path, sizeof(path), "%s/l", dir);
	symlink("f", path);
	syscall(SYS_readlink, path, buf, sizeof(buf));
	/* utimensat's times: UTIME_NOW/UTIME_OMIT by name, a time with its date, none for
	 * a time of 0 or a tv_nsec out of range */
	struct timespec ut[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
	syscall(SYS_utimensat, AT_FDCWD, path, ut, AT_SYMLINK_NOFOLLOW);
	ut[0] = (struct timespec){5, 6};
	ut[1] = (struct timespec){1700000000, 0};
	syscall(SYS_utimensat, fd, NULL, ut, 0);
	ut[0] = (struct timespec){0, 0};
	ut[1] = (struct timespec){7, UTIME_NOW};
	syscall(SYS_utimensat, fd, NULL, ut, 0);
	ut[0] = (struct timespec){0, -5};
	syscall(SYS_utimensat, fd, NULL, ut, 0);
	syscall(SYS_utimensat, AT_FDCWD, path, NULL, 0);
	/* utimes' and futimesat's struct timeval[2]: each time with its date (a negative
	 * tv_sec too), none for 0 or a tv_usec out of range; NULL; half an array readable */
	snprintf(path, sizeof(path), "%s/f", dir);
	struct timeval utv[2] = {{5, 6}, {1700000000, 0}};
	syscall(SYS_utimes, path, utv);
	syscall(SYS_utimes, path, NULL);
	utv[0] = (struct timeval){0, 0};
	utv[1] = (struct timeval){-1, 999999};
	syscall(SYS_utimes, path, utv);
	utv[0] = (struct timeval){0, -5};
	utv[1] = (struct timeval){1, 1000000};
	syscall(SYS_utimes, path, utv);
	syscall(SYS_utimes, path, edge(0));
	int tdfd = open(dir, O_RDONLY | O_DIRECTORY);
	utv[0] = (struct timeval){7, 8};
	utv[1] = (struct timeval){9, 0};
	syscall(SYS_futimesat, AT_FDCWD, path, utv);
	syscall(SYS_futimesat, tdfd, "f", utv);
	syscall(SYS_futimesat, tdfd, "f", NULL);
	syscall(SYS_futimesat, tdfd, "f", edge(sizeof(struct timeval)));
	close(tdfd);
	syscall(SYS_getcwd, buf, sizeof(buf));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	syscall(SYS_getdents64, dfd, buf, sizeof(buf));
	syscall(SYS_getdents64, dfd, buf, sizeof(buf));
	close(dfd);
	close(fd2);
	close(fd);
}

static void limits(void)
{
	struct rlimit rl;
	struct sysinfo si;
	struct utsname un;
	struct tms t;
	struct rusage ru;

	syscall(SYS_getrlimit, RLIMIT_NOFILE, &rl);
	syscall(SYS_setrlimit, RLIMIT_NOFILE, &rl);
	syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl);
	syscall(SYS_prlimit64, 0, RLIMIT_CORE, &rl, &rl);
	syscall(SYS_sysinfo, &si);
	syscall(SYS_uname, &un);
	syscall(SYS_times, &t);
	syscall(SYS_getrusage, RUSAGE_SELF, &ru);
	cpu_set_t set;
	syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
	uid_t r, e, s;
	syscall(SYS_getresuid, &r, &e, &s);
	gid_t g[64];
	syscall(SYS_getgroups, 64, g);
	syscall(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
	syscall(SYS_prctl, PR_SET_NAME, "parity", 0, 0, 0);
	unsigned long fsbase;
	syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, &fsbase);
	unsigned char rnd[8];
	syscall(SYS_getrandom, rnd, sizeof(rnd), GRND_NONBLOCK);
}

static void signals(void)
{
	struct sigaction sa, old;
	sigset_t set, oset, pend;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, &old);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGRTMIN + 1);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, &oset, 8);
	syscall(SYS_kill, getpid(), SIGUSR1);
	syscall(SYS_tgkill, getpid(), gettid(), SIGHUP);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGRTMIN + 1;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_value.sival_int = 9;
	syscall(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN + 1, &si);
	syscall(SYS_rt_sigpending, &pend, 8);
	syscall(SYS_rt_sigpending, &pend, 2);
	syscall(SYS_rt_sigpending, &pend, 0);
	syscall(SYS_rt_sigpending, &pend, 16);
	{
		/* 4 bytes at the end of a mapping: written and shown at that size */
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED) {
			munmap(m + pg, pg);
			syscall(SYS_rt_sigpending, m + pg - 4, 4);
			munmap(m, pg);
		}
	}
	/* wait with SIGUSR1 let through (pending: it ends the wait at once), the others
	 * kept blocked; a size other than the kernel's fails */
	sigset_t susp = set;
	sigdelset(&susp, SIGUSR1);
	sigaddset(&susp, SIGTERM);
	syscall(SYS_rt_sigsuspend, &susp, 4);
	syscall(SYS_rt_sigsuspend, &susp, 8);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &oset, NULL, 8);
	stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536, .ss_flags = 0}, oss;
	syscall(SYS_sigaltstack, &ss, &oss);
}

static void timers(void)
{
	struct timespec ts;
	struct timeval tv;
	struct sigevent ev;
	struct itimerspec its, old;
	sigset_t set;
	int id, id2, id3;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	syscall(SYS_clock_getres, CLOCK_REALTIME, &ts);
	syscall(SYS_gettimeofday, &tv, NULL);
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	struct timespec rel = {0, 1000};
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &rel, &ts);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	its = (struct itimerspec){{0, 0}, {100, 0}};
	syscall(SYS_timerfd_settime, tfd, 0, &its, &old);
	its = (struct itimerspec){{0, 0}, {0, 0}};
	syscall(SYS_timerfd_settime, tfd, 0, &its, &old);
	syscall(SYS_timerfd_gettime, tfd, &old);
	close(tfd);
	struct itimerval iv = {{0, 0}, {0, 0}}, oiv;
	syscall(SYS_setitimer, ITIMER_REAL, &iv, &oiv);
	syscall(SYS_getitimer, ITIMER_VIRTUAL, &oiv);

	/* POSIX timers: the signals of these stay blocked and are never due */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGRTMIN + 2);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGUSR2;
	ev.sigev_value.sival_int = 7;
	syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id);
	syscall(SYS_timer_create, CLOCK_REALTIME, NULL, &id2);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN + 2;
	ev._sigev_un._tid = gettid();
	syscall(SYS_timer_create, CLOCK_BOOTTIME, &ev, &id3);
	ev.sigev_notify = SIGEV_NONE;
	ev.sigev_value.sival_ptr = (void *)0x1234;
	syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id3);
	ev.sigev_notify = 77;
	syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id3);
	syscall(SYS_timer_create, 99, NULL, &id3);
	syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, NULL);
	its = (struct itimerspec){{1, 500}, {1000, 250000000}};
	syscall(SYS_timer_settime, id, 0, &its, &old);
	syscall(SYS_timer_settime, id, 0, &its, NULL);
	its = (struct itimerspec){{0, 0}, {0, 0}};
	syscall(SYS_timer_settime, id, 0, &its, &old);
	syscall(SYS_timer_settime, id2, TIMER_ABSTIME | 4, &its, &old);
	syscall(SYS_timer_settime, id2, TIMER_ABSTIME, &its, NULL);
	syscall(SYS_timer_gettime, id, &old);
	syscall(SYS_timer_gettime, 0x4321, &old);
	syscall(SYS_timer_getoverrun, id);
	syscall(SYS_timer_delete, id);
	syscall(SYS_timer_delete, id);
	syscall(SYS_timer_delete, id2);
}

/* times with a negative tv_nsec / tv_usec: each call fails (EINVAL, EFAULT); strace 6.1 prints
 * those fields unsigned (18446744073709551611), tv_sec signed */
static void bad_times(void)
{
	struct timespec ts = {0, -5}, ts2 = {-1, 2000000000};
	struct itimerspec its = {{0, -7}, {1, -5}}, old;
	struct itimerval iv = {{0, -3}, {0, -4}}, oiv;
	struct timeval tv = {0, -9};

	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_nanosleep, &ts2, NULL);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	syscall(SYS_ppoll, NULL, 0, &ts, NULL, 8);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	syscall(SYS_timerfd_settime, tfd, 0, &its, &old);
	close(tfd);
	syscall(SYS_setitimer, ITIMER_REAL, &iv, &oiv);
	syscall(SYS_select, 0, NULL, NULL, NULL, &tv);
	/* clock_settime's time (never a clock that is set: each fails) */
	ts2 = (struct timespec){1, 2};
	syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts2);
	syscall(SYS_clock_settime, CLOCK_REALTIME, &ts);
	syscall(SYS_clock_settime, CLOCK_REALTIME, NULL);
	/* settimeofday's time and timezone, only in calls that change nothing: the kernel
	 * checks the time before it sets the timezone, and refuses a timezone beyond 15
	 * hours before setting it. (A valid timezone with a NULL time is set, and the first
	 * one since boot warps the clock by it: never made here.) */
	struct timeval stv = {0, -1};
	struct timezone stz = {-5, -7};
	syscall(SYS_settimeofday, &stv, &stz);
	stv = (struct timeval){1, 1000000};
	syscall(SYS_settimeofday, &stv, NULL);
	stv = (struct timeval){-1, 5};
	syscall(SYS_settimeofday, &stv, NULL);
	stz = (struct timezone){1000, 0};
	syscall(SYS_settimeofday, NULL, &stz);
	syscall(SYS_settimeofday, edge(sizeof(long)), NULL);
	syscall(SYS_settimeofday, &stv, edge(sizeof(int)));
	syscall(SYS_settimeofday, NULL, NULL);		/* sets nothing */
}

static void processes(void)
{
	int status;
	struct rusage ru;
	pid_t pid = fork();

	if (pid == 0)
		_exit(3);
	syscall(SYS_wait4, pid, &status, 0, &ru);
	pid = fork();
	if (pid == 0)
		_exit(0);
	siginfo_t info;
	syscall(SYS_waitid, P_PID, pid, &info, WEXITED, NULL);
	syscall(SYS_wait4, -1, &status, WNOHANG, NULL);
	pid = fork();
	if (pid == 0) {
		char *argv[] = {"true", "arg", NULL};
		char *envp[] = {"A=1", "B=2", NULL};
		execve("/bin/true", argv, envp);
		_exit(127);
	}
	syscall(SYS_wait4, pid, &status, 0, NULL);
	int word = 0;
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	struct timespec t = {0, 1000};
	syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &t, NULL, 0);
}

static void io(void)
{
	int p[2], sv[2], ep;
	char buf[64];

	syscall(SYS_pipe2, p, O_CLOEXEC);
	syscall(SYS_write, p[1], "ab", 2);
	struct iovec wv[2] = {{"cd", 2}, {"efg", 3}};
	syscall(SYS_writev, p[1], wv, 2);
	struct pollfd pf[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
	syscall(SYS_poll, pf, 2, 0);
	struct timespec zero = {0, 0};
	syscall(SYS_ppoll, pf, 1, &zero, NULL, 8);
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	struct timeval tv = {0, 0};
	syscall(SYS_select, p[0] + 1, &rd, NULL, NULL, &tv);
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	syscall(SYS_pselect6, p[0] + 1, &rd, NULL, NULL, &zero, NULL);
	/* one set as all three: the except set, written last, is empty: "= 1 ()" */
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	syscall(SYS_select, p[0] + 1, &rd, &rd, &rd, NULL);
	struct iovec rv[2] = {{buf, 3}, {buf + 3, 10}};
	syscall(SYS_readv, p[0], rv, 2);
	ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = {.events = EPOLLIN | EPOLLOUT, .data.u64 = 5};
	syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[1], &e);
	struct epoll_event out[4];
	syscall(SYS_epoll_wait, ep, out, 4, 0);
	syscall(SYS_epoll_pwait, ep, out, 4, 0, NULL, 8);
	close(ep);
	syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sv);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void sockets(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1, val;
	socklen_t len;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	char buf[64];

	syscall(SYS_setsockopt, ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = sizeof(val);
	syscall(SYS_getsockopt, ls, SOL_SOCKET, SO_TYPE, &val, &len);
	bind(ls, (struct sockaddr *)&a, sizeof(a));
	listen(ls, 1);
	len = sizeof(a);
	syscall(SYS_getsockname, ls, &a, &len);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&a, sizeof(a));
	struct sockaddr_in peer;
	len = sizeof(peer);
	int s = syscall(SYS_accept4, ls, &peer, &len, SOCK_CLOEXEC);
	len = sizeof(peer);
	syscall(SYS_getpeername, c, &peer, &len);
	syscall(SYS_sendto, c, "ping", 4, 0, NULL, 0);
	len = sizeof(peer);
	syscall(SYS_recvfrom, s, buf, sizeof(buf), 0, &peer, &len);
	struct iovec iov = {"pong", 4};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	syscall(SYS_sendmsg, s, &mh, 0);
	struct iovec riov = {buf, sizeof(buf)};
	struct msghdr rh = {.msg_iov = &riov, .msg_iovlen = 1};
	syscall(SYS_recvmsg, c, &rh, 0);
	close(s);
	close(c);
	close(ls);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	files(argv[1]);
	limits();
	signals();
	timers();
	bad_times();
	processes();
	io();
	sockets();
	return 0;
}
