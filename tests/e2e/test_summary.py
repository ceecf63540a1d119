"""Summaries of real traced workloads (streaming mode): exact counts per syscall and
errno, per thread; stddev equal to statistics.stdev (n - 1) over the same events; totals
within wall time x threads; interval snapshots that merge to the final summary; the real CLI's
``format = "summary"`` table; and a syscall number no table knows, counted in both
summary modes.
"""

from __future__ import annotations

import collections
import errno
import json
import re
import statistics
import sys
import textwrap
import time
from pathlib import Path

import msgspec
import pytest
import trio

from tests._run import run_tracekit, write_pipeline
from tracekit._events import Syscall
from tracekit._summary import Summary
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import Pipeline
from tracekit.pipeline.summarize import Summarize
from tracekit.session.session import Session, SessionOptions
from tracekit.session.source import RingBufferSource

from ..pipeline.helpers import Collect

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()
N_GETPPID, M_MISSING, K_NOSYS = 3000, 400, 250
THREAD_CALLS = (500, 1500, 2500)    # getppid per worker thread: distinct, so a mix-up shows
DIRFD = 777                          # openat(777, "missing") marks the workload's own calls

WORKLOAD = textwrap.dedent(f"""
    import ctypes, json, os, sys, threading, time
    libc = ctypes.CDLL(None, use_errno=True)
    os.dup2(os.open("/", os.O_RDONLY | os.O_DIRECTORY), {DIRFD})
    for _ in range({N_GETPPID}):
        os.getppid()
    time.sleep(0.15)                             # interval boundaries fall in the gaps
    for _ in range({M_MISSING}):
        try:
            os.open("tracekit-missing-file", os.O_RDONLY, dir_fd={DIRFD})
        except FileNotFoundError:
            pass
    for _ in range({K_NOSYS}):
        assert libc.syscall(1000) == -1 and ctypes.get_errno() == 38
    time.sleep(0.15)
    tids = {{}}
    def work(n):
        tids[threading.get_native_id()] = n
        for _ in range(n):
            os.getppid()
    threads = [threading.Thread(target=work, args=(n,)) for n in {THREAD_CALLS!r}]
    for t in threads: t.start()
    for t in threads: t.join()
    with open(sys.argv[1], "w") as f:
        json.dump({{"main": threading.get_native_id(), "threads": tids}}, f)
""")


class Traced:
    """One traced run of WORKLOAD through Summarize stages and a collecting sink."""

    def __init__(self, tmp: Path) -> None:
        script = tmp / "workload.py"
        script.write_text(WORKLOAD)
        self.report_path = tmp / "report.json"
        self.argv = [sys.executable, str(script), str(self.report_path)]
        self.intervals = Summarize("thread", interval_s=0.05, name="summarize-iv")
        self.plain = Summarize("thread", name="summarize")
        self.sink = Collect()

    async def run(self) -> None:
        session = Session(SessionOptions(command=self.argv))
        self.t0_ns = time.monotonic_ns()
        try:
            await session.start()
            source = RingBufferSource(session)
            pipeline = Pipeline(source, [self.intervals, self.plain], [self.sink],
                                session=session)

            async def stop_at_exit() -> None:
                assert session.command is not None
                self.rc = await session.command.wait()
                source.request_stop()

            with trio.fail_after(60):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(stop_at_exit)
                    await pipeline.run()
            self.t1_ns = time.monotonic_ns()
            self.lost = session.counters().lost
        finally:
            session.close()
        self.report = json.loads(self.report_path.read_text())
        self.calls = [e for e in self.sink.events if isinstance(e, Syscall)]
        self.summary: Summary = self.plain.summary()


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Traced:
    t = Traced(tmp_path_factory.mktemp("summary"))
    trio.run(t.run)
    assert t.rc == 0 and t.lost == 0
    return t


