/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The few kernel types the tracekit BPF programs read, for CO-RE (no vmlinux.h).
 *
 * Policy: declare only the fields a program reads; mark every struct
 * __attribute__((preserve_access_index)) so each access becomes a CO-RE field
 * relocation that the loader resolves against /sys/kernel/btf/vmlinux by type and
 * field NAME. Offsets and field order here are therefore irrelevant; names and
 * kinds must match the kernel's. A field that may be missing on some kernel is read
 * only behind bpf_core_field_exists(). Type "flavors" (struct foo___x) name the same
 * kernel type foo, as in libbpf.
 *
 * kernel terms: tid = pid (a thread), tgid = process id (user-visible "pid").
 * Kernel sources: include/linux/sched.h (task_struct), include/linux/sched/signal.h
 * (signal_struct, SIGNAL_GROUP_EXIT), fs/exec.c (de_thread),
 * include/linux/binfmts.h (linux_binprm), arch/x86/include/asm/ptrace.h and
 * arch/arm64/include/asm/ptrace.h (pt_regs), arch/x86/include/asm/thread_info.h
 * (thread_info.status, TS_COMPAT), include/linux/signal_types.h (k_sigaction, kernel_siginfo),
 * include/linux/mm_types.h (mm_struct.env_end), include/linux/fdtable.h (files_struct,
 * fdtable).
 */
#ifndef TRACEKIT_CORE_TYPES_H
#define TRACEKIT_CORE_TYPES_H

#include <linux/types.h>
#include <stdbool.h>

#if !defined(__TARGET_ARCH_x86) && !defined(__TARGET_ARCH_arm64)
#error "build with -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64"
#endif

typedef int pid_t;

typedef struct {
	int counter;
} atomic_t;

#if defined(__TARGET_ARCH_x86)
/* arch/x86/include/asm/ptrace.h: syscall args in di, si, dx, r10, r8, r9;
 * orig_ax keeps the syscall number through the call (ax gets the return value). */
struct pt_regs {
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long bx; /* bx cx dx si di bp: the i386 argument registers (int $0x80) */
	unsigned long cx;
	unsigned long bp; /* also the user frame pointer at entry (stacks: programs/syscalls.h) */
	unsigned long orig_ax;
	unsigned long ip; /* user instruction pointer: after the syscall instruction (strace -i) */
	unsigned long sp; /* user stack pointer at entry (rt_sigreturn's signal frame) */
} __attribute__((preserve_access_index));

/* arch/x86/include/asm/thread_info.h: status holds TS_COMPAT while a 32-bit syscall
 * runs (set at entry, cleared in arch_exit_to_user_mode_prepare). */
struct thread_info {
	__u32 status;
} __attribute__((preserve_access_index));
#define TK_TS_COMPAT 0x0002
#endif

#if defined(__TARGET_ARCH_arm64)
/* arch/arm64/include/asm/ptrace.h: regs[] sits in an anonymous union with
 * struct user_pt_regs; CO-RE matches through anonymous members. regs[0] is arg0 at
 * entry and the return value at exit; syscallno keeps the number through the call. */
struct pt_regs {
	unsigned long regs[31];
	unsigned long sp; /* user stack pointer at entry (rt_sigreturn's signal frame) */
	unsigned long pc; /* user instruction pointer: after the svc instruction (strace -i) */
	unsigned long orig_x0;
	int syscallno;
} __attribute__((preserve_access_index));
#endif

struct task_struct;

/* include/linux/mm_types.h: where exec laid out the new image's strings (a successful
 * execve's filename is copied right after the environment strings: fs/exec.c
 * do_execveat_common copies it first, onto the top of the new stack; binfmt_elf.c
 * create_elf_tables sets env_end) */
struct mm_struct {
	unsigned long env_end;
} __attribute__((preserve_access_index));

struct signal_struct {
	atomic_t live; /* live threads; do_exit() decrements it before sched_process_exit */
	unsigned int flags; /* SIGNAL_GROUP_EXIT: the group is dying (fatal signal, exit_group) */
	int group_exit_code; /* with SIGNAL_GROUP_EXIT: the fatal signal, or exit_group's
			      * status << 8 (kernel/signal.c complete_signal, kernel/exit.c) */
	/* de_thread(): the thread whose execve kills the others (5.16+; a kernel without the
	 * field reads no such thread) */
	struct task_struct *group_exec_task;
} __attribute__((preserve_access_index));
#define TK_SIGNAL_GROUP_EXIT 0x00000004 /* include/linux/sched/signal.h */

/* include/linux/fs.h: the inode of an open file (what an fd is: TK_CAP_FD) */
struct inode {
	unsigned short i_mode; /* umode_t: S_IFIFO, S_IFSOCK ... */
	unsigned long i_ino;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
	void *private_data; /* a socket's struct socket (net/socket.c sock_alloc_file) */
} __attribute__((preserve_access_index));

/* include/linux/fdtable.h: the open fds of a task (read at exec: only the bitmap; an fd's
 * file for TK_CAP_FD) */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
	unsigned long *open_fds; /* bit n: fd n is open */
} __attribute__((preserve_access_index));

/* include/net/sock.h, include/linux/net.h, include/net/af_unix.h,
 * net/netlink/af_netlink.h: what strace -yy prints of a socket (TK_CAP_FD). The inet
 * fields sit in anonymous unions of sock_common; skc_v6_* exist with CONFIG_IPV6 only
 * (read behind bpf_core_field_exists). unix_sock and netlink_sock are vmlinux types
 * when AF_UNIX is built in (CONFIG_UNIX=y, as distributions build it) */
