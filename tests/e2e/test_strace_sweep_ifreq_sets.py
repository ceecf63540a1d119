"""The socket ioctls that set an interface's state (SIOCSIF*, SIOCADDMULTI,
SIOCDELMULTI), the bridge requests and the owner/pgrp ints against strace 6.1 on ONE run.

tests/workloads/sweep_ifreq_sets.c makes them on fd -1 with struct ifreq filled with
patterns (names of 15 and 16 bytes, addresses of known and unknown families, hardware
addresses of types with addresses of 6 bytes and of all 14), at the end of a mapping,
one byte short of it, past it and NULL, and the int requests on a socket of its own.
tracekit traces ``strace -f -o FILE sweep_ifreq_sets``: every line must be equal.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_sweep_ifreq_sets_equal_strace_on_the_same_run(tmp_path: Path) -> None:
    text = "\n".join(same_lines_one_run(build(tmp_path, "sweep_ifreq_sets"), tmp_path))
    for want in (
            'ioctl(-1, SIOCSIFADDR, {ifr_name="01", ifr_addr={sa_family=AF_INET, '
            'sin_port=htons(7085), sin_addr=inet_addr("127.0.0.1")}}) = -1 EBADF',
            'ioctl(-1, SIOCSIFMTU, {ifr_name="0123456789abcde"..., ifr_mtu=',
            'ioctl(-1, SIOCSIFNAME, {ifr_name="01", ifr_newname="lo"}) = -1 EBADF',
            ', ifr_map={mem_start=0x', "sa_family=0x8484 /* ARPHRD_??? */, sa_data=84:84:",
            "ioctl(-1, SIOCBRADDIF, {ifr_ifindex=if_nametoindex(\"lo\")}) = -1 EBADF",
            'ioctl(-1, SIOCBRADDBR, "0123456789abcdef"...) = -1 EBADF',
            "ioctl(-1, SIOCBRADDBR, NULL) = -1 EBADF", "ioctl(3, FIOGETOWN, [",
            "ioctl(3, SIOCATMARK, 0x"):
        assert want in text, want
