"""A sweep over calls no other workload makes, against strace 6.1 on ONE run.

tests/workloads/sweep_io.c makes Linux AIO calls on a context of its own (iocb arrays,
io_events, timeouts), io_uring_setup/enter/register, epoll_create, recvmmsg/sendmmsg on
a socketpair, add_key/request_key/keyctl on a key of its process keyring, bpf and
perf_event_open with attrs the kernel refuses, landlock and fsconfig on fd -1,
inotify_init, kexec/module/reboot calls refused before they act, calls the kernel does
not implement, getrandom/memfd_create flags, sendfile/copy_file_range edge cases,
ioctl requests and fcntl commands: each with NULL and bad pointers, unknown constants
and garbage in the high half of an int. tracekit traces ``strace -f -o FILE sweep_io``,
so both see the same calls: every line of the program must be equal.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, one_run_both

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_io_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_io"), tmp_path)
    ((pid, s_lines),) = s_procs.items()             # the program alone: no children
    t_lines = t_procs.get(pid, [])
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=0))
    text = "\n".join(s_lines)
    for want in ():
        assert want in text, want
