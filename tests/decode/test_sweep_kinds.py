"""Flag words and constants of io_uring, fsconfig, perf_event_open, the kexec, module and
reboot calls, recvmmsg/sendmmsg flags and add_key's payload, through SyscallDecoder.

Expected texts are what strace 6.1 printed for the same values on this machine
(tests/e2e/test_strace_sweep_io.py compares against strace itself)."""

from __future__ import annotations

import struct

import pytest

from tests.decode._calls import args, call
from tracekit._events import CAP_BUF, CAP_STR, Capture, Syscall
from tracekit.decode.args import SyscallDecoder

HI = 0xDEADBEEF00000000
EINVAL, ENOSYS = -22, -38





@pytest.mark.parametrize(("name", "argv", "text"), [
    ("io_uring_enter", (0xFFFFFFFF, 1, 1, 1), "-1, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0"),
    ("io_uring_enter", (4, 0, 0, 0xFFFFFFFF),
     "4, 0, 0, IORING_ENTER_GETEVENTS|IORING_ENTER_SQ_WAKEUP|IORING_ENTER_SQ_WAIT|"
     "IORING_ENTER_EXT_ARG|IORING_ENTER_REGISTERED_RING|0xffffffe0, NULL, 0"),
    ("io_uring_enter", (4, 0, 0, 0x80000000), "4, 0, 0, 0x80000000 /* IORING_ENTER_??? */, "
     "NULL, 0"),
    ("io_uring_register", (0xFFFFFFFF, 0), "-1, IORING_REGISTER_BUFFERS, NULL, 0"),
    ("io_uring_register", (4, HI | 1), "4, IORING_UNREGISTER_BUFFERS, NULL, 0"),
    ("io_uring_register", (4, 0x17), "4, IORING_UNREGISTER_PBUF_RING, NULL, 0"),
    ("io_uring_register", (4, 0x18), "4, 0x18 /* IORING_REGISTER_??? */, NULL, 0"),
    ("fsconfig", (0xFFFFFFFF, 6), "-1, FSCONFIG_CMD_CREATE, NULL, NULL, 0"),
    ("fsconfig", (0xFFFFFFFF, 8), "-1, 0x8 /* FSCONFIG_??? */, NULL, NULL, 0"),
    ("perf_event_open", (0, 0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF),
     "NULL, 0, -1, -1, PERF_FLAG_FD_NO_GROUP|PERF_FLAG_FD_OUTPUT|PERF_FLAG_PID_CGROUP|"
     "PERF_FLAG_FD_CLOEXEC|0xfffffff0"),
    ("perf_event_open", (0, 0, 0, 0, 0x100), "NULL, 0, 0, 0, 0x100 /* PERF_FLAG_??? */"),
    ("kexec_load", (0, 0x10000, 0, 0), "NULL, 65536, NULL, KEXEC_ARCH_DEFAULT"),
    ("kexec_load", (0, 0x10000, 0, 0x280000), "NULL, 65536, NULL, KEXEC_ARCH_ARM"),
    ("kexec_load", (0, 0x10000, 0, 0xFFFFFFFF),
     "NULL, 65536, NULL, 0xffff0000 /* KEXEC_ARCH_??? */|KEXEC_ON_CRASH|"
     "KEXEC_PRESERVE_CONTEXT|0xfffc"),
    ("kexec_load", (0, 0x10000, 0, 0x3E0003),
     "NULL, 65536, NULL, KEXEC_ARCH_X86_64|KEXEC_ON_CRASH|KEXEC_PRESERVE_CONTEXT"),
    ("kexec_file_load", (0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0x80000000),
     "-1, -1, 0, NULL, 0x80000000 /* KEXEC_FILE_??? */"),
    ("kexec_file_load", (0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF),
     "-1, -1, 0, NULL, KEXEC_FILE_UNLOAD|KEXEC_FILE_ON_CRASH|KEXEC_FILE_NO_INITRAMFS|"
     "0xfffffff8"),
    ("reboot", (0xFEE1DEAD, 0x12345678, 0x89ABCDEF, 0),
     "LINUX_REBOOT_MAGIC1, 0x12345678 /* LINUX_REBOOT_MAGIC_??? */, LINUX_REBOOT_CMD_CAD_ON"),
    ("reboot", (0, 672274793, 0x12345678, 0),
     "0 /* LINUX_REBOOT_MAGIC_??? */, LINUX_REBOOT_MAGIC2, "
     "0x12345678 /* LINUX_REBOOT_CMD_??? */"),
    ("recvmmsg", (3, 0, 2, 0x10042, 0), "3, NULL, 2, MSG_PEEK|MSG_DONTWAIT|MSG_WAITFORONE, NULL"),
])
def test_constants_and_flag_words(dec: SyscallDecoder, name: str, argv: tuple[int, ...],
                                  text: str) -> None:
    assert args(dec, call(name, argv, EINVAL)) == text


