"""Property tests: the ring-buffer record decoder on truncated and corrupt records, and the
reorder stage on arbitrary arrival orders.

Decoder contract (tracekit/_events.py): ``decode_record`` returns an event or raises
``RecordError``, nothing else; ``decode_batch`` skips and counts what ``decode_record``
rejects and returns the same events for the rest, except stack records: without the
stack state (``stacks=None``) it passes over them, neither event nor bad (a stack only
belongs to the syscall after it). A corrupt record must never end the session with
another exception.
"""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings, strategies as st

from tracekit._errors import RecordError
from tracekit._events import (
    _CAP,
    _CAPS_HDR,
    _EXEC,
    _EXIT,
    _FORK,
    _SYSCALL,
    REC_EXEC,
    REC_EXIT,
    REC_FORK,
    REC_STACK,
    REC_SYSCALL,
    Lost,
    decode_batch,
    decode_record,
)
from tracekit.pipeline.reorder import Reorder

u32 = st.integers(0, 2**32 - 1)
u64 = st.integers(0, 2**64 - 1)
comm = st.binary(max_size=16)


@st.composite
def syscall_records(draw: st.DrawFn) -> bytes:
    head = _SYSCALL.pack(REC_SYSCALL, draw(u32), draw(u64), draw(u64), draw(u32), draw(u32),
                         draw(u32), draw(st.integers(-2**31, 2**31 - 1)),
                         *draw(st.lists(u64, min_size=6, max_size=6)),
                         draw(st.integers(-2**63, 2**63 - 1)), draw(comm))
    caps = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 15),
                                   st.binary(max_size=40)), max_size=3))
    if not caps and draw(st.booleans()):
        return head
    body = b""
    for arg, kind, flags, data in caps:
        body += _CAP.pack(arg, kind, flags, len(data)) + data + b"\0" * (-len(data) % 8)
    return head + _CAPS_HDR.pack(len(body), len(caps)) + body


@st.composite
def other_records(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from([REC_FORK, REC_EXEC, REC_EXIT]))
    if kind == REC_FORK:
        return _FORK.pack(kind, draw(u32), draw(u64), draw(u32), draw(u32), draw(u32),
                          draw(u32))
    if kind == REC_EXEC:
        return _EXEC.pack(kind, draw(u32), draw(u64), draw(u32), draw(u32), draw(comm),
                          draw(st.binary(max_size=256)))
    return _EXIT.pack(kind, draw(u32), draw(u64), draw(u32), draw(u32),
                      draw(st.integers(-2**31, 2**31 - 1)), draw(u32), draw(comm))


valid_records = st.one_of(syscall_records(), other_records())


@st.composite
def corrupt_records(draw: st.DrawFn) -> bytes:
    """A valid record truncated, with bytes overwritten, or with garbage appended."""
    rec = bytearray(draw(valid_records))
    how = draw(st.sampled_from(["truncate", "flip", "extend", "kind"]))
    if how == "truncate":
        del rec[draw(st.integers(0, len(rec))):]
    elif how == "flip":
        for _ in range(draw(st.integers(1, 8))):
            i = draw(st.integers(0, len(rec) - 1))
            rec[i] = draw(st.integers(0, 255))
    elif how == "extend":
        rec += draw(st.binary(min_size=1, max_size=64))
    else:
        struct.pack_into("<I", rec, 0, draw(u32))
    return bytes(rec)


any_records = st.one_of(valid_records, corrupt_records(), st.binary(max_size=400))


def _decode_or_none(rec: bytes) -> object | None:
    try:
        return decode_record(rec)
    except RecordError:
        return None


_PASSED_OVER = object()


def _batch_oracle(rec: bytes) -> object | None:
    """What decode_batch(..., stacks=None) makes of ``rec``: an event, None (bad), or
    _PASSED_OVER (a stack record, however malformed its body)."""
    if len(rec) >= 16 and struct.unpack_from("<I", rec)[0] == REC_STACK:
        return _PASSED_OVER
    return _decode_or_none(rec)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(valid_records)
