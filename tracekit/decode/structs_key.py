"""keyctl's structs as strace 6.1 prints them (its src/keyctl.c).

- KEYCTL_DH_COMPUTE's ``struct keyctl_dh_params``: ``{private=KEY_SPEC_GROUP_KEYRING,
  prime=1234567890, base=-1153374643}`` (three key serials).
- KEYCTL_PKEY_ENCRYPT/DECRYPT/SIGN/VERIFY's ``struct keyctl_pkey_params``:
  ``{key_id=0, in_len=10, out_len=10, __spare=[0x1, 0, 0, 0, 0, 0, 0]}`` (``in2_len`` in
  the place of ``out_len`` for VERIFY; ``__spare`` only when not all 0).
- the bytes of a buffer whose length a struct gives (the PKEY operations' input, ``in_len``
  bytes of it): as strace's printstrn prints them, from the C string tracekit captured
  there; its address when the string ends before the bytes shown (what follows its NUL
  was not read).

Layouts: include/uapi/linux/keyctl.h.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

from tracekit._events import CAP_STR, CAP_STRUCT, CAPF_DEREF, CAPF_FAULT, CAPF_PARTIAL, Syscall
from tracekit.decode import xstyle
from tracekit.decode.values import hex0, pointer, quote, signed

__all__ = ["DH_PARAMS_SIZE", "PKEY_PARAMS_SIZE", "format_dh_params", "format_pkey_params",
           "key_serial", "pkey_params", "strn_of_string", "struct_bytes"]

DH_PARAMS_SIZE = 12         # private, prime, base: __s32 each
PKEY_PARAMS_SIZE = 40       # key_id, in_len, out_len (or in2_len), __spare[7]
_PKEY = struct.Struct("<iII7I")


def key_serial(specs: Mapping[int, str], v: int) -> str:
    """A key serial (``key_serial_t``, an int): its KEY_SPEC_* name, else decimal (-X
    raw: the number; -X verbose: ``-1 /* KEY_SPEC_THREAD_KEYRING */``)."""
    s = signed(v, 32)
    name = specs.get(s)
    return str(s) if name is None else xstyle.named(str(s), name)


def format_dh_params(data: bytes, specs: Mapping[int, str]) -> str | None:
    """``struct keyctl_dh_params``; None when ``data`` is short of it."""
    if len(data) < DH_PARAMS_SIZE:
        return None
    private, prime, base = struct.unpack_from("<3I", data)
    return (f"{{private={key_serial(specs, private)}, prime={key_serial(specs, prime)}, "
            f"base={key_serial(specs, base)}}}")


def pkey_params(data: bytes) -> tuple[int, int, int, tuple[int, ...]] | None:
    """``struct keyctl_pkey_params``: (key_id, in_len, out_len or in2_len, __spare);
    None when ``data`` is short of it."""
    if len(data) < PKEY_PARAMS_SIZE:
        return None
    key_id, in_len, third, *spare = _PKEY.unpack_from(data)
    return key_id, in_len, third, tuple(spare)


def format_pkey_params(data: bytes, specs: Mapping[int, str], *, out: bool) -> str | None:
    """``struct keyctl_pkey_params`` with ``out_len`` (``out``: ENCRYPT, DECRYPT, SIGN)
    or ``in2_len`` (VERIFY); None when ``data`` is short of it."""
    params = pkey_params(data)
    if params is None:
        return None
    key_id, in_len, third, spare = params
    text = (f"{{key_id={key_serial(specs, key_id)}, in_len={in_len}, "
            f"{'out_len' if out else 'in2_len'}={third}")
    if any(spare):
        text += ", __spare=[" + ", ".join(hex0(v) for v in spare) + "]"
    return text + "}"


def struct_bytes(ev: Syscall, i: int) -> bytes | None:
    """What was read of argument ``i``'s struct (its CAP_STRUCT capture: all of it, or
    with a read that faulted at the end of its page the bytes up to there); None when
    there is none or nothing could be read."""
    cap = next((c for c in ev.caps if c.arg == i and c.kind == CAP_STRUCT
                and not c.flags & CAPF_DEREF), None)
    if cap is None:
        return None
    if cap.flags & CAPF_PARTIAL:
        return cap.readable
    return None if cap.flags & CAPF_FAULT else cap.data


def strn_of_string(ev: Syscall, i: int, n: int, limit: int) -> str:
    """Argument ``i`` as strace's printstrn prints ``n`` bytes there (``NULL``; ``""`` for
    none; at most ``limit`` of them, ``...`` after when there are more), from its C
    string capture: the address when that was not read or ends (its NUL) before the
    bytes shown."""
    v = ev.args[i]
    if not v:
        return "NULL"
    if n == 0:
        return '""'
    cap = next((c for c in ev.caps if c.arg == i and c.kind == CAP_STR
                and not c.flags & CAPF_FAULT), None)
    shown = min(n, limit)
    if cap is None or len(cap.data) < shown:
        return pointer(v)
    return quote(cap.data[:shown], limit=limit, more=n > shown)
