"""Syscall number <-> name tables, errno names and return-value formatting.

Numbers come from the ``system-calls`` package (generated from the kernel's
arch/*/entry/syscalls/*.tbl and include/uapi/asm-generic/unistd.h, follows kernel
releases), never from /usr/include, whose uapi headers here stop at Linux 6.1.
"""

from __future__ import annotations

import errno as _errno
import functools
import os
from collections.abc import Callable

import system_calls

from tracekit.kernel.arch import machine_arch
from tracekit.kernel.tracefs import EVENT_ALIASES

__all__ = ["ARCHES", "SyscallTable", "audit_syscall_name", "errno_message", "errno_name",
           "format_ret"]

# tracekit's arch names (the kernel's) -> system_calls table names.
ARCHES: dict[str, str] = {"x86_64": "x86_64", "arm64": "arm64", "i386": "i386"}

_SYSCALLS = system_calls.syscalls()

# Numbers the kernel's table retired (their calls removed or never implemented: each
# returns ENOSYS) that the system_calls package no longer lists and strace 6.1 still
# names (``uselib("x") = -1 ENOSYS``): arch/x86/entry/syscalls/syscall_64.tbl of older
# kernels. A number the package lists keeps the package's name.
_RETIRED: dict[str, dict[str, int]] = {
    "x86_64": {"uselib": 134, "_sysctl": 156, "create_module": 174, "get_kernel_syms": 177,
               "query_module": 178, "nfsservctl": 180, "getpmsg": 181, "putpmsg": 182,
               "afs_syscall": 183, "tuxcall": 184, "security": 185, "vserver": 236},
}

# Some facts about i386's socketcall (net/socket.c): socketcall(call, args) runs the
# socket call ``call`` names (SYS_SOCKET 1 .. SYS_SENDMMSG 20, include/uapi/linux/net.h)
# on the 32-bit words at args. The BPF program records it as that call (syscalls.h:
# TK_SC_INDIRECT), under the i386 number of the direct call of Linux 4.3 (socket 359 ...);
# accept, send and recv have none, and are recorded under TK_NR32_SUBCALL_BASE (1000) +
# their SYS_* number: the i386 table names these numbers, so they print, count and
# select (``-e trace=send``) by name as strace's socketcall sub-calls do.
# keep in sync with programs/syscalls.h (TK_NR32_SUBCALL_BASE) and socketcall_sub
SUBCALL_BASE32 = 1000
_SUBCALLS: dict[str, dict[str, int]] = {
    "i386": {"accept": SUBCALL_BASE32 + 5, "send": SUBCALL_BASE32 + 9,
             "recv": SUBCALL_BASE32 + 10},
}


class SyscallTable:
    """The syscall numbers of one architecture.

    Args:
      arch: ``"x86_64"``, ``"arm64"`` or ``"i386"`` (the compat table of x86_64, used for
        records with SC_COMPAT); ``None`` means this machine (``platform.machine()``,
        ``aarch64`` -> ``arm64``).

    Raises:
      ValueError: an architecture tracekit has no table for.
    """

    def __init__(self, arch: str | None = None) -> None:
        if arch is None:
            arch = machine_arch()
        if arch not in ARCHES:
            raise ValueError(f"no syscall table for arch {arch!r} "
                             f"(known: {', '.join(sorted(ARCHES))})")
        self.arch = arch
        table: dict[str, int] = dict(_SYSCALLS.load_arch_table(ARCHES[arch]))
        taken = set(table.values())
        for name, nr in (_RETIRED.get(arch, {}) | _SUBCALLS.get(arch, {})).items():
            if name not in table and nr not in taken:
                table[name] = nr
        self._by_name = dict(table)
        self._by_nr = {nr: name for name, nr in sorted(table.items())}

    @classmethod
    def from_numbers(cls, arch: str, numbers: dict[str, int]) -> SyscallTable:
        """A table of ``arch`` with these ``name -> number`` pairs (a recording's: what
        :meth:`numbers` gave on the machine that made it).

        Raises:
          ValueError: an architecture tracekit has no table for.
        """
        if arch not in ARCHES:
            raise ValueError(f"no syscall table for arch {arch!r} "
                             f"(known: {', '.join(sorted(ARCHES))})")
        table = cls.__new__(cls)
        table.arch = arch
        table._by_name = dict(numbers)
        table._by_nr = {nr: name for name, nr in sorted(numbers.items())}
        return table

    def numbers(self) -> dict[str, int]:
        """Every ``name -> number`` pair of the table."""
        return dict(self._by_name)

    def __repr__(self) -> str:
        return f"SyscallTable({self.arch!r})"

    def name(self, nr: int) -> str:
        """The syscall's name; ``"syscall_<nr>"`` (strace's spelling) for unknown numbers."""
        return self._by_nr.get(nr, f"syscall_{nr}")

    def nr(self, name: str) -> int | None:
        """The syscall's number, or None when this arch has no such syscall.

        tracefs event names (``newstat``, see ``tracekit.kernel.tracefs.EVENT_ALIASES``) are
        accepted too.
        """
        nr = self._by_name.get(name)
        if nr is None and name in EVENT_ALIASES:
            nr = self._by_name.get(EVENT_ALIASES[name])
        return nr

    def names(self) -> list[str]:
        """Every syscall name of this arch, sorted."""
        return sorted(self._by_name)

    def max_nr(self) -> int:
        """The highest syscall number in the table."""
        return max(self._by_nr)

    def cross_check(self, tracefs_names: set[str]) -> list[str]:
        """Names that tracefs has (``sys_enter_<name>``) and this table lacks, sorted.

        Event names in ``EVENT_ALIASES`` count under their table name. A non-empty answer
        on a native table means the system_calls package is older than the kernel.
        """
        return sorted(n for n in tracefs_names if self.nr(n) is None)


