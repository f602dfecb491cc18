"""``python -m bot.cli``: the ``spielleiter`` command."""

import sys

from bot.cli import main

sys.exit(main())
