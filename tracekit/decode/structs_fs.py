"""File-system and system-information structs as strace 6.1 prints them by default.

Slice "fs" of issue 12: the stat family, statx, statfs, getdents64's entry count,
execve's envp count, rlimits, uname, sysinfo, times, getrusage, pipe fds and getcwd.
Each ``format_*`` takes the bytes the BPF program captured (``Capture.data``; specs in
tracekit/session/capture.py ``OVERRIDES``) and returns strace's text, or None when the
bytes are too short to be that struct (the caller then prints the address, as strace
does for memory it cannot read). Layouts are those of 64-bit x86_64 and arm64 (both
little-endian); where they differ the arch picks the layout.

What strace prints without ``-v`` (checked against strace 6.1 on Linux 6.18):

- ``stat``: ``{st_mode=S_IFREG|0644, st_size=36151, ...}``; a character or block device
  shows ``st_rdev=makedev(0x1, 0x3)`` instead of ``st_size``.
- ``statx``: ``{stx_mask=STATX_ALL|STATX_MNT_ID, stx_attributes=0,
  stx_mode=S_IFREG|0644, stx_size=1221, ...}``.
- ``statfs``: every field (strace does not abbreviate it).
- a file handle (name_to_handle_at, open_by_handle_at): ``{handle_bytes=128 => 8,
  handle_type=1, f_handle="\\x33\\x03..."}``, f_handle every byte in hex whatever ``-s``
  says (at most MAX_HANDLE_SZ, 128, then ``...``).
- landlock: a path-beneath rule ``{allowed_access=LANDLOCK_ACCESS_FS_EXECUTE,
  parent_fd=3}`` and a ruleset's ``{handled_access_fs=...}`` (``, ...}`` when its size
  says there is more).

With ``-v`` (:attr:`SyscallDecoder.verbose <tracekit.decode.args.SyscallDecoder>`), a
``stat`` prints every field: ``{st_dev=makedev(0xfe, 0), st_ino=465,
st_mode=S_IFREG|0644, st_nlink=1, st_uid=0, st_gid=0, st_blksize=4096, st_blocks=72,
st_size=36555, st_atime=1796457578 /* 2026-12-05T07:59:38.868767076+0000 */,
st_atime_nsec=868767076, ...}`` (``st_rdev`` in place of ``st_size`` for a device; the
times in this machine's local time, the nanoseconds left out of the comment when 0).
- a failed call (or one whose struct was not captured) shows the address.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_COUNT,
    CAP_ENVP,
    CAPF_DEREF,
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_COMPAT,
    SC_NORETURN,
    SC_UNFINISHED,
    Syscall,
)
from tracekit.decode import flags as F, xstyle
from tracekit.decode.captures import (
    KindFn,
    abbreviated,
    capture,
    capture_out,
    decoded_in,
    decoded_out,
    elements_shown,
    succeeded,
)
from tracekit.decode.structs_proc import (
    RUSAGE_SIZE as RUSAGE_SIZE,
    TIMEVAL_SIZE,
    format_rusage as format_rusage,
    format_timeval,
)
from tracekit.decode.values import (
    envp_comment,
    format_argv,
    format_envp,
    format_timespec,
    hex0,
    pointer,
    quote,
    xval,
)

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = [
    "format_pipefds", "format_rlimit", "format_stat", "format_stat_verbose", "format_statfs",
    "format_statx", "format_statx_verbose", "format_utsname_verbose",
    "format_sysinfo", "format_tms", "format_rusage", "format_utimbuf", "format_utimens",
    "format_utimes",
    "format_utsname",
    "count_dirents", "count_envp", "kinds", "makedev", "time_comment",
]

_S_IFMT, _S_IFCHR, _S_IFBLK = 0o170000, 0o020000, 0o060000

# struct stat, arch/x86/include/uapi/asm/stat.h (x86_64, 144 bytes):
#   0 st_dev u64 | 8 st_ino u64 | 16 st_nlink u64 | 24 st_mode u32 | 28 st_uid u32
#   32 st_gid u32 | 36 pad | 40 st_rdev u64 | 48 st_size s64 | 56 st_blksize s64
#   64 st_blocks s64 | 72.. st_atime, st_mtime, st_ctime (sec, nsec) | 120 unused[3]
# struct stat, include/uapi/asm-generic/stat.h (arm64, 128 bytes):
#   0 st_dev u64 | 8 st_ino u64 | 16 st_mode u32 | 20 st_nlink u32 | 24 st_uid u32
#   28 st_gid u32 | 32 st_rdev u64 | 40 pad | 48 st_size s64 | 56 st_blksize s32
#   60 pad | 64 st_blocks s64 | 72.. times | 120 unused[2]
# arch -> (size, offset of st_mode, offset of st_rdev, offset of st_size)
STAT_LAYOUT: dict[str, tuple[int, int, int, int]] = {
    "x86_64": (144, 24, 40, 48),
    "arm64": (128, 16, 32, 48),
}


def makedev(dev: int) -> str:
    """A dev_t as strace's ``makedev(%#x, %#x)`` (glibc's major()/minor() split)."""
    major = (dev >> 8) & 0xFFF | (dev >> 32) & ~0xFFF
    minor = dev & 0xFF | (dev >> 12) & ~0xFF
    # -X raw: 0x103; verbose: 0x103 /* makedev(0x1, 0x3) */
    return F.styled_word(dev, f"makedev({hex0(major)}, {hex0(minor)})")


def format_stat(data: bytes, fl: F.ArchFlags) -> str | None:
    """A struct stat of ``fl.arch``'s layout (see ``STAT_LAYOUT``), abbreviated."""
    layout = STAT_LAYOUT.get(fl.arch)
    if layout is None or len(data) < layout[0]:
        return None
    _, o_mode, o_rdev, o_size = layout
    (mode,) = struct.unpack_from("<I", data, o_mode)
    if mode & _S_IFMT in (_S_IFCHR, _S_IFBLK):
        (rdev,) = struct.unpack_from("<Q", data, o_rdev)
        second = f"st_rdev={makedev(rdev)}"
    else:
        (size,) = struct.unpack_from("<q", data, o_size)
        second = f"st_size={size}"
    return f"{{st_mode={fl.file_mode(mode)}, {second}, ...}}"


