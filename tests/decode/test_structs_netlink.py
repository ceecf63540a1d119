"""Netlink messages (tracekit/decode/structs_netlink.py) from hostile bytes: whatever the
traced process sends or the capture holds, the decoder returns text and never raises.
The texts strace prints are checked against strace itself in
tests/e2e/test_strace_sweep_netlink.py; here, the edges a live run cannot reach: a
capture shorter than the buffer, lengths that lie, nesting, garbage."""

from __future__ import annotations

import os
import socket
import struct

from hypothesis import given, settings, strategies as st

from tests.decode._calls import args, call
from tracekit._events import _FD_DESC, CAP_ARG_FD, CAP_BUF, CAP_FD, Capture
from tracekit.decode import flags as F
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.structs_netlink import decode_netlink

FL = F.for_arch("x86_64")
ROUTE, SOCK_DIAG = 0, 4


def msg(ntype: int, payload: bytes, flags: int = 0, seq: int = 7, pid: int = 0,
        nlen: int | None = None) -> bytes:
    n = 16 + len(payload) if nlen is None else nlen
    body = struct.pack("<IHHIi", n, ntype, flags, seq, pid) + payload
    return body + b"\0" * (-len(body) % 4)


def nla(ntype: int, data: bytes, nlen: int | None = None) -> bytes:
    body = struct.pack("<HH", 4 + len(data) if nlen is None else nlen, ntype) + data
    return body + b"\0" * (-len(body) % 4)


NEWADDR = 20
LO_ADDR = msg(NEWADDR, struct.pack("<BBBBI", socket.AF_INET, 8, 0x80, 254, 1)
              + nla(1, bytes([127, 0, 0, 1])) + nla(3, b"lo\0"), flags=2)


def test_a_whole_message_decodes() -> None:
    text = decode_netlink(LO_ADDR, len(LO_ADDR), ROUTE, FL, 32)
    assert text.startswith("[{nlmsg_len=40, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI, ")
    assert '[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr("127.0.0.1")]' in text
    assert text.endswith('[{nla_len=7, nla_type=IFA_LABEL}, "lo"]]]')


def test_a_capture_shorter_than_the_buffer_ends_with_dots() -> None:
    """The BPF program captured 28 of the 36 bytes: the attributes past them are
    ``...``, brackets still closed."""
    text = decode_netlink(LO_ADDR[:28], len(LO_ADDR), ROUTE, FL, 32)
    assert text.endswith('ifa_index=if_nametoindex("lo")}, '
                         '[[{nla_len=8, nla_type=IFA_ADDRESS}, ...], ...]]'), text
    text = decode_netlink(LO_ADDR[:20], len(LO_ADDR), ROUTE, FL, 32)
    assert text.endswith("nlmsg_seq=7, nlmsg_pid=0}, ...]"), text
    # not even the header
    assert decode_netlink(b"\1\2", 64, ROUTE, FL, 32) == "..."


def test_lengths_that_lie() -> None:
    # nlmsg_len past the buffer: the payload is what the buffer holds
    long = msg(NEWADDR, struct.pack("<BBBBI", 2, 0, 0, 0, 0), nlen=4096)
    assert decode_netlink(long, len(long), ROUTE, FL, 32).startswith("[{nlmsg_len=4096,")
    # nlmsg_len under a header: the header alone, the walk ends
    zero = msg(18, b"", nlen=0) + msg(18, b"")
    assert decode_netlink(zero, len(zero), ROUTE, FL, 32) == (
        "{nlmsg_len=0, nlmsg_type=RTM_GETLINK, nlmsg_flags=0, nlmsg_seq=7, nlmsg_pid=0}")
    # an attribute whose nla_len is 0 or 65535
    for n in (0, 1, 65535):
        m = msg(NEWADDR, struct.pack("<BBBBI", 2, 0, 0, 0, 0) + nla(1, b"\1\2\3\4", n))
        assert "nla_type=IFA_ADDRESS" in decode_netlink(m, len(m), ROUTE, FL, 32)


