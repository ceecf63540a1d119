"""The calls the traced threads are inside when tracing ends (strace's ``<detached ...>``).

A call makes its record at sys_exit, so one a thread is still inside when the session ends
(a read that blocks, a wait4, a futex wait) makes none. strace prints it at its detach as
far as it had printed it at the entry: ``read(0,  <detached ...>``. The same call is found
here, after the last drain and while the programs are still attached:

* a call the programs saw enter: the thread's entry in the ``scratch`` task storage
  (``ts_ns`` not 0: programs/syscalls.bpf.c), looked up from user space by a pidfd of the
  thread (kernel/bpf/bpf_task_storage.c; a thread other than a leader needs
  ``PIDFD_THREAD``, Linux 6.9), with its entry captures from ``capbuf`` when they are
  this call's (``entry_ts`` equal to the entry's ``ts_ns``);
* a call the thread was inside before tracing began (or on a kernel without
  ``PIDFD_THREAD``): ``/proc/TID/syscall`` (proc(5): the number and six argument
  registers of the call the thread is blocked in), with what its entry reads (its
  strings, the buffers and structs of a known length: the session's capture specs)
  read now from ``/proc/TID/mem``, as strace reads them at its attach. On x86_64 the
  number is the i386 table's for a 32-bit call (``int $0x80``, or sysenter/syscall from
  32-bit code, which return to the vDSO's landing pad after its ``int $0x80``): the two
  bytes before the user PC tell, ``cd 80`` rather than ``syscall``'s ``0f 05``; an i386
  socketcall or old select is resolved from its words as tk_indirect32 does.

Each becomes a :class:`~tracekit._events.Syscall` flagged ``SC_UNFINISHED |
SC_DETACHED`` (ret 0, no duration), at its entry time when known, else now.
"""

from __future__ import annotations

import errno
import os
import struct
import time
from typing import TYPE_CHECKING, Literal

from tracekit._errors import BpfError, RecordError
from tracekit._events import (
    CAP_BUF,
    CAP_STR,
    CAP_STRUCT,
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_COMPAT,
    SC_DETACHED,
    SC_INDIRECT,
    SC_UNFINISHED,
    Capture,
    Syscall,
    _decode_caps,
)
from tracekit.kernel.arch import machine_arch
from tracekit.kernel.flag_tables import for_arch
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.capture import LEN_NONE, CapSpec
from tracekit.session.pids import started_at

if TYPE_CHECKING:
    from tracekit.session.session import Session

__all__ = ["calls_in_flight"]

PIDFD_THREAD = os.O_EXCL        # include/uapi/linux/pidfd.h: a pidfd of a thread (6.9+)

# struct tk_scratch (programs/syscalls.bpf.c): ts_ns, nr, has_caps, fork_child, traced,
# compat, fd_only; args[6] at offset 24
_SCRATCH = struct.Struct("<QiBBBBB")
_ARGS = struct.Struct("<6Q")
_ARGS_OFF = 24
# struct tk_capbuf: entry_ts, pending, retry, then the record (struct tk_syscall) as it
# goes out, caps_len, ncaps and the captures
_CAPBUF_REC = 16

_INT80 = b"\xcd\x80"          # int $0x80, the instruction before a 32-bit call's return PC
# i386 (arch/x86/entry/syscalls/syscall_32.tbl): socketcall and the old select, whose
# arguments are words in user memory (programs/syscalls.bpf.c tk_indirect32)
_NR32_SOCKETCALL, _NR32_SELECT = 102, 82
# the words each socketcall sub-call takes, by its SYS_* number (net/socket.c nargs[]);
# its name is the generated table's (SOCKETCALL_CALLS: SYS_ACCEPT -> accept), recorded
# under the i386 table's number of that name
_SOCKETCALL_NARGS = (0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4, 6, 6, 2, 5, 5, 3, 3, 4, 5, 4)


