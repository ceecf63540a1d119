"""What each traced process's file descriptors refer to, printed as strace -yy does.

Per process (tgid, init pid namespace): fd -> target, where a target is what
``readlink(/proc/<tgid>/fd/<fd>)`` gives (``/etc/passwd``, ``pipe:[12345]``,
``socket:[6789]``, ``anon_inode:[eventfd]``) or what the calls of the trace say (an open's
path, joined to the working directory or the dirfd and resolved as the kernel names it),
and the working directory (``AT_FDCWD</home/u>``). :meth:`FdCache.text` gives the
decoration strace prints after the fd: ``</etc/passwd>``, ``</dev/null<char 1:3>>``,
``<TCP:[127.0.0.1:40265->127.0.0.1:8080]>`` (sockets from sock_diag,
:mod:`tracekit.kernel.sockdiag`), ``</tmp/x>(deleted)``.

The table is kept true in event order, whatever the selection shows::

    a call (or an FdState: one the selection hid)   -> apply_call (below)
    FdSnapshot (attach, a held command)             -> the process's whole table and cwd
    FdTargets (read when a call's record arrived)   -> what that call's new fds are
    Fork (not a thread)                             -> the child gets a copy (and the cwd)
    Exec                                            -> the table waits for the FdExec...
    FdExec (the fds left open after the exec)       -> ...which keeps only those fds
    Exit of the thread group                        -> the process is dropped

apply_call: ``close`` forgets its fd, ``close_range`` its range (not with
CLOSE_RANGE_CLOEXEC), ``dup``/``dup2``/``dup3``/``fcntl(F_DUPFD*)`` copy, an open sets
the new fd to its path, ``chdir``/``fchdir`` move the working directory, ``bind``,
``connect``, ``listen`` and ``accept`` make the socket's description stale, and any other
call that returns fds (``socket``, ``pipe``'s pair ...) sets them from its FdTargets or
forgets them (read from /proc on the next use).

# Some facts about /proc/<tgid>/fd

A miss reads /proc once; one that finds nothing is cached as unknown too, so a hot loop
on a bad fd costs one readlink. A process whose FdExec said which fds its exec left open
knows its closed fds from then on (those fds, and the ones its calls made since, less
those it closed): :meth:`FdCache.known_text` (dup2's new fd, the fd of a call that failed
with EBADF) prints a closed fd bare without /proc, where a later fd of that number may
be open by the time the call is decoded (bash's ``fcntl(255, F_GETFD)`` and ``dup2(3,
255)`` after an exec, an ``fcntl`` on a closed fd that an open takes again at once). A
call that can make fds no call returns (``recvmsg``'s SCM_RIGHTS, io_uring's opens)
ends that.
An open of ``/proc/self/...`` or ``/proc/thread-self/...`` is named with the traced
task's pid, as /proc/PID/fd shows it. The link is read when the event is decoded, not when the
call ran: a short-lived process is gone by then, which is why a trace snapshots its
targets at attach (FdSnapshot) and reads what new fds are as their records arrive
(FdTargets). ENOENT/ESRCH mean the fd or the process is gone: "unknown", not an error.
EACCES/EPERM happen even as root for processes the ptrace access mode check refuses:
also "unknown". An open's path is resolved with ``os.path.realpath`` in tracekit's own
mount namespace when the call is decoded (symlinks as they are then).

Every read of the system (the fd links and working directories above, realpath, a
socket's protocol and sock_diag text, a device's numbers) goes through the cache's
:class:`~tracekit.kernel.facts.FactReader`: a recording writes the answers down and a
replay gives them back, so a replay prints what the live run printed.
"""

from __future__ import annotations

import errno
from collections.abc import Callable

from tracekit._events import (
    CAP_FD,
    CAPF_FAULT,
    Event,
    Exec,
    Exit,
    FdExec,
    FdSnapshot,
    FdTargets,
    Fork,
    Syscall,
    fd_descs,
)
from tracekit.decode.captures import capture
from tracekit.decode.values import quote, signed
from tracekit.kernel.facts import FactReader, LiveFacts
from tracekit.kernel.sockdiag import desc_text, fallback, socket_inode

__all__ = ["AT_FDCWD", "DESCRIBED_CALLS", "OPENS", "TRACKED_CALLS", "FdCache", "escape_path",
           "socket_calls"]

AT_FDCWD = -100
# The fd or the process is gone, or (EACCES: a process in another user namespace or
# under a stricter ptrace policy) its links cannot be read: "unknown", counted as a miss.
_UNKNOWN = frozenset({errno.ENOENT, errno.ESRCH, errno.ENOTDIR, errno.EACCES, errno.EPERM})
_ABSENT = object()      # no entry (a lookup would read /proc)
_MEMO_MAX = 65536       # entries of each memo below; a full memo is emptied
_PENDING_MAX = 4096     # FdTargets waiting for their call
_CLOSE_RANGE_CLOEXEC = 4  # include/uapi/linux/close_range.h

