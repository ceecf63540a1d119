"""Decoders from hand-made records and captures: strings, buffers, argv, sockaddr,
timespec, return values, restart codes, i386 numbers, arguments a call does not have."""

from __future__ import annotations

import os
import socket
import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tracekit._events import (
    CAP_ARGV,
    CAP_BUF,
    CAP_ENVP,
    CAP_STR,
    CAP_STRUCT,
    CAPF_ARGV_TRUNC,
    CAPF_AT_EXIT,
    CAPF_FAULT,
    CAPF_TRUNC,
    SC_COMPAT,
    SC_NORETURN,
    SC_RESUMED,
    SC_UNFINISHED,
    Capture,
    Syscall,
)
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.decode.values import (
    eth_protocol,
    format_argv,
    format_sockaddr,
    format_timespec,
    quote,
)
from tracekit.kernel.syscalls import SyscallTable

X64 = SyscallTable("x86_64")
I386 = SyscallTable("i386")
AT_FDCWD = 2**64 - 100


def nr(name: str, table: SyscallTable = X64) -> int:
    got = table.nr(name)
    assert got is not None, name
    return got


def sc(name: str, args: tuple[int, ...] = (), ret: int = 0, *, caps: tuple[Capture, ...] = (),
       flags: int = 0, table: SyscallTable = X64, tgid: int = 4242) -> Syscall:
    return Syscall(ts_ns=1, duration_ns=1, tid=tgid, tgid=tgid, cpu=0,
                   syscall_nr=nr(name, table), args=(*args, *(0,) * (6 - len(args))),
                   ret=ret, comm="t", flags=flags, caps=caps)


@pytest.fixture
def dec(tmp_path: os.PathLike[str]) -> SyscallDecoder:
    # an empty fake /proc: every fd lookup is a miss that finds nothing
    return SyscallDecoder(X64, I386, fd_paths=True, fdcache=FdCache(str(tmp_path)))


@pytest.mark.parametrize(("data", "text"), [
    (b"/etc/passwd", '"/etc/passwd"'),
    (b"a\"b\\c", r'"a\"b\\c"'),
    (b"\t\n\r\v\f", r'"\t\n\r\v\f"'),
    (b"\x1b[31m", r'"\33[31m"'),
    (b"\x00\x01", r'"\0\1"'),
    (b"\x001", r'"\0001"'),                     # next byte an octal digit: three digits
    (b"\x008", r'"\08"'),                       # 8 is not an octal digit
    (b"\xc3\xa9", r'"\303\251"'),               # bytes >= 0x80 in octal (C locale)
    (b"\x7fELF\x02\x01\x01\x03\x00\x00", r'"\177ELF\2\1\1\3\0\0"'),
])
def test_quote_as_strace(data: bytes, text: str) -> None:
    assert quote(data) == text


def test_quote_limit_and_truncation_marks() -> None:
    assert quote(b"x" * 40, limit=32) == '"' + "x" * 32 + '"...'
    assert quote(b"x" * 32, limit=32) == '"' + "x" * 32 + '"'
    assert quote(b"abc", more=True) == '"abc"...'
    assert quote(b"\x50\xee", force_hex=True) == r'"\x50\xee"'


def test_argv_keeps_empty_strings_and_order_and_marks_cuts() -> None:
    assert format_argv(Capture(1, CAP_ARGV, 0, b"ls\0\0-l\0")) == '["ls", "", "-l"]'
    assert format_argv(Capture(1, CAP_ARGV, CAPF_ARGV_TRUNC, b"a\0b\0")) == '["a", "b", ...]'
    assert format_argv(Capture(1, CAP_ARGV, CAPF_TRUNC, b"a\0bcd")) == '["a", "bcd"...]'
    assert format_argv(Capture(1, CAP_ARGV, 0, b"")) == "[]"
    long = b"cat /etc/hostname | wc -c; ls -la / ; date\0"
    assert format_argv(Capture(1, CAP_ARGV, 0, long)) == '["cat /etc/hostname | wc -c; ls -l"...]'


