"""The fd cache: readlink of /proc/<tgid>/fd/<fd> on a miss, invalidation by event."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracekit._events import (
    _FD_DESC,
    _FD_EXEC,
    _SYSCALL,
    CAP_ARG_FD,
    CAP_FD,
    CAP_STR,
    CAP_STRUCT,
    REC_FD_EXEC,
    REC_FD_STATE,
    Capture,
    Exec,
    Exit,
    FdExec,
    FdSnapshot,
    FdState,
    FdTargets,
    Fork,
    Syscall,
    decode_record,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import AT_FDCWD, FdCache, escape_path
from tracekit.kernel.syscalls import SyscallTable


def fake_proc(root: Path, tgid: int, links: dict[int, str]) -> None:
    fd_dir = root / str(tgid) / "fd"
    fd_dir.mkdir(parents=True, exist_ok=True)
    for fd, target in links.items():
        (fd_dir / str(fd)).unlink(missing_ok=True)
        (fd_dir / str(fd)).symlink_to(target)


def test_miss_reads_proc_once_then_hits(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/etc/passwd", 4: "pipe:[12345]", 5: "socket:[6789]"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/etc/passwd"
    assert cache.get(10, 4) == "pipe:[12345]"
    assert cache.get(10, 5) == "socket:[6789]"
    assert (cache.misses, cache.hits) == (3, 0)
    for _ in range(5):
        assert cache.get(10, 3) == "/etc/passwd"
    assert (cache.misses, cache.hits) == (3, 5)


def test_unknown_fd_and_gone_process_are_cached_as_unknown(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 9) is None
    assert cache.get(10, 9) is None
    assert cache.get(99, 0) is None                 # no such process
    assert cache.misses == 2 and cache.hits == 1


def test_close_forgets_one_fd(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/a"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/a"
    fake_proc(tmp_path, 10, {3: "/b"})              # closed and reopened elsewhere
    assert cache.get(10, 3) == "/a"                 # still cached
    cache.forget(10, 3)
    assert cache.get(10, 3) == "/b"


def test_dup_copies_the_target_and_exec_forgets_the_process(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/a", 1: "/dev/pts/0"})
    cache = FdCache(str(tmp_path))
    cache.get(10, 3)
    cache.get(10, 1)
    cache.dup(10, 3, 1)                             # dup2(3, 1)
    assert cache.get(10, 1) == "/a"
    cache.set(10, 7, "/etc/hosts")
    assert cache.get(10, 7) == "/etc/hosts"
    cache.forget_process(10)                        # exec
    assert cache.get(10, 1) == "/dev/pts/0"
    assert cache.get(10, 7) is None


def test_processes_are_separate(tmp_path: Path) -> None:
    fake_proc(tmp_path, 10, {3: "/ten"})
    fake_proc(tmp_path, 11, {3: "/eleven"})
    cache = FdCache(str(tmp_path))
    assert cache.get(10, 3) == "/ten"
    assert cache.get(11, 3) == "/eleven"
    cache.forget(10, 3)
    assert cache.get(11, 3) == "/eleven"
    assert cache.hits == 1


def test_real_proc_of_this_process(tmp_path: Path) -> None:
    path = tmp_path / "real"
    path.write_text("x")
    fd = os.open(path, os.O_RDONLY)
    r, w = os.pipe()
    try:
        cache = FdCache()
        assert cache.get(os.getpid(), fd) == str(path)
        assert cache.get(os.getpid(), r) == f"pipe:[{os.fstat(r).st_ino}]"
    finally:
        for f in (fd, r, w):
            os.close(f)


def test_still_checks_entries_without_reading_proc(tmp_path: Path) -> None:
    (tmp_path / "9" / "fd").mkdir(parents=True)
    os.symlink("/etc/hosts", tmp_path / "9" / "fd" / "4")
    cache = FdCache(str(tmp_path))
    # still() compares the decorations FdCache.text gives
    assert not cache.still(9, ((4, "</etc/hosts>"),))    # absent: a lookup would read /proc
    assert cache.get(9, 4) == "/etc/hosts" and cache.get(9, 5) is None
    assert (cache.misses, cache.hits) == (2, 0)
    assert cache.still(9, ((4, "</etc/hosts>"), (5, None)))  # cached, unknown included
    assert (cache.misses, cache.hits) == (2, 2)
    cache.set(9, 4, "/tmp/other")
    assert not cache.still(9, ((4, "</etc/hosts>"),))
    assert not cache.still(9, ((6, None),)) and (cache.misses, cache.hits) == (2, 2)
    # AT_FDCWD: the working directory, once known (read or followed), not before
    assert not cache.still(9, ((-100, "</w>"),))
    cache.copy_process(9, 9)                    # (no change: a process onto itself)
    (tmp_path / "9" / "cwd").symlink_to("/w")
    assert cache.cwd(9) == "/w" and cache.still(9, ((-100, "</w>"), (5, None)))
    assert not cache.still(9, ((-100, "</x>"),))


# --- the fd table kept by the event stream (calls shown or hidden, execs, snapshots) ---

X64 = SyscallTable("x86_64")


def call(name: str, args: tuple[int, ...] = (), ret: int = 0, *, caps: tuple[Capture, ...] = (),
         tgid: int = 10, ts: int = 1) -> Syscall:
    nr = X64.nr(name)
    assert nr is not None
    return Syscall(ts_ns=ts, duration_ns=1, tid=tgid, tgid=tgid, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def decoder(tmp_path: Path) -> SyscallDecoder:
    cache = FdCache(str(tmp_path), realpath=lambda p: os.path.normpath(p))
    return SyscallDecoder(X64, fd_paths=True, fdcache=cache)


def path(arg: int, p: bytes) -> Capture:
    return Capture(arg, CAP_STR, 0, p)


def test_hidden_calls_keep_the_table(tmp_path: Path) -> None:
    """FdState records (calls the selection hid) change the table as shown calls do."""
    dec = decoder(tmp_path)
    snap = FdSnapshot(0, 10, ((0, "/dev/null"), (1, "pipe:[7]"), (2, "/tmp/log")), "/home/u")
    dec.track(snap)
    dec.track(FdState(2, call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 3,
                                    caps=(path(1, b"data.txt"),))))
    dec.track(FdState(3, call("dup2", (3, 0), 0)))
    dec.track(FdState(4, call("fcntl", (1, 0, 10), 10)))     # F_DUPFD
    dec.track(FdState(5, call("close", (3,))))
    read = dec.decode(call("read", (0, 0x10, 4), 0))
    assert read.args[0] == "0</home/u/data.txt>"
    assert dec.decode(call("write", (10, 0x10, 4), 4)).args[0] == "10<pipe:[7]>"
    assert dec.decode(call("close", (3,))).args[0] == "3"    # closed: /proc is empty here
    assert dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), -2, caps=(
        path(1, b"x"),))).args[0] == "AT_FDCWD</home/u>"


def test_exec_keeps_only_the_fds_left_open(tmp_path: Path) -> None:
    """An exec empties the table until its FdExec, which brings back the fds still open
    (close-on-exec ones are gone); fds set after the exec stay."""
    cache = FdCache(str(tmp_path))
    cache.seed(FdSnapshot(0, 10, ((0, "/a"), (1, "/b"), (3, "/c"), (9, "/d")), "/"))
    cache.observe(Exec(1, 10, 10, "sh", "/bin/sh"))
    assert cache.peek(10, 0) is None
    cache.observe(FdExec(2, 10, 10, 0b1000000011, 64))     # 0, 1 and 9 stayed open
    assert [cache.peek(10, fd) for fd in (0, 1, 3, 9)] == ["/a", "/b", None, "/d"]
    cache.observe(Exec(3, 10, 10, "x", "/bin/x"))
    cache.observe(FdExec(4, 10, 10, 0, 0))                 # unreadable: nothing kept
    assert cache.peek(10, 0) is None and cache.cwd(10) == "/"


def test_fds_closed_since_an_exec_read_no_proc(tmp_path: Path) -> None:
    """After an FdExec the table knows which fds are closed: fds the exec closed, or
    that close/close_range closed since, are unknown to known_text without /proc (where
    a later fd of that number is open by then); fds made since, a child's copy, and
    every fd after a call that can make fds no call returns (recvmsg) are read from
    /proc. get() reads /proc as before: an fd that a call made without returning it
    (ioctl TIOCGPTPEER) is not in the bits."""
    fake_proc(tmp_path, 10, {3: "/later", 4: "/later4", 5: "/five", 255: "/script",
                             6: "/six", 7: "/seven", 8: "/eight"})
    dec = decoder(tmp_path)
    cache = dec.fdcache
    cache.observe(Exec(1, 10, 10, "sh", "/bin/sh"))
    cache.observe(FdExec(2, 10, 10, 0b100111, 64))         # 0, 1, 2 and 5 open
    assert cache.known_text(10, 255) is None and cache.known_text(10, 3) is None
    assert cache.get(10, 6) == "/six"                      # what /proc shows: TIOCGPTPEER's
    assert cache.known_text(10, 6) == "</six>"             # then the table's
    assert cache.known_text(10, 5) == "</five>"            # open: /proc says what
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 4))  # path not captured
    assert cache.known_text(10, 4) == "</later4>"
    dec.decode(call("close", (4,)))
    dec.decode(call("close", (5,)))
    assert cache.known_text(10, 4) is None and cache.known_text(10, 5) is None
    # a call that failed with EBADF prints its closed fd bare; dup2's new fd too
    assert dec.decode(call("fcntl", (3, 1), -9)).args[0] == "3"
    assert dec.decode(call("dup2", (1, 255), 255)).args[1] == "255"
    dec.decode(call("dup2", (1, 7), 7))
    dec.decode(call("close_range", (6, 0xFFFFFFFF, 0)))
    assert cache.known_text(10, 7) is None
    cache.observe(Fork(3, 10, 10, 11, 11))
    fake_proc(tmp_path, 11, {8: "/eight"})
    assert cache.known_text(11, 8) is None                 # the parent's knowledge
    dec.decode(call("recvmsg", (0, 0x10, 0), 1))
    assert cache.known_text(10, 8) == "</eight>"           # maybe an SCM_RIGHTS fd


def test_unlink_marks_the_fds_open_on_the_name_deleted(tmp_path: Path) -> None:
    """unlink, unlinkat and rmdir: the fds of every process open on the removed name
    print ``(deleted)``; a symlink removed leaves the file it names (its last part is
    not resolved, even when an open resolved the same name before)."""
    links = {"/d/link": "/d/file"}
    cache = FdCache(str(tmp_path), realpath=lambda p: links.get(p, os.path.normpath(p)))
    dec = SyscallDecoder(X64, fd_paths=True, fdcache=cache)
    for tgid in (10, 11):
        dec.track(FdSnapshot(0, tgid, (), "/d"))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 3, caps=(path(1, b"link"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 4, caps=(path(1, b"gone"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 5, tgid=11,
                    caps=(path(1, b"/d/gone"),)))
    dec.decode(call("unlink", (0,), 0, caps=(path(0, b"link"),)))
    dec.decode(call("unlinkat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), -2, caps=(path(1, b"file"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 6, caps=(path(1, b"sub"),)))
    dec.decode(call("unlinkat", (6, 0, 0), 0, caps=(path(1, b"../gone"),)))
    assert cache.peek(10, 3) == "/d/file"
    assert cache.peek(10, 4) == cache.peek(11, 5) == "/d/gone (deleted)"
    assert cache.text(11, 5) == "</d/gone>(deleted)"


def test_opens_of_proc_self_name_the_traced_process(tmp_path: Path) -> None:
    dec = decoder(tmp_path)
    dec.track(FdSnapshot(0, 10, (), "/"))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 3,
                   caps=(path(1, b"/proc/self/status"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 4,
                   caps=(path(1, b"/proc/thread-self/stat"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 5, caps=(path(1, b"/proc"),)))
    dec.decode(call("openat", (5, 0, 0), 6, caps=(path(1, b"self/maps"),)))
    dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 3, tgid=12,
                   caps=(path(1, b"/proc/self/status"),)))
    got = [dec.fdcache.peek(10, fd) for fd in (3, 4, 6)]
    assert got == ["/proc/10/status", "/proc/10/task/10/stat", "/proc/10/maps"]
    assert dec.fdcache.peek(12, 3) == "/proc/12/status"    # not the first one's answer


def test_fork_copies_exit_drops(tmp_path: Path) -> None:
    cache = FdCache(str(tmp_path))
    cache.seed(FdSnapshot(0, 10, ((1, "/b"),), "/w"))
    cache.observe(Fork(1, 10, 10, 11, 11))
    cache.set(11, 1, "/c")
    assert (cache.peek(10, 1), cache.peek(11, 1), cache.cwd(11)) == ("/b", "/c", "/w")
    cache.observe(Exit(2, 11, 11, 0, True, "t"))
    assert cache.peek(11, 1) is None


def test_fork_of_a_parent_never_seen_copies_its_cwd_from_proc(tmp_path: Path) -> None:
    """A system-wide or cgroup trace meets a parent first at its fork: the child (gone by
    the time its calls are decoded) gets the parent's working directory, read from
    /proc; when that is unknown too, the child's own is read while it is alive."""
    (tmp_path / "20").mkdir()
    (tmp_path / "20" / "cwd").symlink_to("/srv/work")
    cache = FdCache(str(tmp_path))
    cache.observe(Fork(1, 20, 20, 21, 21))          # no /proc/21: the child has exited
    assert (cache.cwd(21), cache.cwd(20)) == ("/srv/work", "/srv/work")
    (tmp_path / "31").mkdir()
    (tmp_path / "31" / "cwd").symlink_to("/home/c")
    cache.observe(Fork(2, 30, 30, 31, 31))          # no /proc/30: the parent has exited
    assert (cache.cwd(30), cache.cwd(31)) == (None, "/home/c")


