"""Process, signal and time structs as strace 6.1 prints them by default (``-v`` off).

The bytes come from captures (``Capture.data``, read by the BPF program at entry for what
a call reads, at exit for what it writes; specs in ``tracekit.session.capture``); the
argument decoders that pick these per syscall are in ``tracekit.decode.args``. Every
function here takes the struct's bytes (and the flag decoders of the arch the record is
from) and returns text, or None when the bytes are too short for the struct (the caller
then prints the address, as strace does for memory it cannot read).

Layouts are the kernel's (little-endian, LP64) on x86_64 and arm64; where the two
differ (``struct sigaction``) the arch is a parameter.
"""

from __future__ import annotations

import struct

from tracekit.decode import xstyle
from tracekit.decode.flags import ArchFlags
from tracekit.decode.values import xval

__all__ = [
    "RUSAGE_SIZE", "SIGACTION_SIZE", "SIGEVENT_SIZE", "SIGINFO_SIZE", "SIGSET_SIZE",
    "STACK_T_SIZE", "TIMEVAL_SIZE", "TIMEZONE_SIZE", "clock_t", "format_cpuset", "format_id",
    "format_rusage", "format_rusage_verbose",
    "format_sigaction", "format_sigevent", "format_siginfo", "format_sigset",
    "format_stack_t", "format_timeval", "format_timezone", "format_wait_status", "sa_handler",
]

SIGSET_SIZE = 8             # the kernel's sigset_t: _NSIG (64) bits; NSIG_BYTES in strace
TIMEVAL_SIZE = 16           # struct __kernel_old_timeval: two longs
TIMEZONE_SIZE = 8           # struct timezone, include/uapi/linux/time.h: two ints
RUSAGE_SIZE = 144           # struct rusage, include/uapi/linux/resource.h
STACK_T_SIZE = 24           # stack_t, include/uapi/asm-generic/signal.h
SIGINFO_SIZE = 128          # siginfo_t, include/uapi/asm-generic/siginfo.h (SI_MAX_SIZE)
SIGEVENT_SIZE = 32          # the part of struct sigevent (64 bytes) that strace prints
# struct sigaction as rt_sigaction(2) reads it (include/linux/signal_types.h): x86_64 has
# __ARCH_HAS_SA_RESTORER (arch/x86/include/asm/signal.h), arm64 does not: its 64-bit
# struct is {sa_handler, sa_flags, sa_mask}.
SIGACTION_SIZE = {"x86_64": 32, "arm64": 24}

_SA_RESTORER = 0x04000000
# CLD_* si_codes of SIGCHLD (include/uapi/asm-generic/siginfo.h)
_CLD_CODES = {1: "CLD_EXITED", 2: "CLD_KILLED", 3: "CLD_DUMPED", 4: "CLD_TRAPPED",
              5: "CLD_STOPPED", 6: "CLD_CONTINUED"}
_SIGCHLD = 17               # the same number on x86_64 and arm64 (asm-generic numbering)


def format_sigset(data: bytes, flags: ArchFlags) -> str:
    """A sigset_t of ``len(data)`` bytes (1..8): ``[]``, ``[INT CHLD]``, ``~[RTMIN RT_1]``.

    Layout: the kernel's ``sigset_t`` (arch/x86/include/asm/signal.h,
    include/uapi/asm-generic/signal.h): bit ``n - 1`` of the little-endian word is
    signal ``n``. Names drop ``SIG``; real-time signals are ``RTMIN``, ``RT_1``...

    strace's rule (sprintsigmask_n): the set is read in 4-byte words; when at least 2/3
    of its bits are set, the signals NOT in it are printed after ``~``.
    """
    data = data[:SIGSET_SIZE]
    words = (len(data) + 3) // 4
    nbits = words * 32
    mask = int.from_bytes(data.ljust(words * 4, b"\0"), "little")
    prefix = ""
    if mask.bit_count() >= nbits * 2 // 3:
        mask = ~mask & ((1 << nbits) - 1)
        prefix = "~"
    names = []
    sig = 1
    while mask:
        if mask & 1:
            name = flags.signal_abbrev(sig)
            name = name[3:] if name.startswith("SIG") else name
            # -X raw: 32; -X verbose: 32 /* RTMIN */ (tracekit.decode.xstyle)
            names.append(xstyle.named(str(sig), name) if xstyle.STYLE else name)
        mask >>= 1
        sig += 1
    return f"{prefix}[{' '.join(names)}]"


