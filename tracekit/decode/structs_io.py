"""I/O structs as strace 6.1 prints them by default: ioctl arguments, poll and select
sets, epoll events, iovec arrays.

Each decoder takes the bytes the BPF program captured (``Capture.data``; specs in
tracekit/session/capture.py ``OVERRIDES``) and returns strace's text, or the address
when the memory is not there (unread, unreadable, a failed call's output) or too short to
be the struct. What strace prints (checked against strace 6.1 on Linux 6.18):

- ``ioctl``: the request by name (two names where two drivers share a value:
  ``SNDCTL_TMR_START or TCSETS``; ``EVIOCGBIT(EV_KEY, 96)``: structs_evdev), an unknown
  one as ``_IOC(_IOC_READ, 0x78, 0x77, 0x4)``;
  the argument by request: ``TCGETS``/``TCSETS*``'s termios as
  ``{c_iflag=ICRNL|IXON, c_oflag=..., c_cflag=..., c_lflag=..., ...}``, ``TIOCGWINSZ``'s
  ``{ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}``, an int as ``[1]``, FICLONE's fd in
  decimal, TCFLSH's ``TCIFLUSH`` (``0x7 /* TC??? */``), none for requests without one
  (``ioctl(4, FIOCLEX)``), hex otherwise. TCGETA's struct termio and TCGETS2's termios2
  (with -v: its ``c_ispeed`` and ``c_ospeed`` last) print as a termios, whose flag words
  of 0 print as nothing (``c_iflag=, c_cflag=B0|CS5|``), and an input baud rate in
  c_cflag as ``B1800<<IBSHIFT``;
  the modem lines as ``[TIOCM_DTR|TIOCM_RTS]``; FS_IOC_FSGETXATTR's ``{fsx_xflags=0, ...}``
  (FSSETXATTR's without fsx_nextents), FICLONERANGE's, FIDEDUPERANGE's and FS_IOC_FIEMAP's
  structs (``{fm_start=0, ...} => {fm_flags=..., fm_mapped_extents=1, ...}``).
- ``poll``/``ppoll``: ``[{fd=3, events=POLLIN}]`` at entry, the return value followed by
  ``([{fd=3, revents=POLLIN}], left {tv_sec=0, tv_nsec=218})``; ``0 (Timeout)``.
- ``select``/``pselect6``: sets as ``[0 5]``, the return value followed by
  ``(in [5], out [6], left {...})``.
- ``epoll_ctl``/``epoll_wait``: ``{events=EPOLLIN|EPOLLET, data={u32=4660, u64=4660}}``.
- ``readv``/``writev`` and the p/2 forms: ``[{iov_base="hello", iov_len=5}, ...]``; what a
  read returned is spread over the elements in order (``iov_base=""`` past it);
  ``iovaddr``: the bases as addresses (process_vm_readv's remote iovecs, process_madvise).

Layouts are those of 64-bit x86_64 and arm64 (little-endian); ``struct epoll_event`` is
packed (12 bytes) on x86_64 only (include/uapi/linux/eventpoll.h, EPOLL_PACKED).
"""

from __future__ import annotations

import functools
import ipaddress
import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from tracekit._events import (
    CAP_IOV,
    CAP_MMSGHDR,
    CAP_MSGHDR,
    CAP_STRUCT,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_PARTIAL,
    CAPF_TRUNC,
    SC_INDIRECT,
    SC_NORETURN,
    SC_UNFINISHED,
    Capture,
    Syscall,
)
from tracekit.decode import flags as F
from tracekit.decode.captures import (
    KindFn,
    capture,
    capture_out,
    elements_shown,
    entry_exit as _entry_exit,
    readable,
    succeeded,
)
from tracekit.decode.structs_compat import format_timespec32, format_timeval32
from tracekit.decode.structs_evdev import evdev_arg, evdev_captures, evdev_request
from tracekit.decode.structs_gpio import GPIO_DECODERS
from tracekit.decode.structs_kd import KD_CAPTURES, KD_DECODERS
from tracekit.decode.structs_netlink import iov_decoder
from tracekit.decode.structs_proc import SIGSET_SIZE, format_sigset, format_timeval
from tracekit.decode.structs_ptp import PTP_DECODERS
from tracekit.decode.structs_rtc import RTC_DECODERS
from tracekit.decode.structs_seccomp import SECCOMP_DECODERS, UNLISTED_REQUESTS
from tracekit.decode.values import (
    cstring_field,
    format_ifindex,
    format_sockaddr,
    format_timespec,
    hex0,
    pointer,
    quote,
    signed,
)
from tracekit.kernel.flag_tables.ioctl_arg_kinds import IOCTL_ARG_KINDS, IOCTL_ARG_KINDS_TERSE

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = [
    "EPOLL_EVENT_SIZES", "IOCTL_ARGS", "IOV_DUMPS", "IovElem", "format_clone_range",
    "format_dedupe_range", "format_epoll_events", "format_fdset", "format_fsxattr",
    "format_iov", "format_pollfds", "format_revents", "format_termio", "format_termios",
    "format_winsize", "ioctl_name", "iov_dump_vectors", "k_ioctlarg", "k_stop", "kinds",
    "parse_iov", "poll_fds", "ret_kinds", "select_fds",
]

# struct epoll_event: u32 events, u64 data; packed on x86_64 (include/uapi/linux/eventpoll.h)
EPOLL_EVENT_SIZES: dict[str, int] = {"x86_64": 12, "arm64": 16}
TERMIOS_SIZE = 36        # struct termios (asm-generic/termbits.h): 4 x u32, c_line, c_cc[19]
TERMIOS2_SIZE = 44       # struct termios2: termios, then c_ispeed, c_ospeed
TERMIO_SIZE = 18         # struct termio (asm-generic/termios.h): 4 x u16, c_line, c_cc[8]
_NCC = 8                 # ... its c_cc (NCC), then a byte of padding strace does not print
FSXATTR = struct.Struct("<5I")                    # struct fsxattr, then 8 bytes of padding
FSXATTR_SIZE = 28
CLONE_RANGE = struct.Struct("<qQQQ")              # struct file_clone_range
DEDUPE_RANGE = struct.Struct("<QQH2xI")           # struct file_dedupe_range, then info[]
DEDUPE_INFO = struct.Struct("<qQQiI")             # struct file_dedupe_range_info
FIEMAP = struct.Struct("<QQIII4x")                # struct fiemap, then fm_extents[]
FSLABEL_MAX = 256        # FS_IOC_GETFSLABEL's char[FSLABEL_MAX] (linux/fs.h)
IOCTL_STRUCT_CAP = 256   # the most bytes of an ioctl argument tracekit captures
DEDUPE_INFOS = (IOCTL_STRUCT_CAP - DEDUPE_RANGE.size) // DEDUPE_INFO.size   # 7
STRING_LIMIT = 32        # strace's default -s: the bytes of a string it prints
WINSIZE_SIZE = 8         # struct winsize: 4 x unsigned short
POLLFD = struct.Struct("<ihh")                    # struct pollfd: fd, events, revents
IOV_ELEM = struct.Struct("<QQII")                 # struct tk_iov_elem (programs/syscalls.h)
MSGHDR = struct.Struct("<QI4xQQQQi4x")            # struct user_msghdr, 56 bytes
MMSGHDR_SIZE = 64                                 # struct mmsghdr: msghdr, msg_len, pad

# _IOC layout (include/uapi/asm-generic/ioctl.h): nr 0-7, type 8-15, size 16-29, dir 30-31
_IOC_DIRS = {0: "_IOC_NONE", 1: "_IOC_WRITE", 2: "_IOC_READ", 3: "_IOC_READ|_IOC_WRITE"}


def ioctl_name(fl: F.ArchFlags, req: int) -> str:
    """An ioctl request as strace prints it: its name, ``A or B`` when another driver's
    request has the same value (strace lists them by name), else the ``_IOC()`` form."""
    req &= 0xFFFFFFFF
    # -X raw: 0x5401; verbose: 0x5401 /* TCGETS */, the _IOC() form too (strace's
    # SYS_FUNC(ioctl) prints the number, then whatever names it as a comment)
    numbered = evdev_request(fl, req)
    if numbered is not None:
        return F.styled_word(req, numbered)
    T = fl.tables
    names = {n for n in (T.IOCTLS.get(req), T.IOCTL_ALIASES.get(req)) if n is not None}
    driver: str | None = T.DRIVER_IOCTLS.get(req) or UNLISTED_REQUESTS.get(req)
    if driver is not None:
        names.update(driver.split(" or "))
    if names:
        return F.styled_word(req, " or ".join(sorted(names)))
    return F.styled_word(req, f"_IOC({_IOC_DIRS[req >> 30]}, {hex0(req >> 8 & 0xFF)}, "
                              f"{hex0(req & 0xFF)}, {hex0(req >> 16 & 0x3FFF)})")


IFREQ_SIZE = 40                     # struct ifreq: ifr_name[16], then a 24-byte union


class _IoctlArg(NamedTuple):
    size: int            # bytes captured (0: not captured)
    into: bool           # the call reads it: captured at entry, shown whatever the result
    out: bool            # the call writes it: captured at exit, shown when it succeeded
    fmt: str             # "termios", "termio", "winsize", "int", "fd" (the value as an
    #                      int), "flush"/"flow" (TCFLSH/TCXONC's value by name), "none",
    #                      "hex", "ptr" (an address), "inodeflags" (``[FS_EXTENT_FL]``),
    #                      "modem" (``[TIOCM_DTR|TIOCM_RTS]``), "fsxattr", "clonerange",
    #                      "dedupe", "fiemap", "fsxattr_set" (without fsx_nextents),
    #                      "uint", "char" (TIOCSTI's byte as a string), "label" (a
    #                      NUL-terminated string)
    #                      "ifindex"/"ifname" (struct ifreq of SIOCGIFINDEX/SIOCGIFNAME),
    #                      "ifreq" (the other SIOCGIF* reads: the name, the member out),
    #                      "ifreq_set" (SIOCSIF*: the name and the member in), "brname"
    #                      (SIOCBRADDBR's bridge name), "brif" (SIOCBRADDIF's ifindex)


