"""A line per syscall in the style of ``strace -f -tt -T`` (``-yy`` with fd paths).

Line shapes::

    1234 10:00:00.123456 openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3 <0.000012>
    1234 10:00:00.123500 read(3, 0x7ffd1000, 832) = -1 EBADF (Bad file descriptor) <0.000002>
    1234 10:00:01.000000 read(0, 0x7ffd1000, 832) = ? ERESTARTSYS (To be restarted ...) <0.9>
    1234 10:00:01.000100 read(0, 0x7ffd1000, 832) = 5 <0.200000>
    1234 10:00:02.000000 exit_group(0) = ?
    1234 +++ exited with 0 +++
    1235 10:00:02.100000 read(0,  <unfinished ...>) = ?
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
  dumped)`` when set), from the wait(2) status in ``exit_code``; a thread group leader
  that another thread's execve reaped: ``1234 +++ superseded by execve in pid 1236 +++``
  (1236: the exec'ing thread's tid before the exec; it goes on as 1234).
- A call the task never returned from to user space (it died inside: SIGKILL, another
  thread's exit_group or execve) ends in ``= ?``, never a return of
  ``ERESTART*``, in strace's shape for it (:func:`unfinished_text`): the arguments
  strace decodes at entry, then `` <unfinished ...>`` when it would have decoded more at
  the exit that never came: ``kill(1234, SIGKILL) = ?``, ``read(0,  <unfinished ...>) =
  ?``, ``poll([{fd=3, events=POLLIN}], 1, -1 <unfinished ...>) = ?``.
- Signal records: ``1234 10:00:00.123456 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED,
  ...} ---`` (the delivery time; :mod:`tracekit.decode.signals`), where strace prints a
  signal-delivery stop; a stop signal with its default action is followed by
  ``1234 10:00:00.123456 --- stopped by SIGSTOP ---`` (strace's group-stop line, for the
  thread that took the signal). Not SIGKILL: the kernel kills the task without a stop,
  so strace prints only its ``+++ killed by SIGKILL +++`` (the record is still in JSON
  Lines).
- Lost records: ``+++ LOST N events +++``.
- Arguments are ``ev.decoded`` when a beautify stage ran, else decoded here.
- fd-table events (``FdState``, ``FdExec``, ``FdSnapshot``, ``FdTargets``: calls the
  selection hid, fds after an exec, tables read at start) print nothing: with fd paths
  they keep the decoder's fd cache true (tracekit.decode.fdcache).
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
    Decoded,
    Exit,
    Lost,
    Signal,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.argspec import ARGSPEC
from tracekit.decode.flags import signal_name
from tracekit.decode.signals import SIGKILL, signal_line, stopped_line
from tracekit.decode.values import DEFAULT_STRING_LIMIT
from tracekit.formatters._base import TextOptions, TextSink, reorder_stage
from tracekit.formatters._output import Output
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.facts import local_clock

__all__ = ["SPEC", "StraceFormatter", "exit_text", "make_sink", "stages_before",
           "unfinished_text"]

# Argument kinds (tracekit/decode/argspec.py) that strace decodes when the call returns:
# what the call writes. A call that never returns shows only the arguments before the
# first of them.
_EXIT_KINDS = frozenset({
    "bufr", "bufrx", "strr", "cwd", "dirents", "stat", "statx", "statfs", "pipefds", "iovr",
    "epollevents", "timespec_out", "timeval_out", "id_out", "cpuset_out", "sockaddr_out",
    "len_inout", "optval_out", "msghdr_out", "mmsgvec", "rusage", "rusagew", "wstatus",
    "utsname", "sysinfo", "tms", "rlim_out", "stack_out", "sigset_out", "sigaction_out",
    "siginfo_out",
})
# ... and those whose argument list does not say so: the remaining time of a sleep
_EXIT_ARG = {"nanosleep": 1, "clock_nanosleep": 3}
# return kinds strace decorates at exit (``1 ([{fd=3, revents=POLLIN}])``): every
# argument is shown at entry, and the call is not done
_EXIT_RETS = frozenset({"poll", "ppoll", "select", "pselect"})


def unfinished_text(name: str, args: Sequence[str]) -> str:
    """strace's line for a call its task died in, from ``name(`` to ``= ?``.

    strace prints a call's arguments as it decodes them: at entry those the call reads,
    at exit those it writes. A call that never returns gets ``) = ?`` after the entry
    part, with `` <unfinished ...>`` before it when the decoder was not done
    (strace.c, print_event_exit): ``kill(1234, SIGKILL) = ?``; ``read(0,  <unfinished
    ...>) = ?`` (each argument printed is followed by ``, ``); ``poll([...], 1, -1
    <unfinished ...>) = ?`` (every argument shown, the revents were to come).
    """
    spec = ARGSPEC.get(name)
    kinds, ret = spec if spec is not None else ((), "d")
    cut = _EXIT_ARG.get(name)
    if cut is None:
        cut = next((i for i, k in enumerate(kinds) if k in _EXIT_KINDS), None)
    if cut is not None and cut < len(args):
        return f"{name}({''.join(a + ', ' for a in args[:cut])} <unfinished ...>) = ?"
    if ret in _EXIT_RETS:
        return f"{name}({', '.join(args)} <unfinished ...>) = ?"
    return f"{name}({', '.join(args)}) = ?"


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
        self._second: tuple[int, str] = (-(1 << 62), "")  # (its first us, "HH:MM:SS.")
        self._compat: dict[int, bool] = {}
        self._forks: dict[bool, frozenset[int]] = {}
        self._tails: dict[int, tuple[Decoded, str]] = {}

    def _clock(self, ts_ns: int) -> str:
        us = (ts_ns + self.wall_offset_ns) // 1000
        second = self._second
        if not 0 <= us - second[0] < 1_000_000:
            sec = us // 1_000_000
            second = self._second = (sec * 1_000_000,
                                     local_clock(self.utc_offset_s, sec) + ".")
        return f"{second[1]}{us - second[0]:06d}"

    def render(self, batch: Batch) -> str:
        lines: list[str] = []
        track = self.decoder.track if self.decoder.fd_paths else None
        for ev in batch:
            if isinstance(ev, Syscall):
                self._syscall(ev, lines)
                continue
            if track is not None:
                track(ev)     # fd tables: forks, execs, hidden calls, snapshots
            if isinstance(ev, Exit):
                if ev.superseded_by:
                    lines.append(f"{ev.tid} +++ superseded by execve in pid "
                                 f"{ev.superseded_by} +++")
                else:
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
        if not flags and self.timestamps:          # the bulk: a completed call
            # the decoder hands back the same Decoded for a repeated call (its memo):
            # its text is joined once, then reused (the Decoded is kept, so its id
            # cannot be another object's)
            tail = self._tails.get(id(d))
            if tail is None or tail[0] is not d:
                if len(self._tails) >= 4096:
                    self._tails.clear()
                tail = self._tails[id(d)] = (d, f"{d.name}({', '.join(d.args)}) = {d.ret} <")
            return f"{ev.tid} {self._clock(ev.ts_ns)} {tail[1]}{ev.duration_ns / 1e9:.6f}>"
        head = f"{ev.tid} {self._clock(ev.ts_ns)} " if self.timestamps else f"{ev.tid} "
        if flags & SC_UNFINISHED:
            return head + unfinished_text(d.name, d.args)
        args = ", ".join(d.args)
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
