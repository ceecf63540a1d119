/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Records that the tracekit BPF programs write to the "events" ring buffer.
 * kernel terms: tid = pid (a thread), tgid = process id (user-visible "pid").
 * keep in sync with tracekit/_events.py (struct formats _SYSCALL, _FORK, _EXEC, _EXIT, _SIGNAL)
 */
#ifndef TRACEKIT_SYSCALLS_H
#define TRACEKIT_SYSCALLS_H

#define TK_COMM_LEN 16
#define TK_FILENAME_LEN 256

/* Every record starts with struct tk_hdr. */
enum tk_rec_kind {
	TK_REC_SYSCALL = 1,
	TK_REC_FORK = 2,
	TK_REC_EXEC = 3,
	TK_REC_EXIT = 4,
	TK_REC_SIGNAL = 5,
	TK_REC_FD_STATE = 6, /* struct tk_syscall layout: a call the selection hides that
			      * changes the fd table or the working directory */
	TK_REC_FD_EXEC = 7,  /* struct tk_fd_exec: the fds left open after an exec */
	TK_REC_STACK = 8,   /* struct tk_stack: the stacks of the syscall record after it */
};

/* tk_syscall.flags */
#define TK_SC_NORETURN   (1U << 0) /* exit/exit_group: emitted at entry, ret is meaningless */
#define TK_SC_UNFINISHED (1U << 1) /* task died inside the call: emitted at exit of the task */
#define TK_SC_RESUMED    (1U << 2) /* exit without a traced entry: ts_ns, args unknown (0) */
#define TK_SC_COMPAT     (1U << 3) /* 32-bit syscall (ia32 / compat): nr is from that table */
#define TK_SC_ATTACHED   (1U << 4) /* with RESUMED: args read at exit from the registers, which
				    * keep them through the call (a call the task was in when
				    * tracing began: strace -p prints it whole); its captures,
				    * entry ones too, are read at exit */
#define TK_SC_INDIRECT   (1U << 5) /* with COMPAT: a call whose arguments sit in user memory
				    * (i386 socketcall, the old select) whose memory was read:
				    * args are the 32-bit words read there (zero-extended) and,
				    * for socketcall, nr is the sub-call's (TK_NR32_SUBCALL_BASE) */
#define TK_SC_SKIPPED    (1U << 7) /* with RESUMED | ATTACHED: the thread was traced when the
				    * call entered, but sys_enter never ran: a seccomp filter
				    * refused the call (kernel/entry/common.c:
				    * syscall_trace_enter returns before the tracepoint);
				    * ts_ns is the exit time, duration_ns 0 */

/* 32-bit calls whose arguments are words in user memory: socketcall(call, args)
 * (i386 nr 102; net/socket.c: args points to nargs[call] 32-bit words) and the old select
 * (i386 nr 82; fs/select.c sys_old_select: one pointer to 5 words: n, inp, outp, exp,
 * tvp). Their records are made from those words (TK_SC_INDIRECT), as strace prints them:
 * a socketcall under the i386 number of its sub-call's direct call (socket 359 ...
 * shutdown 373, recvmmsg 337, sendmmsg 345); accept, send and recv, which i386 has no
 * number for, under TK_NR32_SUBCALL_BASE + their SYS_* number (include/uapi/linux/net.h:
 * 1005, 1009, 1010; tracekit/kernel/syscalls.py names them). A call whose memory could
 * not be read keeps its own number and registers, and has no captures. */
#define TK_NR32_SELECT      82
#define TK_NR32_SOCKETCALL  102
#define TK_NR32_SUBCALL_BASE 1000

/* targ_status: the outcomes of a syscall that are recorded (strace -e status=) */
#define TK_ST_SUCCESSFUL (1U << 0) /* returned, not -4095..-1 */
#define TK_ST_FAILED     (1U << 1) /* returned -4095..-1 (-errno) */
#define TK_ST_UNFINISHED (1U << 2) /* never returned: exit, exit_group, the task died in it */
#define TK_ST_ALL        (TK_ST_SUCCESSFUL | TK_ST_FAILED | TK_ST_UNFINISHED)
#define TK_ERRNO_MAX 4095 /* the largest errno a syscall returns (-4095..-1) */

