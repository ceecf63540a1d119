"""A blocking read interrupted by signals, with and without SA_RESTART, traced as strace
shows it: ``= ? ERESTARTSYS``, then the restarted read or ``rt_sigreturn`` returning EINTR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests._run import read_events, run_tracekit, write_pipeline
from tracekit._events import Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel

TABLE = SyscallTable()
PY = sys.executable


RESTART = r'''
import ctypes, os, signal, threading, time
r, w = os.pipe()
r = os.dup2(r, 100)                                # an fd number no start-up read uses
signal.signal(signal.SIGUSR1, lambda s, f: None)
signal.siginterrupt(signal.SIGUSR1, False)         # SA_RESTART
signal.signal(signal.SIGUSR2, lambda s, f: None)
signal.siginterrupt(signal.SIGUSR2, True)          # no SA_RESTART
main = threading.get_native_id()
print(r, flush=True)

def blocked_in_read():
    while True:
        with open(f"/proc/self/task/{main}/syscall") as f:
            fields = f.read().split()
        if fields[0] == "0" and int(fields[1], 16) == r:
            return
        time.sleep(0.005)

def kicker():
    for sig in (signal.SIGUSR1, signal.SIGUSR2):
        blocked_in_read()
        time.sleep(0.02)
        signal.pthread_kill(threading.main_thread().ident, sig)
    blocked_in_read()
    os.write(w, b"x")

threading.Thread(target=kicker).start()
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(8)
n = libc.read(r, buf, 1)          # restarted after SIGUSR1, then EINTR at SIGUSR2
print(n, ctypes.get_errno(), flush=True)
n = libc.read(r, buf, 1)
print(n, ctypes.get_errno(), flush=True)
'''


def test_signal_interrupting_a_blocking_read(tmp_path: Path) -> None:
    """SIGUSR1 (SA_RESTART): read = ? ERESTARTSYS, then the restarted read; SIGUSR2 (no
    SA_RESTART): read = ? ERESTARTSYS and rt_sigreturn = -1 EINTR, as strace shows them."""
    script = tmp_path / "restart.py"
    script.write_text(RESTART)
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(PY)}, {json.dumps(str(script))}]
        [filter]
        syscalls = ["read", "rt_sigreturn"]
        [output]
        format = "jsonl"
        path = "{tmp_path / 'out.jsonl'}"
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    out = r.stdout.split()
    rfd = int(out[0])
    assert out[1:3] == ["-1", "4"] and out[3] == "1", out     # EINTR, then "x" read
    evs = [e for e in read_events(tmp_path / "out.jsonl") if isinstance(e, Syscall)]
    read_nr, sigret_nr = TABLE.nr("read"), TABLE.nr("rt_sigreturn")
    seq = [(("read", e.ret) if e.syscall_nr == read_nr else ("rt_sigreturn", e.ret))
           for e in evs if (e.syscall_nr == read_nr and e.args[0] == rfd)
           or e.syscall_nr == sigret_nr]
    assert seq == [("read", -512), ("rt_sigreturn", 0), ("read", -512),
                   ("rt_sigreturn", -4), ("read", 1)], seq
    text_pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(PY)}, {json.dumps(str(script))}]
        [filter]
        syscalls = ["read", "rt_sigreturn"]
        [output]
        format = "strace"
        path = "{tmp_path / 'out.txt'}"
        """, name="text.toml")
    r = run_tracekit(["run", str(text_pipeline)])
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "out.txt").read_text()
    assert text.count("= ? ERESTARTSYS (To be restarted if SA_RESTART is set) <") == 2
    # the mask the frame restores, and the deliveries, as strace prints them (signal
    # lines are not syscalls: the filter keeps them, as strace -e trace=... does)
    assert text.count("rt_sigreturn({mask=[]}) = -1 EINTR (Interrupted system call) <") == 1
    for sig in ("SIGUSR1", "SIGUSR2"):
        assert text.count(f"--- {sig} {{si_signo={sig}, si_code=SI_TKILL, si_pid=") == 1
