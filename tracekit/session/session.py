"""The tracing session: loads the tracer programs, fills the maps, attaches, holds and
starts the workload, and owns every fd until it closes.

Start-up order (kernel rules 2 and 4)::

    open object ─ set targ_* knobs ─ load ─ fill syscall_filter
      ├─ command:  fork (held) ─ pids[child] = PENDING_EXEC ─ attach ─ release ─ exec
      ├─ pid/tid:  /proc threads ─ pids[...] ─ attach ─ /proc again (threads, descendants)
      └─ system-wide: attach (the BPF side skips tracekit's own tgid)

Both /proc passes are :func:`tracekit.session.pids.reenumerate` (rule 4). A full
pids map is not fatal (rule 6): what fits is inserted and the rest counted in
``not_added``; a target that exits during start-up is logged and stepped over (rule 7).
"""

from __future__ import annotations

import logging
import os
import platform
import signal
import struct
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from tracekit._errors import TargetError, TracekitError
from tracekit._events import (
    CNT_CAPBUF_FULL,
    CNT_ERRNO_FULL,
    CNT_LOST,
    CNT_MAX,
    CNT_PIDS_FULL,
    CNT_SCRATCH_FULL,
    CNT_STACK_FULL,
    CNT_SUMMARY_FULL,
    ERRNO_MAX,
    PID_PENDING_EXEC,
    ST_FAILED,
    ST_SUCCESSFUL,
    ST_UNFINISHED,
    STACK_KERNEL,
    STACK_USER,
)
from tracekit.bpf import sys as _bpf
from tracekit.bpf.object import BpfObject, Link
from tracekit.bpf.ringbuf import RingBuf
from tracekit.kernel.arch import SUPPORTED, machine_arch
from tracekit.kernel.cgroup import CgroupTarget, resolve_cgroup
from tracekit.kernel.procfs import ProcFS
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.capture import fill_beauty_map, fill_ioctl_map
from tracekit.session.kernel_summary import KernelSummary, enable_kernel_summary
from tracekit.session.pids import PidInfo, PidsMap, PidUpkeep, Target, reenumerate
from tracekit.session.spawn import HeldCommand

log = logging.getLogger("tracekit.session")

def object_path(name: str = "syscalls") -> Any:
    """The committed object for this machine: ``tracekit.programs/build/<arch>/<name>.bpf.o``."""
    arch = machine_arch()
    if arch not in SUPPORTED:
        raise TracekitError(f"no precompiled BPF objects for {platform.machine()}")
    return resources.files("tracekit.programs") / "build" / arch / f"{name}.bpf.o"


@dataclass
class SessionOptions:
    """What to trace and how.

    Exactly one target: ``command``, ``pids`` (every thread of each process), ``tids`` or
    ``system_wide``. ``pids``/``tids`` are user-visible ids in the init pid namespace.
    """

    command: list[str] | None = None
    pids: list[int] = field(default_factory=list)    # user "pid" = tgid
    tids: list[int] = field(default_factory=list)
    system_wide: bool = False
    cgroup: str | None = None      # a cgroup v2 directory: its tasks and its descendants'
    follow_forks: bool = True
    syscalls: set[int] | None = None                  # None = every syscall
    failed_only: bool = False
    # which outcomes are recorded (strace -e status=): "successful", "failed", "unfinished"
    status: frozenset[str] = frozenset({"successful", "failed", "unfinished"})
    errnos: set[int] | None = None  # failed calls only with these errnos (1..4095); None = any
    signals: set[int] | None = None  # signal deliveries recorded (1..64); None = every one
    min_duration_ns: int = 0
    buffer_bytes: int = 4 << 20                       # ring buffer size, a power of 2
    pids_max_entries: int = 8192
    capture: bool = True           # read strings/buffers/structs from user memory (issue 4)
    summary: bool = False          # count calls in kernel maps instead of records (issue 5)
    summary_records: bool = False  # with summary: emit the records too
    # each recorded call's stacks at entry (issue 18): "user", "kernel", "both"; None: none
    stacks: str | None = None

    def validate(self) -> None:
        n = sum([bool(self.command), bool(self.pids), bool(self.tids), self.system_wide,
                 self.cgroup is not None])
        if n != 1:
            raise TargetError("give exactly one target: a command, pids, tids, system_wide "
                              f"or a cgroup (got {n})")
        unknown = self.status - _STATUS_BITS.keys()
        if unknown:
            raise TargetError(f"unknown status {sorted(unknown)[0]!r} (known: "
                              f"{', '.join(_STATUS_BITS)})")
        if self.errnos is not None and not all(0 < e <= ERRNO_MAX for e in self.errnos):
            raise TargetError(f"an errno is 1 to {ERRNO_MAX}, got {sorted(self.errnos)}")
        if self.signals is not None and not all(0 < s <= 64 for s in self.signals):
            raise TargetError(f"a signal is 1 to 64, got {sorted(self.signals)}")
        if self.stacks is not None and self.stacks not in _STACK_BITS:
            raise TargetError(f"stacks = {self.stacks!r}: give one of "
                              f"{', '.join(map(repr, _STACK_BITS))}")
        if self.buffer_bytes < 4096 or self.buffer_bytes & (self.buffer_bytes - 1):
            raise TargetError(f"ring buffer size {self.buffer_bytes} is not a power of 2 "
                              ">= 4096 bytes")

    def target(self) -> Target:
        """The target as the pid-upkeep stages see it."""
        return Target(pids=tuple(self.pids), tids=tuple(self.tids),
                      follow_forks=self.follow_forks,
                      system_wide=self.system_wide or self.cgroup is not None)


