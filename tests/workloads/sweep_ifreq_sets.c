/* A strace-parity sweep over the socket ioctls that set an interface's state with a
 * struct ifreq (SIOCSIF*, SIOCADDMULTI, SIOCDELMULTI), the bridge requests
 * (SIOCBRADDBR/SIOCBRDELBR's name, SIOCBRADDIF/SIOCBRDELIF's index) and the int ones
 * (FIOSETOWN, SIOCSPGRP, FIOGETOWN, SIOCATMARK, SIOCGPGRP), with names of 15 and 16
 * bytes, each member filled with a pattern, at the end of a mapping, one byte short of
 * it, past it and NULL.
 *
 * Every set is made on fd -1 (EBADF) only; the int requests also on a UDP socket of its
 * own, where they read or set its owner (the program itself).
 *
 * tests/e2e/test_strace_sweep_ifreq_sets.py runs it under strace -f and tracekit at once:
 * every line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_ifreq_sets
 * sweep_ifreq_sets.c. */
#define _GNU_SOURCE
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static long io(long fd, unsigned long req, unsigned long arg)
{
	return syscall(SYS_ioctl, fd, req, arg);
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return 1;
	munmap(map + page, page);
	char *end = map + page;			/* the first unmapped byte */

	static const unsigned int sets[] = {
		SIOCSIFFLAGS, SIOCSIFMETRIC, SIOCSIFMTU, SIOCSIFTXQLEN, SIOCSIFHWADDR,
		SIOCSIFHWBROADCAST, SIOCSIFADDR, SIOCSIFDSTADDR, SIOCSIFBRDADDR,
		SIOCSIFNETMASK, SIOCSIFMAP, SIOCSIFNAME, SIOCSIFSLAVE, SIOCADDMULTI,
		SIOCDELMULTI, SIOCBRADDIF, SIOCBRDELIF,
	};
	struct ifreq *ifr = (struct ifreq *) (end - sizeof(*ifr));
	for (unsigned int r = 0; r < sizeof(sets) / sizeof(*sets); r++) {
		io(-1, sets[r], 0);
		for (unsigned int k = 0; k < 3; k++) {
			for (unsigned int i = 0; i < sizeof(*ifr); i++)
				((unsigned char *) ifr)[i] = (unsigned char) (0x80 + r + i * k);
			memcpy(ifr->ifr_name, "0123456789abcdef", k == 1 ? 16 : 15);
			if (k == 1)
				ifr->ifr_name[15] = 'f';
			else
				ifr->ifr_name[k == 2 ? 2 : 15] = 0;
			if (k == 2) {
				struct sockaddr_in *sin = (struct sockaddr_in *) &ifr->ifr_addr;
				sin->sin_family = AF_INET;
				sin->sin_port = htons(7085);
				sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
				if (sets[r] == SIOCSIFNAME || sets[r] == SIOCSIFSLAVE)
					strcpy(ifr->ifr_newname, "lo");
				if (sets[r] == SIOCBRADDIF)
					ifr->ifr_ifindex = 1;
			}
			io(-1, sets[r], (unsigned long) ifr);
		}
		io(-1, sets[r], (unsigned long) ifr + 1);
		io(-1, sets[r], (unsigned long) end);
	}

	/* the bridge names: short, 15 and 16 bytes, cut by the mapping */
	static const char *names[] = { "br0", "0123456789abcde", "0123456789abcdef" };
	for (unsigned int n = 0; n < 3; n++) {
		char *p = end - 17;
		memset(p, 0, 17);
		memcpy(p, names[n], strlen(names[n]));
		p[16] = 'x';
		io(-1, SIOCBRADDBR, (unsigned long) p);
		io(-1, SIOCBRDELBR, (unsigned long) p);
	}
	io(-1, SIOCBRADDBR, 0);

	/* the int requests on a socket of its own */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int *v = (int *) (end - sizeof(int));
	*v = getpid();
	io(s, FIOSETOWN, (unsigned long) v);
	io(s, FIOGETOWN, (unsigned long) v);
	io(s, SIOCSPGRP, (unsigned long) v);
	io(s, SIOCGPGRP, (unsigned long) v);
	io(s, SIOCATMARK, (unsigned long) v);
	io(s, FIOGETOWN, (unsigned long) end);
	io(s, SIOCSPGRP, (unsigned long) end - 2);
	io(-1, SIOCGPGRP, (unsigned long) v);
	close(s);
	return 0;
}
