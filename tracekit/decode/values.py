"""Values as strace prints them: strings, buffers, argv, sockaddr, timespec, return values.

These take captured user memory (``Capture`` from ``tracekit._events``, read by the BPF
program; layout in programs/syscalls.h) or raw register values, and return text. The
per-syscall choice of decoder is in ``tracekit.decode.argspec``; flag words are in
``tracekit.decode.flags``; the engine that applies them is :class:`SyscallDecoder`.

# Some facts about strace's quoting (strace 6.1, checked against its output here)

- A string is printed in double quotes; ``"`` and ``\\`` are backslash-escaped; ``\\t \\n
  \\v \\f \\r`` by name; other bytes outside 0x20..0x7e (so every byte >= 0x80 too, in the
  C locale) in octal, as short as possible unless the next printed byte is an octal
  digit, then three digits: ``"\\177ELF\\2\\1\\1\\3\\0\\0"``, ``"\\0001"``.
- Buffers and strings other than paths stop after ``-s`` bytes (32 by default) and get
  ``...`` after the closing quote when there was more; paths are printed whole.
- getrandom's buffer is always printed as ``\\xNN``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import struct
from collections.abc import Callable, Mapping

from tracekit._events import CAPF_ARGV_TRUNC, CAPF_FAULT, CAPF_TRUNC, Capture
from tracekit.decode import xstyle
from tracekit.decode.flags import FlagSet
from tracekit.kernel import flag_tables
from tracekit.kernel.syscalls import errno_name, format_ret

__all__ = [
    "ARGV_ELEM_MAX", "DEFAULT_STRING_LIMIT", "cstring_field", "format_argv", "format_envp",
    "format_ret_errno",
    "format_sockaddr", "format_timespec", "hex0", "neg_errno", "pointer", "quote", "signed",
    "xval", "xval_verbose",
]

DEFAULT_STRING_LIMIT = 32   # strace -s default
# The most bytes of one argv or envp element the BPF program reads (TK_ARGV_ELEM_MAX,
# programs/syscalls.h). A CAP_ENVP capture (envp with -v, argv with -v or -s above 32)
# keeps an element longer than its cap as cap + 1 bytes, so one longer than this was
# cut in the kernel, whatever -s says.
ARGV_ELEM_MAX = 1024

_TABLE: list[str] = []
for _b in range(256):
    if _b == 0x22:
        _TABLE.append('\\"')
    elif _b == 0x5C:
        _TABLE.append("\\\\")
    elif 0x20 <= _b < 0x7F:
        _TABLE.append(chr(_b))
    else:
        _TABLE.append({9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}.get(_b, ""))
_SHORT = [t or f"\\{b:o}" for b, t in enumerate(_TABLE)]   # octal as short as possible
# An octal escape followed by an octal digit must be written with three digits.
_OCTAL_THEN_DIGIT = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f-\xff][0-7]")
_NUL = b"\0"
_SUN_PATH_MAX = 108         # sizeof(struct sockaddr_un.sun_path), include/uapi/linux/un.h
_OCTAL_DIGITS = frozenset(b"01234567")
_OCTAL_DIGIT_BYTES = frozenset(bytes([d]) for d in b"01234567")
_PLAIN = bytes(b for b in range(0x20, 0x7F) if b not in (0x22, 0x5C))
# each byte's kind for quote(): "." printed as itself (_PLAIN), "e" escaped
_KINDS = bytes(0x2E if b in _PLAIN else 0x65 for b in range(256))


def quote(data: bytes, *, limit: int | None = None, more: bool = False,
          force_hex: bool = False) -> str:
    r"""Bytes as a strace string literal.

    Args:
      data: the bytes (a string without its NUL, or a buffer).
      limit: print at most this many bytes; ``...`` follows when ``data`` is longer.
      more: there was more than ``data`` (a capture cut at its cap): add ``...``.
      force_hex: every byte as ``\xNN`` (getrandom).

    Returns:
      ``"abc"``, ``"\177ELF\2"...``.
    """
    if limit is not None and len(data) > limit:
        data, more = data[:limit], True
    tail = '"...' if more else '"'
    if force_hex:
        return '"' + "".join(f"\\x{b:02x}" for b in data) + tail
    if not data.translate(None, _PLAIN):             # all printable: the common case
        return '"' + data.decode("ascii") + tail
    kinds = data.translate(_KINDS)
    if kinds.count(b"e") * 16 <= len(data):          # text with a few escapes: by runs
        return '"' + _quote_runs(data, kinds) + tail
    if not _OCTAL_THEN_DIGIT.search(data):
        return '"' + "".join(map(_SHORT.__getitem__, data)) + tail
    out = []
    n = len(data)
    for i, b in enumerate(data):
        s = _TABLE[b]
        if not s:
            if i + 1 < n and data[i + 1] in _OCTAL_DIGITS:
                s = f"\\{b:03o}"
            else:
                s = f"\\{b:o}"
        out.append(s)
    return '"' + "".join(out) + tail


def _quote_runs(data: bytes, kinds: bytes) -> str:
    """:func:`quote`'s text (without quotes) of bytes that are mostly printable, each
    printable run copied at once: ``kinds`` is ``data.translate(_KINDS)``, whose split at
    ``e`` gives the length of the run before each escaped byte. An octal escape is
    written with three digits when the next byte is an octal digit."""
    text = data.decode("latin-1")
    out = []
    at = 0
    for run in kinds.split(b"e")[:-1]:
        j = at + len(run)
        b = data[j]
        out.append(text[at:j])
        out.append(_TABLE[b] or (f"\\{b:03o}" if data[j + 1:j + 2] in _OCTAL_DIGIT_BYTES
                                 else _SHORT[b]))
        at = j + 1
    out.append(text[at:])
    return "".join(out)


def pointer(v: int) -> str:
    """An address: ``NULL`` for 0, else hex."""
    return "NULL" if v == 0 else hex(v)


def xval(table: Mapping[int, str], v: int, unknown: str | None) -> str:
    """A named constant as strace's printxval prints it: its name, or ``0x5 /*
    FUTEX_OP_??? */`` (``0 /* MS_??? */`` for 0) for a value without one. With ``-X
    raw`` the number alone (``0x5``), with ``-X verbose`` ``0x2 /* NAME */``
    (tracekit.decode.xstyle). Without ``unknown`` a value without a name prints as
    the number alone (``0x5``), in every style."""
    name = table.get(v)
    if xstyle.STYLE:
        if name is not None:
            return xstyle.named(hex0(v), name)
        if xstyle.STYLE == xstyle.RAW or unknown is None:
            return hex0(v)
    if name is not None:
        return name
    return hex0(v) if unknown is None else f"{hex0(v)} /* {unknown} */"


def neg_errno(v: int) -> str:
    """A negated errno as strace's print_err prints a field of one: ``-EACCES`` for one
    that has a name (``-13`` with -X raw, ``-13 /* -EACCES */`` with -X verbose), any
    other value as the number."""
    if v < 0:
        name = errno_name(-v)
        if not name[1:].isdigit():
            return xstyle.named(str(v), f"-{name}")
    return str(v)


def signed(v: int, bits: int = 64) -> int:
    """A register value read as a signed integer of ``bits`` bits."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def cap_string(cap: Capture, *, limit: int | None = None) -> str:
    """A captured C string (CAP_STR) or buffer (CAP_BUF), quoted; a FAULT is unreadable."""
    return quote(cap.data, limit=limit, more=bool(cap.flags & CAPF_TRUNC))


