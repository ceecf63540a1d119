#!/usr/bin/env python3
"""Build the BPF objects of both program sets per architecture and write their manifests.

Two sets, each a folder with ``*.bpf.c``, ``build/<arch>/*.bpf.o`` and ``manifest.json``:

- ``programs/``: the tracer (``syscalls.bpf.c``), package data shipped in the wheel;
- ``tests/data/programs/``: the loader's test programs (``test_*.bpf.c``), test data only.
  They include ``core_types.h`` from ``programs/`` (``-I programs``).

Run by ``nox -s programs``. Needs clang (14+), llvm-strip and libbpf's headers
(Debian: ``apt-get install clang llvm libbpf-dev``); never needed at run time.

Each ``X.bpf.c`` is compiled once per architecture with
``clang -target bpf -O2 -g -mcpu=v3 -D__TARGET_ARCH_<arch> -I programs`` and then
``llvm-strip -g`` (DWARF goes; .BTF and .BTF.ext, which CO-RE needs, stay). The manifest
records, per object, the sha256 of every source it is built from (the .c and each local
``#include "..."``, recursively, found next to the file or in ``programs/``), the sha256 of
each built object, and the clang version; tests/programs/test_objects_current.py
recomputes the source hashes to catch a stale object.

Usage:
  build_programs.py            rebuild everything, rewrite the manifest
  build_programs.py --check    exit 1 if any object is stale or missing (no build)
  build_programs.py --verify   after building, load each x86_64 object with bpftool
                               (root, x86_64 host) in a private bpffs; nothing is left behind
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "programs"
TEST_PROGRAMS = ROOT / "tests" / "data" / "programs"
#: the program sets: each folder holds its sources, build/<arch>/ and manifest.json
SETS = (PROGRAMS, TEST_PROGRAMS)

# build dir name -> the __TARGET_ARCH_<x> that libbpf's bpf_tracing.h and core_types.h use
ARCHES = {"x86_64": "x86", "arm64": "arm64"}
CFLAGS = ["-target", "bpf", "-O2", "-g", "-mcpu=v3", "-Wall", "-Werror"]
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


class BuildError(Exception):
    """A tool is missing or a build step failed."""


def local_sources(src: Path) -> list[Path]:
    """The .c file and every local header it includes, recursively, sorted by name.

    Args:
      src: a ``*.bpf.c`` file of one of the :data:`SETS`.

    Returns:
      Paths of files found as clang finds a quoted include: next to the including file,
      then in ``programs/`` (``-I programs``); a quoted include found in neither (for
      example a system header) is not a local source.
    """
    seen: dict[str, Path] = {}
    todo = [src]
    while todo:
        path = todo.pop()
        if path.name in seen:
            continue
        seen[path.name] = path
        for name in _INCLUDE.findall(path.read_text()):
            for folder in (path.parent, PROGRAMS):
                if (folder / name).is_file():
                    todo.append(folder / name)
                    break
    return [seen[k] for k in sorted(seen)]


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_hashes(src: Path) -> dict[str, str]:
    """``{file name: sha256 hex}`` for each local source of src (the sets are flat)."""
    return {p.name: sha256_file(p) for p in local_sources(src)}


def _tool(env: str, default: str) -> str:
    name = os.environ.get(env, default)
    path = shutil.which(name)
    if path is None:
        raise BuildError(f"{name} not found (set {env}, or apt-get install clang llvm libbpf-dev)")
    return path


def _run(argv: list[str]) -> str:
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr}")
    return proc.stdout


def _asm_include_dirs() -> list[str]:
    """``-idirafter`` for <asm/types.h>: Debian keeps it under /usr/include/<multiarch>.

    The uapi <linux/types.h> pulls <asm/types.h>; its __u8..__u64 are the same on
    every 64-bit Linux arch, so the host's copy serves the arm64 build too.
    """
    if Path("/usr/include/asm/types.h").is_file():
        return []
    dirs = sorted(glob.glob("/usr/include/*-linux-gnu*/asm/types.h"))
    if not dirs:
        raise BuildError("<asm/types.h> not found (apt-get install linux-libc-dev)")
    return ["-idirafter", str(Path(dirs[0]).parents[1])]


def clang_version(clang: str) -> str:
    """First line of ``clang --version``, e.g. ``Debian clang version 14.0.6``."""
    return _run([clang, "--version"]).splitlines()[0].strip()


def build_one(clang: str, strip: str, src: Path, arch: str, out: Path) -> None:
    """Compile src for arch into out (atomically replaced), stripped of DWARF.

    Raises:
      BuildError: clang or llvm-strip failed; the message has its stderr.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        obj = Path(tmp) / out.name
        # -fdebug-prefix-map keeps the checkout path out of .BTF.ext's line info, so
        # the object depends only on its sources (same bytes from any checkout).
        _run([clang, *CFLAGS, f"-D__TARGET_ARCH_{ARCHES[arch]}", "-I", "programs",
              f"-fdebug-prefix-map={ROOT}=.", *_asm_include_dirs(),
              "-c", src.relative_to(ROOT).as_posix(), "-o", str(obj)])
        _run([strip, "-g", str(obj)])
        os.replace(obj, out)


