"""The committed BPF objects are current: built from today's sources, for both arches.

Two program sets, each with a manifest.json written by scripts/build_programs.py: the
tracer in programs/ (package data) and the loader's test programs in tests/data/programs/
(test data; they include programs/core_types.h). A manifest records the sha256 of each
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
TEST_PROGRAMS = Path(__file__).resolve().parents[1] / "data" / "programs"
ARCHES = ("x86_64", "arm64")
REBUILD = "nox -s programs"
SOURCES = sorted(PROGRAMS.glob("*.bpf.c")) + sorted(TEST_PROGRAMS.glob("*.bpf.c"))
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _local_sources(src: Path) -> dict[str, str]:
    """``{name: sha256}`` for src and each ``#include "x"`` found next to the including
    file or in programs/ (clang's ``-I programs``), recursively."""
    found: dict[str, str] = {}
    todo = [src]
    while todo:
        path = todo.pop()
        if path.name in found:
            continue
        found[path.name] = _sha256(path)
        for n in _INCLUDE.findall(path.read_text()):
            todo += [d / n for d in (path.parent, PROGRAMS) if (d / n).is_file()][:1]
    return found


def _obj_name(src: Path) -> str:
    return src.name.removesuffix(".c") + ".o"


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_sources_found() -> None:
    names = {s.name for s in SOURCES}
    assert {"syscalls.bpf.c", "test_maps.bpf.c", "test_core.bpf.c", "test_ringbuf.bpf.c",
            "test_tracepoint.bpf.c"} <= names


def test_only_the_tracer_is_package_data() -> None:
    """The test programs are test data, and programs/floor.bpf.c (the benchmarks' floor)
    is in programs/ but not package data: only the tracer's objects ship in the wheel."""
    import fnmatch
    import tomllib

    assert sorted(s.name for s in PROGRAMS.glob("*.bpf.c")) == ["floor.bpf.c",
                                                               "syscalls.bpf.c"]
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml")
                              .read_text())
    shipped = pyproject["tool"]["setuptools"]["package-data"]["tracekit.programs"]
    for arch in ARCHES:
        objects = sorted(o.name for o in (PROGRAMS / "build" / arch).glob("*.bpf.o"))
        assert objects == ["floor.bpf.o", "syscalls.bpf.o"]
        assert [o for o in objects if any(fnmatch.fnmatch(f"build/{arch}/{o}", pattern)
                                          for pattern in shipped)] == ["syscalls.bpf.o"]
    assert not any(s.name.startswith("test_") for s in PROGRAMS.glob("*.bpf.c"))
    assert {s.name for s in TEST_PROGRAMS.glob("*.bpf.c")} == {
        "test_core.bpf.c", "test_maps.bpf.c", "test_ringbuf.bpf.c", "test_subprog.bpf.c",
        "test_tracepoint.bpf.c"}


@pytest.mark.parametrize("folder", [PROGRAMS, TEST_PROGRAMS], ids=["programs", "tests"])
def test_manifest_lists_exactly_the_sources(folder: Path) -> None:
    assert sorted(_manifest(folder)["objects"]) == sorted(
        _obj_name(s) for s in folder.glob("*.bpf.c")), (
        f"{folder}/manifest.json does not match {folder}/*.bpf.c; run `{REBUILD}`")


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_built_from_current_sources(src: Path) -> None:
    name = _obj_name(src)
    recorded = _manifest(src.parent)["objects"].get(name, {}).get("sources", {})
    now = _local_sources(src)
    changed = sorted(k for k in now.keys() | recorded.keys() if now.get(k) != recorded.get(k))
    assert not changed, (
        f"{name} is stale: {', '.join(changed)} changed since it was built; run `{REBUILD}`")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_exists_and_matches_manifest(src: Path, arch: str) -> None:
    name = _obj_name(src)
    obj = src.parent / "build" / arch / name
    assert obj.is_file(), f"build/{arch}/{name} is missing; run `{REBUILD}`"
    recorded = _manifest(src.parent)["objects"][name]["arches"][arch]["sha256"]
    assert _sha256(obj) == recorded, (
        f"build/{arch}/{name} differs from the object the manifest records; run `{REBUILD}`")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.name)
def test_object_is_stripped_bpf_with_btf(src: Path, arch: str) -> None:
    with (src.parent / "build" / arch / _obj_name(src)).open("rb") as f:
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
