"""i386 layouts (32-bit calls of an x86_64 process: ``int $0x80``) of the structs whose
layout differs from the native one, widened to the native layout so that the native
formatters print them as strace prints the i386 ones.

=================  =====  ==========================================================
struct             bytes  i386 layout (little-endian)
=================  =====  ==========================================================
stat64             96     dev u64, pad 4, __ino u32, mode, nlink, uid, gid u32, rdev
                          u64, pad 4, size s64, blksize u32, blocks u64 (4-aligned),
                          atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec u32,
                          ino u64
compat_stat        64     dev, ino u32, mode, nlink, uid, gid u16, rdev, size, blksize,
                          blocks, atime, atime_nsec ... ctime_nsec u32, 2 unused
                          (stat, lstat, fstat)
old_timespec32     8      tv_sec s32, tv_nsec s32
old_timeval32      8      tv_sec s32, tv_usec s32
compat_rlimit      8      rlim_cur, rlim_max u32 (0xffffffff: RLIM_INFINITY)
compat_tms         16     four s32 clock_t
compat_sigaction   20     sa_handler, sa_flags, sa_restorer u32, sa_mask (8 bytes)
compat_stack_t     12     ss_sp u32, ss_flags s32, ss_size u32
compat_rusage      72     ru_utime, ru_stime (old_timeval32), 14 s32
compat_siginfo     128    signo, errno, code s32, then the union at 12 (SIGCHLD's:
                          pid, uid, status s32, utime, stime s32)
compat_statfs      64     f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree
                          u32, f_fsid (2 s32), f_namelen, f_frsize, f_flags u32, spare
compat_statfs64    84     f_type, f_bsize u32, f_blocks ... f_ffree u64 (4-aligned),
                          f_fsid (2 s32), f_namelen, f_frsize, f_flags u32, spare
compat_sysinfo     64     uptime s32, loads[3], totalram ... freeswap u32, procs u16,
                          pad u16, totalhigh, freehigh, mem_unit u32, 8 bytes
=================  =====  ==========================================================

Each ``format_*`` takes the captured bytes and returns the text, or None when they are
too short (the caller then prints the address).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, abbreviated, capture_out, decoded_in, decoded_out
from tracekit.decode.structs_fs import (
    format_stat,
    format_stat_verbose,
    format_statfs,
    format_sysinfo,
    format_tms,
)
from tracekit.decode.structs_proc import (
    format_rusage,
    format_rusage_verbose,
    format_sigaction,
    format_siginfo,
    format_stack_t,
    format_timeval,
)
from tracekit.decode.values import format_timespec, pointer

if TYPE_CHECKING:
    from tracekit._events import Syscall
    from tracekit.decode.args import SyscallDecoder

__all__ = [
    "KINDS32_SIZES",
    "STAT64_SIZE",
    "compat_kinds",
    "format_rlimit32",
    "format_stat64",
    "format_timespec32",
    "format_timeval32",
    "rusage_to_native",
    "sigaction_to_native",
    "siginfo_to_native",
    "stack_to_native",
    "stat32_to_native",
    "stat64_to_native",
    "statfs64_to_native",
    "statfs_to_native",
    "sysinfo_to_native",
    "widen_pair32",
]

STAT64_SIZE = 96
_STAT64 = struct.Struct("<Q4xIIIIIQ4xqIQIIIIIIQ")
_NATIVE_STAT = struct.Struct("<QQQIII4xQqqqqQqQqQ24x")   # x86_64 struct stat, 144 bytes
_RLIM32_INF = 0xFFFFFFFF
_SYSINFO32 = struct.Struct("<i3I6IH2xIII")         # to mem_unit (56 of 64 bytes)


def stat64_to_native(data: bytes) -> bytes | None:
    """An i386 ``struct stat64`` (96 bytes) as an x86_64 ``struct stat`` (144 bytes);
    None if ``data`` is short."""
    if len(data) < STAT64_SIZE:
        return None
    (dev, _ino32, mode, nlink, uid, gid, rdev, size, blksize, blocks,
     at, atn, mt, mtn, ct, ctn, ino) = _STAT64.unpack_from(data)
    return _NATIVE_STAT.pack(dev, ino, nlink, mode, uid, gid, rdev, size, blksize, blocks,
                             at, atn, mt, mtn, ct, ctn)


_STAT32 = struct.Struct("<IIHHHHIIIIIIIIII")       # to ctime_nsec (56 of 64 bytes)


def stat32_to_native(data: bytes) -> bytes | None:
    """An i386 ``struct stat`` (compat_stat, 64 bytes) as an x86_64 ``struct stat``;
    None if short."""
    if len(data) < _STAT32.size:
        return None
    (dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks,
     at, atn, mt, mtn, ct, ctn) = _STAT32.unpack_from(data)
    return _NATIVE_STAT.pack(dev, ino, nlink, mode, uid, gid, rdev, size, blksize, blocks,
                             at, atn, mt, mtn, ct, ctn)


def format_stat64(data: bytes, fl: F.ArchFlags, *, verbose: bool = False) -> str | None:
    """An i386 ``struct stat64`` as strace prints it: ``{st_mode=S_IFREG|0600,
    st_size=13, ...}`` (every field when ``verbose``); ``fl``: x86_64's flags."""
    native = stat64_to_native(data)
    if native is None:
        return None
    return format_stat_verbose(native, fl) if verbose else format_stat(native, fl)


