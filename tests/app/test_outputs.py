"""The outputs of one run (tracekit.app.outputs): what they ask of the trace, and a
summary that shares a stream with a trace written after the trace's last line. No kernel."""

from __future__ import annotations

import textwrap

import trio

from tracekit.app.config import decode_config
from tracekit.app.outputs import OutputPlan, _After, _Signalled
from tracekit.formatters import SinkContext
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import IterSource, Pipeline

from ..formatters.test_summary import sc

CTX = SinkContext(syscall_name=SyscallTable("x86_64").name)


def plan(body: str, *, has_stages: bool = False) -> OutputPlan:
    cfg = decode_config("target.pid = [1]\n" + textwrap.dedent(body))
    return OutputPlan(cfg, has_stages=has_stages)


def test_where_a_summary_counts() -> None:
    alone = plan('[output]\nformat = "summary"\n')
    assert (alone.kernel_summary, alone.records) == (True, False)
    assert not plan('[output]\nformat = "summary"\n', has_stages=True).kernel_summary
    beside = plan('[[output]]\n[[output]]\nformat = "summary"\n')
    assert (beside.kernel_summary, beside.records) == (False, True)   # auto: the events
    kernel = plan('[[output]]\n[[output]]\nformat = "summary"\nmode = "kernel"\n')
    assert (kernel.kernel_summary, kernel.records) == (True, True)    # maps and records
    assert [o.name for o in kernel.outputs] == ["perf", "summary"]
    two = plan('[[output]]\npath = "a"\n[[output]]\npath = "b"\n')
    assert [o.name for o in two.outputs] == ["perf#1", "perf#2"]      # unique sink names
    assert [st.name for st in two.stages([], CTX)] == ["beautify", "reorder"]


def test_status_line_only_when_nothing_goes_to_a_standard_stream() -> None:
    assert plan('[output]\npath = "t"\n').status_line_ok
    assert not plan('[output]\npath = "-"\n').status_line_ok
    assert not plan('[[output]]\npath = "t"\n[[output]]\nformat = "summary"\n'
                    'path = "/dev/stderr"\n').status_line_ok


class _Writer:
    """A sink that appends what it got to ``log``; a trace one slowly, batch by batch; a
    summary one once, at the end of its input."""

    def __init__(self, name: str, log: list[str], *, at_end: bool) -> None:
        self.name, self.log, self.at_end = name, log, at_end

    async def run(self, ctx: object, recv: trio.MemoryReceiveChannel[list[object]]) -> None:
        n = 0
        async with recv:
            async for batch in recv:
                n += len(batch)
                if not self.at_end:
                    await trio.sleep(1)      # the tee is far ahead of this sink
                    self.log.append(f"trace {n}")
        if self.at_end:
            self.log.append(f"summary {n}")


async def test_a_summary_on_the_trace_stream_comes_after_its_last_line(
        autojump_clock: trio.abc.Clock) -> None:
    log: list[str] = []
    ended = trio.Event()
    trace = _Signalled(_Writer("trace", log, at_end=False), ended)
    summary = _After(_Writer("summary", log, at_end=True), [ended])
    batches = [[sc(i, "getppid", 1)] for i in range(3)]
    with trio.fail_after(60):
        await Pipeline(IterSource(batches), [], [trace, summary]).run()
    assert log == ["trace 1", "trace 2", "trace 3", "summary 3"]
