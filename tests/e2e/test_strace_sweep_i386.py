"""32-bit calls (``int $0x80`` from a 64-bit program) as strace 6.1 prints them, against
strace on ONE run.

tests/workloads/sweep_i386.c makes the common calls of everyday programs through the
i386 ABI (open/openat/creat/access, read/write/readv/writev/pread64/pwrite64, lseek/
_llseek, the stat64 family, statx, statfs64, getdents64, readlink, getcwd, dup/pipe,
fcntl64 with struct flock/flock64, ioctl, mmap2/old mmap/brk, uname and the clocks,
rlimits, sysinfo, rt_sigaction/rt_sigprocmask/sigaltstack, kill/tgkill, the 32-bit id
calls, wait4/waitid, socketcall's sub-calls (socket, bind, connect, listen, accept,
send/recv, sendto/recvfrom, setsockopt/getsockopt, getsockname/getpeername, socketpair,
accept4, shutdown, sendmsg/recvmsg with i386 msghdrs and control messages, sendmmsg/
recvmmsg with i386 mmsghdrs (and recvmmsg_time64); socketcall
itself when its words are unreadable) and the direct socket calls, readv/writev/preadv/
pwritev/preadv2/pwritev2 with i386 iovecs, the old select/_newselect/poll, getrandom,
exit_group) with normal, NULL, bad-pointer and unknown-flag arguments. tracekit traces
``strace -f -o FILE sweep_i386``, so both see the same calls: every line of the program
must be equal.
"""

from __future__ import annotations

import collections
import difflib
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env
from tests.e2e._strace_lines import parse
from tests.e2e.test_strace_ops import (
    Gap,
    build,
    nested_run,
    one_run_both,
    same_procs_one_run,
)
from tracekit.kernel.arch import machine_arch

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed"),
              pytest.mark.skipif(machine_arch() != "x86_64",
                                 reason="int 0x80 from a 64-bit process is x86_64's")]


def test_i386_calls_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_i386", "-no-pie"), tmp_path)
    pid = next(iter(s_procs))                       # the program; then its two children
    for p, s_all in s_procs.items():
        t_all = t_procs.get(p, [])
        assert len(t_all) == len(s_all), "\n".join(
            difflib.unified_diff(s_all, t_all, "strace", "tracekit", lineterm="", n=1))
        assert t_all == s_all, "\n".join(
            difflib.unified_diff(s_all, t_all, "strace", "tracekit", lineterm="", n=1))
    # strace 6.1 writes "[ Process PID=N runs in 32 bit mode. ]" to its standard error
    # only: nothing of it in a trace written with -o FILE
    assert "bit mode" not in (tmp_path / "s.txt").read_text()
    assert "bit mode" not in (tmp_path / "t.txt").read_text()
    text = "\n".join(s_procs[pid])
    for want in WANT:
        assert want in text, want


