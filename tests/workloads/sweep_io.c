/* A strace-parity sweep over calls no other workload makes: Linux AIO, io_uring, epoll_create,
 * recvmmsg/sendmmsg, the key calls, bpf, perf_event_open, inotify_init, fsconfig, landlock,
 * the kexec/module/reboot calls, calls the kernel no longer implements, getrandom and
 * memfd_create flags, sendfile/copy_file_range edge cases, ioctl requests (other drivers'
 * named ones on fd -1), fcntl commands.
 * Each with normal arguments, NULL and (void *)1 pointers, unknown constants, garbage in
 * the high half of an int's register and fd -1.
 *
 * Every call is harmless: it works on a scratch file, socketpair, pipe, memfd, aio
 * context or io_uring of its own (closed or destroyed before the end), on a "user" key it
 * adds to its own process keyring and unlinks, or fails before it changes anything:
 * bpf with attrs the kernel refuses (nothing is loaded), perf_event_open with a bad size,
 * type or flags, landlock on fd -1 or with unknown flags (no ruleset is made, the process
 * is never restricted), fsconfig on fd -1,
 * kexec_load with more than KEXEC_SEGMENT_MAX segments, kexec_file_load with unknown
 * flags, init_module with a NULL image of length 0 (ENOEXEC), finit_module on fd -1,
 * reboot with a wrong magic number (checked before the command).
 *
 * tests/e2e/test_strace_sweep_io.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_io sweep_io.c; argument: a
 * scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/bpf.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/gpio.h>
#include <linux/hdreg.h>
#include <linux/kd.h>
#include <linux/kvm.h>
#include <linux/loop.h>
#include <linux/ptp_clock.h>
#include <linux/rtc.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <linux/tee.h>
#include <linux/userfaultfd.h>
#include <linux/videodev2.h>
#include <linux/watchdog.h>
#include <scsi/sg.h>
#include <linux/io_uring.h>
#include <linux/kexec.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BAD ((void *)1)

/* Linux AIO on the scratch file: one context, a write and a read submitted and reaped,
 * a cancel of a finished request, then bad contexts and pointers. */
