"""The compiled Spite and Malice engine: the contract's worked examples, and the reference twin
on random deals and constructed positions under every option and policy pair."""

from __future__ import annotations

import itertools
import json

import numpy as np
import numpy.typing as npt
import pytest

from dealsearch.game import get_game
from dealsearch.games.spite import _engine, reference
from dealsearch.games.spite.game import reference_position
from dealsearch.games.spite.notation import JOKER, parse_deal, parse_position, random_rows
from dealsearch.games.spite.options import POLICIES, SpiteOptions

from spite_positions import random_position

SPITE = get_game("spite")
OUTCOMES = ("win", "stalemate", "cycle", "limit")

POSITION_A = ('{"payoff": ["J92T", "425"], "hand": ["*3", ""], "side": [["", "", "", "9"], '
              '["", "", "", ""]], "centre": ["", "", "", "A2345678"], "stock": "7KJ2Q", '
              '"turn": 2}')
POSITION_B = ('{"payoff": ["85", "47"], "hand": ["A7342", ""], "side": [["","","",""], '
              '["","","",""]], "centre": ["","","",""], "stock": "QK5TJ689", "turn": 1}')
POSITION_C = ('{"payoff": ["K7", "Q"], "hand": ["35Q", "62"], "side": [["9","J","4","7"], '
              '["T","9","5","3"]], "centre": ["A2","","",""], "stock": "", "turn": 1}')
DEAL_D = ("Q6TK52JJQKTK27365928753AK969A7QAT7Q45J8J48342836T94A/"
          "62Q279A48T34J3J326K*A5KK8*49*657TQ853T7986AQK*954TJAJ27Q")

# The contract's [Worked examples] results, as written there.
EXAMPLES = [
    ("A", POSITION_A, {}, {"outcome": "win", "winner": 1, "first": 2, "turns": 6, "cards": 22,
                           "discards": 5, "piles": 1, "payoff": [0, 3], "cycle": None}),
    ("B", POSITION_B, {}, {"outcome": "cycle", "winner": None, "first": 1, "turns": 6,
                           "cards": 37, "discards": 6, "piles": 2, "payoff": [1, 1],
                           "cycle": {"entry_turns": 4, "entry_cards": 22, "period_turns": 2,
                                     "period_cards": 15}}),
    ("C", POSITION_C, {}, {"outcome": "stalemate", "winner": 2, "first": 1, "turns": 5,
                           "cards": 6, "discards": 1, "piles": 0, "payoff": [2, 1],
                           "cycle": None}),
    ("C free", POSITION_C, {"side_piles": "free"},
     {"outcome": "stalemate", "winner": 2, "first": 1, "turns": 5, "cards": 7, "discards": 2,
      "piles": 0, "payoff": [2, 1], "cycle": None}),
]
D_ROWS = [  # options, policies -> outcome, winner, turns, cards, discards, piles, payoff
    ({}, ("win", 2, 76, 281, 75, 15, [10, 0])),
    ({"recycle": "none"}, ("stalemate", 2, 34, 84, 30, 4, [24, 17])),
    ({"side_piles": "free"}, ("win", 2, 68, 243, 67, 13, [13, 0])),
    ({"policy": "cautious,cautious"}, ("win", 2, 88, 328, 87, 17, [1, 0])),
    ({"policy": "greedy,cautious"}, ("win", 2, 98, 354, 95, 18, [5, 0])),
]
for values, (outcome, winner, turns, cards, discards, piles, payoff) in D_ROWS:
    EXAMPLES.append((f"D {values}", DEAL_D, values, {
        "outcome": outcome, "winner": winner, "first": 1, "turns": turns, "cards": cards,
        "discards": discards, "piles": piles, "payoff": payoff, "cycle": None}))

SETTINGS = [SpiteOptions(recycle=r, side_piles=s, policies=p) for r, s, p in itertools.product(
    ("bottom", "none"), ("seed", "free"), itertools.product(POLICIES, repeat=2))]


def engine(options: SpiteOptions) -> _engine.Engine:
    return _engine.Engine(options.recycle == "bottom", options.side_piles == "free",
                          tuple(POLICIES.index(p) for p in options.policies),
                          -1 if options.max_turns is None else options.max_turns)


def columns(outcome: reference.Outcome) -> list[int]:
    """The reference's result as a row of the engine's RESULT_COLUMNS."""
    return [OUTCOMES.index(outcome.outcome), outcome.winner or 0, outcome.first,
            outcome.turns, outcome.cards, outcome.discards, outcome.piles, *outcome.payoff,
            *(outcome.entry or (0, 0)), *(outcome.period or (0, 0))]


# ------------------------------------------------------------ the worked examples

@pytest.mark.parametrize(("name", "text", "values", "expected"), EXAMPLES,
                         ids=[e[0] for e in EXAMPLES])
