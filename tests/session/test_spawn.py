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


async def test_a_failure_without_errno_in_the_child_is_told_with_its_cause() -> None:
    # os.execve refuses a name with "=" (ValueError): the child used to _exit(127) and
    # the command seemed to run and exit 127
    cmd = HeldCommand(["true"], env={"A=B": "1"})
    try:
        with pytest.raises(TargetError, match=r"^cannot execute '/\S+/true': ValueError: "
                                              r".*environment variable name"):
            await cmd.release()
        assert await cmd.wait() == 127
    finally:
        cmd.close()


async def test_an_empty_variable_name_reaches_the_command(tmp_path) -> None:
    out = tmp_path / "env"
    cmd = HeldCommand(["sh", "-c", f"cat /proc/$$/environ > {out}"], env={"": "x", "B": "2"})
    try:
        await cmd.release()
        with trio.fail_after(10):
            assert await cmd.wait() == 0
    finally:
        cmd.close()
    assert out.read_bytes().split(b"\0")[:2] == [b"=x", b"B=2"]


async def test_which_credential_call_failed_is_said() -> None:
    # setgroups/setgid/setuid before exec: without CAP_SETGID setgroups fails with EPERM
    # (root without the two capabilities, or another user: setgroups is the first call);
    # it was said as "cannot execute ...: EPERM", as if exec had failed
    import os

    if os.geteuid() == 0:
        import subprocess
        import sys

        code = ("import trio, pytest\n"
                "from tracekit.session.spawn import HeldCommand\n"
                "from tracekit._errors import TargetError\n"
                "async def main():\n"
                "    cmd = HeldCommand(['true'], creds=(65534, 65534, (65534,)))\n"
                "    try:\n"
                "        await cmd.release()\n"
                "    except TargetError as e:\n"
                "        print(e)\n"
                "    finally:\n"
                "        cmd.close()\n"
                "trio.run(main)\n")
        import shutil

        if shutil.which("capsh") is None:
            pytest.skip("needs capsh to drop CAP_SETUID and CAP_SETGID")
        r = subprocess.run(["capsh", "--drop=cap_setuid,cap_setgid", "--",
                            "-c", 'exec "$0" -c "$1"', sys.executable, code],
                           capture_output=True, text=True, timeout=60)
        text = r.stdout.strip() or r.stderr
    else:
        cmd = HeldCommand(["true"], creds=(0, 0, (0,)))
        try:
            with pytest.raises(TargetError) as ei:
                await cmd.release()
        finally:
            cmd.close()
        text = str(ei.value)
    assert text.startswith("cannot start '") and "': setgroups failed: EPERM " in text
