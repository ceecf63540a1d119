"""tracekit.notebook: traces on trio's guest mode inside asyncio (directly with asyncio.run,
and end to end: examples/notebook.ipynb executed by nbclient on a real ipykernel).
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
import time
from pathlib import Path

import pytest

import tracekit.notebook as tkn
from tracekit._errors import ConfigError, TargetError
from tracekit._events import Syscall
from tracekit.kernel.syscalls import SyscallTable

pytestmark = pytest.mark.kernel
ROOT = Path(__file__).resolve().parents[2]
KNOWN_SEQ = Path(__file__).parents[1] / "workloads" / "known_seq.py"
N = 300


def _known_seq(tmp_path: Path) -> list[str]:
    target = tmp_path / "target.txt"
    target.write_text("tracekit notebook test\n")
    return [sys.executable, str(KNOWN_SEQ), str(N), str(target)]


def test_guest_mode_trace_live_state_and_exact_counts(tmp_path: Path) -> None:
    async def main() -> dict:
        ticks = 0

        async def ticker() -> None:        # the asyncio loop must stay responsive
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick_task = asyncio.create_task(ticker())
        t = await tkn.start(_known_seq(tmp_path))
        assert t.running and t.stats()["running"]
        live_events = t.stats()["events"]
        ticks_before = ticks
        await t.wait()
        ticks_during = ticks - ticks_before
        assert not t.running
        # a second trace on the same loop after the hub ended: a new hub
        t2 = await tkn.trace(["true"])
        tick_task.cancel()
        return {"t": t, "t2": t2, "ticks": ticks_during, "live_events": live_events}

    res = asyncio.run(main())
    t = res["t"]
    assert t.returncode == 0 and res["t2"].returncode == 0
    assert res["ticks"] > 0                  # asyncio tasks ran while trio traced
    summary = t.summary("thread").summary
    # known_seq: main thread, a second thread and a forked child each call getppid N times
    getppid = {g.tid: s.calls for g in summary.groups for s in g.syscalls
               if s.syscall == "getppid"}
    assert sorted(getppid.values())[-3:] == [N, N, N], getppid
    rows = t.summary("total").rows()
    assert next(r for r in rows if r["syscall"] == "getppid")["calls"] == 3 * N
    page = t.summary("total")._repr_html_()
    assert "<td style=\"text-align:left\">getppid</td>" in page
    assert f'<td style="text-align:right">{3 * N}</td>' in page
    # events: the last n, as dicts and as a polars frame of the Syscall events
    last = t.events(50)
    assert len(last) == 50 and last == t.live.last_events()[-50:]
    dicts = t.events(None).to_dicts()
    assert dicts[0]["type"] in ("syscall", "fork", "exec", "exit", "lost", "reenumerated")
    sys_dicts = [d for d in dicts if d["type"] == "syscall"]
    assert sum(1 for d in sys_dicts if d["syscall_nr"] == SyscallTable().nr("getppid")) \
        == 3 * N
    pl = pytest.importorskip("polars")
    frame = t.events(None).to_polars()
    assert isinstance(frame, pl.DataFrame)
    assert frame.height == len(sys_dicts)
    assert frame.filter(pl.col("syscall") == "getppid").height == 3 * N
    png = t.summary("total").plot(["getppid", "openat"])._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_stop_ends_a_running_command_trace(tmp_path: Path) -> None:
    nanosleep = SyscallTable().nr("clock_nanosleep")

    async def main():
        t = await tkn.start(["sleep", "30"])
        pid = t.live.session.command.pid
        for _ in range(400):  # until sleep really sleeps (a loaded machine is slow to exec)
            if Path(f"/proc/{pid}/syscall").read_text().split()[0] == str(nanosleep):
                break
            await asyncio.sleep(0.025)
        assert t.running
        t.stop()
        return await asyncio.wait_for(t.wait(), 10)

    t0 = time.monotonic()
    t = asyncio.run(main())
    assert time.monotonic() - t0 < 10
    assert t.returncode == -15                       # SIGTERM, as at duration_s
    names = {SyscallTable().name(e.syscall_nr) for e in t.live.last_events()
             if isinstance(e, Syscall)}
    assert "clock_nanosleep" in names


def test_two_traces_at_once_and_start_errors(tmp_path: Path) -> None:
    async def main():
        a = await tkn.start(["sleep", "0.3"])
        b = await tkn.start(_known_seq(tmp_path))
        assert a.hub is b.hub                        # one trio run serves both
        await asyncio.gather(a.wait(), b.wait())
        with pytest.raises(TargetError, match="command not found"):
            await tkn.start(["tracekit-no-such-command-xyz"])
        with pytest.raises(ConfigError, match="unknown syscall 'getppd'"):
            await tkn.start(["true"], syscalls=["getppd"])
        return a, b

    a, b = asyncio.run(main())
    assert a.returncode == 0 and b.returncode == 0
    total = b.summary("total").rows()
    assert next(r for r in total if r["syscall"] == "getppid")["calls"] == 3 * N


def _cell_outputs(nb: dict, tag: str) -> list[dict]:
    for cell in nb["cells"]:
        if tag in cell.get("metadata", {}).get("tags", []):
            return cell["outputs"]
    raise AssertionError(f"no cell tagged {tag!r}")


def test_example_notebook_runs_on_a_real_kernel(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    # the workload cell: the program's report (tids of its three tasks)
    report = None
    for out in _cell_outputs(nb, "trace"):
        if out.get("name") == "stdout":
            m = re.search(r"\{.*\}", out["text"])
            report = json.loads(m.group(0)) if m else report
    assert report is not None and set(report) == {"main", "thread", "child"}
    # the table: the HTML the cell displayed has getppid 3*N times over all tasks, and
    # N per task of the workload, by tid
    table_html = "".join(o["data"]["text/html"] for o in _cell_outputs(nb, "table")
                         if "text/html" in o.get("data", {}))
    assert 'class="tracekit-summary"' in table_html
    rows = re.findall(r"<tr>(.*?)</tr>", table_html)
    cells = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in rows]
    getppid = {c[0]: int(c[2]) for c in cells if c and c[1] == "getppid"}
    for task in ("main", "thread", "child"):
        tid = report[task][0]
        label = next(k for k in getppid if k.endswith(f"({tid})"))
        assert getppid[label] == N, (task, getppid)
    # the plot: a PNG image
    pngs = [o["data"]["image/png"] for o in _cell_outputs(nb, "plot")
            if "image/png" in o.get("data", {})]
    assert pngs and len(pngs[0]) > 1000
    # the live cells ran while the trace was running and saw events
    live = "".join(o.get("text", "") for o in _cell_outputs(nb, "live"))
    m = re.search(r"events while running: (\d+)", live)
    assert m and int(m.group(1)) > 0, live


def test_under_trio_each_call_is_one_error_naming_what_to_use(tmp_path: Path) -> None:
    """Awaited under trio (no asyncio loop), start, trace and replay raise one
    TracekitError that says tracekit.notebook needs an asyncio loop and names the library
    API to use from trio; nothing is started."""
    import trio

    from tracekit._errors import TracekitError

    got: list[str] = []

    async def main() -> None:
        for call in (lambda: tkn.start(["true"]), lambda: tkn.trace(["true"]),
                     lambda: tkn.replay(str(tmp_path / "q.tkrec"))):
            with pytest.raises(TracekitError) as e:
                await call()
            got.append(str(e.value))

    trio.run(main)
    assert len(got) == 3
    for text in got:
        assert "asyncio event loop" in text and "trio" in text, text
        assert "tracekit.open_session" in text and "Pipeline" in text, text
    assert "replay()" in got[2]
