"""The README's examples run as written (quickstart file and the library snippet)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel
ROOT = Path(__file__).resolve().parents[2]


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_library_snippet_prints_the_failed_calls_as_json(tmp_path: Path) -> None:
    (block,) = _python_blocks()
    r = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert events, r.stdout[-2000:]
    assert all(e["type"] == "syscall" and -4095 <= e["ret"] < 0 for e in events)


def test_quickstart_example_runs(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "tracekit", "run",
                        str(ROOT / "examples" / "quickstart.toml")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(" execve(" in ln and ln.endswith("= 0") for ln in lines)
    assert lines[-1].rstrip().endswith("= ?") and "exit_group(" in lines[-1]
