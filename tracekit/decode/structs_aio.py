"""Linux AIO and io_uring structs as strace 6.1 prints them.

- ``io_setup``'s context, written by the call: ``[0x7f5a1c2e1000]``.
- ``struct io_event`` (io_getevents, io_pgetevents, io_cancel's result):
  ``{data=0x1234, obj=0x7ffc906590e0, res=4, res2=0}``; an array of the ``ret`` events
  the call wrote (``[]`` for none).
- ``struct iocb`` as io_cancel reads it: ``{aio_data=0x1234,
  aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3}`` (aio_key, aio_rw_flags and
  aio_reqprio only when not 0).
- io_submit's array of iocb pointers: ``[]`` when nr is 0; up to IOCB_N (8) iocbs, each
  as strace prints it (``[{aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3,
  aio_buf="hello", aio_nbytes=5, aio_offset=0}, 0x1, ...]``: an unreadable iocb as its
  address, PWRITE's first 32 bytes of aio_buf, PREADV/PWRITEV's iovecs (``aio_buf=
  [{iov_base="hello", iov_len=5}]``, PWRITEV's bytes too), an array unreadable past its
  first elements as ``... /* 0x... */``), read by the BPF program (TK_CAP_IOCB). The
  address prints, as strace prints it, for nr < 0 and an unreadable array; and (gaps)
  for nr over IOCB_N (strace prints up to 32 iocbs, then ``...``) and for an array
  holding a PREADV/PWRITEV iocb of more than IOCB_IOV_N (4) iovecs (strace prints up
  to 32).
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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from tracekit._events import (
    CAP_BUF,
    CAP_IOCB,
    CAP_STRUCT,
    CAPF_DEREF,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_TRUNC,
    Syscall,
)
from tracekit.decode import flags as F, xstyle
from tracekit.decode.captures import (
    KindFn,
    capture,
    decoded_out,
    deref,
    elements_shown,
    succeeded,
)
from tracekit.decode.flagwords import ioprio_text
from tracekit.decode.structs_proc import format_cpuset
from tracekit.decode.values import hex0, pointer, quote, signed, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["IOCB_BUF_CAP", "IOCB_N", "IOCB_SIZE", "IO_EVENT_SIZE", "IO_URING_PARAMS_SIZE",
           "format_io_event", "format_io_uring_params", "format_iocb", "format_iocb_array",
           "format_iocb_header", "kinds", "URING_REG_ARRAYS", "URING_REG_BYTES_CAP",
           "URING_REG_HEADS", "URING_RSRC_PTRS"]

IO_EVENT_SIZE = 32          # struct io_event: data, obj, res, res2 (u64, u64, s64, s64)
IOCB_SIZE = 64              # struct iocb
IOCB_N = 8                  # TK_IOCB_N: the iocbs of an io_submit the BPF program reads
IOCB_BUF_CAP = 33           # PWRITE's aio_buf bytes read: strace reads -s + 1 of them
_IOCB_ELEM = struct.Struct("<QII")      # struct tk_iocb_elem: ptr, got, flags
_IOV_ELEM = struct.Struct("<QQII")      # struct tk_iov_elem: base, len, got, flags
IOCB_IOV_N = 4              # TK_IOCB_IOV_N: the iovecs of a PREADV/PWRITEV iocb read
IOCB_AFTER_MAX = 4 * (24 + 40)  # bytes after an iocb at most (TK_IOCB_IOV_N records)
_STR_LIMIT = 32             # strace's -s
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
    # strace's %#x: 0 prints as 0
    return (f"{{data={hex(ev_data) if ev_data else '0'}, obj={pointer(obj)}, res={res}, "
            f"res2={res2}}}")


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


class IocbVec(NamedTuple):
    """The first iovecs of a PREADV/PWRITEV iocb's aio_buf, as read (TK_CAP_IOCB)."""

    iovs: list[tuple[int, int, bytes | None]]   # (iov_base, iov_len, PWRITEV's bytes;
                                                # None: not read or unreadable)
    more: bool          # the array has more iovecs than read (TK_CAPF_TRUNC)
    cut: bool           # the array was unreadable after iovs (TK_CAPF_ELEM_FAULT)


