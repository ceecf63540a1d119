"""pyproject.toml lists its packages one by one: every package directory of the source
must be listed, or a wheel ships without it (an editable install would not notice)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_package_directory_is_listed() -> None:
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    dirs = {name: REPO / path for name, path in cfg["package-dir"].items()}
    found = set()
    for top, root in dirs.items():
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            found.add(".".join((top, *rel.parts)))
    assert found - listed == set()
    assert "tracekit.kernel.syscall_protos" in found
