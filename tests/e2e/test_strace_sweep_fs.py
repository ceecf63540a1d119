"""File system, xattr and credential calls as strace 6.1 prints them, against strace on
ONE run.

tests/workloads/sweep_fs.c makes each call with normal arguments, NULL and invalid
pointers, unknown flag bits, garbage in the high half of an int's register and -1 fds
(truncate/ftruncate, getdents, fchdir, rename/renameat/renameat2, mkdir/mkdirat/rmdir,
creat, link/linkat, symlinkat, unlinkat, readlinkat, chmod/fchmod/fchmodat, the chown
calls, umask, mknod/mknodat, utime, faccessat, openat2, dup/dup2/dup3, the sync calls,
readahead, fadvise64, the 12 xattr calls, chroot, quotactl, the uid/gid calls,
setgroups, capget/capset, getcwd, statfs), and lengths at the edges of what strace
shows (an xattr value past XATTR_SIZE_MAX or with a NUL as its 32nd byte, the bytes past
a larger struct open_how). tracekit traces ``strace -f -o FILE
sweep_fs``, so both see the same calls: every line of the program must be equal.

Under ``-yy`` too, but for the fd open_by_handle_at makes (which file it is, tracekit
reads from /proc when the record arrives: closed by then, its close is undecorated).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_lines_but_gaps, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def _user_xattrs(directory: Path) -> bool:
    """The file system of ``directory`` takes user.* extended attributes (tmpfs before
    Linux 6.6 and some overlays do not: the xattr calls then fail alike in both)."""
    probe = directory / "xattr-probe"
    probe.touch()
    try:
        os.setxattr(probe, "user.probe", b"1")
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EPERM):
            return False
        raise
    finally:
        probe.unlink()
    return True


def test_fs_calls_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "sweep_fs"), tmp_path)
    xattrs = _user_xattrs(tmp_path)
    text = "\n".join(s_lines)
    for want in (
            "chown(NULL, 4294901760, 4294967294) = -1 EFAULT",
            "fchown(-1, 4294901760, 0) = -1 EBADF",
            "{handle_bytes=0 => 8}", "AT_EMPTY_PATH|0x10000) = -1 EINVAL",
            'handle_type=-5, f_handle="\\x41\\x41', '"...}, O_RDONLY|O_DIRECTORY) = -1 EINVAL',
            "open_by_handle_at(-100, 0x1, O_RDONLY) = -1 EFAULT",
            ", QCMD(Q_GETQUOTA, GRPQUOTA), 1000, 0x", "QCMD(0xde /* Q_??? */, 0xad /* ???QUOTA */)",
            "quotactl_fd(-1, QCMD(Q_GETQUOTA, USRQUOTA), 7, 0x1) = -1 EBADF",
            "propagation=MS_SHARED, userns_fd=18446744073709551615}, 32) = -1 EBADF",
            '/* bytes 32..47 */ "\\x00', "MOUNT_ATTR_IDMAP|MOUNT_ATTR_NOSYMFOLLOW|0x40, ",
            'mount_setattr(-1, "missing", 0, 0x', "{attr_set=0x400 /* MOUNT_ATTR_??? */, ",
            "mkdirat(AT_FDCWD, \"d4\", 000) = 0", "mkdirat(-1, 0x1, 0700) = -1 EFAULT",
            "creat(\"d/x\", 07777) = ", "truncate(\"c\", 18446744073709551615) = -1 EINVAL",
            "AT_FDCWD, \"l3\", AT_EMPTY_PATH|0x10000) = -1 EINVAL",
            "symlinkat(\"target\\tnot\\nthere\", AT_FDCWD, \"s2\") = 0",
            "readlinkat(AT_FDCWD, \"s2\", \"targ\", 4) = 4",
            "unlinkat(AT_FDCWD, \"l3\", AT_SYMLINK_NOFOLLOW) = -1 EINVAL",
            "\"l2\", RENAME_NOREPLACE|RENAME_EXCHANGE) = -1 EINVAL",
            "RENAME_NOREPLACE|RENAME_EXCHANGE|RENAME_WHITEOUT|0xdeadbee8) = -1 EINVAL",
            "\"l7\", 0x8 /* RENAME_?? */) = -1 EINVAL",
            "chmod(\"c\", 0100600) = 0", "fchmod(5, 03000) = 0",
            "chown(\"c\", -1, -1) = 0", "fchown(5, -1, -1) = 0",
            "fchownat(AT_FDCWD, \"c\", -1, -1, 0x1 /* AT_??? */) = -1 EINVAL",
            "umask(0177777) = 0777",
            "mknod(\"fifo\", S_IFIFO|0600) = 0", "mknod(\"null\", S_IFCHR|0600, makedev(0x1, 0x3))",
            "S_IFBLK|0600, makedev(0x103, 0x12345)) = -1 ENOENT",
            "mknod(\"bad\", 0170644) = -1 EINVAL",
            "mknodat(-1, \"x\", S_IFCHR|000, makedev(0xdbe, 0xdeaef)) = -1 EBADF",
            "utime(\"c\", {actime=1000000000 /* 2001-09-09T01:46:40+0000 */, "
            "modtime=1700000000 /* 2023-11-14T22:13:20+0000 */}) = 0",
            "utime(\"c\", {actime=-1 /* 1969-12-31T23:59:59+0000 */, modtime=0}) = 0",
            "utime(\"c\", NULL) = 0", "utime(\"c\", 0x1) = -1 EFAULT",
            "faccessat(AT_FDCWD, \"c\", 0x10 /* ?_OK */) = -1 EINVAL",
            "openat2(AT_FDCWD, \"c\", {flags=O_RDONLY|O_CLOEXEC, "
            "resolve=RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH}, 24) = ",
            "{flags=O_WRONLY|O_CREAT|O_EXCL, mode=0600, resolve=RESOLVE_NO_XDEV|"
            "RESOLVE_NO_MAGICLINKS|RESOLVE_IN_ROOT|RESOLVE_CACHED}, 24) = -1 EAGAIN",
            "{flags=O_RDONLY, resolve=0x80 /* RESOLVE_??? */}, 24) = -1 EINVAL",
            "{flags=O_RDONLY|0xdeadbeef00000000, resolve=0}, 24) = -1 EINVAL",
            ", 8) = -1 EINVAL", "openat2(AT_FDCWD, \"c\", NULL, 24) = -1 EFAULT",
            # quotactl's structs at a page's end (each read at its own size)
            'quotactl(QCMD(Q_SETQUOTA, GRPQUOTA), "nonexistent", 6, {dqb_bhardlimit=1, ',
            'quotactl(QCMD(Q_SETINFO, GRPQUOTA), "nonexistent", {dqi_bgrace=7, ',
            'quotactl(QCMD(Q_XQUOTAON, GRPQUOTA), "nonexistent", [FS_QUOTA_UDQ_ACCT|',
            # the bytes past the struct unreadable (a page's end): the struct, then ???
            "openat2(AT_FDCWD, \"c\", {flags=O_RDONLY|O_CREAT, mode=0600, resolve=0, ???}, "
            "32) = -1 EFAULT",
            "{flags=O_RDONLY, resolve=0, /* bytes 24..31 */ "
            "\"\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\"}, 32) = -1 E2BIG",
            "dup3(4, 102, O_CLOEXEC) = 102", "dup3(4, 104, 0x1 /* O_??? */) = -1 EINVAL",
            "|O_PATH|O_DIRECTORY|FASYNC|0xde80002f) = -1 EINVAL",
            "readahead(4, -1, 4096) = 0", "fadvise64(4, 0, 4096, POSIX_FADV_NOREUSE) = 0",
            "fadvise64(4, 0, 0, 0x6 /* POSIX_FADV_??? */) = -1 EINVAL",
            "fadvise64(4, -1, 18446744073709551615, 0xdeadbeef /* POSIX_FADV_??? */)",
            " entries */, 4096) = ", "getdents(7, NULL /* 0 entries */, 4096) = 0",
            "getdents(4, 0x", "fchdir(-1) = -1 EBADF",
            "setxattr(\"c\", \"user.text\", \"hello\", 5, XATTR_CREATE) = 0",
            "\"hello world\", 11, XATTR_REPLACE) = 0",
            "setxattr(\"c\", \"user.bin\", \"\\0\\1\\2a\\377\\n\", 7, 0) = 0",
            "XATTR_CREATE|XATTR_REPLACE|0xdeadbeec) = -1 EINVAL",
            "\"x\", 1, 0x4 /* XATTR_??? */) = -1 EINVAL",
            "setxattr(\"c\", \"user.x\", NULL, 0, 0) = 0",
            "\"01234567890123456789012345678901\"..., 40, XATTR_CREATE|XATTR_REPLACE)",
            "getxattr(\"c\", \"user.text\", \"hello world\", 256) = 11",
            "getxattr(\"c\", \"user.text\", NULL, 3) = -1 ERANGE",
            "getxattr(\"c\", \"user.text\", NULL, 0) = 11",
            "getxattr(\"c\", \"user.bin\", \"\\0\\1\\2a\\377\\n\", 256) = 7",
            "fgetxattr(4, \"user.f\", \"fval\", 0) = 4",
            "listxattr(\"c\", \"user.text\\0user.bin\\0user.x\\0user.l\"..., 256) = 33",
            "llistxattr(\"d\", \"\", 256) = 0", "flistxattr(4, \"user.f\\0\", 256) = 7",
            "listxattr(\"c\", NULL, 0) = 33", "removexattr(\"c\", NULL) = -1 EFAULT",
            "setreuid(-1, -1) = 0", "setregid(-1, -1) = 0", "setresgid(-1, -1, -1) = 0",
            "getresgid(NULL, 0x", "getresgid(0x1, 0x1, 0x1) = -1 EFAULT",
            "setfsuid(-1) = ", "setgroups(-1, 0x", "setgroups(1, NULL) = -1 EFAULT",
            "capget({version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, NULL) = 0",
            "capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=",
            "capset({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=",
            "capset({version=0x12345678 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}, ",
            "capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, 0x1) = -1 EFAULT",
            "capget(NULL, 0x", "getcwd(NULL, 0) = -1 ERANGE",
            "chroot(\"nonexistent\") = -1 ENOENT", "chroot(0x1) = -1 EFAULT",
            "quotactl(QCMD(Q_GETQUOTA, USRQUOTA), \"nonexistent\", 0, 0x",
            "quotactl(QCMD(Q_GETINFO, GRPQUOTA), \"/nonexistent/dev\", 0x",
            "quotactl(QCMD(Q_QUOTAON, PRJQUOTA), \"nonexistent\", QFMT_VFS_V0, \"nonexistent\")",
            "quotactl(QCMD(0xde /* Q_??? */, 0xad /* ???QUOTA */), \"nonexistent\", 0, NULL)",
            "quotactl(QCMD(Q_GETFMT, USRQUOTA), 0x1, NULL) = -1 EFAULT",
            "quotactl(QCMD(Q_SETQUOTA, USRQUOTA), \"nonexistent\", 5, {dqb_bhardlimit=1, "
            "dqb_bsoftlimit=0, dqb_curspace=0, dqb_ihardlimit=0, dqb_isoftlimit=0, "
            "dqb_curinodes=6, ...}) = -1 ENOENT",
            "{dqi_bgrace=7, dqi_igrace=8, dqi_flags=DQF_ROOT_SQUASH|0x100, "
            "dqi_valid=IIF_BGRACE|IIF_IGRACE|IIF_FLAGS}) = -1 ENOENT",
            "[FS_QUOTA_UDQ_ACCT|FS_QUOTA_PDQ_ENFD|0x1000]) = -1 ENOENT",
            "[FS_USER_QUOTA|FS_GROUP_QUOTA|0x80]) = -1 ENOENT",
            "5, {d_version=1, d_flags=FS_USER_QUOTA, d_fieldmask=0, d_id=5, d_blk_hardlimit=0, ",
            "quotactl(QCMD(0x10 /* Q_??? */, USRQUOTA), \"nonexistent\", 5, 0x",
            "statfs(\"/proc\", {f_type=PROC_SUPER_MAGIC, f_bsize=4096, f_blocks=0, ",
            "f_flags=ST_VALID|ST_RDONLY|ST_NOSUID|ST_NODEV|ST_NOEXEC|ST_RELATIME}) = 0",
            "statfs(\"\", 0x", "statfs(\".\", 0x1) = -1 EFAULT",
            "readlinkat(3, \"s\", \"c\", 16045690981097406474) = 1",
            "mknodat(3, \"fifo3\", S_IFIFO|0640) = 0",
            "getcwd(NULL, 16045690981097406464) = -1 EFAULT",
            "quotactl(QCMD(Q_SYNC, USRQUOTA), \"nonexistent\") = -1 ENOENT",
            "\"nonexistent\", 0x9 /* QFMT_VFS_??? */, NULL) = -1 ENOENT",
            "quotactl(QCMD(Q_XGETQSTAT, USRQUOTA), \"nonexistent\", NULL) = -1 ENOENT",
            "openat2(3, \"c\", {flags=O_RDONLY, mode=0640, resolve=0}, 24) = -1 EINVAL",
            "fsetxattr(4, \"user.big\", 0x", ", 70000, 0) = -1 E2BIG",
            "fsetxattr(4, \"user.nul31\", \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\", 40, 0) = 0",
            "fsetxattr(4, \"user.nnnnnnnnnnnnnnnnnnnnnnnnnnn\"..., \"x\", 1, 0) = -1 ERANGE",
            "{flags=O_RDONLY, resolve=0, /* bytes 24..127 */ \"" + "\\x00" * 32 + "\"...}, 128)",
            "capget({version=_LINUX_CAPABILITY_VERSION_3, pid=1}, {effective=",
            "mkdirat(AT_FDCWD, \"d9\", 040755) = 0", "umask(000) = 022"):
        # (the xattr calls' texts need a file system that takes user.* attributes)
        if xattrs or "xattr(" not in want and "user." not in want:
            assert want in text, want


_HANDLE_FD: tuple[Gap, ...] = ((re.compile(r"^(close\(9)</[^>]*/scratch/f>(\) = 0)$"),
                               re.compile(r"^(close\(9)(\) = 0)$")),)


@pytest.mark.parametrize("opts", [["-yy"], ["-e", "verbose=none"]], ids=["yy", "verbose=none"])
def test_fs_calls_under_options(tmp_path: Path, opts: list[str]) -> None:
    text = "\n".join(same_lines_but_gaps(build(tmp_path, "sweep_fs"), tmp_path, opts,
                                         _HANDLE_FD))
    if opts != ["-yy"]:             # quotactl's data, file handles as addresses
        assert re.search(r"Q_SETINFO, USRQUOTA\), \"nonexistent\", 0x[0-9a-f]+\) = -1", text)
        assert re.search(r"open_by_handle_at\(-100, 0x[0-9a-f]+, O_RDONLY\) = 9", text)
        return
    assert "open_by_handle_at(-100, {handle_bytes=8, " in text    # printfd: -100 bare
    assert "MOUNT_ATTR_IDMAP|MOUNT_ATTR_NOSYMFOLLOW|0x40, attr_clr=0, " in text
    assert "userns_fd=0</dev/null<char 1:3>>}" in text and "userns_fd=0}, 64)" in text
