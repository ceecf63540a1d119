// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The floor of a syscall tracer's kernel path, for benchmarks only (bench/kernel_summary.py;
 * not package data, not in the wheel): a tp_btf sys_enter and sys_exit that look the
 * current tid up in a pids map shaped like the tracer's and do nothing else. What any
 * filter by tid costs per traced syscall; tracekit's programs are measured against it.
 * floor_clock_* are the same pair with one bpf_ktime_get_ns() each: what any tracer that
 * times each call (strace -c's time column) adds to the floor. One pair is loaded at a
 * time (the other's progs not autoloaded).
 * kernel terms: tid = pid (a thread), tgid = process id (user-visible "pid").
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* the tracer's pids map: tid -> struct tk_pid_info (16 bytes; programs/syscalls.h) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8[16]);
} pids SEC(".maps");

/* The lookup's result is not used: the helper call stays (clang cannot drop a call to a
 * helper), and nothing else, not even a counter, is added to what is measured. */
static __always_inline void lookup(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_lookup_elem(&pids, &tid);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter, struct pt_regs *regs, long id)
{
	lookup();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit, struct pt_regs *regs, long ret)
{
	lookup();
	return 0;
}

/* the clock reads' results go here, so that they are kept (a helper's result unused is
 * still a call, but a store makes what is measured plain) */
__u64 floor_clock_ts;

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_clock_sys_enter, struct pt_regs *regs, long id)
{
	lookup();
	floor_clock_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_clock_sys_exit, struct pt_regs *regs, long ret)
{
	lookup();
	floor_clock_ts = bpf_ktime_get_ns();
	return 0;
}
