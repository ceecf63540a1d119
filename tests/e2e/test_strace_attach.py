"""``tracekit strace -p`` against real strace on processes the test starts: what an
attach traces (the given processes' threads, then the forks made after it) and what is
said of a process that exits while it is attached or is gone before.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

STRACE = ["strace"]


def _attach_for(tool: list[str], opts: list[str], seconds: float, out: Path
                ) -> subprocess.CompletedProcess[str]:
    """Run ``tool strace``-style with ``opts`` and ``-o out``, stop it with SIGINT after
    ``seconds`` (as ``timeout -s INT``)."""
    env = tracekit_env() if tool is TRACEKIT else None
    argv = [*tool, "strace"] if tool is TRACEKIT else list(tool)
    p = subprocess.Popen([*argv, "-o", str(out), *opts], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        time.sleep(seconds)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)


def _start(script: str) -> subprocess.Popen[bytes]:
    """A shell running ``script`` in a session of its own (killed as a group after)."""
    return subprocess.Popen(["sh", "-c", script], start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def _stop(p: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


@pytest.mark.parametrize("tool", [STRACE, TRACEKIT], ids=["strace", "tracekit"])
def test_f_p_follows_forks_after_the_attach_not_children_from_before(
        tool: list[str], tmp_path: Path) -> None:
    """The parent's child that runs before the attach (sleeping 0.2 s at a time) is not
    traced; the sleeps the parent forks after it (0.3 s) are, as strace -f -p does."""
    p = _start('sh -c "while :; do /bin/sleep 0.2; done" & '
               'while :; do /bin/sleep 0.3; done')
    try:
        time.sleep(0.5)
        out = tmp_path / "trace"
        r = _attach_for(tool, ["-f", "-p", str(p.pid)], 2.0, out)
    finally:
        _stop(p)
    text = out.read_text()
    assert f"Process {p.pid} attached" in r.stderr, r.stderr
    assert "tv_nsec=300000000" in text, text          # a child forked after the attach
    assert "tv_nsec=200000000" not in text, text      # the child from before it
