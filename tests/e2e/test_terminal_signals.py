"""Signals on a real terminal (a pty, tracekit the foreground job of a tiny job-control
shell: tests/_pty.py) and from kill, as strace 6.1 handles them:

- a signal reaches the command once: ^C/^\\ from the terminal went to the whole
  foreground group (tracekit and the command) and is not sent on; one sent to tracekit
  alone (kill) is; one the command could not get (it made a process group of its own) is;
- the command's reaction to the first signal (its last calls, its exit) is traced;
- ^Z (or kill -TSTP) suspends tracekit as a job-control stop, with the command, and fg
  continues both;
- a second signal of each kind ends tracekit at once, still printing the summary;
- the command starts with the dispositions and mask tracekit was started with (nohup);
- a signal early in start-up never prints a traceback.

Every test traces only processes it started, and ends what it leaves running.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests._pty import PtyJob, state_of, wait_state
from tests._run import TRACEKIT, read_events, tracekit_env, write_pipeline
from tracekit._events import Exit

pytestmark = pytest.mark.kernel

PY = sys.executable

# argv: log mode. Logs "ready PID PGID", then each of SIGINT/QUIT/TERM/HUP it gets. mode
# "exit3": exits 3 half a second after the first (a duplicate would be logged by then);
# "keep": goes on (until 60 s); "own-group": like exit3, in a process group of its own.
WATCH_PY = r'''
import os, signal, sys, time
log, mode = sys.argv[1], sys.argv[2]
if mode == "own-group":
    os.setpgid(0, 0)
got = []
def note(text):
    with open(log, "a") as f:
        f.write(text + "\n")
def on(sig, frame):
    got.append(sig)
    note(signal.Signals(sig).name)
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, on)
note(f"ready {os.getpid()} {os.getpgrp()}")
t0 = time.monotonic()
while time.monotonic() - t0 < 60:
    time.sleep(0.02)
    if got and mode != "keep":
        time.sleep(0.5)
        sys.exit(3)
'''

KEYS = {signal.SIGINT: b"\x03", signal.SIGQUIT: b"\x1c"}


def _pipeline(tmp_path: Path, fmt: str = "jsonl", path: str | None = "out") -> Path:
    out = f'path = "{tmp_path / path}"' if path else ""
    return write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [output]
        format = "{fmt}"
        {out}
        """)


def _watch(tmp_path: Path, mode: str) -> tuple[list[str], Path]:
    script = tmp_path / "watch.py"
    script.write_text(WATCH_PY)
    log = tmp_path / "signals.log"
    return [PY, str(script), str(log), mode], log


def _ready(log: Path, timeout: float = 30) -> tuple[int, int]:
    """(pid, pgid) of the watch workload, once its handlers are set."""
    deadline = time.monotonic() + timeout
    while True:
        lines = log.read_text().splitlines() if log.exists() else []
        if lines and lines[0].startswith("ready"):
            _, pid, pgid = lines[0].split()
            return int(pid), int(pgid)
        assert time.monotonic() < deadline, "the workload never got ready"
        time.sleep(0.02)


def _signals(log: Path) -> list[str]:
    return [ln for ln in log.read_text().splitlines() if not ln.startswith("ready")]


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGQUIT])
def test_a_terminal_signal_reaches_the_command_once(tmp_path: Path,
                                                    sig: signal.Signals) -> None:
    """^C (^\\) goes to the whole foreground group: the command has it from the terminal
    and tracekit does not send it again (it did: a second SIGINT, which makes many
    programs quit at once; ^\\ killed tracekit with a core and lost the trace)."""
    argv, log = _watch(tmp_path, "exit3")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", *argv],
                env=tracekit_env()) as job:
        pid, pgid = _ready(log)
        assert pgid == job.pid          # the command shares tracekit's group
        job.keys(KEYS[sig])
        status = job.wait()
    assert status == 3, bytes(job.output)[-2000:]
    assert _signals(log) == [sig.name]
    # the command's reaction, half a second later, is traced: its exit
    exits = [e for e in read_events(tmp_path / "out") if isinstance(e, Exit) and e.tid == pid]
    assert [e.exit_code >> 8 for e in exits] == [3]
    assert b"Traceback" not in job.output


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                                 signal.SIGHUP])
def test_a_signal_sent_to_tracekit_alone_reaches_the_command_once(
        tmp_path: Path, sig: signal.Signals) -> None:
    argv, log = _watch(tmp_path, "exit3")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", *argv],
                env=tracekit_env()) as job:
        _ready(log)
        os.kill(job.pid, sig)          # kill(2): SI_USER, to tracekit only
        status = job.wait()
    assert status == 3, bytes(job.output)[-2000:]
    assert _signals(log) == [sig.name]


