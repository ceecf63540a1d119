"""The ``summarize`` stage: aggregate syscall statistics of the events passing through.

Put it anywhere in a pipeline (after a filter or a user stage it summarizes what they let
through); it forwards every batch unchanged. Read the result at any time with
:meth:`Summarize.summary`; with ``interval_s`` it also takes a snapshot of each interval
(the calls *since the previous snapshot*, so the snapshots of a run merge to its final
summary, ``functools.reduce(Summary.merge, stage.snapshots)``)::

    [[stage]]
    kind = "summarize"
    group_by = "process"      # "thread" | "process" | "total"
    sort = "total"            # table order: "total" | "calls" | "errors" | "name"

The statistics and what each counts: :mod:`tracekit._summary`.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from tracekit._summary import GroupBy, SortKey, Summarizer, Summary
from tracekit.pipeline._stage import (
    EventReceiver,
    EventSender,
    IntervalS,
    StageConfigBase,
    StageContext,
)

__all__ = ["Summarize", "SummarizeConfig", "from_config"]


class SummarizeConfig(StageConfigBase, tag="summarize"):
    """Aggregate counts, errors and time per syscall."""

    group_by: GroupBy = "total"
    sort: SortKey = "total"
    interval_s: IntervalS | None = None  # also take a snapshot every interval_s seconds


class Summarize:
    """A :class:`~tracekit.pipeline.Stage` that counts and times every Syscall it passes on.

    Args:
      group_by: how :meth:`summary` and the snapshots group the calls.
      sort: the table order a formatter should use (kept for the renderer; the
        :class:`~tracekit._summary.Summary` itself is unordered).
      interval_s: take a snapshot every ``interval_s`` seconds (trio clock) of the
        calls since the previous one, and a last one at the end of the input; None: none.
      on_interval: called with each snapshot (on the trio thread; keep it short).
      syscall_name, compat_syscall_name: number -> name (default: this machine's tables).

    Attributes:
      snapshots: every interval snapshot so far, in order (empty without ``interval_s``).
    """

    name = "summarize"

    def __init__(self, group_by: GroupBy = "total", sort: SortKey = "total", *,
                 interval_s: float | None = None,
                 on_interval: Callable[[Summary], object] | None = None,
                 syscall_name: Callable[[int], str] | None = None,
                 compat_syscall_name: Callable[[int], str] | None = None,
                 name: str = "summarize") -> None:
        if interval_s is not None and not interval_s > 0:
            raise ValueError(f"interval_s must be > 0, got {interval_s!r}")
        self.name = name
        self.group_by: GroupBy = group_by
        self.sort: SortKey = sort
        self.interval_s = interval_s
        self.on_interval = on_interval
        self.snapshots: list[Summary] = []
        self._agg = Summarizer(syscall_name, compat_syscall_name)
        self._closed: Summary | None = None     # merged snapshots, by thread

    def summary(self, group_by: GroupBy | None = None) -> Summary:
        """Everything seen so far (snapshotted intervals and the current one)."""
        current = self._agg.summary("thread")
        whole = current if self._closed is None else self._closed.merge(current)
        return whole.regroup(group_by or self.group_by)

    def snapshot(self) -> Summary:
        """End the current interval: return (and record) its calls, grouped by ``group_by``."""
        snap = self._agg.summary("thread")
        self._agg.reset()
        self._closed = snap if self._closed is None else self._closed.merge(snap)
        out = snap.regroup(self.group_by)
        self.snapshots.append(out)
        if self.on_interval is not None:
            self.on_interval(out)
        return out

    async def _tick(self, interval_s: float, scope: trio.CancelScope) -> None:
        with scope:
            while True:
                await trio.sleep(interval_s)
                self.snapshot()

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        add = self._agg.add
        ticker = trio.CancelScope()     # the side task runs in ctx.nursery: stop it at EOF
        async with recv, send:
            if self.interval_s is not None:
                ctx.start_soon(self._tick, self.interval_s, ticker, name=f"{self.name}:interval")
            try:
                async for batch in recv:
                    add(batch)
                    await send.send(batch)
            finally:
                ticker.cancel()
            if self.interval_s is not None:
                self.snapshot()             # the last, partial interval


def from_config(cfg: SummarizeConfig) -> Summarize:
    """The stage for ``[[stage]] kind = "summarize"``."""
    return Summarize(cfg.group_by, cfg.sort, interval_s=cfg.interval_s)
