"""capget/capset's header and data (tracekit/decode/structs_cred.py) on packed bytes and
through SyscallDecoder; expected texts are what strace 6.1 printed on this machine
(tests/e2e/test_strace_sweep_fs.py compares with strace itself)."""

from __future__ import annotations

import struct

from tracekit._events import CAP_STRUCT, CAPF_FAULT, Capture, Syscall
from tracekit.decode import flags as F, structs_cred as C
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.syscalls import SyscallTable

X64 = SyscallTable("x86_64")
FL = F.for_arch("x86_64")
V1, V3 = 0x19980330, 0x20080522


def sc(name: str, args: tuple[int, ...], ret: int, caps: tuple[Capture, ...]) -> Syscall:
    nr = X64.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def test_header_versions() -> None:
    assert C.format_cap_header(struct.pack("<Ii", V3, 0), FL) == (
        "{version=_LINUX_CAPABILITY_VERSION_3, pid=0}")
    assert C.format_cap_header(struct.pack("<Ii", 0, -1), FL) == (
        "{version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=-1}")
    assert C.format_cap_header(struct.pack("<Ii", 0x12345678, 1), FL) == (
        "{version=0x12345678 /* _LINUX_CAPABILITY_VERSION_??? */, pid=1}")
    assert C.format_cap_header(b"\0" * 4, FL) is None


def test_data_joins_the_two_halves() -> None:
    data = struct.pack("<6I", 0b11, 0b1, 0, 1 << 8, 0, 0)      # CAP_CHOWN..., bit 40
    assert C.format_cap_data(data, 2, FL) == (
        "{effective=1<<CAP_CHOWN|1<<CAP_DAC_OVERRIDE|1<<CAP_CHECKPOINT_RESTORE, "
        "permitted=1<<CAP_CHOWN, inheritable=0}")
    assert C.format_cap_data(data, 1, FL) == (
        "{effective=1<<CAP_CHOWN|1<<CAP_DAC_OVERRIDE, permitted=1<<CAP_CHOWN, inheritable=0}")
    assert C.format_cap_data(data[:12], 2, FL) is None


def test_capget_and_capset_decoded(tmp_path: object) -> None:
    d = SyscallDecoder(X64, fdcache=FdCache(str(tmp_path)))
    hdr3 = Capture(0, CAP_STRUCT, 0, struct.pack("<Ii", V3, 0))
    data = Capture(1, CAP_STRUCT, 0, struct.pack("<6I", 1, 1, 0, 0, 0, 0))
    head = "{version=_LINUX_CAPABILITY_VERSION_3, pid=0}"
    sets = "{effective=1<<CAP_CHOWN, permitted=1<<CAP_CHOWN, inheritable=0}"
    assert d.decode(sc("capget", (0x10, 0x20), 0, (hdr3, data))).args == (head, sets)
    assert d.decode(sc("capset", (0x10, 0x20), 0, (hdr3, data))).args == (head, sets)
    # a failed capget: the data's address; capget's NULL data
    assert d.decode(sc("capget", (0x10, 0x20), -22, (hdr3,))).args == (head, "0x20")
    assert d.decode(sc("capget", (0x10, 0), 0, (hdr3,))).args == (head, "NULL")
    # an unreadable header: both addresses
    bad = Capture(0, CAP_STRUCT, CAPF_FAULT, b"")
    assert d.decode(sc("capset", (1, 0x20), -14, (bad, data))).args == ("0x1", "0x20")
    assert d.decode(sc("capget", (0, 0x20), -14, ())).args == ("NULL", "0x20")
    # version 1 (and an unknown one): one element
    hdr1 = Capture(0, CAP_STRUCT, 0, struct.pack("<Ii", V1, 0))
    assert d.decode(sc("capget", (0x10, 0x20), 0, (hdr1, data))).args[1] == sets
