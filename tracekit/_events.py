"""Events: typed msgspec Structs decoded from ring-buffer records.

Record layouts mirror ``programs/syscalls.h``; keep in sync with that file.
All structs are little-endian native layouts of the running machine (x86_64, arm64).
"""

from __future__ import annotations

import struct
from typing import NamedTuple, Protocol, TypeAlias

import msgspec

from tracekit._errors import RecordError

# keep in sync with programs/syscalls.h
REC_SYSCALL, REC_FORK, REC_EXEC, REC_EXIT, REC_SIGNAL = 1, 2, 3, 4, 5
SC_NORETURN, SC_UNFINISHED, SC_RESUMED, SC_COMPAT = 1, 2, 4, 8
SC_ATTACHED = 16        # with SC_RESUMED: the args were read at exit (a call the task was in
                        # when tracing began), its captures too
SC_DETACHED = 64        # with SC_UNFINISHED: a call a thread was inside when tracing ended
                        # (made in user space at the end, never by the programs: the
                        # arguments from the thread's entry, ret 0; Session.calls_in_flight)
SIG_EXIT_ONLY = 1       # signal record flags: Signal.exit_only
SC_SKIPPED = 128        # with SC_RESUMED | SC_ATTACHED: the thread was traced when the call
                        # entered but its sys_enter never ran (a seccomp filter refused
                        # the call: kernel/entry/common.c syscall_trace_enter returns
                        # before the tracepoint); ts_ns is the exit time, duration_ns 0
SC_INDIRECT = 32        # with SC_COMPAT: an i386 socketcall or old select whose arguments
                        # were read from user memory: args are those words, and a
                        # socketcall's syscall_nr its sub-call's (tracekit.kernel.syscalls)
PID_PENDING_EXEC = 1
CNT_LOST, CNT_PIDS_FULL, CNT_SCRATCH_FULL, CNT_MAX = 0, 1, 2, 16
CNT_CAPBUF_FULL = 3                               # syscalls emitted without captures: capbuf full
CNT_SUMMARY_FULL = 4                              # summary mode: calls not counted: map full
CNT_ERRNO_FULL = 5                                # summary mode: errors not counted by errno
CNT_LOST_LIFECYCLE = 6                            # fork/exec/exit/signal records lost
# (CNT_LOST counts syscall records only)
EXIT_SUPERSEDED = 1             # tk_exit hdr.flags: a leader reaped by another thread's execve
EXIT_ALONE = 2                  # tk_exit hdr.flags: a thread seccomp killed, its group lives on
# the fd table (programs/syscalls.h "the fd table"): record kinds and counters
REC_FD_STATE, REC_FD_EXEC = 6, 7
CNT_FD_STATE, CNT_FD_LOST = 7, 8                  # fd-table records emitted / not reserved
FD_EXEC_WORDS = 16                                # TK_FD_EXEC_WORDS: fds 0..1023
CNT_STACK_FULL = 9                                # stacks: calls recorded without their stacks
REC_STACK = 8                                     # struct tk_stack: a syscall's stacks
STACK_USER, STACK_KERNEL = 1, 2                   # targ_stacks bits (TK_STACK_*)
STACK_IP = 4                                      # targ_stacks: the instruction pointer only
STACK_IP_ONLY = 1                                 # tk_stack hdr.flags: one frame, no top
STACK_TOP = 1024                                  # TK_STACK_TOP: bytes of user stack copied
ST_SUCCESSFUL, ST_FAILED, ST_UNFINISHED = 1, 2, 4   # targ_status bits (TK_ST_*)
ERRNO_MAX = 4095                                  # -4095..-1 is -errno (TK_ERRNO_MAX)

_HDR = struct.Struct("<IIQ")                      # kind, flags, ts_ns
_SYSCALL = struct.Struct("<IIQQIIIi6Qq16s")       # struct tk_syscall, 112 bytes
_FORK = struct.Struct("<IIQIIII")                 # struct tk_fork, 32 bytes
_EXEC = struct.Struct("<IIQII16s256s")            # struct tk_exec, 296 bytes
_EXIT = struct.Struct("<IIQIIiI16s")              # struct tk_exit up to comm, 48 bytes
_EXIT_TAIL = struct.Struct("<II")                 # exec_tid, _pad: bytes 48..55
_SIGNAL = struct.Struct("<IIQIIiIQ48s16s")        # struct tk_signal up to comm, 104 bytes
_SIGNAL_TAIL = struct.Struct("<Q")                # ip: bytes 104..111
_FD_EXEC = struct.Struct("<IIQIIII16Q")           # struct tk_fd_exec, 160 bytes
_STACK = struct.Struct(f"<IIQIIIIQQQII{STACK_TOP}s")  # struct tk_stack, 64 + STACK_TOP bytes
_STACK_IP_REC = struct.Struct("<IIQII40xQ")       # a STACK_IP_ONLY record: kind, flags,
                                                  # ts_ns, tid, tgid, the ip (72 bytes)
