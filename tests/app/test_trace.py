"""LiveTrace, the one orchestrator: how a trace ends (interrupt, abort, start-up cancel),
errors that reach the caller as themselves, and tasks that run while events flow.

Real kernel, real commands; the CLI's signal behaviour on top of this is in tests/e2e/.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from tests._run import until_orphaned
from tracekit._errors import PipelineError
from tracekit._events import Syscall
from tracekit.app.trace import LiveTrace
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import map_stage
from tracekit.session.session import SessionOptions

pytestmark = pytest.mark.kernel

# Exits 3 on SIGINT; until then it sleeps (a few syscalls a second).
# (It ends by itself once orphaned: a failed test leaves nothing running.)
ON_SIGINT_EXIT_3 = ("import signal, sys\n"
                    "signal.signal(signal.SIGINT, lambda *a: sys.exit(3))\n"
                    "print('ready', flush=True)\n"
                    + until_orphaned("time.sleep(0.02)"))


async def test_first_interrupt_forwards_the_signal_and_ends_after_the_drain() -> None:
    trace = LiveTrace(SessionOptions(command=[sys.executable, "-c", ON_SIGINT_EXIT_3]))
    async with trio.open_nursery() as nursery:
        await nursery.start(trace.run)
        await trio.sleep(0.5)               # the interpreter is up, its handler set
        with trio.fail_after(10):
            trace.interrupt(signal.SIGINT)
            while trace.running:
                await trio.sleep(0.01)
    assert trace.interrupted_by == signal.SIGINT
    assert trace.returncode == 3            # the command got SIGINT, from the trace
    assert trace.result is not None and not trace.result.aborted
    assert trace.result.stats["collector"].events_in == trace.source.records  # drained


async def test_second_interrupt_aborts_a_drain_that_cannot_finish() -> None:
    stuck = trio.Event()

    class Stuck:
        name = "stuck"

        async def run(self, ctx: Any, recv: Any, send: Any) -> None:
            async with recv, send:
                async for _ in recv:
                    stuck.set()
                    await trio.sleep_forever()   # a stage that never reads again

    trace = LiveTrace(SessionOptions(command=["sleep", "30"]), [Stuck()])
    async with trio.open_nursery() as nursery:
        await nursery.start(trace.run)
        with trio.fail_after(10):
            await stuck.wait()
            trace.interrupt(signal.SIGINT)      # forwarded: sleep dies; the drain hangs
            await trio.sleep(0.5)
            assert trace.running
            trace.interrupt(signal.SIGINT)
            while trace.running:
                await trio.sleep(0.01)
    assert trace.result is not None and trace.result.aborted
    assert trace.returncode == -signal.SIGINT


async def test_interrupt_during_start_up_returns_none_and_never_runs_the_command(
        tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    trace = LiveTrace(SessionOptions(command=["touch", str(marker)]))
    trace.interrupt(signal.SIGTERM)             # lands before the first checkpoint
    with trio.fail_after(10):
        result = await trace.run()
    assert result is None and trace.result is None and trace.pipeline is None
    assert trace.interrupted_by == signal.SIGTERM and not trace.running
    await trio.sleep(0.2)
    assert not marker.exists()


async def test_a_failing_stage_reaches_the_caller_as_pipeline_error_not_a_group() -> None:
    @map_stage(name="boom")
    def boom(batch: list[Any]) -> list[Any]:
        raise ValueError("bad batch")

    async def idle(trace: LiveTrace) -> None:     # a second nursery level inside run()
        await trio.sleep_forever()

    trace = LiveTrace(SessionOptions(command=["true"]), [boom], while_tracing=[idle])
    with trio.fail_after(10), pytest.raises(PipelineError) as ei:
        await trace.run()
    assert type(ei.value) is PipelineError
    assert str(ei.value) == "stage 'boom' failed: ValueError: bad batch"
    assert type(ei.value.__cause__) is ValueError
    assert trace.session is not None and trace.session.obj is not None
    assert trace.session.ringbuf is None          # closed on the way out


async def test_while_tracing_tasks_run_from_live_to_drained_and_collect_false() -> None:
    seen: list[Any] = []
    getppid = SyscallTable().nr("getppid")

    class Count:
        name = "count"
        events = 0

        async def run(self, ctx: Any, recv: Any) -> None:
            async with recv:
                async for batch in recv:
                    self.events += sum(1 for e in batch
                                       if type(e) is Syscall and e.syscall_nr == getppid)

    count = Count()

    async def watch(trace: LiveTrace) -> None:
        seen.append(("start", trace.source is not None, trace.running))
        try:
            await trio.sleep_forever()
        finally:
            seen.append(("end", count.events, trace.returncode))

    trace = LiveTrace(SessionOptions(command=[sys.executable, "-c",
                                              "import os\nfor _ in range(200): os.getppid()"]),
                      sinks=[count], collect=False, while_tracing=[watch])
    with trio.fail_after(20):
        await trace.run()
    assert seen == [("start", True, True), ("end", 200, None)]   # cancelled after the drain
    assert trace.returncode == 0 and count.events == 200
    assert trace.counters is not None and trace.counters.lost == 0
    with pytest.raises(RuntimeError, match="collect=False"):
        trace.summary()
