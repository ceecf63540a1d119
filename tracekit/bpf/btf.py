"""BTF (BPF Type Format) parser: kernel vmlinux BTF, module (split) BTF, and object .BTF/.BTF.ext.

Layouts mirror ``include/uapi/linux/btf.h`` (keep in sync): a 24-byte ``struct btf_header``,
then a type section of ``struct btf_type`` records (12 bytes each, followed by kind-specific
data) and a string section of NUL-terminated names. ``.BTF.ext`` (``struct btf_ext_header``,
libbpf ``src/libbpf_internal.h``) carries func_info, line_info and CO-RE relocation records.

# Some facts about parsing vmlinux BTF quickly
/sys/kernel/btf/vmlinux is ~5.5 MB with ~150k types. :meth:`Btf.parse` makes one pass over the
type section, recording only the word index at which each type starts (record length is a
function of kind and vlen alone); a :class:`BtfType` is decoded on first :meth:`Btf.type`
call and cached. The name index (name offset -> type ids) is built on the first
:meth:`Btf.find`; a name is turned into its string offsets with ``bytes.find`` over the string
section, never by decoding every string.

Only little-endian BTF is read (x86_64 and arm64 hosts); byte-swapped BTF raises BtfError.
"""

from __future__ import annotations

import enum
import functools
import operator
import struct
import sys
from array import array
from collections.abc import Iterator
from typing import NamedTuple

from tracekit._errors import BtfError

__all__ = [
    "ArrayInfo", "Btf", "BtfExt", "BtfType", "CoreRelo", "EnumValue", "Kind", "Linkage",
    "Member", "Param", "VarSecinfo",
]

BTF_MAGIC = 0xEB9F
_HDR = struct.Struct("<HBBIIIII")        # struct btf_header
_EXT_HDR = struct.Struct("<HBBIIIII")    # struct btf_ext_header up to line_info_len
_U32 = struct.Struct("<I")


class Kind(enum.IntEnum):
    """``BTF_KIND_*`` (include/uapi/linux/btf.h)."""

    UNKN = 0
    INT = 1
    PTR = 2
    ARRAY = 3
    STRUCT = 4
    UNION = 5
    ENUM = 6
    FWD = 7
    TYPEDEF = 8
    VOLATILE = 9
    CONST = 10
    RESTRICT = 11
    FUNC = 12
    FUNC_PROTO = 13
    VAR = 14
    DATASEC = 15
    FLOAT = 16
    DECL_TAG = 17
    TYPE_TAG = 18
    ENUM64 = 19


class Linkage(enum.IntEnum):
    """VAR linkage (``BTF_VAR_*``) and FUNC linkage (``BTF_FUNC_*``, kept in a FUNC's vlen)."""

    STATIC = 0
    GLOBAL = 1      # BTF_VAR_GLOBAL_ALLOCATED / BTF_FUNC_GLOBAL
    EXTERN = 2      # BTF_VAR_GLOBAL_EXTERN / BTF_FUNC_EXTERN


# Extra 32-bit words after the 12-byte btf_type: fixed part, and per-vlen-entry part.
# Indexed by kind; kinds past ENUM64 are rejected before these are read.
_FIXED_WORDS = (0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0)
_VLEN_WORDS = (0, 0, 0, 0, 3, 3, 2, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0, 3)
_NR_KINDS = len(_FIXED_WORDS)
_MODIFIERS = frozenset({Kind.TYPEDEF, Kind.CONST, Kind.VOLATILE, Kind.RESTRICT, Kind.TYPE_TAG})
_SIZED = frozenset({Kind.INT, Kind.STRUCT, Kind.UNION, Kind.ENUM, Kind.ENUM64, Kind.FLOAT,
                    Kind.DATASEC})
_TYPED = frozenset({Kind.PTR, Kind.TYPEDEF, Kind.VOLATILE, Kind.CONST, Kind.RESTRICT, Kind.FUNC,
                    Kind.FUNC_PROTO, Kind.VAR, Kind.DECL_TAG, Kind.TYPE_TAG})
