/* Netlink messages as strace 6.1 decodes them on netlink sockets: NETLINK_ROUTE requests
 * and replies (RTM_GETADDR/NEWADDR, RTM_GETLINK/NEWLINK, RTM_GETROUTE/NEWROUTE,
 * RTM_GETRULE/NEWRULE, RTM_GETNEIGH/NEWNEIGH, RTM_GETQDISC/NEWQDISC, RTM_GETNETCONF,
 * RTM_GETADDRLABEL, RTM_GETNSID, RTM_GETNEXTHOP, NLMSG_DONE, NLMSG_ERROR with the
 * request it answers, extended ACKs), NETLINK_SOCK_DIAG requests
 * and replies (inet_diag_req_v2 / inet_diag_msg of a listening TCP socket of the
 * program's own, the old inet_diag_req, unix_diag_req / unix_diag_msg of a unix socket
 * of its own, netlink_diag_req / netlink_diag_msg of its NETLINK_USERSOCK socket),
 * NETLINK_AUDIT's AUDIT_GET and NETLINK_XFRM's XFRM_MSG_GETSA (types by name, payloads
 * in hex), another protocol's messages (NETLINK_USERSOCK: printed generically), and
 * hostile messages: shorter than a header, nlmsg_len 0, longer than the buffer, an
 * attribute shorter than its header, unknown types, replies cut short by a small buffer,
 * ip -6 addr's AF_INET6 link dump (IFLA_PROTINFO's IFLA_INET6_* attributes), and
 * NETLINK_NETFILTER (nft's requests, replies and messages to the program's own socket),
 * IFLA_AF_SPEC (per address family; IFLA_BRIDGE_* of an AF_BRIDGE link) and an AF_BRIDGE
 * link's IFLA_PROTINFO (IFLA_BRPORT_*) in RTM_NEWLINK
 * messages to the program's own socket, and there too RTM_*MDB, RTM_*STATS, RTM_*ACTION,
 * RTM_GETDCB and RTM_NEWCACHEREPORT messages and a route's and a rule's IPTOS_* bits, and a netlink socket of a network namespace of
 * the program's own (ip under unshare -n).
 *
 * The replies are kept small (tracekit captures 256 bytes of an iovec) and the same every
 * run on one machine: the address, route and neighbour dumps ask the kernel
 * (NETLINK_GET_STRICT_CHK) for lo's entries only, the route lookup names ::1, the diag
 * requests name one socket exactly. Nothing is changed: every request reads (the RTM_NEW*
 * and RTM_DEL* sent are refused for their unknown interface index).
 *
 * tests/e2e/test_strace_sweep_netlink.py runs it under strace -f and tracekit at once:
 * every line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_netlink
 * sweep_netlink.c; argument: a scratch directory. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/fib_rules.h>
#include <linux/genetlink.h>
#include <linux/dcbnl.h>
#include <linux/if_bonding.h>
#include <linux/if_bridge.h>
#include <linux/mroute.h>
#include <linux/pkt_cls.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/neighbour.h>
#include <linux/if_addrlabel.h>
#include <linux/netconf.h>
#include <linux/netlink_diag.h>
#include <linux/if_packet.h>
#include <linux/packet_diag.h>
#include <linux/nexthop.h>
#include <linux/audit.h>
#include <linux/inet_diag.h>
#include <linux/mptcp.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/rtnetlink.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <linux/tls.h>
#include <linux/unix_diag.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define SEQ 1700000000u

static char buf[8192] __attribute__((aligned(8)));

/* recvmsg until NLMSG_DONE, an error, or nothing more (at most 8 replies) */
static void drain(int s, size_t size) {
    for (int k = 0; k < 8; k++) {
        struct sockaddr_nl from;
        struct iovec iov = {buf, size};
        struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof(from),
                            .msg_iov = &iov, .msg_iovlen = 1};
        ssize_t n = recvmsg(s, &mh, MSG_DONTWAIT);
        if (n <= 0)
            return;
        struct nlmsghdr *h = (void *)buf;
        int done = 0;
        for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n))
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                done = 1;
        if (done)
            return;
    }
}

static void send_nl(int s, const void *msg, size_t len) {
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    sendto(s, msg, len, 0, (void *)&to, sizeof(to));
}

