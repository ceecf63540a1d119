"""The files a run reads, and the refusal of an output path that names one of them.

An output file is replaced by a new file of tracekit's own (tracekit.formatters._output),
so ``-o pipeline.toml`` or an output path that is the traced program itself would destroy
an input of the run; it is refused before anything is written.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

from tracekit._errors import ConfigError, quoted

__all__ = ["check_output_not_input", "run_inputs"]


def run_inputs(pipeline: Path | None, command: Sequence[str] | None) -> list[tuple[str, str]]:
    """``(what, path)`` of each file a run reads: the pipeline file, the command's program
    (``argv[0]`` looked up in ``PATH`` as the command is started), when there are."""
    inputs: list[tuple[str, str]] = []
    if pipeline is not None:
        inputs.append(("pipeline file", os.fspath(pipeline)))
    if command:
        program = shutil.which(command[0]) if os.sep not in command[0] else command[0]
        if program is not None:
            inputs.append(("command's program", program))
    return inputs


def check_output_not_input(output: str, inputs: Sequence[tuple[str, str]]) -> None:
    """Refuse an output path that is (the same file as) one of ``inputs``.

    Files are compared by device and inode, so a hard link, ``./`` or ``..`` in the path
    and a symbolic link to an input are found too. A path that does not exist yet, or
    a standard stream (``"-"``, ``/dev/stdout``, ``/dev/stderr``), names no input.

    Raises:
      ConfigError: ``output path '...' is the pipeline file '...'`` and what to do.
    """
    from tracekit.formatters._output import std_stream_of

    if std_stream_of(output) is not None or not output:
        return
    try:
        out = os.stat(output)
    except (OSError, ValueError):
        # not there yet: another output of the run (the recording) may make it too;
        # compared as check_outputs compares the outputs, by absolute path (a path that
        # is none: open_output reports what is wrong)
        key = os.path.normpath(os.path.abspath(output))
        for what, path in inputs:
            if path and std_stream_of(path) is None and \
                    os.path.normpath(os.path.abspath(path)) == key:
                raise ConfigError(f"output path {quoted(output)} is the {what} "
                                  f"{quoted(path)}: both would write it; give another "
                                  "output path") from None
        return
    if stat.S_ISCHR(out.st_mode):
        return          # a device (/dev/null) is written in place, never replaced
    for what, path in inputs:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            raise ConfigError(f"output path {quoted(output)} is the {what} "
                              f"{quoted(path)}: the trace would be written over it; give "
                              "another output path")