WANT = (
    'open("f", O_RDWR|O_CREAT, 0600) = 3',
    "_llseek(3, 2, [2], SEEK_SET) = 0", "_llseek(3, 0, 0x1, SEEK_SET) = -1 EFAULT",
    "_llseek(3, 4294967296, [4294967308], SEEK_END) = 0",
    'pwrite64(3, "PQ", 2, 4294967296) = -1 EFBIG', 'pwrite64(3, "PQ", 2, -1) = -1 EINVAL',
    'pread64(3, "", 8, 4294967296) = 0',
    "fstat64(3, {st_mode=S_IFREG|0600, st_size=13, ...}) = 0",
    'lstat64("d", {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0',
    'fstatat64(AT_FDCWD, "", {st_mode=S_IFDIR|0755, st_size=4096, ...}, AT_EMPTY_PATH) = 0',
    'fstatat64(AT_FDCWD, "f", 0x', ", 0x4 /* AT_??? */) = -1 EINVAL",
    'statx(AT_FDCWD, "f", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, {stx_mask=',
    'stat("f", {st_mode=S_IFREG|0600, st_size=13, ...}) = 0',
    'statfs(".", {f_type=', 'statfs64(".", 84, {f_type=', "fstatfs64(3, 84, {f_type=",
    'statfs64(".", 88, 0x', "fstatfs64(3, 84, 0x1) = -1 EFAULT",
    'chown32("f", -1, -1) = 0', "chown32(NULL, -1, -1) = -1 EFAULT",
    " /* 4 entries */, 4096) = 96", "getdents64(9, NULL /* 0 entries */, 0) = 0",
    "pipe([", "pipe2([", "O_NONBLOCK|O_CLOEXEC) = 0",
    "fcntl64(3, F_SETLK64, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=10, l_len=20}) = 0",
    "fcntl64(3, F_GETLK64, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=10, l_len=20, "
    "l_pid=0}) = 0",
    "fcntl64(3, F_SETLK64, 0x1) = -1 EFAULT",
    "fcntl64(3, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_CUR, l_start=5, l_len=6}) = 0",
    "ioctl(3, TCGETS, 0x", "ioctl(3, FIONREAD, [0]) = 0", "mmap2(NULL, 4096, PROT_READ|PROT_WRITE, "
    "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x",
    "mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x",
    'uname({sysname="Linux", ', "gettimeofday({tv_sec=",
    "clock_gettime(CLOCK_MONOTONIC, {tv_sec=", "clock_gettime64(CLOCK_MONOTONIC, {tv_sec=",
    "clock_gettime64(CLOCK_REALTIME, NULL) = -1 EFAULT",
    "nanosleep({tv_sec=0, tv_nsec=2000000000}, NULL) = -1 EINVAL",
    "clock_nanosleep(CLOCK_MONOTONIC, 0x10 /* TIMER_??? */, {tv_sec=0, tv_nsec=1000}, NULL)",
    "clock_nanosleep_time64(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=1000}, NULL) = 0",
    "time([", " */]) = ", "time(NULL) = ",
    "times({tms_utime=", "times(NULL) = ",
    "getrlimit(RLIMIT_NOFILE, {rlim_cur=", "ugetrlimit(RLIMIT_STACK, {rlim_cur=",
    "ugetrlimit(RLIMIT_NOFILE, 0x1) = -1 EFAULT", "prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=",
    "sysinfo({uptime=",
    "rt_sigaction(SIGUSR1, {sa_handler=SIG_IGN, sa_mask=[INT RT_1], "
    "sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x401000}, {sa_handler=SIG_DFL, "
    "sa_mask=[], sa_flags=0}, 8) = 0",
    "rt_sigaction(SIGUSR1, NULL, 0x", ", 16) = -1 EINVAL",
    "rt_sigprocmask(SIG_BLOCK, [USR1], [], 8) = 0",
    "rt_sigprocmask(0x7 /* SIG_??? */, [USR1], NULL, 8) = -1 EINVAL",
    "sigaltstack(NULL, {ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}) = 0",
    "sigaltstack({ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}, NULL) = 0",
    "getuid32() = ", "getgroups32(0, NULL) = ", "getgroups32(64, [",
    "[{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, {ru_utime={tv_sec=",
    ", {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=",
    "_newselect(-1, NULL, NULL, NULL, NULL) = -1 EINVAL",
    "_newselect(0, NULL, NULL, NULL, {tv_sec=0, tv_usec=",
    "poll([{fd=", "getrandom(NULL, 0, GRND_NONBLOCK) = 0",
    "getrandom(0x", ", 8, 0x10 /* GRND_??? */) = -1 EINVAL",
    'bind(3, {sa_family=AF_UNIX, sun_path="dgram"}, 8) = 0',
    'recvfrom(3, "ping", 4096, MSG_DONTWAIT, {sa_family=AF_UNIX, sun_path="dgram"}, '
    "[4096 => 8]) = 4",
    'getsockname(3, {sa_family=AF_UNIX, sun_path="dgram"}, [64 => 8]) = 0',
    "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0",
    "getsockopt(3, SOL_SOCKET, SO_SNDBUF, [", "], [4]) = 0",
    "shutdown(3, SHUT_RDWR) = ", "socketpair(AF_UNIX, SOCK_STREAM, 0, [",
    # socketcall's sub-calls, socketcall itself when its words are unreadable
    'bind(3, {sa_family=AF_UNIX, sun_path="sock"}, 7) = 0', "bind(3, 0x1, 7) = -1 EFAULT",
    "listen(3, 5) = 0", "accept(3, NULL, NULL) = ", ', "hi", 2, 0) = 2',
    ', "hi", 10, MSG_DONTWAIT) = 2', ', 10, MSG_DONTWAIT) = -1 EAGAIN',
    ', "yo", 2, 0, NULL, 0) = 2', ', "yo", 10, 0, 0x', "[128 => 0]) = 2",
    "getsockopt(3, SOL_SOCKET, SO_SNDBUF, [", "getsockname(3, {sa_family=AF_UNIX, "
    'sun_path="sock"}, [128 => 7]) = 0', ", [7]) = -1 ENOTCONN",
    "NULL, NULL, SOCK_NONBLOCK) = -1 EINVAL", "0x7 /* SHUT_??? */) = -1 EINVAL",
    "socketcall(SYS_SOCKET, NULL) = -1 EFAULT", "socketcall(SYS_SOCKET, 0x1) = -1 EFAULT",
    "socketcall(99, 0x", "socketcall(0, 0x", "socketcall(-1, 0x",
    # i386 msghdrs (compat_msghdr, compat_cmsghdr), through socketcall and directly
    '{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="ab", iov_len=2}, {iov_base="cde", '
    "iov_len=3}], msg_iovlen=2, msg_control=[{cmsg_len=16, cmsg_level=SOL_SOCKET, "
    "cmsg_type=SCM_RIGHTS, cmsg_data=[", "msg_namelen=128 => 0, msg_iov=[{iov_base=\"abcd\", "
    'iov_len=4}, {iov_base="e", iov_len=16}], msg_iovlen=2, msg_control=[{cmsg_len=16, ',
    "{msg_namelen=0}, MSG_DONTWAIT) = -1 EAGAIN", ", 0x1, 0) = -1 EFAULT",
    'msg_iov=[{iov_base="fgh", iov_len=3}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, '
    "MSG_NOSIGNAL) = 3", "iov_len=1000000}",
    # i386 mmsghdrs (compat_mmsghdr), recvmmsg's old_timespec32, recvmmsg_time64's
    'sendmmsg(', ', [{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="ab", '
    "iov_len=2}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, msg_len=2}, {msg_hdr=",
    'msg_iov=[{iov_base="cde", iov_len=16}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, '
    "msg_len=3}], 2, 0, NULL) = 2", "], 2, 0, {tv_sec=1, tv_nsec=0}) = 2 (left {tv_sec=0, ",
    ", 2, MSG_DONTWAIT, {tv_sec=0, tv_nsec=", "recvmmsg_time64(", ", 1, 0, {tv_sec=1, "
    "tv_nsec=0}) = 1 (left {tv_sec=0, tv_nsec=",
    # i386 iovecs
    'writev(3, [{iov_base="abc", iov_len=3}, {iov_base="defgh", iov_len=5}], 2) = 8',
    'readv(3, [{iov_base="hell", iov_len=4}, {iov_base="oabcdefgh", iov_len=100}], 2)',
    "readv(3, [], 0) = 0", "readv(3, 0x1, 2) = -1 EFAULT", "writev(3, NULL, 0) = 0",
    "], 2, 4294967296) = -1 EFBIG", "preadv(3, 0x1, 2, 0) = -1 EFAULT",
    "], 1, 30, RWF_APPEND) = 3", "0x1000 /* RWF_??? */) = -1 EOPNOTSUPP",
    # the old select
    "], NULL, NULL, {tv_sec=0, tv_usec=1000}) = 0 (Timeout)\nselect(NULL) = -1 EFAULT",
    "select(0x1) = -1 EFAULT", ", 0x1, NULL, NULL, {tv_sec=0, tv_usec=0}) = -1 EFAULT",
)




