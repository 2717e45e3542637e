"""Durak as a plug-in: the Game interface the search, the log and the CLI rely on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dealsearch.game import GameError, canonical, get_game
from dealsearch.games.durak import DURAK, notation
from dealsearch.games.durak.game import DurakGame
from dealsearch.games.durak.notation import random_rows
from dealsearch.games.durak.options import DurakOptions

SECTION_9_KEYS = {"outcome", "loser", "losing_pair", "out", "bouts", "cards", "takes",
                  "transfers", "cycle"}
CYCLE_KEYS = {"entry_bouts", "entry_cards", "period_bouts", "period_cards"}


def test_registered_with_the_contract_names() -> None:
    game = get_game("durak")
    assert isinstance(game, DurakGame)
    assert (game.name, game.measures, game.outcomes) == (
        "durak", ("bouts", "cards"), ("win", "draw", "cycle", "limit"))


def test_verify_json_has_exactly_the_section_9_keys() -> None:
    options = DurakOptions(players=3)
    text, ends = DURAK.verify(
        "hands=9C KH AS JD/8C AD 6S TC/6D TD 7S 9S; trump=H; talon=QS 8H; attacker=1",
        options)
    assert text == ("hands=9C JD AS KH/6S 8C TC AD/6D 7S 9S TD; trump=H; talon=QS 8H; "
                    "attacker=1; first=no")
    assert set(ends.to_json()) == SECTION_9_KEYS and ends.to_json()["cycle"] is None
    _, cycles = DURAK.verify("hands=9C AS/KS/JD QS; trump=H; attacker=1", options)
    assert set(cycles.to_json()) == SECTION_9_KEYS
    assert set(cycles.to_json()["cycle"]) == CYCLE_KEYS


def test_canonical_sorts_hands_but_keeps_the_talon_order() -> None:
    options = DurakOptions(players=3)
    row = random_rows(options, 1, seed=3)[0]
    sorted_row = canonical(DURAK, row, options)
    for start in range(0, 18, 6):
        assert list(sorted_row[start:start + 6]) == sorted(row[start:start + 6])
    assert list(sorted_row[18:]) == list(row[18:])
    shuffled = row.copy()
    shuffled[0:6] = shuffled[0:6][::-1]
    assert DURAK.format(shuffled, options) == DURAK.format(row, options)
    assert DURAK.verify(DURAK.format(shuffled, options), options)[1] == \
        DURAK.play_reference(row, options)


def cycling_row(options: DurakOptions) -> np.ndarray:
    rows = random_rows(options, 20000, seed=11)
    batch = DURAK.play_batch(rows, options)
    return rows[int(np.flatnonzero(batch.outcome == DURAK.outcomes.index("cycle"))[0])]


def test_cycle_key_is_the_same_whichever_seat_reaches_the_cycle() -> None:
    options = DurakOptions(players=3, policy="aggressive")
    row = cycling_row(options)
    key = DURAK.cycle_key(row, options)
    assert key.startswith("trump=") and "hands=" in key
    # The same deal with every hand moved one seat on: the same game, other seats.
    rotated = np.concatenate([row[12:18], row[0:12], row[18:]])
    assert DURAK.verify(DURAK.format(rotated, options), options)[1].outcome == "cycle"
    assert DURAK.cycle_key(rotated, options) == key


def test_trace_of_a_deal_starts_with_the_hands() -> None:
    options = DurakOptions()
    row = random_rows(options, 1, seed=2)[0]
    lines = list(DURAK.trace(DURAK.format(row, options), options))
    assert lines[0].startswith("trump ") and lines[1].startswith("talon (top first): ")
    assert lines[2].startswith("bout 1: ")
    assert lines[-1].startswith("result: outcome ")


def test_verify_errors_are_game_errors() -> None:
    with pytest.raises(GameError, match="position has 2 hands for 3 players"):
        DURAK.verify("hands=6C/7C; trump=H", DurakOptions(players=3))
    with pytest.raises(GameError, match="appears twice"):
        DURAK.verify("6C 6C", DurakOptions())


def test_row_layout_has_every_hand_contiguous_and_unordered() -> None:
    for players in range(2, 7):
        layout = DURAK.layout(DurakOptions(players=players))
        assert sum(layout.segments) == layout.n_cards == 36
        assert layout.unordered[:players - 1] == (True,) * (players - 1)
        assert layout.unordered[-1] is False
        assert layout.names[0] == "hand 1"
    assert notation.layout(DurakOptions(players=2, deck=52)).segments == (6, 6, 40)


def test_a_short_3_player_aggressive_search_logs_a_cycle_that_replays(tmp_path, capsys) -> None:
    """The README's promise: a few seconds of random search find never-ending deals, and
    records --verify replays every stored one."""
    from dealsearch.cli import main

    db = str(tmp_path / "log.sqlite")
    assert main(["search", "random", "--game", "durak", "--players", "3", "--policy",
                 "aggressive", "--deals", "100000", "--workers", "1", "--seed", "1", "--quiet",
                 "--db", db]) == 0
    capsys.readouterr()
    assert main(["records", "--game", "durak", "--cycles", "--db", db, "--json"]) == 0
    cycles = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert cycles and all(cycle["period_bouts"] > 0 for cycle in cycles)
    assert main(["records", "--game", "durak", "--verify", "--db", db]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(" 0 mismatches")


def test_verify_json_has_the_contracts_keys_in_its_order(capsys) -> None:
    from dealsearch.cli import main

    assert main(["verify", "--game", "durak", "--variant", "perevodnoy", "--json",
                 "hands=8D QC KS/8C 8S TS KD; trump=H; attacker=1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert list(result) == ["deal", "outcome", "loser", "losing_pair", "out", "bouts", "cards",
                            "takes", "transfers", "cycle"]
    assert list(result["cycle"]) == ["entry_bouts", "entry_cards", "period_bouts",
                                     "period_cards"]
