"""Argument kinds from tracefs C types (tracekit.decode.argtypes) and the decoder using
them: 32-bit types print the low half of the register, pointers NULL, sizes decimal."""

from __future__ import annotations

import os

import pytest

from tracekit._events import Syscall
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.argtypes import kind_of, narrowed, width_of
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64 = SyscallTable("x86_64")
I386 = SyscallTable("i386")
HI = 0xDEADBEEF00000000

# as tracefs formats declare them (events/syscalls/sys_enter_*/format, Linux 6.18)
TYPES = {
    "copy_file_range": [("fd_in", "int"), ("off_in", "loff_t *"), ("fd_out", "int"),
                        ("off_out", "loff_t *"), ("len", "size_t"), ("flags", "unsigned int")],
    "close_range": [("fd", "unsigned int"), ("max_fd", "unsigned int"),
                    ("flags", "unsigned int")],
    "getsid": [("pid", "pid_t")],
    "setresuid": [("ruid", "uid_t"), ("euid", "uid_t"), ("suid", "uid_t")],
    # a call the argspec does not list
    "pkey_mprotect": [("start", "unsigned long"), ("len", "size_t"), ("prot", "unsigned long"),
                      ("pkey", "int")],
}


@pytest.mark.parametrize(("name", "c_type", "kind"), [
    ("fd_in", "int", "fd"), ("dfd", "int", "dirfd"), ("which", "int", "d"),
    ("pid", "pid_t", "d"), ("which_clock", "const clockid_t", "d"),
    ("buf", "char *", "p"), ("argv", "const char *const *", "p"),
    ("header", "cap_user_header_t", "p"), ("len", "size_t", "u"),
    ("offset", "loff_t", "ld"), ("flags", "unsigned int", "x32"),
    ("count", "unsigned int", "u32"), ("ruid", "uid_t", "uid"), ("mode", "umode_t", "mode"),
    ("len", "unsigned long", "u"), ("addr", "unsigned long", "x"),
    ("type", "const enum landlock_rule_type", "d"), ("what", "struct_thing", "x"),
])
def test_kind_of(name: str, c_type: str, kind: str) -> None:
    assert kind_of(name, c_type) == kind


@pytest.mark.parametrize(("kind", "c_type", "want"), [
    ("u", "unsigned int", "u32"), ("x", "unsigned int", "x32"), ("ld", "int", "d"),
    ("u", "size_t", "u"), ("x", "unsigned long", "x"), ("x", "void *", "p"),
    ("fd", "unsigned int", "fd"), ("d", "int", "d"), ("oflags", "int", "oflags"),
])
def test_narrowed(kind: str, c_type: str, want: str) -> None:
    assert narrowed(kind, c_type) == want


def test_width_of() -> None:
    assert [width_of(t) for t in ("int", "const __u32", "umode_t", "long", "char *")] == [
        32, 32, 16, 64, 64]


@pytest.fixture
def dec(tmp_path: os.PathLike[str]) -> SyscallDecoder:
    return SyscallDecoder(X64, I386, fdcache=FdCache(str(tmp_path)), arg_types=TYPES.get)


def sc(name: str, args: tuple[int, ...], ret: int = 0) -> Syscall:
    nr = X64.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1, duration_ns=1, tid=7, tgid=7, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t")


def test_unlisted_call_prints_by_c_type(dec: SyscallDecoder) -> None:
    d = dec.decode(sc("copy_file_range", (HI | 3, 0, HI | 4, 0, 5, HI), 5))
    assert d.args == ("3", "NULL", "4", "NULL", "5", "0")
    assert dec.decode(sc("getsid", (HI | 0xFFFFFFFF,), -3)).args == ("-1",)
    d = dec.decode(sc("setresuid", (HI | 0xFFFFFFFF, 1000, HI)))
    assert d.args == ("-1", "1000", "0")
    d = dec.decode(sc("pkey_mprotect", (0x7F0000000000, 4096, HI | 1, HI | 0xFFFFFFFF)))
    # (prot keeps its prototype's named kind: a flag word of the whole register)
    assert d.args == ("0x7f0000000000", "4096", "PROT_READ|0xdeadbeef00000000", "-1")


def test_listed_call_narrowed_on_32_bit_types(dec: SyscallDecoder) -> None:
    d = dec.decode(sc("close_range", (HI | 1000, HI | 1001, HI | 4)))
    assert d.args == ("1000", "1001", "CLOSE_RANGE_CLOEXEC")


def test_without_tracefs_unlisted_calls_print_by_the_shipped_types(
        tmp_path: os.PathLike[str], dec: SyscallDecoder) -> None:
    """No tracefs (not root): the shipped prototypes give the same text."""
    plain = SyscallDecoder(X64, I386, fdcache=FdCache(str(tmp_path)),
                           arg_count=lambda n: len(TYPES[n]) if n in TYPES else None)
    ev = sc("copy_file_range", (HI | 3, 0, HI | 4, 0, 5, HI), 5)
    assert plain.decode(ev).args == ("3", "NULL", "4", "NULL", "5", "0") == dec.decode(ev).args
