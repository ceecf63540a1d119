"""Socket call outputs as strace 6.1 prints them by default: the addresses accept,
getsockname, getpeername and recvfrom fill in, their in/out lengths, and setsockopt /
getsockopt levels, names and int values.

What strace prints (checked against strace 6.1 on Linux 6.18):

- ``accept4(3, {sa_family=AF_INET, sin_port=htons(58344), ...}, [16], SOCK_CLOEXEC)``:
  the address as long as the kernel's length says (the address of a failed call), and
  the length pointer as ``[16]``, or ``[128 => 16]`` when the call changed it;
- ``setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4)``,
  ``getsockopt(3, SOL_SOCKET, SO_TYPE, [2], [4])``: an int-sized value as ``[N]``,
  SO_LINGER as ``{l_onoff=1, l_linger=5}``, SO_PEERCRED as ``{pid=1, uid=0, gid=0}``,
  other values as their bytes;
- ``sendfile(6, 5, [0] => [10], 10)``, ``copy_file_range(5, [0], 6, NULL, 5, 0)``.

The lengths are captured twice (at entry and at exit, tracekit/session/capture.py); the
address at exit, as long as the length the kernel wrote (at most 128 bytes).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from tracekit._events import CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import capture, capture_out, succeeded
from tracekit.decode.values import format_ifindex, format_sockaddr, pointer, quote, signed
from tracekit.kernel.syscalls import errno_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["format_len_inout", "k_off_in", "k_off_inout", "kinds", "sockopt_name"]


def _int(data: bytes) -> int | None:
    return signed(int.from_bytes(data[:4], "little"), 32) if len(data) >= 4 else None


def _lens(ev: Syscall, i: int) -> tuple[int | None, int | None]:
    """The int at argument ``i`` before and after the call (None: not captured)."""
    caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_FAULT]
    before = _int(caps[0].data) if caps else None
    after = _int(caps[-1].data) if len(caps) >= 2 and succeeded(ev) else None
    return before, after


def format_len_inout(before: int, after: int | None) -> str:
    """An in/out length: ``[16]``, or ``[128 => 16]`` when the call changed it."""
    if after is None or after == before:
        return f"[{before}]"
    return f"[{before} => {after}]"


def k_len_inout(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    if ev.args[i] == 0:
        return "NULL"
    before, after = _lens(ev, i)
    return pointer(ev.args[i]) if before is None else format_len_inout(before, after)


def k_addrlen_inout(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """The address length of accept/getsockname/recvfrom (its address at ``i - 1``): as
    :func:`k_len_inout`, but strace reads it only with an address to fill, so beside a
    NULL address it is an address too (``getsockname(4, NULL, 0x7ffc...)``)."""
    if ev.args[i - 1] == 0:
        return pointer(ev.args[i])
    return k_len_inout(d, ev, i)


def _k_sockaddr_out(fl: F.ArchFlags) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """The address the call wrote at argument ``i``, its length pointer at ``i + 1``."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        if ev.args[i] == 0:
            return "NULL"
        cap = capture_out(ev, i)
        before, after = _lens(ev, i + 1)
        if cap is None or after is None:
            return pointer(ev.args[i])
        n = min(after, before if before is not None else after, len(cap.data))
        if n <= 0:                  # nothing written (recvfrom on a stream socket)
            return pointer(ev.args[i])
        return format_sockaddr(cap.data[:n], fl.tables.ADDRESS_FAMILIES)
    return k


def _off(ev: Syscall, i: int) -> tuple[int | None, int | None]:
    """A loff_t at argument ``i`` before and after the call (None: not captured)."""
    caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_FAULT and len(c.data) >= 8]
    before = signed(int.from_bytes(caps[0].data[:8], "little")) if caps else None
    after = (signed(int.from_bytes(caps[-1].data[:8], "little"))
             if len(caps) >= 2 and succeeded(ev) else None)
    return before, after


def k_off_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """An offset the call reads (copy_file_range, splice): ``[0]``."""
    if ev.args[i] == 0:
        return "NULL"
    before, _ = _off(ev, i)
    return pointer(ev.args[i]) if before is None else f"[{before}]"


