"""cgroup v2 targets: a cgroup directory -> the id and level the BPF filter compares.

# Some facts about cgroup v2 ids (kernel/cgroup/cgroup.c, fs/kernfs)

- A cgroup's id is its kernfs node id, which is the inode number of its directory on a
  cgroup2 mount (``stat -c %i``) on 64-bit kernels; ``bpf_get_current_cgroup_id`` and
  ``bpf_get_current_ancestor_cgroup_id`` return the same number.
- The level of the root cgroup is 0; each directory below adds one. A task in cgroup C
  or any of C's descendants has C as its ancestor at C's level.
- The helpers read the default (v2) hierarchy. On a hybrid system (v1 controllers in
  ``/sys/fs/cgroup/<ctrl>``, v2 at ``/sys/fs/cgroup/unified``) only a directory of the
  cgroup2 mount names a cgroup the helpers can see; ``0::/path`` in
  ``/proc/<pid>/cgroup`` is the task's v2 cgroup relative to that mount.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tracekit._errors import TargetError

__all__ = ["CgroupTarget", "cgroup2_mounts", "cgroup_tgids", "resolve_cgroup"]

@dataclass(frozen=True)
class CgroupTarget:
    """A cgroup v2 directory as the BPF filter sees it.

    Attributes:
      path: the directory, resolved (no symlinks).
      cgroup_id: its kernfs id (the directory's inode number).
      level: its depth below the root of the cgroup2 mount (root: 0).
    """

    path: str
    cgroup_id: int
    level: int


def cgroup2_mounts(mountinfo: str = "/proc/self/mountinfo") -> list[tuple[str, str]]:
    """``(mount point, root inside the hierarchy)`` of every cgroup2 mount (proc(5),
    /proc/pid/mountinfo: field 4 is the root, field 5 the mount point; the filesystem
    type follows the `` - `` separator)."""
    out = []
    with open(mountinfo, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            head, _, tail = line.partition(" - ")
            if tail.split(" ", 1)[0] != "cgroup2":
                continue
            fields = head.split(" ")
            out.append((_unescape(fields[4]), _unescape(fields[3])))
    return out


def _unescape(field: str) -> str:
    """mountinfo's octal escapes (``\\040`` for a space) undone."""
    if "\\" not in field:
        return field
    return field.encode("latin-1", "surrogateescape").decode("unicode_escape")


def resolve_cgroup(path: str, *, mountinfo: str = "/proc/self/mountinfo") -> CgroupTarget:
    """The id and level of the cgroup v2 directory ``path``.

    Raises:
      TargetError: the path does not exist or is not a directory (with its errno name), or
        it is not on a cgroup2 mount (a v1 hierarchy, another filesystem): the message
        names the cgroup2 mount points there are.
    """
    try:
        real = os.path.realpath(path, strict=True)
        st = os.stat(real)
    except OSError as e:
        name = errno.errorcode.get(e.errno or 0, "?")
        raise TargetError(f"cgroup {path!r}: {e.strerror} ({name})") from e
    if not stat.S_ISDIR(st.st_mode):
        raise TargetError(f"cgroup {path!r} is not a directory (ENOTDIR)")
    mounts = cgroup2_mounts(mountinfo)
    best: tuple[str, str] | None = None
    for point, root in mounts:
        if (real == point or real.startswith(point.rstrip("/") + "/")) and (
                best is None or len(point) > len(best[0])):
            best = (point, root)
    if best is None:
        where = ", ".join(p for p, _ in mounts) or "none is mounted"
        raise TargetError(f"cgroup {path!r} is not a cgroup v2 directory (cgroup2 mounts: "
                          f"{where})")
    point, root = best
    rel = Path(real).relative_to(point)
    inside = Path(root) / rel                    # the path in the whole hierarchy
    level = len([p for p in inside.parts if p != "/"])
    return CgroupTarget(path=real, cgroup_id=st.st_ino, level=level)



def cgroup_tgids(path: str) -> list[int]:
    """The processes (tgids, init pid namespace as tracekit reads them) of the cgroup v2
    directory ``path`` and of every cgroup below it, now: each ``cgroup.procs``.

    A cgroup removed while it is walked is stepped over (ENOENT, ENODEV: its files are
    gone); a process may leave or join meanwhile, as for any /proc read.

    Raises:
      OSError: a ``cgroup.procs`` could not be read for another reason.
    """
    out: set[int] = set()
    for top, _dirs, _ in os.walk(path, onerror=_skip_gone):
        try:
            with open(os.path.join(top, "cgroup.procs"), encoding="ascii") as f:
                out.update(int(line) for line in f if line.strip())
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ENODEV):
                raise
    return sorted(out)


def _skip_gone(e: OSError) -> None:
    if e.errno not in (errno.ENOENT, errno.ENODEV):
        raise e
