"""The ``tracekit`` command's entry point (``[project.scripts]``; ``python -m tracekit``).

Its first act, before the command line's modules (argparse, logging, trio, msgspec ...)
are imported, is to make SIGINT, SIGQUIT, SIGTERM and SIGHUP end the process quietly
with status 128+N: a signal in the first milliseconds of start-up, which would otherwise
land in an import (a ``KeyboardInterrupt`` traceback, or a core file for SIGQUIT), ends
tracekit as one during the trace's own start-up does. A signal ignored when tracekit
started (``nohup``) is left ignored, so the command inherits that; but ``tracekit
strace`` notes one until its options say whether it attaches with ``-p`` alone, which
takes the ending signals whatever it inherited, as strace does (tracekit._early_signals).
The handlers stay
while the subcommand imports what it needs (a ``KeyboardInterrupt`` raised inside a C
extension's module init can crash the interpreter: seen with msgspec); then a trace
blocks all four and takes them on its signal thread (tracekit.app.run), and a replay
gives SIGINT back to ``KeyboardInterrupt`` (tracekit.app.cli.sigint_raises).

Before this module runs, the interpreter starts (``site``, an editable install's import
hook) and imports the package ``tracekit``, which imports nothing heavy
(``tracekit/__init__.py``): a SIGINT in that span, a few milliseconds, is Python's own.
"""

import os
import signal
import sys

import tracekit._inherited_fds as _inherited_fds
from tracekit._early_signals import IGNORED, note

#: what ends tracekit when the terminal or ``kill`` says so
EARLY_SIGNALS = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)


def _quiet_exit(signo: int, frame: object) -> None:
    """Nothing is open yet that needs closing (every kernel object is fd-owned)."""
    os._exit(128 + signo)


def _install() -> None:
    strace = sys.argv[1:2] == ["strace"]
    for sig in EARLY_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _quiet_exit)
        elif strace:
            IGNORED.append(sig)
            signal.signal(sig, note)


_install()
_inherited_fds.note()

from tracekit.app.cli import main as _cli_main  # noqa: E402 - after the handlers above


def main() -> int:
    """Run the command line on ``sys.argv``; the exit status (tracekit.app.cli)."""
    return _cli_main()
