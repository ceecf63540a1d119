"""strace's -v / -e abbrev= (structures with every field) and -e verbose= (structures as
their addresses) in the decoder: per syscall number, native and i386, and the full forms
the abbreviated structures have. Expected texts are what strace 6.1 -v printed for the
same values on this machine (tests/e2e/test_strace_verbose.py compares with strace)."""

from __future__ import annotations

import struct

from tracekit._events import CAP_STRUCT, SC_COMPAT, Capture, Syscall
from tracekit.decode import flags as F, structs_fs as S, structs_io as IO, structs_proc as SP
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64, I386 = SyscallTable("x86_64"), SyscallTable("i386")
FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
CC = bytes([0x3, 0x1C, 0x7F, 0x15, 0x4, 0, 0x1, 0, 0x11, 0x13, 0x1A, 0, 0x12, 0xF, 0x17,
            0x16, 0, 0, 0])
TERMIOS = struct.pack("<4IB19s", 0o2400, 0o5, 0o277, 0o105073, 0, CC)
UTS = b"".join(v.ljust(65, b"\0") for v in (b"Linux", b"vm", b"6.18.44", b"#1 SMP",
                                            b"x86_64", b"(none)"))
RUSAGE = struct.pack("<4q14q", 0, 987, 0, 0, 1076, 0, 0, 0, 62, 0, 0, 0, 0, 0, 0, 0, 82, 0)


def test_termios_with_every_field() -> None:
    assert IO.format_termios(TERMIOS, FL, verbose=True) == (
        "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
        "c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|"
        "ECHOKE, c_line=N_TTY, c_cc=[[VINTR]=0x3, [VQUIT]=0x1c, [VERASE]=0x7f, "
        "[VKILL]=0x15, [VEOF]=0x4, [VTIME]=0, [VMIN]=0x1, [VSWTC]=0, [VSTART]=0x11, "
        "[VSTOP]=0x13, [VSUSP]=0x1a, [VEOL]=0, [VREPRINT]=0x12, [VDISCARD]=0xf, "
        "[VWERASE]=0x17, [VLNEXT]=0x16, [VEOL2]=0, [17]=0, [18]=0]}")
    assert IO.format_termios(TERMIOS, FL).endswith("ECHOKE, ...}")


def test_uname_and_rusage_with_every_field() -> None:
    assert S.format_utsname_verbose(UTS) == (
        '{sysname="Linux", nodename="vm", release="6.18.44", version="#1 SMP", '
        'machine="x86_64", domainname="(none)"}')
    assert S.format_utsname_verbose(UTS[:-1]) is None
    assert SP.format_rusage_verbose(RUSAGE) == (
        "{ru_utime={tv_sec=0, tv_usec=987}, ru_stime={tv_sec=0, tv_usec=0}, "
        "ru_maxrss=1076, ru_ixrss=0, ru_idrss=0, ru_isrss=0, ru_minflt=62, ru_majflt=0, "
        "ru_nswap=0, ru_inblock=0, ru_oublock=0, ru_msgsnd=0, ru_msgrcv=0, "
        "ru_nsignals=0, ru_nvcsw=82, ru_nivcsw=0}")
    # all ones (strace's waitid test): the times signed, the longs unsigned
    ones = SP.format_rusage_verbose(b"\xff" * len(RUSAGE))
    assert ones is not None and ones.startswith(
        "{ru_utime={tv_sec=-1, tv_usec=18446744073709551615}, ")
    assert "ru_maxrss=18446744073709551615, " in ones


def test_statx_times_follow_the_mask() -> None:
    head = struct.pack("<IIQIIIH2xQQQQ", 0x1FFF, 4096, 0, 1, 0, 0, 0o100644, 819, 1301, 8, 0)
    times = b"".join(struct.pack("<qIi", 1796562933, n, 0) for n in (87681600, 55681599,
                                                                     59681599, 58623275))
    data = head + times + struct.pack("<4IQ", 0, 0, 254, 0, 0x1B).ljust(112, b"\0")
    text = S.format_statx_verbose(data, FL)
    assert text is not None
    assert text.startswith("{stx_mask=STATX_ALL|STATX_MNT_ID, stx_blksize=4096, "
                           "stx_attributes=0, stx_nlink=1, stx_uid=0, stx_gid=0, "
                           "stx_mode=S_IFREG|0644, stx_ino=819, stx_size=1301, "
                           "stx_blocks=8, stx_attributes_mask=0, stx_atime={tv_sec="
                           "1796562933, tv_nsec=87681600} /* ")
    assert text.endswith("stx_rdev_major=0, stx_rdev_minor=0, stx_dev_major=254, "
                         "stx_dev_minor=0, stx_mnt_id=0x1b}")
    assert "stx_btime=" in text
    no_btime = struct.pack("<I", 0x7FF) + data[4:]              # STATX_BASIC_STATS
    shown = S.format_statx_verbose(no_btime, FL)
    assert shown is not None and "stx_btime" not in shown and "stx_mnt_id" not in shown


