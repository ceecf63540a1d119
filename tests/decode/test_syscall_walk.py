"""Every syscall of the running kernel's table gets a decoder (the generated prototypes,
tracekit/kernel/syscall_protos), and the rules of the C types hold for each argument:
a 32-bit type prints the low half of its register, signed as its type says; a NULL
pointer prints NULL; a named constant prints its name, an unknown value as strace
prints it (``0xdeadbeef /* ITIMER_??? */``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tracekit._events import Syscall
from tracekit.decode.args import SPECIAL, SyscallDecoder
from tracekit.decode.argspec import ARGSPEC
from tracekit.decode.argtypes import width_of
from tracekit.decode.fdcache import FdCache
from tracekit.kernel.flag_tables import for_arch
from tracekit.kernel.syscall_protos import Prototype, prototype
from tracekit.kernel.syscalls import SyscallTable
from tracekit.kernel.tracefs import readable_tracefs, syscall_event_names

TABLE = SyscallTable()
HI = 0xDEADBEEF00000000
T = for_arch(TABLE.arch)

# kind -> (its table, the comment strace prints after an unknown value)
ENUMS = {
    "itimer": (T.ITIMER_WHICH, "ITIMER_???"), "priowhich": (T.PRIO_WHICH, "PRIO_???"),
    "schedpolicy": (T.SCHED_POLICIES, "SCHED_???"), "keyctlcmd": (T.KEYCTL_CMDS, "KEYCTL_???"),
    "shuthow": (T.SHUT_HOW, "SHUT_???"), "whence": (T.SEEK_WHENCE, "SEEK_???"),
    "madv": (T.MADV_ADVICE, "MADV_???"), "how": (T.SIGPROCMASK_HOW, "SIG_???"),
    "rusagewho": (T.RUSAGE_WHO, "RUSAGE_???"), "idtype": (T.WAITID_TYPES, "P_???"),
    "epollop": (T.EPOLL_CTL_OPS, "EPOLL_CTL_???"), "fadv": (T.FADVISE_ADVICE, "POSIX_FADV_???"),
    "rlimit": (T.RLIMIT_RESOURCES, "RLIMIT_???"), "af": (T.ADDRESS_FAMILIES, "AF_???"),
    "prctl": (T.PRCTL_OPTIONS, "PR_???"), "archprctl": (T.ARCH_PRCTL_OPTIONS, "ARCH_???"),
    "clockid": (T.CLOCK_IDS, "CLOCK_???"), "ptracereq": (T.PTRACE_REQUESTS, "PTRACE_???"),
    "seccompop": (T.SECCOMP_OPS, "SECCOMP_SET_MODE_???"),
    "ioprio_who": (T.IOPRIO_WHO, "IOPRIO_WHO_???"), "kcmptype": (T.KCMP_TYPES, "KCMP_???"),
    "membarriercmd": (T.MEMBARRIER_CMDS, "MEMBARRIER_CMD_???"),
    "bpfcmd": (T.BPF_CMDS, "BPF_???"), "landlockrule": (T.LANDLOCK_RULES, "LANDLOCK_RULE_???"),
    "shmctlcmd": (T.SHMCTL_CMDS, "SHM_???"), "semctlcmd": (T.SEMCTL_CMDS, "SEM_???"),
    "msgctlcmd": (T.MSGCTL_CMDS, "MSG_???"),
}
# Kinds whose text depends on other arguments or on captured memory, and kinds that print
# by a whole register or a struct: not checked by the integer rules.
_INT_KINDS = {"d", "u32", "x32", "uid", "fd", "newfd", "dirfd", "mode"}
_SIGNED = {"d", "fd", "newfd", "dirfd"}


def _names() -> list[str]:
    root = readable_tracefs()
    names = set(TABLE.names())
    if root is not None:        # the names this kernel has a format for come first
        names |= {TABLE.name(nr) for n in syscall_event_names(root)
                  if (nr := TABLE.nr(n)) is not None}
    return sorted(n for n in names if prototype(n) is not None)


NAMES = _names()


def _ev(name: str, args: tuple[int, ...], ret: int = -22) -> Syscall:
    nr = TABLE.nr(name)
    assert nr is not None
    return Syscall(ts_ns=1, duration_ns=1, tid=7, tgid=7, cpu=0, syscall_nr=nr,
                   args=(*args, *(0,) * (6 - len(args))), ret=ret, comm="t")


@pytest.fixture(scope="module")
def dec(tmp_path_factory: pytest.TempPathFactory) -> SyscallDecoder:
    return SyscallDecoder(TABLE, fdcache=FdCache(str(tmp_path_factory.mktemp("proc"))))


def _positional(name: str, proto: Prototype) -> bool:
    """The call prints its arguments one per position (no special decoder, no argument
    that hides the ones after it)."""
    kinds = ARGSPEC.get(name, ((),))[0]
    # reboot's argument is printed for LINUX_REBOOT_CMD_RESTART2 only; restart_syscall
    # prints the call it resumes; mknod's dev only for devices
    hiding = {"omode", "mknoddev", "-", "rebootarg"}
    return (name != "restart_syscall" and not (kinds and kinds[-1] in SPECIAL)
            and not hiding & set(kinds)
            and not hiding & {k for _, _, k in proto})


def _raw(name: str, i: int) -> bool:
    """Argument ``i`` of ``name`` is a register strace 6.1 does not decode (argspec's
    ``raw``): the whole register in hex, whatever its C type (``rseq(0, 0x20, ...)``)."""
    kinds = ARGSPEC.get(name, ((),))[0]
    return i < len(kinds) and kinds[i] == "raw"


def _positional_calls() -> Iterator[tuple[str, Prototype]]:
    """Every syscall of the table that prints its arguments one per position, with its
    prototype."""
    for name in NAMES:
        proto = prototype(name)
        assert proto is not None
        if _positional(name, proto):
            yield name, proto


def test_every_syscall_with_a_tracefs_format_has_an_entry() -> None:
    root = readable_tracefs()
    if root is None:
        pytest.skip("tracefs cannot be read here (not root)")
    events = {n for n in syscall_event_names(root) if TABLE.nr(n) is not None}
    assert events and not {n for n in events if prototype(n) is None}


def test_every_syscall_decodes(dec: SyscallDecoder) -> None:
    """Each nr gets its name and as many argument texts as its prototype has (a call
    with a special decoder, clone and futex, prints what the operation uses)."""
    for name in NAMES:
        proto = prototype(name)
        assert proto is not None
        d = dec.decode(_ev(name, (1, 2, 3, 4, 5, 6)))
        assert d.name == name
        if _positional(name, proto):
            # a listed call prints what strace prints (preadv: one offset of two words)
            # (preadv2: rwf_next prints the flags from the next register, and stop ends it)
            want = (len([k for k in ARGSPEC[name][0] if k not in ("stop", "-")])
                    if name in ARGSPEC else len(proto))
            assert len(d.args) == want, (name, d.args)


# int arguments strace 6.1 prints as the whole register (checked on this machine:
# readlinkat(3, "s", "c", 16045690981097406474) for an int bufsiz of 10)
_WHOLE_REGISTER = frozenset({("readlink", "bufsiz"), ("readlinkat", "bufsiz")})


def test_int_arguments_use_the_low_32_bits_signed_as_their_type(dec: SyscallDecoder) -> None:
    checked = 0
    for name, proto in _positional_calls():
        for i, (arg, c_type, kind) in enumerate(proto):
            if width_of(c_type) != 32 or "*" in c_type or (name, arg) in _WHOLE_REGISTER \
                    or _raw(name, i):
                continue
            base = [0] * len(proto)
            low = list(base)
            low[i] = 0xFFFFFFFE                      # -2 as an int
            high = list(low)
            high[i] |= HI
            t_low = dec.decode(_ev(name, tuple(low))).args
            t_high = dec.decode(_ev(name, tuple(high))).args
            assert t_low == t_high, (name, arg, c_type, t_low, t_high)
            if i >= len(t_high):
                continue    # an argument strace does not print (preadv2's pos_h)
            got = t_high[i]
            if kind in _INT_KINDS and ARGSPEC.get(name) is None:
                want = "-2" if kind in _SIGNED else (
                    "0xfffffffe" if kind == "x32" else "4294967294" if kind == "u32"
                    else "037777777776" if kind == "mode" else "4294967294")
                assert got == want, (name, arg, c_type, kind, got)
            checked += 1
    assert checked > 300


def test_null_pointers_print_null(dec: SyscallDecoder) -> None:
    checked = 0
    for name, proto in _positional_calls():
        d = dec.decode(_ev(name, (0,) * len(proto)))
        for i, (arg, c_type, _kind) in enumerate(proto):
            if _raw(name, i):
                assert d.args[i] == "0", (name, arg, d.args)
            elif c_type.endswith("*") or c_type.endswith("_t") and "cap_user" in c_type:
                assert d.args[i] == "NULL", (name, arg, c_type, d.args)
                checked += 1
    assert checked > 300


def test_every_enum_argument_names_its_constants(dec: SyscallDecoder) -> None:
    """Each argument whose kind is a named constant: every name of its table, and an
    unknown value as strace's printxval (key serials, which strace prints as numbers
    when unknown, in decimal)."""
    seen = set()
    for name in NAMES:
        proto = prototype(name)
        assert proto is not None
        kinds = ARGSPEC[name][0] if name in ARGSPEC else tuple(k for _, _, k in proto)
        for i, kind in enumerate(kinds):
            if kind not in ENUMS and kind != "keyspec":
                continue
            seen.add(kind)
            table, unknown = ENUMS.get(kind, (T.KEY_SPECS, ""))
            # garbage above a 32-bit type is ignored; a long (ptrace's request) is whole
            hi = HI if width_of(proto[i][1]) == 32 else 0
            for value, const in table.items():
                args = [0] * len(proto)
                args[i] = hi | (value & 0xFFFFFFFF)
                assert dec.decode(_ev(name, tuple(args))).args[i] == const, (name, const)
            args = [0] * len(proto)
            args[i] = hi | 0x7EADBEEF
            got = dec.decode(_ev(name, tuple(args))).args[i]
            assert got == (f"0x7eadbeef /* {unknown} */" if unknown else "2125315823"), \
                (name, got)
    # keyctl's command is decoded with its arguments (tracekit.decode.ops)
    assert seen >= {"itimer", "priowhich", "schedpolicy", "keyspec",
                    "shuthow", "whence", "clockid"}


def test_walk_covers_the_running_kernel() -> None:
    """The walk is over this machine's table, not a sample of it."""
    assert TABLE.arch in ("x86_64", "arm64") and os.uname().machine in ("x86_64", "aarch64")
    assert len(NAMES) > 300
