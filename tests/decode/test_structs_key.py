"""keyctl's structs (tracekit/decode/structs_key.py) on packed bytes, as strace 6.1
prints them (tests/e2e/test_strace_ops.py compares whole keyctl lines with strace)."""

from __future__ import annotations

import struct

from tracekit._events import CAP_STR, CAP_STRUCT, CAPF_FAULT, CAPF_PARTIAL, Capture, Syscall
from tracekit.decode import flags as F, structs_key as K

SPECS = F.for_arch("x86_64").tables.KEY_SPECS


def test_dh_params() -> None:
    data = struct.pack("<3i", -6, 1234567890, -1153374643)
    assert K.format_dh_params(data, SPECS) == (
        "{private=KEY_SPEC_GROUP_KEYRING, prime=1234567890, base=-1153374643}")
    assert K.format_dh_params(data[:11], SPECS) is None


def test_pkey_params_spare_only_when_set() -> None:
    zero = struct.pack("<iII7I", -2, 0, 0, *[0] * 7)
    assert K.format_pkey_params(zero, SPECS, out=True) == (
        "{key_id=KEY_SPEC_PROCESS_KEYRING, in_len=0, out_len=0}")
    spare = struct.pack("<iII7I", -559038242, 36, 8, 0, 0, 0, 0, 0, 0, 0xDEC0DED)
    assert K.format_pkey_params(spare, SPECS, out=False) == (
        "{key_id=-559038242, in_len=36, in2_len=8, __spare=[0, 0, 0, 0, 0, 0, 0xdec0ded]}")
    assert K.format_pkey_params(spare[:39], SPECS, out=True) is None


def call(args: tuple[int, ...], *caps: Capture) -> Syscall:
    return Syscall(0, 0, 1, 1, 0, 250, args, -22, "t", 0, caps)


def test_struct_bytes_keeps_what_was_readable() -> None:
    """A struct read that faulted at its page's end: the bytes up to it (a 12-byte
    keyctl_dh_params read as 40); one that faulted at once: nothing."""
    partial = Capture(1, CAP_STRUCT, CAPF_FAULT | CAPF_PARTIAL, b"", b"x" * 12)
    assert K.struct_bytes(call((23, 1, 0, 0, 0, 0), partial), 1) == b"x" * 12
    fault = Capture(1, CAP_STRUCT, CAPF_FAULT, b"")
    assert K.struct_bytes(call((23, 1, 0, 0, 0, 0), fault), 1) is None
    assert K.struct_bytes(call((23, 1, 0, 0, 0, 0)), 1) is None


def test_strn_of_string() -> None:
    """printstrn of n bytes from a C string capture: NULL, "" for 0 bytes, the limit and
    ``...``; the address when the string (its NUL) ends before the bytes shown or was
    not read."""
    s32 = Capture(3, CAP_STR, 0, b"AbCdEfGhIjKlMnOpQrStUvWxYz012345")
    ev = call((25, 0, 0, 0x1000, 0, 0), s32)
    assert K.strn_of_string(ev, 3, 10, 32) == '"AbCdEfGhIj"'
    assert K.strn_of_string(ev, 3, 36, 10) == '"AbCdEfGhIj"...'
    assert K.strn_of_string(ev, 3, 0, 10) == '""'
    assert K.strn_of_string(ev, 3, 33, 40) == "0x1000"     # past the NUL: not read
    assert K.strn_of_string(call((25, 0, 0, 0, 0, 0)), 3, 5, 10) == "NULL"
    assert K.strn_of_string(call((25, 0, 0, 0x1000, 0, 0)), 3, 5, 10) == "0x1000"


def test_hostile_lengths_never_raise() -> None:
    for n in range(0, 50):
        data = bytes(range(n))
        for out in (False, True):
            text = K.format_pkey_params(data, SPECS, out=out)
            assert text is None or text.startswith("{key_id=")
        assert K.format_dh_params(data, SPECS) is None or n >= 12
