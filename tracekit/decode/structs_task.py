"""Structs of per-thread and clock calls, as strace 6.1 prints them: struct timex
(adjtimex, clock_adjtime), struct futex_waitv (futex_waitv), seccomp's query arguments,
struct user_desc (modify_ldt, set_thread_area, get_thread_area) and the NUMA node masks
of the memory policy calls.

Each ``format_*`` takes the bytes the record captured (little-endian, the 64-bit layouts
of include/uapi/linux/{timex,futex,seccomp}.h and arch/x86/include/uapi/asm/ldt.h) and
returns the text, or None when the bytes are too short (the caller prints the address,
as strace does for memory it cannot read). :func:`kinds` gives the argument kinds
(tracekit.decode.argspec):

- ``timex``: the struct timex the call filled in, ``{modes=0, offset=0, freq=0, ...,
  status=STA_UNSYNC|STA_NANO, ..., time={tv_sec=..., tv_usec=...}, ..., tai=0}`` (read at
  exit: what the kernel wrote back); the address when the call failed. Return kind
  ``clockstate``: ``5 (TIME_ERROR)``.
- ``futexwaiters``: futex_waitv's array (count: the next argument), read at entry:
  ``[{val=0x1, uaddr=0x7ffc..., flags=FUTEX_32|FUTEX_PRIVATE_FLAG}]``.
- ``seccomparg``: seccomp's third argument by the operation in the first:
  SECCOMP_GET_ACTION_AVAIL's action (read at entry, ``[SECCOMP_RET_LOG]``),
  SECCOMP_GET_NOTIF_SIZES' sizes (written, ``{seccomp_notif=80, seccomp_notif_resp=24,
  seccomp_data=64}``), SECCOMP_SET_MODE_FILTER's program (tracekit.decode.structs_cbpf),
  else the address.
- ``nodes_in``/``nodes_out``: a node mask of ``maxnode`` (the next argument) bits, as
  the longs that hold ``maxnode - 1`` bits in C's ``%#0*lx`` of width 16:
  ``[0x00000000000001, 0000000000000000]`` (mbind, set_mempolicy at entry;
  get_mempolicy at exit); ``migrate_nodes``: migrate_pages' masks (maxnode: argument
  1); no longs (maxnode 0 or 1): the address. At most 32 longs, then ``...``.
- ``seccompflags``: SECCOMP_SET_MODE_FILTER's flags by name, other operations' in hex.
- ``schedattr_in``: sched_setattr's struct sched_attr (include/uapi/linux/sched/types.h),
  read at entry, as many fields as its ``size`` says (0: the first version's 48 bytes;
  under 48: ``{size=20}`` alone; past the 56 bytes known here: ``, ...``), without
  ``sched_policy`` when SCHED_FLAG_KEEP_POLICY or SCHED_FLAG_KEEP_PARAMS is set (and it
  is not negative, which the kernel refuses), and without the five parameters when
  SCHED_FLAG_KEEP_PARAMS keeps them (strace 6.1's output, checked here); then
  `` => {size=56}`` when the call failed with E2BIG (the kernel writes the size it
  knows back: sched_copy_attr, kernel/sched/core.c; syscalls.c since Linux 6.10).
  ``schedattr_out``: sched_getattr's, as the call filled it (its ``size`` is the
  bytes written), the address when it failed.
- ``user_desc``: struct user_desc read at entry, ``{entry_number=0, base_addr=0x001000,
  limit=0x0fffff, seg_32bit=1, ..., lm=0}`` (set_thread_area); ``ldt_desc``: the same
  for modify_ldt when its byte count is the struct's size (else the address);
  ``user_desc_entry``: get_thread_area's, only the entry number the call reads,
  ``{entry_number=12, ...}``, and after a successful call the rest as it wrote it
  (``{entry_number=12, base_addr=..., ...}``, `` => N`` after the number when the
  kernel changed it).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import CAPF_DEREF, CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import (
    KindFn,
    capture,
    capture_out,
    cut_array_text,
    decoded_out,
    elements_shown,
    readable,
    succeeded,
)
from tracekit.decode.structs_cbpf import fprog_arg
from tracekit.decode.values import pointer, xval
from tracekit.kernel.syscalls import errno_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["FUTEX_WAITV_SIZE", "KEXEC_SEGMENT_MAX", "KEXEC_SEGMENT_SIZE", "NODEMASK_CAP",
           "SCHED_ATTR_SIZE", "SCHED_ATTR_SIZE_VER0", "TIMEX_SIZE", "USER_DESC_SIZE",
           "format_futex_waitv", "format_nodemask",
           "format_notif_sizes", "format_sched_attr", "format_timex", "format_user_desc",
           "kinds", "ret_kinds"]

_M32 = 0xFFFFFFFF
TIMEX_SIZE = 208         # struct __kernel_timex
SCHED_ATTR_SIZE = 56     # struct sched_attr: SCHED_ATTR_SIZE_VER1 (the utilization clamps)
SCHED_ATTR_SIZE_VER0 = 48
_E2BIG = 7
_KEEP_POLICY, _KEEP_PARAMS = 0x08, 0x10     # SCHED_FLAG_KEEP_POLICY, SCHED_FLAG_KEEP_PARAMS
# struct sched_attr: u32 size, u32 sched_policy, u64 sched_flags, s32 sched_nice,
# u32 sched_priority, u64 sched_runtime, sched_deadline, sched_period, u32 sched_util_min,
# sched_util_max
_SCHED_ATTR = struct.Struct("<IIQiIQQQII")
FUTEX_WAITV_SIZE = 24    # struct futex_waitv: u64 val, u64 uaddr, u32 flags, u32 reserved
FUTEX_WAITV_MAX = 128    # include/uapi/linux/futex.h: the most waiters a call takes
USER_DESC_SIZE = 16      # struct user_desc: entry_number, base_addr, limit, bit fields
_ARRAY_SHOWN = 32        # strace's -s default: array elements shown before "..."
NODEMASK_CAP = 8 * _ARRAY_SHOWN   # the node mask bytes strace shows

# struct __kernel_timex: u32 modes | pad | s64 offset, freq, maxerror, esterror |
# s32 status | pad | s64 constant, precision, tolerance | time {s64 tv_sec, tv_usec} |
# s64 tick, ppsfreq, jitter | s32 shift | pad | s64 stabil, jitcnt, calcnt, errcnt,
# stbcnt | s32 tai | 44 bytes of padding
_TIMEX = struct.Struct("<I4x4qi4x3q2q3qi4x5qi")
_TIMEX_FIELDS = ("offset", "freq", "maxerror", "esterror")
_TIMEX_LATER = ("constant", "precision", "tolerance")
_TIMEX_TICKS = ("tick", "ppsfreq", "jitter")
_TIMEX_COUNTS = ("stabil", "jitcnt", "calcnt", "errcnt", "stbcnt")
_WAITV = struct.Struct("<QQII")
_USER_DESC = struct.Struct("<4I")
# the bit fields of struct user_desc's fourth word, in order (one bit each but contents)
_DESC_BITS = (("seg_32bit", 0, 1), ("contents", 1, 3), ("read_exec_only", 3, 1),
              ("limit_in_pages", 4, 1), ("seg_not_present", 5, 1), ("useable", 6, 1),
              ("lm", 7, 1))
_NOTIF_SIZES = struct.Struct("<3H")


def format_timex(data: bytes, modes: F.FlagSet, status: F.FlagSet) -> str | None:
    """struct timex, every field in order (``modes`` and ``status`` as flag words)."""
    if len(data) < _TIMEX.size:
        return None
    v = _TIMEX.unpack_from(data)
    parts = [f"modes={modes(v[0])}"]
    parts += [f"{n}={x}" for n, x in zip(_TIMEX_FIELDS, v[1:5], strict=True)]
    parts.append(f"status={status(v[5] & _M32)}")
    parts += [f"{n}={x}" for n, x in zip(_TIMEX_LATER, v[6:9], strict=True)]
    parts.append(f"time={{tv_sec={v[9]}, tv_usec={v[10]}}}")
    parts += [f"{n}={x}" for n, x in zip(_TIMEX_TICKS, v[11:14], strict=True)]
    parts.append(f"shift={v[14]}")
    parts += [f"{n}={x}" for n, x in zip(_TIMEX_COUNTS, v[15:20], strict=True)]
    parts.append(f"tai={v[20]}")
    return "{" + ", ".join(parts) + "}"


def _hex08(v: int) -> str:
    """C's ``%#08x``: ``00000000`` for zero, else ``0x`` and at least 6 digits."""
    return f"{v:#08x}" if v else "00000000"


