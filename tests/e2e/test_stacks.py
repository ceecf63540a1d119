"""Stacks (``[output] stacks``, ``tracekit run -k``): a C program built with frame
pointers whose call chain to a failing openat is known (main -> a -> b -> c -> open)
prints exactly that chain in every format; a Python program's stack shows libc and the
interpreter's frames.

The expected chain is computed from the binary, not from tracekit: each frame's return
address is the instruction after the ``call`` in its caller (objdump), its offset in the
file comes from the ELF program headers (pyelftools), and strace -k, where it can unwind
here, must print the same lines.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests._run import (
    TRACEKIT,
    compile_c,
    die_with_parent,
    kill_tree,
    run_tracekit,
    tracekit_env,
    write_pipeline,
)

pytestmark = pytest.mark.kernel

CHAIN_C = r"""
#include <fcntl.h>
#include <unistd.h>

__attribute__((noinline)) int c(const char *p) { return open(p, O_RDONLY); }
__attribute__((noinline)) int b(const char *p) { return c(p) + 1; }
__attribute__((noinline)) int a(const char *p) { return b(p) + 1; }

int main(int argc, char **argv)
{
	int r = a(argc > 1 ? argv[1] : "/nonexistent/tracekit-stacks");
	char ch;
	/* "hold": alive until stdin ends, which the test makes happen once the stack is */
	/* printed (its maps must be read while it lives) */
	if (argc > 2)
		while (read(0, &ch, 1) > 0)
			;
	else
		usleep(300000);
	return r == 1 ? 0 : 1;
}
"""

#: caller -> the function it calls in the chain
CALLS = {"c": "open", "b": "c", "a": "b", "main": "a"}


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stacks")
    return compile_c(CHAIN_C, out, "chain", "-O0", "-fno-omit-frame-pointer", "-g")


def _expected(binary: Path) -> list[tuple[str, int, int]]:
    """``(function, offset in it, offset in the file)`` of the return address of each
    frame c, b, a, main: the instruction after its call to the next function."""
    from elftools.elf.elffile import ELFFile

    if shutil.which("objdump") is None:
        pytest.skip("objdump (binutils) is not installed: cannot compute the expected chain")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                         capture_output=True, text=True, check=True).stdout
    starts: dict[str, int] = {}
    rets: dict[str, int] = {}
    func = None
    lines = dis.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            func = m[2]
            starts[func] = int(m[1], 16)
            continue
        if func in CALLS and re.search(rf"\bcall\s+[0-9a-f]+ <{CALLS[func]}(@plt)?>", line):
            nxt = next(ln for ln in lines[i + 1:] if re.match(r"^\s+[0-9a-f]+:", ln))
            rets[func] = int(nxt.split(":")[0], 16)
    with binary.open("rb") as f:
        loads = [(s["p_vaddr"], s["p_offset"], s["p_filesz"])
                 for s in ELFFile(f).iter_segments() if s["p_type"] == "PT_LOAD"]

    def file_offset(va: int) -> int:
        return next(va - v + o for v, o, n in loads if v <= va < v + n)

    return [(fn, rets[fn] - starts[fn], file_offset(rets[fn])) for fn in ("c", "b", "a", "main")]


def _pipeline(tmp_path: Path, binary: Path, fmt: str, *args: str) -> Path:
    command = json.dumps([str(binary), *args])
    return write_pipeline(tmp_path, f"""\
        [target]
        command = {command}
        [filter]
        syscalls = ["openat"]
        status = ["failed"]
        [output]
        format = "{fmt}"
        """)


def _run_holding(tmp_path: Path, chain: Path, fmt: str, *opts: str,
                 timeout: float = 60) -> subprocess.CompletedProcess:
    """``tracekit run`` of the chain program held alive (its ``hold`` argument) until the
    openat line (or jsonl's syscall record) is out: its stack is named by then, so its
    maps were read while it lived, however late a loaded machine runs tracekit. Then its
    stdin (a pipe) ends and it exits.
    On ``timeout`` (seconds) the process tree is killed."""
    pipeline = _pipeline(tmp_path, chain, fmt, "/nonexistent/tracekit-stacks", "hold")
    with subprocess.Popen([*TRACEKIT, "run", str(pipeline), *opts], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=tracekit_env(), preexec_fn=die_with_parent) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        timer = threading.Timer(timeout, kill_tree, (proc.pid,))
        timer.start()
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
        reader.start()
        out = []
        try:
            for line in proc.stdout:
                out.append(line)
                if ("openat(" in line or '"type":"syscall"' in line) and not proc.stdin.closed:
                    proc.stdin.close()
            if not proc.stdin.closed:
                proc.stdin.close()
            proc.wait()
            reader.join()
        finally:
            timer.cancel()
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(out), "".join(err))


def _strace_k(binary: Path) -> list[str] | None:
    """strace -k's stack lines for the failing openat, or None when this strace cannot
    unwind (built without libdw/libunwind)."""
    if shutil.which("strace") is None:
        return None
    r = subprocess.run(["strace", "-k", "-qq", "-e", "trace=openat", "-e", "status=failed",
                        str(binary)], capture_output=True, text=True, timeout=60)
    lines = r.stderr.splitlines()
    if r.returncode != 0 or not lines or not lines[0].startswith("openat("):
        return None
    return [ln for ln in lines[1:] if ln.startswith(" > ")]


def test_strace_format_prints_the_chain_exactly(tmp_path: Path, chain: Path) -> None:
    r = _run_holding(tmp_path, chain, "strace", "-k")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    call = next(i for i, ln in enumerate(lines) if "openat(" in ln)
    assert '"/nonexistent/tracekit-stacks"' in lines[call] and "ENOENT" in lines[call]
    frames = []
    for ln in lines[call + 1:]:
        if not ln.startswith(" > "):
            break
        frames.append(ln)
    # frame 0: libc's open wrapper, where the syscall instruction is
    assert re.fullmatch(r" > /\S*libc\.so\.6\(\w*open\w*\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]",
                        frames[0]), frames
    want = [f" > {chain}({fn}+{off:#x}) [{fo:#x}]" for fn, off, fo in _expected(chain)]
    assert frames[1:5] == want
    # main was called from libc's start code, which _start called: the whole stack
    assert re.fullmatch(rf" > {re.escape(str(chain))}\(_start\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]",
                        frames[-1]), frames
    reference = _strace_k(chain)
    if reference is not None:       # strace -k's own unwinding (libdw) agrees
        assert frames[:5] == reference[:5]


def test_perf_format_prints_the_chain_exactly(tmp_path: Path, chain: Path) -> None:
    r = _run_holding(tmp_path, chain, "perf", "--stacks", "user")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    call = next(i for i, ln in enumerate(lines) if "openat(" in ln and "ENOENT" in ln)
    frames = lines[call + 1:call + 6]
    indent = " " * 39                    # perf trace --call-graph's indent
    assert re.fullmatch(rf"{indent}\w*open\w* \(/\S*libc\.so\.6\)", frames[0]), frames
    assert frames[1:] == [f"{indent}{fn} ({chain})" for fn in ("c", "b", "a", "main")]


def test_jsonl_stack_list(tmp_path: Path, chain: Path) -> None:
    r = _run_holding(tmp_path, chain, "jsonl", "-k")
    assert r.returncode == 0, r.stderr
    calls = [json.loads(ln) for ln in r.stdout.splitlines()
             if '"type":"syscall"' in ln]
    assert len(calls) == 1
    stack = calls[0]["stack"]
    assert not any(f["kernel"] for f in stack)
    got = [(f["symbol"], f["symoff"], f["offset"]) for f in stack[1:5]]
    assert got == _expected(chain)
    assert all(f["module"] == str(chain) for f in stack[1:5])
    assert stack[0]["module"].endswith("libc.so.6") and "open" in stack[0]["symbol"]
    assert all(f["ip"] for f in stack)


def test_summary_groups_failing_calls_by_code_path(tmp_path: Path, chain: Path) -> None:
    p = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{chain}"]
        [filter]
        syscalls = ["openat"]
        [output]
        format = "summary"
        stacks = "user"
        stack_frames = 3
        """)
    r = run_tracekit(["run", str(p)])
    assert r.returncode == 0, r.stderr
    text = r.stdout
    section = text[text.index("Calls by code path (the 3 innermost user frames):"):]
    rows = section.splitlines()
    # the failing path comes first (most errors): one call, one ENOENT, then its frames
    head = next(i for i, ln in enumerate(rows) if re.match(r"^\s+\d+\s+\d+\s+openat", ln))
    assert re.fullmatch(r"\s+1\s+1\s+openat\s+\(ENOENT 1\)", rows[head]), rows[head]
    (c_fn, c_off, c_fo), (b_fn, b_off, b_fo) = _expected(chain)[:2]
    assert re.fullmatch(r"\s+> /\S*libc\.so\.6\(\w*open\w*\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]",
                        rows[head + 1])
    assert rows[head + 2].strip() == f"> {chain}({c_fn}+{c_off:#x}) [{c_fo:#x}]"
    assert rows[head + 3].strip() == f"> {chain}({b_fn}+{b_off:#x}) [{b_fo:#x}]"


