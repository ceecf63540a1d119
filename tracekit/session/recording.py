"""Recordings: the raw ring-buffer records of a trace and what is needed to decode them
later exactly as the live run did (file format: docs/recording-format.md).

A recording is a magic number, then length-prefixed frames, each one msgspec MessagePack
payload (compressed with zstd when that makes it smaller)::

    MAGIC (8 bytes)
    frame: u32 payload length | u8 kind | u8 codec | payload
           (format 4: codec has CODEC_CRC and the payload starts with the CRC-32 of the
           rest, so a damaged frame is found, not replayed)
    HEADER      format version, kernel release and architecture, clocks, the syscall
                table and tracefs arguments used, the capture layout, the selection
    SNAPSHOT    at attach: each target task's tid, tgid and comm; each process's fd
                table and working directory (read from /proc)
    RECORDS     one drain of the ring buffer: the raw records, as the BPF programs wrote
                them (programs/syscalls.h), in drain order
    LOST        a Lost event the source sent (records the kernel could not reserve)
    EVENTS      a batch the source sent that is not ring-buffer records (the targets'
                fd tables read at start: FdSnapshot events)
    ANNOTATIONS what the source put into the batch of the RECORDS frame before it (new
                fds read from /proc and sock_diag as their records arrived: FdTargets)
    STACKS      the frames the source named for the stack records it joined to their
                calls in the drain of the RECORDS frame before it (module, offset,
                symbol, from /proc/<pid>/maps and the ELF files as they were then)
    FACTS       answers a live decode read from the system (tracekit.kernel.facts)
    SUMMARY     the in-kernel summary a summary output printed
    END         the kernel's counters and how the trace ended

Frames are written whole, one ``write`` each, as they come: a recorder killed with
SIGKILL leaves every frame it finished, and a reader stops at the first frame cut short
(:attr:`Recording.stopped` says where). A frame that is there but damaged (its checksum,
an impossible length, a payload that does not decompress or decode) is an error that
names the file and the frame's offset. Nothing is kept in memory but one frame.

:class:`RecordingSource` is a pipeline source over a recording (the live source's
batches: the same events in the same batches, in the order they came);
:class:`ReplayFacts` answers each consumer's questions as the live run's system
answered them.
"""

from __future__ import annotations

import collections
import errno
import os
import platform
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any, Protocol

import msgspec
import trio

from tracekit._errors import RecordingError
from tracekit._events import (
    Batch,
    Event,
    Exec,
    Exit,
    Fork,
    Frame,
    Losses,
    Lost,
    PlainStacks,
    RawStack,
    Reenumerated,
    StackJoin,
    Stacks,
    Syscall,
    decode_batch,
)
from tracekit._summary import Summary
from tracekit.decode.values import quote
from tracekit.kernel.facts import FactReader, LiveFacts
from tracekit.kernel.syscalls import SyscallTable

__all__ = ["FORMAT_VERSION", "MAGIC", "End", "Header", "Recorder", "Recording",
           "RecordingError", "RecordingFacts", "RecordingSource", "ReplayFacts", "Snapshot"]

#: the file's first 8 bytes (a high byte first, so no text tool takes it for text)
MAGIC = b"\x89tkrec\r\n"
#: the layout of frames and payloads; a reader refuses a newer version. 2: the EVENTS
#: and ANNOTATIONS frames and the proto, socket and device facts (a format 1 recording
#: has none of them: its replay knows fds only from the calls and the snapshot)
#: 3: the STACKS frame (each stack's frames as the live run named them) and the
#: ``reenumerated`` fact (the reenumerate stage's record; the session's pass after attach)
#: 4: every frame's codec has CODEC_CRC: its payload starts with a CRC-32 of the rest
#: 5: strace -i's records: 72-byte stack records of one frame (STACK_IP_ONLY), signal
#: records with ip (112 bytes), which a format 4 reader would count as bad or ignore
FORMAT_VERSION = 5
_FRAME = struct.Struct("<IBB")                  # payload length, kind, codec
_CRC = struct.Struct("<I")                      # zlib.crc32 of the payload after it
KIND_HEADER, KIND_SNAPSHOT, KIND_RECORDS, KIND_LOST = 1, 2, 3, 4
KIND_FACTS, KIND_SUMMARY, KIND_END, KIND_EVENTS, KIND_ANNOTATIONS = 5, 6, 7, 8, 9
KIND_STACKS = 10
_KIND_NAMES = {KIND_HEADER: "header", KIND_SNAPSHOT: "snapshot", KIND_RECORDS: "records",
               KIND_LOST: "lost", KIND_FACTS: "facts", KIND_SUMMARY: "summary",
               KIND_END: "end", KIND_EVENTS: "events", KIND_ANNOTATIONS: "annotations",
               KIND_STACKS: "stacks"}
CODEC_NONE, CODEC_ZSTD = 0, 1
CODEC_CRC = 0x80               # flag: the payload's first 4 bytes are the CRC-32 of the rest
_COMPRESS_MIN = 512            # smaller payloads are written as they are
_FRAME_MAX = 1 << 30           # a longer frame is corruption, not a recording


