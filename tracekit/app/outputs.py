"""The outputs of one ``tracekit run``: what each needs, their streams, their sinks.

A pipeline file has one ``[output]`` table or several ``[[output]]`` tables; every output
gets every event (the pipeline's tee), and each stage a format needs (decoding,
ordering) runs once, before all of them (:func:`~tracekit.formatters.stages_for`)::

    source -> selection stages -> [[stage]]s -> beautify -> reorder --+--> output 1 (perf, a file)
                                                (once, if any output  +--> output 2 (summary,
                                                 needs them)                        stderr)

How the trace is asked for (:class:`OutputPlan`):

- a summary counts in BPF maps (``mode = "kernel"``, or ``"auto"`` when no ``[[stage]]``
  is configured and no other output needs the records); any other output needs the
  syscall records, which the kernel then sends too (``SessionOptions.summary_records``);
- streams: ``-``/``/dev/stdout`` and ``/dev/stderr`` are shared and never closed; a file
  is opened by :func:`~tracekit.formatters.open_output` (a summary's file replaced whole
  at the end unless it has interval reports);
- an output written at the end (a summary) that shares a standard stream with an output
  written while tracing is written after that one has written its last line: ``-C``
  without ``-o`` prints the trace, then the summary, on stdout, as strace does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import IO, Any

import msgspec
import trio

from tracekit._summary import Summary
from tracekit.formatters._output import close_output, open_output, std_stream_of
from tracekit.formatters._spec import FormatSpec, SinkContext, format_spec, stages_for
from tracekit.pipeline._stage import EventReceiver, StageContext

__all__ = ["OutputPlan"]


@dataclasses.dataclass
class _Output:
    """One planned output."""

    index: int
    name: str                        # its sink's name (unique in the pipeline)
    spec: FormatSpec[Any]
    options: msgspec.Struct
    path: str
    std: int | None                  # 1 stdout, 2 stderr, None a file
    in_kernel: bool                  # a summary counted in BPF maps
    stream: IO[Any] | str | None = None   # a path: the sink rewrites the file itself
    sink: Any = None


class OutputPlan:
    """What the outputs of ``cfg`` need from the trace, and their sinks.

    Args:
      cfg: the effective PipelineConfig (file and command line).
      has_stages: stages run before the outputs ([[stage]]s, selection stages): a summary
        in ``mode = "auto"`` then counts the events they pass on.
      in_kernel: whether the syscalls were counted in BPF maps (a replay: as its recording
        says); None: as each output's format decides.

    Attributes:
      kernel_summary: some output counts the calls in BPF maps (``SessionOptions.summary``).
      records: some output needs the syscall records (``summary_records`` when both).
      status_line_ok: no output writes to a standard stream while tracing, nothing to
        stderr at all, and records flow: a live status line on stderr cannot get in the
        way (``tracekit.app.status.status_wanted`` decides the rest).
    """

    def __init__(self, cfg: Any, *, has_stages: bool, in_kernel: bool | None = None) -> None:
        outs = cfg.outputs
        counts: dict[str, int] = {}
        for o in outs:
            counts[o.format] = counts.get(o.format, 0) + 1
        self.outputs: list[_Output] = []
        specs = [format_spec(o.format) for o in outs]
        # an output that cannot count in the kernel needs the records (a trace)
        needs_records = any(not spec.counts_in_kernel(spec.options_of(o), has_stages=False)
                            for spec, o in zip(specs, outs, strict=True))
        seen: dict[str, int] = {}
        for i, (spec, o) in enumerate(zip(specs, outs, strict=True)):
            options = spec.options_of(o)
            seen[o.format] = seen.get(o.format, 0) + 1
            name = o.format if counts[o.format] == 1 else f"{o.format}#{seen[o.format]}"
            counted = in_kernel if in_kernel is not None else spec.counts_in_kernel(
                options, has_stages=has_stages or needs_records)
            self.outputs.append(_Output(i, name, spec, options, o.path,
                                        std_stream_of(o.path), counted))
        self.kernel_summary = any(o.in_kernel for o in self.outputs)
        self.records = any(not o.in_kernel for o in self.outputs)
        self.status_line_ok = self.records and all(
            o.std is None for o in self.outputs)

    @property
    def paths(self) -> list[str]:
        """Every output's path, in order."""
        return [o.path for o in self.outputs]

    def stages(self, configured: Sequence[Any], ctx: SinkContext) -> list[Any]:
        """``configured`` followed by the stages the outputs' formats need, each once."""
        wants = [_Wants(o.spec, o.options) for o in self.outputs if not o.in_kernel]
        return stages_for(wants, configured, ctx)

    def open_sinks(self, ctx: SinkContext) -> list[Any]:
        """Open every output's stream and make its sink (in order).

        Args:
          ctx: the machine's tables and, for a summary counted in the kernel, where its
            counts come from (``summary_from``, ``interval_from``; an output that counts
            events gets a context without them).

        Raises:
          ConfigError: an output cannot be opened (streams opened before it are closed,
            a new file removed) or an option value the sink does not take.
        """
        sinks: list[Any] = []
        try:
            for o in self.outputs:
                # a sink that rewrites its file itself (a metrics textfile) gets the path
                o.stream = o.path if o.spec.rewrites and o.path != "-" else open_output(
                    o.path, atomic=o.spec.at_end(o.options))
                octx = ctx if o.in_kernel else dataclasses.replace(
                    ctx, summary_from=None, interval_from=None)
                o.sink = o.spec.make_sink(o.stream, o.options, octx)
                o.sink.name = o.name
                sinks.append(o.sink)
            # a standard stream's outputs written while tracing, and when each has ended
            finished: dict[int, list[trio.Event]] = {}
            for i, o in enumerate(self.outputs):
                if o.std is not None and not o.spec.at_end(o.options):
                    ended = trio.Event()
                    finished.setdefault(o.std, []).append(ended)
                    sinks[i] = _Signalled(o.sink, ended)
            for i, o in enumerate(self.outputs):
                if o.std is not None and o.spec.at_end(o.options) and finished.get(o.std):
                    sinks[i] = _After(o.sink, finished[o.std])
        except BaseException:
            self.close(completed=False)
            raise
        return sinks

    def close(self, *, completed: bool) -> None:
        """Close every stream opened (a summary's file is put in place when the run
        ``completed``; the standard streams are flushed, not closed).

        Raises:
          TracekitError: closing a file of a completed run failed (its errno name).
        """
        errors: list[BaseException] = []
        for o in self.outputs:
            if o.stream is None:
                continue
            stream, o.stream = o.stream, None
            if isinstance(stream, str):
                continue                # a path its sink rewrote itself
            try:
                close_output(stream, completed=completed)
            except BaseException as e:     # close the others first, then report it
                errors.append(e)
        if errors:
            raise errors[0]

    @property
    def closed_by_reader(self) -> bool:
        """Some output's reader went away (``| head``)."""
        return any(getattr(o.sink, "closed_by_reader", False) for o in self.outputs)

    @property
    def all_closed_by_reader(self) -> bool:
        """Every output's reader went away: nothing is written any more."""
        return all(getattr(o.sink, "closed_by_reader", False) for o in self.outputs)


