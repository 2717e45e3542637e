"""Beggar-My-Neighbour, the first game plug-in (registered as ``beggar``).

>>> from dealsearch.game import get_game
>>> get_game("beggar").measures
('cards', 'tricks')
"""

from ...game import register
from .game import Beggar, BeggarResult, describe, to_bmn_result, to_game_result
from .options import BeggarOptions, make_options

BEGGAR = register(Beggar())

__all__ = ["BEGGAR", "Beggar", "BeggarOptions", "BeggarResult", "describe", "make_options",
           "to_bmn_result", "to_game_result"]
