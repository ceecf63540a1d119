// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tracekit's syscall tracer: pairs sys_enter/sys_exit per thread and keeps the pids
 * map true across fork, exec and exit. Records: programs/syscalls.h.
 * kernel terms: tid = pid (a thread), tgid = process id (user-visible "pid").
 *
 * Kernel rules (/work/shared/DESIGN.md) kept here:
 *   1  tp_btf programs cannot veto another listener; every prog returns 0.
 *   2  a pids entry flagged TK_PID_PENDING_EXEC is traced from its execve on.
 *   3  fork follows the thread that called clone() (current tid, not its tgid);
 *      exit deletes the tid; a non-leader exec deletes the old key, then inserts.
 *   8  a failed ring-buffer reservation counts TK_CNT_LOST (syscall records) or
 *      TK_CNT_LOST_LIFECYCLE (fork, exec, exit, signal records). Per-call records
 *      (syscall, fd-state, stack) are not reserved past targ_rb_call_room bytes of
 *      data in the ring (counted the same: call_room()); lifecycle records may fill it.
 *   9  tasks of targ_self_tgid are never traced.
 *
 * Captures (issue 4): the "beauty" map names, per native syscall nr, the user memory to
 * read (strings, buffers, structs, execve argv). tk_sys_enter reads it into the tid's
 * "capbuf" slot, tk_sys_exit reads what only exists after the call (and retries entry
 * reads that faulted), then emits ONE record: struct tk_syscall + caps header + caps, with
 * bpf_ringbuf_output of the used length from the slot. Calls without captures keep the
 * 112-byte record and do not touch capbuf.
 *
 * Summary (issue 5, targ_summary): where a record would be emitted, the call is counted
 * in the "summary" maps instead (per tid and syscall; programs/README.md).
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "syscalls.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Load-time knobs (.rodata), set by the loader before BPF_PROG_LOAD. */
const volatile __u32 targ_self_tgid = 0;       /* tracekit's own tgid: never traced */
const volatile bool targ_system_wide = false;  /* trace every task but targ_self_tgid */
const volatile bool targ_follow_forks = true;  /* children of traced threads join pids */
const volatile bool targ_filter_syscalls = false; /* only nrs with syscall_filter[nr] == 1 */
const volatile bool targ_failed_only = false;  /* only records with -4095 <= ret < 0 */
const volatile __u32 targ_status = TK_ST_ALL;  /* TK_ST_*: which outcomes are recorded */
const volatile bool targ_filter_errno = false; /* failed calls only with errno_filter[e] == 1 */
const volatile __u64 targ_signals = ~0ULL;     /* bit sig-1: signal deliveries recorded */
/* cgroup target (with targ_system_wide): only tasks whose cgroup v2 ancestor at
 * targ_cgroup_level is targ_cgroup_id, i.e. tasks in that cgroup or its descendants */
const volatile __u64 targ_cgroup_id = 0;
const volatile __u32 targ_cgroup_level = 0;
const volatile __u64 targ_min_duration_ns = 0; /* drop paired calls shorter than this */
const volatile bool targ_capture = true;       /* read user memory named by the beauty map */
const volatile bool targ_summary = false;      /* count calls in the summary maps (issue 5) */
const volatile bool targ_summary_records = false; /* with targ_summary: emit the syscall
						   * records too (tests compare both) */
const volatile bool targ_fd_state = false;     /* fd-table records (syscalls.h: the fd table) */
const volatile __u32 targ_stacks = 0;          /* TK_STACK_USER | TK_STACK_KERNEL (issue 18) */
/* the most bytes (records and their 8-byte ring headers) the ring buffer may hold for a
 * per-call record to be reserved; the rest of the ring is kept for the lifecycle records
 * (fork, exec, fd-exec, exit, signal), which a flood of calls must not crowd out.
 * 0: the whole ring (call_room()). */
const volatile __u64 targ_rb_call_room = 0;

#define TK_FILTER_MAX 1024
/* emit_syscall/emit_captured flags: not a record flag; wake the reader whatever it has
 * read (a stack record went out before this record without waking it: tk_stack_emit) */
#define TK_SC_WAKE (1U << 31)
/* not a record flag either: the call's stack record found no room in the ring buffer
 * (tk_stack_emit); the call's record counts it (TK_CNT_STACK_FULL) if it goes out itself,
 * so a call the ring buffer lost whole is counted once, as lost */
#define TK_SC_STACK_LOST (1U << 30)
#define TK_SC_NOT_FLAGS (TK_SC_WAKE | TK_SC_STACK_LOST)

/* Value of the "scratch" task storage: a syscall entry waiting for its exit (88 bytes).
 * A traced thread's entry lives from its first call (or its fork) to its exit and is
 * rewritten in place (sum_key and sum_slot1 are kept across calls). */
struct tk_scratch {
	__u64 ts_ns; /* bpf_ktime_get_ns() at entry; 0: no call in flight */
	__s32 nr;
	__u8 has_caps;   /* 1: capbuf[tid] holds this call's entry captures (entry_ts == ts_ns) */
	__u8 fork_child; /* 1: a traced thread's new child that has not yet returned from the
			  * clone/fork/vfork/clone3 it never entered (set at sched_process_fork) */
	__u8 traced;     /* 1: the task was found traced (pids entry without PENDING_EXEC, or
			  * system-wide): later entries skip the pids lookup */
	__u8 compat;     /* TK_SC_COMPAT or 0: the call in flight's task_compat_flag() */
	__u8 fd_only;    /* 1: not selected, entered only for its fd-table record */
	__u8 took_signal; /* 1: a fatal signal sent to this thread became its group's exit
			   * (tk_signal_generate): strace shows it taken here (dying_in_call) */
	__u64 args[6];
	/* summary mode: the summary slot this thread counted its last call in, and that
	 * slot's key (slots never move: a hit needs no summary_index lookup) */
	struct tk_sum_key sum_key;
	__u32 sum_slot1; /* slot + 1; 0: none yet */
};

/* Value of the "capbuf" map: one traced thread's captures, reused by each captured call
 * and kept until the thread exits (16320 bytes: with the hash element header it fits a
 * 16 KiB allocation). rec, caps_len, ncaps and data are the record as it goes out.
 *
 *   data: | tk_cap | bytes, 0-padded to 8 | tk_cap | ... |        slack         |
 *         0                                      caps_len <= TK_CAP_OFF_MAX    TK_CAPBUF_DATA
 * A capture starts only at caps_len <= TK_CAP_OFF_MAX, and writes at most TK_CAP_FOOT
 * bytes from there (header, a string read of cap + 2, padding), so every write is in
 * bounds whatever the spec says; tracekit/session/capture.py keeps each syscall's worst case
 * under the budget, so no capture is ever skipped for room. */
#define TK_CAPBUF_DATA 16184
#define TK_CAP_FOOT (8 + TK_STR_MAX + 8)
#define TK_CAP_OFF_MAX (TK_CAPBUF_DATA - TK_CAP_FOOT)

struct tk_capbuf {
	__u64 entry_ts; /* tk_scratch.ts_ns of the call these captures belong to */
	__u32 pending;  /* bit i: spec i is read at exit (TK_SPEC_AT_EXIT) */
	__u32 retry;    /* bit i: spec i faulted at entry: read again at exit */
	struct tk_syscall rec;
	__u32 caps_len;
	__u32 ncaps;
	__u8 data[TK_CAPBUF_DATA];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* bytes; the loader may override */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32); /* tid */
	__type(value, struct tk_pid_info);
} pids SEC(".maps");

/* Per-task storage (BPF_MAP_TYPE_TASK_STORAGE, kernel 5.11+): the value hangs off the
 * task_struct, so a lookup is a walk of the task's few storages (cached per map) instead
 * of a hash of the tid, it cannot fill up, it follows the task through a non-leader exec
 * (the exec'ing task_struct stays; only its tid changes) and it is freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tk_scratch);
} scratch SEC(".maps");

/* Some facts about the capbuf choice: a preallocated hash of 16 KiB values would pin
 * 16384 * 16 KiB; BPF_F_NO_PREALLOC allocates a slot when a thread makes its first
 * captured call and frees it when the thread exits (tk_proc_exit), so memory follows the
 * threads that make captured calls. Reusing the slot costs one lookup per captured call:
 * no allocation and no 16 KiB copy per call (a per-call insert would copy value_size
 * bytes from a staging buffer). Task storage would do the same (the loader passes BTF
 * ids now) but its values are limited to what kmalloc serves without a vmalloc. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32); /* tid */
	__type(value, struct tk_capbuf);
} capbuf SEC(".maps");

/* A zeroed value to insert capbuf slots from (never written). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tk_capbuf);
} capbuf_zero SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TK_FILTER_MAX);
	__type(key, __u32); /* syscall nr, native table */
	__type(value, struct tk_beauty);
} beauty SEC(".maps");

/* The same for 32-bit calls (TK_SC_COMPAT; x86_64 int $0x80), keyed by the i386 nr: only
 * captures whose layout does not depend on the ABI (tracekit/session/capture.py). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TK_FILTER_MAX);
	__type(key, __u32); /* syscall nr, i386 table */
	__type(value, struct tk_beauty);
} beauty32 SEC(".maps");

/* ioctl requests whose argument is a struct or int to capture: key the 32-bit request,
 * value size | TK_IOCTL_IN/OUT (tracekit/session/capture.py fills it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} ioctl_sizes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TK_CNT_MAX);
	__type(key, __u32);   /* enum tk_counter */
	__type(value, __u64); /* per CPU; userspace sums */
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * TK_FILTER_MAX);
	__type(key, __u32);  /* syscall nr, native table; TK_FILTER_MAX + nr: a 32-bit call's
			      * (x86_64: the i386 table), selected by name apart */
	__type(value, __u8); /* 1 = selected */
} syscall_filter SEC(".maps");

/* With targ_fd_state: native syscalls that change the fd table or the working directory
 * (tracekit/session/fdstate.py fills it): hidden by the selection, they are still
 * emitted as TK_REC_FD_STATE records. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TK_FILTER_MAX);
	__type(key, __u32);  /* syscall nr, native table */
	__type(value, __u8); /* 1 = tracked */
} fd_track SEC(".maps");

/* With targ_filter_errno: which errnos a failed call may have returned to be recorded. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TK_ERRNO_MAX + 1);
	__type(key, __u32);  /* positive errno 1..4095 */
	__type(value, __u8); /* 1 = selected */
} errno_filter SEC(".maps");

/* In-kernel summary (targ_summary): per-(tid, nr, compat) statistics in the slots of the
 * "summary" array, found by "summary_index" (key -> slot), and per-(tid, nr, compat,
 * errno) counts. The BPF side never deletes an entry and a slot keeps its key while its
 * thread lives, so a thread keeps its last slot in its scratch entry and a repeated call
 * costs an array lookup (inlined by the verifier) instead of a hash of the key. User
 * space reclaims the slots of exited threads (KernelSummary.reclaim: index key and errno
 * keys deleted, the counts folded into its own totals, the slot pushed on
 * "summary_free"); a new key takes a slot from summary_free first (zeroed here before
 * use), else the next never-used one from summary_next (an array value starts zeroed).
 * The array is preallocated (648 bytes a slot): it has one slot unless user space sizes
 * it for a summary (tracekit/session/kernel_summary.py, 32768 slots: 21 MB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tk_sum_stats);
} summary SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, struct tk_sum_key);
	__type(value, __u32); /* the slot in "summary" */
} summary_index SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32); /* the next free slot of "summary" */
} summary_next SEC(".maps");

/* Slots of "summary" user space reclaimed (their thread exited, their counts read): a
 * FIFO of slot numbers, sized as the array by user space (1 in the object). */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);
	__type(value, __u32);
} summary_free SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct tk_sum_errno_key);
	__type(value, __u64);
} summary_errno SEC(".maps");

/* Some facts about syscall numbers: exit and exit_group never reach sys_exit, so they
 * are recorded at entry; execve/execveat end the PENDING_EXEC wait. Numbers from
 * arch/x86/entry/syscalls/syscall_64.tbl, syscall_32.tbl and
 * include/uapi/asm-generic/unistd.h (arm64). */
#if defined(__TARGET_ARCH_x86)
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#define NR32_EXIT 1
#define NR32_EXIT_GROUP 252
#define NR32_EXECVE 11
#define NR32_EXECVEAT 358
#define NR_RT_SIGRETURN 15
/* rt_sigreturn: the user sp is &frame->uc (the restorer's ret popped pretcode); the mask
 * is uc.uc_sigmask at 296 (arch/x86/include/asm/sigframe.h struct rt_sigframe,
 * arch/x86/include/uapi/asm/ucontext.h via asm-generic: flags, link, stack_t, 256-byte
 * sigcontext) */
#define TK_SIGFRAME_MASK_OFF 296
#else
#define NR_EXIT 93
#define NR_EXIT_GROUP 94
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#define NR_RT_SIGRETURN 139
/* rt_sigreturn: sp is the frame (arch/arm64/kernel/signal.c struct rt_sigframe: 128-byte
 * siginfo, then ucontext, whose uc_sigmask is at 40: flags, link, stack_t) */
#define TK_SIGFRAME_MASK_OFF 168
#endif

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* TK_SC_COMPAT when the syscall of t (the current task) is a 32-bit one (x86_64: TS_COMPAT in
 * thread_info.status, still set at sys_exit). arm64 compat tasks are not flagged. */
static __always_inline __u32 task_compat_flag(struct task_struct *t)
{
#if defined(__TARGET_ARCH_x86)
	if (bpf_core_field_exists(t->thread_info.status) &&
	    (t->thread_info.status & TK_TS_COMPAT))
		return TK_SC_COMPAT;
#endif
	return 0;
}

static __always_inline bool is_exit_nr(long nr, __u32 compat)
{
#if defined(__TARGET_ARCH_x86)
	if (compat)
		return nr == NR32_EXIT || nr == NR32_EXIT_GROUP;
#endif
	return nr == NR_EXIT || nr == NR_EXIT_GROUP;
}

static __always_inline bool is_exec_nr(long nr, __u32 compat)
{
#if defined(__TARGET_ARCH_x86)
	if (compat)
		return nr == NR32_EXECVE || nr == NR32_EXECVEAT;
#endif
	return nr == NR_EXECVE || nr == NR_EXECVEAT;
}

/* The syscall number at sys_exit, which does not pass it: x86 orig_ax, arm64 syscallno
 * (both keep the number while the call runs). */
static __always_inline long regs_syscall_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)regs->orig_ax;
#else
	return regs->syscallno;
#endif
}

static __always_inline void regs_args(struct pt_regs *regs, __u64 *args)
{
#if defined(__TARGET_ARCH_x86)
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;
#else
	args[0] = regs->regs[0];
	args[1] = regs->regs[1];
	args[2] = regs->regs[2];
	args[3] = regs->regs[3];
	args[4] = regs->regs[4];
	args[5] = regs->regs[5];
#endif
}

/* The arguments of a 32-bit call (x86_64: int $0x80 or a 32-bit task's syscall): the
 * i386 argument registers bx, cx, dx, si, di, bp, each cut to its 32 bits as the ia32
 * syscall wrappers do (arch/x86/include/asm/syscall_wrapper.h); arm64 compat tasks are
 * not flagged (compat_flag), so never come here. */
static __always_inline void regs_args32(struct pt_regs *regs, __u64 *args)
{
#if defined(__TARGET_ARCH_x86)
	args[0] = (__u32)regs->bx;
	args[1] = (__u32)regs->cx;
	args[2] = (__u32)regs->dx;
	args[3] = (__u32)regs->si;
	args[4] = (__u32)regs->di;
	args[5] = (__u32)regs->bp;
#else
	regs_args(regs, args);
#endif
}

/* The arguments at sys_exit of a call whose entry was not seen: x86_64 keeps them in di
 * si dx r10 r8 r9 (bx .. bp for a 32-bit call) through the call; arm64 puts the return
 * value in regs[0], and orig_x0 keeps the first argument (arch/arm64/kernel/syscall.c). */
static __always_inline void regs_exit_args(struct pt_regs *regs, __u64 *args, __u32 compat)
{
	if (compat) {
		regs_args32(regs, args);
		return;
	}
	regs_args(regs, args);
#if defined(__TARGET_ARCH_arm64)
	args[0] = regs->orig_x0;
#endif
}

/* The capture specs of syscall nr: the "beauty" map's, or "beauty32"'s for a 32-bit call. */
static __always_inline const struct tk_beauty *beauty_of(__u32 nr, __u32 compat)
{
	if (compat)
		return bpf_map_lookup_elem(&beauty32, &nr);
	return bpf_map_lookup_elem(&beauty, &nr);
}

/* Whether the current thread, at sys_exit, will never get back to user space, killed the
 * way strace sees as a call that never returns (`<... pause resumed>) = ?`): SIGKILL is
 * in its own pending set (__fatal_signal_pending(), include/linux/sched/signal.h). Every
 * path that kills a group's threads in their calls queues it there: complete_signal's
 * group exit for a fatal signal (kernel/signal.c: SIGKILL, or any fatal signal sent to a
 * process that is not ptraced), zap_other_threads for another thread's exit_group or
 * execve (kernel/exit.c do_group_exit, fs/exec.c de_thread), zap_process for another
 * thread's core dump (fs/coredump.c). ptrace_stop (kernel/signal.c) never stops such a
 * thread at syscall exit, so strace prints no return for it. The call then stays in
 * flight and tk_proc_exit emits it TK_SC_UNFINISHED, instead of a return of -ERESTART*.
 * One exception, s->took_signal: the thread a fatal signal such as SIGTERM was sent to,
 * in a process that is not ptraced (tk_signal_generate marks it). The kernel turned the
 * signal into a group exit at once, this thread's SIGKILL included; strace's ptraced
 * tracee takes the signal itself in that thread, after its call returned (-ERESTART*,
 * or kill's 0), and only the other threads are killed in their calls. t: the current
 * task; s: its scratch entry, or NULL. One load on the common path (no SIGKILL). */
