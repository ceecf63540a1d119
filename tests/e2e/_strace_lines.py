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
from collections.abc import Callable, Iterable, Iterator
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
    #: every slot that differs, normalised: (call name, the reference's line or None,
    #: the other's line or None, the index of the process pair); for classifying
    slots: list[tuple[str, str | None, str | None, int]] = field(default_factory=list)

    @property
    def whole_share(self) -> float:
        return self.whole / self.lines if self.lines else 1.0

    @property
    def name_ret_share(self) -> float:
        return self.name_ret / self.lines if self.lines else 1.0


def agreement(reference: str, other: str, *, reference_pids: Iterable[int] = (),
              other_pids: Iterable[int] = ()) -> Agreement:
    """Whole-line agreement of ``other`` (tracekit's strace format) with ``reference``
    (``strace -f -qq``'s output), both of one program.

    Lines are grouped by process, processes paired by :func:`pair_processes`, calls
    aligned by name (:func:`align`); signal (``---``) and exit (``+++``) lines take part.
    A line is identical when equal after :func:`norm_line` (addresses, pids and times:
    nothing else). The pids normalised are each trace's own pid column and, for each,
    ``reference_pids`` / ``other_pids`` (the tracer's own pid, which ``getppid`` of the
    program it started returns).
    """
    ref, oth = parse(reference, events=True), parse(other, events=True)
    ref_pids = pid_normaliser(set(ref) | set(reference_pids))
    oth_pids = pid_normaliser(set(oth) | set(other_pids))
    res = Agreement()
    pairs, extra = pair_processes(ref, oth)
    for k, ts in enumerate(extra):
        for c in ts:
            res.lines += 1
            res.diffs[f"{c.name}: only in tracekit"] += 1
            res.slots.append((c.name, None, norm_line(c.line, oth_pids), len(pairs) + k))
    for k, (ss, maybe) in enumerate(pairs):
        if maybe is None:
            res.lines += len(ss)
            res.diffs["process missing in tracekit"] += len(ss)
            res.slots += [(c.name, norm_line(c.line, ref_pids), None, k) for c in ss]
            continue
        for tag, s_run, t_run in align(ss, maybe):
            if tag != "equal":
                res.lines += len(s_run) + len(t_run)
                for c in s_run:
                    res.diffs[f"{c.name}: only in strace"] += 1
                    res.slots.append((c.name, norm_line(c.line, ref_pids), None, k))
                for c in t_run:
                    res.diffs[f"{c.name}: only in tracekit"] += 1
                    res.slots.append((c.name, None, norm_line(c.line, oth_pids), k))
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
                res.slots.append((s.name, s_line, t_line, k))
    return res


# Kinds of differing lines that two runs of one program under strace itself show
# (classify): each a substitution that makes two lines equal when they differ only in
# that way, and the calls it applies to (None: any), tried in order.
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_STATE = re.compile(r"\b(uptime|freeram|sharedram|bufferram|freeswap|procs|f_bfree|f_bavail"
                    r"|f_ffree)=\d+|\b(loads)=\[[^\]]*\]")


_DECO_NUMS = re.compile(r":\[[^\]]*\]")


def _digits_in_strings(text: str) -> str:
    return _QUOTED.sub(lambda m: re.sub(r"\d", "#", m.group(0)), text)


_RUN_TO_RUN: tuple[tuple[str, frozenset[str] | None, Callable[[str], str]], ...] = (
    # getrandom's bytes: new in every run
    ("random bytes", frozenset({"getrandom"}),
     lambda t: _QUOTED.sub("BYTES", t, count=1)),
    # an ephemeral port the kernel chose, an inode number (in -yy's fd decorations:
    # ``<pipe:[N]>``, ``<TCP:[127.0.0.1:N->127.0.0.1:N]>``)
    ("port or inode", None, lambda t: _DECO_NUMS.sub(
        lambda m: re.sub(r"\d+", "N", m.group(0)), re.sub(r"htons\(\d+\)", "htons(N)", t))),
    # counters of the machine: free memory and blocks, load, uptime, processes
    ("machine state", frozenset({"sysinfo", "statfs", "fstatfs"}),
     lambda t: _STATE.sub(lambda m: f"{m.group(1) or m.group(2)}=N", t)),
    # a clock in data the program wrote or read (date's output)
    ("clock in data", frozenset({"write", "read", "pwrite64", "pread64", "writev"}),
     _digits_in_strings),
    # rt_sigreturn returns what the call the signal interrupted was returning: another
    # call in another run
    ("interrupted call", frozenset({"rt_sigreturn"}), lambda t: t.rsplit(" = ", 1)[0]),
)

