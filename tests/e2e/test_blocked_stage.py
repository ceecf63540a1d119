"""A second SIGINT ends tracekit at once even when a user stage blocks the trio loop."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, write_pipeline

pytestmark = pytest.mark.kernel

BLOCKER = '''
import time

class Blocker:
    name = "blocker"

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                open(__file__ + ".blocked", "w").close()
                time.sleep(3600)  # a stage that blocks the whole loop
'''


def test_second_sigint_ends_a_run_whose_stage_blocks(tmp_path: Path) -> None:
    mod = tmp_path / "tk_blocker.py"
    mod.write_text(BLOCKER)
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["sleep", "30"]
        [[stage]]
        kind = "user"
        use = "tk_blocker:Blocker"
        [output]
        format = "jsonl"
        path = "/dev/null"
    """)
    err = tmp_path / "stderr"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    with err.open("wb") as errf:  # a file: the untraced command may keep it open
        tk = subprocess.Popen([*TRACEKIT, "run", str(cfg)], env=env, stderr=errf)
    try:
        deadline = time.monotonic() + 30
        while not Path(str(mod) + ".blocked").exists():
            assert time.monotonic() < deadline, "the stage never got a batch"
            time.sleep(0.02)
        t0 = time.monotonic()
        tk.send_signal(signal.SIGINT)   # forwarded to the command at once
        time.sleep(0.3)
        tk.send_signal(signal.SIGINT)   # the loop is stuck: the process ends anyway
        tk.wait(timeout=15)
        took = time.monotonic() - t0
    finally:
        tk.kill()
    assert tk.returncode == 128 + signal.SIGINT, err.read_text()
    assert took < 5
