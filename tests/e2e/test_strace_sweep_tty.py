"""A sweep over terminal and file ioctls, ptrace requests and prctl options, against
strace 6.1 on ONE run.

tests/workloads/sweep_tty.c makes terminal ioctls on a pty pair of its own (and, in a
child with a session of its own, the controlling-terminal ones), the same requests on a
scratch file and on fd -1, file ioctls on scratch files and /dev/urandom, ptrace requests
on a child it seizes itself and on a pid that does not exist, and prctl/arch_prctl
options that read or set its own state: each with NULL and bad pointers, unknown
constants and garbage in the high half of an int. tracekit traces
``strace -f -o FILE sweep_tty``, so both see the same calls: every line of each of the
program's processes must be equal, but for the known gaps below.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, one_run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_tty_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_tty"), tmp_path)
    assert len(s_procs) == 2                        # the program and its ctty child
    diffs = []
    for pid, s_lines in s_procs.items():
        t_lines = t_procs.get(pid, [])
        if t_lines != s_lines:
            diffs.append("\n".join(difflib.unified_diff(
                s_lines, t_lines, f"strace {pid}", f"tracekit {pid}", lineterm="", n=0)))
    assert not diffs, "\n".join(diffs)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in ():
        assert want in text, want
