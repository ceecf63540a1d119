"""``-s N`` above the 256 bytes of data read by default: a read's or write's buffer, each
iovec element and a netlink reply print as many bytes as strace 6.1 prints, compared
whole with real strace on one program (tracekit.session.capture.with_data_bytes). Past
what one record holds (4096 bytes of a buffer; of an iovec element 3560 for the first, 1024
for the others) the data is cut and ends in ``...``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import compile_c, tracekit_env

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]
CALLS = "trace=writev,readv,read,write,sendto,recvmsg"

# a 3000-byte pattern written and read back through a pipe in pieces (writev of two
# 1500-byte elements, reads of 700 and 4000, a write of 2000, readv), then an
# RTM_GETADDR dump read from a netlink socket (some 400 bytes a reply on this machine)
_DATA = r"""
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <string.h>
#include <unistd.h>
static char big[3000], buf[8192];
int main(void)
{
    int p[2], s;
    struct iovec v[2] = {{big, 1500}, {big + 1500, 1500}};
    struct { struct nlmsghdr h; struct ifaddrmsg m; } req = {
        {sizeof(req), RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 1, 0}, {AF_INET}};
    struct sockaddr_nl sa = {AF_NETLINK};
    struct iovec iov = {buf, sizeof(buf)};
    struct msghdr mh = {&sa, sizeof(sa), &iov, 1, 0, 0, 0};
    for (unsigned i = 0; i < sizeof(big); i++)
        big[i] = "abc\n\001"[i % 5];
    if (pipe(p))
        return 1;
    writev(p[1], v, 2);
    read(p[0], buf, 700);
    read(p[0], buf, 4000);
    write(p[1], big, 2000);
    v[0].iov_base = buf;
    readv(p[0], v, 2);
    s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    if (s < 0 || sendto(s, &req, sizeof(req), 0, (void *)&sa, sizeof(sa)) < 0)
        return 1;
    while (recvmsg(s, &mh, 0) > 0 && ((struct nlmsghdr *)buf)->nlmsg_type != NLMSG_DONE)
        ;
    return 0;
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_c(_DATA, tmp_path_factory.mktemp("strsize"), "strsize")


def _trace(tool: list[str], prog: Path, strsize: int, out: Path,
           extra: tuple[str, ...] = (), calls: str = CALLS) -> list[str]:
    subprocess.run([*tool, "-s", str(strsize), "-e", calls, *extra, "-o", str(out),
                    str(prog)], check=True, env=tracekit_env(), timeout=60)
    text = re.sub(r"0x[0-9a-f]{5,}", "ADDR", out.read_text())
    return re.sub(r"nlmsg_pid=\d+", "nlmsg_pid=PID", text).splitlines()


@pytest.mark.parametrize("strsize", [32, 300, 1000])
def test_data_as_long_as_strace_shows_it(prog: Path, tmp_path: Path, strsize: int) -> None:
    want = _trace(["strace"], prog, strsize, tmp_path / "strace.txt")
    got = _trace(TRACEKIT, prog, strsize, tmp_path / "tracekit.txt")
    assert any(ln.startswith("recvmsg(") and "RTM_NEWADDR" in ln for ln in want), want
    assert got == want


def test_past_a_record_the_data_is_cut(prog: Path, tmp_path: Path) -> None:
    want = _trace(["strace"], prog, 5000, tmp_path / "strace.txt")
    got = _trace(TRACEKIT, prog, 5000, tmp_path / "tracekit.txt")
    # a 2000-byte write fits a record, and so does a first iovec element of 1500 bytes;
    # a later element brings 1024 bytes at most: writev's second is cut
    vec = re.compile(r"^writev\(")
    assert [ln for ln in got if not vec.match(ln)] == [ln for ln in want if not vec.match(ln)]
    cut = [ln for ln in got if vec.match(ln)]
    assert len(cut) == 1, cut
    elems = re.findall(r'iov_base="((?:[^"\\]|\\.)*)"(\.\.\.)?', cut[0])
    assert [(len(e.encode().decode("unicode_escape")), more) for e, more in elems] == [
        (1500, ""), (1024, "...")], cut[0]


@pytest.mark.parametrize("fds", [("read=3", "write=4"), ("read=all", "write=all")])
def test_dumps_of_read_and_write_hold_the_whole_buffer(prog: Path, tmp_path: Path,
                                                       fds: tuple[str, str]) -> None:
    # strace -e read=/write= dumps all the data whatever -s says: 700 and 2300 bytes
    # read from the pipe (fd 3; the libc image first), 2000 written to it (fd 4);
    # readv/writev are left out: tracekit does not dump iovecs. "all" dumps every fd
    # (both sets "all" once dumped nothing)
    extra, calls = ("-e", fds[0], "-e", fds[1]), "trace=read,write"
    want = _trace(["strace"], prog, 32, tmp_path / "strace.txt", extra, calls)
    got = _trace(TRACEKIT, prog, 32, tmp_path / "tracekit.txt", extra, calls)
    # the 2300 bytes read and the 2000 written both reach offset 0x7c0
    assert sum(ln.startswith(" | 007c0 ") for ln in want) == 2, want
    assert got == want


@pytest.mark.parametrize("strsize", [0, 5, 32])
def test_long_argv_shows_as_many_elements_as_strace(tmp_path: Path, strsize: int) -> None:
    # forty 200-byte arguments: strace shows -s of them (each cut at -s bytes); argv's
    # default capture read whole elements into 3072 bytes, so 32 showed three of them
    argv = [shutil.which("true") or "/bin/true",
            *(chr(65 + i % 26) * 200 for i in range(40))]
    out = {}
    for name, tool in (("strace", ["strace"]), ("tracekit", TRACEKIT)):
        path = tmp_path / f"{name}.txt"
        subprocess.run([*tool, "-s", str(strsize), "-e", "trace=execve", "-o", str(path),
                        *argv], check=True, env=tracekit_env(), timeout=60)
        out[name] = re.sub(r"0x[0-9a-f]{5,}", "ADDR", path.read_text()).splitlines()
    assert out["strace"][0].startswith("execve(")
    assert out["tracekit"] == out["strace"]


def test_long_argv_under_run_as_strace_shows_it(tmp_path: Path) -> None:
    # tracekit run's strace format, string_limit 32: the same 32 elements
    argv = [shutil.which("true") or "/bin/true",
            *(chr(65 + i % 26) * 200 for i in range(40))]
    want = subprocess.run(["strace", "-e", "trace=execve", "-o", str(tmp_path / "s.txt"),
                           *argv], check=True, timeout=60)
    want_line = (tmp_path / "s.txt").read_text().splitlines()[0]
    got = subprocess.run([sys.executable, "-m", "tracekit", "run", "-F", "strace", "-e",
                          "execve", "--", *argv], check=True, env=tracekit_env(),
                         timeout=60, capture_output=True, text=True).stdout
    first = next(ln for ln in got.splitlines() if "execve(" in ln)
    assert want.returncode == 0 and want_line.startswith("execve(")
    # the filename and argv (the environment is tracekit's own)
    assert first[first.index("execve("):].split("], ")[0] == want_line.split("], ")[0]


_PRCTL_NAMES = r"""
#include <sys/mman.h>
#include <sys/prctl.h>
int main(void)
{
    char out[16];
    void *p = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    prctl(PR_SET_NAME, "abcdefghijklmnopqrst", 0, 0, 0);
    prctl(PR_GET_NAME, out, 0, 0, 0);
    prctl(0x53564d41, 0, (unsigned long)p, 4096,        /* PR_SET_VMA_ANON_NAME */
          "name-of-the-vma-that-is-longer-than-thirty-two-bytes-and-fifty-too");
    prctl(0x53564d41, 0, (unsigned long)p, 4096, "short");
    return 0;
}
"""


@pytest.mark.parametrize("strsize", [0, 5, 32, 100])
def test_prctl_names_as_long_as_strace_shows_them(tmp_path: Path, strsize: int) -> None:
    # PR_SET_NAME/PR_GET_NAME print at most -s bytes of the comm (printstr_ex), and a
    # vma's name -s bytes too: tracekit printed 15 and 32 whatever -s said
    prog = compile_c(_PRCTL_NAMES, tmp_path, "prctl_names")
    want = _trace(["strace"], prog, strsize, tmp_path / "strace.txt", calls="trace=prctl")
    got = _trace(TRACEKIT, prog, strsize, tmp_path / "tracekit.txt", calls="trace=prctl")
    assert sum(ln.startswith("prctl(") for ln in want) == 4, want
    assert got == want
