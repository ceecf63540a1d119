"""Records/s at which loss begins with the default ring buffer (issue 7).

A C workload (built with gcc) calls getppid at a fixed rate for a fixed time, pacing
itself with clock_gettime; ``tracekit run`` traces it with the default buffer_pages into
JSON Lines (with a beautify stage, as a user would) and a jsonl file without one. For each
rate the script reports delivered and lost records (tracekit's LOST line); loss "begins"
at the first rate with any lost record.

Usage (root): python3 bench/loss_onset.py [--seconds 2] [--rates 25000,50000,...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PACED = r"""
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
                          return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    double rate = atof(argv[1]), secs = atof(argv[2]);
    long n = (long)(rate * secs), i;
    double t0 = now();
    for (i = 0; i < n; i++) {
        syscall(SYS_getppid);
        while (now() - t0 < (i + 1) / rate) ;   /* vDSO clock: no syscall */
    }
    return 0;
}
"""

PIPELINE = """
[target]
command = ["true"]
[filter]
syscalls = ["getppid"]
{stages}
[output]
format = "jsonl"
path = "{out}"
"""


def _run(tmp: Path, exe: Path, rate: int, seconds: float, beautify: bool) -> tuple[int, int]:
    out = tmp / "out.jsonl"
    cfg = tmp / "p.toml"
    cfg.write_text(PIPELINE.format(out=out, stages='[[stage]]\nkind = "beautify"'
                                   if beautify else ""))
    cfg.chmod(0o644)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    r = subprocess.run([sys.executable, "-m", "tracekit", "run", str(cfg), "--", str(exe),
                        str(rate), str(seconds)], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"tracekit failed ({r.returncode}): {r.stderr[-2000:]}")
    delivered = out.read_bytes().count(b'"type":"syscall"')
    m = re.search(r"LOST (\d+)", r.stderr)
    return delivered, int(m.group(1)) if m else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rates", default="25000,50000,100000,200000,300000,400000,600000")
    args = ap.parse_args()
    rates = [int(x) for x in args.rates.split(",")]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.chmod(tmp, 0o755)
        (tmp / "paced.c").write_text(PACED)
        exe = tmp / "paced"
        subprocess.run(["gcc", "-O2", "-o", str(exe), str(tmp / "paced.c")], check=True)
        print(f"loss onset, default ring buffer (4 MiB), {args.seconds:g} s per rate, "
              "getppid records (jsonl)")
        for beautify in (False, True):
            onset = None
            for rate in rates:
                delivered, lost = _run(tmp, exe, rate, args.seconds, beautify)
                expected = int(rate * args.seconds)
                print(f"  {'beautify' if beautify else 'raw':8} {rate:>8,}/s  delivered "
                      f"{delivered:>9,}  lost {lost:>9,}  (made {expected:,}; "
                      f"delivered+lost {'==' if delivered + lost == expected else '!='} made)")
                if lost and onset is None:
                    onset = rate
            print(f"  {'beautify' if beautify else 'raw':8} loss begins at "
                  f"{'> ' + format(rates[-1], ',') if onset is None else format(onset, ',')}"
                  " records/s")


if __name__ == "__main__":
    main()
