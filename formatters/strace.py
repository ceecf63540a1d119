r"""A line per syscall in the style of ``strace -f -tt -T`` (``-yy`` with fd paths).

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
  entry was before tracing began and whose arguments are unknown. A call the task was in
  when tracing began whose arguments the BPF program read from the registers at its exit
  (ATTACHED: a ``-p`` target blocked in ``read``) is one whole line with the time
  unknown, as strace prints the call it restarts on attaching.
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
- A call the task never returned from to user space (it died inside: SIGKILL, another
  thread's exit_group or execve) ends in ``= ?``, never a return of
  ``ERESTART*``, in strace's shape for it (:func:`unfinished_text`): the arguments
  strace decodes at entry, then `` <unfinished ...>`` when it would have decoded more at
  the exit that never came: ``kill(1234, SIGKILL) = ?``, ``read(0,  <unfinished ...>) =
  ?``, ``poll([{fd=3, events=POLLIN}], 1, -1 <unfinished ...>) = ?``.
- fd-table events (``FdState``, ``FdExec``, ``FdSnapshot``, ``FdTargets``: calls the
  selection hid, fds after an exec, tables read at start) print nothing: with fd paths
  they keep the decoder's fd cache true (tracekit.decode.fdcache).
- A leader that another thread's execve replaced: ``+++ superseded by execve in pid N
  +++`` (N: the exec'ing thread's tid before the exec).
- Arguments are ``ev.decoded`` when a beautify stage ran, else decoded here.

The options (:class:`StraceOptions`, the ``[output]`` keys; ``tracekit strace`` sets them
from strace's own flags) change the shape of the lines, never what is decoded::

    time_format  "tt" (default) 10:00:00.123456 | "t" 10:00:00 | "ttt" 1767344400.123456
                 | "r" (seconds since the previous line's time, "%6d.%06d") | "none"
                 | "t+r", "tt+r", "ttt+r": both, "10:00:00 (+     0.000316) " (-t -r)
    durations    true (default): " <0.000012>" after the return value (strace -T)
    align_column 0 (default): " = " after the call; N: the "=" at column N at least,
                 counted from the start of the line (strace -a N; strace's default 40)
    pid_prefix   "tid" (default) "1234 " | "padded" "1234  " (strace -f -o FILE: "%-5d ")
                 | "multi" "[pid  1234] " while more than one task is traced, nothing
                 before (strace -f on its standard error) | "none" (one task; -ff files)
    hex_strings  "none" | "non-ascii-chars": each byte outside printable ASCII that has
                 no C escape as \xNN, not octal | "non-ascii": a string with a byte
                 outside printable ASCII and \t\n\v\f\r is printed all in \xNN
                 (strace -x) | "all" (strace -xx)
    raw_syscalls names whose arguments and return print undecoded, in hex (-e raw=)
    dump_reads, dump_writes  fds (or "all") whose data read or written is hex-dumped
                 after the line, `` | 00000  68 65 ...  he... |`` (-e read=, -e write=)
    dump_reads_except, dump_writes_except  fds an "all" set leaves out (-e write=!1)
    exit_lines   false: no "+++ exited with N +++" lines (strace -qq; "+++ killed by"
                 lines stay, as in strace)
    exit_time    true: the time column on "+++" lines too, as strace prints it
    syscall_numbers  true: ``[  59] `` after the time column (strace -n): the call's
                 number (its own table's: i386 numbers for a 32-bit call); on a signal or
                 ``+++`` line the number of the thread's last call shown (strace's: its
                 last call, shown or not; 0 before any)
    instruction_pointer  true: ``[00007f2a9c1e4ad7] `` after -n's column (strace -i):
                 the user instruction pointer at the call's entry, the address after
                 its syscall instruction (``Syscall.ip``); on a signal line where the
                 thread takes it (``Signal.ip``); ``[????????????????] `` on ``+++``
                 lines and where it was not recorded (a call entered before tracing
                 began). A task in 32-bit mode: 8 digits (``[004011c6] ``, ``[????????]
                 ``), its personality line in the new mode's width
"""

from __future__ import annotations

import errno
import functools
import time
from collections.abc import Callable, Sequence
from typing import IO, Annotated, Any, Literal, TypeAlias

import msgspec

