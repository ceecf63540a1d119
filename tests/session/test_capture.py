"""Captured user memory in syscall records, on the real kernel.

Each test runs a Python workload of its own under a Session whose ``_load`` also fills the
beauty map (the integrator wires ``fill_beauty_map`` into ``Session._load``; until then this
subclass does it), drains the ring buffer after the workload exits and looks for the calls
the workload made with unique arguments.
"""

from __future__ import annotations

import socket
import struct
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
import trio

from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_STR,
    CAP_STRUCT,
    CAPF_ARGV_TRUNC,
    CAPF_AT_EXIT,
    CAPF_FAULT,
    CAPF_TRUNC,
    Capture,
    Syscall,
    decode_record,
)
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import find_tracefs
from tracekit.session.capture import ARGV_ELEM_CAP, BUF_CAP, STR_CAP, fill_beauty_map
from tracekit.session.session import Session, SessionOptions

pytestmark = pytest.mark.kernel
TABLE = SyscallTable()


class CaptureSession(Session):
    """A Session that fills the beauty map after loading (what Session._load will do)."""

    def _load(self) -> None:
        super()._load()
        assert self.obj is not None
        assert fill_beauty_map(self.obj, TABLE, find_tracefs()) > 0


def trace(src: str, *args: str) -> list[tuple[int, Syscall]]:
    """Run ``python3 -c src args...`` traced; every syscall record as (record bytes, event)."""
    async def main() -> list[bytes]:
        s = CaptureSession(SessionOptions(command=[sys.executable, "-c", textwrap.dedent(src),
                                                   *args], buffer_bytes=16 << 20))
        try:
            await s.start()
            assert s.command is not None and s.ringbuf is not None
            with trio.fail_after(60):
                rc = await s.command.wait()
            assert rc == 0, f"workload exited {rc}"
            records = [bytes(r) for r in s.ringbuf.consume()]
            assert s.counters().lost == 0
            return records
        finally:
            s.close()

    out = []
    for raw in trio.run(main):
        ev = decode_record(raw)
        if isinstance(ev, Syscall):
            out.append((len(raw), ev))
    return out


def calls(records: list[tuple[int, Syscall]], name: str) -> list[Syscall]:
    nr = TABLE.nr(name)
    return [ev for _, ev in records if ev.syscall_nr == nr and not ev.flags]


def cap_of(ev: Syscall, arg: int) -> Capture:
    found = [c for c in ev.caps if c.arg == arg]
    assert len(found) == 1, ev.caps
    return found[0]


