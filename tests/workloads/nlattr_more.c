/* Netlink structs and attributes strace 6.1 decodes, in messages a program sends to its
 * own netlink sockets (the kernel reads none of them; each is received back too):
 * NETLINK_ROUTE's AF_BRIDGE IFLA_AF_SPEC with IFLA_BRIDGE_VLAN_INFO (a struct, then bytes
 * past it) and IFLA_BRIDGE_VLAN_TUNNEL_INFO (nested ID, VID, FLAGS), a link's
 * IFLA_PROTO_DOWN_REASON, IFLA_PORT_SELF (IFLA_PORT_VSI_TYPE with its pad),
 * IFLA_VF_PORTS, IFLA_EVENT, IFLA_MAP and an IFLA_EXT_MASK bit strace 6.1 has no name
 * for; a neighbour's NDA_* of Linux 6.1 (netnsid, VNI, protocol, nexthop id,
 * NDA_FDB_EXT_ATTRS, the ext flags, the state and flag masks); a route's RTA_NEWDST,
 * RTA_METRICS, RTA_VIA, RTA_ENCAP_TYPE, RTA_MFC_STATS, RTA_CACHEINFO, RTA_EXPIRES; a
 * nexthop's nhmsg with resvd and an RTM_F_ bit; RTM_NEWCACHEREPORT's message types; an
 * RTM_DELACTION with NLM_F_ROOT; a type strace 6.1 has no name for (RTM_SETSTATS);
 * an action's TCA_ACT_FLAGS/HW_STATS, a qdisc's TCA_STAB and a TCA_STATS of 36 bytes,
 * MDBA_ROUTER_PORT's MDBA_ROUTER_PATTR_* attributes, an NLMSG_ERROR's
 * NLMSGERR_ATTR_COOKIE.
 * NETLINK_SOCK_DIAG's inet_diag_req_v2 with INET_DIAG_REQ_BYTECODE (host, device, mark
 * and port conditions) and INET_DIAG_REQ_PROTOCOL; inet_diag_msg with the vegas, dctcp
 * and bbr info, INET_DIAG_SHUTDOWN, INET_DIAG_SOCKOPT grown past its struct,
 * INET_DIAG_MD5SIG, INET_DIAG_LOCALS; a payload of the family alone, smc_diag_req,
 * packet_diag_req and unix_diag_msg's UNIX_DIAG_ICONS.
 *
 * tests/e2e/test_strace_nlattr_more.py runs it under strace and tracekit at once: every
 * line must be equal. Each message stays under the 256 bytes tracekit captures of a
 * buffer. Build: gcc -O1 -Wall -Werror -o nlattr_more nlattr_more.c. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/inet_diag.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <linux/unix_diag.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char buf[4096] __attribute__((aligned(8)));

static size_t put_attr(char *at, uint16_t type, const void *data, size_t len) {
    struct nlattr *a = (void *)at;
    a->nla_len = NLA_HDRLEN + len;
    a->nla_type = type;
    memcpy(at + NLA_HDRLEN, data, len);
    return NLA_ALIGN(NLA_HDRLEN + len);
}

static int self_socket(int protocol, uint32_t *me) {
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
    socklen_t len = sizeof(sa);
    if (s < 0 || bind(s, (void *)&sa, sizeof(sa)) || getsockname(s, (void *)&sa, &len))
        return -1;
    *me = sa.nl_pid;
    return s;
}

/* one message of TYPE and FLAGS with HEAD (a fixed struct) then ATTRS, to the socket
 * itself, then read back */
static void self_msg(int s, uint32_t me, uint16_t type, uint16_t flags, const void *head,
                     size_t hlen, const void *attrs, size_t alen) {
    struct {
        struct nlmsghdr h;
        char p[240];
    } m = {{NLMSG_LENGTH(hlen) + alen, type, flags, 1, 0}, {0}};
    memcpy(m.p, head, hlen);
    memcpy(m.p + NLMSG_ALIGN(hlen), attrs, alen);
    struct sockaddr_nl to = {.nl_family = AF_NETLINK, .nl_pid = me};
    sendto(s, &m, m.h.nlmsg_len, 0, (void *)&to, sizeof(to));
    recv(s, buf, sizeof(buf), MSG_DONTWAIT);
}

