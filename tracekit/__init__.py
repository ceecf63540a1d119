"""tracekit: a BPF syscall tracer and async event pipeline.

The public API is re-exported here from private modules (trio style); everything else
is private. ``import tracekit`` does no work: no subprocess, no /proc read.
"""

from tracekit._errors import (
    AttachError as AttachError,
    BpfError as BpfError,
    BtfError as BtfError,
    ConfigError as ConfigError,
    ElfError as ElfError,
    MapError as MapError,
    ProgLoadError as ProgLoadError,
    TargetError as TargetError,
    TracefsError as TracefsError,
    TracekitError as TracekitError,
)
from tracekit._events import (
    Exec as Exec,
    Exit as Exit,
    Fork as Fork,
    Lost as Lost,
    Syscall as Syscall,
)

__version__ = "0.1.0"

__all__ = [
    "AttachError", "BpfError", "BtfError", "ConfigError", "ElfError", "MapError",
    "ProgLoadError", "TargetError", "TracefsError", "TracekitError",
    "Exec", "Exit", "Fork", "Lost", "Syscall",
]
