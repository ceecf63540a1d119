"""Public home of tracekit's raw kernel layer (the ``trio.lowlevel`` pattern).

One function per bpf(2) command (taking and returning fds, which the caller owns), the
perf_event_open(2) helpers and the ring-buffer consumer :class:`RingBuf`. Most users want
the objects of ``tracekit`` instead; this is for tools and tests that need the kernel
interface itself. Numbers (``Cmd``, ``MapType``, ``ProgType``, flags) are in
``tracekit.bpf.uapi`` and re-exported here.
"""

from tracekit._meta import fixup_module_metadata as _fixup_module_metadata
from tracekit.bpf.perf_event import (
    attach_bpf,
    disable,
    enable,
    perf_event_open,
    read_counter,
    tracepoint_id,
)
from tracekit.bpf.ringbuf import RingBuf
from tracekit.bpf.sys import (
    BtfInfo,
    LinkInfo,
    MapInfo,
    ProgInfo,
    btf_load,
    link_create,
    link_get_next_id,
    map_create,
    map_delete_elem,
    map_freeze,
    map_get_fd_by_id,
    map_get_next_id,
    map_get_next_key,
    map_lookup_batch,
    map_lookup_elem,
    map_update_elem,
    obj_get_info_by_fd,
    possible_cpus,
    prog_get_fd_by_id,
    prog_get_next_id,
    prog_load,
    prog_test_run,
    raw_tracepoint_open,
)
from tracekit.bpf.uapi import AttachType, Cmd, LinkType, MapType, ProgType

__all__ = [
    "AttachType", "BtfInfo", "Cmd", "LinkInfo", "LinkType", "MapInfo", "MapType", "ProgInfo",
    "ProgType", "RingBuf", "attach_bpf", "btf_load", "disable", "enable", "link_create",
    "link_get_next_id", "map_create", "map_delete_elem", "map_freeze", "map_get_fd_by_id",
    "map_get_next_id", "map_get_next_key", "map_lookup_batch", "map_lookup_elem",
    "map_update_elem", "obj_get_info_by_fd", "perf_event_open", "possible_cpus",
    "prog_get_fd_by_id", "prog_get_next_id", "prog_load", "prog_test_run",
    "raw_tracepoint_open", "read_counter", "tracepoint_id",
]

# reprs and tracebacks name this module, not the private one that defines the object
_fixup_module_metadata(__name__, globals(), __all__)
