"""The options of ``tracekit run`` onto the pipeline's keys, and bad usage: the real
``main()`` in-process with ``--dump-config`` (which prints the effective pipeline and
traces nothing), so no BPF program is loaded here.

Bad usage is status 2 and one line on stderr that names the option and what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from tracekit.app.cli import main
from tracekit.app.config import PipelineConfig, decode_config, dump_config


def dump(capsys: pytest.CaptureFixture[str], *argv: str) -> PipelineConfig:
    """The pipeline ``tracekit run ARGV --dump-config`` prints, decoded."""
    cut = argv.index("--") if "--" in argv else len(argv)
    assert main(["run", *argv[:cut], "--dump-config", *argv[cut:]]) == 0, \
        capsys.readouterr().err
    return decode_config(capsys.readouterr().out, filename="dump")


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line of a usage error (status 2)."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("tracekit: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "usage:" not in err
    return err[len("tracekit: error: "):-1]


def test_one_liner_without_a_pipeline_file(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = dump(capsys, "-e", "%file", "--", "ls", "-l")
    assert cfg.target.command == ["ls", "-l"] and cfg.filter.syscalls == ["%file"]
    assert [(o.format, o.path) for o in cfg.outputs] == [("perf", "-")]


@pytest.mark.parametrize(("argv", "key", "value"), [
    (["-p", "1,2", "-p", "3"], "pid", [1, 2, 3]),
    (["-t", "7"], "tid", [7]),
    (["-a"], "system_wide", True),
    (["--", "true", "x"], "command", ["true", "x"]),
])
def test_target_options(capsys: pytest.CaptureFixture[str], argv: list[str], key: str,
                        value: object) -> None:
    cfg = dump(capsys, *argv)
    assert getattr(cfg.target, key) == value
    assert cfg.target.follow_forks
    assert not dump(capsys, "--no-follow", *argv).target.follow_forks


def test_each_option_sets_its_key(capsys: pytest.CaptureFixture[str]) -> None:
    cfg = dump(capsys, "-F", "strace", "-s", "128", "-o", "out.txt", "--timeout", "2.5",
               "--min-duration", "1.5", "-Z", "-P", "/etc", "--", "true")
    o = cfg.outputs[0]
    assert (o.format, o.path, o.string_limit) == ("strace", "out.txt", 128)
    assert (cfg.timeout_s, cfg.filter.min_duration_ms) == (2.5, 1.5)
    assert (cfg.filter.status, cfg.filter.path) == (["failed"], ["/etc"])
    cfg = dump(capsys, "-c", "-S", "calls", "--group-by", "process", "--interval", "0.5",
               "--interval-report", "total", "--", "true")
    o = cfg.outputs[0]
    assert (o.format, o.sort, o.group_by, o.interval_s, o.interval_report) == (
        "summary", "calls", "process", 0.5, "total")


@pytest.mark.parametrize(("value", "pages"), [
    ("1", 1), ("3", 4), ("1024", 1024), ("64M", 16384), ("64m", 16384), ("5K", 2),
    ("4097B", 2), ("2G", 1 << 19)])
def test_mmap_pages_sets_the_ring_size(capsys: pytest.CaptureFixture[str], value: str,
                                       pages: int) -> None:
    """-m as perf trace reads it: pages, or a size with a unit; rounded up to a power of 2
    of 4 KiB pages."""
    assert dump(capsys, "-m", value, "--", "true").buffer_pages == pages
    assert dump(capsys, f"--mmap-pages={value}", "--", "true").buffer_pages == pages


@pytest.mark.parametrize(("value", "says"), [
    ("0", "'0': give 1 to 524288 pages"), ("3G", "'3G': give 1 to 524288 pages"),
    ("x", "'x' is not a number of pages or a size"), ("M", "'M' is not a number"),
    ("-4", "is not a number of pages"), ("1.5M", "'1.5M' is not a number")])
def test_mmap_pages_refuses_what_is_not_a_size(capsys: pytest.CaptureFixture[str],
                                               value: str, says: str) -> None:
    err = usage_error(capsys, "run", f"--mmap-pages={value}", "--", "true")
    assert err.startswith("argument -m/--mmap-pages: ") and says in err, err


@pytest.mark.parametrize(("output", "summary_path"), [
    ([], "-"), (["-o", "-"], "-"), (["-o", "/dev/stdout"], "-"),
    (["-o", "/dev/stderr"], "/dev/stderr"), (["-o", "t.txt"], "/dev/stderr")])
def test_summary_too_adds_a_summary_output(capsys: pytest.CaptureFixture[str],
                                           output: list[str], summary_path: str) -> None:
    """-C: the trace, and a summary on its stream (stdout or stderr) or else on stderr;
    -S and --group-by set the added summary."""
    cfg = dump(capsys, "-C", "-S", "errors", "--group-by", "total", *output, "--", "true")
    trace, summary = cfg.outputs
    assert (trace.format, summary.format, summary.path) == ("perf", "summary", summary_path)
    assert (summary.sort, summary.group_by) == ("errors", "total")


def test_options_override_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.toml"
    p.write_text('timeout_s = 9\n[target]\ncommand = ["a"]\nfollow_forks = false\n'
                 '[filter]\nsyscalls = ["read"]\nmin_duration_ms = 3\n'
                 '[output]\nformat = "strace"\nstring_limit = 64\n')
    cfg = dump(capsys, str(p), "--timeout", "1", "-e", "write", "-p", "5", "-s", "8")
    assert (cfg.timeout_s, cfg.filter.syscalls, cfg.filter.min_duration_ms) == (1.0, ["write"], 3)
    assert (cfg.target.pid, cfg.target.command, cfg.target.follow_forks) == ([5], None, False)
    assert (cfg.outputs[0].format, cfg.outputs[0].string_limit) == ("strace", 8)


def test_a_file_with_only_an_output_and_a_command(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[output]\nformat = "jsonl"\n')
    cfg = dump(capsys, str(p), "--", "ls")
    assert (cfg.target.command, cfg.outputs[0].format) == (["ls"], "jsonl")
    assert "none is set" in usage_error(capsys, "run", str(p))


def test_dump_config_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The printed file, read back, is the same pipeline; its own dump is the same text."""
    argv = ["-F", "strace", "-s", "64", "-C", "-S", "calls", "-e", "trace=%net,!connect",
            "-e", "errno=ENOENT", "-z", "--timeout", "3", "--dump-config", "--", "curl", "-s",
            "x y"]
    assert main(["run", *argv]) == 0
    text = capsys.readouterr().out
    p = tmp_path / "grown.toml"
    p.write_text(text)
    assert main(["run", str(p), "--dump-config"]) == 0
    assert capsys.readouterr().out == text
    cfg = decode_config(text)
    assert [o.format for o in cfg.outputs] == ["strace", "summary"]
    assert cfg.filter.errno == ["ENOENT"] and cfg.filter.status == ["successful"]


