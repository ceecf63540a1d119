"""The one place that opens outputs: for the CLI's runner, the notebook and every sink.

Rules, for every path a trace is written to:

- ``"-"`` and ``/dev/stdout`` are stdout, ``/dev/stderr`` is stderr (flushed, never
  closed; not the symbolic links they are in /dev, which are refused like any other);
- ``/dev/fd/N`` and ``/proc/self/fd/N`` (a shell's ``>(CMD)``, ``3>FILE``) are this
  process's own fd N, opened again through the link as strace opens it: a link into our
  own fd table cannot be planted by anyone else;
- a regular file is always a new file of ours, mode 0600 (a trace may hold other users'
  data): created beside the path (``mkstemp``: ``O_EXCL``, so never through a symbolic
  link) and renamed over it. A file that was already there is replaced, never opened:
  it may belong to another user, be readable by others (0666) or be held open by them,
  and writing into it would hand them the trace. A symbolic link at the path is
  refused (a link planted in a shared directory cannot redirect the write);
- not ``atomic`` (the streaming formats): the new file replaces the path when it is
  opened, so it grows as the trace runs, as strace's ``-o`` file does;
- ``atomic`` (summaries, written once at the end): :func:`close_output` renames the new
  file over the path when the run completed, so a reader sees the old file or the whole
  new one; a failed run leaves the old file;
- a fifo or a device (``/dev/null``, a terminal) is written in place, never swapped for a
  file of ours; a fifo nobody reads yet is waited for (as ``open(2)`` waits, fifo(7)),
  but :func:`stop_waiting_for_readers` (a signal's handler) ends the wait;
- a reader that went away (``EPIPE``, ``BrokenPipeError``: ``| head``, a closed fifo) is
  not an error: :func:`reader_closed` makes sure nothing written later fails again.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import re
import select
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeAlias, cast

import tracekit._inherited_fds as _inherited_fds
from tracekit._errors import ConfigError, OutputError, TracekitError, quoted
from tracekit._stdio import StdoutWriteError, guard_stdout

__all__ = [
    "AtomicFile", "FileId", "Output", "OutputInterrupted", "StdoutWriteError", "append_output",
    "append_to",
    "check_output_dir", "close_output", "file_id", "guard_stdout", "is_std_stream",
    "is_stdout", "open_output", "pipe_fd", "reader_closed", "reader_gone", "std_stream_of",
    "stop_waiting_for_readers",
]


class OutputInterrupted(TracekitError):
    """An output was a fifo with no reader, and the wait for one was given up
    (:func:`stop_waiting_for_readers`)."""


_stop_waiting = threading.Event()
_FIFO_POLL_S = 0.05


def stop_waiting_for_readers(stop: bool = True) -> None:
    """End (True) every wait of :func:`open_output` for a fifo's reader, now and later,
    or (False) allow such waits again. Safe from any thread (a signal thread's)."""
    if stop:
        _stop_waiting.set()
    else:
        _stop_waiting.clear()


STDOUT = "-"
#: output paths that name a standard stream -> its fd
STD_PATHS: dict[str, int] = {"-": 1, "/dev/stdout": 1, "/dev/stderr": 2}

#: where a sink writes: ``"-"`` (stdout), a path (opened by :func:`open_output`), or an open
#: binary or text stream (written as it is, left open)
Output: TypeAlias = str | os.PathLike[str] | IO[bytes] | IO[str]


#: the buffered writer made for an unbuffered standard stream: (its raw layer, the writer)
_buffered_std: dict[int, tuple[object, IO[bytes]]] = {}


def _binary_layer(stream: object) -> IO[bytes]:
    """The binary layer of ``sys.stdout`` or ``sys.stderr``, buffered.

    Under ``python -u`` or ``PYTHONUNBUFFERED=1`` (common in containers) that layer is the
    raw ``FileIO``, whose ``write`` may write only part of the data (a pipe's reader was
    slow when a stop signal came: write(2)) and returns the count: a caller that writes a
    batch once would drop the rest without an error. Such a layer is given a
    ``BufferedWriter`` of its own over the same fd (never closing it), which writes
    everything or raises; one per raw layer, so that :func:`is_stdout` knows it.
    A stream replaced by one without a binary layer (no ``.buffer``) is returned as it
    is: the caller's writes then fail there, with that stream's own error.
    """
    binary = getattr(stream, "buffer", stream)
    if not isinstance(binary, io.RawIOBase):
        return cast(IO[bytes], binary)
    cached = _buffered_std.get(id(binary))
    if cached is None or cached[0] is not binary:
        raw = io.FileIO(binary.fileno(), "wb", closefd=False)
        cached = (binary, io.BufferedWriter(raw))
        _buffered_std[id(binary)] = cached
    return cached[1]


def _stdout() -> IO[bytes]:
    return _binary_layer(sys.stdout)


def _stderr() -> IO[bytes]:
    return _binary_layer(sys.stderr)


def std_stream_of(path: str | os.PathLike[str]) -> int | None:
    """1 when ``path`` names stdout (``"-"``, ``/dev/stdout``), 2 for stderr
    (``/dev/stderr``), else None (a file path)."""
    return STD_PATHS.get(os.fspath(path))


def is_stdout(stream: object) -> bool:
    """Whether ``stream`` is this process's stdout (its binary buffer or the text layer)."""
    return stream is sys.stdout or stream is _stdout()


def is_std_stream(stream: object) -> bool:
    """Whether ``stream`` is this process's stdout or stderr (binary or text layer): a
    stream tracekit writes to but never closes."""
    return is_stdout(stream) or (sys.stderr is not None
                                 and (stream is sys.stderr or stream is _stderr()))


def open_output(path: str | os.PathLike[str], *, atomic: bool = False,
                in_place: bool = True) -> IO[bytes]:
    """The binary stream a trace is written to: stdout for ``"-"``, else a file.

    Args:
      path: ``"-"``, ``/dev/stdout``, ``/dev/stderr`` or a file path (module docstring:
        a new 0600 file of ours that replaces what was there, no symlinks).
      atomic: the new file replaces ``path`` when :func:`close_output` commits it, not
        now (a regular file only; a fifo or device is written in place).
      in_place: False: a fifo or device at ``path`` is refused (EEXIST), not written
        in place: for files named after what a traced process controls (strace -ff's
        ``PREFIX.PID``), where a planted fifo nobody reads would stop the trace.

    Raises:
      ConfigError: the path is empty, or the standard stream is closed.
      OutputError: (a ConfigError) the directory is missing, the path is a directory or
        a symlink, or the file cannot be created or put in place; ``.errno`` says why
        (EACCES for a directory we cannot write, EPERM for another user's file in a
        sticky directory such as /tmp without CAP_FOWNER, EMFILE, ENOSPC ...).
    """
    std = std_stream_of(path)
    if std == 1:
        if sys.stdout is None:              # started with fd 1 closed (`tracekit run ... >&-`)
            raise ConfigError(f"output {quoted(os.fspath(path))}: standard output is closed "
                              "(EBADF); give a file with -o")
        sys.stdout.flush()                  # keep order with earlier print()s
        return _stdout()
    if std == 2:
        if sys.stderr is None:
            raise ConfigError(f"output {quoted(os.fspath(path))}: standard error is closed "
                              "(EBADF); give a file with -o")
        sys.stderr.flush()
        return _stderr()
    if not os.fspath(path):
        raise ConfigError('output path is empty: give a file, or "-" for standard output')
    own = own_fd_of(path)
    if own is not None:
        return _open_own_fd(path, own)
    p = Path(path)
    try:
        parent_is_dir = p.parent.is_dir()
    except OSError as e:            # ENAMETOOLONG: longer than PATH_MAX
        raise _output_error(path, e) from None
    if not parent_is_dir:
        raise _no_directory(os.fspath(path), str(p.parent))
    mode = _lstat_mode(p)
    if not in_place and mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)
                                                  or stat.S_ISDIR(mode)):
        raise OutputError(f"output path {quoted(os.fspath(path))}: a fifo or device is there, "
                          "not written in place (EEXIST)", path=os.fspath(path),
                          errno=errno.EEXIST)
    if mode is not None and stat.S_ISFIFO(mode):
        return _open_fifo(p)
    # missing: created; a link: AtomicFile.create refuses it; another lstat error:
    # AtomicFile.create reports it
    if mode is None or stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        f = AtomicFile.create(p)
        if atomic:
            return f
        f.place()               # in place now: from here on an ordinary (buffered) file
        return io.BufferedWriter(f)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
    except OSError as e:
        raise _output_error(path, e) from None
    return _named_stream(fd, path)