def test_valid_records_decode(rec: bytes) -> None:
    ev = decode_record(rec)
    assert decode_batch([rec]) == ([ev], 0)
    assert decode_batch([memoryview(rec)]) == ([ev], 0)


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(any_records)
def test_one_record_decodes_or_raises_record_error(rec: bytes) -> None:
    ev = _decode_or_none(rec)          # anything but RecordError fails the test
    events, bad = decode_batch([rec])
    if _batch_oracle(rec) is _PASSED_OVER:
        assert (events, bad) == ([], 0)
    elif ev is None:
        assert (events, bad) == ([], 1)
    else:
        assert (events, bad) == ([ev], 0)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_records, max_size=20))
def test_batch_skips_and_counts_exactly_the_bad_records(records: list[bytes]) -> None:
    expected = [_batch_oracle(r) for r in records]
    events, bad = decode_batch([memoryview(r) for r in records])
    assert events == [e for e in expected if e is not None and e is not _PASSED_OVER]
    assert bad == expected.count(None)


# --- reorder ------------------------------------------------------------------------------

W = 50_000_000  # the window in ns used below (50 ms)


def _arrivals(calls: list[tuple[int, int]]) -> list[Lost]:
    """Events stamped at entry ts, in the order the calls returned (entry + duration),
    as the ring buffer delivers them; ``count`` is the call's index."""
    order = sorted(range(len(calls)), key=lambda i: (calls[i][0] + calls[i][1], i))
    return [Lost(ts_ns=calls[i][0], count=i) for i in order]


class _Stats:
    def __init__(self) -> None:
        self.counters: dict[str, int] = {}

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] = self.counters.get(key, 0) + n


def _run(reorder: Reorder, events: list[Lost], cuts: list[int], stats: _Stats
         ) -> list[Lost]:
    """Push ``events`` in batches cut at ``cuts``, then flush."""
    out: list[Lost] = []
    bounds = sorted({0, len(events), *(c % (len(events) + 1) for c in cuts)})
    for a, b in zip(bounds, bounds[1:], strict=False):
        out += reorder.push(events[a:b], stats)  # type: ignore[arg-type]
    return out + reorder.flush()  # type: ignore[operator]


calls_st = st.lists(st.tuples(st.integers(1, 10**9), st.integers(0, W - 1)), max_size=200)


@settings(max_examples=300)
@given(calls_st, st.lists(st.integers(0, 400), max_size=30))
def test_reorder_sorts_calls_shorter_than_the_window(calls: list[tuple[int, int]],
                                                    cuts: list[int]) -> None:
    stats = _Stats()
    r = Reorder(window_s=W / 1e9)
    out = _run(r, _arrivals(calls), cuts, stats)
    assert sorted(e.count for e in out) == list(range(len(calls)))
    assert [e.ts_ns for e in out] == sorted(e.ts_ns for e in out)
    assert stats.counters == {} and r.held == 0


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(1, 10**9), st.integers(0, 10**9)), max_size=200),
       st.lists(st.integers(0, 400), max_size=30), st.integers(1, 300))
def test_reorder_any_order_inversions_only_at_late_events(
        calls: list[tuple[int, int]], cuts: list[int], max_events: int) -> None:
    stats = _Stats()
    r = Reorder(window_s=W / 1e9, max_events=max_events)
    out = _run(r, _arrivals(calls), cuts, stats)
    assert sorted(e.count for e in out) == list(range(len(calls)))
    # An event printed with an earlier time than one before it is exactly a late one;
    # with the same window, a call that takes longer than it may be late, a shorter not.
    top, dips = 0, 0
    for e in out:
        if e.ts_ns < top:
            dips += 1
            assert calls[e.count][1] >= W or stats.counters.get("overflow")
        top = max(top, e.ts_ns)
    assert dips == stats.counters.get("late", 0)
    assert r.held == 0


def test_reorder_counts_a_late_event_and_releases_it_at_once() -> None:
    stats = _Stats()
    r = Reorder(window_s=0.05)
    ms = 1_000_000
    assert r.push([Lost(10 * ms, 0), Lost(100 * ms, 1)], stats) == [Lost(10 * ms, 0)]
    # a call that entered at 5 ms returns now: 10 ms was already printed
    assert r.push([Lost(5 * ms, 2), Lost(0, 3), Lost(170 * ms, 4)], stats) == [
        Lost(5 * ms, 2), Lost(0, 3), Lost(100 * ms, 1)]
    assert stats.counters == {"late": 1, "untimed": 1}
    assert r.flush() == [Lost(170 * ms, 4)]
    # nothing held now: an event older than the last one out is still late
    assert r.push([Lost(160 * ms, 5)], stats) == [Lost(160 * ms, 5)]
    assert stats.counters == {"late": 2, "untimed": 1} and r.held == 0


