"""Bad input to the CLI is one message and exit status 2 (README, "Exit status"): malformed
and mistyped pipeline files, a bad option of any built-in stage kind (located at its
``file:line:column``), bad ``-p`` values, missing paths.

These run the real ``main()`` in-process; none of them loads a BPF program (the one that
reads tracefs first is marked as a kernel test).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT
from tracekit.app.cli import main

BASE = '[target]\ncommand = ["true"]\n'


@pytest.mark.parametrize(("body", "says"), [
    ('[target\ncommand = ["true"]\n', "TOML syntax error"),
    ('[target]\ncommand = "true"\n', "expected an array of strings at target.command"),
    ('bogus = 1\n' + BASE, "unknown key 'bogus'"),
    (BASE + '[[stage]]\nkind = "nosuch"\n', "unknown stage kind 'nosuch'"),
    (BASE + '[output]\nformat = "xml"\n', "invalid value 'xml' for output.format"),
    (BASE + '[filter]\nsyscalls = ["opnat"]\n', "did you mean 'openat'"),
    (BASE + '[filter]\nsyscalls = [99999]\n', "out of range"),
    (BASE + '[filter]\nsyscalls = ["!"]\n', "empty syscall name"),
    ('[target]\ncommand = []\n', "target.command is empty"),
    ('[target]\ncommand = ["true"]\npid = [1]\n', "exactly one of command, pid, tid"),
    ('[target]\nsystem_wide = false\n', "none is set"),
    ('buffer_pages = 3\n' + BASE, "power of 2"),
    ('buffer_pages = 0\n' + BASE, "buffer_pages must be an integer >= 1"),
    ('timeout_s = 0\n' + BASE, "timeout_s must be a number > 0.0"),
    ('timeout_s = nan\n' + BASE, "timeout_s must be a number > 0.0"),
    ('duration_s = 5\n' + BASE, "'duration_s' was renamed 'timeout_s'"),
    (BASE + '[filter]\nmin_duration_ms = nan\n', "min_duration_ms must be a number >= 0.0"),
    ('[target]\npid = [0]\n', "target.pid[0] must be an integer >= 1"),
    ('', "[target] needs exactly one of command, pid, tid, system_wide, cgroup; none is set"),
    # '²' is a digit to str.isdigit and no number to int()
    (BASE + '[filter]\nsyscalls = ["²"]\n', "unknown syscall '²'"),
])
@pytest.mark.parametrize("cmd", ["run", "check"])
def test_bad_pipeline_file_is_one_message_and_status_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, says: str,
        cmd: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(body)
    assert main([cmd, str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tracekit: error: ") and err.count("\n") == 1, err
    assert says in err
    assert "Traceback" not in err


def test_listen_port_of_other_digits(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    # '²' is a digit to str.isdigit and no number to int(): one message, no traceback
    p = tmp_path / "om.toml"
    p.write_text(BASE + '[output]\nformat = "openmetrics"\nlisten = "127.0.0.1:²"\n')
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == (f"tracekit: error: {p}:5:10: [output]: listen = '127.0.0.1:²' is not "
                   'HOST:PORT (e.g. "127.0.0.1:9464")\n')


def test_non_utf8_pipeline_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "latin.toml"
    p.write_bytes(b'\xff\xfe' + BASE.encode())
    assert main(["run", str(p)]) == 2
    assert "is not UTF-8 (byte 0xff)" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["missing", "directory"])
def test_pipeline_path_not_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  where: str) -> None:
    p = tmp_path / "nope.toml" if where == "missing" else tmp_path
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert "cannot read config" in err and str(p) in err


@pytest.mark.parametrize(("pid", "shown"), [("0", "'0'"), ("-5", "'-5'"), ("abc", "'abc'"),
                                            ("1,,2", "''"), ("1.5", "'1.5'"),
                                            ("99999999999999999999", "'99999999999999999999'"),
                                            ("²", "'²'"), ("١٢", "'١٢'")])
def test_bad_pid_option(tmp_path: Path, capsys: pytest.CaptureFixture[str], pid: str,
                        shown: str) -> None:
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    assert main(["run", str(p), "-p", pid]) == 2
    assert f"--pid: {shown} is not a process id (1 to 2147483647)" in capsys.readouterr().err


def test_pid_and_command_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    assert main(["run", str(p), "-p", "1", "--", "true"]) == 2
    assert capsys.readouterr().err == (
        "tracekit: error: give one target: got -- COMMAND and -p; keep one\n")


@pytest.mark.kernel  # reaches the tracefs cross-check before opening the output
def test_output_in_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    out = tmp_path / "no" / "such" / "out.jsonl"
    assert main(["run", str(p), "-o", str(out)]) == 2
    assert (f"directory {str(out.parent)!r} does not exist (ENOENT)"
            in capsys.readouterr().err)
    assert not out.parent.exists()


@pytest.mark.parametrize(("stage", "says"), [
    ('kind = "evict"\ninterval_s = 0', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "evict"\ninterval_s = -1', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "evict"\ninterval_s = nan', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "reconcile"\nsettle_s = -5', "5:12: stage[0].settle_s must be a number >= 0.0"),
    ('kind = "reconcile"\nconnector = "bogus"',
     "5:13: expected true or false at stage[0].connector"),
    ('kind = "beautify"\nstring_limit = -1',
     "5:16: stage[0].string_limit must be an integer >= 0"),
    ('kind = "beautify"\nfd_paths = "yes"', "5:12: expected true or false at stage[0].fd_paths"),
    ('kind = "summarize"\ngroup_by = "cpu"', "invalid value 'cpu' for stage[0].group_by"),
    ('kind = "summarize"\nsort = "bogus"', "invalid value 'bogus' for stage[0].sort"),
    ('kind = "summarize"\ninterval_s = 0', "stage[0].interval_s must be a number >= 0.001"),
    ('kind = "reenumerate"\nbogus = 1', "5:1: unknown key 'bogus'"),
    ('kind = "user"\nuse = "nocolon"', "5:7: use = 'nocolon' must be \"package.module:Name\""),
    ('kind = "user"\nuse = ":X"', "5:7: use = ':X' must be \"package.module:Name\""),
    ('kind = "frobnicate"', "4:8: unknown stage kind 'frobnicate'"),
])
@pytest.mark.parametrize("cmd", ["run", "check"])
def test_bad_stage_option_is_one_located_message(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 stage: str, says: str, cmd: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(f"{BASE}[[stage]]\n{stage}\n")
    assert main([cmd, str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tracekit: error: ") and err.count("\n") == 1, err
    located = f"{p}:{says}" if says[0].isdigit() else says
    assert located in err and "Traceback" not in err


def test_pipeline_file_that_is_a_fifo_is_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A fifo (or a device) as the pipeline file: refused at once, never read for ever."""
    p = tmp_path / "fifo.toml"
    os.mkfifo(p, 0o600)
    assert main(["run", str(p)]) == 2
    assert f"{p}: not a regular file" in capsys.readouterr().err


