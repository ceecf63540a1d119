"""CO-RE relocation of tests/data/core_probe.bpf.o against the running kernel's BTF, and the
object-BTF fix-up checked by the kernel itself (BPF_BTF_LOAD)."""

from __future__ import annotations

import errno
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from tracekit._errors import BpfError, BtfError
from tracekit.bpf.btf import Btf, BtfExt, CoreRelo, Kind
from tracekit.bpf.relo_core import CoreReloKind, apply_core_relos, essential_name, fixup_datasec
from tracekit.bpf.sys import btf_load

VMLINUX = Path("/sys/kernel/btf/vmlinux")
CORE_PROBE = Path(__file__).resolve().parents[1] / "data" / "core_probe.bpf.o"
_INSN = struct.Struct("<BBhi")


class _Obj:
    """The probe object's sections, BTF and BTF.ext, read with pyelftools."""

    def __init__(self, elf: ELFFile) -> None:
        self.elf = elf
        self.btf = Btf.parse(elf.get_section_by_name(".BTF").data())
        self.ext = BtfExt.parse(elf.get_section_by_name(".BTF.ext").data(), self.btf)

    def insns(self, sec: str) -> bytearray:
        return bytearray(self.elf.get_section_by_name(sec).data())


@pytest.fixture(scope="module")
def obj() -> Iterator[_Obj]:
    with open(CORE_PROBE, "rb") as f:
        yield _Obj(ELFFile(f))


@pytest.fixture(scope="module")
def vmlinux() -> Btf:
    if not VMLINUX.exists():
        pytest.skip(f"{VMLINUX} missing: kernel built without CONFIG_DEBUG_INFO_BTF")
    return Btf.vmlinux()


def _value(insns: bytes, off: int) -> int:
    """The relocatable value carried by the insn at byte ``off``: imm, off, or imm64."""
    code, _, ioff, imm = _INSN.unpack_from(insns, off)
    if code == 0x18:
        return (imm & 0xFFFFFFFF) | ((_INSN.unpack_from(insns, off + 8)[3] & 0xFFFFFFFF) << 32)
    return ioff if code & 0x07 in (1, 2, 3) else imm


_Relocated = dict[tuple[str, str, str], list[tuple[int, int]]]


def _relocated(obj: _Obj, vmlinux: Btf, sec: str) -> _Relocated:
    """Relocate ``sec``; (local type name, access, kind name) -> values before and after."""
    insns = obj.insns(sec)
    before = bytes(insns)
    relos = obj.ext.core_relos[sec]
    apply_core_relos(insns, relos, obj.btf, vmlinux, prog_name=sec)
    out: _Relocated = {}
    for r in relos:
        key = (obj.btf.type(r.type_id).name, r.access_str, CoreReloKind(r.kind).name)
        out.setdefault(key, []).append((_value(before, r.insn_off), _value(insns, r.insn_off)))
    return out


def test_field_relos_match_vmlinux_offsets(obj: _Obj, vmlinux: Btf) -> None:
    got = _relocated(obj, vmlinux, "tp_btf/sys_enter")
    tgid = vmlinux.member_offset("task_struct", "tgid")[0]
    pid = vmlinux.member_offset("task_struct", "pid")[0]
    leader = vmlinux.member_offset("task_struct", "group_leader")[0]
    di = vmlinux.member_offset("pt_regs", "di")[0]
    # local layout: tgid@0, pid@4; group_leader@0 (flavor); pt_regs.di@8: all differ from the
    # kernel's, so equality below means the instruction was rewritten
    assert got[("task_struct", "0:0", "FIELD_BYTE_OFFSET")] == [(0, tgid)] * 2
    assert got[("task_struct", "0:1", "FIELD_BYTE_OFFSET")] == [(4, pid)]
    assert got[("task_struct___tk", "0:0", "FIELD_BYTE_OFFSET")] == [(0, leader)]
    assert got[("pt_regs", "0:1", "FIELD_BYTE_OFFSET")] == [(8, di)]
    assert got[("pt_regs", "0:2", "FIELD_BYTE_SIZE")] == \
        [(8, vmlinux.member_offset("pt_regs", "orig_ax")[1])]
    assert got[("task_struct___tk", "0:1", "FIELD_EXISTS")] == [(1, 0)]
    assert got[("task_struct", "0:2", "FIELD_EXISTS")] == [(1, 1)]