# How each request's argument prints (strace 6.1, term_ioctl.c and file_ioctl.c)
_IOCTL_KINDS: dict[str, _IoctlArg] = {
    "TCGETS": _IoctlArg(TERMIOS_SIZE, False, True, "termios"),
    **{n: _IoctlArg(TERMIOS_SIZE, True, False, "termios")
       for n in ("TCSETS", "TCSETSW", "TCSETSF")},
    "TCGETS2": _IoctlArg(TERMIOS2_SIZE, False, True, "termios2"),
    **{n: _IoctlArg(TERMIOS2_SIZE, True, False, "termios2")
       for n in ("TCSETS2", "TCSETSW2", "TCSETSF2")},
    "TIOCGLCKTRMIOS": _IoctlArg(TERMIOS_SIZE, False, True, "termios"),
    "TIOCSLCKTRMIOS": _IoctlArg(TERMIOS_SIZE, True, False, "termios"),
    "TIOCSTI": _IoctlArg(1, True, False, "char"),
    "TIOCGDEV": _IoctlArg(4, False, True, "uint"),
    "FS_IOC_GETFSLABEL": _IoctlArg(FSLABEL_MAX, False, True, "label"),
    "TCGETA": _IoctlArg(TERMIO_SIZE, False, True, "termio"),
    **{n: _IoctlArg(TERMIO_SIZE, True, False, "termio")
       for n in ("TCSETA", "TCSETAW", "TCSETAF")},
    "TIOCGWINSZ": _IoctlArg(WINSIZE_SIZE, False, True, "winsize"),
    "TIOCSWINSZ": _IoctlArg(WINSIZE_SIZE, True, False, "winsize"),
    **{n: _IoctlArg(4, False, True, "int")
       for n in ("FIONREAD", "TIOCOUTQ", "TIOCGPGRP", "TIOCGSID", "TIOCGETD", "TIOCGPTN",
                 "TIOCGEXCL", "RNDGETENTCNT", "TIOCGSOFTCAR")},
    "TIOCMGET": _IoctlArg(4, False, True, "modem"),
    **{n: _IoctlArg(4, True, False, "modem") for n in ("TIOCMSET", "TIOCMBIS", "TIOCMBIC")},
    "FS_IOC_FSGETXATTR": _IoctlArg(FSXATTR_SIZE, False, True, "fsxattr"),
    "FS_IOC_FSSETXATTR": _IoctlArg(FSXATTR_SIZE, True, False, "fsxattr_set"),
    "FICLONERANGE": _IoctlArg(CLONE_RANGE.size, True, False, "clonerange"),
    # the header and the first 7 destinations: what fits in IOCTL_STRUCT_CAP
    "FIDEDUPERANGE": _IoctlArg(DEDUPE_RANGE.size + DEDUPE_INFOS * DEDUPE_INFO.size, True, False,
                               "dedupe"),
    "FS_IOC_FIEMAP": _IoctlArg(FIEMAP.size, True, True, "fiemap"),
    **{n: _IoctlArg(4, True, False, "int")
       for n in ("FIONBIO", "FIOASYNC", "TIOCSPGRP", "TIOCSETD", "TIOCSPTLCK", "TIOCPKT",
                 "TIOCSSOFTCAR")},
    "FS_IOC_GETFLAGS": _IoctlArg(4, False, True, "inodeflags"),
    "FS_IOC_SETFLAGS": _IoctlArg(4, True, False, "inodeflags"),
    # block device requests: strace prints the argument's address on a file that is not
    # one (ENOTTY); what they write on a block device is not decoded here. BLKRASET,
    # BLKFRASET (a number) and BLKSECTSET (no decoder) print as measured (_measured_arg)
    **{n: _IoctlArg(0, False, False, "ptr")
       for n in ("BLKGETSIZE64", "BLKGETSIZE", "BLKSSZGET", "BLKBSZGET", "BLKBSZSET",
                 "BLKPBSZGET", "BLKIOMIN", "BLKIOOPT", "BLKALIGNOFF", "BLKROGET", "BLKROSET",
                 "BLKRAGET", "BLKFRAGET", "BLKSECTGET", "BLKDISCARDZEROES", "BLKROTATIONAL",
                 "BLKDISCARD", "BLKSECDISCARD", "BLKZEROOUT", "BLKGETDISKSEQ", "BLKTRACESETUP",
                 "FITRIM")},
    # struct ifreq (40 bytes): the name in, the index out, and the other way round
    "SIOCGIFINDEX": _IoctlArg(IFREQ_SIZE, True, True, "ifindex"),
    "SIOCGIFNAME": _IoctlArg(IFREQ_SIZE, True, True, "ifname"),
    # the name in, one member of the union out (_IFREQ_OUT)
    **{n: _IoctlArg(IFREQ_SIZE, True, True, "ifreq") for n in (
        "SIOCGIFFLAGS", "SIOCGIFMETRIC", "SIOCGIFMTU", "SIOCGIFTXQLEN", "SIOCGIFHWADDR",
        "SIOCGIFADDR", "SIOCGIFDSTADDR", "SIOCGIFBRDADDR", "SIOCGIFNETMASK")},
    # the sets: the name and one member of the union in (_IFREQ_SET)
    **{n: _IoctlArg(IFREQ_SIZE, True, False, "ifreq_set") for n in (
        "SIOCSIFFLAGS", "SIOCSIFMETRIC", "SIOCSIFMTU", "SIOCSIFTXQLEN", "SIOCSIFHWADDR",
        "SIOCSIFHWBROADCAST", "SIOCSIFADDR", "SIOCSIFDSTADDR", "SIOCSIFBRDADDR",
        "SIOCSIFNETMASK", "SIOCSIFMAP", "SIOCSIFNAME", "SIOCSIFSLAVE", "SIOCADDMULTI",
        "SIOCDELMULTI")},
    # an int the call writes or reads (strace's printnum_int)
    **{n: _IoctlArg(4, False, True, "int")
       for n in ("FIOGETOWN", "SIOCATMARK", "SIOCGPGRP", "SIOCGIFENCAP")},
    **{n: _IoctlArg(4, True, False, "int") for n in ("FIOSETOWN", "SIOCSPGRP", "SIOCSIFENCAP")},
    # a bridge's name (IFNAMSIZ bytes, up to its NUL)
    **{n: _IoctlArg(16, True, False, "brname") for n in ("SIOCBRADDBR", "SIOCBRDELBR")},
    # the interface a bridge gets or loses: struct ifreq's ifr_ifindex
    **{n: _IoctlArg(IFREQ_SIZE, True, False, "brif") for n in ("SIOCBRADDIF", "SIOCBRDELIF")},
    "FICLONE": _IoctlArg(0, False, False, "fd"),
    "TCSBRK": _IoctlArg(0, False, False, "fd"),
    "TCSBRKP": _IoctlArg(0, False, False, "fd"),
    "TIOCSCTTY": _IoctlArg(0, False, False, "fd"),
    "TCFLSH": _IoctlArg(0, False, False, "flush"),
    "TCXONC": _IoctlArg(0, False, False, "flow"),
    **{n: _IoctlArg(0, False, False, "none")
       for n in ("FIOCLEX", "FIONCLEX", "TIOCEXCL", "TIOCNXCL", "TIOCNOTTY", "TIOCSBRK",
                 "TIOCCBRK", "TIOCCONS", "FIFREEZE", "FITHAW",
                 # strace 6.1 prints no argument for it, the struct it reads is not shown
                 "TIOCSSERIAL")},
}


@functools.cache
def _ioctl_by_value(arch: str) -> dict[int, _IoctlArg]:
    T = F.for_arch(arch).tables
    names = {n: v for v, n in T.IOCTLS.items()}
    return {names[n]: a for n, a in _IOCTL_KINDS.items() if n in names}


@functools.cache
def _kd_by_value(arch: str) -> dict[int, str]:
    """The console requests tracekit decodes (tracekit.decode.structs_kd): value -> name."""
    T = F.for_arch(arch).tables
    return {v: n for v, n in T.DRIVER_IOCTLS.items() if n in KD_DECODERS}


# request name -> (its capture or None, its argument's decoder): the drivers' requests
# tracekit decodes by name (tracekit.decode.structs_ptp, structs_rtc, structs_gpio,
# structs_seccomp)
_DRIVER_DECODERS = {**PTP_DECODERS, **RTC_DECODERS, **GPIO_DECODERS, **SECCOMP_DECODERS}


@functools.cache
def _drivers_by_value(arch: str) -> dict[int, tuple[tuple[int, bool, bool] | None, KindFn]]:
    """The requests of _DRIVER_DECODERS by value (a value two drivers share: the one
    decoded, as strace, which decodes by the request's type)."""
    T = F.for_arch(arch).tables
    return {v: _DRIVER_DECODERS[n] for v, names in {**UNLISTED_REQUESTS, **T.DRIVER_IOCTLS}.items()
            for n in names.split(" or ") if n in _DRIVER_DECODERS}


def IOCTL_ARGS(arch: str) -> dict[int, tuple[int, bool, bool]]:
    """request -> (size, read at entry, read at exit) of the requests whose argument is
    captured (the ``ioctl_sizes`` map of programs/syscalls.bpf.c)."""
    args = {v: (a.size, a.into, a.out) for v, a in _ioctl_by_value(arch).items() if a.size}
    args.update((v, KD_CAPTURES[n]) for v, n in _kd_by_value(arch).items() if n in KD_CAPTURES)
    args.update(evdev_captures(F.for_arch(arch)))
    args.update((v, cap) for v, (cap, _) in _drivers_by_value(arch).items() if cap is not None)
    return args


def _field(v: int, mask: int, names: Mapping[int, str]) -> str:
    got = names.get(v & mask)
    return got if got is not None else hex(v & mask)


def format_termios(data: bytes, fl: F.ArchFlags, *, verbose: bool = False,
                   termios2: bool = False) -> str | None:
    """struct termios (asm-generic/termbits.h), abbreviated as strace without -v:
    ``{c_iflag=ICRNL|IXON, c_oflag=NL0|...|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD,
    c_lflag=ISIG|..., ...}``; ``verbose`` (-v): then ``c_line=N_TTY, c_cc=[[VINTR]=0x3,
    ..., [18]=0]`` (NCCS 19) in place of ``...``, and for a struct termios2
    (``termios2``: TCGETS2, TCSETS2...) ``c_ispeed=9600, c_ospeed=9600`` after them. None
    when ``data`` is shorter than the struct."""
    if len(data) < (TERMIOS2_SIZE if termios2 else TERMIOS_SIZE):
        return None
    flags = _term_flags(struct.unpack_from("<4I", data), fl)
    if not verbose:
        return flags + ", ...}"
    speeds = ""
    if termios2:
        ispeed, ospeed = struct.unpack_from("<II", data, TERMIOS2_SIZE - 8)
        speeds = f", c_ispeed={ispeed}, c_ospeed={ospeed}"
    return flags + _term_rest(data[16], data[17:TERMIOS_SIZE], fl) + speeds + "}"


