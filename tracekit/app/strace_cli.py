"""``tracekit strace ARGS...``: strace 6.1's command line and output, traced with BPF.

``alias strace='tracekit strace'`` works for everyday use: the same options (those that
need ptrace are refused with one line), the same lines on standard error (or ``-o
FILE``), the same summaries, the traced command's exit status. Three steps::

    parse_args(argv)   strace's options (short clusters such as -ff -tt -s100, -e EXPR,
                       the long forms) -> StraceArgs; a usage error or a refused option
                       raises UsageError (exit 1, strace's convention)
    build(args)        -> SessionOptions (what the kernel records), the stages and the
                       StraceOptions of the strace format (line shapes), the summary
    run(args)          one LiveTrace; strace's messages on stderr ("strace: Process N
                       attached", unless -q); the summary at the end; the exit status

What each option does here, and which are refused and why: :data:`OPTIONS` (printed by
``--help``, tabled in the README).
"""

from __future__ import annotations

import argparse
import errno
import functools
import io
import os
import re
import signal
import subprocess
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, cast

from tracekit._errors import ConfigError, TracekitError, quoted
from tracekit._stdio import stderr

__all__ = ["OPTIONS", "StraceArgs", "UsageError", "main", "parse_args"]

EXIT_USAGE = 1      # strace exits 1 on a usage error


class UsageError(Exception):
    """A bad or refused option: one line, exit 1 (``hint``: add strace's "Try ... -h")."""

    def __init__(self, message: str, *, hint: bool = False) -> None:
        super().__init__(message)
        self.hint = hint


#: (option, status, what it does here); status "yes" | "partly" | "no"
OPTIONS: list[tuple[str, str, str]] = [
    ("-f", "yes", "follow forks and threads (children enter the trace in the kernel, at clone)"),
    ("-ff", "yes", "with -o FILE: one FILE.TID per task (-ff without -o is -f)"),
    ("-o FILE", "yes", "the trace to FILE (a new 0600 file replaced whole, never written "
                       "into; strace writes into it; -A: appended to); without it, "
                       "standard error"),
    ("-o |CMD, -o !CMD", "yes", "the trace piped to 'sh -c CMD', waited for at the end "
                                "(not with -ff, as strace)"),
    ("-p PID", "yes", "trace running processes (repeatable; lists by commas or white "
                      "space; a pid that does not exist is said, the others traced); -f: "
                      "every thread; 'strace: Process N attached' on stderr unless -q"),
    ("-e trace=, -e status=, -e signal=", "yes", "selection, in the kernel (a call not "
                                                 "selected makes no record)"),
    ("-z, -Z, -P PATH", "yes", "only successful / failed calls; only calls on PATH"),
    ("-e abbrev=SET, -e verbose=SET, -v", "partly", "per call as strace (-v: abbrev=none): "
                                                    "stat, statx, uname, rusage, termios "
                                                    "and arrays whole, execve's environment "
                                                    "as its strings (256 at most, 3072 "
                                                    "bytes), getdents64's entries (4096 "
                                                    "bytes of a reply); calls outside -e "
                                                    "verbose=: their structures as "
                                                    "addresses"),
    ("-e raw=SET", "yes", "arguments and return of these calls in hex"),
    ("-e read=FDS, -e write=FDS", "partly", "hex dumps of the data of read, pread64, "
                                            "recvfrom, mq_timedreceive, write, pwrite64, "
                                            "sendto, mq_timedsend, and of each buffer of "
                                            "readv, preadv(2), recvmsg, recvmmsg, writev, "
                                            "pwritev(2), vmsplice, sendmsg, sendmmsg; up "
                                            "to the 4096 bytes captured"),
    ("-e quiet=, -q, -qq", "yes", "attach/detach messages off; -qq also '+++ exited' lines"),
    ("-e decode-fds=, -y, -yy", "yes", "fds with their paths (-y: socket:[INODE] for a "
                                      "socket); -yy: sockets' protocol and addresses, "
                                      "devices' numbers"),
    ("-s N", "partly", "string size; a buffer shows at most the 4096 bytes the kernel reads"),
    ("-a N", "yes", "column of ' = ' (default 40)"),
    ("-t, -tt, -ttt, -r", "yes", "time column (wall clock, relative)"),
    ("-T", "yes", "time spent in each call (entry to exit, wall clock)"),
    ("-x, -xx, --strings-in-hex=WHICH", "yes", "strings in hex"),
    ("-X abbrev|raw|verbose", "yes", "named constants: by name (abbrev, strace's default), as "
                                     "numbers (raw), or both, the name as a comment "
                                     "(verbose); --const-print-style= the same"),
    ("-c, -C, -S, -U, -w", "yes", "summary (-c counts in the kernel), strace's layout; times "
                                  "are wall clock, as with -w (strace without -w: system "
                                  "time)"),
    ("-E VAR=VAL, -E VAR", "yes", "the command's environment"),
    ("-u USER", "yes", "run the command as USER (its uid, gid and groups)"),
    ("-I 1, -I 2", "yes", "the first SIGINT/SIGTERM/SIGHUP ends the trace after a drain "
                          "(passed on to the command)"),
    ("-I 3, -I 4", "no", "tracekit does not block fatal signals: a signal ends the trace, "
                         "with -o FILE PROG too (strace's default there is -I 3)"),
    ("-D, -DD, -DDD", "no", "the command is always tracekit's child; no ptrace parent to hide"),
    ("--seccomp-bpf", "yes", "accepted; without effect (nothing stops the tracee anyway)"),
    ("-e inject=, -e fault=", "no", "tampering with calls needs ptrace"),
    ("-b execve", "no", "detaching at execve needs ptrace"),
    ("-k, --stack-traces", "yes", "each call's user stack at its entry, strace -k's "
                                  "' > lib(sym+0xoff) [0xoff]' lines (frames found from "
                                  "frame pointers and CFI; a process gone before its "
                                  "maps are read has unnamed frames); with -c: no "
                                  "effect, as strace says"),
    ("-n, --syscall-number", "yes", "each line's syscall number, '[  59] '; on signal and "
                                    "'+++' lines the thread's last call shown (strace: "
                                    "its last call, hidden ones too)"),
    ("-i, --instruction-pointer", "yes", "each line's user instruction pointer, "
                                         "'[00007f2a9c1e4ad7] ' (8 digits for a task in "
                                         "32-bit mode): at a call's entry, after its "
                                         "syscall instruction; on a signal line where "
                                         "the thread takes it; '[????????????????] ' on "
                                         "'+++' lines"),
    ("-Y, --decode-pids=comm", "yes", "pids with their command names, '1234<sh>': the "
                                      "pid prefix, pids given to and returned by calls "
                                      "(kill, wait4, getpid, clone ...), siginfo's si_pid; "
                                      "a task's name as it was at the call, kept from the "
                                      "kernel's records (a pid never traced: /proc)"),
    ("--decode-pids=pidns, --pidns-translation", "no", "pids are not translated between "
                                                       "pid namespaces"),
    ("-A, --output-append-mode", "yes", "with -o FILE: append to FILE (and each FILE.PID "
                                        "with -ff), created 0600 if missing, never "
                                        "through a symlink"),
    ("-O, -d, -e kvm=", "no", "not supported"),
    ("--mmap-pages PAGES", "yes", "tracekit's own: the ring buffer's size, 4 KiB pages or "
                                  "a size such as 64M, as perf trace -m (default 4 MiB, "
                                  "more with -s above 256: -s 4096, 64 MiB); "
                                  "a bigger one loses fewer records on a busy machine"),
    ("--LONG", "yes", "strace's long options, and unambiguous prefixes of them "
                      "(--follow), as getopt_long"),
]

