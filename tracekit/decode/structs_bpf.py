"""bpf(2)'s ``union bpf_attr`` as strace 6.1 prints it without ``-v``, per command.

``bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, ...}, 144)``: the
fields of the command's member of the union, in order. The attr is read up to the size
argument (bytes past it read as 0); a field prints when the size reaches the start of
its group (strace cuts by the kernel version that added a group: ``{map_type=...,
key_size=4, value_size=0, max_entries=0}`` for a size of 8). Nonzero bytes past the
command's member (within the size) print as ``, ...``. What the call changed prints at
exit (after a success; a batch's count after ENOENT too): ``info_len=256 => 104``
(BPF_OBJ_GET_INFO_BY_FD), ``next_id=0 => 307718`` (BPF_*_GET_NEXT_ID), ``{...} =>
{batch={count=0}}`` (the BPF_MAP_*_BATCH commands).

Decoded: the map commands (create, the element and batch commands, freeze, the next-id
commands), BPF_PROG_LOAD, BPF_OBJ_PIN/GET, BPF_OBJ_GET_INFO_BY_FD, BPF_BTF_LOAD,
BPF_PROG_ATTACH/DETACH, BPF_LINK_CREATE (its tail by attach type), BPF_LINK_UPDATE,
BPF_RAW_TRACEPOINT_OPEN, BPF_PROG_TEST_RUN, the BPF_*_GET_FD_BY_ID commands,
BPF_PROG_QUERY and BPF_TASK_FD_QUERY (their last fields as the call left them:
``prog_cnt=2 => 0``; strace reads the attr again at exit).

The string at the attr's first word (BPF_OBJ_PIN/BPF_OBJ_GET's pathname,
BPF_RAW_TRACEPOINT_OPEN's name: ``name="a_tracepoint_name_longer_than_32"...``, however
long) is read with the attr (TK_SPEC_DEREF, BPF_ATTR_STR_CAP bytes); a pointer cut by the
size prints as what was read of it (``pathname=0x13``), an unreadable one as its address.

BPF_PROG_LOAD's license (``license="GPL"``) and log_buf (``log_buf=""``: the log as it
was at entry, when strace reads it) and BPF_BTF_LOAD's bytes (``btf="\\237\\353..."``) are
read behind the attr by the BPF program (TK_SPEC_PTR_AT, issue 12): the pointer at
their offset of the attr and BPF_PTR_STR_CAP / BPF_PTR_BUF_CAP bytes it points to (what
strace's default ``-s 32`` shows: a larger ``-s`` still shows 32 bytes). A pointer that
is unreadable, or cut by the size, prints as its address, as strace prints it.

The address prints, as strace prints it, for a size of 0 or over a page, an unreadable
attr and an unknown command; and (gaps) when a pointer strace follows was not read (a
record without its TK_SPEC_PTR_AT capture), for a pathname longer than
BPF_ATTR_STR_CAP, and for the commands not decoded here. A license or log in memory the
task never touched (not faulted in) prints as its address: a BPF program cannot fault
it in and it is not read again at exit (the log is the kernel's by then).

Layout: include/uapi/linux/bpf.h (the same on x86_64 and arm64, little-endian).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from tracekit._events import CAPF_DEREF, CAPF_FAULT, Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import Deref, KindFn, deref, succeeded
from tracekit.decode.fdcache import BPF_FD_TARGETS
from tracekit.decode.values import format_ifindex, pointer, quote, xval as _xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["BPF_ATTR_CAP", "BPF_ATTR_OUT_CAP", "BPF_ATTR_STR_CAP", "BPF_PTR_BUF_CAP",
           "BPF_PTR_STR_CAP", "format_bpf_attr", "kinds"]

BPF_ATTR_CAP = 4096         # bytes read at entry: the member and what follows it up to
                            # the size (strace reads it all: a nonzero byte prints "...")
BPF_ATTR_OUT_CAP = 64       # bytes read at exit: the fields the call writes back
BPF_ATTR_STR_CAP = 128      # bytes read at the first word's pointer (TK_SPEC_DEREF's most)
BPF_PTR_STR_CAP = 32        # the license: strace's -s (a longer one is cut: TRUNC)
BPF_PTR_BUF_CAP = 33        # log_buf, the BTF: strace reads -s + 1 bytes of them
_STR_LIMIT = 32             # strace's -s: a name prints 32 bytes, then "..."
_PAGE = 4096                # a larger size prints as the address (the kernel: E2BIG)
_ENOENT = 2

# a field: (name, offset, kind, group start); kinds: "u32", "s32" (an fd), "u64",
# "ptr", "path"/"name" (the first word's string), "numa" (with BPF_F_NUMA_NODE only),
# "oldfd" (with BPF_F_REPLACE only), "x:<TABLE>" (a value by name),
# "f:<TABLE>" (flag bits), "name16" (char[16]), "kver" (KERNEL_VERSION(a, b, c)),
# "hex32"/"hex64", "lookupflags", "btf",
# "out32" (``old => new`` at exit); the group start is the offset a size must pass
# for the field to print
_Field = tuple[str, int, str, int]


def _group(start: int, *fields: tuple[str, int, str]) -> tuple[_Field, ...]:
    return tuple((n, o, k, start) for n, o, k in fields)


_MAP_CREATE = (
    *_group(0, ("map_type", 0, "x:BPF_MAP_TYPES"), ("key_size", 4, "u32"),
            ("value_size", 8, "u32"), ("max_entries", 12, "u32")),
    *_group(16, ("map_flags", 16, "f:BPF_MAP_FLAGS")), *_group(20, ("inner_map_fd", 20, "s32")),
    *_group(24, ("numa_node", 24, "numa")), *_group(28, ("map_name", 28, "name16")),
    *_group(44, ("map_ifindex", 44, "ifindex")),
    *_group(48, ("btf_fd", 48, "s32"), ("btf_key_type_id", 52, "u32"),
            ("btf_value_type_id", 56, "u32")),
    *_group(60, ("btf_vmlinux_value_type_id", 60, "u32")),
    *_group(64, ("map_extra", 64, "u64")))
_NEXT_ID = (*_group(0, ("start_id", 0, "u32"), ("next_id", 4, "out32")),
            *_group(8, ("open_flags", 8, "f:BPF_FILE_FLAGS")))
_ELEM = _group(0, ("map_fd", 0, "s32"), ("key", 8, "ptr"))
_OBJ = (*_group(0, ("pathname", 0, "path"), ("bpf_fd", 8, "s32")),
        *_group(12, ("file_flags", 12, "f:BPF_FILE_FLAGS")))
_PROG_LOAD = (
    *_group(0, ("prog_type", 0, "x:BPF_PROG_TYPES"), ("insn_cnt", 4, "u32"),
            ("insns", 8, "ptr"), ("license", 16, "license")),
    *_group(24, ("log_level", 24, "u32"), ("log_size", 28, "u32"), ("log_buf", 32, "logbuf")),
    *_group(40, ("kern_version", 40, "kver")),
    *_group(44, ("prog_flags", 44, "f:BPF_PROG_FLAGS")),
    *_group(48, ("prog_name", 48, "name16")), *_group(64, ("prog_ifindex", 64, "ifindex")),
    *_group(68, ("expected_attach_type", 68, "x:BPF_ATTACH_TYPES")),
    *_group(72, ("prog_btf_fd", 72, "s32"), ("func_info_rec_size", 76, "u32"),
            ("func_info", 80, "ptr"), ("func_info_cnt", 88, "u32"),
            ("line_info_rec_size", 92, "u32"), ("line_info", 96, "ptr"),
            ("line_info_cnt", 104, "u32")),
    *_group(108, ("attach_btf_id", 108, "u32")), *_group(112, ("attach_prog_fd", 112, "s32")),
    *_group(120, ("fd_array", 120, "ptr")))
_BATCH_TAIL = (("count", 32, "u32"), ("map_fd", 36, "s32"), ("elem_flags", 40, "lookupflags"),
               ("flags", 48, "hex64"))
_LOOKUP_BATCH = (56, _group(0, ("in_batch", 0, "ptr"), ("out_batch", 8, "ptr"),
                            ("keys", 16, "ptr"), ("values", 24, "ptr"), *_BATCH_TAIL))
_LOOKUP = (32, (*_ELEM, *_group(0, ("value", 16, "ptr")),
                *_group(24, ("flags", 24, "lookupflags"))))
_GET_FD_BY_ID = (*_group(0, ("prog_id", 0, "u32"), ("next_id", 4, "u32")),
                 *_group(8, ("open_flags", 8, "f:BPF_FILE_FLAGS")))
_PROG_TEST_RUN = (
    *_group(0, ("prog_fd", 0, "s32"), ("retval", 4, "u32"), ("data_size_in", 8, "u32"),
            ("data_size_out", 12, "u32"), ("data_in", 16, "ptr"), ("data_out", 24, "ptr"),
            ("repeat", 32, "u32"), ("duration", 36, "u32")),
    *_group(40, ("ctx_size_in", 40, "u32"), ("ctx_size_out", 44, "u32"),
            ("ctx_in", 48, "ptr"), ("ctx_out", 56, "ptr")),
    *_group(64, ("flags", 64, "f:BPF_TEST_RUN_FLAGS"), ("cpu", 68, "u32")),
    *_group(72, ("batch_size", 72, "u32")))
_MEMBERS: dict[str, tuple[int, tuple[_Field, ...]]] = {
    # command: (the member's size, its fields)
    "BPF_MAP_CREATE": (72, _MAP_CREATE),
    # (core_relo_cnt, at 116, is not printed)
    "BPF_PROG_LOAD": (128, _PROG_LOAD),
    "BPF_MAP_LOOKUP_ELEM": _LOOKUP,
    "BPF_MAP_LOOKUP_AND_DELETE_ELEM": _LOOKUP,
    "BPF_MAP_UPDATE_ELEM": (32, (*_ELEM, *_group(0, ("value", 16, "ptr"),
                                                 ("flags", 24, "x:BPF_UPDATE_FLAGS")))),
    "BPF_MAP_DELETE_ELEM": (16, _ELEM),
    "BPF_MAP_GET_NEXT_KEY": (24, (*_ELEM, *_group(0, ("next_key", 16, "ptr")))),
    "BPF_MAP_FREEZE": (4, _group(0, ("map_fd", 0, "s32"))),
    "BPF_BTF_LOAD": (28, _group(0, ("btf", 0, "btf"), ("btf_log_buf", 8, "ptr"),
                                ("btf_size", 16, "u32"), ("btf_log_size", 20, "u32"),
                                ("btf_log_level", 24, "u32"))),
    "BPF_PROG_GET_NEXT_ID": (12, _NEXT_ID),
    "BPF_MAP_GET_NEXT_ID": (12, _NEXT_ID),
    "BPF_BTF_GET_NEXT_ID": (12, _NEXT_ID),
    "BPF_LINK_GET_NEXT_ID": (12, _NEXT_ID),
    "BPF_PROG_ATTACH": (20, (*_group(0, ("target_fd", 0, "s32"), ("attach_bpf_fd", 4, "s32"),
                                     ("attach_type", 8, "x:BPF_ATTACH_TYPES"),
                                     ("attach_flags", 12, "f:BPF_ATTACH_FLAGS")),
                             *_group(16, ("replace_bpf_fd", 16, "s32")))),
    "BPF_PROG_DETACH": (12, _group(0, ("target_fd", 0, "s32"),
                                   ("attach_type", 8, "x:BPF_ATTACH_TYPES"))),
    "BPF_LINK_UPDATE": (16, _group(0, ("link_fd", 0, "s32"), ("new_prog_fd", 4, "s32"),
                                   ("flags", 8, "f:BPF_ATTACH_FLAGS"),
                                   ("old_prog_fd", 12, "oldfd"))),
    "BPF_OBJ_GET_INFO_BY_FD": (16, _group(0, ("bpf_fd", 0, "s32"), ("info_len", 4, "out32"),
                                          ("info", 8, "ptr"))),
    "BPF_LINK_CREATE": (16, _group(0, ("prog_fd", 0, "s32"), ("target_fd", 4, "s32"),
                                   ("attach_type", 8, "x:BPF_ATTACH_TYPES"),
                                   ("flags", 12, "hex32"))),
    "BPF_RAW_TRACEPOINT_OPEN": (12, _group(0, ("name", 0, "name"), ("prog_fd", 8, "s32"))),
    "BPF_OBJ_PIN": (16, _OBJ),
    "BPF_OBJ_GET": (16, _OBJ),
    "BPF_MAP_LOOKUP_BATCH": _LOOKUP_BATCH,
    "BPF_MAP_LOOKUP_AND_DELETE_BATCH": _LOOKUP_BATCH,
    "BPF_MAP_UPDATE_BATCH": (56, _group(0, ("keys", 16, "ptr"), ("values", 24, "ptr"),
                                        *_BATCH_TAIL)),
    "BPF_MAP_DELETE_BATCH": (56, _group(0, ("keys", 16, "ptr"), *_BATCH_TAIL)),
    "BPF_PROG_TEST_RUN": (76, _PROG_TEST_RUN),
    "BPF_PROG_GET_FD_BY_ID": (12, _GET_FD_BY_ID),
    "BPF_MAP_GET_FD_BY_ID": (12, tuple(("map_id", *f[1:]) if f[0] == "prog_id" else f
                                       for f in _GET_FD_BY_ID)),
    "BPF_BTF_GET_FD_BY_ID": (4, _group(0, ("btf_id", 0, "u32"))),
    "BPF_LINK_GET_FD_BY_ID": (4, _group(0, ("link_id", 0, "u32"))),
    # the fields printed at entry; the rest (strace prints them at exit, from the attr
    # as the call left it) are _exit_tail's
    "BPF_PROG_QUERY": (28, _group(0, ("target_fd", 0, "s32"),
                                  ("attach_type", 4, "x:BPF_ATTACH_TYPES"),
                                  ("query_flags", 8, "f:BPF_QUERY_FLAGS"),
                                  ("attach_flags", 12, "f:BPF_ATTACH_FLAGS"))),
    "BPF_TASK_FD_QUERY": (48, _group(0, ("pid", 0, "s32pid"), ("fd", 4, "s32"),
                                     ("flags", 8, "u32"))),
}
# the commands whose fields strace prints inside a named member: ``{info={...}}``
_WRAPPED = {"BPF_OBJ_GET_INFO_BY_FD": "info", "BPF_LINK_CREATE": "link_create",
            "BPF_RAW_TRACEPOINT_OPEN": "raw_tracepoint", "BPF_MAP_LOOKUP_BATCH": "batch",
            "BPF_MAP_LOOKUP_AND_DELETE_BATCH": "batch", "BPF_MAP_UPDATE_BATCH": "batch",
            "BPF_MAP_DELETE_BATCH": "batch", "BPF_LINK_UPDATE": "link_update",
            "BPF_PROG_TEST_RUN": "test", "BPF_PROG_QUERY": "query",
            "BPF_TASK_FD_QUERY": "task_fd_query"}
_BATCHES = ("BPF_MAP_LOOKUP_BATCH", "BPF_MAP_LOOKUP_AND_DELETE_BATCH", "BPF_MAP_UPDATE_BATCH",
            "BPF_MAP_DELETE_BATCH")
_NUMA_NODE = 0x4            # BPF_F_NUMA_NODE: numa_node prints only with it
_NUMA_NO_NODE = 0xFFFFFFFF
# no task maps memory at or above this: a pointer there is unreadable (strace prints
# the address) without reading it (arm64's and x86_64's user space end far below)
_KERNEL_HALF = 1 << 56
# the pointers in an attr whose memory strace prints: (offset, offset of the u32 length
# or None for a C string), by command
_POINTED = {"BPF_PROG_LOAD": ((16, None), (32, 28)), "BPF_BTF_LOAD": ((0, 16),)}


def _u(data: bytes, off: int, size: int = 4) -> int:
    return int.from_bytes(data[off:off + size], "little")


def _pointed(kind: str, data: bytes, off: int, derefs: Mapping[int, Deref],
             limit: int = _STR_LIMIT) -> str:
    """What a pointer at ``off`` of the attr points to, as strace 6.1 prints it (read by
    the BPF program: TK_SPEC_PTR_AT); its address when NULL, not read, read at another
    address than the attr's (a size that cuts it, memory changed between the reads) or
    unreadable.

    - ``license``: a C string (``printstr``): ``limit`` (-s, 32) bytes, then ``...``.
    - ``logbuf``: log_buf, min(log_size (at 28), 33) bytes read at entry as a
      NUL-terminated string (``printstr_ex`` with QUOTE_0_TERMINATED, which reads with
      umovestr: a fault after the NUL does not matter): up to its NUL, else 32 bytes and
      ``...``; a log_size of 0 prints ``""``.
    - ``btf``: btf_size (at 16) bytes (``printstrn``): 32, then ``...`` when longer.
    """
    ptr = _u(data, off, 8)
    size = _u(data, 28 if kind == "logbuf" else 16)
    if ptr and not size and kind != "license":
        return '""'                         # nothing to read: strace reads 0 bytes
    d = derefs.get(off)
    if not ptr or d is None or d.ptr != ptr or not d.readable:
        return pointer(ptr)
    if kind == "license":
        return quote(d.data, limit=limit, more=d.trunc)
    need = min(size, limit + 1)               # strace reads -s + 1 bytes at most
    got = d.data[:need]
    if kind == "logbuf":
        # all need bytes, or (a fault after it) the string up to its NUL
        nul = got.find(b"\0")
        if nul >= 0:
            return quote(got[:nul])
        return quote(got[:limit], more=True) if len(got) == need else pointer(ptr)
    if len(got) < need:
        return pointer(ptr)
    return quote(got[:limit], more=size > limit)


def _field(kind: str, data: bytes, off: int, fl: F.ArchFlags, out: bytes | None,
           map_flags: int, size: int, text: bytes | None,
           derefs: Mapping[int, Deref] | None = None, limit: int = _STR_LIMIT,
           fdtext: Callable[[int], str] | None = None) -> str | None:
    """One field's text; None when it does not print (numa_node without its flag).
    ``limit``: strace's -s; ``fdtext``: an fd's text with its -yy decoration."""
    t = fl.tables
    if kind in ("license", "logbuf", "btf"):
        return _pointed(kind, data, off, derefs or {}, limit)
    if kind == "s32" and fdtext is not None:
        return fdtext(struct.unpack_from("<i", data, off)[0])   # every s32 is an fd
    if kind == "u32":
        return str(_u(data, off))
    if kind == "ifindex":
        return format_ifindex(_u(data, off))
    if kind in ("s32", "s32pid"):
        return str(struct.unpack_from("<i", data, off)[0])
    if kind == "u64":
        return str(_u(data, off, 8))
    if kind in ("hex32", "hex64"):
        v = _u(data, off, 4 if kind == "hex32" else 8)
        return hex(v) if v else "0"
    if kind == "lookupflags":
        lock = tuple((v, n) for v, n in t.BPF_UPDATE_FLAGS.items() if n == "BPF_F_LOCK")
        return F.FlagSet(lock, zero="BPF_ANY", unknown="BPF_???")(_u(data, off, 8))
    if kind == "ptr":
        return pointer(_u(data, off, 8))
    if kind in ("path", "name"):
        # the first word's string (read with the attr: TK_SPEC_DEREF), up to its NUL;
        # the address when NULL, unreadable, or cut by the size (0x13: strace reads the
        # string at what it read of the pointer, which the kernel does not map)
        ptr = _u(data, off, 8)
        if text is None or len(text) <= 8 or _u(text, 0, 8) != ptr:
            return pointer(ptr)
        string = text[8:]
        return quote(string[:string.find(b"\0")],
                     limit=limit if kind == "name" else None)
    if kind == "kver":
        v = _u(data, off)
        return f"KERNEL_VERSION({v >> 16}, {v >> 8 & 0xFF}, {v & 0xFF})"
    if kind == "oldfd":         # with BPF_F_REPLACE in the flags before it only
        replace = next((v for v, n in t.BPF_ATTACH_FLAGS if n == "BPF_F_REPLACE"), 0)
        if not _u(data, 8) & replace:
            return None
        fd = struct.unpack_from("<i", data, off)[0]
        return fdtext(fd) if fdtext is not None else str(fd)
    if kind == "numa":
        if not map_flags & _NUMA_NODE:
            return None
        node = _u(data, off)
        return f"{node} /* NUMA_NO_NODE */" if node == _NUMA_NO_NODE else str(node)
    if kind == "name16":
        # the bytes within the size, up to 16: up to the NUL, or all but the last and
        # "..." when there is none (an array of n chars holds n - 1 and its NUL)
        raw = data[off:off + min(16, size - off)]
        nul = raw.find(b"\0")
        return quote(raw[:nul], more=False) if nul >= 0 else quote(raw[:-1], more=True)
    if kind == "out32":
        old = _u(data, off)
        new = None if out is None or len(out) < off + 4 else _u(out, off)
        return f"{old} => {new}" if new is not None and new != old else str(old)
    table_kind, _, table = kind.partition(":")
    if table_kind == "x":
        unknown = ("BPF_???" if table in ("BPF_UPDATE_FLAGS", "BPF_ATTACH_TYPES")
                   else "BPF_FD_TYPE_???" if table == "BPF_FD_TYPES"
                   else table[:-1] + "_???")
        return _xval(getattr(t, table), _u(data, off, 8 if table == "BPF_UPDATE_FLAGS"
                                         else 4), unknown)
    flags = F.FlagSet(getattr(t, table), unknown="BPF_F_QUERY_???"
                      if table == "BPF_QUERY_FLAGS" else "BPF_F_???")
    return flags(_u(data, off))


def _link_tail(attr: bytes, fl: F.ArchFlags) -> tuple[str | None, int]:
    """What BPF_LINK_CREATE prints after its flags, by attach type, and the size of the
    member with it: ``perf_event={bpf_cookie=0x7}`` (BPF_PERF_EVENT),
    ``iter_info=NULL, iter_info_len=0`` (BPF_TRACE_ITER), ``kprobe_multi={flags=...,
    cnt=0, syms=NULL, addrs=NULL, cookies=NULL}`` (BPF_TRACE_KPROBE_MULTI),
    ``target_btf_id=7`` when not 0 (attach type 0 only: strace 6.1's switch); None for
    the text of an array not captured (iter_info, syms, addrs, cookies not NULL)."""
    kind = fl.tables.BPF_ATTACH_TYPES.get(_u(attr, 8))
    if _u(attr, 8) == 0:
        btf_id = _u(attr, 16)
        return (f"target_btf_id={btf_id}" if btf_id else ""), 20
    if kind == "BPF_PERF_EVENT":
        cookie = _u(attr, 16, 8)
        return f"perf_event={{bpf_cookie={hex(cookie) if cookie else '0'}}}", 24
    if kind == "BPF_TRACE_ITER":
        info, n = _u(attr, 16, 8), _u(attr, 24)
        if info and n:
            return None, 28
        return f"iter_info={'[]' if info else 'NULL'}, iter_info_len={n}", 28
    if kind == "BPF_TRACE_KPROBE_MULTI":
        if _u(attr, 24, 8) or _u(attr, 32, 8) or _u(attr, 40, 8):
            return None, 48
        flags = F.FlagSet(fl.tables.BPF_KPROBE_MULTI_FLAGS, unknown="BPF_F_???")
        return (f"kprobe_multi={{flags={flags(_u(attr, 16))}, cnt={_u(attr, 20)}, "
                "syms=NULL, addrs=NULL, cookies=NULL}"), 48
    return "", 16


def _nul_string(got: bytes, need: int, limit: int) -> str | None:
    """A buffer as strace's printstr_ex with QUOTE_0_TERMINATED prints it, from ``got``
    (``need`` bytes asked: the length, at most -s + 1): up to its NUL, else ``limit``
    bytes and ``...``; None when fewer bytes were read and no NUL (strace: the address)."""
    nul = got.find(b"\0")
    if nul >= 0:
        return quote(got[:nul])
    return quote(got[:limit], more=True) if len(got) >= need else None


def _exit_tail(cmd: str, attr: bytes, after: bytes, fl: F.ArchFlags,
               derefs: Mapping[int, Deref], limit: int, ok: bool = True) -> str | None:
    """What strace prints at exit of BPF_PROG_QUERY and BPF_TASK_FD_QUERY, from ``after``
    (the attr as the call left it, cut by the size): ``prog_ids=[], prog_cnt=0`` (the
    count as ``2 => 0`` when the call changed it), ``buf_len=8 => 0, buf=NULL,
    prog_id=0, fd_type=..., probe_offset=0, probe_addr=0``. None when memory strace
    reads there was not read (the ids of a count other than 0 that a successful call
    wrote; a task's buffer without its capture at exit). ``ok``: the call succeeded; a
    failed one's ids print as their address (strace reads no array at a failed exit)."""
    if cmd == "BPF_PROG_QUERY":
        ids, cnt, cnt_in = _u(after, 16, 8), _u(after, 24), _u(attr, 24)
        if ids and cnt and ids < _KERNEL_HALF and ok:
            return None
        return (f"prog_ids={'[]' if ids and not cnt else pointer(ids)}, prog_cnt="
                + (f"{cnt_in} => {cnt}" if cnt != cnt_in else str(cnt)))
    buf_len_in, buf_len = _u(attr, 12), _u(after, 12)
    buf, n = _u(after, 16, 8), min(buf_len_in, _u(after, 12))
    shown: str | None = pointer(buf) if not buf else '""' if not n else None
    d = derefs.get(16)
    if shown is None and d is not None and d.ptr == buf and d.readable:
        need = min(n, limit + 1)
        shown = _nul_string(d.data[:need], need, limit)
    if shown is None:
        if d is None and buf < _KERNEL_HALF:
            return None             # not read (a record without the capture)
        shown = pointer(buf)
    fd_type = _xval(fl.tables.BPF_FD_TYPES, _u(after, 28), "BPF_FD_TYPE_???")
    offset, addr = _u(after, 32, 8), _u(after, 40, 8)
    return (f"buf_len={buf_len_in}" + (f" => {buf_len}" if buf_len != buf_len_in else "")
            + f", buf={shown}, "
            f"prog_id={_u(after, 24)}, fd_type={fd_type}, "
            f"probe_offset={hex(offset) if offset else '0'}, "
            f"probe_addr={hex(addr) if addr else '0'}")


def format_bpf_attr(cmd: str, data: bytes, size: int, fl: F.ArchFlags,
                    out: bytes | None = None, out_ok: bool = False,
                    text: bytes | None = None,
                    derefs: Mapping[int, Deref] | None = None, full: bool = False,
                    limit: int = _STR_LIMIT, fdtext: Callable[[int], str] | None = None
                    ) -> str | None:
    """The attr of command ``cmd`` (a BPF_CMDS name) as strace prints it.

    Args:
      cmd: the command's name.
      data: the attr as read at entry (at least min(size, BPF_ATTR_CAP) bytes).
      size: the size argument (bytes).
      out: the attr as read at exit, when the call wrote fields back.
      out_ok: the call succeeded (BPF_MAP_LOOKUP_BATCH: or failed with ENOENT).
      text: the attr's first word (8 bytes, the whole pointer), then the
        BPF_ATTR_STR_CAP bytes it points to when readable; None when not read.
      derefs: what pointers inside the attr point to, by their byte offset (the
        license at 16, log_buf at 32, the BTF at 0: TK_SPEC_PTR_AT captures).
      full: strace -v (not abbreviated): an empty program's ``insns=[]`` (strace's
        print_array of no element, not NULL: it reads nothing), and nonzero bytes past the
        member as ``extra_data="\\x05..." /* bytes 16..23 */`` (every byte of them, in
        hex) where the abbreviated attr prints ``...``.
      limit: strace's -s: the bytes of a string or buffer shown.
      fdtext: an fd field's text (strace -yy's ``3<anon_inode:bpf-map>``); None: the
        number.

    Returns:
      ``{map_type=..., ...}``; None when strace prints the address (module docstring).
    """
    member = _MEMBERS.get(cmd)
    if member is None or not 0 < size <= _PAGE or len(data) < min(size, BPF_ATTR_CAP):
        return None
    msize, fields = member
    attr = data[:size].ljust(max(msize, 8), b"\0")
    map_flags = _u(attr, 16) if cmd == "BPF_MAP_CREATE" else 0
    if cmd in ("BPF_RAW_TRACEPOINT_OPEN", "BPF_OBJ_PIN", "BPF_OBJ_GET") and _u(attr, 0, 8):
        # the string at the first word, read with the attr: a path longer than what
        # was read (no NUL) is not there to show (strace prints it whole); a name is,
        # when more than the 32 bytes strace shows were read
        if text is None or len(text) > 8 and b"\0" not in text[8:] and (
                cmd != "BPF_RAW_TRACEPOINT_OPEN" or len(text) <= 8 + limit):
            return None
    for off, length_at in _POINTED.get(cmd, ()):
        # a pointer strace follows whose memory was not read at all (not an unreadable
        # one: that prints as its address, as strace prints it)
        if (size > off and _u(attr, off, 8) and (derefs or {}).get(off) is None
                and (length_at is None or _u(attr, length_at))):
            return None
    wrote = out if out_ok and cmd not in _BATCHES else None
    parts = []
    for name, off, kind, start in fields:
        if size <= start:
            break
        field = _field(kind, attr, off, fl, wrote, map_flags, size, text, derefs, limit,
                       fdtext)
        if full and name == "insns" and not _u(attr, 4) and _u(attr, 8, 8):
            field = "[]"                # insn_cnt 0: an empty array (NULL stays NULL)
        if field is not None:
            parts.append(f"{name}={field}")
    if cmd in ("BPF_PROG_QUERY", "BPF_TASK_FD_QUERY"):
        # strace reads the attr again at exit (whatever the result)
        after = (out if out is not None and len(out) >= min(size, msize) else data)
        tail = _exit_tail(cmd, attr, after[:size].ljust(msize, b"\0"), fl, derefs or {},
                          limit, out_ok)
        if tail is None:
            return None
        parts.append(tail)
    if cmd == "BPF_LINK_CREATE" and size > msize:
        tail, msize = _link_tail(attr.ljust(48, b"\0"), fl)
        if tail is None:
            return None
        parts += [tail] if tail else []
    body = ", ".join(parts)
    wrapper = _WRAPPED.get(cmd)
    shown = "{" + (f"{wrapper}={{{body}}}" if wrapper else body)
    if any(data[msize:size]):
        shown += (f', extra_data={quote(data[msize:size], force_hex=True)} '
                  f"/* bytes {msize}..{size - 1} */" if full else ", ...")
    shown += "}"
    if (cmd in _BATCHES and out_ok and out is not None and len(out) >= 36
            and _u(out, 32) != _u(attr, 32)):
        shown += f" => {{batch={{count={_u(out, 32)}}}}}"
    return shown


def _k_bpf_attr(fl: F.ArchFlags) -> KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        addr = ev.args[i]
        if addr == 0:
            return "NULL"
        cmd = fl.tables.BPF_CMDS.get(ev.args[0] & 0xFFFFFFFF)
        caps = [c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF]
        if cmd is None or not caps or caps[0].flags & CAPF_FAULT:
            return pointer(addr)
        # capture.py's order: the attr, the first word with what it points to, the attr
        # at exit
        first = caps[1] if len(caps) >= 2 and not caps[1].flags & CAPF_FAULT else None
        string = None if first is None else first.data
        out = caps[2].data if len(caps) >= 3 and not caps[2].flags & CAPF_FAULT else None
        ok = succeeded(ev) or (cmd in _BATCHES and ev.ret == -_ENOENT)
        derefs = {off: dr for off in (0, 16, 32) if (dr := deref(ev, i, off)) is not None}
        text = format_bpf_attr(cmd, caps[0].data, ev.args[2] & 0xFFFFFFFF, fl, out, ok,
                               string, derefs, d.full, d.string_limit,
                               (lambda fd: d.fd_text(ev.tgid, fd)) if d.fd_paths else None)
        return pointer(addr) if text is None else text
    return k


def _ret_bpf(fl: F.ArchFlags) -> Callable[[SyscallDecoder, Syscall, str], str]:
    def ret(d: SyscallDecoder, ev: Syscall, text: str) -> str:
        """The fd a command makes, with its -yy decoration (strace: RVAL_FD)."""
        if ev.args[0] & 0xFFFFFFFF in BPF_FD_TARGETS:
            return d.fd_text(ev.tgid, ev.ret)
        return text
    return ret


def ret_kinds(fl: F.ArchFlags) -> dict[str, Callable[[SyscallDecoder, Syscall, str], str]]:
    """Return kinds of this module: (decoder, record, plain text) -> the text after ``=``."""
    return {"bpffd": _ret_bpf(fl)}


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """The argument kinds of this module for ``fl``'s arch (merged by tracekit.decode.args)."""
    return {"bpfattr": _k_bpf_attr(fl)}


