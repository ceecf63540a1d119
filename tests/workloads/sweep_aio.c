/* A strace-parity sweep over io_submit(2)'s iocb arrays (issue 12): the iocbs strace 6.1
 * prints behind the pointer array, each opcode's fields, a PWRITE's bytes, and the
 * arrays and elements it cannot read.
 *
 * Most calls go to a context that does not exist (EINVAL before the kernel reads an
 * iocb, so nothing is submitted); a few go to a context of its own and write to a
 * scratch file in the directory given as argument (each then reaped). Deterministic:
 * the same calls in the same order on every run.
 *
 * tests/e2e/test_strace_sweep_aio.py runs it under strace -f and tracekit at once: every
 * line must be equal, but for the known gaps there. Build: gcc -O1 -Wall -Werror -o
 * sweep_aio sweep_aio.c; argument: a scratch directory. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BAD ((void *)1)
#define PTR(p) ((uint64_t)(uintptr_t)(p))
#define NOCTX 0xdeadbeef00000005UL      /* no such context: EINVAL, nothing submitted */

static long submit(unsigned long ctx, long nr, struct iocb **list) {
    return syscall(SYS_io_submit, ctx, nr, list);
}

static void iocb(struct iocb *cb, unsigned op, int fd, const void *buf, uint64_t n,
                 int64_t off) {
    memset(cb, 0, sizeof *cb);
    cb->aio_lio_opcode = op, cb->aio_fildes = fd, cb->aio_buf = PTR(buf);
    cb->aio_nbytes = n, cb->aio_offset = off;
}

