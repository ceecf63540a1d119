"""The kernel's proc connector (fork, exec, exit of every task), read with trio.

tracekit owns the ``AF_NETLINK``/``NETLINK_CONNECTOR`` socket with ``trio.socket`` and
uses pyroute2 only to parse the messages (``ProcEventMarshal``): pyroute2's own sockets
drive an asyncio loop and must never run on the trio thread (DESIGN.md, dependency notes).
Parsed messages become :class:`ProcEvent` Structs at once; no pyroute2 dict leaves this
module.

# Some facts about the proc connector (drivers/connector/cn_proc.c)

- A listener binds to multicast group ``CN_IDX_PROC`` and sends ``PROC_CN_MCAST_LISTEN``;
  it then receives one message per fork, exec, exit ... of EVERY task on the machine.
  Root in the initial user and pid namespaces only (EPERM otherwise); no connector at all
  without CONFIG_PROC_EVENTS (EPROTONOSUPPORT / ENOENT).
- ``proc_fork_connector`` runs at the end of copy_process(), before the
  ``sched_process_fork`` tracepoint: a fork message can arrive before the BPF program has
  added the child. ``proc_exit_connector`` runs after ``sched_process_exit``.
- Fork: ``parent_pid``/``parent_tgid`` are the child's ``real_parent``: the thread that
  called clone() for a new process, but the group's parent for a new thread
  (CLONE_THREAD), so for threads the creating thread is not known here.
- A listener that reads too slowly loses messages: ``recv`` fails with ENOBUFS once.
- tids and tgids are in the initial pid namespace.
"""

from __future__ import annotations

import errno
import socket
import struct

import msgspec
import trio
from pyroute2.netlink.connector.cn_proc import (
    CN_IDX_PROC,
    CN_VAL_PROC,
    PROC_CN_MCAST_LISTEN,
    PROC_EVENT_EXEC,
    PROC_EVENT_EXIT,
    PROC_EVENT_FORK,
    ProcEventMarshal,
)

from tracekit._errors import ConnectorError

__all__ = ["ConnectorError", "ProcConnector", "ProcEvent"]

NETLINK_CONNECTOR = 11          # include/uapi/linux/netlink.h
_NLMSG_DONE = 3
# struct nlmsghdr (16) + struct cn_msg (20) + enum proc_cn_mcast_op (4): 40 bytes
_LISTEN = struct.Struct("<IHHII" "IIIIHH" "I")
_RCVBUF = 8 << 20               # bytes; forced as root (SO_RCVBUFFORCE)
_SO_RCVBUFFORCE = 33            # include/uapi/asm-generic/socket.h (not in Python's socket)


class ProcEvent(msgspec.Struct, frozen=True, gc=False):
    """One proc connector message that tracekit uses (``struct proc_event``)."""

    kind: str           # "fork", "exec" or "exit"
    ts_ns: int          # ktime_get_ns() in the kernel (CLOCK_MONOTONIC)
    tid: int            # the task: fork child, exec'd or exiting task (init pid namespace)
    tgid: int           # its process
    parent_tid: int = 0     # fork: real_parent (see module facts); exit: parent
    parent_tgid: int = 0
    exit_code: int = 0      # exit: task->exit_code (wait(2) status layout)


class ProcConnector:
    """A subscribed proc connector socket. Use ``async with await ProcConnector.open()``
    or call :meth:`close`.

    Attributes:
      overruns: times the kernel dropped messages because we read too slowly (ENOBUFS).
    """

    def __init__(self, sock: trio.socket.SocketType) -> None:
        self._sock = sock
        self._marshal = ProcEventMarshal()
        self.overruns = 0

    @classmethod
    async def open(cls) -> ProcConnector:
        """Create, bind and subscribe.

        Raises:
          ConnectorError: the socket cannot be created, bound or subscribed (errno kept).
        """
        op = "socket"
        try:
            sock = trio.socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
        except OSError as e:
            raise ConnectorError(op, e.errno or errno.EIO) from e
        try:
            op = "setsockopt"
            try:
                sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, _RCVBUF)
            except PermissionError:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RCVBUF)
            op = "bind"
            await sock.bind((0, CN_IDX_PROC))
            op = "listen"
            msg = _LISTEN.pack(_LISTEN.size, _NLMSG_DONE, 0, 0, 0,
                               CN_IDX_PROC, CN_VAL_PROC, 0, 0, 4, 0, PROC_CN_MCAST_LISTEN)
            await sock.send(msg)
        except OSError as e:
            sock.close()
            raise ConnectorError(op, e.errno or errno.EIO) from e
        return cls(sock)

    async def receive(self) -> list[ProcEvent]:
        """Wait for the next datagram; its fork/exec/exit messages (maybe none).

        Raises:
          ConnectorError: the socket failed (other than ENOBUFS, which is counted in
            ``overruns``: messages were lost).
        """
        while True:
            try:
                data = await self._sock.recv(1 << 16)
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    self.overruns += 1
                    continue
                raise ConnectorError("recv", e.errno or errno.EIO) from e
            return self.parse(data)

    def parse(self, data: bytes) -> list[ProcEvent]:
        """The fork/exec/exit messages of one datagram, parsed by pyroute2."""
        out = []
        for m in self._marshal.parse(data):
            what = m.get("what")
            if what == PROC_EVENT_FORK:
                out.append(ProcEvent("fork", m["timestamp_ns"], m["child_pid"],
                                     m["child_tgid"], m["parent_pid"], m["parent_tgid"]))
            elif what == PROC_EVENT_EXEC:
                out.append(ProcEvent("exec", m["timestamp_ns"], m["process_pid"],
                                     m["process_tgid"]))
            elif what == PROC_EVENT_EXIT:
                out.append(ProcEvent("exit", m["timestamp_ns"], m["process_pid"],
                                     m["process_tgid"], m["parent_pid"], m["parent_tgid"],
                                     m["exit_code"]))
        return out

    def close(self) -> None:
        self._sock.close()

    async def __aenter__(self) -> ProcConnector:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
