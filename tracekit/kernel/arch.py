"""The architectures tracekit supports and the one it runs on.

tracekit's names are the kernel's (``arm64``, not ``aarch64``): the same names as
programs/build/<arch>, the per-arch flag tables and the syscall tables.
"""

from __future__ import annotations

import platform

__all__ = ["SUPPORTED", "machine_arch"]

#: Architectures with BPF objects (programs/build) and flag tables (kernel/flag_tables).
SUPPORTED: tuple[str, ...] = ("x86_64", "arm64")

# platform.machine() spellings -> tracekit's arch names.
_MACHINE_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64",
                 "i386": "i386", "i686": "i386"}


def machine_arch(machine: str | None = None) -> str:
    """tracekit's name for ``machine`` (default: this one, ``platform.machine()``).

    ``aarch64`` -> ``arm64``, ``amd64`` -> ``x86_64``; an unknown machine is returned as
    it is, for the caller to reject with its own message.
    """
    if machine is None:
        machine = platform.machine()
    return _MACHINE_ARCH.get(machine, machine)
