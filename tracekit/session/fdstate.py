"""What a session does so that fds print as strace -yy does, whatever the trace shows.

Three parts, all active when ``SessionOptions.fd_table`` is on (the output prints fds
with what they refer to, or a ``-P`` path filter follows them):

- :func:`fill_fd_track`: the ``fd_track`` map of the BPF program: the native syscalls
  that change the fd table or the working directory. A call among them that the
  selection hides is still recorded, as an FdState record (programs/syscalls.h, "the fd
  table"); after each exec an FdExec record lists the fds left open.
- :func:`snapshot`: a process's fds, working directory and sockets, read from /proc and
  sock_diag before its calls are traced: a ``pid`` target right after attach, a command
  while it is held before its exec (only the fds without close-on-exec, which the exec
  keeps). The source sends them first (``FdSnapshot``).
- :class:`FdResolver`: as each batch arrives, the fds a call made (``socket``, ``accept``,
  ``pipe``'s pair, ``eventfd``...) are read from /proc at once, and the sockets a call
  made, bound, connected or accepted are described by sock_diag: an ``FdTargets`` event
  before the call's record carries it to the fd caches, which would otherwise read
  /proc when the line is decoded, after a short-lived process has gone. An open's fd
  is not read: its path says what it is. Nor is a record that carries what its fds
  are, read by the BPF program in the call itself (sockets and pipes: ``CAP_FD``
  captures, :meth:`FdCache.learn <tracekit.decode.fdcache.FdCache.learn>`), which holds
  even for a socket that lived microseconds.

Everything here runs on the trio thread: readlink, getxattr and sock_diag requests are
local kernel reads that never wait (tracekit.kernel.sockdiag).
"""

from __future__ import annotations

import errno
import operator
import os
import struct
import time
from collections.abc import Iterable

from tracekit._events import (
    CAP_FD,
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    FdSnapshot,
    FdState,
    FdTargets,
    Syscall,
)
from tracekit.bpf.object import BpfObject
from tracekit.decode.argspec import ARGSPEC, NEWER_FD_CALLS
from tracekit.decode.fdcache import TRACKED_CALLS, socket_calls
from tracekit.decode.values import quote
from tracekit.kernel.facts import read_sock_proto
from tracekit.kernel.sockdiag import SockDiag, fallback, socket_inode
from tracekit.kernel.syscalls import SyscallTable

__all__ = ["FdResolver", "fd_tracked_names", "fill_fd_track", "snapshot"]

_O_CLOEXEC = 0o2000000          # include/uapi/asm-generic/fcntl.h (x86_64 and arm64)
_GONE = (errno.ENOENT, errno.ESRCH, errno.ENOTDIR, errno.EACCES, errno.EPERM)
#: a Syscall's number; AttributeError for any other event (annotate's batch check)
_syscall_nr = operator.attrgetter("syscall_nr")
_NOT_NEW = frozenset({"open", "openat", "openat2", "creat", "dup", "dup2", "dup3",
                      "fcntl", "fcntl64"})     # their fds are known without /proc
_PAIRS = {"pipe": 0, "pipe2": 0, "socketpair": 3}
_FRESH = frozenset({"socket"})  # a new socket is bound to nothing: strace's PROTO:[inode]


def fd_tracked_names() -> frozenset[str]:
    """Syscalls whose hidden calls are still recorded for the fd table: those
    :meth:`FdCache.apply_call <tracekit.decode.fdcache.FdCache.apply_call>` follows and
    every call that returns an fd (argspec ``-> fd``)."""
    return TRACKED_CALLS | {n for n, (_, ret) in ARGSPEC.items() if ret == "fd"}


def fill_fd_track(obj: BpfObject, table: SyscallTable) -> int:
    """Mark the native numbers of :func:`fd_tracked_names` in ``obj``'s ``fd_track`` map;
    returns how many were marked."""
    m = obj.maps["fd_track"]
    n = 0
    for name in sorted(fd_tracked_names()):
        nr = table.nr(name)
        if nr is not None and 0 <= nr < m.max_entries:
            m.update_elem(struct.pack("<I", nr), b"\x01")
            n += 1
    return n


