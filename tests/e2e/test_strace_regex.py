"""``-e trace=/regex`` selects what strace 6.1 selects: the C library's POSIX extended
dialect, where Python's re reads some patterns otherwise (``p**``, ``\\d``, a lone ``)``,
``{2}?``) or refuses them, and the same patterns refused (``x{``, ``\\<*``).

Each pattern runs one shell command under strace and under ``tracekit strace``: the
names of the calls printed are the same set, or both refuse the pattern (exit 1).
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests._run import TRACEKIT, tracekit_env

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]

COMMAND = ["sh", "-c", "echo $$ $PPID $(id -u) > /dev/null"]
_NAME = re.compile(r"^(?:\[pid +\d+\] )?(\w+)\(", re.M)


def _names(tool: list[str], pattern: str) -> tuple[int, set[str]]:
    r = subprocess.run([*tool, "-f", "-qq", "-e", f"trace=/{pattern}", *COMMAND],
                       capture_output=True, text=True, timeout=60, env=tracekit_env())
    return r.returncode, set(_NAME.findall(r.stderr))


@pytest.mark.parametrize("pattern", [
    "getp**id",             # a repeat of a repeat: re refuses it
    r"^[rw][a-z]*\d",       # \d is a plain d: read, not wait4
    "^(get)?uid)?",         # a ) without its ( is itself
    "^getp[pi]{1}?id$",     # {1}? is a repeat, not re's lazy modifier
    "x{",                   # refused: Unmatched \{ (re reads it literally)
    r"\<*get",              # refused: a repeat of an anchor
])
def test_regex_selects_what_strace_selects(pattern: str) -> None:
    s_rc, s_names = _names(["strace"], pattern)
    t_rc, t_names = _names([*TRACEKIT, "strace"], pattern)
    if s_rc != 0:
        assert t_rc == 1, t_names
    else:
        assert t_rc == 0 and s_names, (s_rc, t_rc)
        assert t_names == s_names
