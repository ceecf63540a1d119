"""Flag words and constants of the calls that only their prototypes describe, as strace
6.1 prints them: flock's operation, inotify and fanotify masks, mount(2) and umount2,
fallocate, the memory policy calls, swapon, System V IPC's get calls, ...

Each kind (``tracekit.decode.argspec``) reads the bits its C type has: the low 32 of an
``int`` or ``unsigned int`` (a caller may leave garbage in the high half), the whole
register of an ``unsigned long`` (mount's flags, mbind's mode, get_mempolicy's flags) or
a ``__u64`` (fanotify_mark's mask). A word in which no bit has a name prints as strace's
printflags does with a default: ``0x100 /* LOCK_??? */``.

Tables: tracekit/kernel/flag_tables/<arch>.py (``LOCK_OPS``, ``MOUNT_FLAGS``...), made by
scripts/gen_beauty_tables.py from the uapi headers, in strace's order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tracekit._events import Syscall
from tracekit.decode import flags as F, xstyle
from tracekit.decode.captures import capture_out
from tracekit.decode.values import pointer, signed, xval

if TYPE_CHECKING:
    from tracekit.decode.args import SyscallDecoder

__all__ = ["ioprio_text", "kinds", "ret_kinds"]

_M32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1
_KindFn = Callable[["SyscallDecoder", Syscall, int], str]
_RetFn = Callable[["SyscallDecoder", Syscall, str], str]


def _word(fs: F.FlagSet, mask: int = _M32) -> _KindFn:
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return fs(ev.args[i] & mask)
    return k


def _mount(fl: F.ArchFlags, k_str: _KindFn) -> dict[str, _KindFn]:
    """mount(2) as strace's SYS_FUNC(mount): flags with the old magic number of the high
    half printed first (``MS_MGC_VAL|MS_RDONLY``); the type is an address, not a string,
    with MS_REMOUNT, and so is the data with MS_BIND, MS_MOVE or a propagation change."""
    t = fl.tables
    consts = t.MOUNT_CONSTS
    mgc_val, mgc_msk = F.const_value(consts, "MS_MGC_VAL"), F.const_value(consts, "MS_MGC_MSK")
    names = {n: v for v, n in t.MOUNT_FLAGS}
    remount = names["MS_REMOUNT"]
    no_data = (names["MS_BIND"] | names["MS_MOVE"] | names["MS_SHARED"] | names["MS_PRIVATE"]
               | names["MS_SLAVE"] | names["MS_UNBINDABLE"])
    bits = F.FlagSet(t.MOUNT_FLAGS, unknown="MS_???")

    def split(v: int) -> tuple[bool, int]:
        """(old magic, the flags without it)."""
        if v & mgc_msk == mgc_val:
            return True, v & ~mgc_msk
        return False, v

    def k_flags(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        magic, v = split(ev.args[i] & _U64)
        if not magic:
            return bits(v)
        return "MS_MGC_VAL|" + bits(v) if v else "MS_MGC_VAL"

    def ignored(ev: Syscall) -> tuple[bool, bool]:
        """(type ignored, data ignored) by the flags in argument 3."""
        v = split(ev.args[3] & _U64)[1]
        if v & remount:
            return True, False
        return (True, True) if v & no_data else (False, False)

    def k_type(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return pointer(ev.args[i]) if ignored(ev)[0] else k_str(d, ev, i)

    def k_data(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return pointer(ev.args[i]) if ignored(ev)[1] else k_str(d, ev, i)

    return {"mountflags": k_flags, "mounttype": k_type, "mountdata": k_data}


def _fanotify(fl: F.ArchFlags, k_dirfd: _KindFn) -> dict[str, _KindFn]:
    """fanotify_init's class (a field of FAN_ALL_CLASS_BITS) and flags, fanotify_mark's
    flags, event mask and directory fd (``FAN_NOFD`` for -1)."""
    t = fl.tables
    class_bits = F.const_value(t.FAN_CONSTS, "FAN_ALL_CLASS_BITS")
    nofd = F.const_value(t.FAN_CONSTS, "FAN_NOFD")
    init_flags = F.FlagSet(t.FAN_INIT_FLAGS, unknown="FAN_???")

    def k_init(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i] & _M32
        cls = v & class_bits
        name = t.FAN_CLASSES.get(cls) or f"{hex(cls) if cls else '0'} /* FAN_CLASS_??? */"
        rest = v & ~class_bits
        return f"{name}|{init_flags(rest)}" if rest else name

    def k_fan_dirfd(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        if signed(ev.args[i], 32) == nofd:
            return xstyle.named(str(nofd), "FAN_NOFD")
        return k_dirfd(d, ev, i)

    return {"faninitflags": k_init,
            "fanmarkflags": _word(F.FlagSet(t.FAN_MARK_FLAGS, unknown="FAN_MARK_???")),
            "fanevents": _word(F.FlagSet(t.FAN_EVENTS, unknown="FAN_???"), _U64),
            "fandirfd": k_fan_dirfd}


def _mempolicy(fl: F.ArchFlags) -> dict[str, _KindFn]:
    """mbind/set_mempolicy's mode as strace's print_mode: a known policy and its mode
    flags (``MPOL_PREFERRED|MPOL_F_STATIC_NODES``), else the whole word as flags
    (``MPOL_F_STATIC_NODES|0x6``, ``0x7 /* MPOL_??? */``); ``mpolmode_out``: the mode
    get_mempolicy writes, ``[MPOL_DEFAULT]`` (its address when the call failed)."""
    t = fl.tables
    mode_flags = F.FlagSet(t.MPOL_MODE_FLAGS, unknown="MPOL_???")
    flag_mask = 0
    for bit, _ in t.MPOL_MODE_FLAGS:
        flag_mask |= bit

    def text(v: int) -> str:
        name = t.MPOL_MODES.get(v & ~flag_mask)
        if name is None:
            return mode_flags(v)
        rest = v & flag_mask
        return f"{name}|{mode_flags(rest)}" if rest else name

    def mode(mask: int) -> _KindFn:
        def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
            return text(ev.args[i] & mask)
        return k

    def k_out(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        cap = capture_out(ev, i)
        if cap is None or len(cap.data) < 4:
            return pointer(ev.args[i])
        return f"[{text(int.from_bytes(cap.data[:4], 'little'))}]"

    return {"mpolmode": mode(_U64), "mpolmode32": mode(_M32), "mpolmode_out": k_out,
            "mbindflags": _word(F.FlagSet(t.MBIND_FLAGS, unknown="MPOL_???")),
            "getmempolflags": _word(F.FlagSet(t.GET_MEMPOLICY_FLAGS, unknown="MPOL_???"),
                                    _U64)}


def _ipc(fl: F.ArchFlags) -> dict[str, _KindFn]:
    """System V IPC: the key (``IPC_PRIVATE`` or hex), the get calls' flags and mode."""
    t = fl.tables
    private = F.const_value(t.IPC_CONSTS, "IPC_PRIVATE")
    get_flags = F.FlagSet(t.IPC_GET_FLAGS)
    shm_flags = F.FlagSet(t.SHMGET_FLAGS)
    huge_shift = F.const_value(t.SHM_CONSTS, "SHM_HUGE_SHIFT")
    huge_mask = F.const_value(t.SHM_CONSTS, "SHM_HUGE_MASK") << huge_shift

    def k_key(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        v = ev.args[i] & _M32
        return "IPC_PRIVATE" if v == private else hex(v)

    def k_get(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        # semget/msgget: printflags without a default, then "|" only after a named bit
        # (strace 6.1 prints 0x1000 as ``0x1000000``: the hex, then the mode)
        v = ev.args[i] & _M32
        flags, mode = v & ~0o777, F.mode_octal(v & 0o777)
        if not flags:
            return mode
        text = get_flags(flags)
        named = any(flags & bit == bit for bit, _ in t.IPC_GET_FLAGS)
        return f"{text}|{mode}" if named else text + mode

    def k_shmget(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        # shmget: the flags, the huge page size as N<<SHM_HUGE_SHIFT, then the mode
        v = ev.args[i] & _M32
        flags = v & ~0o777 & ~huge_mask
        huge = (v & huge_mask) >> huge_shift
        parts = [shm_flags(flags)] if flags else []
        if huge:
            parts.append(f"{huge}<<SHM_HUGE_SHIFT")
        parts.append(F.mode_octal(v & 0o777))
        return "|".join(parts)

    return {"ipckey": k_key, "ipcgetflags": k_get, "shmgetflags": k_shmget,
            "shmatflags": _word(F.FlagSet(t.SHMAT_FLAGS, unknown="SHM_???")),
            "ipcmsgflags": _word(F.FlagSet(t.IPC_MSG_FLAGS, unknown="MSG_???"))}


def _pick(table: tuple[tuple[int, str], ...], *names: str) -> tuple[tuple[int, str], ...]:
    """The bits ``names`` of a bits table, in the order given (strace's xlat of a call
    that takes a few of a larger family's bits: move_pages' MPOL_MF_*, delete_module's
    O_*)."""
    by_name = {n: v for v, n in table}
    return tuple((by_name[n], n) for n in names)


def _newer_calls(fl: F.ArchFlags) -> dict[str, _KindFn]:
    """The flag words of the mount API of Linux 5.2 (open_tree, fsopen, fspick,
    move_mount, fsmount, mount_setattr), userfaultfd, memfd_secret,
    landlock_create_ruleset, pkey_alloc, remap_file_pages, move_pages and delete_module,
    each with strace 6.1's table and default text."""
    t = fl.tables
    at = t.AT_FLAGS
    return {
        "opentreeflags": _word(F.FlagSet((*t.OPEN_TREE_FLAGS, *at), unknown="OPEN_TREE_???")),
        "fsopenflags": _word(F.FlagSet(t.FSOPEN_FLAGS, unknown="FSOPEN_???")),
        "fspickflags": _word(F.FlagSet(t.FSPICK_FLAGS, unknown="FSPICK_???")),
        "movemountflags": _word(F.FlagSet(t.MOVE_MOUNT_FLAGS, unknown="MOVE_MOUNT_???")),
        "fsmountflags": _word(F.FlagSet(t.FSMOUNT_FLAGS, unknown="FSMOUNT_???")),
        "mountattrflags": _word(F.FlagSet(t.MOUNT_ATTR_FLAGS, unknown="MOUNT_ATTR_???")),
        "mountsetattrflags": _word(F.FlagSet(
            _pick(at, "AT_SYMLINK_NOFOLLOW", "AT_NO_AUTOMOUNT", "AT_EMPTY_PATH",
                  "AT_RECURSIVE"), unknown="AT_???")),
        "uffdflags": _word(F.FlagSet(
            (*t.UFFD_FLAGS, *_pick(t.OPEN_FLAGS, "O_NONBLOCK", "O_CLOEXEC")),
            unknown="UFFD_???")),
        # memfd_secret: printflags without a default (``0x100``)
        "memfdsecretflags": _word(F.FlagSet(_pick(t.OPEN_FLAGS, "O_CLOEXEC"))),
        "landlockcreateflags": _word(F.FlagSet(t.LANDLOCK_CREATE_FLAGS,
                                               unknown="LANDLOCK_CREATE_RULESET_???")),
        # unsigned long words: every bit of the register
        "pkeyaccess": _word(F.FlagSet(t.PKEY_ACCESS, unknown="PKEY_???"), _U64),
        "movepagesflags": _word(F.FlagSet(_pick(t.MBIND_FLAGS, "MPOL_MF_MOVE",
                                                "MPOL_MF_MOVE_ALL"), unknown="MPOL_???")),
        "delmodflags": _word(F.FlagSet(_pick(t.OPEN_FLAGS, "O_NONBLOCK", "O_TRUNC"),
                                       unknown="O_???")),
    }


def _value(table: dict[int, str], unknown: str, mask: int = _M32) -> _KindFn:
    """A named constant; one without a name as ``0x3e7 /* IORING_REGISTER_??? */``."""
    def k(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        return xval(table, ev.args[i] & mask, unknown)
    return k


def _kexec_flags(fl: F.ArchFlags) -> Callable[[int], str]:
    """kexec_load's flags (an unsigned long): the arch field first (``KEXEC_ARCH_X86_64``,
    ``KEXEC_ARCH_DEFAULT`` for 0, ``0xffff0000 /* KEXEC_ARCH_??? */``), then the bits and
    a hex remainder: ``KEXEC_ARCH_DEFAULT|KEXEC_ON_CRASH|0xfffc``."""
    t = fl.tables
    mask = F.const_value(t.KEXEC_CONSTS, "KEXEC_ARCH_MASK")
    bits = F.FlagSet(t.KEXEC_FLAGS)

    def text(v: int) -> str:
        v &= _U64
        arch = v & mask
        name = t.KEXEC_ARCHES.get(arch) or f"{arch:#x} /* KEXEC_ARCH_??? */"
        rest = v & ~mask
        return f"{name}|{bits(rest)}" if rest else name
    return text


def _io_and_boot(fl: F.ArchFlags) -> dict[str, _KindFn]:
    """io_uring_enter's flags and io_uring_register's opcode, fsconfig's command,
    perf_event_open's flags, the kexec calls' flags, finit_module's flags and reboot's
    magic numbers and command, with strace 6.1's tables and default texts."""
    t = fl.tables
    kexec = _kexec_flags(fl)
    return {
        "iouringenterflags": _word(F.FlagSet(t.IORING_ENTER_FLAGS,
                                             unknown="IORING_ENTER_???")),
        "iouringregop": _value(t.IORING_REGISTER_OPS, "IORING_REGISTER_???"),
        "fsconfigcmd": _value(t.FSCONFIG_CMDS, "FSCONFIG_???"),
        # unsigned long words: every bit of the register
        "perfflags": _word(F.FlagSet(t.PERF_FLAGS, unknown="PERF_FLAG_???"), _U64),
        "kexecflags": lambda d, ev, i: kexec(ev.args[i]),
        "kexecfileflags": _word(F.FlagSet(t.KEXEC_FILE_FLAGS, unknown="KEXEC_FILE_???"),
                                _U64),
        "modinitflags": _word(F.FlagSet(t.MODULE_INIT_FLAGS, unknown="MODULE_INIT_???")),
        "rebootmagic": _value(t.REBOOT_MAGICS, "LINUX_REBOOT_MAGIC_???"),
        "rebootcmd": _value(t.REBOOT_CMDS, "LINUX_REBOOT_CMD_???"),
    }


def ioprio_text(fl: F.ArchFlags) -> Callable[[int], str]:
    """An ioprio value as ``IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)``, with ``fl``'s tables."""
    t = fl.tables
    shift = F.const_value(t.IOPRIO_CONSTS, "IOPRIO_CLASS_SHIFT")
    data_mask = F.const_value(t.IOPRIO_CONSTS, "IOPRIO_PRIO_MASK")

    def text(v: int) -> str:
        """``IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)``; an unknown class in hex."""
        v &= _M32
        cls = v >> shift
        name = t.IOPRIO_CLASSES.get(cls) or f"{hex(cls)} /* IOPRIO_CLASS_??? */"
        return f"IOPRIO_PRIO_VALUE({name}, {v & data_mask})"
    return text


def kinds(fl: F.ArchFlags, k_str: _KindFn, k_dirfd: _KindFn) -> dict[str, _KindFn]:
    """Argument kinds of this module, with ``fl``'s tables; ``k_str`` and ``k_dirfd``
    are the decoder's string and directory fd kinds (mount's strings, fanotify_mark's
    dirfd)."""
    t = fl.tables
    ioprio = ioprio_text(fl)
    prio_mask = F.const_value(t.SWAP_CONSTS, "SWAP_FLAG_PRIO_MASK")
    swap_flags = F.FlagSet(t.SWAP_FLAGS, unknown="SWAP_FLAG_???")

    def k_swap(d: SyscallDecoder, ev: Syscall, i: int) -> str:
        # the flags, then the priority in decimal (``SWAP_FLAG_PREFER|7``, ``0``)
        v = ev.args[i] & _M32
        flags, prio = v & ~prio_mask, v & prio_mask
        return f"{swap_flags(flags)}|{prio}" if flags else str(prio)

    return {
        "lockop": _word(F.FlagSet(t.LOCK_OPS, unknown="LOCK_???")),
        "inmask": _word(F.FlagSet(t.INOTIFY_MASK, unknown="IN_???")),
        "umountflags": _word(F.FlagSet(t.UMOUNT_FLAGS, unknown="MNT_???")),
        "fallocmode": _word(F.FlagSet(t.FALLOC_FLAGS, unknown="FALLOC_FL_???")),
        "mlock2flags": _word(F.FlagSet(t.MLOCK_FLAGS, unknown="MLOCK_???")),
        "closerangeflags": _word(F.FlagSet(t.CLOSE_RANGE_FLAGS, unknown="CLOSE_RANGE_???")),
        "pidfdflags": _word(F.FlagSet(t.PIDFD_FLAGS, unknown="PIDFD_???")),
        "syncfrflags": _word(F.FlagSet(t.SYNC_FILE_RANGE_FLAGS,
                                       unknown="SYNC_FILE_RANGE_???")),
        "nthflags": _word(F.FlagSet(t.NAME_TO_HANDLE_FLAGS, unknown="AT_???")),
        "msyncflags": _word(F.FlagSet(t.MSYNC_FLAGS, unknown="MS_???")),
        "spliceflags": _word(F.FlagSet(t.SPLICE_FLAGS, unknown="SPLICE_F_???")),
        "xattrflags": _word(F.FlagSet(t.XATTR_FLAGS, unknown="XATTR_???")),
        "ioprio": lambda d, ev, i: ioprio(ev.args[i]),
        "swapflags": k_swap,
        **_mount(fl, k_str), **_fanotify(fl, k_dirfd), **_mempolicy(fl), **_ipc(fl),
        **_newer_calls(fl), **_io_and_boot(fl),
    }


def ret_kinds(fl: F.ArchFlags) -> dict[str, _RetFn]:
    """Return kinds: ioprio_get's ``16388 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4))`` and
    sched_getscheduler's ``0 (SCHED_OTHER)`` (a policy without a name: the number alone)."""
    ioprio = ioprio_text(fl)
    policies = fl.tables.SCHED_POLICIES

    def ret_policy(d: SyscallDecoder, ev: Syscall, text: str) -> str:
        name = policies.get(ev.ret)
        return f"{text} ({name})" if name else text

    return {"ioprio": lambda d, ev, text: f"{text} ({ioprio(ev.ret)})",
            "schedpolicy": ret_policy}
