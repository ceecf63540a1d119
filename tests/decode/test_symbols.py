"""Stacks without a kernel: stack records joined to their calls, frames named from a maps
snapshot of a process that is gone, and the text of frames that cannot be named."""

from __future__ import annotations

import ctypes
import shutil
import struct
from pathlib import Path

import pytest

from tracekit._errors import ConfigError
from tracekit._events import (
    REC_EXIT,
    REC_STACK,
    REC_SYSCALL,
    STACK_TOP,
    Exec,
    Exit,
    Frame,
    RawStack,
    Stacks,
    Syscall,
    decode_batch,
)
from tracekit.app.config import decode_config
from tracekit.decode.symbols import Symbolizer, unmapped_advice
from tracekit.formatters._base import frame_text, repeats_text
from tracekit.formatters.perf import chain_line

_SYSCALL = struct.Struct("<IIQQIIIi6Qq16s")


def _syscall_rec(tid: int, ts_ns: int, nr: int = 257) -> bytes:
    return _SYSCALL.pack(REC_SYSCALL, 0, ts_ns, 10, tid, tid, 0, nr, 0, 0, 0, 0, 0, 0, -2,
                         b"prog")


def _stack_rec(tid: int, ts_ns: int, user: list[int], kernel: list[int]) -> bytes:
    head = struct.pack("<IIQIIIIQQQII", REC_STACK, 0, ts_ns, tid, tid, len(user),
                       len(kernel), 0x7ffd0000, 0, 0, 0, 0)
    return head + bytes(STACK_TOP) + struct.pack(f"<{len(user) + len(kernel)}Q",
                                                 *user, *kernel)


def test_stack_record_joins_the_next_call_of_its_tid() -> None:
    stacks = Stacks()
    records = [_stack_rec(7, 100, [0x1000, 0x2000], [0xffff0001]),
               _syscall_rec(8, 90),          # another task's call in between
               _syscall_rec(7, 100)]
    events, bad = decode_batch(records, stacks)
    assert bad == 0 and len(events) == 2
    other, call = events
    assert isinstance(other, Syscall) and other.stack == ()
    assert isinstance(call, Syscall)
    assert call.stack == (Frame(0xffff0001, kernel=True), Frame(0x1000), Frame(0x2000))
    assert stacks.pending == {}


def test_stack_waits_across_drains_and_a_stale_one_is_dropped() -> None:
    stacks = Stacks()
    decode_batch([_stack_rec(7, 100, [0x1000], [])], stacks)
    # the call's record was lost: the next call of the tid is another one
    events, _ = decode_batch([_syscall_rec(7, 200)], stacks)
    assert isinstance(events[0], Syscall) and events[0].stack == ()
    assert stacks.unmatched == 1
    # without a Stacks, stack records are skipped, not counted bad
    events, bad = decode_batch([_stack_rec(7, 300, [1], []), _syscall_rec(7, 300)])
    assert bad == 0 and [type(e) for e in events] == [Syscall]


def test_short_stack_record_is_bad() -> None:
    rec = _stack_rec(7, 100, [0x1000, 0x2000], [])[:-8]
    events, bad = decode_batch([rec], Stacks())
    assert (events, bad) == ([], 1)


def test_frames_named_after_the_process_is_gone(tmp_path: Path) -> None:
    """The maps snapshot taken at exec names the frames of a process that has exited by
    the time its stack is decoded (its /proc entry is gone)."""
    proc = tmp_path / "proc"
    (proc / "4242").mkdir(parents=True)
    shutil.copy("/proc/self/maps", proc / "4242" / "maps")
    libc = ctypes.CDLL(None)
    getppid = ctypes.cast(libc.getppid, ctypes.c_void_p).value
    assert getppid
    sym = Symbolizer(lambda name: None, proc=proc, perf_map_root=str(tmp_path))
    sym.exec(Exec(ts_ns=1, tid=4242, old_tid=4242, comm="prog", filename="/bin/prog"))
    shutil.rmtree(proc / "4242")                       # the process exits
    (first,) = sym.frames(RawStack(1, 4242, 4242, (getppid,), (), 0, 0, 0, b""))
    assert first.module.endswith("libc.so.6") and "getppid" in first.symbol
    assert first.offset and first.ip == getppid
    # an address no mapping holds keeps only its address: never a guess
    (unknown,) = sym.frames(RawStack(2, 4242, 4242, (0x10,), (), 0, 0, 0, b""))
    assert unknown == Frame(0x10)
    assert frame_text(unknown) == "[unknown]() [0x10]"
    # a frame-pointer chain's end (a 0 return address) is not a frame, as strace -k shows
    assert sym.frames(RawStack(3, 4242, 4242, (0x10, 0), (), 0, 0, 0, b"")) == (Frame(0x10),)
    assert chain_line(unknown).strip() == "[0x10] ([unknown])"


def test_a_process_gone_before_any_maps_were_read_is_said_once(tmp_path: Path) -> None:
    """A process whose maps were never read (it exited before its exec record was taken)
    has unnamed frames, and one line says why, once per process."""
    said: list[str] = []
    sym = Symbolizer(lambda name: None, proc=tmp_path / "proc",
                     perf_map_root=str(tmp_path), warn=said.append)
    sym.exec(Exec(ts_ns=1, tid=4243, old_tid=4243, comm="prog", filename="/bin/prog"))
    for ts in (1, 2):
        assert sym.frames(RawStack(ts, 4243, 4243, (0x401000,), (), 0, 0, 0, b"")) == \
            (Frame(0x401000),)
    assert said == [unmapped_advice(4243)]
    assert "4243" in said[0] and "[unknown]" in said[0]