@settings(max_examples=40, deadline=None)
@given(command=st.lists(st.text(st.characters(blacklist_characters="\0",
                                              blacklist_categories=("Cs",)), min_size=1),
                        min_size=1, max_size=4),
       string_limit=st.integers(0, 1 << 20), timeout=st.none() | st.floats(0.001, 1e6),
       fmt=st.sampled_from(["perf", "strace", "jsonl", "summary"]),
       follow=st.booleans(), paths=st.lists(st.text(st.characters(
           blacklist_characters="\0", blacklist_categories=("Cs",)), min_size=1), max_size=3))
def test_dump_config_reads_back_the_same(command: list[str], string_limit: int,
                                         timeout: float | None, fmt: str, follow: bool,
                                         paths: list[str]) -> None:
    """Any argv, path or number survives the TOML text (escapes, quoting, floats)."""
    from tracekit.app.config import OutputConfig, TargetConfig

    opts = {"string_limit": string_limit} if fmt in ("perf", "strace") else {}
    cfg = PipelineConfig(
        target=TargetConfig(command=command, follow_forks=follow), timeout_s=timeout,
        output=OutputConfig(format=fmt, path=paths[0] if paths else "-", **opts))
    cfg = msgspec.structs.replace(cfg, filter=msgspec.structs.replace(cfg.filter, path=paths))
    assert decode_config(dump_config(cfg)) == cfg


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "-s", "x", "--", "true"], "argument -s/--string-limit: 'x' is not a number of bytes"),
    (["run", "-s", "-1", "--", "true"], "argument -s/--string-limit: '-1': give a number of bytes"),
    (["run", "--timeout", "0", "--", "true"],
     "argument --timeout: '0': give a number of seconds, > 0"),
    (["run", "--timeout", "nan", "--", "true"], "argument --timeout: 'nan': give a number"),
    (["run", "--min-duration", "-3", "--", "true"], "argument --min-duration: '-3'"),
    (["run", "--interval", "0", "-c", "--", "true"], "argument --interval: '0'"),
    (["run", "-F", "xml", "--", "true"], "argument -F/--format: invalid choice: 'xml'"),
    (["run", "-S", "time", "-c", "--", "true"], "argument -S/--sort: invalid choice: 'time'"),
    (["run", "--group-by", "cpu", "-c", "--", "true"], "argument --group-by: invalid choice"),
    (["run", "--bogus", "--", "true"], "unrecognized arguments: --bogus"),
    (["run", "--time", "3", "--", "true"], "unrecognized arguments: --time"),  # no abbreviations
    (["run", "--duration", "5", "--", "true"],
     "--duration was renamed --timeout SECONDS (the time limit); --min-duration MS keeps only "
     "calls that took that long"),
    (["check", "p.toml", "--", "true"], "'-- COMMAND' goes with 'run'"),
    (["run"], "[target] needs exactly one of command, pid, tid, system_wide, cgroup; none is set"),
    (["run", "ls"], "ls: no such pipeline file (ENOENT); to trace a command, put it after --: "
                    "tracekit run -- ls"),
    (["record", "-o", "x.tkrec", "ls"], "ls: no such pipeline file (ENOENT); to trace a "
                                        "command, put it after --: tracekit record -- ls"),
    # perf trace takes `perf trace ls -l`: the same hint when the command has arguments
    (["run", "sleep", "3"], "unrecognized arguments: 3; to trace a command, put it after --: "
                            "tracekit run -- sleep 3"),
    (["run", "-e", "openat", "ls", "-l", "/"],
     "unrecognized arguments: -l /; to trace a command, put it after --: "
     "tracekit run -e openat -- ls -l /"),
    (["run", "-p", "1", "-a"], "give one target: got -p and -a; keep one"),
    (["run", "-t", "x"], "--tid: 'x' is not a thread id (1 to 2147483647)"),
    (["run", "-c", "-C", "--", "true"], "-c prints only a summary and -C a trace and a summary"),
    (["run", "-c", "-F", "jsonl", "--", "true"], "-c prints only a summary: it cannot go with "
                                                 "-F jsonl"),
    (["run", "-C", "-F", "summary", "--", "true"], "-C adds a summary to a trace, but the "
                                                   "output is a summary already (-F summary)"),
    (["run", "-s", "64", "-F", "jsonl", "--", "true"],
     '-s: no output takes it: it sets string_limit of format "perf" and "strace", and the '
     'output is format "jsonl"'),
    (["run", "-S", "calls", "--", "true"],
     '-S: no output takes it: it sets sort of format "summary", and the output is format '
     '"perf" (give -c or -C for a summary)'),
    (["run", "--interval", "1", "-F", "strace", "--", "true"], "--interval: no output takes it"),
    (["run", "-o", "", "--", "true"], "-o: give a file path, or - for standard output"),
    (["run", "-e", "signal=SIGUSR1", "-c", "--", "true"],
     "[filter] signal (-e signal=) selects signal lines"),
])
def test_bad_usage_is_one_line_naming_the_option(capsys: pytest.CaptureFixture[str],
                                                 argv: list[str], says: str) -> None:
    assert says in usage_error(capsys, *argv)


