"""Sockets by inode as strace -yy prints them, from the kernel's sock_diag netlink interface.

``SockDiag().describe(inode, "TCP")`` gives ``TCP:[127.0.0.1:40265->127.0.0.1:8080]``;
``UNIX-STREAM:[6789->6790,"/run/x.sock"]``, ``UDPv6:[[::1]:53]``, ``NETLINK:[ROUTE:1234]``;
None when sock_diag does not know the socket (an inet socket not bound yet, a unix socket
with neither peer nor name, a netlink socket before its bind, a family sock_diag does not
serve): strace then prints ``TCP:[6789]`` (:func:`fallback`).

Queries (include/uapi/linux/inet_diag.h, unix_diag.h, netlink_diag.h): a unix socket is
looked up by its inode (``udiag_ino``, one answer); inet and netlink sockets have no
lookup by inode, so their family's table is dumped (every state) and every socket in it
kept, until :meth:`SockDiag.refresh` says a socket may have changed (a ``socket``,
``bind``, ``connect``, ``listen`` or ``accept`` was seen): the next lookup dumps again.

The requests and answers are packed and read with ``struct`` here, not with pyroute2's
message classes: importing pyroute2 takes a third of a second on the development VM
(about as long as a whole ``tracekit run`` of ``/bin/true``), and the first socket call
of a traced program had to wait for it, by when a short-lived program was gone; imported
from a thread instead, its import cycles broke against another import of it. The socket
is our own, non-blocking: sock_diag answers a request synchronously
(the kernel fills the first part of a dump while the request is sent, and the rest as it
is read: net/netlink/af_netlink.c netlink_dump_start), so a read never waits, and one
that would (EAGAIN) ends the answer. A dump costs time in proportion to the sockets of
that family on the machine.

# Some facts about what strace prints (strace 6.1 src/socketutils.c, checked on Linux 6.18)

- The name before ``:[`` is the socket's protocol as the kernel names it (the
  ``system.sockprotoname`` extended attribute of ``/proc/<pid>/fd/<fd>``): ``TCP``,
  ``TCPv6``, ``UDP``, ``UDPv6``, ``UNIX-STREAM`` (stream unix sockets), ``UNIX`` (datagram
  and seqpacket), ``NETLINK``, ``RAW``, ``PING``, ``PACKET``...
- inet: ``src:port`` and, when the peer's port or address is set, ``->dst:port``; IPv6
  addresses in brackets. A bound socket that is not listening is in the dump on 6.9+.
- unix: the inode, ``->peer`` when connected, ``,"path"`` or ``,@"name"`` (abstract;
  cut at the first NUL as strace does) when bound; nothing of either: not described.
- netlink: the protocol without ``NETLINK_`` and the port id; a protocol without a
  name: its number alone (``NETLINK:[99]``).
"""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
import struct
from collections.abc import Callable

from tracekit._events import FdDesc

__all__ = ["SockDiag", "desc_text", "fallback", "socket_inode"]

NETLINK_SOCK_DIAG = 4
_NDIAG_PROTO_ALL = 255
_ALL_STATES = 0xFFFFFFFF
_HDR = struct.Struct("<IHHII")                  # struct nlmsghdr
_INET_MSG = struct.Struct("<BBBBHH16s16sIQIIIII")  # struct inet_diag_msg (ports big-endian)
_NETLINK_MSG = struct.Struct("<BBBBIIII2I")     # struct netlink_diag_msg

# protocol name (sockprotoname) -> (family, protocol) of the inet_diag dump that has it
_INET: dict[str, tuple[int, int]] = {
    "TCP": (socket.AF_INET, socket.IPPROTO_TCP), "TCPv6": (socket.AF_INET6, socket.IPPROTO_TCP),
    "UDP": (socket.AF_INET, socket.IPPROTO_UDP), "UDPv6": (socket.AF_INET6, socket.IPPROTO_UDP),
    "UDPLITE": (socket.AF_INET, 136), "UDPLITEv6": (socket.AF_INET6, 136),
    "RAW": (socket.AF_INET, socket.IPPROTO_RAW), "RAWv6": (socket.AF_INET6, socket.IPPROTO_RAW),
    "PING": (socket.AF_INET, socket.IPPROTO_ICMP),
    "PINGv6": (socket.AF_INET6, socket.IPPROTO_ICMPV6),
    "SCTP": (socket.AF_INET, 132), "SCTPv6": (socket.AF_INET6, 132),
}
# tried in this order for a socket whose protocol is not known
_GUESS = ("UNIX", "TCP", "TCPv6", "UDP", "UDPv6", "NETLINK")