PID_KEY = struct.Struct("<I")                     # pids map key: __u32 tid
PID_INFO = struct.Struct("<QII")                  # struct tk_pid_info: start_time_ns, tgid, flags
_CAPS_HDR = struct.Struct("<II")                  # caps_len, ncaps (after the 112-byte record)
_CAP = struct.Struct("<BBHI")                     # struct tk_cap: arg, kind, flags, len
CAP_STR, CAP_BUF, CAP_STRUCT, CAP_ARGV = 1, 2, 3, 4
CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR = 5, 6, 7   # iovecs, msghdr, mmsghdr (struct tk_iov_elem)
CAP_COUNT = 8                         # records in the bytes a call wrote: one u32 count
CAP_FD = 9                            # what an fd is (struct tk_fd_desc each), from the kernel
CAP_ENVP = 10                         # execve's envp strings (strace -v): data as CAP_ARGV
CAP_ARG_FD = 0x40                     # CAP_FD captures: arg is CAP_ARG_FD | the fd argument
CAPF_TRUNC, CAPF_FAULT, CAPF_AT_EXIT, CAPF_ARGV_TRUNC = 1, 2, 4, 8
CAPF_ELEM_FAULT = 16                  # IOV/MSGHDR: the iovec array unreadable past the data
                                      # (DEREF: the pointed-to memory; IOCB: the pointer array)
CAP_IOCB = 12                         # io_submit's iocbs (struct tk_iocb_elem records)
CAPF_DEREF = 32                       # a SPEC_PTR_AT capture: tk_deref_head, then the bytes
                                      # its pointer points to (not the argument's own memory)
CAPF_PARTIAL = 64                     # with FAULT: the read faulted; Capture.readable holds
                                      # the bytes up to the end of its first page

assert (_SYSCALL.size, _FORK.size, _EXEC.size, _EXIT.size, _SIGNAL.size) == (112, 32, 296, 48,
                                                                       104)
assert _STACK.size == 64 + STACK_TOP


def _cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


class Capture(msgspec.Struct, frozen=True, gc=False):
    """User memory of one argument, read by the BPF program (``struct tk_cap``)."""

    arg: int            # argument index 0..5 (CAP_FD: CAP_ARG_FD | index)
    kind: int           # CAP_STR, CAP_BUF, CAP_STRUCT, CAP_ARGV, CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR,
                        # CAP_COUNT, CAP_FD, CAP_ENVP
    flags: int          # CAPF_* bits (TRUNC: data is a prefix; FAULT: unreadable)
    data: bytes         # STR: without NUL; ARGV, ENVP: NUL-terminated elements
    # FAULT|PARTIAL (BUF, STRUCT): what was readable of the memory, its first bytes up to
    # the end of a page (data is empty, as for any FAULT, so that no decoder takes them
    # for the whole; decoders that print partial memory as strace does read them here)
    readable: bytes = b""


_FD_DESC = struct.Struct("<iHBBQHHHHIIQ16s16s32s108sI")  # struct tk_fd_desc, 216 bytes
assert _FD_DESC.size == 216


class FdDesc(NamedTuple):
    """What an fd was in a call, read in the kernel (a ``CAP_FD`` capture:
    ``struct tk_fd_desc`` of programs/syscalls.h)."""

    fd: int
    mode: int           # the inode's i_mode (S_IFIFO, S_IFSOCK ...); 0: no file at fd
    at_exit: bool       # read when the call returned (else when it entered)
    state: int          # sockets: skc_state
    ino: int            # the inode number
    family: int         # sockets: AF_*; 0 for other files
    protocol: int       # sockets: sk_protocol
    sport: int          # inet: local port
    dport: int          # inet: peer's port
    portid: int         # netlink: port id (0: not bound)
    name: bytes         # unix: sun_path bound (abstract: a leading NUL); b"" when none
    peer_ino: int       # unix: the peer's inode (0: none)
    src: bytes          # inet: local address (16 bytes; AF_INET: the first 4)
    dst: bytes          # inet: peer address
    proto: str          # sockets: the protocol's name ("TCP", "UNIX-STREAM"); "" otherwise
    netns: int = 0      # sockets: the inode of their network namespace (0: not read)


def fd_descs(caps: tuple[Capture, ...]) -> list[FdDesc]:
    """The ``CAP_FD`` descriptions among a record's captures, in capture order."""
    out = []
    for c in caps:
        if c.kind != CAP_FD or c.flags & CAPF_FAULT:
            continue
        data = c.data
        for off in range(0, len(data) - _FD_DESC.size + 1, _FD_DESC.size):
            (fd, mode, at_exit, state, ino, family, protocol, sport, dport, portid,
             name_len, peer, src, dst, proto, name, netns) = _FD_DESC.unpack_from(data, off)
            out.append(FdDesc(fd, mode, bool(at_exit), state, ino, family, protocol, sport,
                              dport, portid, name[:min(name_len, 108)], peer, src, dst,
                              _cstr(proto), netns))
    return out


class Frame(msgspec.Struct, frozen=True, gc=False):
    """One frame of a syscall's stack (issue 18), innermost first.

    ``ip`` is the address itself (frame 0 of the user stack: the instruction after the
    ``syscall``; the others: return addresses). What names it, when something does:
    ``module`` (the mapped file's path as ``/proc/<pid>/maps`` shows it, ``[vdso]``,
    ``[kernel.kallsyms]`` or ``[name]`` of a kernel module; "" when no mapping holds the
    address), ``offset`` (the address's offset in that file: strace -k's ``[0x...]``;
    for kernel frames the address itself), ``symbol`` and ``symoff`` (the function holding
    the address and the address's offset in it; "" when no symbol holds it: never the
    nearest one before it). ``repeats``: how many more frames of the same address the
    frame-pointer walk gave after this one and were cut (a walk that seemed to loop;
    tracekit.decode.symbols), else 0.
    """

    ip: int
    kernel: bool = False
    module: str = ""
    offset: int = 0
    symbol: str = ""
    symoff: int = 0
    repeats: int = 0


