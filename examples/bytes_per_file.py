"""A user stage: bytes written per file, from write calls and the fd paths ``beautify``
decodes.

Put a ``beautify`` stage (``fd_paths = true``, the default) before it: the stage reads the
file of each write from the decoded fd argument (``3</var/log/app.log>``). Leave
``openat`` in the filter (or no filter): the path of an fd is known from the call that
opened it; without it, beautify reads ``/proc/<pid>/fd``, which a short-lived process may
have left already. A write whose fd has no path is counted under ``fd <n> of <tgid>``.

From a pipeline file (``examples/`` on ``PYTHONPATH``: it is not a package)::

    [[stage]]
    kind = "beautify"
    [[stage]]
    kind = "user"
    use = "bytes_per_file:BytesPerFile"
    [stage.options]
    report = "written.txt"   # where the table goes at the end: "stderr" (default), a path
    top = 20                 # int >= 1: rows in the table

    $ PYTHONPATH=examples tracekit run pipeline.toml -- make

Counted calls: ``write``, ``pwrite64``, ``writev``, ``pwritev``, ``pwritev2`` that returned
``n > 0`` bytes (their return value, not the requested size). Every event is passed on
unchanged. The table (bytes descending, then path)::

        bytes  calls  file
      1048576    256  /tmp/out.bin
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import msgspec

from tracekit import SC_COMPAT, ConfigError, Syscall, SyscallTable
from tracekit.formatters import escape
from tracekit.pipeline import EventReceiver, EventSender, StageContext

__all__ = ["BytesPerFile", "fd_path"]

WRITE_CALLS = ("write", "pwrite64", "writev", "pwritev", "pwritev2")


def fd_path(decoded_fd: str) -> str | None:
    """The path in a decoded fd argument: ``'3</tmp/a b>'`` -> ``'/tmp/a b'``; None when
    it carries none (``'3'``). Paths are shown as strace -yy shows them (escaped)."""
    lt = decoded_fd.find("<")
    if lt <= 0 or not decoded_fd.endswith(">") or not decoded_fd[:lt].isdigit():
        return None
    return decoded_fd[lt + 1:-1]


class BytesPerFile:
    """Counts bytes written per file and writes a table when the input ends.

    Args:
      report: ``"stderr"``, ``"stdout"``, ``"none"`` or a file path (overwritten).
      top: rows in the table (the rest are summed in a last line).
      name: the stage's name in stats and errors.

    Attributes:
      bytes: ``{file: bytes written}``; file is a path, or ``fd <n> of <tgid>``.
      calls: ``{file: write calls that wrote > 0 bytes}``.

    Raises:
      TypeError: an option of the wrong type.
      ConfigError: ``top`` < 1.
    """

    def __init__(self, *, report: str = "stderr", top: int = 20,
                 name: str = "bytes_per_file") -> None:
        self.report = _typed("report", report, str)
        self.top = _typed("top", top, int)
        if self.top < 1:
            raise ConfigError(f"stage {name}: top must be >= 1, got {self.top}")
        self.name = name
        table = SyscallTable()
        self.syscall_nrs = frozenset(nr for n in WRITE_CALLS if (nr := table.nr(n)) is not None)
        self.bytes: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    def add(self, ev: object) -> None:
        """Count ``ev`` when it is a native write call that wrote bytes."""
        if (type(ev) is not Syscall or ev.syscall_nr not in self.syscall_nrs
                or ev.flags & SC_COMPAT or not 0 < ev.ret):
            return
        path = fd_path(ev.decoded.args[0]) if ev.decoded is not None and ev.decoded.args \
            else None
        key = path if path is not None else f"fd {ev.args[0]} of {ev.tgid}"
        self.bytes[key] += ev.ret
        self.calls[key] += 1

    def table(self) -> str:
        """The report text (module docstring)."""
        rows = sorted(self.bytes.items(), key=lambda kv: (-kv[1], kv[0]))
        lines = [f"{'bytes':>12} {'calls':>6}  file"]
        for key, n in rows[:self.top]:
            # beautify shows a path as strace does (escaped), but a stage before this
            # one may have put anything there: a key that is not printable is escaped
            shown = key if key.isprintable() else escape(key)
            lines.append(f"{n:>12} {self.calls[key]:>6}  {shown}")
        rest = rows[self.top:]
        if rest:
            lines.append(f"{sum(n for _, n in rest):>12} "
                         f"{sum(self.calls[k] for k, _ in rest):>6}  ({len(rest)} more files)")
        return "\n".join(lines) + "\n"

    async def run(self, ctx: StageContext, recv: EventReceiver, send: EventSender) -> None:
        add = self.add
        async with recv, send:
            async for batch in recv:
                for ev in batch:
                    add(ev)
                await send.send(batch)
        if self.bytes and not any(ev_key[0] == "/" for ev_key in self.bytes):
            ctx.log.warning("no write had an fd path: is a beautify stage before %s?",
                            self.name)
        self._write_report()

    def _write_report(self) -> None:
        if self.report == "none":
            return
        text = self.table()
        if self.report in ("stderr", "stdout"):
            stream = sys.stderr if self.report == "stderr" else sys.stdout
            stream.write(text)
            stream.flush()
            return
        with open(self.report, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)


def _typed(option: str, value: object, kind: type) -> Any:
    """``value`` converted to ``kind`` as msgspec converts TOML values.

    Raises:
      TypeError: the value has another type; the message names the option.
    """
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as e:
        raise TypeError(f"option {option}: {e}") from None
