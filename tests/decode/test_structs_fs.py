"""The fs slice's struct decoders (tracekit/decode/structs_fs.py) on bytes packed with
struct, in the layouts of x86_64 and arm64, and through SyscallDecoder with captures.

Expected texts are what strace 6.1 printed for the same values on this machine (see
tests/e2e/test_strace_fs.py for the comparison against strace itself)."""

from __future__ import annotations

import struct

import pytest

from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_STR,
    CAP_STRUCT,
    CAPF_FAULT,
    CAPF_TRUNC,
    Capture,
    Syscall,
)
from tracekit.decode import flags as F, structs_fs as S
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64, ARM64 = SyscallTable("x86_64"), SyscallTable("arm64")
S_IFREG, S_IFDIR, S_IFCHR, S_IFBLK = 0o100000, 0o040000, 0o020000, 0o060000


def stat_x86_64(mode: int, size: int = 0, rdev: int = 0) -> bytes:
    """struct stat of arch/x86/include/uapi/asm/stat.h (144 bytes)."""
    return struct.pack("<QQQIIIIQqqq6Q3q", 2049, 42, 1, mode, 0, 0, 0, rdev, size, 4096, 8,
                       *(0,) * 6, 0, 0, 0)


def stat_arm64(mode: int, size: int = 0, rdev: int = 0) -> bytes:
    """struct stat of include/uapi/asm-generic/stat.h (128 bytes)."""
    return struct.pack("<QQIIIIQQqiiq6QII", 2049, 42, mode, 1, 0, 0, rdev, 0, size, 4096, 0,
                       8, *(0,) * 6, 0, 0)


@pytest.mark.parametrize(("arch", "pack"), [("x86_64", stat_x86_64), ("arm64", stat_arm64)])
def test_stat_layouts(arch: str, pack: object) -> None:
    fl = F.for_arch(arch)
    assert callable(pack)
    assert len(pack(0)) == S.STAT_LAYOUT[arch][0]
    assert S.format_stat(pack(S_IFREG | 0o644, 36151), fl) == \
        "{st_mode=S_IFREG|0644, st_size=36151, ...}"
    assert S.format_stat(pack(S_IFDIR | 0o1777, 4096), fl) == \
        "{st_mode=S_IFDIR|S_ISVTX|0777, st_size=4096, ...}"
    # devices show st_rdev, not st_size (strace: makedev(0x1, 0x3) for /dev/null)
    assert S.format_stat(pack(S_IFCHR | 0o666, 99, 0x103), fl) == \
        "{st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}"
    assert S.format_stat(pack(S_IFBLK | 0o660, 0, 0x801), fl) == \
        "{st_mode=S_IFBLK|0660, st_rdev=makedev(0x8, 0x1), ...}"
    assert S.format_stat(pack(S_IFREG)[:-1], fl) is None      # short: not a stat


