"""A 32-bit call made with ``int 0x80`` by a 64-bit process is named from the i386 table:
marked as a compat call in JSON Lines, and between strace's "runs in 32 bit mode" lines in
strace text. Its arguments are the i386 argument registers (ebx, ecx, edx, ...: their low
32 bits), and its strings and buffers are captured as a native call's: compared with
strace on a C program that makes its calls with int $0x80.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import WORKLOADS, compile_c, read_events, run_tracekit, write_pipeline
from tests.e2e._strace_lines import Call, norm_line, parse, pid_normaliser
from tests.e2e.test_strace_diff import run_both
from tracekit._events import SC_COMPAT, Syscall
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
            # strace's line leader (pid, time) before the personality lines too
            i = next(k for k, line in enumerate(lines)
                     if line.endswith(f"[ Process PID={pid} runs in 32 bit mode. ]"))
            assert lines[i].startswith(f"{pid} ")
            assert lines[i + 1].startswith(f"{pid} ") and f"getpid() = {pid} <" in lines[i + 1]
            assert lines[i + 2].startswith(f"{pid} ")
            assert lines[i + 2].endswith(f"[ Process PID={pid} runs in 64 bit mode. ]")


@pytest.fixture(scope="module")
def int80_calls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/workloads/int80_calls.c: seven i386 calls by int $0x80 from a 64-bit program
    (-no-pie: its data is below 4 GiB, where 32-bit pointers reach)."""
    return compile_c(INT80_C.read_text(), tmp_path_factory.mktemp("int80"), "int80_calls",
                     "-no-pie")


INT80_C = WORKLOADS / "int80_calls.c"


def _i386_lines(calls: list[Call], pid_re: re.Pattern[str] | None) -> list[str]:
    """The lines of the workload's int $0x80 calls: from its getpid to its access."""
    names = [c.name for c in calls]
    start = names.index("getpid")
    end = names.index("access", start)
    return [norm_line(c.line, pid_re) for c in calls[start:end + 1]]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_int80_arguments_and_strings_equal_strace(tmp_path: Path, int80_calls: Path) -> None:
    data = tmp_path / "data.txt"
    data.write_text("tracekit data\n")
    s_text, t_text = run_both(tmp_path, "int80", [str(int80_calls), str(data)])
    s_calls, t_calls = parse(s_text), parse(t_text)
    (s_pid,), (t_pid,) = s_calls, t_calls
    got = _i386_lines(t_calls[t_pid], pid_normaliser({t_pid}))
    want = _i386_lines(s_calls[s_pid], pid_normaliser({s_pid}))
    assert got == want
    # what the kernel did, so the comparison cannot pass on two equal wrong traces
    assert want == [
        "getpid() = PID",
        'open("/nonexistent/tracekit-i386", O_RDONLY) = -1 ENOENT (No such file or directory)',
        'write(1, "hello from int 0x80\\n", 20) = 20',
        f'open("{data}", O_RDONLY) = 3',
        'read(3, "tracekit data\\n", 64) = 14',
        "close(3) = 0",
        f'access("{data}", R_OK) = 0',
    ]


def test_int80_ignores_the_upper_halves_of_the_registers(tmp_path: Path,
                                                         int80_calls: Path) -> None:
    """The kernel reads ebx, ecx, edx of an int $0x80 call, not rbx, rcx, rdx: with
    garbage in the upper halves the calls still name the right memory, and tracekit shows
    it (strace 6.1 prints the 64-bit registers there: docs/strace-differences.md)."""
    data = tmp_path / "data.txt"
    data.write_text("tracekit data\n")
    out = tmp_path / "junk.jsonl"
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(str(int80_calls))}, {json.dumps(str(data))}, "junk"]
        [output]
        format = "jsonl"
        path = "{out}"
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    compat = [e for e in read_events(out) if isinstance(e, Syscall) and e.flags & SC_COMPAT]
    assert [(e.syscall_nr, e.ret >= 0) for e in compat] == [
        (20, True), (5, False), (4, True), (5, True), (3, True), (6, True), (33, True)]
    assert all(a < 2**32 for e in compat for a in e.args)    # 32-bit values
    opened = compat[3]
    assert [(c.arg, c.data) for c in opened.caps] == [(0, str(data).encode())]
    read = compat[4]
    assert [(c.arg, c.data) for c in read.caps] == [(1, b"tracekit data\n")]
    assert (read.args[0], read.args[2]) == (opened.ret, 64)


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_int80_calls_are_selected_by_their_own_names(tmp_path: Path,
                                                     int80_calls: Path) -> None:
    """``-e trace=`` names a 32-bit call in the i386 table, as strace does: close is 3 for
    a 64-bit call and 6 for an int $0x80 one, whose 3 is read. Selected by the native
    number, the program's 32-bit read would show and its close would not."""
    data = tmp_path / "data.txt"
    data.write_text("tracekit data\n")
    argv = [str(int80_calls), str(data)]
    sel = ["-e", "trace=close,access,getpid"]
    s_out, t_out = tmp_path / "s.txt", tmp_path / "t.txt"
    subprocess.run(["strace", "-f", "-qq", *sel, "-o", str(s_out), "--", *argv], check=True,
                   capture_output=True, timeout=60)
    r = run_tracekit(["strace", "-f", "-qq", *sel, "-o", str(t_out), "--", *argv])
    assert r.returncode == 0, r.stderr
    s_calls, t_calls = parse(s_out.read_text()), parse(t_out.read_text())
    (s_pid,), (t_pid,) = s_calls, t_calls
    got = [norm_line(c.line, pid_normaliser({t_pid})) for c in t_calls[t_pid]]
    want = [norm_line(c.line, pid_normaliser({s_pid})) for c in s_calls[s_pid]]
    assert got == want
    # the program's last calls, after the loader's 64-bit ones: its int $0x80 calls
    assert want[-3:] == ["getpid() = PID", "close(3) = 0", f'access("{data}", R_OK) = 0']
    assert not any(w.startswith("read(") for w in want)