def test_chdir_fchdir_and_relative_opens(tmp_path: Path) -> None:
    dec = decoder(tmp_path)
    dec.track(FdSnapshot(0, 10, (), "/home/u"))
    dec.decode(call("chdir", (0,), caps=(path(0, b"../v/./w"),)))
    assert dec.fdcache.cwd(10) == "/home/v/w"
    opened = dec.decode(call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), 4,
                             caps=(path(1, b"sub"),)))
    assert opened.args[0] == "AT_FDCWD</home/v/w>" and opened.ret == "4</home/v/w/sub>"
    rel = dec.decode(call("openat", (4, 0, 0), 5, caps=(path(1, b"f"),)))
    assert rel.args[0] == "4</home/v/w/sub>" and rel.ret == "5</home/v/w/sub/f>"
    dec.decode(call("fchdir", (4,)))
    assert dec.fdcache.cwd(10) == "/home/v/w/sub"
    dec.decode(call("close_range", (4, 0xFFFFFFFF, 4)))      # CLOSE_RANGE_CLOEXEC: kept
    assert dec.fdcache.peek(10, 5) == "/home/v/w/sub/f"
    dec.decode(call("close_range", (5, 0xFFFFFFFF, 0)))
    assert dec.fdcache.peek(10, 5) is None and dec.fdcache.peek(10, 4) is not None


