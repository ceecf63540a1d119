"""Stacks: unwinding and naming the frames the BPF side took at a call's entry (issue 18).

What a ``struct tk_stack`` record holds (programs/syscalls.h): the kernel's frame-pointer
walk of the user stack (the ip, then a return address per frame pointer), the user
registers sp, fp (and lr on arm64) at entry, the first 1 KiB of the user stack from sp,
and the kernel stack. Turning that into named frames::

    ip, sp, fp ── CFI (.eh_frame, pyelftools) ──► caller's ip, sp, fp ── ... (exact, over
        the stack copy)                                                  the 1 KiB copy)
      └─ where the copy ends: the kernel's frame-pointer walk goes on from the frame whose
         frame pointer is the fp it started from (the same chain: spliced exactly)
    each ip ── /proc/<pid>/maps snapshot ──► file, offset ── ELF symbols ──► name+0x..

Some facts about user stacks at a syscall: the frame that enters the kernel is a libc
wrapper, which keeps no frame pointer (glibc is built without them) and often uses rbp as
a scratch register (``open``, ``read``: the cancellation-aware ones). A frame-pointer
walk from the registers then skips the wrapper's caller, or stops at once. The wrapper's
CFI says where its return address and the caller's saved rbp are; both are in the first
few hundred bytes of the stack, which the record carries. So the caller and the frames
above it are found exactly, without guessing, as far as the copy reaches; then the
kernel's walk, when it walked the same chain.

Naming: a frame is named by the function that holds it in the file's ``.symtab`` (or its
debug file's: ``/usr/lib/debug/.build-id/xx/yyyy.debug``, or the ``.gnu_debuglink`` name
under ``/usr/lib/debug``), else ``.dynsym``; a frame no symbol holds keeps its module and
offset and no name (never the nearest symbol before it). Kernel frames: ``/proc/kallsyms``
(the kernel's own rule: a symbol runs to the next one). Anonymous executable memory:
``/tmp/perf-<pid>.map`` when the process writes one (Python 3.12+ with ``-X perf``, JITs).

Maps snapshots are taken early, because a process that has exited has none: at an exec
(the new image), at a process's first stack, after each mmap, munmap or mprotect the
trace shows, and once more when a frame falls outside every known mapping (calls that
change mappings may not be traced).
"""

from __future__ import annotations

import bisect
import io
import logging
import os
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from tracekit._events import Exec, Exit, Fork, Frame, RawStack, Syscall
from tracekit.kernel.arch import machine_arch
from tracekit.kernel.procmaps import Mapping, ProcMaps, read_maps

__all__ = ["ElfModule", "Kallsyms", "PerfMap", "Symbolizer", "shallow_advice", "unmapped_advice"]

log = logging.getLogger("tracekit.stacks")

_MAX_FRAMES = 127
_MAX_MODULES = 256                  # ELF files kept open (parsed) at once
_STT_FUNC = ("STT_FUNC", "STT_GNU_IFUNC")
_BINDING_RANK = {"STB_GLOBAL": 0, "STB_WEAK": 1}     # then everything else (LOCAL)

# DWARF register numbers (x86-64 psABI 3.6.2; AArch64 DWARF ABI): sp, fp, return address
_REGS = {"x86_64": (7, 6, 16), "arm64": (31, 29, 30)}

# The mapping calls after which a process's maps snapshot is read again (native names).
MAP_CALLS = ("mmap", "munmap", "mprotect", "mremap", "execve", "execveat", "shmat", "shmdt")


@dataclass(frozen=True, slots=True)
class _Sym:
    """A function symbol; of those that hold an address, the one with the lowest
    ``(source, rank, index)`` names it: .dynsym before .symtab (exported names, as strace
    -k prints them: ``__open64`` rather than ``__libc_open64``), GLOBAL before WEAK before
    LOCAL, then the symbol table's order."""

    start: int
    end: int
    rank: int
    index: int
    name: str


