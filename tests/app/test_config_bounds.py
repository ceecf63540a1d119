"""pipeline.toml bounds: nesting that makes tomllib recurse or go quadratic, long syscall
lists, NUL bytes, a huge file: each is one located error, never a traceback."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests._run import run_tracekit
from tracekit._errors import ConfigError
from tracekit.app.config import (
    MAX_CONFIG_BYTES,
    MAX_NESTING,
    MAX_SYSCALL_ITEMS,
    decode_config,
    load_config,
)

BASE = '[target]\ncommand = ["true"]\n'


def err(text: str) -> str:
    with pytest.raises(ConfigError) as ei:
        decode_config(text, filename="p.toml")
    return str(ei.value)


def test_tomllib_itself_recurses_on_deep_arrays() -> None:
    # the reason for the bound: without it this is a RecursionError traceback
    with pytest.raises(RecursionError):
        tomllib.loads("x = " + "[" * 5000 + "]" * 5000)


@pytest.mark.parametrize("value", [
    "[" * 5000 + "]" * 5000,
    "{a = " * 5000 + "1" + "}" * 5000,
    "[{a = [" * 2000 + "]}]" * 2000,
])
def test_deep_values_are_one_located_error(value: str) -> None:
    msg = err(BASE + "[[stage]]\nkind = \"user\"\nuse = \"a:b\"\noptions = { x = " + value
              + " }\n")
    assert msg.startswith("p.toml:6:") and f"nested more than {MAX_NESTING} deep" in msg


@pytest.mark.parametrize("line", [
    "a." * 100_000 + "a = 1",                 # a dotted key
    "[" + "a." * 100_000 + "a]",              # a table header
    "[[" + "a." * 100_000 + "a]]",            # an array-of-tables header
    "x = {" + "a." * 100_000 + "a = 1}",      # a key inside an inline table
])
def test_long_dotted_keys_are_one_located_error(line: str) -> None:
    msg = err(BASE + line + "\n")
    assert msg.startswith("p.toml:3:") and f"more than {MAX_NESTING} dotted parts" in msg


def test_column_of_the_bracket_past_the_bound() -> None:
    msg = err(BASE + "x = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1) + "\n")
    assert msg.startswith(f"p.toml:3:{4 + MAX_NESTING + 1}: ")


def test_what_looks_deep_inside_strings_and_comments_is_not() -> None:
    brackets = "[" * 100 + "{" * 100 + "." * 100
    cfg = decode_config(BASE + f"""\
[[stage]]
kind = "user"
use = "a:b"
options = {{ s = "{brackets}", t = '{brackets}', m = \"\"\"
{brackets}\"\"\", n = '''{brackets}
''', f = 1.5, a = [[1.5, 2.5], {{ "x.y" = 'z' }}] }} # {brackets}
# {brackets}
[output]
format = "jsonl"
""", filename="p.toml")
    assert cfg.stage[0].options["s"] == brackets           # type: ignore[union-attr]
    # exactly at the bound: the options table and 31 arrays in it
    nested = "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)
    assert decode_config(BASE + f'[[stage]]\nkind = "user"\nuse = "a:b"\n'
                                f"options = {{ x = {nested} }}\n")


def test_a_40000_entry_syscall_list_is_refused_where_it_passes_the_bound() -> None:
    items = ",\n".join('"read"' for _ in range(40_000))
    msg = err(BASE + f"[filter]\nsyscalls = [\n{items}\n]\n")
    assert msg.startswith(f"p.toml:{5 + MAX_SYSCALL_ITEMS}:1: filter.syscalls has 40000 "
                          f"entries, more than {MAX_SYSCALL_ITEMS}")


def test_a_long_syscall_list_within_the_bound_is_checked_item_by_item() -> None:
    items = ['"read"', '"!close"', '"open*"', '"%file"', "257", '"!%net"'] * 600
    items[-1] = '"opnat"'
    msg = err(BASE + "[filter]\nsyscalls = [\n" + ",\n".join(items) + "\n]\n")
    assert msg.startswith(f"p.toml:{4 + len(items)}:1: unknown syscall 'opnat'")
    items[-1] = '"openat"'
    cfg = decode_config(BASE + "[filter]\nsyscalls = [" + ",".join(items) + "]\n")
    assert len(cfg.filter.syscalls) == len(items)


def test_nul_in_the_command_is_a_located_error() -> None:
    msg = err(BASE.replace('["true"]', '["/bin/echo", "a", "b\\u0000c"]'))
    assert msg.startswith("p.toml:2:") and "target.command[2] holds a NUL byte" in msg


def test_nul_in_the_output_path_is_a_located_error() -> None:
    msg = err(BASE + '[output]\npath = "out\\u0000x"\n')
    assert msg.startswith("p.toml:4:8: output.path holds a NUL byte")


@pytest.mark.parametrize("value", ["1180591620717411303424", "1e10", "inf"])
def test_a_time_limit_past_what_the_command_line_takes_is_a_located_error(value: str) -> None:
    """timeout_s is bounded as --timeout is (at most 1e9 s): 2**70 was taken as is."""
    msg = err(f"timeout_s = {value}\n" + BASE)
    assert msg.startswith("p.toml:1:13: timeout_s must be a number <= 1000000000.0"), msg


def test_the_largest_time_limit_is_taken() -> None:
    assert decode_config("timeout_s = 1e9\n" + BASE, filename="p.toml").timeout_s == 1e9


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    p = tmp_path / "p.toml"
    p.write_text(BASE + "# " + "x" * MAX_CONFIG_BYTES + "\n")
    with pytest.raises(ConfigError, match=r"larger than 1 MiB"):
        load_config(p)


@pytest.mark.kernel
def test_cli_nul_in_argv_says_so_instead_of_exit_127(tmp_path: Path) -> None:
    p = tmp_path / "p.toml"
    p.write_text(BASE.replace('["true"]', '["/bin/echo", "a\\u0000b"]'))
    r = run_tracekit(["run", str(p)])
    assert r.returncode == 2, r
    assert r.stderr.strip() == (f"tracekit: error: {p}:2:25: target.command[1] holds a NUL "
                                "byte (\\u0000), which no program argument can")
