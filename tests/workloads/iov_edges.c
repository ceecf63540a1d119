/* Writes to fds 1 and 2 and through a pipe (for -e read=/write= sets), then message and
 * vector calls with pointers a careless or hostile program passes: msghdrs whose msg_iov
 * is NULL or unmapped, iovec elements whose base is unmapped or whose bytes run into the
 * unmapped page after their own (after fewer or more bytes than strace's -s + 1), and
 * elements of iov_len 2^63 and 2^62. Each call fails or succeeds the same way from run
 * to run, and none writes into memory the program uses.
 * fds: the pipe is 13 (read end) and 14, the datagram socket pair 15 and 16, and 17 is
 * 16 again (a sendmmsg whose msg_iov is unmapped: strace 6.1 dumps memory of its own
 * for it under -e write=, so the tests leave fd 17 out of their sets).
 * The bytes written are copied into a page of the program's own first: the kernel never
 * reads a buffer written to /dev/null or of a call that fails early, and a tracer that
 * cannot fault pages in (BPF) would find a string literal's page absent.
 * Build: gcc -O1 -Wall -Werror -o iov_edges iov_edges.c
 *   (tests/e2e/test_strace_iov_edges.py does it) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char *at;     /* where the next string goes in the first page */

static char *put(const char *s)
{
	char *p = at;

	strcpy(p, s);
	at += strlen(s) + 16;    /* zeros between the strings */
	return p;
}

int main(void)
{
	int p[2], s[2];
	char in[64];
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end, *ok;
	struct iovec v[2];
	struct msghdr mh = {0};
	struct mmsghdr mm[1] = {{{0}, 0}};

	if (page == MAP_FAILED || pipe2(p, O_NONBLOCK) || dup2(p[0], 13) < 0 ||
	    dup2(p[1], 14) < 0 || socketpair(AF_UNIX, SOCK_DGRAM, 0, s) ||
	    dup2(s[0], 15) < 0 || dup2(s[1], 16) < 0 || dup2(s[1], 17) < 0)
		return 1;
	munmap(page + 4096, 4096);
	end = page + 4096;                   /* the first unmapped byte */
	memset(end - 128, 'z', 120);
	memcpy(end - 8, "tail8bts", 8);
	at = page;
	ok = put("ok");

	/* fds 1, 2 and the pipe */
	write(1, put("to stdout\n"), 10);
	write(2, put("to stderr\n"), 10);
	write(14, put("into the pipe"), 13);
	read(13, in, sizeof(in));
	v[0] = (struct iovec){put("vec one"), 7};
	v[1] = (struct iovec){put("vec two"), 7};
	writev(1, v, 2);
	writev(2, v, 2);
	writev(14, v, 2);
	readv(13, (struct iovec[]){{in, 5}, {in + 8, 20}}, 2);

	/* msghdrs whose msg_iov is NULL or unmapped */
	sendmsg(16, &mh, MSG_DONTWAIT);                      /* NULL, 0 elements */
	mh.msg_iovlen = 2;
	sendmsg(16, &mh, MSG_DONTWAIT);                      /* NULL, 2 elements: EFAULT */
	mh.msg_iov = (struct iovec *)end;
	sendmsg(16, &mh, MSG_DONTWAIT);                      /* unmapped */
	mh.msg_iov = (struct iovec *)1;
	mh.msg_iovlen = 1;
	sendmsg(16, &mh, MSG_DONTWAIT);
	mh.msg_iov = (struct iovec *)(end - 8);              /* the element runs off */
	sendmsg(16, &mh, MSG_DONTWAIT);
	mm[0].msg_hdr.msg_iov = (struct iovec *)end;
	mm[0].msg_hdr.msg_iovlen = 1;
	sendmmsg(17, mm, 1, MSG_DONTWAIT);
	mm[0].msg_hdr.msg_iov = NULL;
	mm[0].msg_hdr.msg_iovlen = 0;
	sendmmsg(16, mm, 1, MSG_DONTWAIT);                   /* an empty datagram */
	mh.msg_iov = NULL;
	mh.msg_iovlen = 0;
	recvmsg(15, &mh, MSG_DONTWAIT);                      /* reads it: 0 bytes */
	mh.msg_iov = (struct iovec *)end;
	mh.msg_iovlen = 1;
	recvmsg(15, &mh, MSG_DONTWAIT);                      /* EFAULT */

	/* iovec elements: base unmapped, cut by the unmapped page, readable */
	v[0] = (struct iovec){end, 4};
	v[1] = (struct iovec){ok, 2};
	writev(14, v, 2);                                    /* EFAULT */
	v[0] = (struct iovec){end - 8, 16};                  /* 8 bytes, then the hole */
	writev(14, v, 2);
	v[0] = (struct iovec){end - 20, 100};                /* fewer than -s + 1 */
	writev(14, v, 2);
	v[0] = (struct iovec){end - 40, 100};                /* more than -s + 1 */
	writev(14, v, 2);
	v[0] = (struct iovec){end - 8, 8};                   /* the last 8 bytes, whole */
	writev(14, v, 2);
	v[0] = (struct iovec){end - 4, 3};
	v[1] = (struct iovec){(void *)1, 0};
	writev(14, v, 2);
	read(13, in, sizeof(in));
	mh.msg_iov = v;
	mh.msg_iovlen = 2;
	v[0] = (struct iovec){end - 40, 100};
	v[1] = (struct iovec){ok, 2};
	sendmsg(16, &mh, MSG_DONTWAIT);

	/* elements of 2^63 bytes (EINVAL) and 2^62 (EFAULT) */
	/* alone: under -e write= its bytes fill the record's data, and an element after
	 * it would show as "..." (README: a long iovec array's elements past one record) */
	v[0] = (struct iovec){put("huge element"), 1UL << 63};
	writev(14, v, 1);
	v[0] = (struct iovec){end - 64, 1UL << 63};
	writev(14, v, 2);
	v[0] = (struct iovec){end - 20, 1UL << 63};
	writev(14, v, 1);
	v[0] = (struct iovec){end - 64, 64};
	v[1] = (struct iovec){end - 64, 1UL << 62};
	writev(14, v, 2);
	read(13, in, sizeof(in));
	mh.msg_iovlen = 1;
	v[0] = (struct iovec){end - 64, 1UL << 63};
	sendmsg(16, &mh, MSG_DONTWAIT);
	return 0;
}