def test_counts_equal_the_events_and_the_known_workload(traced: Traced) -> None:
    # Every (tid, syscall, errno) of the event stream, and nothing else.
    want = collections.Counter((c.tid, c.syscall_nr, c.errno) for c in traced.calls)
    got: collections.Counter = collections.Counter()
    for g in traced.summary.groups:
        for s in g.syscalls:
            got[(g.tid, s.syscall_nr, 0)] += s.calls - s.errors
            for e, n in s.errnos.items():
                got[(g.tid, s.syscall_nr, e)] += n
    assert got == want
    # The workload's own calls, exactly.
    total = traced.summary.regroup("total")
    rows = {s.syscall: s for s in total.groups[0].syscalls}
    assert rows["getppid"].calls == N_GETPPID + sum(THREAD_CALLS)
    assert rows["getppid"].errors == 0
    nosys = rows["syscall_1000"]
    assert (nosys.calls, nosys.errors, nosys.errnos) == (K_NOSYS, K_NOSYS, {errno.ENOSYS: K_NOSYS})
    mine = [c for c in traced.calls if c.syscall_nr == TABLE.nr("openat")
            and c.args[0] == DIRFD]
    assert len(mine) == M_MISSING and {c.errno for c in mine} == {errno.ENOENT}
    assert rows["openat"].errnos[errno.ENOENT] >= M_MISSING
    # Calls that never return are counted, never timed: one exit_group, one exit per thread.
    eg = rows["exit_group"]
    assert (eg.calls, eg.noreturn, eg.timed, eg.total_ns) == (1, 1, 0, 0)
    assert rows["exit"].calls == rows["exit"].noreturn == len(THREAD_CALLS)
    assert rows["execve"].calls >= 1


def test_split_by_thread(traced: Traced) -> None:
    groups = {g.tid: g for g in traced.summary.groups}
    main = traced.report["main"]
    assert {g.tgid for g in groups.values()} == {main}
    assert set(groups) == {main, *map(int, traced.report["threads"])}

    def getppid(tid: int) -> int:
        return sum(s.calls for s in groups[tid].syscalls if s.syscall == "getppid")
    assert getppid(main) == N_GETPPID
    assert {int(t): getppid(int(t)) for t in traced.report["threads"]} == \
        {int(t): n for t, n in traced.report["threads"].items()}
    proc = traced.summary.regroup("process").groups
    assert [(g.tgid, g.calls) for g in proc] == [(main, len(traced.calls))]


def test_stddev_equals_stdev_of_the_same_events(traced: Traced) -> None:
    durations = collections.defaultdict(list)
    for c in traced.calls:
        if not (c.noreturn or c.unfinished or c.resumed):
            durations[(c.tid, c.syscall_nr)].append(c.duration_ns)
    checked = 0
    for g in traced.summary.groups:
        for s in g.syscalls:
            ds = durations[(g.tid, s.syscall_nr)]
            assert s.timed == len(ds)
            if not ds:
                continue
            assert (s.total_ns, s.min_ns, s.max_ns) == (sum(ds), min(ds), max(ds))
            ref = statistics.stdev(ds) if len(ds) > 1 else 0.0     # sample figure, n - 1
            assert s.stddev_ns == pytest.approx(ref, rel=1e-9, abs=1e-9)
            checked += 1
    assert checked >= 10


def test_totals_within_wall_time_times_threads(traced: Traced) -> None:
    s = traced.summary
    wall = traced.t1_ns - traced.t0_ns
    assert traced.t0_ns <= s.first_ts_ns <= s.last_ts_ns <= traced.t1_ns
    assert 0 < s.total_ns <= wall * len(s.groups)
    for g in s.groups:      # one thread's calls never overlap: each within the wall time
        assert g.total_ns <= wall


def test_summary_checks_itself_per_thread(traced: Traced) -> None:
    """The self-check: each thread's time in calls is at most the span from its first
    call's entry to its last call's exit; a real trace passes it."""
    s = traced.summary
    assert s.problems == []
    assert set(s.spans) == {g.tid for g in s.groups if any(x.timed for x in g.syscalls)}
    for g in s.groups:
        timed = [c for c in traced.calls if c.tid == g.tid and not (
            c.noreturn or c.unfinished or c.resumed)]
        first, last, total = s.spans[g.tid]
        assert first == min(c.ts_ns for c in timed)
        assert last == max(c.ts_ns + c.duration_ns for c in timed)
        assert total == g.total_ns <= last - first
    # the check survives a coarser grouping, which no longer knows the threads
    assert s.regroup("total").spans == s.spans


