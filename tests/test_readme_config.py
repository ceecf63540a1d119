"""The README's pipeline.toml reference is a valid pipeline file with the stated values."""

from __future__ import annotations

import re
from pathlib import Path

from tracekit import decode_config

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_pipeline_reference_decodes() -> None:
    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(), re.S)
    assert blocks, "no toml block in README.md"
    for block in blocks:
        cfg = decode_config(block, filename="README.md")
        assert cfg.target.command == ["ls", "-l", "/"]
    ref = decode_config(blocks[0], filename="README.md")
    assert (ref.buffer_pages, ref.pids_max_entries, ref.timeout_s) == (1024, 8192, 10)
    assert ref.output.format == "perf" and ref.output.string_limit == 32
    assert [type(st).__struct_config__.tag for st in ref.stage] == ["evict"]