def test_worked_example_compiled(name: str, text: str, values: dict[str, str],
                                 expected: dict[str, object]) -> None:
    _, result = SPITE.verify(text, SPITE.options(**values))
    assert result.to_json() == expected
    assert list(result.to_json(SPITE.result_keys)) == list(expected)  # the contract's order


@pytest.mark.parametrize(("name", "text", "values", "expected"), EXAMPLES,
                         ids=[e[0] for e in EXAMPLES])
def test_worked_example_reference(name: str, text: str, values: dict[str, str],
                                  expected: dict[str, object]) -> None:
    options = SPITE.options(**values)
    position = (parse_position(text) if text.startswith("{")
                else reference.deal_position(parse_deal(text)))
    result = reference_position(position, options)
    assert result.to_json() == expected


def test_example_d_first_player_is_the_higher_payoff_top() -> None:
    position = reference.deal_position(parse_deal(DEAL_D))
    assert position.turn == 1 and position.payoff[0][0] == 12 and position.payoff[1][0] == 6


# ---------------------------------------------------------------- compiled = reference

@pytest.mark.slow
@pytest.mark.parametrize("options", SETTINGS, ids=[o.key() for o in SETTINGS])
def test_random_deals_agree_with_the_reference(options: SpiteOptions) -> None:
    rows = random_rows(None, 640, seed=2024 + SETTINGS.index(options))  # 16 x 640 deals
    table = engine(options).play_rows(rows)
    for row, got in zip(rows, table, strict=True):
        assert got.tolist() == columns(reference.play_row(row, options)), \
            SPITE.format(row, options)


@pytest.mark.parametrize("options", SETTINGS, ids=[o.key() for o in SETTINGS])
def test_constructed_positions_agree_with_the_reference(options: SpiteOptions) -> None:
    rng = np.random.default_rng(7 + SETTINGS.index(options))
    compiled = engine(options)
    outcomes = set()
    for _ in range(250):
        position = random_position(rng)
        expected = columns(reference.play_position(position, options))
        assert list(compiled.play_position(position.packed())) == expected, \
            json.dumps(position.to_json())
        outcomes.add(OUTCOMES[expected[0]])
    assert outcomes >= {"win", "stalemate"}             # the positions do reach the ends


def cycling_rows(options: SpiteOptions, count: int) -> tuple[npt.NDArray[np.uint8], np.ndarray]:
    """The first ``count`` cycling deals of a seeded random batch, with their engine rows."""
    rows = random_rows(None, 4000, seed=99)
    table = engine(options).play_rows(rows)
    cycles = np.flatnonzero(table[:, 0] == OUTCOMES.index("cycle"))[:count]
    assert len(cycles) == count
    return rows[cycles], table[cycles]


def test_limit_against_the_first_repeat() -> None:
    """At a boundary the repetition is checked before the limit: a limit at the first repeated
    state's turn still reports the cycle, one turn earlier reports the limit."""
    rows, table = cycling_rows(SpiteOptions(), 5)
    for row, got in zip(rows, table, strict=True):
        repeat = int(got[3])
        for limit in (repeat - 1, repeat, repeat + 1, max(1, int(got[9]))):
            options = SpiteOptions(max_turns=limit)
            expected = columns(reference.play_row(row, options))
            assert engine(options).play_rows(row[None, :])[0].tolist() == expected
            assert OUTCOMES[expected[0]] == ("cycle" if limit >= repeat else "limit")


@pytest.mark.parametrize("limit", [1, 5, 30, 60])
@pytest.mark.parametrize("policy", ["greedy", "cautious,greedy"])
def test_limits_agree_with_the_reference(limit: int, policy: str) -> None:
    options = SpiteOptions(policies=policy, max_turns=limit)
    rows = random_rows(None, 60, seed=limit)
    for row, got in zip(rows, engine(options).play_rows(rows), strict=True):
        assert got.tolist() == columns(reference.play_row(row, options))


# ---------------------------------------------------------------- the compiled boundary

def test_engine_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="policies must be two of"):
        _engine.Engine(True, False, (0, 2), -1)
    with pytest.raises(ValueError, match="max_turns must be positive or -1"):
        _engine.Engine(True, False, (0, 0), 0)
    compiled = _engine.Engine(True, False, (0, 0), -1)
    with pytest.raises(ValueError, match=r"rows have 108 cards, not shape \(1, 107\)"):
        compiled.play_rows(np.ones((1, 107), dtype=np.uint8))
    with pytest.raises(ValueError, match="no joker"):
        compiled.play_rows(np.full((1, 108), JOKER, dtype=np.uint8))
    with pytest.raises(ValueError, match="starts with the turn"):
        compiled.play_position(np.array([3, 1, 1], dtype=np.uint8))
    packed = parse_position(POSITION_A).packed()
    short = packed.copy()
    short[-6] = 9                                    # the stock claims 9 cards, holds 5
    with pytest.raises(ValueError, match="pile 17 runs past the end"):
        compiled.play_position(short)
    with pytest.raises(ValueError, match="bytes after the stock"):
        compiled.play_position(np.append(packed, 1))
