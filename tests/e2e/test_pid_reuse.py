"""A ``-p`` target that exits while another process gets its pid ends the session: the
target is (pid, start time) from the moment it is named, and the check that targets are
still alive compares start times (it used to follow the unrelated process until that
one exited).

Real pid reuse without touching the machine's pids: tracekit, its target and the
process that takes the target's pid run in a private pid namespace with its own /proc
(``unshare --pid --fork --mount-proc``), where ``/proc/sys/kernel/ns_last_pid`` picks
the next pid of that namespace only. Inside it tracekit's /proc view and the kernel's
pids (which the BPF programs see) differ, so this trace records nothing: what is tested
is when the session ends: ``tracekit run`` refuses to start there (say why:
tests/e2e/test_pid_namespace.py), so the trace is a LiveTrace whose options allow it
(``foreign_pid_namespace_ok``), built from the pipeline file as ``run`` builds it.
Everything in the namespace dies with its first process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import tracekit_env, write_pipeline

pytestmark = pytest.mark.kernel

# argv: pipeline. Traces the pid given as its argument as `tracekit run PIPELINE -p PID`
# does (the pipeline's options and output, the default upkeep), allowed in a namespace.
TRACER_PY = r'''
import sys
from pathlib import Path
import trio
from tracekit.app.config import load_config
from tracekit.app.outputs import OutputPlan
from tracekit.app.run import session_options
from tracekit.app.trace import LiveTrace
from tracekit.formatters._spec import SinkContext
import msgspec

async def main(pipeline, pid):
    cfg = load_config(pipeline, need_target=False)
    cfg = msgspec.structs.replace(cfg, target=msgspec.structs.replace(
        cfg.target, command=None, pid=[pid]))
    opts, _ = session_options(cfg, pipeline)
    opts.foreign_pid_namespace_ok = True
    plan = OutputPlan(cfg, has_stages=False)
    ctx = SinkContext.for_machine()
    trace = LiveTrace(opts, plan.stages([], ctx), collect=False)
    trace.sinks.extend(plan.open_sinks(ctx))
    try:
        await trace.run()
    finally:
        plan.close(completed=True)

trio.run(main, Path(sys.argv[1]), int(sys.argv[2]))
'''

# argv: the tracer's argv (JSON), pipeline. As pid 1 of the namespace: starts the target
# (sleep 3), traces it, waits until the tracer holds its programs, reaps the target,
# gives its pid to `sleep 60` (ns_last_pid), then reports how the tracer ended.
DRIVER_PY = r'''
import json, os, subprocess, sys, time
tk_argv, pipeline = json.loads(sys.argv[1]), sys.argv[2]
target = subprocess.Popen(["sleep", "3"])
tk = subprocess.Popen([*tk_argv, pipeline, str(target.pid)],
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
    (tmp_path / "tracer.py").write_text(TRACER_PY)
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [output]
        format = "jsonl"
        path = "{tmp_path / 'out'}"
        """)
    r = subprocess.run([unshare, "--pid", "--fork", "--mount-proc", sys.executable,
                        str(tmp_path / "driver.py"),
                        json.dumps([sys.executable, str(tmp_path / "tracer.py")]),
                        str(pipeline)],
                       capture_output=True, text=True, timeout=120, env=tracekit_env())
    assert r.returncode == 0, r.stderr
    result = json.loads(r.stdout.splitlines()[-1])
    assert result["reused"], "the namespace never gave the target's pid to a new process"
    assert result["status"] == 0, result
    assert result["took"] < 15, result          # two polls of 0.1 s, under load
    assert "Traceback" not in result["stderr"]
