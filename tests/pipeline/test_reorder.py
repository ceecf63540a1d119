"""The reorder stage in a pipeline: held events leave when the source reports idle.

No kernel: hand-made events stamped on the trio clock (the stage's ``clock`` is the
trio clock too), so the autojump clock runs the windows in no time.
"""

from __future__ import annotations

from bisect import bisect_right

import trio
from hypothesis import given, settings, strategies as st

from tracekit._events import Batch, Lost
from tracekit.pipeline import IterSource, Pipeline, StageContext, StageStats
from tracekit.pipeline.reorder import Reorder

from .helpers import Collect, Pass

WINDOW_S = 0.05


def _now_ns() -> int:
    # the mock clock starts at 0: shift it so that stamps a little in the past stay > 0
    return int((1000.0 + trio.current_time()) * 1e9)


def _reorder() -> Reorder:
    return Reorder(window_s=WINDOW_S, clock=_now_ns)


class _Timed(Collect):
    """A Collect that also notes the trio time of every batch."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    async def run(self, ctx: StageContext, recv: trio.abc.ReceiveChannel[Batch]) -> None:
        async with recv:
            async for batch in recv:
                self.out.append(batch)
                self.at.append(trio.current_time())
            self.eof = True


class _Script:
    """A source that sends a batch built at send time, then optionally reports idle,
    for each step; then keeps the channel open until stopped."""

    name = "script"

    def __init__(self, steps: list[tuple[float, list[tuple[float, int]], bool]]) -> None:
        # (sleep_s before, [(ts offset from now in s, count)], report idle after)
        self.steps = steps

    async def run(self, ctx: StageContext, send: trio.abc.SendChannel[Batch], *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with send:
            task_status.started()
            for sleep_s, events, idle in self.steps:
                await trio.sleep(sleep_s)
                now = _now_ns()
                await send.send([Lost(ts_ns=now + int(off * 1e9), count=n)
                                 for off, n in events])
                if idle:
                    ctx.report_idle()
            await trio.sleep_forever()


async def _run_for(p: Pipeline, seconds: float) -> None:
    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(p.run)
            await trio.sleep(seconds)
            p.stop()


async def test_held_events_leave_in_order_once_the_source_reports_idle(
        autojump_clock: trio.abc.Clock) -> None:
    sink = _Timed()
    src = _Script([(0.0, [(-0.003, 1), (-0.005, 0)], True)])
    await _run_for(Pipeline(src, [_reorder()], [sink]), 10.0)
    assert [[e.count for e in b] for b in sink.out] == [[0, 1]]
    # released by the idle check (every window while held), long before the stop at 10 s
    assert sink.at[0] <= 2 * WINDOW_S + 0.01


async def test_without_an_idle_report_held_events_wait_for_the_next_batch(
        autojump_clock: trio.abc.Clock) -> None:
    sink = _Timed()
    src = _Script([(0.0, [(-0.003, 1), (-0.005, 0)], False),
                   (5.0, [(0.0, 2)], False)])
    await _run_for(Pipeline(src, [_reorder()], [sink]), 10.0)
    # no report: nothing left before the second batch (5 s), and its event only at the end
    assert [[e.count for e in b] for b in sink.out] == [[0, 1], [2]]
    assert sink.at[0] >= 5.0 and sink.at[1] >= 10.0


async def test_idle_release_waits_for_a_batch_still_in_an_earlier_stage(
        autojump_clock: trio.abc.Clock) -> None:
    """The source is idle while a slow stage before the reorder still holds a batch with
    an older event: the idle release must wait for it, or that event would be late."""
    sink = _Timed()
    reorder = _reorder()
    # 2: stamped 0.3 s later than 1 but arriving behind the slow stage 1 s after it;
    # both ts are relative to their send time, so 2 is older than 1 by 0.5 - 0.3 s
    src = _Script([(0.0, [(0.0, 1)], True), (0.3, [(-0.5, 0)], True)])
    p = Pipeline(src, [Pass("slow", delay_s=1.0), reorder], [sink], buffer=4)
    await _run_for(p, 10.0)
    assert [e.count for b in sink.out for e in b] == [0, 1]
    assert p.stats["reorder"].counters == {}            # nothing late
    assert sink.at[0] >= 2.0                             # after batch 2 left the slow stage


async def test_iter_source_reports_idle_while_it_holds_the_channel_open(
        autojump_clock: trio.abc.Clock) -> None:
    sink = _Timed()
    start = _now_ns()
    batch = [Lost(ts_ns=start - 2_000_000, count=1), Lost(ts_ns=start - 4_000_000, count=0)]
    await _run_for(Pipeline(IterSource([batch], hold_open=True), [_reorder()], [sink]), 10.0)
    assert [[e.count for e in b] for b in sink.out] == [[0, 1]]
    assert sink.at[0] < 1.0


class _OneByOne(Reorder):
    """The stage placing every event on its own, as it did before in-order batches were
    taken whole: the reference for the batch path."""

    def _push(self, batch: Batch, stats: StageStats | None = None) -> Batch:
        keys, held = self._keys, self._held
        self._received += len(batch)
        out: Batch = []
        released = self._released
        last = keys[-1] if keys else released
        for ev in batch:
            ts = ev.ts_ns
            if ts >= last:
                keys.append(ts)
                held.append(ev)
                last = ts
            elif ts >= released:
                i = bisect_right(keys, ts)
                keys.insert(i, ts)
                held.insert(i, ev)
            else:
                out.append(ev)
        overflow = len(keys) - self.max_events
        if overflow > 0:
            self._release(out, overflow)
        if keys:
            self._release(out, bisect_right(keys, keys[-1] - self.window_ns))
        return out


@settings(max_examples=300, deadline=None)
@given(batches=st.lists(st.tuples(st.lists(st.integers(0, 400), max_size=30),
                                  st.booleans()), max_size=12),
       max_events=st.integers(1, 40))
def test_in_order_batches_leave_as_event_by_event_placing_has_them(
        batches: list[tuple[list[int], bool]], max_events: int) -> None:
    """Random batches of stamps (ms), some sorted (the batch path), with equal stamps,
    late and untimed (0) ones, a small overflow bound: the same events out, in the same
    order, after every batch and at the end."""
    new = Reorder(window_s=0.1, max_events=max_events, clock=lambda: 0)
    ref = _OneByOne(window_s=0.1, max_events=max_events, clock=lambda: 0)
    n = 0
    for stamps, in_order in batches:
        batch: Batch = []
        for ms in (sorted(stamps) if in_order else stamps):
            n += 1
            batch.append(Lost(ts_ns=ms * 1_000_000, count=n))
        assert new.push(batch) == ref.push(batch)
    assert new.flush() == ref.flush()
