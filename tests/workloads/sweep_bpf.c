/* A strace-parity sweep over bpf(2): the commands a BPF tool makes most, each with the
 * union bpf_attr strace 6.1 decodes per command.
 *
 * Every call is harmless: it works on BPF maps of its own (an array and a hash, closed
 * before the end), or the kernel refuses it before it acts:
 * - BPF_PROG_LOAD with insn_cnt 0 or 0x05050505 (E2BIG), an unknown prog_type or unknown
 *   prog_flags (EINVAL): nothing is loaded, so nothing can run or be attached;
 * - BPF_OBJ_PIN / BPF_OBJ_GET on a path whose directory does not exist (ENOENT): nothing
 *   is pinned, /sys/fs/bpf is not touched;
 * - BPF_LINK_CREATE, BPF_RAW_TRACEPOINT_OPEN, BPF_LINK_UPDATE, BPF_PROG_ATTACH and
 *   BPF_PROG_DETACH with fds -1 (EBADF, EINVAL: nothing is attached or detached);
 * - BPF_BTF_LOAD with a NULL btf or one shorter than its header (EINVAL);
 * - BPF_PROG_GET_NEXT_ID / BPF_MAP_GET_NEXT_ID only read which ids exist; the
 *   *_GET_FD_BY_ID commands ask for id 0xfffffff0 (ENOENT: the kernel hands out ids up
 *   to INT_MAX only) or unknown open_flags (EINVAL): no other program's map or prog is
 *   opened;
 * - BPF_PROG_TEST_RUN, BPF_TASK_FD_QUERY with fds -1 (EBADF), BPF_PROG_QUERY on fd -1
 *   (EBADF) or on its network namespace (it only counts the programs attached there);
 * - a NULL attr, an unknown command, a size over a page (E2BIG), a size that cuts the
 *   attr.
 * No sysctl is changed. Deterministic: the same calls in the same order on every run.
 *
 * tests/e2e/test_strace_sweep_bpf.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_bpf sweep_bpf.c; argument: a
 * scratch directory (unused). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BAD ((void *)1)
#define PTR(p) ((uint64_t)(uintptr_t)(p))

static long bpf(long cmd, union bpf_attr *attr, long size) {
    return syscall(SYS_bpf, cmd, attr, size);
}

static int map_create(uint32_t type, uint32_t key, uint32_t value, uint32_t max,
                      uint32_t flags, const char *name) {
    union bpf_attr a;

    memset(&a, 0, sizeof a);
    a.map_type = type, a.key_size = key, a.value_size = value, a.max_entries = max;
    a.map_flags = flags;
    if (name)
        strncpy(a.map_name, name, sizeof a.map_name - 1);
    return (int)bpf(BPF_MAP_CREATE, &a, sizeof a);
}

static void elems(int fd) {
    union bpf_attr a;
    uint32_t key = 0, next = 0;
    uint64_t value = 0x1122334455667788ULL;

    memset(&a, 0, sizeof a);
    a.map_fd = fd, a.key = PTR(&key), a.value = PTR(&value), a.flags = BPF_ANY;
    bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof a);
    a.flags = BPF_EXIST;
    bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof a);
    a.flags = BPF_NOEXIST;                                   /* EEXIST */
    bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof a);
    a.flags = BPF_F_LOCK;                                    /* EINVAL: no spin lock */
    bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof a);
    a.flags = 0x100;
    bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof a);
    a.flags = 0;
    bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof a);
    bpf(BPF_MAP_DELETE_ELEM, &a, sizeof a);                  /* an array: EINVAL */
    memset(&a, 0, sizeof a);
    a.map_fd = fd, a.key = PTR(&key), a.next_key = PTR(&next);
    bpf(BPF_MAP_GET_NEXT_KEY, &a, sizeof a);
    a.key = 0;
    bpf(BPF_MAP_GET_NEXT_KEY, &a, sizeof a);
    a.map_fd = -1;
    bpf(BPF_MAP_LOOKUP_ELEM, &a, 32);
    bpf(BPF_MAP_LOOKUP_ELEM, &a, 8);                         /* cut after key */
}