@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_stat_verbose_has_every_field(arch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """strace -v's stat (the text strace 6.1 printed for /etc/ld.so.cache here, UTC)."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        times = (1796457578, 868767076, 1777320873, 0, 1777320873, 0)
        if arch == "x86_64":
            data = struct.pack("<QQQIIIIQqqq6Q3q", 0xFE00, 465, 1, S_IFREG | 0o644, 0, 0, 0,
                               0, 36555, 4096, 72, *times, 0, 0, 0)
        else:
            data = struct.pack("<QQIIIIQQqiiq6QII", 0xFE00, 465, S_IFREG | 0o644, 1, 0, 0,
                               0, 0, 36555, 4096, 0, 72, *times, 0, 0)
        assert S.format_stat_verbose(data, F.for_arch(arch)) == (
            "{st_dev=makedev(0xfe, 0), st_ino=465, st_mode=S_IFREG|0644, st_nlink=1, "
            "st_uid=0, st_gid=0, st_blksize=4096, st_blocks=72, st_size=36555, "
            "st_atime=1796457578 /* 2026-12-05T07:59:38.868767076+0000 */, "
            "st_atime_nsec=868767076, st_mtime=1777320873 /* 2026-04-27T20:14:33+0000 */, "
            "st_mtime_nsec=0, st_ctime=1777320873 /* 2026-04-27T20:14:33+0000 */, "
            "st_ctime_nsec=0}")
        dev = stat_x86_64(S_IFCHR | 0o666, 0, 0x103) if arch == "x86_64" else \
            stat_arm64(S_IFCHR | 0o666, 0, 0x103)
        # a time of 0 has no date (strace -v printed ``st_atime=0, st_atime_nsec=0``)
        assert "st_blocks=8, st_rdev=makedev(0x1, 0x3), st_atime=0, st_atime_nsec=0, " \
            in str(S.format_stat_verbose(dev, F.for_arch(arch)))
        assert S.format_stat_verbose(data[:-1], F.for_arch(arch)) is None
    finally:
        monkeypatch.undo()
        time.tzset()


def test_makedev_splits_as_glibc() -> None:
    assert S.makedev(0) == "makedev(0, 0)"          # C's %#x prints 0 as 0
    # major 0x123 (bits 8..19 and 32..), minor 0x45678 (bits 0..7 and 20..31)
    dev = (0x45678 & 0xFF) | (0x123 << 8) | ((0x45678 & ~0xFF) << 12)
    assert S.makedev(dev) == "makedev(0x123, 0x45678)"


def statx(mask: int, attrs: int, mode: int, size: int) -> bytes:
    head = struct.pack("<IIQIIIH2xQQQQ", mask, 4096, attrs, 1, 0, 0, mode, 7, size, 8, 0)
    return head + bytes(256 - len(head))


@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_statx(arch: str) -> None:
    fl = F.for_arch(arch)
    assert S.format_statx(statx(0x1FFF, 0, S_IFREG | 0o644, 1221), fl) == (
        "{stx_mask=STATX_ALL|STATX_MNT_ID, stx_attributes=0, stx_mode=S_IFREG|0644, "
        "stx_size=1221, ...}")
    assert S.format_statx(statx(0x17FF, 0x2000, S_IFDIR | 0o755, 4096), fl) == (
        "{stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=STATX_ATTR_MOUNT_ROOT, "
        "stx_mode=S_IFDIR|0755, stx_size=4096, ...}")
    assert fl.statx_mask(0xFFF) == "STATX_ALL"          # the argument as strace names it


def test_statfs() -> None:
    data = struct.pack("<qqQQQQQiiqqq4q", 0xEF53, 4096, 66053021, 60059360, 20604067,
                       16777216, 16328656, -1348110866, -1931147068, 255, 4096, 0x1020,
                       0, 0, 0, 0)
    assert len(data) == S.STATFS_SIZE
    text = ("{f_type=EXT2_SUPER_MAGIC, f_bsize=4096, f_blocks=66053021, f_bfree=60059360, "
            "f_bavail=20604067, f_files=16777216, f_ffree=16328656, "
            "f_fsid={val=[0xafa575ee, 0x8ce508c4]}, f_namelen=255, f_frsize=4096, "
            "f_flags=ST_VALID|ST_RELATIME}")
    for arch in ("x86_64", "arm64"):
        assert S.format_statfs(data, F.for_arch(arch)) == text
    proc = struct.pack("<qqQQQQQiiqqq4q", 0x9FA0, 4096, 0, 0, 0, 0, 0, 0x15, 0, 255, 4096,
                       0x1020, 0, 0, 0, 0)
    assert S.format_statfs(proc, F.for_arch("x86_64")).startswith(
        "{f_type=PROC_SUPER_MAGIC, ")
    assert "f_fsid={val=[0x15, 0]}" in str(S.format_statfs(proc, F.for_arch("x86_64")))


def dirent(name: bytes) -> bytes:
    """struct linux_dirent64 padded to 8 bytes, as the kernel writes it."""
    reclen = (19 + len(name) + 1 + 7) & ~7
    return struct.pack("<QqHB", 1, 2, reclen, 4) + name + bytes(reclen - 19 - len(name))


def test_count_dirents() -> None:
    buf = b"".join(dirent(n) for n in (b".", b"..", b"passwd", b"a" * 40))
    assert S.count_dirents(buf, len(buf)) == 4
    assert S.count_dirents(b"", 0) == 0
    assert S.count_dirents(buf[:30], len(buf)) is None       # fewer bytes than returned
    bad = bytearray(buf)
    bad[16:18] = b"\0\0"                                      # d_reclen 0: malformed
    assert S.count_dirents(bytes(bad), len(buf)) is None


def test_count_envp() -> None:
    arr = struct.pack("<5Q", 0x7FFD0001, 0x7FFD0010, 0x7FFD0020, 0, 0xDEAD)
    assert S.count_envp(arr) == 3
    assert S.count_envp(bytes(8)) == 0
    assert S.count_envp(struct.pack("<2Q", 1, 2)) is None     # no NULL captured


@pytest.mark.parametrize(("cur", "mx", "text"), [
    (8192 * 1024, 2**64 - 1, "{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}"),
    (20000, 20000, "{rlim_cur=20000, rlim_max=20000}"),
    (0, 1024, "{rlim_cur=0, rlim_max=1024}"),               # strace: > 1024 only
    (2048, 2**64 - 1, "{rlim_cur=2*1024, rlim_max=RLIM64_INFINITY}"),
])
def test_rlimit(cur: int, mx: int, text: str) -> None:
    assert S.format_rlimit(struct.pack("<QQ", cur, mx)) == text


def test_system_info_structs() -> None:
    uts = b"".join(s.ljust(65, b"\0") for s in (b"Linux", b"vm", b"6.18", b"#1", b"x86_64",
                                                 b"(none)"))
    assert S.format_utsname(uts) == '{sysname="Linux", nodename="vm", ...}'
    si = struct.pack("<q3Q6QH6xQQI4x", 5091, 14272, 43936, 66720, 25276502016, 23639715840,
                     9084928, 49823744, 0, 0, 91, 0, 0, 1)
    assert len(si) == S.SYSINFO_SIZE
    assert S.format_sysinfo(si) == (
        "{uptime=5091, loads=[14272, 43936, 66720], totalram=25276502016, "
        "freeram=23639715840, sharedram=9084928, bufferram=49823744, totalswap=0, "
        "freeswap=0, procs=91, totalhigh=0, freehigh=0, mem_unit=1}")
    assert S.format_tms(struct.pack("<4q", 1, 3, 7, 150)) == (
        "{tms_utime=1 /* 0.01 s */, tms_stime=3 /* 0.03 s */, tms_cutime=7 /* 0.07 s */, "
        "tms_cstime=150 /* 1.50 s */}")
    ru = struct.pack("<4q14q", 0, 12691, 0, 32163, *(0,) * 14)
    assert len(ru) == S.RUSAGE_SIZE
    assert S.format_rusage(ru) == (
        "{ru_utime={tv_sec=0, tv_usec=12691}, ru_stime={tv_sec=0, tv_usec=32163}, ...}")
    assert S.format_pipefds(struct.pack("<ii", 3, 4)) == "[3, 4]"


# ---- through the decoder --------------------------------------------------------------

def sc(table: SyscallTable, name: str, args: tuple[int, ...], ret: int = 0,
       caps: tuple[Capture, ...] = ()) -> Syscall:
    nr = table.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def decoder(table: SyscallTable, tmp_path: object) -> SyscallDecoder:
    return SyscallDecoder(table, fdcache=FdCache(str(tmp_path)))


AT_FDCWD = 2**64 - 100


@pytest.mark.parametrize(("table", "pack"), [(X64, stat_x86_64), (ARM64, stat_arm64)])
def test_newfstatat_decoded(table: SyscallTable, pack: object, tmp_path: object) -> None:
    assert callable(pack)
    d = decoder(table, tmp_path)
    caps = (Capture(1, 1, 0, b"/etc/passwd"), Capture(2, CAP_STRUCT, 0, pack(S_IFREG | 0o644,
                                                                            1221)))
    ok = d.decode(sc(table, "newfstatat", (AT_FDCWD, 0x1000, 0x7FFD1000, 0), 0, caps))
    assert ok.args == ('AT_FDCWD', '"/etc/passwd"',
                       "{st_mode=S_IFREG|0644, st_size=1221, ...}", "0")
    # a failed call shows the address, as strace does
    bad = d.decode(sc(table, "newfstatat", (AT_FDCWD, 0x1000, 0x7FFD1000, 0), -2, caps))
    assert bad.args[2] == "0x7ffd1000"
    # an unreadable or cut struct too
    for flags in (CAPF_FAULT, CAPF_TRUNC):
        cut = (caps[0], Capture(2, CAP_STRUCT, flags, pack(S_IFREG)))
        got = d.decode(sc(table, "newfstatat", (AT_FDCWD, 0x1000, 0x7FFD1000, 0), 0, cut))
        assert got.args[2] == "0x7ffd1000"


def test_fstat_and_statfs_decoded(tmp_path: object) -> None:
    d = decoder(X64, tmp_path)
    got = d.decode(sc(X64, "fstat", (1, 0x7FFD0000), 0,
                      (Capture(1, CAP_STRUCT, 0, stat_x86_64(S_IFCHR | 0o620, 0, 0x8800)),)))
    assert got.args == ("1", "{st_mode=S_IFCHR|0620, st_rdev=makedev(0x88, 0), ...}")
    fs = struct.pack("<qqQQQQQiiqqq4q", 0x01021994, 4096, 1, 1, 1, 1, 1, 0, 0, 255, 4096,
                     0x20, 0, 0, 0, 0)
    got = d.decode(sc(X64, "fstatfs", (0, 0x7FFD0000), 0, (Capture(1, CAP_STRUCT, 0, fs),)))
    assert got.args[1].startswith("{f_type=TMPFS_MAGIC, ")
    assert got.args[1].endswith("f_flags=ST_VALID}")


def test_getdents64_and_envp_decoded(tmp_path: object) -> None:
    d = decoder(X64, tmp_path)
    buf = b"".join(dirent(n) for n in (b".", b"..", b"x"))
    got = d.decode(sc(X64, "getdents64", (3, 0x55D0000, 32768), len(buf),
                      (Capture(1, CAP_BUF, 0, buf),)))
    assert got.args == ("3", "0x55d0000 /* 3 entries */", "32768")
    got = d.decode(sc(X64, "getdents64", (3, 0x55D0000, 32768), 0,
                      (Capture(1, CAP_BUF, 0, b""),)))
    assert got.args[1] == "0x55d0000 /* 0 entries */"
    # more returned than captured (BUF_MAX): the count is unknown, the address alone
    got = d.decode(sc(X64, "getdents64", (3, 0x55D0000, 32768), 6896,
                      (Capture(1, CAP_BUF, CAPF_TRUNC, buf),)))
    assert got.args[1] == "0x55d0000"
    envp = struct.pack("<36Q", *range(1, 36), 0)
    # the big read faulted (end of the mapping), the small one holds the NULL
    caps = (Capture(2, CAP_STRUCT, CAPF_FAULT, b""), Capture(2, CAP_STRUCT, 0, envp[:256]))
    short = struct.pack("<4Q", 1, 2, 0, 0)
    got = d.decode(sc(X64, "execve", (0x1000, 0x2000, 0x7FFC0000), 0,
                      (Capture(2, CAP_STRUCT, 0, short), Capture(2, CAP_STRUCT, 0, short))))
    assert got.args[2] == "0x7ffc0000 /* 2 vars */"
    got = d.decode(sc(X64, "execve", (0x1000, 0x2000, 0x7FFC0000), 0,
                      (Capture(2, CAP_STRUCT, 0, envp), Capture(2, CAP_STRUCT, 0, envp[:256]))))
    assert got.args[2] == "0x7ffc0000 /* 35 vars */"
    got = d.decode(sc(X64, "execve", (0x1000, 0x2000, 0x7FFC0000), 0, caps))
    assert got.args[2] == "0x7ffc0000"                # 35 > 31: not in the small read
    got = d.decode(sc(X64, "execve", (0x1000, 0x2000, 0x7FFC0000), 0,
                      (Capture(2, CAP_ARGV, 0, b"A=1\0B=2\0"),)))
    assert got.args[2] == "0x7ffc0000 /* 2 vars */"
    assert d.decode(sc(X64, "execve", (0x1000, 0x2000, 0), 0)).args[2] == "NULL"


def test_limits_and_system_calls_decoded(tmp_path: object) -> None:
    d = decoder(X64, tmp_path)
    lim = struct.pack("<QQ", 8192 * 1024, 2**64 - 1)
    got = d.decode(sc(X64, "prlimit64", (0, 3, 0, 0x7FFD0000), 0,
                      (Capture(3, CAP_STRUCT, 0, lim),)))
    assert got.args == ("0", "RLIMIT_STACK", "NULL",
                        "{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}")
    got = d.decode(sc(X64, "prlimit64", (0, 4, 0x7FFD0000, 0), 0,
                      (Capture(2, CAP_STRUCT, 0, struct.pack("<QQ", 0, 2**64 - 1)),)))
    assert got.args[2:] == ("{rlim_cur=0, rlim_max=RLIM64_INFINITY}", "NULL")
    got = d.decode(sc(X64, "getrusage", (2**64 - 1, 0x7FFD0000), 0,
                      (Capture(1, CAP_STRUCT, 0, bytes(144)),)))
    assert got.args == ("RUSAGE_CHILDREN",
                        "{ru_utime={tv_sec=0, tv_usec=0}, ru_stime={tv_sec=0, tv_usec=0}, ...}")
    got = d.decode(sc(X64, "pipe2", (0x7FFD0000, 0o2000000), 0,
                      (Capture(0, CAP_STRUCT, 0, struct.pack("<ii", 5, 6)),)))
    assert got.args == ("[5, 6]", "O_CLOEXEC")
    got = d.decode(sc(X64, "pipe2", (0x7FFD0000, 0), -24,
                      (Capture(0, CAP_STRUCT, 0, struct.pack("<ii", 5, 6)),)))
    assert got.args == ("0x7ffd0000", "0")
    got = d.decode(sc(X64, "getcwd", (0x7FFD0000, 1024), 5,
                      (Capture(0, CAP_BUF, 0, b"/tmp\0"),)))
    assert got.args == ('"/tmp"', "1024") and got.ret == "5"
    got = d.decode(sc(X64, "uname", (0x7FFD0000,), 0,
                      (Capture(0, CAP_STRUCT, 0, b"Linux".ljust(65, b"\0") * 6),)))
    assert got.args == ('{sysname="Linux", nodename="Linux", ...}',)


def test_utimes_as_strace_prints_it(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """utimes' and futimesat's struct timeval[2] (strace 6.1): each time with its date in
    local time, in microseconds; none for 0 or a tv_usec out of range (unsigned)."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        pack = struct.Struct("<qqqq").pack
        assert S.format_utimes(pack(5, 6, 1700000000, 0)) == (
            "[{tv_sec=5, tv_usec=6} /* 1970-01-01T00:00:05.000006+0000 */, "
            "{tv_sec=1700000000, tv_usec=0} /* 2023-11-14T22:13:20+0000 */]")
        assert S.format_utimes(pack(0, 0, -1, 999999)) == (
            "[{tv_sec=0, tv_usec=0}, "
            "{tv_sec=-1, tv_usec=999999} /* 1969-12-31T23:59:59.999999+0000 */]")
        assert S.format_utimes(pack(0, -5, 1, 1_000_000)) == (
            "[{tv_sec=0, tv_usec=18446744073709551611}, {tv_sec=1, tv_usec=1000000}]")
        assert S.format_utimes(bytes(16)) is None
        d = decoder(X64, tmp_path)
        times = Capture(1, CAP_STRUCT, 0, pack(0, 0, 0, 0))
        got = d.decode(sc(X64, "utimes", (0x1000, 0x2000), 0,
                          (Capture(0, CAP_STR, 0, b"/tmp/f"), times)))
        assert got.args == ('"/tmp/f"', "[{tv_sec=0, tv_usec=0}, {tv_sec=0, tv_usec=0}]")
        got = d.decode(sc(X64, "futimesat", (AT_FDCWD, 0x1000, 0), 0,
                          (Capture(1, CAP_STR, 0, b"f"),)))
        assert got.args == ("AT_FDCWD", '"f"', "NULL")
        # half of the array readable: strace prints the address
        got = d.decode(sc(X64, "futimesat", (AT_FDCWD, 0x1000, 0x7FF0), -14,
                          (Capture(1, CAP_STR, 0, b"f"),
                           Capture(2, CAP_STRUCT, CAPF_FAULT, b""))))
        assert got.args == ("AT_FDCWD", '"f"', "0x7ff0")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_utimens_as_strace_prints_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """utimensat's times (strace 6.1): UTIME_NOW/UTIME_OMIT by name, a time with its
    date in local time, no date for 0 or a tv_nsec out of range (unsigned)."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        pack = struct.Struct("<qqqq").pack
        assert S.format_utimens(pack(0, S.UTIME_NOW, 9, S.UTIME_OMIT)) == (
            "[UTIME_NOW, UTIME_OMIT]")
        assert S.format_utimens(pack(5, 6, 1700000000, 0)) == (
            "[{tv_sec=5, tv_nsec=6} /* 1970-01-01T00:00:05.000000006+0000 */, "
            "{tv_sec=1700000000, tv_nsec=0} /* 2023-11-14T22:13:20+0000 */]")
        assert S.format_utimens(pack(0, 0, 1, -5)) == (
            "[{tv_sec=0, tv_nsec=0}, {tv_sec=1, tv_nsec=18446744073709551611}]")
        assert S.format_utimens(pack(0, 0, 1, 1_000_000_000)) == (
            "[{tv_sec=0, tv_nsec=0}, {tv_sec=1, tv_nsec=1000000000}]")
        assert S.format_utimens(bytes(16)) is None
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize(("tz", "sec", "part", "width", "want"), [
    # strace 6.1 printed these for utimes(2)/utimensat(2) times here (glibc 2.36)
    ("UTC", 5, 6, 6, " /* 1970-01-01T00:00:05.000006+0000 */"),
    ("UTC", 1700000000, 0, 9, " /* 2023-11-14T22:13:20+0000 */"),
    ("UTC", -1, 999999, 6, " /* 1969-12-31T23:59:59.999999+0000 */"),
    ("UTC", 0, 1, 6, " /* 1970-01-01T00:00:00.000001+0000 */"),
    ("UTC", 0, 0, 6, ""),                                   # a time of 0
    ("UTC", 1, 1000000, 6, ""),                             # microseconds out of range
    ("UTC", 1, 999999999, 9, " /* 1970-01-01T00:00:01.999999999+0000 */"),
    ("UTC", 1, 1000000000, 9, ""),
    ("UTC", 1, 2**64 - 5, 6, ""),                           # tv_usec -5, unsigned
    # glibc's %Y: unpadded, negative, and tm_year + 1900 wrapped as a C int
    ("UTC", -60000000000, 1, 6, " /* 68-09-03T13:20:00.000001+0000 */"),
    ("UTC", -62167219201, 1, 9, " /* -1-12-31T23:59:59.000000001+0000 */"),
    ("UTC", -100000000000000, 5, 6, " /* -3166904-02-24T14:13:20.000005+0000 */"),
    ("UTC", 67768036191676799, 1, 6, " /* -2147481749-12-31T23:59:59.000001+0000 */"),
    ("UTC", -67768040609740800, 1, 6, " /* -2147481748-01-01T00:00:00.000001+0000 */"),
    ("UTC", 67768036191676800, 1, 6, ""),                   # past localtime()
    ("UTC", -67768040609740801, 1, 6, ""),
    ("UTC", 2**63 - 1, 0, 6, ""),
    # local time; an offset with seconds (local mean time) is cut to minutes
    ("Asia/Kolkata", 5, 6, 6, " /* 1970-01-01T05:30:05.000006+0530 */"),
    ("Asia/Kolkata", -5000000000, 0, 6, " /* 1811-07-23T21:00:08+0553 */"),
    ("America/St_Johns", -5000000000, 0, 6, " /* 1811-07-23T11:35:48-0330 */"),
])
def test_time_comment_as_strace_prints_it(tz: str, sec: int, part: int, width: int,
                                          want: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The date strace puts after a time (sprinttime_ex): glibc's strftime, made from
    localtime()'s fields, for every time localtime() takes (Python's strftime refuses
    years past a C int)."""
    import time
    from pathlib import Path

    if tz != "UTC" and not (Path("/usr/share/zoneinfo") / tz).exists():
        pytest.skip(f"no zoneinfo for {tz} (tzdata)")
    monkeypatch.setenv("TZ", tz)
    time.tzset()
    try:
        assert S.time_comment(sec, part, width) == want
    finally:
        monkeypatch.undo()
        time.tzset()


def test_utimbuf_as_strace_prints_it(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    """utime's struct utimbuf (strace 6.1): each time with its date, none for 0."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        pack = struct.Struct("<qq").pack
        assert S.format_utimbuf(pack(1000000000, 0)) == (
            "{actime=1000000000 /* 2001-09-09T01:46:40+0000 */, modtime=0}")
        assert S.format_utimbuf(pack(-1, 1700000000)) == (
            "{actime=-1 /* 1969-12-31T23:59:59+0000 */, "
            "modtime=1700000000 /* 2023-11-14T22:13:20+0000 */}")
        assert S.format_utimbuf(bytes(8)) is None
        d = decoder(X64, tmp_path)
        got = d.decode(sc(X64, "utime", (0x1000, 0x2000), 0,
                          (Capture(0, CAP_STR, 0, b"c"), Capture(1, CAP_STRUCT, 0, pack(0, 0)))))
        assert got.args == ('"c"', "{actime=0, modtime=0}")
        got = d.decode(sc(X64, "utime", (0x1000, 1), -14,
                          (Capture(0, CAP_STR, 0, b"c"), Capture(1, CAP_STRUCT, CAPF_FAULT, b""))))
        assert got.args == ('"c"', "0x1")
        assert d.decode(sc(X64, "utime", (0x1000, 0), 0, (Capture(0, CAP_STR, 0, b"c"),))
                        ).args == ('"c"', "NULL")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_xattr_values_and_lists_as_strace_prints_them(tmp_path: object) -> None:
    """strace 6.1: a value as a string without its trailing NUL (length: the size to set,
    the return value got), the flags by name, a list whole; addresses for a failed get,
    a list of size 0 and unreadable memory."""
    d = decoder(X64, tmp_path)
    path, name = Capture(0, CAP_STR, 0, b"c"), Capture(1, CAP_STR, 0, b"user.bin")
    binary = b"\0\1\2a\377\n\0"
    got = d.decode(sc(X64, "setxattr", (0x10, 0x20, 0x30, 7, 1), 0,
                      (path, name, Capture(2, CAP_BUF, 0, binary))))
    assert got.args == ('"c"', '"user.bin"', r'"\0\1\2a\377\n"', "7", "XATTR_CREATE")
    got = d.decode(sc(X64, "lsetxattr", (0x10, 0x20, 0x30, 40, 0xDEADBEEF), -22,
                      (path, name, Capture(2, CAP_BUF, 0, b"0123456789" * 4))))
    assert got.args[2:] == ('"01234567890123456789012345678901"...', "40",
                            "XATTR_CREATE|XATTR_REPLACE|0xdeadbeec")
    # a NUL as the 32nd byte: left out, and no "..." though the value is longer
    got = d.decode(sc(X64, "fsetxattr", (4, 0x20, 0x30, 40, 0), 0,
                      (name, Capture(2, CAP_BUF, 0, b"v" * 31 + b"\0" + b"v" * 8))))
    assert got.args[2] == '"' + "v" * 31 + '"'
    # past XATTR_SIZE_MAX: the address
    got = d.decode(sc(X64, "fsetxattr", (4, 0x20, 0x30, 70000, 0), -7,
                      (name, Capture(2, CAP_BUF, CAPF_TRUNC, b"\0" * 256))))
    assert got.args[2] == "0x30"
    got = d.decode(sc(X64, "fsetxattr", (4, 0x20, 0, 0, 4), -22, (name,)))
    assert got.args[2:] == ("NULL", "0", "0x4 /* XATTR_??? */")
    got = d.decode(sc(X64, "setxattr", (0x10, 0x20, 1, 4, 0), -14,
                      (path, name, Capture(2, CAP_BUF, CAPF_FAULT, b""))))
    assert got.args[2] == "0x1"
    got = d.decode(sc(X64, "getxattr", (0x10, 0x20, 0x30, 256), 11,
                      (path, name, Capture(2, CAP_BUF, 0, b"hello world"))))
    assert got.args[2:] == ('"hello world"', "256")
    assert d.decode(sc(X64, "getxattr", (0x10, 0x20, 0x30, 3), -34, (path, name))
                    ).args[2] == "0x30"
    assert d.decode(sc(X64, "getxattr", (0x10, 0x20, 0, 0), 11, (path, name))
                    ).args[2] == "NULL"
    got = d.decode(sc(X64, "flistxattr", (4, 0x30, 256), 7,
                      (Capture(1, CAP_BUF, 0, b"user.f\0"),)))
    assert got.args == ("4", r'"user.f\0"', "256")
    assert d.decode(sc(X64, "llistxattr", (0x10, 0x30, 256), 0,
                       (path, Capture(1, CAP_BUF, 0, b"")))).args[1] == '""'
    assert d.decode(sc(X64, "listxattr", (0x10, 0, 0), 33, (path,))).args[1] == "NULL"
    assert d.decode(sc(X64, "listxattr", (0x10, 0x30, 4), -34, (path,))).args[1] == "0x30"


def test_open_how_as_strace_prints_it(tmp_path: object) -> None:
    """openat2's struct open_how (strace 6.1): flags, the mode with O_CREAT or a mode
    that is not 0, resolve by name, bytes past 24 that are not 0 in hex; the address for
    a size under 24."""
    import os

    d = decoder(X64, tmp_path)
    path = Capture(1, CAP_STR, 0, b"c")
    how = struct.Struct("<QQQ").pack

    def args(data: bytes, size: int, ret: int = 3) -> tuple[str, ...]:
        return d.decode(sc(X64, "openat2", (AT_FDCWD, 0x10, 0x20, size), ret,
                           (path, Capture(2, CAP_STRUCT, 0, data)))).args[2:]
    assert args(how(os.O_RDONLY | os.O_CLOEXEC, 0, 0xC), 24) == (
        "{flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH}", "24")
    assert args(how(os.O_WRONLY | os.O_CREAT, 0o600, 0x30), 24, -11) == (
        "{flags=O_WRONLY|O_CREAT, mode=0600, resolve=RESOLVE_IN_ROOT|RESOLVE_CACHED}", "24")
    assert args(how(0, 0o644, 0x80), 24, -22) == (
        "{flags=O_RDONLY, mode=0644, resolve=0x80 /* RESOLVE_??? */}", "24")
    assert args(how(0xDEADBEEF00000000, 0, 0), 24, -22)[0] == (
        "{flags=O_RDONLY|0xdeadbeef00000000, resolve=0}")
    assert args(how(0, 0, 0) + bytes(8), 32)[0] == "{flags=O_RDONLY, resolve=0}"
    assert args(how(0, 0, 0) + b"\1" + bytes(7), 32, -7)[0] == (
        r'{flags=O_RDONLY, resolve=0, /* bytes 24..31 */ "\x01\x00\x00\x00\x00\x00\x00\x00"}')
    assert args(how(0, 0, 0)[:8], 8, -22) == ("0x20", "8")
    # a larger struct: the bytes after 24 up to the size, cut at the string limit
    assert args(how(0, 0, 0) + b"\2" + bytes(39), 64, -7)[0] == (
        "{flags=O_RDONLY, resolve=0, /* bytes 24..63 */ \"" + "\\x02" + "\\x00" * 31
        + '"...}')


def test_file_handle_hostile_bytes() -> None:
    head = struct.pack("<Ii", 8, 1)
    assert S.format_file_handle(head + bytes(range(8))) == (
        '{handle_bytes=8, handle_type=1, f_handle="\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07"}')
    assert S.format_file_handle(head + b"\0" * 3) is None             # shorter than it says
    assert S.format_file_handle(b"\1\0") is None
    assert S.format_file_handle(struct.pack("<Ii", 0xFFFFFFFF, -1) + b"A" * 128).endswith(
        '\\x41"...}')                                                 # at most 128 shown
    assert S.format_file_handle(head, was=0, whole=False) == "{handle_bytes=0 => 8}"
    assert S.format_file_handle(head, was=8, whole=False) == "{handle_bytes=8}"


def test_mount_attr_short_or_unread(tmp_path: object) -> None:
    # a size under 32, or fewer bytes captured than 32: the address
    dec = decoder(X64, tmp_path)
    attr = struct.pack("<4Q", 1, 0, 0x40000, 3)
    for size, data in ((24, attr), (32, attr[:20])):
        ev = sc(X64, "mount_setattr", (AT_FDCWD, 0, 0, 0x7FFD0000, size), -22,
                (Capture(3, CAP_STRUCT, 0, data),))
        assert dec.decode(ev).args[3] == "0x7ffd0000"
    ev = sc(X64, "mount_setattr", (AT_FDCWD, 0, 0, 0x7FFD0000, 32), -2,
            (Capture(3, CAP_STRUCT, 0, attr),))
    assert dec.decode(ev).args[3] == ("{attr_set=MOUNT_ATTR_RDONLY, attr_clr=0, "
                                      "propagation=MS_PRIVATE, userns_fd=3}")


def test_mount_attr_size_past_what_was_read(tmp_path: object) -> None:
    # a size_t with garbage above its low half: the capture read its low 32 bits (48
    # bytes), the kernel and strace take the whole value: strace's "???" for the rest
    dec = decoder(X64, tmp_path)
    attr = struct.pack("<4Q", 1, 0, 0x40000, 0) + b"\0" * 16
    ev = sc(X64, "mount_setattr", (AT_FDCWD, 0, 0, 0x7FFD0000, 0xDEADBEEF00000030), -7,
            (Capture(3, CAP_STRUCT, 0, attr),))
    assert dec.decode(ev).args[3] == ("{attr_set=MOUNT_ATTR_RDONLY, attr_clr=0, "
                                      "propagation=MS_PRIVATE, userns_fd=0, ???}")
