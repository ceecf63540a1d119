"""tracekit.bpf.btf against its peers: bpftool's dump of the same BTF, and the ELF symbols."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from tracekit._errors import BtfError
from tracekit.bpf.btf import Btf, BtfExt, Kind

VMLINUX = Path("/sys/kernel/btf/vmlinux")
DATA = Path(__file__).resolve().parents[1] / "data"
CORE_PROBE = DATA / "core_probe.bpf.o"

_HEAD = re.compile(r"^\[(\d+)\] (\w+) '([^']*)'(.*)$")
_MEMBER = re.compile(r"^\t'([^']*)' type_id=(\d+) bits_offset=(\d+)(?: bitfield_size=(\d+))?$")


def _bpftool_raw(path: Path) -> dict[int, tuple[str, str, str, list[tuple[str, int, int]]]]:
    """``bpftool btf dump file PATH format raw`` as id -> (kind, name, rest, members)."""
    if shutil.which("bpftool") is None:
        pytest.skip("bpftool not installed (Debian package bpftool)")
    out = subprocess.run(["bpftool", "btf", "dump", "file", str(path), "format", "raw"],
                         check=True, capture_output=True, text=True).stdout
    types: dict[int, tuple[str, str, str, list[tuple[str, int, int]]]] = {}
    members: list[tuple[str, int, int]] = []
    for line in out.splitlines():
        if m := _HEAD.match(line):
            members = []
            types[int(m[1])] = (m[2], m[3], m[4], members)
        elif m := _MEMBER.match(line):
            members.append((m[1], int(m[2]), int(m[3])))
    return types


@pytest.fixture(scope="module")
def vmlinux() -> Btf:
    if not VMLINUX.exists():
        pytest.skip(f"{VMLINUX} missing: kernel built without CONFIG_DEBUG_INFO_BTF")
    return Btf.vmlinux()


@pytest.fixture(scope="module")
def bpftool_vmlinux() -> dict[int, tuple[str, str, str, list[tuple[str, int, int]]]]:
    if not VMLINUX.exists():
        pytest.skip(f"{VMLINUX} missing: kernel built without CONFIG_DEBUG_INFO_BTF")
    return _bpftool_raw(VMLINUX)


def _first_id(dump: dict, name: str, kind: str) -> int:
    return min(i for i, (k, n, _, _) in dump.items() if n == name and k == kind)


@pytest.mark.parametrize(("name", "kind"), [
    ("task_struct", Kind.STRUCT), ("pt_regs", Kind.STRUCT), ("btf_trace_sys_enter", Kind.TYPEDEF),
    ("pid_t", Kind.TYPEDEF), ("bpf_map_type", Kind.ENUM), ("do_exit", Kind.FUNC),
    ("long unsigned int", Kind.INT),
])
def test_find_agrees_with_bpftool(vmlinux: Btf, bpftool_vmlinux: dict, name: str,
                                  kind: Kind) -> None:
    type_id = vmlinux.find(name, kind)
    assert type_id == _first_id(bpftool_vmlinux, name, kind.name)
    t = vmlinux.type(type_id)
    assert (t.kind, t.name) == (kind, name)


def test_every_id_kind_and_name_agree_with_bpftool(vmlinux: Btf, bpftool_vmlinux: dict) -> None:
    assert len(vmlinux) == max(bpftool_vmlinux) + 1
    # every 97th id plus the last: decoding all 150k would only slow the suite down
    ids = [*range(1, len(vmlinux), 97), len(vmlinux) - 1]
    got = {i: (vmlinux.type(i).kind.name, vmlinux.type(i).name or "(anon)") for i in ids}
    want = {i: bpftool_vmlinux[i][:2] for i in ids}
    assert got == want


@pytest.mark.parametrize("struct_name", ["task_struct", "pt_regs"])
def test_members_agree_with_bpftool(vmlinux: Btf, bpftool_vmlinux: dict, struct_name: str) -> None:
    type_id = vmlinux.find(struct_name, Kind.STRUCT)
    want = bpftool_vmlinux[type_id][3]
    got = [(m.name or "(anon)", m.type_id, m.bit_offset) for m in vmlinux.type(type_id).members]
    assert got == want


@pytest.mark.parametrize("field", ["tgid", "pid", "real_parent"])
def test_member_offset_task_struct(vmlinux: Btf, bpftool_vmlinux: dict, field: str) -> None:
    ts = _first_id(bpftool_vmlinux, "task_struct", "STRUCT")
    (_, type_id, bits), = [m for m in bpftool_vmlinux[ts][3] if m[0] == field]
    size = re.search(r"size=(\d+)", bpftool_vmlinux[vmlinux.resolve(type_id)][2])
    want_size = int(size[1]) if size else 8   # a PTR has no size in the dump
    assert vmlinux.member_offset("task_struct", field) == (bits // 8, want_size)


def test_member_offset_pt_regs_all_fields(vmlinux: Btf, bpftool_vmlinux: dict) -> None:
    regs = _first_id(bpftool_vmlinux, "pt_regs", "STRUCT")
    assert bpftool_vmlinux[regs][3], "pt_regs has members"
    for name, _, bits in bpftool_vmlinux[regs][3]:
        if name != "(anon)":
            assert vmlinux.member_offset("pt_regs", name)[0] == bits // 8, name


def test_member_offset_nested_path(vmlinux: Btf, bpftool_vmlinux: dict) -> None:
    ts = _first_id(bpftool_vmlinux, "task_struct", "STRUCT")
    (_, ti_type, ti_bits), = [m for m in bpftool_vmlinux[ts][3] if m[0] == "thread_info"]
    (_, _, flags_bits), = [m for m in bpftool_vmlinux[ti_type][3] if m[0] == "flags"]
    off, size = vmlinux.member_offset("task_struct", "thread_info.flags")
    assert off == (ti_bits + flags_bits) // 8
    assert size == 8


def test_member_offset_missing_names_struct_and_field(vmlinux: Btf) -> None:
    with pytest.raises(BtfError, match=r"task_struct\.no_such_member: no member 'no_such_member'"):
        vmlinux.member_offset("task_struct", "no_such_member")
    with pytest.raises(BtfError, match=r"no BTF struct or union 'tracekit_nope'"):
        vmlinux.member_offset("tracekit_nope", "x")


def test_find_missing_raises(vmlinux: Btf) -> None:
    with pytest.raises(BtfError, match=r"no BTF type STRUCT 'btf_trace_sys_enter'"):
        vmlinux.find("btf_trace_sys_enter", Kind.STRUCT)
    assert vmlinux.find_all("tracekit_no_such_name") == []


def test_resolve_and_size_of(vmlinux: Btf) -> None:
    pid_t = vmlinux.find("pid_t", Kind.TYPEDEF)
    target = vmlinux.type(vmlinux.resolve(pid_t))
    assert (target.kind, target.name, vmlinux.size_of(pid_t)) == (Kind.INT, "int", 4)
    assert vmlinux.size_of(vmlinux.find("task_struct", Kind.STRUCT)) == \
        vmlinux.type(vmlinux.find("task_struct", Kind.STRUCT)).size


def test_vmlinux_round_trip_is_byte_identical(vmlinux: Btf) -> None:
    assert vmlinux.to_bytes() == VMLINUX.read_bytes()


def test_vmlinux_is_cached(vmlinux: Btf) -> None:
    assert Btf.vmlinux() is vmlinux


# -- malformed input -------------------------------------------------------------------------

def _btf(types: bytes, strings: bytes, *, magic: int = 0xEB9F) -> bytes:
    return struct.pack("<HBBIIIII", magic, 1, 0, 24, 0, len(types), len(types),
                       len(strings)) + types + strings


_INT = struct.pack("<IIII", 1, (Kind.INT << 24), 4, (1 << 24) | 32)   # "int", signed 32 bits
_STRS = b"\0int\0"


def test_tiny_btf_parses() -> None:
    btf = Btf.parse(_btf(_INT, _STRS))
    t = btf.type(1)
    assert (len(btf), t.kind, t.name, t.size, t.int_bits, t.int_encoding) == \
        (2, Kind.INT, "int", 4, 32, 1)


def test_bad_magic() -> None:
    with pytest.raises(BtfError, match=r"bad BTF magic 0x1234 at offset 0"):
        Btf.parse(_btf(_INT, _STRS, magic=0x1234))


def test_big_endian_magic() -> None:
    with pytest.raises(BtfError, match=r"big-endian"):
        Btf.parse(_btf(_INT, _STRS, magic=0x9FEB))


def test_truncated_header() -> None:
    with pytest.raises(BtfError, match=r"header truncated"):
        Btf.parse(_btf(_INT, _STRS)[:20])
    with pytest.raises(BtfError, match=r"header truncated"):
        Btf.parse(b"\x9f\xeb")


def test_truncated_sections() -> None:
    data = _btf(_INT, _STRS)
    with pytest.raises(BtfError, match=r"string section truncated: \[40, 45\) past end of data "
                                       r"at 43"):
        Btf.parse(data[:-2])
    with pytest.raises(BtfError, match=r"type section truncated"):
        Btf.parse(data[:30])


def test_type_record_past_section_end() -> None:
    # a STRUCT claiming 2 members (24 bytes) with none present
    struct_t = struct.pack("<III", 0, (Kind.STRUCT << 24) | 2, 8)
    with pytest.raises(BtfError, match=r"type record at type-section offset 16 ends at 52, "
                                       r"past the section end at 28"):
        Btf.parse(_btf(_INT + struct_t, _STRS))


def test_unknown_kind() -> None:
    bad = struct.pack("<III", 0, 25 << 24, 0)
    with pytest.raises(BtfError, match=r"unknown BTF kind 25 in type id 2 at type-section "
                                       r"offset 16"):
        Btf.parse(_btf(_INT + bad, _STRS))


def test_split_btf_continues_ids_and_strings() -> None:
    base = Btf.parse(_btf(_INT, _STRS))
    # split: [2] TYPEDEF "myint" -> 1 (own string), [3] PTR -> 2, [4] TYPEDEF "int" (base string)
    own = b"\0myint\0"
    types = (struct.pack("<III", len(_STRS) + 1, Kind.TYPEDEF << 24, 1)
             + struct.pack("<III", 0, Kind.PTR << 24, 2)
             + struct.pack("<III", 1, Kind.TYPEDEF << 24, 1))
    split = Btf.parse(_btf(types, own), base=base)
    assert len(split) == 5
    assert split.find("myint") == 2
    assert split.find_all("int") == [1, 4]
    assert split.size_of(3) == 8 and split.size_of(2) == 4
    assert split.type(1) is base.type(1)


# -- an object's .BTF and .BTF.ext -------------------------------------------------------------

@pytest.fixture(scope="module")
def probe_elf() -> Iterator[ELFFile]:
    with open(CORE_PROBE, "rb") as f:
        yield ELFFile(f)


def test_object_btf_agrees_with_bpftool(probe_elf: ELFFile) -> None:
    btf = Btf.parse(probe_elf.get_section_by_name(".BTF").data())
    dump = _bpftool_raw(CORE_PROBE)
    assert len(btf) == max(dump) + 1
    for i in range(1, len(btf)):
        t = btf.type(i)
        assert (t.kind.name, t.name or "(anon)") == dump[i][:2], i
        if t.kind in (Kind.STRUCT, Kind.UNION):
            assert [(m.name, m.type_id, m.bit_offset) for m in t.members] == dump[i][3]


def test_btf_ext_func_info_matches_elf_symbols(probe_elf: ELFFile) -> None:
    btf = Btf.parse(probe_elf.get_section_by_name(".BTF").data())
    ext = BtfExt.parse(probe_elf.get_section_by_name(".BTF.ext").data(), btf)
    symtab = probe_elf.get_section_by_name(".symtab")
    want: dict[str, list[tuple[int, str]]] = {}
    for sym in symtab.iter_symbols():
        if sym["st_info"]["type"] == "STT_FUNC":
            sec = probe_elf.get_section(sym["st_shndx"]).name
            want.setdefault(sec, []).append((sym["st_value"], sym.name))
    got = {sec: [(off, btf.type(tid).name) for off, tid in recs]
           for sec, recs in ext.func_info.items()}
    assert got == {sec: sorted(v) for sec, v in want.items()}
    assert (ext.func_info_rec_size, ext.line_info_rec_size) == (8, 16)
    for sec, lines in ext.line_info.items():
        size = probe_elf.get_section_by_name(sec).data_size
        assert lines and all(0 <= rec[0] < size and rec[0] % 8 == 0 for rec in lines)
        assert btf.str_at(lines[0][1]).endswith("core_probe.bpf.c")


def test_btf_ext_bad_magic_and_truncation(probe_elf: ELFFile) -> None:
    btf = Btf.parse(probe_elf.get_section_by_name(".BTF").data())
    data = probe_elf.get_section_by_name(".BTF.ext").data()
    with pytest.raises(BtfError, match=r"bad BTF.ext magic 0x0000 at offset 0"):
        BtfExt.parse(b"\0" * 32, btf)
    with pytest.raises(BtfError, match=r"truncated"):
        BtfExt.parse(data[: len(data) // 2], btf)