OPENS = frozenset({"open", "openat", "openat2", "creat"})   # calls that open a path
_OPENS = OPENS
_DUP2 = frozenset({"dup2", "dup3"})
_FD_PAIRS = {"pipe": 0, "pipe2": 0, "socketpair": 3}   # name -> argument of its int[2]
#: calls whose new fd is always a socket (a target /proc shows for it that is not a socket
#: is a later fd of the same number)
_NEW_KIND = {"socket": "socket:[", "accept": "socket:[", "accept4": "socket:["}
#: calls whose new fd is always an anonymous inode of one name: what
#: readlink(/proc/<tgid>/fd/<fd>) shows, the name each subsystem gives
#: anon_inode_getfile() (fs/eventpoll.c, fs/eventfd.c, fs/timerfd.c, fs/signalfd.c,
#: fs/notify/inotify/inotify_user.c, fs/notify/fanotify/fanotify_user.c,
#: fs/userfaultfd.c, io_uring/io_uring.c, kernel/events/core.c)
_ANON_TARGETS = {
    "epoll_create": "anon_inode:[eventpoll]", "epoll_create1": "anon_inode:[eventpoll]",
    "eventfd": "anon_inode:[eventfd]", "eventfd2": "anon_inode:[eventfd]",
    "timerfd_create": "anon_inode:[timerfd]",
    "signalfd": "anon_inode:[signalfd]", "signalfd4": "anon_inode:[signalfd]",
    "inotify_init": "anon_inode:inotify", "inotify_init1": "anon_inode:inotify",
    "fanotify_init": "anon_inode:[fanotify]", "userfaultfd": "anon_inode:[userfaultfd]",
    "io_uring_setup": "anon_inode:[io_uring]", "perf_event_open": "anon_inode:[perf_event]",
    # mm/secretmem.c: a file of the secretmem mount, unlinked
    "memfd_secret": "/secretmem (deleted)",
}
#: bpf(2)'s commands that make an fd (enum bpf_cmd, include/uapi/linux/bpf.h) and what
#: /proc shows for it (the name kernel/bpf/ gives anon_inode_getfd); None: BPF_OBJ_GET's,
#: the pinned object's
BPF_FD_TARGETS: dict[int, str | None] = {
    0: "anon_inode:bpf-map", 14: "anon_inode:bpf-map",          # MAP_CREATE, MAP_GET_FD_BY_ID
    5: "anon_inode:bpf-prog", 13: "anon_inode:bpf-prog",        # PROG_LOAD, PROG_GET_FD_BY_ID
    18: "anon_inode:btf", 19: "anon_inode:btf",                 # BTF_LOAD, BTF_GET_FD_BY_ID
    17: "anon_inode:bpf_link", 28: "anon_inode:bpf_link",       # RAW_TRACEPOINT_OPEN, LINK_CREATE
    30: "anon_inode:bpf_link",                                  # LINK_GET_FD_BY_ID
    32: "anon_inode:bpf-stats", 33: "anon_inode:bpf_iter",      # ENABLE_STATS, ITER_CREATE
    7: None,                                                    # OBJ_GET
}
# seccomp(2)'s operation and flag that make a listener fd (include/uapi/linux/seccomp.h)
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER = 1, 1 << 3
_SOCKET_STATE = frozenset({"bind", "connect", "listen"})
#: calls besides those returning an fd whose effect on the table apply_call follows
#: calls that may make fds no call returns (SCM_RIGHTS; io_uring's opens, direct or not):
#: after one, what the process's exec left open no longer says which fds are closed
_FD_INSTALLERS = frozenset({"recvmsg", "recvmmsg", "io_uring_enter", "io_uring_enter2"})
#: calls that remove a name: the fds open on it are ``PATH (deleted)`` in /proc from then
#: on (the argument that holds the path)
_UNLINKS = {"unlink": 0, "unlinkat": 1, "rmdir": 0}
TRACKED_CALLS = frozenset({"close", "close_range", "dup", "dup2", "dup3", "fcntl", "fcntl64",
                           *_OPENS, "chdir", "fchdir", *_FD_PAIRS, *_SOCKET_STATE,
                           "accept", "accept4", "socket", "seccomp", *_FD_INSTALLERS,
                           *_UNLINKS})


#: calls whose records carry what their fds are, read in the kernel as the call entered
#: and returned (tracekit/session/capture.py: CAP_FD): :meth:`FdCache.learn` applies them
DESCRIBED_CALLS = frozenset({"socket", "socketpair", "pipe", "pipe2", "bind", "connect",
                             "listen", "accept", "accept4", "sendto", "recvfrom", "sendmsg",
                             "recvmsg", "sendmmsg", "getsockname", "getpeername",
                             "setsockopt", "getsockopt", "shutdown",
                             # i386 socketcall's (tracekit.kernel.syscalls)
                             "send", "recv"})
_S_IFMT, _S_IFIFO, _S_IFSOCK = 0o170000, 0o010000, 0o140000


def _own_proc(path: str, tgid: int, tid: int) -> str:
    """``path`` with a leading /proc/self or /proc/thread-self named as the traced task
    sees them (``/proc/TGID``, ``/proc/TGID/task/TID``), what /proc/PID/fd shows for a
    file opened through them; tracekit's own realpath would name tracekit. ``path``
    itself (the same object) when it names neither."""
    if not path.startswith("/proc/"):
        return path
    head, sep, rest = path[6:].partition("/")
    if head == "self":
        own = str(tgid)
    elif head == "thread-self":
        own = f"{tgid}/task/{tid}"
    else:
        return path
    return f"/proc/{own}{sep}{rest}"


def socket_calls() -> frozenset[str]:
    """Calls after which a socket's sock_diag description may have changed (a socket
    made, bound, connected, listening or accepted)."""
    return frozenset({"socket", "socketpair", "accept", "accept4", *_SOCKET_STATE})


# strace prints an fd's path like a string without its quotes, with < and > escaped too
# (print_quoted_string_ex(..., QUOTE_OMIT_LEADING_TRAILING_QUOTES, "<>")).
_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - set('"\\<>')