def test_reorder_releases_when_idle_and_bounds_what_it_holds() -> None:
    now = [0]
    r = Reorder(window_s=0.05, max_events=3, clock=lambda: now[0])
    ms = 1_000_000
    assert r.push([Lost(ts * ms, ts) for ts in (4, 2, 3, 1)]) == [Lost(1 * ms, 1)]  # overflow
    assert r.held == 3
    now[0] = 52 * ms
    assert r.release_idle() == [Lost(2 * ms, 2)]
    now[0] = 60 * ms
    assert r.release_idle() == [Lost(3 * ms, 3), Lost(4 * ms, 4)]


async def test_reorder_in_a_pipeline_releases_held_events_when_idle() -> None:
    """Real time: events are held for the window, then released without waiting for the
    next batch once the source is idle; the rest leave in order at the end."""
    import time

    import trio

    from tracekit.pipeline import Pipeline, StageContext

    ms = 1_000_000
    got: list[tuple[float, list[int]]] = []
    second_sent = trio.Event()

    class Source:
        name = "src"

        async def run(self, ctx: StageContext, send: trio.MemorySendChannel,  # type: ignore[type-arg]
                      *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                      ) -> None:
            async with send:
                task_status.started()
                now = time.monotonic_ns()
                await send.send([Lost(now - 3 * ms, 1), Lost(now - 5 * ms, 0)])
                ctx.report_idle()              # as RingBufferSource after an empty read
                await trio.sleep(0.5)          # idle: the held events must come out now
                second_sent.set()
                now = time.monotonic_ns()
                await send.send([Lost(now, 3), Lost(now - 1 * ms, 2)])

    class Sink:
        name = "sink"

        async def run(self, ctx: object, recv: trio.MemoryReceiveChannel  # type: ignore[type-arg]
                      ) -> None:
            async with recv:
                async for batch in recv:
                    got.append((second_sent.is_set(), [e.count for e in batch]))

    await Pipeline(Source(), [Reorder(window_s=0.05)], [Sink()]).run()  # type: ignore[list-item]
    assert got == [(False, [0, 1]), (True, [2, 3])]


def test_ip_only_stack_record_gives_its_call_the_ip() -> None:
    """strace -i alone: a 72-byte stack record (STACK_IP_ONLY: the header, then the one
    frame where top would start) before the call's record gives the call its ``ip``,
    no stack; one of another entry time is dropped and counted; a cut one is bad."""
    from tracekit._events import _SYSCALL, REC_SYSCALL, STACK_IP_ONLY, Stacks

    def call(ts: int) -> bytes:
        return _SYSCALL.pack(REC_SYSCALL, 0, ts, 5, 77, 77, 0, 110, 0, 0, 0, 0, 0, 0, 7,
                             b"t\0")

    def ip_rec(ts: int, ip: int) -> bytes:
        return (struct.pack("<IIQII", REC_STACK, STACK_IP_ONLY, ts, 77, 77)
                + struct.pack("<IIQQQII", 1, 0, 0, 0, 0, 0, 0) + struct.pack("<Q", ip))

    stacks = Stacks()
    assert len(ip_rec(1, 2)) == 72
    events, bad = decode_batch([ip_rec(1000, 0x4315E9), call(1000), call(2000)], stacks)
    assert bad == 0
    assert [(e.ip, e.stack) for e in events] == [(0x4315E9, ()), (0, ())]  # type: ignore[union-attr]
    events, bad = decode_batch([ip_rec(3000, 0x1), call(4000)], stacks)
    assert events[0].ip == 0 and stacks.unmatched == 1  # type: ignore[union-attr]
    assert decode_batch([ip_rec(1, 2)[:70]], stacks) == ([], 1)
