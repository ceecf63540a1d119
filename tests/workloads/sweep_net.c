/* Socket calls as strace 6.1 prints them: socket with each domain/type/protocol strace
 * names (and unknown ones), socketpair, bind/connect with each sockaddr family (in, in6
 * with flowinfo and scope id, un path/abstract/unnamed, nl, ll, vm, rxrpc, AF_UNSPEC, short and
 * long addrlen, an unknown family), listen, accept/accept4, getsockname/getpeername,
 * shutdown, sendto/recvfrom (MSG_* flags, MSG_TRUNC), sendmsg/recvmsg with SCM_RIGHTS,
 * SCM_CREDENTIALS, SCM_SECURITY (on fd -1), IP_PKTINFO and IP_TTL cmsgs and msg_flags out, setsockopt/getsockopt
 * at SOL_SOCKET, SOL_IP (ip_mreq, ip_mreqn), SOL_IPV6 (ipv6_mreq), SOL_TCP, SOL_NETLINK
 * and unknown levels with optlen edges (0, shorter than the value, longer), and socket
 * ioctls (SIOCGIFINDEX, SIOCGIFNAME on lo and on an index no interface has, FIONREAD), and
 * what system tools do (netprog): ping's ICMP_FILTER and SO_TIMESTAMP cmsgs, curl's
 * SO_ERROR of a refused connect, ip's SIOCGIF* reads of lo.
 *
 * Every call is harmless: sockets are on loopback (127.0.0.1, ::1) or unix sockets in the
 * scratch directory (its argument) or the abstract namespace. The netlink, packet, vsock
 * (and alg, key: refused where not built) sockets are only made and closed, the one
 * netlink bind takes nl_pid 0 and no groups; the sockaddr_ll, sockaddr_vm and sockaddr_nl
 * addresses go to a UDP socket, which refuses them. Multicast groups (239.255.42.98/99,
 * ff02::42) are joined on lo only and left again or dropped with the socket. No SIOCS*
 * ioctl is made; SIOCGIF* only read. TCP_CONGESTION is set on the program's own loopback
 * socket. Outcomes are the same every run but for kernel-chosen ports and autobind names,
 * which both tracers see alike in one run.
 *
 * tests/e2e/test_strace_sweep_net.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_net sweep_net.c; argument: a
 * scratch directory. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/vm_sockets.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define BADP ((void *)1)
#define ICMP_FILTER 1          /* linux/icmp.h, which clashes with net/if.h */

static void opts_tcp(int s);

