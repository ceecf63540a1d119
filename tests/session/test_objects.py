"""The tracer object from its cached load image: the same programs as from the ELF, and a
corrupt or stale cache entry rebuilt from the ELF, never loaded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracekit.bpf import sys as _bpf
from tracekit.bpf.image import ObjectImage
from tracekit.bpf.object import BpfObject
from tracekit.kernel import bootcache
from tracekit.kernel.arch import machine_arch
from tracekit.session.objects import image_key, open_object
from tracekit.session.session import Session, SessionOptions, object_path

pytestmark = pytest.mark.kernel


def _tags(obj: BpfObject) -> dict[str, str]:
    """Each prog's kernel tag (a hash of its instructions, map fds zeroed)."""
    obj.globals["targ_self_tgid"] = os.getpid()
    obj.load()
    try:
        return {name: _bpf.obj_get_info_by_fd(p.fd).tag  # type: ignore[union-attr]
                for name, p in obj.progs.items()}
    finally:
        obj.close()


def test_the_image_loads_the_same_programs_as_the_elf(tmp_path: Path) -> None:
    first = open_object(object_path(), "t", directory=tmp_path)
    assert first.spec is not None                      # nothing cached yet: read the ELF
    cached = open_object(object_path(), "t", directory=tmp_path)
    assert cached.spec is None and cached.image == first.image
    assert list(cached.maps) == list(first.maps)
    assert dict(cached.globals) == dict(first.globals)
    assert _tags(cached) == _tags(BpfObject.open(object_path()))


def test_a_corrupt_entry_is_rebuilt_from_the_elf(tmp_path: Path) -> None:
    good = open_object(object_path(), "t", directory=tmp_path).image
    key = image_key(object_path().read_bytes())
    path = bootcache.entry_path("t", key, tmp_path)
    raw = bytearray(path.read_bytes())
    prog = good.progs[0] if good is not None else None
    assert prog is not None
    at = raw.index(prog.insns[:64])
    raw[at + 60] ^= 0xFF                               # an instruction of the first prog
    path.write_bytes(bytes(raw))
    assert bootcache.load("t", key, ObjectImage, directory=tmp_path) is None
    obj = open_object(object_path(), "t", directory=tmp_path)
    assert obj.spec is not None                        # read from the ELF again
    assert obj.image == good
    assert bootcache.load("t", key, ObjectImage, directory=tmp_path) == good  # rewritten
    _tags(obj)                                         # and it loads


def test_another_object_makes_the_entry_stale(tmp_path: Path) -> None:
    open_object(object_path(), "t", directory=tmp_path)
    other = tmp_path / "other.bpf.o"
    other.write_bytes(object_path().read_bytes() + b"\0")   # other bytes, same ELF
    assert open_object(other, "t", directory=tmp_path).spec is not None


async def test_a_session_traces_from_the_cached_image(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEKIT_CACHE_DIR", str(tmp_path))
    for from_cache in (False, True):
        s = Session(SessionOptions(command=["/bin/true"]))
        try:
            await s.start()
            assert s.obj is not None and (s.obj.spec is None) == from_cache
            assert s.command is not None and await s.command.wait() == 0
        finally:
            s.close()
    key = image_key(object_path().read_bytes())
    assert bootcache.entry_path(f"syscalls-{machine_arch()}", key, tmp_path).exists()