@dataclass(frozen=True, slots=True)
class _Rule:
    """One CFI row, simplified: CFA = reg + off; the return address, fp and lr saved at
    CFA + n (None: unchanged; ``ra_off`` None with ``outermost``: no caller)."""

    cfa_fp: bool            # CFA from the frame pointer (else from sp)
    cfa_off: int
    ra_off: int | None
    fp_off: int | None
    lr_off: int | None
    outermost: bool


class ElfModule:
    """One ELF file's symbols and call frame information (pyelftools).

    Args:
      path: the file (as the maps file names it).
      debug_root: where separate debug files are looked up (``/usr/lib/debug``).

    Raises:
      OSError: the file cannot be read. ``elftools`` errors: it is not ELF.
    """

    def __init__(self, path: str, debug_root: Path = Path("/usr/lib/debug")) -> None:
        from elftools.elf.elffile import ELFFile

        self.path = path
        data = Path(path).read_bytes()
        self._elf = ELFFile(io.BytesIO(data))
        self.loads = [(seg["p_offset"], seg["p_filesz"], seg["p_vaddr"])
                      for seg in self._elf.iter_segments() if seg["p_type"] == "PT_LOAD"]
        self.build_id = _build_id(self._elf)
        self.debug_file: str | None = None
        self.has_symtab = self._elf.get_section_by_name(".symtab") is not None
        syms: list[_Sym] = []
        if not self.has_symtab:
            debug = _debug_file(path, self._elf, self.build_id, debug_root)
            if debug is not None:
                try:
                    delf = ELFFile(io.BytesIO(Path(debug).read_bytes()))
                    syms += _symbols(delf, ".symtab")
                    self.debug_file = debug
                except (OSError, ValueError, Exception):  # noqa: BLE001 - a bad debug file
                    log.debug("debug file %s unreadable", debug)
        syms += _symbols(self._elf, ".symtab") + _symbols(self._elf, ".dynsym")
        syms.sort(key=lambda s: (s.start, s.rank, s.index))
        self._syms = syms
        self._starts = [s.start for s in syms]
        self._max_size = max((s.end - s.start for s in syms), default=0)
        self._fdes: list[tuple[int, int, Any]] | None = None
        self._fde_starts: list[int] = []
        self._rules: dict[int, _Rule | None] = {}
        self._tables: dict[int, list[tuple[int, _Rule | None]]] = {}

    # -- addresses -------------------------------------------------------------------

    def vaddr(self, file_offset: int) -> int | None:
        """The ELF virtual address of a file offset (the PT_LOAD segment holding it)."""
        for off, size, va in self.loads:
            if off <= file_offset < off + size:
                return file_offset - off + va
        return None

    def symbol(self, vaddr: int) -> tuple[str, int] | None:
        """``(name, vaddr - start)`` of the function that holds ``vaddr``, or None."""
        i = bisect.bisect_right(self._starts, vaddr)
        best: _Sym | None = None
        lo = bisect.bisect_left(self._starts, vaddr - self._max_size)
        for s in self._syms[lo:i]:
            if s.start <= vaddr < s.end and (best is None or (s.index >> 20, s.rank, s.index)
                                             < (best.index >> 20, best.rank, best.index)):
                best = s
        if best is None:
            return None
        return best.name, vaddr - best.start

    # -- call frame information --------------------------------------------------------

    def rule(self, vaddr: int) -> _Rule | None:
        """The unwinding rule at ``vaddr`` from ``.eh_frame``, or None (no FDE holds it,
        or the CFA is an expression)."""
        got = self._rules.get(vaddr, False)
        if got is not False:
            return got  # type: ignore[return-value]
        if len(self._rules) > 65536:
            self._rules.clear()
        rule = self._find_rule(vaddr)
        self._rules[vaddr] = rule
        return rule

    def _find_rule(self, vaddr: int) -> _Rule | None:
        if self._fdes is None:
            self._load_cfi()
        assert self._fdes is not None
        i = bisect.bisect_right(self._fde_starts, vaddr) - 1
        if i < 0:
            return None
        start, end, fde = self._fdes[i]
        if not start <= vaddr < end:
            return None
        rows = self._tables.get(start)
        if rows is None:
            rows = self._tables[start] = _decode_rows(fde)
        j = bisect.bisect_right([pc for pc, _ in rows], vaddr) - 1
        return rows[j][1] if j >= 0 else None

    def _load_cfi(self) -> None:
        from elftools.dwarf.callframe import FDE

        fdes: list[tuple[int, int, Any]] = []
        try:
            if self._elf.has_dwarf_info() or self._elf.get_section_by_name(".eh_frame"):
                dwarf = self._elf.get_dwarf_info(relocate_dwarf_sections=False)
                entries = dwarf.EH_CFI_entries() if dwarf.has_EH_CFI() else []
                for e in entries:
                    if not isinstance(e, FDE):
                        continue
                    lo = e.header["initial_location"]
                    fdes.append((lo, lo + e.header["address_range"], e))
        except Exception as e:  # noqa: BLE001 - malformed CFI: no unwinding through it
            log.debug("%s: unreadable .eh_frame: %s", self.path, e)
        fdes.sort(key=lambda t: t[0])
        self._fdes = fdes
        self._fde_starts = [t[0] for t in fdes]


