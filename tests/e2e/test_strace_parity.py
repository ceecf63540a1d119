"""Every kind of call strace decodes, against strace on this kernel, on ONE execution.

tests/workloads/parity_calls.c makes one call (or a few) of each kind strace decodes
(the stat family, limits, getdents64, execve's envp, signal actions, masks and the pending
set, rt_sigsuspend, kill/tgkill/rt_sigqueueinfo, clocks and sleeps, the times of
utimensat/utimes/futimesat, settimeofday (failing), timerfd, itimers and
POSIX timers, wait4/waitid, clone, futex, prctl, arch_prctl, pipes, poll/select/epoll, ioctl, fcntl,
readv/writev/preadv/pwritev, copy_file_range/sendfile, a loopback TCP connection...).

tracekit traces ``strace -f -o FILE parity_calls``: both tracers see the same calls of
the same processes, so what differs between two runs (sysinfo's loads, times' ticks,
a clock, a port, a pid) is the same on both sides, and every line of every process of
the program must be equal as it is, with nothing normalised. The perf format and JSON
Lines carry the same decoded structs (perf: each after its argument's name; JSON Lines:
the raw captured bytes in ``caps`` and the text in ``decoded``).
"""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import msgspec
import pytest

from tests._run import run_tracekit
from tests.e2e.test_strace_ops import build, one_run_both
from tracekit._events import Event, Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("parity"), "parity_calls")