def test_argv_element_cut_in_the_kernel_never_looks_whole() -> None:
    """A CAP_ENVP element longer than TK_ARGV_ELEM_MAX (kept as 1025 bytes) was cut:
    whatever -s allows, at most 1024 bytes show, with ``...``; 1024 bytes are whole."""
    whole, cut = b"w" * 1024, b"c" * 1025
    cap = Capture(1, CAP_ENVP, 0, whole + b"\0" + cut + b"\0" + b"s\0")
    assert format_argv(cap, limit=2000, max_items=None) == (
        f'["{"w" * 1024}", "{"c" * 1024}"..., "s"]')
    assert format_argv(cap, limit=None, max_items=None) == (
        f'["{"w" * 1024}", "{"c" * 1024}"..., "s"]')
    assert format_argv(cap, limit=10, max_items=None) == (
        f'["{"w" * 10}"..., "{"c" * 10}"..., "s"]')


def test_sockaddr_inet_unix_inet6_netlink() -> None:
    sin = struct.pack("<H", socket.AF_INET) + struct.pack(">H", 80) + bytes([127, 0, 0, 1])
    assert format_sockaddr(sin + bytes(8)) == \
        '{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}'
    sun = struct.pack("<H", socket.AF_UNIX) + b"/tmp/x\0"
    assert format_sockaddr(sun) == '{sa_family=AF_UNIX, sun_path="/tmp/x"}'
    abstract = struct.pack("<H", socket.AF_UNIX) + b"\0name"
    assert format_sockaddr(abstract) == '{sa_family=AF_UNIX, sun_path=@"name"}'
    sin6 = (struct.pack("<H", socket.AF_INET6) + struct.pack(">HI", 443, 0)
            + socket.inet_pton(socket.AF_INET6, "::1") + struct.pack("<I", 0))
    assert format_sockaddr(sin6) == (
        '{sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}')
    snl = struct.pack("<HHII", socket.AF_NETLINK, 0, 0, 0)
    assert format_sockaddr(snl) == "{sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}"


def test_sockaddr_edges_as_strace() -> None:
    sin = struct.pack("<H", socket.AF_INET) + struct.pack(">H", 0) + bytes([127, 0, 0, 1])
    # shorter than struct sockaddr_in: the bytes after the family; the family alone
    assert format_sockaddr(sin) == '{sa_family=AF_INET, sa_data="\\0\\0\\177\\0\\0\\1"}'
    assert format_sockaddr(sin[:2]) == "{sa_family=AF_INET}"
    assert format_sockaddr(struct.pack("<H", 250) + b"abc") == \
        '{sa_family=0xfa /* AF_??? */, sa_data="abc"}'
    nl = struct.pack("<HHII", socket.AF_NETLINK, 0, 1234, 5)
    assert format_sockaddr(nl) == "{sa_family=AF_NETLINK, nl_pid=1234, nl_groups=0x000005}"
    head = struct.pack("<H", socket.AF_INET6) + struct.pack(">HI", 1, 2)
    mapped = head + socket.inet_pton(socket.AF_INET6, "::ffff:127.0.0.1")
    # glibc's inet_ntop text; no sin6_scope_id in 24 bytes
    assert format_sockaddr(mapped) == (
        '{sa_family=AF_INET6, sin6_port=htons(1), sin6_flowinfo=htonl(2), '
        'inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr)}')
    ll = head + socket.inet_pton(socket.AF_INET6, "fe80::1")
    lo = socket.if_nametoindex("lo")
    assert format_sockaddr(ll + struct.pack("<I", lo)).endswith(
        'sin6_scope_id=if_nametoindex("lo")}')
    assert format_sockaddr(mapped + struct.pack("<I", lo)).endswith(f"sin6_scope_id={lo}}}")


def test_timespec() -> None:
    assert format_timespec(struct.pack("<qq", 1, 500)) == "{tv_sec=1, tv_nsec=500}"
    assert format_timespec(b"\0" * 8) is None
    # strace 6.1 prints tv_nsec unsigned, tv_sec signed
    assert format_timespec(struct.pack("<qq", -1, -5)) == (
        "{tv_sec=-1, tv_nsec=18446744073709551611}")


