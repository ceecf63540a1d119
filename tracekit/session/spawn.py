"""Start a command held before exec, so the tracer can add its pid first (kernel rule 2).

``subprocess.Popen`` cannot do this: it blocks until the child has exec'd. Here the child
is forked, blocks on a pipe, and execs only when :meth:`HeldCommand.release` writes to it.
The exec's errno comes back on a close-on-exec pipe (EOF = exec succeeded).

Timeline::

    parent: fork ─ insert pid in map ─ attach ─ release() ─┬─ wait() (pidfd readable) ─ waitpid
    child:        └─ dispositions, mask ─ read(go) ...  ───┴─ execve(path, argv) ─ workload

The command starts with the signal dispositions and mask the caller says
(:class:`InheritedSignals`: those tracekit itself was started with), as it would without
tracekit: a signal ignored under ``nohup`` stays ignored, a blocked one stays blocked.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import struct
from collections.abc import Callable
from dataclasses import dataclass

import trio

from tracekit._errors import TargetError, quoted


def own_environment() -> dict[str, str]:
    """This process's environment as a command should inherit it: ``os.environ`` without
    an LC_CTYPE the process was not started with, which Python's start-up adds when the
    locale is C or unset (C locale coercion, PEP 538; the names it was started with are
    in /proc/self/environ, the block execve put on its stack). A tracer passes its
    environment on untouched, as strace does: the command keeps the C locale."""
    env = dict(os.environ)
    if "LC_CTYPE" in env:
        try:
            with open("/proc/self/environ", "rb") as f:
                started = f.read()
        except OSError:
            return env
        if not any(item.startswith(b"LC_CTYPE=") for item in started.split(b"\0")):
            del env["LC_CTYPE"]
    return env


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
            raise TargetError(f"command not found: {quoted(name)} (ENOENT)")
        if not os.access(name, os.X_OK) or os.path.isdir(name):
            raise TargetError(f"command is not executable: {quoted(name)} (EACCES)")
        return name
    path = shutil.which(name)
    if path is None:
        raise TargetError(f"command not found: {quoted(name)} is not in PATH")
    return path


#: Signals the Python runtime itself sets to SIG_IGN at start-up (Python/pylifecycle.c):
#: what they were before is not known, so a command gets them at their default, as
#: ``subprocess.Popen(restore_signals=True)`` gives them.
_PYTHON_IGNORED = frozenset({signal.SIGPIPE, signal.SIGXFSZ})


@dataclass(frozen=True)
class InheritedSignals:
    """The signal dispositions and mask a command starts with.

    Only SIG_IGN survives ``execve`` (handlers are reset to SIG_DFL, signal(7)), so the
    dispositions are the set of ignored signals; the mask survives as is.

    Attributes:
      ignored: signal numbers whose disposition is SIG_IGN.
      blocked: signal numbers in the mask.
    """

    ignored: frozenset[int] = frozenset()
    blocked: frozenset[int] = frozenset()

    @classmethod
    def current(cls) -> InheritedSignals:
        """This thread's mask and the process's ignored signals, now (SIGPIPE and SIGXFSZ,
        which Python ignores for itself, count as default). A front end records this
        before it installs handlers or blocks signals of its own."""
        ignored = frozenset(s for s in signal.valid_signals()
                            if s not in _PYTHON_IGNORED and _ignored(s))
        blocked = frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, ()))
        return cls(ignored=ignored, blocked=blocked)


#: The mask a process tracekit starts should exec with while a front end keeps signals
#: blocked for its signal thread (tracekit.app.run): the one tracekit was started with.
#: None: no such front end runs, the calling thread's mask is the right one.
_child_mask: frozenset[int] | None = None


def set_child_signal_mask(mask: frozenset[int] | None) -> None:
    """For a front end that blocks signals in every thread to take them on a thread of
    its own: the mask (signal numbers) the processes started meanwhile get from
    :func:`restore_signal_mask`; None once it no longer blocks them."""
    global _child_mask
    _child_mask = mask


def restore_signal_mask() -> None:
    """``preexec_fn`` for a process a stage or sink starts (``subprocess.Popen(...,
    preexec_fn=restore_signal_mask)``): it execs with the signal mask tracekit itself
    was started with, not the one tracekit's threads run with while ``tracekit run``
    waits for SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP and SIGCONT on a thread of its
    own (they are blocked in every other thread, and a mask survives execve: signal(7)).
    Without it such a process could not be ended by ^C or ``kill``. Handlers need no
    reset: execve resets them to SIG_DFL (an ignored signal stays ignored, as tracekit
    found it). Outside ``tracekit run`` it does nothing.
    """
    mask = _child_mask
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _ignored(sig: int) -> bool:
    try:
        return signal.getsignal(sig) is signal.SIG_IGN
    except (OSError, ValueError):  # pragma: no cover - a number valid_signals() gave
        return False


def _settable(sig: int) -> bool:
    return sig not in (signal.SIGKILL, signal.SIGSTOP)


# keep in sync with the child's steps in HeldCommand.__init__
_STEPS = {-1: "starting", 0: "execve", 1: "setgroups", 2: "setgid", 3: "setuid"}
_FAILED = struct.Struct("<ii")      # (step, errno): the child's report before _exit(127)


def _failure(path: str, data: bytes) -> str:
    """What the child reported (``_FAILED``, then a text when there is no errno) as one
    line: the call that failed and why."""
    import errno as _errno

    step, err = _FAILED.unpack_from(data.ljust(_FAILED.size, b"\0"))
    if err:
        why = f"{_errno.errorcode.get(err, err)} ({os.strerror(err)})"
    else:
        why = data[_FAILED.size:].decode("utf-8", "replace") or "unknown failure"
    if step == 0:
        return f"cannot execute {quoted(path)}: {why}"
    what = _STEPS.get(step, f"step {step}")
    hint = (" (running the command as another user needs CAP_SETUID and CAP_SETGID)"
            if err == _errno.EPERM and step > 0 else "")
    return f"cannot start {quoted(path)}: {what} failed: {why}{hint}"


def _libc_execve(path: str, argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    """A function that calls libc's execve(2) with ``env`` as ``NAME=VALUE`` strings
    (an empty name too); the arrays are made now, before fork. It returns only on
    failure, raising OSError with the errno."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def strings(items: list[bytes]) -> ctypes.Array[ctypes.c_char_p]:
        return (ctypes.c_char_p * (len(items) + 1))(*items, None)

    c_path = os.fsencode(path)
    c_argv = strings([os.fsencode(a) for a in argv])
    c_env = strings([os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()])

    def run() -> None:
        libc.execve(c_path, c_argv, c_env)
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))

    return run