def test_targets_read_on_arrival_are_applied_with_their_call(tmp_path: Path) -> None:
    """An FdTargets before a call gives its new fds (the pipe's pair is printed among
    its arguments) and its sockets' texts; the text holds for the lines after it."""
    dec = decoder(tmp_path)
    pair = Capture(0, CAP_STRUCT, 0, (5).to_bytes(4, "little") + (6).to_bytes(4, "little"))
    dec.track(FdTargets(7, 10, 10, ((5, "pipe:[99]"), (6, "pipe:[99]"))))
    got = dec.decode(call("pipe2", (0x10, 0), 0, caps=(pair,), ts=7))
    assert got.args[0] == "[5<pipe:[99]>, 6<pipe:[99]>]"
    dec.track(FdTargets(8, 10, 10, ((3, "socket:[42]"),), ((42, "TCP:[42]"),)))
    assert dec.decode(call("socket", (2, 1, 0), 3, ts=8)).ret == "3<TCP:[42]>"
    dec.track(FdTargets(9, 10, 10, (), ((42, "TCP:[127.0.0.1:1->127.0.0.1:2]"),)))
    conn = dec.decode(call("connect", (3, 0x10, 16), 0, ts=9))
    assert conn.args[0] == "3<TCP:[42]>"                      # printed before the call
    assert dec.decode(call("write", (3, 0x10, 1), 1, ts=10)).args[0] == \
        "3<TCP:[127.0.0.1:1->127.0.0.1:2]>"


