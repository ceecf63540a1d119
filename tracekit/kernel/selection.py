"""Syscall selection expressions, as strace's ``-e trace=``: names, numbers, globs, classes.

Grammar of one item::

    item  := ["!"] ["?"] (name | number | glob | "/" regex | "%" class) | "all" | "none"
    name  := "openat"            number := 257 | "257"
    glob  := "open*" "*stat*"    (fnmatch: * ? [...])
    class := "file" "desc" "net" ... "%stat" (written "%%stat"), see tracekit.kernel.syscall_classes

strace's legacy class names are taken without the ``%`` too (``file``, ``desc``,
``memory``, ``process``, ``signal``, ``ipc``, ``network``), before syscall names.

Positive items are united; negations are then removed. With only negations, the start is
every syscall of the table. ``?`` before an item (strace) makes a name, class or glob
that this architecture lacks select nothing instead of being an error. A list that ends
up selecting nothing is an error, unless it says so with ``none``.

Signals (strace ``-e signal=``) and errnos (``-e errno=``) are lists of the same shape:
names (``SIGUSR1``/``USR1``, ``ENOENT``), numbers, ``all``, ``none`` and ``!`` negations.
"""

from __future__ import annotations

import ctypes
import difflib
import errno as _errno
import fnmatch
import functools
import os
from collections.abc import Callable

from tracekit._errors import ConfigError, quoted
from tracekit.kernel.syscall_classes import CLASSES
from tracekit.kernel.syscalls import SyscallTable

__all__ = ["CLASSES", "class_names", "resolve_compat_syscalls", "resolve_errnos",
           "resolve_item", "resolve_signals", "resolve_syscalls"]

_GLOB_CHARS = frozenset("*?[")

# strace 6.1's "legacy class names" (basic_filters.c), taken before syscall names as there;
# no other class is taken without its % (`net`, `creds` are unknown names, `stat` the call)
_LEGACY_CLASSES = {"desc": "%desc", "file": "%file", "memory": "%memory",
                   "process": "%process", "signal": "%signal", "ipc": "%ipc",
                   "network": "%net"}


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes '²' and '١', which int() then refuses
    or reads (strace's strtol takes neither)."""
    return text.isascii() and text.isdigit()


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


class PosixRegex:
    """A POSIX extended regular expression compiled by the C library's regcomp(3) with
    ``REG_EXTENDED | REG_NOSUB``, as strace compiles a ``/regex`` item (strace 6.1
    filter_qualify.c): the same dialect (bracket classes, ``\\<``, ``a**``, a ``)``
    without its ``(`` taken literally, ``\\d`` a plain ``d``) and the same errors, in
    the C library's words (regerror(3)).

    Raises:
      ValueError: the pattern does not compile (regerror's text), or holds a NUL.
    """

    # regex_t: 64 bytes in glibc on 64-bit machines, less in musl; room to spare
    _SIZE = 256

    def __init__(self, pattern: str) -> None:
        if "\0" in pattern:
            raise ValueError("a NUL byte in the pattern")
        libc = _libc()
        self._buf = ctypes.create_string_buffer(self._SIZE)
        rc = libc.regcomp(self._buf, os.fsencode(pattern), _REG_EXTENDED | _REG_NOSUB)
        if rc:
            err = ctypes.create_string_buffer(256)
            libc.regerror(rc, self._buf, err, len(err))
            raise ValueError(err.value.decode(errors="replace"))
        self._libc: ctypes.CDLL | None = libc

    def search(self, text: str) -> bool:
        """True when the expression matches somewhere in ``text`` (regexec(3))."""
        assert self._libc is not None
        return int(self._libc.regexec(self._buf, os.fsencode(text), 0, None, 0)) == 0

    def __del__(self) -> None:
        libc, self._libc = getattr(self, "_libc", None), None
        if libc is not None:
            libc.regfree(self._buf)


_REG_EXTENDED, _REG_NOSUB = 1, 8    # <regex.h>, glibc and musl alike


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None)            # the process's C library, which has regcomp
    libc.regcomp.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    libc.regexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                             ctypes.c_void_p, ctypes.c_int]
    libc.regerror.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                              ctypes.c_size_t]
    libc.regerror.restype = ctypes.c_size_t
    libc.regfree.argtypes = [ctypes.c_void_p]
    libc.regfree.restype = None
    return libc


