"""Beauty map specs from tracefs formats (fixtures: 6.18 real, 6.19 reconstructed)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

import tracekit.session.capture as capture
from tracekit._events import CAP_ARGV, CAP_BUF, CAP_ENVP, CAP_FD, CAP_IOV, CAP_STR, CAP_STRUCT
from tracekit.decode.ops import KCMP_EPOLL_SLOT_SIZE
from tracekit.kernel.syscall_protos import shipped_args
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import Field, parse_format, syscall_args
from tracekit.session.capture import (
    ARGV_CAP,
    ARGV_ELEM_CAP,
    BUF_CAP,
    ENVP_BIG,
    ENVP_COUNT_CAP,
    ENVP_COUNT_ELEM,
    ENVP_SMALL,
    LEN_NONE,
    LEN_RET,
    SOCKADDR_CAP,
    SPEC_AT_EXIT,
    SPEC_COMPAT,
    STR_CAP,
    CapSpec,
    build_specs,
    build_specs32,
    pack_specs,
    specs_for,
)

TABLE = SyscallTable("x86_64")

# syscalls:sys_enter_connect as Linux 6.18 x86_64 prints it (captured on this machine);
# the 6.19 variant adds a user-memory field after the arguments, as the fixture README says
# 6.19 does for user pointers.
CONNECT_618 = """name: sys_enter_connect
ID: 2230
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;
\tfield:int fd;\toffset:16;\tsize:8;\tsigned:0;
\tfield:struct sockaddr * uservaddr;\toffset:24;\tsize:8;\tsigned:0;
\tfield:int addrlen;\toffset:32;\tsize:8;\tsigned:0;