static void sockets(void) {
    int fds[] = {
        socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP),
        socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP),
        socket(AF_INET6, SOCK_DGRAM, 0),
        socket(AF_INET, SOCK_RAW, IPPROTO_ICMP),
        socket(AF_UNIX, SOCK_SEQPACKET, 0),
        socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE),
        socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT),
        socket(AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT),
        socket(AF_NETLINK, SOCK_RAW, 99),
        socket(AF_PACKET, SOCK_RAW, 0),
        socket(AF_PACKET, SOCK_DGRAM, htons(0x0800)),
        socket(AF_ALG, SOCK_SEQPACKET, 0),
        socket(AF_VSOCK, SOCK_STREAM, 0),
        socket(AF_KEY, SOCK_RAW, 2),
        socket(AF_INET, SOCK_DGRAM, 0),
    };
    socket(200, SOCK_STREAM, 0);
    socket(AF_DECnet, SOCK_STREAM, 0);                /* a family Linux no longer has */
    socket(AF_INET, 15, 0);
    socket(AF_INET, SOCK_STREAM | 0x40000, 0);
    socket(AF_INET6, SOCK_RAW, IPPROTO_IPV6);
    for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv);
    close(sv[0]);
    close(sv[1]);
    socketpair(AF_INET, SOCK_STREAM, 0, sv);
    syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, BADP);
    /* SELinux's SCM_SECURITY control message (include/linux/socket.h), on fd -1 */
    struct { struct cmsghdr h; int v; } sec = {{sizeof(sec), SOL_SOCKET, 3}, 0};
    struct msghdr mh = {.msg_control = &sec, .msg_controllen = sizeof(sec)};
    sendmsg(-1, &mh, 0);
    /* SOL_IP control messages strace decodes, on fd -1: IP_TTL (u32s, one past 2^31),
     * IP_TOS and IP_RETOPTS (bytes), IP_RECVERR (struct sock_extended_err and its
     * offender), IP_ORIGDSTADDR (a sockaddr_in), IP_CHECKSUM, SCM_SECURITY at SOL_IP,
     * and IP_TOS with no data */
    struct { struct cmsghdr h; unsigned char d[40]; } ip = {{0, SOL_IP, IP_TTL}, {0}};
    struct { uint32_t ee[4]; struct sockaddr_in off; } ee = {
        {111, 2, 0x030201, 3}, {AF_INET, htons(12345), {htonl(INADDR_LOOPBACK)}, {0}}};
    static const struct { int type; size_t len; const void *data; } ipc[] = {
        {IP_TTL, 8, "\xed\xfe\xef\xfa\x40\0\0\0"}, {IP_TOS, 1, "\x10"},
        {IP_RETOPTS, 5, "ABCDE"}, {IP_RECVERR, 32, NULL}, {IP_ORIGDSTADDR, 16, NULL},
        {IP_CHECKSUM, 4, "\1\2\3\4"}, {3, 3, "lbl"}, {IP_TOS, 0, ""}};
    mh.msg_control = &ip;
    for (size_t k = 0; k < sizeof(ipc) / sizeof(ipc[0]); k++) {
        ip.h.cmsg_type = ipc[k].type;
        ip.h.cmsg_len = CMSG_LEN(ipc[k].len);
        memcpy(ip.d, ipc[k].data ? ipc[k].data : ipc[k].type == IP_RECVERR
               ? (const void *)&ee : (const void *)&ee.off, ipc[k].len);
        mh.msg_controllen = CMSG_SPACE(ipc[k].len);
        sendmsg(-1, &mh, 0);
    }
}

