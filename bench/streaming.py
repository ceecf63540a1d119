"""Streaming: events per second end to end on the mixed workload, at the default ring size.

Workload: bench/workloads/open_loop.c, 200,000 iterations of open/read/close of /dev/null
and a failing open (800,000 syscalls, plus the loader's), built with ``gcc -O2 -static``.
Variants, alternated within each round (the order rotates), medians over the rounds with
the spread:

* ``untraced``: the workload alone; its call rate bounds what any tracer can deliver
  end to end (the peer of the goals);
* ``strace``: ``tracekit run`` with ``format = "strace"`` (decoded, fd paths) into a file;
* ``jsonl``: ``tracekit run`` with ``format = "jsonl"`` and no stage (records, not
  decoded) into a file;

* ``start-up``: ``jsonl`` with 0 iterations: tracekit's start-up and teardown around a
  workload that makes no calls of its own. With ``untraced`` it bounds what any pipeline
  could reach end to end, start-up included (printed with the goals);

* ``perf trace`` (``perf trace -o FILE``) and ``strace -f -o FILE``: the peers, one run
  each per round (``--no-peers``: left out; strace -f takes 30-40 s);

each at the default ring buffer (``buffer_pages`` unset: 4 MiB), then once more with a
ring of ``--big-pages`` (65,536 = 256 MiB): with the drain thread's queue the default
ring loses nothing here either, so this shows what a bigger ring changes (nothing but
RSS).

Figures: wall seconds (start-up included), syscall lines written, records the kernel
counted lost, events/s = lines / wall, peak RSS. Then the pipeline's own capacity
without a workload: recorded drains of the same four calls replayed through the stages
``tracekit run`` builds (bench/beautify_rate.py's records) into a file.

Goals: strace text at least 500,000 events/s with 0 lost at the default ring; JSON Lines
at least 1,000,000 records/s. Needs root and gcc.
Usage: python3 bench/streaming.py [--rounds 3] [--iterations 200000]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _goals import goal  # noqa: E402

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_LOST = re.compile(r"LOST (\d+) records")
PIPELINE = """{pages}
[target]
command = ["{exe}", "{n}"]
[output]
format = "{fmt}"
path = "{out}"
"""


RUSAGE_RUN: Path | None = None
STARTUP = "start-up (0 iterations)"   # tracekit run, JSON Lines, the workload doing nothing


def run_one(argv: list[str]) -> tuple[float, str, int, float, float]:
    """(wall s, stderr, peak RSS KiB, CPU s of the whole tree, CPU s of the command
    alone) of argv, forked by bench/workloads/rusage_run.c (the RSS is the command's own,
    not this Python's carried over fork; for ``tracekit run``, the tree is tracekit and
    its workload, the command alone is tracekit)."""
    assert RUSAGE_RUN is not None
    ru = RUSAGE_RUN.parent / "rusage.txt"
    t0 = time.perf_counter()
    proc = subprocess.run([str(RUSAGE_RUN), str(ru), *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=_ENV, check=False)
    wall = time.perf_counter() - t0
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:5]} failed: {err[-2000:]}")
    fields = dict(kv.split("=") for kv in ru.read_text().split())
    return (wall, err, int(fields["maxrss_kib"]), int(fields["cpu_ns"]) / 1e9,
            int(fields["self_cpu_ns"]) / 1e9)


def cpu_budget(rows: dict[str, dict[str, list[float]]]) -> None:
    """Where the CPU of the traced runs went (medians), and the wall time the machine's
    cores allow for that much CPU: the workload (its own calls, the BPF programs run in
    them) and tracekit (start-up, drain, decoding, writing) share the cores, so on N
    cores no run can take less than their sum / N."""
    cores = os.cpu_count() or 1
    med = statistics.median
    work = med(rows["untraced"]["cpu"])
    print(f"CPU, medians ({cores} cores): the workload alone {work:.2f} s")
    for name in ("strace", "jsonl"):
        row = rows[name]
        own, tree = med(row["own"]), med(row["cpu"])
        events = med(row["lines"])
        floor = tree / cores
        print(f"  {name}: tracekit {own:.2f} s ({own / events * 1e6:.2f} us per event), "
              f"the workload traced {tree - own:.2f} s; {cores} cores: wall >= "
              f"{floor:.2f} s ({events / floor:,.0f} events/s at most), measured "
              f"{med(row['wall']):.2f} s")


def count_lines(path: Path, fmt: str) -> int:
    """Syscall lines: strace lines that are calls, JSON lines of type syscall."""
    data = path.read_bytes()
    if fmt == "jsonl":
        return data.count(b'{"type":"syscall"')
    return sum(1 for line in data.splitlines() if b"(" in line and b"+++" not in line
               and b"---" not in line)


def capacity(fmt: str, n: int) -> float:
    """Events/s of the stages `tracekit run` builds for fmt, on replayed drains."""
    import trio
    from beautify_rate import RecordSource, make_drains

    from tracekit.formatters._output import close_output, open_output
    from tracekit.formatters._spec import SinkContext, format_spec
    from tracekit.pipeline import Pipeline

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "input.txt"
        src.write_text("hello\n" * 1000)
        drains = make_drains(n, 4096, str(src).encode())
        spec = format_spec(fmt)
        opts = spec.options()
        ctx = SinkContext.for_machine()
        best = 0.0
        for _ in range(3):
            out = open_output(Path(tmp) / "out")
            sink = spec.make_sink(out, opts, ctx)
            stages = spec.stages_before(opts, [], ctx)

            async def main(stages: list[object], sink: object) -> float:
                p = Pipeline(RecordSource(drains), stages, [sink], buffer=8)  # type: ignore[list-item]
                t0 = time.perf_counter()
                await p.run()
                return time.perf_counter() - t0

            best = max(best, n / trio.run(main, stages, sink))
            close_output(out, completed=True)
        return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--big-pages", type=int, default=65536)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    n = args.iterations
    rows: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        global RUSAGE_RUN
        RUSAGE_RUN = tmp / "rusage_run"
        exe = tmp / "open_loop"
        for out, src in ((exe, "open_loop.c"), (RUSAGE_RUN, "rusage_run.c")):
            subprocess.run(["gcc", "-O2", "-static", "-o", str(out),
                            str(HERE / "workloads" / src)], check=True)

        def variant(fmt: str, pages: int | None, iterations: int = n) -> list[str]:
            cfg = tmp / f"{fmt}-{pages}-{iterations}.toml"
            cfg.write_text(PIPELINE.format(
                pages=f"buffer_pages = {pages}" if pages else "", exe=exe, n=iterations,
                fmt=fmt, out=tmp / f"out-{fmt}"))
            return [sys.executable, "-m", "tracekit", "run", str(cfg)]

        variants = {"untraced": [str(exe), str(n)], "strace": variant("strace", None),
                    "jsonl": variant("jsonl", None),
                    STARTUP: variant("jsonl", None, 0)}
        if not args.no_peers:
            variants["perf trace"] = ["perf", "trace", "-o", str(tmp / "out-perf"), str(exe),
                                      str(n)]
            variants["strace -f"] = ["strace", "-f", "-o", str(tmp / "out-strace -f"),
                                     str(exe), str(n)]
        outputs = {"strace": "strace", "jsonl": "jsonl", "perf trace": "strace",
                   "strace -f": "strace"}
        files = {"strace": "out-strace", "jsonl": "out-jsonl", "perf trace": "out-perf",
                 "strace -f": "out-strace -f"}
        run_one(variants["strace"])                         # warm-up: bytecode, boot cache
        for r in range(args.rounds):
            names = list(variants)
            k = r % len(names)
            for name in names[k:] + names[:k]:
                wall, err, rss, cpu, own = run_one(variants[name])
                lost = sum(int(x) for x in _LOST.findall(err))
                if name == "perf trace":        # perf trace writes its losses in the trace
                    lost = sum(int(x) for x in re.findall(
                        rb"LOST (\d+) events", (tmp / files[name]).read_bytes()))
                lines = 4 * n if name == "untraced" else 0 if name == STARTUP else \
                    count_lines(tmp / files[name], outputs[name])
                row = rows.setdefault(name, {"wall": [], "lines": [], "lost": [], "rss": [],
                                             "cpu": [], "own": []})
                row["cpu"].append(cpu)
                row["own"].append(own)
                row["wall"].append(wall)
                row["lines"].append(lines)
                row["lost"].append(lost)
                row["rss"].append(rss / 1024)
        for fmt in ("strace", "jsonl"):
            wall, err, rss, _, _ = run_one(variant(fmt, args.big_pages))
            rows[f"{fmt} (ring {args.big_pages * 4 // 1024} MiB)"] = {
                "wall": [wall], "lines": [count_lines(tmp / f"out-{fmt}", fmt)],
                "lost": [sum(int(x) for x in _LOST.findall(err))], "rss": [rss / 1024]}
    print(f"open_loop {n} iterations ({4 * n} calls), medians of {args.rounds} rounds "
          "(big rings: one run)")
    print(f"  {'variant':<24} {'wall s':>14} {'lines':>9} {'lost':>9} {'events/s':>20} "
          f"{'rss MiB':>8}")
    rate: dict[str, tuple[float, float, float, int]] = {}
    for name, row in rows.items():
        if name == STARTUP:
            print(f"  {name:<24} {statistics.median(row['wall']):6.2f} "
                  f"({min(row['wall']):.2f}-{max(row['wall']):.2f})")
            continue
        rates = [li / w for li, w in zip(row["lines"], row["wall"], strict=True)]
        med = statistics.median(rates)
        rate[name] = (med, min(rates), max(rates), int(statistics.median(row["lost"])))
        print(f"  {name:<24} {statistics.median(row['wall']):6.2f} "
              f"({min(row['wall']):.2f}-{max(row['wall']):.2f}) "
              f"{statistics.median(row['lines']):9.0f} {statistics.median(row['lost']):9.0f} "
              f"{med:10,.0f} ({min(rates) / 1000:.0f}k-{max(rates) / 1000:.0f}k) "
              f"{max(row['rss']):8.1f}")
    cpu_budget(rows)
    caps = {fmt: capacity(fmt, 200_000) for fmt in ("strace", "jsonl")}
    print("pipeline capacity, replayed drains into a file (best of 3): "
          + ", ".join(f"{k} {v:,.0f} events/s" for k, v in caps.items()))
    bound = rate["untraced"][0]
    s, j = rate["strace"], rate["jsonl"]
    peers = "".join(f"; {name} {rate[name][0]:,.0f}/s" for name in ("perf trace", "strace -f")
                    if name in rate)
    # what a pipeline of unbounded speed would reach end to end, with tracekit's start-up
    # and the workload's own untraced time (the tracing slows the workload too: not counted)
    ceiling = 4 * n / (statistics.median(rows["untraced"]["wall"])
                       + statistics.median(rows[STARTUP]["wall"]))
    peers += (f"; start-up and the workload alone bound any end-to-end rate to "
              f"{ceiling:,.0f}/s")
    goal("strace text >= 500k events/s end to end, 0 lost at the default ring",
         f"{s[0]:,.0f} events/s ({s[1]:,.0f}-{s[2]:,.0f}), {s[3]} lost; pipeline capacity "
         f"{caps['strace']:,.0f}/s",
         f"the workload alone {bound:,.0f} calls/s in the same run{peers}", s[0] >= 500_000
         and s[3] == 0)
    if bound < 1_000_000:
        peers += " (the workload alone is below the goal: not reachable on this machine)"
    goal("JSON Lines (not decoded) >= 1M records/s", f"{j[0]:,.0f} records/s "
         f"({j[1]:,.0f}-{j[2]:,.0f}), {j[3]} lost; pipeline capacity {caps['jsonl']:,.0f}/s",
         f"the workload alone {bound:,.0f} calls/s in the same run{peers}",
         j[0] >= 1_000_000)


if __name__ == "__main__":
    main()