static __always_inline bool dying_in_call(struct task_struct *t, struct tk_scratch *s)
{
	if (!(t->pending.signal.sig[0] & (1UL << (9 /* SIGKILL */ - 1))))
		return false;
	return !s || !s->took_signal;
}

/* Whether the current thread, at sched_process_exit, is a thread group leader reaped by
 * another thread's execve; *exec_tid is that thread's tid (its tid before the exec, which
 * gives it the leader's). */
static __always_inline bool superseded_by_exec(struct task_struct *p, __u32 *exec_tid)
{
	struct signal_struct *sig = p->signal;
	struct task_struct *exec_task;

	if (!sig || p->pid != p->tgid || !bpf_core_field_exists(sig->group_exec_task))
		return false;
	exec_task = sig->group_exec_task;
	if (!exec_task || exec_task == p)
		return false;
	*exec_tid = exec_task->pid;
	return true;
}

/* Whether the current task is in the target cgroup or one of its descendants: its
 * cgroup v2 ancestor at the target's level is the target (kernel/bpf/helpers.c: level 0
 * is the root; a task in a shallower cgroup has no ancestor there and gets 0). */
static __always_inline bool in_cgroup(void)
{
	return bpf_get_current_ancestor_cgroup_id(targ_cgroup_level) == targ_cgroup_id;
}

/* bpf_get_current_pid_tgid()'s value for task t, the current task, without the helper call
 * (kernel/bpf/helpers.c: tgid << 32 | pid). */
static __always_inline __u64 task_pid_tgid(struct task_struct *t)
{
	return (__u64)(__u32)t->tgid << 32 | (__u32)t->pid;
}

/* Whether the current thread is traced; *info is its pids entry (NULL in system-wide
 * mode, where pids is not consulted). */
static __always_inline bool is_traced(__u32 tid, __u32 tgid, struct tk_pid_info **info)
{
	*info = NULL;
	if (tgid == targ_self_tgid)
		return false;
	if (targ_system_wide)
		return !targ_cgroup_id || in_cgroup();
	*info = bpf_map_lookup_elem(&pids, &tid);
	return *info != NULL;
}

/* Some facts about start times: a pids entry's start_time_ns is task->start_boottime when
 * BPF inserted it (fork, exec) and /proc/<tid>/stat field 22 in ns, floored to the clock
 * tick (USER_HZ = 100 on x86_64 and arm64: 10 ms), when user space did; 0 when unknown.
 * Whether entry info was made for task t (not for an earlier task with its tid). */
#define TK_USER_TICK_NS 10000000ULL

static __always_inline bool start_owned(const struct tk_pid_info *info, struct task_struct *t)
{
	__u64 start = t->start_boottime;

	return info->start_time_ns && start >= info->start_time_ns &&
	       start - info->start_time_ns < TK_USER_TICK_NS;
}

static __always_inline bool nr_selected(long nr, bool compat)
{
	__u32 key;
	__u8 *sel;

	if (!targ_filter_syscalls)
		return true;
	if (nr < 0 || nr >= TK_FILTER_MAX)
		return false;
	key = compat ? TK_FILTER_MAX + nr : nr;
	sel = bpf_map_lookup_elem(&syscall_filter, &key);
	return sel && *sel == 1;
}

/* Status and errno selection of a call that returned ret (strace -e status=, -e errno=):
 * a failed call (-4095..-1) needs TK_ST_FAILED and, with targ_filter_errno, its errno in
 * errno_filter; any other return needs TK_ST_SUCCESSFUL. */
static __always_inline bool status_selected(long ret)
{
	__u32 err;
	__u8 *sel;

	if (ret < -TK_ERRNO_MAX || ret >= 0)
		return targ_status & TK_ST_SUCCESSFUL;
	if (!(targ_status & TK_ST_FAILED))
		return false;
	if (!targ_filter_errno)
		return true;
	err = -ret;
	sel = bpf_map_lookup_elem(&errno_filter, &err);
	return sel && *sel == 1;
}

/* Whether calls that never return (exit, exit_group, a task that died in the call) are
 * recorded: strace's status=unfinished. */
static __always_inline bool unfinished_selected(void)
{
	return !targ_failed_only && (targ_status & TK_ST_UNFINISHED);
}

static __always_inline bool ret_selected(long ret)
{
	return (!targ_failed_only || (ret >= -4095 && ret < 0)) && status_selected(ret);
}

/* Whether syscall records go to the ring buffer: always, unless summary mode is on
 * without targ_summary_records. */
static __always_inline bool records_on(void)
{
	return !targ_summary || targ_summary_records;
}

/* Whether a per-call record of size bytes may be reserved: the ring buffer's unread
 * bytes (BPF_RB_AVAIL_DATA: producer minus consumer position, kernel/bpf/ringbuf.c)
 * plus it and its header stay within targ_rb_call_room. The caller counts a refusal as
 * a failed reservation (rule 8). Only on the record-emitting path: one helper call.
 * Writers on other CPUs can pass the test together: the headroom absorbs them. */
static __always_inline bool call_room(__u64 size)
{
	if (!targ_rb_call_room)
		return true;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + size + BPF_RINGBUF_HDR_SZ <=
	       targ_rb_call_room;
}

/* -- in-kernel summary --------------------------------------------------------------- */

enum sum_what {
	SUM_TIMED,      /* entry and exit seen: duration known */
	SUM_NORETURN,   /* exit/exit_group, at entry */
	SUM_UNFINISHED, /* the task died inside the call */
	SUM_RESUMED,    /* exit seen, entry not */
};

/* Python's int.bit_length(d), at most 63 (a duration of 2^63 ns is 292 years). */
static __always_inline __u32 log2_bucket(__u64 d)
{
	__u32 k = 0;

	if (d >> 32) {
		d >>= 32;
		k += 32;
	}
	if (d >> 16) {
		d >>= 16;
		k += 16;
	}
	if (d >> 8) {
		d >>= 8;
		k += 8;
	}
	if (d >> 4) {
		d >>= 4;
		k += 4;
	}
	if (d >> 2) {
		d >>= 2;
		k += 2;
	}
	if (d >> 1) {
		d >>= 1;
		k += 1;
	}
	k += d; /* d is 0 or 1 now */
	return k < TK_HIST_BUCKETS ? k : TK_HIST_BUCKETS - 1;
}

/* sum_sq += d * d as a 128-bit integer (hi:lo), exactly: d = a * 2^32 + b gives
 * d^2 = a^2 * 2^64 + ab * 2^33 + b^2 with each product < 2^64. */
static __always_inline void add_square(struct tk_sum_stats *v, __u64 d)
{
	__u64 a = d >> 32, b = d & 0xffffffffULL, lo, hi = 0, p;

	lo = b * b;
	if (a) {
		p = a * b;
		hi = a * a + (p >> 31);
		p <<= 33;
		lo += p;
		hi += lo < p; /* carry */
	}
	v->sum_sq_lo += lo;
	v->sum_sq_hi += hi + (v->sum_sq_lo < lo);
}

static __always_inline void sum_errno(const struct tk_sum_key *k, __u32 err)
{
	struct tk_sum_errno_key ek = { .tid = k->tid, .nr = k->nr, .compat = k->compat,
				       .err = err };
	__u64 one = 1, *n;

	n = bpf_map_lookup_elem(&summary_errno, &ek);
	if (n)
		*n += 1; /* only this thread writes keys with its tid */
	else if (bpf_map_update_elem(&summary_errno, &ek, &one, BPF_NOEXIST))
		count(TK_CNT_ERRNO_FULL);
}

/* The summary slot of key: sp's cached one when its key is key, else summary_index's, else
 * a reclaimed one from summary_free (zeroed here), else a never-used one (then cached in
 * sp when there is one). NULL: the array or the index is full (the slot counter is read
 * before it is taken, so a full array stops it moving). */
static __always_inline struct tk_sum_stats *sum_slot(struct tk_scratch *sp,
						    const struct tk_sum_key *key)
{
	__u32 zero = 0, slot, *idx, *next;
	struct tk_sum_stats *v;

	if (sp && sp->sum_slot1 && sp->sum_key.tid == key->tid && sp->sum_key.nr == key->nr &&
	    sp->sum_key.compat == key->compat) {
		slot = sp->sum_slot1 - 1;
		return bpf_map_lookup_elem(&summary, &slot);
	}
	idx = bpf_map_lookup_elem(&summary_index, key);
	if (idx) {
		slot = *idx;
	} else if (!bpf_map_pop_elem(&summary_free, &slot)) {
		/* a reclaimed slot: no thread writes it (its thread exited, its index key is
		 * gone) and user space has read it; it starts again from zero */
		v = bpf_map_lookup_elem(&summary, &slot);
		if (!v)
			return NULL;
		__builtin_memset(v, 0, sizeof(*v));
		if (bpf_map_update_elem(&summary_index, key, &slot, BPF_NOEXIST)) {
			bpf_map_push_elem(&summary_free, &slot, 0); /* kept for the next key */
			return NULL;
		}
	} else {
		next = bpf_map_lookup_elem(&summary_next, &zero);
		if (!next)
			return NULL;
		slot = *next;
		if (!bpf_map_lookup_elem(&summary, &slot))
			return NULL;
		slot = __sync_fetch_and_add(next, 1);
		if (!bpf_map_lookup_elem(&summary, &slot))
			return NULL; /* taken by other CPUs meanwhile up to the last one */
		if (bpf_map_update_elem(&summary_index, key, &slot, BPF_NOEXIST))
			return NULL; /* no memory for the index entry: the slot stays unused */
	}
	if (sp) {
		sp->sum_key = *key;
		sp->sum_slot1 = slot + 1;
	}
	return bpf_map_lookup_elem(&summary, &slot);
}

/* Count one call of syscall nr by the current thread t (sp: its scratch entry, or NULL).
 * ts_ns: entry time (SUM_TIMED); now: exit time (SUM_TIMED), else the time of this
 * update. */
static __always_inline void sum_add(struct tk_scratch *sp, struct task_struct *t,
				    __u64 pid_tgid, long nr, __u32 compat, enum sum_what what,
				    long ret, __u64 ts_ns, __u64 now)
{
	struct tk_sum_key key = { .tid = (__u32)pid_tgid, .nr = nr, .compat = compat ? 1 : 0 };
	struct tk_sum_stats *v;
	const __u64 *c;
	__u64 *w;
	__u64 d;

	v = sum_slot(sp, &key);
	if (!v) {
		count(TK_CNT_SUMMARY_FULL);
		return;
	}
	v->tgid = pid_tgid >> 32;
	v->update_ns = now;
	/* the comm as bpf_get_current_comm() gives it, in two loads instead of a helper
	 * call (task->comm is TASK_COMM_LEN bytes, NUL-padded by __set_task_comm) */
	c = (const __u64 *)t->comm;
	w = (__u64 *)v->comm;
	w[0] = c[0];
	w[1] = c[1];
	v->calls += 1;
	if (what == SUM_NORETURN) {
		v->noreturn += 1;
		return;
	}
	if (what == SUM_UNFINISHED) {
		v->unfinished += 1;
		return;
	}
	if (ret >= -4095 && ret < 0) {
		v->errors += 1;
		sum_errno(&key, -ret);
	}
	if (what == SUM_RESUMED) {
		v->resumed += 1;
		return;
	}
	d = now - ts_ns;
	if (v->timed) {
		if (d < v->min_ns)
			v->min_ns = d;
		if (d > v->max_ns)
			v->max_ns = d;
	} else {
		v->min_ns = d;
		v->max_ns = d;
		v->first_ts_ns = ts_ns;
	}
	v->timed += 1;
	v->total_ns += d;
	add_square(v, d);
	v->hist[log2_bucket(d)] += 1;
	v->last_ts_ns = now;
}

/* Reserve, fill and submit one struct tk_syscall; args NULL means unknown (zeros). */
static __always_inline void emit_syscall(__u32 flags, __u64 ts_ns, __u64 duration_ns,
					 __u64 pid_tgid, long nr, const __u64 *args, long ret)
{
	struct tk_syscall *r;
	int i;

	r = call_room(sizeof(*r)) ? bpf_ringbuf_reserve(&events, sizeof(*r), 0) : NULL;
	if (!r) {
		count(TK_CNT_LOST);
		return;
	}
	r->hdr.kind = TK_REC_SYSCALL;
	r->hdr.flags = flags & ~TK_SC_NOT_FLAGS;
	r->hdr.ts_ns = ts_ns;
	r->duration_ns = duration_ns;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->cpu = bpf_get_smp_processor_id();
	r->syscall_nr = nr;
	for (i = 0; i < 6; i++)
		r->args[i] = args ? args[i] : 0;
	r->ret = ret;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, (flags & TK_SC_WAKE) ? BPF_RB_FORCE_WAKEUP : 0);
	if (flags & TK_SC_STACK_LOST)
		count(TK_CNT_STACK_FULL);
}

/* -- captures ------------------------------------------------------------------------ */

/* Some facts about the verifier and this code: everything below that reads user memory
 * is in GLOBAL functions (non-static, noinline, in .text). The verifier checks a global
 * function once, on its own, knowing only its argument types (a pointer argument is
 * memory of its BTF type's size, maybe NULL), and a call to it costs the caller one
 * instruction; a static or inlined function is walked again in every caller state. The
 * capture code inlined into the spec loop cost tk_sys_enter 219,206 processed
 * instructions; out of line it is a few thousand in all (bench/load_cost.py). */

/* Write the capture header at off, zero the padding after len bytes of data and
 * advance c->caps_len; hdr as CAP_HDR. off <= TK_CAP_OFF_MAX, len <= TK_STR_MAX
 * (clamped). Global: its callers then do no arithmetic on pointers with their lengths,
 * so the verifier need not track those lengths precisely (see tk_cap_argv). */
__noinline int tk_cap_commit(struct tk_capbuf *c, __u32 off, __u32 hdr, __u32 len)
{
	struct tk_cap *h;
	__u64 *w;
	__u32 tail;

	if (!c || off > TK_CAP_OFF_MAX)
		return 0;
	if (len > TK_STR_MAX)
		len = TK_STR_MAX;
	h = (struct tk_cap *)(c->data + off);
	h->arg = hdr;
	h->kind = hdr >> 8;
	h->flags = hdr >> 16;
	h->len = len;
	tail = len & 7;
	if (tail) {
		/* little-endian: the low bytes of the last word are data, the rest is padding */
		w = (__u64 *)(c->data + off + sizeof(*h) + (len & ~7U));
		*w &= (1ULL << (tail * 8)) - 1;
	}
	c->caps_len = off + sizeof(*h) + ((len + 7) & ~7U);
	c->ncaps += 1;
	return 0;
}

/* Each capture function appends one capture at c->caps_len (nothing when caps_len is
 * past TK_CAP_OFF_MAX) and returns 0, or -1 when the user memory could not be read
 * (nothing appended). hdr packs the capture header: arg | kind << 8 | flags << 16
 * (flags: extra TK_CAPF_* bits, e.g. AT_EXIT for a retried entry read). */
#define CAP_HDR(arg, kind, flags) ((__u32)(arg) | (__u32)(kind) << 8 | (__u32)(flags) << 16)

/* A capture without data (flags carries TK_CAPF_FAULT). */
__noinline int tk_cap_fault(struct tk_capbuf *c, __u32 hdr)
{
	if (!c)
		return 0;
	tk_cap_commit(c, c->caps_len, hdr, 0);
	return 0;
}

/* TK_CAP_STR: bpf_probe_read_user_str of cap + 2 bytes: a result of cap + 2 means more
 * than cap characters (TRUNC, cap kept); cap <= TK_STR_MAX (clamped). */
__noinline int tk_cap_str(struct tk_capbuf *c, __u64 src, __u32 cap, __u32 hdr)
{
	__u16 flags = hdr >> 16;
	__u32 off, len;
	long r;

	if (!c)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	if (cap > TK_STR_MAX)
		cap = TK_STR_MAX;
	/* cap + 2 tells "exactly cap characters" (r == cap + 1) from "more" */
	r = bpf_probe_read_user_str(c->data + off + sizeof(struct tk_cap), cap + 2,
				    (const void *)src);
	if (r < 0)
		return -1;
	if (r >= cap + 2) {
		len = cap;
		flags |= TK_CAPF_TRUNC;
	} else {
		len = r > 0 ? r - 1 : 0;
	}
	tk_cap_commit(c, off, (hdr & 0xffff) | (__u32)flags << 16, len);
	return 0;
}

#define TK_PAGE_4K 4096U /* the smallest page: a read within one is read whole or not at all */

/* TK_CAP_BUF / TK_CAP_STRUCT: min(want, cap) bytes, TRUNC when want > cap;
 * cap <= TK_BUF_MAX (clamped). With TK_CAPF_PARTIAL in hdr's flags (a read at exit: an
 * entry read that faulted is read again at exit, where the call has faulted its pages
 * in), a read that faults keeps the bytes up to the end of the page src is in, when
 * fewer, as a FAULT|PARTIAL capture (syscalls.h): len <= TK_BUF_MAX spans two pages at
 * most, so they are all that is readable when the first page is. The read that
 * succeeds costs nothing more. */
__noinline int tk_cap_mem(struct tk_capbuf *c, __u64 src, __u64 want, __u32 cap, __u32 hdr)
{
	__u16 flags = (hdr >> 16) & ~TK_CAPF_PARTIAL;
	__u32 off, len, part;

	if (!c)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	if (cap > TK_BUF_MAX)
		cap = TK_BUF_MAX;
	if (want > cap) {
		len = cap;
		flags |= TK_CAPF_TRUNC;
	} else {
		len = want;
	}
	if (len > TK_BUF_MAX)
		len = TK_BUF_MAX;
	if (len && bpf_probe_read_user(c->data + off + sizeof(struct tk_cap), len,
				       (const void *)src)) {
		part = TK_PAGE_4K - (__u32)(src & (TK_PAGE_4K - 1));
		if (!(hdr >> 16 & TK_CAPF_PARTIAL) || part >= len)
			return -1;
		part &= TK_BUF_MAX - 1; /* part < len <= TK_BUF_MAX: a no-op for the verifier */
		if (!part || bpf_probe_read_user(c->data + off + sizeof(struct tk_cap), part,
						 (const void *)src))
			return -1;
		len = part;
		flags |= TK_CAPF_FAULT | TK_CAPF_PARTIAL;
	}
	tk_cap_commit(c, off, (hdr & 0xffff) | (__u32)flags << 16, len);
	return 0;
}

