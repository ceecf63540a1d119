"""Eviction walk time for a pids map of 65,536 entries (kernel rule 5).

A standalone HASH map (u32 tid -> struct tk_pid_info, as the tracer's ``pids`` map) is
filled from Python: every task on this machine with its true start time (kept), the
rest with tids that do not exist (dead, deleted). Figures, the median of 5 runs (1 run
for restart, which is slow):

* evict:    ``pipeline.evict.evict_stale`` (``PidsMap.sweep``: the map read with
            BPF_MAP_LOOKUP_BATCH, one /proc listing, BPF_MAP_LOOKUP_AND_DELETE_ELEM per
            stale key)
* walk:     the pass before the batches, the peer measured in the same run:
            ``PidsMap.walk`` (get_next_key, the cursor resting on a kept key, a lookup,
            a /proc read and a delete per key)
* restart:  the walk that restarts from the first key after each delete (the naive
            way: ``get_next_key`` of a deleted key starts over); it revisits every kept
            key before the deleted one each time (1 run; ``--no-restart`` skips it)
* keys:     a bare ``get_next_key`` walk with no /proc reads (the floor of any walk)

Prints keys/s, the ratios and the goal line (evict below 0.5 s). Needs root.
Run: ``python3 bench/evict_walk.py [entries]`` (default 65536).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from tracekit._events import PID_INFO
from tracekit.bpf.object import Map
from tracekit.bpf.uapi import MapType
from tracekit.kernel.procfs import CLK_TCK, ProcFS
from tracekit.pipeline.evict import EvictResult, evict_stale, stale_reason
from tracekit.session.pids import PidInfo, PidsMap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _goals import goal  # noqa: E402

NS_PER_TICK = 1_000_000_000 // CLK_TCK


def live_tasks(procfs: ProcFS) -> dict[int, int]:
    """``{tid: start_time_ns}`` of every task now (threads included)."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            for tid in procfs.threads(int(entry)):
                st = procfs.start_state(tid)
                if st is not None and st[1] not in ("Z", "X"):
                    out[tid] = st[0] * NS_PER_TICK
    return out


def fill(entries: int, live: dict[int, int]) -> Map:
    m = Map.create("bench_pids", MapType.HASH, 4, PID_INFO.size, entries)
    with open("/proc/sys/kernel/pid_max") as f:
        pid_max = int(f.read())
    for tid, start_ns in live.items():
        m.update_elem(tid.to_bytes(4, "little"), PID_INFO.pack(start_ns, tid, 0))
    dead = pid_max + 1
    while len(live) + (dead - pid_max - 1) < entries:     # tids above pid_max never exist
        m.update_elem(dead.to_bytes(4, "little"), PID_INFO.pack(NS_PER_TICK, dead, 0))
        dead += 1
    return m


def restart_walk(m: Map, procfs: ProcFS) -> EvictResult:
    """The naive walk: after each delete, start again from the first key."""
    res = EvictResult()
    decided: set[bytes] = set()
    key = m.get_next_key(None)
    while key is not None:
        if key not in decided:
            decided.add(key)
            res.visited += 1
            start_ns = PID_INFO.unpack(m.lookup_elem(key) or bytes(16))[0]
            if stale_reason(procfs, int.from_bytes(key, "little"), start_ns) is not None:
                m.delete_elem(key)
                res.dead += 1
                res.deleted += 1
                res.restarts += 1
                key = m.get_next_key(None)
                continue
            res.kept += 1
        key = m.get_next_key(key)
    return res


def old_walk(m: Map, procfs: ProcFS) -> EvictResult:
    """The pass before the batches: ``PidsMap.walk`` with a /proc read per key."""
    res = EvictResult()

    def stale(tid: int, info: PidInfo) -> bool:
        return stale_reason(procfs, tid, info.start_time_ns) is not None

    for _ in PidsMap(m).walk(stale, res):
        pass
    return res


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    entries = int(args[0]) if args else 65536
    procfs = ProcFS()
    live = live_tasks(procfs)
    rows: dict[str, list[float]] = {"evict": [], "walk": [], "keys": []}
    if "--no-restart" not in sys.argv:
        rows["restart"] = []
    last: dict[str, EvictResult] = {}
    for i in range(5):
        for name in rows:
            if name == "restart" and i:
                continue
            with fill(entries, live) as m:
                t0 = time.perf_counter()
                if name == "evict":
                    last[name] = evict_stale(PidsMap(m), procfs)
                elif name == "walk":
                    last[name] = old_walk(m, procfs)
                elif name == "restart":
                    last[name] = restart_walk(m, procfs)
                else:
                    sum(1 for _ in m.keys())
                rows[name].append(time.perf_counter() - t0)
    print(f"pids map: {entries} entries, {len(live)} live tasks kept, "
          f"{entries - len(live)} dead deleted")
    for name, times in rows.items():
        t = statistics.median(times)
        extra = f" ({min(times) * 1000:.1f}-{max(times) * 1000:.1f})" if len(times) > 1 else ""
        if name in last:
            r = last[name]
            extra += f"  kept={r.kept} deleted={r.deleted} restarts={r.restarts}"
        print(f"  {name:8s} {t * 1000:9.1f} ms  {entries / t:11.0f} keys/s{extra}")
    ev, walk = statistics.median(rows["evict"]), statistics.median(rows["walk"])
    keys = statistics.median(rows["keys"])
    print(f"  walk/evict = {walk / ev:.2f}, evict/keys = {ev / keys:.2f}")
    if "restart" in rows:
        print(f"  restart/evict = {statistics.median(rows['restart']) / ev:.2f}")
    goal(f"eviction pass over {entries} pids entries below 0.5 s",
         f"evict {ev:.3f} s ({min(rows['evict']):.3f}-{max(rows['evict']):.3f})",
         f"the get_next_key walk before it {walk:.3f} s in the same run (x{walk / ev:.1f}); "
         f"a bare key walk {keys:.3f} s; target 0.5 s", ev < 0.5)


if __name__ == "__main__":
    main()