from tracekit._errors import ConfigError, OutputError
from tracekit._events import (
    SC_ATTACHED,
    SC_COMPAT,
    SC_DETACHED,
    SC_NORETURN,
    SC_RESUMED,
    SC_SKIPPED,
    SC_UNFINISHED,
    Batch,
    Decoded,
    Event,
    Exit,
    Fork,
    Lost,
    Signal,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.argspec import ARGSPEC, ARGSPEC32
from tracekit.decode.flags import for_arch
from tracekit.decode.signals import SIGKILL, signal_line, stopped_line
from tracekit.decode.structs_io import IOV_DUMPS, iov_dump_vectors
from tracekit.decode.values import DEFAULT_STRING_LIMIT
from tracekit.formatters._base import TextOptions, TextSink, frame_text, reorder_stage, repeats_text
from tracekit.formatters._output import (
    FileId,
    Output,
    append_output,
    append_to,
    close_output,
    file_id,
    open_output,
    write_error,
)
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.facts import local_clock
from tracekit.kernel.syscalls import errno_name

__all__ = ["SPEC", "SplitStraceFormatter", "StraceFormatter", "StraceOptions",
           "detached_call", "dump_lines", "exit_text", "hex_strings", "make_sink",
           "stages_before", "unfinished_call", "unfinished_text"]

# Argument kinds (tracekit/decode/argspec.py) that strace decodes when the call returns:
# what the call writes. A call that never returns shows only the arguments before the
# first of them.
_EXIT_KINDS = frozenset({
    "bufr", "bufrx", "strr", "cwd", "dirents", "stat", "statx", "statfs", "pipefds", "iovr",
    "epollevents", "timespec_out", "timeval_out", "id_out", "cpuset_out", "sockaddr_out",
    "len_inout", "optval_out", "msghdr_out", "mmsgvec", "rusage", "rusagew", "wstatus",
    "utsname", "sysinfo", "tms", "rlim_out", "stack_out", "sigset_out", "sigaction_out",
    "siginfo_out", "uint_out", "mincore_vec", "msgbuf_out", "mqattr_out", "timex",
    "mpolmode_out", "nlbufr", "siginfo_w", "mmsgvec_out", "bufrn",
})
# ... and those whose argument list does not say so: the remaining time of a sleep,
# io_getevents' events (decoded apart from the argument kinds)
_EXIT_ARG = {"nanosleep": 1, "clock_nanosleep": 3, "io_getevents": 3}
# strace's decode_sockname (net.c): the address and its length are printed at exit only
# when both are given (and the length read, the call verbose); else both print as
# addresses at entry, and the call (accept4 with its flags) is done there:
# accept(3, NULL, NULL) = ?. (Only NULL is told here: a length unread, or a call not
# verbose, looks like one read from /proc without captures.)
_SOCKNAME = frozenset({"accept", "accept4", "getsockname", "getpeername"})
# return kinds strace decorates at exit (``1 ([{fd=3, revents=POLLIN}])``): every
# argument is shown at entry, and the call is not done
_EXIT_RETS = frozenset({"poll", "ppoll", "select", "pselect"})

# duration_text's memo: the text of a duration by its half-microseconds (ns // 500)
_DURATIONS: dict[int, str] = {}
_DURATIONS_MAX = 4096
#: durations below this many ns (1e6 s) are rounded exactly by integer arithmetic
_DURATION_EXACT = 10**15


def duration_text(ns: int) -> str:
    """``f"{ns / 1e9:.6f}"`` (strace -T's seconds), from a memo for most durations.

    The float's rounding to microseconds is the integer one for every ``ns`` below
    :data:`_DURATION_EXACT` whose sub-microsecond part is not exactly 500: the double
    nearest ns / 1e9 is then within ``x * 2**-53`` (under 1.2e-10 s) of the exact
    quotient, which is at least 1e-9 s from the nearest tie. The other durations (ties,
    huge or negative values) take the float's own text.
    """
    if not 0 <= ns < _DURATION_EXACT or ns % 1000 == 500:
        return f"{ns / 1e9:.6f}"
    key = ns // 500             # even: rounds down to ns // 1000; odd: up
    text = _DURATIONS.get(key)
    if text is None:
        us = (key + 1) >> 1
        if len(_DURATIONS) >= _DURATIONS_MAX:
            _DURATIONS.clear()
        text = _DURATIONS[key] = f"{us // 1_000_000}.{us % 1_000_000:06d}"
    return text



def unfinished_text(name: str, args: Sequence[str]) -> str:
    """strace's line for a call its task died in, from ``name(`` to ``= ?``.

    strace prints a call's arguments as it decodes them: at entry those the call reads,
    at exit those it writes. A call that never returns gets ``) = ?`` after the entry
    part, with `` <unfinished ...>`` before it when the decoder was not done
    (strace.c, print_event_exit): ``kill(1234, SIGKILL) = ?``; ``read(0,  <unfinished
    ...>) = ?`` (each argument printed is followed by ``, ``); ``poll([...], 1, -1
    <unfinished ...>) = ?`` (every argument shown, the revents were to come).
    """
    return unfinished_call(name, args) + " = ?"


def unfinished_call(name: str, args: Sequence[str]) -> str:
    """:func:`unfinished_text` up to the ``)`` (the return column is the caller's)."""
    text, more = _entry_part(name, args)
    return f"{text} <unfinished ...>)" if more else f"{text})"


def detached_call(name: str, args: Sequence[str]) -> str:
    """strace's line for a call its thread was inside when tracing ended, after the
    prefix: what strace printed at the call's entry, then `` <detached ...>`` (strace.c,
    droptcb): ``read(0,  <detached ...>``, ``kill(1234, SIGTERM <detached ...>``."""
    return f"{_entry_part(name, args)[0]}{_DETACHED}"


def _entry_part(name: str, args: Sequence[str]) -> tuple[str, bool]:
    """What strace prints of a call at its entry, from ``name(`` on, and whether it
    would print more at the exit (arguments the call writes, or a decoded return)."""
    if name in _SOCKNAME and "NULL" in args[1:3]:
        return f"{name}({', '.join(args)}", False
    # (a name only i386 has, socketcall's recv and send among them, by its i386 kinds)
    spec = ARGSPEC.get(name) or ARGSPEC32.get(name)
    kinds, ret = spec if spec is not None else ((), "d")
    cut = _EXIT_ARG.get(name)
    if cut is None:
        cut = next((i for i, k in enumerate(kinds) if k in _EXIT_KINDS), None)
    if cut is not None and cut < len(args):
        return f"{name}({''.join(a + ', ' for a in args[:cut])}", True
    return f"{name}({', '.join(args)}", ret in _EXIT_RETS


TimeFormat: TypeAlias = Literal["none", "t", "tt", "ttt", "r", "t+r", "tt+r", "ttt+r"]
PidPrefix: TypeAlias = Literal["tid", "padded", "multi", "none"]
HexStrings: TypeAlias = Literal["none", "non-ascii-chars", "non-ascii", "all"]
_Fd: TypeAlias = Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)]
_Fds: TypeAlias = list[_Fd | Literal["all"]]
_FdSet: TypeAlias = tuple[bool, frozenset[int]]     # (every fd but these, these fds)


class StraceOptions(TextOptions, kw_only=True, forbid_unknown_fields=True):
    """``[output]`` keys of ``format = "strace"``: :class:`TextOptions`' (what is decoded)
    and the shape of the lines (module docstring). The defaults are tracekit's own
    ``strace -f -tt -T`` lines; ``tracekit strace`` sets strace's."""

    time_format: TimeFormat = "tt"       # -t, -tt, -ttt, -r, or none
    durations: bool = True               # -T: " <0.000012>"
    align_column: Annotated[int, msgspec.Meta(ge=0, le=4096)] = 0   # -a; 0: one space
    pid_prefix: PidPrefix = "tid"        # "1234 " | "%-5d " | "[pid %5d] " if > 1 task | none
    hex_strings: HexStrings = "none"     # -x: "non-ascii", -xx: "all"
    raw_syscalls: list[str] = []         # -e raw=: names printed undecoded (hex)
    dump_reads: _Fds = []                # -e read=: fds (or "all") whose reads are dumped
    dump_writes: _Fds = []               # -e write=: fds (or "all") whose writes are dumped
    dump_reads_except: list[_Fd] = []    # -e read=!FDS: fds "all" leaves out
    dump_writes_except: list[_Fd] = []   # -e write=!FDS: fds "all" leaves out
    exit_lines: bool = True              # "+++ exited with N +++" (-qq: false; not "killed")
    exit_time: bool = False              # the time column on "+++" lines too (strace)
    syscall_numbers: bool = False        # -n: "[  59] " after the time column
    instruction_pointer: bool = False    # -i: "[00007f0123456789] " after -n's column