def test_many_messages_and_attributes_stop_at_the_string_limit() -> None:
    attrs = b"".join(nla(8, b"\x80\0\0\0") for _ in range(40))
    m = msg(NEWADDR, struct.pack("<BBBBI", 2, 0, 0, 0, 0) + attrs)
    text = decode_netlink(m, len(m), ROUTE, FL, 32)
    assert text.count("IFA_FLAGS}") == 32 and text.endswith(", ...]]")
    many = msg(3, b"\0\0\0\0") * 40
    text = decode_netlink(many, len(many), ROUTE, FL, 32)
    assert text.count("NLMSG_DONE") == 32 and text.endswith(", ...]")
    # strace -v: no list is cut
    text = decode_netlink(many, len(many), ROUTE, FL, 32, verbose=True)
    assert text.count("NLMSG_DONE") == 40 and "..." not in text


def test_an_error_carries_its_request_and_extended_ack() -> None:
    req = msg(18, struct.pack("<BxHiII", 0, 0, 5, 0, 0), flags=1)
    err = msg(2, struct.pack("<i", -19) + req + nla(1, b"no device\0"))
    text = decode_netlink(err, len(err), ROUTE, FL, 32)
    assert "{error=-ENODEV, msg=[{nlmsg_len=32, nlmsg_type=RTM_GETLINK" in text
    assert text.endswith('{error=-ENODEV, msg=[{nlmsg_len=32, nlmsg_type=RTM_GETLINK, '
                         'nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=7, nlmsg_pid=0}, '
                         '{ifi_family=AF_UNSPEC, ifi_type=ARPHRD_NETROM, ifi_index=5, '
                         'ifi_flags=0, ifi_change=0}]}, '
                         '[{nla_len=14, nla_type=NLMSGERR_ATTR_MSG}, "no device"]]]'), text
    capped = msg(2, struct.pack("<i", -1) + req[:16], flags=0x100)
    assert "error=-EPERM, msg={nlmsg_len=32" in decode_netlink(capped, len(capped), ROUTE,
                                                               FL, 32)


def test_bridge_neighbour_request_is_an_ifinfomsg() -> None:
    """``bridge fdb show`` asks RTM_GETNEIGH with an AF_BRIDGE ifinfomsg (strace's
    decode_rtm_getneigh)."""
    req = msg(30, struct.pack("<BxHiII", 7, 0, 0, 0, 0), flags=0x301)
    assert "{ifi_family=AF_BRIDGE, ifi_type=ARPHRD_NETROM, ifi_index=0, " in decode_netlink(
        req, len(req), ROUTE, FL, 32)
    req = msg(30, struct.pack("<BxxxiHBB", 2, 0, 0, 0, 0), flags=0x301)
    assert "{ndm_family=AF_INET, ndm_ifindex=0, ndm_state=NUD_NONE, " in decode_netlink(
        req, len(req), ROUTE, FL, 32)


def test_sock_diag_short_request_and_unknown_family() -> None:
    short = msg(20, b"\x02\x06\0\0", flags=1)
    assert "{sdiag_family=AF_INET, ...}" in decode_netlink(short, len(short), SOCK_DIAG,
                                                           FL, 32)
    other = msg(20, b"\xc8\1\2\3", flags=1)
    assert '{family=0xc8 /* AF_??? */, data="\\x01\\x02\\x03"}' in decode_netlink(
        other, len(other), SOCK_DIAG, FL, 32)


@settings(deadline=None, max_examples=400)
@given(data=st.binary(max_size=300), extra=st.integers(0, 300),
       family=st.sampled_from([-1, ROUTE, SOCK_DIAG, 2, 99]), limit=st.integers(0, 40))
def test_garbage_never_raises(data: bytes, extra: int, family: int, limit: int) -> None:
    text = decode_netlink(data, len(data) + extra, family, FL, limit)
    assert isinstance(text, str)


