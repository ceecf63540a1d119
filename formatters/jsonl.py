r"""JSON Lines: one JSON object per event, one line each.

Schema (the event Structs of ``tracekit._events``, field order as declared there; the
``type`` tag comes first; all times in ns of CLOCK_MONOTONIC, ``bpf_ktime_get_ns``)::

    {"type":"syscall","ts_ns":..,"duration_ns":..,"tid":..,"tgid":..,"cpu":..,
     "syscall_nr":..,"args":[a0,a1,a2,a3,a4,a5],"ret":..,"comm":"..","flags":..,
     "caps":[..],"decoded":{..}|null,"stack":[{"ip":..,"kernel":false,"module":"..",
     "offset":..,"symbol":"..","symoff":..},..],"ip":..}
    {"type":"fork","ts_ns":..,"parent_tid":..,"parent_tgid":..,"child_tid":..,"child_tgid":..}
    {"type":"exec","ts_ns":..,"tid":..,"old_tid":..,"comm":"..","filename":".."}
    {"type":"exit","ts_ns":..,"tid":..,"tgid":..,"exit_code":..,"group_dead":true,"comm":".."}
    {"type":"signal","ts_ns":..,"tid":..,"tgid":..,"sig":..,"sa_handler":..,"info":"<base64>",
     "comm":"..","exit_only":false,"ip":..}
    {"type":"lost","ts_ns":..,"count":..,"lifecycle":..}
    {"type":"losses","ts_ns":..,"lost_syscalls":..,"lost_lifecycle":..,"lost_fd_table":..,
     "untraced_tasks":..,"capbuf_full":..,"stacks_missing":..,"scratch_full":..,"summary_full":..,"errno_full":..,"bad_records":..,
     "dropped":{"<stage>":..},"unwritten":..}

- ``ts_ns`` of a syscall is its ENTRY time (0 when RESUMED: the entry was not seen);
  ``duration_ns`` is exit - entry (0 when unknown: see ``flags``, the SC_* bits of
  programs/syscalls.h: 1 NORETURN, 2 UNFINISHED, 4 RESUMED, 8 COMPAT, 16 ATTACHED,
  32 INDIRECT: an i386 socketcall or old select whose args are the words it pointed to,
  a socketcall's ``syscall_nr`` its sub-call's).
- ``tid`` is the thread (kernel "pid"), ``tgid`` the process (user "pid"), both in the
  init pid namespace.
- ``args`` are the raw argument registers (unsigned 64-bit), ``ret`` the raw return
  value (signed; -4095..-1 is -errno), ``syscall_nr`` the native number (i386 table when
  COMPAT), ``exit_code`` the wait(2) status layout.
- A signal is one the thread dequeued to act on (where strace prints ``--- SIGxxx ---``):
  ``sig`` its number, ``sa_handler`` the disposition (0 SIG_DFL, 1 SIG_IGN, else the
  handler's address), ``info`` the first 48 bytes of its siginfo (base64, msgspec's
  bytes encoding; layout in ``tracekit.decode.signals``).
- ``exit`` has ``"superseded_by":N`` (not 0) when the task was a thread group leader
  that another thread's execve reaped: N is that thread's tid before the exec, after
  which it goes on under this tid (strace's ``+++ superseded by execve in pid N +++``).
- ``lost``: records the ring buffer had no room for since the last report, ``count``
  in all, ``lifecycle`` of them fork/exec/exit/signal records (the rest are syscall
  records: calls missing from the trace).
- ``losses`` is the last line of a trace (``tracekit run``, or a sink in a
  :class:`~tracekit.LiveTrace`): everything lost or skipped, every count to the end
  (:class:`~tracekit._events.Losses`): ring-buffer records by kind (``lost_fd_table``:
  fd-table change records, after the first of which the fd paths printed may be wrong),
  tasks the pids map
  could not hold, calls recorded without their captures (capture map full) or not at
  all (no per-task entry), in-kernel summary and errno map entries, records that could
  not be decoded, and per stage the events it did not pass on. Every field is there,
  0 when nothing of the kind was lost.
- ``stack`` (``[output] stacks``; empty otherwise): the call's frames at entry, innermost
  first, kernel ones (``"kernel":true``) before user ones; ``module`` and ``offset`` as
  strace -k's file and ``[0x...]``, ``symbol`` and ``symoff`` the function holding the
  address ("" when none does: never the nearest name before it); ``module`` "" when no
  mapping held the address (see tracekit._events.Frame).
- ``ip`` (when a strace output's ``instruction_pointer`` is on, or with ``stacks``; 0
  otherwise): the user instruction pointer at the call's entry, the address after its
  syscall instruction (strace -i); a signal's: where the thread takes it (0: not known).
- ``comm``, ``filename`` and a frame's ``module`` and ``symbol`` hold whatever bytes the
  traced process chose. They are
  written in tracekit's escaped form (:func:`~tracekit.formatters.escape`, the text
  formats' escaping), which JSON then escapes once more: a backslash becomes ``\\``, a
  byte that is not UTF-8 or a control character (C0, DEL; a C1 control as its two UTF-8
  bytes) ``\xNN`` in lower-case hex, every other character stays itself. In the JSON
  text a literal backslash is therefore ``"\\\\"`` and the byte 0xff ``"\\xff"``: they
  cannot be confused, and :func:`~tracekit.formatters.unescape` of the decoded string
  gives back the exact bytes. Plain names (``"python3"``, ``"/usr/bin/ls"``) read as
  they are.

Read it back with ``msgspec.json.Decoder(tracekit._events.Event).decode_lines(data)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from tracekit._events import FD_EVENTS, Batch, Event, Exec, Exit, Frame, Losses, Signal, Syscall
from tracekit.formatters._base import StackKind, TextSink, escape
from tracekit.formatters._output import Output
from tracekit.formatters._spec import FormatSpec, SinkContext

__all__ = ["SPEC", "JsonlOptions", "JsonlSink", "make_sink"]


class JsonlOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``[output] format = "jsonl"``: events are written as they arrive (raw values, plus
    ``decoded`` when a beautify stage is configured); ``stacks`` adds each call's stack;
    ``verbose`` reads execve's environment as its strings (a ``caps`` entry of kind 10,
    laid out as argv's kind 4: NUL-terminated strings, each of at most 1024 bytes)."""

    stacks: StackKind | None = None      # each call's stack at entry: a "stack" list
    verbose: bool = False                # execve's envp strings in "caps" (strace -v)