def exit_text(status: int) -> str:
    """A wait(2) status as strace's last line: ``+++ exited with 1 +++``,
    ``+++ killed by SIGKILL (core dumped) +++``."""
    sig = status & 0x7F
    if sig == 0:
        return f"+++ exited with {(status >> 8) & 0xFF} +++"
    core = " (core dumped)" if status & 0x80 else ""
    return f"+++ killed by {for_arch().signal_abbrev(sig)}{core} +++"


# --- strings in hex (strace -x, -xx) ---------------------------------------------------

_UNESC = {"n": 10, "t": 9, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_OCTAL = frozenset("01234567")


def _unquote(body: str) -> bytes:
    """The bytes of a strace string literal's body (between its quotes)."""
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        e = body[i + 1]
        if e in _UNESC:
            out.append(_UNESC[e])
            i += 2
        elif e == "x":
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        elif e in _OCTAL:
            j = i + 1
            while j < n and j < i + 4 and body[j] in _OCTAL:
                j += 1
            out.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        else:
            out += e.encode("utf-8", "surrogateescape")
            i += 2
    return bytes(out)


#: each byte as --strings-in-hex=non-ascii-chars prints it: printable ASCII as itself, `"`
#: and `\\` escaped, C's escapes for \t\n\v\f\r, every other byte as \xNN
_HEX_CHARS = [{0x22: '\\"', 0x5C: "\\\\", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f",
               13: "\\r"}.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}")
              for b in range(256)]


def _needs_hex(data: bytes) -> bool:
    """strace -x: a byte above 0x7e, or a control byte other than \\t\\n\\v\\f\\r."""
    return any(b > 0x7E or (b < 0x20 and not 9 <= b <= 13) for b in data)


def hex_strings(text: str, level: HexStrings) -> str:
    r"""``text`` (arguments as strace prints them) with its string literals in hex:
    ``"a\1"`` -> ``"\x61\x01"``; level ``"non-ascii"`` (strace -x) only the strings with
    a byte outside printable ASCII and whitespace, ``"all"`` (strace -xx) every string,
    the addresses in ``inet_addr("...")`` and ``inet_pton(AF_INET6, "...")`` too;
    ``"non-ascii-chars"`` (strace --strings-in-hex=non-ascii-chars) each byte that is
    neither printable nor one of C's escapes as ``\xNN`` in place of octal, ``"a\x01\n"``
    (util.c string_quote)."""
    if level == "none" or '"' not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        q = text.find('"', i)
        if q < 0:
            break
        j = q + 1
        while j < n and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        out.append(text[i:q])
        body = text[q + 1:j]
        data = _unquote(body)
        if level == "non-ascii-chars":
            body = "".join(map(_HEX_CHARS.__getitem__, data))
        elif level == "all" or _needs_hex(data):
            body = "".join(f"\\x{b:02x}" for b in data)
        out.append(f'"{body}"')
        i = j + 1
    out.append(text[i:])
    return "".join(out)


# --- hex dumps (strace -e read=, -e write=) ---------------------------------------------

#: calls whose data -e read= dumps (the buffer argument, as many bytes as returned) ...
_READS = frozenset({"read", "pread64", "recvfrom", "mq_timedreceive"})
_DETACHED = " <detached ...>"       # the end of a line of a call in flight at the end
_UNFINISHED = " <unfinished ...>"   # ... of such a line that another line followed
#: ... and -e write= (the buffer argument, as many bytes as the call was given, whether it
#: succeeded or not: strace's dumpio dumps writes before it looks at the result)
_WRITES = frozenset({"write", "pwrite64", "sendto", "mq_timedsend"})


#: the end of the largest user address space of x86-64 and arm64 (48-bit: 2**47 bytes)
_USER_END = 1 << 47


def dump_lines(data: bytes) -> list[str]:
    """strace's hex dump of ``data``, 16 bytes a line:
    `` | 00000  68 65 6c 6c 6f 0a                                 hello.           |``."""
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        hexes = "".join(f"{b:02x} " + (" " if k == 7 else "") for k, b in enumerate(chunk))
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f" | {off:05x}  {hexes:<49} {text:<16} |")
    return lines


def iov_dump_lines(ev: Syscall, name: str) -> list[str]:
    """strace's dump of the buffers of a vectored call (readv, writev, sendmsg,
    recvmmsg...): `` * 3 bytes in buffer 0`` then its hex dump, for each buffer until
    the bytes transferred run out; per message of sendmmsg/recvmmsg first
    `` = 2 buffers in vector 0``. A buffer's bytes are those captured (``-s``, 4096
    with -e read=/write=)."""
    lines: list[str] = []
    vectors = iov_dump_vectors(ev, name)
    per_message = name in ("sendmmsg", "recvmmsg")
    for k, (count, elems, size) in enumerate(vectors):
        if per_message:
            lines.append(f" = {count} buffers in vector {k}")
        for j, e in enumerate(elems[:count]):
            n = min(e.length, size)
            if not n:
                break
            size -= n
            lines.append(f" * {n} bytes in buffer {j}")
            # strace reads the n bytes in one piece: none of them when a part cannot
            # be read (an element cut by its mapping's end, one past the user address
            # space: an iov_len of 2**63)
            if e.data is not None and e.base + n <= _USER_END:
                lines += dump_lines(e.data[:n])
    return lines


def _fd_set(fds: Sequence[int | str], but: Sequence[int]) -> _FdSet:
    """(whether the set is every fd but ``but``, the fds listed or left out)."""
    if "all" in fds:
        return True, frozenset(but)
    return False, frozenset(int(f) for f in fds)


