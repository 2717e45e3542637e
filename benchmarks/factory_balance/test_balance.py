"""Balance moves: a shifted state keeps the deck and moves cards to the short hand; walking
back toward balance finds what a breadth-first walk finds, and no state it claims is wrong."""

from __future__ import annotations

import random

from dealsearch.games.beggar.factory import find_loop
from dealsearch.games.beggar.notation import Deal, parse_deal
from dealsearch.games.beggar.reverse import basin

from .balance import backward_balance, gap, shift_climb, shifts

CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"  # Casella's 62-trick cycle

LOPSIDED = "--J-/---------------KJ--Q----K-Q-K-K--J--A-AQ-AQ-A-J-"  # a 4/48 whole-deck cycle


def test_a_shift_moves_a_run_of_the_long_hand_into_the_short_hand():
    hands = ((0, 0, 1, 0), (0, 2, 0, 3, 0, 4, 0))
    moved = shifts(hands, longest=2)
    assert moved
    for short, long_ in moved:
        assert sorted(short + long_) == sorted(hands[0] + hands[1])
        assert len(short) - len(hands[0]) in (1, 2)
        assert any(hands[1][:i] + hands[1][i + len(short) - 4:] == long_ for i in range(7))
    assert len(shifts(hands, 2, random.Random(1), most=5)) == 5


def test_backward_play_reaches_casellas_starting_deals_and_states_that_enter_the_cycle():
    loop = find_loop(parse_deal(CASELLA))
    assert backward_balance(loop, max_states=5000).gap == 0
    lopsided = find_loop(parse_deal(LOPSIDED, deck="any"))
    reached = backward_balance(lopsided, max_states=20_000)
    assert reached.gap < lopsided.imbalance()
    # every state of the basin is walked, from either seat
    assert reached.walked == 2 * basin(lopsided.deal(), max_states=20_000).size
    # the state reached is a deal whose game enters the cycle it walked back from
    assert find_loop(Deal(reached.state)).key == lopsided.key


def test_a_shift_climb_stays_on_whole_deck_cycles():
    lopsided = find_loop(parse_deal(LOPSIDED, deck="any"))
    reached = shift_climb(lopsided, seconds=2, per_step=256)
    assert gap(reached.state) == reached.gap <= lopsided.imbalance()
    for key in list(reached.cycles)[:5]:
        assert find_loop(parse_deal(key, deck="any")).counts(5) == lopsided.counts(5)
