"""The GPIO character device ioctls (include/uapi/linux/gpio.h) as strace 6.1 prints
them.

What strace prints (its gpio_ioctl.c, checked against strace 6.1's ioctl_gpio tests):

- a request that reads a struct and writes into it: what it reads at entry
  (``{line_offset=50}``, ``{offset=50}``, ``{mask=0x3}``, a line event request whole),
  then, when it succeeded, `` => `` and what it wrote (``{flags=GPIOLINE_FLAG_KERNEL,
  name="sda", consumer="i2c"}``, ``{fd=5}``, ``{bits=0x1}``; the address when that
  cannot be read).
- GPIO_GET_CHIPINFO_IOCTL's ``{name="gpiochip0", label="...", lines=32}`` and
  GPIOHANDLE_GET_LINE_VALUES_IOCTL's values as the call wrote them.
- struct gpiohandle_data's ``{values=[1, 0, ...]}`` (``...`` after 32 values but with
  -v), struct gpiohandle_config's flags and default values, struct
  gpio_v2_line_values' ``{bits=0x1, mask=0x3}``.
- struct gpio_v2_line_config: ``{flags=GPIO_V2_LINE_FLAG_INPUT, num_attrs=1,
  attrs=[{flags=..., mask=0x1}]}`` (``padding=[...]`` when not 0); an attribute by its
  id: ``flags=``, ``values=0x..``, ``debounce_period_us=``, or raw (``attr={id=4,
  data=0x...}``) for an unknown id or one whose padding is not 0.
- the address of a struct that cannot be read whole.

Not decoded (printed as the address): GPIO_GET_LINEHANDLE_IOCTL's and
GPIO_V2_GET_LINE_IOCTL's requests (552 and 592 bytes: more than an ioctl's capture
holds), and GPIO_V2_LINE_SET_CONFIG_IOCTL's config when it says it has all 10 attributes
(272 bytes, of which the first 256 are captured).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import CAPF_TRUNC, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, decoded_in, decoded_out, entry_exit, succeeded
from tracekit.decode.values import cstring_field, hex0, pointer

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["GPIO_DECODERS", "format_line_config"]

NAME = 32                               # GPIO_MAX_NAME_SIZE
LINE_INFO_SIZE = 72                     # struct gpioline_info
EVENT_REQUEST_SIZE = 48                 # struct gpioevent_request
HANDLE_DATA_SIZE = 64                   # struct gpiohandle_data: __u8 values[64]
HANDLE_CONFIG_SIZE = 84                 # struct gpiohandle_config
CHIP_INFO_SIZE = 68                     # struct gpiochip_info
V2_LINE_INFO_SIZE = 256                 # struct gpio_v2_line_info
V2_VALUES = struct.Struct("<QQ")        # struct gpio_v2_line_values: bits, mask
V2_CONFIG_HEAD = 32                     # struct gpio_v2_line_config: flags, num_attrs,
V2_CONFIG_ATTR = 24                     # padding[5], then attrs[10] of 24 bytes
V2_CONFIG_CAPTURED = 256                # of its 272 bytes
V2_ATTRS_MAX = 10                       # GPIO_V2_LINE_NUM_ATTRS_MAX
V2_ATTR = struct.Struct("<IIQ")         # struct gpio_v2_line_attribute: id, padding, union


def _cstring(data: bytes, off: int, size: int = NAME) -> str:
    return cstring_field(data[off:off + size])


def _u8s(data: bytes, off: int, n: int, shown: int) -> str:
    vals = [str(b) for b in data[off:off + n][:shown]]
    return "[" + ", ".join(vals + (["..."] if n > shown else [])) + "]"


def _v2_flags(fl: F.ArchFlags, v: int) -> str:
    return F.flagset(fl.tables.GPIO_V2_LINE_FLAGS, "GPIO_V2_LINE_FLAG_???")(v)


def _attribute(data: bytes, off: int, fl: F.ArchFlags, *, field: bool) -> str:
    """A struct gpio_v2_line_attribute's fields by its id; raw (``id=``, ``padding=``
    when not 0, ``data=``) for an unknown id or a padding in use, inside ``attr={...}``
    when ``field``."""
    id_, padding, value = V2_ATTR.unpack_from(data, off)
    name = fl.tables.GPIO_V2_ATTR_IDS.get(id_) if not padding else None
    if name == "GPIO_V2_LINE_ATTR_ID_FLAGS":
        return f"flags={_v2_flags(fl, value)}"
    if name == "GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES":
        return f"values={hex0(value)}"
    if name == "GPIO_V2_LINE_ATTR_ID_DEBOUNCE":
        return f"debounce_period_us={value & 0xFFFFFFFF}"
    raw = f"id={id_}" + (f", padding={hex0(padding)}" if padding else "") + f", data={hex0(value)}"
    return f"attr={{{raw}}}" if field else raw


def _padding(data: bytes, off: int, n: int) -> str:
    vals = struct.unpack_from(f"<{n}I", data, off)
    return f", padding=[{', '.join(map(hex0, vals))}]" if any(vals) else ""


def format_line_config(data: bytes, fl: F.ArchFlags) -> str | None:
    """struct gpio_v2_line_config: ``{flags=..., num_attrs=1, attrs=[{flags=...,
    mask=0x1}]}``; None when short or when its attributes run past what ``data`` holds."""
    if len(data) < V2_CONFIG_HEAD:
        return None
    flags, num = struct.unpack_from("<QI", data)
    shown = min(num, V2_ATTRS_MAX)
    if len(data) < V2_CONFIG_HEAD + shown * V2_CONFIG_ATTR:
        return None
    text = f"{{flags={_v2_flags(fl, flags)}, num_attrs={num}{_padding(data, 12, 5)}"
    attrs = []
    for k in range(shown):
        off = V2_CONFIG_HEAD + k * V2_CONFIG_ATTR
        (mask,) = struct.unpack_from("<Q", data, off + V2_ATTR.size)
        attrs.append(f"{{{_attribute(data, off, fl, field=True)}, mask={hex0(mask)}}}")
    return text + (f", attrs=[{', '.join(attrs)}]" if attrs else "") + "}"


def _line_info(fl: F.ArchFlags, data: bytes) -> str:
    (flags,) = struct.unpack_from("<I", data, 4)
    return (f"{{flags={F.flagset(fl.tables.GPIO_LINE_FLAGS, 'GPIOLINE_FLAG_???')(flags)}, "
            f"name={_cstring(data, 8)}, consumer={_cstring(data, 40)}}}")


def _v2_line_info(fl: F.ArchFlags, data: bytes) -> str:
    num, flags = struct.unpack_from("<IQ", data, 68)
    text = (f"{{name={_cstring(data, 0)}, consumer={_cstring(data, NAME)}, "
            f"flags={_v2_flags(fl, flags)}, num_attrs={num}")
    attrs = [f"{{{_attribute(data, 80 + 16 * k, fl, field=False)}}}"
             for k in range(min(num, V2_ATTRS_MAX))]
    if attrs:
        text += f", attrs=[{', '.join(attrs)}]"
    return text + _padding(data, 240, 4) + "}"


def _event_request(fl: F.ArchFlags, data: bytes) -> str:
    line, handle, event = struct.unpack_from("<III", data)
    return (f"{{lineoffset={line}, handleflags="
            f"{F.flagset(fl.tables.GPIO_HANDLE_FLAGS, 'GPIOHANDLE_REQUEST_???')(handle)}, "
            f"eventflags={F.flagset(fl.tables.GPIO_EVENT_FLAGS, 'GPIOEVENT_REQUEST_???')(event)}"
            f", consumer_label={_cstring(data, 12)}}}")


def _fd_at(off: int) -> Callable[[F.ArchFlags, bytes], str]:
    return lambda fl, data: f"{{fd={struct.unpack_from('<i', data, off)[0]}}}"


def _changed(size: int, before: Callable[[F.ArchFlags, bytes], str],
             after: Callable[[F.ArchFlags, bytes], str]) -> KindFn:
    """A struct the call reads and writes: ``before`` at entry, then `` => `` and
    ``after`` when it succeeded (the address when that cannot be read)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        entry, exit_ = entry_exit(ev, i)
        if entry is None or entry.flags & CAPF_TRUNC or len(entry.data) < size:
            return pointer(ev.args[i])
        text = before(d.flags, entry.data)
        if not succeeded(ev):
            return text
        good = exit_ is not None and not exit_.flags & CAPF_TRUNC and len(exit_.data) >= size
        return f"{text} => {after(d.flags, exit_.data) if good and exit_ else pointer(ev.args[i])}"
    return k


