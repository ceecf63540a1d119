"""Build pipeline stages from a pipeline file's ``[[stage]]`` tables, by kind.

The kinds are those of ``tracekit.app.config.StageConfig``. A built-in kind's config
Struct is defined in its stage module under ``tracekit.pipeline``, next to that module's
``from_config(cfg) -> Stage``, so the module that builds a table's stage is the one that
defines its Struct. ``kind = "user"`` imports a stage of your own. (Output formats are the
formatters' own: ``tracekit.formatters.FORMATS`` and ``format_spec``.)
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tracekit._errors import ConfigError
from tracekit.app.config import UserStageConfig, stage_configs, stage_position
from tracekit.pipeline._stage import StageConfigBase


def stage_modules() -> dict[str, ModuleType]:
    """Built-in ``kind`` -> the ``tracekit.pipeline`` module that defines it, in listing
    order."""
    return {kind: importlib.import_module(cls.__module__)
            for kind, cls in stage_configs().items() if cls is not UserStageConfig}


def available_stage_kinds() -> list[str]:
    """Every ``[[stage]] kind``, in listing order (``user`` last)."""
    return list(stage_configs())


# what the user's module or stage may raise that is not an error of theirs to report:
# Ctrl-C (the run's own handling); anything else, SystemExit and bare BaseExceptions
# included, is one line naming the stage
_NOT_THEIRS = (KeyboardInterrupt, GeneratorExit)


def _import_user_stage(use: str, options: dict[str, Any], index: int) -> Any:
    mod_name, _, attr = use.partition(":")
    if not mod_name or not attr:
        raise ConfigError(f"stage[{index}]: use = {use!r} must look like 'package.module:Name'")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as e:
        raise ConfigError(f"stage[{index}]: cannot import {mod_name!r}: {e}") from e
    except _NOT_THEIRS:
        raise
    except BaseException as e:  # the module's own code raised (or exited)
        raise ConfigError(f"stage[{index}]: cannot import {mod_name!r}: "
                          f"{type(e).__name__}: {e}") from e
    try:
        factory = getattr(mod, attr)
    except AttributeError:
        raise ConfigError(f"stage[{index}]: {mod_name!r} has no {attr!r}") from None
    except _NOT_THEIRS:
        raise
    except BaseException as e:  # a module __getattr__ of the user's raised (or exited)
        raise ConfigError(f"stage[{index}]: {use}: {type(e).__name__}: {e}") from e
    if not callable(factory):
        raise ConfigError(f"stage[{index}]: {use!r} is a {type(factory).__name__}, not a "
                          "class or function that makes a stage")
    try:
        made = factory(**options)
    except TypeError as e:
        raise ConfigError(f"stage[{index}] {use}: bad options: {e}") from e
    except _NOT_THEIRS:
        raise
    except BaseException as e:  # the user's code: report it as theirs, with its type
        raise ConfigError(f"stage[{index}] {use}: building the stage failed: "
                          f"{type(e).__name__}: {e}") from e
    try:
        is_stage = isinstance(getattr(made, "name", None), str) and callable(
            getattr(made, "run", None))
    except _NOT_THEIRS:
        raise
    except BaseException as e:  # a property of the user's raised
        raise ConfigError(f"stage[{index}] {use}: building the stage failed: "
                          f"{type(e).__name__}: {e}") from e
    if not is_stage:
        raise ConfigError(f"stage[{index}] {use}: {made!r} is not a stage: it needs a "
                          "`name` (str) and `async def run(ctx, recv, send)`")
    return made


def build_stages(entries: Sequence[StageConfigBase], *, facts: Any = None,
                 source: Path | None = None) -> list[Any]:
    """Stage objects for the config's ``[[stage]]`` entries, in order.

    Args:
      facts: the trace's :class:`~tracekit.kernel.facts.Facts` (a recording's or a
        replay's), given to each built-in ``from_config`` that takes ``facts``; None:
        they read the running system.
      source: the pipeline file the entries came from: an error then starts with the
        stage's ``file:line:col``.

    Raises:
      ConfigError: a user stage cannot be imported or built.
    """
    stages = []
    for i, entry in enumerate(entries):
        if isinstance(entry, UserStageConfig):
            try:
                stages.append(_import_user_stage(entry.use, dict(entry.options), i))
            except ConfigError as e:
                where = stage_position(source, i) if source is not None else None
                if where is None:
                    raise
                raise ConfigError(f"{where}: {e}") from e.__cause__
            continue
        from_config = importlib.import_module(type(entry).__module__).from_config
        if facts is not None and "facts" in inspect.signature(from_config).parameters:
            stages.append(from_config(entry, facts=facts))
        else:
            stages.append(from_config(entry))
    return stages
