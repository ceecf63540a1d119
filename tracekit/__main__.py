"""``python -m tracekit``: the same entry point as the ``tracekit`` command.

``main()`` is called without arguments (it reads ``sys.argv``), so it handles a SIGINT
during its own imports (exit 130, no traceback) and ignores a late one at exit; see
tracekit.app.cli.

``python -m`` puts the current directory first on ``sys.path``; the ``tracekit`` command
does not. It is dropped here, so ``use = "module:Name"`` in a pipeline file cannot import
a file planted in whatever directory root happens to run from (use PYTHONPATH, which is
kept, to name a directory of your stages).
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

try:
    from tracekit.app.cli import main  # noqa: E402 - after the sys.path fix above
except KeyboardInterrupt:  # Ctrl-C while the package itself is imported: no traceback
    sys.exit(130)

sys.exit(main())