class FileId(NamedTuple):
    """A file as :func:`file_id` saw it: which file (``dev``, ``ino``), whose (``uid``),
    and its ``size`` (bytes) and change time (``ctime_ns``, ns) then."""

    dev: int
    ino: int
    uid: int
    size: int
    ctime_ns: int


def file_id(stream: IO[Any]) -> FileId:
    """The file ``stream`` writes, as it is now (after a flush), to know it again by
    :func:`append_output`: taken when the stream is closed.

    Raises:
      OSError: the flush failed (ENOSPC, EIO ...).
    """
    stream.flush()
    return _file_id_of(os.fstat(stream.fileno()))


def _file_id_of(st: os.stat_result) -> FileId:
    return FileId(st.st_dev, st.st_ino, st.st_uid, st.st_size, st.st_ctime_ns)


def _unchanged(st: os.stat_result, made: FileId) -> bool:
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and _file_id_of(st) == made


def append_output(path: str | os.PathLike[str], made: FileId) -> IO[bytes]:
    """The file :func:`open_output` made at ``path`` (``made``: its :func:`file_id` when
    it was closed), opened again to write after what it holds: strace -ff's
    ``PREFIX.PID`` of a task whose file was closed at its exit and that has a line again
    (a late record, the pid reused), which must not cut off the lines already there.

    It is opened only when it is still that file, unchanged since: a regular file with
    one link and the same device, inode, owner, size and change time. The inode alone is
    not enough: a file deleted and made again at the name often gets the same inode
    number back (ext4), and a traced process may do that to put lines of its own before
    tracekit's; it cannot give its file tracekit's owner (unless it runs as tracekit's
    user), nor the change time of tracekit's last write (the kernel sets it at every
    change). The open is ``O_APPEND``, never through a symlink (``O_NOFOLLOW``), and the
    file is looked at (``lstat``) before the open and (``fstat``) after it, the open
    ``O_NONBLOCK``, so a fifo put there meanwhile can neither make it wait for a reader
    nor be written. Anything else at the name (nothing, another file, a symlink, a fifo
    or a device) is left to :func:`open_output` with ``in_place=False``: a new file of
    ours replaces another file (never opened), a symlink, fifo or device is refused.

    Raises:
      OutputError: as :func:`open_output` (``.errno``: ELOOP, EEXIST, EMFILE ...).
    """
    p = Path(path)
    try:
        st = os.lstat(p)
    except OSError:
        st = None
    if st is not None and _unchanged(st, made):
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
                         | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ELOOP, errno.ENXIO):
                raise _output_error(path, e) from None
            # replaced between the lstat and the open: as any other file at the name
        else:
            if _unchanged(os.fstat(fd), made):
                os.set_blocking(fd, True)
                return _named_stream(fd, path)
            os.close(fd)
    return open_output(path, in_place=False)


