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

import dataclasses
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import trio

from tracekit._events import Losses
from tracekit._stdio import stderr
from tracekit.app.outputs import OutputPlan, kernel_summary_sources
from tracekit.app.status import StatusLine, session_sampler, status_wanted
from tracekit.formatters._output import (
    OutputInterrupted,
    close_output,
    open_output,
    stop_waiting_for_readers,
)
from tracekit.formatters._spec import SinkContext
from tracekit.session.spawn import InheritedSignals, set_child_signal_mask

log = logging.getLogger("tracekit.run")


_ENDING = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)
_SAME_SIGNAL_S = 0.2  # the first signal again this soon, from its sender, is one (_Signals)
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
      (:attr:`inherited`), as it would without tracekit. With ``watch_inherited``
      (``tracekit strace -p``, as strace 6.1 does, checked under ``nohup`` and as a
      script's background job, which starts with SIGINT ignored) the ending signals are
      watched all the same: there is no command to inherit them.
    - SIGTSTP: sent on to the command when the command could not have had it, then
      tracekit stops itself with it, as its default action would (the shell sees a
      stopped job); once continued, a command it stopped is continued too.
    - SIGCONT is waited for too (its default action, continuing, happens anyway), so
      that closing can wake the thread with ``pthread_kill``.
    - The first ending signal goes to the trace (:meth:`LiveTrace.interrupt`); the
      second aborts it and, should the loop not get to it, ends the process
      ``_FORCE_EXIT_S`` later (every kernel object is fd-owned: nothing is left
      behind). The first signal again from the same process (``si_pid``, sent with
      kill or sigqueue) within ``_SAME_SIGNAL_S`` is that one sent twice, not a second:
      ``timeout(1)`` sends its signal to its child (tracekit) and then to its own
      process group (tracekit again), microseconds apart. It is sent on to the command
      all the same, as the command would have had both without tracekit. A terminal's
      keys (``si_code`` SI_KERNEL) always count: ^C ^C is two.

    Attributes:
      inherited: the dispositions and mask tracekit was started with.
      first: the first ending signal, once one came.
    """

    def __init__(self, *, watch_inherited: bool = False) -> None:
        self.inherited = InheritedSignals.current()
        skip = self.inherited.ignored | self.inherited.blocked
        self.watched = frozenset(s for s in (*_ENDING, signal.SIGTSTP) if s not in skip
                                 or (watch_inherited and s in _ENDING))
        self.first: int | None = None
        self._first_at = 0.0                # time.monotonic() when the first came
        self._sender = 0                    # and the pid that sent it (si_pid)
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
        # what a process a stage starts gets back (restore_signal_mask; the command's
        # own spawn sets its mask itself)
        set_child_signal_mask(self.inherited.blocked)
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
        # the dispositions there were before (the command's entry point: a quiet exit
        # with 128+N; called as a library: Python's KeyboardInterrupt for SIGINT)
        pending = signal.sigpending() & (self.watched | {signal.SIGCONT})
        for _ in range(len(pending)):
            signal.sigtimedwait(pending, 0)
        signal.pthread_sigmask(signal.SIG_SETMASK, self._saved_mask)
        set_child_signal_mask(None)

    def noted(self, sig: int) -> None:
        """``sig`` came before this object watched for it (tracekit._early_signals noted it):
        taken as if it came now."""
        self._on_signal(sig, 0, 0)

    def _loop(self, waited: frozenset[int]) -> None:
        while True:
            info = signal.sigwaitinfo(waited)
            if self._closing:
                return
            try:
                self._on_signal(info.si_signo, info.si_code, info.si_pid)
            except Exception:           # a bug here must not end signal handling
                log.exception("handling signal %d", info.si_signo)

    def _on_signal(self, sig: int, code: int, sender: int) -> None:
        if sig == signal.SIGCONT:
            return
        if code != _SI_KERNEL and sender == os.getpid():
            return      # tracekit's own, sent on to the command's group, which is ours
        now = time.monotonic()
        with self._lock:
            trace = self._trace
            # the same process sent the first signal again at once (timeout(1))
            again = (sig == self.first and code != _SI_KERNEL and sender == self._sender
                     and now - self._first_at < _SAME_SIGNAL_S)
            if sig != signal.SIGTSTP and not again:
                self.seen += 1
                if self.first is None:
                    self.first, self._first_at, self._sender = sig, now, sender
        forward, group = _should_forward(trace, sig, code)
        if sig == signal.SIGTSTP:
            self._suspend(trace, forward, group)
            return
        if again:                           # the first signal sent twice
            if forward and trace is not None:
                trace.forward(sig, group=group)
            return
        if self.seen > 1:
            timer = threading.Timer(_FORCE_EXIT_S, os._exit, (128 + sig,))
            timer.daemon = True
            timer.start()
        if trace is None:
            # before the trace: attach() says so; an output that waits for a fifo's
            # reader stops waiting (nothing has started yet)
            stop_waiting_for_readers()
            return
        if forward:
            trace.forward(sig, group=group)   # here: the loop may be held by a stage
        token = self._token
        assert token is not None
        try:
            # not sent on here: the command may not exist yet (start-up runs on in the
            # loop until its next checkpoint, which may release the command); the loop
            # decides again when it takes the signal
            token.run_sync_soon(_deliver, trace, sig, None if forward else code)
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


def _deliver(trace: Any, sig: int, code: int | None) -> None:
    """:meth:`LiveTrace.interrupt` from the loop; never raises (an exception from a
    ``run_sync_soon`` callback would be a TrioInternalError).

    Args:
      code: the signal's ``si_code`` when the signal thread did not send it on, so that
        a command started since it looked (start-up went on until this callback ran)
        gets it too; None when it was sent on.
    """
    try:
        if code is not None:
            forward, group = _should_forward(trace, sig, code)
            if forward:
                trace.forward(sig, group=group)
        trace.interrupt(sig, forward=False)
    except Exception:
        log.exception("handling signal %d", sig)


def _should_forward(trace: Any, sig: int, code: int) -> tuple[bool, bool]:
    """(send the signal on to the command, to its process group rather than to it).

    A terminal's signal (SI_KERNEL) went to our process group: the command had it too
    when it is in that group, and is sent it (to its group, as the terminal would) when
    it is in another. A hangup is the exception: the kernel sends its SIGHUP to the
    session leader alone (drivers/tty/tty_jobctrl.c, tty_signal_session_leader), and the
    foreground group has it only when the leader exits; so when tracekit leads the
    session (``setsid``, ``ssh host tracekit ...``, ``script -c``), the command is sent
    it now, to its group as the kernel would (when that group is ours, the copy that
    comes back to tracekit is not taken as a second signal: :meth:`_Signals._on_signal`). Any
    other (kill: SI_USER, sigqueue: SI_QUEUE) was sent to tracekit alone and is sent on
    to the command alone, as it would have been without tracekit.
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
    if sig == signal.SIGHUP and os.getsid(0) == os.getpid():
        return True, True
    return not same_group, True


def session_options(cfg: Any, path: Path, signals: InheritedSignals | None = None
                    ) -> tuple[Any, Any]:
    """The :class:`~tracekit.session.session.SessionOptions` of a pipeline file's
    ``[target]``, ``[filter]`` and sizes, and this machine's syscall table.

    Args:
      signals: the dispositions and mask tracekit was started with, which a command
        target starts with too (default: as they are now).

    Raises:
      ConfigError: a selection names what does not exist (located at ``path``).
    """
    from tracekit.app.selection import session_selection
    from tracekit.kernel.selection import resolve_compat_syscalls, resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable
    from tracekit.session.session import SessionOptions

    table = SyscallTable()
    _cross_check(table)
    t, f = cfg.target, cfg.filter
    syscalls = resolve_syscalls(f.syscalls, table, where=str(path)) if f.syscalls else None
    syscalls32 = resolve_compat_syscalls(f.syscalls) if f.syscalls else None
    opts = SessionOptions(
        command=t.command, pids=list(t.pid), tids=list(t.tid), system_wide=t.system_wide,
        follow_forks=t.follow_forks, syscalls=syscalls, syscalls32=syscalls32,
        failed_only=f.failed_only, min_duration_ns=int(f.min_duration_ms * 1_000_000),
        buffer_bytes=cfg.buffer_pages * 4096, pids_max_entries=cfg.pids_max_entries,
        command_signals=signals, **session_selection(f, t, where=str(path)))
    return opts, table


async def run_pipeline_file(cfg: Any, path: Path, *, record: str | None = None) -> int:
    """Trace as ``cfg`` (a PipelineConfig) says; returns the exit status (see tracekit.app.cli).

    Args:
      record: also write a recording of the trace to this path (``tracekit replay``
        prints it again); default the file's ``record`` key.

    Raises:
      TracekitError: start-up or tracing failed (ConfigError for a bad pipeline,
        PipelineError naming the stage that failed).
    """
    with _Signals() as signals:     # first: a signal from here on is handled
        stop_waiting_for_readers(False)
        try:
            return await _run(cfg, path, signals, record)
        except OutputInterrupted:
            # a signal while an output waited for its fifo's reader: nothing ran yet
            return 128 + (signals.first or signal.SIGINT)


async def _run(cfg: Any, path: Path, signals: _Signals, record: str | None) -> int:
    from tracekit.app.registry import build_stages
    from tracekit.app.selection import check_format_keys, selection_stages
    from tracekit.app.trace import LiveTrace

    opts, _ = session_options(cfg, path, signals.inherited)
    record = record if record is not None else cfg.record
    check_format_keys(cfg)
    # the outputs: each format's options, its stages (each once), its sink (app/outputs.py);
    # whether a summary counts in BPF maps is known before the stages are made (a
    # recording's header says it, and the stages read the system through its facts)
    plan = OutputPlan(cfg, has_stages=bool(cfg.stage or cfg.filter.path))
    if plan.kernel_summary:
        # counted in BPF maps (issue 5); records too only when another output prints them
        opts.summary, opts.summary_records = True, plan.records
        opts.capture = plan.records
    # each recorded call's stacks, taken at its entry, as the outputs that print them ask
    stacks = {getattr(o.options, "stacks", None) for o in plan.outputs if not o.in_kernel}
    stacks.discard(None)
    if stacks:
        opts.stacks = stacks.pop() if len(stacks) == 1 and "both" not in stacks else "both"
    # each recorded call's instruction pointer at its entry (strace -i's column)
    opts.instruction_pointer = any(getattr(o.options, "instruction_pointer", False)
                                   for o in plan.outputs if not o.in_kernel)
    # execve's environment strings, read in the kernel only for outputs that print them
    verbose = [getattr(o.options, "string_limit", 1 << 10) for o in plan.outputs
               if not o.in_kernel and getattr(o.options, "verbose", False)]
    if verbose:
        opts.envp_strings = min(max(verbose), 1 << 10) + 1
    if verbose and len(verbose) == sum(1 for o in plan.outputs if not o.in_kernel):
        # getdents64's entries: its reply read as bytes when every output prints them (a
        # reply past the bytes read could no longer be counted for one that does not)
        opts.dirents = True
    # argv: every element for a verbose output, string_limit of them else, each cut at
    # string_limit + 1 bytes; with an output that prints argv whole (jsonl) or a
    # recording (replayed with any string_limit), its default capture: 32 elements
    # while they fit 3072 bytes (more than string_limit of them when the output prints
    # more). Cut elements fit: 32 of 200 bytes do not
    limits = [getattr(o.options, "string_limit", 0) for o in plan.outputs if not o.in_kernel]
    cut = bool(limits) and record is None and all(
        hasattr(o.options, "string_limit") for o in plan.outputs if not o.in_kernel)
    if verbose or max(limits, default=0) > 32 or cut:
        opts.argv_strings = min(max(limits + verbose), 1 << 10) + 1
    # data buffers: string_limit bytes of them, and one more to tell a longer one
    opts.data_bytes = max(limits, default=0) + 1
    recording = open_recording(record, opts) if record else None
    completed = False
    try:
        facts = recording.recorder.facts if recording is not None else None
        stages = (selection_stages(cfg.filter, facts=facts)
                  + build_stages(cfg.stage, facts=facts, source=path))
        whole, interval_from = kernel_summary_sources(lambda: trace.session)

        def summary_from() -> Any:       # called by a sink at its end, the session open
            summary = whole()
            if recording is not None:
                recording.recorder.summary(summary)
            return summary

        def counters_from() -> dict[str, int]:     # the kernel's counters now (metrics)
            session = trace.session
            if session is None or session.obj is None:
                return {}
            c = session.counters()
            return {"lost": c.lost, "summary_full": c.summary_full,
                    "untraced": c.pids_full + session.not_added}

        ctx = SinkContext.for_machine(
            summary_from=summary_from if plan.kernel_summary else None,
            interval_from=interval_from if plan.kernel_summary else None, facts=facts)
        ctx = dataclasses.replace(ctx, counters_from=counters_from)
        stages = plan.stages(stages, ctx)
        # fds printed with what they refer to (or followed by -P): keep the fd tables true
        opts.fd_table = _fd_tables_wanted(plan, stages)
        # events go to files and stderr is a terminal: a live line on stderr
        status_line = plan.status_line_ok and all(status_wanted(p) for p in plan.paths)
        trace = LiveTrace(opts, stages, collect=False, timeout_s=cfg.timeout_s,
                          while_tracing=[_draw_status] if status_line else [],
                          recorder=recording.recorder if recording is not None else None)
        status = await _run_live(trace, plan, ctx, signals)
        completed = True
        if recording is not None and recording.recorder.writer.reader_left:
            # a fifo's reader that left: the trace went on to the other outputs
            log.warning("the reader of the recording %s went away: the recording stops "
                        "where it left, the trace went on", record)
        return status
    finally:
        if recording is not None:
            recording.close(completed=completed)


class _OpenRecording:
    """A recording's file and :class:`~tracekit.session.recording.Recorder`."""

    def __init__(self, out: Any, recorder: Any) -> None:
        self.out, self.recorder = out, recorder

    def close(self, *, completed: bool) -> None:
        from tracekit.session.recording import End

        # a trace that never started writes its end here (the trace writes it otherwise)
        self.recorder.close(End(ts_ns=0, records=0, lost=0, completed=False))
        close_output(self.out, completed=True)   # what was recorded stays, also on failure


def open_recording(path: str, opts: Any) -> _OpenRecording:
    """Open ``path`` for a recording (a new 0600 file, as every output) and write its
    header."""
    from tracekit.session.recording import Recorder, make_header

    out = open_output(path)
    try:
        recorder = Recorder(out, make_header(opts))
    except BaseException:
        close_output(out, completed=False)
        raise
    return _OpenRecording(out, recorder)


async def _run_live(trace: Any, plan: OutputPlan, ctx: SinkContext, signals: _Signals) -> int:
    completed = False
    try:
        trace.sinks.extend(plan.open_sinks(ctx))
        result = await trace.run() if signals.attach(trace) else None
        if result is None:              # a signal came while starting
            return 128 + (signals.first or trace.interrupted_by or signal.SIGINT)
        completed = True
    finally:
        plan.close(completed=completed)
    session, losses = trace.session, trace.final_losses
    assert session is not None and losses is not None
    return end_status(result, closed_by_reader=plan.closed_by_reader,
                      returncode=trace.returncode, losses=losses,
                      command=session.command is not None,
                      interrupted_by=trace.interrupted_by)


def end_status(result: Any, *, closed_by_reader: bool, returncode: int | None,
               losses: Losses, command: bool, interrupted_by: int | None = None) -> int:
    """The exit status of a run (or a replay) that ended with ``result``; prints on stderr
    everything ``losses`` counts (records lost by kind, tasks not traced, full maps,
    events stages dropped), a line each.

    Args:
      closed_by_reader: an output's reader went away (``| head``).
      returncode: the command's (-N: killed by signal N); None without one.
      command: the target was a command.
      interrupted_by: the signal that ended the trace, if one did.
    """
    status = 0
    if result.downstream_closed and closed_by_reader:
        # The reader of our output went away (`| head`): stop here without
        # waiting for the command, which goes on untraced; status as SIGPIPE's.
        status = 128 + signal.SIGPIPE
        losses = losses.reader_left()
    elif result.downstream_closed:
        # A stage stopped reading (e.g. one that wanted only the first events):
        # tracing ends; the command goes on untraced.
        log.warning("a stage stopped reading its input: tracing ended early%s",
                    "; the command goes on untraced" if command else "")
    elif returncode is not None:
        status = returncode if returncode >= 0 else 128 - returncode
    elif command and interrupted_by is not None:
        # the command did not end on the signal (it handles it): it goes on untraced,
        # and tracekit ends as strace does, with the signal's status
        status = 128 + interrupted_by
    # Everything lost or skipped, one line each (the kernel counts on while a pid target
    # runs after the final drain: those calls came after the stop, untraced, not lost).
    for line in losses.lines():
        print(f"tracekit: {line}", file=stderr())
    if losses.ringbuf_full:
        print("tracekit: a bigger ring buffer loses fewer records: -m PAGES (buffer_pages "
              "in a pipeline file)", file=stderr())
    if losses.untraced_tasks:
        print("tracekit: raise pids_max_entries in the pipeline file to trace more tasks",
              file=stderr())
    return status


async def _draw_status(trace: Any) -> None:
    """The live status line until the trace has drained (cancelled: the line is erased)."""
    await StatusLine(session_sampler(trace.session, trace.source)).run()


def _fd_tables_wanted(plan: OutputPlan, stages: list[Any]) -> bool:
    """Whether something prints fds with what they refer to (an output's ``fd_paths``,
    a beautify stage's) or follows them (a path filter): then the session records the
    calls that change fd tables even when the selection hides them, the fds left after
    each exec, and the targets' tables at start (tracekit.session.fdstate)."""
    from tracekit.pipeline.beautify import Beautify
    from tracekit.pipeline.pathfilter import PathFilter

    return any(getattr(o.options, "fd_paths", False) and not o.in_kernel
               for o in plan.outputs) or any(
        isinstance(st, PathFilter) or (isinstance(st, Beautify) and st.decoder.fd_paths)
        for st in stages)


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
