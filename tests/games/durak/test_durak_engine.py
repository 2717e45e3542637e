"""The compiled Durak engine equals the reference, deal for deal, over every setting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dealsearch.games.durak import DURAK, _engine, notation, reference
from dealsearch.games.durak.notation import random_rows
from dealsearch.games.durak.options import DurakOptions

MIXED = {3: "cheapest,aggressive,cheapest", 4: "aggressive,cheapest,cheapest,aggressive",
         5: "aggressive,cheapest,aggressive,cheapest,cheapest",
         6: "cheapest,cheapest,aggressive,aggressive,cheapest,aggressive"}

# Every preset, 2-6 players, both decks, both policies and mixed seats, every non-default
# option, and agreed limits: 46 settings x 440 deals = 20,240 deals.
SETTINGS: list[dict[str, Any]] = [
    *({"players": n} for n in range(2, 7)),
    *({"players": n, "deck": 52, "policy": "aggressive"} for n in range(2, 7)),
    *({"players": n, "variant": "perevodnoy", "policy": "aggressive"} for n in range(2, 7)),
    *({"players": n, "variant": "perevodnoy", "deck": 52} for n in range(2, 7)),
    {"players": 4, "variant": "pairs"},
    {"players": 4, "variant": "pairs", "deck": 52, "policy": "aggressive"},
    {"players": 4, "variant": "pairs-perevodnoy", "policy": "aggressive"},
    {"players": 4, "variant": "pairs-perevodnoy", "deck": 52},
    {"players": 2, "policy": "cheapest,aggressive"},
    {"players": 3, "policy": MIXED[3]},
    {"players": 5, "variant": "perevodnoy", "policy": MIXED[5]},
    {"players": 4, "variant": "pairs", "policy": MIXED[4]},
    {"players": 6, "deck": 52, "policy": MIXED[6]},
    {"players": 2, "policy": "aggressive", "first_limit": 5},
    {"players": 4, "variant": "perevodnoy", "deck": 52, "policy": "aggressive",
     "first_limit": 5},
    {"players": 2, "variant": "perevodnoy", "first_transfer": True},
    {"players": 3, "variant": "perevodnoy", "policy": "aggressive", "first_transfer": True},
    {"players": 4, "variant": "pairs-perevodnoy", "first_transfer": True},
    {"players": 2, "variant": "perevodnoy", "show_trump": True},
    {"players": 3, "variant": "perevodnoy", "show_trump": True, "policy": MIXED[3]},
    {"players": 6, "variant": "perevodnoy", "deck": 52, "show_trump": True,
     "first_transfer": True},
    {"players": 3, "policy": "aggressive", "throw_after_take": False},
    {"players": 4, "variant": "perevodnoy", "throw_after_take": False},
    {"players": 4, "variant": "pairs", "policy": "aggressive", "throw_after_take": False},
    {"players": 3, "variant": "perevodnoy", "policy": "aggressive", "first_limit": 5,
     "first_transfer": True, "show_trump": True, "throw_after_take": False},
    {"players": 4, "variant": "pairs-perevodnoy", "deck": 52, "policy": MIXED[4],
     "first_limit": 5, "first_transfer": True, "show_trump": True,
     "throw_after_take": False},
    {"players": 2, "max_bouts": 0},
    {"players": 2, "variant": "perevodnoy", "max_bouts": 5},
    {"players": 3, "policy": "aggressive", "max_bouts": 8},
    {"players": 4, "variant": "pairs", "max_bouts": 6},
    {"players": 6, "deck": 52, "policy": "aggressive", "max_bouts": 12},
]
DEALS = 440


def compiled_results(rows: np.ndarray, options: DurakOptions) -> list[dict[str, Any]]:
    """The [Counting] result of every row from one call of the compiled batch entry point."""
    outcome, loser, pair, counts, cycle, out = _engine.play_rows(rows,
                                                                 **options.engine_rules())
    results = []
    for i in range(len(rows)):
        name = DURAK.outcomes[outcome[i]]
        results.append({
            "outcome": name, "loser": None if loser[i] < 0 else int(loser[i]) + 1,
            "losing_pair": None if pair[i] < 0 else [int(pair[i]) + 1, int(pair[i]) + 3],
            "out": [int(seat) + 1 for seat in out[i] if seat >= 0],
            **dict(zip(("bouts", "cards", "takes", "transfers"), counts[i].tolist(),
                       strict=True)),
            "cycle": dict(zip(("entry_bouts", "entry_cards", "period_bouts",
                               "period_cards"), cycle[i].tolist(), strict=True))
            if name == "cycle" else None})
    return results


def assert_same(rows: np.ndarray, options: DurakOptions) -> list[dict[str, Any]]:
    compiled = compiled_results(rows, options)
    for row, fast in zip(rows, compiled, strict=True):
        slow = reference.play(notation.row_position(row, options), options)
        assert fast == slow, f"{options.key()}: {DURAK.format(row, options)}"
    return compiled


@pytest.mark.parametrize("values", SETTINGS, ids=lambda v: ",".join(
    f"{k}={v[k]}" for k in v))
def test_compiled_equals_reference_on_random_deals(values: dict[str, Any]) -> None:
    options = DurakOptions(**values)
    rows = random_rows(options, DEALS, seed=len(SETTINGS) + SETTINGS.index(values))
    results = assert_same(rows, options)
    if options.max_bouts is not None and options.max_bouts > 0:
        assert any(r["outcome"] == "limit" for r in results)   # the limit is exercised


@pytest.mark.parametrize(("values", "deals", "seed"), [
    ({"players": 3, "policy": "aggressive"}, 20000, 99),
    ({"players": 3, "policy": "aggressive", "deck": 52}, 20000, 99),
    ({"players": 6}, 20000, 99),
    ({"players": 3, "variant": "perevodnoy", "policy": "aggressive", "deck": 52}, 20000, 99),
    ({"players": 2, "variant": "perevodnoy", "policy": "aggressive"}, 100000, 7),
    ({"players": 4, "variant": "pairs-perevodnoy"}, 100000, 7),
])
def test_compiled_equals_reference_on_cycling_deals(values: dict[str, Any], deals: int,
                                                    seed: int) -> None:
    # Cycles are rare in random deals (pairs: about 1 in 100,000): pick them out with the
    # compiled engine, then hold every one of them (and as many ending deals) to the
    # reference.
    options = DurakOptions(**values)
    rows = random_rows(options, deals, seed=seed)
    batch = DURAK.play_batch(rows, options)
    cycling = np.flatnonzero(batch.outcome == DURAK.outcomes.index("cycle"))
    assert len(cycling) > 0
    picked = np.concatenate([cycling, np.arange(len(cycling))])
    results = assert_same(rows[picked], options)
    assert sum(r["outcome"] == "cycle" for r in results) >= len(cycling)


def test_three_player_aggressive_deals_cycle_within_a_few_thousand() -> None:
    options = DurakOptions(players=3, policy="aggressive")
    rows = random_rows(options, 10000, seed=7)
    batch = DURAK.play_batch(rows, options)
    assert (batch.outcome == DURAK.outcomes.index("cycle")).any()


def test_entry_points_check_their_arguments() -> None:
    rows = np.zeros((1, 36), dtype=np.uint8)
    with pytest.raises(ValueError, match="a 52-card row has 52 cards, not 36"):
        _engine.play_rows(rows, players=2, deck=52)
    with pytest.raises(ValueError, match="players must be 2 to 6, not 7"):
        _engine.play_rows(rows, players=7, deck=36)
    with pytest.raises(ValueError, match="3 policies for 2 players"):
        _engine.play_rows(rows, players=2, deck=36, policies=[0, 1, 0])
    with pytest.raises(ValueError, match="policy code must be 0 or 1"):
        _engine.play_rows(rows, players=2, deck=36, policies=[0, 2])
    with pytest.raises(ValueError, match="pairs needs 4 players"):
        _engine.make_kernel(players=3, deck=36, pairs=True)
    with pytest.raises(ValueError, match="card codes must be below 52"):
        _engine.play_rows(np.full((1, 36), 60, dtype=np.uint8), players=2, deck=36)
    with pytest.raises(ValueError, match="1 hands for 2 players"):
        _engine.play_position([[16]], 0, [], 0, False, players=2, deck=36)
