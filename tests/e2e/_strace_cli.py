"""The differential harness of ``tracekit strace``: the same program under ``strace OPTS``
(strace 6.1) and ``tracekit strace OPTS``, the two texts compared line by line.

Shared by tests/e2e/test_strace_cli.py (each option combination on one program: the
short version) and bench/strace_cli.py (each combination on several programs: the long
one, whose figures are in the README).

What is compared: every line either tool writes to the trace (standard error, or the
``-o`` file, or each ``-ff`` file), after normalising only

- addresses (``0x`` and 5 or more hex digits), pids (of the traced tasks, the tracer's,
  as prefixes, return values and ``si_pid``) and times (the time column, ``<duration>``,
  ``tv_sec``-style fields, the summary's time columns): each digit becomes a placeholder
  of the same width, so that strace's ``-a`` padding stays comparable (``-v``'s file
  times, ``st_atime=`` and its date comment, are times too);
- strace's ``<unfinished ...>``/``<... resumed>`` halves of a call that another task's
  line interrupted: joined into the one line strace prints when nothing interrupts
  (the head's prefix and time, padded to the ``-a`` column again). tracekit prints
  every call once, so a split call would otherwise differ by construction; how many
  calls strace split is counted (``split``) and reported apart;
- the ``strace: Process N attached`` messages strace writes in the middle of a line:
  taken out of the line and compared as lines of their own.

Lines are grouped by task (the pid prefix, or the file of ``-ff``; a line without a
prefix belongs to the one task traced at the time), tasks are paired by their call
sequences, calls aligned by name; a line slot is a pair of aligned lines or a line only
one side has, and ``identical`` counts the pairs equal after normalising. A summary
(``-c``/``-C``) is compared row by row (rows in name order when the sort is by a time).

Of the slots that differ, ``run_to_run`` counts those strace changes between two runs
of its own, and ``scheduling`` those that only say when a child exited relative to its
parent's calls, which the tracer's speed decides (ptrace slows every task; a child that
runs free exits earlier). Counted by two rules, per pair of tasks, nothing else:

- a ``--- SIGCHLD`` line or an ``rt_sigreturn`` line one side has at a slot (alone, or
  beside another line), when both sides' task took SIGCHLD, neither more often than it
  created children (the signal is the same, its call differs; standard signals do not
  queue, so two exits may make one delivery, signal(7)), and each side returned from
  as many handlers as it took SIGCHLDs;
- a ``wait4``/``waitid`` line (a slot one side has, or a pair differing in its pid
  prefix only) whose text without the prefix is as many times in the task on both sides:
  the same call with the same result, placed before or after another task's lines.

A line that differs in its text is never counted so: these rules move lines, they never
equate two texts.

The one run (:func:`measure_one_run`) takes run-to-run variation out instead of
counting it: the program runs once under strace, and tracekit traces that strace, so
both see the same calls; tracekit's lines of the program's processes are put in the
shape strace prints and compared with the same normalising, identical lines only.
"""

from __future__ import annotations

import difflib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests._run import rest_of_stderr

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "strace_cli.c"
TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]


@dataclass(frozen=True)
class Combo:
    """One option combination: ``opts`` (``{out}`` is the -o path, ``{data}`` the input
    folder), the program of the short suite and those of the bench."""

    name: str
    opts: tuple[str, ...]
    program: str
    bench: tuple[str, ...] = ()


COMBOS: list[Combo] = [
    Combo("default", (), "cat", ("ls", "pipe", "threads", "fork", "signals")),
    Combo("-f", ("-f",), "pipe", ("cat", "threads", "fork", "signals", "tcp")),
    Combo("-f threads", ("-f",), "threads"),
    Combo("-f -o", ("-f", "-o", "{out}"), "fork", ("pipe", "threads", "tcp")),
    Combo("-ff -o", ("-ff", "-o", "{out}"), "fork", ("pipe", "threads", "tcp")),
    Combo("-t", ("-t",), "cat", ("ls",)),
    Combo("-tt", ("-tt",), "cat", ("ls",)),
    Combo("-ttt", ("-ttt",), "cat", ("ls",)),
    Combo("-r", ("-r",), "cat", ("ls",)),
    Combo("-T", ("-T",), "cat", ("ls",)),
    Combo("-f -tt -T", ("-f", "-tt", "-T"), "fork", ("pipe", "signals")),
    Combo("-a 60", ("-a", "60"), "cat", ("ls",)),
    Combo("-a 20", ("-a", "20"), "cat", ("ls",)),
    Combo("-s 8", ("-s", "8"), "cat", ("ls",)),
    Combo("-s 200", ("-s", "200"), "cat", ("ls",)),
    Combo("-x", ("-x",), "cat", ("ls",)),
    Combo("-xx", ("-xx",), "cat", ("ls",)),
    Combo("-y", ("-y",), "cat", ("ls",)),
    Combo("-yy", ("-yy",), "cat", ("ls", "tcp")),
    Combo("-e trace=%file", ("-e", "trace=%file"), "ls", ("cat", "pipe")),
    Combo("-e trace=openat,read,close -Z", ("-e", "trace=openat,read,close", "-Z"), "ls",
          ("cat",)),
    Combo("-z", ("-z",), "ls", ("cat",)),
    Combo("-e status=failed", ("-e", "status=failed"), "ls", ("cat",)),
    Combo("-e signal=SIGUSR1", ("-e", "signal=SIGUSR1"), "signals"),
    Combo("-e raw=read,openat", ("-e", "raw=read,openat"), "cat", ("ls",)),
    Combo("-e read=0 -e write=1", ("-e", "read=0", "-e", "write=1"), "cat-stdin"),
    Combo("-P", ("-P", "{data}/a.txt"), "cat"),
    Combo("-q -f", ("-q", "-f"), "pipe", ("fork",)),
    Combo("-n -f", ("-n", "-f"), "signals", ("cat", "fork")),
    Combo("-qq -f", ("-qq", "-f"), "fork", ("pipe",)),
    Combo("-c", ("-c",), "ls", ("cat",)),
    Combo("-c -f", ("-c", "-f"), "pipe", ("fork", "threads")),
    Combo("-c -S calls", ("-c", "-S", "calls"), "ls", ("cat",)),
    Combo("-c -S name -w", ("-c", "-S", "name", "-w"), "ls", ("cat",)),
    Combo("-c -U name,calls,errors", ("-c", "-U", "name,calls,errors"), "ls", ("cat",)),
    Combo("-C", ("-C",), "cat"),
    Combo("-E FOO=bar", ("-E", "FOO=bar"), "cat"),
    Combo("-u nobody", ("-u", "nobody"), "cat-passwd"),
    Combo("-p", ("-p", "{pid}"), "wait"),
    Combo("-f tcp", ("-f",), "tcp"),
    Combo("-v", ("-v",), "cat"),
    Combo("-X raw", ("-X", "raw"), "cat", ("ls", "pipe", "tcp", "signals")),
    Combo("-X verbose", ("-X", "verbose"), "cat", ("ls", "pipe", "tcp", "signals")),
    Combo("-Y -f", ("-Y", "-f"), "fork", ("pipe", "signals", "threads")),
    Combo("-Y -f -o", ("-Y", "-f", "-o", "{out}"), "fork", ("pipe", "signals")),
    Combo("-Y -ff -o", ("-Y", "-ff", "-o", "{out}"), "fork", ("pipe",)),
    Combo("-A -f -o", ("-A", "-f", "-o", "{out}"), "fork", ("pipe",)),
]


