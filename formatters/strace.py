"""A line per syscall in the style of ``strace -f -tt -T`` (``-yy`` with fd paths).

Line shapes::

    1234 10:00:00.123456 openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3 <0.000012>
    1234 10:00:00.123500 read(3, 0x7ffd1000, 832) = -1 EBADF (Bad file descriptor) <0.000002>
    1234 10:00:01.000000 read(0, 0x7ffd1000, 832) = ? ERESTARTSYS (To be restarted ...) <0.9>
    1234 10:00:01.000100 read(0, 0x7ffd1000, 832) = 5 <0.200000>
    1234 10:00:02.000000 exit_group(0) = ?
    1234 +++ exited with 0 +++
    1235 10:00:02.100000 read(0, 0x7ffd1000, 832 <unfinished ...>) = ?
    1235 +++ killed by SIGKILL +++
    1236 ??:??:??.?????? <... read resumed>) = 5
    [ Process PID=1237 runs in 32 bit mode. ]

- ``pid`` is the thread (tid), as ``strace -f`` prints it.
- time: the syscall's ENTRY time, wall clock (local time, as strace), from
  CLOCK_MONOTONIC ``ts_ns`` plus an offset taken once (``time.time_ns() -
  time.monotonic_ns()``); ``??:??:??.??????`` when the entry was not seen (RESUMED: the
  task was inside the call when tracing began; its start and duration are unknown).
- ``<dur>``: seconds with 6 decimals; absent when unknown (NORETURN, UNFINISHED, RESUMED).
- A call restarted after a signal (``? ERESTARTSYS``) is one line, and the restarted call
  its own line, as strace prints them.
- Records are complete calls (the BPF program emits at exit), so strace's interleaved
  ``<unfinished ...>``/``<... resumed>`` pairs of concurrent calls are one line each here;
  ``<unfinished ...>`` only marks a call the task died in, ``resumed`` only a call whose
  entry was before tracing began.
- A RESUMED clone/clone3/fork/vfork returning 0 is a new child's return from the fork
  (the kernel runs the child's sys_exit; it never entered the call): not printed, as
  strace shows only the parent's call.
- Exit records: ``+++ exited with N +++`` or ``+++ killed by SIGKILL +++`` (``(core
  dumped)`` when set), from the wait(2) status in ``exit_code``.
- Signal records: ``1234 10:00:00.123456 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED,
  ...} ---`` (the delivery time; :mod:`tracekit.decode.signals`), where strace prints a
  signal-delivery stop; a stop signal with its default action is followed by
  ``1234 10:00:00.123456 --- stopped by SIGSTOP ---`` (strace's group-stop line, for the
  thread that took the signal). Not SIGKILL: the kernel kills the task without a stop,
  so strace prints only its ``+++ killed by SIGKILL +++`` (the record is still in JSON
  Lines).
- Stacks (``[output] stacks``, strace -k): after a call's line, one line per frame,
  innermost first, as strace -k prints them (``frame_text``):
  `` > /usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x51) [0xf8011]``; kernel frames
  (``stacks = "kernel"`` or ``"both"``) come first, in the same layout, with the module
  ``[kernel.kallsyms]`` and the address as offset.
- Lost records: ``+++ LOST N events +++``.
- Arguments are ``ev.decoded`` when a beautify stage ran, else decoded here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from tracekit._events import (
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    Exit,
    Lost,
    Signal,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.flags import signal_name
from tracekit.decode.signals import SIGKILL, signal_line, stopped_line
from tracekit.decode.values import DEFAULT_STRING_LIMIT
from tracekit.formatters._base import TextOptions, TextSink, frame_text, reorder_stage
from tracekit.formatters._output import Output
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.facts import local_clock

__all__ = ["SPEC", "StraceFormatter", "exit_text", "make_sink", "stages_before"]


def exit_text(status: int) -> str:
    """A wait(2) status as strace's last line: ``+++ exited with 1 +++``,
    ``+++ killed by SIGKILL (core dumped) +++``."""
    sig = status & 0x7F
    if sig == 0:
        return f"+++ exited with {(status >> 8) & 0xFF} +++"
    core = " (core dumped)" if status & 0x80 else ""
    return f"+++ killed by {signal_name(sig)}{core} +++"


class StraceFormatter(TextSink):
    """Renders events as ``strace -f -tt -T`` lines (see the module docstring).

    Args:
      out: ``"-"`` (stdout), a path, or an open stream (:class:`TextSink`).
      decoder: decodes records that carry no ``decoded`` (no beautify stage); default a
        :class:`~tracekit.decode.args.SyscallDecoder` with ``fd_paths`` and
        ``string_limit``.
      fd_paths: strace -yy: fds as ``3</etc/passwd>`` (for the default decoder).
      string_limit: strace -s (for the default decoder).
      wall_offset_ns: added to CLOCK_MONOTONIC ``ts_ns`` to get wall-clock ns; default
        ``time.time_ns() - time.monotonic_ns()`` taken once here.
      utc_offset_s: show times at this offset east of UTC; None: this machine's local
        time (a replay passes the recording's).
      timestamps: print the ``-tt`` time and the ``-T`` duration.
    """

    name = "strace"

    def __init__(self, out: Output, *,
                 decoder: SyscallDecoder | None = None, fd_paths: bool = False,
                 string_limit: int = DEFAULT_STRING_LIMIT,
                 wall_offset_ns: int | None = None, utc_offset_s: int | None = None,
                 timestamps: bool = True) -> None:
        super().__init__(out)
        self.decoder = decoder if decoder is not None else SyscallDecoder(
            fd_paths=fd_paths, string_limit=string_limit)
        self.wall_offset_ns = (time.time_ns() - time.monotonic_ns()
                               if wall_offset_ns is None else wall_offset_ns)
        self.utc_offset_s = utc_offset_s
        self.timestamps = timestamps
        self._second: tuple[int, str] = (-1, "")
        self._compat: dict[int, bool] = {}
        self._forks: dict[bool, frozenset[int]] = {}

    def _clock(self, ts_ns: int) -> str:
        ns = ts_ns + self.wall_offset_ns
        sec, rem = divmod(ns, 1_000_000_000)
        if self._second[0] != sec:
            self._second = (sec, local_clock(self.utc_offset_s, sec))
        return f"{self._second[1]}.{rem // 1000:06d}"

    def render(self, batch: Batch) -> str:
        lines: list[str] = []
        for ev in batch:
            if isinstance(ev, Syscall):
                self._syscall(ev, lines)
            elif isinstance(ev, Exit):
                lines.append(f"{ev.tid} {exit_text(ev.exit_code)}")
            elif isinstance(ev, Signal):
                if ev.sig != SIGKILL:       # strace: no stop, only "+++ killed by" (below)
                    lines.append(self.format_signal(ev))
                    stopped = stopped_line(ev.sig, ev.sa_handler, self.decoder.flags)
                    if stopped is not None:
                        lines.append(self._signal_head(ev) + stopped)
            elif isinstance(ev, Lost):
                lines.append(f"+++ LOST {ev.count} events +++")
        return "\n".join(lines) + "\n" if lines else ""

    def _syscall(self, ev: Syscall, lines: list[str]) -> None:
        flags = ev.flags
        compat = bool(flags & SC_COMPAT)
        if self._compat.get(ev.tid, False) != compat:
            if compat or ev.tid in self._compat:
                bits = 32 if compat else 64
                lines.append(f"[ Process PID={ev.tid} runs in {bits} bit mode. ]")
            self._compat[ev.tid] = compat
        if flags & SC_RESUMED and ev.ret == 0 and ev.syscall_nr in self._fork_nrs(compat):
            return      # a new child's return from fork: strace shows only the parent's call
        lines.append(self.format_syscall(ev))
        if ev.stack:
            lines += [" > " + frame_text(f) for f in ev.stack]

    def _fork_nrs(self, compat: bool) -> frozenset[int]:
        got = self._forks.get(compat)
        if got is None:
            table = self.decoder.compat_table if compat else self.decoder.table
            nrs = (table.nr(n) for n in ("clone", "clone3", "fork", "vfork")) if table else ()
            got = self._forks[compat] = frozenset(nr for nr in nrs if nr is not None)
        return got

    def format_signal(self, ev: Signal) -> str:
        """``1234 10:00:00.123456 --- SIGUSR1 {...} ---``, without the newline."""
        return self._signal_head(ev) + signal_line(ev.sig, ev.info, self.decoder.flags)

    def _signal_head(self, ev: Signal) -> str:
        return f"{ev.tid} {self._clock(ev.ts_ns)} " if self.timestamps else f"{ev.tid} "

    def format_syscall(self, ev: Syscall) -> str:
        """One line, without the newline."""
        d = ev.decoded if ev.decoded is not None else self.decoder.decode(ev)
        flags = ev.flags
        if flags & SC_RESUMED:
            head = f"{ev.tid} ??:??:??.?????? " if self.timestamps else f"{ev.tid} "
            return f"{head}<... {d.name} resumed>) = {d.ret}"
        head = f"{ev.tid} {self._clock(ev.ts_ns)} " if self.timestamps else f"{ev.tid} "
        args = ", ".join(d.args)
        if flags & SC_UNFINISHED:
            return f"{head}{d.name}({args} <unfinished ...>) = ?"
        if flags & SC_NORETURN or not self.timestamps:
            return f"{head}{d.name}({args}) = {d.ret}"
        return f"{head}{d.name}({args}) = {d.ret} <{ev.duration_ns / 1e9:.6f}>"


def make_sink(out: Output, options: TextOptions, ctx: SinkContext) -> StraceFormatter:
    """``[output] format = "strace"``: the formatter decodes the records itself (a beautify
    stage's ``decoded`` is used when there is one), with ``options``' ``fd_paths``
    (strace -yy) and ``string_limit`` (strace -s)."""
    facts = ctx.live_facts       # the trace's wall clock (a replay's: the recording's)
    sink = StraceFormatter(out, decoder=options.decoder(ctx),
                           wall_offset_ns=facts.wall_offset_ns,
                           utc_offset_s=facts.utc_offset_s)
    sink.options = options
    return sink


def stages_before(options: TextOptions, configured: Sequence[Any],
                  ctx: SinkContext) -> list[Any]:
    """Lines in ``ts_ns`` order across CPUs (the formatter decodes, so no beautify stage)."""
    return [reorder_stage(ctx)]


SPEC: FormatSpec[TextOptions] = FormatSpec("strace", TextOptions, make_sink, stages_before)
StraceFormatter.spec = SPEC
