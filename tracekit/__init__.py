"""tracekit: a BPF syscall tracer and async event pipeline.

The public API is re-exported here from private modules (trio style); everything else
is private. ``import tracekit`` does no work: no subprocess, no /proc read, no BTF parse.
Pipelines and formatters are in :mod:`tracekit.pipeline` and :mod:`tracekit.formatters`.
"""

from tracekit._config import (
    PipelineConfig as PipelineConfig,
    decode_config as decode_config,
    load_config as load_config,
)
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
    SC_COMPAT as SC_COMPAT,
    SC_NORETURN as SC_NORETURN,
    SC_RESUMED as SC_RESUMED,
    SC_UNFINISHED as SC_UNFINISHED,
    Capture as Capture,
    Decoded as Decoded,
    Exec as Exec,
    Exit as Exit,
    Fork as Fork,
    Lost as Lost,
    Reenumerated as Reenumerated,
    Syscall as Syscall,
)
from tracekit._live import LiveTrace as LiveTrace
from tracekit._object import BpfObject as BpfObject, Link as Link, Map as Map, Prog as Prog
from tracekit._session import (
    Session as Session,
    SessionOptions as SessionOptions,
    open_session as open_session,
)
from tracekit._source import RingBufferSource as RingBufferSource
from tracekit._summary import (
    Group as Group,
    Summarizer as Summarizer,
    Summary as Summary,
    SyscallStats as SyscallStats,
)
from tracekit._syscalls import SyscallTable as SyscallTable

__version__ = "0.1.0"

__all__ = [
    "AttachError", "BpfError", "BpfObject", "BtfError", "Capture", "ConfigError", "Decoded",
    "ElfError", "Exec", "Exit", "Fork", "Group", "Link", "LiveTrace", "Lost", "Map", "MapError",
    "PipelineConfig", "Prog", "ProgLoadError", "Reenumerated", "RingBufferSource", "SC_COMPAT",
    "SC_NORETURN", "SC_RESUMED", "SC_UNFINISHED", "Session", "SessionOptions", "Summarizer",
    "Summary", "Syscall", "SyscallStats", "SyscallTable", "TargetError", "TracefsError",
    "TracekitError", "decode_config", "load_config", "open_session",
]