def append_to(path: str | os.PathLike[str], *, in_place: bool = True) -> IO[bytes]:
    """strace -A: ``path`` opened to write after what it holds (``O_APPEND``), made (a
    0600 file, as every new output) when missing. Unlike :func:`append_output`, the
    file may be anyone's that this process may write: the user asked for it.

    A standard stream, an own fd's link, a fifo or a device go as :func:`open_output`
    takes them (``in_place=False``: a fifo or device is refused, for strace -ff's
    ``PREFIX.PID``); a symlink is refused (``ELOOP``), never written through; the open
    is ``O_NONBLOCK`` and the file looked at after it, so a fifo put at the name
    meanwhile is neither waited for nor written.

    Raises:
      OutputError: as :func:`open_output` (``.errno``: ELOOP, EISDIR, EACCES, EEXIST ...).
    """
    if std_stream_of(path) is not None or own_fd_of(path) is not None or \
            not os.fspath(path):
        return open_output(path, in_place=in_place)
    p = Path(path)
    mode = _lstat_mode(p)
    if mode is not None and not stat.S_ISREG(mode):
        return open_output(path, in_place=in_place)     # a link, fifo, device, directory
    try:
        parent_is_dir = p.parent.is_dir()
    except OSError as e:
        raise _output_error(path, e) from None
    if not parent_is_dir:
        raise _no_directory(os.fspath(path), str(p.parent))
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                     | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise _output_error(path, e) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):      # replaced meanwhile: as open_output
        os.close(fd)
        return open_output(path, in_place=in_place)
    os.set_blocking(fd, True)
    return _named_stream(fd, path)


