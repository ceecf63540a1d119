"""The input event device ioctls (tracekit/decode/structs_evdev.py) on packed bytes and
through SyscallDecoder with captures that are short, cut or unreadable: what the program
controls never raises, and what cannot be read prints as the address.

Expected texts are what strace 6.1 printed for the same values (its ioctl_evdev tests;
tests/e2e/test_strace_sweep_evdev.py compares against strace itself)."""

from __future__ import annotations

import struct
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tests.decode._calls import call, decoder, ioctl_of_hostile_memory, line
from tracekit._events import CAP_STRUCT, CAPF_AT_EXIT, CAPF_FAULT, CAPF_TRUNC, Capture
from tracekit.decode import flags as F, structs_evdev as EV, structs_io as IO

FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
EVIOCSFF, EVIOCSKEYCODE, EVIOCGID, EVIOCRMFF = 0x40304580, 0x40084504, 0x80084502, 0x40044581


def test_request_names() -> None:
    assert IO.ioctl_name(FL, 0x80044501) == "EVIOCGVERSION"
    assert IO.ioctl_name(FL, 0x80004520) == "EVIOCGBIT(0, 0)"
    assert IO.ioctl_name(FL, 0x80014521) == "EVIOCGBIT(EV_KEY, 1)"
    assert IO.ioctl_name(FL, 0x800C4526) == "EVIOCGBIT(0x6 /* EV_??? */, 12)"
    assert IO.ioctl_name(FL, 0x80184540) == "EVIOCGABS(ABS_X)"
    assert IO.ioctl_name(FL, 0x401845FD) == "EVIOCSABS(ABS_MT_TOOL_Y)"
    assert IO.ioctl_name(FL, 0x401845CE) == "EVIOCSABS(0xe /* ABS_??? */)"
    assert IO.ioctl_name(FL, 0x8008450A) == "EVIOCGMTSLOTS(8)"
    assert IO.ioctl_name(FL, 0x80FF4501) == "_IOC(_IOC_READ, 0x45, 0x1, 0xff)"
    assert IO.ioctl_name(FL, 0xC0FF45FE) == "_IOC(_IOC_READ|_IOC_WRITE, 0x45, 0xfe, 0xff)"


def test_arguments(tmp_path: Path) -> None:
    d = decoder(tmp_path)
    assert line(d, call("ioctl", (2**32 - 1, 0x80044501, 0), -9)).startswith(
        "ioctl(-1, EVIOCGVERSION, NULL) = -1 EBADF")
    assert line(d, call("ioctl", (3, EVIOCRMFF, 0xBADC0DED), -9)).startswith(
        "ioctl(3, EVIOCRMFF, -1159983635) = -1")
    pair = Capture(2, CAP_STRUCT, 0, struct.pack("<2I", 0xDEADBEEF, 1))
    assert line(d, call("ioctl", (3, EVIOCSKEYCODE, ADDR), -9, (pair,))).startswith(
        "ioctl(3, EVIOCSKEYCODE, [3735928559, KEY_ESC]) = -1")
    ident = Capture(2, CAP_STRUCT, CAPF_AT_EXIT, struct.pack("<4H", 3, 1133, 49271, 273))
    assert line(d, call("ioctl", (3, EVIOCGID, ADDR), 0, (ident,))) == (
        "ioctl(3, EVIOCGID, {bustype=3, vendor=1133, product=49271, version=273}) = 0")
    # a failed read shows the address; so do short, cut and unreadable structs
    assert f"EVIOCGID, {ADDR:#x})" in line(d, call("ioctl", (3, EVIOCGID, ADDR), -9, (ident,)))
    for bad in (Capture(2, CAP_STRUCT, 0, bytes(7)), Capture(2, CAP_STRUCT, CAPF_FAULT, b""),
                Capture(2, CAP_STRUCT, CAPF_TRUNC, bytes(8))):
        assert f"EVIOCSKEYCODE, {ADDR:#x})" in line(
            d, call("ioctl", (3, EVIOCSKEYCODE, ADDR), -9, (bad,)))


def test_structs_abbreviated_and_full() -> None:
    ffe = struct.pack("<HhH4H2x", 0x52, -31870, 34180, 34694, 35208, 35722, 36236) + \
        struct.pack("<h4H", -28272, 37778, 38292, 38806, 0x9998).ljust(32, b"\0")
    assert EV.format_ff_effect(ffe, FL, full=False) == \
        "{type=FF_CONSTANT, id=-31870, direction=34180, ...}"
    assert EV.format_ff_effect(ffe, FL, full=True) == (
        "{type=FF_CONSTANT, id=-31870, direction=34180, trigger={button=34694, "
        "interval=35208}, replay={length=35722, delay=36236}, constant={level=-28272, "
        "envelope={attack_length=37778, attack_level=38292, fade_length=38806, "
        "fade_level=0x9998}}}")
    assert EV.format_ff_effect(b"\xff" + ffe[1:], FL, full=True).startswith(
        "{type=0xff /* FF_??? */, ")
    assert EV.format_ff_effect(ffe[:47], FL, full=True) is None
    ike = struct.pack("<BBHI32s", 128, 129, 33666, 2, bytes(range(0x88, 0xA8)))
    assert EV.format_keymap_entry(ike, FL, full=False) == "{flags=128, len=129, ...}"
    assert EV.format_keymap_entry(ike, FL, full=True).startswith(
        "{flags=128, len=129, index=33666, keycode=KEY_1, scancode=[0x88, 0x89, ")
    absinfo = struct.pack("<6i", -1, 2, 3, 4, 5, 6)
    assert EV.format_absinfo(absinfo, 24, full=False) == "{value=4294967295, minimum=2, ...}"
    assert EV.format_absinfo(absinfo, 24, full=True) == (
        "{value=4294967295, minimum=2, maximum=3, fuzz=4, flat=5, resolution=6}")
    assert EV.format_absinfo(absinfo[:20], 20, full=True) == (
        "{value=4294967295, minimum=2, maximum=3, fuzz=4, flat=5}")
    assert EV.format_absinfo(absinfo[:23], 24, full=True) is None


def test_captures_cover_the_decoded_requests() -> None:
    caps = EV.evdev_captures(FL)
    assert caps[EVIOCSFF] == (48, True, False)
    assert caps[EVIOCGID] == (8, False, True)
    assert caps[0x80184540] == (24, False, True) and caps[0x401845FF] == (24, True, False)
    assert set(caps) <= set(IO.IOCTL_ARGS("x86_64"))


_REQS = [0x80044501, EVIOCGID, 0x80084503, 0x40084503, EVIOCSKEYCODE, 0x80284504,
         0x40284504, EVIOCSFF, EVIOCRMFF, 0x80044584, 0x40044590, 0x400445A0, 0x80184540,
         0x401845C0, 0x401445C0, 0x401C45C1, 0x80FF4520, 0x80404506, 0x8008450A,
         0xC0FF45FE, 0x00004520]


@settings(max_examples=300, deadline=None)
@given(req=st.sampled_from(_REQS) | st.integers(0, 2**32 - 1).map(lambda r: r & ~0xFF00 | 0x4500),
       data=st.lists(st.binary(max_size=64), max_size=2),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), ret=st.integers(-4095, 10),
       arg=st.integers(0, 2**64 - 1), full=st.booleans())
def test_hostile_captures_never_raise(req: int, data: list[bytes], flags: int, ret: int,
                                      arg: int, full: bool) -> None:
    ioctl_of_hostile_memory(req, data, flags, ret, arg, full)