@pytest.mark.parametrize(("target", "text"), [
    ("/etc/passwd", "</etc/passwd>"),
    ("/tmp/we<i>rd\n", "</tmp/we\\74i\\76rd\\n>"),
    ("/tmp/a>1", "</tmp/a\\0761>"),
    ("/tmp/x (deleted)", "</tmp/x>(deleted)"),
    ("/dev/null", "</dev/null<char 1:3>>"),
    ("pipe:[123]", "<pipe:[123]>"),
    ("anon_inode:[eventfd]", "<anon_inode:[eventfd]>"),
])
def test_decorations_as_strace_prints_them(tmp_path: Path, target: str, text: str) -> None:
    """strace -yy's text (checked against strace 6.1: tests/e2e/test_fd_decorations.py):
    < and > in octal, ``(deleted)`` after the brackets, a device's numbers."""
    cache = FdCache(str(tmp_path))
    cache.set(10, 3, target)
    assert cache.text(10, 3) == text


def test_escape_path_keeps_plain_paths() -> None:
    assert escape_path("/usr/lib/x86_64-linux-gnu/libc.so.6") == \
        "/usr/lib/x86_64-linux-gnu/libc.so.6"
    assert escape_path('/a"b\\c') == '/a\\"b\\\\c'


def test_fd_state_and_fd_exec_records_decode() -> None:
    """The record layouts of programs/syscalls.h: an FdState is a syscall record of kind
    6; an FdExec carries the open_fds bitmap of 16 words."""
    nr = X64.nr("close")
    assert nr is not None
    raw = _SYSCALL.pack(REC_FD_STATE, 0, 5, 1, 7, 7, 0, nr, 3, 0, 0, 0, 0, 0, 0, b"cat")
    ev = decode_record(raw)
    assert isinstance(ev, FdState) and ev.ts_ns == 5 and ev.call.args[0] == 3
    words = [0] * 16
    words[0], words[1] = 0b111, 1                      # fds 0, 1, 2 and 64
    raw = _FD_EXEC.pack(REC_FD_EXEC, 0, 9, 7, 7, 128, 128, *words)
    ev2 = decode_record(raw)
    assert isinstance(ev2, FdExec) and ev2.open_fds == (1 << 64) | 0b111 and ev2.nbits == 128


