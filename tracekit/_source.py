"""RingBufferSource: the pipeline source that pumps a session's ring buffer.

Each drain of the ring buffer becomes one batch of decoded events. The source ends
gracefully when :meth:`request_stop` is called (or the session's targets are gone): it
drains what the kernel has already written, reports lost records from the kernel's
counters (rule 8), then closes its channel so every stage downstream drains in order.
"""

from __future__ import annotations

import time

import trio

from tracekit._events import Lost, decode_batch
from tracekit._session import Session


class RingBufferSource:
    """Pipeline source over ``session.ringbuf``.

    Attributes:
      stats: records (decoded), bad (skipped: truncated or unknown kind), batches, lost
        (records the kernel could not reserve, from the ``counters`` map).
    """

    name = "ringbuf"

    def __init__(self, session: Session, *, poll_interval_s: float = 0.1,
                 stop_when_targets_gone: bool = True) -> None:
        self.session = session
        self.poll_interval_s = poll_interval_s
        self.stop_when_targets_gone = stop_when_targets_gone
        self._stop = trio.Event()
        self.records = 0
        self.bad = 0
        self.batches = 0
        self.lost = 0

    def request_stop(self) -> None:
        """End after a final drain (idempotent; safe from any trio task)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    async def _drain(self, send: trio.MemorySendChannel) -> None:  # type: ignore[type-arg]
        rb = self.session.ringbuf
        assert rb is not None
        while True:
            records = rb.consume(4096)
            if not records:
                return
            events, bad = decode_batch(records)
            self.records += len(events)
            self.bad += bad
            if events:
                self.batches += 1
                await send.send(events)

    async def _report_lost(self, send: trio.MemorySendChannel) -> None:  # type: ignore[type-arg]
        lost = self.session.counters().lost
        if lost > self.lost:
            await send.send([Lost(ts_ns=time.monotonic_ns(), count=lost - self.lost)])
            self.lost = lost

    async def run(self, ctx: object, send: trio.MemorySendChannel, *,  # type: ignore[type-arg]
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        rb = self.session.ringbuf
        assert rb is not None
        async with send:
            task_status.started()
            while not self._stop.is_set():
                with trio.move_on_after(self.poll_interval_s):
                    await rb.wait_readable()
                await self._drain(send)
                await self._report_lost(send)
                if self.stop_when_targets_gone and not self.session.targets_alive():
                    break
            await self._drain(send)
            await self._report_lost(send)
