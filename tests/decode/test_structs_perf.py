"""perf_event_open's struct perf_event_attr (tracekit/decode/structs_perf.py) on packed
bytes. Expected texts are what strace 6.1 printed for the same structs on this machine
(without -v; tests/e2e/test_strace_sweep_io.py compares against strace itself)."""

from __future__ import annotations

import struct

import pytest

from tracekit.decode import flags as F
from tracekit.decode.structs_perf import format_perf_event_attr

FL = F.for_arch("x86_64")
TAIL = "sample_type=0, read_format=0, precise_ip=0 /* arbitrary skid */, ...}"


def attr(typ: int = 0, size: int = 128, config: int = 0, period: int = 0, sample: int = 0,
         read: int = 0, bits: int = 0) -> bytes:
    return struct.pack("<IIQQQQQ", typ, size, config, period, sample, read, bits)


@pytest.mark.parametrize(("data", "text"), [
    (attr(), "{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, "
             f"config=PERF_COUNT_HW_CPU_CYCLES, sample_period=0, {TAIL}"),
    (attr(1, config=9), "{type=PERF_TYPE_SOFTWARE, size=PERF_ATTR_SIZE_VER7, "
                        f"config=PERF_COUNT_SW_DUMMY, sample_period=0, {TAIL}"),
    (attr(0x7FFF, 0), "{type=0x7fff /* PERF_TYPE_??? */, size=0 /* PERF_ATTR_SIZE_??? */, "
                      f"config=0, sample_period=0, {TAIL}"),
    (attr(0, 127, config=0xDEADBEEF00000000), "{type=PERF_TYPE_HARDWARE, "
     "size=0x7f /* PERF_ATTR_SIZE_??? */, config=0xdeadbeef<<32|PERF_COUNT_HW_CPU_CYCLES, "
     f"sample_period=0, {TAIL}"),
    (attr(3, 64, config=0x99 | 0x77 << 8 | 0x55 << 16 | 1 << 40), "{type=PERF_TYPE_HW_CACHE, "
     "size=PERF_ATTR_SIZE_VER0, config=0x100<<32|0x55 /* PERF_COUNT_HW_CACHE_RESULT_??? */"
     "<<16|0x77 /* PERF_COUNT_HW_CACHE_OP_??? */<<8|0x99 /* PERF_COUNT_HW_CACHE_??? */, "
     f"sample_period=0, {TAIL}"),
    (attr(2, config=1234), "{type=PERF_TYPE_TRACEPOINT, size=PERF_ATTR_SIZE_VER7, "
                           f"config=1234, sample_period=0, {TAIL}"),
    (attr(5, config=5), "{type=PERF_TYPE_BREAKPOINT, size=PERF_ATTR_SIZE_VER7, config=0x5, "
                        f"sample_period=0, {TAIL}"),
    (attr(sample=1 << 40 | 1, read=1 << 40), "{type=PERF_TYPE_HARDWARE, "
     "size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_CPU_CYCLES, sample_period=0, "
     "sample_type=PERF_SAMPLE_IP|0x10000000000, read_format=0x10000000000 /* PERF_FORMAT_??? */"
     ", precise_ip=0 /* arbitrary skid */, ...}"),
    (attr(bits=1 << 17 | 1 << 23 | 1 << 37 | 1 << 15), "{type=PERF_TYPE_HARDWARE, "
     "size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_CPU_CYCLES, sample_period=0, "
     "sample_type=0, read_format=0, precise_ip=1 /* constant skid */, mmap_data=1, mmap2=1, "
     "sigtrap=1, ...}"),
    (attr(bits=1 << 60), "{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, "
     "config=PERF_COUNT_HW_CPU_CYCLES, sample_period=0, sample_type=0, read_format=0, "
     "precise_ip=0 /* arbitrary skid */, __reserved_1=0x400000 /* Bits 63..38 */, ...}"),
])
def test_perf_event_attr_as_strace(data: bytes, text: str) -> None:
    assert format_perf_event_attr(data, FL) == text


def test_every_bit_and_freq() -> None:
    text = format_perf_event_attr(attr(period=0, bits=(1 << 64) - 1), FL)
    assert text is not None
    assert text.startswith("{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, "
                           "config=PERF_COUNT_HW_CPU_CYCLES, sample_freq=0, ")
    assert ("watermark=1, precise_ip=3 /* must have 0 skid */, mmap_data=1, " in text
            and text.endswith("sigtrap=1, __reserved_1=0x3ffffff /* Bits 63..38 */, ...}"))


@pytest.mark.parametrize("size", [1, 48, 63])
def test_a_size_below_ver0_or_short_bytes_is_not_decoded(size: int) -> None:
    assert format_perf_event_attr(attr(size=size), FL) is None
    assert format_perf_event_attr(attr()[:47], FL) is None
