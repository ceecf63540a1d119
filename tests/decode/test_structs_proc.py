"""The proc slice of issue 12 on packed bytes: wait statuses, rusage, siginfo, sigsets,
sigaction (x86_64 and arm64 layouts), stack_t, timeval, and the syscall decoders that use
them (NULL, failed calls, wait4 with nothing reaped). Expected texts are strace 6.1's
(seen on this machine with ``strace -f -qq``; tests/e2e/test_strace_proc.py compares live)."""

from __future__ import annotations

import struct

import msgspec
import pytest

from tracekit._events import CAP_STRUCT, CAPF_AT_EXIT, CAPF_FAULT, SC_UNFINISHED, Capture, Syscall
from tracekit.decode import flags as F, structs_proc as SP
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64, A64 = F.for_arch("x86_64"), F.for_arch("arm64")


def sigset(*sigs: int) -> bytes:
    return struct.pack("<Q", sum(1 << (s - 1) for s in sigs))


@pytest.mark.parametrize(("sigs", "text"), [
    ((), "[]"),
    ((17,), "[CHLD]"),
    ((2, 15, 17), "[INT TERM CHLD]"),
    ((32, 33, 64), "[RTMIN RT_1 RT_32]"),
    # 2/3 or more of the 64 bits set: the complement after ~
    (tuple(s for s in range(1, 65) if s not in (32, 33)), "~[RTMIN RT_1]"),
    (tuple(s for s in range(1, 65) if s not in (9, 19, 32, 33)), "~[KILL STOP RTMIN RT_1]"),
    (tuple(range(1, 65)), "~[]"),
])
def test_sigset(sigs: tuple[int, ...], text: str) -> None:
    assert SP.format_sigset(sigset(*sigs), X64) == text


def test_sigset_of_4_bytes_counts_32_bits() -> None:
    # sprintsigmask_n: 2/3 of 32 bits is 21; 21 set signals print as the complement
    assert SP.format_sigset(sigset(*range(1, 22))[:4], X64) == (
        "~[" + " ".join(n[3:] for n in (X64.signal_name(s) for s in range(22, 33))) + "]")


def sa_x64(handler: int, flags: int, restorer: int, *mask: int) -> bytes:
    return struct.pack("<QQQ", handler, flags, restorer) + sigset(*mask)


@pytest.mark.parametrize(("data", "text"), [
    (sa_x64(0, 0, 0), "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}"),
    (sa_x64(0x5609BD5FFE40, 0x14000000, 0x7FD034ED9050),
     "{sa_handler=0x5609bd5ffe40, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART, "
     "sa_restorer=0x7fd034ed9050}"),
    (sa_x64(1, 0x0C000000, 0x7F0000001000),
     "{sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER|SA_ONSTACK, "
     "sa_restorer=0x7f0000001000}"),
    (sa_x64(0x4F5CE6, 0x4C000000, 0x7F0000001000, 2, 17),
     "{sa_handler=0x4f5ce6, sa_mask=[INT CHLD], sa_flags=SA_RESTORER|SA_ONSTACK|SA_NODEFER, "
     "sa_restorer=0x7f0000001000}"),
    # SA_SIGINFO after SA_RESETHAND, as strace's table; SA_UNSUPPORTED (0x400) unnamed
    (sa_x64(0x1000, 0x80000404, 0), "{sa_handler=0x1000, sa_mask=[], "
                                    "sa_flags=SA_RESETHAND|SA_SIGINFO|0x400}"),
    (sa_x64(2**64 - 1, 0, 0), "{sa_handler=SIG_ERR, sa_mask=[], sa_flags=0}"),
])
def test_sigaction_x86_64(data: bytes, text: str) -> None:
    assert SP.format_sigaction(data, X64) == text


