"""Syscall tables (system_calls) checked against the running kernel; errno names."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import threading
from pathlib import Path

import pytest

from tracekit.kernel.syscalls import SyscallTable, errno_message, errno_name, format_ret
from tracekit.kernel.tracefs import syscall_event_names

LIVE = Path("/sys/kernel/tracing")
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _native() -> SyscallTable:
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip(f"no native table test for {platform.machine()}")
    return SyscallTable()


def test_default_arch_is_this_machine() -> None:
    table = _native()
    assert table.arch == {"x86_64": "x86_64", "aarch64": "arm64"}[platform.machine()]


def test_unknown_arch() -> None:
    with pytest.raises(ValueError, match="no syscall table for arch 'vax'"):
        SyscallTable("vax")


@pytest.mark.parametrize("arch", ["x86_64", "arm64", "i386"])
def test_names_and_numbers_roundtrip(arch: str) -> None:
    table = SyscallTable(arch)
    for name in table.names():
        nr = table.nr(name)
        assert nr is not None and table.name(nr) == name
    assert table.name(table.max_nr() + 1000) == f"syscall_{table.max_nr() + 1000}"
    assert table.nr("no_such_syscall") is None


def test_arches_differ_where_the_kernel_says() -> None:
    # arm64 uses asm-generic numbers; i386 is the compat table on x86_64.
    assert SyscallTable("arm64").nr("openat") == 56
    assert SyscallTable("arm64").nr("open") is None
    assert SyscallTable("i386").nr("exit") == 1


def _raw_syscall(nr: int, *args: int) -> int:
    ret = _libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))
    return ret if ret != -1 else -ctypes.get_errno()


@pytest.mark.kernel
def test_numbers_agree_with_the_running_kernel(tmp_path: Path) -> None:
    """Call real syscalls by the table's numbers and check they do what their name says."""
    table = _native()
    assert _raw_syscall(table.nr("getppid")) == os.getppid()
    assert _raw_syscall(table.nr("gettid")) == threading.get_native_id()
    path = tmp_path / "f"
    path.write_bytes(b"x")
    at_fdcwd = -100
    name = ctypes.create_string_buffer(os.fsencode(path))    # kept alive across the call
    fd = _raw_syscall(table.nr("openat"), at_fdcwd, ctypes.addressof(name), os.O_RDONLY, 0)
    assert fd >= 0
    try:
        assert os.readlink(f"/proc/self/fd/{fd}") == str(path)
    finally:
        os.close(fd)
    # a recent syscall (Linux 6.10): mseal(addr=0, len=0, flags=1) rejects the flag with EINVAL
    # (an unknown number would give ENOSYS).
    assert _raw_syscall(table.nr("mseal"), 0, 0, 1) == -errno.EINVAL
    # listmount (6.8) with a NULL request: EFAULT, not ENOSYS
    assert _raw_syscall(table.nr("listmount"), 0, 0, 0, 0) in (-errno.EFAULT, -errno.EINVAL)


@pytest.mark.kernel
def test_execve_and_exit_group_numbers_in_a_child() -> None:
    """exit_group(7) by number in a forked child: the parent sees status 7; execve of a
    missing file by number: ENOENT."""
    table = _native()
    name = ctypes.create_string_buffer(b"/nonexistent/x")
    assert _raw_syscall(table.nr("execve"), ctypes.addressof(name), 0, 0) == -errno.ENOENT
    pid = os.fork()
    if pid == 0:
        _raw_syscall(table.nr("exit_group"), 7)
        os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 7


@pytest.mark.kernel
def test_cross_check_live_tracefs() -> None:
    """Every syscall the running kernel has an event for has a number in the table."""
    if not (LIVE / "events" / "syscalls").is_dir():
        pytest.skip("no syscall events")
    table = _native()
    names = syscall_event_names(LIVE)
    assert len(names) > 300
    assert table.cross_check(names) == []
    # and cross_check does report a name the table lacks
    assert table.cross_check(names | {"not_a_syscall"}) == ["not_a_syscall"]


def test_errno_names() -> None:
    assert errno_name(errno.ENOENT) == "ENOENT"
    assert errno_name(errno.EAGAIN) == "EAGAIN"
    assert errno_name(errno.EOPNOTSUPP) == "EOPNOTSUPP"
    assert errno_name(512) == "ERESTARTSYS"
    assert errno_name(516) == "ERESTART_RESTARTBLOCK"
    assert errno_name(524) == "ENOTSUPP"
    assert errno_name(4000) == "E4000"
    for err in range(1, 134):
        assert errno_message(err) == os.strerror(err)


def test_format_ret() -> None:
    assert format_ret(-errno.ENOENT) == f"-1 ENOENT ({os.strerror(errno.ENOENT)})"
    assert format_ret(-512) == "? ERESTARTSYS (To be restarted if SA_RESTART is set)"
    assert format_ret(-513) == "? ERESTARTNOINTR (To be restarted)"
    assert format_ret(-514) == "? ERESTARTNOHAND (To be restarted if no handler)"
    assert format_ret(-516) == "? ERESTART_RESTARTBLOCK (Interrupted by signal)"
    assert format_ret(-515) == "-1 ENOIOCTLCMD (No ioctl command)"
    assert format_ret(0) == "0"
    assert format_ret(-4096) == "-4096"      # below the errno range: a value (e.g. an address)
    assert format_ret(2**47) == str(2**47)
