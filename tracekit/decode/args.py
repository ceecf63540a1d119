"""The decoding engine: a Syscall record -> ``Decoded(name, args, ret)`` as strace prints it.

:class:`SyscallDecoder` looks up, once per (syscall_nr, compat), the syscall's name and
its argument decoders (``tracekit.decode.argspec``), then applies them to each record. Strings,
buffers and structs come from the record's captures (``Syscall.caps``); without a
capture an argument that points to user memory prints as its address (``0x7ffd...``).

Flag words and constants are decoded with the tables of the syscall table's architecture
(``SyscallDecoder(SyscallTable("arm64"))`` prints arm64's names on any machine).
"""

from __future__ import annotations

import functools
import mmap
import struct
from collections.abc import Callable, Sequence
from typing import cast

import msgspec

from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_ENVP,
    CAP_STR,
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_ATTACHED,
    SC_COMPAT,
    SC_INDIRECT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Capture,
    Decoded,
    Event,
    FdState,
    Syscall,
)
from tracekit.decode import (
    flags as F,
    flagwords,
    ops,
    structs_aio,
    structs_bpf,
    structs_compat,
    structs_cred,
    structs_fs,
    structs_io,
    structs_ipc,
    structs_net,
    structs_netlink,
    structs_perf,
    structs_proc as SP,
    structs_task,
    xstyle,
)
from tracekit.decode.argspec import (
    ARGSPEC,
    ARGSPEC32,
    I386_NARGS,
    I386_TWINS,
    NEWER_FD_CALLS,
    NEWER_THAN_STRACE61,
    SAME_LAYOUT32,
)
from tracekit.decode.argtypes import kind_of, narrowed
from tracekit.decode.captures import (
    abbreviated,
    capture,
    capture_out,
    decoded_in,
    decoded_out,
    elements_shown,
    readable,
)
from tracekit.decode.fdcache import AT_FDCWD, DESCRIBED_CALLS, OPENS, TRACKED_CALLS, FdCache
from tracekit.decode.pidcomm import PidComms
from tracekit.decode.values import (
    DEFAULT_STRING_LIMIT,
    eth_protocol,
    format_argv,
    format_envp,
    format_sockaddr,
    format_timespec,
    hex0,
    pointer,
    quote,
    signed,
    xval,
)
from tracekit.kernel.syscall_protos import prototypes
from tracekit.kernel.syscalls import SyscallTable, format_ret

__all__ = ["SyscallDecoder", "kinds_for"]

ArgFn = Callable[["SyscallDecoder", Syscall, int], "str | None"]
_M32 = 0xFFFFFFFF
_MEMO_MAX = 4096        # entries per text memo; a full memo is emptied
_EBADF = 9             # include/uapi/asm-generic/errno-base.h


class _ArchConsts:
    """The constants of one arch that argument decoders test against (from its tables)."""

    __slots__ = ("flags", "o_creat", "o_tmpfile", "fcntl_dup", "af_inet", "af_netlink",
                 "af_packet", "clone", "clone_tls_first", "dev_types",
                 "kinds", "ret_kinds")

    def __init__(self, arch: str) -> None:
        self.flags = f = F.for_arch(arch)
        T = f.tables
        opens = {n: v for v, n in T.OPEN_FLAGS}
        # strace prints the mode with O_CREAT or __O_TMPFILE (O_TMPFILE's own bit)
        self.o_creat, self.o_tmpfile = opens["O_CREAT"], opens["__O_TMPFILE"]
        fcntl = {n: v for v, n in T.FCNTL_CMDS.items()}

        def cmds(*names: str) -> frozenset[int]:
            return frozenset(fcntl[n] for n in names if n in fcntl)
        self.fcntl_dup = cmds("F_DUPFD", "F_DUPFD_CLOEXEC")
        af = {n: v for v, n in T.ADDRESS_FAMILIES.items()}
        self.af_inet = frozenset({af["AF_INET"], af["AF_INET6"]})
        self.af_netlink = af["AF_NETLINK"]
        self.af_packet = af["AF_PACKET"]
        self.clone = {n: v for v, n in T.CLONE_FLAGS}
        self.clone_tls_first = arch != "x86_64"     # see _clone
        # the file types whose mknod prints its dev (character and block devices)
        self.dev_types = frozenset(F.const_value(T.S_IFMT, n) for n in ("S_IFCHR", "S_IFBLK"))
        self.kinds = _kinds(f)
        self.ret_kinds = {**structs_io.ret_kinds(f), **ops.ret_kinds(f),
                          **flagwords.ret_kinds(f), **structs_task.ret_kinds(f),
                          **structs_fs.ret_kinds(f), **structs_bpf.ret_kinds(f)}


@functools.cache
def _consts(arch: str) -> _ArchConsts:
    return _ArchConsts(arch)


def _fd(v: int) -> int:
    """An fd register as C's int: the low 32 bits, signed (small fds are the fast case)."""
    return v if v < 0x80000000 else signed(v, 32)