def test_options_that_change_one_output_need_one(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[target]\ncommand = ["true"]\n[[output]]\nformat = "perf"\npath = "a"\n'
                 '[[output]]\nformat = "summary"\n')
    for opt in (["-o", "x"], ["-F", "jsonl"], ["-c"], ["-C"]):
        assert usage_error(capsys, "run", str(p), *opt).startswith(
            f"{opt[0]}: the pipeline file has 2 [[output]] tables and {opt[0]} changes one "
            "output; set it in the file")
    # the options that set every output of a kind apply to each
    cfg = dump(capsys, str(p), "-s", "99", "-S", "name")
    assert (cfg.outputs[0].string_limit, cfg.outputs[1].sort) == (99, "name")


def test_a_file_key_the_chosen_format_ignores(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[target]\ncommand = ["true"]\n[output]\nstring_limit = 64\n')
    assert usage_error(capsys, "run", str(p), "-c") == (
        '[output] string_limit is a key of format "perf" or "strace": format = "summary" '
        'ignores it; drop it, or set format = "perf" or "strace" (format set by -c)')


def test_readme_and_help_document_every_option() -> None:
    """Every option of ``tracekit run`` is a row of the README's options table, which names
    the pipeline key it sets, and has a --help text."""
    import re

    from tracekit.app.cli import _parser

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    rows = re.findall(r"^\| (`[^|]*`[^|]*) \| ([^|]+) \| [^|]+ \|$", readme, re.M)
    documented = {opt for cells, _ in rows for opt in re.findall(r"`(-[-\w]+)", cells)}
    run = _parser()._subparsers._group_actions[0].choices["run"]   # type: ignore[union-attr]
    for action in run._actions:
        if not action.option_strings or action.help == "==SUPPRESS==":
            continue
        if action.dest == "help":
            continue
        assert set(action.option_strings) <= documented, action.option_strings
        assert action.help


def test_the_notebook_names_the_renamed_time_limit() -> None:
    import asyncio

    from tracekit.notebook import start

    with pytest.raises(TypeError, match=r"duration_s was renamed timeout_s \(the time limit"):
        asyncio.run(start(["true"], duration_s=1.0))
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        asyncio.run(start(["true"], bogus=1))


@pytest.mark.parametrize("cmd", ["run", "record"])
def test_cgroup_is_listed_among_the_targets(capsys: pytest.CaptureFixture[str],
                                            cmd: str) -> None:
    """``--help`` lists -G/--cgroup in the target group, as the README's ``[target]
    cgroup`` says, not under selection."""
    with pytest.raises(SystemExit):
        main([cmd, "--help"])
    text = capsys.readouterr().out
    groups = dict(re.findall(r"\n(\S[^\n]*):\n((?:  [^\n]*\n|\n(?=  ))*)", text))
    target = next(body for head, body in groups.items() if head.startswith("target"))
    selection = next(body for head, body in groups.items() if head.startswith("selection"))
    assert "-G PATH, --cgroup PATH" in target and "--cgroup" not in selection
    assert "-p PID" in target and "-P PATH" in selection
