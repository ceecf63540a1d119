"""In-kernel summary cost (issue 5, kernel half): the getppid workload untraced, under
tracekit's in-kernel summary, and under bpftrace counting raw_syscalls, in one run.

Reuses bench/summary.py's workload (bench/workloads/getppid_loop.c, 1,000,000 getppid,
built with ``gcc -O2 -static``), its rusage wrapper and its bpftrace program (enters
counted by id, failed exits by id, for the workload's pid), and its A/B rotation: each
repetition runs every tool, the order rotated, so drift on a noisy machine hits all.

tracekit's in-kernel summary runs as ``python3 bench/kernel_summary.py --drive OUT --
workload...``: a Session with ``targ_summary`` set (tracekit.session.kernel_summary; the session
has no summary option yet, so the driver sets the knob the way the tests do), the
workload held until attached, the maps read at its end and the counts written to OUT.

The floor: programs/floor.bpf.c (built with the tracer, not shipped), an empty tp_btf
sys_enter/sys_exit pair that looks the tid up in a pids map, run by ``--drive-floor``
(the command held until attached, as tracekit holds it): what any tid-filtered syscall
tracer costs at least. ``--drive-floor-clock`` runs the same pair with one
``bpf_ktime_get_ns()`` in each: what a tracer that times every call (a summary's time
column) costs at least; its ratio to the floor is printed with the first goal. Goals:
the in-kernel summary's loop_x at most 1.1x the floor's, and bpftrace's loop_x at least
1.5x the summary's.

Figures, medians over ``--runs`` (default 9): ``loop_x``, the workload's own loop time
relative to untraced (the slowdown the traced program feels: the goal compares this),
``wall_x`` (the whole command, tracer start-up and teardown included), the tracer's CPU
seconds, and whether the counts were exact.

Then (unless ``--no-bpf-stats``) the kernel's own cost per prog run, after the timed runs
so that the accounting does not slow them: ``sysctl kernel.bpf_stats_enabled=1`` (restored
afterwards), ``--stats-runs`` (default 3) more runs of each tracer, and while each runs
the progs its processes hold open are sampled every 20 ms from ``/proc/<pid>/fdinfo``;
the last sample's ``run_time_ns / run_cnt`` is the mean ns per run. run_cnt counts every
task's syscalls while attached (the progs run for all and return early for untraced
ones), so it is slightly more than the workload's.
bpf_stats adds two clock reads per run around the prog, not inside run_time_ns.

Usage (root): python3 bench/kernel_summary.py [--runs 9] [--scale 1.0] [--stats-runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import summary as sb  # noqa: E402  (bench/summary.py: workloads, measure, bpftrace)
from _goals import goal  # noqa: E402


def drive(out: Path, argv: list[str]) -> int:
    """Run argv under an in-kernel summary session; write "name calls errors" lines."""
    import trio

    from tracekit.session.session import Session, SessionOptions

    async def main() -> int:
        s = Session(SessionOptions(command=argv, summary=True))
        try:
            await s.start()
            assert s.command is not None and s.obj is not None
            rc = await s.command.wait()
            summ = s.kernel_summary().read().regroup("total")
            full = s.kernel_summary().counters()
        finally:
            s.close()
        lines = [f"{r.syscall} {r.calls} {r.errors}" for g in summ.groups for r in g.syscalls]
        lines.append(f"# summary_full {full.summary_full} errno_full {full.errno_full}")
        out.write_text("\n".join(lines) + "\n")
        return rc

    return trio.run(main)


def drive_floor(argv: list[str], *, clock: bool = False) -> int:
    """Run argv under the floor (programs/floor.bpf.c: an empty tp_btf sys_enter/sys_exit
    pair that looks the tid up in a pids map), the command held until attached as
    tracekit holds it. clock: the floor_clock_* pair instead (the same, plus one
    bpf_ktime_get_ns() in each)."""
    import struct

    import trio

    from tracekit.bpf.object import BpfObject
    from tracekit.kernel.arch import machine_arch
    from tracekit.session.spawn import HeldCommand

    async def main() -> int:
        obj = BpfObject.open(FLOOR_OBJECT.parent.parent / machine_arch() / FLOOR_OBJECT.name)
        for name, prog in obj.progs.items():
            prog.autoload = name.startswith("floor_clock_") == clock
        cmd = None
        try:
            obj.load()
            cmd = HeldCommand(argv)
            obj.maps["pids"].update_elem(struct.pack("<I", cmd.pid), bytes(16))
            obj.attach_all()
            await cmd.release()
            return await cmd.wait()
        finally:
            obj.close()
            if cmd is not None:
                cmd.close()

    return trio.run(main)


FLOOR_OBJECT = HERE.parent / "programs" / "build" / "x86_64" / "floor.bpf.o"
FLOOR = "floor: tp_btf pair + pids lookup"
FLOOR_CLOCK = "floor + a clock read in each"


def _floor_argv(workload: list[str], tmp: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--drive-floor", "--", *workload]


def _floor_clock_argv(workload: list[str], tmp: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--drive-floor-clock", "--",
            *workload]


def _tk_argv(workload: list[str], tmp: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--drive", str(tmp / "tk.txt"),
            "--", *workload]


def _parse_tk(tmp: Path) -> sb.Counts:
    out: sb.Counts = {}
    for line in (tmp / "tk.txt").read_text().splitlines():
        if line.startswith("#"):
            if "summary_full 0 " not in line:
                raise SystemExit(f"tracekit: calls not counted: {line}")
            continue
        name, calls, errors = line.split()
        out[name] = (int(calls), int(errors))
    return out


class ProgSampler:
    """Samples, while a tool runs (a thread, every ``period_s``), the BPF progs held open
    by processes that descend from this one: ``/proc/<pid>/fdinfo/<fd>`` of each
    ``anon_inode:bpf-prog`` fd gives ``prog_id``, ``run_time_ns`` and ``run_cnt``
    (kernel/bpf/syscall.c, bpf_prog_show_fdinfo). Keeps the last sample per prog id:
    ``{prog id: (name, run_time_ns, run_cnt)}``; the name from ``bpftool prog show id``."""

    def __init__(self, period_s: float = 0.02) -> None:
        self.period_s = period_s
        self.last: dict[int, tuple[str, int, int]] = {}
        self._names: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> ProgSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        while not self._stop.wait(self.period_s):
            for pid in _descendants():
                for info in _prog_fdinfos(pid):
                    prog = int(info["prog_id"])
                    if prog not in self._names:
                        out = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(prog)],
                                             capture_output=True, check=False).stdout
                        self._names[prog] = json.loads(out).get("name", "?") if out else "?"
                    self.last[prog] = (self._names[prog], int(info.get("run_time_ns", 0)),
                                       int(info.get("run_cnt", 0)))


def _descendants(root: int = os.getpid()) -> list[int]:
    """Pids of the processes that descend from root (ppid chains from /proc/*/stat)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_bytes()      # a comm may hold any bytes
                parent[int(d.name)] = int(stat.rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def _prog_fdinfos(pid: int) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return out
    for fd in fds:
        try:
            if os.readlink(fd) != "anon_inode:bpf-prog":
                continue
            text = Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text()
        except OSError:
            continue
        info = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        out.append({k.strip(): v.strip() for k, v in info.items()})
    return out


def bpf_stats(live: list[sb.Tool], argv: list[str], tmp: Path, runs: int
              ) -> dict[str, dict[str, dict[str, float]]]:
    """{tool: {prog name: {"ns_per_run", "run_cnt"}}}: medians over runs, with
    kernel.bpf_stats_enabled = 1 for the duration (restored after)."""
    old = Path("/proc/sys/kernel/bpf_stats_enabled").read_text().strip()
    per: dict[str, dict[str, list[tuple[float, int]]]] = {}
    try:
        Path("/proc/sys/kernel/bpf_stats_enabled").write_text("1")
        for rep in range(runs):
            order = live[rep % len(live):] + live[:rep % len(live)]
            for t in order:
                if t.name == "untraced":
                    continue
                with ProgSampler() as ps:
                    sb.measure(t.argv(argv, tmp) or [], t, tmp)
                for name, ns, cnt in ps.last.values():
                    per.setdefault(t.name, {}).setdefault(name, []).append(
                        (ns / cnt if cnt else 0.0, cnt))
    finally:
        Path("/proc/sys/kernel/bpf_stats_enabled").write_text(old)
    return {tool: {name: {"ns_per_run": statistics.median(x[0] for x in xs),
                          "run_cnt": statistics.median(x[1] for x in xs)}
                   for name, xs in progs.items()} for tool, progs in per.items()}


def run(runs: int, scale: float, stats_runs: int = 3) -> dict[str, object]:
    tools = [sb.Tool("untraced", lambda w, tmp: w),
             sb.Tool(FLOOR, _floor_argv),
             sb.Tool(FLOOR_CLOCK, _floor_clock_argv),
             sb.Tool("tracekit in-kernel summary", _tk_argv, _parse_tk)]
    tools += [t for t in sb.tools() if t.name == "bpftrace"]
    w = next(w for w in sb.WORKLOADS if w.name == "getppid")
    with tempfile.TemporaryDirectory(prefix="tk-bench-ksum-") as tmp_s:
        tmp = Path(tmp_s)
        sb.build(tmp)
        n = max(1, int(w.n * scale))
        want = w.expect(n)
        live = [t for t in tools if t.argv(w.argv(n), tmp) is not None]
        for t in live:                              # warm-up: a small run each
            sb.measure(t.argv(w.argv(1000), tmp) or [], t, tmp)
        res = {t.name: sb.Result() for t in live}
        for rep in range(runs):
            order = live[rep % len(live):] + live[:rep % len(live)]
            for t in order:
                r = sb.measure(t.argv(w.argv(n), tmp) or [], t, tmp)
                res[t.name].runs.append(r)
                res[t.name].exact.append(sb._exact(r.counts, want))
        sb._print(w.name, n, want, tools, res)
        data = sb._as_json({w.name: res}, tools, runs, scale)
        if stats_runs:
            stats = bpf_stats(live, w.argv(n), tmp, stats_runs)
            print(f"\nBPF run time per prog run (kernel.bpf_stats_enabled, medians of "
                  f"{stats_runs} runs; bpftool prog show run_time_ns / run_cnt)")
            for tool, progs in stats.items():
                for name, v in sorted(progs.items()):
                    print(f"  {tool:<28} {name:<18} {v['ns_per_run']:7.1f} ns/run "
                          f"({v['run_cnt']:.0f} runs)")
            data["bpf_stats"] = stats
    return data


def ensure_bpftrace() -> str | None:
    """Install bpftrace (Debian's package) when it is missing; None when it is there,
    else why not (said on the bpftrace row and goal line)."""
    import shutil

    if shutil.which("bpftrace"):
        return None
    if shutil.which("apt-get") is None:
        return "bpftrace not installed and no apt-get to install it"
    print("bpftrace not installed: apt-get install -y bpftrace", flush=True)
    r = subprocess.run(["apt-get", "install", "-y", "-q", "bpftrace"], capture_output=True,
                       text=True, check=False)
    if r.returncode != 0 or not shutil.which("bpftrace"):
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["?"]
        return f"apt-get install -y bpftrace failed: {tail[0]}"
    return None


def _spread(row: dict[str, object]) -> str:
    """The loop_x of the fastest and slowest run of a tool (against the untraced median)."""
    loops = row.get("loop_s_all")
    if not isinstance(loops, list) or not loops:
        return "one run"
    per = row["loop_s"] / row["loop_x"]  # type: ignore[operator]
    return f"runs x{min(loops) / per:.2f}-x{max(loops) / per:.2f}"


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--drive":
        sep = sys.argv.index("--")
        return drive(Path(sys.argv[2]), sys.argv[sep + 1:])
    if len(sys.argv) > 2 and sys.argv[1] in ("--drive-floor", "--drive-floor-clock"):
        return drive_floor(sys.argv[sys.argv.index("--") + 1:],
                           clock=sys.argv[1] == "--drive-floor-clock")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--stats-runs", type=int, default=3,
                    help="runs per tracer with kernel.bpf_stats_enabled (0: none)")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bench/kernel_summary.py needs root", file=sys.stderr)
        return 2
    why = ensure_bpftrace()
    if why:
        print(f"bpftrace skipped: {why}")
    data = run(args.runs, args.scale, args.stats_runs)
    rows = data["workloads"]["getppid"]  # type: ignore[index]
    tk, bt, fl, fc = (rows.get(k) for k in ("tracekit in-kernel summary", "bpftrace", FLOOR,
                                            FLOOR_CLOCK))
    print()
    if tk and fl and tk.get("available") and fl.get("available"):
        r = tk["loop_x"] / fl["loop_x"]
        clocked = ""
        if fc and fc.get("available"):
            clocked = (f"; the floor with a clock read in each prog (what timing each call "
                       f"adds) x{fc['loop_x']:.2f}, ratio {fc['loop_x'] / fl['loop_x']:.2f} "
                       "to the floor")
        goal("in-kernel summary slows the getppid loop by at most 1.1x the floor's",
             f"loop x{tk['loop_x']:.2f} of untraced ({_spread(tk)})",
             f"floor (tp_btf pair + pids lookup) x{fl['loop_x']:.2f} ({_spread(fl)}) in the "
             f"same run, ratio {r:.2f} <= 1.1{clocked}", r <= 1.1)
    if tk and tk.get("available"):
        if bt and bt.get("available"):
            r = bt["loop_x"] / tk["loop_x"]
            goal("in-kernel summary at least 1.5x cheaper than bpftrace counting",
                 f"loop x{tk['loop_x']:.2f}", f"bpftrace x{bt['loop_x']:.2f} ({_spread(bt)}) "
                 f"in the same run, ratio {r:.2f} >= 1.5", r >= 1.5)
        else:
            print("goal: in-kernel summary at least 1.5x cheaper than bpftrace counting: "
                  f"not measured: {bt.get('why_not') if bt else 'bpftrace not run'} "
                  "(apt-get install -y bpftrace)")
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "kernel_summary.json").write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {results / 'kernel_summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
