"""fd decorations against strace's own ``-yy`` output on the running kernel.

Each program runs under ``strace -f -yy -qq`` and under tracekit's strace format (fd paths
on, its default), with the same ``-e trace=`` selection, and the lines are compared
whole, after normalising only what differs between two runs: times, pids, addresses,
and the numbers inside fd decorations and socket addresses (inodes, ephemeral ports),
so that the decorations' shapes are compared exactly (``TCP:[N.N.N.N:N->N.N.N.N:N]``,
``UNIX-STREAM:[N->N,"/path"]``, ``NETLINK:[ROUTE:N]``). Cases: fds opened by calls the
selection hides, fds a short-lived child inherited and their dups, the working
directory of ``AT_FDCWD`` followed through ``chdir``, a device, a TCP client and server
on loopback, UDP over IPv4 and IPv6, a unix socketpair, a named, an abstract and a
datagram unix socket, a netlink socket, and a ``-p`` target's fds opened before the
trace.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import run_tracekit, write_pipeline
from tests.e2e._strace_lines import Call, pair_processes, parse, pid_normaliser

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="no strace")]

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
_ADDR = re.compile(r"0x[0-9a-f]{5,}")
_DIGITS = re.compile(r"\d+")
_DECO = re.compile(r"<(?:[^<>]|<[^<>]*>)*>")       # an fd's decoration, one level nested


def _norm(line: str) -> str:
    """Numbers inside fd decorations and in the ports and pids of socket addresses."""
    line = _ADDR.sub("ADDR", line)
    line = _DIGITS.sub("N", line)
    line = re.sub(r"htons\(\d+\)", "htons(N)", line)
    return re.sub(r"nl_pid=\d+", "nl_pid=N", line)


def _calls(text: str, names: frozenset[str] | None) -> dict[int, list[Call]]:
    procs = parse(text)
    return {pid: [c for c in calls if names is None or c.name in names]
            for pid, calls in procs.items()}


def _both(tmp: Path, argv: list[str], trace: str, *, cwd: str | None = None
          ) -> tuple[dict[int, list[Call]], dict[int, list[Call]]]:
    """strace -yy's calls and tracekit's, per process, with ``-e trace=`` ``trace``."""
    s_out = tmp / "strace.txt"
    subprocess.run(["strace", "-f", "-qq", "-yy", "-e", f"trace={trace}", "-o", str(s_out),
                    "--", *argv], check=True, capture_output=True, timeout=60, cwd=cwd)
    t_out = tmp / "tracekit.txt"
    cfg = write_pipeline(tmp, f"""
        [target]
        command = {json.dumps(argv)}
        [filter]
        syscalls = {json.dumps(trace.split(","))}
        [output]
        format = "strace"
        path = {json.dumps(str(t_out))}
        """)
    r = subprocess.run([sys.executable, "-m", "tracekit", "run", str(cfg)], cwd=cwd,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    names = frozenset(trace.split(","))
    return _calls(s_out.read_text(), names), _calls(t_out.read_text(), names)


def _same(theirs: dict[int, list[Call]], ours: dict[int, list[Call]]) -> None:
    """Each strace process has its tracekit process with the same lines (normalised)."""
    pairs, unpaired = pair_processes(theirs, ours)
    assert not unpaired, unpaired
    p_theirs, p_ours = pid_normaliser(set(theirs)), pid_normaliser(set(ours))
    for a, b in pairs:
        assert b is not None
        assert [p_theirs.sub("PID", _norm(c.line)) for c in a] == \
            [p_ours.sub("PID", _norm(c.line)) for c in b]


def test_fds_opened_by_hidden_calls_and_inherited(tmp_path: Path) -> None:
    """``-e trace=read,write``: open, dup2, fcntl(F_DUPFD), close and exec are hidden,
    and the fds a short-lived child inherited (0, 1, 2 and 9) and their dups are still
    decorated, as strace -yy decorates them."""
    data = tmp_path / "data.txt"
    data.write_text("x\n")
    script = (f"exec 9<{data}; cat {data} >/dev/null; cat <&9; "
              f"(cat /etc/hostname >&2) 2>/dev/null; exec 7>&1; echo done >&7")
    theirs, ours = _both(tmp_path, ["sh", "-c", script], "read,write")
    _same(theirs, ours)
    raw = (tmp_path / "tracekit.txt").read_text()
    assert f"read(3<{data}>, " in raw             # cat's open, hidden
    assert f"read(0<{data}>, " in raw             # cat <&9: the shell's dup2, hidden
    assert "write(1</dev/null<char 1:3>>, " in raw
    assert 'write(1<pipe:[' in raw and '"done\\n"' in raw   # inherited 1 via 7, dup2'd


def test_working_directory_and_devices(tmp_path: Path) -> None:
    """``AT_FDCWD</cwd>`` followed through chdir and fchdir (the selection hides both);
    a relative open's fd and a device's ``<char 1:3>``, as strace -y/-yy print them."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f").write_text("y")
    prog = ("import os\n"
            "os.chdir('sub'); os.close(os.open('f', os.O_RDONLY))\n"
            "d = os.open('/tmp', os.O_RDONLY); os.fchdir(d)\n"
            "os.close(os.open('/dev/null', os.O_RDONLY))\n"
            "os.stat('.')\n")
    theirs, ours = _both(tmp_path, [PY, "-S", "-c", prog], "openat,close,newfstatat",
                         cwd=str(tmp_path))
    _same(theirs, ours)
    raw = (tmp_path / "tracekit.txt").read_text()
    assert f'openat(AT_FDCWD<{tmp_path}/sub>, "f", ' in raw
    assert "newfstatat(AT_FDCWD</tmp>, " in raw
    assert "</dev/null<char 1:3>>" in raw


