"""RingBuf: the user-space consumer of a BPF_MAP_TYPE_RINGBUF map.

Some facts about the BPF ring buffer (kernel/bpf/ringbuf.c, include/uapi/linux/bpf.h):

* Layout of the map's mmap space, in pages::

      offset 0          consumer page   rw   u64 consumer_pos (user space writes it)
      offset page       producer page   ro   u64 producer_pos (the kernel writes it)
      offset 2*page     data pages      ro   max_entries bytes ...
      + max_entries     data again      ro   ... mapped a second time, so a record that
                                             wraps past the end reads as one run of bytes

  so user space maps ``[0, page)`` read-write and ``[page, 2*page + 2*max_entries)``
  read-only (``ringbuf_map_mmap_user`` refuses writable maps past the first page).
* Positions are free-running u64 byte counters; ``pos & (max_entries - 1)`` is the offset
  in the data area. A record is an 8-byte header ``{u32 len; u32 pg_off}`` then ``len``
  bytes, padded so the next header is 8-byte aligned.
* ``len`` carries BUSY_BIT (1 << 31) while the prog holds the reservation and DISCARD_BIT
  (1 << 30) when it was discarded. Records commit out of order across CPUs, so a BUSY
  record blocks everything after it: the drain stops there and resumes on the next call.
* The map fd is pollable: EPOLLIN while ``producer_pos != consumer_pos``.
  ``bpf_ringbuf_output``/``submit`` without flags wake the poller only when the consumer had
  caught up, so a reader must drain to empty before it waits again.
* Ordering: the kernel publishes ``len`` and ``producer_pos`` with store-release. This
  reader loads them as single aligned 4- and 8-byte loads (native struct codes through a
  memoryview, never byte-wise), which is enough on x86_64 (TSO). On arm64 a Python reader
  has no acquire load; the reads of a record's bytes come many instructions after its
  header's, which works in practice but is not guaranteed by the memory model.
"""

from __future__ import annotations

import errno as _errno
import mmap
import types
from collections.abc import AsyncIterator

import trio

from tracekit._errors import MapError
from tracekit.bpf.uapi import ENOTSUPP, RINGBUF_BUSY_BIT, RINGBUF_DISCARD_BIT, RINGBUF_HDR_SZ

__all__ = ["RingBuf"]

_LEN_MASK = ~(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT) & 0xFFFF_FFFF


