/* The seccomp filter the seccomp workloads install: getppid gets `action`, every other
 * call is allowed. getppid_filter fills f (4 instructions) and returns the program that
 * prctl(PR_SET_SECCOMP) or seccomp(SECCOMP_SET_MODE_FILTER) takes. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

static struct sock_fprog getppid_filter(struct sock_filter f[4], unsigned int action)
{
    struct sock_filter insns[4] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, action),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {4, f};
    int k;

    for (k = 0; k < 4; k++)
        f[k] = insns[k];
    return prog;
}