#: the kind :func:`classify` gives a line that differs in a way two strace runs do not
DECODE = "decode"
#: lines both traces of a process have, at other places (a signal delivered at another
#: call, a shell's wait4 before or after its child's exit: scheduling)
MOVED = "moved"
#: a signal line and its handler's rt_sigreturn only one trace has: two of the process's
#: children exited before it ran its handler once, and the kernel delivered one SIGCHLD
#: for both (a standard signal is not queued twice)
COALESCED = "signal coalesced"


def _run_to_run_kind(name: str, a: str, b: str) -> str | None:
    """The run-to-run kind by which lines ``a`` and ``b`` of call ``name`` differ, if any."""
    return next((kind for kind, names, sub in _RUN_TO_RUN
                 if (names is None or name in names) and sub(a) == sub(b)), None)


def classify(res: Agreement) -> tuple[collections.Counter[str], list[tuple[str | None,
                                                                           str | None]]]:
    """The kinds of the line slots that differ in ``res`` (:func:`agreement`), in order:

    1. :data:`MOVED`: a slot whose lines the other trace of the same process also has,
       in a differing slot elsewhere (every line of the slot so matched);
    2. an aligned pair equal but for one of the run-to-run kinds above (random bytes, a
       port, the machine's counters, a clock in data, an interrupted call's return), or
       two one-sided lines of one call in one process so equal: that kind;
    3. :data:`COALESCED`: a one-sided signal line with a one-sided ``rt_sigreturn`` of
       the same trace and process (the process got one signal fewer in the other run:
       each trace is consistent with itself);
    4. anything else is :data:`DECODE`: a difference no second strace run shows.

    Returns:
      (slots per kind, the (reference line, other line) of every :data:`DECODE` slot).
    """
    kinds: collections.Counter[str] = collections.Counter()
    decode: list[tuple[str | None, str | None]] = []
    by_proc: dict[int, list[tuple[str, str | None, str | None]]] = collections.defaultdict(list)
    for name, a, b, k in res.slots:
        by_proc[k].append((name, a, b))
    for slots in by_proc.values():
        # 1. lines present on both sides among the differing slots of this process
        ref_pool = collections.Counter(a for _, a, _ in slots if a is not None)
        oth_pool = collections.Counter(b for _, _, b in slots if b is not None)
        common = ref_pool & oth_pool
        ref_left, oth_left = common.copy(), common.copy()
        rest: list[tuple[str, str | None, str | None]] = []
        for name, a, b in slots:
            if (a is None or ref_left[a] > 0) and (b is None or oth_left[b] > 0):
                if a is not None:
                    ref_left[a] -= 1
                if b is not None:
                    oth_left[b] -= 1
                kinds[MOVED] += 1
            else:
                rest.append((name, a, b))
        # 2. run-to-run kinds, aligned pairs and pairs of one-sided lines
        refs: list[tuple[str, str]] = []
        others: list[tuple[str, str]] = []
        for name, a, b in rest:
            if a is not None and b is not None:
                kind = _run_to_run_kind(name, a, b)
                if kind is None:
                    kinds[DECODE] += 1
                    decode.append((a, b))
                else:
                    kinds[kind] += 1
            elif a is not None:
                refs.append((name, a))
            elif b is not None:
                others.append((name, b))
        for item in list(refs):
            name, a = item
            match = next(((n, b) for n, b in others
                          if n == name and _run_to_run_kind(name, a, b)), None)
            if match is not None:
                kinds[_run_to_run_kind(name, a, match[1]) or DECODE] += 2
                refs.remove(item)
                others.remove(match)
        # 3. a signal and its handler's return, on one side only
        for side in (refs, others):
            sigs = [x for x in side if x[0] == "---"]
            rets = [x for x in side if x[0] == "rt_sigreturn"]
            for sig, ret in zip(sigs, rets, strict=False):
                kinds[COALESCED] += 2
                side.remove(sig)
                side.remove(ret)
        if refs or others:
            kinds[DECODE] += len(refs) + len(others)
        decode += [(a, None) for _, a in refs] + [(None, b) for _, b in others]
    return kinds, decode
