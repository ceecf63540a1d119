"""Flag words and constants from the generated tables, checked against the kernel's
header values (Python's os/socket/signal/mmap modules read the same headers at build
time) and against strace's output for the cases people have hit in other tracers."""

from __future__ import annotations

import mmap
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tracekit.decode import flags as F
from tracekit.kernel import flag_tables
from tracekit.kernel.arch import SUPPORTED

# Python's os/socket/signal constants are this machine's: compare with its tables.
T = flag_tables.for_arch()
REPO = Path(__file__).resolve().parents[2]


def test_o_rdonly_is_a_value_of_the_access_mode_field() -> None:
    assert F.open_flags(os.O_RDONLY) == "O_RDONLY"
    assert F.open_flags(os.O_RDONLY | os.O_CLOEXEC) == "O_RDONLY|O_CLOEXEC"
    assert F.open_flags(os.O_WRONLY | os.O_CREAT | os.O_TRUNC) == "O_WRONLY|O_CREAT|O_TRUNC"
    assert F.open_flags(os.O_RDWR) == "O_RDWR"
    assert F.open_flags(3) == "O_ACCMODE"        # both access bits: strace's name


def test_unknown_bits_are_printed_in_hex_after_the_names() -> None:
    assert F.open_flags(os.O_CLOEXEC | 0x40000000) == "O_RDONLY|O_CLOEXEC|0x40000000"
    assert F.prot(mmap.PROT_READ | 0x40) == "PROT_READ|0x40"
    assert F.clone_flags(0x1000000000 | 17) == "0x1000000000|SIGCHLD"
    assert F.at_flags(0x1) == "0x1 /* AT_??? */"          # no named bit: strace's default
    assert F.at_flags(0x201) == "AT_REMOVEDIR|0x1"


def test_multi_bit_names_before_their_parts() -> None:
    # O_SYNC is __O_SYNC|O_DSYNC; O_TMPFILE is __O_TMPFILE|O_DIRECTORY.
    assert F.open_flags(os.O_SYNC) == "O_RDONLY|O_SYNC"
    assert F.open_flags(os.O_DSYNC) == "O_RDONLY|O_DSYNC"
    assert F.open_flags(os.O_RDWR | os.O_TMPFILE) == "O_RDWR|O_TMPFILE"
    assert F.open_flags(os.O_DIRECTORY) == "O_RDONLY|O_DIRECTORY"


def test_mmap_type_is_a_field_and_huge_page_size_is_in_the_high_bits() -> None:
    shared_validate = 0x03
    assert F.mmap_flags(shared_validate) == "MAP_SHARED_VALIDATE"
    assert F.mmap_flags(mmap.MAP_SHARED) == "MAP_SHARED"
    assert F.mmap_flags(mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) == "MAP_PRIVATE|MAP_ANONYMOUS"
    huge_2mb = 21 << 26                           # log2(2 MiB) in bits 26..31
    hugetlb = 0x40000
    assert (F.mmap_flags(mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | hugetlb | huge_2mb)
            == "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT")   # as strace 6.1
    assert F.mmap_flags(mmap.MAP_PRIVATE | hugetlb | (27 << 26)) == \
        "MAP_PRIVATE|MAP_HUGETLB|27<<MAP_HUGE_SHIFT"
    assert F.mmap_flags(0xF) == "0xf /* MAP_??? */"      # a map type no header names
    assert F.mmap_flags(mmap.MAP_ANONYMOUS) == "MAP_FILE|MAP_ANONYMOUS"    # type 0


def test_clone_exit_signal_in_the_low_byte() -> None:
    clone_files = 0x400
    assert F.clone_flags(clone_files | signal.SIGCHLD) == "CLONE_FILES|SIGCHLD"
    assert F.clone_flags(signal.SIGCHLD) == "SIGCHLD"
    # CLONE_NEWTIME (0x80) is a clone3 flag; in clone() 0x80 is part of the signal byte.
    assert F.clone_flags(0x80 | clone_files) == "CLONE_FILES|128"
    assert F.clone3_flags(0x80) == "CLONE_NEWTIME"


def test_socket_type_field_then_flags_in_strace_order() -> None:
    t = socket.SOCK_STREAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK
    assert F.sock_type(t) == "SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK"
    assert F.sock_type(socket.SOCK_DGRAM) == "SOCK_DGRAM"
    assert F.sock_type(0xF) == "0xf /* SOCK_??? */"
    assert F.sock_type(1 | 0x40000) == "SOCK_STREAM|0x40000 /* SOCK_??? */"
    assert F.sock_type(0x9 | socket.SOCK_NONBLOCK) == "SOCK_NONBLOCK|0x9"   # strace 6.1
    assert F.sock_type(0x4399) == "0x4399 /* SOCK_??? */"
    assert F.sock_flags(4) == "0x4 /* SOCK_??? */"


