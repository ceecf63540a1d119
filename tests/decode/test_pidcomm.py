"""tracekit.decode.pidcomm: the names of pids strace -Y prints, kept from records."""

from __future__ import annotations

from tracekit._events import Exec, Exit, Fork
from tracekit.decode.pidcomm import PidComms, comm_text


def _table(proc: dict[int, str] | None = None) -> PidComms:
    known = proc or {}
    return PidComms(read=known.get, own="tracer")


def test_comm_text_escapes_as_strace_and_stops_at_a_newline() -> None:
    assert comm_text("sh") == "<sh>"
    assert comm_text('a"\\<>b') == '<a\\"\\\\\\74\\76b>'
    assert comm_text("x\udcc3\udca9") == "<x\\303\\251>"       # bytes, not UTF-8 text
    assert comm_text("a<1") == "<a\\0741>"                    # octal before a digit
    assert comm_text("top\nsecret") == "<top>"
    assert comm_text("\nx") == comm_text("") == comm_text(None) == ""


def test_fork_exec_and_rename_in_strace_order() -> None:
    t = _table()
    t.before(100, "sh", exec_call=False)            # first seen: its record's name
    assert t.text(100) == "<sh>"
    t.forked(100, 101)                              # clone's result: the parent's name
    assert t.text(101) == "<sh>"
    t.observe(Fork(1, 100, 100, 101, 101))
    t.observe(Exec(2, 101, 101, "sleep", "/bin/sleep"))
    t.before(101, "sleep", exec_call=True)           # the execve's line: the old name
    assert t.prefix_comm(101) == "<sh>"
    t.after(101, "sleep")
    assert t.prefix_comm(101) == "<sleep>" and t.text(101) == "<sleep>"
    t.before(100, "renamed", exec_call=False)        # a hidden prctl: taken now
    assert t.prefix_comm(100) == "<renamed>"


def test_exec_not_shown_is_taken_at_the_next_line() -> None:
    t = _table()
    t.before(7, "sh", exec_call=False)
    t.observe(Exec(5, 7, 7, "ls", "/bin/ls"))
    assert t.prefix_comm(7) == "<sh>"
    t.before(7, "ls", exec_call=False)
    assert t.prefix_comm(7) == "<ls>"


def test_the_command_is_the_tracers_before_its_execve() -> None:
    t = _table()
    t.before(9, "prog", exec_call=True)
    assert t.prefix_comm(9) == "<tracer>"


def test_reaped_child_has_no_name_from_the_waits_exit_on() -> None:
    t = _table({50: "reused"})
    t.before(50, "child", exec_call=False)
    t.reaped(50, 1_000)
    assert t.text(50, 999) == "<child>"              # a line that entered before
    assert t.text(50, 1_000) == "" and t.text(50) == ""
    assert t.prefix_comm(50) == "<child>"           # its own last lines keep it
    t.observe(Exit(1_500, 50, 50, 0, True, "child"))
    assert t.prefix_comm(50) == ""
    t.observe(Fork(2_000, 1, 1, 50, 50))             # the pid reused: unknown parent
    assert t.text(50) == "<reused>"                  # read as strace reads it


def test_thread_exit_releases_it_and_unknown_pids_are_read() -> None:
    t = _table({300: "other"})
    t.before(201, "worker", exec_call=False)
    t.observe(Exit(10, 201, 200, 0, False, "worker"))
    assert t.text(201) == ""
    assert t.text(300) == "<other>"                  # never seen: /proc
    assert t.text(301) == "" and t.text(0) == "" and t.text(-5) == ""


def test_a_child_not_followed_is_read_where_a_line_names_it() -> None:
    """Without -f a child makes no records: a fork does not name it for good (its
    exec is never seen); a line that names it later reads /proc, as strace does."""
    proc = {101: "sleep"}                   # the child has exec'd by then
    t = PidComms(read=proc.get, own="tracer", follow=False)
    t.before(100, "sh", exec_call=False)
    t.forked(100, 101)
    t.observe(Fork(1, 100, 100, 101, 101))
    assert t.text(101) == "<sleep>"
    del proc[101]                           # reaped: no /proc entry, no name
    assert t.text(101) == ""


def test_a_reaped_child_stays_nameless_after_its_own_later_lines() -> None:
    """Lines come in entry order: the parent's wait4 (entered first) reaps the child
    before the child's own last lines are decoded; a name those lines carry (a rename)
    does not make the reaped pid known again; only a fork of a new task with it does."""
    t = _table()
    t.before(100, "reap", exec_call=False)
    t.observe(Fork(1, 100, 100, 101, 101))
    assert t.text(101, 50) == "<reap>"               # wait4's argument, at its entry
    t.reaped(101, 100)                                # its return, at 100
    t.before(101, "kid", exec_call=False, renames=True)   # the child's prctl line
    t.after(101, "kid")
    assert t.text(101, 200) == "" and t.text(101, 60) == "<kid>"
    t.observe(Fork(300, 100, 100, 101, 101))          # the pid reused by a new child
    assert t.text(101, 400) == "<reap>"


def test_a_parent_known_only_by_its_exec_names_its_child() -> None:
    """The parent's execve line was not shown (-e trace=): its exec's name is its name
    when it forks."""
    t = _table()
    t.observe(Exec(1, 100, 100, "reap", "./reap"))
    t.observe(Fork(2, 100, 100, 101, 101))
    assert t.text(101) == "<reap>"


def test_a_rename_after_an_exec_not_shown_is_taken_at_the_next_line() -> None:
    """exec (its line hidden), then a hidden prctl: the next line's record carries the
    new name, which wins over the exec's."""
    t = _table()
    t.observe(Exec(1, 100, 100, "comm", "./comm"))
    t.before(100, 'x"y', exec_call=False)
    assert t.prefix_comm(100) == '<x\\"y>'
