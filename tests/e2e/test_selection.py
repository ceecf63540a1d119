"""The selection options end to end on real workloads: ``-e trace=/status=/signal=/errno=``,
``-z``, ``-Z`` and ``-P`` against strace 6.1 given the same options, call for call; ``-G``
on a real cgroup v2 the test creates under its own cgroup, with a workload moved into it
and one outside it.

Each test traces only processes it starts (-n 2 safe). strace runs with ``-f -qq``, and
tracekit prints its strace format without fd paths, so the lines compare whole after
normalising pids, addresses and times.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests._run import TRACEKIT, read_events, run_tracekit, tracekit_env, write_pipeline
from tests.e2e._strace_lines import norm_line, parse, pid_normaliser
from tracekit._events import Exit, Losses, Signal, Syscall
from tracekit.kernel.cgroup import cgroup2_mounts
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel
needs_strace = pytest.mark.skipif(shutil.which("strace") is None,
                                  reason="strace is not installed")
TABLE = SyscallTable()


def _lines(text: str, *, events: bool = False) -> list[list[str]]:
    """Each process's normalised lines, processes sorted (pids differ between runs)."""
    calls = parse(text, events=events)
    pids = pid_normaliser(set(calls))
    return sorted([norm_line(c.line, pids) for c in cs] for cs in calls.values())


def run_both(tmp: Path, argv: list[str], options: list[str], *,
             strace_options: list[str] | None = None) -> tuple[str, str]:
    """strace and tracekit (strace format, fd paths off) on ``argv`` with ``options``."""
    s_out, t_out = tmp / "strace.txt", tmp / "tracekit.txt"
    subprocess.run(["strace", "-f", "-qq", "-o", str(s_out),
                    *(options if strace_options is None else strace_options), "--", *argv],
                   capture_output=True, timeout=60, cwd=tmp)
    cfg = write_pipeline(tmp, f"""
        [target]
        command = ["true"]
        [output]
        format = "strace"
        fd_paths = false
        path = {json.dumps(str(t_out))}
        """)
    r = subprocess.run([*TRACEKIT, "run", str(cfg), *options, "--", *argv],
                       capture_output=True, text=True, timeout=60, env=tracekit_env(), cwd=tmp)
    assert "error" not in r.stderr, r.stderr
    return s_out.read_text(), t_out.read_text()


# cat: a missing file (ENOENT), a file read whole, a directory (EISDIR on read)
def _cat(tmp: Path) -> list[str]:
    (tmp / "data.txt").write_text("hello\n")
    return ["cat", str(tmp / "missing"), str(tmp / "data.txt"), str(tmp)]


@needs_strace
@pytest.mark.parametrize("options", [
    ["-Z"],
    ["-z", "-e", "trace=openat,read,close"],
    ["-e", "trace=%file", "-e", "status=failed"],
    ["-e", "status=unfinished"],
    ["-e", "trace=!%memory,%signal,getrandom"],   # strace reads getrandom's bytes
    ["-e", "trace=openat", "-e", "trace=read,close"],   # the later trace= replaces
    ["-e", "trace=/^(read|write)$", "-e", "status=!successful"],
], ids=lambda o: " ".join(o))
def test_trace_and_status_as_strace(tmp_path: Path, options: list[str]) -> None:
    s_text, t_text = run_both(tmp_path, _cat(tmp_path), options)
    s_lines, t_lines = _lines(s_text), _lines(t_text)
    assert sum(map(len, s_lines)) >= 1
    assert t_lines == s_lines


@needs_strace
def test_status_unfinished_is_what_never_returned(tmp_path: Path) -> None:
    s_text, t_text = run_both(tmp_path, _cat(tmp_path), ["-e", "status=unfinished"])
    assert _lines(t_text) == _lines(s_text) == [["exit_group(1) = ?"]]


@needs_strace
def test_errno_selects_the_failed_calls_with_that_errno(tmp_path: Path) -> None:
    # strace has no errno filter: its -Z lines that failed with ENOENT are the reference
    s_text, t_text = run_both(tmp_path, _cat(tmp_path), ["-e", "errno=ENOENT,EISDIR"],
                              strace_options=["-Z"])
    want = [[ln for ln in proc if " ENOENT (" in ln or " EISDIR (" in ln]
            for proc in _lines(s_text)]
    assert any(" EISDIR (" in ln for proc in want for ln in proc)
    assert _lines(t_text) == want