@pytest.mark.parametrize(("value", "text"), [
    (0o644, "0644"), (0, "000"), (0o22, "022"), (0o7777, "07777"),
    (0xFFFF0600, "03000"), (0x12345, "021505"),     # umode_t: the low 16 bits
])
def test_mode_octal_as_strace(value: int, text: str) -> None:
    assert F.mode_octal(value) == text


def test_file_mode_with_type_and_special_bits() -> None:
    assert F.file_mode(0o100644) == "S_IFREG|0644"
    assert F.file_mode(0o020600 | 0o4000) == "S_IFCHR|S_ISUID|0600"
    assert F.file_mode(0o755) == "0755"
    assert F.file_mode(0x12340000 | 0o010600) == "S_IFIFO|0600"     # umode_t
    assert F.file_mode(0o170644) == "0170644"       # a type without a name: all in octal


def test_default_texts_of_words_without_a_known_bit() -> None:
    """strace 6.1 (checked on this machine): ``renameat2(..., 0x8 /* RENAME_?? */)``,
    ``access(..., 0x10 /* ?_OK */)``, ``dup3(..., 0x1 /* O_??? */)``, unlinkat's flags
    with every AT_* name."""
    assert F.rename_flags(0x8) == "0x8 /* RENAME_?? */"
    assert F.rename_flags(0xF) == "RENAME_NOREPLACE|RENAME_EXCHANGE|RENAME_WHITEOUT|0x8"
    assert F.access_mode(0x10) == "0x10 /* ?_OK */"
    assert F.access_mode(0x11) == "X_OK|0x10"
    assert F.pipe_flags(0x1) == "0x1 /* O_??? */"
    assert F.pipe_flags(os.O_CLOEXEC) == "O_CLOEXEC"
    assert F.unlinkat_flags(0x100) == "AT_SYMLINK_NOFOLLOW"
    assert F.unlinkat_flags(0x1) == "0x1 /* AT_??? */"


def test_signals_and_realtime_signals() -> None:
    for sig in signal.Signals:
        if sig.name.startswith("SIG") and not sig.name.startswith("SIGRT"):
            assert F.signal_name(sig.value) == sig.name
    assert F.signal_name(32) == "SIGRTMIN"
    assert F.signal_name(33) == "SIGRT_1"
    assert T.SIG_HANDLERS[0] == "SIG_DFL" and T.SIG_HANDLERS[1] == "SIG_IGN"


def test_futex_ops_with_private_and_clock_bits() -> None:
    assert F.futex_op(0x81) == "FUTEX_WAKE_PRIVATE"
    assert F.futex_op(0x80 | 0x100 | 9) == "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME"
    assert F.futex_op(0) == "FUTEX_WAIT"
    # strace 6.1's table: the clock bit only on the waits, FUTEX_FD's flag spelled out
    assert F.futex_op(0x101) == "0x101" and F.futex_op(0x183) == "0x183"
    assert F.futex_op(0x100) == "FUTEX_WAIT|FUTEX_CLOCK_REALTIME"
    assert F.futex_op(0x82) == "FUTEX_FD|FUTEX_PRIVATE_FLAG"
    assert F.futex_op(0x7e) == "0x7e"
    assert F.futex_op(0x7F) == "0x7f"


def test_access_modes_and_enums() -> None:
    assert F.access_mode(os.F_OK) == "F_OK"
    assert F.access_mode(os.R_OK | os.W_OK) == "R_OK|W_OK"
    assert F.enum(T.SEEK_WHENCE, os.SEEK_END) == "SEEK_END"
    assert F.enum(T.SIGPROCMASK_HOW, signal.SIG_SETMASK) == "SIG_SETMASK"
    assert F.enum(T.RLIMIT_RESOURCES, 3) == "RLIMIT_STACK"
    assert F.enum(T.ADDRESS_FAMILIES, socket.AF_UNIX) == "AF_UNIX"
    assert F.enum(T.ADDRESS_FAMILIES, socket.AF_NETLINK) == "AF_NETLINK"
    assert F.enum(T.MADV_ADVICE, 4) == "MADV_DONTNEED"
    assert F.enum(T.MADV_ADVICE, 999) == "999"
    assert F.enum(T.SEEK_WHENCE, 2**32 - 1) == "-1"
    assert F.wait_options(os.WNOHANG | 0x40000000) == "WNOHANG|__WALL"
    assert F.statx_flags(0x900) == "AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT"


