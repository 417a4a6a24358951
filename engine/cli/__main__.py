"""``python -m engine.cli`` = ``opstudio``."""

import sys

from . import main

sys.exit(main())
