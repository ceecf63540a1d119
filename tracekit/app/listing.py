"""``tracekit list stages|formatters|syscalls``: what this version and this machine offer.

- ``stages``: the ``[[stage]] kind`` values (``tracekit.app.config.StageConfig``), one per
  line with the first line of its stage module's docstring;
- ``formatters``: the ``[output] format`` values (tracekit.formatters.FORMATS), likewise;
- ``syscalls``: every syscall of this machine's table (the ``system-calls`` package), by
  number, with the strace classes (``%file``, ``%desc``, ...) that select it.
"""

from __future__ import annotations

import importlib

from tracekit._errors import ConfigError

__all__ = ["WHAT", "list_text"]

WHAT = ("stages", "formatters", "syscalls")


def _first_line(module: str) -> str:
    doc = importlib.import_module(module).__doc__ or ""
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    return first.replace("``", "")


def _stages() -> list[str]:
    from tracekit.app.registry import available_stage_kinds, stage_modules

    kinds = available_stage_kinds()
    modules = stage_modules()
    width = max(len(k) for k in kinds)
    lines = []
    for kind in kinds:
        if kind == "user":
            about = 'your own stage: use = "package.module:Name", [stage.options] as kwargs'
        else:
            about = _first_line(modules[kind].__name__)
        lines.append(f"{kind:<{width}}  {about}".rstrip())
    return lines


def _formatters() -> list[str]:
    from tracekit.formatters._spec import FORMATS, available_formats

    formats = available_formats()
    width = max(len(f) for f in formats)
    return [f"{f:<{width}}  {_first_line(f'tracekit.formatters.{FORMATS[f]}')}".rstrip()
            for f in formats]


def _syscalls(arch: str | None) -> list[str]:
    from tracekit.kernel.selection import CLASSES
    from tracekit.kernel.syscalls import SyscallTable

    table = SyscallTable(arch)
    classes: dict[str, list[str]] = {}
    for cls in sorted(CLASSES):
        for name in CLASSES[cls]:
            classes.setdefault(name, []).append(f"%{cls}")
    names = table.names()
    width = max(len(n) for n in names)
    rows = sorted((table.nr(n), n) for n in names)
    lines = [f"# {len(rows)} syscalls, {table.arch} (number, name, classes)"]
    for nr, name in rows:
        lines.append(f"{nr:>4}  {name:<{width}}  {' '.join(classes.get(name, []))}".rstrip())
    return lines


def list_text(what: str, *, arch: str | None = None) -> str:
    """The text ``tracekit list WHAT`` prints, newline-terminated.

    Args:
      what: ``"stages"``, ``"formatters"`` or ``"syscalls"``.
      arch: for ``syscalls``: ``"x86_64"``, ``"arm64"`` or ``"i386"``; None = this machine.

    Raises:
      ConfigError: ``what`` is none of those.
      ValueError: an architecture tracekit has no syscall table for.
    """
    if what == "stages":
        lines = _stages()
    elif what == "formatters":
        lines = _formatters()
    elif what == "syscalls":
        lines = _syscalls(arch)
    else:
        raise ConfigError(f"tracekit list: {what!r} is not one of {', '.join(WHAT)}")
    return "\n".join(lines) + "\n"