def test_type_and_enum_relos_match_vmlinux(obj: _Obj, vmlinux: Btf) -> None:
    got = _relocated(obj, vmlinux, "tp_btf/sys_enter")
    task = vmlinux.find("task_struct", Kind.STRUCT)
    (ringbuf,) = [v.value for v in vmlinux.type(vmlinux.find("bpf_map_type", Kind.ENUM)).values
                  if v.name == "BPF_MAP_TYPE_RINGBUF"]
    assert got[("task_struct", "0", "TYPE_EXISTS")] == [(1, 1)]
    assert got[("tracekit_no_such_type___x", "0", "TYPE_EXISTS")] == [(1, 0)]
    assert got[("pt_regs", "0", "TYPE_SIZE")] == [(24, vmlinux.size_of(vmlinux.find("pt_regs")))]
    assert got[("task_struct", "0", "TYPE_ID_TARGET")][0][1] == task
    assert got[("bpf_map_type", "27", "ENUMVAL_VALUE")] == [(27, ringbuf)]
    assert got[("bpf_map_type", "27", "ENUMVAL_EXISTS")] == [(1, 1)]


def test_unpatched_bytes_are_untouched(obj: _Obj, vmlinux: Btf) -> None:
    sec = "tp_btf/sys_enter"
    insns, before = obj.insns(sec), obj.insns(sec)
    apply_core_relos(insns, obj.ext.core_relos[sec], obj.btf, vmlinux, prog_name="probe")
    patched = {r.insn_off + k for r in obj.ext.core_relos[sec] for k in range(16)}
    assert all(insns[i] == before[i] for i in range(len(insns)) if i not in patched)


def test_missing_field_raises_naming_type_field_and_prog(obj: _Obj, vmlinux: Btf) -> None:
    sec = "tp_btf/sys_exit"
    insns = obj.insns(sec)
    with pytest.raises(BtfError, match=r"prog 'probe_missing' insn #1: CO-RE FIELD_BYTE_OFFSET "
                                       r"relocation of struct task_struct___tk \[\d+\] field "
                                       r"'no_such_field_in_any_kernel'"):
        apply_core_relos(insns, obj.ext.core_relos[sec], obj.btf, vmlinux,
                         prog_name="probe_missing")


def test_missing_type_raises_for_offset_relo(obj: _Obj, vmlinux: Btf) -> None:
    no_type = obj.btf.find("tracekit_no_such_type___x")
    insns = bytearray(_INSN.pack(0x07, 1, 0, 0))          # r1 += 0  (local offset of .a)
    relo = CoreRelo(0, no_type, "0:0", CoreReloKind.FIELD_BYTE_OFFSET)
    with pytest.raises(BtfError, match=r"tracekit_no_such_type___x.*field 'a'.*no type named "
                                       r"'tracekit_no_such_type'"):
        apply_core_relos(insns, [relo], obj.btf, vmlinux, prog_name="p")


def test_insn_not_carrying_local_value_raises(obj: _Obj, vmlinux: Btf) -> None:
    task = obj.btf.find("task_struct", Kind.STRUCT)
    insns = bytearray(_INSN.pack(0x61, 0x12, 3, 0))       # r2 = *(u32 *)(r1 + 3): not pid's 4
    relo = CoreRelo(0, task, "0:1", CoreReloKind.FIELD_BYTE_OFFSET)
    with pytest.raises(BtfError, match=r"field 'pid' \(access '0:1'\): instruction off 3 is "
                                       r"not the expected local value 4"):
        apply_core_relos(insns, [relo], obj.btf, vmlinux, prog_name="p")


def test_ld_imm64_both_halves(obj: _Obj, vmlinux: Btf) -> None:
    task = obj.btf.find("task_struct", Kind.STRUCT)
    insns = bytearray(_INSN.pack(0x18, 1, 0, 4) + _INSN.pack(0, 0, 0, 0))
    apply_core_relos(insns, [CoreRelo(0, task, "0:1", CoreReloKind.FIELD_BYTE_OFFSET)],
                     obj.btf, vmlinux)
    assert _value(insns, 0) == vmlinux.member_offset("task_struct", "pid")[0]