def test_sigaction_arm64_has_no_restorer_field() -> None:
    # arm64's struct: handler, flags, mask (24 bytes); the mask is at 16
    data = struct.pack("<QQ", 0x400000, 0x10000000) + sigset(10)
    assert SP.format_sigaction(data, A64) == (
        "{sa_handler=0x400000, sa_mask=[USR1], sa_flags=SA_RESTART}")
    assert SP.format_sigaction(data[:23], A64) is None
    assert SP.format_sigaction(sa_x64(0, 0, 0)[:31], X64) is None


@pytest.mark.parametrize(("status", "text"), [
    (0, "[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]"),
    (3 << 8, "[{WIFEXITED(s) && WEXITSTATUS(s) == 3}]"),
    (9, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]"),
    (11 | 0x80, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}]"),
    (19 << 8 | 0x7F, "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}]"),
    ((5 | 0x80) << 8 | 0x7F, "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP | 0x80}]"),
    (3 << 16 | 5 << 8 | 0x7F, "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP} | 0x3 << 16]"),
    (0xFFFF, "[{WIFCONTINUED(s)}]"),
    (0xFF, "[0xff]"),
])
def test_wait_status(status: int, text: str) -> None:
    assert SP.format_wait_status(status, X64) == text


RUSAGE = struct.pack("<qqqq", 0, 306, 1, 2) + bytes(112)


def test_rusage_is_abbreviated() -> None:
    assert SP.format_rusage(RUSAGE) == (
        "{ru_utime={tv_sec=0, tv_usec=306}, ru_stime={tv_sec=1, tv_usec=2}, ...}")
    assert SP.format_rusage(RUSAGE[:143]) is None


def test_timeval_and_stack_t() -> None:
    assert SP.format_timeval(struct.pack("<qq", 1733110000, 123456)) == (
        "{tv_sec=1733110000, tv_usec=123456}")
    assert SP.format_stack_t(struct.pack("<QiiQ", 0x173A54F0, 0, 0, 16880), X64) == (
        "{ss_sp=0x173a54f0, ss_flags=0, ss_size=16880}")
    assert SP.format_stack_t(struct.pack("<QiiQ", 0, 2, 0, 0), X64) == (
        "{ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}")



def test_timezone() -> None:
    assert SP.format_timezone(struct.pack("<ii", -60, 0)) == (
        "{tz_minuteswest=-60, tz_dsttime=0}")
    assert SP.format_timezone(struct.pack("<ii", 1000, -7)) == (
        "{tz_minuteswest=1000, tz_dsttime=-7}")
    assert SP.format_timezone(bytes(4)) is None


def siginfo(signo: int, code: int, pid: int, status: int, utime: int = 0) -> bytes:
    return struct.pack("<iiiiiIiiqq", signo, 0, code, 0, pid, 0, status, 0, utime, 0).ljust(
        SP.SIGINFO_SIZE, b"\0")


def test_siginfo_of_waitid() -> None:
    assert SP.format_siginfo(siginfo(17, 1, 1234, 0), X64) == (
        "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0, si_status=0, "
        "si_utime=0, si_stime=0}")
    assert SP.format_siginfo(siginfo(17, 2, 1234, 9, utime=388858496), X64) == (
        "{si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=1234, si_uid=0, si_status=SIGKILL, "
        "si_utime=388858496 /* 3888584.96 s */, si_stime=0}")
    assert SP.format_siginfo(bytes(128), X64) == "{}"


# -- the syscall decoders (args.py kinds) on whole records

TABLE = SyscallTable("x86_64")


def sc(name: str, args: tuple[int, ...], ret: int, *caps: tuple[int, bytes],
       flags: int = 0) -> Syscall:
    nr = TABLE.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1, duration_ns=1, tid=7, tgid=7, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", flags=flags,
                   caps=tuple(Capture(i, CAP_STRUCT, CAPF_AT_EXIT, d) for i, d in caps))


@pytest.fixture
def dec(tmp_path: str) -> SyscallDecoder:
    return SyscallDecoder(TABLE, fdcache=FdCache(str(tmp_path)))