def sa_handler(v: int, flags: ArchFlags) -> str:
    """A handler address: ``SIG_DFL``, ``SIG_IGN``, ``SIG_ERR`` or hex."""
    name = flags.tables.SIG_HANDLERS.get(v - (1 << 64) if v >> 63 else v)
    if name is None:
        return hex(v)
    return xstyle.named(hex(v) if v else "0", name) if xstyle.STYLE else name


def format_sigaction(data: bytes, flags: ArchFlags) -> str | None:
    """A ``struct sigaction`` as rt_sigaction(2) passes it.

    x86_64 (32 bytes)::

        0  sa_handler   unsigned long
        8  sa_flags     unsigned long
        16 sa_restorer  unsigned long     (only where __ARCH_HAS_SA_RESTORER)
        24 sa_mask      sigset_t (8 bytes)

    arm64 (24 bytes): the same without ``sa_restorer`` (mask at 16).

    Printed ``{sa_handler=SIG_DFL, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART,
    sa_restorer=0x7f...}``: ``sa_restorer`` only when SA_RESTORER is set and the arch
    has the field.
    """
    restorer = flags.arch == "x86_64"
    size = SIGACTION_SIZE.get(flags.arch, 0)
    if not size or len(data) < size:
        return None
    handler, sa_flags = struct.unpack_from("<QQ", data)
    mask = data[24:32] if restorer else data[16:24]
    out = (f"{{sa_handler={sa_handler(handler, flags)}, "
           f"sa_mask={format_sigset(mask, flags)}, sa_flags={flags.sa_flags(sa_flags)}")
    if restorer and sa_flags & _SA_RESTORER:
        out += f", sa_restorer={_ptr(struct.unpack_from('<Q', data, 16)[0])}"
    return out + "}"


def format_wait_status(status: int, flags: ArchFlags) -> str:
    """The int a wait4(2) status pointer received, as strace's printstatus.

    ``[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]``,
    ``[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL && WCOREDUMP(s)}]``,
    ``[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}]``, ``[{WIFCONTINUED(s)}]``; bits the
    macros do not account for follow as ``| 0x...`` (a ptrace event in bits 16-31 as
    ``| 0x3 << 16``: by number, not strace's PTRACE_EVENT_* name). Encoding
    (include/uapi/linux/wait.h and glibc's bits/waitstatus.h): low 7 bits the terminating
    signal (0: exited, 0x7f: stopped), bit 7 the core flag, bits 8-15 the exit status or
    stop signal; 0xffff: continued.
    """
    status &= 0xFFFFFFFF
    low, high = status & 0x7F, (status >> 8) & 0xFF
    if status & 0xFF == 0x7F:                                 # WIFSTOPPED
        head = (f"{{WIFSTOPPED(s) && WSTOPSIG(s) == {flags.signal_name(high & 0x7F)}"
                + (" | 0x80" if high & 0x80 else "") + "}")
        rest = status & ~((high << 8) | 0x7F)
    elif low and low != 0x7F:                                 # WIFSIGNALED
        head = (f"{{WIFSIGNALED(s) && WTERMSIG(s) == {flags.signal_name(low)}"
                + (" && WCOREDUMP(s)" if status & 0x80 else "") + "}")
        rest = status & ~(low | 0x80)
    elif low == 0:                                            # WIFEXITED
        head = f"{{WIFEXITED(s) && WEXITSTATUS(s) == {high}}}"
        rest = status & ~(high << 8)
    elif status == 0xFFFF:                                    # WIFCONTINUED
        head, rest = "{WIFCONTINUED(s)}", 0
    else:
        return f"[{status:#x}]"
    if rest:
        event = rest >> 16
        if event:
            head += f" | {event:#x} << 16"
            rest &= 0xFFFF
        if rest:
            head += f" | {rest:#x}"
    return f"[{head}]"


def format_timeval(data: bytes) -> str | None:
    """A ``struct __kernel_old_timeval`` (two longs, 16 bytes):
    ``{tv_sec=1733110000, tv_usec=123456}``."""
    if len(data) < TIMEVAL_SIZE:
        return None
    sec, usec = struct.unpack_from("<qQ", data)     # tv_usec unsigned, as strace
    return f"{{tv_sec={sec}, tv_usec={usec}}}"


