"""An output path where another user already made a file (0666, held open by them) gets a
new 0600 file of tracekit's own: that user reads nothing of the trace through their file
or their open fd. An output path that is an input of the run is refused.

The other user is real: uid 65534 (nobody), through setpriv, in a sticky shared directory
as /tmp is.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._run import run_tracekit, write_pipeline

pytestmark = pytest.mark.kernel
NOBODY = 65534

# as the other user: make the file 0666 with a line of its own, keep it open, say so,
# wait for a line on stdin, then print everything its fd reads from the start
SQUATTER = """
import os, sys
os.umask(0)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
os.write(fd, b"theirs\\n")
print("ready", flush=True)
sys.stdin.readline()
os.lseek(fd, 0, os.SEEK_SET)
sys.stdout.write(os.read(fd, 1 << 20).decode(errors="replace"))
"""


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv(1) to act as a second user")
    top = Path(tempfile.mkdtemp(prefix="tk-shared-"))
    try:
        top.chmod(0o755)
        d = top / "shared"
        d.mkdir()
        d.chmod(0o1777)                      # world-writable and sticky, as /tmp
        yield d
    finally:
        shutil.rmtree(top)


@pytest.mark.parametrize("fmt", ["jsonl", "summary"])
def test_another_users_file_is_replaced_by_our_own(shared_dir: Path, tmp_path: Path,
                                                   fmt: str) -> None:
    out = shared_dir / "trace.out"
    script = shared_dir.parent / "squatter.py"
    script.write_text(SQUATTER)
    script.chmod(0o644)
    squatter = subprocess.Popen(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, str(script), str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert squatter.stdout is not None and squatter.stdin is not None
        assert squatter.stdout.readline() == "ready\n"
        before = os.stat(out)
        assert (before.st_uid, stat.S_IMODE(before.st_mode)) == (NOBODY, 0o666)
        cfg = write_pipeline(tmp_path, f"""
            [target]
            command = ["true"]
            [output]
            format = "{fmt}"
            path = "{out}"
        """)
        r = run_tracekit(["run", str(cfg)])
        assert r.returncode == 0, r.stderr
        after = os.stat(out)
        assert (after.st_uid, stat.S_IMODE(after.st_mode)) == (0, 0o600)
        assert after.st_ino != before.st_ino
        data = out.read_text()
        assert "theirs" not in data and ("execve" in data if fmt == "summary"
                                         else '"type":"exec"' in data)
        # the other user: the file is not theirs to open, and their fd has their line only
        r2 = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                             "--clear-groups", "cat", str(out)], capture_output=True)
        assert r2.returncode != 0 and b"Permission denied" in r2.stderr
        got, _ = squatter.communicate("\n", timeout=30)
        assert got == "theirs\n"
    finally:
        if squatter.poll() is None:
            squatter.kill()
            squatter.wait()


def test_a_symlink_left_by_another_user_is_refused(shared_dir: Path, tmp_path: Path) -> None:
    out = shared_dir / "trace.out"
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                    "ln", "-s", str(victim), str(out)], check=True)
    cfg = write_pipeline(tmp_path, f'[target]\ncommand = ["true"]\n[output]\n'
                                   f'format = "jsonl"\npath = "{out}"\n')
    r = run_tracekit(["run", str(cfg)])
    assert r.returncode == 2
    assert "(ELOOP)" in r.stderr and "symlink" in r.stderr and r.stderr.count("\n") == 1
    assert victim.read_text() == "keep\n" and out.is_symlink()


@pytest.mark.parametrize("which", ["pipeline", "hard link", "program"])
def test_an_output_that_is_an_input_is_refused(tmp_path: Path, which: str) -> None:
    program = tmp_path / "prog"
    shutil.copy("/bin/true", program)
    cfg = write_pipeline(tmp_path, f'[target]\ncommand = [{json.dumps(str(program))}]\n'
                                   '[output]\nformat = "jsonl"\n')
    before = cfg.read_bytes()
    if which == "pipeline":
        out, what = str(cfg), "pipeline file"
    elif which == "hard link":
        out, what = str(tmp_path / "link.toml"), "pipeline file"
        os.link(cfg, out)
    else:
        out, what = str(program), "command's program"
    r = run_tracekit(["run", str(cfg), "-o", out])
    assert r.returncode == 2
    assert r.stderr.startswith(f"tracekit: error: output path {out!r} is the {what} ")
    assert r.stderr.count("\n") == 1
    assert cfg.read_bytes() == before and program.read_bytes() == Path("/bin/true").read_bytes()


@pytest.mark.parametrize("how", ["same path", "symlink", "-c"])
def test_strace_output_that_is_the_program_is_refused(tmp_path: Path, how: str) -> None:
    """``tracekit strace -o ./prog ./prog`` replaced the program by an empty 0600 file,
    then could not run it (EACCES); refused as ``run`` refuses it, with strace's usage
    status, the program untouched."""
    program = tmp_path / "prog"
    shutil.copy("/bin/true", program)
    out = "./prog"
    if how == "symlink":
        out = "link"
        (tmp_path / out).symlink_to(program)
    opts = ["-c"] if how == "-c" else []
    r = subprocess.run([sys.executable, "-m", "tracekit", "strace", *opts, "-o", out,
                        "./prog"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r
    assert r.stderr == (f"tracekit strace: output path '{out}' is the command's program "
                        "'./prog': the trace would be written over it; give another output path\n")
    assert program.read_bytes() == Path("/bin/true").read_bytes()
    assert stat.S_IMODE(program.stat().st_mode) == 0o755


def test_without_cap_fowner_another_users_file_in_their_sticky_dir_is_eperm(
        shared_dir: Path, tmp_path: Path) -> None:
    os.chown(shared_dir, NOBODY, NOBODY)     # their sticky directory, their file
    out = shared_dir / "trace.out"
    subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                    "sh", "-c", f"echo theirs > {out}"], check=True)
    cfg = write_pipeline(tmp_path, f'[target]\ncommand = ["true"]\n[output]\n'
                                   f'format = "jsonl"\npath = "{out}"\n')
    drop = ["setpriv", "--bounding-set=-fowner", sys.executable, "-m", "tracekit"]
    r = subprocess.run([*drop, "check", str(cfg)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "replacing it needs CAP_FOWNER (EPERM)" in r.stdout, r.stdout
    r = subprocess.run([*drop, "run", str(cfg)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "Operation not permitted (EPERM)" in r.stderr and "CAP_FOWNER" in r.stderr
    assert out.read_text() == "theirs\n" and os.stat(out).st_uid == NOBODY
    assert sorted(p.name for p in shared_dir.iterdir()) == ["trace.out"]   # no temp left
