"""``tracekit strace`` next to strace 6.1: the same text, at what cost.

1. Agreement: every option combination of tests/e2e/_strace_cli.py (at least 25) on its
   programs (coreutils, a shell pipeline, a multi-threaded, a forking, a signalled and a
   TCP loopback program: tests/workloads/strace_cli.c), each under ``strace OPTS``
   (twice) and ``tracekit strace OPTS``; per combination the line slots, the share of
   lines identical after normalising addresses, pids and times, the share counting the
   lines strace itself changes between two runs as agreeing (``getrandom``'s bytes, a
   SIGCHLD that comes at another call), strace's first run against its second with the
   same normalising (the ceiling: what strace agrees with itself), the share counting
   also the lines only scheduling moved (a SIGCHLD delivered at another call or merged,
   a wait4 placed before or after a child's lines: tests/e2e/_strace_cli.py's module
   docstring states the two rules; never a line whose text differs), and how many calls
   strace split into ``<unfinished ...>``/``<... resumed>`` halves (tracekit prints each
   call once). ``--classify`` counts the differing line slots by category (which call
   or line kind, and what differs: tests/e2e/_strace_cli.py ``classify``), apart for
   those strace changes between its own runs. ``--readme`` rewrites the agreement table
   of README.md (between its ``strace-agreement`` markers) from this run.

   ``one run``: each program run once under ``strace OPTS -o S``, that strace traced by
   ``tracekit strace -f -o T`` with the combination's options that shape or select lines
   (tests/e2e/_strace_cli.py ``measure_one_run``, ``one_run_options``): both tracers see
   the same calls, so the pipe and socket inodes of ``-y``, ``getrandom``'s bytes and
   where a SIGCHLD or a wait4 falls are the same on both sides, and what still differs
   is tracekit's text. tracekit's lines of the processes strace shows, from the
   program's execve on, are put in the shape strace prints (the ``-o`` file's ``PID ``
   prefix kept under ``-f``; taken off, with the ``-a`` column recomputed, for one
   process and for ``-ff``'s files), then compared with the same normalising (addresses,
   pids, times) and counted strictly (identical lines only; the messages and ``-C``'s
   summary are not compared). ``-E`` and ``-u`` are strace's (it starts the program
   with them; tracekit traces that run), ``-ff`` is ``-f`` for tracekit (its lines are
   split by process afterwards). ``-p``: strace and then tracekit attach to the running
   program (strace first: its attach interrupts the call the program waits in, which a
   tracer already there would see cut and restarted; tracekit attached after finds the
   restarted call in progress). ``-c`` (a summary would count strace's own calls too:
   tracekit traces strace with the program) has no one run: ``-`` in the table.
2. Cost: a getppid loop and a file loop (open, read, fstat, close), untraced, under
   ``strace -f -o /dev/null`` and ``tracekit strace -f -o /dev/null``, and with ``-c``;
   wall time, best of 3, all in this one run.

Needs root, strace and gcc. Usage: python3 bench/strace_cli.py [--only NAME ...]
[--no-cost] [--no-agreement] [--diffs N] [--classify] [--readme] [--json]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e._strace_cli import (  # noqa: E402
    COMBOS,
    TRACEKIT,
    Result,
    build_workload,
    classify,
    measure,
    measure_one_run,
    one_run_options,
)

GETPPID_N = 500_000
FILES_N = 50_000


def agreement(only: list[str], diffs: int, as_json: bool, exe: Path, tmp: Path,
              classes: bool = False) -> list[dict]:
    rows = []
    if not as_json:
        print(f"{'options':32} {'programs':>8} {'lines':>6} {'identical':>9} "
              f"{'w/o run-to-run':>14} {'w/o scheduling':>14} {'strace/strace':>13} "
              f"{'one run':>8} {'split':>6}")
    for combo in COMBOS:
        if only and combo.name not in only:
            continue
        total = Result()
        one: Result | None = Result()
        for program in dict.fromkeys((combo.program, *combo.bench)):
            res, s, _ = measure(combo, program, exe, tmp)
            total.add(res)
            got = measure_one_run(combo, program, exe, tmp, s.status)
            if got is None or one is None:
                one = None
            else:
                one.add(got[0])
        kinds = collections.Counter(classify(a, b) for a, b in total.diffs)
        one_kinds = (collections.Counter(classify(a, b) for a, b in one.diffs)
                     if one is not None else None)
        left_out = one_run_options(combo)
        row: dict[str, Any] = {
            "options": combo.name, "programs": 1 + len(set(combo.bench) - {combo.program}),
            "lines": total.lines, "identical": total.share,
            "stable": total.stable_share, "settled": total.settled_share,
            "ceiling": total.ceiling_share, "scheduling": total.scheduling,
            "split": total.split, "strace_lines": total.strace_lines,
            "run_to_run": total.run_to_run, "differing": dict(kinds),
            "one_run": one.share if one is not None else None,
            "one_run_lines": one.lines if one is not None else None,
            "one_run_identical": one.identical if one is not None else None,
            "one_run_differing": dict(one_kinds) if one_kinds is not None else None,
            "one_run_diffs": one.diffs if one is not None else None,
            "one_run_left_out": left_out if isinstance(left_out, str) else None}
        rows.append(row)
        if as_json:
            print(json.dumps(row), flush=True)
            continue
        shown = f"{one.share:.1%}" if one is not None else "-"
        print(f"{combo.name:32} {row['programs']:8d} {total.lines:6d} {total.share:9.1%} "
              f"{total.stable_share:14.1%} {total.settled_share:14.1%} "
              f"{total.ceiling_share:13.1%} {shown:>8} {total.split:6d}",
              flush=True)
        if classes:
            if total.run_to_run:
                print(f"      {total.run_to_run:3d}  (differ between strace's own runs)")
            if total.scheduling:
                print(f"      {total.scheduling:3d}  (moved by scheduling: SIGCHLD, wait4)")
            for kind, n in kinds.most_common():
                print(f"      {n:3d}  {kind}")
            for kind, n in (one_kinds or collections.Counter()).most_common():
                print(f"      {n:3d}  one run: {kind}")
        for a, b in total.diffs[:diffs]:
            print(f"      strace:   {a[:150]}\n      tracekit: {b[:150]}")
        for a, b in (one.diffs if one is not None else [])[:diffs]:
            print(f"      one run, strace:   {a[:150]}\n      one run, tracekit: {b[:150]}")
    if rows and not as_json:
        low = [r["options"] for r in rows if r["stable"] < 0.98]
        print(f"combinations: {len(rows)}; at 98% or more (run-to-run lines counted as "
              f"agreeing): {len(rows) - len(low)}; below: {', '.join(low) or 'none'}")
        low = [r["options"] for r in rows if r["settled"] < 0.98]
        print(f"  and counting the lines scheduling moved too: {len(rows) - len(low)}; "
              f"below: {', '.join(low) or 'none'}")
        ones = [r for r in rows if r["one_run"] is not None]
        low = [r["options"] for r in ones if r["one_run"] < 0.98]
        print(f"  one run: {len(ones)} measured, {sum(r['one_run'] == 1 for r in ones)} at "
              f"100%, {len(ones) - len(low)} at 98% or more; below: {', '.join(low) or 'none'}")
    return rows


_BEGIN, _END = "<!-- strace-agreement:begin -->", "<!-- strace-agreement:end -->"


def readme_table(rows: list[dict]) -> str:
    """The README's agreement table (and its count line) for ``rows``."""
    out = ["| options | programs | lines | identical | w/o run-to-run | w/o scheduling "
           "| strace vs strace | one run (lines) | split calls (strace) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        one = (f"{r['one_run']:.1%} ({r['one_run_lines']})" if r["one_run"] is not None
               else "-")
        out.append(f"| `{r['options']}` | {r['programs']} | {r['lines']} | "
                   f"{r['identical']:.1%} | {r['stable']:.1%} | {r['settled']:.1%} | "
                   f"{r['ceiling']:.1%} | {one} | {r['split']} |")
    low = [r for r in rows if r["stable"] < 0.98]
    out.append("")
    out.append(f"{len(rows)} combinations, {len(rows) - len(low)} at 98% or more once the "
               "lines strace changes between its own two runs are counted as agreeing"
               + (": below, " + ", ".join(f"`{r['options']}` ({r['stable']:.1%})"
                                         for r in low) if low else "") + "; "
               + f"{sum(r['settled'] >= 0.98 for r in rows)} once the lines only scheduling "
               "moved (a SIGCHLD at another call, a wait4 before or after a child's lines) "
               "are counted too. " + _one_run_sentence(rows))
    return "\n".join(out)