class RawStack(NamedTuple):
    """A ``struct tk_stack`` record: what the BPF side took at a call's entry."""

    ts_ns: int                  # entry time of the call (its Syscall's ts_ns)
    tid: int
    tgid: int
    user: tuple[int, ...]       # frame-pointer walk: ip, then return addresses
    kernel: tuple[int, ...]     # kernel frames, innermost first
    sp: int                     # user registers at entry
    fp: int
    lr: int
    top: bytes                  # the user stack from sp (up to STACK_TOP bytes)


class StackJoin(Protocol):
    """What :func:`decode_batch` gives each stack record and the events a symbolizer
    follows (tracekit.decode.symbols.Symbolizer; :class:`PlainStacks` names nothing)."""

    def frames(self, raw: RawStack) -> tuple[Frame, ...]:
        """The frames of one stack, named as far as they can be."""
        ...

    def exec(self, ev: Exec) -> None:
        """A process exec'd: its mappings are new."""
        ...

    def mapped(self, ev: Syscall) -> None:
        """A traced mmap/munmap/mprotect/brk-like call (see :attr:`map_nrs`)."""
        ...

    def forked(self, ev: Fork) -> None:
        """A traced task made a task: a new process has its parent's mappings."""
        ...

    def exited(self, ev: Exit) -> None:
        """A traced task ended; with ``group_dead`` its process is gone (its records
        came before this one, in the ring buffer's order): what was kept for it can go."""
        ...

    map_nrs: frozenset[int]


class PlainStacks:
    """A :class:`StackJoin` that names nothing: each frame is its address (a replay)."""

    map_nrs: frozenset[int] = frozenset()

    def frames(self, raw: RawStack) -> tuple[Frame, ...]:
        return (tuple(Frame(ip, kernel=True) for ip in raw.kernel)
                + tuple(Frame(ip) for ip in raw.user))

    def exec(self, ev: Exec) -> None:
        return None

    def mapped(self, ev: Syscall) -> None:
        return None

    def forked(self, ev: Fork) -> None:
        return None

    def exited(self, ev: Exit) -> None:
        return None


class Decoded(msgspec.Struct, frozen=True, gc=False):
    """A syscall as strace prints it, added by the beautify stage."""

    name: str                   # "openat"; i386 names for compat calls; "syscall_0x3e8" if unknown
    args: tuple[str, ...]       # each argument as strace prints it
    ret: str                    # "3", "-1 ENOENT (No such file or directory)", "?"


class Syscall(msgspec.Struct, frozen=True, gc=False, tag="syscall"):
    """One completed syscall (``struct tk_syscall``)."""

    ts_ns: int          # entry time, bpf_ktime_get_ns() (CLOCK_MONOTONIC); 0 if RESUMED
                        # (SKIPPED: the exit time)
    duration_ns: int    # exit - entry in ns; 0 when unknown (see flags)
    tid: int            # thread id (kernel "pid"), init pid namespace
    tgid: int           # process id (user "pid"), init pid namespace
    cpu: int            # CPU at exit
    syscall_nr: int     # number in the native table (i386 table when COMPAT)
    args: tuple[int, int, int, int, int, int]  # raw argument registers at entry
    ret: int            # raw return value; -4095 <= ret < 0 is -errno
    comm: str           # task comm at exit (up to 15 bytes)
    flags: int = 0      # SC_* bits
    caps: tuple[Capture, ...] = ()   # captured user memory (strings, buffers, structs)
    decoded: Decoded | None = None   # set by the beautify stage
    stack: tuple[Frame, ...] = ()    # stacks at entry (issue 18): kernel frames, then user
    ip: int = 0         # user instruction pointer at entry, after the syscall instruction
                        # (strace -i; with stacks); 0: not recorded

    @property
    def noreturn(self) -> bool:
        return bool(self.flags & SC_NORETURN)

    @property
    def unfinished(self) -> bool:
        return bool(self.flags & SC_UNFINISHED)

    @property
    def resumed(self) -> bool:
        return bool(self.flags & SC_RESUMED)

    @property
    def detached(self) -> bool:
        return bool(self.flags & SC_DETACHED)

    @property
    def errno(self) -> int:
        """The errno of a failed call (positive), else 0."""
        if self.flags & (SC_NORETURN | SC_UNFINISHED) or not -4095 <= self.ret < 0:
            return 0
        return -self.ret


class Fork(msgspec.Struct, frozen=True, gc=False, tag="fork"):
    """A traced thread created a task (``struct tk_fork``)."""

    ts_ns: int
    parent_tid: int
    parent_tgid: int
    child_tid: int
    child_tgid: int


class Exec(msgspec.Struct, frozen=True, gc=False, tag="exec"):
    """A traced task exec'd (``struct tk_exec``); old_tid != tid when a non-leader thread did."""

    ts_ns: int
    tid: int
    old_tid: int
    comm: str
    filename: str


