"""Hostile strings in traced calls (a newline, an escape sequence, invalid UTF-8, an empty
and an over-long path, control bytes in a buffer) are escaped in strace and perf text as
strace escapes them: nothing raw reaches a terminal.

The calls are made by a real process on the real kernel; where strace is installed the
decoded lines are compared with its own.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import run_tracekit, write_pipeline

pytestmark = pytest.mark.kernel

PY = sys.executable


HOSTILE = r'''
import os, sys
d = sys.argv[1].encode()
names = [d + b"/a\nb", d + b"/esc\x1b[31mred", d + b"/inv\xff\xfe", b"",
         d + b"/" + b"x" * 5000, d + b"/tab\there\"q\\"]
# PATH_MAX's edge: 4095 bytes print whole, 4096 as their first 4095 and "..."
names += [d + b"/" + b"z" * (n - len(d) - 1) for n in (4095, 4096)]
for n in names:
    try:
        os.open(n, os.O_RDONLY)
    except OSError:
        pass
os.write(1, bytes(range(1, 65)))
'''


def _openat_lines(text: str, marker: str) -> list[str]:
    return [ln for ln in text.splitlines() if "openat(" in ln and marker in ln]


@pytest.mark.parametrize("fmt", ["strace", "perf"])
def test_hostile_file_names_are_escaped_as_strace_escapes_them(tmp_path: Path,
                                                               fmt: str) -> None:
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    d = str(tmp_path)
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(PY)}, {json.dumps(str(script))}, {json.dumps(d)}]
        [filter]
        syscalls = ["openat", "write"]
        [output]
        format = "{fmt}"
        path = "{tmp_path / 'out.txt'}"
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    raw = (tmp_path / "out.txt").read_bytes()
    assert b"\x1b" not in raw and b"\xff" not in raw          # nothing raw reaches a tty
    text = raw.decode("ascii")
    got = _openat_lines(text, d + "/")
    want = [d + r'/a\nb"', d + r'/esc\33[31mred"', d + r'/inv\377\376"',
            d + r'/tab\there\"q\\"']
    for w in want:
        assert sum(w in ln for ln in got) == 1, (w, got)
    long_line = [ln for ln in got if "xxxx" in ln]
    assert len(long_line) == 1 and '"...' in long_line[0]     # cut, and marked as cut
    assert "ENAMETOOLONG" in long_line[0]
    assert sum('"", ' in ln or 'filename: "",' in ln for ln in text.splitlines()
               if "openat(" in ln) == 1
    writes = [ln for ln in text.splitlines() if "write(" in ln and r"\1\2\3" in ln]
    assert len(writes) == 1 and r'\1\2\3\4\5\6\7\10\t\n\v\f\r\16\17' in writes[0]

    strace = shutil.which("strace")
    if strace is None or fmt != "strace":
        return
    so = tmp_path / "strace.txt"
    # -yy as tracekit's fd_paths (on by default): AT_FDCWD</the/working/directory>
    subprocess.run([strace, "-f", "-qq", "-yy", "-e", "trace=openat", "-s", "32", "-o", str(so),
                    PY, str(script), d], check=True, capture_output=True)
    theirs = [re.sub(r"\s+= ", " = ", ln.split(None, 1)[1])
              for ln in _openat_lines(so.read_text("ascii"), d + "/")]
    ours = [ln.split(" ", 2)[2].rsplit(" <", 1)[0] for ln in got]
    # strace -f prints "pid call"; tracekit "pid time call <dur>": compare the calls
    # (the over-long path too: 4095 of its bytes and "...", as strace shows it)
    assert [o for o in ours if "hostile.py" not in o] == \
        [t for t in theirs if "hostile.py" not in t]