static void addrs(void) {
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(0),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(u, (void *)&sin, 8);                               /* short addrlen: EINVAL */
    bind(u, (void *)&sin, sizeof(sin) - 2);
    struct { struct sockaddr_in a; char pad[16]; } big = {sin, {0}};
    bind(u, (void *)&big, sizeof(big));                   /* longer than the struct */
    bind(u, NULL, 16);
    bind(u, BADP, 16);
    struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(1234),
                              .sin6_flowinfo = htonl(0x12345), .sin6_addr = IN6ADDR_LOOPBACK_INIT,
                              .sin6_scope_id = 1};
    connect(u, (void *)&s6, sizeof(s6));                  /* EAFNOSUPPORT or EINVAL */
    int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
    connect(u6, (void *)&s6, sizeof(s6));
    s6.sin6_scope_id = 0;
    inet_pton(AF_INET6, "fe80::1", &s6.sin6_addr);
    s6.sin6_scope_id = 1;
    connect(u6, (void *)&s6, sizeof(s6));
    connect(u6, (void *)&s6, 24);                         /* no scope id */
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
    connect(u6, (void *)&s6, sizeof(s6));
    struct sockaddr un0 = {.sa_family = AF_UNSPEC};
    connect(u6, &un0, sizeof(un0));                       /* dissolve the association */
    struct sockaddr unk = {.sa_family = 250, .sa_data = "abc"};
    connect(u, &unk, sizeof(unk));
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 0};
    connect(u, (void *)&nl, sizeof(nl));
    nl.nl_pid = 1234;
    nl.nl_groups = 0x5;
    connect(u, (void *)&nl, sizeof(nl));
    nl.nl_pad = 0xffff;                                   /* shown when not 0 */
    connect(u, (void *)&nl, sizeof(nl));
    struct sockaddr_ll ll = {.sll_family = AF_PACKET, .sll_protocol = htons(0x0800),
                             .sll_ifindex = 1, .sll_hatype = 1, .sll_pkttype = PACKET_HOST,
                             .sll_halen = 6, .sll_addr = {1, 2, 3, 4, 5, 6}};
    connect(u, (void *)&ll, sizeof(ll));
    ll.sll_halen = 0;                                     /* no address */
    connect(u, (void *)&ll, sizeof(ll));
    ll.sll_halen = 9;                                     /* more than sll_addr holds */
    ll.sll_ifindex = -2;                                  /* an unsigned index */
    connect(u, (void *)&ll, sizeof(ll));
    /* struct sockaddr_rxrpc (linux/rxrpc.h, which needs the kernel's socket.h): family,
     * service, transport type and length, then an AF_INET or AF_INET6 transport */
    struct { unsigned short fam, service, type, len; struct sockaddr_in6 t; } rx =
        {AF_RXRPC, 1, SOCK_DGRAM, sizeof(struct sockaddr_in), {0}};
    memcpy(&rx.t, &sin, sizeof(sin));
    connect(u, (void *)&rx, sizeof(rx));
    rx.len = 4;                                           /* shorter than a sockaddr_in */
    connect(u, (void *)&rx, sizeof(rx));
    rx.service = 0x8382;
    rx.type = 0;
    rx.len = sizeof(s6);
    memcpy(&rx.t, &s6, sizeof(s6));
    connect(u, (void *)&rx, sizeof(rx));
    rx.len = 300;
    rx.t.sin6_family = 250;                               /* no transport of rxrpc's */
    connect(u, (void *)&rx, sizeof(rx));
    connect(u, (void *)&rx, sizeof(rx) - 1);              /* shorter than the struct */
    struct sockaddr_vm vm = {.svm_family = AF_VSOCK, .svm_port = 5,
                             .svm_cid = VMADDR_CID_LOCAL};
    connect(u, (void *)&vm, sizeof(vm));
    vm.svm_cid = 1234;
    vm.svm_port = VMADDR_PORT_ANY;
    connect(u, (void *)&vm, sizeof(vm));
    /* svm_reserved1 and svm_zero when not 0, flags with a name and without */
    memcpy((char *)&vm + 2, "\xad\xde", 2);
    vm.svm_flags = 0xef;
    vm.svm_zero[0] = 0x42;
    connect(u, (void *)&vm, sizeof(vm));
    /* AF_QIPCRTR (node and port named or in hex), AF_XDP (flags, an ifindex, the umem
     * fd as a number with XDP_SHARED_UMEM, in hex without), AF_MCTP (pads when not 0),
     * built byte by byte: 42, 44 and 45 are their family numbers */
    static unsigned char fam3[3][16] = {
        {42, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff},
        {44, 0, 0x05, 0xa0, 1, 0, 0, 0, 7, 0, 0, 0, 0xfe, 0xca, 0, 0},
        {45, 0, 0xad, 0xde, 0, 0, 0, 0, 0xff, 0x89, 0x8a, 0x8b}};
    connect(u, (void *)fam3[0], 12);
    connect(u, (void *)fam3[1], 16);
    fam3[1][2] = 0x04;
    connect(u, (void *)fam3[1], 16);
    connect(u, (void *)fam3[2], 12);
    /* families strace decodes past sa_family, built byte by byte (their headers are
     * the kernel's): AF_IPX (port, network, node, type, then a sipx_zero that is not
     * 0), AF_X25 (a 16-byte address without its NUL, and one with), AF_IEEE802154 (a
     * short address of a name, a long one), AF_NFC (short, and sockaddr_nfc_llcp with
     * SAPs and a service name), AF_ALG (type and name, feat with a named bit and more) */
    static unsigned char sa[100];
    unsigned short fam = AF_IPX;
    memset(sa, 0, sizeof(sa));
    memcpy(sa, &fam, 2);
    memcpy(sa + 2, "\x30\x39\xfa\xce\xfe\xed" "ABCDEF" "\xff", 13);
    connect(u, (void *)sa, 16);
    sa[15] = 'B';
    connect(u, (void *)sa, 16);
    fam = AF_X25;
    memcpy(sa, &fam, 2);
    memcpy(sa + 2, "0123456789abcdef", 16);
    connect(u, (void *)sa, 18);
    memcpy(sa + 2, "0123456789\0", 11);
    connect(u, (void *)sa, 18);
    connect(u, (void *)sa, 17);                               /* short: sa_data */
    memset(sa, 0, sizeof(sa));
    fam = AF_IEEE802154;
    memcpy(sa, &fam, 2);
    int atype = 2;                                            /* IEEE802154_ADDR_SHORT */
    memcpy(sa + 4, &atype, 4);
    memcpy(sa + 8, "\xff\xff\xfe\xff", 4);                   /* broadcast PAN, undef */
    connect(u, (void *)sa, 20);
    atype = 3;                                                /* IEEE802154_ADDR_LONG */
    memcpy(sa + 4, &atype, 4);
    memcpy(sa + 8, "\xce\xfa\x01\x02\x03\x04\x05\x06\x07\x08", 10);
    connect(u, (void *)sa, 20);
    memset(sa, 0, sizeof(sa));
    fam = AF_NFC;
    memcpy(sa, &fam, 2);
    unsigned int nfc[3] = {1, 0xab, 4};                       /* lo, target, ISO14443 */
    memcpy(sa + 4, nfc, sizeof(nfc));
    connect(u, (void *)sa, 16);
    connect(u, (void *)sa, 20);
    sa[16] = 1;                                               /* LLCP_SAP_SDP */
    sa[17] = 0x20;
    memcpy(sa + 18, "urn:nfc:sn:snep", 15);
    unsigned long long snlen = 15;
    memcpy(sa + 88, &snlen, 8);
    connect(u, (void *)sa, 96);
    memset(sa, 0, sizeof(sa));
    fam = AF_ALG;
    memcpy(sa, &fam, 2);
    memcpy(sa + 2, "hash", 4);
    unsigned int feat[2] = {0x1001, 0x2};
    memcpy(sa + 16, feat, sizeof(feat));
    memcpy(sa + 24, "sha256", 6);
    connect(u, (void *)sa, 88);
    memcpy(sa + 2, "0123456789abcd", 14);
    memcpy(sa + 24, "xyz", 3);
    connect(u, (void *)sa, 27);
    /* AF_AX25: a sane callsign alone, then with digipeaters (sane, odd bytes, empty,
     * unprintable) cut by the length or wanting more than there are */
    memset(sa, 0, sizeof(sa));
    fam = AF_AX25;
    memcpy(sa, &fam, 2);
    memcpy(sa + 2, "\xac\x82\x98\x92\x88\x40\x1a", 7);          /* VALID-13 */
    connect(u, (void *)sa, 16);
    int ndigis = 4;
    memcpy(sa + 12, &ndigis, 4);
    memcpy(sa + 16, "\x9e\x96\x40\x40\x40\x40\x1e"             /* OK-15 */
                    "\x8c\x92\x9c\x8a\x40\x41\x04"             /* FINE-2, odd */
                    "\x40\x40\x40\x40\x40\x40\x00"             /* * */
                    "\x14\x12\x82\x84\x86\x88\x0e", 28);       /* unprintable */
    connect(u, (void *)sa, 44);
    connect(u, (void *)sa, 38);
    connect(u, (void *)sa, 50);
    ndigis = 9;
    memcpy(sa + 12, &ndigis, 4);
    connect(u, (void *)sa, 80);
    ndigis = -1;
    memcpy(sa + 12, &ndigis, 4);
    connect(u, (void *)sa, 16);
    connect(u, (void *)sa, 15);                               /* short: sa_data */
    sin.sin_port = htons(9);
    connect(u, (void *)&sin, 2);
    connect(u, (void *)&sin, 0);
    close(u);
    close(u6);
}