@pytest.mark.parametrize(("name", "want"), [
    ("task_struct___tk", "task_struct"), ("task_struct", "task_struct"),
    ("a___b___c", "a___b"), ("x____y", "x____y"), ("___x", "___x"), ("x___", "x___"),
])
def test_essential_name(name: str, want: str) -> None:
    assert essential_name(name) == want


# -- fixup_datasec and BPF_BTF_LOAD ----------------------------------------------------------

def _btf_load(data: bytes) -> tuple[int, str]:
    """BPF_BTF_LOAD through tracekit.bpf.sys; returns (0 or errno, detail). The fd is closed."""
    try:
        fd = btf_load(data)
    except BpfError as e:
        return e.errno or 0, str(e)
    os.close(fd)
    return 0, ""


def _fixed_up(obj: _Obj) -> Btf:
    btf = Btf.parse(obj.elf.get_section_by_name(".BTF").data())
    sec_sizes = {s.name: s.data_size for s in obj.elf.iter_sections()}
    syms = {s.name: s["st_value"] for s in obj.elf.get_section_by_name(".symtab").iter_symbols()
            if s["st_info"]["type"] == "STT_OBJECT"}
    fixup_datasec(btf, sec_sizes, syms)
    return btf


def test_fixup_datasec_sets_sizes_and_offsets(obj: _Obj) -> None:
    btf = _fixed_up(obj)
    symtab = obj.elf.get_section_by_name(".symtab")
    checked = 0
    for t in btf:
        if t.kind is not Kind.DATASEC:
            continue
        assert t.size == obj.elf.get_section_by_name(t.name).data_size
        for v in t.vars:
            (sym,) = symtab.get_symbol_by_name(btf.type(v.type_id).name)
            assert (v.offset, v.size) == (sym["st_value"], sym["st_size"])
            checked += 1
    assert checked == 5   # out, targ_tgid, hits, last_value, LICENSE


def test_fixup_datasec_missing_symbol_raises(obj: _Obj) -> None:
    btf = Btf.parse(obj.elf.get_section_by_name(".BTF").data())
    with pytest.raises(BtfError, match=r"DATASEC '.bss': no symbol for variable 'last_value'"):
        fixup_datasec(btf, {".bss": 8}, {})


@pytest.mark.kernel
def test_kernel_accepts_fixed_up_object_btf(obj: _Obj) -> None:
    raw = obj.elf.get_section_by_name(".BTF").data()
    err, log = _btf_load(raw)
    assert err == errno.EINVAL, "clang's raw .BTF (DATASEC size 0) is expected to be rejected"
    err, log = _btf_load(_fixed_up(obj).to_bytes())
    assert err == 0, f"BPF_BTF_LOAD: {os.strerror(err)}\n{log}"


@pytest.mark.kernel
def test_kernel_accepts_fixed_up_extern_linkage() -> None:
    """A hand-made BTF with an extern VAR in .kconfig and an extern FUNC, as clang emits."""
    strs = b"\0int\0LINUX_KERNEL_VERSION\0.kconfig\0bpf_kfunc\0"
    off = {s: strs.index(b"\0" + s.encode() + b"\0") + 1 for s in
           ("int", "LINUX_KERNEL_VERSION", ".kconfig", "bpf_kfunc")}
    types = (struct.pack("<IIII", off["int"], Kind.INT << 24, 4, (1 << 24) | 32)       # [1]
             + struct.pack("<IIII", off["LINUX_KERNEL_VERSION"], Kind.VAR << 24, 1, 2)  # [2]
             + struct.pack("<IIIIII", off[".kconfig"], (Kind.DATASEC << 24) | 1, 0,
                           2, 0, 4)                                                     # [3]
             + struct.pack("<III", 0, Kind.FUNC_PROTO << 24, 1)                         # [4]
             + struct.pack("<III", off["bpf_kfunc"], (Kind.FUNC << 24) | 2, 4))         # [5]
    data = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types),
                       len(strs)) + types + strs
    err, _ = _btf_load(data)
    assert err == errno.EINVAL
    btf = Btf.parse(data)
    fixup_datasec(btf, {}, {})
    assert btf.type(3).size == 4 and btf.type(2).linkage == 1 and btf.type(5).linkage == 1
    err, log = _btf_load(btf.to_bytes())
    assert err == 0, f"BPF_BTF_LOAD: {os.strerror(err)}\n{log}"
