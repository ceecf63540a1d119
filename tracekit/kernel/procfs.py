"""/proc task enumeration: threads, children, descendants, stat.

Words: ``tid`` is the kernel's pid (a thread), ``tgid`` the process (user "pid"), ``ppid``
the parent's tgid. All numbers are in the pid namespace of the /proc mount.

# Some facts about /proc (fs/proc/base.c, fs/proc/array.c)

- ``/proc/<tid>`` exists for every tid, not only for leaders (it is hidden from readdir).
- ``/proc/<tgid>/task`` lists the threads of a thread group.
- ``/proc/<tid>/task/<tid>/children`` (CONFIG_PROC_CHILDREN) lists the processes that
  thread created: only thread-group leaders sit on ``->children`` (kernel/fork.c), so the
  entries are tgids. A process's children are spread over its threads' files.
- A task that exits while we read gives ENOENT or ESRCH: that is not an error (rule 7).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

import msgspec

from tracekit._errors import TracefsError

__all__ = ["CLK_TCK", "INIT_PID_NS_INO", "NS_PER_TICK", "ProcFS", "ProcStats", "TaskStat",
           "foreign_pid_namespace", "ns_to_ticks", "ticks_to_ns"]

_GONE = (errno.ENOENT, errno.ESRCH)

# Some facts about start times: the kernel keeps task->start_boottime in ns
# (CLOCK_BOOTTIME); /proc/<tid>/stat field 22 shows it divided by NSEC_PER_SEC / USER_HZ
# (nsec_to_clock_t, fs/proc/array.c). USER_HZ is what sysconf(_SC_CLK_TCK) reports (100
# on x86_64 and arm64), so a tick is a whole number of ns. BPF stores the exact ns in the
# pids map, userspace stores ticks * NS_PER_TICK: compare the two in ticks.
CLK_TCK: int = os.sysconf("SC_CLK_TCK")
NS_PER_TICK: int = 1_000_000_000 // CLK_TCK


def ticks_to_ns(ticks: int) -> int:
    """A /proc start time (clock ticks after boot) in ns after boot (CLOCK_BOOTTIME)."""
    return ticks * NS_PER_TICK


def ns_to_ticks(ns: int) -> int:
    """A start time in ns after boot (``task->start_boottime``) in /proc's clock ticks."""
    return ns // NS_PER_TICK


#: The inode number of the initial pid namespace, the same on every boot
#: (PROC_PID_INIT_INO, include/linux/proc_ns.h); ``/proc/<pid>/ns/pid`` names it.
INIT_PID_NS_INO = 0xEFFFFFFC


def foreign_pid_namespace(root: Path = Path("/proc")) -> str | None:
    """Why this process cannot trace by pid, when it is not in the initial pid namespace.

    BPF programs see tids and tgids of the initial pid namespace
    (``bpf_get_current_pid_tgid``, kernel/bpf/helpers.c), while ``getpid()`` and the
    /proc a namespace mounts give the namespace's own numbers: a command's pid written
    into the pids map, a ``-p`` pid or tracekit's own tgid would name other tasks, or
    none, and nothing would be traced, silently.

    Returns:
      None in the initial pid namespace (also when ``/proc/self/ns/pid`` cannot be read:
      nothing to tell then); else one line saying what is wrong and what to do.
    """
    try:
        ino = os.stat(root / "self" / "ns" / "pid").st_ino
    except OSError:
        return None
    if ino == INIT_PID_NS_INO:
        return None
    return (f"tracekit runs in a pid namespace of its own (pid:[{ino}], not the initial "
            f"pid:[{INIT_PID_NS_INO}]): its BPF programs see the pids of the initial "
            "namespace, so the pids it knows here would name other tasks and nothing "
            "would be traced; run it in the initial pid namespace (not under unshare "
            "--pid, nor in a container with a pid namespace of its own)")


class TaskStat(msgspec.Struct, frozen=True, kw_only=True):
    """One task, from ``/proc/<tid>/stat`` and ``/proc/<tid>/status``."""

    tid: int                # thread id (kernel "pid")
    tgid: int               # process id (user "pid"), from status "Tgid:"
    ppid: int               # parent's tgid (stat field 4)
    comm: str               # task comm, up to 15 bytes; may hold spaces and ')'
    state: str              # one letter: R, S, D, Z, T, t, X, I ...
    start_time_ticks: int   # stat field 22: start after boot, clock ticks (SC_CLK_TCK)
    start_time_ns: int      # start_time_ticks * 1e9 / SC_CLK_TCK, ns after boot


