"""The deck-completing finish keeps cycles exact: every completion it reports never ends."""

from __future__ import annotations

import pytest

from dealsearch.games.beggar.engine import play
from dealsearch.games.beggar.factory import find_loop, seed_loops
from dealsearch.games.beggar.notation import Deal, parse_deck
from dealsearch.games.beggar.reference import cycle_states

from .balance import gap
from .finish import complete, completions, missing_cards
from .pair_step import pair_climb


def _never_ends(hands):
    return play(Deal(hands)).outcome == "cycle" and cycle_states(Deal(hands)) is not None


def _plain(hands, cards):
    rows = {hands}
    for card in cards:
        rows = {(*state[:seat], (*state[seat][:at], card, *state[seat][at:]), *state[seat + 1:])
                for state in rows for seat in range(2) for at in range(len(state[seat]) + 1)}
    return rows


def test_completions_are_every_placement_of_the_missing_cards():
    hands = ((0, 2, 0), (1,))
    assert completions(hands, (3, 0)) == _plain(hands, (3, 0))
    assert completions(hands, (2, 2)) == _plain(hands, (2, 2))
    assert missing_cards((1, 0), (1, 2)) == [1, 1]
    assert missing_cards((2, 0), (1, 2)) is None


@pytest.mark.parametrize("target", [(7, 2, 3, 1, 0),   # the seed deck, a numeral and a queen
                                    (8, 3, 2, 0, 1)])  # two numerals, a jack, a queen a king
def test_the_finish_completes_small_cycles_exactly_and_the_climb_goes_on(target):
    loops = seed_loops(parse_deck("------JJQQK"))
    done = complete(loops, target)
    assert done.whole and done.completed >= 1
    assert len(done.entries) == len(done.whole)
    for hands, (key, loop) in zip(done.entries, done.whole.items(), strict=True):
        assert Deal(hands).class_counts(5) == target
        assert _never_ends(hands)
        assert find_loop(Deal(hands)).key == key == loop.key
    assert done.gap == min(gap(state) for loop in done.whole.values() for state in loop.states)
    assert _never_ends(done.state)
    climbed = pair_climb(done.whole.values(), seconds=None, max_rings=2, lateral=True)
    assert climbed.gap <= done.gap and _never_ends(climbed.state)
    assert Deal(climbed.state).class_counts(5) == target
