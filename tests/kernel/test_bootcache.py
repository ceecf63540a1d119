"""The per-boot cache: an entry is used only when intact, under the same key, in a private
directory and file of this user; anything else is rebuilt, never trusted."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from tracekit.kernel import bootcache


class Entry(msgspec.Struct, array_like=True):
    name: str
    words: tuple[int, ...]


KEY = {"boot_id": "b", "release": "r", "object": "o"}
VALUE = Entry("tracer", tuple(range(100)))


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    d = tmp_path / "cache"
    assert bootcache.store("e", KEY, VALUE, directory=d)
    return d


def test_an_entry_round_trips_in_a_private_directory_and_file(cache: Path) -> None:
    assert bootcache.load("e", KEY, Entry, directory=cache) == VALUE
    assert (os.stat(cache).st_mode & 0o777) == 0o700
    assert (os.stat(bootcache.entry_path("e", KEY, cache)).st_mode & 0o777) == 0o600
    # no temporary file left
    assert [p.name for p in cache.iterdir()] == [bootcache.entry_path("e", KEY, cache).name]


def test_a_stale_key_is_not_used(cache: Path) -> None:
    for changed in ({**KEY, "boot_id": "other"}, {**KEY, "extra": "x"},
                    {k: v for k, v in KEY.items() if k != "object"}):
        assert bootcache.load("e", changed, Entry, directory=cache) is None
    assert bootcache.load("missing", KEY, Entry, directory=cache) is None


def _corruptions(raw: bytes) -> list[bytes]:
    payload_at = raw.index(msgspec.msgpack.encode(VALUE))
    flipped = bytearray(raw)
    flipped[payload_at + 40] ^= 0x01                 # one bit of one word of the payload
    key_flipped = bytearray(raw)
    key_flipped[raw.index(b"boot_id")] ^= 0x20       # the key's spelling
    return [bytes(flipped), bytes(key_flipped), raw[:len(raw) // 2], raw[:1], b"",
            b"\x00" * len(raw), os.urandom(len(raw)), raw + b"tail"]


def test_entries_of_other_builds_coexist_and_the_oldest_go(cache: Path) -> None:
    """Another build's key (another checkout's code stamp) is an entry of its own: a
    start of one build does not make the other rebuild its entry at its next start."""
    other = {**KEY, "code": "another checkout"}
    assert bootcache.store("e", other, VALUE, directory=cache)
    assert bootcache.load("e", KEY, Entry, directory=cache) == VALUE
    assert bootcache.load("e", other, Entry, directory=cache) == VALUE
    for i in range(bootcache.KEEP + 3):
        assert bootcache.store("e", {**KEY, "code": str(i)}, VALUE, directory=cache)
    assert bootcache.store("f", KEY, VALUE, directory=cache)    # another name: not pruned
    names = sorted(p.name for p in cache.iterdir())
    assert len([n for n in names if n.startswith("e.")]) == bootcache.KEEP
    assert bootcache.entry_path("f", KEY, cache).name in names
    last = {**KEY, "code": str(bootcache.KEEP + 2)}
    assert bootcache.load("e", last, Entry, directory=cache) == VALUE     # newest kept
    assert bootcache.load("e", KEY, Entry, directory=cache) is None       # oldest gone


def test_a_corrupt_entry_is_detected_never_trusted(cache: Path) -> None:
    path = bootcache.entry_path("e", KEY, cache)
    raw = path.read_bytes()
    for bad in _corruptions(raw):
        path.write_bytes(bad)
        assert bootcache.load("e", KEY, Entry, directory=cache) is None, bad[:40]


def test_a_consistent_entry_of_the_wrong_shape_is_not_trusted(cache: Path) -> None:
    # digest right, payload not an Entry: decoding validates the type
    bootcache.store("e", KEY, {"name": "tracer"}, directory=cache)
    assert bootcache.load("e", KEY, Entry, directory=cache) is None


def test_another_format_is_stale(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootcache, "FORMAT", bootcache.FORMAT + 1)
    assert bootcache.load("e", KEY, Entry, directory=cache) is None


def test_cached_rebuilds_a_corrupt_entry_and_stores_it_again(cache: Path) -> None:
    path = bootcache.entry_path("e", KEY, cache)
    path.write_bytes(_corruptions(path.read_bytes())[0])
    built: list[int] = []

    def build() -> Entry:
        built.append(1)
        return VALUE

    assert bootcache.cached("e", KEY, Entry, build, directory=cache) == (VALUE, False)
    assert built == [1]
    assert bootcache.cached("e", KEY, Entry, build, directory=cache) == (VALUE, True)
    assert built == [1]                                # the rewritten entry is good again


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_an_entry_others_could_write_is_not_read(cache: Path) -> None:
    path = bootcache.entry_path("e", KEY, cache)
    os.chmod(path, 0o644)
    assert bootcache.load("e", KEY, Entry, directory=cache) is None
    os.chmod(path, 0o600)
    os.chown(path, 65534, -1)                         # another user's file
    assert bootcache.load("e", KEY, Entry, directory=cache) is None
    os.chown(path, 0, -1)
    os.chmod(cache, 0o755)                            # a directory others may list
    assert bootcache.load("e", KEY, Entry, directory=cache) is None
    assert not bootcache.store("e", KEY, VALUE, directory=cache)
    os.chmod(cache, 0o700)
    assert bootcache.load("e", KEY, Entry, directory=cache) == VALUE


def test_an_entry_that_is_a_fifo_is_refused_without_blocking(cache: Path) -> None:
    # open(2) of a FIFO for reading waits for a writer: start-up must not
    path = bootcache.entry_path("e", KEY, cache)
    path.unlink()
    os.mkfifo(path, 0o600)
    assert bootcache.load("e", KEY, Entry, directory=cache) is None


def test_an_unsafe_directory_is_said_once(tmp_path: Path,
                                          caplog: pytest.LogCaptureFixture) -> None:
    d = tmp_path / "open"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    assert bootcache.load("e", KEY, Entry, directory=d) is None
    assert not bootcache.store("e", KEY, VALUE, directory=d)
    assert sum("is not a private directory" in r.getMessage()
               for r in caplog.records) == 1


def test_symlinks_are_not_followed(cache: Path, tmp_path: Path) -> None:
    link_dir = tmp_path / "link"
    link_dir.symlink_to(cache)
    assert bootcache.load("e", KEY, Entry, directory=link_dir) is None
    (bootcache.entry_path("e", KEY, cache)).rename(tmp_path / "elsewhere")
    (bootcache.entry_path("e", KEY, cache)).symlink_to(tmp_path / "elsewhere")
    assert bootcache.load("e", KEY, Entry, directory=cache) is None


def test_the_environment_names_or_turns_off_the_directory(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRACEKIT_CACHE_DIR", str(tmp_path))
    assert bootcache.cache_dir() == tmp_path
    monkeypatch.setenv("TRACEKIT_CACHE_DIR", "off")
    assert bootcache.cache_dir() is None
    assert not bootcache.store("e", KEY, VALUE)


def test_the_boot_key_names_this_boot_and_kernel() -> None:
    key = bootcache.boot_key()
    with open("/proc/sys/kernel/random/boot_id") as f:
        assert key["boot_id"] == f.read().strip()
    assert key["release"] == os.uname().release and key["build"] == os.uname().version
    assert set(key) >= {"machine", "tracekit"}
