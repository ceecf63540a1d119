"""BpfObject, Map, Prog and Link: a loaded BPF ELF object and the kernel objects it owns.

libbpf nouns, Python verbs: ``BpfObject.open(path)`` parses (no kernel), ``obj.load()``
creates maps, relocates and loads programs, ``prog.attach()`` returns a :class:`Link`,
``obj.close()`` closes every fd. Every kernel object is owned by an fd and nothing is
pinned, so a killed process leaves nothing behind (kernel rule 9).

Lifecycle::

    open() ───────┬──> set globals / max_entries ──> load() ──> attach() ──> close()
    from_image() ─┘    (edits the object only)       maps,      links      links, then
                                                     then progs            progs, maps

``open()`` reads the ELF; ``load()`` then links and relocates each prog against the kernel's
BTF (:meth:`BpfObject.build_image`) before loading it. ``from_image()`` starts from an
:class:`~tracekit.bpf.image.ObjectImage` made earlier for this kernel (a per-boot cache:
``tracekit.kernel.bootcache``), so neither the ELF nor any BTF is parsed.
"""

from __future__ import annotations

import errno
import struct
import threading
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracekit._errors import AttachError, BtfError, ElfError, MapError, TracekitError
from tracekit.bpf import perf_event as _perf, sys as _bpf
from tracekit.bpf.image import MapImage, ObjectImage, ProgImage, VarImage
from tracekit.bpf.uapi import PERF_TYPE_TRACEPOINT, AttachType, MapType, ProgType

if TYPE_CHECKING:
    # The ELF reader (pyelftools) and the BTF parser are imported where an object is read
    # or relocated, not by a load from an image.
    from tracekit.bpf.btf import Btf
    from tracekit.bpf.elf import ObjectSpec, ProgSpec

INSN_SIZE = 8          # struct bpf_insn
R_BPF_64_64 = 1        # ELF relocation on an ld_imm64 (tracekit.bpf.elf)

_BPF_PSEUDO_MAP_FD = 1
_BPF_PSEUDO_MAP_VALUE = 2
_BPF_PSEUDO_CALL = 1
_LD_IMM64 = 0x18
_CALL = 0x85          # BPF_JMP | BPF_CALL
_PERCPU_TYPES = {MapType.PERCPU_HASH, MapType.PERCPU_ARRAY, MapType.LRU_PERCPU_HASH}
_BTF_REQUIRED = {MapType.TASK_STORAGE, MapType.INODE_STORAGE, MapType.SK_STORAGE,
                 MapType.CGRP_STORAGE}


def _kernel_name(name: str) -> str:
    """Kernel object names: at most 15 bytes of [A-Za-z0-9_.] (BPF_OBJ_NAME_LEN)."""
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name)[:15]


