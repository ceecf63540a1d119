"""Numbers of the bpf(2) and perf_event_open(2) user API.

Keep in sync with include/uapi/linux/bpf.h and include/uapi/linux/perf_event.h.

The enums were taken from the running kernel's own BTF (Linux 6.18), which is newer than
this machine's installed uapi headers (Linux 6.1)::

    bpftool btf dump file /sys/kernel/btf/vmlinux format c
    # enum bpf_cmd, bpf_map_type, bpf_prog_type, bpf_attach_type, bpf_link_type, BPF_F_*

``#define`` constants (prog flags, pseudo sources, perf ioctls) come from the headers in
/usr/include/linux. Values are ABI: a kernel never renumbers them, it only appends.
"""

from __future__ import annotations

from enum import IntEnum

# keep in sync with include/uapi/linux/bpf.h


class Cmd(IntEnum):
    """``enum bpf_cmd``: the first argument of bpf(2)."""

    MAP_CREATE = 0
    MAP_LOOKUP_ELEM = 1
    MAP_UPDATE_ELEM = 2
    MAP_DELETE_ELEM = 3
    MAP_GET_NEXT_KEY = 4
    PROG_LOAD = 5
    OBJ_PIN = 6
    OBJ_GET = 7
    PROG_ATTACH = 8
    PROG_DETACH = 9
    PROG_TEST_RUN = 10
    PROG_RUN = 10  # alias of PROG_TEST_RUN
    PROG_GET_NEXT_ID = 11
    MAP_GET_NEXT_ID = 12
    PROG_GET_FD_BY_ID = 13
    MAP_GET_FD_BY_ID = 14
    OBJ_GET_INFO_BY_FD = 15
    PROG_QUERY = 16
    RAW_TRACEPOINT_OPEN = 17
    BTF_LOAD = 18
    BTF_GET_FD_BY_ID = 19
    TASK_FD_QUERY = 20
    MAP_LOOKUP_AND_DELETE_ELEM = 21
    MAP_FREEZE = 22
    BTF_GET_NEXT_ID = 23
    MAP_LOOKUP_BATCH = 24
    MAP_LOOKUP_AND_DELETE_BATCH = 25
    MAP_UPDATE_BATCH = 26
    MAP_DELETE_BATCH = 27
    LINK_CREATE = 28
    LINK_UPDATE = 29
    LINK_GET_FD_BY_ID = 30
    LINK_GET_NEXT_ID = 31
    ENABLE_STATS = 32
    ITER_CREATE = 33
    LINK_DETACH = 34
    PROG_BIND_MAP = 35
    TOKEN_CREATE = 36  # Linux 6.9
    PROG_STREAM_READ_BY_FD = 37  # Linux 6.17


class MapType(IntEnum):
    """``enum bpf_map_type``."""

    UNSPEC = 0
    HASH = 1
    ARRAY = 2
    PROG_ARRAY = 3
    PERF_EVENT_ARRAY = 4
    PERCPU_HASH = 5
    PERCPU_ARRAY = 6
    STACK_TRACE = 7
    CGROUP_ARRAY = 8
    LRU_HASH = 9
    LRU_PERCPU_HASH = 10
    LPM_TRIE = 11
    ARRAY_OF_MAPS = 12
    HASH_OF_MAPS = 13
    DEVMAP = 14
    SOCKMAP = 15
    CPUMAP = 16
    XSKMAP = 17
    SOCKHASH = 18
    CGROUP_STORAGE = 19
    REUSEPORT_SOCKARRAY = 20
    PERCPU_CGROUP_STORAGE = 21
    QUEUE = 22
    STACK = 23
    SK_STORAGE = 24
    DEVMAP_HASH = 25
    STRUCT_OPS = 26
    RINGBUF = 27
    INODE_STORAGE = 28
    TASK_STORAGE = 29
    BLOOM_FILTER = 30
    USER_RINGBUF = 31
    CGRP_STORAGE = 32  # Linux 6.2
    ARENA = 33  # Linux 6.9


PERCPU_MAP_TYPES = frozenset({
    MapType.PERCPU_HASH, MapType.PERCPU_ARRAY, MapType.LRU_PERCPU_HASH,
    MapType.PERCPU_CGROUP_STORAGE,
})
"""Map types whose syscall-side value is ``round_up(value_size, 8) * possible_cpus()`` bytes."""