static void aio_calls(int fd, long hi) {
    aio_context_t ctx = 0;
    static char wbuf[] = "aio!", rbuf[8];
    struct iocb w = {0}, r = {0}, *list[2] = {&w, &r};
    struct io_event ev[2];
    struct timespec ts = {0, 1000000};

    syscall(SYS_io_setup, 0L, &ctx);                         /* EINVAL */
    syscall(SYS_io_setup, 4L, NULL);                         /* EFAULT */
    syscall(SYS_io_setup, 4L, &ctx);
    w.aio_lio_opcode = IOCB_CMD_PWRITE, w.aio_fildes = fd, w.aio_data = 0x1234;
    w.aio_buf = (uintptr_t)wbuf, w.aio_nbytes = 4, w.aio_offset = 0;
    r.aio_lio_opcode = IOCB_CMD_PREAD, r.aio_fildes = fd, r.aio_data = 0x5678;
    r.aio_buf = (uintptr_t)rbuf, r.aio_nbytes = 4, r.aio_offset = 0;
    syscall(SYS_io_submit, ctx, 1L, list);
    syscall(SYS_io_getevents, ctx, 1L, 1L, ev, &ts);
    syscall(SYS_io_submit, ctx, 1L, list + 1);
    syscall(SYS_io_getevents, ctx, 1L, 2L, ev, NULL);
    syscall(SYS_io_getevents, ctx, 0L, 1L, ev, &ts);         /* 0: nothing left */
    syscall(SYS_io_pgetevents, ctx, 0L, 1L, ev, &ts, NULL);
    syscall(SYS_io_cancel, ctx, &w, &ev[0]);                 /* finished: EINVAL */
    {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        struct { const sigset_t *m; size_t n; } usig = {&set, 8}, nomask = {NULL, 8};
        syscall(SYS_io_pgetevents, ctx, 0L, 1L, ev, &ts, &usig);   /* mask for the wait */
        syscall(SYS_io_pgetevents, ctx, 0L, 1L, ev, &ts, &nomask);
        syscall(SYS_io_pgetevents, ctx, 0L, 1L, ev, &ts, BAD);
    }
    syscall(SYS_io_submit, ctx, 0L, list);
    syscall(SYS_io_submit, ctx, -1L, list);                  /* EINVAL */
    syscall(SYS_io_submit, ctx, 1L, NULL);                   /* EFAULT */
    syscall(SYS_io_submit, ctx, 1L, BAD);
    syscall(SYS_io_getevents, ctx, 1L, 1L, NULL, &ts);
    syscall(SYS_io_getevents, ctx, 2L, 1L, ev, BAD);         /* min > nr: EINVAL */
    syscall(SYS_io_destroy, ctx);
    syscall(SYS_io_destroy, 0L);                             /* EINVAL */
    syscall(SYS_io_getevents, 0L, 1L, 1L, ev, NULL);
    syscall(SYS_io_cancel, 0L, NULL, NULL);
    syscall(SYS_io_submit, hi | 5, 1L, list);
    /* a context that does not exist (EINVAL before the iocbs are read): each opcode's
     * fields as strace prints them */
    static const unsigned short ops[] = {IOCB_CMD_FSYNC, IOCB_CMD_POLL, IOCB_CMD_NOOP, 99};
    for (unsigned k = 0; k < sizeof ops / sizeof *ops; k++) {
        memset(&r, 0, sizeof r);
        r.aio_lio_opcode = ops[k], r.aio_fildes = fd, r.aio_buf = 0x41, r.aio_nbytes = 3;
        syscall(SYS_io_submit, hi | 5, 1L, list + 1);
        syscall(SYS_io_cancel, hi | 5, &r, NULL);
    }
    memset(&r, 0, sizeof r);
    r.aio_lio_opcode = IOCB_CMD_PREAD, r.aio_fildes = fd, r.aio_buf = (uintptr_t)rbuf;
    r.aio_nbytes = 4, r.aio_key = 2, r.aio_rw_flags = RWF_HIPRI | 0x100, r.aio_reqprio = 3;
    r.aio_flags = IOCB_FLAG_RESFD | IOCB_FLAG_IOPRIO, r.aio_resfd = fd;
    syscall(SYS_io_submit, hi | 5, 1L, list + 1);
    syscall(SYS_io_cancel, hi | 5, &r, NULL);
    syscall(SYS_io_submit, hi | 5, 2L, list);                /* two: not followed */
}

/* io_uring: a ring of 1 entry (closed), bad flags, NULL and bad params, enter and
 * register on fd -1 and with an unknown opcode. */
static void uring_calls(long hi) {
    struct io_uring_params p;

    memset(&p, 0, sizeof p);
    int ring = syscall(SYS_io_uring_setup, 1L, &p);
    memset(&p, 0, sizeof p);
    p.flags = 0x80000000u;
    syscall(SYS_io_uring_setup, 1L, &p);                     /* EINVAL */
    syscall(SYS_io_uring_setup, 1L, NULL);
    syscall(SYS_io_uring_setup, 1L, BAD);
    syscall(SYS_io_uring_enter, -1L, 1L, 1L, IORING_ENTER_GETEVENTS, NULL, 0L);
    syscall(SYS_io_uring_enter, ring, 0L, 0L, 0L, NULL, 0L);
    syscall(SYS_io_uring_enter, ring, 0L, 0L, 0x80000000L, NULL, 0L);
    syscall(SYS_io_uring_register, -1L, IORING_REGISTER_BUFFERS, NULL, 0L);
    syscall(SYS_io_uring_register, ring, 999L, NULL, 0L);
    syscall(SYS_io_uring_register, ring, hi | IORING_UNREGISTER_BUFFERS, NULL, 0L);
    if (ring >= 0)
        close(ring);
}

