/* Calls whose arguments follow their operation, flag words strace names in its own order,
 * return values strace decorates, and structs the calls read or write: futex, prctl,
 * fcntl, mremap, membarrier, ptrace, syslog, personality, keyctl, timerfd_*, setitimer/
 * getitimer, getgroups, arch_prctl, rt_sigtimedwait, rt_sigqueueinfo, nanosleep cut by a
 * signal, get_robust_list, sched_*param, open/mmap/unshare/setns/memfd_create flags,
 * AF_UNIX paths and a directory listed with a reply larger than 4096 bytes. Each call's
 * outcome is the same from run to run.
 * Build: gcc -O1 -Wall -Werror -o decode_calls decode_calls.c
 * (tests/e2e/test_strace_ops.py does it); argument: a scratch directory. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/if_packet.h>
#include <linux/io_uring.h>
#include <linux/udp.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NO_PID 0x3ffffff0 /* no such process: ESRCH */

static void on_alarm(int sig)
{
	(void)sig;
}

static void flag_words(void)
{
	syscall(SYS_openat, 1000, "x", 0x101000);               /* O_SYNC */
	syscall(SYS_openat, 1000, "x", 0x100000);               /* __O_SYNC alone */
	syscall(SYS_openat, 1000, "x", 0x400000 | 2, 0600);     /* __O_TMPFILE: a mode */
	syscall(SYS_openat, 1000, "x", 0x7ffffffcU, 0);         /* every bit: strace's order */
	syscall(SYS_mmap, 0, 4096, PROT_READ, 0xfffffff2U, 1000, 0);
	syscall(SYS_unshare, 0xffffffffU);
	syscall(SYS_setns, 1000, CLONE_NEWNET);
	syscall(SYS_setns, 1000, 0xffffffffU);
	syscall(SYS_personality, 0xffffffffU);
	syscall(SYS_syslog, 10, 0, 0);
	syscall(SYS_syslog, 99, 0, 0);
	syscall(SYS_syslog, 8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, 0, 9);	/* EINVAL */
	syscall(SYS_syslog, 8, 0, -1);
	/* memfd_create: named bits, bits strace 6.1 has no name for (MFD_NOEXEC_SEAL),
	 * and the huge page size field */
	close(syscall(SYS_memfd_create, "m", 0x3));             /* CLOEXEC|ALLOW_SEALING */
	close(syscall(SYS_memfd_create, "m", 0));
	syscall(SYS_memfd_create, "m", 0x18);                   /* EINVAL */
	syscall(SYS_memfd_create, "m", 0x21);
	syscall(SYS_memfd_create, "m", 0x1 | 21U << 26);        /* a size without HUGETLB */
	syscall(SYS_memfd_create, "m", 0xffffffffU);
}

static void prctls(void)
{
	char name[16];
	int v;

	prctl(PR_GET_DUMPABLE);
	prctl(PR_SET_NAME, "decode-calls-with-a-long-name");
	prctl(PR_GET_NAME, name);
	prctl(PR_SET_NAME, "decode_calls");
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_GET_PDEATHSIG, &v);
	prctl(PR_SET_PDEATHSIG, 0);
	prctl(PR_CAPBSET_READ, 0);
	prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	prctl(PR_GET_CHILD_SUBREAPER, &v);
	prctl(PR_GET_SECCOMP);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 10, 0, 0);
	prctl(PR_GET_TSC, &v);
	prctl(PR_MCE_KILL_GET, 0, 0, 0, 0);
	prctl(0x12345, 1, 2, 3, 4);
	prctl(PR_GET_NAME, (void *)8);                              /* EFAULT: an address */
}

static void futexes(void)
{
	static int f, g;
	struct timespec ts = {0, 1};

	syscall(SYS_futex, &f, FUTEX_WAKE, 1, 0, 0, 0);
	syscall(SYS_futex, &f, FUTEX_WAIT, 1, &ts, 0, 0);             /* EAGAIN */
	syscall(SYS_futex, &f, FUTEX_WAIT_PRIVATE, 1, NULL, 0, 0);
	syscall(SYS_futex, &f, FUTEX_WAKE_OP, 1, 1, &g, FUTEX_OP(FUTEX_OP_ADD, 0x345,
								  FUTEX_OP_CMP_LT, 0x678));
	syscall(SYS_futex, &f, FUTEX_REQUEUE, 1, 1, &g, 0);
	syscall(SYS_futex, &f, FUTEX_CMP_REQUEUE, 1, 1, &g, 5);       /* EAGAIN */
	syscall(SYS_futex, &f, FUTEX_WAIT_BITSET, 1, &ts, 0, FUTEX_BITSET_MATCH_ANY);
	syscall(SYS_futex, &f, FUTEX_WAKE_BITSET, 1, 0, 0, FUTEX_BITSET_MATCH_ANY);
	syscall(SYS_futex, &f, FUTEX_TRYLOCK_PI, 0, 0, 0, 0);
	syscall(SYS_futex, &f, FUTEX_UNLOCK_PI, 0, 0, 0, 0);
	syscall(SYS_futex, &f, 0x63, 1, 2, 3, 4);                      /* ENOSYS */
}

