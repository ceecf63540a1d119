"""Signal deliveries against real strace: the ``--- SIGxxx {siginfo} ---`` lines and the
``rt_sigreturn({mask=[...]})`` after each handled one, on real programs traced by both.

Per program, every process's signal lines and rt_sigreturn calls are compared whole after
normalising what differs between two runs: pids, addresses and the CPU times of a
SIGCHLD (``si_utime``/``si_stime``: the scheduler's). A signal the task ignores (SIG_IGN,
or SIGCHLD left at SIG_DFL) is dropped when it is sent unless the task is ptraced:
tracekit shows it where it is sent, as strace, whose ptrace gets it delivered (program
``ignored``; docs/strace-differences.md).
"""

from __future__ import annotations

import re
import shutil
import signal
import sys
import textwrap
from pathlib import Path

import pytest

from tests._run import read_events, run_tracekit
from tests.e2e._strace_lines import parse
from tests.e2e.test_strace_diff import run_both
from tracekit._events import Signal

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

_ADDR = re.compile(r"0x[0-9a-f]{5,}")
_TIMES = re.compile(r"\b(si_utime|si_stime)=\d+(?: /\* [^*]* \*/)?")

# SI_USER (kill), SI_TKILL (raise_signal: tgkill), a handler run with a blocked mask,
# children that exit (CLD_EXITED, status 3), are killed (CLD_KILLED) and fault
# (SIGSEGV SEGV_MAPERR si_addr=NULL, then the parent's CLD_KILLED/DUMPED).
SIGNALS_PY = textwrap.dedent("""
    import ctypes, os, resource, signal, time
    signal.signal(signal.SIGUSR1, lambda *a: None)
    signal.signal(signal.SIGUSR2, lambda *a: None)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    os.kill(os.getpid(), signal.SIGUSR1)
    signal.raise_signal(signal.SIGUSR2)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGHUP})
    os.kill(os.getpid(), signal.SIGUSR1)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # each SIGCHLD stays pending until the child is reaped and is delivered as
    # rt_sigprocmask returns: at the same point under both tracers (unblocked, it could
    # come during user code or at wait4's return, whichever the timing gives)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    os.waitpid(pid, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    pid = os.fork()
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    pid = os.fork()
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        ctypes.string_at(0)
        os._exit(0)
    os.waitpid(pid, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
""")


# A child stopped by SIGSTOP (strace's "--- stopped by SIGSTOP ---" line, CLD_STOPPED)
# and continued (CLD_CONTINUED; the child handles SIGCONT: with SIG_DFL the kernel would
# drop it at send time unless ptraced).
STOP_PY = textwrap.dedent("""
    import os, signal, time
    signal.signal(signal.SIGCHLD, lambda *a: None)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCONT, lambda *a: None)
        os.write(w, b"x")
        time.sleep(0.3)
        os._exit(0)
    os.read(r, 1)
    os.kill(pid, signal.SIGSTOP)
    os.waitpid(pid, os.WUNTRACED)
    os.kill(pid, signal.SIGCONT)
    os.waitpid(pid, 0)
""")


# Children killed by a signal's default action, which the kernel turns into a group kill
# when it is sent (the task is not ptraced): SIGTERM from raise (SI_TKILL), SIGHUP from
# kill (SI_USER), SIGPIPE the kernel sends for a write into a pipe without reader.
FATAL_PY = textwrap.dedent("""
    import os, signal
    signal.signal(signal.SIGCHLD, lambda *a: None)
    def child(fn):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        pid = os.fork()
        if pid == 0:
            fn()
            os._exit(0)
        os.waitpid(pid, 0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    def pipe():
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        r, w = os.pipe()
        os.close(r)
        os.write(w, b"x")
    child(lambda: signal.raise_signal(signal.SIGTERM))
    child(lambda: os.kill(os.getpid(), signal.SIGHUP))
    child(pipe)
""")


# Signals the process ignores: SIGUSR1 set to SIG_IGN and sent to itself, the SIGCHLD of
# a child's exit with SIGCHLD left at SIG_DFL (the usual case: no handler).
IGNORED_PY = textwrap.dedent("""
    import os, signal
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    os.kill(os.getpid(), signal.SIGUSR1)
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    os.waitpid(pid, 0)
""")


def programs(tmp: Path) -> dict[str, list[str]]:
    script, stop, fatal = tmp / "signals.py", tmp / "stop.py", tmp / "fatal.py"
    ignored = tmp / "ignored.py"
    script.write_text(SIGNALS_PY)
    stop.write_text(STOP_PY)
    fatal.write_text(FATAL_PY)
    ignored.write_text(IGNORED_PY)
    return {"python": [sys.executable, "-S", str(script)],
            "sh": ["sh", "-c", "sleep 0.01 & wait"],
            "stop": [sys.executable, "-S", str(stop)],
            "fatal": [sys.executable, "-S", str(fatal)],
            "ignored": [sys.executable, "-S", str(ignored)]}


_SIGRETURN_RET = re.compile(r"^(rt_sigreturn\(.*\)) = .*$")