/* tk_pid_info.flags */
#define TK_PID_PENDING_EXEC (1U << 0) /* traced only from its next execve (command target) */

/* Indices into the per-CPU "counters" array. */
enum tk_counter {
	TK_CNT_LOST = 0,        /* syscall records the ring buffer had no room for */
	TK_CNT_PIDS_FULL = 1,   /* tasks that could not be added: pids map full */
	TK_CNT_SCRATCH_FULL = 2, /* entries that could not be paired: scratch map full */
	TK_CNT_CAPBUF_FULL = 3, /* syscalls emitted without captures: capbuf map full */
	TK_CNT_SUMMARY_FULL = 4, /* summary mode: calls not counted: "summary" map full */
	TK_CNT_ERRNO_FULL = 5,  /* summary mode: errors counted but not by errno: map full */
	TK_CNT_LOST_LIFECYCLE = 6, /* fork, exec, exit and signal records the ring buffer
				    * had no room for (counted apart from TK_CNT_LOST, so the
				    * syscall counts are short by exactly TK_CNT_LOST) */
	TK_CNT_FD_STATE = 7,    /* fd-table records emitted (TK_REC_FD_STATE, TK_REC_FD_EXEC) */
	TK_CNT_FD_LOST = 8,     /* fd-table records the ring buffer had no room for */
	TK_CNT_STACK_FULL = 9,  /* stacks: calls recorded without stacks: no stack_slot memory, or no room for the stack record */
	TK_CNT_MAX = 16,        /* room to add counters without resizing the map's users */
};

struct tk_hdr {
	__u32 kind;  /* enum tk_rec_kind */
	__u32 flags;
	__u64 ts_ns; /* bpf_ktime_get_ns() (CLOCK_MONOTONIC); for syscalls: entry time */
};

/* kind TK_REC_SYSCALL: one completed syscall: 112 bytes, then (when the record is longer)
 * __u32 caps_len, __u32 ncaps and caps_len bytes of captured user memory: ncaps times a
 * struct tk_cap followed by its data, the data padded with zeros to a multiple of 8.
 * Records of exactly 112 bytes carry no captures. */
struct tk_syscall {
	struct tk_hdr hdr;
	__u64 duration_ns; /* exit - entry; 0 when unknown (RESUMED, NORETURN, UNFINISHED) */
	__u32 tid;
	__u32 tgid;
	__u32 cpu;          /* CPU at exit */
	__s32 syscall_nr;
	__u64 args[6];      /* raw argument registers at entry; native rt_sigreturn (no
			     * arguments): args[0] = address of uc_sigmask in the signal frame */
	__s64 ret;          /* raw return value (-4095..-1 is -errno) */
	char comm[TK_COMM_LEN];
};

