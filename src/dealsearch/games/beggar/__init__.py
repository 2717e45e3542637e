"""Beggar-My-Neighbour, the first game plug-in (registered as ``beggar``).

The game is :class:`~dealsearch.games.beggar.game.BeggarGame`; this module only registers it.
The rules as the engine plays them: the docs' Beggar-My-Neighbour page.

>>> from dealsearch.game import get_game
>>> get_game("beggar").measures
('cards', 'tricks')
"""

from __future__ import annotations

from ...plugin import register
from .game import BeggarGame

BEGGAR = register(BeggarGame())

__all__ = ["BEGGAR", "BeggarGame"]
