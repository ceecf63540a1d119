"""tracekit in Jupyter (or any asyncio program): live traces on trio's guest mode.

Jupyter runs an asyncio loop; tracekit runs on trio. This module starts trio *as a
guest* of the running asyncio loop (``trio.lowlevel.start_guest_run``): trio's tasks run
as callbacks of that loop, and trio waits for I/O in a helper thread, so a cell can
``await`` a trace and every later cell can read it while it runs::

    import tracekit.notebook as tkn

    t = await tkn.start(["python3", "work.py"])     # returns once the programs are attached
    t.stats()                                       # {'elapsed_s': 1.2, 'events': 5231, ...}
    t.summary()                                     # an HTML table in the notebook
    t.events(20).to_dicts()                         # the last 20 events as dicts
    t.stop(); await t.wait()                        # or just: await t.wait()
    t.summary().plot()                              # log2 latency histograms (matplotlib)

    t = await tkn.trace(["ls", "-l", "/"])          # start and wait in one call
    r = await tkn.replay("t.tkrec")                 # a recording (tracekit record), read
    r.summary(); r.events(None).to_polars()         # as a finished trace is

One trio run (the *hub*) serves every trace of the process: it starts with the first trace
and ends when no trace is left, since trio allows one run per thread. The state a cell
reads (:meth:`Trace.summary`, :meth:`Trace.events`) is updated by trio callbacks on the
same thread, never concurrently with the cell.

Needs root (or CAP_BPF and CAP_PERFMON) like every trace; a replay needs neither.
``plot`` needs matplotlib, ``to_polars`` needs polars: ``pip install 'tracekit[notebook]'``.
"""

from __future__ import annotations

import asyncio
import html
import io
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
import outcome
import trio

from tracekit._errors import TracekitError
from tracekit._events import Event, Syscall
from tracekit._summary import GroupBy, SortKey, Summary, SyscallStats, sort_rows
from tracekit.app.record import RecordedTrace
from tracekit.app.trace import LiveTrace
from tracekit.session.session import SessionOptions

__all__ = [
    "EventList",
    "LatencyPlot",
    "SummaryTable",
    "Trace",
    "latency_figure",
    "replay",
    "start",
    "summary_html",
    "summary_rows",
    "trace",
]


# --- the hub: one trio guest run on the asyncio loop ------------------------------------

