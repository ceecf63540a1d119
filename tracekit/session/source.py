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

from tracekit._events import Batch, Lost, Stacks, decode_batch
from tracekit.session.session import Session


class SourceContext(Protocol):
    """What the source needs of its context (the pipeline's ``StageContext``)."""

    def report_idle(self) -> None:
        """Nothing is pending now; the next batch sent takes it back."""


class RecordTap(Protocol):
    """What the source hands a recorder (tracekit.session.recording.Recorder)."""

    def records(self, records: list[bytes]) -> None:
        """One drain's raw records, before they are decoded."""

    def lost(self, ev: Lost) -> None:
        """A Lost event, before it is sent."""


class RingBufferSource:
    """Pipeline source over ``session.ringbuf``.

    Args:
      tap: a recorder given each drain's raw records and each Lost event (None: none).

    Attributes:
      stats: records (decoded), bad (skipped: truncated or unknown kind), batches, lost
        (records the kernel could not reserve, from the ``counters`` map).
    """

    name = "ringbuf"

    def __init__(self, session: Session, *, poll_interval_s: float = 0.1,
                 stop_when_targets_gone: bool = True, tap: RecordTap | None = None) -> None:
        self.session = session
        self.tap = tap
        self.poll_interval_s = poll_interval_s
        self.stop_when_targets_gone = stop_when_targets_gone
        self._stop = trio.Event()
        self.records = 0
        self.bad = 0
        self.batches = 0
        self.lost = 0
        # stacks: joined to their calls and named as they arrive, so a short-lived
        # process's mappings are read while it still runs
        self.stacks: Stacks | None = None
        if session.opts.stacks is not None:
            from tracekit.decode.symbols import Symbolizer
            from tracekit.kernel.syscalls import SyscallTable

            self.stacks = Stacks(Symbolizer(SyscallTable().nr))

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
        budget = rb.pending_bytes()
        read = 0
        while True:
            records = rb.consume(4096)
            if not records:
                return
            if self.tap is not None:
                self.tap.records(records)
            # each record takes an 8-byte header + its length rounded up to 8 (ringbuf.c)
            read += sum((len(r) + 15) & ~7 for r in records)
            events, bad = decode_batch(records, self.stacks)
            self.records += len(events)
            self.bad += bad
            if events:
                self.batches += 1
                await send.send(events)
            if read >= budget:
                return

    async def _report_lost(self, send: trio.abc.SendChannel[Batch]) -> None:
        lost = self.session.counters().lost
        if lost > self.lost:
            ev = Lost(ts_ns=time.monotonic_ns(), count=lost - self.lost)
            if self.tap is not None:
                self.tap.lost(ev)
            await send.send([ev])
            self.lost = lost

    async def run(self, ctx: SourceContext, send: trio.abc.SendChannel[Batch], *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        rb = self.session.ringbuf
        assert rb is not None
        async with send:
            task_status.started()
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
