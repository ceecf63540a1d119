"""execve's environment strings read in the kernel (TK_CAP_ENVP, strace -v), on the real
kernel: only when the session asks (``SessionOptions.envp_strings``), every string up to
256 of them, each cut at the bytes asked, and from the new image when the caller's
strings could not be read at entry."""

from __future__ import annotations

import sys
import textwrap

import pytest
import trio

from tracekit._events import (
    CAP_ARGV,
    CAP_ENVP,
    CAP_STRUCT,
    CAPF_ARGV_TRUNC,
    CAPF_AT_EXIT,
    CAPF_FAULT,
    Syscall,
    decode_record,
)
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import Field
from tracekit.session.capture import (
    ARGV_CAP,
    ENVP_BIG,
    ENVP_COUNT_ELEM,
    ENVP_SMALL,
    specs_for,
)
from tracekit.session.session import Session, SessionOptions

TABLE = SyscallTable()
EXECVE_ARGS = [Field("filename", "const char *", 0, 8, False, False),
               Field("argv", "const char *const *", 8, 8, False, False),
               Field("envp", "const char *const *", 16, 8, False, False)]


def test_envp_strings_replace_the_count_only_when_asked() -> None:
    plain = specs_for("execve", EXECVE_ARGS).specs
    # the pointer array twice, and a walk that keeps 2 bytes of each string (a count)
    assert [(s.kind, s.size) for s in plain if s.arg == 2] == [
        (CAP_STRUCT, ENVP_BIG), (CAP_STRUCT, ENVP_SMALL), (CAP_ENVP, ENVP_COUNT_ELEM)]
    asked = specs_for("execve", EXECVE_ARGS, envp_strings=33).specs
    (envp,) = [s for s in asked if s.arg == 2]
    assert (envp.kind, envp.cap, envp.size) == (CAP_ENVP, ARGV_CAP, 33)
    assert [s.kind for s in asked if s.arg != 2] == [s.kind for s in plain if s.arg != 2]
    # strace -v prints every element of argv, -s N of them: read as envp is, when asked
    assert [s.kind for s in plain if s.arg == 1] == [CAP_ARGV]
    both = specs_for("execve", EXECVE_ARGS, envp_strings=33, argv_strings=41).specs
    (argv,) = [s for s in both if s.arg == 1]
    assert (argv.kind, argv.cap, argv.size) == (CAP_ENVP, ARGV_CAP, 41)
    assert [s for s in both if s.arg != 1] == [s for s in asked if s.arg != 1]
    assert specs_for("openat", EXECVE_ARGS[:1], envp_strings=33) == specs_for(
        "openat", EXECVE_ARGS[:1])


def _trace(src: str, *args: str, envp_strings: int, argv_strings: int = 0
           ) -> list[Syscall]:
    """``python3 -c src args...`` traced with ``envp_strings``: its successful execves
    of /bin/true."""
    async def main() -> list[bytes]:
        s = Session(SessionOptions(command=[sys.executable, "-c", textwrap.dedent(src), *args],
                                   syscalls={TABLE.nr("execve")}, buffer_bytes=4 << 20,
                                   envp_strings=envp_strings,
                                   argv_strings=argv_strings))
        try:
            await s.start()
            assert s.command is not None and s.ringbuf is not None
            with trio.fail_after(60):
                rc = await s.command.wait()
            assert rc == 0, f"workload exited {rc}"
            return [bytes(r) for r in s.ringbuf.consume()]
        finally:
            s.close()

    evs = [decode_record(raw) for raw in trio.run(main)]
    return [ev for ev in evs if isinstance(ev, Syscall) and ev.ret == 0 and
            any(c.arg == 0 and c.data == b"/bin/true" for c in ev.caps)]


# execve of /bin/true with n variables "V<i>=<value>": in memory the program wrote, or
# (file) in a file mapping it never touched, whose pages are not yet present at entry
# The workloads' start: place(block, where) puts bytes in memory the program wrote
# ("heap") or in a file mapping it never touched ("file"), and returns their address.
_PLACE = r"""
import ctypes, mmap, sys, tempfile
libc = ctypes.CDLL(None, use_errno=True)
keep = []
def place(block, where):
    if where == "file":
        f = tempfile.TemporaryFile()
        f.write(block)
        f.flush()
        keep.append(f)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        return libc.mmap(None, len(block), mmap.PROT_READ, mmap.MAP_PRIVATE, f.fileno(), 0)
    buf = ctypes.create_string_buffer(block)
    keep.append(buf)
    return ctypes.addressof(buf)
"""

EXEC_SRC = _PLACE + r"""
n, width, where = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
block = b"".join(b"V%d=%s\0" % (i, b"v" * width) for i in range(n))
base = place(block, where)
offs, at = [], 0
for i in range(n):
    offs.append(at)
    at = block.index(b"\0", at) + 1
envp = (ctypes.c_void_p * (n + 1))(*[base + o for o in offs], None)
argv = (ctypes.c_char_p * 2)(b"true", None)
libc.execve(b"/bin/true", argv, envp)
"""


