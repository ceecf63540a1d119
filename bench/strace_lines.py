"""Whole-line agreement of tracekit's ``strace`` format with real strace.

Each program below runs under ``strace -f -q -o FILE`` (``-q``, not ``-qq``: strace then
prints the ``+++ exited with N +++`` lines that tracekit prints too) and under
``python3 -m tracekit run`` with ``[output] format = "strace"`` (``fd_paths = false``:
plain ``strace -f`` shows bare fds), in the same directory, environment and input files.
The program sees the same standard streams under both: stdin, stdout and stderr all
/dev/null (tracekit's own messages then go nowhere: a failed run is repeated with stderr
captured, to say why). The two outputs are grouped by process, processes paired by
their call sequences and calls aligned by name (tests/e2e/_strace_lines.py, shared with
tests/e2e/test_strace_diff.py). Only addresses (``0x`` + 5 or more hex digits), pids
(each trace's own, and its tracer's: what ``getppid`` returns) and times (tracekit's
``-tt``/``-T`` columns, ``tv_sec``/``tv_nsec``/... fields) are normalised; every other
character of a line must match.

Per program and run:

- ``whole``: the share of line slots whose whole lines are identical (a slot is a pair
  of aligned lines, or a line only one trace has; signal and exit lines included);
- ``name+ret``: the share whose call name and return value are identical;
- ``ceiling``: ``whole`` of a second strace run against the first, in the same run:
  what differs between two runs of the program itself (random bytes from
  ``getrandom``, ephemeral ports, a shell's children interleaving), the best tracekit
  can reach under this measure;
- ``w/o run-to-run`` and ``decode``: every differing slot classified
  (tests/e2e/_strace_lines.py ``classify``): random bytes, a port, the machine's
  counters, a clock in data, a line moved by scheduling, a signal coalesced, an
  interrupted call's return (the kinds two strace runs show), or ``decode``: a
  difference no second strace run shows. ``w/o run-to-run`` counts the first kinds as
  agreeing; ``decode`` counts the rest, whose lines are printed (``--top``).

``one run``: the same program traced once by both, ``tracekit strace -f -q -o T --
strace -f -q -o S PROGRAM``: tracekit sees the very calls strace shows (the same
processes, the same timing, the same random bytes), so whatever differs is decoding,
never the program's run-to-run variation; the ceiling does not apply to it.

``--yy`` compares fd decorations too: ``strace -f -q -yy`` against tracekit's default
``fd_paths = true`` (inodes of pipes and sockets, and ports, differ between two runs: the
ceiling shows how much). ``--markdown`` ends with the README's table. Needs root, strace.

``ip-addr``, ``getaddrinfo`` (python's getaddrinfo with AI_ADDRCONFIG) and ``ss`` (``ss -t
-a``) decode netlink dumps whose replies depend on the machine's interfaces and sockets:
they run when ``--only`` names them.

Usage: python3 bench/strace_lines.py [--only NAME ...] [--runs N] [--top 3] [--keep DIR]
       [--json] [--yy] [--markdown]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# the shared parser lives with the tests (tests/e2e/_strace_lines.py), imported as the
# tests package's module from the checkout
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e._strace_lines import DECODE, Agreement, agreement, classify  # noqa: E402

WORKLOADS = Path(__file__).resolve().parent / "workloads"
PROGRAMS = ("ls", "cat", "date", "sh", "python", "tar", "cp", "find", "gzip", "stat",
            "ip-addr", "getaddrinfo", "ss")
# programs measured unless --only names them: netlink dumps (rtnetlink and sock_diag)
# whose replies depend on the machine's interfaces and sockets
EXTRA = frozenset({"ip-addr", "getaddrinfo", "ss"})


def make_data(tmp: Path) -> Path:
    """The input tree the programs read: a text file, a binary file in a subfolder."""
    data = tmp / "data"
    (data / "sub").mkdir(parents=True, exist_ok=True)
    (data / "a.txt").write_text("hello\n" * 100)
    (data / "sub" / "b.bin").write_bytes(bytes(range(256)) * 8)
    (data / "sub" / "c.txt").write_text("tracekit\n")
    return data


def argv_of(name: str, tmp: Path, data: Path) -> list[str]:
    return {
        "ls": ["ls", "-la", "/etc"],
        "cat": ["cat", str(data / "a.txt")],
        "date": ["date"],
        "sh": ["sh", "-c", "echo a | cat"],
        "python": [sys.executable, str(WORKLOADS / "files_tcp.py"), str(data)],
        "tar": ["tar", "cf", str(tmp / "out.tar"), "-C", str(data), "."],
        "cp": ["cp", "-r", str(data), str(tmp / "copy")],
        "find": ["find", str(data)],
        "gzip": ["gzip", "-c", str(data / "a.txt")],
        "stat": ["stat", str(data / "a.txt")],
        # rtnetlink: RTM_GETLINK and RTM_GETADDR dumps
        "ip-addr": ["ip", "addr"],
        # glibc's RTM_GETADDR dump of getaddrinfo(AI_ADDRCONFIG)
        "getaddrinfo": [sys.executable, "-c", "import socket; socket.getaddrinfo("
                        "'localhost', 80, flags=socket.AI_ADDRCONFIG)"],
        # sock_diag: inet_diag dumps of TCP sockets
        "ss": ["ss", "-t", "-a"],
    }[name]


def _reset(tmp: Path) -> None:
    """Remove what a program wrote, so that every run starts from the same state
    (a second ``cp -r`` into an existing copy would copy into it)."""
    shutil.rmtree(tmp / "copy", ignore_errors=True)
    (tmp / "out.tar").unlink(missing_ok=True)


#: the traced program's standard streams, the same under strace and tracekit (strace and
#: tracekit pass theirs on to the program; a pipe or file there changes what a program
#: does with fd 2: an fstat, an isatty ioctl, a buffered write)
_STDIO = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL,
          "stderr": subprocess.DEVNULL}

YY = False      # --yy: fd decorations compared (strace -yy, fd_paths = true)
ONE_RUN = True  # --no-one-run: no one-run measurement


def _run(cmd: list[str], tmp: Path) -> tuple[int, int]:
    """(exit status, pid) of ``cmd`` run in ``tmp`` with :data:`_STDIO`; the pid is the
    tracer's, the traced program's parent (what its ``getppid`` returns)."""
    with subprocess.Popen(cmd, cwd=tmp, **_STDIO) as p:
        try:
            return p.wait(timeout=120), p.pid
        except subprocess.TimeoutExpired:
            p.kill()
            raise


def run_strace(argv: list[str], tmp: Path, out: Path) -> tuple[str, int]:
    """strace's output and its pid."""
    _reset(tmp)
    rc, pid = _run(["strace", "-f", "-q", *(["-yy"] if YY else []), "-o", str(out), "--",
                    *argv], tmp)
    if rc:
        raise RuntimeError(f"strace {argv}: exit {rc}")
    return out.read_text(), pid