def widen_pair32(data: bytes) -> bytes | None:
    """Two i386 longs (s32 seconds, then s32 nanoseconds or microseconds) as the two
    s64 of the native timespec/timeval; None if short."""
    if len(data) < 8:
        return None
    a, b = struct.unpack_from("<ii", data)
    return struct.pack("<qq", a, b)


def _rlim32(v: int) -> str:
    if v == _RLIM32_INF:
        return "RLIM_INFINITY"
    if v > 1024 and v % 1024 == 0:
        return f"{v // 1024}*1024"
    return str(v)


def format_rlimit32(data: bytes) -> str | None:
    """A ``compat_rlimit`` (two u32): ``{rlim_cur=8192*1024, rlim_max=RLIM_INFINITY}``."""
    if len(data) < 8:
        return None
    cur, mx = struct.unpack_from("<II", data)
    return f"{{rlim_cur={_rlim32(cur)}, rlim_max={_rlim32(mx)}}}"


def _tms32(data: bytes) -> str | None:
    if len(data) < 16:
        return None
    return format_tms(struct.pack("<4q", *struct.unpack_from("<4i", data)))


def format_timespec32(data: bytes) -> str | None:
    """An ``old_timespec32`` (two s32): ``{tv_sec=1, tv_nsec=0}``; None if short."""
    wide = widen_pair32(data)
    return None if wide is None else format_timespec(wide)


_timespec32 = format_timespec32


def format_timeval32(data: bytes) -> str | None:
    """An ``old_timeval32`` (two s32): ``{tv_sec=0, tv_usec=1000}``; None if short."""
    wide = widen_pair32(data)
    return None if wide is None else format_timeval(wide)


def sigaction_to_native(data: bytes) -> bytes | None:
    """A compat ``struct sigaction`` (20 bytes) as x86_64's (32); None if short."""
    if len(data) < 20:
        return None
    handler, flags, restorer = struct.unpack_from("<III", data)
    return struct.pack("<QQQ", handler, flags, restorer) + data[12:20]


def stack_to_native(data: bytes) -> bytes | None:
    """A compat ``stack_t`` (12 bytes) as x86_64's (24); None if short."""
    if len(data) < 12:
        return None
    sp, flags, size = struct.unpack_from("<IiI", data)
    return struct.pack("<Qi4xQ", sp, flags, size)


def rusage_to_native(data: bytes) -> bytes | None:
    """A compat ``struct rusage`` (72 bytes) as x86_64's (144); None if short."""
    if len(data) < 72:
        return None
    return struct.pack("<18q", *struct.unpack_from("<18i", data))


def siginfo_to_native(data: bytes) -> bytes | None:
    """A compat ``siginfo_t`` (128 bytes) as x86_64's: the three ints, then the union
    moved from offset 12 to 16 with SIGCHLD's clock_t times widened; None if short."""
    if len(data) < 32:
        return None
    utime, stime = struct.unpack_from("<ii", data, 24)
    out = data[:12] + bytes(4) + data[12:24] + bytes(4) + struct.pack("<qq", utime, stime)
    return out + bytes(128 - len(out))


def sysinfo_to_native(data: bytes) -> bytes | None:
    """A compat ``struct sysinfo`` (64 bytes) as x86_64's (112); None if short."""
    if len(data) < _SYSINFO32.size:
        return None
    v = _SYSINFO32.unpack_from(data)
    return struct.pack("<q3Q6QH6xQQI4x", *v)


_STATFS32 = struct.Struct("<7I2i3I")                # to f_flags (44 of 64 bytes)
_STATFS64_32 = struct.Struct("<II5Q2i3I")            # to f_flags (68 of 84 bytes)
_NATIVE_STATFS = struct.Struct("<qq5Q2iqqq32x")     # x86_64 struct statfs, 120 bytes


