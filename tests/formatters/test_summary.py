"""The summary formatter: golden tables (perf, strace, histogram, JSON), options, sink."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import msgspec
import pytest

from tracekit._errors import ConfigError
from tracekit._events import SC_COMPAT, SC_NORETURN, Batch, Exit, Losses, Lost, Syscall
from tracekit._summary import Summarizer, Summary
from tracekit.formatters import SinkContext, unescape
from tracekit.formatters.summary import SPEC, SummarySink, make_sink, render
from tracekit.kernel.syscalls import SyscallTable

from ..pipeline.helpers import run_through

GOLDEN = Path(__file__).parent / "golden"
TABLE = SyscallTable("x86_64")
I386 = SyscallTable("i386")
NR = {n: TABLE.nr(n) for n in ("getppid", "openat", "read", "exit_group", "execve")}


def sc(ts: int, name: str | int, dur: int, *, ret: int = 0, tid: int = 100, tgid: int = 100,
       comm: str = "work", flags: int = 0) -> Syscall:
    nr = name if isinstance(name, int) else NR[name]
    return Syscall(ts_ns=ts, duration_ns=dur, tid=tid, tgid=tgid, cpu=0, syscall_nr=nr,
                   args=(0,) * 6, ret=ret, comm=comm, flags=flags)


# Two processes; 100 has two threads. Durations chosen so every column has a round value
# that can be checked by hand (see the comments).
BATCHES: list[Batch] = [
    [sc(1_000, "execve", 2_000_000),                               # 2.000 ms
     sc(3_000_000, "getppid", 1_000), sc(3_010_000, "getppid", 3_000),   # mean 2 us, sd 50%
     sc(3_020_000, "openat", 4_000, ret=-errno.ENOENT),
     sc(3_030_000, "openat", 6_000, ret=3)],
    [sc(3_040_000, "read", 10_000, ret=5, tid=101, comm="worker"),
     sc(3_050_000, 1000, 500, ret=-errno.ENOSYS, tid=101, comm="worker"),   # syscall_1000
     sc(3_060_000, I386.nr("getppid"), 700, ret=1, tid=101, comm="worker", flags=SC_COMPAT),
     Exit(ts_ns=3_070_000, tid=101, tgid=100, exit_code=0, group_dead=False, comm="worker"),
     sc(3_080_000, "exit_group", 0, flags=SC_NORETURN)],
    [sc(4_000_000, "read", 250_000, ret=0, tid=200, tgid=200, comm="other\x1b[31m"),
     sc(4_300_000, "exit_group", 0, tid=200, tgid=200, comm="other\x1b[31m",
        flags=SC_NORETURN),
     Lost(ts_ns=5_000_000, count=2)],
]


def summary(group_by: str) -> Summary:
    agg = Summarizer(TABLE.name, I386.name)
    for b in BATCHES:
        agg.add(b)
    return agg.summary(group_by)  # type: ignore[arg-type]


CASES = [("perf", "thread", "total"), ("perf", "process", "calls"), ("perf", "total", "name"),
         ("strace", "total", "total"), ("strace", "process", "errors"),
         ("histogram", "process", "total")]


@pytest.mark.parametrize(("table", "group_by", "sort"), CASES)
def test_golden(table: str, group_by: str, sort: str) -> None:
    got = render(summary(group_by), table, sort)  # type: ignore[arg-type]
    path = GOLDEN / f"summary_{table}_{group_by}_{sort}.txt"
    if os.environ.get("TRACEKIT_UPDATE_GOLDEN"):
        path.write_text(got)
    assert got == path.read_text()


def test_perf_table_values_by_hand() -> None:
    text = render(summary("thread"), "perf", "name")
    rows = {line.split()[0]: line.split() for line in text.splitlines()
            if line.startswith("     ") and line.split()[0] in
            ("getppid", "openat", "execve", "exit_group", "syscall_1000", "getppid(32)")}
    # name calls errors total min avg max stddev%; stddev is the sample figure (n - 1):
    # getppid 1 and 3 us: sqrt(2) / 2 = 70.71%; openat 4 and 6 us: sqrt(2) / 5 = 28.28%
    assert rows["getppid"] == ["getppid", "2", "0", "0.004", "0.001", "0.002", "0.003",
                               "70.71%"]
    assert rows["openat"][:3] == ["openat", "2", "1"] and rows["openat"][7] == "28.28%"
    assert rows["execve"][3] == "2.000"
    assert rows["syscall_1000"][:3] == ["syscall_1000", "1", "1"]
    assert rows["getppid(32)"][:3] == ["getppid(32)", "1", "0"]
    assert " ".join(rows["exit_group"][3:]) == "- - - - - (1 without duration)"
    assert "not the standard error" in text and "sample standard\n deviation (n - 1)" in text
    assert "LOST 2 records" in text
    assert "\x1b" not in text and "other\\x1b[31m (200)" in text    # comm escaped


def test_strace_total_line() -> None:
    lines = render(summary("total"), "strace").splitlines()
    total = next(line for line in lines if line.endswith(" total"))
    # every known duration of BATCHES, over its 9 timed calls; 11 calls, 2 errors
    ns = 2_000_000 + 1_000 + 3_000 + 4_000 + 6_000 + 10_000 + 500 + 700 + 250_000
    assert total.split() == ["100.00", f"{ns / 1e9:.6f}", str(ns // 9 // 1000), "11", "2",
                             "total"]


def _unescaped(s: Summary) -> Summary:
    """``s`` read back from JSON, with each comm as the process had it (not escaped)."""
    return msgspec.structs.replace(s, groups=[
        msgspec.structs.replace(g, comm=unescape(g.comm).decode("utf-8", "surrogateescape"))
        for g in s.groups])


def test_json_decodes_back_to_the_summary() -> None:
    s = summary("thread")
    back = msgspec.json.decode(render(s, "json").encode(), type=Summary)
    assert back.groups[-1].comm == "other\\x1b[31m"     # escaped, as in JSON Lines
    assert _unescaped(back) == s


async def test_sink_aggregates_and_writes_at_the_end() -> None:
    out = io.BytesIO()
    sink = SummarySink(out, table="strace", group_by="total", syscall_name=TABLE.name,
                       compat_syscall_name=I386.name)
    await run_through(BATCHES, [], [sink])
    assert out.getvalue().decode() == render(summary("total"), "strace")
    assert sink.result == summary("total")


async def test_make_sink_options(tmp_path: Path) -> None:
    ctx = SinkContext(syscall_name=TABLE.name, compat_syscall_name=I386.name,
                      arg_names=lambda name: None)
    options = SPEC.parse_options({"table": "json", "group_by": "process", "sort": "calls"})
    sink = make_sink(str(tmp_path / "s.json"), options, ctx)
    assert (sink.table, sink.group_by, sink.sort) == ("json", "process", "calls")
    await run_through(BATCHES, [], [sink])
    got = msgspec.json.decode((tmp_path / "s.json").read_bytes(), type=Summary)
    assert _unescaped(got) == summary("process")


def test_make_sink_rejects_bad_options() -> None:
    ctx = SinkContext(syscall_name=TABLE.name, compat_syscall_name=None,
                      arg_names=lambda name: None)
    with pytest.raises(ConfigError, match="table = 'csv' is not one of"):
        make_sink("-", SPEC.parse_options({"table": "csv"}), ctx)
    with pytest.raises(ConfigError, match="unknown option.*colour"):
        make_sink("-", SPEC.parse_options({"colour": True}), ctx)


async def test_losses_and_failed_check_after_the_tables() -> None:
    """At the end of a trace the sink adds its losses, one line per kind, and a failed
    self-check says so, in every table."""
    overlapping = [sc(1_000_000, "getppid", 100_000), sc(1_050_000, "getppid", 100_000)]
    losses = Losses(ts_ns=1, lost_syscalls=12, lost_lifecycle=3, lost_fd_table=7,
                    untraced_tasks=2, capbuf_full=4, scratch_full=5,
                    dropped={"pathfilter": 6})
    out = io.StringIO()
    sink = SummarySink(out, table="strace", syscall_name=TABLE.name,
                       compat_syscall_name=I386.name, losses_from=lambda: losses)
    await run_through([overlapping], [], [sink])
    text = out.getvalue()
    tail = text[text.index(" LOST"):].splitlines()
    assert tail == [
        " LOST 15 records (12 syscall, 3 fork/exec/exit/signal): the ring buffer was full; "
        "the trace is short by 12 calls",
        " LOST 7 fd-table records (fds opened, duplicated or closed): the ring buffer was "
        "full; fd paths printed after the first of them (-y, -yy, -P) may be wrong",
        " 2 tasks were not traced: the pids map was full",
        " 5 calls were not recorded: no memory for the per-task entry that pairs a call's "
        "entry and exit",
        " 4 calls were recorded without their strings and buffers: the capture map was full",
        " stage 'pathfilter' dropped 6 events",
        " CHECK FAILED: thread 100: 0.000200 s in calls is more than the 0.000150 s from its "
        "first call's entry to its last call's exit",
    ]
    assert sink.result is not None and sink.result.losses == losses
    for table in ("perf", "histogram"):
        assert render(sink.result, table).endswith("\n".join(tail) + "\n")
    back = msgspec.json.decode(render(sink.result, "json"), type=Summary)
    assert back.losses == losses and back.problems == sink.result.problems