class ProgType(IntEnum):
    """``enum bpf_prog_type``."""

    UNSPEC = 0
    SOCKET_FILTER = 1
    KPROBE = 2
    SCHED_CLS = 3
    SCHED_ACT = 4
    TRACEPOINT = 5
    XDP = 6
    PERF_EVENT = 7
    CGROUP_SKB = 8
    CGROUP_SOCK = 9
    LWT_IN = 10
    LWT_OUT = 11
    LWT_XMIT = 12
    SOCK_OPS = 13
    SK_SKB = 14
    CGROUP_DEVICE = 15
    SK_MSG = 16
    RAW_TRACEPOINT = 17
    CGROUP_SOCK_ADDR = 18
    LWT_SEG6LOCAL = 19
    LIRC_MODE2 = 20
    SK_REUSEPORT = 21
    FLOW_DISSECTOR = 22
    CGROUP_SYSCTL = 23
    RAW_TRACEPOINT_WRITABLE = 24
    CGROUP_SOCKOPT = 25
    TRACING = 26
    STRUCT_OPS = 27
    EXT = 28
    LSM = 29
    SK_LOOKUP = 30
    SYSCALL = 31
    NETFILTER = 32  # Linux 6.4


class AttachType(IntEnum):
    """``enum bpf_attach_type``."""

    CGROUP_INET_INGRESS = 0
    CGROUP_INET_EGRESS = 1
    CGROUP_INET_SOCK_CREATE = 2
    CGROUP_SOCK_OPS = 3
    SK_SKB_STREAM_PARSER = 4
    SK_SKB_STREAM_VERDICT = 5
    CGROUP_DEVICE = 6
    SK_MSG_VERDICT = 7
    CGROUP_INET4_BIND = 8
    CGROUP_INET6_BIND = 9
    CGROUP_INET4_CONNECT = 10
    CGROUP_INET6_CONNECT = 11
    CGROUP_INET4_POST_BIND = 12
    CGROUP_INET6_POST_BIND = 13
    CGROUP_UDP4_SENDMSG = 14
    CGROUP_UDP6_SENDMSG = 15
    LIRC_MODE2 = 16
    FLOW_DISSECTOR = 17
    CGROUP_SYSCTL = 18
    CGROUP_UDP4_RECVMSG = 19
    CGROUP_UDP6_RECVMSG = 20
    CGROUP_GETSOCKOPT = 21
    CGROUP_SETSOCKOPT = 22
    TRACE_RAW_TP = 23
    TRACE_FENTRY = 24
    TRACE_FEXIT = 25
    MODIFY_RETURN = 26
    LSM_MAC = 27
    TRACE_ITER = 28
    CGROUP_INET4_GETPEERNAME = 29
    CGROUP_INET6_GETPEERNAME = 30
    CGROUP_INET4_GETSOCKNAME = 31
    CGROUP_INET6_GETSOCKNAME = 32
    XDP_DEVMAP = 33
    CGROUP_INET_SOCK_RELEASE = 34
    XDP_CPUMAP = 35
    SK_LOOKUP = 36
    XDP = 37
    SK_SKB_VERDICT = 38
    SK_REUSEPORT_SELECT = 39
    SK_REUSEPORT_SELECT_OR_MIGRATE = 40
    PERF_EVENT = 41
    TRACE_KPROBE_MULTI = 42
    LSM_CGROUP = 43
    STRUCT_OPS = 44  # Linux 6.4
    NETFILTER = 45
    TCX_INGRESS = 46  # Linux 6.6
    TCX_EGRESS = 47
    TRACE_UPROBE_MULTI = 48
    CGROUP_UNIX_CONNECT = 49  # Linux 6.7
    CGROUP_UNIX_SENDMSG = 50
    CGROUP_UNIX_RECVMSG = 51
    CGROUP_UNIX_GETPEERNAME = 52
    CGROUP_UNIX_GETSOCKNAME = 53
    NETKIT_PRIMARY = 54
    NETKIT_PEER = 55
    TRACE_KPROBE_SESSION = 56  # Linux 6.10
    TRACE_UPROBE_SESSION = 57  # Linux 6.14


class LinkType(IntEnum):
    """``enum bpf_link_type`` (``LinkInfo.type``)."""

    UNSPEC = 0
    RAW_TRACEPOINT = 1
    TRACING = 2
    CGROUP = 3
    ITER = 4
    NETNS = 5
    XDP = 6
    PERF_EVENT = 7
    KPROBE_MULTI = 8
    STRUCT_OPS = 9
    NETFILTER = 10
    TCX = 11
    UPROBE_MULTI = 12
    NETKIT = 13
    SOCKMAP = 14


# BPF_MAP_UPDATE_ELEM flags
ANY = 0       # create or update
NOEXIST = 1   # create only; EEXIST if the key is present
EXIST = 2     # update only; ENOENT if the key is absent
F_LOCK = 4    # spin-locked value update

