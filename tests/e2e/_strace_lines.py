"""Reading strace-format text, shared by the differential test and the bench harness.

One implementation of: parsing ``strace -f`` output and tracekit's ``strace`` format into
per-process calls (unfinished and resumed halves joined), pairing the processes of two
traces by what they did, aligning each pair's calls by name, and the whole-line measure
of bench/strace_lines.py (:func:`agreement`).

Used by tests/e2e/test_strace_diff.py (argument by argument) and bench/strace_lines.py
(whole lines); tests/e2e/test_strace_lines.py checks the measure.
"""

from __future__ import annotations

import collections
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

ADDR = re.compile(r"0x[0-9a-f]{5,}")
_LINE = re.compile(r"^(?P<name>\w+)\((?P<args>.*)\)\s+= (?P<ret>.*?)(?: <\d+\.\d+>)?$")
# pid column, then an optional -tt time (tracekit prints ??:??:??.?????? on a resumed half)
_HEAD = re.compile(r"^(?P<pid>\d+) +(?:(?:\d\d:\d\d:\d\d\.\d{6}|\?\?:\?\?:\?\?\.\?{6}) )?")
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
# Times inside decoded structs (a clock read, a signal's CPU times): differ run to run.
_TIMES = re.compile(r"\b(tv_sec|tv_nsec|tv_usec|si_utime|si_stime)=\d+")


@dataclass
class Call:
    """One line of one process: a call (``name``, its arguments, its return), or, when
    :func:`parse` keeps them, a ``---`` signal or ``+++`` exit line (``name`` is the
    marker, ``line`` the text)."""

    name: str
    args: list[str]
    ret: str
    #: the line without pid column, -tt time, -T duration and strace's padding before
    #: ``=``: ``name(args) = ret``, the halves of an unfinished call joined
    line: str = ""


