"""fd arguments strace -y decorates though the kernel's prototypes name them otherwise
(landlock's ruleset_fd), against strace 6.1 on ONE run of tests/workloads/fd_args.c."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_strace_ops import build, same_lines_one_run

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None,
                                 reason="strace is not installed")]


def test_landlock_fds_equal_strace_y_on_the_same_run(tmp_path: Path) -> None:
    lines = same_lines_one_run(build(tmp_path, "fd_args"), tmp_path, ("-y",))
    text = "\n".join(lines)
    assert "landlock_add_rule(3</dev/zero>, LANDLOCK_RULE_PATH_BENEATH, {" in text
    assert "parent_fd=3</dev/zero>}" in text
    assert "landlock_restrict_self(3</dev/zero>, 0)" in text
