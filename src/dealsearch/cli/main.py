"""``dealsearch``: the parser of every command, and the one place errors become one line.

Exit status: 0 when all is well, 1 when ``verify --known`` finds a mismatch or a search run
fails, 2 on bad input. :func:`main` is the one place that turns an expected failure (a
:class:`dealsearch.errors.DealsearchError`, a deal or game error) into one line and its status.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING

from .. import __name__ as package_name
from .. import interrupt
from ..commandline.options import DEFAULT_GAME, EXIT_BAD_INPUT, EXIT_OK, Parser, examples
from ..commandline.terminal import FULL, drop, escaped
from ..errors import EXIT_FAILED, BadOption, DealsearchError
from ..game import Command, GameError, game_names, get_game, iter_games
from ..interrupt import exit_status
from ..text import one_line

if TYPE_CHECKING:
    from ..search.hooks import TestHooks

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

#: The framework's commands, in the order help lists them; games add theirs after. Each
#: command's module is imported only when the command is invoked (``--help`` imports none).
COMMANDS: tuple[Command, ...] = (
    Command("verify", "play deals exactly and report counts, winner or cycle",
            f"{__package__}.verify"),
    Command("rank", "print each deal's rank: its number in the layout's space",
            f"{__package__}.rank"),
    Command("search", "search for long and never-ending deals, logging finds to SQLite",
            f"{__package__}.search", safe_points=True),
    Command("records", "list (and re-verify) the finds of a log", f"{__package__}.records"),
    Command("status", "the searches running on a log: rate, time left, best so far",
            f"{__package__}.status"),
    Command("report", "draw a log's runs: lengths, best so far, speed, records, cycles",
            f"{__package__}.report"),
    Command("bench", "time a game's engine against its yardstick or its reference",
            f"{__package__}.bench"),
    Command("log", "check a log for damage, or recover what a damaged log still holds",
            f"{__package__}.log"),
)

# Compact deals start with '-', which argparse would take for an option: such arguments are
# moved behind '--' (or glued to the option that takes them) before parsing. Option names hold
# lower-case letters no compact deal uses, so a lower-case deal is told from an option.
_DEAL_LIKE = re.compile(r"-[-/|\sA-Z0-9akqjВДКТвдкт]{2,}")   # (| : a wrong separator)
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
        elif deals and not arg.startswith("-") and not (kept and kept[-1] in value_options):
            deals.append(arg)   # a positional after a moved deal stays behind it, in order
        else:
            kept.append(arg)
    if deals:
        if "--" not in kept:
            kept.append("--")
        kept.extend(deals)
    return kept


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(name)
    return None


def _refuse_unknown_options(parser: argparse.ArgumentParser, argv: Sequence[str],
                            game: str) -> None:
    """One line naming an option the command does not have (and the games whose it is),
    before argparse takes the option's value for a positional argument and complains of that
    instead (``search --game durak --rules italian``: "invalid choice: 'italian'")."""
    sub, words, start = parser, [], 0
    while True:   # down to the (sub)command's parser: ``log check``
        at = next((i for i in range(start, len(argv)) if not argv[i].startswith("-")), None)
        inner = _subparser(sub, argv[at]) if at is not None else None
        if inner is None:
            break
        sub, start = inner, at + 1
        words.append(argv[at])
    if not words or {"-h", "--help"} & set(argv[start:]):   # help is shown whatever else
        return
    command = " ".join(words)
    for arg in argv[start:]:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        known = sub._option_string_actions
        if not name.startswith("--") or _DEAL_LIKE.fullmatch(arg) or name in known:
            continue
        if any(option.startswith(name) for option in known):
            continue   # an abbreviation: argparse says if it is ambiguous
        owners = [other for other in game_names() if other != game and name in getattr(
            _subparser(build_parser(other, words[0]), words[0]), "_option_string_actions", {})]
        if owners:
            raise BadOption(f"{name} is not an option of {command} --game {game}: it is "
                            f"{' and '.join(owners)}'s (--game {owners[0]})")
        raise BadOption(f"{command} has no option {name} (dealsearch {command} --help lists "
                        "its options)")


def chosen_game(argv: Sequence[str]) -> str:
    """The ``--game`` named in ``argv`` (the parser is built for it), else the default.

    >>> chosen_game(["search", "random", "--game=durak"])
    'durak'
    """
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = None
        if arg == "--game" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--game="):
            value = arg.split("=", 1)[1]
        if value is not None and _is_game(value):
            return value
    return _campaign_game(argv) or DEFAULT_GAME


def _is_game(name: str) -> bool:
    """Whether ``name`` is a registered game (importing that game only, where it can)."""
    try:
        get_game(name)
    except GameError:
        return False
    return True


def _campaign_game(argv: Sequence[str]) -> str | None:
    # A campaign file may name its game: its options are then the ones to parse. An unreadable
    # file is reported later, when the search reads it.
    import tomllib

    from ..campaigns import config_path

    for i, arg in enumerate(argv):
        if arg == "--":
            break
        text = argv[i + 1] if arg == "--config" and i + 1 < len(argv) else (
            arg.split("=", 1)[1] if arg.startswith("--config=") else None)
        if text is not None:
            try:
                game = tomllib.loads(config_path(text).read_text(encoding="utf-8")).get("game")
            except (OSError, ValueError):
                return None
            return game if isinstance(game, str) and _is_game(game) else None
    return None


def all_commands() -> list[Command]:
    """The framework's commands, then every registered game's own (:meth:`Game.commands`)."""
    found = list(COMMANDS)
    for game in iter_games():
        # A variant of a game (a subclass) brings the same commands: listed once.
        found.extend(c for c in game.commands() if c not in found)
    return found


def invoked_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` invokes: its first word, unless help or the version is asked for
    before it (the program's own options take no value).

    >>> invoked_command(["search", "random", "--help"]), invoked_command(["--help", "search"])
    ('search', None)
    """
    for arg in argv:
        if arg in ("-h", "--help", "--version", "--"):
            return None
        if not arg.startswith("-"):
            return arg
    return None


