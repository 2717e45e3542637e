"""Every failure a user can meet, as a named exception carrying its exit status.

The command line turns these (and :class:`dealsearch.game.GameError`, a game's bad input, such
as a deal that cannot be read) into one line on stderr and the
exit status, in one place (:func:`dealsearch.cli.main`); anything else is a bug and shows its
traceback.

>>> error = NoSuchFile("no such file: deals.txt")
>>> isinstance(error, BadInput), error.exit_status
(True, 2)
>>> RunFailed("run 3 failed").exit_status
1
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class DealsearchError(Exception):
    """A failure the user can meet: its message is one line, ``exit_status`` its exit status."""

    exit_status = EXIT_FAILED


class BadInput(DealsearchError):
    """Something the user gave cannot be used: exit status 2."""

    exit_status = EXIT_BAD_INPUT


class BadOption(BadInput):
    """An option or argument is malformed, out of range or contradicts another."""


class NoSuchFile(BadInput):
    """A file name given does not exist."""


class NotAFile(BadInput):
    """A path given is a directory (or something else that is not a regular file)."""


class NotATextFile(BadInput):
    """A file of deals is not UTF-8 text."""


class MissingDirectory(BadInput):
    """The directory a log is to be written in does not exist."""


class BadLog(BadInput):
    """A log path that is not a SQLite database (or that SQLite cannot open)."""


class DamagedLog(DealsearchError):
    """A log that is damaged (a bad page, text that is not UTF-8, JSON cut short): exit status
    1, and the line says how to check it and save the rest (``dealsearch log``)."""


class RunFailed(DealsearchError):
    """A search run stopped because a worker raised (or died): exit status 1.

    The run is marked ``failed`` in the log and can be resumed.
    """


class OutputFailed(DealsearchError):
    """Standard output could not be written (the disk of the file it goes to is full): exit
    status 1. A search goes on without its screen; what it found is in its log."""
