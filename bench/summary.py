"""Syscall summaries: tracekit against perf trace -s, strace -c -f and bpftrace (issue 5).

Workloads (C, built here with ``gcc -O2 -static`` into a temp dir, so no dynamic loader
adds calls and the expected counts are exact):

- ``getppid``: bench/workloads/getppid_loop.c, 1,000,000 ``getppid`` calls;
- ``open``: bench/workloads/open_loop.c, 250,000 iterations of open/read/close of
  /dev/null plus a failing open (openat 2N calls with N ENOENT, read N, close N).

Tools, all run in the same repetition loop, order rotated each repetition (A/B
alternation, so drift on a noisy machine hits every tool):

- untraced;
- tracekit in-kernel summary: the slot :func:`tracekit_kernel_summary` (issue 5, kernel
  half): bench/kernel_summary.py's driver until ``tracekit run`` has an option for it;
- tracekit streaming summary: ``tracekit run`` with ``[output] format = "summary"`` and a
  256 MiB ring buffer (``buffer_pages = 65536``, so that no record is lost); and the same
  with the default 4 MiB buffer, which shows what losing records does to the counts;
- ``perf trace -s``; ``strace -c -f``; ``bpftrace`` counting raw_syscalls enters by id
  (and failed exits by id) for the workload's pid.

Figures per (workload, tool), medians over ``--runs`` repetitions (default 5):

- ``wall``: the whole traced command (tracer start-up and teardown included), and
  ``wall_x``: relative to untraced;
- ``loop``: the workload's own loop time (CLOCK_MONOTONIC, printed by the workload), and
  ``loop_x``: relative to untraced: the slowdown the traced program feels;
- ``tracer_cpu``: CPU seconds (user + system) of the tracer process itself, all threads,
  without its children (``/proc/<pid>/stat`` utime + stime of the zombie, read by
  bench/workloads/rusage_run.c; 10 ms resolution); BPF programs and perf's in-kernel
  work run in the workload's context and count as the workload's, not here;
- ``rss``: peak RSS (``ru_maxrss``) of the tracer tree (its largest process), MiB, as
  measured by bench/workloads/rusage_run.c (forked from it, not from the Python bench,
  whose RSS would otherwise carry over exec); tracekit's ring buffer data pages are
  mapped twice (wrap-around) and count twice once touched;
- ``exact``: whether the tool's counts of the workload's syscalls (calls and errors) equal
  the known numbers, in every repetition; ``counts`` shows the last ones parsed.

Prints a table and writes bench/results/summary.json. Needs root.
Usage: python3 bench/summary.py [--runs 5] [--scale 1.0] [--only getppid]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# Let tracekit's bytecode be cached as an installed package's would be (bench/startup.py).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

Counts = dict[str, tuple[int, int]]         # syscall name -> (calls, errors)


@dataclass
class Workload:
    name: str
    source: str
    n: int
    expect: Callable[[int], Counts]
    exe: Path | None = None

    def argv(self, n: int | None = None) -> list[str]:
        assert self.exe is not None
        return [str(self.exe), str(self.n if n is None else n)]


WORKLOADS = [
    Workload("getppid", "getppid_loop.c", 1_000_000, lambda n: {"getppid": (n, 0)}),
    Workload("open", "open_loop.c", 250_000,
             lambda n: {"openat": (2 * n, n), "read": (n, 0), "close": (n, 0)}),
]


@dataclass
class Tool:
    """A way to run a workload: ``argv(workload argv, tmp dir)`` -> command (None: not
    available), ``parse(tmp dir)`` -> counts (None: the tool reports none)."""

    name: str
    argv: Callable[[list[str], Path], list[str] | None]
    parse: Callable[[Path], Counts] | None = None
    why_not: str = ""


# --- tools --------------------------------------------------------------------------------

_TK_PIPELINE = """\
buffer_pages = {pages}
[target]
command = {command}
[output]
format = "summary"
path = "{out}"
"""


def _tracekit_streaming(pages: int) -> Callable[[list[str], Path], list[str]]:
    def argv(workload: list[str], tmp: Path) -> list[str]:
        cfg = tmp / "tracekit.toml"
        cfg.write_text(_TK_PIPELINE.format(pages=pages, command=json.dumps(workload),
                                           out=tmp / "tracekit.txt"))
        return [sys.executable, "-m", "tracekit", "run", str(cfg)]
    return argv


def _parse_tracekit(tmp: Path) -> Counts:
    """Rows of the summary formatter's perf table, summed over threads."""
    return _sum_rows(tmp / "tracekit.txt",
                     re.compile(r"^\s+([a-z_0-9()]+)\s+(\d+)\s+(\d+)\s+(?:[\d.]+|-)\s"))