POINTER_SIZE = 8  # bytes; BTF does not record it, and tracekit targets 64-bit kernels only
INT_SIGNED = 1    # BTF_INT_SIGNED in an INT's encoding bits


class Member(NamedTuple):
    """A STRUCT/UNION member (``struct btf_member``); offsets in bits from the start."""

    name: str            # "" for an anonymous struct/union member
    type_id: int
    bit_offset: int
    bitfield_size: int   # bits; 0 unless a bitfield (kind_flag set and size given)


class EnumValue(NamedTuple):
    """An ENUM/ENUM64 enumerator; value is signed when the enum's kind_flag is set."""

    name: str
    value: int


class ArrayInfo(NamedTuple):
    """``struct btf_array``."""

    elem_type: int
    index_type: int
    nelems: int


class Param(NamedTuple):
    """A FUNC_PROTO parameter (``struct btf_param``); name "" when unnamed, type 0 for '...'."""

    name: str
    type_id: int


class VarSecinfo(NamedTuple):
    """A DATASEC entry (``struct btf_var_secinfo``); offset and size in bytes."""

    type_id: int
    offset: int
    size: int


class BtfType:
    """One decoded type. Attributes that do not apply to the kind hold 0 / () / None.

    Attributes:
      id: type id.
      kind: :class:`Kind`.
      name: type name ("" when anonymous).
      kind_flag: the info word's kind_flag bit (bitfield members, FWD union, signed enum).
      vlen: the info word's vlen (member/param/value count; linkage for FUNC).
      size: bytes, for INT, STRUCT, UNION, ENUM, ENUM64, FLOAT, DATASEC.
      type_id: referenced type for PTR, modifiers, TYPEDEF, FUNC, FUNC_PROTO (return type),
        VAR, DECL_TAG, TYPE_TAG.
      members: STRUCT/UNION members.
      values: ENUM/ENUM64 enumerators.
      array: ARRAY element type, index type and element count.
      params: FUNC_PROTO parameters.
      linkage: VAR linkage, or FUNC linkage (its vlen).
      vars: DATASEC entries.
      int_encoding, int_offset, int_bits: INT's encoding bits (INT_SIGNED, char, bool),
        bit offset and width.
      component_idx: DECL_TAG's member/param index, -1 for the whole type.
    """

    __slots__ = ("id", "kind", "name", "kind_flag", "vlen", "size", "type_id", "members",
                 "values", "array", "params", "linkage", "vars", "int_encoding", "int_offset",
                 "int_bits", "component_idx")

    def __init__(self, type_id: int, kind: Kind, name: str, kind_flag: bool, vlen: int) -> None:
        self.id = type_id
        self.kind = kind
        self.name = name
        self.kind_flag = kind_flag
        self.vlen = vlen
        self.size = 0
        self.type_id = 0
        self.members: tuple[Member, ...] = ()
        self.values: tuple[EnumValue, ...] = ()
        self.array: ArrayInfo | None = None
        self.params: tuple[Param, ...] = ()
        self.linkage = 0
        self.vars: tuple[VarSecinfo, ...] = ()
        self.int_encoding = 0
        self.int_offset = 0
        self.int_bits = 0
        self.component_idx = -1

    def __repr__(self) -> str:
        return f"<BtfType [{self.id}] {self.kind.name} {self.name!r}>"


