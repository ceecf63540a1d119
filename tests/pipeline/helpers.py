"""Hand-made events, stages and sinks for pipeline tests (no kernel needed)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import trio

from tracekit._events import Batch, Event, Syscall
from tracekit.pipeline import (
    EventReceiver,
    EventSender,
    IterSource,
    Pipeline,
    PipelineResult,
    Sink,
    Stage,
    StageContext,
)


def sc(i: int, *, tid: int = 100, tgid: int = 100, nr: int = 0, ret: int = 0,
       comm: str = "task", flags: int = 0) -> Syscall:
    """A Syscall numbered ``i`` (ts_ns = 1_000_000 * (i + 1), duration 1 us)."""
    return Syscall(ts_ns=1_000_000 * (i + 1), duration_ns=1_000, tid=tid, tgid=tgid, cpu=0,
                   syscall_nr=nr, args=(i, 0, 0, 0, 0, 0), ret=ret, comm=comm, flags=flags)


def batches(n_batches: int, size: int = 4) -> list[Batch]:
    """``n_batches`` batches of ``size`` Syscalls numbered 0, 1, 2 ... in order."""
    return [[sc(b * size + k) for k in range(size)] for b in range(n_batches)]


def endless(size: int = 4) -> Iterator[Batch]:
    """Batches of Syscalls numbered 0, 1, 2 ... forever."""
    i = 0
    while True:
        yield [sc(i + k) for k in range(size)]
        i += size


def numbers(out: Sequence[Batch]) -> list[int]:
    """The ``args[0]`` number of every event, in order."""
    return [e.args[0] for b in out for e in b if isinstance(e, Syscall)]


class Pass:
    """A pass-through stage; sleeps ``delay_s`` per batch (a slow stage)."""

    def __init__(self, name: str = "pass", delay_s: float = 0.0) -> None:
        self.name = name
        self.delay_s = delay_s

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                if self.delay_s:
                    await trio.sleep(self.delay_s)
                await send.send(batch)


class Fail:
    """Forwards ``after`` batches, then raises ``exc``."""

    def __init__(self, exc: BaseException, *, after: int = 0, name: str = "fail") -> None:
        self.exc = exc
        self.after = after
        self.name = name

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            n = 0
            async for batch in recv:
                if n == self.after:
                    raise self.exc
                n += 1
                await send.send(batch)


class Take:
    """Forwards the first ``n`` batches, then exits early (closing its inbox)."""

    def __init__(self, n: int, name: str = "take") -> None:
        self.n = n
        self.name = name

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            if self.n == 0:
                return
            n = 0
            async for batch in recv:
                await send.send(batch)
                n += 1
                if n == self.n:
                    return


class Collect:
    """A sink that keeps every batch; ``delay_s`` per batch makes it slow; ``limit``
    makes it exit after that many batches."""

    def __init__(self, name: str = "collect", *, delay_s: float = 0.0,
                 limit: int | None = None) -> None:
        self.name = name
        self.delay_s = delay_s
        self.limit = limit
        self.out: list[Batch] = []
        self.eof = False

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        async with recv:
            async for batch in recv:
                if self.delay_s:
                    await trio.sleep(self.delay_s)
                self.out.append(batch)
                if self.limit is not None and len(self.out) >= self.limit:
                    return
            self.eof = True

    @property
    def events(self) -> list[Event]:
        return [e for b in self.out for e in b]


async def run_through(source_batches: Sequence[Batch], stages: Sequence[Stage] = (),
                      sinks: Sequence[Sink] | None = None, *, buffer: int = 2
                      ) -> tuple[PipelineResult, list[Batch]]:
    """Run ``IterSource(source_batches) -> stages -> sinks`` (default one Collect);
    return the result and the first sink's batches (if it is a Collect)."""
    sinks = list(sinks) if sinks is not None else [Collect()]
    with trio.fail_after(5):
        result = await Pipeline(IterSource(list(source_batches)), stages, sinks,
                                buffer=buffer).run()
    first = sinks[0]
    return result, first.out if isinstance(first, Collect) else []