class _Hub:
    """A trio guest run on ``loop`` that runs traces until none is left.

    Lifecycle::

        start(): no hub ──launch──> running ──last trace ends──> closing ──done──> finished
                            ^ submit(trace) while running (active += 1 first) ─┘

    ``active`` is raised on the asyncio side before a trace is handed over and lowered by
    trio when the trace ends; the hub's main task waits until it is 0, so a trace handed
    over always finds the nursery open. Both sides run on the loop's thread, one at a time.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.active = 0
        self.closing = False
        self.finished: asyncio.Future[None] = loop.create_future()
        self.token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._idle: trio.Event | None = None

    def launch(self, first: Trace) -> None:
        self.active = 1
        trio.lowlevel.start_guest_run(
            self._main, first,
            run_sync_soon_threadsafe=self.loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=self.loop.call_soon,
            done_callback=self._done,
            host_uses_signal_set_wakeup_fd=True)

    def submit(self, t: Trace) -> None:
        assert self.token is not None and not self.closing
        self.active += 1
        self.token.run_sync_soon(self._spawn, t)

    def _spawn(self, t: Trace) -> None:
        assert self._nursery is not None
        self._nursery.start_soon(self._run_trace, t, name=f"trace {t.live.opts}")

    async def _main(self, first: Trace) -> None:
        self.token = trio.lowlevel.current_trio_token()
        self._idle = trio.Event()
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._run_trace, first)
            await self._idle.wait()

    async def _run_trace(self, t: Trace) -> None:
        t.hub = self
        try:
            await t.live.run(task_status=_Started(t._started))
        except Exception as exc:     # handed to the cell: start() or wait() raises it
            t.error = exc
            if not t._started.done():
                t._started.set_exception(exc)
        finally:
            if not t._ended.done():
                t._ended.set_result(None)
            self.active -= 1
            if self.active == 0:
                self.closing = True
                assert self._idle is not None
                self._idle.set()

    def _done(self, result: outcome.Outcome[None]) -> None:
        if self.finished.done():
            return
        if isinstance(result, outcome.Error):     # a bug in the hub: raised to the awaiters
            self.finished.set_exception(result.error)
        else:
            self.finished.set_result(None)


class _Started:
    """A ``task_status`` that resolves an asyncio future (on the loop's thread)."""

    def __init__(self, fut: asyncio.Future[None]) -> None:
        self._fut = fut

    def started(self, value: None = None) -> None:
        if not self._fut.done():
            self._fut.set_result(None)


_HUB: _Hub | None = None


async def _hub_for(loop: asyncio.AbstractEventLoop) -> _Hub | None:
    """The running hub of ``loop``, or None when a new one must be launched."""
    global _HUB
    hub = _HUB
    if hub is None:
        return None
    if hub.loop is not loop:
        if not hub.finished.done():
            raise TracekitError("tracekit.notebook: traces are still running on another "
                                "event loop of this thread; stop them first")
        _HUB = None
        return None
    if hub.closing:
        try:
            await hub.finished       # raises the hub's own failure, if any (a bug)
        finally:
            if _HUB is hub:
                _HUB = None
        return await _hub_for(loop)  # another start() may have launched one meanwhile
    return hub


# --- public: start, trace, Trace ---------------------------------------------------------

def _asyncio_loop(what: str) -> asyncio.AbstractEventLoop:
    """The running asyncio loop, or one error that says what this module runs on (a
    call awaited under trio, say, has none)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise TracekitError(
            f"tracekit.notebook.{what}(): tracekit.notebook runs on an asyncio event loop "
            "(Jupyter's, or asyncio.run) and none is running here; under trio, use the "
            "library API: tracekit.open_session, tracekit.RingBufferSource and "
            "tracekit.pipeline.Pipeline (README, \"As a library\")") from None


async def start(command: Sequence[str] | None = None, *, pids: Iterable[int] = (),
                tids: Iterable[int] = (), system_wide: bool = False,
                syscalls: Sequence[str | int] | None = None, failed_only: bool = False,
                min_duration_ms: float = 0.0, follow_forks: bool = True,
                stages: Sequence[Any] = (), sinks: Sequence[Any] = (),
                keep_events: int = 10_000, timeout_s: float | None = None,
                buffer_pages: int = 1024, **renamed: Any) -> Trace:
    """Start tracing; returns once the programs are attached (a command is then released).

    Exactly one target: ``command`` (argv, traced from its execve), ``pids`` (every thread
    of these processes), ``tids`` or ``system_wide``. The rest mirrors pipeline.toml:
    ``syscalls`` takes names, numbers, globs, ``%class`` and ``!negations``.

    Args:
      stages: stage objects applied in order (``tracekit.pipeline`` or your own).
      sinks: more sinks besides the trace's own collector (e.g. a JsonlSink to a file).
        A formatter among them gets the stages its format needs after ``stages``
        (``tracekit.formatters.stages_for``: a PerfFormatter prints what ``tracekit run``
        prints).
      keep_events: how many of the latest events :meth:`Trace.events` can return.
      timeout_s: the time limit: stop after this many seconds (a command's workload still
        running gets SIGTERM, and SIGKILL 2 s later), as ``tracekit run --timeout``;
        ``min_duration_ms`` is the least duration of a call.
      buffer_pages: ring buffer size in 4 KiB pages (a power of 2).

    Returns:
      The running :class:`Trace`.

    Raises:
      RuntimeError: no asyncio loop is running (call it with ``await`` in a cell).
      TypeError: an unknown keyword; ``duration_s``, the time limit's old name, says
        that it is ``timeout_s`` now.
      TracekitError: start-up failed: ConfigError for a bad syscall name, TargetError for
        a missing pid or command, BpfError with its errno for a kernel refusal.
    """
    if renamed:
        name = next(iter(renamed))
        if name == "duration_s":
            raise TypeError("start(): duration_s was renamed timeout_s (the time limit, in "
                            "seconds; min_duration_ms keeps only calls that took that long)")
        raise TypeError(f"start() got an unexpected keyword argument {name!r}")
    loop = _asyncio_loop("start")
    table_syscalls = None
    if syscalls:
        from tracekit.kernel.selection import resolve_syscalls
        from tracekit.kernel.syscalls import SyscallTable

        table_syscalls = resolve_syscalls(list(syscalls), SyscallTable(), where="syscalls")
    opts = SessionOptions(
        command=list(command) if command else None, pids=list(pids), tids=list(tids),
        system_wide=system_wide, follow_forks=follow_forks, syscalls=table_syscalls,
        failed_only=failed_only, min_duration_ns=int(min_duration_ms * 1_000_000),
        buffer_bytes=buffer_pages * 4096)
    from tracekit.formatters import stages_for

    t = Trace(LiveTrace(opts, stages_for(sinks, stages), sinks, keep_events=keep_events,
                        timeout_s=timeout_s), loop)
    return await _launch(t, loop)


async def _launch(t: Trace, loop: asyncio.AbstractEventLoop) -> Trace:
    """Hand ``t`` to the hub (launched if none runs); returns once it has started."""
    global _HUB
    hub = await _hub_for(loop)
    if hub is None:
        hub = _HUB = _Hub(loop)
        hub.launch(t)
    else:
        hub.submit(t)
    try:
        await asyncio.shield(t._started)
    except asyncio.CancelledError:     # the cell was interrupted: do not leave it running
        t.stop()
        raise
    except Exception:
        await t._settle()              # start-up failed: let the trio run end cleanly
        raise
    return t


async def replay(recording: Any, *, stages: Sequence[Any] = (), sinks: Sequence[Any] = (),
                 keep_events: int = 10_000, wait: bool = True) -> Trace:
    """Read a recording (``tracekit record``, ``tracekit run --record``) into a
    :class:`Trace`, as a finished trace reads: ``summary()``, ``events()``, ``stats()``.
    Nothing is traced: no root needed.

    Args:
      recording: its path (or a :class:`~tracekit.Recording`).
      stages, sinks: as :func:`start`'s (a formatter among the sinks gets the stages its
        format needs after ``stages``).
      keep_events: how many of the latest events :meth:`Trace.events` can return.
      wait: return once every batch went through (False: at once; ``await t.wait()``).

    Raises:
      RecordingError: not a recording, or of a newer format (one line, with the path).
      OSError: the file cannot be read.
      TracekitError: a stage or sink failed (PipelineError naming it).
    """
    loop = _asyncio_loop("replay")
    from tracekit.formatters import stages_for

    t = Trace(RecordedTrace(recording, stages_for(sinks, stages), sinks,
                            keep_events=keep_events), loop)
    await _launch(t, loop)
    return await t.wait() if wait else t


async def trace(command: Sequence[str] | None = None, **kwargs: Any) -> Trace:
    """:func:`start` then :meth:`Trace.wait`: trace until the target ends; same arguments.

    Raises:
      TracekitError: as :func:`start`, or a stage failed (PipelineError naming it).
    """
    t = await start(command, **kwargs)
    return await t.wait()


class Trace:
    """A trace running (or finished) on the notebook's loop; read it from any cell.

    Attributes:
      live: the underlying :class:`tracekit.app.trace.LiveTrace` (session, source,
        pipeline), or for a replay the :class:`tracekit.app.record.RecordedTrace`.
      error: the exception that ended it, or None.
    """

    def __init__(self, live: LiveTrace | RecordedTrace,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.live = live
        self.loop = loop
        self.error: Exception | None = None
        self.hub: _Hub | None = None
        self._started: asyncio.Future[None] = loop.create_future()
        self._ended: asyncio.Future[None] = loop.create_future()

    @property
    def running(self) -> bool:
        return not self._ended.done()

    @property
    def returncode(self) -> int | None:
        """The command's exit code (-N: killed by signal N) once it ended, else None."""
        return self.live.returncode

    def stop(self, *, terminate: bool = True) -> None:
        """End gracefully: what the kernel wrote is drained, then the trace ends (returns at
        once; ``await t.wait()`` for the end). Idempotent.

        Args:
          terminate: a command target still running, with the processes traced because of
            it, gets SIGTERM, and SIGKILL 2 s later (as at the time limit); with False the
            trace ends only when the command exits.
        """
        hub = self.hub
        if self.running and hub is not None and hub.token is not None:
            try:
                hub.token.run_sync_soon(self._stop_in_trio, terminate)
            except trio.RunFinishedError:
                pass            # the trio run ended meanwhile: so did this trace

    def _stop_in_trio(self, terminate: bool) -> None:
        # a run_sync_soon callback: an exception here would be a TrioInternalError
        try:
            self.live.stop(terminate=terminate)
        except Exception as e:      # pragma: no cover - stop() raises nothing known
            self.error = self.error or e

    async def wait(self) -> Trace:
        """Wait until the trace has ended and everything is closed.

        Raises:
          TracekitError: what ended the trace (a stage failure: PipelineError).
        """
        await self._settle()
        if self.error is not None:
            raise self.error
        return self

    async def _settle(self) -> None:
        await asyncio.shield(self._ended)
        hub = self.hub
        if hub is not None and hub.closing:
            # the last trace: let the trio run finish, so a program that ends its loop
            # next (asyncio.run) does not abandon it
            await asyncio.shield(hub.finished)

    def stats(self) -> dict[str, Any]:
        """``elapsed_s``, ``events`` (decoded), ``lost`` (records), ``tasks`` (traced now),
        ``running``."""
        return self.live.stats()

    def summary(self, group_by: GroupBy = "process", *, sort: SortKey = "total") -> SummaryTable:
        """The syscall statistics so far (live while running), as a displayable table."""
        return SummaryTable(self.live.summary(group_by), sort=sort)

    def events(self, n: int | None = 20) -> EventList:
        """The last ``n`` events (None: every kept one), oldest first."""
        return EventList(self.live.last_events(n))

    def __repr__(self) -> str:
        st = self.stats()
        state = "running" if self.running else f"ended (returncode {self.returncode})"
        return (f"<tracekit Trace {state}: {st['events']} events, {st['lost']} lost, "
                f"{st['elapsed_s']:.2f} s>")

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(repr(self))}</p>" + summary_html(self.live.summary("process"))


