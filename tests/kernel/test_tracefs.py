"""tracefs format parsing, on fixtures (6.18 real, 6.19 reconstructed) and live."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tracekit._errors import TracefsError
from tracekit.kernel.tracefs import (
    EVENT_ALIASES,
    Field,
    parse_format,
    read_format,
    syscall_arg_table,
    syscall_args,
    syscall_args_of,
    syscall_event_names,
)

LIVE = Path("/sys/kernel/tracing")


def _live() -> Path:
    if not (LIVE / "events" / "syscalls").is_dir():
        pytest.skip(f"no syscall events under {LIVE}")
    return LIVE


def test_parse_openat_618(shared_fixtures: Path) -> None:
    fmt = read_format(shared_fixtures / "tracefs" / "6.18", "syscalls", "sys_enter_openat")
    assert fmt.name == "sys_enter_openat" and fmt.system == "syscalls"
    assert fmt.id == 782
    assert [f.name for f in fmt.common] == [
        "common_type", "common_flags", "common_preempt_count", "common_pid"]
    assert fmt.fields[0] == Field("__syscall_nr", "int", 8, 4, True, False)
    assert fmt.fields[2] == Field("filename", "const char *", 24, 8, False, False)
    assert fmt.print_fmt.startswith('"dfd: 0x%08lx')


def test_parse_data_loc_and_arrays(shared_fixtures: Path) -> None:
    root = shared_fixtures / "tracefs" / "6.18"
    fork = read_format(root, "sched", "sched_process_fork")
    assert fork.fields[0] == Field("parent_comm", "char[]", 8, 4, False, True)
    exit_ = read_format(root, "sched", "sched_process_exit")
    assert exit_.fields[0] == Field("comm", "char[16]", 8, 16, False, False)
    assert exit_.fields[-1].name == "group_dead"


@pytest.mark.parametrize("name", ["openat", "execve", "write"])
def test_619_internal_fields_never_shift_args(shared_fixtures: Path, name: str) -> None:
    """Kernel rule 10: 6.19's ``__data_loc char[] __<arg>_val`` fields are not arguments."""
    base = shared_fixtures / "tracefs"
    old = read_format(base / "6.18", "syscalls", f"sys_enter_{name}")
    new = read_format(base / "6.19", "syscalls", f"sys_enter_{name}")
    assert any(f.data_loc and f.name.startswith("__") for f in new.fields)
    assert syscall_args(new) == syscall_args(old)
    assert len(new.fields) > len(old.fields)


def test_619_openat_args(shared_fixtures: Path) -> None:
    fmt = read_format(shared_fixtures / "tracefs" / "6.19", "syscalls", "sys_enter_openat")
    assert [(f.name, f.offset) for f in syscall_args(fmt)] == [
        ("dfd", 16), ("filename", 24), ("flags", 32), ("mode", 40)]


@pytest.mark.parametrize("text, where", [
    ("name: x\nformat:\n\tfield:int a;\toffset:zz;\tsize:4;\tsigned:1;\n", ":3: malformed field"),
    ("name: x\nID: abc\nformat:\n", ":2: malformed ID"),
    ("name: x\nformat:\nbogus line\n", ":3: unexpected line 'bogus line'"),
    ("name: x\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", ":2: field line before"),
    ("name: x\n", "no 'format:' section"),
])
def test_parse_format_malformed_names_the_line(text: str, where: str) -> None:
    with pytest.raises(ValueError, match="^g/x/format") as ei:
        parse_format(text, system="g", name="x")
    assert where in str(ei.value)


def test_read_format_missing_event(tmp_path: Path) -> None:
    with pytest.raises(TracefsError) as ei:
        read_format(tmp_path, "syscalls", "sys_enter_nope")
    assert ei.value.errno == errno.ENOENT
    assert "sys_enter_nope/format" in ei.value.path


def test_fixture_event_names(shared_fixtures: Path) -> None:
    root = shared_fixtures / "tracefs" / "6.19"
    assert syscall_event_names(root) == {"openat", "execve", "write"}
    table = syscall_arg_table(root)
    assert [f.name for f in table["write"]] == ["fd", "buf", "count"]


@pytest.mark.kernel
def test_live_arg_table_matches_kernel() -> None:
    root = _live()
    table = syscall_arg_table(root)
    assert [f.name for f in table["openat"]] == ["dfd", "filename", "flags", "mode"]
    assert [f.name for f in table["execve"]] == ["filename", "argv", "envp"]
    assert table["getppid"] == []
    assert [f.name for f in table["stat"]] == ["filename", "statbuf"]   # newstat alias
    for name, args in table.items():
        assert len(args) <= 6, name
        assert [a.offset for a in args] == [16 + 8 * i for i in range(len(args))], name
    # every event of the directory is in the table, and the per-name lookup agrees
    assert syscall_event_names(root) <= set(table)
    assert syscall_args_of(root, "openat") == table["openat"]
    assert syscall_args_of(root, "umount2") == table["umount"]
    assert syscall_args_of(root, "no_such_syscall") is None


@pytest.mark.kernel
def test_live_formats_agree_with_raw_text() -> None:
    """Parse every live sys_enter format and compare with a line count of the raw text."""
    root = _live()
    for name in sorted(syscall_event_names(root))[:400]:
        text = (root / "events" / "syscalls" / f"sys_enter_{name}" / "format").read_text()
        n_fields = sum(1 for line in text.splitlines() if line.strip().startswith("field:"))
        fmt = parse_format(text, system="syscalls")
        assert len(fmt.common) + len(fmt.fields) == n_fields
        assert fmt.name == f"sys_enter_{name}"


def test_aliases_are_consistent() -> None:
    assert len(set(EVENT_ALIASES.values())) == len(EVENT_ALIASES)
    assert not set(EVENT_ALIASES) & set(EVENT_ALIASES.values())
