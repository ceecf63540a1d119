"""System V IPC and POSIX message queue structs, as strace 6.1 prints them.

Each ``format_*`` takes the bytes the record captured (little-endian, the 64-bit
layouts of include/uapi/asm-generic/{ipcbuf,shmbuf,msgbuf,sembuf}.h and
arch/x86/include/uapi/asm/sembuf.h) and returns the text, or None when the bytes are too
short for the struct (the caller then prints the address, as strace does for memory it
cannot read). :func:`kinds` gives the argument kinds (tracekit.decode.argspec):

- ``shmctlarg``/``semctlarg``/``msgctlarg``: the struct of the command in argument 1
  (semctl: 2), written by the call: ``{shm_perm={uid=0, gid=0, mode=0600, key=0, cuid=0,
  cgid=0}, shm_segsz=4096, ...}`` for IPC_STAT and the ``*_STAT*`` commands, the limits
  for IPC_INFO and ``*_INFO``; the fields IPC_SET reads, read at entry:
  ``{shm_perm={uid=0, gid=0, mode=0600}}`` (msgctl: and ``msg_qbytes``); the address
  for a failed call and every other command;
- ``sembufs``: semop's operations, ``[{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}]``, their
  count the next argument;
- ``msgbuf_in``/``msgbuf_out``: msgsnd's message (read) and msgrcv's (written), its
  text ``msgsz`` (the next argument) bytes long: ``{mtype=1, mtext="hi"}``;
- ``mqattr_in``/``mqattr_out``: struct mq_attr, ``{mq_flags=O_NONBLOCK, mq_maxmsg=2,
  mq_msgsize=16, mq_curmsgs=0}`` (mq_open's follows its ``omode``, which ends the
  arguments without O_CREAT: strace prints no mode and no attr then).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import (
    KindFn,
    capture,
    capture_out,
    cut_array_text,
    decoded_in,
    decoded_out,
    elements_shown,
    readable,
)
from tracekit.decode.values import pointer, quote

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["MQ_ATTR_SIZE", "MSGBUF_SIZE", "MSQID_DS_SIZE", "SEMBUF_SIZE", "SEMID_DS_SIZE",
           "SHMID_DS_SIZE", "format_ipc_perm",
           "format_ipc_set", "format_mq_attr", "format_msgbuf", "format_msginfo",
           "format_msqid_ds", "format_sembufs", "format_semid_ds",
           "format_seminfo", "format_shm_info", "format_shmid_ds", "format_shminfo", "kinds"]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
SHMID_DS_SIZE = 112      # struct shmid64_ds (shminfo64 and shm_info are smaller)
MSQID_DS_SIZE = 120      # struct msqid64_ds (msginfo is smaller)
SEMID_DS_SIZE = {"x86_64": 104, "arm64": 88}    # struct semid64_ds (seminfo: 40)
MQ_ATTR_SIZE = 64        # struct mq_attr: 4 longs and 4 reserved
SEMBUF_SIZE = 6          # struct sembuf: u16 sem_num, s16 sem_op, s16 sem_flg
MSGBUF_SIZE = 8 + 256    # struct msgbuf: long mtype, then as much mtext as is shown

# struct ipc64_perm (48 bytes): s32 key | u32 uid | u32 gid | u32 cuid | u32 cgid |
# u16 mode (x86_64, arm64: __kernel_mode_t is 16 or 32 bits, the value fits 16) | ...
_PERM = struct.Struct("<iIIIIH")
# struct shmid64_ds (112): perm | u64 segsz | s64 atime, dtime, ctime | s32 cpid, lpid |
# u64 nattch
_SHMID = struct.Struct("<48xQqqqiiQ")
# struct semid64_ds: perm | x86_64: s64 otime, pad, s64 ctime, pad, u64 nsems (104);
# asm-generic (arm64): s64 otime, s64 ctime, u64 nsems (88)
_SEMID: dict[str, struct.Struct] = {"x86_64": struct.Struct("<48xq8xq8xQ"),
                                    "arm64": struct.Struct("<48xqqQ")}
# struct msqid64_ds (120): perm | s64 stime, rtime, ctime | u64 cbytes, qnum, qbytes |
# s32 lspid, lrpid
_MSQID = struct.Struct("<48xqqq8xQQii")
_SHMINFO = struct.Struct("<5Q")         # struct shminfo64: shmmax, shmmin, shmmni, shmseg, shmall
_SHM_INFO = struct.Struct("<i4x5Q")     # struct shm_info: used_ids, then 5 unsigned longs
_SEMINFO = struct.Struct("<10i")        # struct seminfo
_MSGINFO = struct.Struct("<7iH")        # struct msginfo: 7 ints and an unsigned short
_MQ_ATTR = struct.Struct("<4q")
_SEMBUF = struct.Struct("<Hhh")


def format_ipc_perm(data: bytes) -> str | None:
    """struct ipc64_perm: ``{uid=0, gid=0, mode=0600, key=0, cuid=0, cgid=0}``."""
    if len(data) < 48:
        return None
    key, uid, gid, cuid, cgid, mode = _PERM.unpack_from(data)
    return (f"{{uid={uid}, gid={gid}, mode={F.mode_octal(mode)}, key={key & _M32}, "
            f"cuid={cuid}, cgid={cgid}}}")


def format_ipc_set(data: bytes, prefix: str, qbytes: bool = False) -> str | None:
    """The fields IPC_SET reads: ``{shm_perm={uid=0, gid=0, mode=0600}}``; ``prefix``
    names the struct (``shm``, ``sem``, ``msg``), ``qbytes`` adds msgctl's
    ``msg_qbytes``."""
    if len(data) < (_MSQID.size if qbytes else 48):
        return None
    _key, uid, gid, _cuid, _cgid, mode = _PERM.unpack_from(data)
    text = f"{{{prefix}_perm={{uid={uid}, gid={gid}, mode={F.mode_octal(mode)}}}"
    if qbytes:
        text += f", msg_qbytes={_MSQID.unpack_from(data)[4]}"
    return text + "}"


def format_msgbuf(data: bytes, size: int, limit: int) -> str | None:
    """struct msgbuf with ``size`` bytes of text (``data``: its mtype and as much text
    as was read): ``{mtype=1, mtext="hi"}``, the text cut at ``limit`` (strace -s)."""
    if len(data) < 8:
        return None
    mtype = int.from_bytes(data[:8], "little", signed=True)
    text = data[8:8 + size]
    return (f"{{mtype={mtype}, mtext="
            f"{quote(text, limit=limit, more=len(text) < size and len(text) < limit)}}}")


def format_shmid_ds(data: bytes) -> str | None:
    """struct shmid64_ds (shmctl IPC_STAT, SHM_STAT, SHM_STAT_ANY)."""
    perm = format_ipc_perm(data)
    if perm is None or len(data) < _SHMID.size:
        return None
    segsz, atime, dtime, ctime, cpid, lpid, nattch = _SHMID.unpack_from(data)
    return (f"{{shm_perm={perm}, shm_segsz={segsz}, shm_cpid={cpid}, shm_lpid={lpid}, "
            f"shm_nattch={nattch}, shm_atime={atime}, shm_dtime={dtime}, "
            f"shm_ctime={ctime}}}")


def format_semid_ds(data: bytes, arch: str) -> str | None:
    """struct semid64_ds of ``arch`` (semctl IPC_STAT, SEM_STAT, SEM_STAT_ANY)."""
    perm = format_ipc_perm(data)
    layout = _SEMID.get(arch)
    if perm is None or layout is None or len(data) < layout.size:
        return None
    otime, ctime, nsems = layout.unpack_from(data)
    return f"{{sem_perm={perm}, sem_otime={otime}, sem_ctime={ctime}, sem_nsems={nsems}}}"


def format_msqid_ds(data: bytes) -> str | None:
    """struct msqid64_ds (msgctl IPC_STAT, MSG_STAT, MSG_STAT_ANY); msg_cbytes is not
    shown (strace prints glibc's struct, which names it __msg_cbytes)."""
    perm = format_ipc_perm(data)
    if perm is None or len(data) < _MSQID.size:
        return None
    stime, rtime, ctime, qnum, qbytes, lspid, lrpid = _MSQID.unpack_from(data)
    return (f"{{msg_perm={perm}, msg_stime={stime}, msg_rtime={rtime}, msg_ctime={ctime}, "
            f"msg_qnum={qnum}, msg_qbytes={qbytes}, msg_lspid={lspid}, msg_lrpid={lrpid}}}")


def _named(fields: tuple[str, ...], layout: struct.Struct) -> Callable[[bytes], str | None]:
    def fmt(data: bytes) -> str | None:
        if len(data) < layout.size:
            return None
        values = layout.unpack_from(data)
        return "{" + ", ".join(f"{n}={v}" for n, v in zip(fields, values, strict=True)) + "}"
    return fmt


format_shminfo = _named(("shmmax", "shmmin", "shmmni", "shmseg", "shmall"), _SHMINFO)
"""struct shminfo64 (shmctl IPC_INFO): ``{shmmax=..., shmmin=1, ...}``."""
format_shm_info = _named(("used_ids", "shm_tot", "shm_rss", "shm_swp", "swap_attempts",
                          "swap_successes"), _SHM_INFO)
"""struct shm_info (shmctl SHM_INFO)."""
format_seminfo = _named(("semmap", "semmni", "semmns", "semmnu", "semmsl", "semopm",
                         "semume", "semusz", "semvmx", "semaem"), _SEMINFO)
"""struct seminfo (semctl IPC_INFO, SEM_INFO)."""
format_msginfo = _named(("msgpool", "msgmap", "msgmax", "msgmnb", "msgmni", "msgssz",
                         "msgtql", "msgseg"), _MSGINFO)
"""struct msginfo (msgctl IPC_INFO, MSG_INFO)."""


def format_sembufs(data: bytes, count: int, flags: F.FlagSet, limit: int = 32) -> str:
    """semop's ``count`` operations (``data``: as many as were read, ``SEMBUF_SIZE``
    bytes each): ``[{sem_num=0, sem_op=-1, sem_flg=IPC_NOWAIT}]``, at most ``limit``
    (strace -s) then ``...``; ``[]`` for none."""
    shown = []
    for k in range(min(count, limit, len(data) // SEMBUF_SIZE)):
        num, op, flg = _SEMBUF.unpack_from(data, k * SEMBUF_SIZE)
        shown.append(f"{{sem_num={num}, sem_op={op}, sem_flg={flags(flg & 0xFFFF)}}}")
    if count > limit:
        shown.append("...")
    return "[" + ", ".join(shown) + "]"


def format_mq_attr(data: bytes, flags: F.FlagSet | None) -> str | None:
    """struct mq_attr: ``{mq_flags=O_NONBLOCK, mq_maxmsg=2, mq_msgsize=16, mq_curmsgs=0}``;
    ``flags`` None: mq_flags in hex (mq_open's, which strace does not decode: the kernel
    ignores them there)."""
    if len(data) < _MQ_ATTR.size:
        return None
    fl, maxmsg, msgsize, curmsgs = _MQ_ATTR.unpack_from(data)
    # mq_open's are a long printed as %#lx (its bits: never with a minus sign)
    shown = (hex(fl & _M64) if fl else "0") if flags is None else flags(fl)
    return (f"{{mq_flags={shown}, mq_maxmsg={maxmsg}, mq_msgsize={msgsize}, "
            f"mq_curmsgs={curmsgs}}}")


# The struct each command writes, by the command's name (its IPC_64 bit aside)
_Formats = dict[str, Callable[[bytes], "str | None"]]


def _k_ctl(formats: dict[int, Callable[[bytes], str | None]], cmd_arg: int,
           ipc_64: int, ipc_set: int, set_fmt: Callable[[bytes], str | None]) -> KindFn:
    """The struct of a *ctl command: IPC_SET's as read at entry (the first capture of
    the argument), the others' as the call wrote them (the last, when it succeeded)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cmd = ev.args[cmd_arg] & _M32 & ~ipc_64
        text = None
        if cmd == ipc_set:
            caps = [c for c in ev.caps if c.arg == i]
            if caps and capture(ev, i) is not None and not caps[0].flags & CAPF_FAULT:
                text = set_fmt(caps[0].data)
        else:
            fmt = formats.get(cmd)
            cap = capture_out(ev, i) if fmt is not None else None
            text = None if cap is None or fmt is None else fmt(cap.data)
        return pointer(ev.args[i]) if text is None else text
    return k


def _k_msgbuf(*, at_exit: bool) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture_out(ev, i) if at_exit else capture(ev, i)
        text = None if cap is None else format_msgbuf(cap.data, ev.args[i + 1],
                                                      d.string_limit)
        return pointer(ev.args[i]) if text is None else text
    return k


def _by_value(table: dict[int, str], formats: _Formats) -> dict[int, Callable[[bytes],
                                                                               str | None]]:
    return {v: formats[n] for v, n in table.items() if n in formats}


def _k_sembufs(flags: F.FlagSet) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        count = ev.args[i + 1] & _M32
        cap = capture(ev, i)
        got = readable(ev, i) if cap is None and ev.args[i] else None
        if got is not None and not got[1]:
            # cut by the end of its mapping: the operations before the cut
            text = cut_array_text(got[0], count, SEMBUF_SIZE, elements_shown(d), ev.args[i],
                                  lambda b, n: format_sembufs(b, n, flags, n))
            return pointer(ev.args[i]) if text is None else text
        if cap is None or (count and len(cap.data) < SEMBUF_SIZE):
            return pointer(ev.args[i])
        return format_sembufs(cap.data, count, flags, elements_shown(d))
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    T = fl.tables
    ipc_64 = next(v for v, n in T.IPC_CONSTS.items() if n == "IPC_64")
    o_nonblock = next(v for v, n in T.OPEN_FLAGS if n == "O_NONBLOCK")
    sem_flags = F.FlagSet(T.SEMOP_FLAGS, unknown="SEM_???")
    mq_flags = F.FlagSet(((o_nonblock, "O_NONBLOCK"),))
    shm = _by_value(T.SHMCTL_CMDS, {
        "IPC_STAT": format_shmid_ds, "SHM_STAT": format_shmid_ds,
        "SHM_STAT_ANY": format_shmid_ds, "IPC_INFO": format_shminfo,
        "SHM_INFO": format_shm_info})
    semid: Callable[[bytes], str | None] = lambda b: format_semid_ds(b, fl.arch)  # noqa: E731
    sem = _by_value(T.SEMCTL_CMDS, {
        "IPC_STAT": semid, "SEM_STAT": semid, "SEM_STAT_ANY": semid,
        "IPC_INFO": format_seminfo, "SEM_INFO": format_seminfo})
    msg = _by_value(T.MSGCTL_CMDS, {
        "IPC_STAT": format_msqid_ds, "MSG_STAT": format_msqid_ds,
        "MSG_STAT_ANY": format_msqid_ds, "IPC_INFO": format_msginfo,
        "MSG_INFO": format_msginfo})
    ipc_set = next(v for v, n in T.SHMCTL_CMDS.items() if n == "IPC_SET")
    return {
        "shmctlarg": _k_ctl(shm, 1, ipc_64, ipc_set, lambda b: format_ipc_set(b, "shm")),
        "semctlarg": _k_ctl(sem, 2, ipc_64, ipc_set, lambda b: format_ipc_set(b, "sem")),
        "msgctlarg": _k_ctl(msg, 1, ipc_64, ipc_set,
                            lambda b: format_ipc_set(b, "msg", qbytes=True)),
        "sembufs": _k_sembufs(sem_flags),
        "msgbuf_in": _k_msgbuf(at_exit=False), "msgbuf_out": _k_msgbuf(at_exit=True),
        "mqattr_in": decoded_in(lambda b: format_mq_attr(b, mq_flags)),
        "mqattr_open": decoded_in(lambda b: format_mq_attr(b, None)),
        "mqattr_out": decoded_out(lambda b: format_mq_attr(b, mq_flags)),
    }
