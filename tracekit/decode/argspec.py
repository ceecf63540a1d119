"""Per syscall: which decoder each argument gets, and how the return value is printed.

One line per syscall: ``name: kind kind ... -> ret``. Names are syscall table names of
x86_64 and i386 (i386 calls such as ``mmap2`` and ``_llseek`` are listed too). A syscall
not listed here prints each of its arguments (their number from tracefs) as strace prints
undecoded ones: ``0`` or hex. Argument kinds (implemented in ``tracekit.decode.args``):

====================  ==========================================================
``d`` ``ld`` ``u``    int (32-bit signed), long (64-bit signed), unsigned decimal;
``tgid`` ``tid``      a process / thread id: an int, with strace -Y its name
                      (``1234<sh>``); ``pidpg``: kill's and wait4's (named when
                      positive), ``pgid``: a process group (never named);
                      ``waitid_id``: waitid's id (a process id under P_PID)
``u64``               the whole register unsigned even for an int (readlink's bufsiz:
                      strace prints it so; ``u`` of an int prints its low 32 bits)
``x`` ``p``           hex (``0`` for 0); pointer (``NULL`` for 0)
``raw``               the whole register in hex, whatever its C type (a call strace 6.1
                      does not decode: ``rseq(0, 0x20, 0, 0x53053053)``)
``fd`` ``dirfd``      an fd (``3</etc/passwd>`` with fd paths); dirfd: ``AT_FDCWD``;
``newfd``             dup2's target: decorated only from the fd table (what it was)
``pidfdfd``           pidfd_getfd's fd: decorated as the pidfd's process's fd
``path`` ``str``      captured string (path: whole; str: cut at the string limit)
``bufw`` ``bufr``     buffer whose length is the next arg (write: at entry) or the
                      return value (read: shown when the call succeeded); ``bufrx``:
                      the same, every byte as ``\\xNN`` (getrandom); ``bufrn``:
                      no longer than the next arg either (recvfrom's MSG_TRUNC)
``bufprev``           buffer whose length is the previous arg (kexec_file_load's cmdline)
``strr``              a string written by the call, length the return value (readlink)
``utsname_in``        sethostname's name: next-arg bytes, the address past 64 of them
``argv`` ``envp``     execve's vectors: ``["ls", "-l"]``, ``0x7ffc... /* 23 vars */``
``sockaddr``          struct sockaddr, length the next arg
``timespec``          struct timespec; ``timeval``, ``timezone``: settimeofday's
``wstatus`` ...       proc structs (tracekit.decode.structs_proc): ``wstatus``
                      ``rusagew`` (wait4: when ret > 0), ``rusage``,
                      ``siginfo_out``, ``sigaction_in``/``_out``, ``sigset_in``/``_out``
                      (size: arg 3), ``stack_in``/``_out``, ``timespec_out``,
                      ``timeval_out``, ``id_out``, ``cpuset_out``/``cpuset_in`` (size:
                      arg 1), ``sigpending_out`` (size: arg 1), ``sigevent``,
                      ``mincore_vec`` (mincore's pages: ``[1, 0]``): ``_out`` ones are
                      written by the call, an address when it failed
``timet_out``         time(2)'s time_t: ``[1796536993 /* 2026-12-06T06:03:13+0000 */]``
``stat64``            i386 struct stat64 (tracekit.decode.structs_compat);
``statfs64``          i386 struct statfs64 (statfs64/fstatfs64, size: the previous arg)
``int_out`` ...       an int a call wrote, ``[24]`` (tracekit.decode.ops); ``uint_out``:
                      unsigned (getcpu, mq_timedreceive's priority); ``int_in``
``stat`` ``statx``    structs the call fills in (tracekit.decode.structs_fs): stat,
``statfs`` ...        statx, statfs, ``rlim_in``/``rlim_out``, ``utsname``, ``sysinfo``,
                      ``tms``, ``rusage``, ``pipefds``, ``cwd``; ``dirents``: the count
                      of getdents64's entries; the times a call sets: ``utimens``
                      (timespec[2]), ``utimes`` (timeval[2]), ``utimbuf`` (utime's);
                      ``xattrval_in``/``_out`` (an xattr value, length the next arg /
                      ret), ``xattrlist`` (listxattr's names), ``openhow`` (openat2's
                      struct open_how, size the next arg), ``fhandle_in``/
                      ``fhandle_inout`` (struct file_handle), ``mountattr``
                      (mount_setattr's struct mount_attr, size the next arg)
``oflags`` ``omode``  open flags; the mode, printed only with O_CREAT or O_TMPFILE
``mode`` ``fmode``    mode_t octal (``0644``); with file type (``S_IFREG|0644``)
``dev``               a 32-bit dev_t: ``makedev(0xfff, 0xff)``
others                a table of ``tracekit.decode.flags`` (see ``tracekit.decode.args.kinds_for``)
``lockop`` ...         flag words of the calls their prototypes describe
                      (tracekit.decode.flagwords): ``lockop``, ``inmask``, ``mountflags``
                      (``mounttype``/``mountdata``: strings unless the flags say not),
                      ``umountflags``, ``faninitflags``, ``fanmarkflags``, ``fanevents``,
                      ``fandirfd``, ``ioprio``, ``mpolmode``, ``swapflags``, ``ipckey``,
                      ``ipcgetflags``, ``shmgetflags``, ``spliceflags``...
``capheader`` ...      capget/capset's header, ``capdata_in``/``capdata_out``
                      (tracekit.decode.structs_cred)
``shmctlarg`` ...      System V IPC and message queue structs
                      (tracekit.decode.structs_ipc): ``shmctlarg``/``semctlarg``/
                      ``msgctlarg`` (by the command), ``sembufs`` (count: next arg),
                      ``msgbuf_in``/``msgbuf_out`` (text size: next arg),
                      ``mqattr_in``/``mqattr_out``/``mqattr_open`` (mq_flags in hex)
``timex`` ...          per-thread and clock structs (tracekit.decode.structs_task):
                      ``timex``, ``schedattr_in``/``schedattr_out`` (sched_setattr,
                      sched_getattr), ``pages_in``/``pagenodes_in``/``pagestatus_out``
                      (move_pages' arrays, nr_pages: argument 1), ``kexecsegs``
                      (kexec_load's segments), ``futexwaiters``
                      (count: next arg), ``seccomparg``
                      and ``seccompflags`` (by seccomp's operation), ``user_desc``,
                      ``ldt_desc`` (size: next arg), ``user_desc_entry``, ``nodes_in``/
                      ``nodes_out`` (maxnode: next arg), ``migrate_nodes``
``ioctlreq`` ...       I/O structs (tracekit.decode.structs_io): ``ioctlreq``,
                      ``ioctlarg`` (by request; none for FIOCLEX), ``pollfds``,
                      ``fdset``, ``timeout_ts``/``timeout_tv``, ``sigmask`` (size:
                      next arg), ``epollevent``, ``epollevents`` (ret of them),
                      ``iovw``/``iovr``/``iovaddr``, ``msghdr_in``/``msghdr_out``,
                      ``msgflags``,
                      ``mmsgvec`` (sendmmsg), ``mmsgvec_out`` (recvmmsg: ret of them)
``ioevents`` ...      AIO and io_uring (tracekit.decode.structs_aio): ``aioctx_out``,
                      ``ioevents`` (ret of them), ``ioevent_out``, ``iocb``, ``iocbpp``,
                      ``uringparams``; ``perfattr`` (tracekit.decode.structs_perf); ``bpfattr``
                      (tracekit.decode.structs_bpf);
                      ``landlockruleattr``, ``landlockrulesetattr`` (structs_fs)
``iouringregop`` ...  constants and flag words of io_uring, fsconfig, perf_event_open,
                      kexec, finit_module and reboot (tracekit.decode.flagwords):
                      ``iouringenterflags``, ``fsconfigcmd``, ``perfflags``, ``kexecflags``,
                      ``kexecfileflags``, ``modinitflags``, ``rebootmagic``,
                      ``rebootcmd``; ``rebootarg`` (printed for RESTART2 only),
                      ``fsconfigkey``/``fsconfigvalue``/``fsconfigaux`` (by command)
``sockaddr_out`` ...  socket outputs (tracekit.decode.structs_net): ``sockaddr_out``
                      (length: the next arg), ``len_inout`` (``[128 => 16]``),
                      ``addrlen_inout`` (the same, an address beside a NULL address),
                      ``sollevel``, ``sockopt``/``sockopt_get``, ``optval_in``/``optval_out``
``nlbufw`` ``nlbufr`` sendto's / recvfrom's buffer: netlink messages on a netlink
                      socket (tracekit.decode.structs_netlink), else as ``bufw``/``bufrn``
``off64``             a 64-bit offset of an i386 call in two registers, this one the
                      low half, the next the high half (signed decimal)
``loff_out``          a loff_t the call writes (_llseek's result: ``[4096]``)
``-``                 stop: the arguments after this one are not printed
====================  ==========================================================

Calls whose arguments follow their operation end with a kind named after them (``futex``,
``prctl``, ``fcntl``, ``mremap``, ``membarrier``, ``ptrace``, ``syslog``, ``personality``,
``keyctl``, ``clone3``, ``kcmp``, ``quotactl``, ``quotactl_fd``: tracekit.decode.ops; ``clone``;
``llseek``: _llseek's offset from its two halves, its result, whence; ``oldmmap``:
i386 mmap's six arguments read from the struct at its argument, ``mmaparg32``), which
prints every argument; a kind before it only says what that argument is (``fcntl: fd
fcntl``: the path filter's fds).

restart_syscall prints the thread's previous call, as strace does:
``restart_syscall(<... resuming interrupted nanosleep ...>)`` (SyscallDecoder.decode).

Return kinds: ``d`` (decimal, the default), ``tgid`` ``tid`` (a process / thread id,
named with strace -Y), ``child`` (fork's, clone's: the new task, named as its
parent was at the call), ``wait`` (wait4's: a child it reaped has no name left),
``fd`` (decimal, and a new fd for the fd cache), ``x`` (hex: addresses, mmap/brk),
``mode`` (umask: octal), ``fcntl`` (flags of
F_GETFD/F_GETFL as ``0x1 (flags FD_CLOEXEC)``, the new fd of F_DUPFD, ``10 (SIGUSR1)``
of F_GETSIG, ``0x2 (F_UNLCK)`` of F_GETLEASE), ``prctl`` (``1 (SUID_DUMP_USER)``),
``membarrier`` (the commands of MEMBARRIER_CMD_QUERY), ``clockstate``
(``5 (TIME_ERROR)``), ``ioprio``
(``16388 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4))``), ``schedpolicy`` (``0 (SCHED_OTHER)``),
``personality``
(``0x8 (PER_LINUX32)``), ``recvmmsg`` (``1 (left {...})``), ``ldt`` (modify_ldt's int
result in a zero-extended register: ``4294967258 ENOSYS (Function not implemented)``),
``poll``/``ppoll``
(``2 ([{fd=3, revents=POLLIN}], left {...})``), ``select32`` (i386 _newselect's),
``time`` (``1796536993 (2026-12-06T06:03:13+0000)``), ``select``/``pselect``
(``1 (in [3], left {...})``); ``0 (Timeout)``.
"""