def _one_run_sentence(rows: list[dict]) -> str:
    """What the one-run column says, for the README."""
    ones = [r for r in rows if r["one_run"] is not None]
    out = [r["options"] for r in rows if r["one_run"] is None]
    low = [r for r in ones if r["one_run"] < 0.98]
    below = (": below, " + ", ".join(f"`{r['options']}` ({r['one_run']:.1%})" for r in low)
             if low else "")
    return (f"One run (strace traced by `tracekit strace -f`: the same calls seen by both, "
            f"so nothing differs from run to run; identical lines only): {len(ones)} "
            f"combinations, {sum(r['one_run'] == 1 for r in ones)} at 100%, "
            f"{len(ones) - len(low)} at 98% or more{below}; "
            + ("none left out." if not out else
               "left out (`-`; why: bench/strace_cli.py's docstring): "
               + ", ".join(f"`{o}`" for o in out) + "."))


def write_readme(rows: list[dict], readme: Path = ROOT / "README.md") -> None:
    """Replace the text between the agreement markers of ``readme`` with the table."""
    text = readme.read_text()
    a, b = text.index(_BEGIN) + len(_BEGIN), text.index(_END)
    readme.write_text(text[:a] + "\n" + readme_table(rows) + "\n" + text[b:])


def _best(argv: list[str], n: int = 3) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, timeout=900)
        best = min(best, time.monotonic() - t0)
    return best