def format_argv(cap: Capture, *, limit: int | None = DEFAULT_STRING_LIMIT,
                max_items: int | None = DEFAULT_STRING_LIMIT) -> str:
    """execve's argv (CAP_ARGV): ``["ls", "-l"]``; empty strings and order kept.

    A cut last element (no NUL) is quoted with ``...``; a cut array (ARGV_TRUNC, or more
    than ``max_items``) ends with ``, ...``. An element longer than ``ARGV_ELEM_MAX`` was
    cut in the kernel: it shows at most ``ARGV_ELEM_MAX`` bytes and ``...`` whatever
    ``limit`` allows (strace, reading it whole, would show up to ``limit``), never as if
    it were complete.
    """
    parts = cap.data.split(b"\0")
    cut_last = parts[-1] != b""
    items = parts if cut_last else parts[:-1]
    more = bool(cap.flags & CAPF_ARGV_TRUNC)
    if max_items is not None and len(items) > max_items:
        items, more, cut_last = items[:max_items], True, False
    out = [quote(a, limit=limit) if len(a) <= ARGV_ELEM_MAX else
           quote(a[:ARGV_ELEM_MAX if limit is None else min(limit, ARGV_ELEM_MAX)], more=True)
           for a in items]
    if cut_last and out:
        out[-1] = quote(items[-1], limit=limit, more=True)
    if more:
        out.append("...")
    return "[" + ", ".join(out) + "]"


