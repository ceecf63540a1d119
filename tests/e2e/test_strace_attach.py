"""``tracekit strace -p`` against real strace on processes the test starts: what an
attach traces (the given processes' threads, then the forks made after it) and what is
said of a process that exits while it is attached or is gone before.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests._run import (
    TRACEKIT,
    attached_tracer,
    holds_bpf_link,
    rest_of_stderr,
    tracekit_env,
    wait_until,
)
from tracekit.kernel.syscalls import SyscallTable

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

STRACE = ["strace"]


def _attach_for(tool: list[str], opts: list[str], target: int, seconds: float, out: Path
                ) -> subprocess.CompletedProcess[str]:
    """Run ``tool strace``-style with ``opts`` and ``-o out``, stop it with SIGINT
    ``seconds`` after it attached to ``target`` (as ``timeout -s INT``)."""
    env = tracekit_env() if tool is TRACEKIT else None
    argv = [*tool, "strace"] if tool is TRACEKIT else list(tool)
    p = subprocess.Popen([*argv, "-o", str(out), *opts], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while not _attached(p.pid, target) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(seconds)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)


def _start(script: str) -> subprocess.Popen[bytes]:
    """A shell running ``script`` in a session of its own (killed as a group after)."""
    return subprocess.Popen(["sh", "-c", script], start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def _stop(p: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


@pytest.mark.parametrize("tool", [STRACE, TRACEKIT], ids=["strace", "tracekit"])
def test_f_p_follows_forks_after_the_attach_not_children_from_before(
        tool: list[str], tmp_path: Path) -> None:
    """The parent's child that runs before the attach (sleeping 0.2 s at a time) is not
    traced; the sleeps the parent forks after it (0.3 s) are, as strace -f -p does."""
    p = _start('sh -c "while :; do /bin/sleep 0.2; done" & '
               'while :; do /bin/sleep 0.3; done')
    try:
        time.sleep(0.5)
        out = tmp_path / "trace"
        r = _attach_for(tool, ["-f", "-p", str(p.pid)], p.pid, 1.5, out)
    finally:
        _stop(p)
    text = out.read_text()
    assert f"Process {p.pid} attached" in r.stderr, r.stderr
    assert "tv_nsec=300000000" in text, text          # a child forked after the attach
    assert "tv_nsec=200000000" not in text, text      # the child from before it


def _run(tool: list[str], opts: list[str]) -> subprocess.CompletedProcess[str]:
    if tool is TRACEKIT:
        return subprocess.run([*TRACEKIT, "strace", *opts], capture_output=True, text=True,
                              env=tracekit_env(), timeout=60)
    return subprocess.run([*tool, *opts], capture_output=True, text=True, timeout=60)


def _exited_pid(*, reaped: bool) -> int:
    """A child of the test that has exited: a zombie, or reaped (its pid then names no
    process, unless it was reused in between, which the caller checks)."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    if reaped:
        os.waitpid(pid, 0)
    else:
        while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            time.sleep(0.01)
    return pid


@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "zombie"])
def test_p_of_an_exited_process_says_what_strace_says(reaped: bool) -> None:
    """strace -p of a process that has exited: one ``attach:`` line (ESRCH once reaped,
    EPERM for a zombie), no ``attached`` line, exit status 1; tracekit says the same."""
    pid = _exited_pid(reaped=reaped)
    try:
        got = {}
        for name, tool in (("strace", STRACE), ("tracekit", TRACEKIT)):
            r = _run(tool, ["-p", str(pid)])
            got[name] = (r.returncode, r.stderr, r.stdout)
    finally:
        if not reaped:
            os.waitpid(pid, 0)
    assert got["tracekit"] == got["strace"]
    assert got["strace"][0] == 1 and "attach: ptrace(PTRACE_SEIZE" in got["strace"][1]


def test_p_goes_on_with_the_processes_it_could_attach_to(tmp_path: Path) -> None:
    """-p of an exited process and of a live one: the line for the first, then the trace
    of the second to its end, exit status 0, as strace."""
    gone = _exited_pid(reaped=True)
    got = {}
    for name, tool in (("strace", STRACE), ("tracekit", TRACEKIT)):
        live = subprocess.Popen(["sh", "-c", "read x; exit 0"], stdin=subprocess.PIPE)
        try:
            p = subprocess.Popen(
                [*(([*TRACEKIT, "strace"]) if tool is TRACEKIT else tool),
                 "-o", str(tmp_path / name), "-p", str(gone), "-p", str(live.pid)],
                stderr=subprocess.PIPE, text=True,
                env=tracekit_env() if tool is TRACEKIT else None)
            deadline = time.monotonic() + 30
            while not _attached(p.pid, live.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)
            assert live.stdin is not None
            live.stdin.close()
            live.wait()
            _, err = p.communicate(timeout=60)
        finally:
            if live.poll() is None:
                live.kill()
                live.wait()
        lines = [x.replace(str(live.pid), "LIVE").replace(str(gone), "GONE")
                 for x in err.splitlines()]
        got[name] = (p.returncode, lines, "+++ exited with 0 +++" in
                     (tmp_path / name).read_text())
    assert got["tracekit"] == got["strace"]
    assert got["strace"] == (0, ["strace: attach: ptrace(PTRACE_SEIZE, GONE): No such process",
                                 "strace: Process LIVE attached"], True)


