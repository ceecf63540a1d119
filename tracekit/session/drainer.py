"""RingDrainer: a thread that empties the ring buffer as records come, into user memory.

The BPF ring buffer is fixed-size kernel memory (``buffer_pages``, 4 MiB by default): a
record the program cannot reserve is lost (counted, rule 8). The pipeline decodes and
writes on the trio thread at 100k-500k records/s, a syscall-heavy workload makes
records faster than that, and while a stage works on a batch nobody reads the ring: a
4 MiB ring (about 35,000 syscall records) then fills in tens of milliseconds and most of
a busy trace was lost.

This thread only copies records out (``RingBuf.consume``, a few hundred ns a record)
and queues them; the trio thread decodes the queue at its own pace. The ring is read
every few milliseconds whatever the stages do (the interpreter hands the GIL over at
least every ``sys.getswitchinterval()``, 5 ms), so it loses records only when the
backlog in user memory has reached ``max_backlog_bytes``: then the thread stops
reading, the ring fills and the kernel counts what it cannot hold, as before.

Threads: the thread calls ``consume`` and ``pending_bytes`` only; the trio thread must
not touch the ring while the thread runs (:meth:`stop` joins it before the final drain,
and before the ring is closed).
"""

from __future__ import annotations

import collections
import os
import select
import threading
import time

import trio

from tracekit.bpf.ringbuf import RingBuf

__all__ = ["RingDrainer"]

#: bytes a queued record costs besides its own: the bytes object's header (33) rounded
#: by the allocator, and its slot in the list
RECORD_OVERHEAD = 48


class RingDrainer:
    """Copies committed records out of ``rb`` on a thread of its own.

    Args:
      rb: the ring (the caller keeps it open until :meth:`stop` has returned).
      max_backlog_bytes: stop reading the ring while the queue holds this much (records'
        bytes plus :data:`RECORD_OVERHEAD` each); the ring then fills and the kernel
        counts the records it cannot hold.
      chunk: records per ``consume`` call (and at most per queued chunk).
      settle_s: after a read that found the ring nearly empty, wait this long before the
        next look, so that a steady trickle is read in chunks, not one wakeup per record.

    Attributes:
      chunks: the queue, oldest first: each a list of raw records (``bytes``), in ring
        order. The trio thread pops from the left (:meth:`take`).
      backlog_bytes: what the queue holds now (as counted against the limit).
      peak_backlog_bytes: the most it held (as the thread saw it).
      error: the exception that ended the thread, if one did (re-raised by :meth:`take`).
    """

    def __init__(self, rb: RingBuf, *, max_backlog_bytes: int, chunk: int = 4096,
                 settle_s: float = 0.001) -> None:
        self.rb = rb
        self.max_backlog_bytes = max_backlog_bytes
        self.chunk = chunk
        self.settle_s = settle_s
        self.chunks: collections.deque[list[bytes]] = collections.deque()
        # each chunk's bytes as counted against the limit, appended before its chunk (so
        # the trio thread finds the size of every chunk it pops)
        self._sizes: collections.deque[int] = collections.deque()
        # each written by one thread only: the queued bytes are their difference
        self._added = 0
        self._taken = 0
        self.peak_backlog_bytes = 0
        self.error: BaseException | None = None
        self._stop = False
        self._waiting: trio.Event | None = None
        self._token = trio.lowlevel.current_trio_token()
        self._wake_fd = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        self._thread = threading.Thread(target=self._run, name=f"ringbuf-{rb.name}",
                                        daemon=True)
        self._thread.start()

    # --- the thread ------------------------------------------------------------------

    def _run(self) -> None:
        rb, chunk = self.rb, self.chunk
        poller = select.poll()
        poller.register(rb.fd, select.POLLIN)
        poller.register(self._wake_fd, select.POLLIN)
        try:
            while not self._stop:
                if self._added - self._taken >= self.max_backlog_bytes:
                    poller.poll(5)          # full: let the trio thread catch up
                    continue
                records = rb.consume(chunk)
                if records:
                    size = sum(map(len, records)) + RECORD_OVERHEAD * len(records)
                    self._sizes.append(size)
                    self.chunks.append(records)
                    self._added += size
                    held = self._added - self._taken
                    if held > self.peak_backlog_bytes:
                        self.peak_backlog_bytes = held
                    self._notify()
                    if len(records) == chunk:
                        continue            # more to read at once
                    time.sleep(self.settle_s)
                    continue
                # empty: sleep in poll (the GIL released) until the producer writes
                poller.poll(100)
        except BaseException as e:          # reported on the trio thread by take()
            self.error = e
            self._notify()

    def _notify(self) -> None:
        waiting = self._waiting
        if waiting is not None:
            self._waiting = None
            try:
                self._token.run_sync_soon(waiting.set)
            except trio.RunFinishedError:
                pass

    # --- the trio thread -------------------------------------------------------------

    @property
    def backlog_bytes(self) -> int:
        return self._added - self._taken

    def take(self) -> list[bytes] | None:
        """The oldest queued chunk (None: the queue is empty).

        Raises:
          whatever ended the thread (the error of ``RingBuf.consume``), once the queue
          is empty.
        """
        try:
            records = self.chunks.popleft()
        except IndexError:
            if self.error is not None:
                raise self.error from None
            return None
        self._taken += self._sizes.popleft()
        return records

    async def wait(self, timeout_s: float) -> None:
        """Return once a chunk is queued (at once if one is), or after ``timeout_s``."""
        if self.chunks or self.error is not None:
            return
        event = trio.Event()
        self._waiting = event
        if self.chunks or self.error is not None:       # queued while we set it
            self._waiting = None
            return
        with trio.move_on_after(timeout_s):
            await event.wait()
        self._waiting = None

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called: what :attr:`chunks` holds now stays there."""
        return self._stop

    def stop(self) -> None:
        """End the thread and wait for it (it sleeps in poll: woken at once). What it
        queued stays in :attr:`chunks`. Idempotent."""
        self._stop = True
        if self._wake_fd >= 0:
            os.eventfd_write(self._wake_fd, 1)
            self._thread.join()
            os.close(self._wake_fd)
            self._wake_fd = -1
