"""Cost of argument captures (issue 4): the tracer with captures against the object before.

Workloads (a Python loop in a child process, started held and traced as a command):

* getppid: 1,000,000 calls: no captures (112-byte records, the hot path)
* openat:  250,000 openat of a missing path: one STR capture per record (the beauty map)

For each object (``new``: this checkout's ``syscalls.bpf.o`` with the beauty map filled;
``old``: the committed object of ``--old-rev``, loaded by path) the figures are the
workload's wall time (release to exit) and records/s decoded by a trio reader draining the
ring buffer while the workload runs, plus the untraced wall time. Each figure is the best of
``--repeat`` runs, variants interleaved. Lost records are printed (they must be 0).

Needs root. Run: ``python3 bench/capture_cost.py [--old-rev REV] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

import tracekit._session as session_mod
from tracekit._beautymap import fill_beauty_map
from tracekit._events import Syscall, decode_record
from tracekit._session import Session, SessionOptions
from tracekit._syscalls import SyscallTable
from tracekit._tracefs import find_tracefs

ROOT = Path(__file__).resolve().parents[1]
TABLE = SyscallTable()
WORKLOADS = {
    "getppid": ("import os\nfor _ in range(1_000_000): os.getppid()\n", "getppid", 1_000_000),
    "openat": ("import os\nfor _ in range(250_000):\n"
               "    try: os.open('/nonexistent/tk-bench-path', 0)\n"
               "    except OSError: pass\n", "openat", 250_000),
}


class BenchSession(Session):
    """Loads the object at ``path``; fills the beauty map when the object has one."""

    path: Path

    def _load(self) -> None:
        saved = session_mod.object_path
        session_mod.object_path = lambda name="syscalls": self.path  # type: ignore[assignment]
        try:
            super()._load()
        finally:
            session_mod.object_path = saved
        assert self.obj is not None
        if "beauty" in self.obj.maps:
            fill_beauty_map(self.obj, TABLE, find_tracefs())


async def traced_run(path: Path, src: str, name: str) -> tuple[float, int, int, int]:
    """(wall seconds, records of ``name``, records with captures, lost)."""
    s = BenchSession(SessionOptions(command=[sys.executable, "-c", src], buffer_bytes=64 << 20))
    s.path = path
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
    ap.add_argument("--old-rev", default="05d6b2d~1",
                    help="git revision of the object before captures (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old.bpf.o"
        rev_path = f"{opts.old_rev}:programs/build/x86_64/syscalls.bpf.o"
        old.write_bytes(subprocess.run(["git", "-C", str(ROOT), "show", rev_path],
                                       check=True, capture_output=True).stdout)
        objs = {"old": old, "new": ROOT / "programs/build/x86_64/syscalls.bpf.o"}
        for wname, (src, name, count) in WORKLOADS.items():
            best: dict[str, tuple[float, int, int, int]] = {}
            base = min(untraced(src) for _ in range(opts.repeat))
            for _ in range(opts.repeat):
                for label, path in objs.items():
                    r = trio.run(traced_run, path, src, name)
                    if label not in best or r[0] < best[label][0]:
                        best[label] = r
            print(f"{wname}: {count} calls, untraced {base:.3f} s")
            for label, (wall, n, ncap, lost) in best.items():
                print(f"  {label}: wall {wall:.3f} s ({wall / base:.2f}x untraced), "
                      f"{n} records ({ncap} with captures), {n / wall:,.0f} records/s, "
                      f"lost {lost}")
            print(f"  new/old wall: {best['new'][0] / best['old'][0]:.3f}")


if __name__ == "__main__":
    main()
