"""A reader that cannot keep up: every record the kernel writes is delivered or counted
lost, exactly and by kind (a ring buffer far too small, a user stage far slower than the
stream): shown calls + lost syscall records = calls made, shown fork/exec/exit records +
lost lifecycle records = tasks' events; the count is said on stderr, in the summary and
as the last JSON Lines event. While a slow stage applies backpressure tracekit's memory
stays bounded.

Each test starts and traces only its own processes.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from tests._run import (
    SLEEPY_PY,
    TRACEKIT,
    compile_c,
    getppid_pipeline,
    read_events,
    run_tracekit,
    tracekit_env,
    write_pipeline,
)
from tracekit._events import Event, Exec, Exit, Fork, Losses, Lost, Signal, Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel

GETPPID = SyscallTable().nr("getppid")


def _split(events: list[Event]) -> tuple[list[Syscall], list[Event], int, int, Losses]:
    """calls, lifecycle events, lost syscall records, lost lifecycle records (summed
    from the Lost events), and the Losses event, which must be the last line."""
    assert isinstance(events[-1], Losses), events[-1]
    assert not any(isinstance(e, Losses) for e in events[:-1])
    calls = [e for e in events if isinstance(e, Syscall)]
    assert all(e.syscall_nr == GETPPID for e in calls)
    lifecycle = [e for e in events if isinstance(e, Fork | Exec | Exit | Signal)]
    lost = [e for e in events if isinstance(e, Lost)]
    return (calls, lifecycle, sum(e.syscalls for e in lost), sum(e.lifecycle for e in lost),
            events[-1])


def test_tiny_ring_buffer_counts_every_lost_record(tmp_path: Path, loop: Path) -> None:
    n = 300_000
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", str(getppid_pipeline(tmp_path, buffer_pages=2)),
                        "-o", str(out), "--", str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    calls, lifecycle, lost_calls, lost_lifecycle, losses = _split(read_events(out))
    # Every record the kernel tried to write is delivered or lost, and lost by kind:
    # n getppid calls; the exec and the exit.
    assert len(calls) + lost_calls == n
    assert len(lifecycle) + lost_lifecycle == 2
    assert (losses.lost_syscalls, losses.lost_lifecycle) == (lost_calls, lost_lifecycle)
    assert lost_calls > 0, "a 2-page ring buffer kept up with a getppid loop: make n larger"
    lost = lost_calls + lost_lifecycle
    assert (f"LOST {lost} records ({lost_calls} syscall, {lost_lifecycle} "
            f"fork/exec/exit/signal): the ring buffer was full; the trace is short by "
            f"{lost_calls} calls") in res.stderr


def test_one_liner_ring_size_and_the_hint(tmp_path: Path, loop: Path) -> None:
    """``-m 2`` makes the 2-page ring of a one-liner (no pipeline file): it loses records
    to a getppid loop, counts them exactly, and the hint names the option."""
    n = 300_000
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", "-m", "2", "-e", "getppid", "-F", "jsonl", "-o", str(out),
                        "--", str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    calls, _, lost_calls, _, losses = _split(read_events(out))
    assert lost_calls > 0, "a 2-page ring buffer kept up with a getppid loop: make n larger"
    assert len(calls) + lost_calls == n and losses.lost_syscalls == lost_calls
    assert "tracekit: a bigger ring buffer loses fewer records: -m PAGES" in res.stderr


def test_strace_ring_size_and_the_hint(tmp_path: Path, loop: Path) -> None:
    """``tracekit strace --mmap-pages 2``: the lines written plus the lost calls are the
    calls made, and the hint names the option with twice the size."""
    n = 300_000
    out = tmp_path / "out.txt"
    res = run_tracekit(["strace", "--mmap-pages", "2", "-e", "trace=getppid", "-o", str(out),
                        str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    shown = sum(line.startswith("getppid()") for line in out.read_text().splitlines())
    m = re.search(r"LOST \d+ records \((\d+) syscall,", res.stderr)
    assert m, res.stderr
    assert shown + int(m[1]) == n and int(m[1]) > 0
    assert ("tracekit: a bigger ring buffer loses fewer records: --mmap-pages 4 or more "
            "(now 8 KiB)") in res.stderr


def _rounds_c(includes: list[str], then: str) -> str:
    """C source of a program ``PROG K B``: K rounds of B getppid calls, each round ended
    by ``then`` (statements; ``return 1`` on a failure)."""
    heads = "".join(f"#include <{h}>\n" for h in ["stdlib.h", "sys/syscall.h", "unistd.h",
                                                  *includes])
    return heads + """int main(int argc, char **argv) {
    long k = atol(argv[1]), b = atol(argv[2]);
    for (long r = 0; r < k; r++) {
        for (long i = 0; i < b; i++)
            syscall(SYS_getppid);
""" + then + """    }
    return 0;
}
"""


# k rounds of: b getppid calls, then four calls that change the fd table (open, dup2,
# close, close), none of them selected: with fd paths on, each is an fd-table record
FD_ROUNDS_C = _rounds_c(["fcntl.h"], """\
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || dup2(fd, 10) != 10)
            return 1;
        close(fd);
        close(10);
