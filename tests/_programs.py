"""The loader's test BPF programs: test data in tests/data/programs/, not package data.

Sources ``test_*.bpf.c``, objects ``build/<arch>/test_*.bpf.o`` and their own
``manifest.json``, built like the tracer's objects by ``nox -s programs``
(scripts/build_programs.py); each source's header names the test that uses it.
"""

from __future__ import annotations

from pathlib import Path

from tracekit.session.session import object_path

TEST_PROGRAMS = Path(__file__).resolve().parent / "data" / "programs"


def data_object(name: str) -> Path:
    """The test object ``name`` (e.g. ``"test_maps"``) built for this machine's arch.

    Raises:
      TracekitError: no precompiled objects for this architecture.
    """
    arch = Path(str(object_path())).parent.name     # the package's build/<arch> folder
    return TEST_PROGRAMS / "build" / arch / f"{name}.bpf.o"
