"""The seccomp user-notification ioctls (include/uapi/linux/seccomp.h) as strace 6.1
prints them, on the listener fd a filter returned (SECCOMP_FILTER_FLAG_NEW_LISTENER).

What strace prints (checked against strace 6.1 on the same calls):

- SECCOMP_IOCTL_NOTIF_RECV: the struct seccomp_notif the call wrote (a struct not all
  zero at entry, which the kernel refuses, first as it was, then `` => ``),
  ``{id=0x5d7e..., pid=1234, flags=0, data={nr=__NR_getppid, arch=AUDIT_ARCH_X86_64,
  instruction_pointer=0x7f..., args=[0, 0x1, ...]}}`` (the syscall number named in the
  table of ``arch``; every argument in hex), the address when the call failed.
- SECCOMP_IOCTL_NOTIF_SEND: the struct seccomp_notif_resp it reads, ``{id=0x5d7e...,
  val=42, error=-EACCES, flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE}`` (``error`` a negated
  errno by name, any other value in decimal).
- SECCOMP_IOCTL_NOTIF_ID_VALID: the cookie it reads, ``[0x5d7e...]``.
- SECCOMP_IOCTL_NOTIF_ADDFD: the struct seccomp_notif_addfd it reads, ``{id=0x5d7e...,
  flags=SECCOMP_ADDFD_FLAG_SETFD, srcfd=3, newfd=4, newfd_flags=O_CLOEXEC}`` (``srcfd``
  is the caller's fd, decorated under -y; ``newfd`` is a number in the target's table).
- the address of a struct that could not be read whole.
"""

from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING

from tracekit._events import CAPF_TRUNC, Syscall
from tracekit.decode import flags as F, xstyle
from tracekit.decode.captures import KindFn, capture, capture_out, entry_exit
from tracekit.decode.values import hex0, neg_errno, pointer, xval
from tracekit.kernel.syscalls import audit_syscall_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["SECCOMP_DECODERS", "UNLISTED_REQUESTS", "format_notif", "format_notif_resp",
           "syscall_nr_text"]

NOTIF = struct.Struct("<QIIiIQ6Q")      # struct seccomp_notif: id, pid, flags, then data
RESP = struct.Struct("<QqiI")           # struct seccomp_notif_resp: id, val, error, flags
ADDFD = struct.Struct("<QIiiI")         # struct seccomp_notif_addfd: id, flags, srcfd,
#                                         newfd, newfd_flags


@functools.cache
def _flag_words(fl: F.ArchFlags) -> tuple[F.FlagSet, F.FlagSet]:
    """struct seccomp_notif_resp's and struct seccomp_notif_addfd's flag words."""
    T = fl.tables
    return (F.FlagSet(T.SECCOMP_USER_NOTIF_FLAGS, unknown="SECCOMP_USER_NOTIF_FLAG_???"),
            F.FlagSet(T.SECCOMP_ADDFD_FLAGS, unknown="SECCOMP_ADDFD_FLAG_???"))


def syscall_nr_text(audit_arch: str | None, nr: int) -> str:
    """``__NR_getppid``: a syscall number in the table of an AUDIT_ARCH_* (struct
    seccomp_data's arch), else unsigned decimal (``nr`` as the caller's type gives it:
    seccomp_data's int reads as its u32); ``-X raw`` the number, ``-X verbose`` the number
    and the name as a comment (print_fields.h PRINT_FIELD_SYSCALL_NAME)."""
    name = audit_syscall_name(audit_arch, nr)
    number = str(nr & 0xFFFFFFFFFFFFFFFF)
    return number if name is None else xstyle.named(number, f"__NR_{name}")


def format_notif(data: bytes, fl: F.ArchFlags) -> str | None:
    """struct seccomp_notif (80 bytes) as NOTIF_RECV wrote it; None when shorter."""
    if len(data) < NOTIF.size:
        return None
    cookie, pid, flags, nr, arch, ip, *args = NOTIF.unpack_from(data)
    nr &= 0xFFFFFFFF
    audit = fl.tables.AUDIT_ARCHES.get(arch)
    return (f"{{id={hex0(cookie)}, pid={pid}, flags={hex0(flags)}, "
            f"data={{nr={syscall_nr_text(audit, nr)}, "
            f"arch={xval(fl.tables.AUDIT_ARCHES, arch, 'AUDIT_ARCH_???')}, "
            f"instruction_pointer={pointer(ip)}, args=[{', '.join(map(hex0, args))}]}}}}")


def format_notif_resp(data: bytes, fl: F.ArchFlags) -> str | None:
    """struct seccomp_notif_resp (24 bytes) as NOTIF_SEND reads it; None when shorter."""
    if len(data) < RESP.size:
        return None
    cookie, val, error, flags = RESP.unpack_from(data)
    return (f"{{id={hex0(cookie)}, val={val}, error={neg_errno(error)}, "
            f"flags={_flag_words(fl)[0](flags)}}}")


def _recv(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """NOTIF_RECV's struct: what the call wrote; a struct not zeroed at entry (the
    kernel refuses it: EINVAL) first as it was, then `` => ``; the address for what
    could not be read or was not written."""
    entry, _ = entry_exit(ev, i)
    if entry is None or entry.flags & CAPF_TRUNC or len(entry.data) < NOTIF.size:
        return pointer(ev.args[i])
    cap = capture_out(ev, i, whole=True)
    wrote = None if cap is None or cap is entry else format_notif(cap.data, d.flags)
    out = pointer(ev.args[i]) if wrote is None else wrote
    if entry.data.count(0) == len(entry.data):
        return out
    return f"{format_notif(entry.data, d.flags)} => {out}"


def _send(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i, whole=True)
    text = None if cap is None else format_notif_resp(cap.data, d.flags)
    return pointer(ev.args[i]) if text is None else text


def _id_valid(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i, whole=True)
    if cap is None or len(cap.data) < 8:
        return pointer(ev.args[i])
    return f"[{hex0(int.from_bytes(cap.data[:8], 'little'))}]"


def _addfd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i, whole=True)
    if cap is None or len(cap.data) < ADDFD.size:
        return pointer(ev.args[i])
    cookie, flags, srcfd, newfd, newfd_flags = ADDFD.unpack_from(cap.data)
    return (f"{{id={hex0(cookie)}, flags={_flag_words(d.flags)[1](flags)}, "
            f"srcfd={d.fd_text(ev.tgid, srcfd)}, newfd={newfd}, "
            f"newfd_flags={d.flags.pipe_flags(newfd_flags)}}}")


#: requests strace 6.1 names that the installed kernel headers do not define: value ->
#: name. SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR is _IOR('!', 2, __u64), the direction
#: the first kernels gave NOTIF_ID_VALID by mistake; kernel/seccomp.c still accepts it
#: (the same encoding on x86_64 and arm64).
UNLISTED_REQUESTS: dict[int, str] = {0x80082102: "SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR"}

#: request name -> ((bytes captured, read at entry, read at exit), decoder of ioctl's
#: argument)
SECCOMP_DECODERS: dict[str, tuple[tuple[int, bool, bool] | None, KindFn]] = {
    "SECCOMP_IOCTL_NOTIF_RECV": ((NOTIF.size, True, True), _recv),
    "SECCOMP_IOCTL_NOTIF_SEND": ((RESP.size, True, False), _send),
    "SECCOMP_IOCTL_NOTIF_ID_VALID": ((8, True, False), _id_valid),
    "SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR": ((8, True, False), _id_valid),
    "SECCOMP_IOCTL_NOTIF_ADDFD": ((ADDFD.size, True, False), _addfd),
}
