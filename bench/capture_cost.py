"""Cost of argument captures (issue 4): the tracer with captures on against captures off.

Workloads (a Python loop in a child process, started held and traced as a command):

* getppid: 1,000,000 calls: no captures (112-byte records, the hot path)
* openat:  250,000 openat of a missing path: one STR capture per record (the beauty map)
* write:   400,000 writes of 64 bytes to /dev/null: one BUF capture per record (a
  byte buffer read whole at entry, the path a partial read only adds to on a fault)
* recvmsg: 200,000 recvmsg of 4096-byte datagrams (and the send of each) on a unix
  socketpair: a MSGHDR capture with an iovec's bytes per record, as many as the element
  cap (``--iov-cap``: the bytes of each recvmsg iovec read at exit, BUF_CAP by default)

For each variant (``on``: SessionOptions(capture=True), the beauty map filled; ``off``:
capture=False, the knob that lets the verifier prune the capture code) the figures are the
workload's wall time (release to exit) and records/s decoded by a trio reader draining the
ring buffer while the workload runs, plus the untraced wall time. Each figure is the best of
``--repeat`` runs, variants interleaved. Lost records are printed (they must be 0).

``--buffer-bytes`` sets the ring buffer (default: the session's default, 4 MiB, where
lost records must stay 0). Needs root. Run: ``python3 bench/capture_cost.py [--repeat N]
[--only recvmsg] [--iov-cap 1024] [--buffer-bytes N]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import trio

from tracekit._events import CAP_MSGHDR, Syscall, decode_record
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session import capture
from tracekit.session.session import Session, SessionOptions

ROOT = Path(__file__).resolve().parents[1]
TABLE = SyscallTable()
WORKLOADS = {
    "getppid": ("import os\nfor _ in range(1_000_000): os.getppid()\n", "getppid", 1_000_000),
    "openat": ("import os\nfor _ in range(250_000):\n"
               "    try: os.open('/nonexistent/tk-bench-path', 0)\n"
               "    except OSError: pass\n", "openat", 250_000),
    "write": ("import os\nfd = os.open('/dev/null', os.O_WRONLY)\nb = b'x' * 64\n"
              "for _ in range(400_000): os.write(fd, b)\n", "write", 400_000),
    "recvmsg": ("import socket\na, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
                "m = bytes(range(256)) * 16\n"
                "for _ in range(200_000):\n    a.send(m)\n    b.recvmsg(4096)\n",
                "recvmsg", 200_000),
}


async def traced_run(capture: bool, src: str, name: str, buffer_bytes: int
                     ) -> tuple[float, int, int, int]:
    """(wall seconds, records of ``name``, records with captures, lost)."""
    s = Session(SessionOptions(command=[sys.executable, "-c", src], buffer_bytes=buffer_bytes,
                               capture=capture))
    nr = TABLE.nr(name)
    n = ncap = 0
    try:
        await s.start()
        assert s.command is not None and s.ringbuf is not None
        rb = s.ringbuf
        t0 = time.perf_counter()
        async with trio.open_nursery() as nursery:
            async def reader() -> None:
                nonlocal n, ncap
                async for batch in rb:
                    for raw in batch:
                        ev = decode_record(raw)
                        if isinstance(ev, Syscall) and ev.syscall_nr == nr:
                            n += 1
                            ncap += bool(ev.caps)
            nursery.start_soon(reader)
            await s.command.wait()
            wall = time.perf_counter() - t0
            await trio.sleep(0.05)
            for raw in rb.consume():
                ev = decode_record(raw)
                if isinstance(ev, Syscall) and ev.syscall_nr == nr:
                    n += 1
                    ncap += bool(ev.caps)
            nursery.cancel_scope.cancel()
        lost = s.counters().lost
    finally:
        s.close()
    return wall, n, ncap, lost


def untraced(src: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", src], check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS))
    ap.add_argument("--iov-cap", type=int, default=None,
                    help="bytes of each recvmsg iovec captured (default: capture.py's)")
    ap.add_argument("--buffer-bytes", type=int, default=SessionOptions.buffer_bytes)
    opts = ap.parse_args()
    if opts.iov_cap is not None:
        specs = capture.OVERRIDES["recvmsg"]
        capture.OVERRIDES["recvmsg"] = tuple(
            o._replace(size=opts.iov_cap) if o.kind == CAP_MSGHDR else o for o in specs)
    print(f"ring buffer {opts.buffer_bytes} bytes, recvmsg iovec cap "
          f"{next(o.size for o in capture.OVERRIDES['recvmsg'] if o.kind == CAP_MSGHDR)}")
    variants = {"off": False, "on": True}
    for wname, (src, name, count) in WORKLOADS.items():
        if wname not in opts.only:
            continue
        best: dict[str, tuple[float, int, int, int]] = {}
        lost_runs: dict[str, list[int]] = {label: [] for label in variants}
        base = min(untraced(src) for _ in range(opts.repeat))
        for _ in range(opts.repeat):
            for label, capture_on in variants.items():
                r = trio.run(traced_run, capture_on, src, name, opts.buffer_bytes)
                lost_runs[label].append(r[3])
                if label not in best or r[0] < best[label][0]:
                    best[label] = r
        print(f"{wname}: {count} calls, untraced {base:.3f} s")
        for label, (wall, n, ncap, lost) in best.items():
            print(f"  captures {label}: wall {wall:.3f} s ({wall / base:.2f}x untraced), "
                  f"{n} records ({ncap} with captures), {n / wall:,.0f} records/s, "
                  f"lost {lost} (every run: {lost_runs[label]})")
        print(f"  on/off wall: {best['on'][0] / best['off'][0]:.3f}")


if __name__ == "__main__":
    main()
