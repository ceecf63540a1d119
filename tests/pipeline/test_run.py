"""Pipeline runner: wiring, draining, stopping, errors, side tasks (no kernel needed)."""

from __future__ import annotations

import errno

import pytest
import trio

import tracekit.pipeline
from tracekit._errors import ConfigError, MapError, TracekitError
from tracekit._events import Batch
from tracekit.pipeline import (
    EventReceiver,
    EventSender,
    IterSource,
    Pipeline,
    PipelineError,
    PipelineResult,
    StageContext,
    map_stage,
    stage,
)

from .helpers import Collect, Fail, Pass, Take, batches, endless, numbers, run_through, sc


async def _run_keep(p: Pipeline, box: list[PipelineResult], *,
                    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    box.append(await p.run(task_status=task_status))


async def test_batches_flow_in_order_through_three_stages() -> None:
    result, out = await run_through(batches(10), [Pass("a"), Pass("b"), Pass("c")])
    assert numbers(out) == list(range(40))
    assert [len(b) for b in out] == [4] * 10                  # batches are not re-cut
    for name in ("a", "b", "c", "collect"):
        assert (result.stats[name].batches_in, result.stats[name].events_in) == (10, 40)
    assert result.stats["iter"].events_out == 40
    assert not (result.stopped or result.aborted or result.downstream_closed)


async def test_stage_decorator_and_map_stage_count_drops() -> None:
    @stage
    async def double(ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                ctx.stats.count("seen", len(batch))
                await send.send(batch + batch)

    evens = map_stage(lambda b: [e for e in b if e.args[0] % 2 == 0], name="evens")
    none_for_first = map_stage(lambda b: None if b[0].args[0] == 0 else b, name="skip0")
    result, out = await run_through(batches(3), [double, evens, none_for_first])
    # batch 0 = 0..3 doubled, evens -> [0, 2, 0, 2], dropped entirely by skip0
    assert numbers(out) == [4, 6, 4, 6, 8, 10, 8, 10]
    assert double.name == "double"
    assert result.stats["double"].counters == {"seen": 12}
    assert result.stats["evens"].dropped == 12                # half of 24
    assert result.stats["skip0"].dropped == 4
    assert result.stats["collect"].batches_in == 2


async def test_two_sinks_each_get_every_batch() -> None:
    s1, s2 = Collect("one"), Collect("two", delay_s=0.001)
    result, _ = await run_through(batches(20), [Pass()], [s1, s2])
    assert numbers(s1.out) == numbers(s2.out) == list(range(80))
    assert s1.eof and s2.eof


async def test_one_sink_exiting_early_leaves_the_other_fed() -> None:
    early, full = Collect("early", limit=2), Collect("full")
    result, _ = await run_through(batches(10), [], [early, full])
    assert numbers(early.out) == list(range(8))
    assert numbers(full.out) == list(range(40)) and full.eof
    assert not result.downstream_closed


async def test_stop_drains_in_flight_batches_through_a_slow_stage(
        autojump_clock: trio.abc.Clock) -> None:
    sink = Collect()
    p = Pipeline(IterSource(endless(), interval_s=0.1), [Pass("slow", delay_s=1.0), Pass("b")],
                 [sink], buffer=4)
    box: list[PipelineResult] = []
    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            await nursery.start(_run_keep, p, box)
            await trio.sleep(20)
            at_stop = len(sink.events)
            p.stop()
            p.stop()                                          # idempotent
            t_stop = trio.current_time()
    sent = box[0].stats["iter"].events_out
    assert sent > at_stop                     # batches were in flight when stop() came ...
    assert numbers(sink.out) == list(range(sent))   # ... and every one of them arrived
    assert trio.current_time() - t_stop >= 1.0      # the slow stage took its time
    assert box[0].stopped and not box[0].aborted and sink.eof


async def test_stop_mid_stream_delivers_everything_sent_before_it() -> None:
    sink = Collect()
    p = Pipeline(IterSource(endless(size=3)), [Pass()], [sink], buffer=1)
    box: list[PipelineResult] = []
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(_run_keep, p, box)
            for _ in range(50):
                await trio.lowlevel.checkpoint()
            p.stop()
    sent = box[0].stats["iter"].events_out
    assert sent > 0
    assert numbers(sink.out) == list(range(sent))


async def test_started_once_source_is_live_and_stop_before_live(
        autojump_clock: trio.abc.Clock) -> None:
    class Slow:
        name = "slow-source"
        live = False

        async def run(self, ctx: StageContext, send: EventSender, *,
                      task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
            async with send:
                await trio.sleep(3)                   # attach + /proc rescan
                self.live = True
                task_status.started()
                await send.send([sc(0)])
                await trio.sleep_forever()

    src = Slow()
    p = Pipeline(src, [], [Collect()])
    async with trio.open_nursery() as nursery:
        t0 = trio.current_time()
        await nursery.start(p.run)
        assert src.live and trio.current_time() - t0 >= 3
        p.stop()

    src2 = Slow()
    p2 = Pipeline(src2, [], [Collect()])
    p2.stop()                                         # before run: the source never goes live
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(p2.run)               # still returns (started by the runner)
    assert not src2.live


async def test_error_in_middle_stage_names_it_and_cancels_the_source() -> None:
    source_exited = trio.Event()

    class Endless:
        name = "endless"

        async def run(self, ctx: StageContext, send: EventSender, *,
                      task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
            task_status.started()
            try:
                async with send:
                    for batch in endless():
                        await send.send(batch)
            finally:
                source_exited.set()

    bad = ValueError("bad record")
    p = Pipeline(Endless(), [Pass("a"), Fail(bad, after=2, name="beautify"), Pass("b")],
                 [Collect()])
    with trio.fail_after(5), pytest.raises(PipelineError) as ei:
        await p.run()
    assert str(ei.value) == "stage 'beautify' failed: ValueError: bad record"
    assert ei.value.__cause__ is bad and ei.value.stage == "beautify"
    assert ei.value.role == "stage" and ei.value.errno is None
    assert "stage=beautify" in bad.__notes__
    assert source_exited.is_set()
    assert p.stats["b"].batches_in == 2


async def test_tracekit_error_in_stage_keeps_type_and_errno() -> None:
    err = MapError("BPF_MAP_UPDATE_ELEM", errno.E2BIG, "pid map full", map_name="pids")
    want = (r"^stage 'reconcile' failed: MapError: \[Errno 7\] "
            r"BPF_MAP_UPDATE_ELEM: Argument list too long \(E2BIG\): pid map full$")
    with pytest.raises(PipelineError, match=want) as ei:
        await run_through(batches(3), [Fail(err, name="reconcile")])
    assert ei.value.__cause__ is err and ei.value.errno == errno.E2BIG
    caught = []
    try:
        await run_through(batches(3), [Fail(MapError("BPF_MAP_UPDATE_ELEM", errno.ENOMEM),
                                            name="reconcile")])
    except* TracekitError as group:                   # how the CLI catches it
        caught = [type(e.__cause__) for e in group.exceptions]
    assert caught == [MapError]


async def test_source_and_sink_errors_name_them() -> None:
    def broken() -> list[Batch]:
        raise OSError(errno.EBADF, "ring buffer fd closed")

    class Gen:
        def __iter__(self):  # noqa: ANN204
            yield [sc(0)]
            broken()

    with pytest.raises(PipelineError, match=r"^source 'ringbuf' failed: OSError: \[Errno 9\]"):
        with trio.fail_after(5):
            await Pipeline(IterSource(Gen(), name="ringbuf"), [], [Collect()]).run()

    class BadSink(Collect):
        async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
            async with recv:
                async for _ in recv:
                    raise RuntimeError("disk full")

    with pytest.raises(PipelineError, match=r"^sink 'out' failed: RuntimeError: disk full$"):
        await run_through(batches(3), [Pass()], [BadSink("out"), Collect()])


async def test_stage_exiting_early_ends_the_source_cleanly() -> None:
    sink = Collect()
    p = Pipeline(IterSource(endless()), [Pass("a"), Take(3), Pass("b")], [sink], buffer=1)
    with trio.fail_after(5):
        result = await p.run()
    assert numbers(sink.out) == list(range(12)) and sink.eof
    assert result.downstream_closed and not result.stopped


async def test_all_sinks_exiting_early_end_the_source_cleanly() -> None:
    a, b = Collect("a", limit=1), Collect("b", limit=2)
    with trio.fail_after(5):
        result = await Pipeline(IterSource(endless()), [], [a, b]).run()
    assert (len(a.out), len(b.out)) == (1, 2)
    assert result.downstream_closed


async def test_side_tasks_are_cancelled_at_the_end(autojump_clock: trio.abc.Clock) -> None:
    ticks: list[float] = []
    ended = trio.Event()

    async def walk() -> None:
        try:
            while True:
                ticks.append(trio.current_time())
                await trio.sleep(1.0)
        finally:
            ended.set()

    @stage
    async def walker(ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        ctx.nursery.start_soon(walk)
        async with recv, send:
            async for batch in recv:
                await send.send(batch)

    with trio.fail_after(60):
        result = await Pipeline(IterSource(batches(5), interval_s=1.0), [walker],
                                [Collect()]).run()
    assert ended.is_set() and len(ticks) >= 5
    assert result.stats["collect"].events_in == 20


async def test_side_task_error_names_its_stage() -> None:
    async def boom() -> None:
        raise KeyError("tid 42")

    @stage
    async def walker(ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        ctx.start_soon(boom)
        async with recv, send:
            async for batch in recv:
                await send.send(batch)

    with trio.fail_after(5), pytest.raises(
            PipelineError, match=r"^side task 'walker:boom' failed: KeyError: 'tid 42'$"):
        await Pipeline(IterSource(endless(), hold_open=True), [walker], [Collect()]).run()


async def test_abort_drops_in_flight_batches(autojump_clock: trio.abc.Clock) -> None:
    sink = Collect(delay_s=10.0)
    p = Pipeline(IterSource(batches(10)), [Pass()], [sink], buffer=4)
    box: list[PipelineResult] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(_run_keep, p, box)
        await trio.sleep(15)
        t0 = trio.current_time()
        p.abort()
    assert trio.current_time() - t0 < 1
    assert box[0].aborted and len(sink.out) < 10 and not sink.eof


async def test_drain_timeout_aborts(autojump_clock: trio.abc.Clock) -> None:
    sink = Collect(delay_s=10.0)
    p = Pipeline(IterSource(endless()), [], [sink], buffer=4)
    box: list[PipelineResult] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(_run_keep, p, box)
        await trio.sleep(5)
        t0 = trio.current_time()
        p.stop(drain_timeout_s=25)                    # draining 5 batches would take 50 s
    assert 25 <= trio.current_time() - t0 < 26
    assert box[0].stopped and box[0].aborted


async def test_sending_a_single_event_is_a_type_error() -> None:
    @stage
    async def unbatch(ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                await send.send(batch[0])  # type: ignore[arg-type]

    with pytest.raises(PipelineError, match=r"^stage 'unbatch' failed: TypeError: 'unbatch' "
                       r"sent a Syscall: channels carry batches"):
        await run_through(batches(1), [unbatch])


def test_names_must_be_unique() -> None:
    with pytest.raises(ConfigError, match=r"named 'pass'"):
        Pipeline(IterSource([]), [Pass(), Pass()], [Collect()])
    with pytest.raises(ConfigError, match=r"needs at least one sink"):
        Pipeline(IterSource([]), [], [])


async def test_a_pipeline_runs_once() -> None:
    p = Pipeline(IterSource(batches(1)), [], [Collect()])
    await p.run()
    with pytest.raises(RuntimeError, match="runs once"):
        await p.run()


def test_public_names() -> None:
    aliases = {"EventReceiver", "EventSender"}          # trio.abc channel type aliases
    for name in set(tracekit.pipeline.__all__) - aliases:
        assert getattr(tracekit.pipeline, name).__module__ == "tracekit.pipeline", name
    assert isinstance(IterSource([]), tracekit.pipeline.Source)
    assert isinstance(Pass(), tracekit.pipeline.Stage)
    assert isinstance(Collect(), tracekit.pipeline.Sink)


async def test_a_sink_that_stops_reading_ends_a_quiet_source(
        autojump_clock: trio.abc.Clock) -> None:
    """Every batch is already in the sink's channel when the sink returns after one, and
    the source, holding its channel open, sends nothing more: the run ends at once,
    reporting the closed downstream (it used to wait for the source's next send, which a
    quiet source never makes)."""
    sink = Collect(delay_s=1.0, limit=1)
    with trio.fail_after(60):
        result = await Pipeline(IterSource(batches(3), hold_open=True), [], [sink]).run()
    assert result.downstream_closed and not result.stopped
    assert len(sink.out) == 1


async def test_a_stage_that_stops_reading_ends_a_quiet_source() -> None:
    sink = Collect()
    with trio.fail_after(5):
        result = await Pipeline(IterSource(batches(3), hold_open=True), [Take(2)],
                                [sink]).run()
    assert result.downstream_closed
    assert len(sink.out) == 2 and sink.eof


async def test_a_stage_calling_sys_exit_is_a_failed_stage() -> None:
    """``sys.exit(3)`` in a stage (pipeline._run.StageExit): a PipelineError naming it,
    not a SystemExit that ends the caller's process."""
    exit3 = SystemExit(3)
    with pytest.raises(PipelineError) as ei:
        await run_through(batches(3), [Fail(exit3, after=1, name="boom")])
    assert str(ei.value) == "stage 'boom' failed: StageExit: it called sys.exit(3)"
    assert ei.value.__cause__ is not None and ei.value.__cause__.__cause__ is exit3


async def test_a_keyboard_interrupt_in_a_stage_stays_one_while_sigint_raises() -> None:
    """Under trio's SIGINT handler (a library caller, a notebook) a KeyboardInterrupt may
    be a real Ctrl-C delivered in the stage's code: it is passed on as it is."""
    from tracekit._errors import leaves

    with pytest.raises(BaseExceptionGroup) as ei:
        await run_through(batches(3), [Fail(KeyboardInterrupt(), after=1, name="boom")])
    assert [type(e) for e in leaves(ei.value)] == [KeyboardInterrupt]


async def test_a_keyboard_interrupt_is_the_stages_own_when_sigint_cannot_raise() -> None:
    """SIGINT taken elsewhere (the command line's signal thread): the stage raised it."""
    import signal

    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(PipelineError, match="^stage 'boom' failed: StageExit: it "
                                                "raised KeyboardInterrupt$"):
            await run_through(batches(3), [Fail(KeyboardInterrupt(), after=1, name="boom")])
    finally:
        signal.signal(signal.SIGINT, old)