def test_errno_with_status_adds_the_successful_calls(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["true"]
        [filter]
        syscalls = ["openat", "read"]
        errno = ["ENOENT"]
        status = ["successful", "failed"]
        [output]
        format = "jsonl"
        path = {json.dumps(str(out))}
        """)
    r = run_tracekit(["run", str(cfg), "--", *_cat(tmp_path)])
    assert r.returncode == 1, r.stderr               # cat's status: a file was missing
    calls = [e for e in read_events(out) if isinstance(e, Syscall)]
    rets = {e.ret for e in calls}
    assert -2 in rets and any(r >= 0 for r in rets)  # ENOENT failures and successes ...
    assert all(r >= 0 or r == -2 for r in rets)      # ... and no EISDIR (-21)


SIGNALS_PY = textwrap.dedent("""
    import os, signal
    for s in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(s, lambda *a: None)
    for s in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGUSR1):
        os.kill(os.getpid(), s)
""")


@needs_strace
@pytest.mark.parametrize("expr", ["signal=SIGUSR1", "signal=!USR1,SIGALRM", "signal=none",
                                  "signal=12,14"])
def test_signal_selection_as_strace(tmp_path: Path, expr: str) -> None:
    script = tmp_path / "signals.py"
    script.write_text(SIGNALS_PY)
    s_text, t_text = run_both(tmp_path, [sys.executable, "-S", str(script)],
                              ["-e", "trace=none", "-e", expr])
    s_lines, t_lines = ([got for p in _lines(text, events=True)
                         if (got := [ln for ln in p if ln.startswith("---")])]
                        for text in (s_text, t_text))
    assert t_lines == s_lines
    if expr != "signal=none":
        assert sum(map(len, s_lines)) >= 1


def test_signal_selection_makes_no_record(tmp_path: Path) -> None:
    script = tmp_path / "signals.py"
    script.write_text(SIGNALS_PY)
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["true"]
        [filter]
        syscalls = ["kill"]
        signal = ["SIGUSR1", "SIGALRM"]
        [output]
        format = "jsonl"
        path = {json.dumps(str(out))}
        """)
    r = run_tracekit(["run", str(cfg), "--", sys.executable, "-S", str(script)])
    assert r.returncode == 0, r.stderr
    events = read_events(out)
    assert [e.sig for e in events if isinstance(e, Signal)] == [10, 14, 10]
    assert [e.args[1] for e in events if isinstance(e, Syscall)] == [10, 12, 14, 10]


PATHS_PY = textwrap.dedent("""
    import os, subprocess, sys
    path, other = sys.argv[1], sys.argv[2]
    fd = os.open(path, os.O_RDONLY)
    os.read(fd, 3)
    fd2 = os.dup(fd)
    os.dup2(fd2, 9)
    os.read(9, 2)
    os.close(fd)
    os.fstat(fd2)
    os.close(fd2)
    o = os.open(other, os.O_RDONLY)
    os.read(o, 1)
    os.close(o)
    os.stat(path)
    os.stat(other)
    os.lseek(9, 0, 0)
    subprocess.run(["cat"], stdin=9, stdout=subprocess.DEVNULL, check=True)
    os.close(9)
""")


@needs_strace
@pytest.mark.parametrize("link", [False, True], ids=["path", "symlink"])
def test_path_as_strace(tmp_path: Path, link: bool) -> None:
    data, other = tmp_path / "data.txt", tmp_path / "other.txt"
    data.write_text("hello, world\n")
    other.write_text("x\n")
    script = tmp_path / "paths.py"
    script.write_text(PATHS_PY)
    given = data
    if link:                      # -P through a symlink: its target matches too (strace)
        given = tmp_path / "link"
        given.symlink_to(data)
    s_text, t_text = run_both(tmp_path, [sys.executable, "-S", str(script), str(data),
                                         str(other)], ["-P", str(given)])
    s_lines, t_lines = _lines(s_text), _lines(t_text)
    # the parent's open/read/dup/dup2/read/close/fstat/close/stat/lseek/.../close, and
    # cat's calls on its stdin (fd 9 dup'd to 0 in the child before exec)
    assert len(s_lines) >= 2 and sum(map(len, s_lines)) >= 12
    assert t_lines == s_lines


def test_path_follows_an_fd_across_a_rename(tmp_path: Path) -> None:
    """strace re-reads /proc and stops matching a renamed file's fd; tracekit keeps the
    name the fd was opened by."""
    data = tmp_path / "data.txt"
    data.write_text("hello\n")
    moved = tmp_path / "moved.txt"
    script = tmp_path / "rename.py"
    script.write_text(textwrap.dedent(f"""
        import os
        fd = os.open({str(data)!r}, os.O_RDONLY)
        os.rename({str(data)!r}, {str(moved)!r})
        os.read(fd, 1)
        os.close(fd)
        os.stat({str(moved)!r})
    """))
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["true"]
        [output]
        format = "jsonl"
        path = {json.dumps(str(out))}
        """)
    r = run_tracekit(["run", str(cfg), "-P", str(data), "--", sys.executable, "-S",
                      str(script)])
    assert r.returncode == 0, r.stderr
    names = [TABLE.name(e.syscall_nr) for e in read_events(out) if isinstance(e, Syscall)]
    assert names == ["openat", "rename", "read", "close"]
    # the calls -P leaves out were asked to be left out: no loss line says they dropped
    assert r.stderr == "", r.stderr
    (losses,) = [e for e in read_events(out) if isinstance(e, Losses)]
    assert losses.dropped == {}


# -- cgroup target ---------------------------------------------------------------------

WORKER_PY = textwrap.dedent("""
    import os, sys, time
    go, n, child_n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    while not os.path.exists(go):
        time.sleep(0.005)
    for _ in range(n):
        os.getppid()
    if child_n:
        pid = os.fork()
        if pid == 0:
            for _ in range(child_n):
                os.getppid()
            os._exit(0)
        os.waitpid(pid, 0)
