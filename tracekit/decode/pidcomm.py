"""Command names of pids as strace -Y (``--decode-pids=comm``) prints them: ``1234<sh>``.

strace reads ``/proc/PID/comm`` when it prints; tracekit decodes records after the fact,
when a short-lived task may be gone, so :class:`PidComms` keeps each traced task's comm
from the kernel's records, as strace's per-task copy (``tcb->comm``) has it:

- a task first seen (a record of it, or a fork record: the child is its parent's
  copy, the comm it has until it execs) takes the comm its record carries;
- an exec changes it once the execve's line is printed (strace reloads it at the exit of
  a successful execve, execveat or ``prctl(PR_SET_NAME)``; the execve line itself has
  the old name): :meth:`PidComms.before` / :meth:`PidComms.after` around each call's
  line; a record that carries another name than the kept one (a rename by a call the
  selection hid) renames the task before its line;
- a thread that exits is gone at once (the kernel releases it); a process that exited is
  a zombie, its comm still readable, until a traced ``wait4``/``waitid`` reaps it: then
  it has no comm, as strace finds no ``/proc/PID`` (:meth:`PidComms.reaped`);
- a pid never seen in a record is looked up in ``/proc/PID/comm`` when decoded, as strace
  does; no such file: no name.

Only the text up to the first newline is shown (strace reads the file with ``fgets``),
escaped as strace prints a string between ``<>`` (quotes, backslashes, ``<``, ``>``
and bytes that are not printable ASCII as escapes): a process chooses its own name.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from tracekit._events import Event, Exec, Exit, Fork
from tracekit.decode.fdcache import escape_path

__all__ = ["PidComms", "comm_text"]

_MAX = 65536        # tasks kept; more: the oldest half are forgotten (then read from /proc)


def _proc_comm(pid: int) -> str | None:
    """``/proc/PID/comm`` as strace reads it (up to its first newline); None: no such
    task (or unreadable)."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            raw = f.readline()
    except OSError:
        return None
    return raw.rstrip(b"\n").decode("utf-8", "surrogateescape")


def comm_text(comm: str | None) -> str:
    """``<comm>`` as strace prints it after a pid; "" for no name (None or empty)."""
    if not comm:
        return ""
    comm = comm.split("\n", 1)[0]
    return f"<{escape_path(comm)}>" if comm else ""