def _expected(n: int, width: int, cut: int) -> list[bytes]:
    """The strings as TK_CAP_ENVP keeps them: a longer one as its first cut + 1 bytes."""
    return [(b"V%d=%s" % (i, b"v" * width))[:cut + 1] for i in range(n)]


@pytest.mark.kernel
@pytest.mark.parametrize(("n", "width"), [(3, 2), (40, 2), (60, 40)])
def test_every_string_each_cut(n: int, width: int) -> None:
    (ev,) = _trace(EXEC_SRC, str(n), str(width), "heap", envp_strings=33)
    (envp,) = [c for c in ev.caps if c.arg == 2]
    assert (envp.kind, envp.flags) == (CAP_ENVP, 0)
    assert envp.data.split(b"\0")[:-1] == _expected(n, width, 33)
    (argv,) = [c for c in ev.caps if c.arg == 1]
    assert argv.kind == CAP_ARGV and argv.data == b"true\0"


@pytest.mark.kernel
def test_more_strings_than_read_are_marked() -> None:
    (ev,) = _trace(EXEC_SRC, "300", "1", "heap", envp_strings=33)
    (envp,) = [c for c in ev.caps if c.arg == 2]
    assert envp.flags == CAPF_ARGV_TRUNC
    assert envp.data.split(b"\0")[:-1] == _expected(256, 1, 33)


@pytest.mark.kernel
def test_strings_unreadable_at_entry_come_from_the_new_image() -> None:
    (ev,) = _trace(EXEC_SRC, "5", "3", "file", envp_strings=33)
    (envp,) = [c for c in ev.caps if c.arg == 2]
    assert envp.kind == CAP_ENVP and envp.flags & CAPF_AT_EXIT, envp
    assert not envp.flags & CAPF_FAULT
    assert envp.data.split(b"\0")[:-1] == _expected(5, 3, 33)


@pytest.mark.kernel
def test_not_read_by_default() -> None:
    (ev,) = _trace(EXEC_SRC, "3", "2", "heap", envp_strings=0)
    assert [c.kind for c in ev.caps if c.arg == 2]
    for c in ev.caps:
        if c.arg == 2 and c.kind != CAP_STRUCT:     # the walk that counts: 2 bytes each
            assert c.kind == CAP_ENVP
            assert max(map(len, c.data.split(b"\0")[:-1])) <= ENVP_COUNT_ELEM + 1


# execve of /bin/true with argv "true", "A1", ... "A<n-1>" (strings and pointer array in
# memory the program wrote, or in a file mapping it never touched), a short environment
ARGV_SRC = _PLACE + r"""
n, where = int(sys.argv[1]), sys.argv[2]
items = [b"true"] + [b"A%d" % i for i in range(1, n)]
block = b"".join(a + b"\0" for a in items)
base = place(block, where)
offs, at = [], 0
for a in items:
    offs.append(at)
    at += len(a) + 1
argv = (ctypes.c_void_p * (n + 1))(*[base + o for o in offs], None)
envp = (ctypes.c_char_p * 2)(b"E=1", None)
libc.execve(b"/bin/true", argv, envp)
"""


def _argv_items(n: int) -> list[bytes]:
    return [b"true"] + [b"A%d" % i for i in range(1, n)]


@pytest.mark.kernel
@pytest.mark.parametrize("n", [40, 256])
def test_verbose_reads_every_argv_element(n: int) -> None:
    """strace -v prints all of argv (without it, -s elements): read as envp, up to 256."""
    (ev,) = _trace(ARGV_SRC, str(n), "heap", envp_strings=33, argv_strings=33)
    (argv,) = [c for c in ev.caps if c.arg == 1]
    assert (argv.kind, argv.flags) == (CAP_ENVP, 0)
    assert argv.data.split(b"\0")[:-1] == _argv_items(n)
    (plain,) = _trace(ARGV_SRC, str(n), "heap", envp_strings=0)
    (argv,) = [c for c in plain.caps if c.arg == 1]
    assert argv.kind == CAP_ARGV and argv.flags == CAPF_ARGV_TRUNC
    assert argv.data.split(b"\0")[:-1] == _argv_items(32)


@pytest.mark.kernel
def test_verbose_argv_beyond_256_is_marked() -> None:
    (ev,) = _trace(ARGV_SRC, "300", "heap", envp_strings=0, argv_strings=33)
    (argv,) = [c for c in ev.caps if c.arg == 1]
    assert argv.flags == CAPF_ARGV_TRUNC
    assert argv.data.split(b"\0")[:-1] == _argv_items(256)


@pytest.mark.kernel
def test_verbose_argv_unreadable_at_entry_comes_from_the_new_image() -> None:
    (ev,) = _trace(ARGV_SRC, "50", "file", envp_strings=33, argv_strings=33)
    (argv,) = [c for c in ev.caps if c.arg == 1]
    assert argv.kind == CAP_ENVP and argv.flags & CAPF_AT_EXIT, argv
    assert not argv.flags & CAPF_FAULT
    assert argv.data.split(b"\0")[:-1] == _argv_items(50)
    (envp,) = [c for c in ev.caps if c.arg == 2]
    assert envp.data == b"E=1\0"               # envp is still envp, after argv
