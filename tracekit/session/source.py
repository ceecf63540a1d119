"""RingBufferSource: the pipeline source that pumps a session's ring buffer.

Each drain of the ring buffer becomes batches of decoded events (up to 4096 each). The
source ends gracefully when :meth:`request_stop` is called (or the session's targets are
gone): it drains what the kernel has already written, reports lost records from the
kernel's counters (rule 8), then closes its channel so every stage downstream drains in
order. A drain reads what was pending when it began, no more: under a workload that
writes faster than the pipeline reads, the source still sees a stop request, reports
losses every round, and ends; records committed after the final drain began are left
in the ring buffer (a pid or system-wide target still running at the stop).

After every round that leaves the ring buffer empty (nothing committed or reserved past
the consumer position), the source tells its context so (``ctx.report_idle()``): the
reorder stage downstream then releases what it holds instead of waiting for the next
batch. While the workload is quiet that happens once per ``poll_interval_s``.
"""

from __future__ import annotations

import time
from typing import Protocol

import trio

from tracekit._events import Batch, Lost, decode_batch
from tracekit.session.session import Session


class SourceContext(Protocol):
    """What the source needs of its context (the pipeline's ``StageContext``)."""

    def report_idle(self) -> None:
        """Nothing is pending now; the next batch sent takes it back."""


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

    async def _drain(self, send: trio.abc.SendChannel[Batch]) -> None:
        """Send what the ring buffer holds now, in batches of up to 4096 records.

        Bounded: it stops once it has read as many bytes as were pending when it began
        (records committed meanwhile wait for the next drain). Unbounded, a workload that
        writes faster than the pipeline reads would keep it here for ever: no stop
        request, lost report or end of the targets would be seen.
        """
        rb = self.session.ringbuf
        assert rb is not None
        resolver = self.session.fd_resolver
        budget = rb.pending_bytes()
        read = 0
        while True:
            records = rb.consume(4096)
            if not records:
                return
            # each record takes an 8-byte header + its length rounded up to 8 (ringbuf.c)
            read += sum((len(r) + 15) & ~7 for r in records)
            events, bad = decode_batch(records)
            self.records += len(events)
            if resolver is not None and events:
                events = resolver.annotate(events)   # new fds, read while they exist
            self.bad += bad
            if events:
                self.batches += 1
                await send.send(events)
            if read >= budget:
                return

    async def _report_lost(self, send: trio.abc.SendChannel[Batch]) -> None:
        lost = self.session.counters().lost
        if lost > self.lost:
            await send.send([Lost(ts_ns=time.monotonic_ns(), count=lost - self.lost)])
            self.lost = lost

    async def run(self, ctx: SourceContext, send: trio.abc.SendChannel[Batch], *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        rb = self.session.ringbuf
        assert rb is not None
        async with send:
            task_status.started()
            if self.session.fd_snapshots:
                # the targets' fd tables, before any of their calls (fd_table)
                await send.send(list(self.session.fd_snapshots))
            gone_polls = 0
            while not self._stop.is_set():
                with trio.move_on_after(self.poll_interval_s):
                    await rb.wait_readable()
                await self._drain(send)
                await self._report_lost(send)
                if rb.pending_bytes() == 0:
                    ctx.report_idle()
                # Gone on two polls in a row, not one: while a non-leader thread execs,
                # the old leader is briefly a zombie and the pids map between the old
                # key's delete and the new key's insert (fs/exec.c de_thread), and one
                # sample there would end a trace that goes on under the new tid.
                if self.stop_when_targets_gone and not self.session.targets_alive():
                    gone_polls += 1
                    if gone_polls >= 2:
                        break
                else:
                    gone_polls = 0
            await self._drain(send)
            await self._report_lost(send)
