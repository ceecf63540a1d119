"""Flag words and constants as strace prints them, from the generated header tables.

A flag word is printed as its value fields first (a field is a group of bits holding a
number: open's access mode, mmap's map type, clone's exit signal), then the named bits in
table order, then any bits left over as one hex number: ``O_RDONLY|O_CLOEXEC|0x40000000``.
Unknown bits are never dropped. A word with nothing to name prints as ``0`` (or the
field's name for 0 when the field has one: ``O_RDONLY``, ``PROT_NONE``).

Flag values differ between architectures (``0x10000`` is O_DIRECTORY on x86_64 and O_DIRECT
on arm64), so the decoders of a word are built per arch: :func:`for_arch` gives an
:class:`ArchFlags`. The module-level decoders (``open_flags``, ``signal_name``...) are those
of the running arch, for callers that decode this machine's records.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import ModuleType

from tracekit.decode import xstyle
from tracekit.kernel import flag_tables
from tracekit.kernel.arch import machine_arch

__all__ = [
    "ArchFlags", "FlagSet", "access_mode", "at_flags", "clone_flags", "const_value", "enum",
    "fcntl_cmd",
    "file_mode", "for_arch", "futex_op", "ioctl_request", "mmap_flags", "mode_octal",
    "open_flags", "prot", "signal_name", "sock_type", "statx_flags", "styled_word",
]

_U64 = (1 << 64) - 1


# the futex commands strace 6.1 names with FUTEX_CLOCK_REALTIME (each also _PRIVATE): its
# futexops table has no other command with the clock bit
_FUTEX_CLOCK_CMDS = frozenset({"FUTEX_WAIT", "FUTEX_WAIT_BITSET", "FUTEX_WAIT_REQUEUE_PI"})


class FlagSet:
    """A flag word: optional value fields, then bits in print order.

    Args:
      bits: ``((value, name), ...)`` in print order; a name matches when all its bits are
        set (multi-bit names such as O_SYNC come before their parts).
      fields: ``((mask, {value: name}), ...)`` printed first; a field value with no name
        is printed in hex.
      zero: what a word of 0 prints as when no field names it (strace: ``0``).
      unknown: strace's default text of the word (``"LOCK_???"``): a word in which no bit
        has a name prints as ``0x100 /* LOCK_??? */`` (printflags with a default); None:
        as ``0x100``.
      split: with ``-X raw``/``-X verbose``, the fields and the bits are printed apart,
        each in its style (strace prints statx's sync type with printxval, then the
        AT_* bits with printflags: ``0 /* AT_STATX_SYNC_AS_STAT */|0x900 /* ... */``;
        in raw a sync type of 0 prints nothing: ``|0x900``); else the word is one
        number (``0x80000 /* O_RDONLY|O_CLOEXEC */``).

    With ``-X raw`` (tracekit.decode.xstyle) a word prints as its number in hex
    (``0x80000``, ``0``); with ``-X verbose`` as the number and its abbrev text as a
    comment (``0 /* O_RDONLY */``); a word no name covers prints as in abbrev.
    """

    __slots__ = ("bits", "fields", "zero", "unknown", "split", "_cache", "__weakref__")

    def __init__(self, bits: tuple[tuple[int, str], ...],
                 fields: tuple[tuple[int, Mapping[int, str]], ...] = (),
                 zero: str = "0", unknown: str | None = None, split: bool = False) -> None:
        self.bits = bits
        self.fields = fields
        self.zero = zero
        self.unknown = unknown
        self.split = split
        self._cache: dict[int, str] = {}
        xstyle.on_change(self)

    def reset_style(self) -> None:
        """Forget the texts made in the style before (tracekit.decode.xstyle)."""
        self._cache.clear()

    def __call__(self, value: int) -> str:
        got = self._cache.get(value)
        if got is None:
            got = self._format(value & _U64)
            if len(self._cache) < 4096:
                self._cache[value] = got
        return got

    def _format(self, v: int) -> str:
        text = self.abbrev(v)
        if xstyle.STYLE == xstyle.ABBREV:
            return text
        if self.split and self.fields:
            return self._split(v)
        return self._styled(v, text)

    def _styled(self, v: int, text: str) -> str:
        """The word ``v`` whose abbrev text is ``text`` in the raw or verbose style."""
        if xstyle.STYLE == xstyle.RAW:
            return hex(v) if v else "0"
        if text == "0" or text == hex(v) or (
                self.unknown is not None and text.endswith(f" /* {self.unknown} */")):
            return text                 # nothing named: as in abbrev
        return styled_word(v, text)

    def _split(self, v: int) -> str:
        parts = []
        for mask, names in self.fields:
            fv = v & mask
            name = names.get(fv)
            if xstyle.STYLE == xstyle.RAW:
                parts.append(hex(fv) if fv else "")
            else:
                parts.append(xstyle.named(hex(fv) if fv else "0", name) if name is not None
                             else hex(fv))
            v &= ~mask
        if v:
            parts.append(self._styled(v, self._bits_text(v, [])))
        return "|".join(parts)

    def abbrev(self, v: int) -> str:
        """The word's text in the abbrev style (strace's default), not cached."""
        v &= _U64
        parts = []
        for mask, names in self.fields:
            fv = v & mask
            name = names.get(fv)
            parts.append(name if name is not None else hex(fv))
            v &= ~mask
        return self._bits_text(v, parts)

    def _bits_text(self, v: int, parts: list[str]) -> str:
        """``parts`` (the fields' texts), then the bits of ``v`` named, then the rest."""
        for bit, name in self.bits:
            if v & bit == bit:
                parts.append(name)
                v &= ~bit
        if v:
            if not parts and self.unknown is not None:
                return f"{hex(v)} /* {self.unknown} */"
            parts.append(hex(v))
        return "|".join(parts) or self.zero


def styled_word(v: int, text: str) -> str:
    """A flag word or constant ``v`` built by hand, whose abbrev text is ``text``, in the
    current style (tracekit.decode.xstyle): ``text``, ``0x22`` (raw) or ``0x22 /*
    MAP_PRIVATE|MAP_ANONYMOUS */`` (verbose; strace's printflags, printxval)."""
    if xstyle.STYLE == xstyle.ABBREV:
        return text                     # the default style makes no number
    return xstyle.named(hex(v) if v else "0", text)


def enum(table: Mapping[int, str], value: int, *, bits: int = 32, hex_unknown: bool = False
         ) -> str:
    """A value from a ``{value: name}`` table; unknown values as a number. With ``-X
    raw``/``-X verbose`` (tracekit.decode.xstyle) a named value prints as that number
    too (``0x5401``, ``0x5401 /* TCGETS */``).

    Args:
      bits: the C type's width; the value is read as a signed number of that width.
      hex_unknown: print unknown values in hex (strace does for ioctl requests, hex masks).
    """
    v = value & ((1 << bits) - 1)
    name = table.get(v)
    if name is not None:
        if xstyle.STYLE:        # strace's printxval: hex (0x3 /* RLIMIT_STACK */)
            return styled_word(v, name)
        return name
    if hex_unknown:
        return hex(v)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    name = table.get(v)
    if name is None:
        return str(v)
    return xstyle.named(str(v), name) if xstyle.STYLE else name


def const_value(table: Mapping[int, str], name: str) -> int:
    """The value of the constant ``name`` in a generated ``value -> name`` table
    (tracekit/kernel/flag_tables/<arch>.py).

    Raises:
      StopIteration: the table has no such name (a table and its user out of step).
    """
    return next(v for v, n in table.items() if n == name)


def mode_octal(v: int) -> str:
    """A mode as strace's ``%#03o`` of the kernel's umode_t (16 bits: the rest of the
    register is not the call's): ``0644``, ``000``, ``022``."""
    v &= 0xFFFF
    return f"0{v:02o}" if v else "000"


_MAP_HUGE_SHIFT, _MAP_HUGE_MASK = 26, 0x3F
_MAP_HUGE_BITS = _MAP_HUGE_MASK << _MAP_HUGE_SHIFT
# clone(2)'s low byte is the exit signal (CSIGNAL), so CLONE_NEWTIME (0x80, clone3 only)
# cannot be a clone() flag; clone3 has exit_signal as a field of its own.
_CSIGNAL = 0xFF
_CLONE3_ONLY = ("CLONE_NEWTIME", "CLONE_CLEAR_SIGHAND", "CLONE_INTO_CGROUP")


class ArchFlags:
    """The flag and constant decoders of one architecture, built from its tables.

    Args:
      arch: ``"x86_64"`` or ``"arm64"`` (see ``tracekit.kernel.flag_tables.for_arch``).

    Attributes:
      arch: the architecture.
      tables: its generated table module (``OPEN_FLAGS``, ``FCNTL_CMDS``...).
      open_flags, pipe_flags, at_flags, ...: :class:`FlagSet` decoders of 32-bit words.

    Raises:
      ValueError: an architecture without generated tables.
    """

    def __init__(self, arch: str) -> None:
        T: ModuleType = flag_tables.for_arch(arch)
        self.arch = arch
        self.tables = T
        accmode = {**T.OPEN_ACCMODE, 3: "O_ACCMODE"}
        self.open_flags = FlagSet(T.OPEN_FLAGS, ((3, accmode),))
        """open/openat flags: the access mode is a value of O_ACCMODE (O_RDONLY is 0)."""
        self.pipe_flags = FlagSet(T.OPEN_FLAGS, unknown="O_???")
        """pipe2/dup3 flags: O_* bits without an access mode; 0 is ``0``, unknown bits
        alone ``0x1 /* O_??? */``."""
        self.at_flags = FlagSet(T.AT_FLAGS, unknown="AT_???")
        """AT_* flags in strace 6.1's order, AT_REMOVEDIR (0x200) among them; a word of
        unknown bits alone as ``0x2 /* AT_??? */``."""
        self.AT_FDCWD = const_value(T.AT_CONSTS, "AT_FDCWD")
        sync_type = const_value(T.AT_CONSTS, "AT_STATX_SYNC_TYPE")
        sync_names = {**T.AT_STATX_SYNC, sync_type: "|".join(
            T.AT_STATX_SYNC[v] for v in sorted(T.AT_STATX_SYNC) if v)}
        self.statx_flags = FlagSet(T.AT_FLAGS, ((sync_type, sync_names),), split=True)
        """statx flags: AT_STATX_SYNC_TYPE is a field (AT_STATX_SYNC_AS_STAT is 0; both of
        its bits ``AT_STATX_FORCE_SYNC|AT_STATX_DONT_SYNC``), then AT_* (any other bits in
        hex, without strace's default text: it prints them after the field)."""
        self.unlinkat_flags = self.at_flags
        """unlinkat's flags: strace 6.1 prints them with every AT_* name
        (``AT_SYMLINK_NOFOLLOW`` for 0x100, though the call takes only AT_REMOVEDIR)."""
        at_names = {n: v for v, n in T.AT_FLAGS}
        self.faccessat_flags = FlagSet(
            ((at_names["AT_SYMLINK_NOFOLLOW"], "AT_SYMLINK_NOFOLLOW"),
             (const_value(T.AT_CONSTS, "AT_EACCESS"), "AT_EACCESS"),
             (at_names["AT_EMPTY_PATH"], "AT_EMPTY_PATH")), unknown="AT_???")
        """faccessat2's flags: strace 6.1's faccessat_flags, the three bits the call takes."""
        self.statx_mask = FlagSet(T.STATX_MASK, unknown="STATX_???")
        self.prot = FlagSet(T.PROT_FLAGS, zero="PROT_NONE", unknown="PROT_???")
        self._map_rest = FlagSet(T.MAP_FLAGS)
        self.madvise_advice: dict[int, str] = T.MADV_ADVICE
        self.access_bits = FlagSet(T.ACCESS_MODES, unknown="?_OK")
        self.wait_options = FlagSet(T.WAIT_OPTIONS)
        self.grnd_flags = FlagSet(T.GRND_FLAGS, unknown="GRND_???")
        # strace 6.1's default text of renameat2's flags has two question marks
        self.rename_flags = FlagSet(T.RENAME_FLAGS, unknown="RENAME_??")
        self.mremap_flags = FlagSet(T.MREMAP_FLAGS)
        self.membarrier_flags = FlagSet(T.MEMBARRIER_FLAGS, unknown="MEMBARRIER_CMD_FLAG_???")
        self.fd_flags = FlagSet(T.FD_FLAGS)
        self.sa_flags = FlagSet(T.SA_FLAGS)
        self.ss_flags = FlagSet(T.SS_FLAGS)             # sigaltstack
        # clock_nanosleep, timer_settime: unknown bits alone ``0x10 /* TIMER_??? */``
        self.timer_flags = FlagSet(T.TIMER_FLAGS, unknown="TIMER_???")
        self.sock_flags = FlagSet(T.SOCK_FLAGS, unknown="SOCK_???")
        # strace 6.1's clone_flags, then (clone3) its clone3_flags: CLONE_DETACHED (which
        # the kernel ignores) is not named, CLONE_NEWTIME prints after CLONE_IO
        clone = tuple(p for p in T.CLONE_FLAGS if p[1] != "CLONE_DETACHED")
        self._clone_bits = FlagSet(tuple(p for p in clone if not p[0] & _CSIGNAL
                                         and p[1] not in _CLONE3_ONLY))
        self.clone3_flags = FlagSet(
            tuple(p for p in clone if p[1] not in _CLONE3_ONLY)
            + tuple(p for n in _CLONE3_ONLY for p in clone if p[1] == n),
            unknown="CLONE_???")
        self._futex_private = const_value(T.FUTEX_CONSTS, "FUTEX_PRIVATE_FLAG")
        self._futex_clock_rt = const_value(T.FUTEX_CONSTS, "FUTEX_CLOCK_REALTIME")

    def __repr__(self) -> str:
        return f"ArchFlags({self.arch!r})"

    def signal_name(self, sig: int) -> str:
        """A signal number as an argument or field prints it: ``9`` -> ``SIGKILL``
        (``9``, ``9 /* SIGKILL */`` with -X raw/verbose: tracekit.decode.xstyle)."""
        name: str | None = self.tables.SIGNALS.get(sig)
        if name is None:
            name = self.signal_abbrev(sig)
        if xstyle.STYLE and name[0] == "S":
            return xstyle.named(str(sig), name)
        return name

    def signal_abbrev(self, sig: int) -> str:
        """``9`` -> ``SIGKILL`` in every style (the ``--- SIGKILL`` and ``+++ killed by``
        lines); real-time signals as strace: ``SIGRTMIN``, ``SIGRT_1``..."""
        name: str | None = self.tables.SIGNALS.get(sig)
        if name is not None:
            return name
        if 32 <= sig <= 64:
            return "SIGRTMIN" if sig == 32 else f"SIGRT_{sig - 32}"
        return str(sig)

    def access_mode(self, v: int) -> str:
        """access/faccessat mode: ``F_OK`` for 0, else ``R_OK|W_OK``."""
        v &= 0xFFFFFFFF
        return styled_word(0, "F_OK") if v == 0 else self.access_bits(v)

    def mmap_flags(self, v: int) -> str:
        """mmap flags: map type (``MAP_SHARED_VALIDATE`` is a value of MAP_TYPE, ``MAP_FILE``
        is 0, others ``0xf /* MAP_??? */``), the bits, then the huge page size encoded in
        bits 26..31 as its log2 (``21<<MAP_HUGE_SHIFT``)."""
        v &= 0xFFFFFFFF
        mtype = v & 0xF
        name = self.tables.MAP_TYPES.get(mtype)
        parts = [name if name is not None else f"{hex(mtype)} /* MAP_??? */"]
        huge = v & _MAP_HUGE_BITS
        rest = v & ~0xF & ~_MAP_HUGE_BITS
        style = xstyle.STYLE
        if rest:
            parts.append(self._map_rest.abbrev(rest) if style else self._map_rest(rest))
        if huge:        # strace 6.1 never names the size (MAP_HUGE_2MB): 21<<MAP_HUGE_SHIFT
            parts.append(f"{huge >> _MAP_HUGE_SHIFT}<<MAP_HUGE_SHIFT")
        # -X raw/verbose: one number, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */
        return styled_word(v, "|".join(parts)) if style else "|".join(parts)

    def clone_flags(self, v: int) -> str:
        """clone(2) flags: the bits, then the exit signal of the low byte
        (``CLONE_FILES|SIGCHLD``)."""
        sig = v & _CSIGNAL
        rest = v & ~_CSIGNAL & _U64
        parts = [self._clone_bits(rest)] if rest else []
        if sig:
            parts.append(self.signal_name(sig))
        return "|".join(parts) or "0"

    def sock_type(self, v: int) -> str:
        """socket(2) type: the type value, then SOCK_CLOEXEC, SOCK_NONBLOCK
        (``SOCK_STREAM|SOCK_CLOEXEC``); as strace 6.1 (net.c), a type without a name
        leaves the whole value to the flags: ``SOCK_NONBLOCK|0x9``, or
        ``0x4399 /* SOCK_??? */`` when no flag is named either."""
        v &= 0xFFFFFFFF
        name = self.tables.SOCK_TYPES.get(v & 0xF)
        if name is None:
            return self.sock_flags(v)
        if xstyle.STYLE:                # the type and the flags apart: 0x1|0x80800
            name = xstyle.named(hex(v & 0xF), name)
        rest = v & ~0xF
        return f"{name}|{self.sock_flags(rest)}" if rest else name

    def file_mode(self, v: int) -> str:
        """A mode with its file type (mknod, st_mode): ``S_IFREG|0644``,
        ``S_IFCHR|S_ISUID|0600``; the low 16 bits (umode_t). A type without a name prints
        the whole mode in octal, as strace does: ``0170644``."""
        v &= 0xFFFF
        parts = []
        ftype = v & 0o170000
        if ftype:
            name = self.tables.S_IFMT.get(ftype)
            if name is None:
                return mode_octal(v)
            parts.append(name)
        for bit, name in reversed(self.tables.S_MODE_BITS):   # S_ISUID, S_ISGID, S_ISVTX
            if v & bit:
                parts.append(name)
        parts.append(mode_octal(v & 0o777))
        if xstyle.STYLE and len(parts) > 1:     # 0100644 /* S_IFREG|0644 */
            return xstyle.named(mode_octal(v), "|".join(parts))
        return "|".join(parts)

    def futex_op(self, v: int) -> str:
        """A futex op word by strace 6.1's names (src/xlat/futexops.in): the command,
        ``_PRIVATE`` with FUTEX_PRIVATE_FLAG (FUTEX_FD's spelled ``FUTEX_FD|
        FUTEX_PRIVATE_FLAG``), ``|FUTEX_CLOCK_REALTIME`` only on the waits that take it
        (FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_REQUEUE_PI); any other word in hex
        (``0x101``: FUTEX_WAKE with the clock bit, which the kernel refuses)."""
        v &= 0xFFFFFFFF
        cmd: str | None = self.tables.FUTEX_CMDS.get(v & ~(self._futex_private
                                                            | self._futex_clock_rt))
        if cmd is None or v & self._futex_clock_rt and cmd not in _FUTEX_CLOCK_CMDS:
            return hex(v)
        name = cmd
        if v & self._futex_private:
            name += "|FUTEX_PRIVATE_FLAG" if cmd == "FUTEX_FD" else "_PRIVATE"
        if v & self._futex_clock_rt:
            name += "|FUTEX_CLOCK_REALTIME"
        return styled_word(v, name) if xstyle.STYLE else name

    def ioctl_request(self, v: int) -> str:
        """An ioctl request name (``TCGETS``, ``FIONREAD``); unknown ones in hex."""
        return enum(self.tables.IOCTLS, v, hex_unknown=True)

    def fcntl_cmd(self, v: int) -> str:
        return enum(self.tables.FCNTL_CMDS, v)


@functools.cache
def flagset(bits: tuple[tuple[int, str], ...], unknown: str | None = None) -> FlagSet:
    """The FlagSet of a generated bits table with strace's default text (``unknown``),
    built once per table: for decoders that pick a table by the record's arch."""
    return FlagSet(bits, unknown=unknown)


@functools.cache
def _for_arch(arch: str) -> ArchFlags:
    return ArchFlags(arch)


def for_arch(arch: str | None = None) -> ArchFlags:
    """The decoders of ``arch`` (default: the running one), built once per arch.

    Raises:
      ValueError: an architecture without generated tables.
    """
    return _for_arch(machine_arch() if arch is None else arch)


# The running arch's decoders, for code that decodes this machine's records.
_native = for_arch()
open_flags = _native.open_flags
pipe_flags = _native.pipe_flags
at_flags = _native.at_flags
AT_FDCWD = _native.AT_FDCWD
statx_flags = _native.statx_flags
unlinkat_flags = _native.unlinkat_flags
faccessat_flags = _native.faccessat_flags
statx_mask = _native.statx_mask
prot = _native.prot
madvise_advice = _native.madvise_advice
access_bits = _native.access_bits
wait_options = _native.wait_options
grnd_flags = _native.grnd_flags
rename_flags = _native.rename_flags
mremap_flags = _native.mremap_flags
fd_flags = _native.fd_flags
sa_flags = _native.sa_flags
sock_flags = _native.sock_flags
clone3_flags = _native.clone3_flags
signal_name = _native.signal_name
access_mode = _native.access_mode
mmap_flags = _native.mmap_flags
clone_flags = _native.clone_flags
sock_type = _native.sock_type
file_mode = _native.file_mode
futex_op = _native.futex_op
ioctl_request = _native.ioctl_request
fcntl_cmd = _native.fcntl_cmd
