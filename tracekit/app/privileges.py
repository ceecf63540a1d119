"""What ``tracekit check`` says about privileges and tracefs: what this process really has.

# Some facts about the privileges of BPF tracing (kernel/bpf/syscall.c, bpf_capable();
# kernel/bpf/syscall.c, bpf_prog_load() for tracing programs)

- Creating maps and loading programs needs CAP_BPF; loading and attaching tracing programs
  (tp_btf) needs CAP_PERFMON as well. CAP_SYS_ADMIN stands in for both (the only way
  before Linux 5.8), so root without CAP_BPF can still trace.
- tracefs (``/sys/kernel/tracing``) is mode 0700: a user with CAP_BPF and CAP_PERFMON but
  not root cannot read it. tracekit reads it only for the argument formats, and takes them
  from the table shipped for its architecture when it cannot.
"""

from __future__ import annotations

import errno
import os

from tracekit._errors import TracekitError

__all__ = ["capability_check", "effective_caps", "tracefs_check"]

CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF = 21, 38, 39
Check = tuple[str, bool, str]


def effective_caps(status: str = "/proc/self/status") -> int:
    """The effective capability set (``CapEff:`` of /proc/self/status) as a bit mask.

    Raises:
      OSError: the file cannot be read.
      ValueError: it has no ``CapEff:`` line.
    """
    with open(status) as f:
        for line in f:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    raise ValueError(f"{status}: no CapEff line")


def capability_check(cap_eff: int | None = None, euid: int | None = None) -> Check:
    """(``"privileges"``, ok, detail): whether this process may load and attach tracekit's
    programs (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN), naming what is missing."""
    euid = os.geteuid() if euid is None else euid
    who = "root" if euid == 0 else f"uid {euid}"
    if cap_eff is None:
        try:
            cap_eff = effective_caps()
        except (OSError, ValueError) as e:
            return ("privileges", False, f"{who}: cannot read the capabilities: {e}")

    def has(cap: int) -> bool:
        return bool(cap_eff >> cap & 1)

    admin = has(CAP_SYS_ADMIN)
    missing = [n for n, c in (("CAP_BPF", CAP_BPF), ("CAP_PERFMON", CAP_PERFMON))
               if not has(c) and not admin]
    if missing:
        return ("privileges", False,
                f"{who}: missing {' and '.join(missing)} (or run as root)")
    held = [n for n, c in (("CAP_BPF", CAP_BPF), ("CAP_PERFMON", CAP_PERFMON),
                           ("CAP_SYS_ADMIN", CAP_SYS_ADMIN)) if has(c)]
    detail = f"{who} with {', '.join(held)}"
    if admin and not (has(CAP_BPF) and has(CAP_PERFMON)):
        lacking = [n for n, c in (("CAP_BPF", CAP_BPF), ("CAP_PERFMON", CAP_PERFMON))
                   if not has(c)]
        detail += f" (CAP_SYS_ADMIN stands in for {' and '.join(lacking)})"
    return ("privileges", True, detail)


def tracefs_check() -> Check:
    """(``"tracefs"``, ok, detail): where the syscall argument formats come from. Not
    being able to read tracefs is not a failure: the shipped table serves."""
    from tracekit.kernel.arch import machine_arch
    from tracekit.kernel.tracefs import UNREADABLE, find_tracefs, readable_tracefs

    try:
        root = readable_tracefs()
    except TracekitError as e:
        return ("tracefs", False, str(e))
    if root is not None:
        return ("tracefs", True, f"{root} (argument formats of the running kernel)")
    shipped = f"argument formats from the table shipped for {machine_arch()}"
    try:
        find_tracefs(mount_if_missing=False)
        why = "events/syscalls cannot be read"
    except TracekitError as e:
        err = e.errno if isinstance(e, OSError) and e.errno in UNREADABLE else errno.EIO
        why = (f"{getattr(e, 'path', 'tracefs')}: {errno.errorcode.get(err, err)}"
               + (" (tracefs is root only)" if err in (errno.EACCES, errno.EPERM)
                  else " (not mounted)" if err == errno.ENOENT else ""))
    return ("tracefs", True, f"{why}: {shipped}")
