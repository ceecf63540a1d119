"""A thread superseded by execve, against strace: a non-leader thread execs while the
leader and a third thread are blocked in pause(). The exec kills both; their pauses never
return (``= ?``, not ``= ? ERESTARTNOHAND``), the leader is ``+++ superseded by execve
in pid <the exec'ing thread> +++`` instead of exiting, the third thread exits with 0, and
the process's one ``+++ exited with 0 +++`` is the new image's. The same program whose
thread calls exit_group instead: both pauses never return either.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import WORKLOADS, compile_c, read_events, run_tracekit, write_pipeline
from tests.e2e._strace_lines import Call, parse
from tracekit._events import Exit, Syscall
from tracekit.kernel.arch import machine_arch
from tracekit.kernel.syscalls import SyscallTable

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed"),
              pytest.mark.skipif(machine_arch() != "x86_64",
                                 reason="glibc's pause() is the pause syscall on x86_64 "
                                        f"only (ppoll elsewhere); this is {machine_arch()}")]


@pytest.fixture(scope="module")
def exec_from_thread(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_c((WORKLOADS / "exec_from_thread.c").read_text(),
                     tmp_path_factory.mktemp("eft"), "exec_from_thread", "-pthread")


_SUPERSEDED = re.compile(r"^\+\+\+ superseded by execve in pid (\d+) \+\+\+$")


def facts(text: str) -> dict[str, object]:
    """What the trace says happened, with roles for pids: the leader (the program's first
    line), the exec'ing thread (named by the superseded line; a thread the leader
    created) and the waiter (the thread that called gettid)."""
    calls = parse(text, events=True)
    leader = next(iter(calls))
    mine = calls[leader]
    superseded = [int(m.group(1)) for c in mine if c.name == "+++"
                  if (m := _SUPERSEDED.match(c.line))]
    assert len(superseded) == 1, [c.line for c in mine if c.name == "+++"]
    execer = superseded[0]
    waiter = next(p for p, cs in calls.items() if any(c.name == "gettid" for c in cs))

    def rets(cs: list[Call], name: str) -> list[str]:
        return [c.ret for c in cs if c.name == name]

    def ends(cs: list[Call]) -> list[str]:
        return [c.line.replace(str(execer), "EXECER") for c in cs if c.name == "+++"]

    return {
        "execer_is_a_thread_of_the_leader": str(execer) in rets(mine, "clone3")
        + rets(mine, "clone"),
        "leader_pause": [c.line for c in mine if c.name == "pause"],
        "waiter_pause": [c.line for c in calls[waiter] if c.name == "pause"],
        "leader_execs": rets(mine, "execve"),          # the program's, then /bin/true's
        "leader_ends": ends(mine),
        "waiter_ends": ends(calls[waiter]),
        "execer_ends": ends(calls.get(execer, [])),
    }


EXPECTED = {
    "execer_is_a_thread_of_the_leader": True,
    "leader_pause": ["pause() = ?"],     # strace's two halves joined; tracekit's one line
    "waiter_pause": ["pause() = ?"],
    "leader_execs": ["0", "0"],
    "leader_ends": ["+++ superseded by execve in pid EXECER +++", "+++ exited with 0 +++"],
    "waiter_ends": ["+++ exited with 0 +++"],
    "execer_ends": [],
}


def test_superseded_thread_as_strace_shows_it(tmp_path: Path, exec_from_thread: Path) -> None:
    s_out = tmp_path / "strace.txt"
    subprocess.run(["strace", "-f", "-o", str(s_out), "--", str(exec_from_thread)],
                   check=True, capture_output=True, timeout=60)
    t_out = tmp_path / "tracekit.txt"
    j_out = tmp_path / "tracekit.jsonl"
    for fmt, out in (("strace", t_out), ("jsonl", j_out)):
        cfg = write_pipeline(tmp_path, f"""
            [target]
            command = [{json.dumps(str(exec_from_thread))}]
            [output]
            format = "{fmt}"
            {"fd_paths = false" if fmt == "strace" else ""}
            path = {json.dumps(str(out))}
            """, name=f"{fmt}.toml")
        r = run_tracekit(["run", str(cfg)])
        assert r.returncode == 0, r.stderr
    assert facts(s_out.read_text()) == EXPECTED
    t_text = t_out.read_text()
    assert facts(t_text) == EXPECTED, t_text
    # the new image's execve
    assert re.search(r'execve\("/bin/true", \["true"\], 0x[0-9a-f]+ /\* 0 vars \*/\) = 0',
                     t_text)
    # JSON Lines: the leader's exit names the exec'ing thread; the pauses are unfinished
    events = read_events(j_out)
    exits = [e for e in events if isinstance(e, Exit)]
    sup = [e for e in exits if e.superseded_by]
    assert len(sup) == 1 and sup[0].tid == sup[0].tgid != sup[0].superseded_by
    assert not sup[0].group_dead
    pauses = [e for e in events if isinstance(e, Syscall) and e.comm == "exec_from_threa"
              and e.syscall_nr == SyscallTable().nr("pause")]
    assert len(pauses) == 2 and all(e.unfinished for e in pauses)



def _run_strace_and_tracekit(tmp_path: Path, argv: list[str]) -> tuple[str, str]:
    s_out, t_out = tmp_path / "strace.txt", tmp_path / "tracekit.txt"
    subprocess.run(["strace", "-f", "-o", str(s_out), "--", *argv], capture_output=True,
                   timeout=60)
    cfg = write_pipeline(tmp_path, f"""
        [target]
        command = {json.dumps(argv)}
        [output]
        format = "strace"
        fd_paths = false
        path = {json.dumps(str(t_out))}
        """, name="eg.toml")
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 3, r.stderr                  # exit_group(3)
    return s_out.read_text(), t_out.read_text()


def test_threads_killed_by_exit_group_as_strace_shows_them(tmp_path: Path,
                                                           exec_from_thread: Path) -> None:
    """The same program, its thread calling exit_group(3) instead: the two pauses never
    return (``= ?``, not ``= ? ERESTARTNOHAND``) and every thread exits with 3."""
    s_text, t_text = _run_strace_and_tracekit(tmp_path, [str(exec_from_thread), "exit_group"])

    def role(cs: list[Call]) -> str:
        names = {c.name for c in cs}
        return "exiter" if "exit_group" in names else "waiter" if "gettid" in names \
            else "leader"

    def facts(text: str) -> list[tuple[str, list[str]]]:
        return sorted((role(cs), [c.line for c in cs if c.name in ("pause", "exit_group",
                                                                     "+++")])
                      for cs in parse(text, events=True).values())

    want = [("exiter", ["exit_group(3) = ?", "+++ exited with 3 +++"]),
            ("leader", ["pause() = ?", "+++ exited with 3 +++"]),
            ("waiter", ["pause() = ?", "+++ exited with 3 +++"])]
    assert facts(s_text) == want
    assert facts(t_text) == want, t_text