class Exit(msgspec.Struct, frozen=True, gc=False, tag="exit"):
    """A traced task exited (``struct tk_exit``).

    ``superseded_by`` is not 0 when the task was a thread group leader that the execve
    of another of its threads reaped (fs/exec.c de_thread): it is that thread's tid
    before the exec, after which the thread goes on under this tid (strace: ``+++
    superseded by execve in pid N +++``).

    ``alone`` is True for a thread seccomp killed at a call's entry while its group lives
    on (kernel/seccomp.c: ``SECCOMP_RET_KILL_THREAD``, strict mode): not a group's death,
    so wait(2) reports it at once.
    """

    ts_ns: int
    tid: int
    tgid: int
    exit_code: int      # wait(2) status layout: (code << 8) | termsig
    group_dead: bool
    comm: str
    superseded_by: int = 0   # the exec'ing thread's old tid (init pid namespace), or 0
    alone: bool = False      # killed alone by seccomp (the docstring), its group lives on


class Signal(msgspec.Struct, frozen=True, gc=False, tag="signal"):
    """A traced thread dequeued a signal to act on it (``struct tk_signal``).

    From the kernel's ``signal_deliver`` tracepoint, where strace shows its
    ``--- SIGxxx {...} ---`` line. ``info`` is the first 48 bytes of ``struct
    kernel_siginfo``: the uapi siginfo layout (include/uapi/asm-generic/siginfo.h),
    decoded by :mod:`tracekit.decode.signals`.
    """

    ts_ns: int
    tid: int
    tgid: int
    sig: int            # signal number
    sa_handler: int     # disposition: 0 SIG_DFL, 1 SIG_IGN, else the handler address
    info: bytes         # 48 bytes of siginfo
    comm: str
    # the kernel forced it to end the task (a seccomp SECCOMP_RET_KILL_*: SA_IMMUTABLE,
    # kernel/signal.c force_sig_seccomp): no ptracer ever stops for it, strace shows
    # only the task's "+++ killed by" line
    exit_only: bool = False
    ip: int = 0         # user instruction pointer where the thread takes it (strace -i);
                        # 0: not known (a record of an older object)


class FdState(msgspec.Struct, frozen=True, gc=False, tag="fd_state"):
    """A call that the selection hides but that changed the fd table or the working
    directory (record kind ``TK_REC_FD_STATE``): the fd caches apply it; it is not a
    call of the trace (no output prints it, no summary counts it)."""

    ts_ns: int          # the call's entry time (as ``call.ts_ns``)
    call: Syscall       # the call as a syscall record would carry it (captures included)


class FdExec(msgspec.Struct, frozen=True, gc=False, tag="fd_exec"):
    """The fds a traced process has right after an exec (``struct tk_fd_exec``):
    close-on-exec fds are gone. Comes after the process's :class:`Exec` record."""

    ts_ns: int
    tid: int            # after the exec (== tgid)
    tgid: int
    open_fds: int       # bit n: fd n is open (n < nbits)
    nbits: int          # fds the bitmap describes; 0 when the table could not be read


class FdSnapshot(msgspec.Struct, frozen=True, gc=False, tag="fd_snapshot"):
    """A process's fd table and working directory read from /proc before its calls are
    traced: a ``pid`` target at attach, a command held before its exec (only the fds the
    exec keeps). Made in user space, first in the stream."""

    ts_ns: int          # time.monotonic_ns() of the read (CLOCK_MONOTONIC)
    tgid: int
    fds: tuple[tuple[int, str], ...]   # (fd, readlink of /proc/<tgid>/fd/<fd>)
    cwd: str | None     # readlink of /proc/<tgid>/cwd; None when unreadable
    sockets: tuple[tuple[int, str], ...] = ()  # (inode, strace -yy text) of its sockets


class FdTargets(msgspec.Struct, frozen=True, gc=False, tag="fd_targets"):
    """What the fds a call made or changed referred to, read from /proc and sock_diag
    when its record arrived (the process may be gone when the call is decoded). Placed
    just before the record of the call by thread ``tid`` entered at ``ts_ns``, which the
    fd caches apply it with."""

    ts_ns: int          # the call's entry time
    tid: int
    tgid: int
    fds: tuple[tuple[int, str], ...]   # (fd, readlink of /proc/<tgid>/fd/<fd>)
    sockets: tuple[tuple[int, str], ...] = ()  # (inode, strace -yy text) after the call


class Lost(msgspec.Struct, frozen=True, gc=False, tag="lost"):
    """Records the kernel could not reserve in the ring buffer since the last report.

    ``count`` is every lost record; ``lifecycle`` how many of them were fork, exec, exit
    or signal records (counted apart in the kernel: ``TK_CNT_LOST_LIFECYCLE``). The rest,
    :attr:`syscalls`, are syscall records: the calls missing from the trace.
    """

    ts_ns: int
    count: int          # all lost records
    lifecycle: int = 0  # of which fork/exec/exit/signal records

    @property
    def syscalls(self) -> int:
        """Lost syscall records (``count - lifecycle``)."""
        return self.count - self.lifecycle


