#!/usr/bin/env python3
"""Generate tracekit/kernel/flag_tables/<arch>.py: flag, constant and ioctl names per arch.

Usage (needs the uapi/libc headers of each arch and a compiler for it; on Debian x86_64:
gcc, linux-libc-dev, libc6-dev, and gcc-aarch64-linux-gnu for arm64, which brings
libc6-dev-arm64-cross and linux-libc-dev-arm64-cross):

    python3 scripts/gen_beauty_tables.py [--arch ARCH]... [-o tracekit/kernel/flag_tables]

Without ``--arch`` every arch tracekit supports (x86_64, arm64) is written.

How: for each table, ``<cc> -E -dM`` of its include list gives the macro names; names
matching the table's pattern are evaluated by the compiler of that arch: a C file with one
``const long long v_<i> = (long long)(intptr_t)(NAME);`` per name is compiled to assembly
(``-S``) and the values are read from the data directives (``.quad``/``.xword``), so
expressions such as ``_IOR('T', 0x13, ...)`` or ``(__O_TMPFILE | O_DIRECTORY)`` are
evaluated by the compiler, not by us, and no target code is run (arm64 tables are made on
x86_64). A name the compiler rejects (a string, a function-like use) is dropped and the
file recompiled.

Values are the uapi ones (``<asm/fcntl.h>``, ``<linux/mman.h>``...), not glibc's, where
the two differ (glibc's ``O_LARGEFILE`` is 0 on x86_64; the kernel's is 0100000). They
differ between arches: ``0x10000`` is O_DIRECTORY on x86_64 and O_DIRECT on arm64.
Order matters for flag tables: names are printed in table order, which is strace's order
where strace's output differs from numeric order (checked against strace 6.1 here).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# name: (kind, includes, pattern, excluded names, preferred order or None)
#   kind "bits": a tuple of (value, name) in print order; "values": a dict value -> name.
Table = tuple[str, tuple[str, ...], str, frozenset[str], tuple[str, ...]]

_FCNTL = ("asm/fcntl.h",)
_LFCNTL = ("linux/fcntl.h",)
_MMAN = ("linux/mman.h",)
_CBPF = ("linux/filter.h", "linux/bpf.h")
_TERMBITS = ("asm/termbits.h",)
_NETFILTER = ("linux/netfilter_ipv4/ip_tables.h", "linux/netfilter_ipv6/ip6_tables.h",
              "linux/netfilter_arp/arp_tables.h", "linux/netfilter_bridge/ebtables.h")

TABLES: dict[str, Table] = {
    "OPEN_ACCMODE": ("values", _FCNTL, r"O_(RDONLY|WRONLY|RDWR)", frozenset(), ()),
    # strace 6.1 prints open flags in this order (tests/e2e/test_strace_diff.py checks).
    # __O_SYNC and __O_TMPFILE are the bits O_SYNC and O_TMPFILE add to O_DSYNC and
    # O_DIRECTORY: strace names them when they come alone.
    "OPEN_FLAGS": ("bits", _FCNTL, r"O_[A-Z]+|FASYNC|__O_(SYNC|TMPFILE)",
                   frozenset({"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE", "O_NDELAY",
                              "O_ASYNC", "O_FSYNC", "O_RSYNC"}),
                   ("O_CREAT", "O_EXCL", "O_NOCTTY", "O_TRUNC", "O_APPEND", "O_NONBLOCK",
                    "O_SYNC", "__O_SYNC", "O_DSYNC", "O_DIRECT", "O_LARGEFILE", "O_NOFOLLOW",
                    "O_NOATIME", "O_CLOEXEC", "O_PATH", "O_TMPFILE", "__O_TMPFILE",
                    "O_DIRECTORY", "FASYNC")),
    # strace 6.1's at_flags (numeric order), AT_REMOVEDIR included: strace names 0x200
    # so in every call of these flags (statx, execveat, newfstatat...); AT_EACCESS, the
    # same bit, is faccessat2's name for it
    "AT_FLAGS": ("bits", _LFCNTL, r"AT_[A-Z_]+",
                 frozenset({"AT_FDCWD", "AT_EACCESS", "AT_STATX_SYNC_TYPE",
                            "AT_STATX_SYNC_AS_STAT", "AT_STATX_FORCE_SYNC",
                            "AT_STATX_DONT_SYNC"}), ()),
    "AT_STATX_SYNC": ("values", _LFCNTL, r"AT_STATX_[A-Z_]+",
                      frozenset({"AT_STATX_SYNC_TYPE"}), ()),
    "AT_CONSTS": ("values", _LFCNTL, r"AT_(FDCWD|EACCESS|STATX_SYNC_TYPE)", frozenset(), ()),
    "AT_REMOVEDIR": ("values", _LFCNTL, r"AT_REMOVEDIR", frozenset(), ()),  # == AT_EACCESS
    "FCNTL_CMDS": ("values", _LFCNTL, r"F_[A-Z_]+",
                   frozenset({"F_RDLCK", "F_WRLCK", "F_UNLCK", "F_EXLCK", "F_SHLCK",
                              "F_LINUX_SPECIFIC_BASE", "F_OWNER_TID", "F_OWNER_PID",
                              "F_OWNER_PGRP", "F_GETLK64", "F_SETLK64", "F_SETLKW64",
                              "F_OK"}), ()),
    "FD_FLAGS": ("bits", _LFCNTL, r"FD_CLOEXEC", frozenset(), ()),
    "S_IFMT": ("values", ("sys/stat.h",), r"S_IF(SOCK|LNK|REG|BLK|DIR|CHR|IFO)",
               frozenset(), ()),
    "S_MODE_BITS": ("bits", ("sys/stat.h",), r"S_IS(UID|GID|VTX)", frozenset(), ()),
    # strace 6.1 names 0xfff STATX_ALL first (its statx_masks xlat order).
    "STATX_MASK": ("bits", ("linux/stat.h",), r"STATX_[A-Z_]+",
                   frozenset({"STATX__RESERVED", "STATX_ATTR_COMPRESSED",
                              "STATX_ATTR_IMMUTABLE", "STATX_ATTR_APPEND", "STATX_ATTR_NODUMP",
                              "STATX_ATTR_ENCRYPTED", "STATX_ATTR_AUTOMOUNT",
                              "STATX_ATTR_MOUNT_ROOT", "STATX_ATTR_VERITY", "STATX_ATTR_DAX"}),
                   ("STATX_ALL", "STATX_BASIC_STATS", "STATX_TYPE", "STATX_MODE",
                    "STATX_NLINK", "STATX_UID", "STATX_GID", "STATX_ATIME", "STATX_MTIME",
                    "STATX_CTIME", "STATX_INO", "STATX_SIZE", "STATX_BLOCKS")),
    "PROT_FLAGS": ("bits", _MMAN, r"PROT_[A-Z_]+", frozenset({"PROT_NONE"}), ()),
    # MAP_FILE is 0: strace 6.1 prints it for a map type of 0 (``MAP_FILE|MAP_ANONYMOUS``)
    "MAP_TYPES": ("values", _MMAN, r"MAP_(SHARED|PRIVATE|SHARED_VALIDATE|FILE)", frozenset(),
                  ()),
    # strace 6.1's order (checked with every bit set); MAP_32BIT is x86_64's
    "MAP_FLAGS": ("bits", _MMAN, r"MAP_(?!HUGE_[0-9])[A-Z0-9_]+",
                  frozenset({"MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE", "MAP_TYPE",
                             "MAP_FILE", "MAP_ANON", "MAP_HUGE_SHIFT", "MAP_HUGE_MASK",
                             "MAP_UNINITIALIZED"}),
                  ("MAP_FIXED", "MAP_ANONYMOUS", "MAP_32BIT", "MAP_NORESERVE", "MAP_POPULATE",
                   "MAP_NONBLOCK", "MAP_GROWSDOWN", "MAP_DENYWRITE", "MAP_EXECUTABLE",
                   "MAP_LOCKED", "MAP_STACK", "MAP_HUGETLB", "MAP_SYNC",
                   "MAP_FIXED_NOREPLACE")),
    "MAP_CONSTS": ("values", _MMAN, r"MAP_(TYPE|HUGE_SHIFT|HUGE_MASK)", frozenset(), ()),
    "MREMAP_FLAGS": ("bits", _MMAN, r"MREMAP_[A-Z_]+", frozenset(), ()),
    "MADV_ADVICE": ("values", _MMAN, r"MADV_[A-Z_0-9]+", frozenset(), ()),
    "CLONE_FLAGS": ("bits", ("linux/sched.h",), r"CLONE_[A-Z_]+",
                    frozenset({"CLONE_ARGS_SIZE_VER0", "CLONE_ARGS_SIZE_VER1",
                               "CLONE_ARGS_SIZE_VER2"}), ()),
    # unshare(2)'s and setns(2)'s flag words: the namespace and sharing bits those calls
    # take (strace prints the others as a hex remainder)
    "UNSHARE_FLAGS": ("bits", ("linux/sched.h",),
                      r"CLONE_(NEWTIME|VM|FS|FILES|SIGHAND|THREAD|NEWNS|SYSVSEM|NEWCGROUP|"
                      r"NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET)", frozenset(), ()),
    "SETNS_TYPES": ("bits", ("linux/sched.h",),
                    r"CLONE_(NEWTIME|NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET)",
                    frozenset(), ()),
    "SIGNALS": ("values", ("asm/signal.h",), r"SIG[A-Z]+[0-9]*",
                frozenset({"SIGRTMIN", "SIGRTMAX", "SIGSTKSZ", "SIGUNUSED", "SIGIOT",
                           "SIGPOLL", "SIGCLD"}), ()),
    "SIG_HANDLERS": ("values", ("asm/signal.h",), r"SIG_(DFL|IGN|ERR)", frozenset(), ()),
    "SIGPROCMASK_HOW": ("values", ("asm/signal.h",), r"SIG_(BLOCK|UNBLOCK|SETMASK)",
                        frozenset(), ()),
    # strace 6.1's order (xlat/sigact_flags.in: SA_RESTORER|SA_ONSTACK|SA_RESTART...);
    # bits strace has no name for (SA_UNSUPPORTED, SA_EXPOSE_TAGBITS) stay a hex remainder.
    "SA_FLAGS": ("bits", ("asm/signal.h",), r"SA_[A-Z]+",
                 frozenset({"SA_NOMASK", "SA_ONESHOT", "SA_STACK", "SA_UNSUPPORTED",
                            "SA_EXPOSE_TAGBITS"}),
                 ("SA_RESTORER", "SA_ONSTACK", "SA_RESTART", "SA_INTERRUPT", "SA_NODEFER",
                  "SA_RESETHAND", "SA_SIGINFO", "SA_NOCLDSTOP", "SA_NOCLDWAIT")),
    "ADDRESS_FAMILIES": ("values", ("sys/socket.h",), r"AF_[A-Z0-9_]+|AF_DECnet",
                         frozenset({"AF_MAX", "AF_LOCAL", "AF_FILE", "AF_ROUTE"}), ()),
    "SOCK_TYPES": ("values", ("sys/socket.h",),
                   r"SOCK_(STREAM|DGRAM|RAW|RDM|SEQPACKET|DCCP|PACKET)", frozenset(), ()),
    "SOCK_FLAGS": ("bits", ("sys/socket.h",), r"SOCK_(CLOEXEC|NONBLOCK)", frozenset(),
                   ("SOCK_CLOEXEC", "SOCK_NONBLOCK")),
    "IP_PROTOCOLS": ("values", ("netinet/in.h",), r"IPPROTO_[A-Z0-9]+",
                     frozenset({"IPPROTO_MAX", "IPPROTO_HOPOPTS"}), ()),
    "NETLINK_PROTOCOLS": ("values", ("linux/netlink.h",),
                          r"NETLINK_(ROUTE|UNUSED|USERSOCK|FIREWALL|SOCK_DIAG|NFLOG|XFRM|"
                          r"SELINUX|ISCSI|AUDIT|FIB_LOOKUP|CONNECTOR|NETFILTER|IP6_FW|DNRTMSG|"
                          r"KOBJECT_UEVENT|GENERIC|SCSITRANSPORT|ECRYPTFS|RDMA|CRYPTO|SMC)",
                          frozenset(), ()),
    # netlink (tracekit/decode/structs_netlink.py): message types, header flags (the
    # generic ones, then those of GET, NEW, DELETE requests and of ACKs: strace prints
    # them in this order), NETLINK_ROUTE's and NETLINK_SOCK_DIAG's message types
    "NLMSG_TYPES": ("values", ("linux/netlink.h",), r"NLMSG_(NOOP|ERROR|DONE|OVERRUN)",
                    frozenset(), ()),
    "NLM_FLAGS": ("bits", ("linux/netlink.h",),
                  r"NLM_F_(REQUEST|MULTI|ACK|ECHO|DUMP_INTR|DUMP_FILTERED)", frozenset(),
                  ("NLM_F_REQUEST", "NLM_F_MULTI", "NLM_F_ACK", "NLM_F_ECHO",
                   "NLM_F_DUMP_INTR", "NLM_F_DUMP_FILTERED")),
    "NLM_GET_FLAGS": ("bits", ("linux/netlink.h",), r"NLM_F_(DUMP|ROOT|MATCH|ATOMIC)",
                      frozenset(), ("NLM_F_DUMP", "NLM_F_ROOT", "NLM_F_MATCH", "NLM_F_ATOMIC")),
    "NLM_NEW_FLAGS": ("bits", ("linux/netlink.h",), r"NLM_F_(REPLACE|EXCL|CREATE|APPEND)",
                      frozenset(), ("NLM_F_REPLACE", "NLM_F_EXCL", "NLM_F_CREATE",
                                    "NLM_F_APPEND")),
    "NLM_DELETE_FLAGS": ("bits", ("linux/netlink.h",), r"NLM_F_(NONREC|BULK)", frozenset(),
                         ("NLM_F_NONREC", "NLM_F_BULK")),
    "NLM_ACK_FLAGS": ("bits", ("linux/netlink.h",), r"NLM_F_(CAPPED|ACK_TLVS)", frozenset(),
                      ("NLM_F_CAPPED", "NLM_F_ACK_TLVS")),
    "NLMSGERR_ATTRS": ("values", ("linux/netlink.h",), r"NLMSGERR_ATTR_[A-Z_]+",
                       frozenset({"NLMSGERR_ATTR_MAX", "__NLMSGERR_ATTR_MAX"}), ()),
    # RTM_SETSTATS and RTM_*TUNNEL are newer than strace 6.1's nl_route_types: it prints
    # them as 0x5f /* RTM_??? */
    "RTM_TYPES": ("values", ("linux/rtnetlink.h",), r"RTM_(NEW|DEL|GET|SET)[A-Z]+",
                  frozenset({"RTM_NEWNVLAN", "RTM_SETSTATS", "RTM_NEWTUNNEL", "RTM_DELTUNNEL",
                             "RTM_GETTUNNEL"}), ()),
    "SOCK_DIAG_TYPES": ("values", ("linux/inet_diag.h", "linux/sock_diag.h"),
                        r"SOCK_DIAG_BY_FAMILY|SOCK_DESTROY|TCPDIAG_GETSOCK|DCCPDIAG_GETSOCK",
                        frozenset(), ()),
    # NETLINK_AUDIT's and NETLINK_XFRM's message types (strace 6.1 names them; their
    # payloads print as hex). Audit types are 1000..2999 (RANGES); the range markers
    # strace does not name are left out
    "AUDIT_TYPES": ("values", ("linux/audit.h",), r"AUDIT_[A-Z0-9_]+",
                    frozenset({"AUDIT_FIRST_EVENT", "AUDIT_LAST_EVENT", "AUDIT_FIRST_SELINUX",
                               "AUDIT_LAST_SELINUX", "AUDIT_FIRST_APPARMOR",
                               "AUDIT_LAST_APPARMOR", "AUDIT_FIRST_KERN_CRYPTO_MSG",
                               "AUDIT_LAST_KERN_CRYPTO_MSG", "AUDIT_FIRST_KERN_ANOM_MSG",
                               "AUDIT_INTEGRITY_FIRST_MSG", "AUDIT_INTEGRITY_LAST_MSG",
                               "AUDIT_FEATURE_VERSION"}), ()),
    "XFRM_TYPES": ("values", ("linux/xfrm.h",), r"XFRM_MSG_[A-Z]+",
                   frozenset({"XFRM_MSG_BASE", "XFRM_MSG_MAX"}), ()),
    # rtnetlink payloads: struct ifaddrmsg, ifinfomsg, rtmsg and their attributes
    "IFA_ATTRS": ("values", ("linux/if_addr.h",), r"IFA_[A-Z_]+", frozenset({"IFA_MAX"}), ()),
    "IFA_FLAGS": ("bits", ("linux/if_addr.h",), r"IFA_F_[A-Z_]+",
                  frozenset({"IFA_F_TEMPORARY"}), ()),
    "RT_SCOPES": ("values", ("linux/rtnetlink.h",), r"RT_SCOPE_[A-Z]+", frozenset(), ()),
    "IFLA_ATTRS": ("values", ("linux/if_link.h",), r"IFLA_[A-Z0-9_]+",
                   frozenset({"IFLA_MAX"}), ()),
    "IFLA_INFO_ATTRS": ("values", ("linux/if_link.h",), r"IFLA_INFO_[A-Z_]+",
                        frozenset({"IFLA_INFO_MAX"}), ()),
    "IFF_FLAGS": ("bits", ("linux/if.h",), r"IFF_(UP|BROADCAST|DEBUG|LOOPBACK|POINTOPOINT|"
                  r"NOTRAILERS|RUNNING|NOARP|PROMISC|ALLMULTI|MASTER|SLAVE|MULTICAST|PORTSEL|"
                  r"AUTOMEDIA|DYNAMIC|LOWER_UP|DORMANT|ECHO)", frozenset(), ()),
    # RTEXT_FILTER_MST (1 << 7) is newer than strace 6.1's rtnl_ifla_ext_filter_flags
    "RTEXT_FILTERS": ("bits", ("linux/rtnetlink.h",), r"RTEXT_FILTER_[A-Z_]+",
                      frozenset({"RTEXT_FILTER_MST"}), ()),
    "RTA_ATTRS": ("values", ("linux/rtnetlink.h",), r"RTA_[A-Z_]+", frozenset({"RTA_MAX"}),
                  ()),
    "RT_TABLES": ("values", ("linux/rtnetlink.h",), r"RT_TABLE_[A-Z]+",
                  frozenset({"RT_TABLE_MAX"}), ()),
    "RTN_TYPES": ("values", ("linux/rtnetlink.h",), r"RTN_[A-Z]+", frozenset({"RTN_MAX"}),
                  ()),
    "RTPROT_TYPES": ("values", ("linux/rtnetlink.h",), r"RTPROT_[A-Z0-9]+", frozenset(), ()),
    "RTM_F_FLAGS": ("bits", ("linux/rtnetlink.h",), r"RTM_F_[A-Z_]+|RTNH_F_[A-Z_]+",
                    frozenset({"RTNH_F_COMPARE_MASK"}), ()),
    # struct tcmsg (RTM_*QDISC, *TCLASS, *TFILTER, *CHAIN: tc) and its attributes;
    # TCA_EXT_WARN_MSG (Linux 6.2, backported into these headers) strace 6.1 does not name
    "TCA_ATTRS": ("values", ("linux/rtnetlink.h",), r"TCA_[A-Z0-9_]+",
                  frozenset({"TCA_MAX", "TCA_EXT_WARN_MSG"}), ()),
    "TCA_STATS_ATTRS": ("values", ("linux/gen_stats.h",), r"TCA_STATS_[A-Z0-9_]+",
                        frozenset({"TCA_STATS_MAX"}), ()),
    # the attributes of netconfmsg (ip netconf), ifaddrlblmsg (ip addrlabel), rtgenmsg
    # of RTM_*NSID (ip netns list-id), ndtmsg (ip ntable) and nhmsg (ip nexthop)
    "NETCONFA_ATTRS": ("values", ("linux/netconf.h",), r"NETCONFA_[A-Z_]+",
                       frozenset({"NETCONFA_MAX", "NETCONFA_ALL"}), ()),
    "IFAL_ATTRS": ("values", ("linux/if_addrlabel.h",), r"IFAL_[A-Z_]+",
                   frozenset({"IFAL_MAX"}), ()),
    "NETNSA_ATTRS": ("values", ("linux/net_namespace.h",), r"NETNSA_[A-Z_]+",
                     frozenset({"NETNSA_MAX"}), ()),
    "NDTA_ATTRS": ("values", ("linux/neighbour.h",), r"NDTA_[A-Z0-9_]+",
                   frozenset({"NDTA_MAX"}), ()),
    "NDTPA_ATTRS": ("values", ("linux/neighbour.h",), r"NDTPA_[A-Z_]+",
                    frozenset({"NDTPA_MAX"}), ()),
    "NHA_ATTRS": ("values", ("linux/nexthop.h",), r"NHA_[A-Z_]+", frozenset({"NHA_MAX"}), ()),
    # struct fib_rule_hdr (RTM_*RULE) and struct ndmsg (RTM_*NEIGH) with their attributes
    "FR_ACTIONS": ("values", ("linux/fib_rules.h",), r"FR_ACT_[A-Z_]+",
                   frozenset({"FR_ACT_MAX"}), ()),
    "FRA_ATTRS": ("values", ("linux/fib_rules.h",), r"FRA_[A-Z_]+", frozenset({"FRA_MAX"}),
                  ()),
    "FIB_RULE_FLAGS": ("bits", ("linux/fib_rules.h",),
                       r"FIB_RULE_(PERMANENT|INVERT|UNRESOLVED|IIF_DETACHED|OIF_DETACHED|"
                       r"FIND_SADDR)", frozenset(), ()),
    "NUD_STATES": ("bits", ("linux/neighbour.h",), r"NUD_(?!NONE)[A-Z]+", frozenset(), ()),
    "NTF_FLAGS": ("bits", ("linux/neighbour.h",),
                  r"NTF_(USE|SELF|MASTER|PROXY|EXT_LEARNED|OFFLOADED|STICKY|ROUTER)",
                  frozenset(), ()),
    "NDA_ATTRS": ("values", ("linux/neighbour.h",), r"NDA_[A-Z_]+", frozenset({"NDA_MAX"}),
                  ()),
    # sock_diag payloads: inet_diag and unix_diag requests, replies and attributes
    "INET_DIAG_ATTRS": ("values", ("linux/inet_diag.h",), r"INET_DIAG_[A-Z0-9_]+",
                        frozenset({"INET_DIAG_MAX", "INET_DIAG_NOCOOKIE", "INET_DIAG_GETSOCK_MAX",
                                   "INET_DIAG_REQ_MAX", "INET_DIAG_BC_MAX"}), ()),
    "INET_DIAG_REQ_ATTRS": ("values", ("linux/inet_diag.h",), r"INET_DIAG_REQ_[A-Z_]+",
                            frozenset({"INET_DIAG_REQ_MAX"}), ()),
    "UDIAG_SHOW_FLAGS": ("bits", ("linux/unix_diag.h",), r"UDIAG_SHOW_[A-Z]+", frozenset(), ()),
    "UNIX_DIAG_ATTRS": ("values", ("linux/unix_diag.h",), r"UNIX_DIAG_[A-Z_]+",
                        frozenset({"UNIX_DIAG_MAX"}), ()),
    "NDIAG_SHOW_FLAGS": ("bits", ("linux/netlink_diag.h",), r"NDIAG_SHOW_[A-Z_]+",
                         frozenset(), ()),
    "NDIAG_FLAGS": ("bits", ("linux/netlink_diag.h",), r"NDIAG_FLAG_[A-Z_]+", frozenset(),
                    ()),
    "NETLINK_DIAG_ATTRS": ("values", ("linux/netlink_diag.h",), r"NETLINK_DIAG_[A-Z_]+",
                           frozenset({"NETLINK_DIAG_MAX"}), ()),
    "PACKET_SHOW_FLAGS": ("bits", ("linux/packet_diag.h",), r"PACKET_SHOW_[A-Z_]+",
                          frozenset(), ()),
    "SK_MEMINFO": ("values", ("linux/sock_diag.h",), r"SK_MEMINFO_[A-Z_]+",
                   frozenset({"SK_MEMINFO_VARS"}), ()),
    "ACCESS_MODES": ("bits", ("unistd.h",), r"[RWX]_OK", frozenset(), ("R_OK", "W_OK", "X_OK")),
    "SEEK_WHENCE": ("values", ("linux/fs.h",), r"SEEK_[A-Z]+", frozenset({"SEEK_MAX"}), ()),
    "IOCTLS": ("values", ("asm/termbits.h", "asm/ioctls.h", "linux/serial.h", "linux/fs.h",
                          "linux/fiemap.h", "linux/random.h", "linux/blktrace_api.h",
                          "stddef.h", "linux/sockios.h"),
               r"TC[A-Z0-9]+|TIOC[A-Z0-9]+|FIO[A-Z]+|FS_IOC_[A-Z_]+|FICLONE|FICLONERANGE|"
               r"FIDEDUPERANGE|FIFREEZE|FITHAW|FITRIM|FIGETBSZ|FIBMAP|BLK[A-Z0-9_]+|"
               r"RND[A-Z]+|SIOCGIFNAME|SIOCGIFINDEX|"
               r"SIOCGIF(FLAGS|METRIC|MTU|TXQLEN|HWADDR|ADDR|DSTADDR|BRDADDR|NETMASK)|"
               r"SIOCSIF(FLAGS|METRIC|MTU|TXQLEN|HWADDR|HWBROADCAST|ADDR|DSTADDR|BRDADDR|"
               r"NETMASK|MAP|NAME|SLAVE|ENCAP)|SIOC(ADD|DEL)MULTI|SIOCGIFENCAP|SIOCATMARK|"
               r"SIOC[GS]PGRP|SIOCBR(ADD|DEL)(BR|IF)",
               frozenset({"TIOCSER_TEMT", "TCIFLUSH", "TCOFLUSH", "TCIOFLUSH", "TCOOFF",
                          "TCOON", "TCIOFF", "TCION", "TCSANOW", "TCSADRAIN", "TCSAFLUSH"}),
               ()),
    "FUTEX_CMDS": ("values", ("linux/futex.h",),
                   r"FUTEX_(WAIT|WAKE|FD|REQUEUE|CMP_REQUEUE|WAKE_OP|LOCK_PI|UNLOCK_PI|"
                   r"TRYLOCK_PI|WAIT_BITSET|WAKE_BITSET|WAIT_REQUEUE_PI|CMP_REQUEUE_PI|LOCK_PI2)",
                   frozenset(), ()),
    "FUTEX_CONSTS": ("values", ("linux/futex.h",), r"FUTEX_(PRIVATE_FLAG|CLOCK_REALTIME)",
                     frozenset(), ()),
    "PRCTL_OPTIONS": ("values", ("linux/prctl.h",),
                      r"PR_(GET|SET)_[A-Z0-9_]+|PR_CAPBSET_(READ|DROP)|PR_CAP_AMBIENT|"
                      r"PR_TASK_PERF_EVENTS_(DISABLE|ENABLE)|PR_MCE_KILL|PR_MCE_KILL_GET|"
                      r"PR_MPX_(ENABLE|DISABLE)_MANAGEMENT|PR_SVE_(SET|GET)_VL|"
                      r"PR_SME_(SET|GET)_VL|PR_PAC_RESET_KEYS|PR_PAC_(SET|GET)_ENABLED_KEYS|"
                      r"PR_SCHED_CORE",
                      frozenset(), ()),
    "ARCH_PRCTL_OPTIONS": ("values", ("asm/prctl.h",), r"ARCH_[A-Z0-9_]+", frozenset(), ()),
    # strace 6.1's names and order (xlat/wait4_options.in): WSTOPPED, not its alias
    # WUNTRACED; WEXITED before WSTOPPED; __WCLONE before __WALL.
    "WAIT_OPTIONS": ("bits", ("linux/wait.h",), r"W[A-Z]+|__W[A-Z]+",
                     frozenset({"WUNTRACED"}),
                     ("WNOHANG", "WEXITED", "WSTOPPED", "WCONTINUED", "WNOWAIT", "__WCLONE",
                      "__WALL", "__WNOTHREAD")),
    "RLIMIT_RESOURCES": ("values", ("asm/resource.h",), r"RLIMIT_[A-Z]+", frozenset(), ()),
    "GRND_FLAGS": ("bits", ("linux/random.h",), r"GRND_[A-Z]+", frozenset(), ()),
    "FADVISE_ADVICE": ("values", ("linux/fadvise.h",), r"POSIX_FADV_[A-Z]+", frozenset(), ()),
    "RENAME_FLAGS": ("bits", ("linux/fs.h",), r"RENAME_[A-Z]+", frozenset(), ()),
    # the xattr set calls' flags; openat2's struct open_how resolve field; capget/capset's
    # header versions (_LINUX_CAPABILITY_VERSION is v1's old name)
    "XATTR_FLAGS": ("bits", ("linux/xattr.h",), r"XATTR_(CREATE|REPLACE)", frozenset(), ()),
    "RESOLVE_FLAGS": ("bits", ("linux/openat2.h",), r"RESOLVE_[A-Z_]+", frozenset(), ()),
    "CAP_VERSIONS": ("values", ("linux/capability.h",), r"_LINUX_CAPABILITY_VERSION_[0-9]",
                     frozenset(), ()),
    # quotactl: QCMD(command, type) and Q_QUOTAON's quota format (strace 6.1 also names
    # the commands of the old quota formats, which no header defines)
    "QUOTA_CMDS": ("values", ("linux/quota.h", "linux/dqblk_xfs.h"),
                   r"Q_(SYNC|QUOTAON|QUOTAOFF|GETFMT|GETINFO|SETINFO|GETQUOTA|SETQUOTA|"
                   r"GETNEXTQUOTA|X[A-Z]+)", frozenset(), ()),
    "QUOTA_TYPES": ("values", ("linux/quota.h",), r"(USR|GRP|PRJ)QUOTA", frozenset(), ()),
    "QUOTA_FORMATS": ("values", ("linux/quota.h",), r"QFMT_[A-Z0-9_]+", frozenset(), ()),
    # ... the flag words of struct if_dqinfo (Q_GETINFO/Q_SETINFO) and of the XFS commands
    "QUOTA_DQF_FLAGS": ("bits", ("linux/quota.h",), r"DQF_(ROOT_SQUASH|SYS_FILE)", frozenset(),
                        ()),
    "QUOTA_IIF_FLAGS": ("bits", ("linux/quota.h",), r"IIF_(BGRACE|IGRACE|FLAGS)", frozenset(),
                        ()),
    "XFS_QUOTA_FLAGS": ("bits", ("linux/dqblk_xfs.h",), r"FS_QUOTA_[UGP]DQ_(ACCT|ENFD)",
                        frozenset(), ()),
    "XFS_DQBLK_FLAGS": ("bits", ("linux/dqblk_xfs.h",), r"FS_(USER|PROJ|GROUP)_QUOTA",
                        frozenset(), ()),
    "EPOLL_CTL_OPS": ("values", ("linux/eventpoll.h",), r"EPOLL_CTL_[A-Z]+", frozenset(), ()),
    # slice fs (issue 12): stx_attributes bits and statfs f_type names
    "STATX_ATTRS": ("bits", ("linux/stat.h",), r"STATX_ATTR_[A-Z_]+", frozenset(), ()),
    "FS_MAGIC": ("values", ("linux/magic.h",), r"[A-Z0-9_]+_MAGIC[0-9]*", frozenset(), ()),
    "RUSAGE_WHO": ("values", ("linux/resource.h",), r"RUSAGE_[A-Z]+",
                   frozenset({"RUSAGE_BOTH"}), ()),
    "CLOCK_IDS": ("values", ("linux/time.h",), r"CLOCK_[A-Z_]+",
                  frozenset({"CLOCK_SGI_CYCLE"}), ()),
    # proc slice of issue 12: clock_nanosleep flags, waitid id types, sigaltstack flags.
    "TIMER_FLAGS": ("bits", ("linux/time.h",), r"TIMER_ABSTIME", frozenset(), ()),
    "WAITID_TYPES": ("values", ("linux/wait.h",), r"P_(ALL|PID|PGID|PIDFD)", frozenset(), ()),
    # struct sigevent's sigev_notify (timer_create)
    "SIGEV_NOTIFY": ("values", ("asm/siginfo.h",), r"SIGEV_(SIGNAL|NONE|THREAD|THREAD_ID)",
                     frozenset(), ()),
    "SS_FLAGS": ("bits", ("linux/signal.h",), r"SS_(ONSTACK|DISABLE|AUTODISARM)",
                 frozenset(), ("SS_ONSTACK", "SS_DISABLE", "SS_AUTODISARM")),
    # named constants of the syscalls only their prototypes describe (the table of
    # every syscall's arguments, tracekit/kernel/syscall_protos)
    "ITIMER_WHICH": ("values", ("linux/time.h",), r"ITIMER_(REAL|VIRTUAL|PROF)", frozenset(),
                     ()),
    "PRIO_WHICH": ("values", ("linux/resource.h",), r"PRIO_(PROCESS|PGRP|USER)", frozenset(),
                   ()),
    # glibc's names: strace prints SCHED_OTHER, the uapi header says SCHED_NORMAL
    "SCHED_POLICIES": ("values", ("sched.h",), r"SCHED_(OTHER|FIFO|RR|BATCH|IDLE|DEADLINE)",
                       frozenset(), ()),
    # struct sched_attr's sched_flags (sched_setattr/sched_getattr): the single bits, not
    # the KEEP_ALL/UTIL_CLAMP/ALL unions
    "SCHED_FLAGS": ("bits", ("linux/sched.h",),
                    r"SCHED_FLAG_(RESET_ON_FORK|RECLAIM|DL_OVERRUN|KEEP_POLICY|KEEP_PARAMS|"
                    r"UTIL_CLAMP_MIN|UTIL_CLAMP_MAX)", frozenset(), ()),
    "KEY_SPECS": ("values", ("linux/keyctl.h",), r"KEY_SPEC_[A-Z_]+", frozenset(), ()),
    # keyctl(KEYCTL_SET_REQKEY_KEYRING)'s keyring
    "KEY_REQKEY_DEFL": ("values", ("linux/keyctl.h",), r"KEY_REQKEY_DEFL_[A-Z_]+", frozenset(),
                        ()),
    "KEYCTL_CMDS": ("values", ("linux/keyctl.h",), r"KEYCTL_[A-Z_]+",
                    frozenset({"KEYCTL_SUPPORTS_ENCRYPT", "KEYCTL_SUPPORTS_DECRYPT",
                               "KEYCTL_SUPPORTS_SIGN", "KEYCTL_SUPPORTS_VERIFY",
                               "KEYCTL_CAPS0_CAPABILITIES", "KEYCTL_CAPS0_PERSISTENT_KEYRINGS",
                               "KEYCTL_CAPS0_DIFFIE_HELLMAN", "KEYCTL_CAPS0_PUBLIC_KEY",
                               "KEYCTL_CAPS0_BIG_KEY", "KEYCTL_CAPS0_INVALIDATE",
                               "KEYCTL_CAPS0_RESTRICT_KEYRING", "KEYCTL_CAPS0_MOVE",
                               "KEYCTL_CAPS1_NS_KEYRING_NAME", "KEYCTL_CAPS1_NS_KEY_TAG",
                               "KEYCTL_CAPS1_NOTIFICATIONS", "KEYCTL_MOVE_EXCL"}), ()),
    "SHUT_HOW": ("values", ("sys/socket.h",), r"SHUT_(RD|WR|RDWR)", frozenset(), ()),
    # i386 socketcall's first argument (socketcall(SYS_SOCKET, NULL) when its words are
    # unreadable)
    "SOCKETCALL_CALLS": ("values", ("linux/net.h",), r"SYS_[A-Z0-9]+", frozenset(), ()),
    "PTRACE_REQUESTS": ("values", ("linux/ptrace.h", "asm/ptrace.h"),
                        r"PTRACE_(?!O_|EVENT_|EVENTMSG_|SYSCALL_INFO_|PEEKSIGINFO_SHARED)"
                        r"[A-Z_]+", frozenset(), ()),
    "SECCOMP_OPS": ("values", ("linux/seccomp.h",),
                    r"SECCOMP_(SET_MODE_STRICT|SET_MODE_FILTER|GET_ACTION_AVAIL|"
                    r"GET_NOTIF_SIZES)", frozenset(), ()),
    "MCL_FLAGS": ("bits", ("sys/mman.h",), r"MCL_[A-Z]+", frozenset(), ()),
    "SHMCTL_CMDS": ("values", ("linux/ipc.h", "linux/shm.h"),
                    r"IPC_(RMID|SET|STAT|INFO)|SHM_(LOCK|UNLOCK|STAT|INFO|STAT_ANY)",
                    frozenset(), ()),
    "SEMCTL_CMDS": ("values", ("linux/ipc.h", "linux/sem.h"),
                    r"IPC_(RMID|SET|STAT|INFO)|GET(PID|VAL|ALL|NCNT|ZCNT)|SET(VAL|ALL)|"
                    r"SEM_(STAT|INFO|STAT_ANY)", frozenset(), ()),
    "MSGCTL_CMDS": ("values", ("linux/ipc.h", "linux/msg.h"),
                    r"IPC_(RMID|SET|STAT|INFO)|MSG_(STAT|INFO|STAT_ANY)", frozenset(), ()),
    "IPC_CONSTS": ("values", ("linux/ipc.h",), r"IPC_(64|PRIVATE)", frozenset(), ()),
    # C enum constants, not macros: their enum's tag in ENUM_TAGS, or named in
    # ENUM_CONSTANTS (an enum without a tag)
    "BPF_CMDS": ("values", ("linux/bpf.h",), r"BPF_[A-Z_]+", frozenset(), ()),
    # bpf(2)'s attr (tracekit/decode/structs_bpf.py): map, prog and attach types (enums),
    # map_create's and prog_load's flags, the update flags (by value: BPF_ANY is 0), the
    # file flags of obj_pin/obj_get (anonymous enums: ENUM_CONSTANTS)
    "BPF_MAP_TYPES": ("values", ("linux/bpf.h",), r"BPF_MAP_TYPE_[A-Z_0-9]+", frozenset(), ()),
    "BPF_PROG_TYPES": ("values", ("linux/bpf.h",), r"BPF_PROG_TYPE_[A-Z_0-9]+", frozenset(),
                       ()),
    "BPF_ATTACH_TYPES": ("values", ("linux/bpf.h",), r"BPF_[A-Z_0-9]+",
                         frozenset({"__MAX_BPF_ATTACH_TYPE"}), ()),
    "BPF_MAP_FLAGS": ("bits", ("linux/bpf.h",),
                      r"BPF_F_(NO_PREALLOC|NO_COMMON_LRU|NUMA_NODE|RDONLY|WRONLY|"
                      r"STACK_BUILD_ID|ZERO_SEED|RDONLY_PROG|WRONLY_PROG|CLONE|MMAPABLE|"
                      r"PRESERVE_ELEMS|INNER_MAP)", frozenset(), ()),
    "BPF_PROG_FLAGS": ("bits", ("linux/bpf.h",),
                       r"BPF_F_(STRICT_ALIGNMENT|ANY_ALIGNMENT|TEST_RND_HI32|TEST_STATE_FREQ|"
                       r"SLEEPABLE)", frozenset(), ()),
    # (strace 6.1 names no later flag: BPF_F_XDP_HAS_FRAGS prints as 0x20)
    "BPF_TEST_RUN_FLAGS": ("bits", ("linux/bpf.h",),
                           r"BPF_F_TEST_(RUN_ON_CPU|XDP_LIVE_FRAMES)", frozenset(), ()),
    "BPF_QUERY_FLAGS": ("bits", ("linux/bpf.h",), r"BPF_F_QUERY_EFFECTIVE", frozenset(), ()),
    "BPF_FD_TYPES": ("values", ("linux/bpf.h",), r"BPF_FD_TYPE_[A-Z_]+", frozenset(), ()),
    "BPF_UPDATE_FLAGS": ("values", ("linux/bpf.h",), r"BPF_(ANY|NOEXIST|EXIST|F_LOCK)",
                         frozenset(), ()),
    "BPF_FILE_FLAGS": ("bits", ("linux/bpf.h",), r"BPF_F_(RDONLY|WRONLY)", frozenset(), ()),
    "BPF_KPROBE_MULTI_FLAGS": ("bits", ("linux/bpf.h",), r"BPF_F_KPROBE_MULTI_RETURN",
                               frozenset(), ()),
    "BPF_ATTACH_FLAGS": ("bits", ("linux/bpf.h",),
                         r"BPF_F_(ALLOW_OVERRIDE|ALLOW_MULTI|REPLACE)", frozenset(), ()),
    "LANDLOCK_RULES": ("values", ("linux/landlock.h",), r"LANDLOCK_RULE_[A-Z_]+", frozenset(),
                       ()),
    "IOPRIO_WHO": ("values", ("linux/ioprio.h",), r"IOPRIO_WHO_[A-Z]+", frozenset(), ()),
    "KCMP_TYPES": ("values", ("linux/kcmp.h",), r"KCMP_[A-Z_]+", frozenset({"KCMP_TYPES"}),
                   ()),
    "MEMBARRIER_CMDS": ("values", ("linux/membarrier.h",), r"MEMBARRIER_CMD_[A-Z_]+",
                        frozenset({"MEMBARRIER_CMD_FLAG_CPU"}), ()),
    "MEMBARRIER_FLAGS": ("bits", ("linux/membarrier.h",), r"MEMBARRIER_CMD_FLAG_[A-Z_]+",
                         frozenset(), ()),
    # termios (asm/termbits.h): TCGETS/TCSETS's struct, printed in strace 6.1's order;
    # c_oflag's delay fields and c_cflag's baud and size fields by value, then the bits
    "TERM_IFLAGS": ("bits", _TERMBITS,
                    r"IGNBRK|BRKINT|IGNPAR|PARMRK|INPCK|ISTRIP|INLCR|IGNCR|ICRNL|IUCLC|IXON|"
                    r"IXANY|IXOFF|IMAXBEL|IUTF8", frozenset(), ()),
    "TERM_OFLAGS": ("bits", _TERMBITS, r"OPOST|OLCUC|ONLCR|OCRNL|ONOCR|ONLRET|OFILL|OFDEL",
                    frozenset(), ("OPOST", "OLCUC", "ONLCR", "OCRNL", "ONOCR", "ONLRET",
                                  "OFILL", "OFDEL")),
    "TERM_CFLAGS": ("bits", _TERMBITS, r"CSTOPB|CREAD|PARENB|PARODD|HUPCL|CLOCAL|CMSPAR|CRTSCTS",
                    frozenset(), ("CSTOPB", "CREAD", "PARENB", "PARODD", "HUPCL", "CLOCAL",
                                  "CMSPAR", "CRTSCTS")),
    "TERM_LFLAGS": ("bits", _TERMBITS,
                    r"ISIG|ICANON|XCASE|ECHO|ECHOE|ECHOK|ECHONL|NOFLSH|IEXTEN|ECHOCTL|ECHOPRT|"
                    r"ECHOKE|FLUSHO|PENDIN|TOSTOP|EXTPROC", frozenset(),
                    ("ISIG", "ICANON", "XCASE", "ECHO", "ECHOE", "ECHOK", "ECHONL", "NOFLSH",
                     "IEXTEN", "ECHOCTL", "ECHOPRT", "ECHOKE", "FLUSHO", "PENDIN", "TOSTOP",
                     "EXTPROC")),
    # the masks of the termios fields, and IBSHIFT: CIBAUD holds an input baud at it
    "TERM_MASKS": ("values", _TERMBITS,
                   r"NLDLY|CRDLY|TABDLY|BSDLY|VTDLY|FFDLY|CBAUD|CIBAUD|CSIZE|IBSHIFT",
                   frozenset(), ()),
    "TERM_NLDLY": ("values", _TERMBITS, r"NL[01]", frozenset(), ()),
    "TERM_CRDLY": ("values", _TERMBITS, r"CR[0-3]", frozenset(), ()),
    # TAB3's value is XTABS's, which strace 6.1 names (PREFERRED)
    "TERM_TABDLY": ("values", _TERMBITS, r"TAB[0-3]|XTABS", frozenset(), ()),
    "TERM_BSDLY": ("values", _TERMBITS, r"BS[01]", frozenset(), ()),
    "TERM_VTDLY": ("values", _TERMBITS, r"VT[01]", frozenset(), ()),
    "TERM_FFDLY": ("values", _TERMBITS, r"FF[01]", frozenset(), ()),
    "TERM_BAUDS": ("values", _TERMBITS, r"B[0-9]+", frozenset(), ()),
    "TERM_CSIZES": ("values", _TERMBITS, r"CS[5-8]", frozenset(), ()),
    # getdents64's d_type (strace -v prints the entries)
    "DIRENT_TYPES": ("values", ("dirent.h",), r"DT_(UNKNOWN|FIFO|CHR|DIR|BLK|REG|LNK|SOCK|WHT)",
                     frozenset(), ()),
    # -v's part of a termios: c_line's line discipline (linux/tty.h) and c_cc's indices
    "TERM_LDISCS": ("values", ("linux/tty.h",), r"N_[A-Z0-9_]+", frozenset(), ()),
    "TERM_CC": ("values", _TERMBITS,
                r"V(INTR|QUIT|ERASE|KILL|EOF|TIME|MIN|SWTC|START|STOP|SUSP|EOL|REPRINT|"
                r"DISCARD|WERASE|LNEXT|EOL2)", frozenset(), ()),
    # poll/ppoll and epoll events (numeric order, as strace 6.1)
    "POLL_EVENTS": ("bits", ("asm/poll.h",),
                    r"POLL(IN|PRI|OUT|ERR|HUP|NVAL|RDNORM|RDBAND|WRNORM|WRBAND|MSG|REMOVE|"
                    r"RDHUP)", frozenset(), ()),
    "EPOLL_EVENTS": ("bits", ("linux/eventpoll.h",),
                     r"EPOLL(IN|PRI|OUT|ERR|HUP|NVAL|RDNORM|RDBAND|WRNORM|WRBAND|MSG|RDHUP|"
                     r"EXCLUSIVE|WAKEUP|ONESHOT|ET)", frozenset(), ()),
    # the int argument of ioctl(TCFLSH) and ioctl(TCXONC) (asm-generic/termbits-common.h)
    "TC_FLUSH": ("values", _TERMBITS, r"TC(I|O|IO)FLUSH", frozenset(), ()),
    "TC_FLOW": ("values", _TERMBITS, r"TC(OOFF|OON|IOFF|ION)", frozenset(), ()),
    "EPOLL_CREATE_FLAGS": ("bits", ("linux/eventpoll.h",), r"EPOLL_CLOEXEC", frozenset(), ()),
    # send/recv flags and msghdr.msg_flags
    "MSG_FLAGS": ("bits", ("sys/socket.h",), r"MSG_[A-Z_]+",
                  frozenset({"MSG_TRYHARD", "MSG_SOCK_DEVMEM"}), ()),
    # preadv2/pwritev2 flags
    "RWF_FLAGS": ("bits", ("linux/fs.h",),
                  r"RWF_(HIPRI|DSYNC|SYNC|NOWAIT|APPEND|NOAPPEND|ATOMIC|DONTCACHE)",
                  frozenset(), ()),
    # control message types of SOL_SOCKET (cmsg_type)
    "SCM_TYPES": ("values", ("sys/socket.h",), r"SCM_(RIGHTS|CREDENTIALS|SECURITY|PIDFD)",
                  frozenset(), ()),
    # socket option levels, and per level the names of its options: the levels and names
    # strace 6.1 prints (setsockopt/getsockopt of every level and option 0-160 under
    # strace 6.1, tests/e2e/test_strace_sweep_sockopt.py). AF_VSOCK is its name for level 40
    "SOL_LEVELS": ("values", ("sys/socket.h", "netinet/in.h", "netinet/tcp.h", "netinet/udp.h",
                              "linux/can.h", "linux/can/raw.h", "netipx/ipx.h", "netax25/ax25.h",
                              "netatalk/at.h", "netrom/netrom.h", "netrose/rose.h"),
                   r"AF_VSOCK|SOL_(IP|SOCKET|TCP|UDP|IPV6|ICMPV6|CAN_BASE|CAN_RAW|SCTP|UDPLITE|"
                   r"RAW|IPX|AX25|ATALK|NETROM|ROSE|DECNET|X25|PACKET|ATM|AAL|IRDA|NETBEUI|LLC|"
                   r"DCCP|NETLINK|TIPC|RXRPC|PPPOL2TP|BLUETOOTH|PNPIPE|RDS|IUCV|CAIF|ALG|NFC|KCM|"
                   r"TLS|XDP)", frozenset(), ()),
    "SO_NAMES": ("values", ("asm/socket.h",), r"SO_[A-Z0-9_]+",
                 frozenset({"SO_GET_FILTER", "SO_DETACH_BPF"}), ()),
    # getsockopt's name of 26 (setsockopt's is SO_ATTACH_FILTER)
    "SO_GET_NAMES": ("values", ("asm/socket.h",), r"SO_GET_FILTER", frozenset(), ()),
    "TCP_NAMES": ("values", ("netinet/tcp.h",),
                  r"TCP_(NODELAY|MAXSEG|CORK|KEEPIDLE|KEEPINTVL|KEEPCNT|SYNCNT|LINGER2|"
                  r"DEFER_ACCEPT|WINDOW_CLAMP|INFO|QUICKACK|CONGESTION|MD5SIG|"
                  r"COOKIE_TRANSACTIONS|THIN_LINEAR_TIMEOUTS|THIN_DUPACK|USER_TIMEOUT|REPAIR|"
                  r"REPAIR_QUEUE|QUEUE_SEQ|REPAIR_OPTIONS|FASTOPEN|TIMESTAMP|NOTSENT_LOWAT|"
                  r"CC_INFO|SAVE_SYN|SAVED_SYN|REPAIR_WINDOW|FASTOPEN_CONNECT|ULP|MD5SIG_EXT|"
                  r"FASTOPEN_KEY|FASTOPEN_NO_COOKIE|ZEROCOPY_RECEIVE|INQ|TX_DELAY)",
                  frozenset(), ()),
    # the SOL_IP control message types (cmsg_type) tracekit names
    "IP_NAMES": ("values", ("netinet/in.h",),
                 r"IP_(TOS|TTL|HDRINCL|OPTIONS|RECVOPTS|RETOPTS|PKTINFO|MTU_DISCOVER|RECVERR|"
                 r"RECVTTL|RECVTOS|MTU|FREEBIND|MULTICAST_IF|MULTICAST_TTL|MULTICAST_LOOP|"
                 r"ADD_MEMBERSHIP|DROP_MEMBERSHIP|TRANSPARENT|BIND_ADDRESS_NO_PORT)",
                 frozenset(), ()),
    # SOL_IP's options; then the netfilter ones, whose names differ between setsockopt
    # and getsockopt
    "IP_SOCKOPTS": ("values", ("netinet/in.h",),
                    r"IP_(TOS|TTL|HDRINCL|OPTIONS|ROUTER_ALERT|RECVOPTS|RETOPTS|PKTINFO|"
                    r"PKTOPTIONS|MTU_DISCOVER|RECVERR|RECVTTL|RECVTOS|MTU|FREEBIND|IPSEC_POLICY|"
                    r"XFRM_POLICY|PASSSEC|TRANSPARENT|ORIGDSTADDR|MINTTL|NODEFRAG|CHECKSUM|"
                    r"BIND_ADDRESS_NO_PORT|RECVFRAGSIZE|RECVERR_RFC4884|MULTICAST_IF|"
                    r"MULTICAST_TTL|MULTICAST_LOOP|ADD_MEMBERSHIP|DROP_MEMBERSHIP|UNBLOCK_SOURCE|"
                    r"BLOCK_SOURCE|ADD_SOURCE_MEMBERSHIP|DROP_SOURCE_MEMBERSHIP|MSFILTER|"
                    r"MULTICAST_ALL|UNICAST_IF)|MCAST_(JOIN_GROUP|BLOCK_SOURCE|UNBLOCK_SOURCE|"
                    r"LEAVE_GROUP|JOIN_SOURCE_GROUP|LEAVE_SOURCE_GROUP|MSFILTER)",
                    frozenset(), ()),
    "IP_SET_SOCKOPTS": ("values", _NETFILTER, r"(IPT|ARPT)_SO_SET_(REPLACE|ADD_COUNTERS)|"
                        r"EBT_SO_SET_(ENTRIES|COUNTERS)", frozenset(), ()),
    "IP_GET_SOCKOPTS": ("values", _NETFILTER,
                        r"IPT_SO_GET_(INFO|ENTRIES|REVISION_MATCH|REVISION_TARGET)|"
                        r"ARPT_SO_GET_(INFO|ENTRIES|REVISION_TARGET)|"
                        r"EBT_SO_GET_(INFO|ENTRIES|INIT_INFO|INIT_ENTRIES)", frozenset(), ()),
    "IPV6_NAMES": ("values", ("netinet/in.h", "linux/in6.h"),
                   r"IPV6_(ADDRFORM|2292PKTINFO|2292HOPOPTS|2292DSTOPTS|2292RTHDR|"
                   r"2292PKTOPTIONS|CHECKSUM|2292HOPLIMIT|NEXTHOP|AUTHHDR|FLOWINFO|UNICAST_HOPS|"
                   r"MULTICAST_IF|MULTICAST_HOPS|MULTICAST_LOOP|ADD_MEMBERSHIP|DROP_MEMBERSHIP|"
                   r"ROUTER_ALERT|MTU_DISCOVER|MTU|RECVERR|V6ONLY|JOIN_ANYCAST|LEAVE_ANYCAST|"
                   r"MULTICAST_ALL|ROUTER_ALERT_ISOLATE|RECVERR_RFC4884|FLOWLABEL_MGR|"
                   r"FLOWINFO_SEND|IPSEC_POLICY|XFRM_POLICY|HDRINCL|RECVPKTINFO|PKTINFO|"
                   r"RECVHOPLIMIT|HOPLIMIT|RECVHOPOPTS|HOPOPTS|RTHDRDSTOPTS|RECVRTHDR|RTHDR|"
                   r"RECVDSTOPTS|DSTOPTS|RECVPATHMTU|PATHMTU|DONTFRAG|USE_MIN_MTU|RECVTCLASS|"
                   r"TCLASS|AUTOFLOWLABEL|ADDR_PREFERENCES|MINHOPCOUNT|ORIGDSTADDR|TRANSPARENT|"
                   r"UNICAST_IF|RECVFRAGSIZE|FREEBIND)|MCAST_(JOIN_GROUP|BLOCK_SOURCE|"
                   r"UNBLOCK_SOURCE|LEAVE_GROUP|JOIN_SOURCE_GROUP|LEAVE_SOURCE_GROUP|MSFILTER)",
                   frozenset(), ()),
    "IPV6_SET_SOCKOPTS": ("values", _NETFILTER, r"IP6T_SO_SET_(REPLACE|ADD_COUNTERS)",
                          frozenset(), ()),
    "IPV6_GET_SOCKOPTS": ("values", _NETFILTER,
                          r"IP6T_SO_GET_(INFO|ENTRIES|REVISION_MATCH|REVISION_TARGET)",
                          frozenset(), ()),
    "VSOCK_SOCKOPTS": ("values", ("sys/socket.h", "linux/vm_sockets.h"),
                       r"SO_VM_SOCKETS_(BUFFER_SIZE|BUFFER_MIN_SIZE|BUFFER_MAX_SIZE|"
                       r"PEER_HOST_VM_ID|TRUSTED|CONNECT_TIMEOUT_OLD|NONBLOCK_TXRX|"
                       r"CONNECT_TIMEOUT_NEW)", frozenset(), ()),
    "CAN_RAW_SOCKOPTS": ("values", ("linux/can/raw.h",), r"CAN_RAW_(FILTER|ERR_FILTER|LOOPBACK|"
                         r"RECV_OWN_MSGS|FD_FRAMES|JOIN_FILTERS)", frozenset(), ()),
    "SCTP_SOCKOPTS": ("values", ("sys/socket.h", "linux/sctp.h"),
                      r"SCTP_(RTOINFO|ASSOCINFO|INITMSG|NODELAY|AUTOCLOSE|SET_PEER_PRIMARY_ADDR|"
                      r"PRIMARY_ADDR|ADAPTATION_LAYER|DISABLE_FRAGMENTS|PEER_ADDR_PARAMS|"
                      r"DEFAULT_SEND_PARAM|EVENTS|I_WANT_MAPPED_V4_ADDR|MAXSEG|STATUS|"
                      r"GET_PEER_ADDR_INFO|DELAYED_SACK|CONTEXT|FRAGMENT_INTERLEAVE|"
                      r"PARTIAL_DELIVERY_POINT|MAX_BURST|AUTH_CHUNK|HMAC_IDENT|AUTH_KEY|"
                      r"AUTH_ACTIVE_KEY|AUTH_DELETE_KEY|PEER_AUTH_CHUNKS|LOCAL_AUTH_CHUNKS|"
                      r"GET_ASSOC_NUMBER|GET_ASSOC_ID_LIST|AUTO_ASCONF|PEER_ADDR_THLDS|"
                      r"RECVRCVINFO|RECVNXTINFO|DEFAULT_SNDINFO|AUTH_DEACTIVATE_KEY|REUSE_PORT|"
                      r"PEER_ADDR_THLDS_V2|SOCKOPT_BINDX_ADD|SOCKOPT_BINDX_REM|SOCKOPT_PEELOFF|"
                      r"GET_PEER_ADDRS_NUM_OLD|GET_PEER_ADDRS_OLD|GET_LOCAL_ADDRS_NUM_OLD|"
                      r"GET_LOCAL_ADDRS_OLD|SOCKOPT_CONNECTX_OLD|GET_PEER_ADDRS|GET_LOCAL_ADDRS|"
                      r"SOCKOPT_CONNECTX|SOCKOPT_CONNECTX3|GET_ASSOC_STATS|PR_SUPPORTED|"
                      r"DEFAULT_PRINFO|PR_ASSOC_STATUS|PR_STREAM_STATUS|RECONFIG_SUPPORTED|"
                      r"ENABLE_STREAM_RESET|RESET_STREAMS|RESET_ASSOC|ADD_STREAMS|"
                      r"SOCKOPT_PEELOFF_FLAGS|STREAM_SCHEDULER|STREAM_SCHEDULER_VALUE|"
                      r"INTERLEAVING_SUPPORTED|SENDMSG_CONNECT|EVENT|ASCONF_SUPPORTED|"
                      r"AUTH_SUPPORTED|ECN_SUPPORTED|EXPOSE_POTENTIALLY_FAILED_STATE|"
                      r"REMOTE_UDP_ENCAPS_PORT|PLPMTUD_PROBE_INTERVAL)",
                      frozenset(), ()),
    "RAW_SOCKOPTS": ("values", ("linux/icmp.h",), r"ICMP_FILTER", frozenset(), ()),
    # ICMP_FILTER's bits: the ICMP message types strace 6.1 names there
    "ICMP_TYPES": ("values", ("linux/icmp.h",),
                   r"ICMP_(ECHOREPLY|DEST_UNREACH|SOURCE_QUENCH|REDIRECT|ECHO|TIME_EXCEEDED|"
                   r"PARAMETERPROB|TIMESTAMP|TIMESTAMPREPLY|INFO_REQUEST|INFO_REPLY|ADDRESS|"
                   r"ADDRESSREPLY)", frozenset(), ()),
    # SO_TXREHASH's values; PACKET_ADD_MEMBERSHIP's mr_type
    "TXREHASH_VALUES": ("values", ("linux/socket.h",), r"SOCK_TXREHASH_[A-Z]+", frozenset(), ()),
    "PACKET_MR_TYPES": ("values", ("linux/if_packet.h",), r"PACKET_MR_[A-Z]+", frozenset(), ()),
    "IPX_SOCKOPTS": ("values", ("netipx/ipx.h",), r"IPX_TYPE", frozenset(), ()),
    # AX.25's, and SO_BINDTODEVICE (25), which strace names at this level too
    "AX25_SOCKOPTS": ("values", ("asm/socket.h", "netax25/ax25.h"),
                      r"AX25_(WINDOW|T1|N2|T3|T2|BACKOFF|EXTSEQ|PIDINCL|IDLE|PACLEN|IAMDIGI)|"
                      r"SO_BINDTODEVICE", frozenset(), ()),
    "IRDA_SOCKOPTS": ("values", ("sys/socket.h",), r"IRLMP_[A-Z_]+", frozenset(), ()),
    "LLC_SOCKOPTS": ("values", ("sys/socket.h", "linux/llc.h"),
                     r"LLC_OPT_(UNKNOWN|RETRY|SIZE|ACK_TMR_EXP|P_TMR_EXP|REJ_TMR_EXP|"
                     r"BUSY_TMR_EXP|TX_WIN|RX_WIN|PKTINFO)", frozenset(), ()),
    "DCCP_SOCKOPTS": ("values", ("linux/dccp.h",),
                      r"DCCP_SOCKOPT_(PACKET_SIZE|SERVICE|CHANGE_L|CHANGE_R|GET_CUR_MPS|"
                      r"SERVER_TIMEWAIT|SEND_CSCOV|RECV_CSCOV|AVAILABLE_CCIDS|CCID|TX_CCID|"
                      r"RX_CCID|QPOLICY_ID|QPOLICY_TXQLEN|CCID_RX_INFO)", frozenset(), ()),
    "TIPC_SOCKOPTS": ("values", ("linux/tipc.h",),
                      r"TIPC_(IMPORTANCE|SRC_DROPPABLE|DEST_DROPPABLE|CONN_TIMEOUT|"
                      r"NODE_RECVQ_DEPTH|SOCK_RECVQ_DEPTH|MCAST_BROADCAST|MCAST_REPLICAST|"
                      r"GROUP_JOIN|GROUP_LEAVE|SOCK_RECVQ_USED|NODELAY)", frozenset(), ()),
    "RXRPC_SOCKOPTS": ("values", ("sys/socket.h", "linux/rxrpc.h"),
                       r"RXRPC_(SECURITY_KEY|SECURITY_KEYRING|EXCLUSIVE_CONNECTION|"
                       r"MIN_SECURITY_LEVEL|UPGRADEABLE_SERVICE|SUPPORTED_CMSG)", frozenset(), ()),
    "PPPOL2TP_SOCKOPTS": ("values", ("sys/socket.h", "linux/if_pppol2tp.h"),
                          r"PPPOL2TP_SO_(DEBUG|RECVSEQ|SENDSEQ|LNSMODE|REORDERTO)",
                          frozenset(), ()),
    "BT_SOCKOPTS": ("values", ("sys/socket.h",), r"BT_[A-Z_]+", frozenset(), ()),
    "PNPIPE_SOCKOPTS": ("values", ("sys/socket.h", "linux/phonet.h"),
                        r"PNPIPE_(ENCAP|IFINDEX|HANDLE|INITSTATE)", frozenset(), ()),
    # RDS's, and SO_TIMESTAMP (29), which strace names at this level as SO_TIMESTAMP_OLD
    "RDS_SOCKOPTS": ("values", ("asm/socket.h", "linux/rds.h"),
                     r"RDS_(CANCEL_SENT_TO|GET_MR|FREE_MR|BARRIER|RECVERR|CONG_MONITOR|"
                     r"GET_MR_FOR_DEST)|SO_RDS_(TRANSPORT|MSG_RXPATH_LATENCY)|SO_TIMESTAMP_OLD",
                     frozenset(), ()),
    "IUCV_SOCKOPTS": ("values", ("sys/socket.h",), r"SO_IPRMDATA_MSG", frozenset(), ()),
    "CAIF_SOCKOPTS": ("values", ("sys/socket.h", "linux/caif/caif_socket.h"),
                      r"CAIFSO_(LINK_SELECT|REQ_PARAM|RSP_PARAM)", frozenset(), ()),
    "ALG_SOCKOPTS": ("values", ("linux/if_alg.h",),
                     r"ALG_SET_(KEY|IV|OP|AEAD_ASSOCLEN|AEAD_AUTHSIZE|DRBG_ENTROPY)",
                     frozenset(), ()),
    "NFC_SOCKOPTS": ("values", ("sys/socket.h", "linux/nfc.h"),
                     r"NFC_LLCP_(RW|MIUX|REMOTE_MIU|REMOTE_LTO|REMOTE_RW)", frozenset(), ()),
    "KCM_SOCKOPTS": ("values", ("sys/socket.h", "linux/kcm.h"), r"KCM_RECV_DISABLE",
                     frozenset(), ()),
    "TLS_SOCKOPTS": ("values", ("linux/tls.h",), r"TLS_(TX|RX)", frozenset(), ()),
    "XDP_SOCKOPTS": ("values", ("linux/if_xdp.h",),
                     r"XDP_(MMAP_OFFSETS|RX_RING|TX_RING|UMEM_REG|UMEM_FILL_RING|"
                     r"UMEM_COMPLETION_RING|STATISTICS|OPTIONS)", frozenset(), ()),
    # the options of SOL_UDP and SOL_PACKET (strace 6.1 names them, and an unnamed one as
    # 0x... /* UDP_??? */)
    "UDP_NAMES": ("values", ("linux/udp.h",),
                  r"UDP_(CORK|ENCAP|NO_CHECK6_TX|NO_CHECK6_RX|SEGMENT|GRO)", frozenset(), ()),
    "PACKET_SOCKOPTS": ("values", ("linux/if_packet.h",),
                        r"PACKET_(ADD_MEMBERSHIP|DROP_MEMBERSHIP|RECV_OUTPUT|RX_RING|"
                        r"STATISTICS|COPY_THRESH|AUXDATA|ORIGDEV|VERSION|HDRLEN|RESERVE|"
                        r"TX_RING|LOSS|VNET_HDR|TX_TIMESTAMP|TIMESTAMP|FANOUT|TX_HAS_OFF|"
                        r"QDISC_BYPASS|ROLLOVER_STATS|FANOUT_DATA|IGNORE_OUTGOING)",
                        frozenset(), ()),
    # AF_PACKET: socket's protocol and sll_protocol (host order values), sll_hatype,
    # sll_pkttype; AF_VSOCK: the named svm_cid and svm_port values
    "ETH_P_PROTOCOLS": ("values", ("linux/if_ether.h",), r"ETH_P_[A-Z0-9_]+",
                        frozenset({"ETH_P_802_3_MIN"}), ()),
    "ARPHRD_TYPES": ("values", ("linux/if_arp.h",), r"ARPHRD_[A-Z0-9_]+", frozenset(), ()),
    "PACKET_TYPES": ("values", ("linux/if_packet.h",),
                     r"PACKET_(HOST|BROADCAST|MULTICAST|OTHERHOST|OUTGOING|LOOPBACK|USER|KERNEL)",
                     frozenset(), ()),
    "VMADDR_CIDS": ("values", ("sys/socket.h", "linux/vm_sockets.h"),
                    r"VMADDR_CID_(ANY|HYPERVISOR|LOCAL|HOST)", frozenset(), ()),
    "VMADDR_PORTS": ("values", ("sys/socket.h", "linux/vm_sockets.h"), r"VMADDR_PORT_ANY",
                     frozenset(), ()),
    # the options of SOL_NETLINK (setsockopt/getsockopt on a netlink socket)
    "NETLINK_SOCKOPTS": ("values", ("linux/netlink.h",),
                         r"NETLINK_(ADD_MEMBERSHIP|DROP_MEMBERSHIP|PKTINFO|BROADCAST_ERROR|"
                         r"NO_ENOBUFS|RX_RING|TX_RING|LISTEN_ALL_NSID|LIST_MEMBERSHIPS|CAP_ACK|"
                         r"EXT_ACK|GET_STRICT_CHK)", frozenset(), ()),
    # timerfd_create and timerfd_settime flags
    "TFD_FLAGS": ("bits", ("sys/timerfd.h",), r"TFD_(CLOEXEC|NONBLOCK)", frozenset(),
                  ("TFD_CLOEXEC", "TFD_NONBLOCK")),
    # memfd_create flags: strace 6.1 names these three (MFD_NOEXEC_SEAL and MFD_EXEC of
    # Linux 6.3 print as hex); MFD_HUGE_SHIFT for the huge page size field
    "MFD_FLAGS": ("bits", ("linux/memfd.h",), r"MFD_(CLOEXEC|ALLOW_SEALING|HUGETLB)",
                  frozenset(), ("MFD_CLOEXEC", "MFD_ALLOW_SEALING", "MFD_HUGETLB")),
    "MFD_CONSTS": ("values", ("linux/memfd.h",), r"MFD_HUGE_(SHIFT|MASK)", frozenset(), ()),
    # eventfd2 flags (strace's order: EFD_SEMAPHORE, EFD_CLOEXEC, EFD_NONBLOCK)
    "EFD_FLAGS": ("bits", ("sys/eventfd.h",), r"EFD_(SEMAPHORE|CLOEXEC|NONBLOCK)",
                  frozenset(), ("EFD_SEMAPHORE", "EFD_CLOEXEC", "EFD_NONBLOCK")),
    # signalfd4 and inotify_init1 flags
    "SFD_FLAGS": ("bits", ("sys/signalfd.h",), r"SFD_(CLOEXEC|NONBLOCK)", frozenset(),
                  ("SFD_CLOEXEC", "SFD_NONBLOCK")),
    # inotify_init1: IN_NONBLOCK first (strace 6.1's xlat/inotify_init_flags.in)
    "IN_INIT_FLAGS": ("bits", ("sys/inotify.h",), r"IN_(CLOEXEC|NONBLOCK)", frozenset(),
                      ("IN_NONBLOCK", "IN_CLOEXEC")),
    "TFD_TIMER_FLAGS": ("bits", ("sys/timerfd.h",), r"TFD_TIMER_(ABSTIME|CANCEL_ON_SET)",
                        frozenset(), ()),
    # fcntl: F_NOTIFY's DN_*, F_ADD_SEALS/F_GET_SEALS, F_GETOWN_EX's type, lock types
    "DN_FLAGS": ("bits", _LFCNTL, r"DN_[A-Z]+", frozenset(), ()),
    "SEAL_FLAGS": ("bits", _LFCNTL, r"F_SEAL_[A-Z_]+", frozenset(), ()),
    "F_OWNER_TYPES": ("values", _FCNTL, r"F_OWNER_(TID|PID|PGRP)", frozenset(), ()),
    "LOCK_TYPES": ("values", _FCNTL, r"F_(RDLCK|WRLCK|UNLCK)", frozenset(), ()),
    # personality(2): the execution domain (low byte and its flag bits) and the flags
    "PERSONALITY_TYPES": ("values", ("linux/personality.h",), r"PER_[A-Z0-9_]+",
                          frozenset({"PER_MASK", "PER_CLEAR_ON_SETID"}), ()),
    "PERSONALITY_FLAGS": ("bits", ("linux/personality.h",),
                          r"UNAME26|ADDR_NO_RANDOMIZE|FDPIC_FUNCPTRS|MMAP_PAGE_ZERO|"
                          r"ADDR_COMPAT_LAYOUT|READ_IMPLIES_EXEC|ADDR_LIMIT_32BIT|SHORT_INODE|"
                          r"WHOLE_SECONDS|STICKY_TIMEOUTS|ADDR_LIMIT_3GB", frozenset(), ()),
    # capabilities (prctl PR_CAPBSET_READ, PR_CAP_AMBIENT)
    "CAPABILITIES": ("values", ("linux/capability.h",), r"CAP_[A-Z_]+",
                     frozenset({"CAP_LAST_CAP"}), ()),
    # prctl's sub-options and values
    "PR_CAP_AMBIENT_OPS": ("values", ("linux/prctl.h",), r"PR_CAP_AMBIENT_[A-Z_]+",
                           frozenset(), ()),
    "PR_SET_MM_OPS": ("values", ("linux/prctl.h",), r"PR_SET_MM_[A-Z_]+", frozenset(), ()),
    "PR_TSC_MODES": ("values", ("linux/prctl.h",), r"PR_TSC_(ENABLE|SIGSEGV)", frozenset(), ()),
    "PR_UNALIGN_FLAGS": ("bits", ("linux/prctl.h",), r"PR_UNALIGN_(NOPRINT|SIGBUS)",
                         frozenset(), ()),
    "PR_MCE_KILL_OPS": ("values", ("linux/prctl.h",), r"PR_MCE_KILL_(CLEAR|SET)", frozenset(),
                        ()),
    "PR_MCE_KILL_POLICIES": ("values", ("linux/prctl.h",),
                             r"PR_MCE_KILL_(LATE|EARLY|DEFAULT)", frozenset(), ()),
    # prctl PR_GET/SET_SPECULATION_CTRL: the misfeature (arg2) and its state (the value
    # PR_GET returns, PR_SET's arg3)
    "PR_SPEC_MISFEATURES": ("values", ("linux/prctl.h",),
                            r"PR_SPEC_(STORE_BYPASS|INDIRECT_BRANCH|L1D_FLUSH)", frozenset(), ()),
    "PR_SPEC_STATES": ("bits", ("linux/prctl.h",),
                       r"PR_SPEC_(PRCTL|ENABLE|DISABLE|FORCE_DISABLE|DISABLE_NOEXEC)",
                       frozenset(), ()),
    # prctl PR_SET_TAGGED_ADDR_CTRL's tag check fault mode (a field), PR_SVE_SET_VL's
    # flags (strace 6.1's order), PR_SCHED_CORE's and PR_SET_SYSCALL_USER_DISPATCH's ops
    "PR_MTE_TCF": ("values", ("linux/prctl.h",), r"PR_MTE_TCF_(NONE|SYNC|ASYNC|MASK)",
                   frozenset(), ()),
    "PR_SVE_VL_FLAGS": ("bits", ("linux/prctl.h",), r"PR_SVE_(SET_VL_ONEXEC|VL_INHERIT)",
                        frozenset(), ("PR_SVE_SET_VL_ONEXEC", "PR_SVE_VL_INHERIT")),
    "PR_SCHED_CORE_OPS": ("values", ("linux/prctl.h",),
                          r"PR_SCHED_CORE_(GET|CREATE|SHARE_TO|SHARE_FROM)", frozenset(), ()),
    "PR_SYS_DISPATCH_OPS": ("values", ("linux/prctl.h",), r"PR_SYS_DISPATCH_(OFF|ON)",
                            frozenset(), ()),
    "PR_SET_VMA_OPS": ("values", ("linux/prctl.h",), r"PR_SET_VMA_ANON_NAME", frozenset(), ()),
    "SECCOMP_MODES": ("values", ("linux/seccomp.h",), r"SECCOMP_MODE_[A-Z]+", frozenset(), ()),
    # seccomp(SECCOMP_GET_ACTION_AVAIL)'s action (SECCOMP_RET_KILL is KILL_THREAD's alias)
    "SECCOMP_RET_ACTIONS": ("values", ("linux/seccomp.h",),
                            r"SECCOMP_RET_(KILL_PROCESS|KILL_THREAD|TRAP|ERRNO|USER_NOTIF|"
                            r"TRACE|LOG|ALLOW)", frozenset(), ()),
    # a seccomp filter's return value: its action (SECCOMP_RET_ACTIONS) and data parts
    "SECCOMP_RET_MASKS": ("values", ("linux/seccomp.h",), r"SECCOMP_RET_(ACTION_FULL|DATA)",
                          frozenset(), ()),
    # classic BPF instructions (struct sock_filter: seccomp's and socket filters'), the
    # parts of their code as strace 6.1 names them (its bpf_filter.c), eBPF's names of
    # the same fields included (BPF_DW, BPF_XADD, BPF_MOV, BPF_JNE...: linux/bpf.h)
    "BPF_CLASSES": ("values", _CBPF, r"BPF_(LD|LDX|ST|STX|ALU|JMP|RET|MISC)", frozenset(), ()),
    "BPF_SIZES": ("values", _CBPF, r"BPF_(W|H|B|DW)", frozenset(), ()),
    "BPF_MODES": ("values", _CBPF, r"BPF_(IMM|ABS|IND|MEM|LEN|MSH|XADD)", frozenset(), ()),
    "BPF_ALU_OPS": ("values", _CBPF,
                    r"BPF_(ADD|SUB|MUL|DIV|OR|AND|LSH|RSH|NEG|MOD|XOR|MOV|ARSH|END)",
                    frozenset(), ()),
    "BPF_JMP_OPS": ("values", _CBPF,
                    r"BPF_(JA|JEQ|JGT|JGE|JSET|JNE|JSGT|JSGE|CALL|EXIT|JLT|JLE|JSLT|JSLE)",
                    frozenset(), ()),
    "BPF_SRCS": ("values", _CBPF, r"BPF_(K|X)", frozenset(), ()),
    "BPF_RVALS": ("values", _CBPF, r"BPF_(K|X|A)", frozenset(), ()),
    "BPF_MISCOPS": ("values", _CBPF, r"BPF_(TAX|TXA)", frozenset(), ()),
    "BPF_FILTER_CONSTS": ("values", _CBPF, r"BPF_MAXINSNS", frozenset(), ()),
    # a socket filter's load offsets: the ancillary data (SKF_AD_OFF + SKF_AD_*), the
    # network and link layer headers
    "SKF_AD": ("values", _CBPF, r"SKF_AD_[A-Z_]+", frozenset({"SKF_AD_OFF", "SKF_AD_MAX"}),
               ()),
    "SKF_OFFS": ("values", _CBPF, r"SKF_(AD|NET|LL)_OFF", frozenset(), ()),
    # SECCOMP_SET_MODE_FILTER's flags
    "SECCOMP_FILTER_FLAGS": ("bits", ("linux/seccomp.h",), r"SECCOMP_FILTER_FLAG_[A-Z_]+",
                             frozenset(), ()),
    # the user-notification ioctls' flags: struct seccomp_notif_resp's (NOTIF_SEND) and
    # struct seccomp_notif_addfd's (NOTIF_ADDFD)
    "SECCOMP_USER_NOTIF_FLAGS": ("bits", ("linux/seccomp.h",), r"SECCOMP_USER_NOTIF_FLAG_[A-Z_]+",
                                 frozenset(), ()),
    "SECCOMP_ADDFD_FLAGS": ("bits", ("linux/seccomp.h",), r"SECCOMP_ADDFD_FLAG_[A-Z_]+",
                            frozenset(), ()),
    # struct futex_waitv's flags as strace 6.1 names them (FUTEX_32: see INTERNAL_BITS)
    "FUTEX_WAITV_FLAGS": ("bits", ("linux/futex.h",), r"FUTEX_PRIVATE_FLAG", frozenset(),
                          ("FUTEX_32", "FUTEX_PRIVATE_FLAG")),
    # struct timex (adjtimex, clock_adjtime): its modes and status words, and the clock
    # state the calls return
    "ADJTIMEX_MODES": ("bits", ("linux/timex.h",), r"ADJ_[A-Z_]+", frozenset(),
                       ("ADJ_OFFSET_SS_READ", "ADJ_OFFSET_SINGLESHOT")),
    "TIMEX_STATUS": ("bits", ("linux/timex.h",),
                     r"STA_(PLL|PPSFREQ|PPSTIME|FLL|INS|DEL|UNSYNC|FREQHOLD|PPSSIGNAL|"
                     r"PPSJITTER|PPSWANDER|PPSERROR|CLOCKERR|NANO|MODE|CLK)", frozenset(), ()),
    "CLOCK_STATES": ("values", ("linux/timex.h",), r"TIME_(OK|INS|DEL|OOP|WAIT|ERROR)",
                     frozenset(), ()),
    "SECUREBITS": ("bits", ("linux/securebits.h",), r"SECBIT_[A-Z_]+", frozenset(), ()),
    # futex FUTEX_WAKE_OP's operation word (FUTEX_OP in linux/futex.h)
    "FUTEX_WAKE_OPS": ("values", ("linux/futex.h",), r"FUTEX_OP_(SET|ADD|OR|ANDN|XOR)",
                       frozenset(), ()),
    "FUTEX_WAKE_CMPS": ("values", ("linux/futex.h",), r"FUTEX_OP_CMP_[A-Z]+", frozenset(),
                        ()),
    # ptrace's PTRACE_SETOPTIONS / PTRACE_SEIZE options
    "PTRACE_OPTIONS": ("bits", ("linux/ptrace.h",), r"PTRACE_O_[A-Z_]+",
                       frozenset({"PTRACE_O_MASK"}), ()),
    # flag words and constants of calls that only their prototypes describe, each in
    # strace 6.1's order (checked live with every bit set; numeric where not listed)
    "LOCK_OPS": ("bits", _FCNTL, r"LOCK_(SH|EX|NB|UN|MAND|READ|WRITE|RW)", frozenset(),
                 ("LOCK_SH", "LOCK_EX", "LOCK_NB", "LOCK_UN", "LOCK_MAND", "LOCK_RW",
                  "LOCK_READ", "LOCK_WRITE")),
    # inotify_add_watch's mask: single events only (strace names 0xfff bit by bit)
    "INOTIFY_MASK": ("bits", ("linux/inotify.h",), r"IN_[A-Z_]+",
                     frozenset({"IN_CLOSE", "IN_MOVE", "IN_ALL_EVENTS", "IN_CLOEXEC",
                                "IN_NONBLOCK"}), ()),
    # mount(2): the bits, and the old magic number of the high half (MS_MGC_VAL)
    "MOUNT_FLAGS": ("bits", ("linux/mount.h",), r"MS_[A-Z_]+",
                    frozenset({"MS_RMT_MASK", "MS_MGC_VAL", "MS_MGC_MSK", "MS_VERBOSE"}), ()),
    "MOUNT_CONSTS": ("values", ("linux/mount.h",), r"MS_MGC_(VAL|MSK)", frozenset(), ()),
    "UMOUNT_FLAGS": ("bits", ("sys/mount.h",), r"MNT_(FORCE|DETACH|EXPIRE)|UMOUNT_NOFOLLOW",
                     frozenset(), ()),
    # fanotify_init: the class is a field of FAN_ALL_CLASS_BITS, then the flags;
    # fanotify_mark: its flags, the event mask (64 bits) and FAN_NOFD for a dirfd of -1
    "FAN_CLASSES": ("values", ("linux/fanotify.h",), r"FAN_CLASS_(NOTIF|CONTENT|PRE_CONTENT)",
                    frozenset(), ()),
    "FAN_INIT_FLAGS": ("bits", ("linux/fanotify.h",),
                       r"FAN_(CLOEXEC|NONBLOCK|UNLIMITED_QUEUE|UNLIMITED_MARKS|ENABLE_AUDIT|"
                       r"REPORT_[A-Z_]+)",
                       frozenset({"FAN_REPORT_DFID_NAME", "FAN_REPORT_DFID_NAME_TARGET"}), ()),
    "FAN_MARK_FLAGS": ("bits", ("linux/fanotify.h",), r"FAN_MARK_[A-Z_]+",
                       frozenset({"FAN_MARK_IGNORE_SURV", "FAN_MARK_TYPE_MASK"}), ()),
    "FAN_EVENTS": ("bits", ("linux/fanotify.h",),
                   r"FAN_(ACCESS|MODIFY|ATTRIB|CLOSE_WRITE|CLOSE_NOWRITE|OPEN|MOVED_FROM|"
                   r"MOVED_TO|CREATE|DELETE|DELETE_SELF|MOVE_SELF|OPEN_EXEC|Q_OVERFLOW|FS_ERROR|"
                   r"OPEN_PERM|ACCESS_PERM|OPEN_EXEC_PERM|DIR_MODIFY|ONDIR|EVENT_ON_CHILD|"
                   r"RENAME)", frozenset(),
                   ("FAN_ACCESS", "FAN_MODIFY", "FAN_ATTRIB", "FAN_CLOSE_WRITE",
                    "FAN_CLOSE_NOWRITE", "FAN_OPEN", "FAN_MOVED_FROM", "FAN_MOVED_TO",
                    "FAN_CREATE", "FAN_DELETE", "FAN_DELETE_SELF", "FAN_MOVE_SELF",
                    "FAN_OPEN_EXEC", "FAN_Q_OVERFLOW", "FAN_FS_ERROR", "FAN_OPEN_PERM",
                    "FAN_ACCESS_PERM", "FAN_OPEN_EXEC_PERM", "FAN_DIR_MODIFY", "FAN_ONDIR",
                    "FAN_EVENT_ON_CHILD", "FAN_RENAME")),
    "FAN_CONSTS": ("values", ("linux/fanotify.h",), r"FAN_(NOFD|ALL_CLASS_BITS)", frozenset(),
                   ()),
    "FALLOC_FLAGS": ("bits", ("linux/falloc.h",), r"FALLOC_FL_[A-Z_]+", frozenset(), ()),
    "MLOCK_FLAGS": ("bits", _MMAN, r"MLOCK_ONFAULT", frozenset(), ()),
    "CLOSE_RANGE_FLAGS": ("bits", ("linux/close_range.h",), r"CLOSE_RANGE_[A-Z]+", frozenset(),
                          ()),
    "PIDFD_FLAGS": ("bits", ("linux/pidfd.h",), r"PIDFD_NONBLOCK", frozenset(), ()),
    "SYNC_FILE_RANGE_FLAGS": ("bits", ("linux/fs.h",),
                              r"SYNC_FILE_RANGE_(WAIT_BEFORE|WRITE|WAIT_AFTER)", frozenset(), ()),
    # ioprio_set's priority and ioprio_get's return: IOPRIO_PRIO_VALUE(class, data)
    "IOPRIO_CLASSES": ("values", ("linux/ioprio.h",), r"IOPRIO_CLASS_(NONE|RT|BE|IDLE)",
                       frozenset(), ()),
    "IOPRIO_CONSTS": ("values", ("linux/ioprio.h",), r"IOPRIO_(CLASS_SHIFT|PRIO_MASK)",
                      frozenset(), ()),
    # mbind/set_mempolicy's mode (a policy and its mode flags), mbind's and get_mempolicy's
    # flags
    "MPOL_MODES": ("values", ("linux/mempolicy.h",),
                   r"MPOL_(DEFAULT|PREFERRED|BIND|INTERLEAVE|LOCAL|PREFERRED_MANY)",
                   frozenset(), ()),
    "MPOL_MODE_FLAGS": ("bits", ("linux/mempolicy.h",),
                        r"MPOL_F_(STATIC_NODES|RELATIVE_NODES|NUMA_BALANCING)", frozenset(),
                        ("MPOL_F_STATIC_NODES", "MPOL_F_RELATIVE_NODES",
                         "MPOL_F_NUMA_BALANCING")),
    "MBIND_FLAGS": ("bits", ("linux/mempolicy.h",), r"MPOL_MF_(STRICT|MOVE|MOVE_ALL)",
                    frozenset(), ()),
    "GET_MEMPOLICY_FLAGS": ("bits", ("linux/mempolicy.h",), r"MPOL_F_(NODE|ADDR|MEMS_ALLOWED)",
                            frozenset(), ()),
    "NAME_TO_HANDLE_FLAGS": ("bits", _LFCNTL, r"AT_(SYMLINK_FOLLOW|EMPTY_PATH)", frozenset(),
                             ()),
    # swapon: the flags, then the priority of SWAP_FLAG_PRIO_MASK in decimal
    "SWAP_FLAGS": ("bits", ("sys/swap.h",), r"SWAP_FLAG_(PREFER|DISCARD|DISCARD_ONCE|"
                   r"DISCARD_PAGES)", frozenset(), ()),
    "SWAP_CONSTS": ("values", ("sys/swap.h",), r"SWAP_FLAG_PRIO_MASK", frozenset(), ()),
    # System V IPC: the get calls' flags (then the mode in octal), shmget's own flags and
    # huge page size field, shmat's, msgsnd/msgrcv's
    "IPC_GET_FLAGS": ("bits", ("linux/ipc.h",), r"IPC_(CREAT|EXCL|NOWAIT)", frozenset(), ()),
    # semop's sem_flg (strace's semop_flags order)
    "SEMOP_FLAGS": ("bits", ("linux/ipc.h", "linux/sem.h"), r"SEM_UNDO|IPC_NOWAIT", frozenset(),
                    ("SEM_UNDO", "IPC_NOWAIT")),
    "SHMGET_FLAGS": ("bits", ("linux/ipc.h", "linux/shm.h"),
                     r"IPC_(CREAT|EXCL)|SHM_(HUGETLB|NORESERVE)", frozenset(), ()),
    "SHM_CONSTS": ("values", ("linux/shm.h",), r"SHM_HUGE_(SHIFT|MASK)", frozenset(), ()),
    "SHMAT_FLAGS": ("bits", ("linux/shm.h",), r"SHM_(RDONLY|RND|REMAP|EXEC)", frozenset(), ()),
    "IPC_MSG_FLAGS": ("bits", ("linux/ipc.h", "linux/msg.h"),
                      r"MSG_(NOERROR|EXCEPT|COPY)|IPC_NOWAIT", frozenset(),
                      ("MSG_NOERROR", "MSG_EXCEPT", "MSG_COPY", "IPC_NOWAIT")),
    "MSYNC_FLAGS": ("bits", _MMAN, r"MS_(SYNC|ASYNC|INVALIDATE)", frozenset(),
                    ("MS_SYNC", "MS_ASYNC", "MS_INVALIDATE")),
    "SPLICE_FLAGS": ("bits", ("fcntl.h",), r"SPLICE_F_[A-Z]+", frozenset(), ()),
    # the mount API of Linux 5.2 (strace 6.1's names; open_tree's and mount_setattr's
    # AT_* bits come from AT_FLAGS): MOUNT_ATTR_RELATIME is 0 and MOUNT_ATTR__ATIME a
    # mask, and strace 6.1 does not name MOUNT_ATTR_IDMAP, MOUNT_ATTR_NOSYMFOLLOW nor
    # MOVE_MOUNT_BENEATH (Linux 6.5)
    "OPEN_TREE_FLAGS": ("bits", ("linux/fcntl.h", "linux/mount.h"),
                        r"OPEN_TREE_(CLONE|CLOEXEC)", frozenset(),
                        ("OPEN_TREE_CLONE", "OPEN_TREE_CLOEXEC")),
    "FSOPEN_FLAGS": ("bits", ("linux/mount.h",), r"FSOPEN_CLOEXEC", frozenset(), ()),
    "FSPICK_FLAGS": ("bits", ("linux/mount.h",),
                     r"FSPICK_(CLOEXEC|SYMLINK_NOFOLLOW|NO_AUTOMOUNT|EMPTY_PATH)", frozenset(),
                     ()),
    "MOVE_MOUNT_FLAGS": ("bits", ("linux/mount.h",),
                         r"MOVE_MOUNT_(F_SYMLINKS|F_AUTOMOUNTS|F_EMPTY_PATH|T_SYMLINKS|"
                         r"T_AUTOMOUNTS|T_EMPTY_PATH|SET_GROUP)", frozenset(), ()),
    "FSMOUNT_FLAGS": ("bits", ("linux/mount.h",), r"FSMOUNT_CLOEXEC", frozenset(), ()),
    "MOUNT_ATTR_FLAGS": ("bits", ("linux/mount.h",),
                         r"MOUNT_ATTR_(RDONLY|NOSUID|NODEV|NOEXEC|NOATIME|STRICTATIME|"
                         r"NODIRATIME)", frozenset(), ()),
    # struct mount_attr's attr_set/attr_clr (mount_setattr): strace 6.1 names two more
    # bits there than in fsmount's attr_flags
    "MOUNT_SETATTR_FLAGS": ("bits", ("linux/mount.h",),
                            r"MOUNT_ATTR_(RDONLY|NOSUID|NODEV|NOEXEC|NOATIME|STRICTATIME|"
                            r"NODIRATIME|IDMAP|NOSYMFOLLOW)", frozenset(), ()),
    # userfaultfd's own bit (then O_NONBLOCK, O_CLOEXEC of OPEN_FLAGS)
    "UFFD_FLAGS": ("bits", ("linux/userfaultfd.h",), r"UFFD_USER_MODE_ONLY", frozenset(), ()),
    "LANDLOCK_CREATE_FLAGS": ("bits", ("linux/landlock.h",),
                              r"LANDLOCK_CREATE_RULESET_VERSION", frozenset(), ()),
    # pkey_alloc's access rights (PKEY_DISABLE_EXECUTE: see INTERNAL_BITS)
    "PKEY_ACCESS": ("bits", _MMAN, r"PKEY_DISABLE_(ACCESS|WRITE|EXECUTE)", frozenset(), ()),
    # io_uring (checked against strace 6.1 with every bit set): the setup flags up to
    # IORING_SETUP_CQE32, the features up to IORING_FEAT_LINKED_FILE, every enter flag of
    # Linux 6.1; register opcodes (an enum): ENUM_CONSTANTS
    "IORING_SETUP_FLAGS": ("bits", ("linux/io_uring.h",),
                           r"IORING_SETUP_(IOPOLL|SQPOLL|SQ_AFF|CQSIZE|CLAMP|ATTACH_WQ|"
                           r"R_DISABLED|SUBMIT_ALL|COOP_TASKRUN|TASKRUN_FLAG|SQE128|CQE32)",
                           frozenset(), ()),
    "IORING_FEAT_FLAGS": ("bits", ("linux/io_uring.h",),
                          r"IORING_FEAT_(SINGLE_MMAP|NODROP|SUBMIT_STABLE|RW_CUR_POS|"
                          r"CUR_PERSONALITY|FAST_POLL|POLL_32BITS|SQPOLL_NONFIXED|EXT_ARG|"
                          r"NATIVE_WORKERS|RSRC_TAGS|CQE_SKIP|LINKED_FILE)", frozenset(), ()),
    "IORING_ENTER_FLAGS": ("bits", ("linux/io_uring.h",),
                           r"IORING_ENTER_(GETEVENTS|SQ_WAKEUP|SQ_WAIT|EXT_ARG|REGISTERED_RING)",
                           frozenset(), ()),
    "IORING_REGISTER_OPS": ("values", ("linux/io_uring.h",), r"IORING_(UN)?REGISTER_[A-Z_0-9]+",
                            frozenset({"IORING_REGISTER_FILES_SKIP", "IORING_REGISTER_LAST",
                                       "IORING_REGISTER_USE_REGISTERED_RING"}), ()),
    # io_uring_register IORING_REGISTER_IOWQ_MAX_WORKERS' array indices (an enum:
    # ENUM_CONSTANTS)
    "IO_WQ_ACCT": ("values", ("linux/io_uring.h",), r"IO_WQ_(BOUND|UNBOUND)", frozenset(), ()),
    # fsconfig's commands (an enum: ENUM_CONSTANTS, those strace 6.1 names)
    "FSCONFIG_CMDS": ("values", ("linux/mount.h",), r"FSCONFIG_[A-Z_]+", frozenset(), ()),
    # kexec_load's flags: the arch field (KEXEC_ARCH_MASK) and two bits; kexec_file_load's
    "KEXEC_ARCHES": ("values", ("linux/kexec.h",), r"KEXEC_ARCH_(?!MASK)[A-Z0-9_]+",
                     frozenset(), ()),
    "KEXEC_FLAGS": ("bits", ("linux/kexec.h",), r"KEXEC_(ON_CRASH|PRESERVE_CONTEXT)",
                    frozenset(), ()),
    "KEXEC_CONSTS": ("values", ("linux/kexec.h",), r"KEXEC_ARCH_MASK", frozenset(), ()),
    "KEXEC_FILE_FLAGS": ("bits", ("linux/kexec.h",),
                         r"KEXEC_FILE_(UNLOAD|ON_CRASH|NO_INITRAMFS)", frozenset(), ()),
    "MODULE_INIT_FLAGS": ("bits", ("linux/module.h",),
                          r"MODULE_INIT_(IGNORE_MODVERSIONS|IGNORE_VERMAGIC|COMPRESSED_FILE)",
                          frozenset(), ()),
    "REBOOT_MAGICS": ("values", ("linux/reboot.h",), r"LINUX_REBOOT_MAGIC[0-9A-Z]*",
                      frozenset(), ()),
    "REBOOT_CMDS": ("values", ("linux/reboot.h",), r"LINUX_REBOOT_CMD_[A-Z_0-9]+",
                    frozenset(), ()),
    "PERF_FLAGS": ("bits", ("linux/perf_event.h",),
                   r"PERF_FLAG_(FD_NO_GROUP|FD_OUTPUT|PID_CGROUP|FD_CLOEXEC)", frozenset(), ()),
    # keyctl(KEYCTL_SETPERM)'s permissions: no uapi header has them (INTERNAL_BITS);
    # strace 6.1 prints the possessor's first, then the user's, group's and other's
    "KEY_PERMS": ("bits", ("linux/keyctl.h",), r"KEY_(POS|USR|GRP|OTH)_[A-Z]+", frozenset(),
                  ("KEY_POS_VIEW", "KEY_POS_READ", "KEY_POS_WRITE", "KEY_POS_SEARCH",
                   "KEY_POS_LINK", "KEY_POS_SETATTR", "KEY_USR_VIEW", "KEY_USR_READ",
                   "KEY_USR_WRITE", "KEY_USR_SEARCH", "KEY_USR_LINK", "KEY_USR_SETATTR",
                   "KEY_GRP_VIEW", "KEY_GRP_READ", "KEY_GRP_WRITE", "KEY_GRP_SEARCH",
                   "KEY_GRP_LINK", "KEY_GRP_SETATTR", "KEY_OTH_VIEW", "KEY_OTH_READ",
                   "KEY_OTH_WRITE", "KEY_OTH_SEARCH", "KEY_OTH_LINK", "KEY_OTH_SETATTR")),
    # inode flags of ioctl FS_IOC_GETFLAGS/FS_IOC_SETFLAGS (``[FS_EXTENT_FL]``)
    "FS_INODE_FLAGS": ("bits", ("linux/fs.h",), r"FS_[A-Z_]+_FL", frozenset(), ()),
    # struct perf_event_attr (enums: ENUM_TAGS; strace 6.1 names sizes up to VER7)
    "PERF_TYPES": ("values", ("linux/perf_event.h",), r"PERF_TYPE_(?!MAX)[A-Z_]+", frozenset(),
                   ()),
    "PERF_ATTR_SIZES": ("values", ("linux/perf_event.h",), r"PERF_ATTR_SIZE_VER[0-7]",
                        frozenset(), ()),
    "PERF_HW_IDS": ("values", ("linux/perf_event.h",), r"PERF_COUNT_HW_(?!MAX)[A-Z_]+",
                    frozenset(), ()),
    "PERF_SW_IDS": ("values", ("linux/perf_event.h",), r"PERF_COUNT_SW_(?!MAX)[A-Z_]+",
                    frozenset(), ()),
    "PERF_HW_CACHE_IDS": ("values", ("linux/perf_event.h",),
                          r"PERF_COUNT_HW_CACHE_(?!MAX|OP_|RESULT_)[A-Z_0-9]+", frozenset(), ()),
    "PERF_HW_CACHE_OPS": ("values", ("linux/perf_event.h",),
                          r"PERF_COUNT_HW_CACHE_OP_(?!MAX)[A-Z_]+", frozenset(), ()),
    "PERF_HW_CACHE_RESULTS": ("values", ("linux/perf_event.h",),
                              r"PERF_COUNT_HW_CACHE_RESULT_(?!MAX)[A-Z_]+", frozenset(), ()),
    "PERF_SAMPLE_FORMAT": ("bits", ("linux/perf_event.h",), r"PERF_SAMPLE_(?!MAX)[A-Z_0-9]+",
                           frozenset(), ()),
    "PERF_READ_FORMAT": ("bits", ("linux/perf_event.h",), r"PERF_FORMAT_(?!MAX)[A-Z_]+",
                         frozenset(), ()),
    # strace -v: branch_sample_type (PERF_SAMPLE_BRANCH_STACK) and a breakpoint's bp_type
    "PERF_BRANCH_SAMPLE": ("bits", ("linux/perf_event.h",),
                           r"PERF_SAMPLE_BRANCH_(?!MAX)[A-Z_]+(?<!_SHIFT)", frozenset(), ()),
    "HW_BREAKPOINT_TYPES": ("values", ("linux/hw_breakpoint.h",),
                            r"HW_BREAKPOINT_(EMPTY|R|W|RW|X)", frozenset(), ()),
    # landlock's filesystem access rights (those of Linux 6.1, which strace 6.1 names)
    "LANDLOCK_ACCESS_FS": ("bits", ("linux/landlock.h",),
                           r"LANDLOCK_ACCESS_FS_(EXECUTE|WRITE_FILE|READ_FILE|READ_DIR|"
                           r"REMOVE_DIR|REMOVE_FILE|MAKE_CHAR|MAKE_DIR|MAKE_REG|MAKE_SOCK|"
                           r"MAKE_FIFO|MAKE_BLOCK|MAKE_SYM|REFER)", frozenset(), ()),
    # keyctl(KEYCTL_CAPABILITIES)'s two bytes, and KEYCTL_MOVE's flags
    "KEYCTL_CAPS0": ("bits", ("linux/keyctl.h",), r"KEYCTL_CAPS0_[A-Z_]+", frozenset(), ()),
    "KEYCTL_CAPS1": ("bits", ("linux/keyctl.h",), r"KEYCTL_CAPS1_[A-Z_]+", frozenset(), ()),
    "KEYCTL_MOVE_FLAGS": ("bits", ("linux/keyctl.h",), r"KEYCTL_MOVE_EXCL", frozenset(), ()),
    # Linux AIO: struct iocb's aio_lio_opcode (an enum: ENUM_CONSTANTS)
    "IOCB_CMDS": ("values", ("linux/aio_abi.h",), r"IOCB_CMD_[A-Z]+", frozenset(), ()),
    "IOCB_FLAGS": ("bits", ("linux/aio_abi.h",), r"IOCB_FLAG_[A-Z]+", frozenset(), ()),
    # the console (linux/kd.h) ioctls' arguments: KDSETLED's lights, KDSETMODE's modes,
    # KDSKBMODE's keyboard modes, KDSKBMETA's meta key modes, KDGKBTYPE's keyboard types,
    # KDSKBENT's key maps
    "KD_LED_FLAGS": ("bits", ("linux/kd.h",), r"LED_(SCR|NUM|CAP)", frozenset(), ()),
    "KD_MODES": ("values", ("linux/kd.h",), r"KD_(TEXT|GRAPHICS|TEXT0|TEXT1)", frozenset(), ()),
    "KD_KBD_MODES": ("values", ("linux/kd.h",), r"K_(RAW|XLATE|MEDIUMRAW|UNICODE|OFF)",
                     frozenset(), ()),
    "KD_META_VALS": ("values", ("linux/kd.h",), r"K_(METABIT|ESCPREFIX)", frozenset(), ()),
    "KD_KBD_TYPES": ("values", ("linux/kd.h",), r"KB_(84|101|OTHER)", frozenset(), ()),
    "KD_KEY_TABLES": ("values", ("linux/kd.h",), r"K_(NORMTAB|SHIFTTAB|ALTTAB|ALTSHIFTTAB)",
                      frozenset(), ()),
    # KDGKBENT/KDSKBENT's struct kbentry: kb_table's modifier bits (numbers: 1<<KG_CTRL),
    # kb_value's key types (its high byte) and the keys named by K(type, value) in the
    # key types strace names (RANGES: from KT_FN to KT_BRL)
    "KD_KG_BITS": ("values", ("linux/keyboard.h",),
                   r"KG_(SHIFT|ALTGR|CTRL|ALT|SHIFTL|SHIFTR|CTRLL|CTRLR)", frozenset(), ()),
    "KD_KEY_TYPES": ("values", ("linux/keyboard.h",), r"KT_[A-Z0-9]+", frozenset(), ()),
    "KD_KEYS": ("values", ("linux/keyboard.h",), r"K_[A-Za-z0-9_]+", frozenset(), ()),
    # the input event device (linux/input.h) ioctls' arguments and request numbers:
    # EVIOCGBIT's event types, EVIOCGABS/EVIOCSABS's axes, EVIOCSKEYCODE's keys,
    # EVIOCSFF's effect types (not the waveforms, status values or limits)
    "EVDEV_EV": ("values", ("linux/input.h",), r"EV_[A-Z_]+",
                 frozenset({"EV_MAX", "EV_CNT", "EV_VERSION"}), ()),
    "EVDEV_ABS": ("values", ("linux/input.h",), r"ABS_[A-Z0-9_]+",
                  frozenset({"ABS_MAX", "ABS_CNT"}), ()),
    "EVDEV_KEYS": ("values", ("linux/input.h",), r"(KEY|BTN)_[A-Z0-9_]+",
                   frozenset({"KEY_MAX", "KEY_CNT", "KEY_MIN_INTERESTING"}), ()),
    "EVDEV_FF_TYPES": ("values", ("linux/input.h",),
                       r"FF_(RUMBLE|PERIODIC|CONSTANT|SPRING|FRICTION|DAMPER|INERTIA|RAMP|"
                       r"SQUARE|TRIANGLE|SINE|SAW_UP|SAW_DOWN|CUSTOM|GAIN|AUTOCENTER)",
                       frozenset(), ()),
    # PTP clocks (linux/ptp_clock.h): struct ptp_extts_request's and ptp_perout_request's
    # flags (not the masks of the valid ones), struct ptp_pin_desc's func
    "PTP_EXTTS_FLAGS": ("bits", ("linux/ptp_clock.h",),
                        r"PTP_(ENABLE_FEATURE|RISING_EDGE|FALLING_EDGE|STRICT_FLAGS)",
                        frozenset(), ()),
    "PTP_PEROUT_FLAGS": ("bits", ("linux/ptp_clock.h",), r"PTP_PEROUT_(ONE_SHOT|DUTY_CYCLE|PHASE)",
                         frozenset(), ()),
    "PTP_PIN_FUNCS": ("values", ("linux/ptp_clock.h",), r"PTP_PF_[A-Z]+", frozenset(), ()),
    # real time clocks (linux/rtc.h): struct rtc_param's param, its features (bit
    # numbers) and backup switch modes; RTC_VL_READ's voltage flags
    "RTC_PARAMS": ("values", ("linux/rtc.h",), r"RTC_PARAM_[A-Z_]+",
                   frozenset({"RTC_PARAM_GET", "RTC_PARAM_SET"}), ()),
    "RTC_FEATURES": ("values", ("linux/rtc.h",), r"RTC_FEATURE_[A-Z0-9_]+",
                     frozenset({"RTC_FEATURE_CNT"}), ()),
    "RTC_BSM_MODES": ("values", ("linux/rtc.h",), r"RTC_BSM_[A-Z]+", frozenset(), ()),
    "RTC_VL_FLAGS": ("bits", ("linux/rtc.h",),
                     r"RTC_VL_(DATA_INVALID|BACKUP_LOW|BACKUP_EMPTY|ACCURACY_LOW|BACKUP_SWITCH)",
                     frozenset(), ()),
    # GPIO character devices (linux/gpio.h): the v1 line, handle request and event
    # request flags, the v2 line flags and attribute ids (enums)
    "GPIO_LINE_FLAGS": ("bits", ("linux/gpio.h",), r"GPIOLINE_FLAG_[A-Z_]+", frozenset(), ()),
    "GPIO_HANDLE_FLAGS": ("bits", ("linux/gpio.h",), r"GPIOHANDLE_REQUEST_[A-Z_]+",
                          frozenset(), ()),
    "GPIO_EVENT_FLAGS": ("bits", ("linux/gpio.h",), r"GPIOEVENT_REQUEST_[A-Z_]+", frozenset(),
                         ("GPIOEVENT_REQUEST_BOTH_EDGES",)),
    "GPIO_V2_LINE_FLAGS": ("bits", ("linux/gpio.h",), r"GPIO_V2_LINE_FLAG_[A-Z_]+",
                           frozenset(), ()),
    "GPIO_V2_ATTR_IDS": ("values", ("linux/gpio.h",), r"GPIO_V2_LINE_ATTR_ID_[A-Z_]+",
                         frozenset(), ()),
    # requests of other drivers that share a value with one of IOCTLS: strace prints
    # both names (``SNDCTL_TMR_START or TCSETS``, ``BTRFS_IOC_CLONE or FICLONE``)
    "IOCTL_ALIASES": ("values", ("linux/soundcard.h", "linux/btrfs.h"),
                      r"SNDCTL_TMR_[A-Z]+|BTRFS_IOC_CLONE|BTRFS_IOC_CLONE_RANGE|"
                      r"BTRFS_IOC_FILE_EXTENT_SAME", frozenset(), ()),
    # ioctl TIOCMGET/TIOCMSET/TIOCMBIS/TIOCMBIC's modem lines (strace 6.1's names:
    # TIOCM_CAR and TIOCM_RNG, not their aliases TIOCM_CD and TIOCM_RI)
    "TIOCM_BITS": ("bits", ("asm/termbits.h", "asm/ioctls.h", "asm/termios.h"), r"TIOCM_[A-Z0-9]+",
                   frozenset({"TIOCM_CD", "TIOCM_RI"}), ()),
    # struct fsxattr's fsx_xflags (ioctl FS_IOC_FSGETXATTR) and struct fiemap's fm_flags
    "FS_XFLAGS": ("bits", ("linux/fs.h",), r"FS_XFLAG_[A-Z]+", frozenset(), ()),
    "FIEMAP_FLAGS": ("bits", ("linux/fiemap.h",), r"FIEMAP_FLAG_[A-Z]+", frozenset(), ()),
    # ptrace PTRACE_GET_SYSCALL_INFO's struct ptrace_syscall_info (op, arch) and
    # PTRACE_PEEKSIGINFO's struct ptrace_peeksiginfo_args flags
    "PTRACE_SYSCALL_INFO_OPS": ("values", ("linux/ptrace.h",), r"PTRACE_SYSCALL_INFO_[A-Z]+",
                                frozenset(), ()),
    "PTRACE_PEEKSIGINFO_FLAGS": ("bits", ("linux/ptrace.h",), r"PTRACE_PEEKSIGINFO_SHARED",
                                 frozenset(), ()),
    "AUDIT_ARCHES": ("values", ("linux/audit.h",), r"AUDIT_ARCH_[A-Z0-9_]+", frozenset(), ()),
    # arch_prctl ARCH_GET_XCOMP_SUPP/PERM/GUEST_PERM's x86 XSAVE feature mask: the kernel
    # keeps the names internal (INTERNAL_BITS); strace 6.1's order, groups first
    "X86_XFEATURES": ("bits", ("asm/prctl.h",), r"XFEATURE_MASK_[A-Za-z0-9_]+", frozenset(),
                      ("XFEATURE_MASK_FPSSE", "XFEATURE_MASK_FP", "XFEATURE_MASK_SSE",
                       "XFEATURE_MASK_YMM", "XFEATURE_MASK_BNDREGS", "XFEATURE_MASK_BNDCSR",
                       "XFEATURE_MASK_AVX512", "XFEATURE_MASK_OPMASK",
                       "XFEATURE_MASK_ZMM_Hi256", "XFEATURE_MASK_Hi16_ZMM", "XFEATURE_MASK_PT",
                       "XFEATURE_MASK_PKRU", "XFEATURE_MASK_PASID", "XFEATURE_MASK_LBR",
                       "XFEATURE_MASK_XTILE", "XFEATURE_MASK_XTILE_CFG",
                       "XFEATURE_MASK_XTILE_DATA")),
    # arch_prctl ARCH_REQ_XCOMP_PERM/GUEST_PERM's feature number (INTERNAL_BITS too)
    "X86_XFEATURE_BITS": ("values", ("asm/prctl.h",), r"XFEATURE_(?!MASK_)[A-Za-z0-9_]+",
                          frozenset(), ()),
    # ptrace PTRACE_GETREGSET/SETREGSET's note types (linux/elf.h)
    "NT_TYPES": ("values", ("linux/elf.h",), r"NT_[A-Z0-9_]+",
                 frozenset({"NT_GNU_PROPERTY_TYPE_0"}), ()),
    # the requests of drivers and subsystems beyond IOCTLS' (consoles, video4linux, IDE,
    # PTP clocks, GPIO, RTC, loop, perf, seccomp, watchdog, SCSI generic, UBI, KVM,
    # device mapper, NBD, counter, TEE, userfaultfd, btrfs, sockets, input events;
    # EVIOCGBIT(ev, len) and the other requests with a number or a length in them are
    # named by tracekit.decode.structs_evdev), which strace 6.1
    # names: the macros made with _IO/_IOR/_IOW/_IOWR, and the old numeric ones of their
    # driver's range (DRIVER_IOCTL_RANGES). Two drivers' requests of one value are both
    # named, ``A or B`` (strace's order: by name).
    "DRIVER_IOCTLS": ("values", ("linux/kd.h", "linux/videodev2.h", "linux/hdreg.h",
                                 "linux/ptp_clock.h", "linux/gpio.h", "linux/rtc.h",
                                 "linux/loop.h", "linux/perf_event.h", "linux/seccomp.h",
                                 "linux/watchdog.h", "scsi/sg.h", "mtd/ubi-user.h",
                                 "linux/kvm.h", "linux/dm-ioctl.h", "linux/nbd.h",
                                 "linux/counter.h", "linux/tee.h", "linux/userfaultfd.h",
                                 "linux/btrfs.h", "linux/sockios.h", "linux/if_bridge.h",
                                 "linux/input.h", "linux/phantom.h", "linux/nvram.h"),
                      # (not the requests of KVM on s390, powerpc and arm)
                      r"(?!KVM_(?:S390|PPC|ARM)_)[A-Z][A-Z0-9_]*",
                      # (an arm64 request of KVM_GET_ONE_REG's value: not x86's)
                      frozenset({"SIOCDEVPRIVATE", "SIOCPROTOPRIVATE",
                                 "KVM_ARM_SET_DEVICE_ADDR"}), ()),
}

# DRIVER_IOCTLS: numeric (pre-_IOC) requests, by name prefix: the range they are in
DRIVER_IOCTL_RANGES: tuple[tuple[str, int, int], ...] = (
    ("KD", 0x4B00, 0x4BFF), ("GIO_", 0x4B00, 0x4BFF), ("PIO_", 0x4B00, 0x4BFF),
    ("KIOC", 0x4B00, 0x4BFF), ("LOOP_", 0x4C00, 0x4CFF), ("HDIO_", 0x0300, 0x03FF),
    ("SIOC", 0x8900, 0x89DF), ("SG_", 0x2200, 0x22FF), ("NBD_", 0xAB00, 0xABFF))
# a request's body: _IOWR(...), or a driver's wrapper of it (SECCOMP_IOWR(...)); a body
# that is another macro's name is an alias, which strace does not name
_IOC_BODY = re.compile(r"[A-Z0-9_]*_IO(?:R|W|WR)?\s*\(")
_ALIAS_BODY = re.compile(r"[A-Za-z_]\w*")

# Names of C enum constants (``-E -dM`` lists only macros), per table, from the headers
# named in TABLES; a name a header lacks is dropped by the compiler.
ENUM_CONSTANTS: dict[str, tuple[str, ...]] = {
    "LLC_SOCKOPTS": ("LLC_OPT_UNKNOWN", "LLC_OPT_RETRY", "LLC_OPT_SIZE", "LLC_OPT_ACK_TMR_EXP",
                     "LLC_OPT_P_TMR_EXP", "LLC_OPT_REJ_TMR_EXP", "LLC_OPT_BUSY_TMR_EXP",
                     "LLC_OPT_TX_WIN", "LLC_OPT_RX_WIN", "LLC_OPT_PKTINFO"),
    "PPPOL2TP_SOCKOPTS": ("PPPOL2TP_SO_DEBUG", "PPPOL2TP_SO_RECVSEQ", "PPPOL2TP_SO_SENDSEQ",
                          "PPPOL2TP_SO_LNSMODE", "PPPOL2TP_SO_REORDERTO"),
    "CAIF_SOCKOPTS": ("CAIFSO_LINK_SELECT", "CAIFSO_REQ_PARAM", "CAIFSO_RSP_PARAM"),
    "CAN_RAW_SOCKOPTS": ("CAN_RAW_FILTER", "CAN_RAW_ERR_FILTER", "CAN_RAW_LOOPBACK",
                         "CAN_RAW_RECV_OWN_MSGS", "CAN_RAW_FD_FRAMES", "CAN_RAW_JOIN_FILTERS"),
    # strace 6.1's bpf_map_flags, in its order
    "BPF_MAP_FLAGS": ("BPF_F_NO_PREALLOC", "BPF_F_NO_COMMON_LRU", "BPF_F_NUMA_NODE",
                      "BPF_F_RDONLY", "BPF_F_WRONLY", "BPF_F_STACK_BUILD_ID", "BPF_F_ZERO_SEED",
                      "BPF_F_RDONLY_PROG", "BPF_F_WRONLY_PROG", "BPF_F_CLONE",
                      "BPF_F_MMAPABLE", "BPF_F_PRESERVE_ELEMS", "BPF_F_INNER_MAP"),
    "BPF_UPDATE_FLAGS": ("BPF_ANY", "BPF_NOEXIST", "BPF_EXIST", "BPF_F_LOCK"),
    "BPF_FILE_FLAGS": ("BPF_F_RDONLY", "BPF_F_WRONLY"),
    "BPF_KPROBE_MULTI_FLAGS": ("BPF_F_KPROBE_MULTI_RETURN",),
    # strace 6.1's bpf_task_fd_type
    "BPF_FD_TYPES": ("BPF_FD_TYPE_RAW_TRACEPOINT", "BPF_FD_TYPE_TRACEPOINT", "BPF_FD_TYPE_KPROBE",
                     "BPF_FD_TYPE_KRETPROBE", "BPF_FD_TYPE_UPROBE", "BPF_FD_TYPE_URETPROBE"),
    "IOPRIO_CLASSES": ("IOPRIO_CLASS_NONE", "IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE",
                       "IOPRIO_CLASS_IDLE"),
    "MPOL_MODES": ("MPOL_DEFAULT", "MPOL_PREFERRED", "MPOL_BIND", "MPOL_INTERLEAVE",
                   "MPOL_LOCAL", "MPOL_PREFERRED_MANY"),
    "IOPRIO_WHO": ("IOPRIO_WHO_PROCESS", "IOPRIO_WHO_PGRP", "IOPRIO_WHO_USER"),
    "IOCB_CMDS": ("IOCB_CMD_PREAD", "IOCB_CMD_PWRITE", "IOCB_CMD_FSYNC", "IOCB_CMD_FDSYNC",
                  "IOCB_CMD_POLL", "IOCB_CMD_NOOP", "IOCB_CMD_PREADV", "IOCB_CMD_PWRITEV"),
    "IO_WQ_ACCT": ("IO_WQ_BOUND", "IO_WQ_UNBOUND"),
    # strace 6.1 names the opcodes of Linux 6.0 (up to IORING_UNREGISTER_PBUF_RING)
    "IORING_REGISTER_OPS": (
        "IORING_REGISTER_BUFFERS", "IORING_UNREGISTER_BUFFERS", "IORING_REGISTER_FILES",
        "IORING_UNREGISTER_FILES", "IORING_REGISTER_EVENTFD", "IORING_UNREGISTER_EVENTFD",
        "IORING_REGISTER_FILES_UPDATE", "IORING_REGISTER_EVENTFD_ASYNC",
        "IORING_REGISTER_PROBE", "IORING_REGISTER_PERSONALITY",
        "IORING_UNREGISTER_PERSONALITY", "IORING_REGISTER_RESTRICTIONS",
        "IORING_REGISTER_ENABLE_RINGS", "IORING_REGISTER_FILES2",
        "IORING_REGISTER_FILES_UPDATE2", "IORING_REGISTER_BUFFERS2",
        "IORING_REGISTER_BUFFERS_UPDATE", "IORING_REGISTER_IOWQ_AFF",
        "IORING_UNREGISTER_IOWQ_AFF", "IORING_REGISTER_IOWQ_MAX_WORKERS",
        "IORING_REGISTER_RING_FDS", "IORING_UNREGISTER_RING_FDS", "IORING_REGISTER_PBUF_RING",
        "IORING_UNREGISTER_PBUF_RING"),
    # strace 6.1: up to FSCONFIG_CMD_RECONFIGURE (not Linux 6.6's FSCONFIG_CMD_CREATE_EXCL)
    "FSCONFIG_CMDS": ("FSCONFIG_SET_FLAG", "FSCONFIG_SET_STRING", "FSCONFIG_SET_BINARY",
                      "FSCONFIG_SET_PATH", "FSCONFIG_SET_PATH_EMPTY", "FSCONFIG_SET_FD",
                      "FSCONFIG_CMD_CREATE", "FSCONFIG_CMD_RECONFIGURE"),

    "PERSONALITY_TYPES": ("PER_LINUX", "PER_LINUX_32BIT", "PER_LINUX_FDPIC", "PER_SVR4",
                          "PER_SVR3", "PER_SCOSVR3", "PER_OSR5", "PER_WYSEV386", "PER_ISCR4",
                          "PER_BSD", "PER_SUNOS", "PER_XENIX", "PER_LINUX32",
                          "PER_LINUX32_3GB", "PER_IRIX32", "PER_IRIXN32", "PER_IRIX64",
                          "PER_RISCOS", "PER_SOLARIS", "PER_UW7", "PER_OSF4", "PER_HPUX"),
    "PERSONALITY_FLAGS": ("UNAME26", "ADDR_NO_RANDOMIZE", "FDPIC_FUNCPTRS", "MMAP_PAGE_ZERO",
                          "ADDR_COMPAT_LAYOUT", "READ_IMPLIES_EXEC", "ADDR_LIMIT_32BIT",
                          "SHORT_INODE", "WHOLE_SECONDS", "STICKY_TIMEOUTS", "ADDR_LIMIT_3GB"),
}

# Constants strace prints that no installed header defines: the kernel keeps them in its
# internal headers. Written here with their source; rendered like the "values" tables.
INTERNAL_TABLES: dict[str, dict[int, str]] = {
    # include/linux/syslog.h: syslog(2)'s actions
    "SYSLOG_ACTIONS": {0: "SYSLOG_ACTION_CLOSE", 1: "SYSLOG_ACTION_OPEN",
                       2: "SYSLOG_ACTION_READ", 3: "SYSLOG_ACTION_READ_ALL",
                       4: "SYSLOG_ACTION_READ_CLEAR", 5: "SYSLOG_ACTION_CLEAR",
                       6: "SYSLOG_ACTION_CONSOLE_OFF", 7: "SYSLOG_ACTION_CONSOLE_ON",
                       8: "SYSLOG_ACTION_CONSOLE_LEVEL", 9: "SYSLOG_ACTION_SIZE_UNREAD",
                       10: "SYSLOG_ACTION_SIZE_BUFFER"},
    # include/linux/kern_levels.h: console log levels (syslog's SYSLOG_ACTION_CONSOLE_LEVEL)
    "LOG_LEVELS": {0: "LOGLEVEL_EMERG", 1: "LOGLEVEL_ALERT", 2: "LOGLEVEL_CRIT",
                   3: "LOGLEVEL_ERR", 4: "LOGLEVEL_WARNING", 5: "LOGLEVEL_NOTICE",
                   6: "LOGLEVEL_INFO", 7: "LOGLEVEL_DEBUG"},
    # include/linux/sched/coredump.h: prctl PR_SET_DUMPABLE / PR_GET_DUMPABLE values
    "SUID_DUMP": {0: "SUID_DUMP_DISABLE", 1: "SUID_DUMP_USER", 2: "SUID_DUMP_ROOT"},
    # include/net/tcp_states.h: TCP states (strace names TCP_NEW_SYN_RECV too, which
    # netinet/tcp.h lacks); inet_diag's idiag_state, unix_diag's udiag_state
    "TCP_STATES": {1: "TCP_ESTABLISHED", 2: "TCP_SYN_SENT", 3: "TCP_SYN_RECV",
                   4: "TCP_FIN_WAIT1", 5: "TCP_FIN_WAIT2", 6: "TCP_TIME_WAIT", 7: "TCP_CLOSE",
                   8: "TCP_CLOSE_WAIT", 9: "TCP_LAST_ACK", 10: "TCP_LISTEN", 11: "TCP_CLOSING",
                   12: "TCP_NEW_SYN_RECV"},
    # include/linux/if_addr.h's IFA_F_TEMPORARY is IFA_F_SECONDARY's alias; strace 6.1
    # names 0x1 IFA_F_SECONDARY. include/net/sock.h: the shutdown bits of
    # INET_DIAG_SHUTDOWN / UNIX_DIAG_SHUTDOWN
    "SHUTDOWN_BITS": {1: "RCV_SHUTDOWN", 2: "SEND_SHUTDOWN"},
    # include/linux/pid.h: enum pid_type (prctl PR_SCHED_CORE's arg4, as strace names it)
    "PID_TYPES": {0: "PIDTYPE_PID", 1: "PIDTYPE_TGID", 2: "PIDTYPE_PGID", 3: "PIDTYPE_SID"},
}
# Bits (and values) strace 6.1 names that no installed header defines, merged into their
# table: include/linux/swap.h's (kernel-internal) discard policies, FAN_DIR_MODIFY, which
# Linux 5.7 removed from the uapi header and strace still names, powerpc's
# PKEY_DISABLE_EXECUTE, the -ck patches' SCHED_ISO and futex_waitv's FUTEX_32.
INTERNAL_BITS: dict[str, dict[str, int]] = {
    # asm-generic/poll.h defines it as (__poll_t)0x8000, a cast the evaluation cannot
    # take; strace 6.1 names it in poll's and aio's events
    "POLL_EVENTS": {"POLL_BUSY_LOOP": 0x8000},
    # glibc <elf.h>'s note types (core files of other systems) strace 6.1 names too
    "NT_TYPES": {"NT_PLATFORM": 5, "NT_GWINDOWS": 7, "NT_ASRS": 8, "NT_PSTATUS": 10,
                 "NT_PSINFO": 13, "NT_PRCRED": 14, "NT_UTSNAME": 15, "NT_LWPSTATUS": 16,
                 "NT_LWPSINFO": 17, "NT_PRFPXREG": 20},
    "SWAP_FLAGS": {"SWAP_FLAG_DISCARD_ONCE": 0x20000, "SWAP_FLAG_DISCARD_PAGES": 0x40000},
    # include/linux/socket.h (kernel-internal): SELinux's control message
    "SCM_TYPES": {"SCM_SECURITY": 3},
    # socket levels of include/linux/socket.h (kernel-internal); the options of IrDA
    # (removed in Linux 4.17 with its uapi header), of Bluetooth
    # (include/net/bluetooth/bluetooth.h) and of AF_IUCV (include/net/iucv/af_iucv.h),
    # which no uapi header holds and strace 6.1 names
    "SOL_LEVELS": {"SOL_SCTP": 132, "SOL_UDPLITE": 136},
    "IRDA_SOCKOPTS": {"IRLMP_ENUMDEVICES": 1, "IRLMP_IAS_SET": 2, "IRLMP_IAS_QUERY": 3,
                      "IRLMP_HINTS_SET": 4, "IRLMP_QOS_SET": 5, "IRLMP_QOS_GET": 6,
                      "IRLMP_MAX_SDU_SIZE": 7, "IRLMP_IAS_GET": 8, "IRLMP_IAS_DEL": 9,
                      "IRLMP_HINT_MASK_SET": 10, "IRLMP_WAITDEVICE": 11},
    "BT_SOCKOPTS": {"BT_SECURITY": 4, "BT_DEFER_SETUP": 7, "BT_FLUSHABLE": 8, "BT_POWER": 9,
                    "BT_CHANNEL_POLICY": 10, "BT_VOICE": 11, "BT_SNDMTU": 12, "BT_RCVMTU": 13},
    "IUCV_SOCKOPTS": {"SO_IPRMDATA_MSG": 0x80},
    # removed from linux/sctp.h (Linux 2.6.x's old address calls) and linux/rds.h
    # (deprecated), named by strace 6.1
    "SCTP_SOCKOPTS": {"SCTP_GET_PEER_ADDRS_NUM_OLD": 103, "SCTP_GET_PEER_ADDRS_OLD": 104,
                      "SCTP_GET_LOCAL_ADDRS_NUM_OLD": 105, "SCTP_GET_LOCAL_ADDRS_OLD": 106},
    "RDS_SOCKOPTS": {"RDS_BARRIER": 4},
    "IPV6_NAMES": {"IPV6_USE_MIN_MTU": 63},     # linux/in6.h has it under "#if 0"
    "FAN_EVENTS": {"FAN_DIR_MODIFY": 0x00080000},
    # powerpc's asm/mman.h defines it; strace 6.1 names 0x4 so on every arch
    "PKEY_ACCESS": {"PKEY_DISABLE_EXECUTE": 0x4},
    # include/linux/key.h: key permissions (possessor, user, group, other)
    "KEY_PERMS": {
        "KEY_POS_VIEW": 0x01000000, "KEY_POS_READ": 0x02000000, "KEY_POS_WRITE": 0x04000000,
        "KEY_POS_SEARCH": 0x08000000, "KEY_POS_LINK": 0x10000000, "KEY_POS_SETATTR": 0x20000000,
        "KEY_USR_VIEW": 0x00010000, "KEY_USR_READ": 0x00020000, "KEY_USR_WRITE": 0x00040000,
        "KEY_USR_SEARCH": 0x00080000, "KEY_USR_LINK": 0x00100000, "KEY_USR_SETATTR": 0x00200000,
        "KEY_GRP_VIEW": 0x00000100, "KEY_GRP_READ": 0x00000200, "KEY_GRP_WRITE": 0x00000400,
        "KEY_GRP_SEARCH": 0x00000800, "KEY_GRP_LINK": 0x00001000, "KEY_GRP_SETATTR": 0x00002000,
        "KEY_OTH_VIEW": 0x00000001, "KEY_OTH_READ": 0x00000002, "KEY_OTH_WRITE": 0x00000004,
        "KEY_OTH_SEARCH": 0x00000008, "KEY_OTH_LINK": 0x00000010, "KEY_OTH_SETATTR": 0x00000020,
    },
    # arch/x86/include/asm/fpu/types.h: enum xfeature, the numbers strace 6.1 names
    "X86_XFEATURE_BITS": {
        "XFEATURE_FP": 0, "XFEATURE_SSE": 1, "XFEATURE_YMM": 2, "XFEATURE_BNDREGS": 3,
        "XFEATURE_BNDCSR": 4, "XFEATURE_OPMASK": 5, "XFEATURE_ZMM_Hi256": 6,
        "XFEATURE_Hi16_ZMM": 7, "XFEATURE_PT_UNIMPLEMENTED_SO_FAR": 8, "XFEATURE_PKRU": 9,
        "XFEATURE_PASID": 10, "XFEATURE_LBR": 15, "XFEATURE_XTILE_CFG": 17,
        "XFEATURE_XTILE_DATA": 18,
    },
    # arch/x86/include/asm/fpu/types.h: XSAVE feature masks (1 << XFEATURE_*)
    "X86_XFEATURES": {
        "XFEATURE_MASK_FPSSE": 0x3, "XFEATURE_MASK_FP": 0x1, "XFEATURE_MASK_SSE": 0x2,
        "XFEATURE_MASK_YMM": 0x4, "XFEATURE_MASK_BNDREGS": 0x8, "XFEATURE_MASK_BNDCSR": 0x10,
        "XFEATURE_MASK_AVX512": 0xE0, "XFEATURE_MASK_OPMASK": 0x20,
        "XFEATURE_MASK_ZMM_Hi256": 0x40, "XFEATURE_MASK_Hi16_ZMM": 0x80,
        "XFEATURE_MASK_PT": 0x100, "XFEATURE_MASK_PKRU": 0x200, "XFEATURE_MASK_PASID": 0x400,
        "XFEATURE_MASK_LBR": 0x8000, "XFEATURE_MASK_XTILE": 0x60000,
        "XFEATURE_MASK_XTILE_CFG": 0x20000, "XFEATURE_MASK_XTILE_DATA": 0x40000,
    },
    # Linux 6.1.0's rtnetlink.h defines the macro of RTM_NEWVLAN misspelt (RTM_NEWNVLAN,
    # fixed in 6.1.y): the enum's name, which strace prints
    "RTM_TYPES": {"RTM_NEWVLAN": 112},
    # the deprecated AUDIT_FS_WATCH of include/uapi/linux/audit.h (a comment there now):
    # strace 6.1 names 1301 so
    "AUDIT_TYPES": {"AUDIT_FS_WATCH": 1301},
    # include/linux/socket.h (Linux 6.1): the kernel-internal send/recv flags strace 6.1
    # names: the compat bit, and the bits of sendpage and of TCP's zero-copy path
    "MSG_FLAGS": {"MSG_CMSG_COMPAT": 0x80000000, "MSG_SENDPAGE_NOTLAST": 0x20000,
                  "MSG_NO_SHARED_FRAGS": 0x80000},
    # the -ck patches' isochronous policy: no header defines it, strace 6.1 names 4 so
    # (sched_get_priority_max(SCHED_ISO))
    "SCHED_POLICIES": {"SCHED_ISO": 4},
    # include/uapi/linux/futex.h of Linux 6.7 (FUTEX2_SIZE_U32), newer than the headers
    "FUTEX_WAITV_FLAGS": {"FUTEX_32": 0x2},
}
# Names strace 6.1 prints that differ from the uapi header's: glibc's sys/ptrace.h spells
# the user-area requests PTRACE_PEEKUSER/PTRACE_POKEUSER (linux/ptrace.h: ...USR); glibc's
# bits/socket.h names 0x10 MSG_PROXY, the kernel (include/linux/socket.h) and strace
# MSG_PROBE.
RENAMED: dict[str, dict[str, str]] = {
    "PTRACE_REQUESTS": {"PTRACE_PEEKUSR": "PTRACE_PEEKUSER", "PTRACE_POKEUSR": "PTRACE_POKEUSER"},
    "MSG_FLAGS": {"MSG_PROXY": "MSG_PROBE"},
    # strace 6.1's xlat/nt_descriptor_types.in takes glibc <elf.h>'s names where
    # linux/elf.h has others for the same values
    "NT_TYPES": {"NT_PRFPREG": "NT_FPREGSET", "NT_TASKSTRUCT": "NT_PRXREG"},
}
ENUM_TAGS: dict[str, str] = {
    "KCMP_TYPES": "kcmp_type", "MEMBARRIER_CMDS": "membarrier_cmd", "BPF_CMDS": "bpf_cmd",
    "MEMBARRIER_FLAGS": "membarrier_cmd_flag",
    "BPF_MAP_TYPES": "bpf_map_type", "BPF_PROG_TYPES": "bpf_prog_type",
    "BPF_ATTACH_TYPES": "bpf_attach_type",
    "LANDLOCK_RULES": "landlock_rule_type", "PERF_TYPES": "perf_type_id",
    "PERF_HW_IDS": "perf_hw_id", "PERF_SW_IDS": "perf_sw_ids",
    "PERF_HW_CACHE_IDS": "perf_hw_cache_id", "PERF_HW_CACHE_OPS": "perf_hw_cache_op_id",
    "PERF_HW_CACHE_RESULTS": "perf_hw_cache_op_result_id",
    "PERF_SAMPLE_FORMAT": "perf_event_sample_format", "PERF_READ_FORMAT": "perf_event_read_format",
    "PERF_BRANCH_SAMPLE": "perf_branch_sample_type",
    "PTP_PIN_FUNCS": "ptp_pin_function", "GPIO_V2_LINE_FLAGS": "gpio_v2_line_flag",
    "GPIO_V2_ATTR_IDS": "gpio_v2_line_attr_id",
}
# Values tables keep the names whose values are in this range only (a header's other
# constants share the prefix)
RANGES: dict[str, tuple[int, int]] = {"AUDIT_TYPES": (1000, 2999), "KD_KEYS": (0x100, 0xEFF)}
# Tables of an enum without a tag: the enum whose first enumerator is this name (the
# netlink attribute enums of linux/if_addr.h, if_link.h, inet_diag.h...)
ANON_ENUMS: dict[str, str] = {
    "IFA_ATTRS": "IFA_UNSPEC", "IFLA_ATTRS": "IFLA_UNSPEC", "RTN_TYPES": "RTN_UNSPEC",
    "INET_DIAG_ATTRS": "INET_DIAG_NONE", "INET_DIAG_REQ_ATTRS": "INET_DIAG_REQ_NONE",
    "UNIX_DIAG_ATTRS": "UNIX_DIAG_NAME", "SK_MEMINFO": "SK_MEMINFO_RMEM_ALLOC",
    "FR_ACTIONS": "FR_ACT_UNSPEC", "FRA_ATTRS": "FRA_UNSPEC", "NDA_ATTRS": "NDA_UNSPEC",
    "NETLINK_DIAG_ATTRS": "NETLINK_DIAG_MEMINFO", "IFLA_INFO_ATTRS": "IFLA_INFO_UNSPEC",
    "TCA_ATTRS": "TCA_UNSPEC", "TCA_STATS_ATTRS": "TCA_STATS_UNSPEC",
    "NETCONFA_ATTRS": "NETCONFA_UNSPEC", "IFAL_ATTRS": "IFAL_ADDRESS",
    "NETNSA_ATTRS": "NETNSA_NONE", "NDTA_ATTRS": "NDTA_UNSPEC", "NDTPA_ATTRS": "NDTPA_UNSPEC",
    "NHA_ATTRS": "NHA_UNSPEC", "HW_BREAKPOINT_TYPES": "HW_BREAKPOINT_EMPTY",
}
ENUM_TAGS.update({"RT_SCOPES": "rt_scope_t", "RT_TABLES": "rt_class_t",
                  "RTA_ATTRS": "rtattr_type_t", "NLMSGERR_ATTRS": "nlmsgerr_attrs"})
_ENUMERATOR = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:=[^,}]*)?(?:,|$)")


def enum_names(cc: str, includes: tuple[str, ...], tag: str, *, first: str = "") -> list[str]:
    """The enumerators of ``enum <tag> { ... }`` in the preprocessed headers; with
    ``first``, of the enum without a tag whose first enumerator that is."""
    src = "#define _GNU_SOURCE 1\n" + "".join(f"#include <{h}>\n" for h in includes)
    out = subprocess.run([cc, "-E", "-P", "-x", "c", "-"], input=src, text=True,
                         capture_output=True, check=True).stdout
    if first:
        bodies = [m.group(1) for m in re.finditer(r"\benum\s*\{([^}]*)\}", out)]
    else:
        m = re.search(rf"\benum\s+{re.escape(tag)}\s*\{{([^}}]*)\}}", out)
        bodies = [] if m is None else [m.group(1)]
    for body in bodies:
        names = [e.group(1) for part in body.split(",")
                 if (e := _ENUMERATOR.match(part.strip() + ","))]
        if not first or names[:1] == [first]:
            return names
    return []

# Tables whose header exists on some arches only (arch_prctl(2) is x86's): empty elsewhere.
ONLY_ON: dict[str, frozenset[str]] = {"ARCH_PRCTL_OPTIONS": frozenset({"x86_64"}),
                                     "X86_XFEATURES": frozenset({"x86_64"}),
                                     "X86_XFEATURE_BITS": frozenset({"x86_64"})}

# tracekit arch -> (compiler when the machine is that arch, cross compiler otherwise).
COMPILERS: dict[str, tuple[str, str]] = {
    "x86_64": ("gcc", "x86_64-linux-gnu-gcc"),
    "arm64": ("gcc", "aarch64-linux-gnu-gcc"),
}
_MACHINE_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}

# One name per value in "values" tables when headers define aliases: the name strace prints.
PREFERRED = {"AF_UNIX", "AF_NETLINK", "SIGABRT", "SIGIO", "IPPROTO_IP", "SEEK_DATA",
             "FIONBIO", "FIONREAD", "TCGETS", "TIOCINQ", "FS_IOC_GETFLAGS", "FS_IOC_SETFLAGS",
             "FS_IOC_GETVERSION", "FS_IOC_SETVERSION", "MADV_NORMAL", "CLOCK_REALTIME",
             "EXT2_SUPER_MAGIC", "BPF_PROG_TEST_RUN", "SO_RCVTIMEO_OLD", "XTABS",
             "SO_SNDTIMEO_OLD", "SO_TIMESTAMP_OLD",
             "SO_TIMESTAMPNS_OLD", "SO_TIMESTAMPING_OLD"}
NOT_PREFERRED = {"TIOCINQ", "FS_IOC32_GETFLAGS", "FS_IOC32_SETFLAGS", "FS_IOC32_GETVERSION",
                 "FS_IOC32_SETVERSION", "PR_SET_PTRACER_ANY"}

_DEFINE = re.compile(r"^#define ([A-Za-z_][A-Za-z0-9_]*) (.*)$")


def compiler(arch: str) -> str:
    """The C compiler that targets ``arch``: plain gcc on that arch, else the cross one."""
    native, cross = COMPILERS[arch]
    machine = os.uname().machine
    return native if _MACHINE_ARCH.get(machine, machine) == arch else cross


def macro_bodies(cc: str, includes: tuple[str, ...]) -> dict[str, str]:
    """Object-like macros defined after including ``includes`` (``<cc> -E -dM``): name ->
    its body."""
    src = "#define _GNU_SOURCE 1\n" + "".join(f"#include <{h}>\n" for h in includes)
    out = subprocess.run([cc, "-E", "-dM", "-x", "c", "-"], input=src, text=True,
                         capture_output=True, check=True).stdout
    return {m.group(1): m.group(2) for line in out.splitlines() if (m := _DEFINE.match(line))}


def macro_names(cc: str, includes: tuple[str, ...]) -> list[str]:
    """Object-like macro names defined after including ``includes``."""
    return list(macro_bodies(cc, includes))


def driver_ioctls(cc: str, includes: tuple[str, ...], values: dict[str, int]
                  ) -> dict[str, int]:
    """Of ``values``, the ioctl requests (DRIVER_IOCTLS): made with _IO*(), or numeric in
    their driver's range."""
    bodies = macro_bodies(cc, includes)
    out = {}
    for n, v in values.items():
        if _IOC_BODY.match(bodies.get(n, "")) and v > 0:
            out[n] = v & 0xFFFFFFFF
        elif any(n.startswith(p) and lo <= v <= hi for p, lo, hi in DRIVER_IOCTL_RANGES):
            out[n] = v
    return out


