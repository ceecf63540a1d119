"""bpf(2)'s union bpf_attr (tracekit/decode/structs_bpf.py) on packed bytes. Expected
texts are what strace 6.1 printed for the same attrs on this machine (without -v;
tests/e2e/test_strace_sweep_bpf.py compares against strace itself)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings, strategies as st

from tracekit.decode import flags as F
from tracekit.decode.captures import Deref
from tracekit.decode.structs_bpf import format_bpf_attr

FL = F.for_arch("x86_64")
FIVES = b"\x05" * 144


def map_create(typ: int, key: int, value: int, entries: int, flags: int = 0,
               name: bytes = b"") -> bytes:
    return (struct.pack("<IIIIII4x", typ, key, value, entries, flags, 0)
            + name.ljust(16, b"\0") + bytes(144 - 44))


_MAP_TAIL = ("inner_map_fd=0, map_name=\"tk_sweep\", map_ifindex=0, btf_fd=0, "
             "btf_key_type_id=0, btf_value_type_id=0, btf_vmlinux_value_type_id=0, "
             "map_extra=0}")


@pytest.mark.parametrize(("cmd", "data", "size", "text"), [
    ("BPF_MAP_CREATE", map_create(1, 4, 8, 4, 1, b"tk_sweep"), 144,
     "{map_type=BPF_MAP_TYPE_HASH, key_size=4, value_size=8, max_entries=4, "
     f"map_flags=BPF_F_NO_PREALLOC, {_MAP_TAIL}"),
    # a size that cuts the attr: the first group, the rest read as 0
    ("BPF_MAP_CREATE", map_create(2, 4, 8, 1), 6,
     "{map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=0, max_entries=0}"),
    # numa_node with BPF_F_NUMA_NODE; the name cut by the size, without its NUL: "..."
    ("BPF_MAP_CREATE", FIVES, 30,
     "{map_type=0x5050505 /* BPF_MAP_TYPE_??? */, key_size=84215045, "
     "value_size=84215045, max_entries=84215045, map_flags=BPF_F_NO_PREALLOC|"
     "BPF_F_NUMA_NODE|BPF_F_WRONLY_PROG|BPF_F_MMAPABLE|0x5050000, inner_map_fd=84215045, "
     "numa_node=84215045, map_name=\"\\5\"...}"),
    ("BPF_MAP_CREATE", FIVES, 49, None),        # (checked below: btf_fd's group of 3)
    ("BPF_MAP_UPDATE_ELEM", struct.pack("<I4xQQQ", 3, 0x10, 0x20, 0x100), 32,
     "{map_fd=3, key=0x10, value=0x20, flags=0x100 /* BPF_??? */}"),
    ("BPF_MAP_LOOKUP_ELEM", struct.pack("<I4xQQQ", 3, 0, 0x20, 5), 32,
     "{map_fd=3, key=NULL, value=0x20, flags=BPF_F_LOCK|0x1}"),
    ("BPF_MAP_LOOKUP_ELEM", struct.pack("<i4xQQQ", -1, 0, 0, 0), 8,
     "{map_fd=-1, key=NULL, value=NULL}"),
    # nonzero bytes past the command's member: "..."
    ("BPF_MAP_DELETE_ELEM", struct.pack("<I4xQQ", 3, 0x10, 0x20), 144,
     "{map_fd=3, key=0x10, ...}"),
    ("BPF_MAP_FREEZE", struct.pack("<I", 3), 144, "{map_fd=3}"),
    ("BPF_LINK_CREATE", struct.pack("<iiII", -1, -1, 24, 0), 144,
     "{link_create={prog_fd=-1, target_fd=-1, attach_type=BPF_TRACE_FENTRY, flags=0}}"),
    ("BPF_LINK_CREATE", FIVES, 24,
     "{link_create={prog_fd=84215045, target_fd=84215045, "
     "attach_type=0x5050505 /* BPF_??? */, flags=0x5050505}, ...}"),
    ("BPF_LINK_CREATE", struct.pack("<iiIIQ", -1, -1, 41, 0, 7), 144,
     "{link_create={prog_fd=-1, target_fd=-1, attach_type=BPF_PERF_EVENT, flags=0, "
     "perf_event={bpf_cookie=0x7}}}"),
    ("BPF_LINK_CREATE", struct.pack("<iiIIQ", -1, -1, 41, 0, 7), 16,
     "{link_create={prog_fd=-1, target_fd=-1, attach_type=BPF_PERF_EVENT, flags=0}}"),
    ("BPF_LINK_CREATE", struct.pack("<iiIIII", -1, -1, 42, 0, 6, 2), 144,
     "{link_create={prog_fd=-1, target_fd=-1, attach_type=BPF_TRACE_KPROBE_MULTI, "
     "flags=0, kprobe_multi={flags=0x6 /* BPF_F_??? */, cnt=2, syms=NULL, addrs=NULL, "
     "cookies=NULL}}}"),
    ("BPF_LINK_CREATE", struct.pack("<iiIIIIQ", -1, -1, 42, 0, 0, 2, 0x1000), 144, None),
    ("BPF_LINK_CREATE", struct.pack("<iiIII", -1, 0, 0, 0, 9), 144,
     "{link_create={prog_fd=-1, target_fd=0, attach_type=BPF_CGROUP_INET_INGRESS, "
     "flags=0, target_btf_id=9}}"),
    ("BPF_LINK_CREATE", struct.pack("<iiIII", -1, 0, 25, 0, 9), 144,
     "{link_create={prog_fd=-1, target_fd=0, attach_type=BPF_TRACE_FEXIT, flags=0}, ...}"),
    ("BPF_MAP_GET_NEXT_ID", struct.pack("<III", 0xF0, 0, 0), 1,
     "{start_id=240, next_id=0}"),
    ("BPF_BTF_LOAD", bytes(144), 144,
     "{btf=NULL, btf_log_buf=NULL, btf_size=0, btf_log_size=0, btf_log_level=0}"),
    ("BPF_BTF_LOAD", struct.pack("<Q", 5), 1,
     "{btf=\"\", btf_log_buf=NULL, btf_size=0, btf_log_size=0, btf_log_level=0}"),
    # the address: a size of 0 or over a page, an attr with a string not captured
    ("BPF_MAP_CREATE", bytes(144), 0, None),
    ("BPF_MAP_CREATE", bytes(144), 4097, None),
    ("BPF_OBJ_PIN", struct.pack("<QI", 0x1000, 3), 144, None),
    ("BPF_PROG_LOAD", struct.pack("<IIQQIIQI", 2, 0, 1, 0x1000, 1, 64, 0, 0), 144, None),
    ("BPF_PROG_LOAD", struct.pack("<IIQQIIQI", 2, 3, 1, 0, 0, 0, 0, 0x60102), 44,
     "{prog_type=BPF_PROG_TYPE_KPROBE, insn_cnt=3, insns=0x1, license=NULL, log_level=0, "
     "log_size=0, log_buf=NULL, kern_version=KERNEL_VERSION(6, 1, 2)}"),
    ("BPF_BTF_LOAD", struct.pack("<QQI", 0x1000, 0, 2), 144, None),
])
def test_format_bpf_attr(cmd: str, data: bytes, size: int, text: str | None) -> None:
    got = format_bpf_attr(cmd, data.ljust(144, b"\0"), size, FL)
    if cmd == "BPF_MAP_CREATE" and size == 49:
        assert got is not None and got.endswith(
            "map_ifindex=84215045, btf_fd=5, btf_key_type_id=0, btf_value_type_id=0}")
        return
    assert got == text


def test_the_first_words_string() -> None:
    path = b"/nonexistent/tracekit-sweep\0"
    obj = struct.pack("<QII", 0x1000, 3, 0).ljust(144, b"\0")
    deref = struct.pack("<Q", 0x1000) + path.ljust(128, b"x")
    assert format_bpf_attr("BPF_OBJ_PIN", obj, 144, FL, text=deref) == (
        '{pathname="/nonexistent/tracekit-sweep", bpf_fd=3, file_flags=0}')
    # a size that cuts the pointer: what was read of it, as an address
    assert format_bpf_attr("BPF_OBJ_GET", obj, 1, FL, text=deref) == (
        "{pathname=NULL, bpf_fd=0}")
    obj = struct.pack("<QII", 0x2A0BBD0013, 3, 0).ljust(144, b"\0")
    assert format_bpf_attr("BPF_OBJ_GET", obj, 3, FL, text=deref) == (
        "{pathname=0xbd0013, bpf_fd=0}")
    # unreadable: the address; a name is cut at 32 bytes
    tp = struct.pack("<Qi", 1, -1).ljust(144, b"\0")
    assert format_bpf_attr("BPF_RAW_TRACEPOINT_OPEN", tp, 144, FL,
                           text=struct.pack("<Q", 1)) == (
        "{raw_tracepoint={name=0x1, prog_fd=-1}}")
    tp = struct.pack("<Qi", 0x1000, -1).ljust(144, b"\0")
    name = b"a_tracepoint_name_longer_than_32_bytes\0"
    assert format_bpf_attr("BPF_RAW_TRACEPOINT_OPEN", tp, 144, FL,
                           text=deref[:8] + name.ljust(128, b"\0")) == (
        '{raw_tracepoint={name="a_tracepoint_name_longer_than_32"..., prog_fd=-1}}')
    # longer than what was read: its first 32 bytes are there to show; not 33 of them
    # (strace reads 33 to tell): the attr's address
    assert format_bpf_attr("BPF_RAW_TRACEPOINT_OPEN", tp, 144, FL,
                           text=deref[:8] + b"y" * 128) == (
        '{raw_tracepoint={name="' + "y" * 32 + '"..., prog_fd=-1}}')
    assert format_bpf_attr("BPF_RAW_TRACEPOINT_OPEN", tp, 144, FL,
                           text=deref[:8] + b"y" * 32) is None


def test_short_data_is_the_address() -> None:
    # less than min(size, BPF_ATTR_CAP) bytes read: strace could read them, so no guess
    assert format_bpf_attr("BPF_MAP_FREEZE", struct.pack("<I", 3), 144, FL) is None


def test_what_the_call_wrote_back() -> None:
    info = struct.pack("<IIQ", 3, 256, 0x7000).ljust(144, b"\0")
    out = struct.pack("<IIQ", 3, 104, 0x7000)
    assert format_bpf_attr("BPF_OBJ_GET_INFO_BY_FD", info, 144, FL, out, True) == (
        "{info={bpf_fd=3, info_len=256 => 104, info=0x7000}}")
    # a failed call: nothing written back
    assert format_bpf_attr("BPF_OBJ_GET_INFO_BY_FD", info, 144, FL, out, False) == (
        "{info={bpf_fd=3, info_len=256, info=0x7000}}")
    ids = bytes(144)
    assert format_bpf_attr("BPF_PROG_GET_NEXT_ID", ids, 144, FL,
                           struct.pack("<III", 0, 307718, 0), True) == (
        "{start_id=0, next_id=0 => 307718, open_flags=0}")
    # unchanged: nothing after the arrow
    assert format_bpf_attr("BPF_OBJ_GET_INFO_BY_FD", info, 144, FL, info, True) == (
        "{info={bpf_fd=3, info_len=256, info=0x7000}}")
    batch = struct.pack("<QQQQIIQQ", 0, 0x10, 0x20, 0x30, 2, 4, 0, 0).ljust(144, b"\0")
    assert format_bpf_attr("BPF_MAP_UPDATE_BATCH", batch, 144, FL, batch, True) == (
        "{batch={keys=0x20, values=0x30, count=2, map_fd=4, elem_flags=BPF_ANY, flags=0}}")
    out = struct.pack("<QQQQIIQQ", 0, 0x10, 0x20, 0x30, 0, 4, 0, 0)
    assert format_bpf_attr("BPF_MAP_LOOKUP_BATCH", batch, 144, FL, out, True) == (
        "{batch={in_batch=NULL, out_batch=0x10, keys=0x20, values=0x30, count=2, map_fd=4, "
        "elem_flags=BPF_ANY, flags=0}} => {batch={count=0}}")


def _prog_load(license: int, log: int, log_size: int) -> bytes:
    return struct.pack("<IIQQIIQ", 1, 0, 1, license, 1, log_size, log).ljust(144, b"\0")


def test_strings_behind_the_attr() -> None:
    """BPF_PROG_LOAD's license and log_buf, BPF_BTF_LOAD's bytes (issue 12), as strace
    6.1 printed them (tests/e2e/test_strace_sweep_bpf.py)."""
    lic, log = 0x5000, 0x6000
    d = {16: Deref(lic, 0, b"GPL", False, True), 32: Deref(log, 64, b"A" * 33, True, True)}
    got = format_bpf_attr("BPF_PROG_LOAD", _prog_load(lic, log, 64), 144, FL, derefs=d)
    assert got is not None and 'license="GPL", log_level=1, log_size=64, log_buf="' + (
        "A" * 32 + '"..., ') in got
    # a NUL in the log, log_size 0, a log read up to its NUL before a fault
    d[32] = Deref(log, 33, b"ab\0cd", False, True)
    assert 'log_buf="ab", ' in str(format_bpf_attr("BPF_PROG_LOAD", _prog_load(lic, log, 33),
                                                   144, FL, derefs=d))
    assert 'log_buf="", ' in str(format_bpf_attr("BPF_PROG_LOAD", _prog_load(lic, log, 0),
                                                 144, FL, derefs=d))
    # unreadable, short of what strace reads, at another address: the address
    for bad in (Deref(log, 33, b"", False, False), Deref(log, 33, b"abc", False, True),
                Deref(log + 1, 33, b"A" * 33, False, True)):
        d[32] = bad
        assert "log_buf=0x6000, " in str(format_bpf_attr(
            "BPF_PROG_LOAD", _prog_load(lic, log, 33), 144, FL, derefs=d))
    # a license longer than 32 bytes; not read at all: the whole attr's address
    d[16] = Deref(lic, 0, b"x" * 32, True, True)
    assert 'license="' + "x" * 32 + '"...' in str(format_bpf_attr(
        "BPF_PROG_LOAD", _prog_load(lic, 0, 0), 144, FL, derefs=d))
    assert format_bpf_attr("BPF_PROG_LOAD", _prog_load(lic, 0, 0), 144, FL, derefs={}) is None
    btf = struct.pack("<QQI", 0x7000, 0, 40).ljust(144, b"\0")
    got = format_bpf_attr("BPF_BTF_LOAD", btf, 144, FL,
                          derefs={0: Deref(0x7000, 40, b"\x9f\xeb" * 17, True, True)})
    assert got == ('{btf="' + "\\237\\353" * 16 + '"..., btf_log_buf=NULL, btf_size=40, '
                   "btf_log_size=0, btf_log_level=0}")


@settings(deadline=None, max_examples=400)
@given(cmd=st.sampled_from(["BPF_PROG_LOAD", "BPF_BTF_LOAD", "BPF_MAP_CREATE"]),
       data=st.binary(max_size=160), size=st.integers(0, 5000),
       derefs=st.dictionaries(st.sampled_from([0, 16, 32]), st.builds(
           Deref, st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1),
           st.binary(max_size=80), st.booleans(), st.booleans()), max_size=3))
def test_hostile_pointed_memory_never_raises(cmd: str, data: bytes, size: int,
                                              derefs: dict[int, Deref]) -> None:
    got = format_bpf_attr(cmd, data, size, FL, derefs=derefs)
    assert got is None or got.startswith("{")
