"""Without a capability tracekit needs (CAP_BPF, CAP_PERFMON), the run fails with exit status
1 and one error line that names the missing capability and the errno.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import write_pipeline

pytestmark = pytest.mark.kernel

PY = sys.executable


@pytest.mark.parametrize(("drop", "says"), [
    ("cap_bpf,cap_perfmon,cap_sys_admin", "missing CAP_BPF"),
    ("cap_perfmon,cap_sys_admin", "missing CAP_PERFMON"),
])
def test_missing_capability_is_named(tmp_path: Path, drop: str, says: str) -> None:
    capsh = shutil.which("capsh")
    if capsh is None:
        pytest.skip("capsh (libcap2-bin) is not installed")
    pipeline = write_pipeline(tmp_path, """\
        [target]
        command = ["true"]
        [output]
        format = "jsonl"
        """)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    r = subprocess.run([capsh, f"--drop={drop}", "--", "-c",
                        f"exec {PY} -m tracekit run {pipeline}"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and says in r.stderr and "[Errno 1]" in r.stderr