def calls_in_flight(session: Session) -> list[Syscall]:
    """The selected calls the threads of the pids map are inside now, in the order strace
    prints them: first those entered before tracing began (strace prints each at its
    attach, in descending tid order: the last thread first, a process's leader last),
    then the others, oldest first.

    Empty for a system-wide or cgroup session (no per-thread map to walk), in summary
    mode, and when ``"detached"`` is not in the status selection; never raises for a
    thread that exits meanwhile.
    """
    opts = session.opts
    if "detached" not in opts.status or opts.system_wide or opts.cgroup is not None or \
            (opts.summary and not opts.summary_records) or opts.min_duration_ns or \
            session.obj is None:
        return []
    scratch = session.obj.maps["scratch"]
    capbuf = session.obj.maps["capbuf"]
    out, before = [], []
    for tid, info in sorted(session.pid_entries().items(), reverse=True):
        if info.tgid == session.self_tgid:
            continue
        # the entry's task (its start time, alive) and its comm, from one read
        st = session.procfs.start_state_comm(tid, info.tgid)
        if st is None or st[1] in "ZX" or not started_at(info.start_time_ns, st[0]):
            continue
        seen = _seen(scratch, capbuf, tid, info.tgid, st[2])
        if seen is None:
            ev = _from_proc(session, tid, info.tgid, st[2])
            if ev is not None:
                before.append(ev)
        elif seen:
            out.append(seen)
    out.sort(key=lambda e: e.ts_ns)
    return before + out


def _seen(scratch: object, capbuf: object, tid: int,
          tgid: int, comm: str) -> Syscall | Literal[False] | None:
    """The call ``tid`` is inside that the programs saw enter; False when it is inside
    none they saw (or one not selected); None when its entry cannot be read."""
    try:
        pidfd = os.pidfd_open(tid, 0 if tid == tgid else PIDFD_THREAD)
    except OSError:
        return None             # gone, or no PIDFD_THREAD on this kernel
    try:
        value = scratch.lookup_elem(struct.pack("<i", pidfd))  # type: ignore[attr-defined]
    except (BpfError, OSError):
        return None
    finally:
        os.close(pidfd)
    if value is None:
        return None             # no call seen yet: /proc tells (entered before tracing)
    ts_ns, nr, has_caps, _, _, compat, fd_only = _SCRATCH.unpack_from(value)
    if not ts_ns or fd_only:
        return False
    args = _ARGS.unpack_from(value, _ARGS_OFF)
    caps: tuple[Capture, ...] = ()
    if has_caps:
        caps = _entry_caps(capbuf, tid, ts_ns)
    return Syscall(ts_ns, 0, tid, tgid, 0, nr, args, 0, comm,
                   SC_UNFINISHED | SC_DETACHED | compat, caps)


def _entry_caps(capbuf: object, tid: int, ts_ns: int) -> tuple[Capture, ...]:
    try:
        value = capbuf.lookup_elem(struct.pack("<I", tid))  # type: ignore[attr-defined]
    except (BpfError, OSError):
        return ()
    if value is None or struct.unpack_from("<Q", value)[0] != ts_ns:
        return ()
    try:
        rec = memoryview(value)[_CAPBUF_REC:]
        return _decode_caps(rec, len(rec))
    except RecordError:
        return ()


def _from_proc(session: Session, tid: int, tgid: int, comm: str) -> Syscall | None:
    """The call /proc/TID/syscall says ``tid`` is blocked in, when selected."""
    task = f"/proc/{tgid}/task/{tid}"
    try:
        with open(f"{task}/syscall") as f:
            words = f.read().split()
    except OSError as e:
        if e.errno not in (errno.ENOENT, errno.ESRCH, errno.EACCES, errno.EPERM):
            raise
        return None
    # "running", "-1 SP PC" (not in a call), or "NR A1 .. A6 SP PC" in hex
    if len(words) < 9 or not words[0].isdigit():
        return None
    if int(words[7], 16) == 0 == int(words[8], 16):
        return None             # a kernel thread: no user registers ("0 0x0 ... 0x0")
    nr = int(words[0])
    args = [int(w, 16) for w in words[1:7]]
    flags = SC_UNFINISHED | SC_DETACHED
    with _Memory(task) as mem:
        if machine_arch() == "x86_64" and mem.read(int(words[8], 16) - 2, 2) == _INT80:
            flags |= SC_COMPAT
            args = [a & 0xFFFFFFFF for a in args]
            nr, flags = _indirect32(mem, nr, args, flags)
        opts = session.opts
        if opts.syscalls is not None:
            # the i386 numbers selected (Session._compat_selection), or the native ones
            selected = session._compat_selection() if flags & SC_COMPAT else opts.syscalls
            if nr not in selected:
                return None
        caps = () if flags & SC_COMPAT else _mem_caps(
            mem, session.capture_specs.get(nr, ()), args)
    return Syscall(time.monotonic_ns(), 0, tid, tgid, 0, nr, tuple(args),  # type: ignore[arg-type]
                   0, comm, flags, caps)


