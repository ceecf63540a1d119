"""Classic BPF programs (struct sock_fprog), as strace 6.1 prints them: seccomp's
SECCOMP_SET_MODE_FILTER and prctl's PR_SET_SECCOMP filters, setsockopt's SO_ATTACH_FILTER
and SO_ATTACH_REUSEPORT_CBPF socket filters, and the one getsockopt's SO_GET_FILTER
returns (an array of instructions alone: :func:`got_filter_text`).

struct sock_fprog (include/uapi/linux/filter.h) is ``{u16 len; struct sock_filter
*filter}`` (the pointer at byte 8 on 64-bit); each struct sock_filter is 8 bytes, ``{u16
code; u8 jt; u8 jf; u32 k}``. The BPF program reads the instructions behind ``filter``
(programs/syscalls.h TK_SPEC_PTR_AT, session/capture.py ``_fprog``: 1024 bytes, the
first 128 instructions, or those up to the end of the page they start in when the
1024 are not readable); ``len`` is read with the struct (the argument's own capture).

Printed (strace's bpf_filter.c): abbreviated, ``{len=12, filter=0x7ffc...}``; with -v
(``d.full``) ``{len=12, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|
BPF_K|BPF_JEQ, 0x3, 0, 0x1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW), ...]}``: an
instruction with a jump offset is a ``BPF_JUMP``, any other a ``BPF_STMT`` whose ``k``
is named for seccomp (a BPF_RET's action: ``SECCOMP_RET_ERRNO|0x10``) or for sockets (a
BPF_LD|BPF_ABS's special offsets: ``SKF_AD_OFF+SKF_AD_PROTOCOL``, ``SKF_NET_OFF+8``).
An empty program is ``[]``, one whose first instruction is unreadable its address, one
cut by the end of its mapping the instructions before it and ``... /* 0x... */``; after
BPF_MAXINSNS instructions ``...``. Names come from the uapi headers
(linux/filter.h, linux/bpf.h, linux/seccomp.h: scripts/gen_beauty_tables.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode.captures import deref, readable, succeeded
from tracekit.decode.values import hex0, pointer, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["FPROG_FILTER_AT", "FPROG_SIZE", "GET_FILTER_CAP", "INSN_SIZE", "format_code",
           "format_fprog", "format_insns", "fprog_arg", "fprog_text", "got_filter_text",
           "seccomp_k", "sock_k"]

GET_FILTER_CAP = 1024   # getsockopt SO_GET_FILTER's buffer read at exit: 128 instructions
FPROG_FILTER_AT = 8     # struct sock_fprog: the filter pointer's byte offset (64-bit)
FPROG_SIZE = 16         # struct sock_fprog (64-bit)
INSN_SIZE = 8           # struct sock_filter
_INSN = struct.Struct("<HBBI")      # code, jt, jf, k
_M32 = 0xFFFFFFFF

#: prints a BPF_STMT's k as a filter's kind names it (None: in hex), from (tables,
#: code, k)
KFn = Callable[[ModuleType, int, int], "str | None"]


def _const(table: dict[int, str], name: str) -> int:
    """The value of ``name`` in a generated table of constants."""
    return next(v for v, n in table.items() if n == name)


def _name(T: ModuleType, table: str, v: int) -> str:
    return xval(getattr(T, table), v, "BPF_???")


def _extra(v: int) -> str:
    """Bits of a code no name covers: ``|0x100 /* BPF_??? */``."""
    return f"|{hex0(v)} /* BPF_??? */" if v else ""


def format_code(T: ModuleType, code: int) -> str:
    """An instruction's code as strace names its parts (linux/bpf_common.h's BPF_CLASS,
    BPF_SIZE, BPF_MODE, BPF_OP, BPF_SRC; linux/filter.h's BPF_RVAL, BPF_MISCOP):
    ``BPF_LD|BPF_W|BPF_ABS``, ``BPF_JMP|BPF_K|BPF_JEQ``, ``BPF_RET|BPF_K``."""
    cls = code & 0x07
    text = _name(T, "BPF_CLASSES", cls)
    rest = code & ~0x07 & 0xFFFF
    name = T.BPF_CLASSES.get(cls)
    if name in ("BPF_ST", "BPF_STX"):
        return text + _extra(rest)
    if name in ("BPF_LD", "BPF_LDX"):
        return f"{text}|{_name(T, 'BPF_SIZES', code & 0x18)}|{_name(T, 'BPF_MODES', code & 0xE0)}"
    if name == "BPF_MISC":
        return f"{text}|{_name(T, 'BPF_MISCOPS', code & 0xF8)}" + _extra(rest & ~0xF8)
    if name in ("BPF_ALU", "BPF_JMP"):
        ops = "BPF_ALU_OPS" if name == "BPF_ALU" else "BPF_JMP_OPS"
        return f"{text}|{_name(T, 'BPF_SRCS', code & 0x08)}|{_name(T, ops, code & 0xF0)}"
    # BPF_RET
    return f"{text}|{_name(T, 'BPF_RVALS', code & 0x18)}" + _extra(rest & ~0x18)


def seccomp_k(T: ModuleType, code: int, k: int) -> str | None:
    """A seccomp filter's BPF_RET value: its action by name and its data in hex
    (``SECCOMP_RET_ERRNO|0x1``, ``0x60000 /* SECCOMP_RET_??? */``); None for other
    classes."""
    if T.BPF_CLASSES.get(code & 0x07) != "BPF_RET":
        return None
    action = k & _const(T.SECCOMP_RET_MASKS, "SECCOMP_RET_ACTION_FULL")
    data = k & ~action & _M32
    text = xval(T.SECCOMP_RET_ACTIONS, action, "SECCOMP_RET_???")
    return f"{text}|{hex0(data)}" if data else text


def sock_k(T: ModuleType, code: int, k: int) -> str | None:
    """A socket filter's BPF_LD|BPF_ABS offset in the special areas: ``SKF_AD_OFF+
    SKF_AD_PROTOCOL``, ``SKF_NET_OFF+8``, ``SKF_LL_OFF+4``; None for any other."""
    if (T.BPF_CLASSES.get(code & 0x07) != "BPF_LD"
            or T.BPF_MODES.get(code & 0xE0) != "BPF_ABS"):
        return None
    # the offsets from highest (SKF_AD_OFF, -0x1000) down, as unsigned 32-bit values
    for off, name in sorted(T.SKF_OFFS.items(), reverse=True):
        base = off & _M32
        if k >= base:
            rest = k - base
            if name == "SKF_AD_OFF":
                return f"{name}+{xval(T.SKF_AD, rest, 'SKF_AD_???')}"
            return f"{name}+{rest}"
    return None


def _insn(T: ModuleType, raw: bytes, k_text: KFn) -> str:
    code, jt, jf, k = _INSN.unpack(raw)
    if jt or jf:
        return f"BPF_JUMP({format_code(T, code)}, {hex0(k)}, {hex0(jt)}, {hex0(jf)})"
    named = k_text(T, code, k)
    return f"BPF_STMT({format_code(T, code)}, {hex0(k) if named is None else named})"


def format_insns(T: ModuleType, data: bytes, count: int, addr: int, k_text: KFn, *,
                 cut: bool) -> str | None:
    """``count`` instructions at ``addr`` of which ``data`` was read: ``[BPF_STMT(...),
    ...]``. ``cut``: the memory after ``data`` was unreadable (an instruction not in it
    ends the list as ``... /* 0x... */``, its address); else the capture ended first
    (``...``). After BPF_MAXINSNS instructions, ``...``. None when the first instruction
    is unreadable (strace prints the address); ``[]`` for none."""
    limit = _const(T.BPF_FILTER_CONSTS, "BPF_MAXINSNS")
    items: list[str] = []
    for n in range(max(count, 0)):
        if (n + 1) * INSN_SIZE > len(data):
            if not n and cut:
                return None
            items.append(f"... /* {hex(addr + n * INSN_SIZE)} */" if cut else "...")
            break
        if n >= limit:
            items.append("...")
            break
        items.append(_insn(T, data[n * INSN_SIZE:(n + 1) * INSN_SIZE], k_text))
    return "[" + ", ".join(items) + "]"


def format_fprog(T: ModuleType, count: int, ptr: int, data: bytes, k_text: KFn, *,
                 full: bool, cut: bool) -> str:
    """struct sock_fprog of ``count`` instructions at ``ptr`` (``data``, ``cut``: as
    :func:`format_insns`): ``{len=N, filter=0x...}``, or with ``full`` (strace -v) the
    instructions (``filter=NULL`` for a NULL pointer, its address when it would wrap
    past the end of the address space or its first instruction is unreadable)."""
    text = None
    if full and ptr and ptr + count * INSN_SIZE < 1 << 64:
        text = format_insns(T, data, count, ptr, k_text, cut=cut)
    return f"{{len={count}, filter={pointer(ptr) if text is None else text}}}"


def fprog_text(d: SyscallDecoder, ev: Syscall, i: int, *, sock: bool = False) -> str | None:
    """Argument ``i``, a struct sock_fprog pointer (not NULL), as strace prints it (the
    module's docstring): a seccomp filter, or with ``sock`` a socket filter; None when
    the struct was not read (unreadable, or no capture). ``len`` is from the struct's
    own capture (its first), the pointer and the instructions from the CAPF_DEREF one."""
    head = readable(ev, i)
    # read at entry and at exit (session/capture.py _fprog): the one that read more
    refs = [r for r in (deref(ev, i, FPROG_FILTER_AT, last=False),
                        deref(ev, i, FPROG_FILTER_AT)) if r is not None]
    if not refs or head is None or len(head[0]) < 2:
        return None
    ref = max(refs, key=lambda r: (r.readable, len(r.data)))
    count = int.from_bytes(head[0][:2], "little")
    return format_fprog(d.flags.tables, count, ref.ptr, ref.data,
                        sock_k if sock else seccomp_k, full=d.full, cut=not ref.readable)


def fprog_arg(d: SyscallDecoder, ev: Syscall, i: int, *, sock: bool = False) -> str:
    """:func:`fprog_text`, or the address (``NULL``) when the struct was not read."""
    text = fprog_text(d, ev, i, sock=sock) if ev.args[i] else None
    return pointer(ev.args[i]) if text is None else text


def got_filter_text(d: SyscallDecoder, ev: Syscall, i: int, ulen: int | None,
                    rlen: int | None) -> str:
    """getsockopt(SO_GET_FILTER)'s buffer at argument ``i``: with -v the ``rlen``
    instructions the call wrote (its optlen after the call counts instructions, not
    bytes: net/core/filter.c sk_get_filter), read at exit (the first capture of the
    argument, session/capture.py: GET_FILTER_CAP bytes, or those up to the end of their
    page); the address when abbreviated, when the call failed, when either length is not
    above 0 or ``rlen`` is not a u16 (strace's print_getsockopt), or the first
    instruction is unreadable."""
    addr = ev.args[i]
    text = None
    if (d.full and addr and succeeded(ev) and ulen is not None and rlen is not None
            and ulen > 0 and 0 < rlen <= 0xFFFF and addr + rlen * INSN_SIZE < 1 << 64):
        got = readable(ev, i)
        if got is not None:
            text = format_insns(d.flags.tables, got[0], rlen, addr, sock_k, cut=not got[1])
    return pointer(addr) if text is None else text
