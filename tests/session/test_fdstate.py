"""The fd-table records of the BPF program and the session's fd snapshots, on the kernel.

A command that opens, dups and closes fds and execs is traced with a selection that
shows only ``read``: the calls that change the fd table come as FdState records (never
as Syscall events), each exec is followed by an FdExec listing the fds it left open, the
held command's inherited fds come first as an FdSnapshot, and the kernel counts the
fd-table records it emitted. Without ``fd_table`` none of them is made.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest
import trio

from tracekit._events import (
    Event,
    Exec,
    FdExec,
    FdSnapshot,
    FdState,
    FdTargets,
    Syscall,
    fd_descs,
)
from tracekit.app.trace import LiveTrace
from tracekit.kernel.sockdiag import SockDiag
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import StageContext
from tracekit.session.session import SessionOptions

pytestmark = pytest.mark.kernel

TABLE = SyscallTable()


class Collect:
    name = "collect"

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def run(self, ctx: StageContext, recv: Any) -> None:
        async with recv:
            async for batch in recv:
                self.events.extend(batch)


def nr(name: str) -> int:
    got = TABLE.nr(name)
    assert got is not None
    return got


async def trace(command: list[str], *, fd_table: bool, syscalls: set[int] | None
                ) -> tuple[list[Event], Any]:
    sink = Collect()
    opts = SessionOptions(command=command, syscalls=syscalls, fd_table=fd_table)
    live = LiveTrace(opts, sinks=[sink], collect=False)
    with trio.fail_after(60):
        await live.run()
    assert live.returncode == 0
    return sink.events, live.counters


async def test_hidden_calls_come_as_fd_state_records(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("hello\n")
    script = f"exec 5<{data}; cat <&5 >/dev/null; exec 6>&5; cat {data} >/dev/null"
    events, counters = await trace(["sh", "-c", script], fd_table=True,
                                   syscalls={nr("read")})
    calls = [e for e in events if isinstance(e, Syscall)]
    assert calls and {e.syscall_nr for e in calls} == {nr("read")}
    hidden = {TABLE.name(e.call.syscall_nr) for e in events if isinstance(e, FdState)}
    assert {"openat", "dup2", "close", "fcntl"} <= hidden, hidden
    assert "read" not in hidden and "execve" not in hidden
    snaps = [e for e in events if isinstance(e, FdSnapshot)]
    assert len(snaps) == 1 and events[0] is snaps[0]
    assert {0, 1, 2} <= {fd for fd, _ in snaps[0].fds}
    assert snaps[0].cwd == os.getcwd()
    # after each exec, the fds it left open: cat <&5 has 0, 1, 2 and the shell's 5
    execs = [e for e in events if isinstance(e, Exec)]
    after = [e for e in events if isinstance(e, FdExec)]
    assert len(after) == len(execs) >= 3
    for e in after:
        assert e.nbits >= 64 and e.open_fds & 0b111 == 0b111
    assert any(e.open_fds >> 5 & 1 for e in after)
    assert counters.fd_state == sum(isinstance(e, FdState | FdExec) for e in events)
    assert counters.fd_lost == 0


async def test_without_fd_table_nothing_of_it() -> None:
    events, counters = await trace(["sh", "-c", "exec 5</etc/hostname; cat <&5"],
                                   fd_table=False, syscalls={nr("read")})
    assert not any(isinstance(e, FdState | FdExec | FdSnapshot | FdTargets) for e in events)
    assert counters.fd_state == 0


async def test_new_fds_are_read_as_their_records_arrive() -> None:
    """An fd that a call made is read from /proc right before its record (an FdTargets;
    memfd_create's); sockets and pipes need no /proc: their records carry what the BPF
    program read of them in the call (CAP_FD: the socket unbound, then bound; both ends
    of the pipe one FIFO inode)."""
    prog = ("import os, socket, time\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 0))\n"
            "r, w = os.pipe()\n"
            "m = os.memfd_create('tk')\n"
            "time.sleep(0.5)\n")
    events, _ = await trace(["/usr/bin/python3", "-S", "-c", prog], fd_table=True,
                            syscalls=None)
    got: dict[str, FdTargets] = {}
    calls: dict[str, Syscall] = {}
    for i, e in enumerate(events):
        call = e.call if isinstance(e, FdState) else e
        if isinstance(call, Syscall) and call.ret >= 0:
            calls[TABLE.name(call.syscall_nr)] = call
        if isinstance(e, FdTargets):
            nxt = events[i + 1]
            assert isinstance(nxt, Syscall | FdState)
            call = nxt.call if isinstance(nxt, FdState) else nxt
            assert (call.tid, call.ts_ns) == (e.tid, e.ts_ns)
            got[TABLE.name(call.syscall_nr)] = e
    assert got["memfd_create"].fds[0][1].startswith("/memfd:tk")
    assert not {"socket", "bind", "pipe2"} & set(got), got
    sock = fd_descs(calls["socket"].caps)
    assert [(d.fd, d.at_exit, d.proto, d.sport) for d in sock] == [
        (calls["socket"].ret, True, "UDP", 0)]
    ino = sock[0].ino
    assert ino > 0
    bind = fd_descs(calls["bind"].caps)
    assert [(d.ino, d.at_exit) for d in bind] == [(ino, False), (ino, True)]
    assert bind[0].sport == 0 and bind[1].sport > 0
    assert bind[1].src[:4] == bytes([127, 0, 0, 1])
    pipe = fd_descs(calls["pipe2"].caps)
    assert [d.mode & 0o170000 for d in pipe] == [0o010000, 0o010000]
    assert pipe[0].ino == pipe[1].ino and pipe[0].fd != pipe[1].fd


def test_sockdiag_describes_this_process_sockets() -> None:
    def ino(s: socket.socket) -> int:
        return os.fstat(s.fileno()).st_ino

    diag = SockDiag()
    try:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        c = socket.socket()
        c.connect(srv.getsockname())
        a, _ = srv.accept()
        port = srv.getsockname()[1]
        cport = c.getsockname()[1]
        p, q = socket.socketpair()
        fresh = socket.socket(socket.AF_UNIX)
        with srv, c, a, p, q, fresh:
            assert diag.describe(ino(srv), "TCP") == f"TCP:[127.0.0.1:{port}]"
            assert diag.describe(ino(c), "TCP") == \
                f"TCP:[127.0.0.1:{cport}->127.0.0.1:{port}]"
            assert diag.describe(ino(a), None) == f"TCP:[127.0.0.1:{port}->127.0.0.1:{cport}]"
            assert diag.describe(ino(p), "UNIX-STREAM") == f"UNIX-STREAM:[{ino(p)}->{ino(q)}]"
            assert diag.describe(ino(fresh), "UNIX-STREAM") is None  # neither peer nor name
            queries = diag.queries
            diag.describe(ino(c), "TCP")                 # the dump is kept until refresh
            assert diag.queries == queries
            diag.refresh()
            diag.describe(ino(c), "TCP")
            assert diag.queries == queries + 1
    finally:
        diag.close()


def test_annotate_skips_a_batch_without_new_fds_as_the_full_walk_would() -> None:
    """FdResolver.annotate's batch check (no call that makes fds /proc must name: the
    batch itself) gives what the event-by-event walk gives, on random batches of this
    process's real calls: pipes and sockets it holds open, opens, reads, closes, an
    FdState and a Fork among them."""
    import operator
    import random

    from tracekit._events import Fork
    from tracekit.session import fdstate
    from tracekit.session.fdstate import FdResolver

    pid = os.getpid()
    r, w = os.pipe()
    sock = socket.socket()
    try:
        def call(name: str, args: tuple[int, ...], ret: int, ts: int) -> Syscall:
            full = (*args, 0, 0, 0, 0, 0, 0)[:6]
            return Syscall(ts, 100, pid, pid, 0, nr(name), full, ret, "pytest")  # type: ignore[arg-type]

        pool = [
            lambda ts: call("read", (r, 0x1000, 10), 3, ts),
            lambda ts: call("close", (99,), 0, ts),
            lambda ts: call("openat", (2**64 - 100, 0x2000, 0), w, ts),
            lambda ts: call("pipe2", (0x3000, 0), 0, ts),
            lambda ts: call("socket", (2, 1, 0), sock.fileno(), ts),
            lambda ts: call("dup", (r,), w, ts),
            lambda ts: FdState(ts, call("close", (98,), 0, ts)),
            lambda ts: Fork(ts, pid, pid, pid + 1, pid + 1),
        ]
        rnd = random.Random(15)
        walk = operator.attrgetter("no_such_attribute")   # the check always gives up
        kept = annotated = 0
        for _ in range(300):
            batch = [rnd.choice(pool[:6] if rnd.random() < 0.7 else pool)(1000 + i)
                     for i in range(rnd.randint(0, 12))]
            fast = FdResolver(TABLE).annotate(batch)
            saved = fdstate._syscall_nr
            fdstate._syscall_nr = walk
            try:
                slow = FdResolver(TABLE).annotate(batch)
            finally:
                fdstate._syscall_nr = saved
            assert fast == slow
            assert (fast is batch) == (slow is batch)
            kept += fast is batch
            annotated += any(isinstance(ev, FdTargets) for ev in fast)
        assert kept > 50 and annotated > 50         # both ways were taken
    finally:
        os.close(r)
        os.close(w)
        sock.close()
