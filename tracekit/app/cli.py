"""``tracekit run [PIPELINE] [options] [-- COMMAND ...]``, ``tracekit check pipeline.toml``
and ``tracekit list``.

``run``'s options set keys of the pipeline (the file's, or the defaults without one):
:func:`_apply_overrides` is the one place that maps them; ``--dump-config`` prints the
result as a pipeline file (tracekit.app.config.dump_config). Bad usage (argparse's
errors included) is one line on stderr and status 2.

Exit status of ``check``: 0 when every item is ok, 1 when any failed, 2 for an invalid
pipeline file (tracekit.app.check). Exit status of ``run`` (documented in the README,
"Using it"):
  - with a command target: the workload's exit status, or 128+N when a signal N killed it;
  - otherwise 0 when the session ended normally (targets gone, timeout, SIGINT/SIGTERM);
  - 1: tracing failed (a kernel call, a stage, an output that cannot be written: ENOSPC,
    also standard output's for any subcommand, --help included): one line naming the
    errno and the stage or output; a command tracekit started is killed (trace.py);
  - 2: bad usage or an invalid (or, as root, unsafe) pipeline file: one message;
  - 128+N: signal N arrived while tracekit was starting (130 for SIGINT, no traceback);
  - 141: the reader of the output went away (a command tracekit started gets SIGPIPE).

Signals before the trace starts: the entry point (tracekit._entry) makes SIGINT,
SIGQUIT, SIGTERM and SIGHUP end the process at once with 128+N before this module is
imported, and so they stay while the subcommand imports what it needs (a
KeyboardInterrupt raised inside a C extension's module init can crash the interpreter)
until the runner's signal thread takes them over; a replay gives SIGINT back to
KeyboardInterrupt (:func:`sigint_raises`) so that its output ends with what it has.
Called as a function (tests, ``main(argv)``), SIGINT during the imports is a
KeyboardInterrupt caught in ``main`` (exit 130).
"""

from __future__ import annotations

import argparse
import decimal
import functools
import logging
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any, NoReturn

from tracekit._stdio import StdoutWriteError, guard_stdout, stderr

EXIT_ERROR = 1
EXIT_USAGE = 2

RUN_USAGE = "tracekit run [PIPELINE] [options] [-- COMMAND [ARGS...]]"
RUN_DESCRIPTION = """\
Trace system calls with BPF. The pipeline file is optional: without one the defaults
apply (perf-style lines of every call on stdout), and every option below overrides the
key of the file it names. Examples:

  tracekit run -e %file -- ls                   file calls of ls, perf-trace style
  tracekit run -F strace -s 128 -o ls.txt -- ls   strace-style lines to a new 0600 file
  tracekit run -c -S calls -- make -j2          a summary only, by number of calls
  tracekit run -C -p 1234 --timeout 10          a process for 10 s: its calls, then a summary
  tracekit run pipeline.toml -Z --dump-config   the pipeline file the options make
"""