def test_wait4(dec: SyscallDecoder) -> None:
    st, ru = 0x7FFD0000, 0x7FFD0100
    ev = sc("wait4", (2**32 - 1, st, 0, ru), 1234, (1, struct.pack("<i", 9)), (3, RUSAGE))
    assert dec.decode(ev).args == (
        "-1", "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]", "0",
        "{ru_utime={tv_sec=0, tv_usec=306}, ru_stime={tv_sec=1, tv_usec=2}, ...}")
    # WNOHANG and nothing reaped (ret 0), or ECHILD: the addresses, options by name
    for ret in (0, -10):
        ev = sc("wait4", (2**32 - 1, st, 1, 0), ret, (1, bytes(4)))
        assert dec.decode(ev).args == ("-1", hex(st), "WNOHANG", "NULL")
    ev = sc("wait4", (5, 0, 0x2 | 0x4, 0), 5)
    assert dec.decode(ev).args == ("5", "NULL", "WEXITED|WSTOPPED", "NULL")


def test_waitid(dec: SyscallDecoder) -> None:
    ev = sc("waitid", (1, 99, 0x7FFD0000, 4, 0), 0, (2, siginfo(17, 1, 99, 3)))
    assert dec.decode(ev).args == (
        "P_PID", "99", "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=99, si_uid=0, "
        "si_status=3, si_utime=0, si_stime=0}", "WEXITED", "NULL")
    ev = sc("waitid", (0, 0, 0x7FFD0000, 5, 0), -10, (2, siginfo(17, 1, 99, 3)))
    assert dec.decode(ev).args == ("P_ALL", "0", "0x7ffd0000", "WNOHANG|WEXITED", "NULL")


def test_rt_sigaction_new_at_entry_old_at_exit(dec: SyscallDecoder) -> None:
    new = sa_x64(1, 0x04000000, 0x7F0000001000)
    ev = sc("rt_sigaction", (15, 0x1000, 0x2000, 8), 0, (1, new), (2, sa_x64(0, 0, 0)))
    assert dec.decode(ev).args == (
        "SIGTERM", "{sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, "
        "sa_restorer=0x7f0000001000}", "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}", "8")
    # EINVAL (SIGKILL): the new action is still shown, the old one is an address
    ev = sc("rt_sigaction", (9, 0x1000, 0x2000, 8), -22, (1, new), (2, sa_x64(0, 0, 0)))
    assert dec.decode(ev).args[1:3] == (
        "{sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, "
        "sa_restorer=0x7f0000001000}", "0x2000")
    ev = sc("rt_sigaction", (2, 0, 0, 8), 0)
    assert dec.decode(ev).args == ("SIGINT", "NULL", "NULL", "8")


def test_rt_sigprocmask(dec: SyscallDecoder) -> None:
    ev = sc("rt_sigprocmask", (0, 0x1000, 0x2000, 8), 0, (1, sigset(17)), (2, sigset()))
    assert dec.decode(ev).args == ("SIG_BLOCK", "[CHLD]", "[]", "8")
    ev = sc("rt_sigprocmask", (2, 0x1000, 0, 8), 0, (1, sigset()))
    assert dec.decode(ev).args == ("SIG_SETMASK", "[]", "NULL", "8")
    # a sigsetsize the kernel refuses: strace prints the addresses
    ev = sc("rt_sigprocmask", (0, 0x1000, 0x2000, 16), -22, (1, sigset(17)), (2, sigset()))
    assert dec.decode(ev).args == ("SIG_BLOCK", "0x1000", "0x2000", "16")