static void route(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    bind(s, (void *)&nl, sizeof(nl));
    int one = 1;
    setsockopt(s, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));

    /* glibc's getaddrinfo(AI_ADDRCONFIG) request: a header and an rtgenmsg */
    struct {
        struct nlmsghdr h;
        struct rtgenmsg g;
    } gen = {{sizeof(gen), RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, SEQ, 0}, {AF_UNSPEC}};
    send_nl(s, &gen, sizeof(gen));
    drain(s, 64);       /* cut short: MSG_TRUNC, the rest dropped */
    drain(s, sizeof(buf));

    /* lo's addresses (strict checking: ifa_index filters the dump) */
    struct {
        struct nlmsghdr h;
        struct ifaddrmsg a;
    } addr = {{sizeof(addr), RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 1, 0},
              {.ifa_family = AF_INET, .ifa_index = 1}};
    send_nl(s, &addr, sizeof(addr));
    drain(s, sizeof(buf));
    addr.h.nlmsg_seq++;
    addr.a.ifa_family = AF_INET6;
    send_nl(s, &addr, sizeof(addr));
    drain(s, sizeof(buf));

    /* lo itself, cut to the first attributes by a small buffer */
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
        struct rtattr ra;
        __u32 mask;
    } link = {{sizeof(link), RTM_GETLINK, NLM_F_REQUEST, SEQ + 3, 0},
              {.ifi_family = AF_UNSPEC, .ifi_index = 1},
              {RTA_LENGTH(4), IFLA_EXT_MASK}, RTEXT_FILTER_VF};
    send_nl(s, &link, sizeof(link));
    drain(s, 160);
    /* an interface no one has: NLMSG_ERROR ENODEV with the request */
    link.h.nlmsg_seq++;
    link.i.ifi_index = 999999;
    send_nl(s, &link, sizeof(link));
    drain(s, sizeof(buf));
    /* the same with NLM_F_ACK and a name attribute instead */
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
        struct rtattr ra;
        char name[8];
    } byname = {{sizeof(byname), RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, SEQ + 5, 0},
                {.ifi_family = AF_UNSPEC}, {RTA_LENGTH(6), IFLA_IFNAME}, "nosuch"};
    send_nl(s, &byname, sizeof(byname));
    drain(s, sizeof(buf));

    /* lo's routes of the local table */
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr ra;
        __u32 oif;
    } rt = {{sizeof(rt), RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 6, 0},
            {.rtm_family = AF_INET, .rtm_table = RT_TABLE_LOCAL},
            {RTA_LENGTH(4), RTA_OIF}, 1};
    send_nl(s, &rt, sizeof(rt));
    drain(s, sizeof(buf));

    /* a route lookup: ::1 (one reply, with RTA_CACHEINFO) */
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr ra;
        struct in6_addr dst;
    } get6 = {{sizeof(get6), RTM_GETROUTE, NLM_F_REQUEST, SEQ + 14, 0},
              {.rtm_family = AF_INET6, .rtm_dst_len = 128},
              {RTA_LENGTH(16), RTA_DST}, IN6ADDR_LOOPBACK_INIT};
    send_nl(s, &get6, sizeof(get6));
    drain(s, sizeof(buf));

    /* the IPv4 policy rules (ip rule), lo's neighbours (ip neigh) */
    struct {
        struct nlmsghdr h;
        struct fib_rule_hdr f;
    } rule = {{sizeof(rule), RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 15, 0},
              {.family = AF_INET}};
    send_nl(s, &rule, sizeof(rule));
    drain(s, sizeof(buf));
    struct {
        struct nlmsghdr h;
        struct ndmsg n;
        struct rtattr ra;
        __u32 ifindex;
    } neigh = {{sizeof(neigh), RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 16, 0},
               {.ndm_family = AF_INET}, {RTA_LENGTH(4), NDA_IFINDEX}, 1};
    send_nl(s, &neigh, sizeof(neigh));
    drain(s, sizeof(buf));

    /* the qdiscs (tc qdisc show), read into 160 bytes: lo's (the first) and the head
     * of the next, as hex */
    struct {
        struct nlmsghdr h;
        struct tcmsg t;
    } qd = {{sizeof(qd), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 24, 0},
            {.tcm_family = AF_UNSPEC}};
    send_nl(s, &qd, sizeof(qd));
    drain(s, 160);

    /* lo's IPv4 settings (ip netconf show dev lo), the address label of ::1, the
     * namespace ids (ip netns list-id) and the nexthops (ip nexthop) */
    struct {
        struct nlmsghdr h;
        struct netconfmsg n;
        char pad[3];
        struct rtattr ra;
        __u32 ifindex;
    } conf = {{sizeof(conf), RTM_GETNETCONF, NLM_F_REQUEST, SEQ + 25, 0}, {AF_INET}, {0},
              {RTA_LENGTH(4), NETCONFA_IFINDEX}, 1};
    send_nl(s, &conf, sizeof(conf));
    drain(s, sizeof(buf));
    struct {
        struct nlmsghdr h;
        struct ifaddrlblmsg l;
        struct rtattr ra;
        struct in6_addr a;
    } lbl = {{sizeof(lbl), RTM_GETADDRLABEL, NLM_F_REQUEST, SEQ + 26, 0},
             {.ifal_family = AF_INET6, .ifal_prefixlen = 128},
             {RTA_LENGTH(16), IFAL_ADDRESS}, IN6ADDR_LOOPBACK_INIT};
    send_nl(s, &lbl, sizeof(lbl));
    drain(s, sizeof(buf));
    struct {
        struct nlmsghdr h;
        struct rtgenmsg g;
        char pad[3];
    } nsid = {{sizeof(nsid), RTM_GETNSID, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 27, 0},
              {AF_UNSPEC}, {0}};
    send_nl(s, &nsid, sizeof(nsid));
    drain(s, sizeof(buf));
    struct {
        struct nlmsghdr h;
        struct nhmsg n;
    } nh = {{sizeof(nh), RTM_GETNEXTHOP, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 28, 0},
            {.nh_family = AF_UNSPEC}};
    send_nl(s, &nh, sizeof(nh));
    drain(s, sizeof(buf));

    /* refused changes: an address and a route on an interface no one has */
    struct {
        struct nlmsghdr h;
        struct ifaddrmsg a;
        struct rtattr ra;
        struct in_addr in;
    } newaddr = {{sizeof(newaddr), RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
                  NLM_F_EXCL, SEQ + 7, 0},
                 {.ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_index = 999999},
                 {RTA_LENGTH(4), IFA_LOCAL}, {htonl(0x7f000063)}};
    send_nl(s, &newaddr, sizeof(newaddr));
    drain(s, sizeof(buf));
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr ra;
        __u32 oif;
    } delrt = {{sizeof(delrt), RTM_DELROUTE, NLM_F_REQUEST | NLM_F_ACK, SEQ + 8, 0},
               {.rtm_family = AF_INET, .rtm_table = RT_TABLE_MAIN,
                .rtm_protocol = RTPROT_BOOT, .rtm_scope = RT_SCOPE_UNIVERSE,
                .rtm_type = RTN_UNICAST},
               {RTA_LENGTH(4), RTA_OIF}, 999999};
    send_nl(s, &delrt, sizeof(delrt));
    drain(s, sizeof(buf));

    /* a link change with nested attributes, refused: no interface has the index and
     * NLM_F_CREATE is not set */
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
        struct rtattr li, kind;
        char k[8];
        struct rtattr pl, alt;
        char a[8];
    } setl = {{sizeof(setl), RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, SEQ + 19, 0},
              {.ifi_index = 999999},
              {RTA_LENGTH(4 + 8), IFLA_LINKINFO | NLA_F_NESTED}, {RTA_LENGTH(6), IFLA_INFO_KIND},
              "dummy", {RTA_LENGTH(4 + 8), IFLA_PROP_LIST | NLA_F_NESTED},
              {RTA_LENGTH(7), IFLA_ALT_IFNAME}, "altnm1"};
    send_nl(s, &setl, sizeof(setl));
    drain(s, sizeof(buf));

    /* hostile: shorter than a header, nlmsg_len 0, longer than the buffer, an
     * attribute shorter than its header, an unknown type, two messages */
    send_nl(s, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 10);
    struct nlmsghdr zero = {0, RTM_GETLINK, NLM_F_REQUEST, SEQ + 9, 0};
    send_nl(s, &zero, sizeof(zero));
    struct {
        struct nlmsghdr h;
        struct ifaddrmsg a;
        struct rtattr ra;
    } bad = {{4096, RTM_GETADDR, NLM_F_REQUEST, SEQ + 10, 0}, {.ifa_family = AF_INET},
             {2, IFA_LABEL}};
    send_nl(s, &bad, sizeof(bad));
    struct {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr ra;
        __u32 table;
    } odd = {{sizeof(odd), RTM_GETROUTE, NLM_F_REQUEST, SEQ + 29, 0},
             {.rtm_family = AF_INET, .rtm_table = 100, .rtm_protocol = 77, .rtm_scope = 100,
              .rtm_type = 99, .rtm_flags = 0x80000},
             {RTA_LENGTH(4), RTA_TABLE}, 1000};            /* values without names */
    send_nl(s, &odd, sizeof(odd));
    drain(s, sizeof(buf));
    struct nlmsghdr unk[2] = {{16, 0x7ff, NLM_F_REQUEST | 0x4000, SEQ + 11, 0},
                              {16, NLMSG_NOOP, 0, SEQ + 12, 1234}};
    send_nl(s, unk, sizeof(unk));
    drain(s, sizeof(buf));
    /* a request through sendmsg, two iovecs */
    struct iovec iov[2] = {{&addr, sizeof(addr.h)}, {&addr.a, sizeof(addr.a)}};
    addr.h.nlmsg_seq = SEQ + 13;
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    struct msghdr mh = {.msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = iov,
                        .msg_iovlen = 2};
    sendmsg(s, &mh, 0);
    drain(s, sizeof(buf));
    close(s);

    /* extended ACKs, the request capped to its header: an error with its message
     * (NLMSGERR_ATTR_MSG), and a dump refused in its NLMSG_DONE */
    s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    bind(s, (void *)&nl, sizeof(nl));
    setsockopt(s, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(s, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    setsockopt(s, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
    struct {
        struct nlmsghdr h;
        struct ifaddrmsg a;
        struct rtattr ra;
        struct in_addr in;
    } badlen = {{sizeof(badlen), RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK, SEQ + 17, 0},
                {.ifa_family = AF_INET, .ifa_prefixlen = 40, .ifa_index = 1},
                {RTA_LENGTH(4), IFA_LOCAL}, {htonl(0x7f000063)}};
    send_nl(s, &badlen, sizeof(badlen));
    drain(s, sizeof(buf));
    addr.h.nlmsg_seq = SEQ + 18;
    addr.a.ifa_prefixlen = 3;
    send_nl(s, &addr, sizeof(addr));
    drain(s, sizeof(buf));
    close(s);
}

static void diag(void) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    bind(l, (void *)&sin, sizeof(sin));
    listen(l, 1);
    socklen_t sl = sizeof(sin);
    getsockname(l, (void *)&sin, &sl);

    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } req = {{sizeof(req), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, SEQ + 20, 0},
             {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
              .idiag_states = 1 << TCP_LISTEN,
              .id = {.idiag_sport = sin.sin_port, .idiag_src = {sin.sin_addr.s_addr},
                     .idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}}};
    send_nl(s, &req, sizeof(req));
    drain(s, sizeof(buf));
    /* a dump of TCP sockets in a state none is in (ss -t -a asks for all) */
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq++;
    req.r.idiag_states = 1 << TCP_CLOSING;
    req.r.idiag_ext = 1 << (INET_DIAG_INFO - 1) | 1 << (INET_DIAG_TOS - 1);
    send_nl(s, &req, sizeof(req));
    drain(s, sizeof(buf));

    /* the old request (ss sends it for DCCP): struct inet_diag_req */
    struct {
        struct nlmsghdr h;
        struct inet_diag_req r;
    } old = {{sizeof(old), TCPDIAG_GETSOCK, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 23, 0},
             {.idiag_family = AF_INET, .idiag_states = 1 << TCP_CLOSING}};
    send_nl(s, &old, sizeof(old));
    drain(s, sizeof(buf));

    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sun = {.sun_family = AF_UNIX, .sun_path = "diag.sock"};
    bind(u, (void *)&sun, sizeof(sun));
    struct stat st;
    fstat(u, &st);
    struct {
        struct nlmsghdr h;
        struct unix_diag_req r;
    } ureq = {{sizeof(ureq), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, SEQ + 22, 0},
              {.sdiag_family = AF_UNIX, .udiag_states = -1, .udiag_ino = st.st_ino,
               .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER,
               .udiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}};
    send_nl(s, &ureq, sizeof(ureq));
    drain(s, sizeof(buf));
    close(u);
    close(s);
    close(l);
}

