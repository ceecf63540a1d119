"""The PTP and RTC clock ioctls (linux/ptp_clock.h, linux/rtc.h) against strace 6.1 on
ONE run.

tests/workloads/sweep_clock_ioctls.c makes the requests on fd -1 and /dev/null with
their structs zeroed, filled with patterns, at the end of a mapping, one byte short of
it, past it and NULL, each PTP flag and pin function, each RTC param, and the value
arguments. tracekit traces ``strace -f -o FILE sweep_clock_ioctls``, with and without
-v: every line must be equal. (PTP_SYS_OFFSET's struct, 832 bytes and more, is read
whole there: tracekit reads its first 16 bytes, which is all strace prints of it.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


@pytest.mark.parametrize("opts", [(), ("-v",)], ids=["abbrev", "verbose"])
def test_sweep_clock_ioctls_equal_strace_on_the_same_run(tmp_path: Path,
                                                         opts: tuple[str, ...]) -> None:
    text = "\n".join(same_lines_one_run(build(tmp_path, "sweep_clock_ioctls"), tmp_path, opts))
    for want in (
            "ioctl(-1, PTP_EXTTS_REQUEST, {index=0, flags=0}) = -1 EBADF",
            "ioctl(-1, PTP_EXTTS_REQUEST2, {index=9, flags=PTP_ENABLE_FEATURE|"
            "PTP_RISING_EDGE|PTP_FALLING_EDGE|PTP_STRICT_FLAGS|0xfffffff0, rsv=[0, 0xdeadc0de]})",
            "ioctl(-1, PTP_PEROUT_REQUEST, {start={sec=1700000000, nsec=123456789, "
            "reserved=0xa205b064} /* 20",
            "flags=PTP_PEROUT_ONE_SHOT|PTP_PEROUT_DUTY_CYCLE|PTP_PEROUT_PHASE, on={sec=",
            "ioctl(-1, PTP_PIN_GETFUNC2, {index=0}) = -1 EBADF",
            "func=PTP_PF_PHYSYNC, chan=", "func=0xdeadbee8 /* PTP_PF_??? */",
            "ioctl(-1, PTP_SYS_OFFSET_EXTENDED2, {n_samples=25, rsv=[0, 0, 0xcafeface]})",
            "ioctl(-1, PTP_ENABLE_PPS, 0xffffffffffffffff) = -1 EBADF",
            "ioctl(-1, PTP_CLOCK_GETCAPS, NULL) = -1 EBADF",
            "ioctl(-1, RTC_SET_TIME, {tm_sec=0, tm_min=0, tm_hour=0, tm_mday=0, tm_mon=0, "
            "tm_year=0, " + ("tm_wday=0, tm_yday=0, tm_isdst=0}" if opts else "...}"),
            "ioctl(-1, RTC_WKALM_SET, {enabled=0, pending=0, time={tm_sec=0, ",
            "ioctl(-1, RTC_PLL_SET, {pll_ctrl=0, pll_value=0, ",
            "ioctl(-1, RTC_PARAM_SET, {param=RTC_PARAM_FEATURES, uvalue=1<<RTC_FEATURE_ALARM"
            "|1<<RTC_FEATURE_ALARM_RES_MINUTE|",
            "uvalue=0xbeef00 /* 1<<RTC_FEATURE_??? */",
            "{param=RTC_PARAM_CORRECTION, svalue=-1337, index=5000}",
            "{param=RTC_PARAM_BACKUP_SWITCH_MODE, uvalue=RTC_BSM_STANDBY, index=6000, "
            "__pad=0xbadc0ded}",
            "{param=0x3 /* RTC_PARAM_??? */, uvalue=0xff, index=2000}",
            "ioctl(-1, RTC_PARAM_GET, {param=RTC_PARAM_CORRECTION, index=0, __pad=0xbadc0ded} "
            "=> 0x",
            "ioctl(-1, RTC_EPOCH_SET, 16045690984232390125) = -1 EBADF",
            "ioctl(-1, PHN_NOT_OH or RTC_UIE_OFF) = -1 EBADF"):
        assert want in text, want