/* Captured user memory of one argument (issue 4: beautification). */
enum tk_cap_kind {
	TK_CAP_STR = 1,    /* a C string (path, name); data without the terminating NUL */
	TK_CAP_BUF = 2,    /* a buffer whose length is another arg (write buf/count), up to a cap */
	TK_CAP_STRUCT = 3, /* a struct of known or arg-given size (sockaddr/addrlen, timespec) */
	TK_CAP_ARGV = 4,   /* a NULL-terminated array of strings (execve argv/envp): each
			    * element NUL-terminated; a last element without NUL was cut */
	TK_CAP_IOV = 5,    /* a struct iovec array (readv/writev): struct tk_iov_elem records */
	TK_CAP_MSGHDR = 6, /* a struct msghdr (sendmsg/recvmsg): the msghdr, tk_iov_elem
			    * records of msg_name and msg_control, then msg_iov as TK_CAP_IOV */
	TK_CAP_MMSGHDR = 7, /* element len_arg of a struct mmsghdr array (sendmmsg/recvmmsg):
			     * as TK_CAP_MSGHDR with the 64-byte mmsghdr first */
	TK_CAP_COUNT = 8,  /* records in the ret bytes the call wrote (getdents64), walking a
			    * __u16 record length at offset spec.size of each: data is one
			    * __u32 count; TRUNC when the walk stopped early (a bad length,
			    * more than TK_COUNT_N records): the count is then a lower bound */
	TK_CAP_FD = 9,     /* what an fd is, read from the kernel's fd table (not user memory):
			    * one struct tk_fd_desc per fd; the fd is args[spec.arg] (len_arg
			    * TK_LEN_NONE), the return value (TK_LEN_RET), or the two ints
			    * args[spec.arg] points to (TK_SPEC_FD_PAIR: pipe, socketpair).
			    * The capture's arg is TK_CAP_ARG_FD | spec.arg, so that decoders
			    * looking for an argument's user memory never take it */
	TK_CAP_ENVP = 10,  /* execve's envp strings (strace -v; only when the beauty map
			    * names it): data as TK_CAP_ARGV, up to TK_ENVP_N elements */
	TK_CAP_IOCB = 12,  /* io_submit's iocb pointer array (issue 12): len_arg is nr; up
			    * to TK_IOCB_N struct tk_iocb_elem records (see below) */
};
#define TK_CAP_ARG_FD 0x40
#define TK_CAPF_TRUNC      (1U << 0) /* data is a prefix: cut at the cap */
#define TK_CAPF_FAULT      (1U << 1) /* user memory could not be read (EFAULT): no data */
#define TK_CAPF_AT_EXIT    (1U << 2) /* read at exit because the entry read faulted */
#define TK_CAPF_ARGV_TRUNC (1U << 3) /* ARGV: more elements than captured */
#define TK_CAPF_ELEM_FAULT (1U << 4) /* IOV/MSGHDR: the iovec array was unreadable after
				      * the elements captured; DEREF: the memory the pointer
				      * points to was unreadable (BUF: the bytes kept, if any, are
				      * those up to the end of its page, the first elements of an
				      * array cut by the end of a mapping); IOCB: the pointer array was
				      * unreadable after the elements captured */
#define TK_CAPF_DEREF      (1U << 5) /* a TK_SPEC_PTR_AT capture: struct tk_deref_head, then
				      * what the pointer points to (not the argument's memory) */
#define TK_CAPF_PARTIAL    (1U << 6) /* with FAULT (BUF, STRUCT read at exit, or an entry
				      * read retried there): the whole read faulted and the data
				      * is what was readable of it, the bytes up to the end of the
				      * page it starts in (TK_PAGE_4K; the rest, past an unmapped
				      * page, could not be read). A decoder that ignores this flag
				      * sees FAULT and prints the address, as for no data */
/* FAULT|AT_EXIT: the entry read faulted and so did the read at exit (or there was none:
 * a successful execve replaced the memory). A successful execve whose filename or argv
 * faulted at entry reads them at exit from the new image (AT_EXIT): the filename the
 * kernel copied after the environment strings, argv from the new stack's pointer array;
 * argv stays FAULT|AT_EXIT when a script's interpreter (#!) rewrote it. */

struct tk_cap {
	__u8 arg;    /* argument index 0..5 */
	__u8 kind;   /* enum tk_cap_kind */
	__u16 flags; /* TK_CAPF_* */
	__u32 len;   /* bytes of data that follow, before padding */
};

/* What to capture, per syscall nr: the value of the "beauty" ARRAY map (native syscall
 * table) and of the "beauty32" ARRAY map (x86_64: i386 table, for TK_SC_COMPAT calls,
 * whose arguments are the low 32 bits of the i386 argument registers). Filled by
 * tracekit/session/capture.py from tracefs formats and its override table (beauty32:
 * strings, byte buffers and sockaddrs, whose layouts do not depend on the ABI).
 * Captures are appended in spec order for entry reads, then at exit (TK_SPEC_AT_EXIT
 * specs, and entry reads that faulted); at most one capture per spec. */
#define TK_BEAUTY_SPECS 8
#define TK_LEN_NONE 0xff /* len_arg: fixed size (spec.size) */
#define TK_LEN_RET  0xfe /* len_arg: the return value (only with TK_SPEC_AT_EXIT; ret < 0: no capture) */
#define TK_SPEC_AT_EXIT (1U << 0) /* read at sys_exit: the call fills the memory (read, stat) */
/* Lengths of I/O and socket captures (tk_spec_len): with len_arg an argument or
 * TK_LEN_RET and size != 0 (BUF/STRUCT), the length is that value times size (an array
 * of that many elements of size bytes: poll's nfds, epoll_wait's return value). */