def build_workload(out_dir: Path) -> Path:
    """tests/workloads/strace_cli.c built with gcc into ``out_dir``."""
    exe = out_dir / "strace_cli"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-pthread", "-o", str(exe),
                    str(WORKLOAD)], check=True)
    return exe


def make_data(tmp: Path) -> Path:
    data = tmp / "data"
    (data / "sub").mkdir(parents=True, exist_ok=True)
    (data / "a.txt").write_text("hello\n" * 20)
    (data / "sub" / "b.bin").write_bytes(bytes(range(256)))
    os.chmod(tmp, 0o755)
    os.chmod(data, 0o755)
    return data


def _free_ports() -> tuple[int, int]:
    socks = [socket.socket() for _ in range(2)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return socks[0].getsockname()[1], socks[1].getsockname()[1]
    finally:
        for s in socks:
            s.close()


def argv_of(program: str, exe: Path, data: Path, ports: tuple[int, int]) -> list[str]:
    return {
        "cat": ["cat", str(data / "a.txt")],
        "cat-stdin": ["cat"],
        "cat-passwd": ["cat", "/etc/passwd"],
        "ls": ["ls", "-l", str(data)],
        "pipe": ["sh", "-c", f"cat {data / 'a.txt'} | wc -l"],
        "threads": [str(exe), "threads"],
        "fork": [str(exe), "fork"],
        "signals": [str(exe), "signals"],
        "tcp": [str(exe), "tcp", str(ports[0]), str(ports[1])],
        "wait": [str(exe), "wait"],
    }[program]


@dataclass
class Run:
    """One tool's run: its trace (text per file; one entry unless -ff), exit status."""

    texts: dict[str, str]
    status: int
    pids: set[int] = field(default_factory=set)
    stderr: str = ""


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONUNBUFFERED="1", LC_ALL="C")


def run_tool(tool: list[str], opts: list[str], argv: list[str], tmp: Path, tag: str,
             *, timeout: float = 120) -> Run:
    """Run ``tool OPTS argv`` in ``tmp``; the trace from stderr, or the -o file(s)."""
    out = tmp / f"{tag}.out"
    for old in tmp.glob(f"{tag}.out*"):
        old.unlink()
    opts = [o.replace("{out}", str(out)) for o in opts]
    if "{pid}" in " ".join(opts):
        return _run_attached(tool, opts, argv, tmp, out)
    stdin = (tmp / "data" / "a.txt").open("rb") if argv == ["cat"] else None
    try:
        r = subprocess.run([*tool, *opts, *argv], cwd=tmp,
                           stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout, env=_env())
    finally:
        if stdin is not None:
            stdin.close()
    err = r.stderr.decode("utf-8", "surrogateescape")
    return Run(_texts(opts, out, err), r.returncode, stderr=err)


def _texts(opts: list[str], out: Path, stderr: str) -> dict[str, str]:
    if "-o" not in opts:
        return {"-": stderr}
    files = sorted(out.parent.glob(out.name + "*"))
    return {f.name.removeprefix(out.name): f.read_text(errors="surrogateescape")
            for f in files}


