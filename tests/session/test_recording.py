"""The recording format without a kernel: frames written and read back, a file cut at
every byte, facts replayed per consumer, the reorder stage's idle releases replayed."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

from tracekit._events import (
    REC_SYSCALL,
    FdSnapshot,
    FdTargets,
    Lost,
    Reenumerated,
    Syscall,
    decode_batch,
)
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.facts import LiveFacts
from tracekit.pipeline.reorder import Reorder
from tracekit.session.recording import (
    FORMAT_VERSION,
    KIND_END,
    MAGIC,
    End,
    Header,
    Recorder,
    Recording,
    RecordingError,
    ReplayFacts,
    Snapshot,
)

_SYSCALL = struct.Struct("<IIQQIIIi6Qq16s")


def raw_syscall(ts_ns: int, tid: int = 100, nr: int = 39, ret: int = 7) -> bytes:
    return _SYSCALL.pack(REC_SYSCALL, 0, ts_ns, 1000, tid, tid, 0, nr, 0, 0, 0, 0, 0, 0, ret,
                         b"work\0")


def header(version: int = FORMAT_VERSION) -> Header:
    return Header(format_version=version, tracekit_version="0", created_ns=1, hostname="h",
                  kernel_release="6.18", machine="x86_64", arch="x86_64", wall_offset_ns=5,
                  boottime_offset_ns=0, utc_offset_s=3600, syscalls={"getpid": 39},
                  compat_syscalls={}, syscall_args={"getpid": []}, capture_layout={},
                  target={"command": ["x"]}, selection={"syscalls": None},
                  buffer_bytes=4096, kernel_summary=False)


class _Live:
    """A reader of fixed answers (stands for /proc in these tests)."""

    def fd_link(self, tgid: int, fd: int) -> str | None:
        return f"/f/{tgid}/{fd}"

    def cwd(self, tgid: int) -> str | None:
        return "/cwd"

    def realpath(self, path: str) -> str:
        return "/real" + path

    def sock_proto(self, tgid: int, fd: int) -> str | None:
        return "TCP"

    def socket(self, inode: int, proto: str | None) -> str | None:
        return f"{proto}:[127.0.0.1:{inode}]"

    def refresh_sockets(self) -> None:
        pass

    def device(self, path: str) -> str | None:
        return "char 1:3" if path == "/dev/null" else None

    def idle_now(self, position: int) -> int:
        return 10_000_000_000 + position

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        return None

    def close(self) -> None:
        pass


class _FixedFacts(LiveFacts):
    def reader(self, consumer: str) -> _Live:  # type: ignore[override]
        return _Live()


def write_recording(path: Path, *, compress: bool = True) -> list[list[bytes]]:
    drains = [[raw_syscall(1000 + i * 10 + j) for j in range(50)] for i in range(4)]
    with open(path, "wb") as f:
        rec = Recorder(f, header(), compress=compress, facts=_FixedFacts())
        rec._write(2, Snapshot(ts_ns=1, tasks=[(100, 100, "work")], fds={100: {3: "/a"}}))
        reader = rec.facts.reader("decoder")
        rec.records(drains[0])
        assert reader.fd_link(100, 4) == "/f/100/4"
        assert reader.fd_link(100, 4) == "/f/100/4"
        rec.records(drains[1])
        rec.lost(Lost(ts_ns=5, count=3))
        rec.records(drains[2])
        rec.records(drains[3])
        rec.facts.reader("decoder").cwd(7)          # a second consumer: decoder#2
        rec.close(End(ts_ns=9, records=200, lost=3, returncode=0))
    return drains


@pytest.mark.parametrize("compress", [True, False])
def test_frames_read_back(tmp_path: Path, compress: bool) -> None:
    path = tmp_path / "r.tkrec"
    drains = write_recording(path, compress=compress)
    rec = Recording.open(path)
    assert rec.stopped is None and rec.end is not None and rec.end.returncode == 0
    assert rec.header == header()
    assert rec.snapshot is not None and rec.snapshot.fds == {100: {3: "/a"}}
    items = list(rec.batches())
    expected: list[object] = [decode_batch(drains[0])[0], decode_batch(drains[1])[0],
                              Lost(ts_ns=5, count=3), decode_batch(drains[2])[0],
                              decode_batch(drains[3])[0]]
    assert items == expected
    assert rec.syscall_table().name(39) == "getpid"


def test_compressed_is_smaller(tmp_path: Path) -> None:
    write_recording(tmp_path / "z", compress=True)
    write_recording(tmp_path / "n", compress=False)
    assert (tmp_path / "z").stat().st_size * 3 < (tmp_path / "n").stat().st_size


def test_cut_at_every_byte(tmp_path: Path) -> None:
    """A file cut anywhere (a recorder killed mid-write) reads as the frames before the
    cut, and says where it stops; cut inside the header it is an error."""
    path = tmp_path / "r.tkrec"
    write_recording(path)
    data = path.read_bytes()
    cut = tmp_path / "cut"
    first_frame_end = len(MAGIC) + 6 + struct.unpack_from("<I", data, len(MAGIC))[0]
    seen_counts = []
    for n in range(len(data)):
        cut.write_bytes(data[:n])
        if n < first_frame_end:
            with pytest.raises(RecordingError):
                Recording.open(cut)
            continue
        rec = Recording.open(cut)
        assert rec.stopped is not None and rec.end is None
        events = [ev for b in rec.batches() if isinstance(b, list) for ev in b]
        assert all(isinstance(ev, Syscall) for ev in events)
        seen_counts.append(len(events))
    assert seen_counts == sorted(seen_counts) and seen_counts[-1] == 200


def _frame_offsets(data: bytes) -> list[tuple[int, int, int, int]]:
    """(offset, kind, codec, size) of each frame of a whole recording."""
    out, pos = [], len(MAGIC)
    while pos < len(data):
        size, kind, codec = struct.unpack_from("<IBB", data, pos)
        out.append((pos, kind, codec, size))
        pos += 6 + size
    return out


def _damaged(data: bytes) -> list[tuple[str, int, int, bytes]]:
    """(what, frame number, its offset, the damaged file) for each way of damaging a
    RECORDS frame in the middle of ``data`` and its header frame."""
    frames = _frame_offsets(data)
    number, (at, _, codec, size) = [(i + 1, f) for i, f in enumerate(frames) if f[1] == 3][1]
    out = []
    for k in (6, 6 + 4, 6 + size // 2, 6 + size - 1):      # its CRC, first, middle, last
        bad = bytearray(data)
        bad[at + k] ^= 0x01
        out.append((f"bit flipped at +{k}", number, at, bytes(bad)))
    for delta in (1, -1, 64, -64):
        bad = bytearray(data)
        struct.pack_into("<I", bad, at, size + delta)
        out.append((f"length {delta:+}", number, at, bytes(bad)))
    bad = bytearray(data)
    struct.pack_into("<I", bad, at, 0xFFFF_FFF0)
    out.append(("length 2**32-16", number, at, bytes(bad)))
    bad = bytearray(data)
    bad[at + 5] = codec & 0x7F                          # its checksum flag lost
    out.append(("no checksum", number, at, bytes(bad)))
    bad = bytearray(data)
    bad[len(MAGIC) + 6 + 20] ^= 0x40                    # in the header's payload
    out.append(("header bit", 1, len(MAGIC), bytes(bad)))
    return out


@pytest.mark.parametrize("compress", [True, False])
def test_a_damaged_frame_is_one_error_naming_file_frame_and_byte(tmp_path: Path,
                                                                 compress: bool) -> None:
    """Format 4: every frame carries a CRC-32 of its payload. A byte flipped inside a
    frame, a wrong length or a lost checksum flag is a RecordingError when the recording
    is opened (before any replay: no output cut short), naming the file, the frame and
    its offset. Before format 4 a flipped byte of an uncompressed frame replayed as other
    calls, silently, and a bad length as a recording cut short (status 0)."""
    path = tmp_path / "r.tkrec"
    write_recording(path, compress=compress)
    data = path.read_bytes()
    bad = tmp_path / "bad.tkrec"
    for what, number, at, damaged in _damaged(data):
        bad.write_bytes(damaged)
        with pytest.raises(RecordingError) as ei:
            Recording.open(bad)
        text = str(ei.value)
        assert text.startswith(f"{bad}: frame {number} ("), (what, text)
        assert f") at byte {at} is corrupt: " in text, (what, text)
        assert "\n" not in text, what


def test_older_formats_without_checksums_still_read(tmp_path: Path) -> None:
    """A format 3 recording (frames without checksums) reads as before; one whose
    header says format 4 but whose frames have none is damaged."""
    path = tmp_path / "r.tkrec"
    drains = write_recording(path)
    old = tmp_path / "v3.tkrec"
    _rewrite(path, old, version=3)
    rec = Recording.open(old)
    assert rec.stopped is None and rec.header is not None
    assert rec.header.format_version == 3
    items = [b for b in rec.batches() if isinstance(b, list)]
    assert items == [decode_batch(d)[0] for d in drains]
    _rewrite(path, old, version=4)
    with pytest.raises(RecordingError, match=r"frame 1 \(header\) at byte 8 is corrupt: it "
                                             r"has no checksum \(codec 0x0; every frame of "
                                             r"format 4 has one\)$"):
        Recording.open(old)


def test_end_frame_is_last(tmp_path: Path) -> None:
    path = tmp_path / "r.tkrec"
    write_recording(path)
    data = path.read_bytes()
    pos, kinds = len(MAGIC), []
    while pos < len(data):
        size, kind, _ = struct.unpack_from("<IBB", data, pos)
        kinds.append(kind)
        pos += 6 + size
    assert pos == len(data) and kinds[-1] == KIND_END and kinds.count(KIND_END) == 1


def test_not_a_recording(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x89tkrec\r")
    with pytest.raises(RecordingError, match="not a tracekit recording"):
        Recording.open(bad)


def test_newer_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new"
    h = header()
    h.format_version = 99
    with open(path, "wb") as f:
        Recorder(f, h, facts=_FixedFacts())
    with pytest.raises(RecordingError, match="recording format 99; this tracekit reads "
                                             f"format {FORMAT_VERSION} and older"):
        Recording.open(path)


def test_replay_facts_per_consumer(tmp_path: Path) -> None:
    path = tmp_path / "r.tkrec"
    write_recording(path)
    facts = ReplayFacts(Recording.open(path))
    assert facts.wall_offset_ns == 5 and facts.utc_offset_s == 3600
    first = facts.reader("decoder")
    second = facts.reader("decoder")        # decoder#2: only a cwd was asked of it
    assert first.fd_link(100, 4) == "/f/100/4"
    assert first.fd_link(100, 4) == "/f/100/4"   # asked twice live: both answers
    assert first.fd_link(100, 3) == "/a"    # never asked live: the snapshot's
    assert first.fd_link(100, 9) is None
    assert second.cwd(7) == "/cwd"
    assert second.fd_link(100, 4) is None   # decoder#2 never asked it: the snapshot's
    assert facts.reader("path").realpath("/x") == "/x"     # not asked live: as given


def _ev(ts: int) -> Syscall:
    return Syscall(ts, 0, 1, 1, 0, 39, (0,) * 6, 0, "c")


def test_reorder_idle_releases_replay_exactly() -> None:
    """A live reorder stage's idle releases, written down through its facts reader, give
    a replayed one the same output at the same places (events arriving late included)."""
    log: list[tuple[int, int]] = []
    clock = iter([200_000_000, 400_000_000]).__next__

    class Logging(_Live):
        def idle_now(self, position: int) -> int:
            now = clock()
            log.append((position, now))
            return now

    batches = [[_ev(100_000_000), _ev(110_000_000)], [_ev(120_000_000), _ev(90_000_000)],
               [_ev(300_000_000), _ev(130_000_000)], [_ev(310_000_000)]]
    live = Reorder(facts=Logging())
    out_live = [live.push(batches[0]), live.release_idle(), live.push(batches[1]),
                live.push(batches[2]), live.release_idle(), live.push(batches[3]),
                live.flush()]

    class Replay(_Live):
        def idle_schedule(self) -> list[tuple[int, int]] | None:
            return list(log)

    replay = Reorder(facts=Replay())
    out_replay = [replay.push(b) for b in batches] + [replay.flush()]
    flat = [e.ts_ns for b in out_live for e in b]
    assert flat == [e.ts_ns for b in out_replay for e in b]
    # the idle release made 130 ms arrive late, after 310's predecessors: not sorted
    assert flat != sorted(flat)


def test_reorder_replay_without_the_reenumerated_record_releases_at_the_same_places(
        ) -> None:
    """A reenumerate stage's record comes first; a recording of an older format lacks it.
    It is not counted in an idle release's position, so the replay without it releases
    at the same places (it counted, and an older recording's replay then released one
    event late: a JSON Lines line out of place, seen under load)."""
    log: list[tuple[int, int]] = []
    clock = iter([200_000_000]).__next__

    class Logging(_Live):
        def idle_now(self, position: int) -> int:
            now = clock()
            log.append((position, now))
            return now

    reen = Reenumerated(ts_ns=50_000_000, added=(7,), not_added=0, gone=0)
    batches = [[_ev(100_000_000), _ev(110_000_000)], [_ev(120_000_000), _ev(105_000_000)],
               [_ev(310_000_000)]]
    live = Reorder(facts=Logging())
    out_live = [live.push([reen]), live.push(batches[0]), live.release_idle(),
                live.push(batches[1]), live.push(batches[2]), live.flush()]

    class Replay(_Live):
        def idle_schedule(self) -> list[tuple[int, int]] | None:
            return list(log)

    old = Reorder(facts=Replay())
    out_old = [old.push(b) for b in batches] + [old.flush()]
    assert [e for b in out_live for e in b if e is not reen] == [e for b in out_old for e in b]


def test_recorder_stream_is_written_whole_per_frame() -> None:
    buf = io.BytesIO()
    rec = Recorder(buf, header(), facts=_FixedFacts())
    n = len(buf.getvalue())
    rec.records([raw_syscall(1)])
    assert len(buf.getvalue()) > n and rec.frames == 2


def test_events_and_annotations_come_back_where_the_source_sent_them(tmp_path: Path) -> None:
    """The FdSnapshot batch and the FdTargets the source put into a drain's batch (the
    EVENTS and ANNOTATIONS frames) replay as the same batches, in the same places, even
    with a facts frame between a drain and its annotations."""
    snap = FdSnapshot(1, 100, ((3, "/a"), (4, "socket:[77]")), "/w",
                      ((77, "TCP:[127.0.0.1:1->127.0.0.1:2]"),))
    drains = [[raw_syscall(1000 + j) for j in range(4)], [raw_syscall(2000)],
              [raw_syscall(3000 + j) for j in range(3)]]
    t0 = FdTargets(1000, 100, 100, ((5, "pipe:[9]"),))
    t2 = FdTargets(1002, 100, 100, ((6, "socket:[78]"),), ((78, "UNIX-STREAM:[78->79]"),))
    t9 = FdTargets(3002, 100, 100, ((7, "/dev/null"),))
    path = tmp_path / "e.tkrec"
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=_FixedFacts())
        rec.events([snap])
        rec.records(drains[0])
        rec.facts.reader("decoder").fd_link(100, 8)      # a FACTS frame comes between
        rec.annotations([(0, t0), (3, t2)])
        rec.records(drains[1])
        rec.lost(Lost(ts_ns=5, count=1))
        rec.records(drains[2])
        rec.annotations([(3, t9)])
        rec.close(End(ts_ns=9, records=8, lost=1))
    recording = Recording.open(path)
    items = list(recording.batches())
    first = decode_batch(drains[0])[0]
    first.insert(0, t0)
    first.insert(3, t2)
    last = decode_batch(drains[2])[0] + [t9]
    assert items == [[snap], first, decode_batch(drains[1])[0], Lost(ts_ns=5, count=1), last]
    assert recording.added == 4


def test_fd_facts_replay_what_the_decoder_printed(tmp_path: Path) -> None:
    """A socket's protocol and sock_diag text and a device's numbers, read live through an
    fd cache's facts reader, are what the replayed fd cache prints, and nothing is read
    from the system at replay (the tgid and paths exist nowhere here)."""
    class Sockets(_Live):
        def fd_link(self, tgid: int, fd: int) -> str | None:
            return f"socket:[{fd}]"

    class SocketFacts(LiveFacts):
        def reader(self, consumer: str) -> Sockets:  # type: ignore[override]
            return Sockets()

    path = tmp_path / "s.tkrec"
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=SocketFacts())
        live = FdCache("/nonexistent", facts=rec.facts.reader("decoder"))
        live.set(100, 1, "/dev/null")
        texts = [live.text(100, 1), live.text(100, 5)]
        live.set(100, 2, "/dev/nope")
        texts.append(live.text(100, 2))
        rec.close(End(ts_ns=9, records=0, lost=0))
    assert texts == ["</dev/null<char 1:3>>", "<TCP:[127.0.0.1:5]>", "</dev/nope>"]
    replay = FdCache("/nonexistent", facts=ReplayFacts(Recording.open(path)).reader("decoder"))
    replay.set(100, 1, "/dev/null")
    got = [replay.text(100, 1)]
    # fd 5 was read live (an fd link, its protocol, its socket text): all replayed
    got.append(replay.text(100, 5))
    replay.set(100, 2, "/dev/nope")
    got.append(replay.text(100, 2))
    assert got == texts
    # never asked live: unknown (no device numbers, the socket as strace's fallback)
    replay.set(100, 9, "/dev/zero")
    replay.set(100, 10, "socket:[42]")
    assert replay.text(100, 9) == "</dev/zero>"
    assert replay.text(100, 10) == "<socket:[42]>"


def test_a_format_1_recording_replays_with_one_warning(tmp_path: Path) -> None:
    """A recording of format 1 (no EVENTS or ANNOTATIONS frames, no socket or device
    answers) replays, and the replay says in one line that fds may print with less."""
    from tests._run import run_tracekit

    path = tmp_path / "old.tkrec"
    with open(path, "wb") as f:
        rec = Recorder(f, header(version=1), facts=_FixedFacts())
        rec.records([raw_syscall(1000), raw_syscall(2000)])
        rec.close(End(ts_ns=9, records=2, lost=0, returncode=0))
    out = tmp_path / "out.txt"
    r = run_tracekit(["replay", str(path), "--format", "strace", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert out.read_text().count("getpid()") == 2
    warnings = [ln for ln in r.stderr.splitlines() if "recording format 1" in ln]
    assert len(warnings) == 1 and "fds may print with less" in warnings[0], r.stderr


# -- the reenumerate stage's record and named stacks (format 3) -----------------------------

def test_reenumeration_is_recorded_and_replayed(tmp_path: Path) -> None:
    """Live, the stage's pass runs and its record is written down; a replay gives that
    record back without a pass (there is no pids map to walk)."""
    from tracekit._events import Reenumerated

    made = Reenumerated(ts_ns=77, added=(101, 102), not_added=1, gone=2)
    walks: list[int] = []

    def walk() -> Reenumerated:
        walks.append(1)
        return made

    path = tmp_path / "r.tkrec"
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=LiveFacts())
        assert rec.facts.reader("reenumerate").reenumeration(walk) == made
        rec.records([raw_syscall(1000)])
        rec.close(End(ts_ns=9, records=1, lost=0))
    assert walks == [1]

    def no_walk() -> Reenumerated:
        raise AssertionError("a replay walks nothing")

    replay = ReplayFacts(Recording.open(path))
    assert replay.reader("reenumerate").reenumeration(no_walk) == made
    # a second stage of the kind ran nothing live: nothing to give
    assert replay.reader("reenumerate").reenumeration(no_walk) is None


class _Session:
    """What Recorder.attached reads of a session (a pid target's pass after attach)."""

    def __init__(self, reenumerated: object) -> None:
        from types import SimpleNamespace

        self.reenumerated = reenumerated
        self.opts = SimpleNamespace(system_wide=False, cgroup=None)
        self.self_tgid = -1

    def pid_entries(self) -> dict[int, object]:
        return {}


def test_a_recording_without_the_stage_gives_the_sessions_pass(tmp_path: Path) -> None:
    """``tracekit record`` runs no stages: a replay's reenumerate stage gets the session's
    own /proc pass after attach, which the recorder wrote down at attach."""
    from tracekit._events import Reenumerated

    passed = Reenumerated(ts_ns=5, added=(300,), not_added=0, gone=1)
    path = tmp_path / "r.tkrec"
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=LiveFacts())
        rec.attached(_Session(passed))
        rec.close(End(ts_ns=9, records=0, lost=0))
    got = ReplayFacts(Recording.open(path)).reader("reenumerate").reenumeration(
        lambda: Reenumerated(ts_ns=0, added=(), not_added=0, gone=0))
    assert got == passed
    # a command target has no such pass: nothing recorded, nothing given
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=LiveFacts())
        rec.attached(_Session(None))
        rec.close(End(ts_ns=9, records=0, lost=0))
    assert ReplayFacts(Recording.open(path)).reader("reenumerate").reenumeration(
        lambda: passed) is None


