"""Records/s at which recording starts to lose, default ring buffer, beside JSON Lines.

The paced getppid workload of bench/loss_onset.py, at rising rates, traced four ways in
the same run (alternating, so the machine's load hits each alike):

- ``jsonl``: ``tracekit run`` streaming raw JSON Lines to a file (the peer);
- ``record``: ``tracekit record -o FILE`` (zstd level 1 frames, the default);
- ``record-raw``: ``tracekit record --no-compress``;
- ``run+record``: ``tracekit run --record FILE`` printing perf text and recording.

For each: records delivered, records lost (tracekit's LOST line), and for the
recordings their bytes per record. Loss "begins" at the first rate with a lost record.

Usage (root): python3 bench/record_loss.py [--seconds 2] [--rates 100000,200000,...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loss_onset import PACED  # noqa: E402 (a sibling script)

PIPELINE = """
[target]
command = ["true"]
[filter]
syscalls = ["getppid"]
[output]
format = "{fmt}"
path = "{out}"
"""

WAYS = ("jsonl", "record", "record-raw", "run+record")


def _records(rec: Path) -> int:
    from tracekit._events import Syscall
    from tracekit.session.recording import Recording

    r = Recording.open(rec)
    return sum(type(ev) is Syscall for b in r.batches() if isinstance(b, list) for ev in b)


def _run(tmp: Path, exe: Path, way: str, rate: int, seconds: float) -> tuple[int, int, float]:
    out, rec, cfg = tmp / "out", tmp / "t.tkrec", tmp / "p.toml"
    for p in (out, rec):
        p.unlink(missing_ok=True)
    cfg.write_text(PIPELINE.format(fmt="jsonl" if way == "jsonl" else "perf", out=out))
    cfg.chmod(0o644)
    workload = ["--", str(exe), str(rate), str(seconds)]
    if way == "jsonl":
        args = ["run", str(cfg), *workload]
    elif way == "run+record":
        args = ["run", str(cfg), "--record", str(rec), *workload]
    else:
        args = ["record", str(cfg), "-o", str(rec),
                *(["--no-compress"] if way == "record-raw" else []), *workload]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    r = subprocess.run([sys.executable, "-m", "tracekit", *args], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"tracekit {way} failed ({r.returncode}): {r.stderr[-2000:]}")
    m = re.search(r"LOST (\d+)", r.stderr)
    lost = int(m.group(1)) if m else 0
    if way == "jsonl":
        return out.read_bytes().count(b'"type":"syscall"'), lost, 0.0
    n = _records(rec)
    return n, lost, rec.stat().st_size / max(n, 1)     # bytes per syscall record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rates", default="100000,200000,300000,400000,600000,800000")
    args = ap.parse_args()
    rates = [int(x) for x in args.rates.split(",")]
    onset: dict[str, int | None] = dict.fromkeys(WAYS)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.chmod(tmp, 0o755)
        (tmp / "paced.c").write_text(PACED)
        exe = tmp / "paced"
        subprocess.run(["gcc", "-O2", "-o", str(exe), str(tmp / "paced.c")], check=True)
        print(f"recording vs JSON Lines: loss onset, default ring buffer (4 MiB), "
              f"{args.seconds:g} s per rate, getppid records")
        for rate in rates:
            for way in WAYS:
                n, lost, per = _run(tmp, exe, way, rate, args.seconds)
                size = f"  {per:6.1f} bytes/record" if per else ""
                print(f"  {way:10} {rate:>8,}/s  delivered {n:>9,}  lost {lost:>9,}{size}")
                if lost and onset[way] is None:
                    onset[way] = rate
        for way in WAYS:
            got = onset[way]
            print(f"  {way:10} loss begins at "
                  f"{'> ' + format(rates[-1], ',') if got is None else format(got, ',')}"
                  " records/s")


if __name__ == "__main__":
    main()