class Header(msgspec.Struct, kw_only=True):
    """The first frame: everything a decode needs besides the records.

    Times: ``*_ns`` are ns; ``wall_offset_ns`` is ``time.time_ns() -
    time.monotonic_ns()`` taken once at start (a record's ``ts_ns`` plus it is the
    wall-clock time the live run printed); ``boottime_offset_ns`` is CLOCK_BOOTTIME minus
    CLOCK_MONOTONIC at start (``start_time_ns`` of the pids map is CLOCK_BOOTTIME).
    """

    format_version: int
    tracekit_version: str
    created_ns: int                     # wall clock when the recording began
    hostname: str
    kernel_release: str                 # uname -r
    machine: str                        # uname -m
    arch: str                           # tracekit's name: x86_64, arm64
    wall_offset_ns: int
    boottime_offset_ns: int
    utc_offset_s: int                   # the local time zone's offset when it began
    syscalls: dict[str, int]            # the native table used (name -> number)
    compat_syscalls: dict[str, int]     # the i386 table on x86_64, else empty
    syscall_args: dict[str, list[tuple[str, str]]]   # tracefs (argument, C type) per syscall
    capture_layout: dict[int, list[tuple[int, ...]]]  # syscall nr -> its capture specs
    target: dict[str, Any]              # command / pids / tids / system_wide / cgroup
    selection: dict[str, Any]           # what the kernel was told to keep
    buffer_bytes: int
    kernel_summary: bool                # calls counted in BPF maps: no syscall records


class Snapshot(msgspec.Struct, kw_only=True):
    """The target's tasks and fds at attach (read from /proc).

    ``fds[tgid][fd]`` is ``readlink(/proc/<tgid>/fd/<fd>)``; ``tasks`` are ``(tid, tgid,
    comm)``.
    """

    ts_ns: int                                  # CLOCK_MONOTONIC when read
    tasks: list[tuple[int, int, str]] = []
    fds: dict[int, dict[int, str]] = {}
    cwds: dict[int, str] = {}


class End(msgspec.Struct, kw_only=True):
    """The last frame: how the trace ended and the kernel's counters then."""

    ts_ns: int
    records: int                    # records decoded by the live source
    lost: int                       # records the kernel could not reserve (reported)
    counters: dict[str, int] = {}   # the kernel's counters (session.Counters' fields)
    not_added: int = 0              # tasks userspace could not add: the pids map was full
    repaired: int = 0               # of those, later added by a reconcile stage
    returncode: int | None = None   # the command's, -N for signal N
    completed: bool = True          # False: the trace failed or was interrupted
    losses: Losses | None = None    # what the live sinks wrote at their end (their replay
                                    # writes the same); None from a trace that failed


# one fact: (consumer, kind, key, answer); kinds: "fd" [tgid, fd] -> str | None,
# "cwd" [tgid] -> str | None, "realpath" [path] -> str, "proto" [tgid, fd] -> str | None,
# "socket" [inode] -> str | None, "device" [path] -> str | None, "idle" [position] -> ns,
# "reenumerated" [] -> Reenumerated | None (format 3)
Answer = str | int | Reenumerated | None
Fact = tuple[str, str, list[int | str], Answer]
_Answers = dict[tuple[str, tuple[int | str, ...]], collections.deque[Answer]]

#: one named stack: (tid, ts_ns of its call, frames as (ip, kernel, module, offset,
#: symbol, symoff): the fields of tracekit._events.Frame)
# a frame: ip, kernel, module, offset, symbol, symoff[, repeats] (repeats: since 12-2026)
NamedStack = tuple[int, int, list[tuple[int, bool, str, int, str, int, int]]]

_ENC = msgspec.msgpack.Encoder()


class _Sink(Protocol):
    def write(self, data: bytes, /) -> int | None: ...

    def flush(self) -> None: ...


def _zstd() -> Any:
    import zstandard

    return zstandard


class FrameWriter:
    """Writes frames to a binary stream, each in one write, flushed.

    Args:
      stream: an open binary file (the front end opens it: tracekit.formatters._output).
      compress: zstd level 1 for payloads of 512 bytes or more when that is smaller.

    Attributes:
      reader_left: a write found the reader of a pipe or fifo gone (EPIPE: ``record -o -
        | head -c``): nothing is written from then on, and the caller ends the trace as
        for any output whose reader left (status 141), or goes on without the recording.
    """

    def __init__(self, stream: _Sink, *, compress: bool = True) -> None:
        self.stream = stream
        self.reader_left = False
        self._zc = _zstd().ZstdCompressor(level=1) if compress else None
        self.bytes_in = 0           # payload bytes before compression
        self.bytes_out = 0          # bytes written
        self._lock = threading.Lock()   # a metrics server's thread may write a summary
        stream.write(MAGIC)
        self.bytes_out += len(MAGIC)

    def write(self, kind: int, obj: Any) -> None:
        payload = _ENC.encode(obj)
        self.bytes_in += len(payload)
        codec = CODEC_NONE
        if self._zc is not None and len(payload) >= _COMPRESS_MIN:
            packed = self._zc.compress(payload)
            if len(packed) < len(payload):
                payload, codec = packed, CODEC_ZSTD
        data = (_FRAME.pack(_CRC.size + len(payload), kind, codec | CODEC_CRC)
                + _CRC.pack(zlib.crc32(payload)) + payload)
        with self._lock:
            if self.reader_left:
                return
            try:
                self.stream.write(data)
                self.stream.flush()
            except BrokenPipeError:
                self.reader_left = True     # the rest has nowhere to go
                return
            self.bytes_out += len(data)


