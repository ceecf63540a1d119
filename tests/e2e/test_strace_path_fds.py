"""``tracekit strace -P PATH`` against real strace on fds the command did not open: the
ones it inherited (its standard output redirected to PATH) are matched too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def _trace(tool: list[str], path: str, stdout: Path, data: Path) -> str:
    with open(stdout, "wb") as out:
        r = subprocess.run([*tool, "-P", path, "cat", str(data)], stdout=out,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           env=tracekit_env() if tool[0] != "strace" else None)
    assert r.returncode == 0, r.stderr
    return r.stderr


@pytest.mark.parametrize("target", ["/dev/null", "file"])
def test_p_path_matches_the_fds_the_command_inherits(target: str, tmp_path: Path) -> None:
    """``-P /dev/null cat F >/dev/null`` and ``-P OUT cat F >OUT`` show the calls on
    fd 1 (fstat, the write or copy, close), as strace does."""
    data = tmp_path / "data"
    data.write_text("vm\n")
    out = Path("/dev/null") if target == "/dev/null" else tmp_path / "out"
    got = {name: _trace(tool, str(out), out, data)
           for name, tool in (("strace", ["strace"]), ("tracekit", [*TRACEKIT, "strace"]))}
    assert got["tracekit"] == got["strace"]
    assert "close(1)" in got["strace"]


# select and poll name fds in memory they read: -P matches a call whose sets or array
# hold an fd on the path (strace's pathtrace.c), and not one whose do not
FDS_IN_MEMORY_C = r"""
#include <fcntl.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int p[2];
    if (pipe(p) || dup2(open(argv[1], O_WRONLY), 9) != 9)
        return 1;
    fd_set w;
    FD_ZERO(&w); FD_SET(p[1], &w); FD_SET(9, &w);
    syscall(SYS_select, 10, NULL, &w, NULL, NULL);     /* 9 in the write set */
    FD_ZERO(&w); FD_SET(p[1], &w);
    syscall(SYS_select, 10, NULL, &w, NULL, NULL);     /* not */
    struct pollfd a[3] = {{p[0], POLLIN, 0}, {-1, 0, 0}, {9, POLLOUT, 0}};
    poll(a, 3, 0);                                     /* 9 the last element */
    poll(a, 2, 0);                                     /* 9 past nfds */
    return 0;
}
"""


def test_p_path_matches_fds_in_select_sets_and_poll_arrays(tmp_path: Path) -> None:
    from tests._run import compile_c

    exe = compile_c(FDS_IN_MEMORY_C, tmp_path, "fds_in_memory")
    target = tmp_path / "target"
    target.write_text("")
    got = {}
    for name, tool in (("strace", ["strace"]), ("tracekit", [*TRACEKIT, "strace"])):
        r = subprocess.run([*tool, "-e", "trace=select,poll", "-P", str(target), str(exe),
                            str(target)], capture_output=True, text=True, timeout=60,
                           env=tracekit_env() if name == "tracekit" else None)
        assert r.returncode == 0, r.stderr
        got[name] = r.stderr
    assert got["tracekit"] == got["strace"]
    lines = got["strace"].splitlines()
    assert [ln.split("(")[0] for ln in lines[:-1]] == ["select", "poll"], lines
    assert "[4 9]" in lines[0] and ", 3, 0) = 1 ([{fd=9, revents=POLLOUT}])" in lines[1]
