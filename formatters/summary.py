"""``[output] format = "summary"``: aggregate every syscall, print tables at the end.

The sink counts the Syscall events that reach it (:class:`~tracekit._summary.Summarizer`)
and, when the input ends, writes one of four renderings of the
:class:`~tracekit._summary.Summary` (what each statistic counts: that module's docstring).
Options (:class:`SummaryOptions`, the ``[output]`` keys): ``table`` = ``"perf"`` (default) |
``"strace"`` | ``"histogram"`` | ``"json"``; ``group_by`` = ``"thread"`` (default) |
``"process"`` | ``"total"``; ``sort`` = ``"total"`` (default) | ``"calls"`` | ``"errors"`` |
``"name"``; ``mode`` = ``"auto"`` (default) | ``"kernel"`` | ``"stream"``: count in BPF maps
(kernel: no syscall records are sent) or from the events that reach the sink (stream: sees
what the stages did); auto = kernel unless stages are configured or another output of
the run needs the records; ``interval_s`` = a report every ``interval_s`` seconds while the
trace runs (``interval_report`` = ``"change"``: the calls since the previous report, the
default; ``"total"``: every call so far), then the whole run's table at the end.

Common to the text tables:

- durations are wall-clock time from syscall entry to exit (CLOCK_MONOTONIC), so time
  the thread spent blocked or preempted inside the call counts;
- calls without a known duration -- never returned (``exit``, ``exit_group``), the task
  died inside the call, or the entry was not seen -- are counted in ``calls`` (and
  ``errors``, when their return value is known) but enter none of total, min, avg, max,
  stddev, % time, usecs/call or the histogram; a row with such calls ends with
  ``(<n> without duration)``;
- numbers with no name print as ``syscall_<nr>``; 32-bit (compat) calls end in ``(32)``;
- a ``LOST <n> records`` line says the counts are short by the calls in those records;
  at the end of a trace, one line per kind of loss (``Losses.lines``: ring-buffer
  records by kind, tasks not traced, full maps, stage drops) instead;
- ``CHECK FAILED: thread N: ...``: the summary's self-check (a thread's time in calls
  is at most the span from its first call's entry to its last call's exit) failed.
- under each syscall that failed, one line per errno with its count, as ``perf trace -s
  --errno-summary`` prints it (``ENOENT: 19`` at column 33, where perf's four tabs put
  it; spaces, not tabs: the tables hold no control character), in errno order.

Interval reports (``interval_s``): each report is the table of the calls since the
previous report (or of every call so far, ``interval_report = "total"``) after a line
`` Report <n>, <from> to <to> s: ...``; at the end a `` Whole trace, ...`` line and the
table of every call, exact as without intervals. Counted in the kernel, a report is the
difference of two reads of the summary maps, which are never reset: its counts, sums,
errnos and histogram are exact, but its min and max are those of the whole run so far
(they cannot be split). The ``json`` table writes one document per report (a line each).

``table = "perf"`` (perf trace -s layout, per process, then per thread when grouped by
thread)::

     python3 (4242), 1203 calls, 12.417 msec
       python3 (4243), 600 calls, 49.9% of the process's calls

       syscall            calls  errors     total       min       avg       max   stddev
                                           (msec)    (msec)    (msec)    (msec)      (%)
       --------------- -------- ------- --------- --------- --------- --------- --------
       openat               100     100     0.412     0.002     0.004     0.031   12.75%
                                    ENOENT: 100

  - calls: every call; errors: calls that returned -errno;
  - total/min/avg/max: sum, least, mean and largest duration of the calls with a known
    duration, in milliseconds;
  - stddev: the sample standard deviation (n - 1) of those durations as a percentage of
    their mean (``statistics.stdev(d) / mean(d) * 100``; 0 for a single call), a measure
    of spread; NOT the standard error of the mean (perf trace -s prints the latter under
    the same title, ``stddev (%)``, which the header keeps; the note above the tables
    says which it is). strace -c has no such column.

``table = "strace"`` (strace -c -f layout, one table per group)::

    % time     seconds  usecs/call     calls    errors syscall
    ------ ----------- ----------- --------- --------- ----------------
     58.12    0.000412           4       100       100 openat
                                    ENOENT: 100
    ------ ----------- ----------- --------- --------- ----------------
    100.00    0.000709           3       203       100 total

  - % time: this syscall's share of the group's summed durations; seconds: summed
    durations; usecs/call: seconds / calls with a known duration, in whole microseconds
    (strace divides by all calls); calls; errors (blank when 0); syscall.

``table = "strace-c"`` (strace -c's own report, as strace 6.1 prints it): one table of
every traced task; the columns of ``columns`` (strace -U: ``time-percent``,
``total-time``, ``min-time``, ``max-time``, ``avg-time``, ``calls``, ``errors``, ``name``;
default ``% time``, ``seconds``, ``usecs/call``, ``calls``, ``errors``, ``syscall``), the
name column as wide as the longest name + 1 (16 at least), the last column unpadded, a
blank ``errors`` for 0; ``usecs/call`` = seconds / every call (strace's division);
``sort`` in strace's -S names (``time`` = ``total``, ``min-time``, ``max-time``,
``avg-time``, ``calls``, ``errors``, ``name``, ``nothing`` = syscall number), ties in
syscall-number order; then a ``total`` row. Calls that never returned (``exit``,
``exit_group``, a call the task died in) are not counted, as strace counts a call at its
return; no ``(n without duration)`` notes::

    % time     seconds  usecs/call     calls    errors syscall
    ------ ----------- ----------- --------- --------- ----------------
     58.12    0.000412           4       100       100 openat
    ------ ----------- ----------- --------- --------- ----------------
    100.00    0.000709           3       203       100 total

``table = "histogram"``: per syscall of each group, a log2 histogram of durations in ns
(bucket ``[2**(k-1), 2**k - 1]``; zero-length calls in ``0 -> 0``), bars scaled to the
fullest bucket::

     getppid (1000 calls, 1000 with duration), thread python3 (4242):
                   ns              : count     distribution
             256 -> 511            : 700      |****************************************|
             512 -> 1023           : 300      |*****************                       |

When the output is a terminal (``isatty``), the perf and strace tables are drawn with rich
(:func:`render_rich`: the same columns and numbers, boxed, one table per group, with the
group line as its title); anything else (a pipe, a file, a test) gets the plain aligned
text above, byte for byte. The histogram and json tables are always plain.

With ``stacks`` (``[output] stacks``, counted from the records: never ``mode =
"kernel"``), the text tables are followed by "Calls by code path": calls and errors (by
errno) per syscall and its ``stack_frames`` innermost user frames (strace -k's frame
text), the paths with the most errors first (:class:`CodePaths`)::

     Calls by code path (the 3 innermost user frames):

          calls   errors  syscall / frames
       -------- --------  ----------------------------------------
              1        1  openat  (ENOENT 1)
                          > /usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x51) [0xf8011]
                          > /tmp/chain(c+0x1d) [0x1166]
                          > /tmp/chain(b+0x9) [0x1171]

``table = "json"``: the Summary as one JSON document (``msgspec.json.decode(data,
type=Summary)`` reads it back); times in ns, ``errnos`` and ``hist`` keys as strings;
each ``comm`` in the escaped form of JSON Lines (tracekit.formatters.jsonl), so any bytes
a process put in its name are written, and exactly.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeAlias, get_args

import msgspec
import trio

from tracekit._errors import ConfigError
from tracekit._events import Frame, Losses, Syscall
from tracekit._summary import Group, GroupBy, SortKey, Summarizer, Summary, SyscallStats, sort_rows
from tracekit.formatters._base import StackKind, escape
from tracekit.formatters._output import (
    Output,
    close_output,
    is_std_stream,
    open_output,
    reader_closed,
    write_error,
)
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.syscalls import errno_name
from tracekit.pipeline._stage import EventReceiver, StageContext

__all__ = [
    "SPEC",
    "SummaryOptions",
    "SummarySink",
    "make_sink",
    "render",
    "render_histogram",
    "render_json",
    "render_perf",
    "render_rich",
    "render_strace",
    "render_strace_c",
]

Table: TypeAlias = Literal["perf", "strace", "histogram", "json", "strace-c"]
TABLES: tuple[Table, ...] = get_args(Table)
GROUPS: tuple[GroupBy, ...] = get_args(GroupBy)
SORTS: tuple[SortKey, ...] = get_args(SortKey)
#: strace -S's sort keys (``table = "strace-c"`` only; there ``total`` means ``time``)
StraceSort: TypeAlias = Literal["time", "min-time", "max-time", "avg-time", "nothing"]
STRACE_SORTS: tuple[str, ...] = ("time", "min-time", "max-time", "avg-time", "calls",
                                 "errors", "name", "nothing")
#: strace -U's column names, and strace's default columns
StraceColumn: TypeAlias = Literal["time-percent", "total-time", "min-time", "max-time",
                                  "avg-time", "calls", "errors", "name"]
STRACE_COLUMNS: tuple[StraceColumn, ...] = get_args(StraceColumn)
STRACE_DEFAULT_COLUMNS: tuple[StraceColumn, ...] = (
    "time-percent", "total-time", "avg-time", "calls", "errors", "name")


class SummaryOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``[output]`` keys of ``format = "summary"`` (module docstring)."""

    mode: Literal["auto", "kernel", "stream"] = "auto"  # count in BPF maps (kernel) or from
    #   the events (stream, sees what stages did); auto = kernel unless [[stage]]s are set
    table: Table = "perf"                # which table
    group_by: GroupBy = "thread"
    sort: SortKey | StraceSort = "total"  # strace's -S names only with table = "strace-c"
    # a report every interval_s seconds while the trace runs (at most a day); None = none
    interval_s: Annotated[float, msgspec.Meta(ge=0.001, le=86_400)] | None = None
    interval_report: Literal["change", "total"] = "change"  # calls since the last report,
    #   or every call so far
    columns: list[StraceColumn] = []     # table = "strace-c": strace -U; [] = its default
    stacks: StackKind | None = None      # also count calls by code path (stream mode)
    # the innermost user frames that name a code path (with stacks)
    stack_frames: Annotated[int, msgspec.Meta(ge=1, le=127)] = 3

