"""In-kernel summary cost (issue 5, kernel half): the getppid workload untraced, under
tracekit's in-kernel summary, and under bpftrace counting raw_syscalls, in one run.

Reuses bench/summary.py's workload (bench/workloads/getppid_loop.c, 1,000,000 getppid,
built with ``gcc -O2 -static``), its rusage wrapper and its bpftrace program (enters
counted by id, failed exits by id, for the workload's pid), and its A/B rotation: each
repetition runs every tool, the order rotated, so drift on a noisy machine hits all.

tracekit's in-kernel summary runs as ``python3 bench/kernel_summary.py --drive OUT --
workload...``: a Session with ``targ_summary`` set (tracekit._kernel_summary; the session
has no summary option yet, so the driver sets the knob the way the tests do), the
workload held until attached, the maps read at its end and the counts written to OUT.

Figures, medians over ``--runs`` (default 5): ``loop_x``, the workload's own loop time
relative to untraced (the slowdown the traced program feels: the goal compares this),
``wall_x`` (the whole command, tracer start-up and teardown included), the tracer's CPU
seconds, and whether the counts were exact.

Usage (root): python3 bench/kernel_summary.py [--runs 5] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import summary as sb  # noqa: E402  (bench/summary.py: workloads, measure, bpftrace)


def drive(out: Path, argv: list[str]) -> int:
    """Run argv under an in-kernel summary session; write "name calls errors" lines."""
    import trio

    from tracekit import _session
    from tracekit._kernel_summary import KernelSummary, enable_kernel_summary
    from tracekit._object import BpfObject
    from tracekit._session import Session, SessionOptions

    class SummaryObject(BpfObject):
        def load(self, **kw):  # type: ignore[no-untyped-def]
            enable_kernel_summary(self)
            super().load(**kw)

    _session.BpfObject = SummaryObject  # type: ignore[misc]

    async def main() -> int:
        s = Session(SessionOptions(command=argv))
        try:
            await s.start()
            assert s.command is not None and s.obj is not None
            rc = await s.command.wait()
            summ = KernelSummary(s.obj).read().regroup("total")
            full = KernelSummary(s.obj).counters()
        finally:
            s.close()
        lines = [f"{r.syscall} {r.calls} {r.errors}" for g in summ.groups for r in g.syscalls]
        lines.append(f"# summary_full {full.summary_full} errno_full {full.errno_full}")
        out.write_text("\n".join(lines) + "\n")
        return rc

    return trio.run(main)


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


def run(runs: int, scale: float) -> dict[str, object]:
    tools = [sb.Tool("untraced", lambda w, tmp: w),
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
    return data


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--drive":
        sep = sys.argv.index("--")
        return drive(Path(sys.argv[2]), sys.argv[sep + 1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("bench/kernel_summary.py needs root", file=sys.stderr)
        return 2
    data = run(args.runs, args.scale)
    rows = data["workloads"]["getppid"]  # type: ignore[index]
    tk, bt = rows.get("tracekit in-kernel summary"), rows.get("bpftrace")
    if tk and bt and tk.get("available") and bt.get("available"):
        print(f"\ngoal: in-kernel summary loop_x {tk['loop_x']:.2f} <= bpftrace loop_x "
              f"{bt['loop_x']:.2f}: {'met' if tk['loop_x'] <= bt['loop_x'] else 'NOT met'}")
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "kernel_summary.json").write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {results / 'kernel_summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