class Map:
    """A BPF map of a loaded object (or, before load, its spec).

    ``key_size``/``value_size`` are bytes; per-CPU maps take and return values of
    ``round_up(value_size, 8) * possible_cpus()`` bytes (kernel/bpf/syscall.c).
    Keys and values are raw bytes; callers pack them with ``struct``.
    """

    def __init__(self, obj: BpfObject | None, name: str, map_type: int, key_size: int,
                 value_size: int, max_entries: int, map_flags: int = 0) -> None:
        self._obj = obj
        self.name = name
        self.map_type = map_type
        self.key_size = key_size
        self.value_size = value_size
        self.max_entries = max_entries
        self.map_flags = map_flags
        self.fd = -1

    def __repr__(self) -> str:
        return (f"Map({self.name!r}, type={MapType(self.map_type).name}, key={self.key_size}, "
                f"value={self.value_size}, max_entries={self.max_entries}, fd={self.fd})")

    @classmethod
    def create(cls, name: str, map_type: int, key_size: int, value_size: int,
               max_entries: int, map_flags: int = 0) -> Map:
        """Create a standalone map (owned by the returned object; close() it)."""
        m = cls(None, name, map_type, key_size, value_size, max_entries, map_flags)
        m._create()
        return m

    def _create(self, btf_fd: int = -1, key_type_id: int = 0, value_type_id: int = 0) -> None:
        """BPF_MAP_CREATE; with the object's BTF when the map declares __type(key/value).

        Some facts about map BTF: it is optional for most map types but required for
        task/inode/sk storage (the kernel checks the value type); a kernel that rejects it
        (EINVAL) gets the map without it, as libbpf retries.
        """
        if self.fd >= 0:
            return
        if btf_fd >= 0 and key_type_id and value_type_id:
            try:
                self.fd = _bpf.map_create(
                    self.map_type, self.key_size, self.value_size, self.max_entries,
                    map_flags=self.map_flags, name=_kernel_name(self.name), btf_fd=btf_fd,
                    btf_key_type_id=key_type_id, btf_value_type_id=value_type_id)
                return
            except MapError as e:
                if e.errno != errno.EINVAL or self.map_type in _BTF_REQUIRED:
                    raise
        self.fd = _bpf.map_create(self.map_type, self.key_size, self.value_size,
                                  self.max_entries, map_flags=self.map_flags,
                                  name=_kernel_name(self.name))

    def _require_fd(self) -> int:
        if self.fd < 0:
            raise MapError("map access", errno.EBADF, f"map {self.name!r} is not loaded",
                           map_name=self.name)
        return self.fd

    @property
    def value_bytes(self) -> int:
        """Size of a value as seen from userspace, in bytes (per-CPU: all CPUs)."""
        if self.map_type in _PERCPU_TYPES:
            return (self.value_size + 7) // 8 * 8 * _bpf.possible_cpus()
        return self.value_size

    def lookup_elem(self, key: bytes) -> bytes | None:
        """The value for ``key``, or None when absent (ENOENT)."""
        return _bpf.map_lookup_elem(self._require_fd(), key, self.value_bytes,
                                    map_name=self.name)

    def __getitem__(self, key: bytes) -> bytes:
        value = self.lookup_elem(key)
        if value is None:
            raise KeyError(key)
        return value

    def update_elem(self, key: bytes, value: bytes, flags: int = 0) -> None:
        """Insert or replace; raises MapError (E2BIG when a preallocated map is full)."""
        _bpf.map_update_elem(self._require_fd(), key, value, flags, map_name=self.name)

    def push(self, value: bytes) -> None:
        """Push ``value`` on a queue or stack map; raises MapError (E2BIG when full)."""
        _bpf.map_update_elem(self._require_fd(), None, value, map_name=self.name)

    def lookup_and_delete(self, keys: list[bytes]) -> list[bytes | None]:
        """Delete each key of a hash map, one command each: the value each held when it
        went, or None when it was absent (Linux 5.14+)."""
        return _bpf.map_lookup_and_delete_elems(self._require_fd(), keys, self.value_bytes,
                                                map_name=self.name)

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.update_elem(key, value)

    def delete_elem(self, key: bytes) -> bool:
        """Delete ``key``; False when it was absent (ENOENT)."""
        return _bpf.map_delete_elem(self._require_fd(), key, map_name=self.name)

    def get_next_key(self, key: bytes | None) -> bytes | None:
        """The key after ``key`` (the first key when None); None at the end."""
        return _bpf.map_get_next_key(self._require_fd(), key, self.key_size,
                                     map_name=self.name)

    def keys(self) -> Iterator[bytes]:
        """Walk the keys with get_next_key (a concurrent delete may restart a hash walk)."""
        key = self.get_next_key(None)
        while key is not None:
            yield key
            key = self.get_next_key(key)

    def items(self, *, batch: int = 256, limit: int | None = None) -> list[tuple[bytes, bytes]]:
        """All (key, value) pairs, or the first ``limit`` in the map's order (an array's:
        index 0 up), with BPF_MAP_LOOKUP_BATCH, falling back to get_next_key on kernels or
        map types without batch support (EINVAL/ENOTSUPP)."""
        fd = self._require_fd()
        want = -1 if limit is None else limit
        out: list[tuple[bytes, bytes]] = []
        cursor: bytes | None = None
        try:
            while len(out) != want:
                count = batch if want < 0 else min(batch, want - len(out))
                keys, values, cursor = _bpf.map_lookup_batch(
                    fd, cursor, self.key_size, self.value_bytes, count, map_name=self.name)
                out.extend(zip(keys, values, strict=True))
                if cursor is None:
                    break
            return out
        except MapError as e:
            if e.errno not in (errno.EINVAL, errno.ENOTSUP, 524, errno.EOPNOTSUPP):
                raise
        out = []
        for key in self.keys():
            if len(out) == want:
                break
            value = self.lookup_elem(key)
            if value is not None:
                out.append((key, value))
        return out

    def freeze(self) -> None:
        _bpf.map_freeze(self._require_fd(), map_name=self.name)

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            _close(fd)

    def __enter__(self) -> Map:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Link:
    """An attachment of a prog to a hook; destroying it detaches. A context manager."""

    def __init__(self, fd: int, target: str, *, perf_fd: int = -1) -> None:
        self.fd = fd
        self.target = target
        self._perf_fd = perf_fd

    def __repr__(self) -> str:
        return f"Link({self.target!r}, fd={self.fd})"

    def destroy(self) -> None:
        """Detach and close (idempotent)."""
        for attr in ("fd", "_perf_fd"):
            fd = getattr(self, attr)
            if fd >= 0:
                setattr(self, attr, -1)
                _close(fd)

    close = destroy

    def __enter__(self) -> Link:
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()


