"""What a decode reads from the running system at decode time, behind one interface.

A live trace decodes events while the traced processes run, and a few answers come from
the system at that moment, not from the records: the target of an fd the traced calls
never showed opened (``readlink /proc/<tgid>/fd/<fd>``), a process's working directory
(the path filter's relative opens), an open's path with its symlinks resolved, a
socket's protocol (``getxattr system.sockprotoname``) and its sock_diag description, a
device's numbers (``stat``), the wall clock (the strace format's ``-tt`` time) and the
moment the reorder stage found its input idle. A recording must hold those
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
import re
import stat
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tracekit._errors import TracefsError
from tracekit._events import Reenumerated

if TYPE_CHECKING:
    from tracekit.kernel.sockdiag import SockDiag

__all__ = ["FactReader", "Facts", "LiveFacts", "read_cwd", "read_device", "read_fd_link",
           "read_sock_proto"]

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


def read_sock_proto(proc: str, tgid: int, fd: int) -> str | None:
    """The protocol name of socket fd ``fd`` of process ``tgid`` as the kernel names it
    (the ``system.sockprotoname`` extended attribute of ``<proc>/<tgid>/fd/<fd>``:
    ``TCP``, ``UNIX-STREAM``, ``NETLINK``; net/socket.c sockfs_xattr_get), or None when
    the fd is gone, not a socket or not ours to read."""
    try:
        raw = os.getxattr(f"{proc}/{tgid}/fd/{fd}", "system.sockprotoname")
    except OSError:
        return None
    return raw.split(b"\0", 1)[0].decode("ascii", "replace") or None


#: a pseudo-terminal's path and the device numbers devpts gives it: majors 136..143
#: (UNIX98_PTY_SLAVE_MAJOR and UNIX98_PTY_MAJOR_COUNT, drivers/tty/pty.c), 256 minors each
_PTS = re.compile(r"/dev/pts/(\d{1,7})")


def read_device(path: str) -> str | None:
    """``char 1:3`` or ``block 8:0`` when ``path`` (``stat``, symlinks followed) is a
    character or block device now, else None (not a device, or it cannot be stat'ed).
    A ``/dev/pts/N`` that is gone (its pty closed before the call that named it was
    decoded) has the numbers devpts gave it: ``char 136:N``."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        pts = _PTS.fullmatch(path)
        if pts is None or int(pts[1]) >= 8 * 256:
            return None
        n = int(pts[1])
        return f"char {136 + n // 256}:{n % 256}"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        kind = "char" if stat.S_ISCHR(st.st_mode) else "block"
        return f"{kind} {os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
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
        """``os.path.realpath(path)`` now (the path filter's paths, at start); never
        raises (a link that went away while it was followed: ``path`` made absolute)."""
        ...

    def sock_proto(self, tgid: int, fd: int) -> str | None:
        """The protocol name of socket fd ``fd`` of ``tgid`` now (:func:`read_sock_proto`),
        or None when unknown."""
        ...

    def socket(self, inode: int, proto: str | None) -> str | None:
        """strace -yy's text of socket ``inode`` (protocol ``proto``, None when not
        known) from sock_diag now
        (:meth:`SockDiag.describe <tracekit.kernel.sockdiag.SockDiag.describe>`), or
        None when sock_diag does not describe it."""
        ...

    def refresh_sockets(self) -> None:
        """A socket may have changed: the next :meth:`socket` asks sock_diag again
        (a replay has nothing to do)."""
        ...

    def device(self, path: str) -> str | None:
        """``char 1:3`` / ``block 8:0`` when ``path`` is a device now
        (:func:`read_device`), else None."""
        ...

    def idle_now(self, position: int) -> int:
        """The reorder stage found its input idle after ``position`` events: CLOCK_MONOTONIC
        ns now (the release's cut-off time)."""
        ...

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        """None live (watch the input for idleness); in a replay, the ``(position,
        monotonic ns)`` of each idle release the live run made, in order."""
        ...

    def reenumeration(self, walk: Callable[[], Reenumerated]) -> Reenumerated | None:
        """The reenumerate stage's /proc pass after attach. Live: ``walk()`` (which reads
        /proc and inserts the tasks it finds into the pids map) and the record it returns
        (written down when recording); in a replay the record the live run made, without
        calling ``walk`` (there is no pids map), or None when the recording holds none.

        Raises:
          What ``walk`` raises (MapError on ENOMEM, TracefsError).
        """
        ...

    def close(self) -> None:
        """Release what the reader holds (a live reader's sock_diag socket); a later
        question opens it again."""
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
    """The system's answers, for one consumer: its own sock_diag socket (opened on the
    first socket question), whose dumps it keeps until :meth:`refresh_sockets`."""

    __slots__ = ("proc", "_quote", "_diag")

    def __init__(self, proc: str, quote: Callable[[bytes], str] | None) -> None:
        self.proc = proc
        self._quote = quote
        self._diag: SockDiag | None = None

    def fd_link(self, tgid: int, fd: int) -> str | None:
        return read_fd_link(self.proc, tgid, fd)

    def cwd(self, tgid: int) -> str | None:
        return read_cwd(self.proc, tgid)

    def realpath(self, path: str) -> str:
        # Some facts about os.path.realpath (CPython 3.11, posixpath._joinrealpath): it
        # lstat()s each component, guarded (a missing one ends the resolving), and then
        # readlink()s a symlink unguarded. A link that vanishes in between raises:
        # /proc/<pid>/ns/net of a traced process that exits there (FileNotFoundError).
        # realpath after that would have found nothing to follow: the path as given.
        try:
            return os.path.realpath(path)
        except OSError:
            return os.path.abspath(path)

    def sock_proto(self, tgid: int, fd: int) -> str | None:
        return read_sock_proto(self.proc, tgid, fd)

    def socket(self, inode: int, proto: str | None) -> str | None:
        if self._diag is None:
            from tracekit.kernel.sockdiag import SockDiag

            self._diag = SockDiag() if self._quote is None else SockDiag(quote=self._quote)
        return self._diag.describe(inode, proto)

    def refresh_sockets(self) -> None:
        if self._diag is not None:
            self._diag.refresh()

    def device(self, path: str) -> str | None:
        return read_device(path)

    def idle_now(self, position: int) -> int:
        return time.monotonic_ns()

    def idle_schedule(self) -> list[tuple[int, int]] | None:
        return None

    def reenumeration(self, walk: Callable[[], Reenumerated]) -> Reenumerated | None:
        return walk()

    def close(self) -> None:
        if self._diag is not None:
            self._diag.close()
            self._diag = None


class LiveFacts:
    """The running system's facts: /proc under ``proc`` and this machine's clocks.

    Args:
      proc: the procfs root.
      quote: bytes -> a C string literal, for the names of unix sockets in sock_diag's
        descriptions (the decoders pass strace's quoting,
        ``tracekit.decode.values.quote``); None: sock_diag's plain quoting.
    """

    def __init__(self, proc: str = "/proc", *,
                 quote: Callable[[bytes], str] | None = None) -> None:
        self.proc = proc
        self.quote = quote
        self.wall_offset_ns = time.time_ns() - time.monotonic_ns()
        self.utc_offset_s: int | None = None

    def reader(self, consumer: str) -> FactReader:
        """A new reader (each has its own sock_diag socket: close it with the reader)."""
        return _LiveReader(self.proc, self.quote)


def local_clock(utc_offset_s: int | None, sec: int) -> str:
    """``HH:MM:SS`` of Unix time ``sec``: local time when ``utc_offset_s`` is None, else
    at that offset from UTC."""
    if utc_offset_s is None:
        return time.strftime("%H:%M:%S", time.localtime(sec))
    return time.strftime("%H:%M:%S", time.gmtime(sec + utc_offset_s))
