"""Read a BPF ELF object (clang ``-target bpf``) into specs the loader turns into kernel objects.

Nothing here calls the kernel: :func:`read_object` parses sections, symbols and
relocations with pyelftools and describes programs, BTF-defined maps and global data.

# Some facts about BPF ELF objects (clang, libbpf conventions)
- Each program lives in an executable section named after its hook (``tp_btf/sys_enter``);
  its STT_FUNC symbol gives the prog name, offset and size inside the section.
- Maps are BTF-defined: ``.maps`` holds one variable per map whose BTF type is an anonymous
  struct; ``__uint(max_entries, N)`` is a member of type ``int (*)[N]`` (PTR to ARRAY of N)
  and ``__type(key, T)`` a member of type ``T *`` (libbpf's bpf_helpers.h).
- Global data lives in ``.rodata``, ``.data`` and ``.bss``; each becomes a one-element ARRAY
  map whose value is the whole section. A ``ld_imm64`` that references it is relocated to
  BPF_PSEUDO_MAP_VALUE with the byte offset in the second half.
- ``.rel<sec>`` relocations of type R_BPF_64_64 (1) mark ``ld_imm64`` instructions that load a
  map or a global; the symbol says which. R_BPF_64_32 (10) on a call is a bpf-to-bpf call
  into ``.text``: against the function's own symbol with imm -1 (a global function), or
  against the section symbol with imm + 1 = the callee's instruction index (a static one).
  A call inside one section may carry no relocation: imm is then relative already.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from tracekit._errors import BtfError, ElfError
from tracekit.bpf.btf import Btf, BtfExt, Kind

INSN_SIZE = 8
R_BPF_64_64 = 1
R_BPF_64_32 = 10
DATA_SECS = (".rodata", ".data", ".bss")
_SHF_EXECINSTR = 0x4
_SHN_UNDEF = 0

#: BTF-defined map struct members that are integers encoded as ``int (*name)[N]``.
_MAP_INT_FIELDS = ("type", "max_entries", "map_flags", "key_size", "value_size", "numa_node",
                   "pinning", "map_extra")


@dataclass
class Reloc:
    """One relocation inside a program's instructions.

    Attributes:
      insn_off: byte offset of the instruction inside the program.
      sym_name: the symbol's name ("" for a section symbol).
      sym_sec: name of the section the symbol is defined in.
      sym_value: the symbol's value (its byte offset in ``sym_sec``).
      rtype: ELF relocation type (R_BPF_64_64 for ld_imm64).
    """

    insn_off: int
    sym_name: str
    sym_sec: str
    sym_value: int
    rtype: int


@dataclass
class FuncSpec:
    """A function (STT_FUNC symbol) inside an executable section."""

    name: str
    sec: str
    sec_off: int                          # byte offset inside the section
    size: int                             # bytes


@dataclass
class ProgSpec:
    """A program as found in the object (not loaded): an entry function outside .text."""

    name: str
    sec: str
    insns: bytes
    sec_off: int                          # byte offset of the prog inside its section
    relocs: list[Reloc] = field(default_factory=list)   # offsets relative to the prog


@dataclass
class MapSpec:
    """A BTF-defined map (from ``.maps``) or a global-data map (``.rodata``/``.data``/``.bss``)."""

    name: str
    map_type: int
    key_size: int
    value_size: int
    max_entries: int
    map_flags: int = 0
    numa_node: int = 0
    data: bytearray | None = None         # initial value of a global-data map (whole section)
    sec: str = ""                         # ".maps" or the data section name
    btf_key_type_id: int = 0              # __type(key, T): T's id in the object's BTF
    btf_value_type_id: int = 0            # __type(value, T)


@dataclass
class GlobalVar:
    """A global variable in a data section, from the object's BTF DATASEC."""

    name: str
    sec: str
    offset: int                           # byte offset inside the section
    size: int                             # bytes
    type_id: int                          # BTF type id in the object's BTF


@dataclass
class ObjectSpec:
    """Everything the loader needs from one object file."""

    path: str
    license: str
    progs: dict[str, ProgSpec]
    maps: dict[str, MapSpec]
    globals: dict[str, GlobalVar]
    btf: Btf
    btf_ext: BtfExt | None
    sec_sizes: dict[str, int]
    sym_offsets: dict[str, int]
    #: executable section -> its bytes, relocations by byte offset, functions by offset;
    #: the loader uses them to append the subprograms (``.text``) a prog calls.
    code: dict[str, bytes] = field(default_factory=dict)
    code_relocs: dict[str, dict[int, Reloc]] = field(default_factory=dict)
    funcs: dict[str, dict[int, FuncSpec]] = field(default_factory=dict)


