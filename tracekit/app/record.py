"""``tracekit record`` and ``tracekit replay``: capture a trace now, print it later.

``tracekit record [PIPELINE] -o FILE [options] [-- COMMAND]`` traces what ``run`` would
(same targets and selections, in the kernel) and writes the raw ring-buffer records to
FILE (tracekit.session.recording; docs/recording-format.md) without decoding them: the
stages and the output of the pipeline file run at replay. It keeps the fd tables as
``run`` does when fds are printed (the calls a selection hides that change them, the
tables at start, new fds' targets), so a replay can print fds as strace -yy does.
``tracekit run PIPELINE --record FILE`` (or the file's ``record`` key) prints and
records in one run.

``tracekit replay FILE [PIPELINE] [-o OUT] [-P PATH]`` runs the pipeline file's stages
and output over the recording, offline: no BPF, no /proc (what the live run read from
the system comes from the recording). With the options the live run had, its text is
the live run's, byte for byte.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tracekit._stdio import stderr

log = logging.getLogger("tracekit.record")

__all__ = ["RecordedTrace", "add_parsers", "cmd_record", "cmd_replay", "record_file",
           "replay_file"]


def add_parsers(sub: Any, *, targets: Callable[[argparse.ArgumentParser], None],
                outputs: Callable[[argparse.ArgumentParser], None],
                unsafe: Callable[[argparse.ArgumentParser], None]) -> None:
    """The ``record`` and ``replay`` subcommands. ``record`` takes ``run``'s target,
    selection and limit options (``targets``), ``replay`` its output options
    (``outputs``); both ``--allow-unsafe-config`` (``unsafe``)."""
    rec = sub.add_parser("record", help="write a trace's raw records to a file, to replay "
                                        "later", allow_abbrev=False)
    rec.add_argument("pipeline", type=Path, nargs="?", metavar="PIPELINE",
                     help="pipeline.toml for the target, the selection and the sizes "
                          "(its stages and outputs run at replay)")
    rec.add_argument("-o", "--output", required=True, metavar="FILE",
                     help="the recording (a new file, mode 0600)")
    rec.add_argument("--no-compress", action="store_true",
                     help="write frames uncompressed (zstd level 1 by default)")
    targets(rec)
    unsafe(rec)
    rec.epilog = "Put '-- COMMAND [ARGS...]' last to trace that command."
    rep = sub.add_parser("replay", help="run a pipeline's stages and outputs over a "
                                        "recording", allow_abbrev=False)
    rep.add_argument("recording", type=Path, help="a file written by 'tracekit record' "
                                                  "or 'run --record'")
    rep.add_argument("pipeline", type=Path, nargs="?", metavar="PIPELINE",
                     help="pipeline.toml for the stages and the outputs (its target and "
                          "kernel selection were the recording's)")
    rep.add_argument("-P", "--path", action="append", default=[], metavar="PATH",
                     help="only calls that name PATH or use an fd open on it ([filter] path)")
    outputs(rep)
    unsafe(rep)


def _config(pipeline: Path | None, *, need_target: bool = True) -> Any:
    from tracekit.app.config import PipelineConfig, load_config

    if pipeline is not None:
        return load_config(pipeline, need_target=need_target)
    return PipelineConfig()


def cmd_record(args: argparse.Namespace) -> int:
    """``tracekit record``: the exit status as ``run``'s."""
    import msgspec
    import trio

    from tracekit.app.cli import _apply_overrides, _refuse_command_as_pipeline, _targets_given
    from tracekit.app.config import check_target
    from tracekit.app.inputs import check_output_not_input, run_inputs
    from tracekit.app.selection import session_selection

    if args.pipeline is not None:
        _refuse_command_as_pipeline(args.pipeline, args)
    cfg = _config(args.pipeline, need_target=not _targets_given(args))
    cfg = _apply_overrides(cfg, args, outputs=False)
    check_target(cfg.target)
    session_selection(cfg.filter, cfg.target)
    cfg = msgspec.structs.replace(cfg, stage=[])
    check_output_not_input(args.output, run_inputs(args.pipeline, cfg.target.command))
    return trio.run(record_file, cfg, args.pipeline or Path("<command line>"), args.output,
                    not args.no_compress)