def k_d(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(signed(ev.args[i], 32))


def k_tgid(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A process or thread id (strace's printpid, PT_TGID/PT_TID): ``1234``, with -Y
    ``1234<sh>``; also kill's and wait4's pid (printpid_tgid_pgid: only a positive one,
    a process, is named; -N is a process group)."""
    pid = signed(ev.args[i], 32)
    comms = d.pid_comms
    return f"{pid}{comms.text(pid, ev.ts_ns)}" if comms is not None else str(pid)


def k_waitid_id(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """waitid's id: a process id (named with -Y) under P_PID (1), else a number (a
    process group under P_PGID, a pidfd under P_PIDFD)."""
    return k_tgid(d, ev, i) if ev.args[0] & _M32 == 1 else k_d(d, ev, i)


_WUNTRACED, _WCONTINUED = 2, 8      # include/uapi/linux/wait.h


def _reaps(ev: Syscall) -> bool:
    """Whether a successful wait4 reaped the child it returns: it did unless it asked
    for stopped or continued children (WUNTRACED, WCONTINUED) and its status says one."""
    if not ev.args[2] & (_WUNTRACED | _WCONTINUED):
        return True
    for cap in ev.caps:
        if cap.arg == 1 and len(cap.data) >= 4:
            status = int.from_bytes(cap.data[:4], "little")
            return not ((status & 0xFF) == 0x7F or status == 0xFFFF)
    return True


def k_ld(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(signed(ev.args[i], 32 if ev.flags & SC_COMPAT else 64))


def k_u(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(ev.args[i])


def _off64(ev: Syscall, lo: int) -> int:
    """The signed 64-bit offset of an i386 call split in two registers, the low half in
    argument ``lo`` and the high half in the next."""
    hi = ev.args[lo + 1] if lo + 1 < len(ev.args) else 0
    return signed((hi & 0xFFFFFFFF) << 32 | ev.args[lo] & 0xFFFFFFFF)


def k_off64(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(_off64(ev, i))


def k_loff_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A loff_t the call wrote (8 bytes, little-endian): ``[4096]``; its address unless
    the call succeeded and it was read."""
    cap = capture_out(ev, i)
    if cap is None or len(cap.data) < 8:
        return pointer(ev.args[i])
    return f"[{int.from_bytes(cap.data[:8], 'little', signed=True)}]"


def k_x(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return hex0(ev.args[i])


# --- 32-bit C types print the low half of their register
def k_u32(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return str(ev.args[i] & 0xFFFFFFFF)


def k_x32(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return hex0(ev.args[i] & 0xFFFFFFFF)


def k_uid(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """uid_t / gid_t: decimal, ``-1`` for (uid_t)-1 (strace's printuid)."""
    v = ev.args[i] & 0xFFFFFFFF
    return "-1" if v == 0xFFFFFFFF else str(v)


def k_p(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return pointer(ev.args[i])


def k_fd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return d.fd_text(ev.tgid, _fd(ev.args[i]))


def k_newfd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """dup2's and dup3's new fd: what it was before the call, from the fd table only (in
    /proc it may already be the call's copy of the old fd, or a later fd)."""
    return d.fd_text(ev.tgid, _fd(ev.args[i]), known_only=True)


def k_pidfdfd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """pidfd_getfd's fd: an fd of the process the pidfd (argument 0) refers to, decorated
    as that process's (strace's printfd_pid); a plain number when the pidfd is not one
    the fd table knows."""
    fd = _fd(ev.args[i])
    pid = d.fdcache.pidfd_owner(ev.tgid, _fd(ev.args[0])) if d.fd_paths else None
    return str(fd) if pid is None else d.fd_text(pid, fd)


def k_dirfd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    fd = _fd(ev.args[i])
    if fd == d.flags.AT_FDCWD:      # strace -y: AT_FDCWD</the/working/directory>
        return d.fd_text(ev.tgid, AT_FDCWD, xstyle.named(str(AT_FDCWD), "AT_FDCWD")
                         if xstyle.STYLE else "AT_FDCWD")
    return d.fd_text(ev.tgid, fd)


# strace reads a path as at most PATH_MAX bytes with its NUL (include/uapi/linux/limits.h):
# a longer one prints its first PATH_MAX - 1 bytes and "..."
_PATH_SHOWN = 4095


def k_path(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i)
    if cap is None:
        return pointer(ev.args[i])
    more = bool(cap.flags & CAPF_TRUNC)
    data = cap.data
    if len(data) > _PATH_SHOWN:
        data, more = data[:_PATH_SHOWN], True
    key = ("path", data, more)
    text = d.texts.get(key)
    return d.remember(key, quote(data, more=more)) if text is None else text


def k_str(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i)
    if cap is None:
        return pointer(ev.args[i])
    more = bool(cap.flags & CAPF_TRUNC)
    key = ("str", cap.data, more, d.string_limit)
    text = d.texts.get(key)
    if text is None:
        text = d.remember(key, quote(cap.data, limit=d.string_limit, more=more))
    return text


def k_bufw(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    cap = capture(ev, i) if ev.args[i] else None
    if cap is None:
        # strace's printstr_ex reads -s + 1 bytes of it at most: memory that ends
        # unreadable after them still prints (a partial read), sooner as the address
        got = readable(ev, i) if ev.args[i] else None
        if got is None or got[1] or len(got[0]) <= d.string_limit:
            return pointer(ev.args[i])
        return quote(got[0], limit=d.string_limit, more=True)
    n = ev.args[i + 1] if i + 1 < 6 else None
    more = bool(cap.flags & CAPF_TRUNC)
    key = ("bufw", cap.data, n, more, d.string_limit)
    text = d.texts.get(key)
    if text is None:
        text = d.remember(key, quote(cap.data[:n], limit=d.string_limit, more=more))
    return text


def k_bufprev(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A buffer whose length is the previous argument (kexec_file_load's cmdline, as
    strace's printstrn prints it: -s bytes, then ``...``); its address when unread."""
    cap = capture(ev, i) if ev.args[i] and i > 0 else None
    n = ev.args[i - 1] if i > 0 else 0
    if cap is None or len(cap.data) < min(n, d.string_limit):
        return pointer(ev.args[i])
    return quote(cap.data[:n], limit=d.string_limit, more=len(cap.data) < n)


_NEW_UTS_LEN = 64     # include/uapi/linux/utsname.h: the longest host or domain name


def k_utsname_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """sethostname/setdomainname's name: the ``len`` (an int: its low 32 bits) bytes
    the next argument says, no NUL; the address when ``len`` is more than a name may be
    (strace 6.1 reads no memory then)."""
    n = ev.args[i + 1] & 0xFFFFFFFF
    cap = capture(ev, i) if ev.args[i] and n <= _NEW_UTS_LEN else None
    if cap is None or len(cap.data) < n:
        return pointer(ev.args[i])
    return quote(cap.data[:n], limit=d.string_limit)


def _bufr(d: SyscallDecoder, ev: Syscall, i: int, force_hex: bool,
          bounded: bool = False) -> str:
    cap = capture(ev, i) if ev.args[i] else None     # NULL: strace prints NULL
    ret = ev.ret
    if bounded and ret > 0:     # ret may exceed the buffer (recvfrom with MSG_TRUNC)
        ret = min(ret, ev.args[i + 1])
    if cap is None or ret < 0 or ev.flags & (SC_UNFINISHED | SC_NORETURN):
        return pointer(ev.args[i])
    trunc = bool(cap.flags & CAPF_TRUNC)
    key = ("bufr", cap.data, ret, trunc, force_hex, d.string_limit)
    text = d.texts.get(key)
    if text is None:
        data = cap.data[:ret]
        more = trunc and len(data) < ret
        text = d.remember(key, quote(data, limit=d.string_limit, more=more,
                                     force_hex=force_hex))
    return text


def k_bufr(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return _bufr(d, ev, i, False)


def k_bufrx(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return _bufr(d, ev, i, True)


def k_bufrn(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A buffer the call filled, its length the next argument, of a call whose return
    may be larger than that length (recvfrom with MSG_TRUNC returns the datagram's
    length): strace prints no more than the buffer's length."""
    return _bufr(d, ev, i, False, bounded=True)


def k_argv(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """execve's argv: as many elements as the string limit (strace's -s), every one for
    a verbose decoder (strace -v) from a CAP_ENVP capture (read so for -v); a NULL array
    is ``NULL`` (what the BPF program read at exit from the new image is then the
    kernel's, not the caller's)."""
    cap = capture(ev, i) if ev.args[i] else None
    if cap is None or cap.kind not in (CAP_ARGV, CAP_ENVP):
        return pointer(ev.args[i])
    every = cap.kind == CAP_ENVP and d.full
    return format_argv(cap, limit=d.string_limit,
                       max_items=None if every else d.string_limit)


def k_parr_ret(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """An array the call wrote, its length the return value, under -e verbose= without
    the call: ``[]`` when the call wrote none, else its address."""
    return "[]" if ev.ret == 0 and ev.args[i] and not ev.flags & (
        SC_NORETURN | SC_UNFINISHED) else pointer(ev.args[i])


def _k_parr_arg(n: int) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """An array whose length is argument ``n``, under -e verbose= without the call:
    ``[]`` when that length is 0 (strace's print_array reads nothing then; NULL stays
    NULL), else its address."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return "[]" if ev.args[i] and not ev.args[n] & 0xFFFFFFFF else pointer(ev.args[i])
    return k


def k_nodes_addr(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A node mask under -e verbose= without the call: ``[]`` for a maxnode (the next
    argument) of 0 (strace's print_array of no longs reads nothing), else its address."""
    return "[]" if ev.args[i] and i < 5 and not ev.args[i + 1] else pointer(ev.args[i])


def k_envp(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return format_envp(ev.args[i], capture(ev, i))


def k_sockaddr(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A struct sockaddr the call reads, its length the next argument (an int): as
    strace 6.1 (sockaddr.c), an address when that length is below 2 bytes (no room for
    sa_family), negative lengths included."""
    if ev.args[i] == 0:
        return "NULL"           # sendto on a connected socket
    cap = capture(ev, i)
    addrlen = ev.args[i + 1] & 0xFFFFFFFF if i + 1 < len(ev.args) else 0
    if cap is None or not cap.data or addrlen < 2 or addrlen >= 1 << 31:
        return pointer(ev.args[i])
    return format_sockaddr(cap.data, d.flags.tables.ADDRESS_FAMILIES)


# -- wait, signal and time structs (tracekit.decode.structs_proc)

#: a timespec the call reads (nanosleep's request, futex's timeout)
k_timespec = decoded_in(format_timespec)


def k_wstatus(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """wait4's status: written only when a child was reaped (ret > 0)."""
    cap = capture_out(ev, i) if ev.ret > 0 else None
    if cap is None or len(cap.data) < 4:
        return pointer(ev.args[i])
    return SP.format_wait_status(int.from_bytes(cap.data[:4], "little"), d.flags)


def k_rusagew(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """wait4's rusage: strace decodes it only when a child was reaped (ret > 0); every
    field for a call not abbreviated."""
    cap = capture_out(ev, i) if ev.ret > 0 else None
    text = None if cap is None else (
        SP.format_rusage_verbose if d.full else SP.format_rusage)(cap.data)
    return pointer(ev.args[i]) if text is None else text


def _sigset(d: SyscallDecoder, ev: Syscall, i: int, cap: Capture | None) -> str:
    """A sigset whose size is argument 3 (rt_sigprocmask's sigsetsize): strace reads it
    only when 8 (the word size) <= size <= 8 (NSIG_BYTES), else prints the address."""
    if cap is None or ev.args[3] != SP.SIGSET_SIZE or len(cap.data) < SP.SIGSET_SIZE:
        return pointer(ev.args[i])
    return SP.format_sigset(cap.data[:SP.SIGSET_SIZE], d.flags)


def k_sigset_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return _sigset(d, ev, i, capture(ev, i))


def k_sigset_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    return _sigset(d, ev, i, capture_out(ev, i))


def k_sigpending_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """rt_sigpending's set: the ``sigsetsize`` bytes (argument 1, 1 to 8) the kernel
    wrote (kernel/signal.c do_sigpending, copy_to_user of sigsetsize bytes); the address
    when the call failed or the size is 0 (strace 6.1, checked on this machine)."""
    cap = capture_out(ev, i)
    n = ev.args[1]
    if cap is None or not 1 <= n <= SP.SIGSET_SIZE or len(cap.data) < n:
        return pointer(ev.args[i])
    return SP.format_sigset(cap.data[:n], d.flags)


def k_sigframe_mask(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """rt_sigreturn's ``{mask=[INT]}``: the mask its signal frame restores (args[0] is its
    address, put there by the BPF program: the call has no arguments); outside -e
    verbose= that address, as strace prints it (``{mask=0x7ffc9c8851a8}``)."""
    if d.addr_only:
        return f"{{mask={pointer(ev.args[i])}}}"
    cap = capture(ev, i)
    if cap is None or len(cap.data) < SP.SIGSET_SIZE:
        return pointer(ev.args[i])
    return f"{{mask={SP.format_sigset(cap.data[:SP.SIGSET_SIZE], d.flags)}}}"


def k_cpuset_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """sched_getaffinity's mask: the ``ret`` bytes the kernel wrote."""
    cap = capture_out(ev, i)
    if cap is None or ev.ret <= 0:
        return pointer(ev.args[i])
    return SP.format_cpuset(cap.data[:ev.ret])


def k_cpuset_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """sched_setaffinity's mask: the ``len`` (argument 1, an unsigned int) bytes it
    reads."""
    cap = capture(ev, i)
    if cap is None:
        return pointer(ev.args[i])
    return SP.format_cpuset(cap.data[:ev.args[1] & _M32])


def k_mincore_vec(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """mincore's vector: one byte per page of ``len`` (argument 1), when it succeeded
    (pages of this machine's size, as strace's get_pagesize)."""
    cap = capture_out(ev, i)
    if cap is None:
        return pointer(ev.args[i])
    return SP.format_mincore(cap.data, -(-ev.args[1] // mmap.PAGESIZE), elements_shown(d))


def k_omode(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    flags, c = ev.args[i - 1], d.consts
    if flags & (c.o_creat | c.o_tmpfile):
        return F.mode_octal(ev.args[i])
    return None


def k_mknoddev(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """mknod's dev after its mode: ``makedev(0x1, 0x3)`` (the low 32 bits, the kernel's
    ``unsigned int dev``) for a character or block device; None (not printed) for any
    other file type, as strace prints it."""
    if ev.args[i - 1] & 0o170000 not in d.consts.dev_types:
        return None
    return structs_fs.makedev(ev.args[i] & _M32)


def k_proto(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    fam, v, c = ev.args[0] & 0xFFFF, ev.args[i] & _M32, d.consts
    if fam in c.af_inet:
        return F.enum(c.flags.tables.IP_PROTOCOLS, v)
    if fam == c.af_packet:          # network byte order: htons(ETH_P_IP)
        return eth_protocol(v)
    if fam == c.af_netlink:         # strace: 0x63 /* NETLINK_??? */
        name = c.flags.tables.NETLINK_PROTOCOLS.get(v)
        return name if name is not None else f"{hex(v)} /* NETLINK_??? */"
    return str(signed(v, 32))


def _flags32(fn: Callable[[int], str]) -> ArgFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return fn(ev.args[i] & _M32)
    return k


def _enum32(table: dict[int, str]) -> ArgFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return F.enum(table, ev.args[i])
    return k


def _xval(table: dict[int, str], unknown: str, bits: int = 32) -> ArgFn:
    """A named constant of a 32-bit argument (the low half of its register; ``bits=64``
    for a ``long``); a value without a name as strace's printxval prints it:
    ``0xdeadbeef /* ITIMER_??? */``."""
    mask = (1 << bits) - 1

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i] & mask
        if v not in table and signed(v, bits) in table:     # negative constants (KEY_SPEC_*)
            return xstyle.named(str(signed(v, bits)), table[signed(v, bits)])
        return xval(table, v, unknown)
    return k


def _ipccmd(table: dict[int, str], unknown: str, ipc_64: int) -> ArgFn:
    """shmctl/semctl/msgctl's command: ``IPC_64|`` when that bit is set (the 64-bit
    structs), then the command's name or strace's unknown text."""
    named = _xval(table, unknown)

    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i] & _M32
        if not v & ipc_64:
            return named(d, ev, i) or ""
        rest = v & ~ipc_64
        name = table.get(rest)
        return "IPC_64|" + (name if name is not None else f"{hex0(rest)} /* {unknown} */")
    return k


def _xval_d(table: dict[int, str]) -> ArgFn:
    """A named constant of a signed 32-bit argument; a value without a name in decimal
    (strace's key serials: ``KEY_SPEC_SESSION_KEYRING``, ``-559038737``)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = signed(ev.args[i], 32)
        return table.get(v) or str(v)
    return k


def _clockid(table: dict[int, str]) -> ArgFn:
    """A clockid_t: its name, ``0x7eadbeef /* CLOCK_??? */`` for an unknown one, and so
    for a negative one too (a CPU-time clock of a pid, glibc's MAKE_PROCESS_CPUCLOCK:
    strace 6.1 prints ``0xfffffffe /* CLOCK_??? */``, checked on this machine)."""
    return _xval(table, "CLOCK_???")


def _clone(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """clone(2) printed as strace: ``child_stack=NULL, flags=CLONE_...|SIGCHLD,
    child_tidptr=0x...``.

    The argument order is the arch's: x86_64 passes (flags, stack, parent_tid, child_tid,
    tls); arm64 and i386 (compat records on x86_64) have tls before child_tid (the
    kernel's CONFIG_CLONE_BACKWARDS).
    """
    if ev.flags & SC_COMPAT or d.consts.clone_tls_first:
        flags, stack, ptid, tls, ctid = ev.args[:5]
    else:
        flags, stack, ptid, ctid, tls = ev.args[:5]
    out = [f"child_stack={pointer(stack)}", f"flags={d.flags.clone_flags(flags)}"]
    names = d.consts.clone
    if flags & names["CLONE_PARENT_SETTID"]:
        out.append(f"parent_tid={pointer(ptid)}")
    if flags & names["CLONE_SETTLS"]:
        out.append(f"tls={pointer(tls)}")
    if flags & (names["CLONE_CHILD_SETTID"] | names["CLONE_CHILD_CLEARTID"]):
        out.append(f"child_tidptr={pointer(ctid)}")
    return out


def _llseek(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """i386 ``_llseek(fd, offset_high, offset_low, result, whence)`` as strace prints it:
    ``_llseek(3, 4294967296, [4294967308], SEEK_END)``: the offset from its two halves
    (signed), the loff_t result (:func:`k_loff_out`), whence."""
    hi, lo = ev.args[1] & 0xFFFFFFFF, ev.args[2] & 0xFFFFFFFF
    whence = d._kinds["whence"](d, ev, 4)
    result = pointer(ev.args[3]) if d.addr_only else k_loff_out(d, ev, 3)
    return [k_fd(d, ev, 0), str(signed(hi << 32 | lo)), result,
            whence if whence is not None else str(ev.args[4])]


def _old_mmap(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """i386 ``mmap`` (old_mmap): its six arguments are 32-bit words of a struct at
    argument 0, printed as mmap2's are (``mmap(NULL, 4096, PROT_READ,
    MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)``, the offset in bytes); the struct's address when
    it was not read."""
    cap = capture(ev, 0)
    if cap is None or len(cap.data) < 24:
        return [pointer(ev.args[0])]
    inner = msgspec.structs.replace(ev, args=struct.unpack_from("<6I", cap.data), caps=())
    kinds = d._kinds
    return [text for k, kind in enumerate(("p", "u", "prot", "mmapflags", "fd", "x"))
            if (text := kinds[kind](d, inner, k)) is not None]


def _old_select(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """i386's old ``select`` (nr 82): its five arguments sit in a struct at argument 0
    (fs/select.c sys_old_select). When the BPF program read them (SC_INDIRECT) they are
    the record's arguments, printed as _newselect's (``select(2, [0], NULL, NULL,
    {tv_sec=0, tv_usec=100})``); else the struct's address, as strace prints it
    (``select(NULL)``)."""
    if not ev.flags & SC_INDIRECT:
        return [pointer(ev.args[0])]
    newselect = d.compat_table.nr("_newselect") if d.compat_table is not None else None
    if newselect is None:
        return [pointer(ev.args[0])]
    return list(d.call(newselect, True).args(d, ev))


def _kinds(f: F.ArchFlags) -> dict[str, ArgFn]:
    """Argument kind (``tracekit.decode.argspec``) -> decoder, with ``f``'s flag tables."""
    T = f.tables
    ipc_64 = next(v for v, n in T.IPC_CONSTS.items() if n == "IPC_64")
    return {
        "d": k_d, "tgid": k_tgid, "tid": k_tgid, "pidpg": k_tgid, "pgid": k_d,
        "waitid_id": k_waitid_id,
        "ld": k_ld, "u": k_u, "u64": k_u, "x": k_x, "raw": k_x, "p": k_p,
        "parr_ret": k_parr_ret, "parr0": _k_parr_arg(0), "parr1": _k_parr_arg(1),
        "nodes_addr": k_nodes_addr,
        "parr2": _k_parr_arg(2),
        "fd": k_fd, "newfd": k_newfd, "pidfdfd": k_pidfdfd, "dirfd": k_dirfd,
        "off64": k_off64, "loff_out": k_loff_out,
        "path": k_path, "str": k_str, "strr": k_bufr, "bufw": k_bufw, "bufprev": k_bufprev,
        "bufr": k_bufr,
        "utsname_in": k_utsname_in,
        "bufrx": k_bufrx, "bufrn": k_bufrn, "argv": k_argv, "envp": k_envp, "sockaddr": k_sockaddr,
        "timespec": k_timespec, "omode": k_omode, "proto": k_proto,
        "mknoddev": k_mknoddev,
        "oflags": _flags32(f.open_flags), "mode": _flags32(F.mode_octal),
        "fmode": _flags32(f.file_mode), "atflags": _flags32(f.at_flags),
        "statxflags": _flags32(f.statx_flags), "statxmask": _flags32(f.statx_mask),
        "faccessflags": _flags32(f.faccessat_flags),
        "unlinkflags": _flags32(f.unlinkat_flags),
        "renameflags": _flags32(f.rename_flags), "pipeflags": _flags32(f.pipe_flags),
        "sockflags": _flags32(f.sock_flags), "prot": lambda d, ev, i: f.prot(ev.args[i]),
        "mmapflags": _flags32(f.mmap_flags), "mremapflags": _flags32(f.mremap_flags),
        "madv": _xval(T.MADV_ADVICE, "MADV_???"),
        "sig": _flags32(lambda v: f.signal_name(signed(v, 32))),
        "how": _xval(T.SIGPROCMASK_HOW, "SIG_???"), "amode": _flags32(f.access_mode),
        "whence": _xval(T.SEEK_WHENCE, "SEEK_???"), "ioctl": _flags32(f.ioctl_request),
        "fcntlcmd": _flags32(f.fcntl_cmd), "af": _xval(T.ADDRESS_FAMILIES, "AF_???"),
        "socktype": _flags32(f.sock_type), "waitopts": _flags32(f.wait_options),
        "rlimit": _xval(T.RLIMIT_RESOURCES, "RLIMIT_???"),
        "archprctl": _xval(T.ARCH_PRCTL_OPTIONS, "ARCH_???"),
        "prctl": _xval(T.PRCTL_OPTIONS, "PR_???"), "grnd": _flags32(f.grnd_flags),
        "fadv": _xval(T.FADVISE_ADVICE, "POSIX_FADV_???"),
        "epollop": _xval(T.EPOLL_CTL_OPS, "EPOLL_CTL_???"),
        "clockid": _clockid(T.CLOCK_IDS),
        # named constants of the generated prototypes (tracekit.kernel.syscall_protos)
        "itimer": _xval(T.ITIMER_WHICH, "ITIMER_???"),
        "priowhich": _xval(T.PRIO_WHICH, "PRIO_???"),
        "schedpolicy": _xval(T.SCHED_POLICIES, "SCHED_???"),
        "keyctlcmd": _xval(T.KEYCTL_CMDS, "KEYCTL_???"), "keyspec": _xval_d(T.KEY_SPECS),
        "shuthow": _xval(T.SHUT_HOW, "SHUT_???"),
        "socketcall_call": _xval_d(T.SOCKETCALL_CALLS), "pin": k_p, "rebootarg": k_rebootarg,
        "fsconfigkey": k_fsconfigkey, "fsconfigvalue": k_fsconfigvalue,
        "fsconfigaux": k_fsconfigaux,
        "ptracereq": _xval(T.PTRACE_REQUESTS, "PTRACE_???", 64),
        "seccompop": _xval(T.SECCOMP_OPS, "SECCOMP_SET_MODE_???"),
        "ioprio_who": _xval(T.IOPRIO_WHO, "IOPRIO_WHO_???"),
        "kcmptype": _xval(T.KCMP_TYPES, "KCMP_???"),
        "membarriercmd": _xval(T.MEMBARRIER_CMDS, "MEMBARRIER_CMD_???"),
        "mclflags": _flags32(F.FlagSet(T.MCL_FLAGS, unknown="MCL_???")),
        "bpfcmd": _xval(T.BPF_CMDS, "BPF_???"),
        "landlockrule": _xval(T.LANDLOCK_RULES, "LANDLOCK_RULE_???"),
        "shmctlcmd": _ipccmd(T.SHMCTL_CMDS, "SHM_???", ipc_64),
        "semctlcmd": _ipccmd(T.SEMCTL_CMDS, "SEM_???", ipc_64),
        "msgctlcmd": _ipccmd(T.MSGCTL_CMDS, "MSG_???", ipc_64),
        "clone3flags": lambda d, ev, i: f.clone3_flags(ev.args[i]),
        # kinds of C types (tracekit.decode.argtypes)
        "u32": k_u32, "x32": k_x32, "uid": k_uid,
        # structs of processes, signals and time (tracekit.decode.structs_proc)
        "wstatus": k_wstatus, "rusagew": k_rusagew,
        "rusage": abbreviated(decoded_out(SP.format_rusage),
                              decoded_out(SP.format_rusage_verbose)),
        "siginfo_out": decoded_out(lambda b: SP.format_siginfo(b, f)),
        "sigaction_in": decoded_in(lambda b: SP.format_sigaction(b, f)),
        "sigaction_out": decoded_out(lambda b: SP.format_sigaction(b, f)),
        "sigset_in": k_sigset_in, "sigset_out": k_sigset_out,
        "sigpending_out": k_sigpending_out,
        "sigevent": decoded_in(lambda b: SP.format_sigevent(b, f)),
        "stack_in": decoded_in(lambda b: SP.format_stack_t(b, f)),
        "stack_out": decoded_out(lambda b: SP.format_stack_t(b, f)),
        "timespec_out": decoded_out(format_timespec), "timeval_out": decoded_out(SP.format_timeval),
        "timeval": decoded_in(SP.format_timeval, whole=True),
        "timezone": decoded_in(SP.format_timezone, whole=True),
        "timerflags": _flags32(f.timer_flags), "idtype": _xval(T.WAITID_TYPES, "P_???"),
        "id_out": decoded_out(SP.format_id), "cpuset_out": k_cpuset_out,
        "cpuset_in": k_cpuset_in, "mincore_vec": k_mincore_vec,
        # rt_sigreturn's restored mask (tracekit.decode.signals)
        "sigframe_mask": k_sigframe_mask,
        # structs of files: stat family, statfs, dirents, envp, limits, system info
        "rusagewho": _xval(T.RUSAGE_WHO, "RUSAGE_???"), **structs_fs.kinds(f),
        "dev": lambda d, ev, i: structs_fs.makedev(ev.args[i] & _M32),
        # capget/capset's header and data (tracekit.decode.structs_cred)
        **structs_cred.kinds(f),
        # I/O and socket structs (tracekit.decode.structs_io, structs_net)
        **structs_io.kinds(f), **structs_net.kinds(f), **structs_aio.kinds(f),
        **structs_netlink.kinds(f),
        **structs_bpf.kinds(f),
        **structs_perf.kinds(f),
        # System V IPC and message queue structs (tracekit.decode.structs_ipc)
        **structs_ipc.kinds(f),
        # per-thread and clock structs (tracekit.decode.structs_task)
        **structs_task.kinds(f),
        # calls whose arguments follow their operation (tracekit.decode.ops)
        **ops.kinds(f),
        # flag words of the calls only their prototypes describe (tracekit.decode.flagwords)
        **flagwords.kinds(f, k_str, k_dirfd),
    }


def kinds_for(arch: str) -> dict[str, ArgFn]:
    """The argument decoders of ``arch`` by kind name (``tracekit.decode.argspec``).

    Raises:
      ValueError: an architecture without flag tables.
    """
    return dict(_consts(arch).kinds)


SpecialFn = Callable[["SyscallDecoder", Syscall], list[str]]   # all argument texts at once
SPECIAL: dict[str, SpecialFn] = {
    "clone": _clone, "llseek": _llseek, "oldmmap": _old_mmap, "oldselect": _old_select,
    **ops.SPECIAL,
}
# Calls whose fds are in their arguments (an int[2] written at exit): the fd cache
# learns them before the arguments are printed.
_FDS_IN_ARGS = frozenset({"pipe", "pipe2", "socketpair"})


def k_rebootarg(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """reboot's argument: the command string of LINUX_REBOOT_CMD_RESTART2, else not
    printed (strace shows three arguments)."""
    restart2 = F.const_value(d.flags.tables.REBOOT_CMDS, "LINUX_REBOOT_CMD_RESTART2")
    return k_str(d, ev, i) if ev.args[i - 1] & 0xFFFFFFFF == restart2 else None


def _fsconfig_cmd(d: SyscallDecoder, ev: Syscall) -> str | None:
    cmds: dict[int, str] = d.flags.tables.FSCONFIG_CMDS
    return cmds.get(ev.args[1] & 0xFFFFFFFF)


_FSCONFIG_STR = 256     # strace reads fsconfig's key and string value as at most 256 bytes


def _fsconfig_str(d: SyscallDecoder, data: bytes, trunc: bool) -> str:
    """A string strace prints with ``printstr_ex(addr, 256, QUOTE_0_TERMINATED)``: -s
    bytes of it (256 at most), ``...`` when longer; with -s 256 or more a string of 256
    bytes or more is cut at 256 with ``...`` (its NUL is past what strace reads)."""
    if d.string_limit >= _FSCONFIG_STR:
        return quote(data[:_FSCONFIG_STR], more=trunc or len(data) >= _FSCONFIG_STR)
    return quote(data, limit=d.string_limit, more=trunc)


def k_fsconfigkey(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """fsconfig's key: a string for the FSCONFIG_SET_* commands, else an address."""
    cmd = _fsconfig_cmd(d, ev)
    if not cmd or not cmd.startswith("FSCONFIG_SET_"):
        return k_p(d, ev, i)
    cap = capture(ev, i) if ev.args[i] else None
    if cap is None:
        return pointer(ev.args[i])
    return _fsconfig_str(d, cap.data, bool(cap.flags & CAPF_TRUNC))


def k_fsconfigvalue(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """fsconfig's value: a string for FSCONFIG_SET_STRING (and a path for
    FSCONFIG_SET_PATH and FSCONFIG_SET_PATH_EMPTY), ``aux`` bytes in hex for
    FSCONFIG_SET_BINARY (``"\\x61\\x62"``), else an address."""
    cmd = _fsconfig_cmd(d, ev)
    kind = (CAP_STR if cmd in ("FSCONFIG_SET_STRING", "FSCONFIG_SET_PATH",
                               "FSCONFIG_SET_PATH_EMPTY")
            else CAP_BUF if cmd == "FSCONFIG_SET_BINARY" else None)
    if kind == CAP_BUF and ev.args[i] and signed(ev.args[i + 1], 32) == 0:
        return '""'                 # strace reads no byte of it (aux is an int)
    cap = next((c for c in ev.caps if c.arg == i and c.kind == kind
                and not c.flags & CAPF_FAULT), None) if ev.args[i] else None
    if cap is None:
        return pointer(ev.args[i])
    if kind == CAP_BUF:
        n = max(signed(ev.args[i + 1], 32), 0)
        return quote(cap.data[:n], limit=d.string_limit, force_hex=True,
                     more=bool(cap.flags & CAPF_TRUNC) and len(cap.data) < n)
    if cmd == "FSCONFIG_SET_STRING":
        return _fsconfig_str(d, cap.data, bool(cap.flags & CAPF_TRUNC))
    return quote(cap.data, more=bool(cap.flags & CAPF_TRUNC))


def k_fsconfigaux(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """fsconfig's aux: the fd of FSCONFIG_SET_FD, the dirfd of the path commands, else
    an int."""
    cmd = _fsconfig_cmd(d, ev)
    if cmd == "FSCONFIG_SET_FD":
        return k_fd(d, ev, i)
    if cmd in ("FSCONFIG_SET_PATH", "FSCONFIG_SET_PATH_EMPTY"):
        return k_dirfd(d, ev, i)
    return k_d(d, ev, i)


# Kinds that end the argument list when they return None (the rest is not printed).
_STOPPERS = frozenset({k_omode, k_mknoddev, structs_io.k_ioctlarg,
                       structs_io.k_ioctlarg_addr, structs_io.k_stop,
                       k_rebootarg, ops.k_archprctl_arg, ops.k_archprctl_arg_addr})
ArgsFn = Callable[["SyscallDecoder", Syscall], tuple[str, ...]]
_Deps = tuple[tuple[int, "str | None"], ...]   # (fd, target) pairs a text was made from


def _args_fn(fns: tuple[ArgFn, ...], special: SpecialFn | None, generic: int,
             addr_only: bool = False) -> ArgsFn:
    """One function that gives a call's argument texts, chosen once per syscall;
    ``addr_only`` (-e verbose= without the call): what a special decoder read from
    memory, a structure or an array (``{...}``, ``[...]``), as its argument's address."""
    if special is not None and addr_only:
        whole = special

        def addresses(d: SyscallDecoder, ev: Syscall) -> tuple[str, ...]:
            texts = whole(d, ev)
            # ptrace without its addr (PTRACE_GETREGS...): the data is argument 3
            at = (0, 1, 3) if whole is SPECIAL.get("ptrace") and len(texts) == 3 else \
                range(len(texts))
            return tuple(pointer(ev.args[i]) if i < len(ev.args) and t[:1] in ("{", "[")
                         else t for i, t in zip(at, texts, strict=True))
        return addresses
    if special is not None:
        return lambda d, ev: tuple(special(d, ev))
    if generic:
        n = abs(generic)
        return lambda d, ev: tuple([hex0(v) for v in ev.args[:n]])
    pairs = tuple(enumerate(fns))
    if _STOPPERS.isdisjoint(fns):
        # only the stoppers return None: every text here is a str
        texts = cast("tuple[tuple[int, Callable[[SyscallDecoder, Syscall, int], str]], ...]",
                     pairs)
        return lambda d, ev: tuple([fn(d, ev, i) for i, fn in texts])

    def args(d: SyscallDecoder, ev: Syscall) -> tuple[str, ...]:
        out = []
        for i, fn in pairs:
            text = fn(d, ev, i)
            if text is None:
                break
            out.append(text)
        return tuple(out)
    return args


# Some facts about strace 6.1's -e verbose= (src/ucopy.c umoven_or_printaddr*, print_array
# in src/util.c): a call left out of the set prints the address of every structure or
# array it would read (``fstat(3, 0x7ffd...)``, ``wait4(N, 0x7ffd..., 0, 0x7ffd...)``,
# ``poll(0x7ffd..., 40, 0) = 40``), NULL still as NULL; strings and data buffers are
# still read (umovestr, printstrn), and so are the scalar arguments. These are the
# argument kinds that read such memory; a call outside the set gets ``p`` for them.
DEREF_KINDS = frozenset("""
    argv envp addrlen_inout capdata_in capdata_out capheader cpuset_in cpuset_out dirents epollevent
    epollevents fdset futexwaiters gids_in gids_out id_out int_in int_out ioctlarg iovaddr
    iovr iovw itimerspec_in itimerspec_out itimerval_in itimerval_out ldt_desc len_inout
    loff_out mincore_vec mmsgvec mmsgvec_out mqattr_in mqattr_out msgbuf_in msgbuf_out
    msghdr_in msghdr_out nodes_in nodes_out off_in off_inout openhow pipefds pollfds
    ptr_out rem_out rlim_in rlim_out rusage rusagew sembufs sigaction_in sigaction_out
    sigevent siginfo_in siginfo_out sigmask sigpending_out sigset_in sigset_out sockaddr
    sockaddr_out stack_in stack_out stat stat64 statfs statfs64 statx sysinfo timespec
    timespec_out timeout_ts timeout_ts32 timeout_tv timeout_tv32 timet_out timeval
    timeval_out timex timezone tms uint_out user_desc utimbuf utimens utimes utsname
    wstatus perfattr uringparams iocb iocbpp ioevents ioevent_out aioctx_out
    landlockruleattr landlockrulesetattr schedattr_in schedattr_out pages_in pagenodes_in
    pagestatus_out mountattr kexecsegs bpfattr fhandle_in fhandle_inout mqattr_open
""".split())
# kinds with another address form: an array whose length is the return value prints
# ``[]`` when it is 0 (print_array reads nothing then); ioctl's argument is a value for
# some requests; a socket option's value is its address; a netlink message is the bytes
# of a plain buffer (strace decodes netlink only for a call it reads structures of)
_ADDR_KINDS = {"epollevents": "parr_ret", "ioctlarg": "ioctlarg_addr", "optval_in": "p",
               "optval_out": "p", "nlbufw": "bufw", "nlbufr": "bufrn",
               # arrays of a length another argument or the return value gives
               "gids_out": "parr_ret", "gids_in": "parr0", "ioevents": "parr_ret",
               "iocbpp": "parr1", "sembufs": "parr2", "futexwaiters": "parr1",
               "mincore_vec": "parr1", "pages_in": "parr1", "pagenodes_in": "parr1",
               "pagestatus_out": "parr1", "iovr": "parr2", "iovw": "parr2",
               "nodes_in": "nodes_addr",
               # structures whose kinds are not in DEREF_KINDS (they may be values)
               "shmctlarg": "p", "semctlarg": "p", "msgctlarg": "p", "migrate_nodes": "p",
               "mpolmode_out": "p", "pselect_sig": "p", "seccomparg": "p",
               "user_desc_entry": "p", "siginfo_w": "p", "archprctlarg": "archprctlarg_addr"}
# return kinds that print what the call wrote in a structure: their address form
_DEREF_RETS = {"poll": "poll_addr", "ppoll": "poll_addr", "select": "select_addr",
               "select32": "select32_addr", "pselect": "pselect_addr",
               # the time left and the clock state are read from the struct: not shown
               "recvmmsg": "d", "recvmmsg32": "d", "clockstate": "d"}


class _Call:
    __slots__ = ("name", "fns", "special", "ret", "generic", "fd_action", "path_arg", "args",
                 "fds_in_args", "described", "fd_kind", "full", "ret_fd", "addr_only",
                 "pids")

    def __init__(self, name: str, fns: tuple[ArgFn, ...], special: SpecialFn | None, ret: str,
                 generic: int, full: bool = False, ret_fd: bool = False,
                 addr_only: bool = False, pids: bool = False) -> None:
        self.name, self.fns, self.special, self.ret, self.generic = (
            name, fns, special, ret, generic)
        # strace's abbrev(tcp) false: every field of its structures (-v, -e abbrev=)
        self.full = full
        # outside -e verbose=: structures as their addresses
        self.addr_only = addr_only
        # it returns a new fd (also when printed as strace 6.1 prints a call it does not
        # know: in hex, ``ret_fd`` given)
        self.ret_fd = ret_fd or ret in ("fd", "bpffd")
        # the call may change the fd table (tracekit.decode.fdcache.FdCache.apply_call)
        self.fd_action = name in TRACKED_CALLS or self.ret_fd
        self.fds_in_args = name in _FDS_IN_ARGS
        # its record may say what its fds are, read in the kernel (FdCache.learn)
        self.described = name in DESCRIBED_CALLS
        self.path_arg = 0 if name in ("open", "creat") else 1
        # the fd cache's own path for the commonest changes (update_fds)
        # (open_tree_attr printed as strace 6.1's syscall_0x1d3: its path is argument 1)
        self.fd_kind = 1 if name == "close" else 2 if name in OPENS or ret_fd else 0
        self.args = _args_fn(fns, special, generic, addr_only)
        # it prints pids that -Y names (their names change: never memoized then)
        self.pids = pids


#: argument kinds and return kinds that print a pid strace -Y names (strace's printpid)
PID_KINDS = frozenset({"tgid", "tid", "pidpg", "waitid_id"})
PID_RETS = frozenset({"tgid", "tid", "wait", "child"})
#: calls whose structures or operations print such pids (siginfo's si_pid, ptrace's pid)
PID_CALLS = frozenset({"waitid", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                       "pidfd_send_signal", "rt_sigtimedwait", "ptrace", "kcmp",
                       "clone", "clone3", "fcntl", "fcntl64", "prctl", "getpriority",
                       "setpriority", "ioprio_get", "ioprio_set"})


class SyscallDecoder:
    """Decodes Syscall records as strace prints them.

    Args:
      table: the native syscall table (default: this machine's); its arch also picks the
        flag tables (``tracekit.decode.flags.for_arch``).
      compat_table: the i386 table for SC_COMPAT records (default: i386 on x86_64).
      arg_count: syscall name -> number of arguments (tracefs), for syscalls that
        neither ``tracekit.decode.argspec`` nor the shipped prototypes describe; default 6.
      arg_types: syscall name -> its arguments' (name, C type) pairs (tracefs formats),
        or None when unknown (then the shipped prototypes of the table's arch,
        ``tracekit.kernel.syscall_protos``, give them). A syscall the argspec does not
        list prints each argument by the kind its prototype gives (``int`` as the low 32
        bits, pointers ``NULL`` or hex, ``size_t`` decimal, named constants), or by its
        tracefs type (``tracekit.decode.argtypes.kind_of``) where tracefs describes it
        differently (a newer kernel); a listed one has its whole-register kinds narrowed
        on 32-bit types (``tracekit.decode.argtypes.narrowed``). Takes precedence over
        ``arg_count``.
      fd_paths: print fds as ``3</etc/passwd>`` (strace -yy), read through ``fdcache``.
      fdcache: the fd cache (default: a new one on /proc).
      string_limit: strace -s: bytes of strings and buffers shown (paths are whole).

    Raises:
      ValueError: the table's arch has no flag tables.

    Attributes:
      flags: the flag decoders of the table's arch.
      consts: the constants of the table's arch the argument decoders test against.
      unknown_nr: records whose syscall_nr no table names.
      texts: memo of argument texts that repeat (quoted strings and buffers by their
        bytes, fds with paths by (fd, target)); at most 4096 entries, then emptied.

    Repeated calls: a record equal to one decoded before in everything the text depends on
    (syscall_nr, compat, args, captures, ret, flags) gets the same ``Decoded`` back, when
    each fd it showed still has the target it had then (checked in the fd cache without
    reading /proc; a changed or absent entry decodes the record afresh). The fd cache is
    updated for every record all the same.
    """

    def __init__(self, table: SyscallTable | None = None,
                 compat_table: SyscallTable | None = None, *,
                 arg_count: Callable[[str], int | None] | None = None,
                 arg_types: Callable[[str], Sequence[tuple[str, str]] | None] | None = None,
                 fd_paths: bool = False, fdcache: FdCache | None = None,
                 string_limit: int = DEFAULT_STRING_LIMIT) -> None:
        self.table = table or SyscallTable()
        if compat_table is None and self.table.arch == "x86_64":
            compat_table = SyscallTable("i386")
        self.compat_table = compat_table
        # Compat (i386) records on x86_64 use the same flag values as x86_64's: one set.
        self.consts = _consts(self.table.arch)
        self.flags = self.consts.flags
        self._kinds = self.consts.kinds
        # an i386 call's kinds: the native ones, but for the structs of another layout
        self._kinds32 = {**self._kinds, **structs_compat.compat_kinds(self.flags),
                         "msghdr_in": self._kinds["msghdr_in32"],
                         "msghdr_out": self._kinds["msghdr_out32"],
                         "mmsgvec": self._kinds["mmsgvec32"],
                         "mmsgvec_out": self._kinds["mmsgvec_out32"]}
        self._prototypes = prototypes(self.table.arch)
        self.arg_count = arg_count
        self.arg_types = arg_types
        self.fdcache = fdcache if fdcache is not None else FdCache()
        self.unknown_nr = 0
        self.texts: dict[tuple[object, ...], str] = {}
        self._calls: dict[int, _Call] = {}
        self._errors: dict[int, str] = {}
        self._done: dict[tuple[object, ...], tuple[Decoded, _Deps, _Deps]] = {}
        # the same memo reached by the identity of the record's argument tuple, which
        # tracekit._events.decode_batch shares among the records of one repeated shape:
        # id(args) -> (args, caps, syscall_nr, ret, flags, its _Call, its _done entry);
        # a hit (the same objects, the same numbers) skips building and hashing the key
        self._same: dict[int, tuple[tuple[int, ...], tuple[object, ...], int, int, int,
                                    _Call, tuple[Decoded, _Deps, _Deps]]] = {}
        self._deps: list[tuple[int, str | None]] | None = None
        self._ebadf = False     # the call being decoded failed with EBADF
        self._fd_paths = fd_paths
        self._string_limit = string_limit
        # -e abbrev= / -e verbose= (strace's qual_flg): the (native, i386) numbers of the
        # calls printed abbreviated / whose structures are read; None: every call
        self._abbrev: tuple[frozenset[int], frozenset[int]] | None = None
        self._deref: tuple[frozenset[int], frozenset[int]] | None = None
        #: the call being decoded is printed unabbreviated (set per record from its
        #: ``_Call``; what the argument decoders read)
        self.full = False
        #: the call being decoded is outside ``-e verbose=`` (set per record from its
        #: ``_Call``): the decoders of whole calls (fcntl, the IPC ctl calls...) print
        #: the structures they would read as their addresses
        self.addr_only = False
        # each thread's last call: what restart_syscall resumes (strace's s_prev_ent)
        self._prev: dict[int, str] = {}
        self._strace61_names = False
        #: the output prints strings in hex (strace -x, -xx: the strace format's
        #: ``hex_strings``): strace then keeps the trailing NUL of a netlink string
        #: attribute, ``"\x6c\x6f\x00"...`` where it prints ``"lo"``
        self.hex_strings = False
        #: strace -Y: the names of pids (:class:`~tracekit.decode.pidcomm.PidComms`),
        #: printed after each pid strace names (``1234<sh>``); None: bare pids
        self.pid_comms: PidComms | None = None

    @property
    def strace61_names(self) -> bool:
        """Calls newer than strace 6.1 (:data:`NEWER_THAN_STRACE61`) are named and printed
        as strace 6.1 prints a number it does not know (``syscall_0x1c3``, every register
        in hex), not by their own names and C types (the strace format's choice)."""
        return self._strace61_names

    @strace61_names.setter
    def strace61_names(self, on: bool) -> None:
        self._strace61_names = on
        self._calls.clear()
        self._forget_done()

    @property
    def fd_paths(self) -> bool:
        return self._fd_paths

    @fd_paths.setter
    def fd_paths(self, on: bool) -> None:
        self._fd_paths = on
        self._forget_done()

    @property
    def verbose(self) -> bool:
        """strace -v (``-e abbrev=none``): every call's structs with every field
        (``stat``), not abbreviated. Setting it replaces :meth:`set_abbrev`'s sets."""
        return self._abbrev == (frozenset(), frozenset())

    @verbose.setter
    def verbose(self, on: bool) -> None:
        self.set_abbrev((frozenset(), frozenset()) if on else None)

    @property
    def abbrev(self) -> tuple[frozenset[int], frozenset[int]] | None:
        """The (native, i386) numbers of the calls printed abbreviated; None: all."""
        return self._abbrev

    @property
    def deref(self) -> tuple[frozenset[int], frozenset[int]] | None:
        """The (native, i386) numbers of the calls whose structures are read; None: all."""
        return self._deref

    def set_abbrev(self, calls: tuple[frozenset[int], frozenset[int]] | None) -> None:
        """strace's ``-e abbrev=SET``: only these calls (native numbers, i386 numbers)
        print their structures abbreviated, the others every field; None: every call
        abbreviated (strace's default), two empty sets: none (``-v``)."""
        self._abbrev = calls
        self._calls.clear()
        self._forget_done()

    def set_deref(self, calls: tuple[frozenset[int], frozenset[int]] | None) -> None:
        """strace's ``-e verbose=SET``: only these calls (native numbers, i386 numbers)
        read the structures and arrays their arguments point to, the others print
        their addresses (:data:`DEREF_KINDS`); None: every call (strace's default)."""
        self._deref = calls
        self._calls.clear()
        self._forget_done()

    @property
    def string_limit(self) -> int:
        return self._string_limit

    @string_limit.setter
    def string_limit(self, n: int) -> None:
        self._string_limit = n
        self._forget_done()

    def remember(self, key: tuple[object, ...], text: str) -> str:
        """Store ``text`` in :attr:`texts` (emptied first when full); returns it."""
        texts = self.texts
        if len(texts) >= _MEMO_MAX:
            texts.clear()
        texts[key] = text
        return text

    def call(self, nr: int, compat: bool) -> _Call:
        """The name and decoders of a syscall number (cached)."""
        key = nr << 1 | compat
        got = self._calls.get(key)
        if got is not None:
            return got
        table = self.compat_table if compat else self.table
        name = table.name(nr) if table is not None else None
        ret_fd = name in NEWER_FD_CALLS
        if name is None or table is None or table.nr(name) is None or (
                self._strace61_names and name in NEWER_THAN_STRACE61):
            name = f"syscall_{nr:#x}"       # a number no call has: strace 6.1's spelling
        spec = (ARGSPEC32.get(name) if compat else None) or ARGSPEC.get(name)
        generic = 0
        # tracefs and the shipped prototypes describe the native calls: an i386 call of
        # the same name may differ
        proto = None if compat else self._prototypes.get(name)
        types = (self.arg_types(name) if self.arg_types is not None and not compat
                 else None)
        if types is None and proto is not None:
            types = [(n, t) for n, t, _ in proto]
        if spec is None and proto is not None and [(n, t) for n, t, _ in proto] == list(
                types or ()):
            kinds: tuple[str, ...] = tuple(k for _, _, k in proto)
            ret = "d"
        elif spec is None and types is not None:
            # a syscall the shipped table does not describe (a newer kernel's)
            kinds = tuple(kind_of(n, t) for n, t in types)
            ret = "d"
        elif spec is None:
            kinds = ()
            ret = "d"
            n = self.arg_count(name) if self.arg_count is not None else None
            generic = 6 if n is None else n
        else:
            kinds, ret = spec
            if types is not None:
                kinds = tuple(narrowed(k, types[i][1]) if i < len(types) else k
                              for i, k in enumerate(kinds))
        if name.startswith("syscall_"):
            generic = -6 if generic in (0, 6) else -generic     # unknown: counted
            kinds, ret = (), "x"        # strace: every register, the return in hex
        # a spec whose last kind is a SPECIAL one decodes every argument with it; the
        # kinds before it only say what the first arguments are (fcntl's fd, for -P)
        special = SPECIAL.get(kinds[-1]) if kinds else None
        kind_fns = (self._kinds32 if compat and name not in SAME_LAYOUT32
                    else self._kinds)
        addr_only = self._deref is not None and nr not in self._deref[compat]
        if addr_only:
            # -e verbose= without this call: its structures as their addresses
            kinds = tuple(_ADDR_KINDS.get(k, "p") if k in DEREF_KINDS else
                          _ADDR_KINDS.get(k, k) for k in kinds)
            ret = _DEREF_RETS.get(ret, ret)
        fns = () if special else tuple(kind_fns[k] for k in kinds)
        full = self._abbrev is not None and nr not in self._abbrev[compat]
        pids = name in PID_CALLS or ret in PID_RETS or any(k in PID_KINDS for k in kinds)
        got = self._calls[key] = _Call(name, fns, special, ret, generic, full,
                                       ret_fd and name.startswith("syscall_"), addr_only,
                                       pids)
        return got

    def arg_total(self, nr: int, compat: bool) -> int | None:
        """How many arguments a native syscall's prototype has (the kernel's
        SYSCALL_DEFINEn: futex 6, clone 5, rt_sigreturn 0), what strace -e raw= prints
        whatever the operation; an i386 call's from strace's i386 table
        (:data:`I386_NARGS`) or its native twin's prototype; None for a call without
        a prototype."""
        name = self.call(nr, compat).name
        if compat:
            if name in I386_NARGS:
                return I386_NARGS[name]
            twin = self._prototypes.get(I386_TWINS.get(name, name))
            return None if twin is None else len(twin)
        proto = self._prototypes.get(name)
        if proto is not None:
            return len(proto)
        return self.arg_count(name) if self.arg_count is not None else None

    def fd_text(self, tgid: int, fd: int, name: str | None = None, *,
                known_only: bool = False) -> str:
        """``3`` or, with fd paths, ``3</etc/passwd>`` (strace -yy; :meth:`FdCache.text
        <tracekit.decode.fdcache.FdCache.text>`); ``name`` is printed instead of the
        number (``AT_FDCWD</home/u>``: the working directory only then; strace's printfd
        decorates no negative fd, ``open_by_handle_at(-100, ...)``); ``known_only``: from
        the fd table only, never /proc."""
        if self.fd_paths and (fd >= 0 or fd == AT_FDCWD and name is not None):
            # a call that failed with EBADF names its fds as the table had them: a
            # closed one may be open again in /proc by the time the call is decoded (the
            # working directory of AT_FDCWD is no fd the call could have lacked)
            deco = self.fdcache.known_text(tgid, fd) \
                if known_only or self._ebadf and fd >= 0 else \
                self.fdcache.text(tgid, fd)
            if self._deps is not None:
                self._deps.append((fd, deco))
            if deco is not None:
                return f"{name or fd}{deco}"
        return name or str(fd)

    def _forget_done(self) -> None:
        """Empty the memo of decoded records (a setting that changes their text)."""
        self._done.clear()
        self._same.clear()

    def decode(self, ev: Syscall) -> Decoded:
        """The record as strace prints it (see the module docstring)."""
        flags = ev.flags
        args = ev.args
        same = self._same.get(id(args))
        key: tuple[object, ...] | None = None
        done: tuple[Decoded, _Deps, _Deps] | None
        if same is not None and same[0] is args and same[1] is ev.caps and \
                same[2] == ev.syscall_nr and same[3] == ev.ret and same[4] == flags:
            # a record of a shape decoded before (what the checks below found then:
            # not restart_syscall, not described by its captures, in the memo)
            call, done = same[5], same[6]
            memo = True                 # only memoized records are remembered so
            if call.generic < 0:
                self.unknown_nr += 1
            prev = self._prev
            if len(prev) >= _MEMO_MAX:
                prev.clear()
            prev[ev.tid] = call.name
        else:
            compat = flags >> 3 & 1                         # SC_COMPAT
            nr_key = ev.syscall_nr << 1 | compat
            got = self._calls.get(nr_key)
            call = self.call(ev.syscall_nr, bool(compat)) if got is None else got
            if call.generic < 0:
                self.unknown_nr += 1
            prev = self._prev
            if call.name == "restart_syscall":
                # strace: ``restart_syscall(<... resuming interrupted nanosleep ...>)``,
                # the thread's previous call ("call" when none was seen)
                resumed = f"<... resuming interrupted {prev.get(ev.tid, 'call')} ...>"
                return Decoded(call.name, (resumed,), self._ret(ev, call))
            if len(prev) >= _MEMO_MAX:
                prev.clear()
            prev[ev.tid] = call.name
            key = (nr_key, args, ev.caps, ev.ret, flags)
            if call.described and self._fd_paths and (
                    not flags & (SC_UNFINISHED | SC_NORETURN | SC_RESUMED)
                    or flags & SC_ATTACHED) and self.fdcache.learn(
                        ev, at_exit=False):
                return self._decode_described(ev, call)
            # -Y: the names of its pids are those of the time of the call: not memoized
            memo = not call.pids or self.pid_comms is None
            done = self._done.get(key) if memo else None
            if done is not None:
                self._remember_same(ev, call, done)
        if done is not None:
            dec, arg_fds, ret_fds = done
            cache = self.fdcache
            if not arg_fds or cache.still(ev.tgid, arg_fds):
                if call.fd_action and self._fd_paths:
                    # update_fds, its commonest calls without the hop (same checks)
                    kind = call.fd_kind
                    if not kind or flags & (SC_UNFINISHED | SC_NORETURN | SC_RESUMED):
                        self.update_fds(ev, call)
                    elif kind == 1:
                        cache.apply_close(ev)
                    else:
                        cache.apply_open(ev, call.name, call.path_arg)
                if not ret_fds or cache.still(ev.tgid, ret_fds):
                    return dec
                self.full = call.full
                self.addr_only = call.addr_only
                return Decoded(dec.name, dec.args, self._ret(ev, call))
        if key is None:
            key = (ev.syscall_nr << 1 | flags >> 3 & 1, args, ev.caps, ev.ret, flags)
        deps: list[tuple[int, str | None]] = []
        self._deps = deps
        try:
            if call.fds_in_args and self._fd_paths:
                self.update_fds(ev, call)   # pipe's fds are printed among its arguments
            self.full = call.full
            self.addr_only = call.addr_only
            # a resumed call's arguments are unknown, unless read at its exit
            self._ebadf = ev.ret == -_EBADF
            texts = () if flags & SC_RESUMED and not flags & SC_ATTACHED else \
                call.args(self, ev)
            self._ebadf = False
            arg_fds = tuple(deps)
            deps.clear()
            if call.fd_action and self._fd_paths and not call.fds_in_args:
                self.update_fds(ev, call)   # before the return value: openat's new fd
            dec = Decoded(call.name, texts, self._ret(ev, call))
        finally:
            self._deps = None
        if memo:
            done_map = self._done
            if len(done_map) >= _MEMO_MAX:
                self._forget_done()
            done = done_map[key] = (dec, arg_fds, tuple(deps))
            self._remember_same(ev, call, done)
        return dec

    def _remember_same(self, ev: Syscall, call: _Call,
                       done: tuple[Decoded, _Deps, _Deps]) -> None:
        """File ``done`` (the memo's entry for ``ev``) under the identity of its
        argument tuple too."""
        same = self._same
        if len(same) >= _MEMO_MAX:
            same.clear()
        same[id(ev.args)] = (ev.args, ev.caps, ev.syscall_nr, ev.ret, ev.flags, call, done)

    def _decode_described(self, ev: Syscall, call: _Call) -> Decoded:
        """A call whose record says what its fds were (:meth:`FdCache.learn
        <tracekit.decode.fdcache.FdCache.learn>`; the entry's descriptions are applied):
        its arguments, the fd table's changes, the exit's descriptions, its return. Not
        memoized: the descriptions are of this call."""
        self.full = call.full
        self.addr_only = call.addr_only
        if call.fds_in_args:
            self.update_fds(ev, call)       # pipe's fds are printed among its arguments
            self.fdcache.learn(ev, at_exit=True)
        args = call.args(self, ev)
        if not call.fds_in_args:
            if call.fd_action:
                self.update_fds(ev, call)
            self.fdcache.learn(ev, at_exit=True)
        return Decoded(call.name, args, self._ret(ev, call))

    def _ret(self, ev: Syscall, call: _Call) -> str:
        ret = ev.ret
        if ev.flags & (SC_NORETURN | SC_UNFINISHED):
            return "?"
        if -4095 <= ret < 0:
            text = self._errors.get(ret)
            if text is None:
                text = self._errors[ret] = format_ret(ret)
            return text
        if call.ret == "d":
            return str(ret)
        return self.ret_text(ev, call.ret)

    def ret_text(self, ev: Syscall, kind: str) -> str:
        if ev.flags & (SC_NORETURN | SC_UNFINISHED):
            return "?"
        ret = ev.ret
        if -4095 <= ret < 0:
            return format_ret(ret)
        if kind == "x":
            return hex0(ret & ((1 << 64) - 1))
        if kind == "fd":
            return self.fd_text(ev.tgid, ret)
        if kind == "mode":
            return F.mode_octal(ret)
        if kind in ("tgid", "tid", "wait", "child"):
            comms = self.pid_comms
            if comms is None or ret <= 0:
                return str(ret)
            if kind == "child":
                # the new task has its parent's name until it execs (its fork record
                # may come after this line: the call's entry time orders it first)
                if not comms.follow:        # untraced: named as at its fork, no more
                    return f"{ret}{comms.prefix_comm(ev.tid)}"
                comms.forked(ev.tid, ret)
            done = ev.ts_ns + ev.duration_ns
            if kind == "wait" and _reaps(ev):
                # the wait reaped it: strace prints after that, and finds no name
                comms.reaped(ret, done)
                return str(ret)
            return f"{ret}{comms.text(ret, done)}"
        fn = self.consts.ret_kinds.get(kind)
        if fn is not None:
            return fn(self, ev, str(ret))
        return str(ret)

    def update_fds(self, ev: Syscall, call: _Call) -> None:
        """Keep the fd cache true after ``ev`` (:meth:`decode` calls it when fd paths
        are on, after the arguments and before the return value)."""
        if ev.flags & (SC_UNFINISHED | SC_NORETURN | SC_RESUMED) and \
                not ev.flags & SC_ATTACHED:
            return          # the arguments or the result are unknown
        kind = call.fd_kind
        if kind == 1:
            self.fdcache.apply_close(ev)
            return
        if kind == 2:
            self.fdcache.apply_open(ev, call.name, call.path_arg)
            return
        self.fdcache.apply_call(
            ev, call.name, ret_fd=call.ret_fd, path_arg=call.path_arg,
            dupfd=call.name in ("fcntl", "fcntl64")
            and ev.args[1] & _M32 in self.consts.fcntl_dup)

    def track(self, ev: Event) -> None:
        """Apply an event that is not a shown call to the fd cache: a call the selection
        hid (FdState), a fork, an exec, the fds an exec kept, a snapshot, an exit
        (:meth:`FdCache.observe <tracekit.decode.fdcache.FdCache.observe>`)."""
        if isinstance(ev, FdState):
            call = ev.call
            c = self.call(call.syscall_nr, bool(call.flags & SC_COMPAT))
            described = c.described and self.fdcache.learn(call, at_exit=False)
            if c.fd_action:
                self.update_fds(call, c)
            if described:
                self.fdcache.learn(call, at_exit=True)
        elif not isinstance(ev, Syscall):
            self.fdcache.observe(ev)