def _decode_payload(codec: int, payload: bytes, max_size: int = _FRAME_MAX) -> bytes:
    """A frame's MessagePack bytes.

    Raises:
      RecordingError: an unknown codec, or a zstd payload that does not decompress (a
        damaged file).
    """
    codec &= ~CODEC_CRC                 # checked by the reader of the frame
    if codec == CODEC_NONE:
        return payload
    if codec == CODEC_ZSTD:
        zstd = _zstd()
        try:
            return bytes(zstd.ZstdDecompressor().decompress(payload, max_output_size=max_size))
        except zstd.ZstdError as e:
            raise RecordingError(f"its zstd payload is corrupt ({e})") from None
    raise RecordingError(f"unknown frame codec {codec}")


# -- recording ---------------------------------------------------------------------------

class _Named:
    """Consumer names made unique in the order readers are made (``decoder``,
    ``decoder#2``, ...): a live run and its replay build their stages in the same order."""

    def __init__(self) -> None:
        self._names: collections.Counter[str] = collections.Counter()

    def _unique(self, consumer: str) -> str:
        self._names[consumer] += 1
        n = self._names[consumer]
        return consumer if n == 1 else f"{consumer}#{n}"


class _LoggingReader:
    """A live reader that writes every answer down (for one consumer)."""

    __slots__ = ("_name", "_live", "_log")

    def __init__(self, name: str, live: FactReader, log: list[Fact]) -> None:
        self._name, self._live, self._log = name, live, log

    def fd_link(self, tgid: int, fd: int) -> str | None:
        got = self._live.fd_link(tgid, fd)
        self._log.append((self._name, "fd", [tgid, fd], got))
        return got

    def cwd(self, tgid: int) -> str | None:
        got = self._live.cwd(tgid)
        self._log.append((self._name, "cwd", [tgid], got))
        return got

    def realpath(self, path: str) -> str:
        got = self._live.realpath(path)
        self._log.append((self._name, "realpath", [path], got))
        return got

    def sock_proto(self, tgid: int, fd: int) -> str | None:
        got = self._live.sock_proto(tgid, fd)
        self._log.append((self._name, "proto", [tgid, fd], got))
        return got

    def socket(self, inode: int, proto: str | None) -> str | None:
        got = self._live.socket(inode, proto)
        self._log.append((self._name, "socket", [inode], got))
        return got

    def refresh_sockets(self) -> None:
        self._live.refresh_sockets()

    def device(self, path: str) -> str | None:
        got = self._live.device(path)
        self._log.append((self._name, "device", [path], got))
        return got

    def idle_now(self, position: int) -> int:
        got = self._live.idle_now(position)
        self._log.append((self._name, "idle", [position], got))
        return got

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        return None

    def reenumeration(self, walk: Callable[[], Reenumerated]) -> Reenumerated | None:
        got = self._live.reenumeration(walk)
        self._log.append((self._name, "reenumerated", [], got))
        return got

    def close(self) -> None:
        self._live.close()


class _RecordingJoin:
    """A :class:`~tracekit._events.StackJoin` that writes down what another names."""

    def __init__(self, inner: StackJoin, log: list[NamedStack]) -> None:
        self.inner = inner
        self.map_nrs = inner.map_nrs
        self._log = log

    def frames(self, raw: RawStack) -> tuple[Frame, ...]:
        got = self.inner.frames(raw)
        self._log.append((raw.tid, raw.ts_ns, [
            (f.ip, f.kernel, f.module, f.offset, f.symbol, f.symoff, f.repeats)
            for f in got]))
        return got

    def exec(self, ev: Exec) -> None:
        self.inner.exec(ev)

    def mapped(self, ev: Syscall) -> None:
        self.inner.mapped(ev)

    def forked(self, ev: Fork) -> None:
        self.inner.forked(ev)

    def exited(self, ev: Exit) -> None:
        self.inner.exited(ev)


class _ReplayJoin:
    """The frames a recording holds for each stack (by tid and call entry time); a
    stack it holds none for (a recording of format 2) prints as addresses."""

    map_nrs: frozenset[int] = frozenset()

    def __init__(self) -> None:
        self.named: dict[tuple[int, int], tuple[Frame, ...]] = {}
        self.unnamed = 0

    def add(self, stacks: list[NamedStack]) -> None:
        for tid, ts_ns, frames in stacks:
            self.named[(tid, ts_ns)] = tuple(Frame(*f) for f in frames)

    def frames(self, raw: RawStack) -> tuple[Frame, ...]:
        got = self.named.pop((raw.tid, raw.ts_ns), None)
        if got is None:
            self.unnamed += 1
            return PlainStacks().frames(raw)
        return got

    def exec(self, ev: Exec) -> None:
        return None

    def mapped(self, ev: Syscall) -> None:
        return None

    def forked(self, ev: Fork) -> None:
        return None

    def exited(self, ev: Exit) -> None:
        return None


