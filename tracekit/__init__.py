"""tracekit: a BPF syscall tracer and async event pipeline.

The public API is re-exported here from private modules; everything else is private.
``import tracekit`` does no work: names resolve on first use (PEP 562), so the package
import loads no trio, reads no /proc and parses no BTF, and a command-line start can
handle a SIGINT that arrives while it imports. Pipelines and formatters are in
:mod:`tracekit.pipeline` and :mod:`tracekit.formatters`.

Each name is listed twice, in ``_EXPORTS`` (what runs) and in the ``if TYPE_CHECKING:``
block (what type checkers and editors read); ``tests/test_public_api.py`` checks that the
two agree. A resolved object says ``tracekit`` as its ``__module__`` (``tracekit.Syscall``
in reprs, tracebacks and pickles; see :mod:`tracekit._meta`).
"""

from __future__ import annotations

import sys

from tracekit._version import __version__ as __version__

# not ``from typing import TYPE_CHECKING``: the command's entry point imports this package
# before it can handle a signal, so it imports nothing it does not need (type checkers
# read the name TYPE_CHECKING as true wherever it comes from)
TYPE_CHECKING = False

_EXPORTS: dict[str, str] = {
    "AttachError": "tracekit._errors",
    "BpfError": "tracekit._errors",
    "BpfObject": "tracekit.bpf.object",
    "BtfError": "tracekit._errors",
    "Capture": "tracekit._events",
    "ConfigError": "tracekit._errors",
    "Decoded": "tracekit._events",
    "ElfError": "tracekit._errors",
    "Exec": "tracekit._events",
    "Exit": "tracekit._events",
    "Fork": "tracekit._events",
    "Group": "tracekit._summary",
    "Link": "tracekit.bpf.object",
    "LiveTrace": "tracekit.app.trace",
    "Losses": "tracekit._events",
    "Lost": "tracekit._events",
    "Map": "tracekit.bpf.object",
    "MapError": "tracekit._errors",
    "PipelineConfig": "tracekit.app.config",
    "Prog": "tracekit.bpf.object",
    "ProgLoadError": "tracekit._errors",
    "Recording": "tracekit.session.recording",
    "RecordingError": "tracekit._errors",
    "RecordingSource": "tracekit.session.recording",
    "Reenumerated": "tracekit._events",
    "RingBufferSource": "tracekit.session.source",
    "SC_COMPAT": "tracekit._events",
    "SC_DETACHED": "tracekit._events",
    "SC_NORETURN": "tracekit._events",
    "SC_RESUMED": "tracekit._events",
    "SC_UNFINISHED": "tracekit._events",
    "Session": "tracekit.session.session",
    "Signal": "tracekit._events",
    "SessionOptions": "tracekit.session.session",
    "Summarizer": "tracekit._summary",
    "Summary": "tracekit._summary",
    "Syscall": "tracekit._events",
    "SyscallStats": "tracekit._summary",
    "SyscallTable": "tracekit.kernel.syscalls",
    "TargetError": "tracekit._errors",
    "TracefsError": "tracekit._errors",
    "TracekitError": "tracekit._errors",
    "decode_config": "tracekit.app.config",
    "load_config": "tracekit.app.config",
    "open_session": "tracekit.session.session",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'tracekit' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), name)
    _fixup_loaded()
    globals()[name] = value  # later lookups skip this function
    return value


def _fixup_loaded() -> None:
    """Give every exported object of the modules loaded so far ``__module__ = "tracekit"``.

    Done when a name is resolved, not at ``import tracekit`` (which must load nothing), and
    for every loaded module, not only the one resolved: ``tracekit.LiveTrace`` loads the
    error and event modules, and an error it raises then reads ``tracekit.BpfError`` in a
    traceback although no one resolved that name.
    """
    from tracekit._meta import set_public_module

    modules = sys.modules
    for export, home in _EXPORTS.items():
        if home in modules:
            # a module still executing (an import cycle) may not define it yet
            set_public_module(getattr(modules[home], export, None), "tracekit")


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from tracekit._errors import (
        AttachError as AttachError,
        BpfError as BpfError,
        BtfError as BtfError,
        ConfigError as ConfigError,
        ElfError as ElfError,
        MapError as MapError,
        ProgLoadError as ProgLoadError,
        RecordingError as RecordingError,
        TargetError as TargetError,
        TracefsError as TracefsError,
        TracekitError as TracekitError,
    )
    from tracekit._events import (
        SC_COMPAT as SC_COMPAT,
        SC_DETACHED as SC_DETACHED,
        SC_NORETURN as SC_NORETURN,
        SC_RESUMED as SC_RESUMED,
        SC_UNFINISHED as SC_UNFINISHED,
        Capture as Capture,
        Decoded as Decoded,
        Exec as Exec,
        Exit as Exit,
        Fork as Fork,
        Losses as Losses,
        Lost as Lost,
        Reenumerated as Reenumerated,
        Signal as Signal,
        Syscall as Syscall,
    )
    from tracekit._summary import (
        Group as Group,
        Summarizer as Summarizer,
        Summary as Summary,
        SyscallStats as SyscallStats,
    )
    from tracekit.app.config import (
        PipelineConfig as PipelineConfig,
        decode_config as decode_config,
        load_config as load_config,
    )
    from tracekit.app.trace import (
        LiveTrace as LiveTrace,
    )
    from tracekit.bpf.object import (
        BpfObject as BpfObject,
        Link as Link,
        Map as Map,
        Prog as Prog,
    )
    from tracekit.kernel.syscalls import (
        SyscallTable as SyscallTable,
    )
    from tracekit.session.recording import (
        Recording as Recording,
        RecordingSource as RecordingSource,
    )
    from tracekit.session.session import (
        Session as Session,
        SessionOptions as SessionOptions,
        open_session as open_session,
    )
    from tracekit.session.source import (
        RingBufferSource as RingBufferSource,
    )
