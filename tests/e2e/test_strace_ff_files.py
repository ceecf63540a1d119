"""``tracekit strace -ff -o PREFIX``: one ``PREFIX.PID`` file per task, and what happens
when one of them cannot be made.

A task's file is closed when the task is gone, as strace closes it: a command that makes
more processes over its life than tracekit may hold fds at once has every one of them
traced whole, and a line that comes for the task's tid after its exit line (here: the
new image of a thread that execs and so takes its leader's tid) is added to the file,
never cutting off what it held.

A missing directory is refused before the command starts, as strace refuses it. A file
that cannot be created while the trace runs (here: a symlink or a fifo that the traced
process itself planted at the name its next child's file will have) costs that task's
lines, said on stderr and counted at the end; the trace of everything else goes on, the
command runs to its end traced, and the status is the command's.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, compile_c, die_with_parent, run_tracekit

pytestmark = pytest.mark.kernel

# The workload: child A runs and exits; then names for the 300 pids handed out after A's
# are planted (os.symlink / os.mkfifo: no process is made meanwhile), so child B's file
# name is taken whatever pids other processes took; then it sleeps, and writes a marker
# at its end: a trace that died at B's file would leave it running untraced. The pids
# after A's wrap at pid_max to RESERVED_PIDS (300, kernel/pid.c), which a busy machine
# with pid_max 32768 reaches every few minutes (B's pid was then not among the planted).
WORKLOAD = r"""
import itertools, os, subprocess, sys, time
prefix, target, kind, tail = sys.argv[1:5]
with open("/proc/sys/kernel/pid_max") as f:
    pid_max = int(f.read())
def after(pid):
    while True:
        pid = pid + 1 if pid + 1 < pid_max else 300
        yield pid
