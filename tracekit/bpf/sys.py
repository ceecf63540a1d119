"""Raw bpf(2): one function per ``BPF_*`` command, taking and returning fds.

Each function builds its own zeroed ctypes attr structure holding the fields of
``union bpf_attr`` (include/uapi/linux/bpf.h) that its command uses, and passes
``sizeof(attr)`` as bpf(2)'s size (libbpf's ``attr_sz``). The kernel accepts a shorter
attr than its own union, and a longer one whose tail is zero (``bpf_check_uarg_tail_zero``
in kernel/bpf/syscall.c).

Errors: a negative return raises at once with ``ctypes.get_errno()``: :class:`MapError`
for map commands, :class:`ProgLoadError` for ``BPF_PROG_LOAD``, :class:`AttachError` for
``BPF_LINK_CREATE`` and ``BPF_RAW_TRACEPOINT_OPEN``, :class:`BpfError` otherwise. Expected
absences are values, not errors: ENOENT from a lookup, a delete, get_next_key or
get_next_id returns None/False.

Fds returned here are owned by the caller, who closes them with ``os.close``.
"""

from __future__ import annotations

import ctypes
import errno as _errno
import functools
import os
import platform
from collections.abc import Sequence
from ctypes import c_char, c_uint8, c_uint32, c_uint64

import msgspec

from tracekit._errors import AttachError, BpfError, MapError, ProgLoadError
from tracekit.bpf.uapi import ENOTSUPP, OBJ_NAME_LEN, Cmd

__all__ = [
    "BtfInfo", "LinkInfo", "MapInfo", "ProgInfo", "btf_load", "link_create", "link_get_next_id",
    "map_create", "map_delete_elem", "map_freeze", "map_get_fd_by_id", "map_get_next_id",
    "map_get_next_key", "map_lookup_batch", "map_lookup_elem", "map_update_elem",
    "obj_get_info_by_fd", "possible_cpus", "prog_get_fd_by_id", "prog_get_next_id", "prog_load",
    "prog_test_run", "raw_tracepoint_open",
]

# Syscall numbers: arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h
_NR_BPF = {"x86_64": 321, "aarch64": 280, "arm64": 280}

_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long

_CAPS = {"CAP_SYS_ADMIN": 21, "CAP_PERFMON": 38, "CAP_BPF": 39}


@functools.cache
def _nr_bpf() -> int:
    machine = platform.machine()
    try:
        return _NR_BPF[machine]
    except KeyError:
        raise BpfError("bpf", _errno.ENOSYS, f"no bpf(2) syscall number for {machine}") from None


def _missing_caps(needed: tuple[str, ...]) -> str:
    """Say which of ``needed`` this process lacks (CapEff of /proc/self/status), for EPERM."""
    try:
        with open("/proc/self/status") as f:
            cap_eff = next(int(line.split()[1], 16) for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration, ValueError) as e:
        return f"needs {' and '.join(needed)} (could not read CapEff: {e})"
    missing = [c for c in needed if not cap_eff >> _CAPS[c] & 1]
    if missing:
        return f"missing {' and '.join(missing)} (or run as root)"
    if _in_user_namespace():
        # kernel/bpf/syscall.c checks capable(): capabilities of the initial user
        # namespace, not those a user namespace grants (user_namespaces(7))
        return (f"has {', '.join(needed)} only inside a user namespace (unshare -U, a "
                "rootless container): bpf(2) needs them in the initial one")
    return f"has {', '.join(needed)}: EPERM from another cause (lockdown, LSM, sysctl)"


def _in_user_namespace() -> bool:
    """Whether this process runs in a user namespace other than the initial one: its
    /proc/self/uid_map maps less than the whole uid range onto itself (the initial
    namespace's map is ``0 0 4294967295``; user_namespaces(7))."""
    try:
        with open("/proc/self/uid_map") as f:
            rows = [line.split() for line in f if line.strip()]
    except OSError:
        return False
    return rows != [["0", "0", "4294967295"]]


def _sys_bpf(cmd: Cmd, attr: ctypes.Structure) -> tuple[int, int]:
    """bpf(cmd, &attr, sizeof(attr)) -> (ret, errno); errno is read at once, 0 on success."""
    ret = _syscall(ctypes.c_long(_nr_bpf()), ctypes.c_long(cmd), ctypes.byref(attr),
                   ctypes.c_long(ctypes.sizeof(attr)))
    if ret < 0:
        return ret, ctypes.get_errno()
    return ret, 0


def _cmd_name(cmd: Cmd) -> str:
    return f"BPF_{cmd.name}"


def _raise(cmd: Cmd, err: int, detail: str = "") -> BpfError:
    if err == _errno.EPERM and not detail:
        detail = _missing_caps(("CAP_BPF",))
    if err == ENOTSUPP:
        detail += ": ENOTSUPP (524, kernel-internal): not supported for this object"
    return BpfError(_cmd_name(cmd), err, detail)


