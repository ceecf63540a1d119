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


def filled(size: int, typ: int, field: int, bits: int) -> bytes:
    """The struct of tests/workloads/verbose_structs.c perf_attr(): byte i is
    0x81 + 7 * i, then the type, the size field and the bit fields."""
    data = bytearray((0x81 + 7 * i) & 0xFF for i in range(size))
    struct.pack_into("<II", data, 0, typ, field)
    struct.pack_into("<Q", data, 40, bits)
    return bytes(data)


# bits of perf_attrs(): watermark, freq, use_clockid, precise_ip 2, reserved bit 40
BITS = 1 << 14 | 1 << 10 | 1 << 25 | 2 << 15 | 1 << 40
HEAD_V = ("sample_type=PERF_SAMPLE_IP|PERF_SAMPLE_ADDR|PERF_SAMPLE_CALLCHAIN|"
          "PERF_SAMPLE_REGS_USER|PERF_SAMPLE_STACK_USER|PERF_SAMPLE_IDENTIFIER|"
          "PERF_SAMPLE_TRANSACTION|PERF_SAMPLE_REGS_INTR|PERF_SAMPLE_AUX|PERF_SAMPLE_CGROUP|"
          "0x5a534c453e000000, read_format=PERF_FORMAT_TOTAL_TIME_ENABLED|0x928b847d766f6860, ")
ZERO_BITS = ("inherit_stat=0, enable_on_exec=0, task=0, ", "mmap_data=0, sample_id_all=0, "
             "exclude_host=0, exclude_guest=0, exclude_callchain_kernel=0, "
             "exclude_callchain_user=0, mmap2=0, comm_exec=0, ", "context_switch=0, "
             "write_backward=0, namespaces=0, ksymbol=0, bpf_event=0, aux_output=0, cgroup=0, "
             "text_poke=0, build_id=0, inherit_thread=0, remove_on_exec=0, sigtrap=0, ")


def test_unabbreviated_as_strace_printed_it() -> None:
    """strace 6.1 -v on this machine, for perf_attrs()'s first struct (0x6d bytes ending
    its mapping: the fields up to sample_max_stack, whose offset is below the size)."""
    text = format_perf_event_attr(filled(0x6D, 0, 0x6D, BITS), FL, full=True)
    assert text == (
        "{type=PERF_TYPE_HARDWARE, size=0x6d /* PERF_ATTR_SIZE_??? */, "
        "config=0xeae3dcd5<<32|0xcec7c0b9 /* PERF_COUNT_HW_??? */, "
        f"sample_freq=2457580067845306609, {HEAD_V}disabled=0, inherit=0, pinned=0, "
        "exclusive=0, exclude_user=0, exclude_kernel=0, exclude_hv=0, exclude_idle=0, "
        f"mmap=0, comm=0, freq=1, {ZERO_BITS[0]}watermark=1, precise_ip=2 /* requested to "
        f"have 0 skid */, {ZERO_BITS[1]}use_clockid=1, {ZERO_BITS[2]}__reserved_1=0x4 /* "
        "Bits 63..38 */, wakeup_watermark=3873429713, config1=0x3a332c251e171009, "
        "config2=0x726b645d564f4841, sample_regs_user=0xe2dbd4cdc6bfb8b1, "
        "sample_stack_user=0xfef7f0e9, clockid=0x1a130c05 /* CLOCK_??? */, "
        "sample_regs_intr=0x524b443d362f2821, aux_watermark=1852268633, "
        "sample_max_stack=117}")


def test_unabbreviated_sizes() -> None:
    """The size read: 0 reads PERF_ATTR_SIZE_VER0 (up to config1, no ``...``); past
    PERF_ATTR_SIZE_VER7 all of strace's struct, then ``...``; bytes short of the size:
    the address (None)."""
    v0 = format_perf_event_attr(filled(64, 1, 0, 0), FL, full=True)
    assert v0 is not None and v0.endswith(", wakeup_events=3873429713, "
                                          "config1=0x3a332c251e171009}")
    big = format_perf_event_attr(filled(128, 3, 0x200, 0), FL, b"\0\0\0\0\x88\0\0\0",
                                 full=True)
    assert big is not None and big.endswith(
        "sample_max_stack=31861 /* bytes 110..111: 0x8a83 */, aux_sample_size=2795477137 "
        "/* bytes 116..119: 0xc2bbb4ad */, sig_data=0xfaf3ece5ded7d0c9, ...}")
    assert "size=0x200 /* PERF_ATTR_SIZE_??? */ => 0x88 /* PERF_ATTR_SIZE_??? */" in big
    for size, have in ((0x70, 0x6F), (72, 64), (128, 127), (0, 63), (200, 100)):
        assert format_perf_event_attr(filled(have, 4, size, 0), FL, full=True) is None
    v1 = format_perf_event_attr(filled(72, 2, 72, 0), FL, full=True)
    assert v1 is not None and v1.endswith(", config2=0x726b645d564f4841}")


@pytest.mark.parametrize(("bp_type", "text"), [
    (1, "bp_type=HW_BREAKPOINT_R"), (5, "bp_type=0x5 /* HW_BREAKPOINT_INVALID */"),
    (8, "bp_type=0x8 /* HW_BREAKPOINT_??? */")])
def test_breakpoint_fields(bp_type: int, text: str) -> None:
    data = bytearray(filled(72, 5, 72, 0))
    struct.pack_into("<I", data, 52, bp_type)
    out = format_perf_event_attr(bytes(data), FL, full=True)
    assert out is not None
    assert f", {text}, bp_addr=0x3a332c251e171009, bp_len=8244793894874597441}}" in out


def test_hostile_bytes_never_raise() -> None:
    """Any bytes of any length, any size field: a text or None, never an exception."""
    for n in range(0, 140):
        for field in (0, 1, 48, 64, 0x6D, 128, 0xFFFFFFFF):
            for typ in (0, 3, 5, 0xFFFFFFFF):
                data = bytearray(filled(n, 0, 0, 0) if n >= 48 else bytes(n))
                if n >= 8:
                    struct.pack_into("<II", data, 0, typ, field)
                for full in (False, True):
                    out = format_perf_event_attr(bytes(data), FL, full=full)
                    assert out is None or out.startswith("{type=")