#: the str fields of each event type that hold a traced process's bytes
_TRACED_STRINGS: dict[type, tuple[str, ...]] = {
    Syscall: ("comm",), Exec: ("comm", "filename"), Exit: ("comm",), Signal: ("comm",)}
_FD_TYPES = frozenset(FD_EVENTS)
# a C1 control in UTF-8 (U+0080..U+009F), which escape() changes and JSON does not
_C1 = re.compile(rb"\xc2[\x80-\x9f]")


def _maybe_escaped(data: bytes) -> bool:
    """Whether JSON that msgspec wrote may hold something escape() changes: a backslash
    (msgspec's own escapes of control characters and quotes start with one too), DEL or
    a C1 control. Each test is a memchr; the regex runs only when a 0xc2 byte is there."""
    return (b"\\" in data or b"\x7f" in data
            or (b"\xc2" in data and _C1.search(data) is not None))


def _escaped_frame(f: Frame) -> Frame:
    module, symbol = escape(f.module), escape(f.symbol)
    if module is f.module and symbol is f.symbol:
        return f
    return msgspec.structs.replace(f, module=module, symbol=symbol)


def _escaped(ev: Event) -> Event:
    """``ev`` with its traced strings in escaped form (module docstring)."""
    changes: dict[str, object] = {}
    if isinstance(ev, Syscall) and ev.stack:
        frames = tuple(_escaped_frame(f) for f in ev.stack)
        if any(a is not b for a, b in zip(frames, ev.stack, strict=True)):
            changes["stack"] = frames
    for field in _TRACED_STRINGS.get(type(ev), ()):
        value = getattr(ev, field)
        text = escape(value)
        if text is not value:
            changes[field] = text
    return msgspec.structs.replace(ev, **changes) if changes else ev


class JsonlSink(TextSink):
    """A :class:`~tracekit.pipeline.Sink` writing JSON Lines (schema: module docstring).

    One ``msgspec.json.Encoder`` per sink; ``encode_lines`` per batch; one write and one
    flush per batch.

    Args:
      out: ``"-"`` (stdout), a path, or an open stream (:class:`TextSink`).
      losses_from: called once the input ends for the ``losses`` line written last; a
        :class:`~tracekit.LiveTrace` sets it to its ``losses`` when it is None.
    """

    name = "jsonl"

    def __init__(self, out: Output, *, losses_from: Callable[[], Losses] | None = None
                 ) -> None:
        super().__init__(out)
        self._encoder = msgspec.json.Encoder()
        self.losses_from = losses_from

    def end(self) -> bytes:
        if self.losses_from is None:
            return b""
        # the encoder writes every field (defaults too): all counts, zeros included
        return self._encoder.encode(self.losses_from()) + b"\n"

    def render(self, batch: Batch) -> bytes:
        if not _FD_TYPES.isdisjoint(map(type, batch)):    # (a C-level pass)
            # fd-table bookkeeping (tracekit.decode.fdcache), not events of the trace
            batch = [ev for ev in batch if type(ev) not in _FD_TYPES]
            if not batch:
                return b""
        # the common batch needs no escaping: encode it whole and look for what escape()
        # changes (a fast scan of bytes); only then go event by event (decoded strace
        # text always has backslashes, but its comms rarely need escaping)
        try:
            data = self._encoder.encode_lines(batch)
        except UnicodeEncodeError:      # a str with bytes that were not UTF-8
            data = None
        if data is not None and not _maybe_escaped(data):
            return data
        escaped = [_escaped(ev) for ev in batch]
        if data is not None and all(a is b for a, b in zip(escaped, batch, strict=True)):
            return data
        return self._encoder.encode_lines(escaped)


def make_sink(out: Output, options: JsonlOptions, ctx: SinkContext) -> JsonlSink:
    """``[output] format = "jsonl"``."""
    sink = JsonlSink(out)
    sink.options = options
    return sink


SPEC: FormatSpec[JsonlOptions] = FormatSpec("jsonl", JsonlOptions, make_sink)
JsonlSink.spec = SPEC
