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
old_timespec32     8      tv_sec s32, tv_nsec s32
old_timeval32      8      tv_sec s32, tv_usec s32
compat_rlimit      8      rlim_cur, rlim_max u32 (0xffffffff: RLIM_INFINITY)
compat_tms         16     four s32 clock_t
=================  =====  ==========================================================

Each ``format_*`` takes the captured bytes and returns the text, or None when they are
too short (the caller then prints the address).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, decoded_in, decoded_out
from tracekit.decode.structs_fs import format_stat, format_stat_verbose, format_tms
from tracekit.decode.structs_proc import format_timeval
from tracekit.decode.values import format_timespec

if TYPE_CHECKING:
    from tracekit._events import Syscall
    from tracekit.decode.args import SyscallDecoder

__all__ = [
    "KINDS32_SIZES",
    "STAT64_SIZE",
    "compat_kinds",
    "format_rlimit32",
    "format_stat64",
    "stat64_to_native",
    "widen_pair32",
]

STAT64_SIZE = 96
_STAT64 = struct.Struct("<Q4xIIIIIQ4xqIQIIIIIIQ")
_NATIVE_STAT = struct.Struct("<QQQIII4xQqqqqQqQqQ24x")   # x86_64 struct stat, 144 bytes
_RLIM32_INF = 0xFFFFFFFF


def stat64_to_native(data: bytes) -> bytes | None:
    """An i386 ``struct stat64`` (96 bytes) as an x86_64 ``struct stat`` (144 bytes);
    None if ``data`` is short."""
    if len(data) < STAT64_SIZE:
        return None
    (dev, _ino32, mode, nlink, uid, gid, rdev, size, blksize, blocks,
     at, atn, mt, mtn, ct, ctn, ino) = _STAT64.unpack_from(data)
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


def _timespec32(data: bytes) -> str | None:
    wide = widen_pair32(data)
    return None if wide is None else format_timespec(wide)


def _timeval32(data: bytes) -> str | None:
    wide = widen_pair32(data)
    return None if wide is None else format_timeval(wide)


#: kind -> (bytes read, read at exit): what the i386 decoders of :func:`compat_kinds`
#: need captured (tracekit.session.capture's ``beauty32`` specs)
KINDS32_SIZES: dict[str, tuple[int, bool]] = {
    "stat64": (STAT64_SIZE, True), "timespec": (8, False), "timespec_out": (8, True),
    "timeval_out": (8, True), "rlim_out": (8, True), "tms": (16, True),
}


def compat_kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """Argument kind (tracekit.decode.argspec) -> decoder of an i386 call, for the kinds
    whose struct has another layout there (``fl``: the native flags)."""
    short = decoded_out(lambda b: format_stat64(b, fl), whole=True)
    full = decoded_out(lambda b: format_stat64(b, fl, verbose=True), whole=True)

    def stat64(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return (full if d.verbose else short)(d, ev, i)

    return {
        "stat64": stat64, "timespec": decoded_in(_timespec32),
        "timespec_out": decoded_out(_timespec32), "timeval_out": decoded_out(_timeval32),
        "rlim_out": decoded_out(format_rlimit32, whole=True),
        "tms": decoded_out(_tms32, whole=True),
    }
