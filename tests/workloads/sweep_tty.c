/* A strace-parity sweep over terminal and file ioctls, ptrace requests and prctl options
 * that no other workload makes (decode_calls.c has a few prctl/ptrace calls, parity_calls.c
 * and sweep_io.c a few ioctls on a regular file; this one does not repeat them). Each with
 * normal arguments, NULL and (void *)1 pointers, unknown values and garbage in the high
 * half of an int's register.
 *
 * Every call is harmless:
 * - terminal ioctls act only on a pty pair this program opens itself (posix_openpt), never
 *   on the terminal it was started from; TIOCSCTTY/TIOCSPGRP/TIOCNOTTY run in a forked
 *   child that first makes a session of its own (setsid), so only that child's session
 *   gets (and drops) the pty as its controlling terminal. TCSETS*, TCSETA*, TCSETS*2,
 *   TIOCSLCKTRMIOS, TIOCSSOFTCAR write back what was read (a termios with every flag
 *   cleared is set, then the settings read before are put back); TIOCSTI pushes one byte
 *   into this pty's own input, flushed after; TIOCGPTPEER's fds are closed. The serial
 *   requests fail on a pty (ENOTTY). The same requests on a scratch file fail with ENOTTY,
 *   on fd -1 with EBADF.
 * - file ioctls act on scratch files in argv[1] (FICLONE & co. fail with EOPNOTSUPP/EXDEV/
 *   EINVAL or clone the program's own file; FS_IOC_SETFLAGS/FSSETXATTR write back the
 *   values read), or read /dev/urandom's entropy count (read only). FIFREEZE/FITHAW/FITRIM
 *   are made on fd -1 only (EBADF).
 * - ptrace acts only on a child this program forks (with CLONE_UNTRACED, so that strace -f
 *   does not trace it itself): it SEIZEs it, stops it with PTRACE_INTERRUPT, reads and
 *   writes the child's own memory (a word of its own stack copy of a variable) and
 *   registers (written back as read), resumes, detaches and seizes it again, then kills and
 *   reaps it. Other requests are made on a pid that does not exist (ESRCH) or with unknown
 *   request numbers.
 * - prctl reads this process's own settings, or sets its name, its parent-death signal,
 *   its timer slack and its other settings to the values it already has (PR_SET_PTRACER:
 *   ANY, then 0 again, where Yama takes it at all), and a name on its
 *   own anonymous mapping; PR_SET_MM, PR_SET_SPECULATION_CTRL (not controllable here) and
 *   unknown options fail before they change anything. arch_prctl reads this process's
 *   FS/GS bases, CPUID faulting state and XSAVE feature masks; ARCH_SET_CPUID(1) leaves
 *   CPUID enabled (the default), ARCH_SET_GS(0) sets the GS base it has (0).
 * Deterministic: each call has the same outcome from run to run, but for the child's
 * register values and, once it has been resumed, which stop a request finds it in (an
 * interrupt or a syscall stop, or none yet: ESRCH): both tracers see the same outcome.
 *
 * tests/e2e/test_strace_sweep_tty.py runs it under strace -f and tracekit at once: every
 * line must be equal. Build: gcc -O1 -Wall -Werror -o sweep_tty sweep_tty.c; argument: a
 * scratch directory. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/random.h>
#include <linux/serial.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <asm/termbits.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>


#define BAD ((void *)1)
#define NO_PID 0x3fffffffL

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

struct termio_ {                      /* struct termio (asm-generic/termios.h) */
    unsigned short c_iflag, c_oflag, c_cflag, c_lflag;
    unsigned char c_line, c_cc[8];
};

