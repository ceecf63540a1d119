"""tracekit.formatters: sinks that render events (perf-trace and strace-style text, JSON
Lines, summary tables)."""

# `X as X` re-exports (trio style); ruff would split them without isort combine-as-imports.
# ruff: noqa: I001
from tracekit._meta import fixup_module_metadata as _fixup_module_metadata
from tracekit.formatters._base import TextSink as TextSink, escape as escape
from tracekit.formatters.jsonl import JsonlSink as JsonlSink
from tracekit.formatters.perf import PerfFormatter as PerfFormatter
from tracekit.formatters.strace import StraceFormatter as StraceFormatter
from tracekit.formatters.summary import SummarySink as SummarySink

__all__ = ["JsonlSink", "PerfFormatter", "StraceFormatter", "SummarySink", "TextSink", "escape"]

# reprs and tracebacks name this module, not the private one that defines the object
_fixup_module_metadata(__name__, globals(), __all__)
