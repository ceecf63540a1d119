"""Which pid-upkeep stages a trace runs without being asked: decided here, once.

The pids map is the filter: it must name exactly the traced tasks (kernel rules 3 to 6).
What keeps it true, per target::

    upkeep                       command            pid / tid               system-wide
    ---------------------------  -----------------  ----------------------  -----------
    /proc pass before attach     (held on a pipe)   session, always         -
    /proc pass after attach (4)  (held on a pipe)   session, always         -
    eviction of stale keys (5)   -                  ``evict`` stage         -
    reconciliation (3, 6)        asked              asked                   -
    one more /proc pass          asked              asked                   -

- Re-enumeration after attach is not a stage by default: the session does it before the
  source is live (its readiness), for every pid/tid target. The ``reenumerate`` stage is a
  further pass that also emits a ``Reenumerated`` record, so it runs only when asked.
- Eviction runs by default for pid/tid targets: there userspace inserts keys from /proc,
  and a task that exits before its insert leaves a key no exit program deletes, which a
  later task with a reused tid would inherit. For a command target only BPF inserts keys
  (fork, exec) and its exit program deletes them: nothing can go stale without a
  ``reconcile`` repair, which the user asked for and may pair with ``evict``.
- Reconciliation runs only when asked: it subscribes to the proc connector (root in the
  initial namespaces) and warns when it cannot.

A stage the pipeline file or the caller already lists (by name) is never added twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.pipeline._stage import Stage
from tracekit.pipeline.evict import Evict
from tracekit.session.pids import Target

__all__ = ["default_upkeep_stages"]


def default_upkeep_stages(target: Target, configured: Sequence[Stage] = ()) -> list[Stage]:
    """The upkeep stages to run before ``configured`` (module docstring: which and why).

    Args:
      target: what the session traces (``SessionOptions.target()``).
      configured: the stages the user asked for, in order; a default whose name is
        among them is left out (the user's options win).

    Returns:
      New stage objects, in pipeline order; ``[]`` for command and system-wide targets.
    """
    asked = {st.name for st in configured}
    stages: list[Stage] = []
    if target.by_id and not target.system_wide and Evict.name not in asked:
        stages.append(Evict())
    return stages
