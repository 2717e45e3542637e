"""Spite and Malice keeps the contract every game keeps (:mod:`dealsearch.testing`)."""

from __future__ import annotations

import pytest

from dealsearch.game import get_game
from dealsearch.testing import CHECKS, Subject

# Option sets that reach every branch of the rules the contract can see.
OPTION_SETS = (
    {},
    {"recycle": "none"},
    {"side_piles": "free"},
    {"policy": "cautious"},
    {"policy": "greedy,cautious"},
    {"policy": "cautious,greedy", "side_piles": "free", "max_turns": 40},
)
# Deals known never to end, so the cycle checks surely run.
CYCLE_DEALS = (({}, "5JQJ2TQ5T7QT543J484679K22A746A338692AT859A86K9K3KJ7Q/"
                    "7QA33J42699*7QQ4783JK45A798T5962K**AQ5T8TKJJ64T5623A8*2K"),
               ({"side_piles": "free"},
                "655T9A3Q434KJ68276Q597Q957JJ3KJ42K972AK46TQAT838TA82/"
                "2K6TK39JQ8*J*T87252589677Q5T4A47Q32ATK*KJ363849Q6JA4A9*5"))

SUBJECT = Subject(get_game("spite"), OPTION_SETS, CYCLE_DEALS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_spite_keeps_the_contract(check):
    check(SUBJECT)