def _iov_text(base: int, length: int, got: bytes | None, write: bool) -> str:
    if not write or not base:
        shown = pointer(base)
    elif got is None or len(got) < min(length, _STR_LIMIT + 1):
        shown = pointer(base)
    else:
        shown = quote(got[:min(length, _STR_LIMIT)], more=length > _STR_LIMIT)
    return f"{{iov_base={shown}, iov_len={length}}}"


def format_iocb(data: bytes, fl: F.ArchFlags, fd_text: Callable[[int], str] = str,
                buf_bytes: bytes | None = None, vec: IocbVec | None = None) -> str | None:
    """A struct iocb as io_submit prints it: the header, then PREAD's ``aio_buf=0x...,
    aio_nbytes=4, aio_offset=0``, PWRITE's with the bytes at aio_buf (``buf_bytes``: the
    first min(aio_nbytes, IOCB_BUF_CAP) of them, None when not read or unreadable: its
    address then; an aio_nbytes over SSIZE_MAX prints aio_buf in hex, as strace's
    iocb_is_valid wants), PREADV/PWRITEV's iovecs (``vec``: ``aio_buf=[{iov_base="ab",
    iov_len=2}], aio_offset=0``; the address when the array is unreadable), or POLL's
    events, then ``aio_flags`` and ``aio_resfd`` when set. None when short, and for a
    vector whose iovecs were not all read (more than IOCB_IOV_N, or not read)."""
    if len(data) < IOCB_SIZE:
        return None
    t = fl.tables
    opcode = struct.unpack_from("<H", data, 16)[0]
    cmd = t.IOCB_CMDS.get(opcode)
    parts = _iocb_header(data, fl, fd_text)
    buf, nbytes, offset = struct.unpack_from("<QQq", data, 24)
    aio_flags, resfd = struct.unpack_from("<II", data, 56)
    if cmd in ("IOCB_CMD_PREADV", "IOCB_CMD_PWRITEV"):
        if nbytes >= 1 << 63:
            parts += [f"aio_buf={hex(buf) if buf else '0'}", f"aio_nbytes={nbytes}"]
        elif not buf or not nbytes:
            parts.append(f"aio_buf={'NULL' if not buf else '[]'}")
        else:
            if vec is None or vec.more or len(vec.iovs) > nbytes or (
                    len(vec.iovs) < nbytes and not vec.cut):
                return None
            if not vec.iovs:
                parts.append(f"aio_buf={pointer(buf)}")
            else:
                write = cmd == "IOCB_CMD_PWRITEV"
                items = [_iov_text(b, n, got, write) for b, n, got in vec.iovs]
                if vec.cut:
                    items.append(f"... /* {hex(buf + 16 * len(vec.iovs))} */")
                parts.append(f"aio_buf=[{', '.join(items)}]")
        parts.append(f"aio_offset={offset}")
    elif cmd == "IOCB_CMD_PWRITE" and nbytes < 1 << 63 and buf:
        need = min(nbytes, _STR_LIMIT + 1)
        text = (pointer(buf) if buf_bytes is None or len(buf_bytes) < need
                else quote(buf_bytes[:min(need, _STR_LIMIT)], more=nbytes > _STR_LIMIT))
        parts += [f"aio_buf={text}", f"aio_nbytes={nbytes}", f"aio_offset={offset}"]
    elif cmd in ("IOCB_CMD_PREAD", "IOCB_CMD_PWRITE"):
        # strace's PRINT_FIELD_X: %#x, so 0 (a NULL PWRITE buffer: printstrn's NULL)
        shown = hex(buf) if buf else ("NULL" if cmd == "IOCB_CMD_PWRITE"
                                      and nbytes < 1 << 63 else "0")
        parts += [f"aio_buf={shown}", f"aio_nbytes={nbytes}", f"aio_offset={offset}"]
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


def _iovecs(after: bytes, eflags: int) -> IocbVec | None:
    """The struct tk_iov_elem records after a vector iocb; None when cut."""
    iovs: list[tuple[int, int, bytes | None]] = []
    pos = 0
    while pos < len(after):
        if pos + _IOV_ELEM.size > len(after) or len(iovs) >= IOCB_IOV_N:
            return None
        base, length, got, vflags = _IOV_ELEM.unpack_from(after, pos)
        pos += _IOV_ELEM.size
        if pos + got > len(after):
            return None
        iovs.append((base, length, None if vflags & CAPF_FAULT else after[pos:pos + got]))
        pos += (got + 7) // 8 * 8
    return IocbVec(iovs, bool(eflags & CAPF_TRUNC), bool(eflags & CAPF_ELEM_FAULT))


