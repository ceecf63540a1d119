"""execve's environment under ``tracekit strace -v`` and without it, next to strace 6.1
on the real kernel: with -v both print the strings (each cut at -s, every one of them),
without it the address and the count; the strings are read in the kernel only for -v
(JSON Lines shows the captures a trace made)."""

from __future__ import annotations

import base64
import json
import pathlib
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence

import pytest

from tests._run import WORKLOADS
from tests.e2e._strace_cli import normalise
from tracekit._events import CAP_ENVP

pytestmark = pytest.mark.kernel

TRACEKIT = [sys.executable, "-m", "tracekit"]
needs_strace = pytest.mark.skipif(shutil.which("strace") is None,
                                  reason="strace 6.1 is needed")

# more variables than argv's 32 elements, an empty value, strings longer than -s, bytes
# strace escapes (a quote, a backslash, a newline, a tab, a non-ASCII byte); no LANG or
# LC_*: the Python that runs tracekit coerces its locale then (PEP 538), which must not
# reach the command
ENVIRONMENT = {
    **{f"V{i:02d}": "x" * (i % 7) for i in range(40)},
    "EMPTY": "",
    "LONG": "y" * 100,
    "HOSTILE": 'a"b\\c\nd\te\u00e9',
    "PATH": "/usr/bin:/bin",
}


def _execve_line(text: str) -> str:
    (line,) = [ln for ln in text.splitlines() if ln.startswith('execve("/bin/true"')]
    return normalise(line, None)


