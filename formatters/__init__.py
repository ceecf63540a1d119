"""tracekit.formatters: sinks that render events (perf-trace-style text, JSON Lines)."""

# `X as X` re-exports (trio style); ruff would split them without isort combine-as-imports.
# ruff: noqa: I001
from tracekit.formatters._base import TextSink as TextSink, escape as escape
from tracekit.formatters.jsonl import JsonlSink as JsonlSink
from tracekit.formatters.perf import PerfFormatter as PerfFormatter

__all__ = ["JsonlSink", "PerfFormatter", "TextSink", "escape"]
