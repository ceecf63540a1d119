"""tracekit.pipeline: sources, stages and sinks joined by trio channels of event batches.

Example::

    from tracekit.pipeline import IterSource, Pipeline, map_stage
    from tracekit.formatters import JsonlSink

    only_errors = map_stage(lambda b: [e for e in b if getattr(e, "errno", 0)],
                            name="errors")
    result = await Pipeline(IterSource(batches), [only_errors], [JsonlSink("-")]).run()
"""

# `X as X` re-exports (trio style); ruff would split them without isort combine-as-imports.
# ruff: noqa: I001
from tracekit._errors import PipelineError as PipelineError
from tracekit.pipeline._run import (
    Pipeline as Pipeline,
    PipelineResult as PipelineResult,
)
from tracekit.pipeline._sources import IterSource as IterSource
from tracekit.pipeline.summarize import Summarize as Summarize
from tracekit.pipeline._stage import (
    EventReceiver as EventReceiver,
    EventSender as EventSender,
    FunctionStage as FunctionStage,
    MapStage as MapStage,
    Sink as Sink,
    Source as Source,
    Stage as Stage,
    StageContext as StageContext,
    StageStats as StageStats,
    map_stage as map_stage,
    stage as stage,
)

__all__ = [
    "EventReceiver", "EventSender", "FunctionStage", "IterSource", "MapStage", "Pipeline",
    "PipelineError", "PipelineResult", "Sink", "Source", "Stage", "StageContext",
    "StageStats", "Summarize", "map_stage", "stage",
]

# Defined with every other error in tracekit._errors; named where users import it, so
# tracebacks and reprs say tracekit.pipeline.PipelineError (trio's fixup_module_metadata).
PipelineError.__module__ = "tracekit.pipeline"
