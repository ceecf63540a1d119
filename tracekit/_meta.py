"""The public module of re-exported objects (trio's ``fixup_module_metadata``).

tracekit defines its objects in private modules (``tracekit._events``) and re-exports
them from a public face (``tracekit``, ``tracekit.pipeline``, ``tracekit.formatters``,
``tracekit.lowlevel``). Setting ``__module__`` to the public face makes reprs, tracebacks,
``help()`` and pickles name what a user can import: ``tracekit.Syscall``, not
``tracekit._events.Syscall``. Pickle and copy look the class up again under that name,
which the public face resolves.

A class whose annotations are strings (``from __future__ import annotations``) has them
evaluated first, in the module that defined it: ``typing.get_type_hints`` and msgspec
(when it builds a decoder for a Struct) look such strings up in
``sys.modules[cls.__module__]``, and the public face does not hold every name an
annotation uses (``Syscall.caps`` names ``Capture``, ``tracekit`` may not have resolved it
yet).

One cost, as in trio: ``inspect.getsource`` of a fixed class looks in the public face's
file and does not find it (the docstring and signature are unaffected).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

#: the modules users import names from; an object already homed in one is left alone,
#: so an object exported by two faces keeps the first (the most general) one
PUBLIC_MODULES = frozenset(
    {"tracekit", "tracekit.pipeline", "tracekit.formatters", "tracekit.lowlevel",
     "tracekit.notebook"}
)


def _resolve_annotations(cls: type, home: str) -> None:
    """Replace the string annotations of ``cls`` (its own, not inherited) by their values."""
    own = cls.__dict__.get("__annotations__")
    if not own or not any(isinstance(v, str) for v in own.values()):
        return
    module = sys.modules.get(home)
    if module is None:
        return
    resolved: dict[str, Any] = {}
    for field, ann in own.items():
        if isinstance(ann, str):
            try:
                # the evaluation typing.get_type_hints would do, done while
                # cls.__module__ still names the module whose globals the string uses
                ann = eval(ann, vars(module), dict(vars(cls)))
            except NameError:
                pass  # a name imported only for type checkers: no one can evaluate it
        resolved[field] = ann
    cls.__annotations__ = resolved


def set_public_module(obj: object, public: str) -> bool:
    """Make ``obj`` report ``public`` as its module.

    Args:
      obj: a class or function defined in a tracekit module; anything else (a constant,
        a type alias, an object from another library) is left alone.
      public: the public module that re-exports it, e.g. ``"tracekit"``.

    Returns:
      True if ``obj.__module__`` was changed.
    """
    if not isinstance(obj, type) and not callable(obj):
        return False
    home = getattr(obj, "__module__", None)
    if not isinstance(home, str) or not home.startswith("tracekit.") or home in PUBLIC_MODULES:
        return False
    if getattr(obj, "__origin__", None) is not None:  # a generic alias forwards __module__
        return False
    if isinstance(obj, type):
        _resolve_annotations(obj, home)
    obj.__module__ = public
    return True


def fixup_module_metadata(public: str, namespace: Mapping[str, object],
                          names: Iterable[str]) -> None:
    """Set the public module of each of ``names`` found in ``namespace``.

    Args:
      public: the public module, e.g. ``"tracekit.pipeline"``.
      namespace: where the objects are (the public face's or the defining module's globals).
      names: the exported names (``__all__``); names not in ``namespace`` are skipped.
    """
    for name in names:
        if name in namespace:
            set_public_module(namespace[name], public)
