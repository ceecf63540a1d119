"""decode_batch against decode_record: the fast path gives the same events, skips and
counts the same bad records, and shares memoised comms and captures without mixing them."""

from __future__ import annotations

import random

from tracekit import _events as E
from tracekit._errors import RecordError
from tracekit._events import (
    _CAP,
    _CAPS_HDR,
    _EXEC,
    _EXIT,
    _FORK,
    _SYSCALL,
    CAP_BUF,
    CAP_STR,
    CAPF_TRUNC,
    REC_EXEC,
    REC_EXIT,
    REC_FORK,
    REC_SYSCALL,
    Capture,
    Syscall,
    decode_batch,
    decode_record,
)


def syscall_rec(nr: int, ret: int, comm: bytes, caps: list[tuple[int, int, int, bytes]] = (),
                ts: int = 1, flags: int = 0) -> bytes:
    head = _SYSCALL.pack(REC_SYSCALL, flags, ts, 300, 7, 7, 1, nr, 1, 2, 3, 4, 5, 2**64 - 1,
                         ret, comm)
    if not caps:
        return head
    body = b"".join(_CAP.pack(a, k, f, len(d)) + d + bytes(-len(d) % 8) for a, k, f, d in caps)
    return head + _CAPS_HDR.pack(len(body), len(caps)) + body


def reference(records: list[bytes]) -> tuple[list[object], int]:
    out, bad = [], 0
    for r in records:
        try:
            out.append(decode_record(r))
        except RecordError:
            bad += 1
    return out, bad


def test_every_kind_and_bad_records_as_decode_record() -> None:
    recs = [
        syscall_rec(257, 3, b"cat\0\0\0", [(1, CAP_STR, 0, b"/etc/passwd")], ts=5, flags=8),
        syscall_rec(0, 12, b"cat", [(1, CAP_BUF, CAPF_TRUNC, b"hello\n"),
                                    (0, CAP_STR, 0, b"")]),
        syscall_rec(3, 0, b"\xffbad-utf8"),
        _FORK.pack(REC_FORK, 0, 9, 1, 1, 2, 2),
        _EXEC.pack(REC_EXEC, 0, 10, 2, 3, b"ls", b"/bin/ls"),
        _EXIT.pack(REC_EXIT, 0, 11, 2, 2, 256, 1, b"ls"),
        b"\x01\x00\x00\x00" + bytes(40),                          # syscall record cut short
        syscall_rec(1, 0, b"x") + b"\x08",                      # captures header cut
        syscall_rec(1, 0, b"x") + _CAPS_HDR.pack(64, 1) + bytes(8),  # caps overrun
        (99).to_bytes(4, "little") + bytes(60),                   # unknown kind
        b"\x01",                                                  # shorter than a header
    ]
    got, bad = decode_batch(recs)
    want, want_bad = reference(recs)
    assert got == want and bad == want_bad == 5
    assert [type(e).__name__ for e in got] == ["Syscall"] * 3 + ["Fork", "Exec", "Exit"]
    assert got[0].comm == "cat" and got[0].flags == 8
    assert got[1].caps == (Capture(1, CAP_BUF, CAPF_TRUNC, b"hello\n"), Capture(0, CAP_STR, 0, b""))


def test_memoised_comms_and_caps_stay_per_record() -> None:
    rnd = random.Random(4)
    paths = [b"/a", b"/b/c", b"/" + b"x" * 300, b"rel"]
    comms = [b"a", b"bb", b"cat", b"\xc3\xa9t\xe9"]
    recs = []
    for i in range(3000):
        caps = [(rnd.randrange(6), rnd.choice((CAP_STR, CAP_BUF)), rnd.choice((0, CAPF_TRUNC)),
                 rnd.choice(paths)) for _ in range(rnd.randrange(3))]
        recs.append(syscall_rec(rnd.randrange(400), rnd.randrange(-4095, 100),
                                rnd.choice(comms), caps, ts=i, flags=rnd.randrange(16)))
    got, bad = decode_batch(recs)
    assert (got, bad) == reference(recs)
    assert len({e.ts_ns for e in got}) == 3000        # each record its own event
    # repeated captures share one value (that is the memo), and equal ones compare equal
    by_tail = {}
    for r, ev in zip(recs, got, strict=True):
        assert isinstance(ev, Syscall)
        by_tail.setdefault(r[_SYSCALL.size:], ev.caps)
        assert by_tail[r[_SYSCALL.size:]] is ev.caps


def test_records_repeated_but_for_their_times_and_flags_decode_as_each_alone(
        monkeypatch) -> None:
    """The shapes memo (a record's bytes after its times -> its fields): repeats get their
    own times and flags and share the rest; a record one byte apart is its own; a drain
    that mostly misses rests the memo for a few drains, with the same events."""
    monkeypatch.setattr(E, "_shapes", {})
    monkeypatch.setattr(E, "_shape_rest", [0])
    one = [(1, CAP_STR, 0, b"/dev/null")]
    recs = [syscall_rec(257, 3, b"loop", one, ts=i, flags=i % 3) for i in range(6)]
    recs.insert(3, syscall_rec(257, 4, b"loop", one, ts=9))         # another return
    recs.insert(4, syscall_rec(257, 3, b"loop", [(1, CAP_STR, 0, b"/dev/nulL")], ts=9))
    recs.append(recs[0][:-1])                                        # cut short: bad
    for records in (recs, [memoryview(bytearray(r)) for r in recs]):
        got, bad = decode_batch(records)
        assert (got, bad) == reference(recs) and bad == 1
        assert [e.flags for e in got] == [0, 1, 2, 0, 0, 0, 1, 2]
        assert got[0].args is got[5].args and got[0].caps is got[7].caps
    unique = [syscall_rec(i, 0, b"x", ts=i) for i in range(40)]
    assert decode_batch(unique) == reference(unique)
    assert E._shape_rest == [E._SHAPE_REST]                         # mostly missed
    for _ in range(E._SHAPE_REST + 1):
        assert decode_batch(recs) == reference(recs)
    assert E._shape_rest == [0]


def test_memos_are_bounded(monkeypatch) -> None:
    monkeypatch.setattr(E, "_MEMO_MAX", 8)
    monkeypatch.setattr(E, "_shapes", {})           # not what earlier tests left in it
    monkeypatch.setattr(E, "_shape_rest", [0])
    recs = [syscall_rec(1, 0, b"c%d" % (i % 20), [(0, CAP_STR, 0, b"/p%d" % i)], ts=i)
            for i in range(100)]
    got, bad = decode_batch(recs)
    assert (got, bad) == reference(recs)
    assert len(E._comms) <= 8 and len(E._caps) <= 8 and len(E._shapes) <= 8
