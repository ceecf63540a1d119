"""Format specs: the one list of formats, the [output] keys they declare, the stages each
needs before it, and every sink opening its path by the one output helper."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import msgspec
import pytest

from tracekit._errors import ConfigError
from tracekit.app.config import OutputConfig, decode_config
from tracekit.formatters import (
    FORMATS,
    JsonlSink,
    PerfFormatter,
    SinkContext,
    StraceFormatter,
    SummarySink,
    TextOptions,
    available_formats,
    close_output,
    format_spec,
    open_output,
    stages_for,
)
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import PipelineError

from ..pipeline.helpers import run_through, sc

CTX = SinkContext(syscall_name=SyscallTable("x86_64").name)


def test_every_format_is_listed_once_and_names_itself() -> None:
    assert available_formats() == list(FORMATS) == ["perf", "strace", "jsonl", "summary",
                                                    "openmetrics"]
    for name in FORMATS:
        assert format_spec(name).name == name
    with pytest.raises(ConfigError, match=r"'xml' is not available .*perf, strace"):
        format_spec("xml")


def test_output_table_takes_exactly_the_keys_the_formats_declare() -> None:
    fields = {f.name: f for f in msgspec.structs.fields(OutputConfig)}
    assert fields["format"].default == "perf" and fields["path"].default == "-"
    declared = {"format", "path"}
    for name in FORMATS:
        for f in msgspec.structs.fields(format_spec(name).options):
            declared.add(f.name)
            assert (fields[f.name].type, fields[f.name].default) == (f.type, f.default)
    assert set(fields) == declared
    with pytest.raises(ConfigError, match="expected one of 'perf', 'strace', 'jsonl', 'summary'"):
        decode_config('target.pid = [1]\n[output]\nformat = "xml"\n', filename="p.toml")


def test_each_format_reads_its_own_keys_of_the_output_table() -> None:
    out = decode_config('target.pid = [1]\n[output]\nformat = "summary"\n'
                        'table = "json"\nmode = "stream"\n').output
    summary = format_spec("summary").options_of(out)
    assert (summary.table, summary.mode, summary.group_by) == ("json", "stream", "thread")
    assert format_spec("perf").options_of(out) == TextOptions()
    # a key the chosen format would ignore is an error where it is
    with pytest.raises(ConfigError, match=r'^<string>:4:1: \[output\] string_limit is a key '
                       r'of format "perf" or "strace": format = "summary" ignores it'):
        decode_config('target.pid = [1]\n[output]\nformat = "summary"\nstring_limit = 7\n')
    assert not format_spec("summary").counts_in_kernel(summary, has_stages=False)
    auto = format_spec("summary").options()
    assert format_spec("summary").counts_in_kernel(auto, has_stages=False)
    assert not format_spec("summary").counts_in_kernel(auto, has_stages=True)
    assert not format_spec("perf").counts_in_kernel()


def _names(stages: list[object]) -> list[str]:
    return [getattr(st, "name", "?") for st in stages]


def test_stages_each_format_needs_before_it(tmp_path: Path) -> None:
    perf = PerfFormatter(tmp_path / "a", syscall_name=str)
    assert _names(stages_for([perf], ctx=CTX)) == ["beautify", "reorder"]
    assert _names(stages_for([StraceFormatter(tmp_path / "b")], ctx=CTX)) == [
        "reorder", "group_exits"]
    assert stages_for([JsonlSink(tmp_path / "c"), SummarySink(tmp_path / "d")], ctx=CTX) == []

    class Mine:                    # a sink of one's own needs nothing
        name = "mine"
    assert stages_for([Mine()], ctx=CTX) == []
    # a configured beautify stage is kept and not doubled; two text sinks share one reorder
    configured = stages_for([perf], ctx=CTX)[:1]
    got = stages_for([perf, StraceFormatter(tmp_path / "e")], configured, ctx=CTX)
    assert _names(got) == ["beautify", "reorder", "group_exits"] and got[0] is configured[0]


def test_options_reach_the_stages_and_the_sink() -> None:
    spec = format_spec("perf")
    options = spec.parse_options({"fd_paths": False, "string_limit": 5})
    beautify = spec.stages_before(options, (), CTX)[0]
    assert (beautify.decoder.fd_paths, beautify.decoder.string_limit) == (False, 5)
    strace = format_spec("strace").make_sink("-", options, CTX)
    assert (strace.decoder.fd_paths, strace.decoder.string_limit) == (False, 5)
    assert _names(stages_for([strace], ctx=CTX)) == ["reorder", "group_exits"]
    with pytest.raises(ConfigError, match=r"perf output: unknown option\(s\) colour"):
        spec.parse_options({"colour": True})


# --- every sink opens its path by the one output helper ------------------------------------

async def test_sink_files_are_0600_and_never_written_through_a_link(tmp_path: Path) -> None:
    os.umask(0o022)
    for sink in (JsonlSink(tmp_path / "t.jsonl"), SummarySink(tmp_path / "s.txt")):
        await run_through([[sc(0)]], [], [sink])
        assert stat.S_IMODE(os.stat(sink.out).st_mode) == 0o600, sink
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    for sink in (JsonlSink(tmp_path / "link1"), SummarySink(tmp_path / "link2")):
        Path(sink.out).symlink_to(victim)
        with pytest.raises(PipelineError) as info:
            await run_through([[sc(0)]], [], [sink])
        assert isinstance(info.value.__cause__, ConfigError) and "ELOOP" in str(info.value)
    assert victim.read_text() == "keep\n"


async def test_summary_sink_replaces_its_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("old\n")
    before = os.stat(path).st_ino
    await run_through([[sc(0)]], [], [format_spec("summary").make_sink(
        str(path), format_spec("summary").parse_options({"table": "json"}), CTX)])
    assert os.stat(path).st_ino != before          # renamed over, not rewritten in place
    assert path.read_text().startswith("{") and sorted(os.listdir(tmp_path)) == ["s.json"]


def _fifo_whose_reader_leaves(tmp_path: Path) -> tuple[Path, threading.Thread]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def read_a_little() -> None:
        with open(fifo, "rb") as f:
            f.read(1)

    reader = threading.Thread(target=read_a_little)
    reader.start()
    return fifo, reader


async def test_a_closed_reader_of_a_fifo_ends_a_text_sink_quietly(tmp_path: Path) -> None:
    fifo, reader = _fifo_whose_reader_leaves(tmp_path)
    sink = JsonlSink(fifo)
    # enough batches that a write must come after the reader has gone (a pipe holds 64 KiB)
    result, _ = await run_through([[sc(i) for i in range(256)]] * 64, [], [sink])
    reader.join()
    assert sink.closed_by_reader and result.downstream_closed
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_close_output_of_a_fifo_whose_reader_left_is_not_an_error(tmp_path: Path) -> None:
    fifo, reader = _fifo_whose_reader_leaves(tmp_path)
    out = open_output(str(fifo), atomic=True)     # a fifo is written in place
    assert stat.S_ISFIFO(os.fstat(out.fileno()).st_mode)
    out.write(b"x")
    out.flush()
    reader.join()
    out.write(b"y" * 100)                          # buffered: fails only when flushed
    close_output(out, completed=True)
    assert out.closed                              # the fd is released all the same


def test_each_stage_runs_once_decoding_before_ordering(tmp_path: Path) -> None:
    """Several outputs: the stages their formats need, once each, in one order whichever
    sink comes first (beautify's fd table follows the calls in arrival order)."""
    perf = PerfFormatter(tmp_path / "a", syscall_name=str)
    strace = StraceFormatter(tmp_path / "b")
    perf2 = PerfFormatter(tmp_path / "c", syscall_name=str)
    for sinks in ([strace, perf], [perf, strace], [strace, perf, perf2, JsonlSink("-")]):
        assert _names(stages_for(sinks, ctx=CTX)) == ["beautify", "reorder", "group_exits"]
    # a configured stage of the same name is not added again, and stays where it is
    mine = stages_for([perf], ctx=CTX)
    assert _names(stages_for([strace, perf], [mine[1]], ctx=CTX)) == [
        "reorder", "beautify", "group_exits"]


def test_one_stage_asked_for_with_different_settings_is_an_error(tmp_path: Path) -> None:
    a = format_spec("perf").make_sink(tmp_path / "a", TextOptions(string_limit=32), CTX)
    b = format_spec("perf").make_sink(tmp_path / "b", TextOptions(string_limit=64), CTX)
    with pytest.raises(ConfigError, match=r"the perf and perf outputs need the beautify stage "
                       r"with different settings \(fd_paths = True, string_limit = 32, "
                       r"verbose = False; fd_paths = True, string_limit = 64, "
                       r"verbose = False\)"):
        stages_for([a, b], ctx=CTX)
    same = format_spec("perf").make_sink(tmp_path / "c", TextOptions(string_limit=32), CTX)
    assert _names(stages_for([a, same], ctx=CTX)) == ["beautify", "reorder"]


def test_a_summary_with_interval_reports_is_written_while_running() -> None:
    spec = format_spec("summary")
    assert spec.at_end() and spec.at_end(spec.options(table="json"))
    assert not spec.at_end(spec.options(interval_s=1.0))
    assert not format_spec("perf").at_end()
