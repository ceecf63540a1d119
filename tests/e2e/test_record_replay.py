"""Record and replay, end to end: one ``tracekit run --record`` prints live and records;
``tracekit replay`` of the recording with the same options must print the same bytes.

Each test traces processes it starts itself (a command, or a -p target it made), so the
tests run side by side (-n 2).
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import (
    TRACEKIT,
    die_with_parent,
    run_tracekit,
    tracekit_env,
    until_orphaned,
    write_pipeline,
)
from tracekit.session.recording import MAGIC, Recording

pytestmark = pytest.mark.kernel

# files, a fork and exec, a pipe, a failing call, a signal, a call that blocks for
# longer than the reorder window (the live run releases held lines while it waits)
WORKLOAD = """\
import os, signal, subprocess, sys, time
d = sys.argv[1]
with open(os.path.join(d, "a.txt"), "w") as f:
    f.write("hello\\n")
os.chdir(d)
fd = os.open("a.txt", os.O_RDONLY)
os.read(fd, 100)
try:
    os.open("missing", os.O_RDONLY)
except FileNotFoundError:
    pass
r, w = os.pipe()
os.write(w, b"x")
os.read(r, 1)
subprocess.run(["cat", "a.txt"], stdout=subprocess.DEVNULL, check=True)
signal.signal(signal.SIGUSR1, lambda *a: None)
os.kill(os.getpid(), signal.SIGUSR1)
time.sleep(0.15)
os.close(fd)
"""


def _pipeline(tmp_path: Path, fmt: str, extra: str = "") -> Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    (tmp_path / "w.py").write_text(WORKLOAD)
    return write_pipeline(tmp_path, f"""\
        [target]
        command = ["{sys.executable}", "{tmp_path / 'w.py'}", "{tmp_path / 'work'}"]
        [output]
        format = "{fmt}"
        {extra}
        """)


def _round_trip(tmp_path: Path, cfg: Path, *opts: str) -> tuple[bytes, bytes, Path]:
    rec, live, again = tmp_path / "t.tkrec", tmp_path / "live.out", tmp_path / "replay.out"
    r = run_tracekit(["run", str(cfg), *opts, "--record", str(rec), "-o", str(live)])
    assert r.returncode == 0, r.stderr
    r2 = run_tracekit(["replay", str(rec), str(cfg), *opts, "-o", str(again)],
                      cwd="/")      # another directory: nothing is read from the system
    assert r2.returncode == 0, r2.stderr
    assert "stops early" not in r2.stderr
    return live.read_bytes(), again.read_bytes(), rec


@pytest.mark.parametrize(("fmt", "extra"), [
    ("perf", ""),
    ("strace", ""),
    ("jsonl", ""),
    ("summary", ""),                                # counted in the kernel
    ("summary", 'mode = "stream"\ntable = "strace"'),  # counted from the records
])
def test_replay_prints_what_the_live_run_printed(tmp_path: Path, fmt: str, extra: str) -> None:
    live, replayed, rec = _round_trip(tmp_path, _pipeline(tmp_path, fmt, extra))
    assert live == replayed
    text = live.decode()
    if fmt == "jsonl":
        assert text.count('"type":"syscall"') > 50 and '"type":"signal"' in text
    elif fmt in ("perf", "strace"):
        # the trace saw the workload: its open of a.txt and the failed open
        assert "a.txt" in text and "missing" in text
    else:
        assert "openat" in text
    recording = Recording.open(rec)
    assert recording.stopped is None and recording.end is not None
    assert recording.end.completed and recording.end.returncode == 0


def test_pid_target_fds_opened_before_the_trace(tmp_path: Path) -> None:
    """A -p process whose fd was opened before the trace: the live run reads its target
    from /proc when it decodes its first use (the fd is still open then: the process
    sleeps before it closes it); the replay, after the process is gone, prints it the
    same from the recording."""
    data = tmp_path / "held.txt"
    data.write_text("held\n")
    go = tmp_path / "go"
    script = (f"import os, time\nfd = os.open({str(data)!r}, os.O_RDONLY)\n"
              "print(fd, flush=True)\n"
              f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.02)\n"
              "os.read(fd, 10)\ntime.sleep(0.5)\nos.close(fd)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        fd = int(proc.stdout.readline())
        cfg = write_pipeline(tmp_path, """\
            [target]
            command = ["true"]
            [output]
            format = "strace"
            """)
        rec, live, again = tmp_path / "p.tkrec", tmp_path / "live", tmp_path / "again"
        tracer = subprocess.Popen(
            [*TRACEKIT, "run", str(cfg), "-p", str(proc.pid), "--record", str(rec),
             "-o", str(live)], env=tracekit_env(), stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: rec.exists() and _has_snapshot(rec), tracer)
        go.touch()
        assert proc.wait(timeout=30) == 0
        _, err = tracer.communicate(timeout=60)
        assert tracer.returncode == 0, err
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert f"read({fd}<{data}>" in live.read_text()
    r = run_tracekit(["replay", str(rec), str(cfg), "-o", str(again)])
    assert r.returncode == 0, r.stderr
    assert again.read_bytes() == live.read_bytes()
    # the fd table read at attach is in the recording too
    snap = Recording.open(rec).snapshot
    assert snap is not None and snap.fds[proc.pid][fd] == str(data)
    assert any(tgid == proc.pid for _, tgid, _ in snap.tasks)


def _has_snapshot(path: Path) -> bool:
    try:
        return Recording.open(path).snapshot is not None
    except Exception:
        return False


def _wait_for(cond, tracer: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert tracer.poll() is None, tracer.stderr.read() if tracer.stderr else ""
        assert time.monotonic() < deadline, "tracekit did not start recording"
        time.sleep(0.02)


def test_path_filter_replays_relative_opens(tmp_path: Path) -> None:
    """-P follows relative opens through the working directory, which the live run reads
    from /proc: the replay reads it from the recording."""
    cfg = _pipeline(tmp_path, "strace")
    target = str(tmp_path / "work" / "a.txt")
    live, replayed, _ = _round_trip(tmp_path, cfg, "-P", target)
    assert live == replayed
    # the read of the fd of the relative open("a.txt") after chdir: matched through the
    # working directory
    assert f'read(3<{target}>, "hello\\n", 100) = 6' in live.decode()


def test_record_only_then_replay_in_every_format(tmp_path: Path) -> None:
    """``tracekit record`` decodes nothing; the recording replays in each format."""
    (tmp_path / "work").mkdir()
    (tmp_path / "w.py").write_text(WORKLOAD)
    rec = tmp_path / "r.tkrec"
    r = run_tracekit(["record", "-o", str(rec), "--", sys.executable, str(tmp_path / "w.py"),
                      str(tmp_path / "work")])
    assert r.returncode == 0, r.stderr
    assert "recorded" in r.stderr
    assert rec.read_bytes()[:8] == MAGIC and os.stat(rec).st_mode & 0o777 == 0o600
    for fmt in ("perf", "strace", "jsonl", "summary"):
        out = tmp_path / f"out.{fmt}"
        r = run_tracekit(["replay", str(rec), "--format", fmt, "-o", str(out)])
        assert r.returncode == 0, r.stderr
        assert "openat" in out.read_text() or '"syscall_nr"' in out.read_text()


def test_replay_of_a_killed_recorder_says_where_it_stops(tmp_path: Path) -> None:
    rec = tmp_path / "k.tkrec"
    proc = subprocess.Popen(
        [*TRACEKIT, "record", "-o", str(rec), "--", sys.executable, "-c",
         until_orphaned("time.sleep(0.001)")],     # getppid each round
        env=tracekit_env(), stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    try:
        deadline = time.monotonic() + 30
        while not (rec.exists() and rec.stat().st_size > 20_000):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.0)                 # the loop's calls (about 1000 a second) recorded
    finally:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for child in children:          # the traced command, orphaned
            try:
                os.kill(int(child), signal.SIGKILL)
            except ProcessLookupError:
                pass
    size = rec.stat().st_size
    with open(rec, "r+b") as f:         # and cut the last frame as a crash mid-write would
        f.truncate(size - 3)
    out = tmp_path / "out.txt"
    r = run_tracekit(["replay", str(rec), "--format", "strace", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert "the recording stops early" in r.stderr and "cut short" in r.stderr
    assert out.read_text().count("getppid()") > 10


def test_not_a_recording_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(b"hello world\n")
    r = run_tracekit(["replay", str(bad)])
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"tracekit: error: {bad}: not a tracekit recording (its first bytes are "
        f"b'hello wo', not {MAGIC!r})"]


def test_unreadable_recording_is_one_line(tmp_path: Path) -> None:
    """A directory or a missing file given as the recording: one line with the errno
    name, status 1, no traceback."""
    for path, name in ((tmp_path, "EISDIR"), (tmp_path / "missing", "ENOENT")):
        r = run_tracekit(["replay", str(path)])
        assert r.returncode == 1, r.stderr
        assert r.stderr.strip().splitlines() == [
            f"tracekit: error: {path}: cannot read the recording: "
            f"{os.strerror(getattr(errno, name))} ({name})"]


def test_a_damaged_frame_is_one_error_line_and_no_output(tmp_path: Path) -> None:
    """A real recording, its first RECORDS frame damaged: a byte flipped in its body or
    its length one too long is one error line naming the file, the frame and its byte,
    status 1, no output file made, never a traceback. (Before format 4 a flipped byte in
    zstd data could decode to other records and replay silently; a damaged frame stopped
    the replay there with a warning and status 0.) A file cut inside a frame is a
    recorder killed: the replay of what precedes it, with a warning
    (test_replay_of_a_killed_recorder_says_where_it_stops); so is a length past the end
    of the file."""
    rec = tmp_path / "r.tkrec"
    r = run_tracekit(["record", "-o", str(rec), "--", sys.executable, "-c",
                      "import os, time\nfor i in range(3):\n    for _ in range(3000): "
                      "os.getppid()\n    time.sleep(0.3)"])
    assert r.returncode == 0, r.stderr
    data = rec.read_bytes()
    frames = []                 # (offset, kind, codec, size) of each frame
    at = len(MAGIC)
    while at < len(data):
        size, kind, codec = int.from_bytes(data[at:at + 4], "little"), data[at + 4], data[at + 5]
        frames.append((at, kind, codec, size))
        at += 6 + size
    records = [(i + 1, f) for i, f in enumerate(frames) if f[1] == 3]     # RECORDS
    assert len(records) >= 2, frames
    number, (at, _, _, size) = records[0]
    flipped = bytearray(data)
    flipped[at + 6 + size // 2] ^= 0x10
    longer = bytearray(data)
    longer[at:at + 4] = (size + 1).to_bytes(4, "little")
    past = bytearray(data)
    past[at:at + 4] = (len(data)).to_bytes(4, "little")
    for damaged, why in ((flipped, "its CRC-32 is 0x"), (longer, "its CRC-32 is 0x")):
        bad = tmp_path / "bad.tkrec"
        bad.write_bytes(bytes(damaged))
        out = tmp_path / "out.txt"
        r = run_tracekit(["replay", str(bad), "--format", "strace", "-o", str(out)])
        assert r.returncode == 1, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"tracekit: error: {bad}: frame {number} (records) at "
                                   f"byte {at} is corrupt: {why}"), lines
        assert not out.exists()
    # a length past the end of the file cannot be told from a recorder killed while it
    # wrote the frame: a warning naming the frame, and what precedes it replayed
    bad.write_bytes(bytes(past))
    r = run_tracekit(["replay", str(bad), "--format", "strace", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"tracekit: {bad}: the recording stops early: frame {number} (records) at byte {at} "
        f"is cut short: {len(data) - at - 6} of {len(data)} bytes; replaying what precedes "
        "it"]


# sockets (TCP on loopback, a unix socketpair), devices and a file, used only through
# read and write: with trace=read,write every call that made these fds is hidden, so
# their decorations come from the calls the kernel keeps for the fd tables and from what
# the live run read from /proc and sock_diag as the records arrived
FDS_WORKLOAD = """\
import os, socket, sys, time
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.socket(); c.connect(srv.getsockname())
a, _ = srv.accept()
os.write(c.fileno(), b"ping"); os.read(a.fileno(), 4)
p, q = socket.socketpair()
os.write(p.fileno(), b"x"); os.read(q.fileno(), 1)
n = os.open("/dev/null", os.O_WRONLY); os.write(n, b"z")
z = os.open("/dev/zero", os.O_RDONLY); os.read(z, 1)
f = os.open(sys.argv[1], os.O_RDONLY); os.read(f, 5)
time.sleep(0.3)   # sock_diag describes a socket while it exists
"""

_FD_SHAPES = (r"<TCP:\[127\.0\.0\.1:\d+->127\.0\.0\.1:\d+\]>", r"<UNIX-STREAM:\[\d+->\d+\]>",
              r"</dev/null<char 1:3>>", r"</dev/zero<char 1:5>>")


@pytest.mark.parametrize("fmt", ["perf", "strace"])
def test_replay_prints_the_fd_decorations_of_hidden_calls(tmp_path: Path, fmt: str) -> None:
    """``-e trace=read,write`` with fd paths on: sockets, devices and a file made by calls
    the selection hides print the same decorations live and replayed."""
    data = tmp_path / "data.txt"
    data.write_text("hello")
    (tmp_path / "fds.py").write_text(FDS_WORKLOAD)
    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{sys.executable}", "-S", "{tmp_path / 'fds.py'}", "{data}"]
        [output]
        format = "{fmt}"
        fd_paths = true
        """)
    rec, live, again = tmp_path / "t.tkrec", tmp_path / "live.out", tmp_path / "replay.out"
    r = run_tracekit(["run", str(cfg), "-e", "trace=read,write", "--record", str(rec),
                      "-o", str(live)])
    assert r.returncode == 0, r.stderr
    r2 = run_tracekit(["replay", str(rec), str(cfg), "-o", str(again)], cwd="/")
    assert r2.returncode == 0, r2.stderr
    text = live.read_text()
    for shape in _FD_SHAPES:
        assert re.search(shape, text), (shape, text)
    assert f"<{data}>" in text
    assert again.read_bytes() == live.read_bytes()


