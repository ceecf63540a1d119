"""Text sinks: render each batch, write it to a stream, flush; survive a closed reader.

Strings that come from traced processes (comm, filenames) pass through :func:`escape`
before they reach a terminal, so a traced process cannot inject terminal escapes.
"""

from __future__ import annotations

import io
import os
import sys
from typing import IO

from tracekit._events import Batch
from tracekit.pipeline._stage import EventReceiver, StageContext

__all__ = ["TextSink", "escape"]

# Characters escaped as \xNN (strace does the same for control bytes and non-UTF-8):
# C0 controls and DEL; C1 controls (U+0080..U+009F, e.g. U+009B is a one-character CSI on
# some terminals) as their two UTF-8 bytes; the backslash itself, so output stays
# unambiguous; and the surrogates U+DC80..U+DCFF that surrogateescape decoding uses for
# bytes that are not UTF-8 (tracekit._events._cstr), as the original byte.
_ESCAPES: dict[int, str] = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)}
_ESCAPES.update({c: "".join(f"\\x{b:02x}" for b in chr(c).encode()) for c in range(0x80, 0xA0)})
_ESCAPES[ord("\\")] = "\\\\"
_ESCAPES.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})


def escape(text: str) -> str:
    r"""Escape a string from a traced process for a terminal.

    Args:
      text: as decoded by ``tracekit._events`` (UTF-8, invalid bytes as surrogateescape).

    Returns:
      ``text`` with control characters and invalid UTF-8 bytes as ``\xNN`` and ``\`` as
      ``\\``; printable text, ASCII or not, unchanged. ``"\x1b[31m"`` -> ``"\\x1b[31m"``.
    """
    if text.isprintable() and "\\" not in text:    # the common case: nothing to do
        return text
    return text.translate(_ESCAPES)


class TextSink:
    """Base of the formatters: a :class:`~tracekit.pipeline.Sink` writing rendered batches.

    Subclasses set ``name`` and implement :meth:`render`. The stream is written and
    flushed once per batch, on the trio thread (a blocked reader applies backpressure up
    the pipeline to the ring buffer, whose overflow the kernel counts as lost records).

    Args:
      out: ``"-"`` for stdout, a path (opened ``wb`` when the run starts, closed at its
        end), or an open binary or text stream (left open).

    Attributes:
      closed_by_reader: the reader went away (``BrokenPipeError``, e.g. ``| head``). The
        sink then stops quietly, so the pipeline ends cleanly (the source sees its
        downstream closed); for stdout, fd 1 is pointed at /dev/null so the interpreter's
        final flush cannot fail (Python docs, "Note on SIGPIPE").
    """

    name = "text"

    def __init__(self, out: str | os.PathLike[str] | IO[bytes] | IO[str]) -> None:
        self.out = out
        self.closed_by_reader = False

    def render(self, batch: Batch) -> str | bytes:
        """Render a batch: whole lines, each ending in a newline ("" for nothing)."""
        raise NotImplementedError

    def _open(self) -> tuple[IO[bytes] | IO[str], bool]:
        """The stream to write, and whether this sink owns (closes) it."""
        if isinstance(self.out, str | os.PathLike):
            if os.fspath(self.out) == "-":
                sys.stdout.flush()                  # keep order with earlier print()s
                return getattr(sys.stdout, "buffer", sys.stdout), False
            return open(self.out, "wb"), True       # noqa: SIM115 - closed in run()
        return self.out, False

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        stream, owned = self._open()
        text = isinstance(stream, io.TextIOBase)
        try:
            async with recv:
                async for batch in recv:
                    data = self.render(batch)
                    if not data:
                        continue
                    if text and isinstance(data, bytes):
                        data = data.decode()
                    elif not text and isinstance(data, str):
                        data = data.encode()
                    try:
                        stream.write(data)          # type: ignore[arg-type]
                        stream.flush()
                    except BrokenPipeError:
                        self._reader_gone(ctx, stream, owned)
                        return
        finally:
            if owned and not self.closed_by_reader:
                stream.close()

    def _reader_gone(self, ctx: StageContext, stream: IO[bytes] | IO[str], owned: bool) -> None:
        self.closed_by_reader = True
        ctx.log.info("%s: the reader closed the output; stopping", ctx.name)
        if owned:
            try:
                stream.close()  # flushes what is left: fails again, but closes the fd
            except BrokenPipeError:
                pass            # the reader is gone: the unwritten rest has nowhere to go
        elif stream is getattr(sys.stdout, "buffer", sys.stdout):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
