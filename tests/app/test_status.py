"""The live status line: drawn on a (fake) terminal, erased at the end, only when wanted."""

from __future__ import annotations

import io

import pytest
import trio
from rich.console import Console

from tracekit.app.status import StatusLine, StatusSample, format_status, status_wanted


class _Counter:
    """A sampler whose events grow by ``step`` per call."""

    def __init__(self, step: int) -> None:
        self.step, self.events, self.calls = step, 0, 0

    def __call__(self) -> StatusSample:
        self.calls += 1
        self.events += self.step
        return StatusSample(events=self.events, lost=2, tasks=3)


def _draws(out: str) -> list[str]:
    """The texts drawn, in order (rich Live: '\\r ESC[2K' then the styled text)."""
    texts = []
    for part in out.split("\r\x1b[2K")[1:]:
        text = part.replace("\x1b[1m", "").split("\x1b[0m")[0]
        if text:
            texts.append(text)
    return texts


async def _run_line(line: StatusLine, seconds: float) -> None:
    async with trio.open_nursery() as nursery:
        await nursery.start(line.run)
        await trio.sleep(seconds)
        line.stop()


async def test_line_shows_counts_rate_and_is_erased(autojump_clock: trio.abc.Clock) -> None:
    buf = io.StringIO()
    sampler = _Counter(step=100)
    line = StatusLine(sampler, console=Console(file=buf, force_terminal=True, width=120),
                      interval_s=0.5)
    await _run_line(line, 1.2)
    out = buf.getvalue()
    draws = _draws(out)
    # the first sample sets the base: 100 events then; one draw per 0.5 s after
    assert draws[:3] == [
        "tracekit  0.0 s  200 events  0 events/s  2 lost  3 tasks",
        "tracekit  0.5 s  300 events  200 events/s  2 lost  3 tasks",
        "tracekit  1.0 s  400 events  200 events/s  2 lost  3 tasks",
    ]
    assert sampler.calls == 4
    # transient: the last thing written moves up over the line and erases it
    assert out.endswith("\x1b[1A\x1b[2K"), repr(out[-40:])
    assert line.last_text == draws[2]


async def test_cancelled_line_is_erased_too(autojump_clock: trio.abc.Clock) -> None:
    buf = io.StringIO()
    line = StatusLine(_Counter(1), console=Console(file=buf, force_terminal=True, width=80))
    with trio.move_on_after(2):
        await line.run()
    assert buf.getvalue().endswith("\x1b[1A\x1b[2K")


def test_format_status_system_wide_and_singular() -> None:
    assert format_status(3.25, StatusSample(1234567, 0, None), 1500.4) == (
        "tracekit  3.2 s  1,234,567 events  1,500 events/s  0 lost")
    assert format_status(0, StatusSample(0, 0, 1), 0).endswith("  1 task")


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(("path", "tty", "term", "want"), [
    ("out.jsonl", True, "xterm", True),
    ("-", True, "xterm", False),          # events on stdout: the line would mix in
    ("out.jsonl", False, "xterm", False),  # stderr is a pipe or a file
    ("out.jsonl", True, "dumb", False),
])
def test_status_wanted(path: str, tty: bool, term: str, want: bool,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", term)
    assert status_wanted(path, _Stream(tty)) is want
