"""Durak (podkidnoy, perevodnoy, pair against pair) under named deterministic policies.

The game is :class:`~dealsearch.games.durak.game.DurakGame`; this module only registers it.
The rules as the engine plays them: the docs' Durak page.
"""

from ...plugin import register
from . import game as _game

DURAK = register(_game.DurakGame())

__all__ = ["DURAK"]