""")


def test_strace_says_lost_fd_table_records(tmp_path: Path) -> None:
    """Lost fd-table records (TK_CNT_FD_LOST) were counted and never said: the fd paths
    printed after them may be wrong, so the end says how many, as it says the others,
    and the ring-buffer hint follows."""
    k = 20_000
    exe = compile_c(FD_ROUNDS_C, tmp_path, "fd_rounds")
    out = tmp_path / "out.txt"
    res = run_tracekit(["strace", "--mmap-pages", "2", "-y", "-e", "trace=getppid", "-o",
                        str(out), str(exe), str(k), "5"], timeout=120)
    assert res.returncode == 0, res.stderr
    m = re.search(r"^tracekit: LOST (\d+) fd-table records \(fds opened, duplicated or "
                  r"closed\): the ring buffer was full; fd paths printed after the first of "
                  r"them \(-y, -yy, -P\) may be wrong$", res.stderr, re.M)
    assert m, res.stderr
    # the workload's own 4k changes, and the few of its start-up (ld.so's opens)
    assert 0 < int(m[1]) <= 4 * k + 64
    assert "tracekit: a bigger ring buffer loses fewer records: --mmap-pages 4" in res.stderr


# k rounds of: b getppid calls, then a child that exits at once, waited for. The kernel
# writes k * b getppid records and 3k + 2 lifecycle ones (the exec, k forks, k child
# exits, the k SIGCHLDs the parent ignores, recorded when they are sent, the exit).
FORK_ROUNDS_C = _rounds_c(["sys/wait.h"], """\
        pid_t c = fork();
        if (c == 0)
            _exit(0);
        if (c < 0 || waitpid(c, NULL, 0) != c)
            return 1;
