"""A reader that cannot keep up: every record the kernel writes is delivered or counted
lost, exactly (a ring buffer far too small, a user stage far slower than the stream), and
while a slow stage applies backpressure tracekit's memory stays bounded.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests._run import (
    SLEEPY_PY,
    TRACEKIT,
    getppid_pipeline,
    read_events,
    run_tracekit,
    tracekit_env,
    write_pipeline,
)
from tracekit._events import Exec, Exit, Lost, Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel

GETPPID = SyscallTable().nr("getppid")


def test_tiny_ring_buffer_counts_every_lost_record(tmp_path: Path, loop: Path) -> None:
    n = 300_000
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", str(getppid_pipeline(tmp_path, buffer_pages=2)),
                        "-o", str(out), "--", str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    events = read_events(out)
    lost = sum(e.count for e in events if isinstance(e, Lost))
    calls = [e for e in events if isinstance(e, Syscall)]
    assert all(e.syscall_nr == GETPPID for e in calls)
    lifecycle = [e for e in events if isinstance(e, Exec | Exit)]
    # Every record the kernel tried to write (n getppid + exec + exit) is delivered or lost.
    assert len(calls) + len(lifecycle) + lost == n + 2
    assert lost > 0, "a 2-page ring buffer kept up with a getppid loop: make n larger"
    assert f"LOST {lost} records" in res.stderr


def _vm_hwm_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


# Bound on tracekit's peak RSS with a stage that cannot keep up. What tracekit may hold:
# its start-up peak (README, "Measured": 50 MiB), the ring buffer's data pages once
# touched (buffer_pages = 1024: 4 MiB), and the batches in the bounded channels: the
# pipeline's 2 channels of 8 batches, plus one batch in each of source, stage and sink,
# = 19 batches of at most 4096 events (one drain) of about 400 bytes (Syscall Struct,
# its args tuple, list slot) = 31 MiB. Total 85 MiB; 128 MiB leaves room for allocator
# slack. Buffering the stream instead would pass 1 GiB (3 M events).
RSS_BOUND_MIB = 128


def test_slow_stage_backpressure_bounds_memory_and_loss_is_counted(tmp_path: Path,
                                                                   loop: Path) -> None:
    n = 3_000_000
    (tmp_path / "tk_sleepy_stage.py").write_text(SLEEPY_PY)
    pipeline = write_pipeline(tmp_path, """\
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [[stage]]
        kind = "user"
        use = "tk_sleepy_stage:Sleepy"
        options = { sleep_s = 0.05 }
        [output]
        format = "jsonl"
        """)
    out = tmp_path / "out.jsonl"
    tk = subprocess.Popen([*TRACEKIT, "run", str(pipeline), "-o", str(out), "--", str(loop),
                           str(n)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=tracekit_env(PYTHONPATH=str(tmp_path)))
    peak = 0
    try:
        while tk.poll() is None:
            peak = max(peak, _vm_hwm_kib(tk.pid) or 0)
            time.sleep(0.02)
        _, err = tk.communicate(timeout=10)
    finally:
        if tk.poll() is None:
            tk.kill()
            tk.wait()
    assert tk.returncode == 0, err
    events = read_events(out)
    calls = sum(1 for e in events if isinstance(e, Syscall) and e.syscall_nr == GETPPID)
    lifecycle = sum(1 for e in events if isinstance(e, Exec | Exit))
    lost = sum(e.count for e in events if isinstance(e, Lost))
    assert calls + lifecycle + lost == n + 2   # exact: every record delivered or counted
    assert lost > n // 2, "the sleeping stage kept up: the kernel dropped too little"
    assert f"LOST {lost} records" in err and "buffer_pages" in err
    assert 0 < peak < RSS_BOUND_MIB * 1024, f"tracekit VmHWM {peak} KiB"
