"""What ``tracekit check`` says of the capabilities (tracekit.app.privileges): read from the
effective set, CAP_SYS_ADMIN standing in for CAP_BPF and CAP_PERFMON (bpf_capable(),
perfmon_capable() in include/linux/capability.h)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracekit.app.privileges import (
    CAP_BPF,
    CAP_PERFMON,
    CAP_SYS_ADMIN,
    capability_check,
    effective_caps,
)

BPF, PERFMON, ADMIN = 1 << CAP_BPF, 1 << CAP_PERFMON, 1 << CAP_SYS_ADMIN


@pytest.mark.parametrize(("caps", "euid", "ok", "detail"), [
    (BPF | PERFMON | ADMIN, 0, True, "root with CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN"),
    (PERFMON | ADMIN, 0, True,
     "root with CAP_PERFMON, CAP_SYS_ADMIN (CAP_SYS_ADMIN stands in for CAP_BPF)"),
    (ADMIN, 1000, True,
     "uid 1000 with CAP_SYS_ADMIN (CAP_SYS_ADMIN stands in for CAP_BPF and CAP_PERFMON)"),
    (BPF | PERFMON, 65534, True, "uid 65534 with CAP_BPF, CAP_PERFMON"),
    (BPF, 65534, False, "uid 65534: missing CAP_PERFMON (or run as root)"),
    (0, 0, False, "root: missing CAP_BPF and CAP_PERFMON (or run as root)"),
    (0, 65534, False, "uid 65534: missing CAP_BPF and CAP_PERFMON (or run as root)"),
])
def test_capability_check(caps: int, euid: int, ok: bool, detail: str) -> None:
    assert capability_check(caps, euid) == ("privileges", ok, detail)


def test_effective_caps_reads_cap_eff(tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000000c000000000\n")
    assert effective_caps(str(status)) == BPF | PERFMON
    status.write_text("Name:\tx\n")
    with pytest.raises(ValueError, match="no CapEff"):
        effective_caps(str(status))
    # this process: the set the kernel says it has
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith("CapEff:"))
    assert effective_caps() == int(line.split()[1], 16)