class Losses(msgspec.Struct, frozen=True, gc=False, tag="losses", kw_only=True):
    """Everything a trace lost or skipped, counted to its end: the last event of a trace.

    Made once the pipeline has drained (:meth:`RingBufferSource.losses
    <tracekit.session.source.RingBufferSource.losses>`); each figure is exact at that
    moment. Every field is a count of things; 0 means nothing of that kind was lost.
    """

    ts_ns: int                  # when it was made, CLOCK_MONOTONIC
    lost_syscalls: int = 0      # syscall records the ring buffer had no room for: calls
    #                             missing from the trace (kernel, TK_CNT_LOST)
    lost_lifecycle: int = 0     # fork/exec/exit/signal records it had no room for
    #                             (kernel, TK_CNT_LOST_LIFECYCLE)
    lost_fd_table: int = 0      # fd-table change records it had no room for (an fd
    #                             opened, duplicated, closed or moved by a call the
    #                             output does not show; kernel, TK_CNT_FD_LOST): the fd
    #                             paths printed after the first are not sure
    untraced_tasks: int = 0     # tasks never traced: the pids map was full (the kernel's
    #                             TK_CNT_PIDS_FULL at fork and user space's inserts from
    #                             /proc, less those added later)
    capbuf_full: int = 0        # calls recorded without their arguments' memory: no
    #                             capture slot (kernel, TK_CNT_CAPBUF_FULL)
    stacks_missing: int = 0     # calls recorded without the stacks asked for (-k, -i):
    #                             no stack slot for the task (task storage out of memory
    #                             or busy) or no room in the ring buffer for the stack
    #                             record (kernel, TK_CNT_STACK_FULL)
    scratch_full: int = 0       # calls not recorded: no per-task entry to pair them
    #                             (kernel, TK_CNT_SCRATCH_FULL)
    summary_full: int = 0       # in-kernel summary: calls not counted (TK_CNT_SUMMARY_FULL)
    errno_full: int = 0         # in-kernel summary: errors not counted by errno
    bad_records: int = 0        # ring-buffer records that could not be decoded
    dropped: dict[str, int] = {}  # stage name -> events it chose not to pass on
    unwritten: int = 0          # events on their way to the outputs when a second signal
    #                             ended the trace at once (not written)

    @property
    def ringbuf_full(self) -> int:
        """Records of every kind the ring buffer had no room for (0: a bigger ring
        buffer would have changed nothing)."""
        return self.lost_syscalls + self.lost_lifecycle + self.lost_fd_table

    @property
    def total(self) -> int:
        """The sum of every count (0: nothing was lost or skipped)."""
        return (self.lost_syscalls + self.lost_lifecycle + self.lost_fd_table
                + self.untraced_tasks
                + self.capbuf_full + self.stacks_missing + self.scratch_full
                + self.summary_full + self.errno_full
                + self.bad_records + sum(self.dropped.values()) + self.unwritten)

    def reader_left(self) -> Losses:
        """These losses of a trace that ended because its output's reader went away
        (``| head``): what was still on its way to that output then (ring-buffer records
        not yet decoded, events between the stages) is left out: the reader wanted no
        more, as strace's lines after its EPIPE are not a loss."""
        dropped = {k: n for k, n in self.dropped.items() if k != "ringbuf"}
        return msgspec.structs.replace(self, dropped=dropped, unwritten=0)

    def lines(self) -> list[str]:
        """One line of text per kind of loss (none when nothing was lost), e.g.
        ``LOST 15 records (12 syscall, 3 fork/exec/exit/signal): the ring buffer was
        full; the trace is short by 12 calls``."""
        out = []
        if self.lost_syscalls or self.lost_lifecycle:
            out.append(f"LOST {self.lost_syscalls + self.lost_lifecycle} records "
                       f"({self.lost_syscalls} syscall, {self.lost_lifecycle} "
                       "fork/exec/exit/signal): the ring buffer was full; the trace is "
                       f"short by {self.lost_syscalls} calls")
        if self.lost_fd_table:
            out.append(f"LOST {self.lost_fd_table} fd-table records (fds opened, "
                       "duplicated or closed): the ring buffer was full; fd paths "
                       "printed after the first of them (-y, -yy, -P) may be wrong")
        if self.untraced_tasks:
            out.append(f"{self.untraced_tasks} tasks were not traced: the pids map was full")
        if self.scratch_full:
            out.append(f"{self.scratch_full} calls were not recorded: no memory for the "
                       "per-task entry that pairs a call's entry and exit")
        if self.capbuf_full:
            out.append(f"{self.capbuf_full} calls were recorded without their strings and "
                       "buffers: the capture map was full")
        if self.stacks_missing:
            out.append(f"{self.stacks_missing} calls were recorded without their stacks "
                       "(or instruction pointers): no memory for the task's stack slot, or "
                       "no room in the ring buffer for the stack")
        if self.summary_full or self.errno_full:
            out.append(f"the in-kernel summary missed {self.summary_full} calls and "
                       f"{self.errno_full} errno counts: its maps were full")
        if self.bad_records:
            out.append(f"{self.bad_records} ring-buffer records could not be decoded and "
                       "were skipped")
        for stage, n in sorted(self.dropped.items()):
            if n and stage == "ringbuf":    # the source drops only when cancelled
                # (a reader gone is left out by reader_left: a second signal it is)
                out.append(f"{n} records from the ring buffer were not decoded: a second "
                           "signal ended the trace at once")
            elif n:
                out.append(f"stage {stage!r} dropped {n} events")
        if self.unwritten:
            out.append(f"{self.unwritten} events were not written: a second signal ended "
                       "the trace before they reached the output")
        return out