static void info(int fd) {
    union bpf_attr a;
    unsigned char buf[256];

    memset(&a, 0, sizeof a);
    memset(buf, 0, sizeof buf);
    a.info.bpf_fd = fd, a.info.info_len = sizeof buf, a.info.info = PTR(buf);
    bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof a);               /* info_len shrinks */
    a.info.bpf_fd = -1;
    bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof a);
}

static void batch(int fd) {
    union bpf_attr a;
    uint32_t out = 0, keys[2] = {0, 0};
    uint64_t values[2] = {0, 0};

    memset(&a, 0, sizeof a);
    a.batch.out_batch = PTR(&out), a.batch.keys = PTR(keys), a.batch.values = PTR(values);
    a.batch.count = 2, a.batch.map_fd = fd;
    bpf(BPF_MAP_LOOKUP_BATCH, &a, sizeof a);                 /* empty hash: ENOENT */
    a.batch.map_fd = -1;
    bpf(BPF_MAP_LOOKUP_BATCH, &a, sizeof a);
    a.batch.map_fd = fd, a.batch.count = 2, keys[1] = 1;     /* two elements in, out */
    bpf(BPF_MAP_UPDATE_BATCH, &a, sizeof a);
    a.batch.count = 2;
    bpf(BPF_MAP_LOOKUP_AND_DELETE_BATCH, &a, sizeof a);
    a.batch.count = 2;
    bpf(BPF_MAP_DELETE_BATCH, &a, sizeof a);                 /* gone already: ENOENT */
}

static void prog_load(void) {
    union bpf_attr a;
    char log[64];

    memset(log, 0, sizeof log);

    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER, a.insn_cnt = 0, a.insns = PTR(BAD);
    a.license = PTR("GPL"), a.log_level = 1, a.log_size = sizeof log, a.log_buf = PTR(log);
    a.kern_version = (6 << 16) | (1 << 8) | 2;
    strcpy(a.prog_name, "tk_sweep");
    a.expected_attach_type = BPF_CGROUP_INET_INGRESS;
    a.prog_btf_fd = -1;
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* insn_cnt 0: E2BIG */
    a.prog_type = 0x3e7;
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* EINVAL */
    a.prog_type = BPF_PROG_TYPE_KPROBE, a.insn_cnt = 0, a.prog_flags = BPF_F_STRICT_ALIGNMENT;
    bpf(BPF_PROG_LOAD, &a, 48);                              /* cut: E2BIG */
    bpf(BPF_PROG_LOAD, &a, 72);
}

/* BPF_PROG_LOAD's strings (license, log_buf) and BPF_BTF_LOAD's bytes, read behind the
 * attr (issue 12): each refused before anything is loaded (insn_cnt 0: E2BIG; a BTF
 * shorter than its header or with a bad magic: EINVAL; a log too small for the
 * verifier's: ENOSPC, nothing loaded). tail: the last bytes of a page before an
 * unmapped one. */
