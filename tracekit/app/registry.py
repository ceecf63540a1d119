"""Build pipeline stages from a pipeline file, by kind name.

Built-in stage kinds live in ``tracekit.pipeline.<module>`` and each provides
``from_config(cfg: <Kind>Config) -> Stage``. A kind whose module is not there yet is
reported as not available in this version. (Output formats are the formatters' own:
``tracekit.formatters.FORMATS`` and ``format_spec``.)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tracekit._errors import ConfigError

#: stage kind -> module under tracekit.pipeline that provides from_config()
STAGE_MODULES = {
    "reenumerate": "reenumerate",
    "evict": "evict",
    "reconcile": "reconcile",
    "beautify": "beautify",
    "summarize": "summarize",
}
def _builtin(package: str, module: str, attr: str) -> Callable[..., Any] | None:
    try:
        mod = importlib.import_module(f"{package}.{module}")
    except ModuleNotFoundError as e:
        if e.name == f"{package}.{module}":
            return None
        raise
    return getattr(mod, attr, None)


def available_stage_kinds() -> list[str]:
    kinds = [k for k, m in STAGE_MODULES.items()
             if _builtin("tracekit.pipeline", m, "from_config") is not None]
    return [*kinds, "user"]


def _import_user_stage(use: str, options: dict[str, Any], index: int) -> Any:
    mod_name, _, attr = use.partition(":")
    if not mod_name or not attr:
        raise ConfigError(f"stage[{index}]: use = {use!r} must look like 'package.module:Name'")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as e:
        raise ConfigError(f"stage[{index}]: cannot import {mod_name!r}: {e}") from e
    try:
        factory = getattr(mod, attr)
    except AttributeError:
        raise ConfigError(f"stage[{index}]: {mod_name!r} has no {attr!r}") from None
    if not callable(factory):
        raise ConfigError(f"stage[{index}]: {use!r} is a {type(factory).__name__}, not a "
                          "class or function that makes a stage")
    try:
        made = factory(**options)
    except TypeError as e:
        raise ConfigError(f"stage[{index}] {use}: bad options: {e}") from e
    except Exception as e:  # the user's code: report it as theirs, with its type
        raise ConfigError(f"stage[{index}] {use}: building the stage failed: "
                          f"{type(e).__name__}: {e}") from e
    if not isinstance(getattr(made, "name", None), str) or not callable(
            getattr(made, "run", None)):
        raise ConfigError(f"stage[{index}] {use}: {made!r} is not a stage: it needs a "
                          "`name` (str) and `async def run(ctx, recv, send)`")
    return made


def build_stages(entries: list[Any]) -> list[Any]:
    """Stage objects for the config's ``[[stage]]`` entries, in order.

    Raises:
      ConfigError: a user stage cannot be imported or built, or a built-in stage kind is
        not available in this version.
    """
    stages = []
    for i, entry in enumerate(entries):
        kind = type(entry).__struct_config__.tag  # the TOML `kind = "..."`
        if kind == "user":
            stages.append(_import_user_stage(entry.use, dict(entry.options), i))
            continue
        factory = _builtin("tracekit.pipeline", STAGE_MODULES.get(kind, kind), "from_config")
        if factory is None:
            raise ConfigError(f"stage[{i}]: kind {kind!r} is not available in this version "
                              f"(available: {', '.join(available_stage_kinds())})")
        stages.append(factory(entry))
    return stages
