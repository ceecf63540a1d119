/* A strace-parity sweep over io_uring_register(2)'s argument: the arrays and structs
 * strace 6.1 prints by the opcode (fds, iovecs, restrictions, ring fds, the rsrc
 * register and update structs with the bytes past their 32, the buffer ring
 * registration), their NULL, empty and unreadable forms, and the opcodes it prints as an
 * address.
 *
 * Every call goes to /dev/null's fd, which is no io_uring: the kernel fails it
 * (EOPNOTSUPP, EINVAL) before it reads the argument, so nothing is registered. The
 * structs sit at the end of a mapping where their size matters (a 40-byte *2 struct of
 * which only 32 bytes are readable prints "???"). Deterministic: the same calls in the
 * same order on every run.
 *
 * tests/e2e/test_strace_sweep_uring_reg.py runs it under strace -f -y and tracekit at
 * once: every line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_uring_reg
 * sweep_uring_reg.c; argument: a scratch directory (unused). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define PTR(p) ((uint64_t)(uintptr_t)(p))

static long reg(int fd, unsigned op, const void *arg, unsigned n) {
    return syscall(SYS_io_uring_register, fd, op, arg, n);
}

int main(void) {
    static char data[] = "0123456789";
    int fds[3], fd = open("/dev/null", O_RDONLY);
    struct iovec iov[2] = {{data, 10}, {NULL, 3}};
    struct io_uring_restriction rs[5];
    struct io_uring_rsrc_update ru[2];
    struct io_uring_rsrc_register rr;
    struct io_uring_rsrc_update2 up;
    struct io_uring_files_update fu;
    struct io_uring_buf_reg br;
    unsigned char *pages, *end;

    pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fd < 0 || pages == MAP_FAILED || munmap(pages + 4096, 4096))
        return 1;
    end = pages + 4096;                         /* the first byte that is not mapped */
    fds[0] = fd, fds[1] = -1, fds[2] = -2;

    /* opcodes whose argument strace prints as an address, and an unknown one */
    reg(fd, IORING_UNREGISTER_BUFFERS, data, 0);
    reg(fd, IORING_REGISTER_PERSONALITY, data, 0);
    reg(fd, 0xbadc0de, data, 1);

    /* arrays: fds, iovecs; NULL, empty, unreadable */
    reg(fd, IORING_REGISTER_FILES, fds, 3);
    reg(fd, IORING_REGISTER_EVENTFD, fds, 1);
    reg(fd, IORING_REGISTER_EVENTFD_ASYNC, NULL, 1);
    reg(fd, IORING_REGISTER_FILES, fds, 0);
    reg(fd, IORING_REGISTER_FILES, end, 2);
    reg(fd, IORING_REGISTER_BUFFERS, iov, 2);
    reg(fd, IORING_REGISTER_BUFFERS, end - sizeof iov, 2);

    /* restrictions: each opcode, an unknown one, reserved bytes */
    memset(rs, 0, sizeof rs);
    rs[0].opcode = IORING_RESTRICTION_REGISTER_OP, rs[0].register_op = IORING_REGISTER_FILES;
    rs[1].opcode = IORING_RESTRICTION_SQE_OP, rs[1].sqe_op = IORING_OP_READV;
    rs[1].resv = 0x12;
    rs[2].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
    rs[2].sqe_flags = IOSQE_FIXED_FILE | IOSQE_ASYNC | 0x80;
    rs[3].opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED, rs[3].resv2[1] = 0xdeadbeef;
    rs[4].opcode = 9, rs[4].sqe_op = 0x2f;
    reg(fd, IORING_REGISTER_RESTRICTIONS, rs, 5);

    /* ring fds, registered and unregistered */
    memset(ru, 0, sizeof ru);
    ru[0].offset = -1U, ru[0].data = fd;
    ru[1].offset = 7, ru[1].resv = 0x1010101, ru[1].data = 0xbadc0ded00000003ULL;
    reg(fd, IORING_REGISTER_RING_FDS, ru, 2);
    reg(fd, IORING_UNREGISTER_RING_FDS, ru, 2);

    /* the buffer ring registration */
    memset(&br, 0, sizeof br);
    br.ring_addr = PTR(data), br.ring_entries = 8, br.bgid = 3;
    reg(fd, IORING_REGISTER_PBUF_RING, &br, 1);
    br.pad = 0x55, br.resv[2] = 0xfacefeed;
    reg(fd, IORING_UNREGISTER_PBUF_RING, &br, 0);

    /* IORING_REGISTER_FILES_UPDATE: no fds */
    memset(&fu, 0, sizeof fu);
    fu.offset = 5, fu.fds = PTR(fds);
    reg(fd, IORING_REGISTER_FILES_UPDATE, &fu, 0);

    /* the rsrc structs: sizes below, at and past 32; bytes past 32 zero, set, unreadable */
    memset(&rr, 0, sizeof rr);
    rr.flags = IORING_RSRC_REGISTER_SPARSE | 0x10, rr.data = PTR(fds);
    reg(fd, IORING_REGISTER_FILES2, &rr, sizeof rr);
    reg(fd, IORING_REGISTER_FILES2, &rr, 24);
    rr.resv2 = 0xfacecafe, rr.tags = PTR(fds), rr.data = 0;
    reg(fd, IORING_REGISTER_BUFFERS2, &rr, sizeof rr);
    memcpy(end - 40, &rr, sizeof rr);
    memset(end - 8, 0, 8);
    reg(fd, IORING_REGISTER_BUFFERS2, end - 40, 40);
    memset(end - 8, 0xa5, 8);
    reg(fd, IORING_REGISTER_FILES2, end - 40, 40);
    rr.nr = 0, rr.flags = 0, rr.resv2 = 0, rr.data = PTR(fds), rr.tags = 0;
    memcpy(end - 32, &rr, sizeof rr);
    reg(fd, IORING_REGISTER_FILES2, end - 32, 40);
    memset(&up, 0, sizeof up);
    up.offset = 9, up.resv = 0xbad, up.data = PTR(fds), up.resv2 = 0x77;
    reg(fd, IORING_REGISTER_FILES_UPDATE2, &up, sizeof up);
    up.resv = 0, up.resv2 = 0, up.tags = PTR(fds);
    reg(fd, IORING_REGISTER_BUFFERS_UPDATE, &up, sizeof up);
    reg(fd, IORING_REGISTER_BUFFERS_UPDATE, NULL, sizeof up);

    /* what the rsrc structs point to: fds, iovecs and tags, whole and cut by the end of
     * the mapping (strace prints what it read, then the address it could not) */
    {
        static uint64_t tags[3] = {0x1337, 0, 0xbadc0deddadfacedULL};
        int *cut_fds = (int *)end - 2;
        uint64_t *cut_tags = (uint64_t *)end - 1;

        memset(&rr, 0, sizeof rr);
        rr.nr = 3, rr.data = PTR(fds), rr.tags = PTR(tags);
        reg(fd, IORING_REGISTER_FILES2, &rr, sizeof rr);
        rr.nr = 2, rr.data = PTR(iov);
        reg(fd, IORING_REGISTER_BUFFERS2, &rr, sizeof rr);
        cut_fds[0] = fd, cut_fds[1] = -2;       /* the last 8 bytes: 2 of 3 fds */
        rr.nr = 3, rr.data = PTR(cut_fds), rr.tags = 0;
        reg(fd, IORING_REGISTER_FILES2, &rr, sizeof rr);
        fu.fds = PTR(cut_fds);
        reg(fd, IORING_REGISTER_FILES_UPDATE, &fu, 3);
        rr.data = PTR(end);
        reg(fd, IORING_REGISTER_FILES2, &rr, sizeof rr);
        *cut_tags = 0xfeed;                     /* the last 8 bytes: 1 of 2 tags */
        memset(&up, 0, sizeof up);
        up.nr = 3, up.data = PTR(fds), up.tags = PTR(tags);
        reg(fd, IORING_REGISTER_FILES_UPDATE2, &up, sizeof up);
        up.nr = 2, up.data = PTR(iov), up.tags = PTR(cut_tags);
        reg(fd, IORING_REGISTER_BUFFERS_UPDATE, &up, sizeof up);
        fu.fds = PTR(fds);
        reg(fd, IORING_REGISTER_FILES_UPDATE, &fu, 3);
    }
    {
        /* the io-wq CPU mask (bytes, read as CPU numbers) and worker counts (by index) */
        static unsigned char mask[160];
        static unsigned int workers[40];
        mask[0] = 0x2f, mask[1] = 0x80, mask[127] = 0x01, mask[150] = 0xff;
        reg(fd, IORING_REGISTER_IOWQ_AFF, mask, 2);
        reg(fd, IORING_REGISTER_IOWQ_AFF, mask, 128);
        reg(fd, IORING_REGISTER_IOWQ_AFF, mask, 160);
        reg(fd, IORING_REGISTER_IOWQ_AFF, NULL, 4);
        reg(fd, IORING_REGISTER_IOWQ_AFF, mask, 0);
        workers[0] = 4, workers[1] = 0xbeefcafe, workers[2] = 7;
        reg(fd, IORING_REGISTER_IOWQ_MAX_WORKERS, workers, 2);
        reg(fd, IORING_REGISTER_IOWQ_MAX_WORKERS, workers, 3);
        reg(fd, IORING_REGISTER_IOWQ_MAX_WORKERS, workers, 40);
        reg(fd, IORING_REGISTER_IOWQ_MAX_WORKERS, end, 2);
    }
    close(fd);
    return 0;
}