async def record_file(cfg: Any, path: Path, out_path: str, compress: bool = True) -> int:
    """Record what ``cfg`` targets into ``out_path``; returns the exit status (``run``'s).

    Raises:
      TracekitError: as :func:`tracekit.app.run.run_pipeline_file`.
    """
    from tracekit.app.run import _Signals

    with _Signals() as signals:     # first: a signal from here on is handled
        return await _record(cfg, path, out_path, compress, signals)


async def _record(cfg: Any, path: Path, out_path: str, compress: bool, signals: Any) -> int:
    from tracekit.app.run import _draw_status, end_status, session_options
    from tracekit.app.status import status_wanted
    from tracekit.app.trace import LiveTrace
    from tracekit.formatters._output import close_output, open_output
    from tracekit.session.recording import End, Recorder, make_header

    opts, _ = session_options(cfg, path, signals.inherited)
    # a replay may print fds with what they refer to (the text formats' default) or
    # follow them (-P): keep what that needs, as run does for such an output (the calls
    # a selection hides that change fd tables, the tables at start, new fds' targets)
    opts.fd_table = True
    out = open_output(out_path)
    recorder = None
    try:
        recorder = Recorder(out, make_header(opts), compress=compress)
        sink = _Discard(recorder.writer, out, recorder.facts)
        trace = LiveTrace(opts, [], [sink], collect=False, timeout_s=cfg.timeout_s,
                          while_tracing=[_draw_status] if status_wanted(out_path) else [],
                          recorder=recorder)
        result = await trace.run() if signals.attach(trace) else None
        if result is None:              # a signal came while starting
            return 128 + (signals.first or trace.interrupted_by or 2)
    finally:
        if recorder is not None:
            recorder.close(End(ts_ns=0, records=0, lost=0, completed=False))
        close_output(out, completed=True)
    session, losses = trace.session, trace.final_losses
    assert session is not None and losses is not None
    if sink.closed_by_reader:           # `| head -c`: it has what it wanted, as run's
        return end_status(result, closed_by_reader=True, returncode=trace.returncode,
                          losses=losses, command=session.command is not None,
                          interrupted_by=trace.interrupted_by)
    print(f"tracekit: recorded {recorder.records_written} records in "
          f"{recorder.writer.bytes_out} bytes ({recorder.frames} frames) to {out_path}",
          file=stderr())
    return end_status(result, closed_by_reader=False, returncode=trace.returncode,
                      losses=losses, command=session.command is not None,
                      interrupted_by=trace.interrupted_by)


class _Discard:
    """The sink of ``tracekit record``: the records are in the file already.

    With the recording's ``writer`` and ``stream``: once a write found the reader of the
    pipe or fifo gone, or poll(2) says it is (a quiet command writes nothing to find
    out), the sink stops reading, which ends the trace as a text sink whose reader left
    does (:attr:`closed_by_reader`: status 141, the command gets SIGPIPE).
    """

    name = "discard"

    def __init__(self, writer: Any = None, stream: Any = None, facts: Any = None) -> None:
        self.writer, self.stream, self.facts = writer, stream, facts
        self.closed_by_reader = False

    async def run(self, ctx: Any, recv: Any) -> None:
        import trio

        from tracekit.formatters._base import _watch_reader
        from tracekit.formatters._output import pipe_fd

        with trio.CancelScope() as reading:     # cancelled when the reader is gone
            async with trio.open_nursery() as watch:
                if self.stream is not None and pipe_fd(self.stream) is not None:
                    watch.start_soon(_watch_reader, self.stream, reading)
                resolve = _OpenNames(self.facts, getattr(ctx, "syscall_table", None))
                async with recv:
                    async for batch in recv:
                        resolve.add(batch)
                        if self.writer is not None and self.writer.reader_left:
                            break
                watch.cancel_scope.cancel()
        if reading.cancelled_caught or (self.writer is not None and self.writer.reader_left):
            self.closed_by_reader = True
            if self.writer is not None:
                self.writer.reader_left = True