def test_memory_cut_by_an_unmapped_page_prints_the_address_strace_could_not_read() -> None:
    """``addr``: the capture is all that was readable (a FAULT|PARTIAL read). strace
    reads each header, struct and attribute on its own and prints the address of the
    first it cannot read; in a list, ``... /* 0x... */``."""
    at = 0x7F0000000000
    n = len(LO_ADDR)                    # 16 header, 8 ifaddrmsg, 8 + 8 attributes

    def cut(k: int) -> str:
        return decode_netlink(LO_ADDR[:k], n, ROUTE, FL, 32, addr=at)
    assert cut(12) == hex(at)                                       # not even the header
    assert cut(16).endswith(f"nlmsg_pid=0}}, {hex(at + 16)}]")      # the family byte
    assert cut(17).endswith(f"{{ifa_family=AF_INET, {hex(at + 17)}}}]")
    assert cut(24).endswith(f'ifa_index=if_nametoindex("lo")}}, {hex(at + 24)}]')
    assert cut(30).endswith(f"[[{{nla_len=8, nla_type=IFA_ADDRESS}}, {hex(at + 28)}], "
                            f"... /* {hex(at + 32)} */]]")
    assert cut(32).endswith('[[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr("127.0.0.1")], '
                            f"... /* {hex(at + 32)} */]]")
    # a second message whose header is unreadable
    two = LO_ADDR + LO_ADDR
    text = decode_netlink(LO_ADDR, len(two), ROUTE, FL, 32, addr=at)
    assert text.startswith("[[{nlmsg_len=40, ") and text.endswith(f", ... /* {hex(at + 40)} */]")
    # without addr the same bytes are a capture cut short: dots, no address
    assert "0x" not in decode_netlink(LO_ADDR[:30], n, ROUTE, FL, 32)


@settings(deadline=None, max_examples=300)
@given(data=st.binary(max_size=300), extra=st.integers(0, 300),
       family=st.sampled_from([-1, ROUTE, SOCK_DIAG, 12, 99]), limit=st.integers(0, 40))
def test_partial_memory_never_raises(data: bytes, extra: int, family: int, limit: int) -> None:
    text = decode_netlink(data, len(data) + extra, family, FL, limit, addr=0x1000)
    assert isinstance(text, str) and text


_PIECES = st.one_of(
    st.builds(lambda t, p, n: msg(t, p, nlen=n), st.integers(0, 0xFFFF),
              st.binary(max_size=80), st.one_of(st.none(), st.integers(0, 200))),
    st.builds(lambda t, d, n: nla(t, d, n), st.integers(0, 0xFFFF), st.binary(max_size=40),
              st.one_of(st.none(), st.integers(0, 100))))


@settings(deadline=None, max_examples=400)
@given(types=st.lists(st.sampled_from([2, 3, 16, 18, 20, 24, 26, 20]), min_size=1,
                      max_size=4),
       tails=st.lists(_PIECES, max_size=6), cut=st.integers(0, 400),
       family=st.sampled_from([-1, ROUTE, SOCK_DIAG]), flags=st.integers(0, 0xFFFF))
def test_plausible_messages_never_raise(types: list[int], tails: list[bytes], cut: int,
                                        family: int, flags: int) -> None:
    """Real headers of the decoded types around garbage payloads, in a capture cut
    anywhere."""
    body = b"".join(tails)
    data = b"".join(msg(t, body, flags=flags) for t in types)
    text = decode_netlink(data[:cut], len(data), family, FL, 32)
    assert isinstance(text, str) and text


def _nl_fd(fd: int, protocol: int, portid: int, netns: int = 0) -> Capture:
    desc = _FD_DESC.pack(fd, 0o140000, 0, 0, 1234, socket.AF_NETLINK, protocol, 0, 0, portid,
                         0, 0, b"", b"", b"NETLINK", b"", netns)
    return Capture(arg=CAP_ARG_FD, kind=CAP_FD, flags=0, data=desc)


