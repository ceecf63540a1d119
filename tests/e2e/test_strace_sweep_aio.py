"""io_submit(2)'s iocbs against strace 6.1 on ONE run: tests/workloads/sweep_aio.c.

It submits writes of every kind of buffer and a read to a context of its own, then (to
a context that does not exist: nothing is submitted) arrays of each opcode with each
field set, PWRITE buffers that are NULL, bad, empty, 32 and 33 bytes long and at the end
of a mapping, PREADV/PWRITEV iovec arrays (NULL, bad, empty, cut by the end of a
mapping, with NULL, bad, empty and long bases), elements that are not iocbs, arrays cut
by the end of a mapping, NULL and bad arrays, nr 0 and negative, and nr larger than the
iocbs the BPF program reads.
tracekit traces ``strace -f -o FILE sweep_aio``, so both see the same calls: every line
of the program must be equal, but for the known gaps below.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, one_run_both, without_gaps

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

# What tracekit cannot show yet: (strace's text, tracekit's address) of the array, the
# rest of the line must still be equal.
# - more iocbs than the BPF program reads (TK_IOCB_N, 8): strace prints up to 32, then
#   "..."; tracekit the array's address;
# - an IOCB_CMD_PREADV/PWRITEV iocb of more iovecs than the BPF program reads
#   (TK_IOCB_IOV_N, 4): strace prints up to 32.
_GAPS = ((re.compile(r"^(io_submit\(\S+, -?\d+, )\[\{.*\}\](\) = .*)$"),
          re.compile(r"^(io_submit\(\S+, -?\d+, )0x[0-9a-f]+(\) = .*)$")),)


def test_sweep_aio_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_aio"), tmp_path)
    ((pid, s_lines),) = s_procs.items()             # the program alone: no children
    text = "\n".join(s_lines)
    s_lines, t_lines = without_gaps(s_lines, t_procs.get(pid, []), _GAPS)
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=0))
    gaps = [line for line in s_lines if "STRUCT" in line]
    assert [g.split(", ")[1] for g in gaps] == ["9", "12", "1"], gaps
    for want in (
            # a context of its own: three writes, a read
            "io_submit(0x", ', 3, [{aio_data=0x1234, aio_lio_opcode=IOCB_CMD_PWRITE, '
            'aio_fildes=3, aio_buf="aio!", aio_nbytes=4, aio_offset=0}, {aio_data=0, '
            'aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="hello world, this is a '
            'longer bu"..., aio_nbytes=50, aio_offset=4}, {aio_data=0, '
            'aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="\\0\\1\\2\\377\\"\\\\\\n\\t7", '
            "aio_nbytes=9, aio_offset=64}]) = 3",
            "{data=0x1234, obj=0x", "{data=0, obj=0x",
            # each opcode and field (no such context: EINVAL)
            "io_submit(0xdeadbeef00000005, 8, [{aio_data=0, aio_lio_opcode=IOCB_CMD_PREAD, "
            "aio_fildes=3, aio_buf=0, aio_nbytes=4, aio_offset=0}, {aio_data=0, "
            "aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf=NULL, aio_nbytes=4, "
            'aio_offset=0}, {aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="", '
            "aio_nbytes=0, aio_offset=0}, {aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, "
            "aio_fildes=3, aio_buf=0x1, aio_nbytes=5, aio_offset=0}, {aio_data=0, "
            "aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf=0x1, "
            "aio_nbytes=18446744073709551615, aio_offset=0}, ",
            'aio_buf="hello world, this is a longer bu", aio_nbytes=32, aio_offset=-1}',
            'aio_buf="hello world, this is a longer bu"..., aio_nbytes=33, aio_offset=0}',
            "{aio_data=0, aio_lio_opcode=IOCB_CMD_FSYNC, aio_fildes=3}]) = -1 EINVAL",
            "[{aio_data=0, aio_lio_opcode=IOCB_CMD_FDSYNC, aio_fildes=-1}, "
            "{aio_data=0, aio_lio_opcode=IOCB_CMD_POLL, aio_fildes=3, "
            "aio_buf=POLLIN|POLLOUT|POLL_BUSY_LOOP}, {aio_data=0, "
            "aio_lio_opcode=IOCB_CMD_NOOP, aio_fildes=3}, {aio_data=0, "
            "aio_lio_opcode=99 /* IOCB_CMD_??? */, aio_fildes=3}, "
            "{aio_data=0xfedcba9876543210, aio_key=2, aio_rw_flags=RWF_HIPRI|0x100, "
            "aio_lio_opcode=IOCB_CMD_PREAD, aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, "
            "3), aio_fildes=3, aio_buf=0x",
            "aio_flags=IOCB_FLAG_RESFD|IOCB_FLAG_IOPRIO, aio_resfd=4}, ",
            'aio_buf="pppppppp", aio_nbytes=8, aio_offset=0}, ',
            ", aio_nbytes=40, aio_offset=0}, {aio_data=0, aio_lio_opcode=IOCB_CMD_PWRITE, "
            "aio_reqprio=7, aio_fildes=3, aio_buf=0x1, aio_nbytes=3, aio_offset=0}]) = -1",
            # vectors
            "aio_lio_opcode=IOCB_CMD_PWRITEV, aio_fildes=3, aio_buf=[], aio_offset=0}, ",
            'aio_buf=[{iov_base="hello", iov_len=5}], aio_offset=1}, ',
            'aio_buf=[{iov_base="hello", iov_len=5}, {iov_base="hello world, this is a '
            'longer bu"..., iov_len=40}, {iov_base=NULL, iov_len=3}, {iov_base=0x1, '
            "iov_len=4}], aio_offset=4}, ",
            "aio_lio_opcode=IOCB_CMD_PREADV, aio_fildes=3, aio_buf=[{iov_base=0x",
            "aio_lio_opcode=IOCB_CMD_PREADV, aio_fildes=3, aio_buf=0x",
            ", aio_nbytes=18446744073709551615, aio_offset=0}, ",
            "aio_lio_opcode=IOCB_CMD_PWRITEV, aio_fildes=3, aio_buf=NULL, aio_offset=0}]",
            "aio_lio_opcode=IOCB_CMD_PWRITEV, aio_fildes=3, aio_buf=0x1, aio_offset=0}, ",
            'aio_buf=[{iov_base="hello", iov_len=5}, ... /* 0x',
            'aio_buf=[{iov_base=0x1, iov_len=4}, {iov_base="", iov_len=0}], aio_offset=0}]',
            # the array
            "aio_fildes=-1}, 0x1, NULL, {aio_data=0, aio_lio_opcode=99",
            "aio_buf=POLLIN|POLLOUT|POLL_BUSY_LOOP}, ... /* 0x",
            "io_submit(0xdeadbeef00000005, 1, NULL) = -1 EINVAL",
            "io_submit(0xdeadbeef00000005, 2, 0x1) = -1 EINVAL",
            "io_submit(0xdeadbeef00000005, 0, []) = -1 EINVAL",
            "io_submit(0xdeadbeef00000005, 0, NULL) = -1 EINVAL",
            "io_submit(0xdeadbeef00000005, -1, 0x", "io_submit(0xdeadbeef00000005, -3, 0x1)"):
        assert want in text, want
    # the array at the end of a mapping, and just past it: its address
    assert re.search(r"io_submit\(0xdeadbeef00000005, 1, 0x[0-9a-f]+\) = -1 EINVAL", text)