static void pointed(char *tail) {
    static const struct bpf_insn ret0[2] = {
        {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
        {.code = BPF_JMP | BPF_EXIT},
    };
    union bpf_attr a;
    char log[64], nul_in[64], btf[64];

    memset(tail, 0, 4096);       /* faulted in (a BPF program cannot fault a page in) */
    memset(log, 'A', sizeof log);
    memset(nul_in, 0, sizeof nul_in);
    strcpy(nul_in, "a log\n\twith \"quotes\"\0and past its NUL");
    memset(btf, 0x9f, sizeof btf);
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER, a.insns = PTR(BAD);
    a.license = PTR("GPL"), a.log_level = 1, a.log_size = sizeof log, a.log_buf = PTR(log);
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* no NUL in the log */
    a.log_size = 3;
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.log_size = 0;
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.log_size = 33, a.log_buf = PTR(nul_in);
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.license = PTR("Dual BSD/GPL with a licence text of 33"), a.log_buf = PTR(BAD);
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.license = PTR("0123456789abcdef0123456789abcdef");    /* exactly 32 */
    a.log_buf = 0;
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.license = PTR("0123456789abcdef0123456789abcdefX");   /* 33 */
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.license = PTR(BAD), a.log_size = 64, a.log_buf = PTR(tail + 4096 - 16);
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* a NUL, then the end */
    memset(tail + 4096 - 16, 'z', 16);
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* no NUL before the end */
    a.license = PTR(""), a.log_size = 16;
    bpf(BPF_PROG_LOAD, &a, sizeof a);                        /* 16 are there */
    a.license = PTR(tail + 4096 - 3);                        /* "zzz" and no NUL */
    bpf(BPF_PROG_LOAD, &a, sizeof a);
    a.license = PTR("GPL");
    bpf(BPF_PROG_LOAD, &a, 20);                              /* the license cut */
    bpf(BPF_PROG_LOAD, &a, 24);
    bpf(BPF_PROG_LOAD, &a, 36);                              /* log_buf cut */
    /* a real program with a log too small for the verifier's statistics: ENOSPC, the
     * log written at exit; strace shows it as it was at entry */
    memset(log, 0, sizeof log);
    a.insns = PTR(ret0), a.insn_cnt = 2, a.log_level = 2, a.log_size = 8;
    a.log_buf = PTR(log);
    bpf(BPF_PROG_LOAD, &a, sizeof a);

    memset(&a, 0, sizeof a);
    a.btf = PTR(btf), a.btf_size = 40;                       /* bad magic: EINVAL */
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf_size = 32, a.btf_log_buf = PTR(log), a.btf_log_size = sizeof log;
    a.btf_log_level = 1;
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf_size = 0;
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf = PTR(BAD), a.btf_size = 4;
    bpf(BPF_BTF_LOAD, &a, sizeof a);                         /* EFAULT */
    a.btf = PTR(tail + 4096 - 8), a.btf_size = 40;
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf_size = 8;
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf = PTR(btf);
    bpf(BPF_BTF_LOAD, &a, 12);                               /* btf_size cut: 0 */
    bpf(BPF_BTF_LOAD, &a, 17);
    bpf(BPF_BTF_LOAD, &a, 4);                                /* the pointer cut */
}

static void objects(int fd) {
    union bpf_attr a;

    memset(&a, 0, sizeof a);
    a.pathname = PTR("/nonexistent/tracekit-sweep"), a.bpf_fd = fd;
    bpf(BPF_OBJ_PIN, &a, sizeof a);                          /* ENOENT */
    a.bpf_fd = 0;
    bpf(BPF_OBJ_GET, &a, sizeof a);                          /* ENOENT */
    a.file_flags = BPF_F_RDONLY;
    bpf(BPF_OBJ_GET, &a, sizeof a);

    memset(&a, 0, sizeof a);
    a.btf = 0, a.btf_size = 0;
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    a.btf = PTR("\x9f\xeb"), a.btf_size = 2;                 /* a short header: EINVAL */
    bpf(BPF_BTF_LOAD, &a, sizeof a);
    memset(&a, 0, sizeof a);
    a.link_create.prog_fd = -1, a.link_create.target_fd = -1;
    a.link_create.attach_type = BPF_TRACE_FENTRY;
    bpf(BPF_LINK_CREATE, &a, sizeof a);                      /* EBADF */
    /* what follows the flags, by attach type (each EBADF: prog_fd -1) */
    a.link_create.attach_type = BPF_PERF_EVENT, a.link_create.perf_event.bpf_cookie = 7;
    bpf(BPF_LINK_CREATE, &a, sizeof a);
    bpf(BPF_LINK_CREATE, &a, 16);
    bpf(BPF_LINK_CREATE, &a, 17);
    a.link_create.perf_event.bpf_cookie = 0;
    a.link_create.attach_type = BPF_TRACE_ITER;
    bpf(BPF_LINK_CREATE, &a, sizeof a);
    a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI, a.link_create.kprobe_multi.flags = 7;
    a.link_create.kprobe_multi.cnt = 2;
    bpf(BPF_LINK_CREATE, &a, sizeof a);
    a.link_create.kprobe_multi.flags = 6;
    bpf(BPF_LINK_CREATE, &a, 20);
    memset(&a, 0, sizeof a);
    a.link_create.prog_fd = -1, a.link_create.attach_type = BPF_CGROUP_INET_INGRESS;
    a.link_create.target_btf_id = 9;
    bpf(BPF_LINK_CREATE, &a, sizeof a);
    a.link_create.attach_type = BPF_TRACE_FEXIT;
    bpf(BPF_LINK_CREATE, &a, sizeof a);
    memset(&a, 0, sizeof a);
    a.link_update.link_fd = -1, a.link_update.old_prog_fd = 3;
    bpf(BPF_LINK_UPDATE, &a, sizeof a);                      /* EBADF */
    a.link_update.flags = BPF_F_REPLACE;
    bpf(BPF_LINK_UPDATE, &a, sizeof a);
    memset(&a, 0, sizeof a);
    a.target_fd = -1, a.attach_bpf_fd = -1, a.attach_type = BPF_CGROUP_INET_EGRESS;
    a.attach_flags = BPF_F_ALLOW_MULTI;
    bpf(BPF_PROG_ATTACH, &a, sizeof a);                      /* EBADF */
    bpf(BPF_PROG_DETACH, &a, sizeof a);                      /* EINVAL */
    memset(&a, 0, sizeof a);
    a.raw_tracepoint.name = PTR("sched_switch"), a.raw_tracepoint.prog_fd = -1;
    bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof a);              /* EBADF */
    a.raw_tracepoint.name = PTR("a_tracepoint_name_longer_than_32_bytes");
    bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof a);              /* EBADF */
    {
        static char longer[300];                             /* than the 128 bytes read */

        memset(longer, 'n', sizeof longer - 1);
        a.raw_tracepoint.name = PTR(longer);
        bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof a);          /* EBADF */
    }
    a.raw_tracepoint.name = PTR(BAD);
    bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof a);              /* EBADF */
    memset(&a, 0, sizeof a);
    a.map_fd = fd;
    bpf(BPF_MAP_FREEZE, &a, sizeof a);
    memset(&a, 0, sizeof a);
    a.start_id = 0;
    bpf(BPF_PROG_GET_NEXT_ID, &a, sizeof a);
    bpf(BPF_MAP_GET_NEXT_ID, &a, sizeof a);
    a.start_id = 0xfffffff0;
    bpf(BPF_MAP_GET_NEXT_ID, &a, sizeof a);                  /* ENOENT */
}

