"""Linux AIO and io_uring structs (tracekit/decode/structs_aio.py) on packed bytes and
through SyscallDecoder; short or unreadable captures print the address.

Expected texts are what strace 6.1 printed for the same values on this machine
(tests/e2e/test_strace_sweep_io.py compares against strace itself)."""

from __future__ import annotations

import struct

from tests.decode._calls import args, call
from tracekit._events import CAP_BUF, CAP_STRUCT, CAPF_FAULT, Capture
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
        "aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 3), aio_fildes=3, aio_buf=NULL, "
        "aio_nbytes=4, aio_offset=0, aio_flags=IOCB_FLAG_RESFD|IOCB_FLAG_IOPRIO, aio_resfd=3}")
    # what aio_buf points to is not captured: PWRITE, PREADV, PWRITEV are not printed
    assert [AIO.format_iocb(iocb(op), FL) for op in (1, 7, 8)] == [None, None, None]


def test_io_submit_prints_an_empty_array_for_nr_zero(dec: SyscallDecoder) -> None:
    assert args(dec, call("io_submit", (0x7F00, 0, 0x2000))) == "0x7f00, 0, []"
    assert args(dec, call("io_submit", (0x7F00, 1, 0))) == "0x7f00, 1, NULL"
    assert args(dec, call("io_submit", (0x7F00, -1 & (2**64 - 1), 0x2000), -22)) == (
        "0x7f00, -1, 0x2000")
    # nr 1: the iocb the first pointer points to (the pointer, then the iocb)
    first = struct.pack("<QQIIHhIQQqQII", 0x3000, 0x1234, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0)
    cap = (Capture(2, CAP_STRUCT, 0, first),)
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), 1, cap)) == (
        "0x7f00, 1, [{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_FSYNC, aio_fildes=3}]")
    assert args(dec, call("io_submit", (0x7F00, 2, 0x2000), 2, cap)) == "0x7f00, 2, 0x2000"
    short = (Capture(2, CAP_STRUCT, 0, first[:8]),)           # the iocb was unreadable
    assert args(dec, call("io_submit", (0x7F00, 1, 0x2000), -14, short)) == (
        "0x7f00, 1, 0x2000")


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