def format_termio(data: bytes, fl: F.ArchFlags, *, verbose: bool = False) -> str | None:
    """struct termio (TCGETA/TCSETA: 16-bit flag words, c_line, c_cc[8]), printed as
    strace prints a termios (``format_termios``); None when ``data`` is shorter than
    the struct."""
    if len(data) < TERMIO_SIZE:
        return None
    flags = _term_flags(struct.unpack_from("<4H", data), fl)
    if not verbose:
        return flags + ", ...}"
    return flags + _term_rest(data[8], data[9:9 + _NCC], fl) + "}"


def _term_rest(line: int, cc: bytes, fl: F.ArchFlags) -> str:
    """What -v adds to a termios: the line discipline and the control characters, each
    by its index's name (``[17]`` past VEOL2), its value as ``%#x``."""
    T = fl.tables
    ldisc = T.TERM_LDISCS.get(line)
    names = T.TERM_CC
    chars = ", ".join(f"[{names.get(k, k)}]={hex0(c)}" for k, c in enumerate(cc))
    return (f", c_line={ldisc if ldisc is not None else f'{hex0(line)} /* N_??? */'}, "
            f"c_cc=[{chars}]")


def _term_flags(words: tuple[int, ...], fl: F.ArchFlags) -> str:
    iflag, oflag, cflag, lflag = words
    T = fl.tables
    masks = {n: v for v, n in T.TERM_MASKS.items()}
    odelays = [_field(oflag, masks[m], t) for m, t in (
        ("NLDLY", T.TERM_NLDLY), ("CRDLY", T.TERM_CRDLY), ("TABDLY", T.TERM_TABDLY),
        ("BSDLY", T.TERM_BSDLY), ("VTDLY", T.TERM_VTDLY), ("FFDLY", T.TERM_FFDLY))]
    orest = oflag & ~sum(masks[m] for m in ("NLDLY", "CRDLY", "TABDLY", "BSDLY", "VTDLY",
                                            "FFDLY"))
    # strace 6.1 prints a flag word of 0 as nothing, and the fields before the rest of
    # c_oflag/c_cflag with a "|" even when the rest is 0: "c_iflag=, c_cflag=B0|CS5|"
    o = "|".join(odelays) + "|" + _zbits(T.TERM_OFLAGS, orest)
    cfields = [_field(cflag, masks["CBAUD"], T.TERM_BAUDS),
               _field(cflag, masks["CSIZE"], T.TERM_CSIZES)]
    if cflag & masks["CIBAUD"]:
        # the input baud rate, when set: ``B1800<<IBSHIFT``, after the output one
        shift = masks["IBSHIFT"]
        cfields.insert(1, _field((cflag & masks["CIBAUD"]) >> shift, masks["CBAUD"],
                                 T.TERM_BAUDS) + "<<IBSHIFT")
    crest = cflag & ~(masks["CBAUD"] | masks["CIBAUD"] | masks["CSIZE"])
    c = "|".join(cfields) + "|" + _zbits(T.TERM_CFLAGS, crest)
    return (f"{{c_iflag={_zbits(T.TERM_IFLAGS, iflag)}, c_oflag={o}, c_cflag={c}, "
            f"c_lflag={_zbits(T.TERM_LFLAGS, lflag)}")


def _bits(bits: tuple[tuple[int, str], ...], v: int, unknown: str | None = None) -> str:
    """A flag word; ``unknown``: how a word without a named bit prints
    (``0x10000 /* TIOCM_??? */``), else plain hex."""
    return F.flagset(bits, unknown)(v)


@functools.cache
def _zflagset(bits: tuple[tuple[int, str], ...]) -> F.FlagSet:
    return F.FlagSet(bits, zero="")


def _zbits(bits: tuple[tuple[int, str], ...], v: int) -> str:
    """A termios flag word as strace 6.1 prints it: nothing for 0."""
    return _zflagset(bits)(v)


def format_winsize(data: bytes) -> str | None:
    """struct winsize: ``{ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}``."""
    if len(data) < WINSIZE_SIZE:
        return None
    row, col, x, y = struct.unpack_from("<4H", data)
    return f"{{ws_row={row}, ws_col={col}, ws_xpixel={x}, ws_ypixel={y}}}"


def format_fsxattr(data: bytes, fl: F.ArchFlags, *, nextents: bool = True) -> str | None:
    """struct fsxattr: ``{fsx_xflags=FS_XFLAG_APPEND, fsx_extsize=0, fsx_nextents=0,
    fsx_projid=0, fsx_cowextsize=0}``, without fsx_nextents (``nextents`` False) as
    FS_IOC_FSSETXATTR prints it (the kernel ignores it there); None when short."""
    if len(data) < FSXATTR.size:
        return None
    xflags, extsize, n, projid, cowextsize = FSXATTR.unpack_from(data)
    count = f"fsx_nextents={n}, " if nextents else ""
    return (f"{{fsx_xflags={_bits(fl.tables.FS_XFLAGS, xflags, 'FS_XFLAG_???')}, "
            f"fsx_extsize={extsize}, "
            f"{count}fsx_projid={projid}, fsx_cowextsize={cowextsize}}}")


def format_clone_range(data: bytes, fdtext: Callable[[int], str] = str) -> str | None:
    """struct file_clone_range (FICLONERANGE): ``{src_fd=3, src_offset=0,
    src_length=4096, dest_offset=0}``; None when short. ``fdtext``: an fd's text (-yy's
    ``3</tmp/f>``)."""
    if len(data) < CLONE_RANGE.size:
        return None
    fd, off, length, dest = CLONE_RANGE.unpack_from(data)
    return (f"{{src_fd={fdtext(signed(fd, 32))}, src_offset={off}, src_length={length}, "
            f"dest_offset={dest}}}")


def format_dedupe_range(data: bytes, fdtext: Callable[[int], str] = str) -> str | None:
    """struct file_dedupe_range as FIDEDUPERANGE reads it: ``{src_offset=0, src_length=4,
    dest_count=1, info=[{dest_fd=4, dest_offset=0}]}``, the destinations captured
    (``...`` after them when dest_count says there are more); None when short.
    ``fdtext``: an fd's text (-yy's ``4</tmp/g>``)."""
    if len(data) < DEDUPE_RANGE.size:
        return None
    off, length, count, _ = DEDUPE_RANGE.unpack_from(data)
    infos: list[str] = []
    pos = DEDUPE_RANGE.size
    while len(infos) < count and pos + DEDUPE_INFO.size <= len(data):
        fd, dest, _, _, _ = DEDUPE_INFO.unpack_from(data, pos)
        infos.append(f"{{dest_fd={fdtext(signed(fd, 32))}, dest_offset={dest}}}")
        pos += DEDUPE_INFO.size
    if len(infos) < count:
        infos.append("...")
    return (f"{{src_offset={off}, src_length={length}, dest_count={count}, "
            f"info=[{', '.join(infos)}]}}")


def _fiemap_arg(ev: Syscall, i: int, fl: F.ArchFlags) -> str:
    """FS_IOC_FIEMAP's struct fiemap: the request read at entry, then what the call
    wrote: ``{fm_start=0, fm_length=..., fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=2}
    => {fm_flags=FIEMAP_FLAG_SYNC, fm_mapped_extents=1, ...}`` (the extents elided, as
    strace without -v, even when there are none; unknown flags as
    ``0x8 /* FIEMAP_FLAG_??? */``); the address when the request was not read."""
    entry, exit_ = _entry_exit(ev, i)
    if entry is None or entry.flags & (CAPF_FAULT | CAPF_TRUNC) or len(entry.data) < FIEMAP.size:
        return pointer(ev.args[i])
    start, length, flags, _, count = FIEMAP.unpack_from(entry.data)
    T = fl.tables
    fm_flags = _fiemap_flags(T.FIEMAP_FLAGS)
    text = (f"{{fm_start={start}, fm_length={length}, "
            f"fm_flags={fm_flags(flags)}, fm_extent_count={count}}}")
    if (succeeded(ev) and exit_ is not None and not exit_.flags & (CAPF_FAULT | CAPF_TRUNC)
            and len(exit_.data) >= FIEMAP.size):
        _, _, flags, mapped, count = FIEMAP.unpack_from(exit_.data)
        text += f" => {{fm_flags={fm_flags(flags)}, fm_mapped_extents={mapped}, ...}}"
    return text


@functools.cache
def _fiemap_flags(bits: tuple[tuple[int, str], ...]) -> F.FlagSet:
    return F.FlagSet(bits, unknown="FIEMAP_FLAG_???")