def run_tracekit(argv: list[str], tmp: Path, out: Path) -> tuple[str, int]:
    """tracekit's strace-format output and its pid."""
    _reset(tmp)
    cfg = out.with_suffix(".toml")
    cfg.write_text(f"[target]\ncommand = {json.dumps(argv)}\n"
                   f"[output]\nformat = \"strace\"\nfd_paths = {str(YY).lower()}\n"
                   f"path = {json.dumps(str(out))}\n")
    cmd = [sys.executable, "-m", "tracekit", "run", str(cfg)]
    rc, pid = _run(cmd, tmp)
    if rc:
        # again with stderr captured: the traced program then has a pipe for stderr, which
        # is why the measured run does not
        _reset(tmp)
        again = subprocess.run(cmd, cwd=tmp, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               timeout=120)
        raise RuntimeError(f"tracekit run {argv}: exit {rc}: {again.stderr}")
    return out.read_text(), pid


def run_both(argv: list[str], tmp: Path, name: str) -> tuple[str, str, int]:
    """One run under both: ``tracekit strace -f -q -o T -- strace -f -q -o S argv``.
    Returns (strace's text, tracekit's lines of the same processes, strace's pid). Of
    tracekit's lines, only those of the processes strace shows are kept, and of the first
    one only from its execve of ``argv`` on (before it, the process is strace's child
    setting up)."""
    _reset(tmp)
    s_out, t_out = tmp / f"{name}.one_strace", tmp / f"{name}.one_tracekit"
    yy = ["-yy"] if YY else []
    rc, _ = _run([sys.executable, "-m", "tracekit", "strace", "-f", "-q", *yy, "-o",
                  str(t_out), "--", "strace", "-f", "-q", *yy, "-o", str(s_out), "--",
                  *argv], tmp)
    if rc:
        raise RuntimeError(f"tracekit strace -- strace {argv}: exit {rc}")
    s_text, t_text = s_out.read_text(), t_out.read_text()
    shown = {line.split(None, 1)[0] for line in s_text.splitlines() if line.strip()}
    first = s_text.split(None, 1)[0] if shown else ""
    lines = t_text.splitlines()
    tracer = lines[0].split(None, 1)[0] if lines else "0"
    kept, started = [], False
    for line in lines:
        pid = line.split(None, 1)[0] if line.strip() else ""
        if pid not in shown:
            continue        # strace itself, and the children it makes to probe ptrace
        if pid == first and not started:
            started = line.split(None, 1)[1].startswith("execve(")
            if not started:
                continue
        kept.append(line)
    return s_text, "\n".join(kept) + "\n", int(tracer)


