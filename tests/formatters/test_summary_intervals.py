"""Interval reports of the summary sink (``interval_s``): each the calls since the
previous report (or every call so far), then the exact whole-run table; counted from the
events, or (counted in the kernel) from the ``interval_from`` and ``summary_from``
readers, which read without resetting. No kernel: batches on the trio clock."""

from __future__ import annotations

import functools
import io

import pytest
import trio

from tracekit._summary import Summary
from tracekit.formatters.summary import SummarySink, render_json
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import IterSource, Pipeline

from .test_summary import sc

TABLE = SyscallTable("x86_64")
# four batches, one a second (IterSource sleeps before each): 1, 2, 3 and 4 getppid calls
BATCHES = [[sc(k * 1_000_000 + i, "getppid", 100) for i in range(k)] for k in (1, 2, 3, 4)]


def calls(s: Summary) -> int:
    return s.regroup("total").calls


async def run_sink(sink: SummarySink) -> None:
    with trio.fail_after(60):
        await Pipeline(IterSource(BATCHES, interval_s=1.0), [], [sink]).run()


@pytest.mark.parametrize(("report", "expected"), [("change", [1, 2, 3]),
                                                  ("total", [1, 3, 6])])
async def test_reports_from_the_events(autojump_clock: trio.abc.Clock, report: str,
                                       expected: list[int]) -> None:
    out = io.StringIO()
    sink = SummarySink(out, table="strace", group_by="total", syscall_name=TABLE.name,
                       interval_s=1.25, interval_report=report)
    await run_sink(sink)
    # reports at 1.25, 2.5 and 3.75 s: the batches of seconds 1, 2, 3; the 4th only in the end
    assert [calls(r) for r in sink.reports] == expected
    assert sink.result is not None and calls(sink.result) == 10
    text = out.getvalue()
    assert text.count(" Report ") == 3 and text.count(" Whole trace, ") == 1
    assert text.index(" Report 3, 2.500 to 3.750 s") < text.index(" Whole trace, 0.000 to")
    if report == "change":
        assert " Report 2, 1.250 to 2.500 s: the calls since the previous report" in text


async def test_reports_from_the_kernel_readers(autojump_clock: trio.abc.Clock) -> None:
    """Counted in the kernel: the reports come from interval_from's reader, the final
    table from summary_from (the maps' whole counts), not from the events."""
    counted = [0]

    def cumulative(n: int) -> Summary:
        s = SummarySink("-", syscall_name=TABLE.name).summarizer
        s.add([sc(i, "getppid", 100) for i in range(n)])
        return s.summary("thread")

    def interval_from() -> functools.partial[Summary]:
        def since_last() -> Summary:
            counted[0] += 5
            return cumulative(5)
        return functools.partial(since_last)

    out = io.StringIO()
    sink = SummarySink(out, table="json", group_by="total", syscall_name=TABLE.name,
                       interval_s=1.25, summary_from=lambda: cumulative(99),
                       interval_from=interval_from)
    await run_sink(sink)
    assert [calls(r) for r in sink.reports] == [5, 5, 5]
    assert sink.result is not None and calls(sink.result) == 99
    # the json table: one document per report, a line each, then the whole run's
    lines = out.getvalue().splitlines()
    assert len(lines) == 4 and lines[-1] + "\n" == render_json(sink.result)


def test_interval_needs_a_positive_number() -> None:
    from tracekit._errors import ConfigError

    with pytest.raises(ConfigError, match="interval_s = 0 must be a positive number"):
        SummarySink("-", interval_s=0)
    with pytest.raises(ConfigError, match="interval_report = 'x' is not one of"):
        SummarySink("-", interval_report="x")
