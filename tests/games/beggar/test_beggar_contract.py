"""Beggar-My-Neighbour keeps the contract every game keeps (:mod:`dealsearch.testing`)."""

from __future__ import annotations

import pytest

from dealsearch.game import get_game
from dealsearch.testing import CHECKS, Subject

from deals import CASELLA

# Option sets that reach every branch of the rules the contract can see.
OPTION_SETS = (
    {}, {"rules": "italian"}, {"players": 3}, {"players": 4, "max_cards": 600},
    {"deck": "------JJQQK"}, {"deck": "-----JJQQ", "players": 3},
    {"hand_sizes": "27/25"}, {"max_tricks": 40},
)
# Deals known never to end, so the cycle checks surely run: two entering their cycle after
# the deal (the cut at the entry needs one), one of 65 cards (played on rings).
CYCLE_DEALS = (({}, CASELLA),
               ({"rules": "italian"}, "00302020303100000310/00100200002000000010"),
               ({"deck": "------JJQQK"}, "KQ---J/-Q-J-"),
               ({"deck": "-" * 63 + "JQ", "players": 3},
                "----------J-----------/-------Q--------------/---------------------"))

SUBJECT = Subject(get_game("beggar"), OPTION_SETS, CYCLE_DEALS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_beggar_keeps_the_contract(check):
    check(SUBJECT)
