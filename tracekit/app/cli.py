"""``tracekit run pipeline.toml`` and ``tracekit check pipeline.toml``.

Exit status of ``check``: 0 when every item is ok, 1 when any failed, 2 for an invalid
pipeline file (tracekit.app.check). Exit status of ``run`` (documented in the README,
"Using it"):
  - with a command target: the workload's exit status, or 128+N when a signal N killed it;
  - otherwise 0 when the session ended normally (targets gone, duration, SIGINT/SIGTERM);
  - 1: tracing failed (a kernel call, a stage): the message names the errno and the stage;
  - 2: bad usage or an invalid (or, as root, unsafe) pipeline file: one message;
  - 128+N: signal N arrived while tracekit was starting (130 for SIGINT, no traceback);
  - 141: the reader of the output went away.

Signals before the trace starts: this module imports only the standard library at the
top; ``main`` imports the rest inside its ``try``, so a SIGINT during those imports is
a KeyboardInterrupt caught there (exit 130). SIGTERM and SIGHUP keep their default
action until the runner's signal watcher takes them over (the process dies of the
signal: no traceback, the shell shows 128+N).
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any

EXIT_ERROR = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tracekit", description="Trace system calls with BPF.")
    from tracekit._version import __version__

    p.add_argument("--version", action="version", version=f"tracekit {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="trace as a pipeline file says")
    run.add_argument("pipeline", type=Path, help="pipeline.toml")
    run.add_argument("-p", "--pid", action="append", default=[],
                     help="trace these processes instead (comma-separated pids, repeatable)")
    run.add_argument("-o", "--output", help="write events here instead of [output].path")
    run.add_argument("--duration", type=_positive_seconds, metavar="SECONDS",
                     help="stop after SECONDS (> 0)")
    run.add_argument("--record", metavar="FILE",
                     help="also write a recording of the trace to FILE (tracekit replay)")
    # stacks (issue 18): a minimal local addition; sets [output] stacks
    run.add_argument("-k", dest="stacks", action="store_const", const="user",
                     help="print each call's user stack at entry, as strace -k "
                          "(sets [output] stacks = \"user\")")
    run.add_argument("--stacks", dest="stacks", choices=("user", "kernel", "both"),
                     help="each call's stacks at entry: user, kernel or both "
                          "(sets [output] stacks)")
    _add_selection_options(run)
    _add_unsafe_flag(run)
    run.epilog = "Put '-- COMMAND [ARGS...]' last to trace that command instead."
    chk = sub.add_parser("check", help="validate a pipeline file and try what run does up to "
                                       "the attach (exit 1 when an item fails)")
    chk.add_argument("pipeline", type=Path)
    _add_unsafe_flag(chk)
    from tracekit.app.record import add_parsers

    add_parsers(sub, _add_common)
    lst = sub.add_parser("list", help="list stage kinds, output formats or syscalls")
    lst.add_argument("what", choices=["stages", "formatters", "syscalls"])
    return p


def _add_selection_options(p: argparse.ArgumentParser) -> None:
    """-e/-z/-Z/-P/-G (tracekit.app.selection); :func:`_apply_selection` applies them."""
    from tracekit.app.selection import add_selection_options

    add_selection_options(p)


def _apply_selection(cfg: Any, args: argparse.Namespace) -> Any:
    """``cfg`` with the [filter]/[target] keys the selection options set
    (:func:`tracekit.app.selection.selection_keys`): each replaces the file's key; -G
    replaces the file's target."""
    import msgspec

    from tracekit._errors import ConfigError
    from tracekit.app.selection import selection_keys

    keys = selection_keys(args)
    if "filter" in keys:
        cfg = msgspec.structs.replace(
            cfg, filter=msgspec.structs.replace(cfg.filter, **keys["filter"]))
    if "target" in keys:
        if args.command or args.pid:
            raise ConfigError("give one of -G CGROUP, -p PID or -- COMMAND, not several")
        cfg = msgspec.structs.replace(cfg, target=msgspec.structs.replace(
            cfg.target, command=None, pid=[], tid=[], system_wide=False,
            **keys["target"]))
    return cfg


