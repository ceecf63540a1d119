"""The tracekit exception hierarchy: every exception class of tracekit is defined here.

Every error carries what failed and where: the bpf(2) command and errno for kernel
calls, the file/line/column for config, the path for tracefs and procfs reads, the
stage for a pipeline. The CLI reports :class:`TracekitError` once, after flattening
exception groups with :func:`leaves` (the one place a group is taken apart)::

    TracekitError
      ConfigError (also ValueError)     ElfError     BtfError     TargetError
        OutputError (.path, .errno)
      RecordError                        PipelineError (.role, .stage, .errors, .errno)
      _ErrnoError (also OSError: .errno, .op)
        BpfError (.cmd)  ->  MapError, ProgLoadError, AttachError
        TracefsError (.path)             ConnectorError
    CoreUnresolved (internal to CO-RE relocation, never escapes it)
"""

from __future__ import annotations

import errno as _errno
import os
import re
from typing import Any


class TracekitError(Exception):
    """Base of every error tracekit raises on purpose."""

    def __reduce__(self) -> tuple[Any, ...]:
        # The default (``cls(*self.args)``) calls our constructors with the formatted
        # message, which they do not take (BpfError(cmd, err) has args (errno, text)).
        return _unpickle, (type(self), self.args, self.__dict__)


def _unpickle(cls: type[TracekitError], args: tuple[Any, ...],
              state: dict[str, Any]) -> TracekitError:
    """Rebuild a pickled error: its args and attributes as they were, no constructor run."""
    exc = cls.__new__(cls, *args)
    # the built-in base's __init__ (OSError sets .errno and .strerror from args)
    super(TracekitError, exc).__init__(*args)
    exc.__dict__.update(state)
    return exc


class ConfigError(TracekitError, ValueError):
    """A pipeline.toml (or a config passed from Python) is invalid.

    The message starts with ``<file>:<line>:<column>:`` where the position is known.
    """


class OutputError(ConfigError):
    """An output file cannot be created or opened (tracekit.formatters._output).

    Attributes:
      path: the path as given (a file, or ``PREFIX.PID`` for strace -ff's files).
      errno: why, as the kernel said (ENOENT: no such directory, ELOOP: a symlink that
        tracekit will not write through, EACCES, EMFILE, ENOSPC ...); the message ends
        with its name.
    """

    def __init__(self, msg: str, *, path: str, errno: int) -> None:
        super().__init__(msg)
        self.path = path
        self.errno = errno

    @property
    def errno_name(self) -> str:
        return _errno.errorcode.get(self.errno, f"E{self.errno}")


class ElfError(TracekitError):
    """A malformed BPF ELF object, or BTF inside it.

    Attributes:
      path: the object file (or ``"<bytes>"``).
      sec: the ELF section concerned, or None.
    """

    def __init__(self, msg: str, *, path: str = "<bytes>", sec: str | None = None) -> None:
        where = f"{path}" + (f" [{sec}]" if sec else "")
        super().__init__(f"{where}: {msg}")
        self.path = path
        self.sec = sec


class BtfError(TracekitError):
    """Malformed BTF, or a type/field that cannot be found (CO-RE relocation)."""


class _ErrnoError(TracekitError, OSError):
    """Base for errors with a true errno; formats as
    ``[Errno N] <op>: <strerror> (<ENAME>): <detail>``."""

    def __init__(self, op: str, err: int, detail: str = "") -> None:
        strerror = os.strerror(err) if err else "unknown error"
        name = _errno.errorcode.get(err, "")      # 524 (ENOTSUPP) is kernel-internal
        if name and name not in strerror:
            strerror += f" ({name})"
        text = f"{op}: {strerror}" + (f": {detail}" if detail else "")
        # OSError(errno, strerror) — not remapped to a subclass such as FileNotFoundError
        # because we call OSError.__init__ on an instance of our own class.
        OSError.__init__(self, err, text)
        self.op = op
        self.detail = detail

    @property
    def errno_name(self) -> str:
        return _errno.errorcode.get(self.errno or 0, f"E{self.errno}")


class BpfError(_ErrnoError):
    """A bpf(2) or perf_event_open(2) call failed.

    Attributes:
      errno: the kernel's errno (E2BIG, ENOMEM, EPERM, ENOENT ... are distinguishable).
      cmd: the command name, e.g. ``"BPF_MAP_UPDATE_ELEM"``.
    """

    def __init__(self, cmd: str, err: int, detail: str = "") -> None:
        if err == _errno.EPERM and not detail:
            detail = "needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8)"
        super().__init__(cmd, err, detail)
        self.cmd = cmd


class MapError(BpfError):
    """A map operation failed; ``.map_name`` names the map."""

    def __init__(self, cmd: str, err: int, detail: str = "", *, map_name: str = "") -> None:
        super().__init__(cmd, err, detail or (f"map {map_name!r}" if map_name else ""))
        self.map_name = map_name