def test_sendto_decodes_on_a_netlink_socket_only(dec: SyscallDecoder) -> None:
    buf = msg(22, struct.pack("<BBBBI", 0, 0, 0, 0, 0), flags=0x301)
    cap = Capture(arg=1, kind=CAP_BUF, flags=0, data=buf)
    route = call("sendto", (3, 0x1000, len(buf), 0), len(buf), (cap, _nl_fd(3, ROUTE, 77)))
    assert args(dec, route).startswith(
        "3, [{nlmsg_len=24, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP")
    unbound = call("sendto", (3, 0x1000, len(buf), 0), len(buf), (cap, _nl_fd(3, ROUTE, 0)))
    assert "nlmsg_type=0x16 /* NLMSG_??? */" in args(dec, unbound)
    # a socket of tracekit's network namespace, and of another (unknown to sock_diag)
    own = os.stat("/proc/self/ns/net").st_ino
    here = call("sendto", (3, 0x1000, len(buf), 0), len(buf), (cap, _nl_fd(3, ROUTE, 77, own)))
    assert "nlmsg_type=RTM_GETADDR" in args(dec, here)
    away = call("sendto", (3, 0x1000, len(buf), 0), len(buf),
                (cap, _nl_fd(3, ROUTE, 77, own + 1)))
    assert "nlmsg_type=0x16 /* NLMSG_??? */" in args(dec, away)
    plain = call("sendto", (3, 0x1000, len(buf), 0), len(buf), (cap,))
    assert args(dec, plain).startswith('3, "\\30\\0\\0\\0')
    # NETLINK_GENERIC: the header, its type named by the kernel's generic families (ids
    # differ between machines), the payload in hex as strace prints it
    generic = call("sendto", (3, 0x1000, len(buf), 0), len(buf), (cap, _nl_fd(3, 16, 77)))
    text = args(dec, generic)
    assert text.startswith("3, [{nlmsg_len=24, nlmsg_type="), text
    assert 'nlmsg_seq=7, nlmsg_pid=0}, "\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"]' in text, text


def test_fields_as_strace_prints_them_found_by_fuzzing() -> None:
    """Messages of tests/decode/test_netlink_fuzz.py's strategies sent with sendto by a
    real process and traced by strace 6.1 and tracekit (in a network namespace of their
    own): where the two differed. strace's decode_nla_ip_proto reads every byte of the
    attribute (up to 8): INET_DIAG_PROTOCOL 0 is IPPROTO_IP, 3 bytes "tun" are
    0x6e7574 /* IPPROTO_??? */ (FRA_IP_PROTO as well); netlink_diag_msg's state is
    NETLINK_UNCONNECTED, NETLINK_CONNECTED or TCP_CLOSE, no other TCP state (strace 6.1
    measured: 2 is 0x2 /* NETLINK_??? */); unix_diag_vfs prints its
    dev first, as a makedev(); ifaddrlblmsg's flags are decimal."""
    sockid = bytes(48)
    tail = struct.pack("<IIIII", 0, 0, 0, 0, 0)
    inet = msg(20, struct.pack("<BBBB", 2, 1, 0, 0) + sockid + tail
               + nla(10, b"\0\0") + nla(10, b"tun"), flags=2)
    text = decode_netlink(inet, len(inet), SOCK_DIAG, FL, 32)
    assert "[{nla_len=6, nla_type=INET_DIAG_PROTOCOL}, IPPROTO_IP]" in text, text
    assert "[{nla_len=7, nla_type=INET_DIAG_PROTOCOL}, 0x6e7574 /* IPPROTO_??? */]" in text
    nl = msg(20, struct.pack("<BBBBIIIIII", 16, 3, 0, 0, 0, 0, 0, 0, 0, 0), flags=2)
    assert "ndiag_state=NETLINK_UNCONNECTED," in decode_netlink(nl, len(nl), SOCK_DIAG, FL, 32)
    for state, want in ((1, "NETLINK_CONNECTED"), (7, "TCP_CLOSE"),
                        (2, "0x2 /* NETLINK_??? */"), (10, "0xa /* NETLINK_??? */")):
        nl = msg(20, struct.pack("<BBBBIIIIII", 16, 3, 0, state, 0, 0, 0, 0, 0, 0), flags=2)
        assert f"ndiag_state={want}," in decode_netlink(nl, len(nl), SOCK_DIAG, FL, 32)
    unix = msg(20, struct.pack("<BBBxIII", 1, 1, 1, 9, 0, 0)
               + nla(1, struct.pack("<II", 4105438401, 592720247)), flags=2)
    assert ("[{nla_len=12, nla_type=UNIX_DIAG_VFS}, {udiag_vfs_dev=makedev(0x431, 0x23577), "
            "udiag_vfs_ino=4105438401}]") in decode_netlink(unix, len(unix), SOCK_DIAG, FL, 32)
    lbl = msg(72, struct.pack("<BxBBII", 10, 90, 165, 0, 3))
    assert "ifal_prefixlen=90, ifal_flags=165, " in decode_netlink(lbl, len(lbl), ROUTE, FL, 32)
    rule = msg(32, struct.pack("<BBBBBxxBI", 2, 0, 0, 0, 0, 0, 0) + nla(22, b"\x06\0"))
    assert "[{nla_len=6, nla_type=FRA_IP_PROTO}, IPPROTO_TCP]" in decode_netlink(
        rule, len(rule), ROUTE, FL, 32)


