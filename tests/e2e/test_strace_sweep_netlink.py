"""Netlink messages as strace 6.1 decodes them, against strace on ONE run.

tests/workloads/sweep_netlink.c sends NETLINK_ROUTE requests (RTM_GETADDR with an
rtgenmsg and with an ifaddrmsg, RTM_GETLINK with IFLA_EXT_MASK and IFLA_IFNAME,
RTM_GETROUTE with RTA_OIF and a lookup of ::1, RTM_GETRULE, RTM_GETNEIGH, RTM_GETQDISC,
RTM_GETNETCONF, RTM_GETADDRLABEL, RTM_GETNSID, RTM_GETNEXTHOP, refused RTM_NEWADDR,
RTM_DELROUTE and RTM_NEWLINK with nested IFLA_LINKINFO and IFLA_PROP_LIST) and receives
their replies (RTM_NEWADDR, RTM_NEWLINK and RTM_NEWQDISC cut by a small buffer,
RTM_NEWROUTE with RTA_CACHEINFO, RTM_NEWRULE, RTM_NEWNEIGH, RTM_NEWNETCONF,
RTM_NEWADDRLABEL, NLMSG_DONE, NLMSG_ERROR with the request it answers, extended ACKs
with NLMSGERR_ATTR_MSG), RTM_NEWLINK messages to its own socket with IFLA_AF_SPEC
(AF_INET's IFLA_INET_CONF, AF_INET6's and AF_MCTP's attributes, a family without a
decoder, an AF_BRIDGE link's IFLA_BRIDGE_* attributes and IFLA_PROTINFO's IFLA_BRPORT_*;
RTM_*MDB, RTM_*STATS (IFLA_STATS_LINK_XSTATS's bridge and bond stats),
IFLA_VFINFO_LIST, IFLA_LINKINFO's data by kind, NETLINK_GENERIC's types by family,
RTM_*ACTION, RTM_GETDCB and RTM_NEWCACHEREPORT too),
NETLINK_SOCK_DIAG requests and replies (inet_diag_req_v2 on a socket not bound yet, then
bound; inet_diag_msg, with INET_DIAG_ULP_INFO and INET_DIAG_SK_BPF_STORAGES; the old
inet_diag_req; unix_diag_req and unix_diag_msg; netlink_diag_req and netlink_diag_msg;
packet_diag_msg; smc_diag_msg), hostile messages (shorter than a header,
nlmsg_len 0, longer than the buffer, an attribute shorter than its header, unknown
types, a request split over two iovecs), a NETLINK_USERSOCK message to itself (printed
generically), NETLINK_AUDIT's AUDIT_GET and NETLINK_XFRM's XFRM_MSG_GETSA (types by
name) and a sockaddr_nl with a port id of the high half (``nl_pid=-16``), lo's
RTM_NEWLINK whole (ip link show lo), and ip -6 addr's AF_INET6 link dump
(IFLA_PROTINFO's nested IFLA_INET6_* attributes) and NETLINK_NETFILTER (nft's
NFT_MSG_GETGEN and GETTABLE, their replies, and messages to the program's own socket:
batch markers, nfgenmsg's res_id both ways round, subsystems and types strace names and
those it does not), and a netlink socket in a network namespace of the program's own
(unshare(CLONE_NEWNET), as ip under unshare -n or ip netns exec). tracekit traces
``strace -f -o FILE sweep_netlink``, so both see the same calls: every line of the
program must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_netlink_messages_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path)
    text = "\n".join(s_lines)
    for want in (
            # glibc's getaddrinfo(AI_ADDRCONFIG) request: a payload shorter than ifaddrmsg
            "sendto(3, [{nlmsg_len=20, nlmsg_type=RTM_GETADDR, "
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1700000000, nlmsg_pid=0}, "
            "{ifa_family=AF_UNSPEC, ...}], 20, 0, {sa_family=AF_NETLINK, nl_pid=0, "
            "nl_groups=00000000}, 12) = 20",
            "nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1700000000, nlmsg_pid=",
            "{ifa_family=AF_INET, ifa_prefixlen=8, ifa_flags=IFA_F_PERMANENT, "
            "ifa_scope=RT_SCOPE_HOST, ifa_index=if_nametoindex(\"lo\")}, "
            "[[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr(\"127.0.0.1\")], ",
            "[{nla_len=7, nla_type=IFA_LABEL}, \"lo\"], ",
            "{ifi_family=AF_UNSPEC, ifi_type=ARPHRD_LOOPBACK, ifi_index=if_nametoindex(\"lo\"), "
            "ifi_flags=IFF_UP|IFF_LOOPBACK|IFF_RUNNING|",
            "[{nla_len=8, nla_type=IFLA_EXT_MASK}, RTEXT_FILTER_VF]",
            "{error=-ENODEV, msg=[{nlmsg_len=40, nlmsg_type=RTM_GETLINK, "
            "nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=1700000004, nlmsg_pid=0}, ",
            "[{nla_len=10, nla_type=IFLA_IFNAME}, \"nosuch\"...]",
            "rtm_table=RT_TABLE_LOCAL, rtm_protocol=RTPROT_KERNEL, rtm_scope=RT_SCOPE_HOST, "
            "rtm_type=RTN_LOCAL, rtm_flags=0}, [[{nla_len=8, nla_type=RTA_TABLE}, "
            "RT_TABLE_LOCAL], [{nla_len=8, nla_type=RTA_DST}, inet_addr(\"127.0.0.0\")], ",
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_EXCL|NLM_F_CREATE",
            "[{nla_len=36, nla_type=RTA_CACHEINFO}, {rta_clntref=",
            "{family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_UNSPEC, "
            "action=FR_ACT_UNSPEC, flags=0}], 28, 0, ",
            "{family=AF_INET, dst_len=0, src_len=0, tos=0, table=RT_TABLE_LOCAL, "
            "action=FR_ACT_TO_TBL, flags=0}, [[{nla_len=8, nla_type=FRA_TABLE}, RT_TABLE_LOCAL], ",
            "[{nla_len=5, nla_type=FRA_PROTOCOL}, RTPROT_KERNEL]",
            "{tcm_family=AF_UNSPEC, tcm_ifindex=0, tcm_handle=0, tcm_parent=0, tcm_info=0}], "
            "36, 0, ",
            "{tcm_family=AF_UNSPEC, tcm_ifindex=if_nametoindex(\"lo\"), tcm_handle=0, ",
            "[{nla_len=12, nla_type=TCA_KIND}, \"noqueue\"]",
            "[{nla_len=20, nla_type=TCA_STATS_BASIC}, {bytes=",
            "{ncm_family=AF_INET}, [{nla_len=8, nla_type=NETCONFA_IFINDEX}, "
            "if_nametoindex(\"lo\")]], 28, 0, ",
            "[{nla_len=8, nla_type=NETCONFA_FORWARDING}, ",
            "{ifal_family=AF_INET6, ifal_prefixlen=128, ifal_flags=0, ifal_index=0, "
            "ifal_seq=0}, [{nla_len=20, nla_type=IFAL_ADDRESS}, inet_pton(AF_INET6, \"::1\")]]",
            "{rtgen_family=AF_UNSPEC}], 20, 0, ",
            "{nh_family=AF_UNSPEC, nh_scope=RT_SCOPE_UNIVERSE, nh_protocol=RTPROT_UNSPEC, "
            "nh_flags=0}], 24, 0, ",
            "{ndm_family=AF_INET, ndm_ifindex=0, ndm_state=NUD_NONE, ndm_flags=0, "
            "ndm_type=RTN_UNSPEC}, [{nla_len=8, nla_type=NDA_IFINDEX}, "
            "if_nametoindex(\"lo\")]], 36, 0, ",
            "{error=-ESRCH, msg=[{nlmsg_len=36, nlmsg_type=RTM_DELROUTE, ",
            "[[{nla_len=16, nla_type=NLA_F_NESTED|IFLA_LINKINFO}, [{nla_len=10, "
            "nla_type=IFLA_INFO_KIND}, \"dummy\"]], [{nla_len=16, "
            "nla_type=NLA_F_NESTED|IFLA_PROP_LIST}, [{nla_len=11, nla_type=IFLA_ALT_IFNAME}, "
            "\"altnm1\"]]]",
            # IFLA_AF_SPEC: per address family, then IFLA_BRIDGE_* of an AF_BRIDGE link
            "[{nla_len=56, nla_type=IFLA_AF_SPEC}, [[{nla_len=20, nla_type=AF_INET}, "
            "[{nla_len=16, nla_type=IFLA_INET_CONF}, [[IPV4_DEVCONF_FORWARDING-1]=1, ",
            "[{nla_len=12, nla_type=NLA_F_NESTED|AF_INET6}, [{nla_len=5, "
            "nla_type=IFLA_INET6_ADDR_GEN_MODE}, IN6_ADDR_GEN_MODE_NONE]]",
            "[{nla_len=7, nla_type=AF_UNIX}, \"\\x61\\x62\\x63\"]",
            "[{nla_len=6, nla_type=0x9 /* IFLA_INET_??? */}, \"\\x78\\x79\"]",
            "[{nla_len=6, nla_type=IFLA_BRIDGE_FLAGS}, BRIDGE_FLAGS_SELF], [{nla_len=6, "
            "nla_type=IFLA_BRIDGE_MODE}, BRIDGE_MODE_VEPA]",
            # an AF_BRIDGE link's IFLA_PROTINFO
            "[{nla_len=12, nla_type=IFLA_BRPORT_ROOT_ID}, {prio=[128, 0], "
            "addr=02:00:00:00:00:01}], [{nla_len=12, nla_type=IFLA_BRPORT_MESSAGE_AGE_TIMER}, "
            "5700512 /* 57005.12 s */], [{nla_len=6, nla_type=IFLA_BRPORT_GROUP_FWD_MASK}, "
            "0x4000], ",
            # RTM_*MDB, RTM_*STATS, RTM_*ACTION, RTM_GETDCB, RTM_NEWCACHEREPORT
            "{family=AF_BRIDGE, ifindex=if_nametoindex(\"lo\")}, [{nla_len=12, "
            "nla_type=MDBA_ROUTER}, [{nla_len=8, nla_type=MDBA_ROUTER_PORT}, "
            "if_nametoindex(\"lo\")]]]",
            "{family=AF_BRIDGE, ...}], 21, 0, ",
            "{family=AF_UNSPEC, pad1=0x1, ifindex=if_nametoindex(\"lo\"), "
            "filter_mask=1<<IFLA_STATS_UNSPEC|1<<IFLA_STATS_LINK_OFFLOAD_XSTATS|0x200}",
            "{tca_family=AF_UNSPEC}, [[{nla_len=9, nla_type=TCA_ACT_KIND}, \"gact\"], "
            "[{nla_len=8, nla_type=TCA_ACT_INDEX}, 7]]",
            "{dcb_family=AF_UNSPEC, cmd=DCB_CMD_GSTATE}, [{nla_len=7, nla_type=DCB_ATTR_IFNAME}, ",
            "{rtgen_family=RTNL_FAMILY_IPMR}, [[{nla_len=8, nla_type=IPMRA_CREPORT_VIF_ID}, 7], ",
            "{rtgen_family=AF_INET}, \"\\x01\\x02\"], 22, 0, ",
            "rtm_tos=IPTOS_LOWDELAY|0x1, ", "tos=IPTOS_THROUGHPUT|IPTOS_MINCOST, ",
            # extended ACK (NETLINK_EXT_ACK, NETLINK_CAP_ACK)
            "nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED|NLM_F_ACK_TLVS, "
            "nlmsg_seq=1700000017, ",
            "[{error=-EINVAL, msg={nlmsg_len=32, nlmsg_type=RTM_NEWADDR, "
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, nlmsg_seq=1700000017, nlmsg_pid=0}}, "
            "[{nla_len=32, nla_type=NLMSGERR_ATTR_MSG}, \"ipv4: Invalid prefix length\"]",
            "nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI|0x200, nlmsg_seq=1700000018, ",
            "sendto(3, \"\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a\", 10, 0, ",
            "sendto(3, {nlmsg_len=0, nlmsg_type=RTM_GETLINK, nlmsg_flags=NLM_F_REQUEST, ",
            "ifa_index=0}, {nla_len=2, nla_type=IFA_LABEL}], 28, 0, ",
            "nlmsg_type=0x7ff /* RTM_??? */, nlmsg_flags=NLM_F_REQUEST|0x4000, ",
            "rtm_table=0x64, rtm_protocol=0x4d /* RTPROT_??? */, rtm_scope=0x64, "
            "rtm_type=0x63 /* RTN_??? */, rtm_flags=0x80000 /* RTM_F_??? */}, "
            "[{nla_len=8, nla_type=RTA_TABLE}, 0x3e8]]",
            "{nlmsg_len=16, nlmsg_type=NLMSG_NOOP, nlmsg_flags=0, nlmsg_seq=1700000012, "
            "nlmsg_pid=1234}], 32, 0, ",
            "{error=-EOPNOTSUPP, msg={nlmsg_len=16, nlmsg_type=0x7ff /* RTM_??? */, ",
            "msg_iov=[{iov_base={nlmsg_len=24, nlmsg_type=RTM_GETADDR, "
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1700000013, nlmsg_pid=0}, "
            "iov_len=16}, {iov_base=\"\\x0a\\x00\\x00\\x00\\x01\\x00\\x00\\x00\", iov_len=8}]",
            # a NETLINK_SOCK_DIAG socket without a port id yet: decoded generically
            "sendto(4, [{nlmsg_len=72, nlmsg_type=0x14 /* NLMSG_??? */, "
            "nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=1700000020, nlmsg_pid=0}, \"\\x02\\x06",
            "{idiag_family=AF_INET, idiag_state=TCP_LISTEN, idiag_timer=0, idiag_retrans=0, "
            "id={idiag_sport=htons(",
            "{sdiag_family=AF_INET, sdiag_protocol=IPPROTO_TCP, "
            "idiag_ext=1<<(INET_DIAG_INFO-1)|1<<(INET_DIAG_TOS-1), idiag_states=1<<TCP_CLOSING, ",
            "idiag_cookie=[4294967295, 4294967295]}}], 72, 0, ",
            "udiag_show=UDIAG_SHOW_NAME|UDIAG_SHOW_PEER, udiag_cookie=[4294967295, 4294967295]}",
            "{udiag_family=AF_UNIX, udiag_type=SOCK_STREAM, udiag_state=TCP_CLOSE, udiag_ino=",
            "[{nla_len=14, nla_type=UNIX_DIAG_NAME}, \"diag.sock\"]",
            "{idiag_family=AF_INET, idiag_src_len=0, idiag_dst_len=0, idiag_ext=0, ",
            "idiag_states=1<<TCP_CLOSING, idiag_dbs=0}], 76, 0, ",
            "{sdiag_family=AF_NETLINK, sdiag_protocol=NETLINK_USERSOCK, ndiag_ino=0, "
            "ndiag_show=NDIAG_SHOW_MEMINFO|NDIAG_SHOW_GROUPS|NDIAG_SHOW_FLAGS, "
            "ndiag_cookie=[0, 0]}], 36, 0, ",
            "{ndiag_family=AF_NETLINK, ndiag_type=SOCK_RAW, ndiag_protocol=NETLINK_USERSOCK, "
            "ndiag_state=TCP_CLOSE, ndiag_portid=",
            "[{nla_len=40, nla_type=NETLINK_DIAG_MEMINFO}, [[SK_MEMINFO_RMEM_ALLOC]=",
            "[{nla_len=12, nla_type=NETLINK_DIAG_GROUPS}, [0x00000000000004]]",
            "[{nla_len=8, nla_type=NETLINK_DIAG_FLAGS}, NDIAG_FLAG_PKTINFO]",
            "recvfrom(3, [{nlmsg_len=24, nlmsg_type=0x20 /* NLMSG_??? */, "
            "nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=1700000030, nlmsg_pid=0}, "
            "\"\\x70\\x61\\x79\\x6c\\x6f\\x61\\x64\\x00\"], 8192, MSG_DONTWAIT, NULL, NULL) = 24",
            "{sa_family=AF_NETLINK, nl_pid=-16, nl_groups=00000000}, 12) = -1 ECONNREFUSED",
            "{nlmsg_len=16, nlmsg_type=AUDIT_GET, nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK, "
            "nlmsg_seq=1700000040, nlmsg_pid=0}, 16, 0, ",
            "[{nlmsg_len=40, nlmsg_type=XFRM_MSG_GETSA, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, "
            "nlmsg_seq=1700000041, nlmsg_pid=0}, \"\\x00\\x00",
            # ip -6 addr's AF_INET6 link dump: IFLA_PROTINFO's IFLA_INET6_* attributes
            "{ifi_family=AF_INET6, ifi_type=ARPHRD_LOOPBACK, ifi_index=if_nametoindex(\"lo\")",
            "nla_type=IFLA_INET6_FLAGS}, ", "[{nla_len=20, nla_type=IFLA_INET6_CACHEINFO}, "
            "{max_reasm_len=", "nla_type=IFLA_INET6_CONF}, [[DEVCONF_FORWARDING]=",
            "[DEVCONF_MLDV2_UNSOLICITED_REPORT_INTERVAL]=1000, ...]]",
            "nla_type=IFLA_INET6_STATS}, [[IPSTATS_MIB_NUM]=",
            "nla_type=IFLA_INET6_ICMP6STATS}, [[ICMP6_MIB_NUM]=",
            "[{nla_len=5, nla_type=IFLA_INET6_ADDR_GEN_MODE}, IN6_ADDR_GEN_MODE_",
            "iov_len=200}], msg_iovlen=1, msg_controllen=0, msg_flags=MSG_TRUNC}",
            # NETLINK_NETFILTER: nft's requests and replies, messages to the socket itself
            "[{nlmsg_len=20, nlmsg_type=0xa10 /* NLMSG_??? */, nlmsg_flags=NLM_F_REQUEST, "
            "nlmsg_seq=1700000055, nlmsg_pid=0}, \"\\x00\\x00\\x00\\x00\"]",
            "nlmsg_type=NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_NEWGEN, nlmsg_flags=0, "
            "nlmsg_seq=1700000055",
            "nlmsg_type=NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETTABLE, "
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1700000056, nlmsg_pid=0}, "
            "{nfgen_family=AF_UNSPEC, version=NFNETLINK_V0, res_id=htons(0)}]",
            "nlmsg_type=NFNL_MSG_BATCH_BEGIN, nlmsg_flags=NLM_F_REQUEST, ",
            "{nfgen_family=AF_INET, version=NFNETLINK_V0, res_id=htons(10)}, "
            "\"\\x06\\x00\\x01\\x00\\x74\\x00\\x00\\x00\"]",
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_ACK|NLM_F_CREATE, ",
            "res_id=htons(NFNL_SUBSYS_NFTABLES)}, [[{nla_len=6, nla_type=0x1}, "
            "\"\\x74\\x00\"], [{nla_len=12, nla_type=NLA_F_NESTED|0x5}, ",
            # IFLA_STATS_LINK_XSTATS: a bridge's and a bond's nested stats
            "[{nla_len=44, nla_type=BRIDGE_XSTATS_VLAN}, {rx_bytes=1, rx_packets=0, "
            "tx_bytes=0, tx_packets=2, vid=3, flags=BRIDGE_VLAN_INFO_PVID|0x100, "
            "pad2=0xab}]",
            "nla_type=BRIDGE_XSTATS_STP}, {transition_blk=4, ",
            "tx_tcn=5}, \"\\x01\\x02\"]",
            "nla_type=BOND_XSTATS_3AD}, [{nla_len=12, nla_type=BOND_3AD_STAT_LACPDU_RX}, 11]]",
            "[{nla_len=76, nla_type=MPLS_STATS_LINK}, {rx_packets=1, tx_packets=2, ",
            "rx_noroute=9}]], [{nla_len=6, nla_type=AF_INET}, \"\\x61\\x62\"]]",
            # IFLA_VFINFO_LIST's IFLA_VF_INFO structs and nested attributes
            "nla_type=IFLA_VF_MAC}, {vf=1, mac=02:00:00:00:00:0a:00:00:",
            "nla_type=IFLA_VF_LINK_STATE}, {vf=1, link_state=IFLA_VF_LINK_STATE_DISABLE}]",
            "nla_type=IFLA_VF_VLAN_INFO}, {vf=2, vlan=10, qos=3, "
            "vlan_proto=htons(ETH_P_8021Q)}]]",
            "nla_type=IFLA_VF_IB_NODE_GUID}, {vf=2, guid=0x1122334455667788}]",
            "[{nla_len=12, nla_type=IFLA_VF_STATS_RX_PACKETS}, 42]",
            # inet_diag_msg's INET_DIAG_ULP_INFO (TLS, MPTCP), INET_DIAG_SK_BPF_STORAGES
            "[{nla_len=8, nla_type=INET_ULP_INFO_NAME}, \"tls\"], ",
            "[{nla_len=6, nla_type=TLS_INFO_VERSION}, TLS_1_2_VERSION], [{nla_len=6, "
            "nla_type=TLS_INFO_CIPHER}, TLS_CIPHER_AES_GCM_256], [{nla_len=6, "
            "nla_type=TLS_INFO_TXCONF}, TLS_CONF_SW], {nla_len=4, nla_type=TLS_INFO_ZC_RO_TX}]",
            "nla_type=MPTCP_SUBFLOW_ATTR_TOKEN_REM}, 0xabc], ",
            "nla_type=MPTCP_SUBFLOW_ATTR_FLAGS}, "
            "MPTCP_SUBFLOW_FLAG_MCAP_REM|MPTCP_SUBFLOW_FLAG_CONNECTED], ",
            "nla_type=SK_DIAG_BPF_STORAGE_MAP_ID}, 5], [{nla_len=8, "
            "nla_type=SK_DIAG_BPF_STORAGE_MAP_VALUE}, 0xbe]]]",
            # IFLA_LINKINFO's IFLA_INFO_DATA by kind (bridge, tun), a bridge port's data
            "nla_type=IFLA_BR_VLAN_PROTOCOL}, htons(ETH_P_8021AD)], ",
            "nla_type=IFLA_BR_MULTI_BOOLOPT}, {optval=1<<BR_BOOLOPT_NO_LL_LEARN, optmask=",
            "[{nla_len=8, nla_type=BRIDGE_QUERIER_IP_ADDRESS}, inet_addr(\"127.0.0.1\")]",
            "[{nla_len=8, nla_type=IFLA_TUN_OWNER}, -1], [{nla_len=5, "
            "nla_type=IFLA_TUN_TYPE}, IFF_TAP], ",
            "[{nla_len=6, nla_type=IFLA_INFO_DATA}, \"\\x61\\x62\"], ",
            "nla_type=IFLA_INFO_SLAVE_DATA}, [{nla_len=8, nla_type=IFLA_BRPORT_COST}, 100]]",
            # NETLINK_GENERIC: types by the kernel's families
            "[{nlmsg_len=20, nlmsg_type=nlctrl, nlmsg_flags=NLM_F_REQUEST|0x300, "
            "nlmsg_seq=1700000099, nlmsg_pid=",
            "nlmsg_type=0xfff0 /* GENERIC_FAMILY_??? */, ",
            # packet_diag_msg and its PACKET_DIAG_* attributes
            "{pdiag_family=AF_PACKET, pdiag_type=SOCK_RAW, pdiag_num=ETH_P_ALL, "
            "pdiag_ino=7, pdiag_cookie=[0, 0]}, [[{nla_len=28, nla_type=PACKET_DIAG_INFO}, "
            "{pdi_index=if_nametoindex(\"lo\"), pdi_version=TPACKET_V3, pdi_reserve=2, ",
            "pdi_flags=PDI_RUNNING|0x40}], [{nla_len=48, nla_type=PACKET_DIAG_MCLIST}, "
            "[{pdmc_index=if_nametoindex(\"lo\"), pdmc_count=1, pdmc_type=2, pdmc_alen=6, "
            "pdmc_addr=\"\\x01\\x80\\xc2\\x00\\x00\\x00\"}]], ",
            "{pdr_block_size=4096, pdr_block_nr=0, pdr_frame_size=0, pdr_frame_nr=8, ",
            "[{nla_len=8, nla_type=PACKET_DIAG_UID}, -1]]",
            # smc_diag_msg and its SMC_DIAG_* attributes
            "{diag_family=AF_SMC, diag_state=SMC_ACTIVE, diag_fallback=SMC_DIAG_MODE_SMCD, "
            "diag_shutdown=0, id={idiag_sport=htons(0), idiag_dport=htons(0), "
            "idiag_src=inet_addr(\"127.0.0.1\"), ",
            "diag_uid=5, diag_inode=6}, [[{nla_len=5, nla_type=SMC_DIAG_SHUTDOWN}, "
            "RCV_SHUTDOWN|SEND_SHUTDOWN|0x20], ",
            "{lnk=[{link_id=1, ibname=\"mlx5_0\", ibport=1, gid=\"fe80::1\", "
            "peer_gid=\"\"}], role=SMC_SERV}]]",
            "[[{nla_len=44, nla_type=SMC_DIAG_DMBINFO}, {linkid=2, peer_gid=0xabc, my_gid=0, "
            "token=0x1, peer_token=0}], ",
            "{reason=0x3020000 /* SMC_CLC_DECL_IPSEC */, "
            "peer_diagnosis=0x7 /* SMC_CLC_DECL_??? */}]]",
            "NFT_MSG_DELRULE, nlmsg_flags=NLM_F_REQUEST|NLM_F_NONREC, ",
            "res_id=NFNL_SUBSYS_NFTABLES}]", "version=0x1 /* NFNETLINK_??? */, res_id=htons(7)",
            "NFNL_SUBSYS_NFTABLES<<8|0x30 /* NFT_MSG_??? */, nlmsg_flags=NLM_F_REQUEST, "
            "nlmsg_seq=1700000060, nlmsg_pid=",
            "NFNL_SUBSYS_CTNETLINK<<8|0x9 /* IPCTNL_MSG_CT_??? */",
            "NFNL_SUBSYS_IPSET<<8|IPSET_CMD_HELP",
            "nlmsg_type=0x20 /* NFNL_SUBSYS_??? */<<8|0x1, nlmsg_flags=NLM_F_REQUEST|0x300",
            "nlmsg_type=NFNL_SUBSYS_NONE<<8|0x12, ",
            # a socket of another network namespace: its protocol unknown to strace
            "[{nlmsg_len=32, nlmsg_type=0x12 /* NLMSG_??? */, "
            "nlmsg_flags=NLM_F_REQUEST|0x300, nlmsg_seq=1700000070, nlmsg_pid=0}, \"\\x00",
            "nlmsg_type=0x10 /* NLMSG_??? */, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1700000070"):
        assert want in text, want


def test_netlink_sockets_decorated_as_strace_yy(tmp_path: Path) -> None:
    """-yy: netlink sockets as NETLINK:[ROUTE:PORTID], or NETLINK:[INODE] before their
    bind and in another network namespace (where a UDP socket is UDP:[INODE] too)."""
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path, ["-yy"])
    text = "\n".join(s_lines)
    for want in ("<NETLINK:[ROUTE:", "unshare(CLONE_NEWNET) = 0",
                 "bind(3<NETLINK:[", "sendto(3<NETLINK:[", "socket(AF_INET, SOCK_DGRAM, "
                 "IPPROTO_IP) = 3<UDP:["):
        assert want in text, want


def test_netlink_arrays_past_32_elements_equal_strace(tmp_path: Path) -> None:
    """-s 80: IFLA_INET6_CONF's and IFLA_INET6_STATS's arrays whole, down to the indices
    strace 6.1 has no name for."""
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path, ["-s", "80"])
    text = "\n".join(s_lines)
    for want in ("[DEVCONF_ACCEPT_UNTRACKED_NA]=", "[IPSTATS_MIB_REASM_OVERLAPS]=",
                 "[ICMP6_MIB_CSUMERRORS]="):
        assert want in text, want


def test_netlink_link_attributes_past_32_equal_strace_with_v(tmp_path: Path) -> None:
    """-v: every attribute of an RTM_NEWLINK reply, past the 32 that -s shows, among them
    IFLA_XDP's nested attributes, IFLA_MAP's struct and IFLA_AF_SPEC's attributes of
    each address family (AF_INET's IFLA_INET_CONF array)."""
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path, ["-v"])
    text = "\n".join(s_lines)
    for want in ("nla_type=IFLA_XDP}, [{nla_len=5, nla_type=IFLA_XDP_ATTACHED}, "
                 "XDP_ATTACHED_NONE]]", "nla_type=IFLA_MAP}, {mem_start=0, ",
                 "nla_type=AF_INET}, [{nla_len=", "[IPV4_DEVCONF_FORWARDING-1]=",
                 "nla_type=AF_INET6}, [[{nla_len=8, nla_type=IFLA_INET6_FLAGS}, "):
        assert want in text, want


