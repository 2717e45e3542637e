"""Beggar-My-Neighbour, the first game plug-in (registered as ``beggar``).

>>> from dealsearch.game import get_game
>>> get_game("beggar").measures
('cards', 'tricks')
"""

from ...game import register
from .deal import Deal
from .engine import BatchResult, play, play_batch, random_deals
from .game import Beggar, BeggarResult, describe, to_bmn_result, to_game_result
from .notation import DealError, format_deal, parse_deal
from .options import BeggarOptions, make_options
from .result import Cycle, Result
from .rules import ITALIAN, PRESETS, STANDARD, Rules, get_rules

BEGGAR = register(Beggar())

__all__ = ["BEGGAR", "ITALIAN", "PRESETS", "STANDARD", "BatchResult", "Beggar", "BeggarOptions",
           "BeggarResult", "Cycle", "Deal", "DealError", "Result", "Rules", "describe",
           "format_deal", "get_rules", "make_options", "parse_deal", "play", "play_batch",
           "random_deals", "to_bmn_result", "to_game_result"]