/* The same request on a pty, a scratch file and fd -1. */
static void tty_calls(int m, int s, int f, long hi) {
    struct termios t;
    struct termios2 t2;
    struct termio_ to;
    struct winsize ws;
    int v = 0, one = 1, zero = 0;
    struct serial_struct ser;

    syscall(SYS_ioctl, s, TCGETS, &t);
    syscall(SYS_ioctl, s, TCSETS, &t);
    syscall(SYS_ioctl, s, TCSETSW, &t);
    syscall(SYS_ioctl, s, TCSETSF, &t);
    /* every flag cleared (strace prints empty words), then the settings put back */
    struct termios z;
    memset(&z, 0, sizeof z);
    syscall(SYS_ioctl, s, TCSETS, &z);
    syscall(SYS_ioctl, s, TCGETS, &z);
    z.c_oflag = 0x10000;
    z.c_cflag = 0x20000000 | CS8 | B38400;
    syscall(SYS_ioctl, s, TCSETS, &z);
    syscall(SYS_ioctl, s, TCSETS, &t);
    syscall(SYS_ioctl, s, TCGETS, NULL);
    syscall(SYS_ioctl, s, TCGETS, BAD);
    syscall(SYS_ioctl, s, TCSETS, BAD);
    syscall(SYS_ioctl, f, TCGETS, &t);
    syscall(SYS_ioctl, -1L, TCSETS, &t);
    syscall(SYS_ioctl, hi | s, TCGETS, &t);
    syscall(SYS_ioctl, s, TCGETA, &to);
    syscall(SYS_ioctl, s, TCSETA, &to);
    syscall(SYS_ioctl, s, TCSETAW, &to);
    syscall(SYS_ioctl, s, TCSETAF, &to);
    syscall(SYS_ioctl, s, TCGETA, BAD);
    syscall(SYS_ioctl, f, TCGETA, &to);
    syscall(SYS_ioctl, s, TIOCGWINSZ, &ws);
    ws.ws_row = 24; ws.ws_col = 80; ws.ws_xpixel = 0; ws.ws_ypixel = 0;
    syscall(SYS_ioctl, s, TIOCSWINSZ, &ws);
    syscall(SYS_ioctl, s, TIOCGWINSZ, &ws);
    syscall(SYS_ioctl, s, TIOCGWINSZ, NULL);
    syscall(SYS_ioctl, s, TIOCSWINSZ, BAD);
    syscall(SYS_ioctl, s, TCFLSH, TCIFLUSH);
    syscall(SYS_ioctl, s, TCFLSH, TCOFLUSH);
    syscall(SYS_ioctl, s, TCFLSH, TCIOFLUSH);
    syscall(SYS_ioctl, s, TCFLSH, 7L);
    syscall(SYS_ioctl, f, TCFLSH, TCIFLUSH);
    syscall(SYS_ioctl, s, TCXONC, TCOON);
    syscall(SYS_ioctl, s, TCXONC, TCION);
    syscall(SYS_ioctl, s, TCXONC, 9L);
    syscall(SYS_ioctl, s, TCSBRK, 1L);
    syscall(SYS_ioctl, s, TCSBRKP, 0L);
    syscall(SYS_ioctl, s, TIOCGPGRP, &v);
    syscall(SYS_ioctl, s, TIOCGSID, &v);
    syscall(SYS_ioctl, m, TIOCGPGRP, NULL);
    syscall(SYS_ioctl, s, TIOCOUTQ, &v);
    syscall(SYS_ioctl, s, TIOCINQ, &v);
    syscall(SYS_ioctl, m, FIONREAD, &v);
    syscall(SYS_ioctl, m, TIOCGPTN, &v);
    syscall(SYS_ioctl, m, TIOCGPTN, BAD);
    syscall(SYS_ioctl, s, TIOCGPTN, &v);
    syscall(SYS_ioctl, m, TIOCSPTLCK, &zero);
    syscall(SYS_ioctl, m, TIOCSPTLCK, NULL);
    int peer = syscall(SYS_ioctl, m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (peer >= 0)
        close(peer);
    peer = syscall(SYS_ioctl, m, TIOCGPTPEER, 0x40000000L);
    if (peer >= 0)
        close(peer);
    peer = syscall(SYS_ioctl, m, TIOCGPTPEER, hi | O_RDWR | O_NOCTTY);
    if (peer >= 0)
        close(peer);
    syscall(SYS_ioctl, s, TIOCEXCL);
    syscall(SYS_ioctl, s, TIOCGEXCL, &v);
    syscall(SYS_ioctl, s, TIOCNXCL);
    syscall(SYS_ioctl, s, TIOCGEXCL, &v);
    syscall(SYS_ioctl, m, TIOCPKT, &one);
    syscall(SYS_ioctl, m, TIOCPKT, &zero);
    syscall(SYS_ioctl, m, TIOCGPKT, &v);
    syscall(SYS_ioctl, m, TIOCPKT, NULL);
    syscall(SYS_ioctl, s, TIOCGETD, &v);
    syscall(SYS_ioctl, s, TIOCSETD, &v);
    syscall(SYS_ioctl, s, TIOCGETD, BAD);
    syscall(SYS_ioctl, s, TIOCMGET, &v);
    v = TIOCM_DTR | TIOCM_RTS;
    syscall(SYS_ioctl, s, TIOCMSET, &v);
    syscall(SYS_ioctl, s, TIOCMBIS, &v);
    v = 0x10000;                                             /* no named line */
    syscall(SYS_ioctl, s, TIOCMBIC, &v);
    v = 0x10006;
    syscall(SYS_ioctl, s, TIOCMSET, &v);
    syscall(SYS_ioctl, s, TIOCGSERIAL, &ser);
    syscall(SYS_ioctl, s, TIOCGSERIAL, NULL);
    syscall(SYS_ioctl, s, TIOCSSERIAL, &ser);                /* ENOTTY on a pty */
    syscall(SYS_ioctl, s, TIOCGRS485, &ser);
    syscall(SYS_ioctl, s, TIOCSERGETLSR, &v);
    syscall(SYS_ioctl, s, TIOCSERCONFIG);
    syscall(SYS_ioctl, s, TIOCGISO7816, &ser);
    syscall(SYS_ioctl, s, TIOCGPTLCK, &v);
    syscall(SYS_ioctl, s, TIOCNOTTY);                        /* not our ctty: ENOTTY */
    syscall(SYS_ioctl, s, _IO('T', 0x7e), 0L);
    syscall(SYS_ioctl, s, _IOR('T', 0x7f, int), &v);
    syscall(SYS_ioctl, f, TIOCGWINSZ, &ws);
    syscall(SYS_ioctl, f, TIOCGPGRP, &v);
    syscall(SYS_ioctl, f, TIOCGPTN, &v);
    syscall(SYS_ioctl, -1L, TIOCGPGRP, &v);
    syscall(SYS_ioctl, -1L, TCFLSH, TCIFLUSH);
    syscall(SYS_ioctl, hi | s, TIOCGWINSZ, &ws);
    /* read, then written back unchanged */
    syscall(SYS_ioctl, s, TCGETS2, &t2);
    syscall(SYS_ioctl, s, TCSETS2, &t2);
    syscall(SYS_ioctl, s, TCSETSW2, &t2);
    syscall(SYS_ioctl, s, TIOCGLCKTRMIOS, &t);
    syscall(SYS_ioctl, s, TIOCSLCKTRMIOS, &t);
    syscall(SYS_ioctl, s, TIOCGSOFTCAR, &v);
    syscall(SYS_ioctl, s, TIOCSSOFTCAR, &v);
    syscall(SYS_ioctl, s, TIOCGDEV, &v);
    syscall(SYS_ioctl, m, TIOCGPTLCK, &v);
    syscall(SYS_ioctl, s, TIOCGICOUNT, &v);
    syscall(SYS_ioctl, s, TIOCSBRK);
    syscall(SYS_ioctl, s, TIOCCBRK);
    syscall(SYS_ioctl, s, TIOCSTI, "x");      /* a byte into its own pty's input */
    syscall(SYS_ioctl, s, TCFLSH, TCIFLUSH);
    syscall(SYS_ioctl, s, TCFLSH, hi | TCIFLUSH);
    syscall(SYS_ioctl, s, TCXONC, hi | TCOON);
    syscall(SYS_ioctl, s, TCSBRK, hi | 1);
    syscall(SYS_ioctl, s, hi | TIOCGWINSZ, &ws);
}

/* A child in a session of its own takes the slave as its controlling terminal. */
static void ctty_child(const char *name) {
    pid_t pid = fork();
    if (pid == 0) {
        int v = 0;
        setsid();
        int s = open(name, O_RDWR);
        if (s < 0)
            _exit(1);
        syscall(SYS_ioctl, s, TIOCSCTTY, 0L);
        syscall(SYS_ioctl, s, TIOCGPGRP, &v);
        syscall(SYS_ioctl, s, TIOCSPGRP, &v);
        syscall(SYS_ioctl, s, TIOCGSID, &v);
        v = 0x3fffffff;
        syscall(SYS_ioctl, s, TIOCSPGRP, &v);                /* ESRCH */
        syscall(SYS_ioctl, s, TIOCSPGRP, BAD);
        signal(SIGHUP, SIG_IGN);
        syscall(SYS_ioctl, s, TIOCNOTTY);
        close(s);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

static void file_calls(int f, long hi) {
    int v = 1, g = open("g", O_RDWR | O_CREAT | O_TRUNC, 0600);
    loff_t sz = 0;
    struct file_clone_range cr = {.src_fd = f, .src_offset = 0, .src_length = 4096,
                                  .dest_offset = 0};
    struct {
        struct file_dedupe_range r;
        struct file_dedupe_range_info i[1];
    } dd = {.r = {.src_offset = 0, .src_length = 4, .dest_count = 1},
            .i = {{.dest_fd = g, .dest_offset = 0}}};
    struct {
        struct fiemap m;
        struct fiemap_extent e[2];
    } fm = {.m = {.fm_start = 0, .fm_length = ~0ULL, .fm_flags = FIEMAP_FLAG_SYNC,
                  .fm_extent_count = 2}};
    struct fsxattr fx;

    syscall(SYS_ioctl, f, FIOASYNC, &v);
    v = 0;
    syscall(SYS_ioctl, f, FIOASYNC, &v);
    syscall(SYS_ioctl, f, FIOQSIZE, &sz);
    syscall(SYS_ioctl, f, FIOQSIZE, NULL);
    syscall(SYS_ioctl, f, FIGETBSZ, &v);
    syscall(SYS_ioctl, f, FIGETBSZ, NULL);
    syscall(SYS_ioctl, g, FICLONE, (long)f);
    syscall(SYS_ioctl, g, FICLONE, -1L);
    syscall(SYS_ioctl, g, FICLONE, hi | f);
    syscall(SYS_ioctl, g, FICLONERANGE, &cr);
    syscall(SYS_ioctl, g, FICLONERANGE, NULL);
    syscall(SYS_ioctl, f, FIDEDUPERANGE, &dd);
    syscall(SYS_ioctl, f, FIDEDUPERANGE, BAD);
    syscall(SYS_ioctl, f, FS_IOC_FIEMAP, &fm);
    syscall(SYS_ioctl, f, FS_IOC_FIEMAP, NULL);
    fm.m.fm_flags = 0x8;                                     /* unknown: EBADR */
    syscall(SYS_ioctl, f, FS_IOC_FIEMAP, &fm);
    fm.m.fm_flags = 0;
    syscall(SYS_ioctl, g, FS_IOC_FIEMAP, &fm);               /* empty: no extent */
    struct {
        struct file_dedupe_range r;
        struct file_dedupe_range_info i[2];
    } dd2 = {.r = {.src_offset = 0, .src_length = 4, .dest_count = 2},
             .i = {{.dest_fd = g, .dest_offset = 0}, {.dest_fd = g, .dest_offset = 8}}};
    syscall(SYS_ioctl, f, FIDEDUPERANGE, &dd2);
    syscall(SYS_ioctl, f, FS_IOC_GETVERSION, &v);
    syscall(SYS_ioctl, f, FS_IOC_FSGETXATTR, &fx);
    syscall(SYS_ioctl, f, FS_IOC_FSGETXATTR, BAD);
    int r = open("/dev/urandom", O_RDONLY);
    if (r >= 0) {
        syscall(SYS_ioctl, r, RNDGETENTCNT, &v);
        syscall(SYS_ioctl, r, RNDGETENTCNT, NULL);
        close(r);
    }
    syscall(SYS_ioctl, f, _IOC(_IOC_READ | _IOC_WRITE, 0x99, 0x1, 0x8), &sz);
    syscall(SYS_ioctl, f, _IOC(_IOC_READ, 0x99, 0x2, 0x4), &v);
    syscall(SYS_ioctl, f, _IOC(_IOC_WRITE, 0x99, 0x3, 0x10), &fx);
    syscall(SYS_ioctl, f, _IOC(_IOC_NONE, 0x99, 0x4, 0), 0L);
    syscall(SYS_ioctl, f, _IOC(_IOC_READ, 0x99, 0x5, 0x3fff), NULL);
    unsigned int fl = 0;
    char label[256];
    syscall(SYS_ioctl, f, FS_IOC_GETFLAGS, &fl);
    syscall(SYS_ioctl, f, FS_IOC_SETFLAGS, &fl);             /* unchanged */
    syscall(SYS_ioctl, f, FS_IOC_FSSETXATTR, &fx);           /* as read above */
    struct fsxattr bad = fx;
    bad.fsx_xflags = 0x40000000;                             /* unknown: EOPNOTSUPP */
    syscall(SYS_ioctl, f, FS_IOC_FSSETXATTR, &bad);
    bad.fsx_xflags = 0x40000010;
    syscall(SYS_ioctl, f, FS_IOC_FSSETXATTR, &bad);
    v = 0;
    syscall(SYS_ioctl, f, FIBMAP, &v);
    syscall(SYS_ioctl, f, FS_IOC_GETFSLABEL, label);
    syscall(SYS_ioctl, -1L, FIFREEZE, 0L);                   /* fd -1 only: EBADF */
    syscall(SYS_ioctl, -1L, FITHAW, 0L);
    syscall(SYS_ioctl, -1L, FITRIM, NULL);
    close(g);
}

static void ptrace_calls(long hi) {
    volatile long word = 0x1234;
    /* CLONE_UNTRACED: strace -f does not attach to this child, so it can be seized */
    pid_t pid = syscall(SYS_clone, (long)(CLONE_UNTRACED | SIGCHLD), 0L, 0L, 0L, 0L);
    if (pid == 0) {
        for (;;)
            syscall(SYS_pause);
    }
    if (pid < 0)
        return;
    struct user_regs_struct regs;
    struct iovec iov = {&regs, sizeof regs};
    unsigned long msg = 0;
    siginfo_t si, sibuf[2];
    long data = 0;
    struct user_fpregs_struct fpregs;
    unsigned long long mask = 0;
    struct { unsigned long long off; unsigned int flags; int nr; } psi = {0, 0, 2};
    unsigned char sci[88];

    syscall(SYS_ptrace, PTRACE_SEIZE, (long)pid, 0L, (long)PTRACE_O_TRACESYSGOOD);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_SETOPTIONS, (long)pid, 0L,
            (long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
    syscall(SYS_ptrace, PTRACE_SETOPTIONS, (long)pid, 0L, 0x80000000L);
    syscall(SYS_ptrace, PTRACE_PEEKDATA, (long)pid, &word, &data);
    syscall(SYS_ptrace, PTRACE_PEEKTEXT, (long)pid, &word, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 0L, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 16L * 8, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 21L * 8, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 26L * 8, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 27L * 8, &data);
    syscall(SYS_ptrace, PTRACE_PEEKUSER, (long)pid, 0x1001L, &data);
    syscall(SYS_ptrace, PTRACE_POKEDATA, (long)pid, &word, 0x5678L);
    syscall(SYS_ptrace, PTRACE_PEEKDATA, (long)pid, NULL, &data);
    syscall(SYS_ptrace, PTRACE_GETREGS, (long)pid, 0L, &regs);
    syscall(SYS_ptrace, PTRACE_GETREGS, (long)pid, 0L, BAD);
    syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
    syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, NULL);
    syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, 0x999L, &iov);
    syscall(SYS_ptrace, PTRACE_GETEVENTMSG, (long)pid, 0L, &msg);
    syscall(SYS_ptrace, PTRACE_GETSIGINFO, (long)pid, 0L, &si);
    syscall(SYS_ptrace, PTRACE_GETSIGINFO, (long)pid, 0L, NULL);
    /* the child's own state written back as it was read */
    syscall(SYS_ptrace, PTRACE_SETREGS, (long)pid, 0L, &regs);
    syscall(SYS_ptrace, PTRACE_SETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
    /* the registers behind the iovec (issue 12): cut sizes, a larger buffer than the
     * set (the call shortens iov_len: 224 => 216), the FP set, another note, bad bases */
    {
        static char xstate[4096];
        struct iovec fp = {&fpregs, sizeof fpregs}, xs = {xstate, sizeof xstate};
        struct user_regs_struct two[2];

        iov.iov_len = 96;
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        syscall(SYS_ptrace, PTRACE_SETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_len = 8;
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_len = 100;                                   /* EINVAL */
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_len = 0;
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_base = two, iov.iov_len = 224;
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_len = 224;                                   /* "..." past the set */
        syscall(SYS_ptrace, PTRACE_SETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_base = BAD, iov.iov_len = sizeof regs;       /* EFAULT */
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        syscall(SYS_ptrace, PTRACE_SETREGSET, (long)pid, (long)NT_PRSTATUS, &iov);
        iov.iov_base = &regs;
        syscall(SYS_ptrace, PTRACE_GETREGSET, NO_PID, (long)NT_PRSTATUS, &iov);  /* ESRCH */
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_FPREGSET, &fp);
        syscall(SYS_ptrace, PTRACE_SETREGSET, (long)pid, (long)NT_FPREGSET, &fp);
        fp.iov_len = 200;
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_FPREGSET, &fp);
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_X86_XSTATE, &xs);
        syscall(SYS_ptrace, PTRACE_GETREGSET, (long)pid, (long)NT_PRSTATUS, BAD);
    }
    syscall(SYS_ptrace, PTRACE_POKEUSER, (long)pid, 10L * 8, (long)regs.rax);
    syscall(SYS_ptrace, PTRACE_GETFPREGS, (long)pid, 0L, &fpregs);
    syscall(SYS_ptrace, PTRACE_GETSIGMASK, (long)pid, 8L, &mask);
    syscall(SYS_ptrace, PTRACE_SETSIGMASK, (long)pid, 8L, &mask);
    syscall(SYS_ptrace, PTRACE_GETSIGMASK, (long)pid, 4L, &mask);
    syscall(SYS_ptrace, PTRACE_SETSIGINFO, (long)pid, 0L, &si);
    syscall(SYS_ptrace, PTRACE_PEEKSIGINFO, (long)pid, &psi, sibuf);
    syscall(SYS_ptrace, PTRACE_SETFPREGS, (long)pid, 0L, &fpregs);     /* as read */
    kill(pid, SIGUSR1);                       /* stays pending while the child is stopped */
    syscall(SYS_ptrace, PTRACE_PEEKSIGINFO, (long)pid, &psi, sibuf);
    psi.flags = PTRACE_PEEKSIGINFO_SHARED;
    syscall(SYS_ptrace, PTRACE_PEEKSIGINFO, (long)pid, &psi, sibuf);
    syscall(SYS_ptrace, PTRACE_GET_SYSCALL_INFO, (long)pid, (long)sizeof sci, sci);
    syscall(SYS_ptrace, PTRACE_SECCOMP_GET_FILTER, (long)pid, 0L, NULL);
    syscall(SYS_ptrace, PTRACE_LISTEN, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, 0x4299L, (long)pid, 0L, 0L);
    /* resumed, stopped again (waited for), then let go and seized again */
    syscall(SYS_ptrace, PTRACE_CONT, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_SYSCALL, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_DETACH, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_SEIZE, (long)pid, 0L, (long)PTRACE_O_TRACESYSGOOD);
    /* stopped at the entry of its (restarted) pause, then at its exit */
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_SYSCALL, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_GET_SYSCALL_INFO, (long)pid, (long)sizeof sci, sci);
    syscall(SYS_ptrace, PTRACE_SYSCALL, (long)pid, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, (long)pid, 0L, 0L);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_GET_SYSCALL_INFO, (long)pid, (long)sizeof sci, sci);
    syscall(SYS_ptrace, PTRACE_KILL, (long)pid, 0L, 0L);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, __WALL);
    syscall(SYS_ptrace, PTRACE_CONT, NO_PID, 0L, (long)SIGCONT);
    syscall(SYS_ptrace, PTRACE_SYSCALL, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_DETACH, NO_PID, 0L, (long)SIGSTOP);
    syscall(SYS_ptrace, PTRACE_INTERRUPT, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_LISTEN, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_KILL, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_GETEVENTMSG, NO_PID, 0L, &msg);
    syscall(SYS_ptrace, PTRACE_POKEDATA, NO_PID, 0x1000L, 0x5678L);
    syscall(SYS_ptrace, PTRACE_SEIZE, NO_PID, 0L, 0x80000000L);
    syscall(SYS_ptrace, PTRACE_SETOPTIONS, NO_PID, 0L, (long)PTRACE_O_TRACECLONE);
    syscall(SYS_ptrace, 0x9999L, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, hi | PTRACE_CONT, NO_PID, 0L, 0L);
    syscall(SYS_ptrace, PTRACE_CONT, hi | NO_PID, 0L, 0L);
}