def envp_comment(n: int) -> str:
    """strace's count of execve's environment: ``/* 23 vars */``, ``/* 1 var */``
    (strace's execve.c names one var in the singular; getdents' entries stay plural)."""
    return f"/* {n} var{'' if n == 1 else 's'} */"


def format_envp(v: int, cap: Capture | None) -> str:
    """execve's envp as strace prints it by default: ``0x7ffc... /* 23 vars */``."""
    if cap is None or cap.flags & CAPF_FAULT:
        return pointer(v)
    n = cap.data.count(b"\0") + (0 if cap.data.endswith(b"\0") or not cap.data else 1)
    if cap.flags & CAPF_ARGV_TRUNC:
        return f"{pointer(v)} /* {n}+ vars */"
    return f"{pointer(v)} {envp_comment(n)}"


def format_timespec(data: bytes) -> str | None:
    """A struct timespec (16 bytes, two s64): ``{tv_sec=1, tv_nsec=0}``; None if short."""
    if len(data) < 16:
        return None
    sec, nsec = struct.unpack_from("<qQ", data)     # tv_nsec unsigned, as strace
    return f"{{tv_sec={sec}, tv_nsec={nsec}}}"


# The running arch's family names, for callers that give none.
_FAMILIES: Mapping[int, str] = flag_tables.for_arch().ADDRESS_FAMILIES
# uapi constants that are the same on every arch (ETH_P_*, ARPHRD_*, PACKET_*, VMADDR_*)
_CONSTS = flag_tables.for_arch()


def format_sockaddr(data: bytes, families: Mapping[int, str] | None = None) -> str:
    """A struct sockaddr of ``len(data)`` bytes (addrlen) as strace prints it.

    ``{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}``,
    ``{sa_family=AF_UNIX, sun_path="/tmp/x"}`` (abstract names as ``@"x"``),
    ``{sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0),
    inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}``.

    Args:
      data: the bytes of the struct, as long as addrlen.
      families: names of ``sa_family`` values (an arch's ``ADDRESS_FAMILIES`` table);
        default the running arch's.
    """
    if len(data) < 2:
        return quote(data)
    fam = int.from_bytes(data[:2], "little")
    table = _FAMILIES if families is None else families
    name = table.get(fam)
    head = f"{{sa_family={xval(table, fam, 'AF_???')}"
    if len(data) == 2:                              # the family alone
        return head + "}"
    # the ports and addresses in the -X style (net_field, format_inet: as written here
    # in the default style)
    if name == "AF_INET" and len(data) >= 16:       # sizeof(struct sockaddr_in)
        port = int.from_bytes(data[2:4], "big")
        return (f"{head}, sin_port={net_field(data[2:4], f'htons({port})')}, "
                f"{format_inet(data[4:8], 'sin_addr')}}}")
    if name == "AF_INET6" and len(data) >= 24:      # without sin6_scope_id: 24
        port = int.from_bytes(data[2:4], "big")
        flow = int.from_bytes(data[4:8], "big")
        text = (f"{head}, sin6_port={net_field(data[2:4], f'htons({port})')}, "
                f"sin6_flowinfo={net_field(data[4:8], f'htonl({flow})')}, "
                f"{format_inet(data[8:24], 'sin6_addr')}")
        if len(data) < 28:
            return text + "}"
        scope = int.from_bytes(data[24:28], "little")
        return f"{text}, sin6_scope_id={_scope_id(data[8:24], scope)}}}"
    if name == "AF_UNIX":
        # sun_path is 108 bytes whatever addrlen says; an abstract name (a first NUL)
        # is every byte after it, embedded NULs too (strace: @"\0\1...")
        path = data[2:2 + _SUN_PATH_MAX]
        if path[0] == 0:                            # abstract socket name
            return f"{head}, sun_path=@{quote(path[1:])}}}"
        return f"{head}, sun_path={quote(path.split(_NUL, 1)[0])}}}"
    if name == "AF_NETLINK" and len(data) >= 12:
        pid, groups = struct.unpack_from("<iI", data, 4)     # strace: nl_pid=%d
        pad = struct.unpack_from("<H", data, 2)[0]          # shown when not 0
        # C's %#08x: 0 has no 0x prefix
        text = f"{groups:#08x}" if groups else "00000000"
        return (f"{head}{f', nl_pad={pad:#x}' if pad else ''}, nl_pid={pid}, "
                f"nl_groups={text}}}")
    if name == "AF_PACKET" and len(data) >= 20:     # sizeof(struct sockaddr_ll)
        return head + ", " + _sockaddr_ll(data) + "}"
    if name == "AF_VSOCK" and len(data) >= 16:      # sizeof(struct sockaddr_vm)
        return head + ", " + _sockaddr_vm(data) + "}"
    if name == "AF_RXRPC" and len(data) >= 36:      # sizeof(struct sockaddr_rxrpc)
        return head + ", " + _sockaddr_rxrpc(data, families) + "}"
    more = _SOCKADDR_MORE.get(name or "")
    if more is not None and len(data) >= more[0]:
        return head + ", " + more[1](data) + "}"
    return f"{head}, sa_data={quote(data[2:])}}}"