# the old select's record holds the five words its struct gave, not the register that
# pointed to them: under -e raw= strace prints that register
_OLD_SELECT: tuple[Gap, ...] = ((re.compile(r"^(select\()0x[0-9a-f]+(\) = .*)$"),
                                 re.compile(r"^(select\()(?:0x[0-9a-f]+|0)(\) = .*)$")),)


def test_i386_calls_raw(tmp_path: Path) -> None:
    """``-e raw=all``: every 32-bit call too (its i386 name), with as many arguments as
    strace's i386 table gives (a 64-bit offset is two registers), the return in hex
    without decoration."""
    s_procs = same_procs_one_run(build(tmp_path, "sweep_i386", "-no-pie"), tmp_path,
                                 ["-e", "raw=all"], _OLD_SELECT)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in ("_llseek(0x3, 0x1, 0, 0x", "pwrite64(0x3, 0x", "fcntl64(0x3, 0x1, 0) = 0",
                 "chown32(0, 0xffffffff, 0xffffffff) = -1 EFAULT"):
        assert want in text, want
    assert re.search(r"^_newselect\(0, 0, 0, 0, 0x[0-9a-f]+\) = 0$", text, re.M)


@pytest.mark.parametrize("expr", ["%network,select", "send,recv,socketcall,chown32"])
def test_i386_selection_takes_socketcall_sub_calls_by_their_names(tmp_path: Path,
                                                                  expr: str) -> None:
    """-e trace=%network selects socketcall's sub-calls (socket, send, accept ...: the
    BPF program selects the call by its sub-call's number) and not the socketcalls whose
    words are unreadable (strace's socketcall is in %desc); the old select by its name;
    names only i386 has (send, socketcall, chown32) are no error on x86_64."""
    exe = build(tmp_path, "sweep_i386", "-no-pie")
    s_out, t_out = nested_run(exe, tmp_path, ["-e", f"trace={expr}"])
    s_procs = {p: [c.line for c in calls] for p, calls in parse(s_out.read_text()).items()}
    t_procs = {p: [c.line for c in calls] for p, calls in parse(t_out.read_text()).items()}
    pid = next(iter(s_procs))
    s_lines, t_lines = s_procs[pid], t_procs.get(pid, [])
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    names = {line.partition("(")[0] for line in s_lines}
    if expr.startswith("%"):
        assert {"socket", "bind", "accept", "send", "recv", "sendto", "select"} <= names
        assert "socketcall" not in names and "writev" not in names
    else:
        assert names == {"send", "recv", "socketcall", "chown32"}


