"""The beautify stage on hand-made batches: decoded text, fd cache updates from the same
events (open, close, dup2, exec, exit), counters, and lifecycle records passed through."""

from __future__ import annotations

import os
from pathlib import Path

from tests.pipeline.helpers import run_through
from tracekit._events import CAP_STR, Capture, Exec, Exit, FdSnapshot, Fork, Lost, Syscall
from tracekit.app.config import BeautifyConfig
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline.beautify import Beautify, from_config

X64 = SyscallTable("x86_64")
AT_FDCWD = 2**64 - 100


def sc(name: str, args: tuple[int, ...] = (), ret: int = 0, *, tgid: int = 50,
       caps: tuple[Capture, ...] = ()) -> Syscall:
    nr = X64.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1, duration_ns=1, tid=tgid, tgid=tgid, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def stage(proc: Path) -> Beautify:
    return Beautify(SyscallDecoder(X64, fd_paths=True, fdcache=FdCache(str(proc))))


def link(proc: Path, tgid: int, fd: int, target: str) -> None:
    d = proc / str(tgid) / "fd"
    d.mkdir(parents=True, exist_ok=True)
    (d / str(fd)).unlink(missing_ok=True)
    (d / str(fd)).symlink_to(target)


async def test_decoded_is_added_and_other_fields_kept(tmp_path: Path) -> None:
    ev = sc("openat", (AT_FDCWD, 0x1000, os.O_RDONLY | os.O_CLOEXEC), -2)
    lost = Lost(ts_ns=5, count=3)
    result, out = await run_through([[ev, lost]], [stage(tmp_path)])
    got = out[0][0]
    assert got.decoded is not None
    assert (got.decoded.name, got.decoded.args, got.decoded.ret) == (
        "openat", ("AT_FDCWD", "0x1000", "O_RDONLY|O_CLOEXEC"),
        "-1 ENOENT (No such file or directory)")
    assert got.args == ev.args and got.ret == ev.ret and ev.decoded is None
    assert out[0][1] is lost


async def test_fd_cache_follows_open_dup2_close_in_event_order(tmp_path: Path) -> None:
    link(tmp_path, 50, 1, "/run/no-such-tty")   # not under /dev: never stat'ed
    path = Capture(1, CAP_STR, 0, b"/etc/hosts")
    batch = [
        sc("openat", (AT_FDCWD, 0x1000, 0), 3, caps=(path,)),
        sc("read", (3, 0x2000, 10), 10),
        sc("dup2", (3, 1), 1),
        sc("write", (1, 0x2000, 10), 10),
        sc("close", (3,)),
        sc("read", (3, 0x2000, 10), -9),
    ]
    s = stage(tmp_path)
    result, out = await run_through([batch], [s])
    text = [(e.decoded.args[0], e.decoded.ret) for e in out[0]]
    assert text == [("AT_FDCWD", "3</etc/hosts>"), ("3</etc/hosts>", "10"),
                    ("3</etc/hosts>", "1</etc/hosts>"), ("1</etc/hosts>", "10"),
                    ("3</etc/hosts>", "0"), ("3", "-1 EBADF (Bad file descriptor)")]
    assert out[0][2].decoded.args[1] == "1</run/no-such-tty>"     # dup2's newfd before the call
    # /proc was read for fd 1 and for the closed fd 3 (nothing found); the open's path
    # came from its capture.
    assert result.stats["beautify"].counters == {"fd_cache_misses": 2}


async def test_dup2_onto_a_closed_fd_of_a_whole_table_is_plain(tmp_path: Path) -> None:
    """With the process's whole table known (its snapshot, and a child forked from it),
    dup2's new fd is printed as it was before the call: closed, so plain ``50``, as
    strace prints it, even when /proc, read after the call, shows the copy there (a
    decode that lagged the program: the old code printed ``50</etc/hosts>``)."""
    link(tmp_path, 50, 50, "/etc/hosts")        # /proc as it is after the dup2
    link(tmp_path, 51, 50, "/etc/hosts")
    snap = FdSnapshot(0, 50, ((3, "/etc/hosts"),), "/")
    batch = [snap, sc("dup2", (3, 50), 50), Fork(1, 50, 50, 51, 51),
             sc("close", (50,), tgid=51), sc("dup2", (3, 50), 50, tgid=51)]
    _, out = await run_through([batch], [stage(tmp_path)])
    got = [e.decoded.args for e in out[0] if isinstance(e, Syscall)]
    assert got == [("3</etc/hosts>", "50"), ("50</etc/hosts>",), ("3</etc/hosts>", "50")]


async def test_exec_and_group_exit_forget_the_process(tmp_path: Path) -> None:
    link(tmp_path, 50, 4, "/old")
    s = stage(tmp_path)
    _, out = await run_through([[sc("fstat", (4, 0x1000)), Fork(1, 50, 50, 51, 51)]], [s])
    assert out[0][0].decoded.args[0] == "4</old>"
    assert isinstance(out[0][1], Fork)
    link(tmp_path, 50, 4, "/new")
    _, out = await run_through([[sc("fstat", (4, 0x1000))]], [s])
    assert out[0][0].decoded.args[0] == "4</old>"          # cached
    _, out = await run_through([[Exec(2, 50, 50, "t", "/bin/t"), sc("fstat", (4, 0x1000))]],
                               [s])
    assert isinstance(out[0][0], Exec)
    assert out[0][1].decoded.args[0] == "4</new>"
    link(tmp_path, 50, 4, "/reused-pid")
    _, out = await run_through([[Exit(3, 50, 50, 0, True, "t"), sc("fstat", (4, 0x1000))]], [s])
    assert out[0][1].decoded.args[0] == "4</reused-pid>"


async def test_unknown_numbers_are_counted(tmp_path: Path) -> None:
    ev = Syscall(1, 1, 50, 50, 0, 1000, (0,) * 6, -38, "t")
    result, out = await run_through([[ev, ev]], [stage(tmp_path)])
    assert out[0][0].decoded.name == "syscall_0x3e8"
    assert result.stats["beautify"].counters["unknown_syscall_nr"] == 2


def test_from_config_builds_a_stage() -> None:
    s = from_config(BeautifyConfig())
    assert isinstance(s, Beautify) and s.name == "beautify"
    assert s.decoder.fd_paths is True and s.decoder.string_limit == 32
