"""Options shared by the ``dealsearch`` subcommands, and the checks made when they are read."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path
from typing import NoReturn

from .errors import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    BadInput,
    BadLog,
    BadOption,
    MissingDirectory,
    NotAFile,
)
from .log import RecordLog
from .rules import PRESETS
from .search.spec import MAX_SEED

EXIT_MISMATCH = EXIT_FAILED  # verify --known, records --verify: a stored count is wrong
DEFAULT_DB = "dealsearch.sqlite"  # the log, in the current directory
_SQLITE_MAGIC = b"SQLite format 3\x00"

__all__ = ["DEFAULT_DB", "EXIT_BAD_INPUT", "EXIT_MISMATCH", "EXIT_OK", "MAX_SEED", "BadInput",
           "Parser", "add_game_options", "check_log_path", "open_log", "positive_int", "seed"]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, not a usage dump: the user needs to know what is wrong."""
        raise BadOption(message)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def seed(text: str) -> int:
    """An argparse type: a PRNG seed, 0 to :data:`MAX_SEED`.

    >>> seed("7")
    7
    """
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a seed is a whole number from 0 to {MAX_SEED}")
    return value


def check_log_path(path: str | Path, must_exist: bool = False) -> None:
    """Raise :class:`BadInput` unless ``path`` can be a log: a SQLite database, an empty file,
    or (unless ``must_exist``) a new file in an existing directory. Checked before any work
    starts, so a bad ``--db`` never leaves workers running or a run half-written.
    """
    path = Path(path)
    if str(path) == ":memory:":
        return
    if not path.exists():
        if must_exist:
            raise BadLog(f"no log at {path}")
        if not path.parent.is_dir():
            raise MissingDirectory(f"no directory {path.parent} for the log {path}")
        return
    if path.is_dir():
        raise NotAFile(f"{path} is a directory, not a log")
    try:
        with path.open("rb") as file:
            head = file.read(len(_SQLITE_MAGIC))
    except OSError as error:
        raise BadLog(f"cannot read the log {path}: {error.strerror}") from None
    if head and head != _SQLITE_MAGIC:  # SQLite makes an empty file a new database
        raise BadLog(f"{path} is not a dealsearch log (not a SQLite database)")


def open_log(path: str | Path, must_exist: bool = False) -> RecordLog:
    """The log at ``path`` after :func:`check_log_path`; what SQLite still refuses (a damaged
    database, no permission) is :class:`BadLog` too."""
    check_log_path(path, must_exist)
    try:
        return RecordLog(path)
    except sqlite3.DatabaseError as error:  # OperationalError included
        raise BadLog(f"cannot open the log {path}: {error}") from None


def add_game_options(parser: argparse.ArgumentParser, default_rules: str | None = "standard"
                     ) -> None:
    """Options every command that plays games shares: the rules and the agreed limit."""
    parser.add_argument("--rules", choices=sorted(PRESETS), default=default_rules,
                        help="payments, notation and deck (default: standard)")
    parser.add_argument("--max-cards", type=positive_int, metavar="N",
                        help="agreed limit: stop at the first trick boundary at or past N cards")
    parser.add_argument("--max-tricks", type=positive_int, metavar="N",
                        help="agreed limit: stop once N piles have been taken")
