"""Syscall selection expressions, as strace's ``-e trace=``: names, numbers, globs, classes.

Grammar of one item::

    item  := ["!"] (name | number | glob | "%" class)
    name  := "openat"            number := 257 | "257"
    glob  := "open*" "*stat*"    (fnmatch: * ? [...])
    class := "file" "desc" "net" ... "%stat" (written "%%stat"), see tracekit.kernel.syscall_classes

Positive items are united; negations are then removed. With only negations, the start is
every syscall of the table.
"""

from __future__ import annotations

import difflib
import fnmatch

from tracekit._errors import ConfigError
from tracekit.kernel.syscall_classes import CLASSES
from tracekit.kernel.syscalls import SyscallTable

__all__ = ["CLASSES", "class_names", "resolve_syscalls", "resolve_item"]

_GLOB_CHARS = frozenset("*?[")


def class_names() -> list[str]:
    """Every class as written in an expression: ``["%%stat", ..., "%file", ...]``."""
    return sorted(f"%{c}" for c in CLASSES)


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def resolve_item(item: str | int, table: SyscallTable, *, where: str = "") -> set[int]:
    """The syscall numbers one item (without ``!``) selects.

    Raises:
      ConfigError: an unknown name, class or a number out of range; a glob that selects
        nothing on ``table.arch``. The message starts with ``where`` and suggests
        the nearest valid names.
    """
    pre = _prefix(where)
    if isinstance(item, bool) or not isinstance(item, (int, str)):
        raise ConfigError(f"{pre}a syscall must be a name or a number, got {item!r}")
    if isinstance(item, str) and item.strip().isdigit():
        item = int(item)
    if isinstance(item, int):
        if not 0 <= item <= table.max_nr():
            raise ConfigError(f"{pre}syscall number {item} is out of range for {table.arch} "
                              f"(0..{table.max_nr()})")
        return {item}
    text = item.strip()
    if not text:
        raise ConfigError(f"{pre}empty syscall name")
    if text.startswith("%"):
        cls = text[1:]
        if cls not in CLASSES:
            raise ConfigError(f"{pre}unknown syscall class {text!r}"
                              + (_suggest(text, class_names()) or
                                 f" (classes: {', '.join(class_names())})"))
        # A class may be empty on an arch (arm64 has no stat/lstat): that selects nothing.
        return {nr for name in CLASSES[cls] if (nr := table.nr(name)) is not None}
    if _GLOB_CHARS & set(text):
        nrs = {table.nr(n) for n in fnmatch.filter(table.names(), text)}
        if not nrs:
            raise ConfigError(f"{pre}pattern {text!r} matches no syscall on {table.arch}")
        return {nr for nr in nrs if nr is not None}
    nr = table.nr(text)
    if nr is None:
        raise ConfigError(f"{pre}unknown syscall {text!r} on {table.arch}"
                          + _suggest(text, table.names()))
    return {nr}


def resolve_syscalls(exprs: list[str | int], table: SyscallTable, *,
                     where: str = "") -> set[int]:
    """The set of syscall numbers that a list of items selects.

    Args:
      exprs: items such as ``["openat", 257, "open*", "%file", "!read", "!%net"]``.
      table: the syscall table of the traced arch.
      where: prefix for error messages (e.g. ``"pipeline.toml:7:13"``).

    Returns:
      Syscall numbers of ``table``; an empty list selects nothing (the empty set).

    Raises:
      ConfigError: for the first bad item (see ``resolve_item``), suggesting nearest
        names, e.g. ``unknown syscall 'opnat' on x86_64 (did you mean 'openat'?)``.
    """
    positive: set[int] = set()
    negative: set[int] = set()
    any_positive = False
    for item in exprs:
        if isinstance(item, str) and item.strip().startswith("!"):
            negative |= resolve_item(item.strip()[1:], table, where=where)
        else:
            any_positive = True
            positive |= resolve_item(item, table, where=where)
    if not any_positive and negative:
        positive = {nr for name in table.names() if (nr := table.nr(name)) is not None}
    return positive - negative
