"""Classic BPF programs as strace 6.1 prints them, against strace on ONE run.

tests/workloads/cbpf_filters.c attaches socket filters (SO_ATTACH_FILTER,
SO_ATTACH_REUSEPORT_CBPF: SKF_* offsets, codes without names, empty, NULL, cut by the
end of their mapping, unreadable) and, in a forked child, installs seccomp filters with
seccomp and prctl and passes programs with every
seccomp action that the kernel refuses; getsockopt(SO_GET_FILTER) reads a socket's
program back. tracekit traces ``strace -f -o FILE
cbpf_filters``, so both see the same calls: every line of every process must be equal,
with -v (the instructions) and without (the struct's length and pointer).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

# the calls alone (and execve, where the program's own lines begin): strace makes a
# dozen calls of its own per call it traces, which would fill the ring. getppid, which
# the filter refuses, has no sys_enter (the kernel skips the tracepoint): its line is
# the exit's, in its place.
TRACE = ["-e", "trace=execve,seccomp,prctl,setsockopt,getsockopt,getppid"]


def test_programs_equal_strace_verbose(tmp_path: Path) -> None:
    procs = same_procs_one_run(build(tmp_path, "cbpf_filters"), tmp_path, ["-v", *TRACE])
    text = "\n".join(line for lines in procs.values() for line in lines)
    # the workload reached what it is for (strace's own text)
    for want in ("SO_ATTACH_FILTER, {len=12, filter=[BPF_STMT(BPF_LD|BPF_B|BPF_ABS, "
                 "SKF_LL_OFF+4), BPF_STMT(BPF_LD|BPF_H|BPF_ABS, SKF_NET_OFF+8), "
                 "BPF_STMT(BPF_LD|BPF_W|BPF_ABS, SKF_AD_OFF+SKF_AD_PROTOCOL), ",
                 "SO_ATTACH_REUSEPORT_CBPF, {len=12, filter=[",
                 "BPF_STMT(BPF_MISC|BPF_TXA|0x200 /* BPF_??? */, 0x4)",
                 "{len=0, filter=[]}", "{len=1, filter=NULL}",
                 "SKF_NET_OFF+8), ... /* 0x",
                 "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_TRACE|0xffff)",
                 "BPF_STMT(BPF_RET|BPF_K, 0x60000 /* SECCOMP_RET_??? */)",
                 "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {len=4, filter=["
                 "BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), ",
                 "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x2), "
                 "BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW)]}) = 0",
                 "SO_GET_FILTER, [BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|"
                 "BPF_JEQ, 0x6e, 0, 0x1), BPF_STMT(BPF_RET|BPF_K, 0x50002), "
                 "BPF_STMT(BPF_RET|BPF_K, 0x7fff0000)], [16 => 4]) = 0",
                 "SO_GET_FILTER, 0x", "getppid() = -1 ENOENT (No such file or directory)"):
        assert want in text, want


def test_programs_equal_strace_abbreviated(tmp_path: Path) -> None:
    procs = same_procs_one_run(build(tmp_path, "cbpf_filters"), tmp_path, TRACE)
    text = "\n".join(line for lines in procs.values() for line in lines)
    for want in ("SO_ATTACH_FILTER, {len=12, filter=0x", "{len=0, filter=0x",
                 "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {len=4, filter=0x"):
        assert want in text, want
