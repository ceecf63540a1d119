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
from types import ModuleType
from typing import TYPE_CHECKING

from tracekit._events import (
    CAP_BUF,
    CAP_STRUCT,
    CAPF_DEREF,
    CAPF_FAULT,
    SC_COMPAT,
    Capture,
    Syscall,
)
from tracekit.decode import flags as F
from tracekit.decode.captures import capture_out, succeeded
from tracekit.decode.structs_cbpf import fprog_text, got_filter_text
from tracekit.decode.values import (
    format_hwaddr,
    format_ifindex,
    format_sockaddr,
    pointer,
    quote,
    signed,
    xval,
)
from tracekit.kernel.syscalls import errno_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["SETSOCKOPT_FIXED", "format_len_inout", "k_off_in", "k_off_inout", "kinds",
           "sockopt_name"]

# setsockopt's value read at its sizes strace reads whatever optlen says (an int, struct
# ip_mreq and linger, ipv6_mreq, group_req): what shows when optlen runs past the end of
# the value's mapping and the read of optlen bytes faults
SETSOCKOPT_FIXED = (4, 8, 20, 136)


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


def sockopt_name(fl: F.ArchFlags, level: int, name: int, get: bool = False) -> str:
    """An option name of the level's table (``SO_REUSEADDR``, ``TCP_NODELAY``,
    ``ALG_SET_KEY``...; ``get``: getsockopt's, whose netfilter options of SOL_IP and
    SOL_IPV6 and SO_GET_FILTER are named apart); an unnamed option of those levels as
    ``0x63 /* NETLINK_??? */`` (``0 /* IP_??? */``: C's ``%#x``); of a level without a
    name in unsigned decimal (strace 6.1: ``0x7fffffff /* SOL_?? */, 4294967295``), of
    other named levels in decimal."""
    lname = fl.tables.SOL_LEVELS.get(level & 0xFFFFFFFF, "")
    tables = _sockopt_tables(fl)
    table = tables.get(lname)
    opt = name & 0xFFFFFFFF
    if table is not None:
        got = (table[2] if get else table[1]).get(opt) or table[0].get(opt)
        if got is not None:
            return F.styled_word(opt, got)          # -X raw: 0x2
        # a level strace decodes: 0x270f /* SO_??? */ (-X raw: 0x270f)
        return xval({}, opt, table[3])
    if not lname:
        return str(opt)
    return str(signed(name, 32))


# level -> (its options' table, setsockopt's own names, getsockopt's own names, the
# comment of an unnamed option), per arch
_SOCKOPT_LEVELS = (
    ("SOL_SOCKET", "SO_NAMES", "", "SO_GET_NAMES", "SO_???"),
    ("SOL_IP", "IP_SOCKOPTS", "IP_SET_SOCKOPTS", "IP_GET_SOCKOPTS", "IP_???"),
    ("SOL_IPV6", "IPV6_NAMES", "IPV6_SET_SOCKOPTS", "IPV6_GET_SOCKOPTS", "IPV6_???"),
    ("SOL_TCP", "TCP_NAMES", "", "", "TCP_???"),
    ("SOL_UDP", "UDP_NAMES", "", "", "UDP_???"),
    ("SOL_NETLINK", "NETLINK_SOCKOPTS", "", "", "NETLINK_???"),
    ("SOL_PACKET", "PACKET_SOCKOPTS", "", "", "PACKET_???"),
    ("AF_VSOCK", "VSOCK_SOCKOPTS", "", "", "SO_VM_???"),
    ("SOL_CAN_RAW", "CAN_RAW_SOCKOPTS", "", "", "CAN_RAW_???"),
    ("SOL_SCTP", "SCTP_SOCKOPTS", "", "", "SCTP_???"),
    ("SOL_RAW", "RAW_SOCKOPTS", "", "", "RAW_???"),
    ("SOL_IPX", "IPX_SOCKOPTS", "", "", "IPX_???"),
    ("SOL_AX25", "AX25_SOCKOPTS", "", "", "AX25_???"),
    ("SOL_IRDA", "IRDA_SOCKOPTS", "", "", "IRLMP_???"),
    ("SOL_LLC", "LLC_SOCKOPTS", "", "", "LLC_OPT_???"),
    ("SOL_DCCP", "DCCP_SOCKOPTS", "", "", "DCCP_SOCKOPT_???"),
    ("SOL_TIPC", "TIPC_SOCKOPTS", "", "", "TIPC_???"),
    ("SOL_RXRPC", "RXRPC_SOCKOPTS", "", "", "RXRPC_???"),
    ("SOL_PPPOL2TP", "PPPOL2TP_SOCKOPTS", "", "", "PPPOL2TP_SO_???"),
    ("SOL_BLUETOOTH", "BT_SOCKOPTS", "", "", "BT_???"),
    ("SOL_PNPIPE", "PNPIPE_SOCKOPTS", "", "", "PNPIPE_???"),
    ("SOL_RDS", "RDS_SOCKOPTS", "", "", "RDS_???"),
    ("SOL_IUCV", "IUCV_SOCKOPTS", "", "", "SO_???"),
    ("SOL_CAIF", "CAIF_SOCKOPTS", "", "", "CAIFSO_???"),
    ("SOL_ALG", "ALG_SOCKOPTS", "", "", "ALG_???"),
    ("SOL_NFC", "NFC_SOCKOPTS", "", "", "NFC_LLCP_???"),
    ("SOL_KCM", "KCM_SOCKOPTS", "", "", "KCM_???"),
    ("SOL_TLS", "TLS_SOCKOPTS", "", "", "TLS_???"),
    ("SOL_XDP", "XDP_SOCKOPTS", "", "", "XDP_???"),
)
_SockoptTable = tuple[Mapping[int, str], Mapping[int, str], Mapping[int, str], str]
_sockopt_memo: dict[int, dict[str, _SockoptTable]] = {}