def test_a_terminal_signal_reaches_a_command_in_another_group(tmp_path: Path) -> None:
    """A command that made a process group of its own does not get ^C from the
    terminal: tracekit sends it on, once."""
    argv, log = _watch(tmp_path, "own-group")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", *argv],
                env=tracekit_env()) as job:
        pid, pgid = _ready(log)
        assert pgid == pid != job.pid
        job.keys(b"\x03")
        status = job.wait()
    assert status == 3, bytes(job.output)[-2000:]
    assert _signals(log) == ["SIGINT"]


def test_the_reaction_to_ctrl_c_is_in_the_trace(tmp_path: Path) -> None:
    """strace format: the delivery, as the terminal sent it, and the exit half a second
    later (the first signal used to stop the trace at once, before either)."""
    argv, log = _watch(tmp_path, "exit3")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path, "strace")), "--", *argv],
                env=tracekit_env()) as job:
        _ready(log)
        job.keys(b"\x03")
        status = job.wait()
    assert status == 3
    lines = (tmp_path / "out").read_text().splitlines()
    assert any("--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---" in ln for ln in lines)
    assert lines[-1].endswith("+++ exited with 3 +++"), lines[-3:]


def test_ctrl_z_suspends_tracekit_and_the_command_and_fg_continues_both(
        tmp_path: Path) -> None:
    argv, log = _watch(tmp_path, "exit3")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", *argv],
                env=tracekit_env()) as job:
        pid, _ = _ready(log)
        job.keys(b"\x1a")
        assert job.wait_for("stopped")[1] == str(int(signal.SIGTSTP))
        wait_state(pid, "T")
        assert state_of(job.pid) == "T"
        job.fg()
        job.wait_for("continued")
        wait_state(pid, "S")
        job.keys(b"\x03")               # both still work: the trace ends as usual
        status = job.wait()
    assert status == 3, bytes(job.output)[-2000:]
    assert _signals(log) == ["SIGINT"]


@pytest.mark.parametrize("how", ["kill", "terminal, command in another group"])
def test_a_stop_the_command_missed_stops_it_and_continue_continues_it(
        tmp_path: Path, how: str) -> None:
    """kill -TSTP to tracekit, or ^Z with the command in a group of its own: the command
    did not get SIGTSTP, so tracekit stops it with itself and continues it with itself
    (it used to stop alone, the command running on untraced, or stay stopped)."""
    argv, log = _watch(tmp_path, "exit3" if how == "kill" else "own-group")
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", *argv],
                env=tracekit_env()) as job:
        pid, _ = _ready(log)
        if how == "kill":
            os.kill(job.pid, signal.SIGTSTP)
        else:
            job.keys(b"\x1a")
        assert job.wait_for("stopped")[1] == str(int(signal.SIGTSTP))
        wait_state(pid, "T")
        job.fg()
        job.wait_for("continued")
        wait_state(pid, "S")
        os.kill(job.pid, signal.SIGTERM)
        status = job.wait()
    assert status == 3, bytes(job.output)[-2000:]
    assert _signals(log) == ["SIGTERM"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGQUIT, signal.SIGTERM,
                                 signal.SIGHUP])