def tracekit_kernel_summary(workload: list[str], tmp: Path) -> list[str] | None:
    """The slot for "tracekit in-kernel summary" (issue 5, kernel half).

    Until ``tracekit run`` has an option for it, this runs bench/kernel_summary.py's
    driver (a Session with ``targ_summary`` set; the maps read at the end) and
    :func:`_parse_tracekit_kernel` reads its ``name calls errors`` lines. Once the CLI can
    do it, return ``tracekit run`` with that option and parse with :func:`_parse_tracekit`.
    None when the driver is not there.
    """
    driver = HERE / "kernel_summary.py"
    if not driver.exists():
        return None
    return [sys.executable, str(driver), "--drive", str(tmp / "tk-kernel.txt"), "--",
            *workload]


def _parse_tracekit_kernel(tmp: Path) -> Counts:
    out: Counts = {}
    for line in (tmp / "tk-kernel.txt").read_text().splitlines():
        if line.startswith("#"):            # "# summary_full N errno_full M": must be 0 0
            if line.split()[1:] != ["summary_full", "0", "errno_full", "0"]:
                raise SystemExit(f"tracekit in-kernel summary: maps were full: {line}")
            continue
        name, calls, errors = line.split()
        out[name] = (int(calls), int(errors))
    return out


def _perf_argv(workload: list[str], tmp: Path) -> list[str]:
    return ["perf", "trace", "-s", "-o", str(tmp / "perf.txt"), "--", *workload]


def _parse_perf(tmp: Path) -> Counts:
    return _sum_rows(tmp / "perf.txt",
                     re.compile(r"^\s+([a-z_0-9]+)\s+(\d+)\s+(\d+)\s+[\d.]+\s"))


def _strace_argv(workload: list[str], tmp: Path) -> list[str]:
    return ["strace", "-c", "-f", "-o", str(tmp / "strace.txt"), "--", *workload]


