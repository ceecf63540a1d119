"""Wall time of ``tracekit run`` against ``perf trace`` on 1,000,000 syscalls, same run.

The workload (C, built with gcc into a temp dir) loops N times (default 250,000) over
``open(input) ; read(fd, buf, 4096) ; close(fd) ; open("/nonexistent/...")``: 4 N
syscalls (openat = fd, read = 3893 bytes, close = 0, openat = -1 ENOENT) plus the
dynamic loader's start-up calls. Variants, run in turn within each round (the order
rotates every round), each figure the median over the rounds:

* ``untraced``: the workload alone.
* ``tk-jsonl``: ``tracekit run`` with a beautify stage and ``format = "jsonl"`` to a file,
  at the default ring-buffer size (``buffer_pages = 1024``, 4 MiB).
* ``tk-perf``: ``tracekit run`` with ``format = "perf"`` to a file (it adds a beautify
  stage itself), default ring-buffer size.
* ``tk-jsonl-big``, ``tk-perf-big``: the same with ``buffer_pages = 65536`` (256 MiB), big
  enough that nothing is lost: these show what the pipeline delivers per second.
* ``tk-startup``: ``tracekit run`` of ``/bin/true`` (start-up and tear-down alone).
* ``perf``: ``perf trace -o FILE -- workload``.

For each: wall seconds, ratio to ``perf trace``, syscall records delivered for the
workload, records/s delivered (over the whole wall time, start-up included), lost
(tracekit: the ``LOST n records`` line on stderr; perf: the sum of its ``LOST n events!``
lines), and whether the count is exact: the loop's four calls found exactly N times
each (identified by their decoded text: the input path, the missing path, the fd with
the input's path), or, when records were lost, delivered + lost equal to what the
lossless run delivered.

Needs root, gcc, perf. Run::

    python3 bench/trace_vs_perf.py [--iterations 250000] [--rounds 3] [--skip-perf]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import msgspec

from tracekit._events import Event, Syscall

WORKLOAD_C = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = atol(argv[2]);
	char buf[4096];

	for (long i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0 || close(fd) != 0)
			return 1;
		if (open(argv[3], O_RDONLY) >= 0)
			return 1;
	}
	return 0;
}
"""
MISSING = "/nonexistent/tracekit-bench"
TRACEKIT = [sys.executable, "-m", "tracekit", "run"]
DEFAULT_PAGES, BIG_PAGES = 1024, 65536
_LOST_TK = re.compile(r"LOST (\d+) records")
_LOST_PERF = re.compile(rb"^LOST (\d+) events!", re.M)
_PERF_CALL = re.compile(rb"\): \S+/\d+ (\w+)\(")


def pipeline_toml(argv: list[str], fmt: str, out: Path, pages: int, beautify: bool) -> str:
    stage = '[[stage]]\nkind = "beautify"\n' if beautify else ""
    return (f"buffer_pages = {pages}\n[target]\ncommand = {msgspec.json.encode(argv).decode()}\n"
            f'{stage}[output]\nformat = "{fmt}"\npath = "{out}"\n')


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                         f"{proc.stderr.decode(errors='replace')}")
    return wall, proc


def count_jsonl(path: Path) -> Counter[str]:
    """Syscall records in tracekit JSON Lines (beautified), and the loop's kinds among
    them: ``openat`` (succeeded), ``openat ENOENT``, ``read``, ``close``."""
    c: Counter[str] = Counter()
    for ev in msgspec.json.Decoder(Event).decode_lines(path.read_bytes()):
        c["all"] += 1                   # every record: lifecycle (exec, exit) ones too
        if type(ev) is not Syscall or ev.decoded is None:
            continue
        c["records"] += 1
        name, ret = ev.decoded.name, ev.decoded.ret
        if name == "openat":
            c["openat ENOENT" if ret.startswith("-1 ENOENT") else "openat"] += 1
        elif name in ("read", "close"):
            c[name] += 1
    return c