def _a_kernel_thread() -> int | None:
    """The pid of a kernel thread (PF_KTHREAD in its stat flags), if this pid namespace
    shows one."""
    for name in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(b")", 1)[1].split()[6]) & 0x00200000:
                return int(name)
    return None


def test_p_of_a_kernel_thread_or_of_a_process_named_twice_is_refused_as_strace_does(
        tmp_path: Path) -> None:
    """strace's PTRACE_SEIZE fails, in its order among the attaches, for a kernel thread
    (ptrace refuses one) and for a process named again (already traced); tracekit
    attached to both, said a kernel thread attached and the process attached and
    detached twice."""
    kthread = _a_kernel_thread()
    if kthread is None:
        pytest.skip("no kernel thread in this pid namespace")
    live = _start("sleep 60")
    try:
        got = {}
        for name, tool in (("strace", STRACE), ("tracekit", TRACEKIT)):
            pids = f"{live.pid},{kthread}"
            r = _attach_for(tool, ["-p", pids, "-p", str(live.pid)], live.pid, 0.5,
                            tmp_path / name)
            got[name] = (r.returncode, [
                x.replace(str(live.pid), "LIVE").replace(f" {kthread})", " KTHREAD)")
                for x in r.stderr.splitlines()])
        # alone: nothing to attach to, exit status 1
        for name, tool in (("strace", STRACE), ("tracekit", TRACEKIT)):
            r = _run(tool, ["-p", str(kthread)])
            got[name + " alone"] = (r.returncode, r.stderr.replace(str(kthread), "KTHREAD"))
    finally:
        _stop(live)
    seize = "strace: attach: ptrace(PTRACE_SEIZE, {}): Operation not permitted"
    assert got["strace"] == (-signal.SIGINT, [
        "strace: Process LIVE attached", seize.format("KTHREAD"), seize.format("LIVE"),
        "strace: Process LIVE detached"])
    assert got["tracekit"] == got["strace"]
    assert got["strace alone"] == (1, seize.format("KTHREAD") + "\n")
    assert got["tracekit alone"] == got["strace alone"]


def _attached(tracer: int, pid: int) -> bool:
    """Whether ``tracer`` is tracing ``pid``: strace's ptrace (TracerPid), or tracekit's
    BPF programs (it holds them once it has attached; a crude sign: its fds of bpf-prog)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return f"TracerPid:\t{tracer}\n" in status or holds_bpf_link(tracer)


def _default_signals() -> None:
    """``preexec_fn``: SIGINT and SIGQUIT as a terminal's shell leaves them (a test
    runner's worker may have them ignored, and an ignored one stays ignored)."""
    for sig in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["INT", "TERM", "HUP"])
def test_p_ended_by_a_signal_exits_with_its_status(sig: int, tmp_path: Path) -> None:
    """strace -p ended by a signal detaches, leaves the process running and dies of the
    signal (a shell's 128+N); tracekit does the same (it returned 0)."""
    got = {}
    for name, tool in (("strace", STRACE), ("tracekit", [*TRACEKIT, "strace"])):
        target = subprocess.Popen(["sleep", "100"], preexec_fn=_default_signals)
        try:
            p = attached_tracer([*tool, "-o", str(tmp_path / name), "-p", str(target.pid)],
                                preexec_fn=_default_signals,
                                env=tracekit_env() if name == "tracekit" else None)
            try:
                p.send_signal(sig)
                rest_of_stderr(p, 60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            got[name] = (p.returncode, target.poll() is None)
        finally:
            target.kill()
            target.wait()
    assert got["strace"] == (-sig, True)
    assert got["tracekit"] == got["strace"]


def test_p_of_a_process_killed_inside_a_call_from_before_the_attach(tmp_path: Path) -> None:
    """sleep, inside clock_nanosleep when the tracer attaches, then SIGKILLed (and left
    unreaped until the tracer is done): the call never returned, so it prints ``= ?``
    (tracekit printed its -ERESTART_RESTARTBLOCK return), then ``+++ killed by SIGKILL
    +++``; the tracer ends by itself and says no ``Process N detached`` of a zombie."""
    got = {}
    nr = SyscallTable().nr("clock_nanosleep")
    for name, tool in (("strace", STRACE), ("tracekit", [*TRACEKIT, "strace"])):
        out = tmp_path / name
        target = subprocess.Popen(["sleep", "100"])
        try:
            calls = Path(f"/proc/{target.pid}/syscall")
            wait_until(lambda: calls.read_text().startswith(f"{nr} "),  # noqa: B023
                       "sleep in clock_nanosleep", 10)
            # (stderr after the attach line read with its buffer: communicate(timeout=)
            # would drop what readline() had read ahead, and err must be empty)
            p = attached_tracer([*tool, "-o", str(out), "-p", str(target.pid)],
                                env=tracekit_env() if name == "tracekit" else None)
            try:
                time.sleep(0.5)
                os.kill(target.pid, signal.SIGKILL)
                err = rest_of_stderr(p, 60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        finally:
            target.kill()
            target.wait()
        got[name] = (p.returncode, err, out.read_text().splitlines())
    for name, (rc, err, lines) in got.items():
        assert (rc, err, len(lines), lines[-1]) == (0, "", 2, "+++ killed by SIGKILL +++"), \
            (name, got[name])
        assert lines[0].endswith(") = ?"), (name, lines)
    assert got["tracekit"][2][0].startswith(
        "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=100, tv_nsec=0}, ")