def _parse_strace(tmp: Path) -> Counts:
    out: Counts = {}
    for line in (tmp / "strace.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) in (5, 6) and re.fullmatch(r"[\d.]+", parts[0]) and parts[-1] != "total":
            calls = int(parts[3])
            errors = int(parts[4]) if len(parts) == 6 else 0
            out[parts[-1]] = (calls, errors)
    return out


_BPFTRACE = ("tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @calls[args->id] = count(); } "
             "tracepoint:raw_syscalls:sys_exit /pid == cpid && args->ret < 0 && "
             "args->ret >= -4095/ { @errors[args->id] = count(); }")


def _bpftrace_argv(workload: list[str], tmp: Path) -> list[str]:
    return ["bpftrace", "-o", str(tmp / "bpftrace.txt"), "-e", _BPFTRACE,
            "-c", " ".join(workload)]


def _parse_bpftrace(tmp: Path) -> Counts:
    sys.path.insert(0, str(ROOT))
    from tracekit.kernel.syscalls import SyscallTable
    name = SyscallTable().name
    calls: dict[str, int] = {}
    errors: dict[str, int] = {}
    for m in re.finditer(r"^@(calls|errors)\[(\d+)\]: (\d+)$",
                         (tmp / "bpftrace.txt").read_text(), re.M):
        (calls if m[1] == "calls" else errors)[name(int(m[2]))] = int(m[3])
    return {k: (v, errors.get(k, 0)) for k, v in calls.items()}


def _sum_rows(path: Path, row: re.Pattern[str]) -> Counts:
    out: dict[str, list[int]] = {}
    for line in path.read_text().splitlines():
        m = row.match(line)
        if m:
            acc = out.setdefault(m[1], [0, 0])
            acc[0] += int(m[2])
            acc[1] += int(m[3])
    return {k: (v[0], v[1]) for k, v in out.items()}


def tools() -> list[Tool]:
    have = {t: shutil.which(t) is not None for t in ("perf", "strace", "bpftrace")}
    out = [
        Tool("untraced", lambda w, tmp: w),
        Tool("tracekit in-kernel summary", tracekit_kernel_summary, _parse_tracekit_kernel,
             why_not="bench/kernel_summary.py (its driver) not there"),
        Tool("tracekit streaming (256 MiB ringbuf)", _tracekit_streaming(65536),
             _parse_tracekit),
        Tool("tracekit streaming (default 4 MiB)", _tracekit_streaming(1024),
             _parse_tracekit),
        Tool("perf trace -s", _perf_argv, _parse_perf),
        Tool("strace -c -f", _strace_argv, _parse_strace),
        Tool("bpftrace", _bpftrace_argv, _parse_bpftrace),
    ]
    for t in out:
        binary = {"perf trace -s": "perf", "strace -c -f": "strace", "bpftrace": "bpftrace"}
        if t.name in binary and not have[binary[t.name]]:
            t.argv, t.why_not = (lambda w, tmp: None), f"{binary[t.name]} not installed"
    return out


# --- measuring ------------------------------------------------------------------------------

@dataclass
class Run:
    wall_s: float
    loop_s: float
    tracer_cpu_s: float
    rss_kib: int
    counts: Counts | None


@dataclass
class Result:
    runs: list[Run] = field(default_factory=list)
    exact: list[bool] = field(default_factory=list)


_LOOP = re.compile(rb"loop_ns=(\d+) cpu_ns=(\d+)")


def measure(argv: list[str], tool: Tool, tmp: Path) -> Run:
    # stdout/stderr to files, not pipes: nothing can block on a full pipe. rusage_run
    # (bench/workloads/rusage_run.c) forks the command so its peak RSS is its own.
    assert RUSAGE_RUN is not None
    with open(tmp / "stdout", "w+b") as fo, open(tmp / "stderr", "w+b") as fe:
        t0 = time.perf_counter()
        proc = subprocess.run([str(RUSAGE_RUN), str(tmp / "rusage.txt"), *argv], stdout=fo,
                              stderr=fe, env=_ENV, check=False)
        wall = time.perf_counter() - t0
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read(), fe.read()
    ru = dict(kv.split("=") for kv in (tmp / "rusage.txt").read_text().split())
    m = _LOOP.search(out)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"{tool.name}: {argv[:6]} exited {proc.returncode}; stdout {out[-500:]!r}"
                         f"; stderr {err.decode(errors='replace')[-2000:]}")
    loop_s = int(m[1]) / 1e9
    cpu = int(ru["self_cpu_ns"]) / 1e9 if tool.name != "untraced" else 0.0
    counts = tool.parse(tmp) if tool.parse else None
    return Run(wall, loop_s, max(cpu, 0.0), int(ru["maxrss_kib"]), counts)


def _exact(counts: Counts | None, want: Counts) -> bool:
    return counts is not None and all(counts.get(k) == v for k, v in want.items())


RUSAGE_RUN: Path | None = None


def build(tmp: Path) -> None:
    global RUSAGE_RUN
    RUSAGE_RUN = tmp / "rusage_run"
    subprocess.run(["gcc", "-O2", "-static", "-Wall", "-o", str(RUSAGE_RUN),
                    str(HERE / "workloads" / "rusage_run.c")], check=True)
    for w in WORKLOADS:
        w.exe = tmp / w.source.removesuffix(".c")
        subprocess.run(["gcc", "-O2", "-static", "-Wall", "-o", str(w.exe),
                        str(HERE / "workloads" / w.source)], check=True)