class _Wants:
    """What :func:`stages_for` reads of a sink, before the sink exists."""

    def __init__(self, spec: FormatSpec[Any], options: msgspec.Struct) -> None:
        self.spec, self.options = spec, options


class _Wrapper:
    """A sink around ``inner`` whose ``losses_from`` is the inner sink's: the trace sets
    it on every sink that writes the losses at its end (a JSON Lines sink on stdout
    wrapped here lost its ``losses`` line); so is ``closed_by_reader``, which the trace
    reads (tracekit.app.trace.LiveTrace)."""

    inner: Any

    @property
    def losses_from(self) -> Any:
        return getattr(self.inner, "losses_from", False)

    @losses_from.setter
    def losses_from(self, value: Any) -> None:
        self.inner.losses_from = value

    @property
    def closed_by_reader(self) -> bool:
        """The inner sink's: the trace ends the command with SIGPIPE when it is set."""
        return bool(getattr(self.inner, "closed_by_reader", False))


class _Signalled(_Wrapper):
    """A sink that sets :attr:`finished` once it has written its last line."""

    def __init__(self, sink: Any, finished: trio.Event) -> None:
        self.inner, self.name, self.finished = sink, sink.name, finished

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        try:
            await self.inner.run(ctx, recv)
        finally:
            self.finished.set()


class _After(_Wrapper):
    """A sink whose input ends only once ``before`` are set: a summary sharing a stream
    with a trace writes after the trace's last line."""

    def __init__(self, sink: Any, before: list[trio.Event]) -> None:
        self.inner, self.name, self.before = sink, sink.name, before

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        await self.inner.run(ctx, _EndAfter(recv, self.before))


class _EndAfter(trio.abc.ReceiveChannel[Any]):
    """``recv``, whose end is held back until every event of ``before`` is set."""

    def __init__(self, recv: EventReceiver, before: list[trio.Event]) -> None:
        self._recv, self._before = recv, before

    async def receive(self) -> Any:
        try:
            return await self._recv.receive()
        except trio.EndOfChannel:
            for ev in self._before:
                await ev.wait()
            raise

    async def aclose(self) -> None:
        await self._recv.aclose()


def kernel_summary_sources(session_of: Callable[[], Any]
                           ) -> tuple[Callable[[], Summary], Callable[[], Callable[[], Summary]]]:
    """``(summary_from, interval_from)`` for a :class:`SinkContext` of a trace whose
    session counts in the kernel: the whole summary now, and a new reader per sink whose
    ``interval`` gives the calls since its previous call (the maps are read, never reset,
    so several sinks and the final table all see exact counts).

    Args:
      session_of: returns the live :class:`~tracekit.Session` (called only once tracing).
    """
    def summary_from() -> Summary:
        session = session_of()
        assert session is not None
        result: Summary = session.kernel_summary().read()
        return result

    def interval_from() -> Callable[[], Summary]:
        session = session_of()
        assert session is not None and session.obj is not None
        # its own interval start; the reclaimed counts the session's reader keeps
        reader = session.kernel_summary().reader()
        interval: Callable[[], Summary] = reader.interval
        return interval

    return summary_from, interval_from
