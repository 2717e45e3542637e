"""The ``dealsearch`` command's entry point, light enough that Ctrl-C during start-up (while
the engines and the games are imported) ends in one line and exit status 130, no traceback.

From its first line to the interpreter's exit the process notes stop signals
(:func:`dealsearch.interrupt.install`); each command says where they are raised."""

from __future__ import annotations

import sys

from . import interrupt


def main() -> int:
    """Import the command line and run it (:func:`dealsearch.cli.main.main`)."""
    interrupt.install()
    try:
        from .cli.main import main as run
        interrupt.check()
    except KeyboardInterrupt as stop:
        print("dealsearch: interrupted", file=sys.stderr)
        return interrupt.exit_status(stop)
    return run()
