"""Calls of this kernel no other sweep makes, as strace 6.1 prints them, against strace
on ONE run.

tests/workloads/sweep_edge.c makes the calls strace 6.1 knows that no other workload
made (acct, ioperm, iopl, pivot_root, swapoff, vhangup; acct, pivot_root and vhangup in
a grandchild that is the first process of a new pid and mount namespace) and the calls
newer than strace 6.1 (cachestat, fchmodat2, map_shadow_stack, futex_wake/wait/requeue,
statmount, listmount, the lsm_* calls, mseal, the *xattrat calls, open_tree_attr,
file_getattr/file_setattr), which strace 6.1 prints as numbers it has no entry for:
``syscall_0x1c3(0x3, 0x7ffd..., ...)``, all six registers in hex, the return value in
hex. Each is made with normal arguments, NULL and bad pointers, -1 fds, unknown flags
and garbage in the high half of an int. tracekit traces ``strace -f -o FILE
sweep_edge``, so both see the same calls: every line of every process must be equal,
also under ``-yy`` (the fd open_tree_attr returns is known to the fd cache, though
printed in hex).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


@pytest.mark.parametrize("opts", [(), ("-yy",)], ids=["plain", "yy"])
def test_edge_calls_equal_strace_on_the_same_run(tmp_path: Path, opts: tuple[str, ...]
                                                 ) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_edge"), tmp_path, opts)
    assert len(s_procs) == 3, list(s_procs)     # the program, its child, the grandchild
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in (
            # newer than strace 6.1: every register in hex, the return value in hex
            "syscall_0x1c3(0x3, 0x", "syscall_0x1c3(0xffffffffffffffff, 0x",
            "syscall_0x1c4(0xffffffffffffff9c, 0x", ", 0x8000, 0x",
            "syscall_0x1d0(0xdeadbeefffffff9c, 0x", "syscall_0x1ce(0, 0, 0, 0, 0, 0) = 0",
            "syscall_0x1c6(0, 0xffffffff, 0x1, 0x2, ", "syscall_0x1c8(0x",
            "syscall_0x1cd(0x", "syscall_0x1cc(0xdeadbeef00000064, ",
            # known to strace 6.1
            "swapoff(NULL) = -1 EFAULT", "swapoff(0x1) = -1 EFAULT",
            '/edge-file") = -1 EINVAL', 'acct("/nonexistent-acct-file") = -1 ENOENT',
            "acct(0x1) = -1 EFAULT", "acct(NULL) = 0", "/scratch/acct\") = 0",
            'pivot_root("/nonexistent-root", "', "pivot_root(NULL, ", "vhangup() = 0",
            "ioperm(0x10000, 0x1, 1) = ", "ioperm(0xdeadbeef00000080, 0xdeadbeef00000001, 0)",
            "iopl(4) = "):
        assert want in text, want
    open_tree_attr = [line for line in text.splitlines()
                      if line.startswith("syscall_0x1d3(") and " = 0x" in line]
    assert open_tree_attr, text                 # it made an fd (printed in hex)
    if opts:
        assert "/scratch>) = 0" in text         # and -yy shows it at its close