class _Memory:
    """``/proc/TID/mem`` of one task, opened at its first read and once only."""

    def __init__(self, task: str) -> None:
        self.task = task
        self.fd: int | None = None
        self.failed = False

    def __enter__(self) -> _Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def read(self, addr: int, size: int) -> bytes | None:
        """``size`` bytes at ``addr`` (fewer where the mapping ends); None when
        unreadable, or when the file could not be opened (not tried again)."""
        if addr < 0:
            return None
        if self.fd is None:
            if self.failed:
                return None
            try:
                self.fd = os.open(f"{self.task}/mem", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self.failed = True
                return None
        try:
            return os.pread(self.fd, size, addr)
        except (OSError, OverflowError, ValueError):
            return None


def _mem_caps(mem: _Memory, specs: tuple[CapSpec, ...], args: list[int]
              ) -> tuple[Capture, ...]:
    """What the entry of a call with ``args`` reads, as the BPF program would have read
    it (``specs``: its strings; buffers and structs of a fixed length or one an argument
    gives), read from the task's memory now; the other kinds (vectors, fds, exit reads)
    are left out, and so printed as their addresses."""
    out = []
    for sp in specs:
        if sp.flags or sp.arg > 5:     # read at exit, or in a way of its own: left out
            continue
        addr = args[sp.arg]
        if sp.kind == CAP_STR:
            data, more = _read_str(mem, addr, sp.cap)
        elif sp.kind in (CAP_BUF, CAP_STRUCT):
            if sp.len_arg == LEN_NONE:
                want = sp.size or sp.cap
            elif sp.len_arg <= 5:
                # as the programs take it (tk_capture, tk_spec_len): a struct's length
                # is a socklen_t or int, an array's count an unsigned int, so what a
                # register holds above their 32 bits is not the kernel's
                want = args[sp.len_arg]
                if sp.kind == CAP_STRUCT or sp.size:
                    want = (want & 0xFFFFFFFF) * (sp.size or 1)
            else:
                continue
            got = mem.read(addr, min(want, sp.cap)) if addr else None
            data, more = got, want > sp.cap
            if got is not None and len(got) < min(want, sp.cap):
                data = None
        else:
            continue
        if data is None:
            out.append(Capture(sp.arg, sp.kind, CAPF_FAULT, b""))
        else:
            out.append(Capture(sp.arg, sp.kind, CAPF_TRUNC if more else 0, data))
    return tuple(out)


def _read_str(mem: _Memory, addr: int, cap: int) -> tuple[bytes | None, bool]:
    """The NUL-terminated string at ``addr``, at most ``cap`` bytes of it, read a page at
    a time (the page after its NUL may not be mapped): (its bytes without the NUL, or
    None when unreadable; whether it was longer than ``cap``)."""
    data = b""
    while len(data) < cap + 1:
        at = addr + len(data)
        chunk = mem.read(at, min(4096 - at % 4096, cap + 1 - len(data)))
        if not chunk:
            return None, False      # bpf_probe_read_user_str would have failed too
        nul = chunk.find(b"\0")
        if nul >= 0:
            return data + chunk[:nul], False
        data += chunk
    return data[:cap], True


def _indirect32(mem: _Memory, nr: int, args: list[int], flags: int) -> tuple[int, int]:
    """An i386 socketcall or old select as its sub-call with the words it reads (args
    replaced in place), flagged SC_INDIRECT; as it is when they cannot be read."""
    if nr == _NR32_SOCKETCALL:
        if not 0 < args[0] < len(_SOCKETCALL_NARGS):
            return nr, flags
        n, src = _SOCKETCALL_NARGS[args[0]], args[1]
        name = for_arch("x86_64").SOCKETCALL_CALLS[args[0]].removeprefix("SYS_").lower()
    elif nr == _NR32_SELECT:
        name, n, src = "", 5, args[0]
    else:
        return nr, flags
    raw = mem.read(src, 4 * n)
    if raw is None or len(raw) != 4 * n:
        return nr, flags
    args[:] = list(struct.unpack(f"<{n}I", raw)) + [0] * (6 - n)
    if name:
        sub = SyscallTable("i386").nr(name)
        if sub is None:                 # pragma: no cover - every name is in the table
            return nr, flags
        nr = sub
    return nr, flags | SC_INDIRECT
