"""Linux AIO and io_uring structs (tracekit/decode/structs_aio.py) on packed bytes and
through SyscallDecoder; short or unreadable captures print the address.

Expected texts are what strace 6.1 printed for the same values on this machine
(tests/e2e/test_strace_sweep_io.py compares against strace itself)."""

from __future__ import annotations

import struct

from hypothesis import given, settings, strategies as st

from tests.decode._calls import args, call
from tracekit._events import (
    CAP_BUF,
    CAP_IOCB,
    CAP_STRUCT,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_TRUNC,
    Capture,
)
from tracekit.decode import flags as F, structs_aio as AIO
from tracekit.decode.args import SyscallDecoder

FL = F.for_arch("x86_64")
EVENT = struct.pack("<QQqq", 0x1234, 0x7FFC906590E0, 4, 0)
EVENT_TEXT = "{data=0x1234, obj=0x7ffc906590e0, res=4, res2=0}"





def test_io_event_and_iocb_header() -> None:
    assert AIO.format_io_event(EVENT) == EVENT_TEXT
    assert AIO.format_io_event(EVENT[:31]) is None
    iocb = struct.pack("<QIIHhIQQq16x", 0x1234, 0, 0, 1, 0, 3, 0x1000, 4, 0)
    assert AIO.format_iocb_header(iocb, FL) == (
        "{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3}")
    odd = struct.pack("<QIIHhIQQq16x", 0, 7, 2, 4, -1, 0xFFFFFFFF, 0, 0, 0)
    assert AIO.format_iocb_header(odd, FL) == (
        "{aio_data=0, aio_key=7, aio_rw_flags=RWF_DSYNC, aio_lio_opcode=4 /* IOCB_CMD_??? */, "
        "aio_reqprio=-1, aio_fildes=-1}")
    assert AIO.format_iocb_header(iocb[:63], FL) is None


def test_io_setup_getevents_cancel(dec: SyscallDecoder) -> None:
    ctx = Capture(1, CAP_STRUCT, 0, (0x7F5A1C2E1000).to_bytes(8, "little"))
    assert args(dec, call("io_setup", (4, 0x1000), 0, (ctx,))) == "4, [0x7f5a1c2e1000]"
    assert args(dec, call("io_setup", (0, 0x1000), -22, (ctx,))) == "0, 0x1000"
    ts = Capture(4, CAP_STRUCT, 0, struct.pack("<qq", 0, 1000000))
    evs = Capture(3, CAP_BUF, 0, EVENT)
    assert args(dec, call("io_getevents", (0x7F00, 1, 2, 0x2000, 0x3000), 1, (evs, ts))) == (
        f"0x7f00, 1, 2, [{EVENT_TEXT}], {{tv_sec=0, tv_nsec=1000000}}")
    assert args(dec, call("io_getevents", (0x7F00, 0, 1, 0x2000, 0), 0,
                          (Capture(3, CAP_BUF, 0, b""),))) == "0x7f00, 0, 1, [], NULL"
    assert args(dec, call("io_getevents", (0, 1, 1, 0x2000, 0), -22)) == (
        "NULL, 1, 1, 0x2000, NULL")
    unreadable = Capture(1, CAP_STRUCT, CAPF_FAULT, b"")
    assert args(dec, call("io_cancel", (0x7F00, 0x4000, 0x5000), -22, (unreadable,))) == (
        "0x7f00, 0x4000, 0x5000")


def test_iocb_by_opcode() -> None:
    def iocb(op: int, buf: int = 0x41, flags: int = 0, prio: int = 0) -> bytes:
        return struct.pack("<QIIHhIQQqQII", 0, 0, 0, op, prio, 3, buf, 4, 0, 0, flags, 3)
    assert AIO.format_iocb(iocb(0, 0x1000), FL) == (
        "{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=3, aio_buf=0x1000, "
        "aio_nbytes=4, aio_offset=0}")
    assert AIO.format_iocb(iocb(5), FL) == (
        "{aio_data=0, aio_lio_opcode=IOCB_CMD_POLL, aio_fildes=3, aio_buf=POLLIN|POLLRDNORM}")
    assert AIO.format_iocb(iocb(2), FL) == (
        "{aio_data=0, aio_lio_opcode=IOCB_CMD_FSYNC, aio_fildes=3}")
    assert AIO.format_iocb(iocb(0, 0, 3, 3), FL) == (
        "{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, "
        "aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 3), aio_fildes=3, aio_buf=0, "
        "aio_nbytes=4, aio_offset=0, aio_flags=IOCB_FLAG_RESFD|IOCB_FLAG_IOPRIO, aio_resfd=3}")
    # PWRITE's bytes (read with the iocb: TK_CAP_IOCB); PREADV, PWRITEV's iovecs are not
    assert AIO.format_iocb(iocb(1), FL, buf_bytes=b"ab\0d") == (
        '{aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="ab\\0d", '
        "aio_nbytes=4, aio_offset=0}")
    assert "aio_buf=0x41, aio_nbytes=4" in str(AIO.format_iocb(iocb(1), FL))   # unreadable
    assert "aio_buf=NULL, aio_nbytes=4" in str(AIO.format_iocb(iocb(1, 0), FL))
    assert [AIO.format_iocb(iocb(op), FL) for op in (7, 8)] == [None, None]