def signal_lines(text: str, *, sigreturn_ret: bool = True) -> list[str]:
    """Each process's ``---`` lines and rt_sigreturn calls, normalised, sorted by
    process and in order within each (processes as their first signal line shows them:
    pids differ between runs). Without ``sigreturn_ret``, rt_sigreturn's return value
    (the interrupted context's register: which call the signal cut, a matter of timing)
    is ``R``."""
    calls = parse(text, events=True)
    pids = {str(p) for p in calls}
    for cs in calls.values():
        for c in cs:
            pids.update(re.findall(r"si_pid=([1-9]\d*)", c.line))
    pid_re = re.compile(r"(?<![\w.])(?:" + "|".join(sorted(pids, key=len, reverse=True))
                        + r")(?![\w.])")
    per_proc = []
    for cs in calls.values():
        got = [pid_re.sub("PID", _TIMES.sub(r"\1=T", _ADDR.sub("ADDR", c.line)))
               for c in cs if c.name == "---" or c.name == "rt_sigreturn"]
        if not sigreturn_ret:
            got = [_SIGRETURN_RET.sub(r"\1 = R", g) for g in got]
        if got:
            per_proc.append("\n".join(got))
    return sorted(per_proc)


@pytest.mark.parametrize("name", ["python", "sh", "stop", "fatal", "ignored"])
def test_signal_lines_equal_strace(tmp_path: Path, name: str) -> None:
    # stop: whether the parent is already in wait4 when SIGCHLD (CLD_CONTINUED) comes
    # depends on how fast the stopped child runs again: EINTR or the kill's 0
    ret = name != "stop"
    def raced(text: str) -> bool:
        """The kernel sent CLD_STOPPED with si_status=0: the parent's waitpid(WUNTRACED)
        took the stop's code (kernel/exit.c wait_task_stopped zeroes group_exit_code)
        before the stopping child read it for its SIGCHLD (kernel/signal.c
        do_notify_parent_cldstop): both tracers print what was sent, so a run where
        either side lost that race is no comparison."""
        return "si_code=CLD_STOPPED, si_pid=" in text and "si_status=SIGSTOP" not in text

    for _ in range(5):
        s_text, t_text = run_both(tmp_path, name, programs(tmp_path)[name])
        if name != "stop" or not raced(s_text) and not raced(t_text):
            break
    s_lines = signal_lines(s_text, sigreturn_ret=ret)
    t_lines = signal_lines(t_text, sigreturn_ret=ret)
    assert s_lines, "strace saw no signal"
    assert t_lines == s_lines
    text = "\n".join(s_lines)
    if name == "python":
        for want in ("--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=PID, si_uid=",
                     "--- SIGUSR2 {si_signo=SIGUSR2, si_code=SI_TKILL, si_pid=PID",
                     "rt_sigreturn({mask=[HUP INT]}) = 0",
                     "si_code=CLD_EXITED, si_pid=PID, si_uid=0, si_status=3, si_utime=T",
                     "si_code=CLD_KILLED, si_pid=PID, si_uid=0, si_status=SIGKILL",
                     "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---"):
            assert want in text, want
    elif name == "stop":
        for want in ("--- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER, si_pid=PID, si_uid=0} ---"
                     "\n--- stopped by SIGSTOP ---",
                     "--- SIGCONT {si_signo=SIGCONT, si_code=SI_USER",
                     "si_code=CLD_STOPPED, si_pid=PID, si_uid=0, si_status=SIGSTOP",
                     "si_code=CLD_CONTINUED, si_pid=PID, si_uid=0, si_status=SIGCONT"):
            assert want in text, want
    elif name == "fatal":
        for want in ("--- SIGTERM {si_signo=SIGTERM, si_code=SI_TKILL, si_pid=PID, si_uid=0}",
                     "--- SIGHUP {si_signo=SIGHUP, si_code=SI_USER, si_pid=PID, si_uid=0}",
                     "--- SIGPIPE {si_signo=SIGPIPE, si_code=SI_USER, si_pid=PID, si_uid=0}",
                     "si_code=CLD_KILLED, si_pid=PID, si_uid=0, si_status=SIGPIPE"):
            assert want in text, want
    elif name == "ignored":
        assert text == ("--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=PID, "
                        "si_uid=0} ---\n--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, "
                        "si_pid=PID, si_uid=0, si_status=3, si_utime=T, si_stime=T} ---")
    else:
        assert "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=PID" in text
        assert "rt_sigreturn({mask=" in text


def test_an_ignored_signal_carries_the_disposition_it_had(tmp_path: Path) -> None:
    """The JSON Lines signal events of ``ignored``: SIGUSR1 with SIG_IGN (1), SIGCHLD with
    SIG_DFL (0), read from the kernel's table of dispositions by its own layout."""
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", "-F", "jsonl", "-o", str(out), "--",
                        *programs(tmp_path)["ignored"]])
    assert res.returncode == 0, res.stderr
    got = [(e.sig, e.sa_handler) for e in read_events(out) if isinstance(e, Signal)]
    assert got == [(signal.SIGUSR1, 1), (signal.SIGCHLD, 0)]
