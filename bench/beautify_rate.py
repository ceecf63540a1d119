"""Events/s through a source decoding ring-buffer records -> Beautify -> a sink writing a file.

Workload: 1,000,000 mixed syscall records by default, as a process reading a real file
makes them and as the BPF program writes them (programs/syscalls.h: 112-byte records,
captures after them): openat (with its captured path) = 3, read(3, ..., 4096) = 3893
(with 256 bytes of captured buffer, cut), close(3) = 0, and a failing openat = -ENOENT,
in drains of 4096 records (RingBufferSource's batch). The source decodes each drain with
``decode_batch`` as RingBufferSource does. The fd cache is on (strace -yy), reading /proc
of this process on a miss. The records are built before the clock starts; each figure
is the best of --repeat runs with a fresh stage. Goal (issue 4): >= 300,000 beautified
events/s into JSON Lines. End to end against perf trace: bench/trace_vs_perf.py.

    python3 bench/beautify_rate.py [--events N] [--batch N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import trio

from tracekit._events import (
    _CAP,
    _CAPS_HDR,
    _SYSCALL,
    CAP_BUF,
    CAP_STR,
    CAPF_TRUNC,
    REC_SYSCALL,
    decode_batch,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.formatters import JsonlSink, PerfFormatter
from tracekit.formatters.strace import StraceFormatter
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import Pipeline, Sink
from tracekit.pipeline.beautify import Beautify

AT_FDCWD = 2**64 - 100


def record(nr: int, args: tuple[int, ...], ret: int, tgid: int, ts: int,
           caps: tuple[tuple[int, int, int, bytes], ...]) -> bytes:
    """One ring-buffer record as programs/syscalls.h lays it out."""
    head = _SYSCALL.pack(REC_SYSCALL, 0, ts, 300, tgid, tgid, 0, nr, *args, ret, b"bench")
    if not caps:
        return head
    body = b"".join(_CAP.pack(a, k, f, len(d)) + d + bytes(-len(d) % 8) for a, k, f, d in caps)
    return head + _CAPS_HDR.pack(len(body), len(caps)) + body


def make_drains(n_events: int, size: int, path: bytes) -> list[list[bytes]]:
    table = SyscallTable()
    openat, read, close = table.nr("openat"), table.nr("read"), table.nr("close")
    base, tgid = time.monotonic_ns(), os.getpid()
    data = b"".join(b"%d\n" % i for i in range(1, 1001))
    kinds = [
        (openat, (AT_FDCWD, 0x7FFD1000, 0, 0, 0, 0), 3, ((1, CAP_STR, 0, path),)),
        (read, (3, 0x7FFD2000, 4096, 0, 0, 0), len(data), ((1, CAP_BUF, CAPF_TRUNC, data[:256]),)),
        (close, (3, 0, 0, 0, 0, 0), 0, ()),
        (openat, (AT_FDCWD, 0x55D000, 0, 0, 0, 0), -2, ((1, CAP_STR, 0, b"/nonexistent/file"),)),
    ]
    recs = [record(*kinds[i % 4][:3], tgid, base + i * 1000, kinds[i % 4][3])
            for i in range(n_events)]
    return [recs[i:i + size] for i in range(0, n_events, size)]


class RecordSource:
    """Decodes each drain as RingBufferSource does, then sends it."""

    name = "records"

    def __init__(self, drains: list[list[bytes]]) -> None:
        self.drains = drains

    async def run(self, ctx: object, send: trio.MemorySendChannel,  # type: ignore[type-arg]
                  *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with send:
            task_status.started()
            for drain in self.drains:
                events, _ = decode_batch(drain)
                await send.send(events)


async def once(drains: list[list[bytes]], sink: Sink) -> float:
    stage = Beautify(SyscallDecoder(fd_paths=True))
    p = Pipeline(RecordSource(drains), [stage], [sink], buffer=8)
    t0 = time.perf_counter()
    await p.run()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per sink")
    opt = ap.parse_args()
    table = SyscallTable()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "input.txt")
        with open(src, "w") as f:
            f.write("hello\n" * 1000)
        drains = make_drains(opt.events, opt.batch, src.encode())
        n = sum(map(len, drains))
        print(f"{n} records (openat/read/close + failing openat) in drains of {opt.batch};"
              f" decode -> beautify -> sink; best of {opt.repeat}")
        out = os.path.join(tmp, "out")
        sinks = {
            "jsonl -> file": lambda: JsonlSink(out),
            "perf -> file": lambda: PerfFormatter(out, syscall_name=table.name),
            "strace -> file": lambda: StraceFormatter(out),
        }
        for label, make in sinks.items():
            best = min(trio.run(once, drains, make()) for _ in range(opt.repeat))
            size = os.path.getsize(out)
            print(f"  {label:16s} {n / best:10,.0f} events/s  ({best:.3f} s, "
                  f"{size / n:.0f} bytes/event)")


if __name__ == "__main__":
    main()