# --- displays ----------------------------------------------------------------------------

def _row_dict(label: str, s: SyscallStats) -> dict[str, Any]:
    return {"group": label, "syscall": f"{s.syscall}(32)" if s.compat else s.syscall,
            "calls": s.calls, "errors": s.errors, "total_ms": s.total_ns / 1e6,
            "min_us": s.min_ns / 1e3, "avg_us": s.mean_ns / 1e3, "max_us": s.max_ns / 1e3,
            "stddev_pct": s.stddev_pct,
            "errnos": {_errno_name(e): n for e, n in s.errnos.items()}}


def _errno_name(err: int) -> str:
    from tracekit.kernel.syscalls import errno_name
    return errno_name(err)


def summary_rows(summary: Summary, sort: SortKey = "total") -> list[dict[str, Any]]:
    """One dict per (group, syscall): group, syscall, calls, errors, total_ms, min_us,
    avg_us, max_us, stddev_pct (sample standard deviation, n - 1, as % of the mean),
    errnos ({"ENOENT": 3})."""
    return [_row_dict(summary.group_label(g), s)
            for g in summary.groups for s in sort_rows(g.syscalls, sort)]


_COLUMNS = [("group", "group", "l"), ("syscall", "syscall", "l"), ("calls", "calls", "r"),
            ("errors", "errors", "r"), ("total_ms", "total (ms)", "r"),
            ("min_us", "min (µs)", "r"), ("avg_us", "avg (µs)", "r"),
            ("max_us", "max (µs)", "r"), ("stddev_pct", "stddev (%)", "r"),
            ("errnos", "errnos", "l")]


