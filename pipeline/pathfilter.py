"""The path filter (strace -P): only the syscalls that name a path or use an fd open on it.

A syscall is kept when one of its arguments

- is a path (``openat``'s filename, ``execve``'s, both of ``rename``'s ...) whose captured
  string is one of the paths exactly as written (no resolution of the call's relative
  paths, ``..`` or symlinks: ``cd /etc; cat passwd`` opens ``"passwd"``, which does not
  match ``/etc/passwd``; the fds that open returns do, below), or
- is an fd (``read``'s, ``close``'s, a dirfd, both of ``dup2``'s), or one of the fds
  in ``select``'s sets or ``poll``'s array (as strace's pathtrace.c matches them), that
  refers to one of them before the call: what the fd cache
  (:mod:`tracekit.decode.fdcache`) knows from the traced calls, else
  ``readlink(/proc/<tgid>/fd/<fd>)`` when the event is filtered.

Each path is matched as given and, when it differs, as ``realpath`` gives it at start
(strace does the same), so ``-P /tmp/link`` also matches calls on the file the link names.

How fds are followed: the fd cache's rules (:mod:`tracekit.decode.fdcache`): an open
sets the new fd to its path (a relative one joined to the working directory, followed
through ``chdir``/``fchdir``, or to the dirfd; symlinks resolved); ``dup``, ``dup2``,
``dup3`` and ``fcntl(F_DUPFD*)`` copy; ``close`` and ``close_range`` forget; a fork copies
the table to the child; an exec keeps the fds it left open (the FdExec record); an exit
of the thread group forgets the process. Calls the syscall selection hides still change
the table (FdState records; the calls this filter drops are passed on as FdState
records too, for the fd tables of the stages and outputs after it), and the fds of
calls that open no named file (``socket``, ``pipe``, ``eventfd``...) are read from
/proc as their records arrive (FdTargets). A
rename of the file leaves its open fds matched (the target is the name it was opened
by; strace re-reads /proc and stops matching).

What it cannot see: fds that reach a process without a call it follows (``SCM_RIGHTS``,
``pidfd_getfd``; read from /proc when used, which shows the file's current name, or
nothing once the process is gone). Every syscall crosses the ring buffer: the filter
runs in user space, first of the stages. Other events (signals, exits, forks, execs)
pass unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from tracekit._events import (
    SC_ATTACHED,
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    FdState,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.argspec import ARGSPEC
from tracekit.decode.fdcache import FdCache
from tracekit.decode.structs_io import poll_fds, select_fds
from tracekit.decode.values import quote, signed
from tracekit.kernel.facts import FactReader, LiveFacts
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

__all__ = ["PathFilter", "path_variants"]

_FD_KINDS = frozenset({"fd", "newfd", "dirfd"})
_OPENS = frozenset({"open", "openat", "creat", "openat2"})
# calls that return an fd that may be open on a named file without a path argument the
# filter reads: their fds are read from /proc when used
_NAMED_FD = frozenset({"open_by_handle_at", "open_tree", "fsmount", "fspick"})
_DUPS = frozenset({"dup", "dup2", "dup3", "fcntl", "fcntl64"})
# calls whose fds are in memory they read: select's sets, poll's array (by call name;
# the i386 old select's five words are its arguments in the record)
_FdReader = Callable[[Syscall], list[int]]
_FDS_IN_MEMORY: dict[str, _FdReader] = {
    "select": select_fds, "_newselect": select_fds, "pselect6": select_fds,
    "pselect6_time64": select_fds, "poll": poll_fds, "ppoll": poll_fds,
    "ppoll_time64": poll_fds}


def path_variants(paths: Iterable[str], facts: FactReader | None = None) -> frozenset[bytes]:
    """Each path as written and as ``os.path.realpath`` resolves it now (through
    ``facts``, which a recording fills), as bytes."""
    realpath = facts.realpath if facts is not None else os.path.realpath
    out: set[bytes] = set()
    for p in paths:
        out.add(os.fsencode(p))
        out.add(os.fsencode(realpath(p)))
    return frozenset(out)


class PathFilter:
    """Pass on only the syscalls on ``paths`` (module docstring).

    Args:
      paths: the paths, as given to ``-P`` (``[filter] path``).
      proc: the procfs root for fds the traced calls did not show.
      facts: where fd targets and working directories the calls did not show are read
        (tracekit.kernel.facts; a recording fills it); default /proc under ``proc``.

    Stats counters: ``not_on_paths`` (syscalls left out: the selection asked for, not a
    loss, so not in ``dropped``, which the end of a run reports).
    """

    name = "path"

    def __init__(self, paths: Iterable[str], *, proc: str = "/proc",
                 facts: FactReader | None = None) -> None:
        self._facts = (facts if facts is not None
                       else LiveFacts(proc, quote=quote).reader(self.name))
        self.paths = path_variants(paths, self._facts)
        self.fdcache = FdCache(proc, facts=self._facts)
        self._decoder = SyscallDecoder(fd_paths=True, fdcache=self.fdcache)
        self._spec: dict[int, tuple[tuple[int, ...], tuple[int, ...], _FdReader | None]] = {}
        self._targets = frozenset(os.fsdecode(p) for p in self.paths)

    def _args(self, ev: Syscall) -> tuple[tuple[int, ...], tuple[int, ...], _FdReader | None]:
        """(indices of path arguments, indices of fd arguments, the reader of the fds in
        the memory it reads or None) of the event's syscall."""
        key = ev.syscall_nr << 1 | (ev.flags >> 3 & 1)
        got = self._spec.get(key)
        if got is None:
            name = self._decoder.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT)).name
            kinds = ARGSPEC.get(name, ((), ""))[0]
            got = self._spec[key] = (
                tuple(i for i, k in enumerate(kinds) if k == "path"),
                tuple(i for i, k in enumerate(kinds) if k in _FD_KINDS),
                _FDS_IN_MEMORY.get(name))
        return got

    def matches(self, ev: Syscall) -> bool:
        """Whether ``ev`` names one of the paths, before its own fd changes."""
        if ev.flags & SC_RESUMED and not ev.flags & SC_ATTACHED:
            return False                 # arguments unknown
        path_args, fd_args, in_memory = self._args(ev)
        if path_args:
            for cap in ev.caps:
                if cap.arg in path_args and cap.data in self.paths:
                    return True
        get, tgid, targets = self.fdcache.get, ev.tgid, self._targets
        for i in fd_args:
            fd = signed(ev.args[i], 32)
            if fd >= 0 and get(tgid, fd) in targets:
                return True
        return in_memory is not None and any(get(tgid, fd) in targets
                                             for fd in in_memory(ev))

    def filter(self, batch: Batch) -> Batch:
        """The events of ``batch`` to pass on, the fd cache updated by each call."""
        out: Batch = []
        dec, cache = self._decoder, self.fdcache
        for ev in batch:
            if isinstance(ev, Syscall):
                shown = self.matches(ev)
                if shown:
                    out.append(ev)
                if not ev.flags & (SC_UNFINISHED | SC_NORETURN | SC_RESUMED):
                    call = dec.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT))
                    if call.fd_action:
                        if not shown:
                            # the stages after this one keep fd tables too: they get
                            # the call as one the selection hid (a table that saw
                            # every call since an exec knows which fds are closed)
                            out.append(FdState(ev.ts_ns, ev))
                        dec.update_fds(ev, call)
                        if (ev.ret >= 0 and call.ret == "fd" and call.name not in _OPENS
                                and call.name not in _NAMED_FD and call.name not in _DUPS
                                and cache.peek(ev.tgid, ev.ret) is None):
                            # an fd that names no file (socket, eventfd, pidfd_open...):
                            # a later use must not read /proc, where the number may
                            # name a later file by then
                            cache.set(ev.tgid, ev.ret, "")
                continue
            dec.track(ev)
            out.append(ev)
        return out

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                out = self.filter(batch)
                ctx.stats.count("not_on_paths", sum(isinstance(ev, Syscall) for ev in batch)
                                - sum(isinstance(ev, Syscall) for ev in out))
                if out:
                    await send.send(out)