def _map_error(cmd: Cmd, err: int, map_name: str) -> MapError:
    detail = f"map {map_name!r}" if map_name else ""
    if err == _errno.EPERM:
        if cmd in (Cmd.MAP_UPDATE_ELEM, Cmd.MAP_DELETE_ELEM, Cmd.MAP_FREEZE):
            why = "map frozen (BPF_MAP_FREEZE) or read-only (BPF_F_RDONLY)"
        else:
            why = _missing_caps(("CAP_BPF",))
        detail = f"{detail}: {why}" if detail else why
    return MapError(_cmd_name(cmd), err, detail, map_name=map_name)


def _name16(name: str) -> bytes:
    """An object name as the kernel stores it: at most 15 bytes plus NUL (BPF_OBJ_NAME_LEN).

    Longer names are truncated, as libbpf does; the kernel accepts [A-Za-z0-9_.] only
    (bpf_obj_name_cpy in kernel/bpf/syscall.c) and says EINVAL otherwise.
    """
    return name.encode()[: OBJ_NAME_LEN - 1]


def _buf(data: bytes) -> ctypes.Array[c_char]:
    return ctypes.create_string_buffer(data, len(data))


def _addr(buf: ctypes.Array[c_char] | None) -> int:
    return ctypes.addressof(buf) if buf is not None else 0


@functools.cache
def possible_cpus() -> int:
    """Number of possible CPUs: the slots of a per-CPU map value.

    Parses /sys/devices/system/cpu/possible (``"0-3"``, ``"0,2-5"``). A per-CPU map's
    syscall-side value is ``round_up(value_size, 8) * possible_cpus()`` bytes, one slot per
    possible CPU in cpu order (bpf_percpu_array_copy in kernel/bpf/arraymap.c).

    Raises:
      BpfError: the file cannot be read (errno of the read).
    """
    path = "/sys/devices/system/cpu/possible"
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError as e:
        raise BpfError(f"read {path}", e.errno or _errno.EIO, str(e)) from e
    n = 0
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        n += (int(hi) if hi else int(lo)) - int(lo) + 1
    return n


# --- maps -----------------------------------------------------------------------------------


class _MapCreateAttr(ctypes.Structure):
    _fields_ = [
        ("map_type", c_uint32), ("key_size", c_uint32), ("value_size", c_uint32),
        ("max_entries", c_uint32), ("map_flags", c_uint32), ("inner_map_fd", c_uint32),
        ("numa_node", c_uint32), ("map_name", c_char * OBJ_NAME_LEN), ("map_ifindex", c_uint32),
        ("btf_fd", c_uint32), ("btf_key_type_id", c_uint32), ("btf_value_type_id", c_uint32),
    ]


class _MapElemAttr(ctypes.Structure):
    _fields_ = [("map_fd", c_uint32), ("key", c_uint64), ("value", c_uint64), ("flags", c_uint64)]


class _MapBatchAttr(ctypes.Structure):
    _fields_ = [
        ("in_batch", c_uint64), ("out_batch", c_uint64), ("keys", c_uint64), ("values", c_uint64),
        ("count", c_uint32), ("map_fd", c_uint32), ("elem_flags", c_uint64), ("flags", c_uint64),
    ]


def map_create(map_type: int, key_size: int, value_size: int, max_entries: int, *,
               map_flags: int = 0, name: str = "", btf_fd: int = 0, btf_key_type_id: int = 0,
               btf_value_type_id: int = 0, inner_map_fd: int = 0, numa_node: int = 0) -> int:
    """BPF_MAP_CREATE: create a map.

    Args:
      map_type: a :class:`~tracekit.bpf.uapi.MapType`.
      key_size, value_size: bytes (a RINGBUF takes 0 and 0).
      max_entries: entries; for RINGBUF the data size in bytes, a power-of-2 multiple of
        the page size.
      map_flags: ``F_*`` flags of tracekit.bpf.uapi.
      name: the map's name, truncated to 15 bytes.

    Returns:
      The map fd (caller owns it).

    Raises:
      MapError: EINVAL (bad sizes, flags or name), ENOMEM (memlock or allocation),
        EPERM (missing CAP_BPF).
    """
    attr = _MapCreateAttr(map_type=map_type, key_size=key_size, value_size=value_size,
                          max_entries=max_entries, map_flags=map_flags,
                          inner_map_fd=inner_map_fd, numa_node=numa_node,
                          map_name=_name16(name), btf_fd=btf_fd,
                          btf_key_type_id=btf_key_type_id, btf_value_type_id=btf_value_type_id)
    ret, err = _sys_bpf(Cmd.MAP_CREATE, attr)
    if ret < 0:
        raise _map_error(Cmd.MAP_CREATE, err, name)
    return ret


def _elem_cmd(cmd: Cmd, attr: _MapElemAttr, map_name: str) -> bool:
    """Run a map element command: True when done, False when the key is absent (ENOENT,
    a value here: module docstring).

    Raises:
      MapError: any errno other than ENOENT.
    """
    ret, err = _sys_bpf(cmd, attr)
    if ret >= 0:
        return True
    if err == _errno.ENOENT:
        return False
    raise _map_error(cmd, err, map_name)


