"""BpfObject on the real kernel: committed test programs from tests/data/programs/.

Every check is scoped to this test process: the programs filter on targ_tgid = our pid
and counts are taken for getppid, which no other thread of the test runner calls.
"""

from __future__ import annotations

import errno
import os
import struct
import subprocess
import threading
from pathlib import Path

import pytest

from tests._programs import data_object
from tests._run import wait_gone
from tracekit._errors import BpfError, ElfError, TracekitError
from tracekit.bpf import sys as _bpf
from tracekit.bpf.object import BpfObject
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.session import object_path

pytestmark = pytest.mark.kernel
GETPPID = SyscallTable().nr("getppid")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")


def _open(name: str) -> BpfObject:
    """``syscalls`` from the package, a ``test_*`` object from tests/data/programs/."""
    obj = BpfObject.open(object_path() if name == "syscalls" else data_object(name))
    if "targ_tgid" in obj.globals:
        obj.globals["targ_tgid"] = os.getpid()
    return obj


def test_maps_and_global_data_round_trip() -> None:
    n = 123
    with _open("test_maps") as obj:
        obj.globals["targ_magic"] = 0xDEADBEEF_CAFEF00D
        assert obj.globals["counter_data"] == 7  # .data initial value from the ELF
        obj.load()
        with pytest.raises(TracekitError, match="frozen"):
            obj.globals["targ_magic"] = 1
        links = obj.attach_all()
        for _ in range(n):
            os.getppid()
        tid = threading.get_native_id()
        for link in links:
            link.destroy()
        assert obj.maps["hash"][U32.pack(GETPPID)] == U64.pack(n)
        assert obj.maps["array"][U32.pack(0)] == U64.pack(0xDEADBEEF_CAFEF00D)
        hits = obj.globals["hits"]
        assert hits >= n
        per_cpu = obj.maps["percpu"][U32.pack(0)]
        assert sum(struct.unpack(f"<{len(per_cpu) // 8}Q", per_cpu)) == hits
        assert U64.unpack(obj.maps["lru"][U32.pack(tid)])[0] >= n
        assert obj.globals["counter_data"] == 7
        # .data/.bss are writable after load
        obj.globals["counter_data"] = 9
        assert obj.globals["counter_data"] == 9
        assert obj.maps["ringbuf"].fd >= 0
        # maps declared with __type(key/value) are created with the object's BTF
        assert _bpf.obj_get_info_by_fd(obj.maps["hash"].fd).btf_id > 0
        assert _bpf.obj_get_info_by_fd(obj.maps["ringbuf"].fd).btf_id == 0
        with pytest.raises(KeyError):
            obj.maps["hash"][U32.pack(100_000)]


def test_core_reads_task_tgid() -> None:
    with _open("test_core") as obj:
        obj.load()
        links = obj.attach_all()
        os.getppid()
        for link in links:
            link.destroy()
        assert obj.globals["seen_tgid"] == os.getpid()
        assert obj.globals["missing_field_exists"] == 0
        assert obj.globals["seen_calls"] >= 1


def _perf_count_true() -> int:
    r = subprocess.run(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return int(next(ln for ln in r.stderr.splitlines() if "sys_enter" in ln).split(",")[0])


def test_classic_tracepoint_prog_never_vetoes() -> None:
    """Rule 1: with a classic tracepoint prog attached, perf still counts every event."""
    baseline = _perf_count_true()
    with _open("test_tracepoint") as obj:
        obj.load()
        prog = obj.progs["tt_sys_enter"]
        link = prog.attach()
        try:
            os.getppid()
            during = _perf_count_true()
        finally:
            link.destroy()
        assert obj.globals["hits"] >= 1
    assert during == baseline


def test_close_leaves_no_prog_or_map() -> None:
    obj = _open("syscalls")
    obj.load()
    obj.attach_all()
    prog_ids = [_bpf.obj_get_info_by_fd(p.fd).id for p in obj.progs.values()]
    map_ids = [_bpf.obj_get_info_by_fd(m.fd).id for m in obj.maps.values()]
    obj.close()
    obj.close()  # idempotent
    for prog_id in prog_ids:
        wait_gone("prog", prog_id)
    for map_id in map_ids:
        wait_gone("map", map_id)


def test_load_error_closes_everything(tmp_path) -> None:
    """A failing load (map too large) closes what it created and keeps the errno."""
    before = set(os.listdir("/proc/self/fd"))
    obj = _open("syscalls")
    obj.maps["events"].max_entries = 3 * 4096  # not a power of 2: EINVAL from the kernel
    with pytest.raises(BpfError) as ei:
        obj.load()
    assert ei.value.errno == errno.EINVAL
    assert "events" in str(ei.value)
    assert set(os.listdir("/proc/self/fd")) <= before | {str(i) for i in range(3)}


@pytest.mark.parametrize("mangle", ["truncate", "not_bpf", "no_btf"])
def test_malformed_objects_raise_elf_error(tmp_path, mangle: str) -> None:
    raw = data_object("test_core").read_bytes()
    if mangle == "truncate":
        data = raw[: len(raw) // 3]
    elif mangle == "not_bpf":
        data = Path("/bin/true").read_bytes()
    else:  # rename .BTF so it is not found
        data = raw.replace(b".BTF\0", b".XTF\0")
    p = tmp_path / "bad.bpf.o"
    p.write_bytes(data)
    with pytest.raises(ElfError) as ei:
        BpfObject.open(p)
    assert str(p) in str(ei.value)


def test_missing_file_names_it(tmp_path) -> None:
    with pytest.raises(ElfError, match="nope.bpf.o"):
        BpfObject.open(tmp_path / "nope.bpf.o")


async def test_ringbuf_records_arrive_in_order_nothing_lost() -> None:
    """test_ringbuf writes {seq, ts} per getppid; the async reader gets all, in order."""
    import trio

    from tracekit.bpf.ringbuf import RingBuf

    n = 20_000
    with _open("test_ringbuf") as obj:
        obj.globals["targ_nr"] = GETPPID
        obj.maps["events"].max_entries = 64 << 10  # 64 KiB: forces many wrap-arounds
        obj.load()
        ev = obj.maps["events"]
        seqs: list[int] = []
        with RingBuf(ev.fd, ev.max_entries) as rb:
            links = obj.attach_all()

            async def produce() -> None:
                for i in range(n):
                    os.getppid()
                    if i % 500 == 0:
                        await trio.sleep(0)  # let the reader drain: a small buffer

            async with trio.open_nursery() as nursery:
                nursery.start_soon(produce)
                with trio.fail_after(30):
                    async for batch in rb:
                        seqs.extend(U64.unpack_from(r)[0] for r in batch)
                        if len(seqs) + obj.globals["lost"] >= n:
                            break
            for link in links:
                link.destroy()
        assert obj.globals["lost"] == 0
        assert obj.globals["next_seq"] == n
        assert seqs == list(range(n))
