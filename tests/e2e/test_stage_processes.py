"""A process a user stage starts gets the signal mask tracekit was started with, through
``tracekit.pipeline.restore_signal_mask``; without it, it would inherit the mask of
tracekit's threads, which block SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP and SIGCONT for
the signal thread (so ^C and ``kill`` could not end it)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env, write_pipeline

pytestmark = pytest.mark.kernel

# On its first batch, starts `cat /proc/self/status` twice (with and without the helper)
# and writes each child's SigBlk line to the file named by its option.
STAGE = '''
import subprocess
from tracekit.pipeline import restore_signal_mask

def sigblk(**kw):
    out = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True,
                         check=True, **kw).stdout
    return next(ln.split()[1] for ln in out.splitlines() if ln.startswith("SigBlk:"))

class Masks:
    name = "masks"

    def __init__(self, out):
        self.out = out

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                if self.out:
                    with open(self.out, "w") as f:
                        f.write(sigblk(preexec_fn=restore_signal_mask) + " " + sigblk() + "\\n")
                    self.out = None
                await send.send(batch)
'''


def _start_masked() -> None:
    die_with_parent()
    signal.pthread_sigmask(signal.SIG_SETMASK, {signal.SIGUSR1})


def test_a_process_a_stage_starts_gets_the_mask_tracekit_had(tmp_path: Path) -> None:
    (tmp_path / "tk_masks.py").write_text(STAGE)
    out = tmp_path / "masks"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["true"]
        [[stage]]
        kind = "user"
        use = "tk_masks:Masks"
        options = {{ out = "{out}" }}
        [output]
        format = "jsonl"
        path = "/dev/null"
    """)
    r = subprocess.run([*TRACEKIT, "run", str(cfg)], capture_output=True, text=True,
                       timeout=60, env=tracekit_env(PYTHONPATH=str(tmp_path)),
                       preexec_fn=_start_masked)
    assert r.returncode == 0, r.stderr
    restored, inherited = (int(word, 16) for word in out.read_text().split())
    assert restored == 1 << (signal.SIGUSR1 - 1)          # as tracekit was started
    watched = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP,
               signal.SIGTSTP, signal.SIGCONT)
    assert all(inherited & (1 << (s - 1)) for s in watched), hex(inherited)  # the problem
