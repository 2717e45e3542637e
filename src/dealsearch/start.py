"""The ``dealsearch`` command's entry point, light enough that Ctrl-C during start-up (while
the engines and the games are imported) ends in one line and exit status 130, no traceback."""

from __future__ import annotations

import signal
import sys


def main() -> int:
    """Import the command line and run it (:func:`dealsearch.cli.main.main`)."""
    try:
        from .cli.main import main as run
    except KeyboardInterrupt:
        print("dealsearch: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    return run()