def test_ioctl_requests() -> None:
    import termios
    assert F.ioctl_request(termios.TCGETS) == "TCGETS"
    assert F.ioctl_request(termios.TIOCGWINSZ) == "TIOCGWINSZ"
    assert F.ioctl_request(termios.FIONREAD) == "FIONREAD"
    assert F.ioctl_request(termios.FIOCLEX) == "FIOCLEX"
    assert F.ioctl_request(0xDEAD) == "0xdead"


def test_tables_agree_with_python_header_constants() -> None:
    names = {n: v for v, n in T.OPEN_FLAGS}
    for name in ("O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND", "O_NONBLOCK", "O_CLOEXEC",
                 "O_DIRECTORY", "O_NOFOLLOW", "O_PATH", "O_TMPFILE", "O_SYNC", "O_DSYNC"):
        assert names[name] == getattr(os, name), name
    prot = {n: v for v, n in T.PROT_FLAGS}
    assert prot["PROT_READ"] == mmap.PROT_READ and prot["PROT_EXEC"] == mmap.PROT_EXEC
    assert {n: v for v, n in T.SOCK_FLAGS}["SOCK_CLOEXEC"] == socket.SOCK_CLOEXEC
    assert F.AT_FDCWD == -100


@pytest.mark.parametrize("arch", SUPPORTED)
def test_generated_file_is_current(tmp_path: Path, arch: str) -> None:
    """The committed tables of each arch are what the generator makes from its headers."""
    r = subprocess.run([sys.executable, str(REPO / "scripts/gen_beauty_tables.py"),
                        "--arch", arch, "-o", str(tmp_path)],
                       capture_output=True, text=True, cwd=REPO)
    if r.returncode != 0 and "no compiler" in r.stderr:
        pytest.skip(f"generator cannot run here: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr
    body = lambda text: text.split('"""', 2)[2]  # noqa: E731 - skip the docstring (command)
    committed = REPO / "tracekit/kernel/flag_tables" / f"{arch}.py"
    assert body((tmp_path / f"{arch}.py").read_text()) == body(committed.read_text())


def test_ioctl_arg_kinds_are_current(tmp_path: Path) -> None:
    """The committed ioctl argument kinds of this arch are what strace 6.1 prints here
    (scripts/gen_ioctl_arg_kinds.py measures them; other arches' are kept)."""
    out = tmp_path / "ioctl_arg_kinds.py"
    r = subprocess.run([sys.executable, str(REPO / "scripts/gen_ioctl_arg_kinds.py"),
                        "-o", str(out)], capture_output=True, text=True, cwd=REPO)
    if r.returncode != 0 and ("not strace 6.1" in r.stderr or "on PATH" in r.stderr):
        pytest.skip(f"generator cannot run here: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr
    committed = REPO / "tracekit/kernel/flag_tables/ioctl_arg_kinds.py"
    assert out.read_text() == committed.read_text()


def test_a_flag_word_made_for_one_call_is_not_kept_for_the_style() -> None:
    # decoders make FlagSets for one call: the style's reset list must not keep them
    import gc

    from tracekit.decode import xstyle
    fl = F.for_arch("x86_64")
    before = len(xstyle._owners)
    for _ in range(100):
        assert F.FlagSet(fl.tables.SECCOMP_FILTER_FLAGS)(1) == "SECCOMP_FILTER_FLAG_TSYNC"
    gc.collect()
    assert len(xstyle._owners) == before
    kept = fl.open_flags
    assert kept(0o2000000) == "O_RDONLY|O_CLOEXEC"
    try:
        xstyle.set_style("verbose")         # a cached text is made again in the new style
        assert kept(0o2000000) == "0x80000 /* O_RDONLY|O_CLOEXEC */"
    finally:
        xstyle.set_style("abbrev")
    assert kept(0o2000000) == "O_RDONLY|O_CLOEXEC"


def test_clone3_flags_in_each_style() -> None:
    # as strace 6.1 prints a thread's clone3 (glibc pthread_create) under -X
    from tracekit.decode import xstyle
    fl = F.for_arch("x86_64")
    names = ("CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
             "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID")
    assert fl.clone3_flags(0x3D0F00) == names
    assert fl.clone3_flags(0x400000) == "0x400000 /* CLONE_??? */"
    try:
        xstyle.set_style("raw")
        assert fl.clone3_flags(0x3D0F00) == "0x3d0f00"
        assert fl.clone3_flags(0x400000) == "0x400000"
        xstyle.set_style("verbose")
        assert fl.clone3_flags(0x3D0F00) == f"0x3d0f00 /* {names} */"
    finally:
        xstyle.set_style("abbrev")