/* The argv loop carries its state in one scalar, the return value of tk_cap_argv_step:
 * used bytes | TK_CAPF_* flags | "an element was cut" | "stop". The verifier knows
 * nothing of a global function's return value, so it keeps one state per element
 * instead of one per path through all the elements before it (with the state in
 * registers, tk_cap_argv alone cost 45,002 processed instructions; now ~600). */
#define ARGV_USED   0xffffU     /* bytes written so far */
#define ARGV_FLAGS_SHIFT 16     /* TK_CAPF_* bits << 16 */
#define ARGV_CUT    (1U << 24)  /* the last element was cut: any further one is ARGV_TRUNC */
#define ARGV_STOP   (1U << 25)  /* done */
#define ARGV_ERR    (1U << 26)  /* the array itself is unreadable: no capture */

/* Element i of the argv array at src, into the capture whose header is at c->caps_len.
 * lims = total | ecap << 16 (already clamped). Returns the new state (see ARGV_*). */
__noinline int tk_cap_argv_step(struct tk_capbuf *c, __u64 src, __u32 i, __u32 st, __u32 lims)
{
	const char *const *argv = (const char *const *)src;
	__u32 off, used = st & ARGV_USED, flags = 0, total = lims & 0xffff, ecap = lims >> 16;
	__u32 lim;
	const char *p;
	long r;

	if (!c)
		return st | ARGV_ERR | ARGV_STOP;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || i > TK_ARGV_N)
		return st | ARGV_STOP;
	if (bpf_probe_read_user(&p, sizeof(p), &argv[i])) {
		if (i == 0)
			return st | ARGV_ERR | ARGV_STOP;
		flags = TK_CAPF_FAULT | TK_CAPF_ARGV_TRUNC;
		return st | flags << ARGV_FLAGS_SHIFT | ARGV_STOP;
	}
	if (!p)
		return st | ARGV_STOP;
	/* the (TK_ARGV_N + 1)th pointer is only looked at */
	if ((st & ARGV_CUT) || i == TK_ARGV_N || used >= total || used > TK_ARGV_MAX - 1)
		return st | TK_CAPF_ARGV_TRUNC << ARGV_FLAGS_SHIFT | ARGV_STOP;
	lim = total - used - 1; /* room for the characters, one byte kept for the NUL */
	if (lim > ecap)
		lim = ecap;
	if (lim > TK_ARGV_ELEM_MAX)
		lim = TK_ARGV_ELEM_MAX;
	/* lim + 2 tells "exactly lim characters" (r == lim + 1) from "more" (r == lim + 2) */
	r = bpf_probe_read_user_str(c->data + off + sizeof(struct tk_cap) + used, lim + 2, p);
	if (r < 0)
		return st | (TK_CAPF_FAULT | TK_CAPF_ARGV_TRUNC) << ARGV_FLAGS_SHIFT | ARGV_STOP;
	if (r >= lim + 2)
		return (st & ~ARGV_USED) | (used + lim) | ARGV_CUT |
		       TK_CAPF_TRUNC << ARGV_FLAGS_SHIFT;
	return (st & ~ARGV_USED) | (used + r);
}

/* The end of an ARGV or ENVP capture with walk state st: -1 on an error, or for an
 * element not yet faulted in at entry (the whole array is read again at exit); else the
 * capture committed with the walk's flags. */
static __always_inline int argv_commit(struct tk_capbuf *c, __u32 st, __u32 hdr)
{
	if (st & ARGV_ERR)
		return -1;
	if ((st >> ARGV_FLAGS_SHIFT & TK_CAPF_FAULT) && !(hdr >> 16 & TK_CAPF_AT_EXIT))
		return -1;
	return tk_cap_commit(c, c->caps_len,
			     (hdr & 0xffff) | ((hdr >> 16) | (st >> ARGV_FLAGS_SHIFT & 0xff)) << 16,
			     st & ARGV_USED);
}

/* TK_CAP_ARGV: the NULL-terminated pointer array at src: up to TK_ARGV_N elements, each
 * NUL-terminated, each at most ecap characters, all at most total bytes; a cut element
 * (longer than its cap or than the room left) ends the data without its NUL (TRUNC); a
 * further pointer sets ARGV_TRUNC; an unreadable element sets FAULT|ARGV_TRUNC after the
 * data read so far (at exit; at entry, hdr without AT_EXIT, it is -1 as for an
 * unreadable array, to be read again at exit). */
__noinline int tk_cap_argv(struct tk_capbuf *c, __u64 src, __u32 total, __u32 ecap, __u32 hdr)
{
	__u32 st = 0, i;

	if (!c)
		return 0;
	if (total > TK_ARGV_MAX)
		total = TK_ARGV_MAX;
	if (ecap > TK_ARGV_ELEM_MAX)
		ecap = TK_ARGV_ELEM_MAX;
	for (i = 0; i <= TK_ARGV_N; i++) {
		st = tk_cap_argv_step(c, src, i, st, total | ecap << 16);
		if (st & ARGV_STOP)
			break;
	}
	return argv_commit(c, st, hdr);
}

/* -- execve's environment strings (strace -v) ---------------------------------------- */

/* TK_CAP_ENVP: the NULL-terminated envp array at src read as TK_CAP_ARGV reads argv
 * (same data, same byte bound total, same flags), but up to TK_ENVP_N elements instead
 * of TK_ARGV_N, and an element longer than ecap does not end the data: it is kept as
 * its first ecap + 1 characters and its NUL (what bpf_probe_read_user_str left), so the
 * decoder, which prints at most ecap - 1 of them (strace -s), still sees it was longer;
 * only an element cut by the room left ends the data (TRUNC). Element k > 0 is read by
 * tk_cap_argv_step as element 1 of the array that starts one word before it, so argv's
 * element bound never applies; the (TK_ENVP_N + 1)th pointer is only looked at. Only
 * a beauty map filled for strace -v names it (tracekit/session/capture.py), so other
 * traces never run it. */
#define TK_ENVP_CHUNK 4 /* elements per call of tk_cap_envp_chunk */

/* Elements first .. first + TK_ENVP_CHUNK - 1 of TK_CAP_ENVP (state and lims as
 * tk_cap_argv_step's). Global, so the verifier walks these steps once, and the
 * caller's loop only TK_ENVP_N / TK_ENVP_CHUNK calls: 256 steps walked in one function
 * cost each program that captures ~21,000 processed instructions and ~35 ms of load
 * time; in chunks of 4 they cost ~1,500 (bench/load_cost.py). */
__noinline int tk_cap_envp_chunk(struct tk_capbuf *c, __u64 src, __u32 first, __u32 st,
				 __u32 lims)
{
	__u32 j, i, prev, total = lims & 0xffff, ecap = lims >> 16;

	if (!c)
		return st | ARGV_ERR | ARGV_STOP;
	for (j = 0; j < TK_ENVP_CHUNK; j++) {
		i = first + j;
		prev = st & ARGV_USED;
		st = tk_cap_argv_step(c, i ? src + (__u64)(i - 1) * 8 : src, i ? 1 : 0, st, lims);
		if (st & ARGV_STOP)
			break;
		/* cut at ecap with room for the character after it and the NUL: go on */
		if ((st & ARGV_CUT) && (st & ARGV_USED) == prev + ecap && prev + ecap + 2 <= total)
			st = (st & ~(ARGV_USED | ARGV_CUT | TK_CAPF_TRUNC << ARGV_FLAGS_SHIFT)) |
			     (prev + ecap + 2);
	}
	return st;
}

__noinline int tk_cap_envp(struct tk_capbuf *c, __u64 src, __u32 total, __u32 ecap, __u32 hdr)
{
	__u32 st = 0, k;
	__u64 p;

	if (!c)
		return 0;
	if (total > TK_ARGV_MAX)
		total = TK_ARGV_MAX;
	if (ecap > TK_ARGV_ELEM_MAX)
		ecap = TK_ARGV_ELEM_MAX;
	for (k = 0; k < TK_ENVP_N / TK_ENVP_CHUNK; k++) {
		st = tk_cap_envp_chunk(c, src, k * TK_ENVP_CHUNK, st, total | ecap << 16);
		if (st & ARGV_STOP)
			break;
	}
	if (!(st & ARGV_STOP) &&
	    (bpf_probe_read_user(&p, sizeof(p), (const void *)(src + TK_ENVP_N * 8)) || p))
		st |= TK_CAPF_ARGV_TRUNC << ARGV_FLAGS_SHIFT;
	return argv_commit(c, st, hdr);
}

/* A successful execve's envp strings whose entry read faulted: the new image's envp, a
 * copy of the caller's, after argc and argv's pointers on the new stack at user_sp (see
 * tk_cap_new_envp; an interpreter rewrites argv, never envp). */
__noinline int tk_cap_new_envp_strings(struct tk_capbuf *c, __u64 user_sp, __u32 total,
				       __u32 ecap, __u32 hdr)
{
	__u64 argc;

	if (!c || !user_sp || bpf_probe_read_user(&argc, sizeof(argc), (const void *)user_sp))
		return -1;
	if (argc >= (1U << 24)) /* a 32-bit image's packed words (TK_NEW_ARGC_MAX) */
		return -1;
	return tk_cap_envp(c, user_sp + (argc + 2) * 8, total, ecap, hdr);
}

/* -- I/O and socket captures: lengths that depend on the request or user memory, and
 * iovec arrays read two levels deep ------------------------------------------------- */

/* The length of a BUF/STRUCT capture after the TK_SPEC_IOCTL/FDSET/LEN_PTR rules and the
 * element size (see programs/syscalls.h); want is the plain length from len_arg. Returns
 * -1 when there is nothing to capture (an ioctl request not in ioctl_sizes or of the
 * other direction, a failed call's output, an unreadable length). */
__noinline long tk_spec_len(const struct tk_beauty_spec *sp, const struct tk_scratch *s,
			    long ret, __u64 want)
{
	__u32 key, *v, n = 0;
	__u8 la, fl;

	if (!sp || !s)
		return -1;
	la = sp->len_arg;
	fl = sp->flags;
	if (fl & TK_SPEC_IOCTL) {
		if (la > 5)
			return -1;
		key = (__u32)s->args[la];
		v = bpf_map_lookup_elem(&ioctl_sizes, &key);
		if (!v)
			return -1;
		if (fl & TK_SPEC_AT_EXIT) {
			if (!(*v & TK_IOCTL_OUT) || ret < 0)
				return -1;
		} else if (!(*v & TK_IOCTL_IN)) {
			return -1;
		}
		return *v & 0xffff;
	}
	if (fl & TK_SPEC_LEN_PTR) {
		if (la > 5 || bpf_probe_read_user(&n, sizeof(n), (const void *)s->args[la]))
			return -1;
		if ((fl & TK_SPEC_AT_EXIT) && ret < 0)
			return -1;
		return (int)n < 0 ? 0 : n;
	}
	if (fl & TK_SPEC_FDSET)
		return ((want & 0xffffffffU) + 63) / 64 * 8;
	if (la != TK_LEN_NONE && sp->size)
		return (want & 0xffffffffU) * sp->size;
	return want;
}

/* TK_SPEC_DEREF: the struct of size bytes (8..64) at src, then up to cap - size bytes
 * (at most 128) at the pointer in its first word, when that is not NULL and readable;
 * the capture holds both. -1: the struct is unreadable. */
__noinline int tk_cap_deref(struct tk_capbuf *c, __u64 src, __u32 size, __u32 cap, __u32 hdr)
{
	__u32 off, more;
	__u64 p;

	if (!c)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || size < 8)
		return 0;
	if (size > 64)
		size = 64;
	more = cap > size ? cap - size : 0;
	asm volatile("" : "+r"(more));
	if (more > 128)
		more = 128;
	if (bpf_probe_read_user(c->data + off + sizeof(struct tk_cap), size, (const void *)src))
		return -1;
	p = *(__u64 *)(c->data + off + sizeof(struct tk_cap));
	if (p && more && !bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + size, more,
					      (const void *)p))
		size += more;
	return tk_cap_commit(c, off, hdr, size);
}

/* The iovec loop keeps its state in one scalar (as the argv loop): data position | bytes
 * of data still allowed << 13 | IOV_STOP | IOV_ERR. Positions and budgets are at most
 * TK_BUF_MAX (13 bits). An element starts at pos <= IOV_POS_MAX and brings at most
 * TK_IOV_ELEM_MAX bytes, or, starting at pos <= IOV_POS_BIG (the first element after a
 * msghdr's header and blobs), up to TK_IOV_ELEM_BIG (a netlink dump's reply of a few KiB
 * in recvmsg's one iovec), so every write stays within TK_CAP_FOOT of the capture. */
#define IOV_POS_MASK 0x1fffU
#define IOV_REM_SHIFT 13
#define IOV_STOP (1U << 30)
#define IOV_ERR  (1U << 29)
#define IOV_EFAULT (1U << 28)  /* an element after the first was unreadable */
#define IOV_DFAULT (1U << 27)  /* an element's data was unreadable */
/* in tk_cap_iov's hdr (above the u16 flags it commits): an entry read, which a data
 * fault turns into a retry at exit (memory not yet faulted in: a string literal's page
 * that writev's own copy will fault in) */
#define IOV_HDR_RETRY (1U << 31)
/* in tk_cap_iov's hdr: the array is a msghdr's msg_iov, whose header is committed when
 * the array cannot be read (TK_CAPF_ELEM_FAULT, no element) */
#define IOV_HDR_MSG (1U << 30)
#define TK_IOV_ELEM_MAX 1024
#define IOV_POS_MAX (TK_BUF_MAX - sizeof(struct tk_iov_elem) - TK_IOV_ELEM_MAX)
#define IOV_POS_BIG 512     /* 2 * TK_MSG_POS_MAX: past a msghdr's header and blobs */
#define TK_IOV_ELEM_BIG (TK_BUF_MAX - sizeof(struct tk_iov_elem) - IOV_POS_BIG)

/* Element i of the iovec array at src: its record and up to min(iov_len, ecap, budget)
 * bytes of iov_base, at the state's position. ecap | IOV_ELEM32: the array holds i386
 * iovecs (struct compat_iovec: u32 base, u32 len), widened into the record. */
#define IOV_ELEM32 (1U << 16)

__noinline int tk_cap_iov_step(struct tk_capbuf *c, __u64 src, __u32 i, __u32 st, __u32 ecap)
{
	struct tk_iov_elem *e;
	__u64 v[2];
	__u32 v32[2];
	__u32 off, pos = st & IOV_POS_MASK, rem = (st >> IOV_REM_SHIFT) & IOV_POS_MASK, got, part;

	if (!c)
		return st | IOV_STOP | IOV_ERR;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || pos > IOV_POS_MAX || i >= TK_IOV_N)
		return st | IOV_STOP;
	if (ecap & IOV_ELEM32) {
		ecap &= ~IOV_ELEM32;
		if (bpf_probe_read_user(v32, sizeof(v32),
					(const void *)(src + (__u64)i * sizeof(v32))))
			return st | IOV_STOP | (i == 0 ? IOV_ERR : IOV_EFAULT);
		v[0] = v32[0];
		v[1] = v32[1];
	} else if (bpf_probe_read_user(v, sizeof(v), (const void *)(src + (__u64)i * sizeof(v)))) {
		return st | IOV_STOP | (i == 0 ? IOV_ERR : IOV_EFAULT);
	}
	e = (struct tk_iov_elem *)(c->data + off + sizeof(struct tk_cap) + pos);
	e->base = v[0];
	e->len = v[1];
	e->flags = 0;
	got = v[1] < rem ? v[1] : rem;
	if (got > ecap)
		got = ecap;
	/* two bounds, each checked on its own path by the verifier; the data's address is
	 * made from pos after them (the barrier), within the bound of its path, not from e */
	if (pos <= IOV_POS_BIG) {
		if (got > TK_IOV_ELEM_BIG)
			got = TK_IOV_ELEM_BIG;
	} else if (got > TK_IOV_ELEM_MAX) {
		got = TK_IOV_ELEM_MAX;
	}
	asm volatile("" : "+r"(pos));
	/* the word the data ends in is zeroed first: its bytes after the data are padding */
	*(__u64 *)(c->data + off + sizeof(struct tk_cap) + pos + sizeof(*e) + (got & ~7U)) = 0;
	if (got && bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + pos + sizeof(*e),
				       got, (const void *)v[0])) {
		/* what is readable of it: the bytes up to the end of the page iov_base is in,
		 * when fewer (an element cut by the end of its mapping, of which strace reads
		 * only -s + 1 bytes); the failed read zeroed the bytes after them */
		part = TK_PAGE_4K - (__u32)(v[0] & (TK_PAGE_4K - 1));
		if (part > TK_IOV_ELEM_BIG)
			part = TK_IOV_ELEM_BIG;
		asm volatile("" : "+r"(part));
		if (part < got && part <= TK_IOV_ELEM_BIG &&
		    !bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + pos + sizeof(*e),
					 part, (const void *)v[0])) {
			got = part;
			e->flags = TK_CAPF_FAULT | TK_CAPF_PARTIAL;
		} else {
			got = 0;
			e->flags = TK_CAPF_FAULT;
		}
		st |= IOV_DFAULT;
	}
	e->got = got;
	pos += sizeof(*e) + ((got + 7) & ~7U);
	return (pos & IOV_POS_MASK) | (rem - got) << IOV_REM_SHIFT | (st & IOV_DFAULT);
}

