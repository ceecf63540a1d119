"""Growth: how the start-up of a ``-p PID`` trace grows with the target's threads, and how
the pid upkeep (one eviction pass) grows with the pids map's size.

* Start-up: a process of 1, 64 and 1024 threads (bench/workloads/threads.c, sleeping),
  traced with ``tracekit run pipeline.toml -p PID --timeout 0.2``; the figure is the
  wall time minus the 0.2 s traced (load, the /proc passes before and after attach that
  insert every thread, the final drain, exit). The sizes alternate within each round;
  medians over the rounds, with the spread. The peer is the 1-thread trace of the same
  run.
* Upkeep: ``pipeline.evict.evict_stale`` on a HASH map shaped like ``pids`` holding every
  live task of this machine and dead tids up to 1,024, 8,192 and 65,536 entries
  (bench/evict_walk.py has the 65,536 goal and the older walks beside it).

Needs root and gcc. Usage: python3 bench/growth.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _goals import goal  # noqa: E402

THREADS = (1, 64, 1024)
TRACED_S = 0.2
PIPELINE = """
[target]
pid = [1]            # replaced by -p
[output]
format = "jsonl"
path = "{out}"
"""
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def start_up(exe: Path, cfg: Path, n: int) -> float:
    proc = subprocess.Popen([str(exe), str(n)], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tracekit", "run", str(cfg), "-p",
                        str(proc.pid), "--timeout", str(TRACED_S)], check=True, env=_ENV,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0 - TRACED_S
    finally:
        proc.kill()
        proc.wait()


def upkeep(entries: int) -> tuple[float, int]:
    import evict_walk as ew

    from tracekit.kernel.procfs import ProcFS
    from tracekit.pipeline.evict import evict_stale
    from tracekit.session.pids import PidsMap

    procfs = ProcFS()
    with ew.fill(entries, ew.live_tasks(procfs)) as m:
        t0 = time.perf_counter()
        res = evict_stale(PidsMap(m), procfs)
        return time.perf_counter() - t0, res.deleted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "threads"
        subprocess.run(["gcc", "-O2", "-pthread", "-o", str(exe),
                        str(HERE / "workloads" / "threads.c")], check=True)
        cfg = Path(tmp) / "p.toml"
        cfg.write_text(PIPELINE.format(out=Path(tmp) / "out.jsonl"))
        start_up(exe, cfg, 1)                          # warm caches
        times: dict[int, list[float]] = {n: [] for n in THREADS}
        for r in range(args.rounds):
            order = THREADS[r % 3:] + THREADS[:r % 3]
            for n in order:
                times[n].append(start_up(exe, cfg, n))
    print(f"start-up of tracekit run -p PID (wall minus {TRACED_S} s traced), medians of "
          f"{args.rounds}")
    base = statistics.median(times[1])
    for n in THREADS:
        t = statistics.median(times[n])
        print(f"  {n:5d} threads  {t * 1000:7.1f} ms  ({min(times[n]) * 1000:.1f}-"
              f"{max(times[n]) * 1000:.1f})  x{t / base:.2f} of 1 thread  "
              f"{(t - base) / max(n - 1, 1) * 1e6:6.1f} us per added thread")
    print("pid upkeep: one eviction pass (batched) by pids map size")
    for entries in (1024, 8192, 65536):
        runs = [upkeep(entries) for _ in range(3)]
        t = statistics.median(r[0] for r in runs)
        print(f"  {entries:6d} entries  {t * 1000:7.1f} ms  ({min(r[0] for r in runs) * 1000:.1f}"
              f"-{max(r[0] for r in runs) * 1000:.1f})  {t / entries * 1e6:.2f} us/entry")
    t1024 = statistics.median(times[1024])
    goal("start-up with 1024 target threads", f"{t1024 * 1000:.0f} ms",
         f"1 thread {base * 1000:.0f} ms in the same run, x{t1024 / base:.2f} (figure only, "
         "no target: reported as met when under 2x)", t1024 < 2 * base)


if __name__ == "__main__":
    main()
