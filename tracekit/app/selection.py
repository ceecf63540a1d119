"""The selection options of ``tracekit run`` (strace's ``-e`` language, ``-z``, ``-Z``,
``-P``; ``-G``, a target option, is read here too) and what the ``[filter]``/``[target]``
selection keys mean for a trace.

Three steps, each one function::

    add_selection_options(parser)      the options, in --help
    selection_keys(args)               parsed options -> {"filter": {...}, "target": {...}}:
                                       the pipeline file's keys, checked, errors naming
                                       the option
    session_selection(filter, target)  the keys -> SessionOptions fields (kernel knobs)
    selection_stages(filter)           the keys -> the user-space stages they need (-P)

The expression language (strace(1) ``-e expr``)::

    expr      := [qualifier "="] ["!"] item ("," item)*
    qualifier := trace | t | status | signal | signals | s | errno   (default: trace)
    trace     item: a syscall name, number, glob, %class, /regex, ?name, all, none;
              "!name" inside a list removes it (tracekit), a leading "!" negates the list
    status    successful failed unfinished unavailable detached all none
    signal    SIGUSR1 USR1 10 all none
    errno     ENOENT 2 all none (only calls that failed with one of these)

A later ``-e`` of the same qualifier replaces an earlier one, as in strace; ``-z``
(status=successful) and ``-Z`` (status=failed) are status expressions, the last one wins.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from tracekit._errors import ConfigError

__all__ = ["STATUSES", "add_cgroup_option", "add_selection_options", "check_cgroup",
           "check_format_keys", "parse_expr",
           "recorded_statuses", "selection_keys", "selection_stages", "session_selection"]

#: strace's status= values, in strace's order
STATUSES = ("successful", "failed", "unfinished", "unavailable", "detached")
#: the ones tracekit can show (the return value is always read at sys_exit; a call a thread
#: is inside when tracing ends is shown "detached", as strace shows it at its detach)
_RECORDED = ("successful", "failed", "unfinished", "detached")

_QUALIFIERS = {"trace": "trace", "t": "trace", "status": "status", "signal": "signal",
               "signals": "signal", "s": "signal", "errno": "errno"}
# strace qualifiers tracekit does not have (told apart from a typo)
_STRACE_ONLY = ("abbrev", "a", "verbose", "v", "raw", "x", "read", "reads", "r", "write",
                "writes", "w", "fault", "inject", "kvm", "quiet", "silent", "silence", "q",
                "decode-fds", "decode-pids", "trace-fds", "trace-fd", "fd", "fds")
_KEY = {"trace": "syscalls", "status": "status", "signal": "signal", "errno": "errno"}


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """Add ``-e/--expr``, ``-z``, ``-Z`` and ``-P/--path`` to ``parser``.

    ``-e``, ``-z`` and ``-Z`` land in ``args.selection`` in command-line order, as
    ``(option, text)`` pairs; ``-P`` in ``args.path``. (``-G/--cgroup`` is a target:
    tracekit.app.cli.)
    """
    g = parser.add_argument_group("selection (strace -e, -z, -Z, -P)")
    g.add_argument("-e", "--expr", dest="selection", action=_Ordered, metavar="EXPR",
                   help="strace's selection expression: [trace=]SET, status=SET, "
                        "signal=SET, errno=SET (repeatable; sets [filter] syscalls, "
                        "status, signal, errno)")
    g.add_argument("-z", dest="selection", action=_Ordered, nargs=0, const="successful",
                   help="only calls that succeeded (status=successful; [filter] status)")
    g.add_argument("-Z", dest="selection", action=_Ordered, nargs=0, const="failed",
                   help="only calls that failed (status=failed; [filter] status)")
    g.add_argument("-P", "--path", action="append", default=[], metavar="PATH",
                   help="only calls that name PATH or use an fd open on it (repeatable; "
                        "[filter] path)")


def add_cgroup_option(group: Any) -> None:
    """Add ``-G/--cgroup`` (``args.cgroup``, read by :func:`selection_keys`) to ``group``:
    the target group of ``--help``, as ``[target] cgroup`` is a target."""
    group.add_argument("-G", "--cgroup", metavar="PATH",
                       help="trace every task in this cgroup v2 directory and its "
                            "descendants ([target] cgroup)")


class _Ordered(argparse.Action):
    """Appends ``(option, value)`` to ``dest``: -e, -z and -Z keep their order."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        items = list(getattr(namespace, self.dest, None) or [])
        value = self.const if self.nargs == 0 else values
        items.append((option_string or self.dest, value))
        setattr(namespace, self.dest, items)