class Btf:
    """Parsed BTF. Build with :meth:`parse` or :meth:`vmlinux`.

    Type ids run from 0 (void) to ``len(btf) - 1``; with a base (split BTF, e.g.
    /sys/kernel/btf/<module>) ids and string offsets continue after the base's.
    """

    def __init__(self, *, types: bytearray, strings: bytes, starts: array[int], base: Btf | None,
                 flags: int) -> None:
        self._types = types                          # type section, patched by fixup_datasec
        self._words = memoryview(types).cast("I")    # the same, as u32 words
        self._strings = strings
        self._starts = starts                        # word index of each own type
        self._base = base
        self._flags = flags
        self._first_id = len(base) if base is not None else 1
        self._str_base: int = len(base._strings) + base._str_base if base is not None else 0
        self._cache: dict[int, BtfType] = {}
        self._name_col: bytes | None = None   # name_off of each own type, packed u32 LE
        self._found: dict[tuple[str, Kind | None], tuple[int, ...]] = {}

    # -- construction ------------------------------------------------------------------

    @classmethod
    def parse(cls, data: bytes, *, base: Btf | None = None) -> Btf:
        """Parse raw BTF (``/sys/kernel/btf/*`` or an object's ``.BTF`` section).

        Args:
          data: the bytes, starting with ``struct btf_header``.
          base: the base BTF for split BTF (kernel modules); None for vmlinux and objects.

        Raises:
          BtfError: bad magic (or big-endian), unsupported version, truncated header or
            sections, a type record running past the type section, or an unknown kind;
            the message gives the byte offset (in the type section for type records).
        """
        if len(data) < 8:
            raise BtfError(f"BTF header truncated: {len(data)} bytes, need at least 8")
        magic = int.from_bytes(data[:2], "little")
        if magic != BTF_MAGIC:
            if magic == 0x9FEB:
                raise BtfError("BTF is big-endian (magic 0x9feb at offset 0); only "
                               "little-endian BTF is supported")
            raise BtfError(f"bad BTF magic {magic:#06x} at offset 0, expected {BTF_MAGIC:#06x}")
        _, version, flags, hdr_len = struct.unpack_from("<HBBI", data, 0)
        if version != 1:
            raise BtfError(f"unsupported BTF version {version} at offset 2")
        if hdr_len < _HDR.size or len(data) < hdr_len:
            raise BtfError(f"BTF header truncated: hdr_len {hdr_len}, data {len(data)} bytes, "
                           f"need at least {_HDR.size}")
        _, _, _, _, type_off, type_len, str_off, str_len = _HDR.unpack_from(data, 0)
        for what, off, ln in (("type", type_off, type_len), ("string", str_off, str_len)):
            if hdr_len + off + ln > len(data):
                raise BtfError(f"BTF {what} section truncated: [{hdr_len + off}, "
                               f"{hdr_len + off + ln}) past end of data at {len(data)}")
        if type_off % 4 or type_len % 4:
            raise BtfError(f"BTF type section at offset {hdr_len + type_off} length {type_len} "
                           "is not 4-byte aligned")
        strings = bytes(data[hdr_len + str_off: hdr_len + str_off + str_len])
        if base is None and str_len and strings[0] != 0:
            raise BtfError(f"BTF string section at offset {hdr_len + str_off} does not start "
                           "with a NUL byte")
        types = bytearray(data[hdr_len + type_off: hdr_len + type_off + type_len])
        words = memoryview(types).cast("I")
        if sys.byteorder != "little":  # pragma: no cover - tracekit hosts are little-endian
            swapped = array("I", types)
            swapped.byteswap()
            types = bytearray(swapped.tobytes())
            words = memoryview(types).cast("I")
        starts = _scan_types(words)
        return cls(types=types, strings=strings, starts=starts, base=base, flags=flags)

    @classmethod
    def vmlinux(cls, path: str = "/sys/kernel/btf/vmlinux") -> Btf:
        """The running kernel's BTF, parsed once per process per path.

        Raises:
          BtfError: the file is missing (the kernel lacks CONFIG_DEBUG_INFO_BTF) or malformed.
        """
        return _vmlinux_cached(path)

    # -- lookups -----------------------------------------------------------------------

    def __len__(self) -> int:
        """Number of type ids, counting void (id 0) and the base's types."""
        return self._first_id + len(self._starts)

    def __iter__(self) -> Iterator[BtfType]:
        """Own types in id order (not the base's, not void)."""
        for type_id in range(self._first_id, len(self)):
            yield self.type(type_id)

    @property
    def base(self) -> Btf | None:
        return self._base

    def str_at(self, offset: int) -> str:
        """The NUL-terminated string at ``offset`` in the (base + own) string section.

        Raises:
          BtfError: offset past the end of the string section.
        """
        if offset < self._str_base:
            assert self._base is not None
            return self._base.str_at(offset)
        off = offset - self._str_base
        strings = self._strings
        if off >= len(strings):
            raise BtfError(f"string offset {offset} past the end of the BTF string section "
                           f"({self._str_base + len(strings)} bytes)")
        end = strings.find(b"\0", off)
        if end < 0:
            raise BtfError(f"string at offset {offset} is not NUL-terminated")
        return strings[off:end].decode("utf-8", "replace")

    def type(self, type_id: int) -> BtfType:
        """The type with this id (0 is void: kind UNKN, name "").

        Raises:
          BtfError: no such id.
        """
        if type_id < self._first_id:
            if type_id == 0:
                return _VOID
            if self._base is not None and type_id > 0:
                return self._base.type(type_id)
            raise BtfError(f"type id {type_id} out of range [0, {len(self)})")
        t = self._cache.get(type_id)
        if t is None:
            idx = type_id - self._first_id
            if idx >= len(self._starts):
                raise BtfError(f"type id {type_id} out of range [0, {len(self)})")
            t = self._decode(type_id, self._starts[idx])
            self._cache[type_id] = t
        return t

    def find(self, name: str, kind: Kind | None = None) -> int:
        """The id of the first type named ``name`` (of ``kind`` if given).

        Raises:
          BtfError: no such type.
        """
        ids = self.find_all(name, kind)
        if not ids:
            what = f"{kind.name} " if kind is not None else ""
            raise BtfError(f"no BTF type {what}{name!r}")
        return ids[0]

    def find_all(self, name: str, kind: Kind | None = None) -> list[int]:
        """Ids of all types named ``name`` (of ``kind`` if given), base first, in id order.

        Answers are cached per instance (CO-RE asks for the same names once per relocation);
        the setters below only patch sizes, offsets and linkage, never names.
        """
        key = (name, kind)
        hit = self._found.get(key)
        if hit is None:
            hit = self._found[key] = tuple(self._find_all(name, kind))
        return list(hit)

    def _find_all(self, name: str, kind: Kind | None) -> list[int]:
        ids = self._base.find_all(name, kind) if self._base is not None else []
        if not name:
            return ids
        offsets = self._all_name_offsets(name)
        if self._base is not None:
            # a split BTF's types may name strings in the base string section
            offsets += self._base._all_name_offsets(name)
        own: list[int] = []
        for off in offsets:
            own.extend(self._ids_named(off))
        own.sort()
        ids.extend(own)
        if kind is not None:
            ids = [i for i in ids if self._kind_of(i) == kind]
        return ids

    def resolve(self, type_id: int) -> int:
        """Follow TYPEDEF/CONST/VOLATILE/RESTRICT/TYPE_TAG to the first other type id."""
        t = self.type(type_id)
        for _ in range(64):
            if t.kind not in _MODIFIERS:
                return t.id
            t = self.type(t.type_id)
        raise BtfError(f"type id {type_id}: modifier chain longer than 64 (a loop?)")

    def size_of(self, type_id: int) -> int:
        """Size in bytes of the type (pointers are :data:`POINTER_SIZE`).

        Raises:
          BtfError: the type has no size (void, FUNC, FUNC_PROTO, FWD) or a loop.
        """
        t = self.type(type_id)
        for _ in range(64):
            k = t.kind
            if k in _SIZED:
                return t.size
            if k is Kind.PTR:
                return POINTER_SIZE
            if k is Kind.ARRAY:
                assert t.array is not None
                return t.array.nelems * self.size_of(t.array.elem_type)
            if k in _MODIFIERS or k is Kind.VAR:
                t = self.type(t.type_id)
                continue
            raise BtfError(f"type [{t.id}] {k.name} {t.name!r} has no size")
        raise BtfError(f"type id {type_id}: type chain longer than 64 (a loop?)")

    def find_member(self, type_id: int, name: str) -> tuple[Member, int] | None:
        """Find member ``name`` of STRUCT/UNION ``type_id``, looking inside anonymous members.

        Returns:
          (member, bit offset from the start of ``type_id``), or None when absent.
        """
        t = self.type(self.resolve(type_id))
        if t.kind not in (Kind.STRUCT, Kind.UNION):
            return None
        for m in t.members:
            if m.name == name:
                return m, m.bit_offset
        for m in t.members:
            if not m.name:
                found = self.find_member(m.type_id, name)
                if found is not None:
                    return found[0], m.bit_offset + found[1]
        return None

    def member_offset(self, struct_name: str, field_path: str) -> tuple[int, int]:
        """Byte offset and byte size of a (nested) member.

        Args:
          struct_name: a STRUCT or UNION name, e.g. ``"task_struct"``.
          field_path: dotted member names, e.g. ``"thread_info.flags"``; members of anonymous
            structs/unions are named directly, as in C.

        Returns:
          (offset from the start of the struct, size), both in bytes.

        Raises:
          BtfError: no such struct, no such member, a non-struct in the middle of the path,
            or a bitfield member (it has no byte offset and size).
        """
        ids = self.find_all(struct_name, Kind.STRUCT) or self.find_all(struct_name, Kind.UNION)
        if not ids:
            raise BtfError(f"no BTF struct or union {struct_name!r}")
        type_id, bits = ids[0], 0
        for part in field_path.split("."):
            found = self.find_member(type_id, part)
            if found is None:
                raise BtfError(f"{struct_name}.{field_path}: no member {part!r} in "
                               f"{self.type(self.resolve(type_id))!r}")
            m, off = found
            if m.bitfield_size:
                raise BtfError(f"{struct_name}.{field_path}: {part!r} is a "
                               f"{m.bitfield_size}-bit bitfield")
            bits += off
            type_id = m.type_id
        return bits // 8, self.size_of(type_id)

    def to_bytes(self) -> bytes:
        """Serialise (header + type section + string section), including fix-ups made.

        For split BTF this is the split part only, as the kernel takes it.
        """
        types = bytes(self._types)
        hdr = _HDR.pack(BTF_MAGIC, 1, self._flags, _HDR.size, 0, len(types), len(types),
                        len(self._strings))
        return hdr + types + self._strings

    # -- mutation (for tracekit.bpf.relo_core.fixup_datasec) --------------------------------------

    def _word_of(self, type_id: int) -> int:
        if type_id < self._first_id:
            raise BtfError(f"type id {type_id} is not in this BTF (void or base)")
        return self._starts[type_id - self._first_id]

    def set_size(self, type_id: int, size: int) -> None:
        """Set the size word of a sized type (DATASEC, STRUCT ...), in bytes."""
        self._words[self._word_of(type_id) + 2] = size
        self._cache.pop(type_id, None)

    def set_linkage(self, type_id: int, linkage: int) -> None:
        """Set a VAR's linkage word or a FUNC's linkage (its vlen)."""
        w = self._word_of(type_id)
        kind = (self._words[w + 1] >> 24) & 0x1F
        if kind == Kind.VAR:
            self._words[w + 3] = linkage
        elif kind == Kind.FUNC:
            self._words[w + 1] = (self._words[w + 1] & ~0xFFFF) | linkage
        else:
            raise BtfError(f"type [{type_id}] {Kind(kind).name} has no linkage")
        self._cache.pop(type_id, None)

    def set_datasec_var(self, type_id: int, index: int, *, offset: int, size: int) -> None:
        """Set the offset and size (bytes) of entry ``index`` of DATASEC ``type_id``."""
        w = self._word_of(type_id)
        if (self._words[w + 1] >> 24) & 0x1F != Kind.DATASEC:
            raise BtfError(f"type [{type_id}] is not a DATASEC")
        self._words[w + 3 + 3 * index + 1] = offset
        self._words[w + 3 + 3 * index + 2] = size
        self._cache.pop(type_id, None)

    # -- internals -----------------------------------------------------------------------

    def _kind_of(self, type_id: int) -> int:
        if type_id < self._first_id:
            return self.type(type_id).kind
        return (self._words[self._starts[type_id - self._first_id] + 1] >> 24) & 0x1F

    def _all_name_offsets(self, name: str) -> list[int]:
        needle = b"\0" + name.encode() + b"\0"
        out, pos = [], self._strings.find(needle)
        while pos >= 0:
            out.append(self._str_base + pos + 1)
            pos = self._strings.find(needle, pos + 1)
        return out

    def _ids_named(self, name_off: int) -> list[int]:
        """Own type ids whose name_off is ``name_off``.

        The name_off column (the first word of every record, gathered once with
        ``itemgetter`` in C) is searched with ``bytes.find``: about 0.1 ms a lookup on
        vmlinux, where building a dict index over 127k types costs ~45 ms at start-up.
        """
        col = self._name_col
        if col is None:
            starts = self._starts
            if len(starts) == 0:
                return []
            picked = operator.itemgetter(*starts)(self._words)
            col = array("I", picked if len(starts) > 1 else (picked,)).tobytes()
            self._name_col = col
        ids: list[int] = []
        pat = _U32.pack(name_off)
        pos = col.find(pat)
        while pos >= 0:
            if pos % 4 == 0:
                ids.append(self._first_id + pos // 4)
            pos = col.find(pat, pos + 1)
        return ids

    def _decode(self, type_id: int, w: int) -> BtfType:
        words = self._words
        name_off, info, size_or_type = words[w], words[w + 1], words[w + 2]
        kind = Kind((info >> 24) & 0x1F)
        vlen = info & 0xFFFF
        kflag = bool(info >> 31)
        t = BtfType(type_id, kind, self.str_at(name_off) if name_off else "", kflag, vlen)
        if kind in _SIZED:
            t.size = size_or_type
        elif kind in _TYPED:
            t.type_id = size_or_type
        base = (w + 3) * 4
        buf = self._types
        if kind is Kind.INT:
            v = words[w + 3]
            t.int_encoding, t.int_offset, t.int_bits = (v >> 24) & 0x0F, (v >> 16) & 0xFF, v & 0xFF
        elif kind is Kind.ARRAY:
            t.array = ArrayInfo(words[w + 3], words[w + 4], words[w + 5])
        elif kind in (Kind.STRUCT, Kind.UNION):
            ms = []
            for n, mt, off in struct.iter_unpack("<III", buf[base: base + 12 * vlen]):
                if kflag:
                    ms.append(Member(self.str_at(n) if n else "", mt, off & 0xFFFFFF, off >> 24))
                else:
                    ms.append(Member(self.str_at(n) if n else "", mt, off, 0))
            t.members = tuple(ms)
        elif kind is Kind.ENUM:
            fmt = "<Ii" if kflag else "<II"
            t.values = tuple(EnumValue(self.str_at(n), v)
                             for n, v in struct.iter_unpack(fmt, buf[base: base + 8 * vlen]))
        elif kind is Kind.ENUM64:
            vals = []
            for n, lo, hi in struct.iter_unpack("<III", buf[base: base + 12 * vlen]):
                v = (hi << 32) | lo
                if kflag and v >= 1 << 63:
                    v -= 1 << 64
                vals.append(EnumValue(self.str_at(n), v))
            t.values = tuple(vals)
        elif kind is Kind.FUNC_PROTO:
            t.params = tuple(Param(self.str_at(n) if n else "", pt)
                             for n, pt in struct.iter_unpack("<II", buf[base: base + 8 * vlen]))
        elif kind is Kind.VAR:
            t.linkage = words[w + 3]
        elif kind is Kind.FUNC:
            t.linkage = vlen
        elif kind is Kind.DATASEC:
            t.vars = tuple(VarSecinfo(*v)
                           for v in struct.iter_unpack("<III", buf[base: base + 12 * vlen]))
        elif kind is Kind.DECL_TAG:
            t.component_idx = struct.unpack_from("<i", buf, base)[0]
        return t


def _scan_types(words: memoryview) -> array[int]:
    """Word index of each type record's start; one pass, validating kinds and lengths.

    Raises:
      BtfError: unknown kind, or a record that runs past the end, with its byte offset in
        the type section.
    """
    starts = array("I")
    append = starts.append
    fixed, per, nr = _FIXED_WORDS, _VLEN_WORDS, _NR_KINDS
    n = len(words)
    w = 0
    while w < n:
        if w + 3 > n:
            raise BtfError(f"BTF type section truncated: type record at type-section offset "
                           f"{w * 4} needs 12 bytes, {(n - w) * 4} left")
        info = words[w + 1]
        kind = (info >> 24) & 0x1F
        if kind >= nr or kind == 0:
            raise BtfError(f"unknown BTF kind {kind} in type id {len(starts) + 1} at "
                           f"type-section offset {w * 4}")
        append(w)
        w += 3 + fixed[kind] + (info & 0xFFFF) * per[kind]
    if w > n:
        last = starts[-1]
        raise BtfError(f"BTF type section truncated: type record at type-section offset "
                       f"{last * 4} ends at {w * 4}, past the section end at {n * 4}")
    return starts


@functools.cache
def _vmlinux_cached(path: str) -> Btf:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError as e:
        raise BtfError(f"{path}: no kernel BTF (kernel built without "
                       "CONFIG_DEBUG_INFO_BTF?)") from e
    except OSError as e:
        raise BtfError(f"{path}: cannot read kernel BTF: {e.strerror}") from e
    return Btf.parse(data)


_VOID = BtfType(0, Kind.UNKN, "", False, 0)


# -- .BTF.ext ----------------------------------------------------------------------------


class CoreRelo(NamedTuple):
    """A CO-RE relocation (``struct bpf_core_relo``, include/uapi/linux/bpf.h).

    insn_off is in bytes from the start of the ELF section (as clang writes it); type_id is a
    local (object BTF) id; access_str like ``"0:1:2"``; kind an ``enum bpf_core_relo_kind``.
    """

    insn_off: int
    type_id: int
    access_str: str
    kind: int


class BtfExt:
    """Parsed ``.BTF.ext`` of a BPF object (func_info, line_info, CO-RE relocations).

    Section names and access strings are string offsets into the object's ``.BTF`` string
    section, so :meth:`parse` takes that :class:`Btf` and gives them as str.

    Attributes:
      func_info: ELF section name -> [(insn_off in bytes, FUNC type id)].
      line_info: ELF section name -> [(insn_off in bytes, file_name_off, line_off, line_col)];
        the offsets are left as string offsets, which is how BPF_PROG_LOAD takes them.
      core_relos: ELF section name -> [CoreRelo].
      func_info_rec_size, line_info_rec_size, core_relo_rec_size: record sizes in bytes
        (what BPF_PROG_LOAD's func_info_rec_size/line_info_rec_size want).
    """

    def __init__(self) -> None:
        self.func_info: dict[str, list[tuple[int, int]]] = {}
        self.line_info: dict[str, list[tuple[int, int, int, int]]] = {}
        self.core_relos: dict[str, list[CoreRelo]] = {}
        self.func_info_rec_size = 8
        self.line_info_rec_size = 16
        self.core_relo_rec_size = 16

    @classmethod
    def parse(cls, data: bytes, btf: Btf) -> BtfExt:
        """Parse a ``.BTF.ext`` section.

        Args:
          data: the section bytes, starting with ``struct btf_ext_header``.
          btf: the same object's parsed ``.BTF`` (names sections and access strings).

        Raises:
          BtfError: bad magic, truncated header or sub-section, record size too small, or a
            string offset outside ``btf``'s strings; the message gives the byte offset.
        """
        if len(data) < _EXT_HDR.size:
            raise BtfError(f"BTF.ext header truncated: {len(data)} bytes, need {_EXT_HDR.size}")
        magic, version, _flags, hdr_len, fi_off, fi_len, li_off, li_len = \
            _EXT_HDR.unpack_from(data, 0)
        if magic != BTF_MAGIC:
            raise BtfError(f"bad BTF.ext magic {magic:#06x} at offset 0, expected "
                           f"{BTF_MAGIC:#06x}")
        if version != 1:
            raise BtfError(f"unsupported BTF.ext version {version} at offset 2")
        if hdr_len > len(data) or hdr_len < _EXT_HDR.size:
            raise BtfError(f"BTF.ext header truncated: hdr_len {hdr_len}, data {len(data)}")
        cr_off = cr_len = 0
        if hdr_len >= _EXT_HDR.size + 8:
            cr_off, cr_len = struct.unpack_from("<II", data, _EXT_HDR.size)
        ext = cls()
        ext.func_info_rec_size, raw_fi = _ext_subsection(data, hdr_len, fi_off, fi_len, 8,
                                                         "func_info", btf)
        ext.line_info_rec_size, raw_li = _ext_subsection(data, hdr_len, li_off, li_len, 16,
                                                         "line_info", btf)
        ext.core_relo_rec_size, raw_cr = _ext_subsection(data, hdr_len, cr_off, cr_len, 16,
                                                         "core_relo", btf)
        ext.func_info = {sec: [struct.unpack_from("<II", data, off) for off in offs]
                         for sec, offs in raw_fi.items()}
        ext.line_info = {sec: [struct.unpack_from("<IIII", data, off) for off in offs]
                         for sec, offs in raw_li.items()}
        relos: dict[str, list[CoreRelo]] = {}
        for sec, offs in raw_cr.items():
            out = relos[sec] = []
            for off in offs:
                insn_off, type_id, access_off, kind = struct.unpack_from("<IIII", data, off)
                out.append(CoreRelo(insn_off, type_id, btf.str_at(access_off), kind))
        ext.core_relos = relos
        return ext


def _ext_subsection(data: bytes, hdr_len: int, off: int, length: int, min_rec: int, what: str,
                    btf: Btf) -> tuple[int, dict[str, list[int]]]:
    """Walk one btf_ext_info sub-section: u32 rec_size, then {sec_name_off, num_info, recs}.

    Returns:
      (rec_size, section name -> byte offsets of its records in ``data``).
    """
    if length == 0:
        return min_rec, {}
    start, end = hdr_len + off, hdr_len + off + length
    if end > len(data) or length < 4:
        raise BtfError(f"BTF.ext {what} truncated: [{start}, {end}) past end of data at "
                       f"{len(data)}")
    rec_size = _U32.unpack_from(data, start)[0]
    if rec_size < min_rec or rec_size % 4:
        raise BtfError(f"BTF.ext {what} record size {rec_size} at offset {start} is invalid "
                       f"(need a multiple of 4, at least {min_rec})")
    out: dict[str, list[int]] = {}
    pos = start + 4
    while pos < end:
        if pos + 8 > end:
            raise BtfError(f"BTF.ext {what} truncated: section header at offset {pos}")
        sec_off, num = struct.unpack_from("<II", data, pos)
        pos += 8
        recs_end = pos + num * rec_size
        if recs_end > end:
            raise BtfError(f"BTF.ext {what} truncated: {num} records at offset {pos} run to "
                           f"{recs_end}, past {end}")
        sec = btf.str_at(sec_off)
        out.setdefault(sec, []).extend(range(pos, recs_end, rec_size))
        pos = recs_end
    return rec_size, out
