"""The seccomp user-notification ioctls (tracekit/decode/structs_seccomp.py) on packed
bytes and through SyscallDecoder with captures that are short, cut or unreadable: what
the program controls never raises, and what cannot be read prints as the address.

tests/e2e/test_strace_seccomp.py compares real calls with strace 6.1 on one run; the
texts here are the forms it printed there for these values."""

from __future__ import annotations

import struct

from hypothesis import given, settings, strategies as st

from tests.decode._calls import ioctl_of_hostile_memory
from tracekit._events import CAPF_FAULT, CAPF_TRUNC
from tracekit.decode import flags as F, structs_io as IO, structs_seccomp as SC

FL = F.for_arch("x86_64")
_BY_NAME = {n: v for v, n in FL.tables.DRIVER_IOCTLS.items()}
RECV, SEND = _BY_NAME["SECCOMP_IOCTL_NOTIF_RECV"], _BY_NAME["SECCOMP_IOCTL_NOTIF_SEND"]
ID_VALID, ADDFD = _BY_NAME["SECCOMP_IOCTL_NOTIF_ID_VALID"], _BY_NAME["SECCOMP_IOCTL_NOTIF_ADDFD"]
AUDIT_ARCH_X86_64, AUDIT_ARCH_I386 = 0xC000003E, 0x40000003


def test_notif_names_the_syscall_in_its_arch_table() -> None:
    notif = struct.pack("<QIIiIQ6Q", 0x5D7E, 77, 0, 110, AUDIT_ARCH_X86_64, 0x7F01,
                        0, 1, 2, 0xFFFFFFFFFFFFFFFF, 0, 0)
    assert SC.format_notif(notif, FL) == (
        "{id=0x5d7e, pid=77, flags=0, data={nr=__NR_getppid, arch=AUDIT_ARCH_X86_64, "
        "instruction_pointer=0x7f01, args=[0, 0x1, 0x2, 0xffffffffffffffff, 0, 0]}}")
    # i386's 64 is getppid: the number is named in the table of the arch it came from
    i386 = notif[:16] + struct.pack("<iI", 64, AUDIT_ARCH_I386) + notif[24:]
    assert "nr=__NR_getppid, arch=AUDIT_ARCH_I386" in SC.format_notif(i386, FL)
    odd = notif[:16] + struct.pack("<iI", -1, 7) + notif[24:]
    assert "nr=4294967295, arch=0x7 /* AUDIT_ARCH_??? */" in SC.format_notif(odd, FL)
    assert SC.format_notif(notif[:79], FL) is None


def test_notif_resp_errors_and_flags() -> None:
    def resp(val: int, error: int, flags: int) -> str | None:
        return SC.format_notif_resp(struct.pack("<QqiI", 0, val, error, flags), FL)
    assert resp(42, 0, 0) == "{id=0, val=42, error=0, flags=0}"
    assert resp(-5, -13, 1) == \
        "{id=0, val=-5, error=-EACCES, flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE}"
    assert resp(0, 5, 6) == \
        "{id=0, val=0, error=5, flags=0x6 /* SECCOMP_USER_NOTIF_FLAG_??? */}"
    assert resp(0, -4095, 0) == "{id=0, val=0, error=-4095, flags=0}"
    assert SC.format_notif_resp(b"\0" * 23, FL) is None


def test_the_old_id_valid_request_named_and_decoded() -> None:
    # _IOR('!', 2, __u64): strace 6.1 names it though the headers no longer define it
    assert IO.ioctl_name(FL, 0x80082102) == "SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR"
    assert IO.IOCTL_ARGS("x86_64")[0x80082102] == (8, True, False)
    got = ioctl_of_hostile_memory(0x80082102, [struct.pack("<Q", 0xABC)], 0, -9, 1, False)
    assert got[1:] == ["SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR", "[0xabc]"]


def test_captures_in_the_ioctl_map() -> None:
    args = IO.IOCTL_ARGS("x86_64")
    assert args[RECV] == (80, True, True)
    assert args[SEND] == (24, True, False)
    assert args[ID_VALID] == (8, True, False)
    assert args[ADDFD] == (24, True, False)


def test_recv_shows_what_it_wrote_only_after_success() -> None:
    notif = struct.pack("<QIIiIQ6Q", 1, 2, 0, 39, AUDIT_ARCH_X86_64, 0, 0, 0, 0, 0, 0, 0)
    zero = bytes(80)
    ok = ioctl_of_hostile_memory(RECV, [zero, notif], 0, 0, 0x7FFD1000, False)
    assert ok[2].startswith("{id=0x1, pid=2, flags=0, data={nr=__NR_getpid, ")
    failed = ioctl_of_hostile_memory(RECV, [zero, notif], 0, -4, 0x7FFD1000, False)
    assert failed[2] == "0x7ffd1000"
    # not zeroed at entry (the kernel refuses it): as it was, then what was written
    refused = ioctl_of_hostile_memory(RECV, [notif, notif], 0, -22, 0x7FFD1000, False)
    assert refused[2].startswith("{id=0x1, pid=2, ") and refused[2].endswith(
        "]}} => 0x7ffd1000")
    unread = ioctl_of_hostile_memory(RECV, [notif], CAPF_FAULT, 0, 0x7FFD1000, False)
    assert unread[2] == "0x7ffd1000"
    cut = ioctl_of_hostile_memory(ADDFD, [b"\1" * 23], CAPF_TRUNC, 0, 0x7FFD1000, False)
    assert cut[2] == "0x7ffd1000"


_REQS = [RECV, SEND, ID_VALID, ADDFD, 0x80082102]


@settings(max_examples=300, deadline=None)
@given(req=st.sampled_from(_REQS), data=st.lists(st.binary(max_size=100), max_size=2),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), ret=st.integers(-4095, 10),
       arg=st.integers(0, 2**64 - 1))
def test_hostile_captures_never_raise(req: int, data: list[bytes], flags: int, ret: int,
                                      arg: int) -> None:
    ioctl_of_hostile_memory(req, data, flags, ret, arg, False)