def format_iocb_array(data: bytes, flags: int, nr: int, addr: int, fl: F.ArchFlags,
                      fd_text: Callable[[int], str] = str) -> str | None:
    """io_submit's iocbs from a CAP_IOCB capture (programs/syscalls.h struct
    tk_iocb_elem records): ``[{...}, 0x1, ...]``, the array ending ``... /* 0x... */`` at
    the first pointer that could not be read (CAPF_ELEM_FAULT), as strace prints it.

    Args:
      data: the records; flags: the capture's CAPF_* bits.
      nr: io_submit's nr; addr: the array's address.

    Returns:
      The text; None when strace's text is not all there: nr over IOCB_N (TRUNC), a
      PREADV/PWRITEV iocb, fewer records than nr without ELEM_FAULT, a cut record.
    """
    if flags & CAPF_TRUNC or nr > IOCB_N or nr < 0:
        return None
    texts: list[str] = []
    pos = 0
    while pos < len(data) and len(texts) < nr:
        if pos + _IOCB_ELEM.size > len(data):
            return None
        ptr, got, eflags = _IOCB_ELEM.unpack_from(data, pos)
        pos += _IOCB_ELEM.size
        if eflags & CAPF_FAULT:
            texts.append(pointer(ptr))
            continue
        if pos + IOCB_SIZE + got > len(data) or got > IOCB_AFTER_MAX:
            return None
        iocb = data[pos:pos + IOCB_SIZE]
        after = data[pos + IOCB_SIZE:pos + IOCB_SIZE + got]
        buf = None if eflags & CAPF_ELEM_FAULT else after
        pos += IOCB_SIZE + (got + 7) // 8 * 8
        opcode = struct.unpack_from("<H", iocb, 16)[0]
        vec = None
        if fl.tables.IOCB_CMDS.get(opcode) in ("IOCB_CMD_PREADV", "IOCB_CMD_PWRITEV"):
            vec = _iovecs(after, eflags)
            if vec is None:
                return None
        text = format_iocb(iocb, fl, fd_text, buf, vec)
        if text is None:
            return None
        texts.append(text)
    if len(texts) < nr:
        if not flags & CAPF_ELEM_FAULT:
            return None
        texts.append(f"... /* {hex(addr + 8 * len(texts))} */")
    return "[" + ", ".join(texts) + "]"


def _old_first_iocb(ev: Syscall, i: int, fl: F.ArchFlags,
                    fd_text: Callable[[int], str]) -> str | None:
    """A recording made before TK_CAP_IOCB: nr 1's pointer and iocb in a SPEC_DEREF
    STRUCT capture (8 + 64 bytes); printed unless strace prints memory it points to
    (PWRITE's bytes, a vector's iovecs), which that capture does not hold."""
    cap = capture(ev, i)
    if cap is None or cap.kind != CAP_STRUCT or len(cap.data) < 8 + IOCB_SIZE:
        return None
    iocb = cap.data[8:8 + IOCB_SIZE]
    opcode = struct.unpack_from("<H", iocb, 16)[0]
    if fl.tables.IOCB_CMDS.get(opcode) in ("IOCB_CMD_PWRITE", "IOCB_CMD_PREADV",
                                           "IOCB_CMD_PWRITEV"):
        return None
    text = format_iocb(iocb, fl, fd_text)
    return None if text is None else f"[{text}]"