def _sockopt_tables(fl: F.ArchFlags) -> dict[str, _SockoptTable]:
    got = _sockopt_memo.get(id(fl.tables))
    if got is None:
        T = fl.tables
        none: Mapping[int, str] = {}
        got = _sockopt_memo[id(fl.tables)] = {
            level: (getattr(T, common), getattr(T, setn) if setn else none,
                    getattr(T, getn) if getn else none, unknown)
            for level, common, setn, getn, unknown in _SOCKOPT_LEVELS}
    return got


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
    "SO_PREFER_BUSY_POLL", "SO_BUSY_POLL_BUDGET", "SO_RESERVE_MEM", "SO_RCVMARK",
    "SO_TXREHASH"})
_SET_STRUCT_OPTS = frozenset({
    "SO_LINGER", "SO_ATTACH_FILTER", "SO_ATTACH_REUSEPORT_CBPF", "SO_TXREHASH",
    "IP_ADD_MEMBERSHIP", "IP_DROP_MEMBERSHIP", "MCAST_JOIN_GROUP", "MCAST_LEAVE_GROUP",
    "IP_LOCAL_PORT_RANGE", "IPV6_ADD_MEMBERSHIP", "IPV6_DROP_MEMBERSHIP", "IPV6_JOIN_ANYCAST",
    "IPV6_LEAVE_ANYCAST"})


def _set_capture(ev: Syscall, i: int, fixed: bool) -> Capture | None:
    """setsockopt's value: its optlen bytes (the CAP_BUF read) or, with ``fixed`` (an
    option strace reads at its own size) when that read faulted, the longest of the
    SETSOCKOPT_FIXED reads that did not (the same bytes, fewer of them)."""
    buf = best = None
    for c in ev.caps:
        if c.arg != i or c.flags & (CAPF_FAULT | CAPF_DEREF):
            continue
        if c.kind == CAP_BUF:
            buf = c
        elif c.kind == CAP_STRUCT and (best is None or len(c.data) > len(best.data)):
            best = c
    return buf if buf is not None or not fixed else best


