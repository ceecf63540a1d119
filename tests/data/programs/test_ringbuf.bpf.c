// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Used by the RingBuf reader tests and the loader bench (tests/bpf/, bench/): each
 * syscall targ_nr made by targ_tgid (the bench uses getppid: 110 on x86_64, 173 on
 * arm64) writes one 16-byte record {seq, ts_ns}; seq counts from 0 with no gaps unless
 * a reservation failed, and each failure adds 1 to lost (.bss). So
 * records read + lost == next_seq (.bss) exactly.
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct tr_record {
	__u64 seq;   /* 0, 1, 2, ... in reservation order */
	__u64 ts_ns; /* bpf_ktime_get_ns() */
};

const volatile __u32 targ_tgid = 0;
const volatile __u32 targ_nr = 0;
__u64 next_seq;
__u64 lost;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10); /* bytes; the loader may override */
} events SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(tr_sys_enter, struct pt_regs *regs, long id)
{
	struct tr_record *r;

	if (bpf_get_current_pid_tgid() >> 32 != targ_tgid || id != targ_nr)
		return 0;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		__sync_fetch_and_add(&next_seq, 1);
		return 0;
	}
	r->seq = __sync_fetch_and_add(&next_seq, 1);
	r->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(r, 0);
	return 0;
}
