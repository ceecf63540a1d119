"""Fixtures shared by the kernel tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._run import compile_c

# Exactly argv[1] getppid calls; with a second argument it first waits for one byte on
# stdin (a gate, so a tracer can be attached before the calls start).
GETPPID_LOOP_C = r"""
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    char c;
    if (argc > 2 && read(0, &c, 1) != 1)
        return 2;
    for (long i = 0; i < n; i++)
        syscall(SYS_getppid);
    return 0;
}
"""


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The getppid loop, built once per test module."""
    return compile_c(GETPPID_LOOP_C, tmp_path_factory.mktemp("loop"), "loop")