class RecordingFacts(_Named):
    """The running system's facts (:class:`~tracekit.kernel.facts.LiveFacts`), each answer
    also written down for the recording (:meth:`Recorder.facts`)."""

    def __init__(self, live: LiveFacts, log: list[Fact]) -> None:
        super().__init__()
        self._live = live
        self._log = log
        self.wall_offset_ns = live.wall_offset_ns
        self.utc_offset_s: int | None = None        # live: this machine's local time

    def reader(self, consumer: str) -> FactReader:
        return _LoggingReader(self._unique(consumer), self._live.reader(consumer), self._log)


class Recorder:
    """Writes a recording while a trace runs: a tap on its ring-buffer source.

    The trace calls :meth:`attached` once the programs are attached, the source calls
    :meth:`records` with each drain's raw records, :meth:`annotations` with what it put
    into that drain's batch, :meth:`events` with each batch it sends that is not
    records, :meth:`lost` with each Lost event it sends, and :meth:`close` writes the
    last frame. :attr:`facts` is the trace's
    :class:`~tracekit.kernel.facts.Facts`: hand it to the stages and sinks, and what they
    read from the system is written down too.

    Args:
      stream: the open binary file.
      header: the first frame (:func:`make_header`).
      compress: zstd-compress frames (level 1).

    Attributes:
      frames: frames written; ``writer.bytes_in``/``bytes_out`` their sizes.
    """

    def __init__(self, stream: _Sink, header: Header, *, compress: bool = True,
                 facts: LiveFacts | None = None) -> None:
        self.writer = FrameWriter(stream, compress=compress)
        self._facts_log: list[Fact] = []
        self._stacks_log: list[NamedStack] = []
        live = facts or LiveFacts(quote=quote)
        live.wall_offset_ns = header.wall_offset_ns     # one clock for trace and file
        self.facts = RecordingFacts(live, self._facts_log)
        self.frames = 0
        self.records_written = 0
        self._closed = False
        self._write(KIND_HEADER, header)

    def _write(self, kind: int, obj: Any) -> None:
        if self._stacks_log and kind != KIND_STACKS:
            # named while the source decoded the drain just written: they follow it
            log, self._stacks_log[:] = list(self._stacks_log), []
            self._write(KIND_STACKS, log)
        if self._facts_log and kind != KIND_FACTS:
            self._flush_facts()
        self.writer.write(kind, obj)
        self.frames += 1

    def _flush_facts(self) -> None:
        log, self._facts_log[:] = list(self._facts_log), []
        self.writer.write(KIND_FACTS, log)
        self.frames += 1

    # -- the source's tap ---------------------------------------------------------------

    def records(self, records: list[bytes]) -> None:
        """One drain of the ring buffer, before it is decoded."""
        if records:
            self._write(KIND_RECORDS, records)
            self.records_written += len(records)

    def annotations(self, inserted: list[tuple[int, Event]]) -> None:
        """The events the source put into the batch of the last :meth:`records` (FdTargets:
        what new fds referred to, read as their records arrived), each with its index in
        the batch it sent."""
        if inserted:
            self._write(KIND_ANNOTATIONS, inserted)

    def events(self, batch: Batch) -> None:
        """A batch the source sends that is not ring-buffer records (FdSnapshot events:
        the targets' fd tables read at start)."""
        if batch:
            self._write(KIND_EVENTS, batch)

    def lost(self, ev: Lost) -> None:
        """A Lost event the source sends."""
        self._write(KIND_LOST, ev)

    def stacks(self, join: StackJoin) -> StackJoin:
        """The source's symbolizer, wrapped: the frames it names for each stack are
        written down (a STACKS frame after the drain's RECORDS frame), so a replay prints
        the names the live run printed, whatever has become of the processes' maps and
        files since."""
        return _RecordingJoin(join, self._stacks_log)

    # -- the trace's hooks --------------------------------------------------------------

    def attached(self, session: Any) -> None:
        """The programs are attached: the target's tasks, fds and working directories, and
        the session's /proc pass after attach (a pid/tid target's)."""
        passed = getattr(session, "reenumerated", None)
        if isinstance(passed, Reenumerated):
            self._facts_log.append(("session", "reenumerated", [], passed))
        self._write(KIND_SNAPSHOT, snapshot(session))

    def summary(self, summary: Summary) -> None:
        """The in-kernel summary an output printed."""
        self._write(KIND_SUMMARY, summary)

    def close(self, end: End) -> None:
        """The last frame (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._facts_log:
            self._flush_facts()
        self._write(KIND_END, end)


def make_header(opts: Any, *, wall_offset_ns: int | None = None) -> Header:
    """The header of a recording of a session with these options.

    Args:
      opts: the :class:`~tracekit.session.session.SessionOptions`.

    Raises:
      TracefsError: a tracefs format could not be read (other than ENOENT/EACCES/EPERM).
    """
    from tracekit._version import __version__
    from tracekit.kernel.tracefs import readable_tracefs, syscall_arg_table
    from tracekit.session.capture import build_specs

    table = SyscallTable()
    compat = SyscallTable("i386") if table.arch == "x86_64" else None
    root = readable_tracefs()
    if root is not None:
        args = {name: [(f.name, f.c_type) for f in fields]
                for name, fields in syscall_arg_table(root).items()}
    else:
        from tracekit.kernel.tracefs import syscall_args_lookup

        lookup = syscall_args_lookup(table.arch)
        args = {}
        for name in table.names():
            fields = lookup(name)
            if fields is not None:
                args[name] = [(f.name, f.c_type) for f in fields]
    layout = ({nr: [tuple(s) for s in specs] for nr, specs in build_specs(table, root).items()}
              if opts.capture and not opts.summary else {})
    uname = os.uname()
    now_wall, now_mono = time.time_ns(), time.monotonic_ns()
    boot = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - time.monotonic_ns()
    return Header(
        format_version=FORMAT_VERSION, tracekit_version=__version__, created_ns=now_wall,
        hostname=uname.nodename, kernel_release=uname.release, machine=platform.machine(),
        arch=table.arch,
        wall_offset_ns=now_wall - now_mono if wall_offset_ns is None else wall_offset_ns,
        boottime_offset_ns=boot, utc_offset_s=time.localtime().tm_gmtoff,
        syscalls=table.numbers(), compat_syscalls=compat.numbers() if compat else {},
        syscall_args=args, capture_layout=layout,
        target={"command": opts.command, "pids": list(opts.pids), "tids": list(opts.tids),
                "system_wide": opts.system_wide, "cgroup": opts.cgroup,
                "follow_forks": opts.follow_forks},
        selection={"syscalls": sorted(opts.syscalls) if opts.syscalls is not None else None,
                   "failed_only": opts.failed_only, "status": sorted(opts.status),
                   "errnos": sorted(opts.errnos) if opts.errnos is not None else None,
                   "signals": sorted(opts.signals) if opts.signals is not None else None,
                   "min_duration_ns": opts.min_duration_ns, "capture": opts.capture},
        buffer_bytes=opts.buffer_bytes, kernel_summary=bool(opts.summary))


def snapshot(session: Any, proc: str = "/proc") -> Snapshot:
    """The tasks, fd tables and working directories of the session's target, now.

    Which processes: the tgids of the pids map (a command, ``-p``, ``tid`` targets);
    every process but tracekit itself for a system-wide or cgroup target. A process or
    fd that goes away meanwhile is left out; one not ours to read (EACCES) too.
    """
    if session.opts.system_wide or session.opts.cgroup is not None:
        tgids = sorted(int(d) for d in os.listdir(proc)
                       if d.isdigit() and int(d) != session.self_tgid)
    else:
        tgids = sorted({info.tgid for info in session.pid_entries().values()})
    snap = Snapshot(ts_ns=time.monotonic_ns())
    for tgid in tgids:
        try:
            names = os.listdir(f"{proc}/{tgid}/fd")
        except OSError:
            continue
        table: dict[int, str] = {}
        for name in names:
            try:
                table[int(name)] = os.readlink(f"{proc}/{tgid}/fd/{name}")
            except (OSError, ValueError):
                continue
        snap.fds[tgid] = table
        try:
            snap.cwds[tgid] = os.readlink(f"{proc}/{tgid}/cwd")
        except OSError:
            pass
        try:
            tids = sorted(int(t) for t in os.listdir(f"{proc}/{tgid}/task"))
        except OSError:
            tids = [tgid]
        for tid in tids:
            try:
                with open(f"{proc}/{tgid}/task/{tid}/comm", "rb") as f:
                    comm = f.read().rstrip(b"\n").decode("utf-8", "surrogateescape")
            except OSError:
                continue
            snap.tasks.append((tid, tgid, comm))
    return snap


# -- reading -----------------------------------------------------------------------------

class _Frame(msgspec.Struct, frozen=True):
    offset: int         # of the frame header in the file
    kind: int
    codec: int
    size: int           # payload bytes in the file


class Recording:
    """A recording file, scanned once (:meth:`open`): its header, snapshot, facts,
    summary and end; the records are read again, in order, by :meth:`batches`.

    Attributes:
      path: the file.
      header: the :class:`Header`.
      snapshot: the :class:`Snapshot` (None when the recorder stopped before attach).
      facts: every :data:`Fact`, in the order they were read.
      summary: the in-kernel summary an output printed, or None.
      end: the :class:`End` frame, or None when the recording stops early.
      stopped: None when the file ends with its END frame; else why it stops early
        (``"frame 12 (records) at byte 53120 is cut short: 8 of 4096 bytes"``): the
        file ends inside a frame, or after its last whole frame with no END frame (a
        recorder killed); a damaged frame is a RecordingError instead.
      frames: frames read whole.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.header: Header | None = None
        self.snapshot: Snapshot | None = None
        self.facts: list[Fact] = []
        self.summary: Summary | None = None
        self.end: End | None = None
        self.stopped: str | None = None
        self.frames = 0
        self._data_frames = 0
        self._checksums = False     # the header says format 4 or later: every frame has one
        self._version = FORMAT_VERSION  # the header's format_version
        self.unnamed_stacks = 0     # of the last batches(): stacks with no names recorded

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Recording:
        """Read the header, snapshot, facts, summary and end of ``path``.

        Raises:
          RecordingError: not a recording (the magic number), a newer format, no header
            frame, a damaged frame (:meth:`_frames`; the data frames too: their
            checksums are checked here, so a replay never starts on a damaged file of
            format 4) or one that cannot be decoded, or a file that cannot be read (its
            errno name: ENOENT, EISDIR, EACCES).
        """
        rec = cls(path)
        try:
            rec._scan()
        except OSError as e:
            name = errno.errorcode.get(e.errno or 0, "?")
            raise RecordingError(f"{rec.path}: cannot read the recording: {e.strerror} "
                                 f"({name})") from None
        return rec

    def _frames(self, f: IO[bytes], *, read_kinds: frozenset[int] | None = None
                ) -> Iterator[tuple[_Frame, bytes | None]]:
        """Each whole frame, with its payload (checked and decompressed) when its kind is
        in ``read_kinds`` (all: None); sets :attr:`stopped` at a frame cut short (the
        file ends inside it) and stops there. A frame of another kind is skipped, its
        checksum checked (format 4: each frame has one).

        Raises:
          RecordingError: a damaged frame, named by file, number, kind and byte offset:
            a length past any frame's, a checksum that does not match, a format 4 frame
            without one, an unknown codec, a zstd payload that does not decompress.
        """
        head = f.read(len(MAGIC))
        if head != MAGIC:
            raise RecordingError(f"{self.path}: not a tracekit recording (its first bytes "
                                 f"are {head[:8]!r}, not {MAGIC!r})")
        offset = len(MAGIC)
        index = 0
        while True:
            raw = f.read(_FRAME.size)
            if not raw:
                return
            index += 1
            if len(raw) < _FRAME.size:
                self.stopped = (f"frame {index} at byte {offset} is cut short: its header has "
                                f"{len(raw)} of {_FRAME.size} bytes")
                return
            size, kind, codec = _FRAME.unpack(raw)
            where = (f"{self.path}: frame {index} ({_KIND_NAMES.get(kind, kind)}) at byte "
                     f"{offset}")
            if size > _FRAME_MAX:
                raise RecordingError(f"{where} is corrupt: {size} bytes long (at most "
                                     f"{_FRAME_MAX})")
            frame = _Frame(offset, kind, codec, size)
            if read_kinds is None or kind in read_kinds or codec & CODEC_CRC or \
                    self._checksums:
                payload = f.read(size)
                if len(payload) < size:
                    self.stopped = (f"frame {index} ({_KIND_NAMES.get(kind, kind)}) at byte "
                                    f"{offset} is cut short: {len(payload)} of {size} bytes")
                    return
                payload = self._checked(where, codec, payload)
                data: bytes | None = None
                if read_kinds is None or kind in read_kinds:
                    try:
                        data = _decode_payload(codec, payload)
                    except RecordingError as e:
                        raise RecordingError(f"{where} is corrupt: {e}") from None
                yield frame, data
            else:
                here = f.tell()
                end = f.seek(0, os.SEEK_END)
                if end < here + size:
                    self.stopped = (f"frame {index} ({_KIND_NAMES.get(kind, kind)}) at byte "
                                    f"{offset} is cut short: {end - here} of {size} bytes")
                    return
                f.seek(here + size)
                yield frame, None
            offset += _FRAME.size + size

    def _checked(self, where: str, codec: int, payload: bytes) -> bytes:
        """The payload after its checksum, which must match (CODEC_CRC); a frame without
        one in a recording of format 4 or later is damaged (its flag lost).

        Raises:
          RecordingError: the checksum is missing, cut or does not match.
        """
        if not codec & CODEC_CRC:
            if self._checksums:
                raise RecordingError(f"{where} is corrupt: it has no checksum (codec "
                                     f"{codec:#x}; every frame of format "
                                     f"{self._version} has one)")
            return payload
        if len(payload) < _CRC.size:
            raise RecordingError(f"{where} is corrupt: {len(payload)} bytes long, shorter "
                                 f"than its checksum")
        (want,) = _CRC.unpack_from(payload)
        body = payload[_CRC.size:]
        got = zlib.crc32(body)
        if got != want:
            raise RecordingError(f"{where} is corrupt: its CRC-32 is {got:#010x}, the frame "
                                 f"says {want:#010x}")
        return body

    def _scan(self) -> None:
        want = frozenset({KIND_HEADER, KIND_SNAPSHOT, KIND_FACTS, KIND_SUMMARY, KIND_END})
        with open(self.path, "rb") as f:
            for frame, payload in self._frames(f, read_kinds=want):
                self.frames += 1
                if payload is None:
                    self._data_frames += 1
                    continue
                try:
                    self._take(frame, payload)
                except msgspec.DecodeError as e:
                    raise RecordingError(f"{self.path}: frame {self.frames} "
                                         f"({_KIND_NAMES.get(frame.kind, frame.kind)}) at "
                                         f"byte {frame.offset} is corrupt: {e}") from None
        if self.header is None:
            raise RecordingError(f"{self.path}: no header frame"
                                 + (f" ({self.stopped})" if self.stopped else ""))
        if self.end is None and self.stopped is None:
            self.stopped = f"no end frame after {self.frames} frames: the recorder was stopped"

    def _take(self, frame: _Frame, payload: bytes) -> None:
        kind = frame.kind
        if kind == KIND_HEADER:
            version = msgspec.msgpack.decode(payload, type=dict[str, Any]).get(
                "format_version")
            if not isinstance(version, int) or version > FORMAT_VERSION:
                raise RecordingError(f"{self.path}: recording format {version!r}; this "
                                     f"tracekit reads format {FORMAT_VERSION} and older "
                                     "(upgrade tracekit)")
            if version >= 4 and not frame.codec & CODEC_CRC:
                raise RecordingError(f"{self.path}: frame 1 (header) at byte {frame.offset} "
                                     f"is corrupt: it has no checksum (codec {frame.codec:#x};"
                                     f" every frame of format {version} has one)")
            self._checksums = version >= 4
            self._version = version
            self.header = msgspec.msgpack.decode(payload, type=Header)
        elif kind == KIND_SNAPSHOT:
            self.snapshot = msgspec.msgpack.decode(payload, type=Snapshot)
        elif kind == KIND_FACTS:
            self.facts += msgspec.msgpack.decode(payload, type=list[Fact])
        elif kind == KIND_SUMMARY:
            self.summary = msgspec.msgpack.decode(payload, type=Summary)
        elif kind == KIND_END:
            self.end = msgspec.msgpack.decode(payload, type=End)
        # frames of kinds this version does not know are skipped (a newer minor version)

    def payloads(self) -> Iterator[tuple[int, bytes]]:
        """Each whole frame's kind and MessagePack payload (checksum checked,
        decompressed), in file order: for tools that copy or convert a recording.

        Raises:
          RecordingError: a damaged frame (as :meth:`open`).
        """
        with open(self.path, "rb") as f:
            for frame, payload in self._frames(f):
                assert payload is not None
                yield frame.kind, payload

    def batches(self) -> Iterator[Batch | Lost]:
        """The live source's batches, in order: each RECORDS frame decoded
        (:func:`~tracekit._events.decode_batch`, bad records skipped and counted in
        :attr:`bad`) with the frames of the STACKS frame that follows it given to its
        stacks and the events of the ANNOTATIONS frame that follows it put back where the
        live source put them, each EVENTS frame as its batch, each LOST frame as its
        :class:`~tracekit._events.Lost`. :attr:`added` counts the events of the EVENTS
        and ANNOTATIONS frames (made by the live source, not decoded records);
        :attr:`unnamed_stacks` the stacks the recording holds no names for (format 2:
        printed as addresses)."""
        self.bad = 0
        self.added = 0
        self.unnamed_stacks = 0
        dec_records = msgspec.msgpack.Decoder(list[bytes])
        dec_lost = msgspec.msgpack.Decoder(Lost)
        dec_events = msgspec.msgpack.Decoder(list[Event])
        dec_inserted = msgspec.msgpack.Decoder(list[tuple[int, Event]])
        dec_stacks = msgspec.msgpack.Decoder(list[NamedStack])
        kinds = frozenset({KIND_RECORDS, KIND_LOST, KIND_EVENTS, KIND_ANNOTATIONS,
                           KIND_STACKS})
        # a drain's records, decoded once the frames that follow it (its stacks' names,
        # its annotations) are read
        pending: list[bytes] | None = None
        inserted: list[tuple[int, Event]] = []
        join = _ReplayJoin()
        stacks = Stacks(join)

        def flush() -> Batch:
            assert pending is not None
            batch, bad = decode_batch(pending, stacks)
            self.bad += bad
            for index, ev in inserted:      # ascending, as sent
                batch.insert(index, ev)
            self.added += len(inserted)
            inserted.clear()
            self.unnamed_stacks = join.unnamed
            return batch

        with open(self.path, "rb") as f:
            for frame, payload in self._frames(f, read_kinds=kinds):
                if payload is None:
                    continue
                try:
                    if frame.kind == KIND_ANNOTATIONS:
                        if pending is not None:
                            inserted.extend(dec_inserted.decode(payload))
                        continue
                    if frame.kind == KIND_STACKS:
                        join.add(dec_stacks.decode(payload))
                        continue
                    if pending is not None:
                        yield flush()
                        pending = None
                    if frame.kind == KIND_RECORDS:
                        pending = dec_records.decode(payload)
                    elif frame.kind == KIND_EVENTS:
                        batch = dec_events.decode(payload)
                        self.added += len(batch)
                        yield batch
                    else:
                        yield dec_lost.decode(payload)
                except msgspec.DecodeError as e:
                    raise RecordingError(
                        f"{self.path}: the {_KIND_NAMES[frame.kind]} frame at byte "
                        f"{frame.offset} is corrupt: {e}") from None
        if pending is not None:
            yield flush()

    def syscall_table(self) -> SyscallTable:
        """The native syscall table the recording was made with."""
        assert self.header is not None
        return SyscallTable.from_numbers(self.header.arch, self.header.syscalls)

    def compat_table(self) -> SyscallTable | None:
        """The i386 table of an x86_64 recording, else None."""
        assert self.header is not None
        if not self.header.compat_syscalls:
            return None
        return SyscallTable.from_numbers("i386", self.header.compat_syscalls)