def compile_regex(pattern: str, *, where: str = "") -> PosixRegex:
    """The pattern of a ``/regex`` item, compiled as strace compiles it
    (:class:`PosixRegex`).

    Raises:
      ConfigError: the pattern does not compile; the message starts with ``where``,
        quotes the pattern and gives the C library's reason (``Unmatched \\{``,
        ``Invalid preceding regular expression``).
    """
    try:
        return PosixRegex(pattern)
    except ValueError as e:
        raise ConfigError(f"{_prefix(where)}bad regular expression {quoted(pattern)}: {e}") \
            from None


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
    if isinstance(item, str) and item.strip().startswith("?"):
        # strace's "?": a name this arch lacks selects nothing; a bad /regex is still an
        # error there (strace's regcomp fails before any name is looked up)
        if item.strip()[1:].startswith("/"):
            compile_regex(item.strip()[2:], where=where)
        try:
            return resolve_item(item.strip()[1:], table, where=where)
        except ConfigError:
            if _digits(item.strip()[1:].strip()):
                raise
            return set()
    if isinstance(item, str) and item.strip() in ("all", "none"):
        return _all(table) if item.strip() == "all" else set()
    if isinstance(item, str) and _digits(item.strip()):
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
            raise ConfigError(f"{pre}unknown syscall class {quoted(text)}"
                              + (_suggest(text, class_names()) or
                                 f" (classes: {', '.join(class_names())})"))
        # A class may be empty on an arch (arm64 has no stat/lstat): that selects nothing.
        return {nr for name in CLASSES[cls] if (nr := table.nr(name)) is not None}
    if text.startswith("/"):
        # strace's /regex: every name it matches (regexec; "/" alone matches all)
        pattern = compile_regex(text[1:], where=where)
        nrs = {table.nr(n) for n in table.names() if pattern.search(n)}
        if not nrs:
            raise ConfigError(f"{pre}regular expression {quoted(text[1:])} matches no syscall on "
                              f"{table.arch}")
        return {nr for nr in nrs if nr is not None}
    if text in _LEGACY_CLASSES:
        # strace's class names from before the %: `strace -e trace=file` still works there
        return resolve_item(_LEGACY_CLASSES[text], table, where=where)
    if _GLOB_CHARS & set(text):
        nrs = {table.nr(n) for n in fnmatch.filter(table.names(), text)}
        if not nrs:
            raise ConfigError(f"{pre}pattern {quoted(text)} matches no syscall on {table.arch}")
        return {nr for nr in nrs if nr is not None}
    nr = table.nr(text)
    if nr is None:
        raise ConfigError(f"{pre}unknown syscall {quoted(text)} on {table.arch}"
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

    On x86_64 an item only the i386 table has (``chown32``, ``_llseek``, socketcall's
    ``send``, ``socketcall``) selects no native call, and is no error: strace resolves
    each personality in its own table, and :func:`resolve_compat_syscalls` selects the
    32-bit calls it names; nor is a list that selects only such calls.

    Raises:
      ConfigError: for the first bad item (see ``resolve_item``), suggesting nearest
        names, e.g. ``unknown syscall 'opnat' on x86_64 (did you mean 'openat'?)``.
    """
    t32 = SyscallTable("i386") if table.arch == "x86_64" else None

    def one(item: str | int) -> set[int]:
        try:
            return resolve_item(item, table, where=where)
        except ConfigError:
            if t32 is None or not isinstance(item, str) or _digits(item.strip()):
                raise
            try:
                if resolve_item(item, t32):
                    return set()            # the 32-bit calls' selection has it
            except ConfigError:
                pass
            raise

    return _resolve_list(exprs, one, lambda: _all(table),
                         f"syscall on {table.arch}; to trace no syscall, say none", "syscall",
                         where, other=None if t32 is None else
                         lambda: bool(resolve_compat_syscalls(exprs)))


def resolve_compat_syscalls(exprs: list[str | int]) -> set[int]:
    """The i386 numbers the same items select for the 32-bit calls of x86_64 tasks.

    strace resolves ``-e trace=`` in each personality's own table: ``write`` is 1 for a
    64-bit call and 4 for an ``int $0x80`` one, ``%file`` takes in ``stat64`` and
    ``chown32``. A name, glob or number that i386 lacks selects nothing here (the native
    selection, resolved first, has already refused what no table has).

    Returns:
      i386 syscall numbers; empty when nothing is selected for 32-bit calls.
    """
    t32 = SyscallTable("i386")

    def one(item: str | int) -> set[int]:
        try:
            return resolve_item(item, t32)
        except ConfigError:
            return set()

    try:
        return _resolve_list(exprs, one, lambda: _all(t32), "", "syscall", "")
    except ConfigError:         # selects no 32-bit call
        return set()


def _all(table: SyscallTable) -> set[int]:
    return {nr for name in table.names() if (nr := table.nr(name)) is not None}


def _resolve_list(exprs: list[str | int], one: Callable[[str | int], set[int]],
                  universe: Callable[[], set[int]], nothing: str, what: str,
                  where: str, other: Callable[[], bool] | None = None) -> set[int]:
    """Positives united, negations removed (from ``universe()`` when there are only
    negations); ``all``/``none``; an empty result without ``none`` is an error that ends
    ``selects no <nothing>``, unless ``other()`` says the list selects calls of another
    table (i386's)."""
    positive: set[int] = set()
    negative: set[int] = set()
    any_positive = any_negative = False
    for item in exprs:
        text = item.strip() if isinstance(item, str) else item
        neg = isinstance(text, str) and text.startswith("!")
        if neg:
            assert isinstance(text, str)
            text = text[1:].strip()
        if text in ("all", "none"):
            got = universe() if text == "all" else set()
        else:
            got = one(text)
        if neg:
            any_negative = True
            negative |= got
        else:
            any_positive = True
            positive |= got
    if not any_positive and any_negative:
        positive = universe()
    result = positive - negative
    if exprs and not result and "none" not in exprs and not (other is not None and other()):
        raise ConfigError(f"{_prefix(where)}the {what} selection "
                          f"{', '.join(map(str, exprs))} selects no {nothing}")
    return result


def _number_or_name(item: str | int, by_name: dict[str, int], top: int, what: str,
                    number: str, name_of: Callable[[str], str], where: str) -> set[int]:
    """One signal or errno: a number in 1..top (``number`` names it in the error), or a
    name (``name_of`` spells it as ``by_name``'s keys), as a one-element set."""
    if isinstance(item, str) and _digits(item):
        item = int(item)
    if isinstance(item, int) and not isinstance(item, bool):
        if not 1 <= item <= top:
            raise ConfigError(f"{_prefix(where)}{number} {item} is out of range (1..{top})")
        return {item}
    if not isinstance(item, str):
        raise ConfigError(f"{_prefix(where)}a{'n' if what[0] in 'aeiou' else ''} {what} must "
                          f"be a name or a number, got {item!r}")
    name = name_of(item)
    if name not in by_name:
        raise ConfigError(f"{_prefix(where)}unknown {what} {item!r}"
                          + _suggest(name, sorted(by_name)))
    return {by_name[name]}


def _signal_name(item: str) -> str:
    name = item.upper()
    return name if name.startswith("SIG") else f"SIG{name}"


def resolve_signals(exprs: list[str | int], *, arch: str | None = None,
                    where: str = "") -> set[int]:
    """The signal numbers (1..64) a list such as ``["SIGUSR1", "CHLD", 15, "!SIGINT"]``
    selects (strace ``-e signal=``; names from the arch's uapi ``asm/signal.h`` table,
    ``SIGRTMIN`` and ``SIGRT_<n>`` as strace prints real-time signals).

    Raises:
      ConfigError: an unknown name or a number outside 1..64 (with ``where``), or a
        list that selects no signal without saying ``none``.
    """
    from tracekit.kernel.flag_tables import for_arch

    by_name: dict[str, int] = {name: nr for nr, name in for_arch(arch).SIGNALS.items()}
    by_name["SIGRTMIN"] = 32
    for n in range(1, 33):
        by_name[f"SIGRT_{n}"] = 32 + n

    def one(item: str | int) -> set[int]:
        return _number_or_name(item, by_name, 64, "signal", "signal number", _signal_name,
                               where)

    return _resolve_list(exprs, one, lambda: set(range(1, 65)),
                         "signal; to select none, say none", "signal", where)


def resolve_errnos(exprs: list[str | int], *, where: str = "") -> set[int]:
    """The errno numbers (1..4095) a list such as ``["ENOENT", 13, "!EAGAIN"]`` selects
    (names as strace prints them, tracekit.kernel.syscalls.errno_name; ``all`` is every
    errno a syscall can return).

    Raises:
      ConfigError: an unknown name or a number outside 1..4095 (with ``where``), or a
        list that selects no errno without saying ``none``.
    """
    from tracekit.kernel.syscalls import errno_name

    # the names strace prints, then Python's aliases (EWOULDBLOCK for EAGAIN ...)
    by_name = {name: n for n in range(1, 4096) if (name := errno_name(n)) != f"E{n}"}
    for name, nr in vars(_errno).items():
        if name.startswith("E") and isinstance(nr, int):
            by_name.setdefault(name, nr)

    def one(item: str | int) -> set[int]:
        return _number_or_name(item, by_name, 4095, "errno", "errno", str.upper, where)

    return _resolve_list(exprs, one, lambda: set(range(1, 4096)),
                         "errno; to select none, say none", "errno", where)
