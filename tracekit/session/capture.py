"""The beauty map: which syscall arguments the BPF tracer reads from user memory.

Per native syscall nr, up to ``TK_BEAUTY_SPECS`` capture specs (``struct tk_beauty_spec``
in programs/syscalls.h) go into the ``beauty`` ARRAY map of ``syscalls.bpf.o``; the
sys_enter/sys_exit programs read the memory and append ``struct tk_cap`` captures to the
syscall record (decoded into ``Syscall.caps`` by tracekit/_events.py).

Where the specs come from::

    tracefs sys_enter_<name>/format ──► argument list (index, name, C type) ──┐
      (syscall_args_of: __data_loc fields of 6.19 never shift indices,         │
       kernel rule 10)                                                         ├─► specs
    OVERRIDES (below): what a format cannot say: which pointer is a buffer     │   per nr
      with which length argument, which struct has which size, what is read ───┘
      at exit (the call fills it)

- STR: a ``const char *`` argument whose name is in ``STRING_ARGS`` (paths and names),
  or a ``char *`` one in ``CHAR_P_STRING_ARGS``,
  cap ``STR_CAP`` = PATH_MAX; syscalls listed in ``OVERRIDES`` take only the override's
  specs.
- Arguments are found by NAME in the format, so a kernel that reorders or renames them is
  seen: an override naming an argument the format lacks is skipped (``missing`` in
  ``build_specs``' result), never guessed by position.

32-bit calls (x86_64: ``int $0x80``, or a 32-bit task) have specs of their own, keyed by
the i386 nr in the ``beauty32`` map (:func:`build_specs32`). tracefs describes only the
native calls, so they come from the decoder's prototypes (``tracekit.decode.argspec``,
which lists the i386 calls too), restricted to what reads the same in both ABIs: C
strings, byte buffers (``write``'s, ``read``'s) and socket addresses; and, for the calls
of ``SAME_LAYOUT32``, whose memory has the native layout in both ABIs (``statx``,
``rlimit64``, ``linux_dirent64``, ``pollfd``, the 64-bit timespec of the ``*_time64``
calls...), the native call's captures. A struct with longs or pointers in it
(``stat64``, an iovec, argv) has another layout there: it is not captured, and prints as
an address.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from tracekit._errors import TracekitError
from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_COUNT,
    CAP_ENVP,
    CAP_FD,
    CAP_IOCB,
    CAP_IOV,
    CAP_MMSGHDR,
    CAP_MSGHDR,
    CAP_STR,
    CAP_STRUCT,
)
from tracekit.decode.argspec import SAME_LAYOUT32
from tracekit.decode.ops import (
    CLONE_ARGS_CAP,
    CLONE_ARGS_SIZE,
    F_OWNER_EX_SIZE,
    FLOCK32_SIZE,
    FLOCK_SIZE,
    KCMP_EPOLL_SLOT_SIZE,
    QUOTA_IN_SIZES,
    QUOTA_OUT_SIZES,
)
from tracekit.decode.structs_aio import (
    IO_EVENT_SIZE,
    IO_URING_PARAMS_SIZE,
    IOCB_BUF_CAP,
    IOCB_SIZE,
    URING_REG_ARRAYS,
    URING_REG_BYTES_CAP,
    URING_REG_HEADS,
    URING_RSRC_PTRS,
)
from tracekit.decode.structs_bpf import (
    BPF_ATTR_CAP,
    BPF_ATTR_OUT_CAP,
    BPF_ATTR_STR_CAP,
    BPF_PTR_BUF_CAP,
    BPF_PTR_STR_CAP,
)
from tracekit.decode.structs_cbpf import FPROG_FILTER_AT, FPROG_SIZE, GET_FILTER_CAP
from tracekit.decode.structs_compat import KINDS32_SIZES
from tracekit.decode.structs_cred import CAP_DATA_SIZE, CAP_HEADER_SIZE
from tracekit.decode.structs_fs import (
    FILE_HANDLE_SIZE,
    LANDLOCK_PATH_BENEATH_SIZE,
    LANDLOCK_RULESET_HEAD,
    OPEN_HOW_SIZE,
    UTIMBUF_SIZE,
)
from tracekit.decode.structs_io import EPOLL_EVENT_SIZES, IOCTL_ARGS, IOCTL_STRUCT_CAP
from tracekit.decode.structs_ipc import (
    MQ_ATTR_SIZE,
    MSGBUF_SIZE,
    MSQID_DS_SIZE,
    SEMBUF_SIZE,
    SEMID_DS_SIZE as _SEMID_DS_SIZES,
    SHMID_DS_SIZE,
)
from tracekit.decode.structs_key import PKEY_PARAMS_SIZE
from tracekit.decode.structs_net import SETSOCKOPT_FIXED
from tracekit.decode.structs_perf import PERF_ATTR_HEAD_SIZE, PERF_ATTR_SIZE
from tracekit.decode.structs_proc import (
    RUSAGE_SIZE,
    SIGACTION_SIZE as _SIGACTION_SIZES,
    SIGEVENT_SIZE,
    SIGINFO_SIZE,
    SIGSET_SIZE,
    STACK_T_SIZE,
    TIMEVAL_SIZE,
    TIMEZONE_SIZE,
)
from tracekit.decode.structs_task import (
    FUTEX_WAITV_MAX,
    FUTEX_WAITV_SIZE,
    KEXEC_SEGMENT_MAX,
    KEXEC_SEGMENT_SIZE,
    NODEMASK_CAP,
    SCHED_ATTR_SIZE,
    SCHED_ATTR_SIZE_VER0,
    TIMEX_SIZE,
    USER_DESC_SIZE,
)
from tracekit.kernel.arch import machine_arch
from tracekit.kernel.syscall_protos import shipped_args
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import (
    EVENT_ALIASES,
    Field,
    boot_arg_table,
    readable_tracefs,
    syscall_args_lookup,
    syscall_args_of,
)

if TYPE_CHECKING:
    from tracekit.bpf.object import BpfObject

__all__ = [
    "BEAUTY_SPECS",
    "BUF_CAP",
    "OVERRIDES",
    "STRING_ARGS",
    "CHAR_P_STRING_ARGS",
    "CapSpec",
    "build_specs",
    "build_specs32",
    "fill_beauty32_map",
    "fill_beauty_map",
    "with_data_bytes",
    "ring_bytes_for_data",
    "fill_ioctl_map",
    "size_ioctl_map",
    "pack_specs",
    "specs_for",
]

log = logging.getLogger("tracekit.beautymap")

# keep in sync with programs/syscalls.h (struct tk_beauty_spec, TK_*)
BEAUTY_SPECS = 8
LEN_NONE, LEN_RET = 0xFF, 0xFE
SPEC_AT_EXIT = 1
# lengths of I/O and socket captures (tk_spec_len in programs/syscalls.bpf.c); with a
# length argument (or ret) and size != 0 the length is that value times size
SPEC_IOCTL = 2           # len_arg is the ioctl request: size from the ioctl_sizes map
SPEC_FDSET = 4           # len_arg is select's nfds: the fd_set's bytes
SPEC_LEN_PTR = 8         # len_arg points to the int length (addrlen, optlen)
SPEC_DEREF = 16          # a struct whose first word points to more to read (size, cap)
SPEC_FD_PAIR = 32        # CAP_FD: the argument points to int[2] (pipe, socketpair)
SPEC_COMPAT = 64         # CAP_IOV/CAP_MSGHDR of an i386 call: its iovecs (8 bytes) and
                         # msghdr (28) are i386's, widened into the native layout
SPEC_PTR_AT = 128        # issue 12: capture what the pointer at byte offset size of the
                         # struct points to (len_arg: byte offset of its __u32 length)
DEREF_HEAD = 16          # struct tk_deref_head
DEREF_MAX = 1024         # TK_DEREF_MAX
IOCB_N, IOCB_BUF_MAX = 8, 64     # TK_IOCB_N, TK_IOCB_BUF_MAX
IOCB_ELEM = 16           # struct tk_iocb_elem
# what may follow an iocb: a PWRITE's bytes, or TK_IOCB_IOV_N iovec records (24 bytes)
# with TK_IOCB_IOV_BUF_MAX bytes each
IOCB_AFTER_MAX = max(IOCB_BUF_MAX, 4 * (24 + 40))
FD_DESC_SIZE = 216       # struct tk_fd_desc
IOCTL_IN, IOCTL_OUT = 1 << 16, 1 << 17     # ioctl_sizes values: size | direction
IOV_ELEM_MAX = 1024      # TK_IOV_ELEM_MAX: bytes of one iovec element
# TK_IOV_ELEM_BIG: an element that starts within IOV_POS_BIG (512) bytes of its capture's
# data (the first, after a msghdr's header and blobs) may bring up to this many: 4096
# less its 24-byte record and those 512
IOV_ELEM_BIG = 4096 - 24 - 512
# the most bytes of records an IOV/MSGHDR capture adds to its data: 32 iovec records,
# an mmsghdr and the msg_name and msg_control records with their bytes, each padded
_IOV_RECORDS = 32 * (24 + 8) + 64 + 2 * (24 + 128)
MMSG_N = 4               # sendmmsg: messages shown (TK_MMSG_N bounds the index)
STR_MAX, BUF_MAX, ARGV_MAX, ARGV_ELEM_MAX = 4096, 4096, 3072, 1024
_SPEC = struct.Struct("<BBBBHH")                  # struct tk_beauty_spec, 8 bytes
# programs/syscalls.bpf.c: a capture starts at caps_len <= TK_CAP_OFF_MAX
_CAP_OFF_MAX = 16184 - (8 + STR_MAX + 8)

PR_SET_SECCOMP = 22      # include/uapi/linux/prctl.h
PRCTL_NAME_CAP = 16      # TASK_COMM_LEN: PR_SET_NAME / PR_GET_NAME
PTRACE_DATA_CAP = 512    # x86_64's struct user_fpregs_struct (PTRACE_GETFPREGS), the largest
PTRACE_REGS_CAP = 216    # x86_64's struct user_regs_struct (PTRACE_SETREGS)
ITIMER_SIZE = 32         # struct itimerspec / struct itimerval (two pairs of longs)
GIDS_CAP = 1024          # 256 gid_t: as many as strace shows with -s 256, or -v
DIRENT_RECLEN_AT = 16    # offset of d_reclen in struct linux_dirent64
STR_CAP = 4096           # PATH_MAX (include/uapi/linux/limits.h), with its NUL
BUF_CAP = 256            # a generous strace -s
SOCKADDR_CAP = 128       # sizeof(struct sockaddr_storage)
TIMESPEC_SIZE = 16       # struct __kernel_timespec
MINCORE_CAP = 32         # mincore's vector bytes: strace shows 32 (its -s) then "..."
ARGV_CAP = 3072          # all of argv's elements with their NULs
ARGV_ELEM_CAP = 1024     # one argv element
# struct sigaction differs per arch (x86_64 has sa_restorer): structs_proc.SIGACTION_SIZE
SIGACTION_SIZE = _SIGACTION_SIZES.get(machine_arch(), 0)
# struct stat (arch/x86/include/uapi/asm/stat.h; arm64: asm-generic/stat.h)
STAT_SIZE = {"x86_64": 144, "arm64": 128}.get(machine_arch(), 0)
SEMID_DS_SIZE = _SEMID_DS_SIZES.get(machine_arch(), 0)
# sizes of the structs of tracekit/decode/structs_fs.py (64-bit)
STATX_SIZE = 256         # struct statx, include/uapi/linux/stat.h
STATFS_SIZE = 120        # struct statfs, asm-generic/statfs.h (long words)
RLIMIT_SIZE = 16         # struct rlimit64 / 64-bit struct rlimit
UTSNAME_SIZE = 390       # struct new_utsname: 6 x 65 chars
SYSINFO_SIZE = 112       # struct sysinfo, include/uapi/linux/sysinfo.h
TMS_SIZE = 32            # struct tms
OPEN_HOW_CAP = 4096      # struct open_how (24 bytes) and what a newer one may add: strace
                         # looks for bytes that are not 0 up to a page
EPOLL_EVENT_SIZE = EPOLL_EVENT_SIZES.get(machine_arch(), 0)     # packed on x86_64
# execve's envp pointer array, to count it: a big read and a small one, since a read
# that runs past the end of the mapping faults as a whole (the small one then holds the
# NULL of a short environment); 2048 bytes count up to 255 variables.
ENVP_BIG, ENVP_SMALL = 2048, 256
# ... and, when both miss (an array of more than 31 pointers within 2048 bytes of the end
# of its mapping: dash's environment on its heap, so every PATH search of a shell), the
# array walked pointer by pointer as TK_CAP_ENVP walks it, each string kept as at most 2
# bytes and its NUL (ENVP_COUNT_ELEM + 1): never a read past the NULL, and the count is
# the number of strings (up to TK_ENVP_N = 256). A successful execve recounts from the
# new image (tk_cap_new_envp): this is what a failed one has.
ENVP_COUNT_ELEM = 1
ENVP_COUNT_CAP = 256 * (ENVP_COUNT_ELEM + 2)

# const char * arguments that are C strings (paths and names); names from the tracefs
# formats of Linux 6.18 (SYSCALL_DEFINE parameter names).
STRING_ARGS = frozenset({
    "filename", "pathname", "path", "oldname", "newname", "name", "specialfile", "uname",
    "u_name", "to_pathname", "from_pathname", "special", "put_old", "new_root", "_type",
    "_description", "_fs_name", "_callout_info", "name_user", "uargs", "library",
})
# ``char *`` (not const) arguments that are C strings: mount's, umount's and utime(s)'s.
# Not ``name``: sethostname/setdomainname take ``char *name`` with a length (a buffer).
CHAR_P_STRING_ARGS = frozenset({"dev_name", "dir_name", "type", "filename"})


class CapSpec(NamedTuple):
    """One capture: ``struct tk_beauty_spec``.

    ``len_arg`` is the index of the argument holding the length (BUF, STRUCT), LEN_NONE
    (fixed ``size``) or LEN_RET (the return value, read at exit). ``cap`` is in bytes;
    for ARGV it bounds all elements and ``size`` one element.
    """

    arg: int
    kind: int
    len_arg: int = LEN_NONE
    flags: int = 0
    cap: int = 0
    size: int = 0

    def pack(self) -> bytes:
        return _SPEC.pack(self.arg, self.kind, self.len_arg, self.flags, self.cap, self.size)

    def footprint(self) -> int:
        """The most bytes this capture adds to a record (header, data, padding)."""
        if self.kind == CAP_COUNT:
            return 8 + 8
        if self.kind == CAP_FD:
            return 8 + (2 if self.flags & SPEC_FD_PAIR else 1) * FD_DESC_SIZE
        if self.flags & SPEC_PTR_AT:
            # the head, then cap bytes (a string: cap + 2 read, cap kept)
            return 8 + DEREF_HEAD + ((min(self.cap, DEREF_MAX) + 2 + 7) & ~7)
        if self.kind == CAP_IOCB:
            return 8 + IOCB_N * (IOCB_ELEM + IOCB_SIZE + IOCB_AFTER_MAX)
        cap = {CAP_STR: STR_MAX, CAP_ARGV: ARGV_MAX, CAP_ENVP: ARGV_MAX}.get(self.kind,
                                                                             BUF_MAX)
        if self.kind in (CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR):
            # data bounded by cap, plus the records: 32 iovecs, the header, name and
            # control (programs/syscalls.bpf.c), all within TK_BUF_MAX
            return 8 + min(BUF_MAX, self.cap + _IOV_RECORDS)
        return 8 + ((min(self.cap, cap) + 7) & ~7)


class _Override(NamedTuple):
    """A spec by argument NAME: ``length`` is an argument name, "ret", or None (fixed)."""

    arg: str
    kind: int
    length: str | int | None = None     # an argument, "ret", None, or a raw len_arg
    cap: int = 0
    size: int = 0
    at_exit: bool = False
    flags: int = 0          # SPEC_IOCTL, SPEC_FDSET, SPEC_LEN_PTR


def _ptr_at(offset: int, when: int | None = None) -> int:
    """A SPEC_PTR_AT spec's size: the pointer's byte offset in the struct, and the value
    of args[0] (its low byte) the capture is read for (None: every call)."""
    return offset | (0 if when is None else ((when & 0xFF) + 1) << 8)


def _fprog(arg: str, when: int | None = None) -> tuple[_Override, _Override]:
    """A classic BPF program (struct sock_fprog at ``arg``): what its filter pointer
    points to, DEREF_MAX bytes (128 instructions; those up to the end of their page when
    the read faults: a program cut by the end of its mapping), whatever its ``len`` (the
    capture's length is in bytes, not instructions): tracekit/decode/structs_cbpf.py,
    which takes ``len`` from the struct's own capture. Read at entry and again at exit:
    a program in pages the process has not touched yet (a static one, after fork) is
    readable only once the call has copied it. ``when``: only for calls whose first
    argument's low byte is this (the seccomp operation, the prctl option)."""
    entry, exit_ = (_Override(arg, CAP_BUF, None, DEREF_MAX, _ptr_at(FPROG_FILTER_AT, when),
                              at_exit, SPEC_PTR_AT) for at_exit in (False, True))
    return entry, exit_


def _buf(arg: str, length: str, *, at_exit: bool = False) -> _Override:
    return _Override(arg, CAP_BUF, length, BUF_CAP, 0, at_exit)


def _sockaddr(arg: str, length: str) -> _Override:
    return _Override(arg, CAP_STRUCT, length, SOCKADDR_CAP)


def _fd(arg: str, *, at_exit: bool = False, ret: bool = False,
        pair: bool = False) -> _Override:
    """What an fd is, read in the kernel (programs/syscalls.h TK_CAP_FD): the fd in
    ``arg``, the return value (``ret``), or the two fds ``arg`` points to (``pair``,
    read at exit); at entry, or at exit (the state the call left)."""
    return _Override(arg, CAP_FD, "ret" if ret else None, 0, 0, at_exit or ret or pair,
                     SPEC_FD_PAIR if pair else 0)


# rt_sigreturn's pseudo-argument 0: the signal frame's uc_sigmask (set by tk_sys_enter)
SIGFRAME_MASK_ARG = "uc_sigmask"


def _fixed(arg: str, size: int, *, at_exit: bool = False) -> _Override:
    return _Override(arg, CAP_STRUCT, None, size, size, at_exit)


def _argv(arg: str) -> _Override:
    return _Override(arg, CAP_ARGV, None, ARGV_CAP, ARGV_ELEM_CAP)


def _str(arg: str) -> _Override:
    return _Override(arg, CAP_STR, None, STR_CAP)


POLLFD_SIZE = 8          # struct pollfd
POLL_CAP = 1024          # 128 pollfds
FDSET_CAP = 128          # FD_SETSIZE (1024) bits


def _array(arg: str, length: str, size: int, at_exit: bool = False) -> _Override:
    """An array of ``length`` (an argument or "ret") elements of ``size`` bytes."""
    return _Override(arg, CAP_BUF, length, POLL_CAP, size, at_exit)


def _fdsets(*args: str, at_exit: bool = False) -> tuple[_Override, ...]:
    """select's fd_sets: ``n`` bits each, read in longs as the kernel does."""
    return tuple(_Override(a, CAP_BUF, "n", FDSET_CAP, 0, at_exit, SPEC_FDSET) for a in args)


def _ioctl(*, at_exit: bool) -> _Override:
    """ioctl's argument: the size and direction of its request (``fill_ioctl_map``)."""
    return _Override("arg", CAP_STRUCT, "cmd", IOCTL_STRUCT_CAP, 0, at_exit, SPEC_IOCTL)


def _iov(arg: str, *, at_exit: bool = False, length: str = "vlen",
         elem_cap: int = BUF_CAP) -> _Override:
    """An iovec array of ``length`` elements, each element's bytes up to ``elem_cap``
    (0: the elements' bases and lengths only)."""
    return _Override(arg, CAP_IOV, length, BUF_MAX, elem_cap, at_exit)


def _nodemask(arg: str, *, at_exit: bool = False, longs: tuple[int, ...] = (1, 2, 3, 4)
              ) -> tuple[_Override, ...]:
    """A NUMA node mask of maxnode bits: maxnode bytes (at least the mask's: NODEMASK_CAP
    at most), and its first ``longs`` longs (structs_task: the longest read that did not
    fault wins; one that faulted tells where the mask's memory ends)."""
    return (_Override(arg, CAP_BUF, "maxnode", NODEMASK_CAP, 0, at_exit),
            *(_fixed(arg, 8 * n, at_exit=at_exit) for n in longs))


def _addr_out(addr: str, addrlen: str) -> tuple[_Override, ...]:
    """A sockaddr the call fills in and its in/out length (accept, getsockname)."""
    return (_fixed(addrlen, 4), _fixed(addrlen, 4, at_exit=True),
            _Override(addr, CAP_STRUCT, addrlen, SOCKADDR_CAP, 0, True, SPEC_LEN_PTR))


def _envp_strings(elem_cap: int, arg: str = "envp") -> _Override:
    """execve's environment strings (strace -v): all of them in ``ARGV_CAP`` bytes, each
    cut at ``elem_cap`` bytes (TK_CAP_ENVP, up to 256 of them). strace -v prints every
    element of argv too (without it, as many as -s says): ``arg="argv"`` reads argv so."""
    return _Override(arg, CAP_ENVP, None, ARGV_CAP, max(1, min(elem_cap, ARGV_ELEM_CAP)))


def _envp_count() -> _Override:
    """execve's envp walked to count it (``ENVP_COUNT_CAP``): strings of at most
    ``ENVP_COUNT_ELEM`` + 1 bytes, the decoder counts them (structs_fs.k_envp)."""
    return _Override("envp", CAP_ENVP, None, ENVP_COUNT_CAP, ENVP_COUNT_ELEM)


# What the formats cannot tell, by tracefs event name (argument names as in the format).
# A syscall listed here takes exactly these specs (no STRING_ARGS guess). envp's strings
# are not captured by default: strace shows it as a pointer and a count, so only its
# pointer array is read (after argv, which keeps its room in the record), and walked
# with 2 bytes of each string when the array reads miss (_envp_count); strace -v reads
# the strings instead (specs_for's envp_strings).
OVERRIDES: dict[str, tuple[_Override, ...]] = {
    "execve": (_str("filename"), _argv("argv"), _fixed("envp", ENVP_BIG),
               _fixed("envp", ENVP_SMALL), _envp_count()),
    "execveat": (_str("filename"), _argv("argv"), _fixed("envp", ENVP_BIG),
                 _fixed("envp", ENVP_SMALL), _envp_count()),
    "write": (_buf("buf", "count"),),
    # mount's paths whole, its type and data as strace's printstr shows them (cut at the
    # string limit: BUF_CAP bytes tell a long one), so four strings fit a record
    "mount": (_str("dev_name"), _str("dir_name"), _Override("type", CAP_STR, None, BUF_CAP),
              _Override("data", CAP_STR, None, BUF_CAP)),
    "umount": (_str("name"),),
    "pwrite64": (_buf("buf", "count"),),
    "read": (_buf("buf", "ret", at_exit=True),),                 # filled by the call
    "pread64": (_buf("buf", "ret", at_exit=True),),
    "readlink": (_str("path"), _buf("buf", "ret", at_exit=True)),
    "readlinkat": (_str("pathname"), _buf("buf", "ret", at_exit=True)),
    "sendto": (_buf("buff", "len"), _sockaddr("addr", "addr_len"), _fd("fd")),
    # sockets and pipes as strace -yy shows them, read in the call (TK_CAP_FD): the
    # socket as the call found it and as it left it; a new fd as the call made it
    "connect": (_sockaddr("uservaddr", "addrlen"), _fd("fd"), _fd("fd", at_exit=True)),
    "bind": (_sockaddr("umyaddr", "addrlen"), _fd("fd"), _fd("fd", at_exit=True)),
    "listen": (_fd("fd"), _fd("fd", at_exit=True)),
    "socket": (_fd("family", ret=True),),
    # the request, and the time left that a sleep cut short by a signal writes
    "nanosleep": (_fixed("rqtp", TIMESPEC_SIZE), _fixed("rmtp", TIMESPEC_SIZE, at_exit=True)),
    "clock_nanosleep": (_fixed("rqtp", TIMESPEC_SIZE),
                        _fixed("rmtp", TIMESPEC_SIZE, at_exit=True)),
    # wait status and rusage, signal structs, clock outputs
    # (layouts and sizes in tracekit/decode/structs_proc.py)
    "wait4": (_fixed("stat_addr", 4, at_exit=True), _fixed("ru", RUSAGE_SIZE, at_exit=True)),
    "waitid": (_fixed("infop", SIGINFO_SIZE, at_exit=True),
               _fixed("ru", RUSAGE_SIZE, at_exit=True)),
    "rt_sigprocmask": (_fixed("nset", SIGSET_SIZE), _fixed("oset", SIGSET_SIZE, at_exit=True)),
    "sigaltstack": (_fixed("uss", STACK_T_SIZE), _fixed("uoss", STACK_T_SIZE, at_exit=True)),
    "clock_gettime": (_fixed("tp", TIMESPEC_SIZE, at_exit=True),),
    "clock_getres": (_fixed("tp", TIMESPEC_SIZE, at_exit=True),),
    "clock_settime": (_fixed("tp", TIMESPEC_SIZE),),
    # the two times utimensat sets (struct timespec[2]), read at entry
    "utimensat": (_str("filename"), _fixed("utimes", 2 * TIMESPEC_SIZE)),
    # ... and those utimes and futimesat set (struct timeval[2])
    "utimes": (_str("filename"), _fixed("utimes", 2 * TIMEVAL_SIZE)),
    "futimesat": (_str("filename"), _fixed("utimes", 2 * TIMEVAL_SIZE)),
    # ... and utime's struct utimbuf (two longs)
    "utime": (_str("filename"), _fixed("times", UTIMBUF_SIZE)),
    "time": (_fixed("tloc", 8, at_exit=True),),
    "gettimeofday": (_fixed("tv", TIMEVAL_SIZE, at_exit=True),),
    "settimeofday": (_fixed("tv", TIMEVAL_SIZE), _fixed("tz", TIMEZONE_SIZE)),
    "getresuid": tuple(_fixed(a, 4, at_exit=True) for a in ("ruidp", "euidp", "suidp")),
    "getresgid": tuple(_fixed(a, 4, at_exit=True) for a in ("rgidp", "egidp", "sgidp")),
    "sched_getaffinity": (_buf("user_mask_ptr", "ret", at_exit=True),),
    "sched_setaffinity": (_buf("user_mask_ptr", "len"),),
    "sched_rr_get_interval": (_fixed("interval", TIMESPEC_SIZE, at_exit=True),),
    "getcpu": (_fixed("cpup", 4, at_exit=True), _fixed("nodep", 4, at_exit=True)),
    # mincore's vector: one byte a page, as many as strace shows (MINCORE_CAP)
    "mincore": (_fixed("vec", MINCORE_CAP, at_exit=True),),
    # the mask rt_sigreturn restores (no tracefs argument: the
    # BPF side puts the frame's uc_sigmask address in args[0], programs/syscalls.h)
    "rt_sigreturn": (_fixed(SIGFRAME_MASK_ARG, SIGSET_SIZE),),
    **({
        "rt_sigaction": (_fixed("act", SIGACTION_SIZE), _fixed("oact", SIGACTION_SIZE,
                                                               at_exit=True)),
    } if SIGACTION_SIZE else {}),
    **({
        "newstat": (_str("filename"), _fixed("statbuf", STAT_SIZE, at_exit=True)),
        "newlstat": (_str("filename"), _fixed("statbuf", STAT_SIZE, at_exit=True)),
        "newfstat": (_fixed("statbuf", STAT_SIZE, at_exit=True),),
        "newfstatat": (_str("filename"), _fixed("statbuf", STAT_SIZE, at_exit=True)),
    } if STAT_SIZE else {}),
    # files and system: structs the call fills in, read at exit
    "statx": (_str("filename"), _fixed("buffer", STATX_SIZE, at_exit=True)),
    "statfs": (_str("pathname"), _fixed("buf", STATFS_SIZE, at_exit=True)),
    "fstatfs": (_fixed("buf", STATFS_SIZE, at_exit=True),),
    # getdents64: its entries counted in the kernel (d_reclen at 16 of each
    # linux_dirent64, include/linux/dirent.h), not copied
    "getdents64": (_Override("dirent", CAP_COUNT, "ret", 4, DIRENT_RECLEN_AT, True),),
    # ... and the old getdents: struct linux_dirent has d_reclen at 16 too
    "getdents": (_Override("dirent", CAP_COUNT, "ret", 4, DIRENT_RECLEN_AT, True),),
    "prlimit64": (_fixed("new_rlim", RLIMIT_SIZE), _fixed("old_rlim", RLIMIT_SIZE,
                                                          at_exit=True)),
    "getrlimit": (_fixed("rlim", RLIMIT_SIZE, at_exit=True),),
    "setrlimit": (_fixed("rlim", RLIMIT_SIZE),),
    "newuname": (_fixed("name", UTSNAME_SIZE, at_exit=True),),
    "sysinfo": (_fixed("info", SYSINFO_SIZE, at_exit=True),),
    "times": (_fixed("tbuf", TMS_SIZE, at_exit=True),),
    "getrusage": (_fixed("ru", RUSAGE_SIZE, at_exit=True),),
    "pipe": (_fixed("fildes", 8, at_exit=True), _fd("fildes", pair=True)),
    "pipe2": (_fixed("fildes", 8, at_exit=True), _fd("fildes", pair=True)),
    "getcwd": (_Override("buf", CAP_BUF, "ret", BUF_MAX, 0, True),),
    # extended attributes: the value a set call reads, the value or the list of names a
    # get or list call writes (decoders: tracekit/decode/structs_fs.py)
    **{name: (_str("pathname"), _str("name"), _buf("value", "size"))
       for name in ("setxattr", "lsetxattr")},
    "fsetxattr": (_str("name"), _buf("value", "size")),
    **{name: (_str("pathname"), _str("name"), _buf("value", "ret", at_exit=True))
       for name in ("getxattr", "lgetxattr")},
    "fgetxattr": (_str("name"), _buf("value", "ret", at_exit=True)),
    **{name: (_str("pathname"), _buf("list", "ret", at_exit=True))
       for name in ("listxattr", "llistxattr")},
    "flistxattr": (_buf("list", "ret", at_exit=True),),
    # openat2's struct open_how (24 bytes), then as many bytes as its size says (up to
    # OPEN_HOW_CAP): strace reads the two apart, and prints the struct with ``???``
    # when what follows it is unreadable
    "openat2": (_str("filename"), _Override("how", CAP_STRUCT, "usize", OPEN_HOW_SIZE),
                _Override("how", CAP_STRUCT, "usize", OPEN_HOW_CAP)),
    # struct file_handle: its handle_bytes as set at entry, the handle written at exit
    # (EOVERFLOW writes handle_bytes too); the mount id written
    "name_to_handle_at": (_str("name"), _fixed("handle", 4),
                          _fixed("handle", FILE_HANDLE_SIZE, at_exit=True),
                          _fixed("mnt_id", 4, at_exit=True)),
    "open_by_handle_at": (_fixed("handle", FILE_HANDLE_SIZE),),
    # struct mount_attr: usize bytes (strace shows the bytes past its 32 up to 4096)
    "mount_setattr": (_str("path"), _Override("uattr", CAP_STRUCT, "usize", BUF_MAX)),
    "getrandom": (_buf("ubuf", "ret", at_exit=True),),
    # I/O and sockets (decoders: tracekit/decode/structs_io.py, structs_net.py)
    "ioctl": (_ioctl(at_exit=False), _ioctl(at_exit=True)),
    "poll": (_array("ufds", "nfds", POLLFD_SIZE), _array("ufds", "nfds", POLLFD_SIZE, True)),
    "ppoll": (_array("ufds", "nfds", POLLFD_SIZE), _fixed("tsp", TIMESPEC_SIZE),
              _fixed("sigmask", SIGSET_SIZE), _array("ufds", "nfds", POLLFD_SIZE, True),
              _fixed("tsp", TIMESPEC_SIZE, at_exit=True)),
    "select": (*_fdsets("inp", "outp", "exp"), _fixed("tvp", TIMEVAL_SIZE),
               *_fdsets("inp", "outp", "exp", at_exit=True),
               _fixed("tvp", TIMEVAL_SIZE, at_exit=True)),
    # pselect6: eight specs at most, so the except set is not read again at exit;
    # sig is {const sigset_t *ss; size_t ss_len} (fs/select.c): read with the set
    # ss points to
    "pselect6": (*_fdsets("inp", "outp", "exp"), _fixed("tsp", TIMESPEC_SIZE),
                 _Override("sig", CAP_STRUCT, None, 16 + SIGSET_SIZE, 16, False, SPEC_DEREF),
                 *_fdsets("inp", "outp", at_exit=True),
                 _fixed("tsp", TIMESPEC_SIZE, at_exit=True)),
    **({
        "epoll_ctl": (_fixed("event", EPOLL_EVENT_SIZE),),
        "epoll_wait": (_array("events", "ret", EPOLL_EVENT_SIZE, True),),
        "epoll_pwait": (_array("events", "ret", EPOLL_EVENT_SIZE, True),
                        _fixed("sigmask", SIGSET_SIZE)),
        "epoll_pwait2": (_array("events", "ret", EPOLL_EVENT_SIZE, True),
                         _fixed("timeout", TIMESPEC_SIZE), _fixed("sigmask", SIGSET_SIZE)),
    } if EPOLL_EVENT_SIZE else {}),
    # signalfd/signalfd4: the mask it reads (decoder: structs_io.k_sigmask)
    **{name: (_fixed("user_mask", SIGSET_SIZE),) for name in ("signalfd", "signalfd4")},
    **{name: (_iov("vec", at_exit=True),) for name in ("readv", "preadv", "preadv2")},
    **{name: (_iov("vec"),) for name in ("writev", "pwritev", "pwritev2")},
    # vmsplice: its iovecs as strings at entry, whichever way the pipe goes (as strace)
    "vmsplice": (_iov("uiov", length="nr_segs"),),
    # process_vm_readv/writev: the local iovecs' bytes (read into at exit), the remote
    # ones' bases; process_madvise's ranges
    "process_vm_readv": (_iov("lvec", at_exit=True, length="liovcnt"),
                         _iov("rvec", length="riovcnt", elem_cap=0)),
    "process_vm_writev": (_iov("lvec", length="liovcnt"),
                          _iov("rvec", length="riovcnt", elem_cap=0)),
    "process_madvise": (_iov("vec", elem_cap=0),),
    "sendmsg": (_Override("msg", CAP_MSGHDR, None, BUF_MAX, BUF_CAP), _fd("fd")),
    # recvmsg: msg_name and msg_namelen as the caller set them, then the filled msghdr,
    # its first iovec's bytes up to IOV_ELEM_BIG (the others' up to IOV_ELEM_MAX):
    # strace decodes a netlink reply whole (an RTM_NEWLINK dump's reply is some 3 KiB),
    # whatever -s says
    "recvmsg": (_fixed("msg", 16),
                _Override("msg", CAP_MSGHDR, None, BUF_MAX, IOV_ELEM_BIG, True),
                _fd("fd")),
    # sendmmsg: its first MMSG_N messages, at exit (strace prints them with msg_len)
    "sendmmsg": (*(_Override("mmsg", CAP_MMSGHDR, k, 512, BUF_CAP, True)
                   for k in range(MMSG_N)), _fd("fd")),
    # Linux AIO and io_uring (tracekit/decode/structs_aio.py): the context io_setup
    # writes, the events io_getevents writes and its timeout, the iocb io_cancel reads
    # and the event it writes, io_uring_setup's params as read and as written back
    "io_setup": (_fixed("ctxp", 8, at_exit=True),),
    # io_submit: its first IOCB_N iocb pointers, the iocbs, a PWRITE's first bytes and a
    # PREADV/PWRITEV's first iovecs (CAP_IOCB: tracekit/decode/structs_aio.py k_iocbpp)
    "io_submit": (_Override("iocbpp", CAP_IOCB, "nr", IOCB_BUF_CAP),),
    "io_getevents": (_array("events", "ret", IO_EVENT_SIZE, True),
                     _fixed("timeout", TIMESPEC_SIZE)),
    "io_pgetevents": (_array("events", "ret", IO_EVENT_SIZE, True),
                      _fixed("timeout", TIMESPEC_SIZE),
                      # struct __aio_sigset: pselect6's {mask pointer, size}, the set too
                      _Override("usig", CAP_STRUCT, None, 16 + SIGSET_SIZE, 16, False,
                                SPEC_DEREF)),
    "io_cancel": (_fixed("iocb", IOCB_SIZE), _fixed("result", IO_EVENT_SIZE, at_exit=True)),
    "io_uring_setup": (_fixed("params", IO_URING_PARAMS_SIZE),
                       _fixed("params", IO_URING_PARAMS_SIZE, at_exit=True)),
    # io_uring_register's arg, whatever the opcode (the decoder picks): the fixed structs
    # (32 and 40 bytes: one that ends its mapping is read by the smaller), nr_args bytes
    # (a *2 struct's size) and arrays of nr_args 4- and 16-byte elements
    "io_uring_register": (*(_fixed("arg", n) for n in URING_REG_HEADS),
                          _Override("arg", CAP_BUF, "nr_args", URING_REG_BYTES_CAP, 1),
                          *(_Override("arg", CAP_BUF, "nr_args", cap, size)
                            for size, cap in URING_REG_ARRAYS),
                          # ... and what the rsrc structs' data and tags point to (at 8,
                          # 16 and 24: register's data 16, tags 24; update2's 8, 16):
                          # cap bytes, or those up to the end of the array's page
                          *(_Override("arg", CAP_BUF, None, cap, _ptr_at(at), False,
                                      SPEC_PTR_AT) for at, cap in URING_RSRC_PTRS)),
    # landlock: a path-beneath rule (packed u64, s32) and a ruleset's handled_access_fs
    "landlock_add_rule": (_fixed("rule_attr", LANDLOCK_PATH_BENEATH_SIZE),),
    "landlock_create_ruleset": (_fixed("attr", LANDLOCK_RULESET_HEAD),),
    # perf_event_open: the head of its struct perf_event_attr (what strace prints
    # without -v: tracekit/decode/structs_perf.py), and all of it that strace -v reads
    # (a struct of a smaller size that ends its mapping: faults, retried at exit, where
    # the bytes up to the end of its page are kept)
    "perf_event_open": (_fixed("attr_uptr", PERF_ATTR_HEAD_SIZE),
                        _fixed("attr_uptr", PERF_ATTR_SIZE),
                        # type and size at exit: E2BIG writes the size the kernel knows
                        _fixed("attr_uptr", 8, at_exit=True)),
    # bpf: its union bpf_attr up to the size argument, as the call reads it and as it
    # wrote fields back (info_len, next_id, a batch's count): tracekit/decode/structs_bpf.py
    # and the first word's string (OBJ_PIN/OBJ_GET's pathname, RAW_TRACEPOINT_OPEN's name:
    # SPEC_DEREF), in this order (the decoder takes them so)
    # (SPEC_DEREF), then what pointers further in point to (SPEC_PTR_AT): BPF_PROG_LOAD's
    # license (at 16) and log_buf (at 32, log_size at 28), BPF_BTF_LOAD's bytes (at 0,
    # btf_size at 16), BPF_TASK_FD_QUERY's buf (at exit)
    "bpf": (_Override("uattr", CAP_STRUCT, "size", BPF_ATTR_CAP),
            _Override("uattr", CAP_STRUCT, None, 8 + BPF_ATTR_STR_CAP, 8, False, SPEC_DEREF),
            _Override("uattr", CAP_STR, None, BPF_PTR_STR_CAP, _ptr_at(16, 5), False,
                      SPEC_PTR_AT),
            _Override("uattr", CAP_STR, 28, BPF_PTR_BUF_CAP, _ptr_at(32, 5), False,
                      SPEC_PTR_AT),
            _Override("uattr", CAP_BUF, 16, BPF_PTR_BUF_CAP, _ptr_at(0, 18), False,
                      SPEC_PTR_AT),
            # BPF_TASK_FD_QUERY's buf (at 16, buf_len at 12) as the call left it
            _Override("uattr", CAP_STR, 12, BPF_PTR_BUF_CAP, _ptr_at(16, 20), True,
                      SPEC_PTR_AT),
            _Override("uattr", CAP_STRUCT, "size", BPF_ATTR_OUT_CAP, at_exit=True)),
    # recvmmsg: the first MMSG_N messages as the call filled them, the timeout it reads
    # and the time left it writes back
    "recvmmsg": (*(_Override("mmsg", CAP_MMSGHDR, k, 512, BUF_CAP, True)
                   for k in range(MMSG_N)), _fixed("timeout", TIMESPEC_SIZE),
                 _fixed("timeout", TIMESPEC_SIZE, at_exit=True), _fd("fd")),
    "recvfrom": (_buf("ubuf", "ret", at_exit=True), *_addr_out("addr", "addr_len"),
                 _fd("fd")),
    "accept": (*_addr_out("upeer_sockaddr", "upeer_addrlen"), _fd("fd"),
               _fd("fd", ret=True)),
    "accept4": (*_addr_out("upeer_sockaddr", "upeer_addrlen"), _fd("fd"),
                _fd("fd", ret=True)),
    "getsockname": (*_addr_out("usockaddr", "usockaddr_len"), _fd("fd")),
    "getpeername": (*_addr_out("usockaddr", "usockaddr_len"), _fd("fd")),
    # setsockopt: optlen bytes of the value, and the sizes strace reads whatever optlen
    # says (tracekit/decode/structs_net.py SETSOCKOPT_FIXED: when optlen runs past the
    # end of the value's mapping)
    # (and the program of a socket filter, SO_ATTACH_FILTER's: read for every call,
    # whose first argument is the fd)
    "setsockopt": (_buf("optval", "optlen"), _fd("fd"),
                   *(_fixed("optval", n) for n in SETSOCKOPT_FIXED), *_fprog("optval")),
    "shutdown": (_fd("fd"),),
    "socketpair": (_fixed("usockvec", 8, at_exit=True), _fd("usockvec", pair=True)),
    "sendfile64": (_fixed("offset", 8), _fixed("offset", 8, at_exit=True)),
    "copy_file_range": (_fixed("off_in", 8), _fixed("off_out", 8)),
    "splice": (_fixed("off_in", 8), _fixed("off_out", 8)),
    # calls whose arguments follow their operation (tracekit/decode/ops.py): what each
    # operation may read or write, the decoder picks by the operation
    "futex": (_fixed("utime", TIMESPEC_SIZE),),
    # clone3's struct clone_args (up to its 88 bytes), then up to a page of it (what a
    # larger size passes: its nonzero bytes, or ``???`` when unreadable)
    "clone3": (_Override("uargs", CAP_STRUCT, "size", CLONE_ARGS_SIZE),
               _Override("uargs", CAP_STRUCT, "size", CLONE_ARGS_CAP)),
    # kcmp's idx2 is KCMP_EPOLL_TFD's struct kcmp_epoll_slot (another type's number reads
    # as unreadable memory and prints as the number it is)
    "kcmp": (_fixed("idx2", KCMP_EPOLL_SLOT_SIZE),),
    # quotactl: the device; the command's data as a path (Q_QUOTAON's quota file) and as
    # a struct at entry (Q_SETQUOTA, Q_SETINFO, the XFS flags) and at exit (Q_GETQUOTA,
    # Q_GETINFO, Q_GETFMT's format), at each of the structs' sizes (QUOTA_IN_SIZES: one
    # at the end of a mapping is readable at its own size only; QUOTA_OUT_SIZES at exit)
    "quotactl": (_str("special"), _str("addr"),
                 *(_fixed("addr", n) for n in QUOTA_IN_SIZES),
                 *(_fixed("addr", n, at_exit=True) for n in QUOTA_OUT_SIZES)),
    "quotactl_fd": (_str("addr"), *(_fixed("addr", n) for n in QUOTA_IN_SIZES),
                    *(_fixed("addr", n, at_exit=True) for n in QUOTA_OUT_SIZES),
                    _fd("fd")),
    # prctl: PR_SET_NAME's and PR_GET_NAME's comm, what PR_GET_* wrote at arg2, and
    # PR_SET_VMA_ANON_NAME's name (arg5; -s bytes shown: a name the kernel takes is
    # at most 80, ANON_VMA_NAME_MAX_LEN; a longer one, refused, shows 255 and "...")
    # (and an int at arg2 read at its own 4 bytes: one at the end of a mapping)
    "prctl": (_Override("arg2", CAP_STR, None, PRCTL_NAME_CAP), _fixed("arg2", 8, at_exit=True),
              _fixed("arg2", 4, at_exit=True),
              _Override("arg2", CAP_STR, None, PRCTL_NAME_CAP, 0, True),
              _Override("arg5", CAP_STR, None, BUF_CAP),
              # PR_SET_SECCOMP's filter: the struct sock_fprog, its instructions
              _fixed("arg3", FPROG_SIZE), *_fprog("arg3", PR_SET_SECCOMP)),
    # fcntl: a struct flock at entry and at exit, then a struct f_owner_ex (8 bytes, read
    # at its own size: one at the end of a mapping is not readable as a flock)
    "fcntl": (_fixed("arg", FLOCK_SIZE), _fixed("arg", FLOCK_SIZE, at_exit=True),
              _fixed("arg", F_OWNER_EX_SIZE), _fixed("arg", F_OWNER_EX_SIZE, at_exit=True)),
    "arch_prctl": (_fixed("arg2", 8, at_exit=True),),
    # ptrace: what a request wrote at data: PEEK*'s word, GETEVENTMSG's message, and in
    # the larger read GETSIGINFO's siginfo, x86_64 GETREGS's and GETFPREGS's registers,
    # GETREGSET's iovec, GETSIGMASK's set, PEEKSIGINFO's siginfos, GET_SYSCALL_INFO's
    # reply; what SETREGS, SETSIGINFO, SETSIGMASK and SETFPREGS read at data (a small read
    # and a large one: the large one fails as a whole near the end of a mapping),
    # PEEKSIGINFO at addr
    # and (SPEC_PTR_AT) the registers GET/SETREGSET's iovec points to: iov_base (at 0),
    # iov_len bytes (at 8) of at most PTRACE_DATA_CAP, as SETREGSET reads them (at entry)
    # and GETREGSET wrote them (at exit); each also read for the request whose low byte
    # is the same (POKEDATA 5, POKETEXT 4: a word, not an iovec, at data)
    "ptrace": (_fixed("data", 8, at_exit=True), _fixed("data", PTRACE_DATA_CAP, at_exit=True),
               _fixed("data", PTRACE_REGS_CAP), _fixed("data", PTRACE_DATA_CAP),
               _fixed("addr", 16),
               _Override("data", CAP_BUF, 8, PTRACE_DATA_CAP, _ptr_at(0, 0x4205), False,
                         SPEC_PTR_AT),
               _Override("data", CAP_BUF, 8, PTRACE_DATA_CAP, _ptr_at(0, 0x4204), True,
                         SPEC_PTR_AT)),
    "syslog": (_buf("buf", "ret", at_exit=True),),
    # keyctl: the strings of its operations (KEYCTL_SEARCH's type and description), the
    # payload KEYCTL_UPDATE/INSTANTIATE read, the buffer KEYCTL_READ/DESCRIBE/
    # GET_SECURITY fill and KEYCTL_CAPABILITIES' bytes (the result's bytes); the structs
    # KEYCTL_DH_COMPUTE and the PKEY operations read (one that ends its mapping: the bytes
    # up to its end, read at exit) and KEYCTL_INSTANTIATE_IOV's iovecs
    "keyctl": (_Override("arg2", CAP_STR, None, 256), _Override("arg3", CAP_STR, None, 256),
               _Override("arg4", CAP_STR, None, 256), _buf("arg3", "arg4"),
               _fixed("arg2", PKEY_PARAMS_SIZE), _iov("arg3", length="arg4"),
               _buf("arg3", "ret", at_exit=True), _buf("arg2", "ret", at_exit=True)),
    # add_key's payload (plen bytes) with its type and description strings
    "add_key": (_str("_type"), _str("_description"), _buf("_payload", "plen")),
    # fsconfig's key, and its value as a string (printed so for the string and path
    # commands) and as aux bytes (FSCONFIG_SET_BINARY): tracekit.decode.args.k_fsconfigvalue
    "fsconfig": (_str("_key"), _str("_value"), _buf("_value", "aux")),
    # reboot's argument: LINUX_REBOOT_CMD_RESTART2's command string
    "reboot": (_Override("arg", CAP_STR, None, BUF_CAP),),
    "timerfd_settime": (_fixed("utmr", ITIMER_SIZE), _fixed("otmr", ITIMER_SIZE, at_exit=True)),
    "timerfd_gettime": (_fixed("otmr", ITIMER_SIZE, at_exit=True),),
    "setitimer": (_fixed("value", ITIMER_SIZE), _fixed("ovalue", ITIMER_SIZE, at_exit=True)),
    "getitimer": (_fixed("value", ITIMER_SIZE, at_exit=True),),
    # POSIX timers: the sigevent timer_create reads and the timer id it writes; the
    # itimerspecs timer_settime reads and writes back, timer_gettime's
    "timer_create": (_fixed("timer_event_spec", SIGEVENT_SIZE),
                     _fixed("created_timer_id", 4, at_exit=True)),
    "timer_settime": (_fixed("new_setting", ITIMER_SIZE),
                      _fixed("old_setting", ITIMER_SIZE, at_exit=True)),
    "timer_gettime": (_fixed("setting", ITIMER_SIZE, at_exit=True),),
    # the mask rt_sigsuspend waits with, read at entry (the call restores the old one)
    "rt_sigsuspend": (_fixed("unewset", SIGSET_SIZE),),
    # the pending set the call writes: sigsetsize bytes of it (at most 8), as the kernel
    # writes them (a set of fewer bytes at the end of its mapping is still read)
    "rt_sigpending": (_Override("uset", CAP_STRUCT, "sigsetsize", SIGSET_SIZE, 0, True),),
    "rt_sigtimedwait": (_fixed("uthese", SIGSET_SIZE), _fixed("uts", TIMESPEC_SIZE),
                        _fixed("uinfo", SIGINFO_SIZE, at_exit=True)),
    "rt_sigqueueinfo": (_fixed("uinfo", SIGINFO_SIZE),),
    "rt_tgsigqueueinfo": (_fixed("uinfo", SIGINFO_SIZE),),
    "get_robust_list": (_fixed("head_ptr", 8, at_exit=True), _fixed("len_ptr", 8, at_exit=True)),
    "sched_setscheduler": (_fixed("param", 4),),
    "sched_setparam": (_fixed("param", 4),),
    "sched_getparam": (_fixed("param", 4, at_exit=True),),
    # struct sched_attr: 56 bytes, and 48 (the first version's size: one that ends its
    # mapping), at entry; its size at exit (E2BIG writes the kernel's); sched_getattr's
    # as the call filled it, usize bytes of it at most
    "sched_setattr": (_fixed("uattr", SCHED_ATTR_SIZE), _fixed("uattr", SCHED_ATTR_SIZE_VER0),
                      _fixed("uattr", 4, at_exit=True)),
    "sched_getattr": (_Override("uattr", CAP_STRUCT, "usize", SCHED_ATTR_SIZE, 0, True),),
    # kexec_file_load's command line (its length the argument before it)
    "kexec_file_load": (_buf("cmdline_ptr", "cmdline_len"),),
    # kexec_load's segments: 16 at most (KEXEC_SEGMENT_MAX)
    "kexec_load": (_Override("segments", CAP_BUF, "nr_segments",
                             KEXEC_SEGMENT_MAX * KEXEC_SEGMENT_SIZE, KEXEC_SEGMENT_SIZE),),
    # move_pages: its pages and nodes at entry, the status it wrote at exit
    "move_pages": (_array("pages", "nr_pages", 8), _array("nodes", "nr_pages", 4),
                   _array("status", "nr_pages", 4, True)),
    # the name: len bytes, no NUL (kernel/sys.c), at most __NEW_UTS_LEN (64) of them
    "sethostname": (_Override("name", CAP_BUF, "len", 64),),
    "setdomainname": (_Override("name", CAP_BUF, "len", 64),),
    # System V IPC and message queues (decoders: tracekit/decode/structs_ipc.py)
    # (the *ctl structs: IPC_SET's read at entry, the others written)
    "shmctl": (_fixed("buf", SHMID_DS_SIZE), _fixed("buf", SHMID_DS_SIZE, at_exit=True)),
    **({"semctl": (_fixed("arg", SEMID_DS_SIZE), _fixed("arg", SEMID_DS_SIZE, at_exit=True))}
       if SEMID_DS_SIZE else {}),
    "msgctl": (_fixed("buf", MSQID_DS_SIZE), _fixed("buf", MSQID_DS_SIZE, at_exit=True)),
    # a message: its mtype and as much mtext as strace shows (a fixed read: a message
    # within MSGBUF_SIZE of the end of its mapping prints as its address)
    "msgsnd": (_fixed("msgp", MSGBUF_SIZE),),
    "msgrcv": (_fixed("msgp", MSGBUF_SIZE, at_exit=True),),
    "semop": (_array("tsops", "nsops", SEMBUF_SIZE),),
    "semtimedop": (_array("tsops", "nsops", SEMBUF_SIZE), _fixed("timeout", TIMESPEC_SIZE)),
    "mq_open": (_str("u_name"), _fixed("u_attr", MQ_ATTR_SIZE)),
    "mq_getsetattr": (_fixed("u_mqstat", MQ_ATTR_SIZE),
                      _fixed("u_omqstat", MQ_ATTR_SIZE, at_exit=True)),
    "mq_notify": (_fixed("u_notification", SIGEVENT_SIZE),),
    "mq_timedsend": (_buf("u_msg_ptr", "msg_len"), _fixed("u_abs_timeout", TIMESPEC_SIZE)),
    "mq_timedreceive": (_buf("u_msg_ptr", "ret", at_exit=True),
                        _fixed("u_msg_prio", 4, at_exit=True),
                        _fixed("u_abs_timeout", TIMESPEC_SIZE)),
    "pidfd_send_signal": (_fixed("info", SIGINFO_SIZE),),
    # per-thread and clock structs (decoders: tracekit/decode/structs_task.py): the
    # timex the call writes back, futex_waitv's waiters, seccomp's action (read) or
    # notification sizes (written), struct user_desc
    "adjtimex": (_fixed("txc_p", TIMEX_SIZE, at_exit=True),),
    "clock_adjtime": (_fixed("utx", TIMEX_SIZE, at_exit=True),),
    # (all 128 waiters a call may take: strace prints them all with -s 128 or more)
    "futex_waitv": (_Override("waiters", CAP_BUF, "nr_futexes",
                              FUTEX_WAITV_MAX * FUTEX_WAITV_SIZE, FUTEX_WAITV_SIZE),
                    _fixed("timeout", TIMESPEC_SIZE)),
    # (and SECCOMP_SET_MODE_FILTER's program, operation 1)
    "seccomp": (_fixed("uargs", 4), _fixed("uargs", 6, at_exit=True), *_fprog("uargs", 1)),
    "get_thread_area": (_fixed("u_info", USER_DESC_SIZE),
                        _fixed("u_info", USER_DESC_SIZE, at_exit=True)),
    "set_thread_area": (_fixed("u_info", USER_DESC_SIZE),),
    # NUMA node masks: up to as many longs as strace shows (maxnode is in bits, so the
    # read is at least the mask's bytes), and one and two longs (a mask at the end of its
    # mapping, where maxnode bytes run past it); get_mempolicy's mode and mask as written
    "mbind": _nodemask("nmask"),
    "set_mempolicy": _nodemask("nmask"),
    "get_mempolicy": (_fixed("policy", 4, at_exit=True), *_nodemask("nmask", at_exit=True)),
    "migrate_pages": (*_nodemask("old_nodes", longs=(1, 2)),
                      *_nodemask("new_nodes", longs=(1, 2))),
    "modify_ldt": (_fixed("ptr", USER_DESC_SIZE),),
    "getgroups": (_Override("grouplist", CAP_BUF, "ret", GIDS_CAP, 4, True),),
    "setgroups": (_Override("grouplist", CAP_BUF, "gidsetsize", GIDS_CAP, 4),),
    # capget/capset: the header at entry; the data capset reads, the data capget writes
    "capget": (_fixed("header", CAP_HEADER_SIZE), _fixed("dataptr", CAP_DATA_SIZE, at_exit=True)),
    "capset": (_fixed("header", CAP_HEADER_SIZE), _fixed("data", CAP_DATA_SIZE)),
    # (and, first of optval's, SO_GET_FILTER's instructions: their count is the optlen
    # written, so read GET_FILTER_CAP bytes; the other options take the last capture)
    "getsockopt": (_fixed("optlen", 4), _fixed("optlen", 4, at_exit=True),
                   _fixed("optval", GET_FILTER_CAP, at_exit=True),
                   _Override("optval", CAP_BUF, "optlen", BUF_CAP, 0, True, SPEC_LEN_PTR),
                   _fd("fd")),
}


class SpecsResult(NamedTuple):
    specs: tuple[CapSpec, ...]
    missing: tuple[str, ...]    # override argument names the format lacks


def specs_for(name: str, args: Sequence[Field], *, envp_strings: int = 0,
              argv_strings: int = 0, dirents: bool = False) -> SpecsResult:
    """The capture specs of one syscall from its tracefs arguments.

    Args:
      name: the tracefs event name (``openat``, ``newstat``).
      args: its arguments in order (``tracekit.kernel.tracefs.syscall_args``: the
        ``__data_loc`` fields of Linux 6.19 already skipped).
      envp_strings: 0: execve's envp is read as its pointer array, to count it (strace's
        default); N > 0: as its strings, each cut at N bytes (strace -v; N = -s + 1 shows
        whether a string was longer than -s).
      argv_strings: 0: execve's argv is read up to 32 elements (strace's default -s);
        N > 0: up to 256, each cut at N bytes, as envp's strings (strace -v prints every
        element, and -s above 32 as many elements as it says).
      dirents: getdents64's reply read as its bytes (the first BUF_MAX of them), whose
        entries strace -v prints; else its entries are counted in the kernel.

    Returns:
      The specs (at most ``BEAUTY_SPECS``, each syscall's worst case within the record
      budget of programs/syscalls.bpf.c) and the override argument names not found.
    """
    index = {f.name: i for i, f in enumerate(args)}
    if name == "rt_sigreturn":
        index.setdefault(SIGFRAME_MASK_ARG, 0)
    specs: list[CapSpec] = []
    missing: list[str] = []
    if name in OVERRIDES:
        overrides = OVERRIDES[name]
        if argv_strings > 0 and name in ("execve", "execveat"):
            overrides = tuple(o if o.arg != "argv" else _envp_strings(argv_strings, "argv")
                              for o in overrides)
        if envp_strings > 0 and name in ("execve", "execveat"):
            overrides = (*(o for o in overrides if o.arg != "envp"),
                         _envp_strings(envp_strings))
        if dirents and name == "getdents64":
            overrides = (_Override("dirent", CAP_BUF, "ret", BUF_MAX, 0, True),)
        for o in overrides:
            if o.arg not in index or (isinstance(o.length, str) and o.length != "ret"
                                      and o.length not in index):
                missing.append(o.arg if o.arg not in index else str(o.length))
                continue
            len_arg = (LEN_NONE if o.length is None else LEN_RET if o.length == "ret"
                       else o.length if isinstance(o.length, int) else index[o.length])
            specs.append(CapSpec(index[o.arg], o.kind, len_arg,
                                 (SPEC_AT_EXIT if o.at_exit else 0) | o.flags, o.cap, o.size))
    else:
        for i, f in enumerate(args):
            if (f.c_type == "const char *" and f.name in STRING_ARGS) or (
                    f.c_type == "char *" and f.name in CHAR_P_STRING_ARGS):
                specs.append(CapSpec(i, CAP_STR, LEN_NONE, 0, STR_CAP, 0))
    specs = specs[:BEAUTY_SPECS]
    # every capture must start within the budget: shrink the last string ones if needed
    # (mount: three strings). Starts are at the sum of the footprints before each.
    while sum(s.footprint() for s in specs[:-1]) > _CAP_OFF_MAX:
        specs.pop()
    return SpecsResult(tuple(specs), tuple(missing))


def build_specs(table: SyscallTable, tracefs_root: Path | None,
                names: Sequence[str] | None = None, *,
                envp_strings: int = 0, argv_strings: int = 0, dirents: bool = False
                ) -> dict[int, tuple[CapSpec, ...]]:
    """Syscall nr -> specs for every syscall of ``table`` with a tracefs format
    (``envp_strings``, ``argv_strings`` and ``dirents`` as :func:`specs_for`'s).

    Args:
      table: the native syscall table (compat calls capture nothing).
      tracefs_root: the tracefs mount or a fixture of it; None: this machine's when it can
        be read, else the arguments shipped for the table's arch
        (``tracekit.kernel.tracefs.syscall_args_lookup``).
      names: only these syscalls (default: every name in ``table``).

    Raises:
      TracefsError: a format file cannot be read (other than ENOENT: no such event).
      ValueError: malformed format text.
    """
    out: dict[int, tuple[CapSpec, ...]] = {}
    if tracefs_root is None and names is None and (root := readable_tracefs()) is not None:
        # every syscall: the whole table, kept per boot (read once, not a file per call)
        boot_arg_table(root, build=True)
    args_of = (syscall_args_lookup(table.arch) if tracefs_root is None
               else lambda name: syscall_args_of(tracefs_root, name))
    for name in names if names is not None else table.names():
        args = args_of(name)
        if args is None and tracefs_root is None:
            # no event here: a call the kernel was built without (delete_module without
            # CONFIG_MODULES) still has its number and prototype, and strace prints its
            # strings
            args = shipped_args(name, table.arch)
        nr = table.nr(name)
        if args is None or nr is None:
            continue
        # the table says "stat", the format and OVERRIDES say "newstat"
        event = name if name in OVERRIDES else next(
            (ev for ev, alias in EVENT_ALIASES.items() if alias == name and ev in OVERRIDES),
            name)
        res = specs_for(event, args, envp_strings=envp_strings, argv_strings=argv_strings,
                        dirents=dirents)
        if res.missing:
            log.warning("beauty map: %s has no argument(s) %s in its tracefs format; "
                        "not captured", name, ", ".join(res.missing))
        if res.specs:
            out[nr] = res.specs
    return out


# Decoder argument kinds (tracekit/decode/argspec.py) whose memory reads the same in the
# i386 ABI, and the capture each takes: a C string; a buffer whose length is the next
# argument (read at entry) or the return value (read at exit); a sockaddr whose length is
# the next argument.
_KINDS32: dict[str, tuple[int, str | None, int, bool]] = {
    # kind: (capture kind, length: "next" / "ret" / None, cap, at exit)
    "path": (CAP_STR, None, STR_CAP, False),
    "str": (CAP_STR, None, STR_CAP, False),
    "bufw": (CAP_BUF, "next", BUF_CAP, False),
    "bufr": (CAP_BUF, "ret", BUF_CAP, True),
    "bufrx": (CAP_BUF, "ret", BUF_CAP, True),
    "strr": (CAP_BUF, "ret", BUF_CAP, True),
    "cwd": (CAP_BUF, "ret", BUF_MAX, True),
    "sockaddr": (CAP_STRUCT, "next", SOCKADDR_CAP, False),
    "loff_out": (CAP_STRUCT, None, 8, True),
}


# the structs of another layout in the i386 ABI, read whole (fixed size) for their
# decoders (tracekit.decode.structs_compat)
_KINDS32.update({kind: (CAP_STRUCT, None, size, at_exit)
                 for kind, (size, at_exit) in KINDS32_SIZES.items()})


def specs32_for(kinds: Sequence[str]) -> tuple[CapSpec, ...]:
    """The capture specs of one i386 call from its decoder argument kinds (only the kinds
    of ``_KINDS32``; at most ``BEAUTY_SPECS``)."""
    specs = []
    for i, kind in enumerate(kinds[:6]):
        got = _KINDS32.get(kind)
        if got is None:
            continue
        cap_kind, length, cap, at_exit = got
        if length == "next" and i + 1 >= len(kinds):
            continue
        len_arg = {None: LEN_NONE, "ret": LEN_RET, "next": i + 1}[length]
        # a struct of fixed size: ``size`` is its size (as ``_fixed``'s)
        size = cap if cap_kind == CAP_STRUCT and length is None else 0
        specs.append(CapSpec(i, cap_kind, len_arg, SPEC_AT_EXIT if at_exit else 0, cap, size))
    return tuple(specs[:BEAUTY_SPECS])




# i386 call -> (the native call whose captures it takes, {argument: its i386 size}):
# the fd_sets of _newselect are the same bitmaps, its timeval two s32; fcntl's struct
# flock is 16 bytes there, flock64 24
_RESIZED32: dict[str, tuple[str, dict[str, int]]] = {
    "_newselect": ("select", {"tvp": 8}),
    # struct flock / flock64 of the i386 ABI (tracekit.decode.ops)
    "fcntl": ("fcntl", {"arg": FLOCK32_SIZE}), "fcntl64": ("fcntl", {"arg": FLOCK32_SIZE}),
    # the old select: the BPF program makes its record of the five words its argument
    # points to (programs/syscalls.h: TK_SC_INDIRECT), _newselect's arguments
    "select": ("select", {"tvp": 8}),
}

# i386 calls whose iovec arrays hold struct compat_iovec (u32 base, u32 len): the native
# call's specs, flagged SPEC_COMPAT for the BPF program to read and widen them
_IOV32 = frozenset({"readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2", "vmsplice",
                    "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "recvmmsg_time64"})

# socketcall sub-calls i386 has no number for (tracekit.kernel.syscalls): the native call
# whose first four arguments are theirs
_SUBCALL32 = {"send": "sendto", "recv": "recvfrom"}


def _iov32(name: str) -> tuple[CapSpec, ...] | None:
    """The specs of an i386 call of ``_IOV32``: the native call's, its iovec array and
    msghdr read as i386's (struct compat_iovec, compat_msghdr, compat_mmsghdr);
    recvmsg's msg_name and msg_namelen as the caller set them are the first 8 bytes of
    its msghdr there, recvmmsg's timeout an old_timespec32 (recvmmsg_time64's is the
    native one)."""
    native = "recvmmsg" if name == "recvmmsg_time64" else name
    args = shipped_args(native, "x86_64")
    if args is None:
        return None
    out = []
    for s in specs_for(native, args).specs:
        if s.kind in (CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR):
            s = s._replace(flags=s.flags | SPEC_COMPAT)
        elif s.kind == CAP_STRUCT and name in ("recvmsg", "recvmmsg"):
            s = s._replace(cap=8, size=8)
        out.append(s)
    return tuple(out)


def _subcall32(name: str) -> tuple[CapSpec, ...] | None:
    """The specs of send/recv: the native sendto/recvfrom's of their first four
    arguments."""
    native = _SUBCALL32[name]
    args = shipped_args(native, "x86_64")
    if args is None:
        return None
    return tuple(s for s in specs_for(native, args).specs
                 if s.arg < 4 and (s.len_arg in (LEN_NONE, LEN_RET) or s.len_arg < 4))


def _resized32(name: str) -> tuple[CapSpec, ...] | None:
    """The specs of an i386 call of ``_RESIZED32``: the native call's, with the sizes of
    the structs of another layout there."""
    native, sizes = _RESIZED32[name]
    args = shipped_args(native, "x86_64")
    if args is None:
        return None
    index = {a.name: i for i, a in enumerate(args)}
    resized = {index[a]: n for a, n in sizes.items() if a in index}
    return tuple(s._replace(cap=resized[s.arg], size=resized[s.arg])
                 if s.arg in resized and s.kind == CAP_STRUCT else s
                 for s in specs_for(native, args).specs)


def build_specs32(table: SyscallTable | None = None) -> dict[int, tuple[CapSpec, ...]]:
    """i386 nr -> specs for the ``beauty32`` map (module docstring).

    Args:
      table: the i386 syscall table (default ``SyscallTable("i386")``).
    """
    from tracekit.decode.argspec import ARGSPEC, ARGSPEC32

    table = table if table is not None else SyscallTable("i386")
    out: dict[int, tuple[CapSpec, ...]] = {}
    for name in table.names():
        nr, spec = table.nr(name), ARGSPEC32.get(name) or ARGSPEC.get(name)
        native = SAME_LAYOUT32.get(name)
        args = shipped_args(native, "x86_64") if native is not None else None
        if nr is not None and name in _RESIZED32:
            specs = _resized32(name) or ()
        elif nr is not None and name in _IOV32:
            specs = _iov32(name) or ()
        elif nr is not None and name in _SUBCALL32:
            specs = _subcall32(name) or ()
        elif nr is not None and args is not None and native is not None:
            specs = specs_for(native, args).specs
        elif nr is None or spec is None:
            continue
        else:
            specs = specs32_for(spec[0])
        if specs:
            out[nr] = specs
    return out


def with_data_bytes(specs: Sequence[CapSpec], data_bytes: int) -> tuple[CapSpec, ...]:
    """``specs`` with the data they read (a read's or write's buffer, each iovec element
    of readv/sendmsg, a socket option's value) up to ``data_bytes`` where that is more
    than the default ``BUF_CAP``: strace ``-s N`` prints N bytes of data, and N + 1 read
    tell a longer buffer. A buffer is read up to ``BUF_MAX`` bytes at most, an iovec
    element up to ``IOV_ELEM_BIG`` (the first; the others up to ``IOV_ELEM_MAX``:
    programs/syscalls.bpf.c); a widened capture that
    would push a later one past the record's budget is left as it was."""
    if data_bytes <= BUF_CAP:
        return tuple(specs)
    out = list(specs)
    for i, sp in enumerate(specs):
        if sp.kind == CAP_BUF and sp.cap == BUF_CAP:
            wide = sp._replace(cap=min(data_bytes, BUF_MAX))
        elif sp.kind in (CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR) and BUF_CAP <= sp.size < \
                min(data_bytes, IOV_ELEM_BIG):
            wide = sp._replace(size=min(data_bytes, IOV_ELEM_BIG))
        else:
            continue
        trial = [*out[:i], wide, *out[i + 1:]]
        if sum(s.footprint() for s in trial[:-1]) <= _CAP_OFF_MAX:
            out = trial
    return tuple(out)


#: bytes of a syscall record around its one data capture: the ring buffer's record
#: header (8, struct bpf_ringbuf_hdr), struct tk_syscall (112), the captures' header (8)
#: and the capture's struct tk_cap (8) (programs/syscalls.h)
_RECORD_AROUND_DATA = 8 + 112 + 8 + 8


def ring_bytes_for_data(default_bytes: int, data_bytes: int) -> int:
    """The ring buffer for data read up to ``data_bytes`` (``with_data_bytes``): one
    that holds as many of the largest records (a buffer of ``data_bytes``, at most
    ``BUF_MAX``) as ``default_bytes`` holds of the largest with the default ``BUF_CAP``,
    rounded up to a power of 2. ``default_bytes`` itself up to ``BUF_CAP + 1`` bytes
    (strace -s 256 reads 257 to tell a longer buffer).

    A syscall takes about as long with a 4 KiB buffer as with a short one, so the
    records' bytes per second grow with their size, and a ring of the default size fills
    that much sooner while the reader is late (measured: a loop of 4 KiB writes made
    some 500 MB/s of records, a loop of short ones 50 MB/s). -s 4096: 64 MiB for 4 MiB.
    """
    data = min(data_bytes, BUF_MAX)
    if data <= BUF_CAP + 1:
        return default_bytes
    need = default_bytes * (_RECORD_AROUND_DATA + data) // (_RECORD_AROUND_DATA + BUF_CAP)
    return 1 << (need - 1).bit_length()


def fill_beauty32_map(obj: BpfObject, data_bytes: int = 0) -> int:
    """Write the i386 specs (:func:`build_specs32`) into the ``beauty32`` map of a loaded
    ``syscalls.bpf.o`` (x86_64 only: no other arch has 32-bit calls flagged), their data
    read up to ``data_bytes`` (:func:`with_data_bytes`).

    Returns:
      The number of syscalls with captures; 0 on another arch or for an object without
      the map.

    Raises:
      MapError: a map update failed (its errno).
    """
    if machine_arch() != "x86_64" or "beauty32" not in obj.maps:
        return 0
    m = obj.maps["beauty32"]
    n = 0
    for nr, sp in sorted(build_specs32().items()):
        if 0 <= nr < m.max_entries:
            m.update_elem(struct.pack("<I", nr), pack_specs(with_data_bytes(sp, data_bytes)))
            n += 1
    return n


def pack_specs(specs: Sequence[CapSpec]) -> bytes:
    """``struct tk_beauty``: BEAUTY_SPECS specs, unused slots zero (kind 0), 64 bytes."""
    if len(specs) > BEAUTY_SPECS:
        raise ValueError(f"{len(specs)} capture specs, at most {BEAUTY_SPECS}")
    return b"".join(s.pack() for s in specs) + bytes(_SPEC.size * (BEAUTY_SPECS - len(specs)))


def fill_beauty_map(obj: BpfObject, table: SyscallTable, tracefs_root: Path | None,
                    specs: Mapping[int, Sequence[CapSpec]] | None = None) -> int:
    """Write the specs into the ``beauty`` map of a loaded ``syscalls.bpf.o``.

    Args:
      obj: the loaded ``BpfObject``.
      table: the native syscall table of this machine.
      tracefs_root: the tracefs mount (``_tracefs.find_tracefs()``); None: as in
        :func:`build_specs`.
      specs: precomputed specs (default: ``build_specs(table, tracefs_root)``).

    Returns:
      The number of syscalls with captures.

    Raises:
      TracekitError: the object has no ``beauty`` map (an object older than issue 4).
      MapError: a map update failed (its errno).
    """
    maps = obj.maps
    if "beauty" not in maps:
        raise TracekitError(f"{obj!r} has no 'beauty' map: rebuild programs/ (nox -s programs)")
    m = maps["beauty"]
    if specs is None:
        specs = build_specs(table, tracefs_root)
    n = 0
    for nr, sp in sorted(specs.items()):
        if 0 <= nr < m.max_entries:
            m.update_elem(struct.pack("<I", nr), pack_specs(sp))
            n += 1
    return n


def size_ioctl_map(obj: BpfObject, arch: str | None = None) -> None:
    """Before load: make ``ioctl_sizes`` hold every request :func:`fill_ioctl_map` writes
    (the object's max_entries is a floor)."""
    if "ioctl_sizes" in obj.maps:
        m = obj.maps["ioctl_sizes"]
        m.max_entries = max(m.max_entries, len(IOCTL_ARGS(arch or machine_arch())))


def fill_ioctl_map(obj: BpfObject, arch: str | None = None) -> int:
    """Write the ioctl requests whose argument is captured into ``ioctl_sizes``.

    Args:
      obj: the loaded ``BpfObject``.
      arch: the flag tables' arch (default: this machine's).

    Returns:
      The number of requests written; 0 for an object without the map.

    Raises:
      MapError: a map update failed (its errno).
    """
    if "ioctl_sizes" not in obj.maps:
        return 0
    m = obj.maps["ioctl_sizes"]
    n = 0
    for req, (size, into, out) in IOCTL_ARGS(arch or machine_arch()).items():
        value = size | (IOCTL_IN if into else 0) | (IOCTL_OUT if out else 0)
        m.update_elem(struct.pack("<I", req), struct.pack("<I", value))
        n += 1
    return n
