"""``tracekit strace`` against strace 6.1 on strace's own test programs (an outside corpus).

strace 6.1's test suite has a few hundred small C programs, each making the calls of one
syscall (or option) with good and bad arguments; ``tests/gen_tests.in`` gives each test's
options (``name<TAB>options``). Each program of the simple forms (no options, or options
only: ``run_strace_match_diff``; ``-e trace=NAME`` added unless a trace= is given, as
the suite does) runs once under ``strace OPTS -o S ../NAME`` and once under ``tracekit
strace OPTS -o T ../NAME`` (``python3 -m tracekit strace`` from this checkout), in the
test's own folder ``tests/NAME.dir`` of the build, stdin /dev/null, stdout a file. The
two traces are compared line by line with the normalising and alignment of
tests/e2e/_strace_cli.py (``compare``: only addresses, pids and times normalised; calls
aligned by name; traces over ``--max-lines`` lines are paired line by line instead, the
alignment being quadratic). Pids: every pid the system handed out while the tracer ran
(``/proc/sys/kernel/ns_last_pid`` before and after).

Printed per program: identical/total line slots; then the share of whole lines
identical over all programs, the programs fully identical, those tracekit refused (an
option it does not take: its one-line reason), those that failed to build or to run
(strace's run exited non-zero; exit 77 is the program's own "skip": a kernel without
the feature), those left out by the options they need (ptrace-only features: inject,
fault, ``-k``, ``-b``, ``--seccomp-bpf``; kvm, SELinux contexts, pid namespaces), and the
worst programs with their first differing line. Of the ``+script.sh`` forms, those of
four helper scripts that only add options (``HELPERS``: ioctl, prctl, netlink sock_diag,
getuid) run too; the other helpers and the ``function args`` forms are not run.

The strace sources: ``--src DIR`` (an unpacked strace-6.1), else CACHE/strace-6.1, else
``apt-get source strace`` into CACHE with a private apt configuration (a deb-src entry
for this system's Debian suite, lists kept in CACHE: the system's sources are not
touched). Nothing of strace enters this repository. The build (``configure
--enable-mpers=no``, then the programs with ``make -k``) stays in CACHE/build; CACHE
defaults to ~/.cache/tracekit/strace-corpus.

Not part of ``nox -s bench``'s default run: the first run configures and builds for
about 10 minutes, a run of all programs takes about 10 more. Needs root, strace 6.1, gcc,
make, and dpkg-dev for ``apt-get source``.

Usage: python3 bench/strace_corpus.py [--src DIR] [--cache DIR] [--only NAME ...]
       [--jobs 2] [--json OUT] [--compare OLD.json] [--worst 15] [--timeout 60]
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.e2e._strace_cli import Run, compare, normalise  # noqa: E402

VERSION = "6.1"
DEFAULT_CACHE = Path.home() / ".cache" / "tracekit" / "strace-corpus"
TRACEKIT = [sys.executable, "-m", "tracekit", "strace"]
#: options of features only a ptrace tracer has, or that need a machine setup (kvm,
#: SELinux, pid namespaces): tests using them are left out, with the word that matched
LEFT_OUT = re.compile(r"inject|fault|(?:^|\s)-k\b|--stack-trace|(?:^|\s)-b\b|"
                      r"--detach-on|seccomp-bpf|secontext|kvm|pidns|--decode-pids")
_QUIRK = re.compile(r"""(?:"QUIRK:[^"]*"|'QUIRK:[^']*'|QUIRK:\S*)""")
_TRACE_GIVEN = re.compile(r"-e ?trace=|--trace=")


class Failure(Exception):
    """A step that cannot go on (no sources, no build): one line for the user."""


