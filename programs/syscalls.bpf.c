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
 *   8  a failed ring-buffer reservation counts TK_CNT_LOST.
 *   9  tasks of targ_self_tgid are never traced.
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
const volatile __u64 targ_min_duration_ns = 0; /* drop paired calls shorter than this */

#define TK_FILTER_MAX 1024

/* Value of the "scratch" map: a syscall entry waiting for its exit (64 bytes). */
struct tk_scratch {
	__u64 ts_ns; /* bpf_ktime_get_ns() at entry */
	__s64 nr;
	__u64 args[6];
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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* tid */
	__type(value, struct tk_scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TK_CNT_MAX);
	__type(key, __u32);   /* enum tk_counter */
	__type(value, __u64); /* per CPU; userspace sums */
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TK_FILTER_MAX);
	__type(key, __u32);  /* syscall nr, native table */
	__type(value, __u8); /* 1 = selected */
} syscall_filter SEC(".maps");

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
#else
#define NR_EXIT 93
#define NR_EXIT_GROUP 94
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#endif

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		__sync_fetch_and_add(c, 1);
}

/* TK_SC_COMPAT when the current syscall is a 32-bit one (x86_64 only: TS_COMPAT in
 * thread_info.status, still set at sys_exit). arm64 compat tasks are not flagged. */
