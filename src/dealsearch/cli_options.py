"""Options and errors shared by the ``dealsearch`` subcommands."""

from __future__ import annotations

import argparse
from typing import NoReturn

from .rules import PRESETS

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2
DEFAULT_DB = "dealsearch.sqlite"  # the log, in the current directory


class BadInput(Exception):
    """Bad input: reported as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, not a usage dump: the user needs to know what is wrong."""
        raise BadInput(message)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def add_game_options(parser: argparse.ArgumentParser, default_rules: str | None = "standard"
                     ) -> None:
    """Options every command that plays games shares: the rules and the agreed limit."""
    parser.add_argument("--rules", choices=sorted(PRESETS), default=default_rules,
                        help="payments, notation and deck (default: standard)")
    parser.add_argument("--max-cards", type=positive_int, metavar="N",
                        help="agreed limit: stop at the first trick boundary at or past N cards")
    parser.add_argument("--max-tricks", type=positive_int, metavar="N",
                        help="agreed limit: stop once N piles have been taken")