""")


@pytest.fixture(scope="module")
def fork_rounds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_c(FORK_ROUNDS_C, tmp_path_factory.mktemp("forks"), "fork_rounds")


# k rounds of: b getppid calls, then a SIGUSR1 to itself, caught by an empty handler. The
# kernel writes k * b getppid records and k + 2 lifecycle ones (the exec, k signal
# deliveries, the exit): signal records come as fast as calls, so they overflow even the
# ring's lifecycle headroom (half of a 1-page ring) and are lost too.
SIGNAL_ROUNDS_C = r"""
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static void on_usr1(int sig) { (void)sig; }
int main(int argc, char **argv) {
    long k = atol(argv[1]), b = atol(argv[2]);
    signal(SIGUSR1, on_usr1);
    for (long r = 0; r < k; r++) {
        for (long i = 0; i < b; i++)
            syscall(SYS_getppid);
        raise(SIGUSR1);
    }
    return 0;
}
"""


def test_lost_records_by_kind_add_up_exactly(tmp_path: Path) -> None:
    k, b = 20_000, 5
    rounds = compile_c(SIGNAL_ROUNDS_C, tmp_path, "signal_rounds")
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", str(getppid_pipeline(tmp_path, buffer_pages=1)),
                        "-o", str(out), "--", str(rounds), str(k), str(b)], timeout=120)
    assert res.returncode == 0, res.stderr
    calls, lifecycle, lost_calls, lost_lifecycle, losses = _split(read_events(out))
    assert len(calls) + lost_calls == k * b          # shown + lost syscalls == calls made
    assert len(lifecycle) + lost_lifecycle == k + 2
    assert sum(isinstance(e, Signal) for e in lifecycle) <= k
    assert (losses.lost_syscalls, losses.lost_lifecycle) == (lost_calls, lost_lifecycle)
    assert lost_calls > 0 and lost_lifecycle > 0, (
        f"a 1-page ring buffer kept up: lost {lost_calls} calls, {lost_lifecycle} others")
    assert (f"({lost_calls} syscall, {lost_lifecycle} fork/exec/exit/signal)" in res.stderr
            and f"short by {lost_calls} calls" in res.stderr)


# Two children write buffers of 1 to 4096 bytes to /dev/null until the parent kills them
# (SIGKILL, after 300 ms: their records fill the ring all along, big and small, so it is
# full to the byte); then a third writes argv[1] buffers and kills itself; the parent
# exits with status 5. Their syscall records overflow a small ring; the forks, the
# signals and the exits must all get through (the ring's lifecycle headroom).
FLOOD_KILLED_C = r"""
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static char buf[4096];
static void flood(long n) {
    int fd = open("/dev/null", O_WRONLY);
    for (long i = 0; n < 0 || i < n; i++)
        write(fd, buf, 1 + (i * 97) % sizeof(buf));
}
int main(int argc, char **argv) {
    struct timespec t = {0, 300 * 1000 * 1000};
    pid_t c[2];
    for (int i = 0; i < 2; i++)
        if ((c[i] = fork()) == 0) {
            flood(-1);
            _exit(1);
        }
    nanosleep(&t, NULL);
    for (int i = 0; i < 2; i++)
        kill(c[i], SIGKILL);
    while (wait(NULL) > 0)
        ;
    if (fork() == 0) {
        flood(atol(argv[1]));
        raise(SIGKILL);
        _exit(1);
    }
    while (wait(NULL) > 0)
        ;
    return 5;
}
"""


@pytest.fixture(scope="module")
def flood_killed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_c(FLOOD_KILLED_C, tmp_path_factory.mktemp("flood"), "flood_killed")


def _lost_by_kind(stderr: str) -> tuple[int, int]:
    m = re.search(r"LOST \d+ records \((\d+) syscall, (\d+) fork/exec/exit/signal\)", stderr)
    assert m is not None, stderr
    return int(m[1]), int(m[2])


def test_strace_exit_lines_survive_a_full_ring(tmp_path: Path, flood_killed: Path) -> None:
    """strace -f -s 4096 on a 64 KiB ring that 4 KiB write records overflow: the calls
    are lost and counted, the three ``+++ killed by SIGKILL +++`` lines and the parent's
    ``+++ exited with 5 +++`` are all there (strace never loses them)."""
    out = tmp_path / "out.txt"
    res = run_tracekit(["strace", "-f", "-s", "4096", "--mmap-pages", "16", "-o", str(out),
                        str(flood_killed), "3000"], timeout=120)
    assert res.returncode == 5, res.stderr
    lost_calls, lost_lifecycle = _lost_by_kind(res.stderr)
    assert lost_calls > 0, "a 64 KiB ring kept up with 4 KiB writes: the test shows nothing"
    assert lost_lifecycle == 0, res.stderr
    lines = out.read_text().splitlines()
    pid = lines[0].split()[0]                    # the command's (its execve line)
    killed = {ln.split()[0] for ln in lines if ln.endswith(" +++ killed by SIGKILL +++")}
    assert len(killed) == 3 and pid not in killed, [ln for ln in lines if "+++" in ln]
    # the LOST lines say where the reader found the kernel's count grown: the last one
    # may come after the exit (its count read at the end)
    lost_lines = [int(m[1]) for ln in lines
                  if (m := re.fullmatch(r"\+\+\+ LOST (\d+) events \+\+\+", ln))]
    assert sum(lost_lines) == lost_calls
    rest = [ln for ln in lines if not ln.startswith("+++ LOST ")]
    assert rest[-1].split(None, 1) == [pid, "+++ exited with 5 +++"]   # pid column padded


def test_lifecycle_events_survive_a_full_ring(tmp_path: Path, flood_killed: Path) -> None:
    """The same flood as JSON Lines: every fork, exec, signal and exit event is there,
    the lost write records are counted, and nothing else is lost."""
    out = tmp_path / "out.jsonl"
    res = run_tracekit(["run", "-m", "16", "-e", "write", "-F", "jsonl", "-o", str(out),
                        "--", str(flood_killed), "3000"], timeout=120)
    assert res.returncode == 5, res.stderr
    events = read_events(out)
    losses = events[-1]
    assert isinstance(losses, Losses), losses
    assert losses.lost_syscalls > 0 and losses.lost_lifecycle == 0, losses
    assert sum(e.syscalls for e in events if isinstance(e, Lost)) == losses.lost_syscalls
    forks = [e for e in events if isinstance(e, Fork)]
    exits = [e for e in events if isinstance(e, Exit)]
    assert len(forks) == 3 and sum(isinstance(e, Exec) for e in events) == 1
    assert len(exits) == 4
    assert {e.child_tid for e in forks} | {forks[0].parent_tid} == {e.tid for e in exits}
    kills = [e for e in events if isinstance(e, Signal) and e.sig == 9]
    assert {e.tid for e in kills} == {e.child_tid for e in forks}


def test_summary_says_what_was_lost(tmp_path: Path, fork_rounds: Path) -> None:
    """The summary counted from the records is short by exactly the lost syscall
    records, and says so after its tables, by kind."""
    k, b = 100, 2000
    pipeline = write_pipeline(tmp_path, """\
        buffer_pages = 1
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "summary"
        mode = "stream"
        table = "strace"
        group_by = "total"
        """)
    res = run_tracekit(["run", str(pipeline), "--", str(fork_rounds), str(k), str(b)],
                       timeout=120)
    assert res.returncode == 0, res.stderr
    m = re.search(r"LOST (\d+) records \((\d+) syscall, (\d+) fork/exec/exit/signal\)",
                  res.stdout)
    assert m is not None, res.stdout
    total, lost_calls, lost_lifecycle = map(int, m.groups())
    assert total == lost_calls + lost_lifecycle and lost_calls > 0
    row = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+getppid$", res.stdout, re.M)
    assert row is not None, res.stdout
    assert int(row.group(1)) + lost_calls == k * b
    assert m.group(0) in res.stderr                   # the same figures on stderr


def _vm_hwm_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


# Bound on tracekit's peak RSS with a stage that cannot keep up. What tracekit may hold:
# its start-up peak (README, "Measured": 50 MiB), the ring buffer's data pages once
# touched (buffer_pages = 1024: 4 MiB), the drain thread's queue of raw records (bounded
# at 128 MiB, counted as each record's bytes + 48), and the batches in the bounded
# channels: the pipeline's 2 channels of 8 batches, plus one batch in each of source,
# stage and sink, = 19 batches of at most 4096 events (one drain) of about 400 bytes
# (Syscall Struct, its args tuple, list slot) = 31 MiB. Total 213 MiB; 256 MiB leaves room
# for allocator slack. Buffering the stream instead would pass 1 GiB (3 M events).
RSS_BOUND_MIB = 256


def test_slow_stage_backpressure_bounds_memory_and_loss_is_counted(tmp_path: Path,
                                                                   loop: Path) -> None:
    n = 3_000_000
    (tmp_path / "tk_sleepy_stage.py").write_text(SLEEPY_PY)
    pipeline = write_pipeline(tmp_path, """\
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [[stage]]
        kind = "user"
        use = "tk_sleepy_stage:Sleepy"
        options = { sleep_s = 0.05 }
        [output]
        format = "jsonl"
        """)
    out = tmp_path / "out.jsonl"
    tk = subprocess.Popen([*TRACEKIT, "run", str(pipeline), "-o", str(out), "--", str(loop),
                           str(n)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=tracekit_env(PYTHONPATH=str(tmp_path)))
    peak = 0
    try:
        while tk.poll() is None:
            peak = max(peak, _vm_hwm_kib(tk.pid) or 0)
            time.sleep(0.02)
        _, err = tk.communicate(timeout=10)
    finally:
        if tk.poll() is None:
            tk.kill()
            tk.wait()
    assert tk.returncode == 0, err
    calls, lifecycle, lost_calls, lost_lifecycle, _ = _split(read_events(out))
    assert len(calls) + lost_calls == n        # exact: every record delivered or counted
    assert len(lifecycle) + lost_lifecycle == 2
    # the queue holds about 750,000 records and the stage passes 82,000 a second at most:
    # unless the loop took over 20 s, most of the 3 M is lost
    assert lost_calls > n // 10, "the sleeping stage kept up: the kernel dropped too little"
    assert f"LOST {lost_calls + lost_lifecycle} records" in err and "buffer_pages" in err
    assert 0 < peak < RSS_BOUND_MIB * 1024, f"tracekit VmHWM {peak} KiB"


@pytest.mark.parametrize("opt", ["-i", "-k"])
def test_strace_stacks_do_not_count_as_lost_calls(tmp_path: Path, loop: Path, opt: str
                                                  ) -> None:
    """With -i or -k each call has a stack record before its own: a stack record the
    full ring has no room for is not a lost call (the call is printed without it and
    counted in stacks_missing); lines plus lost calls are still the calls made."""
    n = 100_000
    out = tmp_path / "out.txt"
    res = run_tracekit(["strace", opt, "--mmap-pages", "8", "-e", "trace=getppid", "-o",
                        str(out), str(loop), str(n)], timeout=120)
    assert res.returncode == 0, res.stderr
    shown = sum("getppid()" in line and not line.startswith(" > ")
                for line in out.read_text().splitlines())
    m = re.search(r"LOST \d+ records \((\d+) syscall,", res.stderr)
    assert m, res.stderr
    assert shown + int(m[1]) == n and int(m[1]) > 0