def map_lookup_elem(fd: int, key: bytes, value_size: int, *, map_name: str = "") -> bytes | None:
    """BPF_MAP_LOOKUP_ELEM: the value at ``key``.

    Args:
      value_size: bytes to receive; for per-CPU maps ``round_up(size, 8) * possible_cpus()``.

    Returns:
      The value (``value_size`` bytes), or None when the key is absent (ENOENT).

    Raises:
      MapError: any errno other than ENOENT.
    """
    kbuf, vbuf = _buf(key), ctypes.create_string_buffer(value_size)
    attr = _MapElemAttr(map_fd=fd, key=_addr(kbuf), value=_addr(vbuf))
    return vbuf.raw if _elem_cmd(Cmd.MAP_LOOKUP_ELEM, attr, map_name) else None


def map_update_elem(fd: int, key: bytes | None, value: bytes, flags: int = 0, *,
                    map_name: str = "") -> None:
    """BPF_MAP_UPDATE_ELEM: set ``key`` to ``value``.

    Args:
      key: None pushes ``value`` on a queue or stack map (their key size is 0, and the
        kernel takes only a NULL key then).
      flags: ANY, NOEXIST or EXIST (tracekit.bpf.uapi), optionally | F_LOCK.

    Raises:
      MapError: E2BIG (a preallocated hash is full), EEXIST (NOEXIST and present),
        ENOENT (EXIST and absent), EPERM (frozen or read-only map), ENOMEM.
    """
    kbuf, vbuf = (_buf(key) if key is not None else None), _buf(value)
    attr = _MapElemAttr(map_fd=fd, key=_addr(kbuf), value=_addr(vbuf), flags=flags)
    ret, err = _sys_bpf(Cmd.MAP_UPDATE_ELEM, attr)
    if ret < 0:
        raise _map_error(Cmd.MAP_UPDATE_ELEM, err, map_name)


def map_delete_elem(fd: int, key: bytes, *, map_name: str = "") -> bool:
    """BPF_MAP_DELETE_ELEM: remove ``key``.

    Returns:
      True if it was deleted, False if it was absent (ENOENT).

    Raises:
      MapError: any other errno (EINVAL for array maps, whose entries cannot be deleted).
    """
    kbuf = _buf(key)
    attr = _MapElemAttr(map_fd=fd, key=_addr(kbuf))
    return _elem_cmd(Cmd.MAP_DELETE_ELEM, attr, map_name)


def map_get_next_key(fd: int, key: bytes | None, key_size: int, *,
                     map_name: str = "") -> bytes | None:
    """BPF_MAP_GET_NEXT_KEY: the key after ``key`` (the first key when ``key`` is None).

    A key that is not in the map restarts the walk from the first key of a hash map.

    Returns:
      The next key (``key_size`` bytes), or None at the end of the map (ENOENT).

    Raises:
      MapError: any other errno.
    """
    kbuf = _buf(key) if key is not None else None
    nbuf = ctypes.create_string_buffer(key_size)
    attr = _MapElemAttr(map_fd=fd, key=_addr(kbuf), value=_addr(nbuf))
    return nbuf.raw if _elem_cmd(Cmd.MAP_GET_NEXT_KEY, attr, map_name) else None


def map_lookup_and_delete_elems(fd: int, keys: Sequence[bytes], value_size: int, *,
                                map_name: str = "") -> list[bytes | None]:
    """BPF_MAP_LOOKUP_AND_DELETE_ELEM of each key in turn (one command per key, the attr
    and buffers made once): remove each key and say what its value was when it went.

    Hash maps take it since Linux 5.14 (kernel/bpf/hashtab.c,
    htab_map_lookup_and_delete_elem); older kernels and other map types say EINVAL or
    ENOTSUPP.

    Args:
      keys: keys, each the map's key size.
      value_size: bytes per value; for per-CPU maps ``round_up(size, 8) * possible_cpus()``.

    Returns:
      For each key, the value it held when deleted, or None when it was absent (ENOENT).

    Raises:
      MapError: any errno but ENOENT, at the first key that met it (the keys before it
        are deleted).
    """
    if not keys:
        return []
    kbuf = ctypes.create_string_buffer(len(keys[0]))
    vbuf = ctypes.create_string_buffer(value_size)
    attr = _MapElemAttr(map_fd=fd, key=_addr(kbuf), value=_addr(vbuf))
    nr, cmd, ref, size = (ctypes.c_long(_nr_bpf()), ctypes.c_long(Cmd.MAP_LOOKUP_AND_DELETE_ELEM),
                          ctypes.byref(attr), ctypes.c_long(ctypes.sizeof(attr)))
    out: list[bytes | None] = []
    for key in keys:
        kbuf.raw = key
        if _syscall(nr, cmd, ref, size) >= 0:
            out.append(vbuf.raw)
            continue
        err = ctypes.get_errno()
        if err != _errno.ENOENT:
            raise _map_error(Cmd.MAP_LOOKUP_AND_DELETE_ELEM, err, map_name)
        out.append(None)
    return out


