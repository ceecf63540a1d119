"""A ``-p`` target that exits while another process gets its pid ends the session: the
target is (pid, start time) from the moment it is named, and the check that targets are
still alive compares start times (it used to follow the unrelated process until that
one exited).

Real pid reuse without touching the machine's pids: tracekit, its target and the
process that takes the target's pid run in a private pid namespace with its own /proc
(``unshare --pid --fork --mount-proc``), where ``/proc/sys/kernel/ns_last_pid`` picks
the next pid of that namespace only. Inside it tracekit's /proc view and the kernel's
pids (which the BPF programs see) differ, so this trace records nothing: what is tested
is when the session ends. Everything in the namespace dies with its first process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env, write_pipeline

pytestmark = pytest.mark.kernel

# argv: tracekit's argv (JSON), pipeline. As pid 1 of the namespace: starts the target
# (sleep 3), traces it, waits until tracekit holds its programs, reaps the target, gives
# its pid to `sleep 60` (ns_last_pid), then reports how tracekit ended.
DRIVER_PY = r'''
import json, os, subprocess, sys, time
tk_argv, pipeline = json.loads(sys.argv[1]), sys.argv[2]
target = subprocess.Popen(["sleep", "3"])
tk = subprocess.Popen([*tk_argv, "run", pipeline, "-p", str(target.pid)],
                      stderr=subprocess.PIPE, text=True)

def progs():
    n = 0
    for fd in os.listdir(f"/proc/{tk.pid}/fdinfo"):
        try:
            with open(f"/proc/{tk.pid}/fdinfo/{fd}") as f:
                n += f.read().count("prog_id:")
        except OSError:
            pass
    return n

deadline = time.monotonic() + 60
while progs() < 5:
    assert time.monotonic() < deadline and tk.poll() is None, "tracekit never attached"
    time.sleep(0.02)
target.wait()
reused = False
for _ in range(200):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(target.pid - 1))
    other = subprocess.Popen(["sleep", "60"])
    if other.pid == target.pid:
        reused = True
        break
    other.kill()
    other.wait()
t0 = time.monotonic()
try:
    _, err = tk.communicate(timeout=30)
    status, took = tk.returncode, time.monotonic() - t0
except subprocess.TimeoutExpired:
    tk.kill()
    _, err = tk.communicate()
    status, took = None, None
print(json.dumps({"reused": reused, "status": status, "took": took, "stderr": err}))
'''


def test_a_target_whose_pid_is_reused_ends_the_session(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare (util-linux) is not installed")
    (tmp_path / "driver.py").write_text(DRIVER_PY)
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [output]
        format = "jsonl"
        path = "{tmp_path / 'out'}"
        """)
    r = subprocess.run([unshare, "--pid", "--fork", "--mount-proc", sys.executable,
                        str(tmp_path / "driver.py"), json.dumps(TRACEKIT), str(pipeline)],
                       capture_output=True, text=True, timeout=120, env=tracekit_env())
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["reused"], "the namespace never gave the target's pid to a new process"
    assert result["status"] == 0, result
    assert result["took"] < 15, result          # two polls of 0.1 s, under load
    assert "Traceback" not in result["stderr"]
