"""Spite and Malice options (docs/games/spite.md, [Options]): defaults, normalising, key, every
error."""

from __future__ import annotations

import dataclasses

import pytest

from dealsearch.game import GameError
from dealsearch.games.spite.options import SpiteOptions, parse_max_turns, parse_policies


def test_defaults_and_key() -> None:
    options = SpiteOptions()
    assert options.key() == "recycle=bottom;side_piles=seed;policies=greedy,greedy;max_turns=none"
    assert options.to_json() == {"recycle": "bottom", "side_piles": "seed",
                                 "policies": ["greedy", "greedy"], "max_turns": None}


def test_one_policy_is_both_seats_and_equal_settings_have_equal_keys() -> None:
    assert SpiteOptions(policies="cautious").policies == ("cautious", "cautious")
    assert SpiteOptions(policies=["greedy", "cautious"]) == SpiteOptions(
        policies="greedy, cautious")
    assert SpiteOptions(max_turns="20").key() == SpiteOptions(max_turns=20).key()


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        SpiteOptions().recycle = "none"  # type: ignore[misc]


@pytest.mark.parametrize(("values", "message"), [
    ({"recycle": "shuffle"}, r"recycle: unknown value 'shuffle': choose from bottom, none"),
    ({"side_piles": "loose"}, r"side-piles: unknown value 'loose': choose from seed, free"),
    ({"policies": "greedy,greedy,greedy"}, r"policy: give one policy or two .*, not 3"),
    ({"policies": "random"}, r"policy: unknown policy 'random': choose from greedy, cautious"),
    ({"max_turns": "ten"}, r"max-turns: 'ten' is not a whole number"),
    ({"max_turns": 2.5}, r"max-turns: 2.5 is not a whole number"),
    ({"max_turns": 0}, r"max-turns: 0 is not a positive whole number"),
])
def test_errors(values: dict[str, object], message: str) -> None:
    with pytest.raises(GameError, match=message):
        SpiteOptions(**values)  # type: ignore[arg-type]


def test_parsers_for_the_command_line() -> None:
    assert parse_policies("cautious,greedy") == ("cautious", "greedy")
    assert parse_max_turns("none") is None
    assert parse_max_turns(" 7 ") == 7
