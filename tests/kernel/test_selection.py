"""Syscall selection expressions against the real system_calls tables and tracefs."""

from __future__ import annotations

import errno
import fnmatch
from pathlib import Path

import pytest

from tracekit._errors import ConfigError
from tracekit.kernel.selection import (
    CLASSES,
    class_names,
    resolve_compat_syscalls,
    resolve_errnos,
    resolve_item,
    resolve_signals,
    resolve_syscalls,
)
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import EVENT_ALIASES, syscall_arg_table

X86 = SyscallTable("x86_64")
LIVE = Path("/sys/kernel/tracing")


def nrs(*names: str, table: SyscallTable = X86) -> set[int]:
    out = {table.nr(n) for n in names}
    assert None not in out
    return out  # type: ignore[return-value]


def test_names_numbers_and_strings_of_numbers() -> None:
    assert resolve_syscalls(["openat", 0, "1"], X86) == nrs("openat", "read", "write")


def test_glob_matches_what_fnmatch_says() -> None:
    got = resolve_syscalls(["open*"], X86)
    expected = {X86.nr(n) for n in X86.names() if fnmatch.fnmatchcase(n, "open*")}
    assert got == expected and nrs("open", "openat", "openat2", "open_tree") <= got


def test_class_and_negation() -> None:
    file = resolve_syscalls(["%file"], X86)
    assert nrs("openat", "execve", "stat", "unlinkat", "rename") <= file
    assert not nrs("read", "close", "getpid") & file
    assert resolve_syscalls(["%file", "!openat"], X86) == file - nrs("openat")
    assert resolve_syscalls(["%%stat"], X86) == nrs("stat", "lstat", "fstat", "newfstatat",
                                                    "statx")


def test_strace_legacy_class_names_without_the_percent() -> None:
    # strace 6.1 still takes the old names (`strace -e trace=file`, `trace=network`);
    # only these seven: `net`, `creds` ... without % are unknown names there too
    for legacy, cls in (("desc", "%desc"), ("file", "%file"), ("memory", "%memory"),
                        ("process", "%process"), ("signal", "%signal"), ("ipc", "%ipc"),
                        ("network", "%net")):
        assert resolve_syscalls([legacy], X86) == resolve_syscalls([cls], X86), legacy
    assert resolve_syscalls(["file", "!openat"], X86) == (
        resolve_syscalls(["%file"], X86) - nrs("openat"))
    assert resolve_compat_syscalls(["signal"]) == resolve_compat_syscalls(["%signal"])
    assert resolve_syscalls(["stat"], X86) == nrs("stat")      # the call, not %stat
    for not_legacy in ("net", "creds", "clock", "pure"):
        with pytest.raises(ConfigError, match=f"unknown syscall '{not_legacy}' on x86_64"):
            resolve_syscalls([not_legacy], X86)


def test_only_negations_start_from_everything() -> None:
    everything = {X86.nr(n) for n in X86.names()}
    assert resolve_syscalls(["!read", "!%net"], X86) == (
        everything - nrs("read") - resolve_syscalls(["%net"], X86))


def test_empty_is_empty() -> None:
    assert resolve_syscalls([], X86) == set()


def test_per_arch() -> None:
    arm = SyscallTable("arm64")
    assert resolve_syscalls(["openat"], arm) == {56}
    assert resolve_syscalls(["%%stat"], arm) == nrs("fstat", "newfstatat", "statx", table=arm)
    with pytest.raises(ConfigError, match="unknown syscall 'open' on arm64"):
        resolve_syscalls(["open"], arm)


