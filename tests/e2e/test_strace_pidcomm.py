"""``tracekit strace -Y`` (pids with their names) and ``-A`` (-o FILE appended to), next
to strace 6.1 on tests/workloads/pid_comm.c: a fork, pids given to and returned by calls,
a child reaped, a child stopped, and a name a process chose (hostile bytes)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._strace_cli import _pid_pattern, normalise, read_trace

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]
WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "pid_comm.c"
# quotes, a backslash, < and >, bytes that are not ASCII, then a newline (strace shows
# the name up to it) and more after it
HOSTILE = b'q"\\<>\xc3\xa9\xff9\nafter'
CALLS = "trace=kill,wait4,getppid,getpid,gettid,prctl,clone,exit_group"

needs_tools = pytest.mark.skipif(shutil.which("strace") is None or shutil.which("gcc") is None,
                                 reason="strace 6.1 and gcc are needed")


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to build tests/workloads/pid_comm.c")
    exe = tmp_path_factory.mktemp("pid_comm") / "pid_comm"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(exe), str(WORKLOAD)],
                   check=True)
    return exe


def _trace(tool: list[str], opts: list[str], exe: Path, tmp: Path) -> list[str]:
    """The lines of ``tool OPTS exe HOSTILE``'s trace (on stderr), each call joined
    from its unfinished and resumed halves, pids as placeholders, sorted."""
    r = subprocess.run([*tool, *opts, os.fsencode(exe), HOSTILE], cwd=tmp,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120, env=dict(os.environ, LC_ALL="C"))
    assert r.returncode == 0, r.stderr[-2000:]
    tr = read_trace({"-": r.stderr.decode("utf-8", "surrogateescape")})
    pids = _pid_pattern(tr.pids)
    return sorted(normalise(line, pids) for lines in tr.tasks.values() for line in lines)


def _split(lines: list[str]) -> dict[str, str]:
    """call (the -a column undone) -> its prefix ("" for none); each call once."""
    out: dict[str, str] = {}
    for line in lines:
        m = re.match(r"(\[pid +P+(?:<[^>]*>)?\] )?(.*)$", line)
        assert m is not None
        call = re.sub(r"\)  +=", ") =", m.group(2))
        assert call not in out, call
        out[call] = m.group(1) or ""
    return out


@pytest.mark.kernel
@needs_tools
def test_names_of_pids_as_strace_prints_them(workload: Path, tmp_path: Path) -> None:
    opts = ["-Y", "-f", "-e", CALLS, "-e", "signal=none"]
    s = _trace(["strace"], opts, workload, tmp_path)
    t = _trace(TRACEKIT, opts, workload, tmp_path)
    # whether a line has the [pid N] prefix depends on which task ran first (a child
    # that exited takes it away): the calls compared without it, the prefixes (with
    # their names) where both tools printed one
    s_calls, t_calls = _split(s), _split(t)
    assert sorted(t_calls) == sorted(s_calls), "\n".join(
        f"- {a}\n+ {b}" for a, b in zip(sorted(s_calls), sorted(t_calls), strict=False)
        if a != b)
    both = [c for c in s_calls if s_calls[c] and t_calls[c]]
    assert len(both) >= 8, both
    assert {c: t_calls[c] for c in both} == {c: s_calls[c] for c in both}
    text = "\n".join(t)
    # what the comparison rests on: names given, kept, changed and gone
    name = r"q\\\"\\\\\\74\\76\\303\\251\\3779"     # strace's escapes, cut at the newline
    assert re.search(rf"\[pid +P+<{name}>\] kill\(P+<parent>, 0\) += 0", text), text
    assert re.search(r"\] getppid\(\) += P+<parent>", text), text
    assert re.search(r"kill\(P+<pid_comm>, 0\) += 0", text), text        # before its rename
    # reaped: no name on wait4's result; stopped: named
    assert re.search(r"wait4\(P+<[^>]*>, \[\{WIFEXITED.*\) += P+$", text, re.M), text
    assert re.search(r"wait4\(P+<parent>, \[\{WIFSTOPPED.*\) += P+<parent>$", text, re.M), \
        text
    assert not re.search(r"<[^>]*after", text)       # a name ends at its newline


@pytest.mark.kernel
@needs_tools
def test_decode_pids_forms_are_minus_y(workload: Path, tmp_path: Path) -> None:
    """--decode-pids=comm and -e decode-pids=comm are -Y; without them no pid is named."""
    base = ["-f", "-e", "trace=getppid,kill", "-e", "signal=none"]
    y = _trace(TRACEKIT, ["-Y", *base], workload, tmp_path)
    for form in (["--decode-pids=comm"], ["-e", "decode-pids=comm"]):
        assert _trace(TRACEKIT, [*form, *base], workload, tmp_path) == y
    plain = _trace(TRACEKIT, base, workload, tmp_path)
    assert not any("<" in line for line in plain)
    assert any("<parent>" in line for line in y)


def _run(tool: list[str], opts: list[str], tmp: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*tool, *opts, "true"], cwd=tmp, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)


@pytest.mark.kernel
@needs_tools
def test_append_mode_adds_to_the_file_as_strace(tmp_path: Path) -> None:
    """-A twice to one file: the first trace kept, the second after it, as strace does;
    the file's mode and inode kept; a missing file made 0600."""
    texts = {}
    for name, tool in (("s", ["strace"]), ("t", TRACEKIT)):
        out = tmp_path / f"{name}.trace"
        out.write_bytes(b"before\n")
        out.chmod(0o640)
        ino = out.stat().st_ino
        for _ in range(2):
            r = _run(tool, ["-A", "-o", str(out), "-e", "trace=exit_group"], tmp_path)
            assert r.returncode == 0, r.stderr
        assert out.stat().st_ino == ino
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
        texts[name] = out.read_text()
    assert texts["t"] == texts["s"] == ("before\nexit_group(0)                           = ?\n"
                                        "+++ exited with 0 +++\n") + \
        "exit_group(0)                           = ?\n+++ exited with 0 +++\n"
    new = tmp_path / "new.trace"
    assert _run(TRACEKIT, ["-A", "-o", str(new), "-e", "trace=exit_group"],
                tmp_path).returncode == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    assert new.read_text().startswith("exit_group(0)")


