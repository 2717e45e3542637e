"""Durak options ([Options], [Policies] names): defaults, canonical key, and one test per error
message."""

from __future__ import annotations

import pytest

from dealsearch.game import GameError, make_options
from dealsearch.games.durak import DURAK
from dealsearch.games.durak.options import DurakOptions


def test_defaults_are_the_seed_reading() -> None:
    options = DurakOptions()
    assert (options.players, options.variant, options.deck, options.policies) == (
        2, "podkidnoy", 36, ("cheapest", "cheapest"))
    assert (options.first_limit, options.first_transfer, options.show_trump,
            options.throw_after_take, options.max_bouts) == (6, False, False, True, None)
    assert not options.transfers and not options.pairs


@pytest.mark.parametrize(("variant", "transfers", "pairs"), [
    ("podkidnoy", False, False), ("perevodnoy", True, False),
    ("pairs", False, True), ("pairs-perevodnoy", True, True)])
def test_presets(variant: str, transfers: bool, pairs: bool) -> None:
    options = DurakOptions(players=4, variant=variant)
    assert (options.transfers, options.pairs) == (transfers, pairs)


def test_one_policy_name_is_every_seat_and_the_key_is_canonical() -> None:
    assert DurakOptions(players=3, policy="aggressive").policies == ("aggressive",) * 3
    same = DurakOptions(players=3, policy="aggressive,aggressive,aggressive")
    assert same.key() == DurakOptions(players=3, policy="aggressive").key()
    mixed = DurakOptions(players=3, policy=" Cheapest, aggressive ,cheapest")
    assert mixed.policies == ("cheapest", "aggressive", "cheapest")
    assert "policy=cheapest,aggressive,cheapest" in mixed.key()


def test_to_json_has_every_option() -> None:
    assert DurakOptions(max_bouts=10).to_json() == {
        "players": 2, "variant": "podkidnoy", "deck": 36, "policy": "cheapest",
        "first_limit": 6, "first_transfer": False, "show_trump": False,
        "throw_after_take": True, "max_bouts": 10}


def test_game_options_from_cli_names() -> None:
    options = make_options(DURAK, {"players": "4", "variant": "pairs", "first-limit": "5",
                                   "no_throw_after_take": True, "max_bouts": None,
                                   "policy": "aggressive"})
    assert (options.players, options.pairs, options.first_limit, options.throw_after_take,
            options.max_bouts) == (4, True, 5, False, None)
    assert {spec.name for spec in DURAK.option_specs} == {
        "players", "variant", "deck", "policy", "first_limit", "first_transfer",
        "show_trump", "no_throw_after_take", "max_bouts"}


@pytest.mark.parametrize(("values", "message"), [
    ({"players": 7}, "players must be 2 to 6, not 7"),
    ({"players": "three"}, "players must be a whole number, not 'three'"),
    ({"players": 3, "variant": "pairs"}, "variant pairs needs 4 players, not 3"),
    ({"variant": "podkidnoi"}, "unknown variant 'podkidnoi'"),
    ({"deck": 40}, "deck must be 36 or 52, not 40"),
    ({"first_limit": 4}, "first_limit must be 5 or 6, not 4"),
    ({"policy": "greedy"}, "unknown policy 'greedy'"),
    ({"players": 2, "policy": "cheapest,aggressive,cheapest"},
     "3 policies for 2 players: give one name or one per seat"),
    ({"max_bouts": -1}, "max_bouts must be 0 or more, not -1"),
])
def test_bad_options_name_what_is_wrong(values: dict[str, object], message: str) -> None:
    with pytest.raises(GameError) as error:
        DurakOptions(**values)  # type: ignore[arg-type]
    assert message in str(error.value)
    assert "\n" not in str(error.value)