class ProcStats(msgspec.Struct):
    """What a ProcFS has read: directory listings, entries seen, files read."""

    dir_reads: int = 0
    entries_read: int = 0
    files_read: int = 0


class ProcFS:
    """Reads task facts from a /proc mount, counting every read in ``stats``.

    Args:
      root: the /proc mount (a path, so tests could point elsewhere).
    """

    def __init__(self, root: Path = Path("/proc")) -> None:
        self.root = root
        # paths are made as strings: a Path per read cost more than the read of a warm
        # /proc file (a -p target of 1024 threads makes some 8,000 of them)
        self._root = str(root)
        self.stats = ProcStats()

    def _listdir(self, path: str) -> list[str] | None:
        try:
            entries = os.listdir(path)
        except OSError as e:
            if e.errno in _GONE:
                return None
            raise TracefsError(str(path), e.errno or errno.EIO) from e
        self.stats.dir_reads += 1
        self.stats.entries_read += len(entries)
        return entries

    def _read(self, path: str) -> str | None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            if e.errno in _GONE:
                return None
            raise TracefsError(str(path), e.errno or errno.EIO) from e
        self.stats.files_read += 1
        return data.decode("utf-8", "surrogateescape")

    def threads(self, tgid: int) -> list[int]:
        """The tids of a thread group, sorted; ``[]`` if the process is gone.

        Raises:
          TracefsError: /proc/<tgid>/task unreadable for another reason (EACCES ...).
        """
        entries = self._listdir(f"{self._root}/{tgid}/task")
        return sorted(int(e) for e in entries if e.isdigit()) if entries else []

    def children(self, tid: int) -> list[int]:
        """The tgids of the processes thread ``tid`` created; ``[]`` if it is gone.

        Raises:
          TracefsError: the children file is unreadable (ENOENT on the file of a live task
            would mean CONFIG_PROC_CHILDREN is off; it is reported as gone instead).
        """
        text = self._read(f"{self._root}/{tid}/task/{tid}/children")
        return [int(w) for w in text.split()] if text else []

    def walk(self, tgids: Iterable[int], *, follow_forks: bool = True,
             skip: Collection[int] = ()) -> Iterator[tuple[int, int]]:
        """The threads of processes ``tgids`` and, with ``follow_forks``, of every
        descendant process, to any depth (kernel rule 4), but for the child processes in
        ``skip`` and theirs.

        Each thread group's task dir is listed once (not once per thread); processes are
        walked breadth first, so a parent's tids come before its children's; children are
        read from every thread's ``task/<tid>/children`` file. A process that exits during
        the walk yields nothing. Lazy: a caller may act on a tid before the next read.

        Yields:
          ``(tid, tgid)``, parent groups first, each group's tids sorted, no duplicates.

        Raises:
          TracefsError: /proc unreadable for another reason than a vanished task.
        """
        seen: set[int] = set(skip)
        queue = list(tgids)
        while queue:
            group = queue.pop(0)
            if group in seen:
                continue
            seen.add(group)
            tids = self.threads(group)
            for tid in tids:
                yield tid, group
            if follow_forks:
                for tid in tids:
                    queue.extend(c for c in self.children(tid) if c not in seen)

    def descendants(self, tgid: int) -> list[int]:
        """Every thread of ``tgid`` and of every descendant process, to any depth
        (:meth:`walk` of one process).

        Returns:
          tids, parent groups first, each group's tids sorted, no duplicates.
        """
        return [tid for tid, _ in self.walk([tgid])]

    def stat(self, tid: int) -> TaskStat | None:
        """Parse ``/proc/<tid>/stat`` (and ``Tgid:`` of ``status``); None if the task is gone.

        The comm is the text between the first ``(`` and the LAST ``)``: a comm may itself
        hold spaces and parentheses (fs/proc/array.c, do_task_stat()).

        Raises:
          TracefsError: a read failed with an errno other than ENOENT/ESRCH, or the text is
            malformed (EINVAL).
        """
        path = f"{self._root}/{tid}/stat"
        text = self._read(path)
        if text is None:
            return None
        head, sep, tail = text.rpartition(")")
        pid_text, lparen, comm = head.partition(" (")
        fields = tail.split()
        # fields[0] is stat field 3 (state), so field n is fields[n - 3].
        if not sep or not lparen or len(fields) < 20:
            raise TracefsError(str(path), errno.EINVAL, f"malformed stat line {text[:80]!r}")
        status = self._read(f"{self._root}/{tid}/status")
        if status is None:
            return None
        tgid = next((int(line.split()[1]) for line in status.splitlines()
                     if line.startswith("Tgid:")), None)
        if tgid is None:
            raise TracefsError(f"{self._root}/{tid}/status", errno.EINVAL,
                               "no Tgid: line")
        ticks = int(fields[22 - 3])
        return TaskStat(tid=int(pid_text), tgid=tgid, ppid=int(fields[4 - 3]), comm=comm,
                        state=fields[0], start_time_ticks=ticks,
                        start_time_ns=ticks_to_ns(ticks))

    def start_state(self, tid: int, tgid: int | None = None) -> tuple[int, str] | None:
        """Start time and state of ``tid`` from ``/proc/<tid>/stat`` alone (one file read;
        with ``tgid``, ``/proc/<tgid>/task/<tid>/stat``: the thread's own file, which the
        kernel fills without a pass over the whole group's threads, some 10x cheaper in a
        process of 1024 threads, and which names nobody once ``tid`` left ``tgid``).

        The cheap identity check of eviction and re-enumeration: ``(tid, start time)``
        names a task across pid reuse (kernel rule 5).

        Returns:
          ``(start_time_ticks, state)``: stat field 22 (clock ticks after boot, the
          kernel's ``task->start_boottime`` divided by ``NSEC_PER_SEC / CLK_TCK``) and
          field 3 (one letter; ``Z``/``X`` is a task that has exited); None if the task
          is gone (ENOENT/ESRCH).

        Raises:
          TracefsError: another read error, or a malformed line (EINVAL).
        """
        got = self.start_state_comm(tid, tgid)
        return None if got is None else got[:2]

    def start_state_comm(self, tid: int, tgid: int | None = None
                         ) -> tuple[int, str, str] | None:
        """:meth:`start_state` and the comm (the text between the first ``(`` and the
        last ``)``: a comm may hold both) from the same one read."""
        path = (f"{self._root}/{tid}/stat" if tgid is None else
                f"{self._root}/{tgid}/task/{tid}/stat")
        text = self._read(path)
        if text is None:
            return None
        head, sep, tail = text.rpartition(")")
        fields = tail.split()
        if not sep or len(fields) < 20:
            raise TracefsError(str(path), errno.EINVAL, f"malformed stat line {text[:80]!r}")
        return int(fields[22 - 3]), fields[0], head.partition("(")[2]

    def live_start_ticks(self, tid: int, tgid: int | None = None) -> int | None:
        """The start time of ``tid`` (clock ticks after boot) while it runs; None when it
        is gone or has exited (a zombie, ``Z``/``X``: its parent has not reaped it).

        One read of ``/proc/<tid>/stat`` (:meth:`start_state`, ``tgid`` as there);
        ``(tid, start time)`` names a task across pid reuse (kernel rule 5).

        Raises:
          TracefsError: another read error, or a malformed line (EINVAL).
        """
        st = self.start_state(tid, tgid)
        if st is None or st[1] in ("Z", "X"):
            return None
        return st[0]

    def tgid_of(self, tid: int) -> int | None:
        """The thread group of ``tid`` (status ``Tgid:``), or None if it is gone."""
        status = self._read(f"{self._root}/{tid}/status")
        if status is None:
            return None
        for line in status.splitlines():
            if line.startswith("Tgid:"):
                return int(line.split()[1])
        raise TracefsError(f"{self._root}/{tid}/status", errno.EINVAL, "no Tgid: line")

    def all_tids(self) -> set[int]:
        """Every task /proc lists now, threads included (``/proc/<tgid>/task/*`` of each
        process; a zombie is listed): one directory read per process, whatever the
        number of tids asked about afterwards.

        Raises:
          TracefsError: a listing failed other than for a vanished process.
        """
        out: set[int] = set()
        for entry in self._listdir(self._root) or ():
            if entry.isdigit():
                tasks = self._listdir(f"{self._root}/{entry}/task")
                if tasks:
                    out.update(int(t) for t in tasks if t.isdigit())
        return out

    def process_count(self) -> int:
        """How many processes /proc lists (one directory read)."""
        return sum(1 for e in self._listdir(self._root) or () if e.isdigit())

    def exists(self, tid: int) -> bool:
        """Whether ``/proc/<tid>`` exists (a zombie still exists)."""
        return os.path.exists(f"{self._root}/{tid}")