def _lstat_mode(p: Path) -> int | None:
    """The mode of ``p`` itself (not a link's target); None when lstat fails."""
    try:
        return os.lstat(p).st_mode
    except OSError:
        return None


def _open_fifo(p: Path) -> IO[bytes]:
    """A fifo opened for writing once a reader has it open (fifo(7): a non-blocking open
    fails with ENXIO until then), polled every 50 ms so that a signal can end the wait.

    Raises:
      OutputInterrupted: :func:`stop_waiting_for_readers` was called meanwhile.
      ConfigError: the fifo cannot be opened (errno name).
    """
    while True:
        try:
            fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
            break
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise _output_error(p, e) from None
        if _stop_waiting.wait(_FIFO_POLL_S):
            raise OutputInterrupted(f"output {quoted(os.fspath(p))}: a fifo that no process "
                                    "opened for reading before the signal came")
    os.set_blocking(fd, True)       # from here on, written as any fifo
    return _named_stream(fd, p)


def _named_stream(fd: int, path: str | os.PathLike[str]) -> IO[bytes]:
    """``fd`` as a binary stream named by ``path`` (errors name it, not its fd number)."""
    out = os.fdopen(fd, "wb")
    out.raw.name = os.fspath(path)     # type: ignore[attr-defined]
    return out


def check_output_dir(path: str | os.PathLike[str]) -> None:
    """Whether a file could be created at ``path`` as far as its directory goes: before
    a run whose files are made while it runs (strace ``-ff -o PREFIX``: ``PREFIX.PID``),
    so that a missing directory is said before the command starts, not at its first
    file. The file itself is not made (a link or a file planted later is refused then).

    Raises:
      OutputError: the directory does not exist (ENOENT), is not a directory
        (ENOTDIR), is on a read-only file system (EROFS) or cannot be written (EACCES).
    """
    name = os.fspath(path)
    where = os.path.dirname(name) or "."
    try:
        st = os.stat(where)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise _no_directory(name, where) from None
        raise _output_error(name, e) from None
    err = 0
    if not stat.S_ISDIR(st.st_mode):
        err = errno.ENOTDIR
    elif not os.access(where, os.W_OK | os.X_OK, effective_ids=True):
        err = errno.EROFS if os.statvfs(where).f_flag & os.ST_RDONLY else errno.EACCES
    if err:
        raise OutputError(f"output path {quoted(name)}: directory {quoted(where)}: "
                          f"{os.strerror(err)} ({errno.errorcode[err]})", path=name, errno=err)


def _no_directory(name: str, where: str) -> OutputError:
    return OutputError(f"output path {quoted(name)}: directory {quoted(where)} does not "
                       "exist (ENOENT)",
                       path=name, errno=errno.ENOENT)


#: the links to an open fd a shell names for ``>(CMD)`` and ``/dev/fd/N``
_FD_LINK = re.compile(r"/(dev|proc/(self|thread-self|\d+))/fd/\d+\Z")
_OWN_FD_LINK = re.compile(r"/(?:dev|proc/(?:self|thread-self|(\d+)))/fd/(\d{1,9})\Z")


def own_fd_of(path: str | os.PathLike[str]) -> int | None:
    """N when ``path`` names one of this process's own fds (``/dev/fd/N``,
    ``/proc/self/fd/N``, ``/proc/thread-self/fd/N``, ``/proc/<our pid>/fd/N``: a shell's
    ``>(CMD)`` or ``3>FILE``), else None. Such a link can only lead where this process's
    fd table does, so it is written through, unlike other links."""
    m = _OWN_FD_LINK.match(os.fspath(path))
    if m is None or (m.group(1) is not None and int(m.group(1)) != os.getpid()):
        return None
    return int(m.group(2))


def _inherited(fd: int) -> bool:
    """Whether fd was open when the tracekit command started (any fd, as a library)."""
    return _inherited_fds.INHERITED is None or fd in _inherited_fds.INHERITED


