"""Run a pipeline file: config -> one :class:`~tracekit.app.trace.LiveTrace` (which owns
the session, source, stages, sink and when the trace ends), signals, exit status.

Signals (SIGINT, SIGQUIT, SIGTERM, SIGHUP end; SIGTSTP suspends), as strace does::

    start-up ──────────────> tracing ─────────────────────────> drain & close
    1st: cancel start-up,    1st: the command (if it runs)     2nd signal anywhere: abort
    close all, 128+N         reacts for up to 2 s (its last    (the sinks end with what
                             calls, its exit), then the final  reached them), and the
                             drain                             process ends within 1 s

Each signal reaches the command once: a terminal sends ^C, ^\\ and ^Z to its whole
foreground process group, which holds tracekit and a command that shares its group, so
such a signal is not sent on; one sent to tracekit alone (kill, ``si_code`` SI_USER or
SI_QUEUE), or one the command could not get (it runs in another process group), is.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import msgspec
import trio

from tracekit.app.status import StatusLine, session_sampler, status_wanted
from tracekit.formatters._output import close_output, open_output
from tracekit.formatters._spec import SinkContext, format_spec
from tracekit.session.spawn import InheritedSignals

log = logging.getLogger("tracekit.run")


_ENDING = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)
_FORCE_EXIT_S = 1.0   # after a second signal, how long the loop has to end by itself
# si_code of a signal the kernel sent itself, such as a terminal's (n_tty's ^C, a hangup)
# (include/uapi/asm-generic/siginfo.h; SI_USER is 0, SI_QUEUE -1, SI_TKILL -6)
_SI_KERNEL = 0x80


class _Signals:
    """``with _Signals() as signals:`` owns SIGINT, SIGQUIT, SIGTERM, SIGHUP and SIGTSTP
    for the run, and hands each to the trace once :meth:`attach` gave one.

    Some facts about signals here:

    - Only ``siginfo`` tells a terminal's signal (``si_code`` SI_KERNEL: n_tty sends ^C
      to the foreground process group, and a hangup) from ``kill`` (SI_USER), and a
      Python handler never sees it. So the signals are blocked in every thread and one
      thread takes them with ``sigwaitinfo``; it also works while a stage holds the trio
      loop (a trio signal receiver would never be read), and nothing is ever raised at
      an arbitrary point of the loop (a handler that raised while trio was starting or
      closing gave ``TrioInternalError``).
    - A signal ignored or blocked when tracekit started is left so (``nohup``): it is
      not watched, and the command starts with the same dispositions and mask
      (:attr:`inherited`), as it would without tracekit.
    - SIGTSTP: sent on to the command when the command could not have had it, then
      tracekit stops itself with it, as its default action would (the shell sees a
      stopped job); once continued, a command it stopped is continued too.
    - SIGCONT is waited for too (its default action, continuing, happens anyway), so
      that closing can wake the thread with ``pthread_kill``.
    - The first ending signal goes to the trace (:meth:`LiveTrace.interrupt`); the
      second aborts it and, should the loop not get to it, ends the process
      ``_FORCE_EXIT_S`` later (every kernel object is fd-owned: nothing is left
      behind).

    Attributes:
      inherited: the dispositions and mask tracekit was started with.
      first: the first ending signal, once one came.
    """

    def __init__(self) -> None:
        self.inherited = InheritedSignals.current()
        skip = self.inherited.ignored | self.inherited.blocked
        self.watched = frozenset(s for s in (*_ENDING, signal.SIGTSTP) if s not in skip)
        self.first: int | None = None
        self.seen = 0
        self._trace: Any = None
        self._lock = threading.Lock()
        self._closing = False
        self._token: trio.lowlevel.TrioToken | None = None
        self._thread: threading.Thread | None = None
        self._saved_mask: set[int] = set()

    def __enter__(self) -> _Signals:
        self._token = trio.lowlevel.current_trio_token()
        waited = self.watched | {signal.SIGCONT}
        self._saved_mask = signal.pthread_sigmask(signal.SIG_BLOCK, waited)
        self._thread = threading.Thread(target=self._loop, args=(waited,),
                                        name="tracekit-signals", daemon=True)
        self._thread.start()
        return self

    def attach(self, trace: Any) -> bool:
        """Hand signals to ``trace`` from now on; False when an ending signal came first
        (the run is over before it started: status 128+N)."""
        with self._lock:
            if self.first is not None:
                return False
            self._trace = trace
            return True

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._closing = True
            self._trace = None
        thread = self._thread
        if thread is not None and thread.ident is not None:
            signal.pthread_kill(thread.ident, signal.SIGCONT)
            thread.join()
        # a signal that came as the run ended is dropped with the run; later ones get
        # the dispositions Python set up (SIGINT: KeyboardInterrupt, handled by main)
        pending = signal.sigpending() & (self.watched | {signal.SIGCONT})
        for _ in range(len(pending)):
            signal.sigtimedwait(pending, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, self._saved_mask)

    def _loop(self, waited: frozenset[int]) -> None:
        while True:
            info = signal.sigwaitinfo(waited)
            if self._closing:
                return
            try:
                self._on_signal(info.si_signo, info.si_code)
            except Exception:           # a bug here must not end signal handling
                log.exception("handling signal %d", info.si_signo)

    def _on_signal(self, sig: int, code: int) -> None:
        if sig == signal.SIGCONT:
            return
        with self._lock:
            trace = self._trace
            if sig != signal.SIGTSTP:
                self.seen += 1
                if self.first is None:
                    self.first = sig
        forward, group = _should_forward(trace, code)
        if sig == signal.SIGTSTP:
            self._suspend(trace, forward, group)
            return
        if self.seen > 1:
            timer = threading.Timer(_FORCE_EXIT_S, os._exit, (128 + sig,))
            timer.daemon = True
            timer.start()
        if trace is None:
            return          # before the trace: attach() says so; start-up: nothing runs
        if forward:
            trace.forward(sig, group=group)   # here: the loop may be held by a stage
        token = self._token
        assert token is not None
        try:
            token.run_sync_soon(_deliver, trace, sig)
        except trio.RunFinishedError:
            pass

    def _suspend(self, trace: Any, forward: bool, group: bool) -> None:
        """Stop as SIGTSTP's default action would; the command with us when it could not
        have had the signal itself; continue it with us."""
        if forward:
            trace.forward(signal.SIGTSTP, group=group)
        # thread-directed and unblocked in this thread only: delivered here, to the
        # default action (a stop of the whole process; ignored in an orphaned group)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTSTP})
        try:
            signal.raise_signal(signal.SIGTSTP)
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTSTP})
        if forward:
            trace.forward(signal.SIGCONT, group=group)


def _deliver(trace: Any, sig: int) -> None:
    """:meth:`LiveTrace.interrupt` from the loop; never raises (an exception from a
    ``run_sync_soon`` callback would be a TrioInternalError)."""
    try:
        trace.interrupt(sig, forward=False)
    except Exception:
        log.exception("handling signal %d", sig)


def _should_forward(trace: Any, code: int) -> tuple[bool, bool]:
    """(send the signal on to the command, to its process group rather than to it).

    A terminal's signal (SI_KERNEL) went to our process group: the command had it too
    when it is in that group, and is sent it (to its group, as the terminal would) when
    it is in another. Any other (kill: SI_USER, sigqueue: SI_QUEUE) was sent to tracekit
    alone and is sent on to the command alone, as it would have been without tracekit.
    """
    session = getattr(trace, "session", None)
    cmd = getattr(session, "command", None)
    if cmd is None or cmd.returncode is not None:
        return False, False
    if code != _SI_KERNEL:
        return True, False
    try:
        same_group = os.getpgid(cmd.pid) == os.getpgrp()
    except ProcessLookupError:
        return False, False
    return not same_group, True


async def run_pipeline_file(cfg: Any, path: Path) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline,
        PipelineError naming the stage that failed).
    """
    with _Signals() as signals:     # first: a signal from here on is handled
        return await _run(cfg, path, signals)


