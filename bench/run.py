"""Run every benchmark in bench/ (``nox -s bench``), print their figures and keep them.

Each bench/<name>.py is a script that prints its own figures (ratios against peers are
measured inside one script, in one run). Output goes to the terminal and to
bench/results/<name>.txt. Needs root. Usage: python3 bench/run.py [NAME ...]

Scripts in :data:`OPTIONAL` run only when named: ``strace_corpus`` (tracekit strace
against strace 6.1 on strace's own test programs; the first run fetches and builds strace's
sources, about 10 minutes, then about 10 minutes a run): ``python3 bench/run.py
strace_corpus``, or ``python3 bench/strace_corpus.py --help`` for its options.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: scripts too long for the default run: they run when named
OPTIONAL = frozenset({"strace_corpus"})


def main() -> int:
    wanted = set(sys.argv[1:])
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != "run.py"
                     and not p.name.startswith("_")
                     and (p.stem in wanted if wanted else p.stem not in OPTIONAL))
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    failed = []
    goals: list[str] = []
    for script in scripts:
        print(f"== {script.stem}", flush=True)
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env)
        out = r.stdout + (f"\n[stderr]\n{r.stderr}" if r.returncode else "")
        (results / f"{script.stem}.txt").write_text(out)
        print(out.rstrip())
        print(f"   ({time.monotonic() - t0:.1f} s, exit {r.returncode})", flush=True)
        goals += [f"{script.stem}: {line[len('goal: '):]}" for line in r.stdout.splitlines()
                  if line.startswith("goal: ")]
        if r.returncode:
            failed.append(script.stem)
    if goals:
        print("\n== goals (figure; peer or target from the same run: met / NOT met)")
        print("\n".join(goals))
        (results / "goals.txt").write_text("\n".join(goals) + "\n")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
