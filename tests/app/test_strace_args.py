"""``tracekit strace``'s parsing of -e, -U and the summary options, as strace 6.1 reads
them (tests/e2e/test_strace_cli_errors.py compares the messages with strace's)."""

from __future__ import annotations

import re

import pytest

from tracekit.app.strace_cli import OPTIONS, UsageError, build, parse_args


@pytest.mark.parametrize(("expr", "says"), [
    ("foo=bar", "invalid system call 'foo=bar'"),
    ("TRACE=read", "invalid system call 'TRACE=read'"),
    ("errno=ENOENT", "invalid system call 'errno=ENOENT'"),
    ("decode-fds=garbage", "invalid decode-fds 'garbage'"),
    ("quiet=attach,zzz", "invalid quiet 'zzz'"),
    ("read=1,zzz", "invalid descriptor 'zzz'"),
    ("trace=", "invalid system call ''"),
    ("abbrev=zzz", "unknown syscall 'zzz'"),
    ("signal=256", "invalid signal '256'"),
    # each leading '!' inverts what follows (strace's loop); only '!'s is no item
    ("trace=!!", "invalid system call '!!'"),
    ("!!!", "invalid system call '!!!'"),
    ("status=!!", "invalid status '!!'"),
    ("quiet=!!", "invalid quiet '!!'"),
    ("read=!!", "invalid descriptor '!!'"),
    # an fd set without an item names the whole text, a bad item only itself (strace)
    ("write=,", "invalid descriptor ','"),
    ("write=!", "invalid descriptor '!'"),
    ("write=1,all", "invalid descriptor 'all'"),
    ("write=-1", "invalid descriptor '-1'"),
    ("write=1 ", "invalid descriptor '1 '"),
    ("write=2147483648", "invalid descriptor '2147483648'"),
    ("write=0x1", "invalid descriptor '0x1'"),
    # strace takes an item as written: a space is part of the name
    ("trace= brk", "invalid system call ' brk'"),
    ("trace=brk, close", "invalid system call ' close'"),
    ("trace=%file ", "invalid system call '%file '"),
    ("signal= INT", "invalid signal ' INT'"),
    # a pattern regcomp refuses, "?" or not: what is wrong and where, one line
    ("trace=?/[", "-e trace=?/[: bad regular expression '[': Invalid regular expression"),
    ("trace=?/a{99999999999}", "bad regular expression 'a{99999999999}': Regular expression "
     "too big"),
])
def test_bad_expressions_are_strace_errors(expr: str, says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        parse_args(["-e", expr, "true"])


@pytest.mark.parametrize(("expr", "selection"), [
    ("trace=!all", "trace=none"),
    ("trace=!none", "trace=all"),
    ("trace=openat,,close", "trace=openat,close"),
    ("trace=?500", "trace=none"),
    ("trace=!?500", "trace=all"),
    ("trace=?brk ", "trace=none"),
    ("trace=? brk,close", "trace=close"),
    ("trace=/", "trace=/"),
    ("openat", "trace=openat"),
    ("signal=!all", "signal=none"),
    ("signal=0", "signal=none"),
    ("signal=0,USR1", "signal=USR1"),
    # each leading '!' inverts the rest, as strace reads it
    ("!!brk", "trace=brk"),
    ("trace=!!!brk", "trace=!brk"),
    ("trace=!!!!all", "trace=all"),
    ("trace=!!!all", "trace=none"),
    ("signal=!!!INT", "signal=!INT"),
    ("status=!!failed", "status=failed"),
    ("status=!!!failed", "status=!failed"),
])
def test_sets_strace_accepts(expr: str, selection: str) -> None:
    assert parse_args(["-e", expr, "true"]).exprs == [("-e", selection)]


@pytest.mark.parametrize(("expr", "fds", "but"), [
    ("write=!1", ["all"], [1]),
    ("write=!1,2", ["all"], [1, 2]),
    ("write=!,1", ["all"], [1]),
    ("write=,1", [1], []),
    ("write=1,", [1], []),
    ("write=1,,2", [1, 2], []),
    ("write=!!1", [1], []),
    ("write= +1,-0,01", [1, 0, 1], []),       # strtol: white space and a sign
    ("write=all", ["all"], []),
    ("write=!none", ["all"], []),
    ("write=none", [], []),
    ("write=!all", [], []),
])
def test_fd_sets_strace_accepts(expr: str, fds: list[int | str], but: list[int]) -> None:
    a = parse_args(["-e", expr, "-e", expr.replace("write=", "read="), "true"])
    assert (a.writes, a.writes_except) == (fds, but)
    assert (a.reads, a.reads_except) == (fds, but)


def test_decode_fds_sets() -> None:
    assert parse_args(["-e", "decode-fds=!!!path", "true"]).decode_fds == 2
    assert parse_args(["-e", "decode-fds=!!path", "true"]).decode_fds == 1
    assert parse_args(["-e", "quiet=!!!attach", "true"]).quiet == {
        "exit", "exits", "path-resolution", "personality", "thread-execve", "superseded"}
    assert parse_args(["-e", "read=!!all", "true"]).reads == ["all"]
    assert parse_args(["-e", "decode-fds=path,,dev", "true"]).decode_fds == 2
    assert parse_args(["-e", "decode-fds=!socket,dev,pidfd", "true"]).decode_fds == 1
    assert parse_args(["-e", "decode-fds=none", "true"]).decode_fds == 0


# strace 6.1's names for -S and -U (its count.c), checked against strace -c here: `time`
# is the "% time" column for -U (the total time's order for -S), every column also as
# time_X / time-X, and no other spelling (`percent`, `seconds`, `usecs/call`, `min`)
@pytest.mark.parametrize(("name", "column"), [
    ("time", "time-percent"), ("time_percent", "time-percent"),
    ("time-percent", "time-percent"), ("time_total", "total-time"),
    ("time-total", "total-time"), ("total_time", "total-time"), ("total-time", "total-time"),
    ("shortest", "min-time"), ("time_min", "min-time"), ("time-min", "min-time"),
    ("min_time", "min-time"), ("min-time", "min-time"), ("longest", "max-time"),
    ("time_max", "max-time"), ("time-max", "max-time"), ("max_time", "max-time"),
    ("max-time", "max-time"), ("time_avg", "avg-time"), ("time-avg", "avg-time"),
    ("avg_time", "avg-time"), ("avg-time", "avg-time"), ("calls", "calls"),
    ("count", "calls"), ("errors", "errors"), ("error", "errors"),
])
def test_summary_column_names_are_strace_s(name: str, column: str) -> None:
    assert parse_args(["-c", "-U", name, "true"]).columns == [column, "name"]
    for spelling in ("syscall", "syscall_name", "syscall-name"):
        assert parse_args(["-c", "-U", f"{spelling},{name}", "true"]).columns == [
            "name", column]


@pytest.mark.parametrize("name", ["percent", "seconds", "usecs/call", "min", "max", "avg",
                                  "nothing", "none"])
def test_summary_column_names_strace_does_not_take(name: str) -> None:
    with pytest.raises(UsageError, match=f"unknown column name: '{re.escape(name)}'"):
        parse_args(["-c", "-U", name, "true"])


@pytest.mark.parametrize(("name", "sort"), [
    ("time_percent", "time"), ("time-percent", "time"), ("time_min", "min-time"),
    ("time_max", "max-time"), ("time_avg", "avg-time"), ("syscall_name", "name"),
])
def test_sort_names_strace_takes(name: str, sort: str) -> None:
    assert parse_args(["-c", "-S", name, "true"]).sort == sort


def test_summary_columns_get_the_name_last_and_refuse_repeats() -> None:
    assert parse_args(["-c", "-U", "errors", "true"]).columns == ["errors", "name"]
    assert parse_args(["-c", "-U", "name,errors", "true"]).columns == ["name", "errors"]
    assert parse_args(["-c", "-U", "calls", "-U", "errors", "true"]).columns == [
        "errors", "name"]
    with pytest.raises(UsageError, match=re.escape(
            "provided more than once: 'count' (-U option residual: 'count,name')")):
        parse_args(["-c", "-U", "calls,errors,count,name", "true"])


@pytest.mark.parametrize(("argv", "says"), [
    (["-U", "calls"], "-U/--summary-columns must be given with (-c/--summary-only or "
                      "-C/--summary)"),
    (["-w"], "-w/--summary-wall-clock must be given with"),
    (["-ff", "-c", "-o", "x"], "and -ff/--output-separately are mutually exclusive"),
    (["-ff", "-C"], "and -ff/--output-separately are mutually exclusive"),
])
def test_summary_option_errors(argv: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        parse_args([*argv, "true"])


def test_summary_warnings_in_strace_order() -> None:
    a = parse_args(["-c", "-y", "-T", "-tt", "-r", "-k", "-n", "-i", "true"])
    assert a.notes == [f"{o} has no effect with -c/--summary-only" for o in (
        "-i/--instruction-pointer", "-k/--stack-traces", "-n/--syscall-number",
        "-r/--relative-timestamps", "-t/--absolute-timestamps", "-T/--syscall-times",
        "-y/--decode-fds")]
    assert parse_args(["-S", "calls", "true"]).notes == [
        "-S/--summary-sort-by has no effect without (-c/--summary-only or -C/--summary)"]
    assert parse_args(["-C", "-T", "true"]).notes == []


def test_long_options_by_an_unambiguous_prefix() -> None:
    a = parse_args(["--follow", "--string-lim=5", "--sil=all", "--fail", "true"])
    assert (a.follow, a.strsize, "exit" in a.quiet) == (1, 5, True)
    assert a.exprs[-1] == ("-Z", "failed")
    with pytest.raises(UsageError, match=re.escape(
            "option '--ti' is ambiguous; possibilities: '--timestamps' '--tips'")):
        parse_args(["--ti", "true"])
    with pytest.raises(UsageError, match=re.escape(
            "option '--pidns-translation' doesn't allow an argument")):
        parse_args(["--p=1", "true"])


def test_pid_lists_as_strace_reads_them() -> None:
    assert parse_args(["-p", "12 13", "-p", "14,15\t16\n17\n"]).pids == [12, 13, 14, 15,
                                                                           16, 17]
    # strace reads each with strtol: a '+' sign (and leading \\v \\f \\r) is taken
    assert parse_args(["-p", "+5,\r6", "-p", "007"]).pids == [5, 6, 7]
    for bad, part in ((" 12", ""), ("1,,2", ""), ("12 x", "x"), ("0", "0"), ("+", "+"),
                      ("-5", "-5"), ("+-5", "+-5"), ("+0", "+0"),
                      ("99999999999", "99999999999")):
        with pytest.raises(UsageError, match=re.escape(f"Invalid process id: '{part}'")):
            parse_args(["-p", bad])


# strace 6.1 reads --absolute-timestamps (--timestamps) as format and precision items in
# any order, each with or without its `format:` / `precision:` name; `unix` alone is whole
# seconds, which tracekit does not print (refused, never printed as -ttt)
@pytest.mark.parametrize(("value", "abs_time"), [
    ("", 1), ("time", 1), ("s", 1), ("precision:s", 1), ("format:time,precision:s", 1),
    ("us", 2), ("precision:us", 2), ("time,us", 2), ("us,time", 2), ("unix,us", 3),
    ("us,unix", 3), ("format:unix,precision:us", 3), ("none", 0),
])
def test_absolute_timestamps_items_in_any_order(value: str, abs_time: int) -> None:
    assert parse_args([f"--timestamps={value}", "true"]).abs_time == abs_time


@pytest.mark.parametrize(("value", "says"), [
    ("bogus", "invalid --timestamps argument: 'bogus'"),
    ("time,bogus", "invalid --timestamps argument: 'time,bogus'"),
    ("unix", "--timestamps=unix: tracekit prints"), ("unix,s", "tracekit prints"),
    ("ms", "tracekit prints"), ("ns", "tracekit prints"),
])
def test_absolute_timestamps_it_cannot_print_are_refused(value: str, says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        parse_args([f"--timestamps={value}", "true"])


@pytest.mark.parametrize(("argv", "pages"), [
    (["--mmap-pages", "3"], 4), (["--mmap-pages=64M"], 16384), (["--mmap=2"], 2),
    ([], None)])
def test_mmap_pages_is_tracekit_s_own_long_option(argv: list[str], pages: int | None) -> None:
    assert parse_args([*argv, "true"]).ring_pages == pages


@pytest.mark.parametrize("value", ["0", "nope", "3G", ""])
def test_mmap_pages_refuses_what_is_not_a_size(value: str) -> None:
    with pytest.raises(UsageError, match=r"^--mmap-pages: "):
        parse_args([f"--mmap-pages={value}", "true"])


@pytest.mark.parametrize(("argv", "ring_mib"), [
    ([], 4),                                  # the default -s 32: the default ring
    (["-s", "256"], 4),                       # 257 bytes read: the default's largest
    (["-s", "300"], 8),
    (["-s", "1024"], 16),
    (["-s", "4096"], 64),
    (["-s", "100000"], 64),                   # a buffer is read up to 4096 bytes
    (["-e", "write=1"], 64),                  # a dumped buffer: up to 4096 bytes
    (["-s", "4096", "--mmap-pages", "1024"], 4),  # the ring asked for, whatever -s
    (["-s", "4096", "-c"], 4),                # counts only: no data read
])
def test_ring_grows_with_the_records_that_s_allows(argv: list[str], ring_mib: int) -> None:
    """-s N above 256: the ring holds as many of the largest records as the default
    4 MiB ring holds of the default's largest (tracekit.session.capture)."""

    assert build(parse_args([*argv, "true"])).session.buffer_bytes == ring_mib << 20


@pytest.mark.parametrize(("argv", "hex_strings"), [
    (["--strings-in-hex=non-ascii-chars"], "non-ascii-chars"),
    (["--strings-in-hex=none"], "none"),
    (["--strings-in-hex"], "all"),
    (["--strings-in-hex=non-ascii"], "non-ascii"),
    (["-x"], "non-ascii"),
    (["-xx"], "all"),
    (["-xxx"], "all"),
])
def test_strings_in_hex(argv: list[str], hex_strings: str) -> None:
    assert build(parse_args([*argv, "true"])).shape.hex_strings == hex_strings


@pytest.mark.parametrize(("argv", "says"), [
    (["--strings-in-hex=foo"], "invalid --strings-in-hex argument: 'foo'"),
    (["-x", "--strings-in-hex=none"], "-x and --strings-in-hex cannot be provided "
                                      "simultaneously"),
])
def test_strings_in_hex_errors(argv: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        parse_args([*argv, "true"])



def _row_argvs(row: str) -> list[list[str]]:
    """The command lines a help row names: ``-I 3, -I 4`` -> [[-I, 3], [-I, 4]];
    ``-e kvm=`` gets a value, an option that takes an argument gets ``1``."""
    argvs = []
    for form in row.split(", "):
        argv = form.split()
        if argv[-1].endswith("="):
            argv[-1] += "x"
        elif len(argv) == 1 and len(argv[0]) == 2 and argv[0][1] in "abeEIoOpPsSuUX":
            argv.append("1")
        argvs.append(argv)
    return argvs


@pytest.mark.parametrize("row", [r for r, status, _ in OPTIONS if status == "no"])
def test_what_help_calls_refused_is_refused(row: str) -> None:
    for argv in _row_argvs(row):
        with pytest.raises(UsageError):
            parse_args([*argv, "true"])


@pytest.mark.parametrize("argv", [["-X", "raw"], ["-X", "verbose"], ["-X", "abbrev"],
                                  ["--const-print-style=raw"]])
def test_help_calls_the_styles_supported(argv: list[str]) -> None:
    """-X's three styles are accepted and the help has no refused row naming -X."""
    assert parse_args([*argv, "true"]).xstyle == argv[-1].rpartition("=")[2]
    assert not any("-X" in r for r, status, _ in OPTIONS if status == "no")


def test_a_regex_of_3000_nested_groups_selects_every_call_as_in_strace() -> None:
    """regcomp takes it (an empty match everywhere), as strace does; Python's re parser
    recursed once per group and gave up."""
    from tracekit.kernel.selection import resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable

    table = SyscallTable()
    assert resolve_syscalls(["/" + "(" * 3000 + ")" * 3000], table) == \
        resolve_syscalls(["all"], table)


# --- -Y, --decode-pids=, -A ----------------------------------------------------------------

@pytest.mark.parametrize("argv", [["-Y"], ["--decode-pids=comm"], ["--decode-pids", "comm"],
                                  ["-e", "decode-pids=comm"], ["-e", "decode-pid=comm,none"],
                                  ["--decode-pids=!pidns"]])
def test_decode_pids_comm_forms(argv: list[str]) -> None:
    assert parse_args([*argv, "true"]).comm


@pytest.mark.parametrize(("argv", "says"), [
    (["--decode-pids=pidns", "true"], "not translated between pid namespaces"),
    (["--decode-pids=all", "true"], "not translated between pid namespaces"),
    (["--pidns-translation", "true"], "not translated between pid namespaces"),
    (["-f", "--decode-pids"], "option '--decode-pids' requires an argument"),
    (["--decode-pids", "true"], "invalid decode-pids 'true'"),      # its argument
    (["--decode-pids=bogus", "true"], "invalid decode-pids 'bogus'"),
    (["-e", "decode-pids=", "true"], "invalid decode-pids ''"),
])
def test_decode_pids_refused_and_bad(argv: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=re.escape(says)):
        parse_args(argv)


def test_decode_pids_none_and_default() -> None:
    assert not parse_args(["true"]).comm
    assert not parse_args(["-Y", "--decode-pids=none", "true"]).comm


def test_append_mode_and_its_note_without_o() -> None:
    a = parse_args(["-A", "-o", "f", "true"])
    assert a.append and not a.notes
    assert parse_args(["--output-append-mode", "-o", "f", "true"]).append
    b = parse_args(["-A", "true"])
    assert b.notes == ["-A/--output-append-mode has no effect without -o/--output"]


@pytest.mark.parametrize("argv", [["-i"], ["--instruction-pointer"], ["--instr"]])
def test_instruction_pointer_is_accepted(argv: list[str]) -> None:
    """-i: each line's instruction pointer, in the shape and the session's records; a
    help row says so, and no refused one names it."""
    a = parse_args([*argv, "true"])
    assert a.ips
    plan = build(a)
    assert plan.shape.instruction_pointer and plan.session.instruction_pointer
    assert not build(parse_args(["true"])).session.instruction_pointer
    assert [s for r, s, _ in OPTIONS if r.startswith("-i,")] == ["yes"]
    assert not any("-i" in r.split(", ") for r, s, _ in OPTIONS if s == "no")


@pytest.mark.parametrize(("upper", "lower"), [
    (["-e", "status=SUCCESSFUL"], ["-e", "status=successful"]),
    (["--decode-fds=PATH"], ["--decode-fds=path"]),
    (["-e", "quiet=ATTACH,Exit"], ["-e", "quiet=attach,exit"]),
    (["--decode-pids=COMM"], ["--decode-pids=comm"]),
])
def test_qualifier_words_in_any_case_as_strace(upper: list[str], lower: list[str]) -> None:
    """strace looks these words up without regard to case (find_arg_val); syscall names
    are not (``trace=CLOSE`` is an invalid system call there)."""
    assert build(parse_args([*upper, "true"])) == build(parse_args([*lower, "true"]))


def test_a_bad_word_is_said_as_given() -> None:
    with pytest.raises(UsageError, match=re.escape("invalid decode-pids 'Bogus'")):
        parse_args(["-e", "decode-pids=Bogus", "true"])