# include/uapi/linux/netlink.h, sock_diag.h, unix_diag.h
_NLM_F_REQUEST, _NLM_F_DUMP = 0x1, 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_SOCK_DIAG_BY_FAMILY = 20
_UDIAG_SHOW_NAME, _UDIAG_SHOW_PEER = 0x1, 0x4


# requests (include/uapi/linux/inet_diag.h inet_diag_req_v2, unix_diag.h unix_diag_req,
# netlink_diag.h netlink_diag_req), after the 16-byte struct nlmsghdr
_INET_REQ = struct.Struct("<BBBxI2H16s16sIQ")     # family, protocol, ext, states, id
_UNIX_REQ = struct.Struct("<BBxxIIIQ")            # family, protocol, states, ino, show, cookie
_NETLINK_REQ = struct.Struct("<BBxxIIQ")          # family, protocol, ino, show, cookie
_UNIX_MSG = struct.Struct("<BBBxIQ")              # family, type, state, ino, cookie
_RTA = struct.Struct("<HH")                       # struct rtattr: len, type
_UNIX_DIAG_NAME, _UNIX_DIAG_PEER = 0, 2
_NOCOOKIE = (1 << 64) - 1                         # INET_DIAG_NOCOOKIE: look up by inode


def socket_inode(target: str) -> int | None:
    """The inode of a ``socket:[6789]`` fd target (``readlink`` of /proc/<pid>/fd/<fd>)."""
    if target.startswith("socket:[") and target.endswith("]"):
        try:
            return int(target[8:-1])
        except ValueError:
            return None
    return None


#: the protocols strace 6.1 names (socketutils.c's table, by the names the kernel's
#: system.sockprotoname gives); a socket of another (PACKET, AF_VSOCK) is ``socket:[N]``
STRACE_PROTOCOLS = frozenset({
    "UNIX", "UNIX-STREAM", "TCP", "UDP", "UDPLITE", "DCCP", "SCTP", "L2TP/IP", "PING", "RAW",
    "TCPv6", "UDPv6", "UDPLITEv6", "DCCPv6", "L2TP/IPv6", "SCTPv6", "PINGv6", "RAWv6",
    "NETLINK"})


def fallback(inode: int, proto: str | None) -> str:
    """What strace prints for a socket sock_diag does not describe: ``TCP:[6789]``, or
    ``socket:[6789]`` when the protocol is not known either, or not one strace names."""
    return f"{proto if proto in STRACE_PROTOCOLS else 'socket'}:[{inode}]"


_OWN_NETNS: list[int] = []


def foreign_netns(netns: int) -> bool:
    """Whether a socket of network namespace ``netns`` (its inode; 0: not known) is in
    another namespace than tracekit's: sock_diag, asked in tracekit's (as strace asks in
    its own), does not know it, and strace prints it as :func:`fallback` and its netlink
    messages without their protocol."""
    if not netns:
        return False
    if not _OWN_NETNS:
        try:
            _OWN_NETNS.append(os.stat("/proc/self/ns/net").st_ino)
        except OSError:
            _OWN_NETNS.append(0)
    return bool(_OWN_NETNS[0]) and netns != _OWN_NETNS[0]


def _plain_quote(data: bytes) -> str:
    return '"' + data.decode("utf-8", "backslashreplace").replace('"', '\\"') + '"'


def _inet_text(proto: str, family: int, src: bytes, sport: int, dst: bytes, dport: int) -> str:
    size = 4 if family == socket.AF_INET else 16
    ob, cb = ("[", "]") if family == socket.AF_INET6 else ("", "")
    s = ipaddress.ip_address(src[:size])
    head = f"{proto}:[{ob}{s}{cb}:{sport}"
    if dport or any(dst[:size]):
        d = ipaddress.ip_address(dst[:size])
        return f"{head}->{ob}{d}{cb}:{dport}]"
    return head + "]"