class _ReplayReader:
    """One consumer's answers, in the order the live run read them."""

    def __init__(self, answers: _Answers, idle: list[tuple[int, int]],
                 snap: Snapshot | None, fallback: _Answers,
                 real: dict[str, str] | None = None) -> None:
        self._answers = answers
        self._real = real if real is not None else {}
        self._idle = idle
        self._snap = snap
        self._fallback = fallback       # what the session itself read (consumer "session")

    def _next(self, kind: str, key: tuple[int | str, ...]) -> tuple[bool, Any]:
        q = self._answers.get((kind, key))
        if q:
            got = q.popleft() if len(q) > 1 else q[0]   # the last answer stays
            return True, got
        return False, None

    def fd_link(self, tgid: int, fd: int) -> str | None:
        found, got = self._next("fd", (tgid, fd))
        if found:
            return got if isinstance(got, str) else None
        # never asked live (other options): what the process had at attach
        if self._snap is not None:
            return self._snap.fds.get(tgid, {}).get(fd)
        return None

    def cwd(self, tgid: int) -> str | None:
        found, got = self._next("cwd", (tgid,))
        if found:
            return got if isinstance(got, str) else None
        return self._snap.cwds.get(tgid) if self._snap is not None else None

    def realpath(self, path: str) -> str:
        found, got = self._next("realpath", (path,))
        if found and isinstance(got, str):
            return got
        # another consumer's answer (tracekit record's, which decodes nothing itself)
        return self._real.get(path, path)

    def _text(self, kind: str, key: tuple[int | str, ...]) -> str | None:
        found, got = self._next(kind, key)
        return got if found and isinstance(got, str) else None

    def sock_proto(self, tgid: int, fd: int) -> str | None:
        return self._text("proto", (tgid, fd))

    def socket(self, inode: int, proto: str | None) -> str | None:
        return self._text("socket", (inode,))

    def refresh_sockets(self) -> None:
        pass

    def device(self, path: str) -> str | None:
        return self._text("device", (path,))

    def idle_now(self, position: int) -> int:
        raise RuntimeError("a replayed reorder stage follows its schedule")

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        return list(self._idle)

    def reenumeration(self, walk: Callable[[], Reenumerated]) -> Reenumerated | None:
        found, got = self._next("reenumerated", ())
        if not found:
            # a recording made without the stage: the session's own pass after attach
            got = self._fallback.get(("reenumerated", ()))
            got = got[0] if got else None
        return got if isinstance(got, Reenumerated) else None

    def close(self) -> None:
        pass


