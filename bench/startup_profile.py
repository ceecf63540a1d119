"""Where the start-up of ``tracekit run`` on /bin/true goes, phase by phase (wall ms).

Each run is a fresh ``python3 -m tracekit run`` (as bench/startup.py runs it) whose
functions of interest are wrapped, as their modules are imported, by a timer that keeps
a stack: every phase gets its *own* time (its children's taken out), and every import
of a top-level package (``trio``, ``msgspec``, ``tracekit.decode``) made while a phase
runs is a child of that phase. What no wrapped function covers is ``(rest of X)``.
Before ``main``: the interpreter's own start (``site``, the editable-install finder);
after it: the interpreter's exit. Both are measured from this process (CLOCK_MONOTONIC).
A wrapped function called on another thread (the prog that ``BpfObject.load`` loads
beside the others) is listed apart, its time on that thread: it overlaps the phases.

The per-boot cache is warm (a first run fills it), as on any start after the first
of a boot; ``--cold`` turns it off (``TRACEKIT_CACHE_DIR=off``) to show what it saves.

Prints the median of each phase over the runs, largest first, and the total, next to
the wall time of the same runs. Needs root.
Usage: python3 bench/startup_profile.py [--runs 7] [--cold] [--format perf]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The wrapper run in the child: ``python3 -c WRAPPER pipeline.toml``. Functions are
# named "module:qualname"; a module's functions are wrapped right after it is imported.
WRAPPER = r'''
import builtins, importlib._bootstrap as _bs, json, os, sys, time
T0 = time.monotonic()
clock = time.perf_counter
TARGETS = json.loads(os.environ["TK_PROFILE_TARGETS"])
own, stack = {}, []             # name -> own seconds; frames [name, start, children]
import threading
MAIN = threading.get_ident()
off_main = {}                   # name -> seconds of its calls on other threads (prog loads)

def enter(name):
    stack.append([name, clock(), 0.0])

def leave():
    name, start, children = stack.pop()
    total = clock() - start
    own[name] = own.get(name, 0.0) + total - children
    if stack:
        stack[-1][2] += total

def timed(name, fn):
    import functools, inspect
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def awrap(*a, **k):
            # an async phase's own time includes the time it waits (trio's loop, the
            # command running): wall time, as a user sees it
            enter(name)
            try:
                return await fn(*a, **k)
            finally:
                leave()
        return awrap
    @functools.wraps(fn)
    def wrap(*a, **k):
        if threading.get_ident() != MAIN:   # runs beside the main thread's phases
            start = clock()
            try:
                return fn(*a, **k)
            finally:
                off_main[name] = off_main.get(name, 0.0) + clock() - start
        enter(name)
        try:
            return fn(*a, **k)
        finally:
            leave()
    return wrap

def patch(modname):
    mod = sys.modules.get(modname)
    for target in TARGETS.get(modname, ()):
        obj, *path = target.split(".")
        holder = mod
        for part in [obj, *path][:-1]:
            holder = getattr(holder, part)
        attr = ([obj, *path])[-1]
        fn = holder.__dict__[attr] if isinstance(holder, type) else getattr(holder, attr)
        if isinstance(fn, (staticmethod, classmethod)):
            setattr(holder, attr, type(fn)(timed(f"{modname}:{target}", fn.__func__)))
        else:
            setattr(holder, attr, timed(f"{modname}:{target}", fn))

orig = _bs._find_and_load

STDLIB = "import (standard library)"

def category(name):
    top = name.split(".")[0]
    if top == "tracekit":
        return "import " + ".".join(name.split(".")[:2])
    if top in sys.stdlib_module_names or top.startswith("_"):
        return STDLIB
    return "import " + top

def find_and_load(name, import_):
    cat = category(name)
    # a frame per tracekit package, per third-party package (with everything it imports:
    # trio's time includes attrs, ssl, idna ...), and one for the standard library
    # modules tracekit itself imports
    if threading.get_ident() != MAIN:
        return orig(name, import_)
    inside = stack[-1][0] if stack else ""
    third_party = (inside.startswith("import ") and not inside.startswith("import tracekit.")
                   and inside != STDLIB)
    new = not third_party and inside != cat
    if new:
        enter(cat)
    try:
        mod = orig(name, import_)
    finally:
        if new:
            leave()
    if name in TARGETS:
        patch(name)
    return mod

_bs._find_and_load = find_and_load
enter("main")
from tracekit.app import cli
sys.argv = ["tracekit", "run", sys.argv[1]]

def done():
    while stack:
        leave()
    with open(os.environ["TK_PROFILE_OUT"], "w") as f:
        json.dump({"own": own, "off_main": off_main, "t0": T0, "t1": time.monotonic()}, f)

import atexit
atexit.register(done)       # runs first of the atexit handlers: main ends in os._exit
cli.main()
'''

# module -> functions ("Class.method" or "function") whose time is a phase
TARGETS: dict[str, list[str]] = {
    "tracekit.app.cli": ["_cmd_run", "check_config_safety", "_parser"],
    "tracekit.app.config": ["load_config"],
    "tracekit.app.run": ["run_pipeline_file", "_cross_check"],
    "tracekit.app.registry": ["build_stages"],
    "tracekit.app.trace": ["LiveTrace.run"],
    "tracekit.kernel.syscalls": ["SyscallTable.__init__"],
    "tracekit.kernel.tracefs": ["readable_tracefs", "boot_arg_table"],
    "tracekit.formatters._spec": ["SinkContext.for_machine", "FormatSpec.stages_before",
                                  "FormatSpec.make_sink"],
    "tracekit.formatters._output": ["open_output", "close_output"],
    "tracekit.session.session": ["Session.start", "Session._load", "Session._fill_maps",
                                 "Session.close", "Session.counters"],
    "tracekit.session.objects": ["open_object"],
    "tracekit.session.capture": ["build_specs", "fill_beauty_map", "fill_ioctl_map"],
    "tracekit.session.spawn": ["HeldCommand.__init__", "HeldCommand.release",
                               "HeldCommand.wait"],
    "tracekit.bpf.object": ["BpfObject.load", "BpfObject.open", "BpfObject.build_image",
                            "BpfObject.attach_all", "BpfObject._load_progs",
                            "BpfObject._load_prog", "Map._create", "BpfObject.close"],
    "tracekit.bpf.btf": ["Btf.vmlinux"],
    "tracekit.pipeline._run": ["Pipeline.run"],
    "trio": ["run"],
}

PIPELINE = """
[target]
command = ["/bin/true"]
[output]
format = "{fmt}"
path = "{out}"
"""


def one_run(cfg: Path, out: Path, env: dict[str, str]) -> dict[str, float]:
    t_spawn = time.monotonic()
    subprocess.run([sys.executable, "-c", WRAPPER, str(cfg)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    t_end = time.monotonic()
    data = json.loads(out.read_text())
    phases = {k: v * 1000 for k, v in data["own"].items()}
    phases.update({f"[thread] {k}": v * 1000 for k, v in data["off_main"].items()})
    phases["python start (interpreter, site)"] = (data["t0"] - t_spawn) * 1000
    phases["python exit (atexit, os._exit)"] = (t_end - data["t1"]) * 1000
    phases["(wall)"] = (t_end - t_spawn) * 1000
    return phases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="no per-boot cache")
    ap.add_argument("--format", default="perf")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.cold:
        env["TRACEKIT_CACHE_DIR"] = "off"
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "p.toml"
        cfg.write_text(PIPELINE.format(fmt=args.format, out=Path(tmp) / "out.txt"))
        out = Path(tmp) / "profile.json"
        env.update(TK_PROFILE_TARGETS=json.dumps(TARGETS), TK_PROFILE_OUT=str(out))
        one_run(cfg, out, env)                    # bytecode, page cache, the boot cache
        runs = [one_run(cfg, out, env) for _ in range(args.runs)]
    names = {k for r in runs for k in r}
    med = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in names}
    wall = med.pop("(wall)")
    print(f"tracekit run /bin/true ({args.format}), {'cold' if args.cold else 'warm'} "
          f"boot cache: median of {args.runs} runs, own wall ms per phase")
    beside = {k: med.pop(k) for k in list(med) if k.startswith("[thread] ")}
    for name, ms in sorted(med.items(), key=lambda kv: -kv[1]):
        if ms >= 0.5:
            print(f"  {ms:7.1f}  {'(main, outside every phase)' if name == 'main' else name}")
    small = sum(ms for ms in med.values() if ms < 0.5)
    print(f"  {small:7.1f}  ({sum(1 for ms in med.values() if ms < 0.5)} phases under 0.5 ms)")
    print(f"  {sum(med.values()):7.1f}  sum of medians; wall median {wall:.1f} ms "
          "(the profiler's own wrappers add about 1 ms)")
    for name, ms in sorted(beside.items(), key=lambda kv: -kv[1]):
        print(f"  {ms:7.1f}  {name} (on another thread, beside the phases above: "
              "not in the sum)")


if __name__ == "__main__":
    main()