/* epoll_create's size, recvmmsg/sendmmsg on a UDP socketpair. */
static void net_calls(long hi) {
    int sv[2];
    char a[4] = "abc", b[4] = "de", ra[8], rb[8];
    struct iovec iov[2] = {{a, 3}, {b, 2}}, riov[2] = {{ra, 8}, {rb, 8}};
    struct mmsghdr m[2], rm[2];
    struct timespec ts = {0, 1000};

    int ep = syscall(SYS_epoll_create, 1L);
    syscall(SYS_epoll_create, 0L);                           /* EINVAL */
    syscall(SYS_epoll_create, hi | 1);
    syscall(SYS_epoll_wait, ep, NULL, 1L, 0L);
    syscall(SYS_epoll_wait, ep, BAD, 0L, 0L);
    syscall(SYS_epoll_ctl, ep, 99L, ep, NULL);
    close(ep);

    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    memset(m, 0, sizeof m);
    memset(rm, 0, sizeof rm);
    m[0].msg_hdr.msg_iov = &iov[0], m[0].msg_hdr.msg_iovlen = 1;
    m[1].msg_hdr.msg_iov = &iov[1], m[1].msg_hdr.msg_iovlen = 1;
    rm[0].msg_hdr.msg_iov = &riov[0], rm[0].msg_hdr.msg_iovlen = 1;
    rm[1].msg_hdr.msg_iov = &riov[1], rm[1].msg_hdr.msg_iovlen = 1;
    syscall(SYS_sendmmsg, sv[0], m, 2L, MSG_DONTWAIT);
    syscall(SYS_recvmmsg, sv[1], rm, 2L, MSG_DONTWAIT, &ts);
    syscall(SYS_recvmmsg, sv[1], rm, 2L, MSG_DONTWAIT, NULL);    /* EAGAIN */
    syscall(SYS_recvmmsg, sv[1], NULL, 2L, MSG_DONTWAIT | MSG_WAITFORONE, NULL);
    syscall(SYS_recvmmsg, sv[1], BAD, 1L, MSG_DONTWAIT, BAD);
    syscall(SYS_sendmmsg, sv[0], NULL, 0L, 0L);
    syscall(SYS_sendmmsg, sv[0], BAD, 1L, MSG_DONTWAIT | 0x80000000L);
    syscall(SYS_sendmmsg, -1L, m, 1L, 0L);
    syscall(SYS_recvmmsg, hi | sv[1], rm, 1L, MSG_DONTWAIT | MSG_PEEK, NULL);
    close(sv[0]);
    close(sv[1]);

    /* UDP on loopback: messages with their addresses (ports of this run) */
    int u1 = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in from[2];
    socklen_t salen = sizeof sa;
    bind(u2, (struct sockaddr *)&sa, sizeof sa);
    getsockname(u2, (struct sockaddr *)&sa, &salen);
    memset(m, 0, sizeof m);
    memset(rm, 0, sizeof rm);
    for (int k = 0; k < 2; k++) {
        m[k].msg_hdr.msg_name = &sa, m[k].msg_hdr.msg_namelen = sizeof sa;
        m[k].msg_hdr.msg_iov = &iov[k], m[k].msg_hdr.msg_iovlen = 1;
        rm[k].msg_hdr.msg_name = &from[k], rm[k].msg_hdr.msg_namelen = sizeof from[k];
        rm[k].msg_hdr.msg_iov = &riov[k], rm[k].msg_hdr.msg_iovlen = 1;
    }
    syscall(SYS_sendmmsg, u1, m, 2L, 0L);
    syscall(SYS_recvmmsg, u2, rm, 2L, MSG_WAITFORONE, NULL);
    close(u1);
    close(u2);
}

/* Keys: a "user" key in this process's keyring, read back, updated, revoked and
 * unlinked; a description nobody has; keyctl operations on it that the kernel refuses
 * (not a keyring, no authority to instantiate, a bad destination). */
