"""What each traced process's file descriptors refer to, for strace -yy style output.

Per process (tgid, init pid namespace): fd -> target, where target is what
``readlink(/proc/<tgid>/fd/<fd>)`` gives (``/etc/passwd``, ``pipe:[12345]``,
``socket:[6789]``, ``anon_inode:[eventfd]``) or a path the beautify stage learned from
the syscall that returned the fd (openat's captured path). A miss reads /proc once; a
miss that finds nothing (the fd is closed, the process gone) is cached as unknown too,
so a hot loop on a bad fd costs one readlink, not one per event.

Invalidation (each is a call the beautify stage makes from the event stream)::

    close(fd)            -> forget that fd           close_range   -> forget the process
    dup2/dup3(old, new)  -> new = old's target        exec          -> forget the process
    a call returns fd N  -> set N (path known) or forget N (read /proc on the next use)
    exit (group_dead)    -> drop the process

# Some facts about /proc/<tgid>/fd

The link is read when the event is decoded, not when the syscall ran: the process may
have closed or reused the fd in between (the cache is updated in event order, so only
fds never seen opened or closed by traced calls are read late). ENOENT/ESRCH mean the
fd or the process is gone: the answer is "unknown", not an error. EACCES/EPERM happen
even as root for processes the ptrace access mode check refuses (another user namespace,
a container without CAP_SYS_PTRACE): also "unknown".
"""

from __future__ import annotations

from collections.abc import Callable

from tracekit.kernel.facts import read_fd_link

__all__ = ["FdCache"]

_ABSENT = object()      # no entry (a lookup would read /proc)


class FdCache:
    """fd -> target per tgid, filled from /proc on a miss.

    Args:
      proc: the procfs root (tests pass a fake tree).
      max_processes: processes kept; when more are seen, the whole cache is dropped
        (a cheap bound; entries are refilled from /proc on demand).
      read_link: ``(tgid, fd) -> target or None`` for a miss; default
        :func:`~tracekit.kernel.facts.read_fd_link` under ``proc``. A trace passes its
        facts reader's ``fd_link`` (tracekit.kernel.facts), which a recording fills.

    Attributes:
      misses: lookups that read /proc.
      hits: lookups answered from the cache.
    """

    __slots__ = ("proc", "max_processes", "misses", "hits", "_tables", "_read")

    def __init__(self, proc: str = "/proc", *, max_processes: int = 65536,
                 read_link: Callable[[int, int], str | None] | None = None) -> None:
        self.proc = proc
        self._read = read_link or (lambda tgid, fd: read_fd_link(proc, tgid, fd))
        self.max_processes = max_processes
        self.misses = 0
        self.hits = 0
        self._tables: dict[int, dict[int, str | None]] = {}

    def get(self, tgid: int, fd: int) -> str | None:
        """The target of ``fd`` in process ``tgid``, or None when unknown.

        Raises:
          TracefsError: /proc could not be read for a reason other than the fd or the
            process being gone.
        """
        table = self._tables.get(tgid)
        if table is None:
            if len(self._tables) >= self.max_processes:
                self._tables.clear()
            table = self._tables[tgid] = {}
        elif fd in table:
            self.hits += 1
            return table[fd]
        self.misses += 1
        target = table[fd] = self._read(tgid, fd)
        return target

    def still(self, tgid: int, fds: tuple[tuple[int, str | None], ...]) -> bool:
        """Whether each ``(fd, target)`` is cached as it is, unknown (None) included.

        Reads no /proc. When true, counts a hit for each (the lookups it stands for);
        when false, counts nothing and changes nothing.
        """
        table = self._tables.get(tgid)
        if table is None:
            return False
        for fd, target in fds:
            got = table.get(fd, _ABSENT)
            if got is not target and got != target:
                return False
        self.hits += len(fds)
        return True

    def set(self, tgid: int, fd: int, target: str) -> None:
        """Record that ``fd`` now refers to ``target`` (an open that returned it)."""
        table = self._tables.get(tgid)
        if table is None:
            table = self._tables[tgid] = {}
        table[fd] = target

    def forget(self, tgid: int, fd: int) -> None:
        """Drop one entry (close; an fd returned by a call whose target is not known)."""
        table = self._tables.get(tgid)
        if table is not None:
            table.pop(fd, None)

    def dup(self, tgid: int, old: int, new: int) -> None:
        """``new`` refers to what ``old`` does (dup2/dup3/F_DUPFD), if that is cached."""
        table = self._tables.get(tgid)
        if table is None:
            return
        target = table.get(old)
        if target is None:
            table.pop(new, None)
        else:
            table[new] = target

    def forget_range(self, tgid: int, first: int, last: int) -> None:
        """Drop the entries of fds ``first`` to ``last`` (close_range(2)); the others stay."""
        table = self._tables.get(tgid)
        if table is not None:
            for fd in [fd for fd in table if first <= fd <= last]:
                del table[fd]

    def copy_process(self, parent: int, child: int) -> None:
        """``child`` starts with what ``parent``'s table holds (fork without CLONE_FILES
        copies the fd table: kernel/fork.c copy_files)."""
        table = self._tables.get(parent)
        if table is not None and parent != child:
            self._tables[child] = dict(table)

    def forget_process(self, tgid: int) -> None:
        """Drop a process's table (exec, close_range, exit of the thread group)."""
        self._tables.pop(tgid, None)

    def __len__(self) -> int:
        return sum(map(len, self._tables.values()))
