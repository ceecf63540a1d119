"""Flag words decode with the tables of the record's architecture, not the machine's:
the same raw value gets x86_64's names from an x86_64 decoder and arm64's from an arm64
one, on any machine."""

from __future__ import annotations

import platform

import pytest

from tracekit._events import SC_COMPAT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel import flag_tables
from tracekit.kernel.arch import SUPPORTED, machine_arch
from tracekit.kernel.syscalls import SyscallTable

AT_FDCWD = 2**64 - 100
O_RDONLY = 0


def decoder(arch: str) -> SyscallDecoder:
    return SyscallDecoder(SyscallTable(arch), fdcache=FdCache("/nonexistent"))


def record(table: SyscallTable, name: str, args: tuple[int, ...], ret: int = 0,
           flags: int = 0) -> Syscall:
    nr = table.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=7, tgid=7, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", flags=flags)


@pytest.mark.parametrize(("arch", "name"), [("x86_64", "O_DIRECTORY"), ("arm64", "O_DIRECT")])
def test_same_openat_flags_value_gets_each_archs_name(arch: str, name: str) -> None:
    d = decoder(arch)
    got = d.decode(record(d.table, "openat", (AT_FDCWD, 0x1000, 0x10000 | O_RDONLY), 3))
    assert (got.name, got.args) == ("openat", ("AT_FDCWD", "0x1000", f"O_RDONLY|{name}"))


def test_arm64_open_bits_are_the_uapi_header_ones() -> None:
    # arch/arm64/include/uapi/asm/fcntl.h: O_DIRECTORY 040000, O_NOFOLLOW 0100000,
    # O_DIRECT 0200000, O_LARGEFILE 0400000 (x86_64 uses the asm-generic values).
    arm64, x86 = F.for_arch("arm64"), F.for_arch("x86_64")
    for value, arm_name, x86_name in [(0o40000, "O_DIRECTORY", "O_DIRECT"),
                                      (0o100000, "O_NOFOLLOW", "O_LARGEFILE"),
                                      (0o200000, "O_DIRECT", "O_DIRECTORY"),
                                      (0o400000, "O_LARGEFILE", "O_NOFOLLOW")]:
        assert arm64.open_flags(value) == f"O_RDONLY|{arm_name}"
        assert x86.open_flags(value) == f"O_RDONLY|{x86_name}"
    # O_TMPFILE is __O_TMPFILE|O_DIRECTORY, so it moves with O_DIRECTORY.
    assert arm64.open_flags(0o20000000 | 0o40000 | 2) == "O_RDWR|O_TMPFILE"
    # on x86_64 0x400000 is __O_TMPFILE alone, named as strace 6.1 names it
    assert x86.open_flags(0o20000000 | 0o40000 | 2) == "O_RDWR|O_DIRECT|__O_TMPFILE"


def test_openat_mode_is_printed_for_the_archs_o_tmpfile() -> None:
    o_tmpfile_arm64 = 0o20000000 | 0o40000
    d = decoder("arm64")
    got = d.decode(record(d.table, "openat", (AT_FDCWD, 0x1000, o_tmpfile_arm64 | 2, 0o600), 3))
    assert got.args == ("AT_FDCWD", "0x1000", "O_RDWR|O_TMPFILE", "0600")
    d = decoder("x86_64")
    got = d.decode(record(d.table, "openat", (AT_FDCWD, 0x1000, o_tmpfile_arm64 | 2, 0o600), 3))
    # strace prints the mode for __O_TMPFILE's bit alone, too
    assert got.args == ("AT_FDCWD", "0x1000", "O_RDWR|O_DIRECT|__O_TMPFILE", "0600")


def test_fcntl_getfl_result_uses_the_archs_open_flags() -> None:
    d = decoder("arm64")
    f_getfl = 3
    got = d.decode(record(d.table, "fcntl", (3, f_getfl), 0x10000 | 0x8000 | 2))
    assert got.ret == "0x18002 (flags O_RDWR|O_DIRECT|O_NOFOLLOW)"


def test_arm64_only_names_exist_only_in_arm64_tables() -> None:
    assert F.for_arch("arm64").prot(0x10 | 1) == "PROT_READ|PROT_BTI"
    assert F.for_arch("x86_64").prot(0x10 | 1) == "PROT_READ|0x10"
    # arch_prctl(2) is x86's; arm64 has no such header, so no names.
    assert flag_tables.for_arch("arm64").ARCH_PRCTL_OPTIONS == {}
    assert flag_tables.for_arch("x86_64").ARCH_PRCTL_OPTIONS[0x1002] == "ARCH_SET_FS"


def test_clone_tls_and_child_tid_follow_the_archs_argument_order() -> None:
    flags = 0x80000 | 0x1000000 | 17              # SETTLS|CHILD_SETTID|SIGCHLD
    want = ("child_stack=NULL", "flags=CLONE_SETTLS|CLONE_CHILD_SETTID|SIGCHLD",
            "tls=0x7000", "child_tidptr=0x9000")
    x86 = decoder("x86_64")                       # (flags, stack, ptid, ctid, tls)
    assert x86.decode(record(x86.table, "clone", (flags, 0, 0, 0x9000, 0x7000), 5)).args == want
    arm = decoder("arm64")                        # (flags, stack, ptid, tls, ctid)
    assert arm.decode(record(arm.table, "clone", (flags, 0, 0, 0x7000, 0x9000), 5)).args == want
    compat = SyscallDecoder(SyscallTable("x86_64"), SyscallTable("i386"),
                            fdcache=FdCache("/nonexistent"))   # i386: tls before ctid
    ev = record(SyscallTable("i386"), "clone", (flags, 0, 0, 0x7000, 0x9000), 5, SC_COMPAT)
    assert compat.decode(ev).args == want


def test_default_tables_are_the_running_archs() -> None:
    arch = machine_arch()
    assert machine_arch("aarch64") == "arm64" and machine_arch("amd64") == "x86_64"
    if arch not in SUPPORTED:
        pytest.skip(f"no tables for {platform.machine()}")
    assert flag_tables.for_arch() is flag_tables.for_arch(arch)
    assert F.for_arch() is F.for_arch(arch)
    assert F.open_flags is F.for_arch(arch).open_flags
    assert SyscallDecoder(fdcache=FdCache("/nonexistent")).flags is F.for_arch(arch)


def test_an_arch_without_tables_is_refused() -> None:
    with pytest.raises(ValueError, match="no flag tables for arch 'mips'"):
        flag_tables.for_arch("mips")
    with pytest.raises(ValueError, match="no flag tables for arch 'i386'"):
        F.for_arch("i386")