def _optval(d: SyscallDecoder, ev: Syscall, i: int, n: int | None, out: bool) -> str:
    """An option value of ``n`` bytes: an int as ``[1]``, SO_LINGER's struct, SO_PEERCRED's
    struct ucred, the membership structs of setsockopt (:func:`_set_struct`), other
    values as their bytes (``"bbr\\0\\0..."``), as strace prints options it has no
    decoder for."""
    if ev.args[i] == 0:
        return "NULL"
    T = d.flags.tables
    level = T.SOL_LEVELS.get(ev.args[1] & 0xFFFFFFFF)
    so = T.SO_NAMES.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_SOCKET" else None
    ip = T.IP_SOCKOPTS.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_IP" else None
    ip6 = T.IPV6_NAMES.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_IPV6" else None
    if out and so == "SO_ATTACH_FILTER":            # SO_GET_FILTER: the instructions
        return got_filter_text(d, ev, i, _lens(ev, i + 1)[0], n)
    cap = capture_out(ev, i) if out else _set_capture(
        ev, i, so in _SET_INT_OPTS or level == "SOL_NETLINK"
        or (level == "SOL_RAW" and ev.args[2] & 0xFFFFFFFF == 1)       # ICMP_FILTER
        or bool({so, ip, ip6} & _SET_STRUCT_OPTS))
    if not out and (so in _SET_INT_OPTS or level == "SOL_NETLINK"):
        # an int option: its address when shorter than an int, else the int
        if n is None or n < 4 or cap is None or len(cap.data) < 4:
            return pointer(ev.args[i])
        return f"[{_int_text(T, so, signed(int.from_bytes(cap.data[:4], 'little'), 32))}]"
    if level == "SOL_RAW" and ev.args[2] & 0xFFFFFFFF == 1:        # ICMP_FILTER
        return _icmp_filter(T.ICMP_TYPES, cap, n, ev.args[i])
    packet = T.PACKET_SOCKOPTS.get(ev.args[2] & 0xFFFFFFFF) if level == "SOL_PACKET" else None
    if not out and (so in _EXACT_STRUCTS or packet in _EXACT_STRUCTS):
        # a struct strace decodes only at exactly its size (else the address)
        data = cap.data if cap is not None else b""
        name = so or packet or ""
        size = _EXACT_STRUCTS[name]
        if n != size or len(data) < size:
            return pointer(ev.args[i])
        compat = bool(ev.flags & SC_COMPAT)
        text = fprog_text(d, ev, i, sock=True) if so and not compat else None
        return text if text is not None else _exact_struct(T, name, data, compat)
    if not out and n == 0 and not {so, ip, ip6} & _SET_STRUCT_OPTS:
        return '""'                     # strace's default: the value's 0 bytes
    if cap is None or n is None or n <= 0 or len(cap.data) < min(n, 4):
        return pointer(ev.args[i])
    if not out:
        text = _set_struct(so, ip, ip6, cap.data[:n], T.ADDRESS_FAMILIES)
        if text is not None:
            return pointer(ev.args[i]) if text == "" else text
    if out and so in _GET_INT_OPTS:
        # an int option: its first int (SO_TIMESTAMPING's 8 bytes too); shorter, its
        # bytes in hex; SO_ERROR's int as the errno's name
        if n < 4:
            return quote(cap.data[:n], force_hex=True)
        if so == "SO_ERROR" and n == 4:
            err = int.from_bytes(cap.data[:4], "little")
            name = errno_name(err) if err else "0"
            return f"[{name if name != f'E{err}' else err}]"
        return f"[{_int_text(T, so, signed(int.from_bytes(cap.data[:4], 'little'), 32))}]"
    fields = (_GET_STRUCTS.get(so or "") or _GET_STRUCTS.get(packet or "")) if out else None
    if fields is not None and len(cap.data) >= min(n, 4 * len(fields)):
        # getsockopt's struct linger / ucred / tpacket_stats: the fields the returned
        # length holds, a field it cuts as its bytes in hex
        got = []
        for k, (name, kind) in enumerate(fields):
            field = cap.data[4 * k:min(4 * k + 4, n)]
            if not field:
                break
            if len(field) < 4:
                got.append(f"{name}={quote(field, force_hex=True)}")
                break
            value = int.from_bytes(field, "little", signed=kind == "d")
            got.append(f"{name}={-1 if kind == 'id' and value == 0xFFFFFFFF else value}")
        return "{" + ", ".join(got) + "}"
    if n == 4:
        return f"[{_int(cap.data)}]"
    data = cap.data[:n]
    return quote(data, limit=d.string_limit, more=len(data) < n)


# getsockopt's structs of 4-byte fields: (name, kind) in order; kind "d" signed, "u"
# unsigned, "id" a uid or gid (-1 for 0xffffffff, as strace prints them)
_GET_STRUCTS: dict[str, tuple[tuple[str, str], ...]] = {
    "SO_LINGER": (("l_onoff", "d"), ("l_linger", "d")),
    "SO_PEERCRED": (("pid", "d"), ("uid", "id"), ("gid", "id")),
    # struct tpacket_stats, and tpacket_stats_v3's third field (by the length only)
    "PACKET_STATISTICS": (("tp_packets", "u"), ("tp_drops", "u"), ("tp_freeze_q_cnt", "u")),
}
# getsockopt options strace 6.1 prints as an int ([1]), and as their bytes in hex when
# the length is below an int's
_GET_INT_OPTS = _SET_INT_OPTS | {"SO_ERROR"}


# setsockopt structs strace 6.1 decodes only when optlen is their exact size (x86_64;
# struct sock_fprog is 8 bytes for an i386 call)
_EXACT_STRUCTS = {"SO_ATTACH_FILTER": 16, "SO_ATTACH_REUSEPORT_CBPF": 16,
                  "PACKET_ADD_MEMBERSHIP": 16, "PACKET_DROP_MEMBERSHIP": 16,
                  "PACKET_RX_RING": 16, "PACKET_TX_RING": 16}


