// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Used by the loader's map and global-data tests (tests/bpf/test_object.py, BpfObject): one
 * BTF-defined map of each kind tracekit uses, and globals in .rodata, .data and .bss.
 * The test sets targ_tgid and targ_magic before load, makes syscalls, then reads back:
 *   hits (.bss)          syscalls made by targ_tgid
 *   array[0]             targ_magic
 *   hash[syscall id]     calls per syscall number by targ_tgid
 *   percpu[0]            calls by targ_tgid on each CPU (sum == hits)
 *   lru[tid]             calls per thread of targ_tgid
 * counter_data (.data) stays 7; ringbuf is created and never written.
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_magic = 0;
__u64 counter_data = 7;
__u64 hits;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);   /* syscall id */
	__type(value, __u64); /* calls */
} hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);   /* tid */
	__type(value, __u64); /* calls */
} lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10); /* bytes */
} ringbuf SEC(".maps");

static __always_inline void bump(void *map, __u32 key)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(map, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(map, &key, &one, BPF_NOEXIST);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tm_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 magic = targ_magic, *pc;
	__u32 zero = 0;

	if (pid_tgid >> 32 != targ_tgid)
		return 0;
	__sync_fetch_and_add(&hits, 1);
	bpf_map_update_elem(&array, &zero, &magic, BPF_ANY);
	bump(&hash, (__u32)id);
	pc = bpf_map_lookup_elem(&percpu, &zero);
	if (pc)
		*pc += 1;
	bump(&lru, (__u32)pid_tgid);
	return 0;
}
