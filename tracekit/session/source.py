"""RingBufferSource: the pipeline source that pumps a session's ring buffer.

A thread (:class:`~tracekit.session.drainer.RingDrainer`) copies records out of the ring
buffer as they come, into a queue in user memory, so that the ring does not fill (and
the kernel does not drop records) while the stages work on a batch; the source takes
the queue on the trio thread and sends it as batches of decoded events (up to 4096
records each). The queue is bounded (``max_backlog_bytes``, 128 MiB by default): past
that the thread stops reading, the ring fills and the kernel counts what it loses.

The source ends gracefully when :meth:`request_stop` is called (or the session's targets
are gone): it stops the thread, sends what the queue holds, drains what the kernel has
already written, reports lost records from the kernel's counters (rule 8), then closes
its channel so every stage downstream drains in order. Each round sends what was queued
when it began, no more: under a workload that writes faster than the pipeline reads,
the source still sees a stop request, reports losses every round, and ends (after the
queue, at most ``max_backlog_bytes``, has gone through the stages); records committed
after the final drain began are left in the ring buffer (a pid or system-wide target
still running at the stop).

After every round that leaves the queue and the ring buffer empty (nothing committed or
reserved past the consumer position), the source tells its context so
(``ctx.report_idle()``): the reorder stage downstream then releases what it holds
instead of waiting for the next batch. While the workload is quiet that happens once per
``poll_interval_s``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Protocol

import trio

from tracekit._events import (
    Batch,
    Event,
    FdTargets,
    Losses,
    Lost,
    PlainStacks,
    StackJoin,
    Stacks,
    decode_batch,
)
from tracekit.session.drainer import RingDrainer
from tracekit.session.inflight import calls_in_flight
from tracekit.session.session import Session

#: records per batch sent (a drain's chunk; small chunks are joined up to it)
BATCH_RECORDS = 4096
#: the default bound of the queue between the ring and the stages
MAX_BACKLOG_BYTES = 128 << 20


class SourceContext(Protocol):
    """What the source needs of its context (the pipeline's ``StageContext``)."""

    def report_idle(self) -> None:
        """Nothing is pending now; the next batch sent takes it back."""


class RecordTap(Protocol):
    """What the source hands a recorder (tracekit.session.recording.Recorder)."""

    def records(self, records: list[bytes]) -> None:
        """One drain's raw records, before they are decoded."""

    def annotations(self, inserted: list[tuple[int, Event]]) -> None:
        """What the source put into the batch of the last :meth:`records` (FdTargets),
        each with its index in the batch sent (ascending)."""

    def events(self, batch: Batch) -> None:
        """A batch sent that is not ring-buffer records (the FdSnapshot events at start)."""

    def lost(self, ev: Lost) -> None:
        """A Lost event, before it is sent."""

    def stacks(self, join: StackJoin) -> StackJoin:
        """The symbolizer the source names stacks with, wrapped to write down what it
        names (a replay cannot read the maps and files of the live run)."""


class RingBufferSource:
    """Pipeline source over ``session.ringbuf``.

    Args:
      max_backlog_bytes: the most the queue between the ring buffer and the stages may
        hold (records' bytes and 48 bytes each for the Python object; 128 MiB, about
        750,000 syscall records); 0: no thread and no queue, the ring is read between
        batches on the trio thread.
      tap: a recorder given each drain's raw records, the events added to its batch,
        every other batch sent and each Lost event (None: none): everything a replay
        needs to send the same batches.

    Attributes:
      records: records decoded; bad: records skipped (truncated or of an unknown kind);
        batches: batches sent.
      lost: records the kernel could not reserve (the ``counters`` map), of which
        ``lost_lifecycle`` were fork/exec/exit/signal records, the rest syscall records;
        as reported in :class:`~tracekit._events.Lost` events so far.
    """

    name = "ringbuf"

    def __init__(self, session: Session, *, poll_interval_s: float = 0.1,
                 stop_when_targets_gone: bool = True, tap: RecordTap | None = None,
                 max_backlog_bytes: int = MAX_BACKLOG_BYTES) -> None:
        self.session = session
        self.max_backlog_bytes = max_backlog_bytes
        self.drainer: RingDrainer | None = None
        self.tap = tap
        self.poll_interval_s = poll_interval_s
        self.stop_when_targets_gone = stop_when_targets_gone
        self._stop = trio.Event()
        self.records = 0
        self.bad = 0
        # a cancelled run (a second signal): decoded events whose send was cancelled, and
        # the records still in the ring buffer then, never read (Losses.dropped)
        self.unsent = 0
        self.unread = 0
        self.batches = 0
        self.lost = 0
        self.lost_lifecycle = 0
        # stacks: joined to their calls and named as they arrive, so a short-lived
        # process's mappings are read while it still runs
        self.stacks: Stacks | None = None
        if session.opts.stacks is not None:
            from tracekit.decode.symbols import Symbolizer
            from tracekit.kernel.syscalls import SyscallTable

            join: StackJoin = Symbolizer(SyscallTable().nr)
            self.stacks = Stacks(join if tap is None else tap.stacks(join))
        elif session.opts.instruction_pointer:
            # the instruction pointer alone (strace -i): nothing to name
            self.stacks = Stacks(PlainStacks())

    def start_drainer(self) -> None:
        """Start the thread that empties the ring buffer now (once the session has
        attached), not when :meth:`run` starts: what the targets do meanwhile waits in
        user memory instead of filling the ring. Nothing when ``max_backlog_bytes`` is 0
        or the thread runs already. :meth:`stop_drainer` ends it if :meth:`run` never
        comes."""
        rb = self.session.ringbuf
        if self.drainer is None and self.max_backlog_bytes > 0 and rb is not None:
            self.drainer = RingDrainer(rb, max_backlog_bytes=self.max_backlog_bytes,
                                       chunk=BATCH_RECORDS)

    def stop_drainer(self) -> None:
        """End the thread (idempotent); what it queued stays queued."""
        if self.drainer is not None:
            self.drainer.stop()

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
            records = rb.consume(BATCH_RECORDS)
            if not records:
                return
            # each record takes an 8-byte header + its length rounded up to 8 (ringbuf.c)
            read += sum((len(r) + 15) & ~7 for r in records)
            await self._send_records(records, send)
            if read >= budget:
                return

    async def _send_queued(self, drainer: RingDrainer, send: trio.abc.SendChannel[Batch],
                           chunks: int | None = None) -> None:
        """Send the first ``chunks`` chunks of the drainer's queue (None: all of it, the
        thread stopped), small ones joined up to :data:`BATCH_RECORDS` records."""
        left = len(drainer.chunks) if chunks is None else chunks
        while left > 0:
            records = drainer.take()
            left -= 1
            if records is None:
                return
            while left > 0 and len(records) < BATCH_RECORDS and drainer.chunks:
                more = drainer.take()
                left -= 1
                if more is None:
                    break
                records += more
            await self._send_records(records, send)

    async def _send_records(self, records: list[bytes],
                            send: trio.abc.SendChannel[Batch]) -> None:
        """Decode one batch of raw records, add its fd annotations, send it."""
        if self.tap is not None:
            self.tap.records(records)
        events, bad = decode_batch(records, self.stacks)
        self.records += len(events)
        resolver = self.session.fd_resolver
        if resolver is not None and events:
            annotated = resolver.annotate(events)   # new fds, read while they exist
            if annotated is not events and self.tap is not None:
                # a replay puts them back where they were (read from /proc now only)
                self.tap.annotations([(i, ev) for i, ev in enumerate(annotated)
                                      if isinstance(ev, FdTargets)])
            events = annotated
        self.bad += bad
        if events:
            self.batches += 1
            try:
                await send.send(events)
            except trio.Cancelled:
                self.unsent += len(events)      # not sent (trio's guarantee): dropped
                raise

    async def _send_made(self, events: Batch, send: trio.abc.SendChannel[Batch]) -> None:
        """Events made in user space, not read from the ring (none: nothing is sent): to
        the tap, then on."""
        if events:
            if self.tap is not None:
                self.tap.events(events)
            await send.send(events)

    async def _report_lost(self, send: trio.abc.SendChannel[Batch]) -> None:
        c = self.session.counters()
        lifecycle = c.lost_lifecycle
        lost = c.lost + lifecycle
        if lost > self.lost:
            ev = Lost(ts_ns=time.monotonic_ns(), count=lost - self.lost,
                      lifecycle=lifecycle - self.lost_lifecycle)
            if self.tap is not None:
                self.tap.lost(ev)
            await send.send([ev])
            self.lost, self.lost_lifecycle = lost, lifecycle

    def losses(self, dropped: Mapping[str, int] | None = None, *,
               repaired_pids_full: int = 0) -> Losses:
        """Everything lost or skipped so far, as the trace's last event.

        Kernel figures are read from the ``counters`` map now; the ring-buffer losses are
        those reported in :class:`~tracekit._events.Lost` events (the kernel counts on
        while a pid target runs after the final drain: those calls came after the stop,
        untraced, not lost). Call it once the pipeline has drained, the session open.

        Args:
          dropped: stage name -> events the stage chose not to pass on
            (``StageStats.dropped``); zeros are left out. The source adds itself
            (``"ringbuf"``) with the records its queue still holds (read from the ring
            but never sent: the run was cancelled), a batch whose send was cancelled,
            and the records left in the ring when it was cancelled.
          repaired_pids_full: tasks the kernel could not add to the pids map that a
            stage added later (the reconcile stage's ``repaired_pids_full``).
        """
        c = self.session.counters()
        untraced = max(0, c.pids_full + self.session.not_added - repaired_pids_full)
        dropped = dict(dropped or {})
        if self.drainer is not None and self.drainer.stopped:
            # records read from the ring that a cancelled run never sent (a second
            # interrupt ends without the queue); while it runs, the queue is on its way
            left = sum(len(chunk) for chunk in self.drainer.chunks)
            if left:
                dropped[self.name] = dropped.get(self.name, 0) + left
        if self.unsent or self.unread:
            dropped[self.name] = dropped.get(self.name, 0) + self.unsent + self.unread
        return Losses(
            ts_ns=time.monotonic_ns(), lost_syscalls=self.lost - self.lost_lifecycle,
            lost_lifecycle=self.lost_lifecycle, lost_fd_table=c.fd_lost,
            untraced_tasks=untraced,
            capbuf_full=c.capbuf_full, stacks_missing=c.stack_full,
            scratch_full=c.scratch_full,
            summary_full=c.summary_full, errno_full=c.errno_full, bad_records=self.bad,
            dropped={k: n for k, n in sorted(dropped.items()) if n})

    async def run(self, ctx: SourceContext, send: trio.abc.SendChannel[Batch], *,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        rb = self.session.ringbuf
        assert rb is not None
        async with send:
            task_status.started()
            # the targets' fd tables, before any of their calls (fd_table)
            await self._send_made(list(self.session.fd_snapshots), send)
            self.start_drainer()
            drainer = self.drainer
            try:
                gone_polls = 0
                while not self._stop.is_set():
                    if drainer is not None:
                        await drainer.wait(self.poll_interval_s)
                        await self._send_queued(drainer, send, len(drainer.chunks))
                    else:
                        with trio.move_on_after(self.poll_interval_s):
                            await rb.wait_readable()
                        await self._drain(send)
                    await self._report_lost(send)
                    if rb.pending_bytes() == 0 and (drainer is None or not drainer.chunks):
                        ctx.report_idle()
                    # Gone on two polls in a row, not one: while a non-leader thread
                    # execs, the old leader is briefly a zombie and the pids map between
                    # the old key's delete and the new key's insert (fs/exec.c
                    # de_thread), and one sample there would end a trace that goes on
                    # under the new tid.
                    if self.stop_when_targets_gone and not self.session.targets_alive():
                        gone_polls += 1
                        if gone_polls >= 2:
                            break
                    else:
                        gone_polls = 0
            except trio.Cancelled:
                # aborted: what the ring still holds is never read; counted, not lost
                # silently (the ring is ours once the thread has stopped)
                if drainer is not None:
                    drainer.stop()
                    # and what the drain thread read but never passed on
                    self.unread += sum(len(c) for c in drainer.chunks)
                    drainer.chunks.clear()
                try:
                    self.unread += len(rb.consume())
                except (OSError, ValueError):   # pragma: no cover - closed under us
                    pass
                raise
            finally:
                if drainer is not None:
                    drainer.stop()          # the ring is ours again (and may be closed)
            if drainer is not None:
                await self._send_queued(drainer, send)
            await self._drain(send)
            await self._report_lost(send)
            if self._stop.is_set():
                # stopped while targets live: the calls they are inside, as strace prints
                # them at its detach (tracekit.session.inflight)
                await self._send_made(list(calls_in_flight(self.session)), send)
