"""Helpers to run the real ``tracekit`` CLI in kernel tests and read its JSON Lines output."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from tracekit._events import Event

TRACEKIT = [sys.executable, "-m", "tracekit"]
WORKLOADS = Path(__file__).parent / "workloads"


def write_pipeline(tmp_path: Path, body: str, name: str = "pipeline.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def tracekit_env(**extra: str) -> dict[str, str]:
    """The environment to start tracekit in: this one, unbuffered, plus ``extra``."""
    return dict(os.environ, PYTHONUNBUFFERED="1", **extra)


def getppid_pipeline(tmp_path: Path, buffer_pages: int = 1024) -> Path:
    """A pipeline file tracing getppid to JSON Lines on stdout; tests give the command."""
    return write_pipeline(tmp_path, f"""\
        buffer_pages = {buffer_pages}
        [target]
        command = ["true"]
        [filter]
        syscalls = ["getppid"]
        [output]
        format = "jsonl"
        """)


# A user stage that sleeps on every batch: far slower than the ring buffer fills.
SLEEPY_PY = """
import trio

class Sleepy:
    name = "sleepy"

    def __init__(self, sleep_s):
        self.sleep_s = sleep_s

    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                await trio.sleep(self.sleep_s)
                await send.send(batch)
"""


_LIBC = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1      # include/uapi/linux/prctl.h


def die_with_parent() -> None:
    """``preexec_fn``: the child gets SIGKILL when the test process that started it ends
    (prctl(2) PR_SET_PDEATHSIG, kept across execve), so a test runner that is killed
    outright leaves no tracekit or workload running. (Only a direct child: a command
    tracekit starts watches its own parent, as :func:`until_orphaned` does.)"""
    parent = os.getppid()
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:      # the parent ended before the prctl
        os._exit(1)


def until_orphaned(body: str) -> str:
    """Python source that runs ``body`` (statements, one line) again and again until the
    process that started it ends: a workload that is tracekit's command (or the test's
    child) then ends too instead of running on as an orphan when a test fails or its
    runner dies. ``body`` sees ``parent``, the pid it was started by; the loop's test is
    one ``getppid`` call per round."""
    return ("import os, sys, time\n"
            "parent = os.getppid()\n"
            "while os.getppid() == parent:\n"
            f"    {body}\n")


def read_events(path: Path) -> list[Event]:
    dec = msgspec.json.Decoder(Event)
    return [dec.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def run_tracekit(args: list[str], *, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    """``tracekit ARGS`` to its end, output captured as text. On ``timeout`` (seconds) the
    whole process tree is killed, not only tracekit (a command it started would otherwise
    run on, orphaned, after the test), and :class:`subprocess.TimeoutExpired` is raised."""
    kw.setdefault("preexec_fn", die_with_parent)
    with subprocess.Popen([*TRACEKIT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=tracekit_env(), **kw) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid)
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass    # a daemon that left the tree (double fork) holds the pipes open
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def rest_of_stderr(proc: subprocess.Popen, timeout: float = 60):
    """What ``proc`` still writes to its stderr pipe, up to its end, including what an
    earlier ``proc.stderr.readline()`` read ahead into the stream's buffer.
    ``proc.communicate(timeout=...)`` reads the pipe's fd directly and loses that buffer:
    a trace line written together with ``attached`` went missing that way. On ``timeout``
    (seconds) the process tree is killed and :class:`subprocess.TimeoutExpired` raised."""
    assert proc.stderr is not None
    box: list = []
    reader = threading.Thread(target=lambda: box.append(proc.stderr.read()), daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        kill_tree(proc.pid)
        raise subprocess.TimeoutExpired(proc.args, timeout)
    proc.stderr.close()
    proc.wait(timeout)
    return box[0]


def attached_tracer(argv: list[str], *, env: dict[str, str] | None = None,
                    preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen[str]:
    """A ``-p`` tracer (strace or ``tracekit strace``) started with ``argv``, once its
    first stderr line said it attached; read the rest with :func:`rest_of_stderr`.
    ``preexec_fn`` defaults to :func:`die_with_parent`."""
    tracer = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=env,
                              preexec_fn=preexec_fn or die_with_parent)
    assert tracer.stderr is not None
    assert "attached" in tracer.stderr.readline()
    return tracer


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process descended from it (ProcFS.walk: the children
    files), descendants first, while they are still linked to it, and again until a pass
    finds none alive (one may have forked meanwhile)."""
    from tracekit.kernel.procfs import ProcFS

    procfs = ProcFS()
    for _ in range(10):
        tree = [tgid for tid, tgid in procfs.walk([pid]) if tid == tgid]
        live = [p for p in reversed(tree)
                if (st := procfs.start_state(p)) is not None and st[1] not in "ZX"]
        if not live:
            return
        for p in live:
            _signal(p, signal.SIGKILL)
        time.sleep(0.05)


