"""Calls whose arguments follow their operation, flag words in strace's order, decorated
return values, and user memory not yet faulted in, against real strace on this kernel.

tests/workloads/decode_calls.c makes futex, prctl, fcntl, mremap, membarrier, ptrace,
syslog, personality, keyctl, timerfd, itimer, getgroups, arch_prctl, rt_sigtimedwait,
rt_sigqueueinfo and nanosleep calls (each with the same outcome from run to run), lists
a directory whose getdents64 replies are over 4096 bytes, and connects to AF_UNIX
addresses longer than sun_path and with embedded NULs. tests/workloads/untouched.c
passes execve and openat strings and writev/sendmsg data that sit in file pages the
process never touched.
Under ``strace -f -q`` and tracekit's ``strace`` format, every line of the workload's
process must be identical after normalising only addresses, pids and times.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests._run import WORKLOADS, compile_c, run_tracekit, write_pipeline
from tests.e2e._strace_lines import norm_line, parse, pid_normaliser
from tracekit.kernel.arch import machine_arch

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

_RANDOM = re.compile(r'getrandom\("[^"]*"')
_TMPNAME = re.compile(r"untouched[A-Za-z0-9]{6}")
# tracekit starts the command with an environment of its own (PYTHONUNBUFFERED...)
_VARS = re.compile(r"/\* \d+ vars \*/")
TRACEKIT_STRACE = [sys.executable, "-m", "tracekit", "strace"]


def build(tmp: Path, name: str, *flags: str) -> Path:
    """tests/workloads/NAME.c built with gcc -O1 (and ``flags``) into ``tmp``."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip(f"gcc is not installed: cannot build tests/workloads/{name}.c")
    out = tmp / name
    subprocess.run([gcc, "-O1", *flags, "-Wall", "-Werror", "-o", str(out),
                    str(WORKLOADS / f"{name}.c")], check=True, capture_output=True)
    return out


Gap = tuple[re.Pattern[str], re.Pattern[str]]


def without_gaps(s_lines: list[str], t_lines: list[str], gaps: tuple[Gap, ...]
                 ) -> tuple[list[str], list[str]]:
    """The two line lists with each known gap masked: where strace's line matches a gap's
    first pattern (the struct it printed) and tracekit's line at the same place its second
    (the address tracekit printed), both get ``STRUCT`` in the place of the argument
    (group 1 and group 2 of each pattern are kept)."""
    s_out, t_out = list(s_lines), list(t_lines)
    for k, line in enumerate(s_lines):
        for s_gap, t_gap in gaps:
            if s_gap.match(line) and k < len(t_out) and t_gap.match(t_out[k]):
                s_out[k] = s_gap.sub(r"\1STRUCT\2", line)
                t_out[k] = t_gap.sub(r"\1STRUCT\2", t_out[k])
    return s_out, t_out


def nested_run(exe: Path, tmp: Path, opts: Sequence[str] = ()) -> tuple[Path, Path]:
    """``exe SCRATCH`` (a new directory under ``tmp``) under ``strace -f OPTS -o
    s.txt``, itself traced by ``tracekit strace -f OPTS -o t.txt``: one run of the
    program seen by both. Returns the two files (strace's, tracekit's)."""
    scratch = tmp / "scratch"
    scratch.mkdir()
    s_out, t_out = tmp / "s.txt", tmp / "t.txt"
    # strace's ptrace calls are traced too, dozens per call of the program: a 64 MiB ring
    # holds them when the machine is too busy for tracekit to drain the default 4 MiB
    r = run_tracekit(["strace", "--mmap-pages", "64M", "-f", *opts, "-o", str(t_out), "--",
                      "strace", "-f", *opts, "-o", str(s_out), str(exe), str(scratch)],
                     timeout=120)
    assert r.returncode == 0, r.stderr
    assert "LOST" not in r.stderr, f"records lost, the lines cannot be compared: {r.stderr}"
    return s_out, t_out


def one_run_both(exe: Path, tmp: Path, opts: Sequence[str] = ()
                 ) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """:func:`nested_run`, with ``opts`` given to both (``-v``, ``-e abbrev=uname``).
    Returns (strace's, tracekit's) call lines per pid; tracekit's of the program's own
    process start at its execve (before it, the process is strace's child)."""
    s_out, t_out = nested_run(exe, tmp, opts)

    def lines(text: str) -> dict[int, list[str]]:
        return {pid: [c.line for c in calls] for pid, calls in parse(text, events=True).items()}

    s_procs, t_procs = lines(s_out.read_text()), lines(t_out.read_text())
    root = next(iter(s_procs), None)
    if root in t_procs:
        ts = t_procs[root]
        t_procs[root] = ts[next((i for i, line in enumerate(ts)
                                 if line.startswith("execve(")), len(ts)):]
    return s_procs, t_procs