class Prog:
    """A BPF program of an object. ``sec`` is its ELF section (``tp_btf/sys_enter``)."""

    def __init__(self, obj: BpfObject, name: str, sec: str,
                 spec: ProgSpec | None = None) -> None:
        self._obj = obj
        #: the prog as read from the ELF; None for an object made from an image
        self.spec = spec
        self.name = name
        self.sec = sec
        self.prog_type, self.attach_type, self.attach_name = _hook_of(sec, obj.path)
        self.fd = -1
        self.links: list[Link] = []
        #: Load this prog with the object (libbpf's autoload); set False before load to skip.
        self.autoload = True

    def __repr__(self) -> str:
        return f"Prog({self.name!r}, sec={self.sec!r}, fd={self.fd})"

    def attach(self, *, tracefs_root: Path | None = None) -> Link:
        """Attach to the hook named by the section.

        tp_btf and raw_tp progs attach through a raw tracepoint link
        (BPF_RAW_TRACEPOINT_OPEN returns a bpf_link fd); classic tracepoint progs through a
        perf event (PERF_TYPE_TRACEPOINT + PERF_EVENT_IOC_SET_BPF), with the tracepoint id
        read from tracefs.

        Raises:
          AttachError: with the kernel's errno and the target, e.g. ``raw_syscalls/sys_enter``.
        """
        if self.fd < 0:
            raise AttachError("attach", errno.EBADF, f"prog {self.name!r} is not loaded",
                              target=self.attach_name)
        if self.prog_type == ProgType.TRACING:
            fd = _bpf.raw_tracepoint_open(None, self.fd)
            link = Link(fd, self.attach_name)
        elif self.prog_type == ProgType.RAW_TRACEPOINT:
            fd = _bpf.raw_tracepoint_open(self.attach_name, self.fd)
            link = Link(fd, self.attach_name)
        else:  # classic tracepoint: one perf event on every CPU is not needed for BPF;
            # a single perf event with pid=-1, cpu=0 runs the prog for the tracepoint on all CPUs.
            from tracekit.bpf.tracefs import find_tracefs
            root = tracefs_root or find_tracefs()
            cat, _, name = self.attach_name.partition("/")
            tp_id = _perf.tracepoint_id(root, cat, name)
            pfd = _perf.perf_event_open(type=PERF_TYPE_TRACEPOINT, config=tp_id,
                                        sample_period=1, pid=-1, cpu=0)
            try:
                _perf.attach_bpf(pfd, self.fd, target=self.attach_name)
            except BaseException:
                _close(pfd)
                raise
            link = Link(pfd, self.attach_name)
        self.links.append(link)
        return link

    def close(self) -> None:
        for link in self.links:
            link.destroy()
        self.links.clear()
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            _close(fd)


def _hook_of(sec: str, path: str) -> tuple[int, int, str]:
    """(prog type, expected attach type, attach name) from a libbpf-style section name."""
    head, _, rest = sec.partition("/")
    if head == "tp_btf" and rest:
        return ProgType.TRACING, AttachType.TRACE_RAW_TP, rest
    if head in ("raw_tp", "raw_tracepoint") and rest:
        return ProgType.RAW_TRACEPOINT, 0, rest
    if head in ("tp", "tracepoint") and rest.count("/") == 1:
        return ProgType.TRACEPOINT, 0, rest
    raise ElfError(f"unsupported program section {sec!r} (expected tp_btf/NAME, raw_tp/NAME "
                   "or tracepoint/CATEGORY/NAME)", path=path, sec=sec)


