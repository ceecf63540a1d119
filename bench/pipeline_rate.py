"""Events/s through IterSource -> 3 pass-through stages -> a sink writing a file.

Batches of 256 Syscall events, 1,000,000 events by default, channel buffer 8. Runs the
pipeline with three sinks in turn: a counting sink (the framework alone), JsonlSink
and PerfFormatter, each writing to a temporary file. The batches are built before the
clock starts. Prints one line per sink.

    python3 bench/pipeline_rate.py [--events N] [--batch N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import trio

from tracekit._events import Batch, Syscall
from tracekit.formatters import JsonlSink, PerfFormatter
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import (
    EventReceiver,
    EventSender,
    IterSource,
    Pipeline,
    Sink,
    StageContext,
)


class Pass:
    def __init__(self, name: str) -> None:
        self.name = name

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                await send.send(batch)


class Count:
    name = "count"

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        async with recv:
            async for _ in recv:
                pass


def make_batches(n_events: int, size: int) -> list[Batch]:
    base = time.monotonic_ns()
    nrs = (0, 1, 3, 257, 9, 21)                      # read write close openat mmap access
    evs = [Syscall(base + i * 1_000, 700, 4000 + i % 4, 4000, i % 2, nrs[i % 6],
                   (3, 0x7FFD1000 + i, 4096, 0, 0, 0), -2 if i % 10 == 0 else 4096,
                   "bench")
           for i in range(n_events)]
    return [evs[i:i + size] for i in range(0, n_events, size)]


async def once(batches: list[Batch], sink: Sink) -> float:
    p = Pipeline(IterSource(batches), [Pass("a"), Pass("b"), Pass("c")], [sink], buffer=8)
    t0 = time.perf_counter()
    await p.run()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per sink")
    opt = ap.parse_args()
    batches = make_batches(opt.events, opt.batch)
    table = SyscallTable()
    n = sum(map(len, batches))
    print(f"{n} events in {len(batches)} batches of {opt.batch}; source -> 3 stages -> sink;"
          f" best of {opt.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        sinks = {
            "count (no output)": lambda: Count(),
            "jsonl -> file": lambda: JsonlSink(out),
            "perf -> file": lambda: PerfFormatter(out, syscall_name=table.name),
        }
        for label, make in sinks.items():
            best = min(trio.run(once, batches, make()) for _ in range(opt.repeat))
            size = os.path.getsize(out) if os.path.exists(out) and label != "count (no output)" \
                else 0
            print(f"  {label:18s} {n / best / 1e6:6.2f} M events/s  ({best:.3f} s"
                  + (f", {size / n:.0f} bytes/event)" if size else ")"))


if __name__ == "__main__":
    main()
