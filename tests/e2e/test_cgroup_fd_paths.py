"""fd decorations of a cgroup target (``-G``) against a ``-p`` target on the same workload.

A process in a cgroup the test makes (under its own cgroup v2, unique name, removed at
the end) opens a file, waits until both tracers are live, then forks children that open
a relative path (``AT_FDCWD``) and seek on the inherited fd, and exit at once. Both
traces run at the same time on the one workload; a user stage that sleeps on each batch
makes the lines be decoded after the children have exited, as in a busy trace, so /proc
no longer has them and what they print can only come from their parent's fd table and
working directory, copied at each fork. ``-p`` follows the forks through the pids map;
``-G`` must give the same lines.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests._run import SLEEPY_PY, TRACEKIT, tracekit_env, write_pipeline
from tracekit.kernel.cgroup import cgroup2_mounts

pytestmark = pytest.mark.kernel

CHILDREN = 3

WORKLOAD_PY = textwrap.dedent("""
    import os, sys, time
    go = sys.argv[1]
    fd = os.open("inherited.txt", os.O_RDONLY)
    while not os.path.exists(go):
        os.getuid()             # the marker the test waits for: the traces are live
        time.sleep(0.01)
    for _ in range(int(sys.argv[2])):
        pid = os.fork()
        if pid == 0:
            os.close(os.open("rel.txt", os.O_RDONLY))
            os.lseek(fd, 0, os.SEEK_SET)
            os._exit(0)
        os.waitpid(pid, 0)
""")


def _own_cgroup2() -> Path:
    """This process's cgroup v2 directory (skips when there is no cgroup2 mount)."""
    mounts = cgroup2_mounts()
    if not mounts:
        pytest.skip("no cgroup2 mount here")
    point, root = mounts[0]
    own = next((line.split(":", 2)[2].strip() for line in
                Path("/proc/self/cgroup").read_text().splitlines()
                if line.startswith("0::")), None)
    if own is None:
        pytest.skip("this process is in no cgroup v2 (no 0:: line in /proc/self/cgroup)")
    rel = os.path.relpath(own, root)
    return Path(point) / ("" if rel == "." else rel)


def _lines(text: str, pid: int) -> dict[int, list[str]]:
    """The openat and lseek lines of each process but ``pid`` (the children), keyed by
    pid, without their pid, time and duration."""
    out: dict[int, list[str]] = {}
    for line in text.splitlines():
        m = re.match(r"(\d+)\s+(?:[\d:.]+\s+)?(openat|lseek)\((.*?)(?:\s+<[\d.]+>)?$", line)
        if m and int(m[1]) != pid:
            out.setdefault(int(m[1]), []).append(f"{m[2]}({m[3]}")
    return out


def test_cgroup_children_get_their_parents_fd_table_and_cwd(tmp_path: Path) -> None:
    base = _own_cgroup2()
    cg = base / f"tracekit-cgcwd-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    work = tmp_path / "work"
    work.mkdir()
    (work / "inherited.txt").write_text("x")
    (work / "rel.txt").write_text("y")
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD_PY)
    (tmp_path / "tk_cgcwd_sleepy.py").write_text(SLEEPY_PY)
    go = tmp_path / "go"
    outs = {"cgroup": tmp_path / "cgroup.txt", "pid": tmp_path / "pid.txt"}
    workload: subprocess.Popen[bytes] | None = None
    tracers: dict[str, subprocess.Popen[str]] = {}
    try:
        try:
            cg.mkdir()
        except OSError as e:
            pytest.skip(f"cannot create a cgroup under {base}: {e}")
        workload = subprocess.Popen(
            [sys.executable, "-S", str(script), str(go), str(CHILDREN)], cwd=work)
        (cg / "cgroup.procs").write_text(str(workload.pid))
        for kind, out in outs.items():
            cfg = write_pipeline(tmp_path, f"""
                [target]
                command = ["true"]
                [filter]
                syscalls = ["openat", "lseek", "getuid"]
                [[stage]]
                kind = "user"
                use = "tk_cgcwd_sleepy:Sleepy"
                options = {{ sleep_s = 0.3 }}
                [output]
                format = "strace"
                path = {json.dumps(str(out))}
                """, name=f"{kind}.toml")
            target = ["-G", str(cg)] if kind == "cgroup" else ["-p", str(workload.pid)]
            tracers[kind] = subprocess.Popen(
                [*TRACEKIT, "run", str(cfg), *target], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                env=tracekit_env(PYTHONPATH=str(tmp_path)))
        deadline = time.monotonic() + 30
        while not all(o.exists() and "getuid(" in o.read_text() for o in outs.values()):
            for tk in tracers.values():
                assert tk.poll() is None, tk.communicate()
            assert time.monotonic() < deadline, "a tracer traced nothing of the workload"
            time.sleep(0.02)
        go.touch()
        assert workload.wait(timeout=30) == 0
        cg.rmdir()                  # the cgroup is gone: its trace ends by itself
        for tk in tracers.values():
            _, err = tk.communicate(timeout=60)
            assert tk.returncode == 0, err
    finally:
        if workload is not None and workload.poll() is None:
            workload.kill()
            workload.wait()
        for tk in tracers.values():
            if tk.poll() is None:
                tk.kill()
                tk.wait()
        if cg.exists():
            cg.rmdir()
    assert workload is not None
    by_pid = _lines(outs["pid"].read_text(), workload.pid)
    by_cgroup = _lines(outs["cgroup"].read_text(), workload.pid)
    real = os.path.realpath(work)
    want = [f'openat(AT_FDCWD<{real}>, "rel.txt", O_RDONLY|O_CLOEXEC) = 4<{real}/rel.txt>',
            f"lseek(3<{real}/inherited.txt>, 0, SEEK_SET) = 0"]
    assert sorted(by_pid) == sorted(by_cgroup) and len(by_pid) == CHILDREN, (by_pid, by_cgroup)
    for child in by_pid:
        assert by_pid[child] == want, by_pid[child]
        assert by_cgroup[child] == want, by_cgroup[child]