def k_off_inout(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """sendfile's offset: ``[0] => [10]`` when the call moved bytes, else ``[0]``
    (strace prints the offset again only after a non-zero return)."""
    if ev.args[i] == 0:
        return "NULL"
    before, after = _off(ev, i)
    if before is None:
        return pointer(ev.args[i])
    if ev.ret == 0:
        after = None
    return f"[{before}]" if after is None else f"[{before}] => [{after}]"


def sockopt_name(fl: F.ArchFlags, level: int, name: int) -> str:
    """An option name of the level's table (SO_*, TCP_*, IP_*, IPV6_*, NETLINK_*, UDP_*,
    PACKET_*, SOL_RAW's ICMP_FILTER); an
    unnamed option of those levels as ``0x63 /* NETLINK_??? */``; of a level without a
    name in unsigned decimal (strace 6.1: ``0x7fffffff /* SOL_?? */, 4294967295``), of
    other named levels in decimal."""
    T = fl.tables
    tables: Mapping[str, Mapping[int, str]] = {
        "SOL_SOCKET": T.SO_NAMES, "SOL_TCP": T.TCP_NAMES, "SOL_IP": T.IP_NAMES,
        "SOL_IPV6": T.IPV6_NAMES, "SOL_NETLINK": T.NETLINK_SOCKOPTS,
        "SOL_UDP": T.UDP_NAMES, "SOL_PACKET": T.PACKET_SOCKOPTS,
        "SOL_RAW": {ICMP_FILTER: "ICMP_FILTER"}}
    lname = T.SOL_LEVELS.get(level & 0xFFFFFFFF, "")
    table = tables.get(lname)
    got = None if table is None else table.get(name & 0xFFFFFFFF)
    if got is not None:
        return got
    if table is not None:       # a level strace decodes: 0x270f /* SO_??? */
        return f"{hex(name & 0xFFFFFFFF)} /* {_UNKNOWN_OPT[lname]} */"
    if not lname:
        return str(name & 0xFFFFFFFF)
    return str(signed(name, 32))


# strace's default text of an unnamed option of each level it names the options of
_UNKNOWN_OPT = {"SOL_SOCKET": "SO_???", "SOL_TCP": "TCP_???", "SOL_IP": "IP_???",
                "SOL_IPV6": "IPV6_???", "SOL_NETLINK": "NETLINK_???", "SOL_UDP": "UDP_???",
                "SOL_PACKET": "PACKET_???", "SOL_RAW": "RAW_???"}


# setsockopt options strace 6.1 prints as an int whatever their length (an address when
# shorter than an int), and those it decodes as a struct (not as the default bytes)
_SET_INT_OPTS = frozenset({
    "SO_DEBUG", "SO_REUSEADDR", "SO_DONTROUTE", "SO_BROADCAST", "SO_SNDBUF", "SO_RCVBUF",
    "SO_KEEPALIVE", "SO_OOBINLINE", "SO_NO_CHECK", "SO_PRIORITY", "SO_BSDCOMPAT",
    "SO_REUSEPORT", "SO_PASSCRED", "SO_RCVLOWAT", "SO_SNDLOWAT", "SO_DETACH_FILTER",
    "SO_TIMESTAMP_OLD", "SO_ACCEPTCONN", "SO_SNDBUFFORCE", "SO_RCVBUFFORCE", "SO_PASSSEC",
    "SO_TIMESTAMPNS_OLD", "SO_MARK", "SO_TIMESTAMPING_OLD", "SO_RXQ_OVFL", "SO_WIFI_STATUS",
    "SO_PEEK_OFF", "SO_NOFCS", "SO_LOCK_FILTER", "SO_SELECT_ERR_QUEUE", "SO_BUSY_POLL",
    "SO_INCOMING_CPU", "SO_CNX_ADVICE", "SO_INCOMING_NAPI_ID", "SO_ZEROCOPY",
    "SO_TIMESTAMP_NEW", "SO_TIMESTAMPNS_NEW", "SO_TIMESTAMPING_NEW", "SO_DETACH_REUSEPORT_BPF",
    "SO_PREFER_BUSY_POLL", "SO_BUSY_POLL_BUDGET", "SO_RESERVE_MEM", "SO_RCVMARK"})
_SET_STRUCT_OPTS = frozenset({
    "SO_LINGER", "SO_ATTACH_FILTER", "SO_ATTACH_REUSEPORT_CBPF", "SO_TXREHASH",
    "IP_ADD_MEMBERSHIP", "IP_DROP_MEMBERSHIP", "MCAST_JOIN_GROUP", "MCAST_LEAVE_GROUP",
    "IP_LOCAL_PORT_RANGE", "IPV6_ADD_MEMBERSHIP", "IPV6_DROP_MEMBERSHIP", "IPV6_JOIN_ANYCAST",
    "IPV6_LEAVE_ANYCAST"})


def _optval(d: SyscallDecoder, ev: Syscall, i: int, n: int | None, out: bool) -> str:
    """An option value of ``n`` bytes: an int as ``[1]``, SO_LINGER's struct, SO_PEERCRED's
    struct ucred, the membership structs of setsockopt (:func:`_set_struct`), other
    values as their bytes (``"bbr\\0\\0..."``), as strace prints options it has no
    decoder for."""
    if ev.args[i] == 0:
        return "NULL"
    cap = capture_out(ev, i) if out else capture(ev, i)
    T = d.flags.tables
    level = T.SOL_LEVELS.get(ev.args[1] & 0xFFFFFFFF)
    so = T.SO_NAMES.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_SOCKET" else None
    ip = T.IP_NAMES.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_IP" else None
    if not out and (so in _SET_INT_OPTS or level == "SOL_NETLINK"):
        # an int option: its address when shorter than an int, else the int
        if n is None or n < 4 or cap is None or len(cap.data) < 4:
            return pointer(ev.args[i])
        return f"[{_int(cap.data)}]"
    if level == "SOL_RAW" and ev.args[2] & 0xFFFFFFFF == ICMP_FILTER:
        if n is None or n <= 0:
            return pointer(ev.args[i])
        n = min(n, 4)
        if cap is None or len(cap.data) < n:
            return pointer(ev.args[i])
        # the bytes not given keep the all-ones strace starts from
        return format_icmp_filter(int.from_bytes(cap.data[:n] + b"\xff" * (4 - n), "little"))
    if out and so == "SO_ERROR" and n is not None and 0 < n <= 4 and cap is not None \
            and len(cap.data) >= n:
        # the error as its name; a shorter value as its bytes, in hex
        if n < 4:
            return quote(cap.data[:n], force_hex=True)
        err = int.from_bytes(cap.data[:4], "little")
        name = errno_name(err) if err else "0"
        return f"[{name if name != f'E{err}' else err}]"
    ip6 = T.IPV6_NAMES.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_IPV6" else None
    if (not out and n == 0 and not {so, ip, ip6} & _SET_STRUCT_OPTS
            and level not in ("SOL_PACKET", "SOL_RAW")):
        return '""'                     # strace's default: the value's 0 bytes
    if cap is None or n is None or n <= 0 or len(cap.data) < min(n, 4):
        return pointer(ev.args[i])
    if not out:
        text = _set_struct(so, ip, ip6, cap.data[:n])
        if text is not None:
            return pointer(ev.args[i]) if text == "" else text
    fields = _GET_STRUCTS.get(so or "") if out else None
    if fields is not None and n >= 4 and len(cap.data) >= min(n, 4 * len(fields)):
        # getsockopt's struct linger / ucred: the fields the returned length holds
        got = [f"{name}={int.from_bytes(cap.data[4 * k:4 * k + 4], 'little', signed=sig)}"
               for k, (name, sig) in enumerate(fields) if 4 * k + 4 <= n]
        return "{" + ", ".join(got) + "}"
    if n == 4:
        return f"[{_int(cap.data)}]"
    data = cap.data[:n]
    return quote(data, limit=d.string_limit, more=len(data) < n)


#: SOL_RAW's one option (linux/icmp.h)
ICMP_FILTER = 1
# the ICMP types of linux/icmp.h, the bits of struct icmp_filter
_ICMP_TYPES = {0: "ICMP_ECHOREPLY", 3: "ICMP_DEST_UNREACH", 4: "ICMP_SOURCE_QUENCH",
               5: "ICMP_REDIRECT", 8: "ICMP_ECHO", 11: "ICMP_TIME_EXCEEDED",
               12: "ICMP_PARAMETERPROB", 13: "ICMP_TIMESTAMP", 14: "ICMP_TIMESTAMPREPLY",
               15: "ICMP_INFO_REQUEST", 16: "ICMP_INFO_REPLY", 17: "ICMP_ADDRESS",
               18: "ICMP_ADDRESSREPLY"}


def format_icmp_filter(value: int) -> str:
    """struct icmp_filter as strace 6.1 prints it, a set of 32 ICMP types like a signal
    mask: ``[ICMP_ECHOREPLY 0x1f /* ICMP_??? */]``, the types not in it as
    ``~[ICMP_ECHOREPLY]`` when more than half are."""
    bits = [k for k in range(32) if value >> k & 1]
    prefix = ""
    if len(bits) > 16:
        prefix, bits = "~", [k for k in range(32) if not value >> k & 1]
    names = [_ICMP_TYPES.get(k) or f"{k:#x} /* ICMP_??? */" for k in bits]
    return prefix + "[" + " ".join(names) + "]"


# getsockopt's structs of 4-byte fields: (name, signed) in order
_GET_STRUCTS: dict[str, tuple[tuple[str, bool], ...]] = {
    "SO_LINGER": (("l_onoff", True), ("l_linger", True)),
    "SO_PEERCRED": (("pid", True), ("uid", False), ("gid", False)),
}


def _set_struct(so: str | None, ip: str | None, ip6: str | None, data: bytes) -> str | None:
    """A setsockopt value strace decodes as a struct: SO_LINGER's struct linger, IP_ADD/
    DROP_MEMBERSHIP's struct ip_mreq (of an ip_mreqn too: its first 8 bytes), IPV6_ADD/
    DROP_MEMBERSHIP's struct ipv6_mreq; "" when ``data`` is shorter than the struct
    (strace prints the address); None for other options."""
    if so == "SO_LINGER":
        if len(data) < 8:
            return ""
        return f"{{l_onoff={_int(data)}, l_linger={_int(data[4:])}}}"
    if ip in ("IP_ADD_MEMBERSHIP", "IP_DROP_MEMBERSHIP"):
        if len(data) < 8:
            return ""
        group, iface = ipaddress.IPv4Address(data[:4]), ipaddress.IPv4Address(data[4:8])
        return f'{{imr_multiaddr=inet_addr("{group}"), imr_interface=inet_addr("{iface}")}}'
    if ip6 in ("IPV6_ADD_MEMBERSHIP", "IPV6_DROP_MEMBERSHIP"):
        if len(data) < 20:
            return ""
        group6 = socket.inet_ntop(socket.AF_INET6, data[:16])
        index = int.from_bytes(data[16:20], "little")
        return (f'{{inet_pton(AF_INET6, "{group6}", &ipv6mr_multiaddr), '
                f"ipv6mr_interface={format_ifindex(index)}}}")
    return None


def kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, int], str]]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    T = fl.tables
    return {
        "sockaddr_out": _k_sockaddr_out(fl),
        "len_inout": k_len_inout,
        "addrlen_inout": k_addrlen_inout,
        # strace 6.1: an unnamed level is 0x3039 /* SOL_?? */ (two question marks)
        "sollevel": lambda d, ev, i: (T.SOL_LEVELS.get(ev.args[i] & 0xFFFFFFFF)
                                      or f"{hex(ev.args[i] & 0xFFFFFFFF)} /* SOL_?? */"),
        "sockopt": lambda d, ev, i: sockopt_name(fl, ev.args[i - 1], ev.args[i]),
        # setsockopt's value: as long as its optlen argument
        "optval_in": lambda d, ev, i: _optval(d, ev, i, signed(ev.args[i + 1], 32), False),
        # getsockopt's value: as long as the optlen the kernel wrote
        "optval_out": lambda d, ev, i: _optval(d, ev, i, _lens(ev, i + 1)[1], True),
        "off_in": k_off_in,
        "off_inout": k_off_inout,
    }
