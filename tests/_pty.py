"""A real terminal for tests: a command run as the foreground job of a new pty, by a tiny
job-control shell, as an interactive shell runs it.

The shell (a Python process) is the session leader of the pty; the job gets a process
group of its own, the terminal's foreground. Keys written to the master go through the
line discipline, so ^C, ^\\ and ^Z become SIGINT, SIGQUIT and SIGTSTP from the kernel
(``si_code`` SI_KERNEL) to the whole foreground group, as on any terminal. When the job
stops, the shell takes the terminal back and reports it; :meth:`PtyJob.fg` gives it back
and continues the job, as ``fg`` does. Nothing here depends on the test machine having a
terminal.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

SHELL = r'''
import fcntl, os, signal, sys, termios
ctl, ev = int(sys.argv[1]), int(sys.argv[2])
argv = sys.argv[3:]
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
JOB = (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)
for s in JOB:
    signal.signal(s, signal.SIG_IGN)

def say(*words):
    os.write(ev, (" ".join(map(str, words)) + "\n").encode())

pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.tcsetpgrp(0, os.getpid())
    for s in JOB:
        signal.signal(s, signal.SIG_DFL)
    os.close(ctl)
    os.close(ev)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
try:
    os.setpgid(pid, pid)
except OSError:
    pass
say("pid", pid)
while True:
    _, st = os.waitpid(pid, os.WUNTRACED)
    if os.WIFSTOPPED(st):
        os.tcsetpgrp(0, os.getpgrp())
        say("stopped", os.WSTOPSIG(st))
        if os.read(ctl, 2) == b"fg":
            os.tcsetpgrp(0, pid)
        os.killpg(pid, signal.SIGCONT)
        say("continued")
        continue
    os.tcsetpgrp(0, os.getpgrp())   # the terminal back: nothing left running gets a hangup
    say("exited", os.waitstatus_to_exitcode(st))
    break
os.read(ctl, 2)                     # stay the session leader until the test is done
'''


class PtyJob:
    """``argv`` as the foreground job of a new pty.

    Attributes:
      pid: the job's leader (the process ``argv`` started).
      output: everything written to the terminal so far.
    """

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None,
                 timeout: float = 30) -> None:
        master, slave = os.openpty()
        ctl_r, self._ctl = os.pipe()
        ev_r, ev_w = os.pipe()
        self._master = master
        self.output = bytearray()
        self._events: queue.Queue[list[str]] = queue.Queue()
        self._shell = subprocess.Popen(
            [sys.executable, "-c", SHELL, str(ctl_r), str(ev_w), *argv],
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
            pass_fds=(ctl_r, ev_w), env=env)
        for fd in (slave, ctl_r, ev_w):
            os.close(fd)
        threading.Thread(target=self._read_output, daemon=True).start()
        threading.Thread(target=self._read_events, args=(ev_r,), daemon=True).start()
        self.pid = int(self.wait_for("pid", timeout)[1])
        self.status: int | None = None

    def _read_output(self) -> None:
        while True:
            try:
                data = os.read(self._master, 4096)
            except OSError:         # EIO: every slave fd is closed
                return
            if not data:
                return
            self.output += data

    def _read_events(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as f:
            for line in f:
                self._events.put(line.decode().split())

    def keys(self, data: bytes) -> None:
        """Type ``data`` on the terminal (b"\\x03" is ^C, b"\\x1c" ^\\, b"\\x1a" ^Z)."""
        os.write(self._master, data)

    def wait_for(self, kind: str, timeout: float = 30) -> list[str]:
        """The next event of the shell, which must be ``kind`` ("stopped", "continued",
        "exited"), within ``timeout`` seconds."""
        try:
            ev = self._events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no {kind!r} from the job within {timeout} s; terminal: "
                                 f"{bytes(self.output)[-2000:]!r}") from None
        assert ev[0] == kind, (ev, bytes(self.output)[-2000:])
        if kind == "exited":
            self.status = int(ev[1])
        return ev

    def wait(self, timeout: float = 60) -> int:
        """The job's exit status as a shell shows it (128+N when signal N killed it)."""
        status = int(self.wait_for("exited", timeout)[1])
        return status if status >= 0 else 128 - status

    def fg(self) -> None:
        """Give the stopped job the terminal and continue it (the shell's ``fg``)."""
        os.write(self._ctl, b"fg")

    def bg(self) -> None:
        """Continue the stopped job without the terminal (the shell's ``bg``)."""
        os.write(self._ctl, b"bg")

    def close(self) -> None:
        """End the shell (killing the job if it still runs) and close the terminal."""
        if self.status is None:
            try:
                os.killpg(self.pid, 9)
            except ProcessLookupError:
                pass
        try:
            os.write(self._ctl, b"go")
        except OSError:
            pass
        try:
            self._shell.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._shell.kill()
            self._shell.wait()
        os.close(self._ctl)
        time.sleep(0.05)            # let the reader see EIO before the fd goes
        os.close(self._master)

    def __enter__(self) -> PtyJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def state_of(pid: int) -> str | None:
    """The state letter of ``/proc/<pid>/stat`` (``T`` stopped), None when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:][:1].decode()


def wait_state(pid: int, want: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while state_of(pid) != want:
        assert time.monotonic() < deadline, f"pid {pid} is {state_of(pid)!r}, not {want!r}"
        time.sleep(0.02)