from __future__ import annotations

__all__ = ["ARGSPEC", "ARGSPEC32", "I386_NARGS", "I386_TWINS", "NEWER_FD_CALLS",
           "NEWER_THAN_STRACE61", "SAME_LAYOUT32", "ArgSpec"]

ArgSpec = tuple[tuple[str, ...], str]

_SPEC = """
read: fd bufr u
write: fd bufw u
pread64: fd bufr u ld
pwrite64: fd bufw u ld
readv: fd iovr u
writev: fd iovw u
preadv: fd iovr u ld
pwritev: fd iovw u ld
preadv2: fd iovr u ld rwf_next stop
pwritev2: fd iovw u ld rwf_next stop
open: path oflags omode -> fd
openat: dirfd path oflags omode -> fd
openat2: dirfd path openhow u -> fd
mount_setattr: dirfd path mountsetattrflags mountattr u
name_to_handle_at: dirfd path fhandle_inout int_out nthflags
open_by_handle_at: fd fhandle_in oflags -> fd
creat: path mode -> fd
close: fd
close_range: u u closerangeflags
stat: path stat
lstat: path stat
fstat: fd stat
newfstatat: dirfd path stat atflags
fstatat64: dirfd path stat64 atflags
stat64: path stat64
lstat64: path stat64
fstat64: fd stat64
statx: dirfd path statxflags statxmask statx
statfs: path statfs
fstatfs: fd statfs
access: path amode
faccessat: dirfd path amode
faccessat2: dirfd path amode faccessflags
lseek: fd ld whence
_llseek: fd u u loff_out llseek
truncate64: path off64
ftruncate64: fd off64
mmap: p u prot mmapflags fd x -> x
mmap2: p u prot mmapflags fd x -> x
mprotect: p u prot
munmap: p u
brk: p -> x
madvise: p u madv
mremap: mremap -> x
msync: p u msyncflags
mlock: p u
munlock: p u
rt_sigaction: sig sigaction_in sigaction_out u
rt_sigprocmask: how sigset_in sigset_out u
rt_sigpending: sigpending_out u
rt_sigsuspend: sigmask u
rt_sigreturn: sigframe_mask
sigreturn:
ioctl: fd ioctlreq ioctlarg
dup: fd -> fd
dup2: fd newfd -> fd
dup3: fd newfd pipeflags -> fd
pipe: pipefds
pipe2: pipefds pipeflags
socket: af socktype proto -> fd
socketpair: af socktype d pipefds
connect: fd sockaddr u
bind: fd sockaddr u
accept: fd sockaddr_out addrlen_inout -> fd
accept4: fd sockaddr_out addrlen_inout sockflags -> fd
listen: fd d
shutdown: fd shuthow
getsockname: fd sockaddr_out addrlen_inout
getpeername: fd sockaddr_out addrlen_inout
sendto: fd nlbufw u msgflags sockaddr u
recvfrom: fd nlbufr u msgflags sockaddr_out addrlen_inout
sendmsg: fd msghdr_in msgflags
recvmsg: fd msghdr_out msgflags
sendmmsg: fd mmsgvec u msgflags
recvmmsg: fd mmsgvec_out u msgflags timeout_ts -> recvmmsg
setsockopt: fd sollevel sockopt optval_in d
getsockopt: fd sollevel sockopt_get optval_out len_inout
clone: clone -> child
clone3: clone3 -> child
fork: -> child
vfork: -> child
getpid: -> tgid
getppid: -> tgid
gettid: -> tid
getuid:
geteuid:
getgid:
getegid:
getpgrp:
setsid:
sched_yield:
pause:
sync:
munlockall:
inotify_init: -> fd
restart_syscall:
execve: path argv envp
execveat: dirfd path argv envp atflags
exit: d
exit_group: d
wait4: pidpg wstatus waitopts rusagew -> wait
waitid: idtype waitid_id siginfo_out waitopts rusage
kill: pidpg sig
tkill: tid sig
tgkill: tgid tid sig
fcntl: fd fcntl -> fcntl
fcntl64: fd fcntl -> fcntl
chdir: path
fchdir: fd
getcwd: cwd u
mkdir: path mode
mkdirat: dirfd path mode
rmdir: path
unlink: path
unlinkat: dirfd path atflags
rename: path path
renameat: dirfd path dirfd path
renameat2: dirfd path dirfd path renameflags
readlink: path strr u64
readlinkat: dirfd path strr u64
symlink: path path
symlinkat: path dirfd path
link: path path
linkat: dirfd path dirfd path atflags
chmod: path mode
fchmod: fd mode
fchmodat: dirfd path mode
chown: path uid uid
lchown: path uid uid
fchown: fd uid uid
fchownat: dirfd path uid uid atflags
umask: mode -> mode
mknod: path fmode mknoddev
mknodat: dirfd path fmode mknoddev
getdents64: fd dirents u
getdents: fd dirents u
futex: futex
set_tid_address: raw
set_robust_list: p u
rseq: raw raw raw raw
prlimit64: tgid rlimit rlim_in rlim_out
getrlimit: rlimit rlim_out
setrlimit: rlimit rlim_in
arch_prctl: archprctl archprctlarg
prctl: prctl -> prctl
getrandom: bufrx u grnd
fadvise64: fd ld u fadv
fadvise64_64: fd ld u fadv
nanosleep: timespec rem_out
clock_nanosleep: clockid timerflags timespec rem_out
clock_gettime: clockid timespec_out
clock_getres: clockid timespec_out
clock_settime: clockid timespec
utimensat: dirfd path utimens atflags
utimes: path utimes
utime: path utimbuf
futimesat: dirfd path utimes
settimeofday: timeval timezone
epoll_ctl: fd epollop fd epollevent
epoll_wait: fd epollevents d d
epoll_pwait: fd epollevents d d sigmask u
epoll_pwait2: fd epollevents d timeout_ts sigmask u
poll: pollfds u d -> poll
ppoll: pollfds u timeout_ts sigmask u -> ppoll
select: d fdset fdset fdset timeout_tv -> select
pselect6: d fdset fdset fdset timeout_ts pselect_sig -> pselect
getxattr: path str xattrval_out u
lgetxattr: path str xattrval_out u
fgetxattr: fd str xattrval_out u
setxattr: path str xattrval_in u xattrflags
lsetxattr: path str xattrval_in u xattrflags
fsetxattr: fd str xattrval_in u xattrflags
listxattr: path xattrlist u
llistxattr: path xattrlist u
flistxattr: fd xattrlist u
removexattr: path str
lremovexattr: path str
fremovexattr: fd str
eventfd2: u efdflags -> fd
eventfd: u -> fd
signalfd4: fd sigmask u sfdflags -> fd
signalfd: fd sigmask u -> fd
inotify_init1: inflags -> fd
memfd_create: str mfdflags -> fd
ftruncate: fd u
truncate: path u
fsync: fd
fdatasync: fd
flock: fd lockop
sendfile: fd fd off_inout u
copy_file_range: fd off_in fd off_in u u32
splice: fd off_in fd off_in u spliceflags
vmsplice: fd iovw u spliceflags
epoll_create1: epollflags -> fd
epoll_create: d -> fd
chroot: path
umount2: path umountflags
setuid: d
setgid: d
setpgid: tgid pgid
getpgid: tgid
getsid: tgid
alarm: u
unshare: unshareflags
sched_getaffinity: tgid u cpuset_out
sched_setaffinity: tgid u cpuset_in
sigaltstack: stack_in stack_out
gettimeofday: timeval_out p
getresuid: id_out id_out id_out
getresgid: id_out id_out id_out
uname: utsname
sysinfo: sysinfo
times: tms
getrusage: rusagewho rusage
membarrier: membarrier -> membarrier
ptrace: ptrace
syslog: syslog
personality: personality -> personality
keyctl: keyctl
setns: fd setnstype
landlock_add_rule: fd landlockrule landlockruleattr x32
landlock_restrict_self: fd x32
timerfd_create: clockid tfdflags -> fd
timerfd_settime: fd tfdtimerflags itimerspec_in itimerspec_out
timerfd_gettime: fd itimerspec_out
timer_create: clockid sigevent int_out
timer_settime: d timerflags itimerspec_in itimerspec_out
timer_gettime: d itimerspec_out
timer_getoverrun: d
timer_delete: d
setitimer: itimer itimerval_in itimerval_out
getitimer: itimer itimerval_out
getgroups: d gids_out
rt_sigtimedwait: sigset_in siginfo_w timespec u -> signal
rt_sigqueueinfo: tgid sig siginfo_in
rt_tgsigqueueinfo: tgid tid sig siginfo_in
get_robust_list: tid ptr_out int_out
sched_setscheduler: tgid schedpolicy int_in
sched_setparam: tgid int_in
sched_getparam: tgid int_out
sched_setattr: tgid schedattr_in u32
kexec_load: p u kexecsegs kexecflags
kexec_file_load: fd fd u bufprev kexecfileflags
move_pages: tgid u pages_in pagenodes_in pagestatus_out movepagesflags
sethostname: utsname_in u32
setdomainname: utsname_in u32
sched_getattr: tgid schedattr_out u32 u32
setgroups: d gids_in
capget: capheader capdata_out
capset: capheader capdata_in
mount: path path mounttype mountflags mountdata
ioprio_get: ioprio_who d -> ioprio
sched_getscheduler: tgid -> schedpolicy
shmat: d p shmatflags -> x
kcmp: d d kcmp
io_uring_setup: u32 uringparams -> fd
io_uring_register: fd iouringregop uringregarg u32
fanotify_init: faninitflags oflags -> fd
userfaultfd: uffdflags -> fd
memfd_secret: memfdsecretflags -> fd
bpf: bpfcmd bpfattr u32 -> bpffd
quotactl: quotactl
quotactl_fd: fd quotactl_fd
sysfs: raw raw raw
ustat: dev p
getcpu: uint_out uint_out p
sched_rr_get_interval: tgid timespec_out
mincore: p u mincore_vec
modify_ldt: d ldt_desc u -> ldt
shmctl: d shmctlcmd shmctlarg
semctl: d d semctlcmd semctlarg
msgctl: d msgctlcmd msgctlarg
semop: d sembufs u32
msgsnd: d msgbuf_in u ipcmsgflags
msgrcv: d msgbuf_out u ld ipcmsgflags
semtimedop: d sembufs u32 timespec
mq_open: path oflags omode mqattr_open -> fd
mq_unlink: path
mq_getsetattr: fd mqattr_in mqattr_out
mq_notify: fd sigevent
mq_timedsend: fd bufw u u32 timespec
mq_timedreceive: fd bufr u uint_out timespec
pidfd_send_signal: fd sig siginfo_in x32
pidfd_open: tgid pidfdflags -> fd
pidfd_getfd: fd pidfdfd x32 -> fd
process_vm_readv: tgid iovr u iovaddr u u
process_vm_writev: tgid iovw u iovaddr u u
process_madvise: fd iovaddr u madv x32
adjtimex: timex -> clockstate
clock_adjtime: clockid timex -> clockstate
futex_waitv: futexwaiters u32 x32 timespec clockid
seccomp: seccompop seccompflags seccomparg
get_thread_area: user_desc_entry
set_thread_area: user_desc
mbind: p u mpolmode nodes_in u mbindflags
set_mempolicy_home_node: p u u x
set_mempolicy: mpolmode32 nodes_in u
get_mempolicy: mpolmode_out nodes_out u p getmempolflags
migrate_pages: tgid u migrate_nodes migrate_nodes
statfs64: path u statfs64
time: timet_out -> time
fstatfs64: fd u statfs64
"""

