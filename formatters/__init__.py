"""tracekit.formatters: sinks that render events (perf-trace and strace-style text, JSON
Lines, summary tables)."""

# `X as X` re-exports (trio style); ruff would split them without isort combine-as-imports.
# ruff: noqa: I001
from tracekit.formatters._base import TextSink as TextSink, escape as escape
from tracekit.formatters.jsonl import JsonlSink as JsonlSink
from tracekit.formatters.perf import PerfFormatter as PerfFormatter
from tracekit.formatters.strace import StraceFormatter as StraceFormatter
from tracekit.formatters.summary import SummarySink as SummarySink

__all__ = ["JsonlSink", "PerfFormatter", "StraceFormatter", "SummarySink", "TextSink", "escape"]