def _plain_fd(line: str, fd: str) -> str:
    """``line`` with fd ``fd``'s -yy decoration taken off (``19<UNIX-STREAM:[1->2]>``)."""
    return re.sub(rf"(?<![\w.]){fd}<(?:[\w-]+:\[[^\]]*\]|[^<>]*)>", fd, line)


def test_i386_fd_decorations_equal_strace(tmp_path: Path) -> None:
    """-yy: the fds of the 32-bit calls (files, pipes, and the sockets of socketcall's
    sub-calls, described in the call by the BPF program as the native calls' are) print
    as strace prints them, every line. Known and documented (docs/strace-differences.md,
    the -yy row): an fd received by SCM_RIGHTS is described from /proc when first used,
    and this one is closed at once: its decoration is left out of the comparison, in the
    recvmsg that received it and its close."""
    exe = build(tmp_path, "sweep_i386", "-no-pie")
    s_out, t_out = nested_run(exe, tmp_path, ["-yy"])
    s_procs = {p: [c.line for c in calls] for p, calls in parse(s_out.read_text()).items()}
    t_procs = {p: [c.line for c in calls] for p, calls in parse(t_out.read_text()).items()}
    pid = next(iter(s_procs))
    s_lines, t_lines = s_procs[pid], t_procs.get(pid, [])
    t_lines = t_lines[next(i for i, line in enumerate(t_lines) if line.startswith("execve(")):]
    assert len(t_lines) == len(s_lines)
    received = None
    for k, line in enumerate(s_lines):
        if received is None and (m := re.search(r"SCM_RIGHTS, cmsg_data=\[(\d+)<", line)) \
                and line.startswith("recvmsg("):
            received = m.group(1)
        if received is not None:
            s_lines[k] = _plain_fd(line, received)
            t_lines[k] = _plain_fd(t_lines[k], received)
            if line.startswith(f"close({received}<"):
                received = None
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(s_lines)
    assert "bind(3<UNIX-STREAM:[" in text and "accept(3<UNIX-STREAM:[" in text


