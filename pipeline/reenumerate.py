"""Re-enumerate the target from /proc once the programs are attached.

Between the first /proc read and the moment the fork tracepoint program is live, a
target may create threads and processes that no traced thread was seen creating. Once
the programs are attached every new task is followed by BPF, so one more /proc read
finds all that slipped through::

    /proc read 1 ── insert ── attach ── /proc read 2 ── insert the missing ── (traced)
                                 └── from here BPF adds every child of a traced thread

What is read (fs/proc/base.c, fs/proc/array.c):

- ``pid`` targets: ``/proc/<tgid>/task`` once per thread group (never once per thread),
  then, when following forks, ``/proc/<tid>/task/<tid>/children`` of each thread, which
  lists the child processes (tgids) that thread created; their groups are read the same
  way, to any depth, breadth first.
- ``tid`` targets: the tid itself and, when following forks, the process trees of its
  children; never its sibling threads (they are not targets).
- Only a tid that is not in the pids map yet costs a ``/proc/<tid>/stat`` read (for its
  start time, the value of the map entry). A task that vanished while we read it
  (ENOENT/ESRCH, or a zombie) is stepped over and counted as gone.

The pass itself is :func:`tracekit.session.pids.reenumerate`, the one implementation:
the session runs it before and after attach (always: rule 4 is not optional), and the
``reenumerate`` stage runs it again when it starts and emits a :class:`Reenumerated`
record of what it added.

In a recording that record is kept (a fact, tracekit.kernel.facts): a replay has no pids
map and no /proc of the traced machine, so its reenumerate stage sends the record the
live run sent, where the live run sent it (before any batch).
"""

from __future__ import annotations

import time

from tracekit._errors import TracekitError
from tracekit._events import Reenumerated as Reenumerated
from tracekit.kernel.facts import Facts
from tracekit.pipeline._stage import EventReceiver, EventSender, StageConfigBase, StageContext
from tracekit.session.pids import PidUpkeep, Reenumeration, reenumerate

__all__ = ["Reenumerate", "ReenumerateConfig", "Reenumerated", "from_config"]


class ReenumerateConfig(StageConfigBase, tag="reenumerate"):
    """Walk /proc once after attach for threads and descendants (kernel rule 4)."""


class Reenumerate:
    """The ``reenumerate`` stage: one more /proc pass when it starts, then pass-through.

    Emits one :class:`Reenumerated` record (before any batch it forwards) naming the tids
    it added. Stats counters: ``added``, ``not_added``, ``gone``, ``present``.

    Args:
      upkeep: the pids map, /proc and target to act on; default ``ctx.upkeep``.
      facts: the trace's facts (a recording's writes the record down, a replay's gives
        the recorded one back instead of a pass); None: the pass, nothing written.

    Attributes:
      last: the :class:`~tracekit.session.pids.Reenumeration` of the pass, once run.
    """

    name = "reenumerate"

    def __init__(self, cfg: ReenumerateConfig | None = None, *,
                 upkeep: PidUpkeep | None = None, facts: Facts | None = None) -> None:
        self.cfg = cfg or ReenumerateConfig()
        self.upkeep = upkeep
        self.last: Reenumeration | None = None
        # made now: a live run and its replay make their readers in the same order
        self._reader = facts.reader("reenumerate") if facts is not None else None

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        upkeep = self.upkeep or ctx.upkeep

        def walk() -> Reenumerated:
            if upkeep is None:
                raise TracekitError("stage 'reenumerate' needs a tracing session "
                                    "(ctx.upkeep) or a recording that holds its pass")
            res = self.last = reenumerate(upkeep, only_new=True)
            ctx.stats.count("present", res.present)
            return Reenumerated(ts_ns=time.monotonic_ns(),
                                added=tuple(t for t, _ in res.added),
                                not_added=len(res.not_added), gone=res.gone)

        async with recv, send:
            got = walk() if self._reader is None else self._reader.reenumeration(walk)
            if got is None:
                ctx.log.warning("the recording holds no /proc re-enumeration after attach "
                                "(it was made without a reenumerate stage, for a target "
                                "that has none): no reenumerated record is sent")
            else:
                for key, n in (("added", len(got.added)), ("not_added", got.not_added),
                               ("gone", got.gone)):
                    ctx.stats.count(key, n)
                if got.not_added:
                    ctx.log.warning("pids map full: %d tasks found in /proc could not be "
                                    "added", got.not_added)
                await send.send([got])
            async for batch in recv:
                await send.send(batch)


def from_config(cfg: ReenumerateConfig, *, facts: Facts | None = None) -> Reenumerate:
    """The stage for ``[[stage]] kind = "reenumerate"`` (``facts``: the trace's)."""
    return Reenumerate(cfg, facts=facts)
