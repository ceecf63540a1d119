"""The input event device ioctls (include/uapi/linux/input.h, type ``'E'``) as strace 6.1
prints them.

What strace prints (its evdev.c, evdev_mpers.c and ioctl.c's evdev_decode_number,
checked against strace 6.1's ioctl_evdev tests):

- requests with a number or a length in them by that: ``EVIOCGBIT(EV_KEY, 1)``
  (``EVIOCGBIT(0, 0)``, an unknown type as ``0x6 /* EV_??? */``), ``EVIOCGABS(ABS_X)``,
  ``EVIOCSABS(0xe /* ABS_??? */)``, ``EVIOCGNAME(0)``, ``EVIOCGMTSLOTS(8)``...; the
  fixed ones by name from the tables (``EVIOCGVERSION``).
- a read request's argument at exit, a write request's at entry; the address where there
  is nothing to show (a failed read, memory that cannot be read, a request without a
  decoder): ``NULL`` for 0. Value arguments: EVIOCRMFF's int, EVIOCGRAB/EVIOCREVOKE's
  unsigned long.
- EVIOCSCLOCKID's ``[3735928559]``, EVIOCGREP/EVIOCSREP's ``[250, 33]``,
  EVIOCGKEYCODE/EVIOCSKEYCODE's ``[1, KEY_ESC]``, EVIOCGVERSION's ``[0x10001]``,
  EVIOCGEFFECTS' ``[16]``, EVIOCGID's ``{bustype=3, vendor=1133, product=49271,
  version=273}``.
- struct input_keymap_entry: ``{flags=0, len=4, ...}``, with -v ``index=``, ``keycode=``
  by name and ``scancode=[0x1e, ...]`` (all 32 bytes).
- struct input_absinfo: ``{value=0, minimum=0, ...}``, with -v every field (unsigned,
  as strace prints them).
- struct ff_effect: ``{type=FF_RUMBLE, id=-1, direction=0, ...}``, with -v ``trigger=``,
  ``replay=`` and the member of the union its type names (constant, ramp, periodic,
  rumble), none for the other types.

What a read writes into a buffer of its own length (EVIOCGNAME's string, EVIOCGKEY's
bitset, EVIOCGMTSLOTS' values) is not captured: its address prints.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, decoded_abbrev, decoded_in, decoded_out
from tracekit.decode.values import hex0, pointer, signed, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["EVDEV_TYPE", "evdev_arg", "evdev_captures", "evdev_request",
           "format_absinfo", "format_ff_effect", "format_keymap_entry"]

EVDEV_TYPE = 0x45                       # _IOC_TYPE of the evdev requests: 'E'
_IOC_WRITE, _IOC_READ = 1, 2
ABS_MAX, EV_MAX = 0x3F, 0x1F            # include/uapi/linux/input-event-codes.h
ABSINFO = struct.Struct("<6i")          # struct input_absinfo: value ... resolution
_ABSINFO_ORIG = 20                      # up to flat: the struct before resolution came
KEYMAP_ENTRY = struct.Struct("<BBHI32s")  # struct input_keymap_entry
INPUT_ID = struct.Struct("<4H")         # struct input_id
FF_HEAD = struct.Struct("<HhH4H")       # struct ff_effect: type, id, direction, trigger,
#                                         replay; then the union at 16
FF_EFFECT_SIZE = 48                     # with the union (struct ff_periodic_effect's 32)
FF_UNION = 16
FF_ENVELOPE = struct.Struct("<4H")
FF_PERIODIC = struct.Struct("<HHhhH8s2xIQ")

# the requests with a length in them: _IOC(_IOC_READ, 'E', nr, len)
_SIZED = {0x06: "EVIOCGNAME", 0x07: "EVIOCGPHYS", 0x08: "EVIOCGUNIQ", 0x09: "EVIOCGPROP",
          0x0A: "EVIOCGMTSLOTS", 0x18: "EVIOCGKEY", 0x19: "EVIOCGLED", 0x1A: "EVIOCGSND",
          0x1B: "EVIOCGSW"}


def _parts(req: int) -> tuple[int, int, int, int]:
    """(dir, type, nr, size) of a request (include/uapi/asm-generic/ioctl.h)."""
    return req >> 30 & 3, req >> 8 & 0xFF, req & 0xFF, req >> 16 & 0x3FFF


def evdev_request(fl: F.ArchFlags, req: int) -> str | None:
    """An evdev request with a number or a length in it as strace names it
    (``EVIOCGBIT(EV_ABS, 3)``, ``EVIOCSABS(ABS_X)``, ``EVIOCGNAME(64)``); None for the
    others (named from the tables, or ``_IOC(...)``)."""
    dir_, type_, nr, size = _parts(req & 0xFFFFFFFF)
    if type_ != EVDEV_TYPE:
        return None
    T = fl.tables
    if dir_ == _IOC_WRITE and 0xC0 <= nr <= 0xC0 + ABS_MAX:
        return f"EVIOCSABS({xval(T.EVDEV_ABS, nr - 0xC0, 'ABS_???')})"
    if dir_ != _IOC_READ:
        return None
    if 0x20 <= nr <= 0x20 + EV_MAX:
        ev = "0" if nr == 0x20 else xval(T.EVDEV_EV, nr - 0x20, "EV_???")
        return f"EVIOCGBIT({ev}, {size})"
    if 0x40 <= nr <= 0x40 + ABS_MAX:
        return f"EVIOCGABS({xval(T.EVDEV_ABS, nr - 0x40, 'ABS_???')})"
    name = _SIZED.get(nr)
    return None if name is None else f"{name}({size})"


def format_absinfo(data: bytes, size: int, *, full: bool) -> str | None:
    """struct input_absinfo of a request of ``size`` bytes (its _IOC_SIZE): ``{value=1,
    minimum=0, ...}``; ``full`` (-v): maximum, fuzz, flat, then resolution when the
    request's struct has it and ``...`` when it is longer still. None when short."""
    if len(data) < min(size, ABSINFO.size):
        return None
    fields = ABSINFO.unpack_from(data.ljust(ABSINFO.size, b"\0"))
    u = [f & 0xFFFFFFFF for f in fields]
    text = f"{{value={u[0]}, minimum={u[1]}"
    if not full:
        return text + ", ...}"
    text += f", maximum={u[2]}, fuzz={u[3]}, flat={u[4]}"
    if size > _ABSINFO_ORIG:
        if size >= ABSINFO.size:
            text += f", resolution={u[5]}"
        if size != ABSINFO.size:
            text += ", ..."
    return text + "}"


