"""Syscall classes for ``%class`` filters (strace -e trace=%file ...). GENERATED.

Produced by: python3 scripts/gen_syscall_classes.py
It read this machine's tracefs formats under /sys/kernel/tracing/events/syscalls
(Linux 6.18.44-fc-v1272 x86_64) on 2026-12-06;
%file and %desc are derived from argument names, the rest are the explicit lists
in the script. Do not edit: change the script and run it again.
"""

CLASSES: dict[str, frozenset[str]] = {
    '%stat': frozenset({
        'fstat', 'fstat64', 'fstatat64', 'lstat', 'lstat64', 'newfstatat', 'oldfstat',
        'oldlstat', 'oldstat', 'stat', 'stat64', 'statx',
    }),
    '%statfs': frozenset({
        'fstatfs', 'fstatfs64', 'statfs', 'statfs64', 'ustat',
    }),
    'clock': frozenset({
        'adjtimex', 'clock_adjtime', 'clock_adjtime64', 'clock_getres', 'clock_getres_time64',
        'clock_gettime', 'clock_gettime64', 'clock_settime', 'clock_settime64', 'gettimeofday',
        'settimeofday', 'stime', 'time',
    }),
    'creds': frozenset({
        'capget', 'capset', 'getegid', 'getegid32', 'geteuid', 'geteuid32', 'getgid',
        'getgid32', 'getgroups', 'getgroups32', 'getresgid', 'getresgid32', 'getresuid',
        'getresuid32', 'getuid', 'getuid32', 'setfsgid', 'setfsgid32', 'setfsuid',
        'setfsuid32', 'setgid', 'setgid32', 'setgroups', 'setgroups32', 'setregid',
        'setregid32', 'setresgid', 'setresgid32', 'setresuid', 'setresuid32', 'setreuid',
        'setreuid32', 'setuid', 'setuid32',
    }),
    'desc': frozenset({
        '_newselect', 'accept', 'accept4', 'bind', 'bpf', 'cachestat', 'close', 'close_range',
        'connect', 'copy_file_range', 'creat', 'dup', 'dup2', 'dup3', 'epoll_create',
        'epoll_create1', 'epoll_ctl', 'epoll_pwait', 'epoll_pwait2', 'epoll_wait', 'eventfd',
        'eventfd2', 'execveat', 'faccessat', 'faccessat2', 'fadvise64', 'fadvise64_64',
        'fallocate', 'fanotify_init', 'fanotify_mark', 'fchdir', 'fchmod', 'fchmodat',
        'fchmodat2', 'fchown', 'fchown32', 'fchownat', 'fcntl', 'fcntl64', 'fdatasync',
        'fgetxattr', 'file_getattr', 'file_setattr', 'flistxattr', 'flock', 'fremovexattr',
        'fsconfig', 'fsetxattr', 'fsmount', 'fsopen', 'fspick', 'fstat', 'fstat64', 'fstatfs',
        'fstatfs64', 'fsync', 'ftruncate', 'ftruncate64', 'futimesat', 'getdents',
        'getdents64', 'getpeername', 'getsockname', 'getsockopt', 'getxattrat',
        'inotify_add_watch', 'inotify_init', 'inotify_init1', 'inotify_rm_watch',
        'io_uring_enter', 'io_uring_register', 'io_uring_setup', 'ioctl', 'landlock_add_rule',
        'landlock_create_ruleset', 'landlock_restrict_self', 'linkat', 'listen', 'listxattrat',
        'lseek', 'memfd_create', 'memfd_secret', 'mkdirat', 'mknodat', 'mmap', 'mount_setattr',
        'move_mount', 'mq_getsetattr', 'mq_notify', 'mq_open', 'mq_timedreceive',
        'mq_timedsend', 'name_to_handle_at', 'newfstatat', 'open', 'open_by_handle_at',
        'open_tree', 'open_tree_attr', 'openat', 'openat2', 'perf_event_open', 'pidfd_getfd',
        'pidfd_open', 'pidfd_send_signal', 'pipe', 'pipe2', 'poll', 'ppoll', 'ppoll_time64',
        'pread64', 'preadv', 'preadv2', 'process_madvise', 'process_mrelease', 'pselect6',
        'pselect6_time64', 'pwrite64', 'pwritev', 'pwritev2', 'quotactl_fd', 'read',
        'readahead', 'readlinkat', 'readv', 'recvfrom', 'recvmmsg', 'recvmsg', 'removexattrat',
        'renameat', 'renameat2', 'select', 'sendfile', 'sendfile64', 'sendmmsg', 'sendmsg',
        'sendto', 'setns', 'setsockopt', 'setxattrat', 'shutdown', 'signalfd', 'signalfd4',
        'socket', 'socketcall', 'socketpair', 'splice', 'statx', 'symlinkat',
        'sync_file_range', 'syncfs', 'tee', 'timerfd_create', 'timerfd_gettime',
        'timerfd_settime', 'unlinkat', 'userfaultfd', 'utimensat', 'vmsplice', 'write',
        'writev',
    }),
    'file': frozenset({
        'access', 'acct', 'chdir', 'chmod', 'chown', 'chown32', 'chroot', 'creat', 'execve',
        'execveat', 'faccessat', 'faccessat2', 'fanotify_mark', 'fchmodat', 'fchmodat2',
        'fchownat', 'file_getattr', 'file_setattr', 'fspick', 'fstatat64', 'futimesat',
        'getcwd', 'getxattr', 'getxattrat', 'inotify_add_watch', 'lchown', 'lchown32',
        'lgetxattr', 'link', 'linkat', 'listxattr', 'listxattrat', 'llistxattr',
        'lremovexattr', 'lsetxattr', 'lstat', 'lstat64', 'mkdir', 'mkdirat', 'mknod',
        'mknodat', 'mount', 'mount_setattr', 'move_mount', 'name_to_handle_at', 'newfstatat',
        'oldlstat', 'oldstat', 'open', 'open_tree', 'open_tree_attr', 'openat', 'openat2',
        'pivot_root', 'quotactl', 'readlink', 'readlinkat', 'removexattr', 'removexattrat',
        'rename', 'renameat', 'renameat2', 'rmdir', 'setxattr', 'setxattrat', 'stat', 'stat64',
        'statfs', 'statfs64', 'statx', 'swapoff', 'swapon', 'symlink', 'symlinkat', 'truncate',
        'truncate64', 'umount', 'umount2', 'unlink', 'unlinkat', 'utime', 'utimensat',
        'utimensat_time64', 'utimes',
    }),
    'fstat': frozenset({
        'fstat', 'fstat64', 'fstatat64', 'newfstatat', 'oldfstat', 'statx',
    }),
    'fstatfs': frozenset({
        'fstatfs', 'fstatfs64',
    }),
    'ipc': frozenset({
        'ipc', 'msgctl', 'msgget', 'msgrcv', 'msgsnd', 'semctl', 'semget', 'semop',
        'semtimedop', 'semtimedop_time64', 'shmat', 'shmctl', 'shmdt', 'shmget',
    }),
    'lstat': frozenset({
        'lstat', 'lstat64', 'oldlstat',
    }),
    'memory': frozenset({
        'brk', 'get_mempolicy', 'madvise', 'map_shadow_stack', 'mbind', 'migrate_pages',
        'mincore', 'mlock', 'mlock2', 'mlockall', 'mmap', 'mmap2', 'move_pages', 'mprotect',
        'mremap', 'mseal', 'msync', 'munlock', 'munlockall', 'munmap', 'pkey_mprotect',
        'process_madvise', 'process_mrelease', 'remap_file_pages', 'set_mempolicy',
        'set_mempolicy_home_node', 'shmat', 'shmdt',
    }),
    'net': frozenset({
        'accept', 'accept4', 'bind', 'connect', 'getpeername', 'getsockname', 'getsockopt',
        'listen', 'recv', 'recvfrom', 'recvmmsg', 'recvmmsg_time64', 'recvmsg', 'send',
        'sendmmsg', 'sendmsg', 'sendto', 'setsockopt', 'shutdown', 'socket', 'socketpair',
    }),
    'network': frozenset({
        'accept', 'accept4', 'bind', 'connect', 'getpeername', 'getsockname', 'getsockopt',
        'listen', 'recv', 'recvfrom', 'recvmmsg', 'recvmmsg_time64', 'recvmsg', 'send',
        'sendmmsg', 'sendmsg', 'sendto', 'setsockopt', 'shutdown', 'socket', 'socketpair',
    }),
    'process': frozenset({
        'clone', 'clone3', 'execve', 'execveat', 'exit', 'exit_group', 'fork', 'vfork',
        'wait4', 'waitid', 'waitpid',
    }),
    'pure': frozenset({
        'getegid', 'getegid32', 'geteuid', 'geteuid32', 'getgid', 'getgid32', 'getpgrp',
        'getpid', 'getppid', 'gettid', 'getuid', 'getuid32',
    }),
    'signal': frozenset({
        'kill', 'pause', 'pidfd_send_signal', 'rt_sigaction', 'rt_sigpending',
        'rt_sigprocmask', 'rt_sigqueueinfo', 'rt_sigreturn', 'rt_sigsuspend',
        'rt_sigtimedwait', 'rt_sigtimedwait_time64', 'rt_tgsigqueueinfo', 'sgetmask',
        'sigaction', 'sigaltstack', 'signal', 'signalfd', 'signalfd4', 'sigpending',
        'sigprocmask', 'sigreturn', 'sigsuspend', 'ssetmask', 'tgkill', 'tkill',
    }),
    'stat': frozenset({
        'oldstat', 'stat', 'stat64',
    }),
    'statfs': frozenset({
        'statfs', 'statfs64',
    }),
}
