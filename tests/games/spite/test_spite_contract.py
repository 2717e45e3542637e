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
                    "7QA33J42699*7QQ4783JK45A798T5962K**AQ5T8TKJJ64T5623A8*2K"),)

SUBJECT = Subject(get_game("spite"), OPTION_SETS, CYCLE_DEALS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_spite_keeps_the_contract(check):
    check(SUBJECT)
