"""A user stage: flag ``fsync``/``fdatasync`` calls slower than a threshold.

From a pipeline file (``examples/`` on ``PYTHONPATH``: it is not a package)::

    [[stage]]
    kind = "user"
    use = "slow_fsync:SlowFsync"
    [stage.options]
    threshold_ms = 5.0       # float >= 0: flag calls that took longer than this
    only_slow = true         # bool: forward only the flagged calls (default: every event)

    $ PYTHONPATH=examples tracekit run pipeline.toml -- ./my-database

From Python: ``SlowFsync(threshold_ms=5.0)`` in a Pipeline's stages, then read
``stage.slow``. Each flagged call is logged (``tracekit.stage.slow_fsync``, WARNING; the
comm escaped as the text formats escape it) and counted in the stage's stats (``counters["slow"]``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracekit import SC_COMPAT, ConfigError, Syscall, SyscallTable
from tracekit.formatters import escape
from tracekit.pipeline import EventReceiver, EventSender, StageContext

__all__ = ["SlowFsync"]

SYNC_CALLS = ("fsync", "fdatasync")


class SlowFsync:
    """Flags ``fsync``/``fdatasync`` calls whose duration exceeds ``threshold_ms``.

    Args:
      threshold_ms: flag calls with ``duration_ns > threshold_ms * 1e6``; >= 0.
      only_slow: forward only the flagged calls; default False forwards every event
        unchanged (the stage then only watches).
      name: the stage's name in stats and errors.

    Attributes:
      slow: the flagged :class:`~tracekit.Syscall` events, in arrival order.

    Raises:
      TypeError: an option of the wrong type (a pipeline file reports it as a ConfigError
        naming the stage).
      ConfigError: a negative threshold.
    """

    def __init__(self, *, threshold_ms: float = 10.0, only_slow: bool = False,
                 name: str = "slow_fsync") -> None:
        # typed keyword options (TOML `5` is an int: accepted for a float)
        threshold_ms = _typed("threshold_ms", threshold_ms, float)
        only_slow = _typed("only_slow", only_slow, bool)
        if threshold_ms < 0:
            raise ConfigError(f"stage {name}: threshold_ms must be >= 0, got {threshold_ms}")
        self.name = name
        self.threshold_ns = int(threshold_ms * 1_000_000)
        self.only_slow = only_slow
        table = SyscallTable()
        self.syscall_nrs = frozenset(nr for n in SYNC_CALLS if (nr := table.nr(n)) is not None)
        self.slow: list[Syscall] = []

    def is_slow(self, ev: object) -> bool:
        """Whether ``ev`` is a native fsync/fdatasync that returned after the threshold."""
        return (type(ev) is Syscall and ev.syscall_nr in self.syscall_nrs
                and not ev.flags & SC_COMPAT and ev.duration_ns > self.threshold_ns)

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        async with recv, send:
            async for batch in recv:
                flagged = [ev for ev in batch if self.is_slow(ev)]
                for ev in flagged:
                    ctx.stats.count("slow")
                    # comm is the traced process's choice: escaped, so it cannot send
                    # control sequences to the terminal the log goes to
                    ctx.log.warning("slow %s: %.3f ms, fd %d, %s/%d", ev.decoded.name
                                    if ev.decoded else "fsync", ev.duration_ns / 1e6,
                                    ev.args[0], escape(ev.comm), ev.tid)
                self.slow.extend(flagged)
                if self.only_slow:
                    ctx.stats.dropped += len(batch) - len(flagged)
                    if flagged:
                        await send.send(flagged)
                else:
                    await send.send(batch)


def _typed(option: str, value: object, kind: type) -> Any:
    """``value`` converted to ``kind`` as msgspec converts TOML values (int -> float ok,
    str -> float not).

    Raises:
      TypeError: the value has another type; the message names the option.
    """
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as e:
        raise TypeError(f"option {option}: {e}") from None
