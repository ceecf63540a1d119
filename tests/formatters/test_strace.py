"""StraceFormatter: golden lines (every line kind), decoded vs self-decoded records,
exit statuses, and perf's use of the decoded form."""

from __future__ import annotations

import io
import os
import struct
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from tracekit._events import (
    CAP_ARGV,
    CAP_STR,
    CAP_STRUCT,
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Capture,
    Exit,
    Fork,
    Lost,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.formatters import SinkContext, TextOptions
from tracekit.formatters.perf import PerfFormatter
from tracekit.formatters.strace import (
    StraceFormatter,
    duration_text,
    exit_text,
    make_sink,
    unfinished_text,
)
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline.beautify import Beautify

GOLDEN = Path(__file__).parent / "golden"
X64, I386 = SyscallTable("x86_64"), SyscallTable("i386")
AT_FDCWD = 2**64 - 100
# Wall clock 10:00:00 local time (whatever the zone) at monotonic ts 1_000_000_000.
_MIDNIGHT = time.mktime(time.strptime("2026-01-02 10:00:00", "%Y-%m-%d %H:%M:%S"))
OFFSET = int(_MIDNIGHT) * 1_000_000_000 - 1_000_000_000


def sc(name: str, args: tuple[int, ...], ret: int, *, ts_ms: float, dur_us: int = 12,
       tid: int = 100, flags: int = 0, caps: tuple[Capture, ...] = (),
       table: SyscallTable = X64) -> Syscall:
    nr = table.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1_000_000_000 + int(ts_ms * 1e6), duration_ns=dur_us * 1000, tid=tid,
                   tgid=tid, cpu=0, syscall_nr=nr, args=(*args, *(0,) * (6 - len(args))),
                   ret=ret, comm="t", flags=flags, caps=caps)


def workload() -> list:
    sun = struct.pack("<H", 1) + b"/run/x.sock\0"
    return [
        sc("execve", (0x1000, 0x2000, 0x7FFC0000), 0, ts_ms=0, dur_us=900,
           caps=(Capture(0, CAP_STR, 0, b"/bin/cat"),
                 Capture(1, CAP_ARGV, 0, b"cat\0/etc/hostname\0"),
                 Capture(2, CAP_ARGV, 0, b"A=1\0B=2\0"))),
        sc("openat", (AT_FDCWD, 0x1000, os.O_RDONLY | os.O_CLOEXEC), 3, ts_ms=1,
           caps=(Capture(1, CAP_STR, 0, b"/etc/hostname"),)),
        sc("openat", (AT_FDCWD, 0x1000, os.O_RDONLY), -2, ts_ms=1.5, dur_us=3,
           caps=(Capture(1, CAP_STR, 0, b"/nope"),)),
        sc("mmap", (0, 8192, 3, 0x22, 2**64 - 1, 0), 0x7F0000001000, ts_ms=2, dur_us=4),
        sc("connect", (4, 0x3000, 14), -111, ts_ms=2.5,
           caps=(Capture(1, CAP_STRUCT, 0, sun),)),
        sc("read", (0, 0x5000, 832), -512, ts_ms=3, dur_us=998_000),
        sc("read", (0, 0x5000, 832), 5, ts_ms=1001, dur_us=200_000),
        sc("clone", (0x1200011, 0, 0, 0x7F00A10, 0), 101, ts_ms=1202, dur_us=80),
        Fork(1, 100, 100, 101, 101),
        sc("read", (), 5, ts_ms=0, tid=102, flags=SC_RESUMED, dur_us=0),
        sc("read", (0, 0x5000, 10), 0, ts_ms=1203, tid=101, flags=SC_UNFINISHED, dur_us=0),
        Exit(2, 101, 101, 9, True, "t"),
        sc("open", (0x8000, 0o1101, 0o600), 3, ts_ms=1204, tid=103, flags=SC_COMPAT,
           table=I386),
        Lost(3, 7),
        sc("exit_group", (0,), 0, ts_ms=1300, flags=SC_NORETURN, dur_us=0),
        Exit(4, 100, 100, 1 << 8, True, "t"),
    ]


