"""bpf(2) against strace 6.1 on ONE run: tests/workloads/sweep_bpf.c.

It makes the commands a BPF tool makes most, on maps of its own or refused by the kernel
(nothing is loaded, pinned or attached): BPF_MAP_CREATE, the element and batch commands,
BPF_OBJ_GET_INFO_BY_FD, BPF_PROG_LOAD, BPF_OBJ_PIN/GET, BPF_BTF_LOAD, BPF_LINK_CREATE
(by attach type), BPF_LINK_UPDATE, BPF_PROG_ATTACH/DETACH, BPF_RAW_TRACEPOINT_OPEN,
BPF_MAP_FREEZE, the GET_NEXT_ID commands, BPF_PROG_TEST_RUN, the GET_FD_BY_ID commands,
BPF_PROG_QUERY and BPF_TASK_FD_QUERY (their fields as the call left them), a NULL attr,
an unknown command, sizes that pass a page, and every command at every size that cuts
its attr; BPF_PROG_LOAD's license and log_buf and BPF_BTF_LOAD's bytes (read behind the
attr: NULL, bad, at the end of a mapping, longer than strace shows, cut by the size).
tracekit traces ``strace -f -o FILE sweep_bpf``, so both see the same calls: every line
of the program must be equal; so under ``-e verbose=none`` (every attr as its address)
under ``-v`` (``insns=[]``, ``extra_data="\\x05..." /* bytes 16..23 */`` in place of
``...``), but for the two structs strace -v reads that tracekit has no bytes of; under
``-yy`` (the fds in the attr and those the commands return, ``3<anon_inode:bpf-map>``)
and ``-s 4`` (strings and buffers behind the attr cut at 4 bytes).
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, one_run_both, same_lines_one_run, without_gaps

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

def test_sweep_bpf_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_lines = same_lines_one_run(build(tmp_path, "sweep_bpf"), tmp_path)
    text = "\n".join(s_lines)
    for want in (
            # what pointers inside the attr point to (issue 12: TK_SPEC_PTR_AT)
            'license="GPL", log_level=1, log_size=64, log_buf="' + "A" * 32 + '"...,',
            'log_size=3, log_buf="AAA"..., kern_version=', 'log_size=0, log_buf="", ',
            'log_size=33, log_buf="a log\\n\\twith \\"quotes\\"", ',
            'license="Dual BSD/GPL with a licence text"..., log_level=1, log_size=33, '
            "log_buf=0x1, ",
            'license="0123456789abcdef0123456789abcdef", ',
            'license="0123456789abcdef0123456789abcdef"..., ',
            'license=0x1, log_level=1, log_size=64, log_buf="", ',
            "license=0x1, log_level=1, log_size=64, log_buf=0x",
            'license="", log_level=1, log_size=16, log_buf="' + "z" * 16 + '"...,',
            'insns=0x1, license="GPL"}, 24) = -1 E2BIG',
            'log_level=2, log_size=8, log_buf="", ',
            'bpf(BPF_BTF_LOAD, {btf="' + "\\237" * 32 + '"..., btf_log_buf=NULL, btf_size=40,',
            'bpf(BPF_BTF_LOAD, {btf="' + "\\237" * 32 + '", btf_log_buf=0x',
            'bpf(BPF_BTF_LOAD, {btf="", btf_log_buf=0x', "bpf(BPF_BTF_LOAD, {btf=0x1, ",
            'bpf(BPF_BTF_LOAD, {btf="zzzzzzzz", btf_log_buf=0x',
            'bpf(BPF_BTF_LOAD, {btf="\\237\\353", btf_log_buf=NULL, btf_size=2, ',
            "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, "
            "max_entries=1, map_flags=0, inner_map_fd=0, map_name=\"\", map_ifindex=0, "
            "btf_fd=0, btf_key_type_id=0, btf_value_type_id=0, btf_vmlinux_value_type_id=0, "
            "map_extra=0}, 144) = 3",
            "map_flags=BPF_F_NO_PREALLOC, inner_map_fd=0, map_name=\"tk_sweep\",",
            "map_flags=BPF_F_RDONLY_PROG|0x80000000,",
            "bpf(BPF_MAP_UPDATE_ELEM, {map_fd=3, key=0x", ", flags=BPF_ANY}, 144) = 0",
            ", flags=BPF_EXIST}, 144) = 0", ", flags=BPF_NOEXIST}, 144) = -1 EEXIST",
            ", flags=BPF_F_LOCK}, 144) = -1 EINVAL", ", flags=0x100 /* BPF_??? */}, 144)",
            "bpf(BPF_MAP_DELETE_ELEM, {map_fd=3, key=0x", ", ...}, 144) = -1 EINVAL",
            "bpf(BPF_MAP_GET_NEXT_KEY, {map_fd=3, key=NULL, next_key=0x",
            "bpf(BPF_MAP_LOOKUP_ELEM, {map_fd=-1, key=NULL, value=NULL}, 8) = -1 EBADF",
            "bpf(BPF_OBJ_GET_INFO_BY_FD, {info={bpf_fd=3, info_len=256 => ",
            "bpf(BPF_OBJ_GET_INFO_BY_FD, {info={bpf_fd=-1, info_len=",
            "bpf(BPF_MAP_LOOKUP_BATCH, {batch={in_batch=NULL, out_batch=0x",
            ", count=2, map_fd=4, elem_flags=BPF_ANY, flags=0}} => {batch={count=0}}, 144) "
            "= -1 ENOENT",
            "bpf(BPF_BTF_LOAD, {btf=NULL, btf_log_buf=NULL, btf_size=0, btf_log_size=0, "
            "btf_log_level=0}, 144) = -1 EINVAL",
            "bpf(BPF_LINK_CREATE, {link_create={prog_fd=-1, target_fd=-1, "
            "attach_type=BPF_TRACE_FENTRY, flags=0}}, 144) = -1 EBADF",
            "bpf(BPF_MAP_FREEZE, {map_fd=3}, 144) = 0",
            # what follows link_create's flags, by attach type
            "attach_type=BPF_PERF_EVENT, flags=0, perf_event={bpf_cookie=0x7}}}, 144)",
            "attach_type=BPF_PERF_EVENT, flags=0}}, 16) = -1 EBADF",
            "attach_type=BPF_TRACE_ITER, flags=0, iter_info=NULL, iter_info_len=0}}, 144)",
            "kprobe_multi={flags=BPF_F_KPROBE_MULTI_RETURN|0x6, cnt=2, syms=NULL, addrs=NULL, "
            "cookies=NULL}}}, 144) = -1 EBADF",
            "kprobe_multi={flags=0x6 /* BPF_F_??? */, cnt=0, syms=NULL, addrs=NULL, "
            "cookies=NULL}}}, 20) = -1 EBADF",
            "attach_type=BPF_CGROUP_INET_INGRESS, flags=0, target_btf_id=9}}, 144) = -1 EBADF",
            "attach_type=BPF_TRACE_FEXIT, flags=0}, ...}, 144) = -1 EBADF",
            "bpf(BPF_LINK_UPDATE, {link_update={link_fd=-1, new_prog_fd=0, flags=0}}, 144)",
            "{link_update={link_fd=-1, new_prog_fd=0, flags=BPF_F_REPLACE, old_prog_fd=3}}",
            "bpf(BPF_PROG_ATTACH, {target_fd=-1, attach_bpf_fd=-1, "
            "attach_type=BPF_CGROUP_INET_EGRESS, attach_flags=BPF_F_ALLOW_MULTI, "
            "replace_bpf_fd=0}, 144) = -1 EBADF",
            "bpf(BPF_PROG_DETACH, {target_fd=-1, attach_type=BPF_CGROUP_INET_EGRESS, ...}, 144)",
            "bpf(BPF_MAP_UPDATE_BATCH, {batch={keys=0x",
            ", count=2, map_fd=4, elem_flags=BPF_ANY, flags=0}}, 144) = 0",
            "bpf(BPF_MAP_DELETE_BATCH, {batch={keys=0x",
            "bpf(BPF_MAP_LOOKUP_AND_DELETE_BATCH, {batch={in_batch=NULL, out_batch=0x",
            "bpf(BPF_BTF_GET_NEXT_ID, {start_id=4294967280, next_id=",
            "bpf(BPF_LINK_GET_NEXT_ID, {start_id=4294967280, next_id=",
            "bpf(BPF_MAP_LOOKUP_AND_DELETE_ELEM, {map_fd=84215045, key=0x505050505050505, "
            "value=0x505050505050505, flags=BPF_F_LOCK|0x505050505050501, ...}, 40)",
            "bpf(BPF_PROG_GET_NEXT_ID, {start_id=0, next_id=0 => ",
            "bpf(BPF_MAP_GET_NEXT_ID, {start_id=4294967280, next_id=",
            "bpf(BPF_MAP_CREATE, NULL, 0) = -1 EINVAL",
            "bpf(BPF_MAP_CREATE, NULL, 144) = -1 EFAULT",
            "bpf(BPF_MAP_CREATE, 0x1, 144) = -1 EFAULT", "bpf(0x64 /* BPF_??? */, 0x",
            ", 1048576) = -1 E2BIG",
            "btf_vmlinux_value_type_id=0, map_extra=0, ...}, 2000) = -1 E2BIG",
            "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=0, "
            "max_entries=0}, 8) = -1 EINVAL",
            "btf_vmlinux_value_type_id=0, map_extra=0, ...}, 4096) = -1 E2BIG",
            "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=0, "
            "max_entries=0}, 6) = -1 EINVAL",
            "{map_type=0x3e7 /* BPF_MAP_TYPE_??? */, key_size=4,",
            # the cuts: a group prints whole once the size reaches it; map_name cut
            "numa_node=84215045, map_name=\"\"...}, 29) = -1 EINVAL",
            "map_ifindex=84215045, btf_fd=5, btf_key_type_id=0, btf_value_type_id=0}, 49)",
            "flags=BPF_F_LOCK|0x505050505050501, ...}, 40) = -1 EINVAL",
            "attach_type=0x5050505 /* BPF_??? */, flags=0x5050505}, ...}, 24) = -1 EBADF",
            "open_flags=0x5050505 /* BPF_F_??? */, ...}, 20) = -1 EINVAL",
            "bpf(BPF_MAP_GET_NEXT_ID, {start_id=240, next_id=0}, 1) = 0",
            "map_extra=361700864190383365, ...}, 80) = -1 EINVAL",
            # strings at the attr's first word; a pointer cut by the size is an address
            "bpf(BPF_OBJ_PIN, {pathname=\"/nonexistent/tracekit-sweep\", bpf_fd=3, "
            "file_flags=0}, 144) = -1 ENOENT",
            "bpf(BPF_OBJ_GET, {pathname=\"/nonexistent/tracekit-sweep\", bpf_fd=0, "
            "file_flags=BPF_F_RDONLY}, 144) = -1 ENOENT",
            "bpf(BPF_OBJ_GET, {pathname=0x", ", bpf_fd=0}, 5) = -1 EFAULT",
            "bpf(BPF_OBJ_PIN, {pathname=\"/nonexistent/tracekit-sweep\", bpf_fd=0}, 6)",
            "{raw_tracepoint={name=\"sched_switch\", prog_fd=-1}}, 144) = -1 EBADF",
            "{raw_tracepoint={name=\"a_tracepoint_name_longer_than_32\"..., prog_fd=-1}}",
            "{raw_tracepoint={name=0x1, prog_fd=-1}}, 144) = -1 EBADF",
            '{raw_tracepoint={name="' + "n" * 32 + '"..., prog_fd=-1}}, 144) = -1 EBADF',
            # BPF_PROG_LOAD with a license and a log (the cuts): a pointer cut by the
            # size is the address of what was read of it
            "bpf(BPF_PROG_LOAD, {prog_type=0x5050505 /* BPF_PROG_TYPE_??? */, insn_cnt=5, "
            "insns=NULL, license=NULL}, 5) = -1 EFAULT",
            "insns=0x505050505050505, license=0x4}, 17) = -1 E2BIG",
            'license="GPL", log_level=84215045, log_size=84215045, log_buf=0x60}, 33)',
            'log_size=84215045, log_buf="the log"}, 40) = -1 E2BIG',
            'log_buf="the log", kern_version=KERNEL_VERSION(0, 0, 5)}, 41) = -1 E2BIG',
            "kern_version=KERNEL_VERSION(1285, 5, 5), prog_flags=BPF_F_STRICT_ALIGNMENT|"
            "BPF_F_TEST_RND_HI32|0x5050500, prog_name=\"\"...}, 49) = -1 EINVAL",
            "expected_attach_type=BPF_SK_SKB_STREAM_VERDICT}, 69) = -1 EINVAL",
            "expected_attach_type=0x5050505 /* BPF_??? */, prog_btf_fd=5, "
            "func_info_rec_size=0, func_info=NULL, func_info_cnt=0, line_info_rec_size=0, "
            "line_info=NULL, line_info_cnt=0}, 73) = -1 EINVAL",
            "attach_btf_id=84215045, attach_prog_fd=84215045}, 120) = -1 EINVAL",
            "attach_prog_fd=84215045, fd_array=0x505050505050505}, 128) = -1 EINVAL",
            "attach_prog_fd=84215045, fd_array=0x505050505050505, ...}, 129) = -1 EINVAL",
            # BPF_PROG_TEST_RUN, the GET_FD_BY_ID commands, the queries (their last
            # fields as the call left them; a task's buf read at exit)
            "ctx_out=0x1, flags=BPF_F_TEST_RUN_ON_CPU|0x40, cpu=1, batch_size=5}}, 144) "
            "= -1 EBADF",
            "bpf(BPF_PROG_GET_FD_BY_ID, {prog_id=4294967280, next_id=3, "
            "open_flags=BPF_F_RDONLY|0x100}, 12) = -1 EINVAL",
            "bpf(BPF_MAP_GET_FD_BY_ID, {map_id=4294967280, next_id=3}, 8) = -1 ENOENT",
            "bpf(BPF_BTF_GET_FD_BY_ID, {btf_id=4294967280, ...}, 8) = -1 ENOENT",
            "bpf(BPF_LINK_GET_FD_BY_ID, {link_id=4294967280}, 4) = -1 ENOENT",
            "attach_flags=BPF_F_ALLOW_MULTI, prog_ids=[], prog_cnt=0}}, 144) = -1 EINVAL",
            "prog_ids=0xfffffffffffff000, prog_cnt=3}}, 144) = -1 EINVAL",
            ", prog_ids=0x", ", prog_cnt=3}}, 144) = -1 EINVAL",
            "attach_type=BPF_SK_LOOKUP, query_flags=0, attach_flags=0, prog_ids=NULL, "
            "prog_cnt=1000 => 0}}, 144) = 0",
            'flags=0, buf_len=8, buf="probe", prog_id=4, fd_type=BPF_FD_TYPE_RAW_TRACEPOINT, ',
            'buf_len=40, buf="' + "x" * 32 + '"..., prog_id=4, ', 'buf_len=3, buf="xxx"..., ',
            "buf=0xfffffffffffff000, prog_id=4, fd_type=0x9 /* BPF_FD_TYPE_??? */, "
            "probe_offset=0, probe_addr=0x1234}}, 144) = -1 EBADF",
            'numa_node=4294967295 /* NUMA_NO_NODE */, map_name="", '
            'map_ifindex=if_nametoindex("lo")}, 48) = -1 ',
            'prog_flags=BPF_F_STRICT_ALIGNMENT|0x20, prog_name="", '
            'prog_ifindex=if_nametoindex("lo")}, 68) = -1 '):
        assert want in text, want


# strace -v reads two structs behind pointers of the attr that tracekit does not capture:
# a loaded program's instructions and the bpf_map_info BPF_OBJ_GET_INFO_BY_FD wrote;
# tracekit prints their addresses there
_V_GAPS: tuple[Gap, ...] = (
    (re.compile(r"^(bpf\(BPF_PROG_LOAD, \{.*, insn_cnt=2, insns=)\[\{.*?\}\](, license=.*)$"),
     re.compile(r"^(bpf\(BPF_PROG_LOAD, \{.*, insn_cnt=2, insns=)0x[0-9a-f]+(, license=.*)$")),
    (re.compile(r"^(bpf\(BPF_OBJ_GET_INFO_BY_FD, \{info=\{.*, info=)\{.*\}(\}\}, \d+\) = 0)$"),
     re.compile(r"^(bpf\(BPF_OBJ_GET_INFO_BY_FD, \{info=\{.*, info=)0x[0-9a-f]+"
                r"(\}\}, \d+\) = 0)$")),
)


# with -s below 32, strace reads fewer bytes of a buffer than tracekit's capture (-s 32 +
# 1): one that ends within 33 bytes of its mapping's end is read by strace and not by
# tracekit (sweep_bpf's log_buf and BTF at a page's end)
_S_GAPS: tuple[Gap, ...] = (
    (re.compile(r'^(bpf\(BPF_(?:PROG|BTF)_LOAD, \{(?:.* )?(?:log_buf|btf)=)"z+"\.\.\.(, .*)$'),
     re.compile(r"^(bpf\(BPF_(?:PROG|BTF)_LOAD, \{(?:.* )?(?:log_buf|btf)=)0x[0-9a-f]+(, .*)$")),
)


# -yy: the fd of /proc/self/ns/net (sweep_bpf's BPF_PROG_QUERY) is ``net:[4026531840]``
# to strace (the link's text) and the path opened to tracekit (its fd table's gap: a
# namespace's link is not read in the kernel), on its openat, bpf and close lines
_YY_GAPS: tuple[Gap, ...] = (
    (re.compile(r"^(.*\b5)<net:\[\d+\]>(.*)$"),
     re.compile(r"^(.*\b5)</proc/\d+/ns/net(?::\[\d+\])?>(.*)$")),
)


@pytest.mark.parametrize("opts", [("-e", "verbose=none"), ("-v",), ("-yy",), ("-s", "4")],
                         ids=["verbose=none", "v", "yy", "s4"])
def test_sweep_bpf_under_options(tmp_path: Path, opts: tuple[str, ...]) -> None:
    s_procs, t_procs = one_run_both(build(tmp_path, "sweep_bpf"), tmp_path, opts)
    ((pid, s_lines),) = s_procs.items()
    s_lines, t_lines = without_gaps(s_lines, t_procs.get(pid, []),
                                    _V_GAPS + _S_GAPS + _YY_GAPS)
    assert t_lines == s_lines, "\n".join(
        difflib.unified_diff(s_lines, t_lines, "strace", "tracekit", lineterm="", n=1))
    text = "\n".join(s_lines)
    if opts == ("-v",):
        assert 'extra_data="\\x05\\x05\\x05\\x05" /* bytes 16..19 */}, 20)' in text
        assert ", insn_cnt=0, insns=[], " in text and ", insn_cnt=0, insns=NULL, " in text
        assert sum("STRUCT" in line for line in s_lines) == 2
    elif opts == ("-yy",):
        assert "inner_map_fd=0</dev/null<char 1:3>>" in text
        assert "map_fd=4<anon_inode:bpf-map>" in text and ") = 3<anon_inode:bpf-map>" in text
    elif opts == ("-s", "4"):
        assert 'license="GPL", log_level=1, log_size=64, log_buf="AAAA"..., ' in text
        assert 'license="Dual"..., ' in text
        assert sum("STRUCT" in line for line in s_lines) == 2
    else:
        assert re.search(r"^bpf\(BPF_MAP_CREATE, 0x[0-9a-f]+, 144\) = 3$", text, re.M)