#define TK_SPEC_IOCTL   (1U << 1) /* len_arg is an ioctl request: size and direction from
				   * the "ioctl_sizes" map; no capture for other requests
				   * or the other direction */
#define TK_SPEC_FDSET   (1U << 2) /* len_arg is select's nfds: the fd_set's bytes, in longs */
#define TK_SPEC_LEN_PTR (1U << 3) /* len_arg's register points to the int length (addrlen,
				   * optlen): read it from user memory */
#define TK_SPEC_DEREF   (1U << 4) /* STRUCT of size bytes whose first word is a pointer:
				   * then cap - size bytes from there (pselect6's sigmask) */
#define TK_SPEC_FD_PAIR (1U << 5) /* TK_CAP_FD: args[arg] points to int[2] (pipe's fds) */
#define TK_SPEC_COMPAT  (1U << 6) /* TK_CAP_IOV / TK_CAP_MSGHDR / TK_CAP_MMSGHDR of a 32-bit
				   * call: the array holds i386 iovecs (8 bytes: u32 base, u32
				   * len), the msghdr is i386's (28 bytes: 7 u32, with a 32-bit
				   * msg_iov array), an mmsghdr 32 bytes (msg_len after it); the
				   * capture's data is the native layout, widened */
#define TK_SPEC_PTR_AT  (1U << 7) /* issue 12: args[arg] points to a struct holding a
				   * pointer (u64) at byte offset spec.size & 0xff (and, when
				   * spec.size >> 8 is not 0, only for calls whose args[0] & 0xff
				   * is spec.size >> 8 minus 1: bpf's command, ptrace's
				   * request; nothing is read for the others): capture what it
				   * points to, a string (kind STR, spec.cap bytes; with len_arg:
				   * in a buffer of that length, min(length, cap) bytes read
				   * whole, or up to its NUL kept when a fault follows it) or bytes (BUF:
				   * the __u32 at byte offset len_arg of the struct, at most
				   * spec.cap; TK_LEN_NONE: spec.cap). The capture is flagged
				   * TK_CAPF_DEREF; its data is struct tk_deref_head then the
				   * bytes; an unreadable struct: DEREF|FAULT and no data */
/* Value of the "ioctl_sizes" map (key: the 32-bit request): size | TK_IOCTL_* */
#define TK_IOCTL_IN  (1U << 16) /* the call reads the struct: captured at entry */
#define TK_IOCTL_OUT (1U << 17) /* the call writes it: captured at exit (when it succeeded) */
/* TK_CAP_IOV / TK_CAP_MSGHDR: spec.cap bounds all data, spec.size one element's bytes;
 * at exit (TK_SPEC_AT_EXIT) the data is also bounded by the return value. */
#define TK_IOV_N 32 /* iovec elements read (strace -s 32 shows as many) */
#define TK_MMSG_N 8 /* TK_CAP_MMSGHDR: elements a spec may name */
#define TK_COUNT_N 4096 /* TK_CAP_COUNT: records walked at most */

/* Bounds the BPF side enforces (clamps spec values above them). */
#define TK_STR_MAX  4096 /* STR cap: PATH_MAX */
#define TK_BUF_MAX  4096 /* BUF and STRUCT cap */
#define TK_ARGV_MAX 3072 /* ARGV: all elements with their NULs */
#define TK_ARGV_ELEM_MAX 1024 /* ARGV: one element */
#define TK_ARGV_N   32   /* ARGV: elements read */
#define TK_ENVP_N   256  /* ENVP: elements read (bytes bounded as ARGV's) */

