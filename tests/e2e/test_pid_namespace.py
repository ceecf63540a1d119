"""tracekit in a pid namespace of its own (``unshare --pid``) traced nothing and said
nothing: its BPF programs see the pids of the initial namespace, the pids it knows are
the namespace's. Now ``run`` refuses with one line saying why, and ``check`` says so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._run import TRACEKIT, die_with_parent, tracekit_env, write_pipeline
from tracekit.kernel.procfs import INIT_PID_NS_INO, foreign_pid_namespace

pytestmark = pytest.mark.kernel

UNSHARE = shutil.which("unshare")


def test_this_suite_runs_in_the_initial_pid_namespace() -> None:
    assert foreign_pid_namespace() is None
    assert Path("/proc/self/ns/pid").stat().st_ino == INIT_PID_NS_INO


def test_a_namespace_is_told_from_its_inode(tmp_path: Path) -> None:
    (tmp_path / "self" / "ns").mkdir(parents=True)
    (tmp_path / "self" / "ns" / "pid").write_text("")     # any other inode number
    said = foreign_pid_namespace(tmp_path)
    assert said is not None and said.startswith("tracekit runs in a pid namespace of its own")
    assert foreign_pid_namespace(tmp_path / "nowhere") is None    # cannot tell: no word


@pytest.mark.skipif(UNSHARE is None, reason="unshare (util-linux) is not installed")
@pytest.mark.parametrize("mount_proc", [True, False], ids=["own-proc", "host-proc"])
def test_run_in_a_pid_namespace_refuses_with_one_line(tmp_path: Path,
                                                      mount_proc: bool) -> None:
    assert UNSHARE is not None
    wrap = [UNSHARE, "--pid", "--fork", *(["--mount-proc"] if mount_proc else [])]
    r = subprocess.run([*wrap, *TRACEKIT, "run", "-o", str(tmp_path / "out"), "--", "true"],
                       capture_output=True, text=True, timeout=60, env=tracekit_env(),
                       preexec_fn=die_with_parent)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "tracekit: error: tracekit runs in a pid namespace of its own (pid:["), r.stderr
    assert "the initial pid namespace" in lines[0]
    assert not (tmp_path / "out").exists() or not (tmp_path / "out").read_text()


@pytest.mark.skipif(UNSHARE is None, reason="unshare (util-linux) is not installed")
def test_check_in_a_pid_namespace_fails_the_target(tmp_path: Path) -> None:
    assert UNSHARE is not None
    pipeline = write_pipeline(tmp_path, '[target]\ncommand = ["true"]\n')
    r = subprocess.run([UNSHARE, "--pid", "--fork", "--mount-proc", *TRACEKIT, "check",
                        str(pipeline)], capture_output=True, text=True, timeout=60,
                       env=tracekit_env(), preexec_fn=die_with_parent)
    assert r.returncode == 1, r.stdout + r.stderr
    (target,) = [ln for ln in r.stdout.splitlines() if ln.split()[:1] == ["target"]]
    assert target.split()[1] == "FAILED" and "pid namespace of its own" in target
