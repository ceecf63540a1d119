"""HeldCommand: held before exec, exec errors, several waiters (no root needed)."""

from __future__ import annotations

import signal

import pytest
import trio

from tracekit._errors import TargetError
from tracekit.session.spawn import HeldCommand, resolve_command


async def test_many_tasks_may_wait_for_the_command() -> None:
    cmd = HeldCommand(["sh", "-c", "exit 3"])
    results: list[int] = []

    async def waiter() -> None:
        results.append(await cmd.wait())

    try:
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(waiter)
            await trio.sleep(0.01)
            await cmd.release()
    finally:
        cmd.close()
    assert results == [3, 3, 3]


async def test_signal_and_exec_failure() -> None:
    cmd = HeldCommand(["sleep", "30"])
    try:
        await cmd.release()
        cmd.send_signal(signal.SIGTERM)
        with trio.fail_after(10):
            assert await cmd.wait() == -signal.SIGTERM
    finally:
        cmd.close()


async def test_unreleased_command_never_runs(tmp_path) -> None:
    marker = tmp_path / "ran"
    cmd = HeldCommand(["touch", str(marker)])
    cmd.close()  # never released: the child exits 127 without exec
    await trio.sleep(0.05)
    assert not marker.exists()


def test_command_not_found_and_not_executable(tmp_path) -> None:
    with pytest.raises(TargetError, match="command not found: 'no-such-cmd-tracekit'"):
        resolve_command(["no-such-cmd-tracekit"])
    script = tmp_path / "x.sh"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(TargetError, match="not executable"):
        resolve_command([str(script)])
    with pytest.raises(TargetError, match="empty"):
        resolve_command([])


async def test_exec_failure_in_the_child_names_the_errno(tmp_path) -> None:
    bogus = tmp_path / "bogus"
    bogus.write_bytes(b"\x7fELF garbage")
    bogus.chmod(0o755)
    cmd = HeldCommand([str(bogus)])
    try:
        with pytest.raises(TargetError, match=r"cannot execute .*bogus.*ENOEXEC"):
            await cmd.release()
        assert await cmd.wait() == 127
    finally:
        cmd.close()


async def test_signal_to_a_held_child_takes_its_default_action() -> None:
    """A signal forwarded before release is not swallowed by handlers the child inherited
    from the parent (they are replaced, with signals blocked across fork)."""
    for _ in range(20):
        cmd = HeldCommand(["sleep", "30"])
        try:
            cmd.send_signal(signal.SIGINT)
            with trio.fail_after(10):
                assert await cmd.wait() == -signal.SIGINT
        finally:
            cmd.close()


async def test_a_held_child_a_signal_ended_is_released_without_error(tmp_path) -> None:
    """The signal sent on to a held command ended it before release: release() wrote to
    a pipe with no reader (EPIPE). It raised BrokenPipeError, which ``tracekit run``
    took for its output's reader going away and ended with status 0 instead of 130."""
    marker = tmp_path / "ran"
    cmd = HeldCommand(["touch", str(marker)])
    try:
        cmd.send_signal(signal.SIGINT)
        with trio.fail_after(10):
            await trio.lowlevel.wait_readable(cmd._pidfd)   # gone, not reaped yet
            await cmd.release()
            assert await cmd.wait() == -signal.SIGINT
    finally:
        cmd.close()
    assert not marker.exists()
