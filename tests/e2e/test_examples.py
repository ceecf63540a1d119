"""The example user stages (examples/slow_fsync.py, examples/bytes_per_file.py) on real
workloads: from a pipeline file through the real CLI (examples/ on PYTHONPATH, as the
README says), and composed in Python with a LiveTrace.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from tests._run import TRACEKIT, read_events, write_pipeline
from tracekit._events import Losses, Syscall
from tracekit.app.trace import LiveTrace
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import map_stage
from tracekit.session.session import SessionOptions

pytestmark = pytest.mark.kernel
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TABLE = SyscallTable()
N_FSYNC, N_FDATASYNC = 7, 5

# Writes known byte counts to four files (one from a forked child), then syncs one of
# them N_FSYNC + N_FDATASYNC times. Prints {"sizes": {name: st_size}}.
WORKLOAD = textwrap.dedent(f"""
    import json, os, sys
    d = sys.argv[1]
    def path(n): return os.path.join(d, n)
    fd = os.open(path("a.bin"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for _ in range(10):
        assert os.write(fd, b"a" * 1000) == 1000
    for _ in range({N_FSYNC}):
        os.fsync(fd)
    for _ in range({N_FDATASYNC}):
        os.fdatasync(fd)
    os.close(fd)
    fd = os.open(path("b.bin"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for i in range(3):
        assert os.pwrite(fd, b"b" * 4096, i * 4096) == 4096
    os.close(fd)
    fd = os.open(path("c.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    assert os.writev(fd, [b"ab" * 50, b"cd" * 100]) == 300
    os.close(fd)
    pid = os.fork()
    if pid == 0:
        fd = os.open(path("d.bin"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, b"d" * 777)
        os._exit(0)
    os.waitpid(pid, 0)
    print(json.dumps({{"sizes": {{n: os.stat(path(n)).st_size
                                 for n in ("a.bin", "b.bin", "c.txt", "d.bin")}}}}))
""")


def _workload(tmp_path: Path) -> list[str]:
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    data = tmp_path / "data"
    data.mkdir()
    return [sys.executable, str(script), str(data)]


def _run_cli(args: list[str], **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(EXAMPLES), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([*TRACEKIT, *args], capture_output=True, text=True, timeout=60,
                          env=env, **kw)


def _name(ev: Syscall) -> str:
    return TABLE.name(ev.syscall_nr)


def test_slow_fsync_from_toml_forwards_exactly_the_sync_calls(tmp_path: Path) -> None:
    out = tmp_path / "slow.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps(_workload(tmp_path))}
        [[stage]]
        kind = "user"
        use = "slow_fsync:SlowFsync"
        [stage.options]
        threshold_ms = 0          # an int in TOML: converted to float
        only_slow = true
        [output]
        format = "jsonl"
        path = "{out}"
    """)
    r = _run_cli(["run", str(cfg)])
    assert r.returncode == 0, r.stderr
    *events, losses = read_events(out)
    assert isinstance(losses, Losses)                 # the run's losses end its output
    names = [_name(e) for e in events if isinstance(e, Syscall)]
    assert len(events) == len(names)                  # only_slow: nothing else passes
    assert names.count("fsync") == N_FSYNC and names.count("fdatasync") == N_FDATASYNC
    assert len(names) == N_FSYNC + N_FDATASYNC
    assert all(e.duration_ns > 0 and e.ret == 0 for e in events)
    # each flagged call was logged by the stage, with its duration
    assert r.stderr.count("tracekit: slow f") == N_FSYNC + N_FDATASYNC, r.stderr


def test_slow_fsync_in_python_flags_exactly_the_calls_over_the_threshold(
        tmp_path: Path) -> None:
    sys.path.insert(0, str(EXAMPLES))
    try:
        from slow_fsync import SlowFsync
    finally:
        sys.path.remove(str(EXAMPLES))
    seen: list[Syscall] = []

    @map_stage(name="tap")
    def tap(batch):
        seen.extend(e for e in batch if isinstance(e, Syscall))
        return batch

    threshold_ms = 0.02
    slow = SlowFsync(threshold_ms=threshold_ms, only_slow=True)

    async def main() -> LiveTrace:
        live = LiveTrace(SessionOptions(command=_workload(tmp_path)), [tap, slow])
        await live.run()
        return live

    live = trio.run(main)
    assert live.returncode == 0
    syncs = [e for e in seen if _name(e) in ("fsync", "fdatasync")]
    assert len(syncs) == N_FSYNC + N_FDATASYNC
    want = [e for e in syncs if e.duration_ns > threshold_ms * 1e6]
    assert slow.slow == want
    # the collector after the stage saw exactly what the stage forwarded
    got = [e for e in live.last_events() if isinstance(e, Syscall)]
    assert got == want
    assert live.result is not None
    st = live.result.stats["slow_fsync"]
    assert st.counters.get("slow", 0) == len(want)
    assert st.dropped == st.events_in - len(want)


def test_bytes_per_file_from_toml_matches_the_files(tmp_path: Path) -> None:
    report = tmp_path / "written.txt"
    argv = _workload(tmp_path)
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps(argv)}
        [[stage]]
        kind = "beautify"
        [[stage]]
        kind = "user"
        use = "bytes_per_file:BytesPerFile"
        [stage.options]
        report = "{report}"
        top = 50
        [output]
        format = "jsonl"
        path = "{tmp_path / 'events.jsonl'}"
    """)
    r = _run_cli(["run", str(cfg)])
    assert r.returncode == 0, r.stderr
    rows = {}
    lines = report.read_text().splitlines()
    assert lines[0].split() == ["bytes", "calls", "file"]
    for line in lines[1:]:
        n, calls, path = line.split(None, 2)
        rows[path] = (int(n), int(calls))
    data = Path(argv[2])
    want_calls = {"a.bin": 10, "b.bin": 3, "c.txt": 1, "d.bin": 1}
    # the workload printed what it measured with os.stat; its stdout is a pipe
    sizes = json.loads(r.stdout)["sizes"]
    for name, calls in want_calls.items():
        assert rows[str(data / name)] == (sizes[name], calls), (name, rows)
    assert sizes == {"a.bin": 10_000, "b.bin": 12_288, "c.txt": 300, "d.bin": 777}


def test_user_stage_option_errors_name_the_stage(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [[stage]]
        kind = "user"
        use = "slow_fsync:SlowFsync"
        [stage.options]
        threshold_ms = "fast"
    """)
    r = _run_cli(["check", str(cfg)])
    assert r.returncode == 2, r.stderr
    assert "stage[0] slow_fsync:SlowFsync: bad options: option threshold_ms" in r.stderr
    cfg.write_text(cfg.read_text().replace('"fast"', "-1.5"))
    r = _run_cli(["check", str(cfg)])
    assert r.returncode == 2, r.stderr
    assert "stage slow_fsync: threshold_ms must be >= 0, got -1.5" in r.stderr


def _readme_stage_block() -> str:
    text = (EXAMPLES.parent / "README.md").read_text()
    blocks = [b for b in re.findall(r"```py\n(.*?)```", text, re.S) if "class SlowCalls" in b]
    assert len(blocks) == 1, "README: the Stage protocol's complete user stage"
    return blocks[0]


def test_readme_user_stage_runs_as_written(tmp_path: Path) -> None:
    """The README's complete stage, run as a script on a command with a 60 ms sleep and
    many fast calls: only the calls over 10 ms come out, the sleep among them."""
    script = tmp_path / "slow_calls.py"
    script.write_text(_readme_stage_block())
    work = "import os, time\nfor _ in range(2000): os.getppid()\ntime.sleep(0.06)\n"
    r = subprocess.run([sys.executable, str(script), sys.executable, "-c", work],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert events and all(e["type"] == "syscall" and e["duration_ns"] > 10_000_000
                          for e in events)
    names = [TABLE.name(e["syscall_nr"]) for e in events]
    assert "clock_nanosleep" in names and "getppid" not in names
    sleeps = [e for e in events if TABLE.name(e["syscall_nr"]) == "clock_nanosleep"]
    # time.sleep sleeps to an absolute deadline read before the call (TIMER_ABSTIME), so
    # the call itself lasts 60 ms less the time it took to enter: under load, a little
    # under 60 ms (seen in CI)
    assert any(e["duration_ns"] >= 50_000_000 for e in sleeps), sleeps
    assert f"slow calls: {len(events)}" in r.stderr
