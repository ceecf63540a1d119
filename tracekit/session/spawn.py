"""Start a command held before exec, so the tracer can add its pid first (kernel rule 2).

``subprocess.Popen`` cannot do this: it blocks until the child has exec'd. Here the child
is forked, blocks on a pipe, and execs only when :meth:`HeldCommand.release` writes to it.
The exec's errno comes back on a close-on-exec pipe (EOF = exec succeeded).

Timeline::

    parent: fork ─ insert pid in map ─ attach ─ release() ─┬─ wait() (pidfd readable) ─ waitpid
    child:        └─ read(go) ......................... ───┴─ execve(path, argv) ─ workload
"""

from __future__ import annotations

import os
import shutil
import signal
import struct

import trio

from tracekit._errors import TargetError


def resolve_command(argv: list[str]) -> str:
    """The path execve will be given for ``argv[0]`` (PATH search as execvp does).

    Raises:
      TargetError: empty command, or not found / not executable (says which).
    """
    if not argv or not argv[0]:
        raise TargetError("the command is empty")
    name = argv[0]
    if "/" in name:
        if not os.path.exists(name):
            raise TargetError(f"command not found: {name!r} (ENOENT)")
        if not os.access(name, os.X_OK) or os.path.isdir(name):
            raise TargetError(f"command is not executable: {name!r} (EACCES)")
        return name
    path = shutil.which(name)
    if path is None:
        raise TargetError(f"command not found: {name!r} is not in PATH")
    return path


_CHILD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}


class HeldCommand:
    """A forked child waiting to exec ``argv``; owns the pipes and the pidfd.

    Attributes:
      pid: the child's pid (= tid = tgid) in the init pid namespace.
      returncode: like subprocess: exit code, or -signal; None while running.
    """

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None,
                 creds: tuple[int, int, tuple[int, ...]] | None = None) -> None:
        """Fork the child, held.

        Args:
          argv: the command; ``argv[0]`` is looked up in PATH.
          env: its environment (default: this process's).
          creds: ``(uid, gid, groups)`` the child takes before exec (setgroups, setgid,
            setuid: needs CAP_SETUID/CAP_SETGID), as ``strace -u USER`` runs a command.

        Raises:
          TargetError: the command is not found or not executable.
        """
        path = resolve_command(argv)
        go_r, go_w = os.pipe()
        err_r, err_w = os.pipe()  # both O_CLOEXEC (PEP 446): err_w closes at exec
        env_b = os.environ.copy() if env is None else env
        # Blocked across fork: until the child has dropped the parent's Python-level
        # handlers (tracekit's, trio's), a signal forwarded to it would run them there and
        # be swallowed; pending, it is delivered with the default action once unblocked.
        saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _CHILD_SIGNALS)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
            raise
        if pid == 0:  # child: only async-signal-safe work, and always _exit
            try:
                signal.set_wakeup_fd(-1)  # the parent's trio wakeup fd is not ours
                for sig in _CHILD_SIGNALS:
                    signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
                os.close(go_w)
                os.close(err_r)
                if os.read(go_r, 1) != b"g":
                    os._exit(127)
                # Python ignores SIGPIPE; a workload expects the default (as Popen restores).
                for sig in (signal.SIGPIPE, signal.SIGXFSZ):
                    signal.signal(sig, signal.SIG_DFL)
                if creds is not None:
                    os.setgroups(list(creds[2]))
                    os.setgid(creds[1])
                    os.setuid(creds[0])
                os.execve(path, argv, env_b)
            except OSError as e:
                os.write(err_w, struct.pack("<i", e.errno or 0))
            finally:
                os._exit(127)
        signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
        os.close(go_r)
        os.close(err_w)
        self.pid = pid
        self.argv = argv
        self.path = path
        self.returncode: int | None = None
        self.wait_status: int | None = None
        self._go_w = go_w
        self._err_r = err_r
        self._pidfd = os.pidfd_open(pid)
        self._waiting = False
        self._reaped = trio.Event()

    async def release(self) -> None:
        """Let the child exec.

        Raises:
          TargetError: execve failed in the child (with the errno name).
          trio.Cancelled: before anything is written: a start-up cancelled already (a
            signal) never lets the command run.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        os.write(self._go_w, b"g")
        os.close(self._go_w)
        self._go_w = -1
        await trio.lowlevel.wait_readable(self._err_r)
        data = os.read(self._err_r, 4)
        os.close(self._err_r)
        self._err_r = -1
        if data:
            err = struct.unpack("<i", data.ljust(4, b"\0"))[0]
            import errno as _errno
            raise TargetError(f"cannot execute {self.path!r}: "
                              f"{_errno.errorcode.get(err, err)} ({os.strerror(err)})")

    async def wait(self) -> int:
        """Wait for the child to end; returns returncode (exit code, or -signal).

        Any number of tasks may wait: the first polls the pidfd (trio allows one reader
        per fd), the others wait for it to finish.
        """
        if self.returncode is None:
            if self._waiting:
                await self._reaped.wait()
            else:
                self._waiting = True
                try:
                    await trio.lowlevel.wait_readable(self._pidfd)
                    self._reap(0)
                finally:
                    self._waiting = False
                    if self.returncode is not None:
                        self._reaped.set()
                if self.returncode is None:  # pragma: no cover - pidfd readable = exited
                    return await self.wait()
        assert self.returncode is not None
        return self.returncode

    def _reap(self, flags: int) -> None:
        pid, status = os.waitpid(self.pid, flags)
        if pid == self.pid:
            self.wait_status = status
            self.returncode = os.waitstatus_to_exitcode(status)

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            signal.pidfd_send_signal(self._pidfd, sig)

    def close(self) -> None:
        """Close pipes (an unreleased child then exits 127) and the pidfd; reap if done."""
        for attr in ("_go_w", "_err_r"):
            fd = getattr(self, attr)
            if fd >= 0:
                setattr(self, attr, -1)
                os.close(fd)
        if self.returncode is None:
            try:
                self._reap(os.WNOHANG)
            except ChildProcessError:
                pass
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
