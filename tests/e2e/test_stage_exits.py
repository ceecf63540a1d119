"""A user stage that calls ``sys.exit(3)`` or raises ``KeyboardInterrupt`` itself fails
as a stage does: one line naming it and what it did, status 1, what was printed before
kept, the command ended (it does not run on untraced), no ExceptionGroup traceback and
no silent 130 (pipeline._run.StageExit).

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env, write_pipeline
from tests.e2e.test_command_not_left import _gone, _kill, _loop, _pid_of, reaper

pytestmark = pytest.mark.kernel
__all__ = ["reaper"]     # the fixture, imported for its use here

BOOM_PY = """
import sys


class Boom:
    name = "boom"

    def __init__(self, *, mode):
        self.mode = mode
        self.seen = 0

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                self.seen += 1
                if self.seen == 3:
                    if self.mode == "exit":
                        sys.exit(3)
                    raise KeyboardInterrupt
                await send.send(batch)
"""


@pytest.mark.parametrize(("mode", "said"), [("exit", "it called sys.exit(3)"),
                                            ("kbi", "it raised KeyboardInterrupt")])
def test_a_stage_that_exits_is_a_failed_stage(tmp_path: Path, mode: str, said: str,
                                              reaper: Path) -> None:
    (tmp_path / "boom.py").write_text(BOOM_PY)
    pidfile = reaper
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = [{", ".join(f'"{a}"' for a in _loop(pidfile)[:2])}, {_loop(pidfile)[2]!r}]
        [[stage]]
        kind = "user"
        use = "boom:Boom"
        [stage.options]
        mode = "{mode}"
        [output]
        format = "jsonl"
        """)
    r = subprocess.run([*TRACEKIT, "run", str(cfg)], capture_output=True, text=True,
                       env=tracekit_env(PYTHONPATH=str(tmp_path)), timeout=60,
                       preexec_fn=die_with_parent)
    pid = _pid_of(pidfile)
    try:
        assert r.stderr.splitlines() == [f"tracekit: error: stage 'boom' failed: StageExit: "
                                         f"{said}"], shlex.quote(r.stderr)
        assert r.returncode == 1
        assert '"syscall"' in r.stdout          # the two batches passed on were printed
        assert _gone(pid)
    finally:
        _kill(pid)