static void route(void) {
    uint32_t me;
    int s = self_socket(NETLINK_ROUTE, &me);
    if (s < 0)
        return;
    char a[200], in[64];
    size_t n, k;

    struct ifinfomsg br = {.ifi_family = AF_BRIDGE, .ifi_index = 1};
    struct bridge_vlan_info vi = {BRIDGE_VLAN_INFO_MASTER | BRIDGE_VLAN_INFO_PVID | 0x100, 7};
    char vlan[8];
    memcpy(vlan, &vi, 4);
    memcpy(vlan + 4, "\x7e\x7f\x80\x81", 4);
    n = put_attr(in, IFLA_BRIDGE_VLAN_INFO, vlan, 8);
    n += put_attr(in + n, IFLA_BRIDGE_VLAN_INFO, vlan, 4);
    n = put_attr(a, IFLA_AF_SPEC, in, n);
    self_msg(s, me, RTM_NEWLINK, NLM_F_REQUEST, &br, sizeof(br), a, n);
    uint32_t tid = 0xdeadbeef;
    uint16_t vid = 42, tflags = BRIDGE_VLAN_INFO_UNTAGGED;
    k = put_attr(in, IFLA_BRIDGE_VLAN_TUNNEL_ID, &tid, 4);
    k += put_attr(in + k, IFLA_BRIDGE_VLAN_TUNNEL_VID, &vid, 2);
    k += put_attr(in + k, IFLA_BRIDGE_VLAN_TUNNEL_FLAGS, &tflags, 2);
    k += put_attr(in + k, 7, "abc", 3);
    n = put_attr(a, IFLA_BRIDGE_VLAN_TUNNEL_INFO, in, k);
    n = put_attr(in, IFLA_AF_SPEC, a, n);
    self_msg(s, me, RTM_NEWLINK, NLM_F_REQUEST, &br, sizeof(br), in, n);

    struct ifinfomsg lo = {.ifi_family = AF_UNSPEC, .ifi_index = 1};
    uint32_t mask = 0xabacdbcd, value = 0;
    k = put_attr(in, IFLA_PROTO_DOWN_REASON_MASK, &mask, 4);
    k += put_attr(in + k, IFLA_PROTO_DOWN_REASON_VALUE, &value, 4);
    k += put_attr(in + k, 3, "xy", 2);
    n = put_attr(a, IFLA_PROTO_DOWN_REASON, in, k);
    uint32_t vf = 3;
    struct ifla_port_vsi vsi = {171, {0x0a, 0, 0xff}, 239, {0, 1, 2}};
    k = put_attr(in, IFLA_PORT_VF, &vf, 4);
    k += put_attr(in + k, IFLA_PORT_VSI_TYPE, &vsi, sizeof(vsi));
    k += put_attr(in + k, IFLA_PORT_PROFILE, "prof", 5);
    n += put_attr(a + n, IFLA_PORT_SELF, in, k);
    uint32_t event = IFLA_EVENT_BONDING_OPTIONS, ext = 0x80 | RTEXT_FILTER_VF;
    n += put_attr(a + n, IFLA_EVENT, &event, 4);
    n += put_attr(a + n, IFLA_EXT_MASK, &ext, 4);
    self_msg(s, me, RTM_NEWLINK, NLM_F_REQUEST, &lo, sizeof(lo), a, n);
    k = put_attr(in, IFLA_PORT_VF, &vf, 4);
    n = put_attr(a, IFLA_VF_PORT, in, k);
    n = put_attr(in, IFLA_VF_PORTS, a, n);
    struct rtnl_link_ifmap map = {0xdeadbeef00, 0x1000, 0x3f8, 4, 1, 2};
    n += put_attr(in + n, IFLA_MAP, &map, sizeof(map));
    self_msg(s, me, RTM_NEWLINK, NLM_F_REQUEST, &lo, sizeof(lo), in, n);

    struct ndmsg nd = {.ndm_family = AF_INET, .ndm_ifindex = 1, .ndm_state = NUD_PERMANENT};
    uint32_t netnsid = 0xdeadbeef, vni = 5, nhid = 9, extf = 1 | 0x100;
    unsigned char proto = 6, notify = 3, fmask = NTF_ROUTER;
    uint16_t smask = 0;
    n = put_attr(a, NDA_LINK_NETNSID, &netnsid, 4);
    n += put_attr(a + n, NDA_SRC_VNI, &vni, 4);
    n += put_attr(a + n, NDA_PROTOCOL, &proto, 1);
    n += put_attr(a + n, NDA_NH_ID, &nhid, 4);
    k = put_attr(in, NFEA_ACTIVITY_NOTIFY, &notify, 1);
    k += put_attr(in + k, NFEA_DONT_REFRESH, "", 0);
    n += put_attr(a + n, NDA_FDB_EXT_ATTRS, in, k);
    n += put_attr(a + n, NDA_FLAGS_EXT, &extf, 4);
    n += put_attr(a + n, NDA_NDM_STATE_MASK, &smask, 2);
    n += put_attr(a + n, NDA_NDM_FLAGS_MASK, &fmask, 1);
    self_msg(s, me, RTM_NEWNEIGH, NLM_F_REQUEST, &nd, sizeof(nd), a, n);

    struct rtmsg rt = {.rtm_family = AF_INET, .rtm_table = RT_TABLE_MAIN,
                       .rtm_protocol = RTPROT_STATIC, .rtm_type = RTN_UNICAST};
    struct in_addr dst = {htonl(0x0a000001)};
    uint32_t mtu = 1400;
    uint16_t encap = 2, sport = 80;
    uint64_t expires = 12345;
    char via[6] = {AF_INET, 0, 12, 34, 56, 78};
    struct rta_mfc_stats mfc = {1, 2, 3};
    struct rta_cacheinfo ci = {1, 2, 0xfffffff0, 4, 5, 0xfeed, 7, 8};
    n = put_attr(a, RTA_NEWDST, &dst, 4);
    k = put_attr(in, RTAX_MTU, &mtu, 4);
    k += put_attr(in + k, RTAX_CC_ALGO, "cubic", 6);
    n += put_attr(a + n, RTA_METRICS, in, k);
    n += put_attr(a + n, RTA_VIA, via, 6);
    n += put_attr(a + n, RTA_ENCAP_TYPE, &encap, 2);
    n += put_attr(a + n, RTA_MFC_STATS, &mfc, sizeof(mfc));
    n += put_attr(a + n, RTA_CACHEINFO, &ci, sizeof(ci));
    n += put_attr(a + n, RTA_EXPIRES, &expires, 8);
    n += put_attr(a + n, RTA_SPORT, &sport, 2);
    self_msg(s, me, RTM_NEWROUTE, NLM_F_REQUEST, &rt, sizeof(rt), a, n);

    struct nhmsg nh = {AF_INET, RT_SCOPE_LINK, RTPROT_STATIC, 1,
                       RTNH_F_ONLINK | RTM_F_CLONED | 0x80000};
    self_msg(s, me, RTM_NEWNEXTHOP, NLM_F_REQUEST, &nh, sizeof(nh), "", 0);

    struct rtgenmsg mr = {128};               /* RTNL_FAMILY_IPMR */
    unsigned char t2 = 2, t9 = 9;
    n = put_attr(a, 1, &t2, 1);               /* IPMRA_CREPORT_MSGTYPE */
    n += put_attr(a + n, 1, &t9, 1);
    self_msg(s, me, RTM_NEWCACHEREPORT, NLM_F_REQUEST, &mr, sizeof(mr), a, n);
    mr.rtgen_family = 129;                    /* RTNL_FAMILY_IP6MR */
    n = put_attr(a, 1, &t2, 1);
    self_msg(s, me, RTM_NEWCACHEREPORT, NLM_F_REQUEST, &mr, sizeof(mr), a, n);

    struct tcamsg tca = {AF_INET};
    uint32_t actf = TCA_ACT_FLAGS_SKIP_HW | 0x100, hws = 3, hwcount = 5;
    n = put_attr(a, TCA_ACT_FLAGS, &actf, 4);
    n += put_attr(a + n, TCA_ACT_HW_STATS, &hws, 4);
    n += put_attr(a + n, TCA_ACT_IN_HW_COUNT, &hwcount, 4);
    self_msg(s, me, RTM_NEWACTION, NLM_F_REQUEST, &tca, sizeof(tca), a, n);
    struct tcmsg tc = {.tcm_family = AF_UNSPEC, .tcm_ifindex = 1};
    struct tc_sizespec spec = {1, 2, -3, -4, 5, 6, 7, 8};
    uint16_t stab[3] = {10, 20, 30};
    struct tc_stats st = {1, 2, 3, 4, 5, 6, 7, 8};
    k = put_attr(in, TCA_STAB_BASE, &spec, sizeof(spec));
    k += put_attr(in + k, TCA_STAB_DATA, stab, sizeof(stab));
    n = put_attr(a, TCA_STAB, in, k);
    n += put_attr(a + n, TCA_STATS, &st, 36);     /* up to backlog: no padding */
    self_msg(s, me, RTM_NEWQDISC, NLM_F_REQUEST, &tc, sizeof(tc), a, n);
    struct br_port_msg bpm = {.family = AF_BRIDGE, .ifindex = 1};
    uint32_t port = 1, ticks = 5700500;
    unsigned char rtype = MDB_RTR_TYPE_PERM;
    k = sizeof(port);
    memcpy(in, &port, 4);
    k += put_attr(in + k, MDBA_ROUTER_PATTR_TYPE, &rtype, 1);
    k += put_attr(in + k, MDBA_ROUTER_PATTR_TIMER, &ticks, 4);
    n = put_attr(a, MDBA_ROUTER_PORT, in, k);
    n = put_attr(in, MDBA_ROUTER, a, n);
    self_msg(s, me, RTM_GETMDB, NLM_F_REQUEST, &bpm, sizeof(bpm), in, n);

    self_msg(s, me, RTM_DELACTION, NLM_F_REQUEST | NLM_F_ROOT, "", 0, "", 0);
    /* an extended ACK with a cookie (NLMSGERR_ATTR_COOKIE: its bytes in decimal) */
    struct nlmsgerr err = {-13, {16, RTM_NEWROUTE, NLM_F_REQUEST, 0, 0}};
    n = put_attr(a, NLMSGERR_ATTR_COOKIE, "\xab\xfe", 2);
    self_msg(s, me, NLMSG_ERROR, NLM_F_ACK_TLVS, &err, sizeof(err), a, n);
    struct rtgenmsg inet = {AF_INET};
    self_msg(s, me, 0x5f, NLM_F_REQUEST, &inet, 1, "", 0);    /* RTM_SETSTATS */
    close(s);
}

