"""Netlink structs and attributes of strace 6.1's own test programs (nlattr_*,
netlink_route, netlink_sock_diag), against strace on ONE run.

tests/workloads/nlattr_more.c sends messages to its own NETLINK_ROUTE and
NETLINK_SOCK_DIAG sockets (and reads each back): IFLA_BRIDGE_VLAN_INFO and
IFLA_BRIDGE_VLAN_TUNNEL_INFO, IFLA_PROTO_DOWN_REASON, IFLA_PORT_SELF, IFLA_VF_PORTS,
IFLA_EVENT, IFLA_MAP, NDA_* of Linux 6.1, RTA_NEWDST/METRICS/VIA/ENCAP_TYPE/MFC_STATS/
CACHEINFO, nhmsg with resvd, RTM_NEWCACHEREPORT's message types, RTM_DELACTION's flags,
an RTM type strace 6.1 does not name, TCA_ACT_FLAGS/HW_STATS, TCA_STAB, a TCA_STATS
of 36 bytes, MDBA_ROUTER_PORT's attributes, an extended ACK's cookie,
INET_DIAG_REQ_BYTECODE and INET_DIAG_REQ_PROTOCOL,
the TCP congestion infos, INET_DIAG_SHUTDOWN, a grown INET_DIAG_SOCKOPT,
INET_DIAG_MD5SIG, INET_DIAG_LOCALS, a sock_diag payload of the family alone,
smc_diag_req, packet_diag_req and UNIX_DIAG_ICONS. Every line of the program must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_nlattr_more_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "nlattr_more"), tmp_path)
    text = "\n".join(s_lines)
    # the program ran to its end and strace decoded what this test is about
    for want in (
            "{flags=BRIDGE_VLAN_INFO_MASTER|BRIDGE_VLAN_INFO_PVID|0x100, vid=7}, "
            '"\\x7e\\x7f\\x80\\x81"',
            "[{nla_len=8, nla_type=IFLA_PROTO_DOWN_REASON_MASK}, 0xabacdbcd]",
            "vsi_type_version=239, pad=",
            "[{nla_len=8, nla_type=NDA_LINK_NETNSID}, 3735928559]",
            "[{nla_len=6, nla_type=NDA_NDM_STATE_MASK}, NUD_NONE]",
            "rta_id=0xfeed",
            "resvd=0x1, nh_flags=RTNH_F_ONLINK|0x80200",
            "nlmsg_flags=NLM_F_REQUEST|NLM_F_ROOT",
            "nlmsg_type=0x5f /* RTM_??? */",
            "addr=inet_addr(\"10.11.12.13\")}",
            "0x4 /* ???_SHUTDOWN */",
            '/* bytes 2..3 */ "\\x00\\xff"',
            "tcpm_key=\"\\x12\\x34\"",
            "{family=AF_UNIX}]",
            "diag_ext=1<<(SMC_DIAG_CONNINFO-1)|0x4",
            "sdiag_protocol=0x60",
            "[{nla_len=8, nla_type=TCA_ACT_FLAGS}, TCA_ACT_FLAGS_SKIP_HW|0x100]",
            "[{nla_len=10, nla_type=TCA_STAB_DATA}, [10, 20, 30]]",
            "backlog=8}",
            "MDB_RTR_TYPE_PERM], [{nla_len=8, nla_type=MDBA_ROUTER_PATTR_TIMER}, 5700500 ",
            "[{nla_len=12, nla_type=UNIX_DIAG_ICONS}, [7, 8]]",
            "[{nla_len=6, nla_type=NLMSGERR_ATTR_COOKIE}, [171, 254]]"):
        assert want in text, want
    assert len([ln for ln in s_lines if ln.startswith("sendto(")]) == 24
