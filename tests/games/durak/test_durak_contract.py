"""Durak keeps the contract every game keeps (:mod:`dealsearch.testing`)."""

from __future__ import annotations

import pytest

from dealsearch.game import get_game
from dealsearch.testing import CHECKS, Subject

# Option sets that reach every branch of the rules the contract can see.
OPTION_SETS = (
    {},
    {"players": 3, "policy": "aggressive"},
    {"players": 2, "variant": "perevodnoy", "show_trump": True},
    {"players": 4, "variant": "pairs-perevodnoy",
     "policy": "cheapest,aggressive,aggressive,cheapest"},
    {"players": 6, "deck": 52, "first_limit": 5, "no_throw_after_take": True},
    {"players": 6, "variant": "perevodnoy", "first_transfer": True, "max_bouts": 30},
)
# Deals known never to end, so the cycle checks surely run (the last two enter their cycle
# after the deal, as the cut at the entry needs).
CYCLE_DEALS = (({"players": 3, "policy": "aggressive"},
                "6C 6S 8H 6D 7S 8S 7C JC 9H 7D QH TS JS QS KH QD KS AH AC AS 6H JD KC 9S 7H "
                "TD 9D KD 8D 9C AD QC 8C JH TC TH"),
               ({"players": 3, "policy": "aggressive"},
                "6C 6H 7H 6S 7D 7S 9C 8S 9D JD 9H TC QH TD KS AC KD AD JS 8H QC JC AH 8D KH "
                "7C 6D KC TH JH 9S TS QS AS QD 8C"),
               ({"players": 2, "variant": "perevodnoy", "policy": "aggressive"},
                "7S 6H 9C 7C 9H 7H QC JH QD KH KS AS TH 6D 6C 7D 8C 6S 8S AC AD KD 9D 8D KC "
                "TD QH JC QS TC 8H AH JS TS 9S JD"))

SUBJECT = Subject(get_game("durak"), OPTION_SETS, CYCLE_DEALS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_durak_keeps_the_contract(check):
    check(SUBJECT)
