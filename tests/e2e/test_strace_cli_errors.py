"""``tracekit strace``'s usage errors and warnings against strace 6.1's: the same
command line under both, the same message lines (strace's ``strace: `` prefix is
``tracekit strace: `` for tracekit's own errors; its warnings keep ``strace: ``) and the
same exit status. Each command traces ``true`` with no call selected (or fails before)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]


def _messages(stderr: str) -> list[str]:
    """The tracer's own lines: errors and warnings, with one prefix for both tools."""
    out = []
    for line in stderr.splitlines():
        line = line.replace("tracekit strace: ", "strace: ", 1)
        if line.startswith("Try '"):
            out.append("Try -h")
        elif line.startswith("strace: "):
            out.append(line)
    return out


def _both(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], ...]:
    run = [subprocess.run([*tool, *argv], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
           for tool in (["strace"], TRACEKIT)]
    return run[0], run[1]


CASES = [
    # -e: an unknown qualifier is a syscall name; bad values of known ones
    ["-e", "foo=bar", "true"],
    ["-e", "TRACE=read", "true"],
    ["-e", "errno=ENOENT", "true"],
    ["-e", "decode-fds=garbage", "true"],
    ["-e", "decode-fds=", "true"],
    ["-e", "quiet=zzz", "true"],
    ["-e", "read=zzz", "true"],
    ["-e", "trace=", "true"],
    ["-e", "signal=zzz", "true"],
    ["-e", "signal=256", "true"],
    ["-e", "status=", "true"],
    # -e sets strace accepts
    ["-e", "trace=!all", "true"],
    ["-e", "trace=none", "-e", "signal=!all", "true"],
    ["-e", "trace=none", "-e", "signal=0", "true"],
    ["-e", "trace=?500", "true"],
    ["-e", "trace=none", "-e", "decode-fds=path,,dev", "true"],
    # the summary's options
    ["-U", "calls", "true"],
    ["-w", "true"],
    ["-U", "calls", "-w", "true"],
    ["-S", "calls", "-e", "trace=none", "true"],
    ["-c", "-U", "calls,calls", "true"],
    ["-c", "-U", "calls,errors,count,name", "true"],
    ["-c", "-T", "-y", "-tt", "-r", "-k", "-n", "-e", "trace=none", "true"],
    ["-c", "-yy", "-e", "trace=none", "true"],
    ["-ff", "-c", "-o", "/dev/null", "true"],
    ["-f", "-f", "-c", "true"],
    ["--output-separately", "-C", "true"],
    # long options by a prefix, as getopt_long takes them
    ["--follow", "-e", "trace=none", "true"],
    ["--string-lim=5", "-e", "trace=none", "true"],
    ["--fail", "--sil", "-e", "trace=none", "true"],
    ["--s=5", "true"],
    ["--summary-", "true"],
    ["--ti", "true"],
    ["--p=1", "true"],
    ["--bogus", "true"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_same_messages_and_status_as_strace(argv: list[str]) -> None:
    ref, got = _both(argv)
    assert (_messages(got.stderr), got.returncode) == (_messages(ref.stderr), ref.returncode)