def _run_attached(tool: list[str], opts: list[str], argv: list[str], tmp: Path,
                  out: Path) -> Run:
    """-p: the program waits on stdin; the tracer attaches; then the program goes on."""
    prog = subprocess.Popen(argv, cwd=tmp, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            env=_env())
    assert prog.stdin is not None
    opts = [o.replace("{pid}", str(prog.pid)) for o in opts]
    tracer = subprocess.Popen([*tool, *opts], cwd=tmp, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=_env())
    assert tracer.stderr is not None
    err = b""
    try:
        deadline = time.monotonic() + 60
        while b"attached" not in err and time.monotonic() < deadline:
            line = tracer.stderr.readline()
            if not line:
                break
            err += line
        time.sleep(0.3)                 # strace: its first stop; tracekit: nothing more
        prog.stdin.write(b"go\n")
        prog.stdin.close()
        prog.wait(timeout=60)
        rest = rest_of_stderr(tracer, 60)
    finally:
        for p in (prog, tracer):
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()
    return Run({"-": (err + rest).decode("utf-8", "surrogateescape")}, tracer.returncode,
               {prog.pid})


# --- reading the traces ------------------------------------------------------------------

_ATTACH = re.compile(r"strace: Process (\d+) (attached|detached)(?: with \d+ threads)?\n")
# -Y: the pid's name right after it, ``[pid  123<sh>] `` and ``123<sh> ``
_PREFIX_MULTI = re.compile(r"^\[pid +(\d+)(?:<[^>\n]*>)?\] ")
_PREFIX_PADDED = re.compile(r"^(\d+)(?:<[^>\n]*>)? +")
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
_TIME_COL = re.compile(r"^(?:\d\d:\d\d:\d\d(?:\.\d{6})?|\d{9,}\.\d{6}| *\d+\.\d{6})"
                       r"(?: \(\+ *\d+\.\d{6}\))? ")
_NUMBER_COL = re.compile(r"^\[ *\d+\] ")        # -n: "[  59] "
_RET = re.compile(r"^(.*\))( +)= (.*)$")
_CHILD_RET = re.compile(r"^(?:clone3?|v?fork)\(.*\) += (\d+)")
_PID_RET = re.compile(r"^(?:set_tid_address|getpid|gettid|getppid|wait4|waitid)\(.*\) += "
                      r"(\d+)")
_SI_PID = re.compile(r"si_pid=(\d+)")
_TRACER_NAME = re.compile(r"(^\[pid +\d+|^\d+|= \d+)<(?:strace|python3?|tracekit)>(?=\] | |$)")
_ADDR = re.compile(r"0x[0-9a-f]{5,}")
_DUR = re.compile(r" <\d+\.\d{6}>$")
_FIELD_TIMES = re.compile(r"\b(tv_sec|tv_nsec|tv_usec|si_utime|si_stime|st_[amc]time(?:_nsec)?)"
                          r"=(\d+)")
_DATE_COMMENT = re.compile(r"/\* \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{9})?[+-]\d{4} \*/")
_FORKING = re.compile(r"^(?:clone3?|v?fork)\(")
#: a task's own end: an unprefixed line after it is another task's (``= ?``: no return)
_EXITED_CALL = re.compile(r"^exit(?:_group)?\(.*\) += \?$")
_NAME = re.compile(r"(<\.\.\. \w+ resumed>|\w+\(|\+\+\+|---|\[ Process)")


def _digits(m: re.Match[str]) -> str:
    return re.sub(r"\d", "9", m.group(0))


@dataclass
class Trace:
    """A trace split into tasks: key -> lines (pid prefix and time kept)."""

    tasks: dict[str, list[str]]
    messages: list[str]
    pids: set[int]
    split: int = 0              # calls strace printed in two halves (joined here)
    summary: list[str] = field(default_factory=list)


_NORM_PREFIX = re.compile(r"^(?:\[pid +[\dP]+(?:<[^>\n]*>)?\] |[\dP]+(?:<[^>\n]*>)? +)")


def _body(line: str) -> tuple[str, str]:
    """(prefix + time column, the rest); the pid may be normalised already."""
    head = ""
    m = _NORM_PREFIX.match(line)
    if m:
        head, line = line[:m.end()], line[m.end():]
    t = _TIME_COL.match(line)
    if t:
        head, line = head + line[:t.end()], line[t.end():]
    n = _NUMBER_COL.match(line)
    if n:
        head, line = head + line[:n.end()], line[n.end():]
    return head, line


def _realign(head: str, call: str, rest: str, column: int) -> str:
    """The joined halves as strace prints a call nothing interrupted."""
    text = head + call + rest
    m = _RET.match(text)
    if not m:
        return text
    left = m.group(1)
    pad = " " * (column - len(left)) if len(left) < column else " "
    return f"{left}{pad}= {m.group(3)}"


