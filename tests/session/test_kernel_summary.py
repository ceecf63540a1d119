"""In-kernel summary: the summary maps of syscalls.bpf.o on the real
kernel, read by tracekit.session.kernel_summary.

The workload is a static C program built here with gcc (no dynamic loader, so its own
calls are known exactly): N getppid, M openat of a missing path (ENOENT), K syscall(1000)
(ENOSYS), and a second thread making T getppid, repeated in phases. Until the session
grows a summary option, the tests set the knobs through a BpfObject subclass that
``Session._load`` opens (through ``tracekit.session.objects``) instead of the plain one.
"""

from __future__ import annotations

import errno
import functools
import statistics
import subprocess
from pathlib import Path

import pytest
import trio

from tests._run import compile_c
from tracekit._events import Syscall, decode_record
from tracekit._summary import Group, Summarizer, Summary, SyscallStats
from tracekit.bpf.object import BpfObject
from tracekit.session import kernel_summary, objects as _objects
from tracekit.session.kernel_summary import KernelSummary, enable_kernel_summary
from tracekit.session.session import Session, SessionOptions

pytestmark = pytest.mark.kernel

WORKLOAD_C = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long t_calls;

static void *thread_main(void *arg)
{
	for (long i = 0; i < t_calls; i++)
		syscall(SYS_getppid);
	return arg;
}

