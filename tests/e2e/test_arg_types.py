"""Arguments printed by their C types (issue 12, "Argument types"), against strace.

A C program passes each 32-bit argument with garbage in the high half of its register
(glibc's ``syscall()`` takes ``long``s and hands them to the kernel unchanged; the kernel
reads the low 32 bits of an ``int``). strace prints the value the kernel used; so must
tracekit, for syscalls the argspec lists (``close_range``: ``u``/``x`` kinds narrowed)
and for those it does not (``copy_file_range``, ``syncfs``, ``getsid``: kinds from the
tracefs C types, ``NULL`` pointers, a ``size_t`` in decimal).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import compile_c, run_tracekit, write_pipeline
from tests.e2e._strace_lines import norm_line, parse, pid_normaliser

pytestmark = pytest.mark.kernel

SOURCE = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
    const long hi = (long)0xdeadbeef00000000UL;     /* garbage in the high 32 bits */
    int in = open(argv[1], O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || argc < 3)
        return 2;
    syscall(SYS_close_range, hi | 1000, hi | 1001, hi);
    syscall(SYS_copy_file_range, hi | in, NULL, hi | out, NULL, 5L, hi);
    syscall(SYS_syncfs, hi | out);
    syscall(SYS_getsid, hi);
    return 0;
}
"""

CALLS = ("close_range", "copy_file_range", "syncfs", "getsid")


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_high_bits_of_int_arguments_ignored_as_strace_does(tmp_path: Path) -> None:
    prog = compile_c(SOURCE, tmp_path, "int_args")
    (tmp_path / "in.txt").write_text("hello world\n")
    argv = [str(prog), str(tmp_path / "in.txt"), str(tmp_path / "out.txt")]
    s_out = tmp_path / "s.txt"
    subprocess.run(["strace", "-f", "-qq", "-o", str(s_out), "--", *argv], check=True,
                   capture_output=True, timeout=60)
    t_out = tmp_path / "t.txt"
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps(argv)}
        [output]
        format = "strace"
        fd_paths = false
        path = {json.dumps(str(t_out))}
        """)
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 0, r.stderr

    def lines(path: Path) -> dict[str, str]:
        procs = parse(path.read_text())
        pids = pid_normaliser(set(procs))
        (calls,) = procs.values()
        return {c.name: norm_line(c.line, pids) for c in calls if c.name in CALLS}

    want, got = lines(s_out), lines(t_out)
    assert want["copy_file_range"] == "copy_file_range(3, NULL, 4, NULL, 5, 0) = 5"
    assert want["close_range"] == "close_range(1000, 1001, 0) = 0"
    assert want["syncfs"] == "syncfs(4) = 0"
    assert want["getsid"].startswith("getsid(0) = ")
    # getsid's return is the session of whoever ran the program, not a traced pid
    want["getsid"] = want["getsid"].split(" = ")[0]
    got["getsid"] = got["getsid"].split(" = ")[0]
    assert got == want
