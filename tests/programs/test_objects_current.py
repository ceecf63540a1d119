"""The committed BPF objects are current: built from today's sources, for both arches.

programs/manifest.json (written by scripts/build_programs.py) records the sha256 of each
object's sources (its .c and every local header it includes) and of each built object.
These tests recompute both; a mismatch means someone edited a source and did not rebuild.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

PROGRAMS = Path(str(importlib.resources.files("tracekit.programs")))
ARCHES = ("x86_64", "arm64")
REBUILD = "nox -s programs"
SOURCES = sorted(PROGRAMS.glob("*.bpf.c"))
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _local_sources(src: Path) -> dict[str, str]:
    """``{name: sha256}`` for src and each ``#include "x"`` found in programs/, recursively."""
    found: dict[str, str] = {}
    todo = [src]
    while todo:
        path = todo.pop()
        if path.name in found:
            continue
        found[path.name] = _sha256(path)
        todo += [path.parent / n for n in _INCLUDE.findall(path.read_text())
                 if (path.parent / n).is_file()]
    return found


def _obj_name(src: Path) -> str:
    return src.name.removesuffix(".c") + ".o"


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((PROGRAMS / "manifest.json").read_text())


def test_sources_found() -> None:
    names = {s.name for s in SOURCES}
    assert {"syscalls.bpf.c", "test_maps.bpf.c", "test_core.bpf.c", "test_ringbuf.bpf.c",
            "test_tracepoint.bpf.c"} <= names


def test_manifest_lists_exactly_the_sources(manifest: dict) -> None:
    assert sorted(manifest["objects"]) == sorted(_obj_name(s) for s in SOURCES), (
        f"programs/manifest.json does not match programs/*.bpf.c; run `{REBUILD}`")


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_built_from_current_sources(manifest: dict, src: Path) -> None:
    name = _obj_name(src)
    recorded = manifest["objects"].get(name, {}).get("sources", {})
    now = _local_sources(src)
    changed = sorted(k for k in now.keys() | recorded.keys() if now.get(k) != recorded.get(k))
    assert not changed, (
        f"{name} is stale: {', '.join(changed)} changed since it was built; run `{REBUILD}`")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_exists_and_matches_manifest(manifest: dict, src: Path, arch: str) -> None:
    name = _obj_name(src)
    obj = PROGRAMS / "build" / arch / name
    assert obj.is_file(), f"build/{arch}/{name} is missing; run `{REBUILD}`"
    recorded = manifest["objects"][name]["arches"][arch]["sha256"]
    assert _sha256(obj) == recorded, (
        f"build/{arch}/{name} differs from the object the manifest records; run `{REBUILD}`")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_is_stripped_bpf_with_btf(src: Path, arch: str) -> None:
    with (PROGRAMS / "build" / arch / _obj_name(src)).open("rb") as f:
        elf = ELFFile(f)
        sections = {s.name for s in elf.iter_sections()}
        assert elf["e_machine"] == "EM_BPF"
        assert elf.little_endian
        assert {".BTF", ".BTF.ext", "license"} <= sections
        assert (".maps" in sections) == ('SEC(".maps")' in src.read_text())
        assert not any(s.startswith(".debug_") for s in sections), "llvm-strip -g not applied"


def _btf_bytes(path: Path) -> bytes:
    with path.open("rb") as f:
        return ELFFile(f).get_section_by_name(".BTF").data()


@pytest.mark.parametrize(("arch", "fields"), [
    ("x86_64", (b"di", b"r10", b"orig_ax", b"thread_info", b"status")),
    ("arm64", (b"regs", b"syscallno")),
])
def test_syscalls_btf_has_the_arch_pt_regs(arch: str, fields: tuple[bytes, ...]) -> None:
    strings = set(_btf_bytes(PROGRAMS / "build" / arch / "syscalls.bpf.o").split(b"\0"))
    assert b"pt_regs" in strings
    assert set(fields) <= strings
    other = {b"orig_ax", b"syscallno"} - set(fields)
    assert not other & strings, f"{arch} object carries the other arch's pt_regs"
