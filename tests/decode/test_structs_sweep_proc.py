"""The decoders of the process/IPC/clock sweep (tracekit/decode/structs_ipc.py,
structs_task.py, and the kinds of args.py and ops.py they brought) on packed bytes and
through SyscallDecoder: short or unreadable captures print the address, failed calls
the address of what they would have written. Expected texts are what strace 6.1 printed
for the same values on this machine (tests/e2e/test_strace_sweep_proc.py compares live
against strace on tests/workloads/sweep_proc.c)."""

from __future__ import annotations

import struct

from tests.decode._calls import X64, line
from tracekit._events import (
    CAP_BUF,
    CAP_IOV,
    CAP_STRUCT,
    CAPF_AT_EXIT,
    CAPF_FAULT,
    CAPF_PARTIAL,
    Capture,
    Syscall,
)
from tracekit.decode import flags as F, structs_ipc as IPC, structs_proc as SP, structs_task as TK
from tracekit.decode.args import SyscallDecoder

FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
EINVAL, ENOSYS = -22, -38


def call(name: str, args: tuple[int, ...], ret: int = 0, *caps: Capture) -> Syscall:
    nr = X64.nr(name)
    assert nr is not None, name
    return Syscall(ts_ns=1, duration_ns=1, tid=1, tgid=1, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t", caps=caps)


def cap(i: int, data: bytes, *, at_exit: bool = False, kind: int = CAP_STRUCT,
        flags: int = 0) -> Capture:
    return Capture(i, kind, flags | (CAPF_AT_EXIT if at_exit else 0), data)




PERM = struct.pack("<iIIIIH2xH2x4xQQ", 0, 0, 0, 0, 0, 0o600, 0, 0, 0)   # ipc64_perm, 48
PERM_TEXT = "{uid=0, gid=0, mode=0600, key=0, cuid=0, cgid=0}"


def test_shmctl_ipc_stat_and_info(dec: SyscallDecoder) -> None:
    ds = PERM + struct.pack("<QqqqiiQQQ", 4096, 1796533548, 0, 1796533548, 32497, 32497, 1,
                            0, 0)
    assert line(dec, call("shmctl", (0, 2, ADDR), 0, cap(2, ds, at_exit=True))) == (
        f"shmctl(0, IPC_STAT, {{shm_perm={PERM_TEXT}, shm_segsz=4096, shm_cpid=32497, "
        "shm_lpid=32497, shm_nattch=1, shm_atime=1796533548, shm_dtime=0, "
        "shm_ctime=1796533548}) = 0")
    # failed (IPC_64 refused on x86_64), unknown command: the address
    assert line(dec, call("shmctl", (0, 0x102, ADDR), EINVAL, cap(2, ds, at_exit=True))) == (
        f"shmctl(0, IPC_64|IPC_STAT, {ADDR:#x}) = -1 EINVAL (Invalid argument)")
    assert dec.decode(call("shmctl", (0, 99, ADDR), EINVAL)).args[2] == hex(ADDR)
    info = struct.pack("<9Q", 2**64 - 16777217, 1, 4096, 4096, 2**64 - 16777217, 0, 0, 0, 0)
    assert dec.decode(call("shmctl", (0, 3, ADDR), 2, cap(2, info, at_exit=True))).args[2] == (
        "{shmmax=18446744073692774399, shmmin=1, shmmni=4096, shmseg=4096, "
        "shmall=18446744073692774399}")
    shm_info = struct.pack("<i4x5Q", 1, 1, 0, 0, 0, 0)
    assert dec.decode(call("shmctl", (0, 14, ADDR), 2, cap(2, shm_info, at_exit=True))
                      ).args[2] == ("{used_ids=1, shm_tot=1, shm_rss=0, shm_swp=0, "
                                    "swap_attempts=0, swap_successes=0}")
    # cut short: the address
    assert dec.decode(call("shmctl", (0, 2, ADDR), 0, cap(2, ds[:60], at_exit=True))
                      ).args[2] == hex(ADDR)


def test_semid_ds_layouts() -> None:
    x86 = PERM + struct.pack("<q8xq8xQ16x", 5, 6, 2)
    generic = PERM + struct.pack("<qqQ16x", 5, 6, 2)
    want = f"{{sem_perm={PERM_TEXT}, sem_otime=5, sem_ctime=6, sem_nsems=2}}"
    assert IPC.format_semid_ds(x86, "x86_64") == want
    assert IPC.format_semid_ds(generic, "arm64") == want
    assert IPC.format_semid_ds(x86[:80], "x86_64") is None


def test_semctl_and_msgctl(dec: SyscallDecoder) -> None:
    seminfo = struct.pack("<10i", 1024000000, 32000, 1024000000, 1024000000, 32000, 500,
                          500, 20, 32767, 32767)
    assert dec.decode(call("semctl", (0, 0, 3, ADDR), 1, cap(3, seminfo, at_exit=True))
                      ).args[3] == (
        "{semmap=1024000000, semmni=32000, semmns=1024000000, semmnu=1024000000, "
        "semmsl=32000, semopm=500, semume=500, semusz=20, semvmx=32767, semaem=32767}")
    assert dec.decode(call("semctl", (1, 1, 12, 0), 0)).args[2:] == ("GETVAL", "NULL")
    msq = PERM + struct.pack("<qqqQQQiiQQ", 0, 0, 1796533548, 0, 0, 16384, 0, 0, 0, 0)
    assert dec.decode(call("msgctl", (1, 2, ADDR), 0, cap(2, msq, at_exit=True))).args[2] == (
        f"{{msg_perm={PERM_TEXT}, msg_stime=0, msg_rtime=0, msg_ctime=1796533548, "
        "msg_qnum=0, msg_qbytes=16384, msg_lspid=0, msg_lrpid=0}")
    msginfo = struct.pack("<7iH2x", 512000, 16384, 8192, 16384, 32000, 16, 16384, 65535)
    assert dec.decode(call("msgctl", (0, 12, ADDR), 1, cap(2, msginfo, at_exit=True))
                      ).args[1:] == ("MSG_INFO", "{msgpool=512000, msgmap=16384, msgmax=8192, "
                                     "msgmnb=16384, msgmni=32000, msgssz=16, msgtql=16384, "
                                     "msgseg=65535}")


def test_semop(dec: SyscallDecoder) -> None:
    ops = struct.pack("<Hhh", 0, 1, 0x1000) + struct.pack("<Hhh", 1, 0, 0x800)
    assert line(dec, call("semop", (1, ADDR, 2), 0, cap(1, ops, kind=CAP_BUF))) == (
        "semop(1, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}, "
        "{sem_num=1, sem_op=0, sem_flg=IPC_NOWAIT}], 2) = 0")
    assert line(dec, call("semop", (1, ADDR, 0), EINVAL, cap(1, b"", kind=CAP_BUF))) == (
        "semop(1, [], 0) = -1 EINVAL (Invalid argument)")
    assert dec.decode(call("semop", (1, 1, 1), -14, cap(1, b"", kind=CAP_BUF,
                                                          flags=CAPF_FAULT))).args[1] == "0x1"
    assert IPC.format_sembufs(ops * 20, 40, F.FlagSet(FL.tables.SEMOP_FLAGS)).endswith(", ...]")


def test_mq_calls(dec: SyscallDecoder) -> None:
    attr = struct.pack("<4q32x", 0, 2, 16, 0)
    text = "{mq_flags=0, mq_maxmsg=2, mq_msgsize=16, mq_curmsgs=0}"
    # O_RDWR|O_CREAT|O_EXCL: the mode and the attr; O_RDONLY: neither
    ev = call("mq_open", (ADDR, 0o302, 0o600, ADDR + 64), 3, cap(3, attr))
    assert dec.decode(ev).args[1:] == ("O_RDWR|O_CREAT|O_EXCL", "0600", text)
    assert dec.decode(call("mq_open", (ADDR, 0, 0, 0), -2)).args[1:] == ("O_RDONLY",)
    nonblock = struct.pack("<4q32x", 0o4000, 2, 16, 0)
    ev = call("mq_getsetattr", (3, ADDR, ADDR + 64), 0, cap(1, nonblock),
              cap(2, attr, at_exit=True))
    assert dec.decode(ev).args[1:] == (
        "{mq_flags=O_NONBLOCK, mq_maxmsg=2, mq_msgsize=16, mq_curmsgs=0}", text)
    ev = call("mq_timedreceive", (3, ADDR, 64, ADDR + 64, 0), 5,
              cap(1, b"hello", at_exit=True, kind=CAP_BUF), cap(3, struct.pack("<I", 3),
                                                                  at_exit=True))
    assert line(dec, ev) == 'mq_timedreceive(3, "hello", 64, [3], NULL) = 5'


def test_timex_and_clock_state(dec: SyscallDecoder) -> None:
    tx = struct.pack("<I4x4qi4x3q2q3qi4x5qi44x", 0, 0, 0, 16000000, 16000000, 0x2040, 2, 1,
                     32768000, 1796533548, 794367565, 10000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert len(tx) == TK.TIMEX_SIZE
    want = ("{modes=0, offset=0, freq=0, maxerror=16000000, esterror=16000000, "
            "status=STA_UNSYNC|STA_NANO, constant=2, precision=1, tolerance=32768000, "
            "time={tv_sec=1796533548, tv_usec=794367565}, tick=10000, ppsfreq=0, jitter=0, "
            "shift=0, stabil=0, jitcnt=0, calcnt=0, errcnt=0, stbcnt=0, tai=0}")
    assert line(dec, call("adjtimex", (ADDR,), 5, cap(0, tx, at_exit=True))) == (
        f"adjtimex({want}) = 5 (TIME_ERROR)")
    assert line(dec, call("clock_adjtime", (1, ADDR), -95)) == (
        f"clock_adjtime(CLOCK_MONOTONIC, {ADDR:#x}) = -1 EOPNOTSUPP (Operation not supported)")
    assert dec.decode(call("adjtimex", (0,), -14)).args == ("NULL",)


def _attr(size: int, policy: int = 0, flags: int = 0) -> bytes:
    return struct.pack("<IIQiIQQQII", size, policy, flags, -20, 7, 1, 2, 3, 5, 1024)


def test_sched_attr(dec: SyscallDecoder) -> None:
    params = "sched_nice=-20, sched_priority=7, sched_runtime=1, sched_deadline=2, " \
        "sched_period=3"
    full = _attr(56, 3)
    assert line(dec, call("sched_getattr", (0, ADDR, 56, 0), 0, cap(1, full))) == (
        f"sched_getattr(0, {{size=56, sched_policy=SCHED_BATCH, sched_flags=0, {params}, "
        "sched_util_min=5, sched_util_max=1024}, 56, 0) = 0")
    # a failed sched_getattr wrote nothing; a capture cut shorter than its size: address
    assert line(dec, call("sched_getattr", (0, ADDR, 40, 0), EINVAL, cap(1, full[:40]))) \
        == f"sched_getattr(0, {ADDR:#x}, 40, 0) = -1 EINVAL (Invalid argument)"
    assert dec.decode(call("sched_getattr", (0, ADDR, 56, 0), 0, cap(1, full[:50]))).args[
        1] == f"{ADDR:#x}"
    assert dec.decode(call("sched_getattr", (0, ADDR, 72, 0), 0, cap(1, _attr(72)))).args[
        1].endswith("sched_util_max=1024, ...}")

    def set_(data: bytes, *more: Capture, ret: int = -3) -> str:
        caps = (cap(1, data), cap(1, data[:48]), *more)
        return dec.decode(call("sched_setattr", (9, ADDR, 0), ret, *caps)).args[1]
    assert set_(_attr(0, 6, 0x10)) == "{size=0, sched_flags=SCHED_FLAG_KEEP_PARAMS}"
    assert set_(_attr(56, 3, 0x8)) == (
        f"{{size=56, sched_flags=SCHED_FLAG_KEEP_POLICY, {params}, sched_util_min=5, "
        "sched_util_max=1024}")
    assert set_(_attr(56, 0x80000001, 0x18)) == (
        "{size=56, sched_policy=0x80000001 /* SCHED_??? */, "
        "sched_flags=SCHED_FLAG_KEEP_POLICY|SCHED_FLAG_KEEP_PARAMS, sched_util_min=5, "
        "sched_util_max=1024}")
    assert set_(_attr(56, 1, 0xFFFFFFFF00000001)).startswith(
        "{size=56, sched_policy=SCHED_FIFO, sched_flags=SCHED_FLAG_RESET_ON_FORK|"
        "0xffffffff00000000, ")
    assert set_(_attr(20), cap(1, struct.pack("<I", 56)), ret=-7) == (
        "{size=20} => {size=56}")
    # a 48-byte struct that ends its mapping: only the 48-byte read succeeded
    got = dec.decode(call("sched_setattr", (9, ADDR, 0), -3, cap(1, b"", flags=CAPF_FAULT),
                          cap(1, _attr(48)[:48]))).args[1]
    assert got.startswith("{size=48, sched_policy=SCHED_OTHER, ") and got.endswith(
        "sched_period=3}")
    # hostile sizes: past 56 (", ..."), the largest u32, shorter than a size field
    assert set_(_attr(0xFFFFFFFF)).endswith("sched_util_max=1024, ...}")
    assert dec.decode(call("sched_setattr", (9, ADDR, 0), -3, cap(1, b"\x01"))).args[1] == \
        f"{ADDR:#x}"
    assert dec.decode(call("sched_setattr", (9, 0, 0), -22)).args[1] == "NULL"


def test_futex_waitv(dec: SyscallDecoder) -> None:
    w = struct.pack("<QQI4x", 1, ADDR, 0x82) + struct.pack("<QQI4x", 0, 0, 0x10)
    assert dec.decode(call("futex_waitv", (ADDR, 2, 0, 0, 1), EINVAL,
                           cap(0, w, kind=CAP_BUF))).args == (
        "[{val=0x1, uaddr=0x7ffd1000, flags=FUTEX_32|FUTEX_PRIVATE_FLAG}, "
        "{val=0, uaddr=NULL, flags=0x10 /* FUTEX_??? */}]", "2", "0", "NULL",
        "CLOCK_MONOTONIC")
    assert dec.decode(call("futex_waitv", (0, 129, 0, 0, 99), EINVAL)).args[0] == "NULL"
    # __reserved when set; a list cut by the end of its mapping after its first waiter
    odd = struct.pack("<QQII", 0, ADDR, 0x82, 0xFFFFFFFF)
    assert dec.decode(call("futex_waitv", (ADDR, 1, 0, 0, 1), EINVAL,
                           cap(0, odd, kind=CAP_BUF))).args[0] == (
        "[{val=0, uaddr=0x7ffd1000, flags=FUTEX_32|FUTEX_PRIVATE_FLAG, __reserved=0xffffffff}]")
    cut = Capture(0, CAP_BUF, CAPF_FAULT | CAPF_PARTIAL, b"", w[:24] + b"\0" * 7)
    assert dec.decode(call("futex_waitv", (ADDR, 2, 0, 0, 1), -14, cut)).args[0] == (
        "[{val=0x1, uaddr=0x7ffd1000, flags=FUTEX_32|FUTEX_PRIVATE_FLAG}, "
        f"... /* {ADDR + 24:#x} */]")
    # at most 128 waiters (FUTEX_WAITV_MAX), whatever -s
    many = struct.pack("<QQI4x", 0, 0, 0x82) * 128
    got = SyscallDecoder(X64, string_limit=4096).decode(
        call("futex_waitv", (ADDR, 129, 0, 0, 1), EINVAL, cap(0, many, kind=CAP_BUF))).args[0]
    assert got.count("{val=") == 128 and got.endswith("}, ...]")


def test_seccomp_queries(dec: SyscallDecoder) -> None:
    log = struct.pack("<I", 0x7FFC0000)
    assert dec.decode(call("seccomp", (2, 0, ADDR), 0, cap(2, log), cap(2, log + b"\0\0",
                                                                        at_exit=True))
                      ).args == ("SECCOMP_GET_ACTION_AVAIL", "0", "[SECCOMP_RET_LOG]")
    # an action at the end of a mapping: the exit read (sized for NOTIF_SIZES) faults
    assert dec.decode(call("seccomp", (2, 0, ADDR), 0, cap(2, log), cap(
        2, b"", at_exit=True, flags=CAPF_FAULT))).args[2] == "[SECCOMP_RET_LOG]"
    odd = struct.pack("<I", 0x12345678)
    assert dec.decode(call("seccomp", (2, 0, ADDR), -95, cap(2, odd))).args[2] == (
        "[0x12345678 /* SECCOMP_RET_??? */]")
    sizes = struct.pack("<3H", 80, 24, 64)
    assert dec.decode(call("seccomp", (3, 0, ADDR), 0, cap(2, b"\0" * 4),
                           cap(2, sizes, at_exit=True))).args[2] == (
        "{seccomp_notif=80, seccomp_notif_resp=24, seccomp_data=64}")
    assert dec.decode(call("seccomp", (3, 0, ADDR), -14)).args[2] == hex(ADDR)


def test_per_thread_and_raw_calls(dec: SyscallDecoder) -> None:
    ev = call("get_thread_area", (ADDR,), ENOSYS, cap(0, struct.pack("<iIII", -1, 0, 0, 0)))
    assert dec.decode(ev).args == ("{entry_number=-1, ...}",)
    assert dec.decode(call("get_thread_area", (0,), ENOSYS)).args == ("NULL",)
    # undecoded by strace: every register in hex
    assert dec.decode(call("rseq", (0, 0x20, 1, 0), EINVAL)).args == ("0", "0x20", "0x1", "0")
    assert dec.decode(call("set_tid_address", (0,), 7)).args == ("0",)
    # modify_ldt: an int error in a zero-extended register
    assert line(dec, call("modify_ldt", (1, 0, 16), 2**32 - 14)) == (
        "modify_ldt(1, NULL, 16) = 4294967282 EFAULT (Bad address)")
    assert dec.decode(call("ustat", (0xDEADBEEF000FFFFF, ADDR), EINVAL)).args[0] == (
        "makedev(0xfff, 0xff)")


def test_cpu_masks_getcpu_and_mincore(dec: SyscallDecoder) -> None:
    mask = struct.pack("<4Q", 3, 0, 0, 0)
    assert dec.decode(call("sched_setaffinity", (0, 32, ADDR), 0, cap(2, mask, kind=CAP_BUF))
                      ).args[2] == "[0 1]"
    ev = call("getcpu", (ADDR, ADDR + 4, 0), 0, cap(0, struct.pack("<I", 1), at_exit=True),
              cap(1, struct.pack("<I", 0), at_exit=True))
    assert dec.decode(ev).args == ("[1]", "[0]", "NULL")
    ev = call("mincore", (ADDR, 16384, ADDR + 64), 0, cap(2, bytes([1, 0, 1, 0]) + bytes(28),
                                                           at_exit=True))
    assert dec.decode(ev).args[2] == "[1, 0, 1, 0]"
    ev = call("mincore", (ADDR + 1, 4096, ADDR + 64), EINVAL, cap(2, bytes(32), at_exit=True))
    assert dec.decode(ev).args[2] == hex(ADDR + 64)
    assert SP.format_mincore(bytes(32), 40) == "[" + "0, " * 32 + "...]"


def test_user_desc(dec: SyscallDecoder) -> None:
    desc = struct.pack("<4I", 0, 0x1000, 0xFFFFF, 0x51)
    want = ("{entry_number=0, base_addr=0x001000, limit=0x0fffff, seg_32bit=1, contents=0, "
            "read_exec_only=0, limit_in_pages=1, seg_not_present=0, useable=1, lm=0}")
    assert dec.decode(call("set_thread_area", (ADDR,), ENOSYS, cap(0, desc))).args == (want,)
    zero = ("{entry_number=0, base_addr=00000000, limit=00000000, seg_32bit=0, contents=0, "
            "read_exec_only=0, limit_in_pages=0, seg_not_present=0, useable=0, lm=0}")
    assert dec.decode(call("modify_ldt", (0, ADDR, 16), 0, cap(1, bytes(16)))).args == (
        "0", zero, "16")
    # another byte count: the address
    assert dec.decode(call("modify_ldt", (0, ADDR, 128), 0, cap(1, bytes(16)))).args[1] == (
        hex(ADDR))
    # get_thread_area: the number it reads, then what a successful call wrote
    ev = call("get_thread_area", (ADDR,), 0, cap(0, struct.pack("<i", 12)),
              cap(0, struct.pack("<4I", 12, 0x7F000000, 0xFFFFF, 0x51), at_exit=True))
    assert dec.decode(ev).args == (
        "{entry_number=12, base_addr=0x7f000000, limit=0x0fffff, seg_32bit=1, contents=0, "
        "read_exec_only=0, limit_in_pages=1, seg_not_present=0, useable=1, lm=0}",)


def test_seccomp_filter_flags(dec: SyscallDecoder) -> None:
    assert dec.decode(call("seccomp", (1, 2, 0), -14)).args[1] == "SECCOMP_FILTER_FLAG_LOG"
    assert dec.decode(call("seccomp", (1, 0x100, 0), EINVAL)).args[1] == (
        "0x100 /* SECCOMP_FILTER_FLAG_??? */")
    assert dec.decode(call("seccomp", (0, 1, 0), EINVAL)).args[:2] == (
        "SECCOMP_SET_MODE_STRICT", "0x1")


def test_ipc_set_msgbuf_and_unknown_sem_flags(dec: SyscallDecoder) -> None:
    ds = PERM + bytes(64)
    ev = call("shmctl", (11, 1, ADDR), 0, cap(2, ds), cap(2, bytes(112), at_exit=True))
    assert dec.decode(ev).args[2] == "{shm_perm={uid=0, gid=0, mode=0600}}"
    msq = PERM + struct.pack("<qqqQQQiiQQ", 0, 0, 0, 0, 0, 16384, 0, 0, 0, 0)
    ev = call("msgctl", (12, 1, ADDR), 0, cap(2, msq), cap(2, msq, at_exit=True))
    assert dec.decode(ev).args[2] == (
        "{msg_perm={uid=0, gid=0, mode=0600}, msg_qbytes=16384}")
    msg = struct.pack("<q", 1) + b"hi" + bytes(6)
    assert line(dec, call("msgsnd", (12, ADDR, 2, 0o4000), 0, cap(1, msg))) == (
        'msgsnd(12, {mtype=1, mtext="hi"}, 2, IPC_NOWAIT) = 0')
    assert dec.decode(call("msgrcv", (12, ADDR, 8, 0, 0o4000), 2,
                           cap(1, msg, at_exit=True))).args[1] == (
        '{mtype=1, mtext="hi\\0\\0\\0\\0\\0\\0"}')
    assert dec.decode(call("msgrcv", (12, ADDR, 8, 0, 0o4000), -42,
                           cap(1, msg, at_exit=True))).args[1] == hex(ADDR)
    ops = struct.pack("<Hhh", 0, -1, 0x2000)
    assert dec.decode(call("semop", (1, ADDR, 1), 0, cap(1, ops, kind=CAP_BUF))).args[1] == (
        "[{sem_num=0, sem_op=-1, sem_flg=0x2000 /* SEM_??? */}]")


def test_high_halves_of_lengths(dec: SyscallDecoder) -> None:
    # sched_setaffinity's len is an unsigned int: 8 bytes of the mask
    mask = struct.pack("<Q", 3) + b"\xff" * 120
    ev = call("sched_setaffinity", (0, 0xDEADBEEF00000008, ADDR), 0, cap(2, mask, kind=CAP_BUF))
    assert dec.decode(ev).args[1:] == ("8", "[0 1]")
    # an iovec count whose array would wrap the address space: the address (print_array)
    iov = struct.pack("<QQIIQQII", ADDR, 4096, 0, 0, 0, 0, 0, 0)
    ev = call("process_madvise", (3, ADDR, 0xDEADBEEF00000001, 20, 0), EINVAL,
              cap(1, iov, kind=CAP_IOV))
    assert dec.decode(ev).args[1:3] == (hex(ADDR), "16045690981097406465")


def test_node_masks(dec: SyscallDecoder) -> None:
    # seen on strace 6.1: maxnode 130 is three longs, 1 none (the address)
    masks = struct.pack("<3Q", 1, 0x8000000000000001, 5)
    want = "[0x00000000000001, 0x8000000000000001, 0x00000000000005]"
    ev = call("migrate_pages", (7, 130, ADDR, ADDR), 0, cap(2, masks, kind=CAP_BUF),
              cap(3, masks, kind=CAP_BUF))
    assert dec.decode(ev).args == ("7", "130", want, want)
    ev = call("migrate_pages", (7, 1, ADDR, ADDR), EINVAL, cap(2, masks, kind=CAP_BUF),
              cap(3, masks, kind=CAP_BUF))
    assert dec.decode(ev).args[2:] == (hex(ADDR), hex(ADDR))
    ev = call("mbind", (0, 0, 2, ADDR, 64, 0), 0, cap(3, bytes(64), kind=CAP_BUF))
    assert dec.decode(ev).args == ("NULL", "0", "MPOL_BIND", "[0000000000000000]", "64", "0")
    assert TK.format_nodemask(bytes(256), 3000) == "[" + "0" * 16 + (", " + "0" * 16) * 31 + (
        ", ...]")
    ev = call("get_mempolicy", (ADDR, ADDR + 8, 128, 0, 0), 0,
              cap(0, bytes(4), at_exit=True), cap(1, bytes(16), at_exit=True, kind=CAP_BUF))
    assert dec.decode(ev).args == ("[MPOL_DEFAULT]", "[0000000000000000, 0000000000000000]",
                                   "128", "NULL", "0")
    assert dec.decode(call("get_mempolicy", (1, 0, 0, 0, 0), -14)).args[:2] == ("0x1", "NULL")


def test_move_pages_arrays(dec: SyscallDecoder) -> None:
    pages = struct.pack("<QQ", 0x7F0000001000, 0)
    status = struct.pack("<ii", 0, -2)
    ev = call("move_pages", (0, 2, ADDR, 0, ADDR + 64, 0), 0,
              cap(2, pages), cap(4, status, at_exit=True))
    assert line(dec, ev) == "move_pages(0, 2, [0x7f0000001000, NULL], NULL, [0, -ENOENT], 0) = 0"
    # a failed call wrote no status; a capture shorter than an element: the address
    ev = call("move_pages", (0, 2, ADDR, 0, ADDR + 64, 0), EINVAL, cap(2, b"\1\2\3"),
              cap(4, status, at_exit=True))
    assert dec.decode(ev).args[2:5] == (f"{ADDR:#x}", "NULL", f"{ADDR + 64:#x}")
    # more elements than -s (32): "..."; a count past what was captured
    many = struct.pack("<40i", *range(40))
    ev = call("move_pages", (0, 1 << 40, 0, ADDR, 0, 0), EINVAL, cap(3, many))
    assert dec.decode(ev).args[3].endswith("30, 31, ...]")
    # a count whose array would end past the address space (its size overflows, or the
    # end wraps around): the addresses, as strace's print_array; it printed the pages
    ev = call("move_pages", (0, 0xDEADBEEF00000003, ADDR, ADDR, 0, 0), -14,
              cap(2, pages), cap(3, status))
    assert dec.decode(ev).args[2:4] == (f"{ADDR:#x}", f"{ADDR:#x}")
    # 8-byte pages ending at 2**64 wrap, 4-byte nodes of the same count do not
    ev = call("move_pages", (0, (1 << 61) - ADDR // 8, ADDR, ADDR, 0, 0), -14,
              cap(2, pages), cap(3, status))
    assert dec.decode(ev).args[2:4] == (f"{ADDR:#x}", "[0, -2, ...]")