# arch -> the other fields of struct stat: (offset of st_nlink, its format, of st_uid,
# of st_blksize, its format)
_STAT_MORE: dict[str, tuple[int, str, int, int, str]] = {
    "x86_64": (16, "<Q", 28, 56, "<q"),
    "arm64": (20, "<I", 24, 56, "<i"),
}


def time_comment(sec: int, part: int, width: int = 9) -> str:
    """strace 6.1's comment after a time (sprinttime_ex, src/util.c):
    ``/* 2026-04-27T20:14:33.000000006+0000 */`` in local time, ``part`` (the unsigned
    nanoseconds, or microseconds with ``width`` 6) as ``.%0{width}d`` when not 0.

    None (``""``) for a time of 0 (sec and part), a ``part`` past ``10**width - 1`` or a
    time localtime() cannot break down. The text is glibc's ``strftime("%FT%T%z")``,
    made here from the fields (Python's strftime refuses years past a C int): the year
    unpadded (``68-09-03``), and ``tm_year + 1900`` wraps as a C int does in glibc
    (``-2147481749-12-31`` for the last second localtime() takes).
    """
    if (sec == 0 and part == 0) or part >= 10 ** width:
        return ""
    try:
        tm = time.localtime(sec)
    except (OverflowError, OSError, ValueError):
        return ""
    year = (tm.tm_year + 2**31) % 2**32 - 2**31
    off = tm.tm_gmtoff or 0
    minutes = abs(off) // 60
    zone = f"{'-' if off < 0 else '+'}{minutes // 60:02d}{minutes % 60:02d}"
    frac = f".{part:0{width}d}" if part else ""
    return (f" /* {year}-{tm.tm_mon:02d}-{tm.tm_mday:02d}T{tm.tm_hour:02d}:{tm.tm_min:02d}:"
            f"{tm.tm_sec:02d}{frac}{zone} */")


# include/uapi/linux/stat.h: a tv_nsec of utimensat's times that is not a time
UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2


def format_utimens(data: bytes) -> str | None:
    """utimensat's ``struct timespec times[2]`` as strace 6.1 prints it:
    ``[UTIME_NOW, UTIME_OMIT]`` for those tv_nsec values, else
    ``{tv_sec=5, tv_nsec=6} /* 1970-01-01T00:00:05.000000006+0000 */`` (local time; no
    comment for a tv_nsec out of 0..999999999 or a time of 0: strace's sprinttime_ex)."""
    if len(data) < 32:
        return None
    out = []
    for k in (0, 16):
        sec, nsec = struct.unpack_from("<qQ", data, k)     # tv_nsec unsigned, as strace
        if nsec in (UTIME_NOW, UTIME_OMIT):
            # -X raw: {tv_sec=0, tv_nsec=1073741823}; verbose: that /* UTIME_NOW */
            name = "UTIME_NOW" if nsec == UTIME_NOW else "UTIME_OMIT"
            out.append(xstyle.named(format_timespec(data[k:]) or name, name) if xstyle.STYLE
                       else name)
        else:
            out.append(f"{format_timespec(data[k:])}{time_comment(sec, nsec)}")
    return f"[{out[0]}, {out[1]}]"


def format_utimes(data: bytes) -> str | None:
    """utimes' and futimesat's ``struct timeval times[2]`` as strace 6.1 prints them:
    ``[{tv_sec=5, tv_usec=6} /* 1970-01-01T00:00:05.000006+0000 */, {tv_sec=0,
    tv_usec=0}]`` (tv_usec unsigned; the date as for utimensat's times, in microseconds:
    none for a time of 0 or a tv_usec out of 0..999999)."""
    if len(data) < 2 * TIMEVAL_SIZE:
        return None
    out = []
    for k in (0, TIMEVAL_SIZE):
        sec, usec = struct.unpack_from("<qQ", data, k)
        out.append(f"{format_timeval(data[k:])}{time_comment(sec, usec, 6)}")
    return f"[{out[0]}, {out[1]}]"


UTIMBUF_SIZE = 16       # struct utimbuf: actime, modtime (longs), include/uapi/linux/utime.h


def format_utimbuf(data: bytes) -> str | None:
    """utime's ``struct utimbuf`` as strace 6.1 prints it: ``{actime=1000000000 /*
    2001-09-09T01:46:40+0000 */, modtime=0}`` (seconds, signed; the date as for utimes,
    none for 0)."""
    if len(data) < UTIMBUF_SIZE:
        return None
    actime, modtime = struct.unpack_from("<qq", data)
    return (f"{{actime={actime}{time_comment(actime, 0)}, "
            f"modtime={modtime}{time_comment(modtime, 0)}}}")


