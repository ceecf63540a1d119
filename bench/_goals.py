"""The goal lines every bench script prints: ``goal: WHAT: FIGURE; PEER: met|NOT met``.

``bench/run.py`` gathers them from every script's output into one list at the end of
``nox -s bench``. The peer is what the figure is compared with, measured in the same run
(another tool, the floor, the previous code) or the fixed target.
"""

from __future__ import annotations


def goal(what: str, figure: str, peer: str, met: bool) -> str:
    """Print and return one goal line."""
    line = f"goal: {what}: {figure}; {peer}: {'met' if met else 'NOT met'}"
    print(line, flush=True)
    return line
