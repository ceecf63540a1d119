"""Ring-buffer consume rate: 16-byte records per second through RingBuf.consume().

A BPF writer (SOCKET_FILTER prog: bump a counter, bpf_ringbuf_output a 16-byte record) is
driven by BPF_PROG_TEST_RUN with a repeat count. Figures, each the median of 5 runs:

* produce: records/s the kernel writer puts into the ring (the peer, same run)
* drain:   records/s RingBuf.consume() copies out of a ring filled beforehand
* async:   records/s through ``async for batch in rb`` (trio) while a worker thread produces

Prints the ratio drain/produce: above 1 the Python reader keeps up with this writer.
Needs root. Run: ``python3 bench/ringbuf_rate.py [records]``.
"""

from __future__ import annotations

import os
import statistics
import struct
import sys
import time
from pathlib import Path

import trio

from tracekit.bpf import sys as _bpf
from tracekit.bpf.ringbuf import RingBuf
from tracekit.bpf.uapi import MapType, ProgType

# the tests' tiny BPF assembler (tests/bpf/_insns.py), imported as the tests package's
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.bpf import _insns as I  # noqa: E402

RING_BYTES = 32 << 20   # 32 MiB: holds 1.39M 24-byte records (16 + 8-byte header)
PACKET = bytes(64)


def one_run(records: int) -> tuple[float, float, float]:
    fds: list[int] = []
    try:
        counter = _bpf.map_create(MapType.ARRAY, 4, 8, 1, name="bench_counter")
        fds.append(counter)
        ring = _bpf.map_create(MapType.RINGBUF, 0, 0, RING_BYTES, name="bench_events")
        fds.append(ring)
        prog = _bpf.prog_load(ProgType.SOCKET_FILTER, I.ringbuf_output_prog(counter, ring),
                              name="bench_writer")
        fds.append(prog)
        with RingBuf(ring, RING_BYTES) as rb:
            t0 = time.perf_counter()
            _bpf.prog_test_run(prog, data_in=PACKET, repeat=records)
            t1 = time.perf_counter()
            got = rb.consume()
            t2 = time.perf_counter()
            assert len(got) == records and struct.unpack_from("=Q", got[-1])[0] == records
            produce, drain = records / (t1 - t0), records / (t2 - t1)

            return produce, drain, trio.run(_run_pipelined, rb, prog, records)
    finally:
        for fd in fds:
            os.close(fd)


async def _run_pipelined(rb: RingBuf, prog: int, records: int) -> float:
    n = 0
    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.to_thread.run_sync, _produce, prog, records)
        async for batch in rb:
            n += len(batch)
            if n >= records:
                break
    assert n == records, n
    return n / (time.perf_counter() - start)


def _produce(prog: int, records: int) -> None:
    _bpf.prog_test_run(prog, data_in=PACKET, repeat=records)


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else 500_000
    runs = [one_run(records) for _ in range(5)]
    produce, drain, pipelined = (statistics.median(r[i] for r in runs) for i in range(3))
    print(f"ringbuf_rate: {records} records of 16 bytes, median of 5")
    print(f"  produce (kernel writer, peer): {produce:12,.0f} records/s")
    print(f"  drain   (RingBuf.consume):     {drain:12,.0f} records/s")
    print(f"  async   (async for, trio):     {pipelined:12,.0f} records/s")
    print(f"  drain/produce ratio:           {drain / produce:12.2f}")


if __name__ == "__main__":
    main()