@dataclass
class Figures:
    """One measurement of one program: tracekit against strace, and a second strace run
    against the first (the ceiling), each with its differing lines classified."""

    got: Agreement
    ceiling: Agreement
    kinds: collections.Counter[str]
    decode: list[tuple[str | None, str | None]]
    ceiling_kinds: collections.Counter[str]
    ceiling_decode: list[tuple[str | None, str | None]]
    one_run: Agreement | None = None
    one_run_decode: list[tuple[str | None, str | None]] | None = None

    @property
    def stable_share(self) -> float:
        """Whole lines, those differing only in a run-to-run kind counted as agreeing."""
        got = self.got
        return ((got.whole + got.lines - got.whole - self.kinds[DECODE]) / got.lines
                if got.lines else 1.0)


def measure(name: str, tmp: Path) -> Figures:
    """tracekit against strace and a second strace run against the first, for ``name``;
    the raw outputs stay in ``tmp`` as NAME.strace, NAME.tracekit, NAME.strace2 and the
    tracers' pids in NAME.pids (JSON: strace, tracekit, strace2)."""
    data = make_data(tmp)
    argv = argv_of(name, tmp, data)
    s_text, s_pid = run_strace(argv, tmp, tmp / f"{name}.strace")
    t_text, t_pid = run_tracekit(argv, tmp, tmp / f"{name}.tracekit")
    s2_text, s2_pid = run_strace(argv, tmp, tmp / f"{name}.strace2")
    (tmp / f"{name}.pids").write_text(json.dumps(
        {"strace": s_pid, "tracekit": t_pid, "strace2": s2_pid}))
    got = agreement(s_text, t_text, reference_pids=[s_pid], other_pids=[t_pid])
    ceiling = agreement(s_text, s2_text, reference_pids=[s_pid], other_pids=[s2_pid])
    kinds, decode = classify(got)
    fig = Figures(got, ceiling, kinds, decode, *classify(ceiling))
    if ONE_RUN:
        o_strace, o_tracekit, tracer = run_both(argv, tmp, name)
        fig.one_run = agreement(o_strace, o_tracekit, reference_pids=[tracer],
                                other_pids=[tracer])
        fig.one_run_decode = [(a, b) for _, a, b, _ in fig.one_run.slots]
    return fig


def _pct(x: float) -> str:
    return f"{x:.1%}"


def markdown(rows: dict[str, list[Figures]]) -> str:
    """The README's table: per program, every run's whole-line share with its ceiling."""
    out = ["| program | lines | whole lines identical (ceiling: strace against strace), "
           "per run | names and returns | lines differing in decoding | one run, "
           "tracekit tracing strace | 98% (separate runs) |",
           "|---|---|---|---|---|---|---|"]
    for name, figs in rows.items():
        runs = ", ".join(f"{_pct(f.got.whole_share)} ({_pct(f.ceiling.whole_share)})"
                         for f in figs)
        nr = sorted({_pct(f.got.name_ret_share) for f in figs})
        met = sum(f.got.whole_share >= GOAL for f in figs)
        verdict = "met" if met == len(figs) else f"NOT met: met in {met} of {len(figs)} runs"
        one = ", ".join(_pct(f.one_run.whole_share) for f in figs if f.one_run) or "-"
        out.append(f"| {name} | {figs[0].got.lines} | {runs} | {', '.join(nr)} | "
                   f"{', '.join(str(f.kinds[DECODE]) for f in figs)} | {one} | "
                   f"{verdict} |")
    return "\n".join(out)