def test_openat_with_and_without_captured_path(dec: SyscallDecoder) -> None:
    ev = sc("openat", (AT_FDCWD, 0x7FFD1000, os.O_RDONLY | os.O_CLOEXEC), 3)
    d = dec.decode(ev)
    assert (d.name, d.args) == ("openat", ("AT_FDCWD", "0x7ffd1000", "O_RDONLY|O_CLOEXEC"))
    cap = Capture(1, CAP_STR, 0, b"/etc/passwd")
    d = dec.decode(sc("openat", ev.args, 3, caps=(cap,)))
    assert d.args[1] == '"/etc/passwd"'
    assert d.ret == "3</etc/passwd>"                # the open's own path, before readlink


def test_open_mode_only_with_creat_or_tmpfile(dec: SyscallDecoder) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    assert dec.decode(sc("openat", (AT_FDCWD, 1, flags, 0o644), 3)).args[3:] == ("0644",)
    assert dec.decode(sc("openat", (AT_FDCWD, 1, os.O_RDONLY, 0o644), 3)).args[3:] == ()
    assert dec.decode(sc("openat", (AT_FDCWD, 1, os.O_TMPFILE | os.O_RDWR, 0), 3)).args[3] \
        == "000"


def test_mknod_dev_only_for_devices(dec: SyscallDecoder) -> None:
    """strace 6.1: the dev of a character or block device (its low 32 bits), nothing for
    other types."""
    chr_mode = 0xDEAD0000 | 0o020600
    assert dec.decode(sc("mknod", (1, chr_mode, 0xDEADBEEF00000103))).args[1:] == (
        "S_IFCHR|0600", "makedev(0x1, 0x3)")
    assert dec.decode(sc("mknod", (1, 0o060600, 0x12310345))).args[2] == \
        "makedev(0x103, 0x12345)"
    assert dec.decode(sc("mknodat", (AT_FDCWD, 1, 0o010600, 5))).args[2:] == ("S_IFIFO|0600",)
    assert dec.decode(sc("mknod", (1, 0o644, 5))).args[1:] == ("0644",)


def test_string_capture_truncated_faulted_or_read_at_exit(dec: SyscallDecoder) -> None:
    long = Capture(1, CAP_STR, CAPF_TRUNC, b"/a" * 2048)
    assert dec.decode(sc("openat", (AT_FDCWD, 1, 0), -2, caps=(long,))).args[1] == \
        '"' + ("/a" * 2048)[:4095] + '"...'         # PATH_MAX - 1 bytes, the cut marked
    fault = Capture(1, CAP_STR, CAPF_FAULT, b"")
    assert dec.decode(sc("openat", (AT_FDCWD, 0x1000, 0), -14, caps=(fault,))).args[1] == \
        "0x1000"
    late = Capture(1, CAP_STR, CAPF_AT_EXIT, b"/late")
    assert dec.decode(sc("openat", (AT_FDCWD, 1, 0), -2, caps=(late,))).args[1] == '"/late"'


def test_read_and_write_buffers(dec: SyscallDecoder) -> None:
    data = b"\x7fELF" + b"\0" * 60
    got = dec.decode(sc("read", (3, 0x7FFD, 832), 64, caps=(Capture(1, CAP_BUF, 0, data),)))
    assert got.args == ("3", r'"\177ELF' + r"\0" * 28 + '"...', "832")
    failed = sc("read", (3, 0x7FFD, 832), -9, caps=(Capture(1, CAP_BUF, 0, b""),))
    assert dec.decode(failed).args[1] == "0x7ffd"
    w = sc("write", (1, 0x5000, 3), 3, caps=(Capture(1, CAP_BUF, 0, b"vm\n"),))
    assert dec.decode(w).args == ("1", r'"vm\n"', "3")
    dec.string_limit = 2
    assert dec.decode(w).args[1] == '"vm"...'


def test_execve_argv_and_envp(dec: SyscallDecoder) -> None:
    caps = (Capture(0, CAP_STR, 0, b"/bin/ls"), Capture(1, CAP_ARGV, 0, b"ls\0-l\0"),
            Capture(2, CAP_ARGV, 0, b"A=1\0B=2\0C=3\0"))
    d = dec.decode(sc("execve", (0x1000, 0x2000, 0x7FFC0000), 0, caps=caps))
    assert d.args == ('"/bin/ls"', '["ls", "-l"]', "0x7ffc0000 /* 3 vars */")
    assert d.ret == "0"


