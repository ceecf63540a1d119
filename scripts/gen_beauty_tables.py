#!/usr/bin/env python3
"""Generate tracekit/kernel/flag_tables.py: flag, constant and ioctl names from the headers.

Usage (needs gcc and the uapi/libc headers, e.g. Debian's linux-libc-dev and libc6-dev):

    python3 scripts/gen_beauty_tables.py [-o tracekit/kernel/flag_tables.py]

How: for each table, ``gcc -E -dM`` of its include list gives the macro names; names
matching the table's pattern are evaluated by compiling and running a small C program
that prints ``(long long)(NAME)`` for each (so expressions such as ``_IOR('T', 0x13, ...)``
or ``(__O_TMPFILE | O_DIRECTORY)`` are evaluated by the compiler, not by us). A name the
compiler rejects (a string, a function-like use) is dropped and the program recompiled.

Values are the uapi ones (``<asm/fcntl.h>``, ``<linux/mman.h>``...), not glibc's, where
the two differ (glibc's ``O_LARGEFILE`` is 0 on x86_64; the kernel's is 0100000).
Order matters for flag tables: names are printed in table order, which is strace's order
where strace's output differs from numeric order (checked against strace 6.1 here).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

# name: (kind, includes, pattern, excluded names, preferred order or None)
#   kind "bits": a tuple of (value, name) in print order; "values": a dict value -> name.
Table = tuple[str, tuple[str, ...], str, frozenset[str], tuple[str, ...]]

_FCNTL = ("asm/fcntl.h",)
_LFCNTL = ("linux/fcntl.h",)
_MMAN = ("linux/mman.h",)

TABLES: dict[str, Table] = {
    "OPEN_ACCMODE": ("values", _FCNTL, r"O_(RDONLY|WRONLY|RDWR)", frozenset(), ()),
    # strace 6.1 prints open flags in this order (tests/e2e/test_strace_diff.py checks).
    "OPEN_FLAGS": ("bits", _FCNTL, r"O_[A-Z]+|FASYNC",
                   frozenset({"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE", "O_NDELAY",
                              "O_ASYNC", "O_FSYNC", "O_RSYNC"}),
                   ("O_CREAT", "O_EXCL", "O_NOCTTY", "O_TRUNC", "O_APPEND", "O_NONBLOCK",
                    "O_SYNC", "O_DSYNC", "O_DIRECT", "O_LARGEFILE", "O_NOFOLLOW", "O_NOATIME",
                    "O_CLOEXEC", "FASYNC", "O_PATH", "O_TMPFILE", "O_DIRECTORY")),
    "AT_FLAGS": ("bits", _LFCNTL, r"AT_[A-Z_]+",
                 frozenset({"AT_FDCWD", "AT_EACCESS", "AT_REMOVEDIR", "AT_STATX_SYNC_TYPE",
                            "AT_STATX_SYNC_AS_STAT", "AT_STATX_FORCE_SYNC",
                            "AT_STATX_DONT_SYNC"}), ()),
    "AT_STATX_SYNC": ("values", _LFCNTL, r"AT_STATX_[A-Z_]+",
                      frozenset({"AT_STATX_SYNC_TYPE"}), ()),
    "AT_CONSTS": ("values", _LFCNTL, r"AT_(FDCWD|EACCESS|STATX_SYNC_TYPE)", frozenset(), ()),
    "AT_REMOVEDIR": ("values", _LFCNTL, r"AT_REMOVEDIR", frozenset(), ()),  # == AT_EACCESS
    "FCNTL_CMDS": ("values", _LFCNTL, r"F_[A-Z_]+",
                   frozenset({"F_RDLCK", "F_WRLCK", "F_UNLCK", "F_EXLCK", "F_SHLCK",
                              "F_LINUX_SPECIFIC_BASE", "F_OWNER_TID", "F_OWNER_PID",
                              "F_OWNER_PGRP", "F_GETLK64", "F_SETLK64", "F_SETLKW64",
                              "F_OK"}), ()),
    "FD_FLAGS": ("bits", _LFCNTL, r"FD_CLOEXEC", frozenset(), ()),
    "S_IFMT": ("values", ("sys/stat.h",), r"S_IF(SOCK|LNK|REG|BLK|DIR|CHR|IFO)",
               frozenset(), ()),
    "S_MODE_BITS": ("bits", ("sys/stat.h",), r"S_IS(UID|GID|VTX)", frozenset(), ()),
    "STATX_MASK": ("bits", ("linux/stat.h",), r"STATX_[A-Z_]+",
                   frozenset({"STATX_ALL", "STATX__RESERVED", "STATX_ATTR_COMPRESSED",
                              "STATX_ATTR_IMMUTABLE", "STATX_ATTR_APPEND", "STATX_ATTR_NODUMP",
                              "STATX_ATTR_ENCRYPTED", "STATX_ATTR_AUTOMOUNT",
                              "STATX_ATTR_MOUNT_ROOT", "STATX_ATTR_VERITY", "STATX_ATTR_DAX"}),
                   ("STATX_TYPE", "STATX_MODE", "STATX_NLINK", "STATX_UID", "STATX_GID",
                    "STATX_ATIME", "STATX_MTIME", "STATX_CTIME", "STATX_INO", "STATX_SIZE",
                    "STATX_BLOCKS", "STATX_BASIC_STATS")),
    "PROT_FLAGS": ("bits", _MMAN, r"PROT_[A-Z_]+", frozenset({"PROT_NONE"}), ()),
    "MAP_TYPES": ("values", _MMAN, r"MAP_(SHARED|PRIVATE|SHARED_VALIDATE)", frozenset(), ()),
    "MAP_FLAGS": ("bits", _MMAN, r"MAP_[A-Z_]+",
                  frozenset({"MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE", "MAP_TYPE",
                             "MAP_FILE", "MAP_ANON", "MAP_HUGE_SHIFT", "MAP_HUGE_MASK",
                             "MAP_UNINITIALIZED"}), ()),
    "MAP_HUGE": ("values", _MMAN, r"MAP_HUGE_[0-9]+[KMG]B", frozenset(), ()),
    "MAP_CONSTS": ("values", _MMAN, r"MAP_(TYPE|HUGE_SHIFT|HUGE_MASK)", frozenset(), ()),
    "MREMAP_FLAGS": ("bits", _MMAN, r"MREMAP_[A-Z_]+", frozenset(), ()),
    "MADV_ADVICE": ("values", _MMAN, r"MADV_[A-Z_0-9]+", frozenset(), ()),
    "CLONE_FLAGS": ("bits", ("linux/sched.h",), r"CLONE_[A-Z_]+",
                    frozenset({"CLONE_ARGS_SIZE_VER0", "CLONE_ARGS_SIZE_VER1",
                               "CLONE_ARGS_SIZE_VER2"}), ()),
    "SIGNALS": ("values", ("asm/signal.h",), r"SIG[A-Z]+[0-9]*",
                frozenset({"SIGRTMIN", "SIGRTMAX", "SIGSTKSZ", "SIGUNUSED", "SIGIOT",
                           "SIGPOLL", "SIGCLD"}), ()),
    "SIG_HANDLERS": ("values", ("asm/signal.h",), r"SIG_(DFL|IGN|ERR)", frozenset(), ()),
    "SIGPROCMASK_HOW": ("values", ("asm/signal.h",), r"SIG_(BLOCK|UNBLOCK|SETMASK)",
                        frozenset(), ()),
    "SA_FLAGS": ("bits", ("asm/signal.h",), r"SA_[A-Z]+",
                 frozenset({"SA_NOMASK", "SA_ONESHOT", "SA_STACK"}), ()),
    "ADDRESS_FAMILIES": ("values", ("sys/socket.h",), r"AF_[A-Z0-9_]+",
                         frozenset({"AF_MAX", "AF_LOCAL", "AF_FILE", "AF_ROUTE"}), ()),
    "SOCK_TYPES": ("values", ("sys/socket.h",),
                   r"SOCK_(STREAM|DGRAM|RAW|RDM|SEQPACKET|DCCP|PACKET)", frozenset(), ()),
    "SOCK_FLAGS": ("bits", ("sys/socket.h",), r"SOCK_(CLOEXEC|NONBLOCK)", frozenset(),
                   ("SOCK_CLOEXEC", "SOCK_NONBLOCK")),
    "IP_PROTOCOLS": ("values", ("netinet/in.h",), r"IPPROTO_[A-Z0-9]+",
                     frozenset({"IPPROTO_MAX", "IPPROTO_HOPOPTS"}), ()),
    "NETLINK_PROTOCOLS": ("values", ("linux/netlink.h",),
                          r"NETLINK_(ROUTE|UNUSED|USERSOCK|FIREWALL|SOCK_DIAG|NFLOG|XFRM|"
                          r"SELINUX|ISCSI|AUDIT|FIB_LOOKUP|CONNECTOR|NETFILTER|IP6_FW|DNRTMSG|"
                          r"KOBJECT_UEVENT|GENERIC|SCSITRANSPORT|ECRYPTFS|RDMA|CRYPTO|SMC)",
                          frozenset(), ()),
    "ACCESS_MODES": ("bits", ("unistd.h",), r"[RWX]_OK", frozenset(), ("R_OK", "W_OK", "X_OK")),
    "SEEK_WHENCE": ("values", ("linux/fs.h",), r"SEEK_[A-Z]+", frozenset({"SEEK_MAX"}), ()),
    "IOCTLS": ("values", ("asm/ioctls.h", "linux/fs.h"),
               r"TC[A-Z0-9]+|TIOC[A-Z0-9]+|FIO[A-Z]+|FS_IOC_[A-Z_]+|FICLONE|FICLONERANGE|"
               r"FIDEDUPERANGE|FIFREEZE|FITHAW|FITRIM",
               frozenset({"TIOCSER_TEMT", "TCIFLUSH", "TCOFLUSH", "TCIOFLUSH", "TCOOFF",
                          "TCOON", "TCIOFF", "TCION", "TCSANOW", "TCSADRAIN", "TCSAFLUSH"}),
               ()),
    "FUTEX_CMDS": ("values", ("linux/futex.h",),
                   r"FUTEX_(WAIT|WAKE|FD|REQUEUE|CMP_REQUEUE|WAKE_OP|LOCK_PI|UNLOCK_PI|"
                   r"TRYLOCK_PI|WAIT_BITSET|WAKE_BITSET|WAIT_REQUEUE_PI|CMP_REQUEUE_PI|LOCK_PI2)",
                   frozenset(), ()),
    "FUTEX_CONSTS": ("values", ("linux/futex.h",), r"FUTEX_(PRIVATE_FLAG|CLOCK_REALTIME)",
                     frozenset(), ()),
    "PRCTL_OPTIONS": ("values", ("linux/prctl.h",),
                      r"PR_(GET|SET)_[A-Z0-9_]+|PR_CAPBSET_(READ|DROP)|PR_CAP_AMBIENT|"
                      r"PR_TASK_PERF_EVENTS_(DISABLE|ENABLE)|PR_MCE_KILL|PR_MCE_KILL_GET|"
                      r"PR_MPX_(ENABLE|DISABLE)_MANAGEMENT|PR_SVE_(SET|GET)_VL|"
                      r"PR_SME_(SET|GET)_VL|PR_PAC_RESET_KEYS|PR_SCHED_CORE",
                      frozenset(), ()),
    "ARCH_PRCTL_OPTIONS": ("values", ("asm/prctl.h",), r"ARCH_[A-Z0-9_]+", frozenset(), ()),
    "WAIT_OPTIONS": ("bits", ("linux/wait.h",), r"W[A-Z]+|__W[A-Z]+",
                     frozenset({"WSTOPPED"}), ()),
    "RLIMIT_RESOURCES": ("values", ("asm/resource.h",), r"RLIMIT_[A-Z]+", frozenset(), ()),
    "GRND_FLAGS": ("bits", ("linux/random.h",), r"GRND_[A-Z]+", frozenset(), ()),
    "FADVISE_ADVICE": ("values", ("linux/fadvise.h",), r"POSIX_FADV_[A-Z]+", frozenset(), ()),
    "RENAME_FLAGS": ("bits", ("linux/fs.h",), r"RENAME_[A-Z]+", frozenset(), ()),
    "EPOLL_CTL_OPS": ("values", ("linux/eventpoll.h",), r"EPOLL_CTL_[A-Z]+", frozenset(), ()),
    "CLOCK_IDS": ("values", ("linux/time.h",), r"CLOCK_[A-Z_]+",
                  frozenset({"CLOCK_SGI_CYCLE"}), ()),
}

# One name per value in "values" tables when headers define aliases: the name strace prints.
PREFERRED = {"AF_UNIX", "AF_NETLINK", "SIGABRT", "SIGIO", "IPPROTO_IP", "SEEK_DATA",
             "FIONBIO", "FIONREAD", "TCGETS", "TIOCINQ", "FS_IOC_GETFLAGS", "FS_IOC_SETFLAGS",
             "FS_IOC_GETVERSION", "FS_IOC_SETVERSION", "MADV_NORMAL", "CLOCK_REALTIME"}
NOT_PREFERRED = {"TIOCINQ", "FS_IOC32_GETFLAGS", "FS_IOC32_SETFLAGS", "FS_IOC32_GETVERSION",
                 "FS_IOC32_SETVERSION", "PR_SET_PTRACER_ANY"}

_DEFINE = re.compile(r"^#define ([A-Za-z_][A-Za-z0-9_]*) (.*)$")


def macro_names(includes: tuple[str, ...]) -> list[str]:
    """Object-like macro names defined after including ``includes`` (``gcc -E -dM``)."""
    src = "#define _GNU_SOURCE 1\n" + "".join(f"#include <{h}>\n" for h in includes)
    out = subprocess.run(["gcc", "-E", "-dM", "-x", "c", "-"], input=src, text=True,
                         capture_output=True, check=True).stdout
    return [m.group(1) for line in out.splitlines() if (m := _DEFINE.match(line))]


def evaluate(includes: tuple[str, ...], names: list[str], tmp: Path) -> dict[str, int]:
    """``name -> value``: compile and run a program printing each as a long long."""
    names = list(names)
    while names:
        lines = ["#define _GNU_SOURCE 1", "#include <stdio.h>", "#include <stdint.h>",
                 *(f"#include <{h}>" for h in includes), "int main(void) {"]
        first = len(lines) + 1
        lines += [f'printf("%s %lld\\n", "{n}", (long long)(intptr_t)({n}));' for n in names]
        lines += ["return 0; }"]
        c, exe = tmp / "t.c", tmp / "t"
        c.write_text("\n".join(lines) + "\n")
        r = subprocess.run(["gcc", "-w", "-o", str(exe), str(c)], capture_output=True, text=True)
        if r.returncode == 0:
            out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
            return {n: int(v) for n, v in (ln.split() for ln in out.splitlines())}
        bad = {int(m.group(1)) - first
               for m in re.finditer(rf"{re.escape(str(c))}:(\d+):\d+: error", r.stderr)}
        bad = {i for i in bad if 0 <= i < len(names)}
        if not bad:
            raise RuntimeError(f"gcc failed on {includes}:\n{r.stderr[:2000]}")
        names = [n for i, n in enumerate(names) if i not in bad]
    return {}


def build(tmp: Path) -> dict[str, object]:
    tables: dict[str, object] = {}
    cache: dict[tuple[str, ...], list[str]] = {}
    for tname, (kind, includes, pattern, excluded, order) in TABLES.items():
        if includes not in cache:
            cache[includes] = macro_names(includes)
        rx = re.compile(rf"(?:{pattern})")
        names = sorted({n for n in cache[includes] if rx.fullmatch(n) and n not in excluded})
        if tname == "PRCTL_OPTIONS":         # sub-arguments (PR_SET_MM_BRK) are not options
            names = [n for n in names if not any(n.startswith(o + "_") for o in names)]
        values = evaluate(includes, names, tmp)
        if kind == "values":
            by_value: dict[int, str] = {}
            for n, v in sorted(values.items()):
                old = by_value.get(v)
                if old is None or _better(n, old):
                    by_value[v] = n
            tables[tname] = dict(sorted(by_value.items()))
        else:
            seen: dict[int, str] = {}
            for n, v in sorted(values.items()):
                if v and (v not in seen or _better(n, seen[v])):
                    seen[v] = n
            pairs = [(v, n) for v, n in seen.items()]
            rank = {n: i for i, n in enumerate(order)}
            pairs.sort(key=lambda p: (rank.get(p[1], len(rank)), p[0] & -p[0], p[0]))
            # A multi-bit name must come before its parts when both are unranked.
            tables[tname] = tuple(pairs)
    return tables


def _better(new: str, old: str) -> bool:
    if new in NOT_PREFERRED:
        return False
    if old in NOT_PREFERRED or new in PREFERRED:
        return True
    if old in PREFERRED:
        return False
    return (len(new), new) < (len(old), old)


def render(tables: dict[str, object], command: str) -> str:
    out = [
        '"""Flag, constant and ioctl names from this machine\'s uapi and libc headers.',
        "",
        "GENERATED by scripts/gen_beauty_tables.py; do not edit. Command:",
        "",
        f"    {command}",
        "",
        "``*_FLAGS``/bits tables: ``((value, name), ...)`` in print order (strace's);",
        "values tables: ``{value: name}``. Decoders: tracekit/decode/flags.py.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
    ]
    for name, table in tables.items():
        if isinstance(table, dict):
            out.append(f"{name}: dict[int, str] = {{")
            out += [f"    {v}: {n!r}," for v, n in table.items()]
            out.append("}")
        else:
            out.append(f"{name}: tuple[tuple[int, str], ...] = (")
            out += [f"    ({v:#x}, {n!r})," for v, n in table]
            out.append(")")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="tracekit/kernel/flag_tables.py")
    opt = ap.parse_args()
    command = "python3 scripts/gen_beauty_tables.py " + shlex.join(sys.argv[1:])
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        tables = build(Path(tmp))
    text = render(tables, command.strip() + f"   # {gcc.splitlines()[0]}, {os.uname().machine}")
    Path(opt.output).write_text(text)
    print(f"wrote {opt.output}: {len(tables)} tables", file=sys.stderr)


if __name__ == "__main__":
    main()