def _open_own_fd(path: str | os.PathLike[str], fd: int) -> IO[bytes]:
    """A stream on what our fd ``fd`` refers to, opened again for writing as strace
    opens ``-o /dev/fd/N``; stdout and stderr for 1 and 2.

    Raises:
      OutputError: fd is not open (EBADF; an fd tracekit opened itself counts as not
        open), is open for reading only (EBADF), or cannot be opened again (ENXIO for a
        socket).
    """
    if fd in (1, 2):
        return open_output(STDOUT if fd == 1 else "/dev/stderr")
    try:
        if not _inherited(fd):
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError as e:
        raise OutputError(f"output path {quoted(os.fspath(path))}: fd {fd} is not open "
                          f"({errno.errorcode.get(e.errno or 0, '?')})",
                          path=os.fspath(path), errno=e.errno or 0) from None
    if flags & os.O_ACCMODE == os.O_RDONLY:
        raise OutputError(f"output path {quoted(os.fspath(path))}: fd {fd} is open for reading "
                          "only (EBADF)", path=os.fspath(path), errno=errno.EBADF)
    try:
        # opened again through the fd's link, as strace's fopen(path, "w") opens it: a
        # file is truncated (even one the shell opened with >>), a pipe is the pipe
        new = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
    except OSError as e:
        raise _output_error(path, e) from None
    return _named_stream(new, path)


def _output_error(path: str | os.PathLike[str], e: OSError) -> OutputError:
    name = errno.errorcode.get(e.errno or 0, "?")
    hint = {errno.ELOOP: " (a symlink: tracekit does not write through links)",
            errno.EPERM: " (another user's file in a sticky directory: replacing it needs "
                         "CAP_FOWNER)"}.get(e.errno or 0, "")
    if e.errno == errno.ELOOP and _FD_LINK.match(os.fspath(path)):
        # a shell's process substitution, `strace -o >(grep open) ...`: /dev/fd/63
        hint = (" (an fd's link, such as a shell's >(CMD): tracekit does not write "
                "through links; pipe the trace instead: tracekit strace -o '|CMD', or "
                "-o - with a shell pipe)")
    return OutputError(f"output path {quoted(os.fspath(path))}: {e.strerror} ({name}){hint}",
                       path=os.fspath(path), errno=e.errno or 0)


class AtomicFile(io.FileIO):
    """A 0600 temp file beside ``final``; :meth:`commit` renames it over ``final``.

    Attributes:
      final: the path the data is for.
      tmp: the temp file's path (``.<name>.<random>.tmp`` in the same directory, so the
        rename cannot cross file systems).
    """

    final: Path
    tmp: Path

    @classmethod
    def create(cls, final: Path) -> AtomicFile:
        """Create the temp file (mode 0600, O_EXCL).

        Raises:
          ConfigError: ``final`` is a directory or a symlink, or the directory is not
            writable.
        """
        try:
            st = os.lstat(final)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise _output_error(final, e) from None
        else:
            if stat.S_ISDIR(st.st_mode):
                raise _output_error(final, OSError(errno.EISDIR, os.strerror(errno.EISDIR)))
            if stat.S_ISLNK(st.st_mode):
                raise _output_error(final, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
        try:
            fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.",
                                       suffix=".tmp")
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC,
                           errno.EDQUOT, errno.EMFILE, errno.ENFILE):
                raise _output_error(final, e) from None
            # the file may well exist (/proc/version): what failed is making the new file
            # beside it, in a directory that takes none (procfs says ENOENT)
            name = errno.errorcode.get(e.errno or 0, "?")
            raise OutputError(
                f"output path {quoted(os.fspath(final))}: cannot create a new file in "
                f"{quoted(os.fspath(final.parent))}: {e.strerror} ({name}); tracekit writes "
                "the trace to a new file, put in place of any file there, which this "
                "directory does not allow (a file system such as /proc or /sys)",
                path=os.fspath(final), errno=e.errno or 0) from None
        f = cls(fd, "wb", closefd=True)
        f.final, f.tmp = final, Path(tmp)
        return f

    #: the temp file was renamed over :attr:`final` already (:meth:`place`)
    placed: bool = False

    def place(self) -> None:
        """Rename the temp file over :attr:`final` now; writing goes on into it there.

        Raises:
          ConfigError: the rename failed (EPERM: another user's file in a sticky
            directory, without CAP_FOWNER); the temp file is removed.
        """
        try:
            os.replace(self.tmp, self.final)
        except OSError as e:
            self.discard()
            raise _output_error(self.final, e) from None
        self.placed = True

    def commit(self) -> None:
        """Flush to disk, close, and rename over :attr:`final` (replacing a file there);
        a file already :meth:`place` d is flushed and closed."""
        if not self.closed:
            self.flush()
            if not self.placed:
                os.fsync(self.fileno())
            self.close()
        if not self.placed:
            os.replace(self.tmp, self.final)
            self.placed = True

    def discard(self) -> None:
        """Close and remove the temp file; :attr:`final` is left as it was. A file already
        :meth:`place` d is only closed: it is the output, and holds what was written."""
        self.close()
        if self.placed:
            return
        try:
            os.unlink(self.tmp)
        except FileNotFoundError:
            pass