def cost(exe: Path, tmp: Path, as_json: bool) -> None:
    target = tmp / "file.dat"
    target.write_bytes(b"x" * 4096)
    loads = {"getppid loop": [str(exe), "getppid", str(GETPPID_N)],
             "file loop": [str(exe), "files", str(FILES_N), str(target)]}
    if not as_json:
        print(f"\n{'workload':14} {'tracer':34} {'wall s':>8} {'x untraced':>11} "
              f"{'x strace':>9}")
    for name, argv in loads.items():
        base = _best(argv)
        runs = {"untraced": base}
        for label, tool in (("strace -f -o /dev/null", ["strace", "-f", "-o", "/dev/null"]),
                            ("tracekit strace -f -o /dev/null",
                             [*TRACEKIT, "-f", "-o", "/dev/null"]),
                            ("strace -c -f", ["strace", "-c", "-f", "-o", "/dev/null"]),
                            ("tracekit strace -c -f", [*TRACEKIT, "-c", "-f", "-o",
                                                       "/dev/null"])):
            runs[label] = _best([*tool, *argv])
        for label, wall in runs.items():
            peer = runs["strace -c -f" if "-c" in label else "strace -f -o /dev/null"]
            if as_json:
                print(json.dumps({"workload": name, "tracer": label, "wall_s": wall,
                                  "x_untraced": wall / base, "x_strace": wall / peer}))
            else:
                print(f"{name:14} {label:34} {wall:8.2f} {wall / base:11.1f} "
                      f"{wall / peer:9.2f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", action="extend", default=[],
                    help="combinations by name (repeatable: --only=-f)")
    ap.add_argument("--diffs", type=int, default=2, help="differing lines shown each")
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--no-agreement", action="store_true")
    ap.add_argument("--classify", action="store_true",
                    help="count the differing lines of each combination by category")
    ap.add_argument("--readme", action="store_true",
                    help="rewrite README.md's agreement table from this run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("strace") or not shutil.which("gcc"):
        print("needs root, strace and gcc", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="strace_cli.") as t:
        tmp = Path(t)
        exe = build_workload(tmp)
        if not args.no_agreement:
            rows = agreement(args.only, args.diffs, args.json, exe, tmp, args.classify)
            if args.readme:
                if args.only:
                    print("--readme needs every combination (no --only)", file=sys.stderr)
                    return 1
                write_readme(rows)
        if not args.no_cost:
            cost(exe, tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
