"""The console ioctls' arguments (include/uapi/linux/kd.h) as strace 6.1 prints them.

What strace prints (its kd_ioctl.c, checked against strace 6.1's ioctl_kd test):

- values: KIOCSOUND's divisor as ``440 /* 2711 Hz */`` (``/* off */`` for 0 or a
  divisor past the PIT rate), KDMKTONE's ``1<<16|440 /* 2711 Hz, 1 ms */`` (ticks in the
  high half), KDSETLED's ``LED_SCR|LED_NUM`` (its low byte), KDSKBLED's with the default
  lights as ``LED_SCR<<4``, KDADDIO/KDDELIO's port in hex with ``/* GPFIRST + 12 */``
  inside the graphics ports, KDSETMODE's ``KD_GRAPHICS``, KDSKBMODE's ``K_XLATE`` (an
  unknown one in decimal), KDSKBMETA's ``K_METABIT``, KDSIGACCEPT's signal.
- what a successful get wrote, in brackets: KDGETLED's ``[LED_SCR]``, KDGKBTYPE's
  ``[KB_101]``, KDGETMODE's ``[KD_TEXT]``...; the address when the call failed.
- structs: KDGETKEYCODE/KDSETKEYCODE's ``{scancode=0x1, keycode=0x2}`` (``=> 0x3``
  after the keycode a successful KDGETKEYCODE wrote), KDKBDREP's ``{delay=250,
  period=33}`` (then `` => {...}`` as the call wrote it), PIO_UNIMAPCLR's
  ``{advised_hashsize=0, advised_hashstep=0, advised_hashlevel=0}``.
- struct kbentry: ``{kb_table=K_NORMTAB, kb_index=28, kb_value=0x201 /* K_ENTER */}``
  (modifier bits as ``1<<KG_SHIFT|1<<KG_CTRL``, a key without a name as ``K(KT_LATIN,
  'a')``); struct kbsentry: ``{kb_func=KVAL(K_F1), kb_string="\\33[[A"}``.
- tables as hex strings (QUOTE_FORCE_HEX): PIO_SCRNMAP's 256 bytes, PIO_FONT's 8192,
  PIO_CMAP's 48, of which the first 32 print, then ``...``; strace reads 33 bytes and
  prints the address when it cannot (the GIO_* forms: what a successful call wrote).

Unknown values print as strace's printxval: ``0x4 /* KD_??? */``.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import capture, capture_out, entry_exit, succeeded
from tracekit.decode.values import hex0, pointer, quote, signed, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["KD_CAPTURES", "KD_DECODERS", "format_char"]

PIT_TICK_RATE = 1193182          # the PC speaker's clock (kernel's PIT_TICK_RATE), Hz
GPFIRST, GPLAST = 0x3B4, 0x3DF   # the graphics ports KDADDIO allows (drivers/tty/vt)
STRING_LIMIT = 32                # strace's default -s
_TABLE_READ = STRING_LIMIT + 1   # printstr_ex reads one byte more than it prints
KBENTRY = struct.Struct("<BBH")           # struct kbentry: kb_table, kb_index, kb_value
KBKEYCODE = struct.Struct("<II")          # struct kbkeycode: scancode, keycode
KBD_REPEAT = struct.Struct("<ii")         # struct kbd_repeat: delay, period
UNIMAPINIT = struct.Struct("<3H")         # struct unimapinit

#: request name -> (bytes captured, read at entry, read at exit) for the requests whose
#: argument points to memory (tracekit.decode.structs_io.IOCTL_ARGS)
KD_CAPTURES: dict[str, tuple[int, bool, bool]] = {
    **{n: (1, False, True) for n in ("KDGETLED", "KDGKBLED", "KDGKBTYPE")},
    **{n: (4, False, True) for n in ("KDGETMODE", "KDGKBMODE", "KDGKBMETA")},
    "KDGKBENT": (KBENTRY.size, True, True),
    "KDSKBENT": (KBENTRY.size, True, False),
    # struct kbsentry: kb_func, then kb_string[512] of which strace prints 32 bytes
    # and "..." from the 33rd on; KDGKBSENT's kb_func only (its string is not captured)
    "KDSKBSENT": (1 + _TABLE_READ, True, False),
    "KDGKBSENT": (1, True, False),
    "KDGETKEYCODE": (KBKEYCODE.size, True, True),
    "KDSETKEYCODE": (KBKEYCODE.size, True, False),
    "KDKBDREP": (KBD_REPEAT.size, True, True),
    "PIO_UNIMAPCLR": (UNIMAPINIT.size, True, False),
    **{n: (_TABLE_READ, True, False) for n in ("PIO_SCRNMAP", "PIO_FONT", "PIO_CMAP")},
    **{n: (_TABLE_READ, False, True) for n in ("GIO_SCRNMAP", "GIO_FONT", "GIO_CMAP")},
}

# the lengths of the tables (E_TABSZ; GIO_FONT's 32 rows of 256 8-bit characters; 16
# colours of 3 bytes), all longer than the 32 bytes strace prints
_TABLE_LEN = {"SCRNMAP": 256, "FONT": 8192, "CMAP": 48}


def _kiocsound(fl: F.ArchFlags, v: int) -> str:
    freq = PIT_TICK_RATE // v if v else 0
    return f"{v} /* {freq} Hz */" if freq else f"{v} /* off */"


def _kdmktone(fl: F.ArchFlags, v: int) -> str:
    v &= 0xFFFFFFFF
    ticks, count = v >> 16, v & 0xFFFF
    freq = PIT_TICK_RATE // count if ticks and count else 0
    text = (f"{ticks}<<16|" if ticks else "") + str(count)
    return text + (f" /* {freq} Hz, {ticks} ms */" if freq else " /* off */")


@functools.cache
def _leds(fl: F.ArchFlags, default: bool) -> F.FlagSet:
    """The LED bits; KDGKBLED/KDSKBLED's word also holds the default lights, 4 bits up."""
    bits = fl.tables.KD_LED_FLAGS
    if default:
        bits = bits + tuple((b << 4, f"{n}<<4") for b, n in bits)
    return F.FlagSet(bits, unknown="LED_???")


