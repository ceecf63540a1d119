"""Build pipeline stages from the ``[[stage]]`` entries of a pipeline file."""

from __future__ import annotations

import importlib
from typing import Any

from tracekit._errors import ConfigError


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
    try:
        return factory(**options)
    except TypeError as e:
        raise ConfigError(f"stage[{index}] {use}: bad options: {e}") from e


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
        else:
            raise ConfigError(f"stage[{i}]: kind {kind!r} is not available in this version")
    return stages