static void key_calls(long hi) {
    char buf[32];
    memset(buf, 0, sizeof buf);
    long key = syscall(SYS_add_key, "user", "tracekit:sweep", "payload", 7L,
                       KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_add_key, "user", "tracekit:sweep", NULL, 0L, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_add_key, "user", NULL, "x", 1L, KEY_SPEC_PROCESS_KEYRING);    /* EINVAL */
    syscall(SYS_add_key, "nosuchtype", "d", "x", 1L, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_add_key, "user", "d", BAD, 1L, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_add_key, "user", "d", "x", 1L, hi | 0x7ffffff0L);
    syscall(SYS_request_key, "user", "tracekit:sweep", NULL, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_request_key, "user", "tracekit:nonexistent", NULL, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_request_key, "user", "tracekit:nonexistent", NULL, 0L);
    syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, buf, (long)sizeof buf);
    syscall(SYS_keyctl, KEYCTL_READ, key, buf, (long)sizeof buf);
    syscall(SYS_keyctl, KEYCTL_SETPERM, key, 0x3f010000L);
    syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, key, 1000L);
    syscall(SYS_keyctl, KEYCTL_GET_SECURITY, key, buf, (long)sizeof buf);
    syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_PROCESS_KEYRING, "user", "tracekit:sweep", 0L);
    syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 0L);
    syscall(SYS_keyctl, KEYCTL_CAPABILITIES, buf, 2L);
    syscall(SYS_keyctl, KEYCTL_RESTRICT_KEYRING, key, "asymmetric", "builtin_trusted");
    syscall(SYS_keyctl, KEYCTL_NEGATE, key, 10L, KEY_SPEC_PROCESS_KEYRING);   /* EPERM */
    syscall(SYS_keyctl, KEYCTL_REJECT, key, 10L, 128L, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_keyctl, KEYCTL_INSTANTIATE, key, "x", 1L, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_keyctl, KEYCTL_MOVE, key, KEY_SPEC_PROCESS_KEYRING, -100L, 1L);  /* EINVAL */
    syscall(SYS_keyctl, KEYCTL_UPDATE, key, "q\0r", 3L);
    syscall(SYS_keyctl, KEYCTL_CHOWN, key, -1L, -1L);                         /* no change */
    syscall(SYS_keyctl, KEYCTL_REVOKE, key);
    syscall(SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_PROCESS_KEYRING);
    syscall(SYS_keyctl, KEYCTL_INVALIDATE, key);
    syscall(SYS_keyctl, 999L, 1L, 2L, 3L, 4L);
}