def read_trace(texts: dict[str, str], *, column: int = 40) -> Trace:
    """Split a tool's output (one text, or one per ``-ff`` file) into tasks."""
    tasks: dict[str, list[str]] = {}
    messages: list[str] = []
    pids: set[int] = set()
    split = 0
    summary: list[str] = []
    for fname, text in texts.items():
        for m in _ATTACH.finditer(text):
            messages.append(m.group(0).rstrip("\n"))
            pids.add(int(m.group(1)))
        text = _ATTACH.sub("", text)
        if fname.startswith("."):
            pids.add(int(fname[1:]))
        lines = text.splitlines()
        cut = next((i for i, ln in enumerate(lines) if _is_summary_head(ln)), None)
        if cut is not None:
            summary += lines[cut:]
            lines = lines[:cut]
        pending: dict[str, tuple[str, str]] = {}
        live: set[str] = set()
        children: set[str] = set()
        first = ""
        for line in lines:
            if line.startswith(("tracekit", "strace: ")) or not line.strip():
                messages.append(line) if line.startswith("strace: ") else None
                continue
            m = _PREFIX_MULTI.match(line) or _PREFIX_PADDED.match(line)
            if fname.startswith("."):          # -ff: FILE.TID, one task
                key = fname
            elif m:
                key = m.group(1)
                if key not in live and key not in children and ("?" in tasks
                                                                or "?" in pending):
                    waiting = pending.get("?", ("", ""))[1]
                    resumes = _RESUMED.match(_body(line)[1])
                    if _FORKING.match(waiting) and not (
                            resumes and waiting.startswith(resumes.group(1) + "(")):
                        children.add(key)       # the first task is inside its clone
                    else:                       # the first task shows its pid
                        first = key
                        tasks.setdefault(key, [])[:0] = tasks.pop("?", [])
                        if "?" in pending:
                            pending[key] = pending.pop("?")
                live.add(key)
            else:
                key = next(iter(live)) if len(live) == 1 else "?" if not first else first
                rs = _RESUMED.match(_body(line)[1])
                if rs:                          # the task whose call this resumes
                    key = next((k for k, (_, c) in pending.items()
                                if c.startswith(rs.group(1) + "(")), key)
            head, body = _body(line)
            if m:
                pids.add(int(m.group(1)))
            if body.endswith(" <unfinished ...>"):
                pending[key] = (head, body[:-len(" <unfinished ...>")])
                continue
            r = _RESUMED.match(body)
            if r and key not in pending and "?" in pending and len(live) <= 2:
                key = "?"                       # the first task's pid is not known yet
            if r and key in pending:
                h, call = pending.pop(key)
                split += 1
                line = _realign(h, call, r.group(2), column)
                head, body = _body(line)
            for rx in (_CHILD_RET, _PID_RET):
                c = rx.match(body)
                if c:
                    pids.add(int(c.group(1)))
                    if rx is _CHILD_RET:
                        children.add(c.group(1))
            pids.update(int(p) for p in _SI_PID.findall(body))
            if body.startswith("+++ exited") or body.startswith("+++ killed") or \
                    _EXITED_CALL.match(body):
                live.discard(key)       # -qq prints no "+++ exited": its exit call ends it
            tasks.setdefault(key, []).append(line)
        for key, (h, call) in pending.items():       # never resumed: as printed
            tasks.setdefault(key, []).append(h + call + " <unfinished ...>")
    return Trace(tasks, messages, pids, split, summary)


def _is_summary_head(line: str) -> bool:
    return line.startswith(("% time ", "syscall ", "    calls", "   errors", "shortest",
                            "longest", "usecs/call", "    seconds")) \
        and not line.startswith("syscall_")


def normalise(line: str, pids: re.Pattern[str] | None) -> str:
    """Addresses, pids and times, each digit kept as a placeholder of the same width."""
    line = _ADDR.sub(lambda m: "0x" + "a" * (len(m.group(0)) - 2), line)
    line = _FIELD_TIMES.sub(lambda m: f"{m.group(1)}=" + "9" * len(m.group(2)), line)
    line = _DATE_COMMENT.sub(_digits, line)
    # -Y: the tracer's own name, the parent of the command (getppid's)
    line = _TRACER_NAME.sub(r"\1<TRACER>", line)
    line = _DUR.sub(_digits, line)
    head, body = _body(line)
    t = re.search(r"(?:\d\d:\d\d:\d\d(?:\.\d{6})?|\d{9,}\.\d{6}| *\d+\.\d{6})"
                  r"(?: \(\+ *\d+\.\d{6}\))? $", head)
    if t:
        head = head[:t.start()] + _digits(t) + head[t.end():]
    line = head + body
    if pids is not None:
        line = pids.sub(lambda m: "P" * len(m.group(0)), line)
    return line


def _pid_pattern(pids: Iterable[int]) -> re.Pattern[str] | None:
    ps = sorted({p for p in pids if p > 1}, reverse=True)
    if not ps:
        return None
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(str, ps)) + r")(?![\w.])")


def _key(line: str) -> str:
    _, body = _body(line)
    m = _NAME.match(body)
    return m.group(1) if m else body[:8]


@dataclass
class Result:
    """How far the two traces agree (module docstring).

    ``run_to_run`` counts the line slots that differ where strace's own line differs
    between two runs of the program (``getrandom``'s bytes, a signal that comes at
    another call): what no tracer could reproduce. ``stable_share`` counts them as
    agreeing.
    """

    lines: int = 0
    identical: int = 0
    run_to_run: int = 0
    scheduling: int = 0             # moved by when a child exited (module docstring)
    split: int = 0                  # calls strace split into two halves
    strace_lines: int = 0
    diffs: list[tuple[str, str]] = field(default_factory=list)
    # strace against itself (its second run), same normalising and alignment: the
    # ceiling no tracer can pass by more than chance
    ceiling_lines: int = 0
    ceiling_identical: int = 0

    @property
    def share(self) -> float:
        return self.identical / self.lines if self.lines else 1.0

    @property
    def stable_share(self) -> float:
        return (self.identical + self.run_to_run) / self.lines if self.lines else 1.0

    @property
    def settled_share(self) -> float:
        """:attr:`stable_share` also counting the :attr:`scheduling` slots as agreeing."""
        return ((self.identical + self.run_to_run + self.scheduling) / self.lines
                if self.lines else 1.0)

    @property
    def ceiling_share(self) -> float:
        return self.ceiling_identical / self.ceiling_lines if self.ceiling_lines else 1.0

    def add(self, other: Result) -> None:
        self.lines += other.lines
        self.identical += other.identical
        self.run_to_run += other.run_to_run
        self.scheduling += other.scheduling
        self.split += other.split
        self.strace_lines += other.strace_lines
        self.diffs += other.diffs
        self.ceiling_lines += other.ceiling_lines
        self.ceiling_identical += other.ceiling_identical


