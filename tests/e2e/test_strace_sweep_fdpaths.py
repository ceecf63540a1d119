"""fd decorations under ``-yy`` against strace on ONE run, where a tracer that reads
/proc/PID/fd when it decodes a call (after the call ran) can see a later fd of the same
number, and where an open's path names /proc/self.

tests/workloads/sweep_fdpaths.c: a closed fd named by a failing fcntl and then opened
again at the same number; fd 255 close-on-exec across an execve, named by fcntl and dup2
after it; opens of /proc/self/status, /proc/thread-self/stat and ``self/stat`` under an
fd of /proc; files and a directory unlinked while open (``(deleted)``); a pty peer
opened by ioctl(TIOCGPTPEER) after the exec (an fd no fd-returning call made).
tracekit traces ``strace -f -yy -o FILE sweep_fdpaths``: every line equal.
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


def test_sweep_fdpaths_equals_strace_yy_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_fdpaths"), tmp_path, ["-yy"])
    assert len(s_procs) == 1, list(s_procs)
    ((pid, s_lines),) = s_procs.items()
    t_lines = t_procs.get(pid, [])
    assert t_lines == s_lines, "\n".join(difflib.unified_diff(
        s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(s_lines)
    for want in ("fcntl(3, F_GETFD) = -1 EBADF", "fcntl(255, F_GETFD) = -1 EBADF",
                 f"= 3</proc/{pid}/status>", f"= 3</proc/{pid}/task/{pid}/stat>",
                 f'"self/stat", O_RDONLY) = 4</proc/{pid}/stat>',
                 ", 255) = 255<", "TIOCGPTPEER, 0x102) = 4",
                 "fcntl(4</dev/pts/", "/gone>(deleted), F_GETFL)",
                 "/gone2>(deleted), F_GETFL)", "/sub>(deleted), F_GETFL)",
                 "/kept>, F_GETFL)"):
        assert want in text, want
