"""Imports run one way, down the layers: front ends -> formatters -> pipeline -> session ->
decoding -> kernel facts -> kernel interface (docs/architecture.md).

Every ``import``/``from ... import`` in product code is read (at any depth: inside functions
and ``if TYPE_CHECKING:`` blocks too, since a type is a dependency as well) and checked
against the layer table below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: package folder in the repository -> its import name
PACKAGES = {"tracekit": "tracekit", "pipeline": "tracekit.pipeline",
            "formatters": "tracekit.formatters"}

#: module prefix -> layer, bottom (0) to top; the longest matching prefix wins
LAYERS = {
    "tracekit._errors": 0,
    "tracekit._events": 0,
    "tracekit._version": 0,
    "tracekit._meta": 0,  # sets __module__ of re-exported names; imports nothing of ours
    "tracekit._stdio": 0,  # standard output's write errors: stdlib and _errors only
    "tracekit._inherited_fds": 0,  # the fds the command started with: stdlib only
    "tracekit._early_signals": 0,  # signals noted while tracekit strace starts: stdlib
    "tracekit.bpf": 1,
    "tracekit.kernel": 2,
    "tracekit.decode": 3,
    "tracekit._summary": 3,
    "tracekit.session": 4,
    "tracekit.pipeline": 5,
    "tracekit.formatters": 6,
    "tracekit.app": 7,
    "tracekit.notebook": 8,
    "tracekit.lowlevel": 8,
    "tracekit.__main__": 8,
    "tracekit": 8,  # the package itself: the public re-exports
}


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def product_modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for folder, pkg in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts
                     if p != "__init__"]
            mods[".".join([pkg, *parts])] = path
    return mods


def imports_of(module: str, path: Path) -> set[str]:
    """Absolute names of the tracekit modules ``path`` imports."""
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            # ``from tracekit import x`` may name a submodule
            found.update(f"{target}.{a.name}" for a in node.names
                         if f"{target}.{a.name}" in product_modules())
    return {m for m in found if m == "tracekit" or m.startswith("tracekit.")}


def upward_edges() -> list[str]:
    edges = []
    for module, path in sorted(product_modules().items()):
        here = layer(module)
        for dep in sorted(imports_of(module, path)):
            if dep in (module, "tracekit") and module.startswith("tracekit"):
                # the package import itself (``from tracekit import __version__``) is
                # allowed only from the top layer
                if dep == "tracekit" and here < LAYERS["tracekit"]:
                    edges.append(f"{module} (layer {here}) -> tracekit")
                continue
            if layer(dep) > here:
                edges.append(f"{module} (layer {here}) -> {dep} (layer {layer(dep)})")
    return edges


def test_every_module_has_a_layer() -> None:
    assert product_modules(), "no product modules found"
    for module in product_modules():
        assert layer(module) >= 0


def test_imports_run_down_the_layers() -> None:
    assert upward_edges() == []


def test_the_checker_sees_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "tracekit" / "bpf" / "sys.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("def f():\n    from tracekit.app.cli import main\n")
    assert imports_of("tracekit.bpf.sys", fake) == {"tracekit.app.cli"}
    assert layer("tracekit.bpf.sys") < layer("tracekit.app.cli")