def _describe(diag: SockDiag, proc: str, tgid: int, fd: int, ino: int, *,
              fresh: bool = False) -> str:
    proto = read_sock_proto(proc, tgid, fd)
    got = None if fresh else diag.describe(ino, proto)
    return got if got is not None else fallback(ino, proto)


def snapshot(tgid: int, diag: SockDiag, *, proc: str = "/proc",
             without_cloexec: bool = False) -> FdSnapshot | None:
    """The fds, working directory and sockets of process ``tgid`` now, or None when it
    is gone or its fds cannot be read.

    Args:
      without_cloexec: only the fds an exec keeps (``flags`` of /proc/<tgid>/fdinfo
        without O_CLOEXEC): a command held before its exec.
    """
    base = f"{proc}/{tgid}"
    try:
        names = os.listdir(f"{base}/fd")
    except OSError as e:
        if e.errno in _GONE:
            return None
        raise
    fds: list[tuple[int, str]] = []
    socks: list[tuple[int, str]] = []
    for name in sorted(names, key=int):
        fd = int(name)
        link = f"{base}/fd/{fd}"
        try:
            target = os.readlink(link)
            if without_cloexec:
                with open(f"{base}/fdinfo/{fd}", "rb") as f:
                    info = f.read()
                flags = next((int(line.split()[1], 8) for line in info.splitlines()
                              if line.startswith(b"flags:")), 0)
                if flags & _O_CLOEXEC:
                    continue
        except OSError as e:
            if e.errno in _GONE:
                continue          # closed while we read
            raise
        fds.append((fd, target))
        ino = socket_inode(target)
        if ino is not None:
            socks.append((ino, _describe(diag, proc, tgid, fd, ino)))
    try:
        cwd: str | None = os.readlink(f"{base}/cwd")
    except OSError:
        cwd = None
    return FdSnapshot(time.monotonic_ns(), tgid, tuple(fds), cwd, tuple(socks))


def snapshots(tgids: Iterable[int], diag: SockDiag, *, without_cloexec: bool = False
              ) -> list[FdSnapshot]:
    """:func:`snapshot` of each process that is still there."""
    out = []
    for tgid in tgids:
        snap = snapshot(tgid, diag, without_cloexec=without_cloexec)
        if snap is not None:
            out.append(snap)
    return out


