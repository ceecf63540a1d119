"""The version of tracekit (the distribution's, pyproject.toml; a test checks they agree)."""

__version__ = "0.1.0"
