"""The ``dealsearch`` command line: one thin module per command, all parsing and printing.

:mod:`.main` builds the parser and is the one error boundary; what every command is built
from (shared options, the run service, output) is below it, in :mod:`dealsearch.commandline`
(a game's commands take the same through :mod:`dealsearch.plugin.commands`); the work itself
is in the library. A game adds commands
of its own through :meth:`dealsearch.plugin.Game.commands`; a command's module is imported
only when the command is invoked.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
