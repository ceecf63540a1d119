"""The reorder stage: events in ``ts_ns`` order across CPUs, within a bounded window.

Why the stream is out of order: a syscall record is written to the ring buffer when the
call *returns* but stamped with its *entry* time (``ts_ns``, programs/syscalls.h), and
the ring buffer is shared by every CPU in commit order. Two threads on two CPUs therefore
arrive in exit order while their lines print entry times: a ``read`` that blocked 30 us
on CPU 0 arrives after the ``write`` on CPU 1 that woke it, although it started first.

What the stage does::

    arrivals ──> held, sorted by (ts_ns, arrival) ──> released when
                                                        ts_ns <= newest ts_ns - window
                                                        (or held > max_events,
                                                         or nothing arrived for window,
                                                         or end of input: all)

- Each event is held until an event at least ``window_s`` newer has arrived, then
  released in ``ts_ns`` order (ties in arrival order). So any event that arrives less
  than ``window_s`` (of ``ts_ns``) behind the newest one is printed in order.
- Late: an event whose ``ts_ns`` is older than the last event already released (its
  call ran longer than the window, e.g. a ``read`` that blocked 2 s) cannot be put in
  place any more: it is released at once, ahead of this batch's in-order events, and
  counted in ``stats.counters["late"]``. Its line then carries an earlier time than
  the line before it.
- Untimed: an event with ``ts_ns == 0`` (a call already inside the kernel when tracing
  began, ``SC_RESUMED``: no entry time) is released at once, counted ``untimed``.
- Bounded: at most ``max_events`` are held; beyond that the oldest are released early
  (counted ``overflow``). When upstream is idle (checked every ``window_s`` while
  events are held: the source reported that a read of the ring buffer left nothing
  pending, and every stage before this one has passed on all it got and waits for
  input; :meth:`StageContext.wait_upstream_idle`), the events older than
  ``clock() - window_s`` are released, so output never waits for the next event; a
  record committed later returned later, so only a call longer than the window can
  arrive behind them. ``ts_ns`` is ``CLOCK_MONOTONIC`` (``bpf_ktime_get_ns``), the clock
  of :func:`time.monotonic_ns`. A source that never reports idle (a hand-made one)
  gets no idle release: held events leave with the next batch or at the end.

The runner puts this stage last, just before the ``perf`` and ``strace`` formatters
(text for people). ``jsonl`` output is not reordered: its lines are in arrival order
and ``ts_ns`` there is the entry time (README, "JSON Lines"); sort by it if you need
to.
"""

from __future__ import annotations

import collections
import time
from bisect import bisect_right
from collections.abc import Callable

import trio

from tracekit._events import Batch, Event, Reenumerated
from tracekit.kernel.facts import FactReader
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext, StageStats

__all__ = ["DEFAULT_MAX_EVENTS", "DEFAULT_WINDOW_S", "Reorder"]

DEFAULT_WINDOW_S = 0.05
DEFAULT_MAX_EVENTS = 65536