#: the kernel's restart codes (ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND,
#: ERESTART_RESTARTBLOCK): ``?`` and their meaning normally, a plain error under -e raw=
_RESTARTS = frozenset({512, 513, 514, 516})
_PR_SET_NAME = 15       # include/uapi/linux/prctl.h


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
      timestamps: False: neither times nor durations (``time_format="none"``,
        ``durations=False``); True: as ``shape`` says.
      shape: the line options (:class:`StraceOptions`; default: its defaults).

    Attributes:
      count_forks: with ``pid_prefix = "multi"``: a fork record adds its child to the
        tasks counted (True: children are traced, strace -f); False: only tasks seen in
        records and those given to :meth:`add_tasks` count.
      attach_lines: print ``strace: Process N attached`` when a fork record names a new
        task (strace's own message, which strace writes to the trace when the trace goes
        to its standard error).
      personality_lines: print ``[ Process PID=N runs in 32 bit mode. ]`` when a task's
        calls change ABI (True); strace 6.1 writes it to its standard error, so only into
        a trace that goes there (not with -o FILE, nor with -q).
      shown_signals: the signals a ``-e signal=`` selection shows (None: all): a task
        killed by another prints no ``+++ killed by`` line, as in strace.
    """

    name = "strace"
    #: a line of a call in flight at the end is held back until the next line (one
    #: trace for all tasks: :meth:`_end_open_lines`); not with a file per task
    holds_open_lines = True

    def __init__(self, out: Output, *,
                 decoder: SyscallDecoder | None = None, fd_paths: bool = False,
                 string_limit: int = DEFAULT_STRING_LIMIT,
                 wall_offset_ns: int | None = None, utc_offset_s: int | None = None,
                 timestamps: bool = True, shape: StraceOptions | None = None) -> None:
        super().__init__(out)
        self.decoder = decoder if decoder is not None else SyscallDecoder(
            fd_paths=fd_paths, string_limit=string_limit)
        # calls newer than strace 6.1 as it prints them: syscall_0x1c3(0x3, ...)
        self.decoder.strace61_names = True
        self.wall_offset_ns = (time.time_ns() - time.monotonic_ns()
                               if wall_offset_ns is None else wall_offset_ns)
        self.utc_offset_s = utc_offset_s
        shape = shape if shape is not None else StraceOptions()
        if not timestamps:
            shape = msgspec.structs.replace(shape, time_format="none", durations=False)
        self.shape = shape
        # strace keeps a netlink string's trailing NUL when it prints the string in hex
        self.decoder.hex_strings = shape.hex_strings in ("non-ascii", "all")
        self.timestamps = shape.time_format != "none"
        self._time = shape.time_format
        self._durations = shape.durations
        self._column = shape.align_column
        self._prefix = shape.pid_prefix
        self._raw = frozenset(shape.raw_syscalls)
        self._dump_reads = _fd_set(shape.dump_reads, shape.dump_reads_except)
        self._dump_writes = _fd_set(shape.dump_writes, shape.dump_writes_except)
        # whether any call is dumped (a set given to -e read= or -e write=)
        self._dumping = bool(shape.dump_reads or shape.dump_writes)
        self.count_forks = True
        self.attach_lines = False
        self.personality_lines = True
        self.shown_signals: frozenset[int] | None = None
        self._live: set[int] = set()
        # multi: tid -> exit time of the tasks that exited last (a call that entered before
        # it, printed after it, was entered while that task was still traced)
        self._gone: dict[int, int] = {}
        self._last_ts = 0           # -r: the previous line's time
        self._second: tuple[int, str] = (-(1 << 62), "")  # (its first us, "HH:MM:SS.")
        self._compat: dict[int, bool] = {}
        # -n: tid -> the number of its last call shown (None: no numbers)
        self._nrs: dict[int, int] | None = {} if shape.syscall_numbers else None
        self._ips = shape.instruction_pointer      # -i: the instruction pointer column
        # the bulk, completed calls in the default shape, takes a shorter path
        self._fast = (shape.time_format == "tt" and shape.durations and not shape.align_column
                      and shape.pid_prefix == "tid" and shape.hex_strings == "none"
                      and self.decoder.pid_comms is None
                      and not self._raw and not shape.syscall_numbers
                      and not shape.instruction_pointer)
        self._tails: dict[int, tuple[Decoded, str]] = {}
        self._forks: dict[bool, frozenset[int]] = {}
        # the calls in flight when tracing ended: the index in the batch's lines of each
        # one's line, and the last one's line held back until the next line or the end
        self._detached: list[tuple[int, int]] = []     # (index, tid)
        self._held: tuple[str, int] | None = None       # (line without its end, tid)
        #: True: :meth:`end` leaves the held line to the caller (:meth:`take_held`), who
        #: writes it between strace's detach messages (a trace on standard error)
        self.keep_held = False

    # -- the columns before the call -------------------------------------------------

    def add_tasks(self, tids: Sequence[int]) -> None:
        """Count these tasks as traced (``pid_prefix = "multi"``: strace's prefix appears
        once more than one task is traced), e.g. the threads of a ``-p`` process."""
        self._live.update(tids)

    def _clock(self, ts_ns: int) -> str:
        us = (ts_ns + self.wall_offset_ns) // 1000
        second = self._second
        if not 0 <= us - second[0] < 1_000_000:
            sec = us // 1_000_000
            second = self._second = (sec * 1_000_000,
                                     local_clock(self.utc_offset_s, sec) + ".")
        return f"{second[1]}{us - second[0]:06d}"

    def _stamp(self, ts_ns: int | None) -> str:
        """The time column with its space; ``ts_ns`` None: not known (a resumed call)."""
        fmt = self._time
        if fmt == "tt":
            return "??:??:??.?????? " if ts_ns is None else self._clock(ts_ns) + " "
        if fmt == "none":
            return ""
        absolute, plus, relative = fmt.partition("+")
        if absolute == "r":
            return self._relative(ts_ns) + " "
        if ts_ns is None:
            text = {"t": "??:??:??", "tt": "??:??:??.??????", "ttt": "?????????.??????"}[
                absolute]
        elif absolute == "ttt":
            us = (ts_ns + self.wall_offset_ns) // 1000
            text = f"{us // 1_000_000}.{us % 1_000_000:06d}"
        else:
            text = self._clock(ts_ns)[:8 if absolute == "t" else None]
        return f"{text} (+{self._relative(ts_ns)}) " if plus else text + " "

    def _relative(self, ts_ns: int | None) -> str:
        """``%6d.%06d`` seconds since the previous line's time (strace -r)."""
        if ts_ns is None:
            return "     ?.??????"
        last, self._last_ts = self._last_ts, ts_ns
        us = max(0, ts_ns - last) // 1000 if last else 0
        return f"{us // 1_000_000:6d}.{us % 1_000_000:06d}"

    def _pid(self, tid: int, ts_ns: int | None = None) -> str:
        """The pid column with its space, by ``pid_prefix``; ``ts_ns``: the line's entry
        time (``multi``: strace writes the prefix when the call enters, so a task that
        exited after that time still counts)."""
        mode = self._prefix
        comms = self.decoder.pid_comms
        if mode == "tid":
            return f"{tid} "
        if mode == "padded":
            # strace -Y: the name right after the pid, not padded then
            name = comms.prefix_comm(tid) if comms is not None else ""
            return f"{tid}{name} " if name else f"{tid:<5} "
        if mode == "none":
            return ""
        live = self._live
        live.add(tid)
        if len(live) > 1 or (ts_ns and any(t > ts_ns and gone != tid
                                           for gone, t in self._gone.items())):
            name = comms.prefix_comm(tid) if comms is not None else ""
            return f"[pid {tid:5d}{name}] "
        return ""

    def _head(self, tid: int, ts_ns: int | None, ip: int = 0) -> str:
        """strace's line leader: the pid column, the time, -n's number, -i's ``ip`` (0:
        not known)."""
        head = self._pid(tid, ts_ns) + self._stamp(ts_ns) + self._number(tid)
        return head + self._ip(tid, ip) if self._ips else head

    def _ip(self, tid: int, ip: int) -> str:
        """strace -i's column: ``[%016lx] ``, 8 digits while the task is in 32-bit mode,
        question marks for an address not known (0)."""
        if self._compat.get(tid, False):
            return f"[{ip:08x}] " if ip else "[????????] "
        return f"[{ip:016x}] " if ip else "[????????????????] "

    def _number(self, tid: int) -> str:
        """strace -n's column: ``[  59] ``, the number of the thread's last call."""
        nrs = self._nrs
        return "" if nrs is None else f"[{nrs.get(tid, 0):4d}] "

    # -- lines ------------------------------------------------------------------------

    def render(self, batch: Batch) -> str:
        lines: list[str] = []
        track = self.decoder.track if self.decoder.fd_paths else None
        if self._fast and not self._dumping and \
                _not_overridden(type(self), "format_syscall", "_syscall", "_decoded"):
            lines = self._render_fast(batch, lines, track)
        else:
            for ev in batch:
                if isinstance(ev, Syscall):
                    self._syscall(ev, lines)
                    continue
                self._other(ev, lines, track)
        if self._detached or self._held is not None:
            self._end_open_lines(lines)
        return "\n".join(lines) + "\n" if lines else ""

    def end(self) -> str:
        if self.keep_held:
            return ""
        held = self.take_held()
        return f"{held[0]}{_DETACHED}\n" if held is not None else ""

    def take_held(self) -> tuple[str, int] | None:
        """The line held back of the last call in flight at the end, without its
        `` <detached ...>``, and its tid (None: no such line); it is then the caller's."""
        held, self._held = self._held, None
        return held

    def _end_open_lines(self, lines: list[str]) -> None:
        """strace's ends of the lines of calls in flight when tracing ended: a line left
        open is ended by the next line written, of any task, with `` <unfinished ...>``;
        only the last one written gets `` <detached ...>`` (strace.c, printleader and
        droptcb). Each such line was rendered ending in `` <detached ...>``; the last one
        of ``lines`` is held back (:meth:`end` writes it if nothing follows)."""
        if self._held is not None and lines:
            lines.insert(0, self._held[0] + _UNFINISHED)
            self._held = None
            self._detached = [(i + 1, tid) for i, tid in self._detached]
        cut, last = len(_DETACHED), len(lines) - 1
        for i, tid in self._detached:
            if i == last:
                self._held = (lines.pop()[:-cut], tid)
            else:
                lines[i] = lines[i][:-cut] + _UNFINISHED
        self._detached = []

    def _render_fast(self, batch: Batch, lines: list[str],
                     track: Callable[[Event], None] | None) -> list[str]:
        """:meth:`render`'s lines in the default shape (``_fast``, no dumps): a completed
        call of a 64-bit task without a stack line is written here, with
        :meth:`format_syscall`'s fast path inlined (the same text); anything else as
        :meth:`render` does."""
        append = lines.append
        decode = self.decoder.decode
        tails = self._tails
        compat = self._compat
        offset = self.wall_offset_ns
        start, stamp = self._second
        durations, exact = _DURATIONS, _DURATION_EXACT
        heads: dict[int, str] = {}      # tid -> "tid HH:MM:SS." of this second
        some_compat = bool(compat)      # a task was seen in 32-bit mode (none: no lookups)
        for ev in batch:
            if type(ev) is not Syscall or ev.flags or ev.stack or \
                    some_compat and compat.get(ev.tid, False):
                if isinstance(ev, Syscall):
                    self._syscall(ev, lines)
                else:
                    self._other(ev, lines, track)
                start, stamp = self._second       # its time may have moved the second
                some_compat = bool(compat)
                heads.clear()
                continue
            d = ev.decoded
            if d is None:
                d = decode(ev)
            tail = tails.get(id(d))
            if tail is None or tail[0] is not d:
                if len(tails) >= 4096:
                    tails.clear()
                tail = tails[id(d)] = (d, f"{d.name}({', '.join(d.args)}) = {d.ret} <")
            us = (ev.ts_ns + offset) // 1000
            if not 0 <= us - start < 1_000_000:
                self._clock(ev.ts_ns)               # a new second: its text
                start, stamp = self._second
                heads.clear()
            dur = ev.duration_ns
            text = durations.get(dur // 500) if 0 <= dur < exact and dur % 1000 != 500 \
                else None
            if text is None:
                text = duration_text(dur)
            tid = ev.tid
            head = heads.get(tid)
            if head is None:
                head = heads[tid] = f"{tid} {stamp}"
            # the microseconds as %06d (0 <= us - start < 1e6): a slice, not a format
            append(f"{head}{str(us - start + 1_000_000)[1:]} {tail[1]}{text}>")
        return lines

    def _other(self, ev: Event, lines: list[str], track: Callable[[Event], None] | None
               ) -> None:
        """The lines of an event that is not a Syscall (the fd tables kept first)."""
        if track is not None:
            track(ev)     # fd tables: forks, execs, hidden calls, snapshots
        comms = self.decoder.pid_comms
        if comms is not None:
            # -Y: the names of tasks as strace keeps them (an exit's after its line)
            if isinstance(ev, (Signal, Exit)):
                comms.before(ev.tid, ev.comm, exec_call=False)
            elif not isinstance(ev, Syscall):
                comms.observe(ev)
        if isinstance(ev, Exit):
            self._exit(ev, lines)
            if comms is not None:
                comms.observe(ev)
        elif isinstance(ev, Signal):
            # strace: no stop for SIGKILL nor a signal forced to end the task (a seccomp
            # kill), only "+++ killed by" (below)
            if ev.sig != SIGKILL and not ev.exit_only:
                lines.append(self.format_signal(ev))
                stopped = stopped_line(ev.sig, ev.sa_handler, self.decoder.flags)
                if stopped is not None:
                    lines.append(self._signal_head(ev) + stopped)
        elif isinstance(ev, Fork):
            self._fork(ev, lines)
        elif isinstance(ev, Lost):
            lines.append(f"+++ LOST {ev.count} events +++")

    def _fork(self, ev: Fork, lines: list[str]) -> None:
        if self._prefix == "multi" and self.count_forks:
            self._live.add(ev.parent_tid)
            self._live.add(ev.child_tid)
        if self.attach_lines:
            lines.append(f"strace: Process {ev.child_tid} attached")

    def _exit(self, ev: Exit, lines: list[str]) -> None:
        sig = ev.exit_code & 0x7F
        if sig and self.shown_signals is not None and sig not in self.shown_signals:
            pass            # strace: "+++ killed by" only for a signal -e signal= shows
        elif self.shape.exit_lines or sig:
            stamp = self._stamp(ev.ts_ns) if self.shape.exit_time else ""
            text = (f"+++ superseded by execve in pid {ev.superseded_by} +++"
                    if ev.superseded_by else exit_text(ev.exit_code))
            ip = self._ip(ev.tid, 0) if self._ips else ""
            lines.append(f"{self._pid(ev.tid)}{stamp}{self._number(ev.tid)}{ip}{text}")
        self._live.discard(ev.tid)
        if self._prefix == "multi":
            gone = self._gone
            gone.pop(ev.tid, None)
            gone[ev.tid] = ev.ts_ns
            if len(gone) > 64:
                del gone[next(iter(gone))]
        if self._nrs is not None:
            self._nrs.pop(ev.tid, None)

    def _syscall(self, ev: Syscall, lines: list[str]) -> None:
        flags = ev.flags
        compat = bool(flags & SC_COMPAT)
        if self._compat.get(ev.tid, False) != compat:
            shown = (compat or ev.tid in self._compat) and self.personality_lines
            self._compat[ev.tid] = compat
            if shown:
                bits = 32 if compat else 64
                # strace's line leader first: [pid N], the time, -n's number, -i's
                # address in the new mode's width
                lines.append(f"{self._head(ev.tid, ev.ts_ns, ev.ip)}"
                             f"[ Process PID={ev.tid} runs in {bits} bit mode. ]")
        if flags & SC_RESUMED and ev.ret == 0 and ev.syscall_nr in self._fork_nrs(compat):
            return      # a new child's return from fork: strace shows only the parent's call
        comms = self.decoder.pid_comms
        renames = False
        if comms is not None:
            # -Y: strace reloads a task's name at the exit of a successful execve,
            # execveat or prctl(PR_SET_NAME): that call's line has the old one
            name = self.decoder.call(ev.syscall_nr, compat).name
            renames = ev.ret == 0 and not flags & (SC_UNFINISHED | SC_NORETURN) and (
                name in ("execve", "execveat")
                or name == "prctl" and ev.args[0] & 0xFFFF_FFFF == _PR_SET_NAME)
            comms.before(ev.tid, ev.comm, exec_call=name in ("execve", "execveat"),
                         renames=renames)
        lines.append(self.format_syscall(ev))
        if renames:
            assert comms is not None
            comms.after(ev.tid, ev.comm)
        if flags & SC_DETACHED and self.holds_open_lines:
            self._detached.append((len(lines) - 1, ev.tid))
        if ev.stack:
            for f in ev.stack:
                lines.append(" > " + frame_text(f))
                lines += [" > " + r for r in repeats_text(f)]
        if self._dumping:
            self._dump(ev, lines)

    def _fork_nrs(self, compat: bool) -> frozenset[int]:
        got = self._forks.get(compat)
        if got is None:
            table = self.decoder.compat_table if compat else self.decoder.table
            nrs = (table.nr(n) for n in ("clone", "clone3", "fork", "vfork")) if table else ()
            got = self._forks[compat] = frozenset(nr for nr in nrs if nr is not None)
        return got

    def _dump(self, ev: Syscall, lines: list[str]) -> None:
        if ev.flags & (SC_RESUMED | SC_UNFINISHED | SC_NORETURN) and \
                not ev.flags & SC_ATTACHED:
            return
        name = self.decoder.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT)).name
        iov = IOV_DUMPS.get(name)
        if name in _WRITES or (iov is not None and not iov[0]):
            fds, size = self._dump_writes, ev.args[2]
        elif name in _READS or iov is not None:
            fds, size = self._dump_reads, ev.ret
            if ev.ret <= 0:                     # a failed read, or nothing read
                return
        else:
            return
        fd = ev.args[0] & 0xFFFF_FFFF
        every, listed = fds
        if fd >= 1 << 31 or (fd in listed) == every:
            return
        if iov is not None:
            lines += iov_dump_lines(ev, name)
            return
        for cap in ev.caps:
            if cap.arg == 1:
                lines += dump_lines(cap.data[:size])
                return

    def format_signal(self, ev: Signal) -> str:
        """``1234 10:00:00.123456 --- SIGUSR1 {...} ---``, without the newline."""
        comms = self.decoder.pid_comms
        return self._signal_head(ev) + signal_line(
            ev.sig, ev.info, self.decoder.flags,
            functools.partial(comms.text, ts_ns=ev.ts_ns) if comms is not None else None)

    def _signal_head(self, ev: Signal) -> str:
        return self._head(ev.tid, ev.ts_ns, ev.ip)

    def _decoded(self, ev: Syscall) -> Decoded:
        d = ev.decoded if ev.decoded is not None else self.decoder.decode(ev)
        if self._raw and d.name in self._raw and (not ev.flags & SC_RESUMED
                                                  or ev.flags & SC_ATTACHED):
            compat = bool(ev.flags & SC_COMPAT)
            n = self.decoder.arg_total(ev.syscall_nr, compat)
            if n is None:
                call = self.decoder.call(ev.syscall_nr, compat)
                n = len(call.fns) or abs(call.generic) or len(d.args)
            args = tuple(f"{v:#x}" if v else "0" for v in ev.args[:n])
            ret = d.ret
            if not ret.startswith(("-", "?")):
                # in hex, without a decoration (``= 0``, not ``= 0 (Timeout)``)
                ret = f"{ev.ret & 0xFFFF_FFFF_FFFF_FFFF:#x}" if ev.ret else "0"
            elif ret.startswith("? ") and -ev.ret in _RESTARTS:
                # a restart code is an error like the others, with libc's text for it
                ret = f"-1 {errno_name(-ev.ret)} (Unknown error {-ev.ret})"
            d = Decoded(d.name, args, ret)
        return d

    def format_syscall(self, ev: Syscall) -> str:
        """One line, without the newline."""
        d = self._decoded(ev)
        flags = ev.flags
        if self._nrs is not None:
            self._nrs[ev.tid] = ev.syscall_nr
        if flags & SC_SKIPPED:
            # refused before its entry (seccomp): a whole call, at its exit's time
            flags &= ~(SC_RESUMED | SC_ATTACHED | SC_SKIPPED)
        elif flags & SC_ATTACHED:
            # the call the task was in when tracing began, its arguments read at its
            # exit: whole, as strace -p prints the call it restarts on attaching
            return self._tail(f"{self._head(ev.tid, None, ev.ip)}{d.name}"
                              f"({', '.join(d.args)})", d.ret, None)
        if flags & SC_RESUMED:
            return self._tail(f"{self._head(ev.tid, None, ev.ip)}<... {d.name} resumed>)",
                              d.ret, None)
        if not flags and self._fast:          # the bulk: a completed call
            # the decoder hands back the same Decoded for a repeated call (its memo):
            # its text is joined once, then reused (the Decoded is kept, so its id
            # cannot be another object's)
            tail = self._tails.get(id(d))
            if tail is None or tail[0] is not d:
                if len(self._tails) >= 4096:
                    self._tails.clear()
                tail = self._tails[id(d)] = (d, f"{d.name}({', '.join(d.args)}) = {d.ret} <")
            return f"{ev.tid} {self._clock(ev.ts_ns)} {tail[1]}{duration_text(ev.duration_ns)}>"
        head = self._head(ev.tid, ev.ts_ns, ev.ip)
        if flags & SC_UNFINISHED:
            args_list: Sequence[str] = d.args
            if self.shape.hex_strings != "none":
                args_list = [hex_strings(a, self.shape.hex_strings) for a in d.args]
            if flags & SC_DETACHED:
                return head + detached_call(d.name, args_list)
            return self._tail(head + unfinished_call(d.name, args_list), "?", None)
        args = ", ".join(d.args)
        if self.shape.hex_strings != "none":
            args = hex_strings(args, self.shape.hex_strings)
        if flags & SC_NORETURN or not self._durations:
            return self._tail(f"{head}{d.name}({args})", d.ret, None)
        return self._tail(f"{head}{d.name}({args})", d.ret, ev.duration_ns)

    def _tail(self, call: str, ret: str, duration_ns: int | None) -> str:
        """``call`` + `` = ret`` (the ``=`` at ``align_column`` at least) + `` <dur>``."""
        col = self._column
        if col:
            width = len(call) if call.isascii() else len(call.encode("utf-8", "replace"))
            pad = " " * (col - width) if width < col else " "
        else:
            pad = " "
        if duration_ns is None:
            return f"{call}{pad}= {ret}"
        return f"{call}{pad}= {ret} <{duration_text(duration_ns)}>"