class ProgLoadError(BpfError):
    """BPF_PROG_LOAD failed; ``.verifier_log`` holds the kernel verifier's log."""

    def __init__(self, err: int, detail: str = "", *, prog_name: str = "",
                 verifier_log: str = "") -> None:
        detail = detail or (f"prog {prog_name!r}" if prog_name else "")
        super().__init__("BPF_PROG_LOAD", err, detail)
        self.prog_name = prog_name
        self.verifier_log = verifier_log

    def __str__(self) -> str:
        base = super().__str__()
        if self.verifier_log:
            tail = "\n".join(self.verifier_log.rstrip().splitlines()[-20:])
            return f"{base}\nverifier log (last lines):\n{tail}"
        return base


class AttachError(BpfError):
    """Attaching a prog failed; ``.target`` names the hook, e.g. ``"raw_syscalls/sys_enter"``."""

    def __init__(self, cmd: str, err: int, detail: str = "", *, target: str = "") -> None:
        super().__init__(cmd, err, detail or (f"target {target!r}" if target else ""))
        self.target = target


class TracefsError(_ErrnoError):
    """A tracefs or procfs read failed; ``.path`` is the file."""

    def __init__(self, path: str, err: int, detail: str = "") -> None:
        super().__init__(f"read {path}", err, detail)
        self.path = path


class TargetError(TracekitError):
    """A target (pid, tid, command) cannot be traced: it does not exist or cannot run."""


class ConnectorError(_ErrnoError):
    """The proc connector cannot be used here; ``.errno`` says why (EPERM: not root in
    the initial namespaces; EPROTONOSUPPORT: no CONFIG_PROC_EVENTS)."""

    def __init__(self, op: str, err: int) -> None:
        super().__init__(f"proc connector {op}", err)


class RecordError(TracekitError):
    """A ring-buffer record is truncated or of an unknown kind."""


class RecordingError(TracekitError):
    """A file that is not a tracekit recording, or one of a newer format
    (tracekit.session.recording)."""


class PipelineError(TracekitError):
    """A source, stage or sink of a pipeline raised; the run was cancelled.

    ``str(err)`` is ``"<role> '<name>' failed: <ExcType>: <message>"``, role being
    ``source``, ``stage``, ``sink``, ``tee``, ``side task`` (started with
    ``ctx.start_soon``) or ``task`` (anything else in ``ctx.nursery``). The original exception is
    ``__cause__`` (and ``errors[0][1]``) and carries a ``stage=<name>`` note.

    Attributes:
      role: ``"source"``, ``"stage"``, ``"sink"``, ``"tee"``, ``"side task"``, ``"task"``.
      stage: the name of the task that failed first.
      errors: every ``(name, exception)`` that ended the run, first failure first.
      errno: the first failure's ``errno`` when it has one (a BpfError), else None.
    """

    def __init__(self, role: str, stage: str, errors: list[tuple[str, Exception]]) -> None:
        exc = errors[0][1]
        msg = f"{role} {stage!r} failed: {type(exc).__name__}: {exc}"
        if len(errors) > 1:
            more = ", ".join(f"{n!r} ({type(e).__name__})" for n, e in errors[1:])
            msg += f" (then also: {more})"
        super().__init__(msg)
        self.role = role
        self.stage = stage
        self.errors = errors
        self.errno: int | None = getattr(exc, "errno", None)


class CoreUnresolved(Exception):
    """Internal to CO-RE relocation (``tracekit.bpf.relo_core``): no candidate type or
    field matched. It never leaves that module: it becomes a :class:`BtfError`, or the
    value 0 for the ``*_EXISTS`` kinds."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions ``exc`` stands for: an exception group's leaves, nested groups
    flattened, in order; any other exception alone.

    This is the one helper that takes exception groups apart (a trio nursery raises one
    for what its tasks raised); callers decide what the leaves mean.

    Returns:
      A list of at least one exception, none of them a group.
    """
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def quoted(text: str) -> str:
    r"""A name (a path, a command) as an error message quotes it: ``repr``'s form (control
    characters as ``\n``, ``\t``, ``\x1b``), with the bytes that are not UTF-8 (decoded
    with surrogateescape) as the byte, ``\xff``, not Python's ``\udcff``.

    ``quoted("/a\udcff/\n") == r"'/a\xff/\n'"``.
    """
    text = repr(text)
    if "\\udc" not in text:
        return text
    # an escape only where the backslash before "udc" is not itself escaped
    return re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", text)


def out_of_fds(errors: list[BaseException]) -> str | None:
    """One line for a run that failed because the process ran out of file descriptors
    (EMFILE: its RLIMIT_NOFILE, as ``ulimit -n`` sets it; ENFILE: the system's), where
    it ran out (a map, a program, a pipe, a stage's eventfd: none of them the cause);
    None when no error (nor what it wraps) is one."""
    todo = list(errors)
    seen = 0
    while todo and seen < 64:
        e = todo.pop()
        seen += 1
        if isinstance(e, OSError) and e.errno in (_errno.EMFILE, _errno.ENFILE):
            name = _errno.errorcode[e.errno]
            limit = ("the open file limit of this process (ulimit -n)"
                     if e.errno == _errno.EMFILE else "the system's open file limit")
            return (f"too many open files ({name}): tracekit needs about 64 file "
                    f"descriptors for its BPF maps, programs and pipes; raise {limit}")
        if isinstance(e, PipelineError):
            todo.extend(x for _, x in e.errors)
        for inner in (e.__cause__, e.__context__):
            if inner is not None:
                todo.append(inner)
    return None