struct proto {
	char name[32]; /* the protocol's name: /proc's system.sockprotoname xattr */
} __attribute__((preserve_access_index));

struct in6_addr {
	__u8 s6_addr[16];
};

struct ns_common {
	unsigned int inum; /* the namespace's inode: /proc/PID/ns/net's net:[INUM] */
} __attribute__((preserve_access_index));

struct net {
	struct ns_common ns;
} __attribute__((preserve_access_index));

struct tk_possible_net { /* possible_net_t */
	struct net *net;
} __attribute__((preserve_access_index));

struct sock_common {
	__u32 skc_daddr;     /* __be32 */
	__u32 skc_rcv_saddr; /* __be32 */
	__u16 skc_dport;     /* __be16 */
	__u16 skc_num;       /* host order */
	unsigned short skc_family;
	unsigned char skc_state;
	struct proto *skc_prot;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	struct tk_possible_net skc_net;
} __attribute__((preserve_access_index));

struct socket;

struct sock {
	struct sock_common __sk_common;
	struct socket *sk_socket;
	__u16 sk_protocol; /* a u16 since Linux 5.6 (a bitfield before) */
	unsigned long sk_ino; /* sock_i_ino(), kept after the socket is closed (6.16+; before,
			       * read through sk_socket, which a closed socket has no more) */
} __attribute__((preserve_access_index));

struct socket {
	struct file *file;
	struct sock *sk;
} __attribute__((preserve_access_index));

/* include/linux/net.h SOCK_INODE(): the socket and its inode are one allocation */
struct socket_alloc {
	struct socket socket;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

struct sockaddr_un {
	unsigned short sun_family;
	char sun_path[108];
} __attribute__((preserve_access_index));

struct unix_address {
	int len; /* bytes of name used: sun_family and the path */
	struct sockaddr_un name[0];
} __attribute__((preserve_access_index));

struct unix_sock {
	struct unix_address *addr; /* bound name, NULL when not bound */
	struct sock *peer;
} __attribute__((preserve_access_index));

struct netlink_sock {
	__u32 portid;
} __attribute__((preserve_access_index));

/* include/linux/signal_types.h: a thread's own pending signals (task_struct.pending);
 * bit sig - 1 of the first word is sig (_NSIG_WORDS of unsigned long; SIGKILL is in the
 * first on every architecture) */
struct sigpending {
	struct {
		unsigned long sig[1];
	} signal;
} __attribute__((preserve_access_index));

/* include/linux/seccomp_types.h: the thread's seccomp state; mode SECCOMP_MODE_DEAD is
 * set (kernel/seccomp.c __seccomp_filter) just before a SECCOMP_RET_KILL_* action kills it */
struct seccomp {
	int mode;
} __attribute__((preserve_access_index));
#define TK_SECCOMP_MODE_DEAD 3 /* SECCOMP_MODE_FILTER + 1, kernel/seccomp.c */

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

struct task_struct {
#if defined(__TARGET_ARCH_x86)
	struct thread_info thread_info; /* CONFIG_THREAD_INFO_IN_TASK */
#endif
	int exit_code;   /* wait(2) status layout */
	pid_t pid;       /* tid */
	pid_t tgid;
	__u64 start_time; /* CLOCK_MONOTONIC ns */
	__u64 start_boottime; /* CLOCK_BOOTTIME ns: /proc/<pid>/stat field 22 is this in clock ticks */
	struct signal_struct *signal;
	struct sighand_struct *sighand;
	struct mm_struct *mm;
	struct files_struct *files;
	struct sigpending pending; /* the thread's own (not the group's shared_pending) */
	struct seccomp seccomp;    /* CONFIG_SECCOMP */
	char comm[16];   /* TASK_COMM_LEN; read as two u64 loads (bpf_get_current_comm's bytes) */
} __attribute__((preserve_access_index));

struct linux_binprm {
	const char *filename; /* the name passed to execve (or /dev/fd/N for execveat) */
	const char *interp;   /* the file run: differs from filename for a script (#!) or
			       * binfmt_misc, whose argv the kernel rewrote */
} __attribute__((preserve_access_index));

/* include/linux/signal_types.h, include/uapi/asm-generic/signal-defs.h: the action the
 * signal_deliver tracepoint passes (only the handler is read). */
struct sigaction {
	void *sa_handler; /* __sighandler_t; SIG_DFL 0, SIG_IGN 1 */
	unsigned long sa_flags; /* SA_*, and the kernel's own SA_IMMUTABLE */
} __attribute__((preserve_access_index));

struct k_sigaction {
	struct sigaction sa;
} __attribute__((preserve_access_index));

/* include/linux/sched/signal.h: the dispositions, action[sig - 1]; indexed by the
 * running kernel's size of struct k_sigaction (bpf_core_type_size), not this one's */
struct sighand_struct {
	struct k_sigaction action[64];
} __attribute__((preserve_access_index));

/* include/linux/signal_types.h: read as 48 raw bytes (the uapi siginfo layout), never by
 * field: an opaque declaration is enough for the prog's argument type. */
struct kernel_siginfo;

#endif /* TRACEKIT_CORE_TYPES_H */
