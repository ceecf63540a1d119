"""A recording from Python: the README's two examples (a trio program with
``RecordingSource`` in a ``Pipeline``, and ``tracekit.notebook.replay`` on an asyncio
loop, as in a notebook cell) run as written on a recording of a known workload, and give
what the command line's replay of the same file gives."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tracekit.notebook as tkn
from tests._run import run_tracekit
from tracekit._errors import RecordingError

pytestmark = pytest.mark.kernel
ROOT = Path(__file__).resolve().parents[2]
KNOWN_SEQ = Path(__file__).parents[1] / "workloads" / "known_seq.py"
N = 250


def _examples() -> list[str]:
    """The ```py blocks of the README's "Record and replay" section, in order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Record and replay", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```py\n(.*?)```", section, re.S)


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, dict[int, int]]:
    """``q.tkrec`` in tmp_path (``tracekit record`` of known_seq), and the syscall
    events per tgid that ``tracekit replay --format jsonl`` prints of it."""
    target = tmp_path / "target.txt"
    target.write_text("replay library test\n")
    rec = tmp_path / "q.tkrec"
    r = run_tracekit(["record", "-o", str(rec), "--", sys.executable, str(KNOWN_SEQ), str(N),
                      str(target)])
    assert r.returncode == 0, r.stderr
    out = tmp_path / "q.jsonl"
    r = run_tracekit(["replay", str(rec), "--format", "jsonl", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    per_tgid: dict[int, int] = {}
    for line in out.read_text().splitlines():
        ev = json.loads(line)
        if ev["type"] == "syscall":
            per_tgid[ev["tgid"]] = per_tgid.get(ev["tgid"], 0) + 1
    assert len(per_tgid) == 2           # known_seq and its forked child
    return rec, per_tgid


def test_trio_example_runs_as_written(tmp_path: Path,
                                      recorded: tuple[Path, dict[int, int]]) -> None:
    trio_example = next(b for b in _examples() if "trio.run(main)" in b)
    assert 'RecordingSource("q.tkrec")' in trio_example
    r = subprocess.run([sys.executable, "-c", trio_example], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = {int(tgid): int(calls) for _, tgid, calls in
           (line.rsplit(" ", 2) for line in r.stdout.splitlines())}
    assert got == recorded[1]


def test_notebook_example_runs_as_written(tmp_path: Path,
                                          recorded: tuple[Path, dict[int, int]],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    cell = next(b for b in _examples() if "tkn.replay(" in b)
    # a notebook cell may await at the top level: here, the body of a coroutine
    source = "async def _cell():\n" + textwrap.indent(cell, "    ") + "    return r\n"
    scope: dict[str, object] = {}
    exec(compile(source, "README.md", "exec"), scope)
    monkeypatch.chdir(tmp_path)
    t = asyncio.run(scope["_cell"]())       # type: ignore[operator]
    assert isinstance(t, tkn.Trace) and not t.running and t.returncode == 0
    per_tgid = recorded[1]
    assert t.stats()["events"] >= sum(per_tgid.values())
    summary = t.summary().summary
    assert {g.tgid: g.calls for g in summary.groups} == per_tgid
    getppid = sum(s.calls for g in summary.groups for s in g.syscalls
                  if s.syscall == "getppid")
    assert getppid == 3 * N             # main thread, thread and child: N each
    frame = t.events(None).to_polars()
    assert frame.height == sum(per_tgid.values())
    assert "getppid" in t.summary()._repr_html_()


def test_notebook_replay_of_a_file_that_is_not_a_recording(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tkrec"
    bad.write_bytes(b"not a recording")

    async def cell() -> None:
        await tkn.replay(bad)

    with pytest.raises(RecordingError, match=re.escape(f"{bad}: not a tracekit recording")):
        asyncio.run(cell())
