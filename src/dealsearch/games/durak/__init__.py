"""Durak (podkidnoy, perevodnoy, pair against pair) under named deterministic policies.

The game is :class:`~dealsearch.games.durak.game.DurakGame`; this module only registers it.
The rules as the engine plays them: the docs' Durak page.
"""

from ...game import register
from .game import DurakGame, random_rows
from .options import POLICIES, DurakOptions

DURAK = register(DurakGame())

__all__ = ["DURAK", "POLICIES", "DurakGame", "DurakOptions", "random_rows"]