def _build_id(elf: Any) -> str | None:
    for sec in elf.iter_sections():
        if sec["sh_type"] != "SHT_NOTE":
            continue
        for note in sec.iter_notes():
            if note["n_type"] == "NT_GNU_BUILD_ID":
                return str(note["n_desc"])
    return None


def _debug_file(path: str, elf: Any, build_id: str | None, root: Path) -> str | None:
    """The separate debug file of ``path``: by build id, then by ``.gnu_debuglink`` (gdb's
    search order: "Separate Debug Files" in the gdb manual)."""
    cands: list[Path] = []
    if build_id and len(build_id) > 2:
        cands.append(root / ".build-id" / build_id[:2] / f"{build_id[2:]}.debug")
    link = elf.get_section_by_name(".gnu_debuglink")
    if link is not None:
        name = link.data().split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        if name and "/" not in name:
            d = Path(path).parent
            cands += [d / name, d / ".debug" / name, root / d.relative_to("/") / name
                      if d.is_absolute() else root / name]
    for c in cands:
        if str(c) != path and c.is_file():
            return str(c)
    return None


def _symbols(elf: Any, section: str) -> list[_Sym]:
    sec = elf.get_section_by_name(section)
    if sec is None:
        return []
    # exported names (.dynsym) before internal ones (.symtab), as strace -k names them
    base = 0 if section == ".dynsym" else 1 << 20
    out = []
    for i, sym in enumerate(sec.iter_symbols()):
        if sym["st_info"]["type"] not in _STT_FUNC or not sym["st_size"] or not sym.name:
            continue
        if sym["st_shndx"] == "SHN_UNDEF":
            continue
        start = sym["st_value"]
        rank = _BINDING_RANK.get(sym["st_info"]["bind"], 2)
        out.append(_Sym(start, start + sym["st_size"], rank, base + i,
                        sym.name.split("@", 1)[0]))
    return out


def _decode_rows(fde: Any) -> list[tuple[int, _Rule | None]]:
    """The rows of one FDE as ``(pc, rule)``, for this machine's registers."""
    sp_reg, fp_reg, ra_reg = _REGS.get(machine_arch(), _REGS["x86_64"])
    try:
        table = fde.get_decoded().table
    except Exception:  # noqa: BLE001 - an FDE pyelftools cannot decode: no rule
        return []
    out: list[tuple[int, _Rule | None]] = []
    for row in table:
        cfa = row["cfa"]
        rule: _Rule | None = None
        if cfa.expr is None and cfa.reg in (sp_reg, fp_reg):
            ra = row.get(ra_reg)
            outermost = ra is not None and ra.type == "UNDEFINED"
            rule = _Rule(cfa.reg == fp_reg, cfa.offset, _offset(ra), _offset(row.get(fp_reg)),
                         _offset(row.get(30)) if machine_arch() == "arm64" else None,
                         outermost)
        out.append((row["pc"], rule))
    return out


