"""A forked child's return from clone/fork/vfork/clone3 is not a call of its own.

The kernel runs a new task's first sys_exit (ret_from_fork) for the call its parent made;
the child never entered it. tk_proc_fork marks the child, and its first unpaired exit is
skipped: no record, no count. So the per-syscall call counts equal ``strace -f -c``'s
for the same command, in the JSON Lines records and in the in-kernel summary; a task
that really was inside a call when tracing began still gives a TK_SC_RESUMED record.
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
import trio

from tests._run import read_events, run_tracekit, write_pipeline
from tracekit._events import SC_RESUMED, Event, Syscall
from tracekit._summary import Summary
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import Pipeline, StageContext
from tracekit.session.session import Session, SessionOptions
from tracekit.session.source import RingBufferSource

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()
FORKS = ("clone", "clone3", "fork", "vfork")

# 3 threads (glibc: clone3) and a forked child (clone) that makes one getppid
THREADS_C = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static void *run(void *arg) { (void)arg; syscall(SYS_getppid); return 0; }
int main(void)
{
	pthread_t t[3];
	pid_t c;
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, run, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	c = fork();
	if (c == 0) {
		syscall(SYS_getppid);
		_exit(0);
	}
	waitpid(c, 0, 0);
	return 0;
}
"""


@pytest.fixture(scope="module")
def command(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``sh -c`` with vforks (dash runs simple commands with vfork), a subshell and a
    pipeline (forks), and a C program with threads and a fork."""
    gcc, strace = shutil.which("gcc"), shutil.which("strace")
    if gcc is None or strace is None:
        pytest.skip("needs gcc and strace")
    d = tmp_path_factory.mktemp("forkchild")
    exe = d / "threads"
    subprocess.run([gcc, "-O1", "-Wall", "-Werror", "-pthread", "-o", str(exe), "-x", "c",
                    "-"], input=THREADS_C.encode(), check=True, capture_output=True)
    data = d / "data.txt"
    data.write_text("x\n")
    return ["sh", "-c", f"cat {data}; cat {data}; (cat {data}); cat {data} | cat; {exe}"]


def strace_counts(cmd: list[str], tmp: Path) -> dict[str, int]:
    """Calls per syscall name from ``strace -f -c -o FILE``."""
    out = tmp / "strace.txt"
    subprocess.run(["strace", "-f", "-c", "-o", str(out), "--", *cmd], check=True,
                   capture_output=True)
    counts = {}
    for line in out.read_text().splitlines():
        parts = line.split()
        if len(parts) in (5, 6) and re.fullmatch(r"[\d.]+", parts[0]) and parts[-1] != "total":
            counts[parts[-1]] = int(parts[3])
    return counts


def forks_of(counts: dict[str, int]) -> dict[str, int]:
    return {k: counts.get(k, 0) for k in FORKS if counts.get(k, 0)}


def test_jsonl_fork_counts_equal_strace(tmp_path: Path, command: list[str]) -> None:
    want = forks_of(strace_counts(command, tmp_path))
    # the workload forks with each of vfork, clone and clone3
    assert want.get("vfork", 0) >= 3 and want.get("clone", 0) >= 3 and want.get("clone3") == 3
    out = tmp_path / "out.jsonl"
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [output]
        format = "jsonl"
    """)
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", *command])
    assert r.returncode == 0, r.stderr
    calls = [e for e in read_events(out) if isinstance(e, Syscall)]
    names = collections.Counter(TABLE.name(c.syscall_nr) for c in calls)
    assert forks_of(names) == want
    resumed = [c for c in calls if c.flags & SC_RESUMED]
    assert [c for c in resumed if TABLE.name(c.syscall_nr) in FORKS] == []
    # every fork-family record is the parent's, timed, with the child's id as its value
    for c in calls:
        if TABLE.name(c.syscall_nr) in FORKS:
            assert c.ret > 0 and c.duration_ns > 0


def test_kernel_summary_fork_counts_equal_strace(tmp_path: Path, command: list[str]) -> None:
    want = forks_of(strace_counts(command, tmp_path))
    out = tmp_path / "summary.json"
    cfg = write_pipeline(tmp_path, """
        [target]
        command = ["true"]
        [output]
        format = "summary"
        mode = "kernel"
        table = "json"
        group_by = "total"
    """)
    r = run_tracekit(["run", str(cfg), "-o", str(out), "--", *command])
    assert r.returncode == 0, r.stderr
    s = msgspec.json.decode(out.read_bytes(), type=Summary)
    assert s.lost == 0
    got: collections.Counter[str] = collections.Counter()
    resumed: collections.Counter[str] = collections.Counter()
    for g in s.groups:
        for row in g.syscalls:
            got[row.syscall] += row.calls
            resumed[row.syscall] += row.resumed
    assert forks_of(got) == want
    assert not any(resumed[k] for k in FORKS)


async def test_call_in_flight_at_attach_is_still_resumed(tmp_path: Path) -> None:
    """A task blocked in read(2) when tracing begins: its return is a RESUMED record."""
    target = subprocess.Popen([sys.executable, "-c", "import os; os.read(0, 1)"],
                              stdin=subprocess.PIPE)
    assert target.stdin is not None
    try:
        # wait until it sits in read(0, ...): /proc/<pid>/syscall starts with the nr
        nr_read = TABLE.nr("read")
        with trio.fail_after(20):
            while not Path(f"/proc/{target.pid}/syscall").read_text().startswith(
                    f"{nr_read} 0x0 "):
                await trio.sleep(0.01)
        events: list[Event] = []

        class Collect:
            name = "collect"

            async def run(self, ctx: StageContext, recv: trio.MemoryReceiveChannel) -> None:
                async with recv:
                    async for batch in recv:
                        events.extend(batch)

        session = Session(SessionOptions(pids=[target.pid]))
        with trio.fail_after(60):
            await session.start()
            try:
                pipeline = Pipeline(RingBufferSource(session, poll_interval_s=0.02), [],
                                    [Collect()], session=session)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(pipeline.run)
                    target.stdin.write(b"x")
                    target.stdin.flush()
                    await trio.to_thread.run_sync(target.wait)
            finally:
                session.close()
    finally:
        target.kill()
        target.wait()
        target.stdin.close()
    first = [e for e in events if isinstance(e, Syscall) and e.tid == target.pid][0]
    assert (TABLE.name(first.syscall_nr), first.ret, first.flags & SC_RESUMED) == \
        ("read", 1, SC_RESUMED)