class Reenumerated(msgspec.Struct, frozen=True, gc=False, tag="reenumerated"):
    """What one /proc re-enumeration added to the pids map (the reenumerate stage)."""

    ts_ns: int                  # time.monotonic_ns() when the pass ended (CLOCK_MONOTONIC)
    added: tuple[int, ...]      # tids inserted, in walk order (init pid namespace)
    not_added: int              # tids that did not fit: the pids map was full (rule 6)
    gone: int                   # tasks that exited while they were read (rule 7)


Event: TypeAlias = (Syscall | Fork | Exec | Exit | Signal | Lost | Reenumerated | Losses
                    | FdState | FdExec | FdSnapshot | FdTargets)
#: events that only keep the fd caches true (tracekit.decode.fdcache): not calls, never printed
FD_EVENTS = (FdState, FdExec, FdSnapshot, FdTargets)
Batch: TypeAlias = list[Event]


class Stacks:
    """What :func:`decode_batch` keeps between drains to give syscalls their stacks.

    The BPF side sends a call's ``struct tk_stack`` record just before its ``struct
    tk_syscall`` record, from the same task, so the stack record of a tid waits here
    until that tid's next syscall record; it is that call's when their ``ts_ns`` (entry
    times) are equal, else (the syscall record was lost) it is dropped and counted in
    ``unmatched``.

    Args:
      join: names the frames and follows execs and mapping calls; default
        :class:`PlainStacks` (addresses only).
    """

    def __init__(self, join: StackJoin | None = None) -> None:
        self.join: StackJoin = join if join is not None else PlainStacks()
        # tid -> its stack record, or (ts_ns, ip) of an instruction pointer alone (-i)
        self.pending: dict[int, RawStack | tuple[int, int]] = {}
        self.unmatched = 0

    def attach(self, ev: Syscall) -> Syscall:
        """``ev`` with the stack (or the instruction pointer) that waits for it, if any."""
        raw = self.pending.pop(ev.tid, None)
        if raw is None:
            return ev
        if type(raw) is tuple:
            if raw[0] != ev.ts_ns:
                self.unmatched += 1
                return ev
            return msgspec.structs.replace(ev, ip=raw[1])
        assert isinstance(raw, RawStack)
        if raw.ts_ns != ev.ts_ns:
            self.unmatched += 1
            return ev
        ip = raw.user[0] if raw.user else 0
        return msgspec.structs.replace(ev, stack=self.join.frames(raw), ip=ip)

    def pend_ip(self, rec: bytes | memoryview) -> bool:
        """Keep the instruction pointer of a STACK_IP_ONLY stack record (strace -i alone:
        the header, then the one frame where ``top`` would start; 72 bytes) for the
        call's record after it; False for another stack record."""
        if len(rec) < _STACK_IP_REC.size or not _HDR.unpack_from(rec)[1] & STACK_IP_ONLY:
            return False
        _, _, ts_ns, tid, _, ip = _STACK_IP_REC.unpack_from(rec)
        self.pending[tid] = (ts_ns, ip)
        return True


def decode_stack(buf: bytes | memoryview) -> RawStack:
    """Decode one ``struct tk_stack`` record (programs/syscalls.h).

    Raises:
      RecordError: the record is shorter than its header or than its frames.
    """
    n = len(buf)
    if n < _STACK.size:
        raise RecordError(f"stack record of {n} bytes, need {_STACK.size}")
    (_, _, ts_ns, tid, tgid, nuser, nkernel, sp, fp, lr, top_len, _,
     top) = _STACK.unpack_from(buf)
    end = _STACK.size + 8 * (nuser + nkernel)
    if end > n or top_len > STACK_TOP:
        raise RecordError(f"stack record of {n} bytes declares {nuser} + {nkernel} frames "
                          f"and {top_len} bytes of stack")
    frames = struct.unpack_from(f"<{nuser + nkernel}Q", buf, _STACK.size)
    return RawStack(ts_ns, tid, tgid, frames[:nuser], frames[nuser:], sp, fp, lr,
                    bytes(top[:top_len]))


