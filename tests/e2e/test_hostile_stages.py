"""What stages print of a traced process (the example stages' log lines and tables, any
stage's log message) reaches the terminal escaped: a process that names itself and its
files with terminal escapes, newlines and bytes that are not UTF-8 cannot write raw
control sequences to tracekit's stderr or forge a line of its own there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, write_pipeline
from tracekit.formatters import escape

pytestmark = pytest.mark.kernel
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMM = b"s\x1b[2J\n\xff\xc2\x9bx"
FILE = b"w\x1b]0;t\x07\n\xfe"
RAW_FORBIDDEN = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|[\x80-\xff]")

WORKLOAD = f"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(15, ctypes.c_char_p({COMM!r}), 0, 0, 0) == 0     # PR_SET_NAME
fd = os.open(os.fsencode(sys.argv[1]) + b"/" + {FILE!r}, os.O_WRONLY | os.O_CREAT, 0o600)
os.write(fd, b"x" * 100)
os.fsync(fd)
os.close(fd)
"""

# a stage that logs a traced comm as it is: the CLI's log lines escape it
LOUD_PY = """
class Loud:
    name = "loud"

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                for ev in batch:
                    if getattr(ev, "comm", "").startswith("s"):
                        ctx.log.warning("LOUD %s", ev.comm)
                        break
                await send.send(batch)
"""


def _run(tmp_path: Path, stages: str) -> subprocess.CompletedProcess[bytes]:
    (tmp_path / "workload.py").write_text(WORKLOAD)
    (tmp_path / "loud.py").write_text(LOUD_PY)
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps([sys.executable, str(tmp_path / "workload.py"), str(tmp_path)])}
        {stages}
        [output]
        format = "jsonl"
        path = "{tmp_path / 'out.jsonl'}"
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(EXAMPLES), str(tmp_path)]))
    r = subprocess.run([*TRACEKIT, "run", str(cfg)], capture_output=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    for line in lines:       # nothing raw, and every line is one tracekit wrote
        assert not RAW_FORBIDDEN.search(line), line
    return r


def _shown(raw: bytes) -> str:
    return escape(raw.decode("utf-8", "surrogateescape"))


def test_slow_fsync_logs_the_comm_escaped(tmp_path: Path) -> None:
    r = _run(tmp_path, """
        [[stage]]
        kind = "user"
        use = "slow_fsync:SlowFsync"
        [stage.options]
        threshold_ms = 0
    """)
    lines = [ln for ln in r.stderr.decode().splitlines() if ln.startswith("tracekit: slow ")]
    assert len(lines) == 1, r.stderr
    assert f", {_shown(COMM)}/" in lines[0]


def test_bytes_per_file_table_is_escaped(tmp_path: Path) -> None:
    r = _run(tmp_path, """
        [[stage]]
        kind = "beautify"
        [[stage]]
        kind = "user"
        use = "bytes_per_file:BytesPerFile"
    """)
    rows = [ln for ln in r.stderr.decode().splitlines() if ln.strip().startswith("100 ")]
    assert len(rows) == 1 and rows[0].endswith(r'/w\33]0;t\7\n\376'), r.stderr


def test_a_stage_log_message_is_escaped_by_the_cli(tmp_path: Path) -> None:
    r = _run(tmp_path, """
        [[stage]]
        kind = "user"
        use = "loud:Loud"
    """)
    lines = [ln for ln in r.stderr.decode().splitlines() if "LOUD" in ln]
    assert lines and set(lines) == {r"tracekit: LOUD s\x1b[2J\n\xff\x9bx"}, r.stderr
