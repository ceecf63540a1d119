"""Every encoder of traced strings, for any bytes a process can put in its comm or a path:
the output is UTF-8 with nothing a terminal acts on (no C0 but the line ends, no DEL, no
C1), and the JSON outputs give the exact bytes back through ``unescape``."""

from __future__ import annotations

import io
import json
import re

import msgspec
from hypothesis import given, settings, strategies as st

from tracekit._events import CAP_STR, Capture, Event, Exec, Exit, Signal, Syscall
from tracekit._summary import Group, Summary, SyscallStats
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.formatters import JsonlSink, escape, unescape
from tracekit.formatters.perf import PerfFormatter
from tracekit.formatters.strace import StraceFormatter
from tracekit.formatters.summary import render
from tracekit.kernel.syscalls import SyscallTable
from tracekit.notebook import summary_html

X64, I386 = SyscallTable("x86_64"), SyscallTable("i386")
OPENAT = X64.nr("openat")
AT_FDCWD = 2**64 - 100
# what must never reach the output raw: C0 controls but the newline, DEL, C1 controls
RAW_FORBIDDEN = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")

# bytes biased to the hard cases: not UTF-8, backslashes, "x" and hex digits after them
# (what an escape looks like), quotes, controls, C1 in UTF-8, a valid multi-byte char
hostile_bytes = st.lists(st.one_of(
    st.sampled_from([b"\\", b"x", b"f", b"\xff", b"\xc2\x9b", b"\x1b", b"\n", b'"', b"'",
                     b"\x7f", b"\xed\xa0\x80", "é".encode(), b"\x00"[:0]]),
    st.binary(min_size=1, max_size=1)), max_size=40).map(b"".join)
comm_bytes = hostile_bytes.map(lambda b: b.replace(b"\0", b"")[:15])
path_bytes = hostile_bytes.map(lambda b: b.replace(b"\0", b"")[:255])


def _as_kernel_text(raw: bytes) -> str:
    """How tracekit._events turns a comm or path into str."""
    return raw.decode("utf-8", "surrogateescape")


def _syscall(comm: bytes, path: bytes = b"/x") -> Syscall:
    return Syscall(ts_ns=1_000_000_000, duration_ns=1_000, tid=7, tgid=7, cpu=0,
                   syscall_nr=OPENAT, args=(AT_FDCWD, 0x1000, 0, 0, 0, 0), ret=-2,
                   comm=_as_kernel_text(comm), caps=(Capture(1, CAP_STR, 0, path),))


@given(hostile_bytes)
def test_escape_is_safe_and_unescape_inverts_it(raw: bytes) -> None:
    text = escape(_as_kernel_text(raw))
    data = text.encode("utf-8")                 # no surrogate is left
    assert not RAW_FORBIDDEN.search(data) and b"\n" not in data
    assert unescape(text) == raw


@given(hostile_bytes, hostile_bytes)
def test_escape_is_one_to_one(a: bytes, b: bytes) -> None:
    if a != b:
        assert escape(_as_kernel_text(a)) != escape(_as_kernel_text(b))


@settings(max_examples=200)
@given(comm_bytes, path_bytes, comm_bytes)
def test_jsonl_writes_any_bytes_exactly(comm: bytes, filename: bytes, other: bytes) -> None:
    batch: list[Event] = [
        _syscall(comm), _syscall(b"plain"),
        Exec(1, 7, 7, _as_kernel_text(other), _as_kernel_text(filename)),
        Exit(2, 7, 7, 0, True, _as_kernel_text(comm)),
        Signal(3, 7, 7, 17, 0, bytes(48), _as_kernel_text(other))]
    data = JsonlSink(io.BytesIO()).render(batch)
    assert not RAW_FORBIDDEN.search(data)
    lines = data.splitlines()
    assert len(lines) == len(batch)
    back = msgspec.json.Decoder(Event).decode_lines(data)
    plain = [json.loads(line) for line in lines]
    assert unescape(back[0].comm) == comm == unescape(plain[0]["comm"])   # type: ignore[union-attr]
    assert back[1].comm == "plain"                                       # type: ignore[union-attr]
    assert unescape(plain[2]["filename"]) == filename
    assert unescape(plain[2]["comm"]) == other
    assert unescape(plain[3]["comm"]) == comm
    assert unescape(plain[4]["comm"]) == other


@settings(max_examples=100)
@given(st.lists(comm_bytes, min_size=1, max_size=4))
def test_summary_tables_take_any_comm(comms: list[bytes]) -> None:
    groups = [Group(tgid=10 + i, tid=10 + i, comm=_as_kernel_text(c), syscalls=[
        SyscallStats(syscall_nr=OPENAT, syscall="openat", calls=1, timed=1, total_ns=5,
                     min_ns=5, max_ns=5)]) for i, c in enumerate(comms)]
    summary = Summary(group_by="thread", groups=groups)
    for table in ("perf", "strace", "histogram"):
        data = render(summary, table).encode("utf-8")
        assert not RAW_FORBIDDEN.search(data), table
        for c in comms:
            assert escape(_as_kernel_text(c)).encode() in data
    doc = json.loads(render(summary, "json"))
    assert [unescape(g["comm"]) for g in doc["groups"]] == comms
    page = summary_html(summary).encode("utf-8")         # a notebook's display
    assert not RAW_FORBIDDEN.search(page) and b"<td" in page


@settings(max_examples=100)
@given(comm_bytes, path_bytes)
def test_text_formats_take_any_comm_and_path(comm: bytes, path: bytes) -> None:
    batch: list[Event] = [_syscall(comm, path),
                          Exec(2, 7, 7, _as_kernel_text(comm), _as_kernel_text(path))]
    dec = SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent"))
    strace = StraceFormatter(io.BytesIO(), decoder=dec, wall_offset_ns=0).render(batch)
    decoded = [msgspec.structs.replace(ev, decoded=SyscallDecoder(
        X64, I386, fdcache=FdCache("/nonexistent")).decode(ev)) if isinstance(ev, Syscall)
        else ev for ev in batch]
    perf = PerfFormatter(io.BytesIO(), syscall_name=X64.name).render(decoded)
    for text in (strace, perf):
        data = text.encode("utf-8")
        assert not RAW_FORBIDDEN.search(data)
        assert data.count(b"\n") == len(data.splitlines())    # one line per record
    assert f" {escape(_as_kernel_text(comm))}/7 " in perf