class RingBuf:
    """Consumer of a BPF_MAP_TYPE_RINGBUF map.

    Maps the consumer page (rw, offset 0) and the producer page plus the data pages mapped
    twice (ro, offset page_size, length page_size + 2 * max_entries), as the kernel lays
    them out (kernel/bpf/ringbuf.c).

    Fds: the RingBuf does not own ``map_fd``; the caller keeps it open while the RingBuf
    is in use and closes it afterwards. Python's ``mmap`` duplicates the fd for each of the
    two mappings; :meth:`close` unmaps them and closes those duplicates.

    Use from one trio thread: :meth:`close` cancels waiters of :meth:`wait_readable` and
    ends ``async for``, which only works from the thread running them.

    Args:
      map_fd: fd of a RINGBUF map.
      max_entries: the map's size in bytes (a power of 2, a multiple of the page size).
      name: the map's name, for errors.

    Raises:
      MapError: cmd ``"mmap"``: EINVAL (``max_entries`` not a power-of-2 page multiple),
        or the errno of mmap(2): ENOTSUPP (524) for a map that is not mmapable, EBADF,
        ENOMEM.
    """

    def __init__(self, map_fd: int, max_entries: int, *, name: str = "events") -> None:
        page = mmap.PAGESIZE
        if max_entries <= 0 or max_entries & (max_entries - 1) or max_entries % page:
            raise MapError("mmap", _errno.EINVAL,
                           f"ringbuf {name!r}: max_entries {max_entries} is not a power-of-2 "
                           f"multiple of the page size {page}", map_name=name)
        self.name = name
        self.fd = map_fd
        self.max_entries = max_entries
        self._mask = max_entries - 1
        self._data = page  # offset of the data area in the read-only mapping
        self._closed = False
        self._waiters: set[trio.CancelScope] = set()
        made: list[mmap.mmap | memoryview] = []
        try:
            self._cons_mm = mmap.mmap(map_fd, page, mmap.MAP_SHARED,
                                      mmap.PROT_READ | mmap.PROT_WRITE, offset=0)
            made.append(self._cons_mm)
            self._prod_mm = mmap.mmap(map_fd, page + 2 * max_entries, mmap.MAP_SHARED,
                                      mmap.PROT_READ, offset=page)
            made.append(self._prod_mm)
            # 8-byte views: index 0 is consumer_pos / producer_pos; 4-byte view for headers.
            self._cons = memoryview(self._cons_mm).cast("Q")
            made.append(self._cons)
            self._prod = memoryview(self._prod_mm).cast("Q")
            made.append(self._prod)
            self._hdr = memoryview(self._prod_mm).cast("I")
            made.append(self._hdr)
        except OSError as e:
            _release(made)
            detail = f"ringbuf {name!r} fd {map_fd}"
            if e.errno == ENOTSUPP:
                detail += ": ENOTSUPP (524): not a map that can be mmapped as a ring buffer"
            raise MapError("mmap", e.errno or _errno.EINVAL, detail, map_name=name) from e
        except BaseException:
            _release(made)
            raise

    def consume(self, max_records: int | None = None) -> list[bytes]:
        """Copy out committed records and advance the consumer position.

        Args:
          max_records: stop after this many records (the rest stay for the next call).

        Returns:
          Raw records in producer order, each a ``bytes`` copy (so callers may keep them
          after the next ``consume()``), as written by ``bpf_ringbuf_output`` or
          ``bpf_ringbuf_submit``; for tracekit's programs the layouts of programs/syscalls.h.
          DISCARD records are skipped; a BUSY record ends the drain (kernel/bpf/ringbuf.c).
          Empty when nothing is committed.

        Raises:
          trio.ClosedResourceError: the RingBuf was closed.
        """
        if self._closed:
            raise trio.ClosedResourceError(f"ringbuf {self.name!r} is closed")
        hdr, data_mm, cons_v, prod_v = self._hdr, self._prod_mm, self._cons, self._prod
        busy, discard, len_mask = RINGBUF_BUSY_BIT, RINGBUF_DISCARD_BIT, _LEN_MASK
        hdr_sz = RINGBUF_HDR_SZ
        left = max_records if max_records is not None else -1
        out: list[bytes] = []
        append = out.append
        cons = cons_v[0]
        while True:
            prod = prod_v[0]
            if cons >= prod:
                return out
            # the data pages are mapped twice: from ``first`` on, up to max_entries bytes
            # read as one run, so the walk needs no wrap (at most prod - cons bytes)
            first = self._data + (cons & self._mask)
            at, end = first, first + (prod - cons)
            while at < end:
                length = hdr[at >> 2]
                if length & busy:
                    break
                if length & discard:
                    # the cursor moves past every record it reads, kept or not
                    at += ((length & len_mask) + hdr_sz + 7) & ~7
                    continue
                rec = at + hdr_sz
                at = (rec + length + 7) & ~7      # headers are 8-byte aligned
                append(data_mm[rec:rec + length])
                left -= 1
                if not left:
                    break
            cons += at - first
            cons_v[0] = cons  # free the space for the producer before looking again
            if at < end or not left:      # a busy record, or max_records
                return out

    def pending_bytes(self) -> int:
        """Bytes between consumer_pos and producer_pos (committed, busy and discarded)."""
        if self._closed:
            return 0
        return self._prod[0] - self._cons[0]

    async def wait_readable(self) -> None:
        """Wait until the map fd polls readable (the producer is ahead of the consumer).

        Raises:
          trio.ClosedResourceError: the RingBuf was closed before or during the wait.
        """
        if self._closed:
            raise trio.ClosedResourceError(f"ringbuf {self.name!r} is closed")
        with trio.CancelScope() as scope:
            self._waiters.add(scope)
            try:
                await trio.lowlevel.wait_readable(self.fd)
            finally:
                self._waiters.discard(scope)
        if scope.cancelled_caught:
            raise trio.ClosedResourceError(f"ringbuf {self.name!r} was closed while waiting")

    def __aiter__(self) -> AsyncIterator[list[bytes]]:
        return self

    async def __anext__(self) -> list[bytes]:
        """The next non-empty batch of records; StopAsyncIteration once closed."""
        while True:
            if self._closed:
                raise StopAsyncIteration
            batch = self.consume()
            if batch:
                await trio.lowlevel.checkpoint()
                return batch
            try:
                await self.wait_readable()
            except trio.ClosedResourceError:
                if self._closed:
                    raise StopAsyncIteration from None
                raise

    def close(self) -> None:
        """Unmap the ring and end pending waits; idempotent. Does not close ``map_fd``."""
        if self._closed:
            return
        self._closed = True
        for scope in list(self._waiters):
            scope.cancel()
        _release([self._cons_mm, self._prod_mm, self._cons, self._prod, self._hdr])

    def __enter__(self) -> RingBuf:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: types.TracebackType | None) -> None:
        self.close()


def _release(objs: list[mmap.mmap | memoryview]) -> None:
    """Release views before the mappings they export (mmap.close raises BufferError else)."""
    for obj in reversed(objs):
        if isinstance(obj, memoryview):
            obj.release()
    for obj in objs:
        if isinstance(obj, mmap.mmap):
            obj.close()
