"""A recording written to a pipe or fifo whose reader goes away (``record -o - | head -c``,
a fifo's reader that closes): tracekit ends as it does when a trace's reader goes
(``run ... | head``): status 141, the command it started gets SIGPIPE, no traceback. A
``run --record FIFO`` whose recording's reader goes keeps tracing to its other outputs and
says once that the recording stopped.

Each test starts its own command (which writes its pid to a file, so a test can see it
ended) and kills what is left: -n 2 safe.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, kill_tree, tracekit_env, wait_until

pytestmark = pytest.mark.kernel

# runs until it is killed: only the SIGPIPE tracekit sends on ends it
FOREVER = 'echo $$ > "$1"; while :; do cat /etc/hostname >/dev/null; done'
FINITE = 'for i in $(seq 1500); do cat /etc/hostname >/dev/null; done'


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            st = f.read()
    except OSError:
        return False
    return st[st.rfind(b")") + 2:][:1] != b"Z"


def _end(proc: subprocess.Popen[bytes], pidfile: Path) -> None:
    kill_tree(proc.pid)
    if pidfile.exists() and pidfile.read_text().strip():
        try:
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


def _started(pidfile: Path) -> None:
    """Waits for the command to write its pid: a reader that leaves before then could
    end it before there is a pid to check."""
    wait_until(lambda: pidfile.exists() and pidfile.read_text().strip().isdigit(),
               "the traced command to write its pid", timeout=30)


def _check_ended_by_sigpipe(proc: subprocess.Popen[bytes], pidfile: Path) -> None:
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("tracekit went on after its recording's reader left")
    text = err.decode(errors="replace")
    assert "Traceback" not in text, text
    assert proc.returncode == 141, text
    pid = int(pidfile.read_text())
    wait_until(lambda: not _alive(pid), "the command to end on SIGPIPE", timeout=10)


def test_record_to_stdout_whose_reader_leaves(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    proc = subprocess.Popen(
        [*TRACEKIT, "record", "-o", "-", "--", "sh", "-c", FOREVER, "sh", str(pidfile)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tracekit_env(),
        preexec_fn=die_with_parent)
    try:
        assert proc.stdout is not None
        got = proc.stdout.read(4096)
        assert got.startswith(b"\x89tkrec")
        _started(pidfile)
        proc.stdout.close()             # | head -c 4096
        _check_ended_by_sigpipe(proc, pidfile)
    finally:
        _end(proc, pidfile)


def test_record_to_a_fifo_whose_reader_leaves(tmp_path: Path) -> None:
    pidfile, fifo = tmp_path / "pid", tmp_path / "rec.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [*TRACEKIT, "record", "-o", str(fifo), "--", "sh", "-c", FOREVER, "sh", str(pidfile)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tracekit_env(),
        preexec_fn=die_with_parent)
    try:
        with open(fifo, "rb") as reader:
            assert reader.read(4096).startswith(b"\x89tkrec")
            _started(pidfile)
        _check_ended_by_sigpipe(proc, pidfile)
    finally:
        _end(proc, pidfile)


def test_run_goes_on_when_its_recording_reader_leaves(tmp_path: Path) -> None:
    fifo, out = tmp_path / "rec.fifo", tmp_path / "trace.txt"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [*TRACEKIT, "run", "-e", "openat", "-o", str(out), "--record", str(fifo), "--",
         "sh", "-c", FINITE],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=tracekit_env(),
        preexec_fn=die_with_parent)
    try:
        def read_a_little() -> None:
            with open(fifo, "rb") as reader:
                reader.read(4096)
        t = threading.Thread(target=read_a_little)
        t.start()
        t.join(30)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=60)
        text = err.decode(errors="replace")
        assert "Traceback" not in text, text
        assert proc.returncode == 0, text       # the command's status
        lines = [ln for ln in text.splitlines() if ln.strip()]
        assert len(lines) == 1 and "recording" in lines[0], text
        # the other output has the whole trace
        assert out.read_text().count('filename: "/etc/hostname"') == 1500
        assert time.monotonic() - t0 < 60
    finally:
        kill_tree(proc.pid)
