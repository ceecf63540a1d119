"""User stages from a pipeline file: what goes wrong in the user's code is one clear error."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tracekit._errors import ConfigError
from tracekit.app.config import UserStageConfig
from tracekit.app.registry import build_stages

MODULE = '''
class Boom:
    name = "boom"
    def __init__(self):
        raise RuntimeError("no config here")

def five():
    return 5

class Good:
    name = "good"
    def __init__(self, limit: int = 1):
        self.limit = limit
    async def run(self, ctx, recv, send):
        async with recv, send:
            async for batch in recv:
                await send.send(batch)
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"tk_user_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


@pytest.mark.parametrize(("attr", "options", "message"), [
    ("Boom", {}, r"stage\[0\] .*:Boom: building the stage failed: RuntimeError: no config"),
    ("five", {}, r"5 is not a stage: it needs a `name` \(str\) and `async def run"),
    ("Good", {"nope": 1}, r"bad options: .*unexpected keyword argument 'nope'"),
    ("Missing", {}, r"has no 'Missing'"),
])
def test_bad_user_stage(user_module: str, attr: str, options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_stages([UserStageConfig(use=f"{user_module}:{attr}", options=options)])


def test_module_is_not_a_stage() -> None:
    with pytest.raises(ConfigError, match=r"'os:path' is a module, not a class or function"):
        build_stages([UserStageConfig(use="os:path")])


def test_good_user_stage_gets_its_options(user_module: str) -> None:
    (stage,) = build_stages([UserStageConfig(use=f"{user_module}:Good", options={"limit": 3})])
    assert stage.name == "good" and stage.limit == 3


def test_stage_error_is_located_in_the_pipeline_file(tmp_path: Path) -> None:
    """A user stage that cannot be imported is found only when the stages are built; the
    error still names the file, line and column of that stage's ``use``."""
    cfg = tmp_path / "p.toml"
    cfg.write_text('[target]\ncommand = ["true"]\n\n[[stage]]\nkind = "beautify"\n\n'
                   '[[stage]]\nkind = "user"\n  use = "tk_no_such_module_here:Stage"\n')
    from tracekit.app.config import load_config
    entries = load_config(cfg).stage
    with pytest.raises(ConfigError) as e:
        build_stages(entries, source=cfg)
    assert str(e.value).startswith(f"{cfg}:9:9: stage[1]: cannot import "
                                   "'tk_no_such_module_here'"), e.value
    # without the file (a one-liner), the stage's index alone
    with pytest.raises(ConfigError, match=r"^stage\[1\]: cannot import"):
        build_stages(entries)


@pytest.mark.parametrize(("body", "error"), [
    ('raise RuntimeError("boom")\n', "RuntimeError: boom"),
    ("1 +\n", "SyntaxError: invalid syntax ({name}.py, line 1)"),
    ("import sys\nsys.exit('bye')\n", "SystemExit: bye"),
    ('raise BaseException("base")\n', "BaseException: base"),
])
def test_module_that_raises_on_import_is_one_located_error(
        tmp_path: Path, body: str, error: str) -> None:
    """Whatever the user's module raises while it is imported is the pipeline file's
    error at the stage's ``use``, status 2, for ``run`` and ``check`` alike: no
    traceback, and no ``stages ok``."""
    import subprocess

    name = f"tk_evil_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(body)
    cfg = tmp_path / "p.toml"
    cfg.write_text(f'[target]\ncommand = ["true"]\n[[stage]]\nkind = "user"\n'
                   f'use = "{name}:Foo"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for cmd in ("run", "check"):
        r = subprocess.run([sys.executable, "-m", "tracekit", cmd, str(cfg)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 2, r
        assert r.stderr == (f"tracekit: error: {cfg}:5:7: stage[0]: cannot import "
                            f"'{name}': {error.format(name=name)}\n"), r.stderr
        assert "stages" not in r.stdout, r.stdout


@pytest.mark.parametrize(("body", "error"), [
    ("import sys\nclass Foo:\n    def __init__(self):\n        sys.exit(4)\n",
     "building the stage failed: SystemExit: 4"),
    ("class Foo:\n    def __init__(self):\n        raise BaseException('b')\n",
     "building the stage failed: BaseException: b"),
    ("import sys\ndef __getattr__(name):\n    sys.exit(5)\n", "SystemExit: 5"),
])
def test_stage_that_exits_while_built_is_one_error(tmp_path: Path, body: str,
                                                   error: str) -> None:
    """A stage whose building exits (sys.exit) or raises a bare BaseException is an
    error naming it, never a silent exit with the user's status or a traceback."""
    name = f"tk_exits_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(body)
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ConfigError) as e:
            build_stages([UserStageConfig(use=f"{name}:Foo")])
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
    assert str(e.value).endswith(error), e.value