def _offset(r: Any) -> int | None:
    return r.arg if r is not None and r.type == "OFFSET" else None


class Kallsyms:
    """``/proc/kallsyms`` text symbols, to name kernel frames (the kernel's own rule: a
    symbol runs up to the next one). Addresses read as 0 (not root, kptr_restrict): no
    names."""

    def __init__(self, path: str = "/proc/kallsyms") -> None:
        addrs: list[int] = []
        names: list[tuple[str, str]] = []
        try:
            with open(path, "rb") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) < 3 or parts[1] not in (b"t", b"T", b"w", b"W"):
                        continue
                    addr = int(parts[0], 16)
                    if not addr:
                        continue
                    mod = parts[3].strip(b"[]").decode() if len(parts) > 3 else "kernel.kallsyms"
                    addrs.append(addr)
                    names.append((parts[2].decode("utf-8", "surrogateescape"), f"[{mod}]"))
        except OSError:
            pass
        order = sorted(range(len(addrs)), key=addrs.__getitem__)
        self._addrs = [addrs[i] for i in order]
        self._names = [names[i] for i in order]

    def frame(self, ip: int) -> Frame:
        i = bisect.bisect_right(self._addrs, ip) - 1
        if i < 0 or i + 1 >= len(self._addrs):   # past the last text symbol: unknown end
            return Frame(ip, kernel=True, offset=ip)
        name, mod = self._names[i]
        return Frame(ip, True, mod, ip, name, ip - self._addrs[i])


class PerfMap:
    """``/tmp/perf-<pid>.map``: ``START SIZE name`` (hex) per line, written by JITs and by
    Python 3.12+ (``python -X perf``) for code in anonymous memory (perf's jit interface,
    tools/perf/Documentation/jit-interface.txt)."""

    def __init__(self, tgid: int, root: str = "/tmp") -> None:
        self.path = f"{root}/perf-{tgid}.map"
        self._stamp: tuple[int, int] | None = None
        self._starts: list[int] = []
        self._ents: list[tuple[int, int, str]] = []

    def lookup(self, ip: int) -> tuple[str, int] | None:
        self._refresh()
        i = bisect.bisect_right(self._starts, ip) - 1
        if i >= 0:
            start, end, name = self._ents[i]
            if ip < end:
                return name, ip - start
        return None

    def _refresh(self) -> None:
        try:
            st = os.stat(self.path)
        except OSError:
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        self._stamp = stamp
        ents = []
        try:
            with open(self.path, "rb") as f:
                for line in f:
                    parts = line.rstrip(b"\n").split(b" ", 2)
                    if len(parts) == 3:
                        try:
                            start, size = int(parts[0], 16), int(parts[1], 16)
                        except ValueError:
                            continue
                        ents.append((start, start + size,
                                     parts[2].decode("utf-8", "surrogateescape")))
        except OSError:
            return
        ents.sort()
        self._ents = ents
        self._starts = [e[0] for e in ents]


# Some facts about kernel stacks taken at sys_enter: the innermost frames are the
# tracer's own (the BPF program, bpf_trace_run<N>, __bpf_trace_sys_enter and, on some
# kernels, __traceiter_sys_enter); the call's own path starts at the function that runs
# the tracepoint (syscall_trace_enter on x86_64, el0_svc_common's callees on arm64).
_TRACER_PREFIXES = ("bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_")


def _without_tracer(frames: Iterable[Frame]) -> tuple[Frame, ...]:
    out = list(frames)
    i = 0
    while i < len(out) and (out[i].module == "[bpf]"
                            or out[i].symbol.startswith(_TRACER_PREFIXES)):
        i += 1
    return tuple(out[i:])