class HeldCommand:
    """A forked child waiting to exec ``argv``; owns the pipes and the pidfd.

    Args:
      argv: the command; ``argv[0]`` is searched in PATH as execvp does.
      env: its environment (default: this process's, :func:`own_environment`).
      signals: the dispositions and mask it starts with (default: this thread's now,
        :meth:`InheritedSignals.current`). A front end that handles or blocks signals
        passes what it recorded before it did.
      own_group: start it in a process group of its own (``setpgid(0, 0)``, its pgid is
        its pid), as timeout(1) does, so the whole group can be signalled.
      creds: ``(uid, gid, groups)`` the child takes before exec (setgroups, setgid,
        setuid: needs CAP_SETUID/CAP_SETGID), as ``strace -u USER`` runs a command.

    Raises:
      TargetError: the command is not found or not executable.

    Attributes:
      pid: the child's pid (= tid = tgid) in the init pid namespace.
      pgid: its process group (``pid`` with ``own_group``, else the caller's).
      returncode: like subprocess: exit code, or -signal; None while running.
    """

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None,
                 signals: InheritedSignals | None = None, own_group: bool = False,
                 creds: tuple[int, int, tuple[int, ...]] | None = None) -> None:
        path = resolve_command(argv)
        inherited = InheritedSignals.current() if signals is None else signals
        made: list[int] = []
        try:
            go_r, go_w = os.pipe()
            made += (go_r, go_w)
            err_r, err_w = os.pipe()  # both O_CLOEXEC (PEP 446): err_w closes at exec
        except OSError as e:        # EMFILE under a small ulimit -n: said in one line
            for fd in made:
                os.close(fd)
            raise TargetError(f"cannot start {quoted(argv[0])}: pipe: {e.strerror} "
                              f"({errno.errorcode.get(e.errno or 0, e.errno)})") from e
        env_b = own_environment() if env is None else env
        # a variable with an empty name (strace -E =x puts "=x" in the environment) is
        # refused by os.execve (ValueError): such an environment goes through libc's
        raw_exec = _libc_execve(path, argv, env_b) if "" in env_b else None
        step = -1                # what the child is doing: _STEPS
        # Every signal blocked across fork: until the child has set its dispositions, a
        # signal forwarded to it would run the parent's Python-level handlers there
        # (tracekit's, trio's) and be swallowed; pending, it is delivered as the command's
        # dispositions say once the inherited mask is set.
        saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
            raise
        if pid == 0:  # child: only async-signal-safe work, and always _exit
            try:
                signal.set_wakeup_fd(-1)  # the parent's trio wakeup fd is not ours
                for sig in signal.valid_signals():
                    if _settable(sig):
                        signal.signal(sig, signal.SIG_IGN if sig in inherited.ignored
                                      else signal.SIG_DFL)
                if own_group:
                    os.setpgid(0, 0)
                signal.pthread_sigmask(signal.SIG_SETMASK, inherited.blocked)
                os.close(go_w)
                os.close(err_r)
                if os.read(go_r, 1) != b"g":
                    os._exit(127)
                if creds is not None:    # strace -u: setgroups, setgid, setuid
                    step = 1
                    os.setgroups(list(creds[2]))
                    step = 2
                    os.setgid(creds[1])
                    step = 3
                    os.setuid(creds[0])
                step = 0
                if raw_exec is not None:
                    raw_exec()
                else:
                    os.execve(path, argv, env_b)
            except BaseException as e:  # noqa: BLE001 - every failure is told the parent
                # what failed and why: (step, errno), then a text when there is no errno
                err = e.errno or 0 if isinstance(e, OSError) else 0
                text = b"" if err else f"{type(e).__name__}: {e}".encode("utf-8", "replace")
                try:
                    os.write(err_w, _FAILED.pack(step, err) + text[:512])
                except OSError:
                    pass
            finally:
                os._exit(127)
        signal.pthread_sigmask(signal.SIG_SETMASK, saved_mask)
        if own_group:
            try:        # both sides, as a shell does: whichever runs first makes it so
                os.setpgid(pid, pid)
            except OSError:
                pass    # the child is gone already (EPERM/ESRCH): release() says why
        os.close(go_r)
        os.close(err_w)
        self.pid = pid
        self.pgid = pid if own_group else os.getpgrp()
        self.signals = inherited
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
        """Let the child exec. A child that a signal ended while it was held (one sent
        on to the command) is not an error: :meth:`wait` gives its status (-N).

        Raises:
          TargetError: execve failed in the child (with the errno name).
          trio.Cancelled: before anything is written: a start-up cancelled already (a
            signal) never lets the command run.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        try:
            os.write(self._go_w, b"g")
        except BrokenPipeError:
            # the child is gone before its exec: a signal sent on to it while it was held
            # ended it (its dispositions were the command's). It ended as the command
            # would have: wait() gives its status (-N)
            pass
        os.close(self._go_w)
        self._go_w = -1
        await trio.lowlevel.wait_readable(self._err_r)
        data = os.read(self._err_r, _FAILED.size + 512)
        os.close(self._err_r)
        self._err_r = -1
        if data:
            raise TargetError(_failure(self.path, data))

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
        """Send ``sig`` to the command (not its group); nothing once it was reaped.

        Raises:
          ProcessLookupError: it has exited but was not reaped yet (ESRCH).
        """
        if self.returncode is None and self._pidfd >= 0:
            signal.pidfd_send_signal(self._pidfd, sig)

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the command's own process group (``own_group``), which holds
        the children it did not move elsewhere; to the command alone otherwise. A group
        with no process left is not an error."""
        if self.pgid != self.pid or self.pgid == os.getpgrp():
            try:
                self.send_signal(sig)
            except ProcessLookupError:
                pass
            return
        try:
            os.killpg(self.pgid, sig)
        except ProcessLookupError:
            pass

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


def in_terminal_foreground() -> bool:
    """Whether this process's group is the foreground process group of its controlling
    terminal (``tcgetpgrp`` of ``/dev/tty``; termios(3)): a terminal's job-control
    signals (^C, ^\\, ^Z) and its input go to that group. False without a controlling
    terminal (ENXIO: a daemon, a CI job, a notebook kernel)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)
