"""When tracekit ends on its own (the reader of its output went away; an output could
not be written; a stage failed), the command it started does not run on untraced:

- a reader gone (``| head``): tracekit ends of SIGPIPE (141) and sends SIGPIPE to the
  command, as strace's cleanup on a fatal signal does (a command that traps it is told,
  one that does not dies of it);
- tracing failed (ENOSPC on the ``-o`` file, /dev/full): one line, status 1, and the
  command gets SIGKILL, as strace's exit on a fatal error kills the command it started;
- a ``-p`` target is not tracekit's: it is left running.

Each test starts and traces only its own processes and checks the command's pid is gone.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env

pytestmark = pytest.mark.kernel


def _loop(pidfile: Path, trap: Path | None = None) -> list[str]:
    """A shell that writes its pid, then runs /bin/true forever (many calls, no output)."""
    body = ""
    if trap is not None:          # before the pid: a reader that waits for it sees a trap
        body += f'trap "echo PIPE >> {shlex.quote(str(trap))}; exit 7" PIPE; '
    body += f"echo $$ > {shlex.quote(str(pidfile))}; "
    return ["sh", "-c", body + "while :; do /bin/true; done"]


def _gone(pid: int, within_s: float = 5.0) -> bool:
    """Whether ``pid`` ended (or is a zombie: dead, waiting for its reaper) in time."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except FileNotFoundError:
            return True
        if stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X"):
            return True
        time.sleep(0.05)
    return False


def _pid_of(pidfile: Path) -> int:
    return int(pidfile.read_text())


def _pid_if_written(pidfile: Path, within_s: float = 5.0) -> int | None:
    """The command's pid, or None when it did not write it in time: tracekit ended it
    before its ``echo`` (a first write that failed at once). A command left running
    would write it within the wait."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            return int(pidfile.read_text())
        except (OSError, ValueError):
            time.sleep(0.02)
    return None


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture
def reaper(tmp_path: Path) -> Iterator[Path]:
    """The pid file the test's command writes; whatever pid is in it at the end gets
    SIGKILL, also when the test failed or timed out before reading it (a command left
    running is what these tests look for: it must not outlive a failed test)."""
    pidfile = tmp_path / "pid"
    yield pidfile
    try:
        _kill(_pid_of(pidfile))
    except (OSError, ValueError):
        pass


@pytest.mark.parametrize("front", [["strace", "-f"], ["run", "-F", "strace", "--"]],
                         ids=["strace", "run"])
def test_a_reader_gone_sends_sigpipe_to_the_command(tmp_path: Path, front: list[str],
                                                     reaper: Path) -> None:
    pidfile, mark = reaper, tmp_path / "mark"
    cmd = " ".join(shlex.quote(a) for a in [*TRACEKIT, *front, *_loop(pidfile, mark)])
    redirect = "2>&1 >/dev/null" if front[0] == "strace" else ""
    # the reader leaves after one line and once the command has written its pid (and
    # set its trap): leaving sooner could end the command before there is a pid to check
    wait = f"while [ ! -s {shlex.quote(str(pidfile))} ]; do sleep 0.01; done"
    r = subprocess.run(f"{cmd} {redirect} | {{ head -1 >/dev/null; {wait}; }}; "
                       "echo ${PIPESTATUS[0]}",
                       shell=True, executable="/bin/bash", capture_output=True, text=True,
                       env=tracekit_env(), timeout=60, preexec_fn=die_with_parent)
    pid = _pid_of(pidfile)
    try:
        assert r.stdout.strip() == "141", r.stderr
        assert "Traceback" not in r.stderr
        assert _gone(pid)
        assert mark.read_text() == "PIPE\n"     # it had SIGPIPE (its trap said so)
    finally:
        _kill(pid)


def _enospc_run(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TRACEKIT, *args], capture_output=True, text=True,
                          env=tracekit_env(), timeout=60, preexec_fn=die_with_parent,
                          **kw)  # type: ignore[call-overload]


@pytest.mark.parametrize("front", [["strace", "-f", "-o"], ["run", "-F", "strace", "-o"]],
                         ids=["strace", "run"])
def test_dev_full_as_output_kills_the_command(front: list[str], reaper: Path) -> None:
    pidfile = reaper
    sep = ["--"] if front[0] == "run" else []
    r = _enospc_run([*front, "/dev/full", *sep, *_loop(pidfile)])
    pid = _pid_if_written(pidfile)
    try:
        assert r.returncode == 1
        prefix = "tracekit strace:" if front[0] == "strace" else "tracekit: error:"
        assert r.stderr.splitlines() == [
            f"{prefix} writing '/dev/full': No space left on device (ENOSPC)"]
        assert pid is None or _gone(pid)
    finally:
        if pid is not None:
            _kill(pid)


def test_a_full_file_system_kills_the_command(tmp_path: Path, reaper: Path) -> None:
    """A 64 KiB tmpfs, mounted in a mount namespace of this test's own (``unshare -m``:
    no mount is left behind), fills up under the ``-o`` file."""
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -m is not permitted here")
    small, pidfile = tmp_path / "small", reaper
    small.mkdir()
    trace = " ".join(shlex.quote(a) for a in
                     [*TRACEKIT, "strace", "-f", "-o", str(small / "t.txt"),
                      *_loop(pidfile)])
    script = (f"mount -t tmpfs -o size=64k tmpfs {shlex.quote(str(small))} && "
              f"{trace}; echo rc=$? >&2")
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60,
                       preexec_fn=die_with_parent)
    pid = _pid_of(pidfile)
    try:
        assert r.stderr.splitlines() == [
            f"tracekit strace: writing {str(small / 't.txt')!r}: "
            "No space left on device (ENOSPC)", "rc=1"]
        assert _gone(pid)
    finally:
        _kill(pid)
    assert not os.listdir(small)        # the tmpfs was the namespace's only


def test_a_pid_target_is_left_running(reaper: Path) -> None:
    proc = subprocess.Popen(_loop(reaper), preexec_fn=die_with_parent)
    try:
        r = _enospc_run(["strace", "-o", "/dev/full", "-p", str(proc.pid)])
        assert r.returncode == 1
        assert "Traceback" not in r.stderr
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_dev_full_kills_what_the_untraced_command_started(tmp_path: Path,
                                                          reaper: Path) -> None:
    """Without -f the command's children are not traced and stay in tracekit's process
    group: the kill after a failed output reaches them too (a sleep the shell started
    was left running, reparented to init)."""
    pidfile = reaper
    script = (f"sleep 60 & echo $! > {shlex.quote(str(pidfile))}; "
              "while :; do /bin/true; done")
    r = _enospc_run(["strace", "-o", "/dev/full", "sh", "-c", script])
    pid = _pid_if_written(pidfile)
    assert r.returncode == 1, r.stderr
    assert pid is not None, "the child never started"
    assert _gone(pid)