def test_reboot_prints_the_restart2_string_only(dec: SyscallDecoder) -> None:
    caps = (Capture(3, CAP_STR, 0, b"x"),)
    ev = call("reboot", (0, 0, 0xA1B2C3D4, 0x1000), EINVAL, caps)
    assert args(dec, ev) == ('0 /* LINUX_REBOOT_MAGIC_??? */, 0 /* LINUX_REBOOT_MAGIC_??? */, '
                             'LINUX_REBOOT_CMD_RESTART2, "x"')


def test_fsconfig_key_and_value_follow_the_command(dec: SyscallDecoder) -> None:
    caps = (Capture(2, CAP_STR, 0, b"source"), Capture(3, CAP_STR, 0, b"none"))
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 1, 0x1000, 0x2000, 0), EINVAL, caps)) == (
        '-1, FSCONFIG_SET_STRING, "source", "none", 0')
    # FSCONFIG_SET_FLAG: the value is an address; the commands: the key too
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 0, 0x1000, 0x2000, 0), EINVAL, caps)) == (
        '-1, FSCONFIG_SET_FLAG, "source", 0x2000, 0')
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 6, 0x1000, 0, 0), EINVAL, caps)) == (
        "-1, FSCONFIG_CMD_CREATE, 0x1000, NULL, 0")


def test_add_key_payload_is_plen_bytes_and_a_null_buffer_is_null(
        dec: SyscallDecoder) -> None:
    caps = (Capture(0, CAP_STR, 0, b"user"), Capture(1, CAP_STR, 0, b"d"),
            Capture(2, CAP_BUF, 0, b"payload"))
    ev = call("add_key", (0x10, 0x20, 0x30, 7, 0xFFFFFFFE), 5, caps)
    assert args(dec, ev) == '"user", "d", "payload", 7, KEY_SPEC_PROCESS_KEYRING'
    # getrandom(NULL, 0, 0) = 0: NULL, not an empty string
    assert args(dec, call("getrandom", (0, 0, 0), 0, (Capture(0, CAP_BUF, 0, b""),))) == (
        "NULL, 0, 0")


def test_keyctl_buffers_permissions_and_search(dec: SyscallDecoder) -> None:
    key = 122021228
    desc = Capture(2, CAP_BUF, 0, bytes(32))
    zeros = "\\0" * 31        # 32 bytes written, the last (a NUL) left out
    assert args(dec, call("keyctl", (6, key, 0x1000, 32), 33, (desc,))) == (
        f'KEYCTL_DESCRIBE, {key}, "{zeros}", 32')
    payload = Capture(2, CAP_BUF, 0, b"payload")
    assert args(dec, call("keyctl", (11, key, 0x1000, 32), 7, (payload,))) == (
        f'KEYCTL_READ, {key}, "payload", 32')
    assert args(dec, call("keyctl", (11, key, 0x1000, 32), -13, (payload,))) == (
        f"KEYCTL_READ, {key}, 0x1000, 32")
    assert args(dec, call("keyctl", (17, key, 0x1000, 32), 1,
                          (Capture(2, CAP_BUF, 0, b"\0"),))) == (
        f'KEYCTL_GET_SECURITY, {key}, "", 32')
    assert args(dec, call("keyctl", (5, key, 0x3F010000))) == (
        f"KEYCTL_SETPERM, {key}, KEY_POS_VIEW|KEY_POS_READ|KEY_POS_WRITE|KEY_POS_SEARCH|"
        "KEY_POS_LINK|KEY_POS_SETATTR|KEY_USR_VIEW")
    assert args(dec, call("keyctl", (5, key, 0xC0000000))) == (
        f"KEYCTL_SETPERM, {key}, 0xc0000000 /* KEY_??? */")
    strs = (Capture(2, CAP_STR, 0, b"user"), Capture(3, CAP_STR, 0, b"tracekit:sweep"))
    assert args(dec, call("keyctl", (10, 0xFFFFFFFE, 0x10, 0x20, 0), key, strs)) == (
        'KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, "user", "tracekit:sweep", 0')


