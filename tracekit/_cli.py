"""``tracekit run pipeline.toml`` and ``tracekit check pipeline.toml``.

Exit status (documented in the README):
  - with a command target: the workload's exit status, or 128+N when a signal N killed it;
  - otherwise 0 when the session ended normally (targets gone, duration, SIGINT/SIGTERM);
  - 1: tracing failed (a kernel call, a stage): the message names the errno and the stage;
  - 2: bad usage or an invalid pipeline file (the message names file:line:column).
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import trio

import tracekit
from tracekit._errors import ConfigError, TracekitError

EXIT_ERROR = 1
EXIT_USAGE = 2
OUTPUT_FORMATS = ("perf", "jsonl")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tracekit", description="Trace system calls with BPF.")
    p.add_argument("--version", action="version", version=f"tracekit {tracekit.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="trace as a pipeline file says")
    run.add_argument("pipeline", type=Path, help="pipeline.toml")
    run.add_argument("-p", "--pid", action="append", default=[],
                     help="trace these processes instead (comma-separated pids, repeatable)")
    run.add_argument("-o", "--output", help="write events here instead of [output].path")
    run.add_argument("--duration", type=float, metavar="SECONDS", help="stop after SECONDS")
    run.epilog = "Put '-- COMMAND [ARGS...]' last to trace that command instead."
    chk = sub.add_parser("check", help="validate a pipeline file and report kernel readiness")
    chk.add_argument("pipeline", type=Path)
    return p


def _parse_pids(values: list[str]) -> list[int]:
    pids: list[int] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if not part.isdigit() or int(part) <= 0:
                raise ConfigError(f"--pid: {part!r} is not a positive process id")
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
    from tracekit._stages import build_stages
    from tracekit._syscalls import SyscallTable

    cfg = load_config(args.pipeline)
    if cfg.filter.syscalls:
        resolve_syscalls(cfg.filter.syscalls, SyscallTable(), where=str(args.pipeline))
    build_stages(cfg.stage)
    if cfg.output.format not in OUTPUT_FORMATS:
        raise ConfigError(_format_unavailable(cfg.output.format))
    print(f"{args.pipeline}: ok")
    ok = True
    for name, good, detail in _readiness():
        print(f"  {name:<11} {'ok' if good else 'MISSING':<8} {detail}")
        ok &= good
    return 0 if ok else EXIT_ERROR


def _open_output(path: str) -> Any:
    if path == "-":
        return sys.stdout.buffer
    p = Path(path)
    if not p.parent.is_dir():
        raise ConfigError(f"output path {path!r}: directory {str(p.parent)!r} does not exist")
    # O_NOFOLLOW: never write through a symlink planted in a shared directory.
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    return os.fdopen(fd, "wb")


def _make_sink(fmt: str, out: Any, table: Any) -> Any:
    from tracekit._syscalls import SyscallTable
    from tracekit._tracefs import find_tracefs, read_format, syscall_args

    @functools.cache
    def arg_names(name: str) -> list[str] | None:
        try:
            root = find_tracefs()
            fmt = read_format(root, "syscalls", f"sys_enter_{name}")
            return [f.name for f in syscall_args(fmt)]
        except (TracekitError, OSError, ValueError):
            return None

    if fmt == "perf":
        from tracekit.formatters import PerfFormatter
        compat = SyscallTable("i386") if table.arch == "x86_64" else None
        return PerfFormatter(out, syscall_name=table.name, arg_names=arg_names,
                             compat_syscall_name=compat.name if compat else None)
    if fmt == "jsonl":
        from tracekit.formatters import JsonlSink
        return JsonlSink(out)
    raise ConfigError(_format_unavailable(fmt))


def _format_unavailable(fmt: str) -> str:
    return (f"[output] format {fmt!r} is not available in this version "
            f"(available: {', '.join(OUTPUT_FORMATS)})")


async def _watch_signals(source: Any, session: Any, pipeline: Any,
                         task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
        task_status.started()
        n = 0
        async for sig in signals:
            n += 1
            if n == 1:
                source.request_stop()
                if session.command is not None:
                    session.command.send_signal(sig)
            else:
                pipeline.abort()


async def _watch_command(session: Any, source: Any) -> None:
    await session.command.wait()
    source.request_stop()


async def _stop_after(seconds: float, source: Any) -> None:
    await trio.sleep(seconds)
    source.request_stop()


async def _run_async(cfg: Any, path: Path) -> int:
    from tracekit._filter import resolve_syscalls
    from tracekit._session import SessionOptions, open_session
    from tracekit._source import RingBufferSource
    from tracekit._stages import build_stages
    from tracekit._syscalls import SyscallTable
    from tracekit.pipeline import Pipeline

    table = SyscallTable()
    t, f = cfg.target, cfg.filter
    syscalls = resolve_syscalls(f.syscalls, table, where=str(path)) if f.syscalls else None
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, failed_only=f.failed_only,
        min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries)
    stages = build_stages(cfg.stage)
    out = _open_output(cfg.output.path)
    sink = _make_sink(cfg.output.format, out, table)
    status = 0
    try:
        async with trio.open_nursery() as nursery:
            async with open_session(opts) as session:
                source = RingBufferSource(session)
                pipeline = Pipeline(source, stages, [sink], session=session)
                await nursery.start(_watch_signals, source, session, pipeline)
                if session.command is not None:
                    nursery.start_soon(_watch_command, session, source)
                if cfg.duration_s:
                    nursery.start_soon(_stop_after, cfg.duration_s, source)
                await pipeline.run()
                counters = session.counters()
                if session.command is not None:
                    rc = await session.command.wait()
                    status = rc if rc >= 0 else 128 - rc
            nursery.cancel_scope.cancel()
    finally:
        if out is not sys.stdout.buffer:
            out.close()
        else:
            try:
                out.flush()
            except BrokenPipeError:
                pass
    if counters.lost:
        print(f"tracekit: LOST {counters.lost} records: the ring buffer was full; "
              "raise buffer_pages in the pipeline file", file=sys.stderr)
    if counters.pids_full or session.not_added:
        print(f"tracekit: {counters.pids_full + session.not_added} tasks were not traced: "
              "the pids map was full; raise pids_max_entries", file=sys.stderr)
    return status


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
        return trio.run(_run_async, cfg, args.pipeline)
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # report TracekitErrors once; anything else is a bug: re-raise
        errors = _leaves(exc)
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
