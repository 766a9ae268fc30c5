"""The ``rigidparts`` console script: imports the package inside a guard, so that Ctrl-C during
start-up (numpy and the library load in the first fraction of a second) ends with one line and
exit status 130, not a traceback. Everything else is :func:`rigidparts.commands.main`."""

from __future__ import annotations

import sys


def main() -> int:
    """Run the command line; 130 with one ``error:`` line when interrupted while loading."""
    try:
        from rigidparts.commands import main as run
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    return run()


if __name__ == "__main__":
    sys.exit(main())
