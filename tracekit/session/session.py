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

import dataclasses
import functools
import logging
import os
import platform
import signal
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import msgspec

from tracekit._errors import TargetError, TracekitError
from tracekit._events import (
    CNT_CAPBUF_FULL,
    CNT_ERRNO_FULL,
    CNT_FD_LOST,
    CNT_FD_STATE,
    CNT_LOST,
    CNT_LOST_LIFECYCLE,
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
    STACK_IP,
    STACK_KERNEL,
    STACK_USER,
    FdSnapshot,
    Reenumerated,
)
from tracekit.bpf import sys as _bpf
from tracekit.bpf.object import BpfObject, Link
from tracekit.bpf.ringbuf import RingBuf
from tracekit.kernel.arch import SUPPORTED, machine_arch
from tracekit.kernel.cgroup import CgroupTarget, cgroup_tgids, resolve_cgroup
from tracekit.kernel.procfs import ProcFS, foreign_pid_namespace
from tracekit.kernel.syscalls import SyscallTable
from tracekit.session.capture import (
    CapSpec,
    build_specs,
    fill_beauty32_map,
    fill_beauty_map,
    fill_ioctl_map,
    size_ioctl_map,
    with_data_bytes,
)
from tracekit.session.fdstate import FdResolver, fd_tracked_names, fill_fd_track, snapshots
from tracekit.session.kernel_summary import KernelSummary, enable_kernel_summary
from tracekit.session.objects import open_object
from tracekit.session.pids import (
    PidInfo,
    PidsMap,
    PidUpkeep,
    Target,
    TaskId,
    identify,
    reenumerate,
    same_task,
)
from tracekit.session.spawn import HeldCommand, InheritedSignals

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
    ``system_wide``. ``pids``/``tids`` are user-visible ids in the init pid namespace,
    identified by their start time when the options are made (``named``): a target
    that exits is gone for the session, even once another process gets its pid.
    """

    command: list[str] | None = None
    pids: list[int] = field(default_factory=list)    # user "pid" = tgid
    tids: list[int] = field(default_factory=list)
    system_wide: bool = False
    cgroup: str | None = None      # a cgroup v2 directory: its tasks and its descendants'
    follow_forks: bool = True
    # pid/tid targets with follow_forks: the child processes their threads have when the
    # session starts are traced too (and theirs); False: only children forked from the
    # start on, as strace -f -p follows forks from its attach on
    attached_descendants: bool = True
    # log each pid/tid target that exits during start-up (a front end that says it in its
    # own words, from ``Session.gone_targets``, turns it off)
    log_gone_targets: bool = True
    syscalls: set[int] | None = None                  # None = every syscall
    # x86_64: the i386 numbers selected for 32-bit (int $0x80) calls, resolved from the
    # same items (tracekit.kernel.selection.resolve_compat_syscalls); None with syscalls
    # set: the i386 calls of the selected names
    syscalls32: set[int] | None = None
    failed_only: bool = False
    # which outcomes are recorded (strace -e status=): "successful", "failed", "unfinished",
    # "detached" (a call a thread is inside when tracing ends: RingBufferSource's last batch)
    status: frozenset[str] = frozenset({"successful", "failed", "unfinished", "detached"})
    errnos: set[int] | None = None  # failed calls only with these errnos (1..4095); None = any
    signals: set[int] | None = None  # signal deliveries recorded (1..64); None = every one
    min_duration_ns: int = 0
    buffer_bytes: int = 4 << 20                       # ring buffer size, a power of 2
    pids_max_entries: int = 8192
    capture: bool = True           # read strings/buffers/structs from user memory (issue 4)
    summary: bool = False          # count calls in kernel maps instead of records (issue 5)
    summary_records: bool = False  # with summary: emit the records too
    # the signal dispositions and mask the command starts with; None = this thread's at
    # spawn (a front end that handles signals passes what it was started with)
    command_signals: InheritedSignals | None = None
    # the command in a process group of its own (timeout(1)); None = no (LiveTrace
    # decides it for a time limit)
    command_own_group: bool | None = None
    # (id, start time) of each pid and tid, read from /proc when the options are made
    named: tuple[TaskId, ...] = ()
    # keep fd tables true for output that prints fds with what they refer to (strace
    # -yy): hidden calls that change them are recorded (FdState), the fds left after
    # each exec (FdExec), the targets' fds at start (FdSnapshot) and new fds as their
    # records arrive (FdTargets); see tracekit.session.fdstate
    fd_table: bool = False
    env: dict[str, str] | None = None   # the command's environment; None = tracekit's
    # (uid, gid, supplementary groups) the command runs as (strace -u); None = tracekit's
    creds: tuple[int, int, tuple[int, ...]] | None = None

    # each recorded call's stacks at entry: "user", "kernel", "both"; None: none
    stacks: str | None = None
    # each recorded call's user instruction pointer at entry, the address after its
    # syscall instruction (Syscall.ip; strace -i): with stacks, their first user frame;
    # alone, one 72-byte record before each call's
    instruction_pointer: bool = False
    # execve's environment read as its strings, each cut at this many bytes (strace -v
    # prints them: -s + 1 tells a longer string); 0: only counted (strace's default)
    envp_strings: int = 0
    # execve's argv read up to 256 elements, each cut at this many bytes (strace -v prints
    # every element, -s N above 32 prints N of them); 0: its first 32 elements
    argv_strings: int = 0
    # data buffers (read/write, iovecs, socket options) read up to this many bytes when
    # that is more than the default 256 (strace -s N prints N: N + 1 tell a longer one;
    # at most 4096 bytes, 1024 per iovec element); 0: the default
    data_bytes: int = 0
    # getdents64's reply read as its bytes (its first 4096), whose entries strace -v
    # prints; False: its entries counted in the kernel (strace's default)
    dirents: bool = False
    # a command target's session goes on after the command exits while processes it
    # started (traced, as follow_forks traces them) live on, as strace -f waits for
    # every tracee; False: it ends with the command, as perf trace does
    wait_for_children: bool = False
    # start even in a pid namespace of tracekit's own, where the programs (which see the
    # initial namespace's pids) trace nothing of a command or pid target: only for a
    # test of when a session ends (a start there is refused otherwise: TargetError)
    foreign_pid_namespace_ok: bool = False

    def __post_init__(self) -> None:
        if not self.named and (self.pids or self.tids):
            self.named = identify(ProcFS(), [*self.pids, *self.tids])

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
                      system_wide=self.system_wide or self.cgroup is not None,
                      named=self.named)


# "detached" has no bit: those calls are found when tracing ends (Session.calls_in_flight)
_STATUS_BITS = {"successful": ST_SUCCESSFUL, "failed": ST_FAILED, "unfinished": ST_UNFINISHED,
                "detached": 0}
#: SessionOptions.stacks -> targ_stacks (TK_STACK_* in programs/syscalls.h)
_STACK_BITS = {"user": STACK_USER, "kernel": STACK_KERNEL, "both": STACK_USER | STACK_KERNEL}

#: bytes in the ring buffer of one task's lifecycle records, each with its 8-byte ring
#: header (programs/syscalls.h): fork 32, exec 296, fd-exec 160, signal 112, exit 56
_LIFECYCLE_TASK_BYTES = (32 + 8) + (296 + 8) + (160 + 8) + (112 + 8) + (56 + 8)
#: bytes in the ring buffer of the largest per-call record: its 8-byte ring header, struct
#: tk_syscall (112), the captures' header (8) and TK_CAPBUF_DATA (16,184) capture bytes
#: (programs/syscalls.bpf.c)
_CALL_RECORD_MAX = 8 + 112 + 8 + 16184


def call_room(buffer_bytes: int) -> int:
    """The bytes of a ``buffer_bytes`` ring buffer that per-call records (syscall,
    fd-state, stack) may fill before they count as lost (``targ_rb_call_room``,
    programs/syscalls.bpf.c: call_room); the rest is kept for the lifecycle records
    (fork, exec, fd-exec, exit, signal), so that a flood of calls the reader cannot keep
    up with does not lose a task's exit or a kill.

    The headroom is a sixteenth of the ring: the default 4 MiB keeps 256 KiB, some 4,000
    exit records or 380 whole task lives (fork to exit, 688 bytes) arriving while the
    reader is behind, for a sixteenth fewer calls before records are lost. At least the
    largest per-call record (a writer on another CPU may pass the room test together
    with one on this CPU and overshoot by one record) and six task lives: 20,440 bytes;
    at most half the ring (tiny rings: ``--mmap-pages 4`` keeps 8 KiB).
    """
    headroom = max(buffer_bytes >> 4, _CALL_RECORD_MAX + 6 * _LIFECYCLE_TASK_BYTES)
    return buffer_bytes - min(headroom, buffer_bytes >> 1)


@dataclass
class Counters:
    """Kernel-side counters summed over CPUs (``counters`` per-CPU array)."""

    lost: int = 0            # syscall records that could not be reserved in the ring buffer
    pids_full: int = 0       # tasks not added because the pids map was full
    scratch_full: int = 0    # syscall entries not stored because the scratch map was full
    capbuf_full: int = 0     # syscalls emitted without their captures: capbuf map full
    summary_full: int = 0    # summary mode: calls not counted, summary map full
    errno_full: int = 0      # summary mode: errors missing from the per-errno counts
    lost_lifecycle: int = 0  # fork/exec/exit/signal records that could not be reserved
    fd_state: int = 0        # fd-table records emitted (hidden calls, fds after exec)
    fd_lost: int = 0         # fd-table records the ring buffer had no room for
    stack_full: int = 0      # stacks: calls recorded without their stacks (no slot memory)


class Session:
    """A live trace. Use ``async with open_session(opts) as session``.

    Attributes:
      obj: the loaded ``syscalls.bpf.o``.
      ringbuf: the consumer of the ``events`` map.
      command: the workload when the target is a command, else None.
      target_tgids: processes named by the target (for the end-of-session check).
      targets: the same as :class:`~tracekit.session.pids.TaskId` (id, start time).
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
        self.targets: list[TaskId] = []
        self.gone_targets: list[int] = []
        #: the /proc pass after attach of a pid/tid target (a recording keeps it: the
        #: reenumerate stage of a replay sends it when the recorder ran no such stage)
        self.reenumerated: Reenumerated | None = None
        self._pids: PidsMap | None = None
        #: child processes of the targets left untraced (``attached_descendants`` off)
        self._old_children: frozenset[int] = frozenset()
        self.self_tgid = os.getpid()
        self._kernel_summary: KernelSummary | None = None
        self.cgroup: CgroupTarget | None = None   # the cgroup target, resolved at load
        #: the native calls' capture specs as loaded (nr -> specs): what a call's entry
        #: reads, for the calls found inside one when tracing ends (session.inflight)
        self.capture_specs: dict[int, tuple[CapSpec, ...]] = {}
        #: fd tables of the targets read at start (fd_table): the source sends them first
        self.fd_snapshots: list[FdSnapshot] = []
        #: reads new fds as their records arrive (fd_table), used by the source
        self.fd_resolver: FdResolver | None = None

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
        target = self.opts.target()
        if self._old_children:
            target = dataclasses.replace(target, old_children=self._old_children)
        return PidUpkeep(pids=self._pids, procfs=self.procfs, target=target,
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

    def traced_processes(self) -> set[int]:
        """The processes (tgids) traced now that are still the tasks the pids map names:
        each entry's start time is checked against /proc (a key whose task exited and
        whose tid was reused names nobody). Never tracekit itself."""
        procfs, out = self.procfs, set()
        for tid, info in self.pids.entries().items():
            if info.tgid in out or info.tgid == self.self_tgid:
                continue
            if same_task(procfs, tid, info.start_time_ns) and procfs.tgid_of(tid) == info.tgid:
                out.add(info.tgid)
        return out

    def counters(self) -> Counters:
        """Sum the per-CPU counters (``counters`` map, programs/syscalls.h enum tk_counter)."""
        assert self.obj is not None
        m = self.obj.maps["counters"]
        ncpu = _bpf.possible_cpus()
        totals = [0] * CNT_MAX
        for idx in range(CNT_MAX):
            raw = m.lookup_elem(struct.pack("<I", idx))
            if raw is not None:
                totals[idx] = sum(struct.unpack(f"<{ncpu}Q", raw[:8 * ncpu]))
        return Counters(totals[CNT_LOST], totals[CNT_PIDS_FULL], totals[CNT_SCRATCH_FULL],
                        totals[CNT_CAPBUF_FULL], totals[CNT_SUMMARY_FULL],
                        totals[CNT_ERRNO_FULL], totals[CNT_LOST_LIFECYCLE],
                        totals[CNT_FD_STATE], totals[CNT_FD_LOST], totals[CNT_STACK_FULL])

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
        # the load image from the per-boot cache when this kernel already had one built
        obj = open_object(object_path(), f"syscalls-{machine_arch()}")
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
        fd_table = o.fd_table and (not o.summary or o.summary_records)
        g["targ_fd_state"] = int(fd_table)
        if o.stacks is not None or o.instruction_pointer:
            g["targ_stacks"] = ((_STACK_BITS[o.stacks] if o.stacks is not None else 0)
                                | (STACK_IP if o.instruction_pointer else 0))
        if o.summary:
            enable_kernel_summary(obj, records=o.summary_records)
        obj.maps["events"].max_entries = o.buffer_bytes
        g["targ_rb_call_room"] = call_room(o.buffer_bytes)
        obj.maps["pids"].max_entries = o.pids_max_entries
        size_ioctl_map(obj)
        # the config maps are filled while the kernel verifies the progs (BpfObject.load)
        obj.load(meanwhile=functools.partial(self._fill_maps, obj, fd_table))

    def _fill_maps(self, obj: BpfObject, fd_table: bool) -> None:
        """The config maps of ``obj`` (its maps created, its progs loading), the pids
        map's view and the ring buffer's reader."""
        o = self.opts
        self._pids = PidsMap(obj.maps["pids"])
        if o.capture and (not o.summary or o.summary_records):
            # which args to read from user memory, per syscall nr (issue 4); with a
            # selection, only the selected calls' (only their formats are read), and
            # those of the hidden calls the fd tables follow (an open's path)
            table = SyscallTable()
            names = None if o.syscalls is None else sorted(
                {table.name(nr) for nr in o.syscalls}
                | ({n for n in fd_tracked_names() if table.nr(n) is not None}
                   if fd_table else set()))
            specs = build_specs(table, None, names, envp_strings=o.envp_strings,
                                argv_strings=o.argv_strings, dirents=o.dirents)
            self.capture_specs = {nr: with_data_bytes(sp, o.data_bytes)
                                  for nr, sp in specs.items()}
            fill_beauty_map(obj, table, None, self.capture_specs)
            # 32-bit calls: i386 numbers (x86_64)
            fill_beauty32_map(obj, o.data_bytes)
            fill_ioctl_map(obj)
        if o.syscalls is not None:
            filt = obj.maps["syscall_filter"]
            half = filt.max_entries // 2    # native numbers, then the 32-bit calls'
            for nr in sorted(o.syscalls):
                if 0 <= nr < half:
                    filt.update_elem(struct.pack("<I", nr), b"\x01")
            for nr in sorted(self._compat_selection()):
                if 0 <= nr < half:
                    filt.update_elem(struct.pack("<I", half + nr), b"\x01")
        self._fill_errno_filter(obj)
        if fd_table:
            fill_fd_track(obj, SyscallTable())
            self.fd_resolver = FdResolver()
        ev = obj.maps["events"]
        self.ringbuf = RingBuf(ev.fd, ev.max_entries, name="events")

    def _compat_selection(self) -> set[int]:
        """The i386 numbers of the 32-bit calls to record (x86_64 only; none elsewhere:
        no other arch flags 32-bit calls)."""
        o = self.opts
        if machine_arch() != "x86_64" or o.syscalls is None:
            return set()
        if o.syscalls32 is not None:
            return o.syscalls32
        names = {SyscallTable().name(nr) for nr in o.syscalls}
        t32 = SyscallTable("i386")
        return {nr for name in t32.names() if name in names and (nr := t32.nr(name)) is not None}

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
        if only_new:
            self.reenumerated = Reenumerated(
                ts_ns=time.monotonic_ns(), added=tuple(t for t, _ in res.added),
                not_added=len(res.not_added), gone=res.gone)
        for t in res.gone_targets:
            if t not in self.gone_targets:
                self.gone_targets.append(t)
                if self.opts.log_gone_targets:
                    log.warning("target %s %d exited during start-up; going on without it",
                                "pid" if self.opts.pids else "tid", t)
        return len(res.added)

    def _children_now(self) -> frozenset[int]:
        """The child processes the pid/tid targets' threads have now, targets excepted:
        read before the first /proc pass, so a child forked from then on (before the
        attach too) is not among them."""
        own = self.opts.target()
        threads = dataclasses.replace(own, follow_forks=False)
        kids = {c for tid, _ in threads.tasks(self.procfs) for c in self.procfs.children(tid)}
        targets = set(own.pids) | {self.procfs.tgid_of(t) or t for t in own.tids}
        return frozenset(kids - targets)

    def _check_targets(self) -> None:
        o = self.opts
        kind = "pid" if o.pids else "tid"
        named = {t.id: t for t in o.named}
        ids = o.pids or o.tids
        missing = [p for p in ids if not self.procfs.exists(p)]
        if missing:
            raise TargetError(f"no such {kind}: {', '.join(map(str, missing))} "
                              f"(ESRCH: /proc/{missing[0]} does not exist)")
        # not running when named, running now: its number went to another task since
        late = [p for p in ids if p in named and named[p].start_ticks == 0
                and self.procfs.live_start_ticks(p) is not None]
        if late:
            raise TargetError(f"no such {kind}: {', '.join(map(str, late))} (ESRCH: it "
                              f"was not running when named; /proc/{late[0]} is another task)")
        # one that ran when named and has exited since (even if its number was reused)
        # is gone: logged and stepped over by the /proc pass, as rule 7 says
        own = [t for t in o.tids if self.procfs.tgid_of(t) == self.self_tgid]
        if self.self_tgid in o.pids or own:
            which = f"pid {self.self_tgid}" if self.self_tgid in o.pids else f"tid {own[0]}"
            raise TargetError(f"{which} is tracekit itself, which never traces itself")

    async def start(self, before_release: Callable[[], None] | None = None) -> None:
        """Load, attach and start the workload; on error close everything and re-raise.

        Args:
          before_release: called once the programs are attached and the targets are in
            the pids map, before a held command is let go to exec (where a reader of the
            ring buffer starts, so a fast command cannot fill the ring while the rest of
            the pipeline is still being built).
        """
        o = self.opts
        released = False
        foreign = None if o.foreign_pid_namespace_ok else foreign_pid_namespace()
        if foreign is not None:
            raise TargetError(foreign)
        try:
            if o.pids or o.tids:
                self._check_targets()
                if o.follow_forks and not o.attached_descendants:
                    self._old_children = self._children_now()
            self._load()
            assert self.obj is not None
            if o.command:
                self.command = HeldCommand(o.command, env=o.env, creds=o.creds,
                                           signals=o.command_signals,
                                           own_group=bool(o.command_own_group))
                self.target_tgids = [self.command.pid]
                self.add_task(self.command.pid, self.command.pid, flags=PID_PENDING_EXEC)
            elif o.pids:
                self.target_tgids = list(o.pids)
                self.targets = [t for t in o.named if t.id in o.pids]
                self._reenumerate(only_new=False)
            elif o.tids:
                self.target_tgids = sorted({self.procfs.tgid_of(t) or t for t in o.tids})
                # the threads themselves, as named: a session of a thread ends when it
                # (and what it started) is gone, as strace -p TID does, not when its
                # process is
                self.targets = [t for t in o.named if t.id in o.tids]
                self._reenumerate(only_new=False)
            attach_ns = time.monotonic_ns()
            self.links = self.obj.attach_all()
            # Rule 4: what was created while we attached is found by reading /proc again.
            if o.pids or o.tids:
                self._reenumerate(only_new=True)
            if self.not_added:
                log.warning("pids map full: %d tasks could not be traced (pids_max_entries=%d)",
                            self.not_added, o.pids_max_entries)
            if self.fd_resolver is not None:
                self._snapshot_fds(attach_ns)
            if before_release is not None:
                before_release()
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

    def _snapshot_fds(self, attach_ns: int) -> None:
        """The fd tables of the targets (fd_table): a held command's fds that its exec
        keeps, or every process of a pid/tid or cgroup target, read after attach and stamped with
        the attach time, so that they come before every traced call (a call between the
        attach and the read is in the snapshot and is applied again after it: opening,
        closing and dup'ing the same fds once more changes nothing)."""
        assert self.fd_resolver is not None
        diag = self.fd_resolver.diag
        if self.command is not None:
            snaps = snapshots([self.command.pid], diag, without_cloexec=True)
        elif self.opts.pids or self.opts.tids:
            tgids = sorted({info.tgid for info in self.pids.entries().values()})
            snaps = snapshots(tgids, diag)
        elif self.cgroup is not None:
            # the cgroup's processes, as a pid target's: a child forked later starts
            # with its parent's table (the Fork record), fds opened before the trace too
            snaps = snapshots([t for t in cgroup_tgids(self.cgroup.path)
                               if t != self.self_tgid], diag)
        else:
            # system-wide: no snapshot of every process on the machine; a process's
            # fds and working directory are read from /proc on first need
            snaps = []
        self.fd_snapshots = [msgspec.structs.replace(s, ts_ns=attach_ns) for s in snaps]

    def targets_alive(self) -> bool:
        """Whether anything is left to trace (a command: until it is reaped).

        With ``wait_for_children``, a command target is alive after the command was
        reaped while a task the pids map holds for it lives (as a pid target's below).
        A pid/tid target is alive while one of its processes is, as identified when it
        was named (a zombie is not: its parent may never reap it; a process that got the
        pid of an exited target is not either), or while a key of the pids map names the
        live task it was inserted for (the threads of a group whose leader has exited,
        descendants): its start time must match, so a key left by a task that exited
        cannot keep the session alive through whoever reuses the tid. The walk over the
        map stops at the first live key, so it usually reads one ``/proc/<tid>/stat``.
        """
        if self.command is not None:
            if self.command.returncode is None:
                return True
            if not self.opts.wait_for_children:
                return False
        elif self.opts.system_wide:
            return True
        if self.cgroup is not None:       # until the cgroup is removed
            return os.path.isdir(self.cgroup.path)
        if any(t.alive(self.procfs) for t in self.targets):
            return True
        pids = self._pids
        if pids is None or pids.map.fd < 0:
            return False
        for tid in pids.tids():
            info = pids.get(tid)
            if info is not None and same_task(self.procfs, tid, info.start_time_ns):
                return True
        return False

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
        if self.fd_resolver is not None:
            self.fd_resolver.close()
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
