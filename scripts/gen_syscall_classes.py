#!/usr/bin/env python3
"""Generate tracekit/kernel/syscall_classes.py: syscall classes as strace's ``-e trace=%class``.

Usage (as root, on a kernel with syscall trace events):

    python3 scripts/gen_syscall_classes.py [--tracefs /sys/kernel/tracing] \
        [-o tracekit/kernel/syscall_classes.py]

What it derives from the running kernel's ``events/syscalls/sys_enter_*/format`` files:

- %file: a ``char *`` argument that names a file (FILE_ARGS), plus FILE_EXTRA;
- %desc: an integer argument that is a file descriptor (FD_ARGS), plus the syscalls that
  return a new fd and the poll/select family (DESC_EXTRA).

The other classes are explicit lists written from the man pages' meanings (section 2),
by table name. Names are the syscall table names (system_calls), not event names
(``newstat`` is entered as ``stat``). Lists name syscalls of x86_64, arm64 and i386 even
when the running kernel has no event for them; derived members are only as complete as
the kernel that ran the generator. Run again when the kernel gains syscalls.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tracekit.kernel.tracefs import EVENT_ALIASES, syscall_arg_table  # noqa: E402

# Argument names of type ``[const] char *`` that hold a path name. Not ``name`` (an xattr
# name, a host name) nor ``u_name`` (a POSIX mqueue name) nor ``uname`` (memfd_create).
FILE_ARGS = frozenset({
    "filename", "pathname", "path", "oldname", "newname", "oldpath", "newpath",
    "from_pathname", "to_pathname", "specialfile", "special", "new_root", "put_old",
    "dir_name", "dev_name",
})
# File names under other argument names, or syscalls of other arches.
FILE_EXTRA = frozenset({
    "acct", "umount", "umount2", "name_to_handle_at", "getcwd",
    "stat64", "lstat64", "fstatat64", "statfs64", "truncate64", "chown32", "lchown32",
    "oldstat", "oldlstat", "readlinkat", "utimensat_time64", "utimes", "futimesat",
})
# Integer arguments holding a file descriptor.
FD_ARGS = frozenset({
    "fd", "fildes", "oldfd", "newfd", "dfd", "olddfd", "newdfd", "from_dfd", "to_dfd",
    "epfd", "ufd", "fd_in", "fd_out", "in_fd", "out_fd", "fdin", "fdout", "fs_fd",
    "mountdirfd", "ruleset_fd", "fanotify_fd", "group_fd", "pidfd", "mqdes",
})
# Syscalls that return a new fd, and the fd-set waits whose fds hide in arrays.
DESC_EXTRA = frozenset({
    "open", "creat", "openat", "openat2", "open_by_handle_at", "pipe", "pipe2", "dup",
    "eventfd", "eventfd2", "signalfd", "signalfd4", "timerfd_create", "epoll_create",
    "epoll_create1", "inotify_init", "inotify_init1", "fanotify_init", "memfd_create",
    "memfd_secret", "userfaultfd", "perf_event_open", "bpf", "pidfd_open", "pidfd_getfd",
    "fsopen", "fsmount", "fspick", "open_tree", "open_tree_attr", "socket", "socketpair",
    "accept", "accept4", "io_uring_setup", "landlock_create_ruleset", "mq_open",
    "poll", "ppoll", "ppoll_time64", "select", "_newselect", "pselect6",
    "pselect6_time64", "fcntl64", "fstat64", "fstatfs64", "ftruncate64", "fadvise64_64",
    "sendfile64", "fchown32",
    # strace's socketcall entry is TD (a descriptor call), not a network one: its
    # sub-calls are, and are selected as themselves (socket, bind, send ...)
    "socketcall",
})

# "network related": the BSD socket API; send and recv are socketcall sub-calls of i386
# (tracekit.kernel.syscalls names them), socketcall itself is in %desc as strace has it.
NET = frozenset({
    "socket", "socketpair", "bind", "connect", "listen", "accept", "accept4",
    "getsockname", "getpeername", "sendto", "recvfrom", "sendmsg",
    "recvmsg", "sendmmsg", "recvmmsg", "recvmmsg_time64", "setsockopt", "getsockopt",
    "shutdown", "send", "recv",
})
# Process lifecycle: creation, exec, termination and reaping. The kill family sends
# signals and is in %signal: a signal need not end a process.
PROCESS = frozenset({
    "clone", "clone3", "fork", "vfork", "execve", "execveat", "exit", "exit_group",
    "wait4", "waitid", "waitpid",
})
# Memory mappings: create, change, advise, lock, sync, query, NUMA placement.
MEMORY = frozenset({
    "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "pkey_mprotect",
    "madvise", "process_madvise", "mlock", "mlock2", "munlock", "mlockall", "munlockall",
    "msync", "mincore", "remap_file_pages", "mbind", "set_mempolicy",
    "set_mempolicy_home_node", "get_mempolicy", "migrate_pages", "move_pages", "mseal",
    "map_shadow_stack", "shmat", "shmdt", "process_mrelease",
})
SIGNAL = frozenset({
    "rt_sigaction", "sigaction", "signal", "rt_sigprocmask", "sigprocmask", "rt_sigreturn",
    "sigreturn", "rt_sigsuspend", "sigsuspend", "rt_sigpending", "sigpending",
    "rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "sigaltstack", "sgetmask", "ssetmask", "kill", "tkill", "tgkill", "pause", "signalfd",
    "signalfd4", "pidfd_send_signal",
})
# System V IPC (svipc(7)); POSIX mqueues are fds.
IPC = frozenset({
    "ipc", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop",
    "semtimedop_time64", "semctl", "shmget", "shmat", "shmdt", "shmctl",
})
# Read or change user and group ids or capability sets (credentials(7)).
CREDS = frozenset({
    "getuid", "geteuid", "getgid", "getegid", "setuid", "setgid", "setreuid", "setregid",
    "setresuid", "getresuid", "setresgid", "getresgid", "setfsuid", "setfsgid",
    "getgroups", "setgroups", "capget", "capset",
    "getuid32", "geteuid32", "getgid32", "getegid32", "setuid32", "setgid32",
    "setreuid32", "setregid32", "setresuid32", "getresuid32", "setresgid32",
    "getresgid32", "setfsuid32", "setfsgid32", "getgroups32", "setgroups32",
})
# Read or change system clocks (sleeping on a clock is not reading it).
CLOCK = frozenset({
    "adjtimex", "clock_adjtime", "clock_adjtime64", "clock_getres", "clock_getres_time64",
    "clock_gettime", "clock_gettime64", "clock_settime", "clock_settime64", "gettimeofday",
    "settimeofday", "time", "stime",
})
STAT = frozenset({"stat", "stat64", "oldstat"})
LSTAT = frozenset({"lstat", "lstat64", "oldlstat"})
FSTAT = frozenset({"fstat", "fstat64", "oldfstat", "newfstatat", "fstatat64", "statx"})
STATFS = frozenset({"statfs", "statfs64"})
FSTATFS = frozenset({"fstatfs", "fstatfs64"})
# Always succeed, take no arguments.
PURE = frozenset({
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getpgrp",
    "getuid32", "geteuid32", "getgid32", "getegid32",
})


def derive(table: dict[str, list]) -> dict[str, set[str]]:
    """Derive %file and %desc from the argument table (event name -> args)."""
    file, desc = set(FILE_EXTRA), set(DESC_EXTRA)
    for event, args in table.items():
        name = EVENT_ALIASES.get(event, event)
        for arg in args:
            if arg.name in FILE_ARGS and arg.c_type.endswith("char *"):
                file.add(name)
            if arg.name in FD_ARGS and "*" not in arg.c_type:
                desc.add(name)
    return {"file": file, "desc": desc}


def build(root: Path) -> dict[str, frozenset[str]]:
    derived = derive(syscall_arg_table(root))
    classes = {
        "file": derived["file"], "desc": derived["desc"], "net": NET, "process": PROCESS,
        "memory": MEMORY, "signal": SIGNAL, "ipc": IPC, "creds": CREDS, "clock": CLOCK,
        "stat": STAT, "lstat": LSTAT, "fstat": FSTAT, "%stat": STAT | LSTAT | FSTAT,
        "statfs": STATFS, "fstatfs": FSTATFS, "%statfs": STATFS | FSTATFS | {"ustat"},
        "pure": PURE,
    }
    classes["network"] = classes["net"]
    return {k: frozenset(v) for k, v in classes.items()}


def render(classes: dict[str, frozenset[str]], root: Path, argv: list[str]) -> str:
    lines = [
        '"""Syscall classes for ``%class`` filters (strace -e trace=%file ...). GENERATED.',
        "",
        f"Produced by: python3 scripts/gen_syscall_classes.py {' '.join(argv)}".rstrip(),
        f"It read this machine's tracefs formats under {root}/events/syscalls",
        f"(Linux {platform.release()} {platform.machine()}) on "
        f"{datetime.date.today().isoformat()};",
        "%file and %desc are derived from argument names, the rest are the explicit lists",
        "in the script. Do not edit: change the script and run it again.",
        '"""',
        "",
        "CLASSES: dict[str, frozenset[str]] = {",
    ]
    for cls in sorted(classes):
        lines.append(f"    {cls!r}: frozenset({{")
        names = sorted(classes[cls])
        row = "       "
        for n in names:
            item = f" {n!r},"
            if len(row) + len(item) > 95:
                lines.append(row)
                row = "       "
            row += item
        lines.append(row)
        lines.append("    }),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tracefs", type=Path, default=Path("/sys/kernel/tracing"))
    parser.add_argument("-o", "--output", type=Path,
                        default=Path(__file__).resolve().parents[1] / "tracekit"
                        / "kernel" / "syscall_classes.py")
    args = parser.parse_args()
    classes = build(args.tracefs)
    text = render(classes, args.tracefs, sys.argv[1:])
    tmp = args.output.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, args.output)
    counts = ", ".join(f"%{k} {len(v)}" for k, v in sorted(classes.items()))
    print(f"wrote {args.output}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