class Reorder:
    """Release events in ``ts_ns`` order after holding them for a window (module doc).

    Args:
      window_s: how far (seconds of ``ts_ns``) an event may arrive behind a newer one and
        still be put in order; > 0.
      max_events: the most events held at once (memory bound: about 400 bytes each with
        decoded arguments); >= 1.
      clock: ``CLOCK_MONOTONIC`` now in ns, for the idle release (tests pass a fake).
      facts: the trace's facts reader (tracekit.kernel.facts): each idle release asks it
        for the time (``idle_now``, which a recording writes down with the number of
        events received before it); in a replay, its ``idle_schedule`` makes the live
        run's idle releases at the same places with the same times instead of watching
        the input, so the text comes out as the live run printed it.

    Raises:
      ValueError: ``window_s <= 0`` or ``max_events < 1``.

    Stats counters: ``late``, ``untimed``, ``overflow`` (see module doc).
    """

    name = "reorder"

    def __init__(self, window_s: float = DEFAULT_WINDOW_S,
                 max_events: int = DEFAULT_MAX_EVENTS,
                 clock: Callable[[], int] = time.monotonic_ns,
                 facts: FactReader | None = None) -> None:
        if not window_s > 0:
            raise ValueError(f"window_s must be > 0 seconds, got {window_s!r}")
        if max_events < 1:
            raise ValueError(f"max_events must be >= 1, got {max_events!r}")
        self.window_s = window_s
        self.window_ns = int(window_s * 1e9)
        self.max_events = max_events
        self.clock = clock
        # held events sorted by ts_ns (ties in arrival order), and their ts_ns: most
        # arrive in order and are appended; bisect places the others (C speed)
        self._keys: list[int] = []
        self._held: list[Event] = []
        self._released = 0        # ts_ns of the last event released in order
        self._receive_scope: trio.CancelScope | None = None   # run() waits for a batch
        self._facts = facts
        schedule = facts.idle_schedule() if facts is not None else None
        self._schedule = collections.deque(schedule) if schedule is not None else None
        self._received = 0        # events pushed so far (an idle release's position)

    def push(self, batch: Batch, stats: StageStats | None = None) -> Batch:
        """Take a batch in; return what may be released now (late and untimed first).

        Args:
          batch: events in arrival order.
          stats: a ``StageStats`` to count ``late``/``untimed``/``overflow`` in, or None.

        Returns:
          A new list, possibly empty.
        """
        if Reenumerated in set(map(type, batch)):      # (the types: a C-level pass)
            # a stage's own record of its /proc pass, not one of the trace's records:
            # passed on at once and not counted, so that an idle release's position is
            # the same in a replay of a recording that lacks it (an older format)
            first: Batch = [ev for ev in batch if type(ev) is Reenumerated]
            rest = [ev for ev in batch if type(ev) is not Reenumerated]
            return first + self.push(rest, stats) if rest else first
        sched = self._schedule
        if not sched or sched[0][0] >= self._received + len(batch):
            return self._push(batch, stats)
        # a replay: the live run's idle releases that fall before or inside this batch
        out: Batch = []
        i = 0
        while sched and sched[0][0] < self._received + len(batch) - i:
            position, now_ns = sched.popleft()
            cut = max(position - self._received, 0)
            out += self._push(batch[i:i + cut], stats)
            i += cut
            self._release(out, bisect_right(self._keys, now_ns - self.window_ns))
        out += self._push(batch[i:], stats)
        return out

    def _push(self, batch: Batch, stats: StageStats | None = None) -> Batch:
        keys, held = self._keys, self._held
        self._received += len(batch)
        out: Batch = []
        late = untimed = 0
        released = self._released
        last = keys[-1] if keys else released
        stamps = [ev.ts_ns for ev in batch]
        if stamps and stamps[0] >= last and stamps == sorted(stamps):
            # the common batch (one CPU's records, or CPUs in step): in order and not
            # older than anything held, so every event takes the first branch below
            keys += stamps
            held += batch
            batch = []
        for ev in batch:
            ts = ev.ts_ns
            if ts >= last:              # the common case: not older than anything held
                keys.append(ts)
                held.append(ev)
                last = ts
            elif ts >= released:        # among the held ones: after equal stamps
                i = bisect_right(keys, ts)
                keys.insert(i, ts)
                held.insert(i, ev)
            else:
                if ts == 0:
                    untimed += 1
                else:
                    late += 1
                out.append(ev)
        overflow = len(keys) - self.max_events
        if overflow > 0:
            self._release(out, overflow)
        if keys:
            self._release(out, bisect_right(keys, keys[-1] - self.window_ns))
        if stats is not None:
            for key, n in (("late", late), ("untimed", untimed), ("overflow", overflow)):
                if n > 0:
                    stats.count(key, n)
        return out

    def release_idle(self) -> Batch:
        """Events older than ``clock() - window_s``, in order (nothing arrived meanwhile)."""
        out: Batch = []
        now = (self._facts.idle_now(self._received) if self._facts is not None
               else self.clock())
        self._release(out, bisect_right(self._keys, now - self.window_ns))
        return out

    def flush(self) -> Batch:
        """Everything held, in order (end of input)."""
        out: Batch = []
        self._release(out, len(self._keys))
        return out

    @property
    def held(self) -> int:
        """Events held now."""
        return len(self._keys)

    def _release(self, out: Batch, n: int) -> None:
        """Move the ``n`` oldest held events to ``out``."""
        if n <= 0:
            return
        self._released = self._keys[n - 1]
        out += self._held[:n]
        del self._keys[:n], self._held[:n]

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        # The idle watcher is a side task (ctx.nursery, cancelled when the pipeline is
        # done), not a nursery of ours: a BrokenResourceError from send (the reader went
        # away) must leave run() as itself, not wrapped in an ExceptionGroup.
        if self._schedule is None:      # live: watch for idleness (a replay has a schedule)
            ctx.start_soon(self._watch_idle, ctx, name=f"{ctx.name}:idle")
        async with recv, send:
            while True:
                with trio.CancelScope() as scope:
                    self._receive_scope = scope
                    try:
                        batch = await recv.receive()
                    except trio.EndOfChannel:
                        break
                    finally:
                        self._receive_scope = None
                if scope.cancelled_caught:  # by _watch_idle: nothing is on its way
                    await send.send(self.release_idle())
                    continue
                await send.send(self.push(batch, ctx.stats))
            await send.send(self.flush())

    async def _watch_idle(self, ctx: StageContext) -> None:
        """Every ``window_s``, while events are held: once upstream is idle (the source
        found the ring buffer empty after its last batch and every stage before this one
        waits for input), stop the receive so :meth:`release_idle` runs. Waiting for
        that, not only a timer, keeps the order when tracekit itself was not scheduled
        for a while: batches already committed are received first."""
        while True:
            await trio.sleep(self.window_s)
            if not self._keys:
                continue
            await ctx.wait_upstream_idle()
            if self._keys and self._receive_scope is not None:
                self._receive_scope.cancel()