def test_every_line_equals_strace_on_the_same_run(tmp_path: Path, exe: Path) -> None:
    s_procs, t_procs = one_run_both(exe, tmp_path)
    assert len(s_procs) == 4, s_procs.keys()        # the program and its three children
    for pid, s_lines in s_procs.items():
        t_lines = t_procs.get(pid, [])
        assert t_lines == s_lines, "\n".join(
            difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in (
            "rt_sigpending([HUP USR1 RT_3], 8) = 0", "rt_sigpending([HUP USR1], 2) = 0",
            "rt_sigpending([HUP USR1], 4) = 0",         # at the end of a mapping
            "rt_sigsuspend([HUP TERM RT_3], 8) = ? ERESTARTNOHAND",
            "rt_sigsuspend(0x", ", 4) = -1 EINVAL",
            "nanosleep({tv_sec=0, tv_nsec=18446744073709551611}, NULL) = -1 EINVAL",
            "nanosleep({tv_sec=-1, tv_nsec=2000000000}, NULL) = -1 EINVAL",
            "{it_interval={tv_sec=0, tv_nsec=18446744073709551609}, "
            "it_value={tv_sec=1, tv_nsec=18446744073709551611}}",
            "{it_interval={tv_sec=0, tv_usec=18446744073709551613}, "
            "it_value={tv_sec=0, tv_usec=18446744073709551612}}",
            "select(0, NULL, NULL, NULL, {tv_sec=0, tv_usec=18446744073709551607}) = -1 EINVAL",
            # the sets read back empty: strace prints the parentheses still
            "], NULL) = 1 ()",
            "clock_settime(CLOCK_MONOTONIC, {tv_sec=1, tv_nsec=2}) = -1 EINVAL",
            "clock_settime(CLOCK_REALTIME, {tv_sec=0, tv_nsec=18446744073709551611}) = -1 EINVAL",
            "clock_settime(CLOCK_REALTIME, NULL) = -1 EFAULT",
            "/l\", [UTIME_NOW, UTIME_OMIT], AT_SYMLINK_NOFOLLOW) = 0",
            "NULL, [{tv_sec=5, tv_nsec=6} /* ",     # local time
            "[{tv_sec=0, tv_nsec=0}, UTIME_NOW], 0) = 0",
            "[{tv_sec=0, tv_nsec=18446744073709551611}, UTIME_NOW], 0) = -1 EINVAL",
            "/l\", NULL, 0) = 0",
            "/f\", [{tv_sec=5, tv_usec=6} /* ",     # local time
            "/f\", NULL) = 0",
            "/f\", [{tv_sec=0, tv_usec=0}, {tv_sec=-1, tv_usec=999999} /* ",
            "/f\", [{tv_sec=0, tv_usec=18446744073709551611}, {tv_sec=1, tv_usec=1000000}]) "
            "= -1 EINVAL",
            "futimesat(AT_FDCWD, \"", "\"f\", [{tv_sec=7, tv_usec=8} /* ",
            "\"f\", NULL) = 0", "\"f\", 0x",
            "settimeofday({tv_sec=0, tv_usec=18446744073709551615}, {tz_minuteswest=-5, "
            "tz_dsttime=-7}) = -1 EINVAL",
            "settimeofday({tv_sec=1, tv_usec=1000000}, NULL) = -1 EINVAL",
            "settimeofday({tv_sec=-1, tv_usec=5}, NULL) = -1 EINVAL",
            "settimeofday(NULL, {tz_minuteswest=1000, tz_dsttime=0}) = -1 EINVAL",
            "settimeofday(0x", "settimeofday({tv_sec=-1, tv_usec=5}, 0x",
            "settimeofday(NULL, NULL) = 0",
            "timer_create(CLOCK_MONOTONIC, {sigev_value={sival_int=7, sival_ptr=0x7}, "
            "sigev_signo=SIGUSR2, sigev_notify=SIGEV_SIGNAL}, [0]) = 0",
            "timer_create(CLOCK_REALTIME, NULL, [1]) = 0",
            "sigev_notify=SIGEV_THREAD_ID, sigev_notify_thread_id=",
            "sigev_signo=36, sigev_notify=SIGEV_NONE}",
            "sigev_notify=0x4d /* SIGEV_??? */}",
            "timer_create(0x63 /* CLOCK_??? */, NULL, ",
            "timer_settime(0, 0, {it_interval={tv_sec=1, tv_nsec=500}, it_value={tv_sec=1000, "
            "tv_nsec=250000000}}, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, "
            "tv_nsec=0}}) = 0",
            "timer_settime(1, TIMER_ABSTIME|0x4, ", "timer_gettime(0, {it_interval=",
            "timer_getoverrun(0) = 0", "timer_delete(0) = -1 EINVAL",
            "sysinfo({uptime=", "times({tms_utime=", "statx(AT_FDCWD, ",
            "/* 2 vars */) = 0", "sendto(4, \"ping\", 4, 0, NULL, 0) = 4",
            "epoll_wait(5, [{events=EPOLLOUT"):
        assert want in text, want


def test_perf_and_jsonl_carry_the_timer_pending_and_timeval_structs(tmp_path: Path,
                                                                    exe: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    perf, jsonl = tmp_path / "t.perf", tmp_path / "t.jsonl"
    cfg = tmp_path / "p.toml"
    cfg.write_text(f"""
[target]
command = {json.dumps([str(exe), str(scratch)])}
[filter]
syscalls = ["timer_create", "timer_settime", "timer_gettime", "rt_sigpending", "utimes",
            "settimeofday"]
[[output]]
format = "perf"
path = {json.dumps(str(perf))}
[[output]]
format = "jsonl"
path = {json.dumps(str(jsonl))}
""")
    r = run_tracekit(["run", str(cfg)], timeout=120)
    assert r.returncode == 0, r.stderr
    text = perf.read_text()
    for want in ("rt_sigpending(uset: [HUP USR1 RT_3], sigsetsize: 8)",
                 "timer_create(which_clock: CLOCK_MONOTONIC, timer_event_spec: "
                 "{sigev_value={sival_int=7, sival_ptr=0x7}, sigev_signo=SIGUSR2, "
                 "sigev_notify=SIGEV_SIGNAL}, created_timer_id: [0])",
                 "timer_settime(timer_id: 0, flags: 0, new_setting: {it_interval={tv_sec=1, "
                 "tv_nsec=500}, it_value={tv_sec=1000, tv_nsec=250000000}}, old_setting: "
                 "{it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, tv_nsec=0}})",
                 "timer_gettime(timer_id: 0, setting: {it_interval=",
                 "/f\", utimes: [{tv_sec=5, tv_usec=6} /* ",
                 "settimeofday(tv: {tv_sec=0, tv_usec=18446744073709551615}, "
                 "tz: {tz_minuteswest=-5, tz_dsttime=-7})",
                 "settimeofday(tv: NULL, tz: NULL)"):
        assert want in text, want
    table = SyscallTable()
    events = msgspec.json.Decoder(Event).decode_lines(jsonl.read_bytes())
    calls = [e for e in events if isinstance(e, Syscall)]
    pending = [c for c in calls if table.name(c.syscall_nr) == "rt_sigpending"
               and c.args[1] == 8]
    assert pending and pending[0].decoded is not None
    assert pending[0].decoded.args[0] == "[HUP USR1 RT_3]"
    # the set the kernel wrote, as captured: HUP (1), USR1 (10), RT_3 (35) as bits n-1
    (cap,) = [c for c in pending[0].caps if c.arg == 0]
    assert int.from_bytes(cap.data[:8], "little") == (1 << 0) | (1 << 9) | (1 << 34)
    created = [c for c in calls if table.name(c.syscall_nr) == "timer_create" and c.ret == 0]
    assert created[0].decoded is not None
    assert created[0].decoded.args[1].startswith("{sigev_value={sival_int=7")
    ids = [c for c in created[0].caps if c.arg == 2]
    assert ids and int.from_bytes(ids[-1].data[:4], "little") == 0