static void unixes(void) {
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "srv.sock");
    bind(l, (void *)&a, offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1);
    listen(l, 5);
    listen(l, -1);
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    connect(c, (void *)&a, sizeof(a));
    struct sockaddr_un peer;
    socklen_t pl = sizeof(peer);
    int s = accept(l, (void *)&peer, &pl);
    pl = sizeof(peer);
    getsockname(c, (void *)&peer, &pl);
    pl = sizeof(peer);
    getpeername(c, (void *)&peer, &pl);
    pl = sizeof(peer);
    getsockname(l, (void *)&peer, &pl);
    pl = 4;
    getpeername(c, (void *)&peer, &pl);                   /* truncated */
    getsockname(c, (void *)&peer, NULL);
    getsockname(c, NULL, &pl);
    struct ucred pc;
    socklen_t pcl = sizeof(pc);
    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &pc, &pcl);
    pcl = 4;
    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &pc, &pcl);
    struct linger lg;
    socklen_t lgl = 4;
    getsockopt(c, SOL_SOCKET, SO_LINGER, &lg, &lgl);
    struct { struct sockaddr_un a; char more[8]; } longun;
    memset(&longun, 'p', sizeof(longun));
    longun.a.sun_family = AF_UNIX;
    bind(c, (void *)&longun, sizeof(longun));            /* EINVAL: too long */
    bind(c, (void *)&longun, sizeof(longun.a));          /* no NUL in sun_path */
    /* the credentials and fds */
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
    struct ucred cr = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
    char cbuf[CMSG_SPACE(sizeof(cr)) + CMSG_SPACE(2 * sizeof(int))];
    memset(cbuf, 0, sizeof(cbuf));
    char data[] = "hello";
    struct iovec iov[2] = {{data, 3}, {data + 3, 2}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_CREDENTIALS;
    cm->cmsg_len = CMSG_LEN(sizeof(cr));
    memcpy(CMSG_DATA(cm), &cr, sizeof(cr));
    cm = CMSG_NXTHDR(&mh, cm);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int two[2] = {0, 1};
    memcpy(CMSG_DATA(cm), two, sizeof(two));
    sendmsg(c, &mh, MSG_NOSIGNAL);
    char rbuf[64], rc[256];
    struct iovec riov = {rbuf, sizeof(rbuf)};
    struct msghdr rh = {.msg_iov = &riov, .msg_iovlen = 1, .msg_control = rc,
                        .msg_controllen = sizeof(rc)};
    int r = recvmsg(s, &rh, MSG_CMSG_CLOEXEC);
    if (r > 0) {
        for (cm = CMSG_FIRSTHDR(&rh); cm; cm = CMSG_NXTHDR(&rh, cm))
            if (cm->cmsg_type == SCM_RIGHTS) {
                int *fp = (int *)CMSG_DATA(cm);
                close(fp[0]);
                close(fp[1]);
            }
    }
    /* a control buffer too short: MSG_CTRUNC */
    sendmsg(c, &mh, 0);
    rh.msg_control = rc;
    rh.msg_controllen = 20;
    recvmsg(s, &rh, 0);
    rh.msg_controllen = 0;
    rh.msg_control = NULL;
    sendto(c, "abc", 3, MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE, NULL, 0);
    recvfrom(s, rbuf, sizeof(rbuf), MSG_PEEK | MSG_DONTWAIT | 0x800000, NULL, NULL);
    recvfrom(s, rbuf, sizeof(rbuf), MSG_DONTWAIT, NULL, NULL);
    recvfrom(s, rbuf, sizeof(rbuf), MSG_DONTWAIT, NULL, NULL); /* EAGAIN */
    shutdown(c, SHUT_WR);
    shutdown(c, SHUT_RD);
    shutdown(c, SHUT_RDWR);
    shutdown(c, 7);
    close(s);
    close(c);
    /* abstract and unnamed */
    int d = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un ab = {.sun_family = AF_UNIX};
    /* the pid in the name: runs at once (pytest -n 2, one per strace option) in the same
     * network namespace would bind one name, and the second one's recvfrom wait forever */
    char abname[24];
    snprintf(abname + 1, sizeof abname - 1, "tracekit-sw-%06u", (unsigned)getpid() % 1000000);
    abname[0] = '\0';
    abname[19] = '\0';
    abname[20] = 'x';
    memcpy(ab.sun_path, abname, 21);
    bind(d, (void *)&ab, offsetof(struct sockaddr_un, sun_path) + 21);
    int d2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    bind(d2, (void *)&un, sizeof(sa_family_t));           /* autobind */
    pl = sizeof(peer);
    getsockname(d2, (void *)&peer, &pl);
    sendto(d2, "0123456789", 10, 0, (void *)&ab, offsetof(struct sockaddr_un, sun_path) + 21);
    struct sockaddr_un from;
    socklen_t fl = sizeof(from);
    recvfrom(d, rbuf, 4, MSG_TRUNC, (void *)&from, &fl);  /* returns 10 */
    sendto(d2, "0123456789", 10, 0, (void *)&ab, offsetof(struct sockaddr_un, sun_path) + 21);
    riov.iov_len = 4;
    fl = sizeof(from);
    rh.msg_name = &from;
    rh.msg_namelen = sizeof(from);
    recvmsg(d, &rh, MSG_TRUNC);
    close(d);
    close(d2);
    close(l);
    /* accept4 with flags and NULL addr */
    l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(l, (void *)&sin, sizeof(sin));
    listen(l, 1);
    socklen_t sl = sizeof(sin);
    getsockname(l, (void *)&sin, &sl);
    c = socket(AF_INET, SOCK_STREAM, 0);
    connect(c, (void *)&sin, sizeof(sin));
    s = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    int i = 0;
    socklen_t vl2;
    accept4(l, NULL, NULL, 0x4);                          /* EINVAL */
    accept(-1, NULL, NULL);                               /* EBADF */
    struct sockaddr_in fa;
    recvfrom(s, rbuf, 1, MSG_DONTWAIT, (void *)&fa, NULL); /* EAGAIN */
    vl2 = sizeof(i);
    getsockopt(s, SOL_TCP, 99, &i, &vl2);
    getsockopt(s, SOL_IPV6, 99, &i, &vl2);
    setsockopt(s, SOL_IPV6, IPV6_V6ONLY, &i, 0);
    setsockopt(s, SOL_TCP, TCP_NODELAY, &i, 0);
    accept4(-1, NULL, NULL, SOCK_NONBLOCK);               /* EBADF */
    ioctl(s, FIONREAD, &i);
    sendto(c, "x", 1, 0, NULL, 0);
    usleep(1000);
    ioctl(s, FIONREAD, &i);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    strcpy(ifr.ifr_name, "lo");
    ioctl(s, SIOCGIFINDEX, &ifr);
    ifr.ifr_ifindex = 1;
    ioctl(s, SIOCGIFNAME, &ifr);
    ifr.ifr_ifindex = 100000;
    ioctl(s, SIOCGIFNAME, &ifr);
    opts_tcp(s);
    close(s);
    close(c);
    close(l);
}

