"""Structure-aware netlink messages for the fuzz tests of tests/decode/test_netlink_fuzz.py.

Random bytes rarely reach a nested decoder: its attributes sit behind a valid nlmsghdr,
the family's fixed header and a parent attribute of the right type (and, for
IFLA_INFO_DATA, a kind read before it). The strategies here build messages from the
decoders' own tables: the attribute names and the decoders by name a decoder of
tracekit/decode/structs_netlink.py reaches (its closure, the module globals and the
arch tables it names), so a new nested table is fuzzed without a change here. The bytes
constants the module compares with (the link kinds b"bridge", b"tun") are among the
payloads tried. Lengths then lie: an attribute's nla_len may be 0 to 5, odd, or past the
buffer.
"""

from __future__ import annotations

import functools
import struct
import types
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

from tracekit.decode import flags as F, structs_netlink as N

FL = F.for_arch("x86_64")
T = FL.tables

Names = Mapping[int, str]


def _codes(fn: Any) -> list[types.CodeType]:
    """The code of ``fn`` and of the functions defined in it."""
    code = getattr(fn, "__code__", None)
    out, todo = [], [code] if code is not None else []
    while todo:
        co = todo.pop()
        out.append(co)
        todo.extend(k for k in co.co_consts if isinstance(k, types.CodeType))
    return out


def _refs(fn: Any) -> list[Any]:
    """What ``fn`` reaches: its closure's values, the module globals and the arch
    tables its code names."""
    if isinstance(fn, _Wrap):
        return [fn.by_name, *_tables_naming(fn.by_name)]
    got: list[Any] = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            got.append(cell.cell_contents)
        except ValueError:
            pass
    for co in _codes(fn):
        for name in co.co_names:
            if name in vars(N):
                got.append(vars(N)[name])
            elif hasattr(T, name):
                got.append(getattr(T, name))
    return got


@functools.cache
def _all_names() -> list[Mapping[int, str]]:
    """Every attribute-name table of the arch tables and of structs_netlink."""
    return [v for v in (*vars(T).values(), *vars(N).values()) if _is_names(v)]


def _tables_naming(by_name: Mapping[str, Any]) -> list[Mapping[int, str]]:
    return [m for m in _all_names() if set(m.values()) & set(by_name)]


def _is_names(v: Any) -> bool:
    return (isinstance(v, Mapping) and bool(v)
            and all(isinstance(k, int) and isinstance(s, str) for k, s in v.items()))


def _is_decoders(v: Any) -> bool:
    return (isinstance(v, Mapping) and bool(v)
            and all(isinstance(k, str) and callable(f) for k, f in v.items()))


@functools.cache
def shape(fn: Any) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...], tuple[int, ...],
                            tuple[bytes, ...]]:
    """What ``fn`` decodes: the attribute types it names, its decoders by attribute
    name, the struct sizes it reads (the fixed header before attributes), the bytes
    constants it compares with."""
    kinds: set[int] = set()
    decoders: dict[str, Any] = {}
    sizes: set[int] = set()
    consts: set[bytes] = set()
    for ref in _refs(fn):
        if _is_names(ref):
            kinds.update(ref)
        elif _is_decoders(ref):
            decoders.update(ref)
        elif isinstance(ref, struct.Struct):
            sizes.add(ref.size)
    for co in _codes(fn):
        for k in co.co_consts:
            if isinstance(k, bytes):
                consts.add(k)
            elif isinstance(k, int) and not isinstance(k, bool) and 0 < k <= 128 \
                    and k % 4 == 0:
                sizes.add(k)
    return (tuple(sorted(kinds)), tuple(sorted(decoders.items())), tuple(sorted(sizes)),
            tuple(sorted(consts)))


def _names_of(fn: Any) -> dict[int, str]:
    out: dict[int, str] = {}
    for ref in _refs(fn):
        if _is_names(ref):
            out.update(ref)
    return out