static void fcntls(const char *dir)
{
	char path[4096];
	struct flock lk = {F_WRLCK, SEEK_SET, 0, 0, 0};
	struct f_owner_ex own;
	int fd, fd2;

	snprintf(path, sizeof(path), "%s/locked", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	fcntl(fd, F_GETFD);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_GETFD);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	fcntl(fd, F_GETFL);
	fd2 = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd2);
	fcntl(fd, F_SETLK, &lk);
	fcntl(fd, F_GETLK, &lk);
	lk.l_type = F_UNLCK;
	fcntl(fd, F_SETLKW, &lk);
	fcntl(fd, F_SETSIG, SIGUSR1);
	fcntl(fd, F_GETSIG);
	fcntl(fd, F_GETLEASE);
	fcntl(fd, F_NOTIFY, DN_ACCESS | DN_MULTISHOT);                 /* ENOTDIR */
	fcntl(fd, F_GETOWN_EX, &own);
	fcntl(fd, 99, 5);                                             /* EINVAL */
	close(fd);
}

static void memory_and_more(void)
{
	void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts = {1, 0}, rem;
	struct itimerspec its = {{0, 1}, {2, 3}}, old;
	struct itimerval itv = {{0, 0}, {0, 0}}, oitv;
	struct sigaction sa;
	sigset_t set;
	siginfo_t si;
	gid_t groups[64];
	void *head;
	size_t len;
	int tfd, prio = 0;

	syscall(SYS_mremap, p, 4096, 4096, 0, 0);
	syscall(SYS_mremap, (char *)p + 4096, 4096, 4096, MREMAP_MAYMOVE, 0);
	syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	ptrace(PTRACE_PEEKDATA, NO_PID, (void *)0x1000, &len);
	ptrace(PTRACE_CONT, NO_PID, NULL, 0);
	ptrace(PTRACE_ATTACH, NO_PID, NULL, NULL);
	ptrace(PTRACE_SEIZE, NO_PID, NULL, PTRACE_O_TRACEEXEC);
	syscall(SYS_keyctl, 99, 0, 0, 0, 0);
	/* KEYCTL_SET_REQKEY_KEYRING: asked (NO_CHANGE), then an unnamed one; KEYCTL_CHOWN
	 * and KEYCTL_GET_PERSISTENT's uids and gids (-1, or unsigned) on no such key */
	syscall(SYS_keyctl, 14, -1L, 0, 0, 0);
	syscall(SYS_keyctl, 14, 0x1234L, 0, 0, 0);
	syscall(SYS_keyctl, 4, -559026163L, 2718281828UL, -1L, 0);
	syscall(SYS_keyctl, 22, 2718281828UL, -559026163L, 0, 0);
	{
		/* KEYCTL_DH_COMPUTE's params, KEYCTL_PKEY_*'s params and strings,
		 * KEYCTL_INSTANTIATE_IOV's iovecs: each refused (no such key, no authority) */
		static int dh[3] = {-6 /* KEY_SPEC_GROUP_KEYRING */, 1234567890, -1153374643};
		static unsigned int pk[10] = {-2 /* KEY_SPEC_PROCESS_KEYRING */, 0, 0};
		static unsigned int pk2[10] = {0, 10, 10, 0, 0xfacefeed};
		static char in[] = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
		struct iovec iv[2] = {{in, 10}, {in + 20, 12}};

		syscall(SYS_keyctl, 23 /* KEYCTL_DH_COMPUTE */, dh, in, 9UL, NULL);
		syscall(SYS_keyctl, 23, NULL, NULL, 9UL, NULL);
		syscall(SYS_keyctl, 24 /* KEYCTL_PKEY_QUERY */, -1L, 0L, "x\377", NULL);
		syscall(SYS_keyctl, 25 /* KEYCTL_PKEY_ENCRYPT */, pk, "", in, in);
		syscall(SYS_keyctl, 25, pk2, "enc", in, in);
		syscall(SYS_keyctl, 28 /* KEYCTL_PKEY_VERIFY */, pk, "", in, in);
		syscall(SYS_keyctl, 25, NULL, NULL, NULL, NULL);
		syscall(SYS_keyctl, 20 /* KEYCTL_INSTANTIATE_IOV */, -6L, iv, 2UL, 0L);
	}
	syscall(SYS_getgroups, 0, NULL);
	syscall(SYS_getgroups, 64, groups);
	syscall(SYS_getgroups, 0, groups);	/* the count; the list is not written */
	syscall(SYS_setgroups, 0, groups);	/* this process's own groups: none */
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	timerfd_settime(tfd, 0, &its, &old);
	timerfd_gettime(tfd, &old);
	close(tfd);
	setitimer(ITIMER_VIRTUAL, &itv, &oitv);
	getitimer(ITIMER_VIRTUAL, &oitv);
	syscall(SYS_get_robust_list, 0, &head, &len);
	syscall(SYS_sched_getparam, 0, &prio);
	syscall(SYS_sched_setscheduler, NO_PID, SCHED_OTHER, &prio);
#ifdef __x86_64__
	syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, &head);
	/* XSAVE feature numbers: XFEATURE_FP is never asked for, 0x13 is unnamed */
	syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 0L);
	syscall(SYS_arch_prctl, 0x1025 /* ARCH_REQ_XCOMP_GUEST_PERM */, 0x13L);