/* BPF_PROG_TEST_RUN, the *_GET_FD_BY_ID commands, BPF_PROG_QUERY and BPF_TASK_FD_QUERY:
 * strace prints the last two's last fields at exit (prog_cnt=5 => 0). */
static void queries(void) {
    static uint32_t ids[4];
    static const long cmds[] = {BPF_PROG_GET_FD_BY_ID, BPF_MAP_GET_FD_BY_ID,
                                BPF_BTF_GET_FD_BY_ID, BPF_LINK_GET_FD_BY_ID};
    union bpf_attr a;
    unsigned i;
    int ns;

    memset(&a, 0, sizeof a);
    a.test.prog_fd = -1, a.test.retval = 7, a.test.data_size_in = 3;
    a.test.data_in = PTR(ids), a.test.repeat = 2;
    bpf(BPF_PROG_TEST_RUN, &a, 40);                          /* EBADF */
    bpf(BPF_PROG_TEST_RUN, &a, 4);
    a.test.ctx_size_out = 9, a.test.ctx_out = PTR(BAD);
    bpf(BPF_PROG_TEST_RUN, &a, 56);
    a.test.flags = BPF_F_TEST_RUN_ON_CPU | 0x40, a.test.cpu = 1;
    bpf(BPF_PROG_TEST_RUN, &a, 72);
    a.test.batch_size = 5;
    bpf(BPF_PROG_TEST_RUN, &a, sizeof a);
    for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        memset(&a, 0, sizeof a);
        a.prog_id = 0xfffffff0, a.next_id = 3;               /* ENOENT */
        bpf(cmds[i], &a, 4);
        bpf(cmds[i], &a, 8);
        bpf(cmds[i], &a, sizeof a);
        a.open_flags = BPF_F_RDONLY | 0x100;                 /* EINVAL */
        bpf(cmds[i], &a, 12);
        bpf(cmds[i], &a, sizeof a);
    }
    memset(&a, 0, sizeof a);
    a.query.target_fd = -1, a.query.attach_type = BPF_CGROUP_INET_EGRESS;
    bpf(BPF_PROG_QUERY, &a, 4);                              /* EBADF */
    a.query.query_flags = BPF_F_QUERY_EFFECTIVE | 0x10, a.query.attach_flags = 0x2;
    a.query.prog_ids = PTR(ids);
    bpf(BPF_PROG_QUERY, &a, sizeof a);                       /* prog_ids=[] */
    a.query.prog_ids = 0xfffffffffffff000ull, a.query.prog_cnt = 3;
    bpf(BPF_PROG_QUERY, &a, sizeof a);                       /* unreadable */
    a.query.prog_ids = PTR(ids);
    bpf(BPF_PROG_QUERY, &a, sizeof a);                       /* failed: ids' address */
    ns = open("/proc/self/ns/net", O_RDONLY);
    memset(&a, 0, sizeof a);
    a.query.target_fd = ns, a.query.attach_type = BPF_SK_LOOKUP;
    a.query.prog_cnt = 1000;                                 /* prog_cnt=1000 => 0 */
    bpf(BPF_PROG_QUERY, &a, sizeof a);
    if (ns >= 0)
        close(ns);
    memset(&a, 0, sizeof a);
    a.task_fd_query.pid = getpid(), a.task_fd_query.fd = -1;
    bpf(BPF_TASK_FD_QUERY, &a, sizeof a);                    /* EBADF */
    bpf(BPF_TASK_FD_QUERY, &a, 8);
    a.task_fd_query.buf = PTR(ids), a.task_fd_query.prog_id = 4;
    bpf(BPF_TASK_FD_QUERY, &a, sizeof a);                    /* buf="" */
    {
        static char named[8] = "probe", unnamed[40];

        memset(unnamed, 'x', sizeof unnamed);
        a.task_fd_query.buf = PTR(named), a.task_fd_query.buf_len = sizeof named;
        bpf(BPF_TASK_FD_QUERY, &a, sizeof a);                /* buf="probe" */
        a.task_fd_query.buf = PTR(unnamed), a.task_fd_query.buf_len = sizeof unnamed;
        bpf(BPF_TASK_FD_QUERY, &a, sizeof a);                /* no NUL: "xx..."... */
        a.task_fd_query.buf_len = 3;
        bpf(BPF_TASK_FD_QUERY, &a, sizeof a);
    }
    a.task_fd_query.buf = 0xfffffffffffff000ull, a.task_fd_query.buf_len = 8;
    a.task_fd_query.fd_type = 9, a.task_fd_query.probe_addr = 0x1234;
    bpf(BPF_TASK_FD_QUERY, &a, sizeof a);
}