class UsageError(Exception):
    """Bad command-line usage: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (not a usage dump) that end the command with
    :class:`UsageError`: ``tracekit: error: argument -s/--string-limit: ...``."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message.replace("\n", " "))


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tracekit", description="Trace system calls with BPF.",
                allow_abbrev=False)
    from tracekit._version import __version__

    p.add_argument("--version", action="version", version=f"tracekit {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="trace a command, processes, a cgroup or the system",
                         usage=RUN_USAGE, description=RUN_DESCRIPTION,
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         allow_abbrev=False)
    run.add_argument("pipeline", type=Path, nargs="?", metavar="PIPELINE",
                     help="pipeline.toml (optional; the options override its keys)")
    _add_run_options(run)
    run.add_argument("--record", metavar="FILE",
                     help="also write a recording of the trace to FILE, for tracekit replay "
                          "(record)")
    run.add_argument("-k", dest="stacks", action="store_const", const="user",
                     help="print each call's user stack at entry, as strace -k "
                          "([output] stacks = \"user\")")
    run.add_argument("--stacks", dest="stacks", choices=("user", "kernel", "both"),
                     help="each call's stacks at entry: user, kernel or both "
                          "([output] stacks)")
    _add_unsafe_flag(run)
    run.epilog = ("Put '-- COMMAND [ARGS...]' last to trace that command ([target] command). "
                  "Exit status: the command's (128+N when signal N killed it), 0 for other "
                  "targets, 1 when tracing failed, 2 for bad usage or an invalid pipeline.")
    chk = sub.add_parser("check", help="validate a pipeline file and try what run does up to "
                                       "the attach (exit 1 when an item fails)",
                         allow_abbrev=False)
    chk.add_argument("pipeline", type=Path)
    _add_unsafe_flag(chk)
    from tracekit.app.record import add_parsers

    add_parsers(sub, targets=_add_target_options, outputs=_add_output_options,
                unsafe=_add_unsafe_flag)
    sub.add_parser("strace", add_help=False, help="strace's command line and output "
                   "(tracekit strace --help)")
    lst = sub.add_parser("list", help="list stage kinds, output formats or syscalls",
                         allow_abbrev=False)
    lst.add_argument("what", choices=["stages", "formatters", "syscalls"])
    return p


def _add_run_options(run: argparse.ArgumentParser) -> None:
    """Every option of ``tracekit run``, each naming the pipeline key it sets (the README's
    options table says the same)."""
    _add_target_options(run)
    _add_output_options(run)
    run.add_argument("--dump-config", action="store_true",
                     help="print the pipeline.toml the file and the options make, and exit "
                          "(feed it back as PIPELINE for the same trace)")


def _add_target_options(run: argparse.ArgumentParser) -> None:
    """What is traced: the target (-p -t -a -G), the selection (-e -z -Z -P) and the
    limits (``run`` and ``record``); :func:`_apply_overrides` applies them."""
    from tracekit.app.selection import add_cgroup_option, add_selection_options

    tg = run.add_argument_group("target (one of them, or -- COMMAND; replaces [target])")
    tg.add_argument("-p", "--pid", action="append", default=[], metavar="PID[,PID...]",
                    help="trace these processes, every thread ([target] pid; repeatable)")
    tg.add_argument("-t", "--tid", action="append", default=[], metavar="TID[,TID...]",
                    help="trace these threads only ([target] tid; repeatable)")
    tg.add_argument("-a", "--system-wide", action="store_true",
                    help="trace every task but tracekit ([target] system_wide = true)")
    add_cgroup_option(tg)               # -G: tracekit.app.selection
    tg.add_argument("--no-follow", action="store_true",
                    help="do not trace the children traced tasks create "
                         "([target] follow_forks = false)")
    add_selection_options(run)          # -e -z -Z -P: tracekit.app.selection
    lim = run.add_argument_group("limits")
    lim.add_argument("--min-duration", type=_min_duration_ms, metavar="MS",
                     help="only calls that took at least MS milliseconds, as perf trace "
                          "--duration ([filter] min_duration_ms)")
    lim.add_argument("--timeout", type=_positive_seconds, metavar="SECONDS",
                     help="stop after SECONDS; a command still running gets SIGTERM "
                          "(timeout_s)")
    lim.add_argument("-m", "--mmap-pages", type=mmap_pages, metavar="PAGES",
                     help="ring buffer size: 4 KiB pages, or a size such as 64M (B, K, M, "
                          "G), rounded up to a power of 2 of pages, as perf trace -m; "
                          "more loses fewer records to a busy machine (buffer_pages; "
                          "default 1024, 4 MiB)")
    lim.add_argument("--duration", action=_Renamed, nargs="?", help=argparse.SUPPRESS,
                     const="--timeout SECONDS (the time limit); --min-duration MS keeps "
                           "only calls that took that long")


def _add_output_options(run: argparse.ArgumentParser) -> None:
    """How the trace is printed (``run`` and ``replay``): :func:`_apply_output_options`."""
    from tracekit.formatters._spec import available_formats
    from tracekit.formatters.summary import GROUPS, SORTS

    out = run.add_argument_group("output (one [output] of the file, or the one the options "
                                 "make)")
    out.add_argument("-o", "--output", metavar="PATH",
                     help="write here: a new 0600 file, or - (/dev/stdout), /dev/stderr "
                          "([output] path)")
    out.add_argument("-F", "--format", choices=available_formats(),
                     help="perf, strace, jsonl, summary or openmetrics ([output] format; "
                          "default perf)")
    out.add_argument("-s", "--string-limit", type=_string_limit, metavar="BYTES",
                     help="bytes of strings and buffers shown, as strace -s "
                          "([output] string_limit; perf and strace; default 32)")
    out.add_argument("-v", "--verbose", action="store_const", const=True, default=None,
                     help="structures with every field and execve's environment as its "
                          "strings, as strace -v ([output] verbose; perf, strace and jsonl)")
    out.add_argument("-c", "--summary", action="store_true",
                     help="a summary of the calls instead of the trace, as strace -c "
                          "(format = \"summary\")")
    out.add_argument("-C", "--summary-too", action="store_true",
                     help="the trace and a summary of it, as strace -C and perf trace -S: "
                          "the summary is a second [[output]] (format = \"summary\"): after "
                          "the trace on stdout, or on stderr when -o writes the trace elsewhere")
    out.add_argument("-S", "--sort", choices=SORTS,
                     help="order of a summary's rows ([output] sort; default total time)")
    out.add_argument("--group-by", choices=GROUPS,
                     help="a summary per thread, per process or in total "
                          "([output] group_by; default thread)")
    out.add_argument("--interval", type=_interval_seconds, metavar="SECONDS",
                     help="while tracing, print a summary report every SECONDS "
                          "([output] interval_s)")
    out.add_argument("--interval-report", choices=("change", "total"),
                     help="each report holds the calls since the previous one (change, the "
                          "default) or every call so far ([output] interval_report)")


class _Renamed(argparse.Action):
    """An option that was renamed: using it is a usage error naming the new one."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error(f"{option_string} was renamed {self.const}")


