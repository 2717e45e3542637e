"""The pure-Python Spite and Malice reference: the trace of the worked examples, and the
contract's invariants as properties (cards kept, cycles, recycle=none, the agreed limit)."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from dealsearch.games.spite import _engine, reference
from dealsearch.games.spite.notation import JOKER, parse_position, random_rows
from dealsearch.games.spite.options import POLICIES, SpiteOptions

from spite_positions import random_position

SETTINGS = [SpiteOptions(recycle=r, side_piles=s, policies=p) for r, s, p in itertools.product(
    ("bottom", "none"), ("seed", "free"), itertools.product(POLICIES, repeat=2))]
FULL_DECKS = Counter({**{rank: 8 for rank in range(1, 14)}, JOKER: 4})

POSITION_A = ('{"payoff": ["J92T", "425"], "hand": ["*3", ""], "side": [["", "", "", "9"], '
              '["", "", "", ""]], "centre": ["", "", "", "A2345678"], "stock": "7KJ2Q", '
              '"turn": 2}')
POSITION_B = ('{"payoff": ["85", "47"], "hand": ["A7342", ""], "side": [["","","",""], '
              '["","","",""]], "centre": ["","","",""], "stock": "QK5TJ689", "turn": 1}')


# ------------------------------------------------------- the trace (the worked examples' notation)

def test_trace_of_example_a_is_the_contracts() -> None:
    assert reference.trace_lines(parse_position(POSITION_A), SpiteOptions()) == [
        "1. s2 draws 7KJ2Q: K>s1",
        "2. s1: 9s4>c4 *h>c4 Jp>c4 3>s1",
        "3. s2: Qh>c4 Ks1>c4 (c4 finished) J>s1",
        "4. s1 draws A2345: Ah>c1 2h>c1 3s1>c1 4h>c1 5h>c1 3>s1",
        "5. s2 draws 678: 6h>c1 7h>c1 8h>c1 7>s2",
        "6. s1 draws 9*JQK: 9p>c1 *h>c2 2p>c2 Tp>c1 wins",
        "win: winner 1, turns 6, cards 22, discards 5, piles 1, payoff 0/3",
    ]


def test_trace_of_example_b_draws_again_after_a_finished_pile() -> None:
    lines = reference.trace_lines(parse_position(POSITION_B), SpiteOptions())
    assert lines[3] == ("4. s2: Th>c1 Jh>c1 Qh>c1 Ks1>c1 (c1 finished) draws A2345: Ah>c1 2h>c1 "
                        "3h>c1 4p>c1 5h>c1 4>s1")
    assert lines[-1] == ("cycle: winner none, turns 6, cards 37, discards 6, piles 2, "
                         "payoff 1/1; entry 4 turns / 22 cards, period 2 turns / 15 cards")


# ---------------------------------------------------------------- properties

def every_card(game: reference.Spite) -> Counter[int]:
    piles = [*game.payoff, *game.hand, *game.side[0], *game.side[1], *game.centre,
             game.stock, game.gone]
    return Counter(card for pile in piles for card in pile)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), setting=st.sampled_from(SETTINGS))
def test_all_108_cards_are_accounted_for_at_every_turn_boundary(
        seed: int, setting: SpiteOptions) -> None:
    game = reference.Spite(reference.deal_position(random_rows(None, 1, seed)[0]), setting)
    assert every_card(game) == FULL_DECKS
    boundaries = []

    def check(played: reference.Spite, idle: bool) -> None:
        assert every_card(played) == FULL_DECKS
        assert all(len(hand) <= 5 for hand in played.hand)
        boundaries.append(played.turns)

    result = game.play(check)
    assert boundaries == list(range(1, result.turns + 1))


@cache
def cycling_rows(sides: str) -> npt.NDArray[np.uint8]:
    """Cycling deals of a seeded random batch (found by the compiled engine)."""
    rows = random_rows(None, 6000, seed=31)
    table = _engine.Engine(True, sides == "free", (0, 0), -1).play_rows(rows)
    return rows[table[:, 0] == 2]


@settings(max_examples=30, deadline=None)
@given(sides=st.sampled_from(["seed", "free"]), pick=st.integers(0, 10**6))
def test_a_reported_cycle_repeats_after_its_period(sides: str, pick: int) -> None:
    rows = cycling_rows(sides)
    row = rows[pick % len(rows)]
    options = SpiteOptions(side_piles=sides)
    start = reference.deal_position(row)
    result = reference.play_position(start, options)
    assert result.outcome == "cycle" and result.entry and result.period
    states = [reference.Spite(start, options).state(False)]
    reference.Spite(start, options).play(lambda game, idle: states.append(game.state(idle)))
    entry, period = result.entry[0], result.period[0]
    assert len(states) == entry + period + 1
    assert states[entry] == states[entry + period]
    assert len(set(states[:-1])) == len(states) - 1          # and it is the first repeat


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sides=st.sampled_from(["seed", "free"]),
       pair=st.sampled_from(list(itertools.product(POLICIES, repeat=2))))
def test_recycle_none_never_reports_a_cycle(seed: int, sides: str,
                                            pair: tuple[str, str]) -> None:
    # The reference looks for repeats under recycle=none too, so this can fail.
    options = SpiteOptions(recycle="none", side_piles=sides, policies=pair)
    row = random_rows(None, 1, seed)[0]
    assert reference.play_row(row, options).outcome in ("win", "stalemate")
    position = random_position(np.random.default_rng(seed))
    assert reference.play_position(position, options).outcome in ("win", "stalemate")


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), setting=st.sampled_from(SETTINGS),
       limit=st.integers(1, 120))
def test_at_the_limit_the_fewer_payoff_cards_left_wins(seed: int, setting: SpiteOptions,
                                                       limit: int) -> None:
    """Who leads a game stopped by the agreed limit (where the limit cuts is the contract's
    ``limits_cut_the_game``): the player with fewer pay-off cards left, none on a tie."""
    cut = reference.play_row(random_rows(None, 1, seed)[0], SpiteOptions(
        recycle=setting.recycle, side_piles=setting.side_piles, policies=setting.policies,
        max_turns=limit))
    if cut.outcome == "limit":
        left = cut.payoff
        assert cut.winner == (None if left[0] == left[1] else 1 + (left[1] < left[0]))


def test_a_turn_that_draws_its_own_finished_pile_ends() -> None:
    """A turn may draw back the pile it just finished; rule 1 still plays the pay-off top as
    soon as it fits, so the turn ends (README: "Every turn ends")."""
    position = parse_position(
        '{"payoff": ["9", "5"], "hand": ["", ""], "side": [["","","",""], ["","","",""]], '
        '"centre": ["A23456789TJQ", "", "", ""], "stock": "K", "turn": 1}')
    lines = reference.trace_lines(position, SpiteOptions())
    assert lines[0] == ("1. s1 draws K: Kh>c1 (c1 finished) draws A2345: Ah>c1 2h>c1 3h>c1 "
                        "4h>c1 5h>c1 draws 6789T: 6h>c1 7h>c1 8h>c1 9p>c1 wins")
