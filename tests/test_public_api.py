"""The public API: every exported name imports and lives in tracekit; nothing else leaks."""

from __future__ import annotations

import ast
import importlib
import pickle
import subprocess
import sys
import traceback
import typing
from pathlib import Path

import msgspec
import pytest

import tracekit
import tracekit.formatters
import tracekit.lowlevel
import tracekit.pipeline

FACES = [tracekit, tracekit.pipeline, tracekit.formatters, tracekit.lowlevel]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (nothing of tracekit imported yet)."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r


def expected_module(face, name: str, obj: object) -> str:
    """The public module ``obj`` should name: ``tracekit`` if it exports it, else ``face``."""
    if name in tracekit.__all__ and getattr(tracekit, name) is obj:
        return "tracekit"
    return face.__name__


@pytest.mark.parametrize("mod", FACES, ids=lambda m: m.__name__)
def test_all_names_import_from_tracekit(mod) -> None:
    assert mod.__all__, f"{mod.__name__} exports nothing"
    for name in mod.__all__:
        obj = getattr(mod, name)
        if isinstance(obj, type) or callable(obj) and not hasattr(obj, "__origin__"):
            assert obj.__module__ == expected_module(mod, name, obj), name
            # what a repr, a traceback or pickle names can be imported under that name
            home = importlib.import_module(obj.__module__)
            assert getattr(home, obj.__qualname__) is obj, name


def test_lazy_table_and_type_checking_block_agree() -> None:
    """``_EXPORTS`` (what runs) and the ``if TYPE_CHECKING:`` imports (what type checkers
    and editors see) name the same objects from the same modules, and ``__all__`` is both."""
    tree = ast.parse(Path(tracekit.__file__).read_text())
    table: dict[str, str] | None = None
    checked: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_EXPORTS":
            table = ast.literal_eval(node.value)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.unparse(imp)
                for alias in imp.names:
                    # `X as X`: the form type checkers read as a re-export
                    assert alias.asname == alias.name, ast.unparse(imp)
                    assert alias.name not in checked, f"{alias.name} imported twice"
                    checked[alias.name] = imp.module
    assert table is not None, "no _EXPORTS table"
    assert checked == table
    assert tracekit.__all__ == sorted(table)
    assert set(dir(tracekit)) >= set(table)


@pytest.mark.parametrize("mod", FACES[1:], ids=lambda m: m.__name__)
def test_eager_faces_export_what_they_import(mod) -> None:
    """A face that imports its names lists each in ``__all__``, and nothing it does not import."""
    tree = ast.parse(Path(mod.__file__).read_text())
    imported = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                for a in node.names if not (a.asname or a.name).startswith("_")}
    assert sorted(imported) == sorted(mod.__all__)


def test_modules_loaded_before_a_name_resolves_are_fixed_too() -> None:
    """An error raised from inside tracekit names its public class in a traceback, though
    the caller resolved another name only."""
    run_python(
        "import traceback, tracekit\n"
        "tracekit.Session\n"
        "from tracekit._errors import BpfError\n"
        "from tracekit._events import Syscall\n"
        "assert BpfError.__module__ == 'tracekit' and Syscall.__module__ == 'tracekit'\n"
        "try:\n"
        "    raise BpfError('BPF_MAP_CREATE', 1)\n"
        "except BpfError as e:\n"
        "    last = traceback.format_exception(e)[-1]\n"
        "assert last.startswith('tracekit.BpfError: [Errno 1] BPF_MAP_CREATE'), last\n"
    )
    exc = tracekit.MapError("BPF_MAP_UPDATE_ELEM", 7, map_name="pids")
    assert traceback.format_exception_only(exc)[-1].startswith("tracekit.MapError: ")
    assert repr(tracekit.Syscall) == "<class 'tracekit.Syscall'>"


def test_structs_still_decode_and_resolve_their_annotations() -> None:
    """msgspec and typing look string annotations up in ``sys.modules[cls.__module__]``:
    ``Syscall.caps`` names ``Capture``, which ``tracekit`` has not resolved in this process."""
    r = run_python(
        "import msgspec, typing, tracekit\n"
        "S = tracekit.Syscall\n"
        "assert 'Capture' not in vars(tracekit)\n"
        "s = S(1, 2, 3, 4, 5, 6, (0,) * 6, 0, 'ls',\n"
        "      caps=(tracekit._events.Capture(0, 1, 0, b'/etc'),),\n"
        "      decoded=tracekit._events.Decoded('openat', ('\"/etc\"',), '3'))\n"
        "for m in (msgspec.json, msgspec.msgpack):\n"
        "    assert m.decode(m.encode(s), type=S) == s\n"
        "print(typing.get_type_hints(S)['caps'])\n"
        "print(typing.get_type_hints(tracekit.Summary)['groups'])\n"
    )
    assert r.stdout.split() == ["tuple[tracekit.Capture,", "...]", "list[tracekit.Group]"]