def _both(opts: list[str], args: Sequence[str] = (),
          env: Mapping[str, str] = ENVIRONMENT) -> tuple[str, str]:
    """The execve line of ``strace OPTS /bin/true ARGS`` and of ``tracekit strace OPTS
    /bin/true ARGS``, both with ``env``."""
    out = []
    for tool in (["strace"], [*TRACEKIT, "strace"]):
        r = subprocess.run([*tool, *opts, "-e", "trace=execve", "/bin/true", *args],
                           env=env, capture_output=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out.append(_execve_line(r.stderr.decode("utf-8", "surrogateescape")))
    return out[0], out[1]


@needs_strace
@pytest.mark.parametrize("opts", [["-v"], ["-v", "-s", "5"], ["-e", "abbrev=none"],
                                  ["-v", "-s", "200", "-x"]],
                         ids=["-v", "-v -s 5", "abbrev=none", "-v -s 200 -x"])
def test_verbose_environment_as_strace_prints_it(opts: list[str]) -> None:
    strace, tracekit = _both(opts)
    assert "vars */" not in strace
    assert len(re.findall(r'"(?:\.\.\.)?, "', strace)) == len(ENVIRONMENT) - 1  # every one
    assert tracekit == strace


@needs_strace
def test_default_counts_the_environment() -> None:
    strace, tracekit = _both([])
    assert re.search(rf"0xa+ /\* {len(ENVIRONMENT)} vars \*/\) += 0$", tracekit), tracekit
    assert tracekit == strace


def _envp_captures(opts: list[str]) -> list[dict[str, object]]:
    """The envp captures (JSON Lines ``caps`` of argument 2) of /bin/true's execve."""
    r = subprocess.run([*TRACEKIT, "run", "-F", "jsonl", *opts, "-e", "execve", "--",
                        "/bin/true"], env=ENVIRONMENT, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (call,) = [ev for ev in map(json.loads, r.stdout.splitlines())
               if ev["type"] == "syscall" and ev["ret"] == 0]
    return [c for c in call["caps"] if c["arg"] == 2]


def test_strings_are_read_only_for_verbose_output() -> None:
    plain = _envp_captures([])
    # the pointer array, and a walk of it that keeps at most 2 bytes of a string (to
    # count them when the array reads run off its mapping)
    assert plain and any(c["kind"] != CAP_ENVP for c in plain)
    for c in plain:
        if c["kind"] == CAP_ENVP:
            items = base64.b64decode(str(c["data"])).split(b"\0")[:-1]
            assert len(items) == len(ENVIRONMENT) and max(map(len, items)) <= 2
    (strings,) = _envp_captures(["-v"])
    assert strings["kind"] == CAP_ENVP
    data = base64.b64decode(str(strings["data"]))
    names = [item.partition(b"=")[0].decode() for item in data.split(b"\0")[:-1]]
    assert names == list(ENVIRONMENT)               # in order, each cut at -s + 1 at most


@needs_strace
def test_failed_execve_counts_the_environment() -> None:
    """dash's PATH search: each failed execve's envp (an array on dash's heap, near the
    end of its mapping) with its count, as strace prints it."""
    out = []
    for tool in (["strace"], [*TRACEKIT, "strace"]):
        r = subprocess.run([*tool, "-f", "-e", "trace=execve", "/bin/sh", "-c",
                            "exec nosuchcmd"], env=ENVIRONMENT, capture_output=True,
                           timeout=120)
        assert r.returncode == 127, r.stderr
        out.append([normalise(ln, None) for ln in
                    r.stderr.decode("utf-8", "surrogateescape").splitlines()
                    if 'nosuchcmd", ["nosuchcmd"]' in ln])
    strace, tracekit = out
    assert len(strace) == 2 and all("vars */) = -1 ENOENT" in ln for ln in strace), strace
    assert tracekit == strace


@needs_strace
def test_failed_execve_counts_an_array_at_the_end_of_its_mapping(
        tmp_path: pathlib.Path) -> None:
    """tests/workloads/envp_edge.c: envp arrays of 40, 3, 255, 256 and 1 pointers that
    end where a PROT_NONE page starts, each execve failing: counted as strace counts them
    (``/* 1 var */`` in the singular)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build tests/workloads/envp_edge.c")
    exe = tmp_path / "envp_edge"
    subprocess.run([gcc, "-O1", "-Wall", "-Werror", "-o", str(exe),
                    str(WORKLOADS / "envp_edge.c")], check=True, capture_output=True)
    out = []
    for tool in (["strace"], [*TRACEKIT, "strace"]):
        r = subprocess.run([*tool, "-e", "trace=execve", str(exe)], env=ENVIRONMENT,
                           capture_output=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out.append([normalise(ln, None) for ln in
                    r.stderr.decode("utf-8", "surrogateescape").splitlines()
                    if ln.startswith('execve("/nonexistent/x"')])
    strace, tracekit = out
    assert [re.findall(r"/\* (\d+ vars?) \*/", ln) for ln in strace] == [
        ["40 vars"], ["3 vars"], ["255 vars"], ["256 vars"], ["1 var"]], strace
    assert tracekit == strace


@needs_strace
@pytest.mark.parametrize("n", [0, 1, 2])
def test_environment_counts_agree_with_strace(n: int) -> None:
    """``env -i`` passing n variables: ``/* 0 vars */``, ``/* 1 var */``, ``/* 2 vars */``
    on the exec of /bin/true, as strace prints them."""
    out = []
    for tool in (["strace"], [*TRACEKIT, "strace"]):
        r = subprocess.run([*tool, "-f", "-e", "trace=execve", "env", "-i",
                            *[f"V{i}=x" for i in range(n)], "/bin/true"],
                           capture_output=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out.append([normalise(ln, None) for ln in
                    r.stderr.decode("utf-8", "surrogateescape").splitlines()
                    if ln.startswith(('execve("/bin/true"', '[pid'))])
    strace, tracekit = out
    assert len(strace) == 1 and strace[0].endswith(
        f"/* {n} var{'' if n == 1 else 's'} */) = 0"), strace
    assert tracekit == strace


@needs_strace
def test_perf_format_prints_the_strings_with_verbose() -> None:
    strace, _ = _both(["-v"])
    array = strace[strace.index("], [") + 3:strace.rindex(")")]
    r = subprocess.run([*TRACEKIT, "run", "-v", "-e", "execve", "--", "/bin/true"],
                       env=ENVIRONMENT, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (line,) = [ln for ln in r.stdout.decode("utf-8", "surrogateescape").splitlines()
               if 'filename: "/bin/true"' in ln]
    assert line.endswith(f"envp: {array}) = 0"), line


@needs_strace
@pytest.mark.parametrize("opts", [[], ["-v"], ["-s", "40"], ["-v", "-s", "3"]],
                         ids=["default", "-v", "-s 40", "-v -s 3"])
def test_argv_elements_as_strace_prints_them(opts: list[str]) -> None:
    """strace prints -s elements of argv (then ``...``), every one with -v; 60 here."""
    strace, tracekit = _both(opts, [f"a{i}" for i in range(1, 60)])
    assert ('"a59"]' in strace) == ("-v" in opts)
    assert tracekit == strace


@needs_strace
@pytest.mark.parametrize("opts", [["-s", "2000"], ["-v", "-s", "2000"]],
                         ids=["-s 2000", "-v -s 2000"])
def test_element_cut_at_1024_bytes_shows_the_cut(opts: list[str]) -> None:
    """The kernel side reads at most 1024 bytes of an argv or envp element: with -s above
    that, a longer one shows its first 1024 bytes and ``...`` where strace shows -s of
    them; one of exactly 1024 bytes shows whole, as strace's (perf format too)."""
    env = {**ENVIRONMENT, "LONGV": "v" * 5000}
    args = ["y" * 5000, "w" * 1024, "z"]
    strace, tracekit = _both(opts, args, env)
    assert f'"{"y" * 2000}"...' in strace and f'"{"w" * 1024}"' in strace
    assert ('"LONGV=' in strace) == ("-v" in opts)
    expected = strace.replace(f'"{"y" * 2000}"...', f'"{"y" * 1024}"...').replace(
        f'"LONGV={"v" * 1994}"...', f'"LONGV={"v" * 1018}"...')
    assert tracekit == expected
    r = subprocess.run([*TRACEKIT, "run", *opts, "-e", "execve", "--", "/bin/true", *args],
                       env=env, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (line,) = [ln for ln in r.stdout.decode("utf-8", "surrogateescape").splitlines()
               if 'filename: "/bin/true"' in ln]
    argv = expected[expected.index(", [") + 2:expected.index("], ") + 1]
    assert f"argv: {argv}" in line, line
    if "-v" in opts:
        assert f'"LONGV={"v" * 1018}"...' in line