def parse_expr(text: str, *, option: str = "-e") -> tuple[str, list[str]]:
    """One ``-e`` expression -> (``[filter]`` key, its list in the pipeline file's form).

    Examples: ``"open,close"`` -> ``("syscalls", ["open", "close"])``;
    ``"trace=!%net,read"`` -> ``("syscalls", ["!%net", "!read"])``;
    ``"status=!failed"`` -> ``("status", ["successful", "unfinished", "unavailable",
    "detached"])``.

    Raises:
      ConfigError: ``<option> <text>: ...``: an unknown qualifier, an empty list, a ``!``
        inside a negated list, an unknown status.
    """
    where = f"{option} {text}"
    qual, eq, rest = text.partition("=")
    if not eq:
        qual, rest = "trace", text
    qual = qual.strip()
    if qual not in _QUALIFIERS:
        if qual in _STRACE_ONLY:
            raise ConfigError(f"{where}: tracekit has no {qual}= qualifier (it has trace=, "
                              "status=, signal=, errno=)")
        raise ConfigError(f"{where}: unknown qualifier {qual!r} (known: trace, status, "
                          "signal, errno)")
    kind = _QUALIFIERS[qual]
    rest = rest.strip()
    negate = rest.startswith("!")
    if negate:
        rest = rest[1:].strip()
    items = [p.strip() for p in rest.split(",")] if rest else []
    if not items or any(not p for p in items):
        raise ConfigError(f"{where}: empty {kind} list; give names separated by commas "
                          "(or none)")
    if kind == "status":
        return "status", _status_list(items, negate, where)
    if negate:
        if any(p.startswith("!") for p in items):
            raise ConfigError(f"{where}: the leading '!' negates the whole list; drop the "
                              "'!' inside it")
        items = [f"!{p}" for p in items]
    return _KEY[kind], items


def _status_list(items: list[str], negate: bool, where: str) -> list[str]:
    chosen: set[str] = set()
    for p in items:
        if p == "all":
            chosen |= set(STATUSES)
        elif p == "none":
            pass
        elif p in STATUSES:
            chosen.add(p)
        else:
            import difflib
            close = difflib.get_close_matches(p, STATUSES, n=1)
            raise ConfigError(f"{where}: unknown status {p!r}"
                              + (f" (did you mean {close[0]!r}?)" if close else "")
                              + f"; known: {', '.join(STATUSES)}")
    if negate:
        chosen = set(STATUSES) - chosen
    # none (or !all): no call, only signal and exit lines, as strace prints then
    return [s for s in STATUSES if s in chosen] or ["none"]