def map_lookup_batch(fd: int, in_batch: bytes | None, key_size: int, value_size: int,
                     count: int, *, map_name: str = "",
                     ) -> tuple[list[bytes], list[bytes], bytes | None]:
    """BPF_MAP_LOOKUP_BATCH: up to ``count`` entries from the position ``in_batch``.

    Start with ``in_batch=None`` and pass the returned token back until it is None.

    Args:
      value_size: bytes per value; for per-CPU maps ``round_up(size, 8) * possible_cpus()``.
      count: the most entries to return.

    Returns:
      ``(keys, values, out_batch)``; ``out_batch`` is None when the walk is complete. The
      kernel says ENOENT together with the last entries it copied; they are returned.

    Raises:
      MapError: ENOSPC (a hash bucket holds more than ``count`` entries: retry with a
        larger count), EINVAL (map type without batch support), others.
    """
    tok = max(key_size, 8)  # htab's token is a u32 bucket index; generic maps use a key
    ibuf = _buf(in_batch.ljust(tok, b"\0")) if in_batch is not None else None
    obuf = ctypes.create_string_buffer(tok)
    keys = ctypes.create_string_buffer(key_size * count)
    values = ctypes.create_string_buffer(value_size * count)
    attr = _MapBatchAttr(in_batch=_addr(ibuf), out_batch=_addr(obuf), keys=_addr(keys),
                         values=_addr(values), count=count, map_fd=fd)
    ret, err = _sys_bpf(Cmd.MAP_LOOKUP_BATCH, attr)
    if ret < 0 and err != _errno.ENOENT:
        raise _map_error(Cmd.MAP_LOOKUP_BATCH, err, map_name)
    n = attr.count
    kraw, vraw = keys.raw, values.raw
    out_k = [kraw[i * key_size:(i + 1) * key_size] for i in range(n)]
    out_v = [vraw[i * value_size:(i + 1) * value_size] for i in range(n)]
    return out_k, out_v, (None if ret < 0 else obuf.raw)


def map_freeze(fd: int, *, map_name: str = "") -> None:
    """BPF_MAP_FREEZE: make the map read-only from the syscall side (updates say EPERM).

    Raises:
      MapError: EPERM (already frozen, or read-only: no syscall write access), EBUSY
        (writably mmapped), others.
    """
    attr = _MapElemAttr(map_fd=fd)
    ret, err = _sys_bpf(Cmd.MAP_FREEZE, attr)
    if ret < 0:
        raise _map_error(Cmd.MAP_FREEZE, err, map_name)


# --- progs ----------------------------------------------------------------------------------


class _ProgLoadAttr(ctypes.Structure):
    _fields_ = [
        ("prog_type", c_uint32), ("insn_cnt", c_uint32), ("insns", c_uint64),
        ("license", c_uint64), ("log_level", c_uint32), ("log_size", c_uint32),
        ("log_buf", c_uint64), ("kern_version", c_uint32), ("prog_flags", c_uint32),
        ("prog_name", c_char * OBJ_NAME_LEN), ("prog_ifindex", c_uint32),
        ("expected_attach_type", c_uint32), ("prog_btf_fd", c_uint32),
        ("func_info_rec_size", c_uint32), ("func_info", c_uint64), ("func_info_cnt", c_uint32),
        ("line_info_rec_size", c_uint32), ("line_info", c_uint64), ("line_info_cnt", c_uint32),
        ("attach_btf_id", c_uint32), ("attach_btf_obj_fd", c_uint32),
    ]


def _prog_load_once(attr: _ProgLoadAttr, log_level: int, log_size: int,
                    ) -> tuple[int, int, str]:
    log = ctypes.create_string_buffer(log_size) if log_level else None
    attr.log_level = log_level
    attr.log_size = log_size if log_level else 0
    attr.log_buf = _addr(log)
    ret, err = _sys_bpf(Cmd.PROG_LOAD, attr)
    text = log.value.decode("utf-8", "replace") if log is not None else ""
    return ret, err, text