@pytest.mark.kernel  # reaches the tracefs cross-check before opening the output
def test_empty_output_path_is_an_error(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    assert main(["run", str(p), "-o", ""]) == 2
    assert capsys.readouterr().err == (
        "tracekit: error: -o: give a file path, or - for standard output\n")


@pytest.mark.kernel
def test_closed_stdout_is_one_message(tmp_path: Path) -> None:
    """`tracekit run FILE >&-`: a message on stderr, status 2, no traceback."""
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    r = subprocess.run([*TRACEKIT, "run", str(p)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=60,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 2, r.stderr
    assert "standard output is closed" in r.stderr and "Traceback" not in r.stderr


def test_error_text_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A message quoting hostile text (here a file name with an escape sequence) cannot
    drive the terminal."""
    p = tmp_path / "bad\x1b[31m.toml"
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "bad\\x1b[31m.toml" in err


@pytest.mark.parametrize("argv", [
    ["run", "-e", "op\nen", "--", "true"],
    ["run", "-o", "/nonexistent/a\nb", "--", "true"],
    ["strace", "-e", "trace=op\nen", "true"],
    ["strace", "-u", "no\nuser", "true"],
    ["strace", "-S", "x\ny", "true"],
])
def test_a_newline_in_bad_input_keeps_the_message_one_line(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    # the value is quoted with its newline escaped: a second line could pass for one of
    # tracekit's own (the option's text was printed raw in front of its escaped item)
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if not ln.startswith("Try '")]
    assert len(lines) == 1 and "\\n" in lines[0], err


@pytest.mark.kernel  # reaches the tracefs cross-check before opening the output
@pytest.mark.parametrize("cmd", ["run", "record"])
def test_output_path_longer_than_path_max(tmp_path: Path, cmd: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A path of 20 components of 250 bytes (over PATH_MAX, 4096): pathlib's is_dir()
    raised ENAMETOOLONG, a traceback; now the output's one line with the errno name."""
    p = tmp_path / "ok.toml"
    p.write_text(BASE)
    out = str(tmp_path) + "/" + "/".join(["b" * 250] * 20)
    args = ["run", str(p), "-o", out] if cmd == "run" else ["record", str(p), "-o", out]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "ENAMETOOLONG" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(("option", "value", "bounds"), [
    ("--timeout", "-1", "> 0 and at most 1000000000"),
    ("-s", "99999999999", "0 or more and at most 1048576"),
    ("--interval", "0", "0.001 or more and at most 86400"),
])
def test_option_bounds_are_written_as_numbers_are(
        capsys: pytest.CaptureFixture[str], option: str, value: str, bounds: str) -> None:
    """The bounds of a number option: an integer as an integer and a fraction in plain
    decimal (``:g`` wrote 1e+09 and 1.04858e+06, the latter not even the bound)."""
    assert main(["run", option, value, "--", "true"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.endswith(f"'{value}': give a number of "
                        f"{'bytes' if option == '-s' else 'seconds'}, {bounds}"), err


NOT_UTF8 = os.fsdecode(b"/nonexistent\xff/\n")      # as argv gives it: surrogateescape


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "-o", NOT_UTF8, "--", "true"],
     "tracekit: error: output path '/nonexistent\\xff/\\n': directory '/nonexistent\\xff' "
     "does not exist (ENOENT)"),
    (["strace", "-o", NOT_UTF8, "true"],
     "tracekit strace: output path '/nonexistent\\xff/\\n': directory '/nonexistent\\xff' "
     "does not exist (ENOENT)"),
    (["strace", NOT_UTF8],
     "tracekit strace: command not found: '/nonexistent\\xff/\\n' (ENOENT)"),
    (["run", NOT_UTF8 + ".toml"],
     "tracekit: error: /nonexistent\\xff/\\n.toml: cannot read config: No such file or "
     "directory (ENOENT)"),
])
def test_a_name_that_is_not_utf8_is_printed_as_its_bytes(
        capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    """A path with a byte that is not UTF-8 is written with that byte as ``\\xff`` (and a
    newline as ``\\n``), not as Python's ``\\udcff``."""
    assert main(argv) in (1, 2)
    assert capsys.readouterr().err.splitlines() == [says]


@pytest.mark.parametrize(("raw", "shown"), [
    (b"/a\xff/\n", r"'/a\xff/\n'"),
    (b"plain", "'plain'"),
    # a backslash and the text "udcff" typed in the name stay what they are
    (b"\\udcff\xfe", r"'\\udcff\xfe'"),
    (b"\\\xfe", r"'\\\xfe'"),
])
def test_quoted_writes_the_bytes_that_are_not_utf8_as_bytes(raw: bytes, shown: str) -> None:
    from tracekit._errors import quoted

    assert quoted(os.fsdecode(raw)) == shown