def test_connect_sockaddr_capture(dec: SyscallDecoder) -> None:
    sun = struct.pack("<H", socket.AF_UNIX) + b"/var/run/nscd/socket\0"
    d = dec.decode(sc("connect", (3, 0x1000, 110), -2,
                      caps=(Capture(1, CAP_STRUCT, 0, sun),)))
    assert d.args == ("3", '{sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}', "110")
    assert d.ret == "-1 ENOENT (No such file or directory)"


@pytest.mark.parametrize(("err", "text"), [
    (512, "? ERESTARTSYS (To be restarted if SA_RESTART is set)"),
    (513, "? ERESTARTNOINTR (To be restarted)"),
    (514, "? ERESTARTNOHAND (To be restarted if no handler)"),
    (516, "? ERESTART_RESTARTBLOCK (Interrupted by signal)"),
    (4, "-1 EINTR (Interrupted system call)"),
])
def test_restart_codes_named_as_strace(dec: SyscallDecoder, err: int, text: str) -> None:
    assert dec.decode(sc("read", (0, 1, 2), -err)).ret == text


def test_return_kinds(dec: SyscallDecoder) -> None:
    assert dec.decode(sc("mmap", (0, 4096, 3, 0x22, 2**64 - 1, 0), 0x7F0000)).ret == "0x7f0000"
    assert dec.decode(sc("brk", (0,), 0x5555000)).args == ("NULL",)
    assert dec.decode(sc("umask", (0o22,), 0o22)).ret == "022"
    assert dec.decode(sc("exit_group", (1,), 0, flags=SC_NORETURN)).ret == "?"
    assert dec.decode(sc("read", (0, 1, 2), 0, flags=SC_UNFINISHED)).ret == "?"
    resumed = dec.decode(sc("read", (), 5, flags=SC_RESUMED))
    assert (resumed.name, resumed.args, resumed.ret) == ("read", (), "5")


def test_args_the_call_does_not_have_are_not_printed(dec: SyscallDecoder) -> None:
    assert dec.decode(sc("close", (3, 99, 99))).args == ("3",)
    assert dec.decode(sc("getpid", (1, 2, 3), 7)).args == ()
    assert dec.decode(sc("fcntl", (1, 1, 77), 1)).args == ("1", "F_GETFD")
    assert dec.decode(sc("fcntl", (1, 0, 10), 11)).args == ("1", "F_DUPFD", "10")
    assert dec.decode(sc("fcntl", (3, 4, os.O_NONBLOCK | os.O_RDWR))).args[2] == \
        "O_RDWR|O_NONBLOCK"
    assert dec.decode(sc("futex", (0x7F00, 0x81, 2**31 - 1, 5, 6, 7), 0)).args == \
        ("0x7f00", "FUTEX_WAKE_PRIVATE", "2147483647")


def test_unlisted_syscall_uses_the_tracefs_argument_count(tmp_path: os.PathLike[str]) -> None:
    """A syscall newer than the shipped prototypes (listns, rseq_slice_yield): hex, as many
    arguments as tracefs says, else 6."""
    d = SyscallDecoder(X64, I386, arg_count=lambda name: 2 if name == "listns" else None)
    got = d.decode(sc("listns", (1, 0x20, 3, 4, 5), 0))
    assert got.args == ("0x1", "0x20")
    assert d.decode(sc("rseq_slice_yield", (0, 1), 0)).args == ("0", "0x1", "0", "0", "0",
                                                                 "0")
    # a syscall the shipped table describes prints by its C types whatever tracefs says
    assert d.decode(sc("setpriority", (1, 0x20, 3), 0)).args == ("PRIO_PGRP", "32", "3")


def test_clone_flags_and_named_arguments(dec: SyscallDecoder) -> None:
    flags = 0x1200000 | 17                        # CHILD_CLEARTID|CHILD_SETTID|SIGCHLD
    d = dec.decode(sc("clone", (flags, 0, 0, 0x7F00A10, 0), 1234))
    assert d.args == ("child_stack=NULL",
                      "flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD",
                      "child_tidptr=0x7f00a10")
    assert d.ret == "1234"