# BPF_MAP_CREATE map_flags (anonymous enum after enum bpf_stats_type's neighbours)
F_NO_PREALLOC = 1 << 0
F_NO_COMMON_LRU = 1 << 1
F_NUMA_NODE = 1 << 2
F_RDONLY = 1 << 3          # syscall side may only read
F_WRONLY = 1 << 4
F_STACK_BUILD_ID = 1 << 5
F_ZERO_SEED = 1 << 6
F_RDONLY_PROG = 1 << 7     # BPF side may only read (.rodata)
F_WRONLY_PROG = 1 << 8
F_CLONE = 1 << 9
F_MMAPABLE = 1 << 10
F_PRESERVE_ELEMS = 1 << 11
F_INNER_MAP = 1 << 12
F_LINK = 1 << 13
F_PATH_FD = 1 << 14
F_VTYPE_BTF_OBJ_FD = 1 << 15
F_TOKEN_FD = 1 << 16
F_SEGV_ON_FAULT = 1 << 17
F_NO_USER_CONV = 1 << 18

# BPF_PROG_LOAD prog_flags
F_STRICT_ALIGNMENT = 1 << 0
F_ANY_ALIGNMENT = 1 << 1
F_TEST_RND_HI32 = 1 << 2
F_TEST_STATE_FREQ = 1 << 3
F_SLEEPABLE = 1 << 4
F_XDP_HAS_FRAGS = 1 << 5

# BPF_PROG_LOAD log_level bits
LOG_LEVEL1 = 1
LOG_LEVEL2 = 2
LOG_STATS = 4
LOG_FIXED = 8  # Linux 6.4: no rotating log; ENOSPC keeps the head instead of the tail

# BPF_PROG_TEST_RUN flags
F_TEST_RUN_ON_CPU = 1 << 0
F_TEST_XDP_LIVE_FRAMES = 1 << 1
F_TEST_SKB_CHECKSUM_COMPLETE = 1 << 2

# src_reg of BPF_LD_IMM64 (ld_imm64) instructions
PSEUDO_MAP_FD = 1
PSEUDO_MAP_VALUE = 2
PSEUDO_BTF_ID = 3
PSEUDO_FUNC = 4
PSEUDO_MAP_IDX = 5
PSEUDO_MAP_IDX_VALUE = 6
# src_reg of BPF_CALL instructions
PSEUDO_CALL = 1
PSEUDO_KFUNC_CALL = 2

# kernel-internal errno (include/linux/errno.h) that bpf(2) and mmap leak; libc has no name
ENOTSUPP = 524

OBJ_NAME_LEN = 16  # BPF_OBJ_NAME_LEN, including the NUL
TAG_SIZE = 8       # BPF_TAG_SIZE

# Ring buffer (kernel/bpf/ringbuf.c; uapi enum after BPF_RB_*)
RINGBUF_BUSY_BIT = 1 << 31     # record reserved, not yet committed
RINGBUF_DISCARD_BIT = 1 << 30  # record committed as discarded: skip it
RINGBUF_HDR_SZ = 8             # struct bpf_ringbuf_hdr { u32 len; u32 pg_off; }
RB_NO_WAKEUP = 1               # bpf_ringbuf_output/submit flags
RB_FORCE_WAKEUP = 2

# keep in sync with include/uapi/linux/perf_event.h

PERF_TYPE_HARDWARE = 0
PERF_TYPE_SOFTWARE = 1
PERF_TYPE_TRACEPOINT = 2
PERF_TYPE_HW_CACHE = 3
PERF_TYPE_RAW = 4
PERF_TYPE_BREAKPOINT = 5

PERF_COUNT_SW_CPU_CLOCK = 0
PERF_COUNT_SW_BPF_OUTPUT = 10

PERF_SAMPLE_RAW = 1 << 10

PERF_FLAG_FD_NO_GROUP = 1 << 0
PERF_FLAG_FD_OUTPUT = 1 << 1
PERF_FLAG_PID_CGROUP = 1 << 2
PERF_FLAG_FD_CLOEXEC = 1 << 3

# _IO('$', n) = ('$' << 8) | n; _IOW('$', 8, __u32) adds dir=1 (write) << 30 and size 4 << 16
PERF_EVENT_IOC_ENABLE = 0x2400
PERF_EVENT_IOC_DISABLE = 0x2401
PERF_EVENT_IOC_RESET = 0x2403
PERF_EVENT_IOC_SET_BPF = 0x40042408