def shallow_advice(module: str, function: str) -> str:
    """The once-per-binary message for stacks cut at a frame-pointer-less function."""
    where = f" ({function})" if function else ""
    return (f"stacks through {module}{where} end early: it keeps no frame pointer, so "
            "they are unwound only as far as the 1 KiB of stack copied at each call; "
            "build it with -fno-omit-frame-pointer for whole stacks")


def unmapped_advice(tgid: int, *, partial: bool = False) -> str:
    """The once-per-process message for stacks with frames no mapping names: the process
    was gone before its maps were read (``partial``: read again, after it mapped more)."""
    what = ("frames in what it mapped after its exec print" if partial else
            "its frames print")
    return (f"stacks of process {tgid}: it exited before tracekit could read its memory "
            f"map (/proc/{tgid}/maps){' again' if partial else ''}, so {what} as "
            "[unknown]() [0x...]")


class Symbolizer:
    """Names the frames of stack records (a :class:`~tracekit._events.StackJoin`).

    Args:
      syscall_nrs: native syscall name -> number, for the calls that change mappings.
      proc: the procfs root. perf_map_root: where ``perf-<pid>.map`` files are.
      warn: called once per binary whose stacks are cut short (default: a warning on the
        ``tracekit.stacks`` logger).

    Attributes:
      shallow: ``{module: function}`` of the binaries said to keep no frame pointers.
    """

    def __init__(self, syscall_nr: Callable[[str], int | None], *,
                 proc: Path = Path("/proc"), perf_map_root: str = "/tmp",
                 debug_root: Path = Path("/usr/lib/debug"),
                 warn: Callable[[str], None] | None = None) -> None:
        self.map_nrs = frozenset(nr for n in MAP_CALLS if (nr := syscall_nr(n)) is not None)
        self.proc = proc
        self.perf_map_root = perf_map_root
        self.debug_root = debug_root
        self.warn = warn if warn is not None else log.warning
        self.shallow: dict[str, str] = {}
        self._maps: dict[int, ProcMaps] = {}
        self._stale: set[int] = set()
        self._modules: dict[str, ElfModule | None] = {}
        self._stamps: dict[str, tuple[int, int, int]] = {}
        self._perf: dict[int, PerfMap] = {}
        self._names: dict[tuple[str, int, int], tuple[str, int, str]] = {}
        self._unmapped: set[int] = set()    # processes said to have no maps at all
        self._kallsyms: Kallsyms | None = None
        self._sp, self._fp, self._ra = _REGS.get(machine_arch(), _REGS["x86_64"])

    # -- StackJoin ----------------------------------------------------------------------

    def exec(self, ev: Exec) -> None:
        """A new image: its maps now (the process may be gone at its first stack)."""
        self._snapshot(ev.tid)
        if ev.old_tid != ev.tid:
            self._maps.pop(ev.old_tid, None)

    def mapped(self, ev: Syscall) -> None:
        """A call that changes mappings: read them again, if this process has stacks."""
        if ev.tgid in self._maps:
            self._snapshot(ev.tgid)

    def exited(self, ev: Exit) -> None:
        """A process ended (its last thread; its records came before this one): its maps
        and perf map go (a command making thousands of short processes kept them all,
        some hundred KiB each)."""
        self._maps.pop(ev.tgid, None)
        self._stale.discard(ev.tgid)
        self._perf.pop(ev.tgid, None)

    def forked(self, ev: Fork) -> None:
        """A new process: its maps now, while it runs (naming an earlier stack may take
        a while: the first one of a library reads its symbols and CFI), else its
        parent's (the same mappings until it maps or execs anything)."""
        if ev.child_tgid == ev.parent_tgid:
            return                          # a thread: its process's maps
        if self._snapshot(ev.child_tgid) is None:
            parent = read_maps(ev.parent_tgid, self.proc) or self._maps.get(ev.parent_tgid)
            if parent is not None:
                self._maps[ev.child_tgid] = parent
                self._stale.add(ev.child_tgid)  # read again at its first stack

    def frames(self, raw: RawStack) -> tuple[Frame, ...]:
        kernel: tuple[Frame, ...] = ()
        if raw.kernel:
            if self._kallsyms is None:
                self._kallsyms = Kallsyms(str(self.proc / "kallsyms"))
            kernel = _without_tracer(self._kallsyms.frame(ip) for ip in raw.kernel)
        if not raw.user:
            return kernel
        maps = self._maps.get(raw.tgid)
        if maps is None or raw.tgid in self._stale:
            maps = self._snapshot(raw.tgid)
        cfas: list[int] = []
        ips = self._unwind(raw, maps, cfas)
        gone = maps is None
        if maps is not None and any(maps.find(ip) is None for ip in ips):
            fresh = self._snapshot(raw.tgid)          # a mapping the trace did not show
            if fresh is not None and fresh is not maps:
                maps = fresh
                ips = self._unwind(raw, maps, cfas)
            else:
                gone = True                           # the snapshot is all there is
        if gone and raw.tgid not in self._unmapped and any(ips):
            if len(self._unmapped) > 4096:
                self._unmapped.clear()
            self._unmapped.add(raw.tgid)
            self.warn(unmapped_advice(raw.tgid, partial=maps is not None))
        while len(ips) > 1 and ips[-1] == 0:
            ips.pop()       # the end of a frame-pointer chain, not a frame (strace -k)
        cut = _cut_loops(ips, raw, cfas)
        named = [self._name(raw.tgid, maps, ip, i == 0) for i, ip in enumerate(ips)]
        for i, n in cut.items():
            named[i] = msgspec.structs.replace(named[i], repeats=n)
        return kernel + tuple(named)

    # -- maps ---------------------------------------------------------------------------

    def _snapshot(self, tgid: int) -> ProcMaps | None:
        maps = read_maps(tgid, self.proc)
        self._stale.discard(tgid)
        if maps is not None:
            if len(self._maps) > 4096:
                self._maps.clear()
            self._maps[tgid] = maps
            return maps
        return self._maps.get(tgid)       # gone: the last snapshot is all there is

    def _module(self, path: str, inode: int = 0) -> ElfModule | None:
        """The ELF file at ``path``; None when it is none, or when ``inode`` (the mapped
        file's, from the maps) is not the inode there now: the mapped file was deleted
        or replaced (a rename over it), and another file's symbols would be wrong."""
        if not path.startswith("/"):
            return None
        try:
            st = os.stat(path)
            stamp = (st.st_dev, st.st_ino, st.st_mtime_ns)
        except OSError:
            return None
        if inode and st.st_ino != inode:
            return None
        if self._stamps.get(path) == stamp:
            return self._modules[path]
        if len(self._modules) >= _MAX_MODULES:
            self._modules.clear()
            self._stamps.clear()
            self._names.clear()
        try:
            mod: ElfModule | None = ElfModule(path, self.debug_root)
        except Exception as e:  # noqa: BLE001 - not ELF, unreadable: no names from it
            log.debug("%s: not read as ELF: %s", path, e)
            mod = None
        self._modules[path] = mod
        self._stamps[path] = stamp
        return mod

    # -- unwinding ----------------------------------------------------------------------

    def _rule_at(self, maps: ProcMaps | None, pc: int) -> tuple[_Rule | None, Mapping | None]:
        m = maps.find(pc) if maps is not None else None
        if m is None:
            return None, None
        mod = self._module(m.path, m.inode)
        if mod is None:
            return None, m
        va = mod.vaddr(m.file_offset(pc))
        return (mod.rule(va) if va is not None else None), m

    def _unwind(self, raw: RawStack, maps: ProcMaps | None, cfas: list[int]) -> list[int]:
        """The user frames: CFI over the stack copy, then the kernel's frame-pointer walk
        where it continues the same chain (module docstring). ``cfas`` is set to the
        frame address (CFA) of each frame CFI found the caller of: the frames ``ips[1:]``
        up to its length."""
        cfas.clear()
        top, base = raw.top, raw.sp

        def read(addr: int) -> int | None:
            off = addr - base
            if 0 <= off <= len(top) - 8:
                return int(struct.unpack_from("<Q", top, off)[0])
            return None

        pc, sp, fp, lr = raw.user[0], raw.sp, raw.fp, raw.lr
        ips = [pc]
        rule: _Rule | None = None
        for depth in range(_MAX_FRAMES - 1):
            # a return address is after the call: look up the call itself
            rule, m = self._rule_at(maps, pc if depth == 0 else pc - 1)
            if rule is None:
                if depth == 0:
                    return list(raw.user)      # no CFI (JIT code): the walk as it is
                return ips
            if rule.outermost:
                return ips
            cfa = (fp if rule.cfa_fp else sp) + rule.cfa_off
            if rule.ra_off is not None:
                ra = read(cfa + rule.ra_off)
            elif self._ra == 30 and depth == 0:
                ra = lr                        # arm64: a leaf's return address is in lr
            else:
                ra = None
            new_fp = read(cfa + rule.fp_off) if rule.fp_off is not None else fp
            if ra is None or new_fp is None:
                return self._splice(ips, rule, fp, raw, m)
            if ra == 0:
                return ips
            ips.append(ra)
            cfas.append(cfa)
            pc, sp, fp = ra, cfa, new_fp
            if rule.lr_off is not None:
                lr = read(cfa + rule.lr_off) or 0
        return ips

    def _splice(self, ips: list[int], rule: _Rule, fp: int, raw: RawStack,
                m: Mapping | None) -> list[int]:
        """The copy ended at the last frame of ``ips``. Its caller is the kernel walk's
        second frame when that frame's CFA is its frame pointer and that frame pointer is
        the one the kernel walk started from; else the stack ends here."""
        if rule.cfa_fp and rule.cfa_off == 16 and fp == raw.fp and len(raw.user) > 1:
            return ips + list(raw.user[1:])[:_MAX_FRAMES - len(ips)]
        if not rule.cfa_fp and m is not None and m.path not in self.shallow:
            name = self._name_of(m, ips[-1] - (1 if len(ips) > 1 else 0))
            self.shallow[m.path] = name
            self.warn(shallow_advice(m.path, name))
        return ips

    # -- naming -------------------------------------------------------------------------

    def _name_of(self, m: Mapping, addr: int) -> str:
        mod = self._module(m.path, m.inode)
        va = mod.vaddr(m.file_offset(addr)) if mod is not None else None
        got = mod.symbol(va) if mod is not None and va is not None else None
        return got[0] if got else ""

    def _name(self, tgid: int, maps: ProcMaps | None, ip: int, first: bool) -> Frame:
        m = maps.find(ip) if maps is not None else None
        if m is None:
            got = self._perf_lookup(tgid, ip)
            if got is not None:
                return Frame(ip, False, f"perf-{tgid}.map", ip, got[0], got[1])
            return Frame(ip)
        off = m.file_offset(ip)
        if not m.path.startswith("/"):
            if m.path == "" and m.executable:
                got = self._perf_lookup(tgid, ip)
                if got is not None:
                    return Frame(ip, False, f"perf-{tgid}.map", ip, got[0], got[1])
            return Frame(ip, False, m.path, off)
        key = (m.path, m.inode, off)
        named = self._names.get(key)
        if named is None:
            sym, symoff = "", 0
            mod = self._module(m.path, m.inode)
            if mod is not None:
                # a return address may be just past its call at a function's end
                look = off if first else off - 1
                va = mod.vaddr(look)
                got = mod.symbol(va) if va is not None else None
                if got is not None:
                    sym, symoff = got[0], got[1] + (off - look)
            if len(self._names) > 65536:
                self._names.clear()
            named = self._names[key] = (sym, symoff, _shown_path(m))
        return Frame(ip, False, named[2], off, named[0], named[1])

    def _perf_lookup(self, tgid: int, ip: int) -> tuple[str, int] | None:
        pm = self._perf.get(tgid)
        if pm is None:
            pm = self._perf[tgid] = PerfMap(tgid, self.perf_map_root)
        return pm.lookup(ip)