def k_ioctlarg(d: SyscallDecoder, ev: Syscall, i: int, deref: bool = True) -> str | None:
    """ioctl's argument by its request (argument ``i - 1``); None: the request has none.
    Not ``deref`` (-e verbose= without ioctl): what it points to prints as its address,
    a value argument as without."""
    v, fl = ev.args[i], d.flags
    req = ev.args[i - 1] & 0xFFFFFFFF
    a = _ioctl_by_value(fl.arch).get(req)
    kd = _kd_by_value(fl.arch).get(req)
    if kd is not None and (deref or kd not in KD_CAPTURES):
        return KD_DECODERS[kd](d, ev, i)
    if deref and (evdev := evdev_arg(d, ev, i)) is not None:
        return evdev
    driver = _drivers_by_value(fl.arch).get(req) if deref else None
    if driver is not None:
        return driver[1](d, ev, i)
    if a is None:
        kinds = IOCTL_ARG_KINDS if deref else IOCTL_ARG_KINDS_TERSE
        return _measured_arg(d, ev, kinds.get(fl.arch, {}).get(req), v)
    if a.fmt == "hex":
        return hex0(v)
    if a.fmt == "none":
        return None
    if a.fmt == "fd":
        return str(signed(v, 32))
    if a.fmt == "ptr":
        return pointer(v)
    if a.fmt in ("flush", "flow"):
        # the whole register: the kernel fails a value with high bits set (EINVAL)
        name = (fl.tables.TC_FLUSH if a.fmt == "flush" else fl.tables.TC_FLOW).get(v)
        return name if name is not None else f"{hex0(v)} /* TC??? */"
    if v == 0:
        return "NULL"
    if not deref:
        return pointer(v)
    if a.fmt in ("ifindex", "ifname"):
        return _ifreq(ev, i, a.fmt) or pointer(v)
    if a.fmt == "ifreq":
        return _ifreq_get(ev, i, fl, fl.tables.IOCTLS.get(ev.args[i - 1] & 0xFFFFFFFF, "")) \
            or pointer(v)
    if a.fmt == "fiemap":
        return _fiemap_arg(ev, i, fl)
    if a.fmt == "ifreq_set":
        cap = capture(ev, i, whole=True)
        req = fl.tables.IOCTLS.get(ev.args[i - 1] & 0xFFFFFFFF, "")
        return (None if cap is None else format_ifreq_set(cap.data, fl, req)) or pointer(v)
    cap = capture(ev, i, whole=True) if a.into else capture_out(ev, i, whole=True)
    text = None
    if cap is not None:
        if a.fmt in ("termios", "termios2"):
            text = format_termios(cap.data, fl, verbose=d.full, termios2=a.fmt == "termios2")
        elif a.fmt == "termio":
            text = format_termio(cap.data, fl, verbose=d.full)
        elif a.fmt in ("fsxattr", "fsxattr_set"):
            text = format_fsxattr(cap.data, fl, nextents=a.fmt == "fsxattr")
        elif a.fmt == "char":
            text = quote(cap.data[:1])
        elif a.fmt == "brname" and len(cap.data) >= 16:
            name = cap.data[:16].split(b"\0", 1)
            text = quote(name[0], more=len(name) == 1)
        elif a.fmt == "brif" and len(cap.data) >= IFREQ_SIZE:
            index = int.from_bytes(cap.data[16:20], "little")      # unsigned, as strace
            text = f"{{ifr_ifindex={format_ifindex(index)}}}"
        elif a.fmt == "label":
            text = quote(cap.data.split(b"\0", 1)[0], limit=STRING_LIMIT)
        elif a.fmt == "uint" and len(cap.data) >= 4:
            text = f"[{int.from_bytes(cap.data[:4], 'little')}]"
        elif a.fmt == "clonerange":
            text = format_clone_range(cap.data, lambda fd: d.fd_text(ev.tgid, fd))
        elif a.fmt == "dedupe":
            text = format_dedupe_range(cap.data, lambda fd: d.fd_text(ev.tgid, fd))
        elif a.fmt == "modem" and len(cap.data) >= 4:
            modem = int.from_bytes(cap.data[:4], "little")
            text = f"[{_bits(fl.tables.TIOCM_BITS, modem, 'TIOCM_???')}]"
        elif a.fmt == "winsize":
            text = format_winsize(cap.data)
        elif a.fmt == "inodeflags" and len(cap.data) >= 4:
            text = f"[{_bits(fl.tables.FS_INODE_FLAGS, int.from_bytes(cap.data[:4], 'little'))}]"
        elif len(cap.data) >= 4:
            text = f"[{signed(int.from_bytes(cap.data[:4], 'little'), 32)}]"
    return pointer(v) if text is None else text


def _measured_arg(d: SyscallDecoder, ev: Syscall, kind: str | None, v: int) -> str | None:
    """The argument of a request tracekit does not decode as strace 6.1 prints it by its
    decoder's kind (measured: scripts/gen_ioctl_arg_kinds.py); hex without one."""
    if kind == "ptr":
        return pointer(v)
    if kind == "none":
        return None
    if kind == "fd":
        return d.fd_text(ev.tgid, signed(v, 32))
    if kind == "int":
        return str(signed(v, 32))
    if kind == "uint":
        return str(v & 0xFFFFFFFF)
    if kind == "long":
        return str(signed(v, 64))
    if kind == "ulong":
        return str(v & 0xFFFFFFFFFFFFFFFF)
    return hex0(v)


def _ifreq(ev: Syscall, i: int, fmt: str) -> str | None:
    """SIOCGIFINDEX's ``{ifr_name="lo", ifr_ifindex=1}`` and SIOCGIFNAME's
    ``{ifr_ifindex=1, ifr_name="lo"}``: what the call reads, then what it wrote when it
    succeeded; None when the struct was not captured at entry."""
    caps = [c for c in ev.caps if c.arg == i and not c.flags & (CAPF_FAULT | CAPF_TRUNC)
            and len(c.data) >= IFREQ_SIZE]
    if not caps:
        return None
    cap, out = caps[0], caps[-1]            # at entry, at exit (when it succeeded)
    done = len(caps) >= 2 and succeeded(ev)

    def name(data: bytes) -> str:
        return "ifr_name=" + quote(data[:16].split(b"\0", 1)[0])

    def index(data: bytes) -> str:
        return f"ifr_ifindex={signed(int.from_bytes(data[16:20], 'little'), 32)}"

    first, second = (name, index) if fmt == "ifindex" else (index, name)
    parts = [first(cap.data)]
    if done:
        parts.append(second(out.data))
    return "{" + ", ".join(parts) + "}"


# the union member each SIOCGIF* read fills in or SIOCSIF* set reads, and how it prints
_IFREQ_OUT = {"SIOCGIFFLAGS": ("ifr_flags", "flags"), "SIOCGIFMETRIC": ("ifr_metric", "int"),
              "SIOCGIFMTU": ("ifr_mtu", "int"), "SIOCGIFTXQLEN": ("ifr_qlen", "int"),
              "SIOCGIFHWADDR": ("ifr_hwaddr", "hwaddr"), "SIOCGIFADDR": ("ifr_addr", "addr"),
              "SIOCGIFDSTADDR": ("ifr_dstaddr", "addr"),
              "SIOCGIFBRDADDR": ("ifr_broadaddr", "addr"),
              "SIOCGIFNETMASK": ("ifr_netmask", "addr")}
_IFREQ_SET = {**{"SIOCS" + n[5:]: v for n, v in _IFREQ_OUT.items()},
              "SIOCSIFHWBROADCAST": ("ifr_hwaddr", "hwaddr"),
              "SIOCADDMULTI": ("ifr_hwaddr", "hwaddr"), "SIOCDELMULTI": ("ifr_hwaddr", "hwaddr"),
              "SIOCSIFMAP": ("ifr_map", "map"), "SIOCSIFNAME": ("ifr_newname", "name"),
              "SIOCSIFSLAVE": ("ifr_slave", "name")}
# the bytes of a hardware address strace shows by device type (its print_mac.c, after
# the kernel's *_ALEN): all 14 of sa_data for the types not named here
_HWADDR_LEN = {
    "ARPHRD_NETROM": 7, "ARPHRD_ETHER": 6, "ARPHRD_AX25": 7, "ARPHRD_IEEE802": 6,
    "ARPHRD_ARCNET": 1, "ARPHRD_DLCI": 2, "ARPHRD_IEEE1394": 16, "ARPHRD_EUI64": 8,
    "ARPHRD_INFINIBAND": 20, "ARPHRD_SLIP": 0, "ARPHRD_ROSE": 5, "ARPHRD_X25": 0,
    "ARPHRD_CAN": 0, "ARPHRD_MCTP": 1, "ARPHRD_PPP": 0, "ARPHRD_RAWHDLC": 0,
    "ARPHRD_RAWIP": 0, "ARPHRD_TUNNEL": 4, "ARPHRD_TUNNEL6": 16, "ARPHRD_LOOPBACK": 6,
    "ARPHRD_LOCALTLK": 1, "ARPHRD_FDDI": 6, "ARPHRD_SIT": 4, "ARPHRD_IPDDP": 0,
    "ARPHRD_IPGRE": 4, "ARPHRD_PIMREG": 0, "ARPHRD_HIPPI": 6, "ARPHRD_IRDA": 4,
    "ARPHRD_IEEE80211": 6, "ARPHRD_IEEE80211_PRISM": 6, "ARPHRD_IEEE80211_RADIOTAP": 6,
    "ARPHRD_IEEE802154": 8, "ARPHRD_IEEE802154_MONITOR": 8, "ARPHRD_PHONET": 1,
    "ARPHRD_PHONET_PIPE": 1, "ARPHRD_CAIF": 0, "ARPHRD_IP6GRE": 16, "ARPHRD_NETLINK": 0,
    "ARPHRD_6LOWPAN": 8, "ARPHRD_VSOCKMON": 0}
IFMAP = struct.Struct("<QQHBBB")        # struct ifmap: mem_start, mem_end, base_addr, irq,
#                                         dma, port


def _ifreq_member(kind: str, out: bytes, fl: F.ArchFlags) -> str:
    """The 24 bytes of struct ifreq's union as member ``kind`` (_IFREQ_OUT)."""
    T = fl.tables
    if kind == "int":
        return str(signed(int.from_bytes(out[:4], "little"), 32))
    if kind == "flags":
        return _bits(T.IFF_FLAGS, int.from_bytes(out[:2], "little"), "IFF_???")
    if kind == "hwaddr":
        family = int.from_bytes(out[:2], "little")
        name = T.ARPHRD_TYPES.get(family)
        size = _HWADDR_LEN.get(name or "", 14)
        mac = ":".join(f"{b:02x}" for b in out[2:2 + size])
        return f"{{sa_family={name or f'{family:#x} /* ARPHRD_??? */'}, sa_data={mac}}}"
    if kind == "map":
        start, end, base, irq, dma, port = IFMAP.unpack_from(out)
        return (f"{{mem_start={hex0(start)}, mem_end={hex0(end)}, base_addr={hex0(base)}, "
                f"irq={hex0(irq)}, dma={hex0(dma)}, port={hex0(port)}}}")
    if kind == "name":
        return cstring_field(out[:16])
    return format_sockaddr(out[:16])


def _ifreq_get(ev: Syscall, i: int, fl: F.ArchFlags, req: str) -> str | None:
    """A SIOCGIF* read of struct ifreq as strace 6.1: ``{ifr_name="lo", ifr_qlen=1000}``,
    ``ifr_flags=IFF_UP|IFF_LOOPBACK``, ``ifr_hwaddr={sa_family=ARPHRD_ETHER,
    sa_data=02:42:ac:11:00:02}``, ``ifr_addr={sa_family=AF_INET, ...}``; the name alone
    when the call failed; None when the struct was not captured at entry."""
    caps = [c for c in ev.caps if c.arg == i and not c.flags & (CAPF_FAULT | CAPF_TRUNC)
            and len(c.data) >= IFREQ_SIZE]
    if not caps or req not in _IFREQ_OUT:
        return None
    text = "{ifr_name=" + quote(caps[0].data[:16].split(b"\0", 1)[0])
    if len(caps) < 2 or not succeeded(ev):
        return text + "}"
    field, kind = _IFREQ_OUT[req]
    return f"{text}, {field}={_ifreq_member(kind, caps[-1].data[16:IFREQ_SIZE], fl)}}}"