# short options that take an argument
_WITH_ARG = set("abeEIoOpPsSuUX")
_NO_ARG = set("AcCdDfFhikqrtTvVwxyYzZn")
# long options -> (short option it stands for or a key, argument: "req" | "no" | "opt")
_LONG: dict[str, tuple[str, str]] = {
    "trace": ("e:trace", "req"), "signals": ("e:signal", "req"),
    "status": ("e:status", "req"), "abbrev": ("e:abbrev", "req"),
    "verbose": ("e:verbose", "req"), "raw": ("e:raw", "req"), "read": ("e:read", "req"),
    "write": ("e:write", "req"), "quiet": ("e:quiet", "opt"), "silent": ("e:quiet", "opt"),
    "silence": ("e:quiet", "opt"), "inject": ("e:inject", "req"),
    "fault": ("e:fault", "req"), "kvm": ("e:kvm", "req"),
    "decode-fds": ("e:decode-fds", "opt"), "trace-path": ("P", "req"),
    "output": ("o", "req"), "follow-forks": ("f", "no"),
    "output-separately": ("separately", "no"), "attach": ("p", "req"),
    "summary-only": ("c", "no"), "summary": ("C", "no"),
    "summary-wall-clock": ("w", "no"), "summary-sort-by": ("S", "req"),
    "summary-columns": ("U", "req"), "string-limit": ("s", "req"), "columns": ("a", "req"),
    "absolute-timestamps": ("absolute", "opt"), "relative-timestamps": ("r", "opt"),
    "syscall-times": ("T", "opt"), "successful-only": ("z", "no"),
    "failed-only": ("Z", "no"), "no-abbrev": ("v", "no"), "strings-in-hex": ("hex", "opt"),
    "const-print-style": ("X", "req"), "env": ("E", "req"), "user": ("u", "req"),
    "interruptible": ("I", "req"), "daemonize": ("D", "opt"), "detach-on": ("b", "req"),
    "stack-traces": ("k", "no"), "seccomp-bpf": ("seccomp", "no"), "help": ("h", "no"),
    "version": ("V", "no"), "debug": ("d", "no"), "instruction-pointer": ("i", "no"),
    "syscall-number": ("n", "no"), "decode-pids": ("e:decode-pids", "req"),
    "output-append-mode": ("A", "no"), "summary-syscall-overhead": ("O", "req"),
    "timestamps": ("absolute", "opt"), "failing-only": ("Z", "no"),
    "daemonised": ("D", "opt"), "daemonized": ("D", "opt"), "tips": ("tips", "opt"),
    "pidns-translation": ("pidns", "no"), "secontext": ("secontext", "opt"),
    "mmap-pages": ("ring", "req"),         # tracekit's own, not strace's
}
# strace 6.1's long options in the order of its table (getopt_long lists the candidates
# of an ambiguous prefix in this order; only the order among names of one first letter
# can show)
_LONG_ORDER = (
    "attach absolute-timestamps abbrev columns const-print-style detach-on debug "
    "daemonize daemonised daemonized decode-fds decode-pids env follow-forks failed-only "
    "failing-only fault help instruction-pointer interruptible inject kvm no-abbrev "
    "output-append-mode output-separately output pidns-translation quiet "
    "relative-timestamps raw read summary-only summary stack-traces syscall-number "
    "summary-syscall-overhead string-limit summary-sort-by syscall-times summary-columns "
    "summary-wall-clock strings-in-hex successful-only seccomp-bpf signals status silent "
    "silence secontext trace-path timestamps tips trace user version verbose write "
    "mmap-pages"
).split()


def _long_option(arg: str, name: str) -> str:
    """The long option ``--name`` stands for, as getopt_long finds it: the exact name,
    else the one name it begins, else several that all mean the same (``--sil``:
    silent, silence).

    Raises:
      UsageError: no option begins so, or several that differ (glibc's messages).
    """
    if name in _LONG:
        return name
    found = [o for o in _LONG_ORDER if o.startswith(name)] if name else []
    if not found:
        raise UsageError(f"unrecognized option '{arg}'", hint=True)
    if any(_LONG[o] != _LONG[found[0]] for o in found[1:]):
        raise UsageError(f"option '{arg}' is ambiguous; possibilities: "
                         + " ".join(f"'--{o}'" for o in found), hint=True)
    return found[0]
# strace 6.1's names (count.c): every column also as time_X / time-X; the same names sort
# (-S) and pick columns (-U), where `time` is the "% time" column (its order: total time)
_SORTS = {"time": "time", "time-percent": "time", "time_percent": "time",
          "time-total": "time", "total-time": "time", "time_total": "time",
          "total_time": "time", "min-time": "min-time", "shortest": "min-time",
          "time-min": "min-time", "time_min": "min-time", "min_time": "min-time",
          "max-time": "max-time", "longest": "max-time", "time-max": "max-time",
          "time_max": "max-time", "max_time": "max-time", "avg-time": "avg-time",
          "time-avg": "avg-time", "time_avg": "avg-time", "avg_time": "avg-time",
          "calls": "calls", "count": "calls", "errors": "errors", "error": "errors",
          "name": "name", "syscall": "name", "syscall-name": "name", "syscall_name": "name",
          "nothing": "nothing", "none": "nothing"}
_COLUMNS = {**{k: v for k, v in _SORTS.items() if v not in ("time", "nothing")},
            "time": "time-percent", "time-percent": "time-percent",
            "time_percent": "time-percent", "time-total": "total-time",
            "total-time": "total-time", "time_total": "total-time", "total_time": "total-time"}
_QUIET = {"attach", "exit", "exits", "path-resolution", "personality", "thread-execve",
          "superseded"}