@functools.cache
def module_consts() -> tuple[bytes, ...]:
    """The bytes constants structs_netlink's functions compare with (b"bridge")."""
    got = {k for f in vars(N).values() if isinstance(f, types.FunctionType)
           for co in _codes(f) for k in co.co_consts if isinstance(k, bytes) and k}
    return tuple(sorted(got))


_ODD_LENGTHS = st.sampled_from([0, 1, 2, 3, 4, 5, 7, 0xFFFF, 0x8000])


def nla(ntype: int, data: bytes, nlen: int | None = None) -> bytes:
    body = struct.pack("<HH", (4 + len(data) if nlen is None else nlen) & 0xFFFF,
                       ntype & 0xFFFF) + data
    return body + b"\0" * (-len(body) % 4)


_BLOB = st.one_of(
    st.binary(max_size=24),
    st.binary(min_size=40, max_size=120),
    st.builds(lambda n, v: struct.pack("<Q", v)[:n], st.sampled_from([1, 2, 4, 8]),
              st.integers(0, 2**64 - 1)),
    st.builds(lambda s: s.encode() + b"\0", st.text(max_size=20)),
)


@functools.cache
def payload(fn: Any, depth: int) -> st.SearchStrategy[bytes]:
    """Bytes for decoder ``fn`` (an attribute's, or a message's after its header):
    attributes of the types it names, each with the bytes of its own decoder; or a
    blob."""
    kinds, decoders, _sizes, _consts = shape(fn)
    consts = module_consts()
    blobs = [_BLOB]
    if consts:
        blobs.append(st.sampled_from(consts).flatmap(
            lambda b: st.sampled_from([b, b + b"\0", b + b"\0\0\0", b[:-1]])))
    if depth <= 0 or not kinds:
        return st.one_of(*blobs)
    names = _names_of(fn)
    by_name = dict(decoders)
    flag_bits = st.sampled_from([0, 0, 0, N.NLA_F_NESTED, N.NLA_F_NET_BYTEORDER])

    def one(kind: int) -> st.SearchStrategy[bytes]:
        dec = by_name.get(names.get(kind, ""))
        inner = payload(dec, depth - 1) if dec is not None else st.one_of(*blobs)
        return st.builds(lambda d, f, n: nla(kind | f, d, n), inner, flag_bits,
                         st.one_of(st.none(), st.none(), st.none(), _ODD_LENGTHS,
                                   st.integers(0, 300)))

    # kinds with their own decoder are the ones worth reaching
    deep = [k for k in kinds if names.get(k) in by_name] or list(kinds)
    attr = st.one_of(st.sampled_from(deep).flatmap(one),
                     st.sampled_from(kinds).flatmap(one),
                     st.integers(0, 0xFFFF).flatmap(one))
    lists = st.lists(attr, max_size=5).map(b"".join)
    return st.one_of(lists, lists, *blobs)


def _route_decoder(name: str) -> Callable[..., Any]:
    """Which of structs_netlink's payload decoders a NETLINK_ROUTE type reaches (as
    N._route picks it); found by calling _route with a recording stand-in would couple
    to its code, so the names are matched as it matches them."""
    if name.endswith(("ADDR", "ANYCAST", "MULTICAST")) and "LABEL" not in name:
        return N._ifaddrmsg
    for suffix, fn in (("LINK", N._ifinfomsg), ("ROUTE", N._rtmsg), ("RULE", N._fib_rule_hdr),
                       ("QDISC", N._tcmsg), ("TCLASS", N._tcmsg), ("TFILTER", N._tcmsg),
                       ("CHAIN", N._tcmsg), ("NETCONF", N._family_only),
                       ("NSID", N._family_only), ("NEIGHTBL", N._family_only),
                       ("ADDRLABEL", N._ifaddrlblmsg), ("NEXTHOP", N._nhmsg),
                       ("NEIGH", N._ndmsg), ("MDB", N._br_port_msg), ("STATS", N._if_stats_msg),
                       ("ACTION", N._route), ("DCB", N._dcbmsg),
                       ("CACHEREPORT", N._cachereport)):
        if name.endswith(suffix):
            return fn
    return N._route