def test_i386_numbers_use_the_i386_table(dec: SyscallDecoder) -> None:
    # i386 5 is open (x86_64 5 is fstat); i386 192 is mmap2.
    ev = Syscall(1, 1, 7, 7, 0, 5, (0x8000, 0o1101, 0o600, 0, 0, 0), 3, "t", SC_COMPAT)
    d = dec.decode(ev)
    assert (d.name, d.args) == ("open", ("0x8000", "O_WRONLY|O_CREAT|O_TRUNC", "0600"))
    native = dec.decode(Syscall(1, 1, 7, 7, 0, 5, (3, 0x1000, 0, 0, 0, 0), 0, "t"))
    assert native.name == "fstat"
    m = dec.decode(Syscall(1, 1, 7, 7, 0, 192, (0, 4096, 3, 0x22, 0xFFFFFFFF, 0),
                           0xF7F00000, "t", SC_COMPAT))
    assert m.name == "mmap2" and m.args[4] == "-1" and m.ret == "0xf7f00000"


def test_unknown_numbers_are_named_and_counted(dec: SyscallDecoder) -> None:
    d = dec.decode(Syscall(1, 1, 7, 7, 0, 1000, (1, 0, 0, 0, 0, 0), -38, "t"))
    assert d.name == "syscall_0x3e8"                 # strace 6.1 spells it in hex
    assert d.ret == "-1 ENOSYS (Function not implemented)"
    assert dec.unknown_nr == 1


def _reference_quote(data: bytes) -> str:
    """strace's rule, byte by byte (the slow path quote() avoids when it can)."""
    named = {9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x22: '\\"', 0x5C: "\\\\"}
    out = []
    for i, b in enumerate(data):
        if b in named:
            out.append(named[b])
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        elif i + 1 < len(data) and 0x30 <= data[i + 1] <= 0x37:
            out.append(f"\\{b:03o}")
        else:
            out.append(f"\\{b:o}")
    return '"' + "".join(out) + '"'


def test_quote_fast_paths_agree_with_the_byte_rule() -> None:
    import random
    rnd = random.Random(4)
    alphabet = bytes([0, 1, 7, 9, 10, 27, 0x22, 0x30, 0x37, 0x38, 0x41, 0x5C, 0x7F, 0x80, 0xFF])
    for _ in range(2000):
        data = bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 12)))
        assert quote(data) == _reference_quote(data), data