def prog_load(prog_type: int, insns: bytes, license: str = "GPL", *, name: str = "",
              expected_attach_type: int = 0, attach_btf_id: int = 0,
              attach_btf_obj_fd: int = 0, prog_btf_fd: int = 0, func_info: bytes = b"",
              func_info_rec_size: int = 0, line_info: bytes = b"", line_info_rec_size: int = 0,
              prog_flags: int = 0, log_level: int = 0, log_size: int = 16 << 20) -> int:
    """BPF_PROG_LOAD: verify and load a prog.

    Args:
      prog_type: a :class:`~tracekit.bpf.uapi.ProgType`.
      insns: ``struct bpf_insn`` array, 8 bytes per instruction, map fds already in place.
      license: "GPL" (or compatible) to use GPL-only helpers.
      name: the prog's name, truncated to 15 bytes.
      attach_btf_id, attach_btf_obj_fd: for TRACING progs (tp_btf, fentry): the BTF type
        id of the target and the fd of its BTF object (0 for vmlinux).
      func_info, line_info: ``.BTF.ext`` records, with their record sizes in bytes.
      log_level: 0 for no log; LOG_LEVEL1/LEVEL2/STATS bits otherwise.
      log_size: bytes of verifier log buffer when a log is asked for.

    Returns:
      The prog fd (caller owns it).

    Raises:
      ProgLoadError: EACCES/EINVAL (the verifier refused: ``.verifier_log`` holds its
        text), EPERM (missing CAP_BPF/CAP_PERFMON), E2BIG, ENOSPC (log too small),
        ENOMEM. When ``log_level`` is 0 the load is retried once with a level-1 log so
        that ``.verifier_log`` is filled; the errno raised is the first attempt's.
    """
    if len(insns) % 8:
        raise ProgLoadError(_errno.EINVAL, f"insns is {len(insns)} bytes, not a multiple of 8",
                            prog_name=name)
    ibuf, lic = _buf(insns), ctypes.create_string_buffer(license.encode())
    fbuf = _buf(func_info) if func_info else None
    lbuf = _buf(line_info) if line_info else None
    attr = _ProgLoadAttr(
        prog_type=prog_type, insn_cnt=len(insns) // 8, insns=_addr(ibuf), license=_addr(lic),
        prog_flags=prog_flags, prog_name=_name16(name),
        expected_attach_type=expected_attach_type, prog_btf_fd=prog_btf_fd,
        func_info_rec_size=func_info_rec_size if fbuf else 0, func_info=_addr(fbuf),
        func_info_cnt=len(func_info) // func_info_rec_size if fbuf else 0,
        line_info_rec_size=line_info_rec_size if lbuf else 0, line_info=_addr(lbuf),
        line_info_cnt=len(line_info) // line_info_rec_size if lbuf else 0,
        attach_btf_id=attach_btf_id, attach_btf_obj_fd=attach_btf_obj_fd,
    )
    ret, err, log = _prog_load_once(attr, log_level, log_size)
    for _ in range(4):
        # The verifier gives up with EAGAIN when a signal is pending (kernel/bpf/verifier.c
        # checks signal_pending()); try again a few times, as libbpf does.
        if ret >= 0 or err != _errno.EAGAIN:
            break
        ret, err, log = _prog_load_once(attr, log_level, log_size)
    if ret >= 0:
        return ret
    if log_level == 0:
        # Some facts about the verifier log: it is only written when asked for, and asking
        # costs verification time, so the first try goes without; a failure is retried once
        # with a level-1 log. The retry's own result is dropped (it fails the same way,
        # or ENOSPC when the log overflows; the rotating log of 6.4+ keeps the tail).
        ret2, _, log = _prog_load_once(attr, 1, log_size)
        if ret2 >= 0:  # loaded on the retry: a transient failure (EAGAIN); keep the prog
            return ret2
    detail = f"prog {name!r}" if name else ""
    if err == _errno.EPERM:
        why = _missing_caps(("CAP_BPF", "CAP_PERFMON"))
        detail = f"{detail}: {why}" if detail else why
    raise ProgLoadError(err, detail, prog_name=name, verifier_log=log)


class _TestRunAttr(ctypes.Structure):
    _fields_ = [
        ("prog_fd", c_uint32), ("retval", c_uint32), ("data_size_in", c_uint32),
        ("data_size_out", c_uint32), ("data_in", c_uint64), ("data_out", c_uint64),
        ("repeat", c_uint32), ("duration", c_uint32), ("ctx_size_in", c_uint32),
        ("ctx_size_out", c_uint32), ("ctx_in", c_uint64), ("ctx_out", c_uint64),
        ("flags", c_uint32), ("cpu", c_uint32),
    ]


def prog_test_run(prog_fd: int, *, data_in: bytes = b"", ctx_in: bytes = b"", repeat: int = 1,
                  flags: int = 0, cpu: int = 0) -> tuple[int, int]:
    """BPF_PROG_TEST_RUN: run a prog in the kernel on given input.

    What each prog type accepts is in net/bpf/test_run.c: SOCKET_FILTER/SCHED_CLS take
    ``data_in`` (a packet of at least 14 bytes) and ``repeat``; RAW_TRACEPOINT takes
    ``ctx_in`` (u64 args) and rejects ``repeat`` > 1 with EINVAL.

    Returns:
      ``(retval, duration_ns)``: the prog's return value and the mean run time per repeat
      in ns (0 for types that do not time).

    Raises:
      BpfError: EINVAL (input this prog type does not take), ENOTSUPP (524), EINTR.
    """
    dbuf = _buf(data_in) if data_in else None
    cbuf = _buf(ctx_in) if ctx_in else None
    attr = _TestRunAttr(prog_fd=prog_fd, data_size_in=len(data_in), data_in=_addr(dbuf),
                        repeat=repeat if repeat > 1 else 0, ctx_size_in=len(ctx_in),
                        ctx_in=_addr(cbuf), flags=flags, cpu=cpu)
    ret, err = _sys_bpf(Cmd.PROG_TEST_RUN, attr)
    if ret < 0:
        raise _raise(Cmd.PROG_TEST_RUN, err, f"prog fd {prog_fd}")
    return attr.retval, attr.duration


