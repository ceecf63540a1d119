"""Run a pipeline file: config -> one :class:`~tracekit.app.trace.LiveTrace` (which owns
the session, source, stages, sink and when the trace ends), signals, exit status.

Phases and what a signal does in each (SIGINT, SIGTERM, SIGHUP)::

    start-up ──────────────> tracing ─────────────────────> drain & close
    1st signal: cancel       1st: stop the source (final      2nd signal anywhere:
    start-up, close all      drain), forward it to the        abort at once
                             command
"""

from __future__ import annotations

import errno
import functools
import io
import logging
import os
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import trio

from tracekit._errors import ConfigError, TracekitError
from tracekit.app.registry import SinkContext, make_sink
from tracekit.app.status import StatusLine, session_sampler, status_wanted

log = logging.getLogger("tracekit.run")

TEXT_FORMATS = ("perf", "strace")   # reordered by ts_ns before the formatter (not jsonl)


def open_output(path: str, *, atomic: bool = False) -> Any:
    """The binary stream events are written to: stdout for ``"-"``, else a file.

    A file is created with mode 0600 (a trace may hold other users' data) and never
    through a symbolic link (``O_NOFOLLOW``: a link planted in a shared directory cannot
    redirect the write). With ``atomic`` (summaries), the data goes to a new 0600 file
    beside ``path`` (``mkstemp``, ``O_EXCL``) that :func:`close_output` renames over
    ``path`` when the run completed, so a reader sees the old file or the whole new one.

    Raises:
      ConfigError: the directory is missing, the path is a directory or a symlink, or the
        file cannot be created (the errno name says why).
    """
    if path == "-":
        return sys.stdout.buffer
    p = Path(path)
    if not p.parent.is_dir():
        raise ConfigError(f"output path {path!r}: directory {str(p.parent)!r} does not exist")
    if atomic and _regular_or_missing(p):
        # only a regular file is replaced by rename: a fifo or device (/dev/null, a
        # terminal) is written in place, never swapped for a file of ours
        return AtomicFile.create(p)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
    except OSError as e:
        raise _output_error(path, e) from None
    return os.fdopen(fd, "wb")


def _regular_or_missing(p: Path) -> bool:
    try:
        mode = os.lstat(p).st_mode
    except OSError:
        return True  # missing: created; another error: AtomicFile.create reports it
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)  # a link: AtomicFile.create refuses it


def _output_error(path: str | Path, e: OSError) -> ConfigError:
    name = errno.errorcode.get(e.errno or 0, "?")
    hint = " (a symlink: tracekit does not write through links)" if e.errno == errno.ELOOP \
        else ""
    return ConfigError(f"output path {str(path)!r}: {e.strerror} ({name}){hint}")


class AtomicFile(io.FileIO):
    """A 0600 temp file beside ``final``; :meth:`commit` renames it over ``final``.

    Attributes:
      final: the path the data is for.
      tmp: the temp file's path (``.<name>.<random>.tmp`` in the same directory, so the
        rename cannot cross file systems).
    """

    final: Path
    tmp: Path

    @classmethod
    def create(cls, final: Path) -> AtomicFile:
        """Create the temp file (mode 0600, O_EXCL).

        Raises:
          ConfigError: ``final`` is a directory or a symlink, or the directory is not
            writable.
        """
        try:
            st = os.lstat(final)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise _output_error(final, e) from None
        else:
            if stat.S_ISDIR(st.st_mode):
                raise _output_error(final, OSError(errno.EISDIR, os.strerror(errno.EISDIR)))
            if stat.S_ISLNK(st.st_mode):
                raise _output_error(final, OSError(errno.ELOOP, os.strerror(errno.ELOOP)))
        try:
            fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.",
                                       suffix=".tmp")
        except OSError as e:
            raise _output_error(final, e) from None
        f = cls(fd, "wb", closefd=True)
        f.final, f.tmp = final, Path(tmp)
        return f

    def commit(self) -> None:
        """Flush to disk, close, and rename over :attr:`final` (replacing a file there)."""
        if not self.closed:
            self.flush()
            os.fsync(self.fileno())
            self.close()
        os.replace(self.tmp, self.final)

    def discard(self) -> None:
        """Close and remove the temp file; :attr:`final` is left as it was."""
        self.close()
        try:
            os.unlink(self.tmp)
        except FileNotFoundError:
            pass