def run(runs: int = 5, scale: float = 1.0, only: list[str] | None = None) -> dict[str, object]:
    all_tools = tools()
    with tempfile.TemporaryDirectory(prefix="tk-bench-summary-") as tmp_s:
        tmp = Path(tmp_s)
        build(tmp)
        results: dict[str, dict[str, Result]] = {}
        for w in WORKLOADS:
            if only and w.name not in only:
                continue
            n = max(1, int(w.n * scale))
            want = w.expect(n)
            live = [t for t in all_tools if t.argv(w.argv(n), tmp) is not None]
            for t in live:                      # warm-up and check: a small run each
                measure(t.argv(w.argv(1000), tmp) or [], t, tmp)
            res = {t.name: Result() for t in live}
            for rep in range(runs):
                order = live[rep % len(live):] + live[:rep % len(live)]
                for t in order:
                    r = measure(t.argv(w.argv(n), tmp) or [], t, tmp)
                    res[t.name].runs.append(r)
                    res[t.name].exact.append(_exact(r.counts, want))
            results[w.name] = res
            _print(w.name, n, want, all_tools, res)
    return _as_json(results, all_tools, runs, scale)


def _med(xs: list[float]) -> float:
    return statistics.median(xs)


def _print(name: str, n: int, want: Counts, all_tools: list[Tool], res: dict[str, Result]
           ) -> None:
    base = res["untraced"]
    bw, bl = _med([r.wall_s for r in base.runs]), _med([r.loop_s for r in base.runs])
    print(f"\nworkload {name} (n={n}; expected {want}), medians of {len(base.runs)} runs")
    print(f"{'tool':<38} {'wall s':>8} {'wall x':>7} {'loop s':>8} {'loop x':>7} "
          f"{'tracer cpu s':>12} {'rss MiB':>8}  exact")
    for t in all_tools:
        r = res.get(t.name)
        if r is None:
            print(f"{t.name:<38} {'not available: ' + t.why_not}")
            continue
        wall, loop = _med([x.wall_s for x in r.runs]), _med([x.loop_s for x in r.runs])
        cpu = _med([x.tracer_cpu_s for x in r.runs])
        rss = max(x.rss_kib for x in r.runs) / 1024
        last = r.runs[-1].counts or {}
        exact = "-" if t.parse is None else (
            "yes" if all(r.exact) else f"NO {({k: last.get(k) for k in want})}")
        print(f"{t.name:<38} {wall:8.3f} {wall / bw:7.2f} {loop:8.3f} {loop / bl:7.2f} "
              f"{cpu:12.3f} {rss:8.1f}  {exact}")


def _as_json(results: dict[str, dict[str, Result]], all_tools: list[Tool], runs: int,
             scale: float) -> dict[str, object]:
    out: dict[str, object] = {"runs": runs, "scale": scale, "machine": os.uname().release,
                              "cpus": os.cpu_count(), "workloads": {}}
    for wname, res in results.items():
        base = res["untraced"]
        bw, bl = _med([r.wall_s for r in base.runs]), _med([r.loop_s for r in base.runs])
        rows = {}
        for t in all_tools:
            r = res.get(t.name)
            if r is None:
                rows[t.name] = {"available": False, "why_not": t.why_not}
                continue
            wall, loop = _med([x.wall_s for x in r.runs]), _med([x.loop_s for x in r.runs])
            rows[t.name] = {
                "available": True,
                "wall_s": wall, "wall_x": wall / bw, "loop_s": loop, "loop_x": loop / bl,
                "tracer_cpu_s": _med([x.tracer_cpu_s for x in r.runs]),
                "peak_rss_kib": max(x.rss_kib for x in r.runs),
                "exact": None if t.parse is None else all(r.exact),
                "last_counts": r.runs[-1].counts,
                "wall_s_all": [x.wall_s for x in r.runs],
                "loop_s_all": [x.loop_s for x in r.runs],
            }
        out["workloads"][wname] = rows  # type: ignore[index]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="repetitions (median; >= 5 to report)")
    ap.add_argument("--scale", type=float, default=1.0, help="workload size factor")
    ap.add_argument("--only", action="append", choices=[w.name for w in WORKLOADS])
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bench/summary.py needs root (BPF, perf trace, bpftrace)", file=sys.stderr)
        return 2
    data = run(args.runs, args.scale, args.only)
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "summary.json").write_text(json.dumps(data, indent=1) + "\n")
    print(f"\nwrote {results / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
