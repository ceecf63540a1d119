"""Verifier cost of the tracer (issue 4 follow-up): load time of syscalls.bpf.o and the
instructions the verifier processed per prog, with captures on and off, with summary mode.

- load: ``BpfObject.open(); load(); close()`` of the object, median of 5, in one process
  after a first load (warm: vmlinux BTF parsed and cached, as in bench/loader.py), knobs
  set as a session sets them (``targ_self_tgid``; ``targ_capture``/``targ_summary`` per row).
- verified_insns: ``BPF_OBJ_GET_INFO_BY_FD`` of each prog (kernel 5.16+: the number of
  instructions the verifier processed, the figure bounded by BPF_COMPLEXITY_LIMIT_INSNS,
  1,000,000).

Usage (root): python3 bench/load_cost.py [--object PATH] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from tracekit.bpf import sys as _bpf
from tracekit.bpf.btf import Btf
from tracekit.bpf.object import BpfObject
from tracekit.session.session import object_path

# rows: (label, knobs set before load; a knob the object lacks is skipped and said so)
ROWS: list[tuple[str, dict[str, int]]] = [
    ("defaults", {}),
    ("captures on", {"targ_capture": 1}),
    ("captures off", {"targ_capture": 0}),
    ("summary mode", {"targ_summary": 1, "targ_capture": 0}),
    ("stacks user", {"targ_stacks": 1}),
    ("stacks both", {"targ_stacks": 3}),
]


def _open(source: Any, knobs: dict[str, int]) -> tuple[BpfObject, list[str]]:
    obj = BpfObject.open(source)
    obj.globals["targ_self_tgid"] = os.getpid()
    missing = []
    for name, value in knobs.items():
        if name in obj.spec.globals:
            obj.globals[name] = value
        else:
            missing.append(name)
    return obj, missing


def load_once(source: Any, knobs: dict[str, int], vmlinux: Btf) -> tuple[float, dict[str, int]]:
    """(seconds to load, {prog name: verified_insns}) for one load of the object."""
    obj, _ = _open(source, knobs)
    t0 = time.perf_counter()
    obj.load(vmlinux=vmlinux)
    elapsed = time.perf_counter() - t0
    insns = {name: _bpf.obj_get_info_by_fd(p.fd).verified_insns  # type: ignore[union-attr]
             for name, p in obj.progs.items()}
    obj.close()
    return elapsed, insns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--object", type=Path, help="a syscalls.bpf.o (default: the committed one)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    source = args.object or object_path()
    vmlinux = Btf.vmlinux()
    load_once(source, {}, vmlinux)                      # warm: caches, first map creation
    print(f"{source}: warm load, median of {args.runs}")
    for label, knobs in ROWS:
        _, missing = _open(source, knobs)
        if missing:
            print(f"  {label:<13} (object has no {', '.join(missing)}: skipped)")
            continue
        runs = [load_once(source, knobs, vmlinux) for _ in range(args.runs)]
        ms = statistics.median(r[0] for r in runs) * 1e3
        insns = runs[0][1]
        per = "  ".join(f"{k} {v:,}" for k, v in insns.items())
        print(f"  {label:<13} load {ms:6.1f} ms   verified_insns: {per}")


if __name__ == "__main__":
    main()