def test_a_second_signal_ends_tracekit_at_once_with_the_summary(
        tmp_path: Path, sig: signal.Signals) -> None:
    """A command that handles the signal and goes on: the second signal ends tracekit
    within a second or so (not after the 2 s the command has to react), the summary is
    printed, the status is 128+N, and the command is left running (not killed)."""
    argv, log = _watch(tmp_path, "keep")
    pid = 0
    try:
        with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path, "summary", None)), "--",
                     *argv], env=tracekit_env()) as job:
            pid, _ = _ready(log)
            send = ((lambda: job.keys(KEYS[sig])) if sig in KEYS
                    else (lambda: os.kill(job.pid, sig)))
            send()
            first = time.monotonic()
            deadline = first + 20
            while not _signals(log):
                assert time.monotonic() < deadline, "the command never got the signal"
                time.sleep(0.01)
            # 0.3 s after the first: a kill from this process again at once is the first
            # sent twice; and a key's second signal must not come while tracekit's own
            # copy of the first is still pending, or the two are one (a standard signal
            # pending is not queued again: kernel/signal.c legacy_queue)
            time.sleep(max(0.0, first + 0.3 - time.monotonic()))
            t0 = time.monotonic()
            send()
            status = job.wait()
            took = time.monotonic() - t0
            assert status == 128 + sig, bytes(job.output)[-2000:]
            assert b"Summary of syscalls" in job.output
            assert b"Traceback" not in job.output
            assert took < 1.9, f"the second {sig.name} took {took:.2f} s"
            assert state_of(pid) in ("S", "R")      # left running, untraced
            assert _signals(log) == [sig.name, sig.name]
    finally:
        if pid:
            _kill(pid)


def test_the_first_signal_leaves_a_command_that_goes_on_running(tmp_path: Path) -> None:
    """strace ends on ^C and leaves a command that handles it running: so does tracekit,
    after the command had 2 s to react, with status 130 and the summary."""
    argv, log = _watch(tmp_path, "keep")
    pid = 0
    try:
        with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path, "summary", None)), "--",
                     *argv], env=tracekit_env()) as job:
            pid, _ = _ready(log)
            job.keys(b"\x03")
            status = job.wait()
        assert status == 130, bytes(job.output)[-2000:]
        assert b"Summary of syscalls" in job.output
        assert state_of(pid) in ("S", "R")
        assert _signals(log) == ["SIGINT"]
    finally:
        if pid:
            _kill(pid)


STATUS_LINES = ["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"]
# Ignores SIGHUP (as nohup does) and SIGUSR2, blocks SIGUSR1, then runs its arguments;
# SIGPIPE and SIGXFSZ back to their default (Python ignores them for itself).
WRAPPER_PY = r'''
import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
os.execvp(sys.argv[1], sys.argv[1:])
'''


def test_the_command_starts_with_the_dispositions_and_mask_tracekit_had(
        tmp_path: Path) -> None:
    """Under nohup the command kept SIG_IGN for SIGHUP only without tracekit (tracekit
    reset it, so a hangup killed it); now the ignored set and the mask are the same."""
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(WRAPPER_PY)
    direct = subprocess.run([PY, str(wrapper), *STATUS_LINES],
                            capture_output=True, text=True, timeout=30)
    traced = subprocess.run([PY, str(wrapper), *TRACEKIT, "run", str(_pipeline(tmp_path)),
                             "--", *STATUS_LINES],
                            capture_output=True, text=True, timeout=60, env=tracekit_env())
    assert traced.returncode == 0, traced.stderr
    want = direct.stdout.splitlines()       # SigBlk, then SigIgn
    assert int(want[0].split()[1], 16) & (1 << (signal.SIGUSR1 - 1))
    assert int(want[1].split()[1], 16) & (1 << (signal.SIGHUP - 1))
    assert traced.stdout.splitlines() == want
    nohup = subprocess.run(["nohup", *TRACEKIT, "run", str(_pipeline(tmp_path)), "--",
                            "sh", "-c", "kill -HUP $$; echo alive"],
                           capture_output=True, text=True, timeout=60, env=tracekit_env())
    assert (nohup.returncode, nohup.stdout) == (0, "alive\n"), nohup.stderr


_EARLY = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)


def _fresh_signals() -> None:
    """In the child before exec: the four signals at their default (a test runner may
    have SIGINT ignored, which Python and tracekit would keep), no core file (SIGQUIT's
    default action)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for s in _EARLY:
        signal.signal(s, signal.SIG_DFL)


def _entry_ran(pid: int) -> bool:
    """Whether tracekit's entry point has set its handlers: SIGTERM is caught
    (``SigCgt`` of /proc/<pid>/status; the interpreter itself catches only SIGINT).
    Before that moment nothing of tracekit has run: the interpreter is starting."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    except OSError:
        pass
    return False