class ReplayFacts(_Named):
    """The facts of a recording: each consumer gets the answers its namesake of the live
    run read, in order (a question the live run did not ask: the snapshot at attach for
    fds and working directories, the path itself for realpath, unknown for a socket's
    protocol and description and a device's numbers, no idle release)."""

    def __init__(self, recording: Recording) -> None:
        super().__init__()
        header = recording.header
        assert header is not None
        self.wall_offset_ns = header.wall_offset_ns
        self.utc_offset_s: int | None = header.utc_offset_s
        self._snap = recording.snapshot
        self._by_consumer: dict[str, _Answers] = {}
        self._idle: dict[str, list[tuple[int, int]]] = {}
        self._real: dict[str, str] = {}     # every consumer's realpath answers
        for consumer, kind, key, answer in recording.facts:
            if kind == "realpath" and key and isinstance(key[0], str) \
                    and isinstance(answer, str):
                self._real[key[0]] = answer
            if kind == "idle":
                if isinstance(answer, int) and key and isinstance(key[0], int):
                    self._idle.setdefault(consumer, []).append((key[0], answer))
                continue
            table = self._by_consumer.setdefault(consumer, {})
            table.setdefault((kind, tuple(key)), collections.deque()).append(answer)

    def reader(self, consumer: str) -> FactReader:
        name = self._unique(consumer)
        return _ReplayReader(self._by_consumer.get(name, {}), self._idle.get(name, []),
                             self._snap, self._by_consumer.get("session", {}),
                             self._real)


