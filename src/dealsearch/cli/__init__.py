"""The ``dealsearch`` command line: one thin module per command, all parsing and printing.

:mod:`.main` builds the parser and is the one error boundary; :mod:`.options` holds the
option types every command shares; the work itself is in the library. A game adds commands
of its own through :meth:`dealsearch.plugin.Game.commands`; a command's module is imported
only when the command is invoked.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
