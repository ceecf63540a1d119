"""Cost of stacks (issue 18): a getppid loop traced with stacks off, user, both, and the
same loop with getppid NOT selected (stacks on and off), against the untraced loop.

Workload: bench/workloads/getppid_loop.c built here with ``gcc -O2
-fno-omit-frame-pointer`` (dynamically linked: its stacks run through libc's
``syscall()`` into main), N calls; it prints its own loop time (CLOCK_MONOTONIC), so the
figure is the slowdown the traced program feels: the BPF programs run in its context,
and ns per call = loop time / N.

Variants (a tracekit session started in this process on the held command, records
drained as they come and counted, not decoded: this measures the kernel side):

- ``untraced``;
- ``selected, stacks off``: ``syscalls = ["getppid"]``: a 112-byte record per call;
- ``selected, stacks user``: and a ``struct tk_stack`` record (1,088 bytes + 8 per
  frame) per call: bpf_get_stack's frame-pointer walk, the 1 KiB stack copy;
- ``selected, stacks both``: and the kernel stack;
- ``selected, ip``: strace -i alone (``instruction_pointer``): a 72-byte ``struct
  tk_stack`` record of one frame, the instruction pointer, per call;
- ``not selected, stacks off`` / ``not selected, stacks user``: ``syscalls =
  ["openat"]``: getppid is not selected; with stacks on, its calls must cost what they
  cost with stacks off (the knob is checked after the selection: a call not selected
  never reaches the stack code).

Each variant runs ``--runs`` times (default 5), variants interleaved (A/B/...), and the
figures are the median and the least ns per call, and ratios to ``stacks off`` from the
medians. Records lost (ring buffer full) are printed: the ring buffer is 256 MiB, so
none should be. Needs root, gcc.

Usage: python3 bench/stack_cost.py [--runs 5] [--calls 200000]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import trio

from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.session import Session, SessionOptions

HERE = Path(__file__).resolve().parent
TABLE = SyscallTable()

VARIANTS: dict[str, tuple[str | None, str | None]] = {
    # label: (selected syscall, stacks)
    "untraced": (None, None),
    "selected, stacks off": ("getppid", None),
    "selected, stacks user": ("getppid", "user"),
    "selected, stacks both": ("getppid", "both"),
    "selected, ip": ("getppid", "ip"),          # strace -i: the instruction pointer only
    "not selected, stacks off": ("openat", None),
    "not selected, stacks user": ("openat", "user"),
}


def _loop_ns(out: bytes) -> int:
    m = re.search(rb"loop_ns=(\d+)", out)
    if m is None:
        raise RuntimeError(f"the workload printed no loop_ns: {out!r}")
    return int(m[1])


async def traced(exe: Path, calls: int, selected: str, stacks: str | None
                 ) -> tuple[int, int]:
    """(records drained, records lost) of one traced run; the workload prints its loop
    time on the stdout it inherits."""
    nr = TABLE.nr(selected)
    assert nr is not None
    s = Session(SessionOptions(command=[str(exe), str(calls)], syscalls={nr},
                               buffer_bytes=256 << 20,
                               stacks=None if stacks == "ip" else stacks,
                               instruction_pointer=stacks == "ip"))
    n = 0
    try:
        await s.start()
        assert s.command is not None and s.ringbuf is not None
        rb = s.ringbuf
        async with trio.open_nursery() as nursery:
            async def reader() -> None:
                nonlocal n
                async for batch in rb:
                    n += len(batch)
            nursery.start_soon(reader)
            await s.command.wait()
            await trio.sleep(0.05)
            n += len(rb.consume())
            nursery.cancel_scope.cancel()
        lost = s.counters().lost
    finally:
        s.close()
    return n, lost


def run_traced(exe: Path, calls: int, selected: str, stacks: str | None, out: Path
               ) -> tuple[int, int, int]:
    """Run one traced variant in a child Python (its stdout, the workload's, to ``out``)."""
    code = (f"import sys, trio; sys.path.insert(0, {str(HERE)!r})\n"
            "from stack_cost import traced\n"
            "from pathlib import Path\n"
            f"r = trio.run(traced, Path({str(exe)!r}), {calls}, {selected!r}, {stacks!r})\n"
            "print('drained=%d lost=%d' % r, file=sys.stderr)\n")
    with out.open("wb") as f:
        r = subprocess.run([sys.executable, "-c", code], stdout=f, stderr=subprocess.PIPE,
                           check=True)
    m = re.search(rb"drained=(\d+) lost=(\d+)", r.stderr)
    assert m is not None, r.stderr
    return _loop_ns(out.read_bytes()), int(m[1]), int(m[2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200_000)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "getppid_loop"
        subprocess.run(["gcc", "-O2", "-fno-omit-frame-pointer", "-Wall", "-o", str(exe),
                        str(HERE / "workloads" / "getppid_loop.c")], check=True)
        per_call: dict[str, list[float]] = {k: [] for k in VARIANTS}
        notes: dict[str, str] = {}
        for _ in range(opts.runs):
            for label, (selected, stacks) in VARIANTS.items():
                if selected is None:
                    out = subprocess.run([str(exe), str(opts.calls)], capture_output=True,
                                         check=True).stdout
                    ns = _loop_ns(out)
                else:
                    ns, drained, lost = run_traced(exe, opts.calls, selected, stacks,
                                                   Path(tmp) / "out.txt")
                    notes[label] = f"records {drained:,}, lost {lost:,}"
                per_call[label].append(ns / opts.calls)
    print(f"getppid loop, {opts.calls:,} calls, {opts.runs} runs interleaved "
          "(ns per call: median, least)")
    med = {k: statistics.median(v) for k, v in per_call.items()}
    for label, v in per_call.items():
        print(f"  {label:<27} {med[label]:8.1f} {min(v):8.1f}   {notes.get(label, '')}")
    print(f"  stacks user / stacks off (selected):      "
          f"{med['selected, stacks user'] / med['selected, stacks off']:.2f}x, "
          f"+{med['selected, stacks user'] - med['selected, stacks off']:.0f} ns per call")
    print(f"  stacks both / stacks off (selected):      "
          f"{med['selected, stacks both'] / med['selected, stacks off']:.2f}x, "
          f"+{med['selected, stacks both'] - med['selected, stacks off']:.0f} ns per call")
    print(f"  ip (-i) / stacks off (selected):          "
          f"{med['selected, ip'] / med['selected, stacks off']:.2f}x, "
          f"+{med['selected, ip'] - med['selected, stacks off']:.0f} ns per call")
    print(f"  not selected: stacks user / stacks off:   "
          f"{med['not selected, stacks user'] / med['not selected, stacks off']:.3f}x "
          f"({med['not selected, stacks user'] - med['not selected, stacks off']:+.1f} ns "
          "per call)")


if __name__ == "__main__":
    main()