class PidComms:
    """tid -> comm of traced tasks, kept by the record stream (module docstring).

    Args:
      read: where a pid never seen is looked up (default: ``/proc/PID/comm``); returns
        None when there is no such task.
    """

    def __init__(self, read: Callable[[int], str | None] = _proc_comm,
                 own: str | None = None, *, follow: bool = True) -> None:
        self._read = read
        #: children are traced (-f): their names come from their records; without it
        #: a child is read from /proc when a line names it, as strace reads it
        self.follow = follow
        # the name a command has before its execve: tracekit's own (it forks it), as
        # strace's command has "strace" on its execve's line
        self._own = own if own is not None else (read(os.getpid()) or "")
        self._comms: dict[int, str] = {}        # live or zombie tasks
        self._pending: dict[int, str] = {}      # exec'd: the name after the execve's line
        # reaped or released: pid -> when (ns, the records' clock); no name from then
        self._reaped: dict[int, int] = {}

    def _set(self, tid: int, comm: str) -> None:
        """Keep ``comm`` as ``tid``'s name (a reaped task stays nameless to the lines
        after its reaping: only a new task with its pid, a fork, makes it known again)."""
        comms = self._comms
        if len(comms) >= _MAX and tid not in comms:
            for old in list(comms)[: _MAX // 2]:
                del comms[old]
        comms[tid] = comm

    def comm(self, pid: int, ts_ns: int | None = None) -> str | None:
        """The comm of ``pid`` at ``ts_ns`` (None: the latest); None: no name to print.

        Records come in their calls' entry order, so a wait's line may come before the
        last lines of the child it reaped: the child is nameless only from the wait's
        exit on."""
        if pid <= 0:
            return None
        gone = self._reaped.get(pid)
        if gone is not None and (ts_ns is None or ts_ns >= gone):
            return None
        got = self._comms.get(pid)
        if got is not None:
            return got
        return self._read(pid)

    def text(self, pid: int, ts_ns: int | None = None) -> str:
        """``<comm>`` of ``pid`` at ``ts_ns`` (:func:`comm_text`), "" when it has none."""
        return comm_text(self.comm(pid, ts_ns)) if pid > 0 else ""

    def prefix_comm(self, tid: int) -> str:
        """The name of the task a line is of (strace's prefix): its copy, "" if none."""
        return comm_text(self._comms.get(tid))

    def observe(self, ev: Event) -> None:
        """Apply a record that is not a call's line to the table (fork, exec, exit)."""
        if isinstance(ev, Fork):
            self._reaped.pop(ev.child_tid, None)    # a new task with the pid: not gone
            if not self.follow:
                return              # an untraced child: no records keep its name
            # a parent none of whose lines was shown yet: the name its exec gave it (its
            # execve line not shown: the fork came after it), else /proc
            parent = self._comms.get(ev.parent_tid) or self._pending.get(ev.parent_tid)
            if parent is None:
                parent = self._read(ev.parent_tid)
                if parent is not None:
                    self._set(ev.parent_tid, parent)
            if parent is not None:          # a new task: a name its pid had is not its
                self._set(ev.child_tid, parent)
        elif isinstance(ev, Exec):
            if ev.old_tid != ev.tid:
                old = self._comms.pop(ev.old_tid, None)
                if old is not None:
                    self._set(ev.tid, old)
            self._pending[ev.tid] = ev.comm
        elif isinstance(ev, Exit):
            self._pending.pop(ev.tid, None)
            if ev.tid in self._reaped:          # its wait's line came first (entry time)
                self._comms.pop(ev.tid, None)
            elif ev.tid != ev.tgid or ev.alone:
                # a thread is released at its exit; a process is a zombie, its name
                # kept, until a wait reaps it
                self._comms.pop(ev.tid, None)
                self._gone(ev.tid, ev.ts_ns)

    def before(self, tid: int, comm: str, *, exec_call: bool, renames: bool = False
               ) -> None:
        """Before a line of task ``tid`` (``comm``: what its record carries, at the
        call's exit): a task first seen takes it; a pending exec's name is taken now
        unless this is the execve's own line (``exec_call``); a name that differs from
        the kept one was set by a call not shown, and is taken now, unless this call
        set it (``renames``: a successful prctl(PR_SET_NAME), whose line has the old
        name)."""
        pending = self._pending.get(tid)
        if pending is not None and not exec_call:
            del self._pending[tid]
            self._set(tid, pending)         # then a rename since, below
        if tid not in self._comms:
            # an execve's record has the new name; before it the command was a fork
            # of tracekit's
            self._set(tid, self._own if exec_call else comm)
        elif not exec_call and not renames and self._comms[tid] != comm:
            # renamed by a call the selection hid (prctl(PR_SET_NAME): strace reloads
            # the name at its exit even when it does not show it)
            self._set(tid, comm)

    def after(self, tid: int, comm: str) -> None:
        """After the line of a call that changed ``tid``'s name (a successful execve,
        execveat, prctl(PR_SET_NAME)): ``comm``, the record's name at its exit."""
        self._pending.pop(tid, None)
        self._set(tid, comm)

    def forked(self, parent_tid: int, child: int) -> None:
        """``parent_tid``'s fork or clone made ``child``: it has the parent's name (the
        fork's record, which may come later, says the same); not kept for a child that
        is not traced (``follow`` off)."""
        parent = self._comms.get(parent_tid)
        if self.follow and parent is not None and child not in self._comms:
            self._reaped.pop(child, None)
            self._set(child, parent)

    def reaped(self, pid: int, ts_ns: int) -> None:
        """A traced wait reaped ``pid`` at ``ts_ns``: from then on it has no name as an
        argument or result (its own last lines keep their prefix's name)."""
        self._gone(pid, ts_ns)

    def _gone(self, pid: int, ts_ns: int) -> None:
        if len(self._reaped) >= _MAX:
            self._reaped.clear()
        self._reaped[pid] = ts_ns
