"""The selection options (-e, -z, -Z, -P, -G) -> pipeline-file keys, and those keys in a
pipeline file: parsing, strace's combination rules, and the one-line errors that name the
option or the file position. No kernel: nothing here loads a BPF program."""

from __future__ import annotations

import argparse
import errno
import json
import textwrap

import msgspec
import pytest

from tracekit._errors import ConfigError
from tracekit.app.cli import main
from tracekit.app.config import decode_config
from tracekit.app.selection import (
    add_cgroup_option,
    add_selection_options,
    check_format_keys,
    parse_expr,
    selection_keys,
    session_selection,
)
from tracekit.kernel.cgroup import cgroup2_mounts


def keys(*argv: str) -> dict:
    p = argparse.ArgumentParser()
    add_selection_options(p)
    add_cgroup_option(p)
    return selection_keys(p.parse_args(list(argv)))


def cfg(text: str):
    return decode_config(textwrap.dedent(text), filename="p.toml")


@pytest.mark.parametrize(("expr", "key", "items"), [
    ("open,close", "syscalls", ["open", "close"]),
    ("trace=%file", "syscalls", ["%file"]),
    ("t=read", "syscalls", ["read"]),
    ("trace=!%net,read", "syscalls", ["!%net", "!read"]),     # strace: the list negated
    ("trace=%file,!openat", "syscalls", ["%file", "!openat"]),  # tracekit: one item removed
    ("trace=?open,/^exec", "syscalls", ["?open", "/^exec"]),
    ("status=failed,unfinished", "status", ["failed", "unfinished"]),
    ("status=!failed", "status", ["successful", "unfinished", "unavailable", "detached"]),
    ("status=all", "status", ["successful", "failed", "unfinished", "unavailable",
                              "detached"]),
    ("signal=SIGUSR1,USR2", "signal", ["SIGUSR1", "USR2"]),
    ("signals=!SIGCHLD", "signal", ["!SIGCHLD"]),
    ("s=none", "signal", ["none"]),
    ("errno=ENOENT,EACCES", "errno", ["ENOENT", "EACCES"]),
])
def test_parse_expr(expr: str, key: str, items: list[str]) -> None:
    assert parse_expr(expr) == (key, items)


