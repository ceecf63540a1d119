"""sendmsg, recvmsg, sendmmsg, recvmmsg, the iovec calls and ioctl from captures a traced
process controls: msghdrs whose lengths lie (msg_namelen, msg_iovlen, msg_controllen,
cmsg_len), control messages of every kind the decoder names, iovecs holding netlink
messages on a netlink socket (tests/decode/_nl_shapes.py), captures cut anywhere, with
-s 0 to 32, -v and -x. The checks are test_netlink_fuzz.check's: a str, nothing raw, no
string past -s bytes nor list past -s elements (but under -v), bounded text; strace
cuts neither the list of control messages nor SCM_SECURITY's label (strace 6.1 -s 4:
``cmsg_data="AAAA...A"`` whole, 100 bytes)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tests.decode import _nl_shapes as S
from tests.decode._calls import call, decoder
from tests.decode.test_netlink_fuzz import EXAMPLES, FUZZ, LIMITS, check
from tracekit._events import (
    _FD_DESC,
    CAP_ARG_FD,
    CAP_BUF,
    CAP_FD,
    CAP_IOV,
    CAP_MMSGHDR,
    CAP_MSGHDR,
    CAP_STRUCT,
    Capture,
    Syscall,
)
from tracekit.decode import structs_io as IO
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.structs_io import IOV_ELEM, MSGHDR
from tracekit.kernel.flag_tables.ioctl_arg_kinds import IOCTL_ARG_KINDS


@pytest.fixture(scope="module")
def dec(tmp_path_factory: pytest.TempPathFactory) -> SyscallDecoder:
    return decoder(Path(tmp_path_factory.mktemp("proc")))


def rec(base: int, length: int, data: bytes, flags: int = 0) -> bytes:
    """A struct tk_iov_elem record and its bytes."""
    return IOV_ELEM.pack(base, length, len(data), flags) + data + b"\0" * (-len(data) % 8)


def nl_fd(fd: int, protocol: int) -> Capture:
    desc = _FD_DESC.pack(fd, 0o140000, 0, 0, 1234, 16, protocol, 0, 0, 77, 0, 0, b"", b"",
                         b"NETLINK", b"", 0)
    return Capture(arg=CAP_ARG_FD, kind=CAP_FD, flags=0, data=desc)


_U64 = st.integers(0, 2**64 - 1)
CMSG = st.builds(
    lambda clen, level, ctype, d: struct.pack(
        "<Qii", 16 + len(d) if clen is None else clen, level, ctype)
    + d + b"\0" * (-len(d) % 8),
    st.one_of(st.none(), st.none(), st.integers(0, 300), st.just(1 << 63)),
    st.sampled_from([0, 1, 41, 99, -1]),
    st.sampled_from([1, 2, 3, 7, 8, 0x1D, 0x23, 0x25, 0x40, 0x41, 99]),
    st.binary(max_size=200))
IOV_BYTES = st.one_of(S.route_path_message(), S.sock_diag_path_message(),
                      st.binary(max_size=100))
IOVS = st.lists(st.tuples(_U64, st.one_of(st.integers(0, 300), _U64), IOV_BYTES,
                          st.sampled_from([0, 0, 2])), max_size=5)


@st.composite
def msghdr(draw: st.DrawFn, mm: bool = False) -> bytes:
    """A MSGHDR (``mm``: MMSGHDR) capture: the header, msg_name's and msg_control's
    records, the iovecs'; cut anywhere."""
    name = draw(st.binary(max_size=130))
    ctl = b"".join(draw(st.lists(CMSG, max_size=4)))
    head = MSGHDR.pack(draw(st.sampled_from([0, 0x1000])),
                       draw(st.one_of(st.integers(0, 200), st.integers(0, 2**32 - 1))),
                       draw(st.sampled_from([0, 0x2000])),
                       draw(st.one_of(st.integers(0, 10), _U64)),
                       draw(st.sampled_from([0, 0x3000])),
                       draw(st.one_of(st.integers(0, 300), _U64)),
                       draw(st.integers(-2**31, 2**31 - 1)))
    if mm:
        head += struct.pack("<I4x", draw(st.integers(0, 2**32 - 1)))
    body = (head + rec(0x1000, len(name), name, draw(st.sampled_from([0, 0, 2])))
            + rec(0x3000, draw(st.integers(0, 400)), ctl, draw(st.sampled_from([0, 0, 2]))))
    body += b"".join(rec(*v) for v in draw(IOVS))
    return body[:draw(st.one_of(st.just(len(body)), st.integers(0, len(body))))]


