"""The PTP hardware clock ioctls (include/uapi/linux/ptp_clock.h) as strace 6.1 prints
them.

What strace prints (its ptp.c, checked against strace 6.1's ioctl_ptp tests):

- struct ptp_clock_time as ``{sec=1, nsec=2}`` (``reserved=0x...`` after them when not
  0), a start time and the precise offsets' device and realtime times with the date in
  a comment (``/* 2124-11-08T05:45:45.123456789+0000 */``, local time, none for 0 or a
  nsec past 999999999).
- ``rsv=[0xbadfaced, 0, 0]`` only when the reserved words are not all 0, and only for
  the requests whose struct has them in use (the ``*2`` forms of the requests).
- PTP_EXTTS_REQUEST: ``{index=0, flags=PTP_ENABLE_FEATURE|PTP_RISING_EDGE}``;
  PTP_PEROUT_REQUEST: ``{start={...}, period={...}, index=0, flags=PTP_PEROUT_ONE_SHOT}``
  (``phase=`` in place of ``start=`` with PTP_PEROUT_PHASE, ``on=`` after the flags with
  PTP_PEROUT_DUTY_CYCLE); PTP_ENABLE_PPS's value in hex.
- PTP_SYS_OFFSET/PTP_SYS_OFFSET_EXTENDED: ``{n_samples=25}`` as the call reads it;
  PTP_PIN_GETFUNC: ``{index=1}`` at entry, then, when the call succeeded, ``name="...",
  func=PTP_PF_EXTTS, chan=0``; PTP_PIN_SETFUNC: ``{index=1, func=PTP_PF_PEROUT,
  chan=0}``.
- PTP_CLOCK_GETCAPS' and PTP_SYS_OFFSET_PRECISE's structs as the call wrote them.
- the address of a struct that cannot be read whole, and of what a failed call did not
  write.

Not shown: the time stamps a successful PTP_SYS_OFFSET/PTP_SYS_OFFSET_EXTENDED wrote
(``ts=[...]``, up to 1216 bytes: more than an ioctl's capture holds); the struct is read
as far as those ioctls' first 16 bytes, so one cut by the end of its mapping after them
prints as strace prints a readable one.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import CAPF_TRUNC, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, decoded_in, decoded_out, entry_exit, succeeded
from tracekit.decode.structs_fs import time_comment
from tracekit.decode.values import hex0, pointer, quote, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["PTP_DECODERS", "format_clock_time", "format_extts", "format_perout"]

CLOCK_TIME = struct.Struct("<qII")      # struct ptp_clock_time: sec, nsec, reserved
CAPS = struct.Struct("<8i")             # struct ptp_clock_caps, then rsv[12]
CAPS_SIZE = 80
EXTTS = struct.Struct("<II")            # struct ptp_extts_request: index, flags, rsv[2]
EXTTS_SIZE = 16
PEROUT_SIZE = 56                        # struct ptp_perout_request
SYS_OFFSET_HEAD = 16                    # n_samples, rsv[3]: what the call reads
PIN_DESC_SIZE = 96                      # struct ptp_pin_desc: name[64], index, func,
PIN_NAME = 64                           # chan, rsv[5]
PRECISE_SIZE = 64                       # struct ptp_sys_offset_precise
PEROUT_PHASE, PEROUT_DUTY_CYCLE = 0x4, 0x2   # flags that choose a union's member


def format_clock_time(data: bytes, off: int = 0, *, date: bool = False) -> str:
    """struct ptp_clock_time at ``off``: ``{sec=1, nsec=2}``, ``reserved=`` when not 0;
    ``date``: then the time's date in a comment. ``data`` must hold it."""
    sec, nsec, reserved = CLOCK_TIME.unpack_from(data, off)
    text = f"{{sec={sec}, nsec={nsec}" + (f", reserved={hex0(reserved)}" if reserved else "")
    return text + "}" + (time_comment(sec, nsec) if date else "")


def _rsv(data: bytes, off: int, n: int) -> str:
    """``, rsv=[...]`` of ``n`` u32 at ``off`` in hex, nothing when all are 0."""
    vals = struct.unpack_from(f"<{n}I", data, off)
    return f", rsv=[{', '.join(map(hex0, vals))}]" if any(vals) else ""


def format_extts(data: bytes, fl: F.ArchFlags, *, rsv: bool) -> str | None:
    """struct ptp_extts_request: ``{index=0, flags=PTP_ENABLE_FEATURE}``, then ``rsv``
    (PTP_EXTTS_REQUEST2) the reserved words; None when short."""
    if len(data) < EXTTS_SIZE:
        return None
    index, flags = EXTTS.unpack_from(data)
    text = f"{{index={index}, flags={F.flagset(fl.tables.PTP_EXTTS_FLAGS, 'PTP_???')(flags)}"
    return text + (_rsv(data, 8, 2) if rsv else "") + "}"


def format_perout(data: bytes, fl: F.ArchFlags, *, rsv: bool) -> str | None:
    """struct ptp_perout_request: ``{start={...}, period={...}, index=0, flags=0}``
    (phase, on: by the flags), then ``rsv`` (PTP_PEROUT_REQUEST2) the reserved words when
    ``on`` is not there; None when short."""
    if len(data) < PEROUT_SIZE:
        return None
    index, flags = struct.unpack_from("<II", data, 32)
    first = (f"phase={format_clock_time(data)}" if flags & PEROUT_PHASE
             else f"start={format_clock_time(data, date=True)}")
    text = (f"{{{first}, period={format_clock_time(data, 16)}, index={index}, "
            f"flags={F.flagset(fl.tables.PTP_PEROUT_FLAGS, 'PTP_PEROUT_???')(flags)}")
    if flags & PEROUT_DUTY_CYCLE:
        text += f", on={format_clock_time(data, 40)}"
    elif rsv:
        text += _rsv(data, 40, 4)
    return text + "}"


