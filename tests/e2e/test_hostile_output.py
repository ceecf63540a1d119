"""A traced process that names itself and its files with hostile bytes (not UTF-8, a
backslash, quotes, a newline, terminal escapes, a C1 control) cannot crash any output or
reach the terminal raw, and the JSON outputs give its bytes back exactly.

The process is real: it sets its comm with prctl(PR_SET_NAME), opens a file with a
hostile name and execs a program through a symlink with a hostile name (the kernel makes
the new comm from it), all traced through every format.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import msgspec
import pytest

from tests._run import run_tracekit, write_pipeline
from tracekit._events import Event, Exec, Syscall
from tracekit.formatters import escape, unescape

pytestmark = pytest.mark.kernel

# 15 bytes, the most a comm holds: invalid UTF-8, a backslash and what looks like the
# escape of 0xff after it, a quote, a newline, an SGR sequence, a C1 CSI (U+009B)
COMM = b'a\xff\\xff"\n\x1b[31m\xc2\x9b'
OPEN_NAME = b'o\xfe\\x\x1b[2J"\'\n\x07'
EXE_NAME = b'e\xfd\\"\x1b]0;t\x07\n'      # the comm after exec: its first 15 bytes

WORKLOAD_BODY = r'''
import ctypes, os, sys
d = os.fsencode(sys.argv[1])
pid = os.fork()
if pid == 0:            # the child names itself, calls and opens, and exits
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(15, ctypes.c_char_p(COMM), 0, 0, 0) != 0:      # PR_SET_NAME
        os._exit(3)
    os.getppid()
    try:
        os.open(d + b"/" + OPEN_NAME, os.O_RDONLY)
    except OSError:
        pass
    os._exit(0)
_, status = os.waitpid(pid, 0)
if status:
    sys.exit(f"child: {status}")
exe = d + b"/" + EXE_NAME     # the parent execs through a hostile name
os.execv(exe, [exe])
'''

WORKLOAD = f"COMM, OPEN_NAME, EXE_NAME = {COMM!r}, {OPEN_NAME!r}, {EXE_NAME!r}\n" + WORKLOAD_BODY

RAW_FORBIDDEN = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def _trace(tmp_path: Path, output: str) -> bytes:
    script = tmp_path / "hostile.py"
    script.write_text(WORKLOAD)
    (tmp_path / EXE_NAME.decode("utf-8", "surrogateescape")).symlink_to("/bin/true")
    out = tmp_path / "out"
    pipeline = write_pipeline(tmp_path, f"""\
        [target]
        command = [{json.dumps(sys.executable)}, {json.dumps(str(script))},
                   {json.dumps(str(tmp_path))}]
        [filter]
        syscalls = ["getppid", "openat", "execve", "exit_group", "wait4"]
        [output]
        path = {json.dumps(str(out))}
        {output}
        """)
    r = run_tracekit(["run", str(pipeline)])
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    data = out.read_bytes()
    assert data
    # nothing a terminal would act on, and the whole output is UTF-8
    assert not RAW_FORBIDDEN.search(data), RAW_FORBIDDEN.search(data)
    data.decode("utf-8")
    return data


def _shown(raw: bytes) -> str:
    return escape(raw.decode("utf-8", "surrogateescape"))


def test_jsonl_gives_the_exact_bytes_back(tmp_path: Path) -> None:
    data = _trace(tmp_path, 'format = "jsonl"')
    events = msgspec.json.Decoder(Event).decode_lines(data)     # the README's reader
    assert [json.loads(line) for line in data.splitlines()]     # and any JSON reader
    comms = {unescape(ev.comm) for ev in events if isinstance(ev, Syscall)}
    assert COMM in comms, comms
    execs = [ev for ev in events if isinstance(ev, Exec)
             and unescape(ev.filename).endswith(EXE_NAME)]
    assert len(execs) == 1, events
    assert unescape(execs[0].comm) == EXE_NAME[:15]
    # one encoding: the literal backslash before "xff" and the byte 0xff differ
    assert b'"a\\\\xff\\\\\\\\xff\\"\\\\x0a' in data


def test_perf_text_escapes_comm(tmp_path: Path) -> None:
    text = _trace(tmp_path, 'format = "perf"').decode()
    assert f" {_shown(COMM)}/" in text
    assert f" {_shown(EXE_NAME[:15])}/" in text


def test_strace_text_escapes_paths(tmp_path: Path) -> None:
    text = _trace(tmp_path, 'format = "strace"').decode()
    assert r'/o\376\\x\33[2J\"' + "'" + r'\n\7"' in text        # strace's own escaping
    assert r'/e\375\\\"\33]0;t\7\n"' in text


@pytest.mark.parametrize("table", ["perf", "strace", "histogram"])
@pytest.mark.parametrize("mode", ["kernel", "stream"])
def test_summary_tables_escape_comm(tmp_path: Path, table: str, mode: str) -> None:
    text = _trace(tmp_path, f'format = "summary"\ntable = "{table}"\nmode = "{mode}"\n'
                            'group_by = "thread"').decode()
    assert _shown(COMM) in text
    assert _shown(EXE_NAME[:15]) in text


@pytest.mark.parametrize("mode", ["kernel", "stream"])
def test_summary_json_gives_the_exact_bytes_back(tmp_path: Path, mode: str) -> None:
    data = _trace(tmp_path, f'format = "summary"\ntable = "json"\nmode = "{mode}"\n'
                            'group_by = "thread"')
    doc = json.loads(data)
    comms = {unescape(g["comm"]) for g in doc["groups"]}
    assert {COMM, EXE_NAME[:15]} <= comms, comms
