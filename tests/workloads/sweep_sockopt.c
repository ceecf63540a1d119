/* tests/e2e/test_strace_sweep_sockopt.py: setsockopt and getsockopt at every socket level
 * strace 6.1 names (and a few it does not) with every option number 0-160, then the option
 * values strace decodes as more than an int: ICMP_FILTER's set of ICMP types (inverted when
 * most are in it, a short optlen), struct sock_fprog, SO_TXREHASH, struct group_req,
 * struct packet_mreq, struct tpacket_req and IPV6_JOIN_ANYCAST's ipv6_mreq, each at its
 * size and at lengths strace shows as an address; then values that end their mapping with an
 * optlen past it (strace reads the option's own size: the value shows). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/icmp.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_TXREHASH
#define SO_TXREHASH 74
#endif

static const int levels[] = {
	0, 1, 6, 17, 40, 41, 58, 100, 101, 132, 136, 255, 256, 257, 258, 259, 260, 261, 262, 263,
	264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281,
	282, 283, 284, 999,
};

int main(void)
{
	int one = 1;
	char buf[256];
	socklen_t len;

	for (unsigned i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		for (int opt = 0; opt <= 160; opt++) {
			setsockopt(-1, levels[i], opt, &one, sizeof(one));
			len = 4;
			getsockopt(-1, levels[i], opt, buf, &len);
		}

	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	int raw = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	int pkt = socket(AF_PACKET, SOCK_RAW, 0);
	int udp6 = socket(AF_INET6, SOCK_DGRAM, 0);

	struct icmp_filter f = {
		.data = ~((1U << ICMP_ECHOREPLY) | (1U << ICMP_DEST_UNREACH) | (1U << ICMP_TIME_EXCEEDED)),
	};
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
	f.data = 0;
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
	f.data = ~0U;
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
	f.data = 5;
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, 2);
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, 8);
	setsockopt(raw, SOL_RAW, ICMP_FILTER, &f, 0);
	len = sizeof(f);
	getsockopt(raw, SOL_RAW, ICMP_FILTER, &f, &len);
	len = 2;
	getsockopt(raw, SOL_RAW, ICMP_FILTER, &f, &len);

	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {4, code};
	setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	setsockopt(udp, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog));
	setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &prog, 8);
	setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, 0, sizeof(prog));
	memset(buf, 0, sizeof(buf));
	buf[0] = 4;
	setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, buf, 20);

	int v[] = {0, 1, 255, -1, 7};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		setsockopt(udp, SOL_SOCKET, SO_TXREHASH, &v[i], 4);
	setsockopt(udp, SOL_SOCKET, SO_TXREHASH, &v[1], 2);
	setsockopt(udp, SOL_SOCKET, SO_TXREHASH, &v[1], 8);

	struct group_req g;
	memset(&g, 0, sizeof(g));
	g.gr_interface = 1;
	struct sockaddr_in *sin = (void *)&g.gr_group;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = inet_addr("224.0.0.251");
	setsockopt(udp, SOL_IP, MCAST_JOIN_GROUP, &g, sizeof(g));
	setsockopt(udp, SOL_IP, MCAST_LEAVE_GROUP, &g, sizeof(g));
	setsockopt(udp, SOL_IP, MCAST_JOIN_GROUP, &g, 8);
	setsockopt(udp, SOL_IP, MCAST_JOIN_GROUP, buf, 140);

	struct packet_mreq m = {.mr_ifindex = 1, .mr_type = PACKET_MR_PROMISC, .mr_alen = 6,
				.mr_address = {1, 2, 3, 4, 5, 6}};
	setsockopt(pkt, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &m, sizeof(m));
	setsockopt(pkt, SOL_PACKET, PACKET_DROP_MEMBERSHIP, &m, sizeof(m));
	m.mr_type = 9;
	m.mr_alen = 12;
	memset(m.mr_address, 0xab, sizeof(m.mr_address));
	setsockopt(pkt, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &m, sizeof(m));
	/* not mr_alen = 0: strace 6.1 then prints the bytes of the address it printed last,
	 * of an earlier call */
	setsockopt(pkt, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &m, 12);
	struct tpacket_req tr = {4096, 4, 2048, 8};
	setsockopt(pkt, SOL_PACKET, PACKET_RX_RING, &tr, sizeof(tr));
	struct tpacket_req3 tr3 = {4096, 4, 2048, 8, 60, 0, 0};
	setsockopt(pkt, SOL_PACKET, PACKET_TX_RING, &tr3, sizeof(tr3));
	setsockopt(pkt, SOL_PACKET, PACKET_RX_RING, buf, 12);

	struct ipv6_mreq m6;
	memset(&m6, 0, sizeof(m6));
	setsockopt(udp6, SOL_IPV6, IPV6_JOIN_ANYCAST, &m6, sizeof(m6));
	setsockopt(udp6, SOL_IPV6, IPV6_LEAVE_ANYCAST, &m6, sizeof(m6));
	setsockopt(udp6, SOL_IPV6, MCAST_JOIN_GROUP, &m6, 4);

	/* the values getsockopt returns on real sockets, at lengths below, at and above an
	 * int's: int options, SO_PEERCRED and SO_LINGER cut inside a field, struct
	 * tpacket_stats (and tpacket_stats_v3's third field) */
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	int tcp = socket(AF_INET, SOCK_STREAM, 0);
	int nl = socket(AF_NETLINK, SOCK_RAW, 0);
	struct { int fd, level; } real[] = {
		{sv[0], SOL_SOCKET}, {tcp, SOL_SOCKET}, {udp, SOL_IP}, {udp6, SOL_IPV6},
		{tcp, 6 /* SOL_TCP */}, {pkt, SOL_PACKET}, {nl, 270 /* SOL_NETLINK */},
		{udp, 17 /* SOL_UDP */},
	};
	int lens[] = {2, 4, 6, 10, 256};
	for (unsigned i = 0; i < sizeof(real) / sizeof(real[0]); i++)
		for (int opt = 0; opt <= 80; opt++)
			for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
				if (real[i].level == 6 && (opt == 24 || opt == 11))
					continue;       /* TCP_TIMESTAMP, TCP_INFO: clocks */
				if (real[i].level == SOL_SOCKET && opt == 57)
					continue;       /* SO_COOKIE */
				memset(buf, 0, sizeof(buf));
				len = lens[k];
				getsockopt(real[i].fd, real[i].level, opt, buf, &len);
			}
	/* setsockopt on real sockets: every option 0-80 of the same levels and SOL_RAW, with
	 * lengths 0 to 16 (not SO_BINDTODEVICE and SO_BINDTOIFINDEX, which would bind) */
	struct { int fd, level; } setters[] = {
		{sv[1], SOL_SOCKET}, {udp, SOL_IP}, {udp6, SOL_IPV6}, {tcp, 6}, {pkt, SOL_PACKET},
		{nl, 270}, {udp, 17}, {raw, 255 /* SOL_RAW */},
	};
	int set_lens[] = {0, 2, 4, 6, 8, 16};
	for (unsigned i = 0; i < sizeof(setters) / sizeof(setters[0]); i++)
		for (int opt = 0; opt <= 80; opt++)
			for (unsigned k = 0; k < sizeof(set_lens) / sizeof(set_lens[0]); k++) {
				if (opt == 25 || opt == 62)
					continue;
				if (setters[i].level == SOL_PACKET && opt <= 2 && set_lens[k] == 16)
					continue;	/* a packet_mreq with mr_alen 0 (above) */
				memset(buf, 0, sizeof(buf));
				buf[0] = 1;
				setsockopt(setters[i].fd, setters[i].level, opt, buf, set_lens[k]);
			}

	int pkt3 = socket(AF_PACKET, SOCK_RAW, 0);	/* no ring yet: its version can change */
	v[0] = TPACKET_V3;
	setsockopt(pkt3, SOL_PACKET, PACKET_VERSION, &v[0], 4);
	for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		len = lens[k];
		getsockopt(pkt3, SOL_PACKET, PACKET_STATISTICS, buf, &len);
	}

	/* values at the end of a mapping, optlen past it (fd -1: EBADF, nothing is set) */
	unsigned char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || munmap(page + 4096, 4096))
		return 1;
	unsigned char *end = page + 4096;
	struct group_req *gr = (struct group_req *)(end - sizeof(struct group_req));
	struct ip_mreq *mr = (struct ip_mreq *)(end - sizeof(struct ip_mreq));

	*(int *)(end - 4) = 12345;
	setsockopt(-1, SOL_SOCKET, SO_RCVBUF, end - 4, 5);
	setsockopt(-1, 270 /* SOL_NETLINK */, 1 /* NETLINK_ADD_MEMBERSHIP */, end - 4, 8);
	setsockopt(-1, SOL_RAW, ICMP_FILTER, end - 4, 8);
	memset(gr, 0, sizeof(*gr));
	gr->gr_interface = 1;
	((struct sockaddr_in *)&gr->gr_group)->sin_family = AF_INET;
	((struct sockaddr_in *)&gr->gr_group)->sin_addr.s_addr = htonl(0xe00000fb);
	setsockopt(-1, SOL_IP, MCAST_JOIN_GROUP, gr, 0x7fffffff);
	mr->imr_multiaddr.s_addr = htonl(0xe00000fb);
	mr->imr_interface.s_addr = htonl(0x7f000001);
	setsockopt(-1, SOL_IP, IP_ADD_MEMBERSHIP, mr, 12);
	return 0;
}