#endif
	/* a signal waited for: rt_sigtimedwait returns it */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), SIGHUP);
	sigtimedwait(&set, &si, &ts);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR2;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_value.sival_int = 7;
	syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR2, &si);
	sigtimedwait(&set, &si, &ts);
	/* a sleep a signal cuts short: the time left */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	itv.it_value.tv_usec = 20000;
	setitimer(ITIMER_REAL, &itv, NULL);
	nanosleep(&ts, &rem);
	munmap(p, 8192);
}

static void listing(const char *dir)
{
	char path[4096];
	DIR *d;
	int i, fd;

	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/file-with-a-longer-name-%03d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		close(fd);
	}
	d = opendir(dir);
	while (d && readdir(d))
		;
	if (d)
		closedir(d);
}

static void unix_paths(void)
{
	struct {
		struct sockaddr_un a;
		char more[64];
	} big;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(&big, 'A', sizeof(big));
	big.a.sun_family = AF_UNIX;
	connect(s, (struct sockaddr *)&big, sizeof(big));             /* longer than sun_path */
	memset(&big, 0, sizeof(big));
	big.a.sun_family = AF_UNIX;
	memcpy(big.a.sun_path, "\0ab\0\001cd", 8);                     /* abstract, NULs */
	connect(s, (struct sockaddr *)&big, 2 + 8);
	close(s);
}

/* Arguments a fuzzer found printed otherwise than strace 6.1 prints them: socket types
 * without a name, kernel-internal MSG_* bits, sockaddr lengths below 2 (negative ones
 * too), mincore's NULL, membarrier's flags and cpu, message queue names longer than -s,
 * unnamed bits of epoll_create1 and statx's mask, io_uring_setup's cpu and reserved words. */
static void odd_arguments(void)
{
	struct io_uring_params params;
	char buf[256] = "/";

	socket(AF_UNIX, 0x55556019, 0);
	socket(AF_UNIX, 0x9 | SOCK_NONBLOCK, 0);
	socket(AF_UNIX, 0x9 | SOCK_NONBLOCK | 0x1000, 0);
	socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | 0x1000, 0);
	syscall(SYS_socketpair, AF_UNIX, 0x4399, 0, NULL);
	sendto(-1, buf, 1, 0x10 | 0x20000 | 0x80000, NULL, 0);
	bind(-1, (struct sockaddr *)buf, 1);
	bind(-1, (struct sockaddr *)buf, -1);
	bind(-1, (struct sockaddr *)buf, 0);
	connect(-1, (struct sockaddr *)buf, -5);
	syscall(SYS_mincore, NULL, 0, buf);
	syscall(SYS_membarrier, 0x7, 0xffffffff, 0);
	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, 1);
	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0x4, -1);
	syscall(SYS_mq_open, "/tracekit-no-such-queue-whose-name-is-longer-than-32", O_RDONLY,
		0600, NULL);
	syscall(SYS_mq_unlink, "/tracekit-no-such-queue-whose-name-is-longer-than-32");
	getsockopt(-1, 0x7fffffff, -1, buf, NULL);	/* a level without a name */
	getsockopt(-1, 17 /* SOL_UDP */, UDP_GRO, buf, NULL);	/* SOL_UDP's and SOL_PACKET's names */
	getsockopt(-1, 17 /* SOL_UDP */, -1, buf, NULL);
	getsockopt(-1, SOL_PACKET, PACKET_VERSION, buf, NULL);
	getsockopt(-1, SOL_PACKET, 4, buf, NULL);	/* a gap in the table */
	syscall(SYS_epoll_create1, 0x4);
	syscall(SYS_statx, -1, "", 0, 0x81000000, buf);
	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_SQ_AFF;
	params.sq_thread_cpu = 0x712f74;
	params.resv[1] = 0xdaed0f4f;
	syscall(SYS_io_uring_setup, 0, &params);	/* EINVAL: the reserved words */
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	flag_words();
	prctls();
	futexes();
	fcntls(argv[1]);
	memory_and_more();
	listing(argv[1]);
	unix_paths();
	odd_arguments();
	return 0;
}