def _wait_entry(pid: int, alive: Any) -> None:
    deadline = time.monotonic() + 60
    while not _entry_ran(pid) and alive():
        assert time.monotonic() < deadline, "tracekit never reached its entry point"
        time.sleep(0.001)


def _running(p: subprocess.Popen[str]) -> bool:
    return p.poll() is None


def _entry_points() -> list[list[str]]:
    """``python -m tracekit`` and, when installed beside the interpreter, the
    ``tracekit`` command (its own console-script wrapper)."""
    script = Path(sys.executable).parent / "tracekit"
    return [TRACEKIT, *([[str(script)]] if script.exists() else [])]


#: the first 300 ms of start-up, densest where the imports are
_DELAYS = (0, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.045, 0.06, 0.08, 0.1, 0.13, 0.16,
           0.2, 0.25, 0.3)


@pytest.mark.parametrize("sig", _EARLY)
def test_a_signal_early_in_start_up_never_prints_a_traceback(
        tmp_path: Path, sig: signal.Signals) -> None:
    """Sent with kill at a spread of moments of the first 300 ms (imports, loading,
    attach, release, the first events), from the moment tracekit's entry point runs:
    tracekit ends with 128+N (or, for a signal that reached the command, the command's
    death by it) and never prints a traceback (it did: a SIGINT while the command line
    imported argparse or trio, before main() could catch it; and a SIGTERM while the
    start-up finished was never sent on to the command, which ran to its end: status 0).
    SIGQUIT, SIGTERM and SIGHUP also from the instant of the exec (their default action
    ends the process until the entry point handles them). Each delay runs through both
    entry points."""
    pipeline = _pipeline(tmp_path)
    starts = [("entry", d) for d in _DELAYS]
    if sig != signal.SIGINT:        # SIGINT's own default is Python's KeyboardInterrupt
        starts += [("exec", d) for d in (0, 0.005, 0.01, 0.02)]
    entries = _entry_points()
    for i, (since, delay) in enumerate(starts):
        p = subprocess.Popen([*entries[i % len(entries)], "run", str(pipeline), "--",
                              "sleep", "5"],
                             stderr=subprocess.PIPE, text=True, env=tracekit_env(),
                             preexec_fn=_fresh_signals)
        try:
            if since == "entry":
                _wait_entry(p.pid, functools.partial(_running, p))
            time.sleep(delay)
            p.send_signal(sig)
            _, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        assert "Traceback" not in err and "Error" not in err, (since, delay, err)
        assert p.returncode in (128 + sig, -sig), (since, delay, p.returncode, err)


def test_ctrl_c_early_in_start_up_on_a_terminal(tmp_path: Path) -> None:
    """^C on a real terminal at a spread of moments of the first 300 ms, from the moment
    tracekit's entry point runs: status 130 (tracekit's, or the command's death by the
    SIGINT the terminal sent it too), no traceback on the terminal."""
    pipeline = _pipeline(tmp_path)
    entries = _entry_points()
    for i, delay in enumerate((0, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.3)):
        with PtyJob([*entries[i % len(entries)], "run", str(pipeline), "--", "sleep", "5"],
                    env=tracekit_env()) as job:
            _wait_entry(job.pid, lambda: job.status is None and state_of(job.pid)
                        not in (None, "Z"))
            time.sleep(delay)
            job.keys(b"\x03")
            status = job.wait()
            text = bytes(job.output).decode(errors="replace")
        assert "Traceback" not in text and "Error" not in text, (delay, text)
        assert status == 130, (delay, status, text)


def test_ctrl_c_that_kills_the_command_gives_130_and_its_exit_record(tmp_path: Path) -> None:
    """The status and the output after an ^C that a command obeys at once (default
    disposition): 130, its killed-by record in JSON Lines."""
    with PtyJob([*TRACEKIT, "run", str(_pipeline(tmp_path)), "--", "sleep", "30"],
                env=tracekit_env()) as job:
        deadline = time.monotonic() + 30
        while not (tmp_path / "out").exists() or not (tmp_path / "out").stat().st_size:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        job.keys(b"\x03")
        status = job.wait()
    assert status == 130
    events = read_events(tmp_path / "out")
    assert [e.exit_code & 0x7f for e in events if isinstance(e, Exit)] == [signal.SIGINT]
    assert json.loads((tmp_path / "out").read_text().splitlines()[0])
