"""Calls whose arguments follow their operation, and the constants and structs around them.

strace prints only the arguments an operation uses (``futex(0x..., FUTEX_WAKE, 1)``,
``prctl(PR_GET_DUMPABLE)``, ``mremap(addr, 4096, 8192, MREMAP_MAYMOVE)`` without the new
address), decodes each by what the operation makes of it (a signal, a capability, a
string the call writes) and decorates some return values (``= 10 (SIGUSR1)``,
``= 0x2 (F_UNLCK)``, ``= 1 (SUID_DUMP_USER)``). Each function here gives all the argument
texts of one call at once (``SPECIAL`` of ``tracekit.decode.args``); the argument kinds
and return kinds are merged into the decoder's by :func:`kinds` and :func:`ret_kinds`.

The layouts of the option-dependent arguments are strace 6.1's, checked against its
output on Linux 6.18 (tests/e2e/test_strace_ops.py). Captures (``Syscall.caps``) come from
the specs in tracekit/session/capture.py: a string or struct read at entry and what the
call wrote at exit, whichever the operation turns out to use.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from tracekit._events import (
    CAP_BUF,
    CAP_STR,
    CAPF_AT_EXIT,
    CAPF_DEREF,
    CAPF_FAULT,
    CAPF_PARTIAL,
    CAPF_TRUNC,
    SC_COMPAT,
    Capture,
    Syscall,
)
from tracekit.decode import flags as F, structs_key as K, xstyle
from tracekit.decode.captures import (
    capture,
    capture_out,
    cut_array_text,
    deref,
    elements_shown,
    readable,
    succeeded,
)
from tracekit.decode.signals import siginfo_text
from tracekit.decode.structs_cbpf import fprog_arg
from tracekit.decode.structs_proc import SIGSET_SIZE, format_sigset
from tracekit.decode.structs_seccomp import syscall_nr_text
from tracekit.decode.values import (
    format_ret_errno,
    format_timespec,
    hex0,
    neg_errno,
    pointer,
    quote,
    signed,
    xval as _xval,
    xval_verbose,
)
from tracekit.kernel.syscalls import errno_name

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["SPECIAL", "arg_positions", "kinds", "ret_kinds", "format_itimerspec",
           "format_itimerval"]

_M32 = 0xFFFFFFFF
_KindFn = Callable[["SyscallDecoder", Syscall, int], str]
TASK_COMM_LEN = 16          # include/linux/sched.h: a comm with its NUL


def _caps(ev: Syscall, i: int, kind: int | None = None) -> list[Capture]:
    """Every capture of argument ``i`` (of ``kind``), in record order: entry reads first,
    then what was read at exit; never what a pointer inside it points to (CAPF_DEREF)."""
    return [c for c in ev.caps if c.arg == i and (kind is None or c.kind == kind)
            and not c.flags & CAPF_DEREF]


def _readable(cap: Capture | None) -> Capture | None:
    return None if cap is None or cap.flags & CAPF_FAULT else cap


def _out_int(ev: Syscall, i: int, fmt: Callable[[int], str], *, size: int = 4,
             signed_: bool = False) -> str:
    """``[value]`` of the int (or long, ``size`` 8) the call wrote at argument ``i``
    (the last fixed-size capture of it), its address when the call failed or it is not
    there (strace's umove_or_printaddr)."""
    if not succeeded(ev):
        return pointer(ev.args[i])
    for c in reversed(_caps(ev, i)):
        if c.kind != CAP_STR and not c.flags & CAPF_FAULT and len(c.data) >= size:
            v = int.from_bytes(c.data[:size], "little", signed=signed_)
            return f"[{fmt(v)}]"
    return pointer(ev.args[i])


# -- prctl(2) --------------------------------------------------------------------------
# What each option prints after its name (strace 6.1): "-" nothing more; a list of kinds
# for arg2.. (the rest not printed); "*" arg2..arg5 in hex.
#   u: unsigned decimal   d: signed long   x: hex   sig: a signal   cap: a capability
#   name_in: PR_SET_NAME's string   name_out, int_out, sig_out, kptr_out, tsc_out,
#   unalign_out: what the call wrote at arg2 (its address when it failed)
_PRCTL: dict[str, tuple[str, ...]] = {
    "PR_GET_KEEPCAPS": (), "PR_GET_SECCOMP": (), "PR_GET_TIMERSLACK": (),
    "PR_GET_TIMING": (), "PR_TASK_PERF_EVENTS_DISABLE": (), "PR_TASK_PERF_EVENTS_ENABLE": (),
    "PR_GET_DUMPABLE": (), "PR_GET_SECUREBITS": (), "PR_GET_FP_MODE": (),
    "PR_SVE_GET_VL": (), "PR_SME_GET_VL": (),
    "PR_GET_CHILD_SUBREAPER": ("int_out",), "PR_GET_ENDIAN": ("int_out",),
    "PR_GET_FPEMU": ("int_out",), "PR_GET_FPEXC": ("int_out",),
    "PR_GET_NAME": ("name_out",), "PR_GET_PDEATHSIG": ("sig_out",),
    "PR_GET_TID_ADDRESS": ("kptr_out",), "PR_GET_TSC": ("tsc_out",),
    "PR_GET_UNALIGN": ("unalign_out",),
    "PR_SET_CHILD_SUBREAPER": ("u",), "PR_SET_ENDIAN": ("u",), "PR_SET_FPEMU": ("u",),
    "PR_SET_FPEXC": ("u",), "PR_SET_KEEPCAPS": ("u",), "PR_SET_TIMING": ("u",),
    "PR_SET_DUMPABLE": ("dumpable",), "PR_CAPBSET_DROP": ("cap",),
    "PR_CAPBSET_READ": ("cap",), "PR_SET_NAME": ("name_in",), "PR_SET_PDEATHSIG": ("sig",),
    "PR_SET_PTRACER": ("ptracer",), "PR_SET_SECUREBITS": ("secbits",),
    "PR_SET_TIMERSLACK": ("d",), "PR_SET_TSC": ("tsc",), "PR_SET_UNALIGN": ("unalign",),
    "PR_SET_NO_NEW_PRIVS": ("u", "x", "x", "x"), "PR_SET_THP_DISABLE": ("u", "x", "x", "x"),
    "PR_SET_IO_FLUSHER": ("u", "x", "x", "x"),
    "PR_SET_MM": ("setmm", "x", "x", "x"), "PR_MCE_KILL_GET": ("x", "x", "x", "x"),
}
# options whose return value strace decorates: PR_GET_DUMPABLE's SUID_DUMP_*


def _prctl(d: SyscallDecoder, ev: Syscall) -> list[str]:
    T = d.flags.tables
    option = ev.args[0] & _M32
    opt_name = T.PRCTL_OPTIONS.get(option)
    out = [_xval(T.PRCTL_OPTIONS, option, "PR_???")]
    args = ev.args
    if opt_name == "PR_CAP_AMBIENT":
        sub = args[1]
        out.append(_xval(T.PR_CAP_AMBIENT_OPS, sub, "PR_CAP_AMBIENT_???"))
        if T.PR_CAP_AMBIENT_OPS.get(sub) in ("PR_CAP_AMBIENT_RAISE", "PR_CAP_AMBIENT_LOWER",
                                              "PR_CAP_AMBIENT_IS_SET"):
            out.append(_xval(T.CAPABILITIES, args[2], "CAP_???"))
            out += [hex0(v) for v in args[3:5]]
        else:
            out += [hex0(v) for v in args[2:5]]
        return out
    if opt_name == "PR_SET_SECCOMP":
        mode = T.SECCOMP_MODES.get(args[1])
        out.append(_xval(T.SECCOMP_MODES, args[1], "SECCOMP_MODE_???"))
        if mode == "SECCOMP_MODE_STRICT":
            return out
        if mode == "SECCOMP_MODE_FILTER":
            return [*out, fprog_arg(d, ev, 2)]
        return [*out, *(hex0(v) for v in args[2:5])]
    if opt_name == "PR_SET_VMA":
        out.append(_xval(T.PR_SET_VMA_OPS, args[1], "PR_SET_VMA_???"))
        if T.PR_SET_VMA_OPS.get(args[1]) == "PR_SET_VMA_ANON_NAME":
            return [*out, pointer(args[2]), str(args[3]), _vma_name(d, ev)]
        return [*out, *(hex0(v) for v in args[2:5])]
    if opt_name == "PR_GET_SPECULATION_CTRL":
        return [*out, _xval(T.PR_SPEC_MISFEATURES, args[1], "PR_SPEC_???")]
    if opt_name == "PR_SET_SPECULATION_CTRL":
        # the state to set is one value of a known misfeature's (``0x3 /* PR_SPEC_??? */``),
        # hex for an unknown misfeature
        known = T.PR_SPEC_MISFEATURES.get(args[1]) is not None
        sets = {v: n for v, n in T.PR_SPEC_STATES if n != "PR_SPEC_PRCTL"}
        return [*out, _xval(T.PR_SPEC_MISFEATURES, args[1], "PR_SPEC_???"),
                _xval(sets, args[2], "PR_SPEC_???") if known else hex0(args[2])]
    if opt_name == "PR_SET_TAGGED_ADDR_CTRL":
        return [*out, tagged_addr_ctrl(d.flags, args[1]), *(hex0(v) for v in args[2:5])]
    if opt_name == "PR_SVE_SET_VL":
        return [*out, sve_vl(d.flags, args[1])]
    if opt_name == "PR_PAC_RESET_KEYS":             # arm64's pointer authentication keys
        return [*out, _PAC_KEYS_ALL(args[1]), *(hex0(v) for v in args[2:5])]
    if opt_name == "PR_PAC_SET_ENABLED_KEYS":
        return [*out, _PAC_KEYS(args[1]), _PAC_KEYS(args[2]), *(hex0(v) for v in args[3:5])]
    if opt_name == "PR_PAC_GET_ENABLED_KEYS":
        return [*out, *(hex0(v) for v in args[1:5])]
    if opt_name == "PR_SME_SET_VL":                 # arm64's SME: SVE's layout and flags
        return [*out, sve_vl(d.flags, args[1], "PR_SME_")]
    if opt_name == "PR_SCHED_CORE":
        # the command and the pid type are read as unsigned ints (strace's printxval and
        # its cast): bits above them are not shown
        cmd, ptype_v = args[1] & 0xFFFFFFFF, args[3] & 0xFFFFFFFF
        op = T.PR_SCHED_CORE_OPS.get(cmd)
        ptype = T.PID_TYPES.get(ptype_v, "PIDTYPE_???")
        last = _out_int(ev, 4, hex0, size=8) if op == "PR_SCHED_CORE_GET" else pointer(args[4])
        return [*out, _xval(T.PR_SCHED_CORE_OPS, cmd, "PR_SCHED_CORE_???"),
                str(signed(args[2], 32)), f"{hex0(ptype_v)} /* {ptype} */", last]
    if opt_name == "PR_SET_SYSCALL_USER_DISPATCH":
        return [*out, _xval(T.PR_SYS_DISPATCH_OPS, args[1], "PR_SYS_DISPATCH_???"),
                hex0(args[2]), hex0(args[3]), pointer(args[4])]
    if opt_name == "PR_MCE_KILL":
        out.append(_xval(T.PR_MCE_KILL_OPS, args[1], "PR_MCE_KILL_???"))
        if T.PR_MCE_KILL_OPS.get(args[1]) == "PR_MCE_KILL_SET":      # the policy set
            return [*out, _xval(_MCE_KILL_POLICIES, args[2], "PR_MCE_KILL_???"),
                    *(hex0(v) for v in args[3:5])]
        return [*out, *(hex0(v) for v in args[2:5])]
    spec = _PRCTL.get(opt_name or "")
    if spec is None:
        return [*out, *(hex0(v) for v in args[1:5])]
    for k, v in zip(spec, args[1:5], strict=False):
        out.append(_prctl_arg(d, ev, k, v))
    return out


STRING_LIMIT = 32          # strace's default -s: the bytes of a string it prints
_PR_TAGGED_ADDR_ENABLE, _PR_MTE_TCF_MASK, _PR_MTE_TAG_SHIFT = 1, 0x6, 3
_PR_MTE_TAG_MASK = 0xFFFF << _PR_MTE_TAG_SHIFT
_PR_SVE_VL_LEN_MASK = 0xFFFF


def tagged_addr_ctrl(fl: F.ArchFlags, v: int) -> str:
    """PR_SET_TAGGED_ADDR_CTRL's arg2 (and PR_GET_TAGGED_ADDR_CTRL's result) as strace
    6.1: ``PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_NONE``, ``!PR_TAGGED_ADDR_ENABLE|
    PR_MTE_TCF_ASYNC|0xcafe<<PR_MTE_TAG_SHIFT|0x57a80000`` (the rest in hex)."""
    parts = ["PR_TAGGED_ADDR_ENABLE" if v & _PR_TAGGED_ADDR_ENABLE else "!PR_TAGGED_ADDR_ENABLE",
             fl.tables.PR_MTE_TCF.get(v & _PR_MTE_TCF_MASK, hex0(v & _PR_MTE_TCF_MASK))]
    if v & _PR_MTE_TAG_MASK:
        parts.append(f"{(v & _PR_MTE_TAG_MASK) >> _PR_MTE_TAG_SHIFT:#x}<<PR_MTE_TAG_SHIFT")
    rest = v & ~(_PR_TAGGED_ADDR_ENABLE | _PR_MTE_TCF_MASK | _PR_MTE_TAG_MASK)
    if rest:
        parts.append(hex(rest))
    return "|".join(parts)


# PR_PAC_SET_ENABLED_KEYS' keys, and PR_PAC_RESET_KEYS' (the generic key too)
# (linux/prctl.h)
_PAC_BITS = ((1, "PR_PAC_APIAKEY"), (2, "PR_PAC_APIBKEY"), (4, "PR_PAC_APDAKEY"),
             (8, "PR_PAC_APDBKEY"))
_PAC_KEYS = F.FlagSet(_PAC_BITS, unknown="PR_PAC_???")
_PAC_KEYS_ALL = F.FlagSet((*_PAC_BITS, (0x10, "PR_PAC_APGAKEY")), unknown="PR_PAC_???")
# PR_MCE_KILL_SET's policies (linux/prctl.h)
_MCE_KILL_POLICIES = {0: "PR_MCE_KILL_LATE", 1: "PR_MCE_KILL_EARLY", 2: "PR_MCE_KILL_DEFAULT"}


def sve_vl(fl: F.ArchFlags, v: int, prefix: str = "PR_SVE_") -> str:
    """PR_SVE_SET_VL's arg2: the flags, then the vector length in hex
    (``PR_SVE_SET_VL_ONEXEC|0xff``, ``0``); PR_SME_SET_VL's (``prefix`` "PR_SME_"), whose
    flags have SVE's values."""
    flags = v & ~_PR_SVE_VL_LEN_MASK
    vl = hex0(v & _PR_SVE_VL_LEN_MASK)
    table = tuple((b, n.replace("PR_SVE_", prefix)) for b, n in fl.tables.PR_SVE_VL_FLAGS)
    return f"{F.FlagSet(table)(flags)}|{vl}" if flags else vl


def _vma_name(d: SyscallDecoder, ev: Syscall) -> str:
    """PR_SET_VMA_ANON_NAME's name (arg5, read at entry): ``"name"`` (-s bytes of it),
    the address when it was not read, NULL (clears the name)."""
    if not ev.args[4]:
        return "NULL"
    cap = _readable(next(iter(_caps(ev, 4, CAP_STR)), None))
    if cap is None:
        return pointer(ev.args[4])
    return quote(cap.data, limit=d.string_limit, more=bool(cap.flags & CAPF_TRUNC))


def _prctl_arg(d: SyscallDecoder, ev: Syscall, kind: str, v: int) -> str:
    T, fl = d.flags.tables, d.flags
    if kind == "u":
        return str(v)
    if kind == "d":
        return str(signed(v))
    if kind == "x":
        return hex0(v)
    if kind == "sig":
        return str(v) if v > 128 else fl.signal_name(v) if v else "0"
    if kind == "cap":
        return _xval(T.CAPABILITIES, v, "CAP_???")
    if kind == "dumpable":
        return _xval(T.SUID_DUMP, v, "SUID_DUMP_???")
    if kind == "tsc":
        return _xval(T.PR_TSC_MODES, v & _M32, "PR_TSC_???")
    if kind == "unalign":
        return F.FlagSet(T.PR_UNALIGN_FLAGS, unknown="PR_UNALIGN_???")(v & _M32)
    if kind == "secbits":
        return F.FlagSet(T.SECUREBITS, unknown="SECBIT_???")(v)
    if kind == "setmm":
        return _xval(T.PR_SET_MM_OPS, v & _M32, "PR_SET_MM_???")
    if kind == "ptracer":
        return "PR_SET_PTRACER_ANY" if signed(v, 32) == -1 else str(signed(v, 32))
    if kind == "name_in":
        cap = _readable(next(iter(_caps(ev, 1, CAP_STR)), None))
        if cap is None:
            return pointer(v)
        # strace's printstr_ex: at most TASK_COMM_LEN - 1 bytes, and at most -s. Cut at
        # -s, "..." when the string goes on past it; cut at 15, strace reads no 16th
        # byte: "..." when no NUL is among the 15 (a 15-byte name and its NUL too)
        limit = min(TASK_COMM_LEN - 1, d.string_limit)
        more = (len(cap.data) >= limit if limit == TASK_COMM_LEN - 1
                else len(cap.data) > limit)
        return quote(cap.data[:limit], more=more)
    if kind == "name_out":
        strs = _caps(ev, 1, CAP_STR)
        cap = _readable(strs[-1]) if len(strs) >= 2 and succeeded(ev) else None
        return pointer(v) if cap is None else quote(
            cap.data[:TASK_COMM_LEN], limit=min(TASK_COMM_LEN, d.string_limit))
    if kind == "int_out":
        return _out_int(ev, 1, str)
    if kind == "sig_out":
        return _out_int(ev, 1, lambda s: fl.signal_name(s) if s else "0")
    if kind == "kptr_out":
        return _out_int(ev, 1, pointer, size=8)
    if kind == "tsc_out":
        return _out_int(ev, 1, lambda s: _xval(T.PR_TSC_MODES, s, "PR_TSC_???"))
    if kind == "unalign_out":
        return _out_int(ev, 1, F.FlagSet(T.PR_UNALIGN_FLAGS))
    return hex0(v)


def _ret_prctl(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    T = d.flags.tables
    name = T.PRCTL_OPTIONS.get(ev.args[0] & _M32)
    ret = ev.ret
    if name == "PR_GET_DUMPABLE":
        dump = T.SUID_DUMP.get(ret)
        return f"{ret} ({dump})" if dump else text
    if name == "PR_MCE_KILL_GET":
        policy = T.PR_MCE_KILL_POLICIES.get(ret)
        return f"{ret} ({policy})" if policy else text
    if name == "PR_GET_SPECULATION_CTRL" and ret >= 0 \
            and T.PR_SPEC_MISFEATURES.get(ev.args[1]) is not None:
        # the misfeature's state: ``0x2 (PR_SPEC_ENABLE)``, ``0 (PR_SPEC_NOT_AFFECTED)``;
        # no comment when no bit has a name
        if ret and not any(ret & v for v, _ in T.PR_SPEC_STATES):
            return hex0(ret)
        return f"{hex0(ret)} ({F.FlagSet(T.PR_SPEC_STATES, zero='PR_SPEC_NOT_AFFECTED')(ret)})"
    if name == "PR_GET_TAGGED_ADDR_CTRL" and ret >= 0:
        return f"{hex0(ret)} ({tagged_addr_ctrl(d.flags, ret)})"
    if name == "PR_GET_SECUREBITS" and ret:
        return f"{ret:#x} ({F.FlagSet(T.SECUREBITS)(ret)})"
    return text


# -- futex(2) ----------------------------------------------------------------------------

def _futex(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """As many arguments as the operation uses; ``val``s unsigned; FUTEX_WAKE_OP's
    operation word spelled out (``FUTEX_OP_ADD<<28|0x345<<12|FUTEX_OP_CMP_LT<<24|0x678``)."""
    uaddr, op, val, timeout, uaddr2, val3 = ev.args
    fl, T = d.flags, d.flags.tables
    op &= _M32
    val &= _M32
    val2 = timeout & _M32
    val3 &= _M32
    # the arguments follow the command (op & 127) even where the word has no name
    cmd = T.FUTEX_CMDS.get(op & 127)
    name = fl.futex_op(op)
    if name == hex(op) and xstyle.STYLE != xstyle.RAW:     # no name (raw: every op)
        name = f"{hex0(op)} /* FUTEX_??? */"
    if cmd is None:
        return [pointer(uaddr), name, str(val), pointer(timeout), pointer(uaddr2), hex0(val3)]
    out = [pointer(uaddr), name]

    def ts() -> str:
        return _timespec_in(ev, 3)

    def bitset() -> str:
        return "FUTEX_BITSET_MATCH_ANY" if val3 == _M32 else hex0(val3)
    if cmd == "FUTEX_WAIT":
        return [*out, str(val), ts()]
    if cmd in ("FUTEX_LOCK_PI", "FUTEX_LOCK_PI2"):
        return [*out, ts()]
    if cmd == "FUTEX_WAIT_BITSET":
        return [*out, str(val), ts(), bitset()]
    if cmd == "FUTEX_WAKE_BITSET":
        return [*out, str(val), bitset()]
    if cmd == "FUTEX_REQUEUE":
        return [*out, str(val), str(val2), pointer(uaddr2)]
    if cmd in ("FUTEX_CMP_REQUEUE", "FUTEX_CMP_REQUEUE_PI"):
        return [*out, str(val), str(val2), pointer(uaddr2), str(val3)]
    if cmd == "FUTEX_WAKE_OP":
        return [*out, str(val), str(val2), pointer(uaddr2), _wake_op(T, val3)]
    if cmd == "FUTEX_WAIT_REQUEUE_PI":
        return [*out, str(val), ts(), pointer(uaddr2)]
    if cmd in ("FUTEX_FD", "FUTEX_WAKE"):
        return [*out, str(val)]
    if cmd in ("FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI"):
        return out
    return [*out, str(val), pointer(timeout), pointer(uaddr2), hex0(val3)]


_FUTEX_OP_OPARG_SHIFT = 8


def _wake_op(T: ModuleType, v: int) -> str:
    ops: dict[int, str] = T.FUTEX_WAKE_OPS
    cmps: dict[int, str] = T.FUTEX_WAKE_CMPS
    parts = []
    if (v >> 28) & _FUTEX_OP_OPARG_SHIFT:
        parts.append("FUTEX_OP_OPARG_SHIFT<<28")
    op = (v >> 28) & 7
    parts.append(f"{ops[op]}<<28" if op in ops else f"{hex0(op)}<<28 /* FUTEX_OP_??? */")
    parts.append(f"{hex0((v >> 12) & 0xFFF)}<<12")
    cmp = (v >> 24) & 0xF
    parts.append(f"{cmps[cmp]}<<24" if cmp in cmps
                 else f"{hex0(cmp)}<<24 /* FUTEX_OP_CMP_??? */")
    parts.append(hex0(v & 0xFFF))
    return "|".join(parts)


def _timespec_in(ev: Syscall, i: int) -> str:
    cap = capture(ev, i)
    text = None if cap is None else format_timespec(cap.data)
    return pointer(ev.args[i]) if text is None else text


# -- fcntl(2) ----------------------------------------------------------------------------
# struct flock (include/uapi/asm-generic/fcntl.h, 64-bit): l_type s16, l_whence s16,
# l_start s64 at 8, l_len s64 at 16, l_pid s32 at 24; 32 bytes
FLOCK_SIZE = 32
_FLOCK = struct.Struct("<hh4xqqi")
F_OWNER_EX_SIZE = 8      # struct f_owner_ex: int type, pid_t pid

_SETLK = frozenset({"F_SETLK", "F_SETLKW", "F_OFD_SETLK", "F_OFD_SETLKW", "F_SETLK64",
                    "F_SETLKW64"})
_GETLK = frozenset({"F_GETLK", "F_OFD_GETLK", "F_GETLK64"})
# the commands of struct flock64 in the i386 ABI (include/uapi/asm-generic/fcntl.h)
_FCNTL64_32 = {12: "F_GETLK64", 13: "F_SETLK64", 14: "F_SETLKW64"}
# i386 struct flock (compat_flock: short, short, s32 start, len, pid: 16 bytes) and
# struct flock64 (packed: short, short, s64 start, len, s32 pid: 24 bytes)
FLOCK32_SIZE = 24           # the larger, read for either
_FLOCK32 = struct.Struct("<hhiii")
_FLOCK64_32 = struct.Struct("<hhqqi")


def _flock_native(data: bytes, name: str) -> bytes:
    """An i386 struct flock (F_GETLK/F_SETLK/F_SETLKW) or flock64 (the ``*64`` and OFD
    commands) as x86_64's (``FLOCK_SIZE`` bytes); ``b""`` if short."""
    layout = _FLOCK32 if name in ("F_GETLK", "F_SETLK", "F_SETLKW") else _FLOCK64_32
    if len(data) < layout.size:
        return b""
    return _FLOCK.pack(*layout.unpack_from(data)) + bytes(4)
_NOARG = frozenset({"F_GETFD", "F_GETFL", "F_GETOWN", "F_GETSIG", "F_GETLEASE",
                    "F_GETPIPE_SZ", "F_GET_SEALS", "F_GETOWNER_UIDS"})
_INTARG = frozenset({"F_DUPFD", "F_DUPFD_CLOEXEC", "F_SETOWN"})


def format_flock(data: bytes, fl: F.ArchFlags, pid: bool) -> str | None:
    """``{l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0}`` (``l_pid`` too when
    the call wrote it: F_GETLK)."""
    if len(data) < FLOCK_SIZE:
        return None
    ltype, whence, start, length, lpid = _FLOCK.unpack_from(data)
    T = fl.tables
    text = (f"{{l_type={_xval(T.LOCK_TYPES, ltype & 0xFFFF, 'F_???')}, "
            f"l_whence={_xval(T.SEEK_WHENCE, whence & 0xFFFF, 'SEEK_???')}, "
            f"l_start={start}, l_len={length}")
    return text + (f", l_pid={lpid}}}" if pid else "}")


def _fcntl(d: SyscallDecoder, ev: Syscall) -> list[str]:
    fl, T = d.flags, d.flags.tables
    fd, cmd, arg = ev.args[0], ev.args[1] & _M32, ev.args[2]
    out = [d.fd_text(ev.tgid, signed(fd, 32))]
    compat = bool(ev.flags & SC_COMPAT)
    name = T.FCNTL_CMDS.get(cmd) or (_FCNTL64_32.get(cmd) if compat else None)
    if name is None:
        return [*out, f"{hex0(cmd)} /* F_??? */", hex0(arg)]
    out.append(F.styled_word(cmd, name))        # -X raw: 0x3; verbose: 0x3 /* F_GETFL */
    if name in _NOARG:
        return out
    if name in _INTARG:
        return [*out, str(signed(arg, 32))]
    if name == "F_SETPIPE_SZ":          # the whole register, signed (strace's PRINT_VAL_D)
        return [*out, str(signed(arg, 64))]
    if name == "F_SETFD":
        return [*out, fl.fd_flags(arg & _M32)]
    if name == "F_SETFL":
        return [*out, fl.open_flags(arg & _M32)]
    if name == "F_SETSIG":
        return [*out, fl.signal_name(arg & _M32) if arg & _M32 else "0"]
    if name == "F_SETLEASE":
        return [*out, _xval(T.LOCK_TYPES, arg & _M32, "F_???")]
    if name == "F_NOTIFY":
        return [*out, F.FlagSet(T.DN_FLAGS, unknown="DN_???")(arg & _M32)]
    if name == "F_ADD_SEALS":
        return [*out, F.FlagSet(T.SEAL_FLAGS, unknown="F_SEAL_???")(arg)]
    if d.addr_only and (name in _SETLK or name in _GETLK
                        or name in ("F_SETOWN_EX", "F_GETOWN_EX")):
        return [*out, pointer(arg)]     # -e verbose= without fcntl: the struct's address
    if name in _SETLK:
        cap = _first_struct(ev, 2, F_OWNER_EX_SIZE)
        text = None if cap is None else format_flock(
            _flock_native(cap.data, name) if compat else cap.data, fl, False)
        return [*out, pointer(arg) if text is None else text]
    if name in _GETLK:
        cap = _last_struct(ev, 2, F_OWNER_EX_SIZE) if succeeded(ev) else None
        text = None if cap is None else format_flock(
            _flock_native(cap.data, name) if compat else cap.data, fl, True)
        return [*out, pointer(arg) if text is None else text]
    if name in ("F_SETOWN_EX", "F_GETOWN_EX"):
        # its own 8-byte reads (a struct f_owner_ex at the end of a mapping is not
        # readable as a flock): at entry, then at exit; else (an older recording, an
        # i386 call) the flock's
        owners = [c for c in map(_readable, _caps(ev, 2)) if c is not None
                  and c.kind != CAP_STR and len(c.data) == F_OWNER_EX_SIZE]
        if not owners:
            cap = (_first_struct(ev, 2) if name == "F_SETOWN_EX"
                   else _last_struct(ev, 2) if succeeded(ev) else None)
        else:
            cap = owners[0] if name == "F_SETOWN_EX" else (
                owners[-1] if succeeded(ev) and len(owners) >= 2 else None)
        if cap is None or len(cap.data) < F_OWNER_EX_SIZE:
            return [*out, pointer(arg)]
        typ, pid = struct.unpack_from("<ii", cap.data)
        return [*out, f"{{type={_xval(T.F_OWNER_TYPES, typ & _M32, 'F_OWNER_???')}, "
                      f"pid={pid}}}"]
    return [*out, hex0(arg)]


def _structs(ev: Syscall, i: int, skip: int) -> list[Capture]:
    """The struct captures of argument ``i`` but the readable ones of ``skip`` bytes
    (fcntl's f_owner_ex reads: 8)."""
    return [c for c in _caps(ev, i) if c.kind != CAP_STR
            and not (skip and len(c.data) == skip and not c.flags & CAPF_FAULT)]


def _first_struct(ev: Syscall, i: int, skip: int = 0) -> Capture | None:
    caps = _structs(ev, i, skip)
    return _readable(caps[0]) if caps else None


def _last_struct(ev: Syscall, i: int, skip: int = 0) -> Capture | None:
    caps = _structs(ev, i, skip)
    return _readable(caps[-1]) if len(caps) >= 2 else None


def _ret_fcntl(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    """fcntl's result: a new fd (F_DUPFD*), flags (F_GETFD, F_GETFL, F_GET_SEALS), a
    signal (F_GETSIG), a lock type (F_GETLEASE)."""
    fl, T = d.flags, d.flags.tables
    ret = ev.ret
    name = T.FCNTL_CMDS.get(ev.args[1] & _M32)
    if name in ("F_DUPFD", "F_DUPFD_CLOEXEC"):
        return d.fd_text(ev.tgid, ret)
    if name == "F_GETFD":
        # -X raw/verbose: 0x1 (flags 0x1 /* FD_CLOEXEC */), as strace 6.1; F_GETFL's
        # open flags stay names: 0x8002 (flags O_RDWR|O_LARGEFILE)
        return f"{ret:#x} (flags {fl.fd_flags(ret)})" if ret else "0"
    if name == "F_GETFL":
        return f"{hex0(ret)} (flags {fl.open_flags.abbrev(ret)})"  # O_RDONLY: "0 (flags ..."
    if name == "F_GET_SEALS":
        return f"{ret:#x} (seals {F.FlagSet(T.SEAL_FLAGS)(ret)})" if ret else "0"
    if name == "F_GETSIG":
        return f"{ret} ({fl.signal_name(ret)})" if ret else "0"
    if name == "F_GETLEASE":
        lock = T.LOCK_TYPES.get(ret)
        return f"{hex0(ret)} ({lock})" if lock else text    # F_RDLCK: "0 (F_RDLCK)"
    return text


# -- mremap, membarrier, ptrace, syslog, personality, keyctl ------------------------------

def _mremap(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """The new address only with MREMAP_FIXED (strace 6.1)."""
    addr, old, new, flags, new_addr = ev.args[:5]
    fixed = next((v for v, n in d.flags.tables.MREMAP_FLAGS if n == "MREMAP_FIXED"), 0)
    out = [pointer(addr), str(old), str(new), d.flags.mremap_flags(flags & _M32)]
    return [*out, pointer(new_addr)] if flags & fixed else out


def _membarrier(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """``membarrier(cmd, flags[, cpu_id])``: the cpu only with MEMBARRIER_CMD_FLAG_CPU,
    as strace 6.1 prints it (membarrier.c; membarrier(2))."""
    T = d.flags.tables
    cmd, flags = ev.args[0] & _M32, ev.args[1] & _M32
    out = [_xval(T.MEMBARRIER_CMDS, cmd, "MEMBARRIER_CMD_???"), d.flags.membarrier_flags(flags)]
    cpu = next((v for v, n in T.MEMBARRIER_FLAGS if n == "MEMBARRIER_CMD_FLAG_CPU"), 0)
    if flags & cpu:
        out.append(str(signed(ev.args[2], 32)))
    return out


def _ret_membarrier(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    """MEMBARRIER_CMD_QUERY's result: the commands the kernel has, as flags."""
    T = d.flags.tables
    if T.MEMBARRIER_CMDS.get(ev.args[0] & _M32) != "MEMBARRIER_CMD_QUERY" or not ev.ret:
        return text
    bits = tuple((v, n) for v, n in sorted(T.MEMBARRIER_CMDS.items())
                 if v and not v & (v - 1))
    return f"{ev.ret:#x} ({F.FlagSet(bits)(ev.ret)})"


# struct kcmp_epoll_slot (include/uapi/linux/kcmp.h): __u32 efd, tfd, toff
KCMP_EPOLL_SLOT_SIZE = 12


def _kcmp(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """kcmp as strace 6.1's SYS_FUNC(kcmp): the two pids and the type, then what the type
    compares: KCMP_FILE two fds (of pid1 and pid2), KCMP_EPOLL_TFD an fd and a
    ``{efd=3, tfd=4, toff=0}`` slot, the others nothing; an unknown type both indexes in
    hex. An fd is decorated when its pid is the caller's (the fd cache knows no other
    process's table)."""
    a = ev.args
    pid1, pid2 = signed(a[0], 32), signed(a[1], 32)
    ktype = a[2] & _M32
    name = d.flags.tables.KCMP_TYPES.get(ktype)
    out = [str(pid1), str(pid2), _xval(d.flags.tables.KCMP_TYPES, ktype, "KCMP_???")]

    def fd(pid: int, v: int) -> str:
        v = signed(v, 32)
        return d.fd_text(ev.tgid, v) if pid in (ev.tgid, ev.tid) else str(v)

    if name is None:
        return [*out, hex0(a[3]), hex0(a[4])]
    if name == "KCMP_FILE":
        return [*out, fd(pid1, a[3]), fd(pid2, a[4])]
    if name != "KCMP_EPOLL_TFD":
        return out
    cap = _readable(_first_struct(ev, 4))
    if cap is None or len(cap.data) < KCMP_EPOLL_SLOT_SIZE:
        return [*out, fd(pid1, a[3]), pointer(a[4])]
    efd, tfd, toff = struct.unpack_from("<III", cap.data)
    return [*out, fd(pid1, a[3]), f"{{efd={fd(pid2, efd)}, tfd={fd(pid2, tfd)}, toff={toff}}}"]


_PTRACE_NO_ADDR = frozenset({"PTRACE_ATTACH", "PTRACE_INTERRUPT", "PTRACE_KILL",
                             "PTRACE_LISTEN"})
_PTRACE_SIG = frozenset({"PTRACE_CONT", "PTRACE_DETACH", "PTRACE_SYSCALL",
                         "PTRACE_SINGLESTEP", "PTRACE_SINGLEBLOCK", "PTRACE_SYSEMU",
                         "PTRACE_SYSEMU_SINGLESTEP"})
_PTRACE_OPTS = frozenset({"PTRACE_SEIZE", "PTRACE_SETOPTIONS", "PTRACE_OLDSETOPTIONS"})
_PTRACE_ADDR_U = frozenset({"PTRACE_GETSIGMASK", "PTRACE_SETSIGMASK",
                            "PTRACE_SECCOMP_GET_FILTER", "PTRACE_SECCOMP_GET_METADATA",
                            "PTRACE_GET_SYSCALL_INFO"})
# x86_64's register requests print no addr (strace 6.1)
_PTRACE_REGS = frozenset({"PTRACE_GETREGS", "PTRACE_SETREGS", "PTRACE_GETFPREGS",
                          "PTRACE_SETFPREGS", "PTRACE_GETFPXREGS", "PTRACE_SETFPXREGS"})


_PTRACE_PEEK = frozenset({"PTRACE_PEEKTEXT", "PTRACE_PEEKDATA", "PTRACE_PEEKUSER"})
_PTRACE_USER = frozenset({"PTRACE_PEEKUSER", "PTRACE_POKEUSER"})
_PTRACE_REGSET = frozenset({"PTRACE_GETREGSET", "PTRACE_SETREGSET"})
# struct user_regs_struct (arch/x86/include/asm/user_64.h): 27 unsigned longs, 216 bytes
USER_REGS_X86_64 = ("r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
                    "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
                    "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs")
USER_REGS_SIZE = 8 * len(USER_REGS_X86_64)
# The offsets in x86_64's struct user (sys/user.h) that strace 6.1 names for
# PTRACE_PEEKUSER/POKEUSER, in order: the registers up to ss (sys/reg.h's names, EFLAGS
# as EFL), then the other members, then the struct's size.
_USER_OFFSETS_X86_64: tuple[tuple[int, str], ...] = (
    *((8 * k, f"8*{n.upper() if n != 'eflags' else 'EFL'}")
      for k, n in enumerate(USER_REGS_X86_64[:USER_REGS_X86_64.index("ss") + 1])),
    *((off, f"offsetof(struct user, {m})") for off, m in (
        (216, "u_fpvalid"), (224, "i387"), (736, "u_tsize"), (744, "u_dsize"),
        (752, "u_ssize"), (760, "start_code"), (768, "start_stack"), (776, "signal"),
        (784, "reserved"), (792, "u_ar0"), (800, "u_fpstate"), (808, "magic"),
        (816, "u_comm"), (848, "u_debugreg"))),
    (912, "sizeof(struct user)"),
)


def format_user_regs(data: bytes) -> str | None:
    """x86_64's struct user_regs_struct (PTRACE_GETREGS): ``{r15=0x7ffe..., r14=0,
    ..., gs=0}``, every register in hex; None when ``data`` is shorter."""
    if len(data) < USER_REGS_SIZE:
        return None
    values = struct.unpack_from(f"<{len(USER_REGS_X86_64)}Q", data)
    return "{" + ", ".join(f"{n}={hex0(v)}" for n, v in zip(USER_REGS_X86_64, values,
                                                           strict=True)) + "}"


def user_offset(arch: str, addr: int) -> str:
    """PTRACE_PEEKUSER/POKEUSER's offset in struct user as strace 6.1 prints it on
    x86_64: the member's name (``8*RIP``, ``offsetof(struct user, u_fpvalid)``), the
    nearest named one below and the bytes past it (``8*SS+8``), hex past the struct
    (``0x1001``) and on other arches."""
    below = None
    if arch == "x86_64":
        for off, name in _USER_OFFSETS_X86_64:
            if off > addr:
                break
            below = (off, name)
    if below is None or (addr > below[0] and below[0] == _USER_OFFSETS_X86_64[-1][0]):
        return hex0(addr)
    return below[1] if addr == below[0] else f"{below[1]}+{addr - below[0]}"


# struct user_fpregs_struct (x86_64 PTRACE_GETFPREGS): 4 u16, 2 u64, 2 u32, then u32
# arrays st_space[32], xmm_space[64], padding[24]; 512 bytes
_FPREGS_HEAD = struct.Struct("<4H2Q2I")
_FPREGS_ARRAYS = (("st_space", 32), ("xmm_space", 64), ("padding", 24))
FPREGS_SIZE = 512
ARRAY_LIMIT = 32           # strace's default -s: the elements of an array it prints


def format_user_fpregs(data: bytes) -> str | None:
    """x86_64's struct user_fpregs_struct (PTRACE_GETFPREGS): ``{cwd=0x37f, swd=0, ...,
    mxcr_mask=0x2ffff, st_space=[0, ...], xmm_space=[...32 words..., ...], padding=[...]}``,
    every value in hex, an array past 32 elements cut with ``...``; None when short."""
    if len(data) < FPREGS_SIZE:
        return None
    names = ("cwd", "swd", "ftw", "fop", "rip", "rdp", "mxcsr", "mxcr_mask")
    parts = [f"{n}={hex0(v)}" for n, v in zip(names, _FPREGS_HEAD.unpack_from(data), strict=True)]
    pos = _FPREGS_HEAD.size
    for name, n in _FPREGS_ARRAYS:
        words = struct.unpack_from(f"<{n}I", data, pos)
        pos += 4 * n
        shown = [hex0(w) for w in words[:ARRAY_LIMIT]] + (["..."] if n > ARRAY_LIMIT else [])
        parts.append(f"{name}=[{', '.join(shown)}]")
    return "{" + ", ".join(parts) + "}"


# struct user_fpregs_struct's fields by offset (arch/x86/include/asm/user_64.h): name,
# offset, bytes (an array: its u32 words)
_FPREGS_FIELDS = (("cwd", 0, 2), ("swd", 2, 2), ("ftw", 4, 2), ("fop", 6, 2), ("rip", 8, 8),
                  ("rdp", 16, 8), ("mxcsr", 24, 4), ("mxcr_mask", 28, 4))
_FPREGS_ARRAY_AT = {"st_space": 32, "xmm_space": 160, "padding": 416}


def format_regset(note: str | None, size: int, data: bytes) -> str | None:
    """The registers PTRACE_GETREGSET wrote or PTRACE_SETREGSET reads at iov_base, as
    strace 6.1 prints them on x86_64 (its arch_decode_prstatus_regset and
    arch_decode_fpregset): for NT_PRSTATUS a struct user_regs_struct, for NT_FPREGSET a
    struct user_fpregs_struct, each field whose offset is within the first min(size,
    sizeof) bytes (``{r15=0x1}`` for 8 bytes), then ``, ...`` when size is larger than
    the struct.

    Args:
      note: the NT_* name of addr; size: iov_len (bytes); data: the bytes read at iov_base.

    Returns:
      The text; None (the address prints) for other notes, a size of 0 or not a
      multiple of 8, and bytes short of min(size, sizeof).
    """
    if note not in ("NT_PRSTATUS", "NT_FPREGSET") or not size or size & 7:
        return None
    whole = USER_REGS_SIZE if note == "NT_PRSTATUS" else FPREGS_SIZE
    fetch = min(size, whole)
    if len(data) < fetch:
        return None
    parts: list[str] = []
    if note == "NT_PRSTATUS":
        for k, name in enumerate(USER_REGS_X86_64):
            if fetch > 8 * k:
                parts.append(f"{name}={hex0(int.from_bytes(data[8 * k:8 * k + 8], 'little'))}")
    else:
        for name, off, width in _FPREGS_FIELDS:
            if fetch > off:
                parts.append(f"{name}={hex0(int.from_bytes(data[off:off + width], 'little'))}")
        for name, n in _FPREGS_ARRAYS:
            off = _FPREGS_ARRAY_AT[name]
            if fetch <= off:
                break
            count = min(n, (fetch - off) // 4)
            words = [hex0(int.from_bytes(data[off + 4 * j:off + 4 * j + 4], "little"))
                     for j in range(min(count, ARRAY_LIMIT))]
            parts.append(f"{name}=[{', '.join(words + (['...'] if count > ARRAY_LIMIT else []))}]")
    if size > whole:
        parts.append("...")
    return "{" + ", ".join(parts) + "}"


def _ptrace_cap(ev: Syscall, i: int, size: int, *, at_exit: bool,
                read: int = 0) -> bytes | None:
    """Argument ``i``'s memory, at least ``size`` bytes of it: what the call read (the
    first capture, at entry) or, after a success, what it wrote (the last, at exit).
    A read cut by an unmapped page (CAPF_PARTIAL: the capture asks for the largest
    request's struct) still shows when the ``read`` bytes strace reads for this request
    (``size`` when 0) were readable: strace reads just that struct."""
    if not ev.args[i] or (at_exit and not succeeded(ev)):
        return None
    caps = _caps(ev, i)
    for c in (reversed(caps) if at_exit else caps):
        mem = _mem(c)
        need = max(size, read) if c.flags & CAPF_FAULT else size
        if mem is not None and len(mem) >= need:
            return mem
    return None


def _mem(c: Capture) -> bytes | None:
    """A capture's bytes: all it read, or what a read cut by an unmapped page kept
    (CAPF_PARTIAL); None when nothing was readable."""
    if not c.flags & CAPF_FAULT:
        return c.data
    return c.readable if c.flags & CAPF_PARTIAL else None


def _ptrace_out(ev: Syscall, size: int) -> bytes | None:
    """What a successful request wrote at data (read at exit), at least ``size`` bytes."""
    return _ptrace_cap(ev, 3, size, at_exit=True)


# struct ptrace_syscall_info (include/uapi/linux/ptrace.h): op u8, arch u32 at 4,
# instruction_pointer at 8, stack_pointer at 16, then by op entry {nr, args[6]}, exit
# {s64 rval, u8 is_error} or seccomp {nr, args[6], u32 ret_data} at 24; the seccomp
# reply is the largest (84 bytes), strace reads no more
_PSI_EXIT_SIZE = 33
_PSI_SECCOMP_SIZE = 84


def _syscall_info(fl: F.ArchFlags, ev: Syscall) -> str | None:
    """struct ptrace_syscall_info as PTRACE_GET_SYSCALL_INFO wrote it, the fields that
    fit in what both the caller's size (addr) and the kernel's (the result) hold:
    ``{op=PTRACE_SYSCALL_INFO_NONE, arch=AUDIT_ARCH_X86_64, instruction_pointer=0x...,
    stack_pointer=0x...}``, then ``entry={nr=__NR_pause, args=[0, 0, 0x7f..., 0, 0, 0]}``,
    ``exit={rval=-ERESTARTNOHAND, is_error=1}`` or ``seccomp={nr=__NR_read, args=[...],
    ret_data=0}``; None (the address) when nothing was written or it was not read."""
    T = fl.tables
    fetch = min(ev.args[2], ev.ret, _PSI_SECCOMP_SIZE) if ev.ret > 0 else 0
    data = _ptrace_out(ev, fetch) if fetch else None
    if data is None:
        return None
    op = data[0]
    text = "{op=" + _xval(T.PTRACE_SYSCALL_INFO_OPS, op, "PTRACE_SYSCALL_INFO_???")
    if fetch >= 8:
        arch = struct.unpack_from("<I", data, 4)[0]
        text += f", arch={_xval(T.AUDIT_ARCHES, arch, 'AUDIT_ARCH_???')}"
        for at, field in ((8, "instruction_pointer"), (16, "stack_pointer")):
            if fetch >= at + 8:
                text += f", {field}={hex0(struct.unpack_from('<Q', data, at)[0])}"
        name = T.PTRACE_SYSCALL_INFO_OPS.get(op)
        audit = T.AUDIT_ARCHES.get(arch)
        if fetch >= 32 and name in ("PTRACE_SYSCALL_INFO_ENTRY", "PTRACE_SYSCALL_INFO_SECCOMP"):
            nr = struct.unpack_from("<Q", data, 24)[0]
            nargs = min(6, (fetch - 32) // 8)
            args = struct.unpack_from(f"<{nargs}Q", data, 32)
            inner = f"nr={syscall_nr_text(audit, nr)}"
            if nargs:
                inner += f", args=[{', '.join(hex0(a) for a in args)}]"
            if fetch >= _PSI_SECCOMP_SIZE and name == "PTRACE_SYSCALL_INFO_SECCOMP":
                inner += f", ret_data={struct.unpack_from('<I', data, 80)[0]}"
            text += (", entry={" if name == "PTRACE_SYSCALL_INFO_ENTRY" else ", seccomp={") \
                + inner + "}"
        elif fetch >= 32 and name == "PTRACE_SYSCALL_INFO_EXIT":
            rval = struct.unpack_from("<q", data, 24)[0]
            if fetch >= _PSI_EXIT_SIZE:
                is_error = data[32]
                shown = neg_errno(rval) if is_error else str(rval)
                text += f", exit={{rval={shown}, is_error={is_error}}}"
            else:
                text += f", exit={{rval={rval}}}"
    return text + "}"


def _peeksiginfo_args(fl: F.ArchFlags, ev: Syscall) -> str:
    """PTRACE_PEEKSIGINFO's addr, struct ptrace_peeksiginfo_args read at entry:
    ``{off=0, flags=PTRACE_PEEKSIGINFO_SHARED, nr=2}``."""
    data = _ptrace_cap(ev, 2, 16, at_exit=False)
    if data is None:
        return pointer(ev.args[2])
    off, flags, nr = struct.unpack_from("<QIi", data)
    return f"{{off={off}, flags={F.FlagSet(fl.tables.PTRACE_PEEKSIGINFO_FLAGS)(flags)}, nr={nr}}}"


def _peeked_siginfos(fl: F.ArchFlags, ev: Syscall) -> str | None:
    """PTRACE_PEEKSIGINFO's data: the ``ret`` siginfos (128 bytes each) it copied,
    ``[]`` for none; None when they were not captured."""
    if not succeeded(ev) or ev.ret < 0:
        return None
    if ev.ret == 0:
        return "[]"
    data = _ptrace_out(ev, 128 * ev.ret)
    if data is None:
        return None
    return "[" + ", ".join(siginfo_text(data[128 * k:128 * k + 128], fl)
                           for k in range(ev.ret)) + "]"


def _ptrace_data(fl: F.ArchFlags, name: str | None, ev: Syscall) -> str:
    """ptrace's data by request: the word PEEK* read (``[0x1234]``, ``[NULL]``), GETEVENTMSG's
    message (``[0]``), GET/SETSIGINFO's siginfo, x86_64 GET/SETREGS's registers and
    GET/SETFPREGS's, GET/SETSIGMASK's set (``[]``), PEEKSIGINFO's siginfos, GET_SYSCALL_INFO's
    reply outside a syscall, the iovec of GET/SETREGSET (``{iov_base=0x...,
    iov_len=216}``: the registers it points to are not captured), else the address."""
    data = ev.args[3]
    if name in _PTRACE_PEEK:
        return _out_int(ev, 3, pointer, size=8)
    if name == "PTRACE_GETEVENTMSG":
        return _out_int(ev, 3, str, size=8)
    text = None
    if name in ("PTRACE_GETSIGINFO", "PTRACE_SETSIGINFO"):
        mem = _ptrace_cap(ev, 3, 48, at_exit=name == "PTRACE_GETSIGINFO", read=128)
        text = None if mem is None else _siginfo(fl)(mem)
    elif name in ("PTRACE_GETREGS", "PTRACE_SETREGS") and fl.arch == "x86_64":
        mem = _ptrace_cap(ev, 3, USER_REGS_SIZE, at_exit=name == "PTRACE_GETREGS")
        text = None if mem is None else format_user_regs(mem)
    elif name in ("PTRACE_GETFPREGS", "PTRACE_SETFPREGS") and fl.arch == "x86_64":
        mem = _ptrace_cap(ev, 3, FPREGS_SIZE, at_exit=name == "PTRACE_GETFPREGS")
        text = None if mem is None else format_user_fpregs(mem)
    elif name in ("PTRACE_GETSIGMASK", "PTRACE_SETSIGMASK") and ev.args[2] == SIGSET_SIZE:
        mem = _ptrace_cap(ev, 3, SIGSET_SIZE, at_exit=name == "PTRACE_GETSIGMASK")
        text = None if mem is None else format_sigset(mem[:SIGSET_SIZE], fl)
    elif name == "PTRACE_PEEKSIGINFO":
        text = _peeked_siginfos(fl, ev)
    elif name == "PTRACE_GET_SYSCALL_INFO":
        text = _syscall_info(fl, ev)
    elif name in _PTRACE_REGSET and data:
        text = _regset_iov(fl, name, ev)
    elif name == "PTRACE_SECCOMP_GET_METADATA":
        text = _seccomp_metadata(fl, ev)
    return pointer(data) if text is None else text


def _seccomp_metadata(fl: F.ArchFlags, ev: Syscall) -> str | None:
    """PTRACE_SECCOMP_GET_METADATA's struct seccomp_metadata (include/uapi/linux/ptrace.h:
    u64 filter_off read, u64 flags written) in ``addr`` bytes: ``{filter_off=0}`` when
    addr holds no more, ``{filter_off=0, flags=SECCOMP_FILTER_FLAG_LOG}`` after a
    success, ``, ...`` when addr is larger, ``???`` for flags addr cuts; None (the
    address) when addr is under 8 bytes or filter_off was not read."""
    size = ev.args[2]
    mem = _ptrace_cap(ev, 3, 8, at_exit=False) if size >= 8 else None
    if mem is None:
        return None
    text = f"{{filter_off={struct.unpack_from('<Q', mem)[0]}"
    if succeeded(ev) and size > 8:
        out = _ptrace_cap(ev, 3, 16, at_exit=True) if size >= 16 else None
        if out is None:
            text += ", ???"
        else:
            text += ", flags=" + F.FlagSet(fl.tables.SECCOMP_FILTER_FLAGS,
                                           unknown="SECCOMP_FILTER_FLAG_???")(
                struct.unpack_from("<Q", out, 8)[0])
            if size > 16:
                text += ", ..."
    return text + "}"


def _regset_iov(fl: F.ArchFlags, name: str, ev: Syscall) -> str | None:
    """GET/SETREGSET's iovec: ``{iov_base={r15=0x7f..., ..., gs=0}, iov_len=216}``, the
    registers at iov_base (:func:`format_regset`; read behind the iovec by the BPF
    program, TK_SPEC_PTR_AT: GET's after a success, at exit; SET's at entry) or its
    address; iov_len as ``4096 => 2432`` when the call changed it. None when the iovec
    was not read."""
    get = name == "PTRACE_GETREGSET"
    # each capture's bytes (one cut by an unmapped page: the iovec strace reads when its
    # 16 bytes were readable), and whether it was read at exit
    mems = [(m, bool(c.flags & CAPF_AT_EXIT)) for c in _caps(ev, 3)
            if (m := _mem(c)) is not None and len(m) >= 16]
    # the iovec as the call read it: the entry read, or its retry at exit when it faulted
    entry = next((m for m, at_exit in mems if not at_exit), mems[0][0] if mems else None)
    last = mems[-1][0] if mems else None
    mem = last if get else entry
    if mem is None:
        return None
    base, length = struct.unpack_from("<QQ", mem)
    regs = None
    if fl.arch == "x86_64" and (succeeded(ev) or not get):
        note = fl.tables.NT_TYPES.get(ev.args[2])
        d = deref(ev, 3, 0, last=get)
        if d is not None and d.ptr == base and d.readable:
            regs = format_regset(note, length, d.data)
    # iov_len as it was at entry and, when the call changed it, as it left it (both
    # requests: the kernel shortens a longer iov_len to the set's size)
    shown_len = str(length)
    if entry is not None and last is not None and entry is not last:
        before, after = (struct.unpack_from("<Q", m, 8)[0] for m in (entry, last))
        if before != after:
            shown_len = f"{before} => {after}"
    return f"{{iov_base={regs or pointer(base)}, iov_len={shown_len}}}"


def _ptrace(d: SyscallDecoder, ev: Syscall) -> list[str]:
    T, fl = d.flags.tables, d.flags
    req, pid, addr, data = ev.args[:4]
    name = T.PTRACE_REQUESTS.get(req)
    out = [_xval(T.PTRACE_REQUESTS, req, "PTRACE_???")]
    if name == "PTRACE_TRACEME":
        return out
    out.append(str(signed(pid, 32)))
    if name in _PTRACE_NO_ADDR:
        return out
    if name in _PTRACE_REGS and fl.arch == "x86_64":
        return [*out, _ptrace_data(fl, name, ev)]
    if name in _PTRACE_USER:
        out.append(user_offset(fl.arch, addr))
    elif name in _PTRACE_REGSET:
        out.append(_xval(T.NT_TYPES, addr, "NT_???"))
    elif name == "PTRACE_PEEKSIGINFO":
        out.append(_peeksiginfo_args(fl, ev))
    else:
        out.append(str(addr) if name in _PTRACE_ADDR_U else pointer(addr))
    if name in _PTRACE_SIG:
        return [*out, fl.signal_name(data & _M32) if data & _M32 else "0"]
    if name in _PTRACE_OPTS:
        return [*out, F.FlagSet(T.PTRACE_OPTIONS, unknown="PTRACE_O_???")(data)]
    return [*out, _ptrace_data(fl, name, ev)]


def _syslog(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """``syslog(10 /* SYSLOG_ACTION_SIZE_BUFFER */)``: the action as a number with its
    name (strace knows them from a kernel-internal header), then what it uses."""
    T = d.flags.tables
    action = signed(ev.args[0], 32)
    name = T.SYSLOG_ACTIONS.get(action)
    head = f"{action} /* {name or 'SYSLOG_ACTION_???'} */"
    if name in ("SYSLOG_ACTION_CLOSE", "SYSLOG_ACTION_OPEN", "SYSLOG_ACTION_CLEAR",
                "SYSLOG_ACTION_CONSOLE_OFF", "SYSLOG_ACTION_CONSOLE_ON",
                "SYSLOG_ACTION_SIZE_UNREAD", "SYSLOG_ACTION_SIZE_BUFFER"):
        return [head]
    length = signed(ev.args[2], 32)
    if name == "SYSLOG_ACTION_CONSOLE_LEVEL":
        # the level as a number with its name, which strace has for 8 too (the console
        # then shows every message)
        level = T.LOG_LEVELS.get(length) or (
            "LOGLEVEL_DEBUG+1" if length == 8 else "LOGLEVEL_???")
        return [head, pointer(ev.args[1]), f"{length} /* {level} */"]
    buf = pointer(ev.args[1])
    if name in ("SYSLOG_ACTION_READ", "SYSLOG_ACTION_READ_ALL", "SYSLOG_ACTION_READ_CLEAR"):
        cap = capture_out(ev, 1)
        if cap is not None and ev.ret >= 0:
            buf = quote(cap.data[:ev.ret], limit=d.string_limit,
                        more=bool(cap.flags & CAPF_TRUNC) and len(cap.data) < ev.ret)
    return [head, buf, str(length)]


# quotactl's data (include/uapi/linux/quota.h, dqblk_xfs.h): struct if_dqblk and
# if_nextdqblk (eight u64, dqb_valid, if_nextdqblk's dqb_id: 72 bytes either way),
# struct if_dqinfo (24), fs_disk_quota_t (112, the largest), a u32 (the XFS flags,
# Q_GETFMT's format): each read at its own size at entry (strace reads just the
# command's struct: one at the end of a mapping is readable to it); at exit (8 specs at
# most) if_dqblk and fs_disk_quota_t, the smaller structs read within them
QUOTA_DATA_SIZE = 112
QUOTA_IN_SIZES = (4, 24, 72, QUOTA_DATA_SIZE)
QUOTA_OUT_SIZES = (72, QUOTA_DATA_SIZE)
_DQBLK = ("dqb_bhardlimit", "dqb_bsoftlimit", "dqb_curspace", "dqb_ihardlimit",
          "dqb_isoftlimit", "dqb_curinodes")
_XFS_DQBLK = ("d_blk_hardlimit", "d_blk_softlimit", "d_ino_hardlimit", "d_ino_softlimit",
              "d_bcount", "d_icount")
# commands that take no id: strace prints the device, then the data
_QUOTA_NO_ID = frozenset({"Q_GETFMT", "Q_GETINFO", "Q_SETINFO", "Q_XGETQSTAT",
                          "Q_XGETQSTATV", "Q_XQUOTAON", "Q_XQUOTAOFF", "Q_XQUOTARM"})
# commands whose data the call writes (shown when it succeeded), and those it reads
_QUOTA_OUT = frozenset({"Q_GETQUOTA", "Q_GETNEXTQUOTA", "Q_XGETQUOTA", "Q_XGETNEXTQUOTA",
                        "Q_GETFMT", "Q_GETINFO"})


def _uid(v: int) -> str:
    """strace's printuid: ``-1`` for (uid_t)-1, else unsigned."""
    v &= _M32
    return "-1" if v == _M32 else str(v)


def _quota_data(T: ModuleType, name: str, data: bytes) -> str | None:
    """The text of quotactl's data for command ``name`` (strace 6.1, abbreviated as
    without -v), None for a command whose data strace does not decode here."""
    if name in ("Q_GETQUOTA", "Q_SETQUOTA", "Q_GETNEXTQUOTA"):
        fields = [f"{n}={v}" for n, v in zip(_DQBLK, struct.unpack_from("<6Q", data),
                                              strict=True)]
        if name == "Q_GETNEXTQUOTA":
            fields.append(f"dqb_id={struct.unpack_from('<I', data, 68)[0]}")
        return "{" + ", ".join([*fields, "..."]) + "}"
    if name in ("Q_GETINFO", "Q_SETINFO"):
        bgrace, igrace, flags, valid = struct.unpack_from("<QQII", data)
        dqf = F.FlagSet(T.QUOTA_DQF_FLAGS, unknown="DQF_???")
        iif = F.FlagSet(T.QUOTA_IIF_FLAGS, unknown="IIF_???")
        return (f"{{dqi_bgrace={bgrace}, dqi_igrace={igrace}, dqi_flags={dqf(flags)}, "
                f"dqi_valid={iif(valid)}}}")
    if name in ("Q_XGETQUOTA", "Q_XGETNEXTQUOTA", "Q_XSETQLIM"):
        version, flags, mask, qid = struct.unpack_from("<bBHI", data)
        kinds = F.FlagSet(T.XFS_DQBLK_FLAGS, unknown="FS_???_QUOTA")
        fields = [f"{n}={v}" for n, v in zip(_XFS_DQBLK, struct.unpack_from("<6Q", data, 8),
                                              strict=True)]
        return "{" + ", ".join([f"d_version={version}", f"d_flags={kinds(flags)}",
                                f"d_fieldmask={hex0(mask)}", f"d_id={qid}", *fields,
                                "..."]) + "}"
    if name in ("Q_GETFMT", "Q_XQUOTAON", "Q_XQUOTAOFF", "Q_XQUOTARM"):
        (v,) = struct.unpack_from("<I", data)
        if name == "Q_GETFMT":
            return f"[{_xval(T.QUOTA_FORMATS, v, 'QFMT_VFS_???')}]"
        if name == "Q_XQUOTARM":
            return f"[{F.FlagSet(T.XFS_DQBLK_FLAGS, unknown='FS_???_QUOTA')(v)}]"
        return f"[{F.FlagSet(T.XFS_QUOTA_FLAGS, unknown='FS_QUOTA_???')(v)}]"
    return None


def _quotactl(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """``quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/sda1", 1000, {dqb_bhardlimit=0, ...,
    dqb_curinodes=12, ...})``: the command and quota type of the first argument, the
    device, then what the command uses: Q_QUOTAON's format and quota file; the id
    (not for the commands of ``_QUOTA_NO_ID``); the data: a struct the call reads (shown
    whatever the result), one it writes (shown when it succeeded), Q_GETFMT's
    ``[QFMT_VFS_V0]``, the XFS commands' ``[FS_QUOTA_UDQ_ACCT|...]``; the address when
    unreadable, and for Q_XGETQSTAT(V)'s struct and unknown commands."""
    return _quota_call(d, ev, ev.args[0], _string(ev, 1))


def _quotactl_fd(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """``quotactl_fd(3, QCMD(Q_GETQUOTA, GRPQUOTA), 1000, {...})``: the fd, then the
    command and what it uses as quotactl's (its arguments after the device's place)."""
    fd = ev.args[0] & _M32
    return [d.fd_text(ev.tgid, fd - (1 << 32) if fd & 0x80000000 else fd),
            *_quota_call(d, ev, ev.args[1], None)]


def _quota_call(d: SyscallDecoder, ev: Syscall, qcmd: int, special: str | None
                ) -> list[str]:
    """quotactl's texts from its command on (``special``: the device's text, None for
    quotactl_fd, which has none); id and data are arguments 2 and 3 in both."""
    T = d.flags.tables
    args = ev.args
    qcmd &= _M32
    cmd, qtype = qcmd >> 8, qcmd & 0xFF
    name = T.QUOTA_CMDS.get(cmd, "")
    head = (f"QCMD({_xval(T.QUOTA_CMDS, cmd, 'Q_???')}, "
            f"{_xval(T.QUOTA_TYPES, qtype, '???QUOTA')})")
    out = [head] if special is None else [head, special]
    if name in ("Q_QUOTAOFF", "Q_SYNC", "Q_XQUOTASYNC"):
        return out
    if name == "Q_QUOTAON":
        return [*out, _xval(T.QUOTA_FORMATS, args[2] & _M32, "QFMT_VFS_???"), _string(ev, 3)]
    data = pointer(args[3])
    written = name in _QUOTA_OUT
    cap = (_struct_at(ev, 3, at_exit=written, need=_quota_size(name))
           if args[3] and not d.addr_only else None)
    if cap is not None and (succeeded(ev) or not written):
        data = _quota_data(T, name, cap.data) or data
    return [*out, data] if name in _QUOTA_NO_ID else [*out, _uid(args[2]), data]


def _string(ev: Syscall, i: int) -> str:
    """A path argument read at entry (CAP_STR): quoted, else its address."""
    cap = next((c for c in _caps(ev, i, CAP_STR) if not c.flags & CAPF_FAULT), None)
    if cap is None or not ev.args[i]:
        return pointer(ev.args[i])
    return quote(cap.data, more=bool(cap.flags & CAPF_TRUNC))


def _quota_size(name: str) -> int:
    """The bytes of quotactl's data for command ``name`` (what strace reads)."""
    if name in ("Q_GETINFO", "Q_SETINFO"):
        return 24
    if name in ("Q_GETQUOTA", "Q_SETQUOTA", "Q_GETNEXTQUOTA"):
        return 72
    if name in ("Q_GETFMT", "Q_XQUOTAON", "Q_XQUOTAOFF", "Q_XQUOTARM"):
        return 4
    return QUOTA_DATA_SIZE


def _struct_at(ev: Syscall, i: int, *, at_exit: bool, need: int) -> Capture | None:
    """The smallest readable struct capture of argument ``i`` of ``need`` bytes or more,
    read at entry (the record's first captures: QUOTA_IN_SIZES) or at exit (its last
    ones: QUOTA_OUT_SIZES); a record of one capture each way (an older recording): that
    one when large enough."""
    caps = [c for c in _caps(ev, i) if c.kind != CAP_STR]
    n = len(QUOTA_IN_SIZES)
    group = (caps[n:] if at_exit else caps[:n]) if len(caps) > 2 else \
        caps[-1:] if at_exit else caps[:1]
    fits = [c for c in map(_readable, group) if c is not None and len(c.data) >= need]
    return min(fits, key=lambda c: len(c.data)) if fits else None


def personality_text(fl: F.ArchFlags, v: int) -> str:
    """``PER_LINUX32|ADDR_NO_RANDOMIZE``: the execution domain (the low byte; one without
    a name ``0x1f /* PER_??? */``), then the flags, then a hex remainder."""
    T = fl.tables
    domains: dict[int, str] = {}
    for n, name in sorted(T.PERSONALITY_TYPES.items(), key=lambda p: (p[0] > 0xFF, p[0])):
        domains.setdefault(n & 0xFF, name)      # PER_LINUX, not PER_LINUX_32BIT, for 0
    low = v & 0xFF
    parts = [domains.get(low) or f"{hex0(low)} /* PER_??? */"]
    rest = F.FlagSet(T.PERSONALITY_FLAGS)(v & ~0xFF & _M32)
    if rest != "0":
        parts.append(rest)
    return "|".join(parts)


def _personality(d: SyscallDecoder, ev: Syscall) -> list[str]:
    v = ev.args[0] & _M32
    return ["0xffffffff" if v == _M32 else personality_text(d.flags, v)]


def _ret_personality(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    return f"{hex0(ev.ret)} ({personality_text(d.flags, ev.ret)})"


# keyctl: arguments after the command (strace 6.1's layouts of the common commands)
#   key: a key serial (KEY_SPEC_* or decimal)  d: int  u: unsigned  p: address
#   str: a string read at entry  uid: a uid or gid (-1, else unsigned: strace's printuid)
#   reqkey: KEY_REQKEY_DEFL_* (an int, ``-5 /* KEY_REQKEY_DEFL_??? */`` unnamed)
_KEYCTL: dict[str, tuple[str, ...]] = {
    "KEYCTL_GET_KEYRING_ID": ("key", "d"), "KEYCTL_JOIN_SESSION_KEYRING": ("str",),
    "KEYCTL_UPDATE": ("key", "payload", "lu"), "KEYCTL_REVOKE": ("key",), "KEYCTL_CLEAR": ("key",),
    "KEYCTL_INVALIDATE": ("key",), "KEYCTL_LINK": ("key", "key"),
    "KEYCTL_UNLINK": ("key", "key"), "KEYCTL_DESCRIBE": ("key", "outnul", "lu"),
    "KEYCTL_READ": ("key", "out", "lu"), "KEYCTL_GET_SECURITY": ("key", "outnul", "lu"),
    "KEYCTL_SETPERM": ("key", "perm"), "KEYCTL_SET_TIMEOUT": ("key", "u"),
    "KEYCTL_SEARCH": ("key", "str", "str", "key"),
    "KEYCTL_INSTANTIATE": ("key", "payload", "lu", "key"), "KEYCTL_NEGATE": ("key", "u", "key"),
    "KEYCTL_REJECT": ("key", "u", "errno", "key"), "KEYCTL_CAPABILITIES": ("caps", "lu"),
    "KEYCTL_RESTRICT_KEYRING": ("key", "str", "str"),
    "KEYCTL_MOVE": ("key", "key", "key", "moveflags"),
    "KEYCTL_SET_REQKEY_KEYRING": ("reqkey",), "KEYCTL_ASSUME_AUTHORITY": ("key",),
    "KEYCTL_SESSION_TO_PARENT": (), "KEYCTL_CHOWN": ("key", "uid", "uid"),
    "KEYCTL_GET_PERSISTENT": ("uid", "key"),
    # tracekit/decode/structs_key.py: dh: struct keyctl_dh_params; pkeyout, pkeyin:
    # struct keyctl_pkey_params with out_len / in2_len; in1, in2: printstrn of its in_len /
    # in2_len bytes; x: hex; iov: an iovec array (its count the next argument)
    "KEYCTL_INSTANTIATE_IOV": ("key", "iov", "lu", "key"),
    "KEYCTL_DH_COMPUTE": ("dh", "out", "lu", "p"),
    "KEYCTL_PKEY_QUERY": ("key", "x", "str", "p"),
    **dict.fromkeys(("KEYCTL_PKEY_ENCRYPT", "KEYCTL_PKEY_DECRYPT", "KEYCTL_PKEY_SIGN"),
                    ("pkeyout", "str", "in1", "p")),
    "KEYCTL_PKEY_VERIFY": ("pkeyin", "str", "in1", "in2"),
}


def _bufs(ev: Syscall, i: int) -> list[Capture]:
    """The byte buffers captured of argument ``i``: the one read at entry (a payload,
    its length the next argument) before the one read at exit (what the call wrote)."""
    return [c for c in ev.caps if c.arg == i and c.kind == CAP_BUF and not c.flags & CAPF_FAULT]


def _keyctl_payload(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """A payload KEYCTL_UPDATE and KEYCTL_INSTANTIATE read: its length the next argument."""
    bufs = _bufs(ev, i)
    if not bufs or ev.args[i] == 0:
        return pointer(ev.args[i])
    n = ev.args[i + 1]
    cap = bufs[0]
    return quote(cap.data[:n], limit=d.string_limit,
                 more=bool(cap.flags & CAPF_TRUNC) and len(cap.data) < n)


def _keyctl_caps(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """KEYCTL_CAPABILITIES' bytes (as many as the result, at most the buffer's length):
    ``[KEYCTL_CAPS0_CAPABILITIES|..., KEYCTL_CAPS1_NS_KEYRING_NAME|...]``."""
    bufs = _bufs(ev, i) if succeeded(ev) else []
    if not bufs or ev.args[i] == 0:
        return pointer(ev.args[i])
    T = d.flags.tables
    data = bufs[-1].data[:min(ev.ret, ev.args[i + 1])]
    tables = (T.KEYCTL_CAPS0, T.KEYCTL_CAPS1)
    return "[" + ", ".join(F.FlagSet(tables[k])(b) if k < 2 else hex(b)
                           for k, b in enumerate(data)) + "]"


def _keyctl_out(d: SyscallDecoder, ev: Syscall, i: int, *, nul: bool) -> str:
    """The buffer KEYCTL_READ, KEYCTL_DESCRIBE and KEYCTL_GET_SECURITY fill: the bytes
    written (the result, at most the buffer's length, the next argument), without the
    terminating NUL of a description (``nul``); the address when the call failed."""
    bufs = _bufs(ev, i) if succeeded(ev) else []
    cap = bufs[-1] if bufs else None
    if cap is None or ev.args[i] == 0:
        return pointer(ev.args[i])
    n = min(ev.ret, ev.args[i + 1])
    data = cap.data[:n]
    if nul and data.endswith(b"\0") and len(data) == n:
        data = data[:-1]
    more = bool(cap.flags & CAPF_TRUNC) and len(cap.data) < n
    return quote(data, limit=d.string_limit, more=more)


def _keyctl(d: SyscallDecoder, ev: Syscall) -> list[str]:
    T = d.flags.tables
    cmd = ev.args[0] & _M32
    name = T.KEYCTL_CMDS.get(cmd)
    out = [_xval(T.KEYCTL_CMDS, cmd, "KEYCTL_???")]
    spec = _KEYCTL.get(name or "")
    if spec is None:
        return [*out, *(hex0(v) for v in ev.args[1:5])]
    for i, k in enumerate(spec, start=1):
        v = ev.args[i]
        if k == "key":
            out.append(K.key_serial(T.KEY_SPECS, v))
        elif k == "d":
            out.append(str(signed(v, 32)))
        elif k == "uid":
            out.append("-1" if v & _M32 == _M32 else str(v & _M32))
        elif k == "reqkey":
            s = signed(v, 32)
            out.append(T.KEY_REQKEY_DEFL.get(s) or f"{s} /* KEY_REQKEY_DEFL_??? */")
        elif k == "u":
            out.append(str(v & _M32))
        elif k == "lu":
            out.append(str(v))
        elif k == "perm":
            out.append(F.FlagSet(T.KEY_PERMS, unknown="KEY_???")(v & _M32))
        elif k == "str":
            cap = next((c for c in ev.caps if c.arg == i and c.kind == CAP_STR
                        and not c.flags & CAPF_FAULT), None)
            out.append(pointer(v) if cap is None
                       else quote(cap.data, limit=d.string_limit,
                                  more=bool(cap.flags & CAPF_TRUNC)))
        elif k in ("out", "outnul"):
            out.append(_keyctl_out(d, ev, i, nul=k == "outnul"))
        elif k == "payload":
            out.append(_keyctl_payload(d, ev, i))
        elif k == "caps":
            out.append(pointer(v) if d.addr_only else _keyctl_caps(d, ev, i))
        elif k == "errno":
            err = v & _M32
            out.append(errno_name(err) if err in errno.errorcode else str(err))
        elif k == "moveflags":
            out.append(F.FlagSet(T.KEYCTL_MOVE_FLAGS, unknown="KEYCTL_MOVE_???")(v & _M32))
        elif k in _KEYCTL_STRUCT_KINDS:
            out.append(_keyctl_struct(d, ev, i, k))
        else:
            out.append(pointer(v))
    return out


_KEYCTL_STRUCT_KINDS = frozenset({"x", "iov", "dh", "pkeyout", "pkeyin", "in1", "in2"})


def _keyctl_struct(d: SyscallDecoder, ev: Syscall, i: int, k: str) -> str:
    """keyctl's arguments of :data:`_KEYCTL_STRUCT_KINDS` (tracekit.decode.structs_key)."""
    v, specs = ev.args[i], d.flags.tables.KEY_SPECS
    if k == "x":
        return hex0(v)
    if k == "iov":
        return d.consts.kinds["iovw"](d, ev, i) or pointer(v)
    data = K.struct_bytes(ev, 1) if v or k in ("in1", "in2") else None
    if k == "dh":
        text = None if data is None else K.format_dh_params(data, specs)
    elif k in ("pkeyout", "pkeyin"):
        text = None if data is None else K.format_pkey_params(data, specs, out=k == "pkeyout")
    else:
        # the input bytes, in_len (in2_len) of them: the address when the struct is not
        params = None if data is None else K.pkey_params(data)
        return pointer(v) if params is None else K.strn_of_string(
            ev, i, params[1] if k == "in1" else params[2], d.string_limit)
    return pointer(v) if text is None else text


# -- timers and groups -------------------------------------------------------------------

def format_itimerspec(data: bytes) -> str | None:
    """struct itimerspec (32 bytes): ``{it_interval={tv_sec=0, tv_nsec=1},
    it_value={tv_sec=2, tv_nsec=3}}``."""
    if len(data) < 32:
        return None
    a, b, c, e = struct.unpack_from("<qQqQ", data)     # tv_nsec unsigned, as strace
    return (f"{{it_interval={{tv_sec={a}, tv_nsec={b}}}, "
            f"it_value={{tv_sec={c}, tv_nsec={e}}}}}")


def format_itimerval(data: bytes) -> str | None:
    """struct itimerval (32 bytes): ``{it_interval={tv_sec=0, tv_usec=0}, ...}``."""
    if len(data) < 32:
        return None
    a, b, c, e = struct.unpack_from("<qQqQ", data)     # tv_usec unsigned, as strace
    return (f"{{it_interval={{tv_sec={a}, tv_usec={b}}}, "
            f"it_value={{tv_sec={c}, tv_usec={e}}}}}")


def _k_struct_in(fmt: Callable[[bytes], str | None]) -> _KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = _first_struct(ev, i)
        text = None if cap is None else fmt(cap.data)
        return pointer(ev.args[i]) if text is None else text
    return k


def _k_struct_out(fmt: Callable[[bytes], str | None]) -> _KindFn:
    """A struct the call wrote: the LAST capture of the argument (the one read at exit)
    when the call succeeded."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        caps = [c for c in _caps(ev, i) if c.kind != CAP_STR]
        cap = _readable(caps[-1]) if caps and succeeded(ev) else None
        text = None if cap is None else fmt(cap.data)
        return pointer(ev.args[i]) if text is None else text
    return k


NGROUPS_MAX = 65536      # include/uapi/linux/limits.h (sysconf(_SC_NGROUPS_MAX))


def _k_gids(out: bool) -> Callable[[SyscallDecoder, Syscall, int], str]:
    """getgroups' list (``ret`` gids, written by the call) or setgroups' (``size`` gids,
    read by it): ``[0, 4, 24]``; ``NULL``; the address when unread or failed."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i]
        if not v:
            return "NULL"
        n = ev.ret if out else signed(ev.args[0], 32)
        if out and not succeeded(ev):
            return pointer(v)
        if n == 0:
            return "[]"     # strace prints no element of an empty list, reads nothing
        if n < 0 or n > NGROUPS_MAX:
            return pointer(v)   # more than a process may have: strace reads none
        # getgroups(0, list) returns the count and writes nothing: strace (and the
        # capture) read that many gids from list all the same
        cap = _readable(capture(ev, i))
        got = readable(ev, i) if cap is None and not out else None
        if got is not None and not got[1]:
            # setgroups' list cut by the end of its mapping: the gids before the cut
            text = cut_array_text(got[0], n, 4, elements_shown(d), v, _gid_list)
            return pointer(v) if text is None else text
        if cap is None or n < 0 or len(cap.data) < 4 * min(n, len(cap.data) // 4):
            return pointer(v)
        # -s of them (strace's print_array), every one captured for a call not
        # abbreviated
        shown = min(n, len(cap.data) // 4, elements_shown(d))
        text = _gid_list(cap.data, shown)
        if n > shown:
            return text[:-1] + (", ...]" if shown else "...]")
        return text
    return k


def _gid_list(data: bytes, n: int) -> str:
    """``n`` gids (u32) as a list: ``[0, 4, -1]`` (strace prints (gid_t) -1 so)."""
    gids = struct.unpack_from(f"<{n}I", data)
    return "[" + ", ".join("-1" if g == _M32 else str(g) for g in gids) + "]"


def xfeatures_text(fl: F.ArchFlags) -> Callable[[int], str]:
    """An x86 XSAVE feature mask as strace 6.1 prints it: the value, then its names in a
    comment (``0xe7 /* XFEATURE_MASK_FPSSE|XFEATURE_MASK_YMM|XFEATURE_MASK_AVX512 */``)."""
    names = F.FlagSet(fl.tables.X86_XFEATURES)

    def fmt(v: int) -> str:
        return f"{v:#x} /* {names(v)} */" if v else "0"
    return fmt


def k_archprctl_arg(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """arch_prctl's addr: ``[0x7f...]`` that ARCH_GET_FS/ARCH_GET_GS wrote, the feature
    mask ARCH_GET_XCOMP_* wrote (``[0xe7 /* XFEATURE_MASK_FPSSE|... */]``), none for
    ARCH_GET_CPUID (it takes no argument: ``arch_prctl(ARCH_GET_CPUID) = 1``), the feature
    ARCH_REQ_XCOMP_PERM asks for (``0x12 /* XFEATURE_XTILE_DATA */``), else hex."""
    name = d.flags.tables.ARCH_PRCTL_OPTIONS.get(ev.args[0] & _M32)
    if name == "ARCH_GET_CPUID":
        return None
    if name in ("ARCH_GET_XCOMP_SUPP", "ARCH_GET_XCOMP_PERM", "ARCH_GET_XCOMP_GUEST_PERM"):
        return _out_int(ev, i, xfeatures_text(d.flags), size=8)
    if name in ("ARCH_GET_FS", "ARCH_GET_GS"):
        return _out_int(ev, i, pointer, size=8)
    if name in ("ARCH_REQ_XCOMP_PERM", "ARCH_REQ_XCOMP_GUEST_PERM"):
        # a feature number, in strace's verbose style whatever -X says (its prctl.c)
        return xval_verbose(ev.args[i], d.flags.tables.X86_XFEATURE_BITS, "XFEATURE_???")
    return hex0(ev.args[i])


def k_archprctl_arg_addr(d: SyscallDecoder, ev: Syscall, i: int) -> str | None:
    """:func:`k_archprctl_arg` under -e verbose= without arch_prctl: what a GET
    command wrote (``[0x7f...]``) as its address; the values of the others as they are."""
    text = k_archprctl_arg(d, ev, i)
    return pointer(ev.args[i]) if text is not None and text[:1] == "[" else text


def _siginfo(fl: F.ArchFlags) -> Callable[[bytes], str | None]:
    """A siginfo_t (its first 48 bytes) as strace prints it: ``{}`` when zeroed."""
    def fmt(data: bytes) -> str | None:
        if len(data) < 48:
            return None
        return "{}" if not int.from_bytes(data[:4], "little") else siginfo_text(data, fl)
    return fmt


def _k_int_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """``[24]``: an int or size the call wrote (get_robust_list's len_ptr, sched_param)."""
    return _out_int(ev, i, str, signed_=True)


def _k_uint_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """``[1]``: an unsigned int the call wrote (getcpu's cpu and node)."""
    return _out_int(ev, i, str)


def _k_int_in(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """``[0]``: an int the call reads (sched_setscheduler's sched_param)."""
    cap = _readable(capture(ev, i))
    if cap is None or len(cap.data) < 4:
        return pointer(ev.args[i])
    return f"[{int.from_bytes(cap.data[:4], 'little', signed=True)}]"


def _k_ptr_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """``[0x55d0...]``: a pointer the call wrote (get_robust_list's head_ptr)."""
    return _out_int(ev, i, pointer, size=8)


# errnos of a sleep cut short by a signal, after which the kernel wrote the time left
_EINTR, _ERESTART_RESTARTBLOCK = 4, 516


def _k_rem_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
    """nanosleep/clock_nanosleep's rem: the time left that the kernel wrote when a signal
    cut the sleep short (EINTR, or ERESTART_RESTARTBLOCK as the exit tracepoint sees a
    sleep to be restarted), read at exit; its address otherwise (strace)."""
    if ev.ret not in (-_EINTR, -_ERESTART_RESTARTBLOCK) or not ev.args[i]:
        return pointer(ev.args[i])
    caps = [c for c in _caps(ev, i) if c.kind != CAP_STR]
    cap = _readable(caps[-1]) if caps else None
    text = None if cap is None else format_timespec(cap.data)
    return pointer(ev.args[i]) if text is None else text


def _mfd_flags(fl: F.ArchFlags) -> Callable[[int], str]:
    """memfd_create's flags as strace 6.1 prints them: the huge page size field
    (MFD_HUGE_MASK << MFD_HUGE_SHIFT) apart as ``21<<MFD_HUGE_SHIFT``, after the named
    bits and any other bits in hex (``MFD_CLOEXEC|0x20``); bits without a name alone as
    ``0x8 /* MFD_??? */`` (strace 6.1 does not know MFD_NOEXEC_SEAL and MFD_EXEC)."""
    T = fl.tables
    names = {v: k for k, v in T.MFD_CONSTS.items()}
    shift, fmask = names.get("MFD_HUGE_SHIFT", 26), names.get("MFD_HUGE_MASK", 0x3F)
    bits = F.FlagSet(T.MFD_FLAGS)
    known = sum(b for b, _ in T.MFD_FLAGS)

    def fmt(v: int) -> str:
        v &= _M32
        huge, rest = v & (fmask << shift), v & ~(fmask << shift)
        parts = []
        if rest or not huge:
            parts.append(bits(rest) if rest & known or not rest else f"{hex0(rest)} /* MFD_??? */")
        if huge:
            parts.append(f"{huge >> shift}<<MFD_HUGE_SHIFT")
        return "|".join(parts)
    return fmt


def _ret_ldt(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    """modify_ldt's result: the kernel returns an int in a zero-extended register, so an
    error comes back as 0xffffffda; strace prints the number and the error it is:
    ``4294967258 ENOSYS (Function not implemented)``."""
    err = format_ret_errno(signed(ev.ret & _M32, 32)) if 0 <= ev.ret <= _M32 else None
    return text if err is None else f"{ev.ret} {err.split(' ', 1)[1]}"


def _ret_signal(d: SyscallDecoder, ev: Syscall, text: str) -> str:
    """A signal number returned (rt_sigtimedwait): ``1 (SIGHUP)``."""
    return f"{ev.ret} ({d.flags.signal_name(ev.ret)})" if ev.ret > 0 else text


def kinds(fl: F.ArchFlags
          ) -> dict[str, Callable[[SyscallDecoder, Syscall, int], str | None]]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    T = fl.tables
    # timerfd_create and timerfd_settime print their flags with one table, strace 6.1's
    # timerfd_flags: TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET|TFD_CLOEXEC|TFD_NONBLOCK
    tfd = F.FlagSet((*T.TFD_TIMER_FLAGS, *T.TFD_FLAGS), unknown="TFD_???")
    efd = F.FlagSet(T.EFD_FLAGS, unknown="EFD_???")
    sfd = F.FlagSet(T.SFD_FLAGS, unknown="SFD_???")
    in_init = F.FlagSet(T.IN_INIT_FLAGS, unknown="IN_???")
    unshare = F.FlagSet(T.UNSHARE_FLAGS, unknown="CLONE_???")
    setns = F.FlagSet(T.SETNS_TYPES)
    mfd = _mfd_flags(fl)
    return {
        "mfdflags": lambda d, ev, i: mfd(ev.args[i]),
        "tfdflags": lambda d, ev, i: tfd(ev.args[i] & _M32),
        "tfdtimerflags": lambda d, ev, i: tfd(ev.args[i] & _M32),
        "efdflags": lambda d, ev, i: efd(ev.args[i] & _M32),
        "sfdflags": lambda d, ev, i: sfd(ev.args[i] & _M32),
        "inflags": lambda d, ev, i: in_init(ev.args[i] & _M32),
        "itimerspec_in": _k_struct_in(format_itimerspec),
        "itimerspec_out": _k_struct_out(format_itimerspec),
        "itimerval_in": _k_struct_in(format_itimerval),
        "itimerval_out": _k_struct_out(format_itimerval),
        "gids_out": _k_gids(True), "gids_in": _k_gids(False),
        "archprctlarg": k_archprctl_arg, "archprctlarg_addr": k_archprctl_arg_addr,
        "unshareflags": lambda d, ev, i: unshare(ev.args[i]),
        "setnstype": lambda d, ev, i: setns(ev.args[i] & _M32),
        "siginfo_in": _k_struct_in(_siginfo(fl)), "siginfo_w": _k_struct_out(_siginfo(fl)),
        "rem_out": _k_rem_out, "int_out": _k_int_out, "uint_out": _k_uint_out,
        "int_in": _k_int_in, "ptr_out": _k_ptr_out,
    }


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds of this module: (decoder, record, plain text) -> the text after ``=``."""
    return {"prctl": _ret_prctl, "fcntl": _ret_fcntl, "membarrier": _ret_membarrier,
            "personality": _ret_personality, "signal": _ret_signal, "ldt": _ret_ldt}


# struct clone_args (include/uapi/linux/sched.h): 11 u64 fields, 88 bytes (64 in its
# first version, CLONE_ARGS_SIZE_VER0)
CLONE_ARGS_SIZE = 88
CLONE_ARGS_CAP = 4096       # a larger size: strace reads the bytes past 88 up to a page
_CLONE_ARGS = ("flags", "pidfd", "child_tid", "parent_tid", "exit_signal", "stack",
               "stack_size", "tls", "set_tid", "set_tid_size", "cgroup")


def _clone3(d: SyscallDecoder, ev: Syscall) -> list[str]:
    """``clone3({flags=CLONE_VM|..., child_tid=0x..., parent_tid=0x..., exit_signal=0,
    stack=0x..., stack_size=0x..., tls=0x...} => {parent_tid=[1234]}, 88)``: the fields
    the flags use; after a successful call the tid the kernel wrote at parent_tid (the
    new task's tid, which the call also returns)."""
    fl = d.flags
    size = ev.args[1]
    caps = [c for c in ev.caps if c.arg == 0 and not c.flags & CAPF_DEREF]
    cap = _readable(caps[0] if caps else None)
    if cap is None or len(cap.data) < 64 or size < 64:
        return [pointer(ev.args[0]), str(size)]
    data = cap.data[:min(size, CLONE_ARGS_SIZE)].ljust(CLONE_ARGS_SIZE, b"\0")
    a = dict(zip(_CLONE_ARGS, struct.unpack_from("<11Q", data), strict=True))
    names = {n: v for v, n in fl.tables.CLONE_FLAGS}
    flags = a["flags"]
    out = [f"flags={fl.clone3_flags(flags)}"]
    if flags & names["CLONE_PIDFD"]:
        out.append(f"pidfd={pointer(a['pidfd'])}")
    if flags & (names["CLONE_CHILD_SETTID"] | names["CLONE_CHILD_CLEARTID"]):
        out.append(f"child_tid={pointer(a['child_tid'])}")
    if flags & names["CLONE_PARENT_SETTID"]:
        out.append(f"parent_tid={pointer(a['parent_tid'])}")
    sig = a["exit_signal"]
    out.append(f"exit_signal={fl.signal_name(sig) if 0 < sig < 65 else sig}")
    out += [f"stack={pointer(a['stack'])}", f"stack_size={hex0(a['stack_size'])}"]
    if flags & names["CLONE_SETTLS"]:
        out.append(f"tls={pointer(a['tls'])}")
    if a["set_tid"] or a["set_tid_size"]:
        out += [f"set_tid={pointer(a['set_tid'])}", f"set_tid_size={a['set_tid_size']}"]
    if size > CLONE_ARGS_SIZE - 8 and (a["cgroup"] or flags & names["CLONE_INTO_CGROUP"]):
        out.append(f"cgroup={a['cgroup']}")
    if size > CLONE_ARGS_SIZE:
        # what a larger size passes, up to a page: its nonzero bytes, ``???`` when
        # unreadable (strace reads it apart from the struct)
        whole = _readable(caps[-1])
        end = min(size, CLONE_ARGS_CAP)
        if len(caps) < 2:
            pass                    # a record without the read (an older recording)
        elif whole is None or len(whole.data) < end:
            out.append("???")
        elif any(tail := whole.data[CLONE_ARGS_SIZE:end]):
            out.append(f"/* bytes {CLONE_ARGS_SIZE}..{end - 1} */ "
                       + quote(tail, limit=d.string_limit, force_hex=True))
    text = "{" + ", ".join(out) + "}"
    if succeeded(ev) and ev.ret > 0 and flags & names["CLONE_PARENT_SETTID"]:
        tid = a["parent_tid"]
        text += f" => {{parent_tid={f'[{ev.ret}]' if tid else 'NULL'}}}"
    return [text, str(size)]


SPECIAL: dict[str, Callable[[SyscallDecoder, Syscall], list[str]]] = {
    "prctl": _prctl, "futex": _futex, "fcntl": _fcntl, "mremap": _mremap,
    "membarrier": _membarrier, "ptrace": _ptrace, "syslog": _syslog,
    "personality": _personality, "keyctl": _keyctl, "clone3": _clone3, "kcmp": _kcmp,
    "quotactl": _quotactl, "quotactl_fd": _quotactl_fd,
}


# Which argument each printed text is, where an operation skips one in the middle
# (the perf format labels each value with its argument's name).
_FUTEX_POSITIONS: dict[str, tuple[int, ...]] = {
    "FUTEX_LOCK_PI": (0, 1, 3), "FUTEX_LOCK_PI2": (0, 1, 3),
    "FUTEX_WAIT_BITSET": (0, 1, 2, 3, 5), "FUTEX_WAKE_BITSET": (0, 1, 2, 5),
}


def arg_positions(name: str, args: tuple[int, ...], arch: str | None = None
                  ) -> tuple[int, ...] | None:
    """The argument index of each text the decoder prints for syscall ``name`` with raw
    ``args``, when an operation leaves out an argument before others (futex's
    FUTEX_LOCK_PI prints uaddr, op and timeout); None when the texts are the first
    arguments in order."""
    if name == "futex" and len(args) >= 2:
        cmd = F.for_arch(arch).tables.FUTEX_CMDS.get(args[1] & 127)
        return _FUTEX_POSITIONS.get(cmd or "")
    if name in ("quotactl", "quotactl_fd") and len(args) > 1:
        at = 1 if name == "quotactl_fd" else 0
        cmd = F.for_arch(arch).tables.QUOTA_CMDS.get((args[at] & _M32) >> 8)
        return (0, 1, 3) if cmd in _QUOTA_NO_ID or cmd == "Q_GETFMT" else None
    if name == "ptrace" and args:
        fl = F.for_arch(arch)
        if fl.arch == "x86_64" and fl.tables.PTRACE_REQUESTS.get(args[0]) in _PTRACE_REGS:
            return (0, 1, 3)
    return None
