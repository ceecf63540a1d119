"""``tracekit check``: everything ``tracekit run`` does up to the attach, each as one item.

The items, in order (:func:`run_checks`): the readiness items the CLI gives (BTF,
tracefs, privileges), then

- ``stages``: the ``[[stage]]`` entries are built; user stages are imported, which runs
  their module code (said before it happens); a stage that cannot be built makes the
  pipeline file invalid (status 2, as for ``run``);
- ``programs``: the BPF programs are loaded into the kernel as ``run`` loads them (the
  verifier checks each; the maps are created with the file's sizes), then unloaded:
  nothing is attached and no task is traced;
- ``target``: the command exists and is executable (as execvp would find it), or each
  pid or tid is alive and is not tracekit itself;
- ``output``: stdout is open, or the output's directory exists and is writable, the path
  is not a directory, a symbolic link or an input of the run.

A failed item says what failed with the errno name; the others are still tried, so one
run of ``check`` names every problem. The exit status is 0 when every item is ok, else
1 (an invalid pipeline file is 2, before any item: the CLI's usage status).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from tracekit._errors import TracekitError

__all__ = ["CheckItem", "run_checks"]


class CheckItem(NamedTuple):
    """One line of ``tracekit check``: ``name`` (``"programs"``), whether it is ``ok``,
    and ``detail``: what was found, or what failed and its errno name."""

    name: str
    ok: bool
    detail: str


def _errno_detail(e: BaseException) -> str:
    """The message of ``e``, with its errno name when it has one and does not say it."""
    text = str(e)
    code = getattr(e, "errno", None)
    name = errno.errorcode.get(code, "") if isinstance(code, int) else ""
    if name and name not in text:
        text = f"{text} ({name})"
    return text


def check_stages(cfg: Any, say: Callable[[str], None], pipeline: Path | None = None
                 ) -> CheckItem:
    """Build the stages as ``run`` does; ``say`` is told before user code is imported.

    Raises:
      ConfigError: a stage cannot be imported or built (the pipeline file is invalid:
        ``run`` would stop there too, with the usage status).
    """
    from tracekit.app.config import UserStageConfig
    from tracekit.app.registry import build_stages

    users = [s.use for s in cfg.stage if isinstance(s, UserStageConfig)]
    if users:
        say(f"importing user stage{'s' if len(users) > 1 else ''} {', '.join(users)} "
            "(this runs their module code)")
    # a ConfigError: the pipeline is invalid, as for run
    stages = build_stages(cfg.stage, source=pipeline)
    names = ", ".join(getattr(s, "name", type(s).__name__) for s in stages)
    return CheckItem("stages", True, names or "none")


def session_options(cfg: Any, pipeline: Path) -> Any:
    """The SessionOptions ``run`` would start with (targets, filter, sizes, and counting
    in the kernel when the summary format does)."""
    from tracekit.app.outputs import OutputPlan
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.session.session import SessionOptions

    t, f = cfg.target, cfg.filter
    syscalls = (resolve_syscalls(f.syscalls, SyscallTable(), where=str(pipeline))
                if f.syscalls else None)
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, failed_only=f.failed_only,
        min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries)
    plan = OutputPlan(cfg, has_stages=bool(cfg.stage or f.path))
    if plan.kernel_summary:
        opts.summary, opts.summary_records, opts.capture = True, plan.records, plan.records
    return opts


def check_programs(opts: Any) -> CheckItem:
    """Load the programs into the kernel as ``run`` would, then unload them."""
    from tracekit.session.session import Session

    try:
        session = Session(opts)
        session.load()
    except (TracekitError, OSError) as e:
        return CheckItem("programs", False, _errno_detail(e))
    try:
        assert session.obj is not None
        progs = len(session.obj.progs)
        maps = len(session.obj.maps)
    finally:
        session.close()
    return CheckItem("programs", True, f"{progs} programs loaded and verified, {maps} maps "
                                       "created, then unloaded (nothing attached)")


def check_target(cfg: Any) -> CheckItem:
    """The command resolves to an executable, or every pid/tid is alive."""
    from tracekit.kernel.procfs import ProcFS, foreign_pid_namespace
    from tracekit.session.spawn import resolve_command

    foreign = foreign_pid_namespace()
    if foreign is not None:
        return CheckItem("target", False, foreign)
    t = cfg.target
    if t.command:
        try:
            path = resolve_command(list(t.command))
        except TracekitError as e:
            text = str(e)
            if "(E" not in text:        # "not in PATH": execvp's errno
                text += " (ENOENT)"
            return CheckItem("target", False, text)
        return CheckItem("target", True, f"command {path}")
    if t.system_wide:
        return CheckItem("target", True, "system-wide: every task but tracekit")
    kind, ids = ("pid", t.pid) if t.pid else ("tid", t.tid)
    procfs = ProcFS()
    gone = [i for i in ids if not procfs.exists(i)]
    if gone:
        return CheckItem("target", False, f"no such {kind}: {', '.join(map(str, gone))} "
                                          f"(ESRCH: /proc/{gone[0]} does not exist)")
    me = os.getpid()
    if (kind == "pid" and me in ids) or (kind == "tid" and any(
            procfs.tgid_of(i) == me for i in ids)):
        return CheckItem("target", False, f"a {kind} is tracekit itself, which never traces "
                                          "itself")
    return CheckItem("target", True, f"{kind} {', '.join(map(str, ids))} alive")


def check_listen(listen: str) -> CheckItem:
    """Whether the openmetrics server could listen on ``listen`` (HOST:PORT, checked with
    the file): the host resolves and a socket binds it now (then closed), as
    prometheus_client's server binds (SO_REUSEADDR)."""
    import socket

    from tracekit.formatters.openmetrics import _split_address

    got = _split_address(listen)
    if got is None:
        return CheckItem("listen", False, f"{listen!r} is not HOST:PORT")
    host, port = got
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as e:
        return CheckItem("listen", False, f"{listen}: {e.strerror} (getaddrinfo of {host!r})")
    try:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(addr)
    except OSError as e:
        return CheckItem("listen", False, f"{listen}: {e.strerror} "
                                          f"({errno.errorcode.get(e.errno or 0, '?')})")
    return CheckItem("listen", True, f"{listen}: free to listen on")