def test_ioctl_inode_flags_and_block_requests(dec: SyscallDecoder) -> None:
    flags = Capture(2, CAP_BUF, 0, (0x80000).to_bytes(4, "little"))
    assert args(dec, call("ioctl", (3, 0x80086601, 0x1000), 0, (flags,))) == (
        "3, FS_IOC_GETFLAGS, [FS_EXTENT_FL]")
    assert args(dec, call("ioctl", (3, 0x80081272, 0), -25)) == "3, BLKGETSIZE64, NULL"
    assert args(dec, call("ioctl", (3, 0x1268, 0x1000), -25)) == "3, BLKSSZGET, 0x1000"
    assert args(dec, call("ioctl", (3, 2, 0x1000))) == "3, FIGETBSZ, 0x1000"


def test_retired_calls_have_strace_names_and_arguments(dec: SyscallDecoder) -> None:
    caps = (Capture(0, CAP_STR, 0, b"nonexistent"),)
    for name, argv, text in (
            ("uselib", (0x1000,), '"nonexistent"'),
            ("vserver", (1, 2, 3, 4, 5), "0x1, 0x2, 0x3, 0x4, 0x5"),
            ("create_module", (0x1000, 0), "0x1000, 0"),
            ("lookup_dcookie", (1, 2, 3), "1, 0x2, 3")):
        out = dec.decode(call(name, argv, ENOSYS, caps))
        assert (out.name, ", ".join(out.args)) == (name, text)


def test_restart_syscall_names_the_call_it_resumes(dec: SyscallDecoder) -> None:
    first = dec.decode(call("restart_syscall", (), -4))
    assert first.args == ("<... resuming interrupted call ...>",)
    dec.decode(call("nanosleep", (0x1000, 0x2000), -516))
    other = call("getpid", ())
    dec.decode(Syscall(ts_ns=1, duration_ns=1, tid=2, tgid=2, cpu=0,
                       syscall_nr=other.syscall_nr, args=other.args, ret=2, comm="t"))
    again = dec.decode(call("restart_syscall", (), 0))
    assert (again.args, again.ret) == (("<... resuming interrupted nanosleep ...>",), "0")


