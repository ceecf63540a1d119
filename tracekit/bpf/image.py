"""An object's load image: what BPF_BTF_LOAD, BPF_MAP_CREATE and BPF_PROG_LOAD take, with
the ELF already read, every prog linked with its subprograms and relocated (CO-RE against
one kernel's BTF, tp_btf attach ids found), so loading it parses neither ELF nor BTF.

An image depends on the object file, on the kernel whose BTF it was relocated against and
on this loader's code: ``tracekit.kernel.bootcache`` keeps one per boot under those keys.
Map fds are the only thing left to patch at load: ``ProgImage.map_fds`` names the
``ld_imm64`` instructions that take one (their ``src_reg`` and, for global data, the value
offset already set)::

    ELF ─ read_object ─> ObjectSpec ─ BpfObject.build_image(vmlinux) ─> ObjectImage
                                                                          │ (cached per boot)
                          BpfObject.from_image(image) ─ load(): maps, then progs <─┘
"""

from __future__ import annotations

import msgspec

__all__ = ["MapImage", "ObjectImage", "ProgImage", "VarImage"]


class MapImage(msgspec.Struct, frozen=True, array_like=True):
    """A map as BPF_MAP_CREATE takes it (sizes in bytes); ``data`` is the initial value of a
    global-data map (``.rodata``/``.data``/``.bss``: the whole section), else None."""

    name: str
    map_type: int
    key_size: int
    value_size: int
    max_entries: int
    map_flags: int
    sec: str                      # ".maps" or the data section's name
    btf_key_type_id: int          # in the object's BTF; 0: none
    btf_value_type_id: int
    data: bytes | None


class VarImage(msgspec.Struct, frozen=True, array_like=True):
    """A global variable: ``size`` bytes at ``offset`` of section ``sec``; ``fmt`` is its
    ``struct`` format when it reads as an int (INT, bool, ENUM of 1/2/4/8 bytes), else
    None (bytes)."""

    name: str
    sec: str
    offset: int
    size: int
    fmt: str | None


class ProgImage(msgspec.Struct, frozen=True, array_like=True):
    """One prog, linked and relocated: ``insns`` (8-byte ``struct bpf_insn``) need only the
    map fds written into the ``imm`` of each ``ld_imm64`` in ``map_fds`` (byte offset of
    the instruction, map name). ``func_info``/``line_info`` are the kernel's records
    (insn indices), passed when the object's BTF loaded."""

    name: str
    sec: str
    insns: bytes
    map_fds: tuple[tuple[int, str], ...]
    attach_btf_id: int            # vmlinux id of btf_trace_<tp> for tp_btf, else 0
    func_info: bytes
    func_info_rec_size: int
    line_info: bytes
    line_info_rec_size: int


class ObjectImage(msgspec.Struct, frozen=True, array_like=True):
    """Everything :meth:`BpfObject.load <tracekit.bpf.object.BpfObject.load>` needs.

    ``btf`` is the object's BTF ready for BPF_BTF_LOAD (DATASEC sizes and offsets fixed),
    or empty when it could not be prepared (``btf_error`` says why; progs then load
    without func/line info, as libbpf does)."""

    license: str
    btf: bytes
    btf_error: str
    maps: tuple[MapImage, ...]
    globals: tuple[VarImage, ...]
    progs: tuple[ProgImage, ...]
