"""The GPIO character device ioctls (linux/gpio.h) against strace 6.1 on ONE run.

tests/workloads/sweep_gpio.c makes the requests tracekit decodes on fd -1 and /dev/null
with their structs zeroed, filled with patterns, at the end of a mapping, one byte short
of it, past it and NULL, each flag kind, consumer labels up to their 32 bytes, and v2
line configs with attributes of each id and padding in use. tracekit traces ``strace -f
-o FILE sweep_gpio``, with and without -v: every line must be equal.
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
def test_sweep_gpio_equals_strace_on_the_same_run(tmp_path: Path, opts: tuple[str, ...]
                                                  ) -> None:
    text = "\n".join(same_lines_one_run(build(tmp_path, "sweep_gpio"), tmp_path, opts))
    for want in (
            "ioctl(-1, GPIO_GET_LINEINFO_IOCTL, {line_offset=0}) = -1 EBADF",
            "ioctl(-1, GPIO_V2_GET_LINEINFO_WATCH_IOCTL, {offset=0}) = -1 EBADF",
            "ioctl(-1, GPIO_V2_LINE_GET_VALUES_IOCTL, {mask=0}) = -1 EBADF",
            "ioctl(-1, GPIO_V2_LINE_SET_VALUES_IOCTL, {bits=0, mask=0}) = -1 EBADF",
            "ioctl(-1, GPIO_GET_LINEINFO_UNWATCH_IOCTL, {offset=0}) = -1 EBADF",
            "ioctl(-1, GPIO_GET_CHIPINFO_IOCTL, NULL) = -1 EBADF",
            "handleflags=0xff00 /* GPIOHANDLE_REQUEST_??? */",
            "eventflags=GPIOEVENT_REQUEST_BOTH_EDGES, consumer_label=\"ddddddd",
            "ioctl(-1, GPIOHANDLE_SET_CONFIG_IOCTL, {flags=0x8000 /* GPIOHANDLE_REQUEST_??? */, "
            "default_values=[",
            "ioctl(-1, GPIO_V2_LINE_SET_CONFIG_IOCTL, {flags=0x8000 /* GPIO_V2_LINE_FLAG_??? */, "
            "num_attrs=0}) = -1 EBADF",
            "num_attrs=5, padding=[0, 0xfeedface, 0, 0, 0], attrs=[{attr={id=0, "
            "data=0xdeadbeef00000000}, mask=0x1}, {flags=GPIO_V2_LINE_FLAG_USED|"
            "0xdeadbeef00000000, mask=0x2}, {values=0xdeadbeef00000002, mask=0x4}, "
            "{debounce_period_us=3, mask=0x8}, {attr={id=4, padding=0xfeedface, "
            "data=0xdeadbeef00000004}, mask=0x10}]}"):
        assert want in text, want
    # gpiohandle_data's 64 values: 32 and "..." but with -v
    assert (", ...]}) = -1 EBADF" in text) != bool(opts)