def count_perf_text(path: Path) -> Counter[str]:
    """The same counts from perf-style text (tracekit's perf format or perf trace's)."""
    c: Counter[str] = Counter()
    for line in path.read_bytes().splitlines():
        m = _PERF_CALL.search(line)
        if m is None:
            continue
        c["records"] += 1
        name = m.group(1)
        if name == b"openat":
            c["openat ENOENT" if line.rstrip().endswith(b"= -1 ENOENT (No such file or "
                                                        b"directory)") else "openat"] += 1
        elif name in (b"read", b"close"):
            c[name.decode()] += 1
    return c


def run_counts(label: str, cmd: list[str], out: Path) -> tuple[float, Counter[str], int]:
    """Run one variant: (wall s, counts, lost)."""
    wall, proc = timed(cmd)
    c = count_jsonl(out) if label.startswith("tk-jsonl") else count_perf_text(out)
    if label == "perf":
        lost = sum(int(x) for x in _LOST_PERF.findall(out.read_bytes()))
    else:
        m = _LOST_TK.search(proc.stderr.decode(errors="replace"))
        lost = int(m.group(1)) if m else 0
    return wall, c, lost


KINDS = ("openat", "read", "close", "openat ENOENT")


def make_variants(tmp: Path, argv: list[str], tag: str, perf: bool) -> dict[str, list[str]]:
    """Command lines by label (outputs at ``tmp/<label><tag>.out``)."""
    variants: dict[str, list[str]] = {"untraced": argv}
    for label, fmt, pages, beautify in (("tk-jsonl", "jsonl", DEFAULT_PAGES, True),
                                        ("tk-perf", "perf", DEFAULT_PAGES, False),
                                        ("tk-jsonl-big", "jsonl", BIG_PAGES, True),
                                        ("tk-perf-big", "perf", BIG_PAGES, False)):
        toml = tmp / f"{label}{tag}.toml"
        toml.write_text(pipeline_toml(argv, fmt, tmp / f"{label}{tag}.out", pages, beautify))
        variants[label] = [*TRACEKIT, str(toml)]
    toml = tmp / f"tk-startup{tag}.toml"
    toml.write_text(pipeline_toml(["/bin/true"], "jsonl", tmp / f"tk-startup{tag}.out",
                                  DEFAULT_PAGES, True))
    variants["tk-startup"] = [*TRACEKIT, str(toml)]
    if perf:
        variants["perf"] = ["perf", "trace", "-o", str(tmp / f"perf{tag}.out"), "--", *argv]
    return variants


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=250_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-perf", action="store_true", help="no perf trace runs (slow)")
    opt = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("needs root (BPF, perf trace)")
    n = opt.iterations
    perf = not opt.skip_perf and shutil.which("perf") is not None
    with tempfile.TemporaryDirectory(prefix="tk-vs-perf-") as tmpdir:
        tmp = Path(tmpdir)
        (tmp / "w.c").write_text(WORKLOAD_C)
        subprocess.run(["gcc", "-O2", "-o", str(tmp / "w"), str(tmp / "w.c")], check=True)
        inp = str(tmp / "input.txt")
        Path(inp).write_text("".join(f"{i}\n" for i in range(1, 1001)))
        variants = make_variants(tmp, [str(tmp / "w"), inp, str(n), MISSING], "", perf)
        # The start-up calls of each tracer's view of the workload: the same run with 0
        # iterations (expected counts = these + n of each loop call).
        zero = make_variants(tmp, [str(tmp / "w"), inp, "0", MISSING], "-0", perf)
        base = {lbl: run_counts(lbl, cmd, tmp / f"{lbl}-0.out")[1]
                for lbl, cmd in zero.items() if lbl not in ("untraced", "tk-startup")}
        walls: dict[str, list[float]] = {k: [] for k in variants}
        seen: dict[str, list[tuple[Counter[str], int]]] = {k: [] for k in variants}
        names = list(variants)
        for r in range(opt.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for label in order:
                if label in ("untraced", "tk-startup"):
                    wall, _ = timed(variants[label])
                    walls[label].append(wall)
                    continue
                wall, c, lost = run_counts(label, variants[label], tmp / f"{label}.out")
                walls[label].append(wall)
                seen[label].append((c, lost))
                print(f"  round {r + 1} {label:13s} {wall:7.3f} s  records {c['records']:>9,}"
                      f"  lost {lost:>9,}", file=sys.stderr, flush=True)
        report(n, variants, walls, seen, base)


def report(n: int, variants: dict[str, list[str]], walls: dict[str, list[float]],
           seen: dict[str, list[tuple[Counter[str], int]]],
           base: dict[str, Counter[str]]) -> None:
    med = {k: statistics.median(v) for k, v in walls.items()}
    rounds = len(next(iter(walls.values())))
    print(f"workload: {n:,} iterations x (openat, read, close, failing openat) = {4 * n:,} "
          f"syscalls; medians of {rounds} rounds (order rotated each round)")
    for label, cmd in variants.items():
        print(f"  {label:13s} {' '.join(cmd)}")
    print(f"\n  {'variant':13s} {'wall s':>8s} {'vs perf':>8s} {'records':>10s} "
          f"{'records/s':>10s} {'lost':>9s}  exact")
    for label in variants:
        wall = med[label]
        ratio = f"{wall / med['perf']:.3f}" if "perf" in med else "-"
        runs = seen[label]
        if not runs:
            print(f"  {label:13s} {wall:8.3f} {ratio:>8s}")
            continue
        recs = statistics.median(c["records"] for c, _ in runs)
        lost = statistics.median(lost for _, lost in runs)
        print(f"  {label:13s} {wall:8.3f} {ratio:>8s} {recs:10,.0f} {recs / wall:10,.0f} "
              f"{lost:9,.0f}  {exactness(label, runs, n, base, seen)}")
    if "tk-startup" in med:
        up = med["tk-startup"]
        for label in ("tk-jsonl-big", "tk-perf-big"):
            if seen.get(label):
                recs = statistics.median(c["records"] for c, _ in seen[label])
                print(f"  {label}: {recs / (med[label] - up):,.0f} records/s after start-up "
                      f"(wall - tk-startup wall {up:.3f} s)")


def exactness(label: str, runs: list[tuple[Counter[str], int]], n: int,
              base: dict[str, Counter[str]],
              seen: dict[str, list[tuple[Counter[str], int]]]) -> str:
    """Per run: "yes" when nothing was lost and each loop call was seen exactly n times
    more than in the 0-iteration run; with records lost, whether delivered + lost equals
    the records of the lossless (``-big``) run of the same format."""
    out = []
    for c, lost in runs:
        if not lost:
            got = [c[k] - base[label][k] for k in KINDS]
            out.append("yes" if got == [n] * 4 else f"no: loop calls {got}")
            continue
        # jsonl shows every record; perf text no lifecycle ones, which may be lost too
        what = "all" if label.startswith("tk-jsonl") else "records"
        ref = [x[what] for x, lost_ in seen.get(label + "-big", []) if not lost_]
        got = c[what] + lost
        if not ref:
            out.append(f"delivered + lost = {got:,} (no lossless peer)")
        elif what == "all":
            out.append(f"{'yes' if got == ref[0] else 'no'}: records delivered + lost = "
                       f"{got:,}, lossless run {ref[0]:,}")
        else:
            out.append(f"{'yes' if got == ref[0] else 'no'}: syscalls delivered + lost = "
                       f"{got:,}, lossless run {ref[0]:,} (+{got - ref[0]} lifecycle records "
                       "lost, not shown in perf text)")
    return "; ".join(sorted(set(out)))


if __name__ == "__main__":
    main()
