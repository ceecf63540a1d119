"""Threads killed in their calls when another thread of the process dies of a signal that
dumps core, against strace on ONE run: tests/workloads/thread_coredump.c, traced by
``strace -f -o FILE`` and tracekit at once; every line of every thread must be equal
(the waiting thread's ``<... pause resumed>) = ?``, tracekit's one-line ``pause() =
?``, after the normalising of tests/e2e/test_strace_ops.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_a_thread_killed_by_another_threads_core_dump(tmp_path: Path) -> None:
    exe = build(tmp_path, "thread_coredump", "-pthread")
    procs = same_procs_one_run(exe, tmp_path, ["-e", "trace=pause,kill,execve"])
    text = "\n".join(line for lines in procs.values() for line in lines)
    # the workload reached what it is for (strace's own lines)
    assert "pause() = ?" in text, text
    assert "--- SIGABRT {si_signo=SIGABRT, si_code=SI_USER" in text, text
    assert text.count("+++ killed by SIGABRT +++") == 2, text
    assert "+++ exited with 0 +++" in text, text