@pytest.mark.parametrize("item, message", [
    ("opnat", r"^f:1:2: unknown syscall 'opnat' on x86_64 \(did you mean 'openat'"),
    ("%fiel", r"^f:1:2: unknown syscall class '%fiel' \(did you mean '%file'\?\)$"),
    ("!opnat", r"unknown syscall 'opnat'"),
    ("zz*", r"^f:1:2: pattern 'zz\*' matches no syscall on x86_64$"),
    (100000, r"^f:1:2: syscall number 100000 is out of range for x86_64 \(0\.\.\d+\)$"),
    ("", r"empty syscall name"),
    ("%xyzzy", r"unknown syscall class '%xyzzy' \(classes: %%stat"),
    # a digit to str.isdigit that int() refuses: an unknown name, not a ValueError
    ("²", r"^f:1:2: unknown syscall '²' on x86_64$"),
])
def test_errors(item: str | int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_syscalls(["read", item], X86, where="f:1:2")


def test_every_class_resolves_on_every_arch() -> None:
    for arch in ("x86_64", "arm64", "i386"):
        table = SyscallTable(arch)
        for cls in class_names():
            got = resolve_item(cls, table)
            assert got or (arch, cls) in {("arm64", "%stat"), ("arm64", "%lstat")}, (arch, cls)
            if not got:                   # as a whole selection, an empty one is an error
                with pytest.raises(ConfigError, match=r"^the syscall selection %l?stat "
                                   r"selects no syscall on arm64; to trace no syscall, say none$"):
                    resolve_syscalls([cls], table)


def test_class_names_are_real_syscall_names() -> None:
    """Every name in every class is a syscall of at least one supported arch."""
    known = set().union(*(SyscallTable(a).names() for a in ("x86_64", "arm64", "i386")))
    for cls, names in CLASSES.items():
        assert names <= known, (cls, sorted(names - known))


@pytest.mark.kernel
def test_derived_classes_agree_with_live_formats() -> None:
    """%file holds every live syscall with a `const char *pathname`/`filename` argument;
    %desc every one with an `fd` argument (checked against the kernel's formats)."""
    if not (LIVE / "events" / "syscalls").is_dir():
        pytest.skip("no syscall events")
    for event, args in syscall_arg_table(LIVE).items():
        name = EVENT_ALIASES.get(event, event)
        names = {a.name for a in args if a.c_type.endswith("char *")}
        if names & {"pathname", "filename"}:
            assert name in CLASSES["file"], name
        if any(a.name == "fd" and "*" not in a.c_type for a in args):
            assert name in CLASSES["desc"], name


def test_question_mark_makes_a_missing_name_select_nothing() -> None:
    arm = SyscallTable("arm64")
    assert resolve_syscalls(["?open", "openat"], arm) == {56}
    assert resolve_syscalls(["?open", "openat"], X86) == nrs("open", "openat")
    with pytest.raises(ConfigError, match="unknown syscall 'open' on arm64"):
        resolve_syscalls(["open", "openat"], arm)


def test_all_none_and_regex() -> None:
    assert resolve_syscalls(["none"], X86) == set()
    assert resolve_syscalls(["all"], X86) == {X86.nr(n) for n in X86.names()}
    assert resolve_syscalls(["/^exec"], X86) == nrs("execve", "execveat")
    with pytest.raises(ConfigError, match=r"^f: regular expression '\^nosuch' matches no "):
        resolve_syscalls(["/^nosuch"], X86, where="f")


def test_question_mark_does_not_hide_a_bad_regex() -> None:
    # "?" drops a name this arch lacks; a pattern that does not compile stays an error
    assert resolve_syscalls(["?/^nosuch", "brk"], X86) == nrs("brk")
    for item in ("/[", "?/[", " ?/["):
        with pytest.raises(ConfigError, match=r"^f: bad regular expression '\[': "
                           r"Invalid regular expression$"):
            resolve_syscalls([item], X86, where="f")


@pytest.mark.parametrize("exprs", [["read", "!read"], ["%net", "!%net"], ["!all"]])
def test_a_selection_of_nothing_is_an_error(exprs: list[str | int]) -> None:
    with pytest.raises(ConfigError, match=r"^f:1:2: the syscall selection .* selects no "
                       r"syscall on x86_64; to trace no syscall, say none$"):
        resolve_syscalls(exprs, X86, where="f:1:2")


def test_signals() -> None:
    assert resolve_signals(["SIGUSR1", "usr2", 15, "9"]) == {10, 12, 15, 9}
    assert resolve_signals(["!SIGCHLD"]) == set(range(1, 65)) - {17}
    assert resolve_signals(["SIGRTMIN", "SIGRT_3"]) == {32, 35}
    assert resolve_signals(["none"]) == set()
    with pytest.raises(ConfigError, match=r"^w: unknown signal 'SIGUSR3' \(did you mean"):
        resolve_signals(["SIGUSR3"], where="w")
    with pytest.raises(ConfigError, match=r"^w: signal number 65 is out of range \(1\.\.64\)"):
        resolve_signals([65], where="w")
    with pytest.raises(ConfigError, match=r"^w: unknown signal '²'"):
        resolve_signals(["²"], where="w")
    with pytest.raises(ConfigError, match=r"^w: the signal selection SIGINT, !SIGINT selects "):
        resolve_signals(["SIGINT", "!SIGINT"], where="w")


def test_errnos() -> None:
    assert resolve_errnos(["ENOENT", "eacces", 22, "ERESTARTSYS", "EWOULDBLOCK"]) == {
        errno.ENOENT, errno.EACCES, errno.EINVAL, 512, errno.EAGAIN}
    assert resolve_errnos(["!ENOENT"]) == set(range(1, 4096)) - {errno.ENOENT}
    with pytest.raises(ConfigError, match=r"^w: unknown errno 'ENOENTT' \(did you mean "
                       r"'ENOENT'"):
        resolve_errnos(["ENOENTT"], where="w")
    with pytest.raises(ConfigError, match=r"^w: errno 4096 is out of range \(1\.\.4095\)$"):
        resolve_errnos([4096], where="w")


def test_32_bit_calls_are_selected_in_the_i386_table() -> None:
    """strace resolves each personality apart: names and classes by name in i386's table,
    names i386 lacks select nothing there, negations take from every i386 call."""
    t32 = SyscallTable("i386")
    assert resolve_compat_syscalls(["close"]) == {t32.nr("close")}
    assert t32.nr("close") != SyscallTable("x86_64").nr("close")
    assert resolve_compat_syscalls(["newfstatat"]) == set()     # x86_64 only
    file_class = resolve_compat_syscalls(["%file"])
    assert {t32.nr("stat64"), t32.nr("chown32"), t32.nr("open")} <= file_class
    assert t32.nr("read") not in file_class
    everything_but = resolve_compat_syscalls(["!write"])
    assert t32.nr("write") not in everything_but and t32.nr("read") in everything_but


def test_names_only_i386_has_select_32_bit_calls_and_no_native_one() -> None:
    """strace accepts ``-e trace=chown32`` (or socketcall's ``send``) on x86_64: the name
    selects the 32-bit calls of that name and no native call; an unknown name is still an
    error. socketcall's sub-calls are %network, socketcall itself %desc (strace's)."""
    x86, t32 = SyscallTable("x86_64"), SyscallTable("i386")
    assert resolve_syscalls(["send"], x86) == set()
    assert resolve_compat_syscalls(["send"]) == {t32.nr("send")} == {1009}
    assert resolve_syscalls(["chown32", "read"], x86) == {x86.nr("read")}
    assert resolve_syscalls(["?socketcall"], x86) == set()
    assert x86.nr("read") in resolve_syscalls(["!socketcall"], x86)
    with pytest.raises(ConfigError, match="unknown syscall 'sendd' on x86_64"):
        resolve_syscalls(["sendd"], x86)
    with pytest.raises(ConfigError, match="selects no syscall"):
        resolve_syscalls(["chown32", "!chown32"], x86)
    net = resolve_compat_syscalls(["%network"])
    assert {t32.nr(n) for n in ("send", "recv", "accept", "bind")} <= net
    assert t32.nr("socketcall") not in net
    assert t32.nr("socketcall") in resolve_compat_syscalls(["%desc"])


@pytest.mark.parametrize(("pattern", "matches", "not_matches"), [
    # POSIX extended expressions, as strace's regcomp(REG_EXTENDED) reads them
    ("^[[:alpha:]]+at$", ["openat", "newfstatat"], ["open", "openat2", "stat64"]),
    ("[[:digit:]]$", ["openat2", "dup3"], ["openat"]),
    (r"\<open", ["open", "openat"], ["mq_open"]),
    (r"[\d]", ["dup", "read"], ["write"]),        # a backslash in brackets is itself
    ("^[^[:alpha:]_]", [], ["read", "_llseek"]),
])
def test_a_regex_reads_as_posix_extended(pattern: str, matches: list[str],
                                         not_matches: list[str]) -> None:
    from tracekit.kernel.selection import compile_regex
    rx = compile_regex(pattern)
    assert all(rx.search(m) for m in matches), pattern
    assert not any(rx.search(m) for m in not_matches), pattern


def test_an_unknown_bracket_class_is_refused() -> None:
    from tracekit.kernel.selection import compile_regex
    with pytest.raises(ConfigError, match=r"bad regular expression '\[\[:nope:\]\]': "
                                          r"Invalid character class name"):
        compile_regex("[[:nope:]]")


def test_a_pattern_that_is_not_utf8_is_quoted_as_its_bytes() -> None:
    """argv bytes that are not UTF-8 (surrogateescape) are said as the bytes given."""
    with pytest.raises(ConfigError, match=r"regular expression '\\xff' matches no syscall"):
        resolve_syscalls(["/\udcff"], X86)
    with pytest.raises(ConfigError, match=r"unknown syscall 'op\\xffen'"):
        resolve_syscalls(["op\udcffen"], X86)