class _OpenNames:
    """Follows the fd tables as a replay's decoder will, so that the kernel's name of
    each opened file (its path with symlinks resolved, read now, while the files are
    there) is written down in the recording's facts: a replay prints ``3</etc/x>`` as
    the live trace would (tracekit.session.recording.ReplayFacts)."""

    def __init__(self, facts: Any, syscall_table: Any = None) -> None:
        from tracekit.decode.args import SyscallDecoder
        from tracekit.decode.fdcache import FdCache

        self.fdcache = FdCache(facts=facts.reader("record")) if facts is not None else None
        self.decoder = SyscallDecoder(syscall_table, fd_paths=True, fdcache=self.fdcache) \
            if self.fdcache is not None else None

    def add(self, batch: Any) -> None:
        from tracekit._events import SC_COMPAT, Syscall

        decoder = self.decoder
        if decoder is None or self.fdcache is None:
            return
        for ev in batch:
            if isinstance(ev, Syscall):
                call = decoder.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT))
                if call.fd_action or call.described:   # only what changes fd tables
                    decoder.decode(ev)
            else:
                self.fdcache.observe(ev)


def cmd_replay(args: argparse.Namespace) -> int:
    """``tracekit replay``: 0, or 141 when the reader of an output went away."""
    import msgspec
    import trio

    from tracekit.app.cli import _apply_output_options, sigint_raises
    from tracekit.app.config import check_outputs
    from tracekit.app.inputs import check_output_not_input

    cfg = _config(args.pipeline, need_target=False)
    if args.path:
        cfg = msgspec.structs.replace(
            cfg, filter=msgspec.structs.replace(cfg.filter, path=list(args.path)))
    cfg = _apply_output_options(cfg, args)
    check_outputs(cfg)
    inputs = [("recording", str(args.recording))] + (
        [("pipeline file", str(args.pipeline))] if args.pipeline else [])
    for o in cfg.outputs:
        check_output_not_input(o.path, inputs)
    sigint_raises()     # ^C: the replay's tasks end, its outputs close with what they have
    return trio.run(replay_file, args.recording, cfg, args.pipeline or Path("<options>"))


def _recorded_losses(end: Any, final: dict[str, int]) -> Any:
    """The :class:`~tracekit.Losses` of the live run: as its sinks wrote them, else (a
    recording cut short, or of a trace that failed) from the counters it holds."""
    from tracekit._events import Losses

    if end is not None and end.losses is not None:
        return end.losses
    counters = end.counters if end is not None else {}
    return Losses(ts_ns=end.ts_ns if end is not None else 0, lost_syscalls=final["lost"],
                  lost_fd_table=counters.get("fd_lost", 0),
                  untraced_tasks=max(0, final["untraced"]),
                  capbuf_full=counters.get("capbuf_full", 0),
                  stacks_missing=counters.get("stack_full", 0),
                  scratch_full=counters.get("scratch_full", 0),
                  summary_full=final["summary_full"],
                  errno_full=counters.get("errno_full", 0))