def close_output(out: IO[Any], *, completed: bool = True) -> None:
    """Close what :func:`open_output` returned.

    An :class:`AtomicFile` is renamed into place when the run ``completed``, else removed;
    stdout and stderr are flushed, not closed. A reader that went away is not an error here (the run
    already ended as ``| head`` wanted): the rest has nowhere to go.

    Raises:
      TracekitError: closing a file of a completed run failed (ENOSPC, EIO show only when
        the buffer is flushed), with the errno name.
    """
    if isinstance(out, AtomicFile):
        if completed:
            out.commit()
        else:
            out.discard()
        return
    if is_std_stream(out):
        try:
            out.flush()
        except BrokenPipeError:
            reader_closed(out)
        except OSError as e:    # ENOSPC (>/dev/full), EIO (a hung-up terminal) ...
            if completed:
                raise write_error(out, e) from None
        return
    try:
        out.close()  # flushes the buffer; the fd is closed even when that fails
    except BrokenPipeError:
        pass         # a fifo whose reader went away: nothing left to tell it
    except OSError as e:
        if completed:
            raise write_error(out, e) from None
        # the run already failed: that error says more than this one


def output_name(stream: IO[Any]) -> str:
    """What a user called the output ``stream`` writes to: its path (the final path of an
    :class:`AtomicFile`, never a temp name or an fd number), or the standard stream."""
    if is_stdout(stream):
        return "standard output"
    if is_std_stream(stream):
        return "standard error"
    raw = getattr(stream, "raw", stream)
    final = getattr(raw, "final", None)
    if final is not None:
        return str(os.fspath(final))
    name = getattr(raw, "name", None)
    return name if isinstance(name, str) else "the output"


def write_error(stream: IO[Any], e: OSError) -> TracekitError:
    """The error of a failed write (or flush) to an output: its name and the errno name
    (ENOSPC on a full disk or /dev/full, EFBIG past RLIMIT_FSIZE, EIO on a hung-up
    terminal)."""
    name = errno.errorcode.get(e.errno or 0, "?")
    return TracekitError(f"writing {quoted(output_name(stream))}: {e.strerror} ({name})")


def reader_closed(stream: IO[Any], *, owned: bool = False) -> None:
    """After a write to ``stream`` raised ``BrokenPipeError``: make sure nothing fails again.

    Stdout's fd 1 (stderr's fd 2) is pointed at /dev/null, so the interpreter's final
    flush cannot fail (Python docs, "Note on SIGPIPE"); a stream the caller ``owned`` is
    closed (its fd
    released; the unwritten rest is dropped). A stream someone else owns is left to them
    (:func:`close_output` knows a closed reader too).
    """
    if is_std_stream(stream):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 1 if is_stdout(stream) else 2)
        finally:
            os.close(devnull)
    elif owned:
        try:
            stream.close()  # flushes what is left: fails again, but closes the fd
        except BrokenPipeError:
            pass            # the reader is gone: the unwritten rest has nowhere to go


def pipe_fd(stream: object) -> int | None:
    """The fd of ``stream`` if it is a pipe (fifo) or a socket, else None."""
    fileno = getattr(stream, "fileno", None)
    try:
        fd = fileno() if callable(fileno) else None
        if not isinstance(fd, int):
            return None
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, io.UnsupportedOperation):
        return None                         # no fd (StringIO) or already closed
    return fd if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else None


def reader_gone(stream: object) -> bool:
    """Whether ``stream`` is a pipe or socket whose reading end has been closed.

    A write would fail with EPIPE, but a sink that has nothing to write would not learn
    it: ``tracekit run ... | head`` would then wait for a quiet command. poll(2) reports
    POLLERR on a pipe's write end once no reader is left (fs/pipe.c, pipe_poll) and
    POLLHUP on a socket whose peer shut down; a file or terminal never is "gone".
    """
    fd = pipe_fd(stream)
    if fd is None:
        return False
    poller = select.poll()
    poller.register(fd, 0)                  # no events asked: POLLERR/POLLHUP still come
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
