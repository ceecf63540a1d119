"""Standard output's write errors as one TracekitError (:class:`StdoutWriteError`),
for the command line (tracekit.app.cli.main) and the output layer
(tracekit.formatters._output re-exports both names); :func:`stderr`, where tracekit's
own messages go.

A module of its own, importing nothing but the standard library and tracekit._errors,
so the entry point can install :func:`guard_stdout` before anything heavy (trio) is
imported: a signal during those imports ends tracekit as the entry point says
(tracekit._entry).
"""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import Any

from tracekit._errors import TracekitError

__all__ = ["StdoutWriteError", "guard_stdout", "stderr"]


class StdoutWriteError(TracekitError, OSError):
    """A write to standard output failed with an error other than EPIPE (ENOSPC on
    /dev/full or a full disk, EIO on a hung-up terminal, EFBIG past RLIMIT_FSIZE):
    ``writing 'standard output': <strerror> (<ENAME>)``, as
    tracekit.formatters._output.write_error says it. An OSError with the true
    ``.errno``, so code that handles a failed write goes on doing so; a
    TracekitError, so the command line reports it in one line."""

    def __init__(self, err: int, strerror: str | None = None) -> None:
        OSError.__init__(self, err, strerror or os.strerror(err))

    def __str__(self) -> str:
        name = errno.errorcode.get(self.errno or 0, "?")
        return f"writing 'standard output': {self.strerror} ({name})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.errno, self.strerror))


class _StdoutFile(io.FileIO):
    """fd 1, whose failed writes raise :class:`StdoutWriteError` (EPIPE stays
    ``BrokenPipeError``: a reader that went away is not an error)."""

    def write(self, b: Any) -> int:
        try:
            return super().write(b)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutWriteError(e.errno or errno.EIO, e.strerror) from None


def guard_stdout() -> None:
    """Make every failed write to standard output, wherever it comes from (a sink, a
    listing, ``--help``, the last flush at exit), a :class:`StdoutWriteError`: one
    mechanism for the command line (tracekit.app.cli.main), which reports it in one
    line and a non-zero status, as coreutils do (``ls --help >/dev/full``: "write
    error: No space left on device", status 2), not a traceback of whichever write
    found it.

    ``sys.stdout`` is replaced by a text stream of the same encoding, errors and line
    buffering over a buffered fd 1 of :class:`_StdoutFile` (unbuffered under
    ``python -u``: write-through). Nothing is done when stdout is closed (None) or not
    fd 1 (a caller's own stream).
    """
    old = sys.stdout
    if not isinstance(old, io.TextIOWrapper):
        return
    try:
        if old.fileno() != 1:
            return
    except (OSError, ValueError):
        return
    old.flush()
    unbuffered = isinstance(old.buffer, io.RawIOBase)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_StdoutFile(1, "wb", closefd=False)), encoding=old.encoding,
        errors=old.errors, line_buffering=old.line_buffering, write_through=unbuffered)


class _Dropped:
    """A text stream that drops what is written to it."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


_DROPPED = _Dropped()


class _Messages:
    """``sys.stderr`` for tracekit's messages: a write that fails (ENOSPC on /dev/full,
    EIO on a hung-up terminal, EPIPE) drops the message, as strace's messages are, rather
    than fail a trace whose output was written whole."""

    def write(self, text: str) -> int:
        try:
            return sys.stderr.write(text) if sys.stderr is not None else len(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        try:
            if sys.stderr is not None:
                sys.stderr.flush()
        except (OSError, ValueError):
            pass


_MESSAGES = _Messages()


def stderr() -> Any:
    """Where tracekit's messages go: ``sys.stderr``, through a layer that drops a
    message it cannot write (:class:`_Messages`), or that drops them all when tracekit
    was started with fd 2 closed (``2>&-``; Python sets ``sys.stderr`` to None):
    ``print(..., file=None)`` prints on stdout, an error or a loss line in the trace's
    own stream (a JSON Lines trace no longer parses), or in a pipe's reader."""
    return _MESSAGES if sys.stderr is not None else _DROPPED
