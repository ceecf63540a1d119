"""A sweep over terminal and file ioctls, ptrace requests and prctl options, against
strace 6.1 on ONE run.

tests/workloads/sweep_tty.c makes terminal ioctls on a pty pair of its own (and, in a
child with a session of its own, the controlling-terminal ones), the same requests on a
scratch file and on fd -1, file ioctls on scratch files and /dev/urandom, ptrace requests
on a child it seizes itself and on a pid that does not exist, and prctl/arch_prctl
options that read or set its own state: each with NULL and bad pointers, unknown
constants and garbage in the high half of an int. tracekit traces
``strace -f -o FILE sweep_tty``, so both see the same calls: every line of each of the
program's processes must be equal; so under ``-yy`` (the pty's ``</dev/pts/0<char 136:0>>``,
known when the pty is gone by the time its calls are decoded; FICLONERANGE's and
FIDEDUPERANGE's fds), but for the fd TIOCGPTPEER returns (which pty it is, tracekit does
not know: its close prints without decoration).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_tty_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_tty"), tmp_path)
    assert len(s_procs) == 2                        # the program and its ctty child
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    termios = ("{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
               "c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|"
               "ECHOCTL|ECHOKE, ...}")
    for want in (
            f"ioctl(5, TCGETS, {termios}) = 0", f"ioctl(5, SNDCTL_TMR_START or TCSETS, {termios})",
            f"ioctl(5, TCGETA, {termios}) = 0", f"ioctl(5, TCSETAF, {termios}) = 0",
            f"ioctl(-1, SNDCTL_TMR_START or TCSETS, {termios}) = -1 EBADF",
            "ioctl(5, SNDCTL_TMR_START or TCSETS, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, "
            "c_cflag=B0|CS5|, c_lflag=, ...}) = 0",
            "{c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|0x10000, c_cflag=B38400|CS8|0x20000000, "
            "c_lflag=, ...}) = 0", f"ioctl(5, TCGETS2, {termios}) = 0",
            f"ioctl(5, TCSETSW2, {termios}) = 0", "ioctl(5, TIOCGLCKTRMIOS, {c_iflag=, ",
            "ioctl(5, TIOCGSOFTCAR, [0]) = 0", "ioctl(5, TIOCGDEV, [", 'ioctl(5, TIOCSTI, "x") = ',
            "ioctl(3, FS_IOC_FSSETXATTR, {fsx_xflags=0, fsx_extsize=0, fsx_projid=0, "
            "fsx_cowextsize=0})", "ioctl(3, FS_IOC_GETFSLABEL, ", "ioctl(-1, FIFREEZE) = -1 EBADF",
            "ioctl(-1, FITRIM, NULL) = -1 EBADF",
            "ioctl(5, TCGETA, 0x1) = -1 EFAULT", "ioctl(3, TCGETA, 0x",
            "ioctl(5, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0",
            "ioctl(5, TCFLSH, TCIOFLUSH) = 0", "ioctl(5, TCFLSH, 0x7 /* TC??? */) = -1 EINVAL",
            "ioctl(5, TCXONC, TCION) = 0", "ioctl(5, TCXONC, 0x9 /* TC??? */) = -1 EINVAL",
            "ioctl(5, TCFLSH, 0xdeadbeef00000000 /* TC??? */) = -1 EINVAL",
            "ioctl(5, TCXONC, 0xdeadbeef00000001 /* TC??? */) = -1 EINVAL",
            "ioctl(5, TCSBRK, 1) = 0", "ioctl(4, TIOCGPTN, [",
            "ioctl(4, TIOCSPTLCK, NULL) = -1 EFAULT", "ioctl(4, TIOCGPTPEER, 0x80102) = ",
            "ioctl(4, TIOCGPTPEER, 0xdeadbeef00000102) = ",
            "ioctl(5, TIOCGEXCL, [1]) = 0", "ioctl(5, TIOCGEXCL, [0]) = 0",
            "ioctl(4, TIOCPKT, [1]) = 0", "ioctl(5, TIOCGETD, [0]) = 0",
            "ioctl(5, TIOCMSET, [TIOCM_DTR|TIOCM_RTS]) = -1 ENOTTY",
            "ioctl(5, TIOCMBIC, [0x10000 /* TIOCM_??? */]) = -1 ENOTTY",
            "ioctl(5, TIOCMSET, [TIOCM_DTR|TIOCM_RTS|0x10000]) = -1 ENOTTY",
            "{fsx_xflags=0x40000000 /* FS_XFLAG_??? */, fsx_extsize=0, fsx_projid=0, ",
            "{fsx_xflags=FS_XFLAG_APPEND|0x40000000, ",
            "ioctl(5, TIOCMGET, 0x", "ioctl(5, TIOCGSERIAL, 0) = -1 ENOTTY",
            "ioctl(5, TIOCSSERIAL) = -1 ENOTTY", "ioctl(5, TIOCGISO7816, 0x",
            "ioctl(5, TIOCNOTTY) = -1 ENOTTY", "ioctl(5, _IOC(_IOC_NONE, 0x54, 0x7e, 0), 0)",
            "ioctl(6, TIOCSCTTY, 0) = 0", "ioctl(6, TIOCSPGRP, [1073741823]) = -1 ESRCH",
            "ioctl(6, TIOCSPGRP, 0x1) = -1 EFAULT", "ioctl(6, TIOCNOTTY) = 0",
            "ioctl(-1, TCFLSH, TCIFLUSH) = -1 EBADF",
            "ioctl(3, FIOASYNC, [1]) = -1 ENOTTY", "ioctl(3, FIOQSIZE, 0x",
            "ioctl(4, BTRFS_IOC_CLONE or FICLONE, -1) = -1 EBADF",
            "ioctl(4, BTRFS_IOC_CLONE_RANGE or FICLONERANGE, {src_fd=3, src_offset=0, "
            "src_length=4096, dest_offset=0}) = -1 EOPNOTSUPP",
            "ioctl(3, BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE, {src_offset=0, src_length=4, "
            "dest_count=1, info=[{dest_fd=4, dest_offset=0}]}) = -1 EOPNOTSUPP",
            "ioctl(3, FS_IOC_FIEMAP, {fm_start=0, fm_length=18446744073709551615, "
            "fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=2} => {fm_flags=FIEMAP_FLAG_SYNC, "
            "fm_mapped_extents=1, ...}) = 0", "ioctl(3, FS_IOC_FIEMAP, NULL) = -1 EFAULT",
            "fm_flags=0x8 /* FIEMAP_FLAG_??? */, fm_extent_count=2}) = -1 EBADR",
            "fm_extent_count=2} => {fm_flags=0, fm_mapped_extents=0, ...}) = 0",
            "dest_count=2, info=[{dest_fd=4, dest_offset=0}, {dest_fd=4, dest_offset=8}]}) = -1",
            "ioctl(3, FS_IOC_FSGETXATTR, {fsx_xflags=0, fsx_extsize=0, fsx_nextents=0, "
            "fsx_projid=0, fsx_cowextsize=0}) = 0", "ioctl(5, RNDGETENTCNT, [",
            "ioctl(3, _IOC(_IOC_READ|_IOC_WRITE, 0x99, 0x1, 0x8), 0x",
            "ioctl(3, _IOC(_IOC_READ, 0x99, 0x5, 0x3fff), 0) = -1 ENOTTY",
            "clone(child_stack=NULL, flags=CLONE_UNTRACED|SIGCHLD) = ",
            ", NULL, PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACEEXEC|PTRACE_O_EXITKILL) = 0",
            ", NULL, 0x80000000 /* PTRACE_O_??? */) = -1 EINVAL", ", [0x1234]) = 0",
            ", 8*R15, [", ", 8*RIP, [0x", ", 8*SS+8, [0x", ", 8*SS+48, [NULL]) = 0",
            ", offsetof(struct user, u_fpvalid), [NULL]) = 0", ", 0x1001, 0x",
            ", {r15=", ", gs=0}) = 0", ", NT_PRSTATUS, NULL) = -1 EFAULT",
            ", 0x999 /* NT_??? */, {iov_base=0x", ", iov_len=216}) = -1 EINVAL",
            ", NULL, [0]) = 0", ", NULL, {si_signo=SIGTRAP, si_code=0x8005, si_addr=0x",
            ", 8*RAX, ", ", {cwd=0x37f, swd=0, ftw=0, fop=0, rip=0, ",
            "], padding=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]})",
            ", 8, []) = 0", ", 4, 0x", ", NULL, {si_signo=SIGTRAP, si_code=0x8005, si_addr=0x",
            ", {off=0, flags=0, nr=2}, []) = 0",
            ", {off=0, flags=PTRACE_PEEKSIGINFO_SHARED, nr=2}, [{si_signo=SIGUSR1, "
            "si_code=SI_USER, si_pid=", "ptrace(PTRACE_SETFPREGS, ",
            ", 88, {op=PTRACE_SYSCALL_INFO_NONE, arch=AUDIT_ARCH_X86_64, instruction_pointer=0x",
            # which stop the later GET_SYSCALL_INFO calls see (syscall entry/exit or the
            # interrupt's) varies with timing; tests/decode pins each form
            ", 0, NULL) = -1 EINVAL", ", 88, {op=PTRACE_SYSCALL_INFO_",
            "ptrace(0x4299 /* PTRACE_??? */, ", ", NULL, 0) = 0",
            "ptrace(PTRACE_CONT, 1073741823, NULL, SIGCONT)",
            # the registers behind GET/SETREGSET's iovec (issue 12)
            ", NT_PRSTATUS, {iov_base={r15=0x", ", gs=0}, iov_len=216}) = 0",
            ", rcx=0x", "}, iov_len=96}) = 0", "}, iov_len=8}) = 0",
            ", iov_len=100}) = -1 EINVAL", ", NT_PRSTATUS, {iov_base=0x", ", iov_len=0}) = 0",
            ", gs=0}, iov_len=224 => 216}) = 0", ", gs=0, ...}, iov_len=224 => 216}) = 0",
            ", NT_PRSTATUS, {iov_base=0x1, iov_len=216}) = -1 EFAULT",
            "ptrace(PTRACE_GETREGSET, 1073741823, NT_PRSTATUS, {iov_base=0x",
            ", NT_FPREGSET, {iov_base={cwd=0x37f, swd=0, ftw=0, fop=0, rip=0, rdp=0, "
            "mxcsr=0x1f80, mxcr_mask=", ", padding=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
            "0, 0, 0, 0, 0, 0, 0, 0, 0]}, iov_len=512}) = 0",
            "}, iov_len=200}) = 0", ", NT_X86_XSTATE, {iov_base=0x", ", iov_len=4096 => ",
            ", NT_PRSTATUS, 0x1) = -1 EFAULT",
            "ptrace(PTRACE_DETACH, 1073741823, NULL, SIGSTOP) = -1 ESRCH",
            "ptrace(PTRACE_LISTEN, 1073741823) = -1 ESRCH",
            "ptrace(0xdeadbeef00000007 /* PTRACE_??? */, 1073741823, NULL, NULL) = -1 ESRCH",
            'prctl(PR_GET_NAME, "sweep_tty") = 0', 'prctl(PR_SET_NAME, "sweep-tty") = 0',
            'prctl(PR_SET_NAME, "Reference Handl"...) = 0',
            'prctl(PR_SET_NAME, "Reference Hand") = 0',
            "prctl(PR_SET_NAME, NULL) = -1 EFAULT", "prctl(PR_GET_PDEATHSIG, [SIGTERM]) = 0",
            "prctl(PR_SET_PDEATHSIG, 99) = -1 EINVAL", "prctl(PR_GET_PDEATHSIG, 0x1) = -1 EFAULT",
            "prctl(PR_GET_CHILD_SUBREAPER, [0]) = 0",     # at the end of a mapping
            "prctl(PR_GET_TIMERSLACK) = ", "prctl(PR_GET_SECUREBITS) = 0",
            "prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) = 0", "prctl(PR_GET_TID_ADDRESS, [0x",
            "prctl(PR_GET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS) = 0x",
            "prctl(PR_GET_SPECULATION_CTRL, 0x63 /* PR_SPEC_??? */) = -1 ENODEV",
            "prctl(PR_CAPBSET_READ, 0x63 /* CAP_??? */) = -1 EINVAL",
            "prctl(PR_CAP_AMBIENT, 0x63 /* PR_CAP_AMBIENT_??? */, 0, 0, 0) = -1 EINVAL",
            "prctl(PR_GET_IO_FLUSHER, 0, 0, 0, 0) = ", "prctl(PR_SVE_GET_VL) = -1 EINVAL",
            "prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0) = -1 EINVAL",
            ', 4096, "tk-sweep") = ', ", 4096, NULL) = ", "0x7 /* PR_SET_VMA_??? */",
            "prctl(PR_SET_MM, PR_SET_MM_START_CODE, 0, 0, 0) = -1 ",
            "prctl(PR_SET_MM, 0x63 /* PR_SET_MM_??? */, 0, 0, 0)",
            "prctl(0x7777 /* PR_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EINVAL",
            "prctl(PR_SET_PDEATHSIG, 16045690981097406479) = -1 EINVAL",
            "prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS, PR_SPEC_ENABLE) = -1 ",
            "prctl(PR_SET_SPECULATION_CTRL, 0x63 /* PR_SPEC_??? */, 0x80) = -1 ENODEV",
            "prctl(PR_SET_DUMPABLE, SUID_DUMP_USER) = 0",
            "prctl(PR_SET_DUMPABLE, 0x7 /* SUID_DUMP_??? */) = -1 EINVAL",
            "prctl(PR_SET_TSC, PR_TSC_ENABLE) = 0", "prctl(PR_GET_TSC, [PR_TSC_ENABLE]) = 0",
            "prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) = ",
            "prctl(PR_MCE_KILL, PR_MCE_KILL_CLEAR, 0, 0, 0) = 0",
            "prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_NONE, 0, 0, 0) = -1",
            "prctl(PR_SVE_SET_VL, 0) = -1 EINVAL",
            "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0 /* PIDTYPE_PID */, 0x",
            "prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0) = 0",
            "prctl(PR_MCE_KILL, PR_MCE_KILL_SET, 0x7 /* PR_MCE_KILL_??? */, 0, 0) = -1",
            "prctl(PR_SME_SET_VL, PR_SME_VL_INHERIT|0xea57) = -1 EINVAL",
            "prctl(PR_PAC_RESET_KEYS, PR_PAC_APIAKEY|PR_PAC_APGAKEY, 0x1, 0x2, 0x3) = -1",
            "prctl(PR_PAC_RESET_KEYS, 0x20 /* PR_PAC_??? */, 0, 0, 0) = -1",
            "prctl(PR_PAC_SET_ENABLED_KEYS, PR_PAC_APIAKEY|PR_PAC_APIBKEY, "
            "PR_PAC_APIAKEY|0x20, 0, 0x1) = -1",
            "prctl(PR_PAC_GET_ENABLED_KEYS, 0, 0, 0, 0) = -1",
            "prctl(PR_SET_SECUREBITS, 0x80000000 /* SECBIT_??? */) = -1",
            "prctl(PR_SET_UNALIGN, 0xff00 /* PR_UNALIGN_??? */) = -1",
            "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0x1 /* PIDTYPE_TGID */, NULL) = -1",
            "prctl(PR_SCHED_CORE, 0x9 /* PR_SCHED_CORE_??? */, 0, 0x9 /* PIDTYPE_??? */, NULL)",
            "prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_OFF, 0, 0, NULL) = 0",
            "arch_prctl(ARCH_GET_FS, [0x", "arch_prctl(ARCH_GET_GS, NULL) = -1 EFAULT",
            "arch_prctl(ARCH_GET_XCOMP_SUPP, [0x", " /* XFEATURE_MASK_FPSSE|",
            "arch_prctl(ARCH_GET_XCOMP_SUPP, NULL) = -1 EFAULT",
            "arch_prctl(ARCH_SET_GS, 0) = 0", "arch_prctl(ARCH_GET_CPUID) = 1",
            "arch_prctl(ARCH_SET_CPUID, 0x1) = 0",
            "arch_prctl(ARCH_SET_CPUID, 0xdeadbeef00000001) = 0",
            "arch_prctl(0x3999 /* ARCH_??? */, 0) = -1 EINVAL"):
        assert want in text, want


_PEER: tuple[Gap, ...] = ((re.compile(r"^(close\(6)</dev/pts/\d+<char \d+:\d+>>(\) = 0)$"),
                          re.compile(r"^(close\(6)(\) = 0)$")),)


# TIOCSTI's char strace reads under -e verbose= without ioctl (tracekit: its address)
_STI: tuple[Gap, ...] = ((re.compile(r'^(ioctl\(5, TIOCSTI, )"x"(\) = 0)$'),
                         re.compile(r"^(ioctl\(5, TIOCSTI, )0x[0-9a-f]+(\) = 0)$")),)


@pytest.mark.parametrize("opts", [["-yy"], ["-e", "verbose=none"]], ids=["yy", "verbose=none"])
def test_sweep_tty_under_options(tmp_path: Path, opts: list[str]) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_tty"), tmp_path, opts,
                                 _PEER + _STI)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    if opts != ["-yy"]:             # ptrace's, prctl's, arch_prctl's memory as addresses
        assert re.search(r"ptrace\(PTRACE_GETREGS, \d+, 0x[0-9a-f]+\) = 0", text)
        assert re.search(r"prctl\(PR_GET_PDEATHSIG, 0x[0-9a-f]+\) = 0", text)
        assert re.search(r"arch_prctl\(ARCH_GET_FS, 0x[0-9a-f]+\) = 0", text)
        return
    assert re.search(r"ioctl\(5</dev/pts/\d+<char 13\d:\d+>>, TCGETS, ", text)
    assert re.search(r"FICLONERANGE, \{src_fd=3</.*/f>, ", text)
    assert re.search(r"info=\[\{dest_fd=4</.*/g>, dest_offset=0\}\]", text)