def sink_context(table: Any, options: dict[str, Any] | None = None) -> SinkContext:
    """Names for the formatters: syscall tables and tracefs argument names (cached)."""
    from tracekit.kernel.syscalls import syscall_namers
    from tracekit.kernel.tracefs import find_tracefs, syscall_args_of

    root = find_tracefs()

    @functools.cache
    def arg_names(name: str) -> list[str] | None:
        fields = syscall_args_of(root, name)
        return None if fields is None else [f.name for f in fields]

    native, compat = syscall_namers(table.name)
    return SinkContext(syscall_name=native, compat_syscall_name=compat,
                       arg_names=arg_names, options=dict(options or {}))


_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_FORCE_EXIT_S = 1.0   # after a second signal, how long the loop has to end by itself


class _Signals:
    """``with _Signals(trace):`` owns SIGINT, SIGTERM and SIGHUP for the trace (the old
    handlers are back on exit) and hands each one to the trace.

    Some facts about Python signal handlers: they run in the main thread between
    bytecodes, even while the trio loop is stuck in a stage that blocks synchronously,
    where a trio signal receiver would never be read. So the first signal is forwarded
    to the command from the handler itself (:meth:`LiveTrace.forward`) and passed to
    trio (``run_sync_soon`` is signal-safe) for a graceful drain
    (:meth:`LiveTrace.interrupt`); the second asks trio to abort and, should the loop not
    get to it, ends the process after ``_FORCE_EXIT_S`` (every kernel object is
    fd-owned: nothing is left behind). A context manager, not a task: no nursery stands
    between the trace's errors and the caller.
    """

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.seen = 0
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        token = trio.lowlevel.current_trio_token()
        trace = self.trace

        def handler(signum: int, frame: object) -> None:
            # counted here: the trio loop, which records the first, may be the one stuck
            self.seen += 1
            if self.seen == 1:
                trace.forward(signum)  # here, not from the loop, which a stage may hold
            else:
                timer = threading.Timer(_FORCE_EXIT_S, os._exit, (128 + signum,))
                timer.daemon = True
                timer.start()
            token.run_sync_soon(trace.interrupt, signum)

        self._saved = {sig: signal.signal(sig, handler) for sig in _SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._saved.items():
            signal.signal(sig, old)


async def run_pipeline_file(cfg: Any, path: Path) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline,
        PipelineError naming the stage that failed).
    """
    from tracekit.app.registry import build_stages
    from tracekit.app.trace import LiveTrace
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.session.session import SessionOptions

    table = SyscallTable()
    _cross_check(table)
    t, f = cfg.target, cfg.filter
    syscalls = resolve_syscalls(f.syscalls, table, where=str(path)) if f.syscalls else None
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, failed_only=f.failed_only,
        min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries)
    stages = build_stages(cfg.stage)
    o = cfg.output
    kernel_summary = o.format == "summary" and (
        o.mode == "kernel" or o.mode == "auto" and not cfg.stage)
    if kernel_summary:
        # counted in BPF maps: no syscall records, no captures (issue 5)
        opts.summary, opts.capture = True, False
    if o.format == "summary":
        options = {"table": o.table, "group_by": o.group_by, "sort": o.sort}
    else:
        options = {"fd_paths": o.fd_paths and _fd_paths_possible(syscalls, table),
                   "string_limit": o.string_limit}
    if o.format == "perf" and not any(getattr(st, "name", "") == "beautify" for st in stages):
        # perf-style text decodes arguments, as perf trace does; strace decodes itself,
        # jsonl stays raw unless a beautify stage is configured.
        from tracekit.app.config import BeautifyConfig
        from tracekit.pipeline.beautify import from_config as beautify

        stages.append(beautify(BeautifyConfig(**options)))
    if o.format in TEXT_FORMATS:
        # Text for people: lines in ts_ns order across CPUs (pipeline/reorder.py). Last,
        # so stages see arrival order (beautify's fd table follows the calls' exits).
        from tracekit.pipeline.reorder import Reorder

        stages.append(Reorder())
    status_line = status_wanted(o.path) and not kernel_summary
    # events go to a file and stderr is a terminal: a live line on stderr
    trace = LiveTrace(opts, stages, collect=False, duration_s=cfg.duration_s,
                      while_tracing=[_draw_status] if status_line else [])
    # A summary is written once at the end: atomically, so a reader of the file never
    # sees half of one (and a failed run leaves the previous file).
    out = open_output(cfg.output.path, atomic=o.format == "summary")
    if kernel_summary:
        def summary_from() -> Any:       # called by the sink at the end, session open
            assert trace.session is not None
            return trace.session.kernel_summary().read()

        options["summary_from"] = summary_from
    completed = False
    try:
        sink = make_sink(o.format, out, sink_context(table, options))
        trace.sinks.append(sink)
        with _Signals(trace):
            result = await trace.run()
        if result is None:              # a signal came while starting
            return 128 + (trace.interrupted_by or signal.SIGINT)
        completed = True
    finally:
        close_output(out, completed=completed)
    session, source, counters = trace.session, trace.source, trace.counters
    assert session is not None and source is not None and counters is not None
    status = 0
    if result.downstream_closed and getattr(sink, "closed_by_reader", False):
        # The reader of our output went away (`| head`): stop here without
        # waiting for the command, which goes on untraced; status as SIGPIPE's.
        status = 128 + signal.SIGPIPE
    elif result.downstream_closed:
        # A stage stopped reading (e.g. one that wanted only the first events):
        # tracing ends; the command goes on untraced.
        log.warning("a stage stopped reading its input: tracing ended early%s",
                    "; the command goes on untraced" if session.command else "")
    elif trace.returncode is not None:
        rc = trace.returncode
        status = rc if rc >= 0 else 128 - rc
    # What the trace's lost events add up to (the kernel counts on while a pid target
    # runs after the final drain: those calls came after the stop, untraced, not lost).
    if source.lost:
        print(f"tracekit: LOST {source.lost} records: the ring buffer was full; "
              "raise buffer_pages in the pipeline file", file=sys.stderr)
    if counters.summary_full or counters.errno_full:
        print(f"tracekit: the in-kernel summary missed {counters.summary_full} calls and "
              f"{counters.errno_full} errno counts: its maps were full", file=sys.stderr)
    repaired = sum(st.counters.get("repaired_pids_full", 0) for st in result.stats.values())
    untraced = counters.pids_full + session.not_added - repaired
    if untraced > 0:
        print(f"tracekit: {untraced} tasks were not traced: "
              "the pids map was full; raise pids_max_entries", file=sys.stderr)
    return status


async def _draw_status(trace: Any) -> None:
    """The live status line until the trace has drained (cancelled: the line is erased)."""
    await StatusLine(session_sampler(trace.session, trace.source)).run()


def _fd_paths_possible(syscalls: set[int] | None, table: Any) -> bool:
    """Whether fds can be shown with their paths: the fd cache follows the calls that close
    or overwrite fds, so a [filter] that hides any of them would make it show stale paths.
    Such a trace shows plain fds (said once on stderr)."""
    if syscalls is None:
        return True
    from tracekit.decode.args import fd_invalidating_syscalls
    from tracekit.decode.argspec import ARGSPEC

    shown = {table.name(nr) for nr in syscalls}
    if not any("fd" in args or "dirfd" in args or ret == "fd"
               for args, ret in (ARGSPEC.get(n, ((), "")) for n in shown)):
        return True  # no selected call shows an fd: nothing to keep true
    hidden = sorted(n for n in fd_invalidating_syscalls()
                    if (nr := table.nr(n)) is not None and nr not in syscalls)
    if hidden:
        log.warning("fds are shown without paths: the syscall filter hides calls that "
                    "close or overwrite fds (%s%s)", ", ".join(hidden[:4]),
                    ", ..." if len(hidden) > 4 else "")
    return not hidden


def _cross_check(table: Any) -> None:
    """Warn once when tracefs lists syscalls the number table lacks (an old system-calls
    package on a newer kernel): their records would be printed as ``syscall_<nr>``."""
    from tracekit.kernel.tracefs import find_tracefs, syscall_event_names

    missing = table.cross_check(syscall_event_names(find_tracefs()))
    if missing:
        log.warning("the syscall table (system-calls package) lacks %d syscalls this kernel "
                    "has: %s; they print as syscall_<nr> (upgrade system-calls)",
                    len(missing), ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))


def close_output(out: Any, *, completed: bool = True) -> None:
    """Close what :func:`open_output` returned: an :class:`AtomicFile` is renamed into
    place when the run ``completed``, else removed; stdout is flushed, not closed (a
    reader that went away is not an error here: the run already ended with 141)."""
    if isinstance(out, AtomicFile):
        if completed:
            out.commit()
        else:
            out.discard()
        return
    if out is not sys.stdout.buffer:
        try:
            out.close()  # flushes the buffer: ENOSPC, EIO can show only here
        except OSError as e:
            if completed:
                name = errno.errorcode.get(e.errno or 0, "?")
                raise TracekitError(f"writing {getattr(out, 'name', 'the output')!r}: "
                                    f"{e.strerror} ({name})") from None
            # the run already failed: that error says more than this one
        return
    try:
        out.flush()
    except BrokenPipeError:
        pass