def _align(a: list[str], b: list[str]) -> Iterable[tuple[int | None, int | None]]:
    """Index pairs of ``a`` and ``b`` aligned by call name (None: a line one side has)."""
    sm = difflib.SequenceMatcher(None, [_key(x) for x in a], [_key(x) for x in b],
                                 autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            yield from zip(range(i1, i2), range(j1, j2), strict=True)
        else:
            yield from ((i, None) for i in range(i1, i2))
            yield from ((None, j) for j in range(j1, j2))


def _groups(s_tasks: dict[str, list[str]], t_tasks: dict[str, list[str]]
            ) -> list[tuple[str | None, str | None]]:
    """Pairs of task keys: each strace task with the most similar task of the other."""
    left = list(t_tasks)
    pairs: list[tuple[str | None, str | None]] = []
    for key, lines in s_tasks.items():
        if not left:
            pairs.append((key, None))
            continue
        best = max(left, key=lambda k: (difflib.SequenceMatcher(
            None, lines, t_tasks[k], autojunk=False).ratio(), -left.index(k)))
        left.remove(best)
        pairs.append((key, best))
    return pairs + [(None, k) for k in left]


def _summary_rows(lines: list[str], by_time: bool) -> list[str]:
    """The summary's lines with its time columns as ``T`` (the rows in name order when
    the sort is by a time: their order is a time too)."""
    if not lines:
        return []
    rule = next((ln for ln in lines if ln.startswith("-")), "")
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
    head = lines[0]
    timed = {k for k, (a, b) in enumerate(spans)
             if head[a:b].strip() in ("% time", "seconds", "usecs/call", "shortest",
                                      "longest")}
    out: list[str] = []
    rows: list[int] = []
    for n, ln in enumerate(lines):
        if n == 0 or ln.startswith("-") or not ln.strip():
            out.append(ln)
            continue
        cells = [ln[a:b] if k < len(spans) - 1 else ln[a:] for k, (a, b) in enumerate(spans)]
        out.append(" ".join("T" if k in timed else c for k, c in enumerate(cells)))
        if " total" not in f" {ln} " or not ln.rstrip().endswith("total") and \
                "total " not in ln:
            rows.append(n)
    if by_time and rows:
        names = [k for k, (a, b) in enumerate(spans) if head[a:b].strip() == "syscall"]
        col = names[0] if names else len(spans) - 1
        ordered = sorted((out[n] for n in rows), key=lambda r: r.split(" ")[-1] if
                         col == len(spans) - 1 else r.split()[col])
        for n, row in zip(rows, ordered, strict=True):
            out[n] = row
    return out


def _sections(tr: Trace, pids: re.Pattern[str] | None, by_time: bool
              ) -> dict[str, list[str]]:
    """The normalised lines of a trace: one list per task, the messages, the summary."""
    out = {k: [normalise(x, pids) for x in v] for k, v in tr.tasks.items()}
    out["messages"] = [normalise(m, pids) for m in tr.messages]
    out["summary"] = _summary_rows(tr.summary, by_time)
    return out


def _diff_lines(a: dict[str, list[str]], b: dict[str, list[str]]
                ) -> Iterable[tuple[str | None, int | None, str | None, str | None]]:
    """(a's section, index in it, a's line, b's line) for every line slot."""
    for ka, _, i, x, y in _diff_pairs(a, b):
        yield ka, i, x, y


_SIGCHLD = re.compile(r"^--- SIGCHLD ")
_SIGRETURN = re.compile(r"^rt_sigreturn\(")
_WAIT = re.compile(r"^(?:wait4|waitid)\(")
_CHILD = re.compile(r"^(?:clone3?|v?fork)\(.*\) += [P\d]+(?: <[\d.]+>)?$")


def _bare(line: str) -> str:
    """A normalised line without its pid prefix, its time column (-t, -tt, -ttt, -r, -n)
    and its -a padding: what the rules below match is the call."""
    return _squash(_body(_STRIP_PREFIX.sub("", line))[1])


def _scheduled(x: str | None, y: str | None, a: list[str], b: list[str]) -> bool:
    """Whether the differing slot (``x`` of task lines ``a``, ``y`` of ``b``) is one the
    scheduling rules of the module docstring count."""
    bare_a, bare_b = [_bare(v) for v in a], [_bare(v) for v in b]
    bx, by = _bare(x) if x else None, _bare(y) if y else None
    if x and y and bx != by:
        return False
    line = bx or by or ""
    if _SIGCHLD.match(line) or _SIGRETURN.match(line):
        def counts(lines: list[str]) -> tuple[int, int, int]:
            return (sum(bool(_SIGCHLD.match(v)) for v in lines),
                    sum(bool(_SIGRETURN.match(v)) for v in lines),
                    sum(bool(_CHILD.match(v)) for v in lines))
        (sa, ra, ca), (sb, rb, cb) = counts(bare_a), counts(bare_b)
        return 0 < sa <= ca and 0 < sb <= cb and sa == ra and sb == rb
    if _WAIT.match(line):
        return bare_a.count(line) == bare_b.count(line)
    return False


def _diff_pairs(a: dict[str, list[str]], b: dict[str, list[str]]
                ) -> Iterable[tuple[str | None, str | None, int | None, str | None,
                                    str | None]]:
    """(a's section, b's section, index in a's, a's line, b's line) for every slot."""
    tasks_a = {k: v for k, v in a.items() if k not in ("messages", "summary")}
    tasks_b = {k: v for k, v in b.items() if k not in ("messages", "summary")}
    pairs = _groups(tasks_a, tasks_b) + [("messages", "messages"), ("summary", "summary")]
    for ka, kb in pairs:
        la = a[ka] if ka is not None else []
        lb = b[kb] if kb is not None else []
        for i, j in _align(la, lb):
            yield (ka, kb, i, la[i] if i is not None else None,
                   lb[j] if j is not None else None)


def compare(strace: Run, tracekit: Run, *, column: int = 40, sort: str = "time",
            strace2: Run | None = None, trace_only: bool = False) -> Result:
    """Line agreement of ``tracekit`` with ``strace`` (module docstring); with
    ``strace2`` (a second strace run), the strace lines that differ between the two
    runs are told apart (:attr:`Result.run_to_run`). ``trace_only``: the tasks' lines
    alone, without the messages and the summary (the one run: :func:`measure_one_run`)."""
    by_time = sort in ("time", "min-time", "max-time", "avg-time")
    s_tr = read_trace(strace.texts, column=column)
    t_tr = read_trace(tracekit.texts, column=column)
    s = _sections(s_tr, _pid_pattern(s_tr.pids | strace.pids), by_time)
    t = _sections(t_tr, _pid_pattern(t_tr.pids | tracekit.pids), by_time)
    if trace_only:
        for sec in (s, t):
            sec["messages"], sec["summary"] = [], []
    unstable: set[tuple[str, int]] = set()
    res = Result(split=s_tr.split,
                 strace_lines=sum(len(v) for v in s.values()))
    if strace2 is not None:
        s2_tr = read_trace(strace2.texts, column=column)
        s2 = _sections(s2_tr, _pid_pattern(s2_tr.pids | strace2.pids), by_time)
        for ka, i, x, y in _diff_lines(s, s2):
            res.ceiling_lines += 1
            res.ceiling_identical += x == y
            if ka is not None and i is not None and x != y:
                unstable.add((ka, i))
    for ka, kb, i, x, y in _diff_pairs(s, t):
        res.lines += 1
        if x == y:
            res.identical += 1
        elif ka is not None and i is not None and (ka, i) in unstable:
            res.run_to_run += 1
        elif ka not in (None, "messages", "summary") and kb is not None and \
                _scheduled(x, y, s[ka], t[kb]):
            res.scheduling += 1
        else:
            res.diffs.append((x or "", y or ""))
    return res


def options_of(combo: Combo) -> tuple[int, str]:
    """(-a column, -S sort) the combination sets (strace's defaults otherwise)."""
    opts = list(combo.opts)
    column = int(opts[opts.index("-a") + 1]) if "-a" in opts else 40
    sort = opts[opts.index("-S") + 1] if "-S" in opts else "time"
    return column, sort


def measure(combo: Combo, program: str, exe: Path, tmp: Path) -> tuple[Result, Run, Run]:
    """``program`` under strace (twice: what differs between its own runs is told
    apart) and tracekit with ``combo``'s options; their agreement, the two runs."""
    data = make_data(tmp)
    ports = _free_ports()
    argv = argv_of(program, exe, data, ports)
    opts = [o.replace("{data}", str(data)) for o in combo.opts]
    s = run_tool(["strace"], opts, argv, tmp, "strace")
    t = run_tool(TRACEKIT, opts, argv, tmp, "tracekit")
    s2 = run_tool(["strace"], opts, argv, tmp, "strace2")
    if t.status != s.status:
        # a tracekit that did not run (not installed, a crash) is not a 0% agreement
        tail = "".join(t.texts.values())[-2000:]
        raise RuntimeError(f"{combo.name} on {program}: tracekit strace exited {t.status}, "
                           f"strace {s.status}:\n{tail}")
    column, sort = options_of(combo)
    return compare(s, t, column=column, sort=sort, strace2=s2), s, t


# --- one run: the same execution seen by both tracers -----------------------------------

#: combinations the one run leaves out, and why (the separate runs still measure them)
ONE_RUN_LEFT_OUT = {
    "-c": "a summary of the one run would count strace's own calls too: tracekit traces "
          "strace and its program together, and its -c does not count per process",
}


def one_run_options(combo: Combo) -> tuple[list[str], list[str]] | str:
    """(tracekit's options, strace's options) of ``combo``'s one run, or why it has none.

    strace runs with the combination's own options and ``-o {out}`` (its own ``-o``, with
    ``-ff`` one file a process); tracekit with ``-f`` (it traces strace, strace's
    children and the program's processes) and every option that shapes or selects lines.
    Left to strace alone: ``-E`` and ``-u`` (strace starts the program with them; tracekit
    sees that run), ``-C``'s summary (the lines are compared, not the summary: tracekit's
    would count strace's calls too), ``-ff``'s files (tracekit's lines are split by
    process afterwards) and ``-o``. ``-p``: both attach to the running program, strace
    first, tracekit with ``-p`` and without ``-f`` (:func:`_attached_both`). ``-c``: none
    (:data:`ONE_RUN_LEFT_OUT`)."""
    opts = list(combo.opts)
    for opt, why in ONE_RUN_LEFT_OUT.items():
        if opt in opts:
            return f"{opt}: {why}"
    strace = opts if "-o" in opts else [*opts, "-o", "{out}"]
    tracekit = [] if "-p" in opts else ["-f"]
    k = 0
    while k < len(opts):
        opt = opts[k]
        if opt in ("-o", "-E", "-u"):
            k += 2                      # the option and its value
            continue
        if opt not in ("-f", "-ff", "-C"):
            tracekit.append(opt)
        k += 1
    return tracekit, strace


_TK_PID = re.compile(r"^(\d+)(<[^>\n]*>)? ")


@dataclass(frozen=True)
class _Line:
    """One line of tracekit's ``-f -o`` trace: its process, the text after the ``%-5d ``
    prefix, and whether it had that prefix (a ``-e read=``/``write=`` dump line has
    none: it goes with the line before it)."""

    pid: int
    body: str
    prefixed: bool = True
    name: str = ""             # -Y: ``<comm>`` after the pid

    def shaped(self, prefix: bool, column: int) -> str:
        """The line as strace prints it with the ``-o`` file's ``PID `` prefix, or
        without it (the ``-a`` column then recomputed as strace pads such a line)."""
        if not self.prefixed:
            return self.body
        if prefix:
            return f"{self.pid}{self.name} {self.body}" if self.name else \
                f"{self.pid:<5} {self.body}"
        return _realign("", self.body, "", column)


def _by_process(text: str) -> list[_Line]:
    out: list[_Line] = []
    for line in text.splitlines():
        m = _TK_PID.match(line)
        if m and m.group(2):            # -Y: "PID<comm> ", not padded
            out.append(_Line(int(m.group(1)), line[m.end():], name=m.group(2)))
        elif m and line.startswith(f"{m.group(1):<5} "):
            out.append(_Line(int(m.group(1)), line[max(len(m.group(1)), 5) + 1:]))
        elif out:
            out.append(_Line(out[-1].pid, line, prefixed=False))
    return out


def _program_lines(lines: list[_Line], tracer: int, shown: set[int] | None) -> list[_Line]:
    """The lines of the processes strace shows: ``shown`` when strace's trace names them
    (``-f``), else the program's first process alone. The first process is the first
    one other than strace to ``execve``; when the selection hides execve (``-e trace=``,
    ``-e status=``, ``-P``), the last process other than strace to appear (strace's
    children that probe ptrace exit before it starts the program: this holds for
    programs that make no children, as those combinations' do). Its lines start at its
    execve, or after strace's SIGCONT (strace stops its child before the execve and
    lets it go on once it is traced); before them the process runs strace's code."""
    others = [p for p in dict.fromkeys(ln.pid for ln in lines) if p != tracer]
    execs = [ln.pid for ln in lines
             if ln.pid != tracer and _body(ln.body)[1].startswith("execve(")]
    first = execs[0] if execs else others[-1] if others else 0
    keep = (shown or set()) | {first}
    mine = [ln.body for ln in lines if ln.pid == first]
    start = next((k for k, body in enumerate(mine) if _body(body)[1].startswith("execve(")),
                 None)
    if start is None:
        cont = re.compile(rf"^--- SIGCONT \{{.*\bsi_pid={tracer}\b")
        start = next((k + 1 for k, body in enumerate(mine) if cont.match(_body(body)[1])),
                     0)
    kept: list[_Line] = []
    seen = 0
    for ln in lines:
        if ln.pid == first:
            seen += 1
            if seen <= start:
                continue
        if ln.pid in keep:
            kept.append(ln)
    return kept


def measure_one_run(combo: Combo, program: str, exe: Path, tmp: Path, status: int | None
                    = None) -> tuple[Result, Run, Run] | None:
    """``program`` run once under ``strace OPTS -o S``, itself traced by ``tracekit
    strace -f -o T`` (:func:`one_run_options`): both tracers see the same calls, so no
    line differs by run-to-run variation (random bytes, inode numbers, ports,
    scheduling). tracekit's lines of the processes strace shows (from the program's
    execve on) are brought to the shape strace prints with these options: the ``PID ``
    prefix of ``-f -o`` kept, or taken off (one process; one file a process under
    ``-ff``) with the ``-a`` column recomputed as strace pads a line without it. The two
    are then compared as the separate runs are (:func:`compare`: addresses, pids and
    times normalised, nothing else; the tasks' lines only, no messages or summary).
    Returns (the agreement, strace's run, tracekit's shaped lines as a run), or None
    when the combination has no one run; ``status``: the exit status expected (strace's
    in a separate run)."""
    modes = one_run_options(combo)
    if isinstance(modes, str):
        return None
    data = make_data(tmp)
    t_opts, s_opts = ([o.replace("{data}", str(data)) for o in opts] for opts in modes)
    argv = argv_of(program, exe, data, _free_ports())
    column, sort = options_of(combo)
    if "-p" in s_opts:
        s, t = _attached_both(s_opts, t_opts, argv, tmp)
        if (status is not None and s.status != status) or t.status != s.status:
            raise RuntimeError(f"{combo.name} on {program}, one run: strace exited "
                               f"{s.status}, tracekit strace {t.status}:\n{t.stderr[-2000:]}")
        return compare(s, t, column=column, sort=sort, trace_only=True), s, t
    t_out, pidfile = tmp / "onerun.tracekit", tmp / "onerun.tracer"
    for old in (t_out, pidfile):
        old.unlink(missing_ok=True)
    # strace's pid, written by the shell that becomes strace (its lines are not kept)
    tool = [*TRACEKIT, *t_opts, "-o", str(t_out), "--",
            "sh", "-c", 'echo $$ >"$0" && exec "$@"', str(pidfile), "strace"]
    s = run_tool(tool, s_opts, argv, tmp, "onerun")
    if (status is not None and s.status != status) or not t_out.exists() \
            or not pidfile.exists():
        raise RuntimeError(f"{combo.name} on {program}, one run: tracekit strace -- strace "
                           f"exited {s.status} (strace alone: {status}):\n"
                           f"{s.stderr[-2000:]}")
    tracer = int(pidfile.read_text())
    lines = _by_process(t_out.read_text(errors="surrogateescape"))
    per_file = any(name.startswith(".") for name in s.texts)     # -ff: FILE.PID
    follow = per_file or "-f" in s_opts
    shown: set[int] | None = None
    if per_file:
        shown = {int(name[1:]) for name in s.texts}
    elif follow:                                                 # -f -o: "PID   " prefixes
        shown = {int(m.group(1)) for text in s.texts.values()
                 for m in re.finditer(r"^(\d+) ", text, re.MULTILINE)}
    kept = _program_lines(lines, tracer, shown)
    files: dict[str, list[str]] = {}
    for ln in kept:
        files.setdefault(f".{ln.pid}" if per_file else "", []).append(
            ln.shaped(follow and not per_file, column))
    t = Run({k: "\n".join(v) + "\n" for k, v in files.items()}, s.status,
            {ln.pid for ln in lines} | {tracer})
    s.pids = t.pids
    return compare(s, t, column=column, sort=sort, trace_only=True), s, t


def _attached_both(s_opts: list[str], t_opts: list[str], argv: list[str], tmp: Path
                   ) -> tuple[Run, Run]:
    """-p, one run: the program waits on stdin; strace attaches (which interrupts the
    read the program waits in: the kernel restarts it), then tracekit (which finds the
    restarted read in progress); then the program goes on. Both write ``-o`` files."""
    s_out, t_out = tmp / "onerun_p.strace", tmp / "onerun_p.tracekit"
    for old in (s_out, t_out):
        old.unlink(missing_ok=True)
    prog = subprocess.Popen(argv, cwd=tmp, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            env=_env())
    assert prog.stdin is not None
    tracers: list[subprocess.Popen[bytes]] = []
    errs = [b"", b""]                   # strace's, tracekit's

    def attach(cmd: list[str]) -> None:
        tracer = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=_env())
        tracers.append(tracer)
        assert tracer.stderr is not None
        deadline = time.monotonic() + 60
        while b"attached" not in errs[len(tracers) - 1] and time.monotonic() < deadline:
            line = tracer.stderr.readline()
            if not line:
                break
            errs[len(tracers) - 1] += line

    def subst(opts: list[str], out: Path) -> list[str]:
        return [o.replace("{pid}", str(prog.pid)).replace("{out}", str(out)) for o in opts]

    try:
        attach(["strace", *subst(s_opts, s_out)])
        time.sleep(0.3)                 # strace's first stop and the read restarted
        attach([*TRACEKIT, *subst(t_opts, t_out), "-o", str(t_out)])
        time.sleep(0.3)
        prog.stdin.write(b"go\n")
        prog.stdin.close()
        prog.wait(timeout=60)
        for k, tracer in enumerate(tracers):
            errs[k] += rest_of_stderr(tracer, 60)
    finally:
        for p in (prog, *tracers):
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()
    runs = []
    for k, out in enumerate((s_out, t_out)):
        status = tracers[k].returncode if k < len(tracers) else -1
        texts = {"": out.read_text(errors="surrogateescape")} if out.exists() else {}
        runs.append(Run(texts, status, {prog.pid}, errs[k].decode("utf-8", "surrogateescape")))
    return runs[0], runs[1]