static void other(void) {
    int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_USERSOCK);
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    bind(s, (void *)&nl, sizeof(nl));
    struct {
        struct nlmsghdr h;
        char data[8];
    } m = {{sizeof(m), 0x20, NLM_F_REQUEST, SEQ + 30, 0}, "payload"};
    int grp = 3, one = 1;       /* NETLINK_DIAG_GROUPS and NETLINK_DIAG_FLAGS below */
    setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp));
    setsockopt(s, SOL_NETLINK, NETLINK_PKTINFO, &one, sizeof(one));
    socklen_t sl = sizeof(nl);
    getsockname(s, (void *)&nl, &sl);
    sendto(s, &m, sizeof(m), 0, (void *)&nl, sizeof(nl));     /* to itself */
    recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL);
    /* the NETLINK_USERSOCK sockets, this one among them (netlink_diag) */
    int d = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    bind(d, (void *)&nl, sizeof(nl));
    struct {
        struct nlmsghdr h;
        struct netlink_diag_req r;
    } nreq = {{sizeof(nreq), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 31, 0},
              {.sdiag_family = AF_NETLINK, .sdiag_protocol = NETLINK_USERSOCK,
               .ndiag_show = NDIAG_SHOW_MEMINFO | NDIAG_SHOW_GROUPS | NDIAG_SHOW_FLAGS}};
    send_nl(d, &nreq, sizeof(nreq));
    drain(d, sizeof(buf));
    close(d);
    /* a port id of the high half (user-chosen ids are any u32): refused */
    struct sockaddr_nl far = {.nl_family = AF_NETLINK, .nl_pid = 0xfffffff0u};
    sendto(s, &m, sizeof(m), 0, (void *)&far, sizeof(far));
    close(s);
}