async def replay_file(recording: Path | str, cfg: Any, path: Path) -> int:
    """Run ``cfg``'s stages and output over ``recording``; returns the exit status (0, or
    141 when the reader of the output went away).

    Raises:
      RecordingError: not a recording, or of a newer format.
      ConfigError: the output needs what the recording lacks (records, or the in-kernel
        summary).
    """
    from tracekit._errors import ConfigError
    from tracekit.app.outputs import OutputPlan
    from tracekit.app.registry import build_stages
    from tracekit.app.run import end_status
    from tracekit.app.selection import selection_stages
    from tracekit.formatters._spec import SinkContext
    from tracekit.pipeline._run import Pipeline
    from tracekit.session.recording import Recording, RecordingSource, ReplayFacts

    rec = Recording.open(recording)
    header = rec.header
    assert header is not None
    if rec.stopped is not None:
        log.warning("%s: the recording stops early: %s; replaying what precedes it",
                    recording, rec.stopped)
    warned = rec.stopped
    if header.format_version < 2 and not header.kernel_summary:
        log.warning("%s: recording format %d holds no fd tables, sockets or devices read "
                    "as the trace ran: fds may print with less than the live run printed",
                    recording, header.format_version)
    table, compat = rec.syscall_table(), rec.compat_table()
    args = header.syscall_args

    def arg_names(name: str) -> list[str] | None:
        got = args.get(name)
        return None if got is None else [a for a, _ in got]

    def arg_types(name: str) -> list[tuple[str, str]] | None:
        got = args.get(name)
        return None if got is None else [(a, t) for a, t in got]

    end = rec.end
    counters = end.counters if end is not None else {}
    final = {"lost": end.lost if end is not None else 0,
             "summary_full": counters.get("summary_full", 0),
             "untraced": (counters.get("pids_full", 0) + end.not_added - end.repaired
                          if end is not None else 0)}
    context: dict[str, Any] = {"replay": True,
               "syscall_name": table.name, "counters_from": lambda: final,
               "arg_names": arg_names, "arg_types": arg_types, "syscall_table": table,
               "compat_syscall_name": compat.name if compat is not None
               else (lambda nr: f"syscall_{nr}")}

    def summary_from() -> Any:
        if rec.summary is None:
            raise ConfigError(f"{recording}: the recording has no in-kernel summary (it "
                              "stopped before the end)")
        return rec.summary

    plan = OutputPlan(cfg, has_stages=bool(cfg.stage or cfg.filter.path),
                      in_kernel=header.kernel_summary)
    for o in plan.outputs:
        if header.kernel_summary and o.spec.name not in ("summary", "openmetrics"):
            raise ConfigError(f"{recording}: the recording holds an in-kernel summary, no "
                              f"syscall records: replay it with format = \"summary\" or "
                              f"\"openmetrics\", not {o.spec.name!r}")
        if not header.kernel_summary and o.spec.name == "openmetrics":
            raise ConfigError(f"{recording}: the recording holds syscall records, no "
                              "in-kernel summary, which format = \"openmetrics\" reads")
    facts = ReplayFacts(rec)
    ctx = dataclasses.replace(
        SinkContext.for_machine(summary_from=summary_from if header.kernel_summary else None,
                                facts=facts), **context)
    stages = plan.stages(selection_stages(cfg.filter, facts=facts)
                         + build_stages(cfg.stage, facts=facts, source=path), ctx)
    source = RecordingSource(rec)
    losses = _recorded_losses(end, final)
    completed = False
    try:
        sinks = plan.open_sinks(ctx)
        for sink in sinks:
            if getattr(sink, "losses_from", False) is None:
                sink.losses_from = lambda: losses   # what the live sinks wrote at their end
        result = await Pipeline(source, stages, sinks).run()
        completed = True
    finally:
        plan.close(completed=completed)
    if rec.unnamed_stacks:
        log.warning("%s: %d stacks print as addresses: the recording (format %d) holds no "
                    "names for them", recording, rec.unnamed_stacks, header.format_version)
    if rec.stopped is not None and rec.stopped != warned:
        # a damaged frame of records, which only the replay itself reads
        log.warning("%s: the recording stops early: %s; replayed what precedes it",
                    recording, rec.stopped)
    return end_status(result, closed_by_reader=plan.closed_by_reader, returncode=None,
                      losses=losses, command=False)


