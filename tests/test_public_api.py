"""The public API: every exported name imports and lives in tracekit; nothing else leaks."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import tracekit
import tracekit.formatters
import tracekit.pipeline


@pytest.mark.parametrize("mod", [tracekit, tracekit.pipeline, tracekit.formatters])
def test_all_names_import_from_tracekit(mod) -> None:
    assert mod.__all__, f"{mod.__name__} exports nothing"
    for name in mod.__all__:
        obj = getattr(mod, name)
        if isinstance(obj, type) or callable(obj) and not hasattr(obj, "__origin__"):
            assert obj.__module__.startswith("tracekit"), (name, obj.__module__)


@pytest.mark.parametrize("top", ["pipeline", "formatters", "programs"])
def test_no_generic_top_level_packages(top: str, tmp_path) -> None:
    """Only ``tracekit`` is installed: ``import pipeline`` fails outside the source tree."""
    r = subprocess.run([sys.executable, "-c", f"import {top}"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr, r.stderr
    assert importlib.import_module(f"tracekit.{top}").__name__ == f"tracekit.{top}"


def test_import_does_no_work() -> None:
    """``import tracekit`` starts no subprocess, reads no /proc, parses no BTF."""
    code = (
        "import sys, subprocess, builtins, trio, msgspec  # their own import-time work\n"
        "opened = []\n"
        "real_open = builtins.open\n"
        "builtins.open = lambda f, *a, **k: (opened.append(str(f)), real_open(f, *a, **k))[1]\n"
        "subprocess.Popen.__init__ = lambda *a, **k: sys.exit('subprocess at import')\n"
        "import tracekit, tracekit.pipeline, tracekit.formatters\n"
        "bad = [f for f in opened if f.startswith(('/proc', '/sys'))]\n"
        "assert not bad, bad\n"
        "btf = sys.modules.get('tracekit.bpf.btf')\n"
        "assert btf is None or not btf._vmlinux_cached.cache_info().currsize\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_version_matches_distribution() -> None:
    from importlib.metadata import version

    assert tracekit.__version__ == version("tracekit")