@pytest.mark.kernel
@needs_tools
def test_append_mode_with_ff_and_without_o(workload: Path, tmp_path: Path) -> None:
    """-A -ff: each FILE.PID appended to; -A without -o: strace's warning, the trace on
    stderr all the same."""
    prefix = tmp_path / "ff"
    first = tmp_path / "first"
    opts = ["-A", "-ff", "-o", str(prefix), "-e", "trace=exit_group"]
    r = subprocess.run([*TRACEKIT, *opts, "sh", "-c", "echo $$ > " + str(first)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120)
    assert r.returncode == 0, r.stderr
    pid = int(first.read_text())
    mine = prefix.with_name(f"ff.{pid}")
    assert mine.read_text() == "exit_group(0)                           = ?\n" \
                               "+++ exited with 0 +++\n"
    # a file already at a task's name is written after, not replaced
    mine.write_text("kept\n")
    ino = mine.stat().st_ino
    got = subprocess.run([*TRACEKIT, "-A", "-o", str(mine), "-e", "trace=exit_group",
                          "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, timeout=120)
    assert got.returncode == 0
    assert mine.read_text().startswith("kept\nexit_group(0)")
    assert mine.stat().st_ino == ino
    for tool in (["strace"], TRACEKIT):
        r = _run(tool, ["-A", "-e", "trace=exit_group"], tmp_path)
        err = r.stderr.decode()
        assert "strace: -A/--output-append-mode has no effect without -o/--output\n" in err
        assert "exit_group(0)" in err
