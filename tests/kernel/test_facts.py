"""tracekit.kernel.facts: the live system's answers never raise on a traced process's
race (a link followed while it goes away)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tracekit.kernel.facts import LiveFacts


def test_realpath_of_a_link_gone_while_followed(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """os.path.realpath lstat()s the link, then readlink()s it: the link removed between
    the two (as /proc/<pid>/ns/net when the process exits) is the path as given, where
    realpath itself raises FileNotFoundError."""
    link = tmp_path / "net"
    link.symlink_to("net:[4026531840]")
    readlink = os.readlink

    def removed_first(path, *args, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(path) == str(link):
            link.unlink()                   # the process exited after the lstat
        return readlink(path, *args, **kw)

    monkeypatch.setattr(os, "readlink", removed_first)
    with pytest.raises(FileNotFoundError):
        os.path.realpath(link)
    link.symlink_to("net:[4026531840]")
    assert LiveFacts().reader("test").realpath(str(link)) == str(link)


def test_realpath_of_a_process_namespace_link() -> None:
    """A live process's ns link is followed (its target is no path: it is appended, as
    os.path.realpath does); an exited one's is the path as given."""
    with subprocess.Popen(["sleep", "30"]) as child:
        path = f"/proc/{child.pid}/ns/net"
        try:
            assert LiveFacts().reader("test").realpath(path).startswith(f"{path}:[")
        finally:
            child.kill()
    assert LiveFacts().reader("test").realpath(path) == path