@pytest.mark.parametrize(("argv", "message"), [
    (["-e", "trace=read,!read"], r"^-e trace=read,!read: the syscall selection read, !read "
                                 r"selects no syscall on x86_64; to trace no syscall, say none$"),
    (["-e", "opnat"], r"^-e opnat: unknown syscall 'opnat' on x86_64 \(did you mean 'openat'"),
    (["-e", "trace="], r"^-e trace=: empty trace list"),
    (["-e", "trace=read,,write"], r"^-e trace=read,,write: empty trace list"),
    (["-e", "trace=!read,!write"], r"^-e trace=!read,!write: the leading '!' negates the "
                                   r"whole list; drop the '!' inside it$"),
    (["-e", "status=fialed"], r"^-e status=fialed: unknown status 'fialed' \(did you mean "
                              r"'failed'\?\); known: successful, failed, unfinished, "
                              r"unavailable, detached$"),
    (["-e", "status=unavailable"], r"^-e status=unavailable: status unavailable selects no "
                                   r"call tracekit can record \(it reads every return value "
                                   r"at sys_exit, so no call is unavailable\)$"),
    (["-e", "signal=SIGFOO"], r"^-e signal=SIGFOO: unknown signal 'SIGFOO'"),
    (["-e", "errno=ENOENTT"], r"^-e errno=ENOENTT: unknown errno 'ENOENTT' \(did you mean"),
    (["-e", "abbrev=none"], r"^-e abbrev=none: tracekit has no abbrev= qualifier \(it has "
                            r"trace=, status=, signal=, errno=\)$"),
    (["-e", "tarce=read"], r"^-e tarce=read: unknown qualifier 'tarce'"),
    (["--expr", "trace=nosuch"], r"^--expr trace=nosuch: unknown syscall 'nosuch'"),
    (["-P", ""], r"^-P '': give a non-empty path$"),
    (["-G", ""], r"^-G: give a cgroup v2 directory"),
])
def test_option_errors_name_the_option(argv: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        keys(*argv)


def test_later_expression_of_a_qualifier_replaces_earlier_one() -> None:
    # strace: "-e trace=openat -e trace=close" traces close only; other qualifiers combine
    assert keys("-e", "trace=openat", "-e", "status=failed", "-e", "trace=close") == {
        "filter": {"syscalls": ["close"], "status": ["failed"]}}


@pytest.mark.parametrize("expr", ["status=none", "status=!all"])
def test_status_none_records_no_call(expr: str) -> None:
    """strace's status=none (or !all): no call is printed, signals and exits are; the
    kernel is told to record no outcome."""
    assert keys("-e", expr) == {"filter": {"status": ["none"]}}
    got = session_selection(cfg('[target]\ncommand = ["true"]\n[filter]\n'
                                'status = ["none"]\n').filter, None)
    assert got["status"] == frozenset()


def test_z_and_Z_are_status_expressions_the_last_wins() -> None:
    assert keys("-z") == {"filter": {"status": ["successful"]}}
    assert keys("-z", "-Z") == {"filter": {"status": ["failed"]}}
    assert keys("-Z", "-e", "status=unfinished") == {"filter": {"status": ["unfinished"]}}
    assert keys("-e", "status=unfinished", "-z") == {"filter": {"status": ["successful"]}}


def test_paths_and_cgroup() -> None:
    mounts = cgroup2_mounts()
    if not mounts:
        pytest.skip("no cgroup2 mount here")
    root = mounts[0][0]
    assert keys("-P", "/etc/passwd", "--path", "/tmp/x", "-G", root) == {
        "filter": {"path": ["/etc/passwd", "/tmp/x"]}, "target": {"cgroup": root}}
    assert keys() == {}


def test_session_selection_errno_implies_failed_unless_status_says_more() -> None:
    base = '[target]\ncommand = ["true"]\n[filter]\n'
    got = session_selection(cfg(base + 'errno = ["ENOENT", 13]\n').filter, None)
    assert got == {"status": frozenset({"failed"}), "errnos": {errno.ENOENT, errno.EACCES},
                   "signals": None, "cgroup": None}
    got = session_selection(cfg(base + 'errno = ["ENOENT"]\nstatus = ["failed", "successful"]'
                                       '\n').filter, None)
    assert got["status"] == {"failed", "successful"} and got["errnos"] == {errno.ENOENT}
    got = session_selection(cfg(base + 'status = ["unfinished", "detached"]\nsignal = '
                                       '["!SIGCHLD"]\n').filter, None)
    assert got["status"] == {"unfinished", "detached"}
    assert got["signals"] == set(range(1, 65)) - {17}
    got = session_selection(cfg(base + 'failed_only = true\n').filter, None)
    assert got["status"] == {"failed"}


@pytest.mark.parametrize(("body", "message"), [
    ('[filter]\nsyscalls = ["read", "!read"]\n', r"^p.toml:5:12: the syscall selection read, "
                                                 r"!read selects no syscall"),
    ('[filter]\nstatus = ["failed", "nope"]\n', r"^p.toml:5:21: invalid value 'nope' for "
                                                r"filter.status\[1\]"),
    ('[filter]\nstatus = ["unavailable"]\n', r"^p.toml:5:10: status unavailable selects no "
                                             r"call tracekit can record"),
    ('[filter]\nfailed_only = true\nstatus = ["successful"]\n',
     r"^p.toml:4:1: failed_only = true and status = \['successful'\] select no call"),
    ('[filter]\nerrno = ["ENOENT", "EFOO"]\n', r"^p.toml:5:20: unknown errno 'EFOO'"),
    ('[filter]\nsignal = [99]\n', r"^p.toml:5:11: signal number 99 is out of range"),
    ('[filter]\npath = [""]\n', r"^p.toml:5:9: filter.path\[0\] must be a non-empty path$"),
])
def test_file_keys_are_checked_where_they_are(body: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cfg('# a trace\n[target]\ncommand = ["true"]\n' + body)


def test_a_cgroup_that_is_not_one() -> None:
    with pytest.raises(ConfigError, match=r"^-G /nonexistent/cg: cgroup '/nonexistent/cg': "
                       r"No such file or directory \(ENOENT\)$"):
        keys("-G", "/nonexistent/cg")
    with pytest.raises(ConfigError, match=r"^p.toml:3:10: cgroup '/proc' is not a cgroup v2 "
                       r"directory \(cgroup2 mounts: "):
        cfg('[target]\n# the proc filesystem\ncgroup = "/proc"\n')


def test_two_targets_with_cgroup() -> None:
    with pytest.raises(ConfigError, match=r"^p.toml:3:1: \[target\] needs exactly one of "
                       r"command, pid, tid, system_wide, cgroup; got command and cgroup"):
        cfg('[target]\ncommand = ["true"]\ncgroup = "/sys/fs/cgroup/unified"\n')


@pytest.mark.parametrize(("body", "key", "value", "message"), [
    ('[output]\nformat = "summary"\n', "signal", ["SIGUSR1"],
     r'\[filter\] signal \(-e signal=\) selects signal lines, which format = "summary" '
     r"does not print; drop it or choose another format$"),
    ('[output]\nformat = "summary"\nmode = "kernel"\n', "path", ["/etc/passwd"],
     r'\[filter\] path \(-P\) needs the calls in user space: with format = "summary" use '
     r'mode = "stream" or "auto", not "kernel"$'),
])
def test_keys_the_format_would_ignore(body: str, key: str, value: list[str],
                                      message: str) -> None:
    base = '[target]\ncommand = ["true"]\n'
    where = {"signal": "p.toml:4:10", "path": "p.toml:4:8"}[key]
    with pytest.raises(ConfigError, match=f"^{where}: " + message):     # in the file
        cfg(base + f"[filter]\n{key} = {json.dumps(value)}\n" + body)
    valid = cfg(base + body)                       # set by an option (-e signal=, -P)
    check_format_keys(valid)
    overridden = msgspec.structs.replace(
        valid, filter=msgspec.structs.replace(valid.filter, **{key: value}))
    with pytest.raises(ConfigError, match="^" + message):
        check_format_keys(overridden)
    check_format_keys(cfg(base + f"[filter]\n{key} = {json.dumps(value)}\n"))  # perf: fine


def test_the_cli_refuses_with_status_2(tmp_path, capsys) -> None:
    p = tmp_path / "p.toml"
    p.write_text('[target]\ncommand = ["true"]\n')
    assert main(["run", str(p), "-e", "trace=read,!read", "--", "true"]) == 2
    assert capsys.readouterr().err == (
        "tracekit: error: -e trace=read,!read: the syscall selection read, !read selects no "
        "syscall on x86_64; to trace no syscall, say none\n")
    mounts = cgroup2_mounts()
    if not mounts:
        return
    assert main(["run", str(p), "-G", mounts[0][0], "--", "true"]) == 2
    assert capsys.readouterr().err == (
        "tracekit: error: give one target: got -- COMMAND and -G; keep one\n")

