"""Summary tables with rich on a terminal: the same rows and numbers as the plain tables;
plain text whenever the output is not a terminal."""

from __future__ import annotations

import io
import re

import pytest

from tracekit.formatters.summary import SummarySink, render, render_rich

from ..pipeline.helpers import run_through
from .test_summary import BATCHES, I386, TABLE, summary


def _plain_rows(text: str, first: str) -> list[list[str]]:
    """Data rows of plain tables: lines whose first token is a syscall name/number."""
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if parts and re.fullmatch(first, parts[0]):
            rows.append(parts)
    return rows


@pytest.mark.parametrize("group_by", ["thread", "process", "total"])
def test_rich_perf_has_every_plain_row(group_by: str) -> None:
    s = summary(group_by)
    plain = render(s, "perf", "total")
    fancy = render_rich(s, "perf", "total", width=140, color_system=None)
    names = r"[a-z_0-9]+(\(32\))?"
    want = [r[:8] for r in _plain_rows(plain, names)
            if len(r) >= 8 and r[1].isdigit()]
    got = [r[:8] for r in _plain_rows(fancy, names) if len(r) >= 8 and r[1].isdigit()]
    assert want and got == want
    # untimed calls: the plain row note becomes a caption line
    assert re.search(r"^exit_group: [12] without duration", fancy, re.M)
    assert "LOST 2 records" in fancy
    assert "\x1b" not in fancy                      # comm escaped, no styles asked for
    assert "─" in fancy                             # drawn by rich


def test_rich_strace_rows_and_total_match_plain() -> None:
    s = summary("process")
    plain = render(s, "strace", "errors")
    fancy = render_rich(s, "strace", "errors", width=120, color_system=None)
    pct = r"\d+\.\d\d"

    def cut(row: list[str]) -> list[str]:      # without the "(n without duration)" note
        return row[:row.index("(1")] if "(1" in row else row

    want = [cut(r) for r in _plain_rows(plain, pct)]
    assert len(want) == 9 + 2                      # 7 + 2 rows, a total line per group
    assert [cut(r) for r in _plain_rows(fancy, pct)] == want


def test_rich_only_for_perf_and_strace() -> None:
    with pytest.raises(ValueError, match="no rich rendering of the 'histogram' table"):
        render_rich(summary("total"), "histogram")


class _Tty(io.BytesIO):
    def isatty(self) -> bool:
        return True


async def test_sink_uses_rich_on_a_terminal_and_plain_elsewhere() -> None:
    tty = _Tty()
    sink = SummarySink(tty, table="strace", group_by="total", syscall_name=TABLE.name,
                       compat_syscall_name=I386.name)
    await run_through(BATCHES, [], [sink])
    text = tty.getvalue().decode()
    assert "─" in text and text != render(summary("total"), "strace")
    plain = io.BytesIO()
    sink = SummarySink(plain, table="strace", group_by="total", syscall_name=TABLE.name,
                       compat_syscall_name=I386.name)
    await run_through(BATCHES, [], [sink])
    assert plain.getvalue().decode() == render(summary("total"), "strace")
    hist = _Tty()       # the histogram stays plain even on a terminal
    sink = SummarySink(hist, table="histogram", group_by="process", syscall_name=TABLE.name,
                       compat_syscall_name=I386.name)
    await run_through(BATCHES, [], [sink])
    assert hist.getvalue().decode() == render(summary("process"), "histogram")
    forced = io.BytesIO()   # rich=False on a terminal: plain
    sink = SummarySink(_Tty(), table="perf", rich=False, syscall_name=TABLE.name,
                       compat_syscall_name=I386.name)
    sink.out = forced
    await run_through(BATCHES, [], [sink])
    assert forced.getvalue().decode() == render(summary("thread"), "perf")
