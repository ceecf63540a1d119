// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Used by the loader's bpf-to-bpf call tests (tests/bpf/test_subprog_calls.py): a tp_btf prog
 * that calls a static noinline function and a global function (verified once, on its own),
 * both in .text, which call each other and touch maps and global data; a second prog calls
 * only the global one, so each prog gets only the subprograms it reaches.
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 targ_tgid = 0;
__u64 static_calls;     /* .bss: times add_static ran */
__u64 global_sum;       /* .bss: sum of what add_global was given */
__u64 exit_calls;       /* .bss: times the sys_exit prog reached add_global */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

/* Global: the verifier checks it once, with only its argument types known. */
__attribute__((noinline)) int add_global(__u64 v)
{
	__u32 zero = 0;
	__u64 *slot = bpf_map_lookup_elem(&seen, &zero);

	if (slot)
		__sync_fetch_and_add(slot, 1);
	__sync_fetch_and_add(&global_sum, v);
	return 0;
}

/* Static noinline: a subprogram verified in its caller's context. */
static __attribute__((noinline)) int add_static(__u64 v)
{
	__sync_fetch_and_add(&static_calls, 1);
	return add_global(v) + 1;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ts_sys_enter, struct pt_regs *regs, long id)
{
	if (bpf_get_current_pid_tgid() >> 32 != targ_tgid)
		return 0;
	add_static(id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ts_sys_exit, struct pt_regs *regs, long ret)
{
	if (bpf_get_current_pid_tgid() >> 32 != targ_tgid)
		return 0;
	__sync_fetch_and_add(&exit_calls, 1);
	add_global(0);
	return 0;
}