@pytest.mark.parametrize(("target", "yy", "y"), [
    ("/dev/null", "</dev/null<char 1:3>>", "</dev/null>"),
    ("socket:[4242]", "<UNIX-STREAM:[4242]>", "<socket:[4242]>"),
    ("/etc/passwd", "</etc/passwd>", "</etc/passwd>"),
    ("/tmp/x (deleted)", "</tmp/x>(deleted)", "</tmp/x>(deleted)"),
])
def test_y_prints_the_link_and_yy_the_details(tmp_path: Path, target: str, yy: str,
                                               y: str) -> None:
    """strace -y: the fd's link text only (a socket's inode, no device numbers); -yy:
    a socket's protocol and addresses, a device's numbers (checked against strace 6.1:
    tests/e2e/test_strace_cli.py, combinations -y and -yy)."""
    cache = FdCache(str(tmp_path))
    cache._socks[4242] = "UNIX-STREAM:[4242]"     # what sock_diag said of it
    cache.set(10, 3, target)
    got_yy = cache.text(10, 3)
    cache.details = False
    assert (got_yy, cache.text(10, 3)) == (yy, y)
    cache.details = True
    assert cache.text(10, 3) == got_yy


def fd_desc(fd: int, ino: int, *, at_exit: bool, mode: int = 0o140000, family: int = 0,
            proto: bytes = b"", sport: int = 0, dport: int = 0, src: bytes = b"",
            dst: bytes = b"", peer: int = 0, name: bytes = b"", portid: int = 0,
            protocol: int = 0, netns: int = 0) -> bytes:
    """One ``struct tk_fd_desc`` as the BPF program writes it."""
    return _FD_DESC.pack(fd, mode, at_exit, 0, ino, family, protocol, sport, dport, portid,
                         len(name), peer, src.ljust(16, b"\0"), dst.ljust(16, b"\0"),
                         proto, name, netns)


