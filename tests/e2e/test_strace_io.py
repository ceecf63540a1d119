"""The I/O and socket structs against real strace: ioctl (termios, winsize, int
arguments, FICLONE, requests without an argument, unknown requests as ``_IOC()``),
poll/ppoll, pselect6, epoll_ctl/epoll_wait/epoll_pwait, readv/writev/pwritev,
sendmsg/recvmsg, getrandom, socketpair, sendfile/copy_file_range offsets, epoll_create1,
and the addresses and lengths of accept4, getsockname, getpeername, recvfrom, sendto,
setsockopt and getsockopt.

tests/workloads/io_calls.c makes every call, each with the same outcome from run to run;
it runs under ``strace -f -qq`` and under tracekit's strace format, and the lines of these
calls are compared whole after normalising only what differs between two runs:
addresses, the ephemeral ports, the pty number, the process's own pid (SO_PEERCRED),
getrandom's bytes and the time a timeout had left.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_strace_diff import Call, norm, parse, run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="no strace")]

WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"
CALLS = frozenset({"ioctl", "poll", "ppoll", "pselect6", "select", "epoll_ctl", "epoll_wait",
                   "epoll_pwait", "readv", "writev", "pwritev", "sendmsg", "recvmsg",
                   "getrandom", "accept4", "getsockname", "getpeername", "recvfrom",
                   "sendto", "setsockopt", "getsockopt", "socketpair", "sendfile",
                   "copy_file_range", "epoll_create1", "epoll_pwait2", "preadv2",
                   "pwritev2", "shutdown", "sendmmsg", "accept"})
_PORT = re.compile(r"htons\(\d+\)")
_LEFT = re.compile(r"left \{tv_sec=\d+, tv_(?:nsec|usec)=\d+\}")
_RANDOM = re.compile(r'^getrandom\("[^"]*"')
_PTN = re.compile(r"TIOCGPTN, \[\d+\]")       # which pty the system had free
_PEER_PID = re.compile(r"\{pid=\d+, uid=")      # SO_PEERCRED: the process itself


def build(tmp: Path, name: str) -> Path:
    """tests/workloads/<name>.c compiled with gcc; skip when gcc is missing."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip(f"gcc is not installed: cannot build tests/workloads/{name}.c")
    out = tmp / name
    subprocess.run([gcc, "-O1", "-Wall", "-Werror", "-o", str(out),
                    str(WORKLOADS / f"{name}.c"), "-lutil"], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("io"), "io_calls")


def text_of(c: Call) -> str:
    line = norm(f"{c.name}({', '.join(c.args)}) = {c.ret}")
    line = _PEER_PID.sub("{pid=PID, uid=", _PTN.sub("TIOCGPTN, [N]", line))
    line = _LEFT.sub("left {tv_sec=N, tv_nsec=N}", _PORT.sub("htons(PORT)", line))
    return _RANDOM.sub('getrandom("RANDOM"', line)


def io_lines(text: str) -> list[str]:
    calls = parse(text)
    first = min(calls)
    return [text_of(c) for c in calls[first] if c.name in CALLS]


def test_io_calls_equal_strace(tmp_path: Path, exe: Path) -> None:
    s_text, t_text = run_both(tmp_path, "io", [str(exe)])
    s_lines, t_lines = io_lines(s_text), io_lines(t_text)
    assert len(s_lines) > 40, s_lines
    assert t_lines == s_lines
    text = "\n".join(s_lines)
    # every kind of this slice is among the lines compared
    for want in ("TCGETS, {c_iflag=", "SNDCTL_TMR_START or TCSETS", "{ws_row=24, ws_col=80",
                 "FIONREAD, [0]", "FIONBIO, [1]", "FIOCLEX)", "BTRFS_IOC_CLONE or FICLONE, 1)",
                 "_IOC(_IOC_READ, 0x78, 0x77, 0x4)",
                 "[{fd=", "revents=POLLIN", "0 (Timeout)", "left {tv_sec=N",
                 "(in [", "data={u32=7, u64=18446744069414584327}", "epoll_pwait(",
                 'iov_base="hello"', '"..., iov_len=39}', "msg_iov=[", "msg_flags=0}, MSG_DONTWAIT",
                 'getrandom("RANDOM"', "[128 => 16]", "NULL, NULL", "SO_REUSEADDR, [1], 4",
                 "SO_TYPE, [2], [4]", "SOL_TCP, TCP_NODELAY", "0, NULL, 0) = 1",
                 "socketpair(AF_UNIX, SOCK_STREAM, 0, [", "[0] => [10], 10)",
                 ", [0], ", "EPOLL_CLOEXEC",
                 "{l_onoff=1, l_linger=5}", "SO_RCVTIMEO_OLD, \"\\1\\0", "TCP_CONGESTION, \"",
                 "[128 => 0]", "TCFLSH, TCIFLUSH", "TCXONC, TCOON", "TCSBRK, 1)",
                 "select(", "(out [", "], NULL) = 2 ()", "epoll_pwait2(",
                 "cmsg_type=SCM_RIGHTS, cmsg_data=[",
                 "{msg_namelen=0}", "msg_namelen=128 => 16", "preadv2(", "RWF_DSYNC) = 5",
                 "SO_PEERCRED, {pid=PID, uid=0, gid=0}, [12]", "SHUT_WR",
                 "{sigmask=[USR1], sigsetsize=8}", "{sigmask=NULL, sigsetsize=8}",
                 "msg_len=4}], 2, MSG_DONTWAIT) = 2", "sendmmsg(-1, [{msg_hdr={",
                 '{iov_base="x", iov_len=1}, ...], 40)', "EPOLL_CTL_DEL, 4, ADDR) = 0",
                 "[1073741824], 10) = 0"):
        assert want in text, want


def test_hostile_arguments_equal_strace(tmp_path: Path) -> None:
    """tests/workloads/io_hostile.c: NULL and unmapped pointers, arrays that run off their
    page, counts past the memory, negative lengths: printed as strace prints them (the
    address, or the elements read and ``... /* 0x... */``)."""
    exe = build(tmp_path, "io_hostile")
    s_text, t_text = run_both(tmp_path, "hostile", [str(exe)])
    s_lines, t_lines = io_lines(s_text), io_lines(t_text)
    assert len(s_lines) > 20, s_lines
    assert t_lines == s_lines
    text = "\n".join(s_lines)
    for want in ("NULL, 5) = -1 EFAULT",
                 "{iov_base=0x1, iov_len=4}", "{iov_base=NULL, iov_len=0}", "... /* ADDR */]",
                 "epoll_wait(7, NULL, 2, 0) = 0", "FIONBIO, NULL", "msg_name=0x1",
                 "getsockname(5, ADDR, NULL)", "[-1]", "{sa_family=AF_UNIX}, [2]",
                 "sendto(5, NULL, 4, 0, NULL, 0)"):
        assert want in text, want
