"""RingBuf against records written by real BPF progs (driven with BPF_PROG_TEST_RUN)."""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

import pytest
import trio

from tracekit._errors import MapError
from tracekit.bpf import sys as _bpf
from tracekit.bpf.ringbuf import RingBuf
from tracekit.bpf.uapi import ENOTSUPP, MapType, ProgType

from . import _insns as I

pytestmark = pytest.mark.kernel

REC = struct.Struct("=QQ")   # the test progs' 16-byte record: seq, tag
PACKET = bytes(64)           # SOCKET_FILTER test-run input (>= an Ethernet header)


@dataclass
class Writer:
    counter_fd: int   # ARRAY map, one u64: runs so far
    ringbuf_fd: int
    prog_fd: int
    max_entries: int

    def run(self, repeat: int) -> None:
        _bpf.prog_test_run(self.prog_fd, data_in=PACKET, repeat=repeat)

    def runs(self) -> int:
        raw = _bpf.map_lookup_elem(self.counter_fd, bytes(4), 8)
        assert raw is not None
        return struct.unpack("=Q", raw)[0]


def open_writer(fds: list[int], max_entries: int, *, discard_odd: bool = False) -> Writer:
    counter = _bpf.map_create(MapType.ARRAY, 4, 8, 1, name="tk_counter")
    fds.append(counter)
    ringbuf = _bpf.map_create(MapType.RINGBUF, 0, 0, max_entries, name="tk_events")
    fds.append(ringbuf)
    make = I.ringbuf_reserve_prog if discard_odd else I.ringbuf_output_prog
    prog = _bpf.prog_load(ProgType.SOCKET_FILTER, make(counter, ringbuf), name="tk_writer")
    fds.append(prog)
    return Writer(counter, ringbuf, prog, max_entries)



def seqs(records: list[bytes]) -> list[int]:
    out = []
    for rec in records:
        assert len(rec) == REC.size
        seq, tag = REC.unpack(rec)
        if tag != 0x5EED:     # the reserve prog writes {seq, seq}
            assert tag == seq
        out.append(seq)
    return out


async def test_async_reader_gets_n_records_in_order(fds: list[int]) -> None:
    n = 20_000
    w = open_writer(fds, 1 << 20)   # 1 MiB holds all n 24-byte records: none may be lost
    got: list[int] = []
    with RingBuf(w.ringbuf_fd, w.max_entries) as rb, trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, w.run, n)
            async for batch in rb:
                got += seqs(batch)
                if len(got) >= n:
                    break
        assert rb.pending_bytes() == 0
        assert rb.consume() == []
    assert got == list(range(1, n + 1))
    assert w.runs() == n   # the kernel's own count of prog runs


async def test_small_ring_wraps_around_many_times(fds: list[int]) -> None:
    """A one-page ring: 3000 records of 24 bytes wrap it ~17 times; records that straddle
    the end are read whole through the double mapping."""
    n, chunk = 3000, 100            # 100 records = 2400 bytes < 4096: a chunk always fits
    w = open_writer(fds, 4096)
    got: list[int] = []
    progress = trio.Condition()

    async def produce() -> None:
        for _ in range(n // chunk):
            w.run(chunk)
            async with progress:
                while len(got) < w.runs():
                    await progress.wait()

    with RingBuf(w.ringbuf_fd, w.max_entries) as rb, trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(produce)
            async for batch in rb:
                got += seqs(batch)
                async with progress:
                    progress.notify_all()
                if len(got) >= n:
                    break
    assert got == list(range(1, n + 1))


def test_discarded_records_are_skipped(fds: list[int]) -> None:
    w = open_writer(fds, 4096, discard_odd=True)
    with RingBuf(w.ringbuf_fd, w.max_entries) as rb:
        w.run(20)
        assert rb.pending_bytes() == 20 * 24      # discarded records still take space
        assert seqs(rb.consume()) == list(range(2, 21, 2))
        assert rb.pending_bytes() == 0
        w.run(1)                                  # seq 21: odd, discarded only
        assert rb.consume() == [] and rb.pending_bytes() == 0


def test_consume_max_records_leaves_the_rest(fds: list[int]) -> None:
    w = open_writer(fds, 4096)
    with RingBuf(w.ringbuf_fd, w.max_entries) as rb:
        w.run(10)
        first = rb.consume(max_records=3)
        assert seqs(first) == [1, 2, 3]
        assert rb.pending_bytes() == 7 * 24
        w.run(2)
        assert seqs(rb.consume()) == list(range(4, 13))
        assert seqs(first) == [1, 2, 3]           # earlier records are copies: still intact


def open_fds() -> set[str]:
    return {f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}" for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")}


def test_close_leaves_no_fd_behind() -> None:
    before = open_fds()
    fds: list[int] = []
    w = open_writer(fds, 4096)
    rb = RingBuf(w.ringbuf_fd, w.max_entries)
    w.run(5)
    assert len(rb.consume()) == 5
    rb.close()
    rb.close()                                    # idempotent
    for fd in fds:
        os.close(fd)
    assert open_fds() == before


async def test_close_ends_async_iteration_and_consume_raises(fds: list[int]) -> None:
    w = open_writer(fds, 4096)
    rb = RingBuf(w.ringbuf_fd, w.max_entries)
    batches: list[list[bytes]] = []

    async def read() -> None:
        async for batch in rb:
            batches.append(batch)

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            await trio.sleep(0.05)                # reader is parked in wait_readable
            w.run(3)
            while not batches:
                await trio.sleep(0.01)
            rb.close()
    assert [seqs(b) for b in batches] == [[1, 2, 3]]
    with pytest.raises(trio.ClosedResourceError):
        rb.consume()
    with pytest.raises(trio.ClosedResourceError):
        await rb.wait_readable()


def test_bad_max_entries_is_einval(fds: list[int]) -> None:
    w = open_writer(fds, 4096)
    with pytest.raises(MapError, match=r"^\[Errno 22\] mmap") as ei:
        RingBuf(w.ringbuf_fd, 3000, name="tk_events")
    assert ei.value.errno == errno.EINVAL and ei.value.map_name == "tk_events"


def test_mmap_of_a_non_ringbuf_map_fails_with_errno(fds: list[int]) -> None:
    fd = _bpf.map_create(MapType.HASH, 4, 4, 4)
    fds.append(fd)
    before = open_fds()
    with pytest.raises(MapError, match=r"^\[Errno 524\] mmap.*ENOTSUPP") as ei:
        RingBuf(fd, 4096, name="tk_hash")   # bpf_map_mmap: -ENOTSUPP for non-mmapable maps
    assert ei.value.errno == ENOTSUPP
    assert open_fds() == before                   # no mapping's dup'd fd left behind
