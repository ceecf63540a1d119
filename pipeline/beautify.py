"""The beautify stage: add ``Syscall.decoded`` (strace's text of each call) to every event.

For each batch, in event order: a Syscall gets ``decoded = Decoded(name, args, ret)``
(``msgspec.structs.replace``); with fd paths on, every other event that changes fd
tables (a fork, an exec and the fds it kept, a call the selection hid, a table read at
start, an exit: tracekit.decode.fdcache) is applied to the decoder's fd cache. Every
event passes on. The stage never blocks: the only syscalls it makes are fd-cache misses
(``readlink`` of ``/proc/<tgid>/fd/<fd>``, a local read), ``stat`` of device paths and
sock_diag requests for sockets (local kernel reads), only when fd paths are on.

Stats counters: ``unknown_syscall_nr`` (records whose number no table names),
``fd_cache_misses``, ``fd_state`` (calls the selection hid, applied to the fd tables).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import msgspec

from tracekit._events import Batch, FdState, Syscall
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import syscall_args_lookup
from tracekit.pipeline._stage import EventReceiver, EventSender, StageConfigBase, StageContext

if TYPE_CHECKING:
    # the decoders are imported when a stage is made, not with the config
    # (a pipeline file names this stage's config; a JSON Lines output never decodes)
    from tracekit.decode.args import SyscallDecoder
    from tracekit.kernel.facts import Facts

__all__ = ["Beautify", "BeautifyConfig", "from_config"]


class BeautifyConfig(StageConfigBase, tag="beautify"):
    """Decode arguments: strings, flags, errno names (adds ``Syscall.decoded``)."""

    fd_paths: bool = True                # fds with what they refer to: 3</etc/passwd>
    string_limit: Annotated[int, msgspec.Meta(ge=0, le=1 << 20)] = 32  # bytes of strings shown

_replace = msgspec.structs.replace


class Beautify:
    """Decode every Syscall as strace prints it (module docstring).

    Args:
      decoder: the engine; default a :class:`~tracekit.decode.args.SyscallDecoder` with
        fd paths on, tracefs argument counts for syscalls the argspec does not list and
        tracefs argument C types.
    """

    name = "beautify"

    def __init__(self, decoder: SyscallDecoder | None = None) -> None:
        from tracekit.decode.args import SyscallDecoder

        self.decoder = decoder if decoder is not None else SyscallDecoder(
            fd_paths=True, arg_count=_tracefs_arg_count(), arg_types=_tracefs_arg_types())
        self.fd_state = 0       # FdState events applied (calls the selection hid)

    def beautify(self, batch: Batch) -> Batch:
        """The batch with ``decoded`` set on each Syscall (a new list)."""
        dec = self.decoder
        decode = dec.decode
        track = dec.track if dec.fd_paths else None
        out: Batch = []
        append = out.append
        for ev in batch:
            if isinstance(ev, Syscall):
                append(_replace(ev, decoded=decode(ev)))
                continue
            if track is not None:
                track(ev)
                if isinstance(ev, FdState):
                    self.fd_state += 1
            append(ev)
        return out

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        dec, stats = self.decoder, ctx.stats
        async with recv, send:
            async for batch in recv:
                unknown, misses, hidden = dec.unknown_nr, dec.fdcache.misses, self.fd_state
                out = self.beautify(batch)
                if self.fd_state != hidden:
                    stats.count("fd_state", self.fd_state - hidden)
                if dec.unknown_nr != unknown:
                    stats.count("unknown_syscall_nr", dec.unknown_nr - unknown)
                if dec.fdcache.misses != misses:
                    stats.count("fd_cache_misses", dec.fdcache.misses - misses)
                await send.send(out)


def _tracefs_arg_count() -> Callable[[str], int | None]:
    """syscall name -> argument count from tracefs formats, read on first use per name.

    Without a mounted tracefs (a pure pipeline off a recording) the answer is None
    (print 6 arguments); other tracefs errors propagate.
    """
    args_of = syscall_args_lookup()
    cache: dict[str, int | None] = {}

    def count(name: str) -> int | None:
        if name not in cache:
            fields = args_of(name)
            cache[name] = None if fields is None else len(fields)
        return cache[name]
    return count


def _tracefs_arg_types() -> Callable[[str], list[tuple[str, str]] | None]:
    """syscall name -> (argument name, C type) pairs from tracefs formats, read on first
    use per name (None without a mounted tracefs, as :func:`_tracefs_arg_count`)."""
    args_of = syscall_args_lookup()
    cache: dict[str, list[tuple[str, str]] | None] = {}

    def types(name: str) -> list[tuple[str, str]] | None:
        if name not in cache:
            fields = args_of(name)
            cache[name] = None if fields is None else [(f.name, f.c_type) for f in fields]
        return cache[name]
    return types


def from_config(cfg: BeautifyConfig, *, facts: Facts | None = None,
                table: SyscallTable | None = None) -> Beautify:
    """The stage for ``[[stage]] kind = "beautify"``: a decoder with ``cfg``'s ``fd_paths``
    (strace -yy) and ``string_limit`` (strace -s), on ``table`` (default this machine's
    syscall table); fd targets the calls did not show are read through ``facts``
    (tracekit.kernel.facts: a recording's), default /proc."""
    from tracekit.decode.args import SyscallDecoder
    from tracekit.decode.fdcache import FdCache

    reader = facts.reader("beautify") if facts is not None else None
    decoder = SyscallDecoder(
        table or SyscallTable(), fd_paths=cfg.fd_paths, fdcache=FdCache(facts=reader),
        string_limit=cfg.string_limit, arg_count=_tracefs_arg_count(),
        arg_types=_tracefs_arg_types())
    return Beautify(decoder)
