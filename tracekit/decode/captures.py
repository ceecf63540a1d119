"""The user memory a call's record carries (``Syscall.caps``), as the decoders need it.

One place says which capture belongs to an argument, when a struct the call writes is
there to show (the call succeeded), and how a struct decoder falls back to the address
strace prints when the memory is not there (unread, unreadable, or a failed call).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from tracekit._events import (
    CAPF_DEREF,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_PARTIAL,
    CAPF_TRUNC,
    SC_NORETURN,
    SC_UNFINISHED,
    Capture,
    Syscall,
)
from tracekit.decode.values import pointer

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["Deref", "KindFn", "capture", "capture_out", "cut_array", "cut_array_text",
           "decoded_abbrev", "decoded_in", "decoded_out", "deref", "entry_exit", "readable",
           "succeeded"]

#: an argument decoder: (decoder, record, argument index) -> the argument's text
KindFn = Callable[["SyscallDecoder", Syscall, int], str]


def capture(ev: Syscall, i: int, *, whole: bool = False) -> Capture | None:
    """The capture of argument ``i`` (the last one if several).

    None when there is none or the memory was unreadable (CAPF_FAULT); with ``whole``,
    also when it was cut short (CAPF_TRUNC). What a pointer inside the argument's struct
    points to (CAPF_DEREF) is not the argument's memory: never taken.
    """
    cap = None
    for c in ev.caps:
        if c.arg == i and not c.flags & CAPF_DEREF:
            cap = c
    bad = CAPF_FAULT | (CAPF_TRUNC if whole else 0)
    return None if cap is None or cap.flags & bad else cap


def entry_exit(ev: Syscall, i: int) -> tuple[Capture | None, Capture | None]:
    """The entry and exit captures of argument ``i`` (captured twice: read, then
    written by the call); each None when absent or unreadable."""
    good = [c if not c.flags & CAPF_FAULT else None for c in ev.caps if c.arg == i]
    if len(good) >= 2:
        return good[0], good[-1]
    return (good[0] if good else None), None


def readable(ev: Syscall, i: int) -> tuple[bytes, bool] | None:
    """What could be read of argument ``i``'s memory (its first capture: the one read at
    entry, or retried at exit): its bytes, and whether they are all that was asked
    (False: the read faulted, and they are the bytes up to the end of the page it
    started in, a CAPF_PARTIAL capture; the memory after them is not readable). None
    when nothing was read. For decoders that read the memory piece by piece as strace
    does (netlink messages, poll's array); any other decoder takes :func:`capture`, for
    which a partial read is unreadable."""
    cap = next((c for c in ev.caps if c.arg == i and not c.flags & CAPF_DEREF), None)
    if cap is None:
        return None
    if cap.flags & CAPF_PARTIAL:
        return cap.readable, False
    return None if cap.flags & CAPF_FAULT else (cap.data, True)


def cut_array(data: bytes, count: int, size: int, limit: int, addr: int
              ) -> tuple[list[bytes], str] | None:
    """An array of ``count`` elements of ``size`` bytes at ``addr`` of which only
    ``data`` was readable (a CAPF_PARTIAL read, :func:`readable`), as strace's
    print_array reads it element by element: the elements before the first unreadable
    one (at most ``limit``, strace -s) and what follows them, ``... /* 0x... */`` (the
    address of that element) or ``...`` (more than ``limit``), or ``""`` (all shown).
    None when the first element is unreadable: strace prints the array's address."""
    items: list[bytes] = []
    for k in range(max(count, 0)):
        if (k + 1) * size > len(data):
            return (items, f"... /* {hex(addr + k * size)} */") if k else None
        if k >= limit:
            return items, "..."
        items.append(data[k * size:(k + 1) * size])
    return items, ""


def cut_array_text(data: bytes, count: int, size: int, limit: int, addr: int,
                   fmt: Callable[[bytes, int], str]) -> str | None:
    """:func:`cut_array` printed: ``fmt(bytes, n)`` prints ``n`` whole elements as a
    list (``[{...}, {...}]``), to which the tail is added (``[{...}, ... /* 0x... */]``);
    None when the first element is unreadable (the caller prints the address)."""
    cut = cut_array(data, count, size, limit, addr)
    if cut is None:
        return None
    items, tail = cut
    text = fmt(b"".join(items), len(items))
    if not tail:
        return text
    return text[:-1] + (", " if items else "") + tail + "]"


class Deref(NamedTuple):
    """What a pointer inside argument ``i``'s struct pointed to (a CAPF_DEREF capture of
    programs/syscalls.h TK_SPEC_PTR_AT: ``struct tk_deref_head`` then the bytes)."""

    ptr: int            # the pointer as read from the struct (0: NULL, no data)
    want: int           # the __u32 length read from the struct (0 for a string)
    data: bytes         # the bytes read at ptr (a string without its NUL)
    trunc: bool         # more than data was there (string: longer; bytes: want > cap)
    readable: bool      # False: the memory at ptr could not be read (data is empty)


_DEREF_HEAD = struct.Struct("<QII")     # struct tk_deref_head: ptr, off, want


def deref(ev: Syscall, i: int, off: int, *, last: bool = True) -> Deref | None:
    """The CAPF_DEREF capture of argument ``i`` for the pointer at byte ``off`` of its
    struct: the last one (with specs read at entry and at exit: as read at exit), or
    with ``last=False`` the first (as read at entry). None when there is none or the
    struct itself was unreadable."""
    found = []
    for c in ev.caps:
        if (c.arg != i or not c.flags & CAPF_DEREF or c.flags & CAPF_FAULT
                or len(c.data) < _DEREF_HEAD.size):
            continue
        ptr, c_off, want = _DEREF_HEAD.unpack_from(c.data)
        if c_off == off:
            found.append(Deref(ptr, want, c.data[_DEREF_HEAD.size:],
                               bool(c.flags & CAPF_TRUNC), not c.flags & CAPF_ELEM_FAULT))
    if not found:
        return None
    return found[-1] if last else found[0]


def succeeded(ev: Syscall) -> bool:
    """The call returned without an error: what it wrote is there to show (strace prints
    the address of an output struct that a failed or unfinished call did not fill)."""
    return not ev.flags & (SC_UNFINISHED | SC_NORETURN) and not -4095 <= ev.ret < 0


def capture_out(ev: Syscall, i: int, *, whole: bool = False) -> Capture | None:
    """The capture of what the call wrote at argument ``i``, None unless it succeeded."""
    return capture(ev, i, whole=whole) if succeeded(ev) else None


def decoded_in(fmt: Callable[[bytes], str | None], *, whole: bool = False) -> KindFn:
    """A decoder of a struct the call reads (captured at entry), shown whatever the result;
    its address when not captured or when ``fmt`` cannot read it (None)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture(ev, i, whole=whole)
        text = None if cap is None else fmt(cap.data)
        return pointer(ev.args[i]) if text is None else text
    return k


def elements_shown(d: SyscallDecoder) -> int:
    """How many elements of an array strace prints before ``...``: -s of them, every one
    for a call not abbreviated (print_array's ``abbrev(tcp)`` test, util.c: -v, ``-e
    abbrev=`` without the call); what was captured may end first."""
    return 1 << 30 if d.full else d.string_limit


def abbreviated(short: KindFn, full: KindFn) -> KindFn:
    """strace's abbrev(tcp): ``short`` for a call printed abbreviated (its default),
    ``full`` for one that is not (-v, ``-e abbrev=`` without it: ``d.full``)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return (full if d.full else short)(d, ev, i)
    return k


def decoded_out(fmt: Callable[..., str | None], *, whole: bool = False,
                elements: bool = False) -> KindFn:
    """A decoder of a struct the call fills in: shown when the call succeeded, else (as
    for :func:`decoded_in`) its address. ``elements``: the struct holds an array, and
    ``fmt`` takes as its second argument how many of its elements to show
    (:func:`elements_shown`)."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture_out(ev, i, whole=whole)
        text = None if cap is None else \
            fmt(cap.data, elements_shown(d)) if elements else fmt(cap.data)
        return pointer(ev.args[i]) if text is None else text
    return k


def decoded_abbrev(fmt: Callable[..., str | None], *, out: bool = False) -> KindFn:
    """A struct strace prints abbreviated (``...`` for some fields) unless abbrev(tcp) is
    false (-v): ``fmt(data, full=d.full)``; read by the call (:func:`decoded_in`) or,
    ``out``, written by it (:func:`decoded_out`), whole."""
    wrap = decoded_out if out else decoded_in

    def kind(full: bool) -> KindFn:
        return wrap(lambda data: fmt(data, full=full), whole=True)
    return abbreviated(kind(False), kind(True))

