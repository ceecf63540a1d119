"""Adversarial stage options in a pipeline file (round 2): every built-in stage kind with a
bad option is refused with one ``file:line:column`` message and exit status 2, by both
``run`` and ``check``, before anything reaches the kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracekit.app.cli import main

BASE = '[target]\ncommand = ["true"]\n'


@pytest.mark.parametrize(("stage", "says"), [
    ('kind = "evict"\ninterval_s = 0', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "evict"\ninterval_s = -1', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "evict"\ninterval_s = nan', "5:14: stage[0].interval_s must be a number >= 0.001"),
    ('kind = "reconcile"\nsettle_s = -5', "5:12: stage[0].settle_s must be a number >= 0.0"),
    ('kind = "reconcile"\nconnector = "bogus"',
     "5:13: expected true or false at stage[0].connector"),
    ('kind = "beautify"\nstring_limit = -1',
     "5:16: stage[0].string_limit must be an integer >= 0"),
    ('kind = "beautify"\nfd_paths = "yes"', "5:12: expected true or false at stage[0].fd_paths"),
    ('kind = "summarize"\ngroup_by = "cpu"', "invalid value 'cpu' for stage[0].group_by"),
    ('kind = "summarize"\nsort = "bogus"', "invalid value 'bogus' for stage[0].sort"),
    ('kind = "summarize"\ninterval_s = 0', "stage[0].interval_s must be a number >= 0.001"),
    ('kind = "reenumerate"\nbogus = 1', "5:1: unknown key 'bogus'"),
    ('kind = "user"\nuse = "nocolon"', "5:7: use = 'nocolon' must be \"package.module:Name\""),
    ('kind = "user"\nuse = ":X"', "5:7: use = ':X' must be \"package.module:Name\""),
    ('kind = "frobnicate"', "4:8: unknown stage kind 'frobnicate'"),
])
@pytest.mark.parametrize("cmd", ["run", "check"])
def test_bad_stage_option_is_one_located_message(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 stage: str, says: str, cmd: str) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(f"{BASE}[[stage]]\n{stage}\n")
    assert main([cmd, str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tracekit: error: ") and err.count("\n") == 1, err
    located = f"{p}:{says}" if says[0].isdigit() else says
    assert located in err and "Traceback" not in err
