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
from tracekit._meta import fixup_module_metadata as _fixup_module_metadata
from tracekit.pipeline._run import (
    Pipeline as Pipeline,
    PipelineResult as PipelineResult,
    StageExit as StageExit,
)
from tracekit.pipeline._sources import IterSource as IterSource
from tracekit.session.spawn import restore_signal_mask as restore_signal_mask
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
    "PipelineError", "PipelineResult", "Sink", "Source", "Stage", "StageContext", "StageExit",
    "StageStats", "Summarize", "map_stage", "restore_signal_mask", "stage",
]

# reprs and tracebacks name this module, not the private one that defines the object
# (PipelineError is defined with every other error, in tracekit._errors)
_fixup_module_metadata(__name__, globals(), __all__)
