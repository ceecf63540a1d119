"""nox sessions: tests, lint, programs (rebuild BPF objects), bench."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]
nox.options.default_venv_backend = "venv"


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite (kernel tests need root)."""
    session.install("-e", ".[test]")
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff on every Python file; mypy --strict (pyproject's [tool.mypy]) on the package."""
    # mypy reads the dependencies' types from this venv (the extras: notebook.py uses
    # matplotlib and polars); the editable install of tracekit itself is invisible to it
    # (an import hook), scripts/typecheck.py gives it the layout
    session.install("-e", ".[notebook,polars]", "ruff", "mypy")
    session.run("ruff", "check", "tracekit", "pipeline", "formatters", "tests", "bench",
                "examples", "scripts", "noxfile.py")
    session.run("python", "scripts/typecheck.py", *session.posargs)


@nox.session(python=False)
def programs(session: nox.Session) -> None:
    """Rebuild the BPF objects and manifests of programs/ and tests/data/programs/.

    Needs clang, llvm and libbpf-dev (apt-get install clang llvm libbpf-dev).
    """
    session.run("python3", "scripts/build_programs.py", *session.posargs)


@nox.session(python=False)
def bench(session: nox.Session) -> None:
    """Benchmarks: figures and ratios against peers measured in the same run (root)."""
    session.run("python3", "-m", "pip", "install", "-q", "-e", ".[test]")
    session.run("python3", "bench/run.py", *session.posargs)