def _entry(v: int) -> str:
    return "-1" if v == _M32 else str(v)


def format_user_desc(data: bytes, *, entry: bool = True) -> str | None:
    """struct user_desc: ``{entry_number=0, base_addr=0x001000, limit=0x0fffff,
    seg_32bit=1, contents=0, read_exec_only=0, limit_in_pages=1, seg_not_present=0,
    useable=1, lm=0}``; without ``entry``, from ``, base_addr=`` on (no ``{``)."""
    if len(data) < _USER_DESC.size:
        return None
    number, base, limit, bits = _USER_DESC.unpack_from(data)
    parts = [f"base_addr={_hex08(base)}", f"limit={_hex08(limit)}"]
    parts += [f"{n}={(bits >> shift) & mask}" for n, shift, mask in _DESC_BITS]
    rest = ", " + ", ".join(parts) + "}"
    return f"{{entry_number={_entry(number)}{rest}" if entry else rest


def nodemask_longs(maxnode: int) -> int:
    """The longs of a node mask of ``maxnode`` bits (the kernel reads ``maxnode - 1``)."""
    return (maxnode + 62) // 64 if maxnode else 0


def format_nodemask(data: bytes, maxnode: int, limit: int = _ARRAY_SHOWN,
                    cut: int | None = None) -> str | None:
    """A node mask: its longs as ``%#0*lx`` of width 16 (``0x00000000000001``, 16 zeros
    for 0), at most ``limit`` (strace -s) and as many as the capture holds (32), then
    ``...``; None without longs or when ``data`` is too short. ``cut``: the memory is
    unreadable from that address, after ``limit`` longs (``... /* 0x... */``)."""
    n = nodemask_longs(maxnode)
    shown = min(n, limit, NODEMASK_CAP // 8)
    if not n or not shown or len(data) < 8 * shown:
        return None
    words = struct.unpack_from(f"<{shown}Q", data)
    parts = [f"{w:#016x}" if w else "0" * 16 for w in words]
    if cut is not None and n > shown:
        parts.append(f"... /* {hex(cut)} */")
    elif n > shown:
        parts.append("...")
    return "[" + ", ".join(parts) + "]"


def format_futex_waitv(data: bytes, count: int, flags: F.FlagSet,
                       limit: int = _ARRAY_SHOWN) -> str:
    """futex_waitv's ``count`` waiters (``data``: as many as were read): ``val`` in hex,
    ``uaddr`` an address, ``flags`` a flag word; at most ``limit`` (strace -s), then
    ``...``."""
    shown = []
    limit = min(limit, FUTEX_WAITV_MAX)
    for k in range(min(count, limit, len(data) // FUTEX_WAITV_SIZE)):
        val, uaddr, fl, reserved = _WAITV.unpack_from(data, k * FUTEX_WAITV_SIZE)
        # __reserved only when set (the kernel refuses such a waiter)
        extra = f", __reserved={reserved:#x}" if reserved else ""
        shown.append(f"{{val={hex(val) if val else 0}, uaddr={pointer(uaddr)}, "
                     f"flags={flags(fl)}{extra}}}")
    if count > limit:
        shown.append("...")
    return "[" + ", ".join(shown) + "]"


def format_notif_sizes(data: bytes) -> str | None:
    """struct seccomp_notif_sizes: ``{seccomp_notif=80, seccomp_notif_resp=24,
    seccomp_data=64}``."""
    if len(data) < _NOTIF_SIZES.size:
        return None
    notif, resp, sdata = _NOTIF_SIZES.unpack_from(data)
    return f"{{seccomp_notif={notif}, seccomp_notif_resp={resp}, seccomp_data={sdata}}}"


def format_sched_attr(data: bytes, policies: dict[int, str], flags: F.FlagSet, *,
                      setting: bool) -> str | None:
    """struct sched_attr from ``data`` (its first bytes as read), the fields its ``size``
    covers; ``setting``: sched_setattr's (size 0 means 48, and the fields the KEEP flags
    keep are left out). None when ``data`` holds fewer bytes than the size asks."""
    if len(data) < 4:
        return None
    size = int.from_bytes(data[:4], "little")
    want = size or SCHED_ATTR_SIZE_VER0 if setting else size
    shown = min(want, SCHED_ATTR_SIZE)
    parts = [f"size={size}"]
    if shown >= SCHED_ATTR_SIZE_VER0:
        if len(data) < shown:
            return None
        (_, policy, fl, nice, prio, runtime, deadline, period, umin,
         umax) = _SCHED_ATTR.unpack(data[:shown].ljust(SCHED_ATTR_SIZE, b"\0"))
        if not (setting and fl & (_KEEP_POLICY | _KEEP_PARAMS) and policy < 1 << 31):
            parts.append(f"sched_policy={xval(policies, policy, 'SCHED_???')}")
        parts.append(f"sched_flags={flags(fl)}")
        if not (setting and fl & _KEEP_PARAMS):
            parts += [f"sched_nice={nice}", f"sched_priority={prio}",
                      f"sched_runtime={runtime}", f"sched_deadline={deadline}",
                      f"sched_period={period}"]
        if shown >= SCHED_ATTR_SIZE:
            parts += [f"sched_util_min={umin}", f"sched_util_max={umax}"]
    if want > SCHED_ATTR_SIZE:
        parts.append("...")
    return "{" + ", ".join(parts) + "}"


def _k_sched_attr_in(policies: dict[int, str], flags: F.FlagSet) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        # read at entry twice, 56 and 48 bytes (a 48-byte struct may end its mapping),
        # and its size at exit (what E2BIG wrote back)
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_FAULT]
        text = None
        for want in (SCHED_ATTR_SIZE, SCHED_ATTR_SIZE_VER0):
            cap = next((c for c in caps if len(c.data) == want), None)
            if cap is not None and ev.args[i] and (text := format_sched_attr(
                    cap.data, policies, flags, setting=True)) is not None:
                break
        if text is None:
            return pointer(ev.args[i])
        back = next((c for c in caps if len(c.data) == 4), None)
        if ev.ret == -_E2BIG and back is not None:
            text += f" => {{size={int.from_bytes(back.data, 'little')}}}"
        return text
    return k


def _k_page_array(elem: str) -> KindFn:
    """move_pages' arrays of nr_pages (argument 1) elements: ``pages`` (pointers, read at
    entry), ``nodes`` (ints, at entry) or ``status`` (ints the call wrote, an error as
    ``-ENOENT``; the address when it failed): ``-s`` of them then ``...`` (every one
    captured under ``-v``), ``[]`` for none, NULL, and the address when unread."""
    size = 8 if elem == "pages" else 4

    def item(v: int) -> str:
        if elem == "pages":
            return pointer(v)
        v = v - (1 << 32) if v & 0x80000000 else v
        return f"-{errno_name(-v)}" if elem == "status" and -4095 <= v < 0 else str(v)

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v, n = ev.args[i], ev.args[1]
        if not v:
            return "NULL"
        if elem == "status" and not succeeded(ev):
            return pointer(v)
        if n == 0:
            return "[]"
        cap = capture(ev, i)
        # strace's print_array: an array whose size overflows or whose end wraps
        # around the address space is its address (a count with garbage above 61 bits)
        if cap is None or len(cap.data) < size or v + n * size >= 1 << 64:
            return pointer(v)
        shown = min(n, len(cap.data) // size, elements_shown(d))
        words = struct.unpack_from(f"<{shown}{'Q' if size == 8 else 'I'}", cap.data)
        items = [item(w) for w in words] + ["..."] * (shown < n)
        return "[" + ", ".join(items) + "]"
    return k


KEXEC_SEGMENT_SIZE = 32      # struct kexec_segment: buf, bufsz, mem, memsz
KEXEC_SEGMENT_MAX = 16       # include/linux/kexec.h: more is EINVAL, and strace reads none


def _k_kexec_segments(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """kexec_load's segments (count: argument 1), read at entry: ``[{buf=0x1000,
    bufsz=4096, mem=0x100000, memsz=8192}]``; the address past 16 of them or unread."""
    v, n = ev.args[i], ev.args[1]
    if not v:
        return "NULL"
    cap = capture(ev, i)
    if n > KEXEC_SEGMENT_MAX or cap is None or len(cap.data) < n * KEXEC_SEGMENT_SIZE:
        return pointer(v)
    segs = struct.iter_unpack("<QQQQ", cap.data[:n * KEXEC_SEGMENT_SIZE])
    return "[" + ", ".join(f"{{buf={pointer(b)}, bufsz={bs}, mem={pointer(m)}, memsz={ms}}}"
                           for b, bs, m, ms in segs) + "]"


def _k_futex_waiters(flags: F.FlagSet) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        count = ev.args[i + 1] & _M32
        cap = capture(ev, i)
        got = readable(ev, i) if cap is None and ev.args[i] else None
        if got is not None and not got[1]:
            # cut by the end of its mapping: the waiters before the cut
            text = cut_array_text(got[0], count, FUTEX_WAITV_SIZE, elements_shown(d),
                                  ev.args[i], lambda b, n: format_futex_waitv(b, n, flags, n))
            return pointer(ev.args[i]) if text is None else text
        if cap is None or not ev.args[i] or (count and len(cap.data) < FUTEX_WAITV_SIZE):
            return pointer(ev.args[i])
        return format_futex_waitv(cap.data, count, flags, elements_shown(d))
    return k


def _k_seccomp_arg(ops: dict[int, str], actions: dict[int, str]) -> KindFn:
    by_name = {n: v for v, n in ops.items()}
    avail, sizes = by_name.get("SECCOMP_GET_ACTION_AVAIL"), by_name.get("SECCOMP_GET_NOTIF_SIZES")
    mode_filter = by_name.get("SECCOMP_SET_MODE_FILTER")

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        op = ev.args[0] & _M32
        if op == mode_filter:
            return fprog_arg(d, ev, i)
        if op == avail and ev.args[i]:
            # the action as the call read it: the entry read (the exit one, sized for
            # SECCOMP_GET_NOTIF_SIZES, faults for an action at the end of a mapping)
            caps = [c for c in ev.caps if c.arg == i]
            if caps and not caps[0].flags & CAPF_FAULT and len(caps[0].data) >= 4:
                act = int.from_bytes(caps[0].data[:4], "little")
                name = actions.get(act)
                return f"[{name if name is not None else f'{act:#x} /* SECCOMP_RET_??? */'}]"
        if op == sizes:
            cap = capture_out(ev, i)
            text = None if cap is None else format_notif_sizes(cap.data)
            if text is not None:
                return text
        return pointer(ev.args[i])
    return k


def _k_user_desc_entry(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    caps = [c for c in ev.caps if c.arg == i]
    if not ev.args[i] or capture(ev, i) is None or len(caps[0].data) < 4:
        return pointer(ev.args[i])
    entry = int.from_bytes(caps[0].data[:4], "little")
    out = capture_out(ev, i)
    rest = None if out is None or len(caps) < 2 else format_user_desc(out.data, entry=False)
    if rest is None:
        return f"{{entry_number={_entry(entry)}, ...}}"
    now = int.from_bytes(out.data[:4], "little") if out is not None else entry
    changed = f" => {_entry(now)}" if now != entry else ""
    return f"{{entry_number={_entry(entry)}{changed}{rest}"


def _k_nodes(*, at_exit: bool, maxnode_arg: int | None = None) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        """The mask from the longest of its reads (capture.py _nodemask: maxnode bytes,
        one and two longs; the same bytes, so the longest that did not fault); ``[]``
        for maxnode 0 (strace's print_array of no elements)."""
        maxnode = ev.args[i + 1 if maxnode_arg is None else maxnode_arg]
        if at_exit and not succeeded(ev):
            return pointer(ev.args[i])
        if ev.args[i] and maxnode == 0:
            return "[]"
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF]
        cap = max((c for c in caps if not c.flags & CAPF_FAULT), key=lambda c: len(c.data),
                  default=None)
        if cap is None or not ev.args[i]:
            return pointer(ev.args[i])
        text = format_nodemask(cap.data, maxnode, elements_shown(d))
        if text is None and any(c.flags & CAPF_FAULT for c in caps):
            # a longer read faulted: the mask's memory ends after the longs read
            # (strace: those, then the address of the first it could not read)
            text = format_nodemask(cap.data, maxnode, len(cap.data) // 8,
                                   cut=ev.args[i] + len(cap.data) // 8 * 8)
        return pointer(ev.args[i]) if text is None else text
    return k


def _k_user_desc(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i)
    text = None if cap is None or not ev.args[i] else format_user_desc(cap.data)
    return pointer(ev.args[i]) if text is None else text


def _k_ldt_desc(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    if ev.args[i + 1] != USER_DESC_SIZE:
        return pointer(ev.args[i])
    return _k_user_desc(d, ev, i)


def _k_seccomp_flags(ops: dict[int, str], flags: F.FlagSet) -> KindFn:
    mode_filter = next((v for v, n in ops.items() if n == "SECCOMP_SET_MODE_FILTER"), None)

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i] & _M32
        if ev.args[0] & _M32 == mode_filter:
            return flags(v)
        return hex(v) if v else "0"
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    T = fl.tables
    modes = F.FlagSet(T.ADJTIMEX_MODES, unknown="ADJ_???")
    status = F.FlagSet(T.TIMEX_STATUS, unknown="STA_???")
    waitv = F.FlagSet(T.FUTEX_WAITV_FLAGS, unknown="FUTEX_???")
    sched_flags = F.FlagSet(T.SCHED_FLAGS, unknown="SCHED_FLAG_???")
    return {
        "timex": decoded_out(lambda b: format_timex(b, modes, status)),
        "futexwaiters": _k_futex_waiters(waitv),
        "seccomparg": _k_seccomp_arg(T.SECCOMP_OPS, T.SECCOMP_RET_ACTIONS),
        "user_desc_entry": _k_user_desc_entry, "user_desc": _k_user_desc,
        "ldt_desc": _k_ldt_desc, "nodes_in": _k_nodes(at_exit=False),
        "nodes_out": _k_nodes(at_exit=True), "migrate_nodes": _k_nodes(at_exit=False,
                                                                       maxnode_arg=1),
        "kexecsegs": _k_kexec_segments,
        "pages_in": _k_page_array("pages"), "pagenodes_in": _k_page_array("nodes"),
        "pagestatus_out": _k_page_array("status"),
        "schedattr_in": _k_sched_attr_in(T.SCHED_POLICIES, sched_flags),
        "schedattr_out": decoded_out(lambda b: format_sched_attr(
            b, T.SCHED_POLICIES, sched_flags, setting=False)),
        "seccompflags": _k_seccomp_flags(
            T.SECCOMP_OPS, F.FlagSet(T.SECCOMP_FILTER_FLAGS, unknown="SECCOMP_FILTER_FLAG_???")),
    }


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds: ``clockstate`` (adjtimex, clock_adjtime): ``5 (TIME_ERROR)``."""
    states = fl.tables.CLOCK_STATES

    def clockstate(d: SyscallDecoder, ev: Syscall, text: str) -> str:
        name = states.get(ev.ret)
        return text if name is None else f"{ev.ret} ({name})"
    return {"clockstate": clockstate}