def format_keymap_entry(data: bytes, fl: F.ArchFlags, *, full: bool) -> str | None:
    """struct input_keymap_entry: ``{flags=0, len=4, ...}``; ``full`` (-v): ``index=0,
    keycode=KEY_1, scancode=[0x2, ...]`` in place of ``...``. None when short."""
    if len(data) < KEYMAP_ENTRY.size:
        return None
    flags, length, index, keycode, scancode = KEYMAP_ENTRY.unpack_from(data)
    text = f"{{flags={flags}, len={length}"
    if not full:
        return text + ", ...}"
    codes = ", ".join(hex0(b) for b in scancode)
    return (f"{text}, index={index}, keycode={xval(fl.tables.EVDEV_KEYS, keycode, 'KEY_???')}"
            f", scancode=[{codes}]}}")


def _envelope(data: bytes, off: int) -> str:
    a_len, a_lvl, f_len, f_lvl = FF_ENVELOPE.unpack_from(data, off)
    return (f"envelope={{attack_length={a_len}, attack_level={a_lvl}, "
            f"fade_length={f_len}, fade_level={hex0(f_lvl)}}}")


def _ff_union(data: bytes, name: str | None) -> str:
    """The member of struct ff_effect's union its type names, with a leading ``, ``;
    nothing for the types strace does not show."""
    u = FF_UNION
    if name == "FF_CONSTANT":
        (level,) = struct.unpack_from("<h", data, u)
        return f", constant={{level={level}, {_envelope(data, u + 2)}}}"
    if name == "FF_RAMP":
        start, end = struct.unpack_from("<hh", data, u)
        return f", ramp={{start_level={start}, end_level={end}, {_envelope(data, u + 4)}}}"
    if name == "FF_PERIODIC":
        wave, period, mag, offset, phase, _, clen, cdata = FF_PERIODIC.unpack_from(data, u)
        return (f", periodic={{waveform={wave}, period={period}, magnitude={mag}, "
                f"offset={offset}, phase={phase}, {_envelope(data, u + 10)}, "
                f"custom_len={clen}, custom_data={pointer(cdata)}}}")
    if name == "FF_RUMBLE":
        strong, weak = struct.unpack_from("<HH", data, u)
        return f", rumble={{strong_magnitude={strong}, weak_magnitude={weak}}}"
    return ""


def format_ff_effect(data: bytes, fl: F.ArchFlags, *, full: bool) -> str | None:
    """struct ff_effect (EVIOCSFF): ``{type=FF_RUMBLE, id=-1, direction=0, ...}``;
    ``full`` (-v): ``trigger={button=0, interval=0}, replay={length=0, delay=0}`` and
    the union's member of its type. None when short."""
    if len(data) < FF_EFFECT_SIZE:
        return None
    type_, id_, direction, button, interval, length, delay = FF_HEAD.unpack_from(data)
    name = fl.tables.EVDEV_FF_TYPES.get(type_)
    text = (f"{{type={name or f'{hex0(type_)} /* FF_??? */'}, id={id_}, "
            f"direction={direction}, ")
    if not full:
        return text + "...}"
    return (f"{text}trigger={{button={button}, interval={interval}}}, "
            f"replay={{length={length}, delay={delay}}}{_ff_union(data, name)}}}")


def _uints(data: bytes, n: int, last: Callable[[int], str] = str) -> str | None:
    """``n`` unsigned ints in brackets (strace's printnum_int/printpair_int with
    ``%u``), the last through ``last``; None when short."""
    if len(data) < 4 * n:
        return None
    vals = struct.unpack_from(f"<{n}I", data)
    return "[" + ", ".join([*map(str, vals[:-1]), last(vals[-1])]) + "]"


