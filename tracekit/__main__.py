"""``python -m tracekit``."""

import sys

from tracekit._cli import main

sys.exit(main())