_STATUS_BITS = {"successful": ST_SUCCESSFUL, "failed": ST_FAILED, "unfinished": ST_UNFINISHED}
#: SessionOptions.stacks -> targ_stacks (TK_STACK_* in programs/syscalls.h)
_STACK_BITS = {"user": STACK_USER, "kernel": STACK_KERNEL, "both": STACK_USER | STACK_KERNEL}


@dataclass
class Counters:
    """Kernel-side counters summed over CPUs (``counters`` per-CPU array)."""

    lost: int = 0            # ring-buffer records that could not be reserved
    pids_full: int = 0       # tasks not added because the pids map was full
    scratch_full: int = 0    # syscall entries not stored because the scratch map was full
    capbuf_full: int = 0     # syscalls emitted without their captures: capbuf map full
    summary_full: int = 0    # summary mode: calls not counted, summary map full
    errno_full: int = 0      # summary mode: errors missing from the per-errno counts
    stack_full: int = 0      # stacks: calls recorded without their stacks (no slot memory)


class Session:
    """A live trace. Use ``async with open_session(opts) as session``.

    Attributes:
      obj: the loaded ``syscalls.bpf.o``.
      ringbuf: the consumer of the ``events`` map.
      command: the workload when the target is a command, else None.
      target_tgids: processes named by the target (for the end-of-session check).
      gone_targets: target ids that exited during start-up (rule 7).
    """

    def __init__(self, opts: SessionOptions) -> None:
        opts.validate()
        self.opts = opts
        self.obj: BpfObject | None = None
        self.ringbuf: RingBuf | None = None
        self.links: list[Link] = []
        self.command: HeldCommand | None = None
        self.procfs = ProcFS()
        self.target_tgids: list[int] = []
        self.gone_targets: list[int] = []
        self._pids: PidsMap | None = None
        self.self_tgid = os.getpid()
        self._kernel_summary: KernelSummary | None = None
        self.cgroup: CgroupTarget | None = None   # the cgroup target, resolved at load

    @property
    def not_added_tids(self) -> set[int]:
        """Tids userspace could not insert because the pids map was full (rule 6); a tid
        leaves the set once it is inserted later (reconcile)."""
        return self._pids.not_added if self._pids is not None else set()

    @property
    def not_added(self) -> int:
        """How many tasks userspace could not insert: the pids map was full (rule 6)."""
        return len(self.not_added_tids)

    # -- maps ---------------------------------------------------------------------------

    @property
    def pids(self) -> PidsMap:
        """The ``pids`` map, typed (:class:`~tracekit.session.pids.PidsMap`).

        Raises:
          TracekitError: the session is not loaded.
        """
        if self._pids is None:
            raise TracekitError("the session is not loaded: no pids map")
        return self._pids

    @property
    def upkeep(self) -> PidUpkeep | None:
        """What the pid-upkeep stages act through (``ctx.upkeep``); None until loaded."""
        if self._pids is None:
            return None
        return PidUpkeep(pids=self._pids, procfs=self.procfs, target=self.opts.target(),
                         pids_full=lambda: self.counters().pids_full)

    def pid_entries(self) -> dict[int, PidInfo]:
        """The pids map now: ``{tid: PidInfo(start_time_ns, tgid, flags)}``."""
        return self.pids.entries()

    def add_task(self, tid: int, tgid: int, *, start_time_ns: int = 0, flags: int = 0,
                 only_new: bool = False, count_full: bool = True) -> bool:
        """Insert ``tid`` into the pids map (:meth:`PidsMap.add
        <tracekit.session.pids.PidsMap.add>`).

        Args:
          start_time_ns: the task's start, ns after boot (``ticks_to_ns`` of
            ``/proc/<tid>/stat`` field 22); eviction compares it in clock ticks (rule 5).
          only_new: BPF_NOEXIST: never overwrite an entry BPF made.
          count_full: when the map is full, add the tid to ``not_added_tids``.

        Returns:
          True when inserted; False when the map is full (rule 6) or, with ``only_new``,
          when the tid was already there.

        Raises:
          MapError: any other failure (ENOMEM is fatal, rule 7).
        """
        return self.pids.add(tid, PidInfo(start_time_ns, tgid, flags), only_new=only_new,
                             count_full=count_full)

    def traced_tids(self) -> list[int]:
        """Keys of the pids map (tids traced now)."""
        return list(self.pids.tids())

    def counters(self) -> Counters:
        """Sum the per-CPU counters (``counters`` map, programs/syscalls.h enum tk_counter)."""
        assert self.obj is not None
        m = self.obj.maps["counters"]
        ncpu = _bpf.possible_cpus()
        totals = [0] * CNT_MAX
        for idx in range(CNT_STACK_FULL + 1):
            raw = m.lookup_elem(struct.pack("<I", idx))
            if raw is not None:
                totals[idx] = sum(struct.unpack(f"<{ncpu}Q", raw[:8 * ncpu]))
        return Counters(totals[CNT_LOST], totals[CNT_PIDS_FULL], totals[CNT_SCRATCH_FULL],
                        totals[CNT_CAPBUF_FULL], totals[CNT_SUMMARY_FULL],
                        totals[CNT_ERRNO_FULL], totals[CNT_STACK_FULL])

    def kernel_summary(self) -> KernelSummary:
        """Reader of the in-kernel summary maps (a session started with ``summary=True``).

        Raises:
          TracekitError: the session does not count in the kernel.
        """
        if not self.opts.summary or self.obj is None:
            raise TracekitError("this session was not started with summary=True")
        if self._kernel_summary is None:
            self._kernel_summary = KernelSummary(self.obj)  # this machine's tables
        return self._kernel_summary

    # -- start-up -----------------------------------------------------------------------

    def _load(self) -> None:
        o = self.opts
        obj = BpfObject.open(object_path())
        self.obj = obj
        g = obj.globals
        g["targ_self_tgid"] = self.self_tgid
        g["targ_system_wide"] = int(o.system_wide or o.cgroup is not None)
        self._set_selection(obj)
        g["targ_follow_forks"] = int(o.follow_forks)
        g["targ_filter_syscalls"] = int(o.syscalls is not None)
        g["targ_failed_only"] = int(o.failed_only)
        g["targ_min_duration_ns"] = o.min_duration_ns
        g["targ_capture"] = int(o.capture)
        if o.stacks is not None and "targ_stacks" in obj.spec.globals:
            g["targ_stacks"] = _STACK_BITS[o.stacks]
        if o.summary:
            enable_kernel_summary(obj, records=o.summary_records)
        obj.maps["events"].max_entries = o.buffer_bytes
        obj.maps["pids"].max_entries = o.pids_max_entries
        obj.load()
        self._pids = PidsMap(obj.maps["pids"])
        if o.capture and (not o.summary or o.summary_records):
            # which args to read from user memory, per syscall nr (issue 4)
            fill_beauty_map(obj, SyscallTable(), None)
            fill_ioctl_map(obj)
        if o.syscalls is not None:
            filt = obj.maps["syscall_filter"]
            for nr in sorted(o.syscalls):
                if 0 <= nr < filt.max_entries:
                    filt.update_elem(struct.pack("<I", nr), b"\x01")
        self._fill_errno_filter(obj)
        ev = obj.maps["events"]
        self.ringbuf = RingBuf(ev.fd, ev.max_entries, name="events")

    def _set_selection(self, obj: BpfObject) -> None:
        """The cgroup target and the status, errno and signal selections (knobs, before
        the load; the errno map is filled by :meth:`_fill_errno_filter` after it).

        Raises:
          TargetError: the cgroup is not a cgroup v2 directory.
        """
        o, g = self.opts, obj.globals
        if o.cgroup is not None:
            self.cgroup = resolve_cgroup(o.cgroup)
            g["targ_cgroup_id"] = self.cgroup.cgroup_id
            g["targ_cgroup_level"] = self.cgroup.level
        g["targ_status"] = sum(_STATUS_BITS[s] for s in o.status)
        g["targ_filter_errno"] = int(o.errnos is not None)
        if o.signals is not None:
            g["targ_signals"] = sum(1 << (sig - 1) for sig in o.signals)

    def _fill_errno_filter(self, obj: BpfObject) -> None:
        if self.opts.errnos is not None:
            m = obj.maps["errno_filter"]
            for err in sorted(self.opts.errnos):
                m.update_elem(struct.pack("<I", err), b"\x01")

    def load(self) -> None:
        """Load the programs into the kernel (the verifier checks each) and fill their maps,
        as :meth:`start` does, but attach nothing, add no task and start no command;
        :meth:`close` unloads them. What ``tracekit check`` tries.

        Raises:
          BpfError: a map or program could not be created (its errno: EPERM without
            CAP_BPF, ENOMEM for a ring buffer too large, EACCES/EINVAL from the verifier);
            everything created so far is closed.
          TracekitError: no precompiled object for this machine, or tracefs is missing.
        """
        try:
            self._load()
        except BaseException:
            self.close()
            raise

    def _reenumerate(self, *, only_new: bool) -> int:
        """One /proc pass over the pid/tid target (rule 4); returns the number of tids added.

        Targets that are gone are logged once and stepped over (rule 7).
        """
        upkeep = self.upkeep
        assert upkeep is not None              # loaded before the first pass
        res = reenumerate(upkeep, only_new=only_new)
        for t in res.gone_targets:
            if t not in self.gone_targets:
                self.gone_targets.append(t)
                log.warning("target %s %d exited during start-up; going on without it",
                            "pid" if self.opts.pids else "tid", t)
        return len(res.added)

    def _check_targets(self) -> None:
        o = self.opts
        missing = [p for p in (o.pids or o.tids) if not self.procfs.exists(p)]
        if missing:
            kind = "pid" if o.pids else "tid"
            raise TargetError(f"no such {kind}: {', '.join(map(str, missing))} "
                              f"(ESRCH: /proc/{missing[0]} does not exist)")
        own = [t for t in o.tids if self.procfs.tgid_of(t) == self.self_tgid]
        if self.self_tgid in o.pids or own:
            which = f"pid {self.self_tgid}" if self.self_tgid in o.pids else f"tid {own[0]}"
            raise TargetError(f"{which} is tracekit itself, which never traces itself")

    async def start(self) -> None:
        """Load, attach and start the workload; on error close everything and re-raise."""
        o = self.opts
        released = False
        try:
            if o.pids or o.tids:
                self._check_targets()
            self._load()
            assert self.obj is not None
            if o.command:
                self.command = HeldCommand(o.command)
                self.target_tgids = [self.command.pid]
                self.add_task(self.command.pid, self.command.pid, flags=PID_PENDING_EXEC)
            elif o.pids:
                self.target_tgids = list(o.pids)
                self._reenumerate(only_new=False)
            elif o.tids:
                self.target_tgids = sorted({self.procfs.tgid_of(t) or t for t in o.tids})
                self._reenumerate(only_new=False)
            self.links = self.obj.attach_all()
            # Rule 4: what was created while we attached is found by reading /proc again.
            if o.pids or o.tids:
                self._reenumerate(only_new=True)
            if self.not_added:
                log.warning("pids map full: %d tasks could not be traced (pids_max_entries=%d)",
                            self.not_added, o.pids_max_entries)
            if self.command is not None:
                released = True
                await self.command.release()
        except BaseException:
            if released and self.command is not None:
                # Cancelled (SIGINT) or failed after the command was let go to exec: it
                # must not run on untraced, holding our stdout open.
                try:
                    self.command.send_signal(signal.SIGKILL)
                except ProcessLookupError:
                    pass        # it already exited (execve failed): nothing to stop
            self.close()
            raise

    def targets_alive(self) -> bool:
        """Whether anything is left to trace (a command: until it is reaped).

        A pid/tid target is alive while one of its processes is (a zombie is not: its
        parent may never reap it) or while a key of the pids map names a live task (the
        threads of a group whose leader has exited, descendants). The walk over the map
        stops at the first live key, so it usually reads one ``/proc/<tid>/stat``.
        """
        if self.command is not None:
            return self.command.returncode is None
        if self.opts.system_wide:
            return True
        if self.cgroup is not None:       # until the cgroup is removed
            return os.path.isdir(self.cgroup.path)
        alive = self.procfs.live_start_ticks
        if any(alive(t) is not None for t in self.target_tgids):
            return True
        if self._pids is None or self._pids.map.fd < 0:
            return False
        return any(alive(t) is not None for t in self._pids.tids())

    def close(self) -> None:
        """Detach, unmap and close every fd (idempotent). An unreleased command exits 127."""
        for link in self.links:
            link.destroy()
        self.links = []
        if self.ringbuf is not None:
            self.ringbuf.close()
            self.ringbuf = None
        if self.obj is not None:
            self.obj.close()
        if self.command is not None:
            self.command.close()


class open_session:  # noqa: N801 - trio's open_* naming for a thing to close
    """``async with open_session(opts) as session``: start on enter, close on exit."""

    def __init__(self, opts: SessionOptions) -> None:
        self.session = Session(opts)

    async def __aenter__(self) -> Session:
        await self.session.start()
        return self.session

    async def __aexit__(self, *exc: object) -> None:
        self.session.close()