class RecordingSource:
    """A pipeline source over a recording: the live source's batches, in order.

    Args:
      recording: a :class:`Recording` (or a path, opened here).
      interval_s: sleep this long before each batch (0: as fast as the stages take them).

    Attributes (as :class:`~tracekit.session.source.RingBufferSource`'s): ``records``
    (decoded, the annotations put back not counted), ``bad`` (skipped), ``batches``,
    ``lost`` (the Lost counts sent).
    """

    name = "recording"

    def __init__(self, recording: Recording | str | os.PathLike[str], *,
                 interval_s: float = 0.0) -> None:
        self.recording = (recording if isinstance(recording, Recording)
                          else Recording.open(recording))
        self.interval_s = interval_s
        self.records = 0
        self.bad = 0
        self.batches = 0
        self.lost = 0
        self._stop = trio.Event()

    def request_stop(self) -> None:
        """End before the next batch (idempotent)."""
        self._stop.set()

    async def run(self, ctx: Any, send: trio.abc.SendChannel[Batch], *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        rec = self.recording
        seen = 0
        async with send:
            task_status.started()
            for item in rec.batches():
                if self._stop.is_set():
                    break
                if self.interval_s:
                    await trio.sleep(self.interval_s)
                if isinstance(item, Lost):
                    self.lost += item.count
                    await send.send([item])
                    continue
                added = rec.added
                self.records += len(item) - (added - seen)
                seen = added
                self.bad = rec.bad
                if item:
                    self.batches += 1
                    await send.send(item)
                else:
                    await trio.lowlevel.checkpoint()
            self.bad = getattr(rec, "bad", 0)

