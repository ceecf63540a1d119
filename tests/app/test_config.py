"""pipeline.toml decoding: values, and every error kind with its file:line:column."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tracekit._errors import ConfigError
from tracekit.app.config import (
    EvictConfig,
    PipelineConfig,
    SummarizeConfig,
    UserStageConfig,
    decode_config,
    load_config,
    stage_kinds,
)
from tracekit.kernel.selection import resolve_syscalls
from tracekit.kernel.syscalls import SyscallTable

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def err(text: str | bytes) -> str:
    if isinstance(text, str):
        text = textwrap.dedent(text)
    with pytest.raises(ConfigError) as ei:
        decode_config(text, filename="p.toml")
    return str(ei.value)


def test_full_config() -> None:
    cfg = decode_config(textwrap.dedent("""
        timeout_s = 2.5
        buffer_pages = 256
        [target]
        pid = [1, 2]
        follow_forks = false
        [filter]
        syscalls = ["openat", 0, "%net", "!connect"]
        failed_only = true
        min_duration_ms = 1
        [[stage]]
        kind = "evict"
        interval_s = 0.5
        [[stage]]
        kind = "summarize"
        group_by = "process"
        [[stage]]
        kind = "user"
        use = "mypkg.stages:Count"
        [stage.options]
        top = 10
        [output]
        format = "jsonl"
        path = "out.jsonl"
    """))
    assert cfg.target.pid == [1, 2] and cfg.target.follow_forks is False
    assert cfg.filter.syscalls == ["openat", 0, "%net", "!connect"]
    assert cfg.filter.min_duration_ms == 1.0
    assert cfg.stage == [EvictConfig(interval_s=0.5), SummarizeConfig(group_by="process"),
                         UserStageConfig(use="mypkg.stages:Count", options={"top": 10})]
    assert (cfg.output.format, cfg.output.path) == ("jsonl", "out.jsonl")
    assert (cfg.timeout_s, cfg.buffer_pages, cfg.pids_max_entries) == (2.5, 256, 8192)


def test_defaults_and_dotted_inline_forms() -> None:
    a = decode_config('target.command = ["true"]\n')
    b = decode_config('target = { command = ["true"] }\n')
    c = decode_config(b'[target]\ncommand = ["true"]\n')
    assert a == b == c == PipelineConfig(target=a.target)
    assert a.output.format == "perf" and a.stage == [] and a.filter.syscalls == []


def test_quickstart_example() -> None:
    cfg = load_config(EXAMPLES / "quickstart.toml")
    assert cfg.target.command == ["ls", "-l", "/"]
    assert (cfg.output.format, cfg.output.path) == ("perf", "-")


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope.toml: cannot read config: No such file"):
        load_config(tmp_path / "nope.toml")


def test_syntax_error_position() -> None:
    assert err('[target]\ncommand = ["ls"\n') == (
        "p.toml:3:1: TOML syntax error: Unclosed array; see https://toml.io")
    assert err("[target]\npid = [1]\nx = = 2\n").startswith("p.toml:3:5: TOML syntax error")


def test_not_utf8() -> None:
    assert err(b'[target]\npid = [1]\n# caf\xe9\n') == (
        "p.toml:3:6: config is not UTF-8 (byte 0xe9); save the file as UTF-8")


def test_byte_order_mark_is_named() -> None:
    # tomllib says "Invalid statement (at line 1, column 1)"
    assert err(b'\xef\xbb\xbf[target]\npid = [1]\n') == (
        "p.toml:1:1: the file starts with a UTF-8 byte order mark (BOM, bytes ef bb bf), "
        "which TOML does not allow; save the file as UTF-8 without BOM")


def test_unknown_key_suggests() -> None:
    assert err("""\
        [target]
        comand = ["ls"]
    """) == ("p.toml:2:1: unknown key 'comand' in [target] (did you mean 'command'?); "
             "remove it or fix its spelling")
    assert err('target.pid = [1]\n\nbuffer_page = 2\n').startswith(
        "p.toml:3:1: unknown key 'buffer_page' in the top level (did you mean 'buffer_pages'?)")


def test_top_level_key_after_a_table() -> None:
    msg = err("[target]\npid = [1]\nbuffer_pages = 64\n")
    assert msg.startswith("p.toml:3:1: unknown key 'buffer_pages' in [target]")
    assert msg.endswith("'buffer_pages' is a top-level key: put it before the first [table]")


def test_unknown_key_in_inline_table_and_stage() -> None:
    assert err("target = {pid = [1], bogus = 2}\n").startswith(
        "p.toml:1:22: unknown key 'bogus' in [target]")
    assert err("""\
        target.pid = [1]
        [[stage]]
        kind = "evict"
        [[stage]]
        kind = "summarize"
          group_bye = "thread"
    """).startswith("p.toml:6:3: unknown key 'group_bye' in [[stage]] #2 "
                    "(did you mean 'group_by'?)")


def test_unknown_array_of_tables_is_at_its_first_header() -> None:
    """An unknown ``[[name]]`` is located at its first header, as an unknown ``[name]``
    is (it was 1:1: the array's own path was never recorded, only its tables')."""
    assert err("""\
        target.pid = [1]

          [[ stages ]]
        kind = "evict"
        [[stages]]
    """).startswith("p.toml:3:3: unknown key 'stages' in the top level "
                    "(did you mean 'stage'?)")
    assert err("target.pid = [1]\n[outputs]\n").startswith(
        "p.toml:2:1: unknown key 'outputs' in the top level")
    assert err("[target]\npid = [1]\n[[target.x]]\n").startswith(
        "p.toml:3:1: unknown key 'x' in [target]")


def test_wrong_types() -> None:
    assert err('[target]\npid = "12"\n') == (
        "p.toml:2:7: expected an array of integers at target.pid, got a string")
    assert err('[target]\npid = [1,\n  "x"]\n') == (
        "p.toml:3:3: expected an integer at target.pid[1], got a string")
    assert err('target.pid = [1]\n[output]\npath = 3\n') == (
        "p.toml:3:8: expected a string at output.path, got an integer")
    assert err('[target]\nsystem_wide = "yes"\n') == (
        "p.toml:2:15: expected true or false at target.system_wide, got a string")
    assert err('target.pid = [1]\nstage = 1\n') == (
        "p.toml:2:9: expected an array of [[tables]] with a kind at stage, got an integer")


def test_bad_values() -> None:
    assert err('timeout_s = -1\ntarget.pid = [1]\n') == (
        "p.toml:1:13: timeout_s must be a number > 0.0, got -1")
    assert err('target.pid = [0]\n') == (
        "p.toml:1:15: target.pid[0] must be an integer >= 1, got 0")
    assert err('target.pid = [1]\n[output]\nformat = "straec"\n') == (
        "p.toml:3:10: invalid value 'straec' for output.format (did you mean 'strace'?); "
        "expected one of 'perf', 'strace', 'jsonl', 'summary', 'openmetrics'")
    # a value its type lets through, but not the format: said with the file, where it is
    # (tracekit check too), not first when the sink starts
    assert err('target.pid = [1]\n[output]\nformat = "openmetrics"\nlisten = "h:x"\n') == (
        "p.toml:4:10: [output]: listen = 'h:x' is not HOST:PORT (e.g. \"127.0.0.1:9464\")")


def test_stage_kind_errors() -> None:
    msg = err('target.pid = [1]\n[[stage]]\nkind = "evict"\n[[stage]]\nkind = "sumarize"\n')
    assert msg.startswith("p.toml:5:8: unknown stage kind 'sumarize' (did you mean 'summarize'?)")
    assert all(repr(k) in msg for k in stage_kinds())
    assert err('target.pid = [1]\n[[stage]]\ninterval_s = 1\n').startswith(
        "p.toml:2:1: [[stage]] #1 has no kind; add kind = one of 'reconcile'")
    assert err('target.pid = [1]\n[[stage]]\nkind = "user"\nuse = "mod"\n') == (
        'p.toml:4:7: use = \'mod\' must be "package.module:Name"')


def test_target_needs_exactly_one() -> None:
    assert err('[target]\npid = [1]\ncommand = ["x"]\n') == (
        "p.toml:2:1: [target] needs exactly one of command, pid, tid, system_wide, cgroup; "
        "got command and pid: keep one")
    assert err("\n[target]\nfollow_forks = true\n") == (
        "p.toml:2:1: [target] needs exactly one of command, pid, tid, system_wide, cgroup; "
        "none is set (or give one on the command line: -- COMMAND, -p PID, -t TID, -a, "
        "-G CGROUP)")
    assert err('[target]\ncommand = []\n').startswith(
        "p.toml:2:11: target.command is empty")
    assert err("timeout_s = 1.0\n").startswith(
        "p.toml:1:1: [target] needs exactly one of command, pid, tid, system_wide, cgroup; "
        "none is set")
    # the time limit's old name says what it became
    assert err('duration_s = 1.0\ntarget.pid = [1]\n') == (
        "p.toml:1:1: 'duration_s' was renamed 'timeout_s' (the time limit of the trace, in "
        "seconds; [filter] min_duration_ms keeps only calls that took that long); write "
        "timeout_s = ...")


def test_buffer_pages_power_of_two() -> None:
    assert err('buffer_pages = 1000\ntarget.pid = [1]\n') == (
        "p.toml:1:16: buffer_pages must be a power of 2 (the ring buffer size in 4 KiB "
        "pages), got 1000; try 512 or 1024")


def test_unknown_syscall_points_at_the_item() -> None:
    msg = err("""\
        target.pid = [1]
        [filter]
        syscalls = [
            "read",
            "opnat",
        ]
    """)
    assert msg.startswith("p.toml:5:5: unknown syscall 'opnat' on ")
    assert "(did you mean 'openat'" in msg
    assert err('target.pid = [1]\nfilter.syscalls = ["read", "%fiel"]\n') == (
        "p.toml:2:28: unknown syscall class '%fiel' (did you mean '%file'?)")


def test_valid_syscalls_resolve_like_the_filter() -> None:
    cfg = decode_config('target.pid = [1]\nfilter.syscalls = ["%file", "!openat", 0]\n')
    got = resolve_syscalls(cfg.filter.syscalls, SyscallTable())
    table = SyscallTable()
    assert table.nr("openat") not in got and table.nr("execve") in got and 0 in got


_TOML_BITS = st.sampled_from([
    "[target]\n", "[[stage]]\n", "[filter]\n", "[output]\n", "[stage.options]\n",
    'command = ["ls"]\n', "pid = [1, 2]\n", 'pid = ["x"]\n', "tid = [0]\n",
    "system_wide = true\n", 'kind = "evict"\n', 'kind = "nope"\n', "interval_s = -1\n",
    'syscalls = ["openat", "%file", "!x", 3]\n', 'format = "jsonl"\n', "buffer_pages = 3\n",
    "duration_s = 1979-05-27\n", 'a.b.c = """x\n"y"\n"""\n', "x = {y = [1, {z = 2}]}\n",
    "target.pid = [1]\n", "'quoted key' = 1\n", "# comment\n", "\n", "[[target]]\n", "= 1\n",
    "[", "]", '"', "'", "=", "{", "}", ",", ".", "\\", "\t",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOML_BITS, max_size=12))
def test_fuzz_toml_pieces(pieces: list[str]) -> None:
    try:
        cfg = decode_config("".join(pieces))
    except ConfigError as e:
        assert str(e).startswith("<string>:")
    else:
        assert isinstance(cfg, PipelineConfig)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_fuzz_random_text(data: str | bytes) -> None:
    try:
        cfg = decode_config(data)
    except ConfigError as e:
        assert str(e).startswith("<string>:")
    else:
        assert isinstance(cfg, PipelineConfig)


def test_several_outputs() -> None:
    cfg = decode_config(textwrap.dedent("""
        target.pid = [1]
        [[output]]
        format = "strace"
        path = "t.txt"
        string_limit = 64
        [[output]]
        format = "summary"
        path = "/dev/stderr"
        table = "strace"
    """))
    assert [(o.format, o.path) for o in cfg.outputs] == [("strace", "t.txt"),
                                                         ("summary", "/dev/stderr")]
    assert cfg.outputs[0].string_limit == 64 and cfg.outputs[1].table == "strace"
    one = decode_config('target.pid = [1]\n[output]\nformat = "jsonl"\n')
    assert [o.format for o in one.outputs] == ["jsonl"]


def test_stacks_a_summary_in_the_kernel_cannot_have_is_located() -> None:
    """check_format_keys' output errors said where in no file (every other config error
    does): now the stacks key, of [output] or of the right [[output]]."""
    one = 'target.pid = [1]\n[output]\nformat = "summary"\nmode = "kernel"\n'
    assert err(one + 'stacks = "user"\n') == (
        'p.toml:5:10: [output] stacks needs the calls in user space: with format = '
        '"summary" use mode = "stream" or "auto", not "kernel"')
    two = ('target.pid = [1]\n[[output]]\nformat = "perf"\nstacks = "user"\n'
           '[[output]]\nformat = "summary"\nmode = "kernel"\n\nstacks = "both"\n')
    assert err(two) == (
        'p.toml:9:10: [[output]] #2 stacks needs the calls in user space: with format = '
        '"summary" use mode = "stream" or "auto", not "kernel"')
    decode_config(one.replace('"kernel"', '"stream"') + 'stacks = "user"\n')   # fine


def test_output_errors_are_located() -> None:
    two = 'target.pid = [1]\n[[output]]\npath = "a"\n[[output]]\nformat = "summary"\n'
    assert err(two + 'string_limit = 8\n') == (
        'p.toml:6:1: [[output]] #2 string_limit is a key of format "perf" or "strace": '
        'format = "summary" ignores it; drop it, or set format = "perf" or "strace"')
    assert err('target.pid = [1]\n[output]\nformat = "perf"\ntable = "json"\n') == (
        'p.toml:4:1: [output] table is a key of format "summary": format = "perf" ignores '
        'it; drop it, or set format = "summary"')
    assert err(two.replace('"summary"', '"xml"')).startswith(
        "p.toml:5:10: invalid value 'xml' for output[1].format")
    assert err('target.pid = [1]\noutput = []\n') == (
        "p.toml:2:10: output = [] names no output; give an [output] table or [[output]] "
        "tables")
    assert err(two.replace('format = "summary"', 'path = "./a"')) == (
        "p.toml:5:8: [[output]] #1 and [[output]] #2 both write './a': give each output "
        "its own file")
    streams = ('target.pid = [1]\n[[output]]\nformat = "jsonl"\n[[output]]\n'
               'path = "/dev/stdout"\n')
    assert err(streams) == (
        "p.toml:5:8: [[output]] #1 and [[output]] #2 both print to standard output while "
        "the trace runs: their lines would interleave; give one of them a file")
    # a summary written at the end may share the trace's stream
    decode_config('target.pid = [1]\n[[output]]\n[[output]]\nformat = "summary"\n')
    texts = ('target.pid = [1]\n[[output]]\npath = "a"\n[[output]]\nformat = "strace"\n'
             'string_limit = 64\n')
    assert err(texts) == (
        "p.toml:6:16: [[output]] #1 and [[output]] #2 print calls decoded once for both, so "
        "their string_limit must agree (got 32 and 64)")
    assert err('target.pid = [1]\n[[stage]]\nkind = "evict"\n[output]\nformat = "summary"\n'
               'mode = "kernel"\n') == (
        'p.toml:6:8: [output] mode = "kernel" counts the calls in BPF maps before any stage '
        'runs: the [[stage]] tables would see none of them; use mode = "stream" (or "auto")')
