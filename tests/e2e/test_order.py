"""Text output in timestamp order across CPUs: two threads pinned to two CPUs pass a byte
back and forth, and the strace and perf lines come out sorted by time, except for calls
that took longer than the reorder window.

Every test traces only processes it started.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env, write_pipeline
from tracekit.pipeline.reorder import DEFAULT_WINDOW_S

pytestmark = pytest.mark.kernel


# Two threads pinned to two CPUs pass a byte back and forth through two pipes, n times.
PING_PONG = r"""
import os, sys, threading
n = int(sys.argv[1])
cpus = sorted(os.sched_getaffinity(0))[:2]
a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
def ping():
    os.sched_setaffinity(0, {cpus[0]})
    for _ in range(n):
        os.write(a_w, b"x")
        os.read(b_r, 1)
def pong():
    os.sched_setaffinity(0, {cpus[1]})
    for _ in range(n):
        os.read(a_r, 1)
        os.write(b_w, b"y")
t = threading.Thread(target=pong)
t.start()
ping()
t.join()
"""


_STRACE_TS = re.compile(rb"^\d+ (\d\d):(\d\d):(\d\d)\.(\d{6}) ")


@pytest.mark.parametrize("fmt", ["strace", "perf"])
def test_text_output_is_in_timestamp_order_across_cpus(tmp_path: Path, fmt: str) -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs to pin the two threads to")
    n = 3000
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [filter]
        syscalls = ["read", "write"]
        [output]
        format = "{fmt}"
        """)
    out = tmp_path / "out.txt"
    res = subprocess.run([*TRACEKIT, "run", str(pipeline), "-o", str(out), "--",
                          sys.executable, "-c", PING_PONG, str(n)],
                         capture_output=True, text=True, timeout=120, env=tracekit_env())
    assert res.returncode == 0, res.stderr
    stamps: list[tuple[int, bytes]] = []   # (us, line)
    for line in out.read_bytes().splitlines():
        if fmt == "strace":
            m = _STRACE_TS.match(line)
            if m:
                h, mi, s, us = (int(g) for g in m.groups())
                stamps.append((((h * 60 + mi) * 60 + s) * 1_000_000 + us, line))
        else:  # "  12.345 ( 0.004 ms): comm/tid ..." (ms, 3 decimals)
            head = line.split(b"(", 1)[0].strip()
            if head and head.replace(b".", b"", 1).isdigit():
                stamps.append((round(float(head) * 1000), line))
    # each round: ping write + read, pong read + write (+ the interpreter's own reads)
    assert len(stamps) >= 4 * n, out.read_text()[:2000]
    assert sum(_duration_s(line) < 1 for _, line in stamps) >= 4 * n  # durations parse
    # A line printed with an earlier time than the line before it is a call that took
    # longer than the reorder window (pipeline/reorder.py: it arrives at its return,
    # after later calls were printed). On a loaded machine a pinned thread can wait that
    # long for its CPU; any other inversion is a reorder bug.
    inversions = [(a[1], b[1]) for a, b in zip(stamps, stamps[1:], strict=False)
                  if b[0] < a[0]]
    short = [pair for pair in inversions if _duration_s(pair[1]) < DEFAULT_WINDOW_S]
    assert short == []
    assert len(inversions) <= 4 * n // 100, inversions[:10]  # the exception, not the rule


_STRACE_DUR = re.compile(rb" <(\d+\.\d+)>$")
_PERF_DUR = re.compile(rb"^\s*[\d.]+ \(\s*([\d.]+) ms\)")


def _duration_s(line: bytes) -> float:
    """The call's duration as the strace (``<0.000004>``) or perf (``( 0.004 ms)``) line
    prints it; inf when it shows none."""
    m = _STRACE_DUR.search(line)
    if m:
        return float(m.group(1))
    m = _PERF_DUR.match(line)
    return float(m.group(1)) / 1000 if m else float("inf")