def escape_path(path: str) -> str:
    """A path (str from the kernel, surrogateescape) as strace prints it between ``<>``."""
    if all(c in _PLAIN for c in path):
        return path
    raw = path.encode("utf-8", "surrogateescape")
    out = []
    text = quote(raw)[1:-1]
    i = 0
    while i < len(text):          # < and > in octal, three digits before an octal digit
        c = text[i]
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if c in "<>":
            nxt = text[i + 1:i + 2]
            code = ord(c)
            out.append(f"\\{code:03o}" if nxt and nxt in "01234567" else f"\\{code:o}")
        else:
            out.append(c)
        i += 1
    return "".join(out)


class FdCache:
    """fd -> target per tgid and the working directory, kept by the event stream and
    filled from /proc on a miss (module docstring).

    Args:
      proc: the procfs root (tests pass a fake tree).
      max_processes: processes kept; when more are seen, the whole cache is dropped
        (a cheap bound; entries are refilled from /proc on demand).
      facts: where everything the events do not say is read: fd targets on a miss,
        working directories, an open's path with symlinks resolved, socket protocols and
        sock_diag descriptions, device numbers (a
        :class:`~tracekit.kernel.facts.FactReader`). A trace passes its facts reader,
        which a recording fills and a replay answers from; default the running system
        under ``proc`` (:class:`~tracekit.kernel.facts.LiveFacts`).
      realpath: overrides ``facts.realpath`` (tests pass the identity).
      read_link: overrides ``facts.fd_link``: ``(tgid, fd) -> target or None``.
      read_cwd: overrides ``facts.cwd``: ``tgid -> working directory or None``.

    Attributes:
      misses: lookups that read /proc.
      hits: lookups answered from the cache.
      details: True (strace -yy): :meth:`text` describes sockets (``<TCP:[...]>``) and
        devices (``</dev/null<char 1:3>>``); False (strace -y): the link's text only
        (``<socket:[6789]>``, ``</dev/null>``). Setting it sets both of:
      sockets: sockets described (strace ``-e decode-fds=socket``).
      devices: devices described (strace ``-e decode-fds=dev``).
      paths: other fds (files, pipes, ``socket:[N]`` when sockets are not described,
        a device when devices are not) and ``AT_FDCWD`` shown by their path (strace
        ``-e decode-fds=path``, part of ``-y``); False: only what :attr:`sockets` and
        :attr:`devices` describe is shown, the rest is None (printed bare).
    """

    def __init__(self, proc: str = "/proc", *, max_processes: int = 65536,
                 facts: FactReader | None = None,
                 realpath: Callable[[str], str] | None = None,
                 read_link: Callable[[int, int], str | None] | None = None,
                 read_cwd: Callable[[int], str | None] | None = None) -> None:
        self.proc = proc
        self.max_processes = max_processes
        self.misses = 0
        self.hits = 0
        self._tables: dict[int, dict[int, str | None]] = {}
        self._cwd: dict[int, str | None] = {}
        self._stash: dict[int, dict[int, str | None]] = {}      # exec'd, FdExec pending
        # processes whose table holds every fd they have (seeded from an FdSnapshot, or
        # forked from one that did): an fd not in it is closed, /proc need not be asked
        self._whole: set[int] = set()
        # processes whose fds are known since their exec: bit n set when fd n was open
        # after it (FdExec) or was made since; a clear bit is a closed fd, which
        # known_text then need not read from /proc (where a later fd of that number may
        # be open by the time the call that named the closed one is decoded). Calls
        # that make fds without returning them (ioctl TIOCGPTPEER, bpf, clone's pidfd)
        # leave bits clear, so only the lookups of known_text believe it
        self._since_exec: dict[int, int] = {}
        self._pending: dict[tuple[int, int], FdTargets] = {}    # (tid, ts_ns) -> targets
        self._socks: dict[int, str] = {}        # inode -> strace -yy text
        self._stale: set[int] = set()           # inodes whose text must be asked again
        # inodes described by a call's record (learn): strace caches the first sock_diag
        # answer for an inode and prints it from then on, whatever the socket does later
        self._described: set[int] = set()
        self._proto: dict[int, str] = {}        # inode -> protocol name (sockprotoname)
        self._texts: dict[str, str] = {}        # target -> decoration (not sockets)
        self._real: dict[str, str] = {}
        # an absolute path's captured bytes -> _real's answer for it (emptied with _real)
        self._abs: dict[bytes, str] = {}
        self._sockets = self._devices = self._paths = True
        if facts is None:
            facts = LiveFacts(proc, quote=quote).reader("fdcache")
        self._facts = facts
        self._realpath = realpath or facts.realpath
        self._read = read_link or facts.fd_link
        self._read_cwd = read_cwd or facts.cwd

    @property
    def details(self) -> bool:
        return self._sockets and self._devices

    @details.setter
    def details(self, on: bool) -> None:
        self._sockets = self._devices = on
        self._texts.clear()

    @property
    def sockets(self) -> bool:
        return self._sockets

    @sockets.setter
    def sockets(self, on: bool) -> None:
        self._sockets = on

    @property
    def paths(self) -> bool:
        return self._paths

    @paths.setter
    def paths(self, on: bool) -> None:
        self._paths = on
        self._texts.clear()

    @property
    def devices(self) -> bool:
        return self._devices

    @devices.setter
    def devices(self, on: bool) -> None:
        self._devices = on
        self._texts.clear()

    # -- lookups ----------------------------------------------------------------------

    def get(self, tgid: int, fd: int) -> str | None:
        """The target of ``fd`` in process ``tgid``, or None when unknown.

        Raises:
          TracefsError: /proc could not be read for a reason other than the fd or the
            process being gone.
        """
        table = self._tables.get(tgid)
        if table is None:
            if len(self._tables) >= self.max_processes:
                self._drop_all()
            table = self._tables[tgid] = {}
        elif fd in table:
            self.hits += 1
            return table[fd]
        self.misses += 1
        target = self._read(tgid, fd)
        if target is not None:
            ino = socket_inode(target)
            if ino is not None and ino not in self._proto:
                proto = self._facts.sock_proto(tgid, fd)
                if proto is not None:
                    self._proto[ino] = proto
        table[fd] = target
        return target

    def peek(self, tgid: int, fd: int) -> str | None:
        """The cached target of ``fd``, None when unknown or not cached (reads no /proc)."""
        table = self._tables.get(tgid)
        return None if table is None else table.get(fd)

    def pidfd_owner(self, tgid: int, pidfd: int) -> int | None:
        """The process pidfd ``pidfd`` of ``tgid`` refers to, when it is a pidfd the
        table knows (``pid:1234``, from pidfd_open)."""
        owner = self.peek(tgid, pidfd) if pidfd >= 0 else None
        if owner is None or not owner.startswith("pid:") or not owner[4:].isdigit():
            return None
        return int(owner[4:])

    def pidfd_target(self, tgid: int, pidfd: int, fd: int) -> str | None:
        """The target of fd ``fd`` of the process pidfd ``pidfd`` (of ``tgid``) refers
        to, or None when unknown."""
        pid = self.pidfd_owner(tgid, pidfd)
        return None if pid is None or fd < 0 else self.get(pid, fd)

    def text(self, tgid: int, fd: int) -> str | None:
        """What strace -yy prints after ``fd`` (``</etc/passwd>``, ``<TCP:[...]>``,
        ``</tmp/x>(deleted)``; strace -y's without :attr:`details`), or None when the
        target is unknown. ``AT_FDCWD`` gives
        the working directory's (``</home/u>``)."""
        return self._text_of(self.cwd(tgid) if fd == AT_FDCWD else self.get(tgid, fd))

    def known_text(self, tgid: int, fd: int) -> str | None:
        """:meth:`text` of ``fd`` as the table has it before the call that names it:
        when the table holds every fd of the process, an fd not in it was closed (None;
        /proc, read later, may show what the call made of it); otherwise /proc is read as
        :meth:`text` does."""
        if tgid in self._whole:
            return self._text_of(self.peek(tgid, fd))
        if fd != AT_FDCWD and self.closed_since_exec(tgid, fd):
            return None
        return self.text(tgid, fd)

    def closed_since_exec(self, tgid: int, fd: int) -> bool:
        """Whether ``fd`` is closed as far as the calls since the process's exec tell
        (the FdExec's bitmap, the fds calls made since, those closed since): a call that
        names it can be printed without /proc, where a later fd of that number may be
        open by the time the call is decoded. False when not known."""
        if fd in self._tables.get(tgid, ()):
            return False
        bits = self._since_exec.get(tgid)
        return bits is not None and not (fd >= 0 and bits >> fd & 1)

    def _text_of(self, target: str | None) -> str | None:
        if target is None:
            return None
        if self._sockets:
            ino = socket_inode(target)
            if ino is not None:
                return f"<{self._socket_text(ino)}>"
        got = self._texts.get(target)
        if got is None:
            if len(self._texts) >= _MEMO_MAX:
                self._texts.clear()
            got = _decoration(target, self._facts.device if self._devices else _no_device)
            if not self._paths and not (self._devices
                                        and got != _decoration(target, _no_device)):
                got = ""                # strace -e decode-fds=socket: a file prints bare
            self._texts[target] = got
        return got or None

    def still(self, tgid: int, fds: tuple[tuple[int, str | None], ...]) -> bool:
        """Whether each ``(fd, text)`` is what :meth:`text` gives now, unknown (None)
        included, without reading /proc (an fd not in the table is not "still").

        When true, counts a hit for each (the lookups it stands for); when false, counts
        nothing and changes nothing.
        """
        table = self._tables.get(tgid)
        if table is None:
            return False
        cwd, texts = self._cwd, self._texts
        for fd, text in fds:
            if fd == AT_FDCWD:
                if tgid not in cwd:
                    return False
                target = cwd[tgid]
            elif fd in table:
                target = table[fd]
            else:
                return False
            # the memo first: it holds every target seen but sockets (whose text changes)
            got = texts.get(target) if target is not None else None
            got = self._text_of(target) if got is None else got or None
            if got != text:
                return False
        self.hits += len(fds)
        return True

    def cwd(self, tgid: int) -> str | None:
        """The working directory of ``tgid`` (followed through chdir/fchdir; read from
        ``/proc/<tgid>/cwd`` on first need), or None when unknown."""
        if tgid not in self._cwd:
            self._cwd[tgid] = self._read_cwd(tgid)   # None: gone, or not ours to read
        return self._cwd[tgid]

    # -- changes ----------------------------------------------------------------------

    def set(self, tgid: int, fd: int, target: str | None) -> None:
        """Record that ``fd`` now refers to ``target`` (None: known to be unknown)."""
        table = self._tables.get(tgid)
        if table is None:
            table = self._tables[tgid] = {}
        table[fd] = target
        self._made(tgid, fd)

    def forget(self, tgid: int, fd: int) -> None:
        """Drop one entry (an fd returned by a call whose target is not known)."""
        table = self._tables.get(tgid)
        if table is not None:
            table.pop(fd, None)
        self._made(tgid, fd)

    def closed(self, tgid: int, fd: int) -> None:
        """``fd`` was closed (close(2)): its entry goes, and a process whose fds are
        known since its exec knows it closed."""
        table = self._tables.get(tgid)
        if table is not None:
            table.pop(fd, None)
        bits = self._since_exec.get(tgid)
        if bits is not None and fd >= 0:
            self._since_exec[tgid] = bits & ~(1 << fd)

    def _made(self, tgid: int, fd: int) -> None:
        bits = self._since_exec.get(tgid)
        if bits is not None and fd >= 0:
            self._since_exec[tgid] = bits | 1 << fd

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
        self._made(tgid, new)

    def forget_range(self, tgid: int, first: int, last: int) -> None:
        """Drop the entries of fds ``first`` to ``last`` (close_range(2)); the others stay."""
        table = self._tables.get(tgid)
        if table is not None:
            for fd in [fd for fd in table if first <= fd <= last]:
                del table[fd]
        bits = self._since_exec.get(tgid)
        if bits is not None and first <= last:
            top = min(last, bits.bit_length())
            self._since_exec[tgid] = bits & ~(((1 << (top + 1)) - 1) ^ ((1 << first) - 1))

    def copy_process(self, parent: int, child: int) -> None:
        """``child`` starts with what ``parent``'s table holds (fork without CLONE_FILES
        copies the fd table: kernel/fork.c copy_files), and its working directory (read
        from /proc for a parent not seen before, such as one that a system-wide or
        cgroup trace meets first at this fork). A working directory that stays unknown
        is not copied: the child's own is read from /proc on first need."""
        if parent == child:
            return
        table = self._tables.get(parent)
        if table is not None:
            self._tables[child] = dict(table)
        bits = self._since_exec.get(parent)
        if bits is not None and table is not None:
            self._since_exec[child] = bits
        else:
            self._since_exec.pop(child, None)
        if parent in self._whole and table is not None:
            self._whole.add(child)
        else:
            self._whole.discard(child)
        cwd = self.cwd(parent)
        if cwd is not None:
            self._cwd[child] = cwd
        else:
            self._cwd.pop(child, None)

    def forget_process(self, tgid: int) -> None:
        """Drop a process's table, working directory and exec state (its exit)."""
        self._tables.pop(tgid, None)
        self._cwd.pop(tgid, None)
        self._stash.pop(tgid, None)
        self._whole.discard(tgid)
        self._since_exec.pop(tgid, None)

    def set_cwd(self, tgid: int, path: str | None) -> None:
        """The working directory is now ``path`` (None: read /proc on the next need)."""
        if path is None:
            self._cwd.pop(tgid, None)
        else:
            self._cwd[tgid] = path

    def exec(self, tgid: int) -> None:
        """``tgid`` exec'd: its close-on-exec fds are gone, which the FdExec that
        follows says; until then (and for ever without one) the table is empty."""
        self._stash[tgid] = self._tables.pop(tgid, {})
        self._since_exec.pop(tgid, None)

    def exec_fds(self, tgid: int, open_fds: int, nbits: int) -> None:
        """Keep of the table the exec left only the fds open after it (bit n of
        ``open_fds``, n < ``nbits``)."""
        base = self._stash.pop(tgid, None)
        if base is None:
            base = self._tables.get(tgid, {})
        kept: dict[int, str | None] = {fd: t for fd, t in base.items()
                                       if 0 <= fd < nbits and open_fds >> fd & 1}
        made = self._tables.get(tgid, {})
        kept.update(made)
        self._tables[tgid] = kept
        # fds below nbits are open as the bits say; none at or above it is (nbits is the
        # size of the fd table); the calls decoded since the exec add theirs
        bits = open_fds & ((1 << nbits) - 1)
        for fd in made:
            if fd >= 0:
                bits |= 1 << fd
        self._since_exec[tgid] = bits

    def seed(self, snap: FdSnapshot) -> None:
        """A process's whole table and working directory, read at once (FdSnapshot)."""
        self._tables[snap.tgid] = dict(snap.fds)
        self._whole.add(snap.tgid)
        self._since_exec.pop(snap.tgid, None)
        if snap.cwd is not None:
            self._cwd[snap.tgid] = snap.cwd
        self._learn_sockets(snap.sockets)

    def expect(self, targets: FdTargets) -> None:
        """What the fds of the call ``targets`` names are: applied with that call."""
        pending = self._pending
        if len(pending) >= _PENDING_MAX:
            del pending[next(iter(pending))]        # the oldest: its call never came
        pending[(targets.tid, targets.ts_ns)] = targets

    def observe(self, ev: Event) -> None:
        """Apply an event that is not a call (module docstring); others are ignored."""
        if isinstance(ev, FdTargets):
            self.expect(ev)
        elif isinstance(ev, Fork):
            self.copy_process(ev.parent_tgid, ev.child_tgid)
        elif isinstance(ev, Exec):
            self.exec(ev.tid)
        elif isinstance(ev, FdExec):
            if ev.nbits:
                self.exec_fds(ev.tgid, ev.open_fds, ev.nbits)
            else:
                self._stash.pop(ev.tgid, None)
        elif isinstance(ev, FdSnapshot):
            self.seed(ev)
        elif isinstance(ev, Exit) and ev.group_dead:
            self.forget_process(ev.tgid)

    def apply_call(self, ev: Syscall, name: str, *, ret_fd: bool, dupfd: bool = False,
                   path_arg: int = 1) -> None:
        """Keep the table true after call ``ev`` named ``name`` (module docstring).

        Args:
          ret_fd: the call returns an fd (its argspec says ``-> fd``).
          dupfd: an fcntl whose command is F_DUPFD or F_DUPFD_CLOEXEC.
          path_arg: the argument that holds an open's path.
        """
        tgid, ret = ev.tgid, ev.ret
        pending = self._pending.pop((ev.tid, ev.ts_ns), None) if self._pending else None
        if name == "close":
            self.closed(tgid, signed(ev.args[0], 32))
            return
        if ret < 0:
            return
        if name in _FD_INSTALLERS:
            self._since_exec.pop(tgid, None)    # misses read /proc again
            return
        if name in _UNLINKS:
            self._unlinked(ev, _UNLINKS[name])
            return
        if pending is not None:
            self._learn_sockets(pending.sockets)
        if name in _OPENS:
            target = self._open_target(ev, path_arg)
            if target is None and pending is not None:
                target = dict(pending.fds).get(ret)
            if target is None:
                self.forget(tgid, ret)
            else:
                self.set(tgid, ret, target)
        elif name in _DUP2:
            self.dup(tgid, signed(ev.args[0], 32), signed(ev.args[1], 32))
        elif name == "dup" or dupfd:
            self.dup(tgid, signed(ev.args[0], 32), ret)
        elif name == "close_range":
            if not ev.args[2] & _CLOSE_RANGE_CLOEXEC:
                self.forget_range(tgid, ev.args[0] & 0xFFFFFFFF, ev.args[1] & 0xFFFFFFFF)
        elif name == "chdir" or name == "fchdir":
            self._chdir(ev, name)
        elif name in _FD_PAIRS:
            pair = _pair(ev, _FD_PAIRS[name])
            for fd in pair:
                self._new_fd(tgid, fd, pending,
                             "socket:[" if name == "socketpair" else "pipe:[")
            if name != "socketpair" and len(pair) == 2:
                self._pipe_ends(tgid, pair)
        elif name == "pidfd_open":
            # strace -yy shows a pidfd's process (fdinfo's Pid:), ``3<pid:1234>``
            self.set(tgid, ret, f"pid:{signed(ev.args[0], 32)}")
        elif name == "pidfd_getfd":
            # a copy of the fd of the process the pidfd refers to
            src = self.pidfd_target(tgid, signed(ev.args[0], 32), signed(ev.args[1], 32))
            if src is None:
                self._new_fd(tgid, ret, pending)
            else:
                self.set(tgid, ret, src)
        elif name == "memfd_create":
            # /proc shows a memfd as its name under /memfd:, always unlinked
            mname = capture(ev, 0, whole=True)
            if mname is None:
                self._new_fd(tgid, ret, pending)
            else:
                self.set(tgid, ret, "/memfd:" + mname.data.decode("utf-8", "surrogateescape")
                         + " (deleted)")
        elif name == "mq_open":
            # a queue's fd is its name in the mqueue file system, ``/name``
            qname = capture(ev, 0, whole=True)
            if qname is None:
                self._new_fd(tgid, ret, pending)
            else:
                self.set(tgid, ret, "/" + qname.data.decode("utf-8", "surrogateescape"))
        elif name == "seccomp":
            # SECCOMP_SET_MODE_FILTER with SECCOMP_FILTER_FLAG_NEW_LISTENER returns the
            # listener's fd (kernel/seccomp.c: init_listener's anon inode); otherwise 0,
            # or a thread's id when SECCOMP_FILTER_FLAG_TSYNC fails, which never comes
            # with NEW_LISTENER (seccomp_set_mode_filter refuses the two together)
            if ev.args[0] & 0xFFFFFFFF == _SECCOMP_SET_MODE_FILTER and \
                    ev.args[1] & _SECCOMP_FILTER_FLAG_NEW_LISTENER and ret > 0:
                self.set(tgid, ret, "anon_inode:seccomp notify")
        elif ret_fd:
            if not self._anon_fd(ev, name):
                self._new_fd(tgid, ret, pending, _NEW_KIND.get(name))
        if name in _SOCKET_STATE and (pending is None or not pending.sockets):
            target = self._tables.get(tgid, {}).get(signed(ev.args[0], 32))
            ino = socket_inode(target) if target else None
            if ino is not None:
                self._stale.add(ino)            # ask sock_diag again on the next use

    def apply_close(self, ev: Syscall) -> None:
        """:meth:`apply_call` for a ``close``, the bulk of a busy trace's fd changes."""
        if self._pending:
            self.apply_call(ev, "close", ret_fd=False)
            return
        fd = ev.args[0] & 0xFFFF_FFFF
        self.closed(ev.tgid, fd - (1 << 32) if fd & 0x8000_0000 else fd)

    def apply_open(self, ev: Syscall, name: str, path_arg: int) -> None:
        """:meth:`apply_call` for a call ``name`` of :data:`_OPENS` (``path_arg``: the
        argument holding its path). An absolute path whole in its capture is looked up by its bytes
        (the answer :meth:`_resolve` gave for it); any other open as apply_call does."""
        ret = ev.ret
        if self._pending or ret < 0:
            if self._pending:
                self.apply_call(ev, name, ret_fd=True, path_arg=path_arg)
            return
        cap = capture(ev, path_arg, whole=True)
        data = cap.data if cap is not None else None
        target = self._abs.get(data) if data else None
        if target is None:
            if not data or data[0] != 0x2F:         # not "/...": apply_call's way
                self.apply_call(ev, name, ret_fd=True, path_arg=path_arg)
                return
            path = data.decode("utf-8", "surrogateescape")
            own = _own_proc(path, ev.tgid, ev.tid)
            target = self._resolve(own)
            if own is path:
                self._abs[data] = target        # not /proc/self: the same for all
        table = self._tables.get(ev.tgid)
        if table is None:
            table = self._tables[ev.tgid] = {}
        table[ret] = target
        if self._since_exec:
            self._made(ev.tgid, ret)

    def learn(self, ev: Syscall, *, at_exit: bool) -> bool:
        """Apply what the call's fds were when it entered (``at_exit`` False: before its
        arguments are printed) or returned (after the fd table changes it made), as the
        kernel read them in the call (``CAP_FD`` captures): a pipe's or socket's inode,
        and the socket's strace -yy text. These hold even for an fd closed, or a process
        gone, before the record arrived. Returns whether the record had any.

        A socket's first description (an address, a peer, a name: what sock_diag would
        have answered) is kept for good, as strace 6.1 keeps the first answer it got
        for an inode (src/socketutils.c caches it): a socket bound, then connected,
        prints its bound address alone from then on."""
        if not any(c.kind == CAP_FD for c in ev.caps):
            return False
        tgid = ev.tgid
        for d in fd_descs(ev.caps):
            if d.at_exit != at_exit:
                continue
            kind = d.mode & _S_IFMT
            if kind == _S_IFIFO:
                self.set(tgid, d.fd, f"pipe:[{d.ino}]")
            elif kind == _S_IFSOCK and d.proto:
                ino = d.ino
                self.set(tgid, d.fd, f"socket:[{ino}]")
                self._proto[ino] = d.proto
                text = desc_text(d, quote)
                if text is None:
                    continue                # a protocol only sock_diag describes
                self._stale.discard(ino)
                if ino in self._described:
                    continue                # strace keeps its first description
                if len(self._socks) >= _MEMO_MAX:
                    self._socks.clear()
                    self._described.clear()
                self._socks[ino] = text
                if text != fallback(ino, d.proto):
                    self._described.add(ino)
                if d.peer_ino and d.proto.startswith("UNIX"):
                    self._peer_back(d.peer_ino, ino)
        return True

    def _peer_back(self, peer: int, ino: int) -> None:
        """A connected unix socket ``ino`` names its ``peer``: the peer's peer is ``ino``
        (unix stream sockets are joined in pairs, net/unix/af_unix.c). A connecting
        socket's peer has no inode until it is accepted, so the kernel could not name
        it when the connect returned; the accepted socket's description names the
        connecting one, which from then on prints ``UNIX-STREAM:[peer->ino]`` as
        strace's sock_diag query at its next use shows it (when nothing described it
        before: strace keeps a first description)."""
        proto = self._proto.get(peer)
        if peer in self._described or proto is None or not proto.startswith("UNIX"):
            return
        if self._socks.get(peer, fallback(peer, proto)) != fallback(peer, proto):
            return
        self._socks[peer] = f"{proto}:[{peer}->{ino}]"
        self._described.add(peer)
        self._stale.discard(peer)

    # -- inside -----------------------------------------------------------------------

    def _new_fd(self, tgid: int, fd: int, pending: FdTargets | None,
                kind: str | None = None) -> None:
        """``fd`` is new: what /proc showed when its record arrived, when that is of
        the ``kind`` (a prefix) the call makes; a target of another kind is a later
        fd of the same number (the process closed the call's fd and reused it before
        its record arrived), and is dropped."""
        target = dict(pending.fds).get(fd) if pending is not None else None
        if target is not None and kind is not None and not target.startswith(kind):
            target = None
        if target is None:
            self.forget(tgid, fd)
        else:
            self.set(tgid, fd, target)

    def _pipe_ends(self, tgid: int, pair: tuple[int, ...]) -> None:
        """Both ends of a pipe are one inode (``pipe:[N]``): an end /proc could not show
        (closed before its record arrived, as a shell closes the end it gave a child)
        is what the other end is."""
        table = self._tables.get(tgid, {})
        a, b = (table.get(fd) for fd in pair)
        if (a is None) != (b is None):
            known = a if a is not None else b
            if known is not None and known.startswith("pipe:["):
                for fd in pair:
                    table[fd] = known

    def _anon_fd(self, ev: Syscall, name: str) -> bool:
        """Whether ``name`` always makes an anonymous inode of one name
        (:data:`_ANON_TARGETS`), then recorded as the new fd's target: what /proc shows
        while the fd is open, known without /proc (the process may have closed it, or
        ended, before its record arrived); bpf's by its command. True too when the call
        made no fd (signalfd with an fd of its own changes that fd, keeping its target;
        a bpf command that returns none): the table stays as it is."""
        if name == "bpf":
            # by command: a map, a program, BTF, a link; a pinned object's is not known
            cmd = ev.args[0] & 0xFFFFFFFF
            if cmd not in BPF_FD_TARGETS:
                return True             # no fd made: the table is as it was
            target = BPF_FD_TARGETS[cmd]
            if target is None:
                return False
            self.set(ev.tgid, ev.ret, target)
            return True
        target = _ANON_TARGETS.get(name)
        if target is None:
            return False
        if name in ("signalfd", "signalfd4") and signed(ev.args[0], 32) != -1:
            return True                 # the fd it was given, changed: the same target
        self.set(ev.tgid, ev.ret, target)
        return True

    def _open_target(self, ev: Syscall, path_arg: int, *, last_as_is: bool = False
                     ) -> str | None:
        """An open's path as /proc would show it: joined to the working directory or to
        the dirfd's target, symlinks resolved (``last_as_is``: but in its last part, the
        name an unlink removed); None when the path was not captured whole or its base
        is not a known directory."""
        cap = capture(ev, path_arg, whole=True)
        if cap is None or not cap.data:
            return None
        path = cap.data.decode("utf-8", "surrogateescape")
        if path[0] != "/":
            if path_arg == 0 or signed(ev.args[0], 32) == AT_FDCWD:
                base = self.cwd(ev.tgid)
            else:
                base = self.get(ev.tgid, signed(ev.args[0], 32))
            if not base or base[0] != "/":
                return None
            path = base.rstrip("/") + "/" + path
        path = _own_proc(path, ev.tgid, ev.tid)
        if last_as_is:
            head, _, last = path.rstrip("/").rpartition("/")
            if last in ("", ".", ".."):
                return None
            return self._resolve(head or "/").rstrip("/") + "/" + last
        return self._resolve(path)

    def _unlinked(self, ev: Syscall, path_arg: int) -> None:
        """A name was removed: every fd open on it, in every process, names it
        ``PATH (deleted)`` from now on, as /proc/PID/fd does (the name resolved as an
        open's, its last part as written: a symlink removed is not the file it named)."""
        path = self._open_target(ev, path_arg, last_as_is=True)
        if not path or path[0] != "/":
            return
        gone = path + " (deleted)"
        for table in self._tables.values():
            if path in table.values():
                for fd, target in table.items():
                    if target == path:
                        table[fd] = gone

    def _resolve(self, path: str) -> str:
        got = self._real.get(path)
        if got is None:
            if len(self._real) >= _MEMO_MAX:
                self._real.clear()
                self._abs.clear()
            got = self._real[path] = self._realpath(path)
        return got

    def _chdir(self, ev: Syscall, name: str) -> None:
        if name == "fchdir":
            target = self.get(ev.tgid, signed(ev.args[0], 32))
            self.set_cwd(ev.tgid, target if target and target[0] == "/" else None)
            return
        cap = capture(ev, 0, whole=True)
        data = cap.data if cap is not None else None
        if not data:
            self.set_cwd(ev.tgid, None)          # read /proc on the next need
            return
        path = data.decode("utf-8", "surrogateescape")
        if path[0] != "/":
            base = self._cwd.get(ev.tgid)
            if not base:
                self.set_cwd(ev.tgid, None)
                return
            path = base.rstrip("/") + "/" + path
        self.set_cwd(ev.tgid, self._resolve(_own_proc(path, ev.tgid, ev.tid)))

    def _learn_sockets(self, sockets: tuple[tuple[int, str], ...]) -> None:
        if len(self._socks) >= _MEMO_MAX:
            self._socks.clear()
        for ino, text in sockets:
            self._socks[ino] = text
            self._stale.discard(ino)
            head = text.split(":[", 1)[0]
            if head != "socket":
                self._proto[ino] = head

    def _socket_text(self, ino: int) -> str:
        text = self._socks.get(ino)
        if ino in self._stale:
            self._stale.discard(ino)
            self._facts.refresh_sockets()   # changed since the dump sock_diag gave
        elif text is not None:
            return text
        proto = self._proto.get(ino)
        got = self._facts.socket(ino, proto)
        if got is None:
            got = text if text is not None else fallback(ino, proto)
        if len(self._socks) >= _MEMO_MAX:
            self._socks.clear()
        self._socks[ino] = got
        return got

    def refresh_sockets(self) -> None:
        """Ask sock_diag again for every socket on its next use."""
        self._stale.update(self._socks)
        self._facts.refresh_sockets()

    def _drop_all(self) -> None:
        self._tables.clear()
        self._whole.clear()
        self._cwd.clear()
        self._stash.clear()
        self._since_exec.clear()

    def close(self) -> None:
        """Close the facts reader's sock_diag socket (a later use opens it again)."""
        self._facts.close()

    def __len__(self) -> int:
        return sum(map(len, self._tables.values()))


def _pair(ev: Syscall, arg: int) -> tuple[int, ...]:
    """The two fds a pipe/pipe2/socketpair wrote (its int[2] captured at exit)."""
    for c in ev.caps:
        if c.arg == arg and len(c.data) >= 8 and not c.flags & CAPF_FAULT:
            return (int.from_bytes(c.data[0:4], "little", signed=True),
                    int.from_bytes(c.data[4:8], "little", signed=True))
    return ()


def _no_device(path: str) -> None:
    """strace -y: no device numbers."""
    return None


def _decoration(target: str, device: Callable[[str], str | None]) -> str:
    """``</etc/passwd>``, ``</dev/null<char 1:3>>`` (a device: strace -yy stats the
    path; ``device(path)`` gives ``char 1:3``), ``</tmp/x>(deleted)``, ``<pipe:[123]>``
    for a target that is not a socket."""
    if target[:1] != "/":
        return f"<{escape_path(target)}>"
    suffix = ""
    if target.endswith(" (deleted)"):
        target, suffix = target[:-10], "(deleted)"
    dev = ""
    if target.startswith("/dev/") and not suffix:
        got = device(target)
        if got is not None:
            dev = f"<{got}>"
    return f"<{escape_path(target)}{dev}>{suffix}"