# --- btf ------------------------------------------------------------------------------------


class _BtfLoadAttr(ctypes.Structure):
    _fields_ = [
        ("btf", c_uint64), ("btf_log_buf", c_uint64), ("btf_size", c_uint32),
        ("btf_log_size", c_uint32), ("btf_log_level", c_uint32),
    ]


def btf_load(data: bytes, *, log_level: int = 0, log_size: int = 1 << 20) -> int:
    """BPF_BTF_LOAD: load raw BTF (``struct btf_header`` + types + strings).

    Returns:
      The btf fd (caller owns it).

    Raises:
      BpfError: cmd ``"BPF_BTF_LOAD"``; EINVAL (malformed BTF: the detail holds the tail of
        the kernel's BTF log, got by retrying once with a log when ``log_level`` is 0),
        E2BIG, EPERM, ENOMEM. The errno is the first attempt's.
    """
    dbuf = _buf(data)

    def once(level: int) -> tuple[int, int, str]:
        log = ctypes.create_string_buffer(log_size) if level else None
        attr = _BtfLoadAttr(btf=_addr(dbuf), btf_log_buf=_addr(log), btf_size=len(data),
                            btf_log_size=log_size if level else 0, btf_log_level=level)
        ret, err = _sys_bpf(Cmd.BTF_LOAD, attr)
        return ret, err, (log.value.decode("utf-8", "replace") if log is not None else "")

    ret, err, log = once(log_level)
    if ret >= 0:
        return ret
    if log_level == 0:
        ret2, _, log = once(1)
        if ret2 >= 0:
            return ret2
    tail = " | ".join(log.rstrip().splitlines()[-6:])
    if err == _errno.EPERM and not tail:
        tail = _missing_caps(("CAP_BPF",))
    raise BpfError(_cmd_name(Cmd.BTF_LOAD), err, tail)


# --- links ----------------------------------------------------------------------------------


class _LinkCreateAttr(ctypes.Structure):
    _fields_ = [
        ("prog_fd", c_uint32), ("target_fd", c_uint32), ("attach_type", c_uint32),
        ("flags", c_uint32), ("target_btf_id", c_uint32), ("_pad", c_uint32),
    ]


def link_create(prog_fd: int, target_fd: int, attach_type: int, *, target_btf_id: int = 0,
                flags: int = 0, target: str = "") -> int:
    """BPF_LINK_CREATE: attach a prog and return a link fd; closing the fd detaches.

    Args:
      target_fd: the attach point's fd (perf event fd for BPF_PERF_EVENT, 0 for tracing).
      attach_type: an :class:`~tracekit.bpf.uapi.AttachType`.
      target: names the hook in the error (e.g. ``"raw_syscalls/sys_enter"``).

    Raises:
      AttachError: EINVAL (prog type/attach type mismatch), ENOENT, EPERM, EBUSY.
    """
    attr = _LinkCreateAttr(prog_fd=prog_fd, target_fd=target_fd, attach_type=attach_type,
                           flags=flags, target_btf_id=target_btf_id)
    ret, err = _sys_bpf(Cmd.LINK_CREATE, attr)
    if ret < 0:
        detail = _missing_caps(("CAP_BPF", "CAP_PERFMON")) if err == _errno.EPERM else ""
        raise AttachError(_cmd_name(Cmd.LINK_CREATE), err, detail, target=target)
    return ret


class _RawTpAttr(ctypes.Structure):
    _fields_ = [("name", c_uint64), ("prog_fd", c_uint32), ("_pad", c_uint32)]


def raw_tracepoint_open(name: str | None, prog_fd: int) -> int:
    """BPF_RAW_TRACEPOINT_OPEN: attach a raw_tp prog to tracepoint ``name`` (e.g. "sys_enter").

    Args:
      name: the tracepoint; None for tp_btf (TRACING) progs, whose target the kernel takes
        from the prog's attach_btf_id.

    Returns:
      A link fd (caller owns it); closing it detaches.

    Raises:
      AttachError: ENOENT (no such tracepoint), EINVAL, EPERM.
    """
    nbuf = ctypes.create_string_buffer(name.encode()) if name is not None else None
    attr = _RawTpAttr(name=_addr(nbuf), prog_fd=prog_fd)
    ret, err = _sys_bpf(Cmd.RAW_TRACEPOINT_OPEN, attr)
    if ret < 0:
        detail = _missing_caps(("CAP_BPF", "CAP_PERFMON")) if err == _errno.EPERM else ""
        raise AttachError(_cmd_name(Cmd.RAW_TRACEPOINT_OPEN), err, detail,
                          target=name or f"prog fd {prog_fd} attach_btf_id")
    return ret


