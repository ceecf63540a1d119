"""The shipped prototypes (tracekit/kernel/syscall_protos) against the running kernel's
tracefs, and the generator that wrote them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tracekit.kernel.arch import SUPPORTED, machine_arch
from tracekit.kernel.syscall_protos import prototype, prototypes, shipped_args
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import (
    EVENT_ALIASES,
    readable_tracefs,
    syscall_arg_table,
    syscall_args_lookup,
)

REPO = Path(__file__).resolve().parents[2]


def _tracefs() -> Path:
    root = readable_tracefs()
    if root is None:
        pytest.skip("tracefs cannot be read here (not mounted, or not root)")
    return root


def test_every_syscall_with_a_format_has_the_same_prototype_shipped() -> None:
    """Each sys_enter_<name> format of this kernel: the shipped table has the syscall, with
    the same argument names, C types, offsets and sizes, in the same order."""
    root = _tracefs()
    arch = machine_arch()
    formats = syscall_arg_table(root)
    assert len(formats) > 300
    differ = {ev: (args, shipped_args(ev, arch)) for ev, args in formats.items()
              if shipped_args(ev, arch) != args}
    assert not differ, f"regenerate with scripts/gen_syscall_protos.py: {sorted(differ)[:10]}"


def test_lookup_gives_tracefs_formats_when_readable() -> None:
    root = _tracefs()
    args_of = syscall_args_lookup()
    formats = syscall_arg_table(root)
    for name in ("openat", "newstat", "stat", "getitimer"):
        assert args_of(name) == formats[name]


@pytest.mark.parametrize("arch", SUPPORTED)
def test_generated_file_is_current(tmp_path: Path, arch: str) -> None:
    """The committed table is what the generator makes from this kernel's formats."""
    root = _tracefs()
    if machine_arch() != "x86_64":
        pytest.skip("the generator reads an x86_64 kernel's formats")
    r = subprocess.run([sys.executable, str(REPO / "scripts/gen_syscall_protos.py"),
                        "--tracefs", str(root), "--arch", arch, "-o", str(tmp_path)],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    body = lambda text: text.split('"""', 2)[2]  # noqa: E731 - skip the docstring (command)
    committed = REPO / "tracekit/kernel/syscall_protos" / f"{arch}.py"
    assert body((tmp_path / f"{arch}.py").read_text()) == body(committed.read_text())


@pytest.mark.parametrize("arch", SUPPORTED)
def test_every_syscall_of_the_table_has_a_prototype(arch: str) -> None:
    """Every name of the arch's syscall table is described, but calls that no kernel
    implements (the old epoll ones) and ones newer than the generating kernel's."""
    table = SyscallTable(arch)
    missing = {n for n in table.names() if prototype(n, arch) is None}
    assert missing <= {"epoll_ctl_old", "epoll_wait_old", "listns", "lookup_dcookie",
                       "rseq_slice_yield"}, sorted(missing)
    assert len(prototypes(arch)) == len(table.names()) - len(missing)


def test_arm64_prototypes() -> None:
    """arm64's calls are the generic ones (no open, no fork), clone with tls before
    child_tidptr (CONFIG_CLONE_BACKWARDS), event aliases looked up by either name."""
    arm = prototypes("arm64")
    assert "open" not in arm and "fork" not in arm and "openat" in arm
    assert [a for a, _, _ in arm["clone"]] == ["clone_flags", "newsp", "parent_tidptr",
                                               "tls", "child_tidptr"]
    assert [a for a, _, _ in prototypes("x86_64")["clone"]][3:] == ["child_tidptr", "tls"]
    # arm64's fadvise64 is sys_fadvise64_64: a loff_t length
    assert arm["fadvise64"][2][1] == "loff_t" and prototypes("x86_64")["fadvise64"][2][1] \
        == "size_t"
    for event, name in EVENT_ALIASES.items():
        if name in arm:
            assert prototype(event, "arm64") == arm[name]
