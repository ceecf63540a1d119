"""``python -m tracekit``: the same entry point as the ``tracekit`` command.

The entry module (tracekit._entry) makes SIGINT, SIGQUIT, SIGTERM and SIGHUP end the
process quietly with 128+N before it imports the command line; ``main()`` reads
``sys.argv``.

``python -m`` puts the current directory first on ``sys.path``; the ``tracekit`` command
does not. It is dropped here, so ``use = "module:Name"`` in a pipeline file cannot import
a file planted in whatever directory root happens to run from (use PYTHONPATH, which is
kept, to name a directory of your stages).
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from tracekit._entry import main  # noqa: E402 - after the sys.path fix above

sys.exit(main())
