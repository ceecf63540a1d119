"""How named constants print: strace's ``-X abbrev`` (the default), ``-X raw`` and
``-X verbose``, one setting for the whole process.

What strace 6.1 prints in each style (its xlat.c, checked with ``strace -X raw`` and
``strace -X verbose`` on this machine): abbrev prints the name (``O_RDONLY|O_CLOEXEC``,
``AT_FDCWD``, ``SIGCHLD``); raw the number the call prints when it has no name for the
value (``0x80000``, ``-100``, ``17``: hex for flag words and most constants, decimal
where the call prints decimal); verbose the number, then the name as a comment
(``0x80000 /* O_RDONLY|O_CLOEXEC */``, ``-100 /* AT_FDCWD */``). A value without a name
prints as in abbrev in verbose (``0x5 /* FUTEX_OP_??? */``) and as the number alone in
raw. The errno of a failed call (``-1 ENOENT (No such file or directory)``), the signal
of a ``--- SIGCHLD {...} ---`` or ``+++ killed by SIGKILL +++`` line and strings are the
same in every style.

The decoding helpers (:class:`tracekit.decode.flags.FlagSet`, ``flags.enum``,
``values.xval``, the signal names) read :data:`STYLE`; :func:`set_style` changes it
and empties the texts those helpers cached, so that the default style pays nothing.
Set it before a decoder decodes its first call (a decoder caches whole calls).
"""

from __future__ import annotations

import weakref
from typing import Protocol

__all__ = ["ABBREV", "RAW", "STYLES", "VERBOSE", "StyleCache", "named", "on_change",
           "set_style"]

ABBREV, RAW, VERBOSE = 0, 1, 2
STYLES = {"abbrev": ABBREV, "raw": RAW, "verbose": VERBOSE}

STYLE = ABBREV
"""The current style (:data:`ABBREV`, :data:`RAW` or :data:`VERBOSE`); read it as
``xstyle.STYLE``, change it with :func:`set_style`."""

class StyleCache(Protocol):
    """What keeps texts made in one style: emptied when the style changes."""

    def reset_style(self) -> None: ...


# weakly held: a decoder may make a FlagSet for one call, which must not live on here
_owners: weakref.WeakSet[StyleCache] = weakref.WeakSet()


def on_change(owner: StyleCache) -> None:
    """Call ``owner.reset_style()`` whenever the style changes, for as long as ``owner``
    lives (it is held weakly)."""
    _owners.add(owner)


def set_style(name: str) -> None:
    """Print named constants as strace's ``-X name`` does (``abbrev``, ``raw`` or
    ``verbose``).

    Raises:
      ValueError: another name.
    """
    global STYLE
    try:
        style = STYLES[name]
    except KeyError:
        raise ValueError(f"unknown constant style {name!r} (abbrev, raw, verbose)") from None
    if style != STYLE:
        STYLE = style
        for owner in list(_owners):
            owner.reset_style()


def named(number: str, name: str) -> str:
    """A constant that has a name, in the current style: ``name`` (abbrev), ``number``
    (raw) or ``number /* name */`` (verbose)."""
    if STYLE == ABBREV:
        return name
    return number if STYLE == RAW else f"{number} /* {name} */"