def format_timezone(data: bytes) -> str | None:
    """A ``struct timezone`` (two ints): ``{tz_minuteswest=-60, tz_dsttime=0}``, both
    signed, as strace 6.1 prints settimeofday's."""
    if len(data) < TIMEZONE_SIZE:
        return None
    west, dst = struct.unpack_from("<ii", data)
    return f"{{tz_minuteswest={west}, tz_dsttime={dst}}}"


def format_rusage(data: bytes) -> str | None:
    """A ``struct rusage`` (include/uapi/linux/resource.h, 144 bytes), abbreviated as
    strace prints it without ``-v``: ``{ru_utime={tv_sec=0, tv_usec=306},
    ru_stime={tv_sec=0, tv_usec=0}, ...}``.

    Layout: ``ru_utime`` (timeval) at 0, ``ru_stime`` at 16, then 14 longs (ru_maxrss...).
    """
    if len(data) < RUSAGE_SIZE:
        return None
    return (f"{{ru_utime={format_timeval(data[:16])}, "
            f"ru_stime={format_timeval(data[16:32])}, ...}}")


_RUSAGE_LONGS = ("ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt",
                 "ru_nswap", "ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv",
                 "ru_nsignals", "ru_nvcsw", "ru_nivcsw")


def format_rusage_verbose(data: bytes) -> str | None:
    """A ``struct rusage`` with every field, as strace -v prints it: the two times, then
    the 14 longs (``ru_maxrss=1076, ..., ru_nivcsw=0``) in decimal, unsigned as strace
    prints them (printrusage.c: PRINT_FIELD_U)."""
    if len(data) < RUSAGE_SIZE:
        return None
    longs = struct.unpack_from("<14Q", data, 32)
    rest = ", ".join(f"{n}={v}" for n, v in zip(_RUSAGE_LONGS, longs, strict=True))
    return (f"{{ru_utime={format_timeval(data[:16])}, "
            f"ru_stime={format_timeval(data[16:32])}, {rest}}}")


def format_stack_t(data: bytes, flags: ArchFlags) -> str | None:
    """A ``stack_t`` (sigaltstack(2); include/uapi/asm-generic/signal.h, 24 bytes)::

        0  ss_sp     void *
        8  ss_flags  int        (4 bytes of padding follow)
        16 ss_size   size_t

    ``{ss_sp=0x7f..., ss_flags=0, ss_size=16384}``; ``ss_flags=SS_DISABLE``.
    """
    if len(data) < STACK_T_SIZE:
        return None
    sp, ss_flags, size = struct.unpack_from("<QixxxxQ", data)
    fl = flags.ss_flags(ss_flags & 0xFFFFFFFF)
    return f"{{ss_sp={_ptr(sp)}, ss_flags={fl}, ss_size={size}}}"


def format_siginfo(data: bytes, flags: ArchFlags) -> str | None:
    """A ``siginfo_t`` as waitid(2) fills it (include/uapi/asm-generic/siginfo.h)::

        0  si_signo  int       4  si_errno  int       8  si_code  int
        16 si_pid    int       20 si_uid    unsigned  24 si_status int
        32 si_utime  long      40 si_stime  long          (the _sigchld member)

    ``{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=123, si_uid=0, si_status=0,
    si_utime=0, si_stime=0}``; a zeroed siginfo (WNOHANG, no child changed) is ``{}``.
    Only SIGCHLD's member is decoded (what waitid writes); other signals print their
    number and code.
    """
    if len(data) < 48:
        return None
    signo, errno, code = struct.unpack_from("<iii", data)
    if signo == 0:
        return "{}"
    out = f"{{si_signo={flags.signal_name(signo)}"
    if errno:
        out += f", si_errno={errno}"
    if signo != _SIGCHLD:
        return f"{out}, si_code={code}}}"
    pid, uid, status = struct.unpack_from("<iIi", data, 16)
    utime, stime = struct.unpack_from("<QQ", data, 32)     # strace: as unsigned
    st = str(status) if code == 1 else flags.signal_name(status)
    name = _CLD_CODES.get(code)
    cld = str(code) if name is None else xstyle.named(hex(code) if code else "0", name)
    return (f"{out}, si_code={cld}, si_pid={pid}, "
            f"si_uid={uid}, si_status={st}, si_utime={clock_t(utime)}, "
            f"si_stime={clock_t(stime)}}}")


# sigev_notify values whose sigev_signo is a signal (the others: a plain number)
_SIGEV_SIGNAL, _SIGEV_THREAD, _SIGEV_THREAD_ID = 0, 2, 4