static void prctl_calls(long hi) {
    char name[16];
    int v = 0;
    unsigned long ul = 0;
    void *tid = NULL;

    syscall(SYS_prctl, PR_GET_DUMPABLE, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_NAME, name, 0L, 0L, 0L);
    /* a name of TASK_COMM_LEN - 1 bytes and its NUL (a thread name a JVM cuts to
     * fit), one byte shorter, and the 16 bytes with no NUL */
    syscall(SYS_prctl, PR_SET_NAME, "Reference Handl", 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_NAME, "Reference Hand", 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_NAME, "Reference Handler", 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_NAME, "sweep-tty", 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_NAME, NULL, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_NAME, NULL, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, (long)SIGTERM, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_PDEATHSIG, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_PDEATHSIG, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_PDEATHSIG, BAD, 0L, 0L, 0L);
    {
        /* the int at the end of a mapping: read at its own 4 bytes */
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);

        if (m != MAP_FAILED) {
            munmap(m + pg, pg);
            syscall(SYS_prctl, PR_GET_CHILD_SUBREAPER, m + pg - 4, 0L, 0L, 0L);
            munmap(m, pg);
        }
    }
    long slack = syscall(SYS_prctl, PR_GET_TIMERSLACK, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_TIMERSLACK, slack, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SECCOMP, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SECUREBITS, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_THP_DISABLE, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_CHILD_SUBREAPER, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_CHILD_SUBREAPER, NULL, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_TID_ADDRESS, &tid, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_TID_ADDRESS, BAD, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SPECULATION_CTRL, (long)PR_SPEC_STORE_BYPASS, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SPECULATION_CTRL, (long)PR_SPEC_INDIRECT_BRANCH, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SPECULATION_CTRL, (long)PR_SPEC_L1D_FLUSH, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_SPECULATION_CTRL, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_CAPBSET_READ, 21L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_CAPBSET_READ, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_CAP_AMBIENT, (long)PR_CAP_AMBIENT_IS_SET, 21L, 0L, 0L);
    syscall(SYS_prctl, PR_CAP_AMBIENT, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_IO_FLUSHER, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, 51L /* PR_SVE_GET_VL */, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_TAGGED_ADDR_CTRL, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL_GET, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_KEEPCAPS, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_TIMING, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_ENDIAN, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_FPEMU, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_UNALIGN, &v, 0L, 0L, 0L);
    void *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    syscall(SYS_prctl, PR_SET_VMA, (long)PR_SET_VMA_ANON_NAME, map, 4096L, "tk-sweep");
    syscall(SYS_prctl, PR_SET_VMA, (long)PR_SET_VMA_ANON_NAME, map, 4096L, NULL);
    syscall(SYS_prctl, PR_SET_VMA, 7L, map, 4096L, 0L);
    munmap(map, 4096);
    /* each set to the value the process already has, or refused before any change */
    syscall(SYS_prctl, PR_SET_SPECULATION_CTRL, (long)PR_SPEC_STORE_BYPASS,
            (long)PR_SPEC_ENABLE, 0L, 0L);                   /* not controllable: ENXIO */
    syscall(SYS_prctl, PR_SET_SPECULATION_CTRL, 99L, 0x80L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_DUMPABLE, 1L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_DUMPABLE, 7L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_THP_DISABLE, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_TIMING, (long)PR_TIMING_STATISTICAL, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_ENDIAN, (long)PR_ENDIAN_LITTLE, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_FPEMU, (long)PR_FPEMU_NOPRINT, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_UNALIGN, (long)PR_UNALIGN_NOPRINT, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_TSC, (long)PR_TSC_ENABLE, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_TSC, &v, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_SECUREBITS, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_SECUREBITS, 0x80000000L, 0L, 0L, 0L);    /* no such bit */
    syscall(SYS_prctl, PR_SET_UNALIGN, 0xff00L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PTRACER, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PTRACER, -1L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PTRACER, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_IO_FLUSHER, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL, (long)PR_MCE_KILL_CLEAR, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL, (long)PR_MCE_KILL_SET, (long)PR_MCE_KILL_EARLY, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL, (long)PR_MCE_KILL_SET, 7L, 0L, 0L);
    syscall(SYS_prctl, PR_MCE_KILL, (long)PR_MCE_KILL_CLEAR, 0L, 0L, 0L);
    syscall(SYS_prctl, 63L /* PR_SME_SET_VL: arm64's, EINVAL here */, 0xea57L | 1L << 17,
            1L, 2L, 3L);
    syscall(SYS_prctl, PR_SET_TAGGED_ADDR_CTRL, 1L, 0L, 0L, 0L);
    syscall(SYS_prctl, 50L /* PR_SVE_SET_VL */, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, 54L /* PR_PAC_RESET_KEYS */, 0L, 0L, 0L, 0L);
    /* arm64's pointer authentication keys (EINVAL here) */
    syscall(SYS_prctl, 54L, 0x11L, 1L, 2L, 3L);
    syscall(SYS_prctl, 54L, 0x20L, 0L, 0L, 0L);
    syscall(SYS_prctl, 60L /* PR_PAC_SET_ENABLED_KEYS */, 3L, 0x21L, 0L, 1L);
    syscall(SYS_prctl, 61L /* PR_PAC_GET_ENABLED_KEYS */, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_GET_FP_MODE, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, 62L /* PR_SCHED_CORE */, 0L /* PR_SCHED_CORE_GET */, 0L, 0L, &ul);
    /* its command and pid type are ints: garbage in their high halves is not shown */
    syscall(SYS_prctl, 62L, hi, 0L, hi | 1L, 0L);
    syscall(SYS_prctl, 62L, hi | 9L, 0L, hi | 9L, 0L);
    syscall(SYS_prctl, 59L /* PR_SET_SYSCALL_USER_DISPATCH */, 0L /* OFF */, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_SECCOMP, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_MM, (long)PR_SET_MM_START_CODE, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_MM, 99L, 0L, 0L, 0L);
    syscall(SYS_prctl, 0x7777L, 1L, 2L, 3L, 4L);
    syscall(SYS_prctl, hi | PR_GET_DUMPABLE, 0L, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, hi | SIGTERM, 0L, 0L, 0L);
    syscall(SYS_prctl, PR_SET_PDEATHSIG, 0L, 0L, 0L, 0L);

    syscall(SYS_arch_prctl, ARCH_GET_FS, &ul);
    syscall(SYS_arch_prctl, ARCH_GET_GS, &ul);
    syscall(SYS_arch_prctl, ARCH_GET_GS, NULL);
    syscall(SYS_arch_prctl, ARCH_GET_FS, BAD);
    syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0L);
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1L);
    syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &ul);
    syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &ul);
    syscall(SYS_arch_prctl, ARCH_GET_XCOMP_GUEST_PERM, &ul);
    syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, NULL);
    syscall(SYS_arch_prctl, 0x4001L /* ARCH_GET_UNTAG_MASK */, &ul);
    syscall(SYS_arch_prctl, 0x4003L /* ARCH_GET_MAX_TAG_BITS */, &ul);
    syscall(SYS_arch_prctl, 0x5005L /* ARCH_SHSTK_STATUS */, &ul);
    syscall(SYS_arch_prctl, ARCH_SET_GS, 0L);                /* GS base is 0 already */
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, hi | 1);          /* still enabled */
    syscall(SYS_arch_prctl, 0x3999L, 0L);
    syscall(SYS_arch_prctl, hi | ARCH_GET_CPUID, 0L);
}

int main(int argc, char **argv) {
    long hi = (long)0xdeadbeef00000000UL;
    if (argc < 2 || chdir(argv[1]) != 0)
        return 2;
    int f = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (f < 0 || write(f, "data", 4) != 4)
        return 3;
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0)
        return 4;
    const char *name = ptsname(m);
    int s = open(name, O_RDWR | O_NOCTTY);
    if (s < 0)
        return 5;
    tty_calls(m, s, f, hi);
    ctty_child(name);
    close(s);
    close(m);
    file_calls(f, hi);
    ptrace_calls(hi);
    prctl_calls(hi);
    close(f);
    return 0;
}
