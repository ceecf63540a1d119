"""What a decode reads from the running system at decode time, behind one interface.

A live trace decodes events while the traced processes run, and a few answers come from
the system at that moment, not from the records: the target of an fd the traced calls
never showed opened (``readlink /proc/<tgid>/fd/<fd>``), a process's working directory
(the path filter's relative opens), the wall clock (the strace format's ``-tt`` time)
and the moment the reorder stage found its input idle. A recording must hold those
answers, or a replay could not print what the live run printed. So every such read goes
through a :class:`Facts` object handed to the stages and formatters:

    live run         LiveFacts            reads /proc and the clocks
    live + record    a recorder's facts   reads them and writes each answer down
    replay           a recording's facts  answers what the live run read, in its order

Each consumer (a decoder's fd cache, the path filter, a reorder stage) asks through its
own :class:`FactReader` (``facts.reader("beautify")``), so the answers one consumer read
are replayed to the same consumer in the same order, however the trio tasks of a live run
interleaved.
"""

from __future__ import annotations

import errno
import os
import time
from typing import Protocol

from tracekit._errors import TracefsError

__all__ = ["FactReader", "Facts", "LiveFacts", "read_cwd", "read_fd_link"]

# The fd or the process is gone, or (EACCES: a process in another user namespace or
# under a stricter ptrace policy) its links cannot be read: "unknown".
_UNKNOWN = frozenset({errno.ENOENT, errno.ESRCH, errno.ENOTDIR, errno.EACCES, errno.EPERM})


def read_fd_link(proc: str, tgid: int, fd: int) -> str | None:
    """``readlink(<proc>/<tgid>/fd/<fd>)``, or None when the fd or process is gone or not
    ours to read (ENOENT, ESRCH, ENOTDIR, EACCES, EPERM).

    Raises:
      TracefsError: any other errno.
    """
    path = f"{proc}/{tgid}/fd/{fd}"
    try:
        return os.readlink(path)
    except OSError as e:
        if e.errno not in _UNKNOWN:
            raise TracefsError(path, e.errno or errno.EIO, "readlink of an fd link") from e
        return None


def read_cwd(proc: str, tgid: int) -> str | None:
    """``readlink(<proc>/<tgid>/cwd)``, or None when the process is gone or not ours."""
    try:
        return os.readlink(f"{proc}/{tgid}/cwd")
    except OSError:
        return None


class FactReader(Protocol):
    """One consumer's questions to the system (see the module docstring)."""

    def fd_link(self, tgid: int, fd: int) -> str | None:
        """What fd ``fd`` of process ``tgid`` refers to now (``/etc/passwd``,
        ``pipe:[123]``), or None when unknown. Raises TracefsError as
        :func:`read_fd_link`."""
        ...

    def cwd(self, tgid: int) -> str | None:
        """Process ``tgid``'s working directory now, or None when unknown."""
        ...

    def realpath(self, path: str) -> str:
        """``os.path.realpath(path)`` now (the path filter's paths, at start)."""
        ...

    def idle_now(self, position: int) -> int:
        """The reorder stage found its input idle after ``position`` events: CLOCK_MONOTONIC
        ns now (the release's cut-off time)."""
        ...

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        """None live (watch the input for idleness); in a replay, the ``(position,
        monotonic ns)`` of each idle release the live run made, in order."""
        ...


class Facts(Protocol):
    """A trace's source of system facts (module docstring).

    Attributes:
      wall_offset_ns: wall-clock ns minus CLOCK_MONOTONIC ns, taken once per trace
        (``time.time_ns() - time.monotonic_ns()``): ``ts_ns + wall_offset_ns`` is the
        event's wall-clock time.
      utc_offset_s: seconds east of UTC to show wall-clock times in; None = the local
        time zone of this machine (``time.localtime``).
    """

    wall_offset_ns: int
    utc_offset_s: int | None

    def reader(self, consumer: str) -> FactReader:
        """The reader of one consumer; a second consumer of the same name (two outputs
        of one format) gets ``name#2``, and so on, in the order they are made."""
        ...


class _LiveReader:
    __slots__ = ("proc",)

    def __init__(self, proc: str) -> None:
        self.proc = proc

    def fd_link(self, tgid: int, fd: int) -> str | None:
        return read_fd_link(self.proc, tgid, fd)

    def cwd(self, tgid: int) -> str | None:
        return read_cwd(self.proc, tgid)

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def idle_now(self, position: int) -> int:
        return time.monotonic_ns()

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        return None


class LiveFacts:
    """The running system's facts: /proc under ``proc`` and this machine's clocks."""

    def __init__(self, proc: str = "/proc") -> None:
        self.proc = proc
        self.wall_offset_ns = time.time_ns() - time.monotonic_ns()
        self.utc_offset_s: int | None = None
        self._reader = _LiveReader(proc)

    def reader(self, consumer: str) -> FactReader:
        return self._reader


def local_clock(utc_offset_s: int | None, sec: int) -> str:
    """``HH:MM:SS`` of Unix time ``sec``: local time when ``utc_offset_s`` is None, else
    at that offset from UTC."""
    if utc_offset_s is None:
        return time.strftime("%H:%M:%S", time.localtime(sec))
    return time.strftime("%H:%M:%S", time.gmtime(sec + utc_offset_s))