/* NETLINK_AUDIT's AUDIT_GET (the status: a read) and NETLINK_XFRM's XFRM_MSG_GETSA dump
 * (the IPsec SAs: a read): types by name, payloads as hex */
static void audit_xfrm(void) {
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    int a = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
    bind(a, (void *)&nl, sizeof(nl));
    struct nlmsghdr get = {sizeof(get), AUDIT_GET, NLM_F_REQUEST | NLM_F_ACK, SEQ + 40, 0};
    send_nl(a, &get, sizeof(get));
    drain(a, sizeof(buf));
    close(a);
    int x = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);
    bind(x, (void *)&nl, sizeof(nl));
    struct {
        struct nlmsghdr h;
        struct xfrm_usersa_id id;
    } sa = {{sizeof(sa), XFRM_MSG_GETSA, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 41, 0}, {{0}}};
    send_nl(x, &sa, sizeof(sa));
    drain(x, sizeof(buf));
    close(x);
}

/* ip -6 addr's first request: the AF_INET6 link dump, each link's IFLA_PROTINFO holding
 * its IFLA_INET6_* attributes (flags, cacheinfo, the DEVCONF_* array, the IPSTATS_MIB_*
 * and ICMP6_MIB_* counters, token, address generation mode); then again into a buffer
 * that cuts the first link's attributes short. Every link of the machine answers (the
 * kernel filters this dump by nothing), which strace and tracekit see alike on one run. */
static void inet6_links(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } req = {{sizeof(req), RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 50, 0},
             {.ifi_family = AF_INET6}};
    send_nl(s, &req, sizeof(req));
    drain(s, sizeof(buf));
    close(s);
    s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    req.h.nlmsg_seq++;
    send_nl(s, &req, sizeof(req));
    drain(s, 200);
    close(s);
}

/* ip link show lo: lo's RTM_NEWLINK whole, its 40-odd attributes, of which -s shows 32:
 * past them IFLA_XDP (nested IFLA_XDP_ATTACHED), IFLA_MAP's struct and IFLA_AF_SPEC
 * (AF_INET's IFLA_INET_CONF array, AF_INET6's IFLA_INET6_* attributes). */
static void whole_link(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } req = {{sizeof(req), RTM_GETLINK, NLM_F_REQUEST, SEQ + 95, 0},
             {.ifi_family = AF_UNSPEC, .ifi_index = 1}};
    send_nl(s, &req, sizeof(req));
    drain(s, sizeof(buf));
    close(s);
}

/* NETLINK_NETFILTER as nft list ruleset talks it: NFT_MSG_GETGEN on a socket not bound
 * yet (strace cannot learn its protocol: printed generically), the NFT_MSG_NEWGEN reply,
 * an NFT_MSG_GETTABLE dump; then messages to the socket itself (the kernel reads none of
 * them): a batch marker with bytes after its nfgenmsg, NFT_MSG_NEWTABLE with a nested
 * attribute, res_id in network and in host order, a payload shorter than nfgenmsg, a
 * version no one has, types of other subsystems and of none. */
struct nfmsg {
    struct nlmsghdr h;
    struct nfgenmsg g;
    char attrs[24];
};

static void nf_self(int s, __u32 me, __u16 type, __u16 flags, __u16 res_id, __u8 version,
                    size_t len) {
    struct nfmsg m = {{len, type, flags, SEQ + 60, me},
                      {AF_INET, version, res_id}, {0}};
    struct nlattr *a = (void *)m.attrs;                  /* NFTA_TABLE_NAME "t" */
    a->nla_len = NLA_HDRLEN + 2;
    a->nla_type = NFTA_TABLE_NAME;
    memcpy(m.attrs + NLA_HDRLEN, "t", 2);
    struct nlattr *n = (void *)(m.attrs + 8);            /* a nested one, one u32 in it */
    n->nla_len = 2 * NLA_HDRLEN + 4;
    n->nla_type = NLA_F_NESTED | 5;
    struct nlattr *in = n + 1;
    in->nla_len = NLA_HDRLEN + 4;
    in->nla_type = 1;
    memcpy(in + 1, "\0\0\0\7", 4);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me};
    sendto(s, &m, len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
}

static void netfilter(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
    struct {
        struct nlmsghdr h;
        struct nfgenmsg g;
    } gen = {{sizeof(gen), NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETGEN, NLM_F_REQUEST,
              SEQ + 55, 0}, {AF_UNSPEC, NFNETLINK_V0, 0}};
    send_nl(s, &gen, sizeof(gen));
    drain(s, sizeof(buf));
    gen.h.nlmsg_type = NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETTABLE;
    gen.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    gen.h.nlmsg_seq++;
    send_nl(s, &gen, sizeof(gen));
    drain(s, sizeof(buf));
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t l = sizeof(me);
    getsockname(s, (void *)&me, &l);
    __u16 nft = NFNL_SUBSYS_NFTABLES << 8;
    nf_self(s, me.nl_pid, NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST, htons(NFNL_SUBSYS_NFTABLES),
            NFNETLINK_V0, sizeof(struct nfmsg) - 16);
    nf_self(s, me.nl_pid, nft | NFT_MSG_NEWTABLE, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_ACK,
            htons(NFNL_SUBSYS_NFTABLES), NFNETLINK_V0, sizeof(struct nfmsg));
    nf_self(s, me.nl_pid, nft | NFT_MSG_DELRULE, NLM_F_REQUEST | NLM_F_NONREC,
            NFNL_SUBSYS_NFTABLES, NFNETLINK_V0, sizeof(struct nfmsg) - 24);
    nf_self(s, me.nl_pid, nft | NFT_MSG_GETSET, NLM_F_REQUEST | NLM_F_DUMP, htons(7), 1,
            sizeof(struct nfmsg) - 24);
    nf_self(s, me.nl_pid, nft | 0x30, NLM_F_REQUEST, 0, 0, NLMSG_HDRLEN + 2);
    nf_self(s, me.nl_pid, NFNL_SUBSYS_CTNETLINK << 8 | 9, NLM_F_REQUEST, 0, 0,
            sizeof(struct nfmsg) - 24);
    nf_self(s, me.nl_pid, NFNL_SUBSYS_IPSET << 8 | 17, NLM_F_REQUEST, 0, 0,
            sizeof(struct nfmsg) - 24);
    nf_self(s, me.nl_pid, 0x2001, NLM_F_REQUEST | NLM_F_DUMP, 0, 0, sizeof(struct nfmsg) - 24);
    nf_self(s, me.nl_pid, 0x12, NLM_F_REQUEST, 0, 0, sizeof(struct nfmsg) - 24);
    close(s);
}

