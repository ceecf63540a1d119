"""pipeline.toml: the msgspec-typed pipeline config, with errors that point at the text.

Every problem raises ``ConfigError`` whose message starts ``<file>:<line>:<column>: `` and
says what is wrong and how to fix it. TOML syntax errors take tomllib's position; msgspec
validation errors carry a JSON path (``$.target.pid[0]``), which ``_Locator`` maps back to
the TOML text (table headers, ``[[stage]]`` by index, dotted keys, inline tables and
arrays); a path it cannot find falls back to its nearest enclosing table's header.

Example::

    [target]
    command = ["ls", "-l", "/"]

    [filter]
    syscalls = ["%file", "!close"]

    [[stage]]
    kind = "summarize"
    group_by = "process"

    [output]
    format = "summary"
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, Union

import msgspec

from tracekit._errors import ConfigError
from tracekit.kernel.selection import resolve_item, resolve_syscalls
from tracekit.kernel.syscalls import SyscallTable
from tracekit.pipeline._stage import StageConfigBase
from tracekit.pipeline.beautify import BeautifyConfig
from tracekit.pipeline.evict import EvictConfig
from tracekit.pipeline.reconcile import ReconcileConfig
from tracekit.pipeline.reenumerate import ReenumerateConfig
from tracekit.pipeline.summarize import SummarizeConfig

__all__ = [
    "RENAMED_KEYS",
    "BeautifyConfig",
    "EvictConfig",
    "FilterConfig",
    "OutputConfig",
    "PipelineConfig",
    "ReconcileConfig",
    "ReenumerateConfig",
    "StageConfig",
    "SummarizeConfig",
    "TargetConfig",
    "UserStageConfig",
    "check_outputs",
    "check_target",
    "decode_config",
    "dump_config",
    "load_config",
]

_Pid = Annotated[int, msgspec.Meta(ge=1, le=2**31 - 1)]
# the time limit: as --timeout takes it (about 31 years; trio's deadlines stay exact)
_TimeoutS = Annotated[float, msgspec.Meta(gt=0, le=1e9)]


class _Config(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every config table: keyword-only, unknown keys are errors."""


class TargetConfig(_Config):
    """What to trace; exactly one of ``command``, ``pid``, ``tid``, ``system_wide``.

    ``pid`` are process ids (tgids; user "pid"), ``tid`` thread ids; both in the init pid
    namespace.
    """

    command: list[str] | None = None     # argv; argv[0] is looked up in PATH
    pid: list[_Pid] = []                 # processes (tgids): all their threads
    tid: list[_Pid] = []                 # single threads
    system_wide: bool = False            # every task but tracekit's own
    cgroup: str | None = None            # a cgroup v2 directory: its tasks and descendants'
    follow_forks: bool = True            # trace children created by traced tasks


class FilterConfig(_Config):
    """Which syscalls reach the output."""

    syscalls: list[str | int] = []       # names, numbers, globs, %classes, !negations; [] = all
    failed_only: bool = False            # only calls that returned -errno
    # strace -e status=: which outcomes are recorded; [] = all; ["none"]: no call
    status: list[Literal["successful", "failed", "unfinished", "unavailable",
                         "detached", "none"]] = []
    errno: list[str | int] = []          # only calls that failed with these (ENOENT, 2, !EAGAIN)
    signal: list[str | int] = []         # signal deliveries shown (SIGUSR1, 10, !SIGCHLD); [] = all
    path: list[str] = []                 # strace -P: calls on these paths (and fds open on them)
    # at most a day: the threshold is a u64 of ns in the kernel
    min_duration_ms: Annotated[float, msgspec.Meta(ge=0, le=86_400_000)] = 0.0


def _output_config() -> type[msgspec.Struct]:
    """The ``[output]`` table: ``format`` (one of tracekit.formatters.FORMATS), ``path``,
    and the keys the formats declare in their options (tracekit.formatters: each format
    reads its own; the others' keys are accepted and unused)."""
    from tracekit.formatters._spec import FORMATS, output_option_fields

    return msgspec.defstruct(
        "OutputConfig",
        [("format", Literal[tuple(FORMATS)], "perf"),  # which formatter
         ("path", str, "-"),                           # a file path; "-" is stdout
         *output_option_fields()],
        bases=(_Config,), module=__name__, kw_only=True, forbid_unknown_fields=True,
        namespace={"__doc__": "Where and how events are written."})


if TYPE_CHECKING:
    class OutputConfig(_Config):
        """What the type checker knows of the ``[output]`` Struct that
        :func:`_output_config` builds at import time (``msgspec.defstruct``, whose fields
        the checker cannot see): ``format``, ``path``, and each format's option keys."""

        format: str = "perf"
        path: str = "-"

        def __getattr__(self, name: str) -> Any: ...
else:
    OutputConfig = _output_config()


# --- stages: a tagged union on `kind`. Each built-in stage module defines its config
# Struct (a StageConfigBase with tag="<kind>") next to the stage; to add a kind, import it
# here and add it to StageConfig.

_Stage = StageConfigBase


class UserStageConfig(_Stage, tag="user"):
    """A stage of your own: ``use = "package.module:Name"``, built with ``options``."""

    use: str
    options: dict[str, Any] = {}