/* The iovec array at src of cnt elements, its records from data position pos (after
 * what tk_cap_msghdr put first), then the capture's header. lims = budget | ecap / 2
 * (rounded up: 11 bits hold up to TK_IOV_ELEM_BIG) << 13 |
 * pos / 8 << 24 (IOV_LIMS), | IOV_LIMS32 for an array of i386 iovecs. -1: the array is
 * unreadable. */
#define IOV_LIMS(budget, ecap, pos) ((budget) | (((ecap) + 1) / 2) << 13 | ((pos) / 8) << 24)
#define IOV_LIMS32 (1U << 31)

__noinline int tk_cap_iov(struct tk_capbuf *c, __u64 src, __u64 cnt, __u32 lims, __u32 hdr)
{
	__u32 st, i, flags = (hdr >> 16) & 0x3fff, budget = lims & IOV_POS_MASK;
	__u32 ecap = ((lims >> 13) & 0x7ff) * 2, pos = ((lims >> 24) & 0x7f) * 8;

	if (!c)
		return 0;
	if (budget > TK_BUF_MAX)
		budget = TK_BUF_MAX;
	st = (pos & IOV_POS_MASK) | budget << IOV_REM_SHIFT;
	for (i = 0; i < TK_IOV_N && i < cnt; i++) {
		st = tk_cap_iov_step(c, src, i, st, ecap | (lims & IOV_LIMS32 ? IOV_ELEM32 : 0));
		if (st & IOV_STOP)
			break;
	}
	if ((st & (IOV_ERR | IOV_DFAULT)) && (hdr & IOV_HDR_RETRY))
		return -1;	/* not committed: read again at exit */
	if ((st & IOV_ERR) && !(hdr & IOV_HDR_MSG))
		return -1;
	if ((st & IOV_ERR) && i < cnt) {
		/* a msghdr whose msg_iov could not be read: the header, no element
		 * (strace prints msg_iov's address) */
		flags |= TK_CAPF_ELEM_FAULT;
	} else if (i < cnt) {
		flags |= TK_CAPF_TRUNC;
	}
	if (st & IOV_EFAULT)
		flags |= TK_CAPF_ELEM_FAULT;
	return tk_cap_commit(c, c->caps_len, (hdr & 0xffff) | flags << 16, st & IOV_POS_MASK);
}

/* A record of the memory at base (len bytes, at most TK_MSG_BLOB_MAX read) at data
 * position pos <= TK_MSG_POS_MAX of the capture at c->caps_len; returns the position
 * after it. */
#define TK_MSG_BLOB_MAX 128
#define TK_MSG_POS_MAX 256

__noinline int tk_cap_blob(struct tk_capbuf *c, __u32 pos, __u64 base, __u64 len)
{
	struct tk_iov_elem *e;
	__u32 off, got;

	if (!c)
		return pos;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || pos > TK_MSG_POS_MAX)
		return pos;
	e = (struct tk_iov_elem *)(c->data + off + sizeof(struct tk_cap) + pos);
	e->base = base;
	e->len = len;
	e->flags = 0;
	got = len > TK_MSG_BLOB_MAX ? TK_MSG_BLOB_MAX : len;
	if (!base)
		got = 0;
	/* keep the clamp where the verifier sees it (clang folds it into the select) */
	asm volatile("" : "+r"(got));
	if (got > TK_MSG_BLOB_MAX)
		got = TK_MSG_BLOB_MAX;
	*(__u64 *)(c->data + off + sizeof(struct tk_cap) + pos + sizeof(*e) + (got & ~7U)) = 0;
	if (got && bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + pos + sizeof(*e),
				       got, (const void *)base)) {
		got = 0;
		e->flags = TK_CAPF_FAULT;
	}
	e->got = got;
	return pos + sizeof(*e) + ((got + 7) & ~7U);
}

/* An i386 struct msghdr (struct compat_msghdr, 28 bytes: seven u32, msg_name,
 * msg_namelen, msg_iov, msg_iovlen, msg_control, msg_controllen, msg_flags) at src,
 * widened into the 56-byte native layout at the start of the capture at c->caps_len;
 * mmsg: a struct compat_mmsghdr (32 bytes: msg_len after it) into the 64-byte native
 * mmsghdr (msg_len at 56). -1: unreadable. */
__noinline int tk_msghdr32(struct tk_capbuf *c, __u64 src, __u32 mmsg)
{
	__u32 w[8] = {}, off;
	__u64 *m;
	int k;

	if (!c)
		return -1;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return -1;
	if (bpf_probe_read_user(w, mmsg ? 32 : 28, (const void *)src))
		return -1;
	m = (__u64 *)(c->data + off + sizeof(struct tk_cap));
	for (k = 0; k < 8; k++)
		m[k] = w[k];
	return 0;
}

/* TK_CAP_MSGHDR: the struct msghdr at src (56 bytes: msg_name 0, msg_namelen 8, msg_iov
 * 16, msg_iovlen 24, msg_control 32, msg_controllen 40, msg_flags 48), a record of
 * msg_name (msg_namelen bytes), one of msg_control (msg_controllen bytes), each with at
 * most TK_MSG_BLOB_MAX bytes, then msg_iov as tk_cap_iov. TK_CAP_MMSGHDR: the same of a
 * struct mmsghdr (64 bytes: the msghdr, msg_len at 56). lims as IOV_LIMS, its pos the
 * header's size (56 or 64). */
__noinline int tk_cap_msghdr(struct tk_capbuf *c, __u64 src, __u32 lims, __u32 hdr)
{
	__u32 off, pos, hsize = ((lims >> 24) & 0x7f) * 8;
	__u64 *m;

	if (!c)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	hsize = hsize == 64 ? 64 : 56;
	m = (__u64 *)(c->data + off + sizeof(struct tk_cap));
	if (lims & IOV_LIMS32) {
		if (tk_msghdr32(c, src, hsize == 64))
			return -1;
	} else if (bpf_probe_read_user(m, hsize, (const void *)src)) {
		return -1;
	}
	pos = tk_cap_blob(c, hsize, m[0], (__u32)m[1]);
	pos = tk_cap_blob(c, pos, m[4], m[5]);
	if (pos > 2 * TK_MSG_POS_MAX)
		return 0;
	return tk_cap_iov(c, m[2], m[3], (lims & (0xffffff | IOV_LIMS32)) | (pos / 8) << 24,
			  hdr | IOV_HDR_MSG);
}

/* TK_CAP_IOV / TK_CAP_MSGHDR of spec sp: the data budget is spec.cap, and at exit also
 * the return value (what readv/recvmsg filled in). */
__noinline int tk_cap_iovec(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
			    const struct tk_scratch *s, long ret, __u32 hdr)
{
	__u32 budget, ecap;
	__u8 arg, la;

	if (!c || !sp || !s)
		return 0;
	arg = sp->arg;
	la = sp->len_arg;
	if (arg > 5)
		return 0;
	budget = sp->cap;
	if (budget > TK_BUF_MAX)
		budget = TK_BUF_MAX;
	ecap = sp->size;
	if (ecap > TK_IOV_ELEM_BIG)
		ecap = TK_IOV_ELEM_BIG;
	if (sp->kind == TK_CAP_MMSGHDR) {
		/* element len_arg of the array; the count is the next argument (vlen); a
		 * failed sendmmsg still shows its messages */
		if (la >= TK_MMSG_N || arg > 4 || la >= (__u32)s->args[arg + 1])
			return 0;
		if (sp->flags & TK_SPEC_COMPAT) /* struct compat_mmsghdr: 32 bytes */
			return tk_cap_msghdr(c, s->args[arg] + (__u64)la * 32,
					     IOV_LIMS(budget, ecap, 64) | IOV_LIMS32, hdr);
		return tk_cap_msghdr(c, s->args[arg] + (__u64)la * 64, IOV_LIMS(budget, ecap, 64),
				     hdr);
	}
	if (sp->flags & TK_SPEC_AT_EXIT) {
		/* a failed readv still shows its array (strace prints the bases), a failed
		 * recvmsg only its address */
		if (ret < 0 && sp->kind == TK_CAP_MSGHDR)
			return 0;
		if (ret < 0)
			budget = 0;
		else if (ret < budget)
			budget = ret;
	}
	if (!(sp->flags & TK_SPEC_AT_EXIT) && !(hdr >> 16 & TK_CAPF_AT_EXIT))
		hdr |= IOV_HDR_RETRY;
	if (sp->kind == TK_CAP_MSGHDR)
		return tk_cap_msghdr(c, s->args[arg], IOV_LIMS(budget, ecap, 56) |
				     (sp->flags & TK_SPEC_COMPAT ? IOV_LIMS32 : 0), hdr);
	if (la > 5)
		return 0;
	return tk_cap_iov(c, s->args[arg], s->args[la], IOV_LIMS(budget, ecap, 0) |
			  (sp->flags & TK_SPEC_COMPAT ? IOV_LIMS32 : 0), hdr);
}

/* -- record counts (getdents64's entry count): the records in the ret bytes the
 * call wrote, walked by their __u16 length, without copying them -------------------- */

/* Up to COUNT_STEP records of the array at src from pos (before ret): their lengths are
 * the __u16 at pos + at of each. Returns the position after them | their number << 40,
 * with COUNT_BAD when a length was unreadable or 0 (the walk would not advance). Global
 * and walking several records: the verifier checks these few iterations once, and the
 * caller's loop a few hundred (one record per call cost ~49,000 processed instructions
 * per prog, a fifth of a second at load). */
#define COUNT_STEP 16
#define COUNT_POS  ((1L << 40) - 1)
#define COUNT_BAD  (1L << 62)

__noinline long tk_count_step(__u64 src, long pos, long ret, __u32 at)
{
	__u16 reclen;
	long k;

	for (k = 0; k < COUNT_STEP && pos < ret; k++) {
		if (bpf_probe_read_user(&reclen, sizeof(reclen), (const void *)(src + pos + at)) ||
		    !reclen)
			return COUNT_BAD | k << 40 | (pos & COUNT_POS);
		pos += reclen;
	}
	return k << 40 | (pos & COUNT_POS);
}

/* TK_CAP_COUNT: the records in ret bytes at src (at most TK_COUNT_N walked), their
 * lengths at offset at (<= 64) of each; TRUNC when the walk stopped before ret bytes. */
__noinline int tk_cap_count(struct tk_capbuf *c, __u64 src, long ret, __u32 at, __u32 hdr)
{
	__u32 off, n = 0, i;
	__u16 flags = hdr >> 16;
	long pos = 0, r;

	if (!c || ret < 0 || ret > COUNT_POS || at > 64)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	for (i = 0; i < TK_COUNT_N / COUNT_STEP && pos < ret; i++) {
		r = tk_count_step(src, pos, ret, at);
		n += (r >> 40) & 0xff;
		pos = r & COUNT_POS;
		if (r & COUNT_BAD)
			break;
	}
	if (pos < ret)
		flags |= TK_CAPF_TRUNC;
	*(__u32 *)(c->data + off + sizeof(struct tk_cap)) = n;
	return tk_cap_commit(c, off, (hdr & 0xffff) | (__u32)flags << 16, sizeof(n));
}

/* -- TK_CAP_FD: what an fd is, from the kernel (programs/syscalls.h) ---------------------
 * strace -yy prints a pipe's or socket's inode and a socket's addresses; user space reads
 * them from /proc/<tgid>/fd and sock_diag when a record arrives, by when a socket that
 * lived microseconds (a libc nscd probe, a short TCP exchange) or a shell's pipe end is
 * gone. These read them in the call itself: current->files->fdt->fd[fd], its inode,
 * and for a socket (S_IFSOCK whose struct socket points back at the file) its struct sock.
 * Kernel memory only (probe reads: a bad pointer reads as zeros, never a fault). */
#define TK_S_IFMT   0170000
#define TK_S_IFSOCK 0140000
#define TK_AF_UNIX    1
#define TK_AF_INET    2
#define TK_AF_INET6   10
#define TK_AF_NETLINK 16

/* The description of fd (current task) into the struct tk_fd_desc at c->data + pos. */
__noinline int tk_fd_desc(struct tk_capbuf *c, __u32 pos, __s32 fd, __u32 at_exit)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct tk_fd_desc *d;
	struct fdtable *fdt;
	struct file **arr;
	struct file *f = NULL;
	struct inode *ino;
	struct socket *sock, *psock;
	struct sock *sk, *peer;
	struct unix_address *ua;
	unsigned int max;
	__u16 fam;
	int len;

	if (!c || pos > TK_CAP_OFF_MAX + 8 + sizeof(struct tk_fd_desc))
		return 0;
	d = (struct tk_fd_desc *)(c->data + pos);
	__builtin_memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->at_exit = at_exit;
	if (fd < 0)
		return 0;
	fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt)
		return 0;
	max = BPF_CORE_READ(fdt, max_fds);
	if ((unsigned int)fd >= max)
		return 0;
	arr = BPF_CORE_READ(fdt, fd);
	if (!arr || bpf_probe_read_kernel(&f, sizeof(f), arr + fd) || !f)
		return 0;
	ino = BPF_CORE_READ(f, f_inode);
	if (!ino)
		return 0;
	d->mode = BPF_CORE_READ(ino, i_mode);
	d->ino = BPF_CORE_READ(ino, i_ino);
	if ((d->mode & TK_S_IFMT) != TK_S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	/* an O_PATH fd of a socket file on disk has the mode but no struct socket */
	if (!sock || BPF_CORE_READ(sock, file) != f)
		return 0;
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return 0;
	fam = BPF_CORE_READ(sk, __sk_common.skc_family);
	d->family = fam;
	d->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	d->protocol = BPF_CORE_READ(sk, sk_protocol);
	bpf_probe_read_kernel_str(d->proto, sizeof(d->proto),
				  BPF_CORE_READ(sk, __sk_common.skc_prot, name));
	/* strace asks sock_diag of its own namespace: a socket of another is unknown there */
	if (bpf_core_field_exists(sk->__sk_common.skc_net))
		d->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	if (fam == TK_AF_INET || fam == TK_AF_INET6) {
		d->sport = BPF_CORE_READ(sk, __sk_common.skc_num);
		d->dport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (fam == TK_AF_INET) {
			*(__u32 *)d->src = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
			*(__u32 *)d->dst = BPF_CORE_READ(sk, __sk_common.skc_daddr);
		} else if (bpf_core_field_exists(sk->__sk_common.skc_v6_daddr)) {
			bpf_core_read(d->src, 16, &sk->__sk_common.skc_v6_rcv_saddr);
			bpf_core_read(d->dst, 16, &sk->__sk_common.skc_v6_daddr);
		}
	} else if (fam == TK_AF_UNIX) {
		/* the peer's inode as sock_i_ino() gives it (unix_diag's UNIX_DIAG_PEER) */
		peer = BPF_CORE_READ((struct unix_sock *)sk, peer);
		if (peer && bpf_core_field_exists(peer->sk_ino)) {
			d->peer_ino = BPF_CORE_READ(peer, sk_ino);
		} else if (peer) {
			psock = BPF_CORE_READ(peer, sk_socket);
			if (psock) /* SOCK_INODE() */
				d->peer_ino = BPF_CORE_READ((struct socket_alloc *)psock,
							    vfs_inode.i_ino);
		}
		ua = BPF_CORE_READ((struct unix_sock *)sk, addr);
		if (ua) {
			len = BPF_CORE_READ(ua, len) - 2; /* sun_family */
			if (len > TK_FD_UNIX_PATH)
				len = TK_FD_UNIX_PATH;
			if (len > 0) {
				d->name_len = len;
				bpf_probe_read_kernel(d->name, TK_FD_UNIX_PATH,
						      (void *)ua + bpf_core_field_offset(
							      struct unix_address, name) + 2);
			}
		}
	} else if (fam == TK_AF_NETLINK) {
		d->portid = BPF_CORE_READ((struct netlink_sock *)sk, portid);
	}
	return 0;
}

/* TK_CAP_FD of spec sp (see syscalls.h); ret is the return value (exit reads). */
__noinline int tk_cap_fd(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
			 const struct tk_scratch *s, long ret, __u32 hdr)
{
	__u32 off, n = 1, at_exit, arg;
	__s32 fds[2] = {};

	if (!c || !sp || !s)
		return 0;
	off = c->caps_len;
	arg = sp->arg;
	if (off > TK_CAP_OFF_MAX || arg > 5)
		return 0;
	at_exit = sp->flags & TK_SPEC_AT_EXIT ? 1 : 0;
	if (sp->flags & TK_SPEC_FD_PAIR) {
		if (ret < 0)
			return 0;
		if (bpf_probe_read_user(fds, sizeof(fds), (const void *)s->args[arg]))
			return -1;
		n = 2;
	} else if (sp->len_arg == TK_LEN_RET) {
		if (ret < 0)
			return 0;
		fds[0] = ret;
	} else {
		fds[0] = (__s32)s->args[arg];
	}
	tk_fd_desc(c, off + sizeof(struct tk_cap), fds[0], at_exit);
	if (n == 2)
		tk_fd_desc(c, off + sizeof(struct tk_cap) + sizeof(struct tk_fd_desc), fds[1],
			   at_exit);
	return tk_cap_commit(c, off, (hdr & ~0xffU) | TK_CAP_ARG_FD | arg,
			     n * sizeof(struct tk_fd_desc));
}

/* Capture spec sp of the call in s at c->caps_len; ret is the return value at sys_exit.
 * opts: TK_CAPF_* bits to add (AT_EXIT for a retried entry read) | CAPTURE_ARGV; the
 * exit path reads argv only to retry a failed execve's (a successful one's memory is
 * gone: tk_cap_exec_retry reads the new image instead). Returns 0
 * when done (a capture was appended, or there is nothing to capture), -1 when the user
 * memory could not be read (nothing appended). Global, so each spec loop costs the
 * verifier a call per spec. */
