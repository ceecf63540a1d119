"""JsonlSink: golden output, round trip through msgspec, escaping, stream kinds."""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec
import trio

from tracekit._events import (
    SC_NORETURN,
    SC_RESUMED,
    Batch,
    Event,
    Exec,
    Exit,
    Fork,
    Losses,
    Lost,
    Syscall,
)
from tracekit.formatters import JsonlSink, unescape
from tracekit.pipeline import IterSource, Pipeline

GOLDEN = Path(__file__).parent / "golden"
DECODER = msgspec.json.Decoder(Event)

# golden/events.jsonl, checked by hand against the Struct declarations in
# tracekit/_events.py: one object per line, the "type" tag first, then the fields in
# declaration order; args a 6-element array (u64 values stay exact integers:
# 18446744073709551516 is AT_FDCWD as a register); ret signed; group_dead a JSON bool;
# comm "evil\x1b[31m" + the invalid byte 0xff is written in escaped form, ESC and 0xff each
# as the four characters \xNN (so "\\x1b" and "\\xff" in the JSON text, its backslash
# doubled by JSON); an exit superseded by another thread's execve carries that thread's
# old tid in superseded_by (0 otherwise), and alone is false but for a thread seccomp killed
# while its group lived; lost records count their lifecycle ones apart.
EVENTS: list[Batch] = [
    [
        Syscall(5_000_000_000, 4_000, 1234, 1234, 1, 257,
                (2**64 - 100, 0x7FFD1000, 0x80000, 0, 0, 0), 3, "ls"),
        Syscall(0, 0, 1234, 1234, 0, 59, (0,) * 6, 0, "ls", SC_RESUMED),
        Fork(5_000_010_000, 1234, 1234, 1235, 1235),
        Exec(5_000_020_000, 1235, 1235, "true", "/bin/true"),
    ],
    [
        Syscall(5_000_030_000, 0, 1235, 1235, 0, 231, (0,) * 6, 0, "true", SC_NORETURN),
        Exit(5_000_040_000, 1235, 1235, 256, True, "true"),
        Exit(5_000_045_000, 1240, 1240, 0, False, "mt", superseded_by=1241),
        Lost(5_000_050_000, 3, lifecycle=1),
        Syscall(5_000_060_000, 2_000, 77, 77, 0, 21, (0x10, 4, 0, 0, 0, 0), -2,
                "evil\x1b[31m\udcff"),
    ],
]


async def _run(sink: JsonlSink, batches: list[Batch]) -> None:
    with trio.fail_after(5):
        await Pipeline(IterSource(batches), [], [sink]).run()


async def test_golden_and_round_trip(tmp_path: Path) -> None:
    await _run(JsonlSink(tmp_path / "out.jsonl"), EVENTS)
    data = (tmp_path / "out.jsonl").read_bytes()
    assert data == (GOLDEN / "events.jsonl").read_bytes()
    back = DECODER.decode_lines(data)
    flat = [e for b in EVENTS for e in b]
    assert back[:-1] == flat[:-1]                         # exact, Struct for Struct
    assert back[-1].comm == "evil\\x1b[31m\\xff"          # escaped form
    assert unescape(back[-1].comm) == b"evil\x1b[31m\xff"   # the exact bytes
    assert [json.loads(line)["type"] for line in data.splitlines()] == [
        "syscall", "syscall", "fork", "exec", "syscall", "exit", "exit", "lost", "syscall"]
    assert b"\x1b" not in data


async def test_binary_and_text_streams() -> None:
    bio, sio = io.BytesIO(), io.StringIO()
    await _run(JsonlSink(bio), EVENTS[:1])
    await _run(JsonlSink(sio), EVENTS[:1])
    assert bio.getvalue().decode() == sio.getvalue()
    assert DECODER.decode_lines(bio.getvalue()) == EVENTS[0]
    assert not bio.closed                                 # a given stream stays open


def test_printable_strings_are_unchanged_and_a_backslash_is_doubled() -> None:
    ev = Exec(1, 2, 2, "café", "/tmp/naïve x")
    assert DECODER.decode_lines(JsonlSink(io.BytesIO()).render([ev])) == [ev]
    # a literal backslash is doubled, so that it cannot be read as an escaped byte
    ev = Exec(1, 2, 2, "café", "/tmp/naïve\\x41")
    (back,) = DECODER.decode_lines(JsonlSink(io.BytesIO()).render([ev]))
    assert back.filename == "/tmp/naïve\\\\x41"                # type: ignore[union-attr]
    assert unescape(back.filename) == "/tmp/naïve\\x41".encode()  # type: ignore[union-attr]


async def test_losses_line_comes_last_with_every_count(tmp_path: Path) -> None:
    losses = Losses(ts_ns=9, lost_syscalls=5, lost_lifecycle=2, lost_fd_table=8,
                    untraced_tasks=1,
                    capbuf_full=3, scratch_full=4, dropped={"pathfilter": 7})
    calls = []

    def losses_from() -> Losses:
        calls.append(1)
        return losses

    await _run(JsonlSink(tmp_path / "out.jsonl", losses_from=losses_from), EVENTS)
    lines = (tmp_path / "out.jsonl").read_bytes().splitlines()
    assert calls == [1]                                   # asked once, at the end
    assert lines[:-1] == (GOLDEN / "events.jsonl").read_bytes().splitlines()
    last = json.loads(lines[-1])
    assert last == {"type": "losses", "ts_ns": 9, "lost_syscalls": 5, "lost_lifecycle": 2,
                    "lost_fd_table": 8, "untraced_tasks": 1, "capbuf_full": 3, "stacks_missing": 0,
                    "scratch_full": 4,
                    "summary_full": 0, "errno_full": 0, "bad_records": 0,
                    "dropped": {"pathfilter": 7}, "unwritten": 0}
    assert DECODER.decode(lines[-1]) == losses
    # without a source of losses (a sink outside a trace) there is no such line
    await _run(JsonlSink(tmp_path / "plain.jsonl"), EVENTS)
    assert (tmp_path / "plain.jsonl").read_bytes() == (GOLDEN / "events.jsonl").read_bytes()