def _k_iocbpp(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        """io_submit's iocb pointers (CAP_IOCB, :func:`format_iocb_array`): ``[]`` for
        nr 0; the address for nr < 0, an unreadable array, and the gaps."""
        nr = signed(ev.args[i - 1], 64) if i else 1
        if ev.args[i] and nr == 0:
            return "[]"
        cap = next((c for c in ev.caps if c.arg == i and c.kind == CAP_IOCB
                    and not c.flags & CAPF_FAULT), None) if ev.args[i] and nr > 0 else None
        text = None if cap is None else format_iocb_array(
            cap.data, cap.flags, nr, ev.args[i], fl, lambda fd: d.fd_text(ev.tgid, fd))
        if cap is None and nr == 1:
            text = _old_first_iocb(ev, i, fl, lambda fd: d.fd_text(ev.tgid, fd))
        return pointer(ev.args[i]) if text is None else text
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


# io_uring_register's argument (strace 6.1's SYS_FUNC(io_uring_register), io_uring.c):
# what the BPF program reads at entry (tracekit/session/capture.py), the decoder picks by
# the opcode. Fixed reads of the operations' structs: struct io_uring_rsrc_register and
# io_uring_rsrc_update2 (32 bytes), io_uring_files_update (16, within the 32), struct
# io_uring_buf_reg (40); nr_args bytes (the *2 structs' size: strace shows the bytes
# past 32 up to a page); arrays of nr_args elements of 4 bytes (fds) and 16 (iovecs,
# restrictions, rsrc updates), as many as strace shows by default (-s 32 of them).
URING_REG_HEADS = (32, 40)
URING_REG_BYTES_CAP = 4096
URING_REG_ARRAYS = ((4, 32 * 4), (16, 32 * 16))
# what the rsrc structs' data and tags point to, by the pointer's offset (register: data
# at 16, tags at 24; update2: data at 8, tags at 16) and the bytes read there: 32 iovecs,
# 32 tags (TK_SPEC_PTR_AT: those up to the end of the array's page when fewer)
URING_RSRC_PTRS = ((8, 32 * 16), (16, 32 * 16), (24, 32 * 8))
_RSRC_SIZE, _BUF_REG_SIZE, _FILES_UPDATE_SIZE = 32, 40, 16
# include/uapi/linux/io_uring.h, the names strace 6.1 knows (its xlat/uring_*.in)
_URING_OPS = {i: "IORING_OP_" + n for i, n in enumerate((
    "NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD",
    "POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE",
    "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE",
    "FILES_UPDATE", "STATX", "READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV",
    "OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
    "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT", "MSG_RING",
    "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET", "URING_CMD"))}
_IOSQE = F.FlagSet(tuple((1 << b, "IOSQE_" + n) for b, n in enumerate((
    "FIXED_FILE", "IO_DRAIN", "IO_LINK", "IO_HARDLINK", "ASYNC", "BUFFER_SELECT",
    "CQE_SKIP_SUCCESS"))), unknown="IOSQE_???")
_RESTRICTIONS = {0: "IORING_RESTRICTION_REGISTER_OP", 1: "IORING_RESTRICTION_SQE_OP",
                 2: "IORING_RESTRICTION_SQE_FLAGS_ALLOWED",
                 3: "IORING_RESTRICTION_SQE_FLAGS_REQUIRED"}
_RSRC_FLAGS = F.FlagSet(((1, "IORING_RSRC_REGISTER_SPARSE"),),
                        unknown="IORING_RSRC_REGISTER_???")
_FILES_SKIP = {-2: "IORING_REGISTER_FILES_SKIP"}


def _skip_text(v: int) -> str:
    """An fd of a files update below -1: IORING_REGISTER_FILES_SKIP (-2) by name in the
    style (tracekit.decode.xstyle), else the number."""
    name = _FILES_SKIP.get(v)
    return str(v) if name is None else xstyle.named(str(v), name)
_M32 = 0xFFFFFFFF


def _uring_head(ev: Syscall, i: int, size: int) -> bytes | None:
    """The fixed read of ``size`` bytes (one of URING_REG_HEADS: the smallest that holds
    it) of argument ``i``, None when it was not readable."""
    for head in URING_REG_HEADS:
        if head < size:
            continue
        for c in ev.caps:
            if (c.arg == i and c.kind == CAP_STRUCT and len(c.data) == head
                    and not c.flags & (CAPF_FAULT | CAPF_DEREF)):
                return c.data[:size]
    return None


def _uring_read(ev: Syscall, i: int, n: int, size: int, cap: int) -> bytes | None:
    """The read of ``n`` elements of ``size`` bytes (a CAP_BUF spec of ``cap`` bytes: its
    first ones when more), None when it was unreadable. Reads of other element sizes that
    came out as long are reads of the same bytes."""
    got = min(n * size, cap)
    for c in ev.caps:
        if (c.arg == i and c.kind == CAP_BUF and len(c.data) == got
                and not c.flags & (CAPF_FAULT | CAPF_DEREF)):
            return c.data
    return None


def _uring_array(d: SyscallDecoder, addr: int, n: int, data: bytes | None, size: int,
                 elem: Callable[[bytes], str], *, cut: bool = False) -> str:
    """strace's print_array: NULL, ``[]`` for no elements, the address when unread, else
    the elements (``...`` past -s of them unless the call is printed in full). ``cut``:
    the memory after ``data`` was unreadable (strace: ``... /* 0x... */`` at the first
    element it could not read; the address when that is the first)."""
    if not addr:
        return "NULL"
    if not n:
        return "[]"
    limit = elements_shown(d)
    shown = min(n, limit)
    if data is None or len(data) < size:
        return pointer(addr)
    have = len(data) // size
    items = [elem(data[k * size:(k + 1) * size]) for k in range(min(shown, have))]
    if shown > have:                # past what was read
        items.append(f"... /* {pointer(addr + have * size)} */" if cut else "...")
    elif n > limit:
        items.append("...")
    return "[" + ", ".join(items) + "]"


def _restriction(b: bytes, fl: F.ArchFlags) -> str:
    """struct io_uring_restriction: the opcode, then its operand by the opcode."""
    op, val, resv = struct.unpack_from("<HBB", b)
    resv2 = struct.unpack_from("<3I", b, 4)
    text = f"opcode={xval(_RESTRICTIONS, op, 'IORING_RESTRICTION_???')}"
    name = _RESTRICTIONS.get(op, "")
    if name.endswith("REGISTER_OP"):
        text += f", register_op={xval(fl.tables.IORING_REGISTER_OPS, val, 'IORING_REGISTER_???')}"
    elif name.endswith("SQE_OP"):
        text += f", sqe_op={xval(_URING_OPS, val, 'IORING_OP_???')}"
    elif name:
        text += f", sqe_flags={_IOSQE(val)}"
    else:
        text += f" /* op: {hex0(val)} */"
    if resv:
        text += f", resv={resv:#x}"
    if any(resv2):
        text += ", resv2=[" + ", ".join(hex0(v) for v in resv2) + "]"
    return "{" + text + "}"


def _iovec_addr(b: bytes) -> str:
    base, length = struct.unpack_from("<QQ", b)
    return f"{{iov_base={pointer(base)}, iov_len={length}}}"


def _k_uring_register_arg(fl: F.ArchFlags) -> KindFn:
    ops = fl.tables.IORING_REGISTER_OPS

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        """io_uring_register's ``arg`` by the opcode (the argument before it): arrays of
        fds, iovecs, restrictions and ring fds, the rsrc structs (their data and tags
        arrays as ``[]`` when empty, else their addresses: not read), the buffer ring
        registration; its address for the other opcodes and what was not read."""
        addr = ev.args[i]
        name = ops.get(ev.args[i - 1] & _M32, "") if i else ""
        n = ev.args[i + 1] & _M32 if i < 5 else 0

        def fd(b: bytes) -> str:
            return d.fd_text(ev.tgid, signed(struct.unpack_from("<I", b)[0], 32))

        def update_fd(b: bytes) -> str:
            v = signed(struct.unpack_from("<I", b)[0], 32)
            return _skip_text(v) if v < -1 else d.fd_text(ev.tgid, v)

        def arr(size: int, elem: Callable[[bytes], str]) -> str:
            cap = dict(URING_REG_ARRAYS)[size]
            data = _uring_read(ev, i, n, size, cap) if addr and n else None
            return _uring_array(d, addr, n, data, size, elem)

        if name == "IORING_REGISTER_BUFFERS":
            return arr(16, _iovec_addr)
        if name in ("IORING_REGISTER_FILES", "IORING_REGISTER_EVENTFD",
                    "IORING_REGISTER_EVENTFD_ASYNC"):
            return arr(4, fd)
        if name == "IORING_REGISTER_RESTRICTIONS":
            return arr(16, lambda b: _restriction(b, fl))
        if name == "IORING_REGISTER_RING_FDS":
            return arr(16, lambda b: _ring_fd(b, fd, True))
        if name == "IORING_UNREGISTER_RING_FDS":
            return arr(16, lambda b: _ring_fd(b, fd, False))
        if not addr:
            return pointer(addr)
        if name in ("IORING_REGISTER_PBUF_RING", "IORING_UNREGISTER_PBUF_RING"):
            head = _uring_head(ev, i, _BUF_REG_SIZE)
            return pointer(addr) if head is None else _buf_reg(head)
        if name == "IORING_REGISTER_FILES_UPDATE":
            head = _uring_head(ev, i, _FILES_UPDATE_SIZE)
            if head is None:
                return pointer(addr)
            offset, resv, fds = struct.unpack_from("<IIQ", head)
            text = f"{{offset={offset}" + (f", resv={resv:#x}" if resv else "")
            return text + f", fds={_uring_ptr_array(d, ev, i, 8, fds, n, 4, update_fd)}}}"
        if name in ("IORING_REGISTER_IOWQ_AFF", "IORING_REGISTER_IOWQ_MAX_WORKERS") and not n:
            return "[]"                 # (their elements are not read)
        if name == "IORING_REGISTER_IOWQ_AFF":
            return _iowq_aff(addr, n, _uring_read(ev, i, n, 1, URING_REG_BYTES_CAP))
        if name == "IORING_REGISTER_IOWQ_MAX_WORKERS":
            data = _uring_read(ev, i, n, 4, dict(URING_REG_ARRAYS)[4])
            if data is None:
                return pointer(addr)
            return _iowq_max_workers(addr, n, data, elements_shown(d), fl.tables.IO_WQ_ACCT)
        if name in ("IORING_REGISTER_FILES2", "IORING_REGISTER_BUFFERS2",
                    "IORING_REGISTER_FILES_UPDATE2", "IORING_REGISTER_BUFFERS_UPDATE"):
            head = _uring_head(ev, i, _RSRC_SIZE) if n >= _RSRC_SIZE else None
            if head is None:
                return pointer(addr)
            return _rsrc(d, ev, i, name, head, n)
        return pointer(addr)
    return k


_CPUSET_MIN = 128       # strace's smallest cpuset size (bytes): it reads no more than this


def _iowq_aff(addr: int, n: int, data: bytes | None) -> str:
    """IORING_REGISTER_IOWQ_AFF's CPU mask of ``n`` bytes as strace's affinity list:
    ``[0 1 5]``, `` ...`` after its first 128 bytes' CPUs when it is longer."""
    if data is None:
        return pointer(addr)
    text = format_cpuset(data[:min(n, _CPUSET_MIN)])
    if n > _CPUSET_MIN:
        text = text[:-1] + (" ..." if text != "[]" else "...") + "]"
    return text


def _iowq_max_workers(addr: int, n: int, data: bytes, limit: int,
                      names: Mapping[int, str]) -> str:
    """IORING_REGISTER_IOWQ_MAX_WORKERS' counts by index, ``[[IO_WQ_BOUND]=4,
    [IO_WQ_UNBOUND]=0]``, then `` => `` and what strace reads again at exit: the
    address (a failed call's, as strace; a successful one's counts are not captured)."""
    counts = [f"[{names.get(k, f'{k} /* IO_WQ_??? */')}]="
              f"{struct.unpack_from('<I', data, 4 * k)[0]}"
              for k in range(min(n, limit, len(data) // 4))]
    if n > min(limit, len(data) // 4):
        counts.append("...")
    return f"[{', '.join(counts)}] => {pointer(addr)}"


def _ring_fd(b: bytes, fd: Callable[[bytes], str], register: bool) -> str:
    """struct io_uring_rsrc_update of IORING_(UN)REGISTER_RING_FDS."""
    offset, resv, data = struct.unpack_from("<IIQ", b)
    text = f"{{offset={signed(offset, 32) if register and offset == _M32 else offset}"
    if resv:
        text += f", resv={resv:#x}"
    if register:
        text += f", data={fd(b[8:12])}"
    elif data:
        text += f", data={data:#x}"
    return text + "}"


def _buf_reg(b: bytes) -> str:
    """struct io_uring_buf_reg."""
    ring, entries, bgid, pad = struct.unpack_from("<QIHH", b)
    resv = struct.unpack_from("<3Q", b, 16)
    text = f"{{ring_addr={pointer(ring)}, ring_entries={entries}, bgid={bgid}"
    if pad:
        text += f", pad={pad:#x}"
    if any(resv):
        text += ", resv=[" + ", ".join(hex0(v) for v in resv) + "]"
    return text + "}"


def _uring_ptr_array(d: SyscallDecoder, ev: Syscall, i: int, at: int, ptr: int, n: int,
                     size: int, elem: Callable[[bytes], str]) -> str:
    """The array of ``n`` elements the pointer ``ptr`` at byte ``at`` of argument ``i``'s
    struct points to (its TK_SPEC_PTR_AT read: up to the end of its page when the whole
    read faulted)."""
    got = deref(ev, i, at) if ptr and n else None
    if got is None or got.ptr != ptr:
        return _uring_array(d, ptr, n, None, size, elem)
    return _uring_array(d, ptr, n, got.data, size, elem, cut=not got.readable)


def _xint64(b: bytes) -> str:
    return hex0(struct.unpack_from("<Q", b)[0])


def _rsrc(d: SyscallDecoder, ev: Syscall, i: int, name: str, head: bytes, size: int) -> str:
    """struct io_uring_rsrc_register (FILES2, BUFFERS2) or io_uring_rsrc_update2
    (FILES_UPDATE2, BUFFERS_UPDATE), then the bytes past its 32 (nr_args is its size):
    ``???`` when unreadable, ``/* bytes 32..N */ "\\x.."`` when any is not zero."""
    def fd(b: bytes) -> str:
        return d.fd_text(ev.tgid, signed(struct.unpack_from("<I", b)[0], 32))

    def update_fd(b: bytes) -> str:
        v = signed(struct.unpack_from("<I", b)[0], 32)
        return _skip_text(v) if v < -1 else d.fd_text(ev.tgid, v)

    if name.endswith("2") and "UPDATE" not in name:
        nr, flags, resv2, data, tags = struct.unpack_from("<IIQQQ", head)
        out = [f"nr={nr}", f"flags={_RSRC_FLAGS(flags)}"]
        if resv2:
            out.append(f"resv2={resv2:#x}")
        tail: list[str] = []
    else:
        offset, resv, data, tags, nr, resv2 = struct.unpack_from("<IIQQII", head)
        out = [f"offset={offset}"] + ([f"resv={resv:#x}"] if resv else [])
        tail = [f"nr={nr}"] + ([f"resv2={resv2:#x}"] if resv2 else [])
    at_data, at_tags = (8, 16) if tail else (16, 24)

    def array(ptr: int, at: int, size: int, elem: Callable[[bytes], str]) -> str:
        return _uring_ptr_array(d, ev, i, at, ptr, nr, size, elem)

    if "BUFFERS" in name:
        shown_data = array(data, at_data, 16, _iovec_addr)
    else:
        shown_data = array(data, at_data, 4, fd if "UPDATE" not in name else update_fd)
    out += [f"data={shown_data}", f"tags={array(tags, at_tags, 8, _xint64)}", *tail]
    if size > _RSRC_SIZE:
        end = min(size, URING_REG_BYTES_CAP)
        raw = _uring_read(ev, i, size, 1, URING_REG_BYTES_CAP)
        if raw is None or len(raw) < end:
            out.append("???")
        elif any(raw[_RSRC_SIZE:end]):
            shown = quote(raw[_RSRC_SIZE:end], force_hex=True, limit=d.string_limit)
            out.append(f"/* bytes {_RSRC_SIZE}..{end - 1} */ {shown}")
    return "{" + ", ".join(out) + "}"


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {
        "aioctx_out": decoded_out(_u64_out),
        "ioevents": k_io_events,
        "ioevent_out": decoded_out(format_io_event),
        "iocb": _k_iocb(fl),
        "iocbpp": _k_iocbpp(fl),
        "uringparams": _k_uring_params(fl),
        "uringregarg": _k_uring_register_arg(fl),
    }