# i386 calls printed as the native call of the same arguments (the 32-bit id calls,
# ugetrlimit, the *_time64 calls, _newselect): i386 name -> native name.
_I386_ALIASES = {
    "chown32": "chown", "lchown32": "lchown", "fchown32": "fchown",
    "getuid32": "getuid", "geteuid32": "geteuid", "getgid32": "getgid",
    "getegid32": "getegid", "setuid32": "setuid", "setgid32": "setgid",
    "setreuid32": "setreuid", "setregid32": "setregid", "setresuid32": "setresuid",
    "setresgid32": "setresgid", "getresuid32": "getresuid", "getresgid32": "getresgid",
    "setfsuid32": "setfsuid", "setfsgid32": "setfsgid", "getgroups32": "getgroups",
    "setgroups32": "setgroups", "ugetrlimit": "getrlimit",
    "clock_gettime64": "clock_gettime", "clock_getres_time64": "clock_getres",
    "clock_nanosleep_time64": "clock_nanosleep", "clock_settime64": "clock_settime",
    "_newselect": "select",
}


def _parse(spec: str) -> dict[str, ArgSpec]:
    out: dict[str, ArgSpec] = {}
    for line in spec.strip().splitlines():
        name, _, rest = line.partition(":")
        args, _, ret = rest.partition("->")
        out[name.strip()] = (tuple(args.split()), ret.strip() or "d")
    return out


