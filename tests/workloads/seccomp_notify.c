/* The seccomp user-notification ioctls on a real listener, and on fd 0 with values a
 * listener would refuse (each fails with ENOTTY there; the structs are read all the
 * same). A child, under a filter that sends getppid to the listener, calls getppid twice;
 * the parent receives each notification, checks its cookie, adds an fd to the child and
 * answers: 42 the first time, SECCOMP_USER_NOTIF_FLAG_CONTINUE the second.
 * Used by tests/e2e/test_strace_seccomp.py (strace and tracekit on one run). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "getppid_filter.h"

static void odd_values(void)
{
    struct seccomp_notif_resp r;
    struct seccomp_notif_addfd a;
    struct seccomp_notif n;
    uint64_t id = 0;

    memset(&r, 0, sizeof(r));
    r.val = 0x7fffffffffffffffLL;
    r.error = 5;
    r.flags = 6;
    ioctl(0, SECCOMP_IOCTL_NOTIF_SEND, &r);
    r.val = -5;
    r.error = -4095;
    r.flags = 0;
    ioctl(0, SECCOMP_IOCTL_NOTIF_SEND, &r);
    r.error = -13;
    ioctl(0, SECCOMP_IOCTL_NOTIF_SEND, &r);
    ioctl(0, SECCOMP_IOCTL_NOTIF_SEND, NULL);
    ioctl(0, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
    ioctl(0, SECCOMP_IOCTL_NOTIF_RECV, NULL);
    memset(&n, 0, sizeof(n));
    n.id = 7;                   /* not zeroed: shown as it was at entry */
    n.data.nr = __NR_getppid;
    n.data.arch = 0x1234;
    ioctl(0, SECCOMP_IOCTL_NOTIF_RECV, &n);
    memset(&a, 0, sizeof(a));
    a.id = 1;
    a.flags = SECCOMP_ADDFD_FLAG_SETFD | SECCOMP_ADDFD_FLAG_SEND;
    a.srcfd = 1;
    a.newfd = 2;
    ioctl(0, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
    a.flags = 0xc;
    a.srcfd = -1;
    a.newfd = -1;
    a.newfd_flags = O_NONBLOCK | O_DIRECT | O_CLOEXEC;
    ioctl(0, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
    ioctl(0, SECCOMP_IOCTL_NOTIF_ADDFD, (char *)&a + 1);
}

int main(void)
{
    struct sock_filter f[4];
    struct sock_fprog prog = getppid_filter(f, SECCOMP_RET_USER_NOTIF);
    int fd, k;
    pid_t child;

    odd_values();
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                 &prog);
    if (fd < 0)
        return 1;
    child = fork();
    if (child == 0) {
        syscall(__NR_getppid);
        syscall(__NR_getppid, 1, 2, 3);
        _exit(0);
    }
    for (k = 0; k < 2; k++) {
        struct seccomp_notif n;
        struct seccomp_notif_resp r;
        struct seccomp_notif_addfd a;
        uint64_t id;

        memset(&n, 0, sizeof(n));
        if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &n))
            return 2;
        id = n.id;
        ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
        memset(&a, 0, sizeof(a));
        a.id = n.id;
        a.newfd_flags = O_CLOEXEC;
        ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
        memset(&r, 0, sizeof(r));
        r.id = n.id;
        if (k)
            r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        else
            r.val = 42;
        ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &r);
    }
    waitpid(child, NULL, 0);
    return 0;
}