def check_output(path: str, inputs: list[tuple[str, str]]) -> CheckItem:
    """Whether ``run`` could create its output at ``path`` (without creating it)."""
    from tracekit.app.inputs import check_output_not_input
    from tracekit.formatters._output import std_stream_of

    std = std_stream_of(path)
    if std is not None:
        name = "standard output" if std == 1 else "standard error"
        if (sys.stdout if std == 1 else sys.stderr) is None:
            return CheckItem("output", False, f"{name} is closed (EBADF)")
        return CheckItem("output", True, name)
    try:
        check_output_not_input(path, inputs)
    except TracekitError as e:
        return CheckItem("output", False, str(e))
    p = Path(path)
    parent = p.parent
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        return CheckItem("output", False, f"{path}: {e.strerror} "
                                          f"({errno.errorcode.get(e.errno or 0, '?')})")
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            return CheckItem("output", False, f"{path}: a symlink: tracekit does not write "
                                              "through links (ELOOP)")
        if stat.S_ISDIR(st.st_mode):
            return CheckItem("output", False, f"{path}: is a directory (EISDIR)")
        if not stat.S_ISREG(st.st_mode):        # a fifo or device: written in place
            if not os.access(path, os.W_OK):
                return CheckItem("output", False, f"{path}: not writable (EACCES)")
            return CheckItem("output", True, f"{path}: written in place (not a regular file)")
    if not parent.exists():
        return CheckItem("output", False, f"{path}: directory {str(parent)!r} does not "
                                          "exist (ENOENT)")
    if not parent.is_dir():
        return CheckItem("output", False, f"{path}: {str(parent)!r} is not a directory "
                                          "(ENOTDIR)")
    if not os.access(parent, os.W_OK | os.X_OK):
        return CheckItem("output", False, f"{path}: directory {str(parent)!r} is not "
                                          "writable (EACCES)")
    if st is not None and _sticky_blocks_replace(st, os.stat(parent)):
        return CheckItem("output", False, f"{path}: another user's file in the sticky "
                                          f"directory {str(parent)!r}: replacing it needs "
                                          "CAP_FOWNER (EPERM)")
    return CheckItem("output", True, f"{path}: a new 0600 file "
                                     f"{'replaces the one there' if st else 'is created'}")


_CAP_FOWNER = 3     # include/uapi/linux/capability.h


def _sticky_blocks_replace(st: os.stat_result, dir_st: os.stat_result) -> bool:
    """Whether rename(2) over the file ``st`` in the directory ``dir_st`` fails with EPERM:
    a sticky directory lets only the file's or the directory's owner, or a holder of
    CAP_FOWNER, replace a file (fs/namei.c, may_delete and __check_sticky)."""
    euid = os.geteuid()
    if not dir_st.st_mode & stat.S_ISVTX or euid in (st.st_uid, dir_st.st_uid):
        return False
    try:
        with open("/proc/self/status") as f:
            caps = next(int(line.split()[1], 16) for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration, ValueError):
        return euid != 0
    return not caps >> _CAP_FOWNER & 1


def run_checks(cfg: Any, pipeline: Path, *, readiness: Callable[[], list[CheckItem]],
               say: Callable[[str], None]) -> Iterator[CheckItem]:
    """Every item of ``tracekit check`` (module docstring), each yielded once tried.

    Args:
      cfg: the loaded PipelineConfig (with the command line's overrides).
      pipeline: its path (an input the output must not be).
      readiness: the first items (BTF, tracefs, privileges).
      say: gets a line to show before something runs code of the user's.
    """
    from tracekit.app.inputs import run_inputs

    yield from readiness()
    yield check_stages(cfg, say, pipeline)
    yield check_programs(session_options(cfg, pipeline))
    yield check_target(cfg)
    for o in cfg.outputs:
        yield check_output(o.path, run_inputs(pipeline, cfg.target.command))
        listen = getattr(o, "listen", "") if o.format == "openmetrics" else ""
        if listen:
            yield check_listen(listen)
