"""The ending signals ``tracekit strace`` was started ignoring, noted while it starts.

The entry point (tracekit._entry) installs :func:`note` for each of SIGINT, SIGQUIT,
SIGTERM and SIGHUP that ``tracekit strace`` inherited ignored, before anything heavy is
imported: the kernel throws away a signal that is ignored and not blocked, and the
trace's signal thread starts only after the imports (hundreds of milliseconds on a
loaded machine), so a script's ``tracekit strace -p PID &`` then ``kill -INT`` would
find nothing to end it. Once the options are read, ``-p`` alone takes what came
(:data:`pending`), as strace takes the ending signals whatever it inherited; with a
command, :func:`restore_ignored` ignores them again, for the command to inherit.
Standard library only: it sits below every layer (tests/test_layers.py).
"""

from __future__ import annotations

import signal

#: the ending signals tracekit strace was started ignoring
IGNORED: list[int] = []
#: and those of them that came while it started (in order)
pending: list[int] = []


def note(signo: int, frame: object) -> None:
    """The handler of an ignored ending signal while tracekit strace starts."""
    pending.append(signo)


def restore_ignored() -> None:
    """Ignore again the signals tracekit strace was started ignoring (it runs a command,
    which inherits them); one noted meanwhile is dropped, as ignored."""
    for sig in IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    IGNORED.clear()
    pending.clear()