def format_ifreq_set(data: bytes, fl: F.ArchFlags, req: str) -> str | None:
    """A SIOCSIF* (SIOCADDMULTI, SIOCDELMULTI) set's struct ifreq as strace 6.1 prints
    it: ``{ifr_name="eth0", ifr_mtu=1500}``, ``ifr_map={mem_start=0, ...}``,
    ``ifr_newname="eth1"`` (a name of 16 bytes without a NUL: 15 and ``...``); None when
    short or not such a request."""
    if len(data) < IFREQ_SIZE or req not in _IFREQ_SET:
        return None
    field, kind = _IFREQ_SET[req]
    return (f"{{ifr_name={cstring_field(data[:16])}, "
            f"{field}={_ifreq_member(kind, data[16:IFREQ_SIZE], fl)}}}")


# -- poll

def format_pollfds(data: bytes, n: int, fl: F.ArchFlags, limit: int,
                   fd_text: Callable[[int], str] = str, *,
                   addr: int | None = None) -> str | None:
    """poll's array at entry: ``[{fd=3, events=POLLIN}, {fd=-1}, ...]``, ``n`` elements
    (nfds; a negative fd has no events); past ``limit`` elements or the captured bytes,
    ``...``. ``fd_text`` prints an fd (decorated with its path when fd paths are on).
    ``addr``: the array's address when ``data`` is all that was readable of it (the
    memory after it is not mapped): strace's print_array reads element by element and
    prints ``... /* 0x... */`` for the first it cannot read (None when that is the
    first: the address)."""
    out = []
    for k in range(n):
        if addr is not None and (k + 1) * POLLFD.size > len(data):
            if not k:
                return None
            out.append(f"... /* {hex(addr + k * POLLFD.size)} */")
            break
        if k >= limit or (k + 1) * POLLFD.size > len(data):
            out.append("...")
            break
        fd, events, _ = POLLFD.unpack_from(data, k * POLLFD.size)
        if fd < 0:
            out.append(f"{{fd={fd}}}")
        else:
            out.append(f"{{fd={fd_text(fd)}, "
                       f"events={_bits(fl.tables.POLL_EVENTS, events & 0xFFFF)}}}")
    return "[" + ", ".join(out) + "]"


