"""Upstream idleness: the source says it found nothing to read; the channels say the rest.

A stage that holds events (the reorder stage) wants to know when nothing more is on its
way, so it can release them without waiting for the next batch. "Nothing on its way"
means, at one instant::

    source ──ch 0──> stage 0 ──ch 1──> ... ──ch k──> stage k (the one asking)
      │                 │                      │
      reported idle     parked in receive,     empty, stage k parked in receive
      since its last    ch 0 empty
      batch

The source reports it: :meth:`StageContext.report_idle` after a read that left nothing
pending (the ring buffer is empty), and every batch it sends takes the report back. The
channels are read through ``trio.MemoryReceiveChannel.statistics()``: a channel whose
buffer is empty while a task waits in ``receive`` has a consumer that finished every
batch it got (a stage busy with one is not waiting). Nothing is put on the channels, so
batches stay non-empty lists of events and stages never see a marker.

A waiter is woken when the source reports idle and whenever a stage starts a
``receive``; trio's ``MemoryReceiveChannel.receive`` parks without yielding when the
buffer is empty, so the woken waiter sees the stage already parked. The source reports
again after every empty read (each ``poll_interval_s`` while idle), so a wake-up missed
for any reason costs at most one poll.
"""

from __future__ import annotations

import trio

from tracekit._events import Batch

__all__ = ["IdleTracker"]


class IdleTracker:
    """The source's idle reports and the channels from it to each stage, for one run.

    The runner registers the channels in order (:meth:`add_channel`: ch 0 feeds stage 0)
    and hands each stage its index through the stage context.
    """

    __slots__ = ("_source_idle", "_channels", "_changed")

    def __init__(self) -> None:
        self._source_idle = False
        self._channels: list[trio.MemoryReceiveChannel[Batch]] = []
        self._changed = trio.Event()

    def add_channel(self, ch: trio.MemoryReceiveChannel[Batch]) -> int:
        """Register the channel feeding the next stage; return its index."""
        self._channels.append(ch)
        return len(self._channels) - 1

    def report_idle(self) -> None:
        """The source found nothing pending after its last batch (until its next send)."""
        self._source_idle = True
        self.wake()

    def source_sent(self) -> None:
        """The source sends a batch: the report no longer holds."""
        self._source_idle = False

    def wake(self) -> None:
        """Something may have become idle: waiters look again (cheap when none wait)."""
        if self._changed.statistics().tasks_waiting:
            self._changed.set()
            self._changed = trio.Event()

    def idle_upto(self, index: int) -> bool:
        """Is nothing on its way to the stage reading channel ``index``, right now?"""
        if not self._source_idle:
            return False
        for ch in self._channels[:index + 1]:
            st = ch.statistics()
            if st.current_buffer_used or not st.tasks_waiting_receive:
                return False
        return True

    async def wait_idle_upto(self, index: int) -> None:
        """Return once :meth:`idle_upto` holds (a checkpoint even when it already does)."""
        await trio.lowlevel.checkpoint()
        while not self.idle_upto(index):
            await self._changed.wait()