# strace -c's rows: "% time  seconds  usecs/call  calls  [errors]  syscall"
_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)?\s*(\S+)$")


def test_i386_summary_counts_socketcall_sub_calls_by_name(tmp_path: Path) -> None:
    """-c counts a socketcall under its sub-call's name (bind, send ...) and the old
    select as select, as strace does; strace lists a sub-call and the direct call of the
    same name (bind through socketcall and bind of Linux 4.3) as two rows, tracekit as
    one (docs/strace-differences.md): the calls and errors per name are compared."""
    exe = build(tmp_path, "sweep_i386", "-no-pie")
    s_out, t_out = nested_run(exe, tmp_path, ["-c"])
    s_rows: collections.Counter[tuple[str, str]] = collections.Counter()
    for line in s_out.read_text().partition("32 bit mode")[2].splitlines():
        if (m := _ROW.match(line)) and m.group(3) != "total":
            s_rows[(m.group(3), "calls")] += int(m.group(1))
            s_rows[(m.group(3), "errors")] += int(m.group(2) or 0)
    t_rows: collections.Counter[tuple[str, str]] = collections.Counter()
    # the 32-bit calls in a table of their own after strace's line, as strace prints it
    for line in t_out.read_text().partition(
            "System call usage summary for 32 bit mode:\n")[2].splitlines():
        if (m := _ROW.match(line)) and m.group(3) != "total":
            t_rows[(m.group(3), "calls")] += int(m.group(1))
            t_rows[(m.group(3), "errors")] += int(m.group(2) or 0)
    assert s_rows[("bind", "calls")] == 3 and s_rows[("send", "calls")] == 1
    assert {k: v for k, v in t_rows.items() if v} == {k: v for k, v in s_rows.items() if v}


def test_a_socketcall_in_progress_at_attach_prints_as_its_sub_call(tmp_path: Path) -> None:
    """-p on a task blocked in socketcall(SYS_RECV, ...) (tests/workloads/i386_blocked.c):
    the call's entry was never seen; at its exit the BPF program reads its registers and
    the words they point to, and the record is the whole sub-call with the bytes it
    received, as strace prints the call it restarts on attaching."""
    exe = build(tmp_path, "i386_blocked", "-no-pie")
    out = tmp_path / "t.txt"
    prog = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            preexec_fn=die_with_parent)
    tk = None
    try:
        assert prog.stdout is not None and prog.stdin is not None
        assert prog.stdout.readline() == b"ready\n"
        time.sleep(0.2)                                 # into the call
        tk = subprocess.Popen([*TRACEKIT, "strace", "-p", str(prog.pid), "-o", str(out)],
                              stderr=subprocess.PIPE, text=True, env=tracekit_env(),
                              preexec_fn=die_with_parent)
        assert tk.stderr is not None
        seen = []
        for line in tk.stderr:
            seen.append(line)
            if "attached" in line:
                break
        assert any("attached" in line for line in seen), seen
        prog.stdin.write(b"g")
        prog.stdin.close()
        assert prog.wait(timeout=30) == 0
        tk.wait(timeout=60)
    finally:
        for p in (prog, tk):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
            for f in (p.stdin, p.stdout, p.stderr) if p is not None else ():
                if f is not None:
                    f.close()
    # one process: no pid column; strace's padding before "="
    lines = [re.sub(r"\s+= ", " = ", line) for line in out.read_text().splitlines()]
    recv = [line for line in lines if line.startswith(("recv(", "socketcall("))]
    assert len(recv) == 1 and re.fullmatch(r'recv\(\d+, "x", 10, 0\) = 1', recv[0]), lines