def poll_fds(ev: Syscall) -> list[int]:
    """The fds of poll's array as the call read it (the entry capture of argument 0,
    ``nfds`` elements at most, as many as were captured); negative ones left out."""
    entry, _ = _entry_exit(ev, 0)
    if entry is None or ev.args[0] == 0:
        return []
    n = min(ev.args[1] & 0xFFFFFFFF, len(entry.data) // POLLFD.size)
    return [fd for k in range(n) if (fd := POLLFD.unpack_from(entry.data, k * POLLFD.size)[0])
            >= 0]


# Some facts about strace 6.1's poll result (src/poll.c, decode_poll_exiting): it is
# written into a 1024-byte buffer, and an element that would come within 27 bytes of its
# end (room for the address of "left" and ", ], ...") is "..." instead, -v or not.
_REVENTS_ROOM = 1024 - (2 + 2 * 8 + len(", ], ...") + 1)


def format_revents(data: bytes, n: int, fl: F.ArchFlags, limit: int) -> str | None:
    """poll's array at exit, only the elements with revents: ``[{fd=3, revents=POLLIN}]``
    (``...`` after ``limit`` of them, or where strace's buffer ends); None when none
    has."""
    out: list[str] = []
    used = 1                                    # "[", then each element and ", "
    for k in range(min(n, len(data) // POLLFD.size)):
        fd, _, revents = POLLFD.unpack_from(data, k * POLLFD.size)
        if not revents:
            continue
        if out:
            used += 2
        head = f"{{fd={fd}, revents="
        flags = _bits(fl.tables.POLL_EVENTS, revents & 0xFFFF)
        if len(out) >= limit or used + len(head) + len(flags) + 1 >= _REVENTS_ROOM:
            out.append("...")
            break
        out.append(f"{head}{flags}}}")
        used += len(head) + len(flags) + 1
    return "[" + ", ".join(out) + "]" if out else None


def _k_pollfds(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        got = readable(ev, i) if ev.args[i] else None
        if got is None:
            return pointer(ev.args[i])
        # a whole array, or one cut by the end of its mapping: the entries before the cut
        data, whole = got
        text = format_pollfds(data, ev.args[i + 1] & 0xFFFFFFFF, fl, elements_shown(d),
                              lambda fd: d.fd_text(ev.tgid, fd),
                              addr=None if whole else ev.args[i])
        return pointer(ev.args[i]) if text is None else text
    return k


def _left(ev: Syscall, i: int, fmt: Callable[[bytes], str | None]) -> str | None:
    """``left {...}``: the timeout a call wrote back (ppoll, pselect6, select)."""
    if ev.args[i] == 0:
        return None
    _, out = _entry_exit(ev, i)
    text = None if out is None else fmt(out.data)
    return None if text is None else f"left {text}"


def _ret_left(timeout_arg: int, fmt: Callable[[bytes], str | None] = format_timespec
              ) -> Callable[[SyscallDecoder, Syscall, str], str]:
    """A return value with the time left the call wrote back: ``1 (left {...})``
    (recvmmsg's timeout, when the call succeeded); ``fmt`` formats the timespec."""
    def r(d: SyscallDecoder, ev: Syscall, plain: str) -> str:
        left = _left(ev, timeout_arg, fmt) if succeeded(ev) else None
        return f"{plain} ({left})" if left else plain
    return r


def _ret_poll(fl: F.ArchFlags, timeout_arg: int | None
              ) -> Callable[[SyscallDecoder, Syscall, str], str]:
    def r(d: SyscallDecoder, ev: Syscall, plain: str) -> str:
        if not succeeded(ev):
            return plain
        if ev.ret == 0:
            return "0 (Timeout)"
        parts = []
        _, out = _entry_exit(ev, 0)
        revents = None if out is None or ev.args[0] == 0 else format_revents(
            out.data, ev.args[1] & 0xFFFFFFFF, fl, elements_shown(d))
        if revents is not None:
            parts.append(revents)
        if timeout_arg is not None:
            left = _left(ev, timeout_arg, format_timespec)
            if left:
                parts.append(left)
        return f"{ev.ret} ({', '.join(parts)})" if parts else plain
    return r


# -- select

def _set_bits(data: bytes, nfds: int) -> list[int]:
    return [b for b in range(min(nfds, len(data) * 8)) if data[b >> 3] >> (b & 7) & 1]


def format_fdset(data: bytes, nfds: int, fd_text: Callable[[int], str] = str) -> str:
    """An fd_set of ``nfds`` bits: ``[0 5]``."""
    return "[" + " ".join(fd_text(b) for b in _set_bits(data, nfds)) + "]"


def _nfds(ev: Syscall) -> int:
    """select's nfds as the kernel takes it: an int, negative as 0 (fs/select.c)."""
    return max(0, signed(ev.args[0], 32))


def k_fdset(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A set select reads; with nfds 0 strace reads none and prints the address."""
    entry, _ = _entry_exit(ev, i)
    if entry is None or ev.args[i] == 0 or _nfds(ev) == 0:
        return pointer(ev.args[i])
    return format_fdset(entry.data, _nfds(ev), lambda fd: d.fd_text(ev.tgid, fd))


def select_fds(ev: Syscall) -> list[int]:
    """The fds in select's three sets as the call read them (its entry captures of
    arguments 1 to 3, ``nfds`` bits each), in order, repeats kept; none of a set that
    was NULL or unreadable."""
    nfds = _nfds(ev)
    fds: list[int] = []
    for i in (1, 2, 3):
        entry, _ = _entry_exit(ev, i)
        if entry is not None and ev.args[i]:
            fds += _set_bits(entry.data, nfds)
    return fds


def format_ready(sets: list[bytes | None], nfds: int, ready: int) -> str:
    """select's result after ``=``: ``in [3], out [4]``: the fds of each set written
    back, ``ready`` (the return value) of them in all, in strace's order and form."""
    out, sep = "", ""
    for k, data in enumerate(sets):
        if ready <= 0:
            break
        if data is None:
            continue
        first = True
        for fd in _set_bits(data, nfds):
            if first:
                out += f"{sep}{('in', 'out', 'except')[k]} [{fd}"
                first, sep = False, ", "
            else:
                out += f" {fd}"
            ready -= 1
            if ready == 0:
                break
        if out:
            out += "]"          # after each set once one was printed, as strace does
    return out


def k_ioctlarg_addr(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """ioctl's argument under -e verbose= without ioctl (:func:`k_ioctlarg`)."""
    return k_ioctlarg(d, ev, i, False)


def _ret_poll_addr(d: SyscallDecoder, ev: Syscall, plain: str) -> str:
    """poll/ppoll's result under -e verbose= without them: the timeout said, the fds
    and the time left not read (strace 6.1: ``= 1``, ``= 0 (Timeout)``)."""
    return "0 (Timeout)" if ev.ret == 0 and succeeded(ev) else plain


def _ret_select(timeout_fmt: Callable[[bytes], str | None], deref: bool = True
                ) -> Callable[[SyscallDecoder, Syscall, str], str]:
    def r(d: SyscallDecoder, ev: Syscall, plain: str) -> str:
        if not succeeded(ev):
            return plain
        if ev.ret == 0:
            return "0 (Timeout)"
        sets: list[bytes | None] = []
        for i in (1, 2, 3):
            _, got = _entry_exit(ev, i)
            sets.append(None if ev.args[i] == 0 or got is None else got.data)
        text = format_ready(sets, _nfds(ev), ev.ret)
        # under -e verbose= without the call, strace still reads the sets (its own
        # copy, for the result) but prints the timeout's address
        left = _left(ev, 4, timeout_fmt) if deref else (
            f"left {pointer(ev.args[4])}" if ev.args[4] else None)
        if left:
            text += (", " if text else "") + left
        # strace 6.1 prints its text whatever it holds: "()" when no set could be read
        # back (or none has a ready fd) and there is no timeout
        return f"{ev.ret} ({text})"
    return r


def _ret_old_select(d: SyscallDecoder, ev: Syscall, plain: str) -> str:
    """i386's old select (nr 82): as _newselect's result when its struct was read (its
    words are the record's arguments, SC_INDIRECT), else the plain number."""
    if not ev.flags & SC_INDIRECT:
        return plain
    return _RET_SELECT32(d, ev, plain)


def _k_timeout_in(fmt: Callable[[bytes], str | None]) -> KindFn:
    """A timeout the call reads (and may write back: the entry capture is the first)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        if ev.args[i] == 0:
            return "NULL"
        entry, _ = _entry_exit(ev, i)
        text = None if entry is None else fmt(entry.data)
        return pointer(ev.args[i]) if text is None else text
    return k


def k_sigmask(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A sigset whose size is the next argument (ppoll, epoll_pwait): strace reads it
    only when the size is the kernel's (8), else prints the address."""
    if ev.args[i] == 0:
        return "NULL"
    cap = capture(ev, i)
    if cap is None or i + 1 > 5 or ev.args[i + 1] != SIGSET_SIZE or len(cap.data) < SIGSET_SIZE:
        return pointer(ev.args[i])
    return format_sigset(cap.data[:SIGSET_SIZE], d.flags)


def k_pselect_sig(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """pselect6's ``{sigmask=[USR1], sigsetsize=8}`` (a pointer and a size, fs/select.c;
    io_pgetevents' struct __aio_sigset is the same; the capture holds the set after
    them); the set's address when it was not read or its size is not the kernel's."""
    if ev.args[i] == 0:
        return "NULL"
    cap = capture(ev, i)
    if cap is None or len(cap.data) < 16:
        return pointer(ev.args[i])
    ss, size = struct.unpack_from("<QQ", cap.data)
    if ss and size == SIGSET_SIZE and len(cap.data) >= 16 + SIGSET_SIZE:
        mask = format_sigset(cap.data[16:16 + SIGSET_SIZE], d.flags)
    else:
        mask = pointer(ss)
    return f"{{sigmask={mask}, sigsetsize={size}}}"


# -- epoll

def _epoll_event(data: bytes, off: int, size: int, fl: F.ArchFlags) -> str:
    (events,) = struct.unpack_from("<I", data, off)
    (u64,) = struct.unpack_from("<Q", data, off + size - 8)
    return (f"{{events={_bits(fl.tables.EPOLL_EVENTS, events)}, "
            f"data={{u32={u64 & 0xFFFFFFFF}, u64={u64}}}}}")


def format_epoll_events(data: bytes, n: int, fl: F.ArchFlags, limit: int) -> str | None:
    """``n`` struct epoll_event: ``[{events=EPOLLIN, data={u32=4, u64=4}}, ...]``."""
    size = EPOLL_EVENT_SIZES.get(fl.arch)
    if size is None:
        return None
    out = []
    for k in range(n):
        if k >= limit or (k + 1) * size > len(data):
            out.append("...")
            break
        out.append(_epoll_event(data, k * size, size, fl))
    return "[" + ", ".join(out) + "]"


_EPOLL_CTL_DEL = 2     # include/uapi/linux/eventpoll.h


def _k_epoll_event(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        size = EPOLL_EVENT_SIZES.get(fl.arch, 0)
        cap = capture(ev, i)
        if ev.args[i] == 0:
            return "NULL"
        if cap is None or not size or len(cap.data) < size or \
                ev.args[1] & 0xFFFFFFFF == _EPOLL_CTL_DEL:
            return pointer(ev.args[i])      # DEL ignores the event: strace its address
        return _epoll_event(cap.data, 0, size, fl)
    return k


def _k_epoll_out(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        if ev.args[i] == 0:
            return "NULL"
        cap = capture_out(ev, i)
        if cap is None:
            return pointer(ev.args[i])
        text = format_epoll_events(cap.data, max(ev.ret, 0), fl, elements_shown(d))
        return pointer(ev.args[i]) if text is None else text
    return k


# -- iovec arrays

class IovElem(NamedTuple):
    base: int
    length: int
    data: bytes | None      # None: iov_base unreadable
    # iov_base's read faulted (data None) and these bytes, up to the end of its page,
    # were readable (the memory after them is not)
    cut: bytes | None = None


def parse_iov(data: bytes, pos: int = 0) -> list[IovElem] | None:
    """The ``struct tk_iov_elem`` records of an IOV capture from ``pos``; None when the
    bytes are not such records (a record that runs past the data)."""
    out = []
    while pos < len(data):
        if pos + IOV_ELEM.size > len(data):
            return None
        base, length, got, flags = IOV_ELEM.unpack_from(data, pos)
        pos += IOV_ELEM.size
        if pos + got > len(data):
            return None
        got_bytes = data[pos:pos + got]
        if flags & CAPF_FAULT:
            out.append(IovElem(base, length, None, got_bytes if flags & CAPF_PARTIAL else None))
        else:
            out.append(IovElem(base, length, got_bytes))
        pos += (got + 7) & ~7
    return out


def format_iov(elems: list[IovElem], count: int, total: int | None, limit: int,
               *, more: bool = False, fault_at: int | None = None,
               decode: Callable[[bytes, int], str] | None = None,
               elems_shown: int | None = None) -> str:
    """``[{iov_base="...", iov_len=N}, ...]``: ``count`` elements (the call's iovcnt), of
    which ``elems`` were captured; ``total`` bounds the bytes shown over all elements (a
    read's return value; None: each element's whole length); ``limit`` is strace -s,
    for the bytes of each element and, unless ``elems_shown`` says otherwise
    (:func:`~tracekit.decode.captures.elements_shown`: every one under -v), for the
    number of elements; ``fault_at``: the address of the first element that could not
    be read (``... /* 0x... */``);
    ``decode``: ``(captured bytes, bytes shown) -> text`` of an element's bytes in
    place of a string (netlink messages: tracekit.decode.structs_netlink)."""
    out = []
    left = total
    shown_max = limit if elems_shown is None else elems_shown
    for k in range(count):
        if k >= shown_max:
            out.append("...")
            break
        if k >= len(elems):
            out.append("..." if fault_at is None else f"... /* {fault_at:#x} */")
            break
        e = elems[k]
        shown = e.length if left is None else min(e.length, left)
        if left is not None:
            left -= shown
        # strace reads min(shown, -s + 1) bytes of iov_base in one piece: an element
        # cut by the end of its mapping before them prints as its address
        data = e.data if e.data is not None or e.cut is None or \
            len(e.cut) < min(shown, limit + 1) else e.cut
        if data is None or e.base == 0:
            base = pointer(e.base)
        elif decode is not None:
            base = decode(data[:shown], shown)
        else:
            data = data[:shown]
            base = quote(data, limit=limit, more=len(data) < shown)
        out.append(f"{{iov_base={base}, iov_len={e.length}}}")
    if more and (not out or not out[-1].startswith("...")):
        out.append("...")
    return "[" + ", ".join(out) + "]"


def _array_wraps(addr: int, count: int, size: int) -> bool:
    """An array of ``count`` elements of ``size`` bytes at ``addr`` runs past the end of
    the address space (its size or end overflows 64 bits): strace's print_array then
    prints the address."""
    return count > 0 and addr + count * size >= 1 << 64


#: calls whose buffers strace's -e read= (True) or -e write= (False) dumps from iovecs:
#: the argument that holds them and its capture kind (strace's syscall.c dumpio)
IOV_DUMPS: dict[str, tuple[bool, int]] = {
    "readv": (True, CAP_IOV), "preadv": (True, CAP_IOV), "preadv2": (True, CAP_IOV),
    "recvmsg": (True, CAP_MSGHDR), "recvmmsg": (True, CAP_MMSGHDR),
    "writev": (False, CAP_IOV), "pwritev": (False, CAP_IOV), "pwritev2": (False, CAP_IOV),
    "vmsplice": (False, CAP_IOV), "sendmsg": (False, CAP_MSGHDR),
    "sendmmsg": (False, CAP_MMSGHDR)}


def iov_dump_vectors(ev: Syscall, name: str) -> list[tuple[int, list[IovElem], int]]:
    """The iovec arrays -e read=/write= dumps for call ``name`` (a key of
    :data:`IOV_DUMPS`), as ``(msg_iovlen, elements, bytes)``: the array's count, its
    elements as captured, and how many bytes of them were transferred (a read's result,
    a message's msg_len; a write's: all). One array for readv/writev/sendmsg/recvmsg,
    one per message (``ret`` of them) for sendmmsg/recvmmsg; none when not captured."""
    read, kind = IOV_DUMPS[name]
    caps = [c for c in ev.caps if c.arg == 1 and c.kind == kind and not c.flags & CAPF_FAULT]
    if not caps:
        return []
    # an iovec array not readable whole (CAPF_ELEM_FAULT): strace reads the array in one
    # piece before it dumps, and dumps none of its buffers
    unlimited = 1 << 64
    if kind == CAP_IOV:
        elems = None if caps[-1].flags & CAPF_ELEM_FAULT else parse_iov(caps[-1].data)
        count = ev.args[2] & 0xFFFFFFFF
        return [] if elems is None else [(count, elems, ev.ret if read else unlimited)]
    if kind == CAP_MSGHDR:
        got = None if caps[-1].flags & CAPF_ELEM_FAULT else parse_msghdr(caps[-1].data)
        return [] if got is None else [(got[0][3], got[3], ev.ret if read else unlimited)]
    out = []
    for cap in caps[:max(ev.ret, 0)]:
        got = parse_msghdr(cap.data, MMSGHDR_SIZE)
        if got is None:
            break
        iov = [] if cap.flags & CAPF_ELEM_FAULT else got[3]
        out.append((got[0][3], iov, got[0][7]))
    return out

def _k_iov(*, at_exit: bool, bases: bool = False) -> KindFn:
    """An iovec array; one the call fills in is captured at exit, and a failed call's
    shows its bases as addresses (as strace); a NULL array is ``NULL`` (strace 6.1), an
    empty one elsewhere ``[]``; an array that would wrap the address space (a count of
    2**63) its address. ``bases``: the bases are always addresses (memory of
    another process, or ranges of pages: process_vm_readv's remote iovecs,
    process_madvise's)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        # the last iovec capture of the argument (keyctl's arg3 has others after it)
        cap = next((c for c in reversed(ev.caps) if c.arg == i and c.kind == CAP_IOV), None)
        # NULL is NULL whatever the count (a count of 0 reads nothing: ``[]`` else)
        if cap is None or cap.flags & CAPF_FAULT or not ev.args[i]:
            return pointer(ev.args[i])
        elems = parse_iov(cap.data)
        if elems is None:
            return pointer(ev.args[i])
        if bases or at_exit and not succeeded(ev):
            elems = [e._replace(data=None) for e in elems]
        if _array_wraps(ev.args[i], ev.args[i + 1], 16):
            return pointer(ev.args[i])
        count = min(ev.args[i + 1], 1 << 20)
        fault_at = (ev.args[i] + len(elems) * 16) if cap.flags & CAPF_ELEM_FAULT else None
        return format_iov(elems, count, ev.ret if at_exit else None, d.string_limit,
                          more=bool(cap.flags & CAPF_TRUNC) and len(elems) < count,
                          fault_at=fault_at, elems_shown=elements_shown(d))
    return k


def parse_msghdr(data: bytes, hsize: int = MSGHDR.size
                 ) -> tuple[tuple[int, ...], IovElem, IovElem, list[IovElem]] | None:
    """A MSGHDR capture (``hsize`` 56) or MMSGHDR one (64: msg_len follows the msghdr):
    the msghdr's 7 fields (and msg_len), the msg_name and msg_control records and
    msg_iov's; None when the bytes are not that."""
    if len(data) < hsize:
        return None
    fields = MSGHDR.unpack_from(data)
    if hsize > MSGHDR.size:
        fields += (int.from_bytes(data[MSGHDR.size:MSGHDR.size + 4], "little"),)
    blobs = []
    pos = hsize
    for _ in range(2):
        if pos + IOV_ELEM.size > len(data):
            return None
        got = IOV_ELEM.unpack_from(data, pos)[2]
        end = pos + IOV_ELEM.size + ((got + 7) & ~7)
        rec = parse_iov(data[pos:min(end, len(data))])
        if not rec or len(rec) != 1:
            return None
        blobs.append(rec[0])
        pos = end
    iov = parse_iov(data, pos)
    if iov is None:
        return None
    return fields, blobs[0], blobs[1], iov


_CMSG = struct.Struct("<Qii")                     # struct cmsghdr (64-bit)
_CMSG32 = struct.Struct("<Iii")                   # struct compat_cmsghdr (i386: 4-aligned)


# SOL_IP control message types as strace 6.1 names them (its ip_cmsg_types: the
# IP_* options that ask for them, and 3, SCM_SECURITY, linux/socket.h)
_IP_CMSG_TYPES = {1: "IP_TOS", 2: "IP_TTL", 3: "SCM_SECURITY", 6: "IP_RECVOPTS",
                  7: "IP_RETOPTS", 8: "IP_PKTINFO", 11: "IP_RECVERR", 20: "IP_ORIGDSTADDR",
                  23: "IP_CHECKSUM"}
_SOCK_EE = struct.Struct("<IBBBxII")              # struct sock_extended_err, then offender


def _cmsg_array(items: list[str], elems_shown: int) -> str:
    """strace's print_local_array: at most ``elems_shown`` of ``items``, then ``...``."""
    shown = items[:elems_shown]
    return "[" + ", ".join(shown + ["..."] * (len(items) > elems_shown)) + "]"


def _cmsg_ip(ctype: int, data: bytes, elems_shown: int) -> str:
    """The type and data of a SOL_IP control message as strace 6.1 (msghdr.c):
    ``IP_TTL, cmsg_data=[64]`` (u32s), ``IP_TOS, cmsg_data=[0x10]`` (bytes, as
    IP_RECVOPTS, IP_RETOPTS), IP_PKTINFO's struct in_pktinfo, IP_RECVERR's struct
    sock_extended_err and its offender, IP_ORIGDSTADDR's sockaddr, IP_CHECKSUM's u32s,
    SCM_SECURITY's label; the data only when it is as long as its struct; unnamed types
    ``0x63 /* IP_??? */``."""
    ctype &= 0xFFFFFFFF
    name = _IP_CMSG_TYPES.get(ctype)
    if name is None:
        return f"{hex0(ctype)} /* IP_??? */"
    text = f"{name}, cmsg_data="
    if name in ("IP_TTL", "IP_CHECKSUM") and len(data) >= 4:
        words = struct.unpack_from(f"<{len(data) // 4}I", data)
        return text + _cmsg_array([str(w) for w in words], elems_shown)
    if name in ("IP_TOS", "IP_RECVOPTS", "IP_RETOPTS") and data:
        return text + _cmsg_array([hex0(b) for b in data], elems_shown)
    if name == "IP_PKTINFO" and len(data) >= 12:
        index = int.from_bytes(data[:4], "little")
        dst, addr = ipaddress.IPv4Address(data[4:8]), ipaddress.IPv4Address(data[8:12])
        return (f"{text}{{ipi_ifindex={format_ifindex(index)}, "
                f'ipi_spec_dst=inet_addr("{dst}"), ipi_addr=inet_addr("{addr}")}}')
    if name == "IP_RECVERR" and len(data) >= _SOCK_EE.size + 16:
        errno_, origin, etype, code, info, edata = _SOCK_EE.unpack_from(data)
        return (f"{text}{{ee_errno={errno_}, ee_origin={origin}, ee_type={etype}, "
                f"ee_code={code}, ee_info={info}, ee_data={edata}, "
                f"offender={format_sockaddr(data[_SOCK_EE.size:_SOCK_EE.size + 16])}}}")
    if name == "IP_ORIGDSTADDR" and len(data) >= 16:
        return text + format_sockaddr(data[:128])
    if name == "SCM_SECURITY" and data:
        return text + quote(data)
    return name


# the SOL_SOCKET control messages named after the options that ask for them, and what
# each holds: a timeval, a timespec, three timespecs (SO_TIMESTAMPING's software,
# deprecated, hardware stamps); _OLD: the arch's longs (an i386 call's: 32-bit),
# _NEW: 64-bit on every arch
_SCM_TIMESTAMPS = {"SO_TIMESTAMP_OLD": ("tv", 1), "SO_TIMESTAMPNS_OLD": ("ts", 1),
                   "SO_TIMESTAMPING_OLD": ("ts", 3), "SO_TIMESTAMP_NEW": ("tv64", 1),
                   "SO_TIMESTAMPNS_NEW": ("ts64", 1), "SO_TIMESTAMPING_NEW": ("ts64", 3)}


def _scm_timestamp(name: str, data: bytes, compat: bool) -> str:
    """A timestamp control message's data as strace 6.1: ``{tv_sec=..., tv_usec=...}``,
    ``{tv_sec=..., tv_nsec=...}``, SO_TIMESTAMPING's ``[{...}, {...}, {...}]``; ``???``
    when shorter than that."""
    kind, count = _SCM_TIMESTAMPS[name]
    fmt: Callable[[bytes], str | None]
    if kind in ("tv", "tv64"):
        fmt = format_timeval32 if compat and kind == "tv" else format_timeval
    else:
        fmt = format_timespec32 if compat and kind == "ts" else format_timespec
    size = 8 if compat and kind in ("tv", "ts") else 16
    if len(data) < size * count:
        return "???"
    items = [fmt(data[k * size:(k + 1) * size]) or "???" for k in range(count)]
    return items[0] if count == 1 else "[" + ", ".join(items) + "]"


def format_cmsgs(ctl: IovElem, fl: F.ArchFlags, fd_text: Callable[[int], str] = str, *,
                 compat: bool = False, elems_shown: int = 1 << 30) -> str:
    """msg_control as strace: ``[{cmsg_len=20, cmsg_level=SOL_SOCKET,
    cmsg_type=SCM_RIGHTS, cmsg_data=[5]}]``; the address when unreadable; ``...`` when
    more was there than captured. ``compat``: an i386 call's (struct compat_cmsghdr: u32
    length, 12-byte header, messages 4-aligned; include/net/compat.h).
    ``elems_shown``: SCM_RIGHTS' fds printed before ``...`` (strace's print_array: -s
    of them, all under -v; :func:`~tracekit.decode.captures.elements_shown`)."""
    T = fl.tables
    hdr, align = (_CMSG32, 3) if compat else (_CMSG, 7)
    if ctl.data is None or ctl.length < hdr.size or len(ctl.data) < hdr.size:
        return pointer(ctl.base)
    buf = ctl.data
    left = len(buf)
    pos = 0
    items = []
    while left >= hdr.size:
        clen, level, ctype = hdr.unpack_from(buf, pos)
        n = min(clen, left)
        data = buf[pos + hdr.size:pos + n] if n > hdr.size else b""
        level_name = T.SOL_LEVELS.get(level & 0xFFFFFFFF)
        text = (f"{{cmsg_len={clen}, cmsg_level="
                f"{level_name or f'{level & 0xFFFFFFFF:#x} /* SOL_??? */'}, cmsg_type=")
        if level_name == "SOL_SOCKET":
            tname = T.SCM_TYPES.get(ctype & 0xFFFFFFFF)
            if tname is None and T.SO_NAMES.get(ctype & 0xFFFFFFFF) in _SCM_TIMESTAMPS:
                tname = T.SO_NAMES[ctype & 0xFFFFFFFF]
            text += tname or f"{ctype & 0xFFFFFFFF:#x} /* SCM_??? */"
            if tname in _SCM_TIMESTAMPS and data:
                text += ", cmsg_data=" + _scm_timestamp(tname, data, compat)
            if tname == "SCM_RIGHTS" and len(data) >= 4:
                fds = struct.unpack_from(f"<{len(data) // 4}i", data)
                shown = [fd_text(f) for f in fds[:elems_shown]]
                text += ", cmsg_data=[" + ", ".join(
                    shown + ["..."] * (len(fds) > elems_shown)) + "]"
            elif tname == "SCM_CREDENTIALS" and len(data) >= 12:
                pid, uid, gid = struct.unpack_from("<iII", data)
                text += f", cmsg_data={{pid={pid}, uid={uid}, gid={gid}}}"
            elif tname == "SCM_SECURITY" and data:
                text += ", cmsg_data=" + quote(data)      # the label, whole
        elif level_name == "SOL_IP":
            text += _cmsg_ip(ctype, data, elems_shown)
        else:
            text += hex0(ctype & 0xFFFFFFFF)
        items.append(text + "}")
        if n < hdr.size:
            left -= hdr.size
            break
        step = (clen + align) & ~align
        if step >= left:
            left = 0
            break
        pos += step
        left -= step
    if left:
        items.append(f"... /* {ctl.base + len(buf) - left:#x} */")
    elif len(buf) < ctl.length:
        items.append("...")
    return "[" + ", ".join(items) + "]"


def _namelen_in(ev: Syscall, i: int, compat: bool = False) -> int | None:
    """recvmsg's msg_namelen as the caller set it (the 16-byte entry capture; an i386
    call's: 8 bytes, two u32)."""
    at = 4 if compat else 8
    for c in ev.caps:
        if c.arg == i and c.kind == CAP_STRUCT and not c.flags & CAPF_FAULT and \
                len(c.data) >= at + 4:
            return signed(int.from_bytes(c.data[at:at + 4], "little"), 32)
    return None


def format_msghdr(d: SyscallDecoder, ev: Syscall, got: tuple[tuple[int, ...], IovElem,
                                                               IovElem, list[IovElem]],
                  user_namelen: int | None, data_size: int | None, *, more: bool,
                  elem_fault: bool = False, compat: bool = False) -> str:
    """``{msg_name=..., msg_namelen=..., msg_iov=[...], msg_iovlen=1, msg_controllen=0,
    msg_flags=0}`` from :func:`parse_msghdr`; ``data_size`` bounds the iovecs' bytes (a
    read's return value), ``more``: the iovec array was cut; ``compat``: an i386 call's
    (the BPF program widened its msghdr and iovecs; its iovecs are 8 bytes, its control
    messages i386's)."""
    fl = d.flags
    (name, namelen, iov, iovlen, _control, controllen, mflags), nm, ctl, elems = (
        got[0][:7], got[1], got[2], got[3])
    shown = namelen if user_namelen is None else min(namelen, user_namelen)
    if name == 0:
        name_text = "NULL"
    elif nm.data is None or shown <= 0:
        name_text = pointer(name)
    else:
        name_text = format_sockaddr(nm.data[:shown], fl.tables.ADDRESS_FAMILIES)
    if user_namelen is not None and user_namelen != namelen:
        namelen_text = f"{user_namelen} => {namelen}"
    else:
        namelen_text = str(namelen)
    iov_text = (pointer(iov) if iov and not elems and iovlen else
                "NULL" if iov == 0 else
                format_iov(elems, min(iovlen, 1 << 20), data_size, d.string_limit,
                           more=more and len(elems) < iovlen,
                           fault_at=iov + len(elems) * (8 if compat else 16)
                           if elem_fault else None, decode=iov_decoder(d, ev),
                           elems_shown=elements_shown(d)))
    parts = [f"msg_name={name_text}", f"msg_namelen={namelen_text}", f"msg_iov={iov_text}",
             f"msg_iovlen={iovlen}"]
    if controllen:
        parts.append("msg_control=" + format_cmsgs(ctl, fl, lambda fd: d.fd_text(ev.tgid, fd),
                                                   compat=compat,
                                                   elems_shown=elements_shown(d)))
    parts += [f"msg_controllen={controllen}",
              f"msg_flags={_bits(fl.tables.MSG_FLAGS, mflags & 0xFFFFFFFF)}"]
    return "{" + ", ".join(parts) + "}"


def _k_msghdr(fl: F.ArchFlags, *, at_exit: bool, compat: bool = False) -> KindFn:
    """A msghdr; recvmsg's (``at_exit``) as the call filled it, ``msg_namelen=128 => 16``
    when the call changed it, and ``{msg_namelen=128}`` when the call failed; ``compat``:
    an i386 call's (programs/syscalls.h TK_SPEC_COMPAT: widened by the BPF program)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        user_namelen = _namelen_in(ev, i, compat) if at_exit else None
        if at_exit and not succeeded(ev):
            return pointer(ev.args[i]) if user_namelen is None else \
                f"{{msg_namelen={user_namelen}}}"
        cap = next((c for c in ev.caps if c.arg == i and c.kind == CAP_MSGHDR), None)
        if cap is None or cap.flags & CAPF_FAULT:
            return pointer(ev.args[i])
        got = parse_msghdr(cap.data)
        if got is None:
            return pointer(ev.args[i])
        return format_msghdr(d, ev, got, user_namelen, ev.ret if at_exit else None,
                             more=bool(cap.flags & CAPF_TRUNC),
                             elem_fault=bool(cap.flags & CAPF_ELEM_FAULT), compat=compat)
    return k


def _k_mmsgvec(*, compat: bool = False) -> KindFn:
    """sendmmsg's messages (read at exit, one capture per element): ``[{msg_hdr={...},
    msg_len=28}, ...]``, msg_len for the messages sent (the return value); ``...`` past
    the elements captured or ``-s`` of them. A failed call shows them without msg_len.
    ``compat``: an i386 call's (32-byte compat_mmsghdr, widened by the BPF program)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        caps = [c for c in ev.caps if c.arg == i and c.kind == CAP_MMSGHDR]
        if ev.args[i] == 0 or not caps or ev.flags & (SC_UNFINISHED | SC_NORETURN):
            return pointer(ev.args[i])
        vlen = ev.args[i + 1] & 0xFFFFFFFF if i < 5 else 0
        return _mmsgs(d, ev, i, caps, vlen, ev.ret if succeeded(ev) else 0, compat=compat)
    return k


def _k_mmsgvec_out(*, compat: bool = False) -> KindFn:
    """recvmmsg's messages (read at exit): the ``ret`` messages received, each with its
    msg_len and its iovecs' bytes up to it; the address when the call failed."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        caps = [c for c in ev.caps if c.arg == i and c.kind == CAP_MMSGHDR]
        if ev.args[i] == 0 or not caps or not succeeded(ev):
            return pointer(ev.args[i])
        return _mmsgs(d, ev, i, caps, ev.ret, ev.ret, received=True, compat=compat)
    return k


k_mmsgvec = _k_mmsgvec()
k_mmsgvec_out = _k_mmsgvec_out()


def _mmsgs(d: SyscallDecoder, ev: Syscall, i: int, caps: list[Capture], n: int, done: int,
           *, received: bool = False, compat: bool = False) -> str:
    """``n`` struct mmsghdr of argument ``i``, msg_len for the first ``done``; the
    address when the first cannot be read; ``compat``: i386's (32 bytes each)."""
    stride = 32 if compat else MMSGHDR_SIZE
    out = []
    for k in range(n):
        if k >= elements_shown(d) or k >= len(caps):
            out.append("...")
            break
        cap = caps[k]
        got = None if cap.flags & CAPF_FAULT else parse_msghdr(cap.data, MMSGHDR_SIZE)
        if got is None:
            if k == 0:                  # nothing of the array could be read
                return pointer(ev.args[i])
            out.append(pointer(ev.args[i] + k * stride))
            break
        text = "{msg_hdr=" + format_msghdr(d, ev, got, None,
                                           got[0][7] if received else None,
                                           more=bool(cap.flags & CAPF_TRUNC),
                                           elem_fault=bool(cap.flags & CAPF_ELEM_FAULT),
                                           compat=compat)
        if k < done:
            text += f", msg_len={got[0][7]}"
        out.append(text + "}")
    return "[" + ", ".join(out) + "]"


def k_rwf_next(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """preadv2/pwritev2's flags, printed where pos_h is (strace prints the offset, then the
    flags: pos_h is not an argument of its own on 64-bit)."""
    return _bits(d.flags.tables.RWF_FLAGS, ev.args[i + 1] & 0xFFFFFFFF, "RWF_???") \
        if i < 5 else "0"


def k_stop(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """The arguments end here."""
    return None


def kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, int], str | None]]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {
        "ioctlreq": lambda d, ev, i: ioctl_name(fl, ev.args[i]),
        "ioctlarg": k_ioctlarg,
        "ioctlarg_addr": k_ioctlarg_addr,
        "pollfds": _k_pollfds(fl),
        "fdset": k_fdset,
        "timeout_ts": _k_timeout_in(format_timespec),
        "timeout_ts32": _k_timeout_in(format_timespec32),
        "timeout_tv": _k_timeout_in(format_timeval),
        "timeout_tv32": _k_timeout_in(format_timeval32),
        "sigmask": k_sigmask,
        "pselect_sig": k_pselect_sig,
        "epollevent": _k_epoll_event(fl),
        "epollevents": _k_epoll_out(fl),
        "iovw": _k_iov(at_exit=False),
        "iovr": _k_iov(at_exit=True),
        "iovaddr": _k_iov(at_exit=False, bases=True),
        "msghdr_in": _k_msghdr(fl, at_exit=False),
        "msghdr_out": _k_msghdr(fl, at_exit=True),
        # an i386 call's (tracekit.decode.args maps msghdr_in/out to these for them)
        "msghdr_in32": _k_msghdr(fl, at_exit=False, compat=True),
        "msghdr_out32": _k_msghdr(fl, at_exit=True, compat=True),
        "mmsgvec32": _k_mmsgvec(compat=True), "mmsgvec_out32": _k_mmsgvec_out(compat=True),
        "mmsgvec": k_mmsgvec,
        "rwf_next": k_rwf_next,
        "stop": k_stop, "mmsgvec_out": k_mmsgvec_out,
        "msgflags": lambda d, ev, i: _bits(fl.tables.MSG_FLAGS, ev.args[i] & 0xFFFFFFFF),
        "epollflags": lambda d, ev, i: _bits(fl.tables.EPOLL_CREATE_FLAGS,
                                             ev.args[i] & 0xFFFFFFFF, "EPOLL_???"),
    }


_RET_SELECT32 = _ret_select(format_timeval32)


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds: (decoder, record, the plain return text) -> the text strace prints
    after ``=``."""
    return {
        "poll": _ret_poll(fl, None),
        "recvmmsg": _ret_left(4),
        "recvmmsg32": _ret_left(4, format_timespec32),
        "ppoll": _ret_poll(fl, 2),
        "select": _ret_select(format_timeval),
        "select32": _ret_select(format_timeval32),
        "oldselect": _ret_old_select,
        "pselect": _ret_select(format_timespec),
        # -e verbose= without the call (SyscallDecoder.set_deref)
        "poll_addr": _ret_poll_addr,
        "select_addr": _ret_select(format_timeval, deref=False),
        "select32_addr": _ret_select(format_timeval32, deref=False),
        "pselect_addr": _ret_select(format_timespec, deref=False),
    }