# sockets the kernel's description (FdDesc) gives as sock_diag would: inet_diag serves
# these protocols' tables (an unbound socket is in none of them)
_DESC_INET = frozenset({"TCP", "TCPv6", "UDP", "UDPv6", "UDPLITE", "UDPLITEv6"})


def desc_text(d: FdDesc, quote: Callable[[bytes], str] = _plain_quote,
              netlink_names: dict[int, str] | None = None) -> str | None:
    """strace -yy's text of the socket that an fd description read in the kernel names
    (``TCP:[127.0.0.1:40265->127.0.0.1:8080]``, ``UNIX-STREAM:[6789]``), the same text a
    sock_diag answer at that moment would give (``fallback`` where sock_diag would not
    know the socket: an inet socket with no local port, a unix socket with neither peer
    nor name, a netlink socket with no port id, a socket of another network namespace);
    None for a protocol whose text only
    sock_diag gives (RAW, PING, PACKET ...)."""
    proto, ino = d.proto, d.ino
    if foreign_netns(d.netns):
        return fallback(ino, proto)
    if d.family in (socket.AF_INET, socket.AF_INET6) and proto in _DESC_INET:
        if not d.sport:
            return fallback(ino, proto)
        return _inet_text(proto, d.family, d.src, d.sport, d.dst, d.dport)
    if d.family == socket.AF_UNIX and proto.startswith("UNIX"):
        if not d.peer_ino and not d.name:
            return fallback(ino, proto)
        text = f"{proto}:[{ino}"
        if d.peer_ino:
            text += f"->{d.peer_ino}"
        if d.name:
            abstract = d.name[:1] == b"\0"
            body = (d.name[1:] if abstract else d.name).split(b"\0", 1)[0]
            text += "," + ("@" if abstract else "") + quote(body)
        return text + "]"
    if d.family == socket.AF_NETLINK and proto == "NETLINK":
        if not d.portid:
            return fallback(ino, proto)
        if netlink_names is None:
            from tracekit.kernel.flag_tables import for_arch
            netlink_names = for_arch().NETLINK_PROTOCOLS
        name = netlink_names.get(d.protocol)
        return (f"NETLINK:[{name.removeprefix('NETLINK_')}:{d.portid}]" if name
                else f"NETLINK:[{d.protocol}]")
    return None


def _exchange(sock: socket.socket, msg_type: int, flags: int, seq: int,
              payload: bytes) -> tuple[list[bytes], int]:
    """One netlink request on ``sock`` (non-blocking: the kernel makes a dump's parts as
    they are read, so an empty queue means the answer is complete) and the answers to
    it: each message whole, header included, up to NLMSG_DONE or an NLMSG_ERROR, with
    that error's errno (0 for none or an acknowledgement). A malformed answer ends it
    with what was whole; answers to other sequence numbers are skipped.

    Raises:
      OSError: the send or a read failed (not EAGAIN).
    """
    sock.send(_HDR.pack(_HDR.size + len(payload), msg_type, flags, seq, 0) + payload)
    out: list[bytes] = []
    while True:
        try:
            buf = sock.recv(65536)
        except BlockingIOError:
            return out, 0            # nothing more queued: the answer is complete
        off = 0
        while off + _HDR.size <= len(buf):
            length, kind, _, got_seq, _ = _HDR.unpack_from(buf, off)
            if length < _HDR.size or off + length > len(buf):
                return out, 0        # malformed: keep what was whole
            part = buf[off:off + length]
            off += (length + 3) & ~3         # advance first, then decide
            if got_seq != seq:
                continue             # an answer to an earlier request
            if kind == _NLMSG_DONE:
                return out, 0
            if kind == _NLMSG_ERROR:
                return out, -struct.unpack_from("<i", part, _HDR.size)[0]
            out.append(part)
        if not flags & _NLM_F_DUMP:
            return out, 0


