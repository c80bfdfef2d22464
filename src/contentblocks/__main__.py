"""``python -m contentblocks``: the same command as ``contentblocks``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
