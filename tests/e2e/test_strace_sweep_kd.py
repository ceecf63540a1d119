"""The console ioctls (linux/kd.h) against strace 6.1 on ONE run.

tests/workloads/sweep_kd.c makes the console requests on fd -1, /dev/null and, for the
get requests, /dev/tty0 when it opens: value arguments (KIOCSOUND's divisor with its
frequency, KDMKTONE's ``1<<16|1``, the lights, modes and signals by name, unknown ones
and garbage in the high half), the structs and tables they read, at the end of a mapping
and one byte short of it, and what the gets write. tracekit traces ``strace -f -o FILE
sweep_kd``: every line must be equal, but for struct kbentry cut by the end of its
mapping after kb_index, whose first two fields strace prints and tracekit (which reads
the struct whole) prints as the address.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_procs_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

# struct kbentry readable up to kb_index only: strace's fields, tracekit's address
_CUT_KBENTRY: tuple[Gap, ...] = (
    (re.compile(r"^(ioctl\(-?\d+, KD[GS]KBENT, )\{kb_table=[^,]+, kb_index=\d+"
                r"(?:, kb_value=\?\?\?)?\}(\) += -1 E\w+ .*)$"),
     re.compile(r"^(ioctl\(-?\d+, KD[GS]KBENT, )0x[0-9a-f]+(\) += -1 E\w+ .*)$")),)


def test_sweep_kd_equals_strace_on_the_same_run(tmp_path: Path) -> None:
    s_procs = same_procs_one_run(build(tmp_path, "sweep_kd"), tmp_path, (), _CUT_KBENTRY)
    text = "\n".join(line for lines in s_procs.values() for line in lines)
    for want in (
            "ioctl(-1, KIOCSOUND, 440 /* 2711 Hz */) = -1 EBADF",
            "ioctl(-1, KIOCSOUND, 1193183 /* off */) = -1 EBADF",
            "ioctl(-1, KDMKTONE, 1<<16|65535 /* 18 Hz, 1 ms */) = -1 EBADF",
            "ioctl(-1, KDMKTONE, 65261<<16|64206 /* 18 Hz, 65261 ms */) = -1 EBADF",
            "ioctl(-1, KDSETLED, LED_NUM|LED_CAP|0xc8) = -1 EBADF",
            "ioctl(-1, KDSKBLED, LED_SCR<<4|LED_NUM<<4|LED_CAP<<4) = -1 EBADF",
            "ioctl(-1, KDADDIO, 0x3c0 /* GPFIRST + 12 */) = -1 EBADF",
            "ioctl(-1, KDSETMODE, 0xfeedface /* KD_??? */) = -1 EBADF",
            "ioctl(-1, KDSKBMODE, -17958194 /* K_??? */) = -1 EBADF",
            "ioctl(-1, KDSKBMETA, K_ESCPREFIX) = -1 EBADF",
            "ioctl(-1, KDSIGACCEPT, SIGRT_1) = -1 EBADF",
            "ioctl(-1, KDSIGACCEPT, 18446744073709551615) = -1 EBADF",
            "kb_value=0x1ff /* K_UNDO */}", "kb_value=0xe0b /* K(KT_BRL, 0xb) */}",
            "kb_value=0xb27 /* K(KT_LETTER, '\\'') */}", "kb_value=0xf00d /* K(0xf0, 0xd) */}",
            "{kb_table=1<<KG_ALT|1<<KG_SHIFTR, kb_index=0, kb_value=0 /* K(KT_LATIN, "
            "'\\x00') */}", "ioctl(-1, KDSETKEYCODE, {scancode=0xdecaffed, keycode=0})",
            'ioctl(-1, KDSKBSENT, {kb_func=KVAL(K_F1), kb_string="\\33"}) = -1 EBADF',
            "ioctl(-1, KDGKBSENT, {kb_func=KVAL(K_F91)}) = -1 EBADF",
            "ioctl(-1, KDGKBSENT, {kb_func=KVAL(K_F3)}) = -1 EBADF",
            f'kb_string="\\33{"b" * 30}"}}', f'kb_string="\\33{"c" * 31}"...}}',
            "ioctl(-1, KDKBDREP, {delay=-1234567890, period=33}) = -1 EBADF",
            "ioctl(-1, PIO_UNIMAPCLR, {advised_hashsize=57005, advised_hashstep=1, "
            "advised_hashlevel=2}) = -1 EBADF",
            'ioctl(-1, PIO_CMAP, "\\xff\\xfe\\xfd', "ioctl(-1, GIO_SCRNMAP, NULL) = -1 EBADF",
            "ioctl(3, KDGETLED, 0x", "ioctl(3, KDSKBENT, {kb_table=K_ALTTAB, kb_index=42, "
            "kb_value=0x201 /* K_ENTER */}) = -1 ENOTTY"):
        assert want in text, want