# --- ids and info ---------------------------------------------------------------------------


class _IdAttr(ctypes.Structure):
    _fields_ = [("start_id", c_uint32), ("next_id", c_uint32), ("open_flags", c_uint32)]


def _get_next_id(cmd: Cmd, start_id: int) -> int | None:
    attr = _IdAttr(start_id=start_id)
    ret, err = _sys_bpf(cmd, attr)
    if ret < 0:
        if err == _errno.ENOENT:
            return None
        raise _raise(cmd, err)
    return int(attr.next_id)  # ctypes fields are untyped


def _get_fd_by_id(cmd: Cmd, obj_id: int) -> int:
    attr = _IdAttr(start_id=obj_id)
    ret, err = _sys_bpf(cmd, attr)
    if ret < 0:
        raise _raise(cmd, err, f"id {obj_id}")
    return ret


def prog_get_next_id(start_id: int) -> int | None:
    """BPF_PROG_GET_NEXT_ID: the smallest loaded prog id > ``start_id``; None after the last."""
    return _get_next_id(Cmd.PROG_GET_NEXT_ID, start_id)


def map_get_next_id(start_id: int) -> int | None:
    """BPF_MAP_GET_NEXT_ID: the smallest map id > ``start_id``; None after the last."""
    return _get_next_id(Cmd.MAP_GET_NEXT_ID, start_id)


def link_get_next_id(start_id: int) -> int | None:
    """BPF_LINK_GET_NEXT_ID: the smallest link id > ``start_id``; None after the last."""
    return _get_next_id(Cmd.LINK_GET_NEXT_ID, start_id)


def prog_get_fd_by_id(prog_id: int) -> int:
    """BPF_PROG_GET_FD_BY_ID: a new fd (caller owns it) for a loaded prog.

    Raises:
      BpfError: ENOENT (no prog with that id, e.g. it was unloaded), EPERM.
    """
    return _get_fd_by_id(Cmd.PROG_GET_FD_BY_ID, prog_id)


def map_get_fd_by_id(map_id: int) -> int:
    """BPF_MAP_GET_FD_BY_ID: a new fd (caller owns it) for a map.

    Raises:
      BpfError: ENOENT (no map with that id), EPERM.
    """
    return _get_fd_by_id(Cmd.MAP_GET_FD_BY_ID, map_id)


class ProgInfo(msgspec.Struct, frozen=True):
    """Part of ``struct bpf_prog_info``."""

    id: int
    type: int            # ProgType
    tag: str             # 8-byte prog tag as 16 hex digits (bpftool's "tag")
    name: str
    xlated_prog_len: int  # bytes of the verified program
    jited_prog_len: int   # bytes of JIT code
    nr_map_ids: int
    btf_id: int
    attach_btf_id: int
    attach_btf_obj_id: int
    verified_insns: int
    gpl_compatible: bool


class MapInfo(msgspec.Struct, frozen=True):
    """Part of ``struct bpf_map_info``."""

    id: int
    type: int            # MapType
    key_size: int        # bytes
    value_size: int      # bytes
    max_entries: int
    map_flags: int
    name: str
    btf_id: int


class LinkInfo(msgspec.Struct, frozen=True):
    """Part of ``struct bpf_link_info``."""

    id: int
    type: int            # LinkType
    prog_id: int


class BtfInfo(msgspec.Struct, frozen=True):
    """Part of ``struct bpf_btf_info``."""

    id: int
    name: str            # "" for BTF loaded from user space; "vmlinux" or a module's name
    btf_size: int        # bytes
    kernel_btf: bool


class _ProgInfo(ctypes.Structure):
    _fields_ = [
        ("type", c_uint32), ("id", c_uint32), ("tag", c_uint8 * 8),
        ("jited_prog_len", c_uint32), ("xlated_prog_len", c_uint32),
        ("jited_prog_insns", c_uint64), ("xlated_prog_insns", c_uint64), ("load_time", c_uint64),
        ("created_by_uid", c_uint32), ("nr_map_ids", c_uint32), ("map_ids", c_uint64),
        ("name", c_char * OBJ_NAME_LEN), ("ifindex", c_uint32), ("gpl_compatible", c_uint32, 1),
        ("netns_dev", c_uint64), ("netns_ino", c_uint64), ("nr_jited_ksyms", c_uint32),
        ("nr_jited_func_lens", c_uint32), ("jited_ksyms", c_uint64),
        ("jited_func_lens", c_uint64), ("btf_id", c_uint32), ("func_info_rec_size", c_uint32),
        ("func_info", c_uint64), ("nr_func_info", c_uint32), ("nr_line_info", c_uint32),
        ("line_info", c_uint64), ("jited_line_info", c_uint64),
        ("nr_jited_line_info", c_uint32), ("line_info_rec_size", c_uint32),
        ("jited_line_info_rec_size", c_uint32), ("nr_prog_tags", c_uint32),
        ("prog_tags", c_uint64), ("run_time_ns", c_uint64), ("run_cnt", c_uint64),
        ("recursion_misses", c_uint64), ("verified_insns", c_uint32),
        ("attach_btf_obj_id", c_uint32), ("attach_btf_id", c_uint32),
    ]


