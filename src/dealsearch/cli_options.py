"""Options and errors shared by the ``dealsearch`` subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence
from typing import Any, NoReturn

from .game import Game, GameError, GameOptions, game_names, get_game

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


DEFAULT_GAME = "beggar"


def chosen_game(argv: Sequence[str]) -> str:
    """The ``--game`` named in ``argv`` (the parser is built for it), else the default.

    >>> chosen_game(["search", "random", "--game=beggar"])
    'beggar'
    """
    names = game_names()
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = None
        if arg == "--game" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--game="):
            value = arg.split("=", 1)[1]
        if value is not None and value in names:
            return value
    return DEFAULT_GAME


def add_game_choice(parser: argparse.ArgumentParser, default: str | None = DEFAULT_GAME
                    ) -> None:
    """``--game NAME``, one of the registered games."""
    parser.add_argument("--game", choices=game_names(), default=default,
                        help=f"the game (default: {DEFAULT_GAME})")


def add_game_options(parser: argparse.ArgumentParser, game: Game | None = None,
                     exclude: Collection[str] = ()) -> None:
    """The chosen game's option group, from its :attr:`Game.option_specs` (no defaults here:
    an option not given is left to the game, and ``--resume`` can tell what was given)."""
    game = game or get_game(DEFAULT_GAME)
    group = parser.add_argument_group(f"{game.title} options (--game {game.name})")
    for spec in game.option_specs:
        if spec.name in exclude:
            continue
        flag = f"--{spec.name.replace('_', '-')}"
        if spec.switch:
            group.add_argument(flag, dest=spec.name, action="store_true", default=None,
                               help=spec.help)
            continue
        kwargs: dict[str, Any] = {"dest": spec.name, "type": _option_type(spec.parse),
                                  "help": spec.help, "metavar": spec.metavar}
        if spec.choices is not None:
            kwargs["choices"] = [spec.parse(choice) for choice in spec.choices]
            kwargs["metavar"] = spec.metavar or "{" + ",".join(spec.choices) + "}"
        group.add_argument(flag, **kwargs)


def _option_type(parse: Any) -> Any:
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except (ValueError, TypeError) as error:
            raise argparse.ArgumentTypeError(str(error) or f"bad value {text!r}") from None
    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def option_values(args: argparse.Namespace, game: Game, exclude: Collection[str] = ()
                  ) -> dict[str, Any]:
    """The game options given on the command line (those not given are left out)."""
    return {spec.name: getattr(args, spec.name) for spec in game.option_specs
            if spec.name not in exclude and getattr(args, spec.name, None) is not None}


def game_options(game: Game, values: dict[str, Any]) -> GameOptions:
    """The game's options from ``values``; bad input is one line (exit status 2)."""
    try:
        return game.options(**values)
    except GameError as error:
        raise BadInput(str(error)) from None