def decode_record(buf: bytes | memoryview) -> Event:
    """Decode one ring-buffer record.

    Args:
      buf: one record's bytes, as written by the BPF programs (programs/syscalls.h).

    Returns:
      The event Struct for the record's kind.

    Raises:
      RecordError: the record is shorter than its kind's layout or of an unknown kind.
    """
    n = len(buf)
    if n < _HDR.size:
        raise RecordError(f"record of {n} bytes is shorter than its 16-byte header")
    kind, flags, ts_ns = _HDR.unpack_from(buf)
    if kind == REC_SYSCALL:
        if n < _SYSCALL.size:
            raise RecordError(f"syscall record of {n} bytes, need {_SYSCALL.size}")
        (_, flags, ts_ns, dur, tid, tgid, cpu, nr, a0, a1, a2, a3, a4, a5, ret,
         comm) = _SYSCALL.unpack_from(buf)
        caps = _decode_caps(buf, n) if n > _SYSCALL.size else ()
        return Syscall(ts_ns, dur, tid, tgid, cpu, nr, (a0, a1, a2, a3, a4, a5), ret,
                       _cstr(comm), flags, caps)
    if kind == REC_FORK:
        if n < _FORK.size:
            raise RecordError(f"fork record of {n} bytes, need {_FORK.size}")
        _, _, ts_ns, ptid, ptgid, ctid, ctgid = _FORK.unpack_from(buf)
        return Fork(ts_ns, ptid, ptgid, ctid, ctgid)
    if kind == REC_EXEC:
        if n < _EXEC.size:
            raise RecordError(f"exec record of {n} bytes, need {_EXEC.size}")
        _, _, ts_ns, tid, old_tid, comm, filename = _EXEC.unpack_from(buf)
        return Exec(ts_ns, tid, old_tid, _cstr(comm), _cstr(filename))
    if kind == REC_EXIT:
        if n < _EXIT.size:
            raise RecordError(f"exit record of {n} bytes, need {_EXIT.size}")
        _, flags, ts_ns, tid, tgid, code, dead, comm = _EXIT.unpack_from(buf)
        by = 0
        if flags & EXIT_SUPERSEDED and n >= _EXIT.size + _EXIT_TAIL.size:
            by = _EXIT_TAIL.unpack_from(buf, _EXIT.size)[0]
        return Exit(ts_ns, tid, tgid, code, bool(dead), _cstr(comm), by,
                    bool(flags & EXIT_ALONE))
    if kind == REC_SIGNAL:
        if n < _SIGNAL.size:
            raise RecordError(f"signal record of {n} bytes, need {_SIGNAL.size}")
        _, flags, ts_ns, tid, tgid, sig, _, handler, info, comm = _SIGNAL.unpack_from(buf)
        ip = (_SIGNAL_TAIL.unpack_from(buf, _SIGNAL.size)[0]
              if n >= _SIGNAL.size + _SIGNAL_TAIL.size else 0)
        return Signal(ts_ns, tid, tgid, sig, handler, info, _cstr(comm),
                      bool(flags & SIG_EXIT_ONLY), ip)
    if kind == REC_FD_STATE:
        if n < _SYSCALL.size:
            raise RecordError(f"fd-state record of {n} bytes, need {_SYSCALL.size}")
        (_, flags, ts_ns, dur, tid, tgid, cpu, nr, a0, a1, a2, a3, a4, a5, ret,
         comm) = _SYSCALL.unpack_from(buf)
        caps = _decode_caps(buf, n) if n > _SYSCALL.size else ()
        return FdState(ts_ns, Syscall(ts_ns, dur, tid, tgid, cpu, nr, (a0, a1, a2, a3, a4, a5),
                                      ret, _cstr(comm), flags, caps))
    if kind == REC_FD_EXEC:
        if n < _FD_EXEC.size:
            raise RecordError(f"fd-exec record of {n} bytes, need {_FD_EXEC.size}")
        _, _, ts_ns, tid, tgid, _, nbits, *words = _FD_EXEC.unpack_from(buf)
        bits = 0
        for i, w in enumerate(words):
            bits |= w << (64 * i)
        return FdExec(ts_ns, tid, tgid, bits & ((1 << nbits) - 1), nbits)
    raise RecordError(f"record of unknown kind {kind} ({n} bytes)")


def _decode_caps(buf: bytes | memoryview, n: int) -> tuple[Capture, ...]:
    """The captures after a 112-byte syscall record (layout in programs/syscalls.h)."""
    base = _SYSCALL.size
    if n < base + _CAPS_HDR.size:
        raise RecordError(f"syscall record of {n} bytes: captures header cut")
    caps_len, ncaps = _CAPS_HDR.unpack_from(buf, base)
    pos, end = base + _CAPS_HDR.size, base + _CAPS_HDR.size + caps_len
    if end > n:
        raise RecordError(f"syscall record of {n} bytes declares {caps_len} bytes of captures")
    out = []
    for _ in range(ncaps):
        if pos + _CAP.size > end:
            raise RecordError(f"capture header at offset {pos} runs past the record")
        arg, kind, flags, ln = _CAP.unpack_from(buf, pos)
        pos += _CAP.size  # advance first, then decide
        if pos + ln > end:
            raise RecordError(f"capture of {ln} bytes at offset {pos} runs past the record")
        if flags & CAPF_PARTIAL:
            out.append(Capture(arg, kind, flags | CAPF_FAULT, b"", bytes(buf[pos:pos + ln])))
        else:
            out.append(Capture(arg, kind, flags, bytes(buf[pos:pos + ln])))
        pos += (ln + 7) & ~7
    return tuple(out)


# Memos of decode_batch: the text of a comm (16 raw bytes) and the captures of a record
# (its bytes after the 112-byte head). A traced loop repeats both, so most records cost
# one dict lookup for each instead of a decode; the events share the (frozen) values.
# Each memo is emptied when it reaches _MEMO_MAX entries.
_MEMO_MAX = 4096
_comms: dict[bytes, str] = {}
_caps: dict[bytes, tuple[Capture, ...]] = {}
# The third memo: a syscall record's bytes from its tid on (tid, tgid, cpu, number,
# arguments, return, comm, captures: all but its kind, flags and two times) -> its
# fields (the arguments' tuple shared). A loop that repeats its calls whole (the same
# fd, buffer, path and result) then costs a slice, a lookup and the Struct. Records
# longer than _SHAPE_MAX bytes are not kept (a long capture seldom repeats whole; it
# bounds the memo's memory); and once a drain's records mostly miss it (32 misses at
# least), the memo is left alone for the rest of the drain and the next _SHAPE_REST
# drains (calls that never repeat pay little).
_SHAPE_MAX = 1024
_SHAPE_REST = 8
# (tid, tgid, cpu, syscall_nr, args, ret, comm, caps)
_Shape: TypeAlias = tuple[int, int, int, int, tuple[int, int, int, int, int, int], int, str,
                          tuple[Capture, ...]]