def format_sigevent(data: bytes, flags: ArchFlags) -> str | None:
    """A ``struct sigevent`` as timer_create(2) reads it (include/uapi/asm-generic/
    siginfo.h, LP64)::

        0  sigev_value   union {int sival_int; void *sival_ptr} (8 bytes)
        8  sigev_signo   int        12 sigev_notify int
        16 the union, by sigev_notify:
           SIGEV_THREAD_ID: 16 _tid int
           SIGEV_THREAD:    16 _function ptr  24 _attribute ptr

    ``{sigev_value={sival_int=7, sival_ptr=0x7}, sigev_signo=SIGUSR2,
    sigev_notify=SIGEV_SIGNAL}``, as strace 6.1 prints it (checked on this machine):
    sigev_value only when sival_ptr is not 0; the signal by name when the notification
    sends one (SIGEV_SIGNAL, SIGEV_THREAD, SIGEV_THREAD_ID), else unsigned; an unknown
    notification as ``0x4d /* SIGEV_??? */``.
    """
    if len(data) < SIGEVENT_SIZE:
        return None
    ival, ptr = struct.unpack_from("<i", data)[0], struct.unpack_from("<Q", data)[0]
    signo, notify = struct.unpack_from("<iI", data, 8)
    parts = []
    if ptr:
        parts.append(f"sigev_value={{sival_int={ival}, sival_ptr={ptr:#x}}}")
    if notify in (_SIGEV_SIGNAL, _SIGEV_THREAD, _SIGEV_THREAD_ID):
        parts.append(f"sigev_signo={flags.signal_name(signo)}")
    else:
        parts.append(f"sigev_signo={signo & 0xFFFFFFFF}")
    parts.append(f"sigev_notify={xval(flags.tables.SIGEV_NOTIFY, notify, 'SIGEV_???')}")
    if notify == _SIGEV_THREAD_ID:
        parts.append(f"sigev_notify_thread_id={struct.unpack_from('<i', data, 16)[0]}")
    elif notify == _SIGEV_THREAD:
        fn, attr = struct.unpack_from("<QQ", data, 16)
        parts += [f"sigev_notify_function={_ptr(fn)}",
                  f"sigev_notify_attributes={_ptr(attr)}"]
    return "{" + ", ".join(parts) + "}"


def clock_t(v: int, clk_tck: int = 100) -> str:
    """A clock_t count as strace prints it: ``0``, ``388 /* 3.88 s */`` (seconds at
    ``clk_tck`` ticks a second; USER_HZ is 100 on x86_64 and arm64).

    waitid(2) leaves si_utime/si_stime as they were in user memory, so these are often
    whatever the caller's stack held: strace and tracekit read the same bytes.
    """
    if not v or xstyle.STYLE == xstyle.RAW:     # -X raw: the number alone (strace 6.1)
        return str(v)
    width = len(str(clk_tck)) - 1
    frac = v % clk_tck * 10 ** width // clk_tck
    return f"{v} /* {v // clk_tck}.{frac:0{width}d} s */"


def format_id(data: bytes) -> str | None:
    """A uid_t/gid_t a call wrote (getresuid(2)): ``[0]``; ``[-1]`` for (uid_t)-1."""
    if len(data) < 4:
        return None
    v = int.from_bytes(data[:4], "little")
    return "[-1]" if v == 0xFFFFFFFF else f"[{v}]"


def format_mincore(data: bytes, pages: int, limit: int = 32) -> str:
    """mincore(2)'s vector of ``pages`` bytes (bit 0: the page is resident), as strace
    prints it: ``[1, 0, 1]``, the first ``limit`` (strace -s) then ``...``; ``data`` may
    hold more bytes than the vector (the rest is not shown) or fewer (shown as read)."""
    shown = [str(b & 1) for b in data[:min(pages, limit)]]
    if pages > limit:
        shown.append("...")
    return f"[{', '.join(shown)}]"


def format_cpuset(data: bytes) -> str:
    """A CPU mask (sched_getaffinity(2): ``len`` bytes of unsigned longs, bit n of the
    little-endian array is CPU n), as strace's list of CPU numbers: ``[0 1]``."""
    mask = int.from_bytes(data, "little")
    cpus = []
    n = 0
    while mask:
        if mask & 1:
            cpus.append(str(n))
        mask >>= 1
        n += 1
    return f"[{' '.join(cpus)}]"


def _ptr(v: int) -> str:
    return "NULL" if v == 0 else hex(v)
