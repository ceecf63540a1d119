"""Records for the decoder unit tests: an x86_64 Syscall of a named call, a decoder, and
the decoded text (shared by the tests of tests/decode that build records by hand)."""

from __future__ import annotations

from pathlib import Path

from tracekit._events import CAP_STRUCT, CAPF_AT_EXIT, Capture, Syscall
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64 = SyscallTable("x86_64")


def call(name: str, args: tuple[int, ...], ret: int = 0, caps: tuple[Capture, ...] = ()
         ) -> Syscall:
    """A completed call of ``name`` by tid 1, its missing arguments 0."""
    nr = X64.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def decoder(tmp_path: Path) -> SyscallDecoder:
    """An x86_64 decoder whose fd cache reads a /proc of its own (empty)."""
    return SyscallDecoder(X64, fdcache=FdCache(str(tmp_path)))


def line(d: SyscallDecoder, ev: Syscall) -> str:
    """``name(args) = ret`` as the strace format prints it."""
    out = d.decode(ev)
    return f"{out.name}({', '.join(out.args)}) = {out.ret}"


def args(d: SyscallDecoder, ev: Syscall) -> str:
    """The decoded arguments alone, joined."""
    return ", ".join(d.decode(ev).args)


def ioctl_of_hostile_memory(req: int, data: list[bytes], flags: int, ret: int, arg: int,
                            full: bool) -> list[str]:
    """ioctl ``req`` on fd 3 with argument ``arg``, its memory captured as ``data`` (the
    first at entry, the others at exit, each with ``flags``), decoded by a fresh x86_64
    decoder (with -v when ``full``): asserts that it decoded and returns the arguments."""
    d = SyscallDecoder(X64, fdcache=FdCache("/nonexistent"))
    d.verbose = full
    caps = tuple(Capture(2, CAP_STRUCT, flags | (CAPF_AT_EXIT if k else 0), b)
                 for k, b in enumerate(data))
    out = d.decode(call("ioctl", (3, req, arg), ret, caps))
    assert out.name == "ioctl" and all(isinstance(a, str) for a in out.args)
    return list(out.args)