struct tk_beauty_spec {
	__u8 arg;     /* argument index 0..5 holding the user pointer */
	__u8 kind;    /* enum tk_cap_kind; 0 = unused slot */
	__u8 len_arg; /* BUF/STRUCT: index of the length argument, TK_LEN_NONE, TK_LEN_RET */
	__u8 flags;   /* TK_SPEC_* */
	__u16 cap;    /* bytes of data kept at most (STR, BUF, STRUCT; ARGV: all elements) */
	__u16 size;   /* STRUCT with TK_LEN_NONE: its size; ARGV: cap of one element */
};

/* TK_SPEC_PTR_AT data (issue 12): what was read of the struct, then the bytes. */
#define TK_DEREF_MAX 1024 /* bytes read at the pointer at most (cap clamped) */
struct tk_deref_head {
	__u64 ptr;  /* the pointer at byte offset off of the struct (NULL: no bytes follow) */
	__u32 off;  /* spec.size & 0xff: where the pointer is in the struct */
	__u32 want; /* BUF: the length read at byte offset len_arg (0 for STR) */
};

/* TK_CAP_IOCB data (issue 12): one record per element of io_submit's pointer array read
 * (at most TK_IOCB_N: TK_CAPF_TRUNC when nr is larger; nr < 0: no capture), each followed
 * by the 64-byte struct iocb when readable, then got bytes: for IOCB_CMD_PWRITE the first
 * bytes of aio_buf (at most spec.cap, TK_IOCB_BUF_MAX), 0-padded to 8; for
 * IOCB_CMD_PREADV/PWRITEV the first TK_IOCB_IOV_N iovecs of the array at aio_buf, each a
 * struct tk_iov_elem followed (PWRITEV) by the first bytes of its base (at most
 * spec.cap), 0-padded to 8. */
#define TK_IOCB_N 8
#define TK_IOCB_BUF_MAX 64
#define TK_IOCB_SIZE 64
#define TK_IOCB_IOV_N 4
#define TK_IOCB_IOV_BUF_MAX 40
struct tk_iocb_elem {
	__u64 ptr;   /* the iocb pointer (element i of the array) */
	__u32 got;   /* bytes after the iocb */
	__u32 flags; /* TK_CAPF_FAULT: the iocb unreadable (no iocb bytes follow);
		      * TK_CAPF_ELEM_FAULT: aio_buf unreadable (PWRITE: got = 0; vectors: the
		      * iovec array after the records that are there); TK_CAPF_TRUNC: a
		      * vector of more than TK_IOCB_IOV_N iovecs */
};

struct tk_beauty {
	struct tk_beauty_spec spec[TK_BEAUTY_SPECS]; /* 64 bytes */
};

/* TK_CAP_IOV data: one record per element read (at most TK_IOV_N; TK_CAPF_TRUNC on the
 * capture when the array has more), each followed by got bytes of iov_base, 0-padded to
 * 8. TK_CAP_MSGHDR data: the 56-byte struct msghdr (as read), one record for msg_name
 * (base, msg_namelen, the bytes got: at most 128), one for msg_control (base,
 * msg_controllen, at most 128 bytes), then the TK_CAP_IOV data of msg_iov. */
struct tk_iov_elem {
	__u64 base;  /* iov_base */
	__u64 len;   /* iov_len */
	__u32 got;   /* bytes of iov_base that follow */
	__u32 flags; /* TK_CAPF_FAULT: iov_base unreadable (got = 0); with TK_CAPF_PARTIAL:
		      * the read faulted and the got bytes are those up to the end of
		      * the page iov_base is in */
};

/* TK_CAP_FD data (216 bytes each): what the fd was when the call entered (at_exit 0) or
 * returned (at_exit 1), from current->files (include/linux/fdtable.h), the file's inode
 * and, for a socket, its struct sock (include/net/sock.h, af_unix.h, af_netlink.h):
 * what strace -yy shows of pipes and sockets, which /proc may no longer show when the
 * record reaches user space (the fd was closed, the process is gone). */
