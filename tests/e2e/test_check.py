"""``tracekit check`` tries what ``run`` does up to the attach and says no where run would:
the programs are loaded into the kernel (and unloaded), the target and the output are
resolved, each item with the errno name of what failed; status 1 when any failed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._run import TRACEKIT, run_tracekit, write_pipeline

pytestmark = pytest.mark.kernel


def _items(stdout: str) -> dict[str, tuple[str, str]]:
    """``{name: (status, detail)}`` of the item lines."""
    out = {}
    for line in stdout.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in ("ok", "FAILED", "MISSING"):
            out[parts[0]] = (parts[1], parts[2])
    return out


def _check(tmp_path: Path, body: str, *args: str) -> tuple[int, dict[str, tuple[str, str]],
                                                         subprocess.CompletedProcess[str]]:
    cfg = write_pipeline(tmp_path, body)
    r = run_tracekit(["check", str(cfg), *args])
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, _items(r.stdout), r


def test_a_runnable_pipeline_is_ok_in_every_item(tmp_path: Path) -> None:
    rc, items, r = _check(tmp_path, f"""
        [target]
        command = ["true"]
        [output]
        path = "{tmp_path / 'out.jsonl'}"
    """)
    assert rc == 0, r.stdout
    assert list(items) == ["BTF", "tracefs", "privileges", "stages", "programs", "target",
                           "output"]
    assert all(status == "ok" for status, _ in items.values()), items
    assert "programs loaded and verified" in items["programs"][1]
    assert items["target"][1] == f"command {shutil.which('true')}"
    assert not (tmp_path / "out.jsonl").exists()          # check creates nothing


@pytest.mark.parametrize(("command", "want"), [
    ('["no-such-command-tk"]', "command not found: 'no-such-command-tk' is not in PATH "
                               "(ENOENT)"),
    ('["/no/such/program"]', "command not found: '/no/such/program' (ENOENT)"),
    ('["{d}/data"]', "command is not executable: '{d}/data' (EACCES)"),
])
def test_a_command_run_cannot_start_fails(tmp_path: Path, command: str, want: str) -> None:
    (tmp_path / "data").write_text("not a program\n")
    (tmp_path / "data").chmod(0o644)
    command, want = command.replace("{d}", str(tmp_path)), want.replace("{d}", str(tmp_path))
    rc, items, r = _check(tmp_path, f'[target]\ncommand = {command}\n')
    assert rc == 1
    assert items["target"] == ("FAILED", want)
    assert items["programs"][0] == "ok"                   # the other items are still tried


def test_a_pid_that_is_gone_fails(tmp_path: Path) -> None:
    child = subprocess.Popen(["true"])
    child.wait()                                          # reaped: its pid names nothing
    rc, items, _ = _check(tmp_path, f"[target]\npid = [{child.pid}]\n")
    if items["target"][0] == "ok":
        pytest.skip("the pid was reused at once")
    assert rc == 1
    assert items["target"] == ("FAILED", f"no such pid: {child.pid} (ESRCH: /proc/"
                                         f"{child.pid} does not exist)")


def test_a_live_pid_is_ok(tmp_path: Path) -> None:
    with subprocess.Popen(["sleep", "30"]) as child:
        try:
            rc, items, _ = _check(tmp_path, f"[target]\npid = [{child.pid}]\n")
        finally:
            child.kill()
    assert rc == 0 and items["target"] == ("ok", f"pid {child.pid} alive")


@pytest.mark.parametrize(("path", "want"), [
    ("{d}/missing/out", "{d}/missing/out: directory '{d}/missing' does not exist (ENOENT)"),
    ("{d}/file/out", "{d}/file/out: Not a directory (ENOTDIR)"),
    ("{d}", "{d}: is a directory (EISDIR)"),
    ("{d}/link", "{d}/link: a symlink: tracekit does not write through links (ELOOP)"),
])
def test_an_output_run_cannot_create_fails(tmp_path: Path, path: str, want: str) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    d = str(tmp_path)
    rc, items, _ = _check(tmp_path, f'[target]\ncommand = ["true"]\n[output]\n'
                                    f'path = {json.dumps(path.format(d=d))}\n')
    assert rc == 1
    assert items["output"] == ("FAILED", want.format(d=d))


def test_the_pipeline_file_as_output_fails(tmp_path: Path) -> None:
    cfg = tmp_path / "pipeline.toml"
    rc, items, _ = _check(tmp_path, f'[target]\ncommand = ["true"]\n[output]\n'
                                    f'path = "{cfg}"\n')
    assert rc == 1
    assert items["output"][0] == "FAILED" and "is the pipeline file" in items["output"][1]


def test_a_ring_buffer_the_kernel_refuses_fails_with_its_errno(tmp_path: Path) -> None:
    # 2**19 pages = 2 GiB: valid in the file; the kernel may or may not have the memory,
    # so this only asks that the item is either ok or names the errno
    rc, items, _ = _check(tmp_path, 'buffer_pages = 524288\n[target]\ncommand = ["true"]\n')
    status, detail = items["programs"]
    assert (status, rc) == ("ok", 0) or (status == "FAILED" and "(E" in detail and rc == 1)


def test_without_cap_bpf_the_programs_fail_with_eperm(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv(1) to drop CAP_BPF")
    cfg = write_pipeline(tmp_path, '[target]\ncommand = ["true"]\n')
    r = subprocess.run(["setpriv", "--bounding-set=-bpf,-sys_admin,-perfmon", *TRACEKIT,
                        "check", str(cfg)], capture_output=True, text=True, timeout=60)
    items = _items(r.stdout)
    assert r.returncode == 1, r
    status, detail = items["programs"]
    assert status == "FAILED" and "(EPERM)" in detail and "CAP_BPF" in detail


def test_it_says_before_it_imports_a_user_stage(tmp_path: Path) -> None:
    (tmp_path / "mystage.py").write_text(
        "import sys\nprint('module code of mystage ran', flush=True)\n"
        "class S:\n    name = 's'\n    async def run(self, ctx, recv, send):\n"
        "        pass\n")
    cfg = write_pipeline(tmp_path, '[target]\ncommand = ["true"]\n[[stage]]\nkind = "user"\n'
                                   'use = "mystage:S"\n')
    r = subprocess.run([*TRACEKIT, "check", str(cfg)], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    lines = r.stdout.splitlines()
    said = lines.index("  importing user stage mystage:S (this runs their module code)")
    assert lines[said + 1] == "module code of mystage ran"
    assert _items(r.stdout)["stages"] == ("ok", "s")
    assert r.returncode == 0, r.stdout + r.stderr
    assert sys.executable                                   # the stage ran in this Python


@pytest.mark.parametrize(("listen", "want"), [
    ("nosuchhost.invalid:9464", "Name or service not known"),
    ("127.0.0.1:{busy}", "EADDRINUSE"),
])
def test_an_openmetrics_listen_run_cannot_bind_fails(tmp_path: Path, listen: str,
                                                      want: str) -> None:
    """check said every item ok, and the run then failed at its listen: a host that does
    not resolve, a port another socket holds."""
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        at = listen.format(busy=busy.getsockname()[1])
        rc, items, r = _check(tmp_path, f"""
            [target]
            command = ["true"]
            [output]
            format = "openmetrics"
            listen = "{at}"
            """)
    assert rc == 1, r.stdout
    assert items["listen"][0] == "FAILED" and want in items["listen"][1], r.stdout
