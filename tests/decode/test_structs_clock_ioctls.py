"""The PTP and RTC clock ioctls (tracekit/decode/structs_ptp.py, structs_rtc.py) on
packed bytes and through SyscallDecoder with captures that are short, cut or unreadable:
what the program controls never raises, and what cannot be read prints as the address.

Expected texts are what strace 6.1 printed for the same values (its ioctl_ptp and
ioctl_rtc tests; tests/e2e/test_strace_sweep_clock_ioctls.py compares against strace)."""

from __future__ import annotations

import struct
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tests.decode._calls import call, decoder, ioctl_of_hostile_memory, line
from tracekit._events import CAP_STRUCT, CAPF_AT_EXIT, CAPF_FAULT, CAPF_TRUNC, Capture
from tracekit.decode import flags as F, structs_io as IO, structs_ptp as PTP, structs_rtc as RTC
from tracekit.decode.structs_fs import time_comment

FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
PTP_EXTTS_REQUEST2, PTP_PIN_GETFUNC = 0x40103D0B, 0xC0603D06
RTC_PARAM_GET, RTC_SET_TIME, RTC_UIE_OFF = 0x40187013, 0x4024700A, 0x7004


def test_ptp_structs() -> None:
    ex = struct.pack("<4I", 3141592653, 0xDEADBABE, 0xDEADC0DE, 0)
    assert PTP.format_extts(ex, FL, rsv=True) == (
        "{index=3141592653, flags=PTP_RISING_EDGE|PTP_FALLING_EDGE|PTP_STRICT_FLAGS|"
        "0xdeadbab0, rsv=[0xdeadc0de, 0]}")
    assert PTP.format_extts(ex, FL, rsv=False).endswith("0xdeadbab0}")
    assert PTP.format_extts(ex[:15], FL, rsv=True) is None
    po = struct.pack("<qII qII II qII", 4886718345, 123456789, 0, 11259375, 0, 0x8BD03835,
                     3141592653, 0, 0, 0, 0)
    assert PTP.format_perout(po, FL, rsv=True) == (
        "{start={sec=4886718345, nsec=123456789}"
        f"{time_comment(4886718345, 123456789)}, period={{sec=11259375, nsec=0, "
        "reserved=0x8bd03835}, index=3141592653, flags=0}")
    phase = po[:36] + struct.pack("<I", 6) + po[40:]
    assert PTP.format_perout(phase, FL, rsv=True).startswith("{phase={sec=4886718345, ")
    assert "flags=PTP_PEROUT_DUTY_CYCLE|PTP_PEROUT_PHASE, on={sec=0, nsec=0}}" in \
        PTP.format_perout(phase, FL, rsv=True)
    assert PTP.format_clock_time(struct.pack("<qII", 0, 0, 0), date=True) == "{sec=0, nsec=0}"


def test_ptp_pin_get_entry_then_exit(tmp_path: Path) -> None:
    d = decoder(tmp_path)
    pin = b"eth0-pin".ljust(64, b"\0") + struct.pack("<8I", 7, 1, 2, 0, 0, 0, 0, 0)
    caps = (Capture(2, CAP_STRUCT, 0, pin), Capture(2, CAP_STRUCT, CAPF_AT_EXIT, pin))
    assert line(d, call("ioctl", (3, PTP_PIN_GETFUNC, ADDR), 0, caps)) == (
        'ioctl(3, PTP_PIN_GETFUNC, {index=7, name="eth0-pin", func=PTP_PF_EXTTS, '
        "chan=2}) = 0")
    assert line(d, call("ioctl", (3, PTP_PIN_GETFUNC, ADDR), -9, caps[:1])).startswith(
        "ioctl(3, PTP_PIN_GETFUNC, {index=7}) = -1")
    assert line(d, call("ioctl", (3, PTP_PIN_GETFUNC, ADDR), 0, caps[:1])) == \
        "ioctl(3, PTP_PIN_GETFUNC, {index=7, ???}) = 0"