/* What ip does under unshare -n or ip netns exec: its netlink socket is in a network
 * namespace of its own, which strace's sock_diag query (made in strace's namespace) does
 * not see: strace learns no protocol and prints the messages generically (and, with
 * -yy, the socket as NETLINK:[INODE]). The namespace is new and empty but for a down lo:
 * its link dump is the same on every machine. Last: the program stays in it. */
static void other_netns(void) {
    if (unshare(CLONE_NEWNET))
        return;
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    bind(s, (void *)&me, sizeof(me));
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } req = {{sizeof(req), RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 70, 0},
             {.ifi_family = AF_UNSPEC}};
    send_nl(s, &req, sizeof(req));
    drain(s, 64);
    close(s);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = {.sin_family = AF_INET};
    bind(u, (void *)&any, sizeof(any));
    getsockname(u, NULL, NULL);
    close(u);
}

/* RTM_NEWLINK messages carrying IFLA_AF_SPEC, sent to the program's own NETLINK_ROUTE
 * socket (the kernel reads none of them): one attribute per address family, AF_INET's
 * IFLA_INET_CONF array (indices named after the IPV4_DEVCONF_* constant one above),
 * AF_INET6's IFLA_INET6_ADDR_GEN_MODE, AF_MCTP's IFLA_MCTP_NET, a family with no
 * decoder (its bytes in hex) and an IFLA_INET_* type no one has; then an AF_BRIDGE
 * link's IFLA_AF_SPEC, whose attributes are IFLA_BRIDGE_* (flags, mode, one too short
 * for its u16, one past the names). */
struct afmsg {
    struct nlmsghdr h;
    struct ifinfomsg i;
    char attrs[96];
};

static size_t put_attr(char *at, __u16 type, const void *data, size_t len) {
    struct nlattr *a = (void *)at;
    a->nla_len = NLA_HDRLEN + len;
    a->nla_type = type;
    memcpy(at + NLA_HDRLEN, data, len);
    return NLA_ALIGN(NLA_HDRLEN + len);
}

static void link_self(int s, __u32 me, __u8 family, __u16 type, const char *spec,
                      size_t len) {
    struct afmsg m = {{0, RTM_NEWLINK, NLM_F_REQUEST, SEQ + 80, me},
                      {.ifi_family = family, .ifi_index = 1}, {0}};
    size_t n = put_attr(m.attrs, type, spec, len);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.i)) + n;
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
}

static void af_spec(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    char spec[80], in[40];
    int conf[3] = {1, -2, 3};
    size_t k = put_attr(in, IFLA_INET_CONF, conf, sizeof(conf));
    size_t n = put_attr(spec, AF_INET, in, k);
    unsigned char mode = IN6_ADDR_GEN_MODE_NONE;
    k = put_attr(in, IFLA_INET6_ADDR_GEN_MODE, &mode, 1);
    n += put_attr(spec + n, AF_INET6 | NLA_F_NESTED, in, k);
    __u32 net = 7;
    k = put_attr(in, IFLA_MCTP_NET, &net, 4);
    n += put_attr(spec + n, AF_MCTP, in, k);
    n += put_attr(spec + n, AF_UNIX, "abc", 3);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_AF_SPEC, spec, n);
    k = put_attr(in, 9, "xy", 2);                          /* no IFLA_INET_* is 9 */
    n = put_attr(spec, AF_INET, in, k);
    link_self(s, me.nl_pid, AF_INET, IFLA_AF_SPEC, spec, n);
    __u16 flags = BRIDGE_FLAGS_SELF, veb = BRIDGE_MODE_VEPA;
    n = put_attr(spec, IFLA_BRIDGE_FLAGS, &flags, 2);
    n += put_attr(spec + n, IFLA_BRIDGE_MODE, &veb, 2);
    n += put_attr(spec + n, IFLA_BRIDGE_FLAGS, "a", 1);
    n += put_attr(spec + n, 40, "zz", 2);
    link_self(s, me.nl_pid, AF_BRIDGE, IFLA_AF_SPEC, spec, n);
    /* an AF_BRIDGE link's IFLA_PROTINFO: IFLA_BRPORT_* (u8, u32, a bridge id, a timer in
     * clock ticks, a hex mask, an ifindex, a flag with no payload, one past the names) */
    unsigned char state = 3;
    __u32 cost = 100, port = 1;
    __u64 ticks = 5700512;
    __u16 mask = 0x4000;
    struct ifla_bridge_id id = {{0x80, 0}, {2, 0, 0, 0, 0, 1}};
    n = put_attr(spec, IFLA_BRPORT_STATE, &state, 1);
    n += put_attr(spec + n, IFLA_BRPORT_COST, &cost, 4);
    n += put_attr(spec + n, IFLA_BRPORT_ROOT_ID, &id, sizeof(id));
    n += put_attr(spec + n, IFLA_BRPORT_MESSAGE_AGE_TIMER, &ticks, 8);
    n += put_attr(spec + n, IFLA_BRPORT_GROUP_FWD_MASK, &mask, 2);
    n += put_attr(spec + n, IFLA_BRPORT_BACKUP_PORT, &port, 4);
    n += put_attr(spec + n, IFLA_BRPORT_FLUSH, "", 0);
    n += put_attr(spec + n, 99, "q", 1);
    link_self(s, me.nl_pid, AF_BRIDGE, IFLA_PROTINFO, spec, n);
    close(s);
}

/* RTM_*MDB, RTM_*STATS, RTM_*ACTION, RTM_GETDCB and RTM_NEWCACHEREPORT messages sent to
 * the program's own NETLINK_ROUTE socket (the kernel reads none of them): their structs
 * (br_port_msg, if_stats_msg with a filter mask, tcamsg, dcbmsg, rtgenmsg of an
 * RTNL_FAMILY_* or an AF_* family) and attributes. */
