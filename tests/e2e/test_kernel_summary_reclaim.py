"""The in-kernel summary frees the slots of exited threads while a trace runs
(KernelSummary.reclaim, docs/adversarial.md attack 152): 3000 short-lived processes make
about 20 (thread, syscall) keys each, 60000 in all, far more than the summary array's
32768 slots, and are still counted call for call.

One run: tracekit (in-kernel summary) traces ``strace -f -c`` running the loop, so both
count the same calls; tracekit's count of the loop's tasks (every tid but strace's own)
is compared with strace's total.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
import trio

from tracekit._summary import Summary
from tracekit.app.trace import LiveTrace
from tracekit.formatters.summary import SummarySink, render_strace_c
from tracekit.session.session import SessionOptions

pytestmark = pytest.mark.kernel

PROCS = 3000


def _total_calls(strace_c: str) -> int:
    (line,) = [ln for ln in strace_c.splitlines() if ln.endswith(" total")]
    return int(line.split()[3])


def test_short_lived_processes_past_the_slot_count_are_all_counted(tmp_path: Path) -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    st_out = tmp_path / "strace-c.txt"
    loop = f"for i in $(seq {PROCS}); do /bin/true; done"
    argv = ["strace", "-f", "-c", "-o", str(st_out), "sh", "-c", loop]
    box: dict[str, object] = {}
    intervals: list[Summary] = []

    def read_summary() -> Summary:        # the sink's end, the session still open
        trace = box["trace"]
        assert isinstance(trace, LiveTrace) and trace.session is not None
        ks = trace.session.kernel_summary()
        box["counters"] = ks.counters()
        box["reclaimed"] = ks.reclaimed
        intervals.append(box["reader"].interval())  # type: ignore[attr-defined]
        final: Summary = ks.read()
        box["final"] = final
        return final

    sink = SummarySink(io.StringIO(), table="strace", group_by="total",
                       summary_from=read_summary)
    trace = LiveTrace(SessionOptions(command=argv, summary=True, capture=False),
                      sinks=[sink], collect=False)
    box["trace"] = trace

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def intervals_while_running() -> None:
                while trace.session is None or trace.session.obj is None:
                    await trio.sleep(0.01)
                reader = box["reader"] = trace.session.kernel_summary().reader()
                while True:                 # read between reclaims (cancelled at the end)
                    await trio.sleep(0.3)
                    intervals.append(reader.interval())

            nursery.start_soon(intervals_while_running)
            with trio.fail_after(60):
                await trace.run()
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert trace.returncode == 0
    final = box["final"]
    assert isinstance(final, Summary)
    counters = box["counters"]
    assert (counters.summary_full, counters.errno_full) == (0, 0)  # type: ignore[attr-defined]
    assert final.lost == 0
    # the slots were reused: more keys than slots were counted
    assert box["reclaimed"] > 10000
    assert sum(len(g.syscalls) for g in final.groups) > 40000
    assert trace.session is not None and trace.session.command is not None
    strace_pid = trace.session.command.pid
    loop_only = Summary(group_by="thread", lost=final.lost,
                        groups=[g for g in final.groups if g.tid != strace_pid])
    assert len(loop_only.groups) >= PROCS
    ours = _total_calls(render_strace_c(loop_only.regroup("total")))
    theirs = _total_calls(st_out.read_text())
    # strace does not see the calls its child makes before its execve of sh (a few)
    assert theirs > PROCS * 20 and abs(ours - theirs) <= 0.02 * theirs, (ours, theirs)
    # the interval reads, across reclaims, merge to the final read
    merged = intervals[0]
    for s in intervals[1:]:
        merged = merged.merge(s)
    assert len(intervals) > 3
    assert merged == final