def test_rtc_structs_and_params(tmp_path: Path) -> None:
    tm = struct.pack("<9i", *range(-4, 5))
    assert RTC.format_rtc_time(tm) == (
        "{tm_sec=-4, tm_min=-3, tm_hour=-2, tm_mday=-1, tm_mon=0, tm_year=1, ...}")
    assert RTC.format_rtc_time(tm, full=True).endswith("tm_wday=2, tm_yday=3, tm_isdst=4}")
    assert RTC.format_rtc_time(tm[:35]) is None
    param = struct.pack("<QQII", 0, 0xBEEF00 | 0x85, 4207856382, 0xBADC0DED)
    assert RTC.format_rtc_param(param, FL) == (
        "{param=RTC_PARAM_FEATURES, uvalue=1<<RTC_FEATURE_ALARM|1<<RTC_FEATURE_NEED_WEEK_DAY"
        "|1<<RTC_FEATURE_ALARM_WAKEUP_ONLY|0xbeef00, index=4207856382, __pad=0xbadc0ded}")
    assert RTC.format_rtc_param(struct.pack("<QQII", 1, 2**64 - 1337, 66, 0), FL) == \
        "{param=RTC_PARAM_CORRECTION, svalue=-1337, index=66}"
    d = decoder(tmp_path)
    cap = Capture(2, CAP_STRUCT, 0, param)
    assert line(d, call("ioctl", (3, RTC_PARAM_GET, ADDR), -9, (cap,))).startswith(
        f"ioctl(3, RTC_PARAM_GET, {{param=RTC_PARAM_FEATURES, index=4207856382, "
        f"__pad=0xbadc0ded}} => {ADDR:#x}) = -1")
    wrote = Capture(2, CAP_STRUCT, CAPF_AT_EXIT, struct.pack("<QQII", 2, 3, 0, 0))
    assert line(d, call("ioctl", (3, RTC_PARAM_GET, ADDR), 0, (cap, wrote))) == (
        "ioctl(3, RTC_PARAM_GET, {param=RTC_PARAM_FEATURES, index=4207856382, "
        "__pad=0xbadc0ded} => {uvalue=RTC_BSM_STANDBY}) = 0")
    assert IO.ioctl_name(FL, RTC_UIE_OFF) == "PHN_NOT_OH or RTC_UIE_OFF"
    for bad in (Capture(2, CAP_STRUCT, 0, tm[:35]), Capture(2, CAP_STRUCT, CAPF_FAULT, b""),
                Capture(2, CAP_STRUCT, CAPF_TRUNC, tm)):
        assert f"RTC_SET_TIME, {ADDR:#x})" in line(
            d, call("ioctl", (3, RTC_SET_TIME, ADDR), -9, (bad,)))


def test_captures_in_the_ioctl_map() -> None:
    args = IO.IOCTL_ARGS("x86_64")
    assert args[PTP_EXTTS_REQUEST2] == (16, True, False)
    assert args[PTP_PIN_GETFUNC] == (96, True, True)
    assert args[RTC_PARAM_GET] == (24, True, True)
    assert all(size <= IO.IOCTL_STRUCT_CAP for size, _, _ in args.values())


_REQS = [v for v, n in FL.tables.DRIVER_IOCTLS.items() if n.startswith(("PTP_", "RTC_"))]


@settings(max_examples=400, deadline=None)
@given(req=st.sampled_from(_REQS), data=st.lists(st.binary(max_size=120), max_size=2),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), ret=st.integers(-4095, 10),
       arg=st.integers(0, 2**64 - 1), full=st.booleans())
def test_hostile_captures_never_raise(req: int, data: list[bytes], flags: int, ret: int,
                                      arg: int, full: bool) -> None:
    ioctl_of_hostile_memory(req, data, flags, ret, arg, full)
