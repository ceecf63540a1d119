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
    Exit of a thread killed by a signal ───┴─> held for its tgid (not one seccomp
                                              killed alone, Exit.alone: its group
                                              lives on, and wait(2) reports it at once)
    Exit with group_dead ──────────────────> the group is dying: once every task the
                                              stage knows in it (the leader too) has its
                                              exit, the held threads, the last exit,
                                              then the leader (stamped with the last
                                              one's time); the core bit on each killed
                                              by the same signal, if one of them has it
    lost exit records (Lost.lifecycle) ────> every dying group, as it stands
    end of input ──────────────────────────> whatever is held (dying groups in the order
                                              above, the others in arrival order, but
                                              not the plain exit of a leader whose
                                              group lives on: strace prints none)

``group_dead`` says that every thread of the group has begun its exit (``signal->live``
is 0), not that this exit record is the group's last: a thread that decremented
``live`` earlier may reach ``sched_process_exit`` later (preempted in between, or held
by ``acct_collect``'s mmap lock), and the BPF program reads ``live`` at the tracepoint
(whose own ``group_dead`` argument not every kernel has), so several records may say
it, the leader's among them or after them. The tasks the stage knows are those that
made a record of their own (a syscall, a signal delivery): their exits are awaited
before the group's lines go out. A task that never made one is not known and cannot be
waited for; nor is a thread of a fork record (with strace without -f the child is not
traced, and its exit never comes).

Other events pass unchanged and in order; the stage goes after the reorder stage, so a
held record is never put back in ``ts_ns`` order. A leader superseded by another
thread's execve (``superseded_by``) is not held: its group lives on.
"""

from __future__ import annotations

import operator
from typing import cast

import msgspec

from tracekit._events import Batch, Exec, Exit, Lost, Signal, Syscall
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

__all__ = ["GroupExits"]

_CORE = 0x80        # wait(2) status: WCOREDUMP
_CALLS = frozenset({Syscall, Signal})           # event types that only make a task known
_TASK = operator.attrgetter("tid", "tgid")


class GroupExits:
    """The ``group_exits`` stage (module docstring). Stats counter: ``held`` (exit
    records put after later ones)."""

    name = "group_exits"

    def __init__(self) -> None:
        self._held: dict[int, list[Exit]] = {}      # tgid -> its held exit records
        # tgid -> its tasks known to run (the leader too): each made a record
        self._threads: dict[int, set[int]] = {}
        self._known: dict[int, int] = {}            # tid -> its tgid, of _threads' sets
        self._dying: set[int] = set()               # tgids whose group_dead was seen

    def push(self, batch: Batch) -> Batch:
        """The events of ``batch`` to pass on now."""
        known = self._known
        if set(map(type, batch)) <= _CALLS:
            # the bulk, calls and signals only: the tasks learnt from the distinct
            # (tid, tgid) pairs; the batch passes as it is. A batch of one process (the
            # commonest) has its pairs as its tids with that tgid: two passes over ints,
            # no tuple per event
            calls = cast("list[Syscall | Signal]", batch)
            tgids = {ev.tgid for ev in calls}
            if len(tgids) == 1:
                (tgid,) = tgids
                for tid in {ev.tid for ev in calls}:
                    if known.get(tid) != tgid:
                        self._learn(tid, tgid)
                return list(batch)
            for tid, tgid in set(map(_TASK, batch)):
                if known.get(tid) != tgid:
                    self._learn(tid, tgid)
            return list(batch)
        out: Batch = []
        for ev in batch:
            if isinstance(ev, (Syscall, Signal)):
                if known.get(ev.tid) != ev.tgid:
                    self._learn(ev.tid, ev.tgid)
                out.append(ev)
            elif isinstance(ev, Exit):
                out += self._exit(ev)
            else:
                if isinstance(ev, Exec) and ev.old_tid != ev.tid:
                    # a thread's execve: it goes on as the leader, under the tgid
                    self._forget(ev.old_tid, ev.tid)
                elif isinstance(ev, Lost) and ev.lifecycle:
                    # an exit awaited may be among the lost: do not wait for ever
                    for tgid in sorted(self._dying):
                        out += self._release(tgid)
                out.append(ev)
        return out

    def _learn(self, tid: int, tgid: int) -> None:
        if tgid in self._dying:
            return      # no thread starts in a dying group: a late record of one gone
        old = self._known.get(tid)
        if old is not None:
            # a tid known in another group whose exit never came (lost): reused now
            self._forget(tid, old)
        self._threads.setdefault(tgid, set()).add(tid)
        self._known[tid] = tgid

    def _forget(self, tid: int, tgid: int) -> None:
        self._known.pop(tid, None)
        threads = self._threads.get(tgid)
        if threads is not None:
            threads.discard(tid)
            if not threads:
                del self._threads[tgid]

    def _exit(self, ev: Exit) -> Batch:
        if ev.superseded_by:
            return [ev]
        tgid = ev.tgid
        if self._known.get(ev.tid) == tgid:
            self._forget(ev.tid, tgid)
        if ev.group_dead:
            self._dying.add(tgid)
        if tgid in self._dying and tgid not in self._threads:
            return self._release(tgid, ev)      # the group's last exit
        if ev.tid == tgid or ev.exit_code & 0x7F and not ev.alone:
            self._held.setdefault(tgid, []).append(ev)
            return []
        return [ev]

    def _release(self, tgid: int, last: Exit | None = None) -> Batch:
        """The exits of a dying group, in strace's order (``last`` its last one)."""
        self._dying.discard(tgid)
        for tid in self._threads.pop(tgid, ()):
            self._known.pop(tid, None)
        return list(self._group(self._held.pop(tgid, []), last))

    def flush(self) -> Batch:
        """Whatever is held (a group whose last exit was not seen): a dying group in
        strace's order, the others' records in arrival order, except a leader's plain
        exit (``pthread_exit``) in a group that lives on when tracing ends: strace prints
        a leader's exit when its group ends (wait(2) reports it then), so not at all."""
        out: Batch = []
        for tgid, evs in list(self._held.items()):
            if tgid in self._dying:
                out += self._release(tgid)
            else:
                out += [ev for ev in evs if ev.tid != tgid or ev.exit_code & 0x7F]
        self._held.clear()
        self._threads.clear()
        self._known.clear()
        self._dying.clear()
        return out

    @property
    def holding(self) -> int:
        """The number of exit records held."""
        return sum(map(len, self._held.values()))

    @staticmethod
    def _group(held: list[Exit], last: Exit | None) -> list[Exit]:
        threads = [ev for ev in held if ev.tid != ev.tgid]
        if last is not None:
            threads.append(last)
        end = max((ev.ts_ns for ev in (*held, *threads)), default=0)
        leader = [msgspec.structs.replace(ev, ts_ns=max(ev.ts_ns, end))
                  for ev in held if ev.tid == ev.tgid]
        group = [*threads, *leader]
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
