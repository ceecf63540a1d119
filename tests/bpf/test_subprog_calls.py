"""bpf-to-bpf calls: progs calling static and global functions in .text."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._programs import data_object
from tracekit._errors import ElfError
from tracekit.bpf.object import BpfObject
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel
GETPPID = SyscallTable().nr("getppid")


def _wait_blocked_in(pid: int, nr: int, timeout: float = 20) -> None:
    """Wait until ``pid`` sleeps inside syscall ``nr`` (/proc/<pid>/syscall, proc(5))."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
        if fields and fields[0] == str(nr) and Path(f"/proc/{pid}/stat").read_text(
                ).rsplit(")", 1)[1].split()[0] == "S":
            return
        time.sleep(0.005)
    raise AssertionError(f"pid {pid} never blocked in syscall {nr}")


def test_static_and_global_subprograms_run_as_called() -> None:
    n = 200
    child = subprocess.Popen(
        [sys.executable, "-c", f"import os, sys\nsys.stdin.read(1)\n"
                               f"for _ in range({n}): os.getppid()\n"],
        stdin=subprocess.PIPE)
    _wait_blocked_in(child.pid, SyscallTable().nr("read"))
    with BpfObject.open(data_object("test_subprog")) as obj:
        obj.globals["targ_tgid"] = child.pid
        obj.load()
        links = obj.attach_all()
        child.communicate(b"g", timeout=30)
        for link in links:
            link.destroy()
        enters, exits = obj.globals["static_calls"], obj.globals["exit_calls"]
        # every entry went through add_static -> add_global; every exit through add_global
        assert obj.maps["seen"][b"\0\0\0\0"] == (enters + exits).to_bytes(8, "little")
        # the read blocked at attach exits without a seen entry; exit_group enters and
        # never exits: the two balance
        assert enters == exits
        assert enters >= n
        assert obj.globals["global_sum"] >= n * GETPPID
        # each prog got only the functions it reaches (the verifier would also reject
        # an unreached one as unreachable code): sys_exit calls add_global only
        sizes = {f.name: f.size for f in obj.spec.funcs[".text"].values()}
        linked = {name: len(obj._link(obj.spec.progs[name])[0]) for name in obj.spec.progs}
        progs = obj.spec.progs
        assert linked["ts_sys_exit"] == len(progs["ts_sys_exit"].insns) + sizes["add_global"]
        assert linked["ts_sys_enter"] == (len(progs["ts_sys_enter"].insns)
                                          + sizes["add_static"] + sizes["add_global"])


def test_call_to_a_missing_function_is_an_elf_error(tmp_path) -> None:
    obj = BpfObject.open(data_object("test_subprog"))
    # point the global function's symbol somewhere that is not a function
    del obj.spec.funcs[".text"][min(obj.spec.funcs[".text"])]
    with pytest.raises(ElfError, match=r"call at insn \d+ to \.text\+\d+ is not a \.text function"):
        obj.load()
    obj.close()
