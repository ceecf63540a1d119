"""Socket calls as strace 6.1 prints them, against strace on ONE run.

tests/workloads/sweep_net.c makes each socket call with the domains, types and protocols
strace names and unknown ones (socket, socketpair), each sockaddr family strace decodes
(in, in6 with flowinfo and scope id, un path/abstract/unnamed, nl, ll, vm, rxrpc, ipx,
x25, ieee802154, nfc, alg, AF_UNSPEC, an
unknown family, short and long address lengths) to bind/connect, listen, accept/accept4,
getsockname/getpeername, shutdown, sendto/recvfrom (MSG_* flags, MSG_TRUNC),
sendmsg/recvmsg (SCM_RIGHTS, SCM_CREDENTIALS, SCM_SECURITY, IP_PKTINFO and IP_TTL cmsgs,
MSG_CTRUNC and MSG_TRUNC out), setsockopt/getsockopt at SOL_SOCKET, SOL_IP, SOL_IPV6, SOL_TCP,
SOL_NETLINK and unknown levels with optlen edges, and socket ioctls (SIOCGIFINDEX,
SIOCGIFNAME, FIONREAD, the SIOCGIF* reads of ip), and what system tools do: ping's
ICMP_FILTER and SO_TIMESTAMP cmsgs, curl's SO_ERROR. tracekit traces
``strace -f -o FILE sweep_net``, so both see the same calls: every line of the program
must be equal.

Under ``-xx`` (every string in hex, inet_addr's too) and ``-yy`` (a PACKET or AF_VSOCK
socket as ``socket:[INODE]``, as strace 6.1 names neither), but for the fds SCM_RIGHTS
brings (received, not made by a call tracekit follows: undecorated in the recvmsg and at
their close).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_lines_but_gaps, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_net_calls_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "sweep_net"), tmp_path)
    text = "\n".join(s_lines)
    for want in (
            "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_TCP) = ",
            "socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_AUDIT) = ",
            "socket(AF_NETLINK, SOCK_RAW, 0x63 /* NETLINK_??? */) = -1 EPROTONOSUPPORT",
            "socket(AF_PACKET, SOCK_RAW, htons(0 /* ETH_P_??? */)) = ",
            "socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP)) = ",
            "socket(0xc8 /* AF_??? */, SOCK_STREAM, 0) = -1 EAFNOSUPPORT",
            "socket(AF_DECnet, SOCK_STREAM, 0) = -1 EAFNOSUPPORT",
            "sll_halen=0}, 20) = -1 ", "sll_ifindex=4294967294, ",
            "sll_addr=[0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 00, 00, ...]}",
            "{sa_family=AF_RXRPC, srx_service=0x1 /* CM_SERVICE */, transport_type=SOCK_DGRAM, "
            "transport_len=16, transport={sin={sin_family=AF_INET, sin_port=htons(0), ",
            "transport={sin={sin_family=AF_INET, \"\\0\\0\"}}}",
            "srx_service=0x8382 /* ???_SERVICE */, transport_type=0 /* SOCK_??? */, "
            "transport_len=28, transport={sin6={sin6_family=AF_INET6, sin6_port=htons(1234), ",
            "transport_len=300, transport={family=0xfa /* AF_??? */, \"",
            "{sa_family=AF_RXRPC, sa_data=\"",
            "cmsg_level=SOL_SOCKET, cmsg_type=SCM_SECURITY, cmsg_data=",
            "socket(AF_INET, 0xf /* SOCK_??? */, IPPROTO_IP) = -1 EINVAL",
            "socket(AF_INET, SOCK_STREAM|0x40000 /* SOCK_??? */, IPPROTO_IP) = -1 EINVAL",
            "socketpair(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0, [",
            "bind(3, {sa_family=AF_INET, sa_data=\"\\0\\0\\177\\0\\0\\1\"}, 8) = -1 EINVAL",
            "sin_addr=inet_addr(\"127.0.0.1\")}, 32) = 0",
            "sin6_flowinfo=htonl(74565), inet_pton(AF_INET6, \"::1\", &sin6_addr), "
            "sin6_scope_id=1}, 28)",
            "inet_pton(AF_INET6, \"fe80::1\", &sin6_addr), "
            "sin6_scope_id=if_nametoindex(\"lo\")}, 28)",
            "inet_pton(AF_INET6, \"fe80::1\", &sin6_addr)}, 24)",
            "{sa_family=AF_UNSPEC, sa_data=\"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"}, 16)",
            "{sa_family=0xfa /* AF_??? */, sa_data=\"abc\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"}, 16)",
            "{sa_family=AF_NETLINK, nl_pid=1234, nl_groups=0x000005}, 12)",
            "{sa_family=AF_NETLINK, nl_pad=0xffff, nl_pid=1234, nl_groups=0x000005}, 12)",
            "{sa_family=AF_PACKET, sll_protocol=htons(ETH_P_IP), "
            "sll_ifindex=if_nametoindex(\"lo\"), sll_hatype=ARPHRD_ETHER, "
            "sll_pkttype=PACKET_HOST, sll_halen=6, sll_addr=[0x1, 0x2, 0x3, 0x4, 0x5, 0x6]}, 20)",
            "{sa_family=AF_VSOCK, svm_cid=VMADDR_CID_LOCAL, svm_port=0x5, svm_flags=0}, 16)",
            "svm_port=VMADDR_PORT_ANY",
            "svm_reserved1=0xdead, svm_cid=0x4d2, svm_port=VMADDR_PORT_ANY, "
            "svm_flags=VMADDR_FLAG_TO_HOST|0xee, svm_zero=\"\\x42\\x00\\x00\"}",
            "{sa_family=AF_QIPCRTR, sq_node=QRTR_NODE_BCAST, sq_port=QRTR_PORT_CTRL}, 12)",
            "sxdp_flags=XDP_SHARED_UMEM|XDP_ZEROCOPY|0xa000, sxdp_ifindex=if_nametoindex(\"lo\"), "
            "sxdp_queue_id=7, sxdp_shared_umem_fd=51966}",
            "sxdp_shared_umem_fd=0xcafe}",
            "{sa_family=AF_MCTP, __smctp_pad0=0xdead, smctp_network=MCTP_NET_ANY, "
            "smctp_addr={s_addr=MCTP_ADDR_ANY}, smctp_type=0x89, smctp_tag=0x8a, "
            "__smctp_pad1=0x8b}, 12)",
            "{sa_family=AF_AX25, sax25_call=VALID-13, sax25_ndigis=0}, 16)",
            "{sa_family=AF_AX25, fsa_ax25={sax25_call=VALID-13, sax25_ndigis=4}, "
            "fsa_digipeater=[OK-15, {ax25_call=\"\\x8c\\x92\\x9c\\x8a\\x40\\x41\\x04\"} "
            "/* FINE-2 */, *, {ax25_call=\"\\x14\\x12\\x82\\x84\\x86\\x88\\x0e\"}]}, 44)",
            "fsa_digipeater=[OK-15, {ax25_call=", "/* FINE-2 */, *, ...], ...}, 38)",
            "\\x0e\"}], ...}, 50)", "sax25_ndigis=9}, fsa_digipeater=[OK-15, ",
            "{sa_family=AF_AX25, fsa_ax25={sax25_call=VALID-13, sax25_ndigis=-1}}, 16)",
            # AF_IPX, AF_X25, AF_IEEE802154, AF_NFC, AF_ALG past sa_family
            "{sa_family=AF_IPX, sipx_port=htons(12345), sipx_network=htonl(0xfacefeed), "
            "sipx_node=[0x41, 0x42, 0x43, 0x44, 0x45, 0x46], sipx_type=0xff}, 16)",
            "sipx_type=0xff, sipx_zero=0x42}, 16)",
            "{sa_family=AF_X25, sx25_addr={x25_addr=\"0123456789abcde\"...}}, 18)",
            "{sa_family=AF_X25, sx25_addr={x25_addr=\"0123456789\"}}, 18)",
            "{sa_family=AF_IEEE802154, addr={addr_type=0x2 /* IEEE802154_ADDR_SHORT */, "
            "pan_id=0xffff /* IEEE802154_PANID_BROADCAST */, "
            "short_addr=0xfffe /* IEEE802154_ADDR_UNDEF */}}, 20)",
            "pan_id=0xface, hwaddr=01:02:03:04:05:06:07:08}}, 20)",
            "{sa_family=AF_NFC, dev_idx=if_nametoindex(\"lo\"), target_idx=0xab, "
            "nfc_protocol=NFC_PROTO_ISO14443}, 16)", "nfc_protocol=NFC_PROTO_ISO14443, ...}, 20)",
            "dsap=0x1 /* LLCP_SAP_SDP */, ssap=0x20, service_name=\"urn:nfc:sn:snep\", "
            "service_name_len=15}, 96)",
            "{sa_family=AF_ALG, salg_type=\"hash\", salg_feat=0x1001 /* "
            "CRYPTO_ALG_KERN_DRIVER_ONLY|0x1 */, salg_mask=0x2 /* CRYPTO_ALG_??? */, "
            "salg_name=\"sha256\"}, 88)",
            "salg_type=\"0123456789abc\"..., ", "salg_name=\"xy\"...}, 27)",
            "connect(3, {sa_family=AF_INET}, 2) = -1 EINVAL",
            "bind(3, {sa_family=AF_UNIX, sun_path=\"srv.sock\"}, 11) = 0",
            "listen(3, -1) = 0", "accept(3, {sa_family=AF_UNIX}, [110 => 2]) = ",
            "getpeername(4, {sa_family=AF_UNIX, sun_path=\"sr\"}, [4 => 11]) = 0",
            "cmsg_type=SCM_CREDENTIALS, cmsg_data={pid=",
            "cmsg_type=SCM_RIGHTS, cmsg_data=[0, 1]}], msg_controllen=56, msg_flags=0}, "
            "MSG_NOSIGNAL) = 5",
            "msg_flags=MSG_CMSG_CLOEXEC}, MSG_CMSG_CLOEXEC) = 5",
            "msg_controllen=20, msg_flags=MSG_CTRUNC}, 0) = 5",
            "sendto(4, \"abc\", 3, MSG_DONTWAIT|MSG_NOSIGNAL|MSG_MORE, NULL, 0) = 3",
            "recvfrom(5, \"abc\", 64, MSG_PEEK|MSG_DONTWAIT|0x800000, NULL, NULL) = 3",
            "shutdown(4, SHUT_RDWR) = 0", "shutdown(4, 0x7 /* SHUT_??? */) = -1 EINVAL",
            "recvfrom(4, \"0123\", 4, MSG_TRUNC, {sa_family=AF_UNIX, sun_path=@\"",
            "msg_namelen=110 => 8, msg_iov=[{iov_base=\"0123\", iov_len=4}], msg_iovlen=1, "
            "msg_controllen=0, msg_flags=MSG_TRUNC}, MSG_TRUNC) = 10",
            "accept4(3, NULL, NULL, SOCK_CLOEXEC|SOCK_NONBLOCK) = ",
            "accept4(3, NULL, NULL, 0x4 /* SOCK_??? */) = -1 EINVAL",
            "ioctl(5, FIONREAD, [1]) = 0",
            "ioctl(5, SIOCGIFINDEX, {ifr_name=\"lo\", ifr_ifindex=1}) = 0",
            "ioctl(5, SIOCGIFNAME, {ifr_ifindex=1, ifr_name=\"lo\"}) = 0",
            "ioctl(5, SIOCGIFNAME, {ifr_ifindex=100000}) = -1 ENODEV",
            "getsockopt(5, SOL_TCP, TCP_INFO, \"\\1\\0", "[512 => ",
            "setsockopt(5, SOL_TCP, TCP_CONGESTION, [1869505906], 4) = 0",
            "setsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, 8) = 0",
            "getsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, [8]) = 0",
            "setsockopt(3, SOL_SOCKET, SO_RCVTIMEO_OLD, \"\\2\\0\\0\\0\\0\\0\\0\\0 \\241\\7\\0",
            "getsockopt(3, SOL_SOCKET, SO_TYPE, [2], [8 => 4]) = 0",
            "getsockopt(3, SOL_SOCKET, SO_TYPE, \"\\2\\0\", [2]) = 0",
            "getsockopt(3, SOL_SOCKET, SO_PROTOCOL, [17], [4]) = 0",
            "setsockopt(3, SOL_SOCKET, SO_BINDTODEVICE, \"lo\\0\", 3) = 0",
            "getsockopt(3, SOL_SOCKET, SO_BINDTODEVICE, \"lo\\0\", [16 => 3]) = 0",
            "setsockopt(3, SOL_IP, IP_MULTICAST_IF, [16777343], 4) = 0",
            "IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr(\"239.255.42.99\"), "
            "imr_interface=inet_addr(\"127.0.0.1\")}, 8) = 0",
            "setsockopt(3, 0x3039 /* SOL_?? */, 6789, [1], 4) = -1 ENOPROTOOPT",
            "getsockopt(3, SOL_SOCKET, 0x270f /* SO_??? */, 0x",
            "cmsg_type=IP_PKTINFO, cmsg_data={ipi_ifindex=if_nametoindex(\"lo\"), "
            "ipi_spec_dst=inet_addr(\"127.0.0.1\"), ipi_addr=inet_addr(\"127.0.0.1\")}}, "
            "{cmsg_len=20, cmsg_level=SOL_IP, cmsg_type=IP_TTL, cmsg_data=[7]}]",
            "cmsg_type=IP_TTL, cmsg_data=[4210032365, 64]}]",
            "cmsg_type=IP_RETOPTS, cmsg_data=[0x41, 0x42, 0x43, 0x44, 0x45]}]",
            "cmsg_type=IP_RECVERR, cmsg_data={ee_errno=111, ee_origin=2, ee_type=0, "
            "ee_code=0, ee_info=197121, ee_data=3, offender={sa_family=AF_INET, "
            "sin_port=htons(12345), sin_addr=inet_addr(\"127.0.0.1\")}}}]",
            "cmsg_type=IP_ORIGDSTADDR, cmsg_data={sa_family=AF_INET, sin_port=htons(12345), ",
            "cmsg_type=IP_CHECKSUM, cmsg_data=[67305985]}]",
            "cmsg_level=SOL_IP, cmsg_type=SCM_SECURITY, cmsg_data=\"lbl\"}]",
            "{cmsg_len=16, cmsg_level=SOL_IP, cmsg_type=IP_TOS}]",
            "setsockopt(3, SOL_IPV6, IPV6_V6ONLY, [1], 4) = 0",
            "setsockopt(3, SOL_NETLINK, NETLINK_GET_STRICT_CHK, [1], 4) = 0",
            "getsockopt(3, SOL_NETLINK, 0x63 /* NETLINK_??? */, 0x",
            "getsockname(3, {sa_family=AF_NETLINK, nl_pid=",
            "IPV6_ADD_MEMBERSHIP, {inet_pton(AF_INET6, \"ff02::42\", &ipv6mr_multiaddr), "
            "ipv6mr_interface=if_nametoindex(\"lo\")}, 20) = 0",
            "setsockopt(3, SOL_SOCKET, SO_LINGER, 0x", ", 4) = -1 EINVAL",
            "imr_interface=inet_addr(\"127.0.0.1\")}, 12) = 0",
            "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, 0x", "ioctl(5, FIONREAD, [0]) = 0",
            "setsockopt(3, SOL_SOCKET, SO_BINDTODEVICE, \"\", 0) = 0",
            "getsockname(4, NULL, 0x", "connect(3, 0x",
            "socketpair(AF_INET, SOCK_STREAM, 0, 0x",
            "getsockopt(4, SOL_SOCKET, SO_PEERCRED, {pid=", "}, [4]) = 0",
            "getsockopt(4, SOL_SOCKET, SO_LINGER, {l_onoff=0}, [4]) = 0",
            "setsockopt(5, SOL_IPV6, IPV6_V6ONLY, \"\", 0) = -1 ENOPROTOOPT",
            "getsockopt(5, SOL_TCP, 0x63 /* TCP_??? */, 0x",
            "getsockopt(5, SOL_IPV6, 0x63 /* IPV6_??? */, 0x", "accept(-1, NULL, NULL) = -1 EBADF",
            # what ping, curl and ip -6 addr do (netprog() in the workload)
            "setsockopt(3, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_DEST_UNREACH "
            "ICMP_TIME_EXCEEDED], 4) = 0",
            "setsockopt(3, SOL_RAW, ICMP_FILTER, [], 4) = 0",
            "setsockopt(3, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHO 0x14 /* ICMP_??? */ "
            "0x1f /* ICMP_??? */], 8) = 0",
            "setsockopt(3, SOL_RAW, ICMP_FILTER, ~[ICMP_ECHO], 2) = 0",
            "setsockopt(3, SOL_RAW, 0x7 /* RAW_??? */, [",
            "getsockopt(3, SOL_RAW, ICMP_FILTER, [ICMP_INFO_REPLY ICMP_ADDRESS", "[2]) = 0",
            "getsockopt(3, SOL_SOCKET, SO_ERROR, [ECONNREFUSED], [4]) = 0",
            "getsockopt(3, SOL_SOCKET, SO_ERROR, \"\\x00\\x00\", [2]) = 0",
            "cmsg_type=SO_TIMESTAMP_OLD, cmsg_data={tv_sec=",
            "cmsg_type=SO_TIMESTAMPNS_OLD, cmsg_data={tv_sec=",
            "ioctl(3, SIOCGIFTXQLEN, {ifr_name=\"lo\", ifr_qlen=",
            "ioctl(3, SIOCGIFMTU, {ifr_name=\"lo\", ifr_mtu=",
            "ioctl(3, SIOCGIFFLAGS, {ifr_name=\"lo\", ifr_flags=IFF_UP|IFF_LOOPBACK",
            "ioctl(3, SIOCGIFHWADDR, {ifr_name=\"lo\", ifr_hwaddr={sa_family=ARPHRD_LOOPBACK, "
            "sa_data=00:00:00:00:00:00}}) = 0",
            "ifr_netmask={sa_family=AF_INET, sin_port=htons(0), "
            "sin_addr=inet_addr(\"255.0.0.0\")}}) = 0",
            "ioctl(3, SIOCGIFTXQLEN, {ifr_name=\"nosuchif0\"}) = -1 ENODEV"):
        assert want in text, want
    assert re.search(r'sun_path=@"tracekit-sw-\d{6}\\0x"\}, 23\) = 0', text)


_RECEIVED: tuple[Gap, ...] = (
    (re.compile(r"^(recvmsg\(.*SCM_RIGHTS, cmsg_data=\[)\d+<.*?(\]\}\], msg_controllen=.*)$"),
     re.compile(r"^(recvmsg\(.*SCM_RIGHTS, cmsg_data=\[)[\d, ]+(\]\}\], msg_controllen=.*)$")),
    (re.compile(r"^(close\([67])<[^>]*>+(\) = 0)$"), re.compile(r"^(close\([67])(\) = 0)$")))


@pytest.mark.parametrize("opts", [["-yy"], ["-e", "verbose=none"], ["-xx"]],
                         ids=["yy", "verbose=none", "xx"])
def test_net_calls_under_options(tmp_path: Path, opts: list[str]) -> None:
    text = "\n".join(same_lines_but_gaps(build(tmp_path, "sweep_net"), tmp_path, opts,
                                         _RECEIVED))
    if opts == ["-xx"]:             # every string in hex, the addresses' too
        assert 'sin_addr=inet_addr("\\x31\\x32\\x37\\x2e\\x30\\x2e\\x30\\x2e\\x31")' in text
        assert 'inet_pton(AF_INET6, "\\x3a\\x3a\\x31", &sin6_addr)' in text
        return
    if opts != ["-yy"]:             # a socket option's value as its address
        assert re.search(r"getsockopt\(\d+, SOL_TCP, TCP_NODELAY, 0x[0-9a-f]+, 0x", text)
        return
    assert re.search(r"socket\(AF_PACKET, SOCK_RAW, .*\) = \d+<socket:\[\d+\]>", text)
    assert re.search(r"socket\(AF_VSOCK, SOCK_STREAM, 0\) = \d+<socket:\[\d+\]>", text)
