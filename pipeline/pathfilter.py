"""The path filter (strace -P): only the syscalls that name a path or use an fd open on it.

A syscall is kept when one of its arguments

- is a path (``openat``'s filename, ``execve``'s, both of ``rename``'s ...) whose captured
  string is one of the paths exactly as written (no resolution of the call's relative
  paths, ``..`` or symlinks: ``cd /etc; cat passwd`` opens ``"passwd"``, which does not
  match ``/etc/passwd``; the fds that open returns do, below), or
- is an fd (``read``'s, ``close``'s, a dirfd, both of ``dup2``'s) that refers to one of
  them before the call: what the fd cache (:mod:`tracekit.decode.fdcache`) knows from the
  traced calls, else ``readlink(/proc/<tgid>/fd/<fd>)`` when the event is filtered.

Each path is matched as given and, when it differs, as ``realpath`` gives it at start
(strace does the same), so ``-P /tmp/link`` also matches calls on the file the link names.

How fds are followed: ``open``/``openat``/``creat`` with an absolute path set the new fd's
target to that path; ``dup``, ``dup2``, ``dup3`` and ``fcntl(F_DUPFD*)`` copy it;
``close`` forgets it, ``close_range`` the fds in its range; an exit of the thread group
forgets the process;
a fork gives the child a copy of its parent's table. A rename of the file leaves its
open fds matched (the target is the name it was opened by; strace re-reads /proc and
stops matching). An exec keeps the table: close-on-exec fds are gone, but their numbers
come back only through calls the filter sees.

What it cannot see: fds that reach a process without a call it decodes (``SCM_RIGHTS``,
``pidfd_getfd``; read from /proc, which shows the file's current name, or nothing once the
process is gone); calls hidden by a kernel-side syscall selection (their fd changes are
missed, so combine ``-P`` with a ``trace=`` that keeps ``close`` and the ``dup`` family).
Every syscall crosses the ring buffer: the filter runs in user space, first of the stages.
Other events (signals, exits, forks, execs) pass unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tracekit._events import (
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    Exit,
    Fork,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.argspec import ARGSPEC
from tracekit.decode.fdcache import FdCache
from tracekit.decode.values import signed
from tracekit.kernel.facts import FactReader, LiveFacts
from tracekit.pipeline._stage import EventReceiver, EventSender, StageContext

__all__ = ["PathFilter", "path_variants"]

_FD_KINDS = frozenset({"fd", "dirfd"})
_EXECS = frozenset({"execve", "execveat"})
_OPENS = frozenset({"open", "openat", "creat", "openat2"})
_AT_FDCWD = -100
_CLOSE_RANGE_CLOEXEC = 4
# calls that return an fd that may be open on a named file without a path argument the
# filter reads: their fds are read from /proc when used
_NAMED_FD = frozenset({"open_by_handle_at", "open_tree", "fsmount", "fspick"})
_DUPS = frozenset({"dup", "dup2", "dup3", "fcntl", "fcntl64"})


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

    Stats counters: ``dropped`` (syscalls not on the paths).
    """

    name = "path"

    def __init__(self, paths: Iterable[str], *, proc: str = "/proc",
                 facts: FactReader | None = None) -> None:
        self._facts = facts if facts is not None else LiveFacts(proc).reader(self.name)
        self.paths = path_variants(paths, self._facts)
        self.fdcache = FdCache(proc, read_link=self._facts.fd_link)
        self._decoder = SyscallDecoder(fd_paths=True, fdcache=self.fdcache)
        self._spec: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._targets = frozenset(os.fsdecode(p) for p in self.paths)
        self._cwd: dict[int, str | None] = {}     # tgid -> working directory

    def _args(self, ev: Syscall) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(indices of path arguments, indices of fd arguments) of the event's syscall."""
        key = ev.syscall_nr << 1 | (ev.flags >> 3 & 1)
        got = self._spec.get(key)
        if got is None:
            name = self._decoder.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT)).name
            kinds = ARGSPEC.get(name, ((), ""))[0]
            got = self._spec[key] = (
                tuple(i for i, k in enumerate(kinds) if k == "path"),
                tuple(i for i, k in enumerate(kinds) if k in _FD_KINDS))
        return got

    def matches(self, ev: Syscall) -> bool:
        """Whether ``ev`` names one of the paths, before its own fd changes."""
        if ev.flags & SC_RESUMED:
            return False                 # arguments unknown
        path_args, fd_args = self._args(ev)
        if path_args:
            for cap in ev.caps:
                if cap.arg in path_args and cap.data in self.paths:
                    return True
        get, tgid, targets = self.fdcache.get, ev.tgid, self._targets
        for i in fd_args:
            fd = signed(ev.args[i], 32)
            if fd >= 0 and get(tgid, fd) in targets:
                return True
        return False

    def filter(self, batch: Batch) -> Batch:
        """The events of ``batch`` to pass on, the fd cache updated by each call."""
        out: Batch = []
        dec, cache = self._decoder, self.fdcache
        for ev in batch:
            if isinstance(ev, Syscall):
                if self.matches(ev):
                    out.append(ev)
                if not ev.flags & (SC_UNFINISHED | SC_NORETURN | SC_RESUMED):
                    call = dec.call(ev.syscall_nr, bool(ev.flags & SC_COMPAT))
                    # an exec keeps the table (module docstring) and close_range closes a
                    # range: the decoder would forget the process's whole table
                    if call.name == "close_range":
                        self._close_range(ev)
                    elif call.fd_action and call.name not in _EXECS:
                        dec.update_fds(ev, call)
                        if ev.ret >= 0:
                            self._learn(ev, call.name, call.ret, call.path_arg)
                    elif call.name in ("chdir", "fchdir") and ev.ret == 0:
                        self._chdir(ev, call.name)
                continue
            if isinstance(ev, Fork):
                cache.copy_process(ev.parent_tgid, ev.child_tgid)
                if ev.parent_tgid in self._cwd:
                    self._cwd.setdefault(ev.child_tgid, self._cwd[ev.parent_tgid])
            elif isinstance(ev, Exit) and ev.group_dead:
                cache.forget_process(ev.tgid)
                self._cwd.pop(ev.tgid, None)
            out.append(ev)
        return out

    def _learn(self, ev: Syscall, name: str, ret_kind: str, path_arg: int) -> None:
        """What the decoder's fd update leaves unknown: an open of a relative path is the
        path joined to the working directory (AT_FDCWD) or to the dirfd's target; an fd
        of a call that opens no named file (socket, eventfd, pidfd_open ...) is marked
        as such, so a later use does not read /proc, where the number may name a later
        file by then."""
        if name in _OPENS:
            data = next((c.data for c in ev.caps if c.arg == path_arg and not
                         c.flags & (CAPF_TRUNC | CAPF_FAULT)), None)
            if data is None or data[:1] == b"/":
                return
            if path_arg == 0 or signed(ev.args[0], 32) == _AT_FDCWD:
                base = self._cwd_of(ev.tgid)
            else:
                base = self.fdcache.get(ev.tgid, signed(ev.args[0], 32))
            if base and base.startswith("/"):
                self.fdcache.set(ev.tgid, ev.ret, os.path.normpath(
                    os.path.join(base, os.fsdecode(data))))
        elif ret_kind == "fd" and name not in _NAMED_FD and name not in _DUPS:
            self.fdcache.set(ev.tgid, ev.ret, "")

    def _close_range(self, ev: Syscall) -> None:
        """close_range(first, last, flags): CLOSE_RANGE_CLOEXEC (4) only marks the fds
        close-on-exec (include/uapi/linux/close_range.h), which an exec keeps anyway."""
        if ev.ret == 0 and not ev.args[2] & _CLOSE_RANGE_CLOEXEC:
            self.fdcache.forget_range(ev.tgid, ev.args[0] & 0xFFFFFFFF,
                                      ev.args[1] & 0xFFFFFFFF)

    def _cwd_of(self, tgid: int) -> str | None:
        if tgid not in self._cwd:
            self._cwd[tgid] = self._facts.cwd(tgid)     # None: gone, or not ours to read
        return self._cwd[tgid]

    def _chdir(self, ev: Syscall, name: str) -> None:
        if name == "fchdir":
            self._cwd[ev.tgid] = self.fdcache.get(ev.tgid, signed(ev.args[0], 32)) or None
            return
        data = next((c.data for c in ev.caps if c.arg == 0 and not
                     c.flags & (CAPF_TRUNC | CAPF_FAULT)), None)
        base = self._cwd_of(ev.tgid)
        if data is None or (data[:1] != b"/" and not base):
            self._cwd.pop(ev.tgid, None)         # read /proc on the next need
        else:
            self._cwd[ev.tgid] = os.path.normpath(os.path.join(base or "/",
                                                               os.fsdecode(data)))

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                out = self.filter(batch)
                ctx.stats.dropped += len(batch) - len(out)
                if out:
                    await send.send(out)