#define TK_FD_PROTO_LEN 32  /* struct proto name: /proc's system.sockprotoname */
#define TK_FD_UNIX_PATH 108 /* sizeof(sun_path) */
struct tk_fd_desc {
	__s32 fd;
	__u16 mode;      /* inode i_mode (S_IFIFO, S_IFSOCK ...); 0: no file at fd */
	__u8 at_exit;    /* 1: read at sys_exit (after the call), 0: at sys_enter */
	__u8 state;      /* sockets: skc_state (TCP_LISTEN ...) */
	__u64 ino;       /* inode number */
	__u16 family;    /* sockets: skc_family; 0 for other files */
	__u16 protocol;  /* sockets: sk_protocol (netlink: NETLINK_ROUTE ...) */
	__u16 sport;     /* inet: skc_num, the local port (host order) */
	__u16 dport;     /* inet: skc_dport, the peer's port (host order) */
	__u32 portid;    /* netlink: the port id (0: not bound) */
	__u32 name_len;  /* unix: bytes of sun_path bound (unix_address.len - 2; 0: none) */
	__u64 peer_ino;  /* unix: the peer's inode (0: none) */
	__u8 src[16];    /* inet: local address (AF_INET: 4 bytes, network order) */
	__u8 dst[16];    /* inet: peer address */
	char proto[TK_FD_PROTO_LEN]; /* sockets: sk->sk_prot->name ("TCP", "UNIX-STREAM") */
	__u8 name[TK_FD_UNIX_PATH]; /* unix: sun_path bound (abstract: a leading NUL) */
	__u32 netns;     /* sockets: the inode of the network namespace the socket is in */
};

/* kind TK_REC_FORK: a traced thread created a task (32 bytes) */
struct tk_fork {
	struct tk_hdr hdr;
	__u32 parent_tid;
	__u32 parent_tgid;
	__u32 child_tid;
	__u32 child_tgid;
};

/* kind TK_REC_EXEC: a traced task exec'd (296 bytes) */
struct tk_exec {
	struct tk_hdr hdr;
	__u32 tid;     /* tid after exec (== tgid) */
	__u32 old_tid; /* tid before exec: differs when a non-leader thread exec'd */
	char comm[TK_COMM_LEN];
	char filename[TK_FILENAME_LEN];
};

/* kind TK_REC_EXIT: a traced task exited (56 bytes; records of 48 bytes, without
 * exec_tid, come from older objects) */
#define TK_EXIT_SUPERSEDED (1U << 0) /* hdr.flags: a thread group leader reaped by the
				      * execve of another of its threads (exec_tid), whose
				      * tid becomes this one: strace's "superseded by execve" */
#define TK_EXIT_ALONE (1U << 1) /* hdr.flags: a thread seccomp killed while its group lives
				 * on (SECCOMP_RET_KILL_THREAD, strict mode): wait(2) reports
				 * it at once, not with its group's end */
struct tk_exit {
	struct tk_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__s32 exit_code; /* task->exit_code: wait(2) status layout */
	__u32 group_dead; /* 1 when the whole thread group is gone */
	char comm[TK_COMM_LEN];
	__u32 exec_tid;  /* TK_EXIT_SUPERSEDED: the exec'ing thread's tid before the exec */
	__u32 _pad;
};

/* kind TK_REC_SIGNAL: a traced thread dequeued a signal to act on it (tp_btf/signal_deliver,
 * called from get_signal() before the disposition is applied; 112 bytes; records of 104
 * bytes, without ip, come from older objects). Sent-but-dropped
 * signals (ignored at send time, e.g. SIGCHLD with SIG_DFL) never get here. */
#define TK_SIGINFO_LEN 48
/* tk_signal hdr.flags */
#define TK_SIG_EXIT_ONLY (1U << 0) /* the disposition is SA_IMMUTABLE: a signal the kernel
				    * forced to end the task (a seccomp SECCOMP_RET_KILL_*:
				    * kernel/signal.c force_sig_seccomp, HANDLER_EXIT); get_signal
				    * never stops a ptracer for it, so strace shows no line */
struct tk_signal {
	struct tk_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__s32 sig;
	__u32 _pad;
	__u64 sa_handler; /* the disposition: 0 SIG_DFL, 1 SIG_IGN, else the handler address */
	/* the first 48 bytes of struct kernel_siginfo: the uapi siginfo layout
	 * (include/uapi/asm-generic/siginfo.h) without its padding: si_signo, si_errno,
	 * si_code at 0, 4, 8; the union from byte 16 */
	__u8 info[TK_SIGINFO_LEN];
	char comm[TK_COMM_LEN];
	__u64 ip; /* the thread's user instruction pointer (task_pt_regs) when the record was
		   * made: where it takes the signal (strace -i on a signal line) */
};