def _kdio(fl: F.ArchFlags, v: int) -> str:
    gp = f" /* GPFIRST + {v - GPFIRST} */" if GPFIRST <= v <= GPLAST else ""
    return hex0(v) + gp


def _xval_d(table: dict[int, str], v: int, unknown: str) -> str:
    """strace's printxval_d: the name, or the value as a signed decimal int."""
    name = table.get(v & 0xFFFFFFFF)
    return name if name is not None else f"{signed(v, 32)} /* {unknown} */"


def _sigaccept(fl: F.ArchFlags, v: int) -> str:
    return fl.signal_name(v) if v < 0x7FFFFFFF else str(v)


# request -> its value argument's text
_VALUES: dict[str, Callable[[F.ArchFlags, int], str]] = {
    "KIOCSOUND": _kiocsound,
    "KDMKTONE": _kdmktone,
    "KDSETLED": lambda fl, v: _leds(fl, False)(v & 0xFF),
    "KDSKBLED": lambda fl, v: _leds(fl, True)(v & 0xFF),
    "KDADDIO": _kdio,
    "KDDELIO": _kdio,
    "KDSETMODE": lambda fl, v: xval(fl.tables.KD_MODES, v & 0xFFFFFFFF, "KD_???"),
    "KDSKBMODE": lambda fl, v: _xval_d(fl.tables.KD_KBD_MODES, v, "K_???"),
    "KDSKBMETA": lambda fl, v: xval(fl.tables.KD_META_VALS, v & 0xFFFFFFFF, "K_???"),
    "KDSIGACCEPT": _sigaccept,
}