static void diag(void) {
    uint32_t me;
    int s = self_socket(NETLINK_SOCK_DIAG, &me);
    if (s < 0)
        return;
    char a[200], in[64];
    size_t n, k;
    struct inet_diag_req_v2 req = {.sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
                                   .idiag_states = 1 << 7};
    req.id.idiag_src[0] = htonl(0x7f000001);
    struct inet_diag_bc_op op = {INET_DIAG_BC_S_COND, 4, 8};
    struct inet_diag_hostcond hc = {AF_INET, 8, 80};
    struct in_addr ip = {htonl(0x0a0b0c0d)};
    memcpy(in, &op, 4);
    memcpy(in + 4, &hc, sizeof(hc));
    memcpy(in + 4 + sizeof(hc), &ip, 4);
    n = put_attr(a, INET_DIAG_REQ_BYTECODE, in, 4 + sizeof(hc) + 4);
    uint32_t ifindex = 1, protocol = IPPROTO_MPTCP;
    op.code = INET_DIAG_BC_DEV_COND;
    memcpy(in, &op, 4);
    memcpy(in + 4, &ifindex, 4);
    n += put_attr(a + n, INET_DIAG_REQ_BYTECODE, in, 8);
    struct inet_diag_markcond mc = {0xabc, 0xfff};
    op.code = INET_DIAG_BC_MARK_COND;
    memcpy(in, &op, 4);
    memcpy(in + 4, &mc, 8);
    n += put_attr(a + n, INET_DIAG_REQ_BYTECODE, in, 12);
    struct inet_diag_bc_op ge = {INET_DIAG_BC_D_GE, 1, 2};
    op.code = INET_DIAG_BC_S_LE;
    memcpy(in, &op, 4);
    memcpy(in + 4, &ge, 4);
    n += put_attr(a + n, INET_DIAG_REQ_BYTECODE, in, 8);
    n += put_attr(a + n, INET_DIAG_REQ_PROTOCOL, &protocol, 4);
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &req, sizeof(req), a, n);
    op.code = INET_DIAG_BC_AUTO;
    memcpy(in, &op, 4);
    memcpy(in + 4, "wxyz", 4);
    n = put_attr(a, INET_DIAG_REQ_BYTECODE, in, 8);
    op.code = INET_DIAG_BC_D_COND;            /* a host condition cut short */
    memcpy(in, &op, 4);
    memcpy(in + 4, "ab", 2);
    n += put_attr(a + n, INET_DIAG_REQ_BYTECODE, in, 6);
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &req, sizeof(req), a, n);

    struct inet_diag_msg msg = {.idiag_family = AF_INET, .idiag_state = 1, .idiag_uid = 0};
    struct tcpvegas_info vegas = {1, 2, 3, 4};
    struct tcp_dctcp_info dctcp = {1, 2, 3, 4, 5};
    struct tcp_bbr_info bbr = {0xabc, 0, 3, 4, 5};
    unsigned char shut = 4;
    uint16_t opts[2] = {1 | 0x100 | 0x1800, 0xff00};
    n = put_attr(a, INET_DIAG_VEGASINFO, &vegas, sizeof(vegas));
    n += put_attr(a + n, INET_DIAG_DCTCPINFO, &dctcp, sizeof(dctcp));
    n += put_attr(a + n, INET_DIAG_BBRINFO, &bbr, sizeof(bbr));
    n += put_attr(a + n, INET_DIAG_SHUTDOWN, &shut, 1);
    n += put_attr(a + n, INET_DIAG_SOCKOPT, opts, 4);
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, 0, &msg, sizeof(msg), a, n);
    struct tcp_diag_md5sig sig = {AF_INET, 24, 2, {htonl(0xdeadface)}, {0x12, 0x34}};
    n = put_attr(a, INET_DIAG_MD5SIG, &sig, sizeof(sig));
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, 0, &msg, sizeof(msg), a, n);
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *sin = (void *)&ss;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(4242);
    sin->sin_addr.s_addr = htonl(0x7f000001);
    n = put_attr(a, INET_DIAG_LOCALS, &ss, sizeof(ss));
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, 0, &msg, sizeof(msg), a, n);

    struct unix_diag_msg um = {.udiag_family = AF_UNIX, .udiag_type = SOCK_STREAM,
                               .udiag_state = 10, .udiag_ino = 42};
    uint32_t icons[2] = {7, 8};
    n = put_attr(a, UNIX_DIAG_ICONS, icons, sizeof(icons));
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, 0, &um, sizeof(um), a, n);
    unsigned char unix_family = AF_UNIX;
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &unix_family, 1, "", 0);
    struct smc_diag_req smc = {.diag_family = AF_SMC, .diag_ext = 1 | 4};
    smc.id.idiag_sport = htons(7);
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &smc, sizeof(smc), "", 0);
    struct packet_diag_req pk = {.sdiag_family = AF_PACKET, .sdiag_protocol = 0x60,
                                 .pdiag_ino = 12, .pdiag_show = PACKET_SHOW_INFO};
    self_msg(s, me, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, &pk, sizeof(pk), "", 0);
    (void)k;
    close(s);
}

int main(void) {
    route();
    diag();
    return 0;
}
