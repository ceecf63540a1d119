"""The summarize stage: passes batches unchanged, aggregates, interval snapshots merge."""

from __future__ import annotations

import functools
import random

import trio

from tracekit._events import SC_NORETURN, Batch, Lost, Syscall
from tracekit._summary import Summarizer
from tracekit.app.config import SummarizeConfig
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline import Pipeline, StageContext, map_stage
from tracekit.pipeline.summarize import Summarize, from_config

from .helpers import Collect, run_through

TABLE = SyscallTable("x86_64")
GETPPID, OPENAT, EXIT_GROUP = (TABLE.nr(n) for n in ("getppid", "openat", "exit_group"))


def ev(i: int, nr: int, *, tid: int = 10, tgid: int = 10, ret: int = 0, flags: int = 0,
       dur: int | None = None) -> Syscall:
    return Syscall(ts_ns=1_000 * (i + 1), duration_ns=100 + i if dur is None else dur,
                   tid=tid, tgid=tgid, cpu=0, syscall_nr=nr, args=(i, 0, 0, 0, 0, 0), ret=ret,
                   comm=f"t{tid}", flags=flags)


def workload(n: int = 300, seed: int = 7) -> list[Batch]:
    rng = random.Random(seed)
    tgid_of = {10: 10, 11: 10, 20: 20}
    tids = [rng.choice(list(tgid_of)) for _ in range(n)]
    events = [ev(i, rng.choice([GETPPID, OPENAT, 1000]), tid=tid, tgid=tgid_of[tid],
                 ret=rng.choice([0, 0, -2, -38]), dur=rng.randrange(10**6))
              for i, tid in enumerate(tids)]
    events.append(ev(n, EXIT_GROUP, flags=SC_NORETURN, dur=0))
    return [events[i:i + 16] for i in range(0, len(events), 16)]


def stage(**kw) -> Summarize:
    return Summarize(syscall_name=TABLE.name, compat_syscall_name=lambda nr: f"i386_{nr}", **kw)


async def test_batches_pass_unchanged_and_are_counted() -> None:
    batches = workload()
    s = stage(group_by="thread")
    _, out = await run_through(batches, [s])
    assert out == batches and all(a is b for a, b in zip(out, batches, strict=True))
    ref = Summarizer(TABLE.name)
    ref.add(e for b in batches for e in b)
    assert s.summary() == ref.summary("thread")
    assert s.summary("total").calls == sum(len(b) for b in batches)
    assert s.snapshots == []


async def test_after_a_filter_counts_only_what_passes() -> None:
    batches = workload()
    only_failed = map_stage(lambda b: [e for e in b if e.errno], name="failed")
    s = stage(group_by="total")
    await run_through(batches, [only_failed, s])
    total = s.summary()
    n_failed = sum(1 for b in batches for e in b if e.errno)
    assert total.calls == total.errors == n_failed > 0


async def test_lost_records_are_reported() -> None:
    s = stage()
    await run_through([[ev(0, GETPPID)], [Lost(ts_ns=5, count=4)]], [s])
    assert s.summary().lost == 4 and s.summary().calls == 1


def test_from_config() -> None:
    s = from_config(SummarizeConfig(group_by="process", sort="calls"))
    assert (s.group_by, s.sort, s.interval_s, s.name) == ("process", "calls", None, "summarize")


class _SlowSource:
    """Sends each batch ``gap_s`` apart on the trio clock."""

    name = "slow"

    def __init__(self, batches: list[Batch], gap_s: float) -> None:
        self.batches, self.gap_s = batches, gap_s

    async def run(self, ctx: StageContext, send, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        async with send:
            task_status.started()
            for b in self.batches:
                await send.send(b)
                await trio.sleep(self.gap_s)


async def test_interval_snapshots_merge_to_the_final_summary(autojump_clock) -> None:
    batches = workload(600)
    seen: list = []
    with_iv = stage(group_by="thread", interval_s=1.0, on_interval=seen.append, name="iv")
    plain = stage(group_by="thread", name="plain")      # same events, no intervals
    sink = Collect()
    with trio.fail_after(100):
        await Pipeline(_SlowSource(batches, 0.3), [with_iv, plain], [sink]).run()
    assert sink.out == batches
    snaps = with_iv.snapshots
    assert snaps == seen and len(snaps) >= len(batches) * 0.3 // 1
    assert all(s.group_by == "thread" for s in snaps)
    assert sum(s.calls for s in snaps) == sum(len(b) for b in batches)
    merged = functools.reduce(lambda a, b: a.merge(b), snaps)
    assert merged == plain.summary() == with_iv.summary()
    # by process too (a process's comm is not a statistic: compare the numbers)
    by_proc = functools.reduce(lambda a, b: a.merge(b), [x.regroup("process") for x in snaps])
    assert [(g.tgid, g.syscalls) for g in by_proc.groups] == \
        [(g.tgid, g.syscalls) for g in plain.summary("process").groups]
    # every interval holds only its own calls: no snapshot repeats an earlier one's
    assert all(0 < s.calls < merged.calls for s in snaps[:-1])


async def test_summary_is_readable_while_running(autojump_clock) -> None:
    batches = workload(64)
    s = stage(group_by="total")
    mid: list[int] = []

    @map_stage(name="peek")
    def peek(b: Batch) -> Batch:
        mid.append(s.summary().calls)
        return b

    await Pipeline(_SlowSource(batches, 0.1), [s, peek], [Collect()]).run()
    assert mid == [sum(len(b) for b in batches[:i + 1]) for i in range(len(batches))]