def cstring_field(data: bytes) -> str:
    """A ``char[len(data)]`` member as strace's PRINT_FIELD_CSTRING prints it: up to its
    NUL, quoted; ``len(data) - 1`` characters and ``...`` when it has none."""
    end = data.find(b"\0")
    return quote(data[:end]) if end >= 0 else quote(data[:max(len(data) - 1, 0)], more=True)


def _hex_bytes(data: bytes) -> str:
    """Bytes as a string of ``\\x`` escapes: ``"\\x7f\\x00"`` (strace's sockaddr members
    with -X raw/verbose)."""
    return '"' + "".join(f"\\x{b:02x}" for b in data) + '"'


def net_field(data: bytes, text: str) -> str:
    """A field in network byte order (a port, an address) that prints as ``text``
    (``htons(80)``, ``inet_addr("127.0.0.1")``): with -X raw its bytes
    (``"\\x00\\x50"``), with -X verbose the bytes, then ``text`` as a comment."""
    if xstyle.STYLE:
        return xstyle.named(_hex_bytes(data), text)
    return text


def format_hwaddr(data: bytes) -> str:
    """A hardware address as strace prints it: ``8a:8b:8c:8d``; with -X raw its bytes
    (``"\\x8a\\x8b\\x8c\\x8d"``), with -X verbose the bytes, then ``8a:8b:8c:8d`` in a
    comment."""
    return net_field(data, ":".join(f"{b:02x}" for b in data))


def format_inet(data: bytes, field: str = "") -> str:
    """An IPv4 (4 bytes) or IPv6 (16 bytes) address as strace prints it, as the member
    ``field`` when one is given: ``inet_addr("127.0.0.1")``, ``sin_addr=inet_addr(...)``,
    ``inet_pton(AF_INET6, "::1", &sin6_addr)``; with -X raw the bytes
    (``sin6_addr="\\x00..."``), with -X verbose the bytes, then the address in a comment
    (``sin6_addr="\\x00..." /* inet_pton(AF_INET6, "::1") */``)."""
    if len(data) == 4:
        text = f'inet_addr("{ipaddress.IPv4Address(data)}")'
        if not xstyle.STYLE:
            return f"{field}={text}" if field else text
    else:
        addr6 = socket.inet_ntop(socket.AF_INET6, data)   # glibc's text, as strace
        text = f'inet_pton(AF_INET6, "{addr6}"'
        if not xstyle.STYLE:
            return f"{text}, &{field})" if field else text + ")"
        text += ")"
    value = xstyle.named(_hex_bytes(data), text)
    return f"{field}={value}" if field else value


def hex0(v: int) -> str:
    """C's ``%#x`` (strace's PRINT_VAL_X): ``0`` for zero, else ``0x...``."""
    return hex(v) if v else "0"


def xval_verbose(v: int, names: Mapping[int, str], dflt: str | None) -> str:
    """strace's verbose value style: ``0x2 /* NAME */``; an unknown one as
    ``0x7 /* DFLT */`` or, without a default, the number alone; with -X raw the number
    alone."""
    name = names.get(v)
    if xstyle.STYLE == xstyle.RAW:
        return hex0(v)
    if name is None:
        return f"{hex0(v)} /* {dflt} */" if dflt else hex0(v)
    return f"{hex0(v)} /* {name} */"


