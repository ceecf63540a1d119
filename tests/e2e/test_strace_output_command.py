"""``tracekit strace -o '|CMD'`` and ``-o '!CMD'``: the trace piped to a shell command,
as strace 6.1 runs it (``sh -c CMD``, its standard input the trace, waited for before
strace exits), compared with strace itself on commands the tests start."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]


def _both(argv: list[str]) -> list[subprocess.CompletedProcess[str]]:
    return [subprocess.run([*tool, *argv], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL) for tool in (["strace"], TRACEKIT)]


@pytest.mark.parametrize("mark", ["|", "!"])
def test_the_trace_goes_to_the_command(mark: str, tmp_path: Path) -> None:
    for tool, got in zip(("strace", "tracekit"), _both([
            "-e", "trace=exit_group", "-o", f"{mark}cat -n > {tmp_path}/" + "$PPID.txt",
            "sh", "-c", "exit 3"]), strict=True):
        assert got.returncode == 3, (tool, got.stderr)
        assert got.stderr == "", (tool, got.stderr)
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2, files               # one from each tracer ($PPID differs)
    texts = [f.read_text() for f in files]
    assert texts[0] == texts[1] == ("     1\texit_group(3)                           = ?\n"
                                    "     2\t+++ exited with 3 +++\n"), texts


def test_the_command_is_waited_for() -> None:
    # strace exits once the command it piped to has ended (here 1.5 s after the trace)
    for tool, argv in (("strace", ["strace"]), ("tracekit", TRACEKIT)):
        t0 = time.monotonic()
        r = subprocess.run([*argv, "-e", "trace=none", "-o", "|cat >/dev/null; sleep 1.5",
                            "true"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (tool, r.stderr)
        assert time.monotonic() - t0 >= 1.5, tool


def test_a_summary_goes_to_the_command_too() -> None:
    r = subprocess.run([*TRACEKIT, "-c", "-o", "|grep -c total", "true"],
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "1\n", "")


def test_with_ff_is_strace_usage_error() -> None:
    for argv in (["-ff", "-o", "|cat", "true"], ["--output-separately", "-o", "!cat", "true"]):
        ref, got = _both(argv)
        assert (got.returncode, got.stderr.replace("tracekit strace", "strace")) == (
            ref.returncode, ref.stderr), got.stderr


def test_a_shells_fd_names_are_written_as_strace_writes_them(tmp_path: Path) -> None:
    """``-o >(CMD)`` (bash's /dev/fd/63) and ``-o /dev/fd/3`` with ``3>>FILE``: the
    trace goes where the shell's fd leads, opened again as strace opens it; an fd the
    shell did not open is refused, even one tracekit opened for itself."""
    if shutil.which("bash") is None:
        pytest.skip("needs bash for >(CMD)")
    tk = " ".join(TRACEKIT)
    out = {tool: tmp_path / f"{tool}.txt" for tool in ("strace", "tracekit")}
    for tool, cmd in (("strace", "strace"), ("tracekit", tk)):
        out[tool].write_text("before\n")
        script = (f"{cmd} -e trace=exit_group -o >(cat > {out[tool]}.subst) sh -c 'exit 4'"
                  f"; echo $? > {out[tool]}.rc; wait $!; {cmd} -e trace=exit_group "
                  f"-o /dev/fd/3 sh -c 'exit 5' 3>>{out[tool]}")
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 5 and r.stderr == "", (tool, r.stderr)
        assert Path(f"{out[tool]}.rc").read_text() == "4\n"
    for name in ("", ".subst"):
        texts = [Path(f"{out[t]}{name}").read_text() for t in ("strace", "tracekit")]
        assert texts[0] == texts[1], (name, texts)
    # opened again as strace opens it: >> does not keep what was there
    assert out["tracekit"].read_text() == (
        "exit_group(5)                           = ?\n+++ exited with 5 +++\n")
    r = subprocess.run([*TRACEKIT, "-o", "/dev/fd/9", "true"], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1 and r.stderr == (
        "tracekit strace: output path '/dev/fd/9': fd 9 is not open (EBADF)\n"), r.stderr


@pytest.mark.parametrize("opts", [[], ["-c"]])
def test_dash_is_a_file_named_dash_as_in_strace(opts: list[str], tmp_path: Path) -> None:
    # strace 6.1 fopen()s "-" as written: a file in the working directory, nothing on
    # standard output (tracekit wrote the trace to standard output)
    texts = []
    for name, tool in (("strace", ["strace"]), ("tracekit", TRACEKIT)):
        where = tmp_path / name
        where.mkdir()
        got = subprocess.run([*tool, *opts, "-o", "-", "-e",
                              "trace=execve" if opts else "trace=exit_group", "sh", "-c",
                              "exit 3"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL, cwd=where)
        assert (got.returncode, got.stdout, got.stderr) == (3, "", ""), tool
        assert [p.name for p in where.iterdir()] == ["-"], tool
        texts.append((where / "-").read_text())
    if opts:
        assert "execve" in texts[0] and "execve" in texts[1]
    else:
        assert texts[0] == texts[1] == "exit_group(3)                           = ?\n" \
            "+++ exited with 3 +++\n"
