"""Shared test fixtures.

Kernel tests carry ``@pytest.mark.kernel``; they skip, with the reason, on a machine that
lacks root, BPF, BTF or tracefs. CI has all of them, so a skip there is a failure to look at.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests._run import compile_c

# Property tests check what comes out, not how fast: on a shared two-core machine running
# the suite with -n 2 one example can take longer than hypothesis's 200 ms default
# deadline, which then fails a correct test (DeadlineExceeded).
settings.register_profile("tracekit", deadline=None)
settings.load_profile("tracekit")

SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


@functools.cache
def kernel_unavailable_reason() -> str | None:
    """Why kernel tests cannot run here, or None when they can."""
    if os.geteuid() != 0:
        return "kernel tests need root (or CAP_BPF+CAP_PERFMON)"
    if not Path("/sys/kernel/btf/vmlinux").exists():
        return "kernel has no BTF (/sys/kernel/btf/vmlinux missing)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = kernel_unavailable_reason()
    if reason is None:
        return
    for item in items:
        if "kernel" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def shared_fixtures() -> Path:
    """``../shared/fixtures`` (tracefs formats of other kernels)."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"shared fixtures not found at {SHARED_FIXTURES}")
    return SHARED_FIXTURES


@pytest.fixture
def fds() -> Iterator[list[int]]:
    """fds a test creates (append them); all closed afterwards."""
    made: list[int] = []
    yield made
    for fd in made:
        os.close(fd)


# Exactly argv[1] getppid calls; with a second argument it first waits for one byte on
# stdin (a gate, so a tracer can be attached before the calls start). It ends early
# (status 3) once orphaned: the parent it started under (the test, or the tracekit whose
# command it is) is gone, so a failed test leaves no endless loop behind.
GETPPID_LOOP_C = r"""
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    char c;
    if (argc > 2 && read(0, &c, 1) != 1)
        return 2;
    long parent = -1;
    for (long i = 0; i < n; i++) {
        /* an orphan (its test or its tracekit gone) ends: nothing left running */
        long now = syscall(SYS_getppid);
        if (parent < 0)
            parent = now;
        else if (now != parent)
            return 3;
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The getppid loop, built once per test module."""
    return compile_c(GETPPID_LOOP_C, tmp_path_factory.mktemp("loop"), "loop")