def test_a_string_attribute_cut_at_a_nul_ends_without_dots() -> None:
    """strace 6.1 -s 4 on a UNIX_DIAG_NAME of 8 NULs prints ``"\\0\\0\\0"``: the last of
    the -s bytes shown is a NUL, omitted, and no ``...`` (found by the fuzz strategies
    under strace); a NUL-less cut still ends with ``...``."""
    head = struct.pack("<BBBxIII", 1, 1, 1, 9, 0, 0)
    for data, want in ((bytes(8), '"\\0\\0\\0"]'), (b"ab\0cdefg", '"ab\\0c"...]'),
                       (b"abc\0efgh", '"abc"]')):
        m = msg(20, head + nla(0, data), flags=2)
        text = decode_netlink(m, len(m), SOCK_DIAG, FL, 4)
        assert text.endswith(f"UNIX_DIAG_NAME}}, {want}]"), text


# strace 6.1's decoders of the nlattr_* test programs: a request's bytecode, a reply's
# MD5 keys and addresses, a bridge's VLAN info, a neighbour's 6.1 attributes
INET_REQ = struct.pack("<BBBBI", socket.AF_INET, 6, 0, 0, 0x80) + bytes(48)
BYTECODE = INET_REQ + nla(1, struct.pack("<BBH", 7, 4, 8) + struct.pack("<BBxxI", 2, 8, 80)
                          + bytes([10, 11, 12, 13]))
INET_MSG = struct.pack("<BBBB", socket.AF_INET, 1, 0, 0) + bytes(48) + bytes(20)
MD5 = INET_MSG + nla(18, struct.pack("<BBH16s80s", 2, 24, 2, bytes([1, 2, 3, 4]), b"\x12\x34"))
LOCALS = INET_MSG + nla(12, struct.pack("<HH4s", 2, 0x9210, bytes([127, 0, 0, 1])) + bytes(120))
BR_LINK = struct.pack("<BxHiII", 7, 0, 1, 0, 0) + nla(
    26, nla(2, struct.pack("<HH", 3, 7) + b"\x7e\x7f") + nla(3, nla(1, b"\xef\xbe\xad\xde")))
NEIGH = struct.pack("<BxxxiHBB", 2, 1, 0x80, 0, 0) + nla(14, nla(1, b"\x03")) + nla(
    16, b"\0\0") + nla(10, b"\xef\xbe\xad\xde")
TC_STAB = struct.pack("<BxxxiIII", 0, 1, 0, 0, 0) + nla(8, nla(
    1, struct.pack("<BBhiIIII", 1, 2, -3, -4, 5, 6, 7, 8)) + nla(2, b"\x0a\0\x14\0\x1e"))
ROUTER = struct.pack("<BxxxI", 7, 1) + nla(2, nla(1, b"\1\0\0\0" + nla(2, b"\2")
                                                  + nla(1, b"\x94\xfb\x56\0")))
NEW_6_1 = [(ROUTE, msg(36, TC_STAB, flags=1)), (ROUTE, msg(86, ROUTER, flags=1)),
           (SOCK_DIAG, msg(20, BYTECODE, flags=1)), (SOCK_DIAG, msg(20, MD5)),
           (SOCK_DIAG, msg(20, LOCALS)), (ROUTE, msg(16, BR_LINK, flags=1)),
           (ROUTE, msg(28, NEIGH, flags=1))]