#: one ``[[stage]]`` table: msgspec picks the member by ``kind`` (each member's ``tag``);
#: this order is the kinds' order everywhere (error messages, ``tracekit list stages``)
StageConfig: TypeAlias = (ReconcileConfig | ReenumerateConfig | EvictConfig | BeautifyConfig
                          | SummarizeConfig | UserStageConfig)
_STAGE_KINDS: tuple[type[_Stage], ...] = typing.get_args(StageConfig)


class PipelineConfig(_Config):
    """A whole pipeline.toml.

    ``output`` is one ``[output]`` table or an ``[[output]]`` array of them (read both
    through :attr:`outputs`). ``target`` may be left empty only where the command line
    gives the target (``tracekit run FILE -- cmd``).
    """

    target: TargetConfig = msgspec.field(default_factory=TargetConfig)
    filter: FilterConfig = msgspec.field(default_factory=FilterConfig)
    stage: list[StageConfig] = []        # TOML [[stage]] tables, run in order
    # one [output] table, or [[output]] tables: every output gets every event
    output: OutputConfig | list[OutputConfig] = msgspec.field(default_factory=OutputConfig)
    timeout_s: _TimeoutS | None = None  # stop after this many seconds; None = until done
    # ring buffer in 4 KiB pages; 2**19 pages = 2 GiB, the largest power of 2 below the u32
    # max_entries of BPF_MAP_CREATE
    buffer_pages: Annotated[int, msgspec.Meta(ge=1, le=2**19)] = 1024
    pids_max_entries: Annotated[int, msgspec.Meta(ge=1, le=2**22)] = 8192  # pids map size
    record: str | None = None            # also write a recording here (tracekit replay)

    @property
    def outputs(self) -> list[OutputConfig]:
        """Every output, in the file's order (one ``[output]`` table is a list of one)."""
        return list(self.output) if isinstance(self.output, list) else [self.output]


#: keys that were renamed: old -> (new, what the new one means); the old one is an error
#: that names the new one, so no spelling stays with two meanings
RENAMED_KEYS: dict[str, tuple[str, str]] = {
    "duration_s": ("timeout_s", "the time limit of the trace, in seconds; [filter] "
                                "min_duration_ms keeps only calls that took that long"),
}


def stage_configs() -> dict[str, type[StageConfigBase]]:
    """Every valid ``kind`` of a ``[[stage]]`` -> its config Struct, in listing order."""
    # every tag is a str (StageConfigBase subclasses pass tag="<kind>")
    return {str(cls.__struct_config__.tag): cls for cls in _STAGE_KINDS}


def stage_kinds() -> list[str]:
    """Every valid ``kind`` of a ``[[stage]]``, in listing order."""
    return list(stage_configs())


def load_config(path: Path, *, need_target: bool = True) -> PipelineConfig:
    """Read and validate a pipeline.toml.

    Args:
      need_target: a file without a target is an error (False: the command line gives it).

    Raises:
      ConfigError: the file cannot be read (``<path>: <strerror>``) or is invalid
        (``<path>:<line>:<column>: ...``).
    """
    try:
        # O_NONBLOCK: a fifo given as the file must not block the open; only a regular
        # file is read (a fifo or /dev/zero would never end)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ConfigError(f"{path}: not a regular file")
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        name = errno.errorcode.get(e.errno or 0, "?")
        raise ConfigError(f"{path}: cannot read config: {e.strerror or e} ({name})") from e
    return decode_config(data, filename=str(path), need_target=need_target)


def decode_config(text: str | bytes, *, filename: str = "<string>",
                  need_target: bool = True) -> PipelineConfig:
    """Validate TOML text into a PipelineConfig.

    Args:
      need_target: a document without a target is an error (False: the caller sets it).

    Raises:
      ConfigError: with ``<filename>:<line>:<column>: <what> ...``: not UTF-8, TOML
        syntax, unknown key, wrong type, unknown stage kind, bad value, unknown syscall;
        larger than :data:`MAX_CONFIG_BYTES`, or nested deeper than :data:`MAX_NESTING`
        (checked before the TOML is parsed: see :func:`_check_bounds`).
    """
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{filename}: config is larger than {MAX_CONFIG_BYTES >> 20} MiB; "
                          "a pipeline file is a few lines")
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            before = raw[:e.start].decode("utf-8", "replace")
            line, col = _line_col(before, len(before))
            raise ConfigError(f"{filename}:{line}:{col}: config is not UTF-8 "
                              f"(byte 0x{raw[e.start]:02x}); save the file as UTF-8") from e
    if text.startswith("\ufeff"):
        # editors on Windows save one; TOML has no place for it (tomllib: "Invalid
        # statement" at 1:1, which does not say what is there)
        raise ConfigError(f"{filename}:1:1: the file starts with a UTF-8 byte order mark "
                          "(BOM, bytes ef bb bf), which TOML does not allow; save the file "
                          "as UTF-8 without BOM")
    _check_bounds(text, filename)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(_syntax_message(str(e), text, filename)) from e
    locator = _Locator(text, filename)
    try:
        cfg = msgspec.convert(data, PipelineConfig)
    except msgspec.ValidationError as e:
        raise ConfigError(_validation_message(str(e), data, locator)) from e
    _check(cfg, data, locator, need_target=need_target)
    return cfg


