"""Every option of ``tracekit run`` end to end on real workloads, without a pipeline file
(or with one the options override), checking the exact calls traced.

Workloads (tests/workloads): ``known_seq.py N PATH`` (three tasks, a main thread, a second
thread and a forked child, each open PATH, read, close, then call getppid exactly N
times) and ``threads_wait.py N NTHREADS GO`` (threads that idle until GO exists, then call
getppid exactly N times). Each test traces only processes it starts, or (``-a``) looks
only at its own process among everything the machine does: -n 2 safe. Nothing here
assumes a session id, a terminal or a user: the calls checked are the workloads' own.

The selection options (-e, -z, -Z, -P, -G) are compared call for call with strace in
tests/e2e/test_selection.py; here they run without a file.
"""

from __future__ import annotations

import collections
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from tests._run import TRACEKIT, WORKLOADS, read_events, run_tracekit, tracekit_env, wait_until
from tracekit._events import Event, Syscall
from tracekit.app.config import decode_config, load_config
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()
GETPPID = TABLE.nr("getppid")
N = 7


def _known_seq(tmp: Path) -> list[str]:
    data = tmp / "data.txt"
    data.write_text("hello\n")
    return [sys.executable, str(WORKLOADS / "known_seq.py"), str(N), str(data)]


def _quiet_known_seq(tmp: Path) -> list[str]:
    """known_seq.py with its stdout on /dev/null: where the trace goes to the same pipe, the
    workload's report could land inside a long write of the trace."""
    return [sys.executable, "-c", "import os, runpy, sys; "
            "os.dup2(os.open(os.devnull, os.O_WRONLY), 1); sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')", *_known_seq(tmp)[1:]]


def _calls(events: list[Event], name: str | None = None) -> list[Syscall]:
    return [e for e in events if isinstance(e, Syscall)
            and (name is None or TABLE.name(e.syscall_nr) == name)]


def _report(stdout: str) -> dict[str, list[int]]:
    """known_seq.py's JSON line: role -> [tid, fd]."""
    line = next(ln for ln in stdout.splitlines() if ln.startswith("{"))
    return json.loads(line)


def _jsonl_lines(text: str) -> list[Event]:
    dec = msgspec.json.Decoder(Event)
    return [dec.decode(line) for line in text.splitlines() if line.startswith("{\"type\"")]


# --- no pipeline file: defaults, and the target from the command line -----------------