def format_stat_verbose(data: bytes, fl: F.ArchFlags) -> str | None:
    """A struct stat with every field, as strace -v prints it (module docstring)."""
    layout = STAT_LAYOUT.get(fl.arch)
    more = _STAT_MORE.get(fl.arch)
    if layout is None or more is None or len(data) < layout[0]:
        return None
    _, o_mode, o_rdev, o_size = layout
    o_nlink, f_nlink, o_uid, o_blksize, f_blksize = more
    dev, ino = struct.unpack_from("<QQ", data, 0)
    (mode,) = struct.unpack_from("<I", data, o_mode)
    (nlink,) = struct.unpack_from(f_nlink, data, o_nlink)
    uid, gid = struct.unpack_from("<II", data, o_uid)
    (blksize,) = struct.unpack_from(f_blksize, data, o_blksize)
    (blocks,) = struct.unpack_from("<q", data, 64)
    if mode & _S_IFMT in (_S_IFCHR, _S_IFBLK):
        (rdev,) = struct.unpack_from("<Q", data, o_rdev)
        size = f"st_rdev={makedev(rdev)}"
    else:
        size = f"st_size={struct.unpack_from('<q', data, o_size)[0]}"
    times = []
    for k, name in enumerate(("st_atime", "st_mtime", "st_ctime")):
        sec, nsec = struct.unpack_from("<qQ", data, 72 + 16 * k)
        times.append(f"{name}={sec}{time_comment(sec, nsec)}, {name}_nsec={nsec}")
    return (f"{{st_dev={makedev(dev)}, st_ino={ino}, st_mode={fl.file_mode(mode)}, "
            f"st_nlink={nlink}, st_uid={uid}, st_gid={gid}, st_blksize={blksize}, "
            f"st_blocks={blocks}, {size}, {', '.join(times)}}}")


def _k_stat(fl: F.ArchFlags) -> KindFn:
    """``stat``: abbreviated, or every field when the decoder is verbose (strace -v)."""
    short = decoded_out(lambda b: format_stat(b, fl), whole=True)
    full = decoded_out(lambda b: format_stat_verbose(b, fl), whole=True)

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return (full if d.full else short)(d, ev, i)
    return k


# struct statx, include/uapi/linux/stat.h (256 bytes, same on every arch):
#   0 stx_mask u32 | 4 stx_blksize u32 | 8 stx_attributes u64 | 16 stx_nlink u32
#   20 stx_uid u32 | 24 stx_gid u32 | 28 stx_mode u16 | 30 pad | 32 stx_ino u64
#   40 stx_size u64 | 48 stx_blocks u64 | 56 stx_attributes_mask u64 | 64.. timestamps
#   128 stx_rdev_major, minor | 136 stx_dev_major, minor | 144 stx_mnt_id u64 | ...
STATX_SIZE = 256
_STATX_HEAD = struct.Struct("<IIQIIIH2xQQ")


def format_statx(data: bytes, fl: F.ArchFlags) -> str | None:
    """A struct statx, abbreviated as strace does (mask, attributes, mode, size)."""
    if len(data) < _STATX_HEAD.size:
        return None
    mask, _blksize, attrs, _nlink, _uid, _gid, mode, _ino, size = _STATX_HEAD.unpack_from(data)
    return (f"{{stx_mask={fl.statx_mask(mask)}, "
            f"stx_attributes={F.FlagSet(fl.tables.STATX_ATTRS)(attrs)}, "
            f"stx_mode={fl.file_mode(mode)}, stx_size={size}, ...}}")


_STATX_MORE = struct.Struct("<Q")            # stx_attributes_mask at 56
_STATX_TIMES = (("stx_atime", 64, 0x20), ("stx_btime", 80, 0x800),   # STATX_ATIME, _BTIME
                ("stx_ctime", 96, 0x80), ("stx_mtime", 112, 0x40))   # STATX_CTIME, _MTIME
_STATX_MNT_ID = 0x1000


def format_statx_verbose(data: bytes, fl: F.ArchFlags) -> str | None:
    """A struct statx with every field, as strace 6.1 -v prints it: the fields in the
    struct's order, a timestamp only when its bit is in stx_mask
    (``stx_atime={tv_sec=1, tv_nsec=2} /* date */``), the device numbers, and stx_mnt_id
    (hex) when STATX_MNT_ID is."""
    if len(data) < 144:
        return None
    mask, blksize, attrs, nlink, uid, gid, mode, ino, size = _STATX_HEAD.unpack_from(data)
    (blocks,) = struct.unpack_from("<Q", data, 48)
    (attrs_mask,) = _STATX_MORE.unpack_from(data, 56)
    attr_set = F.FlagSet(fl.tables.STATX_ATTRS)
    out = [f"stx_mask={fl.statx_mask(mask)}", f"stx_blksize={blksize}",
           f"stx_attributes={attr_set(attrs)}", f"stx_nlink={nlink}", f"stx_uid={uid}",
           f"stx_gid={gid}", f"stx_mode={fl.file_mode(mode)}", f"stx_ino={ino}",
           f"stx_size={size}", f"stx_blocks={blocks}",
           f"stx_attributes_mask={attr_set(attrs_mask)}"]
    for name, at, bit in _STATX_TIMES:
        if mask & bit:
            sec, nsec = struct.unpack_from("<qI", data, at)
            out.append(f"{name}={{tv_sec={sec}, tv_nsec={nsec}}}{time_comment(sec, nsec)}")
    rdev_major, rdev_minor, dev_major, dev_minor = struct.unpack_from("<4I", data, 128)
    out += [f"stx_rdev_major={rdev_major}", f"stx_rdev_minor={rdev_minor}",
            f"stx_dev_major={dev_major}", f"stx_dev_minor={dev_minor}"]
    if mask & _STATX_MNT_ID and len(data) >= 152:
        out.append(f"stx_mnt_id={hex0(struct.unpack_from('<Q', data, 144)[0])}")
    return "{" + ", ".join(out) + "}"