def object_path(src: Path, arch: str) -> Path:
    return src.parent / "build" / arch / (src.name.removesuffix(".c") + ".o")


def sources(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bpf.c"))


def build_all(folder: Path) -> dict[str, object]:
    """Build every object of one set for every arch; return its manifest dict."""
    clang = _tool("CLANG", "clang")
    strip = _tool("LLVM_STRIP", "llvm-strip")
    objects: dict[str, object] = {}
    for src in sources(folder):
        built = {}
        for arch in ARCHES:
            out = object_path(src, arch)
            build_one(clang, strip, src, arch, out)
            built[arch] = {"sha256": sha256_file(out), "size": out.stat().st_size}
            print(f"built {out.relative_to(ROOT)} ({built[arch]['size']} bytes)")
        objects[src.name.removesuffix(".c") + ".o"] = {
            "source": src.name,
            "sources": source_hashes(src),
            "arches": built,
        }
    return {
        "clang": clang_version(clang),
        "cflags": CFLAGS,
        "strip": "llvm-strip -g",
        "rebuild": "nox -s programs",
        "objects": objects,
    }


def stale_objects(folder: Path) -> list[str]:
    """Objects of one set whose sources changed since its manifest, or that are missing
    (paths relative to the checkout)."""
    where = folder.relative_to(ROOT).as_posix()
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except FileNotFoundError:
        return [f"{where}/manifest.json"]
    problems = []
    for src in sources(folder):
        name = src.name.removesuffix(".c") + ".o"
        entry = manifest["objects"].get(name)
        if entry is None or entry["sources"] != source_hashes(src):
            problems.append(f"{where}/{name}")
            continue
        for arch in ARCHES:
            out = object_path(src, arch)
            if not out.is_file() or sha256_file(out) != entry["arches"][arch]["sha256"]:
                problems.append(f"{where}/build/{arch}/{name}")
    return problems


def verify_loads() -> None:
    """Load each x86_64 object with ``bpftool prog loadall`` in a private bpffs.

    The bpffs lives in a mount namespace of its own (``unshare -m``), so the pins and
    with them the programs and maps vanish when bpftool's shell exits.

    Raises:
      BuildError: bpftool refused an object; the message has the verifier's output.
    """
    if os.uname().machine != "x86_64":
        print("verify: skipped, host is not x86_64")
        return
    bpftool = _tool("BPFTOOL", "bpftool")
    for src in (s for folder in SETS for s in sources(folder)):
        obj = object_path(src, "x86_64")
        with tempfile.TemporaryDirectory() as mnt:
            script = (f"mount -t bpf bpf {mnt} && "
                      f"{bpftool} prog loadall {obj} {mnt}/progs && ls {mnt}/progs")
            loaded = _run(["unshare", "-m", "sh", "-c", script]).split()
        print(f"verify: {obj.relative_to(ROOT)} loaded progs {', '.join(loaded)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale objects")
    parser.add_argument("--verify", action="store_true", help="load x86_64 objects with bpftool")
    args = parser.parse_args(argv)
    try:
        if args.check:
            stale = [name for folder in SETS for name in stale_objects(folder)]
            for name in stale:
                print(f"stale: {name} (run: nox -s programs)", file=sys.stderr)
            return 1 if stale else 0
        for folder in SETS:
            manifest = build_all(folder)
            path = folder / "manifest.json"
            path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
            print(f"wrote {path.relative_to(ROOT)}")
        if args.verify:
            verify_loads()
    except BuildError as e:
        print(f"build_programs: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
