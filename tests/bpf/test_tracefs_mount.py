"""Finding tracefs: the mount, a missing one, and mounting it (in a private namespace)."""

from __future__ import annotations

import errno
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tracekit._errors import TracefsError
from tracekit.bpf.tracefs import _find_tracefs, find_tracefs


def test_find_tracefs_missing_without_mount(tmp_path: Path) -> None:
    with pytest.raises(TracefsError) as ei:
        _find_tracefs((tmp_path / "a", tmp_path / "b"), tmp_path / "a", mount_if_missing=False)
    assert ei.value.errno == errno.ENOENT
    assert "not mounted" in str(ei.value)


@pytest.mark.kernel
def test_find_tracefs_mount_fails_with_errno(tmp_path: Path) -> None:
    """mount(2) onto a directory that does not exist: ENOENT with the path."""
    target = tmp_path / "no" / "such" / "dir"
    with pytest.raises(TracefsError) as ei:
        _find_tracefs((tmp_path,), target, mount_if_missing=True)
    assert ei.value.errno == errno.ENOENT
    assert ei.value.path == str(target)


@pytest.mark.kernel
def test_find_tracefs_mounts_in_private_namespace(tmp_path: Path) -> None:
    """The mount path really mounts tracefs; done in a private mount namespace
    (unshare -m) so no mount is left behind in ours."""
    script = textwrap.dedent(f"""
        from pathlib import Path
        from tracekit.bpf.tracefs import _find_tracefs
        p = _find_tracefs((), Path({str(tmp_path)!r}), mount_if_missing=True)
        print(sorted(x.name for x in (p / "events" / "syscalls").iterdir())[:1])
    """)
    try:
        out = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable,
                              "-c", script], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("unshare(1) not installed")
    assert out.returncode == 0, out.stderr
    assert "enable" in out.stdout
    assert not (tmp_path / "events").exists()      # our namespace never saw the mount


@pytest.mark.kernel
def test_find_tracefs_live() -> None:
    root = find_tracefs(mount_if_missing=False)
    assert (root / "events" / "syscalls").is_dir()