# struct statfs, include/uapi/asm-generic/statfs.h with __statfs_word = long (x86_64 and
# arm64 alike, 120 bytes): f_type, f_bsize, f_blocks, f_bfree, f_bavail, f_files,
# f_ffree (7 x 8 bytes), f_fsid int[2], f_namelen, f_frsize, f_flags (8 bytes each),
# f_spare[4].
STATFS_SIZE = 120
_STATFS = struct.Struct("<qqQQQQQiiqqq")
# ST_* of include/linux/statfs.h (kernel-internal, not uapi: the generator cannot read it;
# the same on every arch), in strace's order: ST_VALID, which the kernel sets in every
# reply, first.
ST_FLAGS: tuple[tuple[int, str], ...] = (
    (0x0020, "ST_VALID"), (0x0001, "ST_RDONLY"), (0x0002, "ST_NOSUID"),
    (0x0004, "ST_NODEV"), (0x0008, "ST_NOEXEC"), (0x0010, "ST_SYNCHRONOUS"),
    (0x0040, "ST_MANDLOCK"), (0x0400, "ST_NOATIME"), (0x0800, "ST_NODIRATIME"),
    (0x1000, "ST_RELATIME"), (0x2000, "ST_NOSYMFOLLOW"),
)
_st_flags = F.FlagSet(ST_FLAGS)


def format_statfs(data: bytes, fl: F.ArchFlags, fsid_shown: int = 2) -> str | None:
    """A struct statfs, every field: ``{f_type=EXT2_SUPER_MAGIC, f_bsize=4096, ...}``;
    ``fsid_shown``: the words of f_fsid's array before ``...`` (strace -s)."""
    if len(data) < _STATFS.size:
        return None
    (ftype, bsize, blocks, bfree, bavail, files, ffree, fsid0, fsid1, namelen, frsize,
     flags) = _STATFS.unpack_from(data)
    ftype &= 0xFFFFFFFFFFFFFFFF
    name = fl.tables.FS_MAGIC.get(ftype)
    magic = hex0(ftype) if name is None else F.styled_word(ftype, name)
    fsid = ", ".join([hex0(v & 0xFFFFFFFF) for v in (fsid0, fsid1)[:fsid_shown]]
                     + ["..."] * (fsid_shown < 2))
    return (f"{{f_type={magic}, f_bsize={bsize}, f_blocks={blocks}, f_bfree={bfree}, "
            f"f_bavail={bavail}, f_files={files}, f_ffree={ffree}, "
            f"f_fsid={{val=[{fsid}]}}, "
            f"f_namelen={namelen}, f_frsize={frsize}, f_flags={_st_flags(flags)}}}")


def count_dirents(data: bytes, ret: int) -> int | None:
    """The entries in ``ret`` bytes of struct linux_dirent64 (include/linux/dirent.h:
    d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name[]), walking ``d_reclen``;
    None when the capture holds fewer than ``ret`` bytes or a record is malformed."""
    if len(data) < ret:
        return None
    n = off = 0
    while off < ret:
        if off + 19 > ret:
            return None
        (reclen,) = struct.unpack_from("<H", data, off + 16)
        if reclen < 19:
            return None
        off += reclen
        n += 1
    return n if off == ret else None


def format_dirents(data: bytes, ret: int, fl: F.ArchFlags) -> str | None:
    """getdents64's ``ret`` bytes of struct linux_dirent64 as strace -v prints them:
    ``[{d_ino=774, d_off=1946..., d_reclen=32, d_type=DT_DIR, d_name="rc2.d"}, ...]``;
    ``...`` after the entries the capture holds whole (a reply longer than it); None
    for a malformed record (strace then prints the address)."""
    out: list[str] = []
    off = 0
    types = fl.tables.DIRENT_TYPES
    while off < ret:
        if off + 19 > len(data):
            out.append("...")
            break
        ino, d_off, reclen, d_type = struct.unpack_from("<QqHB", data, off)
        if reclen < 19 or off + reclen > ret:
            return None
        if off + reclen > len(data):
            out.append("...")
            break
        name = data[off + 19:off + reclen].split(b"\0", 1)[0]
        t = types.get(d_type)
        out.append(f"{{d_ino={ino}, d_off={d_off}, d_reclen={reclen}, "
                   f"d_type={t if t is not None else f'{hex0(d_type)} /* DT_??? */'}, "
                   f"d_name={quote(name)}}}")
        off += reclen
    return "[" + ", ".join(out) + "]"


def count_envp(data: bytes) -> int | None:
    """The pointers before the NULL of a captured ``char *const envp[]`` (8 bytes each);
    None when no NULL is within ``data``."""
    for i in range(0, len(data) - 7, 8):
        if not any(data[i:i + 8]):
            return i // 8
    return None


_RLIM_INF = (1 << 64) - 1


def _rlim(v: int) -> str:
    """One limit as strace's print_rlim64_t: ``RLIM64_INFINITY``, ``8192*1024``, ``20000``."""
    if v == _RLIM_INF:
        return xstyle.named(str(v), "RLIM64_INFINITY")
    if v > 1024 and v % 1024 == 0:      # -X raw: 8388608; verbose: 8388608 /* 8192*1024 */
        return xstyle.named(str(v), f"{v // 1024}*1024")
    return str(v)


