"""The i386 layouts of tracekit.decode.structs_compat, alone and through the decoder for
32-bit (SC_COMPAT) records: struct stat64, old timespec/timeval, compat rlimit and tms,
_llseek's offset and result, pread64's split offset; and the same-layout calls
(prlimit64, clock_gettime64) still read natively."""

from __future__ import annotations

import struct

from tracekit._events import CAP_STRUCT, SC_COMPAT, Capture, Syscall
from tracekit.decode import flags as F, structs_compat as C
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

I386 = SyscallTable("i386")
FL = F.for_arch("x86_64")


def stat64(mode: int, size: int, rdev: int = 0) -> bytes:
    data = struct.pack("<Q4xIIIIIQ4xqIQIIIIIIQ", 0x803, 12, mode, 1, 0, 0, rdev, size,
                       4096, 8, 1, 2, 3, 4, 5, 6, 123456789)
    assert len(data) == C.STAT64_SIZE
    return data


def test_stat64() -> None:
    assert C.format_stat64(stat64(0o100600, 13), FL) == "{st_mode=S_IFREG|0600, st_size=13, ...}"
    assert C.format_stat64(stat64(0o20600, 0, 0x103), FL) == (
        "{st_mode=S_IFCHR|0600, st_rdev=makedev(0x1, 0x3), ...}")
    assert C.format_stat64(stat64(0o100600, 13)[:95], FL) is None
    verbose = C.format_stat64(stat64(0o100600, 13), FL, verbose=True)
    assert verbose is not None and "st_ino=123456789" in verbose


def test_rlimit32_and_pairs() -> None:
    assert C.format_rlimit32(struct.pack("<II", 8192 * 1024, 0xFFFFFFFF)) == (
        "{rlim_cur=8192*1024, rlim_max=RLIM_INFINITY}")
    assert C.format_rlimit32(b"\0" * 7) is None
    assert C.widen_pair32(struct.pack("<ii", -1, 5)) == struct.pack("<qq", -1, 5)


def sc(name: str, args: tuple[int, ...], ret: int = 0,
       caps: tuple[Capture, ...] = ()) -> Syscall:
    nr = I386.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps,
                   flags=SC_COMPAT)


def test_compat_records_read_i386_layouts(tmp_path: object) -> None:
    d = SyscallDecoder(SyscallTable("x86_64"), fdcache=FdCache(str(tmp_path)))
    got = d.decode(sc("fstat64", (3, 0x4000), 0,
                      (Capture(1, CAP_STRUCT, 0, stat64(0o100600, 13)),)))
    assert got.args == ("3", "{st_mode=S_IFREG|0600, st_size=13, ...}")
    ts = Capture(1, CAP_STRUCT, 0, struct.pack("<ii", 5, 1000))
    assert d.decode(sc("clock_gettime", (1, 0x4000), 0, (ts,))).args == (
        "CLOCK_MONOTONIC", "{tv_sec=5, tv_nsec=1000}")
    tv = Capture(0, CAP_STRUCT, 0, struct.pack("<ii", 5, 1000))
    assert d.decode(sc("gettimeofday", (0x4000, 0), 0, (tv,))).args == (
        "{tv_sec=5, tv_usec=1000}", "NULL")
    ts64 = Capture(1, CAP_STRUCT, 0, struct.pack("<qq", 5, 1000))
    assert d.decode(sc("clock_gettime64", (1, 0x4000), 0, (ts64,))).args == (
        "CLOCK_MONOTONIC", "{tv_sec=5, tv_nsec=1000}")
    rl = Capture(1, CAP_STRUCT, 0, struct.pack("<II", 20000, 0xFFFFFFFF))
    assert d.decode(sc("ugetrlimit", (7, 0x4000), 0, (rl,))).args == (
        "RLIMIT_NOFILE", "{rlim_cur=20000, rlim_max=RLIM_INFINITY}")
    rl64 = Capture(3, CAP_STRUCT, 0, struct.pack("<QQ", 20000, 2**64 - 1))
    assert d.decode(sc("prlimit64", (0, 7, 0, 0x4000), 0, (rl64,))).args == (
        "0", "RLIMIT_NOFILE", "NULL", "{rlim_cur=20000, rlim_max=RLIM64_INFINITY}")
    res = Capture(3, CAP_STRUCT, 0, struct.pack("<q", 4294967308))
    assert d.decode(sc("_llseek", (3, 1, 0, 0x4000, 2), 0, (res,))).args == (
        "3", "4294967296", "[4294967308]", "SEEK_END")
    assert d.decode(sc("_llseek", (3, 0, 0, 1, 0), -14)).args == ("3", "0", "0x1", "SEEK_SET")
    assert d.decode(sc("pwrite64", (3, 0x4000, 0, 0, 1), -27)).args[3] == "4294967296"
    assert d.decode(sc("pread64", (3, 0x4000, 0, 0xFFFFFFFF, 0xFFFFFFFF), -22)).args[3] == "-1"