def run(d: SyscallDecoder, ev: Syscall, limit: int, verbose: bool, hexs: bool) -> None:
    d.string_limit, d.verbose, d.hex_strings = limit, verbose, hexs
    out = d.decode(ev)
    check(", ".join(out.args) + " = " + out.ret, sum(len(c.data) for c in ev.caps), limit,
          verbose, uncut=("msg_control=",), whole=("cmsg_data=",))


PROTOS = st.sampled_from([None, 0, 4])


@settings(FUZZ, max_examples=EXAMPLES * 10)
@given(name=st.sampled_from(["sendmsg", "recvmsg"]), data=msghdr(),
       ret=st.integers(-5, 5000), proto=PROTOS, cflags=st.sampled_from([0, 2, 16]),
       limit=LIMITS, verbose=st.booleans(), hexs=st.booleans())
def test_msghdr(dec: SyscallDecoder, name: str, data: bytes, ret: int, proto: int | None,
                cflags: int, limit: int, verbose: bool, hexs: bool) -> None:
    caps = [Capture(1, CAP_MSGHDR, cflags, data)]
    if name == "recvmsg":
        caps.append(Capture(1, CAP_STRUCT, 0, struct.pack("<QI4x", 0x1000, 16)))
    if proto is not None:
        caps.append(nl_fd(3, proto))
    run(dec, call(name, (3, 0x5000, 0), ret, tuple(caps)), limit, verbose, hexs)


@settings(FUZZ, max_examples=EXAMPLES * 5)
@given(name=st.sampled_from(["sendmmsg", "recvmmsg"]),
       datas=st.lists(msghdr(mm=True), max_size=5), ret=st.integers(-5, 8),
       vlen=st.integers(0, 2**32 - 1), proto=PROTOS, limit=LIMITS, verbose=st.booleans(),
       hexs=st.booleans())
def test_mmsghdr(dec: SyscallDecoder, name: str, datas: list[bytes], ret: int, vlen: int,
                 proto: int | None, limit: int, verbose: bool, hexs: bool) -> None:
    caps = [Capture(1, CAP_MMSGHDR, 0, d) for d in datas]
    if proto is not None:
        caps.append(nl_fd(3, proto))
    run(dec, call(name, (3, 0x5000, vlen, 0), ret, tuple(caps)), limit, verbose, hexs)


@settings(FUZZ, max_examples=EXAMPLES * 20)
@given(name=st.sampled_from(["readv", "writev", "preadv", "pwritev", "vmsplice",
                             "process_vm_readv"]),
       iovs=IOVS, count=st.one_of(st.integers(0, 10), _U64), ret=st.integers(-5, 5000),
       cflags=st.sampled_from([0, 1, 16, 17]), limit=LIMITS, verbose=st.booleans(),
       hexs=st.booleans())
def test_iovecs(dec: SyscallDecoder, name: str, iovs: list[tuple[int, int, bytes, int]],
                count: int, ret: int, cflags: int, limit: int, verbose: bool,
                hexs: bool) -> None:
    data = b"".join(rec(*v) for v in iovs)
    ev = call(name, (3, 0x5000, count, 0, 0x6000, 1), ret, (Capture(1, CAP_IOV, cflags, data),))
    run(dec, ev, limit, verbose, hexs)


REQUESTS = sorted({*IOCTL_ARG_KINDS["x86_64"], *IO._ioctl_by_value("x86_64")})


@settings(FUZZ, max_examples=EXAMPLES * 40)
@given(req=st.sampled_from(REQUESTS), arg=_U64, ret=st.integers(-4100, 100),
       caps=st.lists(st.builds(Capture, st.just(2), st.sampled_from([CAP_STRUCT, CAP_BUF, 1]),
                               st.sampled_from([0, 1, 2, 4, 32]), st.binary(max_size=80)),
                     max_size=2),
       limit=LIMITS, verbose=st.booleans(), hexs=st.booleans())
def test_ioctl_arguments(dec: SyscallDecoder, req: int, arg: int, ret: int,
                         caps: list[Capture], limit: int, verbose: bool, hexs: bool) -> None:
    run(dec, call("ioctl", (3, req, arg), ret, tuple(caps)), limit, verbose, hexs)
