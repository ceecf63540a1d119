"""End to end: text output does not wait for the next event once the ring buffer is idle.

The reorder stage before the text formatters holds each event for its window; when the
traced program goes quiet, the ring-buffer source reports that a read found nothing and
the stage lets the held lines out, while the program is still running.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, write_pipeline

pytestmark = pytest.mark.kernel

# Writes a marker to /dev/null, then blocks opening a fifo until the test opens its other
# end: no syscall of it returns meanwhile, so no newer event can push the marker out.
QUIET_AFTER_MARKER = """
import os, sys
fd = os.open("/dev/null", os.O_WRONLY)
os.write(fd, b"idle-release-marker")
with open(sys.argv[1]) as f:
    f.read()
"""


@pytest.mark.parametrize("fmt", ["strace", "perf"])
def test_held_line_is_printed_while_the_traced_program_is_quiet(tmp_path: Path,
                                                                fmt: str) -> None:
    fifo = tmp_path / "release"
    os.mkfifo(fifo)
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [filter]
        syscalls = ["write"]
        [output]
        format = "{fmt}"
        """)
    out = tmp_path / "out.txt"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([*TRACEKIT, "run", str(pipeline), "-o", str(out), "--",
                             sys.executable, "-c", QUIET_AFTER_MARKER, str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    marker = b"idle-release-marker" if fmt == "strace" else b"count: 19"
    try:
        deadline = time.monotonic() + 30
        seen = False
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and marker in out.read_bytes():
                seen = True
                break
            time.sleep(0.05)
        # the program is still blocked on the fifo: only the idle release can have
        # printed its write
        assert seen, (out.read_bytes() if out.exists() else b"", proc.poll())
        assert proc.poll() is None
    finally:
        with open(fifo, "w"):       # let the program finish (it reads EOF)
            pass
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert marker in out.read_bytes()
