"""``python -m server.app ...`` is ``jantaku ...``."""

import sys

from server.app.cli import main

sys.exit(main())
