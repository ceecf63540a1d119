"""The input event device ioctls (linux/input.h) against strace 6.1 on ONE run.

tests/workloads/sweep_evdev.c makes the evdev requests on fd -1 and /dev/null: the
numbered and sized ones (EVIOCGBIT of every event type, EVIOCGABS/EVIOCSABS of every
axis, EVIOCGNAME(len)...), the fixed ones on NULL, on a struct and one byte short of it,
their value arguments, struct ff_effect of every effect type, the key code pairs and
keymap entries, and type 'E' requests that are none of these. tracekit traces ``strace
-f -o FILE sweep_evdev``, with and without -v: every line must be equal, but for
EVIOCSABS of a size other than struct input_absinfo's (tracekit captures the struct of
the request's own size only), whose struct strace prints and tracekit prints as the
address.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import Gap, build, same_lines_but_gaps

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

_ODD_ABS: tuple[Gap, ...] = (
    (re.compile(r"^(ioctl\(-1, _IOC\(_IOC_WRITE, 0x45, 0xc[02], 0x1[4c]\), )\{value=.*\}"
                r"(\) += -1 EBADF .*)$"),
     re.compile(r"^(ioctl\(-1, _IOC\(_IOC_WRITE, 0x45, 0xc[02], 0x1[4c]\), )0x[0-9a-f]+"
                r"(\) += -1 EBADF .*)$")),
    (re.compile(r"^(ioctl\(-1, EVIOCSABS\(ABS_[XZ]\), )\{value=.*\}(\) += -1 EBADF .*)$"),
     re.compile(r"^(ioctl\(-1, EVIOCSABS\(ABS_[XZ]\), )0x[0-9a-f]+(\) += -1 EBADF .*)$")),
)


@pytest.mark.parametrize("opts", [(), ("-v",)], ids=["abbrev", "verbose"])
def test_sweep_evdev_equals_strace_on_the_same_run(tmp_path: Path, opts: tuple[str, ...]
                                                   ) -> None:
    lines = same_lines_but_gaps(build(tmp_path, "sweep_evdev"), tmp_path, opts, _ODD_ABS)
    text = "\n".join(lines)
    full = bool(opts)
    for want in (
            "ioctl(-1, EVIOCGVERSION, NULL) = -1 EBADF",
            "ioctl(-1, EVIOCGBIT(0, 0), ", "ioctl(-1, EVIOCGBIT(EV_FF_STATUS, 255), ",
            "ioctl(-1, EVIOCGBIT(0x1f /* EV_??? */, 16383), ",
            "ioctl(-1, EVIOCSABS(ABS_MT_TOOL_Y), {value=",
            "ioctl(-1, EVIOCSABS(0x3f /* ABS_??? */), {value=",
            "ioctl(-1, EVIOCSABS(ABS_MT_BLOB_ID), {value=4294967295, ",
            "ioctl(-1, EVIOCGNAME(255), NULL) = -1 EBADF",
            "ioctl(-1, EVIOCGMTSLOTS(8), 0x",
            "ioctl(-1, EVIOCRMFF, -1159983635) = -1 EBADF",
            "ioctl(-1, EVIOCGRAB, 16045690984232390125) = -1 EBADF",
            "ioctl(-1, EVIOCSKEYCODE, [3735928559, KEY_RESERVED]) = -1 EBADF",
            "ioctl(-1, EVIOCSKEYCODE, [3735928555, BTN_0]) = -1 EBADF",
            "ioctl(-1, EVIOCSKEYCODE, [3735928551, 0xffffffff /* KEY_??? */]) = -1 EBADF",
            "ioctl(-1, EVIOCSFF, {type=FF_RUMBLE, id=",
            "ioctl(-1, EVIOCSFF, {type=0xffff /* FF_??? */, ",
            "ioctl(-1, _IOC(_IOC_READ|_IOC_WRITE, 0x45, 0xfe, 0xff), 0xdeadbeefbadc0ded)"):
        assert want in text, want
    assert (", periodic={waveform=" in text) == full
    assert (", scancode=[" in text) == full
