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


def test_the_notebook_extra_installs_what_the_notebook_module_imports() -> None:
    # tracekit.notebook's docstring and examples/notebook.ipynb say
    # `pip install 'tracekit[notebook]'` gives matplotlib (plot) and polars (to_polars)
    import ast

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["notebook"]
    names = {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in extras}
    tree = ast.parse((REPO / "tracekit" / "notebook.py").read_text())
    lazy = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    lazy |= {a.name.split(".")[0] for a in sub.names}
                elif isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                    lazy.add(sub.module.split(".")[0])
    optional = {m for m in lazy if m not in ("tracekit", "trio", "msgspec", "asyncio")}
    assert optional >= {"matplotlib", "polars"}
    assert optional - names == set()
