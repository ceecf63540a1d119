"""A per-boot cache of what depends only on the running kernel: the tracer object's load
image (its progs linked and relocated against this kernel's BTF, the tp_btf attach ids)
and the syscalls' argument layouts read from tracefs.

Building them takes most of a start-up (parsing the ELF object and the kernel's 5 MB of
BTF, reading some 370 tracefs ``format`` files); the answers change only with the kernel,
the object and tracekit itself, so they are kept for the rest of the boot.

Where: ``/run/tracekit/`` for root, else ``$XDG_RUNTIME_DIR/tracekit/`` (none without
it); ``$TRACEKIT_CACHE_DIR`` names another directory, or turns the cache off when set
to ``off``. Both are tmpfs on systemd machines: gone at the next boot.

Each entry is one file, ``<name>.<hash of its key>.cache``: tracekits of other builds
(two checkouts, a venv and a system install) keep entries of their own rather than
rebuild each other's at every start; a write removes the oldest beyond
:data:`KEEP` of one name. The file holds::

    msgpack [format, key, digest, payload]
      key:     boot id (/proc/sys/kernel/random/boot_id), kernel release and build
               (uname -r, -v), machine, tracekit's version, a stamp of the code that
               built the entry (size and mtime of its modules), the entry's own parts
               (the object's SHA-256)
      digest:  BLAKE2b-256 of payload
      payload: msgpack of the entry (a msgspec type)

An entry is used only when its key equals the one computed now and its digest matches;
the payload is then decoded with type validation. Anything else (stale, truncated,
flipped bits, another format, wrong type) is never trusted: the entry is rebuilt and
written again. A cache that another user could have written is not read at all: the
directory must be a real directory (no symlink) owned by this user with no group or
other access, the file a regular file owned by this user, mode 0600. Writes go to a new
0600 file in the same directory, renamed over the old one (atomic: a reader sees the old
entry or the new one; two tracekits writing at once both write whole entries).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import msgspec

__all__ = ["FORMAT", "KEEP", "boot_key", "cache_dir", "cached", "code_stamp", "entry_path",
           "load", "store"]

log = logging.getLogger("tracekit.bootcache")

FORMAT = 1                      # of the file; another one is stale
KEEP = 8                        # entries of one name kept (other keys: other builds)
T = TypeVar("T")

_ENV = "TRACEKIT_CACHE_DIR"
_PACKAGE = Path(__file__).resolve().parents[1]     # tracekit/


class _Entry(msgspec.Struct, array_like=True):
    format: int
    key: dict[str, str]
    digest: bytes
    payload: bytes


def cache_dir() -> Path | None:
    """The cache directory for this process (it may not exist yet), or None: no cache.

    ``$TRACEKIT_CACHE_DIR`` when set (``off`` or empty: no cache); else ``/run/tracekit``
    for root, ``$XDG_RUNTIME_DIR/tracekit`` for another user who has one.
    """
    env = os.environ.get(_ENV)
    if env is not None:
        return None if env in ("", "off") else Path(env)
    if os.geteuid() == 0:
        return Path("/run/tracekit")
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    return Path(xdg) / "tracekit" if xdg else None


_boot_key: dict[str, str] = {}


def boot_key() -> dict[str, str]:
    """What every entry depends on: this boot, this kernel build, this tracekit.

    ``boot_id`` is /proc/sys/kernel/random/boot_id (random, new at each boot: the kernel's
    drivers/char/random.c); ``release``, ``build`` and ``machine`` are uname(2)'s.
    """
    if not _boot_key:
        from tracekit._version import __version__

        try:
            with open("/proc/sys/kernel/random/boot_id") as f:
                boot_id = f.read().strip()
        except OSError:
            boot_id = ""
        u = os.uname()
        _boot_key.update(boot_id=boot_id, release=u.release, build=u.version,
                         machine=u.machine, tracekit=__version__)
    return dict(_boot_key)


def code_stamp(*modules: str) -> str:
    """A stamp of tracekit's own modules (paths under the package, ``"bpf/object.py"``):
    their sizes and mtimes, so an entry built by other code (an edited checkout, an
    upgrade that kept the version) is stale. Missing files stamp as missing."""
    h = hashlib.blake2b(digest_size=8)
    for rel in modules:
        try:
            st = os.stat(_PACKAGE / rel)
            h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns};".encode())
        except OSError:
            h.update(f"{rel}:-;".encode())
    return h.hexdigest()


def _secure_dir(path: Path, *, create: bool) -> bool:
    """Whether ``path`` is a directory only this user can write (made 0700 if missing and
    ``create``)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.makedirs(path.parent, mode=0o755, exist_ok=True)
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as e:
            log.debug("boot cache: cannot make %s: %s", path, e.strerror)
            return False
        return _secure_dir(path, create=False)
    except OSError:
        return False
    ok = (stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
          and not st.st_mode & 0o077)
    if not ok and path not in _warned:
        _warned.add(path)               # said once, not at each load and store
        log.warning("boot cache: %s is not a private directory of this user (owner uid %d, "
                    "mode %o): not used", path, st.st_uid, stat.S_IMODE(st.st_mode))
    return ok