def test_quote_of_text_with_few_escapes_agrees_with_the_byte_rule() -> None:
    """Long printable runs broken by escaped bytes, one in 16 or fewer (the run-by-run
    path), an escape often just before an octal digit or at either end."""
    import random
    rnd = random.Random(5)
    escaped = bytes([0, 1, 7, 9, 10, 13, 27, 0x22, 0x5C, 0x7F, 0x80, 0xFF])
    printable = b"abz019 78~!#$"
    for _ in range(500):
        n = rnd.randrange(16, 600)
        data = bytearray(rnd.choice(printable) for _ in range(n))
        for _ in range(rnd.randrange(1, n // 16 + 1)):
            data[rnd.randrange(n)] = rnd.choice(escaped)
        assert quote(bytes(data)) == _reference_quote(bytes(data)), bytes(data)
    assert quote(b"\x01" + b"0" * 40 + b"\x01") == '"\\001' + "0" * 40 + '\\1"'


def test_memoised_texts_follow_every_input(dec: SyscallDecoder) -> None:
    """The same captured bytes under another length, ret, cut flag or fd table give their
    own text: the memo is keyed by all of them (and stays bounded)."""
    data = b"0123456789" * 5
    read = [dec.decode(sc("read", (3, 0x7FFD, 64), r, caps=(Capture(1, CAP_BUF, f, data),)))
            for r, f in ((50, 0), (4, 0), (50, CAPF_TRUNC), (60, CAPF_TRUNC), (4, 0))]
    assert [d.args[1] for d in read] == [
        '"' + ("0123456789" * 4)[:32] + '"...', '"0123"', '"' + ("0123456789" * 4)[:32] + '"...',
        '"' + ("0123456789" * 4)[:32] + '"...', '"0123"']
    w = [dec.decode(sc("write", (1, 0x5000, n), n, caps=(Capture(1, CAP_BUF, 0, b"abcdef"),)))
         for n in (6, 2, 6)]
    assert [d.args[1] for d in w] == ['"abcdef"', '"ab"', '"abcdef"']
    cut = dec.decode(sc("openat", (AT_FDCWD, 1, 0), -2,
                        caps=(Capture(1, CAP_STR, CAPF_TRUNC, b"/etc/passwd"),)))
    assert cut.args[1] == '"/etc/passwd"...'
    opened = dec.decode(sc("openat", (AT_FDCWD, 1, 0), 3,
                           caps=(Capture(1, CAP_STR, 0, b"/etc/passwd"),)))
    assert opened.args[1] == '"/etc/passwd"' and opened.ret == "3</etc/passwd>"
    assert dec.decode(sc("close", (3,))).args == ("3</etc/passwd>",)
    assert dec.decode(sc("close", (3,))).args == ("3",)        # closed: the memo is not used
    dec.decode(sc("openat", (AT_FDCWD, 1, 0), 3, caps=(Capture(1, CAP_STR, 0, b"/tmp/b"),)))
    assert dec.decode(sc("fstat", (3, 0x10))).args[0] == "3</tmp/b>"
    for i in range(5000):
        dec.decode(sc("openat", (AT_FDCWD, 1, 0), -2, caps=(Capture(1, CAP_STR, 0, b"/%d" % i),)))
    assert len(dec.texts) <= 4096


def test_repeated_records_follow_the_fd_table(dec: SyscallDecoder) -> None:
    """A record decoded before comes back the same only while its fds keep their targets;
    the fd cache is updated and counted for every record as without the memo."""
    def opened(path: bytes) -> Syscall:
        return sc("openat", (AT_FDCWD, 0x10, 0), 3, caps=(Capture(1, CAP_STR, 0, path),))
    close = sc("close", (3,))
    read = sc("read", (3, 0x20, 8), 2, caps=(Capture(1, CAP_BUF, 0, b"hi"),))
    got = []
    for path in (b"/a", b"/a", b"/b", b"/a"):
        got += [dec.decode(opened(path)).ret, dec.decode(read).args[0], dec.decode(close).args[0]]
    assert got == ["3</a>", "3</a>", "3</a>"] * 2 + ["3</b>", "3</b>", "3</b>"] + \
        ["3</a>", "3</a>", "3</a>"]
    assert dec.decode(close).args == ("3",)               # closed: read from (empty) /proc
    assert dec.decode(close).args == ("3",)               # close forgot it: read again
    # one lookup per fd shown, and openat's AT_FDCWD<cwd> on the two memo hits of opened
    assert (dec.fdcache.misses, dec.fdcache.hits) == (2, 14)
    other = sc("read", (3, 0x20, 8), 2, caps=(Capture(1, CAP_BUF, 0, b"hi"),), tgid=77)
    assert dec.decode(other).args[0] == "3"               # another process: its own table
    dec.string_limit = 1
    assert dec.decode(read).args[1] == '"h"...'           # a new limit: decoded afresh


_SHARED_ARGS = ((AT_FDCWD, 0x10, 0, 0, 0, 0), (3, 0x20, 8, 0, 0, 0), (4, 0, 0, 0, 0, 0))
_SHARED_CAPS = ((), (Capture(1, CAP_STR, 0, b"/a"),), (Capture(1, CAP_STR, 0, b"/b"),),
                (Capture(1, CAP_BUF, 0, b"hi"),))
_SHARED_CALLS = ("openat", "read", "close", "dup", "fstat", "restart_syscall")


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.integers(0, len(_SHARED_CALLS) - 1),
                                st.integers(0, len(_SHARED_ARGS) - 1),
                                st.integers(0, len(_SHARED_CAPS) - 1),
                                st.sampled_from([0, 3, 4, -2, -9]),
                                st.sampled_from([0, SC_RESUMED, SC_UNFINISHED]),
                                st.sampled_from([4242, 4343])), max_size=60))
