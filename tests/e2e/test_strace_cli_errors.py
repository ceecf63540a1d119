"""``tracekit strace``'s usage errors and warnings against strace 6.1's: the same
command line under both, the same message lines (strace's ``strace: `` prefix is
``tracekit strace: `` for tracekit's own errors; its warnings keep ``strace: ``) and the
same exit status. Each command traces ``true`` with no call selected (or fails before)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import rest_of_stderr

TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]


def _messages(stderr: str) -> list[str]:
    """The tracer's own lines: errors and warnings, with one prefix for both tools."""
    out = []
    for line in stderr.splitlines():
        line = line.replace("tracekit strace: ", "strace: ", 1)
        if line.startswith("Try '"):
            out.append("Try -h")
        elif line.startswith("strace: "):
            out.append(line)
    return out


def _both(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], ...]:
    run = [subprocess.run([*tool, *argv], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
           for tool in (["strace"], TRACEKIT)]
    return run[0], run[1]


CASES = [
    # --strings-in-hex: its values; -x beside it
    ["--strings-in-hex=foo", "true"],
    ["-x", "--strings-in-hex=none", "true"],
    ["--strings-in-hex=all", "-xx", "true"],
    # -e: an unknown qualifier is a syscall name; bad values of known ones
    ["-e", "foo=bar", "true"],
    ["-e", "TRACE=read", "true"],
    ["-e", "errno=ENOENT", "true"],
    ["-e", "decode-fds=garbage", "true"],
    ["-e", "decode-fds=", "true"],
    ["-e", "quiet=zzz", "true"],
    ["-e", "read=zzz", "true"],
    ["-e", "trace=", "true"],
    ["-e", "signal=zzz", "true"],
    ["-e", "signal=256", "true"],
    ["-e", "status=", "true"],
    ["-e", "trace=!!", "true"],
    ["-e", "status=!!", "true"],
    # a space inside a set is part of the name
    ["-e", "trace= brk", "true"],
    ["-e", "trace=brk, close", "true"],
    ["-e", "signal= INT", "true"],
    # -e sets strace accepts
    ["-e", "trace=!all", "true"],
    ["-e", "trace=none", "-e", "signal=!all", "true"],
    ["-e", "trace=none", "-e", "signal=0", "true"],
    ["-e", "trace=?500", "true"],
    ["-e", "trace=none", "-e", "decode-fds=path,,dev", "true"],
    # the summary's options
    ["-U", "calls", "true"],
    ["-w", "true"],
    ["-U", "calls", "-w", "true"],
    ["-S", "calls", "-e", "trace=none", "true"],
    ["-c", "-U", "calls,calls", "true"],
    ["-c", "-U", "calls,errors,count,name", "true"],
    ["-c", "-T", "-y", "-tt", "-r", "-k", "-n", "-e", "trace=none", "true"],
    ["-c", "-yy", "-e", "trace=none", "true"],
    ["-ff", "-c", "-o", "/dev/null", "true"],
    ["-f", "-f", "-c", "true"],
    ["--output-separately", "-C", "true"],
    # --output-separately: said without -o (unless -f makes it -ff), an error with -ff
    ["--output-separately", "-e", "trace=none", "true"],
    ["--output-separately", "-S", "calls", "-e", "trace=none", "true"],
    ["-f", "--output-separately", "-e", "trace=none", "true"],
    ["--output-separately", "-ff", "-e", "trace=none", "true"],
    ["-ff", "--output-separately", "-o", "/dev/null", "-e", "trace=none", "true"],
    # --seccomp-bpf is a ptrace speed-up, but strace says when it would not apply
    ["--seccomp-bpf", "-e", "trace=none", "true"],
    ["--seccomp-bpf", "-S", "calls", "--output-separately", "-e", "trace=none", "true"],
    ["-f", "--seccomp-bpf", "-e", "trace=none", "true"],
    # --timestamps items (in any order), and the ones strace refuses
    ["--timestamps=bogus", "true"],
    ["--timestamps=format:", "true"],
    ["--absolute-timestamps=time,bogus", "true"],
    ["--timestamps=precision:us,format:time", "-e", "trace=none", "true"],
    # long options by a prefix, as getopt_long takes them
    ["--follow", "-e", "trace=none", "true"],
    ["--string-lim=5", "-e", "trace=none", "true"],
    ["--fail", "--sil", "-e", "trace=none", "true"],
    ["--s=5", "true"],
    ["--summary-", "true"],
    ["--ti", "true"],
    ["--p=1", "true"],
    ["--bogus", "true"],
    # -p lists
    ["-p", "x"],
    ["-p", " 12"],
    ["-p", "1,,2"],
    ["-p", "99999999999"],
    # numbers: ASCII digits only ('²' and '٣' are digits to str.isdigit, and int()
    # refused the one with a traceback and read the other)
    ["-p", "²"],
    ["-e", "read=²"],
    ["-e", "signal=²"],
    ["-s", "²"],
    ["-s", "1_000"],
    ["-s", "12 "],
    ["-s", "-1"],
    ["-a", "٣"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_same_messages_and_status_as_strace(argv: list[str]) -> None:
    ref, got = _both(argv)
    assert (_messages(got.stderr), got.returncode) == (_messages(ref.stderr), ref.returncode)


@pytest.mark.parametrize("expr", ["!!brk", "trace=!!!brk", "status=!!failed",
                                  "status=!!!failed", "signal=!!!all"])
def test_each_leading_bang_inverts_as_in_strace(expr: str) -> None:
    # strace -e '!!brk' is -e brk: each leading '!' inverts the rest (tracekit said
    # "unknown syscall '!brk'")
    def calls(r: subprocess.CompletedProcess[str]) -> list[str]:
        return [m[1] for m in re.finditer(r"^(\w+)\(", r.stderr, re.M)]

    ref, got = _both(["-e", expr, "-e", "signal=none", "true"] if "signal" not in expr
                     else ["-e", expr, "-e", "trace=none", "sh", "-c", "kill -USR1 $$"])
    assert (calls(got), got.returncode) == (calls(ref), ref.returncode), got.stderr
    assert got.stderr.count("--- SIG") == ref.stderr.count("--- SIG")


#: above the most pid_max can be (PID_MAX_LIMIT, 2**22 on 64-bit kernels): no task is
#: ever given these
NEVER_PIDS = 1 << 22


def _free_pids(n: int) -> list[int]:
    """Pids no process has, nor can get while the test runs: a free pid below pid_max
    (the highest one, as this helper chose before) is the next pid handed out once the
    counter reaches it, which a busy machine with pid_max 32768 does every few minutes
    (the tracer itself was once given the 'missing' pid)."""
    assert int(Path("/proc/sys/kernel/pid_max").read_text()) <= NEVER_PIDS
    return [NEVER_PIDS + k for k in range(n)]


def test_missing_pids_are_said_and_none_left_is_exit_1() -> None:
    gone = _free_pids(2)
    ref, got = _both([f"-p{gone[0]}", "-p", str(gone[1])])
    assert ref.returncode == got.returncode == 1
    said = [line for line in got.stderr.splitlines() if line.startswith("strace: attach:")]
    assert said == [f"strace: attach: ptrace(PTRACE_SEIZE, {p}): No such process"
                    for p in gone]
    assert said == ref.stderr.splitlines()      # strace's own lines


def test_a_missing_pid_beside_live_ones_in_a_list() -> None:
    gone = _free_pids(1)[0]
    live = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
    try:
        tracer = subprocess.Popen([*TRACEKIT, "-e", "trace=none", "-p", str(gone), "-p",
                                   f"{live[0].pid} {live[1].pid}"],
                                  stderr=subprocess.PIPE, text=True)
        assert tracer.stderr is not None
        lines = [tracer.stderr.readline() for _ in range(3)]
        for p in live:
            p.terminate()
        rest = rest_of_stderr(tracer, 60)
    finally:
        for p in live:
            p.kill()
            p.wait()
    assert tracer.returncode == 0
    assert lines[0] == f"strace: attach: ptrace(PTRACE_SEIZE, {gone}): No such process\n"
    assert sorted(lines[1:]) == sorted(f"strace: Process {p.pid} attached\n" for p in live)
    assert rest.count("+++ killed by SIGTERM +++") == 2



@pytest.mark.parametrize(("expr", "why"), [
    ("trace=/[", "'[': Invalid regular expression"),
    ("trace=?/[", "'[': Invalid regular expression"),
    ("trace=!?/a(b", "'a(b': Unmatched ( or \\("),
    ("trace=?/a{99999999999}", "'a{99999999999}': Regular expression too big"),
])
def test_a_bad_regex_is_one_line_and_exit_1_as_in_strace(expr: str, why: str) -> None:
    # strace's "?" hides a name this arch lacks, not a regex regcomp refuses: strace 6.1
    # says "regcomp: [: Invalid regular expression" and exits 1 for "?/[" too, where
    # tracekit traced nothing and exited 0; tracekit says what is wrong and where
    ref, got = _both(["-e", expr, "true"])
    assert ref.returncode == got.returncode == 1
    assert ref.stderr.startswith("strace: regcomp: ")
    assert ref.stderr.rstrip("\n").endswith(why.split(": ", 1)[1])   # regerror's words
    value = expr.split("=", 1)[1]
    assert got.stderr == (f"tracekit strace: -e trace={value}: bad regular expression "
                          f"{why}\n")


@pytest.mark.parametrize("opts", [[], ["-q"], ["-qq"], ["-e", "quiet=path-resolution"],
                                  ["-e", "quiet=none"]])
def test_paths_resolved_into_others_are_said_as_strace_says_them(
        opts: list[str], tmp_path: Path) -> None:
    # strace says which -P path realpath(3) turned into another (tracekit said nothing)
    (tmp_path / "f").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "lnk").symlink_to("f")
    paths = ["f", "lnk", "lnk", "d/../f", f"{tmp_path}//f", str(tmp_path / "f"), "f/",
             "missing"]
    argv = [*opts, *(a for p in paths for a in ("-P", p)), "-e", "trace=none", "true"]
    run = [subprocess.run([*tool, *argv], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)
           for tool in (["strace"], TRACEKIT)]
    said = [_messages(r.stderr) for r in run]
    assert said[1] == said[0]
    assert run[1].returncode == run[0].returncode == 0
    resolved = tmp_path.resolve() / "f"
    assert said[1] == ([] if "quiet=path-resolution" in opts else
                       [f'strace: Requested path "{p}" resolved into "{resolved}"'
                        for p in paths[:5]])


@pytest.mark.parametrize("env", [["=x"], ["="], ["=x", "-E", "="], [""]])
def test_env_with_an_empty_name_as_strace_gives_it(env: list[str]) -> None:
    # -E = used to run nothing and say '+++ exited with 127 +++'
    ref, got = _both(["-e", "trace=none", "-E", *env, "env"])
    assert got.returncode == ref.returncode == 0
    assert ([v for v in got.stdout.splitlines() if v.startswith("=")]
            == [v for v in ref.stdout.splitlines() if v.startswith("=")])
    assert got.stderr == ref.stderr == "+++ exited with 0 +++\n"


@pytest.mark.parametrize("opts", [[], ["-x"]])
def test_a_hostile_requested_path_is_quoted_as_strace_quotes_it(
        opts: list[str], tmp_path: Path) -> None:
    # a quote, a newline, a tab and a byte that is not UTF-8 in the name (tracekit wrote
    # them raw, breaking the line, and the byte as \udcff)
    name = b'q"x\nn\tl\xff'
    (tmp_path / os.fsdecode(name)).write_text("x")
    argv = [*opts, "-P", os.fsdecode(name), "-e", "trace=none", "true"]
    run = [subprocess.run([*tool, *argv], capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, cwd=tmp_path)
           for tool in (["strace"], TRACEKIT)]
    said = [[x.replace(b"tracekit strace: ", b"strace: ") for x in r.stderr.splitlines()
             if b"Requested path" in x] for r in run]
    assert len(said[0]) == 1 and said[1] == said[0]


@pytest.mark.parametrize("limit", [16, 24, 32, 36])
def test_a_small_open_file_limit_is_one_line(limit: int) -> None:
    # wherever tracekit runs out of fds (a map, a program, the ring buffer's mmap, the
    # command's pipes, a stage's eventfd) the line says the limit is the cause; it was a
    # traceback or an error naming EBADF at some limits
    import resource

    def small() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    got = subprocess.run([*TRACEKIT, "-e", "trace=getppid", "true"], capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL, preexec_fn=small)
    assert got.returncode == 1, got.stderr
    assert got.stderr == ("tracekit strace: too many open files (EMFILE): tracekit needs "
                          "about 64 file descriptors for its BPF maps, programs and pipes; "
                          "raise the open file limit of this process (ulimit -n)\n")


@pytest.mark.parametrize("expr", ["--status=none", "-e status=!all"])
def test_status_none_prints_what_strace_prints(expr: str) -> None:
    """No call is selected: only the exit line (and the status, 3), as strace 6.1."""
    ref, got = _both([*expr.split(), "sh", "-c", "exit 3"])
    assert ref.returncode == got.returncode == 3
    assert got.stderr == ref.stderr == "+++ exited with 3 +++\n"