def fd_cap(arg: int, *descs: bytes) -> Capture:
    return Capture(CAP_ARG_FD | arg, CAP_FD, 0, b"".join(descs))


def test_fds_described_in_the_call_need_no_proc(tmp_path: Path) -> None:
    """A call's record that says what its fds were (CAP_FD captures, read in the kernel
    as the call entered and returned) decorates them with /proc empty (the process is
    gone): a pipe's pair, a socket as the call made it, a connect as it found the
    socket, and the description it left, which later lines print; a socket's first
    description stays (strace caches it), a bare ``PROTO:[inode]`` does not."""
    dec = decoder(tmp_path)
    pair = Capture(0, CAP_STRUCT, 0, (5).to_bytes(4, "little") + (6).to_bytes(4, "little"))
    pipe = dec.decode(call("pipe2", (0x10, 0), 0, caps=(pair, fd_cap(
        0, fd_desc(5, 99, at_exit=True, mode=0o010000),
        fd_desc(6, 99, at_exit=True, mode=0o010000)))))
    assert pipe.args[0] == "[5<pipe:[99]>, 6<pipe:[99]>]"
    assert dec.decode(call("close", (6,))).args[0] == "6<pipe:[99]>"
    tcp = {"family": 2, "proto": b"TCP"}
    sock = dec.decode(call("socket", (2, 1, 0), 3, caps=(fd_cap(0, fd_desc(
        3, 42, at_exit=True, **tcp)),)))
    assert sock.ret == "3<TCP:[42]>"
    lo = bytes([127, 0, 0, 1])
    conn = dec.decode(call("connect", (3, 0x10, 16), 0, caps=(
        fd_cap(0, fd_desc(3, 42, at_exit=False, **tcp)),
        fd_cap(0, fd_desc(3, 42, at_exit=True, sport=40000, dport=8080, src=lo, dst=lo,
                          **tcp)))))
    assert conn.args[0] == "3<TCP:[42]>"                      # as the call found it
    assert dec.decode(call("write", (3, 0x10, 1), 1)).args[0] == \
        "3<TCP:[127.0.0.1:40000->127.0.0.1:8080]>"
    # later descriptions of a described socket change nothing (strace's cache)
    dec.decode(call("shutdown", (3, 2), 0, caps=(fd_cap(0, fd_desc(
        3, 42, at_exit=False, sport=40000, src=lo, **tcp)),)))
    assert dec.decode(call("write", (3, 0x10, 1), 1)).args[0] == \
        "3<TCP:[127.0.0.1:40000->127.0.0.1:8080]>"
    unix = {"family": 1, "proto": b"UNIX-STREAM"}
    probe = dec.decode(call("connect", (4, 0x10, 110), -2, caps=(
        fd_cap(0, fd_desc(4, 50, at_exit=False, **unix)),
        fd_cap(0, fd_desc(4, 50, at_exit=True, **unix)))))
    assert probe.args[0] == "4<UNIX-STREAM:[50]>"
    abstract = dec.decode(call("bind", (4, 0x10, 12), 0, caps=(
        fd_cap(0, fd_desc(4, 50, at_exit=False, **unix)),
        fd_cap(0, fd_desc(4, 50, at_exit=True, peer=51, name=b"\0tk\0x", **unix)))))
    assert abstract.args[0] == "4<UNIX-STREAM:[50]>"
    assert dec.decode(call("close", (4,))).args[0] == '4<UNIX-STREAM:[50->51,@"tk"]>'
    nl = dec.decode(call("getsockname", (7, 0x10, 0x20), 0, caps=(fd_cap(0, fd_desc(
        7, 60, at_exit=False, family=16, proto=b"NETLINK", portid=1234, protocol=0)),)))
    assert nl.args[0] == "7<NETLINK:[ROUTE:1234]>"