def test_no_pipeline_file_jsonl_to_a_file(tmp_path: Path) -> None:
    """-F jsonl -o FILE -e getppid -- COMMAND: every task's getppid calls, exactly N each."""
    out = tmp_path / "out.jsonl"
    r = run_tracekit(["run", "-F", "jsonl", "-o", str(out), "-e", "getppid", "--",
                      *_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = _report(r.stdout)
    calls = _calls(read_events(out))
    assert {TABLE.name(c.syscall_nr) for c in calls} == {"getppid"}
    per_tid = collections.Counter(c.tid for c in calls)
    assert per_tid == {report[role][0]: N for role in ("main", "thread", "child")}


def test_no_follow_traces_only_the_started_task(tmp_path: Path) -> None:
    """--no-follow: neither the thread nor the forked child that the command creates is
    traced (as strace without -f): only the main thread's N calls."""
    out = tmp_path / "out.jsonl"
    r = run_tracekit(["run", "-F", "jsonl", "-o", str(out), "-e", "getppid", "--no-follow",
                      "--", *_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = _report(r.stdout)
    per_tid = collections.Counter(c.tid for c in _calls(read_events(out)))
    assert per_tid == {report["main"][0]: N}


@pytest.mark.parametrize("path", ["-", "/dev/stdout", "/dev/stderr"])
def test_standard_streams_as_output(tmp_path: Path, path: str) -> None:
    r = run_tracekit(["run", "-F", "jsonl", "-e", "getppid", "-o", path, "--",
                      *_quiet_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    text = r.stderr if path == "/dev/stderr" else r.stdout
    assert len(_calls(_jsonl_lines(text), "getppid")) == 3 * N
    other = r.stdout if path == "/dev/stderr" else r.stderr
    assert '"type":"syscall"' not in other


def test_string_limit_and_format(tmp_path: Path) -> None:
    """-F strace -s 5: write's buffer cut at 5 bytes, as strace -s 5 prints it."""
    r = run_tracekit(["run", "-F", "strace", "-s", "5", "-e", "trace=write", "--",
                      sys.executable, "-c", "import os; os.write(2, b'abcdefghij')"])
    assert r.returncode == 0, r.stderr
    writes = [ln for ln in r.stdout.splitlines() if " write(" in ln]
    # fd 2 is shown with what it refers to (a pipe here): write(2<pipe:[N]>, ...)
    assert len(writes) == 1 and re.search(r'write\(2(<[^>]*>)?, "abcde"\.\.\., 10\) = 10',
                                          writes[0]), r.stdout


def test_min_duration_keeps_only_slow_calls(tmp_path: Path) -> None:
    """--min-duration 40: the three 100 ms sleeps, none of the fast getppid calls."""
    prog = ("import os, time\n"
            "for _ in range(3):\n    time.sleep(0.1)\n    os.getppid()\n")
    out = tmp_path / "out.jsonl"
    r = run_tracekit(["run", "-F", "jsonl", "-o", str(out), "-e",
                      "clock_nanosleep,getppid", "--min-duration", "40", "--",
                      sys.executable, "-c", prog])
    assert r.returncode == 0, r.stderr
    calls = _calls(read_events(out))
    assert [TABLE.name(c.syscall_nr) for c in calls] == ["clock_nanosleep"] * 3
    assert all(c.duration_ns >= 40_000_000 for c in calls)


def test_timeout_ends_the_trace_and_the_command(tmp_path: Path) -> None:
    t0 = time.monotonic()
    r = run_tracekit(["run", "--timeout", "0.5", "-F", "jsonl", "-o", str(tmp_path / "o"),
                      "--", "sleep", "30"])
    assert time.monotonic() - t0 < 20
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    assert _calls(read_events(tmp_path / "o"), "execve")


# --- process, thread and system-wide targets ---------------------------------------------

def _wait_until(check, timeout: float = 20) -> None:  # noqa: ANN001
    wait_until(check, "tracing started", timeout)


def _has_events_of(path: Path, tgid: int) -> bool:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    return f'"tgid":{tgid},'.encode() in data


@pytest.mark.parametrize("target", ["-p", "-t", "-a"])
def test_pid_tid_and_system_wide_targets(tmp_path: Path, target: str) -> None:
    """-p: every thread of the process; -t TID: that thread only; -a: everything, of which
    this test looks only at its own process (its idle threads' sleeps show tracing is on)."""
    n, nthreads = 20, 3
    go = tmp_path / "go"
    work = subprocess.Popen([sys.executable, str(WORKLOADS / "threads_wait.py"), str(n),
                             str(nthreads), str(go)], stdout=subprocess.PIPE, text=True)
    out = tmp_path / "out.jsonl"
    tk = None
    try:
        tids = json.loads(work.stdout.readline())
        chosen = {"-p": [str(work.pid)], "-t": [str(tids[1])], "-a": []}[target]
        tk = subprocess.Popen([*TRACEKIT, "run", target, *chosen, "-F", "jsonl", "-o",
                               str(out), "-e", "getppid,clock_nanosleep", "--timeout", "60"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=tracekit_env())
        _wait_until(lambda: _has_events_of(out, work.pid))
        go.touch()
        work.wait(timeout=30)
        if target == "-a":
            time.sleep(0.2)
            tk.send_signal(signal.SIGINT)    # a system-wide trace ends when told
        _, err = tk.communicate(timeout=30)
    finally:
        work.kill()
        work.stdout.close()
        if tk is not None and tk.returncode is None:
            tk.kill()
            tk.communicate()
    assert tk.returncode == 0, err
    calls = [c for c in _calls(read_events(out), "getppid") if c.tgid == work.pid]
    per_tid = collections.Counter(c.tid for c in calls)
    if target == "-t":
        assert per_tid == {tids[1]: n}
    else:
        assert per_tid == {tid: n for tid in tids[1:]}


def test_tid_target_ends_when_the_thread_exits(tmp_path: Path) -> None:
    """-t TID: the session ends when that thread exits (strace -p TID ends there too),
    not when its process does: here the process lives on for 60 s after the thread."""
    go = tmp_path / "go"
    script = ("import os, sys, threading, time\n"
              "def work():\n"
              f"    while not os.path.exists({str(go)!r}):\n        time.sleep(0.02)\n"
              "    os.getppid()\n"
              "t = threading.Thread(target=work); t.start()\n"
              "print(t.native_id, flush=True); t.join(); time.sleep(60)\n")
    work = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        tid = int(work.stdout.readline())
        out = tmp_path / "out.jsonl"
        tk = subprocess.Popen([*TRACEKIT, "run", "-t", str(tid), "-F", "jsonl", "-o", str(out),
                               "-e", "getppid,clock_nanosleep"], stderr=subprocess.PIPE,
                              text=True, env=tracekit_env())
        _wait_until(lambda: _has_events_of(out, work.pid))
        go.touch()
        _, err = tk.communicate(timeout=30)     # long before the process's 60 s
        assert work.poll() is None              # the process still runs
    finally:
        work.kill()
        work.wait()
        work.stdout.close()
    assert tk.returncode == 0, err
    assert [c.tid for c in _calls(read_events(out), "getppid")] == [tid]


# --- summaries: -c, -C, -S, --group-by, --interval --------------------------------------

_ROW = re.compile(r"^\s{3,}([a-z_0-9]+(?:\(32\))?)\s+(\d+)\s+(\d+)\s+[\d.-]")
_PERF_LINE = re.compile(r"^\s*[\d.?]+ \([ \d.ms]+\): .+?/(\d+) (?:\.\.\. \[continued\]: )?"
                        r"([a-z_0-9]+)\(")


def _summary_rows(text: str) -> list[tuple[str, int, int]]:
    """(syscall, calls, errors) of a perf-style summary table, in table order."""
    return [(m[1], int(m[2]), int(m[3])) for line in text.splitlines()
            if (m := _ROW.match(line))]


def test_summary_only_sorted_by_calls(tmp_path: Path) -> None:
    """-c -S calls --group-by total: one table, rows by calls; getppid exactly 3N."""
    r = run_tracekit(["run", "-c", "-S", "calls", "--group-by", "total", "--",
                      *_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "all traced tasks" in r.stdout and "getppid(" not in r.stdout   # no trace lines
    rows = _summary_rows(r.stdout)
    assert dict((name, calls) for name, calls, _ in rows)["getppid"] == 3 * N
    counts = [calls for _, calls, _ in rows]
    assert counts == sorted(counts, reverse=True)


def test_summary_groups_by_process(tmp_path: Path) -> None:
    r = run_tracekit(["run", "-c", "--group-by", "process", "-e", "getppid", "-F",
                      "summary", "--", *_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = _report(r.stdout)
    # the main thread and the thread are one process (2N calls), the child another (N)
    heads = re.findall(r"^ \S+ \((\d+)\), (\d+) calls", r.stdout, re.M)
    assert sorted(int(calls) for _, calls in heads) == [N, 2 * N]
    assert {int(pid) for pid, _ in heads} == {report["main"][0], report["child"][0]}


@pytest.mark.parametrize("to_file", [False, True])
def test_trace_and_summary_agree_call_for_call(tmp_path: Path, to_file: bool) -> None:
    """-C: the summary counts exactly the calls the trace printed, syscall by syscall
    (errors too); without -o both are on stdout, the summary after the last trace line;
    with -o the trace goes to the file and the summary to stderr."""
    out = tmp_path / "trace.txt"
    args = ["run", "-C", "--group-by", "total", *(["-o", str(out)] if to_file else []),
            "--", *_quiet_known_seq(tmp_path)]
    r = run_tracekit(args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    if to_file:
        trace_text, summary_text = out.read_text(), r.stderr
    else:
        cut = r.stdout.index(" Summary of syscalls:")
        trace_text, summary_text = r.stdout[:cut], r.stdout[cut:]
        assert not _PERF_LINE.search(summary_text)      # nothing of the trace after it
    traced = collections.Counter(m[2] for line in trace_text.splitlines()
                                 if (m := _PERF_LINE.match(line)))
    failed = collections.Counter(m[2] for line in trace_text.splitlines()
                                 if (m := _PERF_LINE.match(line)) and "= -1 E" in line)
    rows = _summary_rows(summary_text)
    assert traced and {name: calls for name, calls, _ in rows} == dict(traced)
    assert {name: errors for name, _, errors in rows if errors} == dict(failed)
    assert traced["getppid"] == 3 * N


@pytest.mark.parametrize("mode", ["-c", "-C"])
def test_interval_reports_add_up_to_the_final_table(tmp_path: Path, mode: str) -> None:
    """--interval: reports while the workload runs (-c: read from the kernel's maps;
    -C: counted from the events), each holding the calls since the previous one; their
    getppid counts add up to the final table's, which is the exact total."""
    prog = ("import os, time\n"
            "for _ in range(4):\n    [os.getppid() for _ in range(50)]\n    time.sleep(0.5)\n")
    r = run_tracekit(["run", mode, "--interval", "0.2", "--group-by", "total", "-e", "getppid",
                      *(["-o", "/dev/null"] if mode == "-C" else []),
                      "--", sys.executable, "-c", prog])
    assert r.returncode == 0, r.stderr
    text = r.stdout if mode == "-c" else r.stderr
    parts = re.split(r"^ (Report \d+|Whole trace), .*$", text, flags=re.M)
    reports = [sum(c for n, c, _ in _summary_rows(body) if n == "getppid")
               for head, body in zip(parts[1::2], parts[2::2], strict=True)
               if head.startswith("Report")]
    final = [sum(c for n, c, _ in _summary_rows(body) if n == "getppid")
             for head, body in zip(parts[1::2], parts[2::2], strict=True)
             if head == "Whole trace"]
    assert len(reports) >= 3 and final == [200]
    # the calls after the last report are only in the final table; a loaded machine may
    # report late, but a burst followed by half a second of sleep is reported while it runs
    assert 50 <= sum(reports) <= 200


# --- several outputs, and --dump-config ----------------------------------------------------

def test_several_outputs_each_get_every_event(tmp_path: Path) -> None:
    """[[output]] perf to a file, jsonl to a file, a summary to stdout: the same calls in
    each (the decoding and ordering stages ran once, for both text outputs)."""
    perf, jsonl = tmp_path / "t.perf", tmp_path / "t.jsonl"
    cfg = tmp_path / "p.toml"
    cfg.write_text(f"""
[filter]
syscalls = ["getppid", "openat", "close"]
[[output]]
format = "perf"
path = {json.dumps(str(perf))}
[[output]]
format = "jsonl"
path = {json.dumps(str(jsonl))}
[[output]]
format = "summary"
group_by = "total"
""")
    r = run_tracekit(["run", str(cfg), "--", *_known_seq(tmp_path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    events = _calls(read_events(jsonl))
    from_jsonl = collections.Counter(TABLE.name(c.syscall_nr) for c in events)
    from_perf = collections.Counter(m[2] for line in perf.read_text().splitlines()
                                    if (m := _PERF_LINE.match(line)))
    from_summary = {name: calls for name, calls, _ in _summary_rows(r.stdout)}
    assert from_jsonl == from_perf and dict(from_jsonl) == from_summary
    assert from_jsonl["getppid"] == 3 * N
    # the jsonl output got the decoded text perf's decoding added
    assert all(c.decoded is not None for c in events)


def _signature(events: list[Event]) -> list[tuple[tuple[str, int], int]]:
    """How many calls of each (syscall, -errno) were traced (tids differ per run)."""
    calls = _calls(events)
    return sorted(collections.Counter((TABLE.name(c.syscall_nr), min(c.ret, 0))
                                      for c in calls).items())


def test_dump_config_fed_back_gives_the_same_trace(tmp_path: Path) -> None:
    """The one-liner and the file --dump-config printed for it trace the same calls."""
    seq = _known_seq(tmp_path)
    first = tmp_path / "first.jsonl"
    options = ["-F", "jsonl", "-e", "trace=%file,getppid", "-Z", "--no-follow",
               "--timeout", "30"]
    dumped = run_tracekit(["run", *options, "-o", str(first), "--dump-config", "--", *seq])
    assert dumped.returncode == 0, dumped.stderr
    assert not first.exists()                   # --dump-config traces nothing
    pipeline = tmp_path / "grown.toml"
    pipeline.write_text(dumped.stdout)
    cfg = load_config(pipeline)
    assert (cfg.target.command, cfg.target.follow_forks, cfg.timeout_s) == (seq, False, 30.0)
    assert (cfg.filter.syscalls, cfg.filter.status) == (["%file", "getppid"], ["failed"])
    r1 = run_tracekit(["run", *options, "-o", str(first), "--", *seq], cwd=tmp_path)
    one = _signature(read_events(first))
    r2 = run_tracekit(["run", str(pipeline)], cwd=tmp_path)   # writes the same path
    two = _signature(read_events(first))
    assert r1.returncode == r2.returncode == 0, r1.stderr + r2.stderr
    assert one and one == two
    # the file's own dump is itself (nothing is lost or added on the way)
    again = run_tracekit(["run", str(pipeline), "--dump-config"])
    assert decode_config(again.stdout) == cfg


def test_dump_config_refuses_what_a_toml_file_cannot_hold(tmp_path: Path) -> None:
    """An argument that is not UTF-8 (a file name of raw bytes) has no TOML spelling: a
    dump that wrote the byte itself made a file `tracekit run FILE` refuses ("config is
    not UTF-8"). --dump-config says which value, in one line, and prints no file."""
    out = tmp_path / "o\udcff.txt"
    r = run_tracekit(["run", "-o", str(out), "--dump-config", "--", "/bin/echo", "a\udcffb"],
                     errors="surrogateescape")
    assert r.returncode == 2, r.stdout
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "target.command[1]" in lines[0] and "UTF-8" in lines[0] and "0xff" in lines[0]
    # the output path alone: named by its key
    r = run_tracekit(["run", "-o", str(out), "--dump-config", "--", "/bin/true"],
                     errors="surrogateescape")
    assert r.returncode == 2 and r.stdout == "" and "output.path" in r.stderr, r.stderr


@pytest.mark.parametrize("spelling", ["same", "./same"])
def test_record_and_output_to_one_new_file_are_refused(tmp_path: Path, spelling: str) -> None:
    """`-o F --record F` with F not there yet: both were opened, each a new file renamed
    over F, and the trace text and the recording's frames went into one file (a replay
    of it: not a recording). Compared as the outputs are among themselves (their
    absolute paths), the second is refused before anything starts."""
    r = run_tracekit(["run", "-o", "same", "--record", spelling, "--", "true"],
                     cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "is the output" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "same").exists()


def test_dev_null_as_output_and_recording_is_fine(tmp_path: Path) -> None:
    """A device is written in place, never replaced: /dev/null twice is no conflict."""
    r = run_tracekit(["run", "-o", "/dev/null", "--record", "/dev/null", "--", "true"])
    assert r.returncode == 0, r.stderr