def split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments (quotes, brackets and braces respected)."""
    out, depth, cur, i, quoted = [], 0, [], 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            cur.append(c)
        elif c in "[{(":
            depth += 1
            cur.append(c)
        elif c in "]})":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        else:
            cur.append(c)
        i += 1
    if cur or out:
        out.append("".join(cur).strip())
    return out


def parse(text: str, *, events: bool = False) -> dict[int, list[Call]]:
    """pid -> calls, from strace -f output or tracekit's strace format (unfinished and
    resumed halves joined; mode lines skipped; signal and exit lines kept as
    :class:`Call` with name ``---`` / ``+++`` when ``events``, else skipped)."""
    calls: dict[int, list[Call]] = collections.defaultdict(list)
    pending: dict[int, str] = {}
    for line in text.splitlines():
        m = _HEAD.match(line)
        if not m:
            continue
        pid, rest = int(m.group("pid")), line[m.end():]
        if rest.startswith(("---", "+++")):
            if events:
                calls[pid].append(Call(rest[:3], [], "", rest.strip()))
            continue
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[:-len("<unfinished ...>")].rstrip()
            continue
        r = _RESUMED.match(rest)
        if r:
            head = pending.pop(pid, None)
            if head is None:
                rest = f"{r.group(1)}({r.group(2)}"       # resumed without a start
            else:
                rest = head + (" " if head.endswith(",") else "") + r.group(2)
        lm = _LINE.match(rest)
        if lm:
            args, ret = lm.group("args"), lm.group("ret").strip()
            calls[pid].append(Call(lm.group("name"), split_args(args) if args else [], ret,
                                   f"{lm.group('name')}({args}) = {ret}"))
    return calls


def norm(text: str) -> str:
    """Addresses (``0x`` + 5 or more hex digits) as ``ADDR``."""
    return ADDR.sub("ADDR", text)


def pid_normaliser(pids: set[int]) -> re.Pattern[str] | None:
    """A pattern matching any of ``pids`` as a whole number (the pids and tids of one
    trace: they differ between two runs of the same program)."""
    if not pids:
        return None
    alts = "|".join(str(p) for p in sorted(pids, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alts})(?![\w.])")


def norm_line(text: str, pids: re.Pattern[str] | None) -> str:
    """The whole-line normalisation of the harness: addresses, pids and times, nothing
    else."""
    text = _TIMES.sub(r"\1=TIME", ADDR.sub("ADDR", text))
    return pids.sub("PID", text) if pids is not None else text


def pair_processes(a: dict[int, list[Call]], b: dict[int, list[Call]]
                   ) -> tuple[list[tuple[list[Call], list[Call] | None]], list[list[Call]]]:
    """Pair each process of ``a`` with the process of ``b`` whose (name, return)
    sequence is the most similar (children of a shell run in either order).

    Returns the pairs (``None`` when ``b`` has no process left) in ``a``'s order, and the
    processes of ``b`` left unpaired.
    """
    unpaired = list(b)
    pairs: list[tuple[list[Call], list[Call] | None]] = []
    for ss in a.values():
        if not unpaired:
            pairs.append((ss, None))
            continue
        key = [(c.name, norm(c.ret)) for c in ss]
        best = max(unpaired, key=lambda t: difflib.SequenceMatcher(
            None, key, [(c.name, norm(c.ret)) for c in b[t]], autojunk=False).ratio())
        unpaired.remove(best)
        pairs.append((ss, b[best]))
    return pairs, [b[t] for t in unpaired]


def align(ss: list[Call], ts: list[Call]) -> Iterator[tuple[str, list[Call], list[Call]]]:
    """difflib opcodes of two processes' calls aligned by name: (tag, calls of ``ss``,
    calls of ``ts``); in ``equal`` runs the two lists pair up one to one."""
    sm = difflib.SequenceMatcher(None, [c.name for c in ss], [c.name for c in ts],
                                 autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        yield tag, ss[i1:i2], ts[j1:j2]


@dataclass
class Agreement:
    """How far two traces of one program agree, line by line (:func:`agreement`).

    ``lines`` counts line slots: a line of either trace aligned with a line of the other
    counts once, a line only one trace has counts once; ``whole`` is the aligned pairs
    whose normalised lines are identical, ``name_ret`` those whose names and normalised
    returns are.
    """

    lines: int = 0
    whole: int = 0
    name_ret: int = 0
    #: per call name, lines that differ (aligned but different, or on one side only)
    diffs: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def whole_share(self) -> float:
        return self.whole / self.lines if self.lines else 1.0

    @property
    def name_ret_share(self) -> float:
        return self.name_ret / self.lines if self.lines else 1.0


def agreement(reference: str, other: str) -> Agreement:
    """Whole-line agreement of ``other`` (tracekit's strace format) with ``reference``
    (``strace -f -qq``'s output), both of one program.

    Lines are grouped by process, processes paired by :func:`pair_processes`, calls
    aligned by name (:func:`align`); signal (``---``) and exit (``+++``) lines take part.
    A line is identical when equal after :func:`norm_line` (addresses, pids and times:
    nothing else). The pids normalised are each trace's own pid column.
    """
    ref, oth = parse(reference, events=True), parse(other, events=True)
    ref_pids, oth_pids = pid_normaliser(set(ref)), pid_normaliser(set(oth))
    res = Agreement()
    pairs, extra = pair_processes(ref, oth)
    for ts in extra:
        for c in ts:
            res.lines += 1
            res.diffs[f"{c.name}: only in tracekit"] += 1
    for ss, maybe in pairs:
        if maybe is None:
            res.lines += len(ss)
            res.diffs["process missing in tracekit"] += len(ss)
            continue
        for tag, s_run, t_run in align(ss, maybe):
            if tag != "equal":
                res.lines += len(s_run) + len(t_run)
                for c in s_run:
                    res.diffs[f"{c.name}: only in strace"] += 1
                for c in t_run:
                    res.diffs[f"{c.name}: only in tracekit"] += 1
                continue
            for s, t in zip(s_run, t_run, strict=True):
                res.lines += 1
                s_line, t_line = norm_line(s.line, ref_pids), norm_line(t.line, oth_pids)
                if s_line == t_line:
                    res.whole += 1
                    res.name_ret += 1
                    continue
                if norm_line(s.ret, ref_pids) == norm_line(t.ret, oth_pids):
                    res.name_ret += 1
                res.diffs[s.name] += 1
                res.examples.setdefault(s.name, (s_line, t_line))
    return res
