"""Loader figures (issue 2): load+attach time of the committed objects, and the ring-buffer
consume rate for 16-byte records written by a BPF program driven by a syscall loop.

- load+attach: ``BpfObject.open(); load(); attach_all(); close()`` of test_maps.bpf.o and
  syscalls.bpf.o, median of 5, in a fresh process each (cold: includes parsing vmlinux
  BTF) and repeated in one process (warm: vmlinux BTF cached).
- ring buffer: test_ringbuf.bpf.o writes one 16-byte record per getppid of a child process
  that calls getppid N times (a Python loop); the ring is large enough to hold them all,
  so the drain rate measured afterwards is the reader's alone. Also measured: draining
  concurrently while the child runs (records/s end to end, lost must be 0).

Usage (root): python3 bench/loader.py [--records 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tracekit.bpf.object import BpfObject
from tracekit.bpf.ringbuf import RingBuf
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.session import object_path

RUNS = 5
# the test programs are test data of the checkout, not package data
TEST_PROGRAMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "programs"


def _object(name: str) -> Path:
    """``syscalls`` from the package, a ``test_*`` object from tests/data/programs/."""
    path = Path(str(object_path()))
    if name == "syscalls":
        return path
    return TEST_PROGRAMS / "build" / path.parent.name / f"{name}.bpf.o"


def _load_attach(name: str) -> float:
    t0 = time.perf_counter()
    obj = BpfObject.open(_object(name))
    obj.load()
    links = obj.attach_all()
    for link in links:
        link.destroy()
    obj.close()
    return time.perf_counter() - t0


def _cold(name: str) -> float:
    code = (f"import time\n"
            f"from tracekit.bpf.object import BpfObject\n"
            f"t1 = time.perf_counter()\n"
            f"obj = BpfObject.open({str(_object(name))!r}); obj.load(); obj.attach_all(); "
            f"obj.close()\n"
            f"print(time.perf_counter() - t1)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(r.stdout)


def _ringbuf(records: int, *, concurrent: bool) -> tuple[float, int, int]:
    """(records/s, records read, lost) for ``records`` getppid calls of a child."""
    nr = SyscallTable().nr("getppid")
    child = subprocess.Popen(
        [sys.executable, "-c",
         f"import os, sys\nsys.stdin.read(1)\ng = os.getppid\nfor _ in range({records}): g()\n"],
        stdin=subprocess.PIPE)
    obj = BpfObject.open(_object("test_ringbuf"))
    obj.globals["targ_tgid"] = child.pid
    obj.globals["targ_nr"] = nr
    size = 1 << max(12, (records * 24).bit_length())   # 8-byte header + 16-byte record
    obj.maps["events"].max_entries = size
    obj.load()
    ev = obj.maps["events"]
    read = 0
    with RingBuf(ev.fd, ev.max_entries) as rb:
        links = obj.attach_all()
        assert child.stdin is not None
        child.stdin.write(b"g")
        child.stdin.close()
        t0 = time.perf_counter()
        if concurrent:
            while child.poll() is None:
                read += len(rb.consume())
            read += len(rb.consume())
            elapsed = time.perf_counter() - t0
        else:
            child.wait()
            t0 = time.perf_counter()
            while True:
                got = len(rb.consume())
                if not got:
                    break
                read += got
            elapsed = time.perf_counter() - t0
        for link in links:
            link.destroy()
        lost = obj.globals["lost"]
    obj.close()
    return read / elapsed, read, lost


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=1_000_000)
    args = ap.parse_args()
    print(f"loader: median of {RUNS}")
    for name in ("test_maps", "syscalls"):
        cold = statistics.median(_cold(name) for _ in range(RUNS))
        _load_attach(name)
        warm = statistics.median(_load_attach(name) for _ in range(RUNS))
        print(f"  load+attach {name + '.bpf.o':<18} cold {cold * 1e3:7.1f} ms   "
              f"warm {warm * 1e3:7.1f} ms")
    for concurrent in (False, True):
        runs = [_ringbuf(args.records, concurrent=concurrent) for _ in range(RUNS)]
        rate = statistics.median(r[0] for r in runs)
        read = {r[1] for r in runs}
        lost = {r[2] for r in runs}
        what = "drain while the child runs" if concurrent else "drain after the child ran"
        print(f"  ringbuf 16-byte records, {what:<27} {rate:12,.0f} records/s "
              f"(read {sorted(read)}, lost {sorted(lost)})")


if __name__ == "__main__":
    main()