# what structs_netlink's message decoders reach past their header, by the decoder
_MSG_TABLES: dict[Any, tuple[Any, ...]] = {
    N._family_only: (N._NETCONFA, N._NETNSA, N._NDTA),
}

FAMILIES = st.sampled_from([0, 1, 2, 7, 10, 16, 17, 28, 43, 128, 129, 255])


def _msg(ntype: int, flags: int, payload_: bytes, nlen: int | None) -> bytes:
    n = 16 + len(payload_) if nlen is None else nlen
    body = struct.pack("<IHHIi", n & 0xFFFFFFFF, ntype, flags, 7, 0) + payload_
    return body + b"\0" * (-len(body) % 4)


def _header(sizes: tuple[int, ...]) -> st.SearchStrategy[bytes]:
    size = st.sampled_from(sizes or (4,))
    return st.tuples(FAMILIES, size, st.binary(min_size=127, max_size=127)).map(
        lambda t: bytes([t[0]]) + t[2][:max(t[1] - 1, 0)])


def route_message(depth: int = 4) -> st.SearchStrategy[bytes]:
    def one(t: int) -> st.SearchStrategy[bytes]:
        fn = _route_decoder(T.RTM_TYPES[t])
        parts = [payload(fn, depth)] + [payload(_Wrap(d), depth) for d in
                                          _MSG_TABLES.get(fn, ())]
        return st.builds(lambda h, p, f, n: _msg(t, f, h + p, n),
                         _header(shape(fn)[2]), st.one_of(*parts),
                         st.sampled_from([0, 1, 2, 0x301, 0x100]),
                         st.one_of(st.none(), st.none(), st.integers(0, 400)))
    return st.sampled_from(sorted(T.RTM_TYPES)).flatmap(one)


class _Wrap:
    """A decoders-by-name table as a decoder whose shape is that table (with the arch
    table of the same attributes)."""

    def __init__(self, by_name: Mapping[str, Any]) -> None:
        self.by_name = by_name

    def __hash__(self) -> int:
        return id(self.by_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Wrap) and other.by_name is self.by_name


SOCK_DIAG_DECODERS = (N._inet_req, N._inet_req_compat, N._inet_msg, N._unix_req,
                      N._unix_msg, N._netlink_req, N._netlink_msg, N._packet_req,
                      N._packet_msg, N._smc_msg)


def sock_diag_message(depth: int = 4) -> st.SearchStrategy[bytes]:
    def one(fn: Any) -> st.SearchStrategy[bytes]:
        fam = {N._smc_msg: 43, N._packet_msg: 17, N._packet_req: 17, N._netlink_msg: 16,
               N._netlink_req: 16, N._unix_msg: 1, N._unix_req: 1}.get(fn)
        fams = st.just(fam) if fam is not None else st.sampled_from([2, 10])
        request = fn in (N._inet_req, N._inet_req_compat, N._unix_req, N._netlink_req,
                         N._packet_req)
        ntype = st.sampled_from([18, 19]) if fn is N._inet_req_compat else st.just(20)
        return st.builds(
            lambda f, ty, sz, h, p, n: _msg(ty, 1 if request else 2,
                                            bytes([f]) + h[:max(sz - 1, 0)] + p, n),
            fams, ntype, st.sampled_from((*shape(fn)[2], sum(shape(fn)[2]) + 48)),
            st.binary(min_size=127, max_size=127), payload(fn, depth),
            st.one_of(st.none(), st.none(), st.integers(0, 400)))
    return st.sampled_from(SOCK_DIAG_DECODERS).flatmap(one)


def netfilter_message() -> st.SearchStrategy[bytes]:
    return st.builds(lambda sub, m, fam, ver, res, p, n: _msg(
        sub << 8 | m, 1, struct.pack("<BBH", fam, ver, res) + p, n),
        st.integers(0, 15), st.integers(0, 25), FAMILIES, st.integers(0, 2),
        st.sampled_from([0, 10, 0x0A00, 0xFFFF]), payload(N._nfgenmsg, 2),
        st.one_of(st.none(), st.integers(0, 200)))