@pytest.mark.parametrize("fmt", ["perf", "strace"])
def test_pid_target_sockets_and_devices_opened_before_the_trace(tmp_path: Path,
                                                                 fmt: str) -> None:
    """A -p target's sockets, devices and file from before the trace, used through
    read and write only: decorated live from the fd tables read at attach, and the same
    in the replay after the process is gone."""
    data = tmp_path / "held.txt"
    data.write_text("held\n")
    go = tmp_path / "go"
    script = (FDS_WORKLOAD.split("os.write(c.fileno()")[0]
              + "p, q = socket.socketpair()\n"
              + "n = os.open('/dev/null', os.O_WRONLY)\n"
              + f"f = os.open({str(data)!r}, os.O_RDONLY)\n"
              + "print(c.fileno(), q.fileno(), n, f, flush=True)\n"
              + f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.02)\n"
              + "os.write(c.fileno(), b'ping'); os.read(a.fileno(), 4)\n"
              + "os.write(p.fileno(), b'x'); os.read(q.fileno(), 1)\n"
              + "os.write(n, b'z'); os.read(f, 4)\ntime.sleep(0.3)\n")
    proc = subprocess.Popen([sys.executable, "-S", "-c", script], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        c, q, n, f = map(int, proc.stdout.readline().split())
        cfg = write_pipeline(tmp_path, f"""\
            [target]
            command = ["true"]
            [output]
            format = "{fmt}"
            fd_paths = true
            """)
        rec, live, again = tmp_path / "p.tkrec", tmp_path / "live", tmp_path / "again"
        tracer = subprocess.Popen(
            [*TRACEKIT, "run", str(cfg), "-p", str(proc.pid), "-e", "trace=read,write",
             "--record", str(rec), "-o", str(live)],
            env=tracekit_env(), stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: rec.exists() and _has_snapshot(rec), tracer)
        go.touch()
        assert proc.wait(timeout=30) == 0
        _, err = tracer.communicate(timeout=60)
        assert tracer.returncode == 0, err
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    text = live.read_text()
    for fd, shape in ((c, _FD_SHAPES[0]), (q, _FD_SHAPES[1]), (n, _FD_SHAPES[2]),
                      (f, re.escape(f"<{data}>"))):
        assert re.search(rf"\b{fd}{shape}", text), (fd, shape, text)
    r = run_tracekit(["replay", str(rec), str(cfg), "-o", str(again)], cwd="/")
    assert r.returncode == 0, r.stderr
    assert again.read_bytes() == live.read_bytes()


def test_record_only_keeps_what_fd_decorations_need(tmp_path: Path) -> None:
    """``tracekit record -e trace=read,write`` decodes nothing, yet its replay in the
    strace format decorates the fds that hidden calls made, sockets too. Not a device's
    numbers: only a decode stats a device it prints, and none ran live."""
    data = tmp_path / "data.txt"
    data.write_text("hello")
    (tmp_path / "fds.py").write_text(FDS_WORKLOAD)
    rec, out = tmp_path / "r.tkrec", tmp_path / "out.txt"
    r = run_tracekit(["record", "-o", str(rec), "-e", "trace=read,write", "--",
                      sys.executable, "-S", str(tmp_path / "fds.py"), str(data)])
    assert r.returncode == 0, r.stderr
    r = run_tracekit(["replay", str(rec), "--format", "strace", "-o", str(out)], cwd="/")
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    for shape in _FD_SHAPES[:2]:
        assert re.search(shape, text), (shape, text)
    assert re.search(r"write\(\d+</dev/null>, ", text) and f"<{data}>" in text


def test_record_only_replays_an_open_through_a_symlink_as_the_kernel_names_it(
        tmp_path: Path) -> None:
    """``tracekit record`` decodes nothing, yet its replay names the fd of an open
    through a symlink (a file and a directory) by the file it opened, as the live run
    does (the kernel's name: symlinks resolved), not by the path the call gave."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "data.txt").write_text("hello")
    (tmp_path / "dir").symlink_to(tmp_path / "real")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "data.txt")
    argv = ["--", "cat", str(tmp_path / "link.txt"), str(tmp_path / "dir" / "data.txt")]
    rec, out = tmp_path / "r.tkrec", tmp_path / "out.txt"
    r = run_tracekit(["record", "-o", str(rec), "-e", "trace=openat", *argv])
    assert r.returncode == 0, r.stderr
    r = run_tracekit(["replay", str(rec), "--format", "strace", "-o", str(out)], cwd="/")
    assert r.returncode == 0, r.stderr
    live = run_tracekit(["run", "--format", "strace", "-e", "openat", "-o",
                         str(tmp_path / "live.txt"), *argv])
    assert live.returncode == 0, live.stderr
    real = f"<{tmp_path}/real/data.txt>"
    for text in (out.read_text(), (tmp_path / "live.txt").read_text()):
        opens = [ln for ln in text.splitlines() if str(tmp_path) in ln]
        assert len(opens) == 2 and all(ln.split(" = ")[-1].startswith(
            re.search(r"= (\d+)<", ln)[1] + real) for ln in opens), text


# -- stacks and the re-enumeration after attach (recording format 3) ------------------------

CHAIN_C = r"""
#include <fcntl.h>
#include <unistd.h>

__attribute__((noinline)) int c(const char *p) { return open(p, O_RDONLY); }
__attribute__((noinline)) int b(const char *p) { return c(p) + 1; }
__attribute__((noinline)) int a(const char *p) { return b(p) + 1; }

int main(void)
{
	int r = a("/nonexistent/tracekit-replay-stacks");
	usleep(300000); /* alive while its first stack is named (its maps are read) */
	return r == 1 ? 0 : 1;
}
"""


@pytest.mark.parametrize("fmt", ["perf", "strace"])
def test_replay_prints_the_stacks_the_live_run_named(tmp_path: Path, fmt: str) -> None:
    """``-k``: the replay prints the same named chains as the live run, though the binary
    is gone by then (the names come from the recording, not from the files)."""
    from tests._run import compile_c

    binary = compile_c(CHAIN_C, tmp_path, "chain", "-O0", "-fno-omit-frame-pointer")
    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{binary}"]
        [filter]
        syscalls = ["openat"]
        status = ["failed"]
        [output]
        format = "{fmt}"
        """)
    rec, live, again = tmp_path / "k.tkrec", tmp_path / "live.out", tmp_path / "replay.out"
    r = run_tracekit(["run", str(cfg), "-k", "--record", str(rec), "-o", str(live)])
    assert r.returncode == 0, r.stderr
    text = live.read_text()
    # the chain, named: c, b, a, main in the binary (perf: "c (path)", strace: "path(c+0x")
    for fn in ("c", "b", "a", "main"):
        shown = f"{binary}({fn}+0x" if fmt == "strace" else f" {fn} ({binary})"
        assert shown in text, (fn, text)
    binary.unlink()
    r2 = run_tracekit(["replay", str(rec), str(cfg), "-o", str(again)], cwd="/")
    assert r2.returncode == 0, r2.stderr
    assert "print as addresses" not in r2.stderr
    assert again.read_bytes() == live.read_bytes()
    # an older recording (format 2: no names recorded) still replays: addresses, and a
    # line that says so
    old = tmp_path / "old.tkrec"
    _without_format_3(rec, old)
    r3 = run_tracekit(["replay", str(old), str(cfg), "-o", str(again)], cwd="/")
    assert r3.returncode == 0, r3.stderr
    assert "1 stacks print as addresses: the recording (format 2)" in r3.stderr
    assert "c+0x" not in again.read_text() and "openat(" in again.read_text()


