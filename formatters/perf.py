"""A line per syscall in the style of ``perf trace``.

Line shapes (checked against ``perf trace -- /bin/true`` (perf 6.1) on Linux 6.18;
tests/formatters/test_perf.py compares with a live perf run; padding before ``=``
shortened here)::

         0.000 ( 0.004 ms): ls/1234 openat(dfd: 0xffffffffffffff9c, filename: 0x7ffd1000) = 3
         0.021 ( 0.002 ms): ls/1234 access(filename: 0x7ffd2000, mode: 4)  = -1 ENOENT (No such ...)
             ? (         ): ls/1234  ... [continued]: execve())             = 0
         1.509 (         ): ls/1234 exit_group(error_code: 0)               = ?
         2.000 (         ): ls/1234 read(fd: 0, buf: 0x7ffd3000, count: 0x1000) = ? <unfinished>
    LOST 3 events!

- timestamp: ms since the first event's ``ts_ns`` (or ``base_ts_ns``), ``%10.3f``; it is
  the syscall's *entry* time, as perf prints; ``?`` when the entry was not seen (RESUMED).
- duration: ms, ``(%6.3f ms)``; blank (9 spaces) when unknown (NORETURN, UNFINISHED,
  RESUMED).
- ``comm/tid``: comm escaped (:func:`~tracekit.formatters.escape`), not truncated (perf
  cuts it to 14 characters).
- args: named by ``arg_names(syscall)`` (the tracefs ``format`` fields), raw register
  values: 0..9 in decimal, larger in hex (the two agree below 10, and small values are
  perf's most common decimal ones, fds and lengths); every argument is printed, zeros
  too (perf hides zeros). When ``arg_names`` gives None: ``arg0`` .. ``arg5``.
- `` = `` starts at column 70 of the part after ``comm/tid `` or one space after a longer
  call: perf's ``args_alignment`` default (tools/perf/builtin-trace.c, ``trace__sys_exit``).
- With a beautify stage (``ev.decoded`` set), argument values and the return value are
  its strace text after each ``name: `` (``openat(dfd: AT_FDCWD, filename: "/etc/passwd",
  flags: O_RDONLY|O_CLOEXEC) = 3``); arguments the call does not use are not printed.
- ret: decimal; an error is ``-1 ENOENT (No such file or directory)``; NORETURN (exit,
  exit_group) ``?``; UNFINISHED (the task died inside the call) ``? <unfinished>``.
- Signal: perf trace prints no signal deliveries by default (only as the
  ``signal:signal_deliver`` tracepoint with ``-e``), so the line is strace's text in perf's
  layout: ``     3.210 (         ): sh/1234 --- SIGCHLD {si_signo=SIGCHLD, ...} ---``
  (delivery time, no duration); it sets the time base like a syscall. SIGKILL prints
  nothing (strace shows no stop for it either); a stop signal with its default action is
  followed by a ``--- stopped by SIGSTOP ---`` line in the same layout.
- Stacks (``[output] stacks``, perf trace --call-graph): after a call's line, one line
  per frame, innermost first (kernel frames, then user ones), indented 39 columns as
  perf trace indents them: ``symbol (module)``; a frame no symbol names:
  ``[0xoffset] (module)``; one no mapping holds: ``[0xaddress] ([unknown])``.
- Fork, Exec and Exit print nothing (``perf trace`` prints no lifecycle lines either);
  nor do they set the time base. Lost prints ``LOST <n> events!`` (perf's wording for
  PERF_RECORD_LOST) on its own line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tracekit._events import (
    SC_COMPAT,
    SC_DETACHED,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    Frame,
    Lost,
    Signal,
    Syscall,
)
from tracekit.decode.flags import for_arch
from tracekit.decode.ops import arg_positions
from tracekit.decode.signals import SIGKILL, signal_line, stopped_line
from tracekit.formatters._base import TextOptions, TextSink, escape, reorder_stage, repeats_text
from tracekit.formatters._output import Output
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.syscalls import format_ret

__all__ = ["SPEC", "PerfFormatter", "chain_line", "make_sink", "stages_before"]

_ALIGN = 70             # perf trace's default args alignment (builtin-trace.c)
_NO_DURATION = " " * 9  # width of "%6.3f ms"
_MEMO_MAX = 4096       # entries per memo; a full memo is emptied
_CHAIN_INDENT = " " * 39   # perf trace's call-chain indent (checked with perf 6.1)


def chain_line(f: Frame) -> str:
    """One frame of a call chain as perf trace prints it (escaped, with the indent)."""
    if f.symbol:
        return f"{_CHAIN_INDENT}{escape(f.symbol)} ({escape(f.module)})"
    if f.module:
        return f"{_CHAIN_INDENT}[{f.offset:#x}] ({escape(f.module)})"
    return f"{_CHAIN_INDENT}[{f.ip:#x}] ([unknown])"


def _pad(body: str) -> str:
    """Spaces after ``body)`` so that ``=`` starts at column _ALIGN (at least one)."""
    return " " * max(_ALIGN - len(body) - 1, 1)


class PerfFormatter(TextSink):
    """Renders Syscall and Lost events as ``perf trace`` lines (see the module docstring).

    Args:
      out: ``"-"`` (stdout), a path, or an open stream (:class:`TextSink`).
      syscall_name: native syscall number -> name, e.g. ``SyscallTable().name``.
      arg_names: syscall name -> argument names (tracefs ``format`` fields, in order), or
        None when unknown (then ``arg0`` .. ``arg5`` are printed).
      errno_text: positive errno -> ``"ENOENT (No such file or directory)"``; default
        ``tracekit.kernel.syscalls.format_ret`` (strace's names, ``? ERESTARTSYS`` for restarts).
      compat_syscall_name: the same for 32-bit (SC_COMPAT) syscalls, whose numbers are
        from the i386 table; default ``compat_syscall_<nr>``.
      base_ts_ns: the time 0.000 (CLOCK_MONOTONIC ns); default the first event's ts_ns.
    """

    name = "perf"

    def __init__(self, out: Output, *,
                 syscall_name: Callable[[int], str],
                 arg_names: Callable[[str], list[str] | None] = lambda name: None,
                 errno_text: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None,
                 base_ts_ns: int | None = None) -> None:
        super().__init__(out)
        self.syscall_name = syscall_name
        self.arg_names = arg_names
        self.errno_text = errno_text
        self.compat_syscall_name = compat_syscall_name
        self.base_ts_ns = base_ts_ns
        # (nr, compat) -> (name, ("dfd: ", "filename: ", ...))
        self._calls: dict[tuple[int, bool], tuple[str, tuple[str, ...]]] = {}
        # memos of texts that repeat: ``"): comm/tid "`` by (comm, tid), ``" 0.002 ms"``
        # by duration_ns, a decoded call's text up to its return value by (nr, compat, args)
        self._who: dict[tuple[str, int], str] = {}
        self._durations: dict[int, str] = {}
        self._tails: dict[tuple[int, bool, tuple[str, ...]], str] = {}

    def render(self, batch: Batch) -> str:
        lines = []
        for ev in batch:
            if isinstance(ev, Syscall):
                lines.append(self.format_syscall(ev))
                if ev.stack:
                    for f in ev.stack:
                        lines.append(chain_line(f))
                        lines += [_CHAIN_INDENT + r for r in repeats_text(f)]
            elif isinstance(ev, Signal):
                if ev.sig != SIGKILL:       # as the strace format (no stop, no line)
                    lines.append(self.format_signal(ev))
                    stopped = stopped_line(ev.sig, ev.sa_handler, for_arch())
                    if stopped is not None:     # the group stop, as the strace format
                        lines.append(self.format_signal(ev, stopped))
            elif isinstance(ev, Lost):
                lines.append(f"LOST {ev.count} events!")
            # Lifecycle records do not set the time base: an Exec is stamped inside the
            # execve whose syscall record (stamped at entry) arrives after it.
        return "\n".join(lines) + "\n" if lines else ""

    def format_signal(self, ev: Signal, text: str | None = None) -> str:
        """One signal delivery, strace's text (or ``text``) in the syscall line's layout
        (no newline)."""
        if self.base_ts_ns is None:
            self.base_ts_ns = ev.ts_ns
        ms = (ev.ts_ns - self.base_ts_ns) / 1e6
        if text is None:
            text = signal_line(ev.sig, ev.info, for_arch())
        return f"{ms:10.3f} ({_NO_DURATION}): {escape(ev.comm)}/{ev.tid} {text}"

    def format_syscall(self, ev: Syscall) -> str:
        """One line, without the newline."""
        flags = ev.flags
        compat = bool(flags & SC_COMPAT)
        call, names = self._call(ev.syscall_nr, compat)
        who = self._who.get((ev.comm, ev.tid))
        if who is None:
            if len(self._who) >= _MEMO_MAX:
                self._who.clear()
            who = self._who[(ev.comm, ev.tid)] = f"): {escape(ev.comm)}/{ev.tid} "
        if flags & SC_RESUMED:
            head = f"{'?':>10} ({_NO_DURATION}{who}"
            body = f" ... [continued]: {call}()"
            return f"{head}{body}){_pad(body)}= {self._ret(ev)}"
        if self.base_ts_ns is None:
            self.base_ts_ns = ev.ts_ns
        ms = (ev.ts_ns - self.base_ts_ns) / 1e6
        if flags & (SC_NORETURN | SC_UNFINISHED):
            head = f"{ms:10.3f} ({_NO_DURATION}{who}"
        else:
            dur = self._durations.get(ev.duration_ns)
            if dur is None:
                if len(self._durations) >= _MEMO_MAX:
                    self._durations.clear()
                dur = self._durations[ev.duration_ns] = f"{ev.duration_ns / 1e6:6.3f} ms"
            head = f"{ms:10.3f} ({dur}{who}"
        dec = ev.decoded
        if dec is None:
            args = ", ".join([n + (str(v) if v < 10 else hex(v))
                              for n, v in zip(names, ev.args, strict=False)])
            body = f"{call}({args}"
            return f"{head}{body}){_pad(body)}= {self._ret(ev)}"
        # Decoded calls repeat: their text up to the return value is memoised.
        key = (ev.syscall_nr, compat, dec.args)
        tail = self._tails.get(key)
        if tail is None:
            if len(self._tails) >= _MEMO_MAX:
                self._tails.clear()
            # an operation that leaves out a middle argument (futex's FUTEX_LOCK_PI):
            # each value keeps its own argument's name
            at = None if compat else arg_positions(call, ev.args)
            if at is not None and len(at) == len(dec.args) and max(at) < len(names):
                names = tuple(names[i] for i in at)
            body = f"{call}({self._decoded_args(names, dec.args)}"
            tail = self._tails[key] = f"{body}){_pad(body)}= "
        return f"{head}{tail}{self._ret(ev)}"

    @staticmethod
    def _decoded_args(names: tuple[str, ...], args: tuple[str, ...]) -> str:
        """``name: value`` pairs from a beautify stage's text; values that name themselves
        (clone's ``flags=...``) or have no tracefs name are printed as they are."""
        if len(args) > len(names):
            return ", ".join(args)
        return ", ".join([a if "=" in a[:16] and a[:1].isalpha() else n + a
                          for n, a in zip(names, args, strict=False)])

    def _ret(self, ev: Syscall) -> str:
        if ev.flags & SC_NORETURN:
            return "?"
        if ev.flags & SC_DETACHED:
            return "? <detached>"
        if ev.flags & SC_UNFINISHED:
            return "? <unfinished>"
        if ev.decoded is not None and self.errno_text is None:
            return ev.decoded.ret
        if self.errno_text is not None and -4095 <= ev.ret < 0:
            return f"-1 {self.errno_text(-ev.ret)}"
        return format_ret(ev.ret)

    def _call(self, nr: int, compat: bool) -> tuple[str, tuple[str, ...]]:
        """(name, argument prefixes ``"<name>: "``) of a syscall number, cached."""
        got = self._calls.get((nr, compat))
        if got is None:
            if compat:
                call = (self.compat_syscall_name(nr) if self.compat_syscall_name
                        else f"compat_syscall_{nr}")
            else:
                call = self.syscall_name(nr)
            names = self.arg_names(call)
            if names is None:
                names = [f"arg{i}" for i in range(6)]
            got = self._calls[(nr, compat)] = (call, tuple(f"{n}: " for n in names))
        return got


def make_sink(out: Output, options: TextOptions, ctx: SinkContext) -> PerfFormatter:
    """``[output] format = "perf"``: the formatter, named by ``ctx``'s tables."""
    sink = PerfFormatter(out, syscall_name=ctx.syscall_name, arg_names=ctx.arg_names,
                         compat_syscall_name=ctx.compat_syscall_name)
    sink.options = options
    return sink


def stages_before(options: TextOptions, configured: Sequence[Any],
                  ctx: SinkContext) -> list[Any]:
    """Decoding, as perf trace decodes arguments (unless a beautify stage is configured),
    then lines in ``ts_ns`` order across CPUs: last, so that the stages before see arrival
    order (beautify's fd table follows the calls' exits)."""
    stages: list[Any] = []
    if not any(getattr(st, "name", "") == "beautify" for st in configured):
        from tracekit.pipeline.beautify import Beautify

        stages.append(Beautify(options.decoder(ctx)))
    stages.append(reorder_stage(ctx))
    return stages


SPEC: FormatSpec[TextOptions] = FormatSpec("perf", TextOptions, make_sink, stages_before)
PerfFormatter.spec = SPEC