#define CAPTURE_ARGV (1U << 16)

/* ==== issue 12: pointers inside captured structs ========================================
 * TK_SPEC_PTR_AT (bpf's license, log_buf and BTF; ptrace's GET/SETREGSET registers) and
 * TK_CAP_IOCB (io_submit's iocbs). Both only read user memory, as every capture; both
 * are global functions (one verification each, see tk_cap_commit). */

/* TK_SPEC_PTR_AT of spec sp at src (a user struct): the u64 at src + sp->size, then what
 * it points to (syscalls.h). Never -1: an unreadable struct is a DEREF|FAULT capture
 * (the argument's own capture, if any, says what strace shows of the struct). */
__noinline int tk_cap_ptr_at(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
			     const struct tk_scratch *s, __u32 hdr)
{
	struct tk_deref_head *h;
	__u32 off, cap, len = 0, want32 = 0, flags = (hdr >> 16) | TK_CAPF_DEREF;
	__u32 at = sp ? sp->size & 0xff : 0, when = sp ? sp->size >> 8 : 0;
	__u64 p, src;
	long r;

	if (!c || !sp || !s || sp->arg > 5)
		return 0;
	/* only for one operation (bpf's command, ptrace's request): no reads, no capture,
	 * for the others */
	if (when && (s->args[0] & 0xff) != when - 1)
		return 0;
	src = s->args[sp->arg & 7];
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	if (bpf_probe_read_user(&p, sizeof(p), (const void *)(src + at)) ||
	    (sp->len_arg != TK_LEN_NONE &&
	     bpf_probe_read_user(&want32, sizeof(want32), (const void *)(src + sp->len_arg))))
		return tk_cap_commit(c, off, (hdr & 0xffff) | (flags | TK_CAPF_FAULT) << 16, 0);
	cap = sp->cap;
	if (cap > TK_DEREF_MAX)
		cap = TK_DEREF_MAX;
	h = (struct tk_deref_head *)(c->data + off + sizeof(struct tk_cap));
	h->ptr = p;
	h->off = at;
	h->want = want32;
	if (p && sp->kind == TK_CAP_STR && sp->len_arg != TK_LEN_NONE) {
		/* a NUL-terminated string in a buffer of want bytes, min(want, cap) of them
		 * (strace's printstr_ex with QUOTE_0_TERMINATED: umovestr of that many):
		 * all of them when readable, else up to its NUL when that comes before the
		 * fault (the NUL kept in the data) */
		len = want32 > cap ? cap : want32;
		if (want32 > cap)
			flags |= TK_CAPF_TRUNC;
		if (len > TK_DEREF_MAX)
			len = TK_DEREF_MAX;
		if (len && bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + sizeof(*h),
					       len, (const void *)p)) {
			r = bpf_probe_read_user_str(c->data + off + sizeof(struct tk_cap) +
						    sizeof(*h), len + 1, (const void *)p);
			if (r > 0 && r <= len) {
				len = r;
			} else {
				len = 0;
				flags |= TK_CAPF_ELEM_FAULT;
			}
		}
	} else if (p && sp->kind == TK_CAP_STR) {
		r = bpf_probe_read_user_str(c->data + off + sizeof(struct tk_cap) + sizeof(*h),
					    cap + 2, (const void *)p);
		if (r < 0) {
			flags |= TK_CAPF_ELEM_FAULT;
		} else if (r >= cap + 2) {
			len = cap;
			flags |= TK_CAPF_TRUNC;
		} else {
			len = r > 0 ? r - 1 : 0;
		}
	} else if (p) {
		len = sp->len_arg == TK_LEN_NONE ? cap : want32;
		if (len > cap) {
			len = cap;
			flags |= TK_CAPF_TRUNC;
		}
		if (len > TK_DEREF_MAX)
			len = TK_DEREF_MAX;
		if (len && bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) + sizeof(*h),
					       len, (const void *)p)) {
			/* what is readable of it: the bytes up to the end of p's page, when
			 * fewer (an array cut by the end of its mapping, of which strace
			 * prints the first elements and the address it could not read);
			 * ELEM_FAULT stays */
			__u32 part = TK_PAGE_4K - (__u32)(p & (TK_PAGE_4K - 1));

			flags |= TK_CAPF_ELEM_FAULT;
			if (part < len) {
				part &= TK_DEREF_MAX - 1;
				len = bpf_probe_read_user(c->data + off + sizeof(struct tk_cap) +
							  sizeof(*h), part, (const void *)p) ? 0 : part;
			} else {
				len = 0;
			}
		}
	}
	return tk_cap_commit(c, off, (hdr & 0xffff) | flags << 16, sizeof(*h) + len);
}

/* One iovec of a PREADV/PWRITEV iocb: element j of the iovec array at vec, as a struct
 * tk_iov_elem at data position pos of the capture whose header is at c->caps_len, then
 * (bufcap != 0: PWRITEV) min(iov_len, bufcap) bytes of its base. Returns the bytes
 * written, or -1 (the iovec is unreadable). */
#define IOCB_IOV_MAX (sizeof(struct tk_iov_elem) + TK_IOCB_IOV_BUF_MAX)
#define IOCB_VEC_MAX (TK_IOCB_IOV_N * IOCB_IOV_MAX)
#define IOCB_ELEM_MAX (sizeof(struct tk_iocb_elem) + TK_IOCB_SIZE + IOCB_VEC_MAX)
#define IOCB_POS_MAX (TK_IOCB_N * IOCB_ELEM_MAX)
#define IOCB_ERR  (1 << 20)
#define IOCB_CMD_PWRITE 1 /* include/uapi/linux/aio_abi.h */
#define IOCB_CMD_PREADV 7
#define IOCB_CMD_PWRITEV 8
__noinline int tk_cap_iocb_iov(struct tk_capbuf *c, __u32 pos, __u64 vec, __u32 j,
			       __u32 bufcap)
{
	struct tk_iov_elem *v;
	__u64 iov[2];
	__u32 off, got = 0;

	if (!c)
		return -1;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || pos > IOCB_POS_MAX - IOCB_IOV_MAX || j >= TK_IOCB_IOV_N)
		return -1;
	if (bpf_probe_read_user(iov, sizeof(iov), (const void *)(vec + (__u64)j * 16)))
		return -1;
	v = (struct tk_iov_elem *)(c->data + off + sizeof(struct tk_cap) + pos);
	v->base = iov[0];
	v->len = iov[1];
	v->flags = 0;
	if (bufcap > TK_IOCB_IOV_BUF_MAX)
		bufcap = TK_IOCB_IOV_BUF_MAX;
	if (bufcap && iov[0]) {
		got = iov[1] < bufcap ? iov[1] : bufcap;
		if (got > TK_IOCB_IOV_BUF_MAX)
			got = TK_IOCB_IOV_BUF_MAX;
		if (got && bpf_probe_read_user((__u8 *)v + sizeof(*v), got, (const void *)iov[0])) {
			got = 0;
			v->flags = TK_CAPF_FAULT;
		}
		if (got & 7)
			*(__u64 *)((__u8 *)v + sizeof(*v) + (got & ~7U)) &=
				(1ULL << ((got & 7) * 8)) - 1;
	}
	v->got = got;
	return sizeof(*v) + ((got + 7) & ~7U);
}

/* One element of TK_CAP_IOCB: pointer i of the array at src, its iocb and what its
 * aio_buf points to (syscalls.h), written at data position pos of the capture whose
 * header is at c->caps_len. Returns the position after it, or IOCB_ERR (the array is
 * unreadable at i). Positions stay under IOCB_POS_MAX. */
__noinline int tk_cap_iocb_step(struct tk_capbuf *c, __u64 src, __u32 i, __u32 pos, __u32 bufcap)
{
	struct tk_iocb_elem *e;
	__u8 *iocb;
	__u32 off, got = 0;
	__u64 p, buf, nbytes;
	__u16 opcode;

	if (!c)
		return IOCB_ERR;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX || pos > IOCB_POS_MAX - IOCB_ELEM_MAX || i >= TK_IOCB_N)
		return IOCB_ERR;
	if (bpf_probe_read_user(&p, sizeof(p), (const void *)(src + (__u64)i * 8)))
		return IOCB_ERR;
	e = (struct tk_iocb_elem *)(c->data + off + sizeof(struct tk_cap) + pos);
	e->ptr = p;
	e->got = 0;
	e->flags = 0;
	iocb = (__u8 *)e + sizeof(*e);
	if (bpf_probe_read_user(iocb, TK_IOCB_SIZE, (const void *)p)) {
		e->flags = TK_CAPF_FAULT;
		return pos + sizeof(*e);
	}
	opcode = *(__u16 *)(iocb + 16); /* aio_lio_opcode */
	buf = *(__u64 *)(iocb + 24);    /* aio_buf */
	nbytes = *(__u64 *)(iocb + 32); /* aio_nbytes */
	if ((opcode == IOCB_CMD_PREADV || opcode == IOCB_CMD_PWRITEV) && buf &&
	    (__s64)nbytes >= 0) {
		__u32 j, at = pos + sizeof(*e) + TK_IOCB_SIZE;
		int r;

		for (j = 0; j < TK_IOCB_IOV_N && j < nbytes; j++) {
			r = tk_cap_iocb_iov(c, at + got, buf, j,
					    opcode == IOCB_CMD_PWRITEV ? bufcap : 0);
			if (r < 0) {
				e->flags = TK_CAPF_ELEM_FAULT;
				break;
			}
			got += r;
			if (got > IOCB_VEC_MAX)
				break;
		}
		if (nbytes > TK_IOCB_IOV_N)
			e->flags |= TK_CAPF_TRUNC;
		if (got > IOCB_VEC_MAX)
			got = IOCB_VEC_MAX;
		e->got = got;
		return pos + sizeof(*e) + TK_IOCB_SIZE + got;
	}
	if (opcode == IOCB_CMD_PWRITE && buf && (__s64)nbytes >= 0) {
		if (bufcap > TK_IOCB_BUF_MAX)
			bufcap = TK_IOCB_BUF_MAX;
		got = nbytes < bufcap ? nbytes : bufcap;
		if (got > TK_IOCB_BUF_MAX)
			got = TK_IOCB_BUF_MAX;
		if (got && bpf_probe_read_user(iocb + TK_IOCB_SIZE, got, (const void *)buf)) {
			got = 0;
			e->flags = TK_CAPF_ELEM_FAULT;
		}
		/* zero the padding after the bytes (the slot may hold an older capture's) */
		if (got & 7)
			*(__u64 *)(iocb + TK_IOCB_SIZE + (got & ~7U)) &= (1ULL << ((got & 7) * 8)) - 1;
	}
	e->got = got;
	return pos + sizeof(*e) + TK_IOCB_SIZE + ((got + 7) & ~7U);
}

/* TK_CAP_IOCB of spec sp: args[sp->arg] is the array, args[sp->len_arg] its nr. -1: the
 * array is unreadable at its first element. */
__noinline int tk_cap_iocb(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
			   const struct tk_scratch *s, __u32 hdr)
{
	__u32 off, pos = 0, i, n, flags = hdr >> 16, arg, la;
	__u64 src;
	__s64 nr;
	int r;

	if (!c || !sp || !s)
		return 0;
	arg = sp->arg;
	la = sp->len_arg;
	if (arg > 5 || la > 5)
		return 0;
	off = c->caps_len;
	if (off > TK_CAP_OFF_MAX)
		return 0;
	src = s->args[arg];
	nr = s->args[la];
	if (nr < 0)
		return 0;
	n = nr > TK_IOCB_N ? TK_IOCB_N : nr;
	if (nr > TK_IOCB_N)
		flags |= TK_CAPF_TRUNC;
	for (i = 0; i < TK_IOCB_N && i < n; i++) {
		r = tk_cap_iocb_step(c, src, i, pos, sp->cap);
		if (r & IOCB_ERR) {
			if (i == 0)
				return -1;
			flags |= TK_CAPF_ELEM_FAULT;
			break;
		}
		pos = r;
	}
	if (pos > IOCB_POS_MAX)
		pos = IOCB_POS_MAX;
	return tk_cap_commit(c, off, (hdr & 0xffff) | flags << 16, pos);
}
/* ==== end of issue 12 ================================================================= */

__noinline int tk_capture(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
			  const struct tk_scratch *s, long ret, __u32 opts)
{
	__u8 kind, arg, la;
	__u32 hdr;
	__u64 want;

	if (!c || !sp || !s)
		return 0;
	kind = sp->kind;
	arg = sp->arg;
	la = sp->len_arg;
	if (arg > 5)
		return 0;
	hdr = CAP_HDR(arg, kind, opts & 0xffff);
	if (sp->flags & TK_SPEC_PTR_AT)		/* issue 12 */
		return tk_cap_ptr_at(c, sp, s, hdr);
	if (kind == TK_CAP_IOCB)		/* issue 12 */
		return tk_cap_iocb(c, sp, s, hdr);
	if (kind == TK_CAP_STR)
		return tk_cap_str(c, s->args[arg], sp->cap, hdr);
	if (kind == TK_CAP_BUF || kind == TK_CAP_STRUCT) {
		if (la == TK_LEN_RET) {
			if (ret < 0)
				return 0;
			want = ret;
		} else if (la == TK_LEN_NONE) {
			want = sp->size;
		} else if (la <= 5) {
			want = s->args[la];
			if (kind == TK_CAP_STRUCT) /* socklen_t / int addrlen */
				want = (__u32)want;
		} else {
			return 0;
		}
		if (kind == TK_CAP_STRUCT && (sp->flags & TK_SPEC_DEREF))
			return tk_cap_deref(c, s->args[arg], sp->size, sp->cap, hdr);
		if ((sp->flags & (TK_SPEC_IOCTL | TK_SPEC_FDSET | TK_SPEC_LEN_PTR)) ||
		    (la != TK_LEN_NONE && sp->size)) {
			long n = tk_spec_len(sp, s, ret, want);

			if (n < 0)
				return 0;
			want = n;
		}
		/* an entry read that faults is read again at exit: only there is what is
		 * readable of it kept */
		if (!(opts & CAPTURE_ARGV) || (opts & TK_CAPF_AT_EXIT))
			hdr |= TK_CAPF_PARTIAL << 16;
		return tk_cap_mem(c, s->args[arg], want, sp->cap, hdr);
	}
	if (kind == TK_CAP_IOV || kind == TK_CAP_MSGHDR || kind == TK_CAP_MMSGHDR)
		return tk_cap_iovec(c, sp, s, ret, hdr);
	if ((opts & CAPTURE_ARGV) && kind == TK_CAP_ARGV)
		return tk_cap_argv(c, s->args[arg], sp->cap, sp->size, hdr);
	if ((opts & CAPTURE_ARGV) && kind == TK_CAP_ENVP)
		return tk_cap_envp(c, s->args[arg], sp->cap, sp->size, hdr);
	if (kind == TK_CAP_COUNT && la == TK_LEN_RET)
		return tk_cap_count(c, s->args[arg], ret, sp->size, hdr);
	if (kind == TK_CAP_FD)
		return tk_cap_fd(c, sp, s, ret, hdr);
	return 0;
}

/* A call the thread was in when tracing began (no entry seen): its arguments from the
 * registers at sys_exit and every capture of its specs read now, emitted as a RESUMED |
 * ATTACHED record with the captures, and the flags in extra (TK_SC_UNFINISHED: the task
 * dies in it; TK_SC_SKIPPED with ts_ns its exit time: its entry never ran). Returns 1
 * when emitted, 0 when there is nothing to capture (the caller emits the plain record).
 * s is on the caller's stack (ts_ns 0). */
__noinline int tk_emit_attached(const struct tk_scratch *s, __u64 pid_tgid, long ret,
				__u32 extra, __u64 ts_ns)
{
	const struct tk_beauty *b;
	struct tk_capbuf *c;
	__u32 tid = (__u32)pid_tgid, key, zero = 0, size;
	void *init;
	int i;

	if (!s || s->nr < 0 || s->nr >= TK_FILTER_MAX)
		return 0;
	key = s->nr;
	b = beauty_of(key, s->compat);
	if (!b || !b->spec[0].kind)
		return 0;
	c = bpf_map_lookup_elem(&capbuf, &tid);
	if (!c) {
		init = bpf_map_lookup_elem(&capbuf_zero, &zero);
		if (!init)
			return 0;
		if (bpf_map_update_elem(&capbuf, &tid, init, BPF_NOEXIST) == 0)
			c = bpf_map_lookup_elem(&capbuf, &tid);
		if (!c) {
			count(TK_CNT_CAPBUF_FULL);
			return 0;
		}
	}
	c->entry_ts = 0;
	c->pending = 0;
	c->retry = 0;
	c->caps_len = 0;
	c->ncaps = 0;
	for (i = 0; i < TK_BEAUTY_SPECS; i++) {
		const struct tk_beauty_spec *sp = &b->spec[i];

		if (!sp->kind)
			break;
		if (tk_capture(c, sp, s, ret, 0) < 0)
			tk_cap_fault(c, CAP_HDR(sp->arg, sp->kind, TK_CAPF_FAULT));
	}
	if (!c->ncaps)
		return 0;
	c->rec.hdr.kind = TK_REC_SYSCALL;
	c->rec.hdr.flags = TK_SC_RESUMED | TK_SC_ATTACHED | s->compat | extra;
	c->rec.hdr.ts_ns = ts_ns;
	c->rec.duration_ns = 0;
	c->rec.tid = tid;
	c->rec.tgid = pid_tgid >> 32;
	c->rec.cpu = bpf_get_smp_processor_id();
	c->rec.syscall_nr = s->nr;
	for (i = 0; i < 6; i++)
		c->rec.args[i] = s->args[i];
	c->rec.ret = ret;
	bpf_get_current_comm(c->rec.comm, sizeof(c->rec.comm));
	size = c->caps_len;
	if (size > TK_CAPBUF_DATA)
		size = TK_CAPBUF_DATA;
	c->caps_len = size;
	size += sizeof(c->rec) + 2 * sizeof(__u32);
	if (!call_room(size) || bpf_ringbuf_output(&events, &c->rec, size, 0))
		count(TK_CNT_LOST);
	return 1;
}