def error_message(inner: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    return st.builds(lambda e, m, ack, f: _msg(2, f, struct.pack("<i", e) + m + ack, None),
                     st.sampled_from([0, -1, -19, -4095, -4096, 5]), inner,
                     payload(_Wrap(N._NLMSGERR), 1), st.sampled_from([0, 0x100, 0x200]))


# -- every nested decoder, reached on purpose -------------------------------------------
# A random walk down the tables seldom reaches the fourth level (IFLA_LINKINFO ->
# IFLA_INFO_DATA -> IFLA_BR_MULTI_BOOLOPT); the paths below are every chain of attribute
# types from a message decoder to a decoder of its own, and a test draws one path, then
# fills the attributes around it.

Path = tuple[Any, tuple[int, ...]]


def _children(fn: Any) -> list[tuple[int, Any]]:
    kinds, decoders, _sizes, _consts = shape(fn)
    names, by_name = _names_of(fn), dict(decoders)
    out = []
    for k in kinds:
        dec = by_name.get(names.get(k, ""))
        if dec is not None:
            out.append((k, dec))
    return out


def paths(roots: tuple[Any, ...], depth: int = 5) -> list[Path]:
    """(root decoder, attribute types down to a decoder) for every decoder reached."""
    out: list[Path] = []

    def walk(root: Any, fn: Any, trail: tuple[int, ...], seen: tuple[Any, ...]) -> None:
        for k, dec in _children(fn):
            out.append((root, (*trail, k)))
            if len(trail) + 1 < depth and dec not in seen:
                walk(root, dec, (*trail, k), (*seen, dec))
    for r in roots:
        out.append((r, ()))
        walk(r, r, (), (r,))
    return out


@functools.cache
def _sized(fn: Any) -> st.SearchStrategy[bytes]:
    """Bytes of a length the decoder names (a struct's size, a count it compares
    with), one byte short or over, or a multiple of it."""
    cands = set(shape(fn)[2])
    for co in _codes(fn):
        cands.update(k for k in co.co_consts if isinstance(k, int)
                     and not isinstance(k, bool) and 0 < k <= 300)
    for ref in _refs(fn):
        if isinstance(ref, struct.Struct):
            cands.add(ref.size)
        elif isinstance(ref, int) and not isinstance(ref, bool) and 0 < ref <= 300:
            cands.add(ref)          # a size kept in a global (_BR_MCAST_SIZE)
    if not cands:
        return _BLOB
    return st.tuples(st.sampled_from(sorted(cands)), st.sampled_from([-1, 0, 0, 0, 1, 4]),
                     st.sampled_from([1, 1, 1, 2, 3]),
                     st.binary(min_size=1000, max_size=1000)).map(
        lambda t: t[3][:max(t[0] * t[2] + t[1], 0)])


@functools.cache
def _siblings(fn: Any) -> st.SearchStrategy[bytes]:
    """Attributes before or after the one on the path: of fn's types, their payloads
    mostly the constants the module compares with (a link kind before its data)."""
    kids = _children(fn)
    if not kids:
        return st.just(b"")
    consts = st.sampled_from(module_consts()).flatmap(
        lambda b: st.sampled_from([b, b + b"\0", b + b"\0\0\0"]))
    one = st.builds(lambda kd, d: nla(kd[0], d), st.sampled_from(kids),
                    st.one_of(consts, consts, _BLOB))
    return st.lists(one, max_size=2).map(b"".join)


@functools.cache
def chain(fn: Any, steps: tuple[int, ...]) -> st.SearchStrategy[bytes]:
    """The bytes decoder ``fn`` reads, with the attributes of ``steps`` nested in them."""
    if not steps:
        return st.one_of(payload(fn, 2), _sized(fn))
    kind, rest = steps[0], steps[1:]
    dec = dict(_children(fn))[kind]
    lens = st.one_of(*[st.none()] * 8, _ODD_LENGTHS, st.integers(0, 300))
    here = st.builds(lambda d, n, f: nla(kind | f, d, n), chain(dec, rest), lens,
                     st.sampled_from([0, 0, N.NLA_F_NESTED]))
    return st.builds(lambda a, b, z: a + b + z, _siblings(fn), here, _siblings(fn))


def _route_roots() -> dict[Any, list[int]]:
    """NETLINK_ROUTE's message decoders (the attribute tables of RTM_*NETCONF, NSID,
    NEIGHTBL as such) and the types that reach each."""
    by_table = {"NETCONF": _Wrap(N._NETCONFA), "NSID": _Wrap(N._NETNSA),
                "NEIGHTBL": _Wrap(N._NDTA)}
    out: dict[Any, list[int]] = {}
    for t, name in sorted(T.RTM_TYPES.items()):
        fn = _route_decoder(name)
        if fn is N._family_only:
            fn = next(w for s, w in by_table.items() if name.endswith(s))
        out.setdefault(fn, []).append(t)
    return out


ROUTE_ROOTS = _route_roots()
ROUTE_PATHS = paths(tuple(ROUTE_ROOTS))
DIAG_PATHS = paths(SOCK_DIAG_DECODERS)


def _head_sizes(fn: Any) -> tuple[int, ...]:
    if isinstance(fn, _Wrap) or fn is N._route:
        return (4,)
    sizes = shape(fn)[2] or (4,)
    return (*sizes, sum(sizes) + 48) if fn in SOCK_DIAG_DECODERS else sizes


def route_path_message(which: st.SearchStrategy[Path] | None = None
                       ) -> st.SearchStrategy[bytes]:
    """A NETLINK_ROUTE message down one of ROUTE_PATHS (``which``: of those)."""
    def one(p: Path) -> st.SearchStrategy[bytes]:
        root, steps = p
        return st.builds(
            lambda t, f, fam, size, h, body, n: _msg(t, f, bytes([fam]) + h[:size - 1]
                                                     + body, n),
            st.sampled_from(ROUTE_ROOTS[root]), st.sampled_from([0, 1, 2, 0x301]),
            FAMILIES, st.sampled_from(_head_sizes(root)),
            st.binary(min_size=127, max_size=127), chain(root, steps),
            st.one_of(st.none(), st.none(), st.integers(0, 400)))
    return (st.sampled_from(ROUTE_PATHS) if which is None else which).flatmap(one)


_DIAG_FAMILY = {N._smc_msg: 43, N._packet_msg: 17, N._packet_req: 17, N._netlink_msg: 16,
                N._netlink_req: 16, N._unix_msg: 1, N._unix_req: 1}
_DIAG_REQUESTS = (N._inet_req, N._inet_req_compat, N._unix_req, N._netlink_req,
                  N._packet_req)


def sock_diag_path_message(which: st.SearchStrategy[Path] | None = None
                           ) -> st.SearchStrategy[bytes]:
    """A NETLINK_SOCK_DIAG message down one of DIAG_PATHS (``which``: of those)."""
    def one(p: Path) -> st.SearchStrategy[bytes]:
        root, steps = p
        fam = _DIAG_FAMILY.get(root)
        return st.builds(
            lambda f, ty, size, h, body, n: _msg(ty, 1 if root in _DIAG_REQUESTS else 2,
                                                 bytes([f]) + h[:size - 1] + body, n),
            st.just(fam) if fam is not None else st.sampled_from([2, 10]),
            st.sampled_from([18, 19]) if root is N._inet_req_compat else st.just(20),
            st.sampled_from(_head_sizes(root)), st.binary(min_size=127, max_size=127),
            chain(root, steps), st.one_of(st.none(), st.none(), st.integers(0, 400)))
    return (st.sampled_from(DIAG_PATHS) if which is None else which).flatmap(one)
