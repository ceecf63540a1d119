"""Nothing lost or skipped without a word: each counter of loss reaches the end of the
run, exactly, on stderr and in the ``losses`` event that ends JSON Lines: tasks the pids
map could not hold, calls recorded without their captures (the capture map full), events
a stage dropped, calls and errnos the in-kernel summary could not count (after its
tables). (Ring-buffer records by kind: tests/e2e/test_lost_records.py.)
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
import trio

from tests._run import TRACEKIT, read_events, run_tracekit, tracekit_env, write_pipeline
from tracekit._events import Fork, Losses, Syscall
from tracekit._summary import Summary
from tracekit.app.trace import LiveTrace
from tracekit.bpf.object import BpfObject
from tracekit.formatters import JsonlSink
from tracekit.formatters.summary import SummarySink
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session import kernel_summary
from tracekit.session.session import SessionOptions

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()


def _stderr_says(stderr: str, losses: Losses) -> None:
    """Every line of the losses is on stderr, in order."""
    said = [line.removeprefix("tracekit: ") for line in stderr.splitlines()
            if line.startswith("tracekit: ")]
    assert [line for line in said if line in losses.lines()] == losses.lines(), stderr


def test_tasks_the_pids_map_could_not_hold(tmp_path: Path) -> None:
    # the shell and its first three children fill a 4-entry map and outlive the nine
    # children forked after them: those nine are never traced
    script = ("sleep 1.5 & sleep 1.5 & sleep 1.5 & "
              "for i in 1 2 3 4 5 6 7 8 9; do sleep 0.1 & done; wait")
    out = tmp_path / "out.jsonl"
    pipeline = write_pipeline(tmp_path, f"""\
        pids_max_entries = 4
        [target]
        command = ["sh", "-c", {json.dumps(script)}]
        [output]
        format = "jsonl"
        path = "{out}"
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    events = read_events(out)
    losses = events[-1]
    assert isinstance(losses, Losses)
    children = {e.child_tid for e in events if isinstance(e, Fork)}
    seen = {e.tid for e in events if isinstance(e, Syscall)}
    assert len(children) == 12 and len(children - seen) == 9
    assert losses.untraced_tasks == 9
    assert losses.total == 9                    # nothing else was lost
    _stderr_says(r.stderr, losses)
    assert "9 tasks were not traced: the pids map was full" in r.stderr
    assert "raise pids_max_entries" in r.stderr


DROPPER = """
class Dropper:
    name = "dropper"

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                kept = [e for e in batch if getattr(e, "syscall_nr", None) != {nr}]
                ctx.stats.dropped += len(batch) - len(kept)
                if kept:
                    await send.send(kept)
"""


def test_events_a_stage_dropped(tmp_path: Path, loop: Path) -> None:
    n = 2000
    getppid = TABLE.nr("getppid")
    (tmp_path / "tk_dropper.py").write_text(DROPPER.format(nr=getppid))
    out = tmp_path / "out.jsonl"
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [[stage]]
        kind = "user"
        use = "tk_dropper:Dropper"
        [output]
        format = "jsonl"
        path = "{out}"
        """)
    r = subprocess.run([*TRACEKIT, "run", str(pipeline), "--", str(loop), str(n)],
                       capture_output=True, text=True, timeout=60,
                       env=tracekit_env(PYTHONPATH=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    events = read_events(out)
    losses = events[-1]
    assert isinstance(losses, Losses)
    assert not any(isinstance(e, Syscall) and e.syscall_nr == getppid for e in events)
    assert losses.dropped == {"dropper": n} and losses.total == n
    _stderr_says(r.stderr, losses)
    assert f"stage 'dropper' dropped {n} events" in r.stderr


def test_calls_recorded_without_captures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path
                                         ) -> None:
    """A capture map of one slot: the main thread's execve takes it for the thread's
    life, so every captured call of a second thread goes out without its captures, each
    counted; the count reaches the losses event."""
    opened = BpfObject.open.__func__  # type: ignore[attr-defined]

    def small_capbuf(cls: type[BpfObject], source: object) -> BpfObject:
        obj = opened(cls, source)
        if "capbuf" in obj.maps:
            obj.maps["capbuf"].max_entries = 1
        return obj

    monkeypatch.setenv("TRACEKIT_CACHE_DIR", "off")    # from the ELF, through the patch
    monkeypatch.setattr(BpfObject, "open", classmethod(small_capbuf))
    n = 50
    code = ("import os, threading\n"
            "def work():\n"
            f"    for _ in range({n}):\n"
            "        try:\n"
            "            os.open('/nonexistent/tracekit-capbuf', os.O_RDONLY)\n"
            "        except FileNotFoundError:\n"
            "            pass\n"
            "t = threading.Thread(target=work); t.start(); t.join()\n")
    out = tmp_path / "out.jsonl"
    trace = LiveTrace(SessionOptions(command=[sys.executable, "-c", code]),
                      sinks=[JsonlSink(out)], collect=False)
    trio.run(trace.run)
    assert trace.returncode == 0
    events = read_events(out)
    losses = events[-1]
    assert isinstance(losses, Losses) and trace.final_losses is not None
    assert msgspec.structs.replace(losses, ts_ns=0) == msgspec.structs.replace(
        trace.final_losses, ts_ns=0)                 # the sink's, and the trace's at its end
    main = next(e.tid for e in events if isinstance(e, Syscall))
    openat = TABLE.nr("openat")
    mine = [e for e in events if isinstance(e, Syscall) and e.syscall_nr == openat
            and e.tid != main and e.ret == -2]
    assert len(mine) >= n and all(e.caps == () for e in mine)
    assert losses.capbuf_full >= len(mine)
    assert ("calls were recorded without their strings and buffers: the capture map was "
            "full") in "\n".join(losses.lines())


def test_in_kernel_summary_maps_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Summary maps of 12 (thread, syscall) entries and 1 errno entry: the calls the
    kernel could not count, and the errors it could not count by errno, reach the
    summary's losses, its text and the trace's."""
    opened = BpfObject.open.__func__  # type: ignore[attr-defined]

    def small_maps(cls: type[BpfObject], source: object) -> BpfObject:
        obj = opened(cls, source)
        obj.maps["summary_errno"].max_entries = 1
        return obj

    monkeypatch.setattr(kernel_summary, "SUMMARY_SLOTS", 12)
    monkeypatch.setenv("TRACEKIT_CACHE_DIR", "off")    # from the ELF, through the patch
    monkeypatch.setattr(BpfObject, "open", classmethod(small_maps))
    code = ("import os\n"
            "for path in ('/nonexistent/a', '/'):\n"
            "    for flags in (os.O_RDONLY, os.O_WRONLY):\n"
            "        try:\n"
            "            os.open(path, flags)\n"
            "        except OSError:\n"
            "            pass\n")
    out = io.StringIO()
    box: dict[str, LiveTrace] = {}

    def read_summary() -> Summary:
        session = box["trace"].session
        assert session is not None
        return session.kernel_summary().read()

    sink = SummarySink(out, table="strace", group_by="total", summary_from=read_summary)
    trace = LiveTrace(SessionOptions(command=[sys.executable, "-c", code], summary=True,
                                     capture=False), sinks=[sink], collect=False)
    box["trace"] = trace
    trio.run(trace.run)
    assert trace.returncode == 0
    losses = trace.final_losses
    assert losses is not None and sink.result is not None
    # python's start-up makes more than 12 distinct calls; openat, among the first, fails
    # with ENOENT and (the workload's) EISDIR
    assert losses.summary_full > 0 and losses.errno_full > 0
    assert sink.result.losses is not None
    assert (sink.result.losses.summary_full, sink.result.losses.errno_full) == (
        losses.summary_full, losses.errno_full)
    assert sink.result.lost == losses.summary_full            # the summary's own count
    line = (f" the in-kernel summary missed {losses.summary_full} calls and "
            f"{losses.errno_full} errno counts: its maps were full")
    assert line in out.getvalue().splitlines()


