"""Spite and Malice (Злоба) under named deterministic policies.

The game is :class:`~dealsearch.games.spite.game.SpiteGame`; this module only registers it.
The rules as the engine plays them: the docs' Spite and Malice page.
"""

from ...game import register
from .game import SpiteGame, cycle_key_of, random_deals

SPITE = register(SpiteGame())

__all__ = ["SPITE", "SpiteGame", "cycle_key_of", "random_deals"]