/* Entry captures of the call in s (tid's syscall s->nr) into capbuf[tid]; true when the
 * slot now belongs to this call (then tk_scratch.has_caps = 1). */
static __always_inline bool capture_entry(__u32 tid, const struct tk_scratch *s)
{
	const struct tk_beauty *b;
	struct tk_capbuf *c;
	__u32 key = s->nr, zero = 0;
	void *init;
	int i;

	if (s->nr < 0 || s->nr >= TK_FILTER_MAX)
		return false;
	b = beauty_of(key, s->compat);
	if (!b || !b->spec[0].kind)
		return false;
	c = bpf_map_lookup_elem(&capbuf, &tid);
	if (!c) {
		init = bpf_map_lookup_elem(&capbuf_zero, &zero);
		if (!init)
			return false;
		if (bpf_map_update_elem(&capbuf, &tid, init, BPF_NOEXIST) == 0)
			c = bpf_map_lookup_elem(&capbuf, &tid);
		if (!c) {
			count(TK_CNT_CAPBUF_FULL);
			return false;
		}
	}
	c->entry_ts = s->ts_ns;
	c->pending = 0;
	c->retry = 0;
	c->caps_len = 0;
	c->ncaps = 0;
	for (i = 0; i < TK_BEAUTY_SPECS; i++) {
		const struct tk_beauty_spec *sp = &b->spec[i];

		if (!sp->kind)
			break;
		if (sp->flags & TK_SPEC_AT_EXIT)
			c->pending |= 1U << i;
		else if (tk_capture(c, sp, s, 0, CAPTURE_ARGV) < 0)
			c->retry |= 1U << i; /* memory not yet faulted in: read at exit */
	}
	return true;
}

/* A successful execve whose envp read faulted at entry: the pointer array of the new
 * image instead, for its count. The kernel lays it out on the new stack, where regs->sp
 * points at sys_exit: argc, argv[argc], NULL, envp[], NULL, the auxv (fs/binfmt_elf.c
 * create_elf_tables; start_thread sets sp). Above the auxv a random gap of up to 8 KiB
 * (arch_align_stack) may hold pages never touched, so the array is read word by word up
 * to its NULL, then captured exactly: never a read past what the kernel wrote. More
 * words than size holds: a cut capture without the NULL (no count, as at entry). A
 * 32-bit image packs 4-byte words, which read as one 8-byte argc far above the bound:
 * no capture then. */
#define TK_NEW_ARGC_MAX (1U << 24)
#define TK_NEW_ENVP_N   256 /* words looked at: ENVP_BIG (tracekit/session/capture.py) / 8 */
__noinline int tk_cap_new_envp(struct tk_capbuf *c, __u64 user_sp, __u32 size, __u32 hdr)
{
	__u64 argc, src, w;
	__u32 i, n = size / 8;

	if (!c || !user_sp || bpf_probe_read_user(&argc, sizeof(argc), (const void *)user_sp))
		return -1;
	if (argc >= TK_NEW_ARGC_MAX)
		return -1;
	src = user_sp + (argc + 2) * 8;
	if (n > TK_NEW_ENVP_N)
		n = TK_NEW_ENVP_N;
	for (i = 0; i < TK_NEW_ENVP_N && i < n; i++) {
		if (bpf_probe_read_user(&w, sizeof(w), (const void *)(src + (__u64)i * 8)))
			return -1;
		if (!w)
			return tk_cap_mem(c, src, ((__u64)i + 1) * 8, size, hdr);
	}
	return tk_cap_mem(c, src, (__u64)n * 8 + 8, size, hdr);
}

/* A successful execve whose filename faulted at entry: the copy the kernel made on the
 * new stack (AT_EXECFN), right after the environment strings (mm->env_end; see
 * programs/core_types.h). execveat's copy is /dev/fd/N/... for a dirfd-relative path,
 * not its argument: only execve takes it. */
__noinline int tk_cap_exec_filename(struct tk_capbuf *c, __u32 cap, __u32 hdr)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 p;

	if (!c)
		return 0;
	p = BPF_CORE_READ(t, mm, env_end);
	if (!p)
		return -1;
	return tk_cap_str(c, p, cap, hdr);
}

/* A script's interpreter (#!) or binfmt_misc rewrote argv (bprm->interp is then a copy
 * other than bprm->filename: fs/exec.c bprm_change_interp): the new image's argv is not
 * the caller's, so a faulted argv is not read from it (tk_proc_exec sets the mark in the
 * exec'ing thread's capbuf slot; pending is cleared at each call's entry). */
#define TK_PENDING_INTERP (1U << 31)

static __always_inline void note_exec_interp(__u32 tid, struct linux_binprm *bprm)
{
	struct tk_capbuf *c;

	if (bprm->interp == bprm->filename)
		return;
	c = bpf_map_lookup_elem(&capbuf, &tid);
	if (c)
		c->pending |= TK_PENDING_INTERP;
}

/* The captures of a successful execve's spec sp whose entry read faulted, from the new
 * image (hdr has AT_EXIT): envp's pointer array (its only STRUCT specs), the filename
 * (execve), argv from the new stack (argc, then the pointers, at user_sp). what:
 * EXEC_IS_EXECVE (not execveat) | EXEC_INTERP (see TK_PENDING_INTERP). */
#define EXEC_IS_EXECVE 1U
#define EXEC_INTERP    2U

__noinline int tk_cap_exec_retry(struct tk_capbuf *c, const struct tk_beauty_spec *sp,
				 __u64 user_sp, __u32 what, __u32 hdr)
{
	if (!c || !sp)
		return 0;
	if (sp->kind == TK_CAP_STRUCT)
		return tk_cap_new_envp(c, user_sp, sp->size, hdr);
	if (sp->kind == TK_CAP_STR && (what & EXEC_IS_EXECVE))
		return tk_cap_exec_filename(c, sp->cap, hdr);
	if (sp->kind == TK_CAP_ARGV && !(what & EXEC_INTERP) && user_sp)
		return tk_cap_argv(c, user_sp + 8, sp->cap, sp->size, hdr);
	/* strace -v reads argv as envp, every element (argument 1 of execve, 2 of
	 * execveat); envp is the one after it */
	if (sp->kind == TK_CAP_ENVP && sp->arg == ((what & EXEC_IS_EXECVE) ? 1 : 2))
		return (what & EXEC_INTERP) || !user_sp ?
			       -1 : tk_cap_envp(c, user_sp + 8, sp->cap, sp->size, hdr);
	if (sp->kind == TK_CAP_ENVP)
		return tk_cap_new_envp_strings(c, user_sp, sp->cap, sp->size, hdr);
	return -1;
}

/* Exit captures of the call in s (capbuf slot c, checked to be this call's), then the
 * record from the slot. Returns false when there is nothing to append (the caller
 * emits the plain 112-byte record). */
static __always_inline bool emit_captured(struct tk_capbuf *c, const struct tk_scratch *s,
					  __u64 pid_tgid, __u64 now, long ret, __u32 flags,
					  __u64 user_sp, __u32 kind)
{
	const struct tk_beauty *b;
	__u32 key = s->nr, size;
	bool exec_ok;
	int i;

	if ((c->pending | c->retry) && key < TK_FILTER_MAX && (b = beauty_of(key, s->compat))) {
		/* a successful execve replaced the memory the pointers pointed into */
		exec_ok = is_exec_nr(s->nr, s->compat) && ret == 0;
		for (i = 0; i < TK_BEAUTY_SPECS; i++) {
			const struct tk_beauty_spec *sp = &b->spec[i];
			__u16 xflags;

			if (!((c->pending | c->retry) & (1U << i)))
				continue;
			/* a retry of a faulted entry read is marked AT_EXIT */
			xflags = (c->retry & (1U << i)) ? TK_CAPF_AT_EXIT : 0;
			if (xflags && exec_ok) {
				if (tk_cap_exec_retry(c, sp, user_sp,
						      (s->nr == NR_EXECVE ? EXEC_IS_EXECVE : 0) |
						      (c->pending & TK_PENDING_INTERP ?
						       EXEC_INTERP : 0),
						      CAP_HDR(sp->arg, sp->kind, xflags)) < 0)
					tk_cap_fault(c, CAP_HDR(sp->arg, sp->kind,
								TK_CAPF_FAULT | xflags));
				continue;
			}
			/* a failed execve's argv is still the caller's memory */
			if (tk_capture(c, sp, s, ret, xflags | (xflags ? CAPTURE_ARGV : 0)) < 0)
				tk_cap_fault(c, CAP_HDR(sp->arg, sp->kind, TK_CAPF_FAULT | xflags));
		}
	}
	if (!c->ncaps)
		return false;
	c->rec.hdr.kind = kind;
	c->rec.hdr.flags = flags & ~TK_SC_NOT_FLAGS;
	c->rec.hdr.ts_ns = s->ts_ns;
	c->rec.duration_ns = now - s->ts_ns;
	c->rec.tid = (__u32)pid_tgid;
	c->rec.tgid = pid_tgid >> 32;
	c->rec.cpu = bpf_get_smp_processor_id();
	c->rec.syscall_nr = s->nr;
	for (i = 0; i < 6; i++)
		c->rec.args[i] = s->args[i];
	c->rec.ret = ret;
	bpf_get_current_comm(c->rec.comm, sizeof(c->rec.comm));
	size = c->caps_len;
	if (size > TK_CAPBUF_DATA)
		size = TK_CAPBUF_DATA;
	c->caps_len = size;
	size += sizeof(c->rec) + 2 * sizeof(__u32);
	if (!call_room(size) ||
	    bpf_ringbuf_output(&events, &c->rec, size,
			       (flags & TK_SC_WAKE) ? BPF_RB_FORCE_WAKEUP : 0))
		count(kind == TK_REC_SYSCALL ? TK_CNT_LOST : TK_CNT_FD_LOST);
	else if (kind != TK_REC_SYSCALL)
		count(TK_CNT_FD_STATE);
	else if (flags & TK_SC_STACK_LOST)
		count(TK_CNT_STACK_FULL);
	return true;
}

/* A call the thread died in (TK_SC_UNFINISHED), with the entry captures in its capbuf
 * slot c (checked to be this call's): strace shows the arguments it read at entry on
 * its `<unfinished ...>` line. No exit reads: the call never returned. Returns false
 * when there is nothing to append (the caller emits the plain record). */
static __always_inline bool emit_unfinished_captured(struct tk_capbuf *c,
						     const struct tk_scratch *s, __u64 pid_tgid,
						     __u32 wake)
{
	__u32 size;
	int i;

	if (!c->ncaps)
		return false;
	c->rec.hdr.kind = TK_REC_SYSCALL;
	c->rec.hdr.flags = TK_SC_UNFINISHED | s->compat;
	c->rec.hdr.ts_ns = s->ts_ns;
	c->rec.duration_ns = 0;
	c->rec.tid = (__u32)pid_tgid;
	c->rec.tgid = pid_tgid >> 32;
	c->rec.cpu = bpf_get_smp_processor_id();
	c->rec.syscall_nr = s->nr;
	for (i = 0; i < 6; i++)
		c->rec.args[i] = s->args[i];
	c->rec.ret = 0;
	bpf_get_current_comm(c->rec.comm, sizeof(c->rec.comm));
	size = c->caps_len;
	if (size > TK_CAPBUF_DATA)
		size = TK_CAPBUF_DATA;
	c->caps_len = size;
	size += sizeof(c->rec) + 2 * sizeof(__u32);
	if (!call_room(size) ||
	    bpf_ringbuf_output(&events, &c->rec, size,
			       (wake & TK_SC_WAKE) ? BPF_RB_FORCE_WAKEUP : 0))
		count(TK_CNT_LOST);
	else if (wake & TK_SC_STACK_LOST)
		count(TK_CNT_STACK_FULL);
	return true;
}

/* -- the fd table (syscalls.h) --------------------------------------------------------- */

/* Whether a call of native nr that the selection hides is still entered and emitted as
 * a TK_REC_FD_STATE record: it changes the fd table or the working directory. Compat
 * calls are numbered in another table: not tracked. */
static __always_inline bool fd_state_nr(long nr, __u32 compat)
{
	__u32 key;
	__u8 *on;

	if (!targ_fd_state || !records_on() || compat || nr < 0 || nr >= TK_FILTER_MAX)
		return false;
	key = nr;
	on = bpf_map_lookup_elem(&fd_track, &key);
	return on && *on == 1;
}

/* A TK_REC_FD_STATE record without captures: the struct tk_syscall layout. */
static __always_inline void emit_fd_state(const struct tk_scratch *s, __u64 pid_tgid,
					  __u64 now, long ret)
{
	struct tk_syscall *r;
	int i;

	r = call_room(sizeof(*r)) ? bpf_ringbuf_reserve(&events, sizeof(*r), 0) : NULL;
	if (!r) {
		count(TK_CNT_FD_LOST);
		return;
	}
	r->hdr.kind = TK_REC_FD_STATE;
	r->hdr.flags = s->compat;
	r->hdr.ts_ns = s->ts_ns;
	r->duration_ns = now - s->ts_ns;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->cpu = bpf_get_smp_processor_id();
	r->syscall_nr = s->nr;
	for (i = 0; i < 6; i++)
		r->args[i] = s->args[i];
	r->ret = ret;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, 0);
	count(TK_CNT_FD_STATE);
}

/* After an exec: which fds of p stayed open (TK_REC_FD_EXEC). */
static __always_inline void emit_fd_exec(struct task_struct *p, __u32 tid, __u32 tgid)
{
	struct fdtable *fdt;
	struct tk_fd_exec *r;
	unsigned long *words;
	__u32 n, size;

	if (!targ_fd_state || !records_on())
		return;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_FD_LOST);
		return;
	}
	__builtin_memset(r->open_fds, 0, sizeof(r->open_fds));
	r->hdr.kind = TK_REC_FD_EXEC;
	r->hdr.flags = 0;
	r->hdr.ts_ns = bpf_ktime_get_ns();
	r->tid = tid;
	r->tgid = tgid;
	r->max_fds = 0;
	r->nbits = 0;
	fdt = BPF_CORE_READ(p, files, fdt);
	if (fdt) {
		n = BPF_CORE_READ(fdt, max_fds);
		words = BPF_CORE_READ(fdt, open_fds);
		r->max_fds = n;
		if (n > 64 * TK_FD_EXEC_WORDS)
			n = 64 * TK_FD_EXEC_WORDS;
		n &= ~63U; /* whole words: max_fds is a multiple of BITS_PER_LONG */
		size = (n / 64) * sizeof(__u64);
		if (size > sizeof(r->open_fds))
			size = sizeof(r->open_fds);
		if (size && words && !bpf_probe_read_kernel(r->open_fds, size, words))
			r->nbits = n;
	}
	bpf_ringbuf_submit(r, 0);
	count(TK_CNT_FD_STATE);
}

/* -- stacks (issue 18; targ_stacks) ------------------------------------------------- */

/* Value of the "stack_slot" task storage: the stacks of the traced task's call in flight,
 * laid out as the record that carries them (rec, then the frames), so one
 * bpf_ringbuf_output sends them (3,128 bytes). */
struct tk_stack_slot {
	__u64 entry_ts; /* tk_scratch.ts_ns of the call the stacks belong to; 0: none */
	struct tk_stack rec;
	__u64 frames[2 * TK_STACK_FRAMES]; /* nuser user frames, then nkernel kernel frames */
};

/* Some facts about the stack slot: task storage, created on a traced task's first call
 * with targ_stacks and freed with the task (tk_proc_exit deletes it first); taken only
 * for the calls selected at entry, and read only where the call is recorded. Without
 * targ_stacks the verifier prunes every use (the knob is checked first). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tk_stack_slot);
} stack_slot SEC(".maps");

/* The user frame pointer and link register at entry (x86_64: rbp, no link register;
 * arm64: x29, x30). */
static __always_inline void regs_fp_lr(struct pt_regs *regs, __u64 *fp, __u64 *lr)
{
#if defined(__TARGET_ARCH_x86)
	*fp = regs->bp;
	*lr = 0;
#else
	*fp = regs->regs[29];
	*lr = regs->regs[30];
#endif
}

/* The user instruction pointer saved at entry to the kernel: the address after the
 * syscall instruction, or where an interrupted task resumes (x86_64 ip, arm64 pc). */
static __always_inline __u64 regs_ip(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return regs->ip;
#else
	return regs->pc;
#endif
}

/* Walk the current task's stacks at the entry of the call entered at ts_ns into its slot:
 * the user stack by frame pointers from task_pt_regs (ip first), TK_STACK_TOP bytes of
 * the user stack at sp, and with TK_STACK_KERNEL the kernel stack. */
static __always_inline void stack_take(void *ctx, struct task_struct *task,
				       struct pt_regs *regs, __u64 ts_ns)
{
	struct tk_stack_slot *st;
	__u32 nu = 0, nk = 0;
	__u64 sp;
	long n;

