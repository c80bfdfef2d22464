"""``python -m contentblocks``: the same command as ``contentblocks``."""

import sys

from .cli import main

sys.exit(main())