_SPREAD_NOTE = (
    " Durations: wall-clock time from syscall entry to exit. stddev: sample standard\n"
    " deviation (n - 1) of the durations as % of their mean (not the standard error of the\n"
    " mean).\n"
    " Calls without a duration (never returned, task died inside, entry not seen) count in\n"
    " calls and errors but not in total/min/avg/max/stddev.\n")


def _ms(ns: int | float) -> str:
    return f"{ns / 1e6:9.3f}"


def _label(s: SyscallStats) -> str:
    return f"{s.syscall}(32)" if s.compat else s.syscall


def _untimed_note(s: SyscallStats) -> str:
    n = s.calls - s.timed
    return f"  ({n} without duration)" if n else ""


def _errno_lines(s: SyscallStats) -> list[str]:
    """``ENOENT: 19`` at column 33 per errno of a row, in errno order, as ``perf trace
    --errno-summary`` prints them under the row (perf indents with four tabs)."""
    return [f"{'':32}{errno_name(e)}: {n}" for e, n in sorted(s.errnos.items())]


def _lost_line(summary: Summary) -> str:
    """The lines after the tables: what was lost (every kind, when the trace's losses
    are known) and what the self-check found."""
    if summary.losses is not None:
        out = "".join(f" {line}\n" for line in summary.losses.lines())
    elif summary.lost or summary.lost_lifecycle:
        out = (f" LOST {summary.lost} records: the kernel could not write them; the counts "
               "are short by their calls\n")
        if summary.lost_lifecycle:
            out += (f" LOST {summary.lost_lifecycle} fork/exec/exit/signal records too (no "
                    "calls in them)\n")
    else:
        out = ""
    return out + "".join(f" CHECK FAILED: {p}\n" for p in summary.problems)