	st = bpf_task_storage_get(&stack_slot, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		count(TK_CNT_STACK_FULL); /* no memory (GFP_ATOMIC) or storage busy */
		return;
	}
	st->rec.top_len = 0;
	st->rec.sp = 0;
	st->rec.fp = 0;
	st->rec.lr = 0;
	if (targ_stacks == TK_STACK_IP) {
		/* strace -i alone: the one frame where top would start (TK_STACK_IP_ONLY) */
		*(__u64 *)st->rec.top = regs_ip(regs);
		st->rec.nuser = 1;
		st->rec.nkernel = 0;
		st->entry_ts = ts_ns;
		return;
	}
	if (targ_stacks & TK_STACK_USER) {
		n = bpf_get_stack(ctx, st->frames, TK_STACK_FRAMES * sizeof(__u64),
				  BPF_F_USER_STACK);
		nu = n > 0 ? n / sizeof(__u64) : 0;
		sp = regs->sp;
		st->rec.sp = sp;
		regs_fp_lr(regs, &st->rec.fp, &st->rec.lr);
		if (!bpf_probe_read_user(st->rec.top, TK_STACK_TOP, (const void *)sp))
			st->rec.top_len = TK_STACK_TOP;
		else if (!bpf_probe_read_user(st->rec.top, TK_STACK_TOP / 4, (const void *)sp))
			st->rec.top_len = TK_STACK_TOP / 4; /* the stack's top end is near */
	}
	if (nu > TK_STACK_FRAMES)
		nu = TK_STACK_FRAMES;
	if (targ_stacks & TK_STACK_KERNEL) {
		n = bpf_get_stack(ctx, &st->frames[nu], TK_STACK_FRAMES * sizeof(__u64), 0);
		nk = n > 0 ? n / sizeof(__u64) : 0;
	}
	st->rec.nuser = nu;
	st->rec.nkernel = nk;
	st->entry_ts = ts_ns;
}

/* The stacks of the current task's call entered at ts_ns, as a TK_REC_STACK record just
 * before that call's own record (same task: the record before it in the ring buffer).
 * Returns TK_SC_WAKE when that record must wake the reader (below), TK_SC_STACK_LOST
 * when the ring buffer had no room for it (the call's record counts that), else 0.
 * Global (checked once by the verifier, a call in each caller): every caller runs in
 * the task whose call it records (sys_enter, sys_exit, sched_process_exit). */
__noinline __u32 tk_stack_emit(__u64 pid_tgid, __u64 ts_ns)
{
	struct tk_stack_slot *st;
	__u32 n, wake;

	st = bpf_task_storage_get(&stack_slot, bpf_get_current_task_btf(), NULL, 0);
	if (!st || st->entry_ts != ts_ns || !ts_ns)
		return 0;
	st->entry_ts = 0;
	st->rec.hdr.kind = TK_REC_STACK;
	st->rec.hdr.flags = targ_stacks == TK_STACK_IP ? TK_STACK_IP_ONLY : 0;
	st->rec.hdr.ts_ns = ts_ns;
	st->rec.tid = (__u32)pid_tgid;
	st->rec.tgid = pid_tgid >> 32;
	st->rec._pad = 0;
	n = st->rec.nuser + st->rec.nkernel;
	if (n > 2 * TK_STACK_FRAMES)
		n = 2 * TK_STACK_FRAMES;
	/* Some facts about ring-buffer wakeups: a record committed without flags wakes the
	 * reader when the reader has read everything before it (kernel/bpf/ringbuf.c), and
	 * each wakeup is an irq_work; two per call (the stack's, the call's) made them the
	 * bulk of the cost (getppid loop: +3 us per call). So the stack record never wakes
	 * the reader, and the call's own record, right after it, wakes it for both: forced
	 * (TK_SC_WAKE) when the ring buffer was empty before the stack record (the reader
	 * may sleep there, where the call's record's own test would not wake it), as usual
	 * otherwise. */
	wake = bpf_ringbuf_query(&events, BPF_RB_CONS_POS) ==
	       bpf_ringbuf_query(&events, BPF_RB_PROD_POS) ? TK_SC_WAKE : 0;
	if (targ_stacks == TK_STACK_IP) {
		n = offsetof(struct tk_stack, top) + sizeof(__u64);
		if (!call_room(n) ||
		    bpf_ringbuf_output(&events, &st->rec, n, BPF_RB_NO_WAKEUP))
			return TK_SC_STACK_LOST;
		return wake;
	}
	if (!call_room(sizeof(st->rec) + n * sizeof(__u64)) ||
	    bpf_ringbuf_output(&events, &st->rec, sizeof(st->rec) + n * sizeof(__u64),
			       BPF_RB_NO_WAKEUP))
		return TK_SC_STACK_LOST;
	return wake;
}

/* -- 32-bit calls whose arguments sit in user memory (syscalls.h: TK_SC_INDIRECT) ------ */

/* The arguments of a 32-bit call, for tk_indirect32. */
struct tk_words32 {
	__u32 w[6];  /* in: the argument registers (their low halves); out: the words read */
	__s32 nr;    /* in: the call's number; out: the number to record it under */
	__u32 flags; /* out: TK_SC_INDIRECT when the words were read */
	__u32 nocap; /* out: 1: a call whose arguments sit in user memory that could not be
		      * read, or a socketcall of no sub-call: recorded without captures */
};

/* socketcall's sub-calls (SYS_SOCKET 1 .. SYS_SENDMMSG 20, include/uapi/linux/net.h),
 * by SYS_* number: the i386 number of the direct call (TK_NR32_SUBCALL_BASE + call where
 * there is none) | the words it takes << 16 (net/socket.c nargs[]); 0: no sub-call. */
#define SUB(nr, nargs) ((nr) | (nargs) << 16)
#define SUB_ONLY(call, nargs) SUB(TK_NR32_SUBCALL_BASE + (call), nargs)
static const __u32 tk_socketcall_subs[21] = {
	0, SUB(359, 3) /* socket */, SUB(361, 3) /* bind */, SUB(362, 3) /* connect */,
	SUB(363, 2) /* listen */, SUB_ONLY(5, 3) /* accept */, SUB(367, 3) /* getsockname */,
	SUB(368, 3) /* getpeername */, SUB(360, 4) /* socketpair */, SUB_ONLY(9, 4) /* send */,
	SUB_ONLY(10, 4) /* recv */, SUB(369, 6) /* sendto */, SUB(371, 6) /* recvfrom */,
	SUB(373, 2) /* shutdown */, SUB(366, 5) /* setsockopt */, SUB(365, 5) /* getsockopt */,
	SUB(370, 3) /* sendmsg */, SUB(372, 3) /* recvmsg */, SUB(364, 4) /* accept4 */,
	SUB(337, 5) /* recvmmsg */, SUB(345, 4) /* sendmmsg */,
};

/* A 32-bit call io->nr with arguments io->w: when its arguments sit in user memory
 * (socketcall's nargs words at its second argument, for the sub-call its first names;
 * the old select's 5 words at its first), they are read as the kernel reads them
 * (exactly that many) into io->w, with the number to record the call under and
 * TK_SC_INDIRECT; when they cannot be read (or socketcall names no sub-call), io->w
 * keeps the registers and io->nocap is set: strace then prints the call itself. Other
 * calls are left as they are. Global: the verifier checks it once, and its callers get
 * scalars back (no path per outcome). */
__noinline int tk_indirect32(struct tk_words32 *io)
{
	__u32 words[6] = {}, sub = 0, n;
	__u64 src;
	int i;

	if (!io)
		return 0;
	io->flags = 0;
	io->nocap = 0;
	if (io->nr == TK_NR32_SOCKETCALL) {
		sub = io->w[0] < 21 ? tk_socketcall_subs[io->w[0]] : 0;
		if (!sub) {
			io->nocap = 1;
			return 0;
		}
		n = sub >> 16;
		src = io->w[1];
	} else if (io->nr == TK_NR32_SELECT) {
		n = 5;
		src = io->w[0];
	} else {
		return 0;
	}
	if (n < 1 || n > 6 || bpf_probe_read_user(words, n * sizeof(__u32), (const void *)src)) {
		io->nocap = 1;
		return 0;
	}
	for (i = 0; i < 6; i++)
		io->w[i] = words[i];
	if (sub)
		io->nr = sub & 0xffff;
	io->flags = TK_SC_INDIRECT;
	return 0;
}

/* The arguments of the 32-bit call nr into w (the low halves of the i386 argument
 * registers, see regs_args32), then the words they point to for socketcall and the old
 * select (tk_indirect32); x86_64 only (arm64 compat tasks are not flagged). */
static __always_inline void args32(struct pt_regs *regs, long nr, struct tk_words32 *w)
{
#if defined(__TARGET_ARCH_x86)
	w->w[0] = regs->bx;
	w->w[1] = regs->cx;
	w->w[2] = regs->dx;
	w->w[3] = regs->si;
	w->w[4] = regs->di;
	w->w[5] = regs->bp;
	w->nr = nr;
	tk_indirect32(w);
#endif
}

/* tk_sys_enter's record half: the entry with its arguments, captures and stacks, stored
 * in the thread's scratch entry sp (or emitted now for a call that never returns). */
static __always_inline int enter_record(void *ctx, struct pt_regs *regs, long id,
					struct tk_scratch *sp, struct task_struct *task,
					__u64 pid_tgid, __u32 compat, __u8 fd_only,
					const struct tk_words32 *w)
{
	struct tk_scratch s = {};
	__u32 wake;
	int i;

	s.ts_ns = bpf_ktime_get_ns();
	s.nr = id;
	s.traced = sp->traced;
	s.compat = compat;
	s.fd_only = fd_only;
	/* a 32-bit call's: its registers' low halves, or the words a socketcall or old
	 * select points to (TK_SC_INDIRECT), from tk_sys_enter's args32 */
	if (compat)
		for (i = 0; i < 6; i++)
			s.args[i] = w->w[i];
	else
		regs_args(regs, s.args);
	/* rt_sigreturn takes no arguments; strace prints the mask it restores, from the
	 * signal frame at the user sp: args[0] is that mask's address (the "beauty" spec
	 * of rt_sigreturn reads it like any struct argument) */
	if (id == NR_RT_SIGRETURN && !compat)
		s.args[0] = regs->sp + TK_SIGFRAME_MASK_OFF;
	/* the stacks of a selected call, kept until its record goes out (issue 18) */
	if (targ_stacks)
		stack_take(ctx, task, regs, s.ts_ns);
	if (is_exit_nr(id, compat)) {
		/* never reaches sys_exit: emit now; ret and duration are unknown */
		if (!unfinished_selected())
			return 0;
		if (targ_summary)
			sum_add(sp, task, pid_tgid, id, compat, SUM_NORETURN, 0, 0, s.ts_ns);
		wake = targ_stacks ? tk_stack_emit(pid_tgid, s.ts_ns) : 0;
		emit_syscall(TK_SC_NORETURN | compat | wake, s.ts_ns, 0, pid_tgid, id, s.args, 0);
		return 0;
	}
	/* compat calls are numbered in another table: their specs are in beauty32 */
	if (targ_capture && !w->nocap)
		s.has_caps = capture_entry((__u32)pid_tgid, &s);
	/* an in-place write of the thread's entry (fork_child 0: a call entered ends the
	 * mark), which keeps its summary slot */
	s.sum_key = sp->sum_key;
	s.sum_slot1 = sp->sum_slot1;
	*sp = s;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tk_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tk_pid_info *info;
	struct tk_scratch *sp;
	struct tk_words32 w; /* zeroed where it is used: not by the summary of a native call */
	__u8 fd_only = 0;
	__u64 pid_tgid;
	bool owned;
	__u32 compat;
	__u64 now;

	/* A task once found traced stays traced until it exits: its scratch entry says so,
	 * and the pids lookup is made only until then. User space deletes pids keys only of
	 * tasks that are gone, or of a reused tid (evict): so the mark is set only when the
	 * entry is this task's (start_owned). tracekit's own threads are never marked. */
	sp = bpf_task_storage_get(&scratch, task, NULL, 0);
	/* a cgroup target is checked at every call: a task may move out of the cgroup */
	if (!sp || !sp->traced || targ_cgroup_id) {
		pid_tgid = bpf_get_current_pid_tgid();
		if ((__u32)(pid_tgid >> 32) == targ_self_tgid ||
		    !is_traced((__u32)pid_tgid, pid_tgid >> 32, &info))
			return 0;
		owned = !info || start_owned(info, task);
		if (info && (info->flags & TK_PID_PENDING_EXEC)) {
			/* rule 2: a command target's trace starts at its execve */
			if (!is_exec_nr(id, task_compat_flag(task)))
				return 0;
			info->flags &= ~TK_PID_PENDING_EXEC;
			owned = true; /* the held command itself (its entry has no start time) */
		}
		/* the thread's entry, created zeroed (no call in flight, no fork mark: a call
		 * entered ends it), lives until the task exits and is reused for each call */
		sp = bpf_task_storage_get(&scratch, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!sp) {
			count(TK_CNT_SCRATCH_FULL); /* no memory (GFP_ATOMIC) or storage busy */
			return 0;
		}
		sp->traced = owned;
	} else {
		pid_tgid = task_pid_tgid(task);
	}
	compat = task_compat_flag(task);
	if (compat || records_on())
		__builtin_memset(&w, 0, sizeof(w));
	/* an i386 socketcall is selected, counted and recorded as its sub-call */
	if (compat) {
		args32(regs, id, &w);
		id = w.nr;
		compat |= w.flags & TK_SC_INDIRECT;
	}
	if (!nr_selected(id, compat)) {
		/* hidden, but its fd-table change is recorded (syscalls.h: the fd table) */
		if (!fd_state_nr(id, compat))
			return 0;
		fd_only = 1;
	}

	if (!records_on()) {
		/* the summary alone: the entry time and number, nothing to read or emit */
		now = bpf_ktime_get_ns();
		if (is_exit_nr(id, compat)) {
			/* never reaches sys_exit: counted now */
			if (unfinished_selected())
				sum_add(sp, task, pid_tgid, id, compat, SUM_NORETURN, 0, 0, now);
			return 0;
		}
		sp->ts_ns = now;
		sp->nr = id;
		sp->has_caps = 0;
		sp->fork_child = 0;
		sp->compat = compat;
		sp->fd_only = fd_only;
		return 0;
	}
	return enter_record(ctx, regs, id, sp, task, pid_tgid, compat, fd_only, &w);
}

/* Whether the paired call in s, returning ret at now, is one the selection shows: not a
 * call kept only for its fd-table change, its result selected (-e status=), and at least
 * targ_min_duration_ns long. */
static __always_inline bool call_shown(const struct tk_scratch *s, long ret, __u64 now)
{
	return !s->fd_only && ret_selected(ret) && now - s->ts_ns >= targ_min_duration_ns;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tk_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tk_pid_info *info;
	struct tk_scratch *s;
	struct tk_capbuf *c;
	struct tk_words32 w; /* zeroed where it is used: not on the paired path */
	__u32 compat, kind;
	__u64 pid_tgid;
	__u32 tid, tgid;
	__u32 wake, dying;
	__u64 now;
	long nr;

	/* An entry in flight was stored by tk_sys_enter of this traced task (never one of
	 * tracekit's own): the exit pairs with it without a pids lookup. */
	s = bpf_task_storage_get(&scratch, task, NULL, 0);
	/* a call that never returns to user space stays in flight for tk_proc_exit */
	if (s && s->ts_ns && dying_in_call(task, s))
		return 0;
	if (s && s->ts_ns && !records_on()) {
		/* the summary alone: the paired call counted, nothing read or emitted (what
		 * the general path below does in this mode, on its own registers) */
		now = bpf_ktime_get_ns();
		if (call_shown(s, ret, now))
			sum_add(s, task, task_pid_tgid(task), s->nr, s->compat, SUM_TIMED, ret,
				s->ts_ns, now);
		s->ts_ns = 0;
		return 0;
	}
	if (s && s->ts_ns) {
		now = bpf_ktime_get_ns();
		pid_tgid = task_pid_tgid(task);
		tid = (__u32)pid_tgid;
		compat = s->compat; /* TS_COMPAT is the entry's until the exit */
		if (call_shown(s, ret, now))
			kind = TK_REC_SYSCALL;
		else if (fd_state_nr(s->nr, compat))
			kind = TK_REC_FD_STATE; /* hidden: only its fd-table change */
		else
			kind = 0;
		if (kind == TK_REC_SYSCALL && targ_summary)
			sum_add(s, task, pid_tgid, s->nr, compat, SUM_TIMED, ret, s->ts_ns, now);
		if (kind) { /* records are on: the summary alone returned above */
			wake = targ_stacks && kind == TK_REC_SYSCALL ?
				tk_stack_emit(pid_tgid, s->ts_ns) : 0;
			c = targ_capture && s->has_caps ?
				bpf_map_lookup_elem(&capbuf, &tid) : NULL;
			if (!c || c->entry_ts != s->ts_ns ||
			    !emit_captured(c, s, pid_tgid, now, ret, compat | wake, regs->sp,
					   kind)) {
				if (kind == TK_REC_SYSCALL)
					emit_syscall(compat | wake, s->ts_ns, now - s->ts_ns,
						     pid_tgid, s->nr, s->args, ret);
				else
					emit_fd_state(s, pid_tgid, now, ret);
			}
		}
		s->ts_ns = 0; /* consumed; the entry stays for the thread's next call */
		return 0;
	}
	/* A new child's return from the clone/fork/vfork/clone3 its parent made: the call
	 * is the parent's (paired there), not one of the child's. */
	if (s && s->fork_child) {
		s->fork_child = 0;
		return 0;
	}
	pid_tgid = bpf_get_current_pid_tgid();
	tid = (__u32)pid_tgid;
	tgid = pid_tgid >> 32;
	if (tgid == targ_self_tgid)
		return 0;
	/* No entry: the thread was inside this call when tracing began (or scratch had no
	 * room at entry, counted there). A PENDING_EXEC task is not traced yet. */
	if (!is_traced(tid, tgid, &info))
		return 0;
	if (info && (info->flags & TK_PID_PENDING_EXEC))
		return 0;
	__builtin_memset(&w, 0, sizeof(w));
	nr = regs_syscall_nr(regs);
	compat = task_compat_flag(task);
	if (compat) {
		args32(regs, nr, &w);
		nr = w.nr;
		compat |= w.flags & TK_SC_INDIRECT;
	}
	if (!nr_selected(nr, compat))
		return 0;
	/* a call that never returns to user space (dying_in_call) is strace's `= ?`, one
	 * of status=unfinished, not its -ERESTART* return */
	dying = dying_in_call(task, s) ? TK_SC_UNFINISHED : 0;
	if (dying ? !unfinished_selected() : !ret_selected(ret))
		return 0;
	if (targ_summary)
		sum_add(s, task, pid_tgid, nr, compat, dying ? SUM_UNFINISHED : SUM_RESUMED, ret,
			0, bpf_ktime_get_ns());
	if (records_on()) {
		struct tk_scratch rs = {};
		__u32 extra = dying;
		__u64 ts = 0;
		int i;

		/* This thread's scratch is there (its earlier calls were traced) and holds no
		 * entry: the call entered while traced, and its sys_enter never ran (a
		 * seccomp filter refused it), not a call it was in when tracing began. */
		if (s && !dying) {
			extra = TK_SC_SKIPPED;
			ts = bpf_ktime_get_ns();
		}

		rs.nr = nr;
		rs.compat = compat;
		if (compat)
			for (i = 0; i < 6; i++)
				rs.args[i] = w.w[i];
		else
			regs_exit_args(regs, rs.args, compat);
		if (!targ_capture || w.nocap ||
		    !tk_emit_attached(&rs, pid_tgid, ret, extra, ts))
			emit_syscall(TK_SC_RESUMED | TK_SC_ATTACHED | compat | extra, ts, 0,
				     pid_tgid, nr, rs.args, ret);
	}
	return 0;
}