def _input_id(data: bytes) -> str | None:
    if len(data) < INPUT_ID.size:
        return None
    bus, vendor, product, version = INPUT_ID.unpack_from(data)
    return f"{{bustype={bus}, vendor={vendor}, product={product}, version={version}}}"


def _full(fmt: Callable[..., str | None], out: bool, fl: F.ArchFlags) -> KindFn:
    """A struct of ``fl``'s names printed abbreviated without -v and whole with it."""
    return decoded_abbrev(lambda data, full: fmt(data, fl, full=full), out=out)


@functools.cache
def _decoders(fl: F.ArchFlags) -> dict[str, tuple[int, bool, KindFn]]:
    """request name -> (bytes captured, written by the call, decoder)."""
    def key(v: int) -> str:
        return xval(fl.tables.EVDEV_KEYS, v, "KEY_???")
    out: dict[str, tuple[int, bool, KindFn]] = {
        "EVIOCGVERSION": (4, True, decoded_out(lambda b: _uints(b, 1, hex0), whole=True)),
        "EVIOCGEFFECTS": (4, True, decoded_out(lambda b: _uints(b, 1), whole=True)),
        "EVIOCGID": (INPUT_ID.size, True, decoded_out(_input_id, whole=True)),
        "EVIOCGKEYCODE_V2": (KEYMAP_ENTRY.size, True, _full(format_keymap_entry, True, fl)),
        "EVIOCSKEYCODE_V2": (KEYMAP_ENTRY.size, False,
                             _full(format_keymap_entry, False, fl)),
        "EVIOCSFF": (FF_EFFECT_SIZE, False, _full(format_ff_effect, False, fl)),
        "EVIOCSCLOCKID": (4, False, decoded_in(lambda b: _uints(b, 1), whole=True)),
    }
    for d, wrap in (("G", decoded_out), ("S", decoded_in)):
        out[f"EVIOC{d}REP"] = (8, d == "G", wrap(lambda b: _uints(b, 2), whole=True))
        out[f"EVIOC{d}KEYCODE"] = (8, d == "G", wrap(lambda b: _uints(b, 2, key), whole=True))
    return out


def _abs_request(req: int) -> bool:
    dir_, type_, nr, _ = _parts(req)
    return type_ == EVDEV_TYPE and (dir_ == _IOC_READ and 0x40 <= nr <= 0x40 + ABS_MAX
                                    or dir_ == _IOC_WRITE and 0xC0 <= nr <= 0xC0 + ABS_MAX)


def _ioc(dir_: int, nr: int, size: int) -> int:
    return dir_ << 30 | size << 16 | EVDEV_TYPE << 8 | nr


@functools.cache
def _by_value(fl: F.ArchFlags) -> dict[int, str]:
    dec = _decoders(fl)
    return {v: n for v, n in fl.tables.DRIVER_IOCTLS.items() if n in dec}


def evdev_captures(fl: F.ArchFlags) -> dict[int, tuple[int, bool, bool]]:
    """request -> (bytes captured, read at entry, read at exit) of the evdev requests
    whose struct is decoded (tracekit.decode.structs_io.IOCTL_ARGS): the named ones and
    EVIOCGABS/EVIOCSABS of each axis (struct input_absinfo)."""
    dec = _decoders(fl)
    caps = {v: (dec[n][0], not dec[n][1], dec[n][1]) for v, n in _by_value(fl).items()}
    for nr in range(ABS_MAX + 1):
        caps[_ioc(_IOC_READ, 0x40 + nr, ABSINFO.size)] = (ABSINFO.size, False, True)
        caps[_ioc(_IOC_WRITE, 0xC0 + nr, ABSINFO.size)] = (ABSINFO.size, True, False)
    return caps


def evdev_arg(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """ioctl's argument ``i`` for an evdev request (``ev.args[i - 1]``) as strace
    prints it; None when the request is not a read or a write of type ``'E'`` (the
    argument prints as for any request)."""
    req, v = ev.args[i - 1] & 0xFFFFFFFF, ev.args[i]
    dir_, type_, _, size = _parts(req)
    if type_ != EVDEV_TYPE or dir_ not in (_IOC_READ, _IOC_WRITE):
        return None
    fl = d.flags
    name = _by_value(fl).get(req)
    if name is not None:
        return _decoders(fl)[name][2](d, ev, i)
    named = fl.tables.DRIVER_IOCTLS.get(req)
    if named == "EVIOCRMFF":
        return str(signed(v, 32))
    if named in ("EVIOCGRAB", "EVIOCREVOKE"):
        return str(v)
    if _abs_request(req) and size >= _ABSINFO_ORIG:
        out = dir_ == _IOC_READ
        kind = (decoded_out if out else decoded_in)(
            lambda data: format_absinfo(data, size, full=d.full), whole=True)
        return kind(d, ev, i)
    return pointer(v)