def _cstring(data: bytes) -> str:
    """A char array that should end with a NUL (strace's QUOTE_0_TERMINATED |
    QUOTE_EXPECT_TRAILING_0): up to the NUL among all its bytes but the last; none
    there: those bytes and ``...``."""
    body = data[:-1] if data else data
    end = body.find(_NUL)
    if end >= 0:
        return quote(body[:end])
    return quote(body, more=True)


def _sockaddr_ipx(data: bytes) -> str:
    """struct sockaddr_ipx (linux/ipx.h): port and network in network order, the node,
    the type; sipx_zero when it is not 0."""
    port, net = struct.unpack_from(">HI", data, 2)
    node = ", ".join(f"{b:#04x}" if b else "00" for b in data[8:14])
    ptype, zero = data[14], data[15]
    text = (f"sipx_port=htons({port}), sipx_network=htonl({hex0(net)}), "
            f"sipx_node=[{node}], sipx_type={f'{ptype:#04x}' if ptype else '00'}")
    return text + (f", sipx_zero={zero:#x}" if zero else "")


def _sockaddr_x25(data: bytes) -> str:
    """struct sockaddr_x25: its x25_address, a 16-byte string."""
    return f"sx25_addr={{x25_addr={_cstring(data[2:18])}}}"


_IEEE802154_ADDR_TYPES = {0: "IEEE802154_ADDR_NONE", 2: "IEEE802154_ADDR_SHORT",
                          3: "IEEE802154_ADDR_LONG"}


def _sockaddr_ieee802154(data: bytes) -> str:
    """struct sockaddr_ieee802154 (linux/ieee802154.h in the kernel): the address's type,
    its PAN id, then a short address or an 8-byte hardware address (any type but NONE
    and SHORT)."""
    atype, pan = struct.unpack_from("<iH", data, 4)
    atype &= 0xFFFFFFFF
    text = ("addr={addr_type="
            f"{xval_verbose(atype, _IEEE802154_ADDR_TYPES, 'IEEE802154_ADDR_???')}"
            f", pan_id={xval_verbose(pan, {0xFFFF: 'IEEE802154_PANID_BROADCAST'}, None)}")
    if atype == 2:
        short = struct.unpack_from("<H", data, 10)[0]
        names = {0xFFFE: "IEEE802154_ADDR_UNDEF", 0xFFFF: "IEEE802154_ADDR_BROADCAST"}
        text += f", short_addr={xval_verbose(short, names, None)}"
    elif atype != 0:
        text += ", hwaddr=" + format_hwaddr(data[10:18])
    return text + "}"


_NFC_PROTOS = {k: "NFC_PROTO_" + n for k, n in enumerate((
    "JEWEL", "MIFARE", "FELICA", "ISO14443", "NFC_DEP", "ISO14443_B", "ISO15693"), 1)}
_NFC_SAPS = {1: "LLCP_SAP_SDP", 2: "LLCP_SAP_IP", 3: "LLCP_SAP_OBEX", 4: "LLCP_SAP_SNEP",
             0xFF: "LLCP_SAP_MAX"}
_NFC_LLCP_SIZE = 96     # struct sockaddr_nfc_llcp on a 64-bit arch


def _sockaddr_nfc(data: bytes) -> str:
    """struct sockaddr_nfc; when addrlen holds a struct sockaddr_nfc_llcp, its SAPs and
    service name too (``...`` when addrlen is between the two)."""
    dev, target, proto = struct.unpack_from("<III", data, 4)
    text = (f"dev_idx={format_ifindex(dev)}, target_idx={hex0(target)}, "
            f"nfc_protocol={xval(_NFC_PROTOS, proto, 'NFC_PROTO_???')}")
    if len(data) < _NFC_LLCP_SIZE:
        return text + (", ..." if len(data) > 16 else "")
    snsz = struct.unpack_from("<Q", data, 88)[0]
    name = data[18:18 + min(63, snsz)]
    return (f"{text}, dsap={xval_verbose(data[16], _NFC_SAPS, None)}, "
            f"ssap={xval_verbose(data[17], _NFC_SAPS, None)}, service_name={quote(name)}, "
            f"service_name_len={snsz}")