def same_lines_one_run(exe: Path, tmp: Path, opts: Sequence[str] = ()) -> list[str]:
    """:func:`one_run_both` of a program that makes no children: asserts that tracekit's
    lines of its process are strace's (a diff when not) and returns them."""
    s_procs, t_procs = one_run_both(exe, tmp, opts)
    ((pid, s_lines),) = s_procs.items()             # the program alone: no children
    t_lines = t_procs.get(pid, [])
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    return s_lines


def same_lines_but_gaps(exe: Path, tmp: Path, opts: Sequence[str], gaps: tuple[Gap, ...]
                        ) -> list[str]:
    """:func:`same_lines_one_run` with the known ``gaps`` masked (:func:`without_gaps`);
    returns strace's lines, masked."""
    s_procs, t_procs = one_run_both(exe, tmp, opts)
    ((pid, s_lines),) = s_procs.items()             # the program alone: no children
    s_lines, t_lines = without_gaps(s_lines, t_procs.get(pid, []), gaps)
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    return s_lines


def same_procs_one_run(exe: Path, tmp: Path, opts: Sequence[str] = (),
                       gaps: tuple[Gap, ...] = ()) -> dict[int, list[str]]:
    """:func:`one_run_both` of a program that makes children: asserts that tracekit's
    lines of every process are strace's (a diff per process when not; known ``gaps``
    masked: :func:`without_gaps`) and returns strace's lines by pid, unmasked."""
    s_procs, t_procs = one_run_both(exe, tmp, opts)
    diffs: list[str] = []
    for pid, s_lines in s_procs.items():
        s_cmp, t_cmp = without_gaps(s_lines, t_procs.get(pid, []), gaps)
        if t_cmp != s_cmp:
            diffs.extend(difflib.unified_diff(s_cmp, t_cmp, f"strace {pid}",
                                              f"tracekit {pid}", lineterm="", n=0))
    assert not diffs, "\n".join(diffs)
    return s_procs


