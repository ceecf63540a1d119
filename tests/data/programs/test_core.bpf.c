// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Used by the loader's CO-RE relocation tests (tests/bpf/test_object.py, BpfObject): after
 * targ_tgid makes a syscall,
 *   seen_tgid (.bss)            == targ_tgid: task->tgid read through a field relocation
 *                                  (local struct task_struct in core_types.h)
 *   missing_field_exists (.bss) == 0: a FIELD_EXISTS relocation on a field no kernel has
 *   seen_calls (.bss)           > 0: the prog ran, so the two values above were written
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* A local flavor of the kernel's task_struct with a made-up field. */
struct task_struct___x {
	int no_such_field;
} __attribute__((preserve_access_index));

const volatile __u32 targ_tgid = 0;
__u32 seen_tgid;
__u32 missing_field_exists; /* .bss; seen_calls tells "written 0" from "never written" */
__u64 seen_calls;

SEC("tp_btf/sys_enter")
int BPF_PROG(tc_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;

	if (bpf_get_current_pid_tgid() >> 32 != targ_tgid)
		return 0;
	task = bpf_get_current_task_btf();
	seen_tgid = task->tgid;
	missing_field_exists = bpf_core_field_exists(struct task_struct___x, no_such_field);
	__sync_fetch_and_add(&seen_calls, 1);
	return 0;
}