def test_widened_structs() -> None:
    act = struct.pack("<III", 1, 0x14000000, 0x401000) + struct.pack("<II", 2, 1)
    native = C.sigaction_to_native(act)
    assert native == struct.pack("<QQQII", 1, 0x14000000, 0x401000, 2, 1)
    assert C.stack_to_native(struct.pack("<IiI", 0x1000, 2, 8192)) == struct.pack(
        "<Qi4xQ", 0x1000, 2, 8192)
    assert C.rusage_to_native(struct.pack("<18i", *range(18))) == struct.pack(
        "<18q", *range(18))
    info = struct.pack("<iiiiiiii", 17, 0, 1, 1234, 0, 3, 5, 6) + bytes(96)
    wide = C.siginfo_to_native(info)
    assert wide is not None and len(wide) == 128
    assert struct.unpack_from("<iii4xiii4xqq", wide) == (17, 0, 1, 1234, 0, 3, 5, 6)
    fs64 = struct.pack("<II5Q2i3I", 0xEF53, 4096, 10, 9, 8, 7, 6, 1, 2, 255, 4096, 0x20)
    fs = C.statfs64_to_native(fs64 + bytes(16))
    assert fs is not None and len(fs) == 120
    assert C.format_stat64(b"", FL) is None and C.statfs_to_native(bytes(43)) is None


def test_compat_records_more(tmp_path: object) -> None:
    d = SyscallDecoder(SyscallTable("x86_64"), fdcache=FdCache(str(tmp_path)))
    lk64 = Capture(2, CAP_STRUCT, 0, struct.pack("<hhqqi", 1, 0, 10, 20, 0))
    assert d.decode(sc("fcntl64", (3, 13, 0x4000), 0, (lk64,))).args == (
        "3", "F_SETLK64", "{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=10, l_len=20}")
    lk = Capture(2, CAP_STRUCT, 0, struct.pack("<hhiii", 2, 1, 5, 6, 0) + bytes(8))
    assert d.decode(sc("fcntl64", (3, 6, 0x4000), 0, (lk,))).args == (
        "3", "F_SETLK", "{l_type=F_UNLCK, l_whence=SEEK_CUR, l_start=5, l_len=6}")
    mm = Capture(0, CAP_STRUCT, 0, struct.pack("<6I", 0, 4096, 1, 0x22, 0xFFFFFFFF, 0))
    got = d.decode(sc("mmap", (0x4000,), 0xF7F00000, (mm,)))
    assert got.args == ("NULL", "4096", "PROT_READ", "MAP_PRIVATE|MAP_ANONYMOUS", "-1", "0")
    assert got.ret == "0xf7f00000"
    assert d.decode(sc("mmap", (1,), -14)).args == ("0x1",)
    t = Capture(0, CAP_STRUCT, 0, struct.pack("<i", 0))
    assert d.decode(sc("time", (0x4000,), 0, (t,))).args == ("[0]",)
    assert d.decode(sc("time", (0,), 0)).args == ("NULL",)
    sa = Capture(1, CAP_STRUCT, 0, struct.pack("<IIIII", 1, 0x14000000, 0x401000, 2, 1))
    assert d.decode(sc("rt_sigaction", (10, 0x4000, 0, 8), 0, (sa,))).args == (
        "SIGUSR1", "{sa_handler=SIG_IGN, sa_mask=[INT RT_1], "
        "sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x401000}", "NULL", "8")
