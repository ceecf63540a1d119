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


def test_first_example_is_the_one_liner(tmp_path: Path) -> None:
    """The README's first command runs as written: the file calls of ls, perf style."""
    text = (ROOT / "README.md").read_text()
    first = re.search(r"```sh\n(.*?)\n```", text, re.S)
    assert first is not None and first[1].endswith("tracekit run -e %file -- ls")
    r = subprocess.run([sys.executable, "-m", "tracekit", "run", "-e", "%file", "--", "ls"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable

    table = SyscallTable()
    file_calls = {table.name(nr) for nr in resolve_syscalls(["%file"], table, where="t")}
    names = [m[1] for ln in r.stdout.splitlines()
             if (m := re.search(r"\): ls/\d+ ([a-z_0-9]+)\(", ln))]
    assert names and names[0] == "execve" and set(names) <= file_calls


def test_check_example_is_what_check_prints(tmp_path: Path) -> None:
    """The README's ``tracekit check`` example (it said 12 maps where check made 17): its
    pipeline file, run through check, prints the README's lines. The BTF, tracefs and
    privileges details depend on the machine (compared by status only), and the output's
    directory must not exist here (else the test skips, saying so)."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```\n\$ cat pipeline\.toml\n(.*?)\$ tracekit check pipeline\.toml\n"
                      r"(.*?)```", text, re.S)
    assert block is not None, "the check example is gone from the README"
    toml, shown = block[1], block[2].splitlines()
    out_dir = re.search(r"directory '([^']+)' does not exist", block[2])
    assert out_dir is not None
    if Path(out_dir[1]).exists():
        pytest.skip(f"{out_dir[1]} exists on this machine: the example's output item differs")
    (tmp_path / "pipeline.toml").write_text(toml)
    r = subprocess.run([sys.executable, "-m", "tracekit", "check", "pipeline.toml"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    got = r.stdout.splitlines()
    assert len(got) == len(shown), (got, shown)
    for want, line in zip(shown, got, strict=True):
        if want.split()[0] in ("BTF", "tracefs", "privileges"):
            assert line.split()[:2] == want.split()[:2], (line, want)
        else:
            assert line == want


def test_jsonl_table_lists_every_field_of_the_caps(tmp_path: Path) -> None:
    """Each field of the ``caps`` objects a JSON Lines trace writes is in the README's
    JSON Lines table (the syscall row's ``caps (...)``)."""
    text = (ROOT / "README.md").read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| `syscall` |"))
    listed = set(re.findall(r"`(\w+)`", row[row.index("`caps`"):row.index("`decoded`")]))
    r = subprocess.run([sys.executable, "-m", "tracekit", "run", "-F", "jsonl", "--",
                        "cat", "/etc/hostname"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    fields = {k for ln in r.stdout.splitlines() if ln.startswith("{")
              for cap in json.loads(ln).get("caps") or () for k in cap}
    assert {"arg", "kind", "flags", "data"} <= fields
    assert fields <= listed, fields - listed