int main(int argc, char **argv) {
    static const char text[] = "hello world, this is a longer buffer than 32 bytes";
    static const char bin[] = "\0\1\2\377\"\\\n\t7";
    struct iocb cb[12], *list[12];
    struct io_event ev[8];
    struct timespec ts = {1, 0};
    aio_context_t ctx = 0;
    char path[4096], rbuf[16];
    char *pages;
    int fd, efd, k;

    if (argc < 2)
        return 2;
    snprintf(path, sizeof path, "%s/aio-file", argv[1]);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    efd = eventfd(0, 0);
    pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fd < 0 || efd < 0 || pages == MAP_FAILED)
        return 1;
    munmap(pages + 4096, 4096);
    memset(pages, 'p', 4096);          /* faulted in: the end of a mapping, then nothing */
    for (k = 0; k < 12; k++)
        list[k] = &cb[k];

    /* a context of its own: a write of each kind of buffer, reaped */
    syscall(SYS_io_setup, 16L, &ctx);
    iocb(&cb[0], IOCB_CMD_PWRITE, fd, "aio!", 4, 0);
    cb[0].aio_data = 0x1234;
    iocb(&cb[1], IOCB_CMD_PWRITE, fd, text, sizeof text - 1, 4);
    iocb(&cb[2], IOCB_CMD_PWRITE, fd, bin, sizeof bin - 1, 64);
    iocb(&cb[3], IOCB_CMD_PREAD, fd, rbuf, 4, 0);
    submit(ctx, 3, list);
    syscall(SYS_io_getevents, ctx, 3L, 3L, ev, &ts);
    submit(ctx, 1, list + 3);
    syscall(SYS_io_getevents, ctx, 1L, 1L, ev, &ts);
    syscall(SYS_io_destroy, ctx);

    /* every opcode, each field: no such context */
    iocb(&cb[0], IOCB_CMD_PREAD, fd, NULL, 4, 0);                 /* aio_buf=0 */
    iocb(&cb[1], IOCB_CMD_PWRITE, fd, NULL, 4, 0);                /* aio_buf=NULL */
    iocb(&cb[2], IOCB_CMD_PWRITE, fd, "x", 0, 0);                 /* "" */
    iocb(&cb[3], IOCB_CMD_PWRITE, fd, BAD, 5, 0);                 /* 0x1 */
    iocb(&cb[4], IOCB_CMD_PWRITE, fd, BAD, (uint64_t)-1, 0);      /* hex, no string */
    iocb(&cb[5], IOCB_CMD_PWRITE, fd, text, 32, -1);              /* exactly 32 */
    iocb(&cb[6], IOCB_CMD_PWRITE, fd, text, 33, 0);               /* 32 and "..." */
    iocb(&cb[7], IOCB_CMD_FSYNC, fd, BAD, 3, 0);
    submit(NOCTX, 8, list);
    iocb(&cb[0], IOCB_CMD_FDSYNC, -1, NULL, 0, 0);
    iocb(&cb[1], IOCB_CMD_POLL, fd, (void *)(uintptr_t)(POLLIN | POLLOUT | 0x8000), 0, 0);
    iocb(&cb[2], IOCB_CMD_NOOP, fd, NULL, 0, 0);
    iocb(&cb[3], 99, fd, BAD, 3, 0);
    iocb(&cb[4], IOCB_CMD_PREAD, fd, rbuf, 4, 0);
    cb[4].aio_data = 0xfedcba9876543210ULL, cb[4].aio_key = 2;
    cb[4].aio_rw_flags = RWF_HIPRI | 0x100, cb[4].aio_reqprio = 3;
    cb[4].aio_flags = IOCB_FLAG_RESFD | IOCB_FLAG_IOPRIO, cb[4].aio_resfd = efd;
    iocb(&cb[5], IOCB_CMD_PWRITE, fd, pages + 4096 - 8, 8, 0);    /* 8 readable: "pppppppp" */
    iocb(&cb[6], IOCB_CMD_PWRITE, fd, pages + 4096 - 8, 40, 0);   /* 33 are not */
    cb[7].aio_lio_opcode = IOCB_CMD_PWRITE, cb[7].aio_reqprio = 7;
    submit(NOCTX, 8, list);

    /* the array: elements that are not iocbs, an array cut by the end of a mapping */
    list[1] = BAD, list[2] = NULL;
    submit(NOCTX, 4, list);
    list[1] = &cb[1], list[2] = &cb[2];
    memcpy(pages + 4096 - 16, list, 16);
    submit(NOCTX, 3, (struct iocb **)(pages + 4096 - 16));          /* 2, then nothing */
    submit(NOCTX, 1, (struct iocb **)(pages + 4096 - 8));
    submit(NOCTX, 1, (struct iocb **)(pages + 4096));              /* none */
    submit(NOCTX, 1, NULL);
    submit(NOCTX, 2, BAD);
    submit(NOCTX, 0, list);
    submit(NOCTX, 0, NULL);
    submit(NOCTX, -1, list);
    submit(NOCTX, -3, BAD);

    /* vectors: the iovecs at aio_buf (PWRITEV's bytes too): 0 to 4 of them, long, NULL,
     * bad and empty bases, NULL and bad arrays, an array cut by the end of a mapping */
    {
        struct iovec v[5] = {{(void *)text, 5}, {(void *)text, 40}, {NULL, 3}, {BAD, 4},
                             {(void *)text, 0}};

        for (k = 0; k < 5; k++)
            iocb(&cb[k], IOCB_CMD_PWRITEV, fd, v, k, k);
        iocb(&cb[5], IOCB_CMD_PREADV, fd, v, 4, 0);
        iocb(&cb[6], IOCB_CMD_PREADV, fd, v, (uint64_t)-1, 0);
        iocb(&cb[7], IOCB_CMD_PWRITEV, fd, NULL, 2, 0);
        submit(NOCTX, 8, list);
        memcpy(pages + 4096 - 16, v, 16);
        iocb(&cb[0], IOCB_CMD_PWRITEV, fd, BAD, 2, 0);
        iocb(&cb[1], IOCB_CMD_PWRITEV, fd, pages + 4096 - 16, 3, 0);
        iocb(&cb[2], IOCB_CMD_PREADV, fd, pages + 4096 - 16, 2, 0);
        iocb(&cb[3], IOCB_CMD_PREADV, fd, pages + 4096, 1, 0);
        iocb(&cb[4], IOCB_CMD_PWRITEV, fd, v + 3, 2, 0);
        submit(NOCTX, 5, list);

        /* the gaps (tests/e2e/test_strace_sweep_aio.py): more iocbs than the BPF
         * program reads (8), a vector of more iovecs than it reads (4) */
        for (k = 0; k < 12; k++)
            list[k] = &cb[k % 5];
        submit(NOCTX, 9, list);
        submit(NOCTX, 12, list);
        iocb(&cb[0], IOCB_CMD_PWRITEV, fd, v, 5, 0);
        submit(NOCTX, 1, list);
    }
    close(efd);
    close(fd);
    unlink(path);
    return 0;
}
