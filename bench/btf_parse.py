"""Benchmark: parse /sys/kernel/btf/vmlinux and look up a few names, against libbpf.

Prints the median of 5 runs (ms) of:
  - read + Btf.parse of the file (a fresh parse each run, not Btf.vmlinux()'s cache);
  - read + parse + find() of task_struct, pt_regs, btf_trace_sys_enter (builds the name index);
  - the same with libbpf (btf__parse + btf__find_by_name_kind through ctypes), when
    libbpf.so.1 is installed (Debian libbpf1), and the ratio tracekit / libbpf.

Usage: python3 bench/btf_parse.py [path]
Target (DESIGN: start-up of ``tracekit run /bin/true`` well under 0.5 s): parse + find under
150 ms.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import statistics
import sys
import time
from collections.abc import Callable

from tracekit.bpf.btf import Btf, Kind

NAMES = (("task_struct", Kind.STRUCT), ("pt_regs", Kind.STRUCT),
         ("btf_trace_sys_enter", Kind.TYPEDEF))
RUNS = 5


def _median_ms(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _tracekit_parse(path: str) -> Btf:
    with open(path, "rb") as f:
        return Btf.parse(f.read())


def _tracekit_parse_find(path: str) -> list[int]:
    btf = _tracekit_parse(path)
    return [btf.find(name, kind) for name, kind in NAMES]


def _libbpf() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("bpf")
    if name is None:
        return None
    lib = ctypes.CDLL(name)
    lib.btf__parse.restype = ctypes.c_void_p
    lib.btf__parse.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    lib.btf__find_by_name_kind.restype = ctypes.c_int
    lib.btf__find_by_name_kind.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32]
    lib.btf__free.argtypes = [ctypes.c_void_p]
    return lib


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "/sys/kernel/btf/vmlinux"
    btf = _tracekit_parse(path)
    ids = _tracekit_parse_find(path)
    print(f"{path}: {len(btf)} type ids; "
          + ", ".join(f"{n}={i}" for (n, _), i in zip(NAMES, ids, strict=True)))
    parse_ms = _median_ms(lambda: _tracekit_parse(path))
    find_ms = _median_ms(lambda: _tracekit_parse_find(path))
    print(f"tracekit parse            median of {RUNS}: {parse_ms:7.1f} ms")
    print(f"tracekit parse+find x{len(NAMES)}    median of {RUNS}: {find_ms:7.1f} ms "
          f"(target < 150 ms: {'ok' if find_ms < 150 else 'MISSED'})")
    lib = _libbpf()
    if lib is None:
        print("libbpf not found: no peer ratio")
        return 0

    def libbpf_parse_find() -> list[int]:
        handle = lib.btf__parse(path.encode(), None)
        if not handle:
            raise OSError(f"libbpf btf__parse({path}) failed")
        try:
            return [lib.btf__find_by_name_kind(handle, n.encode(), int(k)) for n, k in NAMES]
        finally:
            lib.btf__free(handle)

    assert libbpf_parse_find() == ids, "libbpf and tracekit disagree on type ids"
    peer_ms = _median_ms(libbpf_parse_find)
    print(f"libbpf   parse+find x{len(NAMES)}    median of {RUNS}: {peer_ms:7.1f} ms")
    print(f"ratio tracekit/libbpf: {find_ms / peer_ms:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
