"""BPF_PROG_LOAD, BPF_BTF_LOAD, links, ids and info against the real kernel and bpftool."""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import struct
import subprocess
from enum import IntEnum

import pytest

from tracekit._errors import AttachError, BpfError, ProgLoadError
from tracekit.bpf import sys as _bpf
from tracekit.bpf.uapi import AttachType, Cmd, LinkType, MapType, ProgType

from . import _insns as I

pytestmark = pytest.mark.kernel



def bpftool_json(*args: str) -> dict[str, object]:
    out = subprocess.run(["bpftool", "-j", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


RET0 = I.mov64_imm(I.R0, 0) + I.exit_()


@functools.cache
def kernel_enums() -> dict[str, dict[str, int]]:
    """enum name -> {enumerator: value} from the running kernel's BTF (bpftool)."""
    text = subprocess.run(["bpftool", "btf", "dump", "file", "/sys/kernel/btf/vmlinux",
                           "format", "c"], check=True, capture_output=True, text=True).stdout
    enums: dict[str, dict[str, int]] = {}
    for m in re.finditer(r"^enum (bpf_\w+) \{\n(.*?)^\};", text, re.M | re.S):
        enums[m[1]] = {k: int(v) for k, v in re.findall(r"^\t(\w+) = (-?\d+)", m[2], re.M)}
    return enums


@pytest.mark.parametrize(("enum", "c_enum", "prefix"), [
    (Cmd, "bpf_cmd", "BPF_"), (MapType, "bpf_map_type", "BPF_MAP_TYPE_"),
    (ProgType, "bpf_prog_type", "BPF_PROG_TYPE_"), (AttachType, "bpf_attach_type", "BPF_"),
    (LinkType, "bpf_link_type", "BPF_LINK_TYPE_"),
])
def test_uapi_enums_match_running_kernel(enum: type[IntEnum], c_enum: str, prefix: str) -> None:
    kernel = {k.removeprefix(prefix): v for k, v in kernel_enums()[c_enum].items()
              if not k.startswith("__") and not k.endswith("_DEPRECATED")}
    ours = {name: int(member) for name, member in enum.__members__.items()}
    assert {k: kernel.get(k) for k in ours} == ours
    # a newer kernel may append enumerators; it never renumbers or inserts
    newer = {k: v for k, v in kernel.items() if k not in ours}
    assert all(v > max(ours.values()) for v in newer.values()), newer


def test_uninitialised_register_is_refused_with_verifier_log() -> None:
    insns = I.mov64_reg(I.R0, I.R2) + I.exit_()        # r0 = r2; exit  (r2 never written)
    with pytest.raises(ProgLoadError, match=r"^\[Errno 13\] BPF_PROG_LOAD") as ei:
        _bpf.prog_load(ProgType.SOCKET_FILTER, insns, name="tk_bad")
    assert ei.value.errno == errno.EACCES
    assert ei.value.prog_name == "tk_bad"
    assert "R2 !read_ok" in ei.value.verifier_log
    assert "R2 !read_ok" in str(ei.value)              # the log tail is in the message


def test_log_asked_for_is_returned_on_failure() -> None:
    insns = I.mov64_reg(I.R0, I.R2) + I.exit_()
    with pytest.raises(ProgLoadError) as ei:
        _bpf.prog_load(ProgType.SOCKET_FILTER, insns, log_level=2, log_size=1 << 16)
    assert ei.value.errno == errno.EACCES and "R2 !read_ok" in ei.value.verifier_log


def test_unknown_helper_is_einval() -> None:
    insns = I.call(100_000) + RET0
    with pytest.raises(ProgLoadError) as ei:
        _bpf.prog_load(ProgType.SOCKET_FILTER, insns)
    assert ei.value.errno == errno.EINVAL and "invalid func" in ei.value.verifier_log


def test_valid_prog_info_matches_bpftool(fds: list[int]) -> None:
    fd = _bpf.prog_load(ProgType.SOCKET_FILTER, RET0, name="tk_ret0")
    fds.append(fd)
    info = _bpf.obj_get_info_by_fd(fd)
    assert isinstance(info, _bpf.ProgInfo)
    assert (info.name, info.type, info.gpl_compatible) == ("tk_ret0", ProgType.SOCKET_FILTER, True)
    peer = bpftool_json("prog", "show", "id", str(info.id))
    assert (peer["name"], peer["type"], peer["tag"], peer["bytes_xlated"]) == \
        ("tk_ret0", "socket_filter", info.tag, info.xlated_prog_len)
    assert _bpf.prog_test_run(fd, data_in=bytes(64))[0] == 0


def test_prog_ids_walk_finds_our_prog_and_fd_by_id(fds: list[int]) -> None:
    fd = _bpf.prog_load(ProgType.SOCKET_FILTER, RET0, name="tk_ids")
    fds.append(fd)
    my_id = _bpf.obj_get_info_by_fd(fd).id
    ids, cur = [], 0
    while (cur := _bpf.prog_get_next_id(cur)) is not None:
        ids.append(cur)
    assert my_id in ids and ids == sorted(ids)
    fd2 = _bpf.prog_get_fd_by_id(my_id)
    fds.append(fd2)
    assert _bpf.obj_get_info_by_fd(fd2).id == my_id
    with pytest.raises(BpfError, match=r"BPF_PROG_GET_FD_BY_ID") as ei:
        _bpf.prog_get_fd_by_id(0xFFFF_FFF0)
    assert ei.value.errno == errno.ENOENT


def test_prog_test_run_returns_retval_and_duration(fds: list[int]) -> None:
    fd = _bpf.prog_load(ProgType.SOCKET_FILTER, I.mov64_imm(I.R0, 42) + I.exit_())
    fds.append(fd)
    retval, duration_ns = _bpf.prog_test_run(fd, data_in=bytes(64), repeat=1000)
    assert retval == 42 and 0 < duration_ns < 1_000_000
    with pytest.raises(BpfError, match=r"^\[Errno 22\] BPF_PROG_TEST_RUN"):
        _bpf.prog_test_run(fd, data_in=bytes(4))        # shorter than an Ethernet header


def test_raw_tracepoint_link_info_matches_bpftool(fds: list[int]) -> None:
    prog = _bpf.prog_load(ProgType.RAW_TRACEPOINT, RET0, name="tk_rawtp")
    fds.append(prog)
    link = _bpf.raw_tracepoint_open("sys_enter", prog)
    fds.append(link)
    info = _bpf.obj_get_info_by_fd(link)
    prog_info = _bpf.obj_get_info_by_fd(prog)
    assert isinstance(info, _bpf.LinkInfo)
    assert (info.type, info.prog_id) == (LinkType.RAW_TRACEPOINT, prog_info.id)
    peer = bpftool_json("link", "show", "id", str(info.id))
    assert (peer["type"], peer["prog_id"], peer["tp_name"]) == \
        ("raw_tracepoint", prog_info.id, "sys_enter")
    with pytest.raises(AttachError, match=r"^\[Errno 2\] BPF_RAW_TRACEPOINT_OPEN") as ei:
        _bpf.raw_tracepoint_open("tk_no_such_tracepoint", prog)
    assert ei.value.target == "tk_no_such_tracepoint"


def test_link_create_with_wrong_attach_type_is_attach_error(fds: list[int]) -> None:
    prog = _bpf.prog_load(ProgType.SOCKET_FILTER, RET0)
    fds.append(prog)
    with pytest.raises(AttachError, match=r"BPF_LINK_CREATE") as ei:
        _bpf.link_create(prog, 0, AttachType.TRACE_RAW_TP, target="nowhere")
    assert ei.value.errno == errno.EINVAL and ei.value.target == "nowhere"


def btf_blob(int_bits: int = 32) -> bytes:
    """A BTF holding one type: ``int`` (4 bytes, signed, ``int_bits`` bits)."""
    strings = b"\0int\0"
    types = struct.pack("<III", 1, 1 << 24, 4)                  # name_off 1, BTF_KIND_INT, size 4
    types += struct.pack("<I", (1 << 24) | int_bits)            # BTF_INT_SIGNED, offset 0, bits
    hdr = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(strings))
    return hdr + types + strings


def test_btf_load_of_one_int(fds: list[int]) -> None:
    data = btf_blob()
    fd = _bpf.btf_load(data)
    fds.append(fd)
    info = _bpf.obj_get_info_by_fd(fd)
    assert isinstance(info, _bpf.BtfInfo)
    assert (info.btf_size, info.kernel_btf) == (len(data), False)
    peer = bpftool_json("btf", "dump", "id", str(info.id))
    assert peer["types"] == [{"id": 1, "kind": "INT", "name": "int", "size": 4,
                              "bits_offset": 0, "nr_bits": 32, "encoding": "SIGNED"}]


def test_corrupt_btf_raises_with_kernel_log() -> None:
    with pytest.raises(BpfError, match=r"^\[Errno 22\] BPF_BTF_LOAD") as ei:
        _bpf.btf_load(btf_blob(int_bits=64))                    # 64 bits in a 4-byte int
    assert ei.value.errno == errno.EINVAL
    assert "nr_bits exceeds type_size" in str(ei.value)


def test_obj_get_info_of_a_non_bpf_fd_is_einval() -> None:
    r, w = os.pipe()
    try:
        with pytest.raises(BpfError, match="not a bpf") as ei:
            _bpf.obj_get_info_by_fd(r)
        assert ei.value.errno == errno.EINVAL
    finally:
        os.close(r)
        os.close(w)



def test_lowlevel_exports_resolve_into_tracekit() -> None:
    import tracekit.lowlevel as lowlevel

    for name in lowlevel.__all__:
        obj = getattr(lowlevel, name)
        assert getattr(obj, "__module__", "tracekit").startswith("tracekit"), name
    assert lowlevel.RingBuf.__name__ == "RingBuf" and lowlevel.prog_load is _bpf.prog_load
