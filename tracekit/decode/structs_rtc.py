"""The real time clock ioctls (include/uapi/linux/rtc.h) as strace 6.1 prints them.

What strace prints (its rtc.c, checked against strace 6.1's ioctl_rtc tests):

- struct rtc_time: ``{tm_sec=0, tm_min=1, tm_hour=2, tm_mday=3, tm_mon=4, tm_year=5,
  ...}``, with -v ``tm_wday=``, ``tm_yday=``, ``tm_isdst=`` in place of ``...``; read
  by RTC_ALM_SET/RTC_SET_TIME, written by RTC_ALM_READ/RTC_RD_TIME.
- struct rtc_wkalrm: ``{enabled=1, pending=0, time={...}}``; struct rtc_pll_info:
  ``{pll_ctrl=0, ..., pll_clock=0}`` (signed).
- RTC_IRQP_SET/RTC_EPOCH_SET's value in decimal; RTC_IRQP_READ/RTC_EPOCH_READ's
  ``[64]``; RTC_VL_READ's ``[RTC_VL_DATA_INVALID]``.
- struct rtc_param: RTC_PARAM_SET's ``{param=RTC_PARAM_FEATURES,
  uvalue=1<<RTC_FEATURE_ALARM, index=0}`` (``svalue=`` for RTC_PARAM_CORRECTION, the
  backup switch mode by name, ``uvalue=`` in hex for other params; ``__pad=`` when not
  0); RTC_PARAM_GET's ``{param=..., index=0}`` at entry, then `` => `` and the value it
  wrote (``{uvalue=...}``), the address when the call failed.
- the address of a struct that cannot be read whole, and of what a failed call did not
  write.
"""

from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING

from tracekit._events import CAPF_TRUNC, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import (
    KindFn,
    decoded_abbrev,
    decoded_in,
    decoded_out,
    entry_exit,
    succeeded,
)
from tracekit.decode.values import hex0, pointer, signed, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["RTC_DECODERS", "format_rtc_param", "format_rtc_time"]

RTC_TIME = struct.Struct("<9i")         # struct rtc_time: tm_sec ... tm_isdst
WKALRM = struct.Struct("<BB2x")         # struct rtc_wkalrm: enabled, pending, then time
WKALRM_SIZE = 4 + RTC_TIME.size
PLL_INFO = struct.Struct("<6iq")        # struct rtc_pll_info
RTC_PARAM = struct.Struct("<QQII")      # struct rtc_param: param, value, index, __pad
_TM = ("tm_sec", "tm_min", "tm_hour", "tm_mday", "tm_mon", "tm_year", "tm_wday", "tm_yday",
       "tm_isdst")
_PLL = ("pll_ctrl", "pll_value", "pll_max", "pll_min", "pll_posmult", "pll_negmult",
        "pll_clock")


def format_rtc_time(data: bytes, off: int = 0, *, full: bool = False) -> str | None:
    """struct rtc_time at ``off``: six fields and ``...``, all nine with ``full`` (-v);
    None when short."""
    if len(data) < off + RTC_TIME.size:
        return None
    fields = RTC_TIME.unpack_from(data, off)
    shown = ", ".join(f"{n}={v}" for n, v in zip(_TM, fields[:9 if full else 6], strict=False))
    return f"{{{shown}{'' if full else ', ...'}}}"


def _wkalrm(data: bytes, *, full: bool) -> str | None:
    time = format_rtc_time(data, 4, full=full)
    if time is None:
        return None
    enabled, pending = WKALRM.unpack_from(data)
    return f"{{enabled={enabled}, pending={pending}, time={time}}}"


def _pll(data: bytes) -> str | None:
    if len(data) < PLL_INFO.size:
        return None
    fields = PLL_INFO.unpack_from(data)
    return "{" + ", ".join(f"{n}={v}" for n, v in zip(_PLL, fields, strict=True)) + "}"


@functools.cache
def _features(fl: F.ArchFlags) -> F.FlagSet:
    """A features word: bit N as ``1<<RTC_FEATURE_...``."""
    bits = tuple((1 << v, f"1<<{n}") for v, n in sorted(fl.tables.RTC_FEATURES.items())
                 if v < 64)
    return F.FlagSet(bits, unknown="1<<RTC_FEATURE_???")


