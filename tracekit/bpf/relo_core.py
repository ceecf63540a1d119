"""CO-RE (compile once, run everywhere) relocation and object-BTF fix-ups, without libbpf.

clang records, in ``.BTF.ext``, each instruction whose immediate or offset depends on a kernel
type (``struct bpf_core_relo``, include/uapi/linux/bpf.h). :func:`apply_core_relos` computes the
value for the running kernel's BTF and patches the instruction, following the semantics of
libbpf's ``relo_core.c`` (read for facts, not copied).

# Some facts about CO-RE access strings
``"0:1:2"``: the first number indexes an array of the root type (``p[0]``), each later number
is a member index in a STRUCT/UNION (counting anonymous members) or an element index in an
ARRAY. In the target, members are matched by *name*, looking inside anonymous structs and
unions, so a field that moved into an anonymous union still matches. For ENUMVAL relocations the
single number is the enumerator's index; for TYPE relocations it is ``"0"``.

# Some facts about type names
Local types may carry a flavor suffix (``task_struct___old``); everything from the last
``___`` between two non-underscore characters is ignored when matching. Target (kernel) names
are matched exactly.
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import NamedTuple

from tracekit._errors import BtfError, CoreUnresolved
from tracekit.bpf.btf import Btf, BtfType, CoreRelo, Kind, Linkage

__all__ = ["CoreReloKind", "apply_core_relos", "essential_name", "fixup_datasec"]


class CoreReloKind(IntEnum):
    """``enum bpf_core_relo_kind`` (include/uapi/linux/bpf.h)."""

    FIELD_BYTE_OFFSET = 0
    FIELD_BYTE_SIZE = 1
    FIELD_EXISTS = 2
    FIELD_SIGNED = 3
    FIELD_LSHIFT_U64 = 4
    FIELD_RSHIFT_U64 = 5
    TYPE_ID_LOCAL = 6
    TYPE_ID_TARGET = 7
    TYPE_EXISTS = 8
    TYPE_SIZE = 9
    ENUMVAL_EXISTS = 10
    ENUMVAL_VALUE = 11
    TYPE_MATCHES = 12


_FIELD_KINDS = frozenset(range(0, 6))
_TYPE_KINDS = frozenset({6, 7, 8, 9})
_ENUM_KINDS = frozenset({10, 11})
_EXISTS_KINDS = frozenset({CoreReloKind.FIELD_EXISTS, CoreReloKind.TYPE_EXISTS,
                           CoreReloKind.ENUMVAL_EXISTS})
_COMPOSITE = (Kind.STRUCT, Kind.UNION)
_ENUMS = (Kind.ENUM, Kind.ENUM64)

# struct bpf_insn: u8 code, u8 dst_reg:4 src_reg:4, s16 off, s32 imm (little-endian)
_INSN = struct.Struct("<BBhi")
_INSN_SIZE = 8
_CLASS_LD, _CLASS_LDX, _CLASS_ST, _CLASS_STX, _CLASS_ALU, _CLASS_ALU64 = 0, 1, 2, 3, 4, 7
_LD_IMM64 = 0x18            # BPF_LD | BPF_IMM | BPF_DW
_SIZE_BITS = {4: 0x00, 2: 0x08, 1: 0x10, 8: 0x18}  # BPF_W, BPF_H, BPF_B, BPF_DW
_BITS_SIZE = {v: k for k, v in _SIZE_BITS.items()}


def essential_name(name: str) -> str:
    """``name`` without its flavor suffix: ``"task_struct___v2"`` -> ``"task_struct"``.

    The suffix starts at the last ``___`` with a non-underscore character on each side.
    """
    i = name.rfind("___")
    while i > 0:
        if name[i - 1] != "_" and i + 3 < len(name) and name[i + 3] != "_":
            return name[:i]
        i = name.rfind("___", 0, i + 2)  # overlapping runs of underscores
    return name


class _Access(NamedTuple):
    name: str    # member name, "" for an array element (or the root)
    idx: int     # member index (local) or element index (not "index": tuple.index)


class _Field(NamedTuple):
    """Where a field is, in one BTF: bit offset from the root, its type, bitfield width."""

    bit_offset: int
    type_id: int
    bitfield_size: int


def apply_core_relos(insns: bytearray, relos: list[CoreRelo], local: Btf, target: Btf, *,
                     prog_name: str = "") -> None:
    """Patch the instructions of one ELF section for the target kernel's types.

    Args:
      insns: the section's instructions (8-byte ``struct bpf_insn``, little-endian), patched in
        place. ``relo.insn_off`` is in bytes from the start of ``insns``.
      relos: :class:`tracekit.bpf.btf.CoreRelo` records of that section (``BtfExt.core_relos``).
      local: the object's BTF (``.BTF``), which relo type ids refer to.
      target: the kernel's BTF, usually ``Btf.vmlinux()``.
      prog_name: named in errors.

    Patching: ALU/ALU64 with an immediate get ``imm``; LDX/ST/STX get ``off`` (s16), and a
    FIELD_BYTE_OFFSET load/store whose field changed size in the target gets its BPF_SIZE
    changed to the new size; LD_IMM64 gets both halves. The instruction must carry the value
    computed against ``local`` (what clang wrote), else BtfError.

    Kinds: every ``enum bpf_core_relo_kind`` except TYPE_MATCHES (raises BtfError).

    Raises:
      BtfError: a type or field that does not exist in the target (except for FIELD_EXISTS,
        TYPE_EXISTS and ENUMVAL_EXISTS, whose value is then 0), ambiguous candidates, a value
        that does not fit the instruction, or an instruction of the wrong class; the message
        names the prog, the instruction, the type and the field path. No instruction is ever
        poisoned (libbpf's 0xbad2310 helper call): failure is an exception.
    """
    cands: dict[int, list[int]] = {}
    for relo in relos:
        kind = relo.kind
        where = f"prog {prog_name!r} insn #{relo.insn_off // _INSN_SIZE}"
        try:
            kind = CoreReloKind(kind)
        except ValueError:
            raise BtfError(f"{where}: unknown CO-RE relocation kind {relo.kind}") from None
        if kind is CoreReloKind.TYPE_MATCHES:
            raise BtfError(f"{where}: CO-RE relocation kind TYPE_MATCHES is not supported")
        root = local.type(relo.type_id)
        desc = _describe(local, root, relo.access_str, kind)
        try:
            orig, orig_sz = _local_value(local, relo, kind)
            try:
                new, new_sz = _target_value(local, target, relo, kind, cands)
            except CoreUnresolved as e:
                if kind not in _EXISTS_KINDS:
                    raise BtfError(f"{where}: CO-RE {kind.name} relocation of {desc} cannot be "
                                   f"resolved against the target BTF: {e}") from None
                new, new_sz = 0, orig_sz
            _patch(insns, relo.insn_off, kind, orig, new, orig_sz, new_sz)
        except BtfError as e:
            if where in str(e):
                raise
            raise BtfError(f"{where}: CO-RE {kind.name} relocation of {desc}: {e}") from e


def _describe(btf: Btf, root: BtfType, access_str: str, kind: CoreReloKind) -> str:
    """A human name for the relocated thing: ``struct task_struct.tgid``, ``enum e::V``."""
    kw = {Kind.STRUCT: "struct ", Kind.UNION: "union ", Kind.ENUM: "enum ",
          Kind.ENUM64: "enum "}.get(root.kind, "")
    head = f"{kw}{root.name or '<anon>'} [{root.id}]"
    try:
        raw = [int(x) for x in access_str.split(":")]
    except ValueError:
        return f"{head} access {access_str!r}"
    if kind in _ENUM_KINDS:
        t = btf.type(btf.resolve(root.id))
        name = t.values[raw[0]].name if raw[0] < len(t.values) else f"#{raw[0]}"
        return f"{head}::{name}"
    if kind not in _FIELD_KINDS:
        return head
    path = "" if raw[0] == 0 else f"[{raw[0]}]"
    type_id = btf.resolve(root.id)
    for idx in raw[1:]:
        t = btf.type(type_id)
        if t.kind in _COMPOSITE and idx < len(t.members):
            m = t.members[idx]
            path += f".{m.name}" if m.name else f".<anon#{idx}>"
            type_id = btf.resolve(m.type_id)
        elif t.kind is Kind.ARRAY and t.array is not None:
            path += f"[{idx}]"
            type_id = btf.resolve(t.array.elem_type)
        else:
            path += f".#{idx}"
            break
    return f"{head} field {path.lstrip('.') or '<root>'!r} (access {access_str!r})"


def _parse_access(access_str: str) -> list[int]:
    try:
        raw = [int(x) for x in access_str.split(":")]
    except ValueError:
        raise BtfError(f"malformed access string {access_str!r}") from None
    if not raw or any(x < 0 for x in raw):
        raise BtfError(f"malformed access string {access_str!r}")
    return raw


def _local_field(btf: Btf, root_id: int, raw: list[int]) -> tuple[_Field, list[_Access]]:
    """Walk ``raw`` through the local types. Returns the field and the named access path."""
    type_id = btf.resolve(root_id)
    bits = raw[0] * btf.size_of(type_id) * 8 if raw[0] else 0
    path = [_Access("", raw[0])]
    bitfield = 0
    for idx in raw[1:]:
        t = btf.type(type_id)
        if t.kind in _COMPOSITE:
            if idx >= len(t.members):
                raise BtfError(f"member index {idx} out of range in {t!r}")
            m = t.members[idx]
            bits += m.bit_offset
            bitfield = m.bitfield_size
            if m.name:
                path.append(_Access(m.name, idx))
            type_id = btf.resolve(m.type_id)
        elif t.kind is Kind.ARRAY and t.array is not None:
            bits += idx * btf.size_of(t.array.elem_type) * 8
            bitfield = 0
            path.append(_Access("", idx))
            type_id = btf.resolve(t.array.elem_type)
        else:
            raise BtfError(f"access index {idx} into {t!r}, which is not a struct, union or "
                           "array")
    return _Field(bits, type_id, bitfield), path


def _target_field(target: Btf, cand_id: int, path: list[_Access], local: Btf,
                  local_types: list[int]) -> _Field | None:
    """Match a named access path in target type ``cand_id``; None when it does not match."""
    type_id = target.resolve(cand_id)
    bits = path[0].idx * target.size_of(type_id) * 8 if path[0].idx else 0
    bitfield = 0
    for acc, local_type in zip(path[1:], local_types, strict=True):
        t = target.type(type_id)
        if acc.name:
            if t.kind not in _COMPOSITE:
                return None
            found = target.find_member(type_id, acc.name)
            if found is None:
                return None
            m, off = found
            if not _fields_compat(local, local_type, target, m.type_id):
                return None
            bits += off
            bitfield = m.bitfield_size
            type_id = target.resolve(m.type_id)
        else:
            if t.kind is not Kind.ARRAY or t.array is None:
                return None
            if t.array.nelems and acc.idx >= t.array.nelems:
                return None
            if not _fields_compat(local, local_type, target, t.array.elem_type):
                return None
            bits += acc.idx * target.size_of(t.array.elem_type) * 8
            bitfield = 0
            type_id = target.resolve(t.array.elem_type)
    return _Field(bits, type_id, bitfield)


def _local_access_types(btf: Btf, root_id: int, raw: list[int]) -> list[int]:
    """For each named access after the root, the local type id reached by it."""
    out = []
    type_id = btf.resolve(root_id)
    for idx in raw[1:]:
        t = btf.type(type_id)
        if t.kind in _COMPOSITE:
            m = t.members[idx]
            type_id = btf.resolve(m.type_id)
            if m.name:
                out.append(type_id)
        else:
            assert t.array is not None
            type_id = btf.resolve(t.array.elem_type)
            out.append(type_id)
    return out


def _fields_compat(local: Btf, local_id: int, target: Btf, target_id: int) -> bool:
    """Shallow compatibility of a field's type (libbpf ``bpf_core_fields_are_compat``)."""
    for _ in range(16):
        lt = local.type(local.resolve(local_id))
        tt = target.type(target.resolve(target_id))
        if lt.kind in _COMPOSITE:
            return tt.kind in _COMPOSITE
        if lt.kind in _ENUMS or lt.kind in (Kind.INT, Kind.FWD):
            # ints and enums may be interchanged; a FWD matches any named composite or enum
            if lt.kind is Kind.FWD:
                return tt.kind in (*_COMPOSITE, *_ENUMS, Kind.FWD)
            return tt.kind in (Kind.INT, *_ENUMS)
        if lt.kind is not tt.kind:
            return False
        if lt.kind is Kind.ARRAY:
            assert lt.array is not None and tt.array is not None
            local_id, target_id = lt.array.elem_type, tt.array.elem_type
            continue
        return True   # PTR, FLOAT, FUNC_PROTO, void
    return False


def _types_compat(local: Btf, local_id: int, target: Btf, target_id: int, depth: int = 0) -> bool:
    """Deep compatibility for TYPE_* relocations (libbpf ``bpf_core_types_are_compat``)."""
    if depth > 32:
        return False
    lt = local.type(local.resolve(local_id))
    tt = target.type(target.resolve(target_id))
    if lt.kind in _ENUMS and tt.kind in _ENUMS:
        return True
    if lt.kind is Kind.FWD or tt.kind is Kind.FWD:
        return {lt.kind, tt.kind} <= {Kind.FWD, Kind.STRUCT, Kind.UNION, Kind.ENUM, Kind.ENUM64}
    if lt.kind is not tt.kind:
        return False
    if lt.kind is Kind.INT:
        return lt.int_offset == 0 and tt.int_offset == 0
    if lt.kind is Kind.PTR:
        return _types_compat(local, lt.type_id, target, tt.type_id, depth + 1)
    if lt.kind is Kind.ARRAY:
        assert lt.array is not None and tt.array is not None
        return _types_compat(local, lt.array.elem_type, target, tt.array.elem_type, depth + 1)
    if lt.kind is Kind.FUNC_PROTO:
        if len(lt.params) != len(tt.params):
            return False
        pairs = [(lt.type_id, tt.type_id)] + [(a.type_id, b.type_id)
                                              for a, b in zip(lt.params, tt.params, strict=True)]
        return all(_types_compat(local, a, target, b, depth + 1) for a, b in pairs)
    return True


def _field_value(btf: Btf, kind: CoreReloKind, f: _Field) -> tuple[int, int]:
    """(relocated value, field byte size) for a FIELD_* kind, given where the field is."""
    t = btf.type(f.type_id)
    byte_sz = btf.size_of(f.type_id)
    bits = f.bit_offset
    if f.bitfield_size:
        bit_sz = f.bitfield_size
        byte_off = bits // 8 // byte_sz * byte_sz
        # widen the load until the whole bitfield fits in it
        while bits + bit_sz - byte_off * 8 > byte_sz * 8:
            if byte_sz >= 8:
                raise BtfError(f"bitfield at bit {bits} width {bit_sz} does not fit a u64 load")
            byte_sz *= 2
            byte_off = bits // 8 // byte_sz * byte_sz
    else:
        if bits % 8:
            raise BtfError(f"field at bit offset {bits} is not byte-aligned")
        bit_sz = byte_sz * 8
        byte_off = bits // 8
    if kind is CoreReloKind.FIELD_BYTE_OFFSET:
        return byte_off, byte_sz
    if kind is CoreReloKind.FIELD_BYTE_SIZE:
        return byte_sz, byte_sz
    if kind is CoreReloKind.FIELD_EXISTS:
        return 1, byte_sz
    if kind is CoreReloKind.FIELD_SIGNED:
        if t.kind in _ENUMS:
            return int(t.kind_flag), byte_sz
        return int(t.kind is Kind.INT and bool(t.int_encoding & 1)), byte_sz
    if kind is CoreReloKind.FIELD_LSHIFT_U64:   # little-endian: field bits from the bottom
        return 64 - (bits + bit_sz - byte_off * 8), byte_sz
    return 64 - bit_sz, byte_sz                  # FIELD_RSHIFT_U64


def _local_value(local: Btf, relo: CoreRelo, kind: CoreReloKind) -> tuple[int, int]:
    """The value clang computed against the object's own types (what the insn carries)."""
    raw = _parse_access(relo.access_str)
    if kind in _FIELD_KINDS:
        field, _ = _local_field(local, relo.type_id, raw)
        return _field_value(local, kind, field)
    if kind in _TYPE_KINDS:
        if kind is CoreReloKind.TYPE_SIZE:
            return local.size_of(relo.type_id), 0
        if kind is CoreReloKind.TYPE_EXISTS:
            return 1, 0
        return relo.type_id, 0
    t = local.type(local.resolve(relo.type_id))
    if t.kind not in _ENUMS or raw[0] >= len(t.values):
        raise BtfError(f"enumerator index {raw[0]} not in {t!r}")
    if kind is CoreReloKind.ENUMVAL_EXISTS:
        return 1, 0
    return t.values[raw[0]].value, 0


def _candidates(local: Btf, target: Btf, type_id: int, cache: dict[int, list[int]]) -> list[int]:
    """Target type ids with the local type's essential name and a compatible kind."""
    got = cache.get(type_id)
    if got is not None:
        return got
    lt = local.type(type_id)
    name = essential_name(lt.name)
    if not name:
        raise BtfError(f"local type {lt!r} is anonymous; CO-RE needs a named root type")
    if lt.kind in _ENUMS:
        kinds: tuple[Kind, ...] = _ENUMS
    elif lt.kind is Kind.FWD:
        kinds = (Kind.FWD, *_COMPOSITE)
    else:
        kinds = (lt.kind,)
    got = [i for i in target.find_all(name) if target.type(i).kind in kinds]
    cache[type_id] = got
    return got


def _target_value(local: Btf, target: Btf, relo: CoreRelo, kind: CoreReloKind,
                  cache: dict[int, list[int]]) -> tuple[int, int]:
    """The value for the target kernel. Raises CoreUnresolved when nothing matches."""
    if kind is CoreReloKind.TYPE_ID_LOCAL:
        return relo.type_id, 0
    raw = _parse_access(relo.access_str)
    cands = _candidates(local, target, relo.type_id, cache)
    lname = local.type(relo.type_id).name
    if not cands:
        raise CoreUnresolved(f"no type named {essential_name(lname)!r} of a compatible kind")
    results: list[tuple[int, tuple[int, int]]] = []
    if kind in _FIELD_KINDS:
        _, path = _local_field(local, relo.type_id, raw)
        local_types = _local_access_types(local, relo.type_id, raw)
        for cand in cands:
            f = _target_field(target, cand, path, local, local_types)
            if f is not None:
                results.append((cand, _field_value(target, kind, f)))
        if not results:
            names = ".".join(a.name if a.name else f"[{a.idx}]" for a in path[1:])
            raise CoreUnresolved(f"no field {names!r} in {essential_name(lname)!r} candidates "
                                 f"{cands}")
    elif kind in _TYPE_KINDS:
        for cand in cands:
            if _types_compat(local, relo.type_id, target, cand):
                v = {CoreReloKind.TYPE_ID_TARGET: cand, CoreReloKind.TYPE_EXISTS: 1,
                     CoreReloKind.TYPE_SIZE: 0}[kind]
                if kind is CoreReloKind.TYPE_SIZE:
                    v = target.size_of(cand)
                results.append((cand, (v, 0)))
        if not results:
            raise CoreUnresolved(f"candidates {cands} for {lname!r} are not compatible")
    else:
        lt = local.type(local.resolve(relo.type_id))
        want = essential_name(lt.values[raw[0]].name)
        for cand in cands:
            for ev in target.type(target.resolve(cand)).values:
                if essential_name(ev.name) == want:
                    v = 1 if kind is CoreReloKind.ENUMVAL_EXISTS else ev.value
                    results.append((cand, (v, 0)))
                    break
        if not results:
            raise CoreUnresolved(f"no enumerator {want!r} in {essential_name(lname)!r}")
    values = {r for _, r in results}
    if len(values) > 1:
        raise BtfError(f"ambiguous: target candidates {[c for c, _ in results]} give "
                       f"different values {sorted(v for v, _ in values)}")
    return results[0][1]


def _patch(insns: bytearray, off: int, kind: CoreReloKind, orig: int, new: int, orig_sz: int,
           new_sz: int) -> None:
    """Write ``new`` into the instruction at byte ``off``; it must hold ``orig`` now."""
    if off % _INSN_SIZE or off + _INSN_SIZE > len(insns):
        raise BtfError(f"instruction offset {off} bytes is outside the section "
                       f"({len(insns)} bytes) or misaligned")
    code, regs, ioff, imm = _INSN.unpack_from(insns, off)
    cls = code & 0x07
    if cls in (_CLASS_ALU, _CLASS_ALU64):
        if code & 0x08:
            raise BtfError(f"ALU instruction code {code:#04x} uses a register, not an immediate")
        if imm != _s32(orig):
            raise BtfError(f"instruction imm {imm} is not the expected local value {orig}")
        if not -(1 << 31) <= new < (1 << 32):
            raise BtfError(f"value {new} does not fit a 32-bit immediate")
        _INSN.pack_into(insns, off, code, regs, ioff, _s32(new))
    elif cls in (_CLASS_LDX, _CLASS_ST, _CLASS_STX):
        if kind is not CoreReloKind.FIELD_BYTE_OFFSET:
            raise BtfError(f"{kind.name} relocation on a load/store instruction {code:#04x}")
        if ioff != orig:
            raise BtfError(f"instruction off {ioff} is not the expected local value {orig}")
        if not -(1 << 15) <= new < (1 << 15):
            raise BtfError(f"field offset {new} does not fit the 16-bit insn offset")
        mem_sz = _BITS_SIZE[code & 0x18]
        if new_sz != orig_sz and mem_sz == orig_sz:
            if new_sz not in _SIZE_BITS:
                raise BtfError(f"field size changed from {orig_sz} to {new_sz} bytes; the "
                               "load/store cannot be adjusted")
            code = (code & ~0x18) | _SIZE_BITS[new_sz]
        _INSN.pack_into(insns, off, code, regs, new, imm)
    elif code == _LD_IMM64:
        if off + 2 * _INSN_SIZE > len(insns):
            raise BtfError(f"LD_IMM64 at offset {off} bytes is missing its second half")
        hi = _INSN.unpack_from(insns, off + _INSN_SIZE)[3]
        cur = (imm & 0xFFFFFFFF) | ((hi & 0xFFFFFFFF) << 32)
        if cur != orig & 0xFFFFFFFFFFFFFFFF:
            raise BtfError(f"LD_IMM64 value {cur} is not the expected local value {orig}")
        new &= 0xFFFFFFFFFFFFFFFF
        _INSN.pack_into(insns, off, code, regs, ioff, _s32(new & 0xFFFFFFFF))
        c2, r2, o2, _ = _INSN.unpack_from(insns, off + _INSN_SIZE)
        _INSN.pack_into(insns, off + _INSN_SIZE, c2, r2, o2, _s32(new >> 32))
    else:
        raise BtfError(f"instruction code {code:#04x} cannot take a CO-RE relocation")


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def fixup_datasec(btf: Btf, sec_sizes: dict[str, int], sym_offsets: dict[str, int]) -> None:
    """Make an object's ``.BTF`` loadable with BPF_BTF_LOAD (in place).

    Args:
      btf: the object's parsed ``.BTF``; changed in place (see :meth:`Btf.to_bytes`).
      sec_sizes: ELF section name -> size in bytes (``.rodata``, ``.data``, ``.bss``,
        ``.maps``, ...).
      sym_offsets: symbol name -> ``st_value`` (byte offset inside its section) of each
        variable. A key ``"<sec>/<name>"`` takes precedence over ``"<name>"``, for two static
        variables of the same name in different sections.

    Changes made, each because the kernel's BTF verifier (kernel/bpf/btf.c) rejects otherwise:
      - DATASEC whose section is in ``sec_sizes``: size := section size; each VAR's offset :=
        its symbol's value (clang leaves both 0).
      - DATASEC without an ELF section (``.kconfig``, ``.ksyms``): VARs laid out one after
        another, each aligned to min(its size, 8) bytes, size := the end (at least 1).
      - VAR linkage GLOBAL_EXTERN -> GLOBAL_ALLOCATED ("Linkage not supported").
      - FUNC linkage EXTERN -> GLOBAL ("Invalid func linkage").
      Names such as ``.maps``/``.kconfig`` are valid DATASEC names for the kernel and stay.

    Raises:
      BtfError: a DATASEC entry that is not a VAR (a kfunc in ``.ksyms``: unsupported), or a
        VAR with no symbol in ``sym_offsets``.
    """
    for t in list(btf):
        if t.kind is Kind.FUNC and t.linkage == Linkage.EXTERN:
            btf.set_linkage(t.id, Linkage.GLOBAL)
        elif t.kind is Kind.VAR and t.linkage == Linkage.EXTERN:
            btf.set_linkage(t.id, Linkage.GLOBAL)
    for t in list(btf):
        if t.kind is not Kind.DATASEC:
            continue
        sec = t.name
        end = 0
        for i, v in enumerate(t.vars):
            var = btf.type(v.type_id)
            if var.kind is not Kind.VAR:
                raise BtfError(f"DATASEC {sec!r} entry {i} is a {var.kind.name} "
                               f"{var.name!r}, not a VAR (kfunc externs are not supported)")
            size = v.size or btf.size_of(var.type_id)
            if sec in sec_sizes:
                off = sym_offsets.get(f"{sec}/{var.name}", sym_offsets.get(var.name))
                if off is None:
                    raise BtfError(f"DATASEC {sec!r}: no symbol for variable {var.name!r}")
            else:
                align = min(8, 1 << max(size - 1, 0).bit_length())
                off = (end + align - 1) // align * align
            end = max(end, off + size)
            btf.set_datasec_var(t.id, i, offset=off, size=size)
        btf.set_size(t.id, sec_sizes.get(sec, max(end, 1)))