SOCKETS = r"""
import os, socket, sys, time
d = sys.argv[1]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0)); srv.listen(5)
c = socket.socket(); c.connect(srv.getsockname())
a, _ = srv.accept()
c.send(b"hi"); a.recv(10)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
u.sendto(b"x", u.getsockname()); u.recv(1)
u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u6.connect(("::1", 9))
u6.getpeername()
t6 = socket.socket(socket.AF_INET6); t6.bind(("::1", 0)); t6.listen()
p, q = socket.socketpair(); p.send(b"x"); q.recv(1)
g, h = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); g.send(b"x"); h.recv(1)
if os.path.exists(d + "/sock"):
    os.unlink(d + "/sock")
n = socket.socket(socket.AF_UNIX); n.bind(d + "/sock"); n.listen()
m = socket.socket(socket.AF_UNIX); m.connect(d + "/sock"); m2, _ = n.accept()
m.send(b"y"); m2.recv(1)
ab = socket.socket(socket.AF_UNIX); ab.bind("\0tracekit-test-%d" % os.getpid()); ab.getsockname()
nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); nl.bind((0, 0)); nl.getsockname()
# sock_diag describes a socket while it exists: tracekit reads its calls' records a
# little after the calls; a process that closes its sockets at once outruns it
time.sleep(1)
for s in (srv, c, a, u, u6, t6, p, q, g, h, n, m, m2, ab, nl):
    s.getsockname()
    s.close()
"""


def test_sockets_as_strace_yy_prints_them(tmp_path: Path) -> None:
    """TCP client and server on loopback, UDP, TCPv6, UDPv6, unix socketpairs (stream and
    datagram), a named and an abstract unix socket, a netlink socket: every line of the
    socket calls, decorations compared with strace -yy's (numbers normalised)."""
    script = tmp_path / "sockets.py"
    script.write_text(SOCKETS)
    trace = ("socket,socketpair,bind,listen,connect,accept4,getsockname,getpeername,"
             "sendto,recvfrom,close")
    theirs, ours = _both(tmp_path, [PY, "-S", str(script), str(tmp_path)], trace)

    def from_first_socket(procs: dict[int, list[Call]]) -> dict[int, list[Call]]:
        # Python's imports before the script open and close files and an epoll fd:
        # compared from the script's first socket on
        return {pid: calls[next((i for i, c in enumerate(calls) if c.name == "socket"),
                                len(calls)):] for pid, calls in procs.items()}
    _same(from_first_socket(theirs), from_first_socket(ours))
    raw = (tmp_path / "tracekit.txt").read_text()
    for shape in (r"<TCP:\[127\.0\.0\.1:\d+->127\.0\.0\.1:\d+\]>", r"<UDP:\[127\.0\.0\.1:\d+\]>",
                  r"<UDPv6:\[\[::1\]:\d+->\[::1\]:9\]>", r"<TCPv6:\[\[::1\]:\d+\]>",
                  r"<UNIX-STREAM:\[\d+->\d+\]>", r"<UNIX:\[\d+->\d+\]>",
                  rf'<UNIX-STREAM:\[\d+,"{re.escape(str(tmp_path))}/sock"\]>',
                  r'<UNIX-STREAM:\[\d+,@"tracekit-test-\d+"\]>', r"<NETLINK:\[ROUTE:\d+\]>",
                  r"socket\(AF_INET, SOCK_STREAM\|SOCK_CLOEXEC, IPPROTO_IP\) = \d+<TCP:\[\d+\]>"):
        assert re.search(shape, raw), shape


