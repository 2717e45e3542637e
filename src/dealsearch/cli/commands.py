"""What a command is to the CLI, and the capability through which a game brings its own.

Every command module of this package exposes one :class:`Command`. A game with commands of
its own (BMN: ``factory``, ``reverse``) implements :class:`GameCommands`: the CLI registers
them without naming the game.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..game import Game


@dataclass(frozen=True)
class Command:
    """One subcommand: ``add_parser(subparsers, game)`` adds and returns its parser (built for
    ``game``, the one chosen with ``--game``); ``run(args)`` does it and returns the exit
    status. ``safe_points``: the command starts workers or writes a log, and raises a stop
    signal only where it calls :func:`dealsearch.interrupt.check`; otherwise a signal
    raises at once (:mod:`dealsearch.interrupt`)."""

    name: str
    add_parser: Callable[[Any, Game], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]
    safe_points: bool = False


@runtime_checkable
class GameCommands(Protocol):
    """The optional capability of a game that brings commands of its own."""

    def commands(self) -> Sequence[Command]:
        """The game's extra commands; their names must not clash with the CLI's."""
        ...
