"""The group-exit stage: the exit records of a thread group as strace reports them.

strace learns of exits from wait(2), which the kernel answers per thread with the
group's status once the group is dying (``wait_task_zombie``: ``signal->group_exit_code``
under ``SIGNAL_GROUP_EXIT``), and reports a thread group leader only once every other
thread of its group is gone (a leader stays a zombie that cannot be reaped before,
``delay_group_leader``). The exit records (``sched_process_exit``) come in the order the
threads ran ``do_exit`` and carry each thread's own ``exit_code``, so:

- a group that dumped core: only the thread that dumped has the core bit (0x80);
  strace prints ``(core dumped)`` on every thread's ``+++ killed by`` line;
- a leader that exits first (``exit_group`` from the leader, a fatal signal it took)
  would be printed before its threads, where strace prints it last.

What the stage does::

    Exit of a leader, group not dead ──────┐
    Exit of a thread killed by a signal ───┴─> held for its tgid
    Exit with group_dead (the group's last) ──> the held threads, this one, then the
                                                leader (stamped with this one's time);
                                                the core bit on each killed by the
                                                same signal, if one of them has it
    end of input ──────────────────────────────> whatever is held, in arrival order

Other events pass unchanged and in order; the stage goes after the reorder stage, so a
held record is never put back in ``ts_ns`` order. A leader superseded by another
thread's execve (``superseded_by``) is not held: its group lives on.
"""

from __future__ import annotations

import msgspec

from tracekit._events import Batch, Exit
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

__all__ = ["GroupExits"]

_CORE = 0x80        # wait(2) status: WCOREDUMP


class GroupExits:
    """The ``group_exits`` stage (module docstring). Stats counter: ``held`` (exit
    records put after later ones)."""

    name = "group_exits"

    def __init__(self) -> None:
        self._held: dict[int, list[Exit]] = {}      # tgid -> its held exit records

    def push(self, batch: Batch) -> Batch:
        """The events of ``batch`` to pass on now."""
        if not any(issubclass(t, Exit) for t in set(map(type, batch))):
            return list(batch)      # the bulk: no exit in it (its types: a C-level pass)
        out: Batch = []
        held = self._held
        for ev in batch:
            if not isinstance(ev, Exit) or ev.superseded_by:
                out.append(ev)
            elif ev.group_dead:
                out += self._group(held.pop(ev.tgid, []), ev)
            elif ev.tid == ev.tgid or ev.exit_code & 0x7F:
                held.setdefault(ev.tgid, []).append(ev)
            else:
                out.append(ev)
        return out

    def flush(self) -> Batch:
        """Whatever is held (a group whose last exit was not seen), in arrival order."""
        out: Batch = [ev for evs in self._held.values() for ev in evs]
        self._held.clear()
        return out

    @property
    def holding(self) -> int:
        """The number of exit records held."""
        return sum(map(len, self._held.values()))

    @staticmethod
    def _group(held: list[Exit], last: Exit) -> list[Exit]:
        threads = [ev for ev in held if ev.tid != ev.tgid]
        leader = [msgspec.structs.replace(ev, ts_ns=max(ev.ts_ns, last.ts_ns))
                  for ev in held if ev.tid == ev.tgid]
        group = [*threads, last, *leader]
        cored = {ev.exit_code & 0x7F for ev in group if ev.exit_code & _CORE}
        return [msgspec.structs.replace(ev, exit_code=ev.exit_code | _CORE)
                if ev.exit_code & 0x7F in cored and not ev.exit_code & _CORE else ev
                for ev in group]

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                before = self.holding
                out = self.push(batch)
                if self.holding > before:
                    ctx.stats.count("held", self.holding - before)
                if out:
                    await send.send(out)
            rest = self.flush()
            if rest:
                await send.send(rest)
