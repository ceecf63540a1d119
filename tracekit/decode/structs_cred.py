"""Credential structs as strace 6.1 prints them: capget/capset's header and data.

``struct __user_cap_header_struct`` (include/uapi/linux/capability.h) is
``{__u32 version; int pid;}``: strace prints ``{version=_LINUX_CAPABILITY_VERSION_3,
pid=0}``, an unknown version as ``0x12345678 /* _LINUX_CAPABILITY_VERSION_??? */``. The
data is an array of ``struct __user_cap_data_struct {__u32 effective, permitted,
inheritable;}``: two of them (the low and high 32 capabilities) for versions 2 and 3,
one for any other version; strace joins them into one set per field:
``{effective=1<<CAP_CHOWN|1<<CAP_KILL, permitted=..., inheritable=0}``.

The header is read at entry (capget writes the kernel's version into it when the one
given is wrong: strace shows the caller's); capset's data at entry, capget's at exit
(the address when the call failed). Without a readable header the data is an address.
Captures: tracekit/session/capture.py ``OVERRIDES``.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode import flags as F
from tracekit.decode.captures import KindFn, capture, capture_out
from tracekit.decode.values import pointer

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["CAP_DATA_SIZE", "CAP_HEADER_SIZE", "format_cap_data", "format_cap_header",
           "kinds"]

CAP_HEADER_SIZE = 8         # version (u32), pid (int)
CAP_DATA_SIZE = 24          # two struct __user_cap_data_struct of three u32
_ELEM = struct.Struct("<III")


def _two_words(fl: F.ArchFlags) -> frozenset[int]:
    """The header versions whose data has two elements (64 capabilities)."""
    return frozenset(v for v, n in fl.tables.CAP_VERSIONS.items()
                     if n in ("_LINUX_CAPABILITY_VERSION_2", "_LINUX_CAPABILITY_VERSION_3"))


def format_cap_header(data: bytes, fl: F.ArchFlags) -> str | None:
    """``{version=_LINUX_CAPABILITY_VERSION_3, pid=0}``; None for fewer than 8 bytes."""
    if len(data) < CAP_HEADER_SIZE:
        return None
    version, pid = struct.unpack_from("<Ii", data)
    name = fl.tables.CAP_VERSIONS.get(version)
    if name is None:
        name = f"{hex(version) if version else '0'} /* _LINUX_CAPABILITY_VERSION_??? */"
    return f"{{version={name}, pid={pid}}}"


def format_cap_data(data: bytes, elems: int, fl: F.ArchFlags) -> str | None:
    """``{effective=..., permitted=..., inheritable=...}`` from ``elems`` (1 or 2) data
    structs, each set as ``1<<CAP_CHOWN|1<<CAP_KILL`` (``0`` when empty); None when the
    bytes are too short."""
    if len(data) < elems * _ELEM.size:
        return None
    sets = [0, 0, 0]
    for k in range(elems):
        for f, v in enumerate(_ELEM.unpack_from(data, k * _ELEM.size)):
            sets[f] |= v << (32 * k)
    mask = _cap_mask(fl)
    return (f"{{effective={mask(sets[0])}, permitted={mask(sets[1])}, "
            f"inheritable={mask(sets[2])}}}")


_MASKS: dict[str, F.FlagSet] = {}


def _cap_mask(fl: F.ArchFlags) -> F.FlagSet:
    """The capability set decoder of ``fl``'s arch: bit n named ``1<<CAP_...``."""
    got = _MASKS.get(fl.arch)
    if got is None:
        bits = tuple((1 << n, f"1<<{name}") for n, name in sorted(fl.tables.CAPABILITIES.items()))
        got = _MASKS[fl.arch] = F.FlagSet(bits, unknown="CAP_???")
    return got


def kinds(fl: F.ArchFlags) -> dict[str, KindFn]:
    """Argument kinds: ``capheader`` (capget/capset's header), ``capdata_in`` (capset's
    data) and ``capdata_out`` (capget's), for ``fl``'s arch."""
    two = _two_words(fl)

    def header(ev: Syscall) -> tuple[str | None, int]:
        """(the header's text, the data's element count) of the record's argument 0."""
        cap = capture(ev, 0, whole=True)
        if cap is None or not ev.args[0]:
            return None, 0
        text = format_cap_header(cap.data, fl)
        version = int.from_bytes(cap.data[:4], "little")
        return text, 2 if version in two else 1

    def k_header(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        text, _ = header(ev)
        return pointer(ev.args[i]) if text is None else text

    def data(ev: Syscall, i: int, out: bool) -> str:
        text, elems = header(ev)
        cap = (capture_out if out else capture)(ev, i, whole=True)
        if text is None or cap is None or not ev.args[i]:
            return pointer(ev.args[i])
        got = format_cap_data(cap.data, elems, fl)
        return pointer(ev.args[i]) if got is None else got

    return {
        "capheader": k_header,
        "capdata_in": lambda d, ev, i: data(ev, i, False),
        "capdata_out": lambda d, ev, i: data(ev, i, True),
    }