def _add_unsafe_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-unsafe-config", action="store_true",
                   help="as root, accept a pipeline file (or its directory) that another "
                        "user owns or that group/others can write")


def check_config_safety(path: Path, *, euid: int | None = None) -> None:
    """As root, refuse a pipeline file that someone else could have written.

    A pipeline file names a command tracekit starts and user stages it imports, so as
    root it is code run as root: the file and its directory must be owned by root (or
    the effective user) and not writable by group or others (a sticky directory such as
    /tmp may be world-writable: others cannot replace a file they do not own there).
    Symlinks are followed, as when the file is read. Not root: nothing to check.

    Args:
      path: the pipeline file.
      euid: the effective uid to check for (default ``os.geteuid()``).

    Raises:
      ConfigError: what is unsafe and how to fix it (or ``--allow-unsafe-config``).
    """
    from tracekit._errors import ConfigError

    euid = os.geteuid() if euid is None else euid
    if euid != 0:
        return
    try:
        real = path.resolve(strict=True)
        st_file = os.stat(real)
        st_dir = os.stat(real.parent)
    except OSError:
        return  # missing or unreadable: load_config says so, with the path
    problems = []
    for what, where, st, sticky_ok in (("file", real, st_file, False),
                                       ("directory", real.parent, st_dir, True)):
        if st.st_uid not in (0, euid):
            problems.append(f"{what} {str(where)!r} is owned by uid {st.st_uid}")
        writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if writable and not (sticky_ok and st.st_mode & stat.S_ISVTX):
            who = "group and others" if writable == stat.S_IWGRP | stat.S_IWOTH else \
                ("group" if writable == stat.S_IWGRP else "others")
            problems.append(f"{what} {str(where)!r} is writable by {who} "
                            f"(mode {stat.S_IMODE(st.st_mode):04o})")
    if problems:
        raise ConfigError(
            f"{path}: refusing an unsafe pipeline file as root: {'; '.join(problems)}. "
            "A pipeline names a command to run and user stages to import, as root; "
            "chown root and chmod go-w it, or pass --allow-unsafe-config")


def _number(text: str, what: str, lo: float, hi: float, *, integer: bool = False,
            strict_lo: bool = False) -> float:
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    low_ok = value > lo if strict_lo else value >= lo
    if not (low_ok and value <= hi):     # also rejects nan and inf
        bound = f"> {_plain(lo)}" if strict_lo else f"{_plain(lo)} or more"
        raise argparse.ArgumentTypeError(f"{text!r}: give {what}, {bound} and at most "
                                         f"{_plain(hi)}")
    return value


def _plain(bound: float) -> str:
    """A bound as a person writes it: ``1000000000``, ``1048576``, ``0.001`` (``:g`` gave
    ``1e+09`` and ``1.04858e+06``, which is not even the bound)."""
    if bound == int(bound):
        return str(int(bound))
    return format(decimal.Decimal(repr(float(bound))), "f")


def _positive_seconds(text: str) -> float:
    return _number(text, "a number of seconds", 0, 10**9, strict_lo=True)


def _interval_seconds(text: str) -> float:
    return _number(text, "a number of seconds", 0.001, 86_400)


def _min_duration_ms(text: str) -> float:
    return _number(text, "a number of milliseconds", 0, 86_400_000)


