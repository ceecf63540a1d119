"""``python -m tracekit`` does not import user stages from the current directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_cwd_module_is_not_importable_as_a_user_stage(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text("import sys\nsys.exit('planted code ran')\n")
    cfg = tmp_path / "p.toml"
    cfg.write_text('[target]\ncommand = ["true"]\n[[stage]]\nkind = "user"\n'
                   'use = "planted:Stage"\n')
    cfg.chmod(0o644)
    tmp_path.chmod(0o755)
    r = subprocess.run([sys.executable, "-m", "tracekit", "check", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert "planted code ran" not in r.stderr
    assert r.returncode == 2 and "cannot import 'planted'" in r.stderr, r.stderr
    # naming the directory on PYTHONPATH is the way to use a stage from there
    r = subprocess.run([sys.executable, "-m", "tracekit", "check", str(cfg)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert "planted code ran" in r.stderr


def test_version_answers_without_importing_the_output_formats() -> None:
    """``tracekit --version`` is asked by scripts and package checks: it prints what the
    parser's --version prints and imports no output format (their imports, trio's among
    them, took most of its 0.4 s)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "tracekit", "--version"],
                       capture_output=True, text=True, timeout=60)
    from tracekit._version import __version__

    assert r.returncode == 0 and r.stdout == f"tracekit {__version__}\n", r
    imported = {line.split("|")[-1].strip() for line in r.stderr.splitlines()}
    assert "tracekit.formatters" not in imported and "trio" not in imported, sorted(imported)
    # with another argument the parser answers, with the same text
    r = subprocess.run([sys.executable, "-m", "tracekit", "--version", "run"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == f"tracekit {__version__}\n", r