_DECORATION = re.compile(r"<(?:->|[^<>]|<[^<>]*>)*>(?:\(deleted\))?")
_STRIP_PREFIX = re.compile(r"^(?:\[pid +P+(?:<[^>\n]*>)?\] |P+(?:<[^>\n]*>)? +)")


def classify(strace_line: str, tracekit_line: str) -> str:
    """The category of one differing line slot (normalised lines; "" for a line one side
    does not have): what differs, named by the call or line kind it is on."""
    a, b = strace_line, tracekit_line
    if not a or not b:
        side, line = ("only strace", a) if a else ("only tracekit", b)
        return f"{side}: {_kind(line)}"
    a_body, b_body = _body(a)[1], _body(b)[1]
    if a_body == b_body:
        return "pid prefix or time column"
    if _squash(_STRIP_PREFIX.sub("", a)) == _squash(_STRIP_PREFIX.sub("", b)):
        return "pid prefix"
    a_body, b_body = _squash(a_body), _squash(b_body)
    if _DECORATION.sub("", a_body) == _DECORATION.sub("", b_body):
        return "fd decoration"
    if a_body.startswith("<... ") != b_body.startswith("<... "):
        return f"resumed half: {_kind(a)}"
    ra, rb = _RET.match(a_body), _RET.match(b_body)
    if ra and rb and ra.group(1) == rb.group(1):
        return f"return value: {_kind(a)}"
    if ra and rb and ra.group(3) == rb.group(3):
        return f"arguments: {_kind(a)}"
    return f"arguments and return: {_kind(a)}"


def _squash(line: str) -> str:
    """The line without its -a padding (which the prefix's width moves)."""
    return re.sub(r"\) +=(?= )", ") =", line)


def _kind(line: str) -> str:
    body = _body(line)[1]
    if body.startswith("--- "):
        return " ".join(body.split()[:2])
    if body.startswith("+++ "):
        return "+++ exit line"
    m = re.match(r"(?:<\.\.\. )?(\w+)", body)
    return m.group(1) if m else body[:12]