def test_netlink_generic_equal_strace_with_sendto_only(tmp_path: Path) -> None:
    """-e trace=execve,sendto: a NETLINK_GENERIC message's header decoded (its type by the
    family the kernel registered), though the socket's creation is not traced."""
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path,
                                 ["-e", "trace=execve,sendto"])
    text = "\n".join(s_lines)
    assert "nlmsg_type=nlctrl, nlmsg_flags=NLM_F_REQUEST|0x300, " in text


@pytest.mark.parametrize(("opts", "want"), [
    (["-x"], 'nla_type=IFA_LABEL}, "\\x6c\\x6f\\x00"...]'),
    (["-xx", "-s", "2"], 'nla_type=IFLA_IFNAME}, "\\x6c\\x6f"...]'),
    (["-s", "2"], 'nla_type=IFLA_IFNAME}, "lo"...]')], ids=["-x", "-xx -s 2", "-s 2"])
def test_netlink_strings_equal_strace(tmp_path: Path, opts: list[str], want: str) -> None:
    """A string attribute's trailing NUL: left out when it is within -s bytes
    (``"lo"``; ``"lo"...`` with -s 2), kept as any other byte where strings print in hex
    (-x, -xx: ``"\\x6c\\x6f\\x00"...``)."""
    s_lines = same_lines_one_run(build(tmp_path, "sweep_netlink"), tmp_path, opts)
    assert want in "\n".join(s_lines), want