def build_parser(game_name: str | None = None, command: str | None = None
                 ) -> argparse.ArgumentParser:
    """The argument parser: every command listed, ``command``'s own parser built (with
    ``game_name``'s options; default: the default game) and its module imported."""
    game = get_game(game_name or chosen_game([]))
    framework = command in {listed.name for listed in COMMANDS}
    # Only the help of the program itself lists every game and every game's commands: a
    # framework command's parser is built without importing any other game.
    parser = Parser(prog="dealsearch", description=None if framework else description(),
                    epilog=EXAMPLES)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=Parser)
    names: set[str] = set()
    for listed in COMMANDS if framework else all_commands():
        if listed.name in names:  # a game's command may not shadow another
            raise GameError(f"two commands are called {listed.name!r}")
        names.add(listed.name)
        if listed.name == command:
            module = importlib.import_module(listed.module)
            module.add_parser(commands, game).set_defaults(handler=module.run,
                                                           safe_points=listed.safe_points)
        else:
            commands.add_parser(listed.name, help=listed.help)
    parser.set_defaults(parsed_for_game=game.name)  # whose option groups the parser holds
    return parser


def main(argv: Sequence[str] | None = None, *, hooks: TestHooks | None = None) -> int:
    """Entry point of the ``dealsearch`` console script: the exit status.

    Every expected failure ends here as one line on stderr (``dealsearch: error: ...``) and its
    exit status: 2 for bad input, 1 for a failed run. ``hooks`` is for tests only: a search's
    or a game's run loop gets them (``args.hooks``; none by default), so a test can pause or
    hold a real process at a known moment (:class:`~dealsearch.search.hooks.TestHooks`).
    Whatever a command prints goes through :func:`~dealsearch.commandline.terminal.escaped`.
    """
    # what is printed is escaped; parsing is never interrupted half-way
    with escaped(), interrupt.noting():
        return _main(argv, hooks)


def _main(argv: Sequence[str] | None, hooks: TestHooks | None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        game = chosen_game(argv)
        parser = build_parser(game, invoked_command(argv))
        _refuse_unknown_options(parser, argv, game)
        args = parser.parse_args(_protect_deals(argv, _value_options(parser)))
        args.hooks = hooks   # None: the run's own default, no test's moments
        interrupt.check()
        with nullcontext() if args.safe_points else interrupt.raising():
            status = int(args.handler(args))
        sys.stdout.flush()   # here: output buffered for a full disk fails in one line
        return status
    except (DealsearchError, GameError) as error:
        _flush_or_drop()   # what was printed before the failure comes first
        print(f"{package_name}: error: {one_line(error)}", file=sys.stderr)
        return getattr(error, "exit_status", EXIT_BAD_INPUT)
    except KeyboardInterrupt as stop:
        print(f"{package_name}: interrupted", file=sys.stderr)
        return exit_status(stop)
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        sys.stderr.close()
        return EXIT_OK
    except OSError as error:   # the output cannot grow: a full disk, say (a file a command
        if error.errno not in FULL or error.filename is not None:   # writes says its own)
            raise
        drop(sys.stdout)   # what it still holds would fail again at exit
        print(f"{package_name}: error: cannot write the output: {error.strerror}",
              file=sys.stderr)
        return EXIT_FAILED


def _flush_or_drop() -> None:
    """Flush standard output; if the disk it goes to is full, drop what it holds."""
    try:
        sys.stdout.flush()
    except OSError:
        drop(sys.stdout)


class _Version(argparse.Action):
    """``--version``: the installed release (``unknown`` when run from a source tree not
    installed), read from the package's metadata only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the release and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            release = version(package_name)
        except PackageNotFoundError:
            release = "unknown"
        print(f"dealsearch {release}")
        parser.exit()


if __name__ == "__main__":
    sys.exit(main())