static void opts_tcp(int s) {
    int one = 1, v = 0;
    socklen_t vl = sizeof(v);
    setsockopt(s, SOL_TCP, TCP_NODELAY, &one, sizeof(one));
    getsockopt(s, SOL_TCP, TCP_NODELAY, &v, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_TCP, TCP_MAXSEG, &v, &vl);
    char cc[16];
    vl = sizeof(cc);
    getsockopt(s, SOL_TCP, TCP_CONGESTION, cc, &vl);
    setsockopt(s, SOL_TCP, TCP_CONGESTION, "reno", 4);
    unsigned char ti[512];
    vl = sizeof(ti);
    getsockopt(s, SOL_TCP, TCP_INFO, ti, &vl);
    vl = 8;
    getsockopt(s, SOL_TCP, TCP_INFO, ti, &vl);
}

static void opts(void) {
    int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, v = 0;
    socklen_t vl = sizeof(v);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 0);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 2);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, NULL, 4);
    getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, &vl);
    struct linger lg = {1, 5};
    setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    vl = sizeof(lg);
    getsockopt(s, SOL_SOCKET, SO_LINGER, &lg, &vl);
    struct timeval tv = {2, 500000};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    vl = sizeof(tv);
    getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &v, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &vl);
    vl = sizeof(v);
    getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &vl);
    vl = 8;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &vl);      /* [8 => 4] */
    vl = 2;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &vl);
    vl = 0;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &vl);
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, NULL);
    getsockopt(s, SOL_SOCKET, SO_TYPE, NULL, &vl);
    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3);
    char dev[IFNAMSIZ];
    vl = sizeof(dev);
    getsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, dev, &vl);
    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "", 0);
    int tos = IPTOS_LOWDELAY, ttl = 7;
    setsockopt(s, SOL_IP, IP_TOS, &tos, sizeof(tos));
    setsockopt(s, SOL_IP, IP_TTL, &ttl, sizeof(ttl));
    vl = sizeof(v);
    getsockopt(s, SOL_IP, IP_TTL, &v, &vl);
    struct in_addr lo = {htonl(INADDR_LOOPBACK)};
    setsockopt(s, SOL_IP, IP_MULTICAST_IF, &lo, sizeof(lo));
    struct ip_mreq mr;
    inet_pton(AF_INET, "239.255.42.99", &mr.imr_multiaddr);
    mr.imr_interface = lo;
    setsockopt(s, SOL_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr));
    setsockopt(s, SOL_IP, IP_DROP_MEMBERSHIP, &mr, sizeof(mr));
    setsockopt(s, SOL_IP, IP_RECVTTL, &one, sizeof(one));
    setsockopt(s, SOL_IP, IP_PKTINFO, &one, sizeof(one));
    setsockopt(s, 12345, 6789, &one, sizeof(one));
    getsockopt(s, SOL_SOCKET, 9999, &v, &vl);
    setsockopt(s, SOL_SOCKET, SO_LINGER, BADP, sizeof(lg));
    /* the IP_TTL and IP_PKTINFO cmsgs in */
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bind(s, (void *)&sin, sizeof(sin));
    socklen_t sl = sizeof(sin);
    getsockname(s, (void *)&sin, &sl);
    sendto(s, "ttl", 3, 0, (void *)&sin, sizeof(sin));
    char buf[16], cbuf[256];
    struct sockaddr_in from;
    struct iovec iov = {buf, sizeof(buf)};
    struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
                        .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
    recvmsg(s, &mh, 0);
    close(s);
    int s6 = socket(AF_INET6, SOCK_DGRAM, 0);
    setsockopt(s6, SOL_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    vl = sizeof(v);
    getsockopt(s6, SOL_IPV6, IPV6_V6ONLY, &v, &vl);
    struct ipv6_mreq m6 = {.ipv6mr_multiaddr = {{{0xff, 0x02, [15] = 0x42}}}};
    m6.ipv6mr_interface = if_nametoindex("lo");                    /* lo only */
    setsockopt(s6, SOL_IPV6, IPV6_ADD_MEMBERSHIP, &m6, sizeof(m6));
    setsockopt(s6, SOL_IPV6, IPV6_DROP_MEMBERSHIP, &m6, sizeof(m6));
    setsockopt(s6, SOL_IPV6, IPV6_ADD_MEMBERSHIP, &m6, 4);         /* EINVAL */
    setsockopt(s6, SOL_SOCKET, SO_LINGER, &one, 4);                  /* EINVAL */
    setsockopt(s6, SOL_SOCKET, SO_REUSEADDR, &tv, 8);
    setsockopt(s6, SOL_TCP, TCP_NODELAY, &tv, 8);                    /* EOPNOTSUPP */
    setsockopt(s6, SOL_IP, IP_ADD_MEMBERSHIP, &one, 4);              /* short */
    struct ip_mreqn mn = {.imr_address.s_addr = htonl(INADDR_LOOPBACK)};
    mn.imr_ifindex = if_nametoindex("lo");
    inet_pton(AF_INET, "239.255.42.98", &mn.imr_multiaddr);
    int s4 = socket(AF_INET, SOCK_DGRAM, 0);
    setsockopt(s4, SOL_IP, IP_ADD_MEMBERSHIP, &mn, sizeof(mn));
    close(s4);
    struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_port = htons(9),
                              .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    struct iovec iov6 = {"six", 3};
    struct msghdr m6h = {.msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov6,
                         .msg_iovlen = 1};
    sendmsg(s6, &m6h, MSG_DONTWAIT | 0x40000000);
    vl = 2;
    getsockopt(s6, SOL_SOCKET, SO_RCVTIMEO, &tv, &vl);
    close(s6);
    int n = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    setsockopt(n, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(n, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
    vl = sizeof(v);
    getsockopt(n, SOL_NETLINK, NETLINK_NO_ENOBUFS, &v, &vl);
    vl = sizeof(v);
    getsockopt(n, SOL_NETLINK, 99, &v, &vl);
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    bind(n, (void *)&nl, sizeof(nl));
    sl = sizeof(nl);
    getsockname(n, (void *)&nl, &sl);
    close(n);
}

/* What system and network tools (ping, curl, ip -6 addr) do: ping's ICMP_FILTER on a raw
 * ICMP socket and the SO_TIMESTAMP cmsg of its echo reply, curl's SO_ERROR of a refused
 * non-blocking connect (to a loopback port nothing listens on: the port a just-closed
 * listener had), and ip's SIOCGIF* reads of lo. */
static void netprog(void) {
    int r = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    struct { unsigned data; } f = {~((1U << ICMP_ECHOREPLY) | (1U << ICMP_DEST_UNREACH) |
                              (1U << ICMP_TIME_EXCEEDED))};
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
    f.data = 0;
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
    f.data = ~0U;
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
    f.data = ~((1U << ICMP_ECHO) | (1U << 20) | (1U << 31));
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, 2);
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, 8);
    setsockopt(r, SOL_RAW, ICMP_FILTER, &f, 0);
    setsockopt(r, SOL_RAW, ICMP_FILTER, BADP, 4);
    setsockopt(r, SOL_RAW, 7, &f, 4);
    socklen_t vl = sizeof(f);
    getsockopt(r, SOL_RAW, ICMP_FILTER, &f, &vl);
    vl = 2;
    getsockopt(r, SOL_RAW, ICMP_FILTER, &f, &vl);
    close(r);
    /* SO_ERROR: ECONNREFUSED, then 0 once read */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sin);
    bind(l, (void *)&sin, sizeof(sin));
    getsockname(l, (void *)&sin, &sl);
    close(l);
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    connect(c, (void *)&sin, sizeof(sin));
    struct pollfd pf = {c, POLLOUT, 0};
    poll(&pf, 1, 2000);
    int err = -1;
    vl = sizeof(err);
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &vl);
    vl = sizeof(err);
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &vl);
    vl = 2;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &vl);
    vl = 1;
    getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &vl);
    close(c);
    /* SO_TIMESTAMP / SO_TIMESTAMPNS cmsgs of a datagram to itself */
    int u = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
    sin.sin_port = 0;
    bind(u, (void *)&sin, sizeof(sin));
    sl = sizeof(sin);
    getsockname(u, (void *)&sin, &sl);
    char buf[16], cbuf[256];
    struct iovec iov = {buf, sizeof(buf)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf)};
    setsockopt(u, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one));
    sendto(u, "ts", 2, 0, (void *)&sin, sizeof(sin));
    recvmsg(u, &mh, 0);
    setsockopt(u, SOL_SOCKET, SO_TIMESTAMP, &err, sizeof(err));
    setsockopt(u, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    sendto(u, "ns", 2, 0, (void *)&sin, sizeof(sin));
    mh.msg_controllen = sizeof(cbuf);
    recvmsg(u, &mh, 0);
    /* SIOCGIF* of lo */
    struct ifreq ifr;
    unsigned long reqs[] = {SIOCGIFTXQLEN, SIOCGIFMTU, SIOCGIFFLAGS, SIOCGIFMETRIC,
                            SIOCGIFHWADDR, SIOCGIFADDR, SIOCGIFNETMASK};
    for (unsigned k = 0; k < sizeof(reqs) / sizeof(reqs[0]); k++) {
        memset(&ifr, 0, sizeof(ifr));
        strcpy(ifr.ifr_name, "lo");
        ioctl(u, reqs[k], &ifr);
    }
    strcpy(ifr.ifr_name, "nosuchif0");
    ioctl(u, SIOCGIFTXQLEN, &ifr);
    close(u);
}

int main(int argc, char **argv) {
    if (argc < 2 || chdir(argv[1]))
        return 1;
    sockets();
    addrs();
    unixes();
    opts();
    netprog();
    return 0;
}