a = subprocess.Popen(["/bin/echo", "child-a"], stdout=subprocess.DEVNULL)
a.wait()
planted = []
for pid in itertools.islice(after(a.pid), 300):
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
    assert lines[0] == (f"tracekit strace: '{prefix}.{b_pid}': {why}; the lines of task {b_pid} "
                        "are not written")
    assert re.fullmatch(r"tracekit strace: [1-9]\d* lines? not written: the file of 1 task "
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


# tracekit holds about 50 fds of its own while tracing (programs, maps, links, sockets):
# this leaves it room for a few dozen task files at once, far fewer than the command makes
_NOFILE = 128
_CHILDREN = 300


def _nofile_and_die_with_parent() -> None:
    """``preexec_fn`` of the tracekit process: RLIMIT_NOFILE lowered to ``_NOFILE`` (the
    command inherits it; it needs a handful), and killed with the test."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    n = min(hard, _NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
    die_with_parent()


def test_a_file_is_closed_when_its_task_ends(tmp_path: Path) -> None:
    """300 short children one after another, RLIMIT_NOFILE 128: every child's file is
    there and whole (it ends with its exit line), and nothing ran out of fds. With every
    file held open to the end, the files of the children after the first few dozen could
    not be made (EMFILE) and their lines were dropped."""
    prefix = tmp_path / "p"
    pids = tmp_path / "pids"
    loop = (f"i=0; while [ $i -lt {_CHILDREN} ]; do /bin/true & echo $! >> {pids}; "
            "wait $!; i=$((i + 1)); done")
    try:
        r = run_tracekit(["strace", "-ff", "-o", str(prefix), "/bin/sh", "-c", loop],
                         timeout=120, preexec_fn=_nofile_and_die_with_parent)
    finally:
        for _ in range(50):
            if not _ours(tmp_path):
                break
            time.sleep(0.1)
    assert not _ours(tmp_path), "the command was left running"
    assert r.returncode == 0, r.stderr
    assert "EMFILE" not in r.stderr and "not written" not in r.stderr, r.stderr[-600:]
    children = [int(p) for p in pids.read_text().split()]
    assert len(set(children)) == _CHILDREN
    missing, cut = [], []
    for pid in children:
        f = Path(f"{prefix}.{pid}")
        if not f.exists():
            missing.append(pid)
            continue
        text = f.read_text()
        if not ('execve("/bin/true", ["/bin/true"]' in text
                and re.search(r"\nexit_group\(0\) +=  ?\?\n\+\+\+ exited with 0 \+\+\+\n\Z",
                              text)):
            cut.append((pid, text[-200:]))
    assert not missing, f"{len(missing)} of {_CHILDREN} files missing: {missing[:5]}"
    assert not cut, f"{len(cut)} files cut short: {cut[:2]}"
    # the shell's own file: the only other one, and whole too
    others = {p.name for p in tmp_path.glob("p.*")} - {f"p.{pid}" for pid in children}
    assert len(others) == 1, sorted(others)
    assert Path(tmp_path / others.pop()).read_text().endswith("+++ exited with 0 +++\n")


# A thread that execs while its leader sleeps in pause(): the leader is "superseded" (its
# file gets that line and is closed), and the thread, now with the leader's tid, runs
# sleep, whose calls come after a pause of a quarter second: the same file again.
EXEC_FROM_THREAD_THEN_SLEEP = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

static void *execer(void *arg)
{
	char path[] = "/bin/sleep", arg0[] = "sleep", arg1[] = "0.25";
	char *argv[] = {arg0, arg1, NULL}, *envp[] = {NULL};

	(void)arg;
	execve(path, argv, envp);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, execer, NULL))
		return 2;
	pause();
	return 3;
}
"""


def test_a_line_after_the_exit_line_is_added_to_the_file(tmp_path: Path) -> None:
    """The leader's file holds the program's lines, its ``+++ superseded by execve``
    line, then the new image's, to its ``+++ exited with 0 +++``: reopened after the
    superseded line closed it, it was added to, not truncated."""
    if not os.path.exists("/bin/sleep"):
        pytest.skip("no /bin/sleep")
    prog = compile_c(EXEC_FROM_THREAD_THEN_SLEEP, tmp_path, "eft_sleep", "-pthread")
    prefix = tmp_path / "q"
    r = run_tracekit(["strace", "-ff", "-o", str(prefix), str(prog)], timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    leaders = [p for p in tmp_path.glob("q.*") if "+++ superseded by" in p.read_text()]
    assert len(leaders) == 1, sorted(p.name for p in tmp_path.glob("q.*"))
    leader = leaders[0]
    lines = leader.read_text().splitlines()
    assert lines[0].startswith(f'execve("{prog}", ['), lines[:3]
    sup = next(i for i, ln in enumerate(lines) if ln.startswith("+++ superseded by"))
    execer = int(re.fullmatch(r"\+\+\+ superseded by execve in pid (\d+) \+\+\+",
                              lines[sup]).group(1))      # type: ignore[union-attr]
    assert execer != int(leader.name.split(".")[1])
    after = lines[sup + 1:]
    assert any(re.match(r"(clock_)?nanosleep\(", ln) for ln in after), after
    assert after[-1] == "+++ exited with 0 +++"
    assert sum(ln.startswith("+++ ") for ln in lines) == 2
    assert leader.stat().st_mode & 0o777 == 0o600


# A thread execs the program again (argv[2] = "2"), which takes the leader's pid; once
# tracekit has closed the leader's file (its "+++ superseded" line), the new image
# deletes it and makes a file of its own at the name, often on the same inode number,
# with a forged first line, then makes calls whose lines belong in that file.
PLANT_AFTER_EXEC = r"""
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char **av;

static void *execer(void *arg)
{
	char *again[] = {av[0], av[1], "2", NULL};

	usleep(100000);
	execv(av[0], again);
	return arg;
}

int main(int argc, char **argv)
{
	char name[4096];
	pthread_t t;
	int fd;

	if (argc > 2) {
		usleep(1000000);
		snprintf(name, sizeof(name), "%s.%d", argv[1], getpid());
		unlink(name);
		fd = open(name, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd >= 0) {
			write(fd, "forged\n", 7);
			close(fd);
		}
		getuid();
		return 5;
	}
	av = argv;
	if (pthread_create(&t, NULL, execer, NULL))
		return 2;
	pause();
	return 3;
}
"""


def test_a_file_the_traced_process_made_again_is_never_added_to(tmp_path: Path) -> None:
    """The traced process (as nobody, in a directory anyone may write) replaces the
    leader's closed file with one of its own: tracekit's later lines do not go after its
    forged line in its file; a new file of tracekit's (root's, 0600) takes the name and
    holds them. (Were the leader's file still open when the file is replaced, on a
    machine slow enough, tracekit's lines would go to the deleted file, as strace's do:
    then the run is made again, up to 3 times.)"""
    shared = Path(tempfile.mkdtemp(prefix="tk-ff-plant-"))
    try:
        shared.chmod(0o777)                 # pytest's tmp_path is root's alone
        prog = compile_c(PLANT_AFTER_EXEC, shared, "plant", "-pthread")
        for attempt in range(3):
            prefix = shared / f"t{attempt}"
            r = run_tracekit(["strace", "-u", "nobody", "-ff", "-o", str(prefix),
                              str(prog), str(prefix)], timeout=60)
            assert r.returncode == 5, r.stderr
            files = sorted(shared.glob(f"t{attempt}.*"))
            for p in files:                 # whatever the timing: never after its line
                lines = p.read_text().splitlines()
                assert "forged" not in lines or lines == ["forged"], (p.name, lines)
            leader = [p for p in files if "getuid()" in p.read_text()]
            if leader:
                break
        assert len(leader) == 1, [p.name for p in files]
        assert leader[0].read_text().splitlines()[-1] == "+++ exited with 5 +++"
        st = leader[0].stat()
        assert (st.st_uid, st.st_mode & 0o777) == (os.geteuid(), 0o600)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_file_that_cannot_be_written_is_said_as_strace_says_its_errors(
        tmp_path: Path) -> None:
    """Past RLIMIT_FSIZE (1 KiB) each task's file fails with EFBIG: one line per task and
    a count, each with the ``tracekit strace:`` prefix of tracekit strace's other
    messages (they said ``tracekit:``)."""
    prefix = tmp_path / "x"

    def limit() -> None:
        die_with_parent()
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    r = run_tracekit(["strace", "-ff", "-o", str(prefix), "sh", "-c", "true; /bin/true"],
                     preexec_fn=limit)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    tids = sorted(int(p.name.split(".")[1]) for p in tmp_path.glob("x.*"))
    assert len(tids) == 2 and len(lines) == 3, r.stderr
    assert sorted(lines[:2]) == [
        f"tracekit strace: '{prefix}.{tid}': writing failed: File too large (EFBIG); the "
        f"lines of task {tid} are not written" for tid in tids]
    assert re.fullmatch(r"tracekit strace: [1-9]\d* lines not written: the files of 2 "
                        r"tasks could not be created or written \(above\)", lines[2]), lines
