"""The live status line on stderr while events go to a file (rich).

One transient line, redrawn every ``interval_s`` by a trio task, erased when the task ends
(cancelled or stopped)::

    tracekit  12.4 s  45,678 events  3,712 events/s  0 lost  3 tasks

It is drawn on stderr, and only when the events go to a file and stderr is a terminal
(:func:`status_wanted`), so it never mixes into the output. rich draws from this trio
task alone (``auto_refresh=False``: no refresh thread) and does not redirect
``sys.stdout``/``sys.stderr``.

- elapsed: trio clock seconds since the line started;
- events: records the source decoded (``RingBufferSource.records``);
- events/s: over the last ``interval_s`` (0 on the first draw);
- lost: records the kernel could not reserve (``counters`` map, as the source reports);
- tasks: threads in the pids map now (``Session.traced_tids``; not shown system-wide,
  where the map is not used).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

import trio

__all__ = ["StatusLine", "StatusSample", "format_status", "status_wanted"]


@dataclass(frozen=True)
class StatusSample:
    """What the line shows, sampled once per redraw.

    Attributes:
      events: events decoded so far.
      lost: records lost so far (the kernel could not reserve them).
      tasks: threads traced now, or None when not known (system-wide).
    """

    events: int
    lost: int
    tasks: int | None


def format_status(elapsed_s: float, sample: StatusSample, events_per_s: float) -> str:
    """The line's text (no markup)."""
    text = (f"tracekit  {elapsed_s:.1f} s  {sample.events:,} events  "
            f"{events_per_s:,.0f} events/s  {sample.lost:,} lost")
    if sample.tasks is not None:
        text += f"  {sample.tasks:,} task{'' if sample.tasks == 1 else 's'}"
    return text


def status_wanted(output_path: str, stderr: IO[Any] | None = None) -> bool:
    """Whether ``tracekit run`` should draw the line: the events go to a file (not
    ``"-"``, ``/dev/stdout`` or ``/dev/stderr``), stderr is a terminal (``isatty``) and
    ``TERM`` is not ``dumb``."""
    from tracekit.formatters._output import std_stream_of

    err = sys.stderr if stderr is None else stderr
    return (std_stream_of(output_path) is None and err is not None and err.isatty()
            and os.environ.get("TERM") != "dumb")


def session_sampler(session: Any, source: Any) -> Callable[[], StatusSample]:
    """A sampler over a live :class:`~tracekit.Session` and its
    :class:`~tracekit.RingBufferSource` (their counters; one pids-map walk per call)."""
    def sample() -> StatusSample:
        tasks = None
        if not session.opts.system_wide and session.obj is not None:
            tasks = len(session.traced_tids())
        return StatusSample(events=source.records, lost=source.lost, tasks=tasks)
    return sample


class StatusLine:
    """A trio task drawing the status line until it is cancelled or :meth:`stop` is called.

    Args:
      sample: called once per redraw; :func:`session_sampler` for a session.
      console: a ``rich.console.Console``; default: one on stderr.
      interval_s: seconds between redraws.

    Use::

        line = StatusLine(session_sampler(session, source))
        nursery.start_soon(line.run)
        ...
        line.stop()          # erases the line; run() returns
    """

    def __init__(self, sample: Callable[[], StatusSample], *, console: Any = None,
                 interval_s: float = 0.5) -> None:
        if console is None:
            from rich.console import Console
            console = Console(file=sys.stderr, stderr=True)
        self.sample = sample
        self.console = console
        self.interval_s = interval_s
        self._stop = trio.Event()
        self.last_text = ""

    def stop(self) -> None:
        """End :meth:`run` and erase the line (idempotent; from any task of the run)."""
        self._stop.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        from rich.live import Live
        from rich.text import Text

        t0 = prev_t = trio.current_time()
        prev_events = self.sample().events      # the rate counts from here
        with Live(Text(""), console=self.console, auto_refresh=False, transient=True,
                  redirect_stdout=False, redirect_stderr=False) as live:
            task_status.started()
            while True:
                now = trio.current_time()
                s = self.sample()
                dt = now - prev_t
                rate = (s.events - prev_events) / dt if dt > 0 else 0.0
                prev_t, prev_events = now, s.events
                self.last_text = format_status(now - t0, s, rate)
                live.update(Text(self.last_text, style="bold"), refresh=True)
                with trio.move_on_after(self.interval_s):
                    await self._stop.wait()
                if self._stop.is_set():
                    break
