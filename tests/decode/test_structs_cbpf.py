"""Classic BPF programs (tracekit/decode/structs_cbpf.py) through SyscallDecoder: seccomp,
prctl and setsockopt records built by hand, with the captures the BPF program makes
(session/capture.py: the struct, then TK_SPEC_PTR_AT reads of the instructions at entry
and at exit); hostile instruction bytes and lengths never raise.

Expected texts are strace 6.1's for the same programs (tests/e2e/test_strace_cbpf.py
compares against strace itself on one run)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tests.decode._calls import args, call, decoder
from tracekit._events import (
    CAP_BUF,
    CAP_STRUCT,
    CAPF_DEREF,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_PARTIAL,
    Capture,
)
from tracekit.decode.args import SyscallDecoder

FPROG = 0x7FFC0000
PROG = 0x5600_0000_1000


def insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


DENY = (insn(0x20, 0) + insn(0x15, 0x6E, 0, 1) + insn(0x06, 0x50002)
        + insn(0x06, 0x7FFF0000))
DENY_TEXT = ("[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x6e, 0, "
             "0x1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x2), "
             "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW)]")


def caps(arg: int, count: int, ptr: int, data: bytes, *, flags: int = 0,
         struct_kind: int = CAP_STRUCT) -> tuple[Capture, ...]:
    """The struct sock_fprog's capture and its instructions read at entry and at exit."""
    head = struct.pack("<QII", ptr, 8, 0)
    fprog = struct.pack("<HxxxxxxQ", count, ptr)
    ref = Capture(arg, CAP_BUF, CAPF_DEREF | flags, head + data)
    return Capture(arg, struct_kind, 0, fprog), ref, ref


@pytest.fixture
def verbose(tmp_path: Path) -> SyscallDecoder:
    d = decoder(tmp_path)
    d.verbose = True
    return d


def test_seccomp_filter_verbose_and_abbreviated(tmp_path: Path,
                                                verbose: SyscallDecoder) -> None:
    ev = call("seccomp", (1, 0, FPROG), caps=caps(2, 4, PROG, DENY))
    assert args(verbose, ev) == f"SECCOMP_SET_MODE_FILTER, 0, {{len=4, filter={DENY_TEXT}}}"
    assert args(decoder(tmp_path), ev) == \
        f"SECCOMP_SET_MODE_FILTER, 0, {{len=4, filter={hex(PROG)}}}"


def test_prctl_filter(verbose: SyscallDecoder) -> None:
    ev = call("prctl", (22, 2, FPROG), caps=caps(2, 4, PROG, DENY))
    assert args(verbose, ev) == \
        f"PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {{len=4, filter={DENY_TEXT}}}"


def test_seccomp_actions(verbose: SyscallDecoder) -> None:
    prog = b"".join(insn(0x06, k) for k in (0x80000000, 0, 0x30007, 0x7FC00000, 0x7FF0FFFF,
                                            0x7FFC0000, 0x60000, 0x7FF10001))
    prog += insn(0x16, 0x50001) + insn(0x20, 0xFFFFF000)
    ev = call("seccomp", (1, 0x80000000, FPROG), caps=caps(2, 10, PROG, prog))
    assert args(verbose, ev).split(", {", 1)[1] == (
        "len=10, filter=[BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_KILL_PROCESS), "
        "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_KILL_THREAD), "
        "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_TRAP|0x7), "
        "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_USER_NOTIF), "
        "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_TRACE|0xffff), "
        "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_LOG), "
        "BPF_STMT(BPF_RET|BPF_K, 0x60000 /* SECCOMP_RET_??? */), "
        "BPF_STMT(BPF_RET|BPF_K, 0x7ff10000 /* SECCOMP_RET_??? */|0x1), "
        "BPF_STMT(BPF_RET|BPF_A, SECCOMP_RET_ERRNO|0x1), "
        "BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0xfffff000)]}")