static __always_inline __u32 compat_flag(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = bpf_get_current_task_btf();

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

/* Whether the current thread is traced; *info is its pids entry (NULL in system-wide
 * mode, where pids is not consulted). */
static __always_inline bool is_traced(__u32 tid, __u32 tgid, struct tk_pid_info **info)
{
	*info = NULL;
	if (tgid == targ_self_tgid)
		return false;
	if (targ_system_wide)
		return true;
	*info = bpf_map_lookup_elem(&pids, &tid);
	return *info != NULL;
}

static __always_inline bool nr_selected(long nr)
{
	__u32 key;
	__u8 *sel;

	if (!targ_filter_syscalls)
		return true;
	if (nr < 0 || nr >= TK_FILTER_MAX)
		return false;
	key = nr;
	sel = bpf_map_lookup_elem(&syscall_filter, &key);
	return sel && *sel == 1;
}

static __always_inline bool ret_selected(long ret)
{
	return !targ_failed_only || (ret >= -4095 && ret < 0);
}

/* Reserve, fill and submit one struct tk_syscall; args NULL means unknown (zeros). */
static __always_inline void emit_syscall(__u32 flags, __u64 ts_ns, __u64 duration_ns,
					 __u64 pid_tgid, long nr, const __u64 *args, long ret)
{
	struct tk_syscall *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	int i;

	if (!r) {
		count(TK_CNT_LOST);
		return;
	}
	r->hdr.kind = TK_REC_SYSCALL;
	r->hdr.flags = flags;
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
	bpf_ringbuf_submit(r, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tk_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info *info;
	struct tk_scratch s;
	__u32 compat;

	if (!is_traced(tid, tgid, &info))
		return 0;
	compat = compat_flag();
	if (info && (info->flags & TK_PID_PENDING_EXEC)) {
		/* rule 2: a command target's trace starts at its execve */
		if (!is_exec_nr(id, compat))
			return 0;
		info->flags &= ~TK_PID_PENDING_EXEC;
	}
	if (!nr_selected(id))
		return 0;

	s.ts_ns = bpf_ktime_get_ns();
	s.nr = id;
	regs_args(regs, s.args);
	if (is_exit_nr(id, compat)) {
		/* never reaches sys_exit: emit now; ret and duration are unknown */
		if (!targ_failed_only)
			emit_syscall(TK_SC_NORETURN | compat, s.ts_ns, 0, pid_tgid, id, s.args, 0);
		return 0;
	}
	if (bpf_map_update_elem(&scratch, &tid, &s, BPF_ANY))
		count(TK_CNT_SCRATCH_FULL);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tk_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info *info;
	struct tk_scratch *s;
	__u64 now;
	long nr;

	if (!is_traced(tid, tgid, &info))
		return 0;
	s = bpf_map_lookup_elem(&scratch, &tid);
	if (s) {
		now = bpf_ktime_get_ns();
		if (ret_selected(ret) && now - s->ts_ns >= targ_min_duration_ns)
			emit_syscall(compat_flag(), s->ts_ns, now - s->ts_ns, pid_tgid, s->nr,
				     s->args, ret);
		bpf_map_delete_elem(&scratch, &tid);
		return 0;
	}
	/* No entry: the thread was inside this call when tracing began (or scratch was
	 * full at entry, counted there). A PENDING_EXEC task is not traced yet. */
	if (info && (info->flags & TK_PID_PENDING_EXEC))
		return 0;
	nr = regs_syscall_nr(regs);
	if (!nr_selected(nr) || !ret_selected(ret))
		return 0;
	emit_syscall(TK_SC_RESUMED | compat_flag(), 0, 0, pid_tgid, nr, NULL, ret);
	return 0;
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

	/* System-wide mode traces every task without pids entries and emits no fork
	 * records (one per clone() on the whole machine would flood the ring buffer). */
	if (targ_system_wide || tgid == targ_self_tgid)
		return 0;
	if (!bpf_map_lookup_elem(&pids, &tid))
		return 0;

	child_tid = child->pid;
	cinfo.start_time_ns = child->start_boottime;
	cinfo.tgid = child->tgid;
	cinfo.flags = 0;
	if (targ_follow_forks && bpf_map_update_elem(&pids, &child_tid, &cinfo, BPF_ANY))
		count(TK_CNT_PIDS_FULL);

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST);
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
	struct tk_scratch *s, s_moved;
	struct tk_exec *r;

	if (tgid == targ_self_tgid)
		return 0;
	info = NULL;
	if (!targ_system_wide) {
		info = bpf_map_lookup_elem(&pids, &old_tid);
		if (!info)
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
		/* execve's sys_exit runs under the new tid: move its entry along */
		s = bpf_map_lookup_elem(&scratch, &old_tid);
		if (s) {
			s_moved = *s;
			bpf_map_delete_elem(&scratch, &old_tid);
			if (bpf_map_update_elem(&scratch, &new_tid, &s_moved, BPF_ANY))
				count(TK_CNT_SCRATCH_FULL);
		}
	}

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(TK_CNT_LOST);
		return 0;
	}
	r->hdr.kind = TK_REC_EXEC;
	r->hdr.flags = 0;
	r->hdr.ts_ns = bpf_ktime_get_ns();
	r->tid = new_tid;
	r->old_tid = old_tid;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), bprm->filename) < 0)
		r->filename[0] = '\0';
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/* Only p is read: the bool group_dead argument exists on newer kernels only. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tk_proc_exit, struct task_struct *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, tgid = pid_tgid >> 32;
	struct tk_pid_info *info;
	struct tk_scratch *s;
	struct tk_exit *r;
	bool traced;

	traced = is_traced(tid, tgid, &info);
	/* rule 3: the tid leaves pids in do_exit, whatever the mode (the value is not read
	 * below: info only tells whether there was one) */
	if (info || targ_system_wide)
		bpf_map_delete_elem(&pids, &tid);
	/* Delete a leftover entry even for an untraced task, so a later task reusing the
	 * tid cannot pair with it. */
	s = bpf_map_lookup_elem(&scratch, &tid);
	if (s) {
		if (traced && !targ_failed_only)
			emit_syscall(TK_SC_UNFINISHED, s->ts_ns, 0, pid_tgid, s->nr, s->args, 0);
		bpf_map_delete_elem(&scratch, &tid);
	}
	if (!traced)
		return 0;

	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (r) {
		r->hdr.kind = TK_REC_EXIT;
		r->hdr.flags = 0;
		r->hdr.ts_ns = bpf_ktime_get_ns();
		r->tid = p->pid;
		r->tgid = p->tgid;
		r->exit_code = p->exit_code;
		/* do_exit() decremented signal->live before this tracepoint */
		r->group_dead = p->signal->live.counter == 0;
		bpf_get_current_comm(r->comm, sizeof(r->comm));
		bpf_ringbuf_submit(r, 0);
	} else {
		count(TK_CNT_LOST);
	}
	return 0;
}