print fmt: "fd: 0x%08lx, uservaddr: 0x%08lx, addrlen: 0x%08lx", ((unsigned long)(REC->fd)), \
((unsigned long)(REC->uservaddr)), ((unsigned long)(REC->addrlen))
"""
CONNECT_619 = CONNECT_618.replace(
    "\tfield:int addrlen;\toffset:32;\tsize:8;\tsigned:0;\n",
    "\tfield:int addrlen;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:__data_loc char[] __uservaddr_val;\toffset:40;\tsize:4;\tsigned:0;\n")


def _tree(fixtures: Path, tmp_path: Path, version: str, connect: str) -> Path:
    root = tmp_path / version
    shutil.copytree(fixtures / version, root)
    ev = root / "events" / "syscalls" / "sys_enter_connect"
    ev.mkdir(parents=True)
    (ev / "format").write_text(connect)
    return root


def test_specs_identical_on_618_and_619(shared_fixtures: Path, tmp_path: Path) -> None:
    fixtures = shared_fixtures / "tracefs"
    names = ["openat", "execve", "write", "connect"]
    old = build_specs(TABLE, _tree(fixtures, tmp_path, "6.18", CONNECT_618), names)
    new = build_specs(TABLE, _tree(fixtures, tmp_path, "6.19", CONNECT_619), names)
    # the 6.19 formats really do carry the extra fields (else this test proves nothing)
    fmt = (fixtures / "6.19/events/syscalls/sys_enter_openat/format").read_text()
    assert "__data_loc char[] __filename_val" in fmt
    assert old == new
    nr = TABLE.nr
    assert old == {
        nr("openat"): (CapSpec(1, CAP_STR, LEN_NONE, 0, STR_CAP, 0),),
        nr("execve"): (CapSpec(0, CAP_STR, LEN_NONE, 0, STR_CAP, 0),
                       CapSpec(1, CAP_ARGV, LEN_NONE, 0, ARGV_CAP, ARGV_ELEM_CAP),
                       # envp's pointer array, twice, to count it (/* N vars */)
                       CapSpec(2, CAP_STRUCT, LEN_NONE, 0, ENVP_BIG, ENVP_BIG),
                       CapSpec(2, CAP_STRUCT, LEN_NONE, 0, ENVP_SMALL, ENVP_SMALL),
                       # and walked, for a count when the array reads run off its mapping
                       CapSpec(2, CAP_ENVP, LEN_NONE, 0, ENVP_COUNT_CAP, ENVP_COUNT_ELEM)),
        nr("write"): (CapSpec(1, CAP_BUF, 2, 0, BUF_CAP, 0),),
        # the sockaddr, then the socket as the call found it and as it left it
        nr("connect"): (CapSpec(1, CAP_STRUCT, 2, 0, SOCKADDR_CAP, 0),
                        CapSpec(0, CAP_FD, LEN_NONE, 0, 0, 0),
                        CapSpec(0, CAP_FD, LEN_NONE, SPEC_AT_EXIT, 0, 0)),
    }


def _args(decls: list[tuple[str, str]]) -> list[Field]:
    return [Field(name, c_type, 16 + 8 * i, 8, False, False)
            for i, (c_type, name) in enumerate(decls)]


def test_string_args_by_name_and_type() -> None:
    # renameat2(int olddfd, const char *oldname, int newdfd, const char *newname, flags)
    args = _args([("int", "olddfd"), ("const char *", "oldname"), ("int", "newdfd"),
                  ("const char *", "newname"), ("unsigned int", "flags")])
    assert specs_for("renameat2", args).specs == (
        CapSpec(1, CAP_STR, LEN_NONE, 0, STR_CAP), CapSpec(3, CAP_STR, LEN_NONE, 0, STR_CAP))
    # sethostname(char *name, int len) is a buffer, not a C string: not guessed as one,
    # read as its len bytes (at most 64, __NEW_UTS_LEN)
    assert specs_for("sethostname", _args([("char *", "name"), ("int", "len")])).specs == (
        CapSpec(0, CAP_BUF, 1, 0, 64),)
    # a call without an override whose char * argument is not a known string: none
    assert specs_for("lookup_dcookie", _args([("u64", "cookie64"), ("char *", "buf"),
                                              ("size_t", "len")])).specs == ()


def test_override_reads_at_exit_and_reports_missing_args() -> None:
    read = _args([("unsigned int", "fd"), ("char *", "buf"), ("size_t", "count")])
    assert specs_for("read", read).specs == (
        CapSpec(1, CAP_BUF, LEN_RET, SPEC_AT_EXIT, BUF_CAP),)
    renamed = _args([("unsigned int", "fd"), ("const char *", "data"), ("size_t", "count")])
    res = specs_for("write", renamed)
    assert res.specs == () and res.missing == ("buf",)


def test_time_setters_read_their_times_at_entry() -> None:
    """utimes/futimesat: the path and struct timeval[2]; settimeofday: the timeval and
    struct timezone (argument names of Linux 6.18's formats)."""
    utimes = _args([("char *", "filename"), ("struct __kernel_old_timeval *", "utimes")])
    assert specs_for("utimes", utimes).specs == (
        CapSpec(0, CAP_STR, LEN_NONE, 0, STR_CAP), CapSpec(1, CAP_STRUCT, LEN_NONE, 0, 32, 32))
    futimesat = _args([("int", "dfd"), ("const char *", "filename"),
                       ("struct __kernel_old_timeval *", "utimes")])
    assert specs_for("futimesat", futimesat).specs == (
        CapSpec(1, CAP_STR, LEN_NONE, 0, STR_CAP), CapSpec(2, CAP_STRUCT, LEN_NONE, 0, 32, 32))
    settime = _args([("struct __kernel_old_timeval *", "tv"), ("struct timezone *", "tz")])
    assert specs_for("settimeofday", settime).specs == (
        CapSpec(0, CAP_STRUCT, LEN_NONE, 0, 16, 16), CapSpec(1, CAP_STRUCT, LEN_NONE, 0, 8, 8))


def test_three_full_strings_fit_the_record_budget() -> None:
    # a call of three full strings (no override): all three start within the budget
    three = _args([("char *", "dev_name"), ("char *", "dir_name"), ("char *", "type"),
                   ("unsigned long", "flags"), ("void *", "data")])
    assert [s.arg for s in specs_for("no_such_call", three).specs] == [0, 1, 2]
    # mount: its paths whole, its type and data as strace's printstr cuts them
    got = specs_for("mount", three).specs
    assert [(s.arg, s.kind, s.cap) for s in got] == [
        (0, CAP_STR, STR_CAP), (1, CAP_STR, STR_CAP), (2, CAP_STR, BUF_CAP), (4, CAP_STR, BUF_CAP)]


def test_pack_layout() -> None:
    raw = pack_specs([CapSpec(1, CAP_BUF, 2, SPEC_AT_EXIT, 256, 0)])
    assert len(raw) == 64
    assert struct.unpack_from("<BBBBHH", raw) == (1, CAP_BUF, 2, SPEC_AT_EXIT, 256, 0)
    assert raw[8:] == bytes(56)
    with pytest.raises(ValueError, match="at most 8"):
        pack_specs([CapSpec(0, CAP_STR)] * 9)


def test_6_19_extra_fields_are_not_arguments(shared_fixtures: Path) -> None:
    text = (shared_fixtures / "tracefs" / "6.19/events/syscalls/sys_enter_write/format").read_text()
    assert [f.name for f in syscall_args(parse_format(text))] == ["fd", "buf", "count"]


def test_i386_specs_capture_what_the_i386_decoders_read() -> None:
    """beauty32: strings, byte buffers and sockaddrs of the i386 calls, by i386 number;
    the structs of the same layout as the native call's native specs; the structs of
    another layout at their i386 size (stat64's 96 bytes); iovec arrays flagged
    SPEC_COMPAT (the BPF program reads 8-byte i386 iovecs); the old select as _newselect
    (the BPF program makes its record of the words its argument points to); send and
    recv (socketcall sub-calls) with sendto's and recvfrom's first four arguments' specs;
    argv (pointers the BPF program would read as 64-bit) is not captured."""
    i386 = SyscallTable("i386")
    got = {i386.name(nr): specs for nr, specs in build_specs32(i386).items()}
    assert got["open"] == (CapSpec(0, CAP_STR, LEN_NONE, 0, STR_CAP, 0),)
    assert got["write"] == (CapSpec(1, CAP_BUF, 2, 0, BUF_CAP, 0),)
    assert got["read"] == (CapSpec(1, CAP_BUF, LEN_RET, SPEC_AT_EXIT, BUF_CAP, 0),)
    assert got["stat64"] == (CapSpec(0, CAP_STR, LEN_NONE, 0, STR_CAP, 0),
                             CapSpec(1, CAP_STRUCT, LEN_NONE, SPEC_AT_EXIT, 96, 96))
    assert got["fstat64"] == (CapSpec(1, CAP_STRUCT, LEN_NONE, SPEC_AT_EXIT, 96, 96),)
    assert got["clock_gettime"] == (CapSpec(1, CAP_STRUCT, LEN_NONE, SPEC_AT_EXIT, 8, 8),)
    # the native call's: a 64-bit timespec in both ABIs
    assert got["clock_gettime64"] == (CapSpec(1, CAP_STRUCT, LEN_NONE, SPEC_AT_EXIT, 16, 16),)
    # the native call's: its sockaddr, and its fd described before and after (-yy)
    assert got["connect"] == (CapSpec(1, CAP_STRUCT, 2, 0, SOCKADDR_CAP, 0),
                              CapSpec(0, CAP_FD, LEN_NONE, 0, 0, 0),
                              CapSpec(0, CAP_FD, LEN_NONE, SPEC_AT_EXIT, 0, 0))
    assert got["socket"] == (CapSpec(0, CAP_FD, LEN_RET, SPEC_AT_EXIT, 0, 0),)
    assert got["execve"] == (CapSpec(0, CAP_STR, LEN_NONE, 0, STR_CAP, 0),)  # argv: no
    assert got["readv"] == (CapSpec(1, CAP_IOV, 2, SPEC_AT_EXIT | SPEC_COMPAT, 4096, 256),)
    assert got["pwritev2"] == (CapSpec(1, CAP_IOV, 2, SPEC_COMPAT, 4096, 256),)
    assert got["select"] == got["_newselect"]
    assert [s.arg for s in got["send"]] == [1, 0]                   # buf, the fd described
    assert got["send"][0] == CapSpec(1, CAP_BUF, 2, 0, BUF_CAP, 0)
    assert all(s.arg < 4 for s in got["recv"]) and got["recv"][0].len_arg == LEN_RET
    assert "accept" in got and i386.nr("accept") == 1005            # socketcall's only
    assert i386.nr("open") == 5 and 5 in build_specs32(i386)        # keyed by i386 nr


def test_delete_module_name_and_kcmp_epoll_slot() -> None:
    def got(name: str) -> list[tuple[int, int, int]]:
        args = shipped_args(name, "x86_64")
        assert args is not None
        return [(s.arg, s.kind, s.cap) for s in specs_for(name, args).specs]

    # strace prints delete_module's name as a string, cut at the string limit
    assert got("delete_module") == [(0, CAP_STR, STR_CAP)]
    # kcmp's idx2: KCMP_EPOLL_TFD's struct kcmp_epoll_slot, read at entry
    assert got("kcmp") == [(4, CAP_STRUCT, KCMP_EPOLL_SLOT_SIZE)]


def test_a_call_without_an_event_here_takes_the_shipped_prototype(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a kernel built without CONFIG_MODULES has no sys_enter_delete_module: the call still
    # has its number, and strace prints its name
    monkeypatch.setattr(capture, "syscall_args_lookup", lambda arch: lambda name: None)
    specs = build_specs(TABLE, None, names=["delete_module", "no_such_call"])
    nr = TABLE.nr("delete_module")
    assert nr is not None and list(specs) == [nr]
    assert [(s.arg, s.kind) for s in specs[nr]] == [(0, CAP_STR)]