class RecordedTrace:
    """A recording run through stages and sinks, read as a live trace is read
    (:class:`~tracekit.app.trace.LiveTrace`'s reading side: :meth:`summary`,
    :meth:`last_events`, :meth:`stats`): what ``tracekit.notebook.replay`` runs.

    Its collector names syscalls with the recording's table; the stages and sinks are
    given as they are (a formatter built here decodes with this machine's tables, right
    for a recording made on a machine like this one).

    Args:
      recording: a :class:`~tracekit.session.recording.Recording` or its path.
      stages: applied in order to the events before the collector and ``sinks``.
      sinks: more sinks (a JsonlSink to a file ...).
      keep_events: how many of the latest events :meth:`last_events` can return.
      interval_s: sleep this long before each batch (0: as fast as the stages take them).

    Raises:
      RecordingError: not a recording, or of a newer format.
      OSError: the file cannot be read.

    Attributes:
      recording, source (the :class:`~tracekit.session.recording.RecordingSource`),
      collector, result (the pipeline's, once finished), started_at / ended_at (trio
      clock seconds).
    """

    def __init__(self, recording: Any, stages: Any = (), sinks: Any = (), *,
                 keep_events: int = 10_000, interval_s: float = 0.0) -> None:
        from tracekit.app.trace import Collector
        from tracekit.session.recording import Recording, RecordingSource

        self.recording = (recording if isinstance(recording, Recording)
                          else Recording.open(recording))
        compat = self.recording.compat_table()
        self.collector = Collector(keep_events,
                                   syscall_name=self.recording.syscall_table().name,
                                   compat_syscall_name=compat.name if compat else None)
        self.source = RecordingSource(self.recording, interval_s=interval_s)
        self.stages = list(stages)
        self.sinks = list(sinks)
        self.opts = f"replay of {self.recording.path}"     # names the trio task
        self.result: Any = None
        self.started_at: float | None = None
        self.ended_at: float | None = None

    async def run(self, *, task_status: Any = None) -> Any:
        """Send the recording through the pipeline; returns its result.

        Raises:
          TracekitError: a stage or sink failed (PipelineError), or a frame is corrupt
            (RecordingError).
        """
        import trio

        from tracekit.pipeline._run import Pipeline

        self.started_at = trio.current_time()
        if task_status is not None:
            task_status.started()
        try:
            self.result = await Pipeline(self.source, self.stages,
                                         [self.collector, *self.sinks]).run()
        finally:
            self.ended_at = trio.current_time()
        return self.result

    @property
    def running(self) -> bool:
        return self.started_at is not None and self.ended_at is None

    @property
    def returncode(self) -> int | None:
        """The traced command's exit code as recorded (-N: signal N), else None."""
        end = self.recording.end
        return end.returncode if end is not None else None

    def stop(self, *, terminate: bool = True) -> None:
        """End before the next batch (idempotent; ``terminate`` has nothing to end)."""
        self.source.request_stop()

    def summary(self, group_by: Any = "thread") -> Any:
        """The statistics of every syscall sent so far (a :class:`~tracekit.Summary`)."""
        return self.collector.summarizer.summary(group_by)

    def last_events(self, n: int | None = None) -> list[Any]:
        """The last ``n`` events (all kept ones when None), oldest first."""
        kept = list(self.collector.recent)
        return kept if n is None else kept[max(0, len(kept) - n):]

    def stats(self) -> dict[str, Any]:
        """``elapsed_s`` (trio clock, of the replay), ``events`` (records decoded),
        ``lost`` (records the kernel could not write, as recorded), ``tasks`` (None),
        ``running``."""
        import trio

        if self.started_at is None:
            elapsed = 0.0
        else:
            end = self.ended_at if self.ended_at is not None else trio.current_time()
            elapsed = end - self.started_at
        return {"elapsed_s": elapsed, "events": self.source.records,
                "lost": self.source.lost, "tasks": None, "running": self.running}