def test_fast_open_and_close_keep_the_table_as_apply_call_does(tmp_path: Path) -> None:
    """FdCache.apply_open / apply_close (the decoder's path for opens and closes) leave
    the same tables as apply_call, on random runs: absolute, relative, dirfd-relative,
    truncated and faulted paths, failed opens, closes of known and unknown fds, two
    processes, a working directory that changes."""
    import random

    from tracekit._events import CAPF_FAULT, CAPF_TRUNC

    rnd = random.Random(15)
    paths = [b"/dev/null", b"/etc/../etc/passwd", b"rel/file", b"", b"/a//b/", b"x"]
    for _ in range(200):
        caches = [FdCache(str(tmp_path), realpath=lambda p: os.path.normpath(p))
                  for _ in range(2)]
        for c in caches:
            c.set_cwd(10, "/home/u")
            c.set(10, 5, "/srv")
        for step in range(30):
            tgid = rnd.choice((10, 11))
            name = rnd.choice(("openat", "open", "creat", "close", "close"))
            if name == "close":
                ev = call("close", (rnd.choice((3, 4, 5, 2**32 - 1, 2**64 - 1)),), 0, tgid=tgid)
                caches[0].apply_close(ev)
                caches[1].apply_call(ev, "close", ret_fd=False)
            else:
                arg = 1 if name == "openat" else 0
                flags = rnd.choice((0, 0, 0, CAPF_TRUNC, CAPF_FAULT))
                caps = () if rnd.random() < 0.1 else (path(arg, rnd.choice(paths)),)
                if caps:
                    caps = (Capture(arg, CAP_STR, flags, caps[0].data),)
                dirfd = rnd.choice((AT_FDCWD & (2**64 - 1), 5, 7))
                args = (dirfd, 0x1000, 0) if name == "openat" else (0x1000, 0)
                ev = call(name, args, rnd.choice((3, 4, -2)), caps=caps, tgid=tgid, ts=step)
                caches[0].apply_open(ev, name, arg)
                caches[1].apply_call(ev, name, ret_fd=True, path_arg=arg)
            assert caches[0]._tables == caches[1]._tables, (step, ev)


def test_the_open_and_close_shortcuts_keep_the_table_as_apply_call_does(
        tmp_path: Path) -> None:
    """apply_open (an absolute path captured whole) and apply_close leave the table and
    the fds known since the exec as apply_call leaves them, fds past 63 and a negative
    close included, in a random run of opens, failed opens and closes."""
    import random

    rnd = random.Random(7)
    short, general = FdCache(str(tmp_path)), FdCache(str(tmp_path))
    for cache in (short, general):
        cache.observe(Exec(1, 10, 10, "sh", "/bin/sh"))
        cache.observe(FdExec(2, 10, 10, 0b111, 64))
    for _ in range(400):
        fd = rnd.choice([3, 4, 63, 64, 70, 200])
        if rnd.random() < 0.5:
            path = rnd.choice([b"/a", b"/b/c", b"/dev/null"])
            ev = call("openat", (AT_FDCWD & 0xFFFFFFFF, 0, 0), rnd.choice([fd, -2]),
                      caps=(Capture(1, CAP_STR, 0, path),))
            short.apply_open(ev, "openat", 1)
            general.apply_call(ev, "openat", ret_fd=True, path_arg=1)
        else:
            ev = call("close", (rnd.choice([fd, 0xFFFFFFFF]),))
            short.apply_close(ev)
            general.apply_call(ev, "close", ret_fd=False)
        assert (short._tables, short._since_exec) == (general._tables, general._since_exec)