/* bpf, perf_event_open, landlock, fsconfig, inotify_init: every one refused. */
static void refused_calls(long hi) {
    union bpf_attr attr;
    struct perf_event_attr pa;

    memset(&attr, 0, sizeof attr);
    syscall(SYS_bpf, BPF_MAP_CREATE, &attr, 0x100000L);      /* over a page: E2BIG */
    syscall(SYS_bpf, BPF_MAP_CREATE, NULL, 0L);              /* type 0: EINVAL */
    syscall(SYS_bpf, BPF_MAP_CREATE, BAD, 16L);              /* EFAULT */
    syscall(SYS_bpf, BPF_PROG_LOAD, NULL, 0L);               /* type 0: EINVAL */
    syscall(SYS_bpf, BPF_PROG_LOAD, BAD, 8L);
    syscall(SYS_bpf, 999L, NULL, 0L);
    syscall(SYS_bpf, hi | BPF_MAP_LOOKUP_ELEM, NULL, 0L);

    memset(&pa, 0, sizeof pa);
    pa.size = 1;                                             /* E2BIG */
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0L);
    memset(&pa, 0, sizeof pa);
    pa.size = sizeof pa, pa.type = 0x7fff;                   /* no such PMU */
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0L);
    syscall(SYS_perf_event_open, NULL, 0L, -1L, -1L, 0L);
    syscall(SYS_perf_event_open, BAD, 0L, -1L, -1L, PERF_FLAG_FD_CLOEXEC);
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0x100L);
    /* unknown flags: EINVAL before the attr is used; the attr as strace prints it */
    memset(&pa, 0, sizeof pa);
    pa.size = sizeof pa, pa.type = PERF_TYPE_HW_CACHE, pa.freq = 1, pa.sample_freq = 4000;
    pa.config = 1 | (1 << 8) | (1 << 16) | (1ULL << 40), pa.disabled = 1, pa.precise_ip = 2;
    pa.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID, pa.read_format = PERF_FORMAT_ID;
    pa.mmap2 = 1, pa.sigtrap = 1;
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0x100L);
    memset(&pa, 0, sizeof pa);
    pa.size = 48, pa.type = PERF_TYPE_SOFTWARE;              /* below VER0: an address */
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0x100L);
    pa.size = 200, pa.config = 99;
    syscall(SYS_perf_event_open, &pa, 0L, -1L, -1L, 0x100L);
    {
        /* a size past the struct the kernel knows, a byte there not 0: E2BIG, and the
         * kernel writes its own size back (size=0xa0 => ...); a cache config with bits
         * 24..31 (no field of it) */
        struct { struct perf_event_attr a; unsigned char more[64]; } big;

        memset(&big, 0, sizeof big);
        big.a.type = PERF_TYPE_SOFTWARE, big.a.size = 0xa0;
        ((unsigned char *)&big)[0x98] = 1;
        syscall(SYS_perf_event_open, &big, 0L, -1L, -1L, 0L);
        big.a.type = PERF_TYPE_HW_CACHE, big.a.config = 0x1010203;
        syscall(SYS_perf_event_open, &big, 0L, -1L, -1L, 0x100L);     /* EINVAL */
    }

    syscall(SYS_landlock_add_rule, -1L, LANDLOCK_RULE_PATH_BENEATH, NULL, 0L);
    syscall(SYS_landlock_add_rule, -1L, 99L, BAD, 1L);
    struct landlock_path_beneath_attr pb = {.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE |
                                            LANDLOCK_ACCESS_FS_REFER | (1ULL << 40),
                                            .parent_fd = -1};
    syscall(SYS_landlock_add_rule, -1L, LANDLOCK_RULE_PATH_BENEATH, &pb, 0L);   /* EBADF */
    syscall(SYS_landlock_add_rule, -1L, LANDLOCK_RULE_PATH_BENEATH, BAD, 0L);
    struct landlock_ruleset_attr ra = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE};
    uint64_t ra2[2] = {0, 0};
    syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0x10L);   /* unknown flags: EINVAL */
    syscall(SYS_landlock_create_ruleset, ra2, 16L, 0x10L);
    syscall(SYS_landlock_create_ruleset, ra2, 4L, 0x10L);
    syscall(SYS_landlock_restrict_self, -1L, 0L);
    syscall(SYS_landlock_restrict_self, hi | -1L, 0x100L);
    /* nothing to restart: the default restart block returns EINTR */
    syscall(SYS_restart_syscall);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_FLAG, "ro", NULL, 0L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_STRING, "source", "none", 0L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_CMD_CREATE, NULL, NULL, 0L);
    syscall(SYS_fsconfig, -1L, 99L, NULL, NULL, 0L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_FD, "k", "v", 0L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_PATH, "k", "/tmp", (long)AT_FDCWD);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_PATH_EMPTY, "k", "", 5L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_BINARY, "k", "abc", 0L);     /* "" */
    {
        /* a key and a value longer than the 256 bytes strace reads of them */
        static char longer[300];

        memset(longer, 'k', sizeof longer - 1);
        syscall(SYS_fsconfig, -1L, FSCONFIG_SET_STRING, longer, longer + 40, 0L);
        longer[256] = 0;                              /* exactly 256: "..." still */
        syscall(SYS_fsconfig, -1L, FSCONFIG_SET_FLAG, longer, NULL, 0L);
        longer[255] = 0;
        syscall(SYS_fsconfig, -1L, FSCONFIG_SET_FLAG, longer, NULL, 0L);
    }
    syscall(SYS_fsconfig, -1L, FSCONFIG_SET_BINARY, "k", "a\0c", 3L);
    syscall(SYS_fsconfig, -1L, FSCONFIG_CMD_RECONFIGURE, "k", "v", 7L);
    int ifd = syscall(SYS_inotify_init);
    if (ifd >= 0)
        close(ifd);
}