_shapes: dict[bytes, _Shape] = {}
_shape_rest = [0]           # drains left before the memo is tried again
_TIMES = struct.Struct("<IIQQ")                 # kind, flags, ts_ns, duration_ns


def decode_batch(records: list[memoryview] | list[bytes],
                 stacks: Stacks | None = None) -> tuple[Batch, int]:
    """Decode a drain of records; bad records are skipped and counted.

    The same events as :func:`decode_record` gives for each record, decoded faster:
    a syscall record (the bulk) whose bytes after its times were seen in the last few
    thousand distinct ones takes their fields from a memo; the others are unpacked
    inline with one ``struct`` call, their comm and captures looked up in memos of the
    last few thousand distinct values; other kinds go through :func:`decode_record`.

    Args:
      stacks: the state that gives syscalls the stack records before them (kept by the
        caller from drain to drain); None: stack records are skipped.

    Returns:
      ``(events, n_bad)``.
    """
    out: Batch = []
    append = out.append
    bad = 0
    unpack, head = _SYSCALL.unpack_from, _SYSCALL.size
    times = _TIMES.unpack_from
    comms, capmemo, shapes = _comms, _caps, _shapes
    rest = _shape_rest[0]
    use_shapes = rest == 0
    if not use_shapes:
        _shape_rest[0] = rest - 1
    tried = missed = 0
    for rec in records:
        if use_shapes:
            try:
                kind, flags, ts_ns, dur = times(rec)
            except struct.error:        # shorter than any syscall record
                kind = -1
            if kind == REC_SYSCALL:
                tried += 1
                tail = rec[24:]
                if type(tail) is not bytes:
                    tail = bytes(tail)
                shape = shapes.get(tail)
                if shape is not None:
                    # the fields as locals and a plain call (a *-call costs twice as much)
                    tid, tgid, cpu, nr, args, ret, name, captures = shape
                    ev = Syscall(ts_ns, dur, tid, tgid, cpu, nr, args, ret, name, flags,
                                 captures)
                    if stacks is not None:
                        if tid in stacks.pending:
                            ev = stacks.attach(ev)
                        if nr in stacks.join.map_nrs:
                            stacks.join.mapped(ev)
                    append(ev)
                    continue
                missed += 1
                if missed >= 32 and 2 * missed > tried:
                    use_shapes = False          # mostly misses: not for the rest either
                    _shape_rest[0] = _SHAPE_REST
            elif kind == REC_STACK and flags & STACK_IP_ONLY and stacks is not None and \
                    stacks.pend_ip(rec):
                continue        # strace -i alone: the ip, for the call's record after it
        try:
            (kind, flags, ts_ns, dur, tid, tgid, cpu, nr, a0, a1, a2, a3, a4, a5, ret,
             comm) = unpack(rec)
        except struct.error:            # shorter than a syscall record: another kind?
            kind = -1
        if kind != REC_SYSCALL:
            if kind == -1 and len(rec) >= _HDR.size:
                kind = _HDR.unpack_from(rec)[0]
            try:
                if kind == REC_STACK:
                    if stacks is not None and not stacks.pend_ip(rec):
                        raw = decode_stack(rec)
                        stacks.pending[raw.tid] = raw
                    continue
                other = decode_record(rec)
            except RecordError:
                bad += 1
                continue
            if stacks is not None:
                if isinstance(other, Exec):
                    stacks.join.exec(other)
                elif isinstance(other, Fork):
                    stacks.join.forked(other)
                elif isinstance(other, Exit) and other.group_dead:
                    stacks.join.exited(other)
            append(other)
            continue
        text = comms.get(comm)
        if text is None:
            if len(comms) >= _MEMO_MAX:
                comms.clear()
            text = comms[comm] = _cstr(comm)
        if len(rec) == head:
            caps: tuple[Capture, ...] = ()
        else:
            tail = bytes(rec[head:])
            got = capmemo.get(tail)
            if got is None:
                try:
                    got = _decode_caps(rec, len(rec))
                except RecordError:
                    bad += 1
                    continue
                if len(capmemo) >= _MEMO_MAX:
                    capmemo.clear()
                capmemo[tail] = got
            caps = got
        ev = Syscall(ts_ns, dur, tid, tgid, cpu, nr, (a0, a1, a2, a3, a4, a5), ret, text,
                     flags, caps)
        if use_shapes and len(rec) <= _SHAPE_MAX:
            if len(shapes) >= _MEMO_MAX:
                shapes.clear()
            shapes[bytes(rec[24:])] = (tid, tgid, cpu, nr, ev.args, ret, text, caps)
        if stacks is not None:
            if tid in stacks.pending:
                ev = stacks.attach(ev)
            if nr in stacks.join.map_nrs:
                stacks.join.mapped(ev)
        append(ev)
    if use_shapes and 2 * missed > len(records):
        _shape_rest[0] = _SHAPE_REST
    return out, bad