def _perf_table(rows: list[SyscallStats], indent: str) -> list[str]:
    width = max([15, *(len(_label(s)) for s in rows)])
    out = [
        f"{indent}{'syscall':<{width}}{'calls':>9}{'errors':>8}{'total':>10}{'min':>10}"
        f"{'avg':>10}{'max':>10}{'stddev':>9}",
        f"{indent}{'':<{width}}{'(msec)':>27}{'(msec)':>10}{'(msec)':>10}{'(msec)':>10}"
        f"{'(%)':>9}",
        f"{indent}{'-' * width} {'-' * 8} {'-' * 7} {'-' * 9} {'-' * 9} {'-' * 9} {'-' * 9} "
        f"{'-' * 8}",
    ]
    for s in rows:
        if s.timed:
            times = (f"{_ms(s.total_ns)} {_ms(s.min_ns)} {_ms(s.mean_ns)} {_ms(s.max_ns)} "
                     f"{s.stddev_pct:7.2f}%")
        else:
            times = f"{'-':>9} {'-':>9} {'-':>9} {'-':>9} {'-':>8}"
        out.append(f"{indent}{escape(_label(s)):<{width}} {s.calls:8d} {s.errors:7d} "
                   f"{times}{_untimed_note(s)}")
        out += _errno_lines(s)
    return out


def render_perf(summary: Summary, sort: SortKey = "total") -> str:
    """The perf-trace-style tables (layout: module docstring)."""
    lines = ["", " Summary of syscalls:", _SPREAD_NOTE.rstrip("\n")]
    if summary.group_by == "total":
        lines += ["", f" all traced tasks, {summary.calls} calls, "
                      f"{summary.total_ns / 1e6:.3f} msec", ""]
        rows = [s for g in summary.groups for s in g.syscalls]
        lines += _perf_table(sort_rows(rows, sort), "   ")
    else:
        by_tgid: dict[int, list[Group]] = {}
        for g in summary.groups:
            by_tgid.setdefault(g.tgid, []).append(g)
        procs = {g.tgid: g for g in summary.regroup("process").groups}
        for tgid in sorted(by_tgid, key=lambda t: -procs[t].total_ns):
            p = procs[tgid]
            lines += ["", f" {escape(p.comm)} ({tgid}), {p.calls} calls, "
                          f"{p.total_ns / 1e6:.3f} msec"]
            if summary.group_by == "process":
                lines += [""] + _perf_table(sort_rows(p.syscalls, sort), "   ")
                continue
            for g in sorted(by_tgid[tgid], key=lambda g: -g.total_ns):
                pct = 100.0 * g.calls / p.calls if p.calls else 0.0
                lines += [f"   {escape(g.comm)} ({g.tid}), {g.calls} calls, "
                          f"{pct:.1f}% of the process's calls", ""]
                lines += _perf_table(sort_rows(g.syscalls, sort), "     ")
                lines.append("")
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines).rstrip("\n"))
    return text + "\n" + _lost_line(summary)


_STRACE_RULE = "------ ----------- ----------- --------- --------- ----------------"


def _strace_line(pct: float, total_ns: int, timed: int, calls: int, errors: int,
                 name: str) -> str:
    usecs = total_ns // timed // 1000 if timed else 0
    errs = f"{errors:9d}" if errors else " " * 9
    return f"{pct:6.2f} {total_ns / 1e9:11.6f} {usecs:11d} {calls:9d} {errs} {name}"


def render_strace(summary: Summary, sort: SortKey = "total") -> str:
    """strace -c style tables, one per group (layout: module docstring)."""
    out: list[str] = []
    for g in summary.groups:
        if summary.group_by == "thread":
            out.append(f"thread {escape(g.comm)} ({g.tid}) of process {g.tgid}:")
        elif summary.group_by == "process":
            out.append(f"process {escape(g.comm)} ({g.tgid}):")
        total = g.total_ns
        out += ["% time     seconds  usecs/call     calls    errors syscall", _STRACE_RULE]
        for s in sort_rows(g.syscalls, sort):
            pct = 100.0 * s.total_ns / total if total else 0.0
            out.append(_strace_line(pct, s.total_ns, s.timed, s.calls, s.errors,
                                    escape(_label(s))) + _untimed_note(s))
            out += _errno_lines(s)
        out += [_STRACE_RULE,
                _strace_line(100.0 if total else 0.0, total,
                             sum(s.timed for s in g.syscalls), g.calls, g.errors, "total"),
                ""]
    return "\n".join(out) + _lost_line(summary)


