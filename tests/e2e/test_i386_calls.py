"""A 32-bit call made with ``int 0x80`` by a 64-bit process is named from the i386 table:
marked as a compat call in JSON Lines, and between strace's "runs in 32 bit mode" lines in
strace text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests._run import read_events, run_tracekit, write_pipeline
from tracekit._events import Syscall
from tracekit.kernel.arch import machine_arch

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(machine_arch() != "x86_64",
                       reason="int 0x80 from a 64-bit process is an x86_64 thing (i386 compat); "
                              f"this machine is {machine_arch()}"),
]

PY = sys.executable


INT80 = r'''
import ctypes, mmap
code = b"\xb8\x14\x00\x00\x00\xcd\x80\xc3"   # mov eax, 20 (i386 getpid); int 0x80; ret
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
print(f())
'''


def test_int80_call_is_named_from_the_i386_table(tmp_path: Path) -> None:
    script = tmp_path / "int80.py"
    script.write_text(INT80)
    for fmt in ("jsonl", "strace"):
        pipeline = write_pipeline(tmp_path, f"""\
            [target]
            command = [{json.dumps(PY)}, {json.dumps(str(script))}]
            [output]
            format = "{fmt}"
            path = "{tmp_path / fmt}"
            """, name=f"{fmt}.toml")
        r = run_tracekit(["run", str(pipeline)])
        assert r.returncode == 0, r.stderr
        pid = int(r.stdout.split()[-1])         # what getpid returned through int 0x80
        if fmt == "jsonl":
            compat = [e for e in read_events(tmp_path / fmt)
                      if isinstance(e, Syscall) and e.flags & 8]
            assert [(e.syscall_nr, e.ret, e.tid) for e in compat] == [(20, pid, pid)]
        else:
            lines = (tmp_path / fmt).read_text().splitlines()
            i = lines.index(f"[ Process PID={pid} runs in 32 bit mode. ]")
            assert lines[i + 1].startswith(f"{pid} ") and f"getpid() = {pid} <" in lines[i + 1]
            assert lines[i + 2] == f"[ Process PID={pid} runs in 64 bit mode. ]"