def test_decoders_of_strace_6_1_as_it_prints_them() -> None:
    texts = [decode_netlink(m, len(m), fam, FL, 32) for fam, m in NEW_6_1][2:]
    assert ("{code=INET_DIAG_BC_S_COND, yes=4, no=8}, {family=AF_INET, prefix_len=8, "
            'port=80, addr=inet_addr("10.11.12.13")}') in texts[0]
    assert ('[{tcpm_family=AF_INET, tcpm_prefixlen=24, tcpm_keylen=2, '
            'tcpm_addr=inet_addr("1.2.3.4"), tcpm_key="\\x12\\x34"}]') in texts[1]
    assert '[{sa_family=AF_INET, sin_port=htons(4242), sin_addr=inet_addr("127.0.0.1")}]' \
        in texts[2]
    assert ('{flags=BRIDGE_VLAN_INFO_MASTER|BRIDGE_VLAN_INFO_PVID, vid=7}, "\\x7e\\x7f"'
            in texts[3])
    assert "[{nla_len=8, nla_type=IFLA_BRIDGE_VLAN_TUNNEL_ID}, 3735928559]" in texts[3]
    assert "[{nla_len=5, nla_type=NFEA_ACTIVITY_NOTIFY}, " \
        "FDB_NOTIFY_BIT|FDB_NOTIFY_INACTIVE_BIT]" in texts[4]
    assert "NUD_NONE]" in texts[4] and "NDA_LINK_NETNSID}, 3735928559]" in texts[4]
    stab, router = (decode_netlink(m, len(m), fam, FL, 32) for fam, m in NEW_6_1[:2])
    assert "cell_align=-3, overhead=-4," in stab and "TCA_STAB_DATA}, [10, 20]]" in stab
    assert ('MDBA_ROUTER_PORT}, if_nametoindex("lo"), [[{nla_len=5, '
            "nla_type=MDBA_ROUTER_PATTR_TYPE}, MDB_RTR_TYPE_PERM], ") in router


def test_decoders_of_strace_6_1_on_memory_cut_anywhere() -> None:
    """Every cut of each message, as a capture cut short (dots) and as memory ending
    at an unmapped page (strace's addresses): text, never an exception; where memory
    ends inside the host condition that follows a bytecode op, the op is printed and
    the address of the condition after it, as strace's umove_or_printaddr."""
    at = 0x7F0000000000
    for fam, m in NEW_6_1:
        for k in range(len(m)):
            assert isinstance(decode_netlink(m[:k], len(m), fam, FL, 32), str)
            text = decode_netlink(m[:k], len(m), fam, FL, 32, addr=at)
            assert isinstance(text, str)
    m = msg(20, BYTECODE, flags=1)
    op_end = 16 + len(INET_REQ) + 4 + 4            # header, request, nlattr, op
    text = decode_netlink(m[:op_end + 3], len(m), SOCK_DIAG, FL, 32, addr=at)
    assert text.endswith(f"{{code=INET_DIAG_BC_S_COND, yes=4, no=8}}, {hex(at + op_end)}]]")
    text = decode_netlink(m[:op_end + 9], len(m), SOCK_DIAG, FL, 32, addr=at)
    assert text.endswith(f"port=80, addr={hex(at + op_end + 8)}}}]]")


@settings(deadline=None, max_examples=200)
@given(which=st.integers(0, len(NEW_6_1) - 1), junk=st.binary(min_size=1, max_size=40),
       at=st.integers(0, 300), extra=st.integers(0, 64), limit=st.integers(0, 40),
       fault=st.booleans())
def test_decoders_of_strace_6_1_on_hostile_bytes(which: int, junk: bytes, at: int,
                                                  extra: int, limit: int,
                                                  fault: bool) -> None:
    """Bytes overwritten anywhere in a message that reaches the new decoders (lengths,
    codes, families lie), the buffer longer than the bytes read."""
    fam, m = NEW_6_1[which]
    at = min(at, len(m))
    data = (m[:at] + junk + m[at + len(junk):])[:len(m)]
    text = decode_netlink(data, len(data) + extra, fam, FL, limit,
                          addr=0x1000 if fault else None)
    assert isinstance(text, str)