def _exact_struct(T: ModuleType, name: str, data: bytes, compat: bool) -> str:
    """struct sock_fprog (``{len=4, filter=0x...}``, the program itself not shown),
    struct packet_mreq, struct tpacket_req (linux/filter.h, linux/if_packet.h)."""
    if name.startswith("SO_"):
        count = int.from_bytes(data[:2], "little")
        addr = int.from_bytes(data[4:8] if compat else data[8:16], "little")
        return f"{{len={count}, filter={pointer(addr)}}}"
    if name.endswith("_RING"):
        fields = ("tp_block_size", "tp_block_nr", "tp_frame_size", "tp_frame_nr")
        values = [int.from_bytes(data[4 * k:4 * k + 4], "little") for k in range(4)]
        return "{" + ", ".join(f"{f}={v}" for f, v in zip(fields, values, strict=True)) + "}"
    index = int.from_bytes(data[:4], "little")
    kind = int.from_bytes(data[4:6], "little")
    alen = int.from_bytes(data[6:8], "little")
    return (f"{{mr_ifindex={format_ifindex(index)}, "
            f"mr_type={xval(T.PACKET_MR_TYPES, kind, 'PACKET_MR_???')}, "
            f"mr_alen={alen}, mr_address={format_hwaddr(data[8:8 + min(alen, 8)])}}}")


def _int_text(T: ModuleType, so: str | None, value: int) -> str:
    """An int option's value: SO_TXREHASH's by name (``SOCK_TXREHASH_ENABLED``,
    ``7 /* SOCK_TXREHASH_??? */``), any other in decimal."""
    if so == "SO_TXREHASH":
        return T.TXREHASH_VALUES.get(value) or f"{value} /* SOCK_TXREHASH_??? */"
    return str(value)


def _icmp_filter(types: Mapping[int, str], cap: Capture | None, n: int | None,
                 addr: int) -> str:
    """ICMP_FILTER's struct icmp_filter, a 32-bit set of ICMP types, as strace prints a
    set: ``[ICMP_ECHOREPLY 0x2 /* ICMP_??? */]``, or ``~[...]`` of the types not in it when
    more than half are; at most 4 bytes are read, over a set of all types (an optlen of
    2 leaves types 16-31 in)."""
    data = cap.data if cap is not None else None
    if n is None or n <= 0 or data is None or len(data) < min(n, 4):
        return pointer(addr)
    k = min(n, 4)
    word = 0xFFFFFFFF & ~((1 << 8 * k) - 1) | int.from_bytes(data[:k], "little")
    inverted = bin(word).count("1") * 2 > 32
    if inverted:
        word ^= 0xFFFFFFFF
    names = [types.get(b) or f"{b:#x} /* ICMP_??? */" for b in range(32) if word >> b & 1]
    return ("~[" if inverted else "[") + " ".join(names) + "]"


_GROUP_REQ = frozenset({"MCAST_JOIN_GROUP", "MCAST_LEAVE_GROUP"})


def _set_struct(so: str | None, ip: str | None, ip6: str | None, data: bytes,
                families: Mapping[int, str]) -> str | None:
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
    if ip in _GROUP_REQ or ip6 in _GROUP_REQ:
        if len(data) < 136:         # struct group_req: the interface, a sockaddr_storage
            return ""
        return (f"{{gr_interface={format_ifindex(int.from_bytes(data[:4], 'little'))}, "
                f"gr_group={format_sockaddr(data[8:136], families)}}}")
    if ip6 in ("IPV6_ADD_MEMBERSHIP", "IPV6_DROP_MEMBERSHIP", "IPV6_JOIN_ANYCAST",
               "IPV6_LEAVE_ANYCAST"):
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
        "sollevel": lambda d, ev, i: xval(T.SOL_LEVELS, ev.args[i] & 0xFFFFFFFF, "SOL_??"),
        "sockopt": lambda d, ev, i: sockopt_name(fl, ev.args[i - 1], ev.args[i]),
        "sockopt_get": lambda d, ev, i: sockopt_name(fl, ev.args[i - 1], ev.args[i], True),
        # setsockopt's value: as long as its optlen argument
        "optval_in": lambda d, ev, i: _optval(d, ev, i, signed(ev.args[i + 1], 32), False),
        # getsockopt's value: as long as the optlen the kernel wrote
        "optval_out": lambda d, ev, i: _optval(d, ev, i, _lens(ev, i + 1)[1], True),
        "off_in": k_off_in,
        "off_inout": k_off_inout,
    }