@dataclass
class StraceArgs:
    """strace's options, parsed (names as strace's man page says them)."""

    command: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    follow: int = 0                 # -f count; 2 = -ff
    separate: bool = False          # --output-separately (-ff = -f + this)
    seccomp: bool = False           # --seccomp-bpf (no effect; strace's notes about it)
    qflag: int = 0                  # -q count
    output: str | None = None       # -o
    exprs: list[tuple[str, str]] = field(default_factory=list)  # (option, text) in order
    paths: list[str] = field(default_factory=list)              # -P
    strsize: int = 32               # -s
    column: int = 40                # -a
    abs_time: int = 0               # -t count (3 = -ttt)
    relative: bool = False          # -r
    durations: bool = False         # -T
    decode_fds: int = 0             # -y count
    fd_kinds: frozenset[str] | None = None  # -e decode-fds='s set (None: as -y/-yy say)
    hex: int = 0                    # -x count
    hex_long: str | None = None     # --strings-in-hex=WHICH
    abbrev: str = "all"             # -e abbrev='s set, normalised (-v: none)
    deref: str = "all"              # -e verbose='s set, normalised
    xstyle: str = "abbrev"          # -X: named constants as names, numbers or both
    summary: str = ""               # "" | "c" (only the summary) | "C" (both)
    wall: bool = False              # -w
    sort: str = "time"              # -S
    columns: list[str] = field(default_factory=list)            # -U
    quiet: set[str] = field(default_factory=set)                # from -q / -e quiet=
    env: list[str] = field(default_factory=list)                # -E
    user: str | None = None         # -u
    raw: list[str] = field(default_factory=list)                # -e raw=
    reads: list[int | str] = field(default_factory=list)        # -e read=
    writes: list[int | str] = field(default_factory=list)       # -e write=
    reads_except: list[int] = field(default_factory=list)       # -e read=!FDS
    writes_except: list[int] = field(default_factory=list)      # -e write=!FDS
    stacks: bool = False            # -k
    ring_pages: int | None = None   # --mmap-pages (tracekit's own): ring buffer, 4 KiB pages
    numbers: bool = False           # -n
    comm: bool = False              # -Y, --decode-pids=comm: pids with their names
    append: bool = False            # -A: -o FILE appended to
    ips: bool = False               # -i
    notes: list[str] = field(default_factory=list)  # strace's warnings, said before tracing
    help: bool = False
    version: bool = False
    given: set[str] = field(default_factory=set)    # of -w, -U, -S: those given
    killed_by: int = 0              # set by run(): the signal that killed the command


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes '²' and '١', which int() then refuses
    or reads (strace's strtol takes neither)."""
    return text.isascii() and text.isdigit()


def _int(text: str, what: str, lo: int, hi: int) -> int:
    # strace's strtol: leading white space and a sign, then ASCII digits to the end
    # (int() would also take '1_000', a trailing space and other scripts' digits)
    if not re.fullmatch(r"[ \t\n\v\f\r]*[+-]?[0-9]+", text) or int(text, 10) < lo:
        raise UsageError(f"invalid {what}: '{text}'", hint=True)
    value = int(text, 10)
    if value > hi:
        raise UsageError(f"invalid {what}: '{text}' (from {lo} to {hi})", hint=True)
    return value


def _refuse(option: str, why: str) -> UsageError:
    return UsageError(f"{option}: {why}")


def parse_args(argv: list[str]) -> StraceArgs:
    """strace's command line -> :class:`StraceArgs`.

    Options come first (short clusters, ``-s100``, ``-e EXPR``, ``--long[=VALUE]``); the
    first argument that is not an option, or what follows ``--``, is the command.

    Raises:
      UsageError: an unknown option, a missing or bad value, an option tracekit refuses
        (the message says why), or neither a command nor ``-p``.
    """
    a = StraceArgs()
    i, n = 0, len(argv)
    while i < n:
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            name = _long_option(arg, name)
            key, mode = _LONG[name]
            if mode == "no" and eq:
                raise UsageError(f"option '--{name}' doesn't allow an argument", hint=True)
            if mode == "req" and not eq:
                i += 1
                if i >= n:
                    raise UsageError(f"option '--{name}' requires an argument", hint=True)
                value = argv[i]
            _long(a, name, key, value if (eq or mode == "req") else None)
            i += 1
            continue
        if not arg.startswith("-") or arg == "-":
            break
        j = 1
        while j < len(arg):
            c = arg[j]
            if c in _WITH_ARG:
                value = arg[j + 1:]
                if not value:
                    i += 1
                    if i >= n:
                        raise UsageError(f"option requires an argument -- '{c}'", hint=True)
                    value = argv[i]
                _short(a, c, value)
                break
            if c not in _NO_ARG:
                raise UsageError(f"invalid option -- '{c}'", hint=True)
            _short(a, c, None)
            j += 1
        i += 1
    a.command = argv[i:]
    follows = a.follow                  # -f's as given
    if a.separate and a.follow:
        a.follow = max(a.follow, 2)
    if a.help or a.version:
        return a
    if not a.command and not a.pids:
        raise UsageError("must have PROG [ARGS] or -p PID", hint=True)
    if a.command and a.pids:
        raise UsageError("give a command or -p PID, not both (tracekit traces one target)")
    if a.hex and a.hex_long is not None:
        raise UsageError("-x and --strings-in-hex cannot be provided simultaneously")
    if a.separate and follows >= 2:     # strace: an error, without its -h line
        raise UsageError("-ff and --output-separately cannot be provided simultaneously")
    if a.seccomp and a.pids:
        a.notes.append("--seccomp-bpf is not enabled for processes attached with -p")
    if a.seccomp and not a.follow:
        a.notes.append("--seccomp-bpf cannot be used without -f/--follow-forks, disabling")
    _summary_options(a)
    if a.separate and not follows and a.output is None:
        # said as strace says it (with -f it is -ff, which without -o is -f: nothing said)
        a.notes.append("--output-separately has no effect without -o/--output")
    if a.append and a.output is None:
        a.notes.append("-A/--output-append-mode has no effect without -o/--output")
    if _piped(a) and (a.follow >= 2 or a.separate):
        raise UsageError("piping the output and -ff/--output-separately are mutually "
                         "exclusive", hint=True)
    if a.follow >= 2 and a.output is None:
        a.follow = 1                    # strace: -ff without -o is -f
    return a


_CS = "(-c/--summary-only or -C/--summary)"


def _piped(a: StraceArgs) -> bool:
    """Whether -o names a command the trace is piped to (``|CMD``, ``!CMD``)."""
    return a.output is not None and a.output.startswith(("|", "!"))


def _summary_options(a: StraceArgs) -> None:
    """strace's checks of the summary options, in its order: -w and -U need -c or -C,
    -ff cannot go with them (usage errors); -S without them, and options that shape
    trace lines with -c, are said and the trace goes on (``a.notes``). A -U without
    the name column gets it last, as strace prints it."""
    if not a.summary:
        for c, long in (("w", "summary-wall-clock"), ("U", "summary-columns")):
            if c in a.given:
                raise UsageError(f"-{c}/--{long} must be given with {_CS}", hint=True)
    elif a.follow >= 2 or a.separate:
        raise UsageError(f"{_CS} and -ff/--output-separately are mutually exclusive",
                         hint=True)
    if not a.summary and "S" in a.given:
        a.notes.append(f"-S/--summary-sort-by has no effect without {_CS}")
    if a.columns and "name" not in a.columns:
        a.columns.append("name")
    if a.summary != "c":
        return
    # only the summary: nothing to show stacks, numbers, times or fd paths on
    for on, text in ((a.ips, "-i/--instruction-pointer"), (a.stacks, "-k/--stack-traces"),
                     (a.numbers, "-n/--syscall-number"),
                     (a.relative, "-r/--relative-timestamps"),
                     (a.abs_time, "-t/--absolute-timestamps"),
                     (a.durations, "-T/--syscall-times"), (a.decode_fds, "-y/--decode-fds")):
        if on:
            a.notes.append(f"{text} has no effect with -c/--summary-only")
    a.stacks = a.numbers = a.ips = False


def _short(a: StraceArgs, c: str, value: str | None) -> None:
    v = value or ""
    if c == "f":
        a.follow += 1
    elif c == "o":
        a.output = v
    elif c == "p":
        # strace: pids separated by commas or white space (strace -p "$(pidof x)"); an
        # empty one is an error, except at the end
        parts = re.split(r"[, \t\n]", v)
        if parts[-1] == "":
            parts.pop()
        for part in parts:
            # strtol's reading: white space (what is left of it), a '+', ASCII digits
            if not re.fullmatch(r"[\v\f\r]*\+?[0-9]+", part) or \
                    not 1 <= int(part.lstrip("\v\f\r+")) <= 2**31 - 1:
                raise UsageError(f"Invalid process id: '{part}'")
            a.pids.append(int(part.lstrip("\v\f\r+")))
    elif c == "e":
        a.exprs.append(("-e", _expr(a, v)))
    elif c == "P":
        a.paths.append(v)
    elif c == "s":
        a.strsize = _int(v, "-s argument", 0, 1 << 20)
    elif c == "a":
        a.column = _int(v, "-a argument", 0, 4096)
    elif c == "t":
        a.abs_time += 1
    elif c == "r":
        a.relative = True
    elif c == "T":
        a.durations = True
    elif c == "y":
        a.decode_fds += 1
        a.fd_kinds = None
    elif c == "x":
        a.hex += 1
    elif c == "v":
        a.abbrev = "none"               # strace: -v is -e abbrev=none
    elif c in "cC":
        if a.summary and a.summary != c:
            raise UsageError("-c and -C are mutually exclusive")
        a.summary = c
    elif c == "w":
        a.wall = True
        a.given.add("w")
    elif c == "S":
        if v not in _SORTS:
            raise UsageError(f"invalid sortby: '{v}'", hint=True)
        a.sort = _SORTS[v]
        a.given.add("S")
    elif c == "U":
        a.columns = []                  # a later -U replaces an earlier one, as in strace
        names = v.split(",")
        for k, name in enumerate(names):
            if name not in _COLUMNS:
                raise UsageError(f"unknown column name: '{name}'", hint=True)
            if _COLUMNS[name] in a.columns:
                raise UsageError(f"call summary column has been provided more than once: "
                                 f"'{name}' (-U option residual: "
                                 f"'{','.join(names[k:])}')", hint=True)
            a.columns.append(_COLUMNS[name])
        a.given.add("U")
    elif c == "q":
        a.qflag += 1
        a.quiet |= ({"attach", "personality"} if a.qflag == 1 else {"exit"} if a.qflag == 2
                    else set(_QUIET))
    elif c in "zZ":
        a.exprs.append((f"-{c}", "successful" if c == "z" else "failed"))
    elif c == "E":
        # as strace: VAR=VAL set, VAR removed; "=" and "=x" are variables with an empty
        # name (strace puts them in the environment as given), "" changes nothing
        a.env.append(v)
    elif c == "u":
        a.user = v
    elif c == "X":
        if v not in ("abbrev", "raw", "verbose"):
            raise UsageError(f"invalid -X argument: '{v}'", hint=True)
        a.xstyle = v
    elif c == "I":
        level = {"1": 1, "anywhere": 1, "2": 2, "waiting": 2, "3": 3, "never": 3,
                 "4": 4, "never_tstp": 4}.get(v)
        if level is None:
            raise UsageError(f"invalid -I argument: '{v}'", hint=True)
        if level > 2:
            raise _refuse(f"-I {v}", "tracekit does not block fatal signals: the first "
                                     "SIGINT/SIGTERM/SIGHUP ends the trace after a drain "
                                     "(-I 1 and 2 behave so)")
    elif c == "D":
        raise _refuse("-D", "the command is always tracekit's child: there is no ptrace "
                            "parent to detach from it")
    elif c == "b":
        raise _refuse(f"-b {v}", "detaching at execve needs ptrace; tracekit traces with "
                                 "BPF")
    elif c == "k":
        a.stacks = True
    elif c == "n":
        a.numbers = True
    elif c == "i":
        a.ips = True
    elif c == "h":
        a.help = True
    elif c == "V":
        a.version = True
    elif c == "F":
        a.follow += 1                   # strace's old alias of -f
    elif c == "Y":
        a.comm = True                   # strace: -Y is --decode-pids=comm
    elif c == "A":
        a.append = True
    else:                               # d O
        raise _refuse(f"-{c}", _UNSUPPORTED[c])


_PIDNS = ("pids are not translated between pid namespaces (the pid prefix is the "
          "init namespace's; arguments and return values as the traced task saw them)")
_UNSUPPORTED = {
    "d": "strace's debug output is not supported",
    "O": "there is no tracing overhead to subtract (the summary's times are the calls')",
}


def _long(a: StraceArgs, name: str, key: str, value: str | None) -> None:
    if key.startswith("e:"):
        qual = key[2:]
        if value is None:           # --quiet, --decode-fds without a value
            value = {"quiet": "attach,personality", "decode-fds": "path"}[qual]
        text = f"{qual}={value}"
        a.exprs.append((f"--{name}", _expr(a, text)))
    elif key == "separately":
        a.separate = True
    elif key == "absolute":
        # strace: format and precision items in any order, named or not
        fmt, prec = "time", "s"
        for item in (value or "").split(","):
            what = item.removeprefix("format:").removeprefix("precision:")
            if not item:
                continue
            if what in ("none", "time", "unix") and not item.startswith("precision:"):
                fmt = what
            elif what in ("s", "ms", "us", "ns") and not item.startswith("format:"):
                prec = what
            else:
                raise UsageError(f"invalid --{name} argument: '{value}'", hint=True)
        shapes = {("time", "s"): 1, ("time", "us"): 2, ("unix", "us"): 3}
        if fmt == "none":
            a.abs_time = 0
        elif (fmt, prec) in shapes:
            a.abs_time = shapes[fmt, prec]
        else:
            raise UsageError(f"--{name}={value}: tracekit prints time, time,us and unix,us "
                             "(as -t, -tt, -ttt)")
    elif key == "hex":
        if value is None:
            value = "all"
        if value not in ("none", "non-ascii-chars", "non-ascii", "all"):
            raise UsageError(f"invalid --strings-in-hex argument: '{value}'", hint=True)
        a.hex_long = value
    elif key == "ring":
        from tracekit.app.cli import mmap_pages
        try:
            a.ring_pages = mmap_pages(value or "")
        except argparse.ArgumentTypeError as e:
            raise UsageError(f"--{name}: {e}") from None
    elif key == "seccomp":
        a.seccomp = True            # a ptrace speed-up: nothing to do, but said as strace
    elif key == "tips":
        raise _refuse(f"--{name}", "tips are not printed")
    elif key == "pidns":
        raise _refuse(f"--{name}", _PIDNS)
    elif key == "secontext":
        raise _refuse(f"--{name}", "SELinux contexts are not printed")
    elif key in ("r", "T"):
        if value not in (None, "us"):
            raise UsageError(f"--{name}={value}: tracekit prints microseconds only")
        _short(a, key, None)
    else:
        _short(a, key, value)


def _fds(text: str) -> tuple[list[int | str], list[int]]:
    """``-e read=``/``-e write=``'s set of fds, as strace 6.1 reads it: leading ``!``s
    (:func:`_inverted`), then ``all``, ``none`` or fds separated by commas (empty items
    skipped), each as strtol reads it (white space and a sign first; from 0 to
    INT_MAX); returns (fds dumped or ``["all"]``, fds not dumped under ``"all"``).

    Raises:
      UsageError: no item (``invalid descriptor '!'``: the whole text) or one that is
        not an fd (``invalid descriptor 'x'``), in strace's words.
    """
    negate, rest = _inverted(text)
    if rest in ("all", "none"):
        return (["all"] if (rest == "all") != negate else []), []
    fds: list[int] = []
    for p in rest.split(","):
        if not p:
            continue
        if not re.fullmatch(r"[ \t\n\v\f\r]*[+-]?[0-9]+", p) or \
                not 0 <= int(p, 10) <= 2**31 - 1:
            raise UsageError(f"invalid descriptor '{p}'")
        fds.append(int(p, 10))
    if not fds:
        raise UsageError(f"invalid descriptor '{text}'")
    return (["all"], fds) if negate else (list(fds), [])


# strace 6.1's -e qualifiers (its qual_options[]); any other "X=Y" is a syscall name that
# does not exist, as strace reads it ("invalid system call 'X=Y'")
_STRACE_QUALS = {"trace": "trace", "t": "trace", "abbrev": "abbrev", "a": "abbrev",
                 "verbose": "verbose", "v": "verbose", "raw": "raw", "x": "raw",
                 "signal": "signal", "signals": "signal", "s": "signal", "read": "read",
                 "reads": "read", "r": "read", "write": "write", "writes": "write",
                 "w": "write", "fault": "fault", "inject": "inject", "status": "status",
                 "quiet": "quiet", "silent": "quiet", "silence": "quiet", "q": "quiet",
                 "decode-fds": "decode-fds", "decode-fd": "decode-fds",
                 "decode-pids": "decode-pids", "decode-pid": "decode-pids", "kvm": "kvm",
                 "secontext": "secontext"}
_DECODE_FDS = {"path", "socket", "dev", "pidfd", "all", "none"}


def _inverted(value: str) -> tuple[bool, str]:
    """strace's leading ``!``s: each inverts what follows (``!!x`` is ``x``); (whether
    the rest is inverted, the rest)."""
    rest = value.lstrip("!")
    return (len(value) - len(rest)) % 2 == 1, rest


def _words(value: str, what: str, known: Collection[str]) -> tuple[bool, list[str]]:
    """:func:`_items` of a qualifier whose items are words strace knows (quiet=,
    decode-fds=, decode-pids=), lower-cased: strace looks them up in any case
    (find_arg_val: strcasecmp).

    Raises:
      UsageError: strace's ``invalid WHAT 'X'`` for an item not in ``known``.
    """
    negate, items = _items(value, what)
    for p in items:
        if p.lower() not in known:
            raise UsageError(f"invalid {what} '{p}'")
    return negate, [p.lower() for p in items]


def _items(value: str, what: str) -> tuple[bool, list[str]]:
    """strace's set syntax: leading ``!``s (:func:`_inverted`), then items separated by
    commas (empty ones skipped, as strace does); no item at all is ``invalid WHAT
    'VALUE'``."""
    negate, rest = _inverted(value)
    items = [p for p in rest.split(",") if p]
    if not items:
        raise UsageError(f"invalid {what} '{value}'")
    return negate, items


def _syscall_set(value: str, where: str) -> str:
    """A syscall set of -e trace=/abbrev=/verbose=/raw= in the form the selection code
    reads, strace's way: ``?X`` that this arch lacks is dropped, ``!all`` is none (and
    ``!none`` all), a set that selects nothing is ``none`` (strace traces nothing then;
    the selection code wants that said).

    Raises:
      UsageError: no item (``invalid system call ''``), or an unknown name (tracekit's
        message, with the nearest names).
    """
    from tracekit.kernel.selection import compile_regex, resolve_item
    from tracekit.kernel.syscalls import SyscallTable

    negate, items = _items(value, "system call")
    table = SyscallTable()
    t32 = SyscallTable("i386") if table.arch == "x86_64" else None

    def only_i386(item: str) -> bool:
        """A name only the i386 table has (chown32, socketcall's send): it selects the
        32-bit calls of x86_64 tasks, as strace resolves each personality's table."""
        try:
            return t32 is not None and not _digits(item) and bool(resolve_item(item, t32))
        except ConfigError:
            return False

    kept: list[str] = []
    chosen: set[int] = set()        # native numbers
    compat = False                  # a name only i386 has: 32-bit calls chosen
    for p in items:
        if p.startswith("?"):
            if p[1:] != p[1:].strip():
                continue                # no syscall has that name: strace drops it too
            if p[1:].startswith("/"):
                try:                    # strace's "?" hides unknown names, not a bad regex
                    compile_regex(p[2:], where=where)
                except ConfigError as e:
                    raise UsageError(str(e)) from None
            try:
                got = resolve_item(p[1:], table)
            except ConfigError:
                if not only_i386(p[1:]):
                    continue            # strace's "?": not an error when unknown here
                got, p, compat = set(), p[1:], True
        elif p != p.strip():
            # strace takes the item as written: "trace=brk, close" names ' close'
            raise UsageError(f"invalid system call '{p}'")
        else:
            try:
                got = resolve_item(p, table, where=where)
            except ConfigError as e:
                if not only_i386(p):
                    raise UsageError(str(e)) from None
                got, compat = set(), True
        kept.append(p)
        chosen |= got
    if negate:
        every = len({nr for n in table.names() if (nr := table.nr(n)) is not None})
        if len(chosen) >= every:
            return "none"
        return "!" + ",".join(kept) if chosen or compat else "all"
    return ",".join(kept) if chosen or compat else "none"


def _signal_set(value: str) -> str:
    """-e signal='s set, strace's way: numbers 0..255 are valid, those that name no
    signal (0, above 64) select nothing; ``!all`` is none."""
    from tracekit.kernel.selection import resolve_signals

    negate, items = _items(value, "signal")
    kept: list[str] = []
    for p in items:
        if p != p.strip():
            raise UsageError(f"invalid signal '{p}'")
        if _digits(p) and len(p) < 4 and int(p) <= 255:
            if 1 <= int(p) <= 64:
                kept.append(p)
            continue
        try:
            resolve_signals([p])
        except ConfigError:
            raise UsageError(f"invalid signal '{p}'") from None
        kept.append(p)
    chosen = resolve_signals(list[str | int](kept)) if kept and kept != ["none"] else set()
    if negate:
        if len(chosen) >= 64:
            return "none"
        return "!" + ",".join(kept) if chosen else "all"
    return ",".join(kept) if chosen else "none"


def _expr(a: StraceArgs, text: str) -> str:
    """Check an ``-e`` expression as strace does and apply what it sets besides the
    selection; returns it as the selection code reads it (trace= and signal= sets
    normalised: :func:`_syscall_set`, :func:`_signal_set`).

    Raises:
      UsageError: strace's message (``invalid system call 'foo=bar'`` for an unknown
        qualifier, ``invalid decode-fds 'X'`` ...), or the refusal of a qualifier that
        needs ptrace.
    """
    qual, eq, value = text.partition("=")
    kind = _STRACE_QUALS.get(qual) if eq else "trace"
    if kind is None:
        # strace: not a qualifier, so the whole text is a syscall name
        raise UsageError(f"invalid system call '{text}'")
    if not eq:
        value = text
    if kind in ("inject", "fault"):
        raise _refuse(f"-e {text}", "tampering with calls needs ptrace (a stopped task); "
                                    "tracekit traces with BPF and never changes a call")
    if kind == "kvm":
        raise _refuse(f"-e {text}", "kvm exit reasons are not traced")
    if kind == "secontext":
        raise _refuse(f"-e {text}", "SELinux contexts are not printed")
    if kind == "decode-pids":
        negate, items = _words(value, "decode-pids", ("comm", "pidns", "all", "none"))
        chosen = {"comm", "pidns"} if "all" in items else set(items) - {"none"}
        if negate:
            chosen = {"comm", "pidns"} - chosen
        if "pidns" in chosen:
            raise _refuse(f"-e {text}", _PIDNS)
        a.comm = "comm" in chosen
    if kind == "trace":
        return f"trace={_syscall_set(value, f'-e {text}')}"
    if kind == "signal":
        return f"signal={_signal_set(value)}"
    if kind == "status":
        negate, items = _items(value, "status")
        # in any case, as strace looks them up (an unknown one is said further on)
        return "status=" + "!" * negate + ",".join(p.lower() for p in items)
    elif kind == "abbrev":
        # the last -e abbrev= (or -v) replaces the set, as in strace
        a.abbrev = _syscall_set(value, f"-e {text}")
    elif kind == "verbose":
        a.deref = _syscall_set(value, f"-e {text}")
    elif kind == "raw":
        _syscall_set(value, f"-e {text}")
        a.raw.append(value)
    elif kind == "read":
        a.reads, a.reads_except = _fds(value)
    elif kind == "write":
        a.writes, a.writes_except = _fds(value)
    elif kind == "quiet":
        negate, items = _words(value, "quiet", _QUIET | {"all", "none"})
        chosen = set(_QUIET) if "all" in items else set(items) - {"none"}
        a.quiet = (set(_QUIET) - chosen if negate else chosen if "none" in items
                   else a.quiet | chosen)
    elif kind == "decode-fds":
        negate, items = _words(value, "decode-fds", _DECODE_FDS)
        chosen = _DECODE_FDS - {"none", "all"} if "all" in items else set(items) - {"none"}
        if negate:
            chosen = _DECODE_FDS - {"none", "all"} - chosen
        a.decode_fds = 0 if not chosen else 2 if chosen - {"path"} else 1
        a.fd_kinds = frozenset(chosen)
    return text


# --- what the options mean for a trace -----------------------------------------------------

def _selection(a: StraceArgs) -> argparse.Namespace:
    """The -e/-z/-Z/-P options in the form ``tracekit.app.selection`` reads."""
    sel = []
    for option, text in a.exprs:
        if option in ("-z", "-Z"):
            sel.append((option, text))
            continue
        qual, eq, _ = text.partition("=")
        if not eq or qual.strip() in ("trace", "t", "status", "signal", "signals", "s"):
            sel.append((option, text))
    return argparse.Namespace(selection=sel, path=list(a.paths), cgroup=None)


def _creds(user: str) -> tuple[int, int, tuple[int, ...]]:
    import pwd

    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        raise UsageError(f"Cannot find user '{user}'") from None
    return pw.pw_uid, pw.pw_gid, tuple(os.getgrouplist(pw.pw_name, pw.pw_gid))


def _environment(a: StraceArgs) -> dict[str, str] | None:
    """The command's environment: tracekit's own as it was started (without the LC_CTYPE
    Python's locale coercion adds: :func:`~tracekit.session.spawn.own_environment`), then
    ``-E``'s; None: that environment unchanged."""
    from tracekit.session.spawn import own_environment

    if not a.env:
        return None
    env = own_environment()
    for item in a.env:
        var, eq, val = item.partition("=")
        if eq:
            env[var] = val
        else:
            env.pop(var, None)
    return env


def _time_format(a: StraceArgs) -> str:
    absolute = {0: "", 1: "t", 2: "tt"}.get(a.abs_time, "ttt")
    if a.relative:
        return f"{absolute}+r" if absolute else "r"
    return absolute or "none"


@dataclass
class Plan:
    """What :func:`build` made of the options."""

    session: Any                     # SessionOptions
    stages: list[Any]
    shape: Any                       # StraceOptions of the trace lines
    pid_targets: list[int]
    summary_in_kernel: bool
    # -e abbrev= / -e verbose=: (native, i386) numbers of the calls abbreviated / whose
    # structures are read (SyscallDecoder.set_abbrev, set_deref); None: every call
    abbrev: tuple[frozenset[int], frozenset[int]] | None = None
    deref: tuple[frozenset[int], frozenset[int]] | None = None


def build(a: StraceArgs) -> Plan:
    """The session, stages and line shapes the options ask for.

    Raises:
      ConfigError: an ``-e`` expression or ``-P`` path that does not resolve.
      UsageError: ``-u USER`` names no user.
    """
    from tracekit.app.config import FilterConfig
    from tracekit.app.selection import selection_keys, selection_stages, session_selection
    from tracekit.formatters.strace import StraceOptions
    from tracekit.kernel.selection import resolve_compat_syscalls, resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.session.capture import ring_bytes_for_data
    from tracekit.session.session import SessionOptions

    table = SyscallTable()
    keys = selection_keys(_selection(a))
    filt = FilterConfig(**keys.get("filter", {}))
    syscalls = resolve_syscalls(filt.syscalls, table, where="-e trace") if filt.syscalls \
        else None
    syscalls32 = resolve_compat_syscalls(filt.syscalls) if filt.syscalls else None
    raw: list[str] = []
    for text in a.raw:
        items = text.strip()
        if items in ("all", "none"):
            nrs = resolve_syscalls(["all"], table) if items == "all" else set()
        else:
            neg = items.startswith("!")
            parts = [p.strip() for p in items.lstrip("!").split(",") if p.strip()]
            nrs = resolve_syscalls([f"!{p}" if neg else p for p in parts], table,
                                   where=f"-e raw={text}")
        names = {table.name(nr) for nr in nrs}
        if table.arch == "x86_64" and items != "none":
            # and the 32-bit calls the same items name in the i386 table (_llseek, chown32)
            items32: list[str | int] = (["all"] if items == "all" else
                                        [f"!{p}" if neg else p for p in parts])
            t32 = SyscallTable("i386")
            names |= {t32.name(nr) for nr in resolve_compat_syscalls(items32)}
        raw = sorted(names)
    follow = a.follow > 0
    pids = a.pids
    opts = SessionOptions(
        command=a.command or None, pids=pids if follow else [],
        tids=[] if follow else pids, follow_forks=follow, syscalls=syscalls,
        # strace -f -p follows the forks from the attach on, not the children the
        # processes had before it (tracekit run -p traces those too)
        attached_descendants=False,
        syscalls32=syscalls32,
        env=_environment(a), creds=_creds(a.user) if a.user is not None else None,
        wait_for_children=follow,
        **session_selection(filt, None, where="-e"))
    if a.ring_pages is not None:
        opts.buffer_bytes = a.ring_pages * 4096
    abbrev = _call_set(a.abbrev, table, "abbrev")
    deref = _call_set(a.deref, table, "verbose")
    # (the tables are read only for an -e abbrev= set: the default start-up reads none)
    full_exec = abbrev is not None and any(
        nr not in abbrev[compat] for compat, nr in _execs(table))
    if full_exec and a.summary != "c":
        # strace -v prints execve's environment: its strings, each cut at -s (read one
        # byte longer, so a cut one is seen)
        opts.envp_strings = min(a.strsize, 1 << 10) + 1
    dents = table.nr("getdents64")
    if abbrev is not None and dents is not None and dents not in abbrev[0] and (
            deref is None or dents in deref[0]) and a.summary != "c":
        # -v prints getdents64's entries: its reply read as bytes, not counted
        opts.dirents = True
    if a.summary != "c":
        # argv: every element with -v, -s of them without, each cut at -s + 1 bytes
        # (argv's default capture stops at its first element longer than 1024 bytes,
        # and three of 1024 fill it: strace -s 32 shows 32 elements of a long argv)
        opts.argv_strings = min(a.strsize, 1 << 10) + 1
    if a.summary != "c":
        # -s N: N + 1 bytes of data (the default reads 256); -e read=/write= dump a
        # buffer whole: as much of it as a record holds (4096 bytes)
        opts.data_bytes = max(a.strsize + 1, 4096 if a.reads or a.writes else 0)
        if a.ring_pages is None:
            # records as big as -s allows: a ring that holds as many of them as the
            # default holds of the default's largest (strace stops the tracee instead)
            opts.buffer_bytes = ring_bytes_for_data(opts.buffer_bytes, opts.data_bytes)
    if a.stacks:
        # strace -k: each recorded call's user stack, taken at its entry
        opts.stacks = "user"
    # strace -i: each recorded call's instruction pointer at its entry
    opts.instruction_pointer = a.ips
    stages = selection_stages(filt)
    in_kernel = a.summary == "c" and not stages
    if in_kernel:
        opts.summary, opts.capture = True, False
    if a.output is None:
        prefix = "multi"
    elif a.follow < 2 and (follow or len(pids) > 1):
        prefix = "padded"
    else:
        prefix = "none"
    shape = StraceOptions(
        fd_paths=a.decode_fds > 0, string_limit=a.strsize,
        time_format=cast(Any, _time_format(a)), durations=a.durations,
        align_column=a.column, pid_prefix=cast(Any, prefix),
        hex_strings=cast(Any, _hex_level(a)),
        raw_syscalls=raw, dump_reads=cast(Any, list(a.reads)),
        dump_writes=cast(Any, list(a.writes)), dump_reads_except=list(a.reads_except),
        dump_writes_except=list(a.writes_except),
        exit_lines="exit" not in a.quiet and "exits" not in a.quiet, exit_time=True,
        syscall_numbers=a.numbers, instruction_pointer=a.ips,
        stacks="user" if a.stacks else None)
    return Plan(opts, stages, shape, pids, in_kernel, abbrev, deref)


def _call_set(text: str, table: Any, what: str
              ) -> tuple[frozenset[int], frozenset[int]] | None:
    """A normalised syscall set of -e abbrev=/verbose= (:func:`_syscall_set`) as the
    (native, i386) numbers it selects; None for ``all`` (strace's default)."""
    from tracekit.kernel.selection import resolve_compat_syscalls, resolve_syscalls

    if text == "all":
        return None
    if text == "none":
        return frozenset(), frozenset()
    neg = text.startswith("!")
    exprs: list[str | int] = [f"!{p}" if neg else p for p in text.lstrip("!").split(",")]
    native = resolve_syscalls(exprs, table, where=f"-e {what}={text}")
    compat = resolve_compat_syscalls(exprs) if table.arch == "x86_64" else set()
    return frozenset(native), frozenset(compat)


def _execs(table: Any) -> list[tuple[int, int]]:
    """(compat, number) of execve and execveat, native and i386 (whose argv and
    environment -v prints whole)."""
    from tracekit.kernel.syscalls import SyscallTable

    out = [(0, nr) for n in ("execve", "execveat") if (nr := table.nr(n)) is not None]
    if table.arch == "x86_64":
        t32 = SyscallTable("i386")
        out += [(1, nr) for n in ("execve", "execveat") if (nr := t32.nr(n)) is not None]
    return out


# --- running ---------------------------------------------------------------------------

def _say(text: str) -> None:
    """One of strace's own messages on standard error."""
    if sys.stderr is not None:
        print(f"strace: {text}", file=stderr(), flush=True)


def _hex_level(a: StraceArgs) -> str:
    """The strings' hex level -x, -xx or --strings-in-hex asks for (the strace
    format's ``hex_strings``)."""
    return a.hex_long or {0: "none", 1: "non-ascii"}.get(a.hex, "all")


def _resolved_paths(paths: list[str]) -> list[tuple[str, str]]:
    """(path, what it resolves into) for each -P path, in order, that realpath(3)
    resolves into another text: a relative path, a symlink, ``..``, ``//``. strace
    says each (one line per -P, repeats too) unless ``-e quiet=path-resolution``; -q
    and -qq do not quiet it. A path realpath(3) refuses (missing, ``file/``) is not
    said, as strace says nothing of it.

    glibc's realpath, not ``os.path.realpath``: Python's resolves ``file/`` into
    ``file`` even with ``strict=True``, where glibc fails with ENOTDIR."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.realpath.restype = ctypes.c_void_p
    libc.realpath.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.free.argtypes = [ctypes.c_void_p]
    out = []
    for path in paths:
        raw = os.fsencode(path)
        if b"\0" in raw:
            continue                    # not from an argv; no call could name it
        got = libc.realpath(raw, None)
        if not got:
            continue
        try:
            resolved = os.fsdecode(ctypes.string_at(got))
        finally:
            libc.free(got)
        if resolved != path:
            out.append((path, resolved))
    return out


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the comm (field 3, the state, first); None:
    no such pid, or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _state(pid: int) -> bytes | None:
    """The state letter of /proc/PID/stat (``R``, ``S``, ``Z`` ...); None: no such pid."""
    fields = _stat_fields(pid)
    return fields[0] if fields else None


def _attach_failed(pid: int) -> bool:
    """Say strace's line for a -p process that has exited, if ``pid`` names none;
    returns whether it said it."""
    why = _exited(pid)
    if why is not None:
        _say(f"attach: ptrace(PTRACE_SEIZE, {pid}): {why}")
    return why is not None


def _exited(pid: int) -> str | None:
    """Why strace's PTRACE_SEIZE of ``pid`` fails if it names no running process: ``No
    such process`` once it is reaped, ``Operation not permitted`` for a zombie."""
    state = _state(pid)
    if state not in (None, b"Z", b"X"):
        return None
    return "No such process" if state is None else "Operation not permitted"


PF_KTHREAD = 0x00200000     # include/linux/sched.h: a kernel thread (stat's flags field)


def _attach_order(pids: list[int]) -> list[tuple[int, str | None]]:
    """Each -p process in order with why strace's attach to it fails (None: it does not):
    an exited one (:func:`_exited`); one named again (its second PTRACE_SEIZE fails, it
    is already traced) and a kernel thread (ptrace refuses it: it makes no syscalls)
    get ``Operation not permitted``."""
    out: list[tuple[int, str | None]] = []
    for pid in pids:
        why = _exited(pid)
        if why is None and (any(p == pid for p, w in out if w is None)
                            or _kernel_thread(pid)):
            why = "Operation not permitted"
        out.append((pid, why))
    return out


def _kernel_thread(pid: int) -> bool:
    """Whether ``pid`` is a kernel thread (stat field 9, flags, has PF_KTHREAD)."""
    fields = _stat_fields(pid)
    return fields is not None and len(fields) > 6 and fields[6].isdigit() and \
        bool(int(fields[6]) & PF_KTHREAD)


def _threads(pid: int) -> int:
    return len(_tids(pid))


def _tids(pid: int) -> list[int]:
    """The threads of process ``pid`` now, the leader first, then by tid (the order
    strace -f -p says them detached in); [] when it is gone."""
    from tracekit.kernel.procfs import ProcFS

    return sorted(ProcFS().threads(pid), key=lambda t: t != pid)


async def run(a: StraceArgs) -> int:
    """Trace as the options say; returns the exit status (the command's; 0 for -p).

    Raises:
      TracekitError: start-up or tracing failed.
    """
    from tracekit.app.run import _Signals

    # first: a signal from here on is handled; with -p alone, even one tracekit was
    # started ignoring (strace's handlers are its own whatever it inherited)
    piped: list[subprocess.Popen[bytes]] = []
    try:
        with _Signals(watch_inherited=bool(a.pids) and not a.command) as signals:
            from tracekit._early_signals import pending

            for sig in pending:             # came while tracekit started
                signals.noted(sig)
            pending.clear()
            return await _run(a, signals, piped)
    finally:
        for proc in piped:
            _end_output_command(proc)


def _output_command(command: str) -> subprocess.Popen[bytes]:
    """-o |CMD: ``sh -c CMD`` reading the trace on its standard input (its output and
    errors are tracekit's), as strace starts it; with the signal mask tracekit was
    started with (tracekit's threads block the ending signals for its signal thread)."""
    from tracekit.session.spawn import restore_signal_mask

    try:
        return subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.PIPE,
                                preexec_fn=restore_signal_mask)
    except OSError as e:
        name = errno.errorcode.get(e.errno or 0, "?")
        raise ConfigError(f"-o |{command}: cannot run /bin/sh: {e.strerror} ({name})"
                          ) from None


def _end_output_command(proc: subprocess.Popen[bytes]) -> None:
    """The end of the trace is the end of the command's input; strace waits for the
    command before it exits, and so does tracekit."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:             # its reader already gone (EPIPE): said by the sink
        pass
    proc.wait()


async def _run(a: StraceArgs, signals: Any, piped: list[subprocess.Popen[bytes]]
               ) -> int:
    from tracekit.app.inputs import check_output_not_input, run_inputs
    from tracekit.app.trace import LiveTrace
    from tracekit.formatters._output import (
        append_to,
        check_output_dir,
        close_output,
        open_output,
    )
    from tracekit.formatters._spec import SinkContext, format_spec
    from tracekit.formatters.strace import SplitStraceFormatter, StraceFormatter
    from tracekit.formatters.summary import SummarySink, render_strace_c

    order: list[tuple[int, str | None]] = []
    if a.pids:
        # strace says of each -p process it cannot attach to why, and goes on with the
        # others; with none left it exits 1
        order = _attach_order(a.pids)
        a.pids = [pid for pid, why in order if why is None]
        if not a.pids:
            for pid, why in order:
                _say(f"attach: ptrace(PTRACE_SEIZE, {pid}): {why}")
            return 1
    plan = build(a)
    plan.session.log_gone_targets = False       # said below, as strace says it
    shape = plan.shape
    plan.session.command_signals = signals.inherited
    # fds printed with what they refer to, or followed by -P (which must know the fds
    # the command inherits or a -p process has open): the session keeps the fd tables
    # true
    from tracekit.pipeline.pathfilter import PathFilter

    plan.session.fd_table = (bool(shape.fd_paths) and a.summary != "c") or any(
        isinstance(st, PathFilter) for st in plan.stages)
    trace_ref: list[Any] = []

    def summary_from() -> Any:          # called by the sink at the end, session open
        return trace_ref[0].session.kernel_summary().read()

    ctx = SinkContext.for_machine(summary_from=summary_from if plan.summary_in_kernel
                                  else None)
    quiet_attach = "attach" in a.quiet
    out: IO[Any] | None = None
    piped_to: IO[bytes] | None = None
    inputs = run_inputs(None, a.command)
    if _piped(a):
        assert a.output is not None
        piped.append(_output_command(a.output[1:]))
        piped_to = piped[-1].stdin
    elif a.output is not None and a.follow < 2:
        # -o ./prog ./prog replaced the program by the (empty) trace before it ran
        # strace 6.1's -o - is a file named "-" in the working directory (its fopen
        # takes the name as written), never standard output: tracekit's "-" is stdout
        name = "./-" if a.output == "-" else a.output
        check_output_not_input(name, inputs)
        out = append_to(name) if a.append else open_output(name)
    elif a.output is not None:
        # -ff: the files are made as tasks appear; a missing directory is said now,
        # before the command starts (strace refuses it too)
        check_output_dir(f"{a.output}.PID")
    stream: Any = out if out is not None else piped_to if piped_to is not None else \
        sys.stderr
    if stream is None:
        # started with 2>&- and no -o: as strace, the command runs and the trace goes
        # where its standard error went (nowhere); the status is the command's
        stream = out = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    sink: Any
    formatter: StraceFormatter | None = None
    split: SplitStraceFormatter | None = None
    summarizer = None
    held_table: io.StringIO | None = None
    if a.summary == "c":
        if plan.pid_targets and not quiet_attach:
            # strace says "Process N detached" before the table: the table waits for it
            held_table = io.StringIO()
        sink = SummarySink(held_table if held_table is not None else stream,
                           table="strace-c", group_by="total", sort=a.sort,
                           columns=a.columns, syscall_name=ctx.syscall_name,
                           compat_syscall_name=ctx.compat_syscall_name,
                           summary_from=ctx.summary_from, rich=False)
        stages = plan.stages
        if a.output is None and not quiet_attach and a.follow > 0:
            stages = [*stages, _AttachMessages()]
    else:
        from tracekit.decode import xstyle

        # -X: set before the decoder decodes (it caches whole calls' texts)
        xstyle.set_style(a.xstyle)
        decoder = shape.decoder(ctx)
        # -y: the path only; -yy (and -e decode-fds= with socket or dev): sockets and
        # devices described too
        decoder.fdcache.details = a.decode_fds > 1
        if a.fd_kinds is not None and a.decode_fds > 1:
            # -e decode-fds=path,socket: sockets described, devices not (and the reverse);
            # without path, files, pipes and AT_FDCWD print bare, as strace prints them
            decoder.fdcache.sockets = "socket" in a.fd_kinds
            decoder.fdcache.devices = "dev" in a.fd_kinds
            decoder.fdcache.paths = "path" in a.fd_kinds
        decoder.set_abbrev(plan.abbrev)
        decoder.set_deref(plan.deref)
        if a.comm:
            from tracekit.decode.pidcomm import PidComms

            decoder.pid_comms = PidComms(follow=a.follow > 0)
        if a.output is not None and a.follow >= 2:
            formatter = split = SplitStraceFormatter(a.output, decoder=decoder, shape=shape,
                                                     append=a.append)
            split.on_failed = _file_failed
            split.refuse = functools.partial(check_output_not_input, inputs=inputs)
        else:
            formatter = StraceFormatter(stream, decoder=decoder, shape=shape)
        formatter.count_forks = a.follow > 0
        formatter.attach_lines = a.output is None and not quiet_attach and a.follow > 0
        # strace's "[ Process PID=N runs in 32 bit mode. ]" goes to its standard error
        formatter.personality_lines = a.output is None and "personality" not in a.quiet
        if plan.session.signals is not None:
            formatter.shown_signals = frozenset(plan.session.signals)
        if a.summary == "C":
            from tracekit._summary import Summarizer

            summarizer = Summarizer(ctx.syscall_name, ctx.compat_syscall_name)
            formatter = _summing(formatter, summarizer)
        sink = formatter
        stages = plan.stages + format_spec("strace").stages_before(shape, plan.stages, ctx)

    async def attached(trace: Any) -> None:
        session = trace.session
        if formatter is not None:
            formatter.add_tasks(session.traced_tids() if a.follow else plan.pid_targets)
        gone = set(session.gone_targets)
        # in strace's order: its attach to each -p process in turn, a line for each
        for pid, why in order:
            if why is not None:
                _say(f"attach: ptrace(PTRACE_SEIZE, {pid}): {why}")
            elif pid in gone:
                # it exited while tracekit started (strace's attach would have failed)
                if not _attach_failed(pid):     # and its pid went to another process
                    _say(f"attach: ptrace(PTRACE_SEIZE, {pid}): No such process")
            elif not quiet_attach:
                k = _threads(pid) if a.follow else 1
                _say(f"Process {pid} attached" + (f" with {k} threads" if k > 1 else ""))

    trace = LiveTrace(plan.session, stages, [sink], collect=False,
                      while_tracing=[attached] if plan.pid_targets else [])
    trace_ref.append(trace)
    completed = False
    if formatter is not None and a.output is None and plan.pid_targets and not quiet_attach:
        formatter.keep_held = True      # its last open line goes between the messages
    try:
        result = await trace.run() if signals.attach(trace) else None
        if result is None:              # a signal came while starting
            return 128 + (signals.first or trace.interrupted_by or signal.SIGINT)
        if not quiet_attach:
            _say_detached(plan.pid_targets, a.follow,
                          formatter.take_held() if formatter is not None else None)
        if held_table is not None and held_table.getvalue():
            _write(stream, held_table.getvalue())
        if summarizer is not None and not getattr(sink, "closed_by_reader", False):
            _write(stream if a.follow < 2 or a.output is None else sys.stderr,
                   render_strace_c(summarizer.summary("total"), a.sort, a.columns))
        completed = True
    finally:
        if out is not None:
            close_output(out, completed=completed)
    if trace.final_losses is not None:      # everything lost or skipped, a line each
        losses = trace.final_losses
        if getattr(sink, "closed_by_reader", False):
            losses = losses.reader_left()
        for line in losses.lines():
            print(f"tracekit: {line}", file=stderr())
        if losses.ringbuf_full:
            size = plan.session.buffer_bytes
            now = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
            print(f"tracekit: a bigger ring buffer loses fewer records: --mmap-pages "
                  f"{2 * (size >> 12)} or more (now {now})", file=stderr())
    if split is not None and split.failed:
        n, k = split.unwritten_lines, len(split.failed)
        print(f"tracekit strace: {n} line{'s' * (n != 1)} not written: the file"
              f"{'s' * (k != 1)} of {k} task{'s' * (k != 1)} could not be created or "
              "written (above)", file=stderr())
    if getattr(sink, "closed_by_reader", False):
        return 128 + signal.SIGPIPE
    rc = trace.returncode
    gone = trace.session.gone_targets if trace.session is not None else []
    if plan.pid_targets and set(plan.pid_targets) <= set(gone):
        return 1                # nothing was attached to, as strace exits
    if rc is None:
        if trace.interrupted_by is not None:
            # a signal ended the trace and the command lives on (it ignores or handles
            # the signal), untraced: the signal's status, as tracekit run ends; -p
            # processes too, left running as strace leaves them at its detach, and with
            # -p alone tracekit dies of the signal as strace does (a shell sees 128+N,
            # a parent's wait the signal; tracekit run -p returns 0)
            if not a.command:
                a.killed_by = trace.interrupted_by
            return 128 + trace.interrupted_by
        return 0
    if rc < 0:
        a.killed_by = -rc
    return rc if rc >= 0 else 128 - rc


def _file_failed(tid: int, err: Any) -> None:
    """-ff: the file of task ``tid`` could not be made or written (``err``, an
    OutputError): one line on stderr, its path escaped (the prefix is the user's, but
    a file name must never reach the terminal raw)."""
    from tracekit.app.cli import _printable

    if sys.stderr is not None:
        print(f"tracekit strace: {_printable(quoted(err.path))}: {_printable(_reason(err))}; "
              f"the lines of task {tid} are not written", file=stderr(), flush=True)


def _reason(err: Any) -> str:
    """What an OutputError says after its path: ``"Too many levels of symbolic links
    (ELOOP) (a symlink ...)"``, or the directory that does not exist."""
    text = str(err)
    head = f"output path {quoted(err.path)}"
    if text.startswith(head + ": "):
        return text[len(head) + 2:]
    if text.startswith(head + " "):             # "... is the command's program ..."
        return text[len(head) + 1:]
    head = f"writing {quoted(err.path)}: "
    return "writing failed: " + text[len(head):] if text.startswith(head) else text


class _AttachMessages:
    """A stage that writes strace's ``strace: Process N attached`` on stderr for each
    fork record (with -c, which prints no trace lines, strace still says so)."""

    name = "attach_messages"

    async def run(self, ctx: Any, recv: Any, send: Any) -> None:
        from tracekit._events import Fork

        async with recv, send:
            async for batch in recv:
                for ev in batch:
                    if isinstance(ev, Fork):
                        _say(f"Process {ev.child_tid} attached")
                await send.send(batch)


def _say_detached(pids: Sequence[int], follow: int, held: tuple[str, int] | None) -> None:
    """strace's ``Process N detached`` for each -p process still there (not one that
    exited: a zombie its parent has not reaped yet; a leader that ended alone is one too,
    while its threads run), with -f for each of its threads. ``held``: the trace's last
    line, of a call in flight, when the trace is on standard error too: strace leaves it
    open, so the first message follows its text on the same line, and its end ``
    <detached ...>`` comes on a line of its own after its thread's message."""
    if held is not None:
        _write(sys.stderr, held[0])
    for pid in pids:
        state, tids = _state(pid), _tids(pid)
        if state is None or (state in (b"Z", b"X") and len(tids) <= 1):
            continue
        for tid in tids if follow else [pid]:
            _say(f"Process {tid} detached")
            if held is not None and tid == held[1]:
                _write(sys.stderr, " <detached ...>\n")
                held = None
    if held is not None:        # its thread is gone: the end after the messages
        _write(sys.stderr, " <detached ...>\n")


def _summing(formatter: Any, summarizer: Any) -> Any:
    """``formatter`` that also adds every batch it renders to ``summarizer`` (-C)."""
    render = formatter.render

    def both(batch: Any) -> Any:
        summarizer.add(batch)
        return render(batch)

    formatter.render = both
    return formatter


def _write(stream: Any, text: str) -> None:
    import io

    try:
        if isinstance(stream, io.TextIOBase):
            stream.write(text)
        else:
            stream.write(text.encode("utf-8", "surrogateescape"))
        stream.flush()
    except BrokenPipeError:
        pass


def help_text() -> str:
    """``tracekit strace --help``: usage and what each option does here."""
    lines = [
        "usage: tracekit strace [OPTIONS] { -p PID | [-E VAR=VAL]... [-u USER] PROG [ARGS] }",
        "",
        "strace 6.1's options and output, traced with BPF (no ptrace): the trace goes to",
        "standard error (or -o FILE); the exit status is the command's.",
        "",
        "  option                          here",
    ]
    for opt, status, what in OPTIONS:
        mark = {"yes": "", "partly": "partly: ", "no": "REFUSED: "}[status]
        lines.append(f"  {opt:<31} {mark}{what}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """``tracekit strace ARGS...``: the exit status (the command's; 1 for an error)."""
    try:
        args = parse_args(argv)
    except UsageError as e:
        _usage(str(e), e.hint)
        return EXIT_USAGE
    if not args.pids or args.command:
        # a command inherits the signals tracekit was started ignoring; -p alone takes
        # them, as strace does (tracekit._early_signals)
        from tracekit._early_signals import restore_ignored

        restore_ignored()
    if args.help or args.version:
        from tracekit._stdio import StdoutWriteError
        from tracekit._version import __version__

        if sys.stdout is None:      # started with >&-: said, as coreutils do (EBADF)
            raise StdoutWriteError(errno.EBADF)
        sys.stdout.write(help_text() if args.help else
                         f"tracekit strace (tracekit {__version__}): strace 6.1's command "
                         "line\n")
        return 0
    for note in args.notes:
        _say(note)
    if "path-resolution" not in args.quiet:
        from tracekit.decode.values import quote
        from tracekit.formatters.strace import hex_strings

        # quoted as strace quotes strings (a path is the user's: a newline, a quote, a
        # byte not UTF-8 must not break the line), in hex under -x, -xx
        level = _hex_level(args)
        for path, resolved in _resolved_paths(args.paths):
            said = [hex_strings(quote(os.fsencode(p)), cast(Any, level))
                    for p in (path, resolved)]
            _say(f"Requested path {said[0]} resolved into {said[1]}")
    import trio

    from tracekit._errors import leaves

    try:
        status = trio.run(run, args)
    except UsageError as e:
        _usage(str(e), e.hint)
        return EXIT_USAGE
    except BaseException as exc:
        errors = leaves(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in errors):
            return 128 + signal.SIGINT
        from tracekit._errors import out_of_fds

        fds = out_of_fds(errors)
        if fds is not None:             # wherever it ran out: one line, the cause
            print(f"tracekit strace: {fds}", file=stderr())
            return EXIT_USAGE
        if not all(isinstance(e, TracekitError) for e in errors):
            raise
        from tracekit._errors import ConfigError
        from tracekit.app.cli import _one_line, _output_error_of, _printable

        for err in errors:
            # a sink's own error says what happened (its file and errno name); the
            # pipeline's wrapping of it ("sink 'strace' failed: ...") says nothing more
            inner = _output_error_of(err)
            text = str(err if inner is None else inner)
            # bad input in one line, whatever newline it held (a verifier log is lines)
            print(f"tracekit strace: "
                  f"{_one_line(text) if isinstance(err, ConfigError) else _printable(text)}",
                  file=stderr())
        return EXIT_USAGE
    if args.killed_by and args.killed_by not in _CORE_SIGNALS:
        _die_of(args.killed_by)
    return status


# signals whose default action dumps core: strace dies of them too, tracekit does not
# (it returns 128+N): its own core would be of no use
_CORE_SIGNALS = frozenset({signal.SIGQUIT, signal.SIGILL, signal.SIGTRAP, signal.SIGABRT,
                           signal.SIGBUS, signal.SIGFPE, signal.SIGSEGV, signal.SIGXCPU,
                           signal.SIGXFSZ, signal.SIGSYS})


def _die_of(sig: int) -> None:
    """End this process by ``sig``, as strace ends when the command died of it: a shell
    (or a parent's wait status) sees the same death (exit status 128+N in a shell)."""
    sys.stdout.flush() if sys.stdout is not None else None
    sys.stderr.flush() if sys.stderr is not None else None
    try:
        if sig != signal.SIGKILL:       # SIGKILL's action cannot be set (EINVAL): kill
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    except (OSError, ValueError):
        return                          # not a signal we may take: 128+N it is


def _usage(message: str, hint: bool) -> None:
    from tracekit.app.cli import _one_line

    print(f"tracekit strace: {_one_line(message)}", file=stderr())
    if hint:
        print("Try 'tracekit strace -h' for more information.", file=stderr())