ARGSPEC: dict[str, ArgSpec] = _parse(_SPEC)
"""syscall name -> (argument kinds, return kind)."""
# i386 call -> the native (x86_64) call whose arguments and captures it takes: its
# memory reads the same in both ABIs (no long or pointer in it; 64-bit times): printed
# with the native decoders, captured with the native call's specs
# (tracekit.session.capture).
SAME_LAYOUT32: dict[str, str] = {
    "statx": "statx", "prlimit64": "prlimit64", "getdents64": "getdents64",
    "uname": "newuname", "poll": "poll", "rt_sigprocmask": "rt_sigprocmask",
    "pipe": "pipe", "pipe2": "pipe2", "getrandom": "getrandom",
    "clock_gettime64": "clock_gettime", "clock_getres_time64": "clock_getres",
    "clock_nanosleep_time64": "clock_nanosleep", "getgroups32": "getgroups",
    "setgroups32": "setgroups", "getresuid32": "getresuid", "getresgid32": "getresgid",
    # the ioctl arguments decoded (tracekit.decode.structs_io: termios, winsize, ints)
    "ioctl": "ioctl",
    # the direct socket calls (Linux 4.3): sockaddrs, socklen_t and int option values
    # (SO_LINGER's and SO_PEERCRED's structs are ints too)
    "recvfrom": "recvfrom", "getsockname": "getsockname", "getpeername": "getpeername",
    "setsockopt": "setsockopt", "getsockopt": "getsockopt", "socketpair": "socketpair",
    "accept": "accept", "accept4": "accept4", "sendto": "sendto",
    # and the socket calls whose arguments are ints and sockaddrs: their specs describe
    # the fds (-yy) as the native calls' do
    "socket": "socket", "bind": "bind", "connect": "connect", "listen": "listen",
    "shutdown": "shutdown",
    # struct sched_attr: u32, s32 and u64 fields only, the u64s 8-aligned in both
    "sched_setattr": "sched_setattr", "sched_getattr": "sched_getattr",
    "sethostname": "sethostname", "setdomainname": "setdomainname",
    # struct file_handle: u32, int, bytes
    "name_to_handle_at": "name_to_handle_at", "open_by_handle_at": "open_by_handle_at",
    "mount_setattr": "mount_setattr",       # struct mount_attr: four u64
}


