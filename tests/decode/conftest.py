"""The ``dec`` fixture of the decoder tests that build records with tests/decode/_calls.py
(a module that defines its own ``dec`` keeps it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.decode._calls import decoder
from tracekit.decode.args import SyscallDecoder


@pytest.fixture
def dec(tmp_path: Path) -> SyscallDecoder:
    return decoder(tmp_path)