@pytest.mark.parametrize("replay", [False, True])
def test_jsonl_on_stdout_ends_with_the_losses(tmp_path: Path, replay: bool) -> None:
    """JSON Lines written to standard output (the default: no -o) end with the ``losses``
    event too, live and replayed, and its ring-buffer count is the LOST line's: a ring
    buffer of one page loses most of 20000 calls."""
    cfg = write_pipeline(tmp_path, f"""\
        buffer_pages = 1
        [target]
        command = ["{sys.executable}", "-c", "import os\\nfor _ in range(20000): os.getppid()"]
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "jsonl"
        """)
    rec = tmp_path / "t.tkrec"
    r = subprocess.run([*TRACEKIT, "run", str(cfg), "--record", str(rec)],
                       capture_output=True, text=True, env=tracekit_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    if replay:
        r = subprocess.run([*TRACEKIT, "replay", str(rec), "-F", "jsonl"],
                           capture_output=True, text=True, env=tracekit_env(), timeout=60)
        assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    last = msgspec.json.decode(lines[-1], type=Losses)
    calls = sum(1 for line in lines if json.loads(line).get("syscall_nr") == TABLE.nr("getppid"))
    assert last.lost_syscalls > 0 and calls + last.lost_syscalls == 20000
    _stderr_says(r.stderr, last)


def test_calls_recorded_without_their_stacks(tmp_path: Path) -> None:
    """The kernel counts a call whose stacks it could not take (no memory for the task's
    stack slot: an allocation under GFP_ATOMIC, or the task storage busy, which this
    machine cannot be made to show on demand): the count reaches the losses event and
    its line. The counter is raised here in the live session's own per-CPU map, as the
    program raises it, while the traced command waits."""
    from tracekit.bpf import sys as bpf_sys

    code = "import time, os\ntime.sleep(1.0)\nos.getppid()\n"
    out = tmp_path / "out.jsonl"
    trace = LiveTrace(SessionOptions(command=[sys.executable, "-c", code], stacks="user"),
                      sinks=[JsonlSink(out)], collect=False)
    per_cpu = 3
    ncpu = bpf_sys.possible_cpus()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trace.run)
            with trio.fail_after(30):
                while trace.session is None or trace.session.obj is None or \
                        trace.session.ringbuf is None:
                    await trio.sleep(0.01)
            counters = trace.session.obj.maps["counters"]
            counters.update_elem((9).to_bytes(4, "little"),     # TK_CNT_STACK_FULL
                                 per_cpu.to_bytes(8, "little") * ncpu)

    trio.run(main)
    assert trace.returncode == 0
    losses = read_events(out)[-1]
    assert isinstance(losses, Losses) and losses.stacks_missing >= per_cpu * ncpu
    assert f"{losses.stacks_missing} calls were recorded without their stacks" in \
        "\n".join(losses.lines())
