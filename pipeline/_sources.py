"""In-memory sources: feed hand-made batches into a pipeline (tests, library users)."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable

import trio

from tracekit._events import Batch
from tracekit.pipeline._stage import EventSender, StageContext

__all__ = ["IterSource"]


class IterSource:
    """A :class:`~tracekit.pipeline.Source` sending batches from an iterable.

    Args:
      batches: a sync or async iterable of batches (``list[Event]``); empty batches are
        skipped. It may be endless (a generator): then the pipeline runs until
        :meth:`Pipeline.stop`.
      name: the task name (stats key).
      interval_s: sleep this long before each batch (trio clock; use the autojump clock
        in tests).
      hold_open: after the last batch, wait (keeping the channel open) until stopped,
        like a live source with nothing to say.

    The source is live at once: it calls ``task_status.started()`` before the first batch.
    It reports idle (``ctx.report_idle()``) while it sleeps: before each ``interval_s``
    wait and while it holds the channel open.
    """

    def __init__(self, batches: Iterable[Batch] | AsyncIterable[Batch], *, name: str = "iter",
                 interval_s: float = 0.0, hold_open: bool = False) -> None:
        self.batches = batches
        self.name = name
        self.interval_s = interval_s
        self.hold_open = hold_open

    async def run(self, ctx: StageContext, send: EventSender, *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with send:
            task_status.started()
            if isinstance(self.batches, AsyncIterable):
                async for batch in self.batches:
                    await self._send(ctx, send, batch)
            else:
                for batch in self.batches:
                    await self._send(ctx, send, batch)
            if self.hold_open:
                ctx.report_idle()
                await trio.sleep_forever()

    async def _send(self, ctx: StageContext, send: EventSender, batch: Batch) -> None:
        if self.interval_s:
            ctx.report_idle()
            await trio.sleep(self.interval_s)
        if batch:
            await send.send(batch)