def format_rlimit(data: bytes) -> str | None:
    """struct rlimit64 (include/uapi/linux/resource.h; struct rlimit of a 64-bit arch has
    the same two u64): ``{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}``."""
    if len(data) < 16:
        return None
    cur, mx = struct.unpack_from("<QQ", data)
    return f"{{rlim_cur={_rlim(cur)}, rlim_max={_rlim(mx)}}}"


# struct new_utsname, include/uapi/linux/utsname.h: six char[65].
UTSNAME_SIZE = 6 * 65


def format_utsname(data: bytes) -> str | None:
    """``{sysname="Linux", nodename="vm", ...}`` (strace abbreviates after two fields)."""
    if len(data) < 2 * 65:
        return None
    sysname = data[:65].split(b"\0", 1)[0]
    nodename = data[65:130].split(b"\0", 1)[0]
    return f"{{sysname={quote(sysname)}, nodename={quote(nodename)}, ...}}"


_UTS_FIELDS = ("sysname", "nodename", "release", "version", "machine", "domainname")


def format_utsname_verbose(data: bytes) -> str | None:
    """Every field of a struct new_utsname, as strace -v prints it: ``{sysname="Linux",
    ..., domainname="(none)"}`` (each up to its NUL, at most 65 bytes)."""
    if len(data) < UTSNAME_SIZE:
        return None
    fields = [data[65 * k:65 * (k + 1)].split(b"\0", 1)[0] for k in range(6)]
    return "{" + ", ".join(f"{n}={quote(v)}" for n, v in zip(_UTS_FIELDS, fields,
                                                            strict=True)) + "}"


# struct sysinfo, include/uapi/linux/sysinfo.h on a 64-bit arch (112 bytes): uptime s64,
# loads[3] u64, totalram, freeram, sharedram, bufferram, totalswap, freeswap u64,
# procs u16, pad u16 + pad u32, totalhigh, freehigh u64, mem_unit u32, _f[] (0 bytes
# on 64-bit) and padding.
SYSINFO_SIZE = 112
_SYSINFO = struct.Struct("<q3Q6QH6xQQI")


def format_sysinfo(data: bytes, loads_shown: int = 3) -> str | None:
    """A struct sysinfo, every field as strace prints it; ``loads_shown``: how many of
    the 3 loads before ``...`` (strace prints the array as any other: -s of them)."""
    if len(data) < _SYSINFO.size:
        return None
    (up, l1, l2, l3, tram, fram, sram, bram, tswap, fswap, procs, thigh, fhigh,
     unit) = _SYSINFO.unpack_from(data)
    loads = [str(v) for v in (l1, l2, l3)[:loads_shown]] + ["..."] * (loads_shown < 3)
    return (f"{{uptime={up}, loads=[{', '.join(loads)}], totalram={tram}, freeram={fram}, "
            f"sharedram={sram}, bufferram={bram}, totalswap={tswap}, freeswap={fswap}, "
            f"procs={procs}, totalhigh={thigh}, freehigh={fhigh}, mem_unit={unit}}}")


def _ticks(v: int, hz: int = 100) -> str:
    """A clock_t in ticks with strace's ``/* 0.01 s */`` comment (USER_HZ = 100)."""
    if not v:
        return "0"
    return f"{v} /* {v // hz}.{v % hz:02d} s */"


# struct tms, include/uapi/linux/times.h: four __kernel_clock_t (long).
TMS_SIZE = 32


def format_tms(data: bytes) -> str | None:
    """``{tms_utime=1 /* 0.01 s */, tms_stime=0, tms_cutime=0, tms_cstime=0}``."""
    if len(data) < TMS_SIZE:
        return None
    u, s, cu, cs = struct.unpack_from("<qqqq", data)
    return (f"{{tms_utime={_ticks(u)}, tms_stime={_ticks(s)}, tms_cutime={_ticks(cu)}, "
            f"tms_cstime={_ticks(cs)}}}")


def format_pipefds(data: bytes, fd_text: Callable[[int], str] = str, limit: int = 2
                   ) -> str | None:
    """pipe's ``int fildes[2]``: ``[3, 4]``; ``fd_text`` prints an fd (decorated with
    what it refers to when fd paths are on: ``[3<pipe:[123]>, 4<pipe:[123]>]``);
    ``limit``: the fds shown before ``...`` (strace prints them as an array, -s of
    them: ``[3, ...]`` with -s 1)."""
    if len(data) < 8:
        return None
    fds = [fd_text(fd) for fd in struct.unpack_from("<ii", data)[:limit]]
    return "[" + ", ".join(fds + ["..."] * (limit < 2)) + "]"