# Some facts about kernel-internal errnos (include/linux/errno.h): they must never reach
# user space, but sys_exit sees them: a syscall interrupted by a signal returns
# -ERESTART* and is restarted (or turned into EINTR) on the way out to user space.
_KERNEL_ERRNOS: dict[int, tuple[str, str]] = {
    512: ("ERESTARTSYS", "To be restarted if SA_RESTART is set"),
    513: ("ERESTARTNOINTR", "To be restarted"),
    514: ("ERESTARTNOHAND", "To be restarted if no handler"),
    515: ("ENOIOCTLCMD", "No ioctl command"),
    516: ("ERESTART_RESTARTBLOCK", "Interrupted by signal"),
    517: ("EPROBE_DEFER", "Driver requests probe retry"),
    518: ("EOPENSTALE", "Open found a stale dentry"),
    519: ("ENOPARAM", "Parameter not supported"),
    521: ("EBADHANDLE", "Illegal NFS file handle"),
    522: ("ENOTSYNC", "Update synchronization mismatch"),
    523: ("EBADCOOKIE", "Cookie is stale"),
    524: ("ENOTSUPP", "Operation is not supported"),
    525: ("ETOOSMALL", "Buffer or request is too small"),
    526: ("ESERVERFAULT", "An untranslatable error occurred"),
    527: ("EBADTYPE", "Type not supported by server"),
    528: ("EJUKEBOX", "Request initiated, but will not complete before timeout"),
    529: ("EIOCBQUEUED", "iocb queued, will get completion event"),
    530: ("ERECALLCONFLICT", "Conflict with recalled state"),
    531: ("ENOGRACE", "NFS file lock reclaim refused"),
}
# The restart codes: the syscall is restarted, so its return value is not a result;
# strace prints it as "? ERESTARTSYS (...)".
_RESTART = frozenset({512, 513, 514, 516})
# Python's errno.errorcode picks an alias for a few values; use the name strace and the
# kernel's include/uapi/asm-generic/errno*.h print first.
_PREFERRED = {_errno.EAGAIN: "EAGAIN", _errno.EDEADLK: "EDEADLK", _errno.EOPNOTSUPP: "EOPNOTSUPP"}

# the syscall table of each AUDIT_ARCH_* (include/uapi/linux/audit.h) tracekit has one for
_AUDIT_TABLES = {"AUDIT_ARCH_X86_64": "x86_64", "AUDIT_ARCH_I386": "i386",
                 "AUDIT_ARCH_AARCH64": "arm64"}


@functools.cache
def _table(arch: str) -> SyscallTable:
    return SyscallTable(arch)


def audit_syscall_name(audit_arch: str | None, nr: int) -> str | None:
    """The name of syscall ``nr`` in the table of an ``AUDIT_ARCH_*`` name (a seccomp
    stop's or a SIGSYS's arch): ``("AUDIT_ARCH_X86_64", 0)`` -> ``"read"``; None for an
    arch without a table or a number without a name."""
    arch = _AUDIT_TABLES.get(audit_arch or "")
    if arch is None:
        return None
    name = _table(arch).name(nr)
    return None if name.startswith("syscall_") else name



def errno_name(err: int) -> str:
    """The symbolic name of a positive errno (``2`` -> ``"ENOENT"``, ``512`` ->
    ``"ERESTARTSYS"``); ``"E<n>"`` when unknown."""
    if err in _KERNEL_ERRNOS:
        return _KERNEL_ERRNOS[err][0]
    return _PREFERRED.get(err) or _errno.errorcode.get(err, f"E{err}")


def errno_message(err: int) -> str:
    """What a positive errno means: ``os.strerror`` for user-visible ones, the meaning
    strace prints (or the include/linux/errno.h comment) for kernel-internal ones."""
    if err in _KERNEL_ERRNOS:
        return _KERNEL_ERRNOS[err][1]
    return os.strerror(err)


def format_ret(ret: int) -> str:
    """A raw syscall return value as strace prints it.

    ``-4095 <= ret < 0`` is ``-errno``: ``"-1 ENOENT (No such file or directory)"``, or
    ``"? ERESTARTSYS (To be restarted if SA_RESTART is set)"`` for a restart code; any
    other value is ``str(ret)``.
    """
    if -4095 <= ret < 0:
        err = -ret
        head = "?" if err in _RESTART else "-1"
        return f"{head} {errno_name(err)} ({errno_message(err)})"
    return str(ret)


def syscall_namers(syscall_name: Callable[[int], str] | None = None,
                   compat_syscall_name: Callable[[int], str] | None = None,
                   ) -> tuple[Callable[[int], str], Callable[[int], str]]:
    """Number -> name functions for native and 32-bit (SC_COMPAT) syscalls.

    Missing ones default to this machine's table and, on x86_64, the i386 table (compat
    numbers on arm64 are named ``syscall_<nr>``).
    """
    if syscall_name is None or compat_syscall_name is None:
        native = SyscallTable()
        syscall_name = syscall_name or native.name
        if compat_syscall_name is None and native.arch == "x86_64":
            compat_syscall_name = SyscallTable("i386").name
    return syscall_name, compat_syscall_name or (lambda nr: f"syscall_{nr}")
