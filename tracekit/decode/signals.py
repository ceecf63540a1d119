"""Signal deliveries as strace 6.1 prints them: ``--- SIGCHLD {si_signo=SIGCHLD, ...} ---``.

The bytes are the first 48 of the kernel's ``struct kernel_siginfo`` (the ``info`` of a
:class:`~tracekit._events.Signal`, read by the ``signal_deliver`` BPF program): the uapi
siginfo layout, include/uapi/asm-generic/siginfo.h, the same on x86_64 and arm64 (LP64)::

    0  si_signo int     4  si_errno int     8  si_code int     12 (padding)
    16 the union, by si_code/si_signo:
       kill (SI_USER, SI_TKILL):     16 si_pid int   20 si_uid u32
       rt (SI_QUEUE, SI_MESGQ...):   16 si_pid int   20 si_uid u32   24 si_value (int|ptr)
       timer (SI_TIMER):             16 si_tid int   20 si_overrun int  24 si_value
       sigchld (CLD_*):              16 si_pid int   20 si_uid u32   24 si_status int
                                     32 si_utime long  40 si_stime long
       sigfault (ILL/FPE/SEGV/BUS/TRAP): 16 si_addr ptr
       sigpoll (POLL_*):             16 si_band long 24 si_fd int
       sigsys (SYS_*):               16 si_call_addr ptr  24 si_syscall int  28 si_arch u32

What strace prints of each (its printsiginfo.c, checked against ``strace -f -q`` on this
machine): the signal, the code by name (per signal for codes > 0, the SI_* names for codes
<= 0 and SI_KERNEL), the errno when set (its name, or the number as unsigned), then the
member the code selects; ``{}`` for a signal number 0.

The si_code tables are include/uapi/asm-generic/siginfo.h, which both arches use
unchanged; the signal numbers below (SIGILL 4 ... SIGSYS 31) are asm-generic's too.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from tracekit.decode import xstyle
from tracekit.decode.flags import ArchFlags
from tracekit.decode.structs_proc import clock_t
from tracekit.decode.structs_seccomp import syscall_nr_text
from tracekit.decode.values import hex0, xval
from tracekit.kernel.syscalls import errno_name

__all__ = ["SIGINFO_LEN", "SIGKILL", "si_code_name", "signal_line", "siginfo_text",
           "stopped_line"]

SIGINFO_LEN = 48            # bytes of kernel_siginfo the BPF program copies

SIGKILL = 9                 # delivered without a siginfo (the kernel's SEND_SIG_NOINFO)
_SIGILL, _SIGTRAP, _SIGBUS, _SIGFPE, _SIGSEGV = 4, 5, 7, 8, 11
_SIGCHLD, _SIGPOLL, _SIGSYS = 17, 29, 31

_SI_USER, _SI_KERNEL, _SI_QUEUE, _SI_TIMER, _SI_SIGIO, _SI_TKILL = 0, 0x80, -1, -2, -5, -6
# codes <= 0 (sent by a process: SI_FROMUSER) and SI_KERNEL, any signal
_SI_CODES = {0: "SI_USER", 0x80: "SI_KERNEL", -1: "SI_QUEUE", -2: "SI_TIMER",
             -3: "SI_MESGQ", -4: "SI_ASYNCIO", -5: "SI_SIGIO", -6: "SI_TKILL",
             -7: "SI_DETHREAD", -60: "SI_ASYNCNL"}
# codes > 0, per signal
_CODES: dict[int, dict[int, str]] = {
    _SIGILL: {1: "ILL_ILLOPC", 2: "ILL_ILLOPN", 3: "ILL_ILLADR", 4: "ILL_ILLTRP",
              5: "ILL_PRVOPC", 6: "ILL_PRVREG", 7: "ILL_COPROC", 8: "ILL_BADSTK",
              9: "ILL_BADIADDR"},
    _SIGFPE: {1: "FPE_INTDIV", 2: "FPE_INTOVF", 3: "FPE_FLTDIV", 4: "FPE_FLTOVF",
              5: "FPE_FLTUND", 6: "FPE_FLTRES", 7: "FPE_FLTINV", 8: "FPE_FLTSUB",
              14: "FPE_FLTUNK", 15: "FPE_CONDTRAP"},
    _SIGSEGV: {1: "SEGV_MAPERR", 2: "SEGV_ACCERR", 3: "SEGV_BNDERR", 4: "SEGV_PKUERR",
               5: "SEGV_ACCADI", 6: "SEGV_ADIDERR", 7: "SEGV_ADIPERR", 8: "SEGV_MTEAERR",
               9: "SEGV_MTESERR"},
    _SIGBUS: {1: "BUS_ADRALN", 2: "BUS_ADRERR", 3: "BUS_OBJERR", 4: "BUS_MCEERR_AR",
              5: "BUS_MCEERR_AO"},
    _SIGTRAP: {1: "TRAP_BRKPT", 2: "TRAP_TRACE", 3: "TRAP_BRANCH", 4: "TRAP_HWBKPT",
               5: "TRAP_UNK", 6: "TRAP_PERF"},
    _SIGCHLD: {1: "CLD_EXITED", 2: "CLD_KILLED", 3: "CLD_DUMPED", 4: "CLD_TRAPPED",
               5: "CLD_STOPPED", 6: "CLD_CONTINUED"},
    _SIGPOLL: {1: "POLL_IN", 2: "POLL_OUT", 3: "POLL_MSG", 4: "POLL_ERR", 5: "POLL_PRI",
               6: "POLL_HUP"},
    _SIGSYS: {1: "SYS_SECCOMP", 2: "SYS_USER_DISPATCH"},
}
# SIGSTOP (never caught), SIGTSTP, SIGTTIN, SIGTTOU: their default action stops the group
_SIGSTOP = 19
_STOPS = frozenset({_SIGSTOP, 20, 21, 22})
_SIG_DFL = 0
# signals whose kernel-sent siginfo strace prints with si_addr (SIGTRAP's too, as the
# ptrace stops' siginfo of PTRACE_GETSIGINFO)
_FAULTS = frozenset({_SIGILL, _SIGFPE, _SIGSEGV, _SIGBUS, _SIGTRAP})


def si_code_name(signo: int, code: int) -> str:
    """``(17, 1)`` -> ``CLD_EXITED``; ``(10, 0)`` -> ``SI_USER``; unknown: strace 6.1's
    ``%#x`` of the 32-bit code (``0x4d``; ``0xffffffb3`` for -77; a ptrace event stop's
    ``0x8005``)."""
    name = (_SI_CODES.get(code) if code <= 0 or code == _SI_KERNEL
            else _CODES.get(signo, {}).get(code))
    if name is None:
        return hex(code & 0xFFFFFFFF)
    return xstyle.named(hex0(code & 0xFFFFFFFF), name) if xstyle.STYLE else name


def _ptr(v: int) -> str:
    return "NULL" if v == 0 else hex(v)


def _sigval(data: bytes) -> str:
    """The sigval a process sent: ``si_int=7, si_ptr=0x7`` (strace's printsigval)."""
    ival, ptr = struct.unpack_from("<iQ", data[24:28] + data[24:32])
    return f"si_int={ival}, si_ptr={_ptr(ptr)}"


def siginfo_text(data: bytes, flags: ArchFlags,
                 pid_text: Callable[[int], str] | None = None) -> str:
    """The braces strace prints for a delivered signal's siginfo.

    ``{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0, si_status=0,
    si_utime=0, si_stime=0}``, ``{si_signo=SIGUSR1, si_code=SI_USER, si_pid=1234,
    si_uid=0}``, ``{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}``.

    Args:
      data: at least :data:`SIGINFO_LEN` bytes (shorter is zero-padded).
      flags: the decoders of the record's arch (signal names).
      pid_text: strace -Y: the name printed after ``si_pid`` (``<sh>`` or "").
    """
    data = bytes(data[:SIGINFO_LEN]).ljust(SIGINFO_LEN, b"\0")
    signo, err, code = struct.unpack_from("<iii", data)
    pid, uid = struct.unpack_from("<iI", data, 16)
    ptr24 = struct.unpack_from("<Q", data, 24)[0]
    if not signo:                               # strace prints nothing else of it
        return "{}"
    parts = [f"si_signo={flags.signal_name(signo)}", f"si_code={si_code_name(signo, code)}"]
    if err:                                     # after the code; unknown: as unsigned
        name = errno_name(err & 0xFFFFFFFF)
        number = str(err & 0xFFFFFFFF)
        parts.append(f"si_errno={number if name[1:].isdigit() else xstyle.named(number, name)}")
    # a uid as strace's printuid prints it: (uid_t) -1 as -1
    named = pid_text(pid) if pid_text is not None and pid > 0 else ""
    source = [f"si_pid={pid}{named}", f"si_uid={-1 if uid == 0xFFFFFFFF else uid}"]
    if code <= 0:                               # sent by a process (SI_FROMUSER)
        if code == _SI_TIMER:
            overrun = struct.unpack_from("<i", data, 20)[0]
            ival = struct.unpack_from("<i", data, 24)[0]
            # %#x: a timer id of 0 (the process's first timer) prints "0"
            timerid = f"{pid & 0xFFFFFFFF:#x}" if pid else "0"
            parts += [f"si_timerid={timerid}", f"si_overrun={overrun}", f"si_int={ival}",
                      f"si_ptr={_ptr(ptr24)}"]
        elif code in (_SI_USER, _SI_TKILL):
            parts += source
        elif code == _SI_SIGIO:                 # the band and fd, as SIGPOLL's
            band, fd = struct.unpack_from("<qi", data, 16)
            parts += [f"si_band={band}", f"si_fd={fd}"]
        else:
            parts += source
            if ptr24:                           # SI_QUEUE, SI_MESGQ: si_int, si_ptr
                parts.append(_sigval(data))
    elif signo == _SIGCHLD:
        status = struct.unpack_from("<i", data, 24)[0]
        utime, stime = struct.unpack_from("<QQ", data, 32)
        st = str(status) if code == 1 else flags.signal_name(status)    # CLD_EXITED: a code
        parts += source + [f"si_status={st}", f"si_utime={clock_t(utime)}",
                           f"si_stime={clock_t(stime)}"]
    elif signo in _FAULTS:
        parts.append(f"si_addr={_ptr(struct.unpack_from('<Q', data, 16)[0])}")
        if signo == _SIGBUS and code in (4, 5):         # BUS_MCEERR_AR, BUS_MCEERR_AO
            lsb = struct.unpack_from("<H", data, 24)[0]
            parts.append(f"si_addr_lsb={lsb:#x}")
        elif signo == _SIGSEGV and code == 3:           # SEGV_BNDERR: the bounds
            lower, upper = struct.unpack_from("<QQ", data, 32)
            parts += [f"si_lower={_ptr(lower)}", f"si_upper={_ptr(upper)}"]
        elif signo == _SIGSEGV and code == 4:           # SEGV_PKUERR: the protection key
            parts.append(f"si_pkey={struct.unpack_from('<I', data, 32)[0]}")
    elif signo == _SIGPOLL:
        if 1 <= code <= 6:                      # POLL_IN .. POLL_HUP
            band, fd = struct.unpack_from("<qi", data, 16)
            parts += [f"si_band={band}", f"si_fd={fd}"]
    elif signo == _SIGSYS:
        call, nr, arch = struct.unpack_from("<QII", data, 16)
        audit = flags.tables.AUDIT_ARCHES.get(arch)
        parts += [f"si_call_addr={_ptr(call)}",
                  f"si_syscall={syscall_nr_text(audit, nr & 0xFFFFFFFF)}",
                  f"si_arch={xval(flags.tables.AUDIT_ARCHES, arch, 'AUDIT_ARCH_???')}"]
    else:
        if pid or uid:
            parts += source
        if ptr24:
            parts.append(_sigval(data))
    return "{" + ", ".join(parts) + "}"


def signal_line(sig: int, data: bytes, flags: ArchFlags,
                pid_text: Callable[[int], str] | None = None) -> str:
    """``--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=1, si_uid=0} ---``. A
    delivered signal's siginfo always holds its number: one the record could not read
    (all zeros) is shown with it."""
    if not data[:4].strip(b"\0"):
        data = (sig & 0xFFFFFFFF).to_bytes(4, "little") + bytes(data[4:])
    return f"--- {flags.signal_abbrev(sig)} {siginfo_text(data, flags, pid_text)} ---"


def stopped_line(sig: int, sa_handler: int, flags: ArchFlags) -> str | None:
    """``--- stopped by SIGSTOP ---``, strace's group-stop line after the delivery of a
    stop signal whose action is the default one (SIGSTOP always), else None.

    The kernel (get_signal -> do_signal_stop) stops the group right after the
    signal_deliver tracepoint; a SIGTSTP/SIGTTIN/SIGTTOU of an orphaned process group is
    discarded instead, which the record does not tell (rare: job-control signals to an
    orphaned group).
    """
    if sig in _STOPS and (sig == _SIGSTOP or sa_handler == _SIG_DFL):
        return f"--- stopped by {flags.signal_abbrev(sig)} ---"
    return None