/* -- the fd table (targ_fd_state) ---------------------------------------------------------
 * User space keeps each traced process's fd table (and working directory) to print fds
 * as strace -yy does. It must see every call that changes them, shown or not: a call
 * that the selection (syscall filter, status, errno, duration) hides but whose native nr
 * is marked in the "fd_track" map is emitted as a TK_REC_FD_STATE record, the struct
 * tk_syscall layout with its captures (an open's path, pipe's fds), which user space
 * applies to the table and never prints or counts as a call. After each exec a
 * TK_REC_FD_EXEC record says which fds stayed open (close-on-exec ones are gone). */
#define TK_FD_EXEC_WORDS 16 /* fds 0..1023 */

/* kind TK_REC_FD_EXEC: the fd table of a traced process right after an exec (160 bytes);
 * read from task->files->fdt->open_fds at sched_process_exec, after the close-on-exec
 * fds were closed (fs/exec.c begin_new_exec -> do_close_on_exec). */
struct tk_fd_exec {
	struct tk_hdr hdr;
	__u32 tid;      /* after the exec (== tgid) */
	__u32 tgid;
	__u32 max_fds;  /* fdt->max_fds */
	__u32 nbits;    /* fds described by open_fds: min(max_fds, 64 * TK_FD_EXEC_WORDS);
			 * 0 when the table could not be read */
	__u64 open_fds[TK_FD_EXEC_WORDS]; /* bit n of word n / 64: fd n is open */
};

/* Value of the "pids" hash map, keyed by __u32 tid. */
struct tk_pid_info {
	__u64 start_time_ns; /* task->start_boottime (CLOCK_BOOTTIME ns), the clock of /proc/<tid>/stat
	                      * field 22 (in clock ticks there); 0 if unknown */
	__u32 tgid;
	__u32 flags;         /* TK_PID_* */
};

/* -- in-kernel summary (issue 5; targ_summary) -------------------------------------------
 * sys_exit (and sys_enter for calls that never return, sched_process_exit for calls a
 * task died in) updates per-(tid, syscall nr) statistics instead of emitting records.
 * Read by tracekit/session/kernel_summary.py. Every entry is written only by the thread whose
 * tid is in its key (the hooks run in that thread's context, and a thread is in one
 * syscall at a time), so the updates are plain loads and stores: no atomics, no per-CPU
 * copies, and each entry is exact. A reader running concurrently may see an entry
 * between two of its fields' updates; a read after the workload has ended is exact. */
#define TK_HIST_BUCKETS 64 /* log2 buckets: k holds durations d with bit_length(d) == k */

/* Key of the "summary" map. */
struct tk_sum_key {
	__u32 tid;
	__s32 nr;     /* native table; i386 table when compat */
	__u32 compat; /* 1: a 32-bit (TK_SC_COMPAT) call */
};

/* Value of the "summary" map (648 bytes). Durations are sys_exit - sys_enter in ns of
 * bpf_ktime_get_ns() (CLOCK_MONOTONIC), as tk_syscall.duration_ns.
 * Standard deviation, exact: sum_sq = sum(d * d) is kept as a 128-bit integer
 * (sum_sq_hi:sum_sq_lo). Each d * d is formed exactly from 32-bit halves
 * (d = a * 2^32 + b: d^2 = a^2 * 2^64 + 2ab * 2^32 + b^2, each product < 2^64) and added
 * with carry. With total_ns and timed, user space computes the variance as the exact
 * fraction (n * sum_sq - total^2) / n^2 (tracekit/_summary.py): no rounding before the
 * subtraction. Exact while sum_sq < 2^128 ns^2 and total_ns < 2^64 ns (584 years). */
