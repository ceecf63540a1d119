"""The userspace view of the traced task tree: tid -> tgid, comm, parent, start time.

Kept by the ``reconcile`` stage from the BPF lifecycle records (Fork, Exec, Exit) and the
proc connector; formatters may use :meth:`TaskTable.comm_of` for names.
"""

from __future__ import annotations

import msgspec

__all__ = ["TaskInfo", "TaskTable"]


class TaskInfo(msgspec.Struct, kw_only=True):
    """One traced task (ids in the initial pid namespace)."""

    tid: int                # thread id (kernel "pid")
    tgid: int               # process id (user "pid")
    comm: str = ""          # task comm, up to 15 bytes; "" until known
    parent_tid: int = 0     # the thread that created it (BPF Fork), 0 if unknown
    start_time_ns: int = 0  # ns after boot (CLOCK_BOOTTIME), 0 if unknown


class TaskTable:
    """Traced tasks by tid.

    Attributes:
      tasks: ``{tid: TaskInfo}``.
    """

    def __init__(self) -> None:
        self.tasks: dict[int, TaskInfo] = {}

    def __len__(self) -> int:
        return len(self.tasks)

    def __contains__(self, tid: object) -> bool:
        return tid in self.tasks

    def get(self, tid: int) -> TaskInfo | None:
        return self.tasks.get(tid)

    def add(self, info: TaskInfo) -> None:
        """Insert or replace the entry of ``info.tid``."""
        self.tasks[info.tid] = info

    def remove(self, tid: int) -> TaskInfo | None:
        """Forget ``tid``; its entry, or None if it was not there."""
        return self.tasks.pop(tid, None)

    def exec(self, tid: int, old_tid: int, comm: str) -> None:
        """A task exec'd: a non-leader thread takes the tgid as its tid (``old_tid != tid``);
        the thread group's other threads are gone (de_thread)."""
        old = self.tasks.pop(old_tid, None)
        if old_tid != tid:
            for t in [t for t, i in self.tasks.items() if i.tgid == tid]:
                del self.tasks[t]
        parent = old.parent_tid if old is not None else 0
        # de_thread() gives the exec'ing thread the old leader's start time: not ours to know
        start = old.start_time_ns if old is not None and old_tid == tid else 0
        self.tasks[tid] = TaskInfo(tid=tid, tgid=tid, comm=comm, parent_tid=parent,
                                   start_time_ns=start)

    def comm_of(self, tid: int) -> str | None:
        """The comm of ``tid`` if known."""
        info = self.tasks.get(tid)
        return info.comm or None if info is not None else None