def test_records_sharing_their_argument_tuple_decode_as_each_alone(
        tmp_path: os.PathLike[str],
        picks: list[tuple[int, int, int, int, int, int]]) -> None:
    """Records that share one argument tuple object (as decode_batch's memo makes them)
    but differ in call, captures, return, flags or process: each decodes as a decoder
    without memos decodes it, after the same records."""
    memo = SyscallDecoder(X64, I386, fd_paths=True, fdcache=FdCache(str(tmp_path)))
    alone = SyscallDecoder(X64, I386, fd_paths=True, fdcache=FdCache(str(tmp_path)))
    for call, a, c, ret, flags, tgid in picks:
        ev = Syscall(ts_ns=1, duration_ns=1, tid=tgid, tgid=tgid, cpu=0,
                     syscall_nr=nr(_SHARED_CALLS[call]), args=_SHARED_ARGS[a], ret=ret,
                     comm="t", flags=flags, caps=_SHARED_CAPS[c])
        alone._forget_done()
        assert memo.decode(ev) == alone.decode(ev), ev


def test_sockaddr_packet_vsock_and_eth_protocol() -> None:
    lo = socket.if_nametoindex("lo")
    ll = struct.pack("<HHiHBB8s", socket.AF_PACKET, socket.htons(0x0800), lo, 1, 0, 6,
                     bytes([1, 2, 3, 4, 5, 6, 0, 0]))
    assert format_sockaddr(ll) == (
        '{sa_family=AF_PACKET, sll_protocol=htons(ETH_P_IP), sll_ifindex=if_nametoindex("lo"), '
        "sll_hatype=ARPHRD_ETHER, sll_pkttype=PACKET_HOST, sll_halen=6, "
        "sll_addr=[0x1, 0x2, 0x3, 0x4, 0x5, 0x6]}")
    vm = struct.pack("<HHIIB3x", socket.AF_VSOCK, 0, 0xFFFFFFFF, 1234, 0)
    assert format_sockaddr(vm) == \
        "{sa_family=AF_VSOCK, svm_cid=0x4d2, svm_port=VMADDR_PORT_ANY, svm_flags=0}"
    assert eth_protocol(0) == "htons(0 /* ETH_P_??? */)"
    assert eth_protocol(socket.htons(0x0800)) == "htons(ETH_P_IP)"


@settings(deadline=None, max_examples=200, derandomize=True, database=None)
@given(family=st.sampled_from([socket.AF_VSOCK, 42, 44, 45]),
       rest=st.binary(max_size=20))
def test_sockaddr_vsock_qrtr_xdp_mctp_of_any_bytes(family: int, rest: bytes) -> None:
    """struct sockaddr_vm, sockaddr_qrtr, sockaddr_xdp, sockaddr_mctp of any bytes and
    any addrlen: text, braces closed; shorter than the struct: sa_data."""
    data = struct.pack("<H", family) + rest
    text = format_sockaddr(data)
    assert text.startswith("{sa_family=") and text.endswith("}")
    size = {socket.AF_VSOCK: 16, 42: 12, 44: 16, 45: 12}[family]
    assert ("sa_data=" in text) == (2 < len(data) < size)


def test_sockaddr_qrtr_xdp_mctp_as_strace_prints_them() -> None:
    assert format_sockaddr(struct.pack("<HxxII", 42, 0, 0xFFFFFFFE)) == \
        "{sa_family=AF_QIPCRTR, sq_node=0, sq_port=QRTR_PORT_CTRL}"
    assert format_sockaddr(struct.pack("<HHIII", 44, 0xBAD0, 0, 0, 0xFEEDBEAD)) == (
        "{sa_family=AF_XDP, sxdp_flags=0xbad0 /* XDP_??? */, sxdp_ifindex=0, "
        "sxdp_queue_id=0, sxdp_shared_umem_fd=0xfeedbead}")
    assert format_sockaddr(struct.pack("<HHIBBBB", 45, 0, 0, 0, 0, 0, 0)) == (
        "{sa_family=AF_MCTP, smctp_network=MCTP_NET_ANY, smctp_addr={s_addr=MCTP_ADDR_NULL}, "
        "smctp_type=0, smctp_tag=0}")
