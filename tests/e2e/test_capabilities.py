"""Without a capability tracekit needs (CAP_BPF, CAP_PERFMON), the run fails with exit status
1 and one error line that names the missing capability and the errno; with them and
nothing else (no root: tracefs cannot be read), it traces as root does. ``tracekit check``
reports the privileges this process really has.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._run import write_pipeline
from tests.e2e._strace_lines import norm_line, parse, pid_normaliser

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


# --- the capability matrix, with a real setpriv -------------------------------------------
#
# A user other than root must be able to run this Python and import tracekit: where a
# directory on the way is closed to others (a Python under /root, mode 0700), the test runs
# in a mount namespace of its own (unshare -m) where that directory is a tmpfs holding
# only the subtrees needed, bound from the real ones. Nothing outside the namespace changes.

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]


def _closed_ancestor(path: Path) -> Path | None:
    """The first directory above ``path`` that others cannot search, if any."""
    for parent in reversed(path.parents):
        if not os.stat(parent).st_mode & 0o001:
            return parent
    return None


def _needed() -> list[Path]:
    paths = {Path(os.path.realpath(sys.executable)).parent.parent, Path(sys.prefix),
             Path(sys.base_prefix), REPO}
    paths |= {Path(p) for p in sys.path if p and Path(p).is_dir()}
    return sorted(p.resolve() for p in paths)


def _setpriv_script(setpriv_args: list[str], argv: list[str]) -> list[str]:
    """argv of a shell that runs ``argv`` under ``setpriv setpriv_args``, in its own mount
    namespace when a needed directory is closed to others."""
    binds: dict[Path, list[Path]] = {}
    for p in _needed():
        closed = _closed_ancestor(p / "x")
        if closed is not None and closed != p:
            subtree = closed / p.relative_to(closed).parts[0]
            binds.setdefault(closed, [])
            if subtree not in binds[closed]:
                binds[closed].append(subtree)
    run = " ".join(shlex.quote(a) for a in ["setpriv", *setpriv_args, *argv])
    if not binds:
        return ["sh", "-c", f"exec {run}"]
    lines = ["set -e", "T=$(mktemp -d)"]
    for i, (closed, subtrees) in enumerate(binds.items()):
        for j, sub in enumerate(subtrees):
            lines += [f"mkdir -p \"$T/{i}_{j}\"",
                      f"mount --bind {shlex.quote(str(sub))} \"$T/{i}_{j}\""]
        lines.append(f"mount -t tmpfs -o mode=0755 tmpfs {shlex.quote(str(closed))}")
        for j, sub in enumerate(subtrees):
            lines += [f"mkdir -p {shlex.quote(str(sub))}",
                      f"mount --bind \"$T/{i}_{j}\" {shlex.quote(str(sub))}"]
    lines.append(f"exec {run}")
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(lines)]


NOBODY_CAPS = ["--reuid=65534", "--regid=65534", "--clear-groups",
               "--inh-caps=+bpf,+perfmon", "--ambient-caps=+bpf,+perfmon"]
NOBODY_NONE = ["--reuid=65534", "--regid=65534", "--clear-groups"]
ROOT_NO_BPF = ["--inh-caps=-bpf", "--bounding-set=-bpf"]


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory every user can read (pytest's tmp_path is root's, mode 0700)."""
    d = Path(tempfile.mkdtemp(prefix="tracekit-caps-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d)


def _tracekit(setpriv_args: list[str] | None, args: list[str]) -> subprocess.CompletedProcess[str]:
    argv = [PY, "-m", "tracekit", *args]
    if setpriv_args is not None:
        if shutil.which("setpriv") is None or shutil.which("unshare") is None:
            pytest.skip("setpriv and unshare (util-linux) are not installed")
        argv = _setpriv_script(setpriv_args, argv)
    return subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"), cwd="/")


def _strace_pipeline(d: Path) -> Path:
    p = d / "p.toml"
    p.write_text('[target]\ncommand = ["cat", "/etc/hostname"]\n'
                 '[output]\nformat = "strace"\nfd_paths = true\n')
    p.chmod(0o644)
    return p


def _lines(stdout: str) -> list[str]:
    procs = parse(stdout)
    pids = pid_normaliser(set(procs))
    (calls,) = procs.values()
    # getrandom's bytes differ from run to run: only their count is compared; so do the
    # inodes of the pipes the test's stdout and stderr are (fd decorations)
    return [re.sub(r"pipe:\[\d+\]", "pipe:[N]",
                   re.sub(r'^(getrandom\()"[^"]*"', r'\1"..."', norm_line(c.line, pids)))
            for c in calls]


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the matrix starts as root")


@needs_root
def test_root_traces_and_check_says_root(shared_dir: Path) -> None:
    p = _strace_pipeline(shared_dir)
    r = _tracekit(None, ["run", str(p)])
    assert r.returncode == 0, r.stderr
    assert any(line.startswith('openat(AT_FDCWD</>, "/etc/hostname", O_RDONLY)')
               for line in _lines(r.stdout))
    c = _tracekit(None, ["check", str(p)])
    assert c.returncode == 0, c.stdout + c.stderr
    assert re.search(r"privileges\s+ok\s+root with CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN",
                     c.stdout)
    assert re.search(r"tracefs\s+ok\s+/sys/kernel/tracing", c.stdout)


@needs_root
def test_root_without_cap_bpf_traces_by_cap_sys_admin(shared_dir: Path) -> None:
    """bpf_capable() is CAP_BPF or CAP_SYS_ADMIN: root without CAP_BPF still traces, and
    check says what stands in."""
    p = _strace_pipeline(shared_dir)
    r = _tracekit(ROOT_NO_BPF, ["run", str(p)])
    assert r.returncode == 0, r.stderr
    assert _lines(r.stdout)
    c = _tracekit(ROOT_NO_BPF, ["check", str(p)])
    assert c.returncode == 0, c.stdout + c.stderr
    assert "root with CAP_PERFMON, CAP_SYS_ADMIN (CAP_SYS_ADMIN stands in for CAP_BPF)" \
        in c.stdout


@needs_root
def test_user_with_cap_bpf_and_cap_perfmon_traces_without_tracefs(shared_dir: Path) -> None:
    """A user with only CAP_BPF and CAP_PERFMON cannot read tracefs (mode 0700): the trace
    runs to the end all the same, every line as root's (addresses, pids, times aside)."""
    p = _strace_pipeline(shared_dir)
    as_root = _tracekit(None, ["run", str(p)])
    r = _tracekit(NOBODY_CAPS, ["run", str(p)])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert _lines(r.stdout) == _lines(as_root.stdout)
    c = _tracekit(NOBODY_CAPS, ["check", str(p)])
    assert c.returncode == 0, c.stdout + c.stderr
    assert re.search(r"privileges\s+ok\s+uid 65534 with CAP_BPF, CAP_PERFMON\n", c.stdout)
    assert re.search(r"tracefs\s+ok\s+/sys/kernel/tracing/events: EACCES .*shipped for",
                     c.stdout)
    for args in (["list", "syscalls"], ["list", "stages"], ["--version"]):
        r = _tracekit(NOBODY_CAPS, args)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)


@needs_root
def test_user_without_capabilities_gets_one_line(shared_dir: Path) -> None:
    p = _strace_pipeline(shared_dir)
    r = _tracekit(NOBODY_NONE, ["run", str(p)])
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert "[Errno 1]" in r.stderr and "missing CAP_BPF" in r.stderr
    c = _tracekit(NOBODY_NONE, ["check", str(p)])
    assert c.returncode == 1 and "Traceback" not in c.stderr
    assert re.search(r"privileges\s+FAILED\s+uid 65534: missing CAP_BPF and CAP_PERFMON",
                     c.stdout)


@needs_root
def test_record_without_capabilities_names_the_missing_one(shared_dir: Path) -> None:
    """``tracekit record`` as a user without CAP_BPF: the same one line as ``run`` (the
    recording's last frame must not replace it with the EBADF of maps never loaded)."""
    out = shared_dir / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    r = _tracekit(NOBODY_NONE, ["record", "-o", str(out / "r.tkrec"), "--", "true"])
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert "[Errno 1] BPF_MAP_CREATE" in r.stderr and "missing CAP_BPF" in r.stderr


def test_capabilities_of_a_user_namespace_are_named_so() -> None:
    """``unshare -U -r``: the process has every capability in its own user namespace,
    which bpf(2) does not count (it checks the initial one): one line that says so,
    exit 1, no traceback."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    r = subprocess.run(["unshare", "-U", "-r", sys.executable, "-m", "tracekit", "strace",
                        "true"], capture_output=True, text=True, timeout=120)
    if "unshare failed" in r.stderr:
        pytest.skip(f"user namespaces are not available here: {r.stderr.strip()}")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "only inside a user namespace" in r.stderr, r.stderr