def _alg_flags(v: int) -> str:
    """struct sockaddr_alg's salg_feat/salg_mask: CRYPTO_ALG_KERN_DRIVER_ONLY, verbose."""
    if not v or xstyle.STYLE == xstyle.RAW:
        return hex0(v)
    if v & 0x1000:
        rest = v & ~0x1000
        return f"{v:#x} /* CRYPTO_ALG_KERN_DRIVER_ONLY{f'|{rest:#x}' if rest else ''} */"
    return f"{v:#x} /* CRYPTO_ALG_??? */"


def _sockaddr_alg(data: bytes) -> str:
    """struct sockaddr_alg_new: the type (14 bytes), feat, mask, and the name over the
    rest of addrlen."""
    feat, mask = struct.unpack_from("<II", data, 16)
    return (f"salg_type={_cstring(data[2:16])}, salg_feat={_alg_flags(feat)}, "
            f"salg_mask={_alg_flags(mask)}, salg_name={_cstring(data[24:])}")


# families strace decodes past sa_family: (the least addrlen it does so at, the decoder)
AX25_CALL = 7            # ax25_address.ax25_call: 6 shifted characters, then the SSID byte
AX25_MAX_DIGIS = 8       # full_sockaddr_ax25.fsa_digipeater (include/uapi/linux/ax25.h)
_AX25_HEAD = 16          # struct sockaddr_ax25: family, call, pad, int sax25_ndigis


def _ax25_style(call: bytes) -> str:
    """How strace shows an AX.25 address: "name" (a sane callsign: digits, capitals,
    trailing spaces, each character shifted left by one), "both" (the bytes, then the
    name in a comment), "raw" (the bytes: a character not printable, or * or /)."""
    style = "name"
    space = char = False
    for b in call[:6]:
        if b & 1:
            style = "both"
        c = b >> 1
        if c == 0x20:
            space = True
        else:
            char = True
        if not (0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or c == 0x20) or (c != 0x20 and space):
            style = "both"
        if c < 0x20 or c > 0x7E or c in (0x2A, 0x2F):
            return "raw"
    if call[6] & ~0x1E or (not char and call[6]):
        style = "both"
    return style


def _ax25_name(call: bytes) -> str:
    """``VALID-13``: the characters up to the trailing spaces, then the SSID; ``*`` for
    an empty one of SSID 0."""
    end = 6
    while end and call[end - 1] >> 1 == 0x20:
        end -= 1
    text = "".join(chr(b >> 1) for b in call[:end]) + f"-{(call[6] >> 1) & 0xF}"
    return "*" if text == "-0" else text


def _ax25_addr(call: bytes) -> str:
    style = _ax25_style(call)
    if style == "name":
        return _ax25_name(call)
    raw = '{ax25_call="' + "".join(f"\\x{b:02x}" for b in call) + '"}'
    return raw if style == "raw" else f"{raw} /* {_ax25_name(call)} */"


