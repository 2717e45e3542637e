"""``dealsearch``: the parser of every command, and the one place errors become one line.

Exit status: 0 when all is well, 1 when ``verify --known`` finds a mismatch or a search run
fails, 2 on bad input. :func:`main` is the one place that turns an expected failure (a
:class:`dealsearch.errors.DealsearchError`, a deal or game error) into one line and its status.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from .. import __name__ as package_name
from ..errors import DealsearchError
from ..game import DEFAULT_GAME, GameError, get_game, iter_games
from ..interrupt import exit_status
from ..search.hooks import TestHooks
from . import bench, log, rank, records, report, search, status, verify
from .commands import Command, GameCommands
from .options import EXIT_BAD_INPUT, EXIT_OK, Parser, chosen_game, examples

DESCRIPTION = """\
Find record-long and never-ending deals of card games, exactly and fast. dealsearch plays
{games} by their rules and named policies: `verify` plays a deal and prints its exact result,
`search` hunts for long and never-ending deals on every core and logs each find to a SQLite
file, `records` and `report` read that log, and `status` watches the searches running on it."""


def description() -> str:
    """The program's description, naming the registered games (the default first)."""
    titles = [get_game(DEFAULT_GAME).title + " (the default)"] + [
        game.title for game in iter_games() if game.name != DEFAULT_GAME]
    games = ", ".join(titles[:-1]) + " and " + titles[-1] if len(titles) > 1 else titles[0]
    return DESCRIPTION.format(games=games)


EXAMPLES = examples(
    "dealsearch verify ---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---",
    "dealsearch search random --time 1m",
    "dealsearch search random --game spite --deals 200000 --seed 1",
    "dealsearch records --limit 20",
    "dealsearch COMMAND --help        (and: dealsearch search --game durak --help)",
)

#: The framework's commands, in the order help lists them; games add theirs after.
COMMANDS: tuple[Command, ...] = (verify.COMMAND, rank.COMMAND, search.COMMAND,
                                 records.COMMAND, status.COMMAND, report.COMMAND, bench.COMMAND,
                                 log.COMMAND)

# Compact deals start with '-', which argparse would take for an option: such arguments are
# moved behind '--' (or glued to the option that takes them) before parsing. Option names hold
# lower-case letters no compact deal uses, so a lower-case deal is told from an option.
_DEAL_LIKE = re.compile(r"-[-/\sA-Z0-9akqjВДКТвдкт]{2,}")
# A negative value (--time -5m) is glued to its option too, so its type says what is wrong.
_NEGATIVE = re.compile(r"-\d\S*")


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string, of every subcommand, that takes a value."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _value_options(sub)
        elif action.option_strings and action.nargs != 0:
            found.update(action.option_strings)
    return found


def _protect_deals(argv: Sequence[str], value_options: set[str]) -> list[str]:
    kept: list[str] = []
    deals: list[str] = []
    for arg in argv:
        if _NEGATIVE.fullmatch(arg) and kept and kept[-1] in value_options:
            kept[-1] = f"{kept[-1]}={arg}"
        elif _DEAL_LIKE.fullmatch(arg):
            if kept and kept[-1] in value_options:  # the option's value: --start, --seed -12
                kept[-1] = f"{kept[-1]}={arg}"
            else:
                deals.append(arg)
        else:
            kept.append(arg)
    if deals:
        if "--" not in kept:
            kept.append("--")
        kept.extend(deals)
    return kept


def all_commands() -> list[Command]:
    """The framework's commands, then every registered game's own (:class:`GameCommands`)."""
    found = list(COMMANDS)
    for game in iter_games():
        if isinstance(game, GameCommands):
            # A variant of a game (a subclass) brings the same commands: listed once.
            found.extend(c for c in game.commands() if c not in found)
    return found


def build_parser(game_name: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every command, with ``game_name``'s options (default: the
    default game)."""
    game = get_game(game_name or chosen_game([]))
    parser = Parser(prog="dealsearch", description=description(), epilog=EXAMPLES)
    parser.add_argument("--version", action="version", version=f"dealsearch {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=Parser)
    names: set[str] = set()
    for command in all_commands():
        if command.name in names:  # a game's command may not shadow another
            raise GameError(f"two commands are called {command.name!r}")
        names.add(command.name)
        command.add_parser(commands, game).set_defaults(handler=command.run)
    parser.set_defaults(parsed_for_game=game.name)  # whose option groups the parser holds
    return parser


def main(argv: Sequence[str] | None = None, *, hooks: TestHooks | None = None) -> int:
    """Entry point of the ``dealsearch`` console script: the exit status.

    Every expected failure ends here as one line on stderr (``dealsearch: error: ...``) and its
    exit status: 2 for bad input, 1 for a failed run. ``hooks`` is for tests only: a search's
    or a game's run loop gets them (``args.hooks``; none by default), so a test can pause or
    hold a real process at a known moment (:class:`~dealsearch.search.hooks.TestHooks`).
    """
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(chosen_game(argv))
        args = parser.parse_args(_protect_deals(argv, _value_options(parser)))
        args.hooks = hooks or TestHooks()
        return int(args.handler(args))
    except (DealsearchError, GameError) as error:
        sys.stdout.flush()  # what was printed before the failure comes first
        print(f"{package_name}: error: {_one_line(error)}", file=sys.stderr)
        return getattr(error, "exit_status", EXIT_BAD_INPUT)
    except KeyboardInterrupt as stop:
        print(f"{package_name}: interrupted", file=sys.stderr)
        return exit_status(stop)
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        sys.stderr.close()
        return EXIT_OK


def _version() -> str:
    """The installed release (``unknown`` when run from a source tree not installed)."""
    try:
        return version(package_name)
    except PackageNotFoundError:
        return "unknown"


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


if __name__ == "__main__":
    sys.exit(main())