class _MapInfo(ctypes.Structure):
    _fields_ = [
        ("type", c_uint32), ("id", c_uint32), ("key_size", c_uint32), ("value_size", c_uint32),
        ("max_entries", c_uint32), ("map_flags", c_uint32), ("name", c_char * OBJ_NAME_LEN),
        ("ifindex", c_uint32), ("btf_vmlinux_value_type_id", c_uint32), ("netns_dev", c_uint64),
        ("netns_ino", c_uint64), ("btf_id", c_uint32), ("btf_key_type_id", c_uint32),
        ("btf_value_type_id", c_uint32),
    ]


class _LinkInfo(ctypes.Structure):
    _fields_ = [("type", c_uint32), ("id", c_uint32), ("prog_id", c_uint32)]


class _BtfInfo(ctypes.Structure):
    _fields_ = [
        ("btf", c_uint64), ("btf_size", c_uint32), ("id", c_uint32), ("name", c_uint64),
        ("name_len", c_uint32), ("kernel_btf", c_uint32),
    ]


class _InfoAttr(ctypes.Structure):
    _fields_ = [("bpf_fd", c_uint32), ("info_len", c_uint32), ("info", c_uint64)]


# readlink(/proc/self/fd/N) of bpf objects: anon inodes named in kernel/bpf/syscall.c
# ("bpf-prog", "bpf-map", "bpf_link") and kernel/bpf/btf.c ("btf").
_INFO_KINDS = {"anon_inode:bpf-prog": _ProgInfo, "anon_inode:bpf-map": _MapInfo,
               "anon_inode:bpf_link": _LinkInfo, "anon_inode:btf": _BtfInfo}


def obj_get_info_by_fd(fd: int) -> ProgInfo | MapInfo | LinkInfo | BtfInfo:
    """BPF_OBJ_GET_INFO_BY_FD: what the kernel says about a prog, map, link or btf fd.

    The kind of object is read from ``/proc/self/fd/<fd>`` (its anon inode name).

    Raises:
      BpfError: EBADF (not an open fd), EINVAL (not a bpf object), others.
    """
    try:
        kind = os.readlink(f"/proc/self/fd/{fd}")
    except OSError as e:
        raise BpfError(_cmd_name(Cmd.OBJ_GET_INFO_BY_FD), e.errno or _errno.EBADF,
                       f"fd {fd}") from e
    struct_type = _INFO_KINDS.get(kind)
    if struct_type is None:
        raise BpfError(_cmd_name(Cmd.OBJ_GET_INFO_BY_FD), _errno.EINVAL,
                       f"fd {fd} is {kind!r}, not a bpf prog, map, link or btf")
    info = struct_type()
    name_buf = None
    if struct_type is _BtfInfo:
        name_buf = ctypes.create_string_buffer(64)
        info.name, info.name_len = _addr(name_buf), 64
    attr = _InfoAttr(bpf_fd=fd, info_len=ctypes.sizeof(info), info=ctypes.addressof(info))
    ret, err = _sys_bpf(Cmd.OBJ_GET_INFO_BY_FD, attr)
    if ret < 0:
        raise _raise(Cmd.OBJ_GET_INFO_BY_FD, err, f"fd {fd} ({kind})")
    if isinstance(info, _ProgInfo):
        return ProgInfo(
            id=info.id, type=info.type, tag=bytes(info.tag).hex(), name=info.name.decode(),
            xlated_prog_len=info.xlated_prog_len, jited_prog_len=info.jited_prog_len,
            nr_map_ids=info.nr_map_ids, btf_id=info.btf_id, attach_btf_id=info.attach_btf_id,
            attach_btf_obj_id=info.attach_btf_obj_id, verified_insns=info.verified_insns,
            gpl_compatible=bool(info.gpl_compatible))
    if isinstance(info, _MapInfo):
        return MapInfo(id=info.id, type=info.type, key_size=info.key_size,
                       value_size=info.value_size, max_entries=info.max_entries,
                       map_flags=info.map_flags, name=info.name.decode(), btf_id=info.btf_id)
    if isinstance(info, _LinkInfo):
        return LinkInfo(id=info.id, type=info.type, prog_id=info.prog_id)
    assert isinstance(info, _BtfInfo) and name_buf is not None
    return BtfInfo(id=info.id, name=name_buf.value.decode(), btf_size=info.btf_size,
                   kernel_btf=bool(info.kernel_btf))