static void rtnl_self(int s, __u32 me, __u16 type, const void *payload, size_t len) {
    struct {
        struct nlmsghdr h;
        char p[64];
    } m = {{NLMSG_LENGTH(len), type, NLM_F_REQUEST, SEQ + 90, me}, {0}};
    memcpy(m.p, payload, len);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
}

static void rtnl_more(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    char p[64], in[16];
    __u32 one = 1, seven = 7;
    /* br_port_msg, MDBA_ROUTER's MDBA_ROUTER_PORT */
    struct br_port_msg bpm = {.family = AF_BRIDGE, .ifindex = 1};
    memcpy(p, &bpm, sizeof(bpm));
    size_t k = put_attr(in, MDBA_ROUTER_PORT, &one, 4);
    size_t n = sizeof(bpm) + put_attr(p + sizeof(bpm), MDBA_ROUTER, in, k);
    rtnl_self(s, me.nl_pid, RTM_GETMDB, p, n);
    rtnl_self(s, me.nl_pid, RTM_GETMDB, &bpm, 5);          /* shorter than br_port_msg */
    /* if_stats_msg: a filter mask with a bit past the names, an attribute with no name */
    struct if_stats_msg st = {.family = AF_UNSPEC, .ifindex = 1,
                              .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) |
                                             IFLA_STATS_FILTER_BIT(IFLA_STATS_AF_SPEC) |
                                             1U << 9};
    memcpy(p, &st, sizeof(st));
    n = sizeof(st) + put_attr(p + sizeof(st), 9, "ab", 2);
    rtnl_self(s, me.nl_pid, RTM_GETSTATS, p, n);
    st.pad1 = 1;
    rtnl_self(s, me.nl_pid, RTM_GETSTATS, &st, sizeof(st));
    /* tcamsg: an action's kind and index */
    struct tcamsg tca = {.tca_family = AF_UNSPEC};
    memcpy(p, &tca, sizeof(tca));
    n = sizeof(tca) + put_attr(p + sizeof(tca), TCA_ACT_KIND, "gact", 5);
    n += put_attr(p + n, TCA_ACT_INDEX, &seven, 4);
    rtnl_self(s, me.nl_pid, RTM_NEWACTION, p, n);
    /* dcbmsg: a command and an attribute (in hex) */
    struct dcbmsg dcb = {.dcb_family = AF_UNSPEC, .cmd = DCB_CMD_GSTATE};
    memcpy(p, &dcb, sizeof(dcb));
    n = sizeof(dcb) + put_attr(p + sizeof(dcb), DCB_ATTR_IFNAME, "lo", 3);
    rtnl_self(s, me.nl_pid, RTM_GETDCB, p, n);
    /* cache reports: IPMR's attributes, an AF_INET family's bytes in hex */
    struct rtgenmsg g = {.rtgen_family = RTNL_FAMILY_IPMR};
    memset(p, 0, sizeof(p));
    memcpy(p, &g, sizeof(g));
    struct in_addr lo = {htonl(INADDR_LOOPBACK)};
    n = 4 + put_attr(p + 4, IPMRA_CREPORT_VIF_ID, &seven, 4);
    n += put_attr(p + n, IPMRA_CREPORT_SRC_ADDR, &lo, 4);
    rtnl_self(s, me.nl_pid, RTM_NEWCACHEREPORT, p, n);
    g.rtgen_family = AF_INET;
    memcpy(p, &g, sizeof(g));
    memcpy(p + 4, "\x01\x02", 2);
    rtnl_self(s, me.nl_pid, RTM_NEWCACHEREPORT, p, 6);
    /* a route's and a rule's type of service: IPTOS_* bits, and one without a name */
    struct rtmsg rt = {.rtm_family = AF_INET, .rtm_tos = IPTOS_LOWDELAY | 1};
    rtnl_self(s, me.nl_pid, RTM_NEWROUTE, &rt, sizeof(rt));
    struct fib_rule_hdr fr = {.family = AF_INET, .tos = IPTOS_THROUGHPUT | IPTOS_MINCOST};
    rtnl_self(s, me.nl_pid, RTM_NEWRULE, &fr, sizeof(fr));
    close(s);
}

/* RTM_GETSTATS to the program's own socket with IFLA_STATS_LINK_XSTATS: a
 * bridge's VLAN (with flags and pad2) and STP (with 2 bytes past it) stats, a bond's 802.3ad counters, and a type without a name */
static void rtnl_xstats(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    static char inner[512], mid[600];
    static struct {
        struct nlmsghdr h;
        struct if_stats_msg st;
        char attrs[700];
    } m;
    struct bridge_vlan_xstats vl = {.rx_bytes = 1, .tx_packets = 2, .vid = 3,
                                    .flags = BRIDGE_VLAN_INFO_PVID | 0x100, .pad2 = 0xab};
    struct bridge_stp_xstats stp = {.transition_blk = 4, .tx_tcn = 5};
    char stp_more[sizeof(stp) + 2];
    memcpy(stp_more, &stp, sizeof(stp));
    memcpy(stp_more + sizeof(stp), "\x01\x02", 2);
    size_t n = put_attr(inner, BRIDGE_XSTATS_VLAN, &vl, sizeof(vl));
    n += put_attr(inner + n, BRIDGE_XSTATS_STP, stp_more, sizeof(stp_more));
    n += put_attr(inner + n, 9, "z", 1);
    size_t k = put_attr(mid, LINK_XSTATS_TYPE_BRIDGE, inner, n);
    __u64 lacp = 11;
    n = put_attr(inner, BOND_3AD_STAT_LACPDU_RX, &lacp, 8);
    n = put_attr(inner + 64, BOND_XSTATS_3AD, inner, n);
    k += put_attr(mid + k, LINK_XSTATS_TYPE_BOND, inner + 64, n);
    k += put_attr(mid + k, 7, "q", 1);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me.nl_pid};
    m.h = (struct nlmsghdr){0, RTM_GETSTATS, NLM_F_REQUEST, SEQ + 95, me.nl_pid};
    m.st = (struct if_stats_msg){.ifindex = 1};
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.st)) +
                    put_attr(m.attrs, IFLA_STATS_LINK_XSTATS, mid, k);
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    /* IFLA_STATS_AF_SPEC: AF_MPLS's link stats, a family without a decoder */
    __u64 mpls[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    n = put_attr(inner, 1 /* MPLS_STATS_LINK */, mpls, sizeof(mpls));
    k = put_attr(mid, AF_MPLS, inner, n);
    k += put_attr(mid + k, AF_INET, "ab", 2);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.st)) +
                    put_attr(m.attrs, IFLA_STATS_AF_SPEC, mid, k);
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    close(s);
}

