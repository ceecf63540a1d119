"""End to end: ``tracekit run pipeline.toml`` on real workloads, real kernel.

Each test traces processes it starts itself, so tests can run side by side (-n 2).
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import (
    TRACEKIT,
    WORKLOADS,
    die_with_parent,
    prog_ids_of,
    read_events,
    run_tracekit,
    until_orphaned,
    wait_gone,
    write_pipeline,
)
from tracekit._events import Exit, Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()
NR = {name: TABLE.nr(name) for name in ("getppid", "openat", "read", "close", "exit_group")}

JSONL = """
    [target]
    command = ["true"]
    [output]
    format = "jsonl"
"""


def _syscalls(events: list) -> list[Syscall]:
    return [e for e in events if isinstance(e, Syscall)]


def _last_before(calls: list[Syscall], end: int, name: str, *, arg0: int | None = None,
                 ret: int | None = None) -> int:
    """Index of the last call ``name`` before ``end`` with the given first arg / return."""
    return max(i for i in range(end) if calls[i].syscall_nr == NR[name]
               and (arg0 is None or calls[i].args[0] == arg0)
               and (ret is None or calls[i].ret == ret))


def test_known_sequence_exact_per_task(tmp_path: Path) -> None:
    n = 37
    data = tmp_path / "data.txt"
    data.write_text("hello\n")
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, JSONL)
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", sys.executable,
                      str(WORKLOADS / "known_seq.py"), str(n), str(data)])
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    events = read_events(out)
    calls = _syscalls(events)
    assert calls, "no syscalls traced"
    workload_tgids = {report["main"][0], report["child"][0]}
    # Nothing from any other process.
    assert {c.tgid for c in calls} <= workload_tgids
    # The first record of the command is its execve (rule 2: traced from exec on).
    assert TABLE.name(calls[0].syscall_nr) == "execve" and calls[0].ret == 0
    for role, (tid, fd) in report.items():
        mine = [c for c in calls if c.tid == tid]
        by_name = collections.Counter(TABLE.name(c.syscall_nr) for c in mine)
        assert by_name["getppid"] == n, (role, by_name)
        if role == "child":  # the child's parent is the workload's main process
            assert {c.ret for c in mine if c.syscall_nr == NR["getppid"]} == {report["main"][0]}
        # open -> read -> close of the same fd, in that order, just before the getppid run
        # (Python's own start-up opens and reads files with the same fd number earlier).
        i_first = next(i for i, c in enumerate(mine) if c.syscall_nr == NR["getppid"])
        i_close = _last_before(mine, i_first, "close", arg0=fd)
        i_read = _last_before(mine, i_close, "read", arg0=fd)
        i_open = _last_before(mine, i_read, "openat", ret=fd)
        assert mine[i_close].ret == 0
        assert mine[i_read].ret == len("hello\n")
        assert i_open < i_read < i_close
    # Durations and timestamps are sane: entry times increase per task.
    for tid in {c.tid for c in calls}:
        ts = [c.ts_ns for c in calls if c.tid == tid and not c.resumed]
        assert ts == sorted(ts)
    # The workload's exit_group is there, marked as never returning.
    eg = [c for c in calls if c.syscall_nr == NR["exit_group"]]
    assert {c.tgid for c in eg} == workload_tgids and all(c.noreturn for c in eg)
    exits = [e for e in events if isinstance(e, Exit)]
    assert {e.tid for e in exits} >= {report["main"][0], report["child"][0]}


def test_syscall_filter_in_kernel(tmp_path: Path) -> None:
    n = 25
    data = tmp_path / "d"
    data.write_text("x")
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, JSONL + '[filter]\nsyscalls = ["getppid"]\n')
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", sys.executable,
                      str(WORKLOADS / "known_seq.py"), str(n), str(data)])
    assert r.returncode == 0, r.stderr
    calls = _syscalls(read_events(out))
    assert {TABLE.name(c.syscall_nr) for c in calls} == {"getppid"}
    assert len(calls) == 3 * n


def test_exit_status_passthrough(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, JSONL)
    r = run_tracekit(["run", str(cfg), "-o", str(tmp_path / "o"), "--", "sh", "-c", "exit 7"])
    assert r.returncode == 7, r.stderr
    r = run_tracekit(["run", str(cfg), "-o", str(tmp_path / "o"), "--",
                      "sh", "-c", "kill -TERM $$"])
    assert r.returncode == 128 + signal.SIGTERM, r.stderr


def test_perf_text_output(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["cat", "/nonexistent-tracekit-path"]
    """)
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 1  # cat's own status
    lines = r.stdout.splitlines()
    assert any(" execve(" in ln for ln in lines), r.stdout[:2000]
    failed = [ln for ln in lines if " openat(" in ln and "ENOENT" in ln]
    assert failed and failed[-1].endswith("= -1 ENOENT (No such file or directory)"), failed


