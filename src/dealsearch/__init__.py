"""dealsearch: exact, fast Beggar-My-Neighbour games and the search for record and endless deals.

>>> import dealsearch
>>> dealsearch.play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---").cards
8344
"""

from .games.beggar.deal import Deal
from .games.beggar.engine import BatchResult, play, play_batch, random_deals
from .games.beggar.notation import DealError, format_deal, parse_deal
from .games.beggar.result import Cycle, Result
from .games.beggar.rules import ITALIAN, PRESETS, STANDARD, Rules, get_rules

__all__ = [
    "ITALIAN",
    "PRESETS",
    "STANDARD",
    "BatchResult",
    "Cycle",
    "Deal",
    "DealError",
    "Result",
    "Rules",
    "format_deal",
    "get_rules",
    "parse_deal",
    "play",
    "play_batch",
    "random_deals",
]