/* The child of a traced clone() will be traced: its first sys_exit is the return from
 * the parent's call (ret_from_fork), with no entry of its own. The child has not run
 * yet (sched_process_fork fires before wake_up_new_task), so the mark is there first. */
static __always_inline void mark_fork_child(struct task_struct *child)
{
	struct tk_scratch *s;

	s = bpf_task_storage_get(&scratch, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (s) {
		s->fork_child = 1;
		s->traced = 1;
	} else
		count(TK_CNT_SCRATCH_FULL);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tk_proc_fork, struct task_struct *parent, struct task_struct *child)
{
	/* rule 3: the thread that called clone() is current; parent may be another
	 * task (CLONE_PARENT) and its tgid says nothing about this thread. */
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info cinfo = {};
	struct tk_fork *r;
	__u32 child_tid;

	if (tgid == targ_self_tgid)
		return 0;
	child_tid = child->pid;
	cinfo.tgid = child->tgid;
	/* System-wide mode traces every task without pids entries. Its fork records are
	 * only for the fd tables (a child starts with its parent's fds and working
	 * directory, which user space copies at the record): with targ_fd_state, and of a
	 * cgroup target only the forks inside the cgroup (the child is where the thread
	 * that called clone() is). */
	if (targ_system_wide) {
		mark_fork_child(child);
		if (!targ_fd_state || (targ_cgroup_id && !in_cgroup()))
			return 0;
		goto emit;
	}
	if (!bpf_map_lookup_elem(&pids, &tid))
		return 0;

	cinfo.start_time_ns = child->start_boottime;
	cinfo.flags = 0;
	if (targ_follow_forks) {
		if (bpf_map_update_elem(&pids, &child_tid, &cinfo, BPF_ANY))
			count(TK_CNT_PIDS_FULL);
		else
			mark_fork_child(child);
	}

emit:
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST_LIFECYCLE);
		return 0;
	}
	r->hdr.kind = TK_REC_FORK;
	r->hdr.flags = 0;
	r->hdr.ts_ns = bpf_ktime_get_ns();
	r->parent_tid = tid;
	r->parent_tgid = tgid;
	r->child_tid = child_tid;
	r->child_tgid = cinfo.tgid;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(tk_proc_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 old_tid = old_pid, new_tid = p->pid, tgid = p->tgid;
	struct tk_pid_info *info, moved;
	struct tk_capbuf *c;
	struct tk_exec *r;

	if (tgid == targ_self_tgid)
		return 0;
	info = NULL;
	if (!targ_system_wide) {
		info = bpf_map_lookup_elem(&pids, &old_tid);
		if (!info)
			return 0;
	} else if (targ_cgroup_id && !in_cgroup()) {
		return 0;
	}
	if (old_tid != new_tid) {
		/* Some facts about exec by a non-leader thread: de_thread() has already reaped
		 * the old leader (its sched_process_exit deleted the tgid key) and given this
		 * thread the leader's tid and start_time. rule 3: delete the old key first so
		 * the insert finds room in a full map. */
		if (info) {
			moved = *info;
			moved.start_time_ns = p->start_boottime;
			bpf_map_delete_elem(&pids, &old_tid);
			if (bpf_map_update_elem(&pids, &new_tid, &moved, BPF_ANY))
				count(TK_CNT_PIDS_FULL);
		}
		/* execve's sys_exit runs under the new tid in the same task_struct: its
		 * scratch entry (task storage) is already there; its captures move */
		/* the captures (argv): copied map value to map value, once per such exec */
		c = bpf_map_lookup_elem(&capbuf, &old_tid);
		if (c) {
			if (bpf_map_update_elem(&capbuf, &new_tid, c, BPF_ANY))
				count(TK_CNT_CAPBUF_FULL);
			bpf_map_delete_elem(&capbuf, &old_tid);
		}
	}

	note_exec_interp(new_tid, bprm);

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST_LIFECYCLE);
	} else {
		r->hdr.kind = TK_REC_EXEC;
		r->hdr.flags = 0;
		r->hdr.ts_ns = bpf_ktime_get_ns();
		r->tid = new_tid;
		r->old_tid = old_tid;
		bpf_get_current_comm(r->comm, sizeof(r->comm));
		if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename),
					      bprm->filename) < 0)
			r->filename[0] = '\0';
		bpf_ringbuf_submit(r, 0);
	}
	/* after the exec record: user space applies it to the table the exec left */
	emit_fd_exec(p, new_tid, tgid);
	return 0;
}

/* Whether p, at sched_process_exit, is a thread seccomp killed alone at a call's entry:
 * SECCOMP_RET_KILL_THREAD while other threads of its process live (kernel/seccomp.c
 * __seccomp_filter: do_exit(SIGSYS)) or strict mode's refusal (do_exit(SIGKILL)); both
 * set its mode to SECCOMP_MODE_DEAD first, before sys_enter, and the call never reaches
 * sys_exit. (The last thread, and SECCOMP_RET_KILL_PROCESS, are given a forced SIGSYS
 * instead: the call returns through sys_exit, refused, and the group exits.) */
static __always_inline bool seccomp_killed_thread(struct task_struct *p)
{
	if (!bpf_core_field_exists(p->seccomp))
		return false;
	return p->seccomp.mode == TK_SECCOMP_MODE_DEAD && (p->exit_code & 0x7f) &&
	       !(p->signal->flags & TK_SIGNAL_GROUP_EXIT);
}

/* The call seccomp killed the current thread p at (seccomp_killed_thread), which strace
 * saw enter and prints `getppid() = ?`, made p's call in flight in its scratch entry s,
 * as sys_enter would have made it, so that tk_proc_exit emits it TK_SC_UNFINISHED like
 * any call a thread dies in. p's registers still hold the number and the arguments
 * (task_pt_regs); the time is now, microseconds after the entry. Its memory is not read
 * (a path prints as its address). A call the selection leaves out stays out. */
static __always_inline void seccomp_killed_call(struct tk_scratch *s, struct task_struct *p)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(p);
	__u32 compat;
	long nr;

	if (!regs)
		return;
	nr = regs_syscall_nr(regs);
	compat = task_compat_flag(p);
	if (!nr_selected(nr, compat))
		return;
	s->nr = nr;
	s->compat = compat;
	s->has_caps = 0;
	s->fd_only = 0;
	regs_exit_args(regs, s->args, compat);
	s->ts_ns = bpf_ktime_get_ns();
}

/* Only p is read: the bool group_dead argument exists on newer kernels only. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tk_proc_exit, struct task_struct *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info *info;
	struct tk_scratch *s;
	struct tk_capbuf *c;
	struct tk_exit *r;
	bool traced, alone;
	__u32 wake;

	traced = is_traced(tid, tgid, &info);
	/* rule 3: the tid leaves pids in do_exit, whatever the mode (the value is not read
	 * below: info only tells whether there was one) */
	if (info || targ_system_wide)
		bpf_map_delete_elem(&pids, &tid);
	/* A call in flight never returns; the entry goes now (the task would free it
	 * later, when it is reaped) */
	s = bpf_task_storage_get(&scratch, p, NULL, 0);
	alone = traced && seccomp_killed_thread(p);
	if (s) {
		/* the call seccomp killed the thread at never entered: made in flight here */
		if (alone && !s->ts_ns)
			seccomp_killed_call(s, p);
		if (s->ts_ns && !s->fd_only && traced && unfinished_selected() && targ_summary)
			sum_add(s, p, pid_tgid, s->nr, s->compat, SUM_UNFINISHED, 0, 0,
				bpf_ktime_get_ns());
		if (s->ts_ns && !s->fd_only && traced && unfinished_selected() && records_on()) {
			wake = targ_stacks ? tk_stack_emit(pid_tgid, s->ts_ns) : 0;
			c = targ_capture && s->has_caps ?
				bpf_map_lookup_elem(&capbuf, &tid) : NULL;
			if (!c || c->entry_ts != s->ts_ns ||
			    !emit_unfinished_captured(c, s, pid_tgid, wake))
				emit_syscall(TK_SC_UNFINISHED | s->compat | wake, s->ts_ns, 0, pid_tgid,
					     s->nr, s->args, 0);
		}
		bpf_task_storage_delete(&scratch, p);
	}
	if (targ_stacks)
		bpf_task_storage_delete(&stack_slot, p);
	/* the capture slot lives as long as the thread */
	bpf_map_delete_elem(&capbuf, &tid);
	if (!traced)
		return 0;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (r) {
		r->hdr.kind = TK_REC_EXIT;
		r->exec_tid = 0;
		r->_pad = 0;
		r->hdr.flags = superseded_by_exec(p, &r->exec_tid) ? TK_EXIT_SUPERSEDED : 0;
		if (alone)
			r->hdr.flags |= TK_EXIT_ALONE;
		r->hdr.ts_ns = bpf_ktime_get_ns();
		r->tid = p->pid;
		r->tgid = p->tgid;
		r->exit_code = p->exit_code;
		/* do_exit() decremented signal->live before this tracepoint */
		r->group_dead = p->signal->live.counter == 0;
		bpf_get_current_comm(r->comm, sizeof(r->comm));
		bpf_ringbuf_submit(r, 0);
	} else {
		count(TK_CNT_LOST_LIFECYCLE);
	}
	return 0;
}

/* strace -e signal=: whether deliveries of sig are recorded (bit sig-1 of targ_signals). */
static __always_inline bool signal_selected(int sig)
{
	return sig >= 1 && sig <= 64 && ((targ_signals >> (sig - 1)) & 1);
}

/* A traced thread dequeued a signal (get_signal(), include/trace/events/signal.h): the
 * strace "--- SIGxxx {siginfo} ---" line. Same filter as the syscall progs (pids, not
 * PENDING_EXEC; tracekit's own tgid never); in summary mode only with the records. */
/* include/linux/signal_types.h: a kernel-internal sa_flags bit, set on a disposition
 * the kernel forced (force_sig_info_to_task with HANDLER_EXIT) */
#define TK_SA_IMMUTABLE 0x00800000

/* task's user instruction pointer, saved where it entered the kernel (0: none): where
 * the signal is taken when it returns to user space (strace -i's signal lines) */
static __always_inline __u64 signal_ip(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return regs ? regs_ip(regs) : 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(tk_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info *pinfo;
	struct tk_signal *r;

	if (!records_on() || !signal_selected(sig) || !is_traced(tid, tgid, &pinfo))
		return 0;
	if (pinfo && (pinfo->flags & TK_PID_PENDING_EXEC))
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST_LIFECYCLE);
		return 0;
	}
	r->hdr.kind = TK_REC_SIGNAL;
	r->hdr.flags = (BPF_CORE_READ(ka, sa.sa_flags) & TK_SA_IMMUTABLE) ? TK_SIG_EXIT_ONLY : 0;
	r->hdr.ts_ns = bpf_ktime_get_ns();
	r->tid = tid;
	r->tgid = tgid;
	r->sig = sig;
	r->_pad = 0;
	r->sa_handler = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
	if (bpf_probe_read_kernel(r->info, sizeof(r->info), info) < 0)
		__builtin_memset(r->info, 0, sizeof(r->info));
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	r->ip = signal_ip(bpf_get_current_task_btf());
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/* A fatal signal that never reaches get_signal() as itself: complete_signal()
 * (kernel/signal.c) turns a signal whose default action kills without a core dump, sent
 * to a task that is not ptraced and that does not block it, into a group exit at once
 * (SIGNAL_GROUP_EXIT, group_exit_code = sig, SIGKILL queued to every thread), so
 * tk_signal_deliver sees only that SIGKILL. strace's tracee is ptraced and shows the
 * signal itself ("--- SIGTERM {...} ---" before "+++ killed by SIGTERM +++"): the same
 * TK_REC_SIGNAL record is made here, when the signal is sent (trace_signal_generate runs
 * after complete_signal). info is SEND_SIG_NOINFO (0: a kernel-sent SI_USER signal from
 * current) or SEND_SIG_PRIV (1: SI_KERNEL) or a real siginfo. Not in cgroup mode (the
 * target's cgroup is not current's). */
/*
 * An ignored signal: one whose disposition is SIG_IGN, or SIG_DFL with an "ignore"
 * default (SIGCHLD, SIGURG, SIGWINCH, SIGCONT), sent to a task that is not ptraced and
 * does not block it, is dropped when it is sent (prepare_signal() -> sig_ignored(),
 * kernel/signal.c: result TRACE_SIGNAL_IGNORED) and never dequeued. A ptraced task's
 * signals are never dropped there, so strace shows each one ("--- SIGCHLD {...} ---"
 * after a child exits, in a parent that left SIGCHLD alone): the same record is made
 * here, with the disposition the task has. A group that is dying drops every signal but
 * SIGKILL for ptraced tasks too: not shown.
 */
#define TK_SEND_SIG_PRIV 1UL
#define TK_SI_KERNEL 0x80
#define TK_TRACE_SIGNAL_DELIVERED 0 /* include/trace/events/signal.h */
#define TK_TRACE_SIGNAL_IGNORED 1
SEC("tp_btf/signal_generate")
int BPF_PROG(tk_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct signal_struct *ss;
	struct tk_pid_info *pinfo;
	struct tk_scratch *s;
	struct tk_signal *r;
	__u64 handler = 0;
	__u32 tid, tgid;

	if (sig == 9 /* SIGKILL */)
		return 0;
	ss = BPF_CORE_READ(task, signal);
	if (result == TK_TRACE_SIGNAL_DELIVERED) {
		if (!(BPF_CORE_READ(ss, flags) & TK_SIGNAL_GROUP_EXIT) ||
		    BPF_CORE_READ(ss, group_exit_code) != sig)
			return 0;
		/* the group exit made of this signal: strace's tracee takes it in task
		 * (dying_in_call), whatever is recorded (a traced task has scratch) */
		s = bpf_task_storage_get(&scratch, task, NULL, 0);
		if (s)
			s->took_signal = 1;
	} else if (result != TK_TRACE_SIGNAL_IGNORED ||
		   BPF_CORE_READ(ss, flags) & TK_SIGNAL_GROUP_EXIT) {
		return 0;
	}
	if (!records_on() || !signal_selected(sig))
		return 0;
	tid = BPF_CORE_READ(task, pid);
	tgid = BPF_CORE_READ(task, tgid);
	if (tgid == targ_self_tgid)
		return 0;
	if (targ_system_wide) {
		if (targ_cgroup_id)
			return 0;
	} else {
		pinfo = bpf_map_lookup_elem(&pids, &tid);
		if (!pinfo || (pinfo->flags & TK_PID_PENDING_EXEC))
			return 0;
	}
	if (result == TK_TRACE_SIGNAL_IGNORED) {
		/* the disposition, action[sig - 1].sa.sa_handler, by the running kernel's
		 * layout (a fatal signal's is SIG_DFL: the only action that kills) */
		struct sighand_struct *sh = BPF_CORE_READ(task, sighand);
		__u64 off = bpf_core_field_offset(struct sighand_struct, action) +
			    (__u64)(sig - 1) * bpf_core_type_size(struct k_sigaction) +
			    bpf_core_field_offset(struct k_sigaction, sa) +
			    bpf_core_field_offset(struct sigaction, sa_handler);

		if (!sh || bpf_probe_read_kernel(&handler, sizeof(handler), (void *)sh + off) < 0)
			handler = 0;
	}
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST_LIFECYCLE);
		return 0;
	}
	r->hdr.kind = TK_REC_SIGNAL;
	r->hdr.flags = 0;
	r->hdr.ts_ns = bpf_ktime_get_ns();
	r->tid = tid;
	r->tgid = tgid;
	r->sig = sig;
	r->_pad = 0;
	r->sa_handler = handler;
	__builtin_memset(r->info, 0, sizeof(r->info));
	if ((unsigned long)info > TK_SEND_SIG_PRIV) {
		if (bpf_probe_read_kernel(r->info, sizeof(r->info), info) < 0)
			__builtin_memset(r->info, 0, sizeof(r->info));
	} else {
		/* __send_signal_locked's siginfo for these: si_signo, si_code at 0 and 8;
		 * SI_USER's si_pid, si_uid at 16 and 20 (current's tgid and uid) */
		*(__s32 *)&r->info[0] = sig;
		if (info) {
			*(__s32 *)&r->info[8] = TK_SI_KERNEL;
		} else {
			*(__u32 *)&r->info[16] = bpf_get_current_pid_tgid() >> 32;
			*(__u32 *)&r->info[20] = (__u32)bpf_get_current_uid_gid();
		}
	}
	BPF_CORE_READ_STR_INTO(&r->comm, task, comm);
	r->ip = signal_ip(task);
	bpf_ringbuf_submit(r, 0);
	return 0;
}
