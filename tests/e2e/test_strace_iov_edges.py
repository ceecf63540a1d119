"""tests/workloads/iov_edges.c under strace 6.1 and ``tracekit strace``, lines compared
whole (addresses normalised): the -e read=/write= fd sets strace takes (negated, with
empty items) dump the same fds; a msghdr whose msg_iov is NULL or unreadable prints its
header (``msg_iov=NULL``, ``msg_iov=0x...``); an iovec element cut by the end of its
mapping prints its bytes when the -s + 1 that strace reads are readable, its address
when not, and is not dumped; an element of iov_len 2^63 prints -s of its bytes and
dumps none (strace cannot read it whole)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import tracekit_env
from tests.e2e.test_strace_io import build

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]
CALLS = "trace=write,writev,read,readv,sendmsg,sendmmsg,recvmsg"


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("iov_edges"), "iov_edges")


def _trace(tool: list[str], exe: Path, out: Path, sets: tuple[str, ...]) -> list[str]:
    opts = [a for s in sets for a in ("-e", s)]
    subprocess.run([*tool, "-qq", "-e", CALLS, *opts, "-o", str(out), str(exe)], check=True,
                   env=tracekit_env(), timeout=60, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return re.sub(r"0x[0-9a-f]{5,}", "ADDR", out.read_text()).splitlines()


def _dumped(lines: list[str], call: str) -> bool:
    """Whether the line starting with ``call`` is followed by a dump."""
    k = next(k for k, ln in enumerate(lines) if ln.startswith(call))
    return k + 1 < len(lines) and lines[k + 1].startswith((" | ", " * "))


def test_iov_edges_equal_strace(exe: Path, tmp_path: Path) -> None:
    want = _trace(["strace"], exe, tmp_path / "strace.txt", ())
    got = _trace(TRACEKIT, exe, tmp_path / "tracekit.txt", ())
    text = "\n".join(want)
    for seen in ("msg_iov=NULL, msg_iovlen=2, msg_controllen=0",
                 "msg_iov=ADDR, msg_iovlen=2, msg_controllen=0",
                 "msg_iov=0x1, msg_iovlen=1,", "{msg_hdr={msg_name=NULL, msg_namelen=0, "
                 "msg_iov=ADDR, msg_iovlen=1,", "[{iov_base=ADDR, iov_len=100}, ",
                 '[{iov_base="zzzzzzzz', '{iov_base="huge element\\0',
                 "{iov_base=ADDR, iov_len=9223372036854775808}"):
        assert seen in text, seen
    assert got == want


# (the sets, whether fd 1's, fd 2's and the pipe's (14) writes are dumped)
@pytest.mark.parametrize(("sets", "fd1", "fd2", "fd14"), [
    (("write=!1,17", "read=,13"), False, True, True),
    (("write=,1,,14,16", "read=!3"), True, False, True),
    (("write=!!2,", "read=!none", "read=!3,17"), False, True, False)])
def test_dumps_of_fd_sets_equal_strace(exe: Path, tmp_path: Path, sets: tuple[str, ...],
                                       fd1: bool, fd2: bool, fd14: bool) -> None:
    want = _trace(["strace"], exe, tmp_path / "strace.txt", sets)
    got = _trace(TRACEKIT, exe, tmp_path / "tracekit.txt", sets)
    assert (_dumped(want, "write(1,"), _dumped(want, "write(2,"),
            _dumped(want, "write(14,")) == (fd1, fd2, fd14)
    assert _dumped(want, "read(13,")
    assert any(ln.startswith(" * 9223372036854775808 bytes in buffer 0")
               for ln in want) == fd14
    assert got == want
