"""Start-up: wall time and peak RSS of ``tracekit run`` on /bin/true next to
``perf trace -- /bin/true``, measured alternately in the same run (issue 3). The per-boot
cache (tracekit.kernel.bootcache) is warm from the warm-up run, as on every start after
the first of a boot; bench/startup_profile.py shows where the time goes.

Prints a table and returns a dict for bench/run.py. Needs root.
Usage: python3 bench/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _goals import goal  # noqa: E402

PIPELINE = """
[target]
command = ["/bin/true"]
[output]
format = "perf"
path = "{out}"
"""


# An installed tracekit has its bytecode compiled (pip does it at install); let the warm-up
# run write __pycache__ so the measured runs do not compile sources each time.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(argv: list[str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB of the tracer process, exit status)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_ENV)
    _, status, rusage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{argv[:4]} failed with {proc.returncode}: {err[-2000:]}")
    proc.stderr.close() if proc.stderr else None
    return wall, rusage.ru_maxrss, proc.returncode


def run(runs: int = 5) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "startup.toml"
        cfg.write_text(PIPELINE.format(out=Path(tmp) / "out.txt"))
        tk = [sys.executable, "-m", "tracekit", "run", str(cfg)]
        perf = ["perf", "trace", "-o", str(Path(tmp) / "perf.txt"), "--", "/bin/true"]
        have_perf = shutil.which("perf") is not None
        _timed(tk)  # warm the page cache for both before measuring
        if have_perf:
            _timed(perf)
        tk_wall, tk_rss, perf_wall, perf_rss = [], [], [], []
        for _ in range(runs):  # alternate A/B so drift on a noisy machine hits both
            w, r, _ = _timed(tk)
            tk_wall.append(w)
            tk_rss.append(r)
            if have_perf:
                w, r, _ = _timed(perf)
                perf_wall.append(w)
                perf_rss.append(r)
    res: dict[str, object] = {
        "tracekit_wall_s": statistics.median(tk_wall),
        "tracekit_wall_s_all": sorted(tk_wall),
        "tracekit_peak_rss_mib": max(tk_rss) / 1024,
    }
    if perf_wall:
        res["perf_trace_wall_s"] = statistics.median(perf_wall)
        res["perf_trace_wall_s_all"] = sorted(perf_wall)
        res["perf_trace_peak_rss_mib"] = max(perf_rss) / 1024
        res["ratio_wall_tracekit_over_perf"] = statistics.median(tk_wall) / statistics.median(
            perf_wall)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    res = run(args.runs)
    for k, v in res.items():
        if isinstance(v, list):
            print(f"{k:<34} {', '.join(f'{x:.3f}' for x in v)}")
        else:
            print(f"{k:<34} {v:.3f}" if isinstance(v, float) else f"{k:<34} {v}")
    tk, rss = res["tracekit_wall_s"], res["tracekit_peak_rss_mib"]
    assert isinstance(tk, float) and isinstance(rss, float)
    spread = res["tracekit_wall_s_all"]
    assert isinstance(spread, list)
    if "perf_trace_wall_s" in res:
        perf, ratio = res["perf_trace_wall_s"], res["ratio_wall_tracekit_over_perf"]
        assert isinstance(perf, float) and isinstance(ratio, float)
        goal("start-up at most 2x perf trace's", f"tracekit {tk:.3f} s (median of "
             f"{len(spread)}, {min(spread):.3f}-{max(spread):.3f})",
             f"perf trace {perf:.3f} s in the same run, ratio {ratio:.2f} <= 2", ratio <= 2)
    else:
        print("goal: start-up at most 2x perf trace's: not measured (perf not installed)")
    goal("start-up below 0.35 s", f"tracekit {tk:.3f} s (fastest {min(spread):.3f} s; a "
         "loaded machine adds to every run)", "target 0.35 s", tk < 0.35)
    goal("start-up peak RSS below 60 MiB", f"{rss:.1f} MiB (the largest of the runs)",
         "target 60 MiB", rss < 60)


if __name__ == "__main__":
    main()