def _cell(key: str, value: Any) -> str:
    if key == "errnos":
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if key == "total_ms":
        return f"{value:.3f}"
    if isinstance(value, float):
        return f"{value:.2f}" if key == "stddev_pct" else f"{value:.1f}"
    return str(value)


def _cell_text(key: str, value: Any) -> str:
    from tracekit.formatters import escape

    text = _cell(key, value)
    return escape(text) if key == "group" else text


def summary_html(summary: Summary, sort: SortKey = "total") -> str:
    """The summary as one HTML table (class ``tracekit-summary``), a row per (group,
    syscall): the columns of :func:`summary_rows`; a LOST line above when records were
    lost. Every text is escaped (a comm with control characters or bytes that are not
    UTF-8 as the text formats show it, then for HTML)."""
    head = "".join(f'<th style="text-align:{"left" if a == "l" else "right"}">'
                   f"{html.escape(title)}</th>" for _, title, a in _COLUMNS)
    body = []
    for row in summary_rows(summary, sort):
        # the group names a comm, which a traced process chose: escaped as the text
        # formats escape it (control characters, bytes that are not UTF-8), then for HTML
        cells = "".join(f'<td style="text-align:{"left" if a == "l" else "right"}">'
                        f"{html.escape(_cell_text(k, row[k]))}</td>" for k, _, a in _COLUMNS)
        body.append(f"<tr>{cells}</tr>")
    lost = (f"<p><b>LOST {summary.lost} records</b>: the counts are short by their "
            "calls</p>" if summary.lost else "")
    return (f'{lost}<table class="tracekit-summary"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def latency_figure(summary: Summary, syscalls: Sequence[str] | None = None, *,
                   top: int = 6) -> Any:
    """A matplotlib Figure: per syscall, the log2 histogram of its durations over every
    group (bar k counts calls with ``2**(k-1) <= d < 2**k`` ns), one panel each.

    Args:
      syscalls: which (names); default the ``top`` syscalls by total time.

    Raises:
      ModuleNotFoundError: matplotlib is not installed (``pip install 'tracekit[notebook]'``).
    """
    from matplotlib.figure import Figure

    rows = summary.regroup("total").groups[0].syscalls if summary.groups else []
    timed = [s for s in rows if s.hist]
    if syscalls is not None:
        picked = [s for s in timed if s.syscall in set(syscalls)]
    else:
        picked = sort_rows(timed, "total")[:top]
    n = max(1, len(picked))
    cols = min(n, 3)
    nrows = (n + cols - 1) // cols
    fig = Figure(figsize=(4.2 * cols, 2.8 * nrows), layout="constrained")
    axes = fig.subplots(nrows, cols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i >= len(picked):
            ax.set_visible(bool(i == 0 and not picked))
            if not picked:
                ax.text(0.5, 0.5, "no timed calls", ha="center", va="center")
                ax.set_axis_off()
            continue
        s = picked[i]
        ks = list(range(min(s.hist), max(s.hist) + 1))
        ax.bar(range(len(ks)), [s.hist.get(k, 0) for k in ks], color="tab:blue")
        ax.set_xticks(range(len(ks)), [_bucket_label(k) for k in ks], rotation=60,
                      fontsize=7)
        ax.set_title(f"{s.syscall} ({s.timed} calls)", fontsize=9)
        ax.set_ylabel("calls", fontsize=8)
    fig.suptitle("syscall latency (log2 buckets, lower bound)", fontsize=10)
    return fig


def _bucket_label(k: int) -> str:
    lo = 0 if k == 0 else 1 << (k - 1)
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("µs", 10**3)):
        if lo >= scale:
            return f"{lo / scale:g}{unit}"
    return f"{lo}ns"


