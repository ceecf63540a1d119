"""bpf(2) map commands against the real kernel, checked with bpftool where it can say."""

from __future__ import annotations

import errno
import json
import os
import struct
import subprocess

import pytest

from tracekit._errors import MapError
from tracekit.bpf import sys as _bpf
from tracekit.bpf.uapi import EXIST, F_NO_PREALLOC, NOEXIST, MapType

pytestmark = pytest.mark.kernel

U32 = struct.Struct("=I")
U64 = struct.Struct("=Q")



def make_map(fds: list[int], map_type: int, key_size: int, value_size: int, max_entries: int,
             **kw: object) -> int:
    fd = _bpf.map_create(map_type, key_size, value_size, max_entries, **kw)  # type: ignore[arg-type]
    fds.append(fd)
    return fd


def bpftool_map(map_id: int) -> dict[str, object]:
    out = subprocess.run(["bpftool", "-j", "map", "show", "id", str(map_id)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("map_type", [MapType.HASH, MapType.LRU_HASH])
def test_hash_update_lookup_delete_walk(fds: list[int], map_type: MapType) -> None:
    fd = make_map(fds, map_type, 4, 8, 64, name="tk_hash")
    for k in range(10):
        _bpf.map_update_elem(fd, U32.pack(k), U64.pack(k * 1000), map_name="tk_hash")
    assert _bpf.map_lookup_elem(fd, U32.pack(7), 8) == U64.pack(7000)
    assert _bpf.map_lookup_elem(fd, U32.pack(99), 8) is None            # ENOENT -> None

    # get_next_key walk from None visits each key once
    keys, key = [], None
    while (key := _bpf.map_get_next_key(fd, key, 4)) is not None:
        keys.append(U32.unpack(key)[0])
    assert sorted(keys) == list(range(10))

    assert _bpf.map_delete_elem(fd, U32.pack(3)) is True
    assert _bpf.map_delete_elem(fd, U32.pack(3)) is False               # ENOENT -> False
    assert _bpf.map_lookup_elem(fd, U32.pack(3), 8) is None

    with pytest.raises(MapError, match=r"^\[Errno 17\] BPF_MAP_UPDATE_ELEM") as ei:
        _bpf.map_update_elem(fd, U32.pack(4), U64.pack(0), NOEXIST, map_name="tk_hash")
    assert ei.value.errno == errno.EEXIST and ei.value.map_name == "tk_hash"
    with pytest.raises(MapError) as ei:
        _bpf.map_update_elem(fd, U32.pack(3), U64.pack(0), EXIST)
    assert ei.value.errno == errno.ENOENT


def test_map_create_info_matches_bpftool(fds: list[int]) -> None:
    fd = make_map(fds, MapType.HASH, 4, 16, 128, map_flags=F_NO_PREALLOC, name="tk_info")
    info = _bpf.obj_get_info_by_fd(fd)
    assert isinstance(info, _bpf.MapInfo)
    peer = bpftool_map(info.id)
    assert (peer["type"], peer["name"], peer["bytes_key"], peer["bytes_value"],
            peer["max_entries"], peer["flags"]) == ("hash", "tk_info", 4, 16, 128, F_NO_PREALLOC)
    assert (info.type, info.name, info.key_size, info.value_size, info.max_entries,
            info.map_flags) == (MapType.HASH, "tk_info", 4, 16, 128, F_NO_PREALLOC)


def test_full_preallocated_hash_says_e2big(fds: list[int]) -> None:
    fd = make_map(fds, MapType.HASH, 4, 4, 4, name="tk_full")
    for k in range(4):
        _bpf.map_update_elem(fd, U32.pack(k), U32.pack(k), map_name="tk_full")
    with pytest.raises(MapError, match=r"^\[Errno 7\] BPF_MAP_UPDATE_ELEM") as ei:
        _bpf.map_update_elem(fd, U32.pack(4), U32.pack(4), map_name="tk_full")
    assert ei.value.errno == errno.E2BIG
    assert ei.value.map_name == "tk_full"
    assert "tk_full" in str(ei.value)
    # updating a present key of a full map still works
    _bpf.map_update_elem(fd, U32.pack(2), U32.pack(20), map_name="tk_full")
    assert _bpf.map_lookup_elem(fd, U32.pack(2), 4) == U32.pack(20)


def test_array_entries_exist_and_cannot_be_deleted(fds: list[int]) -> None:
    fd = make_map(fds, MapType.ARRAY, 4, 8, 4, name="tk_array")
    assert _bpf.map_lookup_elem(fd, U32.pack(3), 8) == bytes(8)        # zero-filled
    assert _bpf.map_lookup_elem(fd, U32.pack(4), 8) is None            # out of range: ENOENT
    _bpf.map_update_elem(fd, U32.pack(1), U64.pack(42))
    assert _bpf.map_lookup_elem(fd, U32.pack(1), 8) == U64.pack(42)
    with pytest.raises(MapError, match=r"^\[Errno 22\] BPF_MAP_DELETE_ELEM") as ei:
        _bpf.map_delete_elem(fd, U32.pack(1), map_name="tk_array")
    assert ei.value.errno == errno.EINVAL
    with pytest.raises(MapError) as ei:
        _bpf.map_update_elem(fd, U32.pack(4), U64.pack(1))
    assert ei.value.errno == errno.E2BIG


def test_possible_cpus_matches_sysfs_and_os() -> None:
    n = _bpf.possible_cpus()
    present = [d for d in os.listdir("/sys/devices/system/cpu") if d[3:].isdigit()]
    assert n >= len(present) >= len(os.sched_getaffinity(0)) >= 1


@pytest.mark.parametrize("map_type", [MapType.PERCPU_ARRAY, MapType.PERCPU_HASH])
def test_percpu_values_have_one_slot_per_possible_cpu(fds: list[int], map_type: MapType) -> None:
    ncpu = _bpf.possible_cpus()
    fd = make_map(fds, map_type, 4, 4, 8, name="tk_percpu")
    slot = 8  # round_up(4, 8)
    value = b"".join(U32.pack(100 + cpu).ljust(slot, b"\0") for cpu in range(ncpu))
    _bpf.map_update_elem(fd, U32.pack(1), value)
    got = _bpf.map_lookup_elem(fd, U32.pack(1), slot * ncpu)
    assert got is not None
    assert [U32.unpack_from(got, cpu * slot)[0] for cpu in range(ncpu)] == \
        [100 + cpu for cpu in range(ncpu)]
    # bpftool reads the same per-CPU slots
    info = _bpf.obj_get_info_by_fd(fd)
    dump = json.loads(subprocess.run(
        ["bpftool", "-j", "map", "lookup", "id", str(info.id), "key", "1", "0", "0", "0"],
        check=True, capture_output=True, text=True).stdout)
    peer = {v["cpu"]: bytes(int(x, 16) for x in v["value"][:4]) for v in dump["values"]}
    assert peer == {cpu: U32.pack(100 + cpu) for cpu in range(ncpu)}


@pytest.mark.parametrize("map_type", [MapType.HASH, MapType.ARRAY])
def test_lookup_batch_returns_everything_once(fds: list[int], map_type: MapType) -> None:
    n = 50
    fd = make_map(fds, map_type, 4, 8, 64, name="tk_batch")
    for k in range(n):
        _bpf.map_update_elem(fd, U32.pack(k), U64.pack(k + 7))
    got: dict[int, int] = {}
    token: bytes | None = None
    calls = 0
    while True:
        keys, values, token = _bpf.map_lookup_batch(fd, token, 4, 8, 16, map_name="tk_batch")
        calls += 1
        for k, v in zip(keys, values, strict=True):
            assert U32.unpack(k)[0] not in got
            got[U32.unpack(k)[0]] = U64.unpack(v)[0]
        if token is None:
            break
        assert calls < 100
    expected = {k: k + 7 for k in range(n)}
    if map_type == MapType.ARRAY:   # all 64 slots exist; unset ones are zero
        expected.update({k: 0 for k in range(n, 64)})
    assert got == expected
    assert calls > 1   # the walk really went through several batches


def test_lookup_batch_of_empty_hash_is_done_at_once(fds: list[int]) -> None:
    fd = make_map(fds, MapType.HASH, 4, 8, 8)
    assert _bpf.map_lookup_batch(fd, None, 4, 8, 8) == ([], [], None)


def test_freeze_makes_updates_eperm(fds: list[int]) -> None:
    fd = make_map(fds, MapType.ARRAY, 4, 8, 2, name="tk_frozen")
    _bpf.map_update_elem(fd, U32.pack(0), U64.pack(5))
    _bpf.map_freeze(fd, map_name="tk_frozen")
    with pytest.raises(MapError, match=r"^\[Errno 1\] BPF_MAP_UPDATE_ELEM.*frozen") as ei:
        _bpf.map_update_elem(fd, U32.pack(0), U64.pack(6), map_name="tk_frozen")
    assert ei.value.errno == errno.EPERM and ei.value.map_name == "tk_frozen"
    assert _bpf.map_lookup_elem(fd, U32.pack(0), 8) == U64.pack(5)
    assert bpftool_map(_bpf.obj_get_info_by_fd(fd).id)["frozen"] == 1
    # a frozen map is no longer writable from the syscall side, which map_freeze checks
    # before its EBUSY "already frozen" test (kernel/bpf/syscall.c)
    with pytest.raises(MapError, match="frozen") as ei:
        _bpf.map_freeze(fd)
    assert ei.value.errno == errno.EPERM


def test_ringbuf_map_creation(fds: list[int]) -> None:
    fd = make_map(fds, MapType.RINGBUF, 0, 0, 1 << 16, name="tk_rb")
    info = _bpf.obj_get_info_by_fd(fd)
    assert isinstance(info, _bpf.MapInfo)
    assert (info.type, info.max_entries, info.name) == (MapType.RINGBUF, 1 << 16, "tk_rb")
    assert bpftool_map(info.id)["type"] == "ringbuf"
    with pytest.raises(MapError, match=r"^\[Errno 22\] BPF_MAP_CREATE") as ei:
        _bpf.map_create(MapType.RINGBUF, 0, 0, 3000, name="tk_bad_rb")   # not a power of 2
    assert ei.value.errno == errno.EINVAL and ei.value.map_name == "tk_bad_rb"


def test_map_error_on_bad_fd_carries_ebadf() -> None:
    with pytest.raises(MapError) as ei:   # far above RLIMIT_NOFILE: never an open fd
        _bpf.map_lookup_elem(1 << 30, U32.pack(0), 8, map_name="gone")
    assert ei.value.errno == errno.EBADF and ei.value.cmd == "BPF_MAP_LOOKUP_ELEM"