def test_command_not_found_is_clear(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, JSONL)
    r = run_tracekit(["run", str(cfg), "--", "tracekit-no-such-command-xyz"])
    assert r.returncode == 1
    assert "command not found" in r.stderr and "Traceback" not in r.stderr


def test_bad_toml_gives_line_and_column(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, '[target]\ncommand = ["true"\n')
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 2
    assert f"{cfg}:" in r.stderr and "Traceback" not in r.stderr
    line_col = r.stderr.split(f"{cfg}:", 1)[1].split(":")[:2]
    assert all(part.strip().isdigit() for part in line_col), r.stderr


def _wait_for_prog_ids(pid: int, timeout: float = 20) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ids = prog_ids_of(pid)
        if len(ids) >= 5:
            return ids
        time.sleep(0.05)
    raise AssertionError(f"tracekit pid {pid} never held its progs")


def test_sigint_leaves_no_prog_behind(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, JSONL)
    proc = subprocess.Popen([*TRACEKIT, "run", str(cfg), "-o", str(tmp_path / "o"), "--",
                             "sleep", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ids = _wait_for_prog_ids(proc.pid)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGINT, err  # sleep was killed by the SIGINT
    for prog_id in ids:
        wait_gone("prog", prog_id)


def _perf_count_true() -> int:
    """raw_syscalls:sys_enter events of one /bin/true run, counted by perf stat."""
    r = subprocess.run(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stderr.splitlines() if "raw_syscalls:sys_enter" in ln)
    return int(line.split(",")[0])


def test_coexists_with_perf_counting_the_same_tracepoint(tmp_path: Path) -> None:
    """Rule 1: while tracekit traces (system-wide), perf counts exactly what it counts alone."""
    baseline = {_perf_count_true() for _ in range(3)}
    assert len(baseline) == 1, f"/bin/true is not deterministic here: {baseline}"
    cfg = write_pipeline(tmp_path, """
        [target]
        system_wide = true
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "jsonl"
    """)
    proc = subprocess.Popen([*TRACEKIT, "run", str(cfg), "-o", str(tmp_path / "o")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for_prog_ids(proc.pid)
        during = {_perf_count_true() for _ in range(3)}
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert during == baseline


def test_two_sessions_each_see_all_their_own(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, JSONL + '[filter]\nsyscalls = ["getppid"]\n')
    data = tmp_path / "d"
    data.write_text("x")
    procs = []
    for i, n in enumerate((40, 60)):
        out = tmp_path / f"out{i}.jsonl"
        procs.append((n, out, subprocess.Popen(
            [*TRACEKIT, "run", str(cfg), "-o", str(out), "--", sys.executable,
             str(WORKLOADS / "known_seq.py"), str(n), str(data)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for n, out, p in procs:
        stdout, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        report = json.loads(stdout.strip().splitlines()[-1])
        calls = _syscalls(read_events(out))
        assert len(calls) == 3 * n
        assert {c.tid for c in calls} == {v[0] for v in report.values()}


def _wait_for_events(path: Path, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 0:
            return
        time.sleep(0.02)
    raise AssertionError(f"tracekit wrote no events to {path} in {timeout} s")


def test_pid_target_traces_every_thread_and_ends_with_the_process(tmp_path: Path) -> None:
    n, nthreads = 50, 4
    go = tmp_path / "go"
    work = subprocess.Popen([sys.executable, str(WORKLOADS / "threads_wait.py"), str(n),
                             str(nthreads), str(go)], stdout=subprocess.PIPE, text=True)
    try:
        tids = json.loads(work.stdout.readline())
        out = tmp_path / "out.jsonl"
        cfg = write_pipeline(tmp_path, """
            [target]
            pid = [1]
            [output]
            format = "jsonl"
        """)
        tk = subprocess.Popen([*TRACEKIT, "run", str(cfg), "-o", str(out), "-p", str(work.pid)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for_events(out)  # the idle threads' sleeps show that tracing is live
        go.touch()
        work.wait(timeout=30)
        _, err = tk.communicate(timeout=30)  # ends by itself: its target is gone
    finally:
        work.kill()
        work.stdout.close()
    assert tk.returncode == 0, err
    calls = _syscalls(read_events(out))
    assert {c.tgid for c in calls} == {work.pid}
    per_tid = collections.Counter(c.tid for c in calls if c.syscall_nr == NR["getppid"])
    assert per_tid == {tid: n for tid in tids[1:]}


def test_timeout_ends_a_session_and_its_command(tmp_path: Path) -> None:
    """Like timeout(1): at the end of timeout_s the command gets SIGTERM."""
    cfg = write_pipeline(tmp_path, "timeout_s = 0.5\n" + JSONL)
    t0 = time.monotonic()
    r = run_tracekit(["run", str(cfg), "-o", str(tmp_path / "o"), "--", "sleep", "20"])
    assert time.monotonic() - t0 < 10
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    calls = _syscalls(read_events(tmp_path / "o"))
    assert TABLE.name(calls[0].syscall_nr) == "execve"
    # SIGTERM interrupts clock_nanosleep, which returns -ERESTART_RESTARTBLOCK (516) at
    # sys_exit; the task then dies delivering the signal (strace shows the same).
    last = [c for c in calls if TABLE.name(c.syscall_nr) == "clock_nanosleep"][-1]
    assert last.ret == -516 and last.duration_ns >= 400_000_000


def test_timeout_kills_a_command_that_ignores_sigterm(tmp_path: Path) -> None:
    """A command that ignores SIGTERM gets SIGKILL 2 s after it (timeout -k 2): the trace
    ends with 137 instead of waiting for ever (it hung before)."""
    cfg = write_pipeline(tmp_path, "timeout_s = 0.5\n" + JSONL)
    ignore = ("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              + until_orphaned("time.sleep(0.01)"))
    r = run_tracekit(["run", str(cfg), "-o", str(tmp_path / "o"), "--",
                      sys.executable, "-c", ignore], timeout=30)
    assert r.returncode == 128 + signal.SIGKILL, r.stderr
    assert "Traceback" not in r.stderr
    exits = [e for e in read_events(tmp_path / "o") if isinstance(e, Exit)]
    assert exits, "the command's exit reached the trace"


def test_missing_pid_is_a_clear_error(tmp_path: Path) -> None:
    cfg = write_pipeline(tmp_path, JSONL)
    dead = subprocess.Popen(["true"])
    dead.wait()
    r = run_tracekit(["run", str(cfg), "-p", str(dead.pid)])
    assert r.returncode == 1
    assert f"no such pid: {dead.pid}" in r.stderr and "Traceback" not in r.stderr


def _kill_group(pid: int, *, group: bool = True) -> None:
    try:
        os.killpg(pid, signal.SIGKILL) if group else os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, ValueError):
        pass


def test_closed_stdout_ends_a_command_session_with_141(tmp_path: Path) -> None:
    """`tracekit run -- cmd | head -3`: tracekit ends at once (the command goes on
    untraced, as under strace when strace dies of SIGPIPE)."""
    pidfile = tmp_path / "pid"
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
    """)
    # the command writes its pid, then calls getppid until tracekit (its parent) is gone
    loop = f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n" + \
        until_orphaned("time.sleep(0.001)")
    errfile = tmp_path / "stderr"
    with errfile.open("wb") as errf:  # the command inherits it: no pipe to wait on
        # a session of its own: the command shares tracekit's group, which the end kills
        # (a pidfile not yet written left the loop running for ever)
        tk = subprocess.Popen([*TRACEKIT, "run", str(cfg), "--", sys.executable, "-c",
                               "import os\n" + loop],
                              stdout=subprocess.PIPE, stderr=errf, start_new_session=True,
                              preexec_fn=die_with_parent)
    try:
        assert tk.stdout is not None
        head = [tk.stdout.readline() for _ in range(3)]
        tk.stdout.close()                      # the reader goes away
        tk.wait(timeout=20)
        err = errfile.read_bytes()
    finally:
        tk.kill()
        _kill_group(tk.pid)
        if pidfile.exists() and pidfile.read_text().strip():    # not "": written
            _kill_group(int(pidfile.read_text()), group=False)
    assert all(b" ms): " in line for line in head), head
    assert tk.returncode == 128 + signal.SIGPIPE, err
    assert b"Traceback" not in err


def test_summary_into_a_fifo_or_device_writes_in_place(tmp_path: Path) -> None:
    """An atomic summary replaces only regular files: a fifo or a device node (the test's
    own, never the real /dev/null) is written into and stays what it was."""
    import stat
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    dev = tmp_path / "null"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    for target in (fifo, dev):
        cfg = write_pipeline(tmp_path, f"""
            [target]
            command = ["true"]
            [output]
            format = "summary"
            path = "{target}"
        """)
        r = run_tracekit(["run", str(cfg)])
        assert r.returncode == 0, r.stderr
    reader.join(timeout=20)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISCHR(os.lstat(dev).st_mode)
    assert b"syscall" in got[0]
