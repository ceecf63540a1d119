"""Signal records on packed bytes: struct tk_signal decoding, the siginfo text of
tracekit.decode.signals per si_code family, and the lines of the strace, perf and jsonl
formats (the texts are strace 6.1's, as ``strace -f -q`` printed them on this machine)."""

from __future__ import annotations

import io
import struct

import msgspec
import pytest

from tracekit._errors import RecordError
from tracekit._events import _SIGNAL, REC_SIGNAL, Event, Signal, decode_batch, decode_record
from tracekit.decode.flags import for_arch
from tracekit.decode.signals import si_code_name, siginfo_text, signal_line, stopped_line
from tracekit.formatters.jsonl import JsonlSink
from tracekit.formatters.perf import PerfFormatter
from tracekit.formatters.strace import StraceFormatter

F = for_arch("x86_64")


def siginfo(signo: int, code: int, tail: bytes = b"", errno: int = 0) -> bytes:
    """The first 48 bytes of a kernel_siginfo: signo, errno, code, padding, the union."""
    return (struct.pack("<iii4x", signo, errno, code) + tail).ljust(48, b"\0")


def chld(code: int, pid: int, status: int, utime: int = 0, stime: int = 0) -> bytes:
    return siginfo(17, code, struct.pack("<iIi4xQQ", pid, 0, status, utime, stime))


def kill(signo: int, code: int, pid: int, uid: int = 0, value: int = 0) -> bytes:
    return siginfo(signo, code, struct.pack("<iIQ", pid, uid, value))


def rec(sig: int, info: bytes, *, ts: int = 5_000_000, tid: int = 42,
        handler: int = 0x55aa00) -> bytes:
    return _SIGNAL.pack(REC_SIGNAL, 0, ts, tid, tid, sig, 0, handler, info, b"sh\0")


@pytest.mark.parametrize(("info", "text"), [
    (chld(1, 1234, 0), "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0, "
                       "si_status=0, si_utime=0, si_stime=0}"),
    (chld(1, 7, 3, utime=1), "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=0, "
                             "si_status=3, si_utime=1 /* 0.01 s */, si_stime=0}"),
    (chld(2, 7, 9), "{si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=7, si_uid=0, "
                    "si_status=SIGKILL, si_utime=0, si_stime=0}"),
    (kill(10, 0, 99), "{si_signo=SIGUSR1, si_code=SI_USER, si_pid=99, si_uid=0}"),
    (kill(12, -6, 99, 1000), "{si_signo=SIGUSR2, si_code=SI_TKILL, si_pid=99, si_uid=1000}"),
    (kill(2, 0x80, 0), "{si_signo=SIGINT, si_code=SI_KERNEL}"),
    # strace 6.1: rt_sigqueueinfo's value as si_int and si_ptr (checked live in
    # tests/e2e/test_strace_ops.py)
    (kill(34, -1, 5, 0, 0x2a), "{si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=5, si_uid=0, "
                               "si_int=42, si_ptr=0x2a}"),
    (siginfo(11, 1), "{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}"),
    (siginfo(11, 2, struct.pack("<Q", 0x7f0012340000)),
     "{si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x7f0012340000}"),
    (siginfo(8, 1, struct.pack("<Q", 0x401000)),
     "{si_signo=SIGFPE, si_code=FPE_INTDIV, si_addr=0x401000}"),
    (siginfo(7, 2), "{si_signo=SIGBUS, si_code=BUS_ADRERR, si_addr=NULL}"),
    (siginfo(11, 0x80), "{si_signo=SIGSEGV, si_code=SI_KERNEL, si_addr=NULL}"),
    (siginfo(29, 1, struct.pack("<qi", 1, 3)),
     "{si_signo=SIGIO, si_code=POLL_IN, si_band=1, si_fd=3}"),
    (siginfo(31, 1, struct.pack("<QiI", 0x401000, 39, 0xC000003E)),
     "{si_signo=SIGSYS, si_code=SYS_SECCOMP, si_call_addr=0x401000, si_syscall=__NR_getpid, "
     "si_arch=AUDIT_ARCH_X86_64}"),
    (siginfo(10, 0, struct.pack("<iI", 1, 0), errno=1),
     "{si_signo=SIGUSR1, si_code=SI_USER, si_errno=EPERM, si_pid=1, si_uid=0}"),
    # (uid_t) -1 as strace's printuid prints it
    (siginfo(10, -1, struct.pack("<iI", -1, 0xFFFFFFFF)),
     "{si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=-1, si_uid=-1}"),
    # unknown codes in hex (seen on strace 6.1 with rt_sigqueueinfo: the call and the
    # delivery print the same)
    # a POSIX timer's (SI_TIMER, -2): the timer id as strace's %#x, 0 as "0" (timeout(1)'s
    # SIGALRM, checked live)
    (siginfo(14, -2, struct.pack("<iiQ", 0, 0, 0)),
     "{si_signo=SIGALRM, si_code=SI_TIMER, si_timerid=0, si_overrun=0, si_int=0, "
     "si_ptr=NULL}"),
    (siginfo(14, -2, struct.pack("<iiQ", 5, 2, 7)),
     "{si_signo=SIGALRM, si_code=SI_TIMER, si_timerid=0x5, si_overrun=2, si_int=7, "
     "si_ptr=0x7}"),
    (siginfo(15, 77), "{si_signo=SIGTERM, si_code=0x4d}"),
    (siginfo(12, -77), "{si_signo=SIGUSR2, si_code=0xffffffb3, si_pid=0, si_uid=0}"),
])
def test_siginfo_text(info: bytes, text: str) -> None:
    assert siginfo_text(info, F) == text