def _signal(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


def wait_until(check: Callable[[], object], what: str, timeout: float = 30,
               proc: subprocess.Popen | None = None) -> None:
    """Poll ``check`` every 20 ms until it is true; AssertionError saying ``what`` did not
    happen after ``timeout`` seconds, or at once when ``proc`` (the process that should
    make it happen) has ended."""
    deadline = time.monotonic() + timeout
    while not check():
        assert proc is None or proc.poll() is None, f"{what}: the process ended first"
        assert time.monotonic() < deadline, f"{what}: not after {timeout} s"
        time.sleep(0.02)


_BPF_LINK_NAMES = ("anon_inode:bpf-link", "anon_inode:bpf_link")


def holds_bpf_link(pid: int) -> bool:
    """Whether process ``pid`` holds a BPF link (tracekit does once its programs are
    attached: a sign that it traces; /proc/PID/fd links of ``anon_inode:bpf-link``, or
    ``anon_inode:bpf_link`` as newer kernels name it)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in _BPF_LINK_NAMES:
                return True
        except OSError:
            pass
    return False


def prog_ids_of(pid: int) -> set[int]:
    """BPF prog ids held by process ``pid``, from /proc/<pid>/fdinfo (``prog_id:`` lines)."""
    ids = set()
    fdinfo = Path(f"/proc/{pid}/fdinfo")
    for entry in fdinfo.iterdir():
        try:
            text = entry.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("prog_id:"):
                ids.add(int(line.split()[1]))
    return ids


def wait_gone(kind: str, obj_id: int, timeout: float = 10.0) -> None:
    """Wait until BPF object ``obj_id`` (kind "prog" or "map") no longer exists.

    The kernel frees a prog or map in deferred work after its last reference (an RCU grace
    period after the link is released), so the id can outlive the close() by a few ms.
    """
    import errno
    import time

    from tracekit._errors import BpfError
    from tracekit.bpf import sys as _bpf

    get_fd = _bpf.prog_get_fd_by_id if kind == "prog" else _bpf.map_get_fd_by_id
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.close(get_fd(obj_id))
        except BpfError as e:
            if e.errno == errno.ENOENT:
                return
            raise
        if time.monotonic() > deadline:
            raise AssertionError(f"BPF {kind} id {obj_id} still exists {timeout} s after close")
        time.sleep(0.01)


def compile_c(source: str, out_dir: Path, name: str, *flags: str) -> Path:
    """Build a C workload with gcc into ``out_dir`` (tests skip, saying why, without gcc).

    gcc is on every developer and CI machine of this project; clang is not needed.
    """
    import shutil

    import pytest

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip(f"gcc is not installed: cannot build the {name} workload")
    (out_dir / f"{name}.c").write_text(source)
    subprocess.run([gcc, "-O2", "-Wall", "-Werror", *flags, "-o", str(out_dir / name),
                    str(out_dir / f"{name}.c")], check=True)
    return out_dir / name