_STACK_REC = struct.Struct(f"<IIQIIIIQQQII{1024}s")     # struct tk_stack (programs/syscalls.h)


def raw_stack(ts_ns: int, tid: int, user: tuple[int, ...]) -> bytes:
    from tracekit._events import REC_STACK

    return (_STACK_REC.pack(REC_STACK, 0, ts_ns, tid, tid, len(user), 0, 0x7000, 0x7100, 0,
                            0, 0, b"") + struct.pack(f"<{len(user)}Q", *user))


class _Namer:
    """Names each address as the live symbolizer would (stands for maps and ELF files)."""

    map_nrs: frozenset[int] = frozenset()

    def frames(self, raw: object) -> tuple[object, ...]:
        from tracekit._events import Frame

        return tuple(Frame(ip, False, "/usr/bin/work", ip - 0x1000, f"fn_{ip:x}", 4)
                     for ip in raw.user)  # type: ignore[attr-defined]

    def exec(self, ev: object) -> None:
        pass

    def mapped(self, ev: object) -> None:
        pass


def test_named_stacks_replay_with_their_names(tmp_path: Path) -> None:
    """The frames the live source named are written after the drain they were named in
    (a stack record in one drain, its call in the next, too) and a replay gives each call
    the same frames, with no maps or files to read; stripped of them (format 2), the
    stacks replay as addresses and are counted."""
    from tracekit._events import Frame, Stacks

    drains = [[raw_stack(1000, 100, (0x1010, 0x1020)), raw_syscall(1000)],
              [raw_stack(2000, 100, (0x1030,))],
              [raw_syscall(2000), raw_syscall(3000)]]
    path = tmp_path / "s.tkrec"
    live: list[list[object]] = []
    with open(path, "wb") as f:
        rec = Recorder(f, header(), facts=LiveFacts())
        stacks = Stacks(rec.stacks(_Namer()))
        for d in drains:
            rec.records(d)
            batch, bad = decode_batch(d, stacks)
            assert bad == 0
            if batch:
                live.append(batch)
        rec.close(End(ts_ns=9, records=3, lost=0))
    named = [ev.stack for b in live for ev in b if isinstance(ev, Syscall)]
    assert named[0] == (Frame(0x1010, False, "/usr/bin/work", 0x10, "fn_1010", 4),
                        Frame(0x1020, False, "/usr/bin/work", 0x20, "fn_1020", 4))
    assert named[1][0].symbol == "fn_1030" and named[2] == ()
    recording = Recording.open(path)
    assert [b for b in recording.batches() if b] == live     # a drain of a stack only: empty
    assert recording.unnamed_stacks == 0
    # the same file without its STACKS frames, as a format 2 recorder wrote it
    old = tmp_path / "old.tkrec"
    _rewrite(path, old, version=2, drop_kind=10)
    recording = Recording.open(old)
    replayed = [ev for b in recording.batches() if isinstance(b, list) for ev in b]
    assert [ev.stack for ev in replayed if isinstance(ev, Syscall)] == [
        (Frame(0x1010), Frame(0x1020)), (Frame(0x1030),), ()]
    assert recording.unnamed_stacks == 2


def _rewrite(src: Path, dst: Path, *, version: int, drop_kind: int | None = None) -> None:
    """Copy a recording frame by frame, without frames of ``drop_kind``, its header's
    format version set to ``version``, its frames as an older recorder wrote them (before
    format 4: no checksum, codec 0)."""
    import msgspec

    from tracekit.session.recording import KIND_HEADER

    with open(dst, "wb") as f:
        f.write(MAGIC)
        for kind, payload in Recording(src).payloads():
            if kind == drop_kind:
                continue
            obj = msgspec.msgpack.decode(payload)
            if kind == KIND_HEADER:
                obj["format_version"] = version
            body = msgspec.msgpack.encode(obj)
            f.write(struct.pack("<IBB", len(body), kind, 0) + body)
