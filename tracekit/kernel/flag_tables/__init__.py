"""Flag, constant and ioctl tables per architecture, and the one place that picks one.

``x86_64.py`` and ``arm64.py`` are generated from each arch's uapi and libc headers by
scripts/gen_beauty_tables.py (never edited by hand). Their values differ where the
headers do: ``0x10000`` is O_DIRECTORY on x86_64 and O_DIRECT on arm64.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from tracekit.kernel.arch import SUPPORTED, machine_arch

__all__ = ["for_arch"]


def for_arch(arch: str | None = None) -> ModuleType:
    """The generated table module of ``arch`` (default: the running one).

    Args:
      arch: ``"x86_64"`` or ``"arm64"``; ``None`` means this machine
        (``platform.machine()``, ``aarch64`` -> ``arm64``).

    Returns:
      The module ``tracekit.kernel.flag_tables.<arch>``: its ``*_FLAGS`` and other bit
      tables are ``((value, name), ...)`` in print order, its value tables ``{value: name}``.

    Raises:
      ValueError: an architecture without generated tables.
    """
    arch = machine_arch() if arch is None else arch
    if arch not in SUPPORTED:
        raise ValueError(f"no flag tables for arch {arch!r} "
                         f"(known: {', '.join(SUPPORTED)})")
    return importlib.import_module(f"{__name__}.{arch}")
