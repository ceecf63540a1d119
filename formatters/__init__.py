"""tracekit.formatters: the output formats (perf-trace and strace-style text, JSON Lines,
summary tables), each a spec (its ``[output]`` options, the stages it needs before it) and
a sink; the one helper that opens outputs."""

# `X as X` re-exports (trio style); ruff would split them without isort combine-as-imports.
# ruff: noqa: I001
from tracekit._meta import fixup_module_metadata as _fixup_module_metadata
from tracekit.formatters._base import (
    TextOptions as TextOptions,
    TextSink as TextSink,
    escape as escape,
    unescape as unescape,
)
from tracekit.formatters._output import (
    AtomicFile as AtomicFile,
    close_output as close_output,
    open_output as open_output,
)
from tracekit.formatters._spec import (
    FORMATS as FORMATS,
    FormatSpec as FormatSpec,
    SinkContext as SinkContext,
    available_formats as available_formats,
    format_spec as format_spec,
    stages_for as stages_for,
)
from tracekit.formatters.jsonl import JsonlOptions as JsonlOptions, JsonlSink as JsonlSink
from tracekit.formatters.perf import PerfFormatter as PerfFormatter
from tracekit.formatters.strace import StraceFormatter as StraceFormatter
from tracekit.formatters.summary import SummaryOptions as SummaryOptions, SummarySink as SummarySink

__all__ = [
    "FORMATS",
    "AtomicFile",
    "FormatSpec",
    "JsonlOptions",
    "JsonlSink",
    "PerfFormatter",
    "SinkContext",
    "StraceFormatter",
    "SummaryOptions",
    "SummarySink",
    "TextOptions",
    "TextSink",
    "available_formats",
    "close_output",
    "escape",
    "format_spec",
    "open_output",
    "stages_for",
    "unescape",
]

# reprs and tracebacks name this module, not the private one that defines the object
_fixup_module_metadata(__name__, globals(), __all__)