""")

PROBE_PY = textwrap.dedent("""
    import os, sys, time
    while not os.path.exists(sys.argv[1]):
        os.getuid()
        time.sleep(0.01)
""")


def _own_cgroup2() -> Path:
    mounts = cgroup2_mounts()
    if not mounts:
        pytest.skip("no cgroup2 mount here")
    point, root = mounts[0]
    own = next(line.split(":", 2)[2].strip() for line in
               Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::"))
    rel = os.path.relpath(own, root)
    return Path(point) / ("" if rel == "." else rel)


def _move(pid: int, cgroup: Path) -> None:
    (cgroup / "cgroup.procs").write_text(str(pid))


def test_cgroup_target_traces_the_cgroup_and_its_descendants_only(tmp_path: Path) -> None:
    base = _own_cgroup2()
    cg = base / f"tracekit-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    sub = cg / "sub"
    go, stop = tmp_path / "go", tmp_path / "stop"
    worker, probe = tmp_path / "worker.py", tmp_path / "probe.py"
    worker.write_text(WORKER_PY)
    probe.write_text(PROBE_PY)
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid", "getuid"]
        [output]
        format = "jsonl"
        """)
    procs: list[subprocess.Popen] = []
    tk = None
    try:
        try:
            cg.mkdir()
            sub.mkdir()
        except OSError as e:
            pytest.skip(f"cannot create a cgroup under {base}: {e}")

        def start(script: Path, *args: str, where: Path | None) -> subprocess.Popen:
            p = subprocess.Popen([sys.executable, "-S", str(script), *args])
            procs.append(p)
            if where is not None:
                _move(p.pid, where)
            return p

        inside = start(worker, str(go), "7", "3", where=cg)        # and its child: 3
        nested = start(worker, str(go), "4", "0", where=sub)       # a descendant cgroup
        outside = start(worker, str(go), "5", "2", where=None)     # not traced
        start(probe, str(stop), where=cg)
        tk = subprocess.Popen([*TRACEKIT, "run", str(cfg), "-G", str(cg), "-o", str(out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=tracekit_env())
        deadline = time.monotonic() + 30
        # tracing is live once the probe's getuid calls arrive
        while not (out.exists() and b"\n" in out.read_bytes()):
            assert tk.poll() is None, tk.communicate()
            assert time.monotonic() < deadline, "tracekit traced nothing of the cgroup"
            time.sleep(0.02)
        go.touch()
        for p in (inside, nested, outside):
            assert p.wait(timeout=30) == 0
        stop.touch()
        for p in procs:
            p.wait(timeout=30)
        sub.rmdir()
        cg.rmdir()                  # the cgroup is gone: the trace ends by itself
        _, err = tk.communicate(timeout=30)
        assert tk.returncode == 0, err
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if tk is not None and tk.poll() is None:
            tk.kill()
            tk.wait()
        for d in (sub, cg):
            if d.exists():
                d.rmdir()
    calls = [e for e in read_events(out) if isinstance(e, Syscall)]
    getppid = TABLE.nr("getppid")
    per_tgid: dict[int, int] = {}
    for e in calls:
        if e.syscall_nr == getppid:
            per_tgid[e.tgid] = per_tgid.get(e.tgid, 0) + 1
    assert inside.pid in per_tgid and nested.pid in per_tgid
    assert outside.pid not in per_tgid
    children = {t: n for t, n in per_tgid.items() if t not in (inside.pid, nested.pid)}
    assert (per_tgid[inside.pid], per_tgid[nested.pid], sorted(children.values())) == (7, 4, [3])
    # no record at all of the task outside (exec and exit records are filtered too)
    events = read_events(out)
    tgids = {getattr(e, "tgid", None) or getattr(e, "tid", None) for e in events}
    assert outside.pid not in tgids and os.getpid() not in tgids
    assert {inside.pid, nested.pid} <= {e.tgid for e in events if isinstance(e, Exit)}

