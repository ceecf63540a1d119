"""PerfFormatter: golden lines, escaping, a closed reader, and a live ``perf trace`` peer."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from tracekit._events import (
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Batch,
    Exec,
    Exit,
    Fork,
    Lost,
    Syscall,
)
from tracekit.formatters import PerfFormatter, escape
from tracekit.pipeline import IterSource, Pipeline

GOLDEN = Path(__file__).parent / "golden"
BASE = 5_000_000_000                     # ts_ns of the first event: 0.000 ms
NAMES = {0: "read", 21: "access", 59: "execve", 231: "exit_group", 257: "openat"}
ARGS = {"openat": ["dfd", "filename", "flags", "mode"], "access": ["filename", "mode"],
        "exit_group": [], "execve": ["filename", "argv", "envp"]}


def name_of(nr: int) -> str:
    return NAMES.get(nr, f"syscall_{nr}")


def sys_(ts: int, nr: int, args: tuple[int, ...], ret: int, *, dur: int = 1_000,
         comm: str = "ls", tid: int = 1234, flags: int = 0) -> Syscall:
    return Syscall(ts_ns=ts, duration_ns=dur, tid=tid, tgid=1234, cpu=1, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm=comm, flags=flags)


# How each line of golden/perf_basic.txt was checked by hand (the "=" column was counted
# with `awk '{print index($0, "= ")}'` and compared with perf trace -- /bin/true, whose
# "=" sits 70 characters after the "comm/tid " part, or one space after a longer call):
#  1 openat: ts 0.000 (first event), 4000 ns = "( 0.004 ms)"; AT_FDCWD -100 as the u64
#    register 0xffffffffffffff9c; mode 0 as "0"; call longer than 70 -> one space; = 3.
#  2 access: 21000 ns later = "0.021"; mode 4 in decimal (below 10); = -1 ENOENT and
#    strerror(2), perf's wording ("= -1 ENOENT (No such file or directory)").
#  3 execve RESUMED: perf's own line for the execve whose entry it missed:
#    "         ? (         ): true/5446  ... [continued]: execve())   = 0" (double paren).
#  - Fork, Exec, Exit: no line (perf trace prints none for them).
#  4 read with arg_names None: arg0..arg5 in hex, = 4096 in decimal.
#  5 read UNFINISHED: blank duration like perf's exit_group, "= ? <unfinished>".
#  6 read = -512: the kernel's ERESTARTSYS, "? ERESTARTSYS (...)" as strace writes it.
#  7 LOST 3 events!: perf's wording for PERF_RECORD_LOST.
#  8 comm "evil\x1b[31m" + byte 0xff: escaped as \x1b and \xff, no raw ESC reaches the tty.
#  9 COMPAT nr 5: no i386 table given -> compat_syscall_5 with arg0..arg5.
# 10 exit_group NORETURN with no args: perf's "exit_group()  ... = ?" with a blank duration.
#    (second batch: the time base of the first batch still holds: 2.5 ms.)
GOLDEN_BATCHES: list[Batch] = [
    [
        sys_(BASE, 257, (2**64 - 100, 0x7FFD1000, 0x80000, 0), 3, dur=4_000),
        sys_(BASE + 21_000, 21, (0x7FFD2000, 4), -errno.ENOENT, dur=2_000),
        sys_(0, 59, (), 0, dur=0, flags=SC_RESUMED),
        Fork(BASE + 30_000, 1234, 1234, 1235, 1235),
        Exec(BASE + 31_000, 1235, 1235, "true", "/bin/true"),
        Exit(BASE + 32_000, 1235, 1235, 0, True, "true"),
        sys_(BASE + 1_000_000, 0, (3, 0x7FFD3000, 0x1000), 4096, dur=12_345),
    ],
    [
        sys_(BASE + 1_500_000, 0, (0, 0x7FFD3000, 0x1000), 0, dur=0, flags=SC_UNFINISHED),
        sys_(BASE + 1_600_000, 0, (0, 0x7FFD3000, 0x1000), -512, dur=100_000),
        Lost(0, 3),
        sys_(BASE + 2_000_000, 257, (1, 2), 0, comm="evil\x1b[31m\udcff", tid=77),
        sys_(BASE + 2_100_000, 5, (1, 0xFFFFD000), 0, flags=SC_COMPAT),
    ],
    [
        sys_(BASE + 2_500_000, 231, (0,), 0, dur=0, flags=SC_NORETURN),
    ],
]


async def _render_to(path: Path, batches: list[Batch], **kw: object) -> PerfFormatter:
    sink = PerfFormatter(path, syscall_name=name_of, arg_names=lambda n: ARGS.get(n), **kw)
    with trio.fail_after(5):
        await Pipeline(IterSource(batches), [], [sink]).run()
    return sink


async def test_golden_lines(tmp_path: Path) -> None:
    await _render_to(tmp_path / "out.txt", GOLDEN_BATCHES)
    got = (tmp_path / "out.txt").read_text()
    assert got == (GOLDEN / "perf_basic.txt").read_text()
    assert "\x1b" not in got


async def test_errno_text_and_base_can_be_given(tmp_path: Path) -> None:
    batches = [[sys_(BASE + 3_000_000, 21, (0x10, 4), -errno.EACCES)]]
    await _render_to(tmp_path / "o.txt", batches, base_ts_ns=BASE,
                     errno_text=lambda e: f"E{e} (custom)")
    line = (tmp_path / "o.txt").read_text()
    assert line.startswith("     3.000 ( 0.001 ms): ls/1234 access(filename: 0x10, mode: 4) ")
    assert line.endswith(" = -1 E13 (custom)\n") and line.index("= ") == 32 + 70


def test_escape() -> None:
    assert escape("ls") == "ls" and escape("café") == "café"
    assert escape("a\x1b[31mb") == "a\\x1b[31mb"
    assert escape("x\udcff\udc80") == "x\\xff\\x80"     # invalid UTF-8 bytes
    assert escape("\x9b2J") == "\\xc2\\x9b2J"          # C1 CSI as its UTF-8 bytes
    assert escape("a\\x1b") == "a\\\\x1b"               # a literal backslash stays distinct
    assert escape("\n\t\x7f") == "\\x0a\\x09\\x7f"


def test_closed_reader_ends_the_run_quietly(tmp_path: Path) -> None:
    """`tracekit ... | head -1`: the sink stops, the source sees its downstream closed."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import trio
        from tracekit._events import Syscall
        from tracekit.formatters import PerfFormatter
        from tracekit.pipeline import IterSource, Pipeline

        def endless():
            i = 0
            while True:
                yield [Syscall(10**9 + i, 1000, 7, 7, 0, 0, (0,) * 6, 0, "w") for _ in range(64)]
                i += 1

        async def main():
            sink = PerfFormatter("-", syscall_name=str)
            with trio.fail_after(20):
                r = await Pipeline(IterSource(endless()), [], [sink]).run()
            import sys
            print(sink.closed_by_reader, r.downstream_closed, file=sys.stderr)

        trio.run(main)
    """))
    proc = subprocess.run(f"{sys.executable} {script} | head -1", shell=True,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("     0.000 ( 0.001 ms): w/7 0(arg0: 0, ")
    assert proc.stderr == "True True\n"                 # no traceback, no "Exception ignored"


_PERF_LINE = re.compile(r"^(?P<ts>.{10}) \((?P<dur>.{9})\): (?P<comm>\S+)/(?P<tid>\d+) "
                        r"(?P<call>\w+)\((?P<args>[^()]*)\) += (?P<ret>.*)$")
_RET = re.compile(r"^(-?\d+|\?|-1 E[A-Z0-9]+ \([^)]*\))$")


@pytest.mark.kernel
def test_same_lines_as_live_perf_trace(tmp_path: Path) -> None:
    """Rebuild each event of a real `perf trace -- /bin/true` and render it: timestamp,
    duration, comm/tid, name and return come out as perf wrote them; lines whose values
    our raw rendering can express (decimal below 10, hex above) are byte-identical."""
    if shutil.which("perf") is None:
        pytest.skip("perf not installed")
    out = tmp_path / "perf.txt"
    subprocess.run(["perf", "trace", "-o", str(out), "--", "/bin/true"], check=True,
                   timeout=60, capture_output=True)
    perf_lines = out.read_text().splitlines()
    whole, fields = [], []
    for line in perf_lines:
        cont = re.match(r"^ +\? \( +\): (\S+)/(\d+)  \.\.\. \[continued\]: (\w+)\(\)\) +"
                        r"= (-?\d+)$", line)
        m = _PERF_LINE.match(line)
        if cont:
            comm, tid, call, ret = cont.groups()
            ev = sys_(0, 59, (), int(ret), dur=0, comm=comm, tid=int(tid), flags=SC_RESUMED)
            names: list[str] = []
            exact = True
        elif m and _RET.match(m["ret"]):
            pairs = [a.split(": ", 1) for a in m["args"].split(", ")] if m["args"] else []
            exact = all(re.fullmatch(r"\d|0x[0-9a-f]{2,}", v) and (len(v) == 1 or int(v, 16) >= 10)
                        for _, v in pairs)
            names = [n for n, _ in pairs] if exact else []
            args = tuple(int(v, 0) for _, v in pairs) if exact else ()
            call = m["call"]
            noret = m["ret"] == "?"
            ret = (0 if noret else -getattr(errno, m["ret"].split()[1])
                   if m["ret"].startswith("-1 ") else int(m["ret"]))
            ev = sys_(BASE + round(float(m["ts"]) * 1e6), 59, args, ret,
                      dur=0 if noret else round(float(m["dur"].split()[0]) * 1e6),
                      comm=m["comm"], tid=int(m["tid"]), flags=SC_NORETURN if noret else 0)
        else:
            continue                # brk/mmap print their return in hex: not raw
        fmt = PerfFormatter(os.devnull, syscall_name=lambda nr, c=call: c,
                            arg_names=lambda n, a=names: a, base_ts_ns=BASE)
        ours = fmt.format_syscall(ev)
        if exact:
            whole.append((ours, line))
        if m:
            keys = ("ts", "dur", "comm", "tid", "call", "ret")
            mine = _PERF_LINE.match(ours)
            assert mine is not None, ours
            fields.append(([mine[k] for k in keys], [m[k] for k in keys]))
    assert [ours for ours, _ in whole] == [theirs for _, theirs in whole]
    assert [ours for ours, _ in fields] == [theirs for _, theirs in fields]
    calls = " ".join(theirs for _, theirs in whole)
    assert "[continued]: execve())" in calls and "exit_group()" in calls
    assert len(fields) >= 10, perf_lines
