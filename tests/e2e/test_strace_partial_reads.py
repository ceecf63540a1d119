"""Memory cut by the end of its mapping, against strace 6.1 on ONE run.

tests/workloads/partial_reads.c places netlink messages, a write's buffer and structs so
that they end at the end of a mapped page, the next page unmapped, and passes lengths
that reach past it (as strace's own tests do). The BPF capture keeps what is readable of
a faulting read (programs/syscalls.h TK_CAPF_PARTIAL); the netlink decoder prints what
strace reads piece by piece and the address of the first piece it could not read; a
struct read whole prints as its address. tracekit traces ``strace -f -o FILE
partial_reads``, so both see the same calls at the same addresses: every line of the
program must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_partial_reads_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "partial_reads"), tmp_path)
    text = "\n".join(s_lines)
    for want in (
            # the header readable, the payload's family byte not
            "nlmsg_seq=1700000100, nlmsg_pid=0}, 0x",
            # the family byte readable, the rest of the ifaddrmsg not
            "{ifa_family=AF_INET, 0x",
            # an attribute's data unreadable, then the next attribute's header
            "[[{nla_len=8, nla_type=IFA_ADDRESS}, 0x",
            "[[{nla_len=8, nla_type=IFA_ADDRESS}, inet_addr(\"127.0.0.1\")], ... /* 0x",
            # a second message past the page
            "{ifi_family=AF_UNSPEC, ...}], ... /* 0x",
            # an array cut after its second element
            "[IPV4_DEVCONF_MC_FORWARDING-1]=0, ... /* 0x",
            # a string readable for -s + 1 bytes
            "write(5, \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., 100) = -1 EFAULT",
            # poll's array: the entries readable, then the address of the next
            "poll([{fd=0, events=POLLIN}, {fd=1, events=POLLOUT}, ... /* 0x",
            # arrays read element by element: those before the cut, then its address
            "setgroups(3, [-1, 5, ... /* 0x",
            "setgroups(65537, 0x",
            "semop(-1, [{sem_num=1, sem_op=-1, sem_flg=SEM_UNDO}, ... /* 0x",
            # structs read whole: their address
            "clock_nanosleep(CLOCK_REALTIME, 0, 0x",
            "setsockopt(3, SOL_SOCKET, SO_RCVBUF, 0x"):
        assert want in text, want