# get request -> the text of the value it wrote (an int of its capture's size)
_GETS: dict[str, Callable[[F.ArchFlags, int], str]] = {
    "KDGETLED": lambda fl, v: _leds(fl, False)(v),
    "KDGKBLED": lambda fl, v: _leds(fl, True)(v),
    "KDGKBTYPE": lambda fl, v: xval(fl.tables.KD_KBD_TYPES, v, "KB_???"),
    "KDGETMODE": lambda fl, v: xval(fl.tables.KD_MODES, v, "KD_???"),
    "KDGKBMODE": lambda fl, v: _xval_d(fl.tables.KD_KBD_MODES, v, "K_???"),
    "KDGKBMETA": lambda fl, v: xval(fl.tables.KD_META_VALS, v, "K_???"),
}


def _get(name: str) -> Callable[[SyscallDecoder, Syscall, int], str]:
    size = KD_CAPTURES[name][0]

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture_out(ev, i, whole=True)
        if cap is None or len(cap.data) < size:
            return pointer(ev.args[i])
        return f"[{_GETS[name](d.flags, int.from_bytes(cap.data[:size], 'little'))}]"
    return k


def _structs(ev: Syscall, i: int, layout: struct.Struct
             ) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """A struct's fields as the call read it and, when it succeeded, as it wrote it;
    None where it was not read or is short."""
    entry, exit_ = entry_exit(ev, i)
    before = layout.unpack_from(entry.data) if entry and len(entry.data) >= layout.size \
        else None
    after = layout.unpack_from(exit_.data) \
        if exit_ and succeeded(ev) and len(exit_.data) >= layout.size else None
    return before, after


# the key types whose keys strace names (the others print as K(type, value))
_NAMED_TYPES = ("KT_FN", "KT_SPEC", "KT_PAD", "KT_DEAD", "KT_CUR", "KT_SHIFT", "KT_ASCII",
                "KT_LOCK", "KT_SLOCK", "KT_BRL")
# the key types whose value is a character
_CHAR_TYPES = ("KT_LATIN", "KT_META", "KT_LETTER", "KT_DEAD2")
_WS = "tnvfr"                   # \t..\r by their letters


def format_char(c: int) -> str:
    """A byte as strace's print_char with quotes and white space escaped: ``'a'``,
    ``'\\''``, ``'\\n'``, ``'\\x00'``."""
    if 0x20 <= c < 0x7F:
        return "'\\" + chr(c) + "'" if chr(c) in "'\\" else f"'{chr(c)}'"
    if 9 <= c <= 13:
        return f"'\\{_WS[c - 9]}'"
    return f"'\\x{c:02x}'"


@functools.cache
def _kb_tables(fl: F.ArchFlags) -> F.FlagSet:
    """kb_table as modifier bits: ``1<<KG_SHIFT|1<<KG_CTRL``."""
    bits = tuple((1 << v, f"1<<{n}") for v, n in sorted(fl.tables.KD_KG_BITS.items()))
    return F.FlagSet(bits, unknown="K_???")


def _kb_value(fl: F.ArchFlags, v: int) -> str:
    """kb_value in hex and, in a comment, its key: ``0x700 /* K_SHIFT */``,
    ``0xb40 /* K(KT_LETTER, '@') */``, ``0xf00 /* K(0xf, 0) */``."""
    T = fl.tables
    ktyp, kval = v >> 8, v & 0xFF
    tname = T.KD_KEY_TYPES.get(ktyp)
    key = T.KD_KEYS.get(v) if tname in _NAMED_TYPES else None
    if key is None:
        val = format_char(kval) if tname in _CHAR_TYPES else hex0(kval)
        key = f"K({tname if tname is not None else hex0(ktyp)}, {val})"
    return f"{hex0(v)} /* {key} */"


def _kbentry(get: bool) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """struct kbentry: ``{kb_table=K_NORMTAB, kb_index=1, kb_value=0x1b /* K(KT_LATIN,
    '\\x1b') */}``; KDGKBENT's kb_value as the call wrote it (none when it failed)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        before, after = _structs(ev, i, KBENTRY)
        if before is None:
            return pointer(ev.args[i])
        fl = d.flags
        table, index = before[0], before[1]
        name = fl.tables.KD_KEY_TABLES.get(table)
        text = f"{{kb_table={name or _kb_tables(fl)(table)}, kb_index={index}"
        value = before[2] if not get else None if after is None else after[2]
        if value is not None:
            text += f", kb_value={_kb_value(fl, value)}"
        return text + "}"
    return k


def _kb_func(fl: F.ArchFlags, v: int) -> str:
    """A function key's number: ``KVAL(K_F1)``."""
    name = fl.tables.KD_KEYS.get(0x100 | v) if v <= 0xFF else None
    return f"KVAL({name})" if name is not None else f"{hex0(v)} /* KVAL(K_???) */"


