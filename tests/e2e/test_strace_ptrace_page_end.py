"""ptrace's data at the end of its mapping, against strace 6.1 on ONE run.

tests/workloads/ptrace_page_end.c places each request's struct (siginfos of every shape
strace prints, GET/SETREGSET's iovec, SECCOMP_GET_METADATA's filter_off) so that it
ends at the end of a mapped page, the next page unmapped. strace reads each at its own
size; tracekit's capture of ptrace's data is sized for the largest request and faults
there, and prints what it kept up to the page end. tracekit traces ``strace -f -o FILE
ptrace_page_end``, so both see the same calls at the same addresses: every line of the
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


def test_ptrace_data_at_page_end_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "ptrace_page_end"), tmp_path)
    text = "\n".join(s_lines)
    for want in ("si_code=POLL_IN, si_errno=ENOENT, si_band=-2, si_fd=23}",
                 "si_code=POLL_HUP, si_band=-2, si_fd=23}",
                 "si_errno=4294967294, si_addr=0x1000, si_addr_lsb=0xdead}",
                 "si_lower=NULL, si_upper=0x2000}",
                 "si_pkey=3141592653}",
                 "si_syscall=__NR_getpid, si_arch=AUDIT_ARCH_X86_64}",
                 "si_arch=0xda7a1057 /* AUDIT_ARCH_??? */}",
                 "NULL, {}) = -1 ESRCH",
                 "NT_PRSTATUS, {iov_base=0x",
                 "8, {filter_off=18072662652281012446}) = -1 ESRCH"):
        assert want in text, want