def _caps(data: bytes) -> str | None:
    if len(data) < CAPS_SIZE:
        return None
    names = ("max_adj", "n_alarm", "n_ext_ts", "n_per_out", "pps", "n_pins",
             "cross_timestamping", "adjust_phase")
    fields = ", ".join(f"{n}={v}" for n, v in zip(names, CAPS.unpack_from(data), strict=True))
    return f"{{{fields}{_rsv(data, CAPS.size, 12)}}}"


def _precise(data: bytes) -> str | None:
    if len(data) < PRECISE_SIZE:
        return None
    return (f"{{device={format_clock_time(data, date=True)}, "
            f"sys_realtime={format_clock_time(data, 16, date=True)}, "
            f"sys_monoraw={format_clock_time(data, 32)}{_rsv(data, 48, 4)}}}")


def _with_flags(fmt: Callable[..., str | None], **kw: bool) -> KindFn:
    """A struct the call reads whose text needs the arch's flag tables."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return decoded_in(lambda data: fmt(data, d.flags, **kw), whole=True)(d, ev, i)
    return k


def _sys_offset(data: bytes) -> str | None:
    """``{n_samples=13, rsv=[...]}``: the count the call reads (PTP_SYS_OFFSET* and
    PTP_SYS_OFFSET_EXTENDED*; strace shows the reserved words of all of them)."""
    if len(data) < SYS_OFFSET_HEAD:
        return None
    (n,) = struct.unpack_from("<I", data)
    return f"{{n_samples={n}{_rsv(data, 4, 3)}}}"


def _pin(fl_get: bool, rsv: bool) -> KindFn:
    """struct ptp_pin_desc: a set's ``{index=1, func=PTP_PF_NONE, chan=0}``; a get's
    index (and reserved words of PTP_PIN_GETFUNC2) at entry, then what it wrote."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        entry, exit_ = entry_exit(ev, i)
        if entry is None or entry.flags & CAPF_TRUNC or len(entry.data) < PIN_DESC_SIZE:
            return pointer(ev.args[i])
        data = entry.data
        (index,) = struct.unpack_from("<I", data, PIN_NAME)
        text = f"{{index={index}"
        if fl_get:
            text += _rsv(data, PIN_NAME + 12, 5) if rsv else ""
            if not succeeded(ev):
                return text + "}"
            if exit_ is None or exit_.flags & CAPF_TRUNC or len(exit_.data) < PIN_DESC_SIZE:
                return text + ", ???}"
            data = exit_.data
            name = data[:PIN_NAME].split(b"\0", 1)
            text += f", name={quote(name[0], more=len(name) == 1)}"
        func, chan = struct.unpack_from("<II", data, PIN_NAME + 4)
        text += (f", func={xval(d.flags.tables.PTP_PIN_FUNCS, func, 'PTP_PF_???')}, "
                 f"chan={chan}")
        if not fl_get and rsv:
            text += _rsv(data, PIN_NAME + 12, 5)
        return text + "}"
    return k


def _value_hex(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return hex0(ev.args[i])


def _driver(size: int, into: bool, out: bool, fn: KindFn) -> tuple[tuple[int, bool, bool],
                                                                   KindFn]:
    return (size, into, out), fn


#: request name -> ((bytes captured, read at entry, read at exit) or None, decoder of
#: ioctl's argument)
PTP_DECODERS: dict[str, tuple[tuple[int, bool, bool] | None, KindFn]] = {
    **{n: _driver(CAPS_SIZE, False, True, decoded_out(_caps, whole=True))
       for n in ("PTP_CLOCK_GETCAPS", "PTP_CLOCK_GETCAPS2")},
    **{n: _driver(PRECISE_SIZE, False, True, decoded_out(_precise, whole=True))
       for n in ("PTP_SYS_OFFSET_PRECISE", "PTP_SYS_OFFSET_PRECISE2")},
    **{n: _driver(SYS_OFFSET_HEAD, True, False, decoded_in(_sys_offset, whole=True))
       for n in ("PTP_SYS_OFFSET", "PTP_SYS_OFFSET2", "PTP_SYS_OFFSET_EXTENDED",
                 "PTP_SYS_OFFSET_EXTENDED2")},
    **{n: (None, _value_hex) for n in ("PTP_ENABLE_PPS", "PTP_ENABLE_PPS2")},
    "PTP_EXTTS_REQUEST": _driver(EXTTS_SIZE, True, False, _with_flags(format_extts, rsv=False)),
    "PTP_EXTTS_REQUEST2": _driver(EXTTS_SIZE, True, False, _with_flags(format_extts, rsv=True)),
    "PTP_PEROUT_REQUEST": _driver(PEROUT_SIZE, True, False,
                                  _with_flags(format_perout, rsv=False)),
    "PTP_PEROUT_REQUEST2": _driver(PEROUT_SIZE, True, False,
                                   _with_flags(format_perout, rsv=True)),
    "PTP_PIN_GETFUNC": _driver(PIN_DESC_SIZE, True, True, _pin(True, False)),
    "PTP_PIN_GETFUNC2": _driver(PIN_DESC_SIZE, True, True, _pin(True, True)),
    "PTP_PIN_SETFUNC": _driver(PIN_DESC_SIZE, True, False, _pin(False, False)),
    "PTP_PIN_SETFUNC2": _driver(PIN_DESC_SIZE, True, False, _pin(False, True)),
}
