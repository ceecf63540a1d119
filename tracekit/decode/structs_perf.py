"""perf_event_open's ``struct perf_event_attr`` as strace 6.1 prints it without ``-v``.

``{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_CPU_CYCLES,
sample_period=0, sample_type=0, read_format=0, disabled=1, precise_ip=0 /* arbitrary
skid */, ...}``: the type, the size (``0x7f /* PERF_ATTR_SIZE_??? */`` for one without a
name), the config as its type reads it, the sample period (or ``sample_freq`` with the
``freq`` bit), the sample and read formats, the bit fields that are set (``precise_ip``
always, with its comment; the reserved bits as ``__reserved_1=0x4 /* Bits 63..38 */``),
then ``...``. A size other than 0 and below PERF_ATTR_SIZE_VER0 (64) prints as the
address, as strace does. Only the first 48 bytes are read (the fields above); after
E2BIG the size again (the kernel wrote the size it knows: ``size=0xa0 => 0x88``).

Layout: include/uapi/linux/perf_event.h (the same on x86_64 and arm64).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from tracekit._events import CAPF_DEREF, CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn
from tracekit.decode.values import pointer, xval as _xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["PERF_ATTR_HEAD_SIZE", "format_perf_event_attr", "kinds"]

PERF_ATTR_HEAD_SIZE = 48    # type .. the bit fields: what strace prints without -v
_HEAD = struct.Struct("<IIQQQQQ")
_SIZE_VER0 = 64
_E2BIG = 7
_M32 = 0xFFFFFFFF
# the bit fields after read_format, in order; precise_ip is two bits (15, 16)
_BITS = ("disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
         "exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat",
         "enable_on_exec", "task", "watermark")
_BITS_AFTER = ("mmap_data", "sample_id_all", "exclude_host", "exclude_guest",
               "exclude_callchain_kernel", "exclude_callchain_user", "mmap2", "comm_exec",
               "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
               "bpf_event", "aux_output", "cgroup", "text_poke", "build_id",
               "inherit_thread", "remove_on_exec", "sigtrap")
_PRECISE_SHIFT, _AFTER_SHIFT, _RESERVED_SHIFT = 15, 17, 38
_SKID = ("arbitrary skid", "constant skid", "requested to have 0 skid", "must have 0 skid")


def _config(fl: F.ArchFlags, typ: int, config: int) -> str:
    t = fl.tables
    name = t.PERF_TYPES.get(typ)
    if name in ("PERF_TYPE_HARDWARE", "PERF_TYPE_HW_CACHE"):
        # the PMU type of a hybrid CPU in the high half: ``0xa<<32|...``
        high = f"{config >> 32:#x}<<32|" if config >> 32 else ""
        low = config & _M32
        if name == "PERF_TYPE_HARDWARE":
            return high + _xval(t.PERF_HW_IDS, low, "PERF_COUNT_HW_???")
        result = _xval(t.PERF_HW_CACHE_RESULTS, low >> 16 & 0xFF,
                       "PERF_COUNT_HW_CACHE_RESULT_???")
        op = _xval(t.PERF_HW_CACHE_OPS, low >> 8 & 0xFF, "PERF_COUNT_HW_CACHE_OP_???")
        cache = _xval(t.PERF_HW_CACHE_IDS, low & 0xFF, "PERF_COUNT_HW_CACHE_???")
        top = f"{low >> 24:#x}<<24|" if low >> 24 else ""     # bits 24..31: no field
        return f"{high}{top}{result}<<16|{op}<<8|{cache}"
    if name == "PERF_TYPE_SOFTWARE":
        return _xval(t.PERF_SW_IDS, config, "PERF_COUNT_SW_???")
    if name == "PERF_TYPE_TRACEPOINT":
        return str(config)
    return hex(config) if config else "0"


def format_perf_event_attr(data: bytes, fl: F.ArchFlags, new_size: bytes | None = None
                           ) -> str | None:
    """The abbreviated struct (module docstring); None when ``data`` is short or the
    size is one strace prints as the address. ``new_size``: the struct's first 8 bytes
    as read at exit of a call that failed with E2BIG (the kernel wrote the size it
    knows there: ``size=0xa0 => PERF_ATTR_SIZE_VER7``; ``b""``: unreadable, ``=> ???``)."""
    if len(data) < PERF_ATTR_HEAD_SIZE:
        return None
    typ, size, config, period, sample_type, read_format, bits = _HEAD.unpack_from(data)
    if size and size < _SIZE_VER0:
        return None
    t = fl.tables
    samples = F.FlagSet(t.PERF_SAMPLE_FORMAT, unknown="PERF_SAMPLE_???")
    reads = F.FlagSet(t.PERF_READ_FORMAT, unknown="PERF_FORMAT_???")
    freq = bits >> _BITS.index("freq") & 1
    parts = [f"type={_xval(t.PERF_TYPES, typ, 'PERF_TYPE_???')}",
             f"size={_xval(t.PERF_ATTR_SIZES, size, 'PERF_ATTR_SIZE_???')}"
             + ("" if new_size is None else " => " + (
                 _xval(t.PERF_ATTR_SIZES, _u32(new_size, 4), "PERF_ATTR_SIZE_???")
                 if len(new_size) >= 8 else "???")),
             f"config={_config(fl, typ, config)}",
             f"sample_freq={period}" if freq else f"sample_period={period}",
             f"sample_type={samples(sample_type)}", f"read_format={reads(read_format)}"]
    parts += [f"{n}=1" for k, n in enumerate(_BITS) if bits >> k & 1]
    precise = bits >> _PRECISE_SHIFT & 3
    parts.append(f"precise_ip={precise} /* {_SKID[precise]} */")
    parts += [f"{n}=1" for k, n in enumerate(_BITS_AFTER) if bits >> (_AFTER_SHIFT + k) & 1]
    reserved = bits >> _RESERVED_SHIFT
    if reserved:
        parts.append(f"__reserved_1={reserved:#x} /* Bits 63..{_RESERVED_SHIFT} */")
    return "{" + ", ".join(parts) + ", ...}"


def _u32(data: bytes, off: int) -> int:
    return int.from_bytes(data[off:off + 4], "little")


def _k_perf_attr(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF]
        # capture.py's order: the head at entry, then the type and size at exit
        head = caps[0] if caps else None
        if not ev.args[i] or d.full or head is None or head.flags & CAPF_FAULT:
            return pointer(ev.args[i])
        new_size = None
        after = caps[1] if len(caps) >= 2 else None
        if ev.ret == -_E2BIG and after is not None:
            # the one error that changes the size field (strace reads it again)
            new_size = b"" if after.flags & CAPF_FAULT else after.data
        text = format_perf_event_attr(head.data, fl, new_size)
        return pointer(ev.args[i]) if text is None else text
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {"perfattr": _k_perf_attr(fl)}
