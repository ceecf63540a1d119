"""strace -ff's files (SplitStraceFormatter): a task's file is closed at its exit, and a
line for its tid that comes later is added to the end of that file, with the protections
of every output (tracekit.formatters._output.append_output): never truncated, never
through a symlink, never into a fifo or another file put at the name. No kernel: records
shaped as the ring buffer gives them, in batches as the reorder stage releases them."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
import trio
import trio.testing

from tracekit._errors import OutputError
from tracekit._events import Batch, Exit
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.fdcache import FdCache
from tracekit.formatters._output import append_output, file_id, open_output
from tracekit.formatters.strace import SplitStraceFormatter

from .test_strace import I386, OFFSET, X64, sc


def split(prefix: Path) -> SplitStraceFormatter:
    dec = SyscallDecoder(X64, I386, fdcache=FdCache("/nonexistent"), fd_paths=False)
    return SplitStraceFormatter(str(prefix), decoder=dec, wall_offset_ns=OFFSET)


def exit_(tid: int, ts_ms: float, code: int = 0, superseded_by: int = 0) -> Exit:
    return Exit(ts_ns=1_000_000_000 + int(ts_ms * 1e6), tid=tid, tgid=tid,
                exit_code=code << 8, group_dead=not superseded_by, comm="t",
                superseded_by=superseded_by)


async def feed(f: SplitStraceFormatter, batches: list[Batch],
               between: dict[int, Callable[[], object]] | None = None) -> None:
    """Run ``f`` on ``batches``; before batch ``i`` is sent, once ``f`` has written
    every earlier one, call ``between[i]()`` (a file planted at a name)."""
    send, recv = trio.open_memory_channel[Batch](0)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(f.run, None, recv)
            async with send:
                for i, batch in enumerate(batches):
                    await trio.testing.wait_all_tasks_blocked()
                    if between and i in between:
                        between[i]()
                    await send.send(batch)


async def test_a_file_is_closed_at_its_exit_and_a_late_line_is_appended(tmp_path: Path
                                                                        ) -> None:
    prefix = tmp_path / "p"
    f = split(prefix)
    open_between: list[set[int]] = []
    await feed(f, [
        [sc("getpid", (), 100, ts_ms=1, tid=100), sc("getpid", (), 200, ts_ms=2, tid=200),
         exit_(100, 3)],
        # a record that came after the exit (a call longer than the reorder window)
        [sc("write", (1, 0x1000, 5), 5, ts_ms=2.5, tid=100), exit_(200, 4, 1)],
    ], between={1: lambda: open_between.append(set(f.files))})
    assert open_between == [{200}]                      # 100 closed after its exit
    assert all(out.closed for out in f.files.values())  # the rest closed at the end
    assert (tmp_path / "p.100").read_text() == (
        "10:00:00.001000 getpid() = 100 <0.000012>\n"
        "+++ exited with 0 +++\n"
        "10:00:00.002500 write(1, 0x1000, 5) = 5 <0.000012>\n")
    assert (tmp_path / "p.200").read_text() == (
        "10:00:00.002000 getpid() = 200 <0.000012>\n"
        "+++ exited with 1 +++\n")
    assert stat.S_IMODE(os.stat(tmp_path / "p.100").st_mode) == 0o600
    assert (f.failed, f.unwritten_lines) == ({}, 0)


async def test_files_of_ended_tasks_are_closed_within_one_batch(tmp_path: Path) -> None:
    """A batch of many short tasks: each file is closed before the next task's is made,
    so no more than the live tasks' files are open at once."""
    f = split(tmp_path / "p")
    most = 0
    real_stream = f._stream

    def counting(tid: int) -> IO[bytes] | None:
        nonlocal most
        out = real_stream(tid)
        most = max(most, len(f.files))
        return out

    f._stream = counting                    # type: ignore[method-assign]
    batch: Batch = [sc("getpid", (), 1, ts_ms=0, tid=1)]
    for k in range(2, 202):
        batch += [sc("getpid", (), k, ts_ms=k, tid=k), exit_(k, k + 0.5)]
    await feed(f, [batch, [exit_(1, 300)]])
    assert most == 2                        # the parent's and one child's
    assert len(list(tmp_path.glob("p.*"))) == 201


async def test_a_superseded_leader_closes_the_exec_ing_threads_old_tid(tmp_path: Path
                                                                      ) -> None:
    """A thread's execve took its leader's tid: the leader's exit closes the file of the
    thread's old tid too (that tid ends without an exit record), and the thread's lines
    as the leader's tid go on in the leader's file."""
    f = split(tmp_path / "p")
    open_between: list[set[int]] = []
    await feed(f, [
        [sc("getpid", (), 500, ts_ms=1, tid=500), sc("gettid", (), 502, ts_ms=2, tid=502),
         exit_(500, 3, superseded_by=502)],
        [sc("getpid", (), 500, ts_ms=4, tid=500)],       # the exec'ing thread, as 500
    ], between={1: lambda: open_between.append(set(f.files))})
    assert open_between == [set()]
    assert (tmp_path / "p.500").read_text().splitlines() == [
        "10:00:00.001000 getpid() = 500 <0.000012>",
        "+++ superseded by execve in pid 502 +++",
        "10:00:00.004000 getpid() = 500 <0.000012>"]


@pytest.mark.parametrize(("kind", "code"), [("symlink", errno.ELOOP),
                                            ("fifo", errno.EEXIST)])