def _without_format_3(src: Path, dst: Path) -> None:
    """``src`` as a format 2 recorder wrote it: no STACKS frames, no reenumerated facts,
    no checksums (frames of codec 0)."""
    import msgspec

    from tracekit.session.recording import KIND_FACTS, KIND_HEADER, KIND_STACKS, Recording

    with open(dst, "wb") as f:
        f.write(MAGIC)
        for kind, payload in Recording(src).payloads():
            obj = msgspec.msgpack.decode(payload)
            if kind == KIND_STACKS:
                continue
            if kind == KIND_HEADER:
                obj["format_version"] = 2
            if kind == KIND_FACTS:
                obj = [fact for fact in obj if fact[1] != "reenumerated"]
                if not obj:
                    continue
            body = msgspec.msgpack.encode(obj)
            f.write(len(body).to_bytes(4, "little") + bytes([kind, 0]) + body)


THREADS = """\
import os, sys, threading, time
go = sys.argv[1]
def work():
    while not os.path.exists(go):
        time.sleep(0.02)
    os.getppid()
ts = [threading.Thread(target=work) for _ in range(3)]
for t in ts:
    t.start()
print(os.getpid(), flush=True)
for t in ts:
    t.join()
pid = os.fork()
if pid == 0:
    os.getppid()
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(0.1)
"""