def _not_overridden(cls: type, *names: str) -> bool:
    """Whether ``cls`` keeps StraceFormatter's own methods ``names``."""
    return all(getattr(cls, n) is getattr(StraceFormatter, n) for n in names)


class SplitStraceFormatter(StraceFormatter):
    """strace -ff -o FILE: each task's lines in a file of its own, ``FILE.<tid>``,
    opened as every output is (a new 0600 file of tracekit's, never through a symlink:
    :mod:`tracekit.formatters._output`) when the task's first line comes.

    A task's file is closed when the task is gone, as strace closes it: once its text
    of the batch that holds its exit record is written (``+++ exited with N +++``,
    ``+++ killed by ...``, or no line with ``-qq``), before the files of the tasks that
    come after it in that batch are made; a leader superseded by another thread's execve
    closes the file of that thread's old tid too. Only the files of live tasks are open,
    so a command that makes thousands of processes over its life does not run out of fds
    (EMFILE). A line for that tid that comes later (a late record, a reused tid, the
    exec'ing thread that took a superseded leader's tid) is added at the end of the same
    file (:func:`~tracekit.formatters._output.append_output`: only while it is still
    that file; never truncated, never through a symlink, never a fifo).

    Lines carry no pid column (``pid_prefix`` is taken as ``"none"``); a line that
    names no task (``+++ LOST``) goes to every file open at the time (the live tasks').

    A file that cannot be created (its directory removed meanwhile, a symlink or fifo
    planted at its name, EACCES, EMFILE, ENOSPC ...) or written does not end the trace: that
    task's lines are dropped and counted, and the other tasks' files go on. A new task
    that reuses the tid (after the task's end) gets a file again.

    Attributes:
      failed: tid -> why its file could not be created or written (the last failure of
        a task with that tid; the task's lines were dropped from then on).
      unwritten_lines: the lines dropped for that reason.
      on_failed: called once per such file, as ``on_failed(tid, error)``.
    """

    holds_open_lines = False     # each file's last line is its own task's

    def __init__(self, prefix: str, *, append: bool = False, **kw: Any) -> None:
        shape = kw.pop("shape", None) or StraceOptions()
        super().__init__(prefix, shape=msgspec.structs.replace(shape, pid_prefix="none"),
                         **kw)
        self.prefix = prefix
        #: strace -A: each file appended to, not replaced (a file already there is
        #: written after what it holds)
        self.append = append
        self.files: dict[int, IO[bytes]] = {}
        self._made: dict[int, FileId] = {}      # tid -> its file as it was closed
        self._given_up: set[int] = set()        # tids of live tasks whose file failed
        self.failed: dict[int, OutputError] = {}
        self.unwritten_lines = 0
        self.on_failed: Callable[[int, OutputError], None] | None = None
        #: called with a task's path before its file is made; a ConfigError it raises
        #: (the path is an input of the run, as the command's program) fails that file
        self.refuse: Callable[[str], None] | None = None

    def _stream(self, tid: int) -> IO[bytes] | None:
        """The file of ``tid``, created at its first line (opened again to append after
        its exit closed it); None: it could not be."""
        f = self.files.get(tid)
        if f is None and tid not in self._given_up:
            path = f"{self.prefix}.{tid}"
            made = self._made.get(tid)
            try:
                if made is None and self.refuse is not None:
                    self.refuse(path)
                # in_place=False: a fifo the traced process made at the name would
                # make the open wait for a reader, and the whole trace with it
                f = (append_to(path, in_place=False) if self.append
                     else open_output(path, in_place=False) if made is None
                     else append_output(path, made))
            except OutputError as e:
                self._fail(tid, e)
                return None
            except ConfigError as e:
                self._fail(tid, OutputError(str(e), path=path, errno=errno.EEXIST))
                return None
            self.files[tid] = f
        return f

    def _fail(self, tid: int, e: OutputError) -> None:
        self.failed[tid] = e
        self._given_up.add(tid)
        if self.on_failed is not None:
            self.on_failed(tid, e)

    def _write_failed(self, tid: int, f: IO[bytes], e: OSError) -> None:
        """``tid``'s file ``f`` failed a write, flush or close with ``e``: given up."""
        self._fail(tid, OutputError(str(write_error(f, e)), path=f"{self.prefix}.{tid}",
                                    errno=e.errno or 0))

    def _write(self, tid: int, f: IO[bytes], text: str) -> bool:
        """Write ``text`` to ``tid``'s file ``f``; False (and the file given up) when
        that fails: ENOSPC, EFBIG, EIO."""
        try:
            f.write(text.encode("utf-8", "surrogateescape"))
            f.flush()
        except OSError as e:
            self._write_failed(tid, f, e)
            del self.files[tid]
            close_output(f, completed=False)
            return False
        return True

    def _close(self, tid: int) -> None:
        """Close ``tid``'s file, if open: its task is gone (a later task with the tid
        may have a file again). What the file is at the close is kept, to open it again
        only if it is unchanged (:func:`~tracekit.formatters._output.append_output`). Its
        lines were flushed as written, so a close that fails (EIO, an NFS server's
        ENOSPC) gives the file up as a failed write does."""
        f = self.files.pop(tid, None)
        if f is not None:
            try:
                try:
                    self._made[tid] = file_id(f)
                finally:
                    f.close()
            except OSError as e:
                self._made.pop(tid, None)
                self._write_failed(tid, f, e)
        self._given_up.discard(tid)

    @staticmethod
    def ended(batch: Batch) -> set[int]:
        """The tids whose tasks are gone in ``batch``: each exit record's, and the old
        tid of a thread whose execve superseded its leader (it lives on as the
        leader's tid, and has no exit record of its own)."""
        gone: set[int] = set()
        for ev in batch:
            if isinstance(ev, Exit):
                gone.add(ev.tid)
                if ev.superseded_by:
                    gone.add(ev.superseded_by)
        return gone

    def render_split(self, batch: Batch) -> dict[int, str]:
        """tid -> its text of ``batch`` (0: a line for every file)."""
        out: dict[int, list[str]] = {}
        for ev in batch:
            text = self.render([ev])
            if text:
                tid = ev.parent_tid if isinstance(ev, Fork) else getattr(ev, "tid", 0)
                out.setdefault(tid, []).append(text)
        return {k: "".join(v) for k, v in out.items()}

    async def run(self, ctx: Any, recv: Any) -> None:
        completed = False
        try:
            async with recv:
                async for batch in recv:
                    gone = self.ended(batch)
                    # tids in the order of their first line: a task that ended in this
                    # batch is closed as soon as its text is written, before later
                    # tasks' files are made (one batch may hold a thousand short tasks)
                    for tid, text in self.render_split(batch).items():
                        if not tid:
                            for t, f in list(self.files.items()):
                                self._write(t, f, text)
                            continue
                        own = self._stream(tid)
                        if own is None or not self._write(tid, own, text):
                            self.unwritten_lines += text.count("\n")
                        if tid in gone:
                            self._close(tid)
                    for tid in gone:            # ended without a line in this batch
                        self._close(tid)
            completed = True
        finally:
            for f in self.files.values():
                close_output(f, completed=completed)