class SockDiag:
    """Describes sockets by inode (module docstring). Not thread-safe; owns one netlink
    socket, opened on first use; :meth:`close` closes it.

    Args:
      netlink_names: netlink protocol number -> name (``NETLINK_ROUTE``); default the
        running architecture's table.
      quote: bytes -> a C string literal, for unix socket names (the decoder passes
        strace's quoting, ``tracekit.decode.values.quote``).

    Attributes:
      queries: requests sent (dumps and unix lookups), for tests and stats.
      errors: requests that failed (sock_diag not available: the socket is then not
        described).
    """

    def __init__(self, netlink_names: dict[int, str] | None = None, *,
                 quote: Callable[[bytes], str] = _plain_quote) -> None:
        self._names = netlink_names
        self._quote = quote
        self._sock: socket.socket | None = None
        self._seq = 0
        self._dumps: dict[str, dict[int, str]] = {}   # dump key -> inode -> text
        self.queries = 0
        self.errors = 0

    def refresh(self) -> None:
        """Forget the dumps: a socket may have been made, bound or connected since."""
        self._dumps.clear()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def describe(self, inode: int, proto: str | None) -> str | None:
        """strace -yy's text of socket ``inode`` whose protocol name is ``proto`` (None:
        not known; every family sock_diag serves is tried), or None (module docstring)."""
        if proto is None:
            for guess in _GUESS:
                got = self.describe(inode, guess)
                if got is not None:
                    return got
            return None
        if proto.startswith("UNIX"):
            return self._unix(inode, proto)
        if proto == "NETLINK":
            return self._dump("NETLINK", self._netlink_dump).get(inode)
        inet = _INET.get(proto)
        if inet is None:
            return None
        return self._dump(proto, lambda: self._inet_dump(proto, *inet)).get(inode)

    # -- queries ----------------------------------------------------------------------

    def _dump(self, key: str, run: Callable[[], dict[int, str]]) -> dict[int, str]:
        got = self._dumps.get(key)
        if got is None:
            got = self._dumps[key] = run()
        return got

    def _request(self, payload: bytes, flags: int) -> list[bytes]:
        """Send ``payload`` (a SOCK_DIAG_BY_FAMILY request) and return the answers (each
        message whole, header included); [] when sock_diag refused or is missing."""
        self.queries += 1
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM
                                           | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK,
                                           NETLINK_SOCK_DIAG)
            self._seq += 1
            out, err = _exchange(self._sock, _SOCK_DIAG_BY_FAMILY, flags, self._seq, payload)
            if err:
                self.errors += 1
            return out
        except OSError as e:
            # no sock_diag (EPROTONOSUPPORT), a family it does not serve (ENOENT),
            # not allowed (EPERM): the socket is not described
            if e.errno not in (errno.EPROTONOSUPPORT, errno.ENOENT, errno.EPERM,
                               errno.EACCES, errno.EINVAL, errno.EAFNOSUPPORT):
                raise
            self.errors += 1
            return []

    def _inet_dump(self, proto: str, family: int, protocol: int) -> dict[int, str]:
        req = _INET_REQ.pack(family, protocol, 0, _ALL_STATES, 0, 0, bytes(16), bytes(16), 0,
                             _NOCOOKIE)
        out: dict[int, str] = {}
        for part in self._request(req, _NLM_F_REQUEST | _NLM_F_DUMP):
            if len(part) < _HDR.size + _INET_MSG.size:
                continue
            (fam, _, _, _, sport, dport, src, dst, _, _, _, _, _, _,
             ino) = _INET_MSG.unpack_from(part, _HDR.size)
            if fam == family:
                out[ino] = _inet_text(proto, fam, src, socket.ntohs(sport), dst,
                                      socket.ntohs(dport))
        return out

    def _unix(self, inode: int, proto: str) -> str | None:
        req = _UNIX_REQ.pack(socket.AF_UNIX, 0, _ALL_STATES, inode,
                             _UDIAG_SHOW_NAME | _UDIAG_SHOW_PEER, _NOCOOKIE)
        for part in self._request(req, _NLM_F_REQUEST):
            if len(part) < _HDR.size + _UNIX_MSG.size:
                continue
            fam, _, _, ino, _ = _UNIX_MSG.unpack_from(part, _HDR.size)
            if fam != socket.AF_UNIX or ino != inode:
                continue
            peer, name = 0, None
            pos = _HDR.size + _UNIX_MSG.size
            while pos + _RTA.size <= len(part):        # the attributes (struct rtattr)
                length, kind = _RTA.unpack_from(part, pos)
                if length < _RTA.size or pos + length > len(part):
                    break
                data = part[pos + _RTA.size:pos + length]
                pos += (length + 3) & ~3                # advance first, then decide
                if kind == _UNIX_DIAG_NAME and name is None:
                    name = data[:108]                  # sun_path's size
                elif kind == _UNIX_DIAG_PEER and len(data) >= 4:
                    peer = int.from_bytes(data[:4], "little")
            if not peer and not name:
                return None
            text = f"{proto}:[{inode}"
            if peer:
                text += f"->{peer}"
            if name:
                abstract = name[:1] == b"\0"
                body = (name[1:] if abstract else name).split(b"\0", 1)[0]
                text += "," + ("@" if abstract else "") + self._quote(body)
            return text + "]"
        return None

    def _netlink_dump(self) -> dict[int, str]:
        req = _NETLINK_REQ.pack(socket.AF_NETLINK, _NDIAG_PROTO_ALL, 0, 0, 0)
        names = self._names
        if names is None:
            from tracekit.kernel.flag_tables import for_arch
            names = self._names = dict(for_arch().NETLINK_PROTOCOLS)
        out: dict[int, str] = {}
        for part in self._request(req, _NLM_F_REQUEST | _NLM_F_DUMP):
            if len(part) < _HDR.size + _NETLINK_MSG.size:
                continue
            fam, _, protocol, _, portid, _, _, ino, _, _ = _NETLINK_MSG.unpack_from(
                part, _HDR.size)
            if fam != socket.AF_NETLINK:
                continue
            name = names.get(protocol)
            out[ino] = (f"NETLINK:[{name.removeprefix('NETLINK_')}:{portid}]" if name
                        else f"NETLINK:[{protocol}]")
        return out


