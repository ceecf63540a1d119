"""A sweep over calls no other workload makes, against strace 6.1 on ONE run.

tests/workloads/sweep_io.c makes Linux AIO calls on a context of its own (iocb arrays,
io_events, timeouts), io_uring_setup/enter/register, epoll_create, recvmmsg/sendmmsg on
a socketpair and on loopback UDP, add_key/request_key/keyctl on a key of its process
keyring, bpf and perf_event_open with attrs the kernel refuses, landlock and fsconfig on
fd -1, inotify_init, kexec/module/reboot calls refused before they act, calls the kernel
does not implement, restart_syscall, getrandom/memfd_create flags,
sendfile/copy_file_range edge cases, ioctl requests and fcntl commands: each with NULL
and bad pointers, unknown constants and garbage in the high half of an int. tracekit
traces ``strace -f -o FILE sweep_io``, so both see the same calls: every line of the
program must be equal.

Under ``-yy`` too (memfds as ``</memfd:s>(deleted)``, io_uring's fd), but for a UDP
socket closed before sock_diag described it (its close shows ``UDP:[INODE]``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_lines_but_gaps, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

def test_sweep_io_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "sweep_io"), tmp_path)
    text = "\n".join(s_lines)
    # io_submit's iocbs, PWRITE's bytes too (tests/e2e/test_strace_sweep_aio.py has more)
    assert 'aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf="' in text
    for want in (
            "io_setup(4, NULL) = -1 EFAULT", "io_setup(4, [0x",
            "io_getevents(0x", ", 1, 1, [{data=0x1234, obj=0x",
            ", res=4, res2=0}], {tv_sec=0, tv_nsec=1000000}) = 1",
            ", 0, 1, [], {tv_sec=0, tv_nsec=1000000}) = 0",
            ", 0, 1, [], {tv_sec=0, tv_nsec=1000000}, NULL) = 0",
            ", 0, 1, [], {tv_sec=0, tv_nsec=1000000}, {sigmask=[USR1], sigsetsize=8}) = 0",
            ", 0, 1, [], {tv_sec=0, tv_nsec=1000000}, {sigmask=NULL, sigsetsize=8}) = 0",
            "{tv_sec=0, tv_nsec=1000000}, 0x1) = -1 EFAULT",
            ", {aio_data=0x1234, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3}, 0x",
            ", 0, []) = 0", "io_destroy(NULL) = -1 EINVAL", "io_cancel(NULL, NULL, NULL)",
            ", 1, [{aio_data=0x5678, aio_lio_opcode=IOCB_CMD_PREAD, aio_fildes=3, "
            "aio_buf=0x", ", aio_nbytes=4, aio_offset=0}]) = 1",
            "io_submit(0xdeadbeef00000005, 1, [{aio_data=0, aio_lio_opcode=IOCB_CMD_FSYNC, "
            "aio_fildes=3}]) = -1 EINVAL",
            "[{aio_data=0, aio_lio_opcode=IOCB_CMD_POLL, aio_fildes=3, aio_buf=POLLIN|POLLRDNORM}]",
            "io_cancel(0xdeadbeef00000005, {aio_data=0, aio_lio_opcode=99 /* IOCB_CMD_??? */, "
            "aio_fildes=3}, NULL) = -1 EINVAL",
            "[{aio_data=0, aio_key=2, aio_rw_flags=RWF_HIPRI|0x100, aio_lio_opcode=IOCB_CMD_PREAD, "
            "aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 3), aio_fildes=3, aio_buf=0x",
            ", aio_nbytes=4, aio_offset=0, aio_flags=IOCB_FLAG_RESFD|IOCB_FLAG_IOPRIO, "
            "aio_resfd=3}]) = -1 EINVAL",
            "io_uring_setup(1, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=1, "
            "cq_entries=2, features=IORING_FEAT_SINGLE_MMAP|",
            "sq_off={head=0, tail=4, ring_mask=16, ring_entries=24, flags=36, dropped=32, "
            "array=128}, cq_off={head=8, tail=12, ring_mask=20, ring_entries=28, "
            "overflow=44, cqes=64, flags=40}}) = ",
            "io_uring_setup(1, {flags=0x80000000 /* IORING_SETUP_??? */, sq_thread_cpu=0, "
            "sq_thread_idle=0}) = -1 EINVAL",
            "io_uring_enter(-1, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) = -1 EBADF",
            ", 0, 0, 0x80000000 /* IORING_ENTER_??? */, NULL, 0) = -1 EINVAL",
            "io_uring_register(-1, IORING_REGISTER_BUFFERS, NULL, 0)",
            ", 0x3e7 /* IORING_REGISTER_??? */, NULL, 0)", ", IORING_UNREGISTER_BUFFERS, NULL, 0)",
            "epoll_create(0) = -1 EINVAL", "epoll_ctl(4, 0x63 /* EPOLL_CTL_??? */, 4, NULL)",
            "msg_iov=[{iov_base=\"abc\", iov_len=8}], msg_iovlen=1, msg_controllen=0, "
            "msg_flags=0}, msg_len=3}], 2, MSG_DONTWAIT, {tv_sec=0, tv_nsec=1000}) = 1 (left {",
            "recvmmsg(6, NULL, 2, MSG_DONTWAIT|MSG_WAITFORONE, NULL) = -1 EFAULT",
            "sendmmsg(4, 0x1, 1, MSG_DONTWAIT|MSG_CMSG_COMPAT) = -1 EINVAL",
            ", MSG_PEEK|MSG_DONTWAIT, NULL) = -1 EAGAIN",
            "recvmmsg(6, [{msg_hdr={msg_name={sa_family=AF_INET, sin_port=htons(",
            "msg_flags=0}, msg_len=2}], 2, MSG_WAITFORONE, NULL) = 2",
            "add_key(\"user\", \"tracekit:sweep\", \"payload\", 7, KEY_SPEC_PROCESS_KEYRING) = ",
            "add_key(\"user\", \"d\", 0x1, 1, KEY_SPEC_PROCESS_KEYRING) = -1 EFAULT",
            "request_key(\"user\", \"tracekit:nonexistent\", NULL, KEY_SPEC_PROCESS_KEYRING) = "
            "-1 ENOKEY", "\"payload\", 32) = 7", "\"\", 32) = 1",
            "KEY_POS_VIEW|KEY_POS_READ|KEY_POS_WRITE|KEY_POS_SEARCH|KEY_POS_LINK|"
            "KEY_POS_SETATTR|KEY_USR_VIEW) = 0",
            "keyctl(KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, \"user\", \"tracekit:sweep\", 0)",
            "keyctl(0x3e7 /* KEYCTL_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EOPNOTSUPP",
            "keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0) = ",
            "keyctl(KEYCTL_CAPABILITIES, [KEYCTL_CAPS0_CAPABILITIES|", ", 2) = 2",
            ", \"asymmetric\", \"builtin_trusted\") = -1 ENOTDIR",
            ", 10, EKEYREVOKED, KEY_SPEC_PROCESS_KEYRING) = -1 EPERM",
            ", \"x\", 1, KEY_SPEC_PROCESS_KEYRING) = -1 EPERM",
            ", KEY_SPEC_PROCESS_KEYRING, -100, KEYCTL_MOVE_EXCL) = -1 EINVAL",
            ", \"q\\0r\", 3) = 0",
            "bpf(BPF_MAP_CREATE, NULL, 0) = -1 EINVAL", "bpf(0x3e7 /* BPF_??? */, NULL, 0)",
            "bpf(BPF_MAP_LOOKUP_ELEM, NULL, 0)",
            "perf_event_open(0x1, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) = -1 EFAULT",
            ", 0, -1, -1, 0x100 /* PERF_FLAG_??? */) = -1 EINVAL",
            "perf_event_open({type=0x7fff /* PERF_TYPE_??? */, size=PERF_ATTR_SIZE_VER7, "
            "config=0, sample_period=0, sample_type=0, read_format=0, "
            "precise_ip=0 /* arbitrary skid */, ...}, 0, -1, -1, 0) = -1 ENOENT",
            "perf_event_open({type=PERF_TYPE_HW_CACHE, size=PERF_ATTR_SIZE_VER7, "
            "config=0x100<<32|PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
            "PERF_COUNT_HW_CACHE_OP_WRITE<<8|PERF_COUNT_HW_CACHE_L1I, sample_freq=4000, "
            "sample_type=PERF_SAMPLE_IP|PERF_SAMPLE_TID, read_format=PERF_FORMAT_ID, "
            "disabled=1, freq=1, precise_ip=2 /* requested to have 0 skid */, mmap2=1, "
            "sigtrap=1, ...}",
            "size=0xc8 /* PERF_ATTR_SIZE_??? */, config=0x63 /* PERF_COUNT_SW_??? */,",
            # E2BIG: the size the kernel wrote back, read again at exit
            "perf_event_open({type=PERF_TYPE_SOFTWARE, size=0xa0 /* PERF_ATTR_SIZE_??? */ => ",
            "size=0x88 /* PERF_ATTR_SIZE_??? */, config=0x1<<24|PERF_COUNT_HW_CACHE_RESULT_MISS"
            "<<16|PERF_COUNT_HW_CACHE_OP_PREFETCH<<8|PERF_COUNT_HW_CACHE_DTLB, ",
            "landlock_add_rule(-1, 0x63 /* LANDLOCK_RULE_??? */, 0x1, 0x1) = -1 EINVAL",
            "landlock_restrict_self(-1, 0x100) = -1 EINVAL",
            "landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, {allowed_access="
            "LANDLOCK_ACCESS_FS_EXECUTE|LANDLOCK_ACCESS_FS_REFER|0x10000000000, parent_fd=-1}, "
            "0) = -1 EBADF", "landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, 0x1, 0)",
            "landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_READ_FILE}, 8, "
            "0x10 /* LANDLOCK_CREATE_RULESET_??? */) = -1 EINVAL",
            "landlock_create_ruleset({handled_access_fs=0, ...}, 16, ",
            "restart_syscall(<... resuming interrupted landlock_restrict_self ...>) = -1 EINTR",
            "fsconfig(-1, FSCONFIG_SET_FLAG, \"ro\", NULL, 0) = -1 EINVAL",
            "fsconfig(-1, FSCONFIG_SET_STRING, \"source\", \"none\", 0) = -1 EINVAL",
            "fsconfig(-1, FSCONFIG_CMD_CREATE, NULL, NULL, 0)",
            "fsconfig(-1, 0x63 /* FSCONFIG_??? */, NULL, NULL, 0)", "inotify_init() = ",
            "fsconfig(-1, FSCONFIG_SET_FD, \"k\", 0x",
            "fsconfig(-1, FSCONFIG_SET_PATH, \"k\", \"/tmp\", AT_FDCWD)",
            "fsconfig(-1, FSCONFIG_SET_PATH_EMPTY, \"k\", \"\", 5)",
            "fsconfig(-1, FSCONFIG_SET_BINARY, \"k\", \"\\x61\\x00\\x63\", 3)",
            "fsconfig(-1, FSCONFIG_CMD_RECONFIGURE, 0x",
            "kexec_load(NULL, 65536, NULL, KEXEC_ARCH_DEFAULT) = -1 ",
            "kexec_load(NULL, 65536, NULL, KEXEC_ARCH_ARM) = -1 ",
            "kexec_load(0x100000, 2, [{buf=0x1000, bufsz=4096, mem=0x100000, memsz=8192}, "
            "{buf=NULL, bufsz=0, mem=0x200000, memsz=4096}], KEXEC_ARCH_ARM) = -1 ",
            "kexec_load(0x100000, 17, 0x", "kexec_load(0x100000, 2, 0x1, KEXEC_ARCH_ARM) = -1 ",
            "kexec_file_load(-1, -1, 0, NULL, 0x80000000 /* KEXEC_FILE_??? */) = -1 ",
            "init_module(NULL, 0, \"\") = -1 ",
            "finit_module(-1, \"\", 0x100 /* MODULE_INIT_??? */)",
            "reboot(LINUX_REBOOT_MAGIC1, 0x12345678 /* LINUX_REBOOT_MAGIC_??? */, "
            "LINUX_REBOOT_CMD_CAD_ON) = -1 EINVAL",
            "reboot(0 /* LINUX_REBOOT_MAGIC_??? */, LINUX_REBOOT_MAGIC2, "
            "0x12345678 /* LINUX_REBOOT_CMD_??? */) = -1 EINVAL",
            "LINUX_REBOOT_CMD_RESTART2, \"x\") = -1 EINVAL",
            "lookup_dcookie(1, 0x2, 3) = -1 ENOSYS", "uselib(\"nonexistent\") = -1 ENOSYS",
            "vserver(0x1, 0x2, 0x3, 0x4, 0x5) = -1 ENOSYS", "create_module(0x",
            "syscall_0x1f4(0x1, 0x2, ", "getrandom(NULL, 0, 0) = 0",
            ", 0, 0x40 /* GRND_??? */) = -1 EINVAL", "memfd_create(NULL, 0) = -1 EFAULT",
            "sendfile(4, 3, [0] => [4], 4) = 4", "sendfile(4, 3, 0x1, 4) = -1 EFAULT",
            "copy_file_range(3, 0x1, 4, NULL, 4, 0) = -1 EFAULT",
            "fcntl(3, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=4, "
            "l_pid=0}) = 0", "fcntl(3, F_OFD_GETLK, 0x1) = -1 EFAULT",
            "fcntl(3, F_GETOWN_EX, {type=F_OWNER_TID, pid=0}) = 0",
            # at the end of a mapping: read at its own 8 bytes
            "fcntl(3, F_SETOWN_EX, {type=F_OWNER_PGRP, pid=0}) = 0",
            "fcntl(3, F_GETOWN_EX, {type=F_OWNER_PGRP, pid=0}) = 0",
            "fcntl(4, F_ADD_SEALS, 0x100 /* F_SEAL_??? */) = -1 EINVAL",
            "= 0x6 (seals F_SEAL_SHRINK|F_SEAL_GROW)", "fcntl(3, F_SETLEASE, 0x63 /* F_??? */)",
            "fcntl(3, F_NOTIFY, DN_ACCESS|DN_MODIFY|DN_MULTISHOT) = -1 ENOTDIR",
            "fcntl(3, F_GETFL) = 0 (flags O_RDONLY)", "fcntl(3, F_GETLEASE) = 0 (F_RDLCK)",
            ", F_SETPIPE_SZ, -2401053092612141056) = 4096",
            "ioctl(3, FIOCLEX) = 0", "ioctl(3, FIONCLEX) = 0", "ioctl(3, FIONBIO, [1]) = 0",
            "ioctl(3, TIOCGWINSZ, 0x", "ioctl(3, BLKGETSIZE64, 0x", "ioctl(3, BLKSSZGET, 0x",
            "ioctl(3, FS_IOC_GETFLAGS, [", "ioctl(3, FIGETBSZ, 0x",
            "ioctl(3, _IOC(_IOC_READ|_IOC_WRITE, 0x78, 0x99, 0x8), 0x",
            "ioctl(3, _IOC(_IOC_WRITE, 0xee, 0x13, 0x12c), 0) = -1 ENOTTY",
            "ioctl(3, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0) = -1 ENOTTY",
            "ioctl(-1, FIONBIO, [", "ioctl(3, FIONBIO, 0x1) = -1 EFAULT",
            # other drivers' requests by name
            "ioctl(-1, KDGKBTYPE, 0x1) = -1 EBADF", "ioctl(-1, VIDIOC_LOG_STATUS, 0x1) = -1 EBADF",
            "ioctl(-1, VIDIOC_G_FMT, 0x1) = -1 EBADF", "ioctl(-1, HDIO_GETGEO, 0x1) = -1 EBADF",
            "ioctl(-1, KVM_RUN, 0x1) = -1 EBADF", "ioctl(-1, SIOCSIFMTU, 0x1) = -1 EBADF",
            "ioctl(-1, SG_IO, 0x1) = -1 EBADF", "ioctl(-1, UFFDIO_API, 0x1) = -1 EBADF",
            # a NULL argument: an address where strace's decoder takes a pointer, else a
            # number or nothing (tracekit/kernel/flag_tables/ioctl_arg_kinds.py)
            "ioctl(-1, VIDIOC_G_FMT, NULL) = -1 EBADF", "ioctl(-1, TEE_IOC_VERSION, NULL)",
            "ioctl(-1, BTRFS_IOC_FS_INFO, NULL)", "ioctl(-1, BTRFS_IOC_SYNC) = -1 EBADF",
            "ioctl(-1, HDIO_SET_DMA, 1) = -1 EBADF", "ioctl(-1, BLKRASET, 0) = -1 EBADF",
            "ioctl(-1, BLKSECTSET, 0) = -1 EBADF"):
        assert want in text, want


_UDP_GONE: tuple[Gap, ...] = ((re.compile(r"^(close\(\d+)<UDP:\[[^\]]*\]>(\) = 0)$"),
                              re.compile(r"^(close\(\d+)<UDP:\[\d+\]>(\) = 0)$")),)


def test_fsconfig_strings_under_a_large_s(tmp_path: Path) -> None:
    """fsconfig's key and string value: strace reads 256 bytes of them at most, so under
    -s 300 a longer one (or one of exactly 256 bytes) prints 256 bytes and ``...``."""
    text = "\n".join(same_lines_but_gaps(build(tmp_path, "sweep_io"), tmp_path,
                                         ["-s", "300"], _UDP_GONE))
    assert f'fsconfig(-1, FSCONFIG_SET_FLAG, "{"k" * 256}"..., NULL, 0) = -1 EINVAL' in text
    assert f'fsconfig(-1, FSCONFIG_SET_FLAG, "{"k" * 255}", NULL, 0) = -1 EINVAL' in text
    assert f'FSCONFIG_SET_STRING, "{"k" * 256}"..., "{"k" * 256}"..., 0) = -1' in text
    assert 'fsconfig(-1, FSCONFIG_SET_BINARY, "k", "", 0) = -1 EINVAL' in text


@pytest.mark.parametrize("opts", [["-yy"], ["-e", "verbose=none"]], ids=["yy", "verbose=none"])
def test_io_calls_under_options(tmp_path: Path, opts: list[str]) -> None:
    text = "\n".join(same_lines_but_gaps(build(tmp_path, "sweep_io"), tmp_path, opts,
                                         _UDP_GONE))
    if opts != ["-yy"]:             # structures as addresses, arrays of none as []
        assert re.search(r"^fcntl\(3, F_GETLK, 0x[0-9a-f]+\) = 0$", text, re.M)
        assert re.search(r"io_submit\(0x[0-9a-f]+, 0, \[\]\) = 0", text)
        return
    assert 'memfd_create("s", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 4</memfd:s>(deleted)' in text
    assert re.search(r"io_uring_setup\(1, \{.*\) = 4<anon_inode:\[io_uring\]>", text)