/* kexec, modules, reboot: each refused before it acts (see the header). */
static void boot_calls(void) {
    syscall(SYS_kexec_load, 0L, 0x10000L, NULL, 0L);                         /* EINVAL */
    syscall(SYS_kexec_load, 0L, 0x10000L, NULL, (long)KEXEC_ARCH_ARM);       /* EINVAL */
    {   /* segments decoded; another arch's flags: refused before they are read */
        struct kexec_segment seg[2] = {{(void *)0x1000, 4096, (void *)0x100000, 8192},
                                       {NULL, 0, (void *)0x200000, 4096}};
        syscall(SYS_kexec_load, 0x100000L, 2L, seg, (long)KEXEC_ARCH_ARM);    /* EINVAL */
        syscall(SYS_kexec_load, 0x100000L, 17L, seg, (long)KEXEC_ARCH_ARM);   /* EINVAL */
        syscall(SYS_kexec_load, 0x100000L, 2L, (void *)1, (long)KEXEC_ARCH_ARM);
    }
    syscall(SYS_kexec_file_load, -1L, -1L, 0L, NULL, 0x80000000L);          /* EINVAL */
    syscall(SYS_init_module, NULL, 0L, "");                                  /* ENOEXEC */
    syscall(SYS_finit_module, -1L, "", 0L);                                  /* EBADF */
    syscall(SYS_finit_module, -1L, "", 0x100L);                              /* EINVAL */
    syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0x12345678L, LINUX_REBOOT_CMD_CAD_ON, NULL);
    syscall(SYS_reboot, 0L, LINUX_REBOOT_MAGIC2, 0x12345678L, NULL);
    syscall(SYS_reboot, 0L, 0L, LINUX_REBOOT_CMD_RESTART2, "x");
    /* calls the kernel no longer implements, and a number no call has */
    syscall(SYS_lookup_dcookie, 1L, 2L, 3L);
    syscall(SYS_uselib, "nonexistent");
    syscall(SYS_vserver, 1L, 2L, 3L, 4L, 5L);
    syscall(SYS_create_module, "x", 0L);
    syscall(500L, 1L, 2L);
}