struct tk_sum_stats {
	__u32 tgid;           /* the thread's tgid at its last counted call */
	__u32 _pad;
	__u64 calls;          /* every call: timed, noreturn, unfinished, resumed */
	__u64 errors;         /* calls that returned -4095..-1 */
	__u64 timed;          /* calls with entry and exit seen */
	__u64 total_ns;       /* sum of timed durations */
	__u64 min_ns;         /* 0 while timed == 0 */
	__u64 max_ns;
	__u64 sum_sq_lo;      /* sum of squared durations, ns^2, low 64 bits */
	__u64 sum_sq_hi;      /* and high 64 bits */
	__u64 noreturn;       /* exit/exit_group, counted at entry */
	__u64 unfinished;     /* the task died inside the call */
	__u64 resumed;        /* exit without an entry (in the call when tracing began) */
	__u64 first_ts_ns;    /* entry time of the first timed call */
	__u64 last_ts_ns;     /* exit time of the last timed call */
	__u64 update_ns;      /* when the entry was last updated (picks a thread's last comm) */
	char comm[TK_COMM_LEN]; /* the thread's comm at its last counted call */
	__u64 hist[TK_HIST_BUCKETS]; /* timed calls per log2 bucket */
};

/* Key of the "summary_errno" map (value: __u64 calls that returned -errno). */
struct tk_sum_errno_key {
	__u32 tid;
	__s32 nr;
	__u32 compat;
	__u32 err;    /* positive errno, 1..4095 */
};

/* -- stacks (issue 18; targ_stacks) ------------------------------------------------------
 * With targ_stacks, tk_sys_enter walks the stacks of a selected call at entry
 * (bpf_get_stack: the user stack by frame pointers, the kernel stack by the kernel's
 * unwinder) and copies the first TK_STACK_TOP bytes of the user stack, into the task's
 * "stack_slot" storage; where the call is recorded (at exit, after the status, errno and
 * duration filters; at entry for exit/exit_group; at the task's exit for a call it died
 * in) a struct tk_stack record goes out just before the struct tk_syscall record, from
 * the same task, so it is the record before it in the ring buffer. Calls not selected,
 * and traces without stacks, never touch the slot. */
#define TK_STACK_USER   (1U << 0) /* targ_stacks: the user stack */
#define TK_STACK_KERNEL (1U << 1) /* targ_stacks: the kernel stack */
#define TK_STACK_IP     (1U << 2) /* targ_stacks: the user instruction pointer at entry
				   * only (strace -i): alone, the record is short (below) */
#define TK_STACK_FRAMES 127       /* frames per stack at most (bpf_get_stack's default
				   * sysctl kernel.perf_event_max_stack) */
#define TK_STACK_TOP    1024      /* bytes of the user stack from sp copied (tk_stack.top) */

/* kind TK_REC_STACK (64 + TK_STACK_TOP bytes, then nuser + nkernel __u64 addresses).
 * hdr.ts_ns is the entry time of the call, as in its tk_syscall record (same tid).
 * hdr.flags TK_STACK_IP_ONLY (targ_stacks is TK_STACK_IP alone): a 72-byte record
 * without top: nuser 1, nkernel 0, and the one frame, the instruction pointer after the
 * syscall instruction (task_pt_regs ip at entry), at byte 64 where top would start. */
#define TK_STACK_IP_ONLY (1U << 0)
struct tk_stack {
	struct tk_hdr hdr;
	__u32 tid;
	__u32 tgid;
	__u32 nuser;   /* user frames: instruction pointers, innermost (the syscall's) first */
	__u32 nkernel; /* kernel frames after them, innermost first */
	__u64 sp;      /* user registers at entry: stack pointer, */
	__u64 fp;      /* frame pointer (x86_64 rbp, arm64 x29) */
	__u64 lr;      /* and link register (arm64 x30; 0 on x86_64) */
	__u32 top_len; /* bytes of top that were read (0: none: kernel only, or a fault) */
	__u32 _pad;
	/* the user stack from sp: a frame that keeps no frame pointer (a libc syscall wrapper
	 * that uses rbp as a scratch register) is unwound from it by its CFI in user space */
	__u8 top[TK_STACK_TOP];
	/* __u64 frames[nuser + nkernel] follow */
};

#endif /* TRACEKIT_SYSCALLS_H */
