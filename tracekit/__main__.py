"""``python -m tracekit``: the same entry point as the ``tracekit`` command.

``main()`` is called without arguments (it reads ``sys.argv``), so it handles a SIGINT
during its own imports (exit 130, no traceback) and ignores a late one at exit; see
tracekit._cli.
"""

import sys

from tracekit._cli import main

sys.exit(main())