# strace -c's columns: header, width, and the cell of a row (stats, % time, ns of time)
_STRACE_C_HEADS: dict[str, tuple[str, int]] = {
    "time-percent": ("% time", 6), "total-time": ("seconds", 11),
    "min-time": ("shortest", 8), "max-time": ("longest", 8), "avg-time": ("usecs/call", 11),
    "calls": ("calls", 9), "errors": ("errors", 9), "name": ("syscall", 16)}


def _strace_c_order(rows: list[SyscallStats], sort: str) -> list[SyscallStats]:
    rows = sorted(rows, key=lambda s: (s.compat, s.syscall_nr))    # strace's table order
    key: Callable[[SyscallStats], Any] | None = {
        "time": lambda s: -s.total_ns, "total": lambda s: -s.total_ns,
        "min-time": lambda s: -s.min_ns, "max-time": lambda s: -s.max_ns,
        "avg-time": lambda s: -(s.total_ns // s.calls if s.calls else 0),
        "calls": lambda s: -s.calls, "errors": lambda s: -s.errors,
        "name": lambda s: _label(s), "nothing": None}[sort]
    return rows if key is None else sorted(rows, key=key)


def render_strace_c(summary: Summary, sort: str = "time",
                    columns: Sequence[str] = ()) -> str:
    """strace -c's report of every traced task (layout: module docstring).

    Args:
      sort: one of :data:`STRACE_SORTS` (or ``total``, = ``time``).
      columns: strace -U column names; empty = :data:`STRACE_DEFAULT_COLUMNS`.
    """
    cols = list(columns) or list(STRACE_DEFAULT_COLUMNS)
    # strace counts a call when it returns: not exit/exit_group, not one a task died in;
    # and only calls its table names (a number no table names, syscall_N, is left out)
    rows = [msgspec.structs.replace(s, calls=n)
            for g in summary.regroup("total").groups for s in g.syscalls
            if (n := s.calls - s.noreturn - s.unfinished) > 0
            and s.syscall != f"syscall_{s.syscall_nr}"]
    rows = _strace_c_order(rows, sort)
    native = [r for r in rows if not r.compat]
    compat = [r for r in rows if r.compat]
    # strace prints a table per personality that made calls, the 32-bit one (int $0x80
    # calls of x86_64 tasks) after a line of its own (strace.c call_summary)
    parts = [_strace_c_table(native, cols)] if native else []
    if compat:
        parts.append("System call usage summary for 32 bit mode:\n"
                     + _strace_c_table(compat, cols))
    return "".join(parts) + _lost_line(summary)


def _strace_c_table(rows: list[SyscallStats], cols: list[str]) -> str:
    """One of strace -c's tables: the rows (sorted), the rule, the total line."""
    total_ns = sum(s.total_ns for s in rows)
    timed = [s for s in rows if s.timed]
    total = SyscallStats(syscall_nr=-1, syscall="total", calls=sum(s.calls for s in rows),
                         errors=sum(s.errors for s in rows), total_ns=total_ns,
                         min_ns=min((s.min_ns for s in timed), default=0),
                         max_ns=max((s.max_ns for s in timed), default=0))
    widths = {c: _STRACE_C_HEADS[c][1] for c in cols}
    if "name" in widths:
        widths["name"] = max([16, *(len(escape(s.syscall)) + 1 for s in rows)])

    def cell(c: str, s: SyscallStats, name: str) -> str:
        if c == "time-percent":
            return f"{100.0 * s.total_ns / total_ns if total_ns else 0.0:.2f}"
        if c == "total-time":
            return f"{s.total_ns // 1000 / 1e6:.6f}"
        if c == "min-time":
            return f"{s.min_ns // 1000 / 1e6:.6f}"
        if c == "max-time":
            return f"{s.max_ns // 1000 / 1e6:.6f}"
        if c == "avg-time":
            return str(s.total_ns // 1000 // s.calls if s.calls else 0)
        if c == "calls":
            return str(s.calls)
        if c == "errors":
            return str(s.errors) if s.errors else ""
        return name

    def line(cells: list[str]) -> str:
        out = []
        for i, (c, text) in enumerate(zip(cols, cells, strict=True)):
            last = i == len(cols) - 1
            w = widths[c]
            out.append(text if last and c == "name" else
                       f"{text:<{w}}" if c == "name" else f"{text:>{w}}")
        return " ".join(out)

    rule = " ".join("-" * widths[c] for c in cols)
    lines = [line([_STRACE_C_HEADS[c][0] for c in cols]), rule]
    lines += [line([cell(c, s, escape(s.syscall)) for c in cols]) for s in rows]
    lines += [rule, line([cell(c, total, "total") for c in cols])]
    return "\n".join(lines) + "\n"


def _group_name(summary: Summary, g: Group) -> str:
    if summary.group_by == "total":
        return "all traced tasks"
    # escape() leaves the " (tid)" part as it is: only comm can hold what it escapes
    return f"{summary.group_by} {escape(summary.group_label(g))}"


def render_histogram(summary: Summary, sort: SortKey = "total", *, bar_width: int = 40) -> str:
    """Per-syscall log2 histograms of durations in ns (layout: module docstring)."""
    out: list[str] = []
    for g in summary.groups:
        for s in sort_rows(g.syscalls, sort):
            out.append(f" {escape(_label(s))} ({s.calls} calls, {s.timed} with duration), "
                       f"{_group_name(summary, g)}:")
            if not s.hist:
                out += ["     no durations", ""]
                continue
            out.append(f"{'ns':>22}{'':13}: count     distribution")
            top = max(s.hist.values())
            for k in range(min(s.hist), max(s.hist) + 1):
                lo, hi = (0, 0) if k == 0 else (1 << (k - 1), (1 << k) - 1)
                n = s.hist.get(k, 0)
                bar = "*" * (n * bar_width // top)
                out.append(f"{lo:>20} -> {hi:<11}: {n:<9}|{bar:<{bar_width}}|")
            out.append("")
    return "\n".join(out) + _lost_line(summary)


_ENCODER = msgspec.json.Encoder()


def render_json(summary: Summary, sort: SortKey = "total") -> str:
    """The Summary as one JSON document and a newline (``sort`` is ignored).

    Each ``comm`` is in escaped form, as in JSON Lines (:func:`~tracekit.formatters.escape`;
    :func:`~tracekit.formatters.unescape` gives back its bytes).
    """
    groups = [msgspec.structs.replace(g, comm=text) if (text := escape(g.comm)) is not g.comm
              else g for g in summary.groups]
    return _ENCODER.encode(msgspec.structs.replace(summary, groups=groups)).decode() + "\n"


class CodePaths:
    """Calls counted by syscall and the innermost ``frames`` user frames of their stacks
    (``[output] stacks`` with a summary): which code paths make the calls, and the
    failing ones."""

    def __init__(self, frames: int = 3,
                 syscall_name: Callable[[int], str] | None = None) -> None:
        self.frames = frames
        self.syscall_name = syscall_name
        # (nr, compat, path) -> calls, errors by errno
        self.calls: Counter[tuple[int, bool, tuple[Frame, ...]]] = Counter()
        self.errors: dict[tuple[int, bool, tuple[Frame, ...]], Counter[int]] = {}

    def add(self, batch: Any) -> None:
        for ev in batch:
            if not isinstance(ev, Syscall) or not ev.stack:
                continue
            user = [f for f in ev.stack if not f.kernel][:self.frames]
            # a path is where the calls come from, not their addresses in one process
            path = tuple(Frame(0, False, f.module, f.offset, f.symbol, f.symoff)
                         if f.module else f for f in user)
            key = (ev.syscall_nr, bool(ev.flags & 8), path)
            self.calls[key] += 1
            if ev.errno:
                self.errors.setdefault(key, Counter())[ev.errno] += 1

    def render(self) -> str:
        """The table: calls, errors (by errno name), syscall, then the frames."""
        if not self.calls:
            return ""
        from tracekit.kernel.syscalls import errno_name

        name = self.syscall_name or (lambda nr: f"syscall_{nr}")
        out = ["", f" Calls by code path (the {self.frames} innermost user frames):", "",
               f"   {'calls':>8} {'errors':>8}  syscall / frames",
               f"   {'-' * 8} {'-' * 8}  {'-' * 40}"]
        for key, n in sorted(self.calls.items(),
                             key=lambda kv: (-sum(self.errors.get(kv[0], {}).values()),
                                             -kv[1])):
            nr, compat, path = key
            errs = self.errors.get(key, Counter())
            by = ", ".join(f"{errno_name(e)} {c}" for e, c in errs.most_common())
            label = f"{name(nr)}(32)" if compat else name(nr)
            out.append(f"   {n:8d} {sum(errs.values()):8d}  {escape(label)}"
                       + (f"  ({by})" if by else ""))
            out += [f"   {'':17}  > {_path_frame(f)}" for f in path]
        return "\n".join(out) + "\n"


def _path_frame(f: Frame) -> str:
    from tracekit.formatters._base import frame_text

    return frame_text(f)


_RENDERERS: dict[str, Callable[..., str]] = {
    "perf": render_perf, "strace": render_strace, "histogram": render_histogram,
    "json": render_json, "strace-c": render_strace_c,
}


def render(summary: Summary, table: str = "perf", sort: SortKey = "total") -> str:
    """Render ``summary`` as ``table`` ("perf", "strace", "histogram", "json")."""
    return _RENDERERS[table](summary, sort)


RICH_TABLES = ("perf", "strace")

#: rich's names (rich.console.JustifyMethod, Console's color_system) of what is used here
_Justify: TypeAlias = Literal["left", "right"]
ColorSystem: TypeAlias = Literal["auto", "standard", "256", "truecolor", "windows"]


def _rich_table(title: str, columns: list[tuple[str, _Justify]], rows: list[list[str]],
                footer: list[str] | None = None, notes: Sequence[str] = ()) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(title), title_justify="left", box=box.SIMPLE_HEAD,
              show_footer=footer is not None, header_style="bold", title_style="bold",
              caption=Text("\n".join(notes)) if notes else None, caption_justify="left")
    for i, (name, justify) in enumerate(columns):
        t.add_column(Text(name), justify=justify,
                     footer=Text(footer[i]) if footer is not None else "",
                     no_wrap=True, min_width=len(name))
    for row in rows:
        t.add_row(*(Text(c) for c in row))
    return t


def _notes(rows: list[SyscallStats]) -> list[str]:
    """Caption lines for rows with calls that have no duration (the plain tables' note)."""
    return [f"{escape(_label(s))}: {s.calls - s.timed} without duration"
            for s in rows if s.calls - s.timed]


_PERF_COLUMNS: list[tuple[str, _Justify]] = [
    ("syscall", "left"), ("calls", "right"), ("errors", "right"), ("total (msec)", "right"),
    ("min (msec)", "right"), ("avg (msec)", "right"), ("max (msec)", "right"),
    ("stddev (%)", "right")]


def _perf_rows(rows: list[SyscallStats]) -> list[list[str]]:
    out = []
    for s in rows:
        if s.timed:
            times = [f"{s.total_ns / 1e6:.3f}", f"{s.min_ns / 1e6:.3f}",
                     f"{s.mean_ns / 1e6:.3f}", f"{s.max_ns / 1e6:.3f}", f"{s.stddev_pct:.2f}%"]
        else:
            times = ["-"] * 5
        out.append([escape(_label(s)), str(s.calls), str(s.errors), *times])
        out += [[f"  {line.strip()}", *[""] * 7] for line in _errno_lines(s)]
    return out


def _rich_perf(summary: Summary, sort: SortKey) -> list[Any]:
    tables: list[Any] = []
    if summary.group_by == "total":
        rows = sort_rows([s for g in summary.groups for s in g.syscalls], sort)
        tables.append(_rich_table(f"all traced tasks, {summary.calls} calls, "
                                  f"{summary.total_ns / 1e6:.3f} msec", _PERF_COLUMNS,
                                  _perf_rows(rows), notes=_notes(rows)))
        return tables
    procs = {g.tgid: g for g in summary.regroup("process").groups}
    by_tgid: dict[int, list[Group]] = {}
    for g in summary.groups:
        by_tgid.setdefault(g.tgid, []).append(g)
    for tgid in sorted(by_tgid, key=lambda t: -procs[t].total_ns):
        p = procs[tgid]
        head = f"{escape(p.comm)} ({tgid}), {p.calls} calls, {p.total_ns / 1e6:.3f} msec"
        if summary.group_by == "process":
            rows = sort_rows(p.syscalls, sort)
            tables.append(_rich_table(head, _PERF_COLUMNS, _perf_rows(rows),
                                      notes=_notes(rows)))
            continue
        for g in sorted(by_tgid[tgid], key=lambda g: -g.total_ns):
            pct = 100.0 * g.calls / p.calls if p.calls else 0.0
            rows = sort_rows(g.syscalls, sort)
            tables.append(_rich_table(
                f"{head}\n  {escape(g.comm)} ({g.tid}), {g.calls} calls, "
                f"{pct:.1f}% of the process's calls", _PERF_COLUMNS, _perf_rows(rows),
                notes=_notes(rows)))
    return tables


_STRACE_COLUMNS: list[tuple[str, _Justify]] = [
    ("% time", "right"), ("seconds", "right"), ("usecs/call", "right"), ("calls", "right"),
    ("errors", "right"), ("syscall", "left")]


def _strace_cells(pct: float, total_ns: int, timed: int, calls: int, errors: int,
                  name: str) -> list[str]:
    usecs = total_ns // timed // 1000 if timed else 0
    return [f"{pct:.2f}", f"{total_ns / 1e9:.6f}", str(usecs), str(calls),
            str(errors) if errors else "", name]


def _rich_strace(summary: Summary, sort: SortKey) -> list[Any]:
    tables = []
    for g in summary.groups:
        total = g.total_ns
        rows = []
        stats = sort_rows(g.syscalls, sort)
        for s in stats:
            pct = 100.0 * s.total_ns / total if total else 0.0
            rows.append(_strace_cells(pct, s.total_ns, s.timed, s.calls, s.errors,
                                      escape(_label(s))))
            rows += [[*[""] * 5, f"  {line.strip()}"] for line in _errno_lines(s)]
        footer = _strace_cells(100.0 if total else 0.0, total,
                               sum(s.timed for s in g.syscalls), g.calls, g.errors,
                               "total")
        title = {"thread": f"thread {escape(g.comm)} ({g.tid}) of process {g.tgid}",
                 "process": f"process {escape(g.comm)} ({g.tgid})"}.get(summary.group_by,
                                                                         "all traced tasks")
        tables.append(_rich_table(title, _STRACE_COLUMNS, rows, footer, _notes(stats)))
    return tables


def render_rich(summary: Summary, table: str = "perf", sort: SortKey = "total", *,
                width: int | None = None, color_system: ColorSystem | None = "auto") -> str:
    """The perf or strace tables drawn with rich for a terminal (ANSI styles included).

    Args:
      width: columns of the terminal; None = rich's guess (the terminal's, else 80).
      color_system: rich's ``color_system`` ("auto", "standard", None for no styles).

    Raises:
      ValueError: a table other than "perf" or "strace" (the others are always plain).
    """
    from rich.console import Console
    from rich.text import Text

    if table not in RICH_TABLES:
        raise ValueError(f"no rich rendering of the {table!r} table")
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width,
                      color_system=color_system)
    if table == "perf":
        console.print(Text("Summary of syscalls", style="bold"))
        console.print(Text(_SPREAD_NOTE.rstrip("\n"), style="dim"))
        parts = _rich_perf(summary, sort)
    else:
        parts = _rich_strace(summary, sort)
    for part in parts:
        console.print(part)
        console.print()
    lost = _lost_line(summary)
    if lost:
        console.print(Text(lost.rstrip("\n"), style="bold red"))
    return buf.getvalue()


class SummarySink:
    """A :class:`~tracekit.pipeline.Sink` that aggregates every Syscall and writes the
    summary when its input ends (and, with ``interval_s``, a report every interval).

    Args:
      out: ``"-"`` (stdout), a path (opened when the input ends and replaced whole:
        ``tracekit.formatters._output``; with ``interval_s`` opened at the start and
        written as the reports come), or an open stream (left open).
      table: "perf", "strace", "histogram", "json" or "strace-c" (module docstring).
      group_by: "thread", "process" or "total".
      sort: "total", "calls", "errors" or "name"; with table "strace-c" also strace's -S
        keys (:data:`STRACE_SORTS`).
      columns: table "strace-c": strace -U's columns (:data:`STRACE_COLUMNS`); empty =
        strace's default.
      syscall_name, compat_syscall_name: number -> name (default: this machine's tables).
      summary_from: when given, called once the input ends for the summary to print (a
        thread-grouped Summary, e.g. the in-kernel counts of
        ``Session.kernel_summary().read``) instead of aggregating the events.
      rich: draw the perf/strace tables with rich; None (default) = when the output
        stream is a terminal (``isatty()``).
      losses_from: called once the input ends for the trace's losses, written after the
        tables (``Summary.losses``); a :class:`~tracekit.LiveTrace` sets it to its
        ``losses`` when it is None.
      interval_s: write a report every ``interval_s`` seconds (trio clock) while the
        input runs; None: only the final table.
      interval_report: ``"change"``: each report has the calls since the previous one;
        ``"total"``: every call so far.
      interval_from: with ``summary_from``: called once, when the reports start, for a
        function returning the calls counted since its previous call
        (``KernelSummary.interval``); None: the reports count the events received.

    Attributes:
      summarizer: the running aggregation (with ``interval_s``: of the current interval
        only); ``result`` is the final Summary once written; ``reports`` the interval
        reports written so far.
    """

    name = "summary"
    #: the format this sink is; ``options`` those it was made with (None: built directly)
    spec: FormatSpec[Any] | None = None
    options: SummaryOptions | None = None

    def __init__(self, out: Output, *,
                 table: str = "perf", group_by: GroupBy = "thread", sort: str = "total",
                 syscall_name: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None,
                 summary_from: Callable[[], Summary] | None = None,
                 rich: bool | None = None, interval_s: float | None = None,
                 interval_report: str = "change",
                 interval_from: Callable[[], Callable[[], Summary]] | None = None,
                 losses_from: Callable[[], Losses] | None = None,
                 columns: Sequence[str] = (), code_paths: CodePaths | None = None) -> None:
        sorts: tuple[str, ...] = (*SORTS, *STRACE_SORTS) if table == "strace-c" else SORTS
        for what, value, allowed in (("table", table, TABLES), ("group_by", group_by, GROUPS),
                                     ("sort", sort, sorts),
                                     ("interval_report", interval_report,
                                      ("change", "total"))):
            if value not in allowed:
                raise ConfigError(f"summary output: {what} = {value!r} is not one of "
                                  f"{', '.join(map(repr, dict.fromkeys(allowed)))}")
        for c in columns:
            if c not in STRACE_COLUMNS or table != "strace-c":
                raise ConfigError(f"summary output: columns: {c!r} is not one of "
                                  f"{', '.join(map(repr, STRACE_COLUMNS))} (and columns "
                                  'go with table = "strace-c")')
        if interval_s is not None and not 0 < interval_s < float("inf"):
            raise ConfigError(f"summary output: interval_s = {interval_s!r} must be a "
                              "positive number of seconds")
        self.out = out
        self.table = table
        self.group_by: GroupBy = group_by
        self.sort: Any = sort
        self.columns = list(columns)
        self.summarizer = Summarizer(syscall_name, compat_syscall_name)
        self.code_paths = code_paths
        self.result: Summary | None = None
        self.reports: list[Summary] = []
        self.closed_by_reader = False
        self.summary_from = summary_from
        self.rich = rich
        self.losses_from = losses_from
        self.interval_s = interval_s
        self.interval_report = interval_report
        self.interval_from = interval_from
        self._closed: Summary | None = None   # the reported intervals, merged (stream mode)

    # -- what the reports hold -------------------------------------------------------------

    def _so_far(self) -> Summary:
        """Every call so far, by thread."""
        if self.summary_from is not None:
            return self.summary_from()
        current = self.summarizer.summary("thread")
        return current if self._closed is None else self._closed.merge(current)

    def _take_interval(self, since_last: Callable[[], Summary] | None) -> Summary:
        """The calls since the previous report (ending the interval), by thread."""
        if since_last is not None:
            return since_last()
        snap = self.summarizer.summary("thread")
        self.summarizer.reset()
        self._closed = snap if self._closed is None else self._closed.merge(snap)
        return snap

    # -- running --------------------------------------------------------------------------

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        add = self.summarizer.add
        if self.interval_s is None:
            async with recv:
                async for batch in recv:
                    if self.summary_from is None:
                        add(batch)
                    if self.code_paths is not None:
                        self.code_paths.add(batch)
            self.result = self._with_losses(self._so_far().regroup(self.group_by))
            self._write(ctx, self.result)
            return
        if self.summary_from is not None and self.interval_from is None:
            raise ConfigError("summary output: interval reports of a summary counted in the "
                              "kernel need interval_from (SinkContext.interval_from)")
        stream, owned = self._open(atomic=False)
        completed = False
        try:
            t0 = trio.current_time()
            since_last = (self.interval_from() if self.interval_from is not None
                          and self.summary_from is not None else None)
            async with trio.open_nursery() as reports:
                reports.start_soon(self._report_every, ctx, stream, t0, since_last)
                async with recv:
                    async for batch in recv:
                        if self.summary_from is None:
                            add(batch)
                        if self.code_paths is not None:
                            self.code_paths.add(batch)
                reports.cancel_scope.cancel()
            if since_last is None and self.summary_from is None:
                self._take_interval(None)            # fold the last part into the total
            self.result = self._with_losses(self._so_far().regroup(self.group_by))
            head = (f" Whole trace, 0.000 to {trio.current_time() - t0:.3f} s: every call\n"
                    if self.table != "json" else "")
            self._emit(ctx, stream, self.result, head, final=True)
            completed = True
        finally:
            if owned and not is_std_stream(stream):
                close_output(stream, completed=completed)

    def _with_losses(self, summary: Summary) -> Summary:
        """``summary`` with the trace's losses, written after the tables."""
        if self.losses_from is None:
            return summary
        return msgspec.structs.replace(summary, losses=self.losses_from())

    async def _report_every(self, ctx: StageContext, stream: Any, t0: float,
                            since_last: Callable[[], Summary] | None) -> None:
        assert self.interval_s is not None
        n, start = 0, 0.0
        while True:
            await trio.sleep_until(t0 + (n + 1) * self.interval_s)
            n += 1
            end = trio.current_time() - t0
            if self.interval_report == "total":
                if since_last is None and self.summary_from is None:
                    self._take_interval(None)
                report = self._so_far()
                what = "every call so far"
            else:
                report = self._take_interval(since_last)
                what = "the calls since the previous report" if n > 1 else \
                    "the calls so far"
            report = report.regroup(self.group_by)
            self.reports.append(report)
            head = f" Report {n}, {start:.3f} to {end:.3f} s: {what}\n" \
                if self.table != "json" else ""
            start = end
            if not self._emit(ctx, stream, report, head):
                return

    def _open(self, *, atomic: bool) -> tuple[Any, bool]:
        if isinstance(self.out, str | os.PathLike):
            return open_output(self.out, atomic=atomic), True
        return self.out, False

    def _text(self, stream: Any, summary: Summary, final: bool = False) -> str:
        """The table of ``summary`` (and, at the end, the calls by code path)."""
        text = self._table(stream, summary)
        if final and self.code_paths is not None and self.table != "json":
            text += self.code_paths.render()
        return text

    def _table(self, stream: Any, summary: Summary) -> str:
        use_rich = self.rich
        if use_rich is None:
            isatty = getattr(stream, "isatty", None)
            use_rich = bool(isatty and isatty())
        if use_rich and self.table in RICH_TABLES:
            return render_rich(summary, self.table, self.sort)
        if self.table == "strace-c":
            return render_strace_c(summary, self.sort, self.columns)
        return render(summary, self.table, self.sort)

    def _emit(self, ctx: StageContext, stream: Any, summary: Summary, head: str = "", *,
              final: bool = False) -> bool:
        """Write one table (after ``head``); False when the reader has gone."""
        if self.closed_by_reader:
            return False
        text = head + self._text(stream, summary, final)
        data = text.encode("utf-8", "surrogateescape")
        try:
            stream.write(text if isinstance(stream, io.TextIOBase) else data)
            stream.flush()
        except BrokenPipeError:
            self.closed_by_reader = True
            ctx.log.info("%s: the reader closed the output", ctx.name)
            reader_closed(stream)
            return False
        except OSError as e:    # ENOSPC, EFBIG, EIO: one line naming the output and why
            raise write_error(stream, e) from None
        return True

    def _write(self, ctx: StageContext, summary: Summary) -> None:
        # a path is written atomically: a reader never sees half a summary, and a failed
        # run leaves the previous file
        stream, owned = self._open(atomic=SPEC.written_at_end)
        completed = False
        try:
            self._emit(ctx, stream, summary, final=True)
            completed = True
        finally:
            if owned and not is_std_stream(stream):
                close_output(stream, completed=completed)


def make_sink(out: Output, options: SummaryOptions, ctx: SinkContext) -> SummarySink:
    """``[output] format = "summary"``; the tables named by ``ctx``; the kernel's counts
    when ``ctx.summary_from`` is given (interval reports from ``ctx.interval_from``).

    Raises:
      ConfigError: an option value the sink does not take.
    """
    sink = SummarySink(out, table=options.table, group_by=options.group_by,
                       sort=options.sort, syscall_name=ctx.syscall_name,
                       compat_syscall_name=ctx.compat_syscall_name,
                       summary_from=ctx.summary_from, interval_s=options.interval_s,
                       interval_report=options.interval_report,
                       interval_from=ctx.interval_from, columns=options.columns,
                       code_paths=CodePaths(options.stack_frames, ctx.syscall_name)
                       if options.stacks is not None else None)
    sink.options = options
    return sink


def counts_in_kernel(options: SummaryOptions, has_stages: bool) -> bool:
    """``mode = "kernel"``, or ``"auto"`` with no stages configured (a stage could not see
    syscalls that are only counted in BPF maps); never with ``stacks`` (BPF maps count no
    code paths)."""
    if options.stacks is not None:
        return False
    return options.mode == "kernel" or options.mode == "auto" and not has_stages


def _streams_with(options: SummaryOptions) -> bool:
    """Interval reports are written while the trace runs (so a file is not atomic)."""
    return options.interval_s is not None


SPEC: FormatSpec[SummaryOptions] = FormatSpec("summary", SummaryOptions, make_sink,
                                              in_kernel=counts_in_kernel,
                                              written_at_end=True,
                                              streams_with=_streams_with)
SummarySink.spec = SPEC
