"""The GPIO character device ioctls (tracekit/decode/structs_gpio.py) through
SyscallDecoder with captures that are short, cut or unreadable: what the program
controls never raises, and what cannot be read prints as the address.

Expected texts are what strace 6.1 printed for the same values (its ioctl_gpio tests;
tests/e2e/test_strace_sweep_gpio.py compares against strace itself)."""

from __future__ import annotations

import struct
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tests.decode._calls import call, decoder, ioctl_of_hostile_memory, line
from tracekit._events import CAP_STRUCT, CAPF_AT_EXIT, CAPF_FAULT, CAPF_TRUNC, Capture
from tracekit.decode import flags as F, structs_gpio as GPIO, structs_io as IO

FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
LINEINFO, LINEEVENT, V2_SET_CONFIG = 0xC048B402, 0xC030B404, 0xC110B40D


def test_line_info_at_entry_then_what_it_wrote(tmp_path: Path) -> None:
    d = decoder(tmp_path)
    info = struct.pack("<II32s32s", 50, 0x5, b"sda", b"i2c")
    caps = (Capture(2, CAP_STRUCT, 0, info), Capture(2, CAP_STRUCT, CAPF_AT_EXIT, info))
    assert line(d, call("ioctl", (3, LINEINFO, ADDR), 0, caps)) == (
        'ioctl(3, GPIO_GET_LINEINFO_IOCTL, {line_offset=50} => {flags=GPIOLINE_FLAG_KERNEL|'
        'GPIOLINE_FLAG_ACTIVE_LOW, name="sda", consumer="i2c"}) = 0')
    assert line(d, call("ioctl", (3, LINEINFO, ADDR), -9, caps[:1])).startswith(
        "ioctl(3, GPIO_GET_LINEINFO_IOCTL, {line_offset=50}) = -1")
    assert line(d, call("ioctl", (3, LINEINFO, ADDR), 0, caps[:1])) == \
        f"ioctl(3, GPIO_GET_LINEINFO_IOCTL, {{line_offset=50}} => {ADDR:#x}) = 0"
    for bad in (Capture(2, CAP_STRUCT, 0, info[:71]), Capture(2, CAP_STRUCT, CAPF_FAULT, b""),
                Capture(2, CAP_STRUCT, CAPF_TRUNC, info)):
        assert f"GPIO_GET_LINEINFO_IOCTL, {ADDR:#x})" in line(
            d, call("ioctl", (3, LINEINFO, ADDR), -9, (bad,)))
    event = struct.pack("<III32si", 4, 0x14, 3, b"line consumer", 7)
    caps = (Capture(2, CAP_STRUCT, 0, event), Capture(2, CAP_STRUCT, CAPF_AT_EXIT, event))
    assert line(d, call("ioctl", (3, LINEEVENT, ADDR), 7, caps)) == (
        "ioctl(3, GPIO_GET_LINEEVENT_IOCTL, {lineoffset=4, handleflags="
        "GPIOHANDLE_REQUEST_ACTIVE_LOW|GPIOHANDLE_REQUEST_OPEN_SOURCE, eventflags="
        'GPIOEVENT_REQUEST_BOTH_EDGES, consumer_label="line consumer"} => {fd=7}) = 7')


def test_line_config() -> None:
    head = struct.pack("<QI5I", 0x102, 1, 0, 0, 0, 0, 0)
    attr = struct.pack("<IIQQ", 1, 0, 0x102, 1)
    assert GPIO.format_line_config(head + attr, FL) == (
        "{flags=GPIO_V2_LINE_FLAG_ACTIVE_LOW|GPIO_V2_LINE_FLAG_BIAS_PULL_UP, num_attrs=1, "
        "attrs=[{flags=GPIO_V2_LINE_FLAG_ACTIVE_LOW|GPIO_V2_LINE_FLAG_BIAS_PULL_UP, "
        "mask=0x1}]}")
    # the attributes it says it has run past what was read
    assert GPIO.format_line_config(head + attr[:23], FL) is None
    ten = struct.pack("<QI5I", 0, 10, 0, 0, 0, 0, 0) + bytes(224)
    assert GPIO.format_line_config(ten, FL) is None
    assert IO.IOCTL_ARGS("x86_64")[V2_SET_CONFIG] == (256, True, False)


_REQS = [v for v, n in FL.tables.DRIVER_IOCTLS.items() if "GPIO" in n]


@settings(max_examples=400, deadline=None)
@given(req=st.sampled_from(_REQS), data=st.lists(st.binary(max_size=260), max_size=2),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), ret=st.integers(-4095, 10),
       arg=st.integers(0, 2**64 - 1), full=st.booleans())
def test_hostile_captures_never_raise(req: int, data: list[bytes], flags: int, ret: int,
                                      arg: int, full: bool) -> None:
    ioctl_of_hostile_memory(req, data, flags, ret, arg, full)