def read_object(source: str | Path | bytes) -> ObjectSpec:
    """Parse a BPF ELF object.

    Args:
      source: a path, or the file's bytes.

    Returns:
      The programs, maps, global variables, BTF and BTF.ext of the object.

    Raises:
      ElfError: not an ELF file, not a BPF object, no BTF, or a malformed section/relocation
        (the message names the file and the section).
    """
    if isinstance(source, bytes):
        path, raw = "<bytes>", source
    else:
        path = str(source)
        try:
            raw = Path(source).read_bytes()
        except OSError as e:
            raise ElfError(f"cannot read: {e.strerror}", path=path) from e
    try:
        return _Reader(path, raw).read()
    except ELFError as e:
        raise ElfError(f"malformed ELF: {e}", path=path) from e
    except BtfError as e:
        raise ElfError(f"bad BTF: {e}", path=path, sec=".BTF") from e


class _Reader:
    def __init__(self, path: str, raw: bytes) -> None:
        self.path = path
        self.elf = ELFFile(io.BytesIO(raw))
        if self.elf["e_machine"] not in ("EM_BPF", 247):
            raise ElfError(f"not a BPF object (e_machine {self.elf['e_machine']})", path=path)
        self.secs = list(self.elf.iter_sections())
        symtab = self.elf.get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            raise ElfError("no .symtab", path=path)
        self.symtab = symtab
        self.symbols = list(symtab.iter_symbols())

    def _err(self, msg: str, sec: str | None = None) -> ElfError:
        return ElfError(msg, path=self.path, sec=sec)

    def _sec_name(self, index: int | str) -> str:
        if not isinstance(index, int) or index <= 0 or index >= len(self.secs):
            return ""
        return self.secs[index].name

    def read(self) -> ObjectSpec:
        btf_sec = self.elf.get_section_by_name(".BTF")
        if btf_sec is None:
            raise self._err("no .BTF section: compile with clang -g")
        btf = Btf.parse(btf_sec.data())
        ext_sec = self.elf.get_section_by_name(".BTF.ext")
        btf_ext = BtfExt.parse(ext_sec.data(), btf) if ext_sec is not None else None

        lic_sec = self.elf.get_section_by_name("license")
        license = lic_sec.data().split(b"\0", 1)[0].decode() if lic_sec is not None else ""

        sec_sizes = {s.name: s["sh_size"] for s in self.secs if s.name}
        sym_offsets = {s.name: s["st_value"] for s in self.symbols
                       if s.name and s["st_info"]["type"] == "STT_OBJECT"}
        maps = self._btf_maps(btf)
        glob = self._globals(btf)
        for name in DATA_SECS:
            sec = self.elf.get_section_by_name(name)
            if sec is None or sec["sh_size"] == 0:
                continue
            data = bytearray(sec["sh_size"]) if name == ".bss" else bytearray(sec.data())
            maps[name] = MapSpec(name=name, map_type=2, key_size=4, value_size=len(data),
                                 max_entries=1, data=data, sec=name,
                                 map_flags=0x80 if name == ".rodata" else 0)  # BPF_F_RDONLY_PROG
        progs, code, code_relocs, funcs = self._progs()
        return ObjectSpec(self.path, license, progs, maps, glob, btf, btf_ext, sec_sizes,
                          sym_offsets, code, code_relocs, funcs)

    def _progs(self) -> tuple[dict[str, ProgSpec], dict[str, bytes],
                              dict[str, dict[int, Reloc]], dict[str, dict[int, FuncSpec]]]:
        """Programs (functions of non-.text executable sections), and every executable
        section's code, relocations and functions (``.text`` holds the subprograms)."""
        progs: dict[str, ProgSpec] = {}
        code: dict[str, bytes] = {}
        code_relocs: dict[str, dict[int, Reloc]] = {}
        funcs: dict[str, dict[int, FuncSpec]] = {}
        relsecs = {self._sec_name(s["sh_info"]): s for s in self.secs
                   if isinstance(s, RelocationSection)}
        for idx, sec in enumerate(self.secs):
            if not sec["sh_flags"] & _SHF_EXECINSTR or sec["sh_size"] == 0:
                continue
            data = sec.data()
            found = sorted((s["st_value"], s.name, s["st_size"]) for s in self.symbols
                           if s["st_shndx"] == idx and s["st_info"]["type"] == "STT_FUNC")
            if not found:
                raise self._err("executable section without a function symbol", sec.name)
            relocs = self._relocs(relsecs.get(sec.name), sec.name)
            code[sec.name] = bytes(data)
            code_relocs[sec.name] = {r.insn_off: r for r in relocs}
            funcs[sec.name] = {}
            for off, name, size in found:
                if off % INSN_SIZE or size % INSN_SIZE or off + size > len(data) or not size:
                    raise self._err(f"function {name!r}: offset {off}/size {size} not whole "
                                    "instructions inside the section", sec.name)
                funcs[sec.name][off] = FuncSpec(name, sec.name, off, size)
                if sec.name == ".text":
                    continue  # subprograms: placed into the progs that call them
                mine = [Reloc(r.insn_off - off, r.sym_name, r.sym_sec, r.sym_value, r.rtype)
                        for r in relocs if off <= r.insn_off < off + size]
                progs[name] = ProgSpec(name, sec.name, bytes(data[off:off + size]), off, mine)
        return progs, code, code_relocs, funcs

    def _relocs(self, relsec: RelocationSection | None, sec: str) -> list[Reloc]:
        if relsec is None:
            return []
        out = []
        for rel in relsec.iter_relocations():
            sym = self.symbols[rel["r_info_sym"]]
            rtype = rel["r_info_type"]
            if rtype not in (R_BPF_64_64, R_BPF_64_32):
                raise self._err(f"unsupported relocation type {rtype} at {rel['r_offset']}", sec)
            if sym["st_shndx"] == _SHN_UNDEF:
                raise self._err(f"relocation against undefined symbol {sym.name!r} "
                                "(extern/kconfig are not supported)", sec)
            if rel["r_offset"] % INSN_SIZE:
                raise self._err(f"relocation at {rel['r_offset']} is not on an instruction", sec)
            out.append(Reloc(rel["r_offset"], sym.name if sym["st_info"]["type"] != "STT_SECTION"
                             else "", self._sec_name(sym["st_shndx"]), sym["st_value"], rtype))
        return out

    def _btf_maps(self, btf: Btf) -> dict[str, MapSpec]:
        maps: dict[str, MapSpec] = {}
        if self.elf.get_section_by_name(".maps") is None:
            return maps
        try:
            dsec = btf.type(btf.find(".maps", Kind.DATASEC))
        except BtfError as e:
            raise self._err("no DATASEC '.maps' in BTF", ".maps") from e
        for var in dsec.vars:
            vt = btf.type(var.type_id)
            name = vt.name
            st = btf.type(btf.resolve(vt.type_id))
            if st.kind not in (Kind.STRUCT, Kind.UNION):
                raise self._err(f"map {name!r}: BTF type is not a struct", ".maps")
            vals: dict[str, int] = {}
            for m in st.members:
                mt = btf.type(btf.resolve(m.type_id))
                if m.name in _MAP_INT_FIELDS:
                    arr = btf.type(btf.resolve(mt.type_id)) if mt.kind == Kind.PTR else None
                    if arr is None or arr.kind != Kind.ARRAY or arr.array is None:
                        raise self._err(f"map {name!r}: member {m.name!r} is not __uint()", ".maps")
                    vals[m.name] = arr.array.nelems
                elif m.name in ("key", "value"):
                    if mt.kind != Kind.PTR:
                        raise self._err(f"map {name!r}: member {m.name!r} is not __type()", ".maps")
                    vals[m.name + "_size"] = btf.size_of(mt.type_id)
                    vals[m.name + "_type_id"] = mt.type_id
                else:
                    raise self._err(f"map {name!r}: unsupported member {m.name!r}", ".maps")
            if "type" not in vals:
                raise self._err(f"map {name!r}: no map type (__uint(type, ...))", ".maps")
            maps[name] = MapSpec(name=name, map_type=vals["type"],
                                 key_size=vals.get("key_size", 0),
                                 value_size=vals.get("value_size", 0),
                                 max_entries=vals.get("max_entries", 0),
                                 map_flags=vals.get("map_flags", 0),
                                 numa_node=vals.get("numa_node", 0), sec=".maps",
                                 btf_key_type_id=vals.get("key_type_id", 0),
                                 btf_value_type_id=vals.get("value_type_id", 0))
        return maps

    def _globals(self, btf: Btf) -> dict[str, GlobalVar]:
        out: dict[str, GlobalVar] = {}
        for sec in DATA_SECS:
            try:
                dsec = btf.type(btf.find(sec, Kind.DATASEC))
            except BtfError:
                continue
            for var in dsec.vars:
                vt = btf.type(var.type_id)
                if vt.kind != Kind.VAR:
                    continue
                # clang leaves DATASEC offsets at 0; the symbol table has the truth.
                sym = next((s for s in self.symbols if s.name == vt.name
                            and self._sec_name(s["st_shndx"]) == sec), None)
                offset = sym["st_value"] if sym is not None else var.offset
                out[vt.name] = GlobalVar(vt.name, sec, offset, btf.size_of(vt.type_id),
                                         vt.type_id)
        return out
