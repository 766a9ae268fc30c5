"""``python -m rigidparts.commands ...``: the same as the ``rigidparts`` script."""

import sys

from . import main

sys.exit(main())