class FdResolver:
    """Reads what new fds are as their calls' records arrive (module docstring).

    Args:
      table: the native syscall table (FdState and syscall records of compat calls are
        not resolved).
      proc: the procfs root.

    Attributes:
      resolved: FdTargets made.
      gone: fds already closed (or processes gone) when their record arrived.
      reused: fds not read because a later record of their batch made them again.
    """

    def __init__(self, table: SyscallTable | None = None, *, proc: str = "/proc",
                 sockdiag: SockDiag | None = None) -> None:
        table = table or SyscallTable()
        self.proc = proc
        self.diag = sockdiag if sockdiag is not None else SockDiag(quote=quote)
        self.resolved = 0
        self.gone = 0
        self.reused = 0
        # (calls newer than strace 6.1 too, which it prints in hex: their fds are
        # shown later, in close(4</path>))
        fd_returning = {n for n, (_, ret) in ARGSPEC.items() if ret == "fd"} | NEWER_FD_CALLS
        self._fd_returning = frozenset(fd_returning)
        new = fd_returning - _NOT_NEW
        sock = socket_calls()
        # nr -> (name, new fds: "ret" | "pair" | "", socket state changes)
        self._calls: dict[int, tuple[str, str, bool]] = {}
        for name in new | set(_PAIRS) | sock:
            nr = table.nr(name)
            if nr is not None:
                kind = "pair" if name in _PAIRS else "ret" if name in new else ""
                self._calls[nr] = (name, kind, name in sock)
        # nr -> name of the calls that close or make fds (the reuse check of annotate)
        self._names = {nr: n for n in fd_tracked_names()
                       if (nr := table.nr(n)) is not None}

    def annotate(self, batch: Batch) -> Batch:
        """``batch`` with an FdTargets before each record whose fds it read (a new list;
        ``batch`` itself when there was none).

        An fd that a later record of the batch makes again is not read: /proc would show
        what came after (the process ran on while its records waited).
        """
        calls = self._calls
        try:
            if calls.keys().isdisjoint(map(_syscall_nr, batch)):
                return batch        # no call of the batch makes fds /proc must name
        except AttributeError:
            pass                    # an event that is not a Syscall (an FdState's call?)
        out: Batch | None = None
        refreshed = False
        touched: dict[tuple[int, int], int] | None = None
        for i, ev in enumerate(batch):
            targets = None
            call = ev.call if isinstance(ev, FdState) else ev
            if isinstance(call, Syscall):
                what = calls.get(call.syscall_nr)
                if what is not None and call.ret >= 0 and not call.flags & (
                        SC_COMPAT | SC_RESUMED | SC_UNFINISHED | SC_NORETURN) and not any(
                        c.kind == CAP_FD for c in call.caps):
                    # (a record that says what its fds are, read in the call, needs
                    # no /proc: tracekit.decode.fdcache.FdCache.learn)
                    if what[2] and not refreshed:
                        self.diag.refresh()     # a socket changed: the dumps are stale
                        refreshed = True
                    if touched is None:
                        touched = self._touched(batch)
                    targets = self._targets(call, *what, after=i, touched=touched)
            if targets is not None and out is None:
                out = list(batch[:i])
            if out is not None:
                if targets is not None:
                    out.append(targets)
                out.append(ev)
        return batch if out is None else out

    def _touched(self, batch: Batch) -> dict[tuple[int, int], int]:
        """(tgid, fd) -> the index of the last record of ``batch`` that made that fd
        (a close alone does not count: /proc then has nothing, or the same file)."""
        names, out = self._names, {}
        for i, ev in enumerate(batch):
            call = ev.call if isinstance(ev, FdState) else ev
            if not isinstance(call, Syscall) or call.flags & (SC_COMPAT | SC_RESUMED):
                continue
            name = names.get(call.syscall_nr)
            if name is None:
                continue
            tgid = call.tgid
            if call.ret < 0:
                continue
            if name in ("dup2", "dup3"):
                out[(tgid, call.args[1] & 0xFFFFFFFF)] = i
            elif name in _PAIRS:
                for fd in _pair(call, _PAIRS[name]):
                    out[(tgid, fd)] = i
            elif name in self._fd_returning:
                out[(tgid, call.ret)] = i
        return out

    def _targets(self, ev: Syscall, name: str, kind: str, sock: bool, *, after: int,
                 touched: dict[tuple[int, int], int]) -> FdTargets | None:
        if kind == "ret":
            fds = [ev.ret]
        elif kind == "pair":
            fds = list(_pair(ev, _PAIRS[name]))
        else:
            fds = [ev.args[0] & 0xFFFFFFFF]      # bind/connect/listen: the socket
        got: list[tuple[int, str]] = []
        socks: list[tuple[int, str]] = []
        for fd in fds:
            if touched.get((ev.tgid, fd), -1) > after:
                self.reused += 1
                continue                # changed again since: /proc shows what came after
            link = f"{self.proc}/{ev.tgid}/fd/{fd}"
            try:
                target = os.readlink(link)
            except OSError as e:
                if e.errno not in _GONE:
                    raise
                self.gone += 1
                continue
            if kind:
                got.append((fd, target))
            ino = socket_inode(target)
            if ino is not None:
                socks.append((ino, _describe(self.diag, self.proc, ev.tgid, fd, ino,
                                             fresh=name in _FRESH)))
        if not got and not socks:
            return None
        self.resolved += 1
        return FdTargets(ev.ts_ns, ev.tid, ev.tgid, tuple(got), tuple(socks))

    def close(self) -> None:
        self.diag.close()


def _pair(ev: Syscall, arg: int) -> tuple[int, ...]:
    for c in ev.caps:
        if c.arg == arg and len(c.data) >= 8:
            return struct.unpack_from("<ii", c.data)
    return ()