def stage_position(path: Path, index: int) -> str | None:
    """``file:line:col`` of ``[[stage]]`` number ``index``'s ``use`` in the pipeline file
    at ``path`` (0-based index), or None when the file cannot be read again (a one-liner
    has none). For errors found after loading, such as a user stage that cannot be
    imported."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        text = data.decode("utf-8")
        tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return _Locator(text, str(path)).where(("stage", index, "use"))


# --- bounds, before tomllib sees the text ----------------------------------------------

#: the largest pipeline file read, in bytes (a real one is a few hundred)
MAX_CONFIG_BYTES = 1 << 20
#: the deepest nesting of arrays and inline tables in one value, and the most parts of
#: one key or table header (``a.b.c`` has 3): far beyond any pipeline, far below what
#: recursion or tomllib's bookkeeping of every prefix of a dotted key can take
MAX_NESTING = 32
#: the most entries of ``[filter] syscalls`` (the tables have a few hundred syscalls;
#: classes and globs select many in one entry)
MAX_SYSCALL_ITEMS = 4096

# what the bounds scanner must see: strings (skipped whole, so brackets and dots inside
# them do not count), comments, and the characters that open or close a level or a key
_BOUND_TOKENS = re.compile(r'''
      """(?:[^"\\]|\\.|"(?!""))*"""{0,2}    # multi-line basic string
    | '{3}.*?'{3,5}                         # multi-line literal string
    | "(?:[^"\\\n]|\\.)*"?                  # basic string (to the line end)
    | '[^'\n]*'?                            # literal string
    | \#[^\n]*                              # comment
    | [\[\]{}.=,\n]
''', re.S | re.X)


def _check_bounds(text: str, filename: str) -> None:
    """Refuse nesting that would make parsing recurse without bound or take quadratic time.

    tomllib parses arrays and inline tables recursively (a few hundred ``[`` raise
    RecursionError) and keeps every prefix of a dotted key, so a key of n parts costs
    O(n**2) time and memory. This one linear pass counts, outside strings and comments,
    the open arrays and inline tables of each value and the parts of each key and table
    header; it does not check the syntax (tomllib does, next).

    Raises:
      ConfigError: ``<filename>:<line>:<col>: ...`` at the bracket or dot past
        :data:`MAX_NESTING`.
    """
    stack: list[str] = []          # the open "[" and "{" of the current value
    in_key = True                  # reading a key: at a line start, after "{" or ","
    header = False                 # inside a [table] or [[array]] header
    parts = 1                      # parts of the current key so far
    for m in _BOUND_TOKENS.finditer(text):
        tok = m[0]
        if tok == "\n":
            if not stack:
                in_key, header, parts = True, False, 1
        elif tok == "[":
            if not stack and in_key and not header:
                header = True      # a [table] header: its brackets open no value
            elif not header:
                stack.append(tok)
                in_key = False
        elif tok == "{":
            stack.append(tok)
            in_key, parts = True, 1
        elif tok in ("]", "}"):
            if stack and not header:
                stack.pop()
                in_key = False
        elif tok == ",":
            if stack and stack[-1] == "{":
                in_key, parts = True, 1
        elif tok == "=":
            in_key = False
        elif tok == "." and (in_key or header):
            parts += 1
            if parts > MAX_NESTING:
                line, col = _line_col(text, m.start())
                raise ConfigError(f"{filename}:{line}:{col}: a key of more than {MAX_NESTING} "
                                  "dotted parts; a pipeline needs a few")
        if len(stack) > MAX_NESTING:
            line, col = _line_col(text, m.start())
            raise ConfigError(f"{filename}:{line}:{col}: arrays or inline tables nested "
                              f"more than {MAX_NESTING} deep; a pipeline needs a few")


# --- positions ------------------------------------------------------------------------

def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_TOML_EOF = re.compile(r"\s*\(at end of document\)\s*$")


def _syntax_message(msg: str, text: str, filename: str) -> str:
    m = _TOML_POS.search(msg)
    if m:
        line, col = int(m[1]), int(m[2])
        msg = msg[:m.start()]
    else:
        line, col = _line_col(text, len(text))
        msg = _TOML_EOF.sub("", msg)
    return f"{filename}:{line}:{col}: TOML syntax error: {msg}; see https://toml.io"


_KeyPath: TypeAlias = tuple[str | int, ...]


class _Locator:
    """Maps a path in the decoded document (``("stage", 1, "kind")``) to its position.

    A lenient scanner over text that tomllib has already accepted: it reads table headers,
    key/value lines and the insides of inline arrays and tables, and records where each
    key and each value starts (1-based line and column). Multi-line strings are skipped.
    """

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.keys: dict[_KeyPath, int] = {}       # path -> offset of the key (or header)
        self.values: dict[_KeyPath, int] = {}     # path -> offset of the value
        self._array_tables: dict[_KeyPath, int] = {}
        self._scan()

    # positions

    def where(self, path: _KeyPath, *, key: bool = False) -> str:
        """``file:line:col`` of the value (or key) at ``path``, else of the nearest parent."""
        for n in range(len(path), -1, -1):
            sub = path[:n]
            table = self.keys if key and n == len(path) else self.values
            off = table.get(sub, self.keys.get(sub))
            if off is not None:
                line, col = _line_col(self.text, off)
                return f"{self.filename}:{line}:{col}"
        return f"{self.filename}:1:1"

    # scanner

    def _scan(self) -> None:
        text, i, n = self.text, 0, len(self.text)
        table: _KeyPath = ()
        while i < n:
            i = self._skip_ws(i, newlines=True)
            if i >= n:
                break
            c = text[i]
            if c == "#":
                i = self._eol(i)
            elif c == "[":
                start = i
                array = text.startswith("[[", i)
                i += 2 if array else 1
                parts, i = self._key(i)
                i = self._skip_ws(i)
                i += 2 if array else 1
                if array:
                    base = tuple(parts)
                    idx = self._array_tables.get(base, -1) + 1
                    self._array_tables[base] = idx
                    # the array itself (``("stage",)``) is at its first header; its
                    # path has no index (_resolve(base) would add this one's)
                    array_path = (*self._resolve(base[:-1]), base[-1])
                    self.keys.setdefault(array_path, start)
                    table = (*array_path, idx)
                else:
                    table = self._resolve(tuple(parts))
                self.keys.setdefault(table, start)
                self.values.setdefault(table, start)
                i = self._eol(i)
            else:
                i = self._keyval(i, table)
                i = self._eol(i)

    def _resolve(self, parts: _KeyPath) -> _KeyPath:
        """Insert the current index of every array of tables on the way (``[stage.x]``)."""
        out: list[str | int] = []
        for p in parts:
            out.append(p)
            idx = self._array_tables.get(tuple(x for x in out if isinstance(x, str)))
            if idx is not None:
                out.append(idx)
        return tuple(out)

    def _keyval(self, i: int, table: _KeyPath) -> int:
        start = i
        parts, i = self._key(i)
        i = self._skip_ws(i)
        if i < len(self.text) and self.text[i] == "=":
            i = self._skip_ws(i + 1)
        path = table + tuple(parts)
        self.keys.setdefault(path, start)
        for k in range(1, len(parts)):            # dotted keys define their parent tables
            self.keys.setdefault(table + tuple(parts[:k]), start)
        return self._value(i, path)

    def _value(self, i: int, path: _KeyPath) -> int:
        text, n = self.text, len(self.text)
        self.values.setdefault(path, i)
        if i >= n:
            return i
        c = text[i]
        if c == "[":
            i, idx = i + 1, 0
            while i < n:
                i = self._skip_ws(i, newlines=True, comments=True)
                if i >= n or text[i] == "]":
                    return i + 1
                if text[i] == ",":
                    i += 1
                    continue
                i = self._value(i, (*path, idx))
                idx += 1
            return i
        if c == "{":
            i += 1
            while i < n:
                i = self._skip_ws(i)
                if i >= n or text[i] == "}":
                    return i + 1
                if text[i] == ",":
                    i += 1
                    continue
                before = i
                i = self._keyval(i, path)
                if i == before:
                    i += 1
            return i
        if c in "\"'":
            return self._string(i)
        while i < n and text[i] not in ",]}\n#":
            i += 1
        return i

    def _string(self, i: int) -> int:
        text, n = self.text, len(self.text)
        q = text[i]
        if text.startswith(q * 3, i):
            end = text.find(q * 3, i + 3)
            if end < 0:
                return n
            end += 3
            while end < n and text[end] == q:      # up to two quotes may close the string
                end += 1
            return end
        i += 1
        while i < n and text[i] != q and text[i] != "\n":
            i += 2 if (q == '"' and text[i] == "\\") else 1
        return i + 1

    def _key(self, i: int) -> tuple[list[str], int]:
        text, n = self.text, len(self.text)
        parts: list[str] = []
        while i < n:
            i = self._skip_ws(i)
            if i < n and text[i] in "\"'":
                end = self._string(i)
                raw = text[i:end]
                try:
                    parts.append(tomllib.loads(f"k = {raw}")["k"])
                except tomllib.TOMLDecodeError:
                    parts.append(raw.strip("\"'"))
                i = end
            else:
                m = re.compile(r"[A-Za-z0-9_-]+").match(text, i)
                if not m:
                    break
                parts.append(m[0])
                i = m.end()
            i = self._skip_ws(i)
            if i < n and text[i] == ".":
                i += 1
                continue
            break
        return parts, i

    def _skip_ws(self, i: int, *, newlines: bool = False, comments: bool = False) -> int:
        text, n = self.text, len(self.text)
        while i < n:
            c = text[i]
            if c in " \t\r" or (newlines and c == "\n"):
                i += 1
            elif comments and c == "#":
                i = self._eol(i)
            else:
                break
        return i

    def _eol(self, i: int) -> int:
        """Skip to the end of the line (past a trailing value or comment)."""
        end = self.text.find("\n", i)
        return len(self.text) if end < 0 else end + 1


# --- validation messages ---------------------------------------------------------------

_MSGSPEC = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def _parse_path(text: str) -> _KeyPath:
    return tuple(m[1] if m[1] is not None else int(m[2]) for m in _PATH_PART.finditer(text))


def _dotted(path: _KeyPath) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out or "the top level"


def _table_name(path: _KeyPath) -> str:
    if not path:
        return "the top level"
    if path[-1:] and isinstance(path[-1], int):
        return f"[[{_dotted(path[:-1])}]] #{path[-1] + 1}"
    return f"[{_dotted(path)}]"


def _unwrap(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _pick(tp: Any, node: Any) -> Any:
    """Unwrap Annotated, and choose the member of a union (a stage by its kind)."""
    tp = _unwrap(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        kind = node.get("kind") if isinstance(node, dict) else None
        tagged = [a for a in args if isinstance(a, type) and issubclass(a, _Stage)
                  and a.__struct_config__.tag == kind]
        # a table or an array of them ([output] / [[output]]): by what the node is
        shaped = [a for a in args if (typing.get_origin(a) is list) == isinstance(node, list)]
        if not tagged and len(args) == 2 and len(shaped) == 1:
            tagged = shaped
        tp = _unwrap(tagged[0] if tagged else (args[0] if len(args) == 1 else tp))
    return tp


def _struct_at(path: _KeyPath, data: Any) -> Any:
    """The annotated type at ``path`` (a Struct class, list[...], Literal ...), or None."""
    tp: Any = PipelineConfig
    node = data
    for p in path:
        tp = _pick(tp, node)
        if isinstance(p, int):
            if typing.get_origin(tp) is not list:
                return None
            tp = typing.get_args(tp)[0]
        else:
            if not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
                return None
            hints = typing.get_type_hints(tp, include_extras=True)
            if p not in hints:
                return None
            tp = hints[p]
        node = _child(node, p)
    return _pick(tp, node) if path else tp


def _child(node: Any, p: str | int) -> Any:
    """``node[p]`` of a TOML table or array that has ``p``, else None (TOML has no null)."""
    if isinstance(node, dict):
        return node.get(p)
    if isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node):
        return node[p]
    return None


def _describe(tp: Any) -> str:
    tp = _unwrap(tp)
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if all(isinstance(a, type) and issubclass(a, _Stage) for a in args):
            return "a table with a kind"
        return " or ".join(_describe(a) for a in args)
    if origin is list:
        inner = _describe(typing.get_args(tp)[0])
        plural = {"an integer": "integers", "a string": "strings",
                  "a string or an integer": "strings or integers",
                  "a number": "numbers", "a table with a kind": "[[tables]] with a kind"}
        return f"an array of {plural.get(inner, inner)}"
    if origin is dict:
        return "a table"
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    names = {int: "an integer", str: "a string", float: "a number", bool: "true or false"}
    if tp in names:
        return names[tp]
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return "a table"
    return str(tp)


_GOT = {"str": "a string", "int": "an integer", "float": "a number (float)",
        "bool": "a boolean", "array": "an array", "object": "a table",
        "datetime": "a date-time", "date": "a date", "time": "a time", "null": "nothing"}


def _fields_of(tp: Any) -> list[str]:
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return [f for f in tp.__struct_fields__ if not (issubclass(tp, _Stage) and f == "kind")]
    return []


def _validation_message(raw: str, data: Any, loc: _Locator) -> str:
    m = _MSGSPEC.match(raw)
    assert m is not None                     # the pattern matches any string
    msg, path = m["msg"], _parse_path(m["path"] or "")
    dotted = _dotted(path)

    if mm := re.match(r"Object contains unknown field `(.*)`$", msg, re.S):
        key = mm[1]
        tp = _struct_at(path, data)
        valid = _fields_of(tp)
        hint = _suggest(key, valid) or (f" (valid keys: {', '.join(valid)})" if valid else "")
        fix = "remove it or fix its spelling"
        if not path and key in RENAMED_KEYS:
            new, meaning = RENAMED_KEYS[key]
            return (f"{loc.where((key,), key=True)}: {key!r} was renamed {new!r} ({meaning});"
                    f" write {new} = ...")
        if path and key in PipelineConfig.__struct_fields__:
            fix = f"{key!r} is a top-level key: put it before the first [table]"
        return (f"{loc.where((*path, key), key=True)}: unknown key {key!r} in "
                f"{_table_name(path)}{hint}; {fix}")
    if mm := re.match(r"Object missing required field `(.*)`$", msg, re.S):
        key = mm[1]
        if key == "kind":
            return (f"{loc.where(path)}: {_table_name(path)} has no kind; add kind = one of "
                    + ", ".join(repr(k) for k in stage_kinds()))
        how = f"add a [{_dotted((*path, key))}] table" if key == "target" else f"add {key} = ..."
        return f"{loc.where(path)}: missing required key {key!r} in {_table_name(path)}; {how}"
    if path and path[-1] == "kind" and len(path) >= 2 and isinstance(path[-2], int):
        value = _get(data, path)
        if mm := re.match(r"Invalid value '(.*)'$", msg, re.S):
            value = mm[1]
        return (f"{loc.where(path)}: unknown stage kind {value!r}"
                + (_suggest(str(value), stage_kinds()) or "")
                + "; valid kinds: " + ", ".join(repr(k) for k in stage_kinds()))
    if mm := re.match(r"Invalid enum value '?(.*?)'?$", msg, re.S):
        value = mm[1]
        tp = _unwrap(_struct_at(path, data))
        choices = [str(a) for a in typing.get_args(tp)] if typing.get_origin(tp) is Literal else []
        return (f"{loc.where(path)}: invalid value {value!r} for {dotted}"
                + (_suggest(value, choices) or "")
                + (f"; expected one of {', '.join(repr(c) for c in choices)}" if choices else ""))
    if mm := re.match(r"Expected `([^`]*)`, got `([^`]*)`$", msg, re.S):
        tp = _struct_at(path, data)
        want = _describe(tp) if tp is not None else mm[1]
        got = _GOT.get(mm[2], mm[2])
        return f"{loc.where(path)}: expected {want} at {dotted}, got {got}"
    if mm := re.match(r"Expected `([^`]*)` (.*)$", msg, re.S):
        kind = {"int": "an integer", "float": "a number"}.get(mm[1], mm[1])
        return f"{loc.where(path)}: {dotted} must be {kind} {mm[2]}, got {_get(data, path)!r}"
    return f"{loc.where(path)}: {msg}" + (f" at {dotted}" if path else "")


def _get(data: Any, path: _KeyPath) -> Any:
    node = data
    for p in path:
        node = _child(node, p)
    return node


def _suggest(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- checks msgspec cannot express -----------------------------------------------------

_USE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


_TARGET_KEYS = ("command", "pid", "tid", "system_wide", "cgroup")


def _chosen_targets(t: TargetConfig) -> list[str]:
    return [k for k, on in (("command", t.command is not None), ("pid", bool(t.pid)),
                            ("tid", bool(t.tid)), ("system_wide", t.system_wide),
                            ("cgroup", t.cgroup is not None)) if on]


def check_target(t: TargetConfig, *, where: Callable[[str | None], str] | None = None
                 ) -> None:
    """Exactly one target is set.

    Args:
      where: ``key -> "file:line:col"`` (None: the table), to start the message with.

    Raises:
      ConfigError: none or several of command, pid, tid, system_wide, cgroup.
    """
    chosen = _chosen_targets(t)
    if len(chosen) == 1:
        return
    def at(key: str | None) -> str:
        return f"{where(key)}: " if where is not None else ""

    if not chosen:
        raise ConfigError(f"{at(None)}[target] needs exactly one of command, pid, tid, "
                          "system_wide, cgroup; none is set (or give one on the command "
                          "line: -- COMMAND, -p PID, -t TID, -a, -G CGROUP)")
    raise ConfigError(f"{at(chosen[1])}[target] needs exactly one of command, pid, tid, "
                      f"system_wide, cgroup; got {' and '.join(chosen)}: keep one")


def _check(cfg: PipelineConfig, data: dict[str, Any], loc: _Locator, *,
           need_target: bool = True) -> None:
    t = cfg.target
    if need_target or _chosen_targets(t):
        check_target(t, where=lambda key: loc.where(("target",) if key is None
                                                    else ("target", key), key=key is not None))
    if t.command is not None and (not t.command or not t.command[0]):
        raise ConfigError(f"{loc.where(('target', 'command'))}: target.command is empty; "
                          'give the program and its arguments, e.g. ["ls", "-l", "/"]')
    for i, arg in enumerate(t.command or ()):
        if "\0" in arg:   # execve(2) takes C strings: the argument would end there
            raise ConfigError(f"{loc.where(('target', 'command', i))}: target.command[{i}] "
                              "holds a NUL byte (\\u0000), which no program argument can")
    _check_output_tables(cfg, data, loc)
    if cfg.buffer_pages & (cfg.buffer_pages - 1):
        up = 1 << cfg.buffer_pages.bit_length()
        raise ConfigError(f"{loc.where(('buffer_pages',))}: buffer_pages must be a power of 2 "
                          f"(the ring buffer size in 4 KiB pages), got {cfg.buffer_pages}; "
                          f"try {up >> 1} or {up}")
    for i, stage in enumerate(cfg.stage):
        if isinstance(stage, UserStageConfig) and not _USE.match(stage.use):
            raise ConfigError(f"{loc.where(('stage', i, 'use'))}: use = {stage.use!r} must "
                              'be "package.module:Name"')
    if cfg.filter.syscalls:
        # each distinct item resolved once, and its position found only when it is wrong
        # (finding a position counts lines: once per item would be quadratic)
        if len(cfg.filter.syscalls) > MAX_SYSCALL_ITEMS:
            raise ConfigError(f"{loc.where(('filter', 'syscalls', MAX_SYSCALL_ITEMS))}: "
                              f"filter.syscalls has {len(cfg.filter.syscalls)} entries, more "
                              f"than {MAX_SYSCALL_ITEMS}; select many at once with a class "
                              '("%file") or a glob ("*stat*")')
        table = SyscallTable()
        seen: set[str | int] = set()
        for i, item in enumerate(cfg.filter.syscalls):
            if item in seen:
                continue
            seen.add(item)
            try:
                neg = isinstance(item, str) and item.strip().startswith("!")
                resolve_item(item.strip()[1:] if neg and isinstance(item, str) else item, table)
            except ConfigError as e:
                raise ConfigError(f"{loc.where(('filter', 'syscalls', i))}: {e}") from None
        resolve_syscalls(cfg.filter.syscalls, table, where=loc.where(("filter", "syscalls")))
    _check_selection(cfg, loc)


def _check_selection(cfg: PipelineConfig, loc: _Locator) -> None:
    """The [filter] status, errno, signal, path keys and [target] cgroup, located."""
    from tracekit.app.selection import (
        check_cgroup,
        check_format_keys,
        recorded_statuses,
        session_selection,
    )
    from tracekit.kernel.selection import resolve_errnos, resolve_signals

    f = cfg.filter
    for key, resolve in (("errno", resolve_errnos), ("signal", resolve_signals)):
        items = getattr(f, key)
        for i, item in enumerate(items):
            resolve([item], where=loc.where(("filter", key, i)))
    for i, p in enumerate(f.path):
        if not p or "\0" in p:
            raise ConfigError(f"{loc.where(('filter', 'path', i))}: filter.path[{i}] must "
                              "be a non-empty path")
    if f.status:
        recorded_statuses(f.status, loc.where(("filter", "status")))
    if cfg.target.cgroup == "":
        raise ConfigError(f"{loc.where(('target', 'cgroup'))}: target.cgroup is empty; give "
                          "a cgroup v2 directory")
    if cfg.target.cgroup is not None:
        check_cgroup(cfg.target.cgroup, where=loc.where(("target", "cgroup")))
    session_selection(f, cfg.target, where=loc.where(("filter",)))
    listed = isinstance(cfg.output, list)
    check_format_keys(cfg, where=lambda key: loc.where(("filter", key)),
                      where_output=lambda i, key: loc.where(
                          ("output", i, key) if listed else ("output", key)))


# --- outputs ---------------------------------------------------------------------------

def output_name(cfg: PipelineConfig, i: int) -> str:
    """How messages name output ``i``: ``[output]`` when there is one, else
    ``[[output]] #<i+1>``."""
    return "[output]" if not isinstance(cfg.output, list) else f"[[output]] #{i + 1}"


def foreign_key_message(name: str, fmt: str, key: str) -> str:
    """``<name> <key> is a key of format "summary": format = "perf" ignores it; ...``."""
    from tracekit.formatters._spec import formats_taking

    takers = formats_taking(key)
    which = " or ".join(f'"{f}"' for f in takers)
    return (f"{name} {key} is a key of format {which}: format = \"{fmt}\" ignores it; drop "
            f"it, or set format = {which}")


def _check_output_tables(cfg: PipelineConfig, data: dict[str, Any], loc: _Locator) -> None:
    """Each output's keys belong to its format; the outputs can run together."""
    from tracekit.formatters._spec import format_spec

    raw = data.get("output", {})
    listed = isinstance(raw, list)
    outs = cfg.outputs

    def at(i: int, key: str | None = None, *, as_key: bool = False) -> str:
        path: _KeyPath = ("output", i) if listed else ("output",)
        return loc.where((*path, key) if key is not None else path, key=as_key)

    if not outs:
        raise ConfigError(f"{loc.where(('output',))}: output = [] names no output; give an "
                          "[output] table or [[output]] tables")
    for i, o in enumerate(outs):
        if "\0" in o.path:
            raise ConfigError(f"{at(i, 'path')}: output.path holds a NUL byte (\\u0000), "
                              "which no file name can")
        entry = raw[i] if listed else raw
        allowed = {"format", "path", *format_spec(o.format).options.__struct_fields__}
        for key in entry:
            if key not in allowed:
                raise ConfigError(f"{at(i, key, as_key=True)}: "
                                  + foreign_key_message(output_name(cfg, i), o.format, key))
    check_outputs(cfg, where=lambda i, key: at(i, key))


def check_outputs(cfg: PipelineConfig, *,
                  where: Callable[[int, str | None], str] | None = None) -> None:
    """The outputs of ``cfg`` can run together in one trace.

    Args:
      where: ``(output index, key) -> "file:line:col"`` to start a message with.

    Raises:
      ConfigError: two outputs write one file; two outputs print to one standard stream
        while the trace runs (their lines would interleave); text outputs that decode
        differently (decoding runs once for all); a summary counted in the kernel
        (``mode = "kernel"``) with ``[[stage]]`` tables, which would see no calls.
    """
    from tracekit.formatters._output import std_stream_of
    from tracekit.formatters._spec import format_spec

    outs = cfg.outputs

    def at(i: int, key: str | None = None) -> str:
        return f"{where(i, key)}: " if where is not None else ""

    def name(i: int) -> str:
        return output_name(cfg, i)

    files: dict[str, int] = {}
    streaming: dict[int, int] = {}
    for i, o in enumerate(outs):
        spec = format_spec(o.format)
        problem = spec.problem(spec.options_of(o))
        if problem is not None:
            raise ConfigError(f"{at(i, problem[0])}{name(i)}: {problem[1]}")
        std = std_stream_of(o.path)
        if std is None:
            key = os.path.normpath(os.path.abspath(o.path)) if o.path else ""
            if key in files:
                raise ConfigError(f"{at(i, 'path')}{name(files[key])} and {name(i)} both "
                                  f"write {o.path!r}: give each output its own file")
            files[key] = i
        elif not spec.at_end(spec.options_of(o)):
            if std in streaming:
                stream = "standard output" if std == 1 else "standard error"
                raise ConfigError(f"{at(i, 'path')}{name(streaming[std])} and {name(i)} both "
                                  f"print to {stream} while the trace runs: their lines "
                                  "would interleave; give one of them a file")
            streaming[std] = i
        if o.format == "summary" and getattr(o, "mode", None) == "kernel" and cfg.stage:
            raise ConfigError(f'{at(i, "mode")}{name(i)} mode = "kernel" counts the calls in '
                              "BPF maps before any stage runs: the [[stage]] tables would "
                              'see none of them; use mode = "stream" (or "auto")')
    texts = [(i, o) for i, o in enumerate(outs) if o.format in ("perf", "strace")]
    if len(texts) > 1 and any(o.format == "perf" for _, o in texts):
        first_i, first = texts[0]
        for i, o in texts[1:]:
            for key in ("fd_paths", "string_limit", "verbose"):
                if getattr(o, key) != getattr(first, key):
                    raise ConfigError(
                        f"{at(i, key)}{name(first_i)} and {name(i)} print calls decoded "
                        f"once for both, so their {key} must agree (got "
                        f"{getattr(first, key)!r} and {getattr(o, key)!r})")


# --- the effective pipeline as TOML ------------------------------------------------------

def field_default(f: msgspec.structs.FieldInfo) -> Any:
    """A Struct field's default (a list default is a ``default_factory`` in msgspec's
    field info), or ``msgspec.NODEFAULT``."""
    if f.default is not msgspec.NODEFAULT:
        return f.default
    if f.default_factory is not msgspec.NODEFAULT:
        return f.default_factory()
    return msgspec.NODEFAULT


def _set_keys(struct: msgspec.Struct, keep: Callable[[str], bool] = lambda k: True
              ) -> dict[str, Any]:
    """The fields of ``struct`` that differ from their defaults, as TOML values (None,
    which TOML cannot write, is left out: it is every such field's default)."""
    out: dict[str, Any] = {}
    for f in msgspec.structs.fields(struct):
        value = getattr(struct, f.name)
        if value is None or not keep(f.name) or value == field_default(f):
            continue
        out[f.name] = _builtins(value)
    return out


def _builtins(value: Any) -> Any:
    """``value`` as TOML can hold it: Structs and containers as tables and arrays, with
    None (unset) left out."""
    built = msgspec.to_builtins(value)

    def drop_none(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: drop_none(x) for k, x in v.items() if x is not None}
        if isinstance(v, list):
            return [drop_none(x) for x in v]
        return v
    return drop_none(built)


def dump_config(cfg: PipelineConfig, *, header: str = "") -> str:
    """``cfg`` as pipeline.toml text: ``decode_config`` of it gives a config that traces
    the same (the same target, filter, stages, outputs and limits).

    Keys left at their defaults are left out, but for ``[target]``'s target and each
    output's ``format`` and ``path``; an output gets only its own format's keys. One
    output is an ``[output]`` table, several are ``[[output]]`` tables.

    Args:
      header: comment lines to put first (each starting with ``#``).
    """
    from tracekit.formatters._spec import format_spec

    doc: dict[str, Any] = {}
    doc.update(_set_keys(cfg, lambda k: k not in ("target", "filter", "stage", "output")))
    doc["target"] = _set_keys(cfg.target)
    filt = _set_keys(cfg.filter)
    if filt:
        doc["filter"] = filt
    if cfg.stage:
        doc["stage"] = [_builtins(st) for st in cfg.stage]
    outs = []
    for o in cfg.outputs:
        taken = set(format_spec(o.format).options.__struct_fields__)
        outs.append({"format": o.format, "path": o.path,
                     **_set_keys(o, taken.__contains__)})
    doc["output"] = outs[0] if len(outs) == 1 else outs
    _refuse_bytes(doc)
    text = _toml(doc)
    return (header.rstrip("\n") + "\n\n" if header else "") + text


def _refuse_bytes(value: Any, where: str = "") -> None:
    """Raise for a string that holds bytes that are not UTF-8 (an argument or path from
    the command line, kept as surrogate escapes): TOML holds text only, and the byte
    written as it is would make a file that :func:`load_config` refuses.

    Raises:
      ConfigError: naming the key (``target.command[1]``) and the first such byte.
    """
    if isinstance(value, dict):
        for k, v in value.items():
            _refuse_bytes(v, f"{where}.{k}" if where else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _refuse_bytes(v, f"{where}[{i}]")
    elif isinstance(value, str):
        bad = next((ord(c) - 0xDC00 for c in value if 0xDC80 <= ord(c) <= 0xDCFF), None)
        if bad is not None:
            raise ConfigError(f"--dump-config: {where} is not UTF-8 (byte {bad:#04x}), "
                              "which a TOML file cannot hold; give it as UTF-8 text, or "
                              "run the options without --dump-config")


def _toml(doc: dict[str, Any]) -> str:
    """``doc`` as TOML in the layout of a hand-written pipeline file: top-level keys, then
    each table (an array of tables as ``[[name]]`` headers), arrays on one line. Values
    and keys are written by tomli_w (its escapes); a table inside an array element is
    written as ``[name.sub]`` after it, which TOML attaches to that element."""
    import tomli_w

    def key(k: str) -> str:
        return tomli_w.dumps({k: 0}).rsplit(" = ", 1)[0]

    def literal(v: Any) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(literal(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{key(k)} = {literal(x)}" for k, x in v.items()) + " }"
        return tomli_w.dumps({"v": v})[len("v = "):].rstrip("\n")

    def body(table: dict[str, Any], name: str) -> str:
        lines = [f"{key(k)} = {literal(v)}" for k, v in table.items()
                 if not isinstance(v, dict)]
        subs = "".join(tomli_w.dumps({name: {k: v}}) for k, v in table.items()
                       if isinstance(v, dict))
        return "".join(f"{line}\n" for line in lines) + (f"\n{subs}" if subs else "")

    top = {k: v for k, v in doc.items() if not isinstance(v, dict | list)}
    parts = [body(top, "")] if top else []
    for name, v in doc.items():
        if isinstance(v, dict):
            parts.append(f"[{key(name)}]\n" + body(v, name))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            parts += [f"[[{key(name)}]]\n" + body(x, name) for x in v]
    return "\n".join(parts)