def test_openat_paths_exact_long_and_cut(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    short = f"{tmp_path}/{tag}-short"
    near = "/" + "/".join([tag[:8] + "x" * 91] * 40)[: 4000 - 1]   # 4000 bytes, ENAMETOOLONG-free
    over = f"/{tag}" + "y" * 5000                                    # longer than PATH_MAX
    assert len(near) == 4000
    recs = trace("""
        import os, sys
        for p in sys.argv[1:]:
            try:
                os.open(p, os.O_RDONLY)
            except OSError:
                pass
    """, short, near, over)
    seen = [(cap_of(ev, 1), ev.ret) for ev in calls(recs, "openat")]
    mine = [(c.kind, c.flags, c.data, ret) for c, ret in seen if tag[:8].encode() in c.data[:200]]
    assert mine == [
        (CAP_STR, 0, short.encode(), -2),                          # ENOENT: nothing created
        (CAP_STR, 0, near.encode(), -2),                           # complete, not cut
        (CAP_STR, CAPF_TRUNC, over.encode()[:STR_CAP], -36),       # ENAMETOOLONG, cut
    ]


def test_records_without_captures_stay_112_bytes() -> None:
    recs = trace("""
        import os
        for _ in range(50):
            os.getppid()
        os.close(os.open("/dev/null", os.O_RDONLY))
    """)
    nr_getppid, nr_openat = TABLE.nr("getppid"), TABLE.nr("openat")
    sizes = {n for n, ev in recs if ev.syscall_nr == nr_getppid}
    assert sizes == {112}
    assert [ev.caps for n, ev in recs if ev.syscall_nr == nr_getppid] == [()] * 50
    opens = [(n, ev) for n, ev in recs if ev.syscall_nr == nr_openat
             and ev.caps and ev.caps[0].data == b"/dev/null"]
    # 112 + caps header 8 + tk_cap 8 + "/dev/null" (9 bytes) padded to 16
    assert [n for n, _ in opens] == [144]


EXEC_SRC = """
    import os, sys
    argvs = [["prog", "", "a b", ""], ["many"] + [str(i) for i in range(99)],
             ["long", "z" * 2000, "after"]]
    for argv in argvs:
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/true", argv)
        _, status = os.waitpid(pid, 0)
        assert status == 0
"""


def test_execve_argv_order_empty_strings_and_cuts() -> None:
    recs = trace(EXEC_SRC)
    execs = [ev for ev in calls(recs, "execve") if ev.ret == 0]
    argvs = {}
    for ev in execs:
        path, argv = cap_of(ev, 0), cap_of(ev, 1)
        assert argv.kind == CAP_ARGV
        argvs[argv.data.split(b"\0", 1)[0]] = (path, argv)
    path, argv = argvs[b"prog"]
    assert path.data == b"/bin/true"
    assert (argv.flags, argv.data) == (0, b"prog\0\0a b\0\0")
    _, argv = argvs[b"many"]
    assert argv.flags == CAPF_ARGV_TRUNC
    assert argv.data.split(b"\0")[:-1] == [b"many"] + [str(i).encode() for i in range(31)]
    _, argv = argvs[b"long"]
    # the cut element ends the data without its NUL; "after" was not read
    assert argv.flags == CAPF_TRUNC | CAPF_ARGV_TRUNC
    assert argv.data == b"long\0" + b"z" * ARGV_ELEM_CAP


# execve with its envp array at the very end of a mapping whose next page is unmapped:
# the entry's 2048-byte read of the array runs off the mapping and faults as a whole
ENVP_AT_MAPPING_END_SRC = r"""
import ctypes, sys
n = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
base = libc.mmap(None, 8192, 3, 0x22, -1, 0)    # PROT_READ|PROT_WRITE, MAP_PRIVATE|ANON
assert libc.munmap(ctypes.c_void_p(base + 4096), ctypes.c_size_t(4096)) == 0
strs = [ctypes.create_string_buffer(b"V%d=x" % i) for i in range(n)]
arr = base + 4096 - 8 * (n + 1)
ptrs = (ctypes.c_void_p * (n + 1)).from_address(arr)
for i, v in enumerate(strs):
    ptrs[i] = ctypes.addressof(v)
ptrs[n] = None
argv = (ctypes.c_char_p * 2)(b"true", None)
libc.execve(b"/bin/true", argv, ctypes.c_void_p(arr))
"""


@pytest.mark.parametrize("n", [3, 39])
def test_envp_read_that_faults_is_counted_from_the_new_image(n: int) -> None:
    """The entry read of envp faults; the exit reads the new image's envp array (on its
    stack), whose count is the same: ``/* n vars */`` is never lost to a fault."""
    from tracekit.decode.structs_fs import count_envp

    recs = trace(ENVP_AT_MAPPING_END_SRC, str(n))
    (ev,) = [ev for ev in calls(recs, "execve") if ev.ret == 0 and
             any(c.arg == 0 and c.data == b"/bin/true" for c in ev.caps)]
    envp = [c for c in ev.caps if c.arg == 2]
    at_exit = [c for c in envp if c.flags & CAPF_AT_EXIT]
    assert at_exit and not at_exit[0].flags & CAPF_FAULT, envp
    assert count_envp(at_exit[0].data) == n


def test_write_buffer_cut_at_cap_and_exact() -> None:
    tag = uuid.uuid4().hex.encode()
    big = (tag * 40)[:1000]
    small = tag[:10]
    recs = trace("""
        import os, sys
        fd = os.open("/dev/null", os.O_WRONLY)
        for a in sys.argv[1:]:
            os.write(fd, a.encode())
    """, big.decode(), small.decode())
    caps = [cap_of(ev, 1) for ev in calls(recs, "write")]
    mine = [c for c in caps if c.data.startswith(tag[:10])]
    assert [(c.kind, c.flags, c.data) for c in mine] == [
        (CAP_BUF, CAPF_TRUNC, big[:BUF_CAP]), (CAP_BUF, 0, small)]


def test_read_buffer_captured_at_exit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    content = uuid.uuid4().hex.encode() * 3
    data.write_bytes(content)
    recs = trace("""
        import os, sys
        fd = os.open(sys.argv[1], os.O_RDONLY)
        os.read(fd, 4096)
    """, str(data))
    mine = [ev for ev in calls(recs, "read") if ev.ret == len(content)]
    assert [(cap_of(ev, 1).kind, cap_of(ev, 1).data) for ev in mine] == [(CAP_BUF, content)]


def test_connect_sockaddr_bytes() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        port = srv.getsockname()[1]
        recs = trace("""
            import socket, sys
            socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
        """, str(port))
    # struct sockaddr_in: sa_family (host order), port and address (network order), zero pad
    want = struct.pack("=H", socket.AF_INET) + struct.pack("!H", port) \
        + socket.inet_aton("127.0.0.1") + bytes(8)
    mine = [cap_of(ev, 1) for ev in calls(recs, "connect")
            if ev.args[2] == 16 and cap_of(ev, 1).data == want]
    assert [(c.kind, c.flags) for c in mine] == [(CAP_STRUCT, 0)]


def test_path_in_page_not_faulted_in_is_read_at_exit(tmp_path: Path) -> None:
    """The path lives in a file mapping the process never touched: no page table entry at
    entry (bpf_probe_read_user_str cannot fault), the kernel's own copy faults it in, so
    the exit read finds it."""
    target = f"{tmp_path}/{uuid.uuid4().hex}-untouched"
    holder = tmp_path / "holder"
    holder.write_bytes(target.encode() + b"\0")
    recs = trace("""
        import ctypes, mmap, os, sys
        fd = os.open(sys.argv[1], os.O_RDONLY)
        m = mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ)

        class PyBuffer(ctypes.Structure):  # Py_buffer, to learn the address untouched
            _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object),
                        ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                        ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                        ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p),
                        ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                        ("internal", ctypes.c_void_p)]

        view = PyBuffer()
        ctypes.pythonapi.PyObject_GetBuffer(ctypes.py_object(m), ctypes.byref(view), 0)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        # openat(AT_FDCWD, path in the untouched page, O_RDONLY)
        libc.syscall(ctypes.c_long(int(sys.argv[2])), ctypes.c_long(-100),
                     ctypes.c_void_p(view.buf), ctypes.c_long(0))
        ctypes.pythonapi.PyBuffer_Release(ctypes.byref(view))
    """, str(holder), str(TABLE.nr("openat")))
    # Select the call by its path: under load another openat's path (the interpreter's
    # own imports) may be in a page not faulted in too and be read at exit as well.
    mine = [ev for ev in calls(recs, "openat") if ev.caps and ev.caps[0].data.endswith(
        b"-untouched")]
    assert len(mine) == 1, [c for ev in calls(recs, "openat") for c in ev.caps][-5:]
    c = cap_of(mine[0], 1)
    assert (c.kind, c.flags, c.data) == (CAP_STR, CAPF_AT_EXIT, target.encode())
    assert not c.flags & CAPF_FAULT
    assert mine[0].ret == -2

