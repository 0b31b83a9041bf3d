"""`python -m bot.cli`: the `bot` command."""

import sys

from bot.cli import main

sys.exit(main())