def test_pid_target_reenumeration_replays_byte_for_byte(tmp_path: Path) -> None:
    """A multithreaded -p target with a ``reenumerate`` stage: the stage's record of its
    /proc pass is in the recording, and the replay (no /proc, no pids map) prints the
    same JSON Lines, that record included, and the same strace text."""
    go = tmp_path / "go"
    (tmp_path / "t.py").write_text(THREADS)
    proc = subprocess.Popen([sys.executable, "-S", str(tmp_path / "t.py"), str(go)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert int(proc.stdout.readline()) == proc.pid
        cfg = write_pipeline(tmp_path, """\
            [target]
            command = ["true"]
            [[stage]]
            kind = "reenumerate"
            [[output]]
            format = "jsonl"
            path = "{jsonl}"
            [[output]]
            format = "strace"
            path = "{strace}"
            """.format(jsonl=tmp_path / "live.jsonl", strace=tmp_path / "live.txt"))
        rec = tmp_path / "p.tkrec"
        tracer = subprocess.Popen(
            [*TRACEKIT, "run", str(cfg), "-p", str(proc.pid), "--record", str(rec)],
            env=tracekit_env(), stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: rec.exists() and _has_snapshot(rec), tracer)
        go.touch()
        assert proc.wait(timeout=30) == 0
        _, err = tracer.communicate(timeout=60)
        assert tracer.returncode == 0, err
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    live_jsonl = (tmp_path / "live.jsonl").read_bytes()
    lines = live_jsonl.splitlines(keepends=True)
    reenumerated = [ln for ln in lines if ln.startswith(b'{"type":"reenumerated","ts_ns":')]
    assert len(reenumerated) == 1, live_jsonl
    from tracekit.kernel.syscalls import SyscallTable

    getppid = f'"syscall_nr":{SyscallTable().nr("getppid")},'.encode()
    assert live_jsonl.count(getppid) >= 4       # 3 threads and the child call getppid
    replay_cfg = write_pipeline(tmp_path, """\
        [[stage]]
        kind = "reenumerate"
        [[output]]
        format = "jsonl"
        path = "{jsonl}"
        [[output]]
        format = "strace"
        path = "{strace}"
        """.format(jsonl=tmp_path / "again.jsonl", strace=tmp_path / "again.txt"))
    r = run_tracekit(["replay", str(rec), str(replay_cfg)], cwd="/")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == live_jsonl
    assert (tmp_path / "again.txt").read_bytes() == (tmp_path / "live.txt").read_bytes()
    # an older recording (format 2) holds no such record: the stage says so and sends none
    old = tmp_path / "old.tkrec"
    _without_format_3(rec, old)
    r = run_tracekit(["replay", str(old), str(replay_cfg)], cwd="/")
    assert r.returncode == 0, r.stderr
    assert "holds no /proc re-enumeration" in r.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == b"".join(
        ln for ln in lines if ln not in reenumerated)