class LatencyPlot:
    """A latency figure that displays as PNG in a notebook (no pyplot state involved).

    Attributes:
      figure: the matplotlib ``Figure``.
    """

    def __init__(self, figure: Any) -> None:
        self.figure = figure

    def __repr__(self) -> str:
        titles = [ax.get_title() for ax in self.figure.axes if ax.get_title()]
        return f"<latency histograms: {', '.join(titles) or 'no timed calls'}>"

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=90)
        return buf.getvalue()


class SummaryTable:
    """A :class:`~tracekit.Summary` that displays as an HTML table in a notebook.

    Attributes:
      summary: the Summary.
    """

    def __init__(self, summary: Summary, *, sort: SortKey = "total") -> None:
        self.summary = summary
        self.sort = sort

    def rows(self) -> list[dict[str, Any]]:
        """See :func:`summary_rows`."""
        return summary_rows(self.summary, self.sort)

    def plot(self, syscalls: Sequence[str] | None = None, *, top: int = 6) -> LatencyPlot:
        """Per-syscall latency histograms (:func:`latency_figure`)."""
        return LatencyPlot(latency_figure(self.summary, syscalls, top=top))

    def to_polars(self) -> Any:
        """The rows as a polars DataFrame (errnos as a "ENOENT 3, ..." string)."""
        import polars as pl

        rows = [dict(r, errnos=_cell("errnos", r["errnos"])) for r in self.rows()]
        return pl.DataFrame(rows)

    def _repr_html_(self) -> str:
        return summary_html(self.summary, self.sort)

    def __str__(self) -> str:
        from tracekit.formatters.summary import render_perf
        return render_perf(self.summary, self.sort)

    def __repr__(self) -> str:
        return str(self)