_GENL_ID_CTRL, _CTRL_CMD_NEWFAMILY, _CTRL_CMD_GETFAMILY = 0x10, 1, 3
_CTRL_ATTR_FAMILY_ID, _CTRL_ATTR_FAMILY_NAME = 1, 2


def genl_families() -> dict[int, str]:
    """The generic netlink families the kernel has registered, by id (``{16: "nlctrl",
    ...}``): strace names NETLINK_GENERIC message types by them, asked once of the
    kernel (in its own network namespace) with a CTRL_CMD_GETFAMILY dump
    (linux/genetlink.h). Kept for the process once asked; empty when the kernel does not
    answer."""
    global _GENL
    if _GENL is None:
        _GENL = {}
        try:
            _ask_genl(_GENL)
        except OSError:
            pass
    return _GENL


_GENL: dict[int, str] | None = None


def _ask_genl(out: dict[int, str]) -> None:
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC
                       | socket.SOCK_NONBLOCK, 16) as s:        # NETLINK_GENERIC
        # genlmsghdr: cmd, version 1
        answers, _ = _exchange(s, _GENL_ID_CTRL, _NLM_F_REQUEST | _NLM_F_DUMP, 1,
                               struct.pack("<BBH", _CTRL_CMD_GETFAMILY, 1, 0))
    for part in answers:
        _genl_family(part[_HDR.size:], out)


def _genl_family(msg: bytes, out: dict[int, str]) -> None:
    """One CTRL_CMD_NEWFAMILY answer (version 2, as strace takes them): its first
    family id (a u16) and name."""
    if len(msg) < 4 or msg[0] != _CTRL_CMD_NEWFAMILY or msg[1] != 2:
        return
    off, ident, name = 4, None, None
    while off + 4 <= len(msg):
        alen, atype = struct.unpack_from("<HH", msg, off)
        if alen < 4:
            break
        payload = msg[off + 4:off + alen]
        if atype == _CTRL_ATTR_FAMILY_NAME and name is None:
            name = payload.split(b"\0", 1)[0].decode("latin-1")
        elif atype == _CTRL_ATTR_FAMILY_ID and ident is None and len(payload) == 2:
            ident = struct.unpack("<H", payload)[0]
        if name is not None and ident is not None:
            out.setdefault(ident, name)
            name = ident = None
        off += (alen + 3) & ~3