def test_codes_without_names(verbose: SyscallDecoder) -> None:
    codes = (0xE0, 0x102, 0x03, 0x287, 0x47, 0xEC, 0x84, 0xFD, 0x05, 0x1E, 0x40E, 0x79)
    prog = b"".join(insn(c, k + 1, 1 if c == 0xFD else 0) for k, c in enumerate(codes))
    ev = call("setsockopt", (3, 1, 26, FPROG, 16),
              caps=caps(3, 12, PROG, prog, struct_kind=CAP_BUF))
    assert args(verbose, ev) == (
        "3, SOL_SOCKET, SO_ATTACH_FILTER, {len=12, filter=["
        "BPF_STMT(BPF_LD|BPF_W|0xe0 /* BPF_??? */, 0x1), "
        "BPF_STMT(BPF_ST|0x100 /* BPF_??? */, 0x2), BPF_STMT(BPF_STX, 0x3), "
        "BPF_STMT(BPF_MISC|BPF_TXA|0x200 /* BPF_??? */, 0x4), "
        "BPF_STMT(BPF_MISC|0x40 /* BPF_??? */, 0x5), "
        "BPF_STMT(BPF_ALU|BPF_X|0xe0 /* BPF_??? */, 0x6), "
        "BPF_STMT(BPF_ALU|BPF_K|BPF_NEG, 0x7), "
        "BPF_JUMP(BPF_JMP|BPF_X|0xf0 /* BPF_??? */, 0x8, 0x1, 0), "
        "BPF_STMT(BPF_JMP|BPF_K|BPF_JA, 0x9), BPF_STMT(BPF_RET|0x18 /* BPF_??? */, 0xa), "
        "BPF_STMT(BPF_RET|BPF_X|0x400 /* BPF_??? */, 0xb), "
        "BPF_STMT(BPF_LDX|BPF_DW|BPF_MEM, 0xc)]}, 16")


def test_socket_filter_offsets(verbose: SyscallDecoder) -> None:
    prog = (insn(0x30, 0xFFE00004) + insn(0x28, 0xFFF00008) + insn(0x20, 0xFFFFF000)
            + insn(0x20, 0xFFFFF003) + insn(0x06, 0xFFFFFFFF) + insn(0x87, 0) + insn(0x00, 1))
    fprog = caps(3, 7, PROG, prog, struct_kind=CAP_BUF)
    ev = call("setsockopt", (3, 1, 26, FPROG, 16), caps=fprog)
    assert args(verbose, ev) == (
        "3, SOL_SOCKET, SO_ATTACH_FILTER, {len=7, filter=["
        "BPF_STMT(BPF_LD|BPF_B|BPF_ABS, SKF_LL_OFF+4), "
        "BPF_STMT(BPF_LD|BPF_H|BPF_ABS, SKF_NET_OFF+8), "
        "BPF_STMT(BPF_LD|BPF_W|BPF_ABS, SKF_AD_OFF+SKF_AD_PROTOCOL), "
        "BPF_STMT(BPF_LD|BPF_W|BPF_ABS, SKF_AD_OFF+0x3 /* SKF_AD_??? */), "
        "BPF_STMT(BPF_RET|BPF_K, 0xffffffff), BPF_STMT(BPF_MISC|BPF_TXA, 0), "
        "BPF_STMT(BPF_LD|BPF_W|BPF_IMM, 0x1)]}, 16")


def test_empty_null_cut_and_unreadable(verbose: SyscallDecoder) -> None:
    def text(count: int, ptr: int, data: bytes, flags: int = 0) -> str:
        ev = call("seccomp", (1, 0, FPROG), caps=caps(2, count, ptr, data, flags=flags))
        return args(verbose, ev).removeprefix("SECCOMP_SET_MODE_FILTER, 0, ")

    assert text(0, PROG, DENY) == "{len=0, filter=[]}"
    assert text(1, 0, b"") == "{len=1, filter=NULL}"
    # cut by the end of the mapping: the instructions before it, then its address
    assert text(3, PROG, DENY[:8], CAPF_ELEM_FAULT) == (
        "{len=3, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), "
        f"... /* {hex(PROG + 8)} */]}}")
    assert text(3, PROG, b"", CAPF_ELEM_FAULT) == f"{{len=3, filter={hex(PROG)}}}"
    # a program that would wrap past the end of the address space: its address
    assert text(2, 2**64 - 8, DENY) == f"{{len=2, filter={hex(2**64 - 8)}}}"
    # more instructions than the capture holds: those read, then "..."
    assert text(5, PROG, DENY) == "{len=5, filter=" + DENY_TEXT[:-1] + ", ...]}"
    # the struct itself unreadable: its address
    ev = call("seccomp", (1, 0, FPROG),
              caps=(Capture(2, CAP_STRUCT, CAPF_FAULT, b""),
                    Capture(2, CAP_BUF, CAPF_DEREF | CAPF_FAULT, b"")))
    assert args(verbose, ev) == f"SECCOMP_SET_MODE_FILTER, 0, {hex(FPROG)}"