def test_frame_texts() -> None:
    named = Frame(0x7F0000F8011, False, "/usr/lib/libc.so.6", 0xF8011, "__open64", 0x51)
    assert frame_text(named) == "/usr/lib/libc.so.6(__open64+0x51) [0xf8011]"
    assert chain_line(named) == " " * 39 + "__open64 (/usr/lib/libc.so.6)"
    unnamed = Frame(0x55000001234, False, "/srv/app", 0x1234)
    assert frame_text(unnamed) == "/srv/app() [0x1234]"
    assert chain_line(unnamed) == " " * 39 + "[0x1234] (/srv/app)"
    hostile = Frame(1, False, "/tmp/\x1b[31m", 2, "f\x07", 3)
    assert frame_text(hostile) == "/tmp/\\x1b[31m(f\\x07+0x3) [0x2]"


@pytest.mark.parametrize(("output", "message"), [
    ('format = "openmetrics"\nstacks = "user"', r'format = "openmetrics" ignores it'),
    ('format = "summary"\nmode = "kernel"\nstacks = "user"', 'not "kernel"'),
])
def test_stacks_key_where_it_cannot_be_honoured(output: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        decode_config(f'target.command = ["true"]\n[output]\n{output}\n', filename="p.toml")


def test_a_process_end_frees_what_was_kept_for_its_stacks(tmp_path: Path) -> None:
    """Its maps (some hundred KiB a process) go at its group exit, which decode_batch
    hands the symbolizer: `-k -f` on a command making thousands of short processes grew
    by about 4 MB a second. A thread's end keeps them."""
    proc = tmp_path / "proc"
    for pid in (4242, 4343):
        (proc / str(pid)).mkdir(parents=True)
        shutil.copy("/proc/self/maps", proc / str(pid) / "maps")
    sym = Symbolizer(lambda name: None, proc=proc, perf_map_root=str(tmp_path))
    stacks = Stacks(sym)
    for pid in (4242, 4343):
        sym.exec(Exec(ts_ns=1, tid=pid, old_tid=pid, comm="prog", filename="/bin/prog"))
    exit_rec = struct.Struct("<IIQIIiI16s")
    thread_end = exit_rec.pack(REC_EXIT, 0, 5, 4244, 4242, 0, 0, b"prog")
    group_end = exit_rec.pack(REC_EXIT, 0, 6, 4242, 4242, 0, 1, b"prog")
    decode_batch([thread_end], stacks)
    assert 4242 in sym._maps
    events, bad = decode_batch([group_end], stacks)
    assert bad == 0 and isinstance(events[0], Exit) and events[0].group_dead
    assert 4242 not in sym._maps and 4343 in sym._maps


def _gone(tmp_path: Path) -> Symbolizer:
    """A Symbolizer for a process whose maps were never read: only addresses."""
    return Symbolizer(lambda name: None, proc=tmp_path / "proc",
                      perf_map_root=str(tmp_path), warn=lambda s: None)


def _copy(sp: int, words: dict[int, int], size: int = 1024) -> bytes:
    buf = bytearray(size)
    for addr, value in words.items():
        struct.pack_into("<Q", buf, addr - sp, value)
    return bytes(buf)


def test_a_looping_frame_pointer_chain_is_cut_after_its_first_frame(tmp_path: Path) -> None:
    """A saved fp that points to itself makes the kernel's walk give one return address
    to its depth limit (127 frames): the stack keeps it once and ends there."""
    sp, ra = 0x7FFF0000, 0x7F0578E770E0
    fp = sp + 0x40
    raw = RawStack(1, 4244, 4244, (0x7F0578E77000,) + (ra,) * 126, (), sp, fp, 0,
                   _copy(sp, {fp: fp, fp + 8: ra}))
    got = _gone(tmp_path).frames(raw)
    assert [f.ip for f in got] == [0x7F0578E77000, ra]
    assert all(f.repeats == 0 for f in got)


def test_a_run_of_one_address_not_known_to_loop_keeps_8_and_says_the_rest(
        tmp_path: Path) -> None:
    """Where the stack copy does not hold the chain, a run of more than 8 frames of one
    address keeps 8, the last saying how many were cut; the frames after it stay."""
    ra = 0x7F0578E770E0
    raw = RawStack(1, 4245, 4245, (0x10,) + (ra,) * 20 + (0x20,), (), 0x1000, 0x9000, 0,
                   bytes(64))
    got = _gone(tmp_path).frames(raw)
    assert [f.ip for f in got] == [0x10] + [ra] * 8 + [0x20]
    assert [f.repeats for f in got] == [0] * 8 + [12, 0]
    assert repeats_text(got[8]) == ["... 12 more frames of the same address"]
    assert chain_line(got[8]).strip() == f"[{ra:#x}] ([unknown])"


def test_a_recursion_keeps_each_of_its_frames(tmp_path: Path) -> None:
    """A recursion gives one return address in consecutive frames, each at its own frame
    (the saved fps go up the stack): all of them are printed."""
    sp, ra = 0x7FFF0000, 0x401136
    fps = [sp + 0x20 + 0x20 * i for i in range(20)]
    words = {}
    for i, fp in enumerate(fps):
        words[fp] = fps[i + 1] if i + 1 < len(fps) else 0
        words[fp + 8] = ra
    raw = RawStack(1, 4246, 4246, (0x10,) + (ra,) * 19 + (0x401200,), (), sp, fps[0], 0,
                   _copy(sp, words))
    got = _gone(tmp_path).frames(raw)
    assert [f.ip for f in got] == [0x10] + [ra] * 19 + [0x401200]
    assert all(f.repeats == 0 for f in got)
