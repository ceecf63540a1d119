"""Threads killed in their calls, against strace on the same workloads.

- tests/workloads/thread_coredump.c: another thread of the process dies of a signal that
  dumps core;
- tests/workloads/group_kill.c: SIGTERM and SIGKILL sent to a process whose other
  threads wait in pause, read and futex, and, in single-threaded processes, SIGTERM
  without and with a handler (whose calls return -ERESTARTNOHAND).

Each runs ONCE traced by ``strace -f -o FILE`` and tracekit at once (the tracee is
ptraced); every line of every thread must be equal (the waiting thread's ``<... pause
resumed>) = ?``, tracekit's one-line ``pause() = ?``, after the normalising of
tests/e2e/test_strace_ops.py). group_kill.c also runs under each tracer alone, where
the tracee is not ptraced and the kernel ends its group at once (kernel/signal.c
complete_signal): each thread's lines must still be strace's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import run_tracekit
from tests.e2e._strace_lines import norm_line, pid_normaliser
from tests.e2e.test_strace_ops import build, lines_of, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

_GROUP_CALLS = ["-e", "trace=pause,kill,read,futex,execve,exit_group,rt_sigreturn"]


def test_a_thread_killed_by_another_threads_core_dump(tmp_path: Path) -> None:
    exe = build(tmp_path, "thread_coredump", "-pthread")
    procs = same_procs_one_run(exe, tmp_path, ["-e", "trace=pause,kill,execve"])
    text = "\n".join(line for lines in procs.values() for line in lines)
    # the workload reached what it is for (strace's own lines)
    assert "pause() = ?" in text, text
    assert "--- SIGABRT {si_signo=SIGABRT, si_code=SI_USER" in text, text
    assert text.count("+++ killed by SIGABRT +++") == 2, text
    assert "+++ exited with 0 +++" in text, text


def _reached(procs: dict[int, list[str]]) -> None:
    """strace's own lines of group_kill.c show each case (else the test proves nothing)."""
    pids = pid_normaliser(set(procs))
    lines = [norm_line(line, pids) for each in procs.values() for line in each]
    # SIGTERM and SIGKILL: the three waiters' calls, each in the two processes
    for call in ("pause() = ?", "read(5,  <unfinished ...>) = ?",
                 "futex(ADDR, FUTEX_WAIT_PRIVATE, 0, NULL) = ?"):
        assert lines.count(call) == 2, (call, lines)
    assert lines.count("+++ killed by SIGTERM +++") == 5, lines
    assert lines.count("+++ killed by SIGKILL +++") == 4, lines
    assert "kill(PID, SIGTERM) = 0" in lines, lines
    assert "kill(PID, SIGKILL) = ?" in lines, lines
    # the single-threaded children: the restart, and the handler's return
    assert lines.count("pause() = ? ERESTARTNOHAND (To be restarted if no handler)") == 2, \
        lines
    assert "rt_sigreturn({mask=[]}) = -1 EINTR (Interrupted system call)" in lines, lines


def test_threads_killed_by_a_signal_that_ends_the_group(tmp_path: Path) -> None:
    exe = build(tmp_path, "group_kill", "-pthread")
    procs = same_procs_one_run(exe, tmp_path, _GROUP_CALLS)
    _reached(procs)


def test_group_ends_at_once_when_not_ptraced(tmp_path: Path) -> None:
    """The two tracers apart, each on its own run: tracekit's tracee is not ptraced, so
    SIGTERM is the group's exit when it is sent (SIGKILL queued to every thread, the
    one it was sent to included), where strace's tracee takes it in that thread."""
    exe = build(tmp_path, "group_kill", "-pthread")
    s_out, t_out = tmp_path / "s.txt", tmp_path / "t.txt"
    subprocess.run(["strace", "-f", *_GROUP_CALLS, "-o", str(s_out), str(exe)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    r = run_tracekit(["strace", "-f", *_GROUP_CALLS, "-o", str(t_out), str(exe)],
                     timeout=120)
    assert r.returncode == 0, r.stderr
    s_procs, t_procs = lines_of(s_out.read_text()), lines_of(t_out.read_text())
    _reached(s_procs)
    # the pids differ between the runs: the threads' line lists, in any order
    assert sorted(t_procs.values()) == sorted(s_procs.values())
