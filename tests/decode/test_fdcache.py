"""The fd cache: readlink of /proc/<tgid>/fd/<fd> on a miss, invalidation by event."""

from __future__ import annotations

import os
from pathlib import Path

from tracekit.decode.fdcache import FdCache


def fake_proc(root: Path, tgid: int, links: dict[int, str]) -> None:
    fd_dir = root / str(tgid) / "fd"
    fd_dir.mkdir(parents=True, exist_ok=True)
    for fd, target in links.items():
        (fd_dir / str(fd)).unlink(missing_ok=True)
        (fd_dir / str(fd)).symlink_to(target)


def test_miss_reads_proc_once_then_hits(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/etc/passwd", 4: "pipe:[12345]", 5: "socket:[6789]"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/etc/passwd"
    assert cache.get(10, 4) == "pipe:[12345]"
    assert cache.get(10, 5) == "socket:[6789]"
    assert (cache.misses, cache.hits) == (3, 0)
    for _ in range(5):
        assert cache.get(10, 3) == "/etc/passwd"
    assert (cache.misses, cache.hits) == (3, 5)


def test_unknown_fd_and_gone_process_are_cached_as_unknown(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 9) is None
    assert cache.get(10, 9) is None
    assert cache.get(99, 0) is None                 # no such process
    assert cache.misses == 2 and cache.hits == 1


def test_close_forgets_one_fd(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/a"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/a"
    fake_proc(tmp_path, 10, {3: "/b"})              # closed and reopened elsewhere
    assert cache.get(10, 3) == "/a"                 # still cached
    cache.forget(10, 3)
    assert cache.get(10, 3) == "/b"


def test_dup_copies_the_target_and_exec_forgets_the_process(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/a", 1: "/dev/pts/0"})
    cache = FdCache(str(tmp_path))
    cache.get(10, 3)
    cache.get(10, 1)
    cache.dup(10, 3, 1)                             # dup2(3, 1)
    assert cache.get(10, 1) == "/a"
    cache.set(10, 7, "/etc/hosts")
    assert cache.get(10, 7) == "/etc/hosts"
    cache.forget_process(10)                        # exec
    assert cache.get(10, 1) == "/dev/pts/0"
    assert cache.get(10, 7) is None


def test_processes_are_separate(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/ten"})
    fake_proc(tmp_path, 11, {3: "/eleven"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/ten"
    assert cache.get(11, 3) == "/eleven"
    cache.forget(10, 3)
    assert cache.get(11, 3) == "/eleven"
    assert cache.hits == 1


def test_real_proc_of_this_process(tmp_path: Path) -> None:
    path = tmp_path / "real"
    path.write_text("x")
    fd = os.open(path, os.O_RDONLY)
    r, w = os.pipe()
    try:
        cache = FdCache()
        assert cache.get(os.getpid(), fd) == str(path)
        assert cache.get(os.getpid(), r) == f"pipe:[{os.fstat(r).st_ino}]"
    finally:
        for f in (fd, r, w):
            os.close(f)


def test_still_checks_entries_without_reading_proc(tmp_path: Path) -> None:
    (tmp_path / "9" / "fd").mkdir(parents=True)
    os.symlink("/etc/hosts", tmp_path / "9" / "fd" / "4")
    cache = FdCache(str(tmp_path))
    # still() compares the decorations FdCache.text gives
    assert not cache.still(9, ((4, "</etc/hosts>"),))    # absent: a lookup would read /proc
    assert cache.get(9, 4) == "/etc/hosts" and cache.get(9, 5) is None
    assert (cache.misses, cache.hits) == (2, 0)
    assert cache.still(9, ((4, "</etc/hosts>"), (5, None)))  # cached, unknown included
    assert (cache.misses, cache.hits) == (2, 2)
    cache.set(9, 4, "/tmp/other")
    assert not cache.still(9, ((4, "</etc/hosts>"),))
    assert not cache.still(9, ((6, None),)) and (cache.misses, cache.hits) == (2, 2)
