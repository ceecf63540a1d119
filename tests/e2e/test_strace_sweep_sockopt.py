"""Socket options as strace 6.1 prints them, against strace on ONE run.

tests/workloads/sweep_sockopt.c calls setsockopt and getsockopt at every level strace
names (SOL_SOCKET ... SOL_XDP, AF_VSOCK's level 40, SOL_CAN_RAW) and some it does not,
with every option number from 0 to 160: the level's name, the option's name (the
netfilter options of SOL_IP and SOL_IPV6 and SO_GET_FILTER named apart in getsockopt),
``0 /* IP_??? */`` and ``0x26 /* SCTP_??? */`` for one without a name. Then the values
strace decodes beyond an int: ICMP_FILTER's set of ICMP types, struct sock_fprog,
SO_TXREHASH, struct group_req, struct packet_mreq, struct tpacket_req and struct
ipv6_mreq, at their size and at lengths strace shows as an address; and what getsockopt
returns on real sockets at lengths below, at and above an int's (an int option cut short
as its bytes in hex, struct ucred and linger cut inside a field, struct tpacket_stats).
tracekit traces ``strace -f -o FILE sweep_sockopt``, so both see the same calls: every
line must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_socket_options_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    # the two calls alone (and execve, where the program's own lines begin): strace
    # makes a dozen calls of its own per call it traces, which would fill the ring
    s_lines = same_lines_one_run(build(tmp_path, "sweep_sockopt"), tmp_path,
                                 ["-e", "trace=execve,setsockopt,getsockopt"])
    text = "\n".join(s_lines)
    # the workload reached what it is for (strace's own text)
    for want in ("setsockopt(-1, SOL_TLS, TLS_TX, [1], 4)",
                 "getsockopt(-1, SOL_IP, IPT_SO_GET_INFO, ",
                 "setsockopt(-1, SOL_IP, IPT_SO_SET_REPLACE, [1], 4)",
                 "setsockopt(-1, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, [1], 4)",
                 "setsockopt(-1, SOL_IP, 0 /* IP_??? */, [1], 4)",
                 ", SOL_RAW, ICMP_FILTER, ~[ICMP_ECHOREPLY ICMP_DEST_UNREACH "
                 "ICMP_TIME_EXCEEDED], 4) = 0",
                 ", SOL_SOCKET, SO_ATTACH_FILTER, {len=4, filter=0x",
                 ", SOL_SOCKET, SO_TXREHASH, [7 /* SOCK_TXREHASH_??? */], 4)",
                 ", SOL_IP, MCAST_JOIN_GROUP, {gr_interface=if_nametoindex(\"lo\"), "
                 "gr_group={sa_family=AF_INET, sin_port=htons(0), "
                 "sin_addr=inet_addr(\"224.0.0.251\")}}, 136)",
                 ", SOL_PACKET, PACKET_RX_RING, {tp_block_size=4096, tp_block_nr=4, "
                 "tp_frame_size=2048, tp_frame_nr=8}, 16)",
                 ", SOL_SOCKET, SO_RCVBUF, \"\\x", ", SO_PEERCRED, {pid=",
                 "tp_freeze_q_cnt=0}, [256 => 12])",
                 # values that end their mapping, optlen past it: strace reads their size
                 "setsockopt(-1, SOL_SOCKET, SO_RCVBUF, [12345], 5) = -1 EBADF",
                 "setsockopt(-1, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, [12345], 8) = -1 EBADF",
                 "setsockopt(-1, SOL_RAW, ICMP_FILTER, [ICMP_ECHOREPLY ICMP_DEST_UNREACH "
                 "ICMP_SOURCE_QUENCH ICMP_REDIRECT ICMP_PARAMETERPROB ICMP_TIMESTAMP], 8)",
                 "setsockopt(-1, SOL_IP, MCAST_JOIN_GROUP, {gr_interface=if_nametoindex("
                 "\"lo\"), gr_group={sa_family=AF_INET, sin_port=htons(0), "
                 "sin_addr=inet_addr(\"224.0.0.251\")}}, 2147483647) = -1 EBADF",
                 "setsockopt(-1, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr("
                 "\"224.0.0.251\"), imr_interface=inet_addr(\"127.0.0.1\")}, 12) = -1 EBADF"):
        assert want in text, want