ARGSPEC32: dict[str, ArgSpec] = _parse("""
pread64: fd bufr u off64
pwrite64: fd bufw u off64
mmap: mmaparg32 oldmmap -> x
_newselect: d fdset fdset fdset timeout_tv32 -> select32
select: oldselect -> oldselect
socketcall: socketcall_call p
send: fd bufw u msgflags
recv: fd bufrn u msgflags
preadv: fd iovr u off64
pwritev: fd iovw u off64
preadv2: fd iovr u off64 rwf_next stop
pwritev2: fd iovw u off64 rwf_next stop
recvmmsg: fd mmsgvec_out u msgflags timeout_ts32 -> recvmmsg32
recvmmsg_time64: fd mmsgvec_out u msgflags timeout_ts -> recvmmsg
""")
"""i386 calls whose arguments differ from the native call of the same name (a 64-bit
offset split in two registers, low half first): name -> (argument kinds, return kind);
the others take :data:`ARGSPEC`'s."""
ARGSPEC.update({alias: ARGSPEC[native] for alias, native in _I386_ALIASES.items()
                if native in ARGSPEC})

#: how many arguments strace 6.1 prints for an i386 call under ``-e raw=`` (its i386
#: table's nargs) where that is not the native twin's count: a 64-bit offset in two
#: registers, calls i386 alone has, the old calls of one struct pointer
I386_NARGS = {
    "_llseek": 5, "pread64": 5, "pwrite64": 5, "preadv": 5, "pwritev": 5, "preadv2": 6,
    "pwritev2": 6, "truncate64": 3, "ftruncate64": 3, "fadvise64": 5, "fadvise64_64": 6,
    "fallocate": 6, "sync_file_range": 6, "readahead": 4, "statfs64": 3, "fstatfs64": 3,
    "fcntl64": 3, "stat64": 2, "lstat64": 2, "fstat64": 2, "fstatat64": 4, "mmap": 1,
    "mmap2": 6, "select": 1, "_newselect": 5, "socketcall": 2, "ipc": 6,
}
#: an i386 call's native twin, for its argument count (``chown32`` -> ``chown``)
I386_TWINS = dict(_I386_ALIASES)


#: calls of later kernels than strace 6.1's table knows (Linux 6.5's cachestat on: the
#: numbers from 451, and x86_64's uretprobe and uprobe): strace 6.1 prints them as a
#: number it has no entry for, ``syscall_0x1c3(0x3, 0x7ffd..., 0, 0, 0x73, 0x1)`` with
#: all six registers in hex and the return value in hex (``= 0xa``)
NEWER_THAN_STRACE61 = frozenset("""
    cachestat fchmodat2 map_shadow_stack futex_wake futex_wait futex_requeue statmount
    listmount lsm_get_self_attr lsm_set_self_attr lsm_list_modules mseal setxattrat
    getxattrat listxattrat removexattrat open_tree_attr file_getattr file_setattr listns
    rseq_slice_yield uretprobe uprobe
""".split())
#: those that return a new fd: the fd cache learns it all the same (strace -yy shows it
#: later, in ``close(4</path>)``)
NEWER_FD_CALLS = frozenset({"open_tree_attr"})
