"""Find the tracefs mount (mounting it when absent, as perf does).

The loader needs it for a classic tracepoint's event id; the kernel-facts layer
(:mod:`tracekit.kernel.tracefs`) reads ``format`` files under the same root. Nothing here
writes to tracefs.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from pathlib import Path

from tracekit._errors import TracefsError

__all__ = ["DEBUGFS_TRACING", "TRACEFS", "find_tracefs"]

TRACEFS = Path("/sys/kernel/tracing")
DEBUGFS_TRACING = Path("/sys/kernel/debug/tracing")

_libc = ctypes.CDLL(None, use_errno=True)


def find_tracefs(*, mount_if_missing: bool = True) -> Path:
    """Return the tracefs mount, mounting it at /sys/kernel/tracing when absent.

    Looks at ``/sys/kernel/tracing`` then ``/sys/kernel/debug/tracing``; a candidate counts
    when it has ``events/``. Otherwise mounts tracefs as perf does
    (``mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)``, tools/lib/api/fs/fs.c).

    Raises:
      TracefsError: no tracefs and ``mount_if_missing`` is False (ENOENT), or mount(2)
        failed with its errno (EPERM: root, or CAP_SYS_ADMIN, is needed).
    """
    return _find_tracefs((TRACEFS, DEBUGFS_TRACING), TRACEFS, mount_if_missing=mount_if_missing)


def _find_tracefs(candidates: tuple[Path, ...], mount_point: Path, *,
                  mount_if_missing: bool) -> Path:
    for path in candidates:
        try:
            found = stat.S_ISDIR(os.stat(path / "events").st_mode)
        except FileNotFoundError:
            continue
        except OSError as e:
            # tracefs is mode 0700: a user without root meets EACCES here
            raise TracefsError(str(path / "events"), e.errno or errno.EIO,
                               "cannot read tracefs") from e
        if found:
            return path
    if not mount_if_missing:
        raise TracefsError(str(mount_point), errno.ENOENT,
                           "tracefs is not mounted (looked in "
                           + ", ".join(str(p) for p in candidates) + ")")
    ret = _libc.mount(b"nodev", os.fsencode(mount_point), b"tracefs", 0, None)
    if ret < 0:
        err = ctypes.get_errno()
        detail = "mount tracefs failed"
        if err == errno.EPERM:
            detail += ": needs root (CAP_SYS_ADMIN) to mount tracefs"
        raise TracefsError(str(mount_point), err, detail)
    if not (mount_point / "events").is_dir():
        raise TracefsError(str(mount_point / "events"), errno.ENOENT,
                           "tracefs mounted but has no events/ (kernel without CONFIG_FTRACE?)")
    return mount_point