_MAX_SAME = 8      # consecutive frames of one address kept when nothing says it loops


def _fp_chain(raw: RawStack) -> tuple[bool | None, set[int]]:
    """The frame-pointer chain from the entry's fp, read over the stack copy: whether it
    comes back to a frame it has been at (a saved fp that points to itself or back: True),
    ends there (a 0 or a lower saved fp: False) or leaves the copy first (None: not
    known); and the return addresses that two or more of its frames hold (a recursion,
    each call at its own frame)."""
    top, base, fp = raw.top, raw.sp, raw.fp
    seen: set[int] = set()
    ras: set[int] = set()
    twice: set[int] = set()
    while True:
        off = fp - base
        if not 0 <= off <= len(top) - 16:
            return None, twice
        if fp in seen:
            return True, twice
        seen.add(fp)
        nxt, ra = struct.unpack_from("<QQ", top, off)
        if ra in ras:
            twice.add(ra)
        ras.add(ra)
        if nxt in seen:
            return True, twice
        if nxt == 0 or nxt < fp:
            return False, twice
        fp = nxt


def _cut_loops(ips: list[int], raw: RawStack, cfas: list[int]) -> dict[int, int]:
    """Cut the repetition of a frame-pointer walk that loops (a frame whose saved fp is
    itself, or code without frame pointers whose rbp points to such a word): the kernel
    walk then gives the same return address to its depth limit. A recursion gives the
    same return address in consecutive frames too, each at its own frame, so: a run is
    cut after its first frame (and the stack ends there) when the chain is seen to loop
    in the stack copy; kept whole when the copy shows two frames holding that address
    (a recursion: CFI gave them distinct frame addresses, ``cfas``, or the frame-pointer
    chain holds it twice) or the chain ending; else a run longer than ``_MAX_SAME`` keeps
    that many frames. ``ips`` is shortened in place; returns ``{index: frames cut after
    it}``."""
    cut: dict[int, int] = {}
    loops: bool | None = None
    recursions: set[int] = set()
    asked = False
    i = 1
    while i < len(ips):
        j = i
        while j + 1 < len(ips) and ips[j + 1] == ips[i]:
            j += 1
        run = j - i + 1
        if run > 1:
            if not asked:
                (loops, recursions), asked = _fp_chain(raw), True
                by_cfa: dict[int, set[int]] = {}
                for ip, cfa in zip(ips[1:], cfas, strict=False):
                    by_cfa.setdefault(ip, set()).add(cfa)
                recursions |= {ip for ip, at in by_cfa.items() if len(at) > 1}
            if loops:
                del ips[i + 1:]
                return cut
            if loops is None and run > _MAX_SAME and ips[i] not in recursions:
                keep = i + _MAX_SAME - 1
                cut[keep] = run - _MAX_SAME
                del ips[keep + 1:j + 1]
                i = keep + 1
                continue
        i = j + 1
    return cut


def _shown_path(m: Mapping) -> str:
    """The mapped file's path as strace -k shows it at the time: `` (deleted)`` added
    when the file now at the path is another (the mapped one was deleted, or replaced
    by a rename over it, after the maps were read)."""
    if m.path.endswith(" (deleted)") or not m.inode:
        return m.path
    try:
        if os.stat(m.path).st_ino == m.inode:
            return m.path
    except OSError:
        pass
    return m.path + " (deleted)"


def stack_frames(frames: Iterable[Frame], *, user: bool = True,
                 kernel: bool = True) -> list[Frame]:
    """The frames of a stack, kernel ones or user ones or both, innermost first."""
    return [f for f in frames if (kernel if f.kernel else user)]
