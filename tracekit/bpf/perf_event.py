"""Raw perf_event_open(2) and the perf event ioctls, via ctypes.

Used to attach classic tracepoint progs (PERF_EVENT_IOC_SET_BPF) and, in tests, to count
tracepoint hits as an independent listener next to tracekit (kernel rule 1: never veto).
Fds returned here are owned by the caller, who closes them with ``os.close``.
"""

from __future__ import annotations

import ctypes
import errno as _errno
import fcntl
import os
import platform
import sys
from ctypes import c_int32, c_uint16, c_uint32, c_uint64
from pathlib import Path

from tracekit._errors import AttachError, BpfError, TracefsError
from tracekit.bpf.sys import _missing_caps
from tracekit.bpf.uapi import (
    PERF_EVENT_IOC_DISABLE,
    PERF_EVENT_IOC_ENABLE,
    PERF_EVENT_IOC_SET_BPF,
    PERF_FLAG_FD_CLOEXEC,
)

__all__ = ["attach_bpf", "disable", "enable", "perf_event_open", "read_counter", "tracepoint_id"]

# arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h
_NR_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241, "arm64": 241}

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long

# struct perf_event_attr flag bits (the bitfield word after read_format)
_ATTR_DISABLED = 1 << 0
_ATTR_INHERIT = 1 << 1
_ATTR_EXCLUDE_KERNEL = 1 << 5


class _PerfEventAttr(ctypes.Structure):
    """``struct perf_event_attr`` up to config3 (PERF_ATTR_SIZE_VER8, 136 bytes)."""

    _fields_ = [
        ("type", c_uint32), ("size", c_uint32), ("config", c_uint64),
        ("sample_period", c_uint64), ("sample_type", c_uint64), ("read_format", c_uint64),
        ("flags", c_uint64), ("wakeup_events", c_uint32), ("bp_type", c_uint32),
        ("config1", c_uint64), ("config2", c_uint64), ("branch_sample_type", c_uint64),
        ("sample_regs_user", c_uint64), ("sample_stack_user", c_uint32), ("clockid", c_int32),
        ("sample_regs_intr", c_uint64), ("aux_watermark", c_uint32),
        ("sample_max_stack", c_uint16), ("_reserved_2", c_uint16),
        ("aux_sample_size", c_uint32), ("_reserved_3", c_uint32), ("sig_data", c_uint64),
        ("config3", c_uint64),
    ]


assert ctypes.sizeof(_PerfEventAttr) == 136


def perf_event_open(*, type: int, config: int, sample_period: int = 0, sample_type: int = 0,
                    pid: int = -1, cpu: int = 0, group_fd: int = -1,
                    flags: int = PERF_FLAG_FD_CLOEXEC, disabled: bool = False,
                    inherit: bool = False, exclude_kernel: bool = False,
                    wakeup_events: int = 0) -> int:
    """perf_event_open(2).

    Args:
      type: PERF_TYPE_* (tracekit.bpf.uapi); PERF_TYPE_TRACEPOINT with ``config`` =
        :func:`tracepoint_id`.
      pid: a tid to follow (kernel "pid": one thread; ``inherit`` adds threads it creates
        later), or -1 for every task on ``cpu``.
      cpu: a CPU, or -1 for any CPU (needs ``pid`` >= 0).
      disabled: start disabled; :func:`enable` starts counting.

    Returns:
      The perf event fd (caller owns it).

    Raises:
      BpfError: cmd ``"perf_event_open"``: ENOENT/EINVAL (no such event, bad config),
        EACCES/EPERM (needs CAP_PERFMON, or kernel.perf_event_paranoid), ESRCH (no such
        pid), EMFILE.
    """
    machine = platform.machine()
    nr = _NR_PERF_EVENT_OPEN.get(machine)
    if nr is None:
        raise BpfError("perf_event_open", _errno.ENOSYS, f"no syscall number for {machine}")
    bits = ((_ATTR_DISABLED if disabled else 0) | (_ATTR_INHERIT if inherit else 0)
            | (_ATTR_EXCLUDE_KERNEL if exclude_kernel else 0))
    attr = _PerfEventAttr(type=type, size=ctypes.sizeof(_PerfEventAttr), config=config,
                          sample_period=sample_period, sample_type=sample_type, flags=bits,
                          wakeup_events=wakeup_events)
    ret: int = _syscall(ctypes.c_long(nr), ctypes.byref(attr), ctypes.c_long(pid),
                   ctypes.c_long(cpu), ctypes.c_long(group_fd), ctypes.c_ulong(flags))
    if ret < 0:
        err = ctypes.get_errno()
        detail = f"type {type} config {config} pid {pid} cpu {cpu}"
        if err in (_errno.EPERM, _errno.EACCES):
            detail += ": " + _missing_caps(("CAP_PERFMON",))
        raise BpfError("perf_event_open", err, detail)
    return ret


def _ioctl(perf_fd: int, request: int, arg: int, what: str, target: str) -> None:
    try:
        fcntl.ioctl(perf_fd, request, arg)
    except OSError as e:
        raise AttachError(what, e.errno or _errno.EIO, f"perf fd {perf_fd}",
                          target=target) from e


def attach_bpf(perf_fd: int, prog_fd: int, *, target: str = "") -> None:
    """Attach a prog to a perf event (PERF_EVENT_IOC_SET_BPF), then enable the event.

    The prog stays attached while ``perf_fd`` is open; closing it detaches.

    Raises:
      AttachError: EINVAL (prog type does not match the event, e.g. a TRACEPOINT prog on a
        non-tracepoint event), EEXIST (a prog is attached already), EACCES.
    """
    _ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd, "PERF_EVENT_IOC_SET_BPF", target)
    _ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0, "PERF_EVENT_IOC_ENABLE", target)


def enable(perf_fd: int) -> None:
    """PERF_EVENT_IOC_ENABLE. Raises AttachError with the ioctl's errno."""
    _ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0, "PERF_EVENT_IOC_ENABLE", "")


def disable(perf_fd: int) -> None:
    """PERF_EVENT_IOC_DISABLE. Raises AttachError with the ioctl's errno."""
    _ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0, "PERF_EVENT_IOC_DISABLE", "")


def read_counter(perf_fd: int) -> int:
    """The count of a counting event (read_format 0: one u64).

    Raises:
      BpfError: cmd ``"read perf counter"`` with read(2)'s errno, or EIO on a short read.
    """
    try:
        raw = os.read(perf_fd, 8)
    except OSError as e:
        raise BpfError("read perf counter", e.errno or _errno.EIO, f"perf fd {perf_fd}") from e
    if len(raw) != 8:
        raise BpfError("read perf counter", _errno.EIO, f"{len(raw)} bytes from fd {perf_fd}")
    return int.from_bytes(raw, sys.byteorder)  # a native u64


def tracepoint_id(tracefs_root: Path, category: str, name: str) -> int:
    """The id of tracepoint ``category:name``: ``<tracefs_root>/events/<category>/<name>/id``.

    Raises:
      TracefsError: the file cannot be read (ENOENT: no such tracepoint) or is not a number
        (EINVAL).
    """
    path = Path(tracefs_root) / "events" / category / name / "id"
    try:
        text = path.read_text()
    except OSError as e:
        raise TracefsError(str(path), e.errno or _errno.EIO, e.strerror or "") from e
    try:
        return int(text)
    except ValueError:
        raise TracefsError(str(path), _errno.EINVAL, f"not a number: {text[:40]!r}") from None
