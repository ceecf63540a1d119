"""``tracekit strace -ff -o PREFIX``: one ``PREFIX.PID`` file per task, and what happens
when one of them cannot be made.

A missing directory is refused before the command starts, as strace refuses it. A file
that cannot be created while the trace runs (here: a symlink or a fifo that the traced
process itself planted at the name its next child's file will have) costs that task's
lines, said on stderr and counted at the end; the trace of everything else goes on, the
command runs to its end traced, and the status is the command's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, run_tracekit

pytestmark = pytest.mark.kernel

# The workload: child A runs and exits; then names for the 300 pids after A's are planted
# (os.symlink / os.mkfifo: no process is made meanwhile), so child B's file name is
# taken whatever pids other processes took; then it sleeps, and writes a marker at its
# end: a trace that died at B's file would leave it running untraced.
WORKLOAD = r"""
import os, subprocess, sys, time
prefix, target, kind, tail = sys.argv[1:5]
a = subprocess.Popen(["/bin/echo", "child-a"], stdout=subprocess.DEVNULL)
a.wait()
planted = []
for pid in range(a.pid + 1, a.pid + 301):
    name = f"{prefix}.{pid}"
    if os.path.lexists(name):
        continue
    os.symlink(target, name) if kind == "symlink" else os.mkfifo(name)
    planted.append(pid)
b = subprocess.Popen(["/bin/echo", "child-b"], stdout=subprocess.DEVNULL)
b.wait()
with open(tail + ".b", "w") as f:
    print(a.returncode, b.pid, b.pid in planted, file=f)
time.sleep(1)
with open(tail, "w") as f:
    f.write("end\n")
sys.exit(5)
"""


def _ours(tmp_path: Path) -> list[int]:
    """Processes still running whose command line names ``tmp_path`` (ours alone)."""
    mine = os.fsencode(str(tmp_path))
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if mine in cmdline:
            left.append(int(entry))
    return left


def test_a_missing_directory_is_refused_before_the_command_starts(tmp_path: Path) -> None:
    prefix = tmp_path / "nodir" / "x"
    marker = tmp_path / "ran"
    r = run_tracekit(["strace", "-ff", "-o", str(prefix), "sh", "-c", f"echo > {marker}"])
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        f"tracekit strace: output path '{prefix}.PID': directory '{prefix.parent}' does "
        "not exist (ENOENT)"]
    time.sleep(0.5)                 # a command started anyway would have written it now
    assert not marker.exists()
    assert not _ours(tmp_path)


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_file_planted_by_the_traced_process_costs_only_its_task(tmp_path: Path,
                                                                  kind: str) -> None:
    prefix = tmp_path / "z"
    target = tmp_path / "target.txt"
    target.write_text("original\n")
    tail = tmp_path / "tail"
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    try:
        r = run_tracekit(["strace", "-ff", "-o", str(prefix), "-e", "trace=execve,wait4",
                          sys.executable, str(script), str(prefix), str(target), kind,
                          str(tail)], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"tracekit strace hung at the planted {kind}")
    finally:
        for _ in range(50):         # the workload's own end (1 s of sleep at most)
            if not _ours(tmp_path):
                break
            time.sleep(0.1)
    assert not _ours(tmp_path), "the command was left running"
    assert r.returncode == 5, r.stderr
    assert tail.read_text() == "end\n"          # it ran to its end, traced
    status_a, b_pid, b_planted = Path(f"{tail}.b").read_text().split()
    assert (status_a, b_planted) == ("0", "True")
    lines = r.stderr.splitlines()
    why = {"symlink": "Too many levels of symbolic links (ELOOP) (a symlink: tracekit "
                      "does not write through links)",
           "fifo": "a fifo or device is there, not written in place (EEXIST)"}[kind]
    assert len(lines) == 2, lines
    assert lines[0] == (f"tracekit: '{prefix}.{b_pid}': {why}; the lines of task {b_pid} "
                        "are not written")
    assert re.fullmatch(r"tracekit: [1-9]\d* lines? not written: the file of 1 task "
                        r"could not be created or written \(above\)", lines[1]), lines[1]
    # nothing written through the link or into the fifo: the planted names are as they were
    b_name = Path(f"{prefix}.{b_pid}")
    if kind == "symlink":
        assert b_name.is_symlink() and target.read_text() == "original\n"
    else:
        assert b_name.is_fifo()
    # the other tasks' files are whole: the parent's and child A's
    files = {p: p.read_text() for p in tmp_path.glob("z.*")
             if not p.is_symlink() and p.is_file()}
    assert len(files) == 2, sorted(files)
    texts = sorted(files.values(), key=len)
    child, parent = texts
    assert 'execve("/bin/echo", ["/bin/echo", "child-a"]' in child
    assert child.endswith("+++ exited with 0 +++\n")
    assert parent.endswith("+++ exited with 5 +++\n")


def test_strace_f_waits_for_the_children_the_command_left(tmp_path: Path) -> None:
    """``sh -c 'CHILD & exit 0'``: strace -f waits for every traced process, so the child's
    calls after the shell exited are all there (the session ended with the shell, and
    900-4,000 of 5,000 calls were missing without a word)."""
    n = 3000
    child = (f"{sys.executable} -S -c 'import os, time\ntime.sleep(0.3)\n"
             f"for _ in range({n}): os.getppid()'")
    out = tmp_path / "t.txt"
    r = subprocess.run([*TRACEKIT, "strace", "-f", "-qq", "-e", "trace=getppid", "-o",
                        str(out), "sh", "-c", f"{child} & exit 0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    # the interpreter's own start makes one more
    assert n <= sum("getppid()" in ln for ln in lines) <= n + 2, r.stderr