def _param_value(fl: F.ArchFlags, param: int, value: int) -> str:
    T = fl.tables
    name = T.RTC_PARAMS.get(param)
    if name == "RTC_PARAM_FEATURES":
        return f"uvalue={_features(fl)(value)}"
    if name == "RTC_PARAM_CORRECTION":
        return f"svalue={signed(value, 64)}"
    if name == "RTC_PARAM_BACKUP_SWITCH_MODE":
        return f"uvalue={xval(T.RTC_BSM_MODES, value, 'RTC_BSM_???')}"
    return f"uvalue={hex0(value)}"


def format_rtc_param(data: bytes, fl: F.ArchFlags, *, value: bool = True,
                     head: bool = True) -> str | None:
    """struct rtc_param: ``{param=RTC_PARAM_FEATURES, uvalue=..., index=0}``, ``__pad=``
    when not 0; without ``value`` (RTC_PARAM_GET at entry) or ``head`` (what it wrote:
    the value alone). None when short."""
    if len(data) < RTC_PARAM.size:
        return None
    param, val, index, pad = RTC_PARAM.unpack_from(data)
    parts = []
    if head:
        parts.append(f"param={xval(fl.tables.RTC_PARAMS, param, 'RTC_PARAM_???')}")
    if value:
        parts.append(_param_value(fl, param, val))
    if head:
        parts.append(f"index={index}")
    if pad:
        parts.append(f"__pad={hex0(pad)}")
    return "{" + ", ".join(parts) + "}"


def _param(get: bool) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        entry, exit_ = entry_exit(ev, i)
        text = None if entry is None or entry.flags & CAPF_TRUNC else \
            format_rtc_param(entry.data, d.flags, value=not get)
        if text is None:
            return pointer(ev.args[i])
        if not get:
            return text
        wrote = None if exit_ is None or exit_.flags & CAPF_TRUNC or not succeeded(ev) else \
            format_rtc_param(exit_.data, d.flags, head=False)
        return f"{text} => {pointer(ev.args[i]) if wrote is None else wrote}"
    return k


def _ulong_out(data: bytes) -> str | None:
    return None if len(data) < 8 else f"[{int.from_bytes(data[:8], 'little')}]"


def _vl(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    def fmt(data: bytes) -> str | None:
        if len(data) < 4:
            return None
        vl = F.flagset(d.flags.tables.RTC_VL_FLAGS, "RTC_VL_???")
        flags = vl(int.from_bytes(data[:4], "little"))
        return f"[{flags}]"
    return decoded_out(fmt, whole=True)(d, ev, i)


def _udec(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(ev.args[i])


#: request name -> ((bytes captured, read at entry, read at exit) or None, decoder of
#: ioctl's argument)
RTC_DECODERS: dict[str, tuple[tuple[int, bool, bool] | None, KindFn]] = {
    **{n: ((RTC_TIME.size, False, True), decoded_abbrev(format_rtc_time, out=True))
       for n in ("RTC_ALM_READ", "RTC_RD_TIME")},
    **{n: ((RTC_TIME.size, True, False), decoded_abbrev(format_rtc_time))
       for n in ("RTC_ALM_SET", "RTC_SET_TIME")},
    **{n: (None, _udec) for n in ("RTC_IRQP_SET", "RTC_EPOCH_SET")},
    **{n: ((8, False, True), decoded_out(_ulong_out, whole=True))
       for n in ("RTC_IRQP_READ", "RTC_EPOCH_READ")},
    "RTC_WKALM_RD": ((WKALRM_SIZE, False, True), decoded_abbrev(_wkalrm, out=True)),
    "RTC_WKALM_SET": ((WKALRM_SIZE, True, False), decoded_abbrev(_wkalrm)),
    "RTC_PLL_GET": ((PLL_INFO.size, False, True), decoded_out(_pll, whole=True)),
    "RTC_PLL_SET": ((PLL_INFO.size, True, False), decoded_in(_pll, whole=True)),
    "RTC_VL_READ": ((4, False, True), _vl),
    "RTC_PARAM_GET": ((RTC_PARAM.size, True, True), _param(True)),
    "RTC_PARAM_SET": ((RTC_PARAM.size, True, False), _param(False)),
}