/* Every command with every size from 1 to past its member, on an attr of 0x05 bytes:
 * fds 0x05050505 (EBADF), map, prog and attach types unknown (EINVAL; a prog of
 * 0x05050505 insns: E2BIG before that), a path whose directory does not exist (ENOENT),
 * no other string. */
static void cuts(void) {
    static char cut_log[64] = "the log";
    static const struct { long cmd; long max; } cmds[] = {
        {BPF_MAP_CREATE, 80}, {BPF_MAP_LOOKUP_ELEM, 40}, {BPF_MAP_UPDATE_ELEM, 40},
        {BPF_MAP_DELETE_ELEM, 24}, {BPF_MAP_GET_NEXT_KEY, 32}, {BPF_MAP_FREEZE, 12},
        {BPF_OBJ_GET_INFO_BY_FD, 24}, {BPF_MAP_LOOKUP_BATCH, 64}, {BPF_BTF_LOAD, 36},
        {BPF_LINK_CREATE, 24}, {BPF_RAW_TRACEPOINT_OPEN, 20}, {BPF_MAP_GET_NEXT_ID, 20},
        {BPF_OBJ_PIN, 24}, {BPF_OBJ_GET, 24}, {BPF_PROG_LOAD, 152},
        {BPF_MAP_LOOKUP_AND_DELETE_ELEM, 40}, {BPF_MAP_LOOKUP_AND_DELETE_BATCH, 64},
        {BPF_MAP_UPDATE_BATCH, 64}, {BPF_MAP_DELETE_BATCH, 64}, {BPF_BTF_GET_NEXT_ID, 20},
        {BPF_LINK_GET_NEXT_ID, 20}, {BPF_PROG_ATTACH, 28}, {BPF_PROG_DETACH, 20},
        {BPF_LINK_UPDATE, 24}, {BPF_PROG_TEST_RUN, 80}, {BPF_PROG_QUERY, 32},
        {BPF_TASK_FD_QUERY, 52},
    };
    union bpf_attr a;
    unsigned i;
    long size;

    for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        for (size = 1; size <= cmds[i].max; size++) {
            memset(&a, 5, sizeof a);
            if (cmds[i].cmd == BPF_BTF_LOAD)
                a.btf = 0, a.btf_log_buf = 0;
            if (cmds[i].cmd == BPF_RAW_TRACEPOINT_OPEN)
                a.raw_tracepoint.name = 0;
            if (cmds[i].cmd == BPF_PROG_LOAD)   /* unknown type, flags: EINVAL or E2BIG */
                a.license = PTR("GPL"), a.log_buf = PTR(cut_log);
            if (cmds[i].cmd == BPF_OBJ_PIN || cmds[i].cmd == BPF_OBJ_GET)
                a.pathname = PTR("/nonexistent/tracekit-sweep");       /* ENOENT */
            if (cmds[i].cmd == BPF_MAP_GET_NEXT_ID || cmds[i].cmd == BPF_BTF_GET_NEXT_ID ||
                cmds[i].cmd == BPF_LINK_GET_NEXT_ID)
                a.start_id = 0xfffffff0;
            bpf(cmds[i].cmd, &a, size);
        }
}

