"""``/proc/<pid>/maps``: a process's mappings, to name the addresses of its stacks.

Line layout (fs/proc/task_mmu.c ``show_map_vma``; proc_pid_maps(5))::

    7f2c1a400000-7f2c1a428000 r--p 00000000 fe:01 1837284    /usr/lib/x86_64-linux-gnu/libc.so.6
    start-end perms offset dev inode [path]

The path is what the kernel prints: ``\\n`` in a file name is written as ``\\012``, a
deleted file ends in `` (deleted)``, pseudo mappings are ``[heap]``, ``[stack]``,
``[vdso]``, ``[vsyscall]``; anonymous mappings have none.
"""

from __future__ import annotations

import bisect
import errno
from dataclasses import dataclass, field
from pathlib import Path

from tracekit._errors import TracefsError

__all__ = ["Mapping", "ProcMaps", "parse_maps", "read_maps"]


@dataclass(frozen=True, slots=True)
class Mapping:
    """One line of ``/proc/<pid>/maps``."""

    start: int          # first address (inclusive)
    end: int            # last address + 1
    perms: str          # "r-xp"
    offset: int         # offset in the file of ``start`` (bytes)
    inode: int          # 0 for anonymous and pseudo mappings
    path: str           # as the kernel prints it; "" for anonymous memory

    @property
    def executable(self) -> bool:
        return "x" in self.perms

    def file_offset(self, addr: int) -> int:
        """The offset in the mapped file of ``addr`` (strace -k's ``[0x...]``)."""
        return addr - self.start + self.offset


@dataclass(frozen=True)
class ProcMaps:
    """A snapshot of one process's mappings, sorted by address."""

    mappings: tuple[Mapping, ...]
    _starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._starts.extend(m.start for m in self.mappings)

    def find(self, addr: int) -> Mapping | None:
        """The mapping that holds ``addr``, or None."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0:
            m = self.mappings[i]
            if addr < m.end:
                return m
        return None

    def first_of(self, path: str) -> Mapping | None:
        """The lowest mapping of the file ``path`` (where its ELF header is mapped)."""
        for m in self.mappings:
            if m.path == path:
                return m
        return None


def parse_maps(text: str) -> ProcMaps:
    """Parse the text of a maps file (lines it cannot read are skipped)."""
    out = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5:
            continue
        try:
            lo, hi = parts[0].split("-", 1)
            out.append(Mapping(int(lo, 16), int(hi, 16), parts[1], int(parts[2], 16),
                               int(parts[4]), parts[5].strip() if len(parts) > 5 else ""))
        except ValueError:
            continue
    out.sort(key=lambda m: m.start)
    return ProcMaps(tuple(out))


def read_maps(tgid: int, root: Path = Path("/proc")) -> ProcMaps | None:
    """The mappings of process ``tgid`` now, or None when it is gone or has none (a zombie
    has released its memory) or is not ours to read (ENOENT, ESRCH, EACCES, EPERM).

    Raises:
      TracefsError: any other error of the read.
    """
    path = root / str(tgid) / "maps"
    try:
        text = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ESRCH, errno.EACCES, errno.EPERM):
            return None
        raise TracefsError(str(path), e.errno or errno.EIO, "read of a maps file") from e
    maps = parse_maps(text)
    return maps if maps.mappings else None
