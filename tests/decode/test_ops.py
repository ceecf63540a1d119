"""tracekit.decode.ops on records built here: the texts the live comparison with strace
(tests/e2e/test_strace_ops.py) checks, for the cases a live run does not reach (both
arches, captures absent or unreadable, hostile values), and the perf format's labels."""

from __future__ import annotations

import io
import struct

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from tracekit._events import (
    CAP_BUF,
    CAP_COUNT,
    CAP_STR,
    CAP_STRUCT,
    CAPF_DEREF,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_TRUNC,
    Capture,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.decode.ops import arg_positions, format_regset
from tracekit.decode.values import format_sockaddr
from tracekit.formatters.perf import PerfFormatter
from tracekit.kernel.syscalls import SyscallTable

X86 = SyscallTable("x86_64")


def dec(arch: str = "x86_64") -> SyscallDecoder:
    return SyscallDecoder(SyscallTable(arch), fdcache=FdCache("/nonexistent"))


def rec(name: str, args: tuple[int, ...], ret: int = 0, caps: tuple[Capture, ...] = (),
        table: SyscallTable = X86) -> Syscall:
    nr = table.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=7, tgid=7, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def text(ev: Syscall, d: SyscallDecoder | None = None) -> str:
    got = (d or dec()).decode(ev)
    return f"{got.name}({', '.join(got.args)}) = {got.ret}"


def cap(arg: int, data: bytes, kind: int = CAP_STRUCT, flags: int = 0) -> Capture:
    return Capture(arg=arg, kind=kind, flags=flags, data=data)


U = 0x5600_0000_1000          # a user address


@pytest.mark.parametrize(("args", "want"), [
    ((U, 0, 1, U + 8), "futex(0x560000001000, FUTEX_WAIT, 1, 0x560000001008) = 0"),
    ((U, 6, 0, 0), "futex(0x560000001000, FUTEX_LOCK_PI, NULL) = 0"),
    ((U, 7), "futex(0x560000001000, FUTEX_UNLOCK_PI) = 0"),
    ((U, 1, 0xFFFFFFFF), "futex(0x560000001000, FUTEX_WAKE, 4294967295) = 0"),
    ((U, 10 | 128, 1, 0, 0, 0xFFFFFFFF),
     "futex(0x560000001000, FUTEX_WAKE_BITSET_PRIVATE, 1, FUTEX_BITSET_MATCH_ANY) = 0"),
    ((U, 5, 1, 2, U, (8 | 1) << 28 | 0x12 << 12 | 7 << 24 | 3),
     "futex(0x560000001000, FUTEX_WAKE_OP, 1, 2, 0x560000001000, "
     "FUTEX_OP_OPARG_SHIFT<<28|FUTEX_OP_ADD<<28|0x12<<12|0x7<<24 /* FUTEX_OP_CMP_??? */|0x3)"
     " = 0"),
])
def test_futex_prints_the_arguments_its_operation_uses(args: tuple[int, ...], want: str) -> None:
    assert text(rec("futex", args)) == want


def test_prctl_options() -> None:
    name = cap(1, b"a-name-longer-than-fifteen"[:16], CAP_STR, CAPF_TRUNC)
    assert text(rec("prctl", (15, U), 0, (name,))) == 'prctl(PR_SET_NAME, "a-name-longer-t"...) = 0'
    assert text(rec("prctl", (15, U), 0, (cap(1, b"short", CAP_STR),))) == \
        'prctl(PR_SET_NAME, "short") = 0'
    # the entry string, then what the call wrote: an int, and the name
    out = (cap(1, b"", CAP_STR, CAPF_FAULT), cap(1, struct.pack("<Q", 10)),
           cap(1, b"comm", CAP_STR))
    assert text(rec("prctl", (2, U), 0, out)) == "prctl(PR_GET_PDEATHSIG, [SIGUSR1]) = 0"
    assert text(rec("prctl", (16, U), 0, out)) == 'prctl(PR_GET_NAME, "comm") = 0'
    assert text(rec("prctl", (16, U), -14, out)) == \
        "prctl(PR_GET_NAME, 0x560000001000) = -1 EFAULT (Bad address)"
    assert text(rec("prctl", (3,), 1)) == "prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)"
    assert text(rec("prctl", (23, 21))) == "prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN) = 0"
    assert text(rec("prctl", (0x12345, 1, 2, 3, 4))) == \
        "prctl(0x12345 /* PR_??? */, 0x1, 0x2, 0x3, 0x4) = 0"


def test_prctl_speculation_vma_name_and_arch_prctl_cpuid() -> None:
    """As strace 6.1 printed them (tests/e2e/test_strace_sweep_tty.py)."""
    assert text(rec("prctl", (52, 0), 2)) == \
        "prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS) = 0x2 (PR_SPEC_ENABLE)"
    assert text(rec("prctl", (52, 2), 9)) == ("prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_L1D_FLUSH) "
                                              "= 0x9 (PR_SPEC_PRCTL|PR_SPEC_FORCE_DISABLE)")
    assert text(rec("prctl", (52, 0x63), -19)) == ("prctl(PR_GET_SPECULATION_CTRL, "
                                                   "0x63 /* PR_SPEC_??? */) = -1 ENODEV "
                                                   "(No such device)")
    vma = 0x53564D41
    named = cap(4, b"tk-sweep", CAP_STR)
    assert text(rec("prctl", (vma, 0, U, 4096, U + 8), -22, (named,))).startswith(
        'prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x560000001000, 4096, "tk-sweep") = -1')
    long_ = cap(4, b"x" * 33, CAP_STR, CAPF_TRUNC)
    assert text(rec("prctl", (vma, 0, U, 4096, U + 8), 0, (long_,))).endswith(
        f'4096, "{"x" * 32}"...) = 0')
    assert text(rec("prctl", (vma, 0, U, 4096, 0))).endswith("4096, NULL) = 0")
    assert text(rec("prctl", (vma, 0, U, 4096, 1), -14,
                    (cap(4, b"", CAP_STR, CAPF_FAULT),))).startswith(
        "prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x560000001000, 4096, 0x1) = -1")
    assert text(rec("arch_prctl", (0x1011, 0), 1)) == "arch_prctl(ARCH_GET_CPUID) = 1"
    assert text(rec("arch_prctl", (0xDEADBEEF_00001011, 0), 1)) == "arch_prctl(ARCH_GET_CPUID) = 1"
    assert text(rec("arch_prctl", (0x1012, 1))) == "arch_prctl(ARCH_SET_CPUID, 0x1) = 0"
    mask = (cap(1, struct.pack("<Q", 0xE7)),)
    assert text(rec("arch_prctl", (0x1021, U), 0, mask)) == (
        "arch_prctl(ARCH_GET_XCOMP_SUPP, [0xe7 /* XFEATURE_MASK_FPSSE|XFEATURE_MASK_YMM|"
        "XFEATURE_MASK_AVX512 */]) = 0")
    odd = (cap(1, struct.pack("<Q", 0x60801)),)
    assert text(rec("arch_prctl", (0x1022, U), 0, odd)) == (
        "arch_prctl(ARCH_GET_XCOMP_PERM, [0x60801 /* XFEATURE_MASK_FP|XFEATURE_MASK_XTILE|"
        "0x800 */]) = 0")
    assert text(rec("arch_prctl", (0x1021, 0), -14)).startswith(
        "arch_prctl(ARCH_GET_XCOMP_SUPP, NULL) = -1")


@pytest.mark.parametrize(("args", "ret", "want"), [
    ((53, 0, 2), -6, "prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_ENABLE) = -1"),
    ((53, 0x63, 0x80), -19, "prctl(PR_SET_SPECULATION_CTRL, 0x63 /* PR_SPEC_??? */, 0x80) = -1"),
    ((53, 0, 0), -6, "prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, 0 /* PR_SPEC_??? */)"),
    ((53, 0, 3), -6, "prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, 0x3 /* PR_SPEC_??? */)"),
    ((53, 1, 8), -22,
     "prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_INDIRECT_BRANCH, PR_SPEC_FORCE_DISABLE)"),
    ((52, 0), 0, "prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS) = 0 (PR_SPEC_NOT_AFFECTED)"),
    ((52, 0), 42, "prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS) = 0x2a "
     "(PR_SPEC_ENABLE|PR_SPEC_FORCE_DISABLE|0x20)"),
    ((52, 0), 32, "prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS) = 0x20"),
    ((55, 1), -22,
     "prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_NONE, 0, 0, 0)"),
    ((55, 0x57AE57F4, 1, 2, 3), -22, "prctl(PR_SET_TAGGED_ADDR_CTRL, !PR_TAGGED_ADDR_ENABLE|"
     "PR_MTE_TCF_ASYNC|0xcafe<<PR_MTE_TAG_SHIFT|0x57a80000, 0x1, 0x2, 0x3)"),
    ((56,), 0, "prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) = 0 (!PR_TAGGED_ADDR_ENABLE|"
     "PR_MTE_TCF_NONE)"),
    ((50, 0), -22, "prctl(PR_SVE_SET_VL, 0) = -1"),
    ((50, 0x40000 | 0x20000 | 0xFF), -22,
     "prctl(PR_SVE_SET_VL, PR_SVE_SET_VL_ONEXEC|PR_SVE_VL_INHERIT|0xff) = -1"),
    ((62, 0, 0, 0, U), -22,
     "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0 /* PIDTYPE_PID */, 0x560000001000) = -1"),
    ((62, 1, 0, 1, 0), -22,
     "prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, 0x1 /* PIDTYPE_TGID */, NULL) = -1"),
    ((62, 0, 0, 9, 0), -22,
     "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0x9 /* PIDTYPE_??? */, NULL) = -1"),
    ((59, 0), 0, "prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, NULL) = 0"),
    ((59, 1, 0x1000, 0x2000), 0,
     "prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, 0x1000, 0x2000, NULL) = 0"),
    ((50, 0x400FF), -22, "prctl(PR_SVE_SET_VL, PR_SVE_SET_VL_ONEXEC|0xff) = -1"),
    ((55, 0), -22, "prctl(PR_SET_TAGGED_ADDR_CTRL, !PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_NONE, "),
])
def test_prctl_options_strace_decodes_by_their_arguments(args: tuple[int, ...], ret: int,
                                                          want: str) -> None:
    assert text(rec("prctl", args, ret)).startswith(want)


def test_ptrace_requests_print_what_they_read_and_wrote() -> None:
    """As strace 6.1 printed them (tests/e2e/test_strace_sweep_tty.py)."""
    word = (cap(3, struct.pack("<Q", 0x1234)), cap(3, struct.pack("<Q", 0x1234) + bytes(208)))
    assert text(rec("ptrace", (2, 9, U, U + 8), 0, word)) == \
        "ptrace(PTRACE_PEEKDATA, 9, 0x560000001000, [0x1234]) = 0"
    assert text(rec("ptrace", (2, 9, 0, U + 8), -5, word)) == \
        "ptrace(PTRACE_PEEKDATA, 9, NULL, 0x560000001008) = -1 EIO (Input/output error)"
    zero = (cap(3, bytes(8)),)
    for addr, off in ((0, "8*R15"), (16 * 8, "8*RIP"), (18 * 8, "8*EFL"), (21 * 8, "8*SS+8"),
                      (26 * 8, "8*SS+48"), (216, "offsetof(struct user, u_fpvalid)"),
                      (230, "offsetof(struct user, i387)+6"), (912, "sizeof(struct user)"),
                      (913, "0x391"), (0x1001, "0x1001")):
        assert text(rec("ptrace", (3, 9, addr, U), 0, zero)) == \
            f"ptrace(PTRACE_PEEKUSER, 9, {off}, [NULL]) = 0"
    assert text(rec("ptrace", (0x4201, 9, 0, U), 0, zero)) == \
        "ptrace(PTRACE_GETEVENTMSG, 9, NULL, [0]) = 0"
    assert text(rec("ptrace", (0x4200, 9, 0, 0x80000000), -22)).startswith(
        "ptrace(PTRACE_SETOPTIONS, 9, NULL, 0x80000000 /* PTRACE_O_??? */) = -1")
    regs = struct.pack("<27Q", *range(27))
    got = text(rec("ptrace", (12, 9, 0, U), 0, (cap(3, regs),)))
    assert got.startswith("ptrace(PTRACE_GETREGS, 9, {r15=0, r14=0x1, r13=0x2, ")
    assert got.endswith(", orig_rax=0xf, rip=0x10, cs=0x11, eflags=0x12, rsp=0x13, ss=0x14, "
                        "fs_base=0x15, gs_base=0x16, ds=0x17, es=0x18, fs=0x19, gs=0x1a}) = 0")
    assert text(rec("ptrace", (12, 9, 0, 1), -14, (cap(3, b"", flags=CAPF_FAULT),))) == \
        "ptrace(PTRACE_GETREGS, 9, 0x1) = -1 EFAULT (Bad address)"
    iov = (cap(3, struct.pack("<QQ", U, 216) + bytes(200)),)
    assert text(rec("ptrace", (0x4204, 9, 0x999, U), -22, iov)).startswith(
        "ptrace(PTRACE_GETREGSET, 9, 0x999 /* NT_??? */, {iov_base=0x560000001000, "
        "iov_len=216}) = -1")
    assert text(rec("ptrace", (0x4204, 9, 1, 0), -14)).startswith(
        "ptrace(PTRACE_GETREGSET, 9, NT_PRSTATUS, NULL) = -1")
    si = struct.pack("<iii4xiI", 5, 0, 0x8005, 0x3C59, 0).ljust(128, b"\0")
    assert text(rec("ptrace", (0x4202, 9, 0, U), 0, (cap(3, si[:8]), cap(3, si)))) == \
        "ptrace(PTRACE_GETSIGINFO, 9, NULL, {si_signo=SIGTRAP, si_code=0x8005, si_addr=0x3c59}) = 0"


def test_ptrace_set_requests_and_more_structs() -> None:
    """What SETREGS/SETSIGINFO/SETSIGMASK read and GETFPREGS/GETSIGMASK/PEEKSIGINFO/
    GET_SYSCALL_INFO wrote, as strace 6.1 printed them (test_strace_sweep_tty.py)."""
    regs = cap(3, struct.pack("<27Q", *range(27)))
    assert text(rec("ptrace", (13, 9, 0, U), 0, (regs,))).startswith(
        "ptrace(PTRACE_SETREGS, 9, {r15=0, r14=0x1, ")
    fp = struct.pack("<4H2Q2I", 0x37F, 0, 0, 0, 0, 0, 0x1F80, 0x2FFFF) + bytes(480)
    got = text(rec("ptrace", (14, 9, 0, U), 0, (cap(3, fp),)))
    assert got.startswith("ptrace(PTRACE_GETFPREGS, 9, {cwd=0x37f, swd=0, ftw=0, fop=0, rip=0, "
                          "rdp=0, mxcsr=0x1f80, mxcr_mask=0x2ffff, st_space=[0, ")
    assert f"xmm_space=[{', '.join(['0'] * 32)}, ...], padding=[0, " in got
    assert text(rec("ptrace", (15, 9, 0, U), -5, (cap(3, fp),))).startswith(
        "ptrace(PTRACE_SETFPREGS, 9, {cwd=0x37f, ")
    assert text(rec("ptrace", (14, 9, 0, U), 0, (cap(3, fp[:500]),))) == \
        "ptrace(PTRACE_GETFPREGS, 9, 0x560000001000) = 0"
    mask = (cap(3, struct.pack("<Q", 1 << 9)),)
    assert text(rec("ptrace", (0x420B, 9, 8, U), 0, mask)) == \
        "ptrace(PTRACE_SETSIGMASK, 9, 8, [USR1]) = 0"
    assert text(rec("ptrace", (0x420A, 9, 4, U), -22, mask)).startswith(
        "ptrace(PTRACE_GETSIGMASK, 9, 4, 0x560000001000) = -1")
    args = cap(2, struct.pack("<QIi", 0, 1, 2))
    assert text(rec("ptrace", (0x4209, 9, U, U + 64), 0, (args,))) == \
        "ptrace(PTRACE_PEEKSIGINFO, 9, {off=0, flags=PTRACE_PEEKSIGINFO_SHARED, nr=2}, []) = 0"
    si = struct.pack("<iii", 10, 0, 0).ljust(128, b"\0")
    assert text(rec("ptrace", (0x4209, 9, U, U + 64), 1, (args, cap(3, si)))).endswith(
        ", [{si_signo=SIGUSR1, si_code=SI_USER, si_pid=0, si_uid=0}]) = 1")
    info = cap(3, struct.pack("<B3xIQQ", 0, 0xC000003E, 0x401000, 0x7FF0).ljust(88, b"\0"))
    assert text(rec("ptrace", (0x420E, 9, 88, U), 24, (info,))) == (
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 88, {op=PTRACE_SYSCALL_INFO_NONE, "
        "arch=AUDIT_ARCH_X86_64, instruction_pointer=0x401000, stack_pointer=0x7ff0}) = 24")
    head = struct.pack("<B3xIQQ", 1, 0xC000003E, 0x401000, 0x7FF0)
    entry = cap(3, (head + struct.pack("<7Q", 34, 0, 0, 0x401000, 0, 0, 0)).ljust(88, b"\0"))
    assert text(rec("ptrace", (0x420E, 9, 88, U), 80, (entry,))) == (
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 88, {op=PTRACE_SYSCALL_INFO_ENTRY, "
        "arch=AUDIT_ARCH_X86_64, instruction_pointer=0x401000, stack_pointer=0x7ff0, "
        "entry={nr=__NR_pause, args=[0, 0, 0x401000, 0, 0, 0]}}) = 80")
    # a reply cut by the size the caller gave: the fields that fit (strace 6.1's
    # ptrace_syscall_info test, every size from 1 to the whole reply)
    assert text(rec("ptrace", (0x420E, 9, 24, U), 80, (entry,))) == (
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 24, {op=PTRACE_SYSCALL_INFO_ENTRY, "
        "arch=AUDIT_ARCH_X86_64, instruction_pointer=0x401000, stack_pointer=0x7ff0}) = 80")
    assert text(rec("ptrace", (0x420E, 9, 7, U), 80, (entry,))) == \
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 7, {op=PTRACE_SYSCALL_INFO_ENTRY}) = 80"
    assert text(rec("ptrace", (0x420E, 9, 47, U), 80, (entry,))).endswith(
        "entry={nr=__NR_pause, args=[0]}}) = 80")
    assert text(rec("ptrace", (0x420E, 9, 0, U), 80, (entry,))) == \
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 0, 0x560000001000) = 80"
    # the kernel's size cuts too: 24 bytes written of an 88-byte buffer
    assert text(rec("ptrace", (0x420E, 9, 88, U), 24, (entry,))).endswith(
        "stack_pointer=0x7ff0}) = 24")
    head = struct.pack("<B3xIQQ", 2, 0xC000003E, 0x401000, 0x7FF0)
    for rval, err, shown in ((-514, 1, "-ERESTARTNOHAND"), (3, 0, "3")):
        out = cap(3, (head + struct.pack("<qB", rval, err)).ljust(88, b"\0"))
        assert text(rec("ptrace", (0x420E, 9, 88, U), 33, (out,))).endswith(
            f"stack_pointer=0x7ff0, exit={{rval={shown}, is_error={err}}}}}) = 33")
    seccomp = cap(3, (struct.pack("<B3xIQQ", 3, 0xC000003E, 0, 0)
                      + struct.pack("<7QI", 0, 1, 2, 3, 4, 5, 6, 7)).ljust(88, b"\0"))
    assert text(rec("ptrace", (0x420E, 9, 88, U), 84, (seccomp,))) == (
        "ptrace(PTRACE_GET_SYSCALL_INFO, 9, 88, {op=PTRACE_SYSCALL_INFO_SECCOMP, "
        "arch=AUDIT_ARCH_X86_64, instruction_pointer=0, stack_pointer=0, seccomp={nr=__NR_read, "
        "args=[0x1, 0x2, 0x3, 0x4, 0x5, 0x6], ret_data=7}}) = 84")
    # an exit reply cut before is_error: rval alone
    out = cap(3, (head + struct.pack("<qB", -2, 1)).ljust(88, b"\0"))
    assert text(rec("ptrace", (0x420E, 9, 32, U), 33, (out,))).endswith(
        "exit={rval=-2}}) = 33")


def test_fcntl_commands_and_results() -> None:
    lock = struct.pack("<hh4xqqi4x", 1, 0, 10, 20, 0)
    assert text(rec("fcntl", (3, 6, U), 0, (cap(2, lock),))) == \
        "fcntl(3, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=10, l_len=20}) = 0"
    got = struct.pack("<hh4xqqi4x", 2, 0, 0, 0, 99)
    assert text(rec("fcntl", (3, 5, U), 0, (cap(2, lock), cap(2, got)))) == \
        "fcntl(3, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=0, " \
        "l_pid=99}) = 0"
    assert text(rec("fcntl", (3, 11), 10)) == "fcntl(3, F_GETSIG) = 10 (SIGUSR1)"
    assert text(rec("fcntl", (3, 1025), 2)) == "fcntl(3, F_GETLEASE) = 0x2 (F_UNLCK)"
    assert text(rec("fcntl", (3, 1), 1)) == "fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)"
    assert text(rec("fcntl", (3, 99, 5), -22)) == \
        "fcntl(3, 0x63 /* F_??? */, 0x5) = -1 EINVAL (Invalid argument)"


def test_argument_counts_follow_the_operation() -> None:
    assert text(rec("mremap", (U, 4096, 8192, 1, U)), ) == \
        "mremap(0x560000001000, 4096, 8192, MREMAP_MAYMOVE) = 0"
    assert text(rec("mremap", (U, 4096, 8192, 3, U))) == \
        "mremap(0x560000001000, 4096, 8192, MREMAP_MAYMOVE|MREMAP_FIXED, 0x560000001000) = 0"
    assert text(rec("membarrier", (0, 0, 5), 0x3)) == \
        "membarrier(MEMBARRIER_CMD_QUERY, 0) = 0x3 " \
        "(MEMBARRIER_CMD_GLOBAL|MEMBARRIER_CMD_GLOBAL_EXPEDITED)"
    assert text(rec("ptrace", (0, 5, 6, 7))) == "ptrace(PTRACE_TRACEME) = 0"
    assert text(rec("ptrace", (7, 5, 0, 10))) == "ptrace(PTRACE_CONT, 5, NULL, SIGUSR1) = 0"
    assert text(rec("syslog", (10, 0, 0), 4096)) == \
        "syslog(10 /* SYSLOG_ACTION_SIZE_BUFFER */) = 4096"
    assert text(rec("personality", (0xFFFFFFFF,), 0x40008)) == \
        "personality(0xffffffff) = 0x40008 (PER_LINUX32|ADDR_NO_RANDOMIZE)"
    # a domain without a name (strace 6.1's personality test)
    assert text(rec("personality", (0x700001F,), 0x1F)) == (
        "personality(0x1f /* PER_??? */|SHORT_INODE|WHOLE_SECONDS|STICKY_TIMEOUTS) = "
        "0x1f (0x1f /* PER_??? */)")
    assert text(rec("setns", (5, 0x40000000))) == "setns(5, CLONE_NEWNET) = 0"
    assert text(rec("unshare", (0x20000 | 1,))) == "unshare(CLONE_NEWNS|0x1) = 0"


def test_clone3_struct() -> None:
    flags = 0x100 | 0x100000 | 0x80000          # CLONE_VM|CLONE_PARENT_SETTID|CLONE_SETTLS
    args = struct.pack("<11Q", flags, 0, 0, U, 0, U, 0x1000, U + 8, 0, 0, 0)
    assert text(rec("clone3", (U, 88), 42, (cap(0, args),))) == \
        "clone3({flags=CLONE_VM|CLONE_SETTLS|CLONE_PARENT_SETTID, parent_tid=0x560000001000, " \
        "exit_signal=0, stack=0x560000001000, stack_size=0x1000, tls=0x560000001008} => " \
        "{parent_tid=[42]}, 88) = 42"
    assert text(rec("clone3", (U, 88), -22)) == \
        "clone3(0x560000001000, 88) = -1 EINVAL (Invalid argument)"


def test_getdents64_count_from_the_kernel() -> None:
    count = cap(1, struct.pack("<I", 139), CAP_COUNT)
    assert text(rec("getdents64", (3, U, 32768), 4416, (count,))) == \
        "getdents64(3, 0x560000001000 /* 139 entries */, 32768) = 4416"
    cut = cap(1, struct.pack("<I", 4096), CAP_COUNT, CAPF_TRUNC)      # a walk cut short
    assert text(rec("getdents64", (3, U, 1 << 20), 200000, (cut,))) == \
        "getdents64(3, 0x560000001000, 1048576) = 200000"


def test_sun_path() -> None:
    fam = struct.pack("<H", 1)
    assert format_sockaddr(fam + b"A" * 150) == \
        '{sa_family=AF_UNIX, sun_path="' + "A" * 108 + '"}'
    assert format_sockaddr(fam + b"\0ab\0\x01cd\0") == \
        '{sa_family=AF_UNIX, sun_path=@"ab\\0\\1cd\\0"}'


def test_nanosleep_time_left_only_when_a_signal_cut_it() -> None:
    ts, rem = cap(0, struct.pack("<qq", 1, 0)), cap(1, struct.pack("<qq", 0, 5))
    assert text(rec("nanosleep", (U, U + 16), -516, (ts, rem))) == \
        "nanosleep({tv_sec=1, tv_nsec=0}, {tv_sec=0, tv_nsec=5}) = ? ERESTART_RESTARTBLOCK " \
        "(Interrupted by signal)"
    assert text(rec("nanosleep", (U, U + 16), 0, (ts, rem))) == \
        "nanosleep({tv_sec=1, tv_nsec=0}, 0x560000001010) = 0"


def test_perf_labels_follow_the_operation() -> None:
    """The perf format names each value by its own argument: FUTEX_LOCK_PI's timeout is
    ``utime``, not ``val``."""
    assert arg_positions("futex", (U, 6)) == (0, 1, 3)
    assert arg_positions("futex", (U, 0)) is None
    d = dec()
    ev = rec("futex", (U, 6, 0, 0))
    ev = msgspec.structs.replace(ev, decoded=d.decode(ev))
    fmt = PerfFormatter(io.StringIO(), syscall_name=lambda nr: X86.name(nr) or "?",
                        arg_names=lambda n: ["uaddr", "op", "val", "utime", "uaddr2", "val3"])
    line = fmt.format_syscall(ev)
    assert "futex(uaddr: 0x560000001000, op: FUTEX_LOCK_PI, utime: NULL)" in line


@pytest.mark.parametrize(("flags", "want"), [
    (0, "0"), (0x1, "MFD_CLOEXEC"), (0x7, "MFD_CLOEXEC|MFD_ALLOW_SEALING|MFD_HUGETLB"),
    (0x8, "0x8 /* MFD_??? */"), (0x21, "MFD_CLOEXEC|0x20"),
    (0x4 | 21 << 26, "MFD_HUGETLB|21<<MFD_HUGE_SHIFT"), (21 << 26, "21<<MFD_HUGE_SHIFT"),
    (0x8 | 21 << 26, "0x8 /* MFD_??? */|21<<MFD_HUGE_SHIFT"),
    (0x1_0000_0001, "MFD_CLOEXEC"),
])
def test_memfd_create_flags(flags: int, want: str) -> None:
    """strace 6.1's memfd_create: named bits, the rest in hex, the huge page size apart."""
    assert text(rec("memfd_create", (0, flags))) == f"memfd_create(NULL, {want}) = 0"
    assert text(rec("memfd_create", (0, flags), table=SyscallTable("arm64")),
                dec("arm64")) == (
        f"memfd_create(NULL, {want}) = 0")


QCMD_GETQUOTA_USR, QCMD_GETINFO_GRP = 0x80000700, 0x80000501
QCMD_QUOTAON_PRJ, QCMD_GETFMT_USR = 0x80000202, 0x80000400


def test_quotactl_arguments_follow_the_command() -> None:
    """strace 6.1 (tests/e2e/test_strace_sweep_fs.py): QCMD(command, type), the device,
    then what the command uses."""
    dev = cap(1, b"/dev/x", CAP_STR)
    assert text(rec("quotactl", (QCMD_GETQUOTA_USR, U, 1000, U + 8), -2, (dev,))) == (
        'quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/x", 1000, 0x560000001008) = '
        "-1 ENOENT (No such file or directory)")
    dq = struct.pack("<8QI44x", 1, 2, 3, 4, 5, 6, 7, 8, 9)        # read as 112 bytes
    assert text(rec("quotactl", (QCMD_GETQUOTA_USR, U, 0xFFFFFFFF, U + 8), 0,
                    (dev, cap(3, dq)))) == (
        'quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/x", -1, {dqb_bhardlimit=1, '
        "dqb_bsoftlimit=2, dqb_curspace=3, dqb_ihardlimit=4, dqb_isoftlimit=5, "
        "dqb_curinodes=6, ...}) = 0")
    assert text(rec("quotactl", (QCMD_GETINFO_GRP, U, 0, U + 8), -2, (dev,))) == (
        'quotactl(QCMD(Q_GETINFO, GRPQUOTA), "/dev/x", 0x560000001008) = '
        "-1 ENOENT (No such file or directory)")
    assert text(rec("quotactl", (QCMD_QUOTAON_PRJ, U, 2, U + 8), -2,
                    (dev, cap(3, b"aquota.user", CAP_STR)))) == (
        'quotactl(QCMD(Q_QUOTAON, PRJQUOTA), "/dev/x", QFMT_VFS_V0, "aquota.user") = '
        "-1 ENOENT (No such file or directory)")
    assert text(rec("quotactl", (QCMD_GETFMT_USR, U, 0, U + 8), 0,
                    (dev, cap(3, struct.pack("<I", 4) + bytes(108))))) == (
        'quotactl(QCMD(Q_GETFMT, USRQUOTA), "/dev/x", [QFMT_VFS_V1]) = 0')
    assert text(rec("quotactl", (0xDEAD, 0, 0, 0), -22)) == (
        "quotactl(QCMD(0xde /* Q_??? */, 0xad /* ???QUOTA */), NULL, 0, NULL) = "
        "-1 EINVAL (Invalid argument)")
    assert text(rec("quotactl", (0x80000100, U, 0, 0), 0, (dev,))) == (
        'quotactl(QCMD(Q_SYNC, USRQUOTA), "/dev/x") = 0')
    # structs the call reads, printed whatever the result
    info = struct.pack("<QQII", 7, 8, 0x101, 7) + bytes(88)
    assert text(rec("quotactl", (0x80000600, U, 0, U + 8), -2, (dev, cap(3, info)))) == (
        'quotactl(QCMD(Q_SETINFO, USRQUOTA), "/dev/x", {dqi_bgrace=7, dqi_igrace=8, '
        "dqi_flags=DQF_ROOT_SQUASH|0x100, dqi_valid=IIF_BGRACE|IIF_IGRACE|IIF_FLAGS}) = "
        "-1 ENOENT (No such file or directory)")
    flags = struct.pack("<I", 0x1021) + bytes(108)
    assert text(rec("quotactl", (0x580100, U, 0, U + 8), -2, (dev, cap(3, flags)))) == (
        'quotactl(QCMD(Q_XQUOTAON, USRQUOTA), "/dev/x", '
        "[FS_QUOTA_UDQ_ACCT|FS_QUOTA_PDQ_ENFD|0x1000]) = -1 ENOENT (No such file or directory)")
    xd = struct.pack("<bBHI6Q", 1, 1, 0, 5, 0, 0, 0, 0, 0, 0) + bytes(56)
    assert text(rec("quotactl", (0x580400, U, 5, U + 8), -2, (dev, cap(3, xd)))) == (
        'quotactl(QCMD(Q_XSETQLIM, USRQUOTA), "/dev/x", 5, {d_version=1, '
        "d_flags=FS_USER_QUOTA, d_fieldmask=0, d_id=5, d_blk_hardlimit=0, "
        "d_blk_softlimit=0, d_ino_hardlimit=0, d_ino_softlimit=0, d_bcount=0, d_icount=0, "
        "...}) = -1 ENOENT (No such file or directory)")
    assert arg_positions("quotactl", (QCMD_GETINFO_GRP, U, 0, U)) == (0, 1, 3)
    assert arg_positions("quotactl", (QCMD_GETQUOTA_USR, U, 0, U)) is None


def _deref(arg: int, ptr: int, data: bytes, flags: int = 0, off: int = 0) -> Capture:
    """A TK_SPEC_PTR_AT capture (programs/syscalls.h struct tk_deref_head, then data)."""
    return cap(arg, struct.pack("<QII", ptr, off, len(data)) + data, CAP_BUF,
               CAPF_DEREF | flags)


def test_ptrace_regsets_behind_the_iovec() -> None:
    """GET/SETREGSET's registers (issue 12), as strace 6.1 printed them
    (tests/e2e/test_strace_sweep_tty.py): read behind the iovec (CAPF_DEREF)."""
    regs = struct.pack("<27Q", *range(27))
    R = 0x7FFC_0000_2000
    iov = struct.pack("<QQ", R, 216)
    get = (cap(3, iov), _deref(3, R, regs))                 # the iovec, then its registers
    got = text(rec("ptrace", (0x4204, 9, 1, U), 0, get))
    assert got.startswith("ptrace(PTRACE_GETREGSET, 9, NT_PRSTATUS, {iov_base={r15=0, r14=0x1, ")
    assert got.endswith(", fs=0x19, gs=0x1a}, iov_len=216}) = 0")
    # a failed GET: the address; another note: the address; a pointer other than iov_base
    assert "{iov_base=0x7ffc00002000, iov_len=216}) = -1 ESRCH" in text(
        rec("ptrace", (0x4204, 9, 1, U), -3, get))
    assert "0x202 /* NT_??? */" not in text(rec("ptrace", (0x4204, 9, 0x202, U), 0, get))
    assert "NT_X86_XSTATE, {iov_base=0x7ffc00002000, iov_len=216}" in text(
        rec("ptrace", (0x4204, 9, 0x202, U), 0, get))
    assert "{iov_base=0x7ffc00002000, " in text(
        rec("ptrace", (0x4204, 9, 1, U), 0, (cap(3, iov), _deref(3, R + 8, regs))))
    # unreadable registers, a size not a multiple of 8, 8 bytes, more than the set
    assert "{iov_base=0x7ffc00002000, " in text(
        rec("ptrace", (0x4204, 9, 1, U), 0, (cap(3, iov), _deref(3, R, b"", CAPF_ELEM_FAULT))))
    assert "{iov_base=0x7ffc00002000, iov_len=100}" in text(rec("ptrace", (0x4205, 9, 1, U), -22, (
        cap(3, struct.pack("<QQ", R, 100)), _deref(3, R, regs[:100]))))
    assert "{iov_base={r15=0}, iov_len=8}" in text(rec("ptrace", (0x4205, 9, 1, U), 0, (
        cap(3, struct.pack("<QQ", R, 8)), _deref(3, R, regs[:8]))))
    # SET: the registers as read at entry, iov_len as the call left it
    got = text(rec("ptrace", (0x4205, 9, 1, U), 0, (
        cap(3, struct.pack("<QQ", R, 224)), _deref(3, R, regs + bytes(8)),
        cap(3, struct.pack("<QQ", R, 216)))))
    assert got.endswith(", gs=0x1a, ...}, iov_len=224 => 216}) = 0")
    fp = bytes(range(256)) * 2
    got = text(rec("ptrace", (0x4204, 9, 2, U), 0, (cap(3, struct.pack("<QQ", R, 200)),
                                                     _deref(3, R, fp[:200]))))
    assert got.startswith("ptrace(PTRACE_GETREGSET, 9, NT_FPREGSET, {iov_base={cwd=0x100, "
                          "swd=0x302, ftw=0x504, fop=0x706, rip=0xf0e0d0c0b0a0908, ")
    assert got.endswith("]}, iov_len=200}) = 0") and "padding" not in got


@settings(deadline=None, max_examples=300)
@given(note=st.sampled_from(["NT_PRSTATUS", "NT_FPREGSET", None]),
       size=st.integers(0, 1 << 40), data=st.binary(max_size=600))
def test_hostile_regsets_never_raise(note: str | None, size: int, data: bytes) -> None:
    got = format_regset(note, size, data)
    assert got is None or got.startswith("{") and got.endswith("}")


@settings(deadline=None, max_examples=300)
@given(caps=st.lists(st.builds(
    Capture, arg=st.sampled_from([1, 3]), kind=st.sampled_from([CAP_BUF, CAP_STRUCT, CAP_STR]),
    flags=st.integers(0, 0x3F), data=st.binary(max_size=300)), max_size=6),
    ret=st.sampled_from([0, -14, 1]), cmd=st.integers(0, 40))
def test_hostile_deref_captures_never_raise(caps: list[Capture], ret: int, cmd: int) -> None:
    """ptrace and bpf records whose captures are garbage (DEREF heads included)."""
    for name, args in (("ptrace", (0x4204, 9, 1, U)), ("ptrace", (0x4205, 9, 2, U)),
                       ("bpf", (cmd, U, 144)), ("bpf", (5, U, 20))):
        assert text(rec(name, args, ret, tuple(caps)))