@dataclass(frozen=True)
class Test:
    """One line of gen_tests.in: the program's name and its options (shell words)."""

    name: str
    args: str
    #: run_strace_match_diff's form: ``-e trace=NAME`` added unless a trace= is given
    own_trace: bool = True

    def command(self) -> str:
        """The options and the program, as the suite's shell reads them (``$NAME``,
        quotes and redirections such as ``9>>/dev/full`` included)."""
        args = self.args
        prog = f"../{self.name}"
        for q in _QUIRK.findall(args):
            word = shlex.split(q)[0]
            if word.startswith("QUIRK:PROG-ARGS:"):
                prog += " " + word[len("QUIRK:PROG-ARGS:"):]
        args = _QUIRK.sub("", args)
        if self.own_trace and not _TRACE_GIVEN.search(args):
            args = f"-e trace={self.name} {args}"
        return f"{args} {prog}"

    def column(self) -> int:
        m = re.search(r"(?:^|\s)-a ?(\d+)|--columns=(\d+)", self.args)
        return int(m.group(1) or m.group(2)) if m else 40


@dataclass
class Outcome:
    """One program's result; ``status``: compared, refused, failed-build, failed-run,
    skipped (the program's exit 77), left-out."""

    name: str
    status: str
    lines: int = 0
    identical: int = 0
    reason: str = ""
    diffs: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def share(self) -> float:
        return self.identical / self.lines if self.lines else 1.0


#: helper scripts of the ``+script`` form whose run is the simple form's with these
#: options before the test's own (what the script passes to strace; the lines it filters
#: out of strace's output are compared too)
HELPERS = {"ioctl.test": "-a16 -eioctl", "prctl.sh": "-eprctl",
           "netlink_sock_diag.test": "-e trace=sendto", "getuid.test": "-qq -a9 -e$NAME"}


def read_tests(src: Path) -> list[Test]:
    """The tests of gen_tests.in in the simple forms (no options, or options only), and
    those of the :data:`HELPERS` forms (``getuid.test``'s ``-creds`` variants, which run
    another program, left out)."""
    tests = []
    for line in (src / "tests" / "gen_tests.in").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, args = line.strip().replace("\t", " ").partition(" ")
        args = args.strip()
        if args == "" or args.startswith("-"):
            tests.append(Test(name, args))
            continue
        helper, _, rest = args.partition(" ")
        prefix = HELPERS.get(helper[1:]) if helper.startswith("+") else None
        if prefix is not None and not name.endswith("-creds"):
            tests.append(Test(name, f"{prefix} {rest.strip()}".strip(), own_trace=False))
    return tests


# --- the sources and the build ----------------------------------------------------------

def _codename() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip('"')
    raise Failure("no VERSION_CODENAME in /etc/os-release: pass --src DIR (an unpacked "
                  "strace-6.1)")


def fetch_sources(cache: Path) -> Path:
    """``apt-get source strace`` into ``cache`` with a private deb-src list."""
    if shutil.which("dpkg-source") is None:
        raise Failure("apt-get source needs dpkg-source (apt-get install dpkg-dev), or "
                      "pass --src DIR")
    apt = cache / "apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (apt / sub).mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(
        f"deb-src http://deb.debian.org/debian {_codename()} main\n")
    opts = [f"-oDir::Etc::SourceList={apt / 'sources.list'}",
            "-oDir::Etc::SourceParts=/dev/null", f"-oDir::State::Lists={apt / 'lists'}",
            f"-oDir::Cache={apt / 'cache'}"]
    for cmd in (["apt-get", *opts, "update"], ["apt-get", *opts, "source", "strace"]):
        r = subprocess.run(cmd, cwd=cache, capture_output=True, text=True)
        if r.returncode:
            tail = (r.stderr.strip().splitlines() or ["?"])[-1]
            raise Failure(f"{' '.join(cmd)}: exit {r.returncode}: {tail}")
    found = sorted(cache.glob("strace-*/tests/gen_tests.in"))
    if not found:
        raise Failure(f"apt-get source strace: no strace-*/tests/gen_tests.in in {cache}")
    return found[-1].parents[1]