async def _run(cfg: Any, path: Path, signals: _Signals) -> int:
    from tracekit.app.registry import build_stages
    from tracekit.app.selection import check_format_keys, selection_stages, session_selection
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
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries,
        command_signals=signals.inherited, **session_selection(f, t, where=str(path)))
    check_format_keys(cfg)
    stages = selection_stages(f) + build_stages(cfg.stage)
    o = cfg.output
    spec = format_spec(o.format)        # what the output needs: its options and stages
    options = spec.options_of(o)
    if getattr(options, "fd_paths", False):
        options = msgspec.structs.replace(
            options, fd_paths=_fd_paths_possible(syscalls, table))
    kernel_summary = spec.counts_in_kernel(options, has_stages=bool(stages))
    if kernel_summary:
        # counted in BPF maps: no syscall records, no captures (issue 5)
        opts.summary, opts.capture = True, False
    status_line = status_wanted(o.path) and not kernel_summary
    # events go to a file and stderr is a terminal: a live line on stderr

    def summary_from() -> Any:           # called by the sink at the end, session open
        assert trace.session is not None
        return trace.session.kernel_summary().read()

    ctx = SinkContext.for_machine(summary_from=summary_from if kernel_summary else None)
    stages += spec.stages_before(options, stages, ctx)
    trace = LiveTrace(opts, stages, collect=False, duration_s=cfg.duration_s,
                      while_tracing=[_draw_status] if status_line else [])
    out = open_output(o.path, atomic=spec.written_at_end)
    completed = False
    try:
        sink = spec.make_sink(out, options, ctx)
        trace.sinks.append(sink)
        result = await trace.run() if signals.attach(trace) else None
        if result is None:              # a signal came while starting
            return 128 + (signals.first or trace.interrupted_by or signal.SIGINT)
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
    elif session.command is not None and trace.interrupted_by is not None:
        # the command did not end on the signal (it handles it): it goes on untraced,
        # and tracekit ends as strace does, with the signal's status
        status = 128 + trace.interrupted_by
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
    from tracekit.kernel.tracefs import readable_tracefs, syscall_event_names

    root = readable_tracefs()
    if root is None:        # no tracefs to compare with (not root: it is mode 0700)
        return
    missing = table.cross_check(syscall_event_names(root))
    if missing:
        log.warning("the syscall table (system-calls package) lacks %d syscalls this kernel "
                    "has: %s; they print as syscall_<nr> (upgrade system-calls)",
                    len(missing), ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""))