def formatter(out: object, **kw: object) -> StraceFormatter:
    dec = SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent"), **kw)  # type: ignore[arg-type]
    return StraceFormatter(out, decoder=dec, wall_offset_ns=OFFSET)  # type: ignore[arg-type]


def test_golden_lines() -> None:
    text = formatter(io.BytesIO()).render(workload())
    assert text == (GOLDEN / "strace_basic.txt").read_text()


def test_beautified_records_print_the_same() -> None:
    evs = workload()
    stage = Beautify(SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent")))
    beautified = stage.beautify(evs)
    assert all(e.decoded is not None for e in beautified if isinstance(e, Syscall))
    # A formatter whose own decoder would print fd paths shows the stage's text instead.
    f = formatter(io.BytesIO(), fd_paths=True)
    assert f.render(beautified) == (GOLDEN / "strace_basic.txt").read_text()


@pytest.mark.parametrize(("status", "text"), [
    (0, "+++ exited with 0 +++"), (3 << 8, "+++ exited with 3 +++"),
    (9, "+++ killed by SIGKILL +++"), (11 | 0x80, "+++ killed by SIGSEGV (core dumped) +++"),
])
def test_exit_text(status: int, text: str) -> None:
    assert exit_text(status) == text


def test_superseded_leader_and_its_unfinished_call() -> None:
    """A leader reaped by another thread's execve: its pending call is unfinished (strace:
    ``<... pause resumed>) = ?``, joined: ``pause() = ?``) and its end line names the
    exec'ing thread's old tid, instead of an exit."""
    f = formatter(io.BytesIO())
    lines = f.render([
        sc("pause", (), 0, ts_ms=1, tid=500, flags=SC_UNFINISHED),
        Exit(ts_ns=1_200_000_000, tid=500, tgid=500, exit_code=0, group_dead=False,
             comm="t", superseded_by=502),
        Exit(ts_ns=1_300_000_000, tid=500, tgid=500, exit_code=0, group_dead=True, comm="t"),
    ]).splitlines()
    assert lines == ["500 10:00:00.001000 pause() = ?",
                     "500 +++ superseded by execve in pid 502 +++",
                     "500 +++ exited with 0 +++"]


def test_make_sink_options_and_file_output(tmp_path: Path) -> None:
    ctx = SinkContext(syscall_name=X64.name, compat_syscall_name=I386.name,
                      arg_names=lambda name: None)
    sink = make_sink(str(tmp_path / "o.txt"), TextOptions(string_limit=4, fd_paths=False), ctx)
    assert isinstance(sink, StraceFormatter) and sink.decoder.string_limit == 4
    assert sink.decoder.fd_paths is False


def test_perf_formatter_uses_the_decoded_form() -> None:
    names = {"openat": ["dfd", "filename", "flags", "mode"], "clone": None}
    f = PerfFormatter(io.BytesIO(), syscall_name=X64.name, arg_names=names.get,
                      base_ts_ns=1_000_000_000)
    stage = Beautify(SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent")))
    evs = stage.beautify([workload()[1], workload()[2], workload()[7]])
    lines = f.render(evs).splitlines()
    assert lines[0].startswith("     1.000 ( 0.012 ms): t/100 openat(dfd: AT_FDCWD, "
                               'filename: "/etc/hostname", flags: O_RDONLY|O_CLOEXEC)')
    assert lines[0].endswith("= 3")
    assert lines[1].endswith("= -1 ENOENT (No such file or directory)")
    assert "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, " \
           "child_tidptr=0x7f00a10)" in lines[2]


def test_child_return_from_fork_is_not_a_line_but_other_resumed_calls_are() -> None:
    child = sc("clone", (), 0, ts_ms=0, tid=300, flags=SC_RESUMED, dur_us=0)
    failed = sc("clone", (), -11, ts_ms=0, tid=301, flags=SC_RESUMED, dur_us=0)
    read = sc("read", (), 0, ts_ms=0, tid=302, flags=SC_RESUMED, dur_us=0)
    lines = formatter(io.BytesIO()).render([child, failed, read]).splitlines()
    assert lines == ["301 ??:??:??.?????? <... clone resumed>) = -1 EAGAIN "
                     "(Resource temporarily unavailable)",
                     "302 ??:??:??.?????? <... read resumed>) = 0"]


@settings(max_examples=300, deadline=None)
@given(ts_ns=st.integers(0, 2**62), dur_ns=st.integers(0, 10**12),
       offset=st.integers(0, 2**61), repeat=st.integers(1, 3))
def test_the_cached_line_of_a_repeated_call_is_the_general_one(
        ts_ns: int, dur_ns: int, offset: int, repeat: int) -> None:
    """A completed call's line is built from cached parts (the call's text, the second's
    clock string): every part as the general formula gives it, whatever the timestamp,
    duration and wall offset, the first time and when repeated."""
    f = formatter(io.BytesIO())
    f.wall_offset_ns = offset
    ev = sc("close", (3,), 0, ts_ms=0)
    for i in range(repeat):
        e = msgspec.structs.replace(ev, ts_ns=ts_ns + i * 999_999, duration_ns=dur_ns + i)
        wall = e.ts_ns + offset
        clock = (time.strftime("%H:%M:%S", time.localtime(wall // 1_000_000_000))
                 + f".{wall % 1_000_000_000 // 1000:06d}")
        assert f.format_syscall(e) == (f"100 {clock} close(3) = 0 "
                                       f"<{e.duration_ns / 1e9:.6f}>")


@pytest.mark.parametrize(("name", "args", "line"), [
    ("kill", ("1234", "SIGKILL"), "kill(1234, SIGKILL) = ?"),          # all read at entry
    ("read", ("0", "0x7ffd1000", "832"), "read(0,  <unfinished ...>) = ?"),   # buf at exit
    ("wait4", ("-1", "0x7ffd", "0", "NULL"), "wait4(-1,  <unfinished ...>) = ?"),
    ("clock_nanosleep", ("CLOCK_REALTIME", "0", "{tv_sec=5, tv_nsec=0}", "0x7ffd"),
     "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=5, tv_nsec=0},  <unfinished ...>) = ?"),
    ("poll", ("[{fd=3, events=POLLIN}]", "1", "-1"),
     "poll([{fd=3, events=POLLIN}], 1, -1 <unfinished ...>) = ?"),    # revents to come
    ("pipe2", ("0x7ffd", "O_CLOEXEC"), "pipe2( <unfinished ...>) = ?"),
    ("pause", (), "pause() = ?"),
    ("msgrcv", ("20", "0x7ffd", "8", "0", "0"), "msgrcv(20,  <unfinished ...>) = ?"),
])
def test_unfinished_lines_in_strace_shapes(name: str, args: tuple[str, ...], line: str) -> None:
    """strace's line for a call its task died in (seen with strace 6.1: a killed
    clock_nanosleep, a self-kill, a pause ended by another thread's execve, a killed
    msgrcv)."""
    assert unfinished_text(name, args) == line


class _GeneralPath(StraceFormatter):
    """The formatter with render()'s event-by-event path (an override turns the inlined
    fast loop off)."""

    def _syscall(self, ev: Syscall, lines: list[str]) -> None:
        super()._syscall(ev, lines)


_POOL = workload()


@settings(max_examples=500, deadline=None)
@given(ns=st.one_of(st.integers(0, 10**7), st.integers(0, 2**64),
                    st.integers(0, 10**12).map(lambda us: us * 1000 + 500),
                    st.integers(10**15 - 10**4, 10**15 + 10**4), st.integers(-10**9, -1)))
def test_duration_text_is_the_floats_text(ns: int) -> None:
    """The memo's integer rounding gives what formatting the float gives, ties, huge and
    negative durations included, asked twice (the second answer from the memo)."""
    assert duration_text(ns) == f"{ns / 1e9:.6f}"
    assert duration_text(ns) == f"{ns / 1e9:.6f}"


def test_duration_text_near_every_rounding_edge() -> None:
    """Each sub-microsecond remainder next to the half, over a spread of microseconds."""
    for us in (0, 1, 999_999, 1_000_000, 123_456_789, 999_999_999_999):
        for r in (0, 1, 499, 500, 501, 999):
            ns = us * 1000 + r
            assert duration_text(ns) == f"{ns / 1e9:.6f}", ns


@settings(max_examples=200, deadline=None)
@given(picks=st.lists(st.tuples(st.integers(0, len(_POOL) - 1), st.integers(0, 3),
                                st.integers(0, 3_000_000_000), st.integers(0, 10**10)),
                      max_size=40),
       cuts=st.lists(st.integers(0, 40), max_size=4), offset=st.integers(0, 2**61))
def test_the_fast_render_loop_prints_what_the_general_one_does(
        picks: list[tuple[int, int, int, int]], cuts: list[int], offset: int) -> None:
    """Random runs of events (calls of every kind, 64- and 32-bit tasks, forks, exits,
    losses, times across seconds), cut into batches: the same text, batch by batch."""
    events = []
    for i, tid_i, ts, dur in picks:
        ev = _POOL[i]
        if isinstance(ev, Syscall):
            ev = msgspec.structs.replace(ev, tid=100 + tid_i, ts_ns=ev.ts_ns and ts,
                                         duration_ns=dur if not ev.flags else 0)
        events.append(ev)
    bounds = [0, *sorted(min(c, len(events)) for c in cuts), len(events)]
    fast, general = formatter(io.BytesIO()), formatter(io.BytesIO())
    general.__class__ = _GeneralPath
    fast.wall_offset_ns = general.wall_offset_ns = offset
    for a, b in zip(bounds, bounds[1:], strict=False):
        assert fast.render(events[a:b]) == general.render(events[a:b])


def test_instruction_pointer_column() -> None:
    """strace -i: ``[%016lx] `` after -n's number, 8 digits while the task is in 32-bit
    mode (its personality line in the new width), question marks on ``+++`` lines and
    where the address was not recorded (a call resumed from before tracing began)."""
    from tracekit._events import Signal
    from tracekit.formatters.strace import StraceOptions

    dec = SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent"))
    f = StraceFormatter(io.BytesIO(), decoder=dec, wall_offset_ns=OFFSET,  # type: ignore[arg-type]
                        shape=StraceOptions(time_format="t", durations=False,
                                            syscall_numbers=True, instruction_pointer=True,
                                            pid_prefix="none"))
    ip = 0x7F2A9C1E4AD7
    info = struct.pack("<iii", 10, 0, 0).ljust(48, b"\0")
    batch = [
        msgspec.structs.replace(sc("getppid", (), 7, ts_ms=0), ip=ip),
        Signal(1_000_000_000, 100, 100, 10, 0x401000, info, "t", ip=ip),
        msgspec.structs.replace(sc("getpid", (), 100, ts_ms=1, flags=SC_COMPAT, table=I386),
                                ip=0x4011C6),
        msgspec.structs.replace(sc("getppid", (), 7, ts_ms=2), ip=ip + 0x10),
        sc("read", (), 5, ts_ms=0, flags=SC_RESUMED, dur_us=0),
        Exit(4, 100, 100, 0, True, "t"),
    ]
    lines = f.render(batch).splitlines()
    assert lines == [
        "10:00:00 [ 110] [00007f2a9c1e4ad7] getppid() = 7",
        "10:00:00 [ 110] [00007f2a9c1e4ad7] --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER,"
        " si_pid=0, si_uid=0} ---",
        "10:00:00 [ 110] [004011c6] [ Process PID=100 runs in 32 bit mode. ]",
        "10:00:00 [  20] [004011c6] getpid() = 100",
        "10:00:00 [  20] [00007f2a9c1e4ae7] [ Process PID=100 runs in 64 bit mode. ]",
        "10:00:00 [ 110] [00007f2a9c1e4ae7] getppid() = 7",
        "??:??:?? [   0] [????????????????] <... read resumed>) = 5",
        "[   0] [????????????????] +++ exited with 0 +++",
    ]
    # without -i the lines have no such column, on the fast path too
    plain = formatter(io.BytesIO()).render(batch[:1])
    assert "[00007f2a9c1e4ad7]" not in plain and "getppid() = 7" in plain
