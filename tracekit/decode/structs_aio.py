"""Linux AIO and io_uring structs as strace 6.1 prints them.

- ``io_setup``'s context, written by the call: ``[0x7f5a1c2e1000]``.
- ``struct io_event`` (io_getevents, io_pgetevents, io_cancel's result):
  ``{data=0x1234, obj=0x7ffc906590e0, res=4, res2=0}``; an array of the ``ret`` events
  the call wrote (``[]`` for none).
- ``struct iocb`` as io_cancel reads it: ``{aio_data=0x1234,
  aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3}`` (aio_key, aio_rw_flags and
  aio_reqprio only when not 0).
- io_submit's array of iocb pointers: ``[]`` when nr is 0; with nr 1, the iocb
  (``[{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=3, aio_buf=0x..., aio_nbytes=4,
  aio_offset=0}]``) unless its aio_buf points to what strace prints (PWRITE's bytes,
  PREADV/PWRITEV's iovecs); else the address: the BPF program follows one pointer (to
  the first iocb), not the iocb's own.
- ``struct io_uring_params``: what the call reads (``{flags=..., sq_thread_cpu=0,
  sq_thread_idle=0}``, with ``wq_fd`` when IORING_SETUP_ATTACH_WQ is set), and after a
  successful call what it wrote: ``sq_entries``, ``cq_entries``, ``features`` and the
  ring offsets ``sq_off={...}``, ``cq_off={...}``.

Each ``format_*`` takes the captured bytes (specs in tracekit/session/capture.py
``OVERRIDES``) and returns None when they are too short (the caller prints the address,
as strace does for memory it cannot read). Layouts: include/uapi/linux/aio_abi.h and
io_uring.h, the same on x86_64 and arm64 (little-endian).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, capture, decoded_out, succeeded
from tracekit.decode.flagwords import ioprio_text
from tracekit.decode.values import pointer, signed

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["IOCB_SIZE", "IO_EVENT_SIZE", "IO_URING_PARAMS_SIZE", "format_io_event",
           "format_io_uring_params", "format_iocb", "format_iocb_header", "kinds"]

IO_EVENT_SIZE = 32          # struct io_event: data, obj, res, res2 (u64, u64, s64, s64)
IOCB_SIZE = 64              # struct iocb
IO_URING_PARAMS_SIZE = 120  # struct io_uring_params
_IO_EVENT = struct.Struct("<QQqq")
# aio_data, aio_key, aio_rw_flags, aio_lio_opcode, aio_reqprio, aio_fildes
_IOCB_HEADER = struct.Struct("<QIIHhI")
_PARAMS_HEAD = struct.Struct("<7I")     # sq_entries ... wq_fd
_RESV = struct.Struct("<3I")            # resv[3], after wq_fd
_OFFSETS = struct.Struct("<7I")         # the named u32 fields of io_{sq,cq}ring_offsets
_SQ_OFF_NAMES = ("head", "tail", "ring_mask", "ring_entries", "flags", "dropped", "array")
_CQ_OFF_NAMES = ("head", "tail", "ring_mask", "ring_entries", "overflow", "cqes", "flags")


def format_io_event(data: bytes) -> str | None:
    """``{data=0x1234, obj=0x7ffc..., res=4, res2=0}``; None when short."""
    if len(data) < IO_EVENT_SIZE:
        return None
    ev_data, obj, res, res2 = _IO_EVENT.unpack_from(data)
    return f"{{data={ev_data:#x}, obj={pointer(obj)}, res={res}, res2={res2}}}"


def _bit(table: tuple[tuple[int, str], ...], name: str) -> int:
    return next((v for v, n in table if n == name), 0)


def _iocb_header(data: bytes, fl: F.ArchFlags, fd_text: Callable[[int], str]) -> list[str]:
    """The fields of a struct iocb strace prints for every opcode: aio_data, aio_key and
    aio_rw_flags (when not 0), aio_lio_opcode (``99 /* IOCB_CMD_??? */``), aio_reqprio
    (when not 0; ``IOPRIO_PRIO_VALUE(...)`` with IOCB_FLAG_IOPRIO), aio_fildes."""
    t = fl.tables
    ev_data, key, rw_flags, opcode, reqprio, fildes = _IOCB_HEADER.unpack_from(data)
    (aio_flags,) = struct.unpack_from("<I", data, 56)
    parts = [f"aio_data={hex(ev_data) if ev_data else '0'}"]
    if key:
        parts.append(f"aio_key={key}")
    if rw_flags:
        parts.append(f"aio_rw_flags={F.FlagSet(t.RWF_FLAGS, unknown='RWF_???')(rw_flags)}")
    cmd = t.IOCB_CMDS.get(opcode) or f"{opcode} /* IOCB_CMD_??? */"
    parts.append(f"aio_lio_opcode={cmd}")
    if reqprio:
        prio_flag = _bit(t.IOCB_FLAGS, "IOCB_FLAG_IOPRIO")
        prio = (ioprio_text(fl)(reqprio & 0xFFFF) if aio_flags & prio_flag else str(reqprio))
        parts.append(f"aio_reqprio={prio}")
    parts.append(f"aio_fildes={fd_text(fildes - (1 << 32) if fildes >= 1 << 31 else fildes)}")
    return parts


def format_iocb_header(data: bytes, fl: F.ArchFlags,
                       fd_text: Callable[[int], str] = str) -> str | None:
    """The fields of a struct iocb strace prints for io_cancel: ``{aio_data=0x1234,
    aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3}``; None when short."""
    if len(data) < IOCB_SIZE:
        return None
    return "{" + ", ".join(_iocb_header(data, fl, fd_text)) + "}"


def format_iocb(data: bytes, fl: F.ArchFlags, fd_text: Callable[[int], str] = str
                ) -> str | None:
    """A struct iocb as io_submit prints it, for the opcodes whose fields are all in it:
    the header, then PREAD's ``aio_buf=0x..., aio_nbytes=4, aio_offset=0`` or POLL's
    events, then ``aio_flags`` and ``aio_resfd`` when set. None when short, and for
    PWRITE, PREADV and PWRITEV, whose aio_buf strace prints from the memory it points to
    (not captured)."""
    if len(data) < IOCB_SIZE:
        return None
    t = fl.tables
    opcode = struct.unpack_from("<H", data, 16)[0]
    cmd = t.IOCB_CMDS.get(opcode)
    if cmd in ("IOCB_CMD_PWRITE", "IOCB_CMD_PREADV", "IOCB_CMD_PWRITEV"):
        return None
    parts = _iocb_header(data, fl, fd_text)
    buf, nbytes, offset = struct.unpack_from("<QQq", data, 24)
    aio_flags, resfd = struct.unpack_from("<II", data, 56)
    if cmd == "IOCB_CMD_PREAD":
        parts += [f"aio_buf={pointer(buf)}", f"aio_nbytes={nbytes}", f"aio_offset={offset}"]
    elif cmd == "IOCB_CMD_POLL":
        parts.append(f"aio_buf={F.FlagSet(t.POLL_EVENTS)(buf)}")
    if aio_flags:
        parts.append(f"aio_flags={F.FlagSet(t.IOCB_FLAGS, unknown='IOCB_FLAG_???')(aio_flags)}")
        if aio_flags & _bit(t.IOCB_FLAGS, "IOCB_FLAG_RESFD"):
            parts.append(f"aio_resfd={fd_text(resfd - (1 << 32) if resfd >= 1 << 31 else resfd)}")
    return "{" + ", ".join(parts) + "}"


def format_io_uring_params(entry: bytes, exit_: bytes | None, fl: F.ArchFlags) -> str | None:
    """io_uring_setup's params: the fields the call reads from ``entry``, then those it
    wrote from ``exit_`` (None: the call failed); None when ``entry`` is short."""
    if len(entry) < IO_URING_PARAMS_SIZE:
        return None
    t = fl.tables
    _, _, flags, cpu, idle, _, wq_fd = _PARAMS_HEAD.unpack_from(entry)
    setup = F.FlagSet(t.IORING_SETUP_FLAGS, unknown="IORING_SETUP_???")
    parts = [f"flags={setup(flags)}", f"sq_thread_cpu={cpu:#x}" if cpu else "sq_thread_cpu=0",
             f"sq_thread_idle={idle}"]
    attach = next((v for v, n in t.IORING_SETUP_FLAGS if n == "IORING_SETUP_ATTACH_WQ"), 0)
    if flags & attach:
        parts.append(f"wq_fd={wq_fd - (1 << 32) if wq_fd >= 1 << 31 else wq_fd}")
    resv = _RESV.unpack_from(entry, _PARAMS_HEAD.size)
    if any(resv):               # strace 6.1 (io_uring.c): the reserved words when not zero
        parts.append("resv=[" + ", ".join(f"{r:#x}" if r else "0" for r in resv) + "]")
    if exit_ is not None and len(exit_) >= IO_URING_PARAMS_SIZE:
        sq_entries, cq_entries, _, _, _, features, _ = _PARAMS_HEAD.unpack_from(exit_)
        feats = F.FlagSet(t.IORING_FEAT_FLAGS)(features)
        sq_off = _OFFSETS.unpack_from(exit_, 40)
        cq_off = _OFFSETS.unpack_from(exit_, 80)
        parts += [f"sq_entries={sq_entries}", f"cq_entries={cq_entries}",
                  f"features={feats}", f"sq_off={_fields(_SQ_OFF_NAMES, sq_off)}",
                  f"cq_off={_fields(_CQ_OFF_NAMES, cq_off)}"]
    return "{" + ", ".join(parts) + "}"


def _fields(names: tuple[str, ...], values: tuple[int, ...]) -> str:
    return "{" + ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True)) + "}"


def _u64_out(data: bytes) -> str | None:
    return None if len(data) < 8 else f"[{pointer(int.from_bytes(data[:8], 'little'))}]"


def k_io_events(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """The ``ret`` io_events the call wrote (io_getevents, io_pgetevents): ``[]`` for
    none; the address when the call failed or they cannot be read."""
    if ev.args[i] == 0:
        return "NULL"
    cap = capture(ev, i) if succeeded(ev) else None
    if cap is None:
        return pointer(ev.args[i])
    texts = []
    for k in range(ev.ret):
        text = format_io_event(cap.data[k * IO_EVENT_SIZE:(k + 1) * IO_EVENT_SIZE])
        if text is None:
            texts.append("...")
            break
        texts.append(text)
    return "[" + ", ".join(texts) + "]"


def _k_iocbpp(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        """io_submit's iocb pointers: ``[]`` for nr 0; with nr 1 the iocb the first
        pointer points to (read with it: SPEC_DEREF), when :func:`format_iocb` can print
        it; else the address (the BPF program follows one pointer only)."""
        nr = signed(ev.args[i - 1], 64) if i else 1
        if ev.args[i] and nr == 0:
            return "[]"
        cap = capture(ev, i) if ev.args[i] and nr == 1 else None
        text = None
        if cap is not None and len(cap.data) >= 8 + IOCB_SIZE:
            text = format_iocb(cap.data[8:8 + IOCB_SIZE], fl,
                               lambda fd: d.fd_text(ev.tgid, fd))
        return pointer(ev.args[i]) if text is None else f"[{text}]"
    return k


def _k_uring_params(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        if ev.args[i] == 0:
            return "NULL"
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_FAULT]
        if not caps:
            return pointer(ev.args[i])
        exit_ = caps[-1].data if len(caps) >= 2 and succeeded(ev) else None
        text = format_io_uring_params(caps[0].data, exit_, fl)
        return pointer(ev.args[i]) if text is None else text
    return k


def _k_iocb(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture(ev, i) if ev.args[i] else None
        text = None if cap is None else format_iocb_header(
            cap.data, fl, lambda fd: d.fd_text(ev.tgid, fd))
        return pointer(ev.args[i]) if text is None else text
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {
        "aioctx_out": decoded_out(_u64_out),
        "ioevents": k_io_events,
        "ioevent_out": decoded_out(format_io_event),
        "iocb": _k_iocb(fl),
        "iocbpp": _k_iocbpp(fl),
        "uringparams": _k_uring_params(fl),
    }