#: the largest ring buffer: the config's bound on buffer_pages (2 GiB)
_MAX_RING_PAGES = 1 << 19
_SIZE_UNITS = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def mmap_pages(text: str) -> int:
    """``-m``/``--mmap-pages`` as perf trace reads it: a number of 4 KiB pages, or a size
    with a unit (B, K, M or G: ``64M``), rounded up to a power of 2 of pages.

    Raises:
      argparse.ArgumentTypeError: not a number or size, 0, or above 2 GiB.
    """
    t = text.strip()
    unit = _SIZE_UNITS.get(t[-1:].upper()) if t else None
    digits = t[:-1] if unit is not None else t
    if not _digits(digits):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of pages or a size (such as 1024 or 64M)")
    pages = int(digits) if unit is None else -(-int(digits) * unit // 4096)
    if not 0 < pages <= _MAX_RING_PAGES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give 1 to {_MAX_RING_PAGES} pages (4 KiB to 2 GiB)")
    return 1 << (pages - 1).bit_length()


def _string_limit(text: str) -> int:
    return int(_number(text, "a number of bytes", 0, 1 << 20, integer=True))


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes '²' and '١', which int() then refuses
    or reads (strace's strtol takes neither)."""
    return text.isascii() and text.isdigit()


def _parse_ids(values: list[str], option: str, what: str) -> list[int]:
    from tracekit._errors import ConfigError

    ids: list[int] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if not _digits(part) or not 0 < int(part) < 2**31:
                raise ConfigError(f"{option}: {part!r} is not a {what} (1 to 2147483647)")
            ids.append(int(part))
    return ids


def _parse_pids(values: list[str]) -> list[int]:
    return _parse_ids(values, "--pid", "process id")


#: the options that choose a target, as messages name them
def _targets_given(args: argparse.Namespace) -> list[str]:
    return [name for name, on in (("-- COMMAND", bool(args.command)), ("-p", bool(args.pid)),
                                  ("-t", bool(args.tid)), ("-a", args.system_wide),
                                  ("-G", args.cgroup is not None)) if on]


def _apply_overrides(cfg: Any, args: argparse.Namespace, *, outputs: bool = True) -> Any:
    """``cfg`` with every key the command-line options set (each replaces the file's key);
    with ``outputs`` False only the target, selection and limit options (``record``).

    Raises:
      ConfigError: an option that contradicts another, or that no output of the run
        would use (the message names the option and what is wrong).
    """
    import msgspec

    from tracekit._errors import ConfigError
    from tracekit.app.selection import selection_keys

    replace = msgspec.structs.replace
    chosen = _targets_given(args)
    if len(chosen) > 1:
        raise ConfigError(f"give one target: got {' and '.join(chosen)}; keep one")
    keys = selection_keys(args)
    target = cfg.target
    if chosen:
        target = replace(target, command=None, pid=[], tid=[], system_wide=False,
                         cgroup=None)
        if args.command:
            target = replace(target, command=list(args.command))
        elif args.pid:
            target = replace(target, pid=_parse_pids(args.pid))
        elif args.tid:
            target = replace(target, tid=_parse_ids(args.tid, "--tid", "thread id"))
        elif args.system_wide:
            target = replace(target, system_wide=True)
        else:
            target = replace(target, **keys["target"])
    if args.no_follow:
        target = replace(target, follow_forks=False)
    filt = replace(cfg.filter, **keys.get("filter", {}))
    if args.min_duration is not None:
        filt = replace(filt, min_duration_ms=args.min_duration)
    timeout = args.timeout if args.timeout is not None else cfg.timeout_s
    cfg = replace(cfg, target=target, filter=filt, timeout_s=timeout)
    if args.mmap_pages is not None:
        cfg = replace(cfg, buffer_pages=args.mmap_pages)
    return _apply_output_options(cfg, args) if outputs else cfg


def _apply_output_options(cfg: Any, args: argparse.Namespace) -> Any:
    """The output options: -F, -c, -o, -C change the one output; -s the outputs that print
    strings; -S, --group-by, --interval, --interval-report the summaries."""
    import msgspec

    from tracekit._errors import ConfigError
    from tracekit.app.config import (
        OutputConfig,
        field_default,
        foreign_key_message,
        output_name,
    )
    from tracekit.formatters._output import std_stream_of
    from tracekit.formatters._spec import format_spec, formats_taking

    replace = msgspec.structs.replace
    outs = list(cfg.outputs)
    one = [opt for opt, on in (("-o", args.output is not None), ("-F", args.format),
                               ("-c", args.summary), ("-C", args.summary_too)) if on]
    if one and len(outs) > 1:
        raise ConfigError(f"{one[0]}: the pipeline file has {len(outs)} [[output]] tables "
                          f"and {one[0]} changes one output; set it in the file")
    if args.summary and args.summary_too:
        raise ConfigError("-c prints only a summary and -C a trace and a summary: give one")
    if args.summary and args.format not in (None, "summary"):
        raise ConfigError(f"-c prints only a summary: it cannot go with -F {args.format}")
    format_by = None
    if args.format or args.summary:
        fmt = "summary" if args.summary else args.format
        format_by = "-c" if args.summary else f"-F {fmt}"
        outs[0] = replace(outs[0], format=fmt)
    if args.output is not None:
        if not args.output or "\0" in args.output:
            raise ConfigError("-o: give a file path, or - for standard output")
        outs[0] = replace(outs[0], path=args.output)
    if args.summary_too:
        if outs[0].format == "summary":
            raise ConfigError(f"-C adds a summary to a trace, but the output is a summary "
                              f"already{' (' + format_by + ')' if format_by else ''}: use "
                              "-c for a summary only")
        # as strace -C: on the trace's stream when that is stdout or stderr, else stderr
        std = std_stream_of(outs[0].path)
        outs.append(OutputConfig(format="summary", path="-" if std == 1 else "/dev/stderr"))
    for opt, key, value in (("-s", "string_limit", args.string_limit),
                            ("-v", "verbose", getattr(args, "verbose", None)),
                            ("-S", "sort", args.sort), ("--group-by", "group_by", args.group_by),
                            ("--interval", "interval_s", args.interval),
                            ("--interval-report", "interval_report", args.interval_report),
                            ("-k/--stacks", "stacks", getattr(args, "stacks", None))):
        if value is None:
            continue
        takers = formats_taking(key)
        hit = [i for i, o in enumerate(outs) if o.format in takers]
        if not hit:
            which = " and ".join(f'"{f}"' for f in takers)
            have = ", ".join(sorted({f'"{o.format}"' for o in outs}))
            hint = " (give -c or -C for a summary)" if takers == ["summary"] else ""
            raise ConfigError(f"{opt}: no output takes it: it sets {key} of format {which}, "
                              f"and the output is format {have}{hint}")
        for i in hit:
            outs[i] = replace(outs[i], **{key: value})
    listed = isinstance(cfg.output, list) or len(outs) > 1
    cfg = replace(cfg, output=outs if listed else outs[0])
    # a key of the file that the chosen format would ignore: the user meant something
    for i, o in enumerate(cfg.outputs):
        taken = {"format", "path", *format_spec(o.format).options.__struct_fields__}
        for f in msgspec.structs.fields(o):
            if f.name not in taken and getattr(o, f.name) != field_default(f):
                said = f" (format set by {format_by})" if format_by and i == 0 else ""
                raise ConfigError(foreign_key_message(output_name(cfg, i), o.format, f.name)
                                  + said)
    return cfg


def _readiness() -> list[tuple[str, bool, str]]:
    """(check, ok, detail) for BTF, tracefs, privileges."""
    from tracekit.app.privileges import capability_check, tracefs_check

    checks: list[tuple[str, bool, str]] = []
    btf = Path("/sys/kernel/btf/vmlinux")
    checks.append(("BTF", btf.exists(), str(btf) if btf.exists()
                   else "missing: the kernel needs CONFIG_DEBUG_INFO_BTF=y"))
    checks.append(tracefs_check())
    checks.append(capability_check())
    return checks


def _cmd_check(args: argparse.Namespace) -> int:
    """Each item of tracekit.app.check, one line each; 1 when any failed."""
    from tracekit.app.check import CheckItem, run_checks
    from tracekit.app.config import load_config

    cfg = load_config(args.pipeline)
    print(f"{args.pipeline}: ok", flush=True)

    def readiness() -> list[CheckItem]:
        return [CheckItem(*c) for c in _readiness()]

    def say(line: str) -> None:
        print(f"  {_printable(line)}", flush=True)

    ok = True
    for item in run_checks(cfg, args.pipeline, readiness=readiness, say=say):
        # a detail may quote a path or a message of a user stage: escaped
        print(f"  {item.name:<11} {'ok' if item.ok else 'FAILED':<8} "
              f"{_printable(item.detail)}", flush=True)
        ok &= item.ok
    return 0 if ok else EXIT_ERROR


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tracekit`` command; returns the exit status (see module doc).

    Args:
      argv: arguments without the program name; None (the program): ``sys.argv[1:]``.
        As the program, SIGINT is ignored once the status is known, so a late Ctrl-C
        cannot print a traceback while the interpreter shuts down.
    """
    program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if program:
        _hold_closed_std_fds()
        guard_stdout()
    try:
        status = _main(argv)
    except KeyboardInterrupt:  # during the imports, or between trio's handling and here
        status = 128 + signal.SIGINT
    except StdoutWriteError as e:   # a write outside the handling of _main (strace --help)
        status = _stdout_failed(e, argv)
    except SystemExit as e:     # argparse's --help and --version: what they print is
        if not program:         # flushed below, where a failure is said
            raise
        if e.code is None or isinstance(e.code, int):
            status = e.code or 0
        else:                   # sys.exit("text") (a module a pipeline imports): as Python
            print(e.code, file=stderr())
            status = 1
    except BrokenPipeError:  # `tracekit list syscalls | head`: the reader has enough
        # (`run` ends with 141 through its sink; this is list's and check's own output);
        # any other pipe is a bug, not a reason to end with 0
        from tracekit.formatters._output import reader_gone

        if not reader_gone(sys.stdout):
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    finally:
        if program:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    if program and sys.stdout is not None:
        # what is still buffered (--help, --version, the end of a listing) fails here
        # (>/dev/full): said, and the status says it too, as coreutils' close_stdout
        try:
            sys.stdout.flush()
        except StdoutWriteError as e:
            status = _stdout_failed(e, argv) if status == 0 else status
        except BrokenPipeError:
            from tracekit.formatters._output import reader_closed

            reader_closed(sys.stdout)
    if program and sys.getprofile() is None and sys.gettrace() is None:
        _exit(status)       # (under a profiler or tracer, let it write its data at exit)
    return status


def _stdout_failed(e: OSError, argv: list[str]) -> int:
    """Say in one line that a write to standard output failed; the exit status (1)."""
    prefix = "tracekit strace:" if argv[:1] == ["strace"] else "tracekit: error:"
    if sys.stderr is not None:
        try:
            print(f"{prefix} {e}", file=stderr(), flush=True)
        except OSError:
            pass        # stderr is full too: the status is all that is left to say it
    return EXIT_ERROR


def sigint_raises() -> None:
    """From here on, SIGINT raises ``KeyboardInterrupt`` (which a trio run turns into the
    clean end of its tasks, and :func:`main` into status 130) instead of ending the
    process at once, as the entry point (tracekit._entry) set it to while the modules
    were imported: for work whose output must end with what it has (a replay). A SIGINT
    ignored when tracekit started stays ignored; from a thread other than the main one,
    or when SIGINT is already so, nothing changes."""
    current = signal.getsignal(signal.SIGINT)
    if current in (signal.SIG_IGN, signal.default_int_handler):
        return
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:      # not the main thread
        pass


def _exit(status: int) -> None:
    """End the process now: atexit handlers run (logging's flush among them) and stdout
    and stderr are flushed, but the interpreter's teardown of every module (20-25 ms
    after trio is imported, a tenth of a start-up) is skipped: nothing of tracekit's
    needs it, every kernel object is owned by an fd the kernel closes."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):   # a reader gone, a stream closed: nothing to flush
            pass
    os._exit(status)


def _hold_closed_std_fds() -> None:
    """Put /dev/null, close-on-exec, on each of fds 0, 1, 2 that was closed at start.

    Started with ``>&-`` (or ``2>&-``), the next file tracekit opens would get fd 1 (or
    2): the traced command would inherit the trace file as its stdout and a late
    ``print`` would write into it. The placeholder keeps those numbers taken; close-on-
    exec closes it again in the command, which so starts with the same closed fds it
    would have without tracekit. ``sys.stdout``/``sys.stderr`` stay None, as Python set
    them: what tracekit prints there is dropped, and ``-o -`` is refused.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
            if held != fd:      # a lower fd was free too: cannot happen in this order
                os.dup2(held, fd, inheritable=False)
                os.close(held)


def _main(argv: list[str]) -> int:
    handler = logging.StreamHandler()
    handler.setFormatter(_EscapingFormatter("tracekit: %(message)s"))
    logging.basicConfig(handlers=[handler], level=logging.WARNING)
    if argv[:1] == ["strace"]:  # strace's own command line: its parser, not argparse
        from tracekit.app.strace_cli import main as strace_main

        return strace_main(argv[1:])
    if argv == ["--version"]:
        # argparse's text without building the parser (its output options import every
        # output format, trio among them: most of the 0.4 s this took)
        from tracekit._version import __version__

        print(f"tracekit {__version__}")
        return 0
    command: list[str] = []
    if "--" in argv:  # everything after "--" is the workload, untouched by argparse
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1:]
    try:
        try:
            args = _parser().parse_args(argv)
        except UsageError as usage:
            raise _command_without_dashes(argv, command) or usage from None
        if command and args.cmd not in ("run", "record"):
            raise UsageError("'-- COMMAND' goes with 'run' or 'record'")
    except UsageError as usage:
        print(f"tracekit: error: {_one_line(str(usage))}", file=stderr())
        return EXIT_USAGE
    args.command = command
    from tracekit._errors import ConfigError, TracekitError

    try:
        if sys.stdout is None and args.cmd in _PRINTS_TO_STDOUT:
            raise ConfigError(f"standard output is closed (EBADF): nowhere to print what "
                              f"'tracekit {args.cmd}' says")
        if getattr(args, "pipeline", None) is not None and not args.allow_unsafe_config:
            check_config_safety(args.pipeline)
        return _COMMANDS[args.cmd](args)
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except BaseException as exc:  # report TracekitErrors once; anything else is a bug: re-raise
        errors = _leaves(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in errors):
            return 128 + signal.SIGINT  # a signal trio re-delivered while it was closing down
        from tracekit._errors import out_of_fds

        fds = out_of_fds(errors)
        if fds is not None:             # wherever it ran out: one line, the cause
            print(f"tracekit: error: {fds}", file=stderr())
            return EXIT_ERROR
        if not all(isinstance(e, TracekitError) for e in errors):
            raise
        for e in errors:
            notes = "".join(f" ({n})" for n in getattr(e, "__notes__", []))
            inner = _output_error_of(e)
            if inner is not None:
                # an output's own error names its path and errno; the pipeline's words
                # around it ("sink 'perf' failed: TracekitError:") add nothing for a user
                e, notes = inner, ""

            # a message may quote what a user stage or a traced process chose: escaped,
            # so it cannot send control sequences to the terminal; bad input is said in
            # one line, whatever newline the input held (a verifier log is lines)
            text = f"{e}{notes}"
            print(f"tracekit: error: "
                  f"{_one_line(text) if isinstance(e, ConfigError) else _printable(text)}",
                  file=stderr())
        return EXIT_USAGE if any(isinstance(e, ConfigError) for e in errors) else EXIT_ERROR


def _output_error_of(e: BaseException) -> BaseException | None:
    """The error of the one sink that failed with a TracekitError of its own (a write to
    its output: ENOSPC, EFBIG ...), or of a replay's source that found a damaged frame
    (a RecordingError naming the file and the frame's offset), else None."""
    from tracekit._errors import PipelineError, RecordingError, TracekitError

    if isinstance(e, PipelineError) and len(e.errors) == 1 and (
            (e.role == "sink" and isinstance(e.errors[0][1], TracekitError))
            or (e.role == "source" and isinstance(e.errors[0][1], RecordingError))):
        return e.errors[0][1]
    return None


def _cmd_run(args: argparse.Namespace) -> int:
    import trio

    from tracekit._errors import ConfigError
    from tracekit.app.config import (
        PipelineConfig,
        check_outputs,
        check_target,
        dump_config,
        load_config,
    )
    from tracekit.app.inputs import check_output_not_input, run_inputs
    from tracekit.app.run import run_pipeline_file
    from tracekit.app.selection import check_format_keys, session_selection

    if args.pipeline is None:
        cfg = PipelineConfig()
    else:
        _refuse_command_as_pipeline(args.pipeline, args)
        cfg = load_config(args.pipeline, need_target=not _targets_given(args))
    cfg = _apply_overrides(cfg, args)
    check_target(cfg.target)
    check_outputs(cfg)
    check_format_keys(cfg)
    session_selection(cfg.filter, cfg.target)
    if args.dump_config:
        if sys.stdout is None:      # started with fd 1 closed: whatever -o says
            raise ConfigError("standard output is closed (EBADF): nowhere to print what "
                              "'tracekit run --dump-config' says")
        sys.stdout.write(dump_config(cfg, header=_DUMP_HEADER))
        sys.stdout.flush()
        return 0
    inputs = run_inputs(args.pipeline, cfg.target.command)
    for o in cfg.outputs:
        check_output_not_input(o.path, inputs)
    record = args.record if args.record is not None else cfg.record
    if record is not None:
        check_output_not_input(record, inputs + [("output", o.path) for o in cfg.outputs])
    return trio.run(functools.partial(run_pipeline_file, record=record), cfg,
                    args.pipeline or Path("<command line>"))


_DUMP_HEADER = """\
# The pipeline that `tracekit run --dump-config` was given (file and options); keys at
# their defaults are left out. Run it with: tracekit run THIS_FILE"""


def _command_without_dashes(argv: list[str], command: list[str]) -> UsageError | None:
    """``tracekit run sleep 3``, as ``perf trace sleep 3`` is typed: argparse takes
    ``sleep`` for the pipeline file and says only ``unrecognized arguments: 3``. When the
    pipeline named is no file and looks like a command, the error says how to trace it."""
    try:
        args, extra = _parser().parse_known_args(argv)
    except UsageError:
        return None
    path = getattr(args, "pipeline", None)
    if (args.cmd not in ("run", "record") or path is None or not extra or command
            or path.suffix or os.path.lexists(path)):
        return None
    import shlex

    rest = list(argv)
    try:
        rest.remove(str(path))
        for token in extra:
            rest.remove(token)
    except ValueError:      # spelt otherwise on the command line (./sleep): no hint
        return None
    fixed = " ".join(shlex.quote(a) for a in [*rest, "--", str(path), *extra])
    return UsageError(f"unrecognized arguments: {' '.join(extra)}; to trace a command, "
                      f"put it after --: tracekit {fixed}")


def _refuse_command_as_pipeline(path: Path, args: argparse.Namespace) -> None:
    """``tracekit run ls`` (or ``record ls``): a pipeline file that is not there, named
    like a command."""
    from tracekit._errors import ConfigError

    if path.suffix or os.path.lexists(path) or args.command:
        return
    raise ConfigError(f"{path}: no such pipeline file (ENOENT); to trace a command, put it "
                      f"after --: tracekit {args.cmd} -- {path}")


# Subcommand -> handler(args) -> exit status. A new subcommand: a parser in _parser()
# and an entry here (a command that reads a pipeline file gets the root safety check
# when its parser has a "pipeline" argument and _add_unsafe_flag).
def _cmd_list(args: argparse.Namespace) -> int:
    from tracekit.app.listing import list_text

    sys.stdout.write(list_text(args.what))
    sys.stdout.flush()
    return 0


def _cmd_record(args: argparse.Namespace) -> int:
    from tracekit.app.record import cmd_record

    return cmd_record(args)


def _cmd_replay(args: argparse.Namespace) -> int:
    from tracekit.app.record import cmd_replay

    return cmd_replay(args)


_COMMANDS = {"run": _cmd_run, "check": _cmd_check, "list": _cmd_list,
             "record": _cmd_record, "replay": _cmd_replay}
#: subcommands whose whole answer goes to stdout (run's output may go to a file)
_PRINTS_TO_STDOUT = frozenset({"check", "list"})


def _printable(text: str) -> str:
    """``text`` with control characters but newline and tab as ``\\xNN`` escapes, and
    the bytes of a name that are not UTF-8 (surrogateescape's U+DC80..U+DCFF) as the byte
    (``\\xff``), as :func:`tracekit._errors.quoted` writes them."""
    return "".join(c if c.isprintable() or c in "\n\t" else f"\\x{ord(c):02x}"
                   if ord(c) < 0x100 else f"\\x{ord(c) - 0xDC00:02x}"
                   if 0xDC80 <= ord(c) <= 0xDCFF else f"\\u{ord(c):04x}" for c in text)


def _one_line(text: str) -> str:
    """:func:`_printable` with newlines escaped too: a message about bad input (an option
    value, a user name, a path) stays one line whatever the input held."""
    return _printable(text).replace("\n", "\\n")


class _EscapingFormatter(logging.Formatter):
    """Log lines whose message is :func:`_printable` with newlines escaped too: a stage
    may log what a traced process chose (a comm, a path), which must neither send
    control sequences to the terminal nor forge a line of its own."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        record.message = _printable(record.message).replace("\n", "\\n")
        return super().formatMessage(record)


def _leaves(exc: BaseException) -> list[BaseException]:
    """What ``exc`` stands for (:func:`tracekit._errors.leaves`); a wrapper whose cause is a
    TracekitError stands for the cause."""
    from tracekit._errors import TracekitError, leaves

    return [e.__cause__ if not isinstance(e, TracekitError)
            and isinstance(e.__cause__, TracekitError) else e for e in leaves(exc)]


if __name__ == "__main__":
    sys.exit(main())