GOAL = 0.98


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=PROGRAMS,
                    default=[p for p in PROGRAMS if p not in EXTRA])
    ap.add_argument("--runs", type=int, default=1, help="measurements per program")
    ap.add_argument("--top", type=int, default=3, help="differing calls shown per program")
    ap.add_argument("--keep", type=Path, help="keep the raw outputs in this directory "
                    "(of the last run)")
    ap.add_argument("--json", action="store_true", help="one JSON object per measurement")
    ap.add_argument("--markdown", action="store_true",
                    help="end with the README's table of the figures")
    ap.add_argument("--yy", action="store_true",
                    help="compare fd decorations too (strace -yy, fd_paths = true)")
    ap.add_argument("--no-one-run", action="store_true",
                    help="leave out the one-run measurement (tracekit tracing strace)")
    args = ap.parse_args()
    global YY, ONE_RUN
    YY = args.yy
    ONE_RUN = not args.no_one_run
    if os.geteuid() != 0 or shutil.which("strace") is None:
        print("needs root and strace", file=sys.stderr)
        return 1
    rows: dict[str, list[Figures]] = {}
    with tempfile.TemporaryDirectory(prefix="strace_lines.") as t:
        tmp = args.keep if args.keep is not None else Path(t)
        tmp.mkdir(parents=True, exist_ok=True)
        if not args.json:
            print(f"{'program':8} {'lines':>6} {'whole':>7} {'name+ret':>9} {'ceiling':>8} "
                  f"{'w/o run-to-run':>14} {'decode':>6} {'one run':>8}  "
                  "kinds (tracekit | ceiling)")
        for name in args.only:
            for _ in range(args.runs):
                fig = measure(name, tmp)
                rows.setdefault(name, []).append(fig)
                got = fig.got
                if args.json:
                    print(json.dumps({
                        "program": name, "lines": got.lines, "whole": got.whole,
                        "name_ret": got.name_ret, "whole_share": got.whole_share,
                        "name_ret_share": got.name_ret_share,
                        "ceiling": fig.ceiling.whole_share,
                        "stable_share": fig.stable_share, "kinds": dict(fig.kinds),
                        "one_run": fig.one_run.whole_share if fig.one_run else None,
                        "one_run_lines": fig.one_run.lines if fig.one_run else None,
                        "one_run_decode": fig.one_run_decode,
                        "ceiling_kinds": dict(fig.ceiling_kinds),
                        "decode": fig.decode, "ceiling_decode": fig.ceiling_decode,
                        "pids": json.loads((tmp / f"{name}.pids").read_text())}),
                        flush=True)
                    continue
                kinds = ", ".join(f"{k} {n}" for k, n in sorted(fig.kinds.items()))
                ckinds = ", ".join(f"{k} {n}" for k, n in sorted(fig.ceiling_kinds.items()))
                one = f"{fig.one_run.whole_share:.1%}" if fig.one_run else "-"
                print(f"{name:8} {got.lines:6d} {got.whole_share:7.1%} "
                      f"{got.name_ret_share:9.1%} {fig.ceiling.whole_share:8.1%} "
                      f"{fig.stable_share:14.1%} {fig.kinds[DECODE]:6d} {one:>8}  "
                      f"{kinds or '-'} | {ckinds or '-'}", flush=True)
                for a, b in fig.decode[:args.top]:
                    print(f"         strace:   {a}\n         tracekit: {b}")
                for a, b in (fig.one_run_decode or [])[:args.top]:
                    print(f"         one run, strace:   {a}\n         one run, tracekit: {b}")
                for a, b in fig.ceiling_decode[:args.top]:
                    print(f"         strace:   {a}\n         strace 2: {b}")
    if args.markdown:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
