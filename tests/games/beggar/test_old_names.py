"""The names BMN's package used to export (and its old modules, and Durak's ``cards``) still
import, each with a ``DeprecationWarning`` that
names its new home, and are the very objects of that home."""

from __future__ import annotations

import importlib
import re
import sys

import pytest

import dealsearch.games.beggar as package
from dealsearch.game import BatchResults, GameResult, get_game
from dealsearch.games.beggar import engine, game, notation, options
from dealsearch.games.durak import notation as durak_notation

MOVED = {
    "Beggar": game.BeggarGame, "describe": game.describe,
    "play": engine.play, "play_batch": engine.play_batch, "random_deals": engine.shuffled_rows,
    "random_rows": notation.random_rows, "Result": engine.BeggarResult,
    "BatchResult": engine.BeggarBatch, "BeggarResult": engine.BeggarResult,
    "Deal": notation.Deal, "DealError": notation.DealError, "Rules": notation.Rules,
    "STANDARD": notation.STANDARD, "ITALIAN": notation.ITALIAN,
    "parse_deal": notation.parse_deal, "format_deal": notation.format_deal,
    "BeggarOptions": options.BeggarOptions, "PRESETS": options.PRESETS,
    "get_rules": options.get_rules, "make_options": options.beggar_options,
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_an_old_name_warns_and_is_the_new_object(name: str) -> None:
    with pytest.warns(DeprecationWarning, match=rf"beggar\.{name} is deprecated: use "
                                                r"dealsearch\.games\.beggar\.\w+\.\w+"):
        old = getattr(package, name)
    assert old is MOVED[name]


def test_from_import_of_an_old_name_still_works() -> None:
    with pytest.warns(DeprecationWarning, match="notation.parse_deal"):
        from dealsearch.games.beggar import parse_deal
    assert parse_deal("-A/K-", deck="any").hands == ((0, 4), (3, 0))


def test_the_old_names_inside_their_modules_warn_too() -> None:
    with pytest.warns(DeprecationWarning, match="use BeggarGame"):
        assert game.Beggar is game.BeggarGame  # type: ignore[attr-defined]
    for name in ("random_deals", "random_rows"):
        with pytest.warns(DeprecationWarning, match=r"use shuffled_rows\(n, rules, seed\), or "
                                                    r"notation\.random_rows\(options, n, seed\)"):
            assert getattr(engine, name) is engine.shuffled_rows


@pytest.mark.parametrize("name", ["to_bmn_result", "to_game_result", "Cycle", "no_such_name"])
def test_the_converters_and_the_second_result_model_are_gone(name: str) -> None:
    with pytest.raises(AttributeError, match=name):
        getattr(package, name)


OLD_MODULES = {
    "dealsearch.games.beggar.rules": {"Rules": notation.Rules, "STANDARD": notation.STANDARD,
                                      "ITALIAN": notation.ITALIAN, "PRESETS": options.PRESETS,
                                      "get_rules": options.get_rules},
    "dealsearch.games.beggar.deal": {"Deal": notation.Deal},
    "dealsearch.games.beggar.result": {"Result": engine.BeggarResult,
                                       "OUTCOMES": engine.OUTCOMES},
    "dealsearch.games.durak.cards": {"card": durak_notation.card, "SUITS": durak_notation.SUITS,
                                     "beats": durak_notation.beats},
}


@pytest.mark.parametrize("path", sorted(OLD_MODULES))
def test_an_old_module_imports_with_a_warning_naming_its_new_home(
        path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, path, raising=False)  # import it afresh
    package_name, _, leaf = path.rpartition(".")
    monkeypatch.delattr(sys.modules[package_name], leaf, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"{re.escape(path)} moved: import from "
                                                r"dealsearch\.games\.\w+\.\w+"):
        module = importlib.import_module(path)
    for name, new in OLD_MODULES[path].items():
        assert getattr(module, name) is new, name


def test_the_engine_and_the_game_return_the_framework_results() -> None:
    beggar = get_game("beggar")
    rows = notation.random_rows(beggar.options(), 3, seed=2)  # as every game's random_rows
    assert (rows == engine.shuffled_rows(3, seed=2)).all()
    batch = beggar.play_batch(rows, beggar.options())
    assert isinstance(batch, BatchResults) and batch.measures.shape == (3, 2)
    result = engine.play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---")
    assert isinstance(result, GameResult)
    assert (dict(result.measures), dict(result.details)) == (
        {"cards": 8344, "tricks": 1164}, {"winner": 2, "out": [1]})


def test_options_old_make_options_warns_and_is_beggar_options() -> None:
    # renamed: it read like the framework's make_options(game, values)
    with pytest.warns(DeprecationWarning, match="use beggar_options"):
        old = options.make_options
    assert old is options.beggar_options
