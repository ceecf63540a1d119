"""tracekit started with stdout (or stdout and stderr) closed, as by ``>&-``: no
traceback; the trace file is not handed to the command as its stdout; the command starts
with the same closed fds it would have without tracekit; subcommands whose answer goes to
stdout say it is closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, read_events, write_pipeline
from tracekit._events import Syscall

pytestmark = pytest.mark.kernel

# what the command sees of its fds 1 and 2, on its stdin-independent channel: a file
PROBE = """
import os, sys
seen = {}
for fd in (1, 2):
    try:
        os.fstat(fd)
        seen[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError as e:
        seen[fd] = e.errno
    try:
        os.write(fd, b"FROM-THE-COMMAND\\n")
    except OSError:
        pass
with open(sys.argv[1], "w") as f:
    f.write(repr(seen))
"""


def _run_closed(args: list[str], close: str) -> subprocess.CompletedProcess[bytes]:
    cmd = " ".join(f"'{a}'" for a in [*TRACEKIT, *args])
    return subprocess.run(["sh", "-c", f"exec {cmd} {close}"], capture_output=True,
                          timeout=60)


@pytest.mark.parametrize("fmt", ["jsonl", "summary"])
@pytest.mark.parametrize("close", [">&-", ">&- 2>&-"])
def test_closed_stdout_with_a_file_output(tmp_path: Path, fmt: str, close: str) -> None:
    (tmp_path / "probe.py").write_text(PROBE)
    out, seen = tmp_path / "out", tmp_path / "seen"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps([sys.executable, str(tmp_path / "probe.py"), str(seen)])}
        [filter]
        syscalls = ["write", "newfstatat", "fstat"]
        [output]
        format = "{fmt}"
        path = "{out}"
    """)
    r = _run_closed(["run", str(cfg)], close)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr and b"Error" not in r.stderr, r.stderr
    data = out.read_bytes()
    assert b"FROM-THE-COMMAND" not in data          # not the command's stdout
    import errno
    want_2 = errno.EBADF if "2>&-" in close else None
    got = eval(seen.read_text())                    # the probe's own repr of a dict
    assert got[1] == errno.EBADF, got               # closed, as without tracekit
    if want_2 is not None:
        assert got[2] == errno.EBADF, got
    if fmt == "jsonl":
        assert any(isinstance(e, Syscall) for e in read_events(out))
    else:
        assert b"write" in data


@pytest.mark.parametrize("args", [["list", "stages"], ["check", "{cfg}"]])
def test_subcommands_that_answer_on_stdout_say_it_is_closed(tmp_path: Path,
                                                            args: list[str]) -> None:
    cfg = write_pipeline(tmp_path, '[target]\ncommand = ["true"]\n')
    r = _run_closed([a.format(cfg=cfg) for a in args], ">&-")
    assert r.returncode == 2
    assert r.stderr.decode() == ("tracekit: error: standard output is closed (EBADF): "
                                 f"nowhere to print what 'tracekit {args[0]}' says\n")


def test_dump_config_to_a_closed_stdout_says_it_is_closed(tmp_path: Path) -> None:
    """--dump-config prints the pipeline on stdout whatever -o says (it was an
    AttributeError traceback on sys.stdout None)."""
    r = _run_closed(["run", "--dump-config", "-o", str(tmp_path / "t.txt"), "--", "true"],
                    ">&-")
    assert r.returncode == 2, r.stderr
    assert r.stderr.decode() == ("tracekit: error: standard output is closed (EBADF): "
                                 "nowhere to print what 'tracekit run --dump-config' "
                                 "says\n")


def test_output_to_a_closed_stdout_is_refused(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, '[target]\ncommand = ["true"]\n')
    r = _run_closed(["run", str(cfg)], ">&-")
    assert r.returncode == 2
    assert r.stderr.decode().startswith("tracekit: error: output '-': standard output is "
                                        "closed (EBADF)")
    assert os.path.exists(cfg)


@pytest.mark.parametrize("args", [["run", "-p", "4194000"], ["run", "--bogus"],
                                  ["strace", "-p", "0"], ["strace", "-e", "trace=nosuch",
                                                          "true"]])
def test_errors_with_stderr_closed_stay_off_stdout(args: list[str]) -> None:
    """With fd 2 closed, print(file=sys.stderr) is print(file=None): stdout. An error
    said there lands in the trace's stream (or a pipe's reader); it is dropped."""
    r = _run_closed(args, "2>&-")
    assert r.returncode in (1, 2)
    assert r.stdout == b"", r.stdout


def test_losses_with_stderr_closed_stay_off_stdout(tmp_path: Path) -> None:
    """A trace on stdout in JSON Lines, and the loss lines that go to stderr, which is
    closed: stdout holds JSON Lines only."""
    cfg = write_pipeline(tmp_path, """
        buffer_pages = 1
        [output]
        format = "jsonl"
    """)
    r = _run_closed(["run", str(cfg), "--", "sh", "-c",
                     "for i in $(seq 200); do cat /etc/hostname; done >/dev/null"], "2>&-")
    assert r.returncode == 0
    lines = r.stdout.decode().splitlines()
    losses = [json.loads(ln) for ln in lines if ln.startswith('{"type":"losses"')]
    assert losses and losses[-1]["lost_syscalls"] > 0      # so there was a loss to say
    bad = [ln for ln in lines if not ln.startswith("{")]
    assert not bad, bad[:3]


def test_a_full_stderr_does_not_fail_the_trace(tmp_path: Path) -> None:
    """stderr on /dev/full: the loss lines cannot be written (ENOSPC), which was an
    exception at the end of a trace that had written its file whole (status 1, Python's
    'Exception ignored' dumps). As strace with 2>/dev/full: the messages are dropped, the
    status is the command's."""
    out = tmp_path / "t.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        buffer_pages = 1
        [output]
        format = "jsonl"
        path = "{out}"
    """)
    r = _run_closed(["run", str(cfg), "--", "sh", "-c",
                     "for i in $(seq 200); do cat /etc/hostname; done >/dev/null; exit 3"],
                    "2>/dev/full")
    assert r.returncode == 3
    losses = [json.loads(ln) for ln in out.read_text().splitlines()
              if ln.startswith('{"type":"losses"')]
    assert losses and losses[-1]["lost_syscalls"] > 0      # so there was a loss to say


def test_strace_with_stderr_closed_runs_the_command(tmp_path: Path) -> None:
    """``tracekit strace CMD 2>&-`` (no -o): as strace, the command runs (its trace goes
    where standard error went: nowhere) and the status is the command's."""
    (tmp_path / "probe.py").write_text(PROBE + "raise SystemExit(3)\n")
    seen = tmp_path / "seen"
    r = _run_closed(["strace", sys.executable, str(tmp_path / "probe.py"), str(seen)],
                    "2>&-")
    assert r.returncode == 3, r
    # the command started with fd 2 closed, as without tracekit
    assert eval(seen.read_text())[2] == 9        # EBADF