def make_sink(out: Output, options: TextOptions, ctx: SinkContext) -> StraceFormatter:
    """``[output] format = "strace"``: the formatter decodes the records itself (a beautify
    stage's ``decoded`` is used when there is one), with ``options``' ``fd_paths``
    (strace -yy) and ``string_limit`` (strace -s) and, for :class:`StraceOptions`, the
    shape of its lines."""
    shape = options if isinstance(options, StraceOptions) else StraceOptions(
        **msgspec.structs.asdict(options))
    facts = ctx.live_facts       # the trace's wall clock (a replay's: the recording's)
    sink = StraceFormatter(out, decoder=options.decoder(ctx), shape=shape,
                           wall_offset_ns=facts.wall_offset_ns,
                           utc_offset_s=facts.utc_offset_s)
    sink.options = options
    return sink


def stages_before(options: TextOptions, configured: Sequence[Any],
                  ctx: SinkContext) -> list[Any]:
    """Lines in ``ts_ns`` order across CPUs (the formatter decodes, so no beautify stage),
    a thread group's exit lines as strace reports them (pipeline/groupexit.py)."""
    from tracekit.pipeline.groupexit import GroupExits

    return [reorder_stage(ctx), GroupExits()]


SPEC: FormatSpec[StraceOptions] = FormatSpec("strace", StraceOptions, make_sink,
                                             stages_before)
StraceFormatter.spec = SPEC
