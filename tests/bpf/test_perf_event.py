"""perf_event_open(2) counters and PERF_EVENT_IOC_SET_BPF against the real kernel."""

from __future__ import annotations

import errno
import os
import struct
import threading
from pathlib import Path

import pytest

from tracekit._errors import AttachError, BpfError, TracefsError
from tracekit.bpf import perf_event as _perf, sys as _bpf
from tracekit.bpf.uapi import PERF_TYPE_TRACEPOINT, MapType, ProgType

from . import _insns as I

pytestmark = pytest.mark.kernel

TRACEFS = Path("/sys/kernel/tracing")
N = 1000



@pytest.fixture
def sys_enter_id() -> int:
    if not (TRACEFS / "events").is_dir():
        pytest.skip(f"tracefs not mounted at {TRACEFS}")
    return _perf.tracepoint_id(TRACEFS, "raw_syscalls", "sys_enter")


def syscall_counter(fds: list[int], tp_id: int, **kw: object) -> int:
    """A counting event on raw_syscalls:sys_enter for this thread only."""
    tid = threading.get_native_id()   # == os.getpid() on the main thread
    fd = _perf.perf_event_open(type=PERF_TYPE_TRACEPOINT, config=tp_id, pid=tid, cpu=-1,
                               **kw)  # type: ignore[arg-type]
    fds.append(fd)
    return fd


def test_counter_counts_this_threads_syscalls(fds: list[int], sys_enter_id: int) -> None:
    fd = syscall_counter(fds, sys_enter_id)
    before = _perf.read_counter(fd)        # read(2) itself is a syscall: counted
    for _ in range(N):
        os.getppid()
    delta = _perf.read_counter(fd) - before
    # N getppid calls and the read; nothing like the whole machine's syscalls
    assert N <= delta < 2 * N


def test_disabled_counter_counts_only_when_enabled(fds: list[int], sys_enter_id: int) -> None:
    fd = syscall_counter(fds, sys_enter_id, disabled=True)
    for _ in range(N):
        os.getppid()
    assert _perf.read_counter(fd) == 0
    _perf.enable(fd)
    for _ in range(N):
        os.getppid()
    _perf.disable(fd)
    counted = _perf.read_counter(fd)
    for _ in range(N):
        os.getppid()
    assert N <= counted < 2 * N
    assert _perf.read_counter(fd) == counted


def counting_prog(counter_fd: int, tid: int) -> bytes:
    """TRACEPOINT prog: counter[0] += 1 when the current tid is ``tid``; returns 1 (no veto)."""
    body = (
        I.st_w(I.R10, -4, 0)
        + I.mov64_reg(I.R2, I.R10) + I.add64_imm(I.R2, -4)
        + I.ld_map_fd(I.R1, counter_fd)
        + I.call(I.FUNC_MAP_LOOKUP_ELEM)
    )
    bump = I.ldx_dw(I.R1, I.R0, 0) + I.add64_imm(I.R1, 1) + I.stx_dw(I.R0, 0, I.R1)
    body += I.jeq_imm(I.R0, 0, I.n_insns(bump)) + bump
    head = (
        I.call(14)                                                  # bpf_get_current_pid_tgid
        + I.insn(0x67, I.R0, imm=32) + I.insn(0x77, I.R0, imm=32)  # r0 = (u32)r0 = tid
        + I.jne_imm(I.R0, tid, I.n_insns(body))
    )
    return head + body + I.mov64_imm(I.R0, 1) + I.exit_()


def test_attached_prog_and_a_counter_both_see_every_syscall(fds: list[int],
                                                            sys_enter_id: int) -> None:
    """Kernel rule 1: a prog on the tracepoint leaves other listeners their events."""
    tid = threading.get_native_id()
    counter = _bpf.map_create(MapType.ARRAY, 4, 8, 1, name="tk_count")
    fds.append(counter)
    prog = _bpf.prog_load(ProgType.TRACEPOINT, counting_prog(counter, tid), name="tk_count")
    fds.append(prog)
    perf_fd = syscall_counter(fds, sys_enter_id, disabled=True)
    _perf.attach_bpf(perf_fd, prog, target="raw_syscalls/sys_enter")   # enables it too
    peer = syscall_counter(fds, sys_enter_id)
    peer_before = _perf.read_counter(peer)
    for _ in range(N):
        os.getppid()
    peer_delta = _perf.read_counter(peer) - peer_before
    raw = _bpf.map_lookup_elem(counter, bytes(4), 8)
    assert raw is not None
    prog_count = struct.unpack("=Q", raw)[0]
    assert N <= peer_delta < 2 * N
    assert N <= prog_count < 2 * N + 50    # the prog also saw the attach-time syscalls


def test_attach_of_wrong_prog_type_is_attach_error(fds: list[int], sys_enter_id: int) -> None:
    prog = _bpf.prog_load(ProgType.SOCKET_FILTER, I.mov64_imm(I.R0, 0) + I.exit_())
    fds.append(prog)
    perf_fd = syscall_counter(fds, sys_enter_id, disabled=True)
    with pytest.raises(AttachError, match=r"^\[Errno 22\] PERF_EVENT_IOC_SET_BPF") as ei:
        _perf.attach_bpf(perf_fd, prog, target="raw_syscalls/sys_enter")
    assert ei.value.errno == errno.EINVAL and ei.value.target == "raw_syscalls/sys_enter"


def test_perf_event_open_of_unknown_tracepoint_carries_errno() -> None:
    with pytest.raises(BpfError, match=r"perf_event_open") as ei:
        _perf.perf_event_open(type=PERF_TYPE_TRACEPOINT, config=0x7FFF_FFF0, pid=os.getpid(),
                              cpu=-1)
    assert ei.value.errno in (errno.ENOENT, errno.EINVAL)
    assert ei.value.cmd == "perf_event_open"


def test_tracepoint_id_agrees_with_the_format_file(sys_enter_id: int) -> None:
    fmt = (TRACEFS / "events/raw_syscalls/sys_enter/format").read_text()
    assert f"\nID: {sys_enter_id}\n" in fmt


def test_tracepoint_id_of_missing_event_is_tracefs_error(tmp_path: Path) -> None:
    with pytest.raises(TracefsError) as ei:
        _perf.tracepoint_id(tmp_path, "raw_syscalls", "sys_enter")
    assert ei.value.errno == errno.ENOENT
    assert ei.value.path == str(tmp_path / "events/raw_syscalls/sys_enter/id")