def statfs_to_native(data: bytes) -> bytes | None:
    """A compat ``struct statfs`` (64 bytes) as x86_64's (120); None if short."""
    if len(data) < _STATFS32.size:
        return None
    return _NATIVE_STATFS.pack(*_STATFS32.unpack_from(data))


def statfs64_to_native(data: bytes) -> bytes | None:
    """A compat ``struct statfs64`` (84 bytes, statfs64/fstatfs64) as x86_64's struct
    statfs (120); None if short."""
    if len(data) < _STATFS64_32.size:
        return None
    return _NATIVE_STATFS.pack(*_STATFS64_32.unpack_from(data))


def _widened(conv: Callable[[bytes], bytes | None],
             fmt: Callable[..., str | None]) -> Callable[..., str | None]:
    """``fmt`` of the native struct ``conv`` makes of the i386 one (its other arguments
    passed on)."""
    def f(data: bytes, *more: int) -> str | None:
        native = conv(data)
        return None if native is None else fmt(native, *more)
    return f


def _k_rusagew(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """wait4's compat rusage: decoded only when a child was reaped (ret > 0)."""
    cap = capture_out(ev, i) if ev.ret > 0 else None
    fmt = format_rusage_verbose if d.full else format_rusage
    text = None if cap is None else _widened(rusage_to_native, fmt)(cap.data)
    return pointer(ev.args[i]) if text is None else text


#: kind -> (bytes read, read at exit): what the i386 decoders of :func:`compat_kinds`
#: need captured (tracekit.session.capture's ``beauty32`` specs)
KINDS32_SIZES: dict[str, tuple[int, bool]] = {
    "stat64": (STAT64_SIZE, True), "stat": (64, True), "timespec": (8, False),
    "timespec_out": (8, True),
    "timeval_out": (8, True), "rlim_out": (8, True), "tms": (16, True),
    "sigaction_in": (20, False), "sigaction_out": (20, True), "stack_in": (12, False),
    "stack_out": (12, True), "wstatus": (4, True), "rusagew": (72, True),
    "rusage": (72, True), "siginfo_out": (128, True), "sysinfo": (64, True),
    "timet_out": (4, True), "mmaparg32": (24, False), "statfs": (64, True), "statfs64": (84, True),
}


def compat_kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """Argument kind (tracekit.decode.argspec) -> decoder of an i386 call, for the kinds
    whose struct has another layout there (``fl``: the native flags)."""
    short = decoded_out(lambda b: format_stat64(b, fl), whole=True)
    full = decoded_out(lambda b: format_stat64(b, fl, verbose=True), whole=True)

    def stat64(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return (full if d.full else short)(d, ev, i)

    short32 = decoded_out(_widened(stat32_to_native, lambda b: format_stat(b, fl)),
                          whole=True)
    full32 = decoded_out(_widened(stat32_to_native, lambda b: format_stat_verbose(b, fl)),
                         whole=True)

    def stat32(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return (full32 if d.full else short32)(d, ev, i)

    return {
        "stat64": stat64, "stat": stat32, "timespec": decoded_in(_timespec32),
        "timespec_out": decoded_out(_timespec32), "timeval_out": decoded_out(format_timeval32),
        "rlim_out": decoded_out(format_rlimit32, whole=True),
        "tms": decoded_out(_tms32, whole=True),
        "sigaction_in": decoded_in(_widened(sigaction_to_native,
                                            lambda b: format_sigaction(b, fl))),
        "sigaction_out": decoded_out(_widened(sigaction_to_native,
                                              lambda b: format_sigaction(b, fl))),
        "stack_in": decoded_in(_widened(stack_to_native, lambda b: format_stack_t(b, fl))),
        "stack_out": decoded_out(_widened(stack_to_native, lambda b: format_stack_t(b, fl))),
        "rusagew": _k_rusagew,
        "rusage": abbreviated(decoded_out(_widened(rusage_to_native, format_rusage)),
                              decoded_out(_widened(rusage_to_native, format_rusage_verbose))),
        "siginfo_out": decoded_out(_widened(siginfo_to_native,
                                            lambda b: format_siginfo(b, fl))),
        "sysinfo": decoded_out(_widened(sysinfo_to_native, format_sysinfo), whole=True,
                               elements=True),
        "statfs": decoded_out(_widened(statfs_to_native,
                                       lambda b, n: format_statfs(b, fl, n)),
                              whole=True, elements=True),
        "statfs64": decoded_out(_widened(statfs64_to_native,
                                         lambda b, n: format_statfs(b, fl, n)),
                                whole=True, elements=True),
    }
