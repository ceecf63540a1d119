"""The openmetrics output on a real Prometheus server (Debian's ``prometheus`` package):
started here on a loopback port with its own config and data directory, scraping
tracekit every 100 ms while a workload with a known number of calls runs; a PromQL query
through Prometheus's HTTP API must return exactly that number.

scripts/test.sh installs the package; run alone, the test installs it when it can (root,
apt-get) and otherwise skips, saying why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests._run import TRACEKIT, tracekit_env, write_pipeline

pytestmark = pytest.mark.kernel

N_CALLS = 2000       # getppid
N_ERRORS = 37        # rmdir of a missing directory: ENOENT

WORKLOAD = textwrap.dedent("""\
    import os, sys, time
    d = sys.argv[1]
    while not os.path.exists(os.path.join(d, "go")):
        time.sleep(0.01)
    for _ in range({calls}):
        os.getppid()
    for _ in range({errors}):
        try:
            os.rmdir(os.path.join(d, "missing"))
        except FileNotFoundError:
            pass
    open(os.path.join(d, "done"), "w").close()
    while not os.path.exists(os.path.join(d, "exit")):
        time.sleep(0.01)
    """).format(calls=N_CALLS, errors=N_ERRORS)


def _prometheus() -> str:
    """The prometheus binary: installed here if it can be (root, apt-get), else skip."""
    found = shutil.which("prometheus")
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("Debian's prometheus package is not installed and cannot be here "
                    "(needs root and apt-get): apt-get install prometheus")
    r = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                        "-o", "DPkg::Lock::Timeout=300", "prometheus"],
                       capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    found = shutil.which("prometheus")
    if r.returncode != 0 or not found:
        pytest.skip(f"apt-get install prometheus failed (status {r.returncode}): "
                    f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, timeout: float = 5) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 (loopback only)
        return bytes(r.read())


def _query(base: str, promql: str) -> list[dict]:
    data = json.loads(_get(f"{base}/api/v1/query?query={urllib.parse.quote(promql)}"))
    assert data["status"] == "success", data
    return list(data["data"]["result"])


def _value(base: str, promql: str) -> float | None:
    result = _query(base, promql)
    return float(result[0]["value"][1]) if result else None


def _wait(cond, what: str, timeout: float = 60, procs: tuple = ()) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        for p in procs:
            assert p.poll() is None, f"{p.args[0]} exited ({p.returncode}) while waiting " \
                                     f"for {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_prometheus_counts_exactly(tmp_path: Path) -> None:
    prometheus = _prometheus()
    (tmp_path / "w.py").write_text(WORKLOAD)
    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{sys.executable}", "{tmp_path / 'w.py'}", "{tmp_path}"]
        [filter]
        syscalls = ["getppid", "rmdir"]
        [output]
        format = "openmetrics"
        listen = "127.0.0.1:0"
        """)
    err_path = tmp_path / "tracekit.err"
    procs: list[subprocess.Popen] = []
    try:
        with open(err_path, "w") as err:
            tracer = subprocess.Popen([*TRACEKIT, "run", str(cfg)], env=tracekit_env(),
                                      stdout=subprocess.DEVNULL, stderr=err)
        procs.append(tracer)
        port: list[int] = []

        def serving() -> bool:
            m = re.search(r"serving metrics on http://127\.0\.0\.1:(\d+)/metrics",
                          err_path.read_text())
            if m:
                port.append(int(m[1]))
            return bool(m)

        _wait(serving, "tracekit's metrics server", procs=(tracer,))
        (tmp_path / "prometheus.yml").write_text(textwrap.dedent(f"""\
            global:
              scrape_interval: 100ms
              scrape_timeout: 100ms
            scrape_configs:
              - job_name: tracekit
                static_configs:
                  - targets: ["127.0.0.1:{port[0]}"]
            """))
        web = _free_port()
        prom = subprocess.Popen(
            [prometheus, f"--config.file={tmp_path / 'prometheus.yml'}",
             f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{web}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(prom)
        base = f"http://127.0.0.1:{web}"

        def up() -> bool:
            try:
                return _value(base, 'up{job="tracekit"}') == 1
            except OSError:
                return False        # not listening yet

        _wait(up, "Prometheus to scrape tracekit", procs=(tracer, prom))
        (tmp_path / "go").touch()
        _wait(lambda: (tmp_path / "done").exists(), "the workload", procs=(tracer,))
        calls = 'sum(tracekit_syscalls_total{syscall="getppid"})'
        _wait(lambda: _value(base, calls) == N_CALLS, f"{calls} == {N_CALLS}",
              procs=(tracer, prom))
        assert _value(base, calls) == N_CALLS
        errors = 'sum(tracekit_syscall_errors_total{syscall="rmdir",errno="ENOENT"})'
        assert _value(base, errors) == N_ERRORS
        timed = 'sum(tracekit_syscall_duration_seconds_count{syscall="getppid"})'
        assert _value(base, timed) == N_CALLS
        inf = 'sum(tracekit_syscall_duration_seconds_bucket{syscall="getppid",le="+Inf"})'
        assert _value(base, inf) == N_CALLS
        assert _value(base, "tracekit_lost_records_total") == 0
        # never more than the workload made, at any scrape
        series = _query(base, 'max_over_time(tracekit_syscalls_total{syscall="getppid"}[5m])')
        assert float(series[0]["value"][1]) == N_CALLS
        (tmp_path / "exit").touch()
        assert tracer.wait(timeout=60) == 0, err_path.read_text()
    finally:
        (tmp_path / "exit").touch()
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def test_textfile_is_rewritten_while_tracing(tmp_path: Path) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    (tmp_path / "w.py").write_text(WORKLOAD)
    prom_file = tmp_path / "tracekit.prom"
    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["{sys.executable}", "{tmp_path / 'w.py'}", "{tmp_path}"]
        [filter]
        syscalls = ["getppid", "rmdir"]
        [output]
        format = "openmetrics"
        path = "{prom_file}"
        interval_s = 0.2
        labels = ["comm", "tgid"]
        """)
    tracer = subprocess.Popen([*TRACEKIT, "run", str(cfg)], env=tracekit_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        (tmp_path / "go").touch()
        _wait(lambda: (tmp_path / "done").exists(), "the workload", procs=(tracer,))

        def counted() -> dict[tuple[str, ...], float]:
            if not prom_file.exists():
                return {}
            got = {}
            for fam in text_string_to_metric_families(prom_file.read_text()):
                for s in fam.samples:
                    if s.name == "tracekit_syscalls_total":
                        got[(s.labels["syscall"], s.labels["comm"], s.labels["tgid"])] = s.value
            return got

        # rewritten while the trace runs (the workload waits for "exit")
        _wait(lambda: sum(v for k, v in counted().items() if k[0] == "getppid") == N_CALLS,
              "the textfile to show every call", procs=(tracer,))
        assert os.stat(prom_file).st_mode & 0o777 == 0o600
        # one process: its comm (execve's file name, 15 bytes at most) and tgid
        rows = [k for k in counted() if k[0] == "getppid"]
        assert len(rows) == 1 and rows[0][1] == Path(sys.executable).name[:15]
        assert rows[0][2].isdigit()
    finally:
        (tmp_path / "exit").touch()
        _, err = tracer.communicate(timeout=60)
    assert tracer.returncode == 0, err


def test_a_replay_reads_no_cgroup_of_this_machine(tmp_path: Path) -> None:
    """The cgroup label came from /proc/<tgid>/cgroup at the exposition, also in a
    replay, where the recording's tgids name whatever runs under those numbers now: the
    replay printed the cgroup of a process as it is now. A recording holds no cgroups: a
    replay leaves the label empty (absent for Prometheus), says so, and reads no /proc
    even while the traced process still runs (the one read here: the live run's label)."""
    from prometheus_client.parser import text_string_to_metric_families

    from tests._run import die_with_parent, until_orphaned

    workload = subprocess.Popen([sys.executable, "-c", until_orphaned("time.sleep(0.001)")],
                                preexec_fn=die_with_parent)
    try:
        live, rec = tmp_path / "live.prom", tmp_path / "t.tkrec"
        body = """\
            [filter]
            syscalls = ["getppid"]
            [output]
            format = "openmetrics"
            path = "{path}"
            labels = ["tgid", "cgroup"]
            """
        cfg = write_pipeline(tmp_path, body.format(path=live))
        r = subprocess.run([*TRACEKIT, "run", str(cfg), "-p", str(workload.pid),
                            "--timeout", "1", "--record", str(rec)], env=tracekit_env(),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        replayed = tmp_path / "replay.prom"
        cfg2 = write_pipeline(tmp_path, body.format(path=replayed), name="replay.toml")
        r2 = subprocess.run([*TRACEKIT, "replay", str(rec), str(cfg2)], env=tracekit_env(),
                            capture_output=True, text=True, timeout=60)
        assert r2.returncode == 0, r2.stderr
        assert workload.poll() is None          # alive throughout: /proc had its cgroup
    finally:
        workload.kill()
        workload.wait()

    def rows(path: Path) -> dict[tuple[str, str], float]:
        return {(s.labels["tgid"], s.labels["cgroup"]): s.value
                for fam in text_string_to_metric_families(path.read_text())
                for s in fam.samples if s.name == "tracekit_syscalls_total"}

    live_rows, replay_rows = rows(live), rows(replayed)
    ((tgid, cgroup), calls), = live_rows.items()
    assert tgid == str(workload.pid) and cgroup.startswith("/") and calls > 0
    assert replay_rows == {(tgid, ""): calls}
    assert "the cgroup label is empty in a replay" in r2.stderr


def _listen_run(tmp_path: Path, listen: str) -> subprocess.CompletedProcess[str]:
    cfg = write_pipeline(tmp_path, f"""\
        [target]
        command = ["true"]
        [output]
        format = "openmetrics"
        listen = "{listen}"
        """)
    return subprocess.run([*TRACEKIT, "run", str(cfg)], env=tracekit_env(), text=True,
                          capture_output=True, timeout=60)


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "256.1.1.1"])
def test_a_listen_host_that_does_not_resolve_is_said(tmp_path: Path, host: str) -> None:
    """getaddrinfo's error (socket.gaierror, errno -2 EAI_NONAME) was printed as
    'Unknown error -2 (E-2)'."""
    r = _listen_run(tmp_path, f"{host}:9464")
    assert r.returncode in (1, 2)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and host in lines[0], r.stderr
    assert "Unknown error" not in lines[0] and "E-2" not in lines[0], lines[0]
    assert "Name or service not known" in lines[0], lines[0]


def test_an_ipv6_listen_address_is_a_url_with_brackets(tmp_path: Path) -> None:
    """http://::1:PORT/metrics is no URL; http://[::1]:PORT/metrics is (RFC 3986)."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    r = _listen_run(tmp_path, "[::1]:0")
    if "EADDRNOTAVAIL" in r.stderr or "EAFNOSUPPORT" in r.stderr:
        pytest.skip(f"::1 not available here: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    assert re.search(r"serving metrics on http://\[::1\]:\d+/metrics", r.stderr), r.stderr