# In gcc -S output: ``v_<i>:`` then one data directive holding the 8-byte value.
_LABEL = re.compile(r"^v_(\d+):$")
_DATA = re.compile(r"^\s*\.(?:quad|xword|8byte|dword)\s+(-?(?:0x[0-9a-fA-F]+|\d+))\s*$")
_ZERO = re.compile(r"^\s*\.zero\s+8\s*$")


def read_values(asm: str, names: list[str]) -> dict[str, int]:
    """``name -> value`` from the assembly of the ``v_<i>`` constants."""
    values: dict[str, int] = {}
    label: int | None = None
    for line in asm.splitlines():
        if (m := _LABEL.match(line)):
            label = int(m.group(1))
        elif label is not None and ((d := _DATA.match(line)) or _ZERO.match(line)):
            v = int(d.group(1), 0) if d else 0
            values[names[label]] = v - (1 << 64) if v >= 1 << 63 else v
            label = None
    if len(values) != len(names):
        missing = sorted(set(names) - set(values))
        raise RuntimeError(f"no value in the assembly for {missing[:10]}")
    return values


def evaluate(cc: str, includes: tuple[str, ...], names: list[str], tmp: Path
             ) -> dict[str, int]:
    """``name -> value``: compile constants of each to assembly and read them back."""
    names = list(names)
    while names:
        lines = ["#define _GNU_SOURCE 1", "#include <stdint.h>",
                 *(f"#include <{h}>" for h in includes)]
        first = len(lines) + 1
        lines += [f"const long long v_{i} = (long long)(intptr_t)({n});"
                  for i, n in enumerate(names)]
        c, asm = tmp / "t.c", tmp / "t.s"
        c.write_text("\n".join(lines) + "\n")
        r = subprocess.run([cc, "-w", "-S", "-O0", "-o", str(asm), str(c)],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return read_values(asm.read_text(), names)
        bad = {int(m.group(1)) - first
               for m in re.finditer(rf"{re.escape(str(c))}:(\d+):\d+: error", r.stderr)}
        bad = {i for i in bad if 0 <= i < len(names)}
        if not bad:
            raise RuntimeError(f"{cc} failed on {includes}:\n{r.stderr[:2000]}")
        names = [n for i, n in enumerate(names) if i not in bad]
    return {}


def build(arch: str, cc: str, tmp: Path) -> dict[str, object]:
    """Every table of ``TABLES`` for ``arch``, evaluated by the compiler ``cc``."""
    tables: dict[str, object] = {}
    cache: dict[tuple[str, ...], list[str]] = {}
    for tname, (kind, includes, pattern, excluded, order) in TABLES.items():
        if arch not in ONLY_ON.get(tname, frozenset({arch})):
            tables[tname] = {} if kind == "values" else ()
            continue
        if includes not in cache:
            cache[includes] = macro_names(cc, includes)
        rx = re.compile(rf"(?:{pattern})")
        # a tagged enum's table holds its enumerators only (linux/bpf.h also defines
        # BPF_K, BPF_LDX... as macros)
        candidates = (enum_names(cc, includes, ENUM_TAGS[tname]) if tname in ENUM_TAGS
                      else enum_names(cc, includes, "", first=ANON_ENUMS[tname])
                      if tname in ANON_ENUMS
                      else [*cache[includes], *ENUM_CONSTANTS.get(tname, ())])
        names = sorted({n for n in candidates if rx.fullmatch(n) and n not in excluded})
        if tname == "PRCTL_OPTIONS":         # sub-arguments (PR_SET_MM_BRK) are not options
            names = [n for n in names if n == "PR_MCE_KILL_GET"
                     or not any(n.startswith(o + "_") for o in names)]
        if tname == "DRIVER_IOCTLS":         # requests only: no strings, no other constants
            bodies = macro_bodies(cc, includes)
            names = [n for n in names if not _ALIAS_BODY.fullmatch(bodies[n].strip()) and (
                _IOC_BODY.match(bodies[n])
                or any(n.startswith(p) for p, _, _ in DRIVER_IOCTL_RANGES))]
        values = evaluate(cc, includes, names, tmp)
        if tname in RANGES:
            low, high = RANGES[tname]
            values = {n: v for n, v in values.items() if low <= v <= high}
        if tname == "DRIVER_IOCTLS":
            # (linux/input.h brings asm/ioctls.h's terminal requests: IOCTLS has them)
            generic = set(tables["IOCTLS"].values())  # type: ignore[attr-defined]
            values = {n: v for n, v in driver_ioctls(cc, includes, values).items()
                      if n not in generic}
            both: dict[int, list[str]] = {}
            for n, v in values.items():
                both.setdefault(v, []).append(n)
            tables[tname] = {v: " or ".join(sorted(ns)) for v, ns in sorted(both.items())}
            continue
        for n, v in INTERNAL_BITS.get(tname, {}).items():
            values.setdefault(n, v)
        if kind == "values":
            by_value: dict[int, str] = {}
            for n, v in sorted(values.items()):
                old = by_value.get(v)
                if old is None or _better(n, old):
                    by_value[v] = n
            renamed = RENAMED.get(tname, {})
            tables[tname] = {v: renamed.get(n, n) for v, n in sorted(by_value.items())}
        else:
            seen: dict[int, str] = {}
            for n, v in sorted(values.items()):
                if -(1 << 31) <= v < 0:     # a bit of an int: (1<<31) is MS_NOUSER's
                    v &= 0xFFFFFFFF
                if v and (v not in seen or _better(n, seen[v])):
                    seen[v] = n
            pairs = [(v, n) for v, n in seen.items()]
            rank = {n: i for i, n in enumerate(order)}
            pairs.sort(key=lambda p: (rank.get(p[1], len(rank)), p[0] & -p[0], p[0]))
            # A multi-bit name must come before its parts when both are unranked.
            renamed = RENAMED.get(tname, {})
            tables[tname] = tuple((v, renamed.get(n, n)) for v, n in pairs)
    tables.update(INTERNAL_TABLES)
    return tables


def _better(new: str, old: str) -> bool:
    if new in NOT_PREFERRED:
        return False
    if old in NOT_PREFERRED or new in PREFERRED:
        return True
    if old in PREFERRED:
        return False
    return (len(new), new) < (len(old), old)


def render(tables: dict[str, object], arch: str, command: str) -> str:
    out = [
        f'"""Flag, constant and ioctl names of {arch}, from its uapi and libc headers.',
        "",
        "GENERATED by scripts/gen_beauty_tables.py; do not edit. Command:",
        "",
        f"    {command}",
        "",
        "``*_FLAGS``/bits tables: ``((value, name), ...)`` in print order (strace's);",
        "values tables: ``{value: name}``. Chosen by arch in tracekit/kernel/flag_tables;",
        "decoders: tracekit/decode/flags.py.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
    ]
    for name, table in tables.items():
        if isinstance(table, dict):
            out.append(f"{name}: dict[int, str] = {{")
            out += [f"    {v}: {n!r}," for v, n in table.items()]
            out.append("}")
        else:
            out.append(f"{name}: tuple[tuple[int, str], ...] = (")
            out += [f"    ({v:#x}, {n!r})," for v, n in table]
            out.append(")")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--arch", action="append", choices=sorted(COMPILERS),
                    help="arch to generate (repeatable; default: all)")
    ap.add_argument("-o", "--output-dir", default="tracekit/kernel/flag_tables",
                    help="directory that receives <arch>.py")
    opt = ap.parse_args()
    command = ("python3 scripts/gen_beauty_tables.py " + shlex.join(sys.argv[1:])).strip()
    for arch in opt.arch or sorted(COMPILERS):
        cc = compiler(arch)
        if shutil.which(cc) is None:
            sys.exit(f"no compiler {cc} for {arch} (Debian: apt-get install gcc"
                     f"{'' if cc == 'gcc' else '-' + cc.removesuffix('-gcc')})")
        version = subprocess.run([cc, "--version"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()[0]
        with tempfile.TemporaryDirectory() as tmp:
            tables = build(arch, cc, Path(tmp))
        out = Path(opt.output_dir) / f"{arch}.py"
        out.write_text(render(tables, arch, f"{command}   # {cc}: {version}"))
        print(f"wrote {out}: {len(tables)} tables", file=sys.stderr)


if __name__ == "__main__":
    main()