def test_landlock_rule_and_ruleset_attrs(dec: SyscallDecoder) -> None:
    rule = Capture(2, CAP_STR, 0, struct.pack("<Qi", (1 << 14) - 1 | 1 << 40, 0))
    # (a struct capture's kind does not matter to the decoder: it reads the bytes)
    assert args(dec, call("landlock_add_rule", (0xFFFFFFFF, 1, 0x1000, 0), -9, (rule,))) == (
        "-1, LANDLOCK_RULE_PATH_BENEATH, {allowed_access=LANDLOCK_ACCESS_FS_EXECUTE|"
        "LANDLOCK_ACCESS_FS_WRITE_FILE|LANDLOCK_ACCESS_FS_READ_FILE|LANDLOCK_ACCESS_FS_READ_DIR|"
        "LANDLOCK_ACCESS_FS_REMOVE_DIR|LANDLOCK_ACCESS_FS_REMOVE_FILE|"
        "LANDLOCK_ACCESS_FS_MAKE_CHAR|LANDLOCK_ACCESS_FS_MAKE_DIR|LANDLOCK_ACCESS_FS_MAKE_REG|"
        "LANDLOCK_ACCESS_FS_MAKE_SOCK|LANDLOCK_ACCESS_FS_MAKE_FIFO|"
        "LANDLOCK_ACCESS_FS_MAKE_BLOCK|LANDLOCK_ACCESS_FS_MAKE_SYM|LANDLOCK_ACCESS_FS_REFER|"
        "0x10000000000, parent_fd=0}, 0")
    assert args(dec, call("landlock_add_rule", (0xFFFFFFFF, 2, 0x1000, 0), -22, (rule,))) == (
        "-1, 0x2 /* LANDLOCK_RULE_??? */, 0x1000, 0")
    ruleset = (Capture(0, CAP_STR, 0, struct.pack("<Q", 3)),)
    tail = "0x10 /* LANDLOCK_CREATE_RULESET_??? */"
    for size, text in ((8, "{handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|"
                           "LANDLOCK_ACCESS_FS_WRITE_FILE}"),
                       (16, "{handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE|"
                            "LANDLOCK_ACCESS_FS_WRITE_FILE, ...}"),
                       (4, "0x1000")):
        ev = call("landlock_create_ruleset", (0x1000, size, 0x10), -22, ruleset)
        assert args(dec, ev) == f"{text}, {size}, {tail}"


def test_keyctl_payloads_capabilities_reject_and_move(dec: SyscallDecoder) -> None:
    key = 159991048
    payload = (Capture(2, CAP_BUF, 0, b"q\0r"),)
    assert args(dec, call("keyctl", (2, key, 0x1000, 3), 0, payload)) == (
        f'KEYCTL_UPDATE, {key}, "q\\0r", 3')
    caps = (Capture(1, CAP_BUF, 0, bytes([0xEB, 0x03])),)
    assert args(dec, call("keyctl", (31, 0x1000, 2), 2, caps)) == (
        "KEYCTL_CAPABILITIES, [KEYCTL_CAPS0_CAPABILITIES|KEYCTL_CAPS0_PERSISTENT_KEYRINGS|"
        "KEYCTL_CAPS0_PUBLIC_KEY|KEYCTL_CAPS0_INVALIDATE|KEYCTL_CAPS0_RESTRICT_KEYRING|"
        "KEYCTL_CAPS0_MOVE, KEYCTL_CAPS1_NS_KEYRING_NAME|KEYCTL_CAPS1_NS_KEY_TAG], 2")
    assert args(dec, call("keyctl", (19, key, 10, 128, 0xFFFFFFFE), -1)) == (
        f"KEYCTL_REJECT, {key}, 10, EKEYREVOKED, KEY_SPEC_PROCESS_KEYRING")
    assert args(dec, call("keyctl", (30, key, 0xFFFFFFFE, 0xFFFFFF9C, 1), -22)) == (
        f"KEYCTL_MOVE, {key}, KEY_SPEC_PROCESS_KEYRING, -100, KEYCTL_MOVE_EXCL")


def test_fsconfig_path_binary_and_fd_commands(dec: SyscallDecoder) -> None:
    caps = (Capture(2, CAP_STR, 0, b"k"), Capture(3, CAP_STR, 0, b"a"),
            Capture(3, CAP_BUF, 0, b"a\0c"))
    at_fdcwd = 0xFFFFFF9C
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 3, 1, 2, at_fdcwd), EINVAL, caps)) == (
        '-1, FSCONFIG_SET_PATH, "k", "a", AT_FDCWD')
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 2, 1, 2, 3), EINVAL, caps)) == (
        '-1, FSCONFIG_SET_BINARY, "k", "\\x61\\x00\\x63", 3')
    assert args(dec, call("fsconfig", (0xFFFFFFFF, 5, 1, 2, 0), EINVAL, caps)) == (
        '-1, FSCONFIG_SET_FD, "k", 0x2, 0')