def _with_flags(fmt: Callable[[F.ArchFlags, bytes], str | None], size: int, *,
                out: bool = False) -> KindFn:
    """A struct of ``size`` bytes read (or, ``out``, written) by the call."""
    wrap = decoded_out if out else decoded_in

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return wrap(lambda data: None if len(data) < size else fmt(d.flags, data),
                    whole=True)(d, ev, i)
    return k


def _handle_data(out: bool) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        shown = d.string_limit if not d.full else HANDLE_DATA_SIZE
        return (decoded_out if out else decoded_in)(
            lambda data: None if len(data) < HANDLE_DATA_SIZE else
            f"{{values={_u8s(data, 0, HANDLE_DATA_SIZE, shown)}}}", whole=True)(d, ev, i)
    return k


def _handle_config(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    shown = d.string_limit if not d.full else HANDLE_DATA_SIZE

    def fmt(fl: F.ArchFlags, data: bytes) -> str:
        (flags,) = struct.unpack_from("<I", data)
        return (f"{{flags={F.flagset(fl.tables.GPIO_HANDLE_FLAGS, 'GPIOHANDLE_REQUEST_???')(flags)}"
                f", default_values={_u8s(data, 4, HANDLE_DATA_SIZE, shown)}}}")
    return _with_flags(fmt, HANDLE_CONFIG_SIZE)(d, ev, i)


def _chip_info(fl: F.ArchFlags, data: bytes) -> str:
    (lines,) = struct.unpack_from("<I", data, 2 * NAME)
    return f"{{name={_cstring(data, 0)}, label={_cstring(data, NAME)}, lines={lines}}}"


def _entry(text: Callable[[bytes], str]) -> Callable[[F.ArchFlags, bytes], str]:
    return lambda fl, data: text(data)


def _u32_field(name: str, off: int = 0) -> Callable[[F.ArchFlags, bytes], str]:
    return _entry(lambda data: f"{{{name}={struct.unpack_from('<I', data, off)[0]}}}")


def _u64_field(name: str, off: int) -> Callable[[F.ArchFlags, bytes], str]:
    return _entry(lambda data: f"{{{name}={hex0(struct.unpack_from('<Q', data, off)[0])}}}")


def _v2_values(fl: F.ArchFlags, data: bytes) -> str:
    bits, mask = V2_VALUES.unpack_from(data)
    return f"{{bits={hex0(bits)}, mask={hex0(mask)}}}"


Driver = tuple[tuple[int, bool, bool] | None, KindFn]

#: request name -> ((bytes captured, read at entry, read at exit) or None, decoder of
#: ioctl's argument)
GPIO_DECODERS: dict[str, Driver] = {
    "GPIO_GET_CHIPINFO_IOCTL": ((CHIP_INFO_SIZE, False, True),
                                _with_flags(_chip_info, CHIP_INFO_SIZE, out=True)),
    **{n: ((LINE_INFO_SIZE, True, True),
           _changed(LINE_INFO_SIZE, _u32_field("line_offset"), _line_info))
       for n in ("GPIO_GET_LINEINFO_IOCTL", "GPIO_GET_LINEINFO_WATCH_IOCTL")},
    "GPIO_GET_LINEINFO_UNWATCH_IOCTL": ((4, True, False),
                                        _with_flags(_u32_field("offset"), 4)),
    "GPIO_GET_LINEEVENT_IOCTL": ((EVENT_REQUEST_SIZE, True, True),
                                 _changed(EVENT_REQUEST_SIZE, _event_request, _fd_at(44))),
    "GPIOHANDLE_GET_LINE_VALUES_IOCTL": ((HANDLE_DATA_SIZE, False, True), _handle_data(True)),
    "GPIOHANDLE_SET_LINE_VALUES_IOCTL": ((HANDLE_DATA_SIZE, True, False), _handle_data(False)),
    "GPIOHANDLE_SET_CONFIG_IOCTL": ((HANDLE_CONFIG_SIZE, True, False), _handle_config),
    **{n: ((V2_LINE_INFO_SIZE, True, True),
           _changed(V2_LINE_INFO_SIZE, _u32_field("offset", 2 * NAME), _v2_line_info))
       for n in ("GPIO_V2_GET_LINEINFO_IOCTL", "GPIO_V2_GET_LINEINFO_WATCH_IOCTL")},
    "GPIO_V2_LINE_GET_VALUES_IOCTL": ((V2_VALUES.size, True, True),
                                      _changed(V2_VALUES.size, _u64_field("mask", 8),
                                               _u64_field("bits", 0))),
    "GPIO_V2_LINE_SET_VALUES_IOCTL": ((V2_VALUES.size, True, False),
                                      _with_flags(_v2_values, V2_VALUES.size)),
    "GPIO_V2_LINE_SET_CONFIG_IOCTL": ((V2_CONFIG_CAPTURED, True, False),
                                      _with_flags(lambda fl, data: format_line_config(data, fl),
                                                  V2_CONFIG_HEAD)),
}