static void edges(void) {
    static char page[4096];
    union bpf_attr a;

    memset(&a, 0, sizeof a);
    bpf(BPF_MAP_CREATE, NULL, 0);
    bpf(BPF_MAP_CREATE, NULL, sizeof a);
    bpf(BPF_MAP_CREATE, BAD, sizeof a);
    bpf(0x64, &a, sizeof a);
    bpf(BPF_MAP_CREATE, &a, 0x100000);                       /* E2BIG */
    page[1000] = 1;                                          /* past the attr: E2BIG */
    bpf(BPF_MAP_CREATE, (union bpf_attr *)page, 2000);
    bpf(BPF_MAP_CREATE, (union bpf_attr *)page, 4096);
    a.map_type = BPF_MAP_TYPE_ARRAY, a.key_size = 4;
    bpf(BPF_MAP_CREATE, &a, 8);                              /* cut after key_size */
    /* garbage in the high halves of the int command and the unsigned int size */
    syscall(SYS_bpf, 0xdead00000000L | BPF_MAP_CREATE, &a, 0x100000000L | 8);
    bpf(BPF_MAP_CREATE, &a, 6);
    a.map_type = 0x3e7;
    bpf(BPF_MAP_CREATE, &a, sizeof a);
    /* NUMA_NO_NODE, an ifindex of lo (offload to lo: EINVAL), prog_flags 0x20 (a flag
     * strace 6.1 does not name) of a program of no instructions (E2BIG) */
    memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_ARRAY, a.key_size = 4, a.value_size = 4, a.max_entries = 1;
    a.map_flags = BPF_F_NUMA_NODE, a.numa_node = 0xffffffff, a.map_ifindex = 1;
    bpf(BPF_MAP_CREATE, &a, 48);
    memset(&a, 0, sizeof a);
    a.prog_type = 0x3e7, a.prog_flags = 0x21, a.prog_ifindex = 1;
    bpf(BPF_PROG_LOAD, &a, 68);
}

int main(void) {
    int arr, hash;

    arr = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, NULL);
    hash = map_create(BPF_MAP_TYPE_HASH, 4, 8, 4, BPF_F_NO_PREALLOC, "tk_sweep");
    map_create(BPF_MAP_TYPE_HASH, 4, 8, 0, BPF_F_RDONLY_PROG | 0x80000000u, "x");
    elems(arr);
    info(arr);
    batch(hash);
    prog_load();
    {
        char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        munmap(pages + 4096, 4096);
        pointed(pages);
        munmap(pages, 4096);
    }
    objects(arr);
    edges();
    queries();
    cuts();
    close(hash);
    close(arr);
    return 0;
}