class Globals(MutableMapping[str, Any]):
    """Global variables of an object by name, typed from BTF.

    Before load, setting a variable edits the section image that becomes the map's initial
    value (``const volatile`` knobs in ``.rodata`` are frozen at load, so the verifier
    prunes dead branches). After load, ``.data``/``.bss`` variables read the live map;
    ``.rodata`` can no longer be set.

    Integer, bool and enum variables read and write as ``int``; anything else as ``bytes``.
    """

    def __init__(self, obj: BpfObject) -> None:
        self._obj = obj

    def _var(self, name: str) -> VarImage:
        try:
            return self._obj._vars[name]
        except KeyError:
            raise KeyError(f"no global variable {name!r} in {self._obj.path}") from None

    def _section(self, sec: str) -> bytes | bytearray:
        m = self._obj.maps[sec]
        if m.fd >= 0 and sec != ".rodata":
            return m[b"\0\0\0\0"]
        return self._obj._data[sec]

    def __getitem__(self, name: str) -> Any:
        var = self._var(name)
        raw = bytes(self._section(var.sec)[var.offset:var.offset + var.size])
        return struct.unpack(var.fmt, raw)[0] if var.fmt else raw

    def __setitem__(self, name: str, value: Any) -> None:
        var = self._var(name)
        fmt = var.fmt
        try:
            raw = struct.pack(fmt, int(value)) if fmt else bytes(value)
        except struct.error as e:
            raise TracekitError(f"global {name}: {value!r} does not fit its {var.size}-byte "
                                f"type ({e})") from e
        if len(raw) != var.size:
            raise ValueError(f"{name}: {len(raw)} bytes given, the variable has {var.size}")
        m = self._obj.maps[var.sec]
        if m.fd >= 0:
            if var.sec == ".rodata":
                raise TracekitError(f"{name} is in .rodata, which is frozen once loaded")
            live = bytearray(m[b"\0\0\0\0"])
            live[var.offset:var.offset + var.size] = raw
            m.update_elem(b"\0\0\0\0", bytes(live))
        else:
            self._obj._data[var.sec][var.offset:var.offset + var.size] = raw

    def __delitem__(self, name: str) -> None:
        raise TypeError("global variables cannot be deleted")

    def __iter__(self) -> Iterator[str]:
        return iter(self._obj._vars)

    def __len__(self) -> int:
        return len(self._obj._vars)


