"""``tracekit list``: the text lists what the registries and this machine's tables hold."""

from __future__ import annotations

import pytest

from tracekit._errors import ConfigError
from tracekit.app.listing import list_text
from tracekit.app.registry import available_stage_kinds
from tracekit.formatters import available_formats
from tracekit.kernel.selection import resolve_item
from tracekit.kernel.syscalls import SyscallTable


def _first_words(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines() if line and not line.startswith("#")]


def test_stages_are_the_registry_kinds_in_order() -> None:
    text = list_text("stages")
    assert _first_words(text) == available_stage_kinds()
    line = next(x for x in text.splitlines() if x.startswith("beautify "))
    assert "decoded" in line                 # the module's own first docstring line
    assert "``" not in text


def test_formatters_are_the_registry_formats() -> None:
    text = list_text("formatters")
    assert _first_words(text) == available_formats()
    assert {"perf", "jsonl", "strace", "summary"} <= set(_first_words(text))


@pytest.mark.parametrize("arch", [None, "x86_64", "arm64", "i386"])
def test_syscalls_numbers_names_and_classes(arch: str | None) -> None:
    table = SyscallTable(arch)
    lines = list_text("syscalls", arch=arch).splitlines()
    assert lines[0] == f"# {len(table.names())} syscalls, {table.arch} (number, name, classes)"
    rows = [line.split() for line in lines[1:]]
    assert [int(r[0]) for r in rows] == sorted(int(r[0]) for r in rows)
    assert {r[1] for r in rows} == set(table.names())
    for nr, name, *classes in rows:
        assert table.nr(name) == int(nr)
        assert table.name(int(nr)) == name
        for cls in classes:                  # every class shown selects this syscall
            assert int(nr) in resolve_item(cls, table), (name, cls)
    file_nrs = resolve_item("%file", table)  # and every member of a class shows it
    shown = {int(r[0]) for r in rows if "%file" in r[2:]}
    assert shown == file_nrs


def test_unknown_list_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^tracekit list: 'maps' is not one of stages, "):
        list_text("maps")