class EventList(list[Event]):
    """A list of events with conversions for analysis."""

    def to_dicts(self) -> list[dict[str, Any]]:
        """Every event as a dict (``type`` first, as in JSON Lines; bytes kept as bytes)."""
        return [msgspec.to_builtins(ev, builtin_types=(bytes,)) for ev in self]

    def syscall_rows(self) -> list[dict[str, Any]]:
        """The Syscall events flattened: ts_ns, duration_ns, tid, tgid, cpu, syscall_nr,
        syscall (name; ``decoded`` name when present), ret, errno (0 when none), comm,
        flags."""
        from tracekit.kernel.syscalls import SyscallTable

        table = SyscallTable()
        out = []
        for ev in self:
            if type(ev) is not Syscall:
                continue
            name = ev.decoded.name if ev.decoded is not None else table.name(ev.syscall_nr)
            out.append({"ts_ns": ev.ts_ns, "duration_ns": ev.duration_ns, "tid": ev.tid,
                        "tgid": ev.tgid, "cpu": ev.cpu, "syscall_nr": ev.syscall_nr,
                        "syscall": name, "ret": ev.ret,
                        "errno": -ev.ret if -4095 <= ev.ret < 0 else 0, "comm": ev.comm,
                        "flags": ev.flags})
        return out

    def to_polars(self) -> Any:
        """The Syscall events as a polars DataFrame (:meth:`syscall_rows` columns).

        Raises:
          ModuleNotFoundError: polars is not installed.
        """
        import polars as pl

        return pl.DataFrame(self.syscall_rows(), schema={
            "ts_ns": pl.Int64, "duration_ns": pl.Int64, "tid": pl.Int64, "tgid": pl.Int64,
            "cpu": pl.Int64, "syscall_nr": pl.Int64, "syscall": pl.Utf8, "ret": pl.Int64,
            "errno": pl.Int64, "comm": pl.Utf8, "flags": pl.Int64})