async def test_a_name_taken_after_the_exit_is_refused_not_written(
        tmp_path: Path, kind: str, code: int) -> None:
    """The traced process put a symlink (or a fifo nobody reads) at its closed file's
    name: the late line is refused and counted, nothing is written through the link,
    nothing waits on the fifo; the other task's file goes on."""
    prefix = tmp_path / "p"
    target = tmp_path / "target"
    target.write_text("theirs\n")
    failed: list[tuple[int, int]] = []

    def plant() -> None:
        (tmp_path / "p.100").rename(tmp_path / "moved")
        if kind == "symlink":
            (tmp_path / "p.100").symlink_to(target)
        else:
            os.mkfifo(tmp_path / "p.100")

    f = split(prefix)
    f.on_failed = lambda tid, e: failed.append((tid, e.errno))
    await feed(f, [
        [sc("getpid", (), 100, ts_ms=1, tid=100), exit_(100, 2)],
        [sc("getpid", (), 100, ts_ms=1.5, tid=100), sc("getpid", (), 7, ts_ms=3, tid=7)],
    ], between={1: plant})
    assert failed == [(100, code)]
    assert (f.unwritten_lines, list(f.failed)) == (1, [100])
    assert target.read_text() == "theirs\n"
    assert (tmp_path / "moved").read_text().endswith("+++ exited with 0 +++\n")
    assert (tmp_path / "p.7").read_text() == "10:00:00.003000 getpid() = 7 <0.000012>\n"


def test_append_output_adds_to_the_file_it_made(tmp_path: Path) -> None:
    path = tmp_path / "f"
    out = open_output(path, in_place=False)
    out.write(b"one\n")
    made = file_id(out)
    out.close()
    again = append_output(path, made)
    again.write(b"two\n")
    again.close()
    assert path.read_bytes() == b"one\ntwo\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_append_output_replaces_another_file_and_makes_a_missing_one(tmp_path: Path
                                                                     ) -> None:
    """Not the file it made (another regular file moved to the name, say a hard link
    to someone's file): a new file of ours replaces it, as open_output does; theirs is
    never opened. A name left empty gets a new file."""
    path = tmp_path / "f"
    out = open_output(path, in_place=False)
    made = file_id(out)
    out.close()
    theirs = tmp_path / "theirs"
    theirs.write_text("theirs\n")
    theirs.chmod(0o644)
    path.unlink()
    os.link(theirs, path)
    again = append_output(path, made)
    again.write(b"ours\n")
    again.close()
    assert (theirs.read_text(), path.read_text()) == ("theirs\n", "ours\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.unlink()
    append_output(path, made).close()
    assert path.read_bytes() == b""


def test_append_output_refuses_a_symlink_to_its_own_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    out = open_output(path, in_place=False)
    out.write(b"one\n")
    made = file_id(out)
    out.close()
    path.rename(tmp_path / "g")
    path.symlink_to(tmp_path / "g")         # the same inode behind a link: still refused
    with pytest.raises(OutputError) as ei:
        append_output(path, made)
    assert ei.value.errno == errno.ELOOP
    assert (tmp_path / "g").read_bytes() == b"one\n"


async def test_a_new_task_with_a_failed_tid_gets_a_file(tmp_path: Path) -> None:
    """Task 7's file cannot be made (a directory holds the name): its lines are dropped.
    After its exit the name is free again, and a new task with tid 7 (a reused pid)
    gets a file of its own."""
    prefix = tmp_path / "p"
    (tmp_path / "p.7").mkdir()
    f = split(prefix)
    await feed(f, [
        [sc("getpid", (), 7, ts_ms=1, tid=7), exit_(7, 2)],
        [sc("getppid", (), 1, ts_ms=3, tid=7), exit_(7, 4)],
    ], between={1: lambda: (tmp_path / "p.7").rmdir()})
    assert list(f.failed) == [7] and f.unwritten_lines == 2
    assert (tmp_path / "p.7").read_text() == (
        "10:00:00.003000 getppid() = 1 <0.000012>\n"
        "+++ exited with 0 +++\n")


def test_append_output_refuses_its_file_changed_since(tmp_path: Path) -> None:
    """The same inode, written by someone else since tracekit closed it (or deleted and
    made again on the same inode number): not added to; a new file of ours takes the
    name."""
    path = tmp_path / "f"
    out = open_output(path, in_place=False)
    out.write(b"one\n")
    made = file_id(out)
    out.close()
    time.sleep(0.02)        # a clock tick later: where ctime is coarse, it moves too
    with open(path, "r+b") as theirs:       # same size, same inode: only ctime tells
        theirs.write(b"two\n")
    assert os.stat(path).st_ino == made.ino and os.stat(path).st_size == made.size
    again = append_output(path, made)
    again.write(b"ours\n")
    again.close()
    assert path.read_bytes() == b"ours\n"


async def test_a_task_file_that_is_the_commands_program_is_not_made(tmp_path: Path) -> None:
    """-ff: a task's ``PREFIX.TID`` that is the traced program (here the program's own
    name) is refused as ``-o`` refuses it: that task's lines are not written, the program
    is untouched, the other tasks' files are made."""
    import functools

    from tracekit.app.inputs import check_output_not_input

    prefix = tmp_path / "p"
    program = tmp_path / "p.100"
    program.write_bytes(b"\x7fELF program")
    f = split(prefix)
    f.refuse = functools.partial(check_output_not_input,
                                 inputs=[("command's program", str(program))])
    await feed(f, [[sc("getpid", (), 100, ts_ms=1, tid=100),
                    sc("getpid", (), 200, ts_ms=2, tid=200)]])
    assert program.read_bytes() == b"\x7fELF program"
    assert list(f.failed) == [100] and f.unwritten_lines == 1
    assert str(f.failed[100]) == (f"output path '{program}' is the command's program "
                                  f"'{program}': the trace would be written over it; give another "
                                  "output path")
    assert (tmp_path / "p.200").read_text() == "10:00:00.002000 getpid() = 200 <0.000012>\n"
