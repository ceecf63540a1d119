"""Whole-line agreement of tracekit's ``strace`` format with real strace.

Each program below runs under ``strace -f -q -o FILE`` (``-q``, not ``-qq``: strace then
prints the ``+++ exited with N +++`` lines that tracekit prints too) and under
``python3 -m tracekit run`` with ``[output] format = "strace"`` (``fd_paths = false``:
plain ``strace -f`` shows bare fds), in the same directory, environment and input files, stdout to
/dev/null. The two outputs are grouped by process, processes paired by their call
sequences and calls aligned by name (tests/e2e/_strace_lines.py, shared with
tests/e2e/test_strace_diff.py). Only addresses (``0x`` + 5 or more hex digits), pids and
times (tracekit's ``-tt``/``-T`` columns, ``tv_sec``/``tv_nsec``/... fields) are
normalised; every other character of a line must match.

Per program:

- ``whole``: the share of line slots whose whole lines are identical (a slot is a pair
  of aligned lines, or a line only one trace has; signal and exit lines included);
- ``name+ret``: the share whose call name and return value are identical;
- ``ceiling``: ``whole`` of a second strace run against the first: what differs between
  two runs of the program itself (random bytes from ``getrandom``, ephemeral ports, a
  shell's children interleaving), the best tracekit can reach under this measure.

Then the calls that differ most, with one example each (``--top``). Needs root, strace.

``--yy`` compares fd decorations too: ``strace -f -q -yy`` against tracekit's default
``fd_paths = true`` (inodes of pipes and sockets, and ports, differ between two runs: the
ceiling shows how much).

Usage: python3 bench/strace_lines.py [--only NAME ...] [--top 3] [--keep DIR] [--json] [--yy]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# the shared parser lives with the tests (tests/e2e/_strace_lines.py), imported as the
# tests package's module from the checkout
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e._strace_lines import Agreement, agreement  # noqa: E402

WORKLOADS = Path(__file__).resolve().parent / "workloads"
PROGRAMS = ("ls", "cat", "date", "sh", "python", "tar", "cp", "find", "gzip", "stat")


def make_data(tmp: Path) -> Path:
    """The input tree the programs read: a text file, a binary file in a subfolder."""
    data = tmp / "data"
    (data / "sub").mkdir(parents=True, exist_ok=True)
    (data / "a.txt").write_text("hello\n" * 100)
    (data / "sub" / "b.bin").write_bytes(bytes(range(256)) * 8)
    (data / "sub" / "c.txt").write_text("tracekit\n")
    return data


def argv_of(name: str, tmp: Path, data: Path) -> list[str]:
    return {
        "ls": ["ls", "-la", "/etc"],
        "cat": ["cat", str(data / "a.txt")],
        "date": ["date"],
        "sh": ["sh", "-c", "echo a | cat"],
        "python": [sys.executable, str(WORKLOADS / "files_tcp.py"), str(data)],
        "tar": ["tar", "cf", str(tmp / "out.tar"), "-C", str(data), "."],
        "cp": ["cp", "-r", str(data), str(tmp / "copy")],
        "find": ["find", str(data)],
        "gzip": ["gzip", "-c", str(data / "a.txt")],
        "stat": ["stat", str(data / "a.txt")],
    }[name]


def _reset(tmp: Path) -> None:
    """Remove what a program wrote, so that every run starts from the same state
    (a second ``cp -r`` into an existing copy would copy into it)."""
    shutil.rmtree(tmp / "copy", ignore_errors=True)
    (tmp / "out.tar").unlink(missing_ok=True)


YY = False      # --yy: fd decorations compared (strace -yy, fd_paths = true)


def run_strace(argv: list[str], tmp: Path, out: Path) -> str:
    _reset(tmp)
    subprocess.run(["strace", "-f", "-q", *(["-yy"] if YY else []), "-o", str(out), "--",
                    *argv], check=True,
                   cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return out.read_text()


def run_tracekit(argv: list[str], tmp: Path, out: Path) -> str:
    _reset(tmp)
    cfg = out.with_suffix(".toml")
    cfg.write_text(f"[target]\ncommand = {json.dumps(argv)}\n"
                   f"[output]\nformat = \"strace\"\nfd_paths = {str(YY).lower()}\n"
                   f"path = {json.dumps(str(out))}\n")
    r = subprocess.run([sys.executable, "-m", "tracekit", "run", str(cfg)], cwd=tmp,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode:
        raise RuntimeError(f"tracekit run {argv}: exit {r.returncode}: {r.stderr}")
    return out.read_text()


def measure(name: str, tmp: Path) -> tuple[Agreement, Agreement]:
    """(tracekit against strace, a second strace run against the first) for ``name``;
    the raw outputs stay in ``tmp`` as NAME.strace, NAME.tracekit, NAME.strace2."""
    data = make_data(tmp)
    argv = argv_of(name, tmp, data)
    s_text = run_strace(argv, tmp, tmp / f"{name}.strace")
    t_text = run_tracekit(argv, tmp, tmp / f"{name}.tracekit")
    s2_text = run_strace(argv, tmp, tmp / f"{name}.strace2")
    return agreement(s_text, t_text), agreement(s_text, s2_text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=PROGRAMS, default=list(PROGRAMS))
    ap.add_argument("--top", type=int, default=3, help="differing calls shown per program")
    ap.add_argument("--keep", type=Path, help="keep the raw outputs in this directory")
    ap.add_argument("--json", action="store_true", help="one JSON object per program")
    ap.add_argument("--yy", action="store_true",
                    help="compare fd decorations too (strace -yy, fd_paths = true)")
    args = ap.parse_args()
    global YY
    YY = args.yy
    if os.geteuid() != 0 or shutil.which("strace") is None:
        print("needs root and strace", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="strace_lines.") as t:
        tmp = args.keep if args.keep is not None else Path(t)
        tmp.mkdir(parents=True, exist_ok=True)
        if not args.json:
            print(f"{'program':8} {'lines':>6} {'whole':>7} {'name+ret':>9} {'ceiling':>8}")
        for name in args.only:
            got, ceiling = measure(name, tmp)
            if args.json:
                print(json.dumps({"program": name, "lines": got.lines, "whole": got.whole,
                                  "name_ret": got.name_ret,
                                  "whole_share": got.whole_share,
                                  "name_ret_share": got.name_ret_share,
                                  "ceiling": ceiling.whole_share}), flush=True)
                continue
            print(f"{name:8} {got.lines:6d} {got.whole_share:7.1%} "
                  f"{got.name_ret_share:9.1%} {ceiling.whole_share:8.1%}", flush=True)
            for key, n in got.diffs.most_common(args.top):
                ex = got.examples.get(key)
                print(f"    {n:4d} {key}" + (f"\n         strace:   {ex[0]}"
                                             f"\n         tracekit: {ex[1]}" if ex else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