def run_both(tmp: Path, argv: list[str], reset: Path | None = None) -> tuple[str, str]:
    """``strace -f -q`` and tracekit of ``argv``; ``reset`` is emptied before each run."""
    def fresh() -> None:
        if reset is not None:
            shutil.rmtree(reset, ignore_errors=True)
            reset.mkdir()
    fresh()
    s_out, t_out = tmp / "s.txt", tmp / "t.txt"
    subprocess.run(["strace", "-f", "-q", "-o", str(s_out), "--", *argv], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    fresh()
    cfg = write_pipeline(tmp, f"""
        [target]
        command = {json.dumps(argv)}
        [output]
        format = "strace"
        fd_paths = false
        path = {json.dumps(str(t_out))}
        """)
    r = run_tracekit(["run", str(cfg)], timeout=120)
    assert r.returncode == 0, r.stderr
    return s_out.read_text(), t_out.read_text()


def lines_of(text: str) -> dict[int, list[str]]:
    """Each process's lines (calls, signals, exits) normalised, in order."""
    calls = parse(text, events=True)
    pids = pid_normaliser(set(calls))
    return {p: [_VARS.sub("/* N vars */", _TMPNAME.sub(
                    "untouchedXXXXXX", _RANDOM.sub('getrandom("RANDOM"', norm_line(c.line, pids))))
                for c in cs] for p, cs in calls.items()}


@pytest.fixture(scope="module")
def exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("ops")
    return {n: build(tmp, n) for n in ("decode_calls", "untouched")}


def test_operation_calls_equal_strace(tmp_path: Path, exes: dict[str, Path]) -> None:
    scratch = tmp_path / "scratch"
    s_text, t_text = run_both(tmp_path, [str(exes["decode_calls"]), str(scratch)], scratch)
    (s_lines,), (t_lines,) = lines_of(s_text).values(), lines_of(t_text).values()
    assert t_lines == s_lines
    text = "\n".join(s_lines)
    for want in ("FUTEX_OP_ADD<<28|0x345<<12|FUTEX_OP_CMP_LT<<24|0x678",
                 "futex(ADDR, FUTEX_TRYLOCK_PI) = 0", "prctl(PR_GET_DUMPABLE) = ",
                 'prctl(PR_SET_NAME, "decode-calls-wi"...) = 0',
                 "prctl(PR_GET_PDEATHSIG, [SIGUSR1])",
                 "fcntl(3, F_GETSIG) = 10 (SIGUSR1)", "= 0x2 (F_UNLCK)",
                 "getgroups(0, [", "setgroups(0, []) = 0",
                 "l_type=F_WRLCK, l_whence=SEEK_SET", "0x63 /* F_??? */",
                 "mremap(ADDR, 4096, 4096, 0) = ", "membarrier(MEMBARRIER_CMD_QUERY, 0) = 0x",
                 "ptrace(PTRACE_ATTACH, ", "syslog(10 /* SYSLOG_ACTION_SIZE_BUFFER */) = ",
                 "syslog(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 9 /* LOGLEVEL_??? */)",
                 "syslog(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, -1 /* LOGLEVEL_??? */)",
                 "personality(ADDR) = 0", "TFD_CLOEXEC|TFD_NONBLOCK", "it_interval={",
                 "= 1 (SIGHUP)", "si_int=7, si_ptr=0x7", "O_RDONLY|__O_SYNC",
                 "__O_TMPFILE, 0600", "CLONE_NEWNET",
                 'sun_path=@"ab\\0\\1cd\\0"', "ERESTART_RESTARTBLOCK",
                 'memfd_create("m", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 3',
                 'memfd_create("m", 0x18 /* MFD_??? */) = -1 EINVAL',
                 'memfd_create("m", MFD_CLOEXEC|0x20) = -1 EINVAL',
                 'memfd_create("m", MFD_CLOEXEC|21<<MFD_HUGE_SHIFT) = -1 EINVAL',
                 "MFD_CLOEXEC|MFD_ALLOW_SEALING|MFD_HUGETLB|ADDR|63<<MFD_HUGE_SHIFT",
                 "socket(AF_UNIX, ADDR /* SOCK_??? */, 0)",
                 "socket(AF_UNIX, SOCK_NONBLOCK|0x9, 0)",
                 "socketpair(AF_UNIX, 0x4399 /* SOCK_??? */, 0, NULL)",
                 "MSG_PROBE|MSG_SENDPAGE_NOTLAST|MSG_NO_SHARED_FRAGS",
                 "bind(-1, ADDR, 1)", "bind(-1, ADDR, -1)", "connect(-1, ADDR, -5)",
                 "mincore(NULL, 0, [])",
                 "membarrier(0x7 /* MEMBARRIER_CMD_??? */, MEMBARRIER_CMD_FLAG_CPU|ADDR, 0)",
                 "membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0x4 /* MEMBARRIER_CMD_FLAG_??? */)",
                 'mq_unlink("/tracekit-no-such-queue-whose-name-is-longer-than-32")',
                 "/* SOL_?? */, 4294967295, ", "epoll_create1(0x4 /* EPOLL_??? */)",
                 "SOL_UDP, UDP_GRO, ", "SOL_UDP, ADDR /* UDP_??? */, ",
                 "SOL_PACKET, PACKET_VERSION, ", "SOL_PACKET, 0x4 /* PACKET_??? */, ",
                 "ADDR /* STATX_??? */", "sq_thread_cpu=ADDR, sq_thread_idle=0, resv=[0, ADDR, 0]"):
        assert want in text, want
    for want in ("keyctl(KEYCTL_SET_REQKEY_KEYRING, KEY_REQKEY_DEFL_NO_CHANGE) = ",
                 "keyctl(KEYCTL_SET_REQKEY_KEYRING, 4660 /* KEY_REQKEY_DEFL_??? */) = -1",
                 "keyctl(KEYCTL_CHOWN, -559026163, 2718281828, -1) = -1",
                 "keyctl(KEYCTL_GET_PERSISTENT, 2718281828, -559026163) = -1",
                 "keyctl(KEYCTL_DH_COMPUTE, {private=KEY_SPEC_GROUP_KEYRING, "
                 "prime=1234567890, base=-1153374643}, ADDR, 9, NULL) = -1",
                 'keyctl(KEYCTL_PKEY_QUERY, KEY_SPEC_THREAD_KEYRING, 0, "x\\377", NULL)',
                 "keyctl(KEYCTL_PKEY_ENCRYPT, {key_id=0, in_len=10, out_len=10, __spare=[0, "
                 'ADDR, 0, 0, 0, 0, 0]}, "enc", "AbCdEfGhIj", ADDR) = -1',
                 "keyctl(KEYCTL_PKEY_VERIFY, {key_id=KEY_SPEC_PROCESS_KEYRING, in_len=0, "
                 'in2_len=0}, "", "", "") = -1',
                 "keyctl(KEYCTL_PKEY_ENCRYPT, NULL, NULL, NULL, NULL) = -1 EFAULT",
                 'keyctl(KEYCTL_INSTANTIATE_IOV, KEY_SPEC_GROUP_KEYRING, [{iov_base="AbCdEfGhIj", '
                 'iov_len=10}, {iov_base="UvWxYz012345", iov_len=12}], 2, 0) = -1'):
        assert want in text, want
    if machine_arch() == "x86_64":
        assert "arch_prctl(ARCH_REQ_XCOMP_PERM, 0 /* XFEATURE_FP */) = " in text
        assert "arch_prctl(ARCH_REQ_XCOMP_GUEST_PERM, 0x13 /* XFEATURE_??? */) = " in text
    # the directory's replies over 4096 bytes are counted whole (in the kernel)
    sizes = [int(m.group(1)) for m in re.finditer(
        r"getdents64\(\d+, ADDR /\* \d+ entries \*/, \d+\) = (\d+)", text)]
    assert max(sizes) > 4096, sizes


def test_untouched_memory_equals_strace(tmp_path: Path, exes: dict[str, Path]) -> None:
    """execve's filename and argv, an openat path, and writev's and sendmsg's iovec data,
    in pages the process never touched: read at the call's exit (from the new image for
    a successful execve), once the kernel's own read faulted them in."""
    for argv in ([str(exes["untouched"])], [str(exes["untouched"]), "open"],
                 [str(exes["untouched"]), "vec"]):
        s_text, t_text = run_both(tmp_path, argv)
        s_procs, t_procs = lines_of(s_text), lines_of(t_text)
        # mkstemp calls getrandom in some runs and not in others (glibc's tempname)
        s_all = sorted(x for ls in s_procs.values() for x in ls
                       if not x.startswith(("---", "getrandom(")))
        t_all = sorted(x for ls in t_procs.values() for x in ls
                       if not x.startswith(("---", "getrandom(")))
        assert t_all == s_all, "\n".join(difflib.unified_diff(s_all, t_all, lineterm=""))
        text = "\n".join(t_all)
        if len(argv) == 1:
            assert 'execve("/bin/true", ["true", "first"], NULL) = 0' in text
            assert 'execve("/nonexistent/x", ["true", "first"], NULL) = -1 ENOENT' in text
        elif argv[1] == "open":
            assert 'openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = ' in text
        else:
            vec = '[{iov_base="hello", iov_len=5}, {iov_base="world", iov_len=5}]'
            assert f"writev(4, {vec}, 2) = 10" in text
            assert f"msg_iov={vec}, msg_iovlen=2, " in text


_RAW_CALLS = r"""
#define _GNU_SOURCE
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static void on_usr1(int sig) { (void)sig; }
int main(void)
{
	int word = 0;
	pid_t pid;
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);                         /* rt_sigreturn: no arguments */
	syscall(SYS_futex, &word, FUTEX_WAKE, 1, 0, 0, 0);
	syscall(SYS_mremap, 0, 0, 0, 0, 0);
	syscall(SYS_membarrier, 0, 0, 0);
	pid = fork();                           /* clone: 5 arguments */
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return 0;
}
"""


def test_raw_prints_every_argument_of_the_prototype(tmp_path: Path) -> None:
    """-e raw=all: each call with as many arguments as its prototype has (futex 6,
    mremap 5, membarrier 3, clone 5, rt_sigreturn 0), whatever its operation, as strace
    6.1 prints them (its table's argument counts)."""
    exe = compile_c(_RAW_CALLS, tmp_path, "raw_calls")
    s_out, t_out = tmp_path / "s.txt", tmp_path / "t.txt"
    for tool, out in ((["strace"], s_out), ([*TRACEKIT_STRACE], t_out)):
        r = subprocess.run([*tool, "-f", "-q", "-e", "raw=all", "-o", str(out), str(exe)],
                           capture_output=True, timeout=120)
        assert r.returncode == 0, r.stderr
    keep = ("futex(", "mremap(", "membarrier(", "clone(", "rt_sigreturn(")
    # the child's pid, in hex under raw
    pid = re.compile(r"^(clone\(.*\) = )0x[0-9a-f]+$")
    strace, tracekit = ([pid.sub(r"\1PID", ln) for lines in lines_of(out.read_text()).values()
                         for ln in lines if ln.startswith(keep)] for out in (s_out, t_out))
    assert len(strace) == 5, strace
    assert tracekit == strace
