"""Run mypy on the tracekit package as it is installed: tracekit, tracekit.pipeline,
tracekit.formatters (``nox -s lint`` runs this).

The source tree maps ``pipeline/`` to ``tracekit.pipeline`` and ``formatters/`` to
``tracekit.formatters`` (pyproject's package-dir), which mypy cannot read from a config, and
an editable install resolves them through an import hook, which mypy does not run. So this
builds the installed layout as a tree of symlinks under ``build/typecheck/`` and checks
``-p tracekit`` there. Reported paths are mapped back to the source tree
(``build/typecheck/tracekit/pipeline/_run.py`` -> ``pipeline/_run.py``) so editors jump to
the file. The settings are pyproject's ``[tool.mypy]``.

Usage: ``python scripts/typecheck.py [mypy options]``; the exit status is mypy's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"
#: package folder in the repository -> its place in the installed package
MAPPED = {"pipeline": "tracekit/pipeline", "formatters": "tracekit/formatters",
          "programs": "tracekit/programs"}


def build_tree() -> None:
    """Rebuild ``build/typecheck/tracekit`` (a module added since the last run appears)."""
    pkg = TREE / "tracekit"
    shutil.rmtree(TREE, ignore_errors=True)
    pkg.mkdir(parents=True)
    for entry in (ROOT / "tracekit").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for folder, dest in MAPPED.items():
        (TREE / dest).symlink_to(ROOT / folder)


def main(argv: list[str]) -> int:
    build_tree()
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
           "--cache-dir", str(ROOT / ".mypy_cache"), *argv, "-p", "tracekit"]
    r = subprocess.run(cmd, cwd=TREE, capture_output=True, text=True)
    mapped = re.compile(rf"^tracekit/({'|'.join(MAPPED)})/")
    for line in r.stdout.splitlines():
        print(mapped.sub(r"\1/", line))
    sys.stderr.write(r.stderr)
    return r.returncode


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main(sys.argv[1:]))
