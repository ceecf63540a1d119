"""Events/s through IterSource -> Beautify -> a sink writing a file (JSON Lines, perf text).

Workload: 1,000,000 mixed syscall records by default, as a process reading a real file
makes them: openat (with its captured path) = 3, read(3, ..., 4096) = 4096 (with 32
bytes of captured buffer), close(3) = 0, and a failing openat = -ENOENT, in batches of
256. The fd cache is on (strace -yy), reading /proc of this process on a miss. The
batches are built before the clock starts; each figure is the best of --repeat runs
with a fresh stage. Goal (issue 4): >= 300,000 beautified events/s into JSON Lines.

    python3 bench/beautify_rate.py [--events N] [--batch N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import trio

from tracekit._decode_args import SyscallDecoder
from tracekit._events import CAP_BUF, CAP_STR, Batch, Capture, Syscall
from tracekit._syscalls import SyscallTable
from tracekit.formatters import JsonlSink, PerfFormatter
from tracekit.formatters.strace import StraceFormatter
from tracekit.pipeline import IterSource, Pipeline, Sink
from tracekit.pipeline.beautify import Beautify

AT_FDCWD = 2**64 - 100


def make_batches(n_events: int, size: int, path: bytes) -> list[Batch]:
    table = SyscallTable()
    openat, read, close = table.nr("openat"), table.nr("read"), table.nr("close")
    base, tgid = time.monotonic_ns(), os.getpid()
    path_cap = (Capture(1, CAP_STR, 0, path),)
    buf_cap = (Capture(1, CAP_BUF, 0, b"hello\n" * 5 + b"\0\1"),)
    missing = (Capture(1, CAP_STR, 0, b"/nonexistent/file"),)
    kinds = [
        (openat, (AT_FDCWD, 0x7FFD1000, 0x80000, 0, 0, 0), 3, path_cap),
        (read, (3, 0x55D000, 4096, 0, 0, 0), 4096, buf_cap),
        (close, (3, 0, 0, 0, 0, 0), 0, ()),
        (openat, (AT_FDCWD, 0x7FFD1000, 0, 0, 0, 0), -2, missing),
    ]
    evs = []
    for i in range(n_events):
        nr, args, ret, caps = kinds[i % 4]
        evs.append(Syscall(base + i * 1000, 700, tgid, tgid, 0, nr, args, ret, "bench", 0,
                           caps))
    return [evs[i:i + size] for i in range(0, n_events, size)]


async def once(batches: list[Batch], sink: Sink) -> float:
    stage = Beautify(SyscallDecoder(fd_paths=True))
    p = Pipeline(IterSource(batches), [stage], [sink], buffer=8)
    t0 = time.perf_counter()
    await p.run()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs per sink")
    opt = ap.parse_args()
    table = SyscallTable()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "input.txt")
        with open(src, "w") as f:
            f.write("hello\n" * 1000)
        batches = make_batches(opt.events, opt.batch, src.encode())
        n = sum(map(len, batches))
        print(f"{n} events (openat/read/close + failing openat) in batches of {opt.batch};"
              f" source -> beautify -> sink; best of {opt.repeat}")
        out = os.path.join(tmp, "out")
        sinks = {
            "jsonl -> file": lambda: JsonlSink(out),
            "perf -> file": lambda: PerfFormatter(out, syscall_name=table.name),
            "strace -> file": lambda: StraceFormatter(out),
        }
        for label, make in sinks.items():
            best = min(trio.run(once, batches, make()) for _ in range(opt.repeat))
            size = os.path.getsize(out)
            print(f"  {label:16s} {n / best:10,.0f} events/s  ({best:.3f} s, "
                  f"{size / n:.0f} bytes/event)")


if __name__ == "__main__":
    main()
