"""A format used from Python prints what ``tracekit run`` prints for the same events.

The CLI traces a real command; a user stage (first in the pipeline, so before the stages
the format adds) records every batch it is given. Those recorded batches are then fed,
without the kernel, through what a library user builds from the format's spec: the text
must be the same, byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import msgspec
import pytest
import trio

from tests._run import TRACEKIT, write_pipeline
from tracekit._events import Batch, Event
from tracekit.formatters import format_spec, stages_for
from tracekit.pipeline import IterSource, Pipeline

pytestmark = pytest.mark.kernel

RECORDER = '''
import msgspec

class Record:
    """Passes batches on unchanged and writes each as one JSON array line."""

    name = "record"

    def __init__(self, path):
        self.path = path

    async def run(self, ctx, recv, send):
        enc = msgspec.json.Encoder()
        with open(self.path, "wb") as f:
            async with recv, send:
                async for batch in recv:
                    f.write(enc.encode(batch) + b"\\n")
                    await send.send(batch)
'''


def _trace_with_recorder(tmp_path: Path, fmt: str, output: str) -> tuple[str, list[Batch]]:
    (tmp_path / "recorder.py").write_text(RECORDER)
    data = tmp_path / "data.txt"
    data.write_text("hello\n")
    out, rec = tmp_path / f"cli.{fmt}", tmp_path / "batches.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["cat", "{data}", "{tmp_path}/missing"]
        [[stage]]
        kind = "user"
        use = "recorder:Record"
        options = {{ path = "{rec}" }}
        [output]
        format = "{fmt}"
        path = "{out}"
        {output}
    """)
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([*TRACEKIT, "run", str(cfg)], capture_output=True, text=True,
                       timeout=60, env=env)
    assert r.returncode == 1, r.stderr     # cat's status: the missing file
    dec = msgspec.json.Decoder(list[Event])
    batches = [dec.decode(line) for line in rec.read_bytes().splitlines()]
    return out.read_text(), batches


def _through_the_library(tmp_path: Path, fmt: str, options: dict[str, object],
                         batches: list[Batch]) -> str:
    spec = format_spec(fmt)
    out = tmp_path / f"lib.{fmt}"
    sink = spec.make_sink(str(out), spec.parse_options(options))

    async def main() -> None:
        await Pipeline(IterSource(batches), stages_for([sink]), [sink]).run()

    trio.run(main)
    return out.read_text()


@pytest.mark.parametrize(("fmt", "options", "toml"), [
    # fds without paths: the fd cache would read /proc of a task that has exited by now
    ("perf", {"fd_paths": False}, "fd_paths = false"),
    ("jsonl", {}, ""),
    ("summary", {"mode": "stream", "table": "strace"}, 'mode = "stream"\ntable = "strace"'),
])
def test_library_output_equals_the_cli_output(tmp_path: Path, fmt: str,
                                              options: dict[str, object], toml: str) -> None:
    cli, batches = _trace_with_recorder(tmp_path, fmt, textwrap.indent(toml, " " * 8))
    assert sum(len(b) for b in batches) > 10
    lib = _through_the_library(tmp_path, fmt, options, batches)
    if fmt == "jsonl":      # the run's losses end its JSON Lines: only a live trace has them
        *head, last = cli.splitlines(keepends=True)
        assert json.loads(last)["type"] == "losses"
        cli = "".join(head)
    assert lib == cli
    if fmt == "perf":       # decoded (the spec's beautify stage ran): a path, an errno
        assert '"' + str(tmp_path / "data.txt") + '"' in lib and "ENOENT" in lib


def test_the_recorder_sees_raw_records_before_the_formats_stages(tmp_path: Path) -> None:
    """The comparison above is not trivial: what the library is fed has no decoded text."""
    _, batches = _trace_with_recorder(tmp_path, "perf", "        fd_paths = false")
    assert all(getattr(ev, "decoded", None) is None for b in batches for ev in b)
