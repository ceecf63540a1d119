"""The differential harness's scheduling rules (tests/e2e/_strace_cli.py's module
docstring): a SIGCHLD delivered at another call and a wait4 placed elsewhere are told
apart from decoding differences; a line whose text differs never is."""

from __future__ import annotations

from tests.e2e._strace_cli import Run, compare

CLONE = ("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
         "child_tidptr=0x7f0000000a10) = 201")
SIGCHLD = ("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=201, si_uid=0, "
           "si_status=%d, si_utime=0, si_stime=0} ---")
WAIT = "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == %d}], 0, NULL) = 201"


def _trace(parent_after_clone: list[str], status: int = 0) -> Run:
    lines = [CLONE,
             "[pid   201] getpid()                    = 201",
             f"[pid   201] exit_group({status})               = ?",
             f"[pid   201] +++ exited with {status} +++",
             *parent_after_clone,
             "exit_group(0)                           = ?",
             "+++ exited with 0 +++"]
    return Run(texts={"-": "\n".join(lines) + "\n"}, status=0, pids={200, 201})


def test_a_sigchld_at_another_call_and_a_moved_wait4_are_scheduling() -> None:
    strace = _trace(["close(3)                                = 0",
                     WAIT % 0,
                     SIGCHLD % 0,
                     "rt_sigreturn({mask=[]})                 = 201"])
    tracekit = _trace([SIGCHLD % 0,
                       "rt_sigreturn({mask=[]})                 = 0",
                       "close(3)                                = 0",
                       WAIT % 0])
    res = compare(strace, tracekit)
    assert res.scheduling >= 2 and not res.diffs, res.diffs
    assert res.settled_share == 1.0 > res.stable_share


def test_the_rules_hold_with_time_columns() -> None:
    """-tt and -T: the time column before the call (and the duration after it) are not
    part of what the rules match."""
    def timed(run: Run, t: int) -> Run:
        out = []
        for i, ln in enumerate(run.texts["-"].splitlines()):
            pfx = ln[:12] if ln.startswith("[pid") else ""
            rest = ln[len(pfx):]
            dur = " <0.000010>" if " = " in rest and not rest.endswith("= ?") else ""
            out.append(f"{pfx}10:00:{t + i:02d}.000001 {rest}{dur}")
        return Run(texts={"-": "\n".join(out) + "\n"}, status=0, pids=run.pids)
    strace = _trace(["close(3)                                = 0", WAIT % 0,
                     SIGCHLD % 0, "rt_sigreturn({mask=[]})                 = 201"])
    tracekit = _trace([SIGCHLD % 0, "rt_sigreturn({mask=[]})                 = 0",
                       "close(3)                                = 0", WAIT % 0])
    res = compare(timed(strace, 0), timed(tracekit, 30))
    assert res.scheduling >= 2 and not res.diffs, res.diffs


def test_a_different_text_is_never_scheduling() -> None:
    strace = _trace(["close(3)                                = 0", WAIT % 0,
                     SIGCHLD % 0, "rt_sigreturn({mask=[]})                 = 201"])
    # the child's status decoded otherwise: the SIGCHLD and wait4 texts differ
    tracekit = _trace(["close(3)                                = 0", WAIT % 1,
                       SIGCHLD % 1, "rt_sigreturn({mask=[]})                 = 201"])
    res = compare(strace, tracekit)
    assert res.scheduling == 0
    assert len(res.diffs) == 2


def test_a_sigchld_without_a_child_is_not_scheduling() -> None:
    strace = _trace(["close(3)                                = 0"])
    tracekit = _trace(["close(3)                                = 0", SIGCHLD % 0,
                       "rt_sigreturn({mask=[]})                 = 0", SIGCHLD % 0,
                       "rt_sigreturn({mask=[]})                 = 0"])
    res = compare(strace, tracekit)
    assert res.scheduling == 0 and len(res.diffs) == 4