/* getrandom and memfd_create flags, sendfile and copy_file_range edge cases. */
static void flag_calls(int fd, long hi) {
    char buf[4];
    off_t off = 0;

    syscall(SYS_getrandom, buf, 4L, GRND_NONBLOCK | GRND_INSECURE);   /* EINVAL */
    syscall(SYS_getrandom, buf, 0L, GRND_RANDOM | GRND_NONBLOCK);
    syscall(SYS_getrandom, buf, 0L, 0x40L);
    syscall(SYS_getrandom, NULL, 0L, hi);
    syscall(SYS_getrandom, BAD, 4L, 0L);
    int mfd = syscall(SYS_memfd_create, "s", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    int mfd2 = syscall(SYS_memfd_create, "s", 0x4L | 0x8L);   /* MFD_HUGETLB|0x8 */
    syscall(SYS_memfd_create, NULL, 0L);
    syscall(SYS_memfd_create, BAD, 0L);
    syscall(SYS_sendfile, mfd, fd, &off, 4L);
    syscall(SYS_sendfile, mfd, fd, NULL, 0L);
    syscall(SYS_sendfile, mfd, fd, BAD, 4L);
    syscall(SYS_sendfile, -1L, hi | fd, NULL, 4L);
    syscall(SYS_copy_file_range, fd, &off, mfd, NULL, 4L, 0L);
    syscall(SYS_copy_file_range, fd, BAD, mfd, NULL, 4L, 0L);
    syscall(SYS_copy_file_range, -1L, NULL, -1L, NULL, 4L, 0L);

    /* fcntl on the memfd and the file */
    struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4};
    struct f_owner_ex own;
    syscall(SYS_fcntl, fd, F_GETLK, &fl);
    fl.l_type = F_WRLCK;
    syscall(SYS_fcntl, fd, F_SETLK, &fl);
    fl.l_type = F_UNLCK;
    syscall(SYS_fcntl, fd, F_SETLKW, &fl);
    fl.l_pid = 0, fl.l_type = F_RDLCK;
    syscall(SYS_fcntl, fd, F_OFD_GETLK, &fl);
    fl.l_pid = 0;
    syscall(SYS_fcntl, fd, F_OFD_SETLK, &fl);
    fl.l_type = F_UNLCK, fl.l_pid = 0;
    syscall(SYS_fcntl, fd, F_OFD_SETLKW, &fl);
    syscall(SYS_fcntl, fd, F_GETLK, NULL);
    syscall(SYS_fcntl, fd, F_OFD_GETLK, BAD);
    syscall(SYS_fcntl, fd, F_GETOWN_EX, &own);
    syscall(SYS_fcntl, fd, F_GETOWN_EX, NULL);
    own.type = F_OWNER_PID, own.pid = 0;
    syscall(SYS_fcntl, fd, F_SETOWN_EX, &own);
    {
        /* a struct f_owner_ex at the end of a mapping (no flock fits there) */
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);

        if (m != MAP_FAILED) {
            struct f_owner_ex *end = (struct f_owner_ex *)(m + pg - sizeof *end);

            munmap(m + pg, pg);
            end->type = F_OWNER_PGRP, end->pid = 0;
            syscall(SYS_fcntl, fd, F_SETOWN_EX, end);
            syscall(SYS_fcntl, fd, F_GETOWN_EX, end);
            munmap(m, pg);
        }
    }
    syscall(SYS_fcntl, mfd, F_GET_SEALS);
    syscall(SYS_fcntl, mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
    syscall(SYS_fcntl, mfd, F_ADD_SEALS, 0x100L);
    syscall(SYS_fcntl, mfd, F_GET_SEALS);
    syscall(SYS_fcntl, fd, F_GET_SEALS);
    syscall(SYS_fcntl, fd, F_GETLEASE);
    syscall(SYS_fcntl, fd, F_SETLEASE, 99L);
    syscall(SYS_fcntl, fd, F_NOTIFY, DN_ACCESS | DN_MODIFY | DN_MULTISHOT);
    syscall(SYS_fcntl, fd, F_GETPIPE_SZ);
    int pp[2];
    if (pipe(pp) == 0) {
        syscall(SYS_fcntl, pp[0], F_SETPIPE_SZ, 8192L);
        syscall(SYS_fcntl, pp[0], F_GETPIPE_SZ);
        syscall(SYS_fcntl, pp[0], F_SETPIPE_SZ, hi | 4096L);
        close(pp[0]);
        close(pp[1]);
    }
    syscall(SYS_fcntl, hi | fd, F_GETFD);
    syscall(SYS_fcntl, fd, hi | F_GETFL);
    if (mfd >= 0)
        close(mfd);
    if (mfd2 >= 0)
        close(mfd2);
}