# the directories already said to be unsafe
_warned: set[Path] = set()


def entry_path(name: str, key: Mapping[str, str], directory: Path) -> Path:
    """The file of the entry ``name`` stored under ``key`` in ``directory``."""
    h = hashlib.blake2b(msgspec.msgpack.encode(sorted(key.items())), digest_size=8)
    return directory / f"{name}.{h.hexdigest()}.cache"


def _prune(d: Path, name: str, kept: Path) -> None:
    """Remove the oldest entries of ``name`` beyond :data:`KEEP` (never ``kept``)."""
    try:
        others = []
        for p in d.glob(f"{name}.*.cache"):
            if p != kept and p.name.count(".") == name.count(".") + 2:
                others.append((p.lstat().st_mtime_ns, p))
        for _, p in sorted(others)[:max(0, len(others) - (KEEP - 1))]:
            p.unlink()
    except OSError as e:    # another tracekit pruned it first, or no access: harmless
        log.debug("boot cache: pruning %s: %s", name, e.strerror)


def load(name: str, key: Mapping[str, str], type: type[T], *,
         directory: Path | None = None) -> T | None:
    """The entry ``name`` when it was stored under exactly ``key`` and is intact, else None.

    Args:
      name: the entry's file stem (``syscalls-x86_64``).
      key: what the entry depends on (:func:`boot_key` and the entry's own parts).
      type: the payload's msgspec type (validated while decoding).
      directory: default :func:`cache_dir`.
    """
    d = directory if directory is not None else cache_dir()
    if d is None or not _secure_dir(d, create=False):
        return None
    path = entry_path(name, key, d)
    try:
        # O_NONBLOCK: an entry that is a FIFO must not block start-up in open(2) (it is
        # refused below, not a regular file)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as e:
        if e.errno != errno.ENOENT:
            log.debug("boot cache: %s: %s", path, e.strerror)
        return None
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid()
                or st.st_mode & 0o077):
            log.warning("boot cache: %s is not a private file of this user: not used", path)
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read()
    finally:
        os.close(fd)
    why = ""
    try:
        entry = msgspec.msgpack.decode(raw, type=_Entry)
    except msgspec.DecodeError as e:
        why = f"unreadable ({e})"
    else:
        if entry.format != FORMAT:
            why = f"format {entry.format}"
        elif entry.key != dict(key):
            why = "stale (" + ", ".join(sorted(k for k in set(entry.key) | set(key)
                                              if entry.key.get(k) != key.get(k))) + ")"
        elif hashlib.blake2b(entry.payload, digest_size=32).digest() != entry.digest:
            why = "corrupt (digest mismatch)"
        else:
            try:
                return msgspec.msgpack.decode(entry.payload, type=type)
            except msgspec.DecodeError as e:
                why = f"corrupt ({e})"
    log.debug("boot cache: %s %s: rebuilding it", path, why)
    return None


def store(name: str, key: Mapping[str, str], value: Any, *,
          directory: Path | None = None) -> bool:
    """Write the entry ``name`` under ``key`` (atomically, mode 0600); False when there is
    no usable cache directory or the write failed (logged at debug level: the cache is
    optional)."""
    d = directory if directory is not None else cache_dir()
    if d is None or not _secure_dir(d, create=True):
        return False
    payload = msgspec.msgpack.encode(value)
    raw = msgspec.msgpack.encode(_Entry(
        FORMAT, dict(key), hashlib.blake2b(payload, digest_size=32).digest(), payload))
    path = entry_path(name, key, d)
    tmp = d / f".{name}.{os.getpid()}.{os.urandom(4).hex()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        log.debug("boot cache: cannot write %s: %s", path, e.strerror)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    _prune(d, name, path)
    return True


def cached(name: str, key: Mapping[str, str], type: type[T], build: Callable[[], T], *,
           directory: Path | None = None) -> tuple[T, bool]:
    """The entry from the cache, else ``build()`` stored for next time.

    Returns:
      (the value, whether it came from the cache).
    """
    value = load(name, key, type, directory=directory)
    if value is not None:
        return value, True
    value = build()
    store(name, key, value, directory=directory)
    return value, False