def test_pid_target_fds_opened_before_the_trace(tmp_path: Path) -> None:
    """A ``-p`` target's fds from before the trace (a file, a pipe, a listening socket)
    are decorated from the snapshot taken at attach, even after the process is gone."""
    data = tmp_path / "data.txt"
    data.write_text("abc")
    stop = tmp_path / "stop"
    prog = (f"import os, socket, time\n"
            f"f = os.open({str(data)!r}, os.O_RDONLY)\n"
            f"r, w = os.pipe()\n"
            f"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
            f"print(f, r, w, s.fileno(), s.getsockname()[1], flush=True)\n"
            f"while not os.path.exists({str(stop)!r}):\n"
            f"    os.pread(f, 1, 0); os.write(w, b'x'); os.read(r, 1); s.getsockname()\n"
            f"    time.sleep(0.02)\n")
    proc = subprocess.Popen([PY, "-S", "-c", prog], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        f, r, w, s, port = map(int, proc.stdout.readline().split())
        out = tmp_path / "out.txt"
        cfg = write_pipeline(tmp_path, f"""
            [target]
            pid = [{proc.pid}]
            [filter]
            syscalls = ["pread64", "write", "getsockname"]
            [output]
            format = "strace"
            path = {json.dumps(str(out))}
            """)
        tk = subprocess.Popen([sys.executable, "-m", "tracekit", "run", str(cfg)],
                              stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not out.exists() or "getsockname(" not in out.read_text()):
            time.sleep(0.05)                 # traced: its calls are in the output
        stop.write_text("")
        proc.wait(timeout=30)
        _, err = tk.communicate(timeout=60)
        assert tk.returncode == 0, err
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
    text = out.read_text()
    assert f"pread64({f}<{data}>, " in text, text
    assert re.search(rf"write\({w}<pipe:\[\d+\]>, ", text), text
    assert f"getsockname({s}<TCP:[127.0.0.1:{port}]>, " in text, text


def test_hidden_calls_are_counted_and_never_shown(tmp_path: Path) -> None:
    """With ``trace=read`` the opens, closes and dups are recorded for the fd tables only:
    JSON Lines with a beautify stage holds no record of them, the summary counts only
    ``read``, and the text shows only reads, decorated."""
    data = tmp_path / "data.txt"
    data.write_text("x\n")
    for fmt, stage in (("jsonl", '[[stage]]\nkind = "beautify"\n'),
                       ("summary", '[[stage]]\nkind = "beautify"\n'), ("strace", "")):
        out = tmp_path / f"out.{fmt}"
        cfg = write_pipeline(tmp_path, f"""
            [target]
            command = ["cat", "{data}"]
            [filter]
            syscalls = ["read"]
            {stage}
            [output]
            format = "{fmt}"
            path = {json.dumps(str(out))}
            """, name=f"{fmt}.toml")
        r = run_tracekit(["run", str(cfg)])
        assert r.returncode == 0, r.stderr
        text = out.read_text()
        if fmt == "jsonl":
            events = [json.loads(line) for line in text.splitlines()]
            assert {e["type"] for e in events} <= {"syscall", "exec", "exit", "signal", "losses"}
            assert {e["decoded"]["name"] for e in events if e["type"] == "syscall"} == {"read"}
            assert any(f"3<{data}>" in e["decoded"]["args"][0] for e in events
                       if e["type"] == "syscall")
        elif fmt == "summary":
            assert "read" in text and "openat" not in text and "close" not in text
        else:
            calls = [ln.split(" ", 2)[2] for ln in text.splitlines() if "(" in ln]
            assert calls and all(c.startswith("read(") for c in calls), calls
            assert any(c.startswith(f"read(3<{data}>, ") for c in calls), calls


def test_short_lived_pipe_end_and_anonymous_inodes(tmp_path: Path) -> None:
    """A pipe end closed at once (as a shell closes the end it gave a child) while the
    other stays open a while, and fds of calls that make anonymous inodes (epoll,
    eventfd, timerfd, signalfd, inotify) closed at once: decorated as strace -yy
    decorates them, though /proc cannot show them when their records arrive (both ends
    of a pipe are one inode; an anonymous inode's name is the call's)."""
    prog = ("import os, select, time\n"
            "r, w = os.pipe(); os.close(w); time.sleep(1); os.close(r)\n"
            "e = select.epoll(); e.close()\n"
            "os.close(os.eventfd(0))\n"
            "import ctypes; libc = ctypes.CDLL(None)\n"
            "os.close(libc.timerfd_create(1, 0))\n"
            "m = (ctypes.c_ulong * 16)(); os.close(libc.signalfd(-1, m, 0))\n"
            "os.close(libc.inotify_init1(0))\n")
    trace = "pipe2,close,epoll_create1,eventfd2,timerfd_create,signalfd4,inotify_init1"
    theirs, ours = _both(tmp_path, [PY, "-S", "-c", prog], trace)
    _same(theirs, ours)
    raw = (tmp_path / "tracekit.txt").read_text()
    assert re.search(r"pipe2\(\[(\d+)<pipe:\[(\d+)\]>, (\d+)<pipe:\[\2\]>\], ", raw), raw
    for name in ("[eventpoll]", "[eventfd]", "[timerfd]", "[signalfd]", "inotify"):
        assert f"<anon_inode:{name}>" in raw, name


# the same sockets closed at once, and a probe as glibc makes of nscd's socket (made,
# refused, closed within microseconds): gone from /proc and sock_diag by the time their
# records arrive, so only what the BPF program read in each call can describe them
SHORT_LIVED = SOCKETS.replace("time.sleep(1)\n", "") + r"""
probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
try:
    probe.connect(d + "/no-such-socket")
except OSError:
    pass
probe.close()
"""


def test_short_lived_sockets_as_strace_yy_prints_them(tmp_path: Path) -> None:
    """Every socket of the test above closed as soon as it is used, and a refused unix
    connect closed at once (a libc nscd probe): decorated as strace -yy decorates them
    (the protocol, addresses, ports, peers and names as each call saw them)."""
    script = tmp_path / "short.py"
    script.write_text(SHORT_LIVED)
    trace = ("socket,socketpair,bind,listen,connect,accept4,getsockname,getpeername,"
             "sendto,recvfrom,close")
    theirs, ours = _both(tmp_path, [PY, "-S", str(script), str(tmp_path)], trace)

    def from_first_socket(procs: dict[int, list[Call]]) -> dict[int, list[Call]]:
        return {pid: calls[next((i for i, c in enumerate(calls) if c.name == "socket"),
                                len(calls)):] for pid, calls in procs.items()}
    _same(from_first_socket(theirs), from_first_socket(ours))
    raw = (tmp_path / "tracekit.txt").read_text()
    for shape in (r"connect\(\d+<TCP:\[\d+\]>, ", r"<TCP:\[127\.0\.0\.1:\d+->127\.0\.0\.1:\d+\]>",
                  r"<UDPv6:\[\[::1\]:\d+->\[::1\]:9\]>", r"<UNIX-STREAM:\[\d+->\d+\]>",
                  r'<UNIX-STREAM:\[\d+,@"tracekit-test-\d+"\]>', r"<NETLINK:\[ROUTE:\d+\]>",
                  r"connect\(\d+<UNIX-STREAM:\[\d+\]>, \{sa_family=AF_UNIX, sun_path=\"[^\"]*"
                  r"/no-such-socket\"\}, \d+\) = -1 ENOENT",
                  r"close\(\d+<UNIX-STREAM:\[\d+\]>\) = 0(?![\s\S]*close\()"):
        assert re.search(shape, raw), (shape, raw)


def test_a_shell_pipeline_and_ls_as_strace_yy_prints_them(tmp_path: Path) -> None:
    """``sh -c 'echo a | cat'``: the pipe's ends in the shell and in both children (made,
    dup2'd onto 0 and 1, closed at once) carry the pipe's inode, as strace -yy shows;
    and ``ls -l``'s sockets (glibc's nscd probes, where the system makes them) too."""
    theirs, ours = _both(tmp_path, ["sh", "-c", "echo a | cat"], "pipe2,dup2,close,write")
    _same(theirs, ours)
    raw = (tmp_path / "tracekit.txt").read_text()
    assert re.search(r"pipe2\(\[(\d+)<pipe:\[(\d+)\]>, (\d+)<pipe:\[\2\]>\], 0\)", raw), raw
    assert re.search(r"dup2\(\d+<pipe:\[\d+\]>, 1<[^>]*>+\) = 1<pipe:\[\d+\]>", raw), raw
    theirs, ours = _both(tmp_path, ["ls", "-l", str(tmp_path)], "socket,connect,close")
    _same(theirs, ours)


CONNECTED = """
import os, socket, sys
name = "\\0tracekit-peer-%d" % os.getpid()
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(name)
srv.listen(1)
cli = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
cli.connect(name)
acc, _ = srv.accept()
os.write(cli.fileno(), b"ping")       # write(2): the call itself describes no socket
os.read(acc.fileno(), 4)
for s in (acc, cli, srv):
    s.close()
"""


def test_a_connected_unix_socket_names_its_peer_once_accepted(tmp_path: Path) -> None:
    """A unix stream socket that connected prints ``[ino->peer]`` after the server
    accepted (the peer has an inode only then), as strace -yy's sock_diag query at the
    write shows it, though nothing of the write's own record describes the socket."""
    script = tmp_path / "connected.py"
    script.write_text(CONNECTED)
    theirs, ours = _both(tmp_path, [PY, "-S", str(script)],
                         "socket,bind,listen,connect,accept4,write,read,close")

    def from_first_socket(procs: dict[int, list[Call]]) -> dict[int, list[Call]]:
        return {pid: calls[next((i for i, c in enumerate(calls) if c.name == "socket"),
                                len(calls)):] for pid, calls in procs.items()}
    _same(from_first_socket(theirs), from_first_socket(ours))
    raw = (tmp_path / "tracekit.txt").read_text()
    assert re.search(r'write\(\d+<UNIX-STREAM:\[\d+->\d+\]>, "ping", 4\) = 4', raw), raw


@pytest.mark.parametrize("opts", [["-e", "decode-fds=path,socket"], ["-e", "decode-fds=path,dev"],
                                  ["-yy"], ["-y"], ["-e", "decode-fds=socket"],
                                  ["-e", "decode-fds=dev"], ["--decode-fds=socket,dev"]])
def test_decode_fds_sets_as_strace_reads_them(tmp_path: Path, opts: list[str]) -> None:
    """``-e decode-fds=path,socket`` describes sockets and not devices, ``path,dev`` the
    reverse, as strace 6.1 prints them (``-yy`` both, ``-y`` neither); without ``path``
    a file, a pipe and the working directory print bare (``socket``: only sockets)."""
    code = ("import socket, os; s = socket.socket(); s.close(); os.write(1, b'x'); "
            "f = os.open('/etc/hostname', 0); os.close(f); r, w = os.pipe(); "
            "os.write(w, b'y')")
    out = []
    for tool in (["strace"], [sys.executable, "-m", "tracekit", "strace"]):
        trace = tmp_path / "trace.txt"
        r = subprocess.run([*tool, *opts, "-e", "trace=socket,write,openat,close", "-o",
                            str(trace), PY, "-S", "-c", code], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120)
        assert r.returncode == 0, r.stderr
        lines = trace.read_text().splitlines()
        start = next(i for i, ln in enumerate(lines) if ln.startswith("socket("))
        out.append([_norm(ln) for ln in lines[start:]
                    if ln.startswith(("socket(", "write(", "openat(", "close("))])
    strace, tracekit = out
    assert len(strace) == 6, strace
    assert tracekit == strace
