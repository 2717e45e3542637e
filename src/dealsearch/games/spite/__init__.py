"""Spite and Malice (Злоба) under named deterministic policies.

The game is :class:`~dealsearch.games.spite.game.SpiteGame`; this module only registers it.
The rules as the engine plays them: the docs' Spite and Malice page.
"""

from ...plugin import register
from . import game as _game

SPITE = register(_game.SpiteGame())

__all__ = ["SPITE"]