def test_pickles_name_the_public_module() -> None:
    """A pickle made here loads in a process that has not imported tracekit."""
    s = tracekit.Syscall(1, 2, 3, 4, 5, 6, (0,) * 6, -2, "cat")
    errors = [tracekit.ProgLoadError(13, prog_name="sys_enter", verifier_log="R1 invalid mem"),
              tracekit.MapError("BPF_MAP_UPDATE_ELEM", 7, map_name="pids"),
              tracekit.TracefsError("/sys/kernel/tracing/events", 2),
              tracekit.ElfError("no .BTF", path="x.bpf.o", sec=".BTF"),
              tracekit.ConfigError("pipeline.toml:3:1: unknown field")]
    data = pickle.dumps([s, *errors])
    text = pickle.dumps([s, *errors], protocol=0)  # classes as "c<module>\n<name>\n"
    for cls in (type(s), *map(type, errors)):
        assert f"ctracekit\n{cls.__name__}\n".encode() in text, cls
    code = ("import pickle, sys\n"
            f"s, *errors = pickle.loads({data!r})\n"
            "print(repr(s)); [print(type(e).__name__, vars(e), repr(str(e))) for e in errors]\n")
    out = run_python(code).stdout.splitlines()
    assert out == [repr(s)] + [f"{type(e).__name__} {vars(e)} {str(e)!r}" for e in errors]


def test_errors_survive_pickling() -> None:
    """Message, errno and attributes come back as they were (the constructors take other
    arguments than ``.args`` holds, so the default pickling rebuilt them wrong)."""
    e = tracekit.ProgLoadError(13, prog_name="sys_enter", verifier_log="0: R1 invalid mem\n")
    e.add_note("while loading syscalls.bpf.o")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is tracekit.ProgLoadError
    assert (str(back), back.args, back.errno, back.strerror) == (str(e), e.args, 13, e.strerror)
    assert (back.cmd, back.prog_name, back.verifier_log) == ("BPF_PROG_LOAD", "sys_enter",
                                                             e.verifier_log)
    assert back.__notes__ == ["while loading syscalls.bpf.o"]
    elf = pickle.loads(pickle.dumps(tracekit.ElfError("bad", path="x.o", sec=".text")))
    assert str(elf) == "x.o [.text]: bad" and (elf.path, elf.sec) == ("x.o", ".text")


def test_annotations_resolve_in_the_defining_module() -> None:
    hints = typing.get_type_hints(tracekit.SessionOptions)
    assert hints["pids"] == list[int]
    assert msgspec.json.schema(tracekit.Summary)["$ref"] == "#/$defs/Summary"


@pytest.mark.parametrize("top", ["pipeline", "formatters", "programs"])
def test_no_generic_top_level_packages(top: str, tmp_path) -> None:
    """Only ``tracekit`` is installed: ``import pipeline`` fails outside the source tree."""
    r = subprocess.run([sys.executable, "-c", f"import {top}"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr, r.stderr
    assert importlib.import_module(f"tracekit.{top}").__name__ == f"tracekit.{top}"


def test_import_does_no_work() -> None:
    """``import tracekit`` starts no subprocess, reads no /proc, parses no BTF."""
    code = (
        "import sys, subprocess, builtins, trio, msgspec  # their own import-time work\n"
        "opened = []\n"
        "real_open = builtins.open\n"
        "builtins.open = lambda f, *a, **k: (opened.append(str(f)), real_open(f, *a, **k))[1]\n"
        "subprocess.Popen.__init__ = lambda *a, **k: sys.exit('subprocess at import')\n"
        "import tracekit, tracekit.pipeline, tracekit.formatters\n"
        "bad = [f for f in opened if f.startswith(('/proc', '/sys'))]\n"
        "assert not bad, bad\n"
        "btf = sys.modules.get('tracekit.bpf.btf')\n"
        "assert btf is None or not btf._vmlinux_cached.cache_info().currsize\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_import_loads_the_package_only() -> None:
    """Not one submodule but the version string's, not trio, not msgspec: names (and
    their ``__module__`` fixup) wait until they are resolved."""
    r = run_python(
        "import sys\n"
        "before = set(sys.modules)\n"
        "import tracekit\n"
        "print(sorted(m for m in set(sys.modules) - before\n"
        "             if m.split('.')[0] in ('tracekit', 'trio', 'msgspec')))\n"
    )
    assert r.stdout.strip() == "['tracekit', 'tracekit._version']"


def test_version_matches_distribution() -> None:
    from importlib.metadata import version

    assert tracekit.__version__ == version("tracekit")