def test_unreadable_at_entry_read_at_exit(verbose: SyscallDecoder) -> None:
    head = struct.pack("<QII", PROG, 8, 0)
    ev = call("seccomp", (1, 0, FPROG), caps=(
        Capture(2, CAP_STRUCT, 0, struct.pack("<HxxxxxxQ", 4, PROG)),
        Capture(2, CAP_BUF, CAPF_DEREF | CAPF_ELEM_FAULT, head),
        Capture(2, CAP_BUF, CAPF_DEREF, head + DENY)))
    assert args(verbose, ev).endswith(f"{{len=4, filter={DENY_TEXT}}}")


def got_filter(count: int, got: Capture, ret: int = 0) -> tuple[Capture, ...]:
    """getsockopt's captures: optlen before (16) and after (``count``), the buffer read
    at exit (``got``), the buffer as long as optlen (the last)."""
    return (Capture(4, CAP_STRUCT, 0, struct.pack("<i", 16)),
            Capture(4, CAP_STRUCT, 0, struct.pack("<i", count)), got,
            Capture(3, CAP_BUF, 0, got.data[:count]))


def test_getsockopt_filter(tmp_path: Path, verbose: SyscallDecoder) -> None:
    buf = 0x7FFC1000
    whole = Capture(3, CAP_STRUCT, 0, DENY + bytes(1024 - len(DENY)))
    ev = call("getsockopt", (3, 1, 26, buf, 0x7FFC2000), caps=got_filter(4, whole))
    # a socket filter's return values in hex
    sock = DENY_TEXT.replace("SECCOMP_RET_ERRNO|0x2", "0x50002").replace(
        "SECCOMP_RET_ALLOW", "0x7fff0000")
    assert args(verbose, ev) == f"3, SOL_SOCKET, SO_GET_FILTER, {sock}, [16 => 4]"
    assert args(decoder(tmp_path), ev) == f"3, SOL_SOCKET, SO_GET_FILTER, {hex(buf)}, [16 => 4]"
    # the buffer cut by the end of its mapping: the instructions before, then its address
    cut = Capture(3, CAP_STRUCT, CAPF_FAULT | CAPF_PARTIAL, b"", DENY[:16])
    ev = call("getsockopt", (3, 1, 26, buf, 0x7FFC2000), caps=got_filter(4, cut))
    assert args(verbose, ev).split(", ", 3)[3].startswith(
        f"[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x6e, 0, 0x1), "
        f"... /* {hex(buf + 16)} */], [16 => 4]")
    # a failed call: the address
    ev = call("getsockopt", (3, 1, 26, buf, 0x7FFC2000), ret=-22, caps=got_filter(4, whole))
    assert args(verbose, ev) == f"3, SOL_SOCKET, SO_GET_FILTER, {hex(buf)}, [16]"


@settings(deadline=None, max_examples=300)
@given(data=st.binary(max_size=1100), count=st.integers(0, 0xFFFF),
       ptr=st.integers(0, 2**64 - 1), flags=st.integers(0, 0xFFFF),
       head=st.binary(max_size=24), op=st.sampled_from(["seccomp", "prctl", "setsockopt"]))
def test_hostile_programs_never_raise(tmp_path_factory: pytest.TempPathFactory, data: bytes,
                                      count: int, ptr: int, flags: int, head: bytes,
                                      op: str) -> None:
    d = decoder(tmp_path_factory.mktemp("cbpf"))
    d.verbose = True
    fprog = struct.pack("<HxxxxxxQ", count, ptr)
    cap_set = (Capture(2 if op != "setsockopt" else 3, CAP_STRUCT, 0, fprog),
               Capture(2 if op != "setsockopt" else 3, CAP_BUF, CAPF_DEREF | flags,
                       head + data),
               Capture(2 if op != "setsockopt" else 3, CAP_BUF, CAPF_DEREF, head))
    argv = {"seccomp": (1, 0, FPROG), "prctl": (22, 2, FPROG),
            "setsockopt": (3, 1, 26, FPROG, 16)}[op]
    text = args(d, call(op, argv, caps=cap_set))
    assert "len=" in text or hex(FPROG) in text
    # getsockopt(SO_GET_FILTER): any count and bytes
    got = Capture(3, CAP_STRUCT, flags & (CAPF_FAULT | CAPF_PARTIAL), data, head)
    text = args(d, call("getsockopt", (3, 1, 26, ptr, 0x7FFC2000),
                        caps=got_filter(count - 0x8000, got)))
    assert "SO_GET_FILTER, " in text
