"""Netlink messages and socket addresses under strace's ``-X raw`` and ``-X verbose``
(tracekit.decode.xstyle): constants as numbers, network-order fields (ports, flow
labels, addresses) and hardware addresses as their bytes, with the -X abbrev text as a
comment in verbose. The expected texts are those strace 6.1 prints for the same bytes."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import pytest

from tracekit.decode import flags as F, xstyle
from tracekit.decode.structs_netlink import decode_netlink
from tracekit.decode.values import format_hwaddr, format_inet, format_sockaddr

FL = F.for_arch("x86_64")


@pytest.fixture
def style(request: pytest.FixtureRequest) -> Iterator[None]:
    xstyle.set_style(request.param)
    try:
        yield
    finally:
        xstyle.set_style("abbrev")


def _nla(ntype: int, data: bytes) -> bytes:
    body = struct.pack("<HH", 4 + len(data), ntype) + data
    return body + b"\0" * (-len(body) % 4)


# RTM_NEWADDR (20), NLM_F_MULTI: 127.0.0.1/8 on lo, IFA_ADDRESS and IFA_LABEL
_PAYLOAD = (struct.pack("<BBBBI", socket.AF_INET, 8, 0x80, 254, 1)
            + _nla(1, bytes([127, 0, 0, 1])) + _nla(3, b"lo\0"))
NEWADDR = struct.pack("<IHHIi", 16 + len(_PAYLOAD), 20, 2, 7, 0) + _PAYLOAD

SIN6 = (struct.pack("<H", socket.AF_INET6) + struct.pack(">HI", 12345, 123456890)
        + socket.inet_pton(socket.AF_INET6, "12:34:56:78:90:ab:cd:ef") + bytes(4))
SIN = struct.pack("<H", socket.AF_INET) + struct.pack(">H", 80) + bytes([127, 0, 0, 1]) + bytes(8)
# AF_PACKET, ETH_P_ALL in network order, ifindex 1, ARPHRD_ETHER, PACKET_HOST, 6 bytes
SLL = struct.pack("<HHIHBB", 17, 0x0300, 1, 1, 0, 6) + b"abcdef\0\0"
_V6 = r'"\x00\x12\x00\x34\x00\x56\x00\x78\x00\x90\x00\xab\x00\xcd\x00\xef"'


def test_the_default_style_is_unchanged() -> None:
    assert decode_netlink(NEWADDR, len(NEWADDR), 0, FL, 32) == (
        "[{nlmsg_len=40, nlmsg_type=RTM_NEWADDR, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=7, "
        "nlmsg_pid=0}, {ifa_family=AF_INET, ifa_prefixlen=8, ifa_flags=IFA_F_PERMANENT, "
        'ifa_scope=RT_SCOPE_HOST, ifa_index=if_nametoindex("lo")}, [[{nla_len=8, '
        'nla_type=IFA_ADDRESS}, inet_addr("127.0.0.1")], [{nla_len=7, nla_type=IFA_LABEL}, '
        '"lo"]]]')
    assert format_sockaddr(SIN6) == (
        "{sa_family=AF_INET6, sin6_port=htons(12345), sin6_flowinfo=htonl(123456890), "
        'inet_pton(AF_INET6, "12:34:56:78:90:ab:cd:ef", &sin6_addr), sin6_scope_id=0}')
    assert format_sockaddr(SLL).startswith(
        '{sa_family=AF_PACKET, sll_protocol=htons(ETH_P_ALL), sll_ifindex=if_nametoindex("lo"), '
        "sll_hatype=ARPHRD_ETHER, sll_pkttype=PACKET_HOST, sll_halen=6, ")
    assert format_hwaddr(b"\xab\xcd\xef") == "ab:cd:ef"


@pytest.mark.parametrize("style", ["raw"], indirect=True)
def test_raw_prints_numbers_and_bytes(style: None) -> None:
    assert decode_netlink(NEWADDR, len(NEWADDR), 0, FL, 32) == (
        "[{nlmsg_len=40, nlmsg_type=0x14, nlmsg_flags=0x2, nlmsg_seq=7, nlmsg_pid=0}, "
        "{ifa_family=0x2, ifa_prefixlen=8, ifa_flags=0x80, ifa_scope=0xfe, ifa_index=1}, "
        r'[[{nla_len=8, nla_type=0x1}, "\x7f\x00\x00\x01"], [{nla_len=7, nla_type=0x3}, '
        '"lo"]]]')
    assert format_sockaddr(SIN6) == (
        r'{sa_family=0xa, sin6_port="\x30\x39", sin6_flowinfo="\x07\x5b\xcd\x7a", '
        f"sin6_addr={_V6}, sin6_scope_id=0}}")
    assert format_sockaddr(SIN) == \
        r'{sa_family=0x2, sin_port="\x00\x50", sin_addr="\x7f\x00\x00\x01"}'
    assert format_sockaddr(SLL) == (
        r'{sa_family=0x11, sll_protocol="\x00\x03", sll_ifindex=1, sll_hatype=0x1, '
        "sll_pkttype=0, sll_halen=6, sll_addr=[0x61, 0x62, 0x63, 0x64, 0x65, 0x66]}")
    assert format_hwaddr(b"\xab\xcd\xef") == r'"\xab\xcd\xef"'


@pytest.mark.parametrize("style", ["verbose"], indirect=True)
def test_verbose_adds_the_abbrev_text_as_a_comment(style: None) -> None:
    assert decode_netlink(NEWADDR, len(NEWADDR), 0, FL, 32) == (
        "[{nlmsg_len=40, nlmsg_type=0x14 /* RTM_NEWADDR */, nlmsg_flags=0x2 /* NLM_F_MULTI */, "
        "nlmsg_seq=7, nlmsg_pid=0}, {ifa_family=0x2 /* AF_INET */, ifa_prefixlen=8, "
        "ifa_flags=0x80 /* IFA_F_PERMANENT */, ifa_scope=0xfe /* RT_SCOPE_HOST */, "
        'ifa_index=1 /* if_nametoindex("lo") */}, [[{nla_len=8, nla_type=0x1 /* IFA_ADDRESS */}, '
        r'"\x7f\x00\x00\x01" /* inet_addr("127.0.0.1") */], [{nla_len=7, '
        'nla_type=0x3 /* IFA_LABEL */}, "lo"]]]')
    # the address's member is named as the others are: sin6_addr=..., not &sin6_addr
    assert format_sockaddr(SIN6) == (
        r'{sa_family=0xa /* AF_INET6 */, sin6_port="\x30\x39" /* htons(12345) */, '
        r'sin6_flowinfo="\x07\x5b\xcd\x7a" /* htonl(123456890) */, '
        f'sin6_addr={_V6} /* inet_pton(AF_INET6, "12:34:56:78:90:ab:cd:ef") */, '
        "sin6_scope_id=0}")
    assert format_sockaddr(SLL) == (
        r'{sa_family=0x11 /* AF_PACKET */, sll_protocol="\x00\x03" /* htons(ETH_P_ALL) */, '
        'sll_ifindex=1 /* if_nametoindex("lo") */, sll_hatype=0x1 /* ARPHRD_ETHER */, '
        "sll_pkttype=0 /* PACKET_HOST */, sll_halen=6, "
        "sll_addr=[0x61, 0x62, 0x63, 0x64, 0x65, 0x66]}")
    assert format_inet(bytes([10, 0, 0, 1]), "sin_addr") == \
        r'sin_addr="\x0a\x00\x00\x01" /* inet_addr("10.0.0.1") */'
    assert format_hwaddr(b"\xab\xcd\xef") == r'"\xab\xcd\xef" /* ab:cd:ef */'