def selection_keys(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The ``[filter]`` and ``[target]`` keys the selection options set, checked.

    Returns:
      ``{"filter": {"syscalls": [...], "status": [...], "signal": [...], "errno": [...],
      "path": [...]}, "target": {"cgroup": "..."}}`` with only the keys given (an empty
      table is left out). A later ``-e`` of a qualifier replaces an earlier one.

    Raises:
      ConfigError: an expression that does not parse, or names an unknown syscall,
        signal or errno, or selects nothing; the message starts with the option.
    """
    from tracekit.kernel.selection import resolve_errnos, resolve_signals, resolve_syscalls
    from tracekit.kernel.syscalls import SyscallTable

    filt: dict[str, Any] = {}
    for option, text in getattr(args, "selection", None) or []:
        if option == "-z" or option == "-Z":
            key, items, where = "status", [text], option
        else:
            key, items = parse_expr(text, option=option)
            where = f"{option} {text}"
        if key == "syscalls":
            resolve_syscalls(list(items), SyscallTable(), where=where)
        elif key == "signal":
            resolve_signals(list(items), where=where)
        elif key == "errno":
            resolve_errnos(list(items), where=where)
        else:
            recorded_statuses(items, where)
        filt[key] = items
    paths = list(getattr(args, "path", None) or [])
    for p in paths:
        if not p or "\0" in p:
            raise ConfigError(f"-P {p!r}: give a non-empty path")
    if paths:
        filt["path"] = paths
    keys: dict[str, dict[str, Any]] = {}
    if filt:
        keys["filter"] = filt
    cgroup = getattr(args, "cgroup", None)
    if cgroup is not None:
        if not cgroup:
            raise ConfigError("-G: give a cgroup v2 directory, e.g. /sys/fs/cgroup/my.slice")
        check_cgroup(cgroup, where=f"-G {cgroup}")
        keys["target"] = {"cgroup": cgroup}
    return keys


def check_cgroup(path: str, *, where: str) -> None:
    """Refuse a path that is not a cgroup v2 directory (the trace would fail at start).

    Raises:
      ConfigError: ``<where>: cgroup ...`` with the errno name, or the cgroup2 mounts.
    """
    from tracekit._errors import TargetError
    from tracekit.kernel.cgroup import resolve_cgroup

    try:
        resolve_cgroup(path)
    except TargetError as e:
        raise ConfigError(f"{where}: {e}") from e


def recorded_statuses(status: Iterable[str], where: str) -> set[str]:
    """The statuses of ``status`` a record can have (``["none"]``: none, no call is
    recorded); an error when a list of statuses has none a record can have."""
    if list(status) == ["none"]:
        return set()
    got = {s for s in status if s in _RECORDED}
    if not got:
        said = ", ".join(status) or "none"
        raise ConfigError(f"{where}: status {said} selects no call tracekit can record "
                          "(it reads every return value at sys_exit, so no call is "
                          "unavailable)")
    return got


def session_selection(filt: Any, target: Any, *, where: str = "") -> dict[str, Any]:
    """``SessionOptions`` fields for the ``[filter]`` status, errno and signal keys and the
    ``[target]`` cgroup: ``{"status": frozenset, "errnos": set | None, "signals": set |
    None, "cgroup": str | None}``.

    errno selects among failed calls: with ``errno`` and no ``status``, only calls that
    failed with one of the errnos are recorded; with both, successful or unfinished calls
    the status names are recorded too.

    Raises:
      ConfigError: a selection that selects nothing (``where`` first).
    """
    from tracekit.kernel.selection import resolve_errnos, resolve_signals

    pre = where or "[filter]"
    status = set(_RECORDED)
    if filt.status:
        status = recorded_statuses(filt.status, f"{pre} status")
    errnos = resolve_errnos(list(filt.errno), where=f"{pre} errno") if filt.errno else None
    if errnos is not None and not filt.status:
        status = {"failed"}
    if filt.failed_only:
        status &= {"failed"}
        if not status:
            raise ConfigError(f"{pre}: failed_only = true and status = {filt.status} "
                              "select no call together")
    signals = (resolve_signals(list(filt.signal), where=f"{pre} signal")
               if filt.signal else None)
    return {"status": frozenset(status), "errnos": errnos, "signals": signals,
            "cgroup": getattr(target, "cgroup", None)}


def selection_stages(filt: Any, *, facts: Any = None) -> list[Any]:
    """The stages the ``[filter]`` keys need in user space, to run first: a
    :class:`~tracekit.pipeline.pathfilter.PathFilter` for ``path`` (reading what the
    calls did not show through ``facts``, a :class:`~tracekit.kernel.facts.Facts`;
    None: the running system)."""
    if not filt.path:
        return []
    from tracekit.pipeline.pathfilter import PathFilter

    return [PathFilter(filt.path, facts=facts.reader("path") if facts is not None else None)]


def check_format_keys(cfg: Any, *, where: Callable[[str], str] | None = None,
                      where_output: Callable[[int, str], str] | None = None) -> None:
    """Refuse a selection or output key the chosen outputs cannot honour.

    Args:
      where: ``[filter] key -> "file:line:col"``, the place of that key in the file.
      where_output: ``(output index, key) -> "file:line:col"``, the place of an output's
        key.

    Raises:
      ConfigError: (located by ``where``/``where_output`` when given) ``[filter] signal``
        (``-e signal=``) when every output is a summary, which prints no signal lines;
        ``[filter] path`` (``-P``) with a summary counted in the kernel (``mode =
        "kernel"``), which sees no paths; an output's ``stacks`` with a format that prints
        none, or with a summary counted in the kernel.
    """
    from tracekit.app.config import output_name

    outs, f = cfg.outputs, cfg.filter

    def at(key: str) -> str:
        return f"{where(key)}: " if where is not None else ""

    def at_output(i: int, key: str) -> str:
        return f"{where_output(i, key)}: " if where_output is not None else ""

    if f.signal and all(o.format == "summary" for o in outs):
        raise ConfigError(f'{at("signal")}[filter] signal (-e signal=) selects signal lines, '
                          'which format = "summary" does not print; drop it or choose '
                          'another format')
    for i, o in enumerate(outs):
        if getattr(o, "stacks", None) is None:
            continue
        from tracekit.formatters._spec import format_spec

        name = output_name(cfg, i)
        if "stacks" not in format_spec(o.format).options.__struct_fields__:
            raise ConfigError(f'{at_output(i, "stacks")}{name} stacks: format = '
                              f'"{o.format}" prints no stacks; drop it or choose perf, '
                              'strace, jsonl or summary')
        if o.format == "summary" and getattr(o, "mode", None) == "kernel":
            raise ConfigError(f'{at_output(i, "stacks")}{name} stacks needs the calls in '
                              'user space: with format = "summary" use mode = "stream" or '
                              '"auto", not "kernel"')
    if f.path and any(o.format == "summary" and getattr(o, "mode", None) == "kernel"
                      for o in outs):
        raise ConfigError(f'{at("path")}[filter] path (-P) needs the calls in user space: '
                          'with format = "summary" use mode = "stream" or "auto", not '
                          '"kernel"')