def _kbsentry(get: bool) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """struct kbsentry: ``{kb_func=KVAL(K_F1), kb_string="\\33[[A"}`` (32 bytes of the
    string, then ``...``); KDGKBSENT's kb_func alone when the call failed, the address
    when it succeeded (what it wrote is not captured)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture(ev, i, whole=True)
        if cap is None or not cap.data or (get and succeeded(ev)):
            return pointer(ev.args[i])
        func = _kb_func(d.flags, cap.data[0])
        if get:
            return f"{{kb_func={func}}}"
        if len(cap.data) < 1 + _TABLE_READ:
            return pointer(ev.args[i])
        text = cap.data[1:].split(b"\0", 1)[0]
        # a string of 32 bytes gets "..." too: strace stops at 32 before seeing its NUL
        string = quote(text[:STRING_LIMIT], more=len(text) >= STRING_LIMIT)
        return f"{{kb_func={func}, kb_string={string}}}"
    return k


def _keycode(get: bool) -> Callable[[SyscallDecoder, Syscall, int], str]:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        before, after = _structs(ev, i, KBKEYCODE)
        if before is None:
            return pointer(ev.args[i])
        changed = f" => {hex0(after[1])}" if get and after is not None else ""
        return f"{{scancode={hex0(before[0])}, keycode={hex0(before[1])}{changed}}}"
    return k


def _kbdrep(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    before, after = _structs(ev, i, KBD_REPEAT)
    if before is None:
        return pointer(ev.args[i])
    text = f"{{delay={before[0]}, period={before[1]}}}"
    if after is not None:
        text += f" => {{delay={after[0]}, period={after[1]}}}"
    return text


def _unimapclr(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i, whole=True)
    if cap is None or len(cap.data) < UNIMAPINIT.size:
        return pointer(ev.args[i])
    size, step, level = UNIMAPINIT.unpack_from(cap.data)
    return f"{{advised_hashsize={size}, advised_hashstep={step}, advised_hashlevel={level}}}"


def _table(name: str) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """A table as a hex string: PIO_* reads it (shown whatever the result), GIO_*
    writes it (shown when the call succeeded)."""
    length = _TABLE_LEN[name[4:]]
    get = name.startswith("GIO_")

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = (capture_out if get else capture)(ev, i, whole=True)
        if cap is None or len(cap.data) < min(length, _TABLE_READ):
            return pointer(ev.args[i])
        return quote(cap.data[:length], limit=STRING_LIMIT, force_hex=True)
    return k


def _value(fn: Callable[[F.ArchFlags, int], str]) -> Callable[[SyscallDecoder, Syscall, int],
                                                              str]:
    return lambda d, ev, i: fn(d.flags, ev.args[i])


#: request name -> its argument's text (d, ev, i), for ioctl's argument i
KD_DECODERS: dict[str, Callable[[SyscallDecoder, Syscall, int], str]] = {
    **{n: _value(fn) for n, fn in _VALUES.items()},
    **{n: _get(n) for n in _GETS},
    "KDGKBENT": _kbentry(True),
    "KDSKBENT": _kbentry(False),
    "KDGKBSENT": _kbsentry(True),
    "KDSKBSENT": _kbsentry(False),
    "KDGETKEYCODE": _keycode(True),
    "KDSETKEYCODE": _keycode(False),
    "KDKBDREP": _kbdrep,
    "PIO_UNIMAPCLR": _unimapclr,
    **{n: _table(n) for n in ("PIO_SCRNMAP", "PIO_FONT", "PIO_CMAP", "GIO_SCRNMAP",
                              "GIO_FONT", "GIO_CMAP")},
}
