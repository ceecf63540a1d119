"""``tracekit run pipeline.toml`` and ``tracekit check pipeline.toml``.

Exit status (documented in the README):
  - with a command target: the workload's exit status, or 128+N when a signal N killed it;
  - otherwise 0 when the session ended normally (targets gone, duration, SIGINT/SIGTERM);
  - 1: tracing failed (a kernel call, a stage): the message names the errno and the stage;
  - 2: bad usage or an invalid pipeline file (the message names file:line:column).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

import trio

import tracekit
from tracekit._errors import ConfigError, TracekitError

EXIT_ERROR = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tracekit", description="Trace system calls with BPF.")
    p.add_argument("--version", action="version", version=f"tracekit {tracekit.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="trace as a pipeline file says")
    run.add_argument("pipeline", type=Path, help="pipeline.toml")
    run.add_argument("-p", "--pid", action="append", default=[],
                     help="trace these processes instead (comma-separated pids, repeatable)")
    run.add_argument("-o", "--output", help="write events here instead of [output].path")
    run.add_argument("--duration", type=_positive_seconds, metavar="SECONDS",
                     help="stop after SECONDS (> 0)")
    run.epilog = "Put '-- COMMAND [ARGS...]' last to trace that command instead."
    chk = sub.add_parser("check", help="validate a pipeline file and report kernel readiness")
    chk.add_argument("pipeline", type=Path)
    return p


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 10**9:  # also rejects nan and inf
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive, finite number of seconds")
    return value


def _parse_pids(values: list[str]) -> list[int]:
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

    target = cfg.target
    command = args.command
    if command and args.pid:
        raise ConfigError("give either -p PID or -- COMMAND, not both")
    if command:
        target = msgspec.structs.replace(target, command=command, pid=[], tid=[],
                                         system_wide=False)
    elif args.pid:
        target = msgspec.structs.replace(target, command=None, pid=_parse_pids(args.pid),
                                         tid=[], system_wide=False)
    output = cfg.output
    if args.output:
        output = msgspec.structs.replace(output, path=args.output)
    duration = args.duration if args.duration is not None else cfg.duration_s
    return msgspec.structs.replace(cfg, target=target, output=output, duration_s=duration)


def _readiness() -> list[tuple[str, bool, str]]:
    """(check, ok, detail) for BTF, tracefs, privileges."""
    from tracekit._tracefs import find_tracefs

    checks: list[tuple[str, bool, str]] = []
    btf = Path("/sys/kernel/btf/vmlinux")
    checks.append(("BTF", btf.exists(), str(btf) if btf.exists()
                   else "missing: the kernel needs CONFIG_DEBUG_INFO_BTF=y"))
    try:
        root = find_tracefs(mount_if_missing=False)
        checks.append(("tracefs", True, str(root)))
    except TracekitError as e:
        checks.append(("tracefs", False, f"{e} (tracekit mounts it when run as root)"))
    root_ok = os.geteuid() == 0
    checks.append(("privileges", root_ok, "root" if root_ok
                   else "not root: needs CAP_BPF and CAP_PERFMON (or run as root)"))
    return checks


def _cmd_check(args: argparse.Namespace) -> int:
    from tracekit._config import load_config
    from tracekit._filter import resolve_syscalls
    from tracekit._stages import available_formats, build_stages
    from tracekit._syscalls import SyscallTable

    cfg = load_config(args.pipeline)
    if cfg.filter.syscalls:
        resolve_syscalls(cfg.filter.syscalls, SyscallTable(), where=str(args.pipeline))
    build_stages(cfg.stage)
    if cfg.output.format not in available_formats():
        raise ConfigError(f"[output] format {cfg.output.format!r} is not available in this "
                          f"version (available: {', '.join(available_formats())})")
    print(f"{args.pipeline}: ok")
    ok = True
    for name, good, detail in _readiness():
        print(f"  {name:<11} {'ok' if good else 'MISSING':<8} {detail}")
        ok &= good
    return 0 if ok else EXIT_ERROR


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tracekit`` command; returns the exit status (see module doc)."""
    logging.basicConfig(format="tracekit: %(message)s", level=logging.WARNING)
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:  # everything after "--" is the workload, untouched by argparse
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1:]
    args = _parser().parse_args(argv)
    args.command = command
    if command and args.cmd != "run":
        _parser().error("'-- COMMAND' goes with 'run'")
    try:
        if args.cmd == "check":
            return _cmd_check(args)
        from tracekit._config import load_config
        cfg = _apply_overrides(load_config(args.pipeline), args)
        from tracekit._runner import run_pipeline_file
        return trio.run(run_pipeline_file, cfg, args.pipeline)
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # report TracekitErrors once; anything else is a bug: re-raise
        errors = _leaves(exc)
        if any(isinstance(e, KeyboardInterrupt) for e in errors):
            return 130  # a signal trio re-delivered while it was closing down
        if not all(isinstance(e, TracekitError) for e in errors):
            raise
        for e in errors:
            notes = "".join(f" ({n})" for n in getattr(e, "__notes__", []))
            print(f"tracekit: error: {e}{notes}", file=sys.stderr)
        return EXIT_USAGE if any(isinstance(e, ConfigError) for e in errors) else EXIT_ERROR


def _leaves(exc: BaseException) -> list[BaseException]:
    """Flatten exception groups; a wrapper whose cause is a TracekitError yields the cause."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    if not isinstance(exc, TracekitError) and isinstance(exc.__cause__, TracekitError):
        return [exc.__cause__]
    return [exc]


if __name__ == "__main__":
    sys.exit(main())
