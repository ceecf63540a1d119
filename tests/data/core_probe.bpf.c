// SPDX-License-Identifier: GPL-2.0
/* Test object for tracekit's BTF parser and CO-RE relocator (tests/bpf/test_btf.py and
 * tests/bpf/test_relo_core.py).
 *
 * Rebuild (clang 14, libbpf-dev headers), from this folder:
 *   clang -target bpf -O2 -g -I/usr/include/$(uname -m)-linux-gnu \
 *         -c core_probe.bpf.c -o core_probe.bpf.o
 * The object is committed because CI has no clang.
 *
 * The local types below are deliberately NOT the kernel's layout: members are fewer and in a
 * different order, so a relocated offset that equals the kernel's offset proves the relocator
 * worked (the unrelocated local offsets are small: 0, 4, 8 ...).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct task_struct {
	int tgid;
	int pid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

/* A flavor: matched to the kernel's task_struct with "___tk" stripped. */
struct task_struct___tk {
	struct task_struct *group_leader;
	int no_such_field_in_any_kernel;
} __attribute__((preserve_access_index));

/* A flavor that names a type no kernel has. */
struct tracekit_no_such_type___x {
	int a;
} __attribute__((preserve_access_index));

struct pt_regs {
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} out SEC(".maps");

const volatile int targ_tgid = 0;   /* .rodata */
int hits = 1;                        /* .data */
__u64 last_value;                    /* .bss */

static __always_inline void emit(__u32 slot, __u64 v)
{
	bpf_map_update_elem(&out, &slot, &v, BPF_ANY);
}

/* direct loads (LDX off relocations) and bpf_core_read (ALU imm relocations) */
SEC("tp_btf/sys_enter")
int probe_fields(__u64 *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_struct___tk *tk = (void *)t;
	struct pt_regs *regs = (void *)ctx[0];

	if (targ_tgid && t->tgid != targ_tgid)
		return 0;
	emit(0, t->pid);
	emit(1, (__u64)BPF_CORE_READ(tk, group_leader, tgid));
	emit(2, bpf_core_field_exists(tk->no_such_field_in_any_kernel));
	emit(3, BPF_CORE_READ(regs, di) + bpf_core_field_size(regs->orig_ax));
	hits++;
	last_value = bpf_core_field_exists(t->real_parent);
	return 0;
}

/* type and enum relocations (LD_IMM64 and ALU imm) */
SEC("tp_btf/sys_enter")
int probe_types(__u64 *ctx)
{
	emit(0, bpf_core_type_exists(struct task_struct));
	emit(1, bpf_core_type_exists(struct tracekit_no_such_type___x));
	emit(2, bpf_core_type_size(struct pt_regs));
	emit(3, bpf_core_enum_value(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF));
	last_value = bpf_core_enum_value_exists(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF);
	hits = bpf_core_type_id_kernel(struct task_struct);
	return 0;
}

/* a field no kernel has, read for real: FIELD_BYTE_OFFSET cannot be resolved */
SEC("tp_btf/sys_exit")
int probe_missing(__u64 *ctx)
{
	struct task_struct___tk *tk = (void *)bpf_get_current_task_btf();

	emit(0, BPF_CORE_READ(tk, no_such_field_in_any_kernel));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
