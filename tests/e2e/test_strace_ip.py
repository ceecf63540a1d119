"""``tracekit strace -i``: each line's instruction pointer, compared with strace 6.1's on
the same static, non-PIE program (tests/workloads/ip_calls.c), whose text sits at the
same addresses in every run: the calls' (the address after each syscall instruction),
the signals' (where the thread takes them: on return from kill(2), in wait4), the
question marks of the ``+++`` lines, and the 8 digits of a 32-bit call."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from tests._run import WORKLOADS, compile_c, run_tracekit, write_pipeline
from tracekit.kernel.arch import machine_arch

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(machine_arch() != "x86_64",
                       reason="the workload makes an int $0x80 call (x86_64's i386 compat); "
                              f"this machine is {machine_arch()}"),
]

_LINE = re.compile(r"^(?:\[pid +\d+\] )?(\[[0-9a-f?]+\]) (.*)$")
_WHAT = re.compile(r"^(?:--- (SIG\w+)|\+\+\+ (.*?) \+\+\+|\[ Process PID=\d+ (runs in \d+ bit "
                   r"mode)\. \]|<\.\.\. (\w+) resumed>|(\w+)\()")


def ip_lines(text: str) -> list[tuple[str, str]]:
    """(ip column, what the line is: a call's name, ``SIGxxx``, the ``+++`` text, the
    personality) of each line of a ``-i`` trace; strace's ``<... resumed>`` halves (the
    call's line is its unfinished half) and its ``Process N attached`` messages left
    out."""
    out = []
    # strace writes its message in the middle of the line it interrupts (clone's)
    text = re.sub(r"strace: Process \d+ attached\n", "", text)
    for line in text.splitlines():
        m = _LINE.match(line)
        assert m is not None, f"no ip column: {line!r}"
        w = _WHAT.match(m.group(2))
        assert w is not None, f"unknown line: {line!r}"
        if w.group(4):
            continue
        out.append((m.group(1), next(g for g in w.groups() if g)))
    return out


def symbol_range(binary: Path, name: str) -> tuple[int, int]:
    """[start, end) of a function of ``binary`` (nm -S)."""
    got = subprocess.run(["nm", "-S", str(binary)], capture_output=True, text=True,
                         check=True).stdout
    for line in got.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name and parts[2] in "tTW":
            start = int(parts[0], 16)
            return start, start + int(parts[1], 16)
    pytest.skip(f"no symbol {name} in the static workload (another libc?)")


@pytest.fixture(scope="module")
def ip_calls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ip")
    try:
        return compile_c((WORKLOADS / "ip_calls.c").read_text(), out, "ip_calls", "-static")
    except subprocess.CalledProcessError:
        pytest.skip("gcc cannot link a static program here (no libc.a)")


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_ip_column_matches_strace(ip_calls: Path) -> None:
    s = subprocess.run(["strace", "-f", "-i", str(ip_calls)], capture_output=True, text=True,
                       timeout=60)
    assert s.returncode == 0, s.stderr
    t = run_tracekit(["strace", "-f", "-i", str(ip_calls)])
    assert t.returncode == 0, t.stderr
    theirs, ours = ip_lines(s.stderr), ip_lines(t.stderr)
    # execve's address is in the tracer's own exec code: another program on each side
    assert theirs[0][1] == ours[0][1] == "execve"
    theirs, ours = theirs[1:], ours[1:]
    # the same lines with the same addresses; the order of the two tasks' lines may
    # differ (strace splits calls that another task's line interrupts)
    assert Counter(ours) == Counter(theirs), (sorted(Counter(ours) - Counter(theirs)),
                                              sorted(Counter(theirs) - Counter(ours)))
    by_what: dict[str, list[str]] = {}
    for ip, what in ours:
        by_what.setdefault(what, []).append(ip)
    # a signal is taken where its thread returns to user space: after kill's syscall
    # instruction, and after wait4's for the SIGCHLD of the child's exit
    assert by_what["SIGUSR1"] == by_what["kill"]
    assert by_what["SIGCHLD"] == by_what["wait4"]
    lo, hi = symbol_range(ip_calls, "kill")
    assert lo < int(by_what["kill"][0][1:-1], 16) <= hi
    # the exits: no address; the 32-bit call and its personality line: 8 digits
    assert by_what["exited with 0"] == by_what["exited with 3"] == ["[????????????????]"]
    assert re.fullmatch(r"\[[0-9a-f]{8}\]", by_what["getpid"][-1])
    assert by_what["runs in 32 bit mode"] == by_what["getpid"][-1:]
    assert all(re.fullmatch(r"\[[0-9a-f]{16}\]", ip) for ip in by_what["getppid"])


def test_ip_after_number_and_time(ip_calls: Path) -> None:
    """strace's line leader: the time, -n's number, then the address."""
    t = run_tracekit(["strace", "-t", "-n", "-i", "-e", "trace=getppid", "-e",
                      "signal=none", str(ip_calls)])
    assert t.returncode == 0, t.stderr
    lines = t.stderr.splitlines()
    calls = [ln for ln in lines if "getppid()" in ln]
    assert len(calls) == 2, lines
    for ln in calls:
        assert re.fullmatch(r"\d\d:\d\d:\d\d \[ 110\] \[[0-9a-f]{16}\] getppid\(\) += \d+",
                            ln), ln
    assert re.fullmatch(r"\d\d:\d\d:\d\d \[ 110\] \[\?{16}\] \+\+\+ exited with 0 \+\+\+",
                        lines[-1]), lines[-1]


def test_replay_prints_the_recorded_addresses(tmp_path: Path, ip_calls: Path) -> None:
    """``[output] instruction_pointer``: the recording (format 5) holds each call's and
    each signal's address, and its replay prints the live run's lines."""
    from tracekit.session.recording import Recording

    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{ip_calls}"]
        [output]
        format = "strace"
        instruction_pointer = true
        """)
    rec, live, again = tmp_path / "i.tkrec", tmp_path / "live.out", tmp_path / "replay.out"
    r = run_tracekit(["run", str(cfg), "--record", str(rec), "-o", str(live)])
    assert r.returncode == 0, r.stderr
    r2 = run_tracekit(["replay", str(rec), str(cfg), "-o", str(again)])
    assert r2.returncode == 0, r2.stderr
    text = live.read_text()
    assert re.search(r"\[[0-9a-f]{16}\] --- SIGUSR1 ", text), text
    assert again.read_text() == text
    header = Recording.open(rec).header
    assert header is not None and header.format_version == 5