def test_poll_result_stops_where_strace_buffer_ends() -> None:
    """strace 6.1 -v: 39 of 40 ``{fd=0, revents=POLLOUT}`` then ``...`` (its 1024-byte
    buffer); -s 32 without -v: 32 of them."""
    data = struct.pack("<ihh", 0, 4, 4) * 40
    full = IO.format_revents(data, 40, FL, 1 << 30)
    assert full is not None and full.count("revents=") == 39 and full.endswith(", ...]")
    cut = IO.format_revents(data, 40, FL, 32)
    assert cut is not None and cut.count("revents=") == 32


def test_dirents_as_strace_v_prints_them() -> None:
    def ent(ino: int, off: int, kind: int, name: bytes) -> bytes:
        reclen = (19 + len(name) + 1 + 7) & ~7
        return struct.pack("<QqHB", ino, off, reclen, kind) + name.ljust(reclen - 19, b"\0")
    data = ent(774, 194624804987991016, 4, b"rc2.d") + ent(819, 2**63 - 1, 8, b"passwd")
    assert S.format_dirents(data, len(data), FL) == (
        '[{d_ino=774, d_off=194624804987991016, d_reclen=32, d_type=DT_DIR, d_name="rc2.d"}, '
        '{d_ino=819, d_off=9223372036854775807, d_reclen=32, d_type=DT_REG, '
        'd_name="passwd"}]')
    # a reply longer than the capture: the entries it holds whole, then "..."
    assert S.format_dirents(data[:40], len(data), FL) == (
        '[{d_ino=774, d_off=194624804987991016, d_reclen=32, d_type=DT_DIR, '
        'd_name="rc2.d"}, ...]')
    assert S.format_dirents(data[:16] + bytes(2) + data[18:32], 32, FL) is None  # d_reclen 0


def sc(table: SyscallTable, name: str, args: tuple[int, ...], ret: int = 0,
       caps: tuple[Capture, ...] = (), flags: int = 0) -> Syscall:
    nr = table.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps,
                   flags=flags)


def nrs(table: SyscallTable, *names: str) -> frozenset[int]:
    return frozenset(n for name in names if (n := table.nr(name)) is not None)


def test_sets_decide_per_call_native_and_i386(tmp_path: object) -> None:
    d = SyscallDecoder(X64, fdcache=FdCache(str(tmp_path)))
    uname = sc(X64, "uname", (ADDR,), caps=(Capture(0, CAP_STRUCT, 0, UTS),))
    rusage = sc(X64, "getrusage", (0, ADDR), caps=(Capture(1, CAP_STRUCT, 0, RUSAGE),))
    uname32 = sc(I386, "uname", (ADDR,), caps=(Capture(0, CAP_STRUCT, 0, UTS),),
                 flags=SC_COMPAT)
    assert d.decode(uname).args == ('{sysname="Linux", nodename="vm", ...}',)
    # -e abbrev=uname: only uname abbreviated (native: i386's uname is another number)
    d.set_abbrev((nrs(X64, "uname"), frozenset()))
    assert d.decode(uname).args[0].endswith("...}")
    assert "ru_maxrss=1076" in d.decode(rusage).args[1]
    assert d.decode(uname32).args[0].endswith('domainname="(none)"}')
    d.verbose = True
    assert d.decode(uname).args[0].endswith('domainname="(none)"}')
    assert d.abbrev == (frozenset(), frozenset())
    # -e verbose=!uname: uname's structure as its address, others read
    d.set_deref((nrs(X64, "getrusage"), nrs(I386, "uname")))
    assert d.decode(uname).args == (hex(ADDR),)
    assert d.decode(rusage).args[1].startswith("{ru_utime=")
    assert d.decode(uname32).args[0].startswith("{sysname=")
    d.set_deref(None)
    d.set_abbrev(None)
    assert d.decode(uname).args[0].endswith("...}") and not d.verbose
