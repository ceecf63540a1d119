"""Argument kinds from C types: how an argument prints when its type is all we know.

The tracefs format of ``syscalls:sys_enter_<name>`` gives each argument's C declaration
(``tracekit.kernel.tracefs.Field.c_type``: ``"int"``, ``"const char *"``, ``"size_t"``);
the register holding it is 64 bits wide whatever the type. strace prints each argument by
its type, so an ``int`` or ``unsigned int`` is the register's low 32 bits (a caller may
leave garbage in the high half: glibc's ``syscall()`` passes an ``int`` in a 64-bit
register unchanged), a pointer is ``NULL`` or hex, a ``size_t`` decimal.

:func:`kind_of` picks the argument kind (``tracekit.decode.argspec``) of a syscall the
argspec does not list; :func:`narrowed` corrects an argspec kind whose printing would use
the whole register for a 32-bit type. Both are pure: the decoder
(``tracekit.decode.args.SyscallDecoder``, ``arg_types``) asks once per syscall.
"""

from __future__ import annotations

__all__ = ["kind_of", "narrowed", "width_of"]

# LP64 (x86_64, arm64) C types of syscall arguments as tracefs spells them (every type on
# Linux 6.18 x86_64's events/syscalls), by how strace prints them.
_SIGNED32 = frozenset({"int", "pid_t", "clockid_t", "timer_t", "mqd_t", "key_t",
                       "key_serial_t", "rwf_t", "__s32", "s32"})
_UID32 = frozenset({"uid_t", "gid_t", "qid_t"})        # -1 prints as -1 (strace printuid)
_UNSIGNED32 = frozenset({"unsigned int", "unsigned", "u32", "__u32"})
_MODE = frozenset({"umode_t", "mode_t"})                # octal, like the argspec's mode
_SIGNED64 = frozenset({"long", "loff_t", "off_t", "ssize_t", "__kernel_old_time_t"})
_SIZE = frozenset({"size_t"})
# typedefs of pointers (linux/capability.h)
_POINTERS = frozenset({"cap_user_header_t", "cap_user_data_t"})

# Argument names of an int that is a file descriptor, or a directory fd of the *at calls
# (their SYSCALL_DEFINE names, include/linux/syscalls.h).
_FD_NAMES = frozenset({"fd", "fd_in", "fd_out", "epfd", "ufd", "oldfd", "newfd", "pidfd",
                       "out_fd", "in_fd", "fdin", "fdout", "fildes", "mntfd", "fs_fd", "from_dfd",
                       "to_dfd"})
_DIRFD_NAMES = frozenset({"dfd", "olddfd", "newdfd", "dirfd"})


def _bare(c_type: str) -> str:
    t = c_type.strip()
    if t.startswith("const "):
        t = t[len("const "):]
    if t.endswith(" const"):
        t = t[:-len(" const")]
    return t


def _is_pointer(t: str) -> bool:
    return "*" in t or t in _POINTERS


def width_of(c_type: str) -> int:
    """Bits of the C type that carry the value: 32 for the int types, 16 for umode_t,
    else 64 (long, size_t, pointers, unknown types)."""
    t = _bare(c_type)
    if _is_pointer(t):
        return 64
    if t in _SIGNED32 or t in _UID32 or t in _UNSIGNED32 or t.startswith("enum "):
        return 32
    if t in _MODE:
        return 16
    return 64


def kind_of(name: str, c_type: str) -> str:
    """The argument kind of argument ``name`` declared ``c_type``, for a syscall the
    argspec does not list.

    Pointers print ``NULL`` or hex (``p``); ``int`` and its typedefs signed decimal of the
    low 32 bits (``d``; ``fd``/``dirfd`` by the argument's name); ``unsigned int`` the low
    32 bits, hex when the name says flags (``x32``), else decimal (``u32``); ``uid_t`` and
    ``gid_t`` decimal with ``-1`` (``uid``); ``umode_t`` octal (``mode``); ``size_t``
    decimal (``u``); ``long``, ``loff_t`` signed decimal (``ld``); ``unsigned long``
    decimal when the name says a length or count, else hex (``x``), as is anything
    unknown.
    """
    t = _bare(c_type)
    if _is_pointer(t):
        return "p"
    if t in _SIGNED32 or t.startswith("enum "):
        if name in _FD_NAMES:
            return "fd"
        return "dirfd" if name in _DIRFD_NAMES else "d"
    if t in _UID32:
        return "uid"
    if t in _UNSIGNED32:
        return "x32" if "flag" in name or name == "mask" else "u32"
    if t in _MODE:
        return "mode"
    if t in _SIZE:
        return "u"
    if t in _SIGNED64:
        return "ld"
    if t in ("unsigned long", "u64", "__u64") and (
            name in ("len", "size", "count", "vlen", "nr", "nr_pages", "maxnode")
            or name.endswith(("_len", "_size"))):
        return "u"
    return "x"


def narrowed(kind: str, c_type: str) -> str:
    """``kind`` (from the argspec) corrected for the width of ``c_type``: the kinds that
    print the whole register (``u``, ``x``, ``ld``) become their 32-bit forms on a
    32-bit type, ``x`` on a pointer becomes ``p`` (``NULL`` for 0); other kinds already
    read the bits their type has."""
    t = _bare(c_type)
    if kind == "x" and _is_pointer(t):
        return "p"
    if kind not in ("u", "x", "ld") or width_of(t) != 32:
        return kind
    if t in _SIGNED32 or t.startswith("enum "):
        return "x32" if kind == "x" else "d"
    return "x32" if kind == "x" else "u32"