def test_interval_snapshots_merge_to_the_final_summary(traced: Traced) -> None:
    snaps = traced.intervals.snapshots
    assert len(snaps) >= 3          # the workload sleeps 0.3 s with 0.05 s intervals
    assert sum(s.calls for s in snaps) == traced.summary.calls
    merged = snaps[0]
    for s in snaps[1:]:
        merged = merged.merge(s)
    assert merged == traced.summary


def _parse_perf_table(text: str) -> dict[int, dict[str, tuple[int, int]]]:
    """tid -> syscall -> (calls, errors) from the summary formatter's perf table."""
    out: dict[int, dict[str, tuple[int, int]]] = {}
    tid = None
    for line in text.splitlines():
        m = re.match(r"^   \S.* \((\d+)\), \d+ calls, ", line)
        if m:
            tid = int(m[1])
            out[tid] = {}
            continue
        m = re.match(r"^     (\S+)\s+(\d+)\s+(\d+)\s", line)
        if m and tid is not None:
            out[tid][m[1]] = (int(m[2]), int(m[3]))
    return out


@pytest.mark.parametrize("mode", ["kernel", "stream"])
def test_cli_summary_table(tmp_path: Path, mode: str) -> None:
    """The same exact counts whether counted in BPF maps or from the event stream."""
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    report = tmp_path / "report.json"
    out = tmp_path / "summary.txt"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = ["true"]
        [output]
        format = "summary"
        mode = "{mode}"
    """)
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", sys.executable, str(script),
                      str(report)])
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "not the standard error" in text and "LOST" not in text
    assert "CHECK FAILED" not in text                  # the self-check passed
    rep = json.loads(report.read_text())
    tables = _parse_perf_table(text)
    assert set(tables) == {rep["main"], *map(int, rep["threads"])}
    main = tables[rep["main"]]
    assert main["getppid"] == (N_GETPPID, 0)
    assert main["syscall_1000"] == (K_NOSYS, K_NOSYS)
    assert main["openat"][1] >= M_MISSING
    for t, n in rep["threads"].items():
        assert tables[int(t)]["getppid"] == (n, 0)


def test_cli_summary_json_table(tmp_path: Path) -> None:
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    report = tmp_path / "report.json"
    out = tmp_path / "summary.json"
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [output]
        format = "summary"
        table = "json"
        group_by = "thread"
    """)
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", sys.executable, str(script),
                      str(report)])
    assert r.returncode == 0, r.stderr
    s = msgspec.json.decode(out.read_bytes(), type=Summary)
    rep = json.loads(report.read_text())
    assert s.group_by == "thread" and s.lost == 0
    rows = {g.tid: {x.syscall: x for x in g.syscalls} for g in s.groups}
    assert set(rows) == {rep["main"], *map(int, rep["threads"])}
    # counted in the kernel: the self-check passed on every thread, nothing was lost
    assert s.problems == [] and set(s.spans) == set(rows)
    assert all(total <= last - first for first, last, total in s.spans.values())
    assert s.losses is not None and s.losses.total == 0
    main = rows[rep["main"]]
    assert (main["getppid"].calls, main["getppid"].errors) == (N_GETPPID, 0)
    assert main["syscall_1000"].errnos == {errno.ENOSYS: K_NOSYS}
    assert main["syscall_1000"].calls == K_NOSYS
    assert main["openat"].errnos[errno.ENOENT] >= M_MISSING
    assert main["exit_group"].noreturn == 1 and main["exit_group"].timed == 0
    for t, n in rep["threads"].items():
        assert rows[int(t)]["getppid"].calls == n
        assert rows[int(t)]["exit"].noreturn == 1


PY = sys.executable


@pytest.mark.parametrize("mode", ["kernel", "stream"])
def test_unknown_syscall_number_counted_in_the_summary(tmp_path: Path, mode: str) -> None:
    code = ("import ctypes; l = ctypes.CDLL(None)\n"
            "for _ in range(7): l.syscall(1000)\n")
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(PY)}, "-c", {json.dumps(code)}]
        [output]
        format = "summary"
        mode = "{mode}"
        table = "json"
        group_by = "total"
        path = "{tmp_path / 'sum.json'}"
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "sum.json").read_text())
    rows = [s for g in doc["groups"] for s in g["syscalls"] if s["syscall_nr"] == 1000]
    assert len(rows) == 1
    assert (rows[0]["calls"], rows[0]["errors"], rows[0]["errnos"]) == (7, 7, {"38": 7})