def test_si_code_names_per_signal() -> None:
    assert si_code_name(17, 6) == "CLD_CONTINUED"
    assert si_code_name(5, 1) == "TRAP_BRKPT"
    assert si_code_name(4, 1) == "ILL_ILLOPC"
    assert si_code_name(10, 1) == "0x1"         # no codes > 0 for SIGUSR1: hex
    assert si_code_name(10, -60) == "SI_ASYNCNL"


def test_short_siginfo_is_zero_padded() -> None:
    assert siginfo_text(b"\x0b\0\0\0", F) == (
        "{si_signo=SIGSEGV, si_code=SI_USER, si_pid=0, si_uid=0}")


def test_record_round_trip() -> None:
    info = kill(10, 0, 99)
    ev = decode_record(rec(10, info))
    assert ev == Signal(5_000_000, 42, 42, 10, 0x55aa00, info, "sh")
    assert decode_batch([rec(10, info), rec(10, info)[:50]]) == ([ev], 1)
    with pytest.raises(RecordError, match="signal record of 103 bytes"):
        decode_record(rec(10, info)[:103])
    assert _SIGNAL.size == 104
    # the objects of now write the thread's instruction pointer after comm (112 bytes);
    # a 104-byte record (an older object, an older recording) has none (0)
    with_ip = rec(10, info) + struct.pack("<Q", 0x408907)
    assert decode_record(with_ip) == Signal(5_000_000, 42, 42, 10, 0x55aa00, info, "sh",
                                            ip=0x408907)
    assert ev.ip == 0


def test_strace_and_perf_lines() -> None:
    ev = decode_record(rec(17, chld(1, 1234, 0)))
    text = "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0, " \
           "si_status=0, si_utime=0, si_stime=0} ---"
    assert signal_line(17, ev.info, F) == text
    out = io.StringIO()
    fmt = StraceFormatter(out, timestamps=False)
    assert fmt.render([ev]) == f"42 {text}\n"
    timed = StraceFormatter(out, wall_offset_ns=0)
    assert timed.render([ev]).split(" ", 2)[2] == f"{text}\n"
    perf = PerfFormatter(out, syscall_name=str, base_ts_ns=4_000_000)
    assert perf.render([ev]) == f"     1.000 (         ): sh/42 {text}\n"


def test_sigkill_prints_no_line_but_stays_in_jsonl() -> None:
    ev = decode_record(rec(9, bytes(48), handler=0))     # SEND_SIG_NOINFO: no siginfo
    out = io.StringIO()
    assert StraceFormatter(out, timestamps=False).render([ev]) == ""
    assert PerfFormatter(out, syscall_name=str).render([ev]) == ""
    line = JsonlSink(io.BytesIO()).render([ev])
    assert msgspec.json.decode(line, type=Event) == ev
    assert line.startswith(b'{"type":"signal","ts_ns":5000000,"tid":42,')


def test_stopped_line_after_a_default_stop_signal() -> None:
    assert stopped_line(19, 0, F) == "--- stopped by SIGSTOP ---"
    assert stopped_line(19, 0x55aa00, F) == "--- stopped by SIGSTOP ---"   # cannot be caught
    assert stopped_line(20, 0, F) == "--- stopped by SIGTSTP ---"
    assert stopped_line(20, 0x55aa00, F) is None                         # a handler runs
    assert stopped_line(18, 0, F) is None                                # SIGCONT
    ev = decode_record(rec(19, kill(19, 0, 7), handler=0))
    text = StraceFormatter(io.StringIO(), timestamps=False).render([ev])
    assert text == ("42 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER, si_pid=7, si_uid=0} ---\n"
                    "42 --- stopped by SIGSTOP ---\n")
    perf = PerfFormatter(io.StringIO(), syscall_name=str, base_ts_ns=5_000_000).render([ev])
    assert perf.splitlines()[1] == "     0.000 (         ): sh/42 --- stopped by SIGSTOP ---"
