"""The fds the ``tracekit`` command was started with, noted by its entry point before it
opens any of its own.

An output named ``/dev/fd/N`` (a shell's ``>(CMD)`` or ``3>FILE``) is written through
fd N only when N is one of these: a number tracekit itself opened later (a BPF map, a
socket of trio's) is not the user's to write to. Standard library only: it sits below
every layer (tests/test_layers.py).
"""

from __future__ import annotations

import os

#: the fds open when the entry point ran; None when tracekit is used as a library (the
#: program that imported it owns its fds)
INHERITED: frozenset[int] | None = None


def note() -> None:
    """Note the fds open now (from /proc/self/fd; nothing when it cannot be read)."""
    global INHERITED
    try:
        fds = {int(name) for name in os.listdir("/proc/self/fd")}
        # the listing's own fd is the lowest free number again once it is closed
        probe = os.open("/", os.O_RDONLY | os.O_CLOEXEC)
        os.close(probe)
    except OSError:
        return
    fds.discard(probe)
    INHERITED = frozenset(fds)