def _elem(ptr: int, iocb: bytes | None, buf: bytes = b"", flags: int = 0) -> bytes:
    """A struct tk_iocb_elem record (programs/syscalls.h) with its iocb and bytes."""
    if iocb is None:
        return struct.pack("<QII", ptr, 0, CAPF_FAULT)
    return (struct.pack("<QII", ptr, len(buf), flags) + iocb
            + buf.ljust((len(buf) + 7) // 8 * 8, b"\0"))


def _iocb(op: int, buf: int = 0x41, nbytes: int = 4, data: int = 0) -> bytes:
    return struct.pack("<QIIHhIQQqQII", data, 0, 0, op, 0, 3, buf, nbytes, 0, 0, 0, 0)


def test_io_submit_prints_its_iocbs(dec: SyscallDecoder) -> None:
    assert args(dec, call("io_submit", (0x7F00, 0, 0x2000))) == "0x7f00, 0, []"
    assert args(dec, call("io_submit", (0x7F00, 1, 0))) == "0x7f00, 1, NULL"
    assert args(dec, call("io_submit", (0x7F00, -1 & (2**64 - 1), 0x2000), -22)) == (
        "0x7f00, -1, 0x2000")
    fsync = _elem(0x3000, _iocb(2, data=0x1234))
    pwrite = _elem(0x3040, _iocb(1, nbytes=40), b"x" * 33)
    cap = (Capture(2, CAP_IOCB, 0, fsync + pwrite + _elem(0x1, None)),)
    assert args(dec, call("io_submit", (0x7F00, 3, 0x2000), 1, cap)) == (
        "0x7f00, 3, [{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_FSYNC, aio_fildes=3}, "
        '{aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="' + "x" * 32
        + '"..., aio_nbytes=40, aio_offset=0}, 0x1]')
    # the array unreadable after its first element: strace's "... /* address */"
    cut = (Capture(2, CAP_IOCB, CAPF_ELEM_FAULT, fsync),)
    assert args(dec, call("io_submit", (0x7F00, 3, 0x2000), 1, cut)).endswith(
        "aio_fildes=3}, ... /* 0x2008 */]")
    # more than IOCB_N: not all read (TRUNC); a record missing; unreadable array
    assert args(dec, call("io_submit", (0x7F00, 9, 0x2000), 1, (
        Capture(2, CAP_IOCB, CAPF_TRUNC, fsync * 8),))) == "0x7f00, 9, 0x2000"
    assert args(dec, call("io_submit", (0x7F00, 2, 0x2000), 1, (
        Capture(2, CAP_IOCB, 0, fsync),))) == "0x7f00, 2, 0x2000"
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), -14, (
        Capture(2, CAP_IOCB, CAPF_FAULT, b""),))) == "0x7f00, 1, 0x2000"
    # a PWRITEV: strace prints its iovecs, not read: the address
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, (
        Capture(2, CAP_IOCB, 0, _elem(0x3000, _iocb(8))),))) == "0x7f00, 1, 0x2000"


def test_io_submit_in_a_recording_made_before_cap_iocb(dec: SyscallDecoder) -> None:
    """Older recordings hold nr 1's pointer and iocb in a STRUCT capture: still shown,
    but for the opcodes whose aio_buf strace follows (not in that capture)."""
    first = struct.pack("<QQIIHhIQQqQII", 0x3000, 0x1234, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0)
    cap = (Capture(2, CAP_STRUCT, 0, first),)
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, cap)) == (
        "0x7f00, 1, [{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_FSYNC, aio_fildes=3}]")
    assert args(dec, call("io_submit", (0x7F00, 2, 0x2000), 2, cap)) == "0x7f00, 2, 0x2000"
    pwrite = (Capture(2, CAP_STRUCT, 0, struct.pack("<Q", 0x3000) + _iocb(1)),)
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, pwrite)) == "0x7f00, 1, 0x2000"