def test_kernel_stack_without_the_tracers_frames(tmp_path: Path, chain: Path) -> None:
    r = _run_holding(tmp_path, chain, "jsonl", "--stacks", "both")
    assert r.returncode == 0, r.stderr
    call = next(json.loads(ln) for ln in r.stdout.splitlines() if '"type":"syscall"' in ln)
    kernel = [f for f in call["stack"] if f["kernel"]]
    user = [f for f in call["stack"] if not f["kernel"]]
    assert kernel and user and call["stack"][:len(kernel)] == kernel   # kernel first
    names = [f["symbol"] for f in kernel]
    assert not any(n.startswith(("bpf_prog_", "bpf_trace_run", "__bpf_trace")) for n in names)
    if os.uname().machine == "x86_64":
        assert "do_syscall_64" in names, names
    assert [f["symbol"] for f in user[1:5]] == ["c", "b", "a", "main"]


PY_PROG = """\
import os, time
try:
    os.open('/nonexistent/tracekit-py-stacks', os.O_RDONLY)
except OSError:
    pass
time.sleep(0.3)
"""


def test_python_stack_shows_libc_and_interpreter_frames(tmp_path: Path) -> None:
    p = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(sys.executable)}, "-c", {json.dumps(PY_PROG)}]
        [filter]
        syscalls = ["openat"]
        status = ["failed"]
        [output]
        format = "jsonl"
        stacks = "user"
        """)
    r = run_tracekit(["run", str(p)])
    assert r.returncode == 0, r.stderr
    calls = [json.loads(ln) for ln in r.stdout.splitlines() if '"type":"syscall"' in ln]
    call = next(c for c in calls if any(base64.b64decode(cap["data"])
                                        == b"/nonexistent/tracekit-py-stacks"
                                        for cap in c["caps"]))
    stack = call["stack"]
    assert stack[0]["module"].endswith("libc.so.6") and "open" in stack[0]["symbol"]
    # the interpreter: its executable or its shared library (libpython3.x.so)
    exe = os.path.realpath(sys.executable)
    python = [f for f in stack[1:]
              if f["module"] == exe or re.search(r"/libpython3\.\d+\S*\.so", f["module"])]
    assert python, stack
    # the caller of the libc wrapper (found through its CFI, not the frame pointer) is
    # the interpreter's os.open
    assert stack[1] in python
