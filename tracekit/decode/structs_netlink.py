"""Netlink messages as strace 6.1 prints them by default (its src/netlink.c, nlattr.c,
netlink_route.c, rtnl_*.c, netlink_sock_diag.c): the buffers of sendto, recvfrom, and
the iovecs of sendmsg, recvmsg (and sendmmsg, recvmmsg) on a netlink socket.

Shape of one message, ``len`` bytes (the buffer's length, or what a read returned)::

    {nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, ...}     header alone
    [{nlmsg_len=24, nlmsg_type=RTM_GETADDR, ...}, {ifa_family=AF_INET, ...}] header, payload
    [[{...}, {...}, [[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr("127.0.0.1")], ...]], ...]
                                                 several messages, attributes in arrays

- The header prints whole whatever its nlmsg_len; a payload follows when
  ``min(nlmsg_len, len) > 16``. Messages follow while ``NLMSG_ALIGN(nlmsg_len)`` leaves
  bytes of the buffer (a nlmsg_len under 16 ends the walk); the message and the attribute
  of a list past -s (32 by default) print as ``...``. Fewer than 16 (4) bytes where a
  header (an attribute) would be print as a hex string.
- nlmsg_type by the socket's protocol: NETLINK_ROUTE's ``RTM_*``, NETLINK_SOCK_DIAG's
  ``SOCK_DIAG_BY_FAMILY``, NETLINK_AUDIT's ``AUDIT_*``, NETLINK_XFRM's ``XFRM_MSG_*``
  (their payloads as hex strings, as strace's); below 16 (``NLMSG_MIN_TYPE``)
  ``NLMSG_*``; nlmsg_flags with the GET/NEW/DELETE request flags of the type
  (``NLM_F_REQUEST|NLM_F_DUMP``).
- Payloads: ``NLMSG_ERROR``'s ``{error=-ENODEV, msg=<the request>}`` (with an extended
  ACK, ``[{error=..., msg=...}, [attributes]]``), ``NLMSG_DONE``'s int; NETLINK_ROUTE's
  struct ifaddrmsg, ifinfomsg, rtmsg, fib_rule_hdr, ndmsg, tcmsg, netconfmsg,
  ifaddrlblmsg, rtgenmsg (RTM_*NSID, RTM_NEWCACHEREPORT), ndtmsg, nhmsg, br_port_msg,
  if_stats_msg, tcamsg and dcbmsg with their attributes (others as
  ``{family=AF_INET, data="\\x..."}``); NETLINK_SOCK_DIAG's inet_diag_req_v2 (and the
  old inet_diag_req), inet_diag_msg, unix_diag_req, unix_diag_msg, netlink_diag_req,
  netlink_diag_msg and packet_diag_req; anything else as a hex string. An attribute a
  decoder here does not know prints as a hex string, as strace prints the ones it has
  no decoder for.
- strace knows a netlink socket's protocol from sock_diag, which lists a socket once it
  has a port id: a sendto on a socket not bound yet prints generically
  (``nlmsg_type=0x14 /* NLMSG_??? */``). tracekit reads the protocol and the port id in
  the call (TK_CAP_FD, :func:`netlink_protocol`). NETLINK_KOBJECT_UEVENT and the
  protocols strace has decoders for that this module lacks (CRYPTO, GENERIC, NETFILTER,
  SELINUX) keep the plain string.

The bytes are those the BPF program captured (tracekit/session/capture.py: BUF_CAP of a
sendto/recvfrom buffer and of each iovec); past them the text ends with ``...`` where
strace, reading the whole buffer, would go on.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from tracekit._events import SC_NORETURN, SC_UNFINISHED, Syscall, fd_descs
from tracekit.decode import flags as F, xstyle
from tracekit.decode.captures import capture, readable
from tracekit.decode.structs_fs import makedev
from tracekit.decode.values import (
    eth_protocol,
    format_hwaddr,
    format_ifindex,
    format_inet,
    format_sockaddr,
    hex0,
    quote,
    signed,
    xval,
)
from tracekit.kernel.sockdiag import foreign_netns, genl_families
from tracekit.kernel.syscalls import errno_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["decode_netlink", "iov_decoder", "kinds", "netlink_protocol"]

NLMSG_HDR = struct.Struct("<IHHIi")         # struct nlmsghdr (linux/netlink.h), 16 bytes
NLA_HDR = struct.Struct("<HH")              # struct nlattr, 4 bytes
NLMSG_MIN_TYPE = 0x10
NLA_F_NESTED, NLA_F_NET_BYTEORDER = 1 << 15, 1 << 14
NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
_S_IFMT, _S_IFSOCK = 0o170000, 0o140000
_AF_NETLINK, _AF_BRIDGE = 16, 7
NETLINK_XFRM, NETLINK_AUDIT = 6, 9
NETLINK_NETFILTER = 12
# protocols whose messages strace prints through decoders this module does not have
# (linux/netlink.h numbers): SELINUX 7, KOBJECT_UEVENT 15 (uevents are strings), CRYPTO 21
_NOT_DECODED = frozenset({7, 15, 21})
NETLINK_GENERIC = 16
# NETLINK_XFRM's types by the flags their requests take (strace's netlink.c)
_XFRM_NEW = frozenset({"XFRM_MSG_NEWSA", "XFRM_MSG_NEWPOLICY", "XFRM_MSG_NEWAE",
                       "XFRM_MSG_NEWSADINFO", "XFRM_MSG_NEWSPDINFO"})
_XFRM_DEL = frozenset({"XFRM_MSG_DELSA", "XFRM_MSG_DELPOLICY"})
_XFRM_GET = frozenset({"XFRM_MSG_GETSA", "XFRM_MSG_GETPOLICY", "XFRM_MSG_GETAE",
                       "XFRM_MSG_GETSADINFO", "XFRM_MSG_GETSPDINFO"})


class _Cut(Exception):
    """The bytes needed were not captured."""


class _Fault(_Cut):
    """The bytes needed at offset ``off`` were not readable (the buffer's memory ended
    there: a FAULT|PARTIAL capture); strace prints the address it could not read."""

    def __init__(self, off: int) -> None:
        super().__init__(off)
        self.off = off


class _Printed(_Fault):
    """As :class:`_Fault`, and ``text`` is what strace prints of the object that could
    not be read whole (its fields read before the fault, then the address)."""

    def __init__(self, text: str, off: int) -> None:
        super().__init__(off)
        self.text = text


class _Ctx:
    """One buffer: the captured bytes, the socket's protocol, the tables; ``limit``:
    strace -s; ``verbose``: strace -v (lists whole, every field of a struct);
    ``hex_strings``: strings are printed in hex (strace -x, -xx)."""

    __slots__ = ("addr", "cut", "data", "elems", "family", "limit", "T", "fl", "verbose",
                 "hex_strings", "kind", "slave_kind")

    def __init__(self, data: bytes, family: int, fl: F.ArchFlags, limit: int,
                 verbose: bool, hex_strings: bool = False, addr: int | None = None) -> None:
        self.data = data
        self.addr = addr            # the buffer's address when data ends unreadable memory
        self.family = family
        self.fl = fl
        self.T = fl.tables
        self.limit = limit
        self.elems = 1 << 62 if verbose else limit
        self.verbose = verbose
        self.hex_strings = hex_strings
        self.cut = False
        self.kind = self.slave_kind = b""     # IFLA_LINKINFO's link kinds, as read

    def take(self, off: int, n: int) -> bytes:
        if off + n > len(self.data):
            raise _Cut if self.addr is None else _Fault(off)
        return self.data[off:off + n]

    def at(self, off: int) -> str:
        """The address of byte ``off`` of the buffer, as strace prints memory it could
        not read (only with ``addr``)."""
        return hex((self.addr or 0) + off)

    def printstr(self, off: int, n: int) -> bytes:
        """The bytes strace's printstr_ex shows of ``n`` at ``off``: at most -s; it reads
        one more (``max_strlen + 1``, util.c), so that one must be readable too."""
        if self.addr is not None:
            self.take(off, min(n, self.limit + 1))
        return self.take(off, min(n, self.limit))

    def hexstr(self, off: int, n: int) -> str:
        """strace's printstr_ex(QUOTE_FORCE_HEX): at most -s bytes, ``...`` past them;
        the address when they are unreadable."""
        try:
            data = self.printstr(off, n)
        except _Fault:
            return self.at(off)
        return quote(data, force_hex=True, more=n > len(data))


@functools.cache
def _flagset(bits: tuple[tuple[int, str], ...], dflt: str, zero: str) -> F.FlagSet:
    return F.FlagSet(bits, zero=zero, unknown=dflt)


def _flags(bits: tuple[tuple[int, str], ...], v: int, dflt: str, zero: str = "0") -> str:
    """A flag word: ``NLM_F_REQUEST|0x4000``, ``0x4000 /* NLM_F_??? */`` when no bit has a
    name, ``zero`` for none."""
    return _flagset(bits, dflt, zero)(v)


# -- the walk -------------------------------------------------------------------------

def decode_netlink(data: bytes, length: int, family: int, fl: F.ArchFlags,
                   limit: int, *, verbose: bool = False, hex_strings: bool = False,
                   addr: int | None = None) -> str:
    """``length`` bytes of netlink messages (``data``: those captured) on a socket of
    protocol ``family`` (NETLINK_ROUTE: 0; -1: not known), as strace prints them (module
    docstring). ``limit``: strace -s, the bytes of a string and the elements of a list;
    ``verbose`` (strace -v): lists are not cut; ``hex_strings``: the output prints
    strings in hex (strace -x, -xx; :func:`_nla_str`). ``addr``: the buffer's address
    when ``data`` is all that was readable of it (the memory after it is not mapped):
    strace reads each header, struct and attribute on its own and prints the address
    of the first it cannot read (``... /* 0x... */`` in a list)."""
    c = _Ctx(data, family, fl, limit, verbose, hex_strings, addr)
    try:
        return _messages(c, 0, length)
    except _Fault as e:
        return c.at(e.off)
    except _Cut:                # not even the first header was captured
        return "..."


def _messages(c: _Ctx, off: int, length: int) -> str:
    out: list[str] = []
    is_array = False
    elt = 0
    while True:
        if length < NLMSG_HDR.size:
            out.append(c.hexstr(off, length))
            break
        if elt == c.elems:
            out.append("...")
            break
        try:
            hdr = NLMSG_HDR.unpack(c.take(off, NLMSG_HDR.size))
        except _Fault:              # strace's fetch_nlmsghdr
            out.append(f"... /* {c.at(off)} */" if is_array else c.at(off))
            break
        except _Cut:
            out.append("...")
            c.cut = True
            break
        mlen = (hdr[0] + 3) & ~3
        next_len = 0
        if hdr[0] >= NLMSG_HDR.size:
            next_len = length - mlen if length >= mlen else 0
        if not is_array and next_len:
            is_array = True
        out.append(_message(c, hdr, off, length))
        if not next_len or c.cut:
            break
        off += mlen
        length = next_len
        elt += 1
    if c.cut and is_array and out[-1] != "...":
        out.append("...")           # elements past the capture
    text = ", ".join(out)
    return f"[{text}]" if is_array else text


def _message(c: _Ctx, hdr: tuple[int, int, int, int, int], off: int, length: int) -> str:
    """One message with its payload (strace's decode_nlmsghdr_with_payload)."""
    nlen, ntype, nflags, seq, pid = hdr
    head = (f"{{nlmsg_len={nlen}, nlmsg_type={_type(c, ntype)}, "
            f"nlmsg_flags={_nlm_flags(c, ntype, nflags)}, nlmsg_seq={seq}, nlmsg_pid={pid}}}")
    n = min(nlen, length)
    if n <= NLMSG_HDR.size:
        return head
    try:
        payload = _payload(c, ntype, nflags, off + NLMSG_HDR.size, n - NLMSG_HDR.size)
    except _Printed as e:
        payload = e.text
    except _Fault as e:             # a payload decoder's umove_or_printaddr
        payload = c.at(e.off)
    except _Cut:
        payload, c.cut = "...", True
    return f"[{head}, {payload}]"


def _type(c: _Ctx, t: int) -> str:
    if t >= NLMSG_MIN_TYPE:
        if c.family == NETLINK_ROUTE:
            return xval(c.T.RTM_TYPES, t, "RTM_???")
        if c.family == NETLINK_SOCK_DIAG:
            return xval(c.T.SOCK_DIAG_TYPES, t, "SOCK_DIAG_???")
        if c.family == NETLINK_AUDIT:
            return xval(c.T.AUDIT_TYPES, t, "AUDIT_???")
        if c.family == NETLINK_XFRM:
            return xval(c.T.XFRM_TYPES, t, "XFRM_MSG_???")
        if c.family == NETLINK_NETFILTER:
            return _nf_type(t)
        if c.family == NETLINK_GENERIC:     # by the families the kernel registered
            return xval(genl_families(), t, "GENERIC_FAMILY_???")
    return xval(c.T.NLMSG_TYPES, t, "NLMSG_???")


def _nlm_flags(c: _Ctx, t: int, v: int) -> str:
    T = c.T
    extra: tuple[tuple[int, str], ...] = ()
    if t < NLMSG_MIN_TYPE:
        if t == 2:                                      # NLMSG_ERROR
            extra = T.NLM_ACK_FLAGS
    elif c.family == NETLINK_ROUTE:
        kind = 2 if t == 49 else t & 3                  # RTM_DELACTION: GET's flags
        extra = {0: T.NLM_NEW_FLAGS, 1: T.NLM_DELETE_FLAGS, 2: T.NLM_GET_FLAGS}.get(kind, ())
    elif c.family == NETLINK_SOCK_DIAG:
        extra = T.NLM_GET_FLAGS
    elif c.family == NETLINK_XFRM:
        name = T.XFRM_TYPES.get(t)
        extra = (T.NLM_NEW_FLAGS if name in _XFRM_NEW else T.NLM_DELETE_FLAGS
                 if name in _XFRM_DEL else T.NLM_GET_FLAGS if name in _XFRM_GET else ())
    elif c.family == NETLINK_NETFILTER:
        nf = _NF_FLAG_KINDS.get(_nf_msg_name(t) or "")
        extra = (T.NLM_NEW_FLAGS if nf == "new" else T.NLM_DELETE_FLAGS if nf == "del"
                 else T.NLM_GET_FLAGS if nf == "get" else ())
    return _flags(T.NLM_FLAGS + extra, v, "NLM_F_???")


def _payload(c: _Ctx, t: int, nflags: int, off: int, n: int) -> str:
    if t == 2:                                          # NLMSG_ERROR
        return _error(c, off, n, bool(nflags & 0x100))  # NLM_F_CAPPED
    if t >= NLMSG_MIN_TYPE and c.family == NETLINK_ROUTE:
        return _route(c, t, off, n)
    if t >= NLMSG_MIN_TYPE and c.family == NETLINK_SOCK_DIAG:
        return _sock_diag(c, t, nflags, off, n)
    if t >= NLMSG_MIN_TYPE and c.family == NETLINK_NETFILTER:
        return _nfgenmsg(c, t, off, n)
    if t == 3 and n == 4:                               # NLMSG_DONE's int
        return str(struct.unpack("<i", c.take(off, 4))[0])
    return c.hexstr(off, n)


def _error(c: _Ctx, off: int, n: int, capped: bool) -> str:
    """struct nlmsgerr: the error and the request it answers (its header alone when
    NLM_F_CAPPED); with an extended ACK's attributes, ``[{error=..., msg=...}, [attrs]]``
    (strace 6.1)."""
    if n < 4 + NLMSG_HDR.size:     # strace 6.1: shorter than struct nlmsgerr, hex
        return c.hexstr(off, n)
    c.take(off, 4 + NLMSG_HDR.size)    # strace reads the struct whole
    err = struct.unpack("<i", c.take(off, 4))[0]
    text = "{error=" + (f"-{errno_name(-err)}" if -4096 < err < 0 else str(err))
    off, n = off + 4, n - 4
    if n:
        text += ", msg="
        hdr = NLMSG_HDR.unpack(c.take(off, NLMSG_HDR.size))
        payload = min(NLMSG_HDR.size if capped else hdr[0], n)
        text += _message(c, hdr, off, payload) + "}"
        if n > payload and not c.cut:
            # strace 6.1: the extended ACK's attributes after the struct, in an array
            return "[" + text + ", " + _attrs(c, off + payload, n - payload,
                                              c.T.NLMSGERR_ATTRS, "NLMSGERR_ATTR_???",
                                              _NLMSGERR) + "]"
        return text
    return text + "}"


def _need(c: _Ctx, text: str, off: int, size: int) -> bytes:
    """The ``size`` bytes of a struct at ``off`` whose first byte, the family, is
    printed in ``text`` (``{ifa_family=AF_INET, ``). strace reads the rest on its own
    (netlink_route.c, netlink_sock_diag.c: umoven_or_printaddr at the byte after the
    family); when it is not readable the struct prints as ``text``, its address, ``}``,
    and no attributes follow."""
    try:
        return c.take(off, size)
    except _Fault:
        raise _Printed(f"{text}{c.at(off + 1)}}}", off + 1) from None


def _rest(c: _Ctx, text: str, off: int, s: struct.Struct) -> tuple[int, ...]:
    """The fields of struct ``s`` at ``off`` (:func:`_need`)."""
    return s.unpack(_need(c, text, off, s.size))


def _elem(c: _Ctx, out: list[str], at: int, size: int) -> bytes | None:
    """One element of an array at ``at`` (strace's print_array reads each on its own):
    None when it is unreadable, and ``... /* 0x... */`` appended to ``out``, the elements
    printed before it; the first unreadable raises (the array prints as its address)."""
    try:
        return c.take(at, size)
    except _Fault:
        if not out:
            raise
        out.append(f"... /* {c.at(at)} */")
        return None


# -- attributes -----------------------------------------------------------------------

# an attribute's decoder: (ctx, offset, length) -> text, or None for strace's default
# (a hex string of the data)
Nla = Callable[[_Ctx, int, int], "str | None"]


_BY_VALUE: dict[tuple[int, int], dict[int, Nla]] = {}


def _by_value(names: Mapping[int, str], decoders: Mapping[str, Nla]) -> dict[int, Nla]:
    """``decoders`` (by attribute name) keyed by the values of ``names`` (an arch's
    table, which lives as long as the process: its id is a stable key)."""
    key = (id(names), id(decoders))
    got = _BY_VALUE.get(key)
    if got is None:
        got = _BY_VALUE[key] = {v: decoders[n] for v, n in names.items() if n in decoders}
    return got


def _attrs(c: _Ctx, off: int, length: int, names: Mapping[int, str], dflt: str | None,
           by_name: Mapping[str, Nla]) -> str:
    """A list of struct nlattr (strace's decode_nlattr); ``by_name``: the decoders of
    the attributes by name."""
    decoders = _by_value(names, by_name)
    out: list[str] = []
    is_array = False
    elt = 0
    while True:
        if length < NLA_HDR.size:
            out.append(c.hexstr(off, length))
            break
        if elt == c.elems:
            out.append("...")
            break
        try:
            nla_len, nla_type = NLA_HDR.unpack(c.take(off, NLA_HDR.size))
        except _Fault:              # strace's fetch_nlattr
            out.append(f"... /* {c.at(off)} */" if is_array else c.at(off))
            break
        except _Cut:
            out.append("...")
            c.cut = True
            break
        alen = (nla_len + 3) & ~3
        next_len = 0
        if nla_len >= NLA_HDR.size:
            next_len = length - alen if length >= alen else 0
        if not is_array and next_len:
            is_array = True
        out.append(_attr(c, nla_len, nla_type, off, length, names, dflt, decoders))
        if not next_len or c.cut:
            break
        off += alen
        length = next_len
        elt += 1
    if c.cut and is_array and out[-1] != "...":
        out.append("...")           # elements past the capture
    text = ", ".join(out)
    return f"[{text}]" if is_array else text


def _attr(c: _Ctx, nla_len: int, nla_type: int, off: int, length: int,
          names: Mapping[int, str], dflt: str | None, decoders: Mapping[int, Nla]) -> str:
    parts = []
    if nla_type & NLA_F_NESTED:
        parts.append("NLA_F_NESTED")
    if nla_type & NLA_F_NET_BYTEORDER:
        parts.append("NLA_F_NET_BYTEORDER")
    kind = nla_type & ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
    parts.append(xval(names, kind, dflt))
    head = f"{{nla_len={nla_len}, nla_type={'|'.join(parts)}}}"
    n = min(nla_len, length)
    if n <= NLA_HDR.size:
        return head
    off, n = off + NLA_HDR.size, n - NLA_HDR.size
    try:
        dec = decoders.get(kind)
        text = dec(c, off, n) if dec is not None else None
        if text is None:
            text = c.hexstr(off, n)
    except _Printed as e:
        text = e.text
    except _Fault:                  # the attribute's decoder could not read its data
        text = c.at(off)
    except _Cut:
        text, c.cut = "...", True
    return f"[{head}, {text}]"


def _int(fmt: str, size: int) -> Nla:
    """An integer attribute of ``size`` bytes; a shorter one prints as hex bytes."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < size:
            return None
        return str(struct.unpack(fmt, c.take(off, size))[0])
    return dec


_u8, _u16, _u32, _u64 = _int("<B", 1), _int("<H", 2), _int("<I", 4), _int("<Q", 8)
_s32 = _int("<i", 4)


def _nla_str(c: _Ctx, off: int, n: int) -> str:
    """A NUL-terminated string attribute: its trailing NUL omitted, ``...`` after it
    when it has none (strace's QUOTE_OMIT_TRAILING_0 | QUOTE_EXPECT_TRAILING_0). Where
    strings print in hex (-x: the NUL is a byte that asks for hex; -xx), strace 6.1
    keeps the NUL as any other byte, and adds ``...``: ``"\x6c\x6f\x00"...``, or
    ``"\x6c\x6f"...`` with -s 2. The NUL too must be within -s bytes: ``"lo"...``
    with -s 2. strace omits the last byte shown when it is a NUL, the string cut at -s
    or not, and then prints no ``...`` (string_quote's QUOTE_OMIT_TRAILING_0: 8 NULs
    with -s 4 print as three NULs, no dots)."""
    data = c.printstr(off, n)
    if data.endswith(b"\0") and not c.hex_strings:
        return quote(data[:-1])
    return quote(data, more=True)


def _ifindex(c: _Ctx, off: int, n: int) -> str | None:
    if n < 4:
        return None
    return format_ifindex(struct.unpack("<I", c.take(off, 4))[0])


def _inet(family: int) -> Nla:
    """An address of ``family``: ``inet_addr("127.0.0.1")``,
    ``inet_pton(AF_INET6, "::1")``; other families and short data as hex bytes."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        return _inet_text(c, family, off, n, "")
    return dec


def _inet_text(c: _Ctx, family: int, off: int, n: int, field: str) -> str | None:
    if family == socket.AF_INET and n >= 4:
        return format_inet(c.take(off, 4), field)
    if family == socket.AF_INET6 and n >= 16:
        return format_inet(c.take(off, 16), field)
    return None


def _flag_attr(table: str, dflt: str, size: int = 4, zero: str = "0") -> Nla:
    """strace's decode_nla_flags by an arch table: ``size`` bytes (shorter, or longer
    than 8 bytes: hex bytes); ``zero``: what no bit set prints as (``NUD_NONE``)."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < size or n > 8:
            return None
        v = int.from_bytes(c.take(off, size), "little")
        return _flags(getattr(c.T, table), v, dflt, zero)
    return dec


def _xval_attr(table: str, dflt: str | None, size: int = 4) -> Nla:
    """strace's decode_nla_xval: a value of ``size`` bytes, or (``size`` 0, as
    decode_nla_ip_proto) of all the attribute's bytes, up to 8."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < size or n > 8:
            return None
        v = int.from_bytes(c.take(off, size or n), "little")
        return xval(getattr(c.T, table), v, dflt)
    return dec


def _named(table: Mapping[int, str], dflt: str, size: int, flags: bool = False) -> Nla:
    """A value (strace's decode_nla_xval) or flags (decode_nla_flags) of ``size`` bytes
    by a fixed table; shorter, or longer than 8 bytes: hex bytes."""
    bits = tuple(sorted(table.items()))

    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < size or n > 8:
            return None
        v = int.from_bytes(c.take(off, size), "little")
        return _flags(bits, v, dflt) if flags else xval(table, v, dflt)
    return dec


def _xint(size: int | None = None) -> Nla:
    """strace's decode_nla_x32 (``size`` 4) or decode_nla_xint (any of 1, 2, 4, 8
    bytes): in hex, ``0`` for zero."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        k = size or n
        if n < k or k not in (1, 2, 4, 8) or (size is None and n != k):
            return None
        v = int.from_bytes(c.take(off, k), "little")
        return hex(v) if v else "0"
    return dec


def _struct_u(fmt: str, fields: tuple[str, ...], hex_fields: tuple[str, ...] = ()) -> Nla:
    """A struct of unsigned fields, printed whole (``hex_fields`` in hex, strace's
    PRINT_FIELD_X); shorter data as hex bytes."""
    s = struct.Struct(fmt)

    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < s.size:
            return None
        vals = s.unpack(c.take(off, s.size))
        return "{" + ", ".join(f"{f}={hex0(v) if f in hex_fields else v}"
                               for f, v in zip(fields, vals, strict=True)) + "}"
    return dec


def _struct_array(size: int, elem: Callable[[_Ctx, int, bytes], str]) -> Nla:
    """strace's print_array of the attribute's whole structs of ``size`` bytes, each
    printed by ``elem`` (context, index, bytes): at most -s of them (then ``...``); none
    whole: hex bytes."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        count = n // size
        if not count:
            return None
        out: list[str] = []
        for k in range(count):
            if k == c.elems:
                out.append("...")
                break
            raw = _elem(c, out, off + k * size, size)
            if raw is None:
                break
            out.append(elem(c, k, raw))
        return "[" + ", ".join(out) + "]"
    return dec


_NLMSGERR: dict[str, Nla] = {
    "NLMSGERR_ATTR_MSG": _nla_str, "NLMSGERR_ATTR_OFFS": _u32,
    "NLMSGERR_ATTR_COOKIE": _struct_array(1, lambda c, k, raw: str(raw[0]))}




# -- NETLINK_ROUTE --------------------------------------------------------------------

def _route(c: _Ctx, t: int, off: int, n: int) -> str:
    """NETLINK_ROUTE's payloads by type (strace's netlink_route.c); the family byte is
    read whatever the length."""
    family = c.take(off, 1)[0]
    name = c.T.RTM_TYPES.get(t, "")
    if name.endswith(("ADDR", "ANYCAST", "MULTICAST")) and "LABEL" not in name:
        return _ifaddrmsg(c, family, off, n)
    if name.endswith("LINK"):
        return _ifinfomsg(c, family, off, n)
    if name.endswith("ROUTE"):
        return _rtmsg(c, family, off, n)
    if name.endswith("RULE"):
        return _fib_rule_hdr(c, family, off, n)
    if name.endswith(("QDISC", "TCLASS", "TFILTER", "CHAIN")):
        return _tcmsg(c, family, off, n)
    if name.endswith("NETCONF"):
        return _family_only(c, "ncm_family", family, off, n, c.T.NETCONFA_ATTRS,
                            "NETCONFA_???", _NETCONFA)
    if name.endswith("NSID"):
        return _family_only(c, "rtgen_family", family, off, n, c.T.NETNSA_ATTRS,
                            "NETNSA_???", _NETNSA)
    if name.endswith("NEIGHTBL"):
        return _family_only(c, "ndtm_family", family, off, n, c.T.NDTA_ATTRS, "NDTA_???",
                            _NDTA)
    if name.endswith("ADDRLABEL"):
        return _ifaddrlblmsg(c, family, off, n)
    if name.endswith("NEXTHOP"):
        return _nhmsg(c, family, off, n)
    if name == "RTM_GETNEIGH" and family == _AF_BRIDGE:
        return _ifinfomsg(c, family, off, n)        # bridge fdb show's request
    if name.endswith("NEIGH"):
        return _ndmsg(c, family, off, n)
    if name.endswith("MDB"):
        return _br_port_msg(c, family, off, n)
    if name in ("RTM_NEWSTATS", "RTM_GETSTATS"):
        return _if_stats_msg(c, family, off, n)
    if name.endswith("ACTION"):
        text = f"{{tca_family={_family(c, family)}}}"
        if n > 4:
            text += ", " + _attrs(c, off + 4, n - 4, _TCA_ACT_ATTRS, "TCA_ACT_???", _TCA_ACT)
        return text
    if name in ("RTM_GETDCB", "RTM_SETDCB"):
        return _dcbmsg(c, family, off, n)
    if name == "RTM_NEWCACHEREPORT":
        return _cachereport(c, family, off, n)
    text = f"{{family={_family(c, family)}"
    if n > 1:
        text += f", data={c.hexstr(off + 1, n - 1)}"
    return text + "}"


# rtmsg's and fib_rule_hdr's tos: the IPTOS_* bits strace 6.1 names (netinet/ip.h)
_IPTOS = ((0x10, "IPTOS_LOWDELAY"), (0x08, "IPTOS_THROUGHPUT"), (0x04, "IPTOS_RELIABILITY"),
          (0x02, "IPTOS_MINCOST"))


def _tos(v: int) -> str:
    return _flags(_IPTOS, v, "IPTOS_TOS_???")


def _family(c: _Ctx, v: int) -> str:
    return xval(c.T.ADDRESS_FAMILIES, v, "AF_???")


# RTM_*MDB: struct br_port_msg (linux/if_bridge.h: the family, 3 bytes of padding, the
# bridge's ifindex), then MDBA_* attributes (MDBA_MDB's entries, MDBA_ROUTER's ports)
_MDBA_ATTRS = dict(enumerate(("MDBA_UNSPEC", "MDBA_MDB", "MDBA_ROUTER")))
_MDBA_MDB_ATTRS = dict(enumerate(("MDBA_MDB_UNSPEC", "MDBA_MDB_ENTRY")))
_MDBA_MDB_ENTRY_ATTRS = dict(enumerate(("MDBA_MDB_ENTRY_UNSPEC", "MDBA_MDB_ENTRY_INFO")))
_MDBA_ROUTER_ATTRS = dict(enumerate(("MDBA_ROUTER_UNSPEC", "MDBA_ROUTER_PORT")))


def _router_port(c: _Ctx, off: int, n: int) -> str | None:
    """MDBA_ROUTER_PORT: the port's ifindex, then MDBA_ROUTER_PATTR_* attributes."""
    text = _ifindex(c, off, n)
    if text is not None and n > 4:
        text += ", " + _attrs(c, off + 4, n - 4, _MDBA_ROUTER_PATTR_ATTRS,
                              "MDBA_ROUTER_PATTR_???", _MDBA_ROUTER_PATTR)
    return text


def _router_type(c: _Ctx, off: int, n: int) -> str:
    """MDBA_ROUTER_PATTR_TYPE: a u8 of MDB_RTR_TYPE_* (strace reads its first byte
    whatever the length)."""
    return xval(_MDB_RTR_TYPES, c.take(off, 1)[0], "MDB_RTR_TYPE_???")


_MDBA_ROUTER_PATTR_ATTRS = dict(enumerate("MDBA_ROUTER_PATTR_" + n for n in (
    "UNSPEC", "TIMER", "TYPE", "INET_TIMER", "INET6_TIMER")))
_MDB_RTR_TYPES = dict(enumerate("MDB_RTR_TYPE_" + n for n in (
    "DISABLED", "TEMP_QUERY", "PERM", "TEMP")))


def _nested(names: Mapping[int, str], dflt: str, by_name: Mapping[str, Nla]) -> Nla:
    def dec(c: _Ctx, off: int, n: int) -> str:
        return _attrs(c, off, n, names, dflt, by_name)
    return dec


_MDBA: dict[str, Nla] = {
    "MDBA_MDB": _nested(_MDBA_MDB_ATTRS, "MDBA_MDB_???", {
        "MDBA_MDB_ENTRY": _nested(_MDBA_MDB_ENTRY_ATTRS, "MDBA_MDB_ENTRY_???", {})}),
    "MDBA_ROUTER": _nested(_MDBA_ROUTER_ATTRS, "MDBA_ROUTER_???",
                           {"MDBA_ROUTER_PORT": _router_port}),
}


def _br_port_msg(c: _Ctx, family: int, off: int, n: int) -> str:
    text = f"{{family={_family(c, family)}, "
    if n < 8:
        return text + "...}"
    text += f"ifindex={format_ifindex(struct.unpack('<I', _need(c, text, off, 8)[4:])[0])}}}"
    if n > 8:
        text += ", " + _attrs(c, off + 8, n - 8, _MDBA_ATTRS, "MDBA_???", _MDBA)
    return text


# RTM_*STATS: struct if_stats_msg (linux/if_link.h: family, pad1, pad2, ifindex,
# filter_mask, a bit per IFLA_STATS_* attribute), then IFLA_STATS_* attributes
_IFLA_STATS = ("IFLA_STATS_UNSPEC", "IFLA_STATS_LINK_64", "IFLA_STATS_LINK_XSTATS",
               "IFLA_STATS_LINK_XSTATS_SLAVE", "IFLA_STATS_LINK_OFFLOAD_XSTATS",
               "IFLA_STATS_AF_SPEC")
_IFLA_STATS_ATTRS = dict(enumerate(_IFLA_STATS))
_IFLA_STATS_MASK = tuple((1 << k, f"1<<{n}") for k, n in enumerate(_IFLA_STATS))
_IF_STATS_MSG = struct.Struct("<BBHII")


_BRIDGE_VLAN_FLAGS = tuple((1 << k, "BRIDGE_VLAN_INFO_" + n) for k, n in enumerate((
    "MASTER", "PVID", "UNTAGGED", "RANGE_BEGIN", "RANGE_END", "BRENTRY", "ONLY_OPTS")))
_BRIDGE_VLAN_XSTATS = struct.Struct("<QQQQHHI")     # struct bridge_vlan_xstats
_BR_MCAST_FIELDS = (                                # struct br_mcast_stats: "+" an array
    "+igmp_v1queries", "+igmp_v2queries", "+igmp_v3queries", "+igmp_leaves",
    "+igmp_v1reports", "+igmp_v2reports", "+igmp_v3reports", "igmp_parse_errors",
    "+mld_v1queries", "+mld_v2queries", "+mld_leaves", "+mld_v1reports",
    "+mld_v2reports", "mld_parse_errors", "+mcast_bytes", "+mcast_packets")
_BR_MCAST_SIZE = sum(16 if f[0] == "+" else 8 for f in _BR_MCAST_FIELDS)
_BRIDGE_STP_FIELDS = ("transition_blk", "transition_fwd", "rx_bpdu", "tx_bpdu",
                      "rx_tcn", "tx_tcn")


def _with_rest(c: _Ctx, text: str, off: int, size: int, n: int) -> str:
    """A struct of ``size`` bytes, then the attribute's bytes past it in hex."""
    return text if n <= size else f"{text}, {c.hexstr(off + size, n - size)}"


def _bridge_vlan_xstats(c: _Ctx, off: int, n: int) -> str | None:
    size = _BRIDGE_VLAN_XSTATS.size
    if n < size:
        return None
    rxb, rxp, txb, txp, vid, flags, pad2 = _BRIDGE_VLAN_XSTATS.unpack(c.take(off, size))
    text = (f"{{rx_bytes={rxb}, rx_packets={rxp}, tx_bytes={txb}, tx_packets={txp}, "
            f"vid={vid}, flags={_flags(_BRIDGE_VLAN_FLAGS, flags, 'BRIDGE_VLAN_INFO_???')}"
            f"{f', pad2={pad2:#x}' if pad2 else ''}}}")
    return _with_rest(c, text, off, size, n)


def _br_mcast_stats(c: _Ctx, off: int, n: int) -> str | None:
    if n < _BR_MCAST_SIZE:
        return None
    out, at = [], off
    for f in _BR_MCAST_FIELDS:
        if f[0] == "+":
            rx, tx = struct.unpack("<QQ", c.take(at, 16))
            out.append(f"{f[1:]}=[[BR_MCAST_DIR_RX]={rx}, [BR_MCAST_DIR_TX]={tx}]")
            at += 16
        else:
            out.append(f"{f}={struct.unpack('<Q', c.take(at, 8))[0]}")
            at += 8
    return _with_rest(c, "{" + ", ".join(out) + "}", off, _BR_MCAST_SIZE, n)


def _bridge_stp_xstats(c: _Ctx, off: int, n: int) -> str | None:
    size = 8 * len(_BRIDGE_STP_FIELDS)
    if n < size:
        return None
    vals = struct.unpack(f"<{len(_BRIDGE_STP_FIELDS)}Q", c.take(off, size))
    text = ", ".join(f"{f}={v}" for f, v in zip(_BRIDGE_STP_FIELDS, vals, strict=True))
    return _with_rest(c, "{" + text + "}", off, size, n)


_BOND_3AD_ATTRS = dict(enumerate("BOND_3AD_STAT_" + n for n in (
    "LACPDU_RX", "LACPDU_TX", "LACPDU_UNKNOWN_RX", "LACPDU_ILLEGAL_RX", "MARKER_RX",
    "MARKER_TX", "MARKER_RESP_RX", "MARKER_RESP_TX", "MARKER_UNKNOWN_RX", "PAD")))
_XSTATS_TYPES = dict(enumerate(("LINK_XSTATS_TYPE_UNSPEC", "LINK_XSTATS_TYPE_BRIDGE",
                                "LINK_XSTATS_TYPE_BOND")))
# IFLA_STATS_LINK_XSTATS(_SLAVE): nested by LINK_XSTATS_TYPE_*, each nested again
_LINK_XSTATS = _nested(_XSTATS_TYPES, "LINK_XSTATS_TYPE_???", {
    "LINK_XSTATS_TYPE_BRIDGE": _nested(
        dict(enumerate(("BRIDGE_XSTATS_UNSPEC", "BRIDGE_XSTATS_VLAN",
                        "BRIDGE_XSTATS_MCAST", "BRIDGE_XSTATS_PAD", "BRIDGE_XSTATS_STP"))),
        "BRIDGE_XSTATS_???", {"BRIDGE_XSTATS_VLAN": _bridge_vlan_xstats,
                              "BRIDGE_XSTATS_MCAST": _br_mcast_stats,
                              "BRIDGE_XSTATS_STP": _bridge_stp_xstats}),
    "LINK_XSTATS_TYPE_BOND": _nested(
        {0: "BOND_XSTATS_UNSPEC", 1: "BOND_XSTATS_3AD"}, "BOND_XSTATS_???", {
            "BOND_XSTATS_3AD": _nested(_BOND_3AD_ATTRS, "BOND_XSTATS_???", {
                n: _u64 for n in _BOND_3AD_ATTRS.values() if not n.endswith("PAD")})}),
})


def _if_stats_msg(c: _Ctx, family: int, off: int, n: int) -> str:
    text = f"{{family={_family(c, family)}, "
    if n < _IF_STATS_MSG.size:
        return text + "...}"
    _, pad1, pad2, index, mask = _rest(c, text, off, _IF_STATS_MSG)
    text += (f"{f'pad1={pad1:#x}, ' if pad1 else ''}{f'pad2={pad2:#x}, ' if pad2 else ''}"
             f"ifindex={format_ifindex(index)}, "
             f"filter_mask={_flags(_IFLA_STATS_MASK, mask, '1<<IFLA_STATS_???')}}}")
    if n > _IF_STATS_MSG.size:
        text += ", " + _attrs(c, off + _IF_STATS_MSG.size, n - _IF_STATS_MSG.size,
                              _IFLA_STATS_ATTRS, "IFLA_STATS_???", _IFLA_STATS_DECODERS)
    return text


# RTM_*ACTION: struct tcamsg (the family, 3 bytes of padding), then attributes strace
# names TCA_ACT_*
_TCA_ACT_ATTRS = dict(enumerate((
    "TCA_ACT_UNSPEC", "TCA_ACT_KIND", "TCA_ACT_OPTIONS", "TCA_ACT_INDEX", "TCA_ACT_STATS",
    "TCA_ACT_PAD", "TCA_ACT_COOKIE", "TCA_ACT_FLAGS", "TCA_ACT_HW_STATS",
    "TCA_ACT_USED_HW_STATS", "TCA_ACT_IN_HW_COUNT")))
_TCA_ACT_HW_STATS = _named({1: "TCA_ACT_HW_STATS_IMMEDIATE", 2: "TCA_ACT_HW_STATS_DELAYED"},
                           "TCA_ACT_HW_STATS_???", 4, flags=True)
_TCA_ACT: dict[str, Nla] = {
    "TCA_ACT_KIND": _nla_str, "TCA_ACT_INDEX": _u32, "TCA_ACT_IN_HW_COUNT": _u32,
    "TCA_ACT_FLAGS": _named({1: "TCA_ACT_FLAGS_NO_PERCPU_STATS", 2: "TCA_ACT_FLAGS_SKIP_HW",
                             4: "TCA_ACT_FLAGS_SKIP_SW"}, "TCA_ACT_FLAGS_???", 4, flags=True),
    "TCA_ACT_HW_STATS": _TCA_ACT_HW_STATS, "TCA_ACT_USED_HW_STATS": _TCA_ACT_HW_STATS,
}
# RTM_GETDCB/SETDCB: struct dcbmsg (linux/dcbnl.h: family, command, padding), then DCB_ATTR_*
_DCB_CMDS = dict(enumerate((
    "DCB_CMD_UNDEFINED", "DCB_CMD_GSTATE", "DCB_CMD_SSTATE", "DCB_CMD_PGTX_GCFG",
    "DCB_CMD_PGTX_SCFG", "DCB_CMD_PGRX_GCFG", "DCB_CMD_PGRX_SCFG", "DCB_CMD_PFC_GCFG",
    "DCB_CMD_PFC_SCFG", "DCB_CMD_SET_ALL", "DCB_CMD_GPERM_HWADDR", "DCB_CMD_GCAP",
    "DCB_CMD_GNUMTCS", "DCB_CMD_SNUMTCS", "DCB_CMD_PFC_GSTATE", "DCB_CMD_PFC_SSTATE",
    "DCB_CMD_BCN_GCFG", "DCB_CMD_BCN_SCFG", "DCB_CMD_GAPP", "DCB_CMD_SAPP",
    "DCB_CMD_IEEE_SET", "DCB_CMD_IEEE_GET", "DCB_CMD_GDCBX", "DCB_CMD_SDCBX",
    "DCB_CMD_GFEATCFG", "DCB_CMD_SFEATCFG", "DCB_CMD_CEE_GET", "DCB_CMD_IEEE_DEL")))
_DCB_ATTRS = dict(enumerate((
    "DCB_ATTR_UNDEFINED", "DCB_ATTR_IFNAME", "DCB_ATTR_STATE", "DCB_ATTR_PFC_STATE",
    "DCB_ATTR_PFC_CFG", "DCB_ATTR_NUM_TC", "DCB_ATTR_PG_CFG", "DCB_ATTR_SET_ALL",
    "DCB_ATTR_PERM_HWADDR", "DCB_ATTR_CAP", "DCB_ATTR_NUMTCS", "DCB_ATTR_BCN", "DCB_ATTR_APP",
    "DCB_ATTR_IEEE", "DCB_ATTR_DCBX", "DCB_ATTR_FEATCFG", "DCB_ATTR_CEE")))


def _dcbmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    text = f"{{dcb_family={_family(c, family)}, "
    if n < 4:
        return text + "...}"
    text += f"cmd={xval(_DCB_CMDS, _need(c, text, off, 4)[1], 'DCB_CMD_???')}}}"
    if n > 4:
        text += ", " + _attrs(c, off + 4, n - 4, _DCB_ATTRS, "DCB_ATTR_???", {})
    return text


# RTM_NEWCACHEREPORT: struct rtgenmsg, its family RTNL_FAMILY_IPMR/IP6MR (or an AF_*),
# then those families' IPMRA_CREPORT_*/IP6MRA_CREPORT_* attributes, others' bytes in hex
_RTNL_FAMILIES = {128: "RTNL_FAMILY_IPMR", 129: "RTNL_FAMILY_IP6MR"}
_CREPORT_ATTRS: dict[int, tuple[dict[int, str], str, dict[str, Nla]]] = {
    128: (dict(enumerate(("IPMRA_CREPORT_UNSPEC", "IPMRA_CREPORT_MSGTYPE",
                          "IPMRA_CREPORT_VIF_ID", "IPMRA_CREPORT_SRC_ADDR",
                          "IPMRA_CREPORT_DST_ADDR", "IPMRA_CREPORT_PKT",
                          "IPMRA_CREPORT_TABLE"))), "IPMRA_CREPORT_???",
          {"IPMRA_CREPORT_MSGTYPE": _named(
              {1: "IGMPMSG_NOCACHE", 2: "IGMPMSG_WRONGVIF", 3: "IGMPMSG_WHOLEPKT",
               4: "IGMPMSG_WRVIFWHOLE"}, "IGMPMSG_???", 1),
           "IPMRA_CREPORT_VIF_ID": _u32, "IPMRA_CREPORT_SRC_ADDR": _inet(socket.AF_INET),
           "IPMRA_CREPORT_DST_ADDR": _inet(socket.AF_INET), "IPMRA_CREPORT_TABLE": _u32}),
    129: (dict(enumerate(("IP6MRA_CREPORT_UNSPEC", "IP6MRA_CREPORT_MSGTYPE",
                          "IP6MRA_CREPORT_MIF_ID", "IP6MRA_CREPORT_SRC_ADDR",
                          "IP6MRA_CREPORT_DST_ADDR", "IP6MRA_CREPORT_PKT"))),
          "IP6MRA_CREPORT_???",
          {"IP6MRA_CREPORT_MSGTYPE": _named(
              {1: "MRT6MSG_NOCACHE", 2: "MRT6MSG_WRONGMIF", 3: "MRT6MSG_WHOLEPKT"},
              "MRT6MSG_???", 1),
           "IP6MRA_CREPORT_MIF_ID": _u32, "IP6MRA_CREPORT_SRC_ADDR": _inet(socket.AF_INET6),
           "IP6MRA_CREPORT_DST_ADDR": _inet(socket.AF_INET6)}),
}


def _cachereport(c: _Ctx, family: int, off: int, n: int) -> str:
    name = _RTNL_FAMILIES.get(family) or c.T.ADDRESS_FAMILIES.get(family)
    fam = xval({family: name} if name else {}, family, "RTNL_FAMILY_???")
    text = f"{{rtgen_family={fam}}}"
    if n > 4:
        attrs = _CREPORT_ATTRS.get(family)
        text += ", " + (_attrs(c, off + 4, n - 4, *attrs) if attrs
                        else c.hexstr(off + 4, n - 4))
    return text


_IFADDRMSG = struct.Struct("<BBBBI")


def _ifaddrmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    text = f"{{ifa_family={_family(c, family)}, "
    if n < _IFADDRMSG.size:
        return text + "...}"
    _, plen, fl, scope, index = _rest(c, text, off, _IFADDRMSG)
    text += (f"ifa_prefixlen={plen}, ifa_flags={_flags(c.T.IFA_FLAGS, fl, 'IFA_F_???')}, "
             f"ifa_scope={xval(c.T.RT_SCOPES, scope, None)}, "
             f"ifa_index={format_ifindex(index)}}}")
    if n > _IFADDRMSG.size:
        text += ", " + _attrs(c, off + _IFADDRMSG.size, n - _IFADDRMSG.size, c.T.IFA_ATTRS,
                              "IFA_???", _IFA[family] if family in _IFA else _IFA[0])
    return text


def _ifa(family: int) -> dict[str, Nla]:
    addr = _inet(family)
    return {"IFA_ADDRESS": addr, "IFA_LOCAL": addr, "IFA_LABEL": _nla_str,
            "IFA_BROADCAST": addr, "IFA_ANYCAST": addr, "IFA_MULTICAST": addr,
            "IFA_CACHEINFO": _struct_u("<4I", ("ifa_prefered", "ifa_valid", "cstamp",
                                                "tstamp")),
            "IFA_FLAGS": _flag_attr("IFA_FLAGS", "IFA_F_???"), "IFA_RT_PRIORITY": _u32,
            "IFA_TARGET_NETNSID": _s32}


# ifaddrmsg attributes by the message's family (0: any other family)
_IFA = {f: _ifa(f) for f in (0, socket.AF_INET, socket.AF_INET6)}

_IFINFOMSG = struct.Struct("<BxHiII")
_STATS_FIELDS = (
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
    "rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors",
    "rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors",
    "rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_window_errors", "rx_compressed", "tx_compressed",
    "rx_nohandler", "rx_otherhost_dropped")


def _link_stats(word: str) -> Nla:
    """struct rtnl_link_stats (``word`` "I") / rtnl_link_stats64 ("Q"): the fields the
    attribute holds, down to tx_compressed (23 fields)."""
    size = struct.calcsize("<" + word)

    def dec(c: _Ctx, off: int, n: int) -> str | None:
        count = min(n // size, len(_STATS_FIELDS) if word == "Q" else 24)
        if count < 23 or (n // size < 24 and n != 23 * size):
            return None
        vals = struct.unpack(f"<{count}{word}", c.take(off, count * size))
        pairs = zip(_STATS_FIELDS[:count], vals, strict=True)
        return "{" + ", ".join(f"{f}={v}" for f, v in pairs) + "}"
    return dec


# RTM_*STATS attributes (after _link_stats, which they use)
_MPLS_LINK_FIELDS = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors",
                     "tx_errors", "rx_dropped", "tx_dropped", "rx_noroute")


def _mpls_link_stats(c: _Ctx, off: int, n: int) -> str | None:
    """MPLS_STATS_LINK: struct mpls_link_stats (u64s), the bytes past it in hex."""
    size = 8 * len(_MPLS_LINK_FIELDS)
    if n < size:
        return None
    vals = struct.unpack(f"<{len(_MPLS_LINK_FIELDS)}Q", c.take(off, size))
    text = ", ".join(f"{f}={v}" for f, v in zip(_MPLS_LINK_FIELDS, vals, strict=True))
    return _with_rest(c, "{" + text + "}", off, size, n)


_STATS_AF: dict[str, Nla] = {"AF_MPLS": _nested(
    {0: "MPLS_STATS_UNSPEC", 1: "MPLS_STATS_LINK"}, "MPLS_STATS_???",
    {"MPLS_STATS_LINK": _mpls_link_stats})}


def _stats_af_spec(c: _Ctx, off: int, n: int) -> str:
    """IFLA_STATS_AF_SPEC: attributes by address family (AF_MPLS's decoded)."""
    return _attrs(c, off, n, c.T.ADDRESS_FAMILIES, "AF_???", _STATS_AF)


_IFLA_STATS_DECODERS: dict[str, Nla] = {
    "IFLA_STATS_AF_SPEC": _stats_af_spec,
    "IFLA_STATS_LINK_64": _link_stats("Q"),
    "IFLA_STATS_LINK_XSTATS": _LINK_XSTATS,
    "IFLA_STATS_LINK_XSTATS_SLAVE": _LINK_XSTATS,
    "IFLA_STATS_LINK_OFFLOAD_XSTATS": _nested(
        {0: "IFLA_OFFLOAD_XSTATS_UNSPEC", 1: "IFLA_OFFLOAD_XSTATS_CPU_HIT"},
        "IFLA_OFFLOAD_XSTATS_???", {"IFLA_OFFLOAD_XSTATS_CPU_HIT": _link_stats("Q")}),
}


def _hwaddr(c: _Ctx, off: int, n: int) -> str | None:
    if n > 32:
        return None
    return format_hwaddr(c.take(off, n))


def _str0(c: _Ctx, off: int, n: int) -> str:
    """A string up to its NUL (strace's QUOTE_0_TERMINATED): ``...`` after it when no NUL
    ends it within the attribute or -s."""
    data = c.take(off, min(n, c.limit + 1))
    end = data.find(b"\0")
    if end >= 0 and end <= c.limit:
        return quote(data[:end])
    return quote(data[:c.limit], more=True)


def _kind_of(c: _Ctx, off: int, n: int) -> bytes:
    """A link kind as strace keeps it for IFLA_INFO_(SLAVE_)DATA: up to its NUL; none
    when the attribute is 16 bytes or longer, or not captured."""
    if n >= 16:
        return b""
    try:
        return c.take(off, n).split(b"\0", 1)[0]
    except _Cut:
        return b""


def _info_kind(c: _Ctx, off: int, n: int) -> str:
    c.kind = _kind_of(c, off, n)
    return _str0(c, off, n)


def _info_slave_kind(c: _Ctx, off: int, n: int) -> str:
    c.slave_kind = _kind_of(c, off, n)
    return _str0(c, off, n)         # as the kind (strace: QUOTE_0_TERMINATED), -x too


def _info_data(c: _Ctx, off: int, n: int) -> str | None:
    """IFLA_INFO_DATA by the link's kind: a bridge's IFLA_BR_*, a tun's IFLA_TUN_*."""
    if c.kind == b"bridge":
        return _attrs(c, off, n, _IFLA_BR_ATTRS, "IFLA_BR_???", _IFLA_BR_DATA)
    if c.kind == b"tun":
        return _attrs(c, off, n, _IFLA_TUN_ATTRS, "IFLA_TUN_???", _IFLA_TUN_DATA)
    return None


def _info_slave_data(c: _Ctx, off: int, n: int) -> str | None:
    """IFLA_INFO_SLAVE_DATA of a bridge's port: IFLA_BRPORT_*."""
    return _brport_protinfo(c, off, n) if c.slave_kind == b"bridge" else None


_LINKINFO: dict[str, Nla] = {"IFLA_INFO_KIND": _info_kind, "IFLA_INFO_DATA": _info_data,
                             "IFLA_INFO_SLAVE_KIND": _info_slave_kind,
                             "IFLA_INFO_SLAVE_DATA": _info_slave_data}


def _linkinfo(c: _Ctx, off: int, n: int) -> str:
    """IFLA_LINKINFO: nested IFLA_INFO_* attributes, the data by the kind before it."""
    c.kind = c.slave_kind = b""
    return _attrs(c, off, n, c.T.IFLA_INFO_ATTRS, "IFLA_INFO_???", _LINKINFO)


_PROP_LIST: dict[str, Nla] = {"IFLA_ALT_IFNAME": _nla_str}


def _prop_list(c: _Ctx, off: int, n: int) -> str:
    """IFLA_PROP_LIST: nested IFLA_* attributes, of which IFLA_ALT_IFNAME is decoded."""
    return _attrs(c, off, n, c.T.IFLA_ATTRS, "IFLA_???", _PROP_LIST)


# IFLA_VFINFO_LIST: IFLA_VF_INFO attributes, each of IFLA_VF_* structs (linux/if_link.h;
# one shorter than its struct prints as hex, bytes past it are not shown)
_VF_LINK_STATES = {0: "IFLA_VF_LINK_STATE_AUTO", 1: "IFLA_VF_LINK_STATE_ENABLE",
                   2: "IFLA_VF_LINK_STATE_DISABLE"}


def _vf_u32s(*fields: str) -> Nla:
    """A struct of u32 fields (vf, then settings); ``link_state`` by name."""
    size = 4 * len(fields)

    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < size:
            return None
        vals = struct.unpack(f"<{len(fields)}I", c.take(off, size))
        return "{" + ", ".join(
            f"{f}={xval(_VF_LINK_STATES, v, 'IFLA_VF_LINK_STATE_???')}"
            if f == "link_state" else f"{f}={v}"
            for f, v in zip(fields, vals, strict=True)) + "}"
    return dec


def _vf_mac(c: _Ctx, off: int, n: int) -> str | None:
    """struct ifla_vf_mac: vf, a 32-byte mac."""
    if n < 36:
        return None
    vf, = struct.unpack("<I", c.take(off, 4))
    return f"{{vf={vf}, mac={format_hwaddr(c.take(off + 4, 32))}}}"


def _vf_broadcast(c: _Ctx, off: int, n: int) -> str | None:
    if n < 32:
        return None
    return f"{{broadcast={format_hwaddr(c.take(off, 32))}}}"


def _vf_guid(c: _Ctx, off: int, n: int) -> str | None:
    """struct ifla_vf_guid: vf, a u64 guid packed after it (12 bytes) or aligned (16)."""
    if n not in (12, 16):
        return None
    vf, = struct.unpack("<I", c.take(off, 4))
    guid, = struct.unpack("<Q", c.take(off + n - 8, 8))
    return f"{{vf={vf}, guid={hex(guid) if guid else 0}}}"


def _vf_vlan_info(c: _Ctx, off: int, n: int) -> str | None:
    """struct ifla_vf_vlan_info: vf, vlan, qos, vlan_proto (network order)."""
    if n < 16:
        return None
    vf, vlan, qos, proto = struct.unpack("<IIIH", c.take(off, 16)[:14])  # strace reads 16
    return f"{{vf={vf}, vlan={vlan}, qos={qos}, vlan_proto={eth_protocol(proto)}}}"


_VF_STATS_ATTRS = dict(enumerate("IFLA_VF_STATS_" + n for n in (
    "RX_PACKETS", "TX_PACKETS", "RX_BYTES", "TX_BYTES", "BROADCAST", "MULTICAST", "PAD",
    "RX_DROPPED", "TX_DROPPED")))
_VF_ATTRS = dict(enumerate("IFLA_VF_" + n for n in (
    "UNSPEC", "MAC", "VLAN", "TX_RATE", "SPOOFCHK", "LINK_STATE", "RATE", "RSS_QUERY_EN",
    "STATS", "TRUST", "IB_NODE_GUID", "IB_PORT_GUID", "VLAN_LIST", "BROADCAST")))
_VFINFO_LIST = _nested({0: "IFLA_VF_INFO_UNSPEC", 1: "IFLA_VF_INFO"}, "IFLA_VF_INFO_???", {
    "IFLA_VF_INFO": _nested(_VF_ATTRS, "IFLA_VF_???", {
        "IFLA_VF_MAC": _vf_mac, "IFLA_VF_VLAN": _vf_u32s("vf", "vlan", "qos"),
        "IFLA_VF_TX_RATE": _vf_u32s("vf", "rate"),
        "IFLA_VF_SPOOFCHK": _vf_u32s("vf", "setting"),
        "IFLA_VF_LINK_STATE": _vf_u32s("vf", "link_state"),
        "IFLA_VF_RATE": _vf_u32s("vf", "min_tx_rate", "max_tx_rate"),
        "IFLA_VF_RSS_QUERY_EN": _vf_u32s("vf", "setting"),
        "IFLA_VF_STATS": _nested(_VF_STATS_ATTRS, "IFLA_VF_STATS_???", {
            n: _u64 for n in _VF_STATS_ATTRS.values() if not n.endswith("PAD")}),
        "IFLA_VF_TRUST": _vf_u32s("vf", "setting"),
        "IFLA_VF_IB_NODE_GUID": _vf_guid, "IFLA_VF_IB_PORT_GUID": _vf_guid,
        "IFLA_VF_VLAN_LIST": _nested(
            {0: "IFLA_VF_VLAN_INFO_UNSPEC", 1: "IFLA_VF_VLAN_INFO"}, "IFLA_VF_VLAN_INFO_???",
            {"IFLA_VF_VLAN_INFO": _vf_vlan_info}),
        "IFLA_VF_BROADCAST": _vf_broadcast})})


def _port_vsi(c: _Ctx, off: int, n: int) -> str | None:
    """struct ifla_port_vsi (linux/if_link.h); its pad when not zero."""
    if n < 8:
        return None
    data = c.take(off, 8)
    pad = data[5:8]
    return (f"{{vsi_mgr_id={data[0]}, vsi_type_id={quote(data[1:4], force_hex=True)}, "
            f"vsi_type_version={data[4]}"
            f"{f', pad={quote(pad, force_hex=True)}' if any(pad) else ''}}}")


_IFLA_EVENTS = dict(enumerate("IFLA_EVENT_" + n for n in (
    "NONE", "REBOOT", "FEATURES", "BONDING_FAILOVER", "NOTIFY_PEERS", "IGMP_RESEND",
    "BONDING_OPTIONS")))


def _ifla_event(c: _Ctx, off: int, n: int) -> str | None:
    """A u32 of IFLA_EVENT_* (strace prints the first 4 bytes of a longer one)."""
    if n < 4:
        return None
    return xval(_IFLA_EVENTS, struct.unpack("<I", c.take(off, 4))[0], "IFLA_EVENT_???")


# IFLA_PORT_SELF and IFLA_VF_PORTS' IFLA_VF_PORT: nested IFLA_PORT_* attributes
_IFLA_PORT = _nested(
    dict(enumerate("IFLA_PORT_" + n for n in (
        "UNSPEC", "VF", "PROFILE", "VSI_TYPE", "INSTANCE_UUID", "HOST_UUID", "REQUEST",
        "RESPONSE"))), "IFLA_VF_PORT_???", {
        "IFLA_PORT_VF": _u32, "IFLA_PORT_PROFILE": _nla_str, "IFLA_PORT_VSI_TYPE": _port_vsi,
        "IFLA_PORT_REQUEST": _u8, "IFLA_PORT_RESPONSE": _u16})


_IFLA: dict[str, Nla] = {
    "IFLA_VFINFO_LIST": _VFINFO_LIST,
    "IFLA_PORT_SELF": _IFLA_PORT,
    "IFLA_VF_PORTS": _nested({0: "IFLA_VF_PORT_UNSPEC", 1: "IFLA_VF_PORT"}, "IFLA_VF_PORT_???",
                             {"IFLA_VF_PORT": _IFLA_PORT}),
    "IFLA_EVENT": _ifla_event,
    "IFLA_LINKINFO": _linkinfo, "IFLA_PROP_LIST": _prop_list,
    "IFLA_ADDRESS": _hwaddr, "IFLA_BROADCAST": _hwaddr, "IFLA_IFNAME": _nla_str,
    "IFLA_MTU": _u32, "IFLA_LINK": _u32, "IFLA_QDISC": _nla_str,
    "IFLA_STATS": _link_stats("I"), "IFLA_MASTER": _u32, "IFLA_TXQLEN": _u32,
    "IFLA_WEIGHT": _u32, "IFLA_OPERSTATE": _u8, "IFLA_LINKMODE": _u8,
    "IFLA_NET_NS_PID": _u32, "IFLA_IFALIAS": _nla_str, "IFLA_NUM_VF": _u32,
    "IFLA_STATS64": _link_stats("Q"), "IFLA_GROUP": _u32,
    "IFLA_EXT_MASK": _flag_attr("RTEXT_FILTERS", "RTEXT_FILTER_???"),
    "IFLA_PROMISCUITY": _u32, "IFLA_NUM_TX_QUEUES": _u32, "IFLA_NUM_RX_QUEUES": _u32,
    "IFLA_CARRIER": _u8, "IFLA_CARRIER_CHANGES": _u32, "IFLA_LINK_NETNSID": _s32,
    "IFLA_PHYS_PORT_NAME": _nla_str, "IFLA_PROTO_DOWN": _u8, "IFLA_GSO_MAX_SEGS": _u32,
    "IFLA_GSO_MAX_SIZE": _u32, "IFLA_NEW_NETNSID": _s32, "IFLA_IF_NETNSID": _s32,
    "IFLA_CARRIER_UP_COUNT": _u32, "IFLA_CARRIER_DOWN_COUNT": _u32,
    "IFLA_NEW_IFINDEX": _ifindex, "IFLA_MIN_MTU": _u32, "IFLA_MAX_MTU": _u32,
    "IFLA_ALT_IFNAME": _nla_str, "IFLA_PERM_ADDRESS": _hwaddr,
    "IFLA_PARENT_DEV_NAME": _nla_str, "IFLA_PARENT_DEV_BUS_NAME": _nla_str,
    "IFLA_GRO_MAX_SIZE": _u32, "IFLA_TSO_MAX_SIZE": _u32, "IFLA_TSO_MAX_SEGS": _u32,
    "IFLA_ALLMULTI": _u32,
    "IFLA_PROTO_DOWN_REASON": _nested(
        dict(enumerate("IFLA_PROTO_DOWN_REASON_" + n for n in ("UNSPEC", "MASK", "VALUE"))),
        "IFLA_PROTO_DOWN_REASON_???",
        {"IFLA_PROTO_DOWN_REASON_MASK": _xint(4), "IFLA_PROTO_DOWN_REASON_VALUE": _xint(4)}),
}


# IFLA_PROTINFO of an AF_INET6 link: nested IFLA_INET6_* attributes (linux/if_link.h),
# the arrays of IFLA_INET6_CONF (s32, by DEVCONF_* index: linux/ipv6.h),
# IFLA_INET6_STATS (u64, IPSTATS_MIB_*) and IFLA_INET6_ICMP6STATS (u64, ICMP6_MIB_*:
# linux/snmp.h), named as far as strace 6.1 names them (later indices print as
# ``[58 /* DEVCONF_??? */]=0``)
_IFLA_INET6_ATTRS = dict(enumerate((
    "IFLA_INET6_UNSPEC", "IFLA_INET6_FLAGS", "IFLA_INET6_CONF", "IFLA_INET6_STATS",
    "IFLA_INET6_MCAST", "IFLA_INET6_CACHEINFO", "IFLA_INET6_ICMP6STATS", "IFLA_INET6_TOKEN",
    "IFLA_INET6_ADDR_GEN_MODE", "IFLA_INET6_RA_MTU")))
_DEVCONF = tuple("DEVCONF_" + n for n in (
    "FORWARDING", "HOPLIMIT", "MTU6", "ACCEPT_RA", "ACCEPT_REDIRECTS", "AUTOCONF",
    "DAD_TRANSMITS", "RTR_SOLICITS", "RTR_SOLICIT_INTERVAL", "RTR_SOLICIT_DELAY",
    "USE_TEMPADDR", "TEMP_VALID_LFT", "TEMP_PREFERED_LFT", "REGEN_MAX_RETRY",
    "MAX_DESYNC_FACTOR", "MAX_ADDRESSES", "FORCE_MLD_VERSION", "ACCEPT_RA_DEFRTR",
    "ACCEPT_RA_PINFO", "ACCEPT_RA_RTR_PREF", "RTR_PROBE_INTERVAL",
    "ACCEPT_RA_RT_INFO_MAX_PLEN", "PROXY_NDP", "OPTIMISTIC_DAD", "ACCEPT_SOURCE_ROUTE",
    "MC_FORWARDING", "DISABLE_IPV6", "ACCEPT_DAD", "FORCE_TLLAO", "NDISC_NOTIFY",
    "MLDV1_UNSOLICITED_REPORT_INTERVAL", "MLDV2_UNSOLICITED_REPORT_INTERVAL",
    "SUPPRESS_FRAG_NDISC", "ACCEPT_RA_FROM_LOCAL", "USE_OPTIMISTIC", "ACCEPT_RA_MTU",
    "STABLE_SECRET", "USE_OIF_ADDRS_ONLY", "ACCEPT_RA_MIN_HOP_LIMIT",
    "IGNORE_ROUTES_WITH_LINKDOWN", "DROP_UNICAST_IN_L2_MULTICAST", "DROP_UNSOLICITED_NA",
    "KEEP_ADDR_ON_DOWN", "RTR_SOLICIT_MAX_INTERVAL", "SEG6_ENABLED", "SEG6_REQUIRE_HMAC",
    "ENHANCED_DAD", "ADDR_GEN_MODE", "DISABLE_POLICY", "ACCEPT_RA_RT_INFO_MIN_PLEN",
    "NDISC_TCLASS", "RPL_SEG_ENABLED", "RA_DEFRTR_METRIC", "IOAM6_ENABLED", "IOAM6_ID",
    "IOAM6_ID_WIDE", "NDISC_EVICT_NOCARRIER", "ACCEPT_UNTRACKED_NA"))
_IPSTATS_MIB = tuple("IPSTATS_MIB_" + n for n in (
    "NUM", "INPKTS", "INOCTETS", "INDELIVERS", "OUTFORWDATAGRAMS", "OUTPKTS", "OUTOCTETS",
    "INHDRERRORS", "INTOOBIGERRORS", "INNOROUTES", "INADDRERRORS", "INUNKNOWNPROTOS",
    "INTRUNCATEDPKTS", "INDISCARDS", "OUTDISCARDS", "OUTNOROUTES", "REASMTIMEOUT",
    "REASMREQDS", "REASMOKS", "REASMFAILS", "FRAGOKS", "FRAGFAILS", "FRAGCREATES",
    "INMCASTPKTS", "OUTMCASTPKTS", "INBCASTPKTS", "OUTBCASTPKTS", "INMCASTOCTETS",
    "OUTMCASTOCTETS", "INBCASTOCTETS", "OUTBCASTOCTETS", "CSUMERRORS", "NOECTPKTS",
    "ECT1PKTS", "ECT0PKTS", "CEPKTS", "REASM_OVERLAPS"))
_ICMP6_MIB = tuple("ICMP6_MIB_" + n for n in (
    "NUM", "INMSGS", "INERRORS", "OUTMSGS", "OUTERRORS", "CSUMERRORS"))
# struct inet6_dev's if_flags (include/net/if_inet6.h), in strace 6.1's order
_INET6_IF_FLAGS = ((0x10, "IF_RS_SENT"), (0x20, "IF_RA_RCVD"), (0x40, "IF_RA_MANAGED"),
                   (0x80, "IF_RA_OTHERCONF"), (0x80000000, "IF_READY"))
_IN6_ADDR_GEN_MODES = {0: "IN6_ADDR_GEN_MODE_EUI64", 1: "IN6_ADDR_GEN_MODE_NONE",
                       2: "IN6_ADDR_GEN_MODE_STABLE_PRIVACY", 3: "IN6_ADDR_GEN_MODE_RANDOM"}


def _indexed(fmt: str, names: Callable[[_Ctx], Mapping[int, str]], unknown: str) -> Nla:
    """An array of integers by named index: ``[[DEVCONF_FORWARDING]=0, ...]``, at most
    -s elements (then ``...``); an index without a name as ``[58 /* DEVCONF_??? */]``;
    the names in the current style (``[0]``, ``[0 /* DEVCONF_FORWARDING */]``).
    ``names``: the names by index, of the context's arch tables or fixed."""
    def elem(c: _Ctx, k: int, raw: bytes) -> str:
        name = names(c).get(k)
        if name is not None:
            index = xstyle.named(str(k), name) if xstyle.STYLE else name
        else:       # the number alone with -X raw
            index = str(k) if xstyle.STYLE == xstyle.RAW else f"{k} /* {unknown} */"
        return f"[{index}]={struct.unpack(fmt, raw)[0]}"
    return _struct_array(struct.calcsize(fmt), elem)


def _fixed(names: tuple[str, ...]) -> Callable[[_Ctx], Mapping[int, str]]:
    """:func:`_indexed`'s names of a table that is the same on every arch."""
    table = dict(enumerate(names))
    return lambda c: table


def _inet6_flags(c: _Ctx, off: int, n: int) -> str | None:
    if n < 4:
        return None
    return _flags(_INET6_IF_FLAGS, struct.unpack("<I", c.take(off, 4))[0], "IF_???")


def _addr_gen_mode(c: _Ctx, off: int, n: int) -> str | None:
    if n < 1:
        return None
    return xval(_IN6_ADDR_GEN_MODES, c.take(off, 1)[0], "IN6_ADDR_GEN_MODE_???")


_IFLA_INET6: dict[str, Nla] = {
    "IFLA_INET6_FLAGS": _inet6_flags,
    "IFLA_INET6_CONF": _indexed("<i", _fixed(_DEVCONF), "DEVCONF_???"),
    "IFLA_INET6_STATS": _indexed("<Q", _fixed(_IPSTATS_MIB), "IPSTATS_MIB_???"),
    "IFLA_INET6_ICMP6STATS": _indexed("<Q", _fixed(_ICMP6_MIB), "ICMP6_MIB_???"),
    "IFLA_INET6_CACHEINFO": _struct_u(
        "<IIII", ("max_reasm_len", "tstamp", "reachable_time", "retrans_time")),
    "IFLA_INET6_TOKEN": _inet(socket.AF_INET6),
    "IFLA_INET6_ADDR_GEN_MODE": _addr_gen_mode,
    "IFLA_INET6_RA_MTU": _u32,
}


def _inet6_protinfo(c: _Ctx, off: int, n: int) -> str:
    """IFLA_PROTINFO of an AF_INET6 link: nested IFLA_INET6_* attributes."""
    return _attrs(c, off, n, _IFLA_INET6_ATTRS, "IFLA_INET6_???", _IFLA_INET6)


# IFLA_XDP: nested IFLA_XDP_* attributes (linux/if_link.h): the attach mode (a u8 of
# XDP_ATTACHED_*), the XDP_FLAGS_* of the attach (linux/if_link.h), fds and prog ids
_IFLA_XDP_ATTRS = dict(enumerate((
    "IFLA_XDP_UNSPEC", "IFLA_XDP_FD", "IFLA_XDP_ATTACHED", "IFLA_XDP_FLAGS",
    "IFLA_XDP_PROG_ID", "IFLA_XDP_DRV_PROG_ID", "IFLA_XDP_SKB_PROG_ID",
    "IFLA_XDP_HW_PROG_ID", "IFLA_XDP_EXPECTED_FD")))
_XDP_ATTACHED = dict(enumerate((
    "XDP_ATTACHED_NONE", "XDP_ATTACHED_DRV", "XDP_ATTACHED_SKB", "XDP_ATTACHED_HW",
    "XDP_ATTACHED_MULTI")))
_XDP_FLAGS = ((0x1, "XDP_FLAGS_UPDATE_IF_NOEXIST"), (0x2, "XDP_FLAGS_SKB_MODE"),
              (0x4, "XDP_FLAGS_DRV_MODE"), (0x8, "XDP_FLAGS_HW_MODE"),
              (0x10, "XDP_FLAGS_REPLACE"))


def _xdp_attached(c: _Ctx, off: int, n: int) -> str | None:
    if n != 1:
        return None
    return xval(_XDP_ATTACHED, c.take(off, 1)[0], "XDP_ATTACHED_???")


def _xdp_flags(c: _Ctx, off: int, n: int) -> str | None:
    if n != 4:
        return None
    return _flags(_XDP_FLAGS, struct.unpack("<I", c.take(off, 4))[0], "XDP_FLAGS_???")


_IFLA_XDP: dict[str, Nla] = {
    "IFLA_XDP_FD": _s32, "IFLA_XDP_ATTACHED": _xdp_attached, "IFLA_XDP_FLAGS": _xdp_flags,
    "IFLA_XDP_PROG_ID": _u32, "IFLA_XDP_DRV_PROG_ID": _u32, "IFLA_XDP_SKB_PROG_ID": _u32,
    "IFLA_XDP_HW_PROG_ID": _u32, "IFLA_XDP_EXPECTED_FD": _s32,
}


def _ifla_xdp(c: _Ctx, off: int, n: int) -> str:
    return _attrs(c, off, n, _IFLA_XDP_ATTRS, "IFLA_XDP_???", _IFLA_XDP)


# IFLA_AF_SPEC (linux/if_link.h): of a link of any family but AF_BRIDGE, one nested
# attribute per address family (its type the AF_* number), holding that family's
# attributes: AF_INET's IFLA_INET_* (IFLA_INET_CONF: s32 by IPV4_DEVCONF_* index, which
# starts at 1: strace names index k after the constant k + 1, ``IPV4_DEVCONF_FORWARDING-1``),
# AF_INET6's IFLA_INET6_* (as in IFLA_PROTINFO), AF_MCTP's IFLA_MCTP_*; another family's
# data as hex. Of an AF_BRIDGE link, IFLA_BRIDGE_* attributes (linux/if_bridge.h).
_IFLA_INET_ATTRS = {0: "IFLA_INET_UNSPEC", 1: "IFLA_INET_CONF"}
_IPV4_DEVCONF = tuple(f"IPV4_DEVCONF_{n}-1" for n in (
    "FORWARDING", "MC_FORWARDING", "PROXY_ARP", "ACCEPT_REDIRECTS", "SECURE_REDIRECTS",
    "SEND_REDIRECTS", "SHARED_MEDIA", "RP_FILTER", "ACCEPT_SOURCE_ROUTE", "BOOTP_RELAY",
    "LOG_MARTIANS", "TAG", "ARPFILTER", "MEDIUM_ID", "NOXFRM", "NOPOLICY",
    "FORCE_IGMP_VERSION", "ARP_ANNOUNCE", "ARP_IGNORE", "PROMOTE_SECONDARIES", "ARP_ACCEPT",
    "ARP_NOTIFY", "ACCEPT_LOCAL", "SRC_VMARK", "PROXY_ARP_PVLAN", "ROUTE_LOCALNET",
    "IGMPV2_UNSOLICITED_REPORT_INTERVAL", "IGMPV3_UNSOLICITED_REPORT_INTERVAL",
    "IGNORE_ROUTES_WITH_LINKDOWN", "DROP_UNICAST_IN_L2_MULTICAST", "DROP_GRATUITOUS_ARP",
    "BC_FORWARDING", "ARP_EVICT_NOCARRIER"))
_IFLA_INET: dict[str, Nla] = {
    "IFLA_INET_CONF": _indexed("<i", _fixed(_IPV4_DEVCONF), "IPV4_DEVCONF_???")}
_IFLA_MCTP_ATTRS = {0: "IFLA_MCTP_UNSPEC", 1: "IFLA_MCTP_NET"}
_IFLA_MCTP: dict[str, Nla] = {"IFLA_MCTP_NET": _u32}


_AF_SPEC: dict[str, Nla] = {
    "AF_INET": _nested(_IFLA_INET_ATTRS, "IFLA_INET_???", _IFLA_INET),
    "AF_INET6": _nested(_IFLA_INET6_ATTRS, "IFLA_INET6_???", _IFLA_INET6),
    "AF_MCTP": _nested(_IFLA_MCTP_ATTRS, "IFLA_MCTP_???", _IFLA_MCTP),
}


def _af_spec(c: _Ctx, off: int, n: int) -> str:
    """IFLA_AF_SPEC of a link of a family other than AF_BRIDGE."""
    return _attrs(c, off, n, c.T.ADDRESS_FAMILIES, "AF_???", _AF_SPEC)


_IFLA_BRIDGE_ATTRS = dict(enumerate((
    "IFLA_BRIDGE_FLAGS", "IFLA_BRIDGE_MODE", "IFLA_BRIDGE_VLAN_INFO",
    "IFLA_BRIDGE_VLAN_TUNNEL_INFO", "IFLA_BRIDGE_MRP", "IFLA_BRIDGE_CFM", "IFLA_BRIDGE_MST")))
_BRIDGE_FLAGS = ((1, "BRIDGE_FLAGS_MASTER"), (2, "BRIDGE_FLAGS_SELF"))
_BRIDGE_MODES = {0: "BRIDGE_MODE_VEB", 1: "BRIDGE_MODE_VEPA", 0xFFFF: "BRIDGE_MODE_UNDEF"}


def _u16_named(flags: bool) -> Nla:
    """A u16 attribute of flags or of a value (strace's decode_nla_flags/xval with
    ``size = 2``: shorter, or longer than 8 bytes, as hex)."""
    def dec(c: _Ctx, off: int, n: int) -> str | None:
        if n < 2 or n > 8:
            return None
        v = int.from_bytes(c.take(off, 2), "little")
        return (_flags(_BRIDGE_FLAGS, v, "BRIDGE_FLAGS_???") if flags
                else xval(_BRIDGE_MODES, v, "BRIDGE_MODE_???"))
    return dec


def _bridge_vlan_info(c: _Ctx, off: int, n: int) -> str | None:
    """struct bridge_vlan_info (linux/if_bridge.h), then the bytes past it in hex."""
    if n < 4:
        return None
    flags, vid = struct.unpack("<HH", c.take(off, 4))
    text = f"{{flags={_flags(_BRIDGE_VLAN_FLAGS, flags, 'BRIDGE_VLAN_INFO_???')}, vid={vid}}}"
    return _with_rest(c, text, off, 4, n)


_IFLA_BRIDGE: dict[str, Nla] = {
    "IFLA_BRIDGE_FLAGS": _u16_named(True), "IFLA_BRIDGE_MODE": _u16_named(False),
    "IFLA_BRIDGE_VLAN_INFO": _bridge_vlan_info,
    "IFLA_BRIDGE_VLAN_TUNNEL_INFO": _nested(
        dict(enumerate("IFLA_BRIDGE_VLAN_TUNNEL_" + n for n in (
            "UNSPEC", "ID", "VID", "FLAGS"))), "IFLA_BRIDGE_VLAN_TUNNEL_???", {
            "IFLA_BRIDGE_VLAN_TUNNEL_ID": _u32, "IFLA_BRIDGE_VLAN_TUNNEL_VID": _u16,
            "IFLA_BRIDGE_VLAN_TUNNEL_FLAGS": _named(dict(_BRIDGE_VLAN_FLAGS),
                                                    "BRIDGE_VLAN_INFO_???", 2, flags=True)}),
}


def _bridge_af_spec(c: _Ctx, off: int, n: int) -> str:
    """IFLA_AF_SPEC of an AF_BRIDGE link: IFLA_BRIDGE_* attributes."""
    return _attrs(c, off, n, _IFLA_BRIDGE_ATTRS, "IFLA_BRIDGE_???", _IFLA_BRIDGE)


# IFLA_PROTINFO of an AF_BRIDGE link: IFLA_BRPORT_* attributes (linux/if_link.h)
_IFLA_BRPORT_ATTRS = dict(enumerate("IFLA_BRPORT_" + n for n in (
    "UNSPEC", "STATE", "PRIORITY", "COST", "MODE", "GUARD", "PROTECT", "FAST_LEAVE",
    "LEARNING", "UNICAST_FLOOD", "PROXYARP", "LEARNING_SYNC", "PROXYARP_WIFI", "ROOT_ID",
    "BRIDGE_ID", "DESIGNATED_PORT", "DESIGNATED_COST", "ID", "NO", "TOPOLOGY_CHANGE_ACK",
    "CONFIG_PENDING", "MESSAGE_AGE_TIMER", "FORWARD_DELAY_TIMER", "HOLD_TIMER", "FLUSH",
    "MULTICAST_ROUTER", "PAD", "MCAST_FLOOD", "MCAST_TO_UCAST", "VLAN_TUNNEL", "BCAST_FLOOD",
    "GROUP_FWD_MASK", "NEIGH_SUPPRESS", "ISOLATED", "BACKUP_PORT", "MRP_RING_OPEN",
    "MRP_IN_OPEN", "MCAST_EHT_HOSTS_LIMIT", "MCAST_EHT_HOSTS_CNT", "LOCKED")))


def _clock_t(c: _Ctx, off: int, n: int) -> str | None:
    """A count of clock ticks (up to 8 bytes): ``5700500 /* 57005.00 s */`` (strace's
    print_clock_t, by this machine's _SC_CLK_TCK)."""
    if n > 8:
        return None
    val = int.from_bytes(c.take(off, n), "little")
    tck = os.sysconf("SC_CLK_TCK")
    if val <= 0 or tck <= 0 or xstyle.STYLE == xstyle.RAW:   # -X raw: no comment
        return str(val)
    width = min(len(str(tck)) - 1, 9)
    frac = f"{(val % tck) / tck:.{width}f}"[1:] if width else ""
    return f"{val} /* {val // tck}{frac or '.'} s */"


# MDBA_ROUTER_PORT's attributes (the timers in clock ticks, as IFLA_BRPORT_*)
_MDBA_ROUTER_PATTR: dict[str, Nla] = {
    "MDBA_ROUTER_PATTR_TIMER": _clock_t, "MDBA_ROUTER_PATTR_TYPE": _router_type,
    "MDBA_ROUTER_PATTR_INET_TIMER": _clock_t, "MDBA_ROUTER_PATTR_INET6_TIMER": _clock_t}


def _bridge_id(c: _Ctx, off: int, n: int) -> str | None:
    """struct ifla_bridge_id: two priority bytes, a MAC address."""
    if n < 8:
        return None
    b = c.take(off, 8)
    return f"{{prio=[{b[0]}, {b[1]}], addr={format_hwaddr(b[2:8])}}}"


def _x16(c: _Ctx, off: int, n: int) -> str | None:
    return None if n < 2 else hex0(struct.unpack("<H", c.take(off, 2))[0])


_IFLA_BRPORT: dict[str, Nla] = {
    **{f"IFLA_BRPORT_{n}": _u8 for n in (
        "STATE", "MODE", "GUARD", "PROTECT", "FAST_LEAVE", "LEARNING", "UNICAST_FLOOD",
        "PROXYARP", "LEARNING_SYNC", "PROXYARP_WIFI", "TOPOLOGY_CHANGE_ACK",
        "CONFIG_PENDING", "MULTICAST_ROUTER", "MCAST_FLOOD", "MCAST_TO_UCAST", "VLAN_TUNNEL",
        "BCAST_FLOOD", "NEIGH_SUPPRESS", "ISOLATED", "MRP_RING_OPEN", "MRP_IN_OPEN",
        "LOCKED")},
    **{f"IFLA_BRPORT_{n}": _u16 for n in (
        "PRIORITY", "DESIGNATED_PORT", "DESIGNATED_COST", "ID", "NO")},
    **{f"IFLA_BRPORT_{n}": _u32 for n in (
        "COST", "MCAST_EHT_HOSTS_LIMIT", "MCAST_EHT_HOSTS_CNT")},
    **{f"IFLA_BRPORT_{n}": _clock_t for n in (
        "MESSAGE_AGE_TIMER", "FORWARD_DELAY_TIMER", "HOLD_TIMER")},
    "IFLA_BRPORT_ROOT_ID": _bridge_id, "IFLA_BRPORT_BRIDGE_ID": _bridge_id,
    "IFLA_BRPORT_GROUP_FWD_MASK": _x16, "IFLA_BRPORT_BACKUP_PORT": _ifindex,
}


_IFLA_BR_ATTRS = dict(enumerate("IFLA_BR_" + n for n in (
    "UNSPEC", "FORWARD_DELAY", "HELLO_TIME", "MAX_AGE", "AGEING_TIME", "STP_STATE",
    "PRIORITY", "VLAN_FILTERING", "VLAN_PROTOCOL", "GROUP_FWD_MASK", "ROOT_ID", "BRIDGE_ID",
    "ROOT_PORT", "ROOT_PATH_COST", "TOPOLOGY_CHANGE", "TOPOLOGY_CHANGE_DETECTED",
    "HELLO_TIMER", "TCN_TIMER", "TOPOLOGY_CHANGE_TIMER", "GC_TIMER", "GROUP_ADDR",
    "FDB_FLUSH", "MCAST_ROUTER", "MCAST_SNOOPING", "MCAST_QUERY_USE_IFADDR", "MCAST_QUERIER",
    "MCAST_HASH_ELASTICITY", "MCAST_HASH_MAX", "MCAST_LAST_MEMBER_CNT",
    "MCAST_STARTUP_QUERY_CNT", "MCAST_LAST_MEMBER_INTVL", "MCAST_MEMBERSHIP_INTVL",
    "MCAST_QUERIER_INTVL", "MCAST_QUERY_INTVL", "MCAST_QUERY_RESPONSE_INTVL",
    "MCAST_STARTUP_QUERY_INTVL", "NF_CALL_IPTABLES", "NF_CALL_IP6TABLES",
    "NF_CALL_ARPTABLES", "VLAN_DEFAULT_PVID", "PAD", "VLAN_STATS_ENABLED",
    "MCAST_STATS_ENABLED", "MCAST_IGMP_VERSION", "MCAST_MLD_VERSION", "VLAN_STATS_PER_PORT",
    "MULTI_BOOLOPT", "MCAST_QUERIER_STATE")))
_BR_BOOLOPTS = tuple((1 << k, "1<<BR_BOOLOPT_" + n) for k, n in enumerate((
    "NO_LL_LEARN", "MCAST_VLAN_SNOOPING", "MST_ENABLE")))


def _br_boolopt(c: _Ctx, off: int, n: int) -> str | None:
    """struct br_boolopt_multi: optval, optmask."""
    if n < 8:
        return None
    val, mask = struct.unpack("<II", c.take(off, 8))
    return (f"{{optval={_flags(_BR_BOOLOPTS, val, '1<<BR_BOOLOPT_???')}, "
            f"optmask={_flags(_BR_BOOLOPTS, mask, '1<<BR_BOOLOPT_???')}}}")


def _ether_proto(c: _Ctx, off: int, n: int) -> str | None:
    """A u16 ethernet protocol in network order: ``htons(ETH_P_8021Q)``."""
    if n < 2 or n > 8:
        return None
    v = int.from_bytes(c.take(off, 2), "big")
    return f"htons({xval(c.T.ETH_P_PROTOCOLS, v, 'ETHER_P_???')})"


def _uid(c: _Ctx, off: int, n: int) -> str | None:
    if n < 4:
        return None
    v = struct.unpack("<I", c.take(off, 4))[0]
    return "-1" if v == 0xFFFFFFFF else str(v)


_IFLA_BR_DATA: dict[str, Nla] = {
    **{f"IFLA_BR_{n}": _clock_t for n in (
        "FORWARD_DELAY", "HELLO_TIME", "MAX_AGE", "AGEING_TIME", "HELLO_TIMER", "TCN_TIMER",
        "TOPOLOGY_CHANGE_TIMER", "GC_TIMER", "MCAST_LAST_MEMBER_INTVL",
        "MCAST_MEMBERSHIP_INTVL", "MCAST_QUERIER_INTVL", "MCAST_QUERY_INTVL",
        "MCAST_QUERY_RESPONSE_INTVL", "MCAST_STARTUP_QUERY_INTVL")},
    **{f"IFLA_BR_{n}": _u32 for n in (
        "STP_STATE", "ROOT_PATH_COST", "MCAST_HASH_ELASTICITY", "MCAST_HASH_MAX",
        "MCAST_LAST_MEMBER_CNT", "MCAST_STARTUP_QUERY_CNT")},
    **{f"IFLA_BR_{n}": _u16 for n in ("PRIORITY", "ROOT_PORT", "VLAN_DEFAULT_PVID")},
    **{f"IFLA_BR_{n}": _u8 for n in (
        "VLAN_FILTERING", "TOPOLOGY_CHANGE", "TOPOLOGY_CHANGE_DETECTED", "MCAST_ROUTER",
        "MCAST_SNOOPING", "MCAST_QUERY_USE_IFADDR", "MCAST_QUERIER", "NF_CALL_IPTABLES",
        "NF_CALL_IP6TABLES", "NF_CALL_ARPTABLES", "VLAN_STATS_ENABLED",
        "MCAST_STATS_ENABLED", "MCAST_IGMP_VERSION", "MCAST_MLD_VERSION",
        "VLAN_STATS_PER_PORT")},
    "IFLA_BR_VLAN_PROTOCOL": _ether_proto, "IFLA_BR_GROUP_FWD_MASK": _x16,
    "IFLA_BR_ROOT_ID": _bridge_id, "IFLA_BR_BRIDGE_ID": _bridge_id,
    "IFLA_BR_GROUP_ADDR": _hwaddr, "IFLA_BR_MULTI_BOOLOPT": _br_boolopt,
    "IFLA_BR_MCAST_QUERIER_STATE": _nested(
        dict(enumerate("BRIDGE_QUERIER_" + n for n in (
            "UNSPEC", "IP_ADDRESS", "IP_PORT", "IP_OTHER_TIMER", "PAD", "IPV6_ADDRESS",
            "IPV6_PORT", "IPV6_OTHER_TIMER"))), "BRIDGE_QUERIER_???", {
            "BRIDGE_QUERIER_IP_ADDRESS": _inet(socket.AF_INET),
            "BRIDGE_QUERIER_IP_PORT": _ifindex, "BRIDGE_QUERIER_IP_OTHER_TIMER": _clock_t,
            "BRIDGE_QUERIER_IPV6_ADDRESS": _inet(socket.AF_INET6),
            "BRIDGE_QUERIER_IPV6_PORT": _ifindex,
            "BRIDGE_QUERIER_IPV6_OTHER_TIMER": _clock_t}),
}
_IFLA_TUN_ATTRS = dict(enumerate("IFLA_TUN_" + n for n in (
    "UNSPEC", "OWNER", "GROUP", "TYPE", "PI", "VNET_HDR", "PERSIST", "MULTI_QUEUE",
    "NUM_QUEUES", "NUM_DISABLED_QUEUES")))
_IFLA_TUN_DATA: dict[str, Nla] = {
    "IFLA_TUN_OWNER": _uid, "IFLA_TUN_GROUP": _uid,
    "IFLA_TUN_TYPE": _named({1: "IFF_TUN", 2: "IFF_TAP"}, "IFF_???", 1),
    **{f"IFLA_TUN_{n}": _u8 for n in ("PI", "VNET_HDR", "PERSIST", "MULTI_QUEUE")},
    "IFLA_TUN_NUM_QUEUES": _u32, "IFLA_TUN_NUM_DISABLED_QUEUES": _u32,
}


def _brport_protinfo(c: _Ctx, off: int, n: int) -> str:
    """IFLA_PROTINFO of an AF_BRIDGE link: IFLA_BRPORT_* attributes."""
    return _attrs(c, off, n, _IFLA_BRPORT_ATTRS, "IFLA_BRPORT_???", _IFLA_BRPORT)


_IFLA.update({
    "IFLA_XDP": _ifla_xdp, "IFLA_AF_SPEC": _af_spec,
    "IFLA_MAP": _struct_u("<QQQHBB", ("mem_start", "mem_end", "base_addr", "irq", "dma",
                                      "port"), ("mem_start", "mem_end", "base_addr")),
})
_IFLA6: dict[str, Nla] = {**_IFLA, "IFLA_PROTINFO": _inet6_protinfo}
_IFLA_BR: dict[str, Nla] = {**_IFLA, "IFLA_AF_SPEC": _bridge_af_spec,
                            "IFLA_PROTINFO": _brport_protinfo}


def _ifinfomsg(c: _Ctx, family: int, off: int, n: int) -> str:
    text = f"{{ifi_family={_family(c, family)}, "
    if n < _IFINFOMSG.size:
        return text + "...}"
    _, itype, index, iflags, change = _rest(c, text, off, _IFINFOMSG)
    text += (f"ifi_type={xval(c.T.ARPHRD_TYPES, itype, 'ARPHRD_???')}, "
             f"ifi_index={format_ifindex(index & 0xFFFFFFFF)}, "
             f"ifi_flags={_flags(c.T.IFF_FLAGS, iflags, 'IFF_???')}, "
             f"ifi_change={hex(change) if change else 0}}}")
    if n > _IFINFOMSG.size:
        text += ", " + _attrs(c, off + _IFINFOMSG.size, n - _IFINFOMSG.size,
                              c.T.IFLA_ATTRS, "IFLA_???",
                              _IFLA6 if family == socket.AF_INET6 else
                              _IFLA_BR if family == _AF_BRIDGE else _IFLA)
    return text


_RTMSG = struct.Struct("<BBBBBBBBI")


def _rtmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    T = c.T
    text = f"{{rtm_family={_family(c, family)}, "
    if n < _RTMSG.size:
        return text + "...}"
    _, dlen, slen, tos, table, proto, scope, rtype, rflags = _rest(c, text, off, _RTMSG)
    text += (f"rtm_dst_len={dlen}, rtm_src_len={slen}, rtm_tos={_tos(tos)}, "
             f"rtm_table={xval(T.RT_TABLES, table, None)}, "
             f"rtm_protocol={xval(T.RTPROT_TYPES, proto, 'RTPROT_???')}, "
             f"rtm_scope={xval(T.RT_SCOPES, scope, None)}, "
             f"rtm_type={xval(T.RTN_TYPES, rtype, 'RTN_???')}, "
             f"rtm_flags={_flags(T.RTM_F_FLAGS, rflags, 'RTM_F_???')}}}")
    if n > _RTMSG.size:
        text += ", " + _attrs(c, off + _RTMSG.size, n - _RTMSG.size, T.RTA_ATTRS, "RTA_???",
                              _RTA[family] if family in _RTA else _RTA[0])
    return text


def _rta(family: int) -> dict[str, Nla]:
    addr = _inet(family)
    return {"RTA_DST": addr, "RTA_SRC": addr, "RTA_IIF": _ifindex, "RTA_OIF": _ifindex,
            "RTA_GATEWAY": addr, "RTA_PRIORITY": _u32, "RTA_PREFSRC": addr, "RTA_FLOW": _u32,
            "RTA_TABLE": _xval_attr("RT_TABLES", None), "RTA_MARK": _u32, "RTA_PREF": _u8,
            "RTA_UID": _u32, "RTA_TTL_PROPAGATE": _u8, "RTA_NH_ID": _u32,
            "RTA_CACHEINFO": _rta_cacheinfo, "RTA_NEWDST": addr, "RTA_METRICS": _RTA_METRICS,
            "RTA_PROTOINFO": _u32, "RTA_MP_ALGO": _u32, "RTA_EXPIRES": _u64,
            "RTA_IP_PROTO": _u8, "RTA_SPORT": _u16, "RTA_DPORT": _u16,
            "RTA_MFC_STATS": _struct_u("<3Q", ("mfcs_packets", "mfcs_bytes",
                                               "mfcs_wrong_if")),
            "RTA_VIA": _rtvia, "RTA_ENCAP_TYPE": _encap_type}


# RTA_METRICS: nested RTAX_* attributes (linux/rtnetlink.h), u32 but RTAX_CC_ALGO
_RTAX = ("UNSPEC", "LOCK", "MTU", "WINDOW", "RTT", "RTTVAR", "SSTHRESH", "CWND", "ADVMSS",
         "REORDERING", "HOPLIMIT", "INITCWND", "FEATURES", "RTO_MIN", "INITRWND", "QUICKACK",
         "CC_ALGO", "FASTOPEN_NO_COOKIE")
_RTA_METRICS = _nested(dict(enumerate("RTAX_" + n for n in _RTAX)), "RTAX_???", {
    **{"RTAX_" + n: _u32 for n in _RTAX[1:16]}, "RTAX_CC_ALGO": _nla_str})
_LWTUNNEL_ENCAP = dict(enumerate("LWTUNNEL_ENCAP_" + n for n in (
    "NONE", "MPLS", "IP", "ILA", "IP6", "SEG6", "BPF", "SEG6_LOCAL", "RPL")))


def _encap_type(c: _Ctx, off: int, n: int) -> str | None:
    if n < 2:
        return None
    v = struct.unpack("<H", c.take(off, 2))[0]
    return xval(_LWTUNNEL_ENCAP, v, "LWTUNNEL_ENCAP_???")


def _rtvia(c: _Ctx, off: int, n: int) -> str | None:
    """struct rtvia (linux/rtnetlink.h): the family, then an address of it."""
    if n < 2:
        return None
    family = struct.unpack("<H", c.take(off, 2))[0]
    text = f"{{rtvia_family={_family(c, family)}"
    if n > 2:
        text += ", " + _inet_addr_field(c, family, off + 2, n - 2, "rtvia_addr")
    return text + "}"


_RTA_CACHEINFO = struct.Struct("<8I")       # struct rta_cacheinfo: all printed unsigned


def _rta_cacheinfo(c: _Ctx, off: int, n: int) -> str | None:
    """struct rta_cacheinfo (linux/rtnetlink.h)."""
    if n < _RTA_CACHEINFO.size:
        return None
    names = ("rta_clntref", "rta_lastuse", "rta_expires", "rta_error", "rta_used", "rta_id",
             "rta_ts", "rta_tsage")
    vals = _RTA_CACHEINFO.unpack(c.take(off, _RTA_CACHEINFO.size))
    return "{" + ", ".join(f"{k}={hex0(v) if k == 'rta_id' else v}"
                           for k, v in zip(names, vals, strict=True)) + "}"


# rtmsg attributes by the message's family (0: any other family)
_RTA = {f: _rta(f) for f in (0, socket.AF_INET, socket.AF_INET6)}


_FIB_RULE_HDR = struct.Struct("<BBBBBxxBI")


def _range(fmt: str) -> Nla:
    """struct fib_rule_uid_range / fib_rule_port_range: ``{start=0, end=10}``."""
    return _struct_u(fmt, ("start", "end"))


def _be64(c: _Ctx, off: int, n: int) -> str | None:
    if n < 8:
        return None
    return f"htobe64({int.from_bytes(c.take(off, 8), 'big')})"


def _be16(c: _Ctx, off: int, n: int) -> str | None:
    if n < 2:
        return None
    return f"htons({int.from_bytes(c.take(off, 2), 'big')})"


def _fra(family: int) -> dict[str, Nla]:
    addr = _inet(family)
    return {"FRA_DST": addr, "FRA_SRC": addr, "FRA_IIFNAME": _nla_str,
            "FRA_OIFNAME": _nla_str, "FRA_GOTO": _u32, "FRA_PRIORITY": _u32,
            "FRA_FWMARK": _u32, "FRA_FLOW": _u32, "FRA_TUN_ID": _be64,
            "FRA_SUPPRESS_IFGROUP": _u32, "FRA_SUPPRESS_PREFIXLEN": _u32,
            "FRA_TABLE": _xval_attr("RT_TABLES", None), "FRA_FWMASK": _u32,
            "FRA_L3MDEV": _u8, "FRA_UID_RANGE": _range("<II"),
            "FRA_PROTOCOL": _xval_attr("RTPROT_TYPES", "RTPROT_???", 1),
            "FRA_IP_PROTO": _xval_attr("IP_PROTOCOLS", "IPPROTO_???", 0),
            "FRA_SPORT_RANGE": _range("<HH"), "FRA_DPORT_RANGE": _range("<HH")}


# fib_rule_hdr attributes by the message's family (0: any other family)
_FRA = {f: _fra(f) for f in (0, socket.AF_INET, socket.AF_INET6)}


def _fib_rule_hdr(c: _Ctx, family: int, off: int, n: int) -> str:
    """struct fib_rule_hdr (linux/fib_rules.h), then FRA_* attributes."""
    T = c.T
    text = f"{{family={_family(c, family)}, "
    if n < _FIB_RULE_HDR.size:
        return text + "...}"
    _, dlen, slen, tos, table, action, rflags = _rest(c, text, off, _FIB_RULE_HDR)
    text += (f"dst_len={dlen}, src_len={slen}, tos={_tos(tos)}, "
             f"table={xval(T.RT_TABLES, table, None)}, "
             f"action={xval(T.FR_ACTIONS, action, 'FR_ACT_???')}, "
             f"flags={_flags(T.FIB_RULE_FLAGS, rflags, 'FIB_RULE_???')}}}")
    if n > _FIB_RULE_HDR.size:
        text += ", " + _attrs(c, off + _FIB_RULE_HDR.size, n - _FIB_RULE_HDR.size,
                              T.FRA_ATTRS, "FRA_???",
                              _FRA[family] if family in _FRA else _FRA[0])
    return text


_NDMSG = struct.Struct("<BxxxiHBB")
# NDA_FDB_EXT_ATTRS: nested NFEA_* attributes (linux/neighbour.h)
_NDA_FDB_EXT = _nested(
    dict(enumerate(("NFEA_UNSPEC", "NFEA_ACTIVITY_NOTIFY", "NFEA_DONT_REFRESH"))), "NFEA_???",
    {"NFEA_ACTIVITY_NOTIFY": _named({1: "FDB_NOTIFY_BIT", 2: "FDB_NOTIFY_INACTIVE_BIT"},
                                    "FDB_NOTIFY_???", 1, flags=True)})


def _nda(family: int) -> dict[str, Nla]:
    return {"NDA_DST": _inet(family), "NDA_LLADDR": _hwaddr,
            "NDA_CACHEINFO": _struct_u("<4I", ("ndm_confirmed", "ndm_used", "ndm_updated",
                                               "ndm_refcnt")),
            "NDA_PROBES": _u32, "NDA_VLAN": _u16, "NDA_PORT": _be16, "NDA_VNI": _u32,
            "NDA_IFINDEX": _ifindex, "NDA_MASTER": _ifindex, "NDA_LINK_NETNSID": _u32,
            "NDA_SRC_VNI": _u32, "NDA_PROTOCOL": _xval_attr("IP_PROTOCOLS", "IPPROTO_???", 0),
            "NDA_NH_ID": _u32, "NDA_FDB_EXT_ATTRS": _NDA_FDB_EXT,
            "NDA_FLAGS_EXT": _named({1: "NTF_EXT_MANAGED"}, "NTF_EXT_???", 4, flags=True),
            "NDA_NDM_STATE_MASK": _flag_attr("NUD_STATES", "NUD_???", 2, "NUD_NONE"),
            "NDA_NDM_FLAGS_MASK": _flag_attr("NTF_FLAGS", "NTF_???", 1)}


# ndmsg attributes by the message's family (0: any other family)
_NDA = {f: _nda(f) for f in (0, socket.AF_INET, socket.AF_INET6)}


def _ndmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    """struct ndmsg (linux/neighbour.h), then NDA_* attributes."""
    T = c.T
    text = f"{{ndm_family={_family(c, family)}, "
    if n < _NDMSG.size:
        return text + "...}"
    _, index, state, nflags, ntype = _rest(c, text, off, _NDMSG)
    states = F.FlagSet(T.NUD_STATES, zero="NUD_NONE", unknown="NUD_???")(state)
    text += (f"ndm_ifindex={format_ifindex(index & 0xFFFFFFFF)}, ndm_state={states}, "
             f"ndm_flags={_flags(T.NTF_FLAGS, nflags, 'NTF_???')}, "
             f"ndm_type={xval(T.RTN_TYPES, ntype, 'RTN_???')}}}")
    if n > _NDMSG.size:
        text += ", " + _attrs(c, off + _NDMSG.size, n - _NDMSG.size, T.NDA_ATTRS, "NDA_???",
                              _NDA[family] if family in _NDA else _NDA[0])
    return text


def _family_only(c: _Ctx, field: str, family: int, off: int, n: int,
                 names: Mapping[int, str], dflt: str, by_name: Mapping[str, Nla]) -> str:
    """A struct of the family alone, padded to 4 bytes (netconfmsg, rtgenmsg, ndtmsg),
    then attributes."""
    text = f"{{{field}={_family(c, family)}}}"
    if n > 4:
        text += ", " + _attrs(c, off + 4, n - 4, names, dflt, by_name)
    return text


_NETCONFA: dict[str, Nla] = {
    "NETCONFA_IFINDEX": _ifindex, "NETCONFA_FORWARDING": _s32, "NETCONFA_RP_FILTER": _s32,
    "NETCONFA_MC_FORWARDING": _s32, "NETCONFA_PROXY_NEIGH": _s32,
    "NETCONFA_IGNORE_ROUTES_WITH_LINKDOWN": _s32, "NETCONFA_INPUT": _s32,
    "NETCONFA_BC_FORWARDING": _s32,
}
_NETNSA: dict[str, Nla] = {
    "NETNSA_NSID": _s32, "NETNSA_PID": _u32, "NETNSA_TARGET_NSID": _s32,
    "NETNSA_CURRENT_NSID": _s32,
}
_NDTPA: dict[str, Nla] = {
    "NDTPA_IFINDEX": _ifindex, "NDTPA_REFCNT": _u32, "NDTPA_REACHABLE_TIME": _u64,
    "NDTPA_BASE_REACHABLE_TIME": _u64, "NDTPA_RETRANS_TIME": _u64,
    "NDTPA_GC_STALETIME": _u64, "NDTPA_DELAY_PROBE_TIME": _u64, "NDTPA_QUEUE_LEN": _u32,
    "NDTPA_APP_PROBES": _u32, "NDTPA_UCAST_PROBES": _u32, "NDTPA_MCAST_PROBES": _u32,
    "NDTPA_ANYCAST_DELAY": _u64, "NDTPA_PROXY_DELAY": _u64, "NDTPA_PROXY_QLEN": _u32,
    "NDTPA_LOCKTIME": _u64, "NDTPA_QUEUE_LENBYTES": _u32, "NDTPA_MCAST_REPROBES": _u32,
}


def _ndt_parms(c: _Ctx, off: int, n: int) -> str:
    """NDTA_PARMS: nested NDTPA_* attributes."""
    return _attrs(c, off, n, c.T.NDTPA_ATTRS, "NDTPA_???", _NDTPA)


_NDT_CONFIG = struct.Struct("<HHIIIIIII")


def _ndt_config(c: _Ctx, off: int, n: int) -> str | None:
    """struct ndt_config (linux/neighbour.h); ndtc_hash_mask as %#08x."""
    if n < _NDT_CONFIG.size:
        return None
    (klen, esize, entries, flush, rand, rnd, mask, chain_gc,
     qlen) = _NDT_CONFIG.unpack(c.take(off, _NDT_CONFIG.size))
    return (f"{{ndtc_key_len={klen}, ndtc_entry_size={esize}, ndtc_entries={entries}, "
            f"ndtc_last_flush={flush}, ndtc_last_rand={rand}, ndtc_hash_rnd={rnd}, "
            f"ndtc_hash_mask={f'{mask:#08x}' if mask else '00000000'}, "
            f"ndtc_hash_chain_gc={chain_gc}, ndtc_proxy_qlen={qlen}}}")


_NDTA: dict[str, Nla] = {
    "NDTA_NAME": _nla_str, "NDTA_THRESH1": _u32, "NDTA_THRESH2": _u32,
    "NDTA_THRESH3": _u32, "NDTA_CONFIG": _ndt_config, "NDTA_PARMS": _ndt_parms,
    "NDTA_STATS": _struct_u("<11Q", ("ndts_allocs", "ndts_destroys", "ndts_hash_grows",
                                     "ndts_res_failed", "ndts_lookups", "ndts_hits",
                                     "ndts_rcv_probes_mcast", "ndts_rcv_probes_ucast",
                                     "ndts_periodic_gc_runs", "ndts_forced_gc_runs",
                                     "ndts_table_fulls")),
    "NDTA_GC_INTERVAL": _u64,
}
_IFADDRLBLMSG = struct.Struct("<BxBBII")


def _ifaddrlblmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    """struct ifaddrlblmsg (linux/if_addrlabel.h), then IFAL_* attributes."""
    text = f"{{ifal_family={_family(c, family)}, "
    if n < _IFADDRLBLMSG.size:
        return text + "...}"
    _, plen, fl, index, seq = _rest(c, text, off, _IFADDRLBLMSG)
    text += (f"ifal_prefixlen={plen}, ifal_flags={fl}, "
             f"ifal_index={format_ifindex(index)}, ifal_seq={seq}}}")
    if n > _IFADDRLBLMSG.size:
        text += ", " + _attrs(c, off + _IFADDRLBLMSG.size, n - _IFADDRLBLMSG.size,
                              c.T.IFAL_ATTRS, "IFAL_???",
                              {"IFAL_ADDRESS": _inet(socket.AF_INET6), "IFAL_LABEL": _u32})
    return text


_NHMSG = struct.Struct("<BBBBI")         # struct nhmsg: family, scope, protocol, resvd, flags


def _nhmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    """struct nhmsg (linux/nexthop.h), then NHA_* attributes."""
    T = c.T
    text = f"{{nh_family={_family(c, family)}, "
    if n < _NHMSG.size:
        return text + "...}"
    _, scope, proto, resvd, nflags = _rest(c, text, off, _NHMSG)
    rtnh = tuple(b for b in T.RTM_F_FLAGS if b[1].startswith("RTNH_F_"))
    text += (f"nh_scope={xval(T.RT_SCOPES, scope, None)}, "
             f"nh_protocol={xval(T.RTPROT_TYPES, proto, 'RTPROT_???')}, "
             f"{f'resvd={resvd:#x}, ' if resvd else ''}"
             f"nh_flags={_flags(rtnh, nflags, 'RTNH_F_???')}}}")
    if n > _NHMSG.size:
        text += ", " + _attrs(c, off + _NHMSG.size, n - _NHMSG.size, T.NHA_ATTRS, "NHA_???",
                              {"NHA_ID": _u32, "NHA_OIF": _ifindex, "NHA_MASTER": _ifindex,
                               "NHA_GATEWAY": _inet(family), "NHA_GROUP_TYPE": _u16,
                               "NHA_ENCAP_TYPE": _u16})
    return text


_TCMSG = struct.Struct("<BxxxiIII")


_TCA_STATS2: dict[str, Nla] = {
    "TCA_STATS_BASIC": _struct_u("<QI", ("bytes", "packets")),
    "TCA_STATS_BASIC_HW": _struct_u("<QI", ("bytes", "packets")),
    "TCA_STATS_RATE_EST": _struct_u("<II", ("bps", "pps")),
    "TCA_STATS_RATE_EST64": _struct_u("<QQ", ("bps", "pps")),
    "TCA_STATS_QUEUE": _struct_u("<5I", ("qlen", "backlog", "drops", "requeues",
                                              "overlimits")),
    "TCA_STATS_PKT64": _u64,
}


def _tca_stats2(c: _Ctx, off: int, n: int) -> str:
    """TCA_STATS2: nested TCA_STATS_* attributes (struct gnet_stats_*)."""
    return _attrs(c, off, n, c.T.TCA_STATS_ATTRS, "TCA_STATS_???", _TCA_STATS2)


_TCA: dict[str, Nla] = {
    "TCA_KIND": _nla_str,
    # struct tc_stats (linux/pkt_sched.h): bytes, then seven u32 (strace reads up to
    # backlog's end, not the padding after it; as gnet_stats_basic up to packets)
    "TCA_STATS": _struct_u("<Q7I", ("bytes", "packets", "drops", "overlimits", "bps",
                                           "pps", "qlen", "backlog")),
    "TCA_RATE": _struct_u("<bB", ("interval", "ewma_log")),
    "TCA_STATS2": _tca_stats2, "TCA_CHAIN": _u32, "TCA_HW_OFFLOAD": _u8,
    "TCA_INGRESS_BLOCK": _u32, "TCA_EGRESS_BLOCK": _u32, "TCA_DUMP_FLAGS": _u32,
    # TCA_STAB: nested TCA_STAB_BASE (struct tc_sizespec) and TCA_STAB_DATA (u16s)
    "TCA_STAB": _nested(dict(enumerate(("TCA_STAB_UNSPEC", "TCA_STAB_BASE", "TCA_STAB_DATA"))),
                        "TCA_STAB_???", {
        "TCA_STAB_BASE": _struct_u("<BBhiIIII", ("cell_log", "size_log", "cell_align",
                                                 "overhead", "linklayer", "mpu", "mtu",
                                                 "tsize")),
        "TCA_STAB_DATA": _struct_array(2, lambda c, k, raw: str(int.from_bytes(raw, "little")))}),
}
_TCA_ACT["TCA_ACT_STATS"] = _tca_stats2


def _tcmsg(c: _Ctx, family: int, off: int, n: int) -> str:
    """struct tcmsg (linux/rtnetlink.h), then TCA_* attributes (TCA_OPTIONS, the
    qdisc's own, as hex)."""
    text = f"{{tcm_family={_family(c, family)}, "
    if n < _TCMSG.size:
        return text + "...}"
    _, index, handle, parent, info = _rest(c, text, off, _TCMSG)
    text += (f"tcm_ifindex={format_ifindex(index & 0xFFFFFFFF)}, tcm_handle={handle}, "
             f"tcm_parent={parent}, tcm_info={info}}}")
    if n > _TCMSG.size:
        text += ", " + _attrs(c, off + _TCMSG.size, n - _TCMSG.size, c.T.TCA_ATTRS, "TCA_???",
                              _TCA)
    return text


# -- NETLINK_SOCK_DIAG ----------------------------------------------------------------

_INET_REQ_V2 = struct.Struct("<BBBxI")          # struct inet_diag_req_v2, then the id
_SOCKID = struct.Struct(">HH16s16s")            # struct inet_diag_sockid: ports, addrs
_SOCKID_SIZE = 48
_INET_MSG = struct.Struct("<BBBB")              # struct inet_diag_msg, then id, then...
_INET_MSG_TAIL = struct.Struct("<IIIII")
_UNIX_REQ = struct.Struct("<BBxxIIIII")         # struct unix_diag_req
_UNIX_MSG = struct.Struct("<BBBxIII")           # struct unix_diag_msg


def _sock_diag(c: _Ctx, t: int, nflags: int, off: int, n: int) -> str:
    """A request (NLM_F_REQUEST) or a reply by its family (strace's
    netlink_sock_diag.c); TCPDIAG_GETSOCK and DCCPDIAG_GETSOCK requests are the old
    struct inet_diag_req."""
    family = c.take(off, 1)[0]
    request = bool(nflags & 1)
    if n <= 1:                      # the family alone: no decoder (strace's decode_family)
        return f"{{family={_family(c, family)}}}"
    if family in (socket.AF_INET, socket.AF_INET6):
        if request and c.T.SOCK_DIAG_TYPES.get(t) in ("TCPDIAG_GETSOCK", "DCCPDIAG_GETSOCK"):
            return _inet_req_compat(c, family, off, n)
        return _inet_req(c, family, off, n) if request else _inet_msg(c, family, off, n)
    if family == socket.AF_UNIX:
        return _unix_req(c, off, n) if request else _unix_msg(c, off, n)
    if family == _AF_NETLINK:
        return _netlink_req(c, off, n) if request else _netlink_msg(c, off, n)
    if family == socket.AF_PACKET:
        return _packet_req(c, off, n) if request else _packet_msg(c, off, n)
    if family == _AF_SMC:
        return _smc_req(c, off, n) if request else _smc_msg(c, off, n)
    text = f"{{family={_family(c, family)}"
    if n > 1:
        text += f", data={c.hexstr(off + 1, n - 1)}"
    return text + "}"


def _states(c: _Ctx, v: int) -> str:
    bits = tuple((1 << s, f"1<<{name}") for s, name in sorted(c.T.TCP_STATES.items()))
    return _flags(bits, v, "1<<TCP_???")


def _sockid(c: _Ctx, family: int, off: int) -> str:
    sport, dport, src, dst = _SOCKID.unpack(c.take(off, 36))
    iface, ck0, ck1 = struct.unpack("<III", c.take(off + 36, 12))
    return (f"{{idiag_sport=htons({sport}), idiag_dport=htons({dport}), "
            f"{_sockaddr_field(c, family, src, 'idiag_src')}, "
            f"{_sockaddr_field(c, family, dst, 'idiag_dst')}, "
            f"idiag_if={format_ifindex(iface)}, idiag_cookie=[{ck0}, {ck1}]}}")


def _sockaddr_field(c: _Ctx, family: int, data: bytes, field: str) -> str:
    if family == socket.AF_INET:
        return f'{field}=inet_addr("{ipaddress.IPv4Address(data[:4])}")'
    if family == socket.AF_INET6:
        return f'inet_pton(AF_INET6, "{socket.inet_ntop(socket.AF_INET6, data)}", &{field})'
    return f"{field}={quote(data, force_hex=True)}"


def _inet_req(c: _Ctx, family: int, off: int, n: int) -> str:
    T = c.T
    text = f"{{sdiag_family={_family(c, family)}, "
    size = _INET_REQ_V2.size + _SOCKID_SIZE
    if n < size:
        return text + "...}"
    _need(c, text, off, size)
    _, proto, ext, states = _INET_REQ_V2.unpack(c.take(off, _INET_REQ_V2.size))
    text += (f"sdiag_protocol={xval(T.IP_PROTOCOLS, proto, 'IPPROTO_???')}, "
             f"idiag_ext={_flags(_ext_bits(c), ext, '1<<INET_DIAG_???-1')}, "
             f"idiag_states={_states(c, states)}, "
             f"id={_sockid(c, family, off + _INET_REQ_V2.size)}}}")
    if n > size:
        text += ", " + _attrs(c, off + size, n - size, T.INET_DIAG_REQ_ATTRS,
                              "INET_DIAG_REQ_???", _INET_DIAG_REQ)
    return text


# INET_DIAG_REQ_BYTECODE: struct inet_diag_bc_op, then the op's data by its code
# (linux/inet_diag.h; strace's netlink_inet_diag.c)
_BC_CODES = dict(enumerate("INET_DIAG_BC_" + n for n in (
    "NOP", "JMP", "S_GE", "S_LE", "D_GE", "D_LE", "AUTO", "S_COND", "D_COND", "DEV_COND",
    "MARK_COND", "S_EQ", "D_EQ", "CGROUP_COND")))
_BC_OP = struct.Struct("<BBH")              # struct inet_diag_bc_op: code, yes, no
_BC_HOSTCOND = struct.Struct("<BBxxI")      # struct inet_diag_hostcond: family, prefix_len, port
_BC_MARKCOND = struct.Struct("<II")         # struct inet_diag_markcond


def _bc_op(data: bytes) -> str:
    code, yes, no = _BC_OP.unpack(data)
    return f"{{code={xval(_BC_CODES, code, 'INET_DIAG_BC_???')}, yes={yes}, no={no}}}"


def _inet_addr_field(c: _Ctx, family: int, off: int, n: int, field: str) -> str:
    """strace's decode_inet_addr with a field name: an AF_INET or AF_INET6 address when
    ``n`` holds one, else the bytes in hex; the address of unreadable bytes."""
    size = {int(socket.AF_INET): 4, int(socket.AF_INET6): 16}.get(family, 0)
    if not size or n < size:
        return f"{field}={c.hexstr(off, n)}"
    try:
        return _inet_text(c, family, off, n, field) or ""
    except _Fault:
        return f"{field}={c.at(off)}"


def _bc_data(c: _Ctx, code: int, off: int, n: int) -> str:
    """What follows an op, by its code; shorter than its struct, or of another code: hex."""
    name = _BC_CODES.get(code, "")
    try:
        if name in ("INET_DIAG_BC_S_COND", "INET_DIAG_BC_D_COND") and n >= _BC_HOSTCOND.size:
            family, plen, port = _BC_HOSTCOND.unpack(c.take(off, _BC_HOSTCOND.size))
            text = f"{{family={_family(c, family)}, prefix_len={plen}, port={port}"
            if n > _BC_HOSTCOND.size:
                text += ", " + _inet_addr_field(c, family, off + _BC_HOSTCOND.size,
                                                n - _BC_HOSTCOND.size, "addr")
            return text + "}"
        if name == "INET_DIAG_BC_DEV_COND" and n >= 4:
            return format_ifindex(struct.unpack("<I", c.take(off, 4))[0])
        if name in ("INET_DIAG_BC_S_GE", "INET_DIAG_BC_S_LE", "INET_DIAG_BC_D_GE",
                    "INET_DIAG_BC_D_LE") and n >= _BC_OP.size:
            return _bc_op(c.take(off, _BC_OP.size))
        if name == "INET_DIAG_BC_MARK_COND" and n >= _BC_MARKCOND.size:
            mark, mask = _BC_MARKCOND.unpack(c.take(off, _BC_MARKCOND.size))
            return f"{{mark={mark}, mask={mask}}}"
    except _Fault:
        return c.at(off)
    return c.hexstr(off, n)


def _bytecode(c: _Ctx, off: int, n: int) -> str | None:
    if n < _BC_OP.size:
        return None
    data = c.take(off, _BC_OP.size)
    text = _bc_op(data)
    if n > _BC_OP.size:
        text += ", " + _bc_data(c, data[0], off + _BC_OP.size, n - _BC_OP.size)
    return text


_INET_DIAG_REQ: dict[str, Nla] = {
    "INET_DIAG_REQ_BYTECODE": _bytecode,
    "INET_DIAG_REQ_PROTOCOL": _xval_attr("IP_PROTOCOLS", "IPPROTO_???", 0),
}


_INET_REQ_COMPAT = struct.Struct("<BBBB")       # struct inet_diag_req, then id, states, dbs


def _inet_req_compat(c: _Ctx, family: int, off: int, n: int) -> str:
    T = c.T
    text = f"{{idiag_family={_family(c, family)}, "
    size = _INET_REQ_COMPAT.size + _SOCKID_SIZE + 8
    if n < size:
        return text + "...}"
    _need(c, text, off, size)
    _, slen, dlen, ext = _INET_REQ_COMPAT.unpack(c.take(off, _INET_REQ_COMPAT.size))
    states, dbs = struct.unpack("<II", c.take(off + _INET_REQ_COMPAT.size + _SOCKID_SIZE, 8))
    text += (f"idiag_src_len={slen}, idiag_dst_len={dlen}, "
             f"idiag_ext={_flags(_ext_bits(c), ext, '1<<INET_DIAG_???-1')}, "
             f"id={_sockid(c, family, off + _INET_REQ_COMPAT.size)}, "
             f"idiag_states={_states(c, states)}, idiag_dbs={dbs}}}")
    if n > size:
        text += ", " + _attrs(c, off + size, n - size, T.INET_DIAG_REQ_ATTRS,
                              "INET_DIAG_REQ_???", _INET_DIAG_REQ)
    return text


def _ext_bits(c: _Ctx) -> tuple[tuple[int, str], ...]:
    """idiag_ext's bits: ``1<<(INET_DIAG_MEMINFO-1)`` ... (extensions 1 to 8)."""
    return tuple((1 << (v - 1), f"1<<({name}-1)")
                 for v, name in sorted(c.T.INET_DIAG_ATTRS.items()) if 0 < v <= 8)


def _shutdown(c: _Ctx, off: int, n: int) -> str | None:
    if n < 1 or n > 8:
        return None
    v = c.take(off, 1)[0]
    if not v:
        return "0"
    names = _flags(tuple(sorted(c.T.SHUTDOWN_BITS.items())), v, "???_SHUTDOWN")
    # strace's verbose style: the number, its names in a comment; no bit named: the
    # default's comment alone (``0x4 /* ???_SHUTDOWN */``)
    return names if names.startswith("0x") else f"{v:#x} /* {names} */"


# SK_MEMINFO_* u32 array: ``[[SK_MEMINFO_RMEM_ALLOC]=0, ...]``
_meminfo = _indexed("<I", lambda c: c.T.SK_MEMINFO, "SK_MEMINFO_???")


# struct inet_diag_sockopt's bits (linux/inet_diag.h), low bit first, two bytes
_SOCKOPT_BITS = ("recverr", "is_icsk", "freebind", "hdrincl", "mc_loop", "transparent",
                 "mc_all", "nodefrag", "bind_address_no_port", "recverr_rfc4884",
                 "defer_connect")


def _sockopt(c: _Ctx, off: int, n: int) -> str | None:
    """The bits that are set; under -v every bit, and the 5 unused ones with strace's
    comment (``unused=0 /* bits 3..8 */``)."""
    if n < 2:
        return None
    word = int.from_bytes(c.take(off, 2), "little")
    if c.verbose:
        got = [f"{name}={word >> k & 1}" for k, name in enumerate(_SOCKOPT_BITS)]
        unused = word >> 11
        got.append(f"unused={unused:#x} /* bits 3..8 */" if unused else
                   "unused=0 /* bits 3..8 */")
        return "{" + ", ".join(got) + "}"
    got = [f"{name}=1" for k, name in enumerate(_SOCKOPT_BITS) if word >> k & 1]
    if word >> 11:
        got.append(f"unused={word >> 11:#x} /* bits 3..8 */")
    return "{" + ", ".join(got) + "}" + _nonzero_rest(c, off, 2, n)


def _nonzero_rest(c: _Ctx, off: int, start: int, n: int) -> str:
    """strace's print_nonzero_bytes: the bytes ``start`` to ``n`` of a struct at ``off``
    that has grown, when one is not zero: ``, /* bytes 2..3 */ "\x00\xff"`` (at most
    -s of them shown); ``, ???`` when unreadable."""
    if start >= n:
        return ""
    try:
        data = c.take(off + start, n - start)
    except _Fault:
        return ", ???"
    if not any(data):
        return ""
    shown = data[:c.limit]
    return (f", /* bytes {start}..{n - 1} */ "
            f"{quote(shown, force_hex=True, more=len(shown) < len(data))}")


_TLS_VERSIONS = {0x303: "TLS_1_2_VERSION", 0x304: "TLS_1_3_VERSION"}
_TLS_CIPHERS = {k: "TLS_CIPHER_" + n for k, n in enumerate((
    "AES_GCM_128", "AES_GCM_256", "AES_CCM_128", "CHACHA20_POLY1305", "SM4_GCM", "SM4_CCM",
    "ARIA_GCM_128", "ARIA_GCM_256"), 51)}
_TLS_CONFS = {k: "TLS_CONF_" + n for k, n in enumerate(("BASE", "SW", "HW", "HW_RECORD"), 1)}
_TLS_INFO_ATTRS = dict(enumerate("TLS_INFO_" + n for n in (
    "UNSPEC", "VERSION", "CIPHER", "TXCONF", "RXCONF", "ZC_RO_TX", "RX_NO_PAD")))
_MPTCP_ATTRS = dict(enumerate("MPTCP_SUBFLOW_ATTR_" + n for n in (
    "UNSPEC", "TOKEN_REM", "TOKEN_LOC", "RELWRITE_SEQ", "MAP_SEQ", "MAP_SFSEQ",
    "SSN_OFFSET", "MAP_DATALEN", "FLAGS", "ID_REM", "ID_LOC", "PAD")))
_MPTCP_FLAGS = {1 << k: "MPTCP_SUBFLOW_FLAG_" + n for k, n in enumerate((
    "MCAP_REM", "MCAP_LOC", "JOIN_REM", "JOIN_LOC", "BKUP_REM", "BKUP_LOC",
    "FULLY_ESTABLISHED", "CONNECTED", "MAPVALID"))}
_TLS_CONF = _named(_TLS_CONFS, "TLS_CONF_???", 2)
# INET_DIAG_ULP_INFO: the ULP's name, TLS's or MPTCP's nested attributes
_ULP_INFO = _nested(
    dict(enumerate(("INET_ULP_INFO_UNSPEC", "INET_ULP_INFO_NAME", "INET_ULP_INFO_TLS",
                    "INET_ULP_INFO_MPTCP"))), "INET_ULP_INFO_???", {
        "INET_ULP_INFO_NAME": _nla_str,
        "INET_ULP_INFO_TLS": _nested(_TLS_INFO_ATTRS, "TLS_INFO_???", {
            "TLS_INFO_VERSION": _named(_TLS_VERSIONS, "TLS_???_VERSION", 2),
            "TLS_INFO_CIPHER": _named(_TLS_CIPHERS, "TLS_CIPHER_???", 2),
            "TLS_INFO_TXCONF": _TLS_CONF, "TLS_INFO_RXCONF": _TLS_CONF}),
        "INET_ULP_INFO_MPTCP": _nested(_MPTCP_ATTRS, "MPTCP_SUBFLOW_ATTR_???", {
            "MPTCP_SUBFLOW_ATTR_TOKEN_REM": _xint(4), "MPTCP_SUBFLOW_ATTR_TOKEN_LOC": _xint(4),
            "MPTCP_SUBFLOW_ATTR_RELWRITE_SEQ": _u32, "MPTCP_SUBFLOW_ATTR_MAP_SEQ": _u64,
            "MPTCP_SUBFLOW_ATTR_MAP_SFSEQ": _u32, "MPTCP_SUBFLOW_ATTR_SSN_OFFSET": _u32,
            "MPTCP_SUBFLOW_ATTR_MAP_DATALEN": _u16,
            "MPTCP_SUBFLOW_ATTR_FLAGS": _named(_MPTCP_FLAGS, "MPTCP_SUBFLOW_FLAG_???", 4,
                                               flags=True),
            "MPTCP_SUBFLOW_ATTR_ID_REM": _u8, "MPTCP_SUBFLOW_ATTR_ID_LOC": _u8})})
# INET_DIAG_SK_BPF_STORAGES: SK_DIAG_BPF_STORAGE, each a map's id and value
_BPF_STORAGES = _nested({0: "SK_DIAG_BPF_STORAGE_REP_NONE", 1: "SK_DIAG_BPF_STORAGE"},
                        "SK_DIAG_BPF_STORAGE_???", {"SK_DIAG_BPF_STORAGE": _nested(
                            dict(enumerate("SK_DIAG_BPF_STORAGE_" + n for n in (
                                "NONE", "PAD", "MAP_ID", "MAP_VALUE"))),
                            "SK_DIAG_BPF_STORAGE_???",
                            {"SK_DIAG_BPF_STORAGE_MAP_ID": _u32,
                             "SK_DIAG_BPF_STORAGE_MAP_VALUE": _xint()})})


_MD5SIG = struct.Struct("<BBH16s80s")       # struct tcp_diag_md5sig (linux/tcp.h)


def _md5sig(c: _Ctx, k: int, raw: bytes) -> str:
    family, plen, keylen, addr, key = _MD5SIG.unpack(raw)
    return (f"{{tcpm_family={_family(c, family)}, tcpm_prefixlen={plen}, "
            f"tcpm_keylen={keylen}, {_sockaddr_field(c, family, addr, 'tcpm_addr')}, "
            f"tcpm_key={quote(key[:keylen], force_hex=True)}}}")


def _sockaddr_storage(c: _Ctx, k: int, raw: bytes) -> str:
    return format_sockaddr(raw, c.T.ADDRESS_FAMILIES)


_SOCKADDR_STORAGE_SIZE = 128


_INET_DIAG: dict[str, Nla] = {
    "INET_DIAG_VEGASINFO": _struct_u("<4I", ("tcpv_enabled", "tcpv_rttcnt", "tcpv_rtt",
                                             "tcpv_minrtt")),
    "INET_DIAG_DCTCPINFO": _struct_u("<HH3I", ("dctcp_enabled", "dctcp_ce_state",
                                               "dctcp_alpha", "dctcp_ab_ecn",
                                               "dctcp_ab_tot")),
    "INET_DIAG_BBRINFO": _struct_u("<5I", ("bbr_bw_lo", "bbr_bw_hi", "bbr_min_rtt",
                                           "bbr_pacing_gain", "bbr_cwnd_gain"),
                                   ("bbr_bw_lo", "bbr_bw_hi")),
    "INET_DIAG_MD5SIG": _struct_array(_MD5SIG.size, _md5sig),
    "INET_DIAG_LOCALS": _struct_array(_SOCKADDR_STORAGE_SIZE, _sockaddr_storage),
    "INET_DIAG_PEERS": _struct_array(_SOCKADDR_STORAGE_SIZE, _sockaddr_storage),
    "INET_DIAG_ULP_INFO": _ULP_INFO, "INET_DIAG_SK_BPF_STORAGES": _BPF_STORAGES,
    "INET_DIAG_MEMINFO": _struct_u("<4I", ("idiag_rmem", "idiag_wmem", "idiag_fmem",
                                           "idiag_tmem")),
    "INET_DIAG_CONG": _nla_str, "INET_DIAG_TOS": _u8, "INET_DIAG_TCLASS": _u8,
    "INET_DIAG_SKMEMINFO": _meminfo, "INET_DIAG_SHUTDOWN": _shutdown,
    "INET_DIAG_PROTOCOL": _xval_attr("IP_PROTOCOLS", "IPPROTO_???", 0),
    "INET_DIAG_SKV6ONLY": _u8, "INET_DIAG_MARK": _u32,
    "INET_DIAG_CLASS_ID": _u32, "INET_DIAG_CGROUP_ID": _u64, "INET_DIAG_SOCKOPT": _sockopt,
}


def _inet_msg(c: _Ctx, family: int, off: int, n: int) -> str:
    T = c.T
    text = f"{{idiag_family={_family(c, family)}, "
    size = _INET_MSG.size + _SOCKID_SIZE + _INET_MSG_TAIL.size
    if n < size:
        return text + "...}"
    _need(c, text, off, size)
    _, state, timer, retrans = _INET_MSG.unpack(c.take(off, _INET_MSG.size))
    expires, rq, wq, uid, ino = _INET_MSG_TAIL.unpack(
        c.take(off + _INET_MSG.size + _SOCKID_SIZE, _INET_MSG_TAIL.size))
    text += (f"idiag_state={xval(T.TCP_STATES, state, 'TCP_???')}, idiag_timer={timer}, "
             f"idiag_retrans={retrans}, id={_sockid(c, family, off + _INET_MSG.size)}, "
             f"idiag_expires={expires}, idiag_rqueue={rq}, idiag_wqueue={wq}, "
             f"idiag_uid={uid}, idiag_inode={ino}}}")
    if n > size:
        text += ", " + _attrs(c, off + size, n - size, T.INET_DIAG_ATTRS, "INET_DIAG_???",
                              _INET_DIAG)
    return text


def _unix_req(c: _Ctx, off: int, n: int) -> str:
    T = c.T
    text = "{sdiag_family=AF_UNIX, "
    if n < _UNIX_REQ.size:
        return text + "...}"
    _, proto, states, ino, show, ck0, ck1 = _rest(c, text, off, _UNIX_REQ)
    return (text + f"sdiag_protocol={proto}, udiag_states={_states(c, states)}, "
            f"udiag_ino={ino}, udiag_show={_flags(T.UDIAG_SHOW_FLAGS, show, 'UDIAG_SHOW_???')}, "
            f"udiag_cookie=[{ck0}, {ck1}]}}")


def _unix_vfs(c: _Ctx, off: int, n: int) -> str | None:
    """struct unix_diag_vfs (ino, then dev) as strace prints it: the dev first, as a
    makedev()."""
    if n < 8:
        return None
    ino, dev = struct.unpack("<II", c.take(off, 8))
    return f"{{udiag_vfs_dev={makedev(dev)}, udiag_vfs_ino={ino}}}"


_UNIX_DIAG: dict[str, Nla] = {
    "UNIX_DIAG_NAME": _nla_str,
    "UNIX_DIAG_VFS": _unix_vfs,
    "UNIX_DIAG_PEER": _u32,
    "UNIX_DIAG_ICONS": _struct_array(4, lambda c, k, raw: str(int.from_bytes(raw, "little"))),
    "UNIX_DIAG_RQLEN": _struct_u("<II", ("udiag_rqueue", "udiag_wqueue")),
    "UNIX_DIAG_MEMINFO": _meminfo, "UNIX_DIAG_SHUTDOWN": _shutdown, "UNIX_DIAG_UID": _u32,
}


def _unix_msg(c: _Ctx, off: int, n: int) -> str:
    T = c.T
    text = "{udiag_family=AF_UNIX, "
    if n < _UNIX_MSG.size:
        return text + "...}"
    _, stype, state, ino, ck0, ck1 = _rest(c, text, off, _UNIX_MSG)
    text += (f"udiag_type={xval(T.SOCK_TYPES, stype, 'SOCK_???')}, "
             f"udiag_state={xval(T.TCP_STATES, state, 'TCP_???')}, udiag_ino={ino}, "
             f"udiag_cookie=[{ck0}, {ck1}]}}")
    if n > _UNIX_MSG.size:
        text += ", " + _attrs(c, off + _UNIX_MSG.size, n - _UNIX_MSG.size, T.UNIX_DIAG_ATTRS,
                              "UNIX_DIAG_???", _UNIX_DIAG)
    return text


_NETLINK_REQ = struct.Struct("<BBxxIIII")     # struct netlink_diag_req
_NETLINK_MSG = struct.Struct("<BBBBIIIIII")   # struct netlink_diag_msg
_PACKET_REQ = struct.Struct("<BBxxIIII")      # struct packet_diag_req
_NDIAG_PROTO_ALL = 255
# netlink_diag_msg's ndiag_state as strace 6.1 names it (its netlink_states: the two of
# linux/netlink.h and TCP_CLOSE, which af_netlink gives a socket released; measured:
# 2 is 0x2 /* NETLINK_??? */, 10 0xa /* NETLINK_??? */)
_NETLINK_STATES = {0: "NETLINK_UNCONNECTED", 1: "NETLINK_CONNECTED", 7: "TCP_CLOSE"}


def _netlink_req(c: _Ctx, off: int, n: int) -> str:
    T = c.T
    text = "{sdiag_family=AF_NETLINK, "
    if n < _NETLINK_REQ.size:
        return text + "...}"
    _, proto, ino, show, ck0, ck1 = _rest(c, text, off, _NETLINK_REQ)
    ptext = ("NDIAG_PROTO_ALL" if proto == _NDIAG_PROTO_ALL
             else xval(T.NETLINK_PROTOCOLS, proto, "NETLINK_???"))
    return (text + f"sdiag_protocol={ptext}, ndiag_ino={ino}, "
            f"ndiag_show={_flags(T.NDIAG_SHOW_FLAGS, show, 'NDIAG_SHOW_???')}, "
            f"ndiag_cookie=[{ck0}, {ck1}]}}")


def _groups(c: _Ctx, off: int, n: int) -> str | None:
    """NETLINK_DIAG_GROUPS: the group bitmap in longs, ``[0x00000000000001]``
    (strace 6.1's %#016lx: 0 is sixteen zeros)."""
    count = n // 8
    if not count:
        return None
    out = []
    for k in range(count):
        if k == c.elems:
            out.append("...")
            break
        raw = _elem(c, out, off + 8 * k, 8)
        if raw is None:
            break
        v = struct.unpack("<Q", raw)[0]
        out.append(f"{v:#016x}" if v else "0" * 16)
    return "[" + ", ".join(out) + "]"


def _ndiag_flags(c: _Ctx, off: int, n: int) -> str | None:
    if n < 4:
        return None
    return _flags(c.T.NDIAG_FLAGS, struct.unpack("<I", c.take(off, 4))[0], "NDIAG_FLAG_???")


_NETLINK_DIAG: dict[str, Nla] = {
    "NETLINK_DIAG_MEMINFO": _meminfo, "NETLINK_DIAG_GROUPS": _groups,
    "NETLINK_DIAG_RX_RING": _struct_u("<4I", ("ndr_block_size", "ndr_block_nr",
                                              "ndr_frame_size", "ndr_frame_nr")),
    "NETLINK_DIAG_TX_RING": _struct_u("<4I", ("ndr_block_size", "ndr_block_nr",
                                              "ndr_frame_size", "ndr_frame_nr")),
    "NETLINK_DIAG_FLAGS": _ndiag_flags,
}


def _netlink_msg(c: _Ctx, off: int, n: int) -> str:
    T = c.T
    text = "{ndiag_family=AF_NETLINK, "
    if n < _NETLINK_MSG.size:
        return text + "...}"
    _, stype, proto, state, portid, dport, dgroup, ino, ck0, ck1 = _rest(c, text, off, _NETLINK_MSG)
    text += (f"ndiag_type={xval(T.SOCK_TYPES, stype, 'SOCK_???')}, "
             f"ndiag_protocol={xval(T.NETLINK_PROTOCOLS, proto, 'NETLINK_???')}, "
             f"ndiag_state={xval(_NETLINK_STATES, state, 'NETLINK_???')}, "
             f"ndiag_portid={portid}, ndiag_dst_portid={dport}, ndiag_dst_group={dgroup}, "
             f"ndiag_ino={ino}, ndiag_cookie=[{ck0}, {ck1}]}}")
    if n > _NETLINK_MSG.size:
        text += ", " + _attrs(c, off + _NETLINK_MSG.size, n - _NETLINK_MSG.size,
                              T.NETLINK_DIAG_ATTRS, "NETLINK_DIAG_???", _NETLINK_DIAG)
    return text


def _packet_req(c: _Ctx, off: int, n: int) -> str:
    text = "{sdiag_family=AF_PACKET, "
    if n < _PACKET_REQ.size:
        return text + "...}"
    _, proto, ino, show, ck0, ck1 = _rest(c, text, off, _PACKET_REQ)
    return (text + f"sdiag_protocol={hex0(proto)}, pdiag_ino={ino}, "
            f"pdiag_show={_flags(c.T.PACKET_SHOW_FLAGS, show, 'PACKET_SHOW_???')}, "
            f"pdiag_cookie=[{ck0}, {ck1}]}}")


_PACKET_MSG = struct.Struct("<BBHIII")         # struct packet_diag_msg
_PACKET_INFO = struct.Struct("<6I")            # struct packet_diag_info
_PDI_FLAGS = tuple((1 << k, "PDI_" + n) for k, n in enumerate((
    "RUNNING", "AUXDATA", "ORIGDEV", "VNETHDR", "LOSS")))
_TPACKET_VERSIONS = {0: "TPACKET_V1", 1: "TPACKET_V2", 2: "TPACKET_V3"}
_MCLIST = struct.Struct("<IIHH32s")            # struct packet_diag_mclist
_RING_FIELDS = ("pdr_block_size", "pdr_block_nr", "pdr_frame_size", "pdr_frame_nr",
                "pdr_retire_tmo", "pdr_sizeof_priv", "pdr_features")


def _packet_info(c: _Ctx, off: int, n: int) -> str | None:
    if n < _PACKET_INFO.size:
        return None
    index, version, reserve, thresh, tstamp, flags = _PACKET_INFO.unpack(
        c.take(off, _PACKET_INFO.size))
    return (f"{{pdi_index={format_ifindex(index)}, "
            f"pdi_version={xval(_TPACKET_VERSIONS, version, 'TPACKET_???')}, "
            f"pdi_reserve={reserve}, pdi_copy_thresh={thresh}, pdi_tstamp={tstamp}, "
            f"pdi_flags={_flags(_PDI_FLAGS, flags, 'PDI_???')}}}")


def _packet_mclist(c: _Ctx, off: int, n: int) -> str | None:
    """PACKET_DIAG_MCLIST: an array of struct packet_diag_mclist (the address's alen
    bytes in hex)."""
    count = n // _MCLIST.size
    if not count:
        return None
    out = []
    for k in range(count):
        if k == c.elems:
            out.append("...")
            break
        raw = _elem(c, out, off + k * _MCLIST.size, _MCLIST.size)
        if raw is None:
            break
        index, cnt, typ, alen, addr = _MCLIST.unpack(raw)
        shown = quote(addr[:min(alen, 32)], force_hex=True)
        out.append(f"{{pdmc_index={format_ifindex(index)}, pdmc_count={cnt}, "
                   f"pdmc_type={typ}, pdmc_alen={alen}, pdmc_addr={shown}}}")
    return "[" + ", ".join(out) + "]"


_PACKET_DIAG_ATTRS = dict(enumerate("PACKET_DIAG_" + n for n in (
    "INFO", "MCLIST", "RX_RING", "TX_RING", "FANOUT", "UID", "MEMINFO", "FILTER")))
_PACKET_DIAG: dict[str, Nla] = {
    "PACKET_DIAG_INFO": _packet_info, "PACKET_DIAG_MCLIST": _packet_mclist,
    "PACKET_DIAG_RX_RING": _struct_u("<7I", _RING_FIELDS),
    "PACKET_DIAG_TX_RING": _struct_u("<7I", _RING_FIELDS),
    "PACKET_DIAG_FANOUT": _u32, "PACKET_DIAG_UID": _uid,
}


def _packet_msg(c: _Ctx, off: int, n: int) -> str:
    """struct packet_diag_msg, then PACKET_DIAG_* attributes (the filter in hex)."""
    text = "{pdiag_family=AF_PACKET, "
    if n < _PACKET_MSG.size:
        return text + "...}"
    _, typ, num, ino, ck0, ck1 = _rest(c, text, off, _PACKET_MSG)
    text += (f"pdiag_type={xval(c.T.SOCK_TYPES, typ, 'SOCK_???')}, "
             f"pdiag_num={xval(c.T.ETH_P_PROTOCOLS, num, 'ETH_P_???')}, "
             f"pdiag_ino={ino}, pdiag_cookie=[{ck0}, {ck1}]}}")
    if n > _PACKET_MSG.size:
        text += ", " + _attrs(c, off + _PACKET_MSG.size, n - _PACKET_MSG.size,
                              _PACKET_DIAG_ATTRS, "PACKET_DIAG_???",
                              {**_PACKET_DIAG, "PACKET_DIAG_MEMINFO": _meminfo})
    return text


# AF_SMC's replies: struct smc_diag_msg (linux/smc_diag.h), SMC_DIAG_* attributes
_AF_SMC = 43
_SMC_MSG_HEAD = struct.Struct("<BBBB")
_SMC_MSG_TAIL = struct.Struct("<IQ")            # diag_uid, diag_inode (at 56, aligned)
_SMC_STATES = {1: "SMC_ACTIVE", 2: "SMC_INIT", 7: "SMC_CLOSED", 10: "SMC_LISTEN",
               20: "SMC_PEERCLOSEWAIT1", 21: "SMC_PEERCLOSEWAIT2", 22: "SMC_APPCLOSEWAIT1",
               23: "SMC_APPCLOSEWAIT2", 24: "SMC_APPFINCLOSEWAIT", 25: "SMC_PEERFINCLOSEWAIT",
               26: "SMC_PEERABORTWAIT", 27: "SMC_PROCESSABORT"}
_SMC_MODES = {0: "SMC_DIAG_MODE_SMCR", 1: "SMC_DIAG_MODE_FALLBACK_TCP",
              2: "SMC_DIAG_MODE_SMCD"}
_SMC_DECL = {0x01010000: "MEM", 0x02010000: "TIMEOUT_CL", 0x02020000: "TIMEOUT_AL",
             0x03000000: "CNFERR", 0x03010000: "PEERNOSMC", 0x03020000: "IPSEC",
             0x03030000: "NOSMCDEV", 0x03040000: "MODEUNSUPP", 0x03050000: "RMBE_EC",
             0x03060000: "OPTUNSUPP", 0x04000000: "SYNCERR", 0x05000000: "PEERDECL",
             0x99990000: "INTERR", 0x99990001: "ERR_RTOK", 0x99990002: "ERR_RDYLNK",
             0x99990003: "ERR_REGRMB"}
_SMC_CURSOR = struct.Struct("<HHI")
_SMC_CONNINFO_SIZE = 76


def _smc_cursor(c: _Ctx, off: int) -> str:
    reserved, wrap, count = _SMC_CURSOR.unpack(c.take(off, 8))
    return f"{{reserved={reserved}, wrap={wrap}, count={count}}}"


def _smc_conninfo(c: _Ctx, off: int, n: int) -> str | None:
    """struct smc_diag_conninfo: sizes, cursors, the producer/consumer flag bytes."""
    if n < _SMC_CONNINFO_SIZE:
        return None
    token, snd, rmbe, peer = struct.unpack("<4I", c.take(off, 16))
    out = [f"token={token}", f"sndbuf_size={snd}", f"rmbe_size={rmbe}",
           f"peer_rmbe_size={peer}"]
    out += [f"{f}={_smc_cursor(c, off + 16 + 8 * k)}"
            for k, f in enumerate(("rx_prod", "rx_cons", "tx_prod", "tx_cons"))]
    flags = c.take(off + 48, 4)
    out += [f"{f}={f'{v:#04x}' if v else '00'}" for f, v in zip(
        ("rx_prod_flags", "rx_conn_state_flags", "tx_prod_flags", "tx_conn_state_flags"),
        flags, strict=True)]
    out += [f"{f}={_smc_cursor(c, off + 52 + 8 * k)}"
            for k, f in enumerate(("tx_prep", "tx_sent", "tx_fin"))]
    return "{" + ", ".join(out) + "}"


def _cstr_field(data: bytes) -> str:
    """A char array printed to its NUL, ``...`` when the NUL is not within it but the
    last byte (strace's print_quoted_cstring)."""
    body = data[:-1]
    end = body.find(b"\0")
    return quote(body[:end]) if end >= 0 else quote(body, more=True)


def _smc_lgrinfo(c: _Ctx, off: int, n: int) -> str | None:
    """struct smc_diag_lgrinfo: one struct smc_diag_linkinfo, the role."""
    if n < 147:
        return None
    d = c.take(off, 147)
    lnk = (f"{{link_id={d[0]}, ibname={_cstr_field(d[1:65])}, ibport={d[65]}, "
           f"gid={_cstr_field(d[66:106])}, peer_gid={_cstr_field(d[106:146])}}}")
    return f"{{lnk=[{lnk}], role={xval({0: 'SMC_CLNT', 1: 'SMC_SERV'}, d[146], 'SMC_???')}}}"


def _smc_dmbinfo(c: _Ctx, off: int, n: int) -> str | None:
    if n < 40:
        return None
    link, = struct.unpack("<I", c.take(off, 4))
    vals = struct.unpack("<4Q", c.take(off + 8, 32))
    names = ("peer_gid", "my_gid", "token", "peer_token")
    return (f"{{linkid={link}, " + ", ".join(
        f"{f}={hex0(v)}" for f, v in zip(names, vals, strict=True)) + "}")


def _smc_fallback(c: _Ctx, off: int, n: int) -> str | None:
    """struct smc_diag_fallback: CLC decline codes, verbose (their header is not UAPI)."""
    if n < 8:
        return None
    reason, peer = struct.unpack("<II", c.take(off, 8))

    def code(v: int) -> str:
        name = _SMC_DECL.get(v)
        return f"{hex0(v)} /* {'SMC_CLC_DECL_' + name if name else 'SMC_CLC_DECL_???'} */"
    return f"{{reason={code(reason)}, peer_diagnosis={code(peer)}}}"


def _smc_shutdown(c: _Ctx, off: int, n: int) -> str | None:
    if n < 1 or n > 8:
        return None
    return _flags(tuple(sorted(c.T.SHUTDOWN_BITS.items())), c.take(off, 1)[0],
                  "???_SHUTDOWN")


_SMC_DIAG_ATTRS = dict(enumerate("SMC_DIAG_" + n for n in (
    "NONE", "CONNINFO", "LGRINFO", "SHUTDOWN", "DMBINFO", "FALLBACK")))
_SMC_DIAG: dict[str, Nla] = {
    "SMC_DIAG_CONNINFO": _smc_conninfo, "SMC_DIAG_LGRINFO": _smc_lgrinfo,
    "SMC_DIAG_SHUTDOWN": _smc_shutdown, "SMC_DIAG_DMBINFO": _smc_dmbinfo,
    "SMC_DIAG_FALLBACK": _smc_fallback}


_SMC_REQ_SIZE = 4 + _SOCKID_SIZE                # struct smc_diag_req: family, pad, ext, id
_SMC_EXT = ((1, "1<<(SMC_DIAG_CONNINFO-1)"), (2, "1<<(SMC_DIAG_LGRINFO-1)"))


def _smc_req(c: _Ctx, off: int, n: int) -> str:
    """struct smc_diag_req (its sockid an AF_INET one, as strace)."""
    text = "{diag_family=AF_SMC, "
    if n < _SMC_REQ_SIZE:
        return text + "...}"
    ext = _need(c, text, off, _SMC_REQ_SIZE)[3]
    return (text + f"diag_ext={_flags(_SMC_EXT, ext, '1<<SMC_DIAG_???-1')}, "
            f"id={_sockid(c, socket.AF_INET, off + 4)}}}")


def _smc_msg(c: _Ctx, off: int, n: int) -> str:
    """struct smc_diag_msg (its sockid an AF_INET one, as strace), then SMC_DIAG_*."""
    text = "{diag_family=AF_SMC, "
    size = _SMC_MSG_HEAD.size + _SOCKID_SIZE + _SMC_MSG_TAIL.size
    if n < size:
        return text + "...}"
    _need(c, text, off, size)
    _, state, mode, shut = _SMC_MSG_HEAD.unpack(c.take(off, 4))
    uid, ino = _SMC_MSG_TAIL.unpack(c.take(off + 4 + _SOCKID_SIZE, _SMC_MSG_TAIL.size))
    text += (f"diag_state={xval(_SMC_STATES, state, 'SMC_???')}, "
             f"diag_fallback={xval(_SMC_MODES, mode, 'SMC_DIAG_MODE_???')}, "
             f"diag_shutdown={shut}, id={_sockid(c, socket.AF_INET, off + 4)}, "
             f"diag_uid={uid}, diag_inode={ino}}}")
    if n > size:
        text += ", " + _attrs(c, off + size, n - size, _SMC_DIAG_ATTRS, "SMC_DIAG_???",
                              _SMC_DIAG)
    return text


# -- NETLINK_NETFILTER (linux/netfilter/nfnetlink.h) ----------------------------------
# A type is a subsystem (high byte) and its message (low byte); 0x10 and 0x11 are the
# batch markers. The subsystems and each one's messages as strace 6.1 names them.
_NFNL_BATCH = {0x10: "NFNL_MSG_BATCH_BEGIN", 0x11: "NFNL_MSG_BATCH_END"}
_NF_SUBSYS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("NFNL_SUBSYS_NONE", (), ""),
    ("NFNL_SUBSYS_CTNETLINK", tuple("IPCTNL_MSG_CT_" + n for n in (
        "NEW", "GET", "DELETE", "GET_CTRZERO", "GET_STATS_CPU", "GET_STATS", "GET_DYING",
        "GET_UNCONFIRMED")), "IPCTNL_MSG_CT_???"),
    ("NFNL_SUBSYS_CTNETLINK_EXP", tuple("IPCTNL_MSG_EXP_" + n for n in (
        "NEW", "GET", "DELETE", "GET_STATS_CPU")), "IPCTNL_MSG_EXP_???"),
    ("NFNL_SUBSYS_QUEUE", tuple("NFQNL_MSG_" + n for n in (
        "PACKET", "VERDICT", "CONFIG", "VERDICT_BATCH")), "NFQNL_MSG_???"),
    ("NFNL_SUBSYS_ULOG", ("NFULNL_MSG_PACKET", "NFULNL_MSG_CONFIG"), "NFULNL_MSG_???"),
    ("NFNL_SUBSYS_OSF", ("OSF_MSG_ADD", "OSF_MSG_REMOVE"), "OSF_MSG_???"),
    ("NFNL_SUBSYS_IPSET", tuple("IPSET_CMD_" + n for n in (
        "NONE", "PROTOCOL", "CREATE", "DESTROY", "FLUSH", "RENAME", "SWAP", "LIST", "SAVE",
        "ADD", "DEL", "TEST", "HEADER", "TYPE")), "IPSET_CMD_???"),
    ("NFNL_SUBSYS_ACCT", tuple("NFNL_MSG_ACCT_" + n for n in (
        "NEW", "GET", "GET_CTRZERO", "DEL", "OVERQUOTA")), "NFNL_MSG_ACCT_???"),
    ("NFNL_SUBSYS_CTNETLINK_TIMEOUT", tuple("IPCTNL_MSG_TIMEOUT_" + n for n in (
        "NEW", "GET", "DELETE", "DEFAULT_SET", "DEFAULT_GET")), "IPCTNL_MSG_TIMEOUT_???"),
    ("NFNL_SUBSYS_CTHELPER", ("NFNL_MSG_CTHELPER_NEW", "NFNL_MSG_CTHELPER_GET",
                              "NFNL_MSG_CTHELPER_DEL"), "NFNL_MSG_CTHELPER_???"),
    ("NFNL_SUBSYS_NFTABLES", tuple("NFT_MSG_" + n for n in (
        "NEWTABLE", "GETTABLE", "DELTABLE", "NEWCHAIN", "GETCHAIN", "DELCHAIN", "NEWRULE",
        "GETRULE", "DELRULE", "NEWSET", "GETSET", "DELSET", "NEWSETELEM", "GETSETELEM",
        "DELSETELEM", "NEWGEN", "GETGEN", "TRACE", "NEWOBJ", "GETOBJ", "DELOBJ",
        "GETOBJ_RESET", "NEWFLOWTABLE", "GETFLOWTABLE", "DELFLOWTABLE")), "NFT_MSG_???"),
    ("NFNL_SUBSYS_NFT_COMPAT", ("NFNL_MSG_COMPAT_GET",), "NFNL_MSG_COMPAT_???"),
    ("NFNL_SUBSYS_HOOK", ("NFNL_MSG_HOOK_GET",), "NFT_MSG_HOOK_???"),
)
# IPSET_CMD_ has more names past a gap: ipset's userspace commands
_IPSET_MORE = {k: "IPSET_CMD_" + n for k, n in (
    (16, "RESTORE"), (17, "HELP"), (18, "VERSION"), (19, "QUIT"), (20, "COMMIT"))}
_NFT_TABLES = 10
# the messages whose requests take NLM_F_* flags of a new / get / delete (strace's
# netlink.c)
_NF_FLAG_KINDS = {
    **dict.fromkeys(("IPCTNL_MSG_CT_NEW", "IPCTNL_MSG_EXP_NEW", "NFNL_MSG_ACCT_NEW",
                     "IPCTNL_MSG_TIMEOUT_NEW", "NFNL_MSG_CTHELPER_NEW", "NFT_MSG_NEWTABLE",
                     "NFT_MSG_NEWCHAIN", "NFT_MSG_NEWRULE", "NFT_MSG_NEWSET",
                     "NFT_MSG_NEWSETELEM", "NFT_MSG_NEWGEN", "NFT_MSG_NEWOBJ",
                     "NFT_MSG_NEWFLOWTABLE"), "new"),
    **dict.fromkeys(("IPCTNL_MSG_CT_GET", "IPCTNL_MSG_CT_GET_CTRZERO",
                     "IPCTNL_MSG_CT_GET_STATS_CPU", "IPCTNL_MSG_CT_GET_STATS",
                     "IPCTNL_MSG_CT_GET_DYING", "IPCTNL_MSG_CT_GET_UNCONFIRMED",
                     "IPCTNL_MSG_EXP_GET", "IPCTNL_MSG_EXP_GET_STATS_CPU",
                     "NFNL_MSG_ACCT_GET", "NFNL_MSG_ACCT_GET_CTRZERO",
                     "IPCTNL_MSG_TIMEOUT_GET", "NFNL_MSG_CTHELPER_GET", "NFT_MSG_GETTABLE",
                     "NFT_MSG_GETCHAIN", "NFT_MSG_GETRULE", "NFT_MSG_GETSET",
                     "NFT_MSG_GETSETELEM", "NFT_MSG_GETGEN", "NFT_MSG_GETOBJ",
                     "NFT_MSG_GETOBJ_RESET", "NFT_MSG_GETFLOWTABLE", "NFNL_MSG_COMPAT_GET",
                     "NFNL_MSG_HOOK_GET"), "get"),
    **dict.fromkeys(("IPCTNL_MSG_CT_DELETE", "IPCTNL_MSG_EXP_DELETE", "NFNL_MSG_ACCT_DEL",
                     "IPCTNL_MSG_TIMEOUT_DELETE", "NFNL_MSG_CTHELPER_DEL",
                     "NFT_MSG_DELTABLE", "NFT_MSG_DELCHAIN", "NFT_MSG_DELRULE",
                     "NFT_MSG_DELSET", "NFT_MSG_DELSETELEM", "NFT_MSG_DELOBJ",
                     "NFT_MSG_DELFLOWTABLE"), "del"),
}


def _nf_msg_name(t: int) -> str | None:
    """The name of a netfilter type's message within its subsystem, None when unnamed."""
    sub, msg = t >> 8 & 0xFF, t & 0xFF
    if t in _NFNL_BATCH or sub >= len(_NF_SUBSYS):
        return None
    names = _NF_SUBSYS[sub][1]
    if msg < len(names):
        return names[msg]
    return _IPSET_MORE.get(msg) if sub == 6 else None


def _nf_type(t: int) -> str:
    """A netfilter type (at least NLMSG_MIN_TYPE): ``NFNL_MSG_BATCH_BEGIN``,
    ``NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETGEN``, ``NFNL_SUBSYS_NONE<<8|0x12``,
    ``NFNL_SUBSYS_CTNETLINK<<8|0x8 /* IPCTNL_MSG_CT_??? */``,
    ``0xd /* NFNL_SUBSYS_??? */<<8|0x1``."""
    if t in _NFNL_BATCH:
        return _NFNL_BATCH[t]
    sub, msg = t >> 8 & 0xFF, t & 0xFF
    if sub >= len(_NF_SUBSYS):
        return f"{sub:#x} /* NFNL_SUBSYS_??? */<<8|{hex(msg) if msg else 0}"
    sname, names, dflt = _NF_SUBSYS[sub]
    name = _nf_msg_name(t)
    if name is None:
        name = f"{hex(msg) if msg else 0}" + (f" /* {dflt} */" if dflt else "")
    return f"{sname}<<8|{name}"


_NFGENMSG = struct.Struct("<BBH")       # struct nfgenmsg: family, version, res_id (be16)


def _nfgenmsg(c: _Ctx, t: int, off: int, n: int) -> str:
    """A netfilter message's struct nfgenmsg, then its attributes, printed generically
    (``nla_type=0x1`` and the data in hex), or a batch marker's bytes in hex."""
    if n < _NFGENMSG.size:
        return c.hexstr(off, n)
    family, version, raw = _NFGENMSG.unpack(c.take(off, _NFGENMSG.size))
    res_id = (raw >> 8 | raw << 8) & 0xFFFF
    sub = t >> 8 & 0xFF
    if sub == _NFT_TABLES and res_id == _NFT_TABLES:
        res = "htons(NFNL_SUBSYS_NFTABLES)"
    elif sub == _NFT_TABLES and raw == _NFT_TABLES:
        res = "NFNL_SUBSYS_NFTABLES"        # res_id in host order (linux before 4.3)
    else:
        res = f"htons({res_id})"
    text = (f"{{nfgen_family={_family(c, family)}, "
            f"version={xval({0: 'NFNETLINK_V0'}, version, 'NFNETLINK_???')}, res_id={res}}}")
    if n > _NFGENMSG.size:
        rest = off + _NFGENMSG.size, n - _NFGENMSG.size
        text += ", " + (c.hexstr(*rest) if t in _NFNL_BATCH else
                        _attrs(c, *rest, {}, None, {}))
    return text


# -- which sockets --------------------------------------------------------------------

def netlink_protocol(ev: Syscall, fd: int) -> int | None:
    """The netlink protocol of socket ``fd`` when strace would decode its messages with
    it: the record's CAP_FD description says the fd is an AF_NETLINK socket of a
    protocol this module decodes; -1 when the socket has no port id yet (sock_diag,
    from which strace learns the protocol, lists bound sockets only: strace decodes the
    messages generically), or is of another network namespace (which strace's sock_diag
    query, made in its own, does not see). None: print the buffer as a string."""
    for desc in fd_descs(ev.caps):
        if desc.fd != fd or desc.mode & _S_IFMT != _S_IFSOCK:
            continue
        if desc.family != _AF_NETLINK or desc.protocol in _NOT_DECODED:
            return None
        return desc.protocol if desc.portid and not foreign_netns(desc.netns) else -1
    return None


def _limit_text(d: SyscallDecoder, data: bytes, length: int, family: int,
                addr: int | None = None) -> str:
    key = ("netlink", data, length, family, d.string_limit, d.full, d.hex_strings, addr)
    text = d.texts.get(key)
    if text is None:
        text = d.remember(key, decode_netlink(data, length, family, d.flags, d.string_limit,
                                              verbose=d.full, hex_strings=d.hex_strings,
                                              addr=addr))
    return text


def _k_sendbuf(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """sendto's buffer: netlink messages on a netlink socket (its length the next
    argument), else a string."""
    family = netlink_protocol(ev, signed(ev.args[0], 32))
    got = readable(ev, i) if ev.args[i] else None
    if family is None or got is None:
        from tracekit.decode.args import k_bufw  # args imports this module
        return k_bufw(d, ev, i)
    data, whole = got
    return _limit_text(d, data, ev.args[i + 1], family, None if whole else ev.args[i])


def _k_recvbuf(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """recvfrom's buffer: the messages the call returned (no more than the buffer's
    length) on a netlink socket, else a string."""
    family = netlink_protocol(ev, signed(ev.args[0], 32))
    cap = capture(ev, i) if ev.args[i] else None
    if (family is None or cap is None or ev.ret < 0
            or ev.flags & (SC_UNFINISHED | SC_NORETURN)):
        from tracekit.decode.args import k_bufrn  # args imports this module
        return k_bufrn(d, ev, i)
    return _limit_text(d, cap.data, min(ev.ret, ev.args[i + 1]), family)


def iov_decoder(d: SyscallDecoder, ev: Syscall) -> Callable[[bytes, int], str] | None:
    """How sendmsg/recvmsg (and the mmsg calls) print an iovec's bytes on a netlink
    socket: ``(captured bytes, bytes strace reads) -> text``; None on other sockets
    (strings)."""
    family = netlink_protocol(ev, signed(ev.args[0], 32))
    if family is None:
        return None
    return lambda data, length: _limit_text(d, data, length, family)


def kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, int], str]]:
    """The argument kinds of this module (merged by tracekit.decode.args)."""
    return {"nlbufw": _k_sendbuf, "nlbufr": _k_recvbuf}