/* argv: N M K T PHASES SLEEP_MS */
int main(int argc, char **argv)
{
	long n = atol(argv[1]), m = atol(argv[2]), k = atol(argv[3]);
	long phases = atol(argv[5]), sleep_ms = atol(argv[6]);
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	pthread_t th;

	t_calls = atol(argv[4]);
	if (t_calls && pthread_create(&th, NULL, thread_main, NULL))
		return 2;
	if (t_calls && pthread_join(th, NULL))
		return 3;
	for (long p = 0; p < phases; p++) {
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		for (long i = 0; i < m; i++)
			syscall(SYS_openat, AT_FDCWD, "/nonexistent/tracekit-summary", O_RDONLY);
		for (long i = 0; i < k; i++)
			syscall(1000);
		if (sleep_ms)
			nanosleep(&ts, NULL);
	}
	return 0;
}
"""


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ksum")
    (d / "w.c").write_text(WORKLOAD_C)
    exe = d / "w"
    try:
        subprocess.run(["gcc", "-O2", "-static", "-pthread", "-Wall", "-o", str(exe),
                        str(d / "w.c")], check=True, capture_output=True)
    except FileNotFoundError:
        pytest.skip("gcc is not installed")
    return exe


class Run:
    """What one traced run of the workload left: the kernel summary (final and interval
    reads), the syscall records (when asked for) and the kernel counters."""

    def __init__(self) -> None:
        self.final: Summary | None = None
        self.intervals: list[Summary] = []
        self.records: list[Syscall] = []
        self.summary_full = 0
        self.errno_full = 0
        self.lost = 0
        self.wall_ns = 0
        self.tgid = 0
        self.orphans = 0            # most orphan slots seen at once (reclaim=True)
        self.reclaimed = 0          # slots pushed back on summary_free (reclaim=True)


def trace(monkeypatch: pytest.MonkeyPatch, argv: list[str], *, records: bool = False,
          interval_s: float | None = None, summary_max_entries: int | None = None,
          reclaim: bool = False) -> Run:
    """Run ``argv`` under a Session in summary mode (with records too when asked); with
    ``reclaim``, :meth:`KernelSummary.reclaim` before each interval read and once after
    the command ended, before the final read."""

    class SummaryObject(BpfObject):
        def load(self, **kw):  # type: ignore[no-untyped-def]
            enable_kernel_summary(self, records=records)
            if summary_max_entries is not None:
                self.maps["summary"].max_entries = summary_max_entries
            super().load(**kw)

    monkeypatch.setattr(_objects, "BpfObject", SummaryObject)
    out = Run()

    async def main() -> None:
        s = Session(SessionOptions(command=argv, buffer_bytes=32 << 20))
        try:
            t0 = trio.current_time()
            await s.start()
            assert s.command is not None and s.ringbuf is not None and s.obj is not None
            out.tgid = s.command.pid
            ks = KernelSummary(s.obj)
            with trio.fail_after(60):
                if interval_s is None:
                    rc = await s.command.wait()
                else:
                    async with trio.open_nursery() as nursery:
                        done = trio.Event()

                        async def waiter() -> None:
                            nonlocal rc
                            rc = await s.command.wait()  # type: ignore[union-attr]
                            done.set()

                        rc = -1
                        nursery.start_soon(waiter)
                        while not done.is_set():
                            with trio.move_on_after(interval_s):
                                await done.wait()
                            if reclaim:
                                ks.reclaim()
                                out.orphans = max(out.orphans, ks.orphaned)
                            out.intervals.append(ks.interval())
            out.wall_ns = int((trio.current_time() - t0) * 1e9)
            assert rc == 0, f"workload exited {rc}"
            if reclaim:
                ks.reclaim()
                out.reclaimed = ks.reclaimed
            out.final = ks.read()
            if interval_s is not None:
                out.intervals.append(ks.interval())
            c = ks.counters()
            out.summary_full, out.errno_full = c.summary_full, c.errno_full
            out.records = [ev for r in s.ringbuf.consume()
                           if isinstance(ev := decode_record(bytes(r)), Syscall)]
            out.lost = s.counters().lost
        finally:
            s.close()

    trio.run(main)
    return out


def _row(g: Group, name: str) -> SyscallStats:
    rows = [s for s in g.syscalls if s.syscall == name and not s.compat]
    assert len(rows) == 1, [s.syscall for s in g.syscalls]
    return rows[0]


def test_counts_exact_per_thread_syscall_and_errno(monkeypatch: pytest.MonkeyPatch,
                                                   workload: Path) -> None:
    n, m, k, t = 3000, 700, 500, 1100
    run = trace(monkeypatch, [str(workload), str(n), str(m), str(k), str(t), "1", "0"])
    s = run.final
    assert s is not None and run.summary_full == 0 and run.errno_full == 0 and s.lost == 0
    assert run.records == []                      # summary mode sends no syscall records
    assert {g.tgid for g in s.groups} == {run.tgid}
    main = next(g for g in s.groups if g.tid == run.tgid)
    (thread,) = [g for g in s.groups if g.tid != run.tgid]
    assert main.comm == "w" and thread.comm == "w"

    getppid = _row(main, "getppid")
    assert (getppid.calls, getppid.errors, getppid.timed) == (n, 0, n)
    assert sum(getppid.hist.values()) == n
    assert 0 < getppid.min_ns <= getppid.mean_ns <= getppid.max_ns
    assert getppid.total_ns == pytest.approx(getppid.mean_ns * n)
    openat = _row(main, "openat")
    assert (openat.calls, openat.errors, openat.errnos) == (m, m, {errno.ENOENT: m})
    nosys = _row(main, "syscall_1000")
    assert (nosys.syscall_nr, nosys.calls, nosys.errors, nosys.errnos) == (
        1000, k, k, {errno.ENOSYS: k})
    exit_group = _row(main, "exit_group")         # counted at entry, never timed
    assert (exit_group.calls, exit_group.noreturn, exit_group.timed) == (1, 1, 0)
    assert exit_group.min_ns == exit_group.max_ns == exit_group.total_ns == 0

    t_getppid = _row(thread, "getppid")
    assert (t_getppid.calls, t_getppid.timed) == (t, t)
    assert _row(thread, "exit").noreturn == 1     # the thread ends with exit(2)
    # per-thread rows regroup into the process and the total
    (proc,) = s.regroup("process").groups
    assert _row(proc, "getppid").calls == n + t
    # sanity: summed durations never exceed wall time times the traced threads
    assert s.total_ns <= run.wall_ns * len(s.groups)


def test_kernel_and_streaming_summaries_of_one_run_are_equal(
        monkeypatch: pytest.MonkeyPatch, workload: Path) -> None:
    n, m, k, t = 2000, 300, 200, 500
    run = trace(monkeypatch, [str(workload), str(n), str(m), str(k), str(t), "2", "1"],
                records=True)
    assert run.lost == 0 and run.summary_full == 0
    streaming = Summarizer()
    streaming.add(run.records)
    want = streaming.summary("thread")
    assert run.final == want                      # every field of every row, exactly
    # and the spread is Python's sample stdev (n - 1) over the same durations
    main_tid = run.tgid
    durations = [ev.duration_ns for ev in run.records
                 if ev.tid == main_tid and ev.syscall_nr == _row(want.groups[0], "getppid")
                 .syscall_nr and not ev.flags]
    got = _row(next(g for g in run.final.groups if g.tid == main_tid), "getppid")
    assert len(durations) == got.timed == 2 * n
    assert got.stddev_ns == pytest.approx(statistics.stdev(durations), rel=1e-9)
    assert got.mean_ns == pytest.approx(statistics.fmean(durations), rel=1e-12)


def test_interval_reads_sum_to_the_final_read(monkeypatch: pytest.MonkeyPatch,
                                             workload: Path) -> None:
    n, m, k = 400, 50, 30
    phases = 12
    run = trace(monkeypatch, [str(workload), str(n), str(m), str(k), "0", str(phases), "40"],
                interval_s=0.05)
    assert run.final is not None
    with_calls = [s for s in run.intervals if s.calls]
    assert len(with_calls) >= 3, [s.calls for s in run.intervals]
    assert functools.reduce(Summary.merge, run.intervals) == run.final
    main = next(g for g in run.final.groups if g.tid == run.tgid)
    assert _row(main, "getppid").calls == n * phases
    assert _row(main, "syscall_1000").errnos == {errno.ENOSYS: k * phases}


def test_a_full_summary_map_is_counted(monkeypatch: pytest.MonkeyPatch,
                                       workload: Path) -> None:
    # 3 entries: the workload makes more distinct (thread, syscall) pairs than that
    run = trace(monkeypatch, [str(workload), "100", "10", "10", "0", "1", "0"], records=True,
                summary_max_entries=3)
    assert run.final is not None and run.lost == 0
    streaming = Summarizer()
    streaming.add(run.records)
    total = streaming.summary("total").calls
    assert len([r for g in run.final.groups for r in g.syscalls]) == 3
    assert run.summary_full > 0
    assert run.final.lost == run.summary_full
    assert run.final.calls + run.summary_full == total


def test_calls_longer_than_2_to_32_ns_keep_the_sum_of_squares_exact(
        monkeypatch: pytest.MonkeyPatch, workload: Path) -> None:
    # one nanosleep of 4.4 s: d > 2**32 ns, so d*d > 2**64 (the 128-bit carry path)
    run = trace(monkeypatch, [str(workload), "10", "0", "0", "0", "1", "4400"], records=True)
    assert run.final is not None and run.lost == 0
    streaming = Summarizer()
    streaming.add(run.records)
    assert run.final == streaming.summary("thread")
    main = next(g for g in run.final.groups if g.tid == run.tgid)
    sleep = _row(main, "clock_nanosleep")
    assert sleep.timed == 1 and sleep.max_ns > 2**32 and sleep.sum_sq_ns2 == sleep.max_ns ** 2
    assert sleep.sum_sq_ns2 > 2**64 and sleep.hist == {sleep.max_ns.bit_length(): 1}


def test_a_thread_that_execs_counts_under_its_new_tid(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    # A non-leader thread calls execve twice: the first fails (ENOENT) under the
    # thread's own tid; the second runs /bin/true, and the thread takes the leader's tid
    # during the call (fs/exec.c de_thread). The second execve, and the new image's
    # calls, count under the new tid, as the records of the same run say, not in the
    # (thread tid, execve) entry of the first.
    exe = compile_c(EXEC_TWICE_C, tmp_path, "exec_twice", "-pthread")
    run = trace(monkeypatch, [str(exe)], records=True)
    assert run.final is not None and run.lost == 0 and run.summary_full == 0
    streaming = Summarizer()
    streaming.add(run.records)
    assert run.final == streaming.summary("thread")
    leader = next(g for g in run.final.groups if g.tid == run.tgid)
    (thread,) = [g for g in run.final.groups if g.tid != run.tgid]
    # the command's own execve and the thread's second, both ending as the leader's tid
    assert leader.comm == "true" and _row(leader, "execve").calls == 2
    failed = _row(thread, "execve")
    assert (failed.calls, failed.errnos) == (1, {errno.ENOENT: 1})


def test_reclaimed_and_orphaned_slots_keep_every_count(monkeypatch: pytest.MonkeyPatch,
                                                       workload: Path) -> None:
    # While the workload runs, /proc is made to say its tids are gone at reclaim's first
    # look and back at its second (a tid reused between the two): its slots become
    # orphans, which its threads keep writing through their cached slots. After it exits
    # (the real /proc), everything is reclaimed: the final read, from the counts user
    # space kept, equals the streaming summary of the same run's records, and the
    # intervals (read between reclaims) merge to it.
    looks: dict[int, int] = {}
    real_alive = kernel_summary._alive

    def flaky_alive(tid: int) -> bool:
        if not real_alive(tid):
            return False
        looks[tid] = looks.get(tid, 0) + 1
        return looks[tid] % 2 == 0          # a live tid: gone, then back

    monkeypatch.setattr(kernel_summary, "_alive", flaky_alive)
    # getppid loops long enough for reclaims to land inside them (the cached-slot path)
    n, m, k, t, phases = 40000, 20, 10, 200, 4
    run = trace(monkeypatch, [str(workload), str(n), str(m), str(k), str(t), str(phases),
                              "5"], records=True, interval_s=0.01, reclaim=True)
    assert run.final is not None and run.lost == 0 and run.summary_full == 0
    assert run.orphans > 0 and run.reclaimed >= run.orphans
    streaming = Summarizer()
    streaming.add(run.records)
    assert run.final == streaming.summary("thread")
    main = next(g for g in run.final.groups if g.tid == run.tgid)
    assert _row(main, "getppid").calls == n * phases
    assert _row(main, "openat").errnos == {errno.ENOENT: m * phases}
    assert functools.reduce(Summary.merge, run.intervals) == run.final


EXEC_TWICE_C = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

static void *execer(void *arg)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};

	execve("/nonexistent/tracekit-summary", argv, envp);
	execve("/bin/true", argv, envp);
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, execer, NULL))
		return 2;
	pause();
	return 3;
}
"""
