"""Text sinks: render each batch, write it to a stream, flush; survive a closed reader.

Paths are opened and closed by :mod:`tracekit.formatters._output` (mode 0600, no
symlinks, a closed reader handled there). Strings that come from traced processes (comm,
filenames) pass through :func:`escape` before they reach a terminal, so a traced process
cannot inject terminal escapes.
"""

from __future__ import annotations

import io
import os
import re
import sys
from typing import IO, TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias, cast

import msgspec
import trio

from tracekit._events import Batch, Frame
from tracekit.formatters._output import (
    Output,
    close_output,
    is_std_stream,
    open_output,
    pipe_fd,
    reader_closed,
    reader_gone,
    write_error,
)
from tracekit.pipeline._stage import EventReceiver, StageContext

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder
    from tracekit.formatters._spec import FormatSpec, SinkContext

__all__ = ["StackKind", "TextOptions", "TextSink", "escape", "frame_text", "unescape"]

#: ``[output] stacks``: which stacks each recorded call carries (taken at its entry)
StackKind: TypeAlias = Literal["user", "kernel", "both"]


class TextOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``[output]`` keys of the text formats (perf, strace): how arguments are decoded."""

    fd_paths: bool = True                # fds with what they refer to: 3</etc/passwd> (-yy)
    string_limit: Annotated[int, msgspec.Meta(ge=0, le=1 << 20)] = 32  # bytes of strings shown (-s)
    stacks: StackKind | None = None      # each call's stack at entry (strace -k); None: none
    # strace -v: structs with every field, execve's environment as its strings (read in
    # the kernel only then, each string string_limit + 1 bytes at most)
    verbose: bool = False

    def decoder(self, ctx: SinkContext) -> SyscallDecoder:
        """A decoder with these options; argument counts from ``ctx.arg_names``, argument
        C types from ``ctx.arg_types``."""
        from tracekit.decode.args import SyscallDecoder
        from tracekit.decode.fdcache import FdCache

        def arg_count(name: str) -> int | None:
            names = ctx.arg_names(name)
            return None if names is None else len(names)

        # fd targets the calls did not show come from the trace's facts (a recording's)
        reader = ctx.live_facts.reader("decoder")
        fdcache = FdCache(facts=reader)
        decoder = SyscallDecoder(ctx.syscall_table, fd_paths=self.fd_paths,
                                 string_limit=self.string_limit, arg_count=arg_count,
                                 arg_types=ctx.arg_types, fdcache=fdcache)
        decoder.verbose = self.verbose
        return decoder


def reorder_stage(ctx: SinkContext | None = None) -> Any:
    """Text for people: lines in ``ts_ns`` order across CPUs (pipeline/reorder.py); its
    idle releases go through ``ctx``'s facts, so a recording can replay them."""
    from tracekit.pipeline.reorder import Reorder

    return Reorder(facts=ctx.live_facts.reader("reorder") if ctx is not None else None)

# Characters escaped as \xNN (strace does the same for control bytes and non-UTF-8):
# C0 controls and DEL; C1 controls (U+0080..U+009F, e.g. U+009B is a one-character CSI on
# some terminals) as their two UTF-8 bytes; the backslash itself, so output stays
# unambiguous; and the surrogates U+DC80..U+DCFF that surrogateescape decoding uses for
# bytes that are not UTF-8 (tracekit._events._cstr), as the original byte.
_ESCAPES: dict[int, str] = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)}
_ESCAPES.update({c: "".join(f"\\x{b:02x}" for b in chr(c).encode()) for c in range(0x80, 0xA0)})
_ESCAPES[ord("\\")] = "\\\\"
_ESCAPES.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})


def repeats_text(f: Frame) -> list[str]:
    """The line said after a frame whose repeats were cut (a looping frame-pointer
    chain): ``... N more frames of the same address``; none for other frames."""
    return [f"... {f.repeats} more frames of the same address"] if f.repeats else []


def frame_text(f: Frame) -> str:
    """A frame as strace -k prints it, escaped, without the leading `` > ``:
    ``/usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x51) [0xf8011]``; no symbol holds the
    address: ``/path() [0xf8011]`` (module and offset); no mapping holds it:
    ``[unknown]() [0x7f3c12345678]`` (the address)."""
    if not f.module:
        return f"[unknown]() [{f.ip:#x}]"
    if f.symbol:
        return f"{escape(f.module)}({escape(f.symbol)}+{f.symoff:#x}) [{f.offset:#x}]"
    return f"{escape(f.module)}() [{f.offset:#x}]"


def escape(text: str) -> str:
    r"""Escape a string from a traced process for a terminal (and for the JSON outputs,
    whose comm and file names are in this form: :func:`unescape` inverts it).

    Args:
      text: as decoded by ``tracekit._events`` (UTF-8, invalid bytes as surrogateescape).

    Returns:
      ``text`` with control characters and invalid UTF-8 bytes as ``\xNN`` and ``\`` as
      ``\\``; printable text, ASCII or not, unchanged. ``"\x1b[31m"`` -> ``"\\x1b[31m"``.
    """
    if text.isprintable() and "\\" not in text:    # the common case: nothing to do
        return text
    return text.translate(_ESCAPES)


_UNESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def unescape(text: str) -> bytes:
    r"""The bytes a traced process had, from the text :func:`escape` made of them.

    :func:`escape` is one-to-one on the bytes a process can hold, so this is exact:
    ``\\`` is a backslash, ``\xNN`` the byte 0xNN (a C1 control comes back as its two
    UTF-8 bytes), anything else its UTF-8. The JSON outputs write comm and file names
    in escaped form, so ``unescape(json.loads(line)["comm"])`` is the comm's bytes.

    Args:
      text: what :func:`escape` returned.

    Returns:
      ``unescape(escape(raw.decode("utf-8", "surrogateescape"))) == raw`` for any ``raw``.
    """
    if "\\" not in text:
        return text.encode("utf-8", "surrogateescape")
    out = bytearray()
    pos = 0
    for m in _UNESCAPE.finditer(text):
        out += text[pos:m.start()].encode("utf-8", "surrogateescape")
        out += b"\\" if m[1] == "\\" else bytes((int(m[1][1:], 16),))
        pos = m.end()
    out += text[pos:].encode("utf-8", "surrogateescape")
    return bytes(out)


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
    #: the format this sink is (None: a sink of your own); ``options`` those it was made with
    spec: ClassVar[FormatSpec[Any] | None] = None
    options: msgspec.Struct | None = None

    def __init__(self, out: Output) -> None:
        self.out = out
        self.closed_by_reader = False

    def render(self, batch: Batch) -> str | bytes:
        """Render a batch: whole lines, each ending in a newline ("" for nothing)."""
        raise NotImplementedError

    def _open(self) -> tuple[IO[bytes] | IO[str], bool]:
        """The stream to write, and whether this sink owns (closes) it."""
        if isinstance(self.out, str | os.PathLike):
            stream = open_output(self.out)
            return stream, not is_std_stream(stream)
        if self.out is sys.stdout or self.out is sys.stderr:
            # their binary layer: under PYTHONUNBUFFERED=1 the text layer sits on a raw
            # FileIO and drops what a short write left (open_output's "-" is buffered)
            return open_output("-" if self.out is sys.stdout else "/dev/stderr"), False
        return self.out, False

    def end(self) -> str | bytes:
        """What to write once the input has ended, after the last batch ("" for nothing)."""
        return ""

    async def _write_all(self, recv: EventReceiver, stream: IO[bytes] | IO[str],
                         text: IO[str] | None, binary: IO[bytes] | None) -> bool:
        """Render and write every batch, then :meth:`end`; True when a write found the
        reader gone."""
        async with recv:
            async for batch in recv:
                if _write(self.render(batch), stream, text, binary):
                    return True
        return _write(self.end(), stream, text, binary)

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        stream, owned = self._open()
        # a text stream (io.TextIOBase: sys.stdout, StringIO) takes str; any other is binary
        # (open_output's files, sys.stdout.buffer, BytesIO) and takes bytes
        text = stream if isinstance(stream, io.TextIOBase) else None
        binary = cast(IO[bytes], stream) if text is None else None
        completed = False
        try:
            broken = False
            with trio.CancelScope() as reading:     # cancelled when the reader is gone
                async with trio.open_nursery() as watch:
                    if pipe_fd(stream) is not None:
                        watch.start_soon(_watch_reader, stream, reading)
                    broken = await self._write_all(recv, stream, text, binary)
                    watch.cancel_scope.cancel()
            if broken or reading.cancelled_caught:
                self.closed_by_reader = True
                ctx.log.info("%s: the reader closed the output; stopping", ctx.name)
                reader_closed(stream, owned=owned)
                return
            completed = True
        finally:
            if owned and not self.closed_by_reader:
                close_output(stream, completed=completed)


def _write(data: str | bytes, stream: IO[bytes] | IO[str], text: IO[str] | None,
           binary: IO[bytes] | None) -> bool:
    """Write and flush ``data`` (nothing when empty); True when the reader is gone."""
    if not data:
        return False
    try:
        if text is not None:
            text.write(data.decode() if isinstance(data, bytes) else data)
        elif binary is not None:
            binary.write(data.encode() if isinstance(data, str) else data)
        stream.flush()
    except BrokenPipeError:
        return True
    except OSError as e:        # ENOSPC, EFBIG, EIO: one line naming the output and why
        raise write_error(stream, e) from None
    return False


async def _watch_reader(stream: object, reading: trio.CancelScope, *,
                        interval_s: float = 0.1) -> None:
    """Cancel ``reading`` once the pipe or socket ``stream`` has lost its reader.

    Every record may already sit in the pipe when the reader goes (`| head`), and a quiet
    command makes no more: without this the sink would never write again, so never learn.
    """
    while not reader_gone(stream):
        await trio.sleep(interval_s)
    reading.cancel()