def sources(src: Path | None, cache: Path) -> Path:
    if src is None:
        src = cache / f"strace-{VERSION}"
        if not (src / "tests" / "gen_tests.in").is_file():
            src = fetch_sources(cache)
    if not (src / "tests" / "gen_tests.in").is_file():
        raise Failure(f"{src}: no tests/gen_tests.in (not an unpacked strace source)")
    if f"strace-{VERSION}" not in src.resolve().name:
        print(f"note: {src} is not named strace-{VERSION}; strace installed is "
              f"{_strace_version()}", file=sys.stderr)
    return src


def _strace_version() -> str:
    r = subprocess.run(["strace", "-V"], capture_output=True, text=True)
    m = re.search(r"version (\S+)", r.stdout)
    return m.group(1) if m else "?"


def build(src: Path, bdir: Path, names: list[str], jobs: int) -> set[str]:
    """Configure (once) and make the programs ``names``; the names built."""
    bdir.mkdir(parents=True, exist_ok=True)
    tdir = bdir / "tests"
    if not (bdir / "config.status").is_file():
        print(f"configuring strace in {bdir} ...", flush=True)
        r = subprocess.run([str(src / "configure"), "--enable-mpers=no",
                            "--disable-dependency-tracking", "-q"], cwd=bdir,
                           capture_output=True, text=True)
        if r.returncode:
            raise Failure(f"configure in {bdir}: exit {r.returncode}: "
                          f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
    make = ["make", "-C", str(tdir), f"-j{jobs}"]
    r = subprocess.run([*make, "ksysent.h", "scno.h", "libtests.a"], capture_output=True,
                       text=True)
    if r.returncode:
        raise Failure(f"make libtests.a in {tdir}: exit {r.returncode}: "
                      f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
    missing = [n for n in names if not (tdir / n).is_file()]
    if missing:
        print(f"building {len(missing)} test programs in {tdir} ...", flush=True)
        with (bdir / "make.log").open("w") as log:
            subprocess.run([*make, "-k", *missing], stdout=log, stderr=subprocess.STDOUT)
    return {n for n in names if os.access(tdir / n, os.X_OK)}


# --- one program -------------------------------------------------------------------------

def _last_pid() -> int:
    return int(Path("/proc/sys/kernel/ns_last_pid").read_text())


def _run(tool: list[str], test: Test, tdir: Path, tag: str, timeout: float
         ) -> tuple[Run, str]:
    """``tool -o TAG.trace OPTS ../NAME`` in tests/NAME.dir through sh (the options are
    shell words); (the run, its stderr)."""
    wd = tdir / f"{test.name}.dir"
    shutil.rmtree(wd, ignore_errors=True)
    wd.mkdir()
    out = tdir / f"{test.name}.{tag}"
    out.unlink(missing_ok=True)
    script = 'exec "$@" ' + test.command()
    env = dict(os.environ, NAME=test.name, LC_ALL="C", PYTHONPATH=str(ROOT))
    before = _last_pid()
    with (tdir / f"{test.name}.{tag}.stdout").open("wb") as stdout:
        try:
            r = subprocess.run(["sh", "-c", script, "sh", *tool, "-o", str(out)], cwd=wd,
                               stdin=subprocess.DEVNULL, stdout=stdout,
                               stderr=subprocess.PIPE, timeout=timeout, env=env)
            status, err = r.returncode, r.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            status, err = -1, f"timed out after {timeout:.0f} s"
    after = _last_pid()
    text = out.read_text(errors="surrogateescape") if out.is_file() else ""
    pids = set(range(before + 1, after + 1)) if after >= before else set()
    return Run({"": text}, status, pids, err), err


def by_position(s: Run, t: Run) -> tuple[int, int, list[tuple[str, str]]]:
    """(slots, identical, differing pairs) of two traces paired line by line, with the
    same normalising: for traces too long for ``compare``'s alignment (difflib is
    quadratic in lines of one name: msg_control's 60,000 sendmsg lines take minutes)."""
    pids = sorted({p for p in s.pids | t.pids if p > 1}, reverse=True)
    pat = re.compile(r"(?<![\w.])(?:" + "|".join(map(str, pids)) + r")(?![\w.])") \
        if pids else None
    a = [normalise(x, pat) for x in s.texts[""].splitlines()]
    b = [normalise(x, pat) for x in t.texts[""].splitlines()]
    diffs = [(x or "", y or "") for x, y in itertools.zip_longest(a, b) if x != y]
    return max(len(a), len(b)), max(len(a), len(b)) - len(diffs), diffs


def measure(test: Test, tdir: Path, built: set[str], timeout: float,
            max_lines: int = 5000) -> Outcome:
    t0 = time.monotonic()
    left = LEFT_OUT.search(test.args) or LEFT_OUT.search(test.name)
    if left:
        return Outcome(test.name, "left-out", reason=left.group(0).strip())
    if test.name not in built:
        return Outcome(test.name, "failed-build")
    s, s_err = _run(["strace"], test, tdir, "strace", timeout)
    if s.status == 77:
        why = s_err.strip().splitlines()[-1] if s_err.strip() else "exit 77"
        return Outcome(test.name, "skipped", reason=why[:160])
    if s.status:
        why = s_err.strip().splitlines()[-1] if s_err.strip() else ""
        return Outcome(test.name, "failed-run", reason=f"exit {s.status}: {why}"[:160])
    t, t_err = _run(TRACEKIT, test, tdir, "tracekit", timeout)
    first = t_err.strip().splitlines()[0] if t_err.strip() else ""
    if t.status and first.startswith("tracekit strace:") and not t.texts[""].strip():
        return Outcome(test.name, "refused", reason=first)
    if max(len(s.texts[""].splitlines()), len(t.texts[""].splitlines())) > max_lines:
        lines, same, diffs = by_position(s, t)
        reason = f"over {max_lines} lines: paired by position"
    else:
        res = compare(s, t, column=test.column())
        lines, same, diffs, reason = res.lines, res.identical, res.diffs, ""
    out = Outcome(test.name, "compared", lines, same, reason, diffs[:5],
                  seconds=round(time.monotonic() - t0, 2))
    if t.status != s.status:
        out.reason = f"{reason}; " * bool(reason) + f"tracekit exit {t.status}: {first}"[:200]
    return out


# --- the report ---------------------------------------------------------------------------

def report(results: list[Outcome], worst: int, seconds: float) -> None:
    by = collections.defaultdict(list)
    for o in results:
        by[o.status].append(o)
    done = by["compared"]
    lines = sum(o.lines for o in done)
    same = sum(o.identical for o in done)
    full = sum(o.identical == o.lines for o in done)
    print(f"\nprograms compared: {len(done)}; whole lines identical: {same}/{lines} = "
          f"{same / lines if lines else 1:.2%}; programs fully identical: {full}/"
          f"{len(done)}")
    print(f"refused by tracekit: {len(by['refused'])}; failed to build: "
          f"{len(by['failed-build'])}; failed to run under strace: "
          f"{len(by['failed-run'])}; skipped by the program (exit 77): "
          f"{len(by['skipped'])}; left out (option needs ptrace or a setup): "
          f"{len(by['left-out'])}; run time {seconds:.0f} s")
    for title, key in (("refused", "refused"), ("failed to run", "failed-run")):
        reasons = collections.Counter(o.reason for o in by[key])
        for why, n in reasons.most_common():
            names = ", ".join(o.name for o in by[key] if o.reason == why)
            print(f"  {title} ({n}): {why}  [{names[:150]}]")
    if by["failed-build"]:
        print("  failed to build: " + ", ".join(o.name for o in by["failed-build"]))
    bad = sorted((o for o in done if o.identical < o.lines),
                 key=lambda o: (o.share, -o.lines))[:worst]
    if bad:
        print(f"\nworst {len(bad)} (share, identical/total, first differing line):")
    for o in bad:
        print(f"  {o.name:32} {o.share:7.1%} {o.identical}/{o.lines}"
              + (f"  ({o.reason})" if o.reason else ""))
        if o.diffs:
            a, b = o.diffs[0]
            print(f"      strace:   {a[:200]}\n      tracekit: {b[:200]}")


def worse(old: dict[str, dict[str, object]], new: list[Outcome]) -> list[str]:
    """Programs whose result is worse than in ``old`` (a --json file)."""
    out = []
    for o in new:
        prev = old.get(o.name)
        if prev is None:
            continue
        if prev.get("status") == "compared" and o.status != "compared":
            out.append(f"{o.name}: was compared, now {o.status} {o.reason}")
        elif prev.get("status") == o.status == "compared":
            p_lines, p_same = prev.get("lines"), prev.get("identical")
            if not isinstance(p_lines, int) or not isinstance(p_same, int):
                continue
            p_share = p_same / p_lines if p_lines else 1.0
            if o.share < p_share - 1e-9:
                out.append(f"{o.name}: {p_same}/{p_lines} -> {o.identical}/{o.lines}")
    return out


def read_old(path: Path) -> dict[str, dict[str, object]]:
    """A --json file of an earlier run."""
    try:
        old = json.loads(path.read_text())
    except OSError as e:
        raise Failure(f"--compare {path}: {e.strerror}") from None
    except ValueError as e:
        raise Failure(f"--compare {path}: not JSON: {e}") from None
    if not isinstance(old, dict) or not all(isinstance(v, dict) for v in old.values()):
        raise Failure(f"--compare {path}: not a --json file of this bench")
    return old


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--src", type=Path, help="an unpacked strace-6.1 source tree")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                    help=f"where the sources and the build go (default {DEFAULT_CACHE})")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these tests only")
    ap.add_argument("--jobs", type=int, default=2, help="programs built and run at once")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write per-program results")
    ap.add_argument("--compare", type=Path, metavar="OLD",
                    help="list programs worse than in this --json file")
    ap.add_argument("--worst", type=int, default=15, help="worst programs shown")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per traced run")
    ap.add_argument("--max-lines", type=int, default=5000,
                    help="traces longer than this are paired line by line, not aligned")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-program lines")
    args = ap.parse_args()
    if os.geteuid() != 0 or shutil.which("strace") is None:
        print("strace_corpus: needs root and strace", file=sys.stderr)
        return 1
    t0 = time.monotonic()
    try:
        old = read_old(args.compare) if args.compare else None
        args.cache.mkdir(parents=True, exist_ok=True)
        src = sources(args.src, args.cache)
        tests = read_tests(src)
        if args.only:
            unknown = set(args.only) - {t.name for t in tests}
            if unknown:
                raise Failure(f"--only: not a test of gen_tests.in this bench runs: "
                              f"{', '.join(sorted(unknown))}")
            tests = [t for t in tests if t.name in args.only]
        wanted = [t.name for t in tests if not (LEFT_OUT.search(t.args)
                                                or LEFT_OUT.search(t.name))]
        built = build(src, args.cache / "build", wanted, args.jobs)
    except (Failure, OSError, ValueError) as e:
        print(f"strace_corpus: {e}", file=sys.stderr)
        return 1
    tdir = args.cache / "build" / "tests"
    results: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for o in pool.map(lambda t: measure(t, tdir, built, args.timeout, args.max_lines),
                          tests):
            results.append(o)
            if not args.quiet:
                what = (f"{o.identical}/{o.lines} {o.share:.1%}" if o.status == "compared"
                        else o.status)
                print(f"{o.name:40} {what}" + (f"  {o.reason}" if o.reason else ""),
                      flush=True)
    seconds = time.monotonic() - t0
    report(results, args.worst, seconds)
    if args.json:
        args.json.write_text(json.dumps({o.name: asdict(o) for o in results}, indent=1))
    if old is not None:
        got = worse(old, results)
        print(f"\nworse than {args.compare}: {len(got)}")
        for line in got:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