def test_io_submit_vectors(dec: SyscallDecoder) -> None:
    """PREADV/PWRITEV's iovecs (struct tk_iov_elem records after the iocb)."""
    def iov(base: int, n: int, got: bytes = b"", flags: int = 0) -> bytes:
        return struct.pack("<QQII", base, n, len(got), flags) + got.ljust(
            (len(got) + 7) // 8 * 8, b"\0")
    vec = iov(0x5000, 40, b"y" * 33) + iov(0, 3) + iov(0x1, 4, b"", CAPF_FAULT)
    rec = struct.pack("<QII", 0x3000, len(vec), 0) + _iocb(8, 0x4000, 3) + vec
    cap = (Capture(2, CAP_IOCB, 0, rec),)
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, cap)) == (
        "0x7f00, 1, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITEV, aio_fildes=3, "
        'aio_buf=[{iov_base="' + "y" * 32 + '"..., iov_len=40}, {iov_base=NULL, iov_len=3}, '
        "{iov_base=0x1, iov_len=4}], aio_offset=0}]")
    # PREADV: addresses; the array cut after one iovec; more iovecs than read: a gap
    rec = (struct.pack("<QII", 0x3000, 24, CAPF_ELEM_FAULT) + _iocb(7, 0x4000, 3)
           + iov(0x5000, 40))
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, (
        Capture(2, CAP_IOCB, 0, rec),))).endswith(
        "aio_buf=[{iov_base=0x5000, iov_len=40}, ... /* 0x4010 */], aio_offset=0}]")
    rec = struct.pack("<QII", 0x3000, 24, CAPF_TRUNC) + _iocb(7, 0x4000, 9) + iov(0x5000, 40)
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, (
        Capture(2, CAP_IOCB, 0, rec),))) == "0x7f00, 1, 0x2000"


@settings(deadline=None, max_examples=300)
@given(data=st.binary(max_size=400), flags=st.integers(0, 0xFFFF),
       nr=st.integers(-2, 12))
def test_hostile_iocb_records_never_raise(data: bytes, flags: int, nr: int) -> None:
    text = AIO.format_iocb_array(data, flags, nr, 0x2000, FL)
    assert text is None or text.startswith("[")


def test_io_uring_params_in_and_out(dec: SyscallDecoder) -> None:
    entry = bytes(120)
    out = bytearray(120)
    struct.pack_into("<7I", out, 0, 1, 2, 0, 0, 0, 0x3FFFF, 0)
    struct.pack_into("<7I", out, 40, 0, 4, 16, 24, 36, 32, 128)
    struct.pack_into("<7I", out, 80, 8, 12, 20, 28, 44, 64, 40)
    caps = (Capture(1, CAP_STRUCT, 0, entry), Capture(1, CAP_STRUCT, 0, bytes(out)))
    assert args(dec, call("io_uring_setup", (1, 0x1000), 4, caps)) == (
        "1, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=1, cq_entries=2, "
        "features=IORING_FEAT_SINGLE_MMAP|IORING_FEAT_NODROP|IORING_FEAT_SUBMIT_STABLE|"
        "IORING_FEAT_RW_CUR_POS|IORING_FEAT_CUR_PERSONALITY|IORING_FEAT_FAST_POLL|"
        "IORING_FEAT_POLL_32BITS|IORING_FEAT_SQPOLL_NONFIXED|IORING_FEAT_EXT_ARG|"
        "IORING_FEAT_NATIVE_WORKERS|IORING_FEAT_RSRC_TAGS|IORING_FEAT_CQE_SKIP|"
        "IORING_FEAT_LINKED_FILE|0x3e000, sq_off={head=0, tail=4, ring_mask=16, "
        "ring_entries=24, flags=36, dropped=32, array=128}, cq_off={head=8, tail=12, "
        "ring_mask=20, ring_entries=28, overflow=44, cqes=64, flags=40}}")
    bad = bytearray(120)
    struct.pack_into("<7I", bad, 0, 0, 0, 0xFFFFFFFF, 0, 0, 0, 12345)
    failed = (Capture(1, CAP_STRUCT, 0, bytes(bad)), Capture(1, CAP_STRUCT, 0, bytes(bad)))
    assert args(dec, call("io_uring_setup", (0, 0x1000), -22, failed)) == (
        "0, {flags=IORING_SETUP_IOPOLL|IORING_SETUP_SQPOLL|IORING_SETUP_SQ_AFF|"
        "IORING_SETUP_CQSIZE|IORING_SETUP_CLAMP|IORING_SETUP_ATTACH_WQ|"
        "IORING_SETUP_R_DISABLED|IORING_SETUP_SUBMIT_ALL|IORING_SETUP_COOP_TASKRUN|"
        "IORING_SETUP_TASKRUN_FLAG|IORING_SETUP_SQE128|IORING_SETUP_CQE32|0xfffff000, "
        "sq_thread_cpu=0, sq_thread_idle=0, wq_fd=12345}")
    assert args(dec, call("io_uring_setup", (1, 0), -14)) == "1, NULL"


@settings(deadline=None, max_examples=300)
@given(op=st.sampled_from([1, 7, 8]), nbytes=st.integers(0, 2**64 - 1),
       eflags=st.integers(0, 0xFFFFFFFF), got=st.integers(0, 2**32 - 1),
       after=st.binary(max_size=300))
def test_hostile_vector_records_never_raise(op: int, nbytes: int, eflags: int, got: int,
                                            after: bytes) -> None:
    rec = struct.pack("<QII", 0x3000, got, eflags) + _iocb(op, 0x4000, nbytes) + after
    text = AIO.format_iocb_array(rec, 0, 1, 0x2000, FL)
    assert text is None or text.startswith("[")
