#!/usr/bin/env python3
"""Generate tracekit/kernel/syscall_protos/<arch>.py: every syscall's arguments and kinds.

Usage (as root, or as a user who can read tracefs, on an x86_64 kernel):

    python3 scripts/gen_syscall_protos.py [--tracefs /sys/kernel/tracing] [--arch ARCH]...
                                          [-o tracekit/kernel/syscall_protos]

Per syscall of the arch's table (the ``system-calls`` package), each argument's name and C
type as the kernel declares them (its ``SYSCALL_DEFINE``), and the argument kind the
decoder prints it with (``tracekit.decode.argspec`` lists the kinds).

Where the facts come from:

- names and C types: the tracefs ``format`` files of the running kernel
  (``events/syscalls/sys_enter_<name>/format``; Linux 6.19's ``__data_loc`` copies of user
  memory are not arguments and are skipped). Syscalls the running kernel has no event for
  (``init_module`` without CONFIG_MODULES, ...) take their prototype from ``EXTRA`` below,
  copied from include/linux/syscalls.h.
- arm64: the same SYSCALL_DEFINE prototypes (they are shared by every arch: the x86_64
  formats give them), for the names of arm64's table, with arm64's own differences in
  ``ARM64``: ``clone`` has ``tls`` before ``child_tidptr`` (CONFIG_CLONE_BACKWARDS,
  kernel/fork.c). It is not read from an arm64 kernel.
- kinds: the argument's C type and name (``tracekit.decode.argtypes.kind_of``: an ``int``
  is the low 32 bits signed, ``unsigned int`` unsigned, a pointer ``NULL`` or hex,
  ``size_t`` decimal, an fd by its name), a ``const char *`` that names a path or a key
  (``path``/``str``, read in the kernel when the beauty map captures it), a
  ``const struct ... *`` the call only reads (``pin``), a ``clockid_t`` (``clockid``), and
  the named constants of ``ENUMS`` (``which`` of setitimer is ``ITIMER_*``).

The table is written once per kernel release at build time and shipped, so tracekit can
decode without reading tracefs (mode 0700: root only); tests/kernel/test_syscall_protos.py
checks it against the running kernel's tracefs when that can be read.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tracekit.decode.argtypes import kind_of  # noqa: E402
from tracekit.kernel.syscalls import SyscallTable  # noqa: E402
from tracekit.kernel.tracefs import EVENT_ALIASES, syscall_arg_table  # noqa: E402

Proto = tuple[tuple[str, str], ...]

# Prototypes of syscalls a kernel built without their feature has no event for
# (include/linux/syscalls.h, Linux 6.18).
EXTRA: dict[str, Proto] = {
    "init_module": (("umod", "void *"), ("len", "unsigned long"), ("uargs", "const char *")),
    "finit_module": (("fd", "int"), ("uargs", "const char *"), ("flags", "int")),
    "delete_module": (("name_user", "const char *"), ("flags", "unsigned int")),
    "kexec_load": (("entry", "unsigned long"), ("nr_segments", "unsigned long"),
                   ("segments", "struct kexec_segment *"), ("flags", "unsigned long")),
    "kexec_file_load": (("kernel_fd", "int"), ("initrd_fd", "int"),
                        ("cmdline_len", "unsigned long"), ("cmdline_ptr", "const char *"),
                        ("flags", "unsigned long")),
    "map_shadow_stack": (("addr", "unsigned long"), ("size", "unsigned long"),
                         ("flags", "unsigned int")),
    "set_thread_area": (("u_info", "struct user_desc *"),),
    # calls the kernel removed (ENOSYS), with the arguments strace 6.1 prints for them
    # (its syscallent: undecoded words in hex)
    "lookup_dcookie": (("cookie64", "u64"), ("buf", "char *"), ("len", "size_t")),
    "uselib": (("library", "const char *"),),
    "_sysctl": (("args", "struct __sysctl_args *"),),
    **{name: tuple((f"arg{i}", "unsigned long") for i in range(n))
       for name, n in (("create_module", 2), ("get_kernel_syms", 1), ("query_module", 5),
                       ("nfsservctl", 3), ("getpmsg", 5), ("putpmsg", 5), ("afs_syscall", 5),
                       ("tuxcall", 3), ("security", 3), ("vserver", 5))},
    "get_thread_area": (("u_info", "struct user_desc *"),),
}

# arm64's prototypes where they differ from x86_64's: clone with CONFIG_CLONE_BACKWARDS
# (kernel/fork.c); fadvise64 is sys_fadvise64_64 (include/uapi/asm-generic/unistd.h,
# mm/fadvise.c: a loff_t len where x86_64's sys_fadvise64 takes a size_t).
ARM64: dict[str, Proto] = {
    "clone": (("clone_flags", "unsigned long"), ("newsp", "unsigned long"),
              ("parent_tidptr", "int *"), ("tls", "unsigned long"),
              ("child_tidptr", "int *")),
    "fadvise64": (("fd", "int"), ("offset", "loff_t"), ("len", "loff_t"), ("advice", "int")),
}

# (syscall, argument) -> the kind naming its constants or flags (tracekit.decode.args, with
# the tables of tracekit/kernel/flag_tables): strace prints these names, and an unknown
# value as ``0xdeadbeef /* ITIMER_??? */``; and the few arguments whose C type does not
# say how strace prints them (ptrace's addr and data are pointers declared unsigned long).
ENUMS: dict[tuple[str, str], str] = {
    ("setitimer", "which"): "itimer",
    ("getitimer", "which"): "itimer",
    ("getpriority", "which"): "priowhich",
    ("setpriority", "which"): "priowhich",
    ("sched_setscheduler", "policy"): "schedpolicy",
    ("sched_get_priority_max", "policy"): "schedpolicy",
    ("sched_get_priority_min", "policy"): "schedpolicy",
    ("add_key", "ringid"): "keyspec",
    ("request_key", "destringid"): "keyspec",
    ("keyctl", "option"): "keyctlcmd",
    ("shutdown", "how"): "shuthow",
    ("lseek", "whence"): "whence",
    ("madvise", "behavior"): "madv",
    ("rt_sigprocmask", "how"): "how",
    ("getrusage", "who"): "rusagewho",
    ("waitid", "which"): "idtype",
    ("epoll_ctl", "op"): "epollop",
    ("fadvise64", "advice"): "fadv",
    ("prlimit64", "resource"): "rlimit",
    ("getrlimit", "resource"): "rlimit",
    ("setrlimit", "resource"): "rlimit",
    ("socket", "family"): "af",
    ("socketpair", "family"): "af",
    ("timerfd_create", "clockid"): "clockid",
    ("pidfd_send_signal", "sig"): "sig",
    ("rt_sigqueueinfo", "sig"): "sig",
    ("rt_tgsigqueueinfo", "sig"): "sig",
    ("ptrace", "request"): "ptracereq",
    ("ptrace", "addr"): "p",
    ("ptrace", "data"): "p",
    ("seccomp", "op"): "seccompop",
    ("ioprio_get", "which"): "ioprio_who",
    ("ioprio_set", "which"): "ioprio_who",
    ("kcmp", "type"): "kcmptype",
    ("membarrier", "cmd"): "membarriercmd",
    ("mlockall", "flags"): "mclflags",
    ("bpf", "cmd"): "bpfcmd",
    ("landlock_add_rule", "rule_type"): "landlockrule",
    ("landlock_add_rule", "rule_attr"): "landlockruleattr",
    ("landlock_create_ruleset", "attr"): "landlockrulesetattr",
    ("process_madvise", "behavior"): "madv",
    ("shmctl", "cmd"): "shmctlcmd",
    ("semctl", "cmd"): "semctlcmd",
    ("semctl", "arg"): "p",
    ("msgctl", "cmd"): "msgctlcmd",
    # flag words (tracekit.decode.flagwords)
    ("inotify_add_watch", "mask"): "inmask",
    ("fanotify_init", "flags"): "faninitflags",
    ("fanotify_init", "event_f_flags"): "oflags",
    ("fanotify_mark", "fanotify_fd"): "fd",
    ("fanotify_mark", "flags"): "fanmarkflags",
    ("fanotify_mark", "mask"): "fanevents",
    ("fanotify_mark", "dfd"): "fandirfd",
    ("fallocate", "mode"): "fallocmode",
    ("mlock2", "start"): "p",
    ("mlock2", "flags"): "mlock2flags",
    ("pidfd_open", "flags"): "pidfdflags",
    ("sync_file_range", "flags"): "syncfrflags",
    ("ioprio_set", "ioprio"): "ioprio",
    ("mbind", "start"): "p",
    ("mbind", "mode"): "mpolmode",
    ("mbind", "flags"): "mbindflags",
    ("set_mempolicy", "mode"): "mpolmode32",
    ("get_mempolicy", "addr"): "p",
    ("get_mempolicy", "flags"): "getmempolflags",
    ("name_to_handle_at", "name"): "path",
    ("name_to_handle_at", "flag"): "nthflags",
    ("open_by_handle_at", "mountdirfd"): "fd",
    ("open_by_handle_at", "flags"): "oflags",
    ("swapon", "swap_flags"): "swapflags",
    ("shmget", "key"): "ipckey",
    ("shmget", "shmflg"): "shmgetflags",
    ("semget", "key"): "ipckey",
    ("semget", "semflg"): "ipcgetflags",
    ("msgget", "key"): "ipckey",
    ("msgget", "msgflg"): "ipcgetflags",
    ("msgsnd", "msgflg"): "ipcmsgflags",
    ("msgrcv", "msgflg"): "ipcmsgflags",
    ("tee", "flags"): "spliceflags",
    ("vmsplice", "flags"): "spliceflags",
    # the mount API of Linux 5.2 and other newer calls (tracekit.decode.flagwords)
    ("open_tree", "flags"): "opentreeflags",
    ("fsopen", "flags"): "fsopenflags",
    ("fspick", "flags"): "fspickflags",
    ("move_mount", "from_dfd"): "dirfd",
    ("move_mount", "to_dfd"): "dirfd",
    ("move_mount", "flags"): "movemountflags",
    ("fsmount", "flags"): "fsmountflags",
    ("fsmount", "attr_flags"): "mountattrflags",
    ("mount_setattr", "flags"): "mountsetattrflags",
    ("userfaultfd", "flags"): "uffdflags",
    ("memfd_secret", "flags"): "memfdsecretflags",
    ("landlock_create_ruleset", "flags"): "landlockcreateflags",
    ("pkey_alloc", "init_val"): "pkeyaccess",
    ("remap_file_pages", "start"): "p",
    ("remap_file_pages", "prot"): "prot",
    ("pkey_mprotect", "start"): "p",
    ("pkey_mprotect", "prot"): "prot",
    ("remap_file_pages", "pgoff"): "u",
    ("remap_file_pages", "flags"): "mmapflags",
    ("move_pages", "flags"): "movepagesflags",
    ("delete_module", "flags"): "delmodflags",
    # Linux AIO contexts (NULL for 0), io_uring, recvmmsg, fsconfig, perf_event_open
    ("io_destroy", "ctx"): "p",
    ("io_submit", "ctx_id"): "p",
    ("io_getevents", "ctx_id"): "p",
    ("io_pgetevents", "ctx_id"): "p",
    ("io_cancel", "ctx_id"): "p",
    ("lookup_dcookie", "cookie64"): "u",
    ("uselib", "library"): "path",
    ("acct", "name"): "path",           # strace prints the file whole (printpath)
    ("io_setup", "ctxp"): "aioctx_out",
    ("io_submit", "iocbpp"): "iocbpp",
    ("io_getevents", "events"): "ioevents",
    ("io_getevents", "timeout"): "timeout_ts",
    ("io_pgetevents", "events"): "ioevents",
    ("io_pgetevents", "timeout"): "timeout_ts",
    ("io_pgetevents", "usig"): "pselect_sig",
    ("io_cancel", "iocb"): "iocb",
    ("io_cancel", "result"): "ioevent_out",
    ("io_uring_setup", "params"): "uringparams",
    ("io_uring_enter", "fd"): "fd",
    ("io_uring_enter", "flags"): "iouringenterflags",
    ("io_uring_register", "fd"): "fd",
    ("io_uring_register", "opcode"): "iouringregop",
    ("recvmmsg", "flags"): "msgflags",
    ("sendmmsg", "flags"): "msgflags",
    ("fsconfig", "cmd"): "fsconfigcmd",
    ("fsconfig", "_key"): "fsconfigkey",
    ("fsconfig", "_value"): "fsconfigvalue",
    ("fsconfig", "aux"): "fsconfigaux",
    ("bpf", "uattr"): "bpfattr",
    ("perf_event_open", "attr_uptr"): "perfattr",
    ("perf_event_open", "flags"): "perfflags",
    ("add_key", "_payload"): "bufw",
    # the kexec, module and reboot calls
    ("kexec_load", "entry"): "p",
    ("kexec_load", "nr_segments"): "u",
    ("kexec_load", "flags"): "kexecflags",
    ("kexec_file_load", "kernel_fd"): "fd",
    ("kexec_file_load", "initrd_fd"): "fd",
    ("kexec_file_load", "flags"): "kexecfileflags",
    ("finit_module", "flags"): "modinitflags",
    ("reboot", "magic1"): "rebootmagic",
    ("reboot", "magic2"): "rebootmagic",
    ("reboot", "cmd"): "rebootcmd",
    ("reboot", "arg"): "rebootarg",
    # flags strace 6.1 prints in decimal (PRINT_VAL_U)
    ("sched_setattr", "flags"): "u32",
    ("sched_getattr", "flags"): "u32",
}

# const char * arguments that are paths (SYSCALL_DEFINE names); other C strings the beauty
# map captures (tracekit.session.capture.STRING_ARGS) print cut at the string limit.
PATH_ARGS = frozenset({"filename", "pathname", "path", "oldname", "newname", "specialfile",
                       "to_pathname", "from_pathname", "put_old", "new_root"})
STRING_ARGS = frozenset({"name", "uname", "u_name", "special", "_type", "_description",
                         "_fs_name", "_callout_info", "name_user", "uargs"})


def kind(syscall: str, name: str, c_type: str) -> str:
    """The argument kind of ``name`` (declared ``c_type``) of ``syscall``."""
    if (syscall, name) in ENUMS:
        return ENUMS[syscall, name]
    t = c_type.removeprefix("const ")
    if t == "clockid_t":
        return "clockid"
    if c_type == "const char *" and name in PATH_ARGS:
        return "path"
    if c_type == "const char *" and name in STRING_ARGS:
        return "str"
    if c_type.startswith("const struct ") and c_type.endswith("*") and c_type.count("*") == 1:
        return "pin"
    return kind_of(name, c_type)


def prototypes(tracefs: Path, arch: str) -> dict[str, Proto]:
    """Table name -> prototype, for every syscall of ``arch`` the kernel or EXTRA knows."""
    events = {ev: tuple((f.name, f.c_type) for f in args)
              for ev, args in syscall_arg_table(tracefs).items()}
    table = SyscallTable(arch)
    out: dict[str, Proto] = {}
    for name in table.names():
        event = next((ev for ev, alias in EVENT_ALIASES.items()
                      if alias == name and ev in events), name)
        proto = ARM64.get(name) if arch == "arm64" else None
        if proto is None:
            proto = events.get(event, EXTRA.get(name))
        if proto is not None:
            out[name] = proto
    return out


def render(protos: dict[str, Proto], arch: str, command: str) -> str:
    out = [
        f'"""Every syscall of {arch}: its arguments\' names, C types and kinds.',
        "",
        "GENERATED by scripts/gen_syscall_protos.py; do not edit. Command:",
        "",
        f"    {command}",
        "",
        "``PROTOTYPES[name]`` is ``((argument, C type, kind), ...)`` in argument order, keyed",
        "by the syscall table's name (``stat``, not the event's ``newstat``). Kinds: see",
        "tracekit/decode/argspec.py; read by tracekit/kernel/syscall_protos/__init__.py.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "PROTOTYPES: dict[str, tuple[tuple[str, str, str], ...]] = {",
    ]
    for name, proto in sorted(protos.items()):
        args = [f"({a!r}, {t!r}, {kind(name, a, t)!r})" for a, t in proto]
        out.append(f"    {name!r}: ({', '.join(args)}{',' if len(args) == 1 else ''}),")
    out += ["}", ""]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--tracefs", default="/sys/kernel/tracing", type=Path,
                    help="the tracefs mount to read the formats from")
    ap.add_argument("--arch", action="append", choices=["arm64", "x86_64"],
                    help="arch to generate (repeatable; default: all)")
    ap.add_argument("-o", "--output-dir", default="tracekit/kernel/syscall_protos",
                    help="directory that receives <arch>.py")
    opt = ap.parse_args()
    if os.uname().machine != "x86_64":
        sys.exit("the formats must come from an x86_64 kernel (arm64's prototypes are "
                 "derived from them)")
    command = ("python3 scripts/gen_syscall_protos.py " + shlex.join(sys.argv[1:])).strip()
    release = os.uname().release
    for arch in opt.arch or ["arm64", "x86_64"]:
        protos = prototypes(opt.tracefs, arch)
        out = Path(opt.output_dir) / f"{arch}.py"
        out.write_text(render(protos, arch, f"{command}   # formats of Linux {release}"))
        print(f"wrote {out}: {len(protos)} syscalls", file=sys.stderr)


if __name__ == "__main__":
    main()
