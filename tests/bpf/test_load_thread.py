"""BpfObject.load loads its largest prog on a thread of its own while the caller's thread
loads the others and runs ``meanwhile``: a failure on either thread raises the error a
load one by one raises (the first failing prog in the object's order), and no fd is left
open, the other thread's included.

The tracer object is loaded from its image with chosen progs broken: their last
instruction made a plain move, which the verifier refuses (EINVAL, "last insn is not an
exit or jmp").
"""

from __future__ import annotations

import errno
import os
import struct
import threading
from collections.abc import Callable

import msgspec
import pytest

from tracekit._errors import ProgLoadError
from tracekit.bpf.image import ObjectImage
from tracekit.bpf.object import BpfObject
from tracekit.session.session import object_path

pytestmark = pytest.mark.kernel
MOV_R0_0 = struct.pack("<BBhi", 0xB7, 0, 0, 0)     # BPF_ALU64 | BPF_MOV | BPF_K: r0 = 0


@pytest.fixture(scope="module")
def image() -> ObjectImage:
    return BpfObject.open(object_path()).build_image()


def _names(image: ObjectImage) -> tuple[str, str]:
    """(the prog load() puts on its thread: the largest, another: the first after it in
    the object's order, if any, which this thread reaches before the other fails)."""
    order = [p.name for p in image.progs]
    big = max(image.progs, key=lambda p: len(p.insns)).name
    after = order[order.index(big) + 1:]
    return big, after[0] if after else next(n for n in order if n != big)


def _broken(image: ObjectImage, names: set[str]) -> BpfObject:
    progs = tuple(msgspec.structs.replace(p, insns=p.insns[:-8] + MOV_R0_0)
                  if p.name in names else p for p in image.progs)
    obj = BpfObject.from_image(msgspec.structs.replace(image, progs=progs), "syscalls")
    obj.globals["targ_self_tgid"] = os.getpid()
    return obj


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _load_fails(obj: BpfObject, meanwhile: Callable[[], None] | None = None
                ) -> BaseException:
    before = _fds()
    with pytest.raises(BaseException) as ei:
        obj.load(meanwhile=meanwhile)
    for thread in threading.enumerate():     # a load still running would make an fd now
        if thread.name.startswith("tracekit-load-"):
            thread.join()
    # every prog fd closed, the thread's too (it ended before load() raised)
    assert all(p.fd < 0 for p in obj.progs.values())
    assert all(m.fd < 0 for m in obj.maps.values())
    assert _fds() <= before
    assert not obj.loaded
    return ei.value


@pytest.mark.parametrize("which", ["thread", "caller", "both"])
def test_a_failing_prog_raises_its_error_and_leaves_no_fd(image: ObjectImage,
                                                           which: str) -> None:
    big, other = _names(image)
    broken = {"thread": {big}, "caller": {other}, "both": {big, other}}[which]
    called = []
    err = _load_fails(_broken(image, broken), lambda: called.append(1))
    assert isinstance(err, ProgLoadError)
    order = [p.name for p in image.progs]
    first = min(broken, key=order.index)        # what a load one by one raises
    assert err.prog_name == first
    assert err.errno == errno.EINVAL
    # the same one-line message as a load of that prog alone
    alone = ProgLoadError(errno.EINVAL, prog_name=first)
    assert str(err).splitlines()[0] == str(alone).splitlines()[0]
    assert "last insn" in err.verifier_log
    if which != "thread":
        assert not called           # a known failure: the maps are not filled


def test_meanwhile_runs_while_loading_and_its_error_closes_all(image: ObjectImage) -> None:
    obj = _broken(image, set())
    seen: list[int] = []

    def fill() -> None:
        seen.append(obj.maps["events"].fd)      # the maps exist
        raise OSError(errno.ENOMEM, "no room")

    err = _load_fails(obj, fill)
    assert isinstance(err, OSError) and err.errno == errno.ENOMEM
    assert seen and seen[0] >= 0


def test_a_load_with_meanwhile_loads_every_prog(image: ObjectImage) -> None:
    obj = _broken(image, set())
    seen: list[bool] = []
    try:
        obj.load(meanwhile=lambda: seen.append(True))
        assert seen == [True]
        assert obj.loaded and all(p.fd >= 0 for p in obj.progs.values())
    finally:
        obj.close()