/* RTM_NEWLINK to the program's own socket with IFLA_VFINFO_LIST: a VF's mac and link
 * state, then its VLAN list (802.1Q), an InfiniBand GUID (packed) and stats */
static void vfinfo(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    char vf[96], list[96];
    struct ifla_vf_mac mac = {.vf = 1, .mac = {0x02, 0, 0, 0, 0, 0x0a}};
    struct ifla_vf_link_state ls = {.vf = 1, .link_state = IFLA_VF_LINK_STATE_DISABLE};
    size_t n = put_attr(vf, IFLA_VF_MAC, &mac, sizeof(mac));
    n += put_attr(vf + n, IFLA_VF_LINK_STATE, &ls, sizeof(ls));
    size_t k = put_attr(list, IFLA_VF_INFO, vf, n);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_VFINFO_LIST, list, k);
    struct ifla_vf_vlan_info vi = {.vf = 2, .vlan = 10, .qos = 3,
                                   .vlan_proto = htons(ETH_P_8021Q)};
    char in[32];
    k = put_attr(in, IFLA_VF_VLAN_INFO, &vi, sizeof(vi));
    n = put_attr(vf, IFLA_VF_VLAN_LIST, in, k);
    struct {
        __u32 vf;
        __u64 guid;
    } __attribute__((packed)) guid = {2, 0x1122334455667788ULL};
    n += put_attr(vf + n, IFLA_VF_IB_NODE_GUID, &guid, sizeof(guid));
    __u64 pkts = 42;
    k = put_attr(in, IFLA_VF_STATS_RX_PACKETS, &pkts, 8);
    n += put_attr(vf + n, IFLA_VF_STATS, in, k);
    k = put_attr(list, IFLA_VF_INFO, vf, n);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_VFINFO_LIST, list, k);
    close(s);
}

/* inet_diag_msg messages (no NLM_F_REQUEST: replies' form) to the program's own
 * NETLINK_SOCK_DIAG socket: INET_DIAG_ULP_INFO of TLS and of MPTCP, and
 * INET_DIAG_SK_BPF_STORAGES */
static void diag_self(__u16 type, const void *attrs, size_t len) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    static struct {
        struct nlmsghdr h;
        struct inet_diag_msg m;
        char attrs[128];
    } m;
    m.h = (struct nlmsghdr){0, SOCK_DIAG_BY_FAMILY, 0, SEQ + 97, me.nl_pid};
    m.m = (struct inet_diag_msg){.idiag_family = AF_INET, .idiag_state = TCP_LISTEN};
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.m)) + put_attr(m.attrs, type, attrs, len);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me.nl_pid};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    close(s);
}

/* a packet_diag_msg (no NLM_F_REQUEST) to the program's own NETLINK_SOCK_DIAG socket:
 * PACKET_DIAG_INFO, a multicast list, a ring, the uid (-1) */
static void packet_diag_self(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    static struct {
        struct nlmsghdr h;
        struct packet_diag_msg m;
        char attrs[200];
    } m;
    m.h = (struct nlmsghdr){0, SOCK_DIAG_BY_FAMILY, 0, SEQ + 98, me.nl_pid};
    m.m = (struct packet_diag_msg){.pdiag_family = AF_PACKET, .pdiag_type = SOCK_RAW,
                                   .pdiag_num = ETH_P_ALL, .pdiag_ino = 7};
    struct packet_diag_info pi = {.pdi_index = 1, .pdi_version = TPACKET_V3,
                                  .pdi_reserve = 2, .pdi_flags = PDI_RUNNING | 0x40};
    struct packet_diag_mclist ml = {.pdmc_index = 1, .pdmc_count = 1, .pdmc_type = 2,
                                    .pdmc_alen = 6, .pdmc_addr = {1, 0x80, 0xc2, 0, 0, 0}};
    struct packet_diag_ring ring = {.pdr_block_size = 4096, .pdr_frame_nr = 8};
    __u32 uid = -1;
    size_t n = put_attr(m.attrs, PACKET_DIAG_INFO, &pi, sizeof(pi));
    n += put_attr(m.attrs + n, PACKET_DIAG_MCLIST, &ml, sizeof(ml));
    n += put_attr(m.attrs + n, PACKET_DIAG_RX_RING, &ring, sizeof(ring));
    n += put_attr(m.attrs + n, PACKET_DIAG_UID, &uid, 4);
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.m)) + n;
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me.nl_pid};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    close(s);
}

/* an smc_diag_msg (no NLM_F_REQUEST) to the program's own NETLINK_SOCK_DIAG socket:
 * shutdown bits, a link group, DMB info, a fallback's decline codes */
static void smc_diag_self(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    static struct {
        struct nlmsghdr h;
        struct smc_diag_msg m;
        char attrs[300];
    } m;
    m.h = (struct nlmsghdr){0, SOCK_DIAG_BY_FAMILY, 0, SEQ + 96, me.nl_pid};
    m.m = (struct smc_diag_msg){.diag_family = 43 /* AF_SMC */, .diag_state = 1,
                                .diag_fallback = 2, .diag_uid = 5, .diag_inode = 6,
                                .id = {.idiag_src = {htonl(INADDR_LOOPBACK)}}};
    unsigned char shut = 3 | 0x20;
    struct smc_diag_lgrinfo lg = {.lnk = {{.link_id = 1, .ibname = "mlx5_0", .ibport = 1,
                                           .gid = "fe80::1"}}, .role = 1};
    struct smcd_diag_dmbinfo dmb = {.linkid = 2, .peer_gid = 0xabc, .token = 1};
    __u32 fb[2] = {0x03020000, 0x7};
    size_t n = put_attr(m.attrs, SMC_DIAG_SHUTDOWN, &shut, 1);
    n += put_attr(m.attrs + n, SMC_DIAG_LGRINFO, &lg, sizeof(lg));
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.m)) + n;
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me.nl_pid};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    n = put_attr(m.attrs, SMC_DIAG_DMBINFO, &dmb, sizeof(dmb));
    n += put_attr(m.attrs + n, SMC_DIAG_FALLBACK, fb, sizeof(fb));
    m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.m)) + n;
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    close(s);
}

