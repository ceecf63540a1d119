"""perf_event_open's ``struct perf_event_attr`` as strace 6.1 prints it.

``{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_CPU_CYCLES,
sample_period=0, sample_type=0, read_format=0, disabled=1, precise_ip=0 /* arbitrary
skid */, ...}``: the type, the size (``0x7f /* PERF_ATTR_SIZE_??? */`` for one without a
name), the config as its type reads it, the sample period (or ``sample_freq`` with the
``freq`` bit), the sample and read formats, the bit fields that are set (``precise_ip``
always, with its comment; the reserved bits as ``__reserved_1=0x4 /* Bits 63..38 */``),
then ``...``. A size other than 0 and below PERF_ATTR_SIZE_VER0 (64) prints as the
address, as strace does. Only the first 48 bytes are read (the fields above); after
E2BIG the size again (the kernel wrote the size it knows: ``size=0xa0 => 0x88``).

Not abbreviated (``-v``): every bit field (``inherit=0``), then ``wakeup_events`` (or
``wakeup_watermark``), a breakpoint's ``bp_type``, ``bp_addr``/``config1`` and the fields
of the later versions up to ``sig_data`` that the size covers (its bytes are read: the
size, 0 read as PERF_ATTR_SIZE_VER0, at most PERF_ATTR_SIZE_VER7, which strace knows;
``...`` for a larger one); the address when they cannot all be read (strace's
fetch_perf_event_attr and print_perf_event_attr, src/perf.c).

Layout: include/uapi/linux/perf_event.h (the same on x86_64 and arm64).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from tracekit._events import CAPF_DEREF, CAPF_FAULT, CAPF_PARTIAL, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn
from tracekit.decode.values import hex0, pointer, xval as _xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["PERF_ATTR_HEAD_SIZE", "PERF_ATTR_SIZE", "format_perf_event_attr", "kinds"]

PERF_ATTR_HEAD_SIZE = 48    # type .. the bit fields: what strace prints without -v
PERF_ATTR_SIZE = 128        # PERF_ATTR_SIZE_VER7: the most strace 6.1 reads (-v)
_HEAD = struct.Struct("<IIQQQQQ")
# wakeup_events, bp_type, config1, config2, branch_sample_type, sample_regs_user,
# sample_stack_user, clockid, sample_regs_intr, aux_watermark, sample_max_stack,
# __reserved_2, aux_sample_size, __reserved_3, sig_data
_LATER = struct.Struct("<IIQQQQIIQIHHIIQ")
_SAMPLE_BRANCH_STACK, _SAMPLE_STACK_USER = 1 << 11, 1 << 13     # enum perf_event_sample_format
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


def format_perf_event_attr(data: bytes, fl: F.ArchFlags, new_size: bytes | None = None, *,
                           full: bool = False) -> str | None:
    """The struct (module docstring); None when ``data`` is short or the size is one
    strace prints as the address. ``new_size``: the struct's first 8 bytes as read at
    exit of a call that failed with E2BIG (the kernel wrote the size it knows there:
    ``size=0xa0 => PERF_ATTR_SIZE_VER7``; ``b""``: unreadable, ``=> ???``). ``full``: not
    abbreviated (strace -v); ``data`` then holds what could be read of the struct, at
    most PERF_ATTR_SIZE bytes (None unless it holds all that the size asks)."""
    if len(data) < PERF_ATTR_HEAD_SIZE:
        return None
    typ, size, config, period, sample_type, read_format, bits = _HEAD.unpack_from(data)
    if size and size < _SIZE_VER0:
        return None
    shown = PERF_ATTR_HEAD_SIZE
    if full:
        shown = min(size, PERF_ATTR_SIZE) or _SIZE_VER0
        if len(data) < shown:
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
    parts += [f"{n}={bits >> k & 1}" for k, n in enumerate(_BITS) if full or bits >> k & 1]
    precise = bits >> _PRECISE_SHIFT & 3
    parts.append(f"precise_ip={precise} /* {_SKID[precise]} */")
    parts += [f"{n}={bits >> (_AFTER_SHIFT + k) & 1}" for k, n in enumerate(_BITS_AFTER)
              if full or bits >> (_AFTER_SHIFT + k) & 1]
    reserved = bits >> _RESERVED_SHIFT
    if reserved:
        parts.append(f"__reserved_1={reserved:#x} /* Bits 63..{_RESERVED_SHIFT} */")
    if full:
        parts += _later_fields(data[:shown].ljust(PERF_ATTR_SIZE, b"\0"), shown, fl, typ,
                               sample_type, bits)
    return "{" + ", ".join(parts) + (", ...}" if size > shown or not size and not full
                                     else "}")


def _later_fields(data: bytes, shown: int, fl: F.ArchFlags, typ: int, sample_type: int,
                  bits: int) -> list[str]:
    """The fields after the bit fields (strace -v), from wakeup_events on: those of
    PERF_ATTR_SIZE_VER1 on while ``shown`` (the size read) reaches their offset. ``data``
    is PERF_ATTR_SIZE bytes."""
    t = fl.tables
    (wakeup, bp_type, config1, config2, branch, regs_user, stack_user, clockid, regs_intr,
     aux_watermark, max_stack, reserved_2, aux_sample, reserved_3,
     sig_data) = _LATER.unpack_from(data, PERF_ATTR_HEAD_SIZE)
    breakpoint = t.PERF_TYPES.get(typ) == "PERF_TYPE_BREAKPOINT"
    out = [("wakeup_watermark" if bits >> _BITS.index("watermark") & 1 else "wakeup_events")
           + f"={wakeup}"]
    if breakpoint:
        # a type naming R/W and X together is invalid (those up to RW|X: strace's name)
        unknown = "HW_BREAKPOINT_INVALID" if bp_type <= 7 else "HW_BREAKPOINT_???"
        out += [f"bp_type={_xval(t.HW_BREAKPOINT_TYPES, bp_type, unknown)}",
                f"bp_addr={hex0(config1)}"]
    else:
        out.append(f"config1={hex0(config1)}")
    branches = F.FlagSet(t.PERF_BRANCH_SAMPLE, unknown="PERF_SAMPLE_BRANCH_???")
    use_clockid = bits >> (_AFTER_SHIFT + _BITS_AFTER.index("use_clockid")) & 1
    # (offset, text or None: not printed); a text starting " /*" comments the one before
    later: tuple[tuple[int, str | None], ...] = (
        (64, f"bp_len={config2}" if breakpoint else f"config2={hex0(config2)}"),
        (72, f"branch_sample_type={branches(branch)}"
         if sample_type & _SAMPLE_BRANCH_STACK else None),
        (80, f"sample_regs_user={hex0(regs_user)}"),
        (88, f"sample_stack_user={hex0(stack_user)}"
         if sample_type & _SAMPLE_STACK_USER else None),
        (92, f"clockid={_xval(t.CLOCK_IDS, clockid, 'CLOCK_???')}" if use_clockid else None),
        (96, f"sample_regs_intr={hex0(regs_intr)}"),
        (104, f"aux_watermark={aux_watermark}"),
        (108, f"sample_max_stack={max_stack}"),
        (110, f" /* bytes 110..111: {reserved_2:#x} */" if reserved_2 else None),
        (112, f"aux_sample_size={aux_sample}"),
        (116, f" /* bytes 116..119: {reserved_3:#x} */" if reserved_3 else None),
        (120, f"sig_data={hex0(sig_data)}"),
    )
    for offset, text in later:
        if offset >= shown:
            break
        if text is not None and text.startswith(" /*"):
            out[-1] += text
        elif text is not None:
            out.append(text)
    return out


def _u32(data: bytes, off: int) -> int:
    return int.from_bytes(data[off:off + 4], "little")


def _k_perf_attr(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF]
        # capture.py's order: the head and the whole struct at entry (or, faulted there,
        # retried at exit), then the type and size at exit
        if not ev.args[i] or len(caps) < 3:
            return pointer(ev.args[i])
        head, whole, after = caps[0], caps[1], caps[2]
        new_size = None
        if ev.ret == -_E2BIG:
            # the one error that changes the size field (strace reads it again)
            new_size = b"" if after.flags & CAPF_FAULT else after.data
        if d.full:
            # what could be read: the bytes up to the end of the page of a faulted read
            data = whole.readable if whole.flags & CAPF_PARTIAL else \
                b"" if whole.flags & CAPF_FAULT else whole.data
            text = format_perf_event_attr(data, fl, new_size, full=True)
        else:
            text = None if head.flags & CAPF_FAULT else \
                format_perf_event_attr(head.data, fl, new_size)
        return pointer(ev.args[i]) if text is None else text
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {"perfattr": _k_perf_attr(fl)}