def k_pipefds(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """pipe/pipe2/socketpair's fds, each printed as an fd."""
    cap = capture_out(ev, i, whole=True)
    text = None if cap is None else format_pipefds(
        cap.data, lambda fd: d.fd_text(ev.tgid, fd), elements_shown(d))
    return pointer(ev.args[i]) if text is None else text


# ---- argument kinds (tracekit.decode.argspec) ------------------------------------------

def k_dirents(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """getdents64's buffer: ``0x55d0... /* 9 entries */``, from the count the BPF program
    walked (CAP_COUNT) or the bytes captured (CAP_BUF); the bare address when the call
    failed or the count is not known whole (a walk cut short, a reply larger than the
    bytes captured). For a call not abbreviated (-v) strace prints the entries
    (:func:`format_dirents`, ``[]`` at the end of the directory), from the reply's
    bytes when they were captured (SessionOptions.dirents), else the count."""
    addr = pointer(ev.args[i])
    if d.full and ev.ret == 0 and ev.args[i]:
        return "[]"
    if d.full and not ev.flags & SC_COMPAT:
        got = capture_out(ev, i)        # the first BUF_MAX bytes of a longer reply too
        if got is not None and got.kind == CAP_BUF and \
                d.call(ev.syscall_nr, False).name == "getdents64":
            text = format_dirents(got.data, ev.ret, d.flags)
            if text is not None:
                return text
    cap = capture_out(ev, i, whole=True)
    if cap is None:
        return addr
    if cap.kind == CAP_COUNT:           # counted in the kernel (any size of reply)
        n: int | None = int.from_bytes(cap.data[:4], "little") if len(cap.data) >= 4 else None
    else:
        n = count_dirents(cap.data, ev.ret)
    return addr if n is None else f"{addr} /* {n} entries */"


def k_envp(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """execve's envp: ``0x7ffd... /* 35 vars */``, from the pointer array captured at
    entry (a readable capture that holds the NULL), else from a walk of the strings
    (CAP_ARGV, CAP_ENVP: ``format_envp``; read by default for a pointer array within
    2048 bytes of the end of its mapping, when neither array read holds the NULL);
    ``NULL`` for NULL (the count the BPF program read at exit from the new image is not
    the caller's).

    A verbose decoder (strace -v) prints the strings of a CAP_ENVP capture read in place
    of the pointer array (no other capture of envp) as strace -v does:
    ``["HOME=/root", "PATH=/usr/bin"]``, each cut at ``string_limit`` like argv's,
    every element (no count limit; ``...`` only after the elements the capture could
    hold); the address when they were unreadable."""
    addr = pointer(ev.args[i])
    if not ev.args[i]:
        return addr
    mine = [c for c in ev.caps if c.arg == i]
    strings = next((c for c in mine if c.kind in (CAP_ARGV, CAP_ENVP)), None)
    arrays = [c for c in mine if c.kind not in (CAP_ARGV, CAP_ENVP)]
    if strings is not None and strings.kind == CAP_ENVP and d.full and not arrays:
        # the strings (read so for strace -v, in place of the pointer array)
        return addr if strings.flags & CAPF_FAULT else format_argv(
            strings, limit=d.string_limit, max_items=None)
    for c in arrays:
        n = None if c.flags & CAPF_FAULT else count_envp(c.data)
        if n is not None:
            return f"{addr} {envp_comment(n)}"
    # the pointer array ran off its mapping: the count of the walk read for it
    return addr if strings is None else format_envp(ev.args[i], strings)


# include/uapi/linux/limits.h: the largest value of an extended attribute; strace prints
# the address of a longer one
XATTR_SIZE_MAX = 65536


def _quote_value(data: bytes, limit: int, more: bool) -> str:
    """An xattr value as strace's printstr_ex with QUOTE_OMIT_TRAILING_0: the string cut
    at ``limit`` bytes (then ``...``); when the last byte shown is a NUL it is left out
    and no ``...`` follows, whatever the length (strace's quoting stops there as at the
    end of a C string)."""
    shown = data[:limit]
    if shown and shown[-1] == 0:
        return quote(shown[:-1])
    return quote(shown, more=more or len(data) > limit)


def k_xattrval_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """The value setxattr/lsetxattr/fsetxattr set, its length the next argument:
    ``"hello"``, ``"\\0\\1\\2a\\377\\n"`` (a trailing NUL left out), ``NULL``; the address
    when unreadable or longer than XATTR_SIZE_MAX."""
    size = ev.args[i + 1]
    cap = capture(ev, i)
    if not ev.args[i] or size > XATTR_SIZE_MAX or cap is None:
        return pointer(ev.args[i])
    data = cap.data[:size]
    return _quote_value(data, d.string_limit, bool(cap.flags & CAPF_TRUNC) and len(data) < size)


def k_xattrval_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """The value getxattr/lgetxattr/fgetxattr wrote, its length the return value (as
    :func:`k_xattrval_in`); the address when the call failed."""
    cap = capture_out(ev, i)
    ret = ev.ret
    if not ev.args[i] or cap is None or ret > XATTR_SIZE_MAX:
        return pointer(ev.args[i])
    data = cap.data[:ret]
    return _quote_value(data, d.string_limit, bool(cap.flags & CAPF_TRUNC) and len(data) < ret)


def k_xattrlist(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """The names listxattr/llistxattr/flistxattr wrote, NUL-separated, the length the
    return value: ``"user.a\\0user.b\\0"``; the address for a size of 0 (the next
    argument) or a failed call."""
    cap = capture_out(ev, i)
    if not ev.args[i + 1] or cap is None:
        return pointer(ev.args[i])
    data = cap.data[:ev.ret]
    return quote(data, limit=d.string_limit,
                 more=bool(cap.flags & CAPF_TRUNC) and len(data) < ev.ret)


# struct open_how (include/uapi/linux/openat2.h): u64 flags, mode, resolve; the size the
# call takes at least (OPEN_HOW_SIZE_VER0), and the page strace reads at most
OPEN_HOW_SIZE, _PAGE = 24, 4096


def _k_open_how(fl: F.ArchFlags) -> KindFn:
    """openat2's ``struct open_how`` (its size the next argument) as strace 6.1 prints it:
    ``{flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_NO_SYMLINKS}``, the mode with O_CREAT,
    __O_TMPFILE or a mode that is not 0, bytes past the struct that are not 0 as
    ``/* bytes 24..31 */ "\\x01..."`` (up to a page, cut at the string limit), or
    ``???`` when they are unreadable (the struct read apart: its first capture); the
    address for a size under 24 or an unreadable struct."""
    T = fl.tables
    opens = {n: v for v, n in T.OPEN_FLAGS}
    with_mode = opens["O_CREAT"] | opens["__O_TMPFILE"]
    resolve = F.FlagSet(T.RESOLVE_FLAGS, unknown="RESOLVE_???")

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        size = ev.args[i + 1]
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF]
        head = caps[0] if caps and not caps[0].flags & CAPF_FAULT else None
        if size < OPEN_HOW_SIZE or head is None or len(head.data) < OPEN_HOW_SIZE:
            return pointer(ev.args[i])
        flags, mode, res = struct.unpack_from("<QQQ", head.data)
        out = [f"flags={fl.open_flags(flags)}"]
        if flags & with_mode or mode:
            out.append(f"mode={_octal(mode)}")
        out.append(f"resolve={resolve(res)}")
        end = min(size, _PAGE)
        cap = capture(ev, i)
        if size > OPEN_HOW_SIZE and (cap is None or len(cap.data) < end):
            out.append("???")
            return "{" + ", ".join(out) + "}"
        tail = cap.data[OPEN_HOW_SIZE:end] if cap is not None else b""
        if tail.strip(b"\0"):
            shown = quote(tail, limit=d.string_limit, force_hex=True)
            out.append(f"/* bytes {OPEN_HOW_SIZE}..{end - 1} */ {shown}")
        return "{" + ", ".join(out) + "}"
    return k


def _octal(v: int) -> str:
    """C's ``%#03llo``: ``0600``, ``000``."""
    return f"0{v:02o}" if v else "000"


def k_strcwd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """getcwd's buffer: the path it wrote (``ret`` bytes with the NUL), whole."""
    cap = capture_out(ev, i)
    if cap is None or ev.ret <= 0 or len(cap.data) < ev.ret:
        return pointer(ev.args[i])
    return quote(cap.data[:ev.ret].split(b"\0", 1)[0])


LANDLOCK_PATH_BENEATH_SIZE = 12    # struct landlock_path_beneath_attr (packed): u64, s32
LANDLOCK_RULESET_HEAD = 8          # struct landlock_ruleset_attr's handled_access_fs


def _landlock_access(fl: F.ArchFlags, v: int) -> str:
    return F.FlagSet(fl.tables.LANDLOCK_ACCESS_FS, unknown="LANDLOCK_ACCESS_FS_???")(v)


def _k_landlock_rule(fl: F.ArchFlags) -> KindFn:
    """landlock_add_rule's rule: a LANDLOCK_RULE_PATH_BENEATH rule as
    ``{allowed_access=LANDLOCK_ACCESS_FS_EXECUTE, parent_fd=3}``; another type's (or an
    unreadable one) as its address."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture(ev, i)
        typ = fl.tables.LANDLOCK_RULES.get(ev.args[i - 1] & 0xFFFFFFFF) if i else None
        if (cap is None or typ != "LANDLOCK_RULE_PATH_BENEATH" or not ev.args[i]
                or len(cap.data) < LANDLOCK_PATH_BENEATH_SIZE):
            return pointer(ev.args[i])
        access, parent = struct.unpack_from("<Qi", cap.data)
        return (f"{{allowed_access={_landlock_access(fl, access)}, "
                f"parent_fd={d.fd_text(ev.tgid, parent)}}}")
    return k


def _k_landlock_ruleset(fl: F.ArchFlags) -> KindFn:
    """landlock_create_ruleset's attr (its size: the next argument): below 8 bytes its
    address; ``{handled_access_fs=...}``, with ``, ...`` when the size is larger."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture(ev, i)
        size = ev.args[i + 1] if i < 5 else 0
        if (cap is None or not ev.args[i] or size < LANDLOCK_RULESET_HEAD
                or len(cap.data) < LANDLOCK_RULESET_HEAD):
            return pointer(ev.args[i])
        (access,) = struct.unpack_from("<Q", cap.data)
        more = ", ..." if size > LANDLOCK_RULESET_HEAD else ""
        return f"{{handled_access_fs={_landlock_access(fl, access)}{more}}}"
    return k


def format_time_t(data: bytes) -> str | None:
    """time(2)'s ``time_t`` the call wrote, of ``len(data)`` bytes (8; an i386 call's:
    4), signed: ``[1796536993 /* 2026-12-06T06:03:13+0000 */]``; None if empty."""
    if len(data) not in (4, 8):
        return None
    sec = int.from_bytes(data, "little", signed=True)
    return f"[{sec}{time_comment(sec, 0)}]"


def _ret_time(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    """time(2)'s return, the seconds and their date: ``1796536993
    (2026-12-06T06:03:13+0000)`` (strace's sprinttime without the comment marks)."""
    comment = time_comment(ev.ret, 0)
    return f"{text} ({comment[4:-3]})" if comment else text


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds of this module: (decoder, record, plain text) -> the text after ``=``."""
    return {"time": _ret_time}


FILE_HANDLE_SIZE = 8 + 128   # struct file_handle: u32 handle_bytes, int handle_type, then
                             # up to MAX_HANDLE_SZ bytes (include/linux/exportfs.h)


def format_file_handle(data: bytes, *, was: int | None = None, whole: bool = True
                       ) -> str | None:
    """struct file_handle from ``data``: ``{handle_bytes=8, handle_type=1,
    f_handle="\\x.."}``; ``was``: the handle_bytes the caller set, shown ``=> N`` when
    the call changed it; not ``whole``: the byte count alone (a call that failed wrote
    no handle). None when ``data`` is too short."""
    if len(data) < 4:
        return None
    n = int.from_bytes(data[:4], "little")
    count = f"handle_bytes={was} => {n}" if was is not None and was != n else \
        f"handle_bytes={n}"
    if not whole:
        return f"{{{count}}}"
    shown = min(n, FILE_HANDLE_SIZE - 8)
    if len(data) < 8 + shown:
        return None
    kind = int.from_bytes(data[4:8], "little", signed=True)
    f_handle = quote(data[8:8 + shown], force_hex=True, more=n > shown)
    return f"{{{count}, handle_type={kind}, f_handle={f_handle}}}"


def _k_file_handle_inout(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """name_to_handle_at's handle: handle_bytes as the caller set it (read at entry),
    then the handle as the call wrote it (read at exit, after a failure too: EOVERFLOW
    writes the size it needs)."""
    caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_FAULT]
    entry = next((c for c in caps if len(c.data) == 4), None)
    out = next((c for c in caps if len(c.data) > 4), None)
    if not ev.args[i] or entry is None:
        return pointer(ev.args[i])
    was = int.from_bytes(entry.data, "little")
    if out is None or ev.flags & (SC_UNFINISHED | SC_NORETURN):
        return f"{{handle_bytes={was}}}"
    text = format_file_handle(out.data, was=was, whole=succeeded(ev))
    return pointer(ev.args[i]) if text is None else text


MOUNT_ATTR_SIZE = 32          # struct mount_attr: u64 attr_set, attr_clr, propagation,
                              # userns_fd (MOUNT_ATTR_SIZE_VER0, include/uapi/linux/mount.h)
MOUNT_ATTR_TAIL_END = 4096    # the bytes past it strace 6.1 shows end there
_PROPAGATION = ("MS_UNBINDABLE", "MS_PRIVATE", "MS_SLAVE", "MS_SHARED")
_MOUNT_ATTR_IDMAP = 0x100000  # include/uapi/linux/mount.h: userns_fd is used (an fd) then


def _k_mount_attr(fl: F.ArchFlags) -> KindFn:
    """mount_setattr's struct mount_attr (size: the next argument), read at entry:
    ``{attr_set=MOUNT_ATTR_RDONLY, attr_clr=0, propagation=MS_PRIVATE, userns_fd=0}``,
    then, past its 32 bytes, ``/* bytes 32..47 */ "\\x00..."`` when any of them is not
    zero (up to byte 4095, ``-s`` of them shown); the address when the size is below
    32 or the memory was not read."""
    bits = F.FlagSet(fl.tables.MOUNT_SETATTR_FLAGS, unknown="MOUNT_ATTR_???")
    names = {v: n for v, n in fl.tables.MOUNT_FLAGS if n in _PROPAGATION}

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i]
        size = ev.args[i + 1] if i < 5 else 0
        cap = capture(ev, i) if v and size >= MOUNT_ATTR_SIZE else None
        if cap is None or len(cap.data) < MOUNT_ATTR_SIZE:
            return pointer(v)
        attr_set, attr_clr, prop, userns = struct.unpack_from("<4Q", cap.data)
        # userns_fd: an fd (-yy decorates it) with MOUNT_ATTR_IDMAP set, else the u64
        idmap = attr_set & _MOUNT_ATTR_IDMAP and userns <= 0x7FFFFFFF
        text = (f"{{attr_set={bits(attr_set)}, attr_clr={bits(attr_clr)}, propagation="
                f"{xval(names, prop, 'MS_???')}, "
                f"userns_fd={d.fd_text(ev.tgid, userns) if idmap else userns}")
        end = min(size, MOUNT_ATTR_TAIL_END)
        tail = cap.data[MOUNT_ATTR_SIZE:end]
        if len(cap.data) < end:
            # fewer bytes read than the size says (a size_t with garbage in its high
            # half: the capture took its low 32 bits): strace could not read them either
            text += ", ???"
        elif end > MOUNT_ATTR_SIZE and any(tail):
            shown = quote(tail, force_hex=True, limit=d.string_limit)
            text += f", /* bytes {MOUNT_ATTR_SIZE}..{end - 1} */ {shown}"
        return text + "}"
    return k


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {
        "stat": _k_stat(fl),
        "statx": abbreviated(decoded_out(lambda b: format_statx(b, fl), whole=True),
                             decoded_out(lambda b: format_statx_verbose(b, fl), whole=True)),
        "statfs": decoded_out(lambda b, n: format_statfs(b, fl, n), whole=True,
                              elements=True),
        "utimens": decoded_in(format_utimens, whole=True),
        "utimbuf": decoded_in(format_utimbuf, whole=True),
        "utimes": decoded_in(format_utimes, whole=True),
        "dirents": k_dirents,
        "envp": k_envp,
        "xattrval_in": k_xattrval_in, "xattrval_out": k_xattrval_out,
        "xattrlist": k_xattrlist, "openhow": _k_open_how(fl),
        "rlim_in": decoded_in(format_rlimit, whole=True),
        "rlim_out": decoded_out(format_rlimit, whole=True),
        "utsname": abbreviated(decoded_out(format_utsname, whole=True),
                               decoded_out(format_utsname_verbose, whole=True)),
        "sysinfo": decoded_out(format_sysinfo, whole=True, elements=True),
        "tms": decoded_out(format_tms, whole=True),
        "timet_out": decoded_out(format_time_t, whole=True),
        "pipefds": k_pipefds,
        "cwd": k_strcwd,
        "mountattr": _k_mount_attr(fl),
        "fhandle_in": decoded_in(format_file_handle),
        "fhandle_inout": _k_file_handle_inout,
        "landlockruleattr": _k_landlock_rule(fl),
        "landlockrulesetattr": _k_landlock_ruleset(fl),
    }