static void diag_attrs(void) {
    packet_diag_self();
    smc_diag_self();
    char in[64], mid[96];
    __u16 v = TLS_1_2_VERSION, cipher = TLS_CIPHER_AES_GCM_256, conf = TLS_CONF_SW;
    size_t n = put_attr(in, TLS_INFO_VERSION, &v, 2);
    n += put_attr(in + n, TLS_INFO_CIPHER, &cipher, 2);
    n += put_attr(in + n, TLS_INFO_TXCONF, &conf, 2);
    n += put_attr(in + n, TLS_INFO_ZC_RO_TX, "", 0);
    size_t k = put_attr(mid, INET_ULP_INFO_NAME, "tls", 4);
    k += put_attr(mid + k, INET_ULP_INFO_TLS, in, n);
    diag_self(INET_DIAG_ULP_INFO, mid, k);
    __u32 token = 0xabc, flags = MPTCP_SUBFLOW_FLAG_MCAP_REM | MPTCP_SUBFLOW_FLAG_CONNECTED;
    __u64 seq = 7;
    unsigned char id = 3;
    n = put_attr(in, MPTCP_SUBFLOW_ATTR_TOKEN_REM, &token, 4);
    n += put_attr(in + n, MPTCP_SUBFLOW_ATTR_MAP_SEQ, &seq, 8);
    n += put_attr(in + n, MPTCP_SUBFLOW_ATTR_FLAGS, &flags, 4);
    n += put_attr(in + n, MPTCP_SUBFLOW_ATTR_ID_REM, &id, 1);
    k = put_attr(mid, INET_ULP_INFO_MPTCP, in, n);
    diag_self(INET_DIAG_ULP_INFO, mid, k);
    __u32 map = 5, val = 0xbe;
    n = put_attr(in, SK_DIAG_BPF_STORAGE_MAP_ID, &map, 4);
    n += put_attr(in + n, SK_DIAG_BPF_STORAGE_MAP_VALUE, &val, 4);
    k = put_attr(mid, SK_DIAG_BPF_STORAGE, in, n);
    diag_self(INET_DIAG_SK_BPF_STORAGES, mid, k);
}

/* RTM_NEWLINK to the program's own socket with IFLA_LINKINFO's data by the link's kind:
 * a bridge's IFLA_BR_* (a timer, the VLAN protocol, the boolopts, the querier state), a
 * tun's IFLA_TUN_* (owner -1, type), a bridge port's IFLA_BRPORT_*, and data before the
 * kind (hex) */
static void linkinfo_data(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    char info[96], data[64], q[16];
    __u64 delay = 1500;
    __u16 proto = htons(ETH_P_8021AD);
    struct br_boolopt_multi bo = {.optval = 1 << BR_BOOLOPT_NO_LL_LEARN, .optmask = 1 << 5};
    struct in_addr lo = {htonl(INADDR_LOOPBACK)};
    size_t n = put_attr(data, IFLA_BR_FORWARD_DELAY, &delay, 8);
    n += put_attr(data + n, IFLA_BR_VLAN_PROTOCOL, &proto, 2);
    n += put_attr(data + n, IFLA_BR_MULTI_BOOLOPT, &bo, sizeof(bo));
    size_t k = put_attr(q, BRIDGE_QUERIER_IP_ADDRESS, &lo, 4);
    n += put_attr(data + n, IFLA_BR_MCAST_QUERIER_STATE, q, k);
    k = put_attr(info, IFLA_INFO_KIND, "bridge", 7);
    k += put_attr(info + k, IFLA_INFO_DATA, data, n);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_LINKINFO, info, k);
    __u32 owner = -1;
    unsigned char type = IFF_TAP & 0xff, pi = 1;
    n = put_attr(data, IFLA_TUN_OWNER, &owner, 4);
    n += put_attr(data + n, IFLA_TUN_TYPE, &type, 1);
    n += put_attr(data + n, IFLA_TUN_PI, &pi, 1);
    k = put_attr(info, IFLA_INFO_KIND, "tun", 4);
    k += put_attr(info + k, IFLA_INFO_DATA, data, n);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_LINKINFO, info, k);
    __u32 cost = 100;
    n = put_attr(data, IFLA_BRPORT_COST, &cost, 4);
    k = put_attr(info, IFLA_INFO_DATA, "ab", 2);             /* before any kind */
    k += put_attr(info + k, IFLA_INFO_SLAVE_KIND, "bridge", 7);
    k += put_attr(info + k, IFLA_INFO_SLAVE_DATA, data, n);
    link_self(s, me.nl_pid, AF_UNSPEC, IFLA_LINKINFO, info, k);
    close(s);
}

/* NETLINK_GENERIC messages to the program's own socket: types named by the families the
 * kernel registered (nlctrl), and an id no family has */
static void generic(void) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    socklen_t mlen = sizeof(me);
    if (bind(s, (void *)&me, sizeof(me)) || getsockname(s, (void *)&me, &mlen))
        return;
    struct {
        struct nlmsghdr h;
        unsigned char cmd, version;
        __u16 reserved;
    } m = {{sizeof(m), GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP, SEQ + 99, me.nl_pid},
           CTRL_CMD_GETFAMILY, 1, 0};
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me.nl_pid};
    sendto(s, &m, sizeof(m), 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    m.h.nlmsg_type = 0xfff0;
    sendto(s, &m, sizeof(m), 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
    close(s);
}

int main(int argc, char **argv) {
    if (argc < 2 || chdir(argv[1]))
        return 1;
    route();
    diag();
    other();
    audit_xfrm();
    inet6_links();
    whole_link();
    netfilter();
    af_spec();
    rtnl_more();
    rtnl_xstats();
    vfinfo();
    diag_attrs();
    linkinfo_data();
    generic();
    other_netns();          /* last: it leaves the network namespace */
    return 0;
}
