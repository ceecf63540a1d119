"""What each output format is: its ``[output]`` options, the stages it needs, its sink.

Every format module under ``tracekit.formatters`` declares one :class:`FormatSpec` named
``SPEC``; :data:`FORMATS` is the one list of them (the pipeline file's ``[output] format``
values, ``tracekit list formatters``, the CLI's runner and the notebook all read it).
The same spec builds the same output for every front end::

    spec = format_spec("perf")
    options = spec.options()                       # the [output] keys it takes, defaults
    ctx = SinkContext.for_machine()                # this machine's syscall names
    stages = [*my_stages, *spec.stages_before(options, my_stages, ctx)]
    sink = spec.make_sink("-", options, ctx)       # the same text as `tracekit run`
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from tracekit._errors import ConfigError

if TYPE_CHECKING:
    from tracekit._summary import Summary
    from tracekit.formatters._output import Output
    from tracekit.kernel.facts import Facts
    from tracekit.kernel.syscalls import SyscallTable

__all__ = ["FORMATS", "FormatSpec", "SinkContext", "available_formats", "format_spec",
           "formats_taking", "output_option_fields", "stages_for"]

#: ``[output] format`` -> the module under tracekit.formatters that declares its ``SPEC``,
#: in the order they are listed (``tracekit list formatters``, config errors)
FORMATS: dict[str, str] = {
    "perf": "perf",
    "strace": "strace",
    "jsonl": "jsonl",
    "summary": "summary",
    "openmetrics": "openmetrics",
}


def _no_arg_names(name: str) -> list[str] | None:
    return None


def _no_arg_types(name: str) -> list[tuple[str, str]] | None:
    return None


@dataclass(frozen=True, kw_only=True)
class SinkContext:
    """What a formatter may need from the machine or the trace besides its options.

    Attributes:
      syscall_name: native syscall number -> name (``syscall_<nr>`` when unknown).
      compat_syscall_name: i386 number -> name for SC_COMPAT calls, or None.
      arg_names: syscall name -> argument names from tracefs, or None when unknown.
      arg_types: syscall name -> (argument name, C type) pairs from tracefs, or None
        when unknown (the decoder prints arguments by their C types).
      summary_from: for a summary counted in the kernel: called once the input ends for
        the thread-grouped Summary to print (``Session.kernel_summary().read``); None =
        aggregate the events that reach the sink.
      facts: what decoding reads from the system at decode time (fd targets, the wall
        clock, idle times: tracekit.kernel.facts), shared by the stages and sinks of one
        trace; a recording fills it, a replay answers from it. None: this machine's,
        read live (:attr:`live_facts`).
      syscall_table: the native table the decoders use; None: this machine's (a replay
        passes the recording's, which also picks its architecture's flag tables).
      counters_from: the kernel's counters now, by name (``lost``: ring-buffer records
        lost; ``summary_full``: calls the in-kernel summary missed; ``untraced``: tasks
        not traced, the pids map full); None when there is no session.
      replay: the input is a recording (``tracekit replay``), not a live trace: what a
        sink would read from this machine (a process's cgroup) is not the traced one's.
      interval_from: for a summary counted in the kernel with interval reports: called
        once per sink, after the session has started, for a function that returns what
        was counted since its previous call (a thread-grouped Summary: a new
        ``KernelSummary(session.obj).interval``, which reads the maps without resetting
        them); None = interval reports count the events that reach the sink.
    """

    syscall_name: Callable[[int], str]
    compat_syscall_name: Callable[[int], str] | None = None
    arg_names: Callable[[str], list[str] | None] = _no_arg_names
    arg_types: Callable[[str], list[tuple[str, str]] | None] = _no_arg_types
    summary_from: Callable[[], Summary] | None = None
    facts: Facts | None = None
    syscall_table: SyscallTable | None = None
    counters_from: Callable[[], Mapping[str, int]] | None = None
    interval_from: Callable[[], Callable[[], Summary]] | None = None
    replay: bool = False

    @functools.cached_property
    def live_facts(self) -> Facts:
        """:attr:`facts`, or (None) this machine's, made once per context."""
        if self.facts is not None:
            return self.facts
        from tracekit.decode.values import quote
        from tracekit.kernel.facts import LiveFacts

        return LiveFacts(quote=quote)

    @classmethod
    def for_machine(cls, *, summary_from: Callable[[], Summary] | None = None,
                    facts: Facts | None = None,
                    interval_from: Callable[[], Callable[[], Summary]] | None = None
                    ) -> SinkContext:
        """This machine's syscall tables and tracefs argument names (read on first use
        per name, cached; None when tracefs is not mounted, as for a recording replayed
        where there is none).

        Raises:
          TracefsError: (from ``arg_names``) a tracefs read failed other than ENOENT.
        """
        from tracekit.kernel.syscalls import syscall_namers
        from tracekit.kernel.tracefs import syscall_args_lookup

        native, compat = syscall_namers()
        args_of = syscall_args_lookup()

        @functools.cache
        def arg_names(name: str) -> list[str] | None:
            fields = args_of(name)
            return None if fields is None else [f.name for f in fields]

        @functools.cache
        def arg_types(name: str) -> list[tuple[str, str]] | None:
            fields = args_of(name)
            return None if fields is None else [(f.name, f.c_type) for f in fields]

        return cls(syscall_name=native, compat_syscall_name=compat, arg_names=arg_names,
                   arg_types=arg_types, summary_from=summary_from, facts=facts,
                   interval_from=interval_from)


OptionsT = TypeVar("OptionsT", bound=msgspec.Struct)


def _no_stages(options: Any, configured: Sequence[Any], ctx: SinkContext) -> list[Any]:
    return []


def _never_in_kernel(options: Any, has_stages: bool) -> bool:
    return False


def _never_streams(options: Any) -> bool:
    return False


def _no_problem(options: Any) -> tuple[str, str] | None:
    return None


@dataclass(frozen=True)
class FormatSpec(Generic[OptionsT]):
    """One output format (``[output] format = name``).

    Attributes:
      name: the ``format`` value.
      options: a msgspec Struct of the ``[output]`` keys the format takes, with the
        pipeline file's defaults (``spec.options()`` is them).
      sink: ``(out, options, ctx) -> Sink``; ``out`` is ``"-"``, a path (opened by
        :mod:`tracekit.formatters._output` rules) or an open stream.
      stages: ``(options, configured stages, ctx) -> stages`` to run after the configured
        ones, before the sink (perf text decodes and orders its lines).
      in_kernel: ``(options, has_stages) -> bool``: whether the syscalls are counted in
        BPF maps instead of sent as records (a summary's ``mode``).
      written_at_end: the output is written once, when the input ends, so a file is
        replaced whole (``open_output(path, atomic=True)``): a reader never sees half of
        it, and a failed run leaves the previous file.
      rewrites: the sink writes its path itself, whole, again and again (a metrics
        textfile replaced every few seconds): the front end hands it the path, not an
        open stream.
      streams_with: ``(options) -> bool``: whether an output ``written_at_end`` is
        written while the trace runs after all with these options (a summary with
        interval reports); see :meth:`at_end`.
      problem: ``(options) -> (key, message) | None``: what is wrong with a value that
        its type lets through (an openmetrics ``listen`` that is not HOST:PORT), found
        with the pipeline file (``tracekit check`` too), not when the sink starts.
    """

    name: str
    options: type[OptionsT]
    sink: Callable[[Output, OptionsT, SinkContext], Any]
    stages: Callable[[OptionsT, Sequence[Any], SinkContext], list[Any]] = _no_stages
    in_kernel: Callable[[OptionsT, bool], bool] = _never_in_kernel
    written_at_end: bool = False
    rewrites: bool = False
    streams_with: Callable[[OptionsT], bool] = _never_streams
    problem: Callable[[OptionsT], tuple[str, str] | None] = _no_problem

    def at_end(self, options: OptionsT | None = None) -> bool:
        """Whether an output of this format with ``options`` is written once, at the end
        (its file replaced whole), rather than while the trace runs."""
        return self.written_at_end and not self.streams_with(
            options if options is not None else self.options())

    def parse_options(self, values: Mapping[str, Any]) -> OptionsT:
        """The options Struct from ``[output]``-style keys (missing keys: defaults).

        Values are not checked here (the pipeline file's decoder and the sink check them).

        Raises:
          ConfigError: a key this format does not take.
        """
        known = self.options.__struct_fields__
        unknown = set(values) - set(known)
        if unknown:
            raise ConfigError(f"{self.name} output: unknown option(s) "
                              f"{', '.join(sorted(unknown))} (known: {', '.join(known)})")
        return self.options(**values)

    def options_of(self, output: msgspec.Struct) -> OptionsT:
        """The options Struct from a decoded ``[output]`` table (its keys for this format)."""
        return self.options(**{f: getattr(output, f) for f in self.options.__struct_fields__})

    def stages_before(self, options: OptionsT | None = None, configured: Sequence[Any] = (),
                      ctx: SinkContext | None = None) -> list[Any]:
        """The stages this format needs after ``configured`` ones (none already there)."""
        return self.stages(options if options is not None else self.options(), configured,
                           ctx if ctx is not None else SinkContext.for_machine())

    def counts_in_kernel(self, options: OptionsT | None = None, *,
                         has_stages: bool = False) -> bool:
        """Whether a trace for this output counts syscalls in BPF maps (no records)."""
        return self.in_kernel(options if options is not None else self.options(), has_stages)

    def make_sink(self, out: Output, options: OptionsT | None = None,
                  ctx: SinkContext | None = None) -> Any:
        """The sink, writing to ``out``.

        Raises:
          ConfigError: an option value the format does not take.
        """
        return self.sink(out, options if options is not None else self.options(),
                         ctx if ctx is not None else SinkContext.for_machine())


def _spec_of(name: str) -> FormatSpec[Any] | None:
    module = FORMATS.get(name)
    if module is None:
        return None
    try:
        mod = importlib.import_module(f"tracekit.formatters.{module}")
    except ModuleNotFoundError as e:
        if e.name == f"tracekit.formatters.{module}":
            return None
        raise
    return getattr(mod, "SPEC", None)


def available_formats() -> list[str]:
    """The ``[output] format`` values this version provides, in listing order."""
    return [name for name in FORMATS if _spec_of(name) is not None]


def format_spec(name: str) -> FormatSpec[Any]:
    """The spec of ``[output] format = name``.

    Raises:
      ConfigError: the format is not available in this version.
    """
    spec = _spec_of(name)
    if spec is None:
        raise ConfigError(f"[output] format {name!r} is not available in this version "
                          f"(available: {', '.join(available_formats())})")
    return spec


def output_option_fields() -> list[tuple[str, Any, Any]]:
    """``(key, type, default)`` of every format's options, in :data:`FORMATS` order: the
    keys a flat ``[output]`` table takes besides ``format`` and ``path`` (a key two
    formats share, such as ``fd_paths``, once).

    Raises:
      TypeError: two formats declare one key with different types or defaults.
    """
    seen: dict[str, tuple[str, Any, Any]] = {}
    for name in available_formats():
        for f in msgspec.structs.fields(format_spec(name).options):
            # a list default (``= []``) is a default_factory in msgspec's field info
            default = (f.default if f.default_factory is msgspec.NODEFAULT
                       else msgspec.field(default_factory=f.default_factory))
            got = (f.name, f.type, default)
            if seen.setdefault(f.name, got) != got:
                raise TypeError(f"[output] {f.name}: formats disagree: {seen[f.name]} "
                                f"and {got} ({name})")
    return list(seen.values())


#: stages formats ask for, in the order they must run whoever asks first: decoding
#: (beautify's fd table follows the calls in arrival order) before ordering by ``ts_ns``
_STAGE_ORDER = ("beautify", "reorder")


def stages_for(sinks: Iterable[Any], stages: Sequence[Any] = (),
               ctx: SinkContext | None = None) -> list[Any]:
    """``stages`` followed by what the formatters among ``sinks`` need before them.

    A sink made by a spec (or a formatter class of this package) names its format in
    ``spec`` and its options in ``options``; other sinks need nothing. Each stage a format
    asks for runs once however many sinks ask for it (stages are told apart by ``name``:
    one already in ``stages``, or asked for by an earlier sink, is not added again), and
    the added stages run in one order whichever sink asked first: decoding
    (``beautify``) before ordering (``reorder``), then any other, in the order asked.
    Every sink gets every event, so a JSON Lines sink beside a perf one sees the
    ``decoded`` text perf's decoding adds.

    Raises:
      ConfigError: two sinks need the same stage built differently (two text outputs
        that decode with different ``fd_paths``, ``string_limit`` or ``verbose``): decoding
        runs once.
    """
    out = list(stages)
    added: dict[str, tuple[Any, str]] = {}       # name -> (stage, the format that asked)
    others: list[Any] = []
    for sink in sinks:
        spec = getattr(sink, "spec", None)
        if not isinstance(spec, FormatSpec):
            continue
        options = getattr(sink, "options", None)
        if not isinstance(options, spec.options):
            options = spec.options()
        for st in spec.stages_before(options, out, ctx):
            name = getattr(st, "name", None)
            if name is None:
                others.append(st)
            elif name in added:
                _same_stage(added[name], (st, spec.name))
            elif name not in {getattr(x, "name", None) for x in out}:
                added[name] = (st, spec.name)
    ordered = [added.pop(n)[0] for n in _STAGE_ORDER if n in added]
    return out + ordered + [st for st, _ in added.values()] + others


def _settings(stage: Any) -> tuple[tuple[str, object], ...]:
    """What makes two stages of one name differ: a decoding stage's options."""
    dec = getattr(stage, "decoder", None)
    if dec is None:
        return ()
    # strace's -e abbrev= / -e verbose= sets, only when given (no [output] key sets them)
    sets = tuple((k, v) for k in ("abbrev", "deref") if (v := getattr(dec, k, None)) is not None)
    return (("fd_paths", getattr(dec, "fd_paths", None)),
            ("string_limit", getattr(dec, "string_limit", None)),
            ("verbose", getattr(dec, "verbose", None)), *sets)


def _same_stage(first: tuple[Any, str], second: tuple[Any, str]) -> None:
    """Refuse two requests for one stage name built with different settings."""
    a, b = _settings(first[0]), _settings(second[0])
    if a != b:
        def said(s: tuple[tuple[str, object], ...]) -> str:
            return ", ".join(f"{k} = {v!r}" for k, v in s)
        raise ConfigError(
            f"the {first[1]} and {second[1]} outputs need the {first[0].name} stage with "
            f"different settings ({said(a)}; {said(b)}); it runs once for every output: "
            "give both the same values")


def formats_taking(key: str) -> list[str]:
    """The formats whose ``[output]`` options include ``key``, in :data:`FORMATS` order."""
    return [name for name in available_formats()
            if key in format_spec(name).options.__struct_fields__]
