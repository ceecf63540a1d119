"""The proc slice of issue 12 against real strace: wait4/waitid, rt_sigaction,
rt_sigprocmask, sigaltstack, kill and the clock calls, decoded exactly as ``strace -f -qq``
prints them, on real programs traced by both.

Per program, the lines of these calls are compared whole (arguments and return value)
after normalising only what differs between two runs: addresses, pids, and the numbers a
clock or the scheduler decides (``tv_sec``/``tv_nsec``/``tv_usec``, and waitid's
``si_utime``/``si_stime``, which the kernel leaves as the caller's stack had them).
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tests.e2e.test_strace_diff import Call, parse, run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

CALLS = frozenset({"wait4", "waitid", "rt_sigaction", "rt_sigprocmask", "sigaltstack", "kill",
                   "tgkill", "clock_gettime", "clock_getres", "gettimeofday",
                   "clock_nanosleep", "nanosleep", "getresuid", "getresgid",
                   "sched_getaffinity"})
_ADDR = re.compile(r"0x[0-9a-f]{5,}")
_TIMES = re.compile(r"\b(tv_sec|tv_nsec|tv_usec|si_utime|si_stime)=\d+(?: /\* [^*]* \*/)?")

# The program: every struct of the slice, with syscalls made directly where glibc would use
# the vDSO (clock_gettime, gettimeofday never enter the kernel otherwise).
PROC_PY = textwrap.dedent("""
    import ctypes, faulthandler, os, signal, time
    libc = ctypes.CDLL(None, use_errno=True)
    NR = ({"clock_gettime": 228, "clock_getres": 229, "gettimeofday": 96}
          if os.uname().machine == "x86_64" else
          {"clock_gettime": 113, "clock_getres": 114, "gettimeofday": 169})
    ts = (ctypes.c_long * 2)()
    libc.syscall(NR["clock_gettime"], 1, ts)
    libc.syscall(NR["clock_getres"], 0, ts)
    libc.syscall(NR["clock_gettime"], 1, None)
    libc.syscall(NR["gettimeofday"], ts, None)
    faulthandler.enable()                      # sigaltstack, SA_ONSTACK|SA_NODEFER
    signal.signal(signal.SIGUSR1, lambda *a: None)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())   # ~[RTMIN RT_1]
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    os.waitpid(pid, 0)
    pid = os.fork()
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    os.kill(pid, signal.SIGSTOP)
    os.waitpid(pid, os.WUNTRACED)
    os.kill(pid, signal.SIGKILL)
    os.wait4(pid, 0)                           # rusage
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitid(os.P_PID, pid, os.WEXITED)
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG)
    except ChildProcessError:
        pass
    time.sleep(0.001)
    os.getresuid()
    os.getresgid()
    os.sched_getaffinity(0)
""")


def programs(tmp: Path) -> dict[str, list[str]]:
    script = tmp / "proc.py"
    script.write_text(PROC_PY)
    return {
        "python": [sys.executable, "-S", str(script)],
        # foreground jobs only: a background job makes the shell's WNOHANG polls race
        # with the child's exit, and the two runs poll a different number of times
        "sh": ["sh", "-c", "(exit 3); sh -c 'kill -9 $$'; sleep 0.001"],
    }


_FORKS = frozenset({"clone", "clone3", "fork", "vfork", "wait4"})


def lines(text: str) -> list[str]:
    """The slice's calls of every process, normalised, sorted (the order of lines from
    different processes is the scheduler's). Every pid (the processes, and what
    clone/fork/wait4 returned) is ``PID``."""
    calls = parse(text)
    pids = {str(p) for p in calls} | {c.ret for cs in calls.values() for c in cs
                                      if c.name in _FORKS and c.ret.isdigit()}
    pid_re = re.compile(r"\b(?:" + "|".join(sorted(pids, key=len, reverse=True)) + r")\b")

    def norm(c: Call) -> str:
        # kill() of the caller itself with SIGKILL is "kill(PID, SIGKILL) = ?" in both:
        # the task never returns to user space from it
        s = f"{c.name}({', '.join(c.args)}) = {c.ret}"
        return pid_re.sub("PID", _TIMES.sub(lambda m: f"{m.group(1)}=N", _ADDR.sub("ADDR", s)))
    # A call cut by a signal and restarted (the stopped child's sleep: "= ? ERESTART...")
    # ends when the signal arrives, which the two tracers see at different points of the
    # call: not compared.
    return sorted(norm(c) for cs in calls.values() for c in cs
                  if c.name in CALLS and not c.ret.startswith("? ERESTART"))


@pytest.mark.parametrize("name", ["python", "sh"])
def test_proc_calls_equal_strace(tmp_path: Path, name: str) -> None:
    s_text, t_text = run_both(tmp_path, name, programs(tmp_path)[name])
    s_lines, t_lines = lines(s_text), lines(t_text)
    assert s_lines, "strace saw none of the calls"
    assert t_lines == s_lines
    if name == "python":
        text = "\n".join(s_lines)
        for want in ("WIFEXITED(s) && WEXITSTATUS(s) == 3", "WIFSTOPPED(s)",
                     "WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL", "ru_utime=", "CLD_EXITED",
                     "~[RTMIN RT_1]", "sa_restorer=", "ss_flags=SS_DISABLE", "TIMER_ABSTIME",
                     "clock_getres(CLOCK_REALTIME, {tv_sec=N, tv_nsec=N})",
                     "gettimeofday({tv_sec=N, tv_usec=N}, NULL)", "getresuid([",
                     "sched_getaffinity(0, "):
            assert want in text, want
    if name == "sh":
        text = "\n".join(s_lines)
        for want in ("kill(PID, SIGKILL) = ?", "WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL",
                     "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=N, tv_nsec=N}, ADDR) = 0"):
            assert want in text, want