def _add_common(p: argparse.ArgumentParser, *, selection: bool) -> None:
    """The selection options (when ``selection``) and ``--allow-unsafe-config``."""
    if selection:
        _add_selection_options(p)
    _add_unsafe_flag(p)


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


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 10**9:  # also rejects nan and inf
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive, finite number of seconds")
    return value


def _parse_pids(values: list[str]) -> list[int]:
    from tracekit._errors import ConfigError

    pids: list[int] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if not part.isdigit() or not 0 < int(part) < 2**31:
                raise ConfigError(f"--pid: {part!r} is not a process id (1 to 2147483647)")
            pids.append(int(part))
    return pids


def _apply_overrides(cfg: Any, args: argparse.Namespace) -> Any:
    import msgspec

    from tracekit._errors import ConfigError

    target = cfg.target
    command = args.command
    if command and args.pid:
        raise ConfigError("give either -p PID or -- COMMAND, not both")
    if command:
        target = msgspec.structs.replace(target, command=command, pid=[], tid=[],
                                         system_wide=False, cgroup=None)
    elif args.pid:
        target = msgspec.structs.replace(target, command=None, pid=_parse_pids(args.pid),
                                         tid=[], system_wide=False, cgroup=None)
    output = cfg.output
    if args.output is not None:         # -o '' is an empty path (an error), not "unset"
        output = msgspec.structs.replace(output, path=args.output)
    if getattr(args, "stacks", None) is not None:
        output = msgspec.structs.replace(output, stacks=args.stacks)
    duration = args.duration if args.duration is not None else cfg.duration_s
    return msgspec.structs.replace(cfg, target=target, output=output, duration_s=duration)


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
    if program:
        _hold_closed_std_fds()
    try:
        return _main(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:  # during the imports, or between trio's handling and here
        return 128 + signal.SIGINT
    except BrokenPipeError:  # `tracekit list syscalls | head`: the reader has enough
        # (`run` ends with 141 through its sink; this is list's and check's own output)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        if program:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    command: list[str] = []
    if "--" in argv:  # everything after "--" is the workload, untouched by argparse
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1:]
    args = _parser().parse_args(argv)
    args.command = command
    if command and args.cmd not in ("run", "record"):
        _parser().error("'-- COMMAND' goes with 'run' or 'record'")
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
        if not all(isinstance(e, TracekitError) for e in errors):
            raise
        for e in errors:
            notes = "".join(f" ({n})" for n in getattr(e, "__notes__", []))
            # a message may quote what a user stage or a traced process chose: escaped,
            # so it cannot send control sequences to the terminal
            print(f"tracekit: error: {_printable(f'{e}{notes}')}", file=sys.stderr)
        return EXIT_USAGE if any(isinstance(e, ConfigError) for e in errors) else EXIT_ERROR


def _cmd_run(args: argparse.Namespace) -> int:
    import trio

    from tracekit.app.config import load_config
    from tracekit.app.inputs import check_output_not_input, run_inputs
    from tracekit.app.run import run_pipeline_file

    cfg = _apply_selection(_apply_overrides(load_config(args.pipeline), args), args)
    check_output_not_input(cfg.output.path, run_inputs(args.pipeline, cfg.target.command))
    if args.record is not None:
        check_output_not_input(args.record, run_inputs(args.pipeline, cfg.target.command)
                               + [("output", cfg.output.path)])
    return trio.run(functools.partial(run_pipeline_file, record=args.record), cfg,
                    args.pipeline)


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
    """``text`` with control characters but newline and tab as ``\\xNN`` escapes."""
    return "".join(c if c.isprintable() or c in "\n\t" else f"\\x{ord(c):02x}"
                   if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in text)


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
