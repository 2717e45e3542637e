"""Spite and Malice as a plug-in: the Game interface (docs/games/spite.md through
dealsearch.game)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from dealsearch.game import GameError, GameResult, get_game
from dealsearch.games.spite import reference
from dealsearch.games.spite.game import SpiteGame, cycle_key_of
from dealsearch.games.spite.notation import JOKER, random_rows
from dealsearch.games.spite.options import SpiteOptions

SPITE = get_game("spite")
DEAL_D = ("Q6TK52JJQKTK27365928753AK969A7QAT7Q45J8J48342836T94A/"
          "62Q279A48T34J3J326K*A5KK8*49*657TQ853T7986AQK*954TJAJ27Q")
POSITION_B = ('{"payoff": ["85", "47"], "hand": ["A7342", ""], "side": [["","","",""], '
              '["","","",""]], "centre": ["","","",""], "stock": "QK5TJ689", "turn": 1}')
CONTRACT_KEYS = ["outcome", "winner", "first", "turns", "cards", "discards", "piles", "payoff",
                 "cycle"]


def test_registered_with_its_measures_and_outcomes() -> None:
    assert isinstance(SPITE, SpiteGame)
    assert SPITE.name == "spite" and SPITE.measures == ("turns", "cards")
    assert SPITE.outcomes == ("win", "stalemate", "cycle", "limit")
    assert [spec.name for spec in SPITE.option_specs] == ["recycle", "side_piles", "policy",
                                                          "max_turns"]


def test_options_from_the_command_line_names() -> None:
    assert SPITE.options() == SpiteOptions()
    options = SPITE.options(recycle="none", side_piles="free", policy="cautious,greedy",
                            max_turns=30)
    assert options == SpiteOptions("none", "free", ("cautious", "greedy"), 30)
    assert SPITE.options(policy=None, max_turns=None) == SpiteOptions()


def test_layout_is_two_fixed_packs() -> None:
    layout = SPITE.layout(SPITE.options())
    assert layout.segments == (52, 56) and layout.fixed == (True, True)
    assert layout.names == ("deck 1", "deck 2")
    deck1, deck2 = (Counter(layout.deck[a:b].tolist()) for a, b in layout.bounds())
    assert deck1 == Counter({rank: 4 for rank in range(1, 14)})
    assert deck2 == deck1 + Counter({JOKER: 4})


def test_a_shuffled_layout_segment_is_a_deal() -> None:
    layout = SPITE.layout(SPITE.options())
    rng = np.random.default_rng(3)
    row = np.concatenate([rng.permutation(layout.deck[a:b]) for a, b in layout.bounds()])
    options = SPITE.options()
    assert (SPITE.parse(SPITE.format(row, options), options) == row).all()


def test_parse_errors_are_game_errors() -> None:
    with pytest.raises(GameError, match="deck 1 has 53 cards"):
        SPITE.parse("A" + DEAL_D, SPITE.options())


def test_verify_gives_canonical_text_and_the_contracts_keys() -> None:
    deck1, deck2 = DEAL_D.split("/")
    text, result = SPITE.verify(" ".join(deck1) + " / " + deck2, SPITE.options())
    assert text == DEAL_D
    assert list(result.to_json(SPITE.result_keys)) == CONTRACT_KEYS
    text, result = SPITE.verify(POSITION_B, SPITE.options())
    assert json.loads(text)["hand"] == ["A2347", ""]
    assert list(result.to_json(SPITE.result_keys)) == CONTRACT_KEYS
    assert result.entry == {"turns": 4, "cards": 22}


def test_verify_rejects_bad_text() -> None:
    with pytest.raises(GameError, match="deck1/deck2 with one '/'"):
        SPITE.verify("hello", SPITE.options())
    with pytest.raises(GameError, match="position: missing key 'hand'"):
        SPITE.verify('{"payoff": ["A", "2"]}', SPITE.options())


def test_trace_of_a_deal_ends_with_its_result() -> None:
    lines = list(SPITE.trace(DEAL_D, SPITE.options()))
    assert len(lines) == 77 and lines[0].startswith("1. s1: ")  # a full hand: no draw
    assert lines[-1].startswith("win: winner 2, turns 76, cards 281")


def cycles(options: SpiteOptions, count: int) -> np.ndarray:
    rows = random_rows(None, 3000, seed=77)
    batch = SPITE.play_batch(rows, options)
    return rows[batch.outcome == SPITE.outcomes.index("cycle")][:count]


def test_cycle_key_replays_the_cycle_from_entry_zero() -> None:
    options = SPITE.options()
    for row in cycles(options, 4):
        _, result = SPITE.verify(SPITE.format(row, options), options)
        key = SPITE.cycle_key(row, options)
        _, again = SPITE.verify(key, options)
        assert again.outcome == "cycle" and again.entry == {"turns": 0, "cards": 0}
        assert again.period == result.period


def test_cycle_key_is_the_same_for_the_mirrored_deal() -> None:
    options = SPITE.options()
    for row in cycles(options, 4):
        if row[0] == row[26]:
            continue                      # a tie for the first player does not mirror
        mirrored = np.concatenate([row[26:52], row[:26], row[52:]])
        assert SPITE.cycle_key(mirrored, options) == SPITE.cycle_key(row, options)


def test_cycle_key_states_are_the_references() -> None:
    for values in ({}, {"side_piles": "free"}, {"policy": "greedy,cautious"}):
        options = SPITE.options(**values)
        rows = random_rows(None, 6000, seed=78)
        batch = SPITE.play_batch(rows, options)
        for row in rows[batch.outcome == SPITE.outcomes.index("cycle")][:3]:
            expected = reference.cycle_positions(reference.deal_position(row), options)
            assert expected
            assert SPITE.cycle_key(row, options) == cycle_key_of(expected, options)


def test_result_is_a_game_result() -> None:
    assert isinstance(SPITE.verify(DEAL_D, SPITE.options())[1], GameResult)


def test_a_short_search_logs_cycles_and_counts_stalemates(tmp_path, capsys) -> None:
    """Seconds of random search under the defaults find never-ending deals (logged, each
    replayed by records --verify) and stalemates (counted in the run, not stored)."""
    import json

    from dealsearch.cli import main
    from dealsearch.log import RecordLog

    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--game", "spite", "--deals", "5000", "--workers", "1",
                 "--seed", "1", "--quiet", "--db", db]) == 0
    capsys.readouterr()
    run = RecordLog(db).runs()[0]
    assert run["outcomes"]["cycle"] > 0 and run["outcomes"]["stalemate"] > 0
    assert main(["records", "--game", "spite", "--json", "--db", db]) == 0
    outcomes = {json.loads(line)["outcome"] for line in capsys.readouterr().out.splitlines()}
    assert "cycle" in outcomes and "stalemate" not in outcomes
    assert main(["records", "--game", "spite", "--verify", "--db", db]) == 0
