"""A standard output that cannot be written (``>/dev/full``: ENOSPC; ``>&-``: EBADF)
ends every subcommand with one line naming it and status 1, as coreutils do
(``ls --help >/dev/full``: "write error: No space left on device"), never a Python
traceback and never a silent 0: whichever write finds the error (a sink, its last
flush, a listing, argparse's help, the flush at exit), tracekit.app.cli.main says it
(tracekit.formatters._output.guard_stdout).

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env

pytestmark = pytest.mark.kernel

ENOSPC_STRACE = "tracekit strace: writing 'standard output': No space left on device (ENOSPC)"
ENOSPC_RUN = "tracekit: error: writing 'standard output': No space left on device (ENOSPC)"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rec = tmp_path_factory.mktemp("rec") / "r.tkrec"
    r = subprocess.run([*TRACEKIT, "record", "-o", str(rec), "--", "true"],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60,
                       preexec_fn=die_with_parent)
    assert r.returncode == 0, r.stderr
    return rec


def _to_full(args: list[str], *, buffered: bool) -> subprocess.CompletedProcess[str]:
    env = tracekit_env()
    if buffered:                        # stdout block-buffered, as a user's tracekit
        del env["PYTHONUNBUFFERED"]
    with open("/dev/full", "w") as full:
        return subprocess.run([*TRACEKIT, *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=60,
                              preexec_fn=die_with_parent)


CASES = [
    (["strace", "-o", "/dev/stdout", "true"], ENOSPC_STRACE),   # "-" is a file, as strace
    (["strace", "-c", "-o", "/dev/stdout", "true"], ENOSPC_STRACE),
    (["strace", "--help"], ENOSPC_STRACE),
    (["strace", "-V"], ENOSPC_STRACE),
    (["run", "-F", "strace", "--", "true"], ENOSPC_RUN),
    (["run", "-c", "--", "true"], ENOSPC_RUN),
    (["run", "-e", "openat", "--dump-config", "--", "true"], ENOSPC_RUN),
    (["list", "syscalls"], ENOSPC_RUN),
    (["list", "stages"], ENOSPC_RUN),
    (["--help"], ENOSPC_RUN),
    (["--version"], ENOSPC_RUN),
    (["run", "--help"], ENOSPC_RUN),
    (["replay", "{rec}"], ENOSPC_RUN),
    (["replay", "{rec}", "-c"], ENOSPC_RUN),
    (["replay", "{rec}", "-F", "jsonl"], ENOSPC_RUN),
]


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(("args", "line"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_full_stdout_is_one_line_and_status_1(args: list[str], line: str, buffered: bool,
                                                recording: Path) -> None:
    args = [a.replace("{rec}", str(recording)) for a in args]
    r = _to_full(args, buffered=buffered)
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [line]
    assert r.returncode == 1


def test_strace_help_to_a_closed_stdout_says_ebadf() -> None:
    r = subprocess.run(f"exec {' '.join(TRACEKIT)} strace --help >&-", shell=True,
                       capture_output=True, text=True, env=tracekit_env(), timeout=60,
                       preexec_fn=die_with_parent)
    assert r.stderr.splitlines() == [
        "tracekit strace: writing 'standard output': Bad file descriptor (EBADF)"]
    assert r.returncode == 1


def test_a_pipe_closed_by_its_reader_is_still_not_an_error() -> None:
    """``tracekit list syscalls | head -1`` ends with 0 and nothing on stderr."""
    r = subprocess.run(f"{' '.join(TRACEKIT)} list syscalls | head -1 >/dev/null; "
                       "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                       capture_output=True, text=True, env=tracekit_env(), timeout=60,
                       preexec_fn=die_with_parent)
    assert r.stderr == ""
    assert r.stdout.strip() == "0"
