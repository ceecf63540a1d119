"""Structs of per-thread and clock calls, as strace 6.1 prints them: struct timex
(adjtimex, clock_adjtime), struct futex_waitv (futex_waitv), seccomp's query arguments
and the entry number of get_thread_area's struct user_desc.

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
  seccomp_data=64}``), else the address.
- ``user_desc_entry``: get_thread_area's struct user_desc as the call reads it:
  ``{entry_number=12, ...}`` (only its entry number; the struct a successful call
  writes is not decoded).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, capture, capture_out, decoded_out
from tracekit.decode.values import pointer

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["FUTEX_WAITV_SIZE", "TIMEX_SIZE", "USER_DESC_SIZE", "format_futex_waitv",
           "format_notif_sizes", "format_timex", "kinds", "ret_kinds"]

_M32 = 0xFFFFFFFF
TIMEX_SIZE = 208         # struct __kernel_timex
FUTEX_WAITV_SIZE = 24    # struct futex_waitv: u64 val, u64 uaddr, u32 flags, u32 reserved
USER_DESC_SIZE = 16      # struct user_desc: entry_number, base_addr, limit, bit fields
_ARRAY_SHOWN = 32        # strace's -s default: array elements shown before "..."

# struct __kernel_timex: u32 modes | pad | s64 offset, freq, maxerror, esterror |
# s32 status | pad | s64 constant, precision, tolerance | time {s64 tv_sec, tv_usec} |
# s64 tick, ppsfreq, jitter | s32 shift | pad | s64 stabil, jitcnt, calcnt, errcnt,
# stbcnt | s32 tai | 44 bytes of padding
_TIMEX = struct.Struct("<I4x4qi4x3q2q3qi4x5qi")
_TIMEX_FIELDS = ("offset", "freq", "maxerror", "esterror")
_TIMEX_LATER = ("constant", "precision", "tolerance")
_TIMEX_TICKS = ("tick", "ppsfreq", "jitter")
_TIMEX_COUNTS = ("stabil", "jitcnt", "calcnt", "errcnt", "stbcnt")
_WAITV = struct.Struct("<QQI4x")
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


def format_futex_waitv(data: bytes, count: int, flags: F.FlagSet) -> str:
    """futex_waitv's ``count`` waiters (``data``: as many as were read): ``val`` in hex,
    ``uaddr`` an address, ``flags`` a flag word; at most 32, then ``...``."""
    shown = []
    for k in range(min(count, _ARRAY_SHOWN, len(data) // FUTEX_WAITV_SIZE)):
        val, uaddr, fl = _WAITV.unpack_from(data, k * FUTEX_WAITV_SIZE)
        shown.append(f"{{val={hex(val) if val else 0}, uaddr={pointer(uaddr)}, "
                     f"flags={flags(fl)}}}")
    if count > _ARRAY_SHOWN:
        shown.append("...")
    return "[" + ", ".join(shown) + "]"


def format_notif_sizes(data: bytes) -> str | None:
    """struct seccomp_notif_sizes: ``{seccomp_notif=80, seccomp_notif_resp=24,
    seccomp_data=64}``."""
    if len(data) < _NOTIF_SIZES.size:
        return None
    notif, resp, sdata = _NOTIF_SIZES.unpack_from(data)
    return f"{{seccomp_notif={notif}, seccomp_notif_resp={resp}, seccomp_data={sdata}}}"


def _k_futex_waiters(flags: F.FlagSet) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        count = ev.args[i + 1] & _M32
        cap = capture(ev, i)
        if cap is None or not ev.args[i] or (count and len(cap.data) < FUTEX_WAITV_SIZE):
            return pointer(ev.args[i])
        return format_futex_waitv(cap.data, count, flags)
    return k


def _k_seccomp_arg(ops: dict[int, str], actions: dict[int, str]) -> KindFn:
    by_name = {n: v for v, n in ops.items()}
    avail, sizes = by_name.get("SECCOMP_GET_ACTION_AVAIL"), by_name.get("SECCOMP_GET_NOTIF_SIZES")

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        op = ev.args[0] & _M32
        if op == avail and ev.args[i]:
            caps = [c for c in ev.caps if c.arg == i]
            cap = capture(ev, i)
            if caps and cap is not None and len(caps[0].data) >= 4:
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
    return f"{{entry_number={-1 if entry == _M32 else entry}, ...}}"


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    T = fl.tables
    modes = F.FlagSet(T.ADJTIMEX_MODES, unknown="ADJ_???")
    status = F.FlagSet(T.TIMEX_STATUS, unknown="STA_???")
    waitv = F.FlagSet(T.FUTEX_WAITV_FLAGS, unknown="FUTEX_???")
    return {
        "timex": decoded_out(lambda b: format_timex(b, modes, status)),
        "futexwaiters": _k_futex_waiters(waitv),
        "seccomparg": _k_seccomp_arg(T.SECCOMP_OPS, T.SECCOMP_RET_ACTIONS),
        "user_desc_entry": _k_user_desc_entry,
    }


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds: ``clockstate`` (adjtimex, clock_adjtime): ``5 (TIME_ERROR)``."""
    states = fl.tables.CLOCK_STATES

    def clockstate(d: SyscallDecoder, ev: Syscall, text: str) -> str:
        name = states.get(ev.ret)
        return text if name is None else f"{ev.ret} ({name})"
    return {"clockstate": clockstate}