def test_clocks_and_sleep(dec: SyscallDecoder) -> None:
    ts = struct.pack("<qq", 5217, 913307185)
    ev = sc("clock_gettime", (1, 0x1000), 0, (1, ts))
    assert dec.decode(ev).args == ("CLOCK_MONOTONIC", "{tv_sec=5217, tv_nsec=913307185}")
    ev = sc("clock_getres", (0, 0x1000), -14, (1, ts))
    assert dec.decode(ev).args == ("CLOCK_REALTIME", "0x1000")
    ev = sc("gettimeofday", (0x1000, 0), 0, (0, struct.pack("<qq", 1733110000, 5)))
    assert dec.decode(ev).args == ("{tv_sec=1733110000, tv_usec=5}", "NULL")
    ev = sc("clock_nanosleep", (1, 1, 0x1000, 0), 0, (2, ts))
    assert dec.decode(ev).args == (
        "CLOCK_MONOTONIC", "TIMER_ABSTIME", "{tv_sec=5217, tv_nsec=913307185}", "NULL")
    ev = sc("clock_nanosleep", (0, 0, 0x1000, 0x2000), 0, (2, ts))
    assert dec.decode(ev).args[1] == "0"


def test_settimeofday_prints_what_it_reads_without_a_date(dec: SyscallDecoder) -> None:
    """strace 6.1: both structs at entry whatever the result, no date after the time,
    tv_usec unsigned; NULL, or the address of memory that could not be read whole."""
    tv, tz = struct.pack("<qq", 0, -1), struct.pack("<ii", -5, -7)
    ev = sc("settimeofday", (0x1000, 0x2000), -22, (0, tv), (1, tz))
    assert dec.decode(ev).args == ("{tv_sec=0, tv_usec=18446744073709551615}",
                                   "{tz_minuteswest=-5, tz_dsttime=-7}")
    ev = msgspec.structs.replace(ev, args=(0, 0x7FF0, 0, 0, 0, 0),
                                 caps=(Capture(1, CAP_STRUCT, CAPF_FAULT, b""),))
    assert dec.decode(ev).args == ("NULL", "0x7ff0")
    ev = sc("settimeofday", (0x1000, 0), 0, (0, tv[:8]))
    assert dec.decode(ev).args == ("0x1000", "NULL")


def test_sigaltstack_and_unfinished(dec: SyscallDecoder) -> None:
    old = struct.pack("<QiiQ", 0x173A54F0, 0, 0, 16880)
    ev = sc("sigaltstack", (0, 0x2000), 0, (1, old))
    assert dec.decode(ev).args == ("NULL", "{ss_sp=0x173a54f0, ss_flags=0, ss_size=16880}")
    # a call the task died in wrote nothing: the output struct is an address
    ev = sc("wait4", (2**32 - 1, 0x1000, 0, 0), 0, (1, bytes(4)), flags=SC_UNFINISHED)
    assert dec.decode(ev).args[1] == "0x1000"


def test_getresuid_and_sched_getaffinity(dec: SyscallDecoder) -> None:
    ids = struct.pack("<I", 0), struct.pack("<I", 1000), struct.pack("<I", 2**32 - 1)
    ev = sc("getresuid", (0x1000, 0x1004, 0x1008), 0, *enumerate(ids))
    assert dec.decode(ev).args == ("[0]", "[1000]", "[-1]")
    ev = sc("getresuid", (0x1000, 0x1004, 0x1008), -14, *enumerate(ids))
    assert dec.decode(ev).args == ("0x1000", "0x1004", "0x1008")
    mask = struct.pack("<QQ", 0b1011, 1)
    ev = sc("sched_getaffinity", (0, 16, 0x2000), 16, (2, mask))
    assert dec.decode(ev).args == ("0", "16", "[0 1 3 64]")
    ev = sc("sched_getaffinity", (0, 16, 0x2000), 8, (2, mask))      # ret bytes only
    assert dec.decode(ev).args[2] == "[0 1 3]"
    ev = sc("sched_getaffinity", (0, 1, 0x2000), -22, (2, mask))
    assert dec.decode(ev).args[2] == "0x2000"