class BpfObject:
    """A BPF ELF object: its maps, progs and global variables.

    Use as a context manager, or call :meth:`close`; closing destroys links, then progs,
    then maps.

    Attributes:
      spec: the object as read from the ELF (:meth:`open`); None when made
        :meth:`from_image`.
      image: what :meth:`load` loaded (or will load, when made :meth:`from_image`): the
        progs linked and relocated for this kernel; None before a load from the ELF.
    """

    def __init__(self, spec: ObjectSpec | None = None, *, image: ObjectImage | None = None,
                 path: str = "<image>") -> None:
        if (spec is None) == (image is None):
            raise TypeError("BpfObject takes an ObjectSpec or an ObjectImage")
        self.spec = spec
        self.image = image
        self.path = spec.path if spec is not None else path
        if spec is not None:
            maps = [(name, ms.map_type, ms.key_size, ms.value_size, ms.max_entries,
                     ms.map_flags) for name, ms in spec.maps.items()]
            self._data = {name: bytearray(ms.data) for name, ms in spec.maps.items()
                          if ms.data is not None}
            self._vars = _vars_of(spec)
            self.progs: dict[str, Prog] = {name: Prog(self, ps.name, ps.sec, ps)
                                           for name, ps in spec.progs.items()}
        else:
            assert image is not None
            maps = [(mi.name, mi.map_type, mi.key_size, mi.value_size, mi.max_entries,
                     mi.map_flags) for mi in image.maps]
            self._data = {mi.name: bytearray(mi.data) for mi in image.maps
                          if mi.data is not None}
            self._vars = {v.name: v for v in image.globals}
            self.progs = {pi.name: Prog(self, pi.name, pi.sec) for pi in image.progs}
        self.maps: dict[str, Map] = {m[0]: Map(self, *m) for m in maps}
        self.globals = Globals(self)
        self.btf_fd = -1
        #: Why the object's BTF was not loaded into the kernel (progs load without
        #: func/line info then), or None when it was.
        self.btf_load_error: BaseException | None = None
        self.loaded = False

    @classmethod
    def open(cls, source: str | Path | Traversable | bytes) -> BpfObject:
        """Parse an object file (no kernel calls).

        Raises:
          ElfError: the file is missing, not a BPF object, or malformed.
        """
        from tracekit.bpf.elf import read_object

        if isinstance(source, Traversable) and not isinstance(source, Path):
            try:
                data = source.read_bytes()
            except OSError as e:
                raise ElfError(f"cannot read: {e.strerror}", path=str(source)) from e
            spec = read_object(data)
            spec.path = str(source)
            return cls(spec)
        return cls(read_object(source))

    @classmethod
    def from_image(cls, image: ObjectImage, path: str = "<image>") -> BpfObject:
        """An object to load from ``image`` (made by :meth:`build_image` for the running
        kernel): nothing is parsed. ``path`` names it in errors."""
        return cls(image=image, path=path)

    def __repr__(self) -> str:
        return f"BpfObject({self.path!r}, maps={list(self.maps)}, progs={list(self.progs)})"

    def build_image(self, vmlinux: Btf | Callable[[], Btf] | None = None) -> ObjectImage:
        """Link and relocate every autoload prog for the kernel of ``vmlinux`` (no kernel
        calls): the :class:`~tracekit.bpf.image.ObjectImage` :meth:`load` loads.

        Args:
          vmlinux: the kernel's BTF, or a function returning it (called only when a prog
            has CO-RE relocations or is a tp_btf prog); default /sys/kernel/btf/vmlinux.

        Raises:
          ElfError: a call or relocation the loader cannot link.
          BtfError: a CO-RE relocation that cannot be resolved (names the type and field).
          AttachError: a tp_btf prog whose tracepoint the kernel lacks (ENOENT).
        """
        if self.image is not None:
            return self.image
        from tracekit.bpf.btf import Btf
        from tracekit.bpf.relo_core import fixup_datasec

        spec = self.spec
        assert spec is not None
        target: list[Btf] = []

        def kernel_btf() -> Btf:
            if not target:
                target.append(vmlinux if isinstance(vmlinux, Btf) else
                              vmlinux() if vmlinux is not None else Btf.vmlinux())
            return target[0]

        btf, btf_error = b"", ""
        try:
            fixup_datasec(spec.btf, spec.sec_sizes, spec.sym_offsets)
            btf = spec.btf.to_bytes()
        except (TracekitError, OSError) as e:
            btf_error = str(e)
        maps = tuple(MapImage(name, ms.map_type, ms.key_size, ms.value_size, ms.max_entries,
                              ms.map_flags, ms.sec, ms.btf_key_type_id, ms.btf_value_type_id,
                              None if ms.data is None else bytes(ms.data))
                     for name, ms in spec.maps.items())
        progs = tuple(self._prog_image(p, kernel_btf) for p in self.progs.values()
                      if p.autoload)
        return ObjectImage(spec.license or "GPL", btf, btf_error, maps,
                           tuple(self._vars.values()), progs)

    def load(self, *, vmlinux: Btf | None = None, log_level: int = 0,
             meanwhile: Callable[[], None] | None = None) -> None:
        """Create the maps, relocate and load every prog.

        The largest prog (by instructions) is loaded on a thread of its own while this
        thread loads the others and then calls ``meanwhile``: BPF_PROG_LOAD runs the
        verifier in the kernel without holding the GIL, so on a second CPU it takes no
        time from this thread. ``load`` returns (or raises) only when that thread is done.

        Args:
          vmlinux: the kernel's BTF (default: /sys/kernel/btf/vmlinux), the target of CO-RE
            relocations and of tp_btf attach ids; not read for an object made
            :meth:`from_image`.
          log_level: verifier log level for successful loads (failures always get a log).
          meanwhile: work that needs the maps (created, their initial data written) but
            not the progs, such as filling config maps; not called once a load failed.

        Raises:
          MapError, ProgLoadError (with ``.verifier_log``), BtfError (a CO-RE relocation that
          cannot be resolved names the type and field): the error of the first prog (in
          the object's order) whose load failed, as a load one by one raises it; else what
          ``meanwhile`` raised. On error every fd made so far is closed.
        """
        if self.loaded:
            raise TracekitError(f"{self.path} is already loaded")
        try:
            image = self.image = self.build_image(vmlinux)
            self._load_btf(image)
            map_btf = {mi.name: (mi.btf_key_type_id, mi.btf_value_type_id)
                       for mi in image.maps}
            for name, m in self.maps.items():
                m._create(self.btf_fd, *map_btf.get(name, (0, 0)))
                data = self._data.get(name)
                if data is not None:
                    m.update_elem(b"\0\0\0\0", bytes(data))
                    if name == ".rodata":
                        m.freeze()
            images = {pi.name: pi for pi in image.progs}
            todo: list[tuple[Prog, ProgImage]] = []
            for prog in self.progs.values():
                if prog.autoload:
                    if prog.name not in images:
                        raise TracekitError(f"{self.path}: prog {prog.name!r} is not in the "
                                            "image (it was built without it)")
                    todo.append((prog, images[prog.name]))
            self._load_progs(todo, image.license, log_level, meanwhile)
        except BaseException:
            self.close()
            raise
        self.loaded = True

    def _load_btf(self, image: ObjectImage) -> None:
        """Load the object's BTF for func/line info in verifier logs; optional as in libbpf."""
        if not image.btf:
            self.btf_load_error = TracekitError(f"{self.path}: the object's BTF could not "
                                                f"be prepared: {image.btf_error}")
            return
        try:
            self.btf_fd = _bpf.btf_load(image.btf)
        except (TracekitError, OSError) as e:
            self.btf_load_error = e

    def _link(self, spec: ProgSpec) -> tuple[bytearray, list[_Piece]]:
        """The prog's instructions followed by each ``.text`` function it reaches.

        Calls are re-pointed at the placed copies; a function is placed once per prog,
        and only functions reached from the prog are placed (the verifier rejects
        unreachable instructions)::

            prog sec:  [ entry ............ call ─┐ ]
            linked:    [ entry ............ call ─┼─> [ f (from .text) .. call ─> [ g ] ]
        """
        assert self.spec is not None
        out = bytearray(spec.insns)
        pieces = [_Piece(spec.sec, spec.sec_off, len(spec.insns), 0)]
        placed: dict[int, int] = {}        # .text function offset -> byte offset in `out`
        text_funcs = self.spec.funcs.get(".text", {})
        i = 0
        while i < len(pieces):             # pieces grow while we scan them
            piece = pieces[i]
            i += 1
            relocs = self.spec.code_relocs.get(piece.sec, {})
            for off in range(0, piece.size, INSN_SIZE):
                at = piece.dest + off
                if out[at] != _CALL or out[at + 1] >> 4 != _BPF_PSEUDO_CALL:
                    continue
                imm = struct.unpack_from("<i", out, at + 4)[0]
                r = relocs.get(piece.sec_off + off)
                if r is not None:
                    target_sec, target = r.sym_sec, r.sym_value + (imm + 1) * INSN_SIZE
                else:
                    target_sec, target = piece.sec, piece.sec_off + off + (imm + 1) * INSN_SIZE
                if target_sec == piece.sec and piece.sec_off <= target < piece.sec_off + piece.size:
                    continue               # a jump inside this piece: already relative
                func = next((f for f in text_funcs.values()
                             if f.sec_off <= target < f.sec_off + f.size), None)
                if target_sec != ".text" or func is None:
                    raise ElfError(f"prog {spec.name!r}: call at insn {at // INSN_SIZE} to "
                                   f"{target_sec}+{target} is not a .text function",
                                   path=self.path, sec=piece.sec)
                if func.sec_off not in placed:
                    placed[func.sec_off] = len(out)
                    out += self.spec.code[".text"][func.sec_off:func.sec_off + func.size]
                    pieces.append(_Piece(".text", func.sec_off, func.size, placed[func.sec_off]))
                dest = placed[func.sec_off] + target - func.sec_off
                struct.pack_into("<i", out, at + 4, (dest - at) // INSN_SIZE - 1)
        return out, pieces

    def _relocate_data(self, spec: ProgSpec, insns: bytearray, piece: _Piece,
                       map_fds: list[tuple[int, str]]) -> None:
        """ld_imm64 of maps and global data inside one piece: ``src_reg`` and the value
        offset are set here, the map's fd at load (``map_fds`` gets each one's byte offset
        and map name)."""
        assert self.spec is not None
        relocs = self.spec.code_relocs.get(piece.sec, {})
        for off in range(0, piece.size, INSN_SIZE):
            r = relocs.get(piece.sec_off + off)
            if r is None or r.rtype != R_BPF_64_64:
                continue
            i = piece.dest + off
            if insns[i] != _LD_IMM64:
                raise ElfError(f"prog {spec.name!r}: relocation at insn {i // INSN_SIZE} is "
                               "not on ld_imm64", path=self.path, sec=piece.sec)
            if r.sym_sec == ".maps":
                if r.sym_name not in self.spec.maps or self.spec.maps[r.sym_name].sec != ".maps":
                    raise ElfError(f"prog {spec.name!r} references unknown map {r.sym_name!r}",
                                   path=self.path, sec=piece.sec)
                insns[i + 1] = (insns[i + 1] & 0x0F) | (_BPF_PSEUDO_MAP_FD << 4)
                struct.pack_into("<i", insns, i + 4, 0)
                map_fds.append((i, r.sym_name))
            elif r.sym_sec in self.maps:
                imm = struct.unpack_from("<i", insns, i + 4)[0]
                insns[i + 1] = (insns[i + 1] & 0x0F) | (_BPF_PSEUDO_MAP_VALUE << 4)
                struct.pack_into("<i", insns, i + 4, 0)
                struct.pack_into("<i", insns, i + 12, r.sym_value + imm)
                map_fds.append((i, r.sym_sec))
            else:
                raise ElfError(f"prog {spec.name!r}: relocation against section "
                               f"{r.sym_sec!r} is not supported (function pointers and "
                               "externs are not)", path=self.path, sec=piece.sec)

    def _prog_image(self, prog: Prog, kernel_btf: Callable[[], Btf]) -> ProgImage:
        """Link ``prog`` with its subprograms, relocate its data references and CO-RE
        accesses, find its attach id (``btf_trace_<tp>`` for tp_btf)."""
        from tracekit.bpf.btf import Kind
        from tracekit.bpf.relo_core import apply_core_relos

        assert self.spec is not None and prog.spec is not None
        spec = prog.spec
        insns, pieces = self._link(spec)
        map_fds: list[tuple[int, str]] = []
        for piece in pieces:
            self._relocate_data(spec, insns, piece, map_fds)
        ext = self.spec.btf_ext
        if ext is not None:
            relos = [rel._replace(insn_off=p.dest + rel.insn_off - p.sec_off)
                     for p in pieces for rel in ext.core_relos.get(p.sec, [])
                     if p.sec_off <= rel.insn_off < p.sec_off + p.size]
            if relos:
                apply_core_relos(insns, relos, self.spec.btf, kernel_btf(),
                                 prog_name=spec.name)
        attach_btf_id = 0
        if prog.prog_type == ProgType.TRACING:
            try:
                attach_btf_id = kernel_btf().find("btf_trace_" + prog.attach_name,
                                                  Kind.TYPEDEF)
            except BtfError as e:
                raise AttachError("BPF_PROG_LOAD", errno.ENOENT,
                                  f"no BTF type btf_trace_{prog.attach_name} in vmlinux: the "
                                  "kernel has no such tracepoint", target=prog.attach_name) from e
        func_info = line_info = b""
        fi_size = li_size = 0
        if ext is not None:
            func_info, fi_size, line_info, li_size = _ext_info(ext, pieces)
        return ProgImage(spec.name, spec.sec, bytes(insns), tuple(map_fds), attach_btf_id,
                         func_info, fi_size, line_info, li_size)

    def _load_progs(self, todo: list[tuple[Prog, ProgImage]], license: str, log_level: int,
                    meanwhile: Callable[[], None] | None) -> None:
        """Load ``todo``'s progs, the largest on a thread (:meth:`load`); every fd made is
        in its ``prog.fd`` when this returns or raises, for :meth:`close`."""
        big, thread = -1, None
        failed: list[BaseException] = []    # the thread's error

        def load_big() -> None:
            try:
                self._load_prog(*todo[big], license, log_level)
            except BaseException as e:      # raised on the caller's thread below
                failed.append(e)

        if todo:
            big = max(range(len(todo)), key=lambda i: len(todo[i][1].insns))
            thread = threading.Thread(target=load_big, daemon=True,
                                      name=f"tracekit-load-{todo[big][0].name}")
            thread.start()
        here, here_at = None, len(todo)     # this thread's error, and the prog it loaded
        try:
            for i, (prog, pi) in enumerate(todo):
                if i != big and not failed:     # after a failure, load no more
                    here_at = i
                    self._load_prog(prog, pi, license, log_level)
            here_at = len(todo)
            if meanwhile is not None and not failed:
                meanwhile()
        except BaseException as e:
            here = e
        if thread is not None:
            _join(thread)
        if failed and (here is None or (isinstance(here, Exception) and big < here_at)):
            raise failed[0]
        if here is not None:
            raise here

    def _load_prog(self, prog: Prog, pi: ProgImage, license: str, log_level: int) -> None:
        insns = bytearray(pi.insns)
        for at, map_name in pi.map_fds:
            struct.pack_into("<i", insns, at + 4, self.maps[map_name].fd)
        with_btf = self.btf_fd >= 0 and bool(pi.func_info)
        prog.fd = _bpf.prog_load(
            prog.prog_type, bytes(insns), license,
            name=_kernel_name(pi.name), expected_attach_type=prog.attach_type,
            attach_btf_id=pi.attach_btf_id,
            prog_btf_fd=self.btf_fd if self.btf_fd >= 0 else 0,
            func_info=pi.func_info if with_btf else b"",
            func_info_rec_size=pi.func_info_rec_size if with_btf else 0,
            line_info=pi.line_info if with_btf else b"",
            line_info_rec_size=pi.line_info_rec_size if with_btf else 0, log_level=log_level)

    def attach_all(self) -> list[Link]:
        """Attach every loaded prog; on error detach what was attached and re-raise.

        Raises:
          TracekitError: the object is not loaded, or its progs are attached already
            (a second set of links would record every event twice).
        """
        if not self.loaded:
            raise TracekitError(f"{self.path}: load() it before attaching")
        if any(p.links for p in self.progs.values()):
            raise TracekitError(f"{self.path}: already attached")
        links: list[Link] = []
        try:
            for prog in self.progs.values():
                if prog.fd >= 0:
                    links.append(prog.attach())
        except BaseException:
            for link in links:
                link.destroy()
            raise
        return links

    def close(self) -> None:
        """Destroy links, close progs, maps and the BTF fd (idempotent)."""
        for prog in self.progs.values():
            prog.close()
        for m in self.maps.values():
            m.close()
        if self.btf_fd >= 0:
            fd, self.btf_fd = self.btf_fd, -1
            _close(fd)
        self.loaded = False

    def __enter__(self) -> BpfObject:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _vars_of(spec: ObjectSpec) -> dict[str, VarImage]:
    """Each global variable's place, and its ``struct`` format when it reads as an int."""
    from tracekit.bpf.btf import Kind

    btf = spec.btf
    out: dict[str, VarImage] = {}
    for name, var in spec.globals.items():
        t = btf.type(btf.resolve(var.type_id))
        fmt = None
        if t.kind in (Kind.INT, Kind.ENUM, Kind.ENUM64) and var.size in (1, 2, 4, 8):
            # BTF_INT_SIGNED is bit 0 of an INT's encoding; an ENUM's kind_flag means signed.
            signed = bool(t.int_encoding & 1) if t.kind == Kind.INT else t.kind_flag
            code = {1: "b", 2: "h", 4: "i", 8: "q"}[var.size]
            fmt = "<" + (code if signed else code.upper())
        out[name] = VarImage(name, var.sec, var.offset, var.size, fmt)
    return out


@dataclass
class _Piece:
    """Code copied into a linked prog: ``size`` bytes from ``sec`` at ``sec_off``, placed
    at byte ``dest`` of the prog."""

    sec: str
    sec_off: int
    size: int
    dest: int


def _ext_info(ext: Any, pieces: list[_Piece]) -> tuple[bytes, int, bytes, int]:
    """func_info/line_info records of a linked prog, insn offsets rebased to where each
    piece was placed and in instructions (the kernel wants insn indices; .BTF.ext stores
    byte offsets)."""
    fi_raw, li_raw = bytearray(), bytearray()
    for p in pieces:
        lo, hi = p.sec_off, p.sec_off + p.size
        for off, tid in ext.func_info.get(p.sec, []):
            if lo <= off < hi:
                fi_raw += struct.pack("<II", (p.dest + off - lo) // INSN_SIZE, tid)
        for off, f, ln, col in ext.line_info.get(p.sec, []):
            if lo <= off < hi:
                li_raw += struct.pack("<IIII", (p.dest + off - lo) // INSN_SIZE, f, ln, col)
    if not fi_raw:
        return b"", 0, b"", 0
    return bytes(fi_raw), 8, bytes(li_raw), 16 if li_raw else 0


def _join(thread: threading.Thread) -> None:
    """Wait for ``thread`` to end, through KeyboardInterrupts (raised after it ended): the
    fds it makes must be recorded before anything closes the object."""
    interrupted: BaseException | None = None
    while thread.is_alive():
        try:
            thread.join()
        except KeyboardInterrupt as e:
            interrupted = e
    if interrupted is not None:
        raise interrupted


def _close(fd: int) -> None:
    import os
    try:
        os.close(fd)
    except OSError as e:  # EBADF means a bookkeeping bug: surface it
        if e.errno != errno.EINTR:
            raise