/* ioctl requests strace names: on the scratch file (none is a tty or a block device). */
static void ioctl_calls(int fd, long hi) {
    int on = 1, off = 0;
    struct winsize ws;
    uint64_t size;
    memset(&ws, 0, sizeof ws);

    syscall(SYS_ioctl, fd, FIONBIO, &on);
    syscall(SYS_ioctl, fd, FIONBIO, &off);
    syscall(SYS_ioctl, fd, FIOASYNC, &off);
    syscall(SYS_ioctl, fd, FIOCLEX);
    syscall(SYS_ioctl, fd, FIONCLEX);
    syscall(SYS_ioctl, fd, FIONREAD, &on);
    syscall(SYS_ioctl, fd, TIOCGWINSZ, &ws);                 /* ENOTTY */
    syscall(SYS_ioctl, fd, TIOCSWINSZ, &ws);
    syscall(SYS_ioctl, fd, TCGETS, NULL);
    syscall(SYS_ioctl, fd, BLKGETSIZE64, &size);
    syscall(SYS_ioctl, fd, BLKSSZGET, &on);
    syscall(SYS_ioctl, fd, FS_IOC_GETFLAGS, &on);
    syscall(SYS_ioctl, fd, FIGETBSZ, &on);
    syscall(SYS_ioctl, fd, _IOWR('x', 0x99, struct winsize), &ws);
    syscall(SYS_ioctl, fd, _IOR(0xee, 0x12, int), NULL);
    syscall(SYS_ioctl, fd, _IOW(0xee, 0x13, char[300]), NULL);
    syscall(SYS_ioctl, fd, _IO(0xee, 0x14), 5L);
    syscall(SYS_ioctl, fd, 0x1234L, 0L);
    syscall(SYS_ioctl, -1L, FIONBIO, &on);
    syscall(SYS_ioctl, fd, FIONBIO, NULL);
    syscall(SYS_ioctl, fd, FIONBIO, BAD);
    syscall(SYS_ioctl, fd, hi | FIOCLEX);
    /* other drivers' requests strace names (consoles, video4linux, IDE, PTP, RTC, loop,
     * KVM, sockets, SCSI generic, userfaultfd, watchdog), on fd -1 */
    unsigned long reqs[] = {KDGKBTYPE, GIO_SCRNMAP, VIDIOC_LOG_STATUS, VIDIOC_G_FMT,
                            HDIO_GETGEO, PTP_SYS_OFFSET, RTC_RD_TIME, LOOP_GET_STATUS64,
                            KVM_RUN, KVM_GET_API_VERSION, SIOCATMARK, SIOCSIFMTU,
                            SG_GET_VERSION_NUM, SG_IO, UFFDIO_API, WDIOC_GETSUPPORT};
    for (unsigned k = 0; k < sizeof(reqs) / sizeof(reqs[0]); k++)
        syscall(SYS_ioctl, -1L, reqs[k], BAD);
    /* requests whose argument strace's decoder takes as a pointer (NULL, 0x1), as a
     * number (0, 1), or not at all, and requests it has no decoder for (0, 0x1) */
    unsigned long nulls[] = {VIDIOC_G_FMT, VIDIOC_QUERYCAP,
                             GPIO_GET_CHIPINFO_IOCTL, BTRFS_IOC_FS_INFO, BTRFS_IOC_SYNC,
                             PTP_CLOCK_GETCAPS, RTC_RD_TIME, RTC_AIE_ON, RTC_IRQP_SET,
                             SG_GET_VERSION_NUM, SG_GET_TIMEOUT, HDIO_GETGEO, HDIO_SET_DMA,
                             LOOP_GET_STATUS64, LOOP_SET_FD, LOOP_CLR_FD, LOOP_SET_BLOCK_SIZE,
                             FS_IOC_GETVERSION, SECCOMP_IOCTL_NOTIF_RECV, TEE_IOC_VERSION,
                             BLKRASET, BLKSECTSET, BLKRRPART, KVM_CREATE_VCPU,
                             PERF_EVENT_IOC_SET_OUTPUT, KVM_GET_API_VERSION, KDGKBTYPE};
    for (unsigned k = 0; k < sizeof(nulls) / sizeof(nulls[0]); k++) {
        syscall(SYS_ioctl, -1L, nulls[k], NULL);
        syscall(SYS_ioctl, -1L, nulls[k], 1L);
    }
}

/* fcntl results of 0, which strace prints as C's %#x does: "0", not "0x0". */
static void zero_results(void) {
    int w = open("g", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (w >= 0)
        close(w);
    int fd = open("g", O_RDONLY);
    if (fd < 0)
        return;
    if (syscall(SYS_fcntl, fd, F_SETLEASE, F_RDLCK) == 0) {
        syscall(SYS_fcntl, fd, F_GETLEASE);
        syscall(SYS_fcntl, fd, F_SETLEASE, F_UNLCK);
    }
    close(fd);
    int pp[2];     /* a pipe's read end has no O_LARGEFILE: its flags are 0 */
    if (pipe(pp) == 0) {
        syscall(SYS_fcntl, pp[0], F_GETFL);
        close(pp[0]);
        close(pp[1]);
    }
}

int main(int argc, char **argv) {
    long hi = (long)0xdeadbeef00000000UL;
    if (argc < 2 || chdir(argv[1]) != 0)
        return 2;
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 3;
    aio_calls(fd, hi);
    uring_calls(hi);
    net_calls(hi);
    key_calls(hi);
    refused_calls(hi);
    boot_calls();
    flag_calls(fd, hi);
    ioctl_calls(fd, hi);
    close(fd);
    zero_results();
    return 0;
}
