"""i386 calls whose arguments sit in user memory (socketcall, the old select) and i386
iovecs: the records the BPF program makes of them (programs/syscalls.h: TK_SC_INDIRECT,
TK_SPEC_COMPAT) decoded as strace prints them, and never an exception on what the traced
program controls (tests/e2e/test_strace_sweep_i386.py checks them against strace)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings, strategies as st

from tracekit._events import (
    CAP_BUF,
    CAP_IOV,
    CAP_MMSGHDR,
    CAP_MSGHDR,
    CAP_STRUCT,
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_COMPAT,
    SC_INDIRECT,
    Capture,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.flags import for_arch
from tracekit.decode.structs_io import IovElem, format_cmsgs
from tracekit.kernel.syscalls import SyscallTable

I386 = SyscallTable("i386")


@pytest.fixture(scope="module")
def dec() -> SyscallDecoder:
    return SyscallDecoder(SyscallTable("x86_64"), I386)


def rec(name: str, args: tuple[int, ...], ret: int, flags: int = SC_COMPAT,
        caps: tuple[Capture, ...] = ()) -> Syscall:
    nr = I386.nr(name)
    assert nr is not None
    full = (*args, 0, 0, 0, 0, 0, 0)[:6]
    return Syscall(1, 1, 7, 7, 0, nr, full, ret, "t", flags, caps)  # type: ignore[arg-type]


def test_socketcall_sub_calls_without_an_i386_number_are_named() -> None:
    # programs/syscalls.h TK_NR32_SUBCALL_BASE + SYS_ACCEPT / SYS_SEND / SYS_RECV
    assert (I386.nr("accept"), I386.nr("send"), I386.nr("recv")) == (1005, 1009, 1010)
    assert I386.name(1009) == "send" and SyscallTable("x86_64").nr("send") is None


def test_sub_calls_print_as_strace_prints_them(dec: SyscallDecoder) -> None:
    ind = SC_COMPAT | SC_INDIRECT
    send = rec("send", (4, 0x404000, 2, 0), 2, ind, (Capture(1, CAP_BUF, 0, b"hi"),))
    d = dec.decode(send)
    assert (d.name, d.args, d.ret) == ("send", ("4", '"hi"', "2", "0"), "2")
    recv = rec("recv", (5, 0x404000, 10, 0x40), 2, ind, (Capture(1, CAP_BUF, 0, b"hi"),))
    assert dec.decode(recv).args == ("5", '"hi"', "10", "MSG_DONTWAIT")
    acc = dec.decode(rec("accept", (3, 0, 0), 5, ind))
    assert (acc.name, acc.args, acc.ret) == ("accept", ("3", "NULL", "NULL"), "5")


def test_socketcall_itself_when_its_words_were_not_read(dec: SyscallDecoder) -> None:
    efault = -14
    assert dec.decode(rec("socketcall", (1, 0), efault)).args == ("SYS_SOCKET", "NULL")
    assert dec.decode(rec("socketcall", (99, 0x407140), -22)).args == ("99", "0x407140")
    assert dec.decode(rec("socketcall", (0xFFFFFFFF, 0x407140), -22)).args[0] == "-1"


def test_old_select_from_its_words_or_as_its_address(dec: SyscallDecoder) -> None:
    sets = Capture(1, CAP_BUF, 0, struct.pack("<Q", 1 << 15))
    tv = Capture(4, CAP_STRUCT, 0, struct.pack("<ii", 0, 1000))
    ev = rec("select", (16, 0x407000, 0, 0, 0x407010), 0, SC_COMPAT | SC_INDIRECT,
             (sets, tv, sets, tv))
    d = dec.decode(ev)
    assert (d.name, d.args, d.ret) == (
        "select", ("16", "[15]", "NULL", "NULL", "{tv_sec=0, tv_usec=1000}"), "0 (Timeout)")
    # not read: the struct's address, whatever the other registers hold
    d = dec.decode(rec("select", (0, 0x407000, 3, 0, 0x1), -14))
    assert (d.args, d.ret) == (("NULL",), "-1 EFAULT (Bad address)")
    assert dec.decode(rec("select", (1, 0x407000), 1)).ret == "1"


def iov(*elems: tuple[int, int, bytes, int]) -> bytes:
    """TK_CAP_IOV data: struct tk_iov_elem records (base, len, got, flags), each with its
    bytes padded to 8."""
    out = b""
    for base, length, data, flags in elems:
        out += struct.pack("<QQII", base, length, len(data), flags) + data
        out += bytes(-len(data) % 8)
    return out


def test_i386_iovecs_widened_by_the_bpf_program(dec: SyscallDecoder) -> None:
    cap = Capture(1, CAP_IOV, 0, iov((0x402000, 3, b"abc", 0), (0x402004, 5, b"defgh", 0)))
    d = dec.decode(rec("writev", (3, 0x4072A0, 2), 8, caps=(cap,)))
    assert d.args == ("3", '[{iov_base="abc", iov_len=3}, {iov_base="defgh", iov_len=5}]', "2")
    # preadv/pwritev: the offset from two registers, low half first
    d = dec.decode(rec("pwritev", (3, 0x4072A0, 2, 0, 1), -27, caps=(cap,)))
    assert d.args[3] == "4294967296"
    d = dec.decode(rec("pwritev2", (3, 0x4072A0, 1, 0, 0, 0x1000), -95, caps=(cap,)))
    assert d.args[3:] == ("0", "0x1000 /* RWF_??? */")


def test_i386_control_messages() -> None:
    fl = for_arch("x86_64")
    # struct compat_cmsghdr: u32 len, level, type; messages 4-aligned
    two = struct.pack("<IiiiIiii", 16, 1, 1, 5, 16, 1, 1, 6)
    text = format_cmsgs(IovElem(0x1000, 32, two), fl, compat=True)
    assert text == ("[{cmsg_len=16, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, "
                    "cmsg_data=[5]}, {cmsg_len=16, cmsg_level=SOL_SOCKET, "
                    "cmsg_type=SCM_RIGHTS, cmsg_data=[6]}]")
    for cut in range(len(two)):
        format_cmsgs(IovElem(0x1000, 32, two[:cut]), fl, compat=True)


_CAPS = st.lists(st.builds(
    Capture, st.integers(0, 5),
    st.sampled_from([CAP_BUF, CAP_STRUCT, CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR]),
    st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), st.binary(max_size=80)), max_size=4)
_WORD = st.integers(0, 0xFFFFFFFF)


@settings(deadline=None, max_examples=300)
@given(name=st.sampled_from(["socketcall", "select", "send", "recv", "accept", "bind",
                             "recvfrom", "readv", "writev", "preadv2", "pwritev",
                             "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
                             "recvmmsg_time64"]),
       args=st.tuples(_WORD, _WORD, _WORD, _WORD, _WORD, _WORD),
       ret=st.integers(-4095, 1 << 20), indirect=st.booleans(), caps=_CAPS)
def test_hostile_records_never_raise(dec: SyscallDecoder, name: str,
                                     args: tuple[int, ...], ret: int, indirect: bool,
                                     caps: list[Capture]) -> None:
    flags = SC_COMPAT | (SC_INDIRECT if indirect else 0)
    d = dec.decode(rec(name, args, ret, flags, tuple(caps)))
    assert d.name == name and isinstance(d.ret, str)