def _sockaddr_ax25(data: bytes) -> str:
    """struct sockaddr_ax25, or full_sockaddr_ax25 when it has digipeaters or is longer:
    ``fsa_ax25={sax25_call=VALID-13, sax25_ndigis=2}, fsa_digipeater=[OK-15, *]`` (as
    many as both sax25_ndigis and the length allow, ``...`` when the count wants more;
    ``, ...`` after them when the length holds more bytes)."""
    ndigis = struct.unpack_from("<i", data, 12)[0]
    head = f"sax25_call={_ax25_addr(data[2:2 + AX25_CALL])}, sax25_ndigis={ndigis}"
    if not ndigis and len(data) <= _AX25_HEAD:
        return head
    has = min((len(data) - _AX25_HEAD) // AX25_CALL, AX25_MAX_DIGIS)
    want = min(max(ndigis, 0), AX25_MAX_DIGIS)
    text = f"fsa_ax25={{{head}}}"
    if want:
        digis = [_ax25_addr(data[_AX25_HEAD + k * AX25_CALL:_AX25_HEAD + (k + 1) * AX25_CALL])
                 for k in range(min(has, want))]
        if want > has:
            digis.append("...")
        text += f", fsa_digipeater=[{', '.join(digis)}]"
    if len(data) > has * AX25_CALL + _AX25_HEAD:
        text += ", ..."
    return text


def _sockaddr_vm(data: bytes) -> str:
    """struct sockaddr_vm (linux/vm_sockets.h): svm_reserved1 and svm_zero when not
    zero, the cid and port by name, the flags."""
    reserved, port, cid, vflags = struct.unpack_from("<HIIB", data, 2)
    zero = data[13:16]
    return (f"{f'svm_reserved1={reserved:#x}, ' if reserved else ''}"
            f"svm_cid={xval(_CONSTS.VMADDR_CIDS, cid, None)}, "
            f"svm_port={xval(_CONSTS.VMADDR_PORTS, port, None)}, "
            f"svm_flags={_VSOCK_FLAGS(vflags)}"
            f"{f', svm_zero={quote(zero, force_hex=True)}' if any(zero) else ''}")


_VSOCK_FLAGS = FlagSet(((1, "VMADDR_FLAG_TO_HOST"),), unknown="VMADDR_FLAG_???")
# linux/qrtr.h, linux/if_xdp.h, linux/mctp.h: the names strace 6.1 gives
_QRTR_NODES, _QRTR_PORTS = {0xFFFFFFFF: "QRTR_NODE_BCAST"}, {0xFFFFFFFE: "QRTR_PORT_CTRL"}
_XDP_FLAGS = FlagSet(((1, "XDP_SHARED_UMEM"), (2, "XDP_COPY"), (4, "XDP_ZEROCOPY"),
                      (8, "XDP_USE_NEED_WAKEUP")), unknown="XDP_???")
_MCTP_NETS, _MCTP_ADDRS = {0: "MCTP_NET_ANY"}, {0: "MCTP_ADDR_NULL", 0xFF: "MCTP_ADDR_ANY"}


def _sockaddr_qrtr(data: bytes) -> str:
    """struct sockaddr_qrtr: node and port, named or in hex."""
    node, port = struct.unpack_from("<II", data, 4)
    return (f"sq_node={xval(_QRTR_NODES, node, None)}, "
            f"sq_port={xval(_QRTR_PORTS, port, None)}")


def _sockaddr_xdp(data: bytes) -> str:
    """struct sockaddr_xdp: the umem fd with XDP_SHARED_UMEM, else in hex when not 0."""
    xflags, ifindex, queue, umem = struct.unpack_from("<HIII", data, 2)
    text = (f"sxdp_flags={_XDP_FLAGS(xflags)}, sxdp_ifindex={format_ifindex(ifindex)}, "
            f"sxdp_queue_id={queue}")
    if xflags & 1:
        return f"{text}, sxdp_shared_umem_fd={signed(umem, 32)}"
    return f"{text}, sxdp_shared_umem_fd={umem:#x}" if umem else text


def _sockaddr_mctp(data: bytes) -> str:
    """struct sockaddr_mctp: its pads when not 0."""
    pad0, net, addr, mtype, tag, pad1 = struct.unpack_from("<HIBBBB", data, 2)
    return (f"{f'__smctp_pad0={pad0:#x}, ' if pad0 else ''}"
            f"smctp_network={xval(_MCTP_NETS, net, None)}, "
            f"smctp_addr={{s_addr={xval(_MCTP_ADDRS, addr, None)}}}, "
            f"smctp_type={hex0(mtype)}, smctp_tag={hex0(tag)}"
            f"{f', __smctp_pad1={pad1:#x}' if pad1 else ''}")


_SOCKADDR_MORE: dict[str, tuple[int, Callable[[bytes], str]]] = {
    "AF_QIPCRTR": (12, _sockaddr_qrtr), "AF_XDP": (16, _sockaddr_xdp),
    "AF_MCTP": (12, _sockaddr_mctp),
    "AF_AX25": (_AX25_HEAD, _sockaddr_ax25),
    "AF_IPX": (16, _sockaddr_ipx), "AF_X25": (18, _sockaddr_x25),
    "AF_IEEE802154": (20, _sockaddr_ieee802154), "AF_NFC": (16, _sockaddr_nfc),
    "AF_ALG": (25, _sockaddr_alg),
}


# struct sockaddr_rxrpc's services (srx_service) strace 6.1 names (fs/afs/*.h)
_RXRPC_SERVICES = {1: "CM_SERVICE", 2500: "YFS_FS_SERVICE", 2501: "YFS_CM_SERVICE",
                   2503: "YFS_VL_SERVICE"}


def _sockaddr_rxrpc(data: bytes, families: Mapping[int, str] | None) -> str:
    """The fields of a struct sockaddr_rxrpc after its family: the service (its value,
    then its name in a comment), the transport's socket type and length, and the
    transport: an AF_INET or AF_INET6 address when its length holds one, else its family
    and bytes (at most transport_len of them)."""
    service, stype, tlen, tfam = struct.unpack_from("<HHHH", data, 2)
    fams = _FAMILIES if families is None else families
    text = (f"srx_service={xval_verbose(service, _RXRPC_SERVICES, '???_SERVICE')}, "
            f"transport_type={xval(_CONSTS.SOCK_TYPES, stype, 'SOCK_???')}, "
             f"transport_len={tlen}, transport={{")
    shown = min(tlen, len(data) - 8)            # the transport's bytes, from its family
    rest = data[10:10 + max(0, shown - 2)]
    fname = fams.get(tfam)
    if fname in ("AF_INET", "AF_INET6"):
        v6 = fname == "AF_INET6"
        field = "sin6" if v6 else "sin"
        if tlen >= (24 if v6 else 16):
            inner = format_sockaddr(data[8:8 + shown], families)
            text += f"{field}={{{field}_family={inner[len('{sa_family='):]}"
        else:
            text += (f"{field}={{{field}_family={xval(fams, tfam, None)}"
                     f"{', ' + quote(rest) if rest else ''}}}")
        return text + "}"
    text += f"family={xval(fams, tfam, 'AF_???')}"
    return text + (f", {quote(rest)}" if rest else "") + "}"


def eth_protocol(value: int, *, abbrev: bool = False) -> str:
    """An ethernet protocol in network byte order (AF_PACKET's socket protocol,
    sll_protocol) as strace: ``htons(ETH_P_IP)``, ``htons(0 /* ETH_P_??? */)``; the name
    in the current style (``htons(0x800)`` with -X raw) unless ``abbrev``."""
    host = int.from_bytes((value & 0xFFFF).to_bytes(2, "little"), "big")
    if abbrev and xstyle.STYLE:
        name = _CONSTS.ETH_P_PROTOCOLS.get(host) or f"{hex0(host)} /* ETH_P_??? */"
        return f"htons({name})"
    return f"htons({xval(_CONSTS.ETH_P_PROTOCOLS, host, 'ETH_P_???')})"


def _sockaddr_ll(data: bytes) -> str:
    """The fields of a struct sockaddr_ll after its family."""
    proto, index, hatype, pkttype, halen = struct.unpack_from("<HIHBB", data, 2)
    # the address's bytes: sll_halen of them, at most the 8 of sll_addr (then ...); none
    # when sll_halen is 0
    # (each as C's %#02x: a zero byte as 00)
    addr = ", ".join([*(hex(b) if b else "00" for b in data[12:12 + min(halen, 8)]),
                      *(["..."] if halen > 8 else [])])
    # -X raw/verbose: the bytes, then the name as -X abbrev prints it
    return (f"sll_protocol={net_field(data[2:4], eth_protocol(proto, abbrev=True))}, "
            f"sll_ifindex={format_ifindex(index)}, "
            f"sll_hatype={xval(_CONSTS.ARPHRD_TYPES, hatype, 'ARPHRD_???')}, "
            f"sll_pkttype={xval(_CONSTS.PACKET_TYPES, pkttype, 'PACKET_???')}, "
            f"sll_halen={halen}{f', sll_addr=[{addr}]' if halen else ''}")


def _scope_id(addr: bytes, scope: int) -> str:
    """sin6_scope_id as strace prints it: of a link-local (fe80::/10) or link-local
    multicast (ff02::/16) address as an interface index (:func:`format_ifindex`), else
    the number."""
    if addr[0] == 0xFE and addr[1] & 0xC0 == 0x80 or addr[0] == 0xFF and addr[1] & 0xF == 2:
        return format_ifindex(scope)
    return str(scope)


def format_ifindex(index: int) -> str:
    """An interface index as strace prints it: ``if_nametoindex("lo")`` when this
    machine has an interface of that index, else the number; with -X raw the number,
    with -X verbose ``1 /* if_nametoindex("lo") */``."""
    try:
        text = f'if_nametoindex("{socket.if_indextoname(index)}")'
    except (OSError, OverflowError):
        return str(index)
    return xstyle.named(str(index), text) if xstyle.STYLE else text


def format_ret_errno(ret: int) -> str | None:
    """``-1 ENOENT (No such file or directory)`` or ``? ERESTARTSYS (...)`` for
    ``-4095 <= ret < 0``; None for a value that is not an error."""
    return format_ret(ret) if -4095 <= ret < 0 else None
