// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Used by the never-veto test (tests/bpf/test_object.py): a classic tracepoint prog on
 * raw_syscalls:sys_enter that counts targ_tgid's syscalls in hits (.bss) and RETURNS 1,
 * so perf/ftrace listeners on the same tracepoint still get every event. The test
 * attaches it next to a perf or tracefs listener and checks that listener's count.
 */
#include <linux/bpf.h>
#include "core_types.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 targ_tgid = 0;
__u64 hits;

SEC("tracepoint/raw_syscalls/sys_enter")
int tt_sys_enter(void *ctx)
{
	if (bpf_get_current_pid_tgid() >> 32 == targ_tgid)
		__sync_fetch_and_add(&hits, 1);
	return 1; /* rule 1: 0 would drop the event for perf/ftrace listeners */
}
